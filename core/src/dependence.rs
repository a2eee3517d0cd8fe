//! Which statement instances may touch the same element, and at which iteration distances. Built on
//! `affine`: every access is reduced per dimension to `coef · i + interval`, a user-written ring
//! `(coef · i + interval) mod m`, or unknown. The answer is an over-approximation — a distance left
//! out is one at which the two accesses provably never meet — exact for equal-coefficient affine
//! indices and rings, and conservative (`may meet`) for everything else.
//!
//! Distances below `NEAR` (every distance a pipeline of at most `limits::MAX_STAGE` stages can
//! reorder) are decided one by one; beyond, the set is an interval.

use crate::affine::{interval, split_linear, Dim, Interval};
use crate::diagnostic::Span;
use crate::ir::{for_each_read, BufId, IExpr, IOp, Node, VarId};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug, PartialEq)]
pub struct UnitAccess {
    pub buffer: BufId,
    pub write: bool,
    pub dims: Vec<Dim>,
    /// For a dimension that is neither affine nor a ring, under a short constant extent: the values
    /// it may take at each iteration (`[range.lo, range.hi]`), so that distances are still decided
    /// one by one. Empty when no dimension needs it.
    pub tables: Vec<Option<Vec<Interval>>>,
    /// With `tables`, for each tabulated dimension: a period in the iteration
    /// (`affine::period`), with which a symbolic extent's distances are decided too.
    pub periods: Vec<Option<i64>>,
    /// Runs every time its unit runs: under no `if`, and in no loop of its unit that may run zero
    /// times.
    pub unconditional: bool,
    /// Per dimension: at each iteration the index takes every value its dimension describes, not
    /// only values within it (`always_meet::covers_every_value`).
    pub covered: Vec<bool>,
    pub span: Span,
}

/// Iterations at most for which a non-affine index is tabulated (`UnitAccess::tables`).
pub const MAX_TABULATED_ITERATIONS: i64 = 256;

/// Accesses of one pipeline unit, relative to the pipelined loop variable `outer`, which runs
/// over `range`.
pub fn unit_accesses(node: &Node, outer: VarId, range: IterationRange) -> Vec<UnitAccess> {
    // Most statements make two to four accesses.
    let mut out = Vec::with_capacity(4);
    let mut ranges = HashMap::new();
    let mut cx = Collect {
        outer,
        range,
        ranges: &mut ranges,
        whole: HashSet::new(),
        out: &mut out,
        conditional: 0,
    };
    cx.node(node);
    out
}

/// One index as seen from the pipelined loop, which runs over `range`.
pub fn dim(
    e: &IExpr,
    outer: VarId,
    ranges: &HashMap<VarId, Interval>,
    range: IterationRange,
) -> Dim {
    let look = |v: VarId| ranges.get(&v).copied().unwrap_or(Interval::ALL);
    if let Some((coef, rest)) = split_linear(e, outer) {
        return Dim::Affine {
            coef,
            rest: interval(&rest, &look),
        };
    }
    if let IExpr::Bin(IOp::Mod, ab) = e {
        let [a, m] = &**ab;
        if let (Some((coef, rest)), Some(modulus)) = (split_linear(a, outer), m.as_const()) {
            if modulus > 0 {
                let coef = crate::ir::floor_mod(coef, modulus).unwrap_or(0);
                if coef == 0 {
                    // Independent of the iteration.
                    return Dim::Affine {
                        coef: 0,
                        rest: interval(e, &look),
                    };
                }
                return Dim::Periodic {
                    coef,
                    rest: interval(&rest, &look),
                    modulus,
                };
            }
        }
    }
    // A value that does not move with the iteration at all (`(1 if c else 1)`, `min(i, 0)`…).
    let iterations = Interval {
        lo: range.lo,
        hi: range.hi,
    };
    let values = interval(e, &|v| if v == outer { iterations } else { look(v) });
    if values.is_bounded() && values.lo == values.hi {
        return Dim::Affine {
            coef: 0,
            rest: values,
        };
    }
    Dim::Unknown { values }
}

