//! Commit groups and waits, exact at every dynamic instance.
//!
//! Queue = stage. Groups are maximal runs (in step order) of async units of one stage, split where a
//! unit consumes its own queue; every step uses the same grouping, so slot `k` of queue `q` at
//! iteration `j` is group number `g_q · j + k` of that queue. A unit that depends on an async unit
//! (reads its result, overwrites what it reads or writes what it writes) needs that instance's group
//! complete: before it we place `wait(q, N)` with N = committed-so-far − needed − 1, computed per step.
//! With a constant extent, statically absent instances (and their commits) are dropped and the counts
//! of the prologue and epilogue are computed step by step; with a symbolic extent every step commits
//! (possibly empty) groups, which makes every count independent of the extent.

use crate::diagnostic::Diagnostic;
use crate::ir::{BufId, Scope, SectionKind};
use crate::schedule::DepKind;
use crate::shape::LoopShape;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub queue: i64,
    pub slot: u32,
    /// Units in the group, in step order.
    pub units: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Need {
    pub consumer: usize,
    pub producer: usize,
    pub queue: i64,
    pub slot: u32,
    /// The consumer at iteration j needs the producer's instance of iteration j − distance.
    pub distance: i64,
    pub kind: DepKind,
    pub buffer: BufId,
}

/// How many instances of each wait have their `symbols` written (the page shows these).
pub const EXPLAINED_INSTANCES: usize = 4;

/// A producer instance, named for the count ↔ token view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupRef {
    pub queue: i64,
    pub slot: u32,
    pub units: Vec<usize>,
    /// Iteration of the group; relative to the consumer's iteration `j` when `relative`.
    pub iteration: i64,
    pub relative: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitInstance {
    /// The step, or `None` for every step of the body loop (and of a symbolic epilogue).
    pub step: Option<i64>,
    pub count: i64,
    /// Needs this wait covers (indices into `SyncPlan::needs`).
    pub needs: Vec<usize>,
    /// Head arithmetic.
    pub arithmetic: String,
    /// One sentence per symbol of `arithmetic`, with this schedule's value ("g = 2: queue 0 commits
    /// 2 groups in every step"); written for the first [`EXPLAINED_INSTANCES`] instances of a
    /// site, empty after them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
    /// The newest group it forces complete (older ones complete with it, FIFO).
    pub forces: Option<GroupRef>,
    /// The `count` most recent groups it leaves in flight.
    pub leaves: Vec<GroupRef>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitSite {
    pub id: u32,
    pub queue: i64,
    pub section: SectionKind,
    /// The unit it precedes; `None` for the final drain.
    pub before: Option<usize>,
    pub instances: Vec<WaitInstance>,
    /// One sentence: why this wait exists.
    pub summary: String,
}

impl WaitSite {
    pub fn min_count(&self) -> i64 {
        self.instances.iter().map(|i| i.count).min().unwrap_or(0)
    }
}

/// When a step runs: a constant step, or any step of the body loop (counts are the same for all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepTime {
    Const(i64),
    /// A body step, or a step of a symbolic extent's epilogue (offset k from its start).
    Uniform {
        epilogue_offset: Option<i64>,
    },
}

