//! Races: which pending group an element's write or read belongs to, and the race reported
//! with its slot, group and the wait that would have covered it.

use super::{Group, Machine, MAX_RACES};
use crate::interp::compile::CAssign;
use crate::interp::result::*;

impl Machine<'_> {
    pub(super) fn pending_group_of(&self, queue_filter: impl Fn(&Group) -> bool) -> Option<usize> {
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

    pub(super) fn race(
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
}

impl Machine<'_> {
    /// These groups, with the elements their writes land in.
    pub(super) fn groups_now<'g>(
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

    pub(super) fn pending_writer(&self, buf: u32, off: usize) -> Option<usize> {
        self.pending_group_of(|g| g.writes.iter().any(|w| w.0 == buf && w.1 == off))
    }

    pub(super) fn pending_reader(
        &self,
        buf: u32,
        off: usize,
        except: Option<usize>,
    ) -> Option<usize> {
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