/// The values a dimension takes over every iteration of `range`.
fn overall(dim: Dim, range: IterationRange) -> Interval {
    match dim {
        Dim::Affine { coef: 0, rest } => rest,
        Dim::Affine { coef, rest } if range.is_known() && rest.is_bounded() => {
            let (a, b) = (coef.saturating_mul(range.lo), coef.saturating_mul(range.hi));
            Interval {
                lo: a.min(b).saturating_add(rest.lo),
                hi: a.max(b).saturating_add(rest.hi),
            }
        }
        Dim::Affine { .. } => Interval::ALL,
        Dim::Periodic { modulus, .. } => Interval {
            lo: 0,
            hi: modulus - 1,
        },
        Dim::Unknown { values } => values,
    }
}

/// The values `e` may take at each iteration of a short constant range, for a dimension `dim`
/// could not describe; under a symbolic extent, at its first `MAX_TABULATED_ITERATIONS`
/// iterations (`first_meeting` reads them, `conflict_distances` does not).
fn table(
    e: &IExpr,
    outer: VarId,
    ranges: &HashMap<VarId, Interval>,
    range: IterationRange,
) -> Option<Vec<Interval>> {
    let hi = if range.is_known() {
        if range.hi - range.lo >= MAX_TABULATED_ITERATIONS {
            return None;
        }
        range.hi
    } else if range.lo > Interval::ALL.lo {
        range.lo + MAX_TABULATED_ITERATIONS - 1
    } else {
        return None;
    };
    Some(
        (range.lo..=hi)
            .map(|i| {
                interval(e, &|v| {
                    if v == outer {
                        Interval::point(i)
                    } else {
                        ranges.get(&v).copied().unwrap_or(Interval::ALL)
                    }
                })
            })
            .collect(),
    )
}

struct Collect<'a> {
    outer: VarId,
    range: IterationRange,
    ranges: &'a mut HashMap<VarId, Interval>,
    /// Variables of the inner loops around the current node that run every value of constant
    /// bounds.
    whole: HashSet<VarId>,
    out: &'a mut Vec<UnitAccess>,
    /// `if`s and possibly empty loops around the current node.
    conditional: u32,
}

impl Collect<'_> {
    fn access(&mut self, buffer: BufId, indices: &[IExpr], write: bool, span: Span) {
        let dims: Vec<Dim> = indices
            .iter()
            .map(|e| dim(e, self.outer, self.ranges, self.range))
            .collect();
        let tables = if dims.iter().any(|d| matches!(d, Dim::Unknown { .. })) {
            indices
                .iter()
                .zip(&dims)
                .map(|(e, d)| match d {
                    Dim::Unknown { .. } => table(e, self.outer, self.ranges, self.range),
                    _ => None,
                })
                .collect()
        } else {
            Vec::new()
        };
        let periods = if tables.is_empty() {
            Vec::new()
        } else {
            indices
                .iter()
                .map(|e| crate::affine::period(e, self.outer))
                .collect()
        };
        let covered = indices
            .iter()
            .zip(&dims)
            .enumerate()
            .map(|(k, (e, d))| {
                let others: Vec<IExpr> = indices
                    .iter()
                    .enumerate()
                    .filter(|(o, _)| *o != k)
                    .map(|(_, x)| x.clone())
                    .collect();
                crate::always_meet::covers_every_value(e, d, self.outer, &self.whole, &others)
            })
            .collect();
        self.out.push(UnitAccess {
            buffer,
            write,
            covered,
            dims,
            tables,
            periods,
            unconditional: self.conditional == 0,
            span,
        });
    }

    fn node(&mut self, node: &Node) {
        match node {
            Node::Assign(a) => {
                for_each_read(&a.value, &mut |r| {
                    self.access(r.buffer, &r.indices, false, r.span);
                });
                self.access(a.target.buffer, &a.target.indices, true, a.target.span);
            }
            Node::For {
                var, lo, hi, body, ..
            } => {
                let range = loop_range(lo, hi, self.ranges);
                let runs = matches!((lo.as_const(), hi.as_const()), (Some(l), Some(h)) if l < h);
                self.conditional += u32::from(!runs);
                self.ranges.insert(*var, range);
                if runs {
                    self.whole.insert(*var);
                }
                for n in body {
                    self.node(n);
                }
                self.whole.remove(var);
                self.ranges.remove(var);
                self.conditional -= u32::from(!runs);
            }
            Node::If { body, .. } => {
                self.conditional += 1;
                for n in body {
                    self.node(n);
                }
                self.conditional -= 1;
            }
            Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => {
                for n in body {
                    self.node(n);
                }
            }
            Node::Barrier { .. } => {}
        }
    }
}

