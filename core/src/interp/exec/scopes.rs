//! The machine's walk: loops as steps, commit groups opened and closed, waits with their
//! counts checked (one immediate per unrolled site), and groups never awaited.

use super::{Group, Machine, Stop};
use crate::diagnostic::Span;
use crate::interp::compile::CNode;
use crate::interp::result::*;
use crate::ir::*;
use std::collections::VecDeque;

impl Machine<'_> {
    pub(super) fn exec(&mut self, nodes: &[CNode]) -> Result<(), Stop> {
        for n in nodes {
            if self.stopped {
                return Err(Stop::Cap);
            }
            match n {
                CNode::For {
                    var,
                    lo,
                    hi,
                    body,
                    iterates,
                } => {
                    let (Some(l), Some(h)) = (self.eval(lo), self.eval(hi)) else {
                        continue;
                    };
                    self.run_loop(*var, (l, h), *iterates, body)?;
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

    /// `for var in range(l, h)`: each iteration of a top-level loop is a step. The outermost
    /// loop running that `iterates` gives the iteration reports name.
    pub(super) fn run_loop(
        &mut self,
        var: u32,
        (l, h): (i64, i64),
        iterates: bool,
        body: &[CNode],
    ) -> Result<(), Stop> {
        let outermost = iterates && self.current_outer.is_none();
        if outermost {
            self.current_outer = Some(var);
        }
        let top = self.nest == 0;
        self.nest += 1;
        let saved = self.env.get(var as usize).copied();
        let mut v = l;
        while v < h {
            self.iterations += 1;
            if self.iterations > crate::limits::MAX_LOOP_ITERATIONS {
                self.run.aborted = Some(format!(
                    "its loops step through more than {} iterations, the interpreter's limit, most of them running no statement",
                    crate::limits::MAX_LOOP_ITERATIONS
                ));
                self.run.truncated = true;
                self.stopped = true;
                return Err(Stop::Cap);
            }
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
        if outermost {
            self.current_outer = None;
        }
        Ok(())
    }

    /// A group of `queue` (dense number `q`) opens for the async statements of a commit scope:
    /// a recycled slot when there is one. Returns it and its commit number.
    pub(super) fn open_group(&mut self, queue: i64, q: usize, span: Span) -> (usize, u64) {
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
                    spans: Vec::new(),
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
    pub(super) fn commit(&mut self, g: usize, queue: i64, q: usize, seq: u64) {
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
    pub(super) fn wait(&mut self, queue: i64, q: usize, n: i64, index: usize, span: Span) {
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
}

impl Machine<'_> {
    /// Under `immediate_counts`: the count `n` of wait `index` must be the same wherever the
    /// loops a target unrolls (`unrolled`) have the same values.
    #[cold]
    pub(super) fn one_immediate(&mut self, index: usize, unrolled: &[u32], n: i64, span: Span) {
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
    pub(super) fn never_awaited(&mut self) {
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
                let (are, them, their) = if n == 1 {
                    ("is", "it", "its")
                } else {
                    ("are", "them", "their")
                };
                format!(
                    "{} of queue {queue} committed here {are} still in flight when the program ends (the first is group {seq}{what}); no wait covers {them}, so {their} writes are never known to have landed",
                    crate::english::count(n, "group")
                )
            });
        }
    }
}
