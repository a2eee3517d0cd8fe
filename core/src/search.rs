//! Schedule search: the annotations of a loop's pipeline that make it fastest for the shared
//! memory it uses. Every schedule tried is written into the text as a user would write it,
//! pipelined, and run under the cost model (`timeline::cycles`); the Pareto front of total cycles
//! and shared-memory bytes under a budget is kept, and a schedule enters it only once the
//! interpreter has judged it (same outputs, no race, every wait tight). Each schedule's steady
//! state is compared with the loop's lower bound (`schedule_bound`). docs/search.md.
//!
//! A search runs in slices (`Search::step`), so that the worker can read its messages between
//! two: it ends with a `StopReason`.

use crate::annotation_text::{Annotations, Template};
use crate::cost::CostModel;
use crate::explore::{self, Options};
use crate::ir::{Program, Scope};
use crate::pareto::Front;
use crate::schedule_bound::Bound;
use crate::schedule_space::{Cursor, Space};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet, VecDeque};

/// Loops of more units than this are searched locally (`Strategy::Local`): the orders alone
/// are `units!`.
pub const MAX_EXHAUSTIVE_UNITS: usize = 6;

/// What a search is asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchOptions {
    /// Stages run from 0 to `max_stages − 1`.
    pub max_stages: i64,
    /// Shared-memory bytes a schedule may use (its buffers, every version counted).
    pub smem_bytes: u64,
    /// Schedules tried at most; the search stops there (`StopReason::CandidateLimit`).
    pub max_candidates: u64,
    /// Every schedule the transform may accept (`Space::brute_force`), none bounded out: what
    /// the tests compare the search with.
    pub brute_force: bool,
    /// The cost model and symbolic extents, as the exploration's options.
    pub explore: Options,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            max_stages: 4,
            smem_bytes: SMEM_STATIC_BYTES,
            max_candidates: 1_000_000,
            brute_force: false,
            explore: Options::default(),
        }
    }
}

/// The static shared memory of a CUDA block: the default budget.
pub const SMEM_STATIC_BYTES: u64 = 48 * 1024;

/// The shared memory (LDS) a block may use on `target`: 48 KB static on sm_80, 227 KB on sm_90a,
/// 64 KB on gfx942, 160 KB on gfx950.
pub fn smem_limit(target: crate::emit::Target) -> u64 {
    use crate::emit::Target;
    match target {
        Target::Ptx => SMEM_STATIC_BYTES,
        Target::PtxSm90 => 227 * 1024,
        Target::Amdgpu | Target::AmdgpuIr => 64 * 1024,
        Target::AmdgpuGfx950 => 160 * 1024,
    }
}

/// How the space is walked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Every annotation of the pruned space (`schedule_space`).
    Exhaustive,
    /// From the loop's own schedule, the neighbours of every schedule that entered the front (a
    /// unit's stage one up or down, two units adjacent in the step order swapped, a stage made
    /// asynchronous or synchronous) until none enters it: not exhaustive.
    Local,
}

crate::wire::dual_tagged! {
    remote = "StopReason", json(tag = "reason"), both(rename_all = "snake_case");
/// Why a search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Every schedule of the space was tried (or bounded out): the front is exact.
    Exhausted,
    /// The local search found no neighbour that enters the front.
    LocalOptimum,
    /// `SearchOptions::max_candidates` schedules were tried.
    CandidateLimit { tried: u64 },
    /// Stopped from outside (the page's Cancel, or an edit of the text).
    Cancelled,
}
}

impl StopReason {
    /// Whether the front is the exact front of the space.
    pub fn is_exhaustive(&self) -> bool {
        matches!(self, StopReason::Exhausted)
    }

    pub fn describe(&self) -> String {
        match self {
            StopReason::Exhausted => "every schedule of the space was tried".into(),
            StopReason::LocalOptimum => {
                "local search: no neighbour of the front improves it (not exhaustive)".into()
            }
            StopReason::CandidateLimit { tried } => {
                format!("stopped after {tried} schedules, the limit (not exhaustive)")
            }
            StopReason::Cancelled => "cancelled (not exhaustive)".into(),
        }
    }
}