/// The values a loop's variable takes, given the ranges of the variables around it.
pub fn loop_range(lo: &IExpr, hi: &IExpr, ranges: &HashMap<VarId, Interval>) -> Interval {
    let look = |v: VarId| ranges.get(&v).copied().unwrap_or(Interval::ALL);
    let (l, h) = (interval(lo, &look), interval(hi, &look));
    if l.is_bounded() && h.is_bounded() {
        Interval {
            lo: l.lo,
            hi: h.hi.saturating_sub(1),
        }
    } else {
        Interval::ALL
    }
}

/// Distances below this are decided one by one (a bit each).
pub const NEAR: i64 = 128;

/// The distances `d` (iterations of `b` after `a`) at which two accesses may meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Distances {
    /// Bit `d`: distance `d` in `[0, NEAR)` is possible.
    near: u128,
    /// The possible distances from `NEAR` on: `[far_lo, far_hi]`, empty when `far_lo > far_hi`.
    far_lo: i64,
    far_hi: i64,
}

const ALL_NEAR: u128 = u128::MAX;

/// Bits `lo..=hi` of a `u128`, clipped to `[0, NEAR)`.
fn bits(lo: i64, hi: i64) -> u128 {
    let (lo, hi) = (lo.max(0), hi.min(NEAR - 1));
    if lo > hi {
        return 0;
    }
    let width = (hi - lo + 1) as u32;
    let ones = if width >= 128 {
        ALL_NEAR
    } else {
        (1u128 << width) - 1
    };
    ones << lo
}

impl Distances {
    pub const ALL: Distances = Distances {
        near: ALL_NEAR,
        far_lo: NEAR,
        far_hi: i64::MAX / 4,
    };
    pub const NONE: Distances = Distances {
        near: 0,
        far_lo: 1,
        far_hi: 0,
    };

    /// The distances in `[lo, hi]`.
    pub fn between(lo: i64, hi: i64) -> Distances {
        Distances {
            near: bits(lo, hi),
            far_lo: lo.max(NEAR),
            far_hi: hi,
        }
    }

    pub fn contains(&self, d: i64) -> bool {
        if (0..NEAR).contains(&d) {
            (self.near >> d) & 1 == 1
        } else {
            d >= self.far_lo && d <= self.far_hi
        }
    }

    pub fn is_empty(&self) -> bool {
        self.near == 0 && self.far_lo > self.far_hi
    }

    /// Is some distance `d ≥ min` possible?
    pub fn any_from(&self, min: i64) -> bool {
        self.near & bits(min, NEAR - 1) != 0 || self.far_lo.max(min) <= self.far_hi
    }

    pub fn intersect(&self, o: &Distances) -> Distances {
        Distances {
            near: self.near & o.near,
            far_lo: self.far_lo.max(o.far_lo),
            far_hi: self.far_hi.min(o.far_hi),
        }
    }

    pub fn union(&self, o: &Distances) -> Distances {
        let (a, b) = (self.far_lo <= self.far_hi, o.far_lo <= o.far_hi);
        let (far_lo, far_hi) = match (a, b) {
            (true, true) => (self.far_lo.min(o.far_lo), self.far_hi.max(o.far_hi)),
            (true, false) => (self.far_lo, self.far_hi),
            (false, true) => (o.far_lo, o.far_hi),
            (false, false) => (1, 0),
        };
        Distances {
            near: self.near | o.near,
            far_lo,
            far_hi,
        }
    }

    /// The smallest possible distance `d ≥ min` with `d % period == 0`.
    pub fn first(&self, min: i64, period: i64) -> Option<i64> {
        let period = period.max(1);
        // The near ones, visiting set bits only.
        let mut near = self.near & bits(min.max(0), NEAR - 1);
        while near != 0 {
            let d = i64::from(near.trailing_zeros());
            if d % period == 0 {
                return Some(d);
            }
            near &= near - 1;
        }
        let start = min.max(NEAR).max(self.far_lo);
        let rem = crate::ir::floor_mod(start, period).unwrap_or(0);
        let d = if rem == 0 {
            start
        } else {
            start.saturating_add(period - rem)
        };
        (d <= self.far_hi).then_some(d)
    }