/// What one step runs, in order, with the waits before each unit.
#[derive(Clone, Debug, PartialEq)]
pub struct StepPlan {
    pub time: StepTime,
    pub section: SectionKind,
    pub items: Vec<PlanUnit>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlanUnit {
    pub unit: usize,
    /// Its index in the step order.
    pub order: usize,
    /// `(site id, queue, count)` waits placed right before the unit.
    pub waits: Vec<(u32, i64, i64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SyncPlan {
    pub groups: Vec<Group>,
    /// Groups per step for each async queue (g_q).
    pub per_step: BTreeMap<i64, u32>,
    /// Group index of each unit (by position), if async.
    pub unit_group: Vec<Option<usize>>,
    pub needs: Vec<Need>,
    pub sites: Vec<WaitSite>,
    pub prologue: Vec<StepPlan>,
    pub body: Option<StepPlan>,
    pub epilogue: Vec<StepPlan>,
    /// Queues drained by a final `wait(q, 0)` (site id, queue).
    pub drains: Vec<(u32, i64)>,
    /// True when every step commits its groups even if predicated off (symbolic extent).
    pub uniform_commits: bool,
    /// Queues that may still have groups in flight after the epilogue's own waits.
    pub undrained: Vec<i64>,
    /// The constant extent, if it is one.
    extent: Option<i64>,
    /// Groups of each queue (in `per_step`'s order) closed before each index of the step order,
    /// index-major.
    closed_before: Vec<i64>,
}

impl SyncPlan {
    /// Groups of queue `q` committed just before item `item` of `plan` (and its waits): computed
    /// when asked, since a plan asks only for its waits' counts (a table for every unit, queue and
    /// step was most of the planning at 64 stages).
    pub fn committed_before(&self, plan: &StepPlan, item: usize, q: i64) -> Option<i64> {
        let qi = self.per_step.keys().position(|&x| x == q)?;
        let g = i64::from(*self.per_step.get(&q)?);
        let order = plan.items.get(item)?.order;
        let closed = self.closed_before.get(order * self.per_step.len() + qi)?;
        Some(committed(q, g, *closed, plan.time, self.extent))
    }
}

/// Groups of queue `q` (g per step) committed at step `time` before a unit with `closed` of the
/// step's groups closed before it. With a symbolic extent every step commits.
fn committed(q: i64, g: i64, closed: i64, time: StepTime, extent: Option<i64>) -> i64 {
    let t = step_number(time);
    let (full_steps, active) = match (extent, time) {
        (Some(e), StepTime::Const(_)) => ((t - q).clamp(0, e), (0..e).contains(&(t - q))),
        // A symbolic epilogue's step k (at max(E, S) + k) keeps only the units of stages above
        // k, so queue q stops committing at step k = q: its last group is the one of iteration
        // max(E, S) − 1.
        (
            None,
            StepTime::Uniform {
                epilogue_offset: Some(k),
            },
        ) => (T_REP + k.min(q) - q, k < q),
        _ => ((t - q).max(0), t >= q),
    };
    g * full_steps + if active { closed } else { 0 }
}

/// A large virtual step for uniform counts: counts are differences, independent of it.
const T_REP: i64 = 1 << 24;

/// The step number used in count arithmetic.
fn step_number(time: StepTime) -> i64 {
    match time {
        StepTime::Const(t) => t,
        StepTime::Uniform { epilogue_offset } => T_REP + epilogue_offset.unwrap_or(0),
    }
}

/// Every step of the body loop.
const BODY: StepTime = StepTime::Uniform {
    epilogue_offset: None,
};

/// `explain`: write each wait's summary, head arithmetic and reason (the needs it serves, the
/// groups it forces and leaves in flight); the counts are derived either way.
pub fn derive(
    program: &crate::ir::Program,
    p: &LoopShape,
    diags: &mut Vec<Diagnostic>,
    explain: bool,
) -> Option<SyncPlan> {
    let extent = p.sched.extent.as_const();
    let mut needs = needs_of(p);
    let Grouping {
        groups,
        unit_group,
        per_step,
    } = group(p, &mut needs);
    // Per-queue state is a short vector aligned with `queues` (the async stages, ascending).
    let queues: Vec<i64> = per_step.keys().copied().collect();
    let gs: Vec<i64> = per_step.values().map(|&g| i64::from(g)).collect();
    let closed_before = closed_before(p, &groups, &queues);
    // (consumer, queue, index) of every need, sorted: the planner visits a unit's own needs
    // only, found by binary search.
    let mut by_consumer: Vec<(usize, i64, usize)> = needs
        .iter()
        .enumerate()
        .map(|(k, n)| (n.consumer, n.queue, k))
        .collect();
    by_consumer.sort_unstable();
    let mut cx = Planner {
        p,
        groups: &groups,
        queues: &queues,
        gs: &gs,
        needs: &needs,
        // Sites are per section, consumer and queue; most consumers wait in two or three sections.
        sites: Vec::with_capacity(3 * needs.len() + queues.len()),
        extent,
        closed_before: &closed_before,
        by_consumer: &by_consumer,
        failed: false,
        explain,
        diags,
        need_ids: Vec::with_capacity(needs.len()),
        site_ids: Vec::with_capacity(3 * needs.len() + queues.len()),
        facts: Vec::new(),
        entry: Entry::default(),
    };
    // Groups already known complete carry from step to step (absolute group numbers per queue).
    let (prologue, covered) = cx.plan_prologue();
    let (body, covered) = cx.plan_body(covered);
    let (epilogue, covered) = cx.plan_epilogue(covered);
    let (undrained, drains) = cx.drain(program, &covered);
    if cx.failed {
        return None;
    }
    let sites = cx.sites;
    Some(SyncPlan {
        groups,
        per_step,
        unit_group,
        needs,
        sites,
        prologue,
        body,
        epilogue,
        drains,
        uniform_commits: extent.is_none(),
        undrained,
        extent,
        closed_before,
    })
}

/// Needs: every dependence whose first instance is async. Their slots are known once the groups
/// are (`group`).
fn needs_of(p: &LoopShape) -> Vec<Need> {
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
        });
    }
    needs
}

