//! AMDGPU assembly text (the subset Stagecraft's emitter writes, in llvm-mc's syntax) → decoded
//! instructions, with the checks an assembler would make on what it sees: immediates within their
//! fields, operand kinds per encoding (a VOP2's second source is a VGPR; VOP3 takes no literal on
//! gfx9), one scalar value per VALU instruction (the constant bus), aligned register pairs, and
//! the kernel descriptor's register and LDS sizes.

use crate::machine::KernelText;
use std::collections::BTreeMap;

mod isa;
mod operands;

use isa::mnemonics;
pub use isa::{Cmp, Op, Operand};
use operands::{check_operands, parse_int, parse_register, parse_waitcnt};

/// `s_waitcnt` fields; `None` leaves a counter unconstrained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Waitcnt {
    pub vmcnt: Option<u32>,
    pub lgkmcnt: Option<u32>,
    pub expcnt: Option<u32>,
}

/// Field widths on gfx9 (gfx942, gfx950): vmcnt 6 bits, lgkmcnt 4, expcnt 3.
pub const VMCNT_MAX: i64 = 63;
pub const LGKMCNT_MAX: i64 = 15;
pub const EXPCNT_MAX: i64 = 7;

#[derive(Clone, Debug)]
pub struct Inst {
    /// 1-based line in the text.
    pub line: u32,
    pub op: Op,
    pub operands: Vec<Operand>,
    /// `offset:N` of a memory instruction.
    pub offset: i64,
    pub waitcnt: Waitcnt,
}

/// The `.amdhsa_*` values the executor needs, and the LDS limit of the target.
#[derive(Clone, Debug, Default)]
pub struct Descriptor {
    pub name: String,
    pub group_segment: u64,
    pub next_free_vgpr: u32,
    pub next_free_sgpr: u32,
    pub kernarg_ptr: bool,
    pub workgroup_id_x: bool,
    pub accum_offset: Option<u32>,
}

#[derive(Clone, Debug, Default)]
pub struct Kernel {
    pub insts: Vec<Inst>,
    /// Index of the first instruction to run (after the kernel's label).
    pub entry: usize,
    pub descriptor: Descriptor,
}

pub use crate::machine::Complaint;
/// The kernel, what an assembler would reject, and the first valid AMDGPU the executor does not
/// model.
pub type Parsed = crate::machine::Parsed<Kernel>;

/// Parses `text`; `cpu` is the processor the kernel must name (`gfx942`, `gfx950`).
pub fn parse(text: &str, cpu: &str, lds_limit: u64) -> Parsed {
    let mut problems: Vec<Complaint> = Vec::new();
    let mut unsupported: Option<Complaint> = None;
    // The code of every line (comments and blanks gone), once.
    let lines = crate::machine::code_lines(text, strip_comment);
    // First pass: labels → instruction index.
    let mut labels: BTreeMap<&str, usize> = BTreeMap::new();
    let mut count = 0usize;
    for &(_, code) in &lines {
        if let Some(label) = code.strip_suffix(':') {
            labels.insert(label.trim(), count);
        } else if !code.starts_with('.') {
            count += 1;
        }
    }
    let mut kernel = Kernel::default();
    let mut target_seen = false;
    let mut in_descriptor = false;
    let mut descriptor_seen = false;
    let mut d = Descriptor {
        workgroup_id_x: true,
        ..Descriptor::default()
    };
    for &(line, code) in &lines {
        if code.ends_with(':') {
            continue;
        }
        if code.starts_with('.') {
            let (name, value) = code.split_word().unwrap_or((code, ""));
            let value = value.trim();
            let int = |problems: &mut Vec<Complaint>| match parse_int(value) {
                Some(v) if v >= 0 => Some(v as u64),
                _ => {
                    problems.push((line, format!("{name} takes a non-negative integer")));
                    None
                }
            };
            match name {
                ".amdgcn_target" => {
                    target_seen = true;
                    let want = format!("\"amdgcn-amd-amdhsa--{cpu}\"");
                    if value != want {
                        problems.push((
                            line,
                            format!("the kernel targets {value}; this check is for {want}"),
                        ));
                    }
                }
                ".amdhsa_kernel" => {
                    in_descriptor = true;
                    descriptor_seen = true;
                    d.name = value.to_string();
                }
                ".end_amdhsa_kernel" => in_descriptor = false,
                ".amdhsa_group_segment_fixed_size" => {
                    d.group_segment = int(&mut problems).unwrap_or(0)
                }
                ".amdhsa_next_free_vgpr" => {
                    d.next_free_vgpr = int(&mut problems).unwrap_or(0) as u32
                }
                ".amdhsa_next_free_sgpr" => {
                    d.next_free_sgpr = int(&mut problems).unwrap_or(0) as u32
                }
                ".amdhsa_user_sgpr_kernarg_segment_ptr" => {
                    d.kernarg_ptr = int(&mut problems) == Some(1)
                }
                ".amdhsa_system_sgpr_workgroup_id_x" => {
                    d.workgroup_id_x = int(&mut problems) == Some(1)
                }
                ".amdhsa_accum_offset" => d.accum_offset = int(&mut problems).map(|v| v as u32),
                n if n.starts_with(".amdhsa_") && in_descriptor => {
                    // Other descriptor fields keep their defaults for this check.
                }
                ".text" | ".globl" | ".p2align" | ".type" | ".rodata" | ".section" | ".size" => {}
                other => {
                    unsupported.get_or_insert((line, format!("the directive {other}")));
                }
            }
            continue;
        }
        if let Some(inst) = instruction(line, code, &labels, &mut problems, &mut unsupported) {
            if inst.op == Op::GlobalLoadLdsDwordx4 && cpu != "gfx950" {
                // llvm-mc -mcpu=gfx942: "instruction not supported on this GPU".
                problems.push((
                    line,
                    format!("global_load_lds_dwordx4 is not an instruction of {cpu}: LDS DMA of 16 bytes a lane is gfx950's"),
                ));
            }
            kernel.insts.push(inst);
        }
    }
    if !target_seen {
        problems.push((
            0,
            format!("no `.amdgcn_target \"amdgcn-amd-amdhsa--{cpu}\"`"),
        ));
    }
    if !descriptor_seen {
        problems.push((0, "no kernel descriptor (`.amdhsa_kernel`)".into()));
    }
    check_descriptor(&d, &kernel.insts, cpu, lds_limit, &mut problems);
    kernel.entry = match labels.get(d.name.as_str()) {
        Some(&k) => k,
        None => {
            problems.push((
                0,
                format!(
                    "the kernel descriptor names `{}`, but no label `{}:` starts its code",
                    d.name, d.name
                ),
            ));
            0
        }
    };
    kernel.descriptor = d;
    Parsed {
        kernel,
        problems,
        unsupported,
    }
}

