//! Where an index repeats with the iteration from some iteration on: `min(i + 1, 7)` is 7 from
//! i = 6 on, `max(2 − i, 0)` is 0 from i = 2 on, `(i // 2) % 4` repeats every 8 iterations, and
//! `i + 1` moves by one every iteration. A form says, for all iterations i ≥ `from`,
//! e(i + `period`) = e(i) + `delta` — whatever the other variables (an inner loop's) are.
//! `periodic.rs` enumerates a need's iterations up to where its units repeat.

use crate::affine::lcm;
use crate::ir::{CmpOp, Cond, IExpr, IOp, VarId};

/// Iterations searched for the one from which a clamp (`min`, `max`) or a comparison of two
/// indices that move apart settles.
const MAX_SETTLE: i64 = 256;

/// e(i + period) = e(i) + delta for every i ≥ from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Form {
    pub(super) from: i64,
    pub(super) period: i64,
    pub(super) delta: i64,
}

impl Form {
    const CONSTANT: Form = Form {
        from: 0,
        period: 1,
        delta: 0,
    };

    /// The same form over a period of `period` (a multiple of its own).
    fn over(self, period: i64) -> Option<Form> {
        let times = period.checked_div(self.period)?;
        Some(Form {
            period,
            delta: self.delta.checked_mul(times)?,
            ..self
        })
    }
}

/// The two forms over their common period, from where both hold.
fn common(a: Form, b: Form) -> Option<(Form, Form)> {
    let period = lcm(a.period, b.period)?;
    let from = a.from.max(b.from);
    Some((
        Form {
            from,
            ..a.over(period)?
        },
        Form {
            from,
            ..b.over(period)?
        },
    ))
}

/// The form of `e` in `var`; `env` holds the other variables' values where `e` must be
/// evaluated (a clamp settling), which only an `e` mentioning no other variable allows.
pub(super) fn form(e: &IExpr, var: VarId, env: &mut Vec<i64>) -> Option<Form> {
    if !e.mentions(var) {
        return Some(Form::CONSTANT);
    }
    match e {
        IExpr::Const(_) => Some(Form::CONSTANT),
        IExpr::Var(_) => Some(Form {
            from: 0,
            period: 1,
            delta: 1,
        }),
        IExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            match op {
                IOp::Add | IOp::Sub => {
                    let (x, y) = common(form(a, var, env)?, form(b, var, env)?)?;
                    let delta = if *op == IOp::Add {
                        x.delta.checked_add(y.delta)?
                    } else {
                        x.delta.checked_sub(y.delta)?
                    };
                    Some(Form { delta, ..x })
                }
                IOp::Mul => {
                    let (x, c) = match (a.as_const(), b.as_const()) {
                        (Some(c), _) => (form(b, var, env)?, c),
                        (_, Some(c)) => (form(a, var, env)?, c),
                        _ => return None,
                    };
                    Some(Form {
                        delta: x.delta.checked_mul(c)?,
                        ..x
                    })
                }
                IOp::FloorDiv | IOp::Mod => {
                    let c = b.as_const().filter(|&c| c > 0)?;
                    let x = form(a, var, env)?;
                    // Over `k` periods the operand moves by a multiple of c: its quotient by
                    // that multiple over c, its remainder not at all.
                    let k = c / gcd(x.delta, c);
                    let x = x.over(x.period.checked_mul(k)?)?;
                    Some(Form {
                        delta: if *op == IOp::Mod { 0 } else { x.delta / c },
                        ..x
                    })
                }
                IOp::Min | IOp::Max => {
                    let (x, y) = common(form(a, var, env)?, form(b, var, env)?)?;
                    if x.delta == y.delta {
                        return Some(x);
                    }
                    if !only(a, var) || !only(b, var) {
                        return None;
                    }
                    // The one that moves the right way wins from where a whole period of it
                    // does: the two only move further apart after.
                    let smaller_wins = *op == IOp::Min;
                    let (wins, w, l) = if (x.delta < y.delta) == smaller_wins {
                        (x, a, b)
                    } else {
                        (y, b, a)
                    };
                    let from = settle(x.from, x.period, env, var, |env| {
                        let (w, l) = (w.eval(env)?, l.eval(env)?);
                        Some(if smaller_wins { w <= l } else { w >= l })
                    })?;
                    Some(Form { from, ..wins })
                }
            }
        }
        IExpr::Select(s) => {
            let (c, a, b) = &**s;
            let truth = cond_form(c, var, env)?;
            let (x, y) = common(form(a, var, env)?, form(b, var, env)?)?;
            match truth {
                Truth::Repeats { from, period } if x.delta == y.delta => {
                    let period = lcm(period, x.period)?;
                    Some(Form {
                        from: from.max(x.from),
                        ..x.over(period)?
                    })
                }
                Truth::Repeats { .. } => None,
                Truth::Settles { from, value } => {
                    let chosen = if value { x } else { y };
                    Some(Form {
                        from: from.max(chosen.from),
                        ..chosen
                    })
                }
            }
        }
    }
}

