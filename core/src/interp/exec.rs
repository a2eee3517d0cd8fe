//! The executing machine: asynchronous queues of commit groups, per-element counts of pending
//! asynchronous writes and reads (each race check O(1)), groups completed by waits or by the
//! policy, and the run's report.

use super::compile::{eval, value_of, CAccess, CAssign, CNode, Code};
use super::memory::{round, unflatten};
use super::result::*;
use super::Prepared;
use crate::diagnostic::Span;
use crate::ir::*;
use std::collections::{BTreeMap, VecDeque};

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
    writes: Vec<(u32, usize, f64)>,
    reads: Vec<(u32, usize)>,
    members: Vec<(StmtId, Option<i64>)>,
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
    scratch_offsets: Vec<(u32, usize)>,
    free_groups: Vec<usize>,
    scratch_values: Vec<f64>,
    for_depth: usize,
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

    fn pending_group_of(&self, queue_filter: impl Fn(&Group) -> bool) -> Option<usize> {
        self.in_flight
            .iter()
            .flat_map(|q| q.iter())
            .copied()
            .find(|&g| {
                self.groups
                    .get(g)
                    .is_some_and(|g| !g.done && queue_filter(g))
            })
    }

    #[allow(clippy::too_many_arguments)]
    fn race(
        &mut self,
        kind: RaceKind,
        a: &CAssign,
        iteration: Option<i64>,
        buf: u32,
        index: &[i64],
        group: usize,
    ) {
        if self.run.races.len() >= MAX_RACES {
            return;
        }
        let Some(g) = self.groups.get(group) else {
            return;
        };
        let pending = PendingGroup {
            queue: g.queue,
            seq: g.seq,
            members: g.members.clone(),
        };
        let wait = self.last_wait.get(g.q).copied().flatten();
        let (name, versions) = self
            .bufs
            .get(buf as usize)
            .map_or((String::from("?"), 1), |b| (b.name.clone(), b.versions));
        let slot = (versions > 1).then(|| index.first().copied()).flatten();
        let who: Vec<String> = pending
            .members
            .iter()
            .take(3)
            .map(|(s, j)| {
                format!(
                    "statement {s}{}",
                    j.map_or(String::new(), |j| format!(" of iteration {j}"))
                )
            })
            .collect();
        let message = format!(
            "{} `{name}{index:?}`{}: group {} of queue {} ({}) is still in flight{}",
            kind.describe(),
            slot.map_or(String::new(), |s| format!(" (ring slot {s})")),
            pending.seq,
            pending.queue,
            who.join(", "),
            match wait {
                Some(_) => format!(
                    "; the last wait on queue {} before this access should have covered it",
                    pending.queue
                ),
                None => format!(
                    "; no wait on queue {} ran before this access",
                    pending.queue
                ),
            }
        );
        self.run.races.push(Race {
            kind,
            stmt: a.stmt,
            span: a.span,
            iteration,
            buffer: name,
            element: index.to_vec(),
            slot,
            group: pending,
            wait,
            step: self.step,
            message,
        });
    }

    fn complete(&mut self, g: usize) {
        let Some(group) = self.groups.get_mut(g) else {
            return;
        };
        if group.done {
            return;
        }
        group.done = true;
        let (queue, q, seq) = (group.queue, group.q, group.seq);
        let bufs = &mut self.bufs;
        for &(b, off, v) in &group.writes {
            if let Some(buf) = bufs.get_mut(b as usize) {
                if let Some(x) = buf.values.get_mut(off) {
                    *x = v;
                }
                if let Some(w) = buf.written.get_mut(off) {
                    *w = true;
                }
                if let Some(p) = buf.pending_writes.get_mut(off) {
                    *p = p.saturating_sub(1);
                }
            }
        }
        for &(b, off) in &group.reads {
            if let Some(p) = bufs
                .get_mut(b as usize)
                .and_then(|buf| buf.pending_reads.get_mut(off))
            {
                *p = p.saturating_sub(1);
            }
        }
        // Recycle the slot and its buffers: long runs commit many groups.
        group.writes.clear();
        group.reads.clear();
        group.members.clear();
        if let Some(q) = self.in_flight.get_mut(q) {
            // Waits and the random policy complete the oldest group.
            if q.front() == Some(&g) {
                q.pop_front();
            } else {
                q.retain(|x| *x != g);
            }
        }
        self.free_groups.push(g);
        if self.opts.trace {
            self.trace(Event::Complete { queue, seq });
        }
    }

    fn begin_step_at_top(&mut self) {
        if self.nest == 0 {
            self.step += 1;
        }
    }

    fn trace(&mut self, e: Event) {
        if self.opts.trace && self.run.trace.len() < self.opts.max_trace_events {
            self.run.trace.push(e);
        }
    }

    fn random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Under the random policy, sometimes complete the oldest group of some queue.
    fn maybe_complete(&mut self) {
        if let Policy::Random { .. } = self.opts.policy {
            if self.random().is_multiple_of(4) {
                let queues: Vec<usize> = self
                    .in_flight
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(q, _)| q)
                    .collect();
                if !queues.is_empty() {
                    let q = queues
                        .get((self.random() as usize) % queues.len())
                        .copied()
                        .unwrap_or(0);
                    if let Some(&g) = self.in_flight.get(q).and_then(|v| v.front()) {
                        self.complete(g);
                    }
                }
            }
        }
    }

    /// Under `Policy::AsTimed`: the groups whose moment has come before this instance complete,
    /// oldest first per queue (the cost model's groups complete in order too).
    fn complete_as_timed(&mut self, instance: u64) {
        for q in 0..self.in_flight.len() {
            while let Some(&g) = self.in_flight.get(q).and_then(VecDeque::front) {
                let seq = self.groups.get(g).map_or(u64::MAX, |x| x.seq);
                let due = self
                    .completions
                    .get(q)
                    .and_then(|c| c.get(seq as usize))
                    .copied()
                    .unwrap_or(u64::MAX);
                if due > instance {
                    break;
                }
                self.complete(g);
            }
        }
    }

    fn exec(&mut self, nodes: &[CNode]) -> Result<(), Stop> {
        for n in nodes {
            if self.stopped {
                return Err(Stop::Cap);
            }
            match n {
                CNode::For { var, lo, hi, body } => {
                    let (Some(l), Some(h)) = (self.eval(lo), self.eval(hi)) else {
                        continue;
                    };
                    self.run_loop(*var, l, h, body)?;
                }
                CNode::If { cond, body } => {
                    if self.eval(cond).is_some_and(|c| c != 0) {
                        self.exec(body)?;
                    }
                }
                CNode::Commit {
                    queue,
                    q,
                    body,
                    span,
                } => {
                    self.begin_step_at_top();
                    let (g, seq) = self.open_group(*queue, *q, *span);
                    self.nest += 1;
                    let r = self.exec(body);
                    self.nest -= 1;
                    // A run stopped inside the scope ends with the group still open: what it
                    // holds was never committed (`Run::open`).
                    r?;
                    self.commit(g, *queue, *q, seq);
                }
                CNode::Async { body } => {
                    self.async_depth += 1;
                    self.nest += 1;
                    let r = self.exec(body);
                    self.nest -= 1;
                    self.async_depth -= 1;
                    r?;
                }
                CNode::Wait {
                    queue,
                    q,
                    count,
                    index,
                    body,
                    span,
                    unrolled,
                } => {
                    self.begin_step_at_top();
                    let Some(mut n) = self.eval(count) else {
                        self.problem(*span, "this wait count divides by zero or overflows".into());
                        continue;
                    };
                    if self.opts.immediate_counts {
                        self.one_immediate(*index, unrolled, n, *span);
                    }
                    n += self.count_delta.get(*index).copied().unwrap_or(0);
                    if n < 0 {
                        self.invalid(Invalid::NegativeCount, *span, |m| {
                            format!(
                                "this wait's count is {n}{}: no wait instruction encodes a negative count (the run treats it as 0)",
                                m.at_iteration()
                            )
                        });
                        n = 0;
                    }
                    if self
                        .open
                        .iter()
                        .any(|&g| self.groups.get(g).is_some_and(|x| x.q == *q))
                    {
                        self.invalid(Invalid::WaitInOwnCommit, *span, |m| {
                            format!(
                                "this wait on queue {queue} runs inside a commit scope of queue {queue}{}: the group being filled is not committed yet, so the wait cannot cover it",
                                m.at_iteration()
                            )
                        });
                    }
                    self.wait(*queue, *q, n, *index, *span);
                    self.nest += 1;
                    let r = self.exec(body);
                    self.nest -= 1;
                    r?;
                }
                CNode::Assign(a) => {
                    self.begin_step_at_top();
                    // Before the cap: a run stopped here shows what had landed by then.
                    if self.opts.policy == Policy::AsTimed {
                        self.complete_as_timed(self.run.instances + 1);
                    }
                    self.run.instances += 1;
                    if self.run.instances > self.opts.max_instances {
                        self.run.truncated = true;
                        self.stopped = true;
                        return Err(Stop::Cap);
                    }
                    self.assign(a);
                    self.maybe_complete();
                }
            }
        }
        Ok(())
    }

    /// `for var in range(l, h)`: each iteration of a top-level loop is a step.
    fn run_loop(&mut self, var: u32, l: i64, h: i64, body: &[CNode]) -> Result<(), Stop> {
        let outermost = self.for_depth == 0;
        if outermost {
            self.current_outer = Some(var);
        }
        let top = self.nest == 0;
        self.for_depth += 1;
        self.nest += 1;
        let saved = self.env.get(var as usize).copied();
        let mut v = l;
        while v < h {
            if let Some(slot) = self.env.get_mut(var as usize) {
                *slot = v;
            }
            if top {
                self.step += 1;
            }
            self.exec(body)?;
            v += 1;
        }
        self.nest -= 1;
        if let (Some(slot), Some(s)) = (self.env.get_mut(var as usize), saved) {
            *slot = s;
        }
        self.for_depth -= 1;
        if outermost {
            self.current_outer = None;
        }
        Ok(())
    }

    /// A group of `queue` (dense number `q`) opens for the async statements of a commit scope:
    /// a recycled slot when there is one. Returns it and its commit number.
    fn open_group(&mut self, queue: i64, q: usize, span: Span) -> (usize, u64) {
        let seq = self.committed.get(q).copied().unwrap_or(0);
        let g = match self.free_groups.pop() {
            Some(g) => {
                if let Some(x) = self.groups.get_mut(g) {
                    x.queue = queue;
                    x.q = q;
                    x.seq = seq;
                    x.done = false;
                    x.span = span;
                }
                g
            }
            None => {
                self.groups.push(Group {
                    queue,
                    q,
                    seq,
                    writes: Vec::new(),
                    reads: Vec::new(),
                    members: Vec::new(),
                    done: false,
                    span,
                });
                self.groups.len() - 1
            }
        };
        self.open.push(g);
        (g, seq)
    }

    /// The commit scope of group `g` ends: the group is in flight (complete at once under the
    /// earliest policy).
    fn commit(&mut self, g: usize, queue: i64, q: usize, seq: u64) {
        self.open.pop();
        if let Some(c) = self.committed.get_mut(q) {
            *c = seq + 1;
        }
        if let Some(f) = self.in_flight.get_mut(q) {
            f.push_back(g);
        }
        if self.opts.trace {
            let size = self.groups.get(g).map_or(0, |x| x.members.len());
            self.trace(Event::Commit { queue, seq, size });
        }
        if self.opts.policy == Policy::Earliest {
            self.complete(g);
        }
    }

    /// `wait(queue, n)`: completes the oldest groups of the queue until at most `n` are in flight,
    /// and records the instance (statistics, the last wait on the queue, the trace).
    fn wait(&mut self, queue: i64, q: usize, n: i64, index: usize, span: Span) {
        let in_flight = self.in_flight.get(q).map_or(0, VecDeque::len) as u64;
        // The commit numbers of the forced groups are only kept for the trace.
        let mut forced = Vec::new();
        let mut forcing = false;
        while self.in_flight.get(q).map_or(0, VecDeque::len) as i64 > n {
            let Some(g) = self.in_flight.get(q).and_then(VecDeque::front).copied() else {
                break;
            };
            if self.opts.trace {
                forced.push(self.groups.get(g).map_or(0, |x| x.seq));
            }
            forcing = true;
            self.complete(g);
        }
        if let Some(st) = self.run.waits.get_mut(index) {
            st.instances += 1;
            st.max_in_flight = st.max_in_flight.max(in_flight);
            if forcing {
                st.forcing_instances += 1;
            }
            let slack = in_flight as i64 - n;
            st.min_slack = Some(st.min_slack.map_or(slack, |m| m.min(slack)));
        }
        let id = self.wait_refs.get(index).and_then(|w| w.0);
        if let Some(w) = self.last_wait.get_mut(q) {
            *w = Some(WaitRef { index, id, span });
        }
        if self.opts.trace {
            self.trace(Event::Wait {
                index,
                queue,
                count: n,
                in_flight,
                forced,
            });
        }
    }

    fn assign(&mut self, a: &CAssign) {
        let iteration = if self.opts.trace || self.async_depth > 0 {
            self.iteration_of(a.iteration.as_ref())
        } else {
            None
        };
        let is_async = self.async_depth > 0;
        let group = if is_async {
            self.open.last().copied()
        } else {
            None
        };
        if is_async && group.is_none() {
            self.invalid(Invalid::AsyncOutsideCommit, a.span, |m| {
                format!(
                    "this async statement runs outside every commit scope{}: its write joins no group, so no wait covers it on hardware (the run executes it synchronously)",
                    m.at_iteration()
                )
            });
        }
        // Reads.
        let mut read_offsets = std::mem::take(&mut self.scratch_offsets);
        let mut read_values = std::mem::take(&mut self.scratch_values);
        read_offsets.clear();
        read_values.clear();
        let races_before = self.run.races.len();
        let done = self.assign_with(
            a,
            iteration,
            group,
            is_async,
            &mut read_offsets,
            &mut read_values,
        );
        if !done && self.opts.trace {
            // An instance that stops at an access it cannot locate still ran (and may have raced
            // on what it read first): the trace says so, with no element written.
            let reads = read_offsets
                .iter()
                .map(|&(b, o)| (self.buf_name(b), self.index_of(b, o)))
                .collect();
            self.trace(Event::Exec {
                stmt: a.stmt,
                iteration,
                is_async,
                group: None,
                target: (self.buf_name(a.target.buf), Vec::new()),
                node: a.node,
                instance: self.run.instances,
                reads,
                step: self.step,
                raced: self.run.races.len() > races_before,
            });
        }
        self.scratch_offsets = read_offsets;
        self.scratch_values = read_values;
    }

    fn assign_with(
        &mut self,
        a: &CAssign,
        iteration: Option<i64>,
        group: Option<usize>,
        is_async: bool,
        read_offsets: &mut Vec<(u32, usize)>,
        read_values: &mut Vec<f64>,
    ) -> bool {
        let races_before = self.run.races.len();
        for r in &a.reads {
            let Some(off) = self.locate(r) else {
                return false;
            };
            let (pending, value) = match self.bufs.get(r.buf as usize) {
                Some(b) => (
                    b.pending_writes.get(off).copied().unwrap_or(0),
                    b.values.get(off).copied().unwrap_or(0.0),
                ),
                None => return false,
            };
            if pending > 0 {
                if let Some(g) = self.pending_writer(r.buf, off) {
                    let index = self.index_of(r.buf, off);
                    let iteration = iteration.or_else(|| self.iteration_of(a.iteration.as_ref()));
                    self.race(RaceKind::ReadAfterWrite, a, iteration, r.buf, &index, g);
                }
            }
            read_offsets.push((r.buf, off));
            read_values.push(value);
        }
        let value = value_of(&a.value, read_values, &self.env);
        // Write.
        let Some(off) = self.locate(&a.target) else {
            return false;
        };
        let (pw, pr, dtype) = match self.bufs.get(a.target.buf as usize) {
            Some(b) => (
                b.pending_writes.get(off).copied().unwrap_or(0),
                b.pending_reads.get(off).copied().unwrap_or(0),
                b.dtype,
            ),
            None => return false,
        };
        if pw > 0 {
            if let Some(g) = self.pending_writer(a.target.buf, off) {
                let index = self.index_of(a.target.buf, off);
                let iteration = iteration.or_else(|| self.iteration_of(a.iteration.as_ref()));
                self.race(
                    RaceKind::WriteAfterWrite,
                    a,
                    iteration,
                    a.target.buf,
                    &index,
                    g,
                );
            }
        }
        if pr > 0 {
            if let Some(g) = self.pending_reader(a.target.buf, off, group) {
                let index = self.index_of(a.target.buf, off);
                let iteration = iteration.or_else(|| self.iteration_of(a.iteration.as_ref()));
                self.race(
                    RaceKind::WriteAfterRead,
                    a,
                    iteration,
                    a.target.buf,
                    &index,
                    g,
                );
            }
        }
        let value = round(value, dtype);
        let name = if self.opts.trace {
            let stamp = (self.run.instances, iteration);
            if let Some(w) = self
                .bufs
                .get_mut(a.target.buf as usize)
                .and_then(|b| b.last_write.get_mut(off))
            {
                *w = Some(stamp);
            }
            self.bufs.get(a.target.buf as usize).map(|b| b.name.clone())
        } else {
            None
        };
        match group {
            Some(g) => {
                if let Some(buf) = self.bufs.get_mut(a.target.buf as usize) {
                    if let Some(p) = buf.pending_writes.get_mut(off) {
                        *p += 1;
                    }
                }
                for &(b, o) in read_offsets.iter() {
                    if let Some(p) = self
                        .bufs
                        .get_mut(b as usize)
                        .and_then(|buf| buf.pending_reads.get_mut(o))
                    {
                        *p += 1;
                    }
                }
                if let Some(gr) = self.groups.get_mut(g) {
                    gr.writes.push((a.target.buf, off, value));
                    gr.reads.extend(read_offsets.iter().copied());
                    gr.members.push((a.stmt, iteration));
                }
            }
            None => {
                if let Some(buf) = self.bufs.get_mut(a.target.buf as usize) {
                    if let Some(x) = buf.values.get_mut(off) {
                        *x = value;
                    }
                    if let Some(w) = buf.written.get_mut(off) {
                        *w = true;
                    }
                }
            }
        }
        if let Some(name) = name {
            let seq = group
                .and_then(|g| self.groups.get(g))
                .map(|g| (g.queue, g.seq));
            let reads = read_offsets
                .iter()
                .map(|&(b, o)| (self.buf_name(b), self.index_of(b, o)))
                .collect();
            self.trace(Event::Exec {
                stmt: a.stmt,
                iteration,
                is_async,
                group: seq,
                target: (name, self.index_of(a.target.buf, off)),
                node: a.node,
                instance: self.run.instances,
                reads,
                step: self.step,
                raced: self.run.races.len() > races_before,
            });
        }
        true
    }

    /// Under `immediate_counts`: the count `n` of wait `index` must be the same wherever the
    /// loops a target unrolls (`unrolled`) have the same values.
    #[cold]
    fn one_immediate(&mut self, index: usize, unrolled: &[u32], n: i64, span: Span) {
        let key: Vec<i64> = unrolled
            .iter()
            .map(|&v| self.env.get(v as usize).copied().unwrap_or(0))
            .collect();
        let now = self
            .current_outer
            .and_then(|v| self.env.get(v as usize).copied());
        let (first, then) = *self.counts_seen.entry((index, key)).or_insert((n, now));
        if first != n {
            let at = |j: Option<i64>| j.map_or(String::new(), |j| format!(" at iteration {j}"));
            self.invalid(Invalid::CountNotImmediate, span, |_| {
                format!(
                    "this wait's count is {first}{} but {n}{}: a target emits it once in its loop, with one immediate",
                    at(then),
                    at(now)
                )
            });
        }
    }

    /// Groups holding writes still in flight at the end: one invalid problem per commit scope.
    fn never_awaited(&mut self) {
        /// The groups one commit scope left in flight: its queue, the first group's number and
        /// member, and how many.
        struct Left {
            span: Span,
            queue: i64,
            seq: u64,
            first: Option<(StmtId, Option<i64>)>,
            n: usize,
        }
        let mut left: Vec<Left> = Vec::new();
        for &g in self.in_flight.iter().flatten() {
            let Some(x) = self.groups.get(g) else {
                continue;
            };
            // An empty group has nothing to land (a symbolic extent's steps commit them).
            if x.done || x.writes.is_empty() {
                continue;
            }
            match left.iter_mut().find(|e| e.span == x.span) {
                Some(e) => e.n += 1,
                None => left.push(Left {
                    span: x.span,
                    queue: x.queue,
                    seq: x.seq,
                    first: x.members.first().copied(),
                    n: 1,
                }),
            }
        }
        for Left {
            span,
            queue,
            seq,
            first,
            n,
        } in left
        {
            self.invalid(Invalid::NeverAwaited, span, |_| {
                let what = first.map_or(String::new(), |(s, j)| {
                    format!(
                        ": statement {s}{}",
                        j.map_or(String::new(), |j| format!(" of iteration {j}"))
                    )
                });
                format!(
                    "{n} group(s) of queue {queue} committed here are still in flight when the program ends (the first is group {seq}{what}); no wait covers them, so their writes are never known to have landed"
                )
            });
        }
    }

    /// These groups, with the elements their writes land in.
    fn groups_now<'g>(
        &self,
        groups: impl Iterator<Item = &'g usize>,
    ) -> Vec<(PendingGroup, Vec<(String, usize)>)> {
        groups
            .filter_map(|&g| self.groups.get(g))
            .map(|g| {
                let writes = g
                    .writes
                    .iter()
                    .map(|&(b, off, _)| {
                        let name = self
                            .bufs
                            .get(b as usize)
                            .map_or_else(String::new, |x| x.name.clone());
                        (name, off)
                    })
                    .collect();
                let pending = PendingGroup {
                    queue: g.queue,
                    seq: g.seq,
                    members: g.members.clone(),
                };
                (pending, writes)
            })
            .collect()
    }

    fn pending_writer(&self, buf: u32, off: usize) -> Option<usize> {
        self.pending_group_of(|g| g.writes.iter().any(|w| w.0 == buf && w.1 == off))
    }

    fn pending_reader(&self, buf: u32, off: usize, except: Option<usize>) -> Option<usize> {
        self.in_flight
            .iter()
            .flat_map(|q| q.iter())
            .copied()
            .chain(self.open.iter().copied())
            .find(|&g| {
                Some(g) != except
                    && self.groups.get(g).is_some_and(|x| {
                        !x.done && x.reads.iter().any(|r| r.0 == buf && r.1 == off)
                    })
            })
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
        scratch_offsets: Vec::new(),
        free_groups: Vec::new(),
        scratch_values: Vec::new(),
        for_depth: 0,
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
