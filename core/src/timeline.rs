//! Per-lane simulation of a program under the cost model: one compute lane runs statements in program
//! order; each async queue is a lane on which an async statement is in flight from its issue to its
//! completion; a wait stalls the compute lane until the groups it forces have completed.
//! docs/cost-model.md gives the model and the closed form the tests check. `sequence` records the
//! one sequence of groups sm_80 and asyncmarks keep instead, and what its waits force; `runs`
//! the simulations a timeline is made of; `notes` what a timeline says of itself in words.

mod notes;
mod runs;
mod sequence;

use crate::cost::{Cost, CostModel};
use crate::ir::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, VecDeque};

pub use runs::{cycles, cycles_below, simulate, Cycles};
pub use sequence::SequenceForced;

crate::wire::dual_tagged! {
    remote = "Lane", json(tag = "lane", content = "queue"), both(rename_all = "snake_case");
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lane {
    Compute,
    Queue(i64),
}
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Span {
    pub lane: Lane,
    pub stmt: StmtId,
    pub iteration: Option<i64>,
    pub section: Option<SectionKind>,
    /// Top-level step (iteration of the outermost loops, counted across sections).
    pub step: u64,
    pub start: u64,
    pub end: u64,
    /// On a queue's lane, the sub-row of its group: groups of one queue in flight together are
    /// drawn on rows of their own (the lowest row free when the group's first copy is issued).
    #[serde(default)]
    pub row: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    /// Pre-order index of the wait and its derived id.
    pub wait_index: usize,
    pub wait: Option<u32>,
    pub queue: i64,
    pub start: u64,
    pub end: u64,
    /// Commit number (within the queue) of the newest group it waited for.
    pub group: u64,
    pub step: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    pub queue: i64,
    pub group: u64,
    pub commit: u64,
    pub complete: u64,
    pub step: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub total_cycles: u64,
    /// Average cycles per body step in the steady state (middle of the body), if there is a body.
    pub steady_cycles_per_iteration: Option<f64>,
    pub unpipelined_cycles: u64,
    /// `unpipelined_cycles / total_cycles`; `None` when a limit stopped any of the runs before
    /// the loop's end (they then cover different parts of it).
    pub speedup: Option<f64>,
    /// The pipelined program with every wait count 0 — each async copy awaited at the first wait
    /// after it, nothing left in flight — simulated under the same model: what overlapping
    /// groups across steps buys, apart from what reordering the statements does.
    #[serde(default)]
    pub awaited_cycles: u64,
    /// `awaited_cycles / total_cycles`; `None` as `speedup`.
    #[serde(default)]
    pub speedup_over_awaited: Option<f64>,
    pub stall_cycles: u64,
    /// Stall cycles per wait (by pre-order index).
    pub stall_by_wait: BTreeMap<usize, u64>,
    /// Bytes of ring buffers per scope (versions × shape × element size).
    pub ring_bytes: BTreeMap<String, u64>,
    pub peak_groups_in_flight: BTreeMap<i64, u64>,
    pub steps: u64,
    /// Total cycles with every wait the instruction of the sm_80 and asyncmark kernels (one
    /// sequence of groups, `Timeline::sequence`), when one of them completes more than the IR
    /// asks; the other metrics and the chart are the per-queue waits'.
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub sequence_cycles: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub lanes: Vec<Lane>,
    pub spans: Vec<Span>,
    pub stalls: Vec<Stall>,
    pub markers: Vec<Marker>,
    pub metrics: Metrics,
    /// Steps whose spans are included: [from, to). The window asked for, or shorter when
    /// `bars_limited`.
    pub window: (u64, u64),
    /// The window ends early: its bars reached `limits::MAX_TIMELINE_BARS`.
    #[serde(default)]
    pub bars_limited: bool,
    /// Barriers passed in the steps drawn (each costing `CostModel::barrier`).
    #[serde(default, skip_serializing_if = "crate::wire::omit_default")]
    pub barriers: u64,
    /// True when the simulation stopped at the window's end or the step limit.
    pub truncated: bool,
    /// Sub-rows drawn per queue lane (`Span::row` is below it).
    #[serde(default)]
    pub queue_rows: BTreeMap<i64, u32>,
    /// The steps the metrics cover, when a limit stopped the simulation (`limits::MAX_TIMELINE_STEPS`
    /// steps, or `limits::MAX_TIMELINE_INSTANCES` statement instances).
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub step_limit: Option<u64>,
    /// The waits that, on sm_80 and with asyncmarks (one in-order sequence of groups per
    /// thread), complete groups the per-queue waits let stay in flight.
    #[serde(default, skip_serializing_if = "crate::wire::omit_empty")]
    pub sequence: Vec<SequenceForced>,
    /// The single sequence's commits and waits, when more than `limits::MAX_SEQUENCE_EVENTS`:
    /// what its waits force is then not worked out.
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub sequence_events: Option<usize>,
}

impl Timeline {
    /// Steps whose bars are drawn, counted from 1: [first, last].
    pub fn shown_steps(&self) -> (u64, u64) {
        (self.window.0 + 1, self.window.1.min(self.metrics.steps))
    }
}

struct Group {
    seq: u64,
    complete: u64,
}

struct Sim<'a> {
    program: &'a Program,
    model: &'a CostModel,
    env: Vec<i64>,
    now: u64,
    open: Vec<(i64, u64)>,
    in_flight: BTreeMap<i64, VecDeque<Group>>,
    committed: BTreeMap<i64, u64>,
    async_depth: usize,
    section: Option<SectionKind>,
    depth: usize,
    step: u64,
    step_starts: Vec<(u64, Option<SectionKind>, u64)>,
    window: (u64, u64),
    stop_after: u64,
    max_steps: u64,
    /// The run stops at the first step that begins at or after this cycle (`cycles_below`), and
    /// says so in `reached_cycle_limit`.
    cycle_limit: u64,
    reached_cycle_limit: bool,
    /// Statement instances simulated, against `limits::MAX_TIMELINE_INSTANCES`.
    instances: u64,
    /// Loop iterations stepped through (`limits::MAX_LOOP_ITERATIONS`).
    iterations: u64,
    stop: bool,
    out: Timeline,
    /// Static pre-order index of every wait node (by address), as the interpreter numbers them.
    wait_ids: HashMap<*const Node, usize>,
    /// Cost of each source statement, filled on first use: every copy of a statement costs the
    /// same, and classifying one walks its expression (a tenth of a large exploration, per instance).
    costs: Vec<Option<Cost>>,
    /// Per queue, the cycle until which each sub-row is taken by a group.
    rows_free_at: BTreeMap<i64, Vec<u64>>,
    /// Recorded only when asked (`Mode::Moments`).
    moments: Option<Moments>,
    /// The single sequence of groups, recorded in every run but `Mode::Baseline` and
    /// `Mode::Moments`, whose sequence nothing reads.
    recorder: Option<sequence::Recorder>,
    /// `Mode::Sequence`: per recorded wait, the groups its instruction keeps in flight; and the
    /// completion of every group in flight in the single sequence, oldest first.
    keep: Option<&'a [u64]>,
    in_sequence: VecDeque<u64>,
}

