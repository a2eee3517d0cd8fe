//! One statement instance across threads, and the races it meets: a read of another wave's write
//! that no barrier separates from its landing, a write over what another wave read in the same
//! barrier interval, and a wave's own access of its async write still in flight.

use super::{Group, Machine, Read, Write};
use crate::diagnostic::Span;
use crate::interp::memory::{round, strides_of, unflatten};
use crate::ir::*;
use serde::{Deserialize, Serialize};

/// One access in a race: which wave (thread) made it, which statement at which iteration, in
/// which barrier interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    pub agent: u32,
    pub stmt: StmtId,
    pub iteration: Option<i64>,
    pub span: Span,
    /// Barriers passed before it.
    pub epoch: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadRaceKind {
    /// A read of another wave's write that has not landed, or landed with no barrier since.
    ReadNotPublished,
    /// A read of the reading wave's own async write still in flight.
    ReadInFlight,
    /// A write of an element another wave read in the same barrier interval.
    WriteOverRead,
    /// A write of an element the wave's own async write still targets.
    WriteInFlight,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadRace {
    pub kind: ThreadRaceKind,
    pub buffer: String,
    pub element: Vec<i64>,
    /// The ring slot of the element (its first index) when the buffer has several versions.
    pub slot: Option<i64>,
    pub access: Side,
    pub other: Side,
    /// "wave" or "thread": what an agent is.
    pub agent_word: String,
    /// A read of another wave's copy that had landed: the wait that landed it (in the writing
    /// wave; every wave runs the same program). A `barrier()` after that wait and before the read
    /// publishes the copy to the reader.
    pub landed_at: Option<Span>,
}

impl ThreadRace {
    /// The race in a sentence naming both waves (threads), the element, its slot and the
    /// iterations. Where each access is and where the barrier that covers it goes are spans
    /// (`access`, `other`, `landed_at`), which the callers write as lines of the program they
    /// show.
    pub fn message(&self) -> String {
        let element = format!(
            "{}[{}]",
            self.buffer,
            self.element
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let slot = self.slot.map_or(String::new(), |s| format!(" (slot {s})"));
        let at = |s: &Side| {
            s.iteration
                .map_or(String::new(), |i| format!(" at iteration {i}"))
        };
        let of = |s: &Side| {
            s.iteration
                .map_or(String::new(), |i| format!(" (iteration {i})"))
        };
        let (me, them) = (
            format!("{} {}", self.agent_word, self.access.agent),
            format!("{} {}", self.agent_word, self.other.agent),
        );
        let (at, of) = (at(&self.access), of(&self.other));
        match self.kind {
            ThreadRaceKind::ReadNotPublished if self.landed_at.is_some() => format!(
                "{me} reads {element}{slot}{at}, written by {them}'s async copy{of}: the copy has landed at {them}'s wait, but no barrier after that wait publishes it to {me}"
            ),
            ThreadRaceKind::ReadNotPublished => format!(
                "{me} reads {element}{slot}{at}, written by {them}'s async copy{of}, which is still in flight: no wait has completed it"
            ),
            ThreadRaceKind::ReadInFlight => format!(
                "{me} reads {element}{slot}{at} while its own async copy{of} of it is in flight"
            ),
            ThreadRaceKind::WriteOverRead => format!(
                "{me} writes {element}{slot}{at} while {them} may still be reading it{of}: no barrier separates that read from this write"
            ),
            ThreadRaceKind::WriteInFlight => format!(
                "{me} writes {element}{slot}{at} while its own async copy{of} of it is in flight"
            ),
        }
    }

    /// Races with the same key are covered by one barrier at one place: the same kind, the same
    /// access, after the same wait (a landed copy) or the same other access.
    pub fn cover_key(&self) -> (ThreadRaceKind, Span, Span) {
        (
            self.kind,
            self.access.span,
            self.landed_at.unwrap_or(self.other.span),
        )
    }

    /// What the other access is: the other wave's copy, or its read.
    pub fn other_access(&self) -> &'static str {
        match self.kind {
            ThreadRaceKind::WriteOverRead => "the read",
            _ => "the copy",
        }
    }

    /// Where the `barrier()` that would have covered the race goes, in words, given the lines of
    /// the program's accesses (`line` turns a span into its line number); `None` when a barrier
    /// alone does not cover it (a wave's own copy in flight needs a wait, not a barrier).
    pub fn covering_barrier(&self, line: impl Fn(Span) -> usize) -> Option<String> {
        match self.kind {
            ThreadRaceKind::ReadNotPublished => Some(match self.landed_at {
                Some(wait) => format!(
                    "a barrier() after the wait on line {} and before this read on line {}",
                    line(wait),
                    line(self.access.span)
                ),
                None => format!(
                    "a wait that completes the copy on line {}, then a barrier() before this read on line {}",
                    line(self.other.span),
                    line(self.access.span)
                ),
            }),
            ThreadRaceKind::WriteOverRead => Some(format!(
                "a barrier() after the read on line {} and before this write on line {}",
                line(self.other.span),
                line(self.access.span)
            )),
            ThreadRaceKind::ReadInFlight | ThreadRaceKind::WriteInFlight => None,
        }
    }
}

impl Machine<'_> {
    /// The element offset of an access, or a located problem.
    fn locate(&mut self, a: &Access) -> Option<(usize, usize)> {
        let b = a.buffer as usize;
        let shape = self.mems.get(b)?.shape.clone();
        let mut off = 0i64;
        let strides = strides_of(&shape);
        if a.indices.len() != shape.len() {
            self.problem(a.span, "this access has the wrong number of indices".into());
            return None;
        }
        for ((e, d), s) in a.indices.iter().zip(&shape).zip(&strides) {
            let Some(i) = e.eval(&self.env) else {
                self.problem(a.span, "an index divides by zero or overflows".into());
                return None;
            };
            if i < 0 || i >= *d {
                self.problem(
                    a.span,
                    format!(
                        "an index of `{}` is {i}, outside 0..{d}",
                        self.program.buffers.get(b).map_or("?", |x| x.name.as_str())
                    ),
                );
                return None;
            }
            off += i * s;
        }
        Some((b, off as usize))
    }

    /// The agents (indices into `agents`) that run an instance writing element `e` of `b`.
    fn runners(&self, b: usize, e: usize) -> Vec<usize> {
        let Some(m) = self.mems.get(b) else {
            return Vec::new();
        };
        if m.distribution.is_each() {
            return (0..self.agents.len()).collect();
        }
        let slot = super::slot_elements(m);
        let within = (e as i64).rem_euclid(slot);
        let Some(thread) = m.distribution.owner(within, slot, self.threads.threads) else {
            return Vec::new();
        };
        let wave = self.threads.wave_of(thread);
        self.agents
            .iter()
            .position(|a| *a == wave)
            .into_iter()
            .collect()
    }

    /// Records a race: every one counted, the first `MAX_RACES` kept, and beyond them the first
    /// of each place a barrier would cover (`ThreadRace::cover_key`), up to `MAX_PLACES` more, so
    /// that a program missing several barriers shows each.
    fn race(&mut self, kind: ThreadRaceKind, b: usize, e: usize, access: Side, other: Side) {
        self.run.race_count += 1;
        let Some(m) = self.mems.get(b) else {
            return;
        };
        let element = unflatten(&strides_of(&m.shape), e);
        let agent_word = if self.threads.waves < self.threads.threads {
            "wave"
        } else {
            "thread"
        };
        let slot = (m.versions > 1).then(|| element.first().copied()).flatten();
        let landed_at = match kind {
            ThreadRaceKind::ReadNotPublished => m
                .last_write
                .first()
                .and_then(|l| l.get(e))
                .copied()
                .flatten()
                .and_then(|w| w.landed_at),
            _ => None,
        };
        let race = ThreadRace {
            kind,
            buffer: m.name.clone(),
            element,
            slot,
            access,
            other,
            agent_word: agent_word.to_string(),
            landed_at,
        };
        let kept = self.run.races.len();
        let new_place = || {
            kept < super::MAX_RACES + super::MAX_PLACES
                && self
                    .run
                    .races
                    .iter()
                    .all(|r| r.cover_key() != race.cover_key())
        };
        if kept < super::MAX_RACES || new_place() {
            self.run.races.push(race);
        }
    }

    pub(super) fn assign(&mut self, a: &Assign) {
        let Some((b, e)) = self.locate(&a.target) else {
            return;
        };
        let iteration = self.iteration(a);
        for ai in self.runners(b, e) {
            self.run.instances += 1;
            if self.run.instances > self.opts.max_instances {
                self.run.truncated = true;
                self.stopped = true;
                return;
            }
            let side = Side {
                agent: self.agents.get(ai).copied().unwrap_or(0),
                stmt: a.stmt,
                iteration,
                span: a.span,
                epoch: self.epoch,
            };
            let Some(value) = self.value(&a.value, ai, side) else {
                continue;
            };
            self.write(b, e, ai, side, value);
        }
    }

    fn value(&mut self, v: &VExpr, ai: usize, side: Side) -> Option<f64> {
        Some(match v {
            VExpr::Lit(x) => *x,
            VExpr::Index(i) => i.eval(&self.env)? as f64,
            VExpr::Read(r) => {
                let (b, e) = self.locate(r)?;
                self.read(b, e, ai, side)
            }
            VExpr::Neg(x) => -self.value(x, ai, side)?,
            VExpr::Bin(op, ab) => {
                let [x, y] = &**ab;
                let (x, y) = (self.value(x, ai, side)?, self.value(y, ai, side)?);
                match op {
                    VOp::Add => x + y,
                    VOp::Sub => x - y,
                    VOp::Mul => x * y,
                    VOp::Div => x / y,
                }
            }
            VExpr::Call(f, args) => {
                let mut xs = Vec::with_capacity(args.len());
                for x in args {
                    xs.push(self.value(x, ai, side)?);
                }
                let arg = |k: usize| xs.get(k).copied().unwrap_or(0.0);
                match f {
                    Func::Max => arg(0).max(arg(1)),
                    Func::Min => arg(0).min(arg(1)),
                    Func::Fma => arg(0) * arg(1) + arg(2),
                    Func::Abs => arg(0).abs(),
                }
            }
        })
    }

    fn copy_of(&self, b: usize, ai: usize) -> usize {
        match self.mems.get(b) {
            Some(m) if m.distribution.is_each() => ai,
            _ => 0,
        }
    }

    fn read(&mut self, b: usize, e: usize, ai: usize, side: Side) -> f64 {
        let copy = self.copy_of(b, ai);
        let epoch = self.epoch;
        let Some(m) = self.mems.get_mut(b) else {
            return 0.0;
        };
        let last = m
            .last_write
            .get(copy)
            .and_then(|l| l.get(e))
            .copied()
            .flatten();
        let value = m
            .copies
            .get(copy)
            .and_then(|c| c.get(e))
            .copied()
            .unwrap_or(0.0);
        let distributed = !m.distribution.is_each();
        if distributed {
            if let Some(reads) = m.reads.get_mut(e) {
                reads.retain(|r| r.side.epoch == epoch);
                if !reads.iter().any(|r| r.side.agent == side.agent) {
                    reads.push(Read { side });
                }
            }
        }
        if let Some(w) = last {
            if w.side.agent == side.agent {
                if w.landed.is_none() {
                    self.race(ThreadRaceKind::ReadInFlight, b, e, side, w.side);
                }
            } else if w.landed.is_none_or(|l| l >= epoch) {
                self.race(ThreadRaceKind::ReadNotPublished, b, e, side, w.side);
            }
        }
        value
    }

    fn write(&mut self, b: usize, e: usize, ai: usize, side: Side, value: f64) {
        let copy = self.copy_of(b, ai);
        let epoch = self.epoch;
        let Some(m) = self.mems.get_mut(b) else {
            return;
        };
        let value = round(value, m.dtype);
        let last = m
            .last_write
            .get(copy)
            .and_then(|l| l.get(e))
            .copied()
            .flatten();
        let other_read = m
            .reads
            .get(e)
            .and_then(|rs| {
                rs.iter()
                    .find(|r| r.side.epoch == epoch && r.side.agent != side.agent)
            })
            .map(|r| r.side);
        let in_async = self.async_depth > 0;
        let landed = (!in_async).then_some(epoch);
        if let Some(slot) = m.last_write.get_mut(copy).and_then(|l| l.get_mut(e)) {
            *slot = Some(Write {
                side,
                landed,
                landed_at: None,
            });
        }
        if let Some(w) = last {
            if w.side.agent == side.agent && w.landed.is_none() {
                self.race(ThreadRaceKind::WriteInFlight, b, e, side, w.side);
            }
        }
        if let Some(r) = other_read {
            self.race(ThreadRaceKind::WriteOverRead, b, e, side, r);
        }
        if in_async {
            let group = self.open.get_mut(ai).and_then(|o| o.last_mut());
            match group {
                Some((_, Group { writes })) => {
                    writes.push((b, copy, e, value));
                    if let Some(p) = self
                        .mems
                        .get_mut(b)
                        .and_then(|m| m.pending.get_mut(copy))
                        .and_then(|p| p.get_mut(e))
                    {
                        *p += 1;
                    }
                    return;
                }
                None => {
                    self.problem(
                        side.span,
                        "an async statement runs with no commit scope open: it runs synchronously"
                            .into(),
                    );
                    if let Some(Some(w)) = self
                        .mems
                        .get_mut(b)
                        .and_then(|m| m.last_write.get_mut(copy))
                        .and_then(|l| l.get_mut(e))
                    {
                        w.landed = Some(epoch);
                    }
                }
            }
        }
        if let Some(x) = self
            .mems
            .get_mut(b)
            .and_then(|m| m.copies.get_mut(copy))
            .and_then(|c| c.get_mut(e))
        {
            *x = value;
        }
    }
}
