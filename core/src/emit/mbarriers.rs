//! Hopper replaces group counts with barriers: every commit group that issues bulk copies arrives on
//! one `mbarrier` of its queue's ring of slots, and a wait completes, oldest first, the barriers of
//! the groups it needs. This file plans that mapping from the flattened program:
//!
//! - which groups carry a barrier ("barrier groups": those with at least one bulk copy; a group of
//!   synchronous statements only has nothing to wait for and touches no barrier);
//! - for every wait, how many barrier groups it may leave in flight (`wait(q, N)` leaves the N most
//!   recent groups of q, of which some may be empty) — the smallest number over all its instances,
//!   found by walking back the instruction stream exactly as the AMDGPU `vmcnt` conversion does;
//! - how many slots each queue needs: group g uses slot g mod K, and a slot may be armed again only
//!   after every thread has awaited its previous group, so K = most barrier groups ever committed and
//!   not yet awaited when a new one opens, plus one.
//!
//! The body loop is not unrolled: the state entering iteration t follows in closed form from the
//! state entering iteration 0, because every iteration commits the same groups and each wait's target
//! (committed − kept) only grows with t.

use super::{is_async_copy, Item};
use crate::ir::Program;
use std::collections::BTreeMap;

/// Barrier groups of one queue committed, and awaited by every thread, at a program point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct QueueState {
    pub committed: i64,
    pub awaited: i64,
}

impl QueueState {
    pub fn in_flight(self) -> i64 {
        self.committed - self.awaited
    }
}

pub(crate) struct Plan {
    /// Ring slots (barriers) per queue that has barrier groups.
    pub slots: BTreeMap<i64, i64>,
    /// Per wait (numbered in program order, the body once): barrier groups it leaves in flight.
    pub keep: Vec<i64>,
    /// Waits whose instances differ, so one count serves them all at the cost of some overlap.
    pub loose: Vec<bool>,
    /// Per queue: the state after the body loop (the emitter tracks the rest itself).
    pub after_loop: BTreeMap<i64, QueueState>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ev {
    Open { queue: i64, barrier: bool },
    Commit { queue: i64, barrier: bool },
    Wait { site: usize, queue: i64, count: i64 },
}

/// A bulk copy: an asynchronous global→shared copy inside a commit scope.
pub(crate) fn is_bulk_copy(program: &Program, s: &super::Stmt) -> bool {
    s.queue.is_some() && is_async_copy(program, s).is_some()
}

/// Events of a straight item list (no loop inside), waits numbered from `site`.
fn events(program: &Program, items: &[Item], site: &mut usize, out: &mut Vec<Ev>) {
    // Open events are patched with their group's barrier flag when the scope closes.
    let mut open: Vec<(usize, bool)> = Vec::new();
    for it in items {
        match it {
            Item::Open(q) => {
                open.push((out.len(), false));
                out.push(Ev::Open {
                    queue: *q,
                    barrier: false,
                });
            }
            Item::Stmt(s) => {
                if is_bulk_copy(program, s) {
                    if let Some(top) = open.last_mut() {
                        top.1 = true;
                    }
                }
            }
            Item::Commit(q) => {
                let barrier = open.pop().is_some_and(|(at, barrier)| {
                    if let Some(Ev::Open { barrier: b, .. }) = out.get_mut(at) {
                        *b = barrier;
                    }
                    barrier
                });
                out.push(Ev::Commit { queue: *q, barrier });
            }
            Item::Wait { queue, count, .. } => {
                out.push(Ev::Wait {
                    site: *site,
                    queue: *queue,
                    count: *count,
                });
                *site += 1;
            }
            Item::Loop { .. } | Item::Barrier(_) => {}
        }
    }
}

/// The top level of a flattened program: what runs before the body loop, the loop, what runs after.
struct Sections<'a> {
    pub before: &'a [Item],
    /// The body loop's items and its trip count.
    pub body: Option<(&'a [Item], i64)>,
    pub after: &'a [Item],
}

fn sections(items: &[Item]) -> Sections<'_> {
    let Some(at) = items.iter().position(|i| matches!(i, Item::Loop { .. })) else {
        return Sections {
            before: items,
            body: None,
            after: &[],
        };
    };
    Sections {
        before: items.get(..at).unwrap_or(&[]),
        body: match items.get(at) {
            Some(Item::Loop { lo, hi, body, .. }) => Some((body.as_slice(), (hi - lo).max(0))),
            _ => None,
        },
        after: items.get(at + 1..).unwrap_or(&[]),
    }
}

