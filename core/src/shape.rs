//! The shape of the pipelined loop: which steps form the prologue, body and epilogue, which unit
//! instance runs at each step, and the ring buffers. A unit of stage `s` runs iteration `t − s` at
//! step `t` whenever `0 ≤ t − s < E`; with S the largest stage, the prologue is steps [0, S), the body
//! [S, E) and the epilogue [max(S, E), E + S).

use crate::diagnostic::Diagnostic;
use crate::ir::{IExpr, IOp, Program, SectionKind};
use crate::schedule::{self, Dependence, Extent, LoopSchedule};
use crate::versions::{self, VersionDecision};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug)]
pub struct LoopShape {
    pub sched: LoopSchedule,
    pub deps: Vec<Dependence>,
    pub versions: Vec<VersionDecision>,
    /// Unit positions sorted by `order`: the order of a step.
    pub step_order: Vec<usize>,
}

impl LoopShape {
    pub fn stages(&self) -> i64 {
        self.sched.max_stage
    }

    pub fn versions_of(&self, buffer: u32) -> i64 {
        self.versions
            .iter()
            .find(|v| v.buffer == buffer)
            .map_or(1, |v| i64::from(v.versions))
    }

    pub fn extent_expr(&self) -> IExpr {
        match &self.sched.extent {
            Extent::Const(e) => IExpr::Const(*e),
            Extent::Symbolic(e) => e.clone(),
        }
    }

    /// First epilogue step: max(S, E).
    pub fn epilogue_start(&self) -> IExpr {
        let s = self.stages();
        match &self.sched.extent {
            Extent::Const(e) => IExpr::Const(s.max(*e)),
            Extent::Symbolic(e) => IExpr::bin(IOp::Max, e.clone(), IExpr::Const(s)),
        }
    }
}

pub fn build(
    program: &Program,
    sched: LoopSchedule,
    diags: &mut Vec<Diagnostic>,
    explain: bool,
) -> Option<LoopShape> {
    let deps = schedule::dependences(&sched.units, schedule::iteration_range(&sched));
    let versions = versions::choose_versions(program, &sched, &deps, explain);
    let bounds_ok = schedule::check_bounds(program, &sched, diags);
    let order_ok = schedule::validate_order(program, &sched, &deps, &versions, diags);
    let groups_ok = schedule::check_async_units(program, &sched, diags);
    schedule::warn_guards_that_never_hold(program, &sched, diags);
    if !(bounds_ok && order_ok && groups_ok) {
        return None;
    }
    let mut step_order: Vec<usize> = (0..sched.units.len()).collect();
    step_order.sort_by_key(|&p| sched.units.get(p).map_or(0, |u| u.order));
    Some(LoopShape {
        sched,
        deps,
        versions,
        step_order,
    })
}

/// One row of the iteration-space picture: at `step`, each unit (in order) runs `iterations[k]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRow {
    pub step: i64,
    pub section: SectionKind,
    pub iterations: Vec<Option<i64>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationSpace {
    /// Units in step order: (unit position, stage, statement ids).
    pub units: Vec<IterationUnit>,
    pub rows: Vec<StepRow>,
    /// Body steps left out of `rows` to keep the picture small: [from, to).
    pub elided: Option<(i64, i64)>,
    /// The concrete extent used (symbolic extents take the chosen value).
    pub extent: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationUnit {
    pub unit: usize,
    pub stage: i64,
    pub order: i64,
    pub stmts: Vec<u32>,
    pub is_async: bool,
}

/// The stages × time grid with fill and drain; long bodies are elided in the middle.
pub fn iteration_space(p: &LoopShape, extent: i64, max_rows: usize) -> IterationSpace {
    let s = p.stages();
    let total = extent.saturating_add(s);
    let section_of = |t: i64| {
        if t < s {
            SectionKind::Prologue
        } else if t < extent {
            SectionKind::Body
        } else {
            SectionKind::Epilogue
        }
    };
    let row = |t: i64| StepRow {
        step: t,
        section: section_of(t),
        iterations: p
            .step_order
            .iter()
            .map(|&u| {
                let stage = p.sched.units.get(u).map_or(0, |x| x.stage);
                let j = t - stage;
                (0..extent).contains(&j).then_some(j)
            })
            .collect(),
    };
    let max_rows = max_rows.max(4) as i64;
    let (rows, elided) = if total <= max_rows {
        ((0..total).map(row).collect(), None)
    } else {
        let head = max_rows / 2;
        let tail = max_rows - head;
        let mut rows: Vec<StepRow> = (0..head).map(row).collect();
        rows.extend((total - tail..total).map(row));
        (rows, Some((head, total - tail)))
    };
    IterationSpace {
        units: p
            .step_order
            .iter()
            .filter_map(|&u| p.sched.units.get(u))
            .map(|u| IterationUnit {
                unit: u.pos,
                stage: u.stage,
                order: u.order,
                stmts: u.stmts.clone(),
                is_async: u.is_async,
            })
            .collect(),
        rows,
        elided,
        extent,
    }
}
