//! A timeline is made of several simulations: the pipelined program over the window drawn (and
//! whole, when the window cut it short), the original loop and the program awaited at once for
//! the speedups, and the single sequence of groups sm_80 keeps. `Simulation` runs them one per
//! step, so that the app can give each a task of its own: a long loop's timeline was one task of
//! up to 83 ms. `simulate` runs every step at once; both give the same `Timeline`.

use super::{every_count_zero, ring_bytes, run_sim, sequence, steady, Lane, Mode, Timeline};
use crate::cost::CostModel;
use crate::ir::{Program, SectionKind};
use std::collections::BTreeMap;

/// What a timeline is simulated from.
#[derive(Clone, Copy)]
pub struct SimInputs<'a> {
    pub original: &'a Program,
    pub pipelined: &'a Program,
    pub model: &'a CostModel,
    pub params: &'a BTreeMap<String, i64>,
}

/// Simulates `pipelined` (and `original`, all synchronous, for the comparison). Spans are kept for
/// steps in `window` only (0-based [from, to)).
pub fn simulate(
    original: &Program,
    pipelined: &Program,
    model: &CostModel,
    params: &BTreeMap<String, i64>,
    window: (u64, u64),
) -> Timeline {
    let inputs = SimInputs {
        original,
        pipelined,
        model,
        params,
    };
    let mut simulation = Simulation::new(window);
    loop {
        if let Some(timeline) = simulation.step(&inputs) {
            return timeline;
        }
    }
}

/// The simulations still to run, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// The pipelined program over the window: its bars, and every metric when it ran to the end.
    Windowed,
    /// The original loop: the unpipelined cycles.
    Original,
    /// The pipelined program with every wait count 0: the awaited cycles.
    Awaited,
    /// The pipelined program again, every step without bars, when the window cut it short.
    Whole,
    /// The single sequence's waits worked out from what the pipelined runs recorded.
    Translate,
    /// The pipelined program waiting as the single sequence does, when that completes more.
    Single,
    Done,
}

/// `simulate` in steps, one simulation each (`step`).
pub struct Simulation {
    window: (u64, u64),
    next: Next,
    timeline: Timeline,
    /// The window as simulated (`Sim::window` counts steps from 1).
    shown: (u64, u64),
    /// The window's run stopped before the end.
    truncated: bool,
    /// From the run that covered every step (the windowed one, or `Whole`).
    starts: Vec<(u64, Option<SectionKind>, u64)>,
    steps: u64,
    /// A simulation limit stopped that run.
    capped: bool,
    recorder: Option<sequence::Recorder>,
    /// The single sequence's waits, and the groups each keeps in flight.
    keep: Vec<u64>,
    unpipelined_cycles: u64,
    awaited_cycles: u64,
}

impl Simulation {
    pub fn new(window: (u64, u64)) -> Simulation {
        Simulation {
            window,
            next: Next::Windowed,
            timeline: Timeline::default(),
            shown: (0, 0),
            truncated: false,
            starts: Vec::new(),
            steps: 0,
            capped: false,
            recorder: None,
            keep: Vec::new(),
            unpipelined_cycles: 0,
            awaited_cycles: 0,
        }
    }

    /// Whether every step has run (the timeline was returned by the last).
    pub fn done(&self) -> bool {
        self.next == Next::Done
    }

    /// Runs the next simulation; the timeline after the last (then `done`).
    pub fn step(&mut self, inputs: &SimInputs) -> Option<Timeline> {
        let max_steps = crate::limits::MAX_TIMELINE_STEPS as u64;
        let SimInputs {
            original,
            pipelined,
            model,
            params,
        } = *inputs;
        // A run of every step, recording no bars.
        let whole =
            |program, mode| run_sim(program, model, params, (0, 0), u64::MAX, max_steps, mode);
        self.next = match self.next {
            Next::Windowed => {
                let windowed = run_sim(
                    pipelined,
                    model,
                    params,
                    self.window,
                    self.window.1,
                    max_steps,
                    Mode::Plain,
                );
                self.truncated = windowed.stop;
                self.shown = (
                    windowed.window.0.saturating_sub(1),
                    windowed.window.1.saturating_sub(1),
                );
                self.timeline = windowed.out;
                if !self.truncated {
                    self.starts = windowed.step_starts;
                    self.steps = windowed.step;
                    self.recorder = windowed.recorder;
                }
                Next::Original
            }
            Next::Original => {
                self.unpipelined_cycles = whole(original, Mode::Baseline).out.metrics.total_cycles;
                Next::Awaited
            }
            Next::Awaited => {
                let zero = every_count_zero(pipelined);
                self.awaited_cycles = whole(&zero, Mode::Baseline).out.metrics.total_cycles;
                if self.truncated {
                    Next::Whole
                } else {
                    Next::Translate
                }
            }
            // Metrics need every step; spans only the window's (the step limit still bounds it).
            Next::Whole => {
                let all = whole(pipelined, Mode::Plain);
                self.timeline.metrics = all.out.metrics;
                self.starts = all.step_starts;
                self.steps = all.step;
                self.capped = all.stop;
                self.recorder = all.recorder;
                Next::Translate
            }
            // The kernels' waits, run only when they complete more than the IR asks (else they
            // wait for the same groups, and take the same cycles).
            Next::Translate => {
                let translated = self
                    .recorder
                    .take()
                    .map_or(Ok((Vec::new(), Vec::new())), |r| r.translate());
                match translated {
                    Ok((sequence, keep)) => {
                        self.timeline.sequence = sequence;
                        self.keep = keep;
                    }
                    Err(events) => self.timeline.sequence_events = Some(events),
                }
                if self.timeline.sequence.is_empty() {
                    Next::Done
                } else {
                    Next::Single
                }
            }
            Next::Single => {
                let single = whole(pipelined, Mode::Sequence(&self.keep));
                self.timeline.metrics.sequence_cycles = Some(single.out.metrics.total_cycles);
                Next::Done
            }
            Next::Done => return None,
        };
        (self.next == Next::Done).then(|| self.finish(pipelined))
    }

    /// The timeline from every run's results.
    fn finish(&mut self, pipelined: &Program) -> Timeline {
        let mut t = std::mem::take(&mut self.timeline);
        t.window = self.shown;
        t.truncated = self.truncated;
        // A run stopped by a limit counted the step it did not simulate.
        let steps = if self.capped {
            self.steps.saturating_sub(1)
        } else {
            self.steps
        };
        t.step_limit = self.capped.then_some(steps);
        let m = &mut t.metrics;
        m.steps = steps;
        m.unpipelined_cycles = self.unpipelined_cycles;
        m.awaited_cycles = self.awaited_cycles;
        let total = m.total_cycles;
        let over = |cycles: u64| {
            if total > 0 {
                cycles as f64 / total as f64
            } else {
                1.0
            }
        };
        m.speedup = over(self.unpipelined_cycles);
        m.speedup_over_awaited = over(self.awaited_cycles);
        m.steady_cycles_per_iteration = steady(&self.starts);
        m.ring_bytes = ring_bytes(pipelined);
        t.lanes = std::iter::once(Lane::Compute)
            .chain(m.peak_groups_in_flight.keys().map(|q| Lane::Queue(*q)))
            .collect();
        t
    }
}
