//! Needs decided iteration by iteration under a constant extent. The dependence analysis gives
//! each need the shortest distance at which its accesses may meet; where its intervals are
//! conservative (`%`, `//`, conditions) that distance may be one at which they never meet, or
//! meet only at some iterations. Enumerating the elements every iteration of the two units
//! touches (`instances::touches_by_iteration`, within its budget and `limits::MAX_NEED_STEPS`)
//! says, for each consumer iteration, the newest producer iteration it really meets — so each
//! wait forces a group some instance of its consumer needs. Past the budget the analysis'
//! distance stands (safe, perhaps loose).

use super::{Group, Need};
use crate::instances::{touches_by_iteration, Touch};
use crate::schedule::DepKind;
use crate::shape::LoopShape;
use std::collections::HashMap;

/// A need as the enumeration found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactNeed {
    /// At consumer iteration `j` (index `j − lo`), the shortest distance at which it meets the
    /// producer, or `None` where it meets none of its instances.
    pub by_iteration: Vec<Option<i64>>,
    /// The shortest distance over the iterations a body step runs the consumer at, or `None`
    /// where no body step needs the producer.
    pub body: Option<i64>,
    /// The smallest `k` for which moving the body's last `k` iterations into the epilogue (every
    /// stage shifted up by `k`) changes what a step waits for: a peeled iteration meets the
    /// producer at another distance than `body`, or the iterations left do not need `body`
    /// (`SyncPlan::shift_changes_waits_from`). `None` when no shift does.
    pub shift_that_matters: Option<i64>,
}

/// Each need's iterations decided by enumeration, under a constant extent: a need that meets its
/// producer at no iteration is dropped, the others keep their shortest distance in
/// `Need::distance` and the rest in `Need::exact`. Needs that cannot be enumerated are left as
/// they are. Returns, per unit, whether it runs an instance at each iteration (`None` where not
/// enumerated).
pub(super) fn refine(
    program: &crate::ir::Program,
    p: &LoopShape,
    needs: &mut Vec<Need>,
) -> Vec<Option<Vec<bool>>> {
    let units = &p.sched.units;
    let Some(extent) = p.sched.extent.as_const() else {
        super::periodic::refine(program, p, needs);
        return vec![None; units.len()];
    };
    // Needs of boxes moving with the iteration are decided at every iteration by the analysis
    // already (`uniform.rs`); a unit is enumerated once (the needs borrow it) when some other
    // need is over it, or when it is asynchronous and may not run at every iteration
    // (`newest_nonempty` reads which iterations each runs at).
    let decided: Vec<bool> = needs
        .iter()
        .map(|n| super::uniform::decided_everywhere(n, units, p.sched.var))
        .collect();
    let always: Vec<bool> = units.iter().map(super::uniform::always_runs).collect();
    let touches: Vec<Option<Vec<Vec<Touch>>>> = units
        .iter()
        .enumerate()
        .map(|(pos, unit)| {
            let wanted = needs
                .iter()
                .zip(&decided)
                .any(|(n, &d)| !d && (n.producer == pos || n.consumer == pos))
                || (unit.is_async && !always.get(pos).copied().unwrap_or(false));
            (wanted && unit.inner.is_none())
                .then(|| touches_by_iteration(program, &p.sched, unit))
                .flatten()
        })
        .collect();
    let of = |pos: usize| touches.get(pos).and_then(Option::as_deref);
    let mut steps = crate::limits::MAX_NEED_STEPS;
    let body_iterations = |stage: i64| (p.stages() - stage, extent - 1 - stage);
    let mut index = 0;
    needs.retain_mut(|n| {
        let is_decided = decided.get(index).copied().unwrap_or(false);
        index += 1;
        let by_iteration = if is_decided {
            // Met at its distance at every iteration from it on.
            (0..extent)
                .map(|j| (j >= n.distance).then_some(n.distance))
                .collect()
        } else {
            let (Some(producer), Some(consumer)) = (of(n.producer), of(n.consumer)) else {
                return true;
            };
            let same_iteration = units
                .get(n.producer)
                .zip(units.get(n.consumer))
                .is_some_and(|(a, b)| a.pos < b.pos);
            let Some(by_iteration) = meetings(
                n,
                producer,
                consumer,
                p.versions_of(n.buffer).max(1),
                same_iteration,
                &mut steps,
            ) else {
                return true;
            };
            by_iteration
        };
        let Some(distance) = by_iteration.iter().flatten().min().copied() else {
            return false;
        };
        let stage = units.get(n.consumer).map_or(0, |u| u.stage);
        let (lo, hi) = body_iterations(stage);
        let mut exact = ExactNeed {
            by_iteration,
            body: None,
            shift_that_matters: None,
        };
        exact.body = (lo.max(0)..=hi).filter_map(|j| exact.at(j)).min();
        exact.shift_that_matters = exact.shift_that_matters(lo.max(0), hi);
        n.distance = distance;
        n.exact = Some(exact);
        true
    });
    touches
        .iter()
        .zip(&always)
        .map(|(t, &always)| match t {
            Some(t) => Some(t.iter().map(|t| !t.is_empty()).collect()),
            None => always.then(|| vec![true; usize::try_from(extent).unwrap_or(0)]),
        })
        .collect()
}

