//! The one in-order sequence of groups per thread that sm_80's `cp.async` groups and LLVM's
//! asyncmarks keep, recorded while the timeline simulates its per-queue waits. The stream is the
//! one those emitters record (a unit per commit, a group with a global→shared copy tagged with its
//! queue), translated by the same `emit::sequence::translate`, so the timeline names the groups a
//! wait completes there beyond what the IR asked, as the kernels' notes do, and can run the waits
//! the kernels run (`Mode::Sequence`).

use crate::emit::sequence::{translate, Ev};
use crate::emit::ForcedGroup;
use serde::{Deserialize, Serialize};

/// A wait instruction of the sm_80 and asyncmark kernels that completes groups the pipelined
/// program's waits let stay in flight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SequenceForced {
    /// The waits it is (several queues' waits at one point are one instruction), by pre-order
    /// index as `Stall::wait_index`.
    pub waits: Vec<usize>,
    /// The step of its one instance; `None` for a wait of the body loop, one instruction for
    /// every iteration (its groups are those of any of them).
    pub step: Option<u64>,
    /// The most groups it forces at one instance, and which (1 the queue's newest committed).
    pub groups: u64,
    pub forced: Vec<ForcedGroup>,
    /// The waits' derived ids, for the sentence that names them.
    pub ids: Vec<Option<u32>>,
}

/// A wait as recorded: its pre-order index and derived id, its step (`None`: the body loop's),
/// and the first wait of its instruction.
struct Key {
    index: usize,
    id: Option<u32>,
    step: Option<u64>,
    point: usize,
}

#[derive(Default)]
pub(super) struct Recorder {
    events: Vec<Ev>,
    keys: Vec<Key>,
    /// In the body loop: the events before it, and its iterations so far as runs of equal ones
    /// (the translation walks a long loop in a few iterations, as it does the kernels').
    body: Option<(Vec<Ev>, Vec<Ev>)>,
    /// The body loop's waits are one instruction each, whichever iteration: (index, key).
    body_keys: Vec<(usize, usize)>,
    /// The open commit scope issued a copy.
    copies: bool,
    /// The key of the last event when it is a wait: a wait right after it is the same
    /// instruction.
    after_wait: Option<usize>,
}

impl Recorder {
    pub fn open(&mut self) {
        self.copies = false;
    }

    pub fn copy(&mut self) {
        self.copies = true;
    }

    pub fn statement(&mut self) {
        self.after_wait = None;
    }

    pub fn commit(&mut self, queue: i64) {
        let group = std::mem::take(&mut self.copies).then_some(queue);
        self.events.push(Ev::Unit { group, label: 0 });
        self.events.push(Ev::Commit(queue));
        self.after_wait = None;
    }

    /// A wait instance; returns its key (what `Mode::Sequence` is given per key).
    pub fn wait(
        &mut self,
        index: usize,
        id: Option<u32>,
        queue: i64,
        count: i64,
        step: u64,
    ) -> usize {
        let in_body = self.body.is_some();
        let known = in_body
            .then(|| self.body_keys.iter().find(|(i, _)| *i == index))
            .flatten();
        let k = match known {
            Some((_, k)) => *k,
            None => {
                let k = self.keys.len();
                let point = self
                    .after_wait
                    .map_or(k, |w| self.keys.get(w).map_or(k, |x| x.point));
                self.keys.push(Key {
                    index,
                    id,
                    step: (!in_body).then_some(step),
                    point,
                });
                if in_body {
                    self.body_keys.push((index, k));
                }
                k
            }
        };
        self.events.push(Ev::Wait {
            k,
            queue,
            count,
            joined: self.after_wait.is_some(),
        });
        self.after_wait = Some(k);
        k
    }

    /// The body loop begins (in the kernels, a loop head: waits on either side of it are not
    /// one instruction).
    pub fn enter_body(&mut self) {
        self.after_wait = None;
        self.body = Some((std::mem::take(&mut self.events), Vec::new()));
    }

    pub fn end_iteration(&mut self) {
        self.after_wait = None;
        let it = std::mem::take(&mut self.events);
        if let Some((_, runs)) = self.body.as_mut() {
            match runs.last_mut() {
                Some(Ev::Loop { trips, body }) if *body == it => *trips += 1,
                _ => runs.push(Ev::Loop { trips: 1, body: it }),
            }
        }
    }

    pub fn leave_body(&mut self) {
        self.after_wait = None;
        if let Some((outer, runs)) = self.body.take() {
            self.events = outer;
            self.events.extend(runs);
        }
    }

    /// The waits that force groups, and per key the groups its instruction keeps in flight
    /// (sm_80's count is unbounded; asyncmarks' field holds 65 535 marks, more groups than the
    /// timeline's `limits::MAX_TIMELINE_INSTANCES` statement instances commit with a copy).
    /// `Err`: the commits and waits recorded, beyond `limits::MAX_SEQUENCE_EVENTS`.
    pub fn translate(mut self) -> Result<(Vec<SequenceForced>, Vec<u64>), usize> {
        self.leave_body();
        if self.events.len() > crate::limits::MAX_SEQUENCE_EVENTS {
            return Err(self.events.len());
        }
        let t = translate(&self.events, self.keys.len(), u64::MAX);
        let keep = t.iter().map(|t| t.min.unwrap_or(u64::MAX)).collect();
        let mut out: Vec<SequenceForced> = Vec::new();
        let mut last_point = None;
        // The waits of one instruction were given consecutive keys, and share what it forces.
        for (key, t) in self.keys.iter().zip(&t) {
            if t.forced.is_empty() {
                continue;
            }
            match out.last_mut() {
                Some(f) if last_point == Some(key.point) => {
                    f.waits.push(key.index);
                    f.ids.push(key.id);
                }
                _ => out.push(SequenceForced {
                    waits: vec![key.index],
                    ids: vec![key.id],
                    step: key.step,
                    groups: t.extra_groups,
                    forced: t
                        .forced
                        .iter()
                        .map(|&(queue, newest)| ForcedGroup { queue, newest })
                        .collect(),
                }),
            }
            last_point = Some(key.point);
        }
        Ok((out, keep))
    }
}

impl SequenceForced {
    /// "wait #1, #2 (body): 1 group — the 3rd newest group of queue 0".
    pub fn describe(&self) -> String {
        let ids: Vec<String> = self
            .ids
            .iter()
            .map(|id| id.map_or("?".into(), |i| format!("#{i}")))
            .collect();
        let at = self.step.map_or("body".into(), |s| format!("step {s}"));
        format!("wait {} ({at}): {}", ids.join(", "), self.groups_text())
    }

    /// "1 group — the 3rd newest group of queue 0".
    pub fn groups_text(&self) -> String {
        let forced: Vec<(i64, u64)> = self.forced.iter().map(|g| (g.queue, g.newest)).collect();
        format!(
            "{} — {}",
            crate::english::count(self.groups, "group"),
            crate::emit::waits::forced_groups(&forced)
        )
    }

    /// Whether it is the instruction of the wait at `wait_index` at `step`.
    pub fn at(&self, wait_index: usize, step: u64) -> bool {
        self.waits.contains(&wait_index) && self.step.is_none_or(|s| s == step)
    }
}