/// The commit groups of a step and the group of each unit.
struct Grouping {
    groups: Vec<Group>,
    unit_group: Vec<Option<usize>>,
    /// Groups per step for each async queue.
    per_step: BTreeMap<i64, u32>,
}

/// Groups from the step order, and each need's slot (the slot of its producer's group).
fn group(p: &LoopShape, needs: &mut [Need]) -> Grouping {
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
fn closed_before(p: &LoopShape, groups: &[Group], queues: &[i64]) -> Vec<i64> {
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

impl Planner<'_> {
    /// Steps 0 … S−1 from nothing complete; the groups known complete after the last.
    fn plan_prologue(&mut self) -> (Vec<StepPlan>, Vec<i64>) {
        let s_max = self.p.stages();
        let mut covered: Vec<i64> = vec![-1; self.queues.len()];
        let mut prologue = Vec::with_capacity(usize::try_from(s_max).unwrap_or(0));
        for t in 0..s_max {
            let (plan, out) = self.plan(StepTime::Const(t), SectionKind::Prologue, covered);
            covered = out;
            if !plan.items.is_empty() {
                prologue.push(plan);
            }
        }
        (prologue, covered)
    }

    /// The one plan that serves every body step, if the loop has a body: the first step inherits
    /// the prologue's coverage, later ones the previous body step's; it starts from the
    /// prologue's and weakens until both are served. Returns what is known complete where the
    /// epilogue begins.
    fn plan_body(&mut self, covered: Vec<i64>) -> (Option<StepPlan>, Vec<i64>) {
        let (extent, s_max, gs) = (self.extent, self.p.stages(), self.gs);
        if matches!(extent, Some(e) if e <= s_max) {
            return (None, covered);
        }
        let shift = |m: &[i64], by: i64| -> Vec<i64> {
            m.iter()
                .zip(gs)
                .map(|(&c, &g)| c.saturating_add(g.saturating_mul(by)))
                .collect()
        };
        let mut input = shift(&covered, T_REP - s_max);
        let mut result = None;
        // Trials lower each queue's input to `min(x0, N − g)`, N the newest group a body unit
        // needs (docs/benchmarks.md): planned at once when that is within the trials' reach, and
        // kept if it is a fixpoint (then it is sound, whatever the reasoning) with no error.
        if let Some(fixpoint) = body_fixpoint(self, &input) {
            let mark = self.mark();
            let (plan, out) = self.plan(BODY, SectionKind::Body, fixpoint.clone());
            // As the trials judge it (below), without building the vectors.
            let stable = fixpoint
                .iter()
                .zip(&out)
                .zip(gs)
                .all(|((&c, &o), &g)| c <= o.saturating_sub(g));
            if stable && !self.erred_since(mark) {
                result = Some((plan, out));
            } else {
                self.take_back(mark);
            }
        }
        for _ in 0..BODY_TRIALS {
            if result.is_some() {
                break;
            }
            // Where the input above does not apply: each trial is planned for real, and taken
            // back (sites and diagnostics) unless it is the fixpoint.
            let mark = self.mark();
            let (plan, out) = self.plan(BODY, SectionKind::Body, input.clone());
            let steady = shift(&out, -1);
            let next: Vec<i64> = input.iter().zip(&steady).map(|(&c, &s)| c.min(s)).collect();
            if next == input {
                result = Some((plan, out));
                break;
            }
            self.take_back(mark);
            input = next;
        }
        let (plan, out) = match result {
            Some(r) => r,
            None => {
                input = vec![i64::MIN / 4; self.queues.len()];
                self.plan(BODY, SectionKind::Body, input)
            }
        };
        // The last body step ends where the epilogue begins.
        let covered = match extent {
            Some(e) => shift(&out, e - 1 - T_REP),
            None => {
                self.entry.after_body = Some(shift(&out, -1));
                covered
            }
        };
        (Some(plan), covered)
    }

    /// Steps E … E+S−1 from the body's (or the prologue's) coverage under a constant extent;
    /// under a symbolic one, S uniform steps from nothing known complete. Returns what is known
    /// complete after the last.
    fn plan_epilogue(&mut self, mut covered: Vec<i64>) -> (Vec<StepPlan>, Vec<i64>) {
        let s_max = self.p.stages();
        let mut epilogue = Vec::with_capacity(usize::try_from(s_max).unwrap_or(0));
        match self.extent {
            Some(e) => {
                for t in s_max.max(e)..e + s_max {
                    let (plan, out) = self.plan(StepTime::Const(t), SectionKind::Epilogue, covered);
                    covered = out;
                    if !plan.items.is_empty() {
                        epilogue.push(plan);
                    }
                }
                (epilogue, covered)
            }
            None => {
                // The epilogue may follow the body or (for a short extent) the prologue: assume
                // nothing.
                let mut covered: Vec<i64> = vec![i64::MIN / 4; self.queues.len()];
                let by = T_REP - s_max;
                self.entry.stages = s_max;
                self.entry.prologue = self
                    .facts
                    .iter()
                    .map(|&(qi, group, j)| {
                        let g = self.gs.get(qi).copied().unwrap_or(0);
                        (qi, group + g * by, j + by)
                    })
                    .collect();
                self.facts.clear();
                for k in 0..s_max {
                    let (plan, out) = self.plan(
                        StepTime::Uniform {
                            epilogue_offset: Some(k),
                        },
                        SectionKind::Epilogue,
                        covered,
                    );
                    covered = out;
                    epilogue.push(plan);
                }
                (epilogue, covered)
            }
        }
    }

    /// Async writes land only when awaited, and nothing completes by itself at the end of the
    /// program: a final `wait(q, 0)` for every queue whose last groups no wait has forced (all
    /// of them under a symbolic extent). Returns those queues and the drains (site id, queue).
    fn drain(
        &mut self,
        program: &crate::ir::Program,
        covered: &[i64],
    ) -> (Vec<i64>, Vec<(u32, i64)>) {
        let (units, extent, explain) = (&self.p.sched.units, self.extent, self.explain);
        let undrained: Vec<i64> = self
            .queues
            .iter()
            .zip(self.gs)
            .zip(covered)
            .enumerate()
            .filter(|&(qi, ((_, &g), &c))| match extent {
                Some(e) => c < g * e - 1,
                // The last group (of iteration max(E, S) − 1) forced by a wait of a consumer of
                // that very iteration: that wait runs whenever the iteration exists, and for
                // every E the newest nonempty group is forced the same way (docs/synchronization.md).
                None => !self
                    .facts
                    .iter()
                    .any(|&(fq, fg, fj)| fq == qi && fg >= g * T_REP - 1 && fj < T_REP),
            })
            .map(|(_, x)| x)
            .map(|((&q, _), _)| q)
            .collect();
        let writes_global = |q: i64| {
            units.iter().any(|u| {
                u.is_async
                    && u.stage == q
                    && u.accesses.iter().any(|a| {
                        a.write && program.buffer(a.buffer).map(|b| b.scope) == Some(Scope::Global)
                    })
            })
        };
        let mut drains = Vec::with_capacity(undrained.len());
        for q in undrained.iter() {
            let id = self.sites.len() as u32;
            self.sites.push(WaitSite {
                id,
                queue: *q,
                section: SectionKind::Epilogue,
                before: None,
                instances: vec![WaitInstance {
                    symbols: Vec::new(),
                    step: None,
                    count: 0,
                    needs: Vec::new(),
                    arithmetic: if !explain {
                        String::new()
                    } else if extent.is_none() {
                        "N = g·(max(E, S) − E): nothing completes by itself at the end of the program; the groups of iterations E … max(E, S) − 1 are committed empty and may stay".into()
                    } else {
                        "N = 0: nothing completes by itself at the end of the program".into()
                    },
                    forces: None,
                    leaves: Vec::new(),
                }],
                summary: if !explain {
                    String::new()
                } else if writes_global(*q) {
                    format!("queue {q} writes global memory asynchronously; its last groups must land before the loop ends")
                } else {
                    format!("queue {q}'s last groups are never awaited by a consumer; they must land before the loop ends")
                },
            });
            drains.push((id, *q));
        }
        (undrained, drains)
    }
}

/// The body's input as the trials would find it, if they would: per queue, `min(x0, N − g)` where
/// N is the newest group any body unit needs (every trial below it waits for N, so its output is
/// N; from above, each trial lowers it by g until it is). `None` where a queue has no need in the
/// body (no trial is stable) or a queue takes more trials than the loop allows.
fn body_fixpoint(cx: &Planner, x0: &[i64]) -> Option<Vec<i64>> {
    let units = &cx.p.sched.units;
    let mut fixpoint = Vec::with_capacity(x0.len());
    for ((&q, &g), &x) in cx.queues.iter().zip(cx.gs).zip(x0) {
        if g < 1 {
            return None;
        }
        let newest = cx
            .needs
            .iter()
            .filter(|n| n.queue == q)
            .filter_map(|n| {
                let j = T_REP - units.get(n.consumer)?.stage - n.distance;
                (j >= 0).then(|| g * j + i64::from(n.slot))
            })
            .max()?;
        let target = newest - g;
        let trials = if x <= target {
            1
        } else if x < newest {
            2
        } else {
            // Unstable trials lower x by g until it is below `newest`, then one more to `target`
            // unless it landed there; the last trial confirms.
            let m = (x - newest) / g + 1;
            m + if x - m * g == target { 1 } else { 2 }
        };
        if trials > BODY_TRIALS {
            return None;
        }
        fixpoint.push(x.min(target));
    }
    Some(fixpoint)
}

/// Trials of the body's plan before planning it for the weakest input.
const BODY_TRIALS: i64 = 8;

struct Planner<'a> {
    p: &'a LoopShape<'a>,
    groups: &'a [Group],
    /// The async queues, ascending; every per-queue vector below is aligned with it.
    queues: &'a [i64],
    /// Groups per step of each queue (g_q).
    gs: &'a [i64],
    needs: &'a [Need],
    sites: Vec<WaitSite>,
    extent: Option<i64>,
    /// Groups of `queues[qi]` closed before position `idx` of the step order, at
    /// `idx * queues.len() + qi`.
    closed_before: &'a [i64],
    /// (consumer, queue, index) of every need, sorted.
    by_consumer: &'a [(usize, i64, usize)],
    failed: bool,
    /// Write the display text of sites and instances.
    explain: bool,
    diags: &'a mut Vec<Diagnostic>,
    /// Scratch for `plan`.
    need_ids: Vec<usize>,
    /// The id of the site before each unit, by section (as a number), unit and queue, sorted:
    /// looked up for every wait of every step.
    site_ids: Vec<((u8, usize, i64), u32)>,
    /// Under a symbolic extent, the waits placed in the prologue or epilogue so far, each inside
    /// its consumer's guard: (queue index, newest group forced, consumer iteration).
    facts: Vec<(usize, i64, i64)>,
    /// What a symbolic epilogue knows complete when it begins, after the body or the prologue.
    entry: Entry,
}