    /// The largest possible distance, if any (`None` also when unbounded is not possible: the
    /// far interval is always bounded).
    pub fn last(&self) -> Option<i64> {
        if self.far_lo <= self.far_hi {
            return Some(self.far_hi);
        }
        (self.near != 0).then(|| NEAR - 1 - i64::from(self.near.leading_zeros()))
    }
}

/// The iterations of the pipelined loop, as far as they are known: `i` in `[lo, hi]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IterationRange {
    pub lo: i64,
    pub hi: i64,
}

impl IterationRange {
    pub const UNKNOWN: IterationRange = IterationRange {
        lo: Interval::ALL.lo,
        hi: Interval::ALL.hi,
    };

    /// Both ends known (a constant start and extent).
    pub fn is_known(self) -> bool {
        self.lo > Interval::ALL.lo && self.hi < Interval::ALL.hi
    }

    /// The iterations `i` of the earlier access when the later one runs `d` iterations after it.
    fn of_earlier(self, d: i64) -> Interval {
        Interval {
            lo: self.lo,
            hi: if self.hi >= Interval::ALL.hi {
                self.hi
            } else {
                self.hi.saturating_sub(d)
            },
        }
    }
}

/// The distances `d ≥ 0` at which `a` (iteration `i`) and `b` (iteration `i + d`) may touch the
/// same element, both iterations within `range`.
pub fn conflict_distances(a: &UnitAccess, b: &UnitAccess, range: IterationRange) -> Distances {
    let span = if range.is_known() {
        range.hi - range.lo
    } else {
        Interval::ALL.hi
    };
    if a.dims.len() != b.dims.len() {
        return Distances::between(0, span);
    }
    // Most accesses are affine with equal coefficients: their distances are one interval.
    let (mut lo, mut hi) = (0, span);
    let mut rest = false;
    for (x, y) in a.dims.iter().zip(&b.dims) {
        match (x, y) {
            (Dim::Affine { coef: c1, rest: r1 }, Dim::Affine { coef: c2, rest: r2 })
                if c1 == c2 && r1.is_bounded() && r2.is_bounded() =>
            {
                let (dlo, dhi) = equal_coefficients(*c1, *r1, *r2);
                lo = lo.max(dlo);
                hi = hi.min(dhi);
            }
            _ => rest = true,
        }
    }
    let mut set = Distances::between(lo, hi);
    if !rest || set.is_empty() {
        return set;
    }
    if let Some(periodic) = periodic_distances(a, b, range) {
        return set.intersect(&periodic);
    }
    for (k, (x, y)) in a.dims.iter().zip(&b.dims).enumerate() {
        let tables = (
            a.tables.get(k).and_then(Option::as_ref),
            b.tables.get(k).and_then(Option::as_ref),
        );
        let dim_set = match tables {
            (Some(_), _) | (_, Some(_)) if range.is_known() => {
                tabulated_distances((*x, tables.0), (*y, tables.1), range)
            }
            _ => dim_distances(*x, *y, range),
        };
        set = set.intersect(&dim_set);
        if set.is_empty() {
            break;
        }
    }
    set
}

/// Under a symbolic extent from a known start, when every dimension of both accesses repeats
/// with a period (`% m` of the iteration, conditions on it, a tabulated index with
/// `UnitAccess::periods`): the distances at which they may meet, every dimension at once,
/// decided over one common period of iterations — every iteration of any extent is one of
/// them. `None` otherwise.
fn periodic_distances(a: &UnitAccess, b: &UnitAccess, range: IterationRange) -> Option<Distances> {
    if range.is_known() || range.lo <= Interval::ALL.lo {
        return None;
    }
    let mut period = 1;
    for x in [a, b] {
        for (k, dim) in x.dims.iter().enumerate() {
            let p = match dim {
                Dim::Affine { coef: 0, .. } => 1,
                Dim::Periodic { modulus, .. } => *modulus,
                Dim::Unknown { .. } => {
                    x.tables.get(k)?.as_ref()?;
                    x.periods.get(k).copied().flatten()?
                }
                Dim::Affine { .. } => return None,
            };
            period = crate::affine::lcm(period, p)?;
        }
    }
    let overlap = |a: Interval, b: Interval| a.lo <= b.hi && b.lo <= a.hi;
    // A table holds `MAX_TABULATED_ITERATIONS` iterations: one period plus every near distance.
    if period + NEAR > MAX_TABULATED_ITERATIONS {
        return None;
    }
    Some(near_by_one(|d| {
        (range.lo..range.lo + period).any(|i| {
            a.dims.iter().zip(&b.dims).enumerate().all(|(k, (x, y))| {
                overlap(
                    value_at(*x, a.tables.get(k).and_then(Option::as_ref), i, range),
                    value_at(*y, b.tables.get(k).and_then(Option::as_ref), i + d, range),
                )
            })
        })
    }))
}

