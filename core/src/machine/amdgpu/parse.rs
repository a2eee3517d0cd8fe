//! AMDGPU assembly text (the subset Stagecraft's emitter writes, in llvm-mc's syntax) → decoded
//! instructions, with the checks an assembler would make on what it sees: immediates within their
//! fields, operand kinds per encoding (a VOP2's second source is a VGPR; VOP3 takes no literal on
//! gfx9), one scalar value per VALU instruction (the constant bus), aligned register pairs, and
//! the kernel descriptor's register and LDS sizes.

use super::super::NameMap;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Sgpr(u16),
    Vgpr(u16),
    /// `s[a:a+1]`.
    SgprPair(u16),
    /// `v[a:a+1]`.
    VgprPair(u16),
    M0,
    Vcc,
    /// An integer as written (decimal or hex; floats are not in the subset).
    Imm(i64),
    Off,
    /// Index of the instruction a label names.
    Label(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Lg,
    Gt,
    Ge,
    Lt,
    Le,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    SLoadDwordx2,
    SMovB32,
    SAddU32,
    SSubU32,
    SAddI32,
    SSubI32,
    SMulI32,
    SMulHiU32,
    SMinI32,
    SMaxI32,
    SLshlB32,
    SLshrB32,
    SAndB32,
    SOrB32,
    SCmp(Cmp, bool),
    SCselectB32,
    SCbranchScc1,
    SCbranchScc0,
    SBranch,
    SWaitcnt,
    SBarrier,
    SNop,
    SEndpgm,
    VReadfirstlaneB32,
    VMovB32,
    VLshlrevB32,
    VLshrrevB32,
    VAddU32,
    VSubU32,
    VAddCoU32,
    VAddcCoU32,
    VAndB32,
    VOrB32,
    VXorB32,
    VAddF32,
    VSubF32,
    VMulF32,
    VMaxF32,
    VMinF32,
    VRcpF32,
    VFmaF32,
    VCvtF32I32,
    GlobalLoadDword,
    GlobalStoreDword,
    GlobalLoadLdsDword,
    DsReadB32,
    DsWriteB32,
}

/// How an instruction's operands are encoded (what the assembler accepts in each position).
#[derive(Clone, Copy, PartialEq)]
enum Enc {
    Sop2,
    Sop1,
    Sopc,
    /// Branches and `s_waitcnt`/`s_endpgm`: checked by hand.
    Sopp,
    Smem,
    Vop1,
    Vop2,
    /// VOP2 with a carry out (and in) in VCC: `v_add_co_u32 vD, vcc, src0, vsrc1`.
    Vop2Carry {
        carry_in: bool,
    },
    Vop3,
    Readlane,
    Mem,
}

/// Mnemonic → operation, built once (a `match` on strings compares them one after the other).
fn mnemonics() -> &'static NameMap<&'static str, Op> {
    static TABLE: std::sync::OnceLock<NameMap<&'static str, Op>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = NameMap::default();
        for m in MNEMONICS {
            if let Some(op) = Op::from_mnemonic(m) {
                t.insert(m, op);
            }
        }
        for c in ["eq", "lg", "gt", "ge", "lt", "le"] {
            for ty in ["i32", "u32"] {
                let m: &'static str = match (c, ty) {
                    ("eq", "i32") => "s_cmp_eq_i32",
                    ("eq", _) => "s_cmp_eq_u32",
                    ("lg", "i32") => "s_cmp_lg_i32",
                    ("lg", _) => "s_cmp_lg_u32",
                    ("gt", "i32") => "s_cmp_gt_i32",
                    ("gt", _) => "s_cmp_gt_u32",
                    ("ge", "i32") => "s_cmp_ge_i32",
                    ("ge", _) => "s_cmp_ge_u32",
                    ("lt", "i32") => "s_cmp_lt_i32",
                    ("lt", _) => "s_cmp_lt_u32",
                    ("le", "i32") => "s_cmp_le_i32",
                    _ => "s_cmp_le_u32",
                };
                if let Some(op) = Op::from_mnemonic(m) {
                    t.insert(m, op);
                }
            }
        }
        t
    })
}

