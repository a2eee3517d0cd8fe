//! The executing machine: asynchronous queues of commit groups, per-element counts of pending
//! asynchronous writes and reads (each race check O(1)), groups completed by waits or by the
//! policy, and the run's report.

use super::compile::{eval, CAccess, Code};
use super::memory::unflatten;
use super::result::*;
use super::Prepared;
use crate::diagnostic::Span;
use crate::ir::*;
use std::collections::{BTreeMap, VecDeque};

mod assign;
mod completion;
mod races;
mod scopes;

const MAX_RACES: usize = 64;
const MAX_PROBLEMS: usize = 32;

#[derive(Clone)]
pub(super) struct Buf {
    pub(super) name: String,
    pub(super) shape: Vec<i64>,
    pub(super) strides: Vec<i64>,
    pub(super) values: Vec<f64>,
    pub(super) written: Vec<bool>,
    pub(super) pending_writes: Vec<u32>,
    pub(super) pending_reads: Vec<u32>,
    /// Under `RunOptions::trace` only (empty otherwise): `BufferState::last_write`.
    pub(super) last_write: Vec<Option<(u64, Option<i64>)>>,
    pub(super) dtype: DType,
    pub(super) versions: u32,
    pub(super) global: bool,
}

struct Group {
    queue: i64,
    q: usize,
    seq: u64,
    /// One write per member, in issue order: buffer, element offset, value.
    writes: Vec<(u32, usize, f64)>,
    /// The elements its members read: buffer, element offset, and the member (index into
    /// `members`) that reads it.
    reads: Vec<(u32, usize, u32)>,
    /// Its async statement instances in issue order: statement and iteration.
    members: Vec<(StmtId, Option<i64>)>,
    /// The span of each member's statement (parallel to `members`).
    spans: Vec<Span>,
    done: bool,
    /// The commit scope that made it.
    span: Span,
}

struct Machine<'a> {
    opts: &'a RunOptions,
    bufs: Vec<Buf>,
    env: Vec<i64>,
    groups: Vec<Group>,
    open: Vec<usize>,
    /// Per dense queue number: groups committed and not completed, oldest first.
    in_flight: Vec<VecDeque<usize>>,
    /// Per dense queue number: groups committed so far.
    committed: Vec<u64>,
    last_wait: Vec<Option<WaitRef>>,
    /// `opts.count_delta` per wait index.
    count_delta: Vec<i64>,
    /// Under `Policy::AsTimed`, `opts.completions` per dense queue number.
    completions: Vec<Vec<u64>>,
    wait_refs: Vec<(Option<u32>, i64, Span)>,
    run: Run,
    async_depth: usize,
    rng: u64,
    stopped: bool,
    /// Loop iterations stepped through (`limits::MAX_LOOP_ITERATIONS`).
    iterations: u64,
    scratch_offsets: Vec<(u32, usize)>,
    free_groups: Vec<usize>,
    scratch_values: Vec<f64>,
    current_outer: Option<u32>,
    /// Loops and scopes entered (sections and guards do not count): 0 at the top level.
    nest: usize,
    /// Top-level steps begun so far, counted as `timeline` counts them.
    step: u64,
    /// Under `RunOptions::immediate_counts`: per wait and values of the loops a target unrolls
    /// around it, the first count seen and the outermost loop's value then.
    counts_seen: BTreeMap<(usize, Vec<i64>), (i64, Option<i64>)>,
}

enum Stop {
    Cap,
}