/// One schedule with its costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    pub annotations: Annotations,
    pub total_cycles: u64,
    pub steady_cycles_per_iteration: Option<f64>,
    /// Unpipelined cycles / total cycles.
    pub speedup: f64,
    /// Shared memory of the pipelined program's buffers, every version counted.
    pub smem_bytes: u64,
    /// Ring-buffer bytes per scope (`Metrics::ring_bytes`).
    pub ring_bytes: BTreeMap<String, u64>,
    pub waits: usize,
    /// Steady cycles per iteration over the loop's lower bound (below 1 only for a loop too
    /// short to reach its steady state).
    pub bound_ratio: Option<f64>,
    /// The steady state is at the lower bound: no schedule's is faster.
    pub at_bound: bool,
    /// The interpreter's verdict (only `equivalent` ones are in a front).
    pub verdict: Option<crate::verify::Verdict>,
}

/// Where a search is, and what it found so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchReport {
    pub loop_var: String,
    /// How each unit is named (the pipeline pane's labels).
    pub units: Vec<String>,
    pub strategy: Strategy,
    pub max_stages: i64,
    pub budget_bytes: u64,
    /// `None` while it runs.
    pub stop: Option<StopReason>,
    /// Schedules tried (transformed and costed, or refused by the transform).
    pub tried: u64,
    /// Of those, the ones the transform accepted.
    pub valid: u64,
    pub over_budget: u64,
    /// Schedules the interpreter ran (each before it entered the front).
    pub verified: u64,
    /// Schedules the interpreter found correct, but with a wait that could let more groups stay
    /// in flight (the dependence analysis was conservative): left out of the front, whose waits
    /// are all tight.
    pub loose_waits: u64,
    /// Schedules the interpreter did not judge equivalent and race-free with tight waits (a
    /// transform bug if ever non-zero): left out of the front.
    pub refused_by_interpreter: u64,
    /// Groups of schedules (a stage vector and an async set) left out because a bound showed
    /// none of their orders could enter the front.
    pub bounded_out: u64,
    /// An upper estimate of the unpruned space: `max_stages^units · units! · 2^max_stages`.
    pub space_bound: u64,
    /// How far an exhaustive walk is: the stage vectors walked (its outermost loop) and how many
    /// there are (`None` for a local search, whose end is not known ahead).
    #[serde(default)]
    pub progress: Option<(u64, u64)>,
    pub unpipelined_cycles: u64,
    pub bound: Bound,
    /// The front, fewest cycles first.
    pub front: Vec<Scored>,
    /// The loop's own schedule, costed the same way.
    pub own: Option<Scored>,
}

/// A search under way.
pub struct Search {
    template: Template,
    /// The text read once: each schedule tried changes only its annotations (`transform`).
    read: explore::ReadLoop,
    options: SearchOptions,
    model: CostModel,
    params: BTreeMap<String, i64>,
    space: Space,
    cursor: Cursor,
    local: VecDeque<Annotations>,
    /// Shifts of a schedule whose waits vary by iteration, tried next (`try_schedule`).
    shifts: VecDeque<Annotations>,
    seen: HashSet<Annotations>,
    front: Front<Scored>,
    report: SearchReport,
    /// Per unit, the issue cycles and the smallest latency (for the bound on a group's cycles).
    unit_costs: Vec<crate::schedule_bound::UnitCost>,
    extent: Option<i64>,
    /// The current group of the exhaustive walk: its stages and async set.
    group: Option<(Vec<i64>, Vec<i64>)>,
    /// The fewest shared-memory bytes any schedule takes: every buffer in one version (all
    /// units in stage 0).
    min_bytes: u64,
    /// Per unit, whether it may not be asynchronous (`ScheduledLoop::sync_only`): the local
    /// search does not step to a schedule that makes one asynchronous.
    sync_only: Vec<bool>,
}

