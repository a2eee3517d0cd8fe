//! One expression of the loop variables for the values a site takes over its instances.

use crate::ir::{IExpr, IOp, VarId};
use crate::simplify::simplify;

/// One expression for `values` at the instances `envs`: a constant, `a · v + b` in one of the
/// enclosing loop variables, or, where the innermost variable only grows, up to four such pieces
/// (`1 if i < 14 else 0`, as the rolled form's epilogue counts read).
pub(super) fn fit(envs: &[Vec<(VarId, i64)>], values: &[i64]) -> Option<IExpr> {
    let first = *values.first()?;
    if values.iter().all(|&v| v == first) {
        return Some(IExpr::Const(first));
    }
    let vars: Vec<VarId> = envs.first()?.iter().rev().map(|(v, _)| *v).collect();
    for &var in &vars {
        let xs: Option<Vec<i64>> = envs.iter().map(|e| value_of(e, var)).collect();
        if let Some((a, b)) = xs.and_then(|xs| linear(&xs, values)) {
            return Some(line(var, a, b));
        }
    }
    // Pieces over the innermost variable.
    let var = *vars.first()?;
    let xs: Vec<i64> = envs
        .iter()
        .map(|e| value_of(e, var))
        .collect::<Option<_>>()?;
    if xs.windows(2).any(|w| w.first() >= w.get(1)) {
        return None;
    }
    // Maximal runs, in order, each one line: (its first x, a, b).
    let mut pieces: Vec<(i64, i64, i64)> = Vec::new();
    let mut start = 0;
    while start < xs.len() {
        let mut end = start + 1;
        let mut best = (0, *values.get(start)?);
        while end < xs.len() {
            match linear(xs.get(start..=end)?, values.get(start..=end)?) {
                Some(ab) => {
                    best = ab;
                    end += 1;
                }
                None => break,
            }
        }
        pieces.push((*xs.get(start)?, best.0, best.1));
        if pieces.len() > 4 {
            return None;
        }
        start = end;
    }
    // `piece if v < next piece's first x else (the rest)`, from the last piece back.
    let (_, a, b) = *pieces.last()?;
    let mut e = line(var, a, b);
    for w in pieces.windows(2).rev() {
        let (Some(&(_, a, b)), Some(&(next, _, _))) = (w.first(), w.get(1)) else {
            continue;
        };
        e = IExpr::Select(Box::new((
            crate::ir::Cond::Cmp(crate::ir::CmpOp::Lt, IExpr::Var(var), IExpr::Const(next)),
            line(var, a, b),
            e,
        )));
    }
    Some(e)
}

pub(super) fn value_of(env: &[(VarId, i64)], var: VarId) -> Option<i64> {
    env.iter().find(|(v, _)| *v == var).map(|p| p.1)
}

/// `(a, b)` with `values = a · xs + b` exactly, when there is one.
pub(super) fn linear(xs: &[i64], values: &[i64]) -> Option<(i64, i64)> {
    let (x0, y0) = (*xs.first()?, *values.first()?);
    let Some((x1, y1)) = xs.iter().zip(values).find(|(&x, _)| x != x0) else {
        return values.iter().all(|&y| y == y0).then_some((0, y0));
    };
    let (dy, dx) = (y1 - y0, x1 - x0);
    if dx == 0 || dy % dx != 0 {
        return None;
    }
    let a = dy / dx;
    let b = y0 - a * x0;
    xs.iter()
        .zip(values)
        .all(|(&x, &y)| a.checked_mul(x).and_then(|ax| ax.checked_add(b)) == Some(y))
        .then_some((a, b))
}

pub(super) fn line(var: VarId, a: i64, b: i64) -> IExpr {
    simplify(&IExpr::bin(
        IOp::Add,
        IExpr::bin(IOp::Mul, IExpr::Const(a), IExpr::Var(var)),
        IExpr::Const(b),
    ))
}
