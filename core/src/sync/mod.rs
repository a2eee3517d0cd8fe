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
use crate::ir::{BufId, SectionKind};
use crate::schedule::DepKind;
use crate::shape::LoopShape;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod barriers;
mod exact;
pub use exact::ExactNeed;
mod eventual;
mod explain;
mod groups;
mod owners;
mod periodic;
mod planner;
mod regimes;
mod sections;
mod uniform;

pub use barriers::{place as place_barriers, statement_label};
use groups::{closed_before, group, needs_of, Grouping};
use planner::{Entry, Planner};

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
    /// Under a symbolic extent, where an index clamped by `min`/`max` may meet the other only
    /// from some iteration on: (distance, the first consumer iteration at which the two may meet
    /// at it), by distance, each beginning earlier than the shorter ones. Before the first
    /// iteration any of them names the consumer needs nothing of the producer, and until the
    /// first one's (`distance`'s) only the instance of the shortest distance begun. Empty when
    /// `distance` applies from the first iteration.
    #[serde(default, skip_serializing_if = "crate::wire::omit_empty")]
    pub starts: Vec<(i64, i64)>,
    /// Under a constant extent, the distance at each consumer iteration as enumeration found it
    /// (`exact.rs`); `None` where the loop could not be enumerated within the budget.
    #[serde(skip)]
    pub exact: Option<exact::ExactNeed>,
    /// Under a symbolic extent, the distance at the loop's first iterations as enumeration
    /// found it, and at every iteration when both units repeat with the iteration
    /// (`periodic.rs`); `None` where they could not be enumerated.
    #[serde(skip)]
    pub symbolic: Option<periodic::SymbolicNeed>,
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
    /// Head arithmetic. This, `symbols` and `forces` explain the instance; they are
    /// written by [`SyncPlan::explain`] for the first [`EXPLAINED_INSTANCES`] instances of a site
    /// (those the page shows), and are empty after them and before it.
    #[serde(default, skip_serializing_if = "crate::wire::omit_empty_text")]
    pub arithmetic: String,
    /// One sentence per symbol of `arithmetic`, with this schedule's value ("g = 2: queue 0 commits
    /// 2 groups in every step").
    #[serde(default, skip_serializing_if = "crate::wire::omit_empty")]
    pub symbols: Vec<String>,
    /// The newest group it forces complete (older ones complete with it, FIFO); the `count`
    /// groups after it are those it leaves in flight.
    pub forces: Option<GroupRef>,
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

    /// Why the wait has its count, as the page shows it beside the wait's line: the site's
    /// summary, then each explained instance's head arithmetic, its symbols and the groups it
    /// leaves in flight.
    pub fn why(&self) -> String {
        let mut t = self.summary.clone();
        for i in self.instances.iter().take(EXPLAINED_INSTANCES) {
            t.push('\n');
            t.push_str(&i.arithmetic);
            for symbol in &i.symbols {
                t.push_str("\n  ");
                t.push_str(symbol);
            }
            if i.count > 0 {
                t.push_str("\nleaves ");
                t.push_str(&crate::english::count(i.count, "group"));
                t.push_str(" in flight");
            }
        }
        t
    }
}

/// A wait site's "why" (`WaitSite::why`), sent to the page on its own after the exploration
/// (`protocol::Part::Whys`): the largest part of a large loop's waits, and shown only on demand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitWhy {
    pub site: u32,
    pub text: String,
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
    /// Under a symbolic extent, by drained queue, which of its last groups the drain lets stay
    /// beside those of the iterations N … max(N, S) − 1, where that is the same at every N this
    /// plan serves (else none).
    pub drain_kept: BTreeMap<i64, DrainKept>,
    /// True when every step commits its groups even if predicated off (symbolic extent).
    pub uniform_commits: bool,
    /// Queues that may still have groups in flight after the epilogue's own waits.
    pub undrained: Vec<i64>,
    /// The constant extent, if it is one.
    extent: Option<i64>,
    /// Groups of each queue (in `per_step`'s order) closed before each index of the step order,
    /// index-major.
    closed_before: Vec<i64>,
    /// The instances [`SyncPlan::explain`] writes the text of.
    unexplained: Vec<explain::Unexplained>,
    /// Under a symbolic extent with needs that begin at some iteration (`Need::starts`): the plans
    /// of the shorter extents, ascending, each for N below its `below` and at least the previous
    /// one's; this plan serves the rest. Their sites are this plan's (`sites`).
    pub regimes: Vec<Regime>,
    /// How many of `sites`, at their end, are waits only some range of `regimes` has.
    pub range_sites: usize,
}

