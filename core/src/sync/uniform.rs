//! Needs the dependence analysis already decides at every iteration, which `exact.rs` then does
//! not enumerate. An access whose elements at iteration `i` are `c·i + B` in every dimension, `B`
//! a box that does not move with `i` (each index a constant, or one loop variable of its unit, of
//! constant bounds, plus a constant; no variable in two dimensions; no `if`), meets another such
//! access with the same coefficients at the same distances at every iteration: two boxes `d`
//! iterations apart overlap in every dimension or not, whatever the iteration. The analysis'
//! intervals describe boxes exactly, so its shortest distance is met at every iteration from it
//! on — what the enumeration would find, without enumerating (a GEMM's tiles: `A_smem[m, kk]`).

use super::Need;
use crate::ir::{for_each_read, Access, IExpr, IOp, Node, VarId};
use crate::schedule::{DepKind, Unit};
use std::collections::HashMap;

/// Whether every pair of `n`'s accesses (the producer's and the consumer's on its buffer, as its
/// kind says) is of boxes moving with the same coefficients of the loop variable `outer`.
pub(super) fn decided_everywhere(n: &Need, units: &[Unit], outer: VarId) -> bool {
    let (Some(producer), Some(consumer)) = (units.get(n.producer), units.get(n.consumer)) else {
        return false;
    };
    let (producer_writes, consumer_writes) = match n.kind {
        DepKind::Raw => (true, false),
        DepKind::War => (false, true),
        DepKind::Waw => (true, true),
    };
    let (Some(a), Some(b)) = (
        boxes(producer, n.buffer, producer_writes, outer),
        boxes(consumer, n.buffer, consumer_writes, outer),
    ) else {
        return false;
    };
    a.iter().all(|x| {
        b.iter()
            .all(|y| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.0 == q.0))
    })
}

/// Whether `unit` runs every statement at every iteration: no `if`, its loops of constant
/// bounds that run at least once.
pub(super) fn always_runs(unit: &Unit) -> bool {
    unit.inner.is_none() && inner_ranges(&unit.node, &mut HashMap::new()).is_some()
}

/// Per dimension `(coefficient of i, lowest, highest)` of each access of `unit` to `buffer`
/// that writes (`write`) or reads; `None` when one is not a box or the unit may skip one.
fn boxes(unit: &Unit, buffer: u32, write: bool, outer: VarId) -> Option<Vec<Vec<(i64, i64, i64)>>> {
    if unit.inner.is_some() {
        return None;
    }
    let mut ranges = HashMap::new();
    inner_ranges(&unit.node, &mut ranges)?;
    let mut accesses: Vec<&Access> = Vec::new();
    collect(&unit.node, buffer, write, &mut accesses);
    accesses
        .into_iter()
        .map(|a| boxed(a, outer, &ranges))
        .collect()
}

fn collect<'a>(node: &'a Node, buffer: u32, write: bool, out: &mut Vec<&'a Access>) {
    match node {
        Node::Assign(a) => {
            if write {
                if a.target.buffer == buffer {
                    out.push(&a.target);
                }
            } else {
                for_each_read(&a.value, &mut |r| {
                    if r.buffer == buffer {
                        out.push(r);
                    }
                });
            }
        }
        Node::For { body, .. } => {
            for n in body {
                collect(n, buffer, write, out);
            }
        }
        _ => {}
    }
}

/// The ranges of the unit's loop variables, when every loop has constant bounds and runs, and
/// the unit has no `if` (nor anything but loops and statements).
fn inner_ranges(node: &Node, out: &mut HashMap<VarId, (i64, i64)>) -> Option<()> {
    match node {
        Node::Assign(_) => Some(()),
        Node::For {
            var, lo, hi, body, ..
        } => {
            let (lo, hi) = (lo.as_const()?, hi.as_const()?);
            if hi <= lo {
                return None;
            }
            out.insert(*var, (lo, hi - 1));
            body.iter().try_for_each(|n| inner_ranges(n, out))
        }
        _ => None,
    }
}

/// `a`'s dimensions as `(coefficient of outer, lowest, highest)`, when it is a box.
fn boxed(
    a: &Access,
    outer: VarId,
    ranges: &HashMap<VarId, (i64, i64)>,
) -> Option<Vec<(i64, i64, i64)>> {
    let mut used: Vec<VarId> = Vec::new();
    let mut dims = Vec::with_capacity(a.indices.len());
    for e in &a.indices {
        let (mut terms_of, mut constant) = (Vec::new(), 0);
        terms(e, 1, &mut terms_of, &mut constant)?;
        let mut merged: Vec<(VarId, i64)> = Vec::new();
        for (v, k) in terms_of {
            match merged.iter_mut().find(|m| m.0 == v) {
                Some(m) => m.1 = m.1.checked_add(k)?,
                None => merged.push((v, k)),
            }
        }
        let (mut coef, mut lo, mut hi, mut inner) = (0, constant, constant, false);
        for (v, k) in merged {
            if k == 0 {
                continue;
            }
            if v == outer {
                coef = k;
                continue;
            }
            let &(vlo, vhi) = ranges.get(&v)?;
            if inner || used.contains(&v) || k.abs() != 1 {
                return None;
            }
            inner = true;
            used.push(v);
            let (x, y) = (k * vlo, k * vhi);
            lo = lo.checked_add(x.min(y))?;
            hi = hi.checked_add(x.max(y))?;
        }
        dims.push((coef, lo, hi));
    }
    Some(dims)
}

/// `e` times `k` as terms of variables and a constant, when it is linear.
fn terms(e: &IExpr, k: i64, out: &mut Vec<(VarId, i64)>, constant: &mut i64) -> Option<()> {
    match e {
        IExpr::Const(v) => *constant = constant.checked_add(k.checked_mul(*v)?)?,
        IExpr::Var(v) => out.push((*v, k)),
        IExpr::Bin(IOp::Add, ab) => {
            let [a, b] = &**ab;
            terms(a, k, out, constant)?;
            terms(b, k, out, constant)?;
        }
        IExpr::Bin(IOp::Sub, ab) => {
            let [a, b] = &**ab;
            terms(a, k, out, constant)?;
            terms(b, k.checked_neg()?, out, constant)?;
        }
        IExpr::Bin(IOp::Mul, ab) => {
            let [a, b] = &**ab;
            match (a.as_const(), b.as_const()) {
                (Some(x), _) => terms(b, k.checked_mul(x)?, out, constant)?,
                (_, Some(x)) => terms(a, k.checked_mul(x)?, out, constant)?,
                _ => return None,
            }
        }
        _ => return None,
    }
    Some(())
}