/// What a run records or how it waits, besides the spans and metrics.
#[derive(Clone, Copy)]
enum Mode<'a> {
    Plain,
    /// A run only compared against (the original loop, the program awaited at once): `Plain`
    /// without recording the single sequence (about a tenth of a long loop's simulation).
    Baseline,
    /// `Sim::moments`.
    Moments,
    /// Each wait is the single sequence's instruction: it keeps this many groups in flight, of
    /// any queue (per key of `sequence::Recorder::wait`).
    Sequence(&'a [u64]),
}

/// When things happen in a simulation: each statement instance's start, in program order, and
/// each group's completion, per queue in commit order (`moments`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Moments {
    pub instance_starts: Vec<u64>,
    pub completions: BTreeMap<i64, Vec<u64>>,
}

impl Moments {
    /// Per queue, for each group, the statement instance (from 1) before which it has completed:
    /// the first one starting at or after its completion (`interp::RunOptions::completions`).
    pub fn completion_instances(&self) -> BTreeMap<i64, Vec<u64>> {
        self.completions
            .iter()
            .map(|(q, cycles)| {
                let at = cycles
                    .iter()
                    .map(|c| self.instance_starts.partition_point(|s| s < c) as u64 + 1)
                    .collect();
                (*q, at)
            })
            .collect()
    }
}

