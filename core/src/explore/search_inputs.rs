//! What the schedule search reads of a text: its rolled pipelined program alone, for each
//! schedule it tries, and the loop's units with their dependences, for its lower bound.

use super::{phases, Options};
use crate::diagnostic::Diagnostic;
use crate::ir::Program;

/// The rolled pipelined program of a text, as the schedule search evaluates it.
#[derive(Clone, Debug)]
pub struct Rolled {
    pub program: Program,
    /// How many waits the pipeline has (wait sites of every section).
    pub wait_sites: usize,
    /// The smallest shift of its stages that changes a wait (`SyncPlan::shift_changes_waits_from`).
    pub shift_changes_waits_from: Option<i64>,
}

/// The rolled pipelined program of `source` alone (nothing presented, nothing run): what the
/// schedule search simulates for each schedule it tries. The text's errors when it has none.
pub fn rolled(source: &str, options: &Options) -> Result<Rolled, Vec<Diagnostic>> {
    Ok(rolled_of(phases::pipeline_quietly(source, options)?))
}

/// `rolled` of the text `read` was read from, with the loop over `var` annotated with `a`
/// instead (`phases::ReadLoop::pipeline`): the same program, without reading the text again, and
/// without its barriers between threads until `Unplaced::placed`.
pub fn rolled_with(
    read: &phases::ReadLoop,
    var: &str,
    a: &crate::annotation_text::Annotations,
    options: &Options,
) -> Result<Unplaced, Vec<Diagnostic>> {
    Ok(Unplaced(read.pipeline(
        var,
        a,
        options,
        phases::Barriers::Deferred,
    )?))
}

/// A schedule's rolled pipelined program before its barriers between threads are placed.
/// Barriers only add cycles, so its cycles are a lower bound on the program's
/// (`core/tests/search.rs` checks it).
pub struct Unplaced(phases::Pipeline);

impl Unplaced {
    /// The program without barriers; its buffers are the program's.
    pub fn without_barriers(&self) -> &Program {
        &self.0.rolled
    }

    /// Whether placing barriers may change the program: its loop runs on several waves.
    pub fn has_threads(&self) -> bool {
        self.0.program.threads.is_some_and(|t| t.waves > 1)
    }

    /// The program with its barriers.
    pub fn placed(mut self) -> Rolled {
        self.0.place_barriers();
        rolled_of(self.0)
    }
}

fn rolled_of(p: phases::Pipeline) -> Rolled {
    Rolled {
        wait_sites: p.sync.sites.len(),
        shift_changes_waits_from: p.sync.shift_changes_waits_from(),
        program: p.rolled,
    }
}

/// The pipelined loop's units as its schedule sees them (after its inner pipelines) and their
/// dependences, in the program the units are in: what the schedule search's bound reads.
#[derive(Clone, Debug)]
pub struct ScheduledLoop {
    pub program: Program,
    pub var: crate::ir::VarId,
    pub units: Vec<crate::schedule::Unit>,
    pub deps: Vec<crate::schedule::Dependence>,
    /// The trip count when it is a constant.
    pub extent: Option<i64>,
    /// Per unit, whether it may not be asynchronous whatever its stage and order: it touches an
    /// element twice within one iteration (`instances::conflict_within_an_iteration`).
    pub sync_only: Vec<bool>,
}

/// The top loop of `source` scheduled as written (`ScheduledLoop`). The text's errors when its
/// schedule is not accepted.
pub fn scheduled_loop(source: &str, options: &Options) -> Result<ScheduledLoop, Vec<Diagnostic>> {
    let p = phases::pipeline_quietly(source, options)?;
    let sync_only = p
        .shape
        .sched
        .units
        .iter()
        .map(|u| {
            crate::instances::conflict_within_an_iteration(&p.program, &p.shape.sched, u).is_some()
        })
        .collect();
    Ok(ScheduledLoop {
        sync_only,
        program: p.program,
        var: p.shape.sched.var,
        extent: p.shape.sched.extent.as_const(),
        deps: p.shape.deps,
        units: p.shape.sched.units,
    })
}
