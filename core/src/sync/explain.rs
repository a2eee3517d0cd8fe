//! A wait explained: the head arithmetic of an instance, the newest group it forces complete,
//! and one sentence per symbol. The planner notes the numbers of each instance the page
//! shows ([`Unexplained`]); [`SyncPlan::explain`] writes the text from them, only when the
//! exploration is presented: for a large loop, formatting every instance's text would be a large
//! part of deriving the waits.

use super::{step_number, Group, GroupRef, Need, StepTime, SyncPlan, WaitInstance, T_REP};
use crate::shape::LoopShape;
use std::collections::BTreeMap;

/// An instance to explain, as the planner noted it: what its text needs that its site and the
/// instance itself do not hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Unexplained {
    pub site: u32,
    /// Its index in the site's instances.
    pub instance: usize,
    pub time: StepTime,
    /// Groups its queue has committed before it.
    pub committed: i64,
    /// The distance of its first need at this step, which a need that begins late
    /// (`Need::starts`) may lengthen.
    pub distance: i64,
}

/// A wait instance with the head arithmetic's numbers.
#[derive(Clone, Copy)]
struct WaitAt {
    pub time: StepTime,
    /// The unit it precedes.
    pub pos: usize,
    pub q: i64,
    /// The step it runs at (`T_REP` and after for any step of the body loop).
    pub t: i64,
    /// Groups queue `q` has committed before it.
    pub committed: i64,
    /// The number of the newest group it needs complete.
    pub group: i64,
    pub count: i64,
    /// The first need it covers (an index into the plan's needs): the one its text names.
    pub need: Option<usize>,
    /// That need's distance here (`Unexplained::distance`).
    pub d: i64,
    /// Counts are uniform across steps (a symbolic extent commits empty groups).
    pub uniform: bool,
}

impl SyncPlan {
    /// Writes the explanation of every instance the planner noted (`derive` with `explain`):
    /// its arithmetic, symbols, and the newest group it forces complete.
    pub fn explain(&mut self, p: &LoopShape) {
        let SyncPlan {
            groups,
            per_step,
            needs,
            sites,
            unexplained,
            extent,
            ..
        } = self;
        let why = Explainer {
            p,
            groups,
            needs,
            per_step,
        };
        for noted in unexplained.drain(..) {
            let Some(site) = sites.get_mut(noted.site as usize) else {
                continue;
            };
            let (Some(pos), q) = (site.before, site.queue) else {
                continue;
            };
            let Some(instance) = site.instances.get_mut(noted.instance) else {
                continue;
            };
            // The planner's numbers, from what the plan keeps: `count = committed − group − 1`.
            let at = WaitAt {
                time: noted.time,
                pos,
                q,
                t: step_number(noted.time),
                committed: noted.committed,
                group: noted.committed - instance.count - 1,
                count: instance.count,
                need: instance.needs.first().copied(),
                d: noted.distance,
                uniform: matches!(noted.time, StepTime::Uniform { .. }) || extent.is_none(),
            };
            why.write(&at, instance);
        }
    }
}

struct Explainer<'a> {
    p: &'a LoopShape,
    groups: &'a [Group],
    needs: &'a [Need],
    per_step: &'a BTreeMap<i64, u32>,
}

