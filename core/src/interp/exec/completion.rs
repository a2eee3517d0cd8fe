//! When groups complete: at a wait, or earlier by the run's policy (latest, as timed, or
//! random), with the step that each completion belongs to.

use super::Machine;
use crate::interp::result::*;
use std::collections::VecDeque;

impl Machine<'_> {
    pub(super) fn complete(&mut self, g: usize) {
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
        for &(b, off, _) in &group.reads {
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
        group.spans.clear();
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

    pub(super) fn begin_step_at_top(&mut self) {
        if self.nest == 0 {
            self.step += 1;
        }
    }

    pub(super) fn trace(&mut self, e: Event) {
        if self.opts.trace && self.run.trace.len() < self.opts.max_trace_events {
            self.run.trace.push(e);
        }
    }

    pub(super) fn random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Under the random policy, sometimes complete the oldest group of some queue.
    pub(super) fn maybe_complete(&mut self) {
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
    pub(super) fn complete_as_timed(&mut self, instance: u64) {
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
}