/// A condition from some iteration on: repeating every `period`, or always `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Truth {
    Repeats { from: i64, period: i64 },
    Settles { from: i64, value: bool },
}

impl Truth {
    /// From where, and with which period, the condition repeats.
    pub(super) fn repeats(self) -> (i64, i64) {
        match self {
            Truth::Repeats { from, period } => (from, period),
            Truth::Settles { from, .. } => (from, 1),
        }
    }
}

pub(super) fn cond_form(c: &Cond, var: VarId, env: &mut Vec<i64>) -> Option<Truth> {
    match c {
        Cond::True => Some(Truth::Settles {
            from: 0,
            value: true,
        }),
        Cond::Not(a) => Some(match cond_form(a, var, env)? {
            Truth::Settles { from, value } => Truth::Settles {
                from,
                value: !value,
            },
            r => r,
        }),
        Cond::And(a, b) | Cond::Or(a, b) => {
            let (x, y) = (cond_form(a, var, env)?, cond_form(b, var, env)?);
            let ((fx, px), (fy, py)) = (x.repeats(), y.repeats());
            Some(Truth::Repeats {
                from: fx.max(fy),
                period: lcm(px, py)?,
            })
        }
        Cond::Cmp(op, a, b) => {
            let (x, y) = common(form(a, var, env)?, form(b, var, env)?)?;
            if x.delta == y.delta {
                return Some(Truth::Repeats {
                    from: x.from,
                    period: x.period,
                });
            }
            if !only(a, var) || !only(b, var) {
                return None;
            }
            // a − b moves one way by a period: the comparison settles to its limit from where
            // it holds that limit over a whole period.
            let grows = x.delta > y.delta;
            let value = match op {
                CmpOp::Lt | CmpOp::Le | CmpOp::Eq => !grows && *op != CmpOp::Eq,
                CmpOp::Gt | CmpOp::Ge | CmpOp::Ne => grows || *op == CmpOp::Ne,
            };
            let from = settle(x.from, x.period, env, var, |env| {
                let (l, r) = (a.eval(env)?, b.eval(env)?);
                // Past the crossing with a margin: equality is settled once a − b has left 0
                // on the side it moves to.
                let past = if grows { l > r } else { l < r };
                Some(past)
            })?;
            Some(Truth::Settles { from, value })
        }
    }
}

/// The first iteration at or after `from` (at least 0) from which `holds` is true over a whole
/// `period`, within `MAX_SETTLE` iterations.
fn settle(
    from: i64,
    period: i64,
    env: &mut [i64],
    var: VarId,
    holds: impl Fn(&[i64]) -> Option<bool>,
) -> Option<i64> {
    let start = from.max(0);
    let mut run = 0;
    for i in start..start + MAX_SETTLE + period {
        *env.get_mut(var as usize)? = i;
        if holds(env)? {
            run += 1;
            if run >= period {
                return Some(i + 1 - period);
            }
        } else {
            run = 0;
        }
    }
    None
}

/// Whether `e` mentions no variable but `var` (it can be evaluated at an iteration).
fn only(e: &IExpr, var: VarId) -> bool {
    match e {
        IExpr::Const(_) => true,
        IExpr::Var(v) => *v == var,
        IExpr::Bin(_, ab) => ab.iter().all(|x| only(x, var)),
        IExpr::Select(s) => only_cond(&s.0, var) && only(&s.1, var) && only(&s.2, var),
    }
}

fn only_cond(c: &Cond, var: VarId) -> bool {
    match c {
        Cond::True => true,
        Cond::Cmp(_, a, b) => only(a, var) && only(b, var),
        Cond::And(a, b) | Cond::Or(a, b) => only_cond(a, var) && only_cond(b, var),
        Cond::Not(a) => only_cond(a, var),
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}
