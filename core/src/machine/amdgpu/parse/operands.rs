//! Operands read (integers, registers, `s_waitcnt` fields) and checked per encoding, as an
//! assembler would.

use super::isa::{Enc, Op, Operand};
use super::{Complaint, Inst, Waitcnt, EXPCNT_MAX, LGKMCNT_MAX, VMCNT_MAX};

/// An integer as written (the caller trims).
pub(super) fn parse_int(s: &str) -> Option<i64> {
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
pub(super) fn parse_register(s: &str) -> Option<Operand> {
    match s {
        "m0" => return Some(Operand::M0),
        "vcc" => return Some(Operand::Vcc),
        "exec" => return Some(Operand::Exec),
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
pub(super) fn parse_waitcnt(text: &str, line: u32, problems: &mut Vec<Complaint>) -> Waitcnt {
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

pub(super) fn is_inline_int(v: i64) -> bool {
    (-16..=64).contains(&v)
}

pub(super) fn fits_32(v: i64) -> bool {
    (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v)
}

/// Checks operand kinds per encoding; pushes what an assembler would reject.
pub(super) fn check_operands(inst: &Inst, mnemonic: &str, problems: &mut Vec<Complaint>) {
    let mut check = OperandCheck {
        inst,
        mnemonic,
        problems,
    };
    for o in &inst.operands {
        if let Operand::Imm(v) = o {
            if !fits_32(*v) {
                check.bad(format!("the immediate {v} does not fit in 32 bits"));
            }
        }
    }
    match inst.op.encoding() {
        Enc::Sop1 => check.sop1(),
        Enc::Sop64 => check.sop64(),
        Enc::Sop2 => check.sop2_or_sopc("SOP2"),
        Enc::Sopc => check.sop2_or_sopc("SOPC"),
        Enc::Sopp => check.sopp(),
        Enc::Smem => check.smem(),
        Enc::Readlane => check.readlane(),
        enc @ (Enc::Vop1 | Enc::Vop2 | Enc::Vop2Carry { .. } | Enc::Vop3) => check.vector(enc),
        Enc::Mem => check.memory(),
    }
}

/// One instruction's operands under check, and where what is wrong with them goes.
struct OperandCheck<'a> {
    inst: &'a Inst,
    mnemonic: &'a str,
    problems: &'a mut Vec<Complaint>,
}

fn is_sdst(o: Operand) -> bool {
    matches!(o, Operand::Sgpr(_) | Operand::M0)
}

fn is_ssrc(o: Operand) -> bool {
    matches!(
        o,
        Operand::Sgpr(_) | Operand::M0 | Operand::Imm(_) | Operand::Vcc
    )
}

fn is_vsrc(o: Operand) -> bool {
    matches!(
        o,
        Operand::Sgpr(_) | Operand::Vgpr(_) | Operand::M0 | Operand::Imm(_) | Operand::Vcc
    )
}

/// An immediate that takes a 32-bit literal (not an inline constant).
fn literal(o: Operand) -> bool {
    matches!(o, Operand::Imm(v) if !is_inline_int(v))
}

impl OperandCheck<'_> {
    fn bad(&mut self, what: impl std::fmt::Display) {
        self.problems
            .push((self.inst.line, format!("{}: {what}", self.mnemonic)));
    }

    /// Operand `i`; a missing operand reads as a label, which no position accepts but branches.
    fn at(&self, i: usize) -> Operand {
        self.inst
            .operands
            .get(i)
            .copied()
            .unwrap_or(Operand::Label(usize::MAX))
    }

    /// Whether there are `n` operands (reported when not).
    fn count_ok(&mut self, n: usize) -> bool {
        let count = self.inst.operands.len();
        if count != n {
            self.bad(format!("takes {n} operands, not {count}"));
        }
        count == n
    }

    fn sop1(&mut self) {
        if self.count_ok(2) && (!is_sdst(self.at(0)) || !is_ssrc(self.at(1))) {
            self.bad("expects a scalar destination and a scalar source");
        }
    }

    /// `s_mov_b64 exec, imm` and `s_cselect_b64 exec, imm, imm`: the subset writes EXEC whole,
    /// from inline constants (-1: every lane, 0: none).
    fn sop64(&mut self) {
        let n = if self.inst.op == Op::SMovB64 { 2 } else { 3 };
        if !self.count_ok(n) {
            return;
        }
        let inline = |o: Operand| matches!(o, Operand::Imm(v) if is_inline_int(v));
        if self.at(0) != Operand::Exec || !(1..n).all(|i| inline(self.at(i))) {
            self.bad("the subset writes EXEC from inline integer constants only");
        }
    }

    /// SOP2 (a destination and two sources) or SOPC (two sources): one literal at most.
    fn sop2_or_sopc(&mut self, encoding: &str) {
        let (n, first) = if encoding == "SOP2" { (3, 1) } else { (2, 0) };
        if !self.count_ok(n) {
            return;
        }
        let (a, b) = (self.at(first), self.at(first + 1));
        if encoding == "SOP2" {
            if !is_sdst(self.at(0)) || !is_ssrc(a) || !is_ssrc(b) {
                self.bad("expects a scalar destination and two scalar sources");
            }
        } else if !is_ssrc(a) || !is_ssrc(b) {
            self.bad("expects two scalar sources");
        }
        if literal(a) && literal(b) && a != b {
            self.bad(format!(
                "only one 32-bit literal fits in a {encoding} instruction"
            ));
        }
    }

    fn sopp(&mut self) {
        match self.inst.op {
            Op::SCbranchScc0 | Op::SCbranchScc1 | Op::SBranch => {
                if self.count_ok(1) && !matches!(self.at(0), Operand::Label(k) if k != usize::MAX) {
                    self.bad("expects a label");
                }
            }
            Op::SNop => {
                if self.count_ok(1) && !matches!(self.at(0), Operand::Imm(0..=15)) {
                    self.bad("expects an immediate 0–15");
                }
            }
            _ => {
                if !self.inst.operands.is_empty() {
                    self.bad("takes no operands");
                }
            }
        }
    }

    fn smem(&mut self) {
        if !self.count_ok(3) {
            return;
        }
        if !matches!(self.at(0), Operand::SgprPair(r) if r % 2 == 0) {
            self.bad("the destination is an even-aligned SGPR pair");
        }
        if !matches!(self.at(1), Operand::SgprPair(r) if r % 2 == 0) {
            self.bad("the base is an even-aligned SGPR pair");
        }
        if !matches!(self.at(2), Operand::Imm(0..=0xfffff)) {
            self.bad("the offset is an immediate of 20 bits");
        }
    }

    fn readlane(&mut self) {
        if self.count_ok(2) && (!is_sdst(self.at(0)) || !matches!(self.at(1), Operand::Vgpr(_))) {
            self.bad("expects a scalar destination and a VGPR");
        }
    }

    /// VOP1, VOP2 (with or without carry) and VOP3: operand kinds, the literal rule and the
    /// constant bus.
    fn vector(&mut self, enc: Enc) {
        let (n, srcs): (usize, std::ops::Range<usize>) = match enc {
            Enc::Vop1 => (2, 1..2),
            Enc::Vop2 => (3, 1..3),
            Enc::Vop2Carry { carry_in: false } => (4, 2..4),
            Enc::Vop2Carry { carry_in: true } => (5, 2..4),
            _ => (4, 1..4),
        };
        if !self.count_ok(n) {
            return;
        }
        if !matches!(self.at(0), Operand::Vgpr(_)) {
            self.bad("the destination is a VGPR");
        }
        if let Enc::Vop2Carry { carry_in } = enc {
            if self.at(1) != Operand::Vcc || (carry_in && self.at(4) != Operand::Vcc) {
                self.bad("in this (VOP2) form the carry is VCC");
            }
        }
        let srcs: Vec<Operand> = srcs.map(|i| self.at(i)).collect();
        if !srcs.iter().all(|o| is_vsrc(*o)) {
            self.bad("a source is not a register or an immediate");
        }
        let vop2 = matches!(enc, Enc::Vop2 | Enc::Vop2Carry { .. });
        if vop2 && !matches!(srcs.get(1), Some(Operand::Vgpr(_))) {
            self.bad("the second source of a VOP2 instruction must be a VGPR");
        }
        if enc == Enc::Vop3 && srcs.iter().any(|o| literal(*o)) {
            self.bad("VOP3 instructions take no 32-bit literal on gfx9");
        }
        // The constant bus carries one scalar value (SGPR, M0, VCC or literal) per
        // instruction on gfx9; the carry-in VCC is one too.
        let mut scalars: Vec<Operand> = Vec::with_capacity(4);
        let carry = (enc == (Enc::Vop2Carry { carry_in: true })).then_some(Operand::Vcc);
        for o in srcs.iter().copied().chain(carry) {
            let scalar = matches!(o, Operand::Sgpr(_) | Operand::M0 | Operand::Vcc) || literal(o);
            if scalar && !scalars.contains(&o) {
                scalars.push(o);
            }
        }
        if scalars.len() > 1 {
            self.bad(format!(
                "reads {} scalar values; the constant bus carries one on gfx9",
                scalars.len()
            ));
        }
    }

    /// Global and LDS memory instructions: address operands and offset ranges.
    fn memory(&mut self) {
        let vpair = |o: Operand| matches!(o, Operand::VgprPair(r) if r % 2 == 0);
        let vgpr = |o: Operand| matches!(o, Operand::Vgpr(_));
        let (at, count) = (|i| self.at(i), self.inst.operands.len());
        let ok = match self.inst.op {
            Op::GlobalLoadDword => {
                count == 3 && vgpr(at(0)) && vpair(at(1)) && at(2) == Operand::Off
            }
            Op::GlobalStoreDword => {
                count == 3 && vpair(at(0)) && vgpr(at(1)) && at(2) == Operand::Off
            }
            Op::GlobalLoadLdsDword | Op::GlobalLoadLdsDwordx4 => {
                count == 2 && vpair(at(0)) && at(1) == Operand::Off
            }
            Op::DsReadB32 | Op::DsWriteB32 => count == 2 && vgpr(at(0)) && vgpr(at(1)),
            _ => true,
        };
        if !ok {
            self.bad("operands do not match the instruction (64-bit VGPR addresses are even-aligned pairs; the scalar base is `off` here)");
        }
        let offsets = match self.inst.op {
            Op::DsReadB32 | Op::DsWriteB32 => 0..=0xffff,
            _ => -4096..=4095,
        };
        if !offsets.contains(&self.inst.offset) {
            self.bad(format!("offset:{} is out of range", self.inst.offset));
        }
    }
}
