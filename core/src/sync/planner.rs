//! The planner: one step planned from the groups known complete before it, each wait placed
//! with the exact count that covers what its units need.

use super::explain::Unexplained;
use super::{
    committed, step_number, Need, PlanUnit, StepPlan, StepTime, WaitInstance, WaitSite, BODY,
    EXPLAINED_INSTANCES, T_REP,
};
use crate::diagnostic::Diagnostic;
use crate::ir::SectionKind;
use crate::shape::LoopShape;

pub(super) struct Planner<'a> {
    pub(super) p: &'a LoopShape,
    /// The async queues, ascending; every per-queue vector below is aligned with it.
    pub(super) queues: &'a [i64],
    /// Groups per step of each queue (g_q).
    pub(super) gs: &'a [i64],
    pub(super) needs: &'a [Need],
    pub(super) sites: Vec<WaitSite>,
    pub(super) extent: Option<i64>,
    /// Groups of `queues[qi]` closed before position `idx` of the step order, at
    /// `idx * queues.len() + qi`.
    pub(super) closed_before: &'a [i64],
    /// (consumer, queue, index) of every need, sorted.
    pub(super) by_consumer: &'a [(usize, i64, usize)],
    /// By unit, the members of its group after it.
    pub(super) later_members: &'a [Vec<usize>],
    pub(super) groups: &'a [super::Group],
    /// By unit, whether it runs an instance at each iteration, where enumerated.
    pub(super) runs: &'a [Option<Vec<bool>>],
    /// Under a symbolic extent, by unit, whether an async one runs an instance at each
    /// iteration, where it repeats (`periodic::runs_by_iteration`).
    pub(super) symbolic_runs: &'a [Option<super::periodic::SymbolicRuns>],
    pub(super) failed: bool,
    /// Write the display text of sites and instances.
    pub(super) explain: bool,
    pub(super) diags: &'a mut Vec<Diagnostic>,
    /// Scratch for `plan`.
    pub(super) need_ids: Vec<usize>,
    /// The id of the site before each unit, by section (as a number), unit and queue, sorted:
    /// looked up for every wait of every step.
    pub(super) site_ids: Vec<((u8, usize, i64), u32)>,
    /// Under a symbolic extent, the waits placed in the prologue or epilogue so far, each inside
    /// its consumer's guard: (queue index, newest group forced, consumer iteration).
    pub(super) facts: Vec<(usize, i64, i64)>,
    /// What a symbolic epilogue knows complete when it begins, after the body or the prologue.
    pub(super) entry: Entry,
    /// The instances to explain.
    pub(super) unexplained: Vec<Unexplained>,
    /// The largest extent this plan serves (`None`: every extent): a need that begins at a
    /// later consumer iteration than any step of a section reaches at that extent is left out
    /// there (`regimes`).
    pub(super) regime_hi: Option<i64>,
    /// Where set, this plan serves only these N (`Serves::Residue`): an epilogue step waits for
    /// what the iterations it runs at those N need.
    pub(super) regime_class: Option<super::Residue>,
    /// Under a constant extent, by need, the shortest distance over the body's iterations whose
    /// needed group the prologue has not already forced (`plan_body`); empty before the body
    /// is planned, and then `ExactNeed::body` stands.
    pub(super) body_distances: Vec<Option<i64>>,
    /// Under a symbolic extent, by need, the shortest distance over the body's iterations
    /// (at the extents this plan serves) whose needed group the prologue has not already
    /// forced, where enumeration decides it; empty before the body is planned, and an
    /// undecided need keeps `symbolic_distance`.
    pub(super) symbolic_body: Vec<Option<Option<i64>>>,
}

/// What is known complete where a symbolic epilogue begins (step E′ = max(E, S), numbered
/// `T_REP`): after the body (E > S) what its last step leaves complete; after the prologue (E ≤ S,
/// E′ = S) the groups of negative iterations (there are none) and what the prologue's waits force,
/// each of which ran only if its consumer's iteration is below E.
#[derive(Default)]
pub(super) struct Entry {
    /// Per queue, the newest group the last body step leaves complete; `None` without a body.
    pub(super) after_body: Option<Vec<i64>>,
    /// The prologue's waits (queue index, newest group forced, consumer iteration), renumbered
    /// as if E′ = S were `T_REP`.
    pub(super) prologue: Vec<(usize, i64, i64)>,
    pub(super) stages: i64,
}

