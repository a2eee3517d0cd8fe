//! The iteration distances at which two accesses touch a common element at *every* iteration —
//! the dependences that hold whatever the iteration, where `dependence::conflict_distances` gives
//! those that may hold at some. A lower bound built on dependences (`schedule_bound`) may use only
//! these: a dependence met at some iterations only (`S[i % 2]` read, `S[0]` written) lets every
//! other iteration run free of it, and a recurrence through it would bound the steady state from
//! above what its schedules reach.
//!
//! An access always touches a common element with another only where each knows the values it
//! takes at an iteration, not merely their range: a dimension is exact when its value is
//! `coef · i + constant`, or `coef · i + v + constant` for a variable `v` of an inner loop with
//! constant bounds that every iteration runs whole (`UnitAccess::covered`). Anything else — an
//! index under an `if`, a clamp, a lookup, a product of inner variables — is never assumed to meet.

use crate::affine::{interval, split_linear, Dim, Interval};
use crate::dependence::{Distances, UnitAccess, NEAR};
use crate::ir::{IExpr, VarId};
use std::collections::HashSet;

/// Whether the index `e`, read as `dim`, takes every value of its `dim` at each iteration of `outer`: beyond
/// `outer`'s own term, a constant, or one variable of `whole` (inner loops with constant bounds,
/// run whole at every iteration) with coefficient ±1 that no other index of the access uses.
pub fn covers_every_value(
    e: &IExpr,
    dim: &Dim,
    outer: VarId,
    whole: &HashSet<VarId>,
    others: &[IExpr],
) -> bool {
    let linear = match (e, dim) {
        (IExpr::Bin(crate::ir::IOp::Mod, ab), Dim::Periodic { .. }) => {
            let [a, _] = &**ab;
            split_linear(a, outer)
        }
        // A ring whose coefficient is a multiple of its size reads as `Affine` over the whole
        // remainder's range, which it need not cover.
        (IExpr::Bin(crate::ir::IOp::Mod, _), _) | (_, Dim::Unknown { .. }) => return false,
        _ => split_linear(e, outer),
    };
    let Some((_, rest)) = linear else {
        return false;
    };
    let constant = |x: &IExpr| {
        let i = interval(x, &|_| Interval::ALL);
        i.lo == i.hi
    };
    if constant(&rest) {
        return true;
    }
    whole.iter().any(|&v| {
        rest.mentions(v)
            && !others.iter().any(|o| o.mentions(v))
            && split_linear(&rest, v).is_some_and(|(c, r)| c.abs() == 1 && constant(&r))
    })
}

/// The distances `d ≥ 0` at which `b` at iteration `j + d` touches an element `a` touched at `j`,
/// for every `j`. Under-approximated: a distance left out may still always meet; one listed does.
pub fn always_meeting(a: &UnitAccess, b: &UnitAccess) -> Distances {
    let exact = |x: &UnitAccess| {
        x.unconditional
            && x.tables.iter().all(Option::is_none)
            && x.covered.len() == x.dims.len()
            && x.covered.iter().all(|&c| c)
    };
    if a.buffer != b.buffer || a.dims.len() != b.dims.len() || !exact(a) || !exact(b) {
        return Distances::NONE;
    }
    a.dims
        .iter()
        .zip(&b.dims)
        .fold(Distances::between(0, i64::MAX / 4), |set, (x, y)| {
            set.intersect(&dim_always_meeting(*x, *y))
        })
}

