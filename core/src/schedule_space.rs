//! The annotations a loop may be given, one at a time: a stage per unit below `max_stages`, an
//! order (a permutation of the units: only the order of a step matters), and a set of the stages
//! used that are asynchronous. Resumable, so that a search runs it in slices.
//!
//! Pruned (the search's space) it leaves out, for reasons that hold for every loop:
//! - stages whose smallest is not 0 (the same pipeline shifted: it only adds empty steps);
//! - stages and orders that reverse a dependence within one iteration (a writer and a reader of
//!   the same iteration: the transform refuses them whatever the versions);
//! - with `with_sync_only`, async sets that make a unit asynchronous that cannot be (the
//!   transform refuses them whatever the stages and orders).
//!
//! For the tests' brute force (`brute_force`) it leaves out only the second kind, which the
//! transform refuses; `everything` lists every stage vector, every permutation and every subset
//! of the stages used. The tests check that the search's front over the pruned space equals the
//! brute force's, and that what the brute force leaves out the transform refuses.

use crate::annotation_text::Annotations;

/// The space of one loop's annotations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Space {
    units: usize,
    max_stages: i64,
    /// Dependences within one iteration: `(from, to)` with `from` before `to` in the loop.
    forward: Vec<(usize, usize)>,
    /// Only stages whose smallest is 0.
    shifted_out: bool,
    /// Units that may not be asynchronous (`with_sync_only`): async sets that make one of them
    /// asynchronous are left out.
    sync_only: Vec<bool>,
    /// The walk's allowed stage vectors, each as its rank in the walk (the vector read in base
    /// `max_stages`), ascending — what `progress` counts, so that a search's bar moves evenly over
    /// the vectors it tries, not over the many the dependences rule out. Empty when there are more
    /// vectors than `MAX_COUNTED_VECTORS`.
    allowed: Vec<u64>,
}

/// Up to this many stage vectors, `progress` counts the allowed ones; beyond, it counts them all.
const MAX_COUNTED_VECTORS: u64 = 1 << 16;

impl Space {
    /// The pruned space of `units` units, stages below `max_stages`, with these dependences
    /// within one iteration.
    pub fn new(units: usize, max_stages: i64, forward: Vec<(usize, usize)>) -> Space {
        Space {
            units,
            max_stages: max_stages.max(1),
            forward,
            shifted_out: true,
            sync_only: Vec::new(),
            allowed: Vec::new(),
        }
        .counted()
    }

    /// The same space without the async sets that make a unit marked in `sync_only`
    /// asynchronous: a unit that touches an element twice within one iteration cannot be
    /// (its instances join one commit group, whose copies land in no set order), whatever its
    /// stage and order, and the transform refuses every such schedule.
    pub fn with_sync_only(mut self, sync_only: Vec<bool>) -> Space {
        self.sync_only = sync_only;
        self
    }

    /// Every annotation the transform may accept: every stage vector, and the orders and stages
    /// that keep the dependences within one iteration.
    pub fn brute_force(units: usize, max_stages: i64, forward: Vec<(usize, usize)>) -> Space {
        Space {
            units,
            max_stages: max_stages.max(1),
            forward,
            shifted_out: false,
            sync_only: Vec::new(),
            allowed: Vec::new(),
        }
        .counted()
    }

    /// The space with its allowed stage vectors ranked (`allowed`), when there are few enough.
    fn counted(mut self) -> Space {
        let s = self.max_stages as u64;
        let Some(total) = u32::try_from(self.units)
            .ok()
            .and_then(|n| s.checked_pow(n))
            .filter(|t| *t <= MAX_COUNTED_VECTORS)
        else {
            return self;
        };
        let mut stages = vec![0i64; self.units];
        for rank in 0..total {
            let mut r = rank;
            for x in stages.iter_mut().rev() {
                *x = (r % s) as i64;
                r /= s;
            }
            if self.stages_allowed(&stages) {
                self.allowed.push(rank);
            }
        }
        self
    }

    /// The whole space, nothing left out.
    pub fn everything(units: usize, max_stages: i64) -> Space {
        Space::brute_force(units, max_stages, Vec::new())
    }

