//! The cost model of the timeline: what each statement costs on the compute lane (its issue) and how
//! long its result takes (its latency), with honest defaults by statement kind and per-statement
//! overrides from `stagecraft_latency` / `stagecraft_issue` annotations. docs/cost-model.md explains
//! the numbers.

use crate::diagnostic::Diagnostic;
use crate::ir::{for_each_read, Assign, Program, Scope, StmtId, VExpr};
use crate::lower::Annotation;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    /// Cycles the compute lane is busy issuing the statement.
    pub issue: u64,
    /// Cycles until its result is available (after the issue).
    pub latency: u64,
}

pub const LATENCY_KEY: &str = "stagecraft_latency";
pub const ISSUE_KEY: &str = "stagecraft_issue";
/// Largest cycle count an annotation may give.
pub const MAX_ANNOTATED_CYCLES: i64 = 1_000_000;

/// What the source's cost annotations set for one unit of the pipelined loop; `None` where the
/// annotation is absent or says −1 (the default applies).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnnotatedCost {
    pub issue: Option<u64>,
    pub latency: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StmtKind {
    GlobalToShared,
    GlobalToLocal,
    SharedToLocal,
    StoreGlobal,
    Compute,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CostModel {
    /// A global→shared copy: long memory latency, cheap to issue (one cp.async per thread).
    pub global_to_shared: Cost,
    pub global_to_local: Cost,
    /// A shared→local copy (ds_read / ld.shared).
    pub shared_to_local: Cost,
    pub store_global: Cost,
    /// Arithmetic: this many cycles per operation in the expression (issue), plus a fixed latency.
    pub cycles_per_op: u64,
    pub compute_latency: u64,
    /// A barrier of a loop run by several threads (`bar.sync`, `s_barrier`): cycles from the
    /// moment the slowest thread's work before it is done until every thread goes on. The
    /// threads run the same program, so the slowest is the one simulated.
    pub barrier: u64,
    /// Groups allowed in flight per queue before a commit stalls (`None`: unlimited).
    pub max_groups_in_flight: Option<u32>,
    /// Per-statement overrides (by statement id).
    pub overrides: BTreeMap<StmtId, Cost>,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel {
            global_to_shared: Cost {
                issue: 4,
                latency: 500,
            },
            global_to_local: Cost {
                issue: 4,
                latency: 500,
            },
            shared_to_local: Cost {
                issue: 2,
                latency: 30,
            },
            store_global: Cost {
                issue: 4,
                latency: 0,
            },
            cycles_per_op: 4,
            compute_latency: 4,
            barrier: 20,
            max_groups_in_flight: None,
            overrides: BTreeMap::new(),
        }
    }
}

fn ops(v: &VExpr) -> u64 {
    match v {
        VExpr::Lit(_) | VExpr::Index(_) | VExpr::Read(_) => 0,
        VExpr::Neg(x) => 1 + ops(x),
        VExpr::Bin(_, ab) => {
            let [a, b] = &**ab;
            1 + ops(a) + ops(b)
        }
        VExpr::Call(_, args) => 1 + args.iter().map(ops).sum::<u64>(),
    }
}

pub fn classify(program: &Program, a: &Assign) -> StmtKind {
    let scope = |b: u32| program.buffer(b).map_or(Scope::Global, |b| b.scope);
    let target = scope(a.target.buffer);
    let mut reads_global = false;
    let mut reads_shared = false;
    for_each_read(&a.value, &mut |r| match scope(r.buffer) {
        Scope::Global => reads_global = true,
        Scope::Shared => reads_shared = true,
        Scope::Local => {}
    });
    let is_copy = matches!(a.value, VExpr::Read(_));
    match (target, reads_global, reads_shared) {
        (Scope::Shared, true, _) => StmtKind::GlobalToShared,
        (Scope::Local, true, _) => StmtKind::GlobalToLocal,
        (Scope::Local, false, true) if is_copy => StmtKind::SharedToLocal,
        (Scope::Global, _, _) if is_copy => StmtKind::StoreGlobal,
        _ => StmtKind::Compute,
    }
}

impl CostModel {
    pub fn cost(&self, program: &Program, a: &Assign) -> Cost {
        if let Some(c) = self.overrides.get(&a.stmt) {
            return *c;
        }
        match classify(program, a) {
            StmtKind::GlobalToShared => self.global_to_shared,
            StmtKind::GlobalToLocal => self.global_to_local,
            StmtKind::SharedToLocal => self.shared_to_local,
            StmtKind::StoreGlobal => self.store_global,
            StmtKind::Compute => Cost {
                issue: self.cycles_per_op * ops(&a.value).max(1),
                latency: self.compute_latency,
            },
        }
    }

    /// Reads `stagecraft_latency` / `stagecraft_issue` (one entry per statement of the pipelined loop
    /// over `var`, in text order; −1 keeps the default). `units` are its units' statements. Returns,
    /// per unit, the values that were applied (a later annotation overrides an earlier one; −1,
    /// invalid lists and out-of-range entries set nothing).
    pub fn apply_annotations(
        &mut self,
        annotations: &[Annotation],
        var: &str,
        units: &[Vec<StmtId>],
        defaults: &dyn Fn(StmtId) -> Cost,
        diags: &mut Vec<Diagnostic>,
    ) -> Vec<AnnotatedCost> {
        let mut applied = vec![AnnotatedCost::default(); units.len()];
        for a in annotations
            .iter()
            .filter(|a| a.key == LATENCY_KEY || a.key == ISSUE_KEY)
        {
            if a.var != var {
                diags.push(Diagnostic::warning(
                    a.var_span,
                    format!(
                        "`{}` is not a pipelined loop; the cost annotation is ignored",
                        a.var
                    ),
                ));
                continue;
            }
            let Some(values) = &a.values else {
                diags.push(Diagnostic::error(
                    a.value_span,
                    format!(
                        "\"{}\" takes a list of integers (cycles), -1 for the default",
                        a.key
                    ),
                ));
                continue;
            };
            if values.len() != units.len() {
                diags.push(
                    Diagnostic::error(
                        a.value_span,
                        format!(
                            "\"{}\" has {} entries for {} statements",
                            a.key,
                            values.len(),
                            units.len()
                        ),
                    )
                    .with_hint(
                        "one entry per statement of the loop, in order; -1 keeps the default",
                    ),
                );
                continue;
            }
            for ((v, stmts), slot) in values.iter().zip(units).zip(applied.iter_mut()) {
                if *v < -1 || *v > MAX_ANNOTATED_CYCLES {
                    diags.push(Diagnostic::error(
                        a.value_span,
                        format!("{v} cycles is out of range (-1 or 0..=1000000)"),
                    ));
                    continue;
                }
                if *v == -1 {
                    continue;
                }
                let cycles = *v as u64;
                if a.key == LATENCY_KEY {
                    slot.latency = Some(cycles);
                } else {
                    slot.issue = Some(cycles);
                }
                for s in stmts {
                    let entry = self.overrides.entry(*s).or_insert_with(|| defaults(*s));
                    if a.key == LATENCY_KEY {
                        entry.latency = cycles;
                    } else {
                        entry.issue = cycles;
                    }
                }
            }
        }
        applied
    }
}
