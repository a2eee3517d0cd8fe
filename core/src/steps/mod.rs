//! The step-through: the interpreter's own trace of a pipelined program (statement instances,
//! commits, completions, waits with the groups they force), and the machine's state at any
//! position of it — which iteration's data each ring slot holds and whether it is in flight,
//! which groups each queue still has outstanding — for the teaching view (issue 24).
//!
//! Two completion models: *latest possible* (`Policy::Latest`, the verifier's adversary: a group
//! completes only when a wait forces it) and *as timed* (`Policy::AsTimed`: groups complete at the
//! moments the cost model's simulation gives them, as the Timeline pane draws them).
//!
//! States are replayed from the trace, never stored per step: a checkpoint every
//! `CHECKPOINT_EVERY` steps bounds the replay of `state_at` (docs/interpreter.md, "Step-through").

use crate::diagnostic::Span;
use crate::interp::{self, Event, Policy, Race, RunOptions};
use crate::ir::{Program, Scope, StmtId};
use crate::limits::MAX_STEP_EVENTS;
use crate::tir::Printed;

mod caption;
mod picture;

use caption::head_arithmetic;
pub use picture::{StepFrame, Stepping};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Steps between two stored states: `state_at` replays fewer than this many.
const CHECKPOINT_EVERY: usize = 64;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompletionModel {
    /// A group completes only when a wait forces it (the verifier's adversary).
    #[default]
    Latest,
    /// Groups complete when the cost model says they land (the Timeline pane's order).
    AsTimed,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepOptions {
    pub model: CompletionModel,
    /// Added to the count of the wait with this pre-order index, at every instance (as
    /// `interp::RunOptions::count_delta`): a count made one too large shows its race.
    pub count_delta: BTreeMap<usize, i64>,
}

/// A buffer the picture draws as a row of slots: every buffer that is not global (a ring buffer
/// has one slot per version; a buffer of one version is one slot).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ring {
    pub buffer: String,
    pub scope: Scope,
    pub slots: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GroupId {
    pub queue: i64,
    /// Commit number within its queue, from 0.
    pub seq: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotRef {
    /// Index into `StepThrough::rings`.
    pub ring: usize,
    pub slot: u32,
}

crate::wire::dual_tagged! {
    remote = "StepEvent", json(tag = "kind"), both(rename_all = "snake_case");
#[derive(Clone, Debug, PartialEq)]
pub enum StepEvent {
    /// A statement instance runs (an async one is issued into its group).
    Exec {
        stmt: StmtId,
        iteration: Option<i64>,
        /// Its line in the printed program that was run (0-based), when known.
        line: Option<usize>,
        /// The source statement's span.
        span: Span,
        is_async: bool,
        group: Option<GroupId>,
        /// The slot it writes, when it writes a ring.
        writes: Option<SlotRef>,
        /// The slots it reads.
        reads: Vec<SlotRef>,
        raced: bool,
        /// Statement instances run so far, this one included.
        instance: u64,
    },
    Commit {
        group: GroupId,
        /// Async statements in the group.
        size: usize,
    },
    Wait {
        /// Pre-order index of the wait node.
        index: usize,
        line: Option<usize>,
        queue: i64,
        count: i64,
        /// Groups of the queue committed so far (the producer head).
        committed: u64,
        /// Groups in flight when it ran.
        in_flight: u64,
        /// Commit numbers of the groups it forced, oldest first.
        forced: Vec<u64>,
    },
    /// A group completes: its writes land (forced by a wait, or at its moment when as timed).
    Complete { group: GroupId },
}
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub event: StepEvent,
    /// The timeline step it belongs to (numbered from 1 as `timeline::Span::step`).
    pub step: u64,
    /// The cycle the cost model runs it at (a statement's start; for the rest, the start of the
    /// next statement), when the timeline's model could simulate the program.
    pub cycle: Option<u64>,
}

/// Where a racy schedule stops: the first racy instance, as the verifier reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RaceStop {
    /// The position whose current step is the racy instance (`steps[position − 1]`).
    pub position: usize,
    pub race: Race,
    /// The slot both instances touch, when it is in a ring the picture draws.
    pub slot: Option<SlotRef>,
    /// The line of the wait that should have covered it (none for a race inside one group,
    /// which no wait can order).
    pub wait_line: Option<usize>,
    /// The step of the other access (`Race::other`: the pending write or read it meets), as a
    /// position like `position`, when the trace holds it.
    #[serde(default)]
    pub other_position: Option<usize>,
    /// The other access's line in the printed program (0-based), when known.
    #[serde(default)]
    pub other_line: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimitReached {
    pub limit: usize,
    pub note: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SlotState {
    /// The iteration of the last write into the slot (issued, landed or not).
    pub iteration: Option<i64>,
    /// Something was written into it.
    pub written: bool,
    /// Groups whose writes into it have not landed, oldest first.
    pub in_flight: Vec<GroupId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlotStatus {
    Empty,
    InFlight,
    Ready,
    BeingRead,
}

impl SlotState {
    pub fn status(&self, being_read: bool) -> SlotStatus {
        if !self.in_flight.is_empty() {
            SlotStatus::InFlight
        } else if being_read {
            SlotStatus::BeingRead
        } else if self.written {
            SlotStatus::Ready
        } else {
            SlotStatus::Empty
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupState {
    pub seq: u64,
    /// (statement, iteration) of its async statements.
    pub members: Vec<(StmtId, Option<i64>)>,
    /// The slots its writes land in.
    #[serde(skip)]
    slots: Vec<SlotRef>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueueState {
    pub queue: i64,
    /// Producer head: groups committed.
    pub committed: u64,
    /// Consumer head: groups completed.
    pub completed: u64,
    /// Committed and not completed, oldest first.
    pub outstanding: Vec<GroupState>,
}

/// The machine between two steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineState {
    /// Per ring (as `StepThrough::rings`), its slots.
    pub rings: Vec<Vec<SlotState>>,
    /// Per queue (as `StepThrough::queues`).
    pub queues: Vec<QueueState>,
    /// The group being filled (its commit scope is open), per queue.
    #[serde(skip)]
    open: BTreeMap<i64, GroupState>,
}

/// A wait's head arithmetic, as numbers: `committed − needed − 1 = count` groups may stay in
/// flight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadArithmetic {
    pub queue: i64,
    pub committed: u64,
    /// The newest group that must have completed, if any must.
    pub needed: Option<u64>,
    pub count: i64,
    pub in_flight: u64,
    pub forced: Vec<u64>,
    pub sentence: String,
}

/// What the picture shows at one position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepView {
    pub position: usize,
    /// State after the first `position` steps.
    pub state: MachineState,
    /// `steps[position − 1]`: the step just taken.
    pub current: Option<Step>,
    /// Slots the current statement reads.
    pub reading: Vec<SlotRef>,
    pub arithmetic: Option<HeadArithmetic>,
    /// The current step is the race stop.
    pub race: bool,
    /// The current step in one sentence, from its numbers.
    pub caption: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepThrough {
    pub model: CompletionModel,
    pub rings: Vec<Ring>,
    pub queues: Vec<i64>,
    pub steps: Vec<Step>,
    pub race: Option<RaceStop>,
    pub limit: Option<LimitReached>,
    /// Plain sentences: why there is no trace, or which model could not be used.
    pub notes: Vec<String>,
    /// Statement texts by id, for captions.
    statements: Vec<String>,
    /// The state after every `CHECKPOINT_EVERY`-th step (the first: the initial state), replayed
    /// where it is first read: not sent from the worker to the page.
    #[serde(skip)]
    checkpoints: Checkpoints,
}

/// A step-through's checkpoints, made once when first read. Two step-throughs of the same steps
/// are equal whether or not either has made them.
#[derive(Clone, Debug, Default)]
struct Checkpoints(std::sync::OnceLock<Vec<MachineState>>);

impl PartialEq for Checkpoints {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// What a step-through needs of an exploration: the program run, its printed form, the cost
/// model and parameters.
pub struct Source<'a> {
    pub program: &'a Program,
    pub printed: Option<&'a Printed>,
    pub cost: Option<&'a crate::cost::CostModel>,
    pub params: &'a BTreeMap<String, i64>,
    /// Statement texts by id, for captions and the race's message (`tir::statement_texts` of
    /// the loop, as the verifier names them).
    pub statements: Vec<String>,
}

/// Runs `source.program` under the model asked for and keeps its trace (at most
/// `limits::MAX_STEP_EVENTS` steps, up to the first race).
pub fn step_through(source: &Source, options: &StepOptions) -> StepThrough {
    let program = source.program;
    let mut out = StepThrough {
        model: options.model,
        statements: source.statements.clone(),
        ..StepThrough::default()
    };
    for b in program.buffers.iter().filter(|b| b.scope != Scope::Global) {
        out.rings.push(Ring {
            buffer: b.name.to_string(),
            scope: b.scope,
            slots: b.versions.max(1),
        });
    }
    let moments = source
        .cost
        .and_then(|model| crate::timeline::moments(program, model, source.params));
    let mut run_options = RunOptions {
        params: source.params.clone(),
        trace: true,
        max_trace_events: MAX_STEP_EVENTS + 1,
        // Every instance is at least one step: beyond this the trace is cut anyway.
        max_instances: MAX_STEP_EVENTS as u64 + 1,
        count_delta: options.count_delta.clone(),
        statement_names: source.statements.clone(),
        ..RunOptions::default()
    };
    if options.model == CompletionModel::AsTimed {
        match &moments {
            Some(m) => {
                run_options.policy = Policy::AsTimed;
                run_options.completions = m.completion_instances();
            }
            None => {
                out.model = CompletionModel::Latest;
                out.notes.push(
                    "The cost model could not simulate this program to its end, so groups complete as late as possible (only when a wait forces them)."
                        .to_string(),
                );
            }
        }
    }
    let run = interp::run(program, &run_options);
    if let Some(why) = &run.aborted {
        out.notes.push(format!("The program could not run: {why}."));
        return out;
    }
    let lines = LineMap::of(source.printed);
    let mut queues: Vec<i64> = Vec::new();
    for e in &run.trace {
        match e {
            Event::Commit { queue, .. }
            | Event::Wait { queue, .. }
            | Event::Complete { queue, .. } => queues.push(*queue),
            Event::Exec { .. } => {}
        }
    }
    queues.sort_unstable();
    queues.dedup();
    out.queues = queues;
    let mut committed: BTreeMap<i64, u64> = BTreeMap::new();
    for e in &run.trace {
        if out.steps.len() >= MAX_STEP_EVENTS {
            out.limit = Some(LimitReached {
                limit: MAX_STEP_EVENTS,
                note: format!(
                    "The step-through shows the first {MAX_STEP_EVENTS} steps only; the program runs longer (choose a smaller extent to step through all of it)."
                ),
            });
            break;
        }
        let event = step_event(e, program, &lines, &mut committed, &out);
        let (step, cycle) = match e {
            Event::Exec { step, instance, .. } => (
                *step,
                moments.as_ref().and_then(|m| {
                    let k = usize::try_from(instance.checked_sub(1)?).ok()?;
                    m.instance_starts.get(k).copied()
                }),
            ),
            // Filled from the next statement below.
            _ => (0, None),
        };
        let raced = matches!(event, StepEvent::Exec { raced: true, .. });
        out.steps.push(Step { event, step, cycle });
        if raced {
            if let Some(race) = run.races.first() {
                let other_position = race.other.and_then(|o| {
                    let group = GroupId {
                        queue: race.group.queue,
                        seq: race.group.seq,
                    };
                    out.steps.iter().rposition(|s| {
                        matches!(&s.event, StepEvent::Exec { stmt, iteration, group: g, .. }
                            if *stmt == o.stmt && *iteration == o.iteration && *g == Some(group))
                    })
                });
                let other_line =
                    other_position
                        .and_then(|k| out.steps.get(k))
                        .and_then(|s| match s.event {
                            StepEvent::Exec { line, .. } => line,
                            _ => None,
                        });
                out.race = Some(RaceStop {
                    position: out.steps.len(),
                    other_position: other_position.map(|k| k + 1),
                    other_line,
                    slot: race
                        .slot
                        .and_then(|s| out.slot_of(&race.buffer, &[s]))
                        .or_else(|| out.slot_of(&race.buffer, &race.element)),
                    wait_line: race.wait.and_then(|w| lines.waits.get(&w.index).copied()),
                    race: race.clone(),
                });
            }
            break;
        }
    }
    fill_from_next_statement(&mut out.steps, moments.is_some());
    out
}

/// One event of the interpreter's trace as a step: lines and spans found, slots named, and a wait's
/// groups committed so far (`committed`, kept up to date by the commits).
fn step_event(
    e: &Event,
    program: &Program,
    lines: &LineMap,
    committed: &mut BTreeMap<i64, u64>,
    out: &StepThrough,
) -> StepEvent {
    match e {
        Event::Exec {
            stmt,
            iteration,
            is_async,
            group,
            target,
            node,
            reads,
            raced,
            instance,
            ..
        } => StepEvent::Exec {
            stmt: *stmt,
            iteration: *iteration,
            line: lines.assigns.get(*node).copied(),
            span: source_span(program, *stmt),
            is_async: *is_async,
            group: group.map(|(queue, seq)| GroupId { queue, seq }),
            // An empty index: the instance stopped before writing.
            writes: (!target.1.is_empty())
                .then(|| out.slot_of(&target.0, &target.1))
                .flatten(),
            reads: reads
                .iter()
                .filter_map(|(b, ix)| out.slot_of(b, ix))
                .collect(),
            raced: *raced,
            instance: *instance,
        },
        Event::Commit { queue, seq, size } => {
            committed.insert(*queue, seq + 1);
            StepEvent::Commit {
                group: GroupId {
                    queue: *queue,
                    seq: *seq,
                },
                size: *size,
            }
        }
        Event::Wait {
            index,
            queue,
            count,
            in_flight,
            forced,
        } => StepEvent::Wait {
            index: *index,
            line: lines.waits.get(index).copied(),
            queue: *queue,
            count: *count,
            committed: committed.get(queue).copied().unwrap_or(0),
            in_flight: *in_flight,
            forced: forced.clone(),
        },
        Event::Complete { queue, seq } => StepEvent::Complete {
            group: GroupId {
                queue: *queue,
                seq: *seq,
            },
        },
    }
}

fn source_span(program: &Program, stmt: StmtId) -> Span {
    let mut span = Span::default();
    crate::ir::for_each_assign(&program.body, &mut |a| {
        if a.stmt == stmt && span == Span::default() {
            span = a.span;
        }
    });
    span
}

/// A step that is not a statement belongs to the statement after it (a wait runs just before
/// its body, a completion lands before the statement that sees it); the last ones to the one
/// before.
fn fill_from_next_statement(steps: &mut [Step], timed: bool) {
    let mut next: Option<(u64, Option<u64>)> = None;
    for s in steps.iter_mut().rev() {
        if matches!(s.event, StepEvent::Exec { .. }) {
            next = Some((s.step, s.cycle));
        } else if let Some((step, cycle)) = next {
            s.step = step;
            s.cycle = cycle;
        }
    }
    let mut last: Option<(u64, Option<u64>)> = None;
    for s in steps.iter_mut() {
        if s.step == 0 {
            if let Some((step, cycle)) = last {
                s.step = step;
                s.cycle = cycle;
            }
        } else {
            last = Some((s.step, s.cycle));
        }
        if !timed {
            s.cycle = None;
        }
    }
}

/// Printed lines of the program run: the k-th assignment node's line, each wait node's line.
struct LineMap {
    assigns: Vec<usize>,
    waits: BTreeMap<usize, usize>,
}

impl LineMap {
    fn of(printed: Option<&Printed>) -> LineMap {
        let mut map = LineMap {
            assigns: Vec::new(),
            waits: BTreeMap::new(),
        };
        for (line, info) in printed.iter().flat_map(|p| p.lines.iter().enumerate()) {
            if info.stmt.is_some() {
                map.assigns.push(line);
            }
            if let Some(w) = info.wait_index {
                map.waits.insert(w, line);
            }
        }
        map
    }
}

impl StepThrough {
    /// No trace, and why.
    pub fn nothing(note: &str) -> StepThrough {
        StepThrough {
            notes: vec![note.to_string()],
            checkpoints: Checkpoints::default(),
            ..StepThrough::default()
        }
    }

    /// The slot an element of `buffer` is in: the first index of a ring, the only slot otherwise.
    fn slot_of(&self, buffer: &str, index: &[i64]) -> Option<SlotRef> {
        let ring = self.rings.iter().position(|r| r.buffer == buffer)?;
        let slots = self.rings.get(ring)?.slots;
        let slot = if slots > 1 {
            u32::try_from(*index.first()?).ok().filter(|s| *s < slots)?
        } else {
            0
        };
        Some(SlotRef { ring, slot })
    }

    fn initial_state(&self) -> MachineState {
        MachineState {
            rings: self
                .rings
                .iter()
                .map(|r| vec![SlotState::default(); r.slots as usize])
                .collect(),
            queues: self
                .queues
                .iter()
                .map(|&queue| QueueState {
                    queue,
                    ..QueueState::default()
                })
                .collect(),
            open: BTreeMap::new(),
        }
    }

    fn replay_checkpoints(&self) -> Vec<MachineState> {
        let mut state = self.initial_state();
        let mut out = vec![state.clone()];
        for (k, s) in self.steps.iter().enumerate() {
            state.apply(&s.event, &self.queues);
            if (k + 1) % CHECKPOINT_EVERY == 0 {
                out.push(state.clone());
            }
        }
        out
    }

    /// The machine after the first `position` steps (clamped to the trace).
    pub fn state_at(&self, position: usize) -> MachineState {
        let position = position.min(self.steps.len());
        let k = position / CHECKPOINT_EVERY;
        let mut state = self
            .checkpoints
            .0
            .get_or_init(|| self.replay_checkpoints())
            .get(k)
            .cloned()
            .unwrap_or_else(|| self.initial_state());
        for s in self
            .steps
            .get(k * CHECKPOINT_EVERY..position)
            .unwrap_or_default()
        {
            state.apply(&s.event, &self.queues);
        }
        state
    }

    /// The position of the next step after `position` that is a wait (that forces a group, when
    /// `forcing`), or the race stop; `None` when there is none.
    pub fn next_wait(&self, position: usize) -> Option<usize> {
        self.steps
            .iter()
            .enumerate()
            .skip(position)
            .find(|(_, s)| {
                matches!(s.event, StepEvent::Wait { .. })
                    || matches!(s.event, StepEvent::Exec { raced: true, .. })
            })
            .map(|(k, _)| k + 1)
    }

    /// Everything the picture shows at `position`.
    pub fn view(&self, position: usize) -> StepView {
        let position = position.min(self.steps.len());
        let state = self.state_at(position);
        let current = position
            .checked_sub(1)
            .and_then(|k| self.steps.get(k))
            .cloned();
        let reading = match current.as_ref().map(|s| &s.event) {
            Some(StepEvent::Exec { reads, .. }) => reads.clone(),
            _ => Vec::new(),
        };
        let arithmetic = match current.as_ref().map(|s| &s.event) {
            Some(StepEvent::Wait {
                queue,
                count,
                committed,
                in_flight,
                forced,
                ..
            }) => Some(head_arithmetic(
                *queue, *committed, *count, *in_flight, forced,
            )),
            _ => None,
        };
        let race = self.race.as_ref().is_some_and(|r| r.position == position);
        let caption = match &current {
            None => {
                "Before the first step: every slot is empty and no group is in flight.".to_string()
            }
            Some(step) => self.caption(step, &state, race),
        };
        StepView {
            position,
            state,
            current,
            reading,
            arithmetic,
            race,
            caption,
        }
    }
}

impl MachineState {
    fn queue_mut(&mut self, queues: &[i64], queue: i64) -> Option<&mut QueueState> {
        let k = queues.binary_search(&queue).ok()?;
        self.queues.get_mut(k)
    }

    fn apply(&mut self, event: &StepEvent, queues: &[i64]) {
        match event {
            StepEvent::Exec {
                stmt,
                iteration,
                group,
                writes,
                ..
            } => {
                if let Some(w) = writes {
                    if let Some(slot) = self
                        .rings
                        .get_mut(w.ring)
                        .and_then(|r| r.get_mut(w.slot as usize))
                    {
                        slot.iteration = *iteration;
                        slot.written = true;
                        if let Some(g) = group {
                            if !slot.in_flight.contains(g) {
                                slot.in_flight.push(*g);
                                slot.in_flight.sort_unstable();
                            }
                        }
                    }
                }
                if let Some(g) = group {
                    let open = self.open.entry(g.queue).or_insert_with(|| GroupState {
                        seq: g.seq,
                        ..GroupState::default()
                    });
                    open.members.push((*stmt, *iteration));
                    if let Some(w) = writes {
                        open.slots.push(*w);
                    }
                }
            }
            StepEvent::Commit { group, .. } => {
                let state = self
                    .open
                    .remove(&group.queue)
                    .filter(|g| g.seq == group.seq)
                    .unwrap_or(GroupState {
                        seq: group.seq,
                        ..GroupState::default()
                    });
                if let Some(q) = self.queue_mut(queues, group.queue) {
                    q.committed = group.seq + 1;
                    q.outstanding.push(state);
                }
            }
            StepEvent::Wait { .. } => {}
            StepEvent::Complete { group } => {
                let Some(q) = self.queue_mut(queues, group.queue) else {
                    return;
                };
                let Some(k) = q.outstanding.iter().position(|g| g.seq == group.seq) else {
                    return;
                };
                let done = q.outstanding.remove(k);
                q.completed += 1;
                for s in done.slots {
                    if let Some(slot) = self
                        .rings
                        .get_mut(s.ring)
                        .and_then(|r| r.get_mut(s.slot as usize))
                    {
                        slot.in_flight.retain(|g| g != group);
                    }
                }
            }
        }
    }
}
