//! Needs and commit groups: every dependence whose first instance is async, the maximal runs of
//! one stage's async units that commit together, and which groups close before each position.

use super::{Group, Need};
use crate::dependence::{first_meeting, MAX_TABULATED_ITERATIONS};
use crate::schedule::DepKind;
use crate::shape::LoopShape;
use std::collections::BTreeMap;

/// Needs: every dependence whose first instance is async. Their slots are known once the groups
/// are (`group`).
pub(super) fn needs_of(p: &LoopShape) -> Vec<Need> {
    let units = &p.sched.units;
    let mut needs = Vec::with_capacity(p.deps.len());
    for d in &p.deps {
        let (Some(from), Some(_)) = (units.get(d.from), units.get(d.to)) else {
            continue;
        };
        if !from.is_async {
            continue;
        }
        let Some(distance) = crate::schedule::first_physical_distance(d, p.versions_of(d.buffer))
        else {
            continue;
        };
        needs.push(Need {
            consumer: d.to,
            producer: d.from,
            queue: from.stage,
            // Known once the groups are.
            slot: 0,
            distance,
            kind: d.kind,
            buffer: d.buffer,
            starts: starts(p, d),
            exact: None,
            symbolic: None,
        });
    }
    needs
}

/// `Need::starts` of dependence `d`: for each distance its buffer's ring does not separate,
/// shortest first, the first iteration of the consumer at which it may meet its producer there,
/// kept when earlier than every shorter distance's. Empty under a constant extent, whose
/// distances are already decided iteration by iteration, and when the shortest distance meets
/// from the start.
fn starts(p: &LoopShape, d: &crate::schedule::Dependence) -> Vec<(i64, i64)> {
    let range = crate::schedule::iteration_range(&p.sched);
    let units = &p.sched.units;
    let (Some(a), Some(b)) = (units.get(d.from), units.get(d.to)) else {
        return Vec::new();
    };
    let tabulated = |u: &crate::schedule::Unit| {
        u.accesses
            .iter()
            .any(|x| x.buffer == d.buffer && x.tables.iter().any(Option::is_some))
    };
    if range.is_known() || !(tabulated(a) || tabulated(b)) {
        return Vec::new();
    }
    let versions = p.versions_of(d.buffer).max(1);
    let kind_of = |x: bool, y: bool| match (x, y) {
        (true, false) => DepKind::Raw,
        (false, true) => DepKind::War,
        _ => DepKind::Waw,
    };
    let first = |distance: i64| {
        let mut from = MAX_TABULATED_ITERATIONS;
        for x in a.accesses.iter().filter(|x| x.buffer == d.buffer) {
            for y in b.accesses.iter().filter(|y| y.buffer == d.buffer) {
                if (x.write || y.write) && kind_of(x.write, y.write) == d.kind {
                    from = from.min(first_meeting(x, y, distance, range));
                }
            }
        }
        from
    };
    let mut out: Vec<(i64, i64)> = Vec::new();
    let mut next = d.distances.first(0, versions);
    while let Some(distance) = next.filter(|&k| k < MAX_TABULATED_ITERATIONS) {
        let from = first(distance);
        if out.last().is_none_or(|&(_, f)| from < f) {
            out.push((distance, from));
        }
        // No longer distance begins before its own first iteration.
        if out.last().is_some_and(|&(_, f)| f <= distance + 1) {
            break;
        }
        next = d.distances.first(distance + 1, versions);
    }
    if out.first().is_none_or(|&(distance, from)| from <= distance) {
        return Vec::new();
    }
    out
}

/// The commit groups of a step and the group of each unit.
#[derive(Clone)]
pub(super) struct Grouping {
    pub(super) groups: Vec<Group>,
    pub(super) unit_group: Vec<Option<usize>>,
    /// Groups per step for each async queue.
    pub(super) per_step: BTreeMap<i64, u32>,
}

/// Groups from the step order, and each need's slot (the slot of its producer's group).
pub(super) fn group(p: &LoopShape, needs: &mut [Need]) -> Grouping {
    let units = &p.sched.units;
    // A unit closes the open group of q only if it needs an instance issued in this very step
    // (producer stage − consumer stage == distance); older groups are already committed.
    let consumes_this_step = |u: usize, q: i64| {
        let su = units.get(u).map_or(0, |x| x.stage);
        needs
            .iter()
            .any(|n| n.consumer == u && n.queue == q && n.distance == q - su)
    };
    let mut groups: Vec<Group> = Vec::with_capacity(units.iter().filter(|u| u.is_async).count());
    let mut unit_group = vec![None; units.len()];
    let mut per_step: BTreeMap<i64, u32> = BTreeMap::new();
    let mut open: Option<usize> = None;
    for &pos in &p.step_order {
        let Some(u) = units.get(pos) else { continue };
        if let Some(g) = open {
            let q = groups.get(g).map_or(-1, |g| g.queue);
            if !u.is_async || u.stage != q || consumes_this_step(pos, q) {
                open = None;
            }
        }
        if u.is_async {
            let g = match open {
                Some(g) => g,
                None => {
                    let slot = per_step.entry(u.stage).or_insert(0);
                    groups.push(Group {
                        queue: u.stage,
                        slot: *slot,
                        // Most groups have one unit.
                        units: Vec::with_capacity(1),
                    });
                    *slot += 1;
                    groups.len() - 1
                }
            };
            if let Some(gr) = groups.get_mut(g) {
                gr.units.push(pos);
            }
            if let Some(slot) = unit_group.get_mut(pos) {
                *slot = Some(g);
            }
            open = Some(g);
        }
    }
    for n in needs.iter_mut() {
        n.slot = unit_group
            .get(n.producer)
            .copied()
            .flatten()
            .and_then(|g| groups.get(g))
            .map_or(0, |g| g.slot);
    }
    Grouping {
        groups,
        unit_group,
        per_step,
    }
}

/// Groups of each queue closed before each position of the step order, position-major (at
/// `position * queues.len() + queue index`): the planner asks for every unit and queue of every
/// step, too often to search the groups each time.
pub(super) fn closed_before(p: &LoopShape, groups: &[Group], queues: &[i64]) -> Vec<i64> {
    // Position of the last unit of each group in the step order, to know what is closed before a unit.
    let order_index = |pos: usize| p.step_order.iter().position(|&x| x == pos).unwrap_or(0);
    let group_end: Vec<usize> = groups
        .iter()
        .map(|g| g.units.iter().map(|&u| order_index(u)).max().unwrap_or(0))
        .collect();
    let nq = queues.len();
    let mut closed_before = vec![0i64; p.step_order.len() * nq];
    for (g, &end) in groups.iter().zip(&group_end) {
        let Some(qi) = queues.iter().position(|&q| q == g.queue) else {
            continue;
        };
        for row in closed_before.chunks_mut(nq.max(1)).skip(end + 1) {
            if let Some(c) = row.get_mut(qi) {
                *c += 1;
            }
        }
    }
    closed_before
}
