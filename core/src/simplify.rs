//! Index-expression simplification for printing and folding: constants fold, sums of the same
//! variable collect, `x % 1` and `x * 1` disappear. Only transformations valid for all integers.

use crate::ir::{floor_div, floor_mod, Cond, IExpr, IOp, VarId};
use std::collections::BTreeMap;

/// Linear form: constant + Σ coef·var.
fn linear(e: &IExpr) -> Option<(i64, BTreeMap<VarId, i64>)> {
    match e {
        IExpr::Const(c) => Some((*c, BTreeMap::new())),
        IExpr::Var(v) => Some((0, BTreeMap::from([(*v, 1)]))),
        IExpr::Bin(op @ (IOp::Add | IOp::Sub), a, b) => {
            let (ca, mut ta) = linear(a)?;
            let (cb, tb) = linear(b)?;
            let sign = if *op == IOp::Add { 1 } else { -1 };
            for (v, k) in tb {
                *ta.entry(v).or_insert(0) += sign * k;
            }
            ta.retain(|_, k| *k != 0);
            Some((ca.checked_add(sign.checked_mul(cb)?)?, ta))
        }
        IExpr::Bin(IOp::Mul, a, b) => {
            let (ca, ta) = linear(a)?;
            let (cb, tb) = linear(b)?;
            if ta.is_empty() {
                Some((
                    ca.checked_mul(cb)?,
                    tb.into_iter()
                        .map(|(v, k)| (v, k * ca))
                        .filter(|(_, k)| *k != 0)
                        .collect(),
                ))
            } else if tb.is_empty() {
                Some((
                    ca.checked_mul(cb)?,
                    ta.into_iter()
                        .map(|(v, k)| (v, k * cb))
                        .filter(|(_, k)| *k != 0)
                        .collect(),
                ))
            } else {
                None
            }
        }
        _ => None,
    }
}

fn from_linear(c: i64, terms: &BTreeMap<VarId, i64>) -> IExpr {
    // `17 - i` reads better than `-i + 17`.
    let mut acc: Option<IExpr> = if c > 0 && terms.values().next().is_some_and(|k| *k < 0) {
        Some(IExpr::Const(c))
    } else {
        None
    };
    let c = if acc.is_some() { 0 } else { c };
    for (&v, &k) in terms {
        let term = if k.abs() == 1 {
            IExpr::Var(v)
        } else {
            IExpr::bin(IOp::Mul, IExpr::Const(k.abs()), IExpr::Var(v))
        };
        acc = Some(match acc {
            None if k < 0 => IExpr::bin(IOp::Sub, IExpr::Const(0), term),
            None => term,
            Some(a) if k < 0 => IExpr::bin(IOp::Sub, a, term),
            Some(a) => IExpr::bin(IOp::Add, a, term),
        });
    }
    match acc {
        None => IExpr::Const(c),
        Some(a) if c > 0 => IExpr::bin(IOp::Add, a, IExpr::Const(c)),
        Some(a) if c < 0 => IExpr::bin(IOp::Sub, a, IExpr::Const(-c)),
        Some(a) => a,
    }
}

pub fn simplify(e: &IExpr) -> IExpr {
    if let Some((c, terms)) = linear(e) {
        return from_linear(c, &terms);
    }
    match e {
        IExpr::Bin(op, a, b) => {
            let (a, b) = (simplify(a), simplify(b));
            match (op, a.as_const(), b.as_const()) {
                (IOp::Mod, Some(x), Some(y)) => {
                    floor_mod(x, y).map_or_else(|| IExpr::bin(*op, a, b), IExpr::Const)
                }
                (IOp::FloorDiv, Some(x), Some(y)) => {
                    floor_div(x, y).map_or_else(|| IExpr::bin(*op, a, b), IExpr::Const)
                }
                (IOp::Min, Some(x), Some(y)) => IExpr::Const(x.min(y)),
                (IOp::Max, Some(x), Some(y)) => IExpr::Const(x.max(y)),
                (IOp::Mod, _, Some(1)) => IExpr::Const(0),
                (IOp::FloorDiv, _, Some(1)) => a,
                _ => IExpr::bin(*op, a, b),
            }
        }
        IExpr::Select(c, a, b) => {
            let c = simplify_cond(c);
            match c {
                Cond::True => simplify(a),
                Cond::Not(ref x) if **x == Cond::True => simplify(b),
                c => IExpr::Select(Box::new(c), Box::new(simplify(a)), Box::new(simplify(b))),
            }
        }
        other => other.clone(),
    }
}

/// Substitutes `var := with` everywhere in `e`.
pub fn substitute(e: &IExpr, var: VarId, with: &IExpr) -> IExpr {
    match e {
        IExpr::Var(v) if *v == var => with.clone(),
        IExpr::Const(_) | IExpr::Var(_) => e.clone(),
        IExpr::Bin(op, a, b) => IExpr::bin(*op, substitute(a, var, with), substitute(b, var, with)),
        IExpr::Select(c, a, b) => IExpr::Select(
            Box::new(substitute_cond(c, var, with)),
            Box::new(substitute(a, var, with)),
            Box::new(substitute(b, var, with)),
        ),
    }
}

pub fn substitute_cond(c: &Cond, var: VarId, with: &IExpr) -> Cond {
    match c {
        Cond::True => Cond::True,
        Cond::Cmp(op, a, b) => Cond::Cmp(*op, substitute(a, var, with), substitute(b, var, with)),
        Cond::And(a, b) => Cond::And(
            Box::new(substitute_cond(a, var, with)),
            Box::new(substitute_cond(b, var, with)),
        ),
        Cond::Or(a, b) => Cond::Or(
            Box::new(substitute_cond(a, var, with)),
            Box::new(substitute_cond(b, var, with)),
        ),
        Cond::Not(a) => Cond::Not(Box::new(substitute_cond(a, var, with))),
    }
}

/// Folds comparisons between constants; `Not(True)` stands for false.
pub fn simplify_cond(c: &Cond) -> Cond {
    let falsity = || Cond::Not(Box::new(Cond::True));
    match c {
        Cond::True => Cond::True,
        Cond::Cmp(op, a, b) => {
            let (a, b) = (simplify(a), simplify(b));
            // Compare through the difference so `i - 1 < i` folds too.
            let diff = simplify(&IExpr::bin(IOp::Sub, a.clone(), b.clone()));
            match Cond::Cmp(*op, diff.clone(), IExpr::Const(0)).eval(&[]) {
                Some(true) if diff.as_const().is_some() => Cond::True,
                Some(false) if diff.as_const().is_some() => falsity(),
                _ => Cond::Cmp(*op, a, b),
            }
        }
        Cond::And(a, b) => match (simplify_cond(a), simplify_cond(b)) {
            (Cond::True, x) | (x, Cond::True) => x,
            (x, _) if is_false(&x) => falsity(),
            (_, y) if is_false(&y) => falsity(),
            (x, y) => Cond::And(Box::new(x), Box::new(y)),
        },
        Cond::Or(a, b) => match (simplify_cond(a), simplify_cond(b)) {
            (Cond::True, _) | (_, Cond::True) => Cond::True,
            (x, y) if is_false(&x) => y,
            (x, y) if is_false(&y) => x,
            (x, y) => Cond::Or(Box::new(x), Box::new(y)),
        },
        Cond::Not(a) => match simplify_cond(a) {
            Cond::Not(x) => *x,
            x => Cond::Not(Box::new(x)),
        },
    }
}

pub fn is_false(c: &Cond) -> bool {
    matches!(c, Cond::Not(x) if **x == Cond::True)
}