impl Search {
    /// A search of `source`'s pipelined loop (the top loop; inner loops keep their annotations).
    /// The text must explore to a pipeline: the error says why it does not.
    pub fn new(source: &str, options: &SearchOptions) -> Result<Search, String> {
        let probe = Options {
            verify: false,
            both_forms: false,
            targets: Vec::new(),
            timeline_window: (0, 0),
            ..options.explore.clone()
        };
        let ex = explore::explore(source, &probe);
        let error = ex.diagnostics.iter().find(|d| d.is_error());
        let Some(info) = &ex.pipeline else {
            return Err(error.map_or_else(
                || "there is no pipelined loop to search".to_string(),
                |d| format!("the loop must explore before it is searched: {}", d.message),
            ));
        };
        let template = Template::new(source, &info.loop_var)?;
        let flat = flat(info.units.len());
        // A schedule the transform refuses: the search starts from the loop unpipelined.
        let (ex, own) = match error {
            None => {
                let own = Annotations {
                    stages: info.units.iter().map(|u| u.stage).collect(),
                    orders: info.units.iter().map(|u| u.order).collect(),
                    async_stages: info.async_stages.clone(),
                };
                (ex.clone(), Some(own))
            }
            Some(d) => {
                let flat_ex = explore::explore(&template.with(&flat), &probe);
                if flat_ex.diagnostics.iter().any(|d| d.is_error()) {
                    return Err(format!(
                        "the loop must explore before it is searched: {}",
                        d.message
                    ));
                }
                (flat_ex, None)
            }
        };
        let (Some(info), Some(model), Some(t)) = (&ex.pipeline, &ex.cost, &ex.timeline) else {
            return Err("there is no pipelined loop to search".into());
        };
        let lp = explore::scheduled_loop(&template.with(own.as_ref().unwrap_or(&flat)), &probe)
            .map_err(|d| d.first().map_or_else(String::new, |d| d.message.clone()))?;
        let read = explore::ReadLoop::read(&template.with(own.as_ref().unwrap_or(&flat)), &probe)
            .map_err(|d| d.first().map_or_else(String::new, |d| d.message.clone()))?;
        let units = info.units.len();
        let forward = forward_dependences(&lp);
        let max_stages = options
            .max_stages
            .clamp(1, crate::limits::MAX_STAGES_SEARCHED);
        let space = if options.brute_force {
            Space::brute_force(units, max_stages, forward)
        } else {
            Space::new(units, max_stages, forward).with_sync_only(lp.sync_only.clone())
        };
        let strategy = if options.brute_force || units <= MAX_EXHAUSTIVE_UNITS {
            Strategy::Exhaustive
        } else {
            Strategy::Local
        };
        let bound = crate::schedule_bound::loop_bound(&lp, model, max_stages);
        let unit_costs = bound.units.clone();
        let report = SearchReport {
            loop_var: info.loop_var.clone(),
            units: info.units.iter().map(|u| u.label.clone()).collect(),
            strategy,
            max_stages,
            budget_bytes: options.smem_bytes,
            stop: None,
            tried: 0,
            valid: 0,
            over_budget: 0,
            verified: 0,
            loose_waits: 0,
            refused_by_interpreter: 0,
            bounded_out: 0,
            space_bound: space.size_bound(),
            progress: None,
            unpipelined_cycles: t.metrics.unpipelined_cycles,
            bound,
            front: Vec::new(),
            own: None,
        };
        let mut search = Search {
            cursor: space.start(),
            space,
            template,
            read,
            options: SearchOptions {
                max_stages,
                ..options.clone()
            },
            model: model.clone(),
            params: ex.params.clone(),
            local: VecDeque::new(),
            shifts: VecDeque::new(),
            seen: HashSet::new(),
            front: Front::default(),
            report,
            unit_costs,
            // A timeline cut short by a limit covers part of the loop: no bound on its cycles.
            extent: lp.extent.filter(|_| t.step_limit.is_none()),
            group: None,
            min_bytes: 0,
            sync_only: lp.sync_only.clone(),
        };
        search.min_bytes = search.score(&flat).map_or(0, |s| s.smem_bytes);
        search.report.own = own.as_ref().and_then(|own| {
            let mut s = search.score(own)?;
            s.verdict = search.verdict(own);
            Some(s)
        });
        search.seed_with_own();
        if strategy == Strategy::Local {
            let start = own.unwrap_or(flat);
            search.seen.insert(start.clone());
            search.local.push_back(start);
        }
        Ok(search)
    }

