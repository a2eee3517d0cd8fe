//! The integer, predicate and float32 instructions of the block's threads, lane by lane under
//! their guard; division by zero is a problem, float results are checked for rounding.

use super::parse::{self, FOp, Inst, IntOp};
use super::{b32, f32_of, i32_of, Group, Machine, Mask};
use crate::machine::Float;

impl Machine<'_> {
    /// A 32-bit integer operation; division by zero (or its overflow) is a problem, as PTX leaves
    /// it undefined.
    pub(super) fn int32(&mut self, w: &mut Group, inst: &Inst, mask: &Mask, op: IntOp) {
        let line = inst.line;
        let mut bad = None;
        self.apply(w, inst, mask, 2, |a, b, _| {
            let (x, y) = (i32_of(a), i32_of(b));
            b32(match op {
                IntOp::Add => x.wrapping_add(y),
                IntOp::Sub => x.wrapping_sub(y),
                IntOp::MulLo => x.wrapping_mul(y),
                IntOp::Min => x.min(y),
                IntOp::Max => x.max(y),
                IntOp::Rem | IntOp::Div => {
                    if y == 0 || (x == i32::MIN && y == -1) {
                        bad = Some((x, y));
                        0
                    } else if op == IntOp::Rem {
                        x % y
                    } else {
                        x / y
                    }
                }
                // Shift amounts above 32 are clamped to 32 (§9.7.7.7).
                IntOp::Shl => {
                    if (b as u32) >= 32 {
                        0
                    } else {
                        ((x as u32) << (b as u32)) as i32
                    }
                }
                IntOp::Shr { signed } => {
                    let s = (b as u32).min(32);
                    if signed {
                        x >> s.min(31)
                    } else if s >= 32 {
                        0
                    } else {
                        ((x as u32) >> s) as i32
                    }
                }
                IntOp::And => x & y,
                IntOp::Or => x | y,
                IntOp::Xor => x ^ y,
            })
        });
        if let Some((x, y)) = bad {
            self.problem(line, format!("{x} divided by {y} is undefined"));
        }
    }

    /// A 64-bit integer operation (address arithmetic): the few the emitters write.
    pub(super) fn int64(&mut self, w: &mut Group, inst: &Inst, mask: &Mask, op: IntOp) {
        let line = inst.line;
        let mut unsupported = false;
        self.apply(w, inst, mask, 2, |a, b, _| match op {
            IntOp::Add => a.wrapping_add(b),
            IntOp::Sub => a.wrapping_sub(b),
            IntOp::MulLo => a.wrapping_mul(b),
            IntOp::And => a & b,
            IntOp::Or => a | b,
            IntOp::Xor => a ^ b,
            _ => {
                unsupported = true;
                0
            }
        });
        if unsupported {
            self.unsupported(
                line,
                "64-bit integer operations other than add, sub, mul.lo, and, or, xor",
            );
        }
    }

    /// `cvt.rn.f32.s32`; an integer that float32 cannot hold exactly is noted as inexact.
    pub(super) fn cvt_f32_s32(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) {
        let mut inexact = false;
        self.apply(w, inst, mask, 1, |a, _, _| {
            let i = i32_of(a);
            let f = i as f32;
            if f64::from(f) != f64::from(i) {
                inexact = true;
            }
            u64::from(f.to_bits())
        });
        self.float.inexact |= inexact;
    }

    /// A float32 operation, rounded as the loop rounds it.
    pub(super) fn float_binary(&mut self, w: &mut Group, inst: &Inst, mask: &Mask, op: FOp) {
        let mut fl = Float { inexact: false };
        self.apply(w, inst, mask, 2, |a, b, _| {
            let (x, y) = (f32_of(a), f32_of(b));
            u64::from(
                match op {
                    FOp::Add => fl.add(x, y),
                    FOp::Sub => fl.sub(x, y),
                    FOp::Mul => fl.mul(x, y),
                    FOp::Div => fl.div(x, y),
                    FOp::Max => x.max(y),
                    FOp::Min => x.min(y),
                }
                .to_bits(),
            )
        });
        self.float.inexact |= fl.inexact;
    }

    /// `fma.rn.f32`, rounded once.
    pub(super) fn fma(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) {
        let mut fl = Float { inexact: false };
        self.apply(w, inst, mask, 3, |a, b, c| {
            u64::from(fl.fma(f32_of(a), f32_of(b), f32_of(c)).to_bits())
        });
        self.float.inexact |= fl.inexact;
    }

    /// `setp`: a predicate from a signed or unsigned 32-bit comparison.
    pub(super) fn setp(
        &mut self,
        w: &mut Group,
        inst: &Inst,
        mask: &Mask,
        cmp: parse::Cmp,
        signed: bool,
    ) {
        self.apply(w, inst, mask, 2, |a, b, _| {
            let (x, y) = if signed {
                (i64::from(i32_of(a)), i64::from(i32_of(b)))
            } else {
                (i64::from(a as u32), i64::from(b as u32))
            };
            u64::from(match cmp {
                parse::Cmp::Eq => x == y,
                parse::Cmp::Ne => x != y,
                parse::Cmp::Lt => x < y,
                parse::Cmp::Le => x <= y,
                parse::Cmp::Gt => x > y,
                parse::Cmp::Ge => x >= y,
            })
        });
    }
}