/// What a drain under a symbolic extent lets stay in flight beside the groups of the iterations
/// N … max(N, S) − 1, which are committed empty (`SyncPlan::drain_kept`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DrainKept {
    /// This many groups before those, which hold nothing at any N the plan serves (a plan for
    /// one residue of N, `Serves::Residue`).
    Empty(i64),
    /// Every group after this one, the newest holding an instance at every N the plan serves
    /// (the queue's statements stopped, `if i < 7:`): g·max(N, S) − 1 − it, however many N adds.
    After(i64),
}

/// The plan for some extents: those below `below` (and at least the previous range's), or one
/// residue of N among the longer extents (`Serves`).
#[derive(Clone, Debug, PartialEq)]
pub struct Regime {
    pub serves: Serves,
    pub plan: SyncPlan,
}

/// The extents a range's plan serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Serves {
    /// N below this (and at least the previous range's bound).
    Below(i64),
    /// One residue of N within a range (or past the ranges): an epilogue step runs iteration
    /// N + k − stage, which meets its producer at a distance that may differ by the
    /// iteration's phase (`if i % 2 == 1:`), and the last groups may hold nothing by N's
    /// phase, so the epilogue's counts and the drains' differ by N's.
    Residue(Residue),
}

/// N from `from` on, below `below` (every N from `from` on: `None`), with N % `modulus` =
/// `residue`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Residue {
    pub from: i64,
    pub below: Option<i64>,
    pub modulus: i64,
    pub residue: i64,
}

impl Residue {
    /// The first N of the class.
    pub fn first(self) -> i64 {
        self.from + (self.residue - self.from).rem_euclid(self.modulus.max(1))
    }

    /// The N of the class from the first up to `last` (and below `below`), ascending.
    pub fn up_to(self, last: i64) -> impl Iterator<Item = i64> {
        let last = self.below.map_or(last, |b| last.min(b - 1));
        let step = usize::try_from(self.modulus.max(1)).unwrap_or(1);
        (self.first()..=last).step_by(step)
    }
}

impl SyncPlan {
    /// The smallest `k` for which shifting every stage up by `k` changes what some step waits
    /// for. A shift moves each unit's last `k` iterations from the body, whose one count serves
    /// all of its iterations, into the epilogue, where each step waits for what its own
    /// iteration needs (needs decided iteration by iteration, `exact.rs`): such a shift may wait
    /// less and take fewer cycles (the schedule search tries it). A smaller shift only adds steps
    /// with nothing in them. `None` when no shift changes a wait. With a symbolic extent whose
    /// counts are chosen by ranges of N, each range planned for its own N, a shift moves where
    /// those ranges begin and what their epilogues wait for, so any shift may change a wait.
    pub fn shift_changes_waits_from(&self) -> Option<i64> {
        if self.extent.is_none() && !self.regimes.is_empty() {
            return Some(1);
        }
        self.needs
            .iter()
            .filter_map(|n| n.exact.as_ref()?.shift_that_matters)
            .min()
    }