impl Entry {
    /// Group `group` of queue `qi` (g per step) is complete before a consumer of iteration `j`
    /// of the epilogue, whichever section came before it.
    pub(super) fn known(&self, qi: usize, g: i64, group: i64, j: i64) -> bool {
        let after_body = self
            .after_body
            .as_ref()
            .and_then(|c| c.get(qi))
            .is_some_and(|&c| c >= group);
        let after_prologue = group < g * (T_REP - self.stages)
            || self
                .prologue
                .iter()
                .any(|&(fq, fg, fj)| fq == qi && fg >= group && fj <= j);
        after_body && after_prologue
    }
}

impl Planner<'_> {
    /// Groups of queue `queues[qi]` committed before step order index `idx` of step t.
    pub(super) fn committed(&self, qi: usize, time: StepTime, idx: usize) -> i64 {
        let (Some(&q), Some(&g)) = (self.queues.get(qi), self.gs.get(qi)) else {
            return 0;
        };
        let closed = self
            .closed_before
            .get(idx * self.queues.len() + qi)
            .copied()
            .unwrap_or(0);
        committed(q, g, closed, time, self.extent)
    }

    pub(super) fn unit_present(&self, stage: i64, t: i64, uniform: bool, time: StepTime) -> bool {
        match (time, self.extent) {
            // At step max(E, S) + k a unit of stage s runs iteration max(E, S) + k − s, which is
            // at least E (statically dead) unless k < s.
            (
                StepTime::Uniform {
                    epilogue_offset: Some(k),
                },
                _,
            ) => k < stage,
            (StepTime::Uniform { .. }, _) => true,
            (StepTime::Const(_), Some(e)) if !uniform => (0..e).contains(&(t - stage)),
            _ => t >= stage,
        }
    }

    /// The distance of need `n` of a consumer of stage `stage` at step `time`, or `None` where
    /// it does not apply: the shortest of `Need::starts` begun by the latest consumer iteration
    /// some extent this plan serves runs there. A constant step's iteration is known; the body
    /// reaches iteration N − 1 − stage, a symbolic epilogue's step k iteration max(N, S) + k −
    /// stage.
    pub(super) fn distance(&self, k: usize, stage: i64, time: StepTime) -> Option<i64> {
        let n = self.needs.get(k)?;
        if let Some(exact) = &n.exact {
            return match time {
                StepTime::Const(t) => exact.at(t - stage),
                StepTime::Uniform {
                    epilogue_offset: None,
                } => match self.body_distances.get(k) {
                    Some(&d) => d,
                    None => exact.body,
                },
                StepTime::Uniform { .. } => Some(n.distance),
            };
        }
        if time == BODY {
            if let Some(&Some(d)) = self.symbolic_body.get(k) {
                return d;
            }
        }
        if let Some(known) = n
            .symbolic
            .as_ref()
            .and_then(|s| self.symbolic_distance(s, stage, time))
        {
            return known;
        }
        if n.starts.is_empty() {
            return Some(n.distance);
        }
        let reach = match (time, self.regime_hi) {
            (StepTime::Const(t), _) => t - stage,
            (StepTime::Uniform { .. }, None) => return Some(n.distance),
            (StepTime::Uniform { epilogue_offset }, Some(hi)) => {
                let last = match epilogue_offset {
                    None => hi - 1,
                    Some(k) => hi.max(self.p.stages()) + k,
                };
                last - stage
            }
        };
        n.starts
            .iter()
            .find(|&&(_, from)| from <= reach)
            .map(|&(d, _)| d)
    }

    /// Under a symbolic extent, the distance the enumeration decided (`periodic.rs`) at step
    /// `time` for a consumer of stage `stage`: at a prologue step its own iteration's; in the
    /// body and at an epilogue step the shortest over every iteration it runs at some extent
    /// this plan serves — from S − stage (S + k − stage at epilogue step k) on, up to the last
    /// one the largest extent of its range reaches. `None` where enumeration did not decide it.
    fn symbolic_distance(
        &self,
        known: &super::periodic::SymbolicNeed,
        stage: i64,
        time: StepTime,
    ) -> Option<Option<i64>> {
        let s_max = self.p.stages();
        match time {
            StepTime::Const(t) => known.at(t - stage),
            StepTime::Uniform {
                epilogue_offset: None,
            } => known.shortest(s_max - stage, self.regime_hi.map(|hi| hi - 1 - stage)),
            StepTime::Uniform {
                epilogue_offset: Some(k),
            } => match self.regime_class {
                Some(class) => known.shortest_at_extents(class, s_max, k - stage),
                None => known.shortest(
                    s_max + k - stage,
                    self.regime_hi.map(|hi| hi.max(s_max) + k - stage),
                ),
            },
        }
    }

    /// What planning has recorded so far, to take back a trial plan.
    pub(super) fn mark(&self) -> (usize, usize, bool) {
        (self.sites.len(), self.diags.len(), self.failed)
    }

    pub(super) fn erred_since(&self, (_, diags, failed): (usize, usize, bool)) -> bool {
        self.diags.len() != diags || self.failed != failed
    }

    /// Forgets the sites (a trial only creates sites of its own section, which no earlier step
    /// has) and diagnostics recorded since `mark`.
    pub(super) fn take_back(&mut self, (sites, diags, failed): (usize, usize, bool)) {
        self.sites.truncate(sites);
        self.site_ids.retain(|&(_, id)| (id as usize) < sites);
        self.diags.truncate(diags);
        self.failed = failed;
    }

    /// Plans step `time` from the groups known complete before it (`covered`, per queue): returns
    /// the plan and the groups known complete after it.
    pub(super) fn plan(
        &mut self,
        time: StepTime,
        section: SectionKind,
        mut covered: Vec<i64>,
    ) -> (StepPlan, Vec<i64>) {
        let uniform = matches!(time, StepTime::Uniform { .. }) || self.extent.is_none();
        let guarded = self.extent.is_none() && time != BODY;
        let t = step_number(time);
        let queues = self.queues;
        let mut items = Vec::with_capacity(self.p.step_order.len());
        // The needs served by the newest needed group: reused from unit to unit, queue to queue.
        let mut need_ids = std::mem::take(&mut self.need_ids);
        for (idx, &pos) in self.p.step_order.iter().enumerate() {
            let Some(u) = self.p.sched.units.get(pos) else {
                continue;
            };
            if !self.unit_present(u.stage, t, uniform, time) {
                continue;
            }
            let j = t - u.stage;
            // Waits in queue order, each for the newest group of its queue that the unit needs.
            let mut waits = Vec::new();
            // Sized at the first wait: growing an empty vector costs more than allocating it.
            let waits_at_most = queues.len();
            let by_consumer = self.by_consumer;
            let needs_of = |unit: usize| {
                by_consumer
                    .get(
                        by_consumer.partition_point(|n| n.0 < unit)
                            ..by_consumer.partition_point(|n| n.0 <= unit),
                    )
                    .unwrap_or_default()
            };
            let mut own = needs_of(pos);
            // The waits of a group's later members on its own queue are placed where it opens,
            // with this member's: one wait forces what they all need there.
            let with_later;
            if let Some(later) = self.later_members.get(pos).filter(|l| !l.is_empty()) {
                let mut merged = own.to_vec();
                for &m in later {
                    merged.extend(needs_of(m).iter().filter(|n| n.1 == u.stage));
                }
                merged.sort_by_key(|n| n.1);
                with_later = merged;
                own = &with_later;
            }
            // One run of the unit's needs per queue it may wait on, in queue order.
            for this_queue in own.chunk_by(|a, b| a.1 == b.1) {
                let Some(&(_, q, _)) = this_queue.first() else {
                    continue;
                };
                let Some(qi) = queues.iter().position(|&x| x == q) else {
                    continue;
                };
                let g = self.gs.get(qi).copied().unwrap_or(0);
                let mut newest = None;
                for &(_, _, k) in this_queue {
                    let Some(n) = self.needs.get(k) else { continue };
                    let Some(distance) = self.distance(k, u.stage, time) else {
                        continue;
                    };
                    let jp = j - distance;
                    if jp < 0 {
                        continue;
                    }
                    let group = g * jp + i64::from(n.slot);
                    match newest {
                        Some(newer) if group < newer => {}
                        Some(same) if group == same => need_ids.push(k),
                        _ => {
                            newest = Some(group);
                            need_ids.clear();
                            need_ids.push(k);
                        }
                    }
                }
                let Some(group) = newest else {
                    continue;
                };
                // A guarded wait (symbolic prologue and epilogue) runs only when its consumer's
                // iteration is below E: it covers a later consumer only if that one's iteration is
                // not below its own, or it may not have run.
                let known = if guarded {
                    self.facts
                        .iter()
                        .any(|&(fq, fg, fj)| fq == qi && fg >= group && fj <= j)
                        || (time != BODY
                            && matches!(time, StepTime::Uniform { .. })
                            && self.entry.known(qi, g, group, j))
                } else {
                    covered.get(qi).is_some_and(|&c| c >= group)
                };
                if known {
                    continue;
                }
                let c = self.committed(qi, time, idx);
                let count = c - group - 1;
                if count < 0 {
                    let producer = need_ids
                        .first()
                        .and_then(|&k| self.needs.get(k))
                        .map(|n| n.producer);
                    let plabel = producer.map_or("", |x| self.p.sched.label(x));
                    self.diags.push(
                        Diagnostic::error(u.span, format!("{} needs the group of {} before that group is committed", self.p.sched.label(pos), plabel))
                            .with_hint("order the consumer after its async producer, or put it in a later stage"),
                    );
                    self.failed = true;
                    continue;
                }
                if let Some(c) = covered.get_mut(qi) {
                    *c = (*c).max(group);
                }
                if guarded {
                    self.facts.push((qi, group, j));
                }
                let id = self.site(section, pos, q);
                self.instance(id, time, c, count, &need_ids);
                if waits.capacity() == 0 {
                    waits = Vec::with_capacity(waits_at_most);
                }
                waits.push((id, q, count));
            }
            items.push(PlanUnit {
                unit: pos,
                order: idx,
                waits,
            });
        }
        self.need_ids = need_ids;
        (
            StepPlan {
                time,
                section,
                items,
            },
            covered,
        )
    }

    /// Adds to site `id` its instance at `time`, after `committed` groups of its queue, with
    /// `count`, covering the needs `need_ids`. The first instances of a site are the ones the page
    /// explains: they are noted for `SyncPlan::explain`.
    fn instance(
        &mut self,
        id: u32,
        time: StepTime,
        committed: i64,
        count: i64,
        need_ids: &[usize],
    ) {
        // A site's id is its index.
        let Some(site) = self.sites.get(id as usize) else {
            return;
        };
        if self.explain && site.instances.len() < EXPLAINED_INSTANCES {
            // The distance at which its first need was served here (at least one need is, or
            // no wait is placed).
            let distance = need_ids
                .first()
                .and_then(|&k| {
                    let n = self.needs.get(k)?;
                    let stage = self.p.sched.units.get(n.consumer)?.stage;
                    self.distance(k, stage, time)
                })
                .unwrap_or(0);
            self.unexplained.push(Unexplained {
                site: id,
                instance: site.instances.len(),
                time,
                committed,
                distance,
            });
        }
        let Some(site) = self.sites.get_mut(id as usize) else {
            return;
        };
        site.instances.push(WaitInstance {
            step: match time {
                StepTime::Const(t) => Some(t),
                StepTime::Uniform { .. } => None,
            },
            count,
            needs: if self.explain {
                need_ids.to_vec()
            } else {
                Vec::new()
            },
            arithmetic: String::new(),
            symbols: Vec::new(),
            forces: None,
        });
    }

    pub(super) fn site(&mut self, section: SectionKind, before: usize, queue: i64) -> u32 {
        let key = (section as u8, before, queue);
        let at = match self.site_ids.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(i) => return self.site_ids.get(i).map_or(0, |&(_, id)| id),
            Err(i) => i,
        };
        let id = self.sites.len() as u32;
        self.site_ids.insert(at, (key, id));
        let summary = match self.p.sched.units.get(before) {
            Some(_) if self.explain => {
                format!(
                    "{} uses data produced asynchronously on queue {queue}",
                    self.p.sched.label(before)
                )
            }
            _ => String::new(),
        };
        self.sites.push(WaitSite {
            id,
            queue,
            section,
            before: Some(before),
            // One instance per step that runs it: every body step shares one.
            instances: Vec::with_capacity(match section {
                SectionKind::Body => 1,
                _ => usize::try_from(self.p.stages()).unwrap_or(1),
            }),
            summary,
        });
        id
    }
}