    pub fn units(&self) -> usize {
        self.units
    }

    /// How many annotations the unpruned space has: `max_stages^units · units! · 2^stages`, at
    /// most (saturating).
    pub fn size_bound(&self) -> u64 {
        let s = self.max_stages as u64;
        let n = self.units as u32;
        let stages = s.saturating_pow(n);
        let orders = (1..=u64::from(n)).fold(1u64, |a, k| a.saturating_mul(k));
        let asyncs = 1u64 << s.min(63);
        stages.saturating_mul(orders).saturating_mul(asyncs)
    }

    /// How far `c` is through the walk: the allowed stage vectors before its own (the walk's
    /// outermost loop) and how many there are; at the end, all. Past `MAX_COUNTED_VECTORS`, every
    /// vector counts, saturating.
    pub fn progress(&self, c: &Cursor) -> (u64, u64) {
        let s = self.max_stages as u64;
        let rank = c
            .stages
            .iter()
            .fold(0u64, |n, x| n.saturating_mul(s).saturating_add(*x as u64));
        let (walked, total) = if self.allowed.is_empty() {
            (rank, s.saturating_pow(self.units as u32))
        } else {
            let before = self.allowed.partition_point(|r| *r < rank) as u64;
            (before, self.allowed.len() as u64)
        };
        if c.done {
            (total, total)
        } else {
            (walked.min(total), total)
        }
    }

    /// Whether the stages `s` may begin a pipeline of this space.
    fn stages_allowed(&self, s: &[i64]) -> bool {
        (!self.shifted_out || s.iter().min() == Some(&0))
            && self
                .forward
                .iter()
                .all(|&(a, b)| matches!((s.get(a), s.get(b)), (Some(x), Some(y)) if x <= y))
    }

    /// Whether the async set `mask` of the stages `s` leaves every sync-only unit synchronous.
    fn async_allowed(&self, s: &[i64], mask: u64) -> bool {
        if mask == 0 || !self.sync_only.contains(&true) {
            return true;
        }
        let async_stages = async_of(s, mask);
        self.sync_only
            .iter()
            .zip(s)
            .all(|(only, stage)| !only || !async_stages.contains(stage))
    }

    /// Whether the step order `orders` keeps every dependence within one iteration under `s`.
    fn orders_allowed(&self, s: &[i64], orders: &[i64]) -> bool {
        self.forward.iter().all(|&(a, b)| {
            match (s.get(a), s.get(b), orders.get(a), orders.get(b)) {
                (Some(x), Some(y), Some(oa), Some(ob)) => x < y || oa < ob,
                _ => true,
            }
        })
    }

    /// A cursor at the first annotation.
    pub fn start(&self) -> Cursor {
        Cursor {
            stages: vec![0; self.units],
            step_order: (0..self.units).collect(),
            async_mask: 0,
            started: false,
            done: self.units == 0,
        }
    }

    /// The next annotation after `c`'s, `None` at the end. `skip_group` skips the rest of the
    /// orders of the current stages and async set (a bound showed none of them is needed).
    pub fn next(&self, c: &mut Cursor, skip_group: bool) -> Option<Annotations> {
        if c.done {
            return None;
        }
        if !c.started {
            c.started = true;
            if self.stages_allowed(&c.stages) {
                if let Some(a) = self.here_or_next_order(c) {
                    return Some(a);
                }
            }
            return self.advance_group(c);
        }
        if !skip_group && next_permutation(&mut c.step_order) {
            if let Some(a) = self.here_or_next_order(c) {
                return Some(a);
            }
        }
        self.advance_group(c)
    }

    /// The first allowed order from the cursor's on, within its group.
    fn here_or_next_order(&self, c: &mut Cursor) -> Option<Annotations> {
        if !self.async_allowed(&c.stages, c.async_mask) {
            return None;
        }
        loop {
            let orders = orders_of(&c.step_order);
            if self.orders_allowed(&c.stages, &orders) {
                return Some(Annotations {
                    stages: c.stages.clone(),
                    orders,
                    async_stages: async_of(&c.stages, c.async_mask),
                });
            }
            if !next_permutation(&mut c.step_order) {
                return None;
            }
        }
    }