    /// Puts the loop's own schedule in the front before an exhaustive walk, when it is one of the space's
    /// (stages below `max_stages`, the orders a permutation) within the budget and the
    /// interpreter judged it equivalent: the walk then cuts the runs it covers from the start.
    /// The front's values are those of the space's whichever schedule of equal values it keeps.
    fn seed_with_own(&mut self) {
        let Some(own) = &self.report.own else { return };
        let a = &own.annotations;
        let mut orders = a.orders.clone();
        orders.sort_unstable();
        let in_space = a
            .stages
            .iter()
            .all(|s| (0..self.options.max_stages).contains(s))
            && orders.iter().copied().eq(0..a.orders.len() as i64);
        // A local search walks from the own schedule's entry into the front.
        if self.options.brute_force
            || self.report.strategy != Strategy::Exhaustive
            || !in_space
            || own.verdict != Some(crate::verify::Verdict::Equivalent)
            || own.smem_bytes > self.options.smem_bytes
        {
            return;
        }
        self.report.verified += 1;
        self.front
            .offer(own.total_cycles, own.smem_bytes, own.clone());
    }

    /// What the search has found so far (the front as it is now).
    pub fn report(&self) -> SearchReport {
        SearchReport {
            front: self.front.points().map(|(_, _, s)| s.clone()).collect(),
            progress: (self.report.strategy == Strategy::Exhaustive)
                .then(|| self.space.progress(&self.cursor)),
            ..self.report.clone()
        }
    }

    pub fn stop_reason(&self) -> Option<&StopReason> {
        self.report.stop.as_ref()
    }

    /// Stops the search where it is (`StopReason::Cancelled`).
    pub fn cancel(&mut self) {
        self.report.stop.get_or_insert(StopReason::Cancelled);
    }

    /// The text with the front's `k`-th schedule (0 the fastest) in place of the loop's
    /// annotations.
    pub fn apply(&self, k: usize) -> Option<String> {
        let (_, _, s) = self.front.points().nth(k)?;
        Some(self.template.with(&s.annotations))
    }

    /// The text with `annotations` in place of the loop's.
    pub fn text_with(&self, annotations: &Annotations) -> String {
        self.template.with(annotations)
    }

    /// Tries up to `candidates` more schedules; whether the front changed. The search has ended
    /// when `stop_reason` is set.
    pub fn step(&mut self, candidates: u64) -> bool {
        let mut changed = false;
        for _ in 0..candidates {
            if self.report.stop.is_some() {
                break;
            }
            if self.report.tried >= self.options.max_candidates {
                self.report.stop = Some(StopReason::CandidateLimit {
                    tried: self.report.tried,
                });
                break;
            }
            let next = match self.report.strategy {
                Strategy::Exhaustive => self.next_exhaustive(),
                Strategy::Local => self.next_local(),
            };
            let Some(a) = next else {
                self.report.stop = Some(match self.report.strategy {
                    Strategy::Exhaustive => StopReason::Exhausted,
                    Strategy::Local => StopReason::LocalOptimum,
                });
                break;
            };
            changed |= self.try_schedule(a);
        }
        changed
    }

    /// Runs the search to its end.
    pub fn run(&mut self) -> StopReason {
        while self.report.stop.is_none() {
            self.step(1024);
        }
        self.report.stop.clone().unwrap_or(StopReason::Exhausted)
    }

    /// The next annotation of the exhaustive walk, skipping the orders of a group (stages and
    /// async set) whose bound shows none of them can enter the front.
    fn next_exhaustive(&mut self) -> Option<Annotations> {
        if let Some(shifted) = self.shifts.pop_front() {
            return Some(shifted);
        }
        let mut skip = false;
        loop {
            let a = self.space.next(&mut self.cursor, skip)?;
            let group = (a.stages.clone(), a.async_stages.clone());
            if self.group.as_ref() == Some(&group) {
                return Some(a);
            }
            self.group = Some(group);
            skip = !self.options.brute_force && self.group_is_covered(&a);
            if !skip {
                return Some(a);
            }
            self.report.bounded_out += 1;
        }
    }

