//! The interpreter: runs an `ir::Program` — the source loop or a pipelined program, printed by
//! Stagecraft or edited by hand — on a machine with asynchronous queues, and reports every race on
//! in-flight data. docs/interpreter.md states the model.
//!
//! The program is compiled once (index expressions and values as small trees, each access with its
//! extents, strides and constant offset resolved, queues numbered densely) so that the hot loop
//! does no allocation and no map lookup: per element it keeps counts of pending async writes and
//! reads, which makes each race check O(1).
//!
//! Parts: `result` (what a run reports), `memory` (addressing, shapes, input values), `compile`
//! (the program as the machine runs it), `exec` (the machine); this file is the API.

mod compile;
mod exec;
mod memory;
mod result;
mod threads;

pub use memory::{input_value, strides_of, unflatten};
pub use result::*;
pub use threads::{
    check_threads, run_threads, Side, ThreadCheck, ThreadOptions, ThreadRace, ThreadRaceKind,
    ThreadRun,
};

use crate::diagnostic::Span;
use crate::ir::*;
use compile::{compile, queues_of, CNode};
use exec::{run_prepared, Buf};
use memory::{infer_shapes, initial_values};

/// How messages name statement `stmt`: its text in backticks from `names` (by statement id),
/// else "statement N".
pub fn statement_name(names: &[String], stmt: crate::ir::StmtId) -> String {
    match names.get(stmt as usize).filter(|t| !t.is_empty()) {
        Some(text) => crate::diagnostic::code(text),
        None => format!("statement {stmt}"),
    }
}

/// Runs the program. Never panics; problems are reported in the result.
pub fn run(program: &Program, opts: &RunOptions) -> Run {
    match prepare(program, opts) {
        Ok(prepared) => prepared.run(opts),
        Err(aborted) => *aborted,
    }
}

/// A program compiled with its initial memory, to run several times (the verifier re-runs the
/// pipelined program with raised wait counts and random completion orders).
pub struct Prepared {
    problems: Vec<Problem>,
    env: Vec<i64>,
    bufs: Vec<Buf>,
    code: Vec<CNode>,
    wait_refs: Vec<(Option<u32>, i64, Span)>,
    /// Number of distinct queues.
    queues: usize,
    /// The queues' numbers as written, in dense order.
    queue_numbers: Vec<i64>,
}

/// Compiles `program` and builds its initial memory from `opts.params` and `opts.seed`; a program
/// that cannot run (a buffer too large) is returned as its aborted run.
pub fn prepare(program: &Program, opts: &RunOptions) -> Result<Prepared, Box<Run>> {
    let mut problems = Vec::new();
    let env = program.env(&opts.params);
    let shapes = infer_shapes(program, &env, &mut problems);
    let mut bufs = Vec::new();
    for (b, shape) in program.buffers.iter().zip(shapes) {
        let shape = shape.unwrap_or_default();
        if shape.iter().any(|d| *d < 0) {
            problems.push(Problem::of_run(
                b.span,
                format!(
                    "the extent of `{}` cannot be inferred (an index is unbounded)",
                    b.name
                ),
            ));
        }
        let total = shape
            .iter()
            .try_fold(1i64, |acc, d| acc.checked_mul((*d).max(0)));
        let total = match total {
            Some(t) if t <= crate::limits::MAX_BUFFER_ELEMENTS => t as usize,
            _ => {
                let message = format!(
                    "`{}` would have more than {} elements; not interpreted",
                    b.name,
                    crate::limits::MAX_BUFFER_ELEMENTS
                );
                problems.push(Problem::of_run(b.span, message.clone()));
                return Err(Box::new(Run {
                    problems,
                    aborted: Some(message),
                    ..Run::default()
                }));
            }
        };
        let strides = strides_of(&shape);
        let global = b.scope == Scope::Global;
        let values: Vec<f64> = if global {
            initial_values(&b.name, &shape, total, opts.seed)
        } else {
            vec![0.0; total]
        };
        bufs.push(Buf {
            name: b.name.to_string(),
            shape,
            strides,
            values,
            written: vec![false; total],
            pending_writes: vec![0; total],
            pending_reads: vec![0; total],
            last_write: Vec::new(),
            dtype: b.dtype,
            versions: b.versions,
            global,
        });
    }
    let mut wait_refs = Vec::new();
    let mut queues = Vec::new();
    queues_of(&program.body, &mut queues);
    queues.sort_unstable();
    queues.dedup();
    let code = compile(&program.body, &bufs, &queues, &mut wait_refs);
    Ok(Prepared {
        queue_numbers: queues.clone(),
        problems,
        env,
        bufs,
        code,
        wait_refs,
        queues: queues.len(),
    })
}

impl Prepared {
    /// Runs from the initial memory. Of `opts`, the policy, instance cap, trace and count deltas
    /// apply; parameters and input seed were fixed by `prepare`.
    pub fn run(&self, opts: &RunOptions) -> Run {
        run_prepared(self, opts)
    }
}