/// Under a symbolic extent, the first iteration of the later access `b` (counted from the
/// range's start) at which it may meet `a` at distance `d`: `d` (its first) unless an index is
/// tabulated (`min(i + 1, 7)` against `min(i, 7)` meet only once both clamp, at i ≥ 7). Every
/// iteration before the answer was tried and provably meets nothing; when the tabulated
/// iterations all miss, the answer is their count.
pub fn first_meeting(a: &UnitAccess, b: &UnitAccess, d: i64, range: IterationRange) -> i64 {
    let tabulated = a.tables.iter().chain(&b.tables).any(Option::is_some);
    if range.is_known() || !tabulated || a.dims.len() != b.dims.len() {
        return d;
    }
    let overlap = |a: Interval, b: Interval| a.lo <= b.hi && b.lo <= a.hi;
    let meets = |j: i64| {
        a.dims.iter().zip(&b.dims).enumerate().all(|(k, (x, y))| {
            let (tx, ty) = (
                a.tables.get(k).and_then(Option::as_ref),
                b.tables.get(k).and_then(Option::as_ref),
            );
            overlap(
                value_at(*x, tx, range.lo + j - d, range),
                value_at(*y, ty, range.lo + j, range),
            )
        })
    };
    (d.max(0)..MAX_TABULATED_ITERATIONS)
        .find(|&j| meets(j))
        .unwrap_or(MAX_TABULATED_ITERATIONS)
}

/// The values one dimension may take at iteration `i`.
fn value_at(dim: Dim, table: Option<&Vec<Interval>>, i: i64, range: IterationRange) -> Interval {
    if let Some(t) = table {
        let k = usize::try_from(i - range.lo).unwrap_or(usize::MAX);
        return t.get(k).copied().unwrap_or(Interval::ALL);
    }
    match dim {
        Dim::Affine { coef, rest } if rest.is_bounded() => {
            let base = coef.saturating_mul(i);
            Interval {
                lo: base.saturating_add(rest.lo),
                hi: base.saturating_add(rest.hi),
            }
        }
        Dim::Periodic {
            coef,
            rest,
            modulus,
        } if rest.is_bounded() && rest.hi - rest.lo < modulus => {
            let base = coef.saturating_mul(i);
            let (a, b) = (
                crate::ir::floor_mod(base.saturating_add(rest.lo), modulus).unwrap_or(0),
                crate::ir::floor_mod(base.saturating_add(rest.hi), modulus).unwrap_or(0),
            );
            if a <= b {
                Interval { lo: a, hi: b }
            } else {
                Interval {
                    lo: 0,
                    hi: modulus - 1,
                }
            }
        }
        Dim::Periodic { modulus, .. } => Interval {
            lo: 0,
            hi: modulus - 1,
        },
        Dim::Unknown { values } => values,
        Dim::Affine { .. } => Interval::ALL,
    }
}

/// Distances decided iteration by iteration, for a dimension at least one side of which is a table
/// (the range is then known and short).
fn tabulated_distances(
    x: (Dim, Option<&Vec<Interval>>),
    y: (Dim, Option<&Vec<Interval>>),
    range: IterationRange,
) -> Distances {
    let overlap = |a: Interval, b: Interval| a.lo <= b.hi && b.lo <= a.hi;
    near_by_one(|d| {
        (range.lo..=range.hi.saturating_sub(d)).any(|i| {
            overlap(
                value_at(x.0, x.1, i, range),
                value_at(y.0, y.1, i + d, range),
            )
        })
    })
}

