//! Index analysis: how an index expression moves with the pipelined loop's variable, and the
//! interval it covers over everything else. Enough to decide whether two accesses may touch the same
//! element at an iteration distance `d` — exactly for the affine indices the loop language allows,
//! conservatively (`may conflict`) for anything else.

use crate::ir::{floor_div, floor_mod, IExpr, IOp, VarId};

/// Inclusive integer interval; saturating at the i64 range for unknown values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: i64,
    pub hi: i64,
}

impl Interval {
    pub const ALL: Interval = Interval {
        lo: i64::MIN / 4,
        hi: i64::MAX / 4,
    };

    pub fn point(v: i64) -> Interval {
        Interval { lo: v, hi: v }
    }

    pub fn is_bounded(self) -> bool {
        self.lo > Interval::ALL.lo && self.hi < Interval::ALL.hi
    }

    fn clamp(lo: i64, hi: i64) -> Interval {
        Interval {
            lo: lo.max(Interval::ALL.lo),
            hi: hi.min(Interval::ALL.hi),
        }
    }
}

/// Interval of `e` where each variable ranges over `ranges(var)`.
pub fn interval(e: &IExpr, ranges: &dyn Fn(VarId) -> Interval) -> Interval {
    match e {
        IExpr::Const(v) => Interval::point(*v),
        IExpr::Var(v) => ranges(*v),
        IExpr::Select(s) => {
            let (a, b) = (interval(&s.1, ranges), interval(&s.2, ranges));
            Interval {
                lo: a.lo.min(b.lo),
                hi: a.hi.max(b.hi),
            }
        }
        IExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            let (x, y) = (interval(a, ranges), interval(b, ranges));
            match op {
                IOp::Add => Interval::clamp(x.lo.saturating_add(y.lo), x.hi.saturating_add(y.hi)),
                IOp::Sub => Interval::clamp(x.lo.saturating_sub(y.hi), x.hi.saturating_sub(y.lo)),
                IOp::Mul => {
                    let c = [
                        x.lo.saturating_mul(y.lo),
                        x.lo.saturating_mul(y.hi),
                        x.hi.saturating_mul(y.lo),
                        x.hi.saturating_mul(y.hi),
                    ];
                    Interval::clamp(
                        c.iter().copied().min().unwrap_or(0),
                        c.iter().copied().max().unwrap_or(0),
                    )
                }
                IOp::Min => Interval {
                    lo: x.lo.min(y.lo),
                    hi: x.hi.min(y.hi),
                },
                IOp::Max => Interval {
                    lo: x.lo.max(y.lo),
                    hi: x.hi.max(y.hi),
                },
                IOp::Mod => {
                    if y.lo == y.hi && y.lo > 0 {
                        if x.is_bounded() && x.hi - x.lo < y.lo {
                            let (a, b) = (
                                floor_mod(x.lo, y.lo).unwrap_or(0),
                                floor_mod(x.hi, y.lo).unwrap_or(0),
                            );
                            if a <= b {
                                return Interval { lo: a, hi: b };
                            }
                        }
                        Interval {
                            lo: 0,
                            hi: y.lo - 1,
                        }
                    } else {
                        Interval::ALL
                    }
                }
                IOp::FloorDiv => {
                    if y.lo == y.hi && y.lo > 0 && x.is_bounded() {
                        Interval {
                            lo: floor_div(x.lo, y.lo).unwrap_or(Interval::ALL.lo),
                            hi: floor_div(x.hi, y.lo).unwrap_or(Interval::ALL.hi),
                        }
                    } else {
                        Interval::ALL
                    }
                }
            }
        }
    }
}

/// `e = coef * var + rest` with `rest` free of `var`, when `e` is linear in `var`.
pub fn split_linear(e: &IExpr, var: VarId) -> Option<(i64, IExpr)> {
    if !e.mentions(var) {
        return Some((0, e.clone()));
    }
    match e {
        IExpr::Var(v) if *v == var => Some((1, IExpr::Const(0))),
        IExpr::Bin(IOp::Add, ab) => {
            let [a, b] = &**ab;
            let (ca, ra) = split_linear(a, var)?;
            let (cb, rb) = split_linear(b, var)?;
            Some((ca.checked_add(cb)?, IExpr::bin(IOp::Add, ra, rb)))
        }
        IExpr::Bin(IOp::Sub, ab) => {
            let [a, b] = &**ab;
            let (ca, ra) = split_linear(a, var)?;
            let (cb, rb) = split_linear(b, var)?;
            Some((ca.checked_sub(cb)?, IExpr::bin(IOp::Sub, ra, rb)))
        }
        IExpr::Bin(IOp::Mul, ab) => {
            let [a, b] = &**ab;
            let (ca, ra) = split_linear(a, var)?;
            let (cb, rb) = split_linear(b, var)?;
            match (ca, cb, ra.as_const(), rb.as_const()) {
                (0, _, Some(k), _) => Some((cb.checked_mul(k)?, IExpr::bin(IOp::Mul, ra, rb))),
                (_, 0, _, Some(k)) => Some((ca.checked_mul(k)?, IExpr::bin(IOp::Mul, ra, rb))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// One dimension of an access, seen from the pipelined loop: `coef * iteration + [lo, hi]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    Affine { coef: i64, rest: Interval },
    Unknown,
}

/// May `a` at iteration `j` and `b` at iteration `j + d` touch the same element?
pub fn may_conflict(a: &[Dim], b: &[Dim], d: i64) -> bool {
    if a.len() != b.len() {
        return true;
    }
    a.iter().zip(b).all(|(x, y)| match (x, y) {
        (Dim::Affine { coef: c1, rest: r1 }, Dim::Affine { coef: c2, rest: r2 }) if c1 == c2 => {
            let shift = c1.saturating_mul(d);
            let (lo2, hi2) = (r2.lo.saturating_add(shift), r2.hi.saturating_add(shift));
            r1.lo <= hi2 && lo2 <= r1.hi
        }
        _ => true,
    })
}