const MNEMONICS: [&str; 46] = [
    "s_load_dwordx2",
    "s_mov_b32",
    "s_add_u32",
    "s_sub_u32",
    "s_add_i32",
    "s_sub_i32",
    "s_mul_i32",
    "s_mul_hi_u32",
    "s_min_i32",
    "s_max_i32",
    "s_lshl_b32",
    "s_lshr_b32",
    "s_and_b32",
    "s_or_b32",
    "s_cselect_b32",
    "s_cbranch_scc1",
    "s_cbranch_scc0",
    "s_branch",
    "s_waitcnt",
    "s_barrier",
    "s_nop",
    "s_endpgm",
    "v_readfirstlane_b32",
    "v_mov_b32",
    "v_lshlrev_b32",
    "v_lshrrev_b32",
    "v_add_u32",
    "v_sub_u32",
    "v_add_co_u32",
    "v_addc_co_u32",
    "v_and_b32",
    "v_or_b32",
    "v_xor_b32",
    "v_add_f32",
    "v_sub_f32",
    "v_mul_f32",
    "v_max_f32",
    "v_min_f32",
    "v_rcp_f32",
    "v_fma_f32",
    "v_cvt_f32_i32",
    "global_load_dword",
    "global_store_dword",
    "global_load_lds_dword",
    "ds_read_b32",
    "ds_write_b32",
];

impl Op {
    fn from_mnemonic(m: &str) -> Option<Op> {
        use Op::*;
        let cmp = |s: &str| match s {
            "eq" => Some(Cmp::Eq),
            "lg" => Some(Cmp::Lg),
            "gt" => Some(Cmp::Gt),
            "ge" => Some(Cmp::Ge),
            "lt" => Some(Cmp::Lt),
            "le" => Some(Cmp::Le),
            _ => None,
        };
        if let Some(rest) = m.strip_prefix("s_cmp_") {
            let (c, ty) = rest.split_once('_')?;
            let signed = match ty {
                "i32" => true,
                "u32" => false,
                _ => return None,
            };
            return Some(SCmp(cmp(c)?, signed));
        }
        Some(match m {
            "s_load_dwordx2" => SLoadDwordx2,
            "s_mov_b32" => SMovB32,
            "s_add_u32" => SAddU32,
            "s_sub_u32" => SSubU32,
            "s_add_i32" => SAddI32,
            "s_sub_i32" => SSubI32,
            "s_mul_i32" => SMulI32,
            "s_mul_hi_u32" => SMulHiU32,
            "s_min_i32" => SMinI32,
            "s_max_i32" => SMaxI32,
            "s_lshl_b32" => SLshlB32,
            "s_lshr_b32" => SLshrB32,
            "s_and_b32" => SAndB32,
            "s_or_b32" => SOrB32,
            "s_cselect_b32" => SCselectB32,
            "s_cbranch_scc1" => SCbranchScc1,
            "s_cbranch_scc0" => SCbranchScc0,
            "s_branch" => SBranch,
            "s_waitcnt" => SWaitcnt,
            "s_barrier" => SBarrier,
            "s_nop" => SNop,
            "s_endpgm" => SEndpgm,
            "v_readfirstlane_b32" => VReadfirstlaneB32,
            "v_mov_b32" => VMovB32,
            "v_lshlrev_b32" => VLshlrevB32,
            "v_lshrrev_b32" => VLshrrevB32,
            "v_add_u32" => VAddU32,
            "v_sub_u32" => VSubU32,
            "v_add_co_u32" => VAddCoU32,
            "v_addc_co_u32" => VAddcCoU32,
            "v_and_b32" => VAndB32,
            "v_or_b32" => VOrB32,
            "v_xor_b32" => VXorB32,
            "v_add_f32" => VAddF32,
            "v_sub_f32" => VSubF32,
            "v_mul_f32" => VMulF32,
            "v_max_f32" => VMaxF32,
            "v_min_f32" => VMinF32,
            "v_rcp_f32" => VRcpF32,
            "v_fma_f32" => VFmaF32,
            "v_cvt_f32_i32" => VCvtF32I32,
            "global_load_dword" => GlobalLoadDword,
            "global_store_dword" => GlobalStoreDword,
            "global_load_lds_dword" => GlobalLoadLdsDword,
            "ds_read_b32" => DsReadB32,
            "ds_write_b32" => DsWriteB32,
            _ => return None,
        })
    }

