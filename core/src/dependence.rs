//! Which statement instances touch the same element, and at which iteration distances. Built on
//! `affine`: every access is reduced to `coef * iteration + interval` per dimension, so the set of
//! distances at which two accesses may meet is itself an interval.

use crate::affine::{interval, split_linear, Dim, Interval};
use crate::diagnostic::Span;
use crate::ir::{for_each_read, BufId, IExpr, Node, VarId};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq)]
pub struct UnitAccess {
    pub buffer: BufId,
    pub write: bool,
    pub dims: Vec<Dim>,
    pub span: Span,
}

/// Accesses of one pipeline unit, relative to the pipelined loop variable `outer`.
pub fn unit_accesses(node: &Node, outer: VarId) -> Vec<UnitAccess> {
    // Most statements make two to four accesses.
    let mut out = Vec::with_capacity(4);
    let mut ranges = HashMap::new();
    collect(node, outer, &mut ranges, &mut out);
    out
}

fn collect(
    node: &Node,
    outer: VarId,
    ranges: &mut HashMap<VarId, Interval>,
    out: &mut Vec<UnitAccess>,
) {
    let dims = |indices: &[IExpr], ranges: &HashMap<VarId, Interval>| -> Vec<Dim> {
        indices
            .iter()
            .map(|e| match split_linear(e, outer) {
                Some((coef, rest)) => {
                    let look = |v: VarId| ranges.get(&v).copied().unwrap_or(Interval::ALL);
                    Dim::Affine {
                        coef,
                        rest: interval(&rest, &look),
                    }
                }
                None => Dim::Unknown,
            })
            .collect()
    };
    match node {
        Node::Assign(a) => {
            for_each_read(&a.value, &mut |r| {
                out.push(UnitAccess {
                    buffer: r.buffer,
                    write: false,
                    dims: dims(&r.indices, ranges),
                    span: r.span,
                });
            });
            out.push(UnitAccess {
                buffer: a.target.buffer,
                write: true,
                dims: dims(&a.target.indices, ranges),
                span: a.target.span,
            });
        }
        Node::For {
            var, lo, hi, body, ..
        } => {
            let look = |v: VarId| ranges.get(&v).copied().unwrap_or(Interval::ALL);
            let (l, h) = (interval(lo, &look), interval(hi, &look));
            let range = if l.is_bounded() && h.is_bounded() {
                Interval {
                    lo: l.lo,
                    hi: h.hi.saturating_sub(1),
                }
            } else {
                Interval::ALL
            };
            ranges.insert(*var, range);
            for n in body {
                collect(n, outer, ranges, out);
            }
            ranges.remove(var);
        }
        Node::If { body, .. }
        | Node::Commit { body, .. }
        | Node::AsyncScope { body, .. }
        | Node::Wait { body, .. }
        | Node::Section { body, .. } => {
            for n in body {
                collect(n, outer, ranges, out);
            }
        }
    }
}

/// Inclusive range of distances `d` (iterations of `b` after `a`) at which `a` and `b` may meet.
/// Empty when `lo > hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Distances {
    pub lo: i64,
    pub hi: i64,
}

impl Distances {
    pub fn is_empty(self) -> bool {
        self.lo > self.hi
    }
}

pub fn conflict_distances(a: &[Dim], b: &[Dim]) -> Distances {
    let mut set = Distances {
        lo: i64::MIN / 4,
        hi: i64::MAX / 4,
    };
    if a.len() != b.len() {
        return set;
    }
    for (x, y) in a.iter().zip(b) {
        let (Dim::Affine { coef: c1, rest: r1 }, Dim::Affine { coef: c2, rest: r2 }) = (x, y)
        else {
            continue;
        };
        if c1 != c2 {
            continue;
        }
        let c = *c1;
        if c == 0 {
            if r1.hi < r2.lo || r2.hi < r1.lo {
                return Distances { lo: 1, hi: 0 };
            }
            continue;
        }
        if !r1.is_bounded() || !r2.is_bounded() {
            continue;
        }
        // r1 and r2 + c*d overlap: r1.lo - r2.hi <= c*d <= r1.hi - r2.lo.
        let (low, high) = (r1.lo - r2.hi, r1.hi - r2.lo);
        let (dlo, dhi) = if c > 0 {
            (div_ceil(low, c), div_floor(high, c))
        } else {
            (div_ceil(high, c), div_floor(low, c))
        };
        set.lo = set.lo.max(dlo);
        set.hi = set.hi.min(dhi);
    }
    set
}

fn div_floor(a: i64, b: i64) -> i64 {
    crate::ir::floor_div(a, b).unwrap_or(0)
}

fn div_ceil(a: i64, b: i64) -> i64 {
    // Not `-div_floor(-a, b)`: `-a` overflows for i64::MIN.
    match (crate::ir::floor_div(a, b), a.checked_rem(b)) {
        (Some(q), Some(r)) if r != 0 => q.saturating_add(1),
        (Some(q), _) => q,
        _ => 0,
    }
}

/// The smallest distance `d >= min` in `set` with `d % period == 0`, if any.
pub fn first_distance(set: Distances, min: i64, period: i64) -> Option<i64> {
    let start = set.lo.max(min);
    if start > set.hi {
        return None;
    }
    let period = period.max(1);
    let rem = crate::ir::floor_mod(start, period).unwrap_or(0);
    let d = if rem == 0 {
        start
    } else {
        start + (period - rem)
    };
    (d <= set.hi).then_some(d)
}