impl Explainer<'_> {
    fn g(&self, q: i64) -> i64 {
        self.per_step.get(&q).map_or(0, |&g| i64::from(g))
    }

    /// The "why N" of the instance `at`, one sentence per symbol of its arithmetic, with its value
    /// here.
    fn symbols(&self, at: &WaitAt) -> Vec<String> {
        let WaitAt {
            time,
            pos,
            q,
            t,
            committed,
            group,
            count,
            need,
            d,
            ..
        } = *at;
        let Some(n) = need.and_then(|k| self.needs.get(k)) else {
            return Vec::new();
        };
        let g = self.g(q);
        let consumer = self.p.sched.label(pos);
        let producer = self.p.sched.label(n.producer);
        let sc = self.p.sched.units.get(pos).map_or(0, |u| u.stage);
        let j = t - sc;
        let mut out = Vec::with_capacity(8);
        let g_sentence = format!(
            "g = {g}: queue {q} commits {} in every step",
            crate::english::count(g, "group")
        );
        let d_sentence = format!(
            "d = {}: at iteration j the consumer needs what the producer {producer} wrote at iteration j − {}",
            d, d
        );
        let slot_sentence = format!(
            "slot = {}: that data is in group {} of its step's groups of queue {q} (counted from 0)",
            n.slot, n.slot
        );
        let n_sentence = format!(
            "N = {count}: the wait lets the {count} most recently committed group{} of queue {q} stay in flight and completes every older one",
            if count == 1 { "" } else { "s" }
        );
        match time {
            StepTime::Uniform { epilogue_offset } => {
                out.push(g_sentence);
                out.push(format!("s_consumer = {sc}: {consumer} runs in stage {sc}"));
                out.push(format!(
                    "s_producer = {q}: queue {q} is stage {q}, where {producer} runs"
                ));
                out.push(d_sentence);
                if let Some(k) = epilogue_offset {
                    out.push(format!(
                        "k = {k}: this is step {k} of the epilogue (from 0); queue {q} commits nothing from step k = {q} on"
                    ));
                }
                let full = match epilogue_offset {
                    Some(k) => T_REP + k.min(q) - q,
                    None => t - q,
                };
                out.push(format!(
                    "committed_this_step = {}: groups of queue {q} already closed in this step before {consumer}",
                    committed - g * full
                ));
                out.push(slot_sentence);
            }
            StepTime::Const(_) => {
                out.push(format!(
                    "committed = {committed}: groups queue {q} has committed before this wait, at step {t}"
                ));
                out.push(format!(
                    "needed = {group}: the number of the group holding what {consumer} at iteration {j} needs, g·(j − d) + slot = {g}·({j} − {d}) + {} (groups counted from 0)",
                    n.slot
                ));
            }
        }
        out.push(n_sentence);
        out
    }

    fn group_ref(&self, q: i64, index: i64, consumer_j: i64, relative: bool) -> GroupRef {
        let g = self.g(q).max(1);
        let iteration = crate::ir::floor_div(index, g).unwrap_or(0);
        let slot = crate::ir::floor_mod(index, g).unwrap_or(0) as u32;
        let units = self
            .groups
            .iter()
            .find(|x| x.queue == q && x.slot == slot)
            .map_or(Vec::new(), |x| x.units.clone());
        GroupRef {
            queue: q,
            slot,
            units,
            iteration: if relative {
                iteration - consumer_j
            } else {
                iteration
            },
            relative,
        }
    }

    /// Writes the explanation of the instance `at` into `instance`: its arithmetic, symbols, and
    /// the newest group it forces complete.
    fn write(&self, at: &WaitAt, instance: &mut WaitInstance) {
        let WaitAt {
            time,
            pos,
            q,
            t,
            committed,
            group,
            count,
            need,
            d,
            uniform,
        } = *at;
        let relative = matches!(time, StepTime::Uniform { .. });
        let u = self.p.sched.units.get(pos);
        let j = t - u.map_or(0, |u| u.stage);
        let g = self.g(q);
        instance.arithmetic = match (relative, need.and_then(|k| self.needs.get(k))) {
            (true, Some(n)) if matches!(time, StepTime::Uniform { epilogue_offset: Some(_) }) => {
                let sc = u.map_or(0, |u| u.stage);
                let k = t - T_REP;
                let this_step = committed - g * (T_REP + k.min(q) - q);
                format!(
                    "N = g·(min(k, s_producer) − s_producer − k + s_consumer + d) + committed_this_step − slot − 1 = {g}·({} − {q} − {k} + {sc} + {d}) + {this_step} − {} − 1 = {count} (epilogue step k = {k}: queue {q} commits no group from step k = {q} on)",
                    k.min(q), n.slot
                )
            }
            (true, Some(n)) => {
                let sc = u.map_or(0, |u| u.stage);
                let before = committed - g * (t - q);
                format!(
                    "N = g·(s_consumer − s_producer + d) + committed_this_step − slot − 1 = {g}·({sc} − {q} + {d}) + {before} − {} − 1 = {count}",
                    n.slot
                )
            }
            _ => format!(
                "N = committed − needed − 1 = {committed} − {group} − 1 = {count} (queue {q} has committed {} so far; the needed one is #{group}{})",
                crate::english::count(committed, "group"),
                if uniform && !relative { ", counting the empty groups a symbolic extent commits" } else { "" }
            ),
        };
        instance.symbols = self.symbols(at);
        instance.forces = Some(self.group_ref(q, group, j, relative));
    }
}