    fn encoding(self) -> Enc {
        use Op::*;
        match self {
            SLoadDwordx2 => Enc::Smem,
            SMovB32 => Enc::Sop1,
            SAddU32 | SSubU32 | SAddI32 | SSubI32 | SMulI32 | SMulHiU32 | SMinI32 | SMaxI32
            | SLshlB32 | SLshrB32 | SAndB32 | SOrB32 | SCselectB32 => Enc::Sop2,
            SCmp(..) => Enc::Sopc,
            SCbranchScc1 | SCbranchScc0 | SBranch | SWaitcnt | SBarrier | SNop | SEndpgm => {
                Enc::Sopp
            }
            VReadfirstlaneB32 => Enc::Readlane,
            VMovB32 | VRcpF32 | VCvtF32I32 => Enc::Vop1,
            VLshlrevB32 | VLshrrevB32 | VAddU32 | VSubU32 | VAndB32 | VOrB32 | VXorB32
            | VAddF32 | VSubF32 | VMulF32 | VMaxF32 | VMinF32 => Enc::Vop2,
            VAddCoU32 => Enc::Vop2Carry { carry_in: false },
            VAddcCoU32 => Enc::Vop2Carry { carry_in: true },
            VFmaF32 => Enc::Vop3,
            GlobalLoadDword | GlobalStoreDword | GlobalLoadLdsDword | DsReadB32 | DsWriteB32 => {
                Enc::Mem
            }
        }
    }

    /// Float operations read inline integer constants as floats (`v_add_f32 v0, 1, v1` adds 1.0).
    pub fn is_float(self) -> bool {
        use Op::*;
        matches!(
            self,
            VAddF32 | VSubF32 | VMulF32 | VMaxF32 | VMinF32 | VRcpF32 | VFmaF32
        )
    }
}

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

/// A located complaint: 1-based line and message.
pub type Complaint = (u32, String);

pub struct Parsed {
    pub kernel: Kernel,
    /// What an assembler would reject.
    pub problems: Vec<Complaint>,
    /// Valid AMDGPU the executor does not model (the first).
    pub unsupported: Option<Complaint>,
}

/// An integer as written (the caller trims).
fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else {
        if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        body.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// A register as written (the caller trims).
fn parse_register(s: &str) -> Option<Operand> {
    match s {
        "m0" => return Some(Operand::M0),
        "vcc" => return Some(Operand::Vcc),
        "off" => return Some(Operand::Off),
        _ => {}
    }
    let (kind, rest) = (s.get(..1)?, s.get(1..)?);
    if kind != "s" && kind != "v" {
        return None;
    }
    if let Some(range) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (a, b) = range.split_once(':')?;
        let (a, b): (u16, u16) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        if b != a.checked_add(1)? {
            return None;
        }
        return Some(if kind == "s" {
            Operand::SgprPair(a)
        } else {
            Operand::VgprPair(a)
        });
    }
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u16 = rest.parse().ok()?;
    Some(if kind == "s" {
        Operand::Sgpr(n)
    } else {
        Operand::Vgpr(n)
    })
}

/// `vmcnt(3) lgkmcnt(0)`, `vmcnt(0) & lgkmcnt(0)`, or a raw simm16.
fn parse_waitcnt(text: &str, line: u32, problems: &mut Vec<Complaint>) -> Waitcnt {
    let mut w = Waitcnt::default();
    let t = text.trim();
    if let Some(raw) = parse_int(t) {
        if !(0..=0xffff).contains(&raw) {
            problems.push((
                line,
                format!("s_waitcnt {raw}: the immediate is 16 bits (0–65535)"),
            ));
            return w;
        }
        let raw = raw as u32;
        w.vmcnt = Some((raw & 0xf) | ((raw >> 14) & 0x3) << 4);
        w.expcnt = Some((raw >> 4) & 0x7);
        w.lgkmcnt = Some((raw >> 8) & 0xf);
        return w;
    }
    for part in t.split(['&', ',', ' ']).filter(|p| !p.trim().is_empty()) {
        let part = part.trim();
        let Some((name, rest)) = part.split_once('(') else {
            problems.push((line, format!("s_waitcnt: `{part}` is not a counter")));
            continue;
        };
        let Some(arg) = rest.strip_suffix(')') else {
            problems.push((line, format!("s_waitcnt: `{part}` is missing its `)`")));
            continue;
        };
        let (max, slot) = match name {
            "vmcnt" => (VMCNT_MAX, &mut w.vmcnt),
            "lgkmcnt" => (LGKMCNT_MAX, &mut w.lgkmcnt),
            "expcnt" => (EXPCNT_MAX, &mut w.expcnt),
            other => {
                problems.push((
                    line,
                    format!("s_waitcnt: `{other}` is not a counter of gfx9"),
                ));
                continue;
            }
        };
        match parse_int(arg.trim()) {
            Some(v) if (0..=max).contains(&v) => *slot = Some(v as u32),
            Some(v) if v < 0 => problems.push((
                line,
                format!("{name}({v}): a count cannot be negative (the field holds 0–{max})"),
            )),
            Some(v) => problems.push((
                line,
                format!("{name}({v}): the field holds 0–{max}; the assembler rejects {v}"),
            )),
            None => problems.push((
                line,
                format!("{name}({arg}): the count must be an integer immediate"),
            )),
        }
    }
    w
}