    /// Whether every schedule of `a`'s stages and async set is covered by the front: its cycles
    /// are at least `cycles_floor` and its bytes at least the loop's with one version of every
    /// buffer.
    fn group_is_covered(&self, a: &Annotations) -> bool {
        self.extent.is_some_and(|e| e > 0)
            && self.front.covers(self.cycles_floor(a), self.min_bytes)
    }

    /// Cycles every schedule of `a`'s stages and async set takes at least: the compute lane's
    /// work (each unit issued every iteration, its latency too when synchronous), whatever its
    /// waits, and the critical recurrence's laps (`Bound::cycles_floor`: its edges hold at
    /// every iteration). 0 without a constant trip count.
    fn cycles_floor(&self, a: &Annotations) -> u64 {
        let Some(extent) = self.extent.filter(|e| *e > 0) else {
            return 0;
        };
        let per_iteration: u64 = self
            .unit_costs
            .iter()
            .zip(&a.stages)
            .map(|(u, s)| {
                if a.async_stages.contains(s) {
                    u.issue
                } else {
                    u.issue.saturating_add(u.sync_latency)
                }
            })
            .sum();
        per_iteration
            .saturating_mul(extent as u64)
            .max(self.report.bound.cycles_floor(extent))
    }

    fn next_local(&mut self) -> Option<Annotations> {
        self.shifts.pop_front().or_else(|| self.local.pop_front())
    }

    /// Costs `a`, and offers it to the front (after the interpreter's judgement); whether it
    /// entered. Its run is not simulated, or stopped early, once it is sure to be covered: its
    /// cycles floor, or the cycles simulated so far, reach the fewest cycles of the front within
    /// its bytes (not in the brute force, which the tests compare with).
    fn try_schedule(&mut self, a: Annotations) -> bool {
        self.report.tried += 1;
        let Some(unplaced) = self.transform(&a) else {
            return false;
        };
        self.report.valid += 1;
        let bytes = smem_bytes(unplaced.without_barriers());
        if bytes > self.options.smem_bytes {
            self.report.over_budget += 1;
            return false;
        }
        let limit = match self.front.fewest_within(bytes) {
            Some(fewest) if !self.options.brute_force => fewest,
            _ => u64::MAX,
        };
        if limit < u64::MAX && self.cycles_floor(&a) >= limit {
            return false;
        }
        // Barriers only add cycles: a schedule too slow without them is placed no barrier.
        if unplaced.has_threads()
            && limit < u64::MAX
            && crate::timeline::cycles_below(
                unplaced.without_barriers(),
                &self.model,
                &self.params,
                limit,
            )
            .is_none()
        {
            return false;
        }
        let rolled = unplaced.placed();
        // Its shifts are other schedules when its waits vary by iteration: each is tried too,
        // whatever this one's cycles (the floor above holds for them: the same work).
        // (From shift 1, every shift is queued: the interpreter's verdict need not replace it.)
        let every_shift_queued = rolled
            .shift_changes_waits_from
            .is_some_and(|from| self.queue_shifts(&a, from) && from <= 1);
        let Some(cycles) =
            crate::timeline::cycles_below(&rolled.program, &self.model, &self.params, limit)
        else {
            return false;
        };
        if !self.offer(self.scored(a.clone(), &rolled, cycles), !every_shift_queued) {
            return false;
        }
        if self.report.strategy == Strategy::Local {
            for n in neighbours(&a, self.options.max_stages) {
                let refused = self
                    .sync_only
                    .iter()
                    .zip(&n.stages)
                    .any(|(only, stage)| *only && n.async_stages.contains(stage));
                if !refused && self.seen.insert(n.clone()) {
                    self.local.push_back(n);
                }
            }
        }
        true
    }