/// Barrier groups among the `count` most recent groups of `queue` before `pos` (all of them when
/// fewer were committed).
fn kept_barrier_groups(stream: &[Ev], pos: usize, queue: i64, count: i64) -> i64 {
    let mut seen = 0;
    let mut kept = 0;
    for e in stream.get(..pos).unwrap_or(&[]).iter().rev() {
        if seen >= count {
            break;
        }
        if let Ev::Commit { queue: q, barrier } = e {
            if *q == queue {
                seen += 1;
                kept += i64::from(*barrier);
            }
        }
    }
    kept
}

struct Sim<'a> {
    keep: &'a [i64],
    state: BTreeMap<i64, QueueState>,
    slots: BTreeMap<i64, i64>,
}

impl Sim<'_> {
    fn run(&mut self, evs: &[Ev]) {
        for e in evs {
            match *e {
                Ev::Open {
                    queue,
                    barrier: true,
                } => {
                    let s = self.state.entry(queue).or_default();
                    let need = s.in_flight() + 1;
                    let k = self.slots.entry(queue).or_insert(1);
                    *k = (*k).max(need);
                }
                Ev::Commit {
                    queue,
                    barrier: true,
                } => self.state.entry(queue).or_default().committed += 1,
                Ev::Wait { site, queue, .. } => {
                    let keep = self.keep.get(site).copied().unwrap_or(0);
                    let s = self.state.entry(queue).or_default();
                    s.awaited = s.awaited.max(s.committed - keep);
                }
                _ => {}
            }
        }
    }
}

/// The state entering body iteration `t`, from the state entering iteration 0.
fn iteration_entry(
    entry: &BTreeMap<i64, QueueState>,
    body: &[Ev],
    keep: &[i64],
    t: i64,
) -> BTreeMap<i64, QueueState> {
    let mut out = entry.clone();
    let mut per_iteration: BTreeMap<i64, i64> = BTreeMap::new();
    // Barrier commits of each queue before each wait of the body, within one iteration.
    let mut targets: Vec<(i64, i64)> = Vec::new();
    for e in body {
        match *e {
            Ev::Commit {
                queue,
                barrier: true,
            } => *per_iteration.entry(queue).or_default() += 1,
            Ev::Wait { site, queue, .. } => {
                let before = per_iteration.get(&queue).copied().unwrap_or(0);
                targets.push((queue, before - keep.get(site).copied().unwrap_or(0)));
            }
            _ => {}
        }
    }
    for (q, g) in &per_iteration {
        out.entry(*q).or_default().committed += g * t;
    }
    if t > 0 {
        // Targets only grow with the iteration, so the last iteration's are the largest.
        for (q, offset) in targets {
            let start = entry.get(&q).copied().unwrap_or_default().committed
                + (t - 1) * per_iteration.get(&q).copied().unwrap_or(0);
            let s = out.entry(q).or_default();
            s.awaited = s.awaited.max(start + offset);
        }
    }
    out
}

pub(crate) fn plan(program: &Program, items: &[Item]) -> Plan {
    let parts = sections(items);
    let mut site = 0;
    let (mut pre_ev, mut body_ev, mut post_ev) = (Vec::new(), Vec::new(), Vec::new());
    events(program, parts.before, &mut site, &mut pre_ev);
    let trip = parts.body.map_or(0, |(b, trip)| {
        events(program, b, &mut site, &mut body_ev);
        trip
    });
    events(program, parts.after, &mut site, &mut post_ev);
    plan_events(&pre_ev, &body_ev, trip, &post_ev, site)
}