fn is_inline_int(v: i64) -> bool {
    (-16..=64).contains(&v)
}

fn fits_32(v: i64) -> bool {
    (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v)
}

/// Checks operand kinds per encoding; pushes what an assembler would reject.
fn check_operands(inst: &Inst, mnemonic: &str, problems: &mut Vec<Complaint>) {
    use Operand::*;
    let ops = &inst.operands;
    let line = inst.line;
    let mut bad = |what: String| problems.push((line, format!("{mnemonic}: {what}")));
    // A missing operand reads as a label, which no position below accepts but branches.
    let at = |i: usize| ops.get(i).copied().unwrap_or(Label(usize::MAX));
    let count_ok = |n: usize, bad: &mut dyn FnMut(String)| {
        if ops.len() != n {
            bad(format!("takes {n} operands, not {}", ops.len()));
            false
        } else {
            true
        }
    };
    let is_sdst = |o: Operand| matches!(o, Sgpr(_) | M0);
    let is_ssrc = |o: Operand| matches!(o, Sgpr(_) | M0 | Imm(_) | Vcc);
    let is_vsrc = |o: Operand| matches!(o, Sgpr(_) | Vgpr(_) | M0 | Imm(_) | Vcc);
    let literal = |o: Operand| matches!(o, Imm(v) if !is_inline_int(v));
    for o in ops {
        if let Imm(v) = o {
            if !fits_32(*v) {
                bad(format!("the immediate {v} does not fit in 32 bits"));
            }
        }
    }
    match inst.op.encoding() {
        Enc::Sop1 => {
            if count_ok(2, &mut bad) && (!is_sdst(at(0)) || !is_ssrc(at(1))) {
                bad("expects a scalar destination and a scalar source".into());
            }
        }
        Enc::Sop2 => {
            if count_ok(3, &mut bad) {
                if !is_sdst(at(0)) || !is_ssrc(at(1)) || !is_ssrc(at(2)) {
                    bad("expects a scalar destination and two scalar sources".into());
                }
                if literal(at(1)) && literal(at(2)) && at(1) != at(2) {
                    bad("only one 32-bit literal fits in a SOP2 instruction".into());
                }
            }
        }
        Enc::Sopc => {
            if count_ok(2, &mut bad) {
                if !is_ssrc(at(0)) || !is_ssrc(at(1)) {
                    bad("expects two scalar sources".into());
                }
                if literal(at(0)) && literal(at(1)) && at(0) != at(1) {
                    bad("only one 32-bit literal fits in a SOPC instruction".into());
                }
            }
        }
        Enc::Sopp => match inst.op {
            Op::SCbranchScc0 | Op::SCbranchScc1 | Op::SBranch => {
                if count_ok(1, &mut bad) && !matches!(at(0), Label(k) if k != usize::MAX) {
                    bad("expects a label".into());
                }
            }
            Op::SNop => {
                if count_ok(1, &mut bad) && !matches!(at(0), Imm(0..=15)) {
                    bad("expects an immediate 0–15".into());
                }
            }
            _ => {
                if !ops.is_empty() {
                    bad("takes no operands".into());
                }
            }
        },
        Enc::Smem => {
            if count_ok(3, &mut bad) {
                if !matches!(at(0), SgprPair(r) if r % 2 == 0) {
                    bad("the destination is an even-aligned SGPR pair".into());
                }
                if !matches!(at(1), SgprPair(r) if r % 2 == 0) {
                    bad("the base is an even-aligned SGPR pair".into());
                }
                if !matches!(at(2), Imm(0..=0xfffff)) {
                    bad("the offset is an immediate of 20 bits".into());
                }
            }
        }
        Enc::Readlane => {
            if count_ok(2, &mut bad) && (!is_sdst(at(0)) || !matches!(at(1), Vgpr(_))) {
                bad("expects a scalar destination and a VGPR".into());
            }
        }
        enc @ (Enc::Vop1 | Enc::Vop2 | Enc::Vop2Carry { .. } | Enc::Vop3) => {
            let (n, srcs): (usize, std::ops::Range<usize>) = match enc {
                Enc::Vop1 => (2, 1..2),
                Enc::Vop2 => (3, 1..3),
                Enc::Vop2Carry { carry_in: false } => (4, 2..4),
                Enc::Vop2Carry { carry_in: true } => (5, 2..4),
                _ => (4, 1..4),
            };
            if !count_ok(n, &mut bad) {
                return;
            }
            if !matches!(at(0), Vgpr(_)) {
                bad("the destination is a VGPR".into());
            }
            if let Enc::Vop2Carry { carry_in } = enc {
                if at(1) != Vcc || (carry_in && at(4) != Vcc) {
                    bad("in this (VOP2) form the carry is VCC".into());
                }
            }
            let srcs: Vec<Operand> = srcs.map(at).collect();
            if !srcs.iter().all(|o| is_vsrc(*o)) {
                bad("a source is not a register or an immediate".into());
            }
            let vop2 = matches!(enc, Enc::Vop2 | Enc::Vop2Carry { .. });
            if vop2 && !matches!(srcs.get(1), Some(Vgpr(_))) {
                bad("the second source of a VOP2 instruction must be a VGPR".into());
            }
            if enc == Enc::Vop3 && srcs.iter().any(|o| literal(*o)) {
                bad("VOP3 instructions take no 32-bit literal on gfx9".into());
            }
            // The constant bus carries one scalar value (SGPR, M0, VCC or literal) per
            // instruction on gfx9; the carry-in VCC is one too.
            let mut scalars: Vec<Operand> = Vec::with_capacity(4);
            let carry = (enc == (Enc::Vop2Carry { carry_in: true })).then_some(Vcc);
            for o in srcs.iter().copied().chain(carry) {
                if (matches!(o, Sgpr(_) | M0 | Vcc) || literal(o)) && !scalars.contains(&o) {
                    scalars.push(o);
                }
            }
            if scalars.len() > 1 {
                bad(format!(
                    "reads {} scalar values; the constant bus carries one on gfx9",
                    scalars.len()
                ));
            }
        }
        Enc::Mem => {
            let vpair = |o: Operand| matches!(o, VgprPair(r) if r % 2 == 0);
            let vgpr = |o: Operand| matches!(o, Vgpr(_));
            let ok = match inst.op {
                Op::GlobalLoadDword => {
                    ops.len() == 3 && vgpr(at(0)) && vpair(at(1)) && at(2) == Off
                }
                Op::GlobalStoreDword => {
                    ops.len() == 3 && vpair(at(0)) && vgpr(at(1)) && at(2) == Off
                }
                Op::GlobalLoadLdsDword => ops.len() == 2 && vpair(at(0)) && at(1) == Off,
                Op::DsReadB32 | Op::DsWriteB32 => ops.len() == 2 && vgpr(at(0)) && vgpr(at(1)),
                _ => true,
            };
            if !ok {
                bad("operands do not match the instruction (64-bit VGPR addresses are even-aligned pairs; the scalar base is `off` here)".into());
            }
            let offsets = match inst.op {
                Op::DsReadB32 | Op::DsWriteB32 => 0..=0xffff,
                _ => -4096..=4095,
            };
            if !offsets.contains(&inst.offset) {
                bad(format!("offset:{} is out of range", inst.offset));
            }
        }
    }
}

/// Parses `text`; `cpu` is the processor the kernel must name (`gfx942`, `gfx950`).
pub fn parse(text: &str, cpu: &str, lds_limit: u64) -> Parsed {
    let mut problems: Vec<Complaint> = Vec::new();
    let mut unsupported: Option<Complaint> = None;
    // The code of every line (comments and blanks gone), once.
    let lines: Vec<(u32, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, raw)| ((i + 1) as u32, strip_comment(raw).trim()))
        .filter(|(_, code)| !code.is_empty())
        .collect();
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
            let (name, value) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
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
    let (mnemonic, rest) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
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
    fn the_raw_waitcnt_immediate_decodes_per_gfx9() {
        let p = parse(&kernel("  s_waitcnt 0xc07f"), "gfx942", 65536);
        let w = p.kernel.insts[0].waitcnt;
        assert_eq!(w.vmcnt, Some(63));
        assert_eq!(w.lgkmcnt, Some(0));
    }
}