    /// Queues `a`'s stages shifted up by `from` … as far as `max_stages` allows, when the walk
    /// lists it (stages from 0, not the brute force): a shift moves each unit's last iterations
    /// from the body into the epilogue, where each step waits for what its own iteration needs,
    /// and from `from` on that changes a wait. Whether any was queued.
    fn queue_shifts(&mut self, a: &Annotations, from: i64) -> bool {
        let top = a.stages.iter().max().copied().unwrap_or(0);
        if self.options.brute_force || a.stages.iter().min() != Some(&0) {
            return false;
        }
        let mut queued = false;
        for shift in from.max(1)..self.options.max_stages - top {
            let shifted = shifted(a, shift);
            if self.report.strategy == Strategy::Exhaustive || self.seen.insert(shifted.clone()) {
                self.shifts.push_back(shifted);
                queued = true;
            }
        }
        queued
    }

    /// Offers a costed schedule to the front: within the budget, not covered, and judged
    /// equivalent by the interpreter. With `replace`, one the interpreter finds loose or wrong is
    /// replaced by the first of its stages shifted up (the walk lists stages from 0 only) that is
    /// judged equivalent and not covered: a shift runs the same steps, but a step with nothing in
    /// it can leave out a wait or a group the first one kept. Whether the front changed.
    fn offer(&mut self, scored: Scored, replace: bool) -> bool {
        if scored.smem_bytes > self.options.smem_bytes {
            self.report.over_budget += 1;
            return false;
        }
        if self.front.covers(scored.total_cycles, scored.smem_bytes) {
            return false;
        }
        let verdict = self.verdict(&scored.annotations);
        self.report.verified += 1;
        match verdict {
            Some(crate::verify::Verdict::Equivalent) => {
                return self.front.offer(
                    scored.total_cycles,
                    scored.smem_bytes,
                    Scored { verdict, ..scored },
                );
            }
            Some(crate::verify::Verdict::SafeButLoose) => self.report.loose_waits += 1,
            _ => self.report.refused_by_interpreter += 1,
        }
        let a = &scored.annotations;
        let top = a.stages.iter().max().copied().unwrap_or(0);
        let from = a.stages.iter().min().copied().unwrap_or(0);
        if !replace || self.options.brute_force || from != 0 {
            return false;
        }
        for shift in 1..self.options.max_stages - top {
            if let Some(s) = self.score(&shifted(a, shift)) {
                if self.offer(s, false) {
                    return true;
                }
            }
        }
        false
    }

    /// `a`'s costs, or `None` when the transform refuses it (not judged by the interpreter).
    pub fn score(&self, a: &Annotations) -> Option<Scored> {
        let rolled = self.transform(a)?.placed();
        let cycles = crate::timeline::cycles(&rolled.program, &self.model, &self.params);
        Some(self.scored(a.clone(), &rolled, cycles))
    }

    /// `a`'s rolled pipelined program, its barriers not placed yet, or `None` when the transform
    /// refuses it: the text read once with `a` in place of its annotations, which is the
    /// program of the text written out with them (`core/tests/search.rs`).
    fn transform(&self, a: &Annotations) -> Option<explore::Unplaced> {
        let options = Options {
            verify: false,
            both_forms: false,
            targets: Vec::new(),
            ..self.options.explore.clone()
        };
        explore::rolled_with(&self.read, &self.report.loop_var, a, &options).ok()
    }

    /// `a`'s costs from its rolled program and its run.
    fn scored(
        &self,
        annotations: Annotations,
        rolled: &explore::Rolled,
        cycles: crate::timeline::Cycles,
    ) -> Scored {
        let steady = cycles.steady;
        let bound = &self.report.bound;
        Scored {
            annotations,
            total_cycles: cycles.total,
            steady_cycles_per_iteration: steady,
            speedup: if cycles.total > 0 {
                self.report.unpipelined_cycles as f64 / cycles.total as f64
            } else {
                1.0
            },
            smem_bytes: smem_bytes(&rolled.program),
            ring_bytes: crate::timeline::ring_bytes(&rolled.program),
            waits: rolled.wait_sites,
            bound_ratio: steady.map(|ii| bound.ratio(ii)),
            at_bound: steady.is_some_and(|ii| bound.is_at_bound(ii)),
            verdict: None,
        }
    }