/// One instruction line: its mnemonic within the modelled subset, its operands (registers,
/// integers, labels, `offset:`) checked against its encoding.
fn instruction(
    line: u32,
    code: &str,
    labels: &BTreeMap<&str, usize>,
    problems: &mut Vec<Complaint>,
    unsupported: &mut Option<Complaint>,
) -> Option<Inst> {
    let (mnemonic, rest) = code.split_word().unwrap_or((code, ""));
    let Some(op) = mnemonics().get(mnemonic).copied() else {
        unsupported.get_or_insert((
            line,
            format!("`{mnemonic}` is outside the instruction subset the executor models"),
        ));
        return None;
    };
    let mut inst = Inst {
        line,
        op,
        operands: Vec::new(),
        offset: 0,
        waitcnt: Waitcnt::default(),
    };
    if op == Op::SWaitcnt {
        inst.waitcnt = parse_waitcnt(rest, line, problems);
        return Some(inst);
    }
    for part in split_operands(rest) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if let Some(o) = part.strip_prefix("offset:") {
            match parse_int(o) {
                Some(v) => inst.offset = v,
                None => problems.push((line, format!("`{part}` is not an offset"))),
            }
            continue;
        }
        let operand = if let Some(r) = parse_register(part) {
            Some(r)
        } else if let Some(v) = parse_int(part) {
            Some(Operand::Imm(v))
        } else {
            labels.get(part).map(|&k| Operand::Label(k))
        };
        match operand {
            Some(o) => inst.operands.push(o),
            None => problems.push((
                line,
                format!("{mnemonic}: `{part}` is not a register, an integer or a label"),
            )),
        }
    }
    check_operands(&inst, mnemonic, problems);
    Some(inst)
}

/// What the kernel descriptor must say for the target, and the registers it allocates to the
/// wave: an instruction using one beyond them is a problem.
fn check_descriptor(
    d: &Descriptor,
    insts: &[Inst],
    cpu: &str,
    lds_limit: u64,
    problems: &mut Vec<Complaint>,
) {
    match d.accum_offset {
        None => problems.push((0, format!("{cpu} needs `.amdhsa_accum_offset`"))),
        Some(a) if a % 4 != 0 || !(4..=256).contains(&a) => problems.push((
            0,
            format!(".amdhsa_accum_offset {a}: a multiple of 4 from 4 to 256"),
        )),
        _ => {}
    }
    if d.group_segment > lds_limit {
        problems.push((
            0,
            format!(
                ".amdhsa_group_segment_fixed_size {}: {cpu} has {lds_limit} bytes of LDS",
                d.group_segment
            ),
        ));
    }
    // Registers beyond the descriptor's counts are not allocated to the wave.
    for inst in insts {
        for o in &inst.operands {
            let (kind, hi, limit) = match *o {
                Operand::Vgpr(r) => ("v", u32::from(r), d.next_free_vgpr),
                Operand::VgprPair(r) => ("v", u32::from(r) + 1, d.next_free_vgpr),
                Operand::Sgpr(r) => ("s", u32::from(r), d.next_free_sgpr),
                Operand::SgprPair(r) => ("s", u32::from(r) + 1, d.next_free_sgpr),
                _ => continue,
            };
            if hi >= limit {
                problems.push((
                    inst.line,
                    format!(
                        "uses {kind}{hi}, beyond the {limit} {} the kernel descriptor allocates (.amdhsa_next_free_{}gpr)",
                        if kind == "v" { "VGPRs" } else { "SGPRs" },
                        kind
                    ),
                ));
            }
        }
    }
}

