//! Index analysis: how an index expression moves with the pipelined loop's variable, and the
//! interval it covers over everything else. Enough to decide whether two accesses may touch the same
//! element at an iteration distance `d` — exactly for the affine indices the loop language allows,
//! conservatively (`may conflict`) for anything else.

use crate::ir::{floor_div, floor_mod, CmpOp, Cond, IExpr, IOp, VarId};

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

/// A lower end from two operands' ends `a`, `b`: unbounded when either is, else `sum` (clamped).
fn below(a: i64, b: i64, sum: i64) -> i64 {
    if a <= Interval::ALL.lo || b <= Interval::ALL.lo {
        Interval::ALL.lo
    } else {
        sum.max(Interval::ALL.lo)
    }
}

/// An upper end, as `below`.
fn above(a: i64, b: i64, sum: i64) -> i64 {
    if a >= Interval::ALL.hi || b >= Interval::ALL.hi {
        Interval::ALL.hi
    } else {
        sum.min(Interval::ALL.hi)
    }
}

/// `-end`, an unbounded end becoming the other unbounded end.
fn negated(end: i64) -> i64 {
    if end >= Interval::ALL.hi {
        Interval::ALL.lo
    } else if end <= Interval::ALL.lo {
        Interval::ALL.hi
    } else {
        -end
    }
}