/// What is known complete where a symbolic epilogue begins (step E′ = max(E, S), numbered
/// `T_REP`): after the body (E > S) what its last step leaves complete; after the prologue (E ≤ S,
/// E′ = S) the groups of negative iterations (there are none) and what the prologue's waits force,
/// each of which ran only if its consumer's iteration is below E.
#[derive(Default)]
struct Entry {
    /// Per queue, the newest group the last body step leaves complete; `None` without a body.
    after_body: Option<Vec<i64>>,
    /// The prologue's waits (queue index, newest group forced, consumer iteration), renumbered
    /// as if E′ = S were `T_REP`.
    prologue: Vec<(usize, i64, i64)>,
    stages: i64,
}

impl Entry {
    /// Group `group` of queue `qi` (g per step) is complete before a consumer of iteration `j`
    /// of the epilogue, whichever section came before it.
    fn known(&self, qi: usize, g: i64, group: i64, j: i64) -> bool {
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
    fn g(&self, q: i64) -> i64 {
        self.queues
            .iter()
            .position(|&x| x == q)
            .and_then(|i| self.gs.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// Groups of queue `queues[qi]` committed before step order index `idx` of step t.
    fn committed(&self, qi: usize, time: StepTime, idx: usize) -> i64 {
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

    fn unit_present(&self, stage: i64, t: i64, uniform: bool, time: StepTime) -> bool {
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

    /// What planning has recorded so far, to take back a trial plan.
    fn mark(&self) -> (usize, usize, bool) {
        (self.sites.len(), self.diags.len(), self.failed)
    }

    fn erred_since(&self, (_, diags, failed): (usize, usize, bool)) -> bool {
        self.diags.len() != diags || self.failed != failed
    }

    /// Forgets the sites (a trial only creates sites of its own section, which no earlier step
    /// has) and diagnostics recorded since `mark`.
    fn take_back(&mut self, (sites, diags, failed): (usize, usize, bool)) {
        self.sites.truncate(sites);
        self.site_ids.retain(|&(_, id)| (id as usize) < sites);
        self.diags.truncate(diags);
        self.failed = failed;
    }

    /// Plans step `time` from the groups known complete before it (`covered`, per queue): returns
    /// the plan and the groups known complete after it.
    fn plan(
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
            let own = self
                .by_consumer
                .get(
                    self.by_consumer.partition_point(|n| n.0 < pos)
                        ..self.by_consumer.partition_point(|n| n.0 <= pos),
                )
                .unwrap_or_default();
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
                    let jp = j - n.distance;
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
                // Its symbols are written for the first instances of a site only (the ones the
                // page shows): for every instance of a large loop they were most of deriving.
                let with_symbols = self
                    .sites
                    .get(id as usize)
                    .is_some_and(|site| site.instances.len() < EXPLAINED_INSTANCES);
                let instance = self.instance(
                    time,
                    section,
                    pos,
                    q,
                    t,
                    c,
                    group,
                    count,
                    &need_ids,
                    uniform,
                    with_symbols,
                );
                // A site's id is its index.
                if let Some(site) = self.sites.get_mut(id as usize) {
                    site.instances.push(instance);
                }
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

    fn site(&mut self, section: SectionKind, before: usize, queue: i64) -> u32 {
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

    /// The "why N" of `instance`, one sentence per symbol of its arithmetic, with its value here.
    #[allow(clippy::too_many_arguments)]
    fn symbols(
        &self,
        time: StepTime,
        pos: usize,
        q: i64,
        t: i64,
        committed: i64,
        group: i64,
        count: i64,
        need_ids: &[usize],
    ) -> Vec<String> {
        let Some(n) = need_ids.first().and_then(|&k| self.needs.get(k)) else {
            return Vec::new();
        };
        let g = self.g(q);
        let consumer = self.p.sched.label(pos);
        let producer = self.p.sched.label(n.producer);
        let sc = self.p.sched.units.get(pos).map_or(0, |u| u.stage);
        let j = t - sc;
        let mut out = Vec::with_capacity(8);
        let g_sentence = format!(
            "g = {g}: queue {q} commits {g} group{} in every step",
            if g == 1 { "" } else { "s" }
        );
        let d_sentence = format!(
            "d = {}: at iteration j the consumer needs what the producer {producer} wrote at iteration j − {}",
            n.distance, n.distance
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
                    "needed = {group}: the number of the group holding what {consumer} at iteration {j} needs, g·(j − d) + slot = {g}·({j} − {}) + {} (groups counted from 0)",
                    n.distance, n.slot
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

    #[allow(clippy::too_many_arguments)]
    fn instance(
        &self,
        time: StepTime,
        _section: SectionKind,
        pos: usize,
        q: i64,
        t: i64,
        committed: i64,
        group: i64,
        count: i64,
        need_ids: &[usize],
        uniform: bool,
        with_symbols: bool,
    ) -> WaitInstance {
        let relative = matches!(time, StepTime::Uniform { .. });
        let u = self.p.sched.units.get(pos);
        let j = t - u.map_or(0, |u| u.stage);
        let g = self.g(q);
        let arithmetic = match (relative, need_ids.first().and_then(|&k| self.needs.get(k))) {
            _ if !self.explain => String::new(),
            (true, Some(n)) if matches!(time, StepTime::Uniform { epilogue_offset: Some(_) }) => {
                let sc = u.map_or(0, |u| u.stage);
                let k = t - T_REP;
                let this_step = committed - g * (T_REP + k.min(q) - q);
                format!(
                    "N = g·(min(k, s_producer) − s_producer − k + s_consumer + d) + committed_this_step − slot − 1 = {g}·({} − {q} − {k} + {sc} + {}) + {this_step} − {} − 1 = {count} (epilogue step k = {k}: queue {q} commits no group from step k = {q} on)",
                    k.min(q), n.distance, n.slot
                )
            }
            (true, Some(n)) => {
                let sc = u.map_or(0, |u| u.stage);
                let before = committed - g * (t - q);
                format!(
                    "N = g·(s_consumer − s_producer + d) + committed_this_step − slot − 1 = {g}·({sc} − {q} + {}) + {before} − {} − 1 = {count}",
                    n.distance, n.slot
                )
            }
            _ => format!(
                "N = committed − needed − 1 = {committed} − {group} − 1 = {count} (queue {q} has committed {committed} group{} so far; the needed one is #{group}{})",
                if committed == 1 { "" } else { "s" },
                if uniform && !relative { ", counting the empty groups a symbolic extent commits" } else { "" }
            ),
        };
        // The count ↔ token view is display data, like the arithmetic.
        let leaves = if self.explain {
            (1..=count.min(16))
                .map(|i| self.group_ref(q, committed - i, j, relative))
                .collect()
        } else {
            Vec::new()
        };
        let symbols = if self.explain && with_symbols {
            self.symbols(time, pos, q, t, committed, group, count, need_ids)
        } else {
            Vec::new()
        };
        WaitInstance {
            symbols,
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
            arithmetic,
            forces: self.explain.then(|| self.group_ref(q, group, j, relative)),
            leaves,
        }
    }
}