impl Machine<'_> {
    fn eval(&self, code: &Code) -> Option<i64> {
        eval(code, &self.env)
    }

    fn problem(&mut self, span: Span, message: String) {
        if self.run.problems.len() < MAX_PROBLEMS
            && !self
                .run
                .problems
                .iter()
                .any(|p| p.span == span && p.message == message)
        {
            self.run.problems.push(Problem::of_run(span, message));
        }
    }

    /// A fact that makes the program invalid, once per place and kind (the message names the
    /// first instance).
    #[cold]
    fn invalid(&mut self, kind: Invalid, span: Span, message: impl FnOnce(&Self) -> String) {
        if self.run.problems.len() < MAX_PROBLEMS
            && !self
                .run
                .problems
                .iter()
                .any(|p| p.span == span && p.invalid == Some(kind))
        {
            let message = message(self);
            self.run.problems.push(kind.problem(span, message));
        }
    }

    /// " at iteration j" of the outermost loop running now, or nothing.
    fn at_iteration(&self) -> String {
        self.current_outer
            .and_then(|v| self.env.get(v as usize))
            .map_or(String::new(), |j| format!(" at iteration {j}"))
    }

    /// Element offset of an access, or a located problem. Allocation-free on the hot path.
    #[inline]
    fn locate(&mut self, a: &CAccess) -> Option<usize> {
        let mut off = a.base;
        for d in &a.dims {
            let Some(i) = eval(&d.index, &self.env) else {
                self.problem(a.span, "an index divides by zero or overflows".into());
                return None;
            };
            if i < 0 || i >= d.size {
                self.out_of_bounds(a, d.k, i);
                return None;
            }
            off += i * d.stride;
        }
        if let Some(c) = &a.extra {
            if eval(c, &self.env).is_none() {
                self.problem(a.span, "an index divides by zero or overflows".into());
            }
            return None;
        }
        Some(off as usize)
    }

    #[cold]
    fn out_of_bounds(&mut self, a: &CAccess, k: usize, i: i64) {
        let Some(buf) = self.bufs.get(a.buf as usize) else {
            return;
        };
        let name = buf.name.clone();
        let shape = buf.shape.clone();
        let size = shape.get(k).copied().unwrap_or(0);
        let iter = self.iteration_of(None);
        self.problem(
            a.span,
            format!(
                "index {k} of `{name}` is {i}, outside 0..{size} (shape {shape:?}{})",
                iter.map_or(String::new(), |j| format!(", iteration {j}"))
            ),
        );
    }

    fn buf_name(&self, buf: u32) -> String {
        self.bufs
            .get(buf as usize)
            .map_or_else(String::new, |b| b.name.clone())
    }

    /// The multi-dimensional index of an element offset (for reports).
    fn index_of(&self, buf: u32, off: usize) -> Vec<i64> {
        self.bufs
            .get(buf as usize)
            .map_or_else(Vec::new, |b| unflatten(&b.strides, off))
    }

    /// The original iteration of a pipelined copy, or (hand-written and source programs) the value
    /// of the outermost loop variable running now.
    fn iteration_of(&mut self, code: Option<&Code>) -> Option<i64> {
        match code {
            Some(c) => self.eval(c),
            None => self
                .current_outer
                .and_then(|v| self.env.get(v as usize).copied()),
        }
    }
}

pub(super) fn run_prepared(prepared: &Prepared, opts: &RunOptions) -> Run {
    let Prepared {
        problems,
        env,
        bufs,
        code,
        wait_refs,
        queues,
        queue_numbers,
    } = prepared;
    let (problems, env, mut bufs, wait_refs) = (
        problems.clone(),
        env.clone(),
        bufs.clone(),
        wait_refs.clone(),
    );
    if opts.trace {
        for b in &mut bufs {
            b.last_write = vec![None; b.values.len()];
        }
    }
    let seed = match opts.policy {
        Policy::Random { seed } => seed | 1,
        _ => 1,
    };
    let mut m = Machine {
        opts,
        bufs,
        env,
        groups: Vec::new(),
        open: Vec::new(),
        in_flight: vec![VecDeque::new(); *queues],
        committed: vec![0; *queues],
        last_wait: vec![None; *queues],
        count_delta: wait_refs
            .iter()
            .enumerate()
            .map(|(index, _)| opts.count_delta.get(&index).copied().unwrap_or(0))
            .collect(),
        completions: queue_numbers
            .iter()
            .map(|q| opts.completions.get(q).cloned().unwrap_or_default())
            .collect(),
        run: Run {
            problems,
            waits: wait_refs
                .iter()
                .enumerate()
                .map(|(index, (id, queue, span))| WaitStats {
                    index,
                    id: *id,
                    queue: *queue,
                    span: *span,
                    ..WaitStats::default()
                })
                .collect(),
            ..Run::default()
        },
        wait_refs,
        async_depth: 0,
        rng: seed,
        stopped: false,
        iterations: 0,
        scratch_offsets: Vec::new(),
        free_groups: Vec::new(),
        scratch_values: Vec::new(),
        current_outer: None,
        nest: 0,
        step: 0,
        counts_seen: BTreeMap::new(),
    };
    if m.exec(code).is_ok() {
        m.never_awaited();
    }
    m.run.pending_at_end = m.in_flight.iter().map(|q| q.len() as u64).sum();
    if opts.trace {
        m.run.in_flight = m.groups_now(m.in_flight.iter().flatten());
        m.run.open = m.groups_now(m.open.iter());
    }
    for b in m.bufs {
        m.run.memory.insert(
            b.name.clone(),
            BufferState {
                shape: b.shape,
                values: b.values,
                written: b.written,
                global: b.global,
                versions: b.versions,
                pending_writes: b.pending_writes,
                last_write: b.last_write,
            },
        );
    }
    m.run
}