    /// The interpreter's verdict on `a`'s pipelined program (every short trip count too, for a
    /// symbolic extent).
    pub fn verdict(&self, a: &Annotations) -> Option<crate::verify::Verdict> {
        let options = Options {
            verify: true,
            timeline: false,
            both_forms: false,
            targets: Vec::new(),
            ..self.options.explore.clone()
        };
        let ex = explore::explore(&self.template.with(a), &options);
        ex.verification.map(|v| v.verdict)
    }
}

/// `a` with every stage, async ones too, `shift` higher.
fn shifted(a: &Annotations, shift: i64) -> Annotations {
    Annotations {
        stages: a.stages.iter().map(|s| s + shift).collect(),
        orders: a.orders.clone(),
        async_stages: a.async_stages.iter().map(|s| s + shift).collect(),
    }
}

/// Every unit in stage 0 in the loop's order, nothing asynchronous: the loop unpipelined.
fn flat(units: usize) -> Annotations {
    Annotations {
        stages: vec![0; units],
        orders: (0..units as i64).collect(),
        async_stages: Vec::new(),
    }
}

/// The dependences within one iteration, `(from, to)` in the loop's order: no schedule may
/// reverse them (`Space`).
pub fn forward_dependences(lp: &explore::ScheduledLoop) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = lp
        .deps
        .iter()
        .filter(|d| d.from < d.to && d.distances.contains(0))
        .map(|d| (d.from, d.to))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The shared memory a pipelined program's buffers take, every version counted.
pub fn smem_bytes(program: &Program) -> u64 {
    program
        .buffers
        .iter()
        .filter(|b| b.scope == Scope::Shared)
        .map(|b| {
            let elems: i64 = b.shape.as_ref().map_or(0, |s| s.iter().product());
            elems.max(0) as u64 * u64::from(b.dtype.bytes())
        })
        .sum()
}

/// The schedules one move from `a`: a unit's stage one up or down (within `max_stages`), two
/// units adjacent in the step order swapped, a stage used made asynchronous or synchronous.
pub fn neighbours(a: &Annotations, max_stages: i64) -> Vec<Annotations> {
    let mut out = Vec::new();
    let used = |stages: &[i64]| {
        let mut u = stages.to_vec();
        u.sort_unstable();
        u.dedup();
        u
    };
    for u in 0..a.stages.len() {
        for delta in [-1, 1] {
            let mut stages = a.stages.clone();
            let Some(s) = stages.get_mut(u) else { continue };
            *s += delta;
            if *s < 0 || *s >= max_stages {
                continue;
            }
            let now_used = used(&stages);
            let async_stages = a
                .async_stages
                .iter()
                .copied()
                .filter(|x| now_used.contains(x))
                .collect();
            out.push(Annotations {
                stages,
                orders: a.orders.clone(),
                async_stages,
            });
        }
    }
    let mut step_order: Vec<usize> = (0..a.orders.len()).collect();
    step_order.sort_by_key(|&u| (a.orders.get(u).copied().unwrap_or(0), u));
    for k in 1..step_order.len() {
        let mut swapped = step_order.clone();
        swapped.swap(k - 1, k);
        let mut orders = vec![0; swapped.len()];
        for (pos, &u) in swapped.iter().enumerate() {
            if let Some(o) = orders.get_mut(u) {
                *o = pos as i64;
            }
        }
        out.push(Annotations {
            stages: a.stages.clone(),
            orders,
            async_stages: a.async_stages.clone(),
        });
    }
    for s in used(&a.stages) {
        let mut async_stages: Vec<i64> = a.async_stages.clone();
        if let Some(at) = async_stages.iter().position(|x| *x == s) {
            async_stages.remove(at);
        } else {
            async_stages.push(s);
            async_stages.sort_unstable();
        }
        out.push(Annotations {
            stages: a.stages.clone(),
            orders: a.orders.clone(),
            async_stages,
        });
    }
    out
}