impl Sim<'_> {
    fn record(&self) -> bool {
        self.step >= self.window.0 && self.step < self.window.1
    }

    fn nodes(&mut self, nodes: &[Node]) {
        for n in nodes {
            if self.stop {
                return;
            }
            self.node(n);
        }
    }

    /// Every statement before it ended at `now` (the compute lane is in order), in every thread
    /// alike: the barrier releases `barrier` cycles later.
    fn barrier(&mut self) {
        self.now += self.model.barrier;
        self.out.barriers += 1;
    }

    fn node(&mut self, n: &Node) {
        match n {
            Node::Barrier { .. } => self.barrier(),
            Node::Section { kind, body, steps } => {
                let saved = self.section;
                if self.depth == 0 {
                    self.section = Some(*kind);
                }
                match steps {
                    Some(steps) if self.depth == 0 => self.written_steps(body, steps),
                    _ => self.nodes(body),
                }
                self.section = saved;
            }
            Node::For {
                var, lo, hi, body, ..
            } => {
                if let (Some(l), Some(h)) = (lo.eval(&self.env), hi.eval(&self.env)) {
                    self.for_loop(*var, l, h, body);
                }
            }
            Node::If { cond, body, .. } => {
                if cond.eval(&self.env) == Some(true) {
                    self.nodes(body);
                }
            }
            Node::Commit { queue, body, .. } => {
                if self.depth == 0 {
                    self.begin_step();
                }
                let seq = self.committed.get(queue).copied().unwrap_or(0);
                self.open.push((*queue, 0));
                self.in_sequence_record(|r| r.open());
                let first_span = self.out.spans.len();
                let opened_at = self.now;
                self.depth += 1;
                self.nodes(body);
                self.depth -= 1;
                let (_, done) = self.open.pop().unwrap_or((*queue, 0));
                // FIFO: a group completes no earlier than the one before it.
                let prev = self
                    .in_flight
                    .get(queue)
                    .and_then(|q| q.back())
                    .map_or(0, |g| g.complete);
                let complete = done.max(prev).max(self.now);
                if let Some(m) = self.moments.as_mut() {
                    m.completions.entry(*queue).or_default().push(complete);
                }
                self.place_on_row(*queue, first_span, opened_at, complete);
                self.in_sequence_record(|r| r.commit(*queue));
                if self.keep.is_some() {
                    self.in_sequence.push_back(complete);
                }
                if let Some(limit) = self.model.max_groups_in_flight {
                    while self.in_flight.get(queue).map_or(0, |q| q.len()) as u64
                        >= u64::from(limit.max(1))
                    {
                        let Some(g) = self.in_flight.get_mut(queue).and_then(|q| q.pop_front())
                        else {
                            break;
                        };
                        self.now = self.now.max(g.complete);
                    }
                }
                self.committed.insert(*queue, seq + 1);
                let q = self.in_flight.entry(*queue).or_default();
                q.push_back(Group { seq, complete });
                let peak = self
                    .out
                    .metrics
                    .peak_groups_in_flight
                    .entry(*queue)
                    .or_insert(0);
                *peak = (*peak).max(q.len() as u64);
                if self.record() {
                    self.out.markers.push(Marker {
                        queue: *queue,
                        group: seq,
                        commit: self.now,
                        complete,
                        step: self.step,
                    });
                }
            }
            Node::AsyncScope { body, .. } => {
                self.async_depth += 1;
                self.depth += 1;
                self.nodes(body);
                self.depth -= 1;
                self.async_depth -= 1;
            }
            Node::Wait {
                queue,
                count,
                body,
                wait,
                ..
            } => {
                let index = self.wait_ids.get(&(n as *const Node)).copied().unwrap_or(0);
                if self.depth == 0 {
                    self.begin_step();
                }
                let n = count.eval(&self.env).unwrap_or(0).max(0) as usize;
                let mut until = self.now;
                let mut newest = None;
                if let Some(q) = self.in_flight.get_mut(queue) {
                    while q.len() > n {
                        if let Some(g) = q.pop_front() {
                            until = until.max(g.complete);
                            newest = Some(g.seq);
                        }
                    }
                }
                // Without a recorder there is no `Mode::Sequence`: the key is never read.
                let k = self
                    .recorder
                    .as_mut()
                    .map_or(0, |r| r.wait(index, *wait, *queue, n as i64, self.step));
                until = until.max(self.sequence_wait(k));
                if until > self.now {
                    *self.out.metrics.stall_by_wait.entry(index).or_insert(0) += until - self.now;
                    self.out.metrics.stall_cycles += until - self.now;
                    if self.record() {
                        self.out.stalls.push(Stall {
                            wait_index: index,
                            wait: *wait,
                            queue: *queue,
                            start: self.now,
                            end: until,
                            group: newest.unwrap_or(0),
                            step: self.step,
                        });
                    }
                    self.now = until;
                }
                self.depth += 1;
                self.nodes(body);
                self.depth -= 1;
            }
            Node::Assign(a) => {
                if self.depth == 0 {
                    self.begin_step();
                }
                self.assign(a);
            }
        }
    }

    /// Records in the single sequence, in the runs that record it (`Sim::recorder`).
    fn in_sequence_record(&mut self, event: impl FnOnce(&mut sequence::Recorder)) {
        if let Some(r) = self.recorder.as_mut() {
            event(r);
        }
    }

    /// Under `Mode::Sequence`, when the kernels' instruction for the wait with key `k` is done:
    /// it completes every group but the `keep` newest, of any queue (at least those the IR asks
    /// for).
    fn sequence_wait(&mut self, k: usize) -> u64 {
        let keep = self
            .keep
            .map_or(u64::MAX, |keep| keep.get(k).copied().unwrap_or(u64::MAX));
        let mut until = 0;
        while self.in_sequence.len() as u64 > keep {
            until = until.max(self.in_sequence.pop_front().unwrap_or(0));
        }
        until
    }

    fn for_loop(&mut self, var: VarId, l: i64, h: i64, body: &[Node]) {
        let top = self.depth == 0;
        if !top && h - l > 1 && self.uniform_loop(var, body) {
            self.uniform_iterations(var, l, h, body);
            return;
        }
        // The pipelined loop: one instruction per wait in the kernels, whatever the iteration.
        let body_loop = top && matches!(self.section, None | Some(SectionKind::Body));
        if body_loop {
            self.in_sequence_record(|r| r.enter_body());
        }
        self.depth += 1;
        let mut v = l;
        while v < h && !self.stop {
            self.iterations += 1;
            if self.iterations > crate::limits::MAX_LOOP_ITERATIONS {
                self.stop = true;
                self.out.truncated = true;
                break;
            }
            if let Some(x) = self.env.get_mut(var as usize) {
                *x = v;
            }
            if top {
                self.begin_step();
            }
            self.nodes(body);
            if body_loop {
                self.in_sequence_record(|r| r.end_iteration());
            }
            v += 1;
        }
        self.depth -= 1;
        if body_loop {
            self.in_sequence_record(|r| r.leave_body());
        }
    }

    /// Whether every iteration of a loop over `var` inside a step does the same to the run,
    /// shifted by the time one takes, so that one iteration tells all (`uniform_iterations`):
    /// its body is statements and loops whose bounds no enclosing iteration changes, and nothing
    /// of it is recorded (no span in the window drawn, no moments, no single sequence).
    fn uniform_loop(&self, var: VarId, body: &[Node]) -> bool {
        fn only_statements(nodes: &[Node], vars: &mut Vec<VarId>) -> bool {
            nodes.iter().all(|n| match n {
                Node::Assign(_) => true,
                Node::For {
                    var, lo, hi, body, ..
                } => {
                    if vars.iter().any(|&v| lo.mentions(v) || hi.mentions(v)) {
                        return false;
                    }
                    vars.push(*var);
                    let ok = only_statements(body, vars);
                    vars.pop();
                    ok
                }
                _ => false,
            })
        }
        !self.record()
            && self.moments.is_none()
            && self.recorder.is_none()
            && only_statements(body, &mut vec![var])
    }

    /// The iterations `l..h` of a `uniform_loop`: the first is simulated, the others are it
    /// shifted by the time it took. A statement's cost is its own whatever the iteration, so an
    /// iteration advances the compute lane by the same amount each time, and the asynchronous
    /// copies of the group being committed complete that much later each time: the last
    /// iteration's completions are the latest.
    fn uniform_iterations(&mut self, var: VarId, l: i64, h: i64, body: &[Node]) {
        let copies = self.async_depth > 0 && !self.open.is_empty();
        // The group's completion so far is set aside, to read what the iteration adds.
        let before = self
            .open
            .last_mut()
            .filter(|_| copies)
            .map(|open| std::mem::take(&mut open.1));
        let (now, instances) = (self.now, self.instances);
        if let Some(x) = self.env.get_mut(var as usize) {
            *x = l;
        }
        self.depth += 1;
        self.nodes(body);
        self.depth -= 1;
        let more = (h - l - 1) as u64;
        let took = self.now - now;
        self.now = self.now.saturating_add(took.saturating_mul(more));
        self.instances = instances + (self.instances - instances) * (more + 1);
        if let (Some(done_before), Some(open)) = (before, self.open.last_mut()) {
            open.1 = done_before.max(open.1.saturating_add(took.saturating_mul(more)));
        }
        if let Some(x) = self.env.get_mut(var as usize) {
            *x = h - 1;
        }
    }

    /// A top-level section whose steps the transform recorded (`Node::Section::steps`): each
    /// written-out step is one step however many nodes it takes; then loops count their
    /// iterations, and what follows them ends the last step.
    fn written_steps(&mut self, body: &[Node], steps: &[u32]) {
        let mut rest = body;
        for &n in steps {
            if self.stop {
                return;
            }
            let (step, after) = rest.split_at((n as usize).min(rest.len()));
            rest = after;
            self.begin_step();
            self.depth += 1;
            self.nodes(step);
            self.depth -= 1;
        }
        for n in rest {
            if self.stop {
                return;
            }
            if matches!(n, Node::For { .. }) {
                self.node(n);
            } else {
                self.depth += 1;
                self.node(n);
                self.depth -= 1;
            }
        }
    }

    /// Puts the spans this group drew on its queue's lane (from `first_span` on) on the lowest
    /// sub-row free when the group opened, taken until it completes.
    fn place_on_row(&mut self, queue: i64, first_span: usize, opened_at: u64, complete: u64) {
        let Some(spans) = self.out.spans.get_mut(first_span..) else {
            return;
        };
        let lane = Lane::Queue(queue);
        if !spans.iter().any(|s| s.lane == lane) {
            return;
        }
        let rows = self.rows_free_at.entry(queue).or_default();
        let row = match rows.iter().position(|&free| free <= opened_at) {
            Some(r) => r,
            None => {
                rows.push(0);
                rows.len() - 1
            }
        };
        if let Some(free) = rows.get_mut(row) {
            *free = complete;
        }
        for s in spans.iter_mut().filter(|s| s.lane == lane) {
            s.row = row as u32;
        }
        let drawn = self.out.queue_rows.entry(queue).or_insert(0);
        *drawn = (*drawn).max(row as u32 + 1);
    }

    fn begin_step(&mut self) {
        self.step += 1;
        self.step_starts.push((self.now, self.section, self.step));
        let bars = self.out.spans.len() + self.out.stalls.len() + self.out.markers.len();
        if self.record() && self.step > self.window.0 && bars >= crate::limits::MAX_TIMELINE_BARS {
            // The window ends here (the run too: the metrics come from a run of their own).
            self.window.1 = self.step;
            self.stop_after = self.stop_after.min(self.step - 1);
            self.out.bars_limited = true;
        }
        // Limits stop a run between steps: a step may be one statement or all of them, so
        // instances are counted, not estimated per step.
        if self.now >= self.cycle_limit {
            self.reached_cycle_limit = true;
            self.stop = true;
        }
        if self.step > self.stop_after
            || self.step > self.max_steps
            || self.instances >= crate::limits::MAX_TIMELINE_INSTANCES as u64
        {
            self.stop = true;
            self.out.truncated = true;
        }
    }

    fn assign(&mut self, a: &Assign) {
        self.instances += 1;
        // Limits stop a run between steps (`begin_step`), except this one.
        if self.instances > crate::limits::MAX_TIMELINE_STEP_INSTANCES as u64 {
            self.stop = true;
            self.out.truncated = true;
            return;
        }
        self.in_sequence_record(|r| r.statement());
        let id = a.stmt as usize;
        let cost = match self.costs.get(id) {
            Some(Some(c)) => *c,
            _ => {
                let c = self.model.cost(self.program, a);
                if self.costs.len() <= id {
                    // Ids are dense from 0 (lowering numbers statements in text order).
                    self.costs.resize(id + 1, None);
                }
                if let Some(slot) = self.costs.get_mut(id) {
                    *slot = Some(c);
                }
                c
            }
        };
        let iteration = a.iteration.as_ref().and_then(|e| e.eval(&self.env));
        let start = self.now;
        if let Some(m) = self.moments.as_mut() {
            m.instance_starts.push(start);
        }
        let record = self.record();
        let base = Span {
            lane: Lane::Compute,
            stmt: a.stmt,
            iteration,
            section: self.section,
            step: self.step,
            start,
            end: start,
            row: 0,
        };
        match (self.async_depth > 0, self.open.last_mut()) {
            (true, Some((queue, done))) => {
                if crate::emit::copy_source(self.program, a).is_some() {
                    if let Some(r) = self.recorder.as_mut() {
                        r.copy();
                    }
                }
                let issued = start + cost.issue;
                let complete = issued + cost.latency;
                *done = (*done).max(complete);
                let queue = *queue;
                self.now = issued;
                if record {
                    self.out.spans.push(Span {
                        end: issued,
                        ..base.clone()
                    });
                    self.out.spans.push(Span {
                        lane: Lane::Queue(queue),
                        start: issued,
                        end: complete,
                        ..base
                    });
                }
            }
            _ => {
                self.now = start + cost.issue + cost.latency;
                if record {
                    self.out.spans.push(Span {
                        end: self.now,
                        ..base
                    });
                }
            }
        }
    }
}