/// One dimension's part of `always_meeting`: `x` at `j`, `y` at `j + d`, both exact.
fn dim_always_meeting(x: Dim, y: Dim) -> Distances {
    match (x, y) {
        // c·j + r1 and c·(j + d) + r2 meet at every j exactly when r1 and c·d + r2 overlap;
        // with different coefficients they meet at one j at most.
        (Dim::Affine { coef: c, rest: r1 }, Dim::Affine { coef: c2, rest: r2 }) if c == c2 => {
            if c == 0 {
                return if overlap(r1, r2) {
                    Distances::between(0, i64::MAX / 4)
                } else {
                    Distances::NONE
                };
            }
            // r1.lo − r2.hi ≤ c·d ≤ r1.hi − r2.lo.
            let (lo, hi) = (r1.lo - r2.hi, r1.hi - r2.lo);
            let (dlo, dhi) = if c > 0 {
                (div_ceil(lo, c), div_floor(hi, c))
            } else {
                (div_ceil(hi, c), div_floor(lo, c))
            };
            Distances::between(dlo.max(0), dhi)
        }
        // (c·j + r1) mod m and (c·(j + d) + r2) mod m meet at every j exactly when
        // c·d + [r2.lo − r1.hi, r2.hi − r1.lo] holds a multiple of m. Periodic in d: listed
        // below `NEAR`, which is every distance a pipeline of at most `limits::MAX_STAGE`
        // stages reorders.
        (
            Dim::Periodic {
                coef: c,
                rest: r1,
                modulus: m,
            },
            Dim::Periodic {
                coef: c2,
                rest: r2,
                modulus: m2,
            },
        ) if c == c2 && m == m2 && m > 0 => {
            let mut set = Distances::NONE;
            for d in 0..NEAR {
                let lo = c * d + r2.lo - r1.hi;
                let hi = c * d + r2.hi - r1.lo;
                if div_floor(hi, m) >= div_ceil(lo, m) {
                    set = set.union(&Distances::between(d, d));
                }
            }
            set
        }
        _ => Distances::NONE,
    }
}

fn overlap(a: Interval, b: Interval) -> bool {
    a.lo <= b.hi && b.lo <= a.hi
}

fn div_floor(a: i64, b: i64) -> i64 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn div_ceil(a: i64, b: i64) -> i64 {
    -div_floor(-a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Span;

    fn access(dims: Vec<Dim>, covered: bool, unconditional: bool) -> UnitAccess {
        UnitAccess {
            buffer: 0,
            write: false,
            covered: vec![covered; dims.len()],
            dims,
            tables: Vec::new(),
            periods: Vec::new(),
            unconditional,
            span: Span::default(),
        }
    }

    fn affine(coef: i64, lo: i64, hi: i64) -> UnitAccess {
        access(
            vec![Dim::Affine {
                coef,
                rest: Interval { lo, hi },
            }],
            true,
            true,
        )
    }

    fn listed(set: Distances, upto: i64) -> Vec<i64> {
        (0..=upto).filter(|&d| set.contains(d)).collect()
    }

    #[test]
    fn a_shifted_index_always_meets_at_its_shift_only() {
        // A[i] written, A[i - 2] read: the read at j + 2 reads what j wrote, at every j.
        assert_eq!(
            listed(always_meeting(&affine(1, 0, 0), &affine(1, -2, -2)), 8),
            [2]
        );
        // A[2·i] and A[2·i + 1] never meet.
        assert!(always_meeting(&affine(2, 0, 0), &affine(2, 1, 1)).is_empty());
    }

    #[test]
    fn a_whole_tile_always_meets_a_tile_it_overlaps() {
        // T[k] for k in 0…31 written, T[k + 16] for k in 0…15 read: always, at every distance.
        assert_eq!(
            listed(always_meeting(&affine(0, 0, 31), &affine(0, 16, 31)), 4),
            [0, 1, 2, 3, 4]
        );
    }

    #[test]
    fn an_index_known_only_by_its_range_never_always_meets() {
        let uncovered = access(
            vec![Dim::Affine {
                coef: 0,
                rest: Interval { lo: 0, hi: 1 },
            }],
            false,
            true,
        );
        assert!(always_meeting(&affine(0, 0, 1), &uncovered).is_empty());
        let guarded = access(
            vec![Dim::Affine {
                coef: 0,
                rest: Interval::point(0),
            }],
            true,
            false,
        );
        assert!(always_meeting(&affine(0, 0, 0), &guarded).is_empty());
        let unknown = access(
            vec![Dim::Unknown {
                values: Interval::point(0),
            }],
            true,
            true,
        );
        assert!(always_meeting(&affine(0, 0, 0), &unknown).is_empty());
    }

    #[test]
    fn a_ring_always_meets_at_its_offset_modulo_its_size() {
        // S[i % 4] written, S[(i + 3) % 4] read: the read at j + 1 is the slot j wrote.
        let ring = |offset| {
            access(
                vec![Dim::Periodic {
                    coef: 1,
                    rest: Interval::point(offset),
                    modulus: 4,
                }],
                true,
                true,
            )
        };
        assert_eq!(listed(always_meeting(&ring(0), &ring(3)), 9), [1, 5, 9]);
    }
}