    /// The plan for every N alone: its ranges of N dropped with the waits only they have (when
    /// their programs could not be merged into one, `pipelined::build`).
    pub fn without_ranges(&mut self) {
        let own = self.sites.len().saturating_sub(self.range_sites);
        self.sites.truncate(own);
        self.range_sites = 0;
        self.regimes = Vec::new();
    }

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

/// `explain`: write each wait's summary and the needs it serves, and note the numbers
/// [`SyncPlan::explain`] writes the first instances' head arithmetic and reasons from; the counts
/// are derived either way.
pub fn derive(
    program: &crate::ir::Program,
    p: &LoopShape,
    diags: &mut Vec<Diagnostic>,
    explain: bool,
) -> Option<SyncPlan> {
    let mut needs = needs_of(p);
    let runs = exact::refine(program, p, &mut needs);
    let grouping = group(p, &mut needs);
    let queues: Vec<i64> = grouping.per_step.keys().copied().collect();
    let closed_before = closed_before(p, &grouping.groups, &queues);
    let symbolic_runs = match p.sched.extent.as_const() {
        Some(_) => Vec::new(),
        None => periodic::runs_by_iteration(program, p),
    };
    let regimes = regimes::Regimes {
        program,
        p,
        needs: &needs,
        grouping: &grouping,
        closed_before: &closed_before,
        runs: &runs,
        symbolic_runs: &symbolic_runs,
        explain,
    };
    let mut plan = regimes.plan(None, None, diags)?;
    regimes.add_to(&mut plan);
    Some(plan)
}

/// The plan for extents up to `regime_hi` (every extent: `None`), and of those only the residue
/// `regime_class` of N where set, with the groups and the needs the caller found.
fn planned(
    r: &regimes::Regimes,
    regime_hi: Option<i64>,
    regime_class: Option<Residue>,
    diags: &mut Vec<Diagnostic>,
) -> Option<SyncPlan> {
    let (p, needs) = (r.p, r.needs);
    let extent = p.sched.extent.as_const();
    let Grouping {
        groups,
        unit_group,
        per_step,
    } = r.grouping.clone();
    // Per-queue state is a short vector aligned with `queues` (the async stages, ascending).
    let queues: Vec<i64> = per_step.keys().copied().collect();
    let gs: Vec<i64> = per_step.values().map(|&g| i64::from(g)).collect();
    // A group's later members wait on its own queue where it opens (nothing of that queue
    // commits in between): their needs there are the first member's too.
    let mut later_members: Vec<Vec<usize>> = vec![Vec::new(); p.sched.units.len()];
    for g in &groups {
        for (k, &u) in g.units.iter().enumerate() {
            if let Some(later) = later_members.get_mut(u) {
                later.extend(g.units.iter().skip(k + 1));
            }
        }
    }
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
        queues: &queues,
        gs: &gs,
        needs,
        // Sites are per section, consumer and queue; most consumers wait in two or three sections.
        sites: Vec::with_capacity(3 * needs.len() + queues.len()),
        extent,
        closed_before: r.closed_before,
        by_consumer: &by_consumer,
        later_members: &later_members,
        groups: &groups,
        runs: r.runs,
        symbolic_runs: r.symbolic_runs,
        failed: false,
        // A range's plan is never shown: its waits take `main`'s sites (`regimes`).
        explain: r.explain && regime_hi.is_none() && regime_class.is_none(),
        diags,
        need_ids: Vec::with_capacity(needs.len()),
        site_ids: Vec::with_capacity(3 * needs.len() + queues.len()),
        facts: Vec::new(),
        entry: Entry::default(),
        unexplained: Vec::new(),
        regime_hi,
        regime_class,
        body_distances: Vec::new(),
        symbolic_body: Vec::new(),
    };
    // Groups already known complete carry from step to step (absolute group numbers per queue).
    let (prologue, covered) = cx.plan_prologue();
    let (body, covered) = cx.plan_body(covered);
    let (epilogue, covered) = cx.plan_epilogue(covered);
    let sections::Drains {
        undrained,
        drains,
        kept: drain_kept,
    } = cx.drain(r.program, &covered);
    if cx.failed {
        return None;
    }
    let (sites, unexplained) = (cx.sites, cx.unexplained);
    Some(SyncPlan {
        groups,
        per_step,
        unit_group,
        needs: needs.to_vec(),
        sites,
        prologue,
        body,
        epilogue,
        drains,
        drain_kept,
        uniform_commits: extent.is_none(),
        undrained,
        extent,
        closed_before: r.closed_before.to_vec(),
        unexplained,
        regimes: Vec::new(),
        range_sites: 0,
    })
}