/// Numbers the wait nodes in pre-order, as the interpreter does.
fn number_waits(nodes: &[Node], out: &mut HashMap<*const Node, usize>) {
    for n in nodes {
        match n {
            Node::Wait { body, .. } => {
                let next = out.len();
                out.insert(n as *const Node, next);
                number_waits(body, out);
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => number_waits(body, out),
            Node::Assign(_) | Node::Barrier { .. } => {}
        }
    }
}

/// One simulation to run: `program` under `model`, the steps whose spans it records and where it
/// stops.
struct SimRun<'a> {
    program: &'a Program,
    model: &'a CostModel,
    params: &'a BTreeMap<String, i64>,
    /// Steps whose spans are recorded, 0-based `[from, to)` (steps are numbered from 1).
    window: (u64, u64),
    /// The run stops before step `stop_after + 1`.
    stop_after: u64,
    mode: Mode<'a>,
}

impl<'a> SimRun<'a> {
    /// Every step, no spans recorded.
    fn whole(
        program: &'a Program,
        model: &'a CostModel,
        params: &'a BTreeMap<String, i64>,
        mode: Mode<'a>,
    ) -> Self {
        SimRun {
            program,
            model,
            params,
            window: (0, 0),
            stop_after: u64::MAX,
            mode,
        }
    }
}