/// Interval of `e` where each variable ranges over `ranges(var)`.
pub fn interval(e: &IExpr, ranges: &dyn Fn(VarId) -> Interval) -> Interval {
    match e {
        IExpr::Const(v) => Interval::point(*v),
        IExpr::Var(v) => ranges(*v),
        // A condition decided over these ranges (at one iteration, `i % 2 == 0` is) picks its
        // branch.
        IExpr::Select(s) => match truth(&s.0, ranges) {
            Some(true) => interval(&s.1, ranges),
            Some(false) => interval(&s.2, ranges),
            None => {
                let (a, b) = (interval(&s.1, ranges), interval(&s.2, ranges));
                Interval {
                    lo: a.lo.min(b.lo),
                    hi: a.hi.max(b.hi),
                }
            }
        },
        IExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            let (x, y) = (interval(a, ranges), interval(b, ranges));
            match op {
                // An end that is unbounded stays so: "unbounded minus one" (an inner loop up to a
                // symbolic size) is no bound.
                IOp::Add => Interval {
                    lo: below(x.lo, y.lo, x.lo.saturating_add(y.lo)),
                    hi: above(x.hi, y.hi, x.hi.saturating_add(y.hi)),
                },
                IOp::Sub => Interval {
                    lo: below(x.lo, negated(y.hi), x.lo.saturating_sub(y.hi)),
                    hi: above(x.hi, negated(y.lo), x.hi.saturating_sub(y.lo)),
                },
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

/// Whether `c` holds for every value of the variables (`Some(true)`), for none (`Some(false)`), or
/// depends on them (`None`).
pub fn truth(c: &Cond, ranges: &dyn Fn(VarId) -> Interval) -> Option<bool> {
    match c {
        Cond::True => Some(true),
        Cond::Not(a) => truth(a, ranges).map(|t| !t),
        Cond::And(a, b) => match (truth(a, ranges), truth(b, ranges)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Cond::Or(a, b) => match (truth(a, ranges), truth(b, ranges)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Cond::Cmp(op, a, b) => {
            let (x, y) = (interval(a, ranges), interval(b, ranges));
            if !x.is_bounded() || !y.is_bounded() {
                return None;
            }
            let lt = |x: Interval, y: Interval| {
                if x.hi < y.lo {
                    Some(true)
                } else if x.lo >= y.hi {
                    Some(false)
                } else {
                    None
                }
            };
            let eq = if x.lo == x.hi && y.lo == y.hi && x.lo == y.lo {
                Some(true)
            } else if x.hi < y.lo || y.hi < x.lo {
                Some(false)
            } else {
                None
            };
            match op {
                CmpOp::Lt => lt(x, y),
                CmpOp::Ge => lt(x, y).map(|t| !t),
                CmpOp::Gt => lt(y, x),
                CmpOp::Le => lt(y, x).map(|t| !t),
                CmpOp::Eq => eq,
                CmpOp::Ne => eq.map(|t| !t),
            }
        }
    }
}

/// The value of `e` when it mentions no variable: `-4` is written `0 - 4` (and `k * -4` must be
/// as linear in `k` as `k * 4` is).
fn constant(e: &IExpr) -> Option<i64> {
    let v = interval(e, &|_| Interval::ALL);
    (v.is_bounded() && v.lo == v.hi).then_some(v.lo)
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
            match (ca, cb, constant(&ra), constant(&rb)) {
                (0, _, Some(k), _) => Some((cb.checked_mul(k)?, IExpr::bin(IOp::Mul, ra, rb))),
                (_, 0, _, Some(k)) => Some((ca.checked_mul(k)?, IExpr::bin(IOp::Mul, ra, rb))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// One dimension of an access, seen from the pipelined loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// `coef · i + r`, `r` in `rest`.
    Affine { coef: i64, rest: Interval },
    /// `(coef · i + r) mod modulus`, `r` in `rest`: a ring the user wrote (`S[(i + 3) % 4]`).
    /// `coef` is reduced modulo `modulus`, and is never 0 (that is `Affine`).
    Periodic {
        coef: i64,
        rest: Interval,
        modulus: i64,
    },
    /// Any other index: moves with the iteration in a way not modelled, within `values` (over
    /// every iteration; `Interval::ALL` when unknown).
    Unknown { values: Interval },
}

/// Periods at most this long are found (`period`).
pub const MAX_PERIOD: i64 = 128;

/// A period of `e` in `var` (`e` at `var + p` equals `e` at `var`, whatever the other variables),
/// at most `MAX_PERIOD`: 1 when `e` does not mention `var`; `m` for `(c·var + r) % m`, `k·m` for
/// `(c·var + r) // k % m`; any operation or condition of periodic operands is periodic with
/// their least common multiple. `None` for anything else (`var` itself, `min(var, 3)`).
pub fn period(e: &IExpr, var: VarId) -> Option<i64> {
    if !e.mentions(var) {
        return Some(1);
    }
    match e {
        IExpr::Bin(IOp::Mod, ab) => {
            let [a, modulus] = &**ab;
            let m = modulus.as_const().filter(|&m| m > 0)?;
            if split_linear(a, var).is_some() {
                return (m <= MAX_PERIOD).then_some(m);
            }
            if let IExpr::Bin(IOp::FloorDiv, xk) = a {
                let [x, k] = &**xk;
                if let (Some(_), Some(k)) = (split_linear(x, var), k.as_const()) {
                    let p = k.checked_mul(m).filter(|&p| p > 0 && p <= MAX_PERIOD)?;
                    return Some(p);
                }
            }
            lcm(period(a, var)?, period(modulus, var)?)
        }
        IExpr::Bin(_, ab) => {
            let [a, b] = &**ab;
            lcm(period(a, var)?, period(b, var)?)
        }
        IExpr::Select(s) => lcm(
            cond_period(&s.0, var)?,
            lcm(period(&s.1, var)?, period(&s.2, var)?)?,
        ),
        IExpr::Var(_) | IExpr::Const(_) => None,
    }
}

/// A period of a condition in `var`, as `period`.
pub fn cond_period(c: &Cond, var: VarId) -> Option<i64> {
    match c {
        Cond::True => Some(1),
        Cond::Not(a) => cond_period(a, var),
        Cond::And(a, b) | Cond::Or(a, b) => lcm(cond_period(a, var)?, cond_period(b, var)?),
        Cond::Cmp(_, a, b) => lcm(period(a, var)?, period(b, var)?),
    }
}

/// The least common multiple, when at most `MAX_PERIOD`.
pub fn lcm(a: i64, b: i64) -> Option<i64> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    let l = a.checked_div(x)?.checked_mul(b)?;
    (l > 0 && l <= MAX_PERIOD).then_some(l)
}
