//! The scalar and vector ALU instructions of one wave: SALU results and SCC, VALU lane by lane
//! under EXEC, float results checked for rounding against the loop's arithmetic.

use super::parse::{Cmp, Inst, Op, Operand};
use super::{Machine, Wave, WAVE};

impl Machine<'_> {
    /// A two-operand scalar operation, setting SCC where the ISA says it does.
    pub(super) fn scalar_alu(&mut self, w: &mut Wave, inst: &Inst) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        use Op::*;
        let a = self.scalar(w, at(1), line);
        let b = self.scalar(w, at(2), line);
        let (ai, bi) = (a as i32, b as i32);
        let (d, scc) = match inst.op {
            SAddU32 => {
                let r = u64::from(a) + u64::from(b);
                (r as u32, Some(r >> 32 != 0))
            }
            SSubU32 => (a.wrapping_sub(b), Some(b > a)),
            SAddI32 => {
                let (r, o) = ai.overflowing_add(bi);
                (r as u32, Some(o))
            }
            SSubI32 => {
                let (r, o) = ai.overflowing_sub(bi);
                (r as u32, Some(o))
            }
            SMulI32 => (ai.wrapping_mul(bi) as u32, None),
            SMulHiU32 => (((u64::from(a) * u64::from(b)) >> 32) as u32, None),
            SMinI32 => (ai.min(bi) as u32, Some(ai < bi)),
            SMaxI32 => (ai.max(bi) as u32, Some(ai > bi)),
            SLshlB32 => {
                let r = a << (b & 31);
                (r, Some(r != 0))
            }
            SLshrB32 => {
                let r = a >> (b & 31);
                (r, Some(r != 0))
            }
            SAndB32 => (a & b, Some(a & b != 0)),
            _ => (a | b, Some(a | b != 0)),
        };
        self.write_scalar(w, at(0), d, line);
        if scc.is_some() {
            w.scc = scc;
        }
    }

    /// `s_cmp_*`: SCC from a signed or unsigned comparison.
    pub(super) fn scalar_compare(&mut self, w: &mut Wave, inst: &Inst, cmp: Cmp, signed: bool) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        let a = self.scalar(w, at(0), line);
        let b = self.scalar(w, at(1), line);
        let ord = if signed {
            (a as i32).cmp(&(b as i32))
        } else {
            a.cmp(&b)
        };
        use std::cmp::Ordering::*;
        w.scc = Some(match cmp {
            Cmp::Eq => ord == Equal,
            Cmp::Lg => ord != Equal,
            Cmp::Gt => ord == Greater,
            Cmp::Ge => ord != Less,
            Cmp::Lt => ord == Less,
            Cmp::Le => ord != Greater,
        });
    }

    /// A one-operand vector operation, lane by lane.
    pub(super) fn vector_unary(&mut self, w: &mut Wave, inst: &Inst) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        use Op::*;
        let s = self.vsrc(w, at(1), inst.op.is_float(), line);
        let d = self.vgpr_of(at(0), line);
        self.check_vgpr_write(w, d, line);
        let x = Self::lanes(w, &s);
        let mut r = [0u32; WAVE];
        match inst.op {
            VMovB32 => r = x,
            VRcpF32 => {
                for (o, a) in r.iter_mut().zip(x) {
                    *o = self.float.rcp(f32::from_bits(a)).to_bits();
                }
            }
            _ => {
                for (o, a) in r.iter_mut().zip(x) {
                    let f = a as i32 as f32;
                    if f64::from(f) != f64::from(a as i32) {
                        self.float.inexact = true;
                    }
                    *o = f.to_bits();
                }
            }
        }
        Self::set_lanes(w, d, &r);
    }

    /// A two-operand vector operation, lane by lane; float results are checked for rounding.
    pub(super) fn vector_binary(&mut self, w: &mut Wave, inst: &Inst) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        use Op::*;
        let float = inst.op.is_float();
        let a = self.vsrc(w, at(1), float, line);
        let b = self.vsrc(w, at(2), float, line);
        let d = self.vgpr_of(at(0), line);
        self.check_vgpr_write(w, d, line);
        let (x, y) = (Self::lanes(w, &a), Self::lanes(w, &b));
        let mut r = [0u32; WAVE];
        // One loop per operation: the operation is chosen once per instruction.
        let each = |r: &mut [u32; WAVE], f: &dyn Fn(u32, u32) -> u32| {
            for ((o, a), b) in r.iter_mut().zip(x).zip(y) {
                *o = f(a, b);
            }
        };
        let float_op = |r: &mut [u32; WAVE], f: fn(f32, f32) -> f32, wide: fn(f64, f64) -> f64| {
            let mut inexact = false;
            for ((o, a), b) in r.iter_mut().zip(x).zip(y) {
                let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
                let v = f(fa, fb);
                let exact = wide(f64::from(fa), f64::from(fb));
                inexact |= exact.is_finite() && f64::from(v) != exact;
                *o = v.to_bits();
            }
            inexact
        };
        let mut inexact = false;
        match inst.op {
            VLshlrevB32 => each(&mut r, &|a, b| b << (a & 31)),
            VLshrrevB32 => each(&mut r, &|a, b| b >> (a & 31)),
            VAddU32 => each(&mut r, &|a, b| a.wrapping_add(b)),
            VSubU32 => each(&mut r, &|a, b| a.wrapping_sub(b)),
            VAndB32 => each(&mut r, &|a, b| a & b),
            VOrB32 => each(&mut r, &|a, b| a | b),
            VXorB32 => each(&mut r, &|a, b| a ^ b),
            VAddF32 => inexact = float_op(&mut r, |a, b| a + b, |a, b| a + b),
            VSubF32 => inexact = float_op(&mut r, |a, b| a - b, |a, b| a - b),
            VMulF32 => inexact = float_op(&mut r, |a, b| a * b, |a, b| a * b),
            VMaxF32 => each(&mut r, &|a, b| {
                f32::from_bits(a).max(f32::from_bits(b)).to_bits()
            }),
            _ => each(&mut r, &|a, b| {
                f32::from_bits(a).min(f32::from_bits(b)).to_bits()
            }),
        }
        self.float.inexact |= inexact;
        Self::set_lanes(w, d, &r);
    }

    /// `v_add_co_u32` / `v_addc_co_u32`: the carry out of each lane into VCC.
    pub(super) fn vector_add_carry(&mut self, w: &mut Wave, inst: &Inst) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        use Op::*;
        let a = self.vsrc(w, at(2), false, line);
        let b = self.vsrc(w, at(3), false, line);
        let carry_in = if inst.op == VAddcCoU32 {
            match w.vcc {
                Some(v) => v,
                None => {
                    self.problem(line, "reads VCC, which nothing wrote");
                    0
                }
            }
        } else {
            0
        };
        let d = self.vgpr_of(at(0), line);
        self.check_vgpr_write(w, d, line);
        let (x, y) = (Self::lanes(w, &a), Self::lanes(w, &b));
        let mut r = [0u32; WAVE];
        let mut vcc = 0u64;
        for (l, ((o, a), b)) in r.iter_mut().zip(x).zip(y).enumerate() {
            let sum = u64::from(a) + u64::from(b) + ((carry_in >> l) & 1);
            *o = sum as u32;
            vcc |= (sum >> 32) << l;
        }
        Self::set_lanes(w, d, &r);
        w.vcc = Some(vcc & w.exec);
    }

    /// `v_fma_f32`, lane by lane.
    pub(super) fn vector_fma(&mut self, w: &mut Wave, inst: &Inst) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        let a = self.vsrc(w, at(1), true, line);
        let b = self.vsrc(w, at(2), true, line);
        let c = self.vsrc(w, at(3), true, line);
        let d = self.vgpr_of(at(0), line);
        self.check_vgpr_write(w, d, line);
        let (x, y, z) = (Self::lanes(w, &a), Self::lanes(w, &b), Self::lanes(w, &c));
        let mut r = [0u32; WAVE];
        for (((o, a), b), c) in r.iter_mut().zip(x).zip(y).zip(z) {
            let f = f32::from_bits;
            *o = self.float.fma(f(a), f(b), f(c)).to_bits();
        }
        Self::set_lanes(w, d, &r);
    }
}
