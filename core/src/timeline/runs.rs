//! A timeline is made of several simulations: the pipelined program over the window drawn (and
//! whole, when the window cut it short), the original loop and the program awaited at once for
//! the speedups, and the single sequence of groups sm_80 keeps. `simulate` runs them in turn.

use super::{
    every_count_zero, new_sim, ring_bytes, run_sim, run_sim_until, steady, Lane, Mode, SimRun,
    Timeline,
};
use crate::cost::CostModel;
use crate::ir::Program;
use std::collections::BTreeMap;

/// Simulates `pipelined` (and `original`, all synchronous, for the comparison). Spans are kept for
/// steps in `window` only (0-based [from, to)).
pub fn simulate(
    original: &Program,
    pipelined: &Program,
    model: &CostModel,
    params: &BTreeMap<String, i64>,
    window: (u64, u64),
) -> Timeline {
    // A run of every step, recording no bars.
    let whole = |program, mode| run_sim(SimRun::whole(program, model, params, mode));
    // The pipelined program over the window: its bars, and every metric when it ran to the end.
    let windowed = run_sim(SimRun {
        window,
        stop_after: window.1,
        ..SimRun::whole(pipelined, model, params, Mode::Plain)
    });
    let truncated = windowed.stop;
    // `Sim::window` counts steps from 1.
    let shown = (
        windowed.window.0.saturating_sub(1),
        windowed.window.1.saturating_sub(1),
    );
    // The original loop: the unpipelined cycles; the pipelined program with every wait count 0:
    // the awaited cycles.
    let unpipelined = whole(original, Mode::Baseline);
    let zero = every_count_zero(pipelined);
    let awaited = whole(&zero, Mode::Baseline);
    // A ratio of two runs means something only when both reached the loop's end: a limit stops
    // each at a different point of the work (the pipelined program within its first step, the
    // original loop after thousands of iterations), and cycles over different work divide into
    // nonsense.
    let baselines_whole = !unpipelined.stop && !awaited.stop;
    let unpipelined_cycles = unpipelined.out.metrics.total_cycles;
    let awaited_cycles = awaited.out.metrics.total_cycles;
    // Metrics need every step; spans only the window's. The pipelined program again, every step
    // without bars, when the window cut the first run short (the step limit still bounds it).
    let mut t = windowed.out;
    let (starts, steps, capped, recorder) = if truncated {
        let all = whole(pipelined, Mode::Plain);
        t.metrics = all.out.metrics;
        (all.step_starts, all.step, all.stop, all.recorder)
    } else {
        (
            windowed.step_starts,
            windowed.step,
            false,
            windowed.recorder,
        )
    };
    // The kernels' waits, run only when they complete more than the IR asks (else they wait for
    // the same groups, and take the same cycles).
    match recorder.map_or(Ok((Vec::new(), Vec::new())), |r| r.translate()) {
        Ok((sequence, keep)) => {
            if !sequence.is_empty() {
                let single = whole(pipelined, Mode::Sequence(&keep));
                t.metrics.sequence_cycles = Some(single.out.metrics.total_cycles);
            }
            t.sequence = sequence;
        }
        Err(events) => t.sequence_events = Some(events),
    }
    t.window = shown;
    t.truncated = truncated;
    // A run stopped by a limit counted the step it did not simulate.
    let steps = if capped {
        steps.saturating_sub(1)
    } else {
        steps
    };
    t.step_limit = capped.then_some(steps);
    let m = &mut t.metrics;
    m.steps = steps;
    m.unpipelined_cycles = unpipelined_cycles;
    m.awaited_cycles = awaited_cycles;
    let total = m.total_cycles;
    let whole_runs = baselines_whole && !capped;
    let over = |cycles: u64| {
        whole_runs.then(|| {
            if total > 0 {
                cycles as f64 / total as f64
            } else {
                1.0
            }
        })
    };
    m.speedup = over(unpipelined_cycles);
    m.speedup_over_awaited = over(awaited_cycles);
    m.steady_cycles_per_iteration = steady(&starts);
    m.ring_bytes = ring_bytes(pipelined);
    t.lanes = std::iter::once(Lane::Compute)
        .chain(m.peak_groups_in_flight.keys().map(|q| Lane::Queue(*q)))
        .collect();
    t
}

/// What the schedule search reads of one schedule's run: the pipelined program simulated alone,
/// every step, no bars and no baselines. The same numbers `simulate` gives for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cycles {
    pub total: u64,
    /// `Metrics::steady_cycles_per_iteration`.
    pub steady: Option<f64>,
    /// A limit stopped the run before its end (`Timeline::step_limit`): `total` covers part of it.
    pub limited: bool,
}

/// The cycles of `pipelined` under `model` (`Cycles`).
pub fn cycles(pipelined: &Program, model: &CostModel, params: &BTreeMap<String, i64>) -> Cycles {
    // No step begins at `u64::MAX` cycles: the run goes to its end.
    cycles_below(pipelined, model, params, u64::MAX).unwrap_or(Cycles {
        total: u64::MAX,
        steady: None,
        limited: true,
    })
}

/// The cycles of `pipelined` under `model` when it takes fewer than `limit` (`Cycles`); `None`
/// when a step begins at or after `limit` cycles, so that its total is at least `limit`: the
/// schedule search's cut, which stops a run once it cannot enter the front.
pub fn cycles_below(
    pipelined: &Program,
    model: &CostModel,
    params: &BTreeMap<String, i64>,
    limit: u64,
) -> Option<Cycles> {
    // No single sequence: the cycles do not read it.
    let mut sim = new_sim(SimRun::whole(pipelined, model, params, Mode::Baseline));
    sim.cycle_limit = limit;
    let run = run_sim_until(sim);
    if run.reached_cycle_limit {
        return None;
    }
    Some(Cycles {
        total: run.out.metrics.total_cycles,
        steady: steady(&run.step_starts),
        limited: run.stop,
    })
}
