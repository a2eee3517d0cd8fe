//! One assignment executed: its reads and write located, checked against the pending
//! asynchronous accesses, and applied now or when its group completes.

use super::Machine;
use crate::interp::compile::{value_of, CAssign};
use crate::interp::memory::round;
use crate::interp::result::*;

impl Machine<'_> {
    pub(super) fn assign(&mut self, a: &CAssign) {
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
            let target = (self.buf_name(a.target.buf), Vec::new());
            self.trace_exec(
                a,
                iteration,
                is_async,
                None,
                target,
                &read_offsets,
                races_before,
            );
        }
        self.scratch_offsets = read_offsets;
        self.scratch_values = read_values;
    }

    pub(super) fn assign_with(
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
                    let iteration = iteration.or_else(|| self.iteration_of(a.iteration.as_ref()));
                    self.race(
                        RaceKind::ReadAfterWrite,
                        a,
                        iteration,
                        (r.buf, off),
                        g,
                        group,
                    );
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
        let target = (a.target.buf, off);
        if pw > 0 {
            if let Some(g) = self.pending_writer(a.target.buf, off) {
                let iteration = iteration.or_else(|| self.iteration_of(a.iteration.as_ref()));
                self.race(RaceKind::WriteAfterWrite, a, iteration, target, g, group);
            }
        }
        if pr > 0 {
            if let Some(g) = self.pending_reader(a.target.buf, off) {
                let iteration = iteration.or_else(|| self.iteration_of(a.iteration.as_ref()));
                self.race(RaceKind::WriteAfterRead, a, iteration, target, g, group);
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
                    let member = gr.members.len() as u32;
                    gr.writes.push((a.target.buf, off, value));
                    gr.reads
                        .extend(read_offsets.iter().map(|&(b, o)| (b, o, member)));
                    gr.members.push((a.stmt, iteration));
                    gr.spans.push(a.span);
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
            let target = (name, self.index_of(a.target.buf, off));
            self.trace_exec(
                a,
                iteration,
                is_async,
                seq,
                target,
                read_offsets,
                races_before,
            );
        }
        true
    }

    /// Traces the instance of `a` that wrote `target` (no element: it stopped at an access it
    /// could not locate) after reading `read_offsets`; it raced if races were found since
    /// `races_before`.
    #[allow(clippy::too_many_arguments)]
    fn trace_exec(
        &mut self,
        a: &CAssign,
        iteration: Option<i64>,
        is_async: bool,
        group: Option<(i64, u64)>,
        target: (String, Vec<i64>),
        read_offsets: &[(u32, usize)],
        races_before: usize,
    ) {
        let reads = read_offsets
            .iter()
            .map(|&(b, o)| (self.buf_name(b), self.index_of(b, o)))
            .collect();
        self.trace(Event::Exec {
            stmt: a.stmt,
            iteration,
            is_async,
            group,
            target,
            node: a.node,
            instance: self.run.instances,
            reads,
            step: self.step,
            raced: self.run.races.len() > races_before,
        });
    }
}