    /// The next group (async set, else stages) with an allowed order.
    fn advance_group(&self, c: &mut Cursor) -> Option<Annotations> {
        loop {
            c.step_order = (0..self.units).collect();
            let used = used_stages(&c.stages);
            c.async_mask += 1;
            if c.async_mask >= 1u64 << used.len().min(63) {
                c.async_mask = 0;
                loop {
                    if !self.next_stages(&mut c.stages) {
                        c.done = true;
                        return None;
                    }
                    if self.stages_allowed(&c.stages) {
                        break;
                    }
                }
            }
            if let Some(a) = self.here_or_next_order(c) {
                return Some(a);
            }
        }
    }

    /// The stage vector after `s`, counting in base `max_stages` (the last unit fastest).
    fn next_stages(&self, s: &mut [i64]) -> bool {
        for x in s.iter_mut().rev() {
            *x += 1;
            if *x < self.max_stages {
                return true;
            }
            *x = 0;
        }
        false
    }
}

/// Where an enumeration is: the stages, the step order (unit positions in step order) and which
/// of the stages used are asynchronous (a bit per stage used, lowest first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    stages: Vec<i64>,
    step_order: Vec<usize>,
    async_mask: u64,
    started: bool,
    done: bool,
}

fn used_stages(stages: &[i64]) -> Vec<i64> {
    let mut used = stages.to_vec();
    used.sort_unstable();
    used.dedup();
    used
}

fn async_of(stages: &[i64], mask: u64) -> Vec<i64> {
    used_stages(stages)
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k < &64 && mask >> k & 1 == 1)
        .map(|(_, s)| s)
        .collect()
}

/// `order` of each unit from the step order (`step_order[k]` runs k-th).
fn orders_of(step_order: &[usize]) -> Vec<i64> {
    let mut orders = vec![0; step_order.len()];
    for (k, &u) in step_order.iter().enumerate() {
        if let Some(o) = orders.get_mut(u) {
            *o = k as i64;
        }
    }
    orders
}

/// The next permutation in lexicographic order; false (and the first again) after the last.
fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    let Some(i) = (1..n).rev().find(|&i| p.get(i - 1) < p.get(i)) else {
        p.reverse();
        return false;
    };
    let pivot = i - 1;
    let Some(j) = (i..n).rev().find(|&j| p.get(j) > p.get(pivot)) else {
        return false;
    };
    p.swap(pivot, j);
    if let Some(tail) = p.get_mut(i..) {
        tail.reverse();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(space: &Space) -> Vec<Annotations> {
        let mut c = space.start();
        std::iter::from_fn(|| space.next(&mut c, false)).collect()
    }

    #[test]
    fn brute_force_lists_every_annotation_once() {
        // 2 units, 2 stages: stage vectors 00 01 10 11, 2 orders each, 2 or 4 async sets.
        let got = all(&Space::everything(2, 2));
        assert_eq!(got.len(), 2 * 2 * 2 + 2 * 2 * 4);
        let mut sorted = got.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), got.len());
    }

    #[test]
    fn pruning_keeps_stage_zero_and_dependences() {
        // 0 → 1 within an iteration: stages 00 (order 01 only), 01 (both orders).
        let got = all(&Space::new(2, 2, vec![(0, 1)]));
        assert!(got.iter().all(|a| a.stages.contains(&0)));
        assert!(got.iter().all(|a| a.stages.first() <= a.stages.get(1)));
        assert_eq!(got.len(), 2 + 2 * 4);
    }

    #[test]
    fn a_sync_only_unit_is_never_asynchronous() {
        // Unit 1 sync-only: stages 00 keep the empty async set only; 01 keeps {} and {0}.
        let got = all(&Space::new(2, 2, vec![(0, 1)]).with_sync_only(vec![false, true]));
        assert!(got.iter().all(|a| {
            let s1 = a.stages.get(1).copied().unwrap_or(0);
            !a.async_stages.contains(&s1)
        }));
        assert_eq!(got.len(), 1 + 2 * 2);
    }
}