/// The distances at which one dimension of two accesses may agree.
fn dim_distances(x: Dim, y: Dim, range: IterationRange) -> Distances {
    match (x, y) {
        (Dim::Affine { coef: c1, rest: r1 }, Dim::Affine { coef: c2, rest: r2 }) => {
            if c1 == c2 {
                let (lo, hi) = equal_coefficients(c1, r1, r2);
                Distances::between(lo, hi)
            } else if !r1.is_bounded() || !r2.is_bounded() {
                Distances::ALL
            } else {
                // c1·i + X = c2·(i + d) + Y  ⇔  (c1 − c2)·i − c2·d ∈ [Y − X].
                let target = Interval {
                    lo: r2.lo - r1.hi,
                    hi: r2.hi - r1.lo,
                };
                near_by_one(|d| {
                    let is = range.of_earlier(d);
                    if is.lo > is.hi {
                        return false;
                    }
                    let lhs = scale(is, c1 - c2);
                    let lhs = Interval {
                        lo: lhs.lo.saturating_sub(c2.saturating_mul(d)),
                        hi: lhs.hi.saturating_sub(c2.saturating_mul(d)),
                    };
                    lhs.lo <= target.hi && target.lo <= lhs.hi
                })
            }
        }
        (
            Dim::Periodic {
                coef: c1,
                rest: r1,
                modulus: m1,
            },
            Dim::Periodic {
                coef: c2,
                rest: r2,
                modulus: m2,
            },
        ) if m1 == m2 && c1 == c2 && r1.is_bounded() && r2.is_bounded() => {
            // (c·i + X) ≡ (c·(i + d) + Y) (mod m)  ⇔  c·d ≡ X − Y (mod m).
            let (lo, hi) = (r1.lo - r2.hi, r1.hi - r2.lo);
            if hi - lo + 1 >= m1 {
                return Distances::ALL;
            }
            near_by_one(|d| {
                let r = crate::ir::floor_mod(c1.saturating_mul(d).saturating_sub(lo), m1);
                r.is_some_and(|r| r <= hi - lo)
            })
        }
        (Dim::Periodic { modulus, .. }, Dim::Affine { coef: 0, rest })
        | (Dim::Affine { coef: 0, rest }, Dim::Periodic { modulus, .. }) => {
            // A ring index stays in [0, m).
            if rest.hi < 0 || rest.lo >= modulus {
                Distances::NONE
            } else {
                Distances::ALL
            }
        }
        // Whatever the distance, values that never overlap never meet.
        (x, y) => {
            let (a, b) = (overall(x, range), overall(y, range));
            if a.hi < b.lo || b.hi < a.lo {
                Distances::NONE
            } else {
                Distances::ALL
            }
        }
    }
}

/// `c·i + X = c·(i + d) + Y` ⇔ `c·d ∈ [X − Y]`: an interval of `d` (empty when lo > hi).
fn equal_coefficients(c: i64, r1: Interval, r2: Interval) -> (i64, i64) {
    const EVERY: (i64, i64) = (0, i64::MAX / 4);
    if c == 0 {
        return if r1.hi < r2.lo || r2.hi < r1.lo {
            (1, 0)
        } else {
            EVERY
        };
    }
    if !r1.is_bounded() || !r2.is_bounded() {
        return EVERY;
    }
    let (low, high) = (r1.lo - r2.hi, r1.hi - r2.lo);
    if c > 0 {
        (div_ceil(low, c), div_floor(high, c))
    } else {
        (div_ceil(high, c), div_floor(low, c))
    }
}

/// The near distances for which `may_meet(d)` holds; every far distance is possible.
fn near_by_one(may_meet: impl Fn(i64) -> bool) -> Distances {
    let mut near = 0u128;
    for d in 0..NEAR {
        if may_meet(d) {
            near |= 1u128 << d;
        }
    }
    Distances {
        near,
        ..Distances::ALL
    }
}