/// For each consumer iteration, the shortest distance `d` (a multiple of the buffer's
/// `versions`, its ring) at which the producer's instance of iteration `j − d` touches an element
/// the consumer's touches at `j`, as `n.kind` says (a write then a read, a read then a write,
/// two writes); distance 0 only when the producer comes first in the loop (`same_iteration`).
/// `None` past the budget of `steps`.
pub(super) fn meetings(
    n: &Need,
    producer: &[Vec<Touch>],
    consumer: &[Vec<Touch>],
    versions: i64,
    same_iteration: bool,
    steps: &mut usize,
) -> Option<Vec<Option<i64>>> {
    let (producer_writes, consumer_writes) = match n.kind {
        DepKind::Raw => (true, false),
        DepKind::War => (false, true),
        DepKind::Waw => (true, true),
    };
    // The iterations at which the producer touches each element of the buffer, ascending.
    let mut at: HashMap<&[i64], Vec<i64>> = HashMap::new();
    for (j, touches) in (0i64..).zip(producer) {
        for ((buffer, element), write) in touches {
            if *buffer == n.buffer && *write == producer_writes {
                let list = at.entry(element.as_slice()).or_default();
                if list.last() != Some(&j) {
                    list.push(j);
                }
            }
        }
    }
    let mut out = Vec::with_capacity(consumer.len());
    for (j, touches) in (0i64..).zip(consumer) {
        let mut best: Option<i64> = None;
        for ((buffer, element), write) in touches {
            if *buffer != n.buffer || *write != consumer_writes {
                continue;
            }
            let Some(list) = at.get(element.as_slice()) else {
                continue;
            };
            let newest = if same_iteration { j } else { j - 1 };
            let end = list.partition_point(|&i| i <= newest);
            for &i in list.get(..end).unwrap_or_default().iter().rev() {
                *steps = steps.checked_sub(1)?;
                let d = j - i;
                if best.is_some_and(|b| d >= b) {
                    break;
                }
                if d % versions == 0 {
                    best = Some(d);
                    break;
                }
            }
        }
        out.push(best);
    }
    Some(out)
}

impl ExactNeed {
    /// `shift_that_matters` for a body running iterations `lo ..= hi`.
    fn shift_that_matters(&self, lo: i64, hi: i64) -> Option<i64> {
        // The shortest distance over `lo ..= m`, for each `m` (the body left after a shift).
        let mut shortest = Vec::with_capacity(usize::try_from(hi - lo + 1).unwrap_or(0));
        let mut so_far: Option<i64> = None;
        for j in lo..=hi {
            so_far = match (so_far, self.at(j)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            shortest.push(so_far);
        }
        (1..=hi - lo + 1).find(|&k| {
            let left = usize::try_from(hi - k - lo)
                .ok()
                .and_then(|m| shortest.get(m).copied())
                .flatten();
            self.at(hi - k + 1) != self.body || left != self.body
        })
    }

    /// The shortest distance at which the consumer's iteration `j` meets the producer.
    pub fn at(&self, j: i64) -> Option<i64> {
        self.by_iteration
            .get(usize::try_from(j).ok()?)
            .copied()
            .flatten()
    }
}

/// The newest group of queue `q` (`g` a step, group `g·j + k` being slot `k` of iteration `j`)
/// after group `covered` in which some statement instance runs, under a constant `extent`:
/// `Some(None)` when every such group is empty, `None` when some unit of the queue was not
/// enumerated.
pub(super) fn newest_nonempty(
    groups: &[Group],
    runs: &[Option<Vec<bool>>],
    q: i64,
    g: i64,
    extent: i64,
    covered: i64,
) -> Option<Option<i64>> {
    let mut group = g.checked_mul(extent)? - 1;
    while group > covered.max(-1) {
        let (j, slot) = (group / g.max(1), group % g.max(1));
        for gr in groups
            .iter()
            .filter(|gr| gr.queue == q && i64::from(gr.slot) == slot)
        {
            for &u in &gr.units {
                let at = runs.get(u)?.as_ref()?;
                if at.get(usize::try_from(j).ok()?).copied()? {
                    return Some(Some(group));
                }
            }
        }
        group -= 1;
    }
    Some(None)
}