fn plan_events(pre_ev: &[Ev], body_ev: &[Ev], trip: i64, post_ev: &[Ev], sites: usize) -> Plan {
    // Kept counts: every instance in a stream with enough body iterations that the last one's walk
    // back never reaches the prologue (when its queue commits in the body at all).
    let deepest = pre_ev
        .iter()
        .chain(body_ev)
        .chain(post_ev)
        .filter_map(|e| match e {
            Ev::Wait { count, .. } => Some(*count),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let copies = trip.min(deepest + 2);
    let mut stream = pre_ev.to_vec();
    for _ in 0..copies {
        stream.extend_from_slice(body_ev);
    }
    stream.extend_from_slice(post_ev);
    let mut keep: Vec<Option<i64>> = vec![None; sites];
    let mut loose = vec![false; sites];
    for (pos, e) in stream.iter().enumerate() {
        if let Ev::Wait { site, queue, count } = *e {
            let k = kept_barrier_groups(&stream, pos, queue, count);
            if let Some(slot) = keep.get_mut(site) {
                if slot.is_some_and(|old| old != k) {
                    if let Some(l) = loose.get_mut(site) {
                        *l = true;
                    }
                }
                *slot = Some(slot.map_or(k, |old| old.min(k)));
            }
        }
    }
    let keep: Vec<i64> = keep.into_iter().map(|k| k.unwrap_or(0)).collect();

    // Slots: the in-flight count at an open never shrinks from one iteration to the next, so the
    // first two and the last two iterations hold every maximum.
    let mut sim = Sim {
        keep: &keep,
        state: BTreeMap::new(),
        slots: BTreeMap::new(),
    };
    sim.run(pre_ev);
    let before_loop = sim.state.clone();
    let mut iterations: Vec<i64> = [0, 1, trip - 2, trip - 1]
        .into_iter()
        .filter(|t| (0..trip).contains(t))
        .collect();
    iterations.sort_unstable();
    iterations.dedup();
    for t in iterations {
        sim.state = iteration_entry(&before_loop, body_ev, &keep, t);
        sim.run(body_ev);
    }
    let after_loop = iteration_entry(&before_loop, body_ev, &keep, trip);
    sim.state = after_loop.clone();
    sim.run(post_ev);
    // A body loop that runs no iteration still names its queues' barriers and registers: one
    // slot each, so the kernel declares them (found by the machine verifier: `%cq0` undeclared
    // with a symbolic extent bound to 0).
    for e in body_ev {
        if let Ev::Open {
            queue,
            barrier: true,
        } = *e
        {
            sim.slots.entry(queue).or_insert(1);
        }
    }
    Plan {
        slots: sim.slots,
        keep,
        loose,
        after_loop,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn state(committed: i64, awaited: i64) -> QueueState {
        QueueState { committed, awaited }
    }

    fn open(queue: i64) -> Ev {
        Ev::Open {
            queue,
            barrier: true,
        }
    }

    fn commit(queue: i64, barrier: bool) -> Ev {
        Ev::Commit { queue, barrier }
    }

    fn wait(queue: i64, count: i64) -> Ev {
        Ev::Wait {
            site: 0,
            queue,
            count,
        }
    }

    /// RFC (a): one group in the prologue, then per iteration a group and `wait(0, 1)`.
    #[test]
    fn closed_form_matches_stepping_iterations() {
        let body = [open(0), commit(0, true), wait(0, 1)];
        let keep = [1];
        let entry: BTreeMap<i64, QueueState> = [(0, state(1, 0))].into();
        let mut sim = Sim {
            keep: &keep,
            state: entry.clone(),
            slots: BTreeMap::new(),
        };
        for t in 0..6 {
            assert_eq!(
                sim.state,
                iteration_entry(&entry, &body, &keep, t),
                "t = {t}"
            );
            sim.run(&body);
        }
        assert_eq!(sim.slots[&0], 2, "one group in flight while the next opens");
    }

    #[test]
    fn a_queue_never_awaited_in_the_body_needs_a_slot_per_iteration() {
        let body = [open(1), commit(1, true)];
        let after = iteration_entry(&BTreeMap::new(), &body, &[], 5);
        assert_eq!(after[&1], state(5, 0));
    }

    /// Random event programs: the plan, which never unrolls the body, against a full unroll.
    /// Every instance of every wait must await at least the barrier groups its `wait(q, N)`
    /// requires, the slot counts must be exactly the largest in-flight count at an open plus one,
    /// and the state after the loop must be the unrolled one.
    #[test]
    fn the_plan_is_safe_and_exact_against_a_full_unroll() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let group = (0i64..2, any::<bool>());
        let ev = prop_oneof![
            group.prop_map(|(queue, barrier)| vec![
                Ev::Open { queue, barrier },
                Ev::Commit { queue, barrier }
            ]),
            (0i64..2, 0i64..4).prop_map(|(queue, count)| vec![Ev::Wait {
                site: 0,
                queue,
                count
            }]),
        ];
        let section = proptest::collection::vec(ev, 0..5).prop_map(|v| v.concat());
        let mut runner = TestRunner::new(Config::with_cases(3000));
        runner
            .run(
                &(section.clone(), section.clone(), 0i64..12, section),
                |(mut pre, mut body, trip, mut post)| {
                    let mut sites = 0;
                    for e in pre.iter_mut().chain(&mut body).chain(&mut post) {
                        if let Ev::Wait { site, .. } = e {
                            *site = sites;
                            sites += 1;
                        }
                    }
                    let plan = plan_events(&pre, &body, trip, &post, sites);
                    let mut unrolled = pre.clone();
                    for _ in 0..trip {
                        unrolled.extend_from_slice(&body);
                    }
                    unrolled.extend_from_slice(&post);
                    let mut exact = Sim {
                        keep: &plan.keep,
                        state: BTreeMap::new(),
                        slots: BTreeMap::new(),
                    };
                    for (pos, e) in unrolled.iter().enumerate() {
                        if let Ev::Wait { site, queue, count } = *e {
                            let kept = kept_barrier_groups(&unrolled, pos, queue, count);
                            prop_assert!(plan.keep[site] <= kept, "wait {site} keeps too many");
                        }
                        if pos == pre.len() + body.len() * trip as usize {
                            let after: BTreeMap<i64, QueueState> = exact
                                .state
                                .iter()
                                .filter(|(_, s)| **s != QueueState::default())
                                .map(|(q, s)| (*q, *s))
                                .collect();
                            let planned: BTreeMap<i64, QueueState> = plan
                                .after_loop
                                .iter()
                                .filter(|(_, s)| **s != QueueState::default())
                                .map(|(q, s)| (*q, *s))
                                .collect();
                            prop_assert_eq!(after, planned);
                        }
                        exact.run(std::slice::from_ref(e));
                    }
                    // A body that runs no iteration still declares one slot per barrier queue
                    // it names (`plan_events`): the kernel text names those barriers.
                    for e in &body {
                        if let Ev::Open {
                            queue,
                            barrier: true,
                        } = *e
                        {
                            exact.slots.entry(queue).or_insert(1);
                        }
                    }
                    prop_assert_eq!(&exact.slots, &plan.slots);
                    Ok(())
                },
            )
            .unwrap();
    }

    #[test]
    fn empty_groups_are_not_counted_in_what_a_wait_keeps() {
        let stream = [
            commit(0, true),
            commit(0, false),
            commit(0, true),
            wait(0, 2),
        ];
        assert_eq!(kept_barrier_groups(&stream, 3, 0, 2), 1);
        assert_eq!(kept_barrier_groups(&stream, 3, 0, 3), 2);
        assert_eq!(kept_barrier_groups(&stream, 3, 0, 0), 0);
    }
}