/// `run` simulated to its end, or to a limit (`limits::MAX_TIMELINE_STEPS` steps at most).
fn run_sim(run: SimRun<'_>) -> Sim<'_> {
    run_sim_until(new_sim(run))
}

/// A simulation of `run` ready to go (`run_sim`).
fn new_sim(run: SimRun<'_>) -> Sim<'_> {
    let SimRun {
        program,
        model,
        params,
        window,
        stop_after,
        mode,
    } = run;
    let max_steps = crate::limits::MAX_TIMELINE_STEPS as u64;
    let mut wait_ids = HashMap::new();
    number_waits(&program.body, &mut wait_ids);
    Sim {
        program,
        model,
        env: program.env(params),
        now: 0,
        open: Vec::new(),
        in_flight: BTreeMap::new(),
        committed: BTreeMap::new(),
        async_depth: 0,
        section: None,
        depth: 0,
        step: 0,
        step_starts: Vec::new(),
        window: (window.0 + 1, window.1 + 1),
        stop_after,
        max_steps,
        cycle_limit: u64::MAX,
        reached_cycle_limit: false,
        instances: 0,
        iterations: 0,
        stop: false,
        out: Timeline::default(),
        wait_ids,
        costs: Vec::new(),
        rows_free_at: BTreeMap::new(),
        moments: matches!(mode, Mode::Moments).then(Moments::default),
        recorder: (!matches!(mode, Mode::Baseline | Mode::Moments))
            .then(sequence::Recorder::default),
        keep: match mode {
            Mode::Sequence(keep) => Some(keep),
            _ => None,
        },
        in_sequence: VecDeque::new(),
    }
}

/// Runs `sim` to its end, or to a limit.
fn run_sim_until(mut sim: Sim<'_>) -> Sim<'_> {
    let program = sim.program;
    sim.nodes(&program.body);
    // Whatever is still in flight lands eventually: the loop is done when the last group is.
    let last = sim
        .in_flight
        .values()
        .flat_map(|q| q.iter())
        .map(|g| g.complete)
        .max()
        .unwrap_or(0);
    sim.out.metrics.total_cycles = sim.now.max(if sim.stop { 0 } else { last });
    sim
}

/// When each statement instance of `program` starts and each group completes under `model`
/// (every step, no window): the "as timed" completion model of the step-through. `None` when a
/// simulation limit stopped the run before the end.
pub fn moments(
    program: &Program,
    model: &CostModel,
    params: &BTreeMap<String, i64>,
) -> Option<Moments> {
    let sim = run_sim(SimRun::whole(program, model, params, Mode::Moments));
    if sim.stop {
        return None;
    }
    sim.moments
}

/// `program` with the count of every wait set to 0.
fn every_count_zero(program: &Program) -> Program {
    fn zero(nodes: &mut [Node]) {
        for n in nodes {
            match n {
                Node::Wait { count, body, .. } => {
                    *count = IExpr::Const(0);
                    zero(body);
                }
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::Commit { body, .. }
                | Node::AsyncScope { body, .. }
                | Node::Section { body, .. } => zero(body),
                Node::Assign(_) | Node::Barrier { .. } => {}
            }
        }
    }
    let mut p = program.clone();
    zero(&mut p.body);
    p
}

/// Average step length over the middle half of the body.
fn steady(starts: &[(u64, Option<SectionKind>, u64)]) -> Option<f64> {
    let body: Vec<u64> = starts
        .iter()
        .filter(|s| s.1 == Some(SectionKind::Body))
        .map(|s| s.0)
        .collect();
    if body.len() < 4 {
        return None;
    }
    let a = body.len() / 4;
    let mut b = body.len() * 3 / 4;
    // Steady states repeat with a period of (stage distance + 1) steps or a divisor of 60: measure
    // over a whole number of periods when the body is long enough.
    if b - a >= 60 {
        b = a + (b - a) / 60 * 60;
    }
    let (ta, tb) = (*body.get(a)?, *body.get(b)?);
    Some((tb - ta) as f64 / (b - a) as f64)
}

pub fn ring_bytes(program: &Program) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for b in program.buffers.iter().filter(|b| b.versions > 1) {
        let elems: i64 = b.shape.as_ref().map_or(0, |s| s.iter().product());
        *out.entry(b.scope.name().to_string()).or_insert(0) +=
            elems.max(0) as u64 * u64::from(b.dtype.bytes());
    }
    out
}