fn strip_comment(s: &str) -> &str {
    let b = s.as_bytes();
    let cut = b
        .iter()
        .enumerate()
        .position(|(i, &c)| c == b';' || (c == b'/' && b.get(i + 1) == Some(&b'/')));
    match cut {
        Some(at) => s.get(..at).unwrap_or(s),
        None => s,
    }
}

/// Operands separated by commas, except inside `[...]`; a trailing `offset:N` is separated by a
/// space.
fn split_operands(s: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(6);
    let mut depth = 0i32;
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let end = match b {
            b'[' => {
                depth += 1;
                false
            }
            b']' => {
                depth -= 1;
                false
            }
            b',' => depth == 0,
            b' ' | b'\t' => depth == 0,
            _ => false,
        };
        if end {
            let part = s.get(start..i).unwrap_or("").trim();
            if !part.is_empty() {
                out.push(part);
            }
            start = i + 1;
        }
    }
    let part = s.get(start..).unwrap_or("").trim();
    if !part.is_empty() {
        out.push(part);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn kernel(body: &str) -> String {
        format!(
            ".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\nk:\n{body}\n  s_endpgm\n.rodata\n.amdhsa_kernel k\n  .amdhsa_next_free_vgpr 8\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 8\n.end_amdhsa_kernel\n"
        )
    }

    fn problems(body: &str) -> Vec<String> {
        parse(&kernel(body), "gfx942", 65536)
            .problems
            .into_iter()
            .map(|p| p.1)
            .collect()
    }

    #[test]
    fn immediates_beyond_their_fields_are_rejected() {
        assert!(problems("  s_waitcnt vmcnt(63)").is_empty());
        assert!(problems("  s_waitcnt vmcnt(64)")[0].contains("0–63"));
        assert!(problems("  s_waitcnt vmcnt(-1)")[0].contains("negative"));
        assert!(problems("  s_waitcnt vmcnt(2.5)")[0].contains("integer"));
        assert!(problems("  s_waitcnt lgkmcnt(16)")[0].contains("0–15"));
        assert!(problems("  s_waitcnt vmcnt(0) lgkmcnt(0)").is_empty());
    }

    #[test]
    fn operand_kinds_follow_the_encodings() {
        assert!(problems("  v_add_u32 v1, s2, v1").is_empty());
        assert!(problems("  v_add_u32 v1, v1, s2")[0].contains("second source"));
        assert!(problems("  v_fma_f32 v1, v1, 0x12345, v2")[0].contains("literal"));
        assert!(problems("  v_add_co_u32 v1, vcc, s2, v3").is_empty());
        assert!(problems("  v_addc_co_u32 v1, vcc, s2, v3, vcc")[0].contains("constant bus"));
        assert!(problems("  s_add_i32 s1, 0x12345, 0x54321")[0].contains("one 32-bit literal"));
        assert!(problems("  global_load_dword v1, v[3:4], off")[0].contains("even-aligned"));
        assert!(problems("  v_mov_b32 v9, 0")[0].contains("beyond"));
    }

    #[test]
    fn dwordx4_lds_dma_is_gfx950s_and_exec_is_written_whole_from_inline_constants() {
        let dma = "  global_load_lds_dwordx4 v[2:3], off";
        assert!(problems(dma)[0].contains("not an instruction of gfx942"));
        let gfx950 = kernel(dma).replace("gfx942", "gfx950");
        assert!(parse(&gfx950, "gfx950", 163840).problems.is_empty());
        assert!(problems("  s_mov_b64 exec, -1").is_empty());
        assert!(problems("  s_cselect_b64 exec, -1, 0").is_empty());
        assert!(problems("  s_mov_b64 exec, 0x12345")[0].contains("inline"));
        assert!(problems("  s_mov_b64 s[2:3], -1")[0].contains("EXEC"));
    }

    #[test]
    fn the_raw_waitcnt_immediate_decodes_per_gfx9() {
        let p = parse(&kernel("  s_waitcnt 0xc07f"), "gfx942", 65536);
        let w = p.kernel.insts[0].waitcnt;
        assert_eq!(w.vmcnt, Some(63));
        assert_eq!(w.lgkmcnt, Some(0));
    }
}