/// `{k · v : v ∈ x}` as an interval.
fn scale(x: Interval, k: i64) -> Interval {
    let (a, b) = (x.lo.saturating_mul(k), x.hi.saturating_mul(k));
    Interval {
        lo: a.min(b),
        hi: a.max(b),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn access(dim: Dim) -> UnitAccess {
        UnitAccess {
            buffer: 0,
            write: false,
            dims: vec![dim],
            tables: Vec::new(),
            periods: Vec::new(),
            unconditional: true,
            covered: vec![true],
            span: Span::default(),
        }
    }

    fn affine(coef: i64, lo: i64, hi: i64) -> UnitAccess {
        access(Dim::Affine {
            coef,
            rest: Interval { lo, hi },
        })
    }

    fn ring(coef: i64, offset: i64, modulus: i64) -> UnitAccess {
        access(Dim::Periodic {
            coef,
            rest: Interval::point(offset),
            modulus,
        })
    }

    fn listed(set: Distances, upto: i64) -> Vec<i64> {
        (0..=upto).filter(|&d| set.contains(d)).collect()
    }

    const SIXTEEN: IterationRange = IterationRange { lo: 0, hi: 15 };

    #[test]
    fn a_user_written_ring_meets_at_its_offset_modulo_its_size() {
        // S[i % 4] written, S[(i + 3) % 4] read: the read at i + d meets the write at i when
        // d + 3 ≡ 0 (mod 4).
        let set = conflict_distances(&ring(1, 0, 4), &ring(1, 3, 4), SIXTEEN);
        assert_eq!(listed(set, 15), vec![1, 5, 9, 13]);
        // The other way round: the write at i + d meets the read at i when d ≡ 3 (mod 4).
        let set = conflict_distances(&ring(1, 3, 4), &ring(1, 0, 4), SIXTEEN);
        assert_eq!(listed(set, 15), vec![3, 7, 11, 15]);
    }

    #[test]
    fn different_coefficients_meet_only_where_the_iterations_allow() {
        // S1[i] written at i, S1[0] read at i + d: they meet when i = 0, at every distance.
        let set = conflict_distances(&affine(1, 0, 0), &affine(0, 0, 0), SIXTEEN);
        assert_eq!(listed(set, 20), (0..=15).collect::<Vec<_>>());
        // S1[0] read at i, S1[i] written at i + d ≥ 1: i + d = 0 never holds for i ≥ 0.
        let set = conflict_distances(&affine(0, 0, 0), &affine(1, 0, 0), SIXTEEN);
        assert_eq!(listed(set, 20), vec![0]);
    }

    #[test]
    fn a_tabulated_index_is_decided_per_iteration() {
        // S[i // 2] written at i, read as S[i // 2] at i + d: they meet at d = 0 and 1 only.
        let halves: Vec<Interval> = (0..16).map(|i| Interval::point(i / 2)).collect();
        let mut a = access(Dim::Unknown {
            values: Interval { lo: 0, hi: 7 },
        });
        a.tables = vec![Some(halves)];
        let set = conflict_distances(&a, &a, SIXTEEN);
        assert_eq!(listed(set, 20), vec![0, 1]);
    }

    #[test]
    fn clamped_indices_meet_from_the_iteration_both_clamp_under_a_symbolic_extent() {
        let symbolic = IterationRange {
            lo: 0,
            hi: Interval::ALL.hi,
        };
        let clamped = |offset: i64| {
            let mut a = access(Dim::Unknown {
                values: Interval { lo: 0, hi: 7 },
            });
            let table = (0..MAX_TABULATED_ITERATIONS)
                .map(|i| Interval::point((i + offset).min(7)))
                .collect();
            a.tables = vec![Some(table)];
            a
        };
        // S[min(i, 7)] read at i, S[min(i + 1, 7)] written at i + 1: min(i, 7) = min(i + 2, 7)
        // once i ≥ 7, so the write first meets a read at iteration 8.
        assert_eq!(first_meeting(&clamped(0), &clamped(1), 1, symbolic), 8);
        // S[min(i + 1, 7)] written at i, read as S[min(i, 7)] at i + 1: from the start.
        assert_eq!(first_meeting(&clamped(1), &clamped(0), 1, symbolic), 1);
        // A constant extent decides distances iteration by iteration already.
        assert_eq!(first_meeting(&clamped(0), &clamped(1), 1, SIXTEEN), 1);
    }

    #[test]
    fn distances_never_exceed_the_iterations() {
        let set = conflict_distances(&affine(0, 0, 0), &affine(0, 0, 0), SIXTEEN);
        assert_eq!(set.last(), Some(15));
        assert!(!set.contains(16));
    }

    #[test]
    fn first_distance_respects_the_period() {
        let set = Distances::between(3, 300);
        assert_eq!(set.first(0, 1), Some(3));
        assert_eq!(set.first(0, 4), Some(4));
        assert_eq!(set.first(130, 7), Some(133));
        assert_eq!(Distances::between(200, 300).first(0, 64), Some(256));
        assert_eq!(Distances::NONE.first(0, 1), None);
    }
}
