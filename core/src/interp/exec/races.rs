//! Races: which pending group an element's write or read belongs to, and the race reported
//! with its slot, group and the wait that would have covered it.

use super::{Group, Machine, MAX_RACES};
use crate::interp::compile::CAssign;
use crate::interp::result::*;
use crate::ir::StmtId;

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

    /// Reports that `a` (of the group `current`, if async) races on element `target` with group
    /// `group`, whose access to it is still pending.
    pub(super) fn race(
        &mut self,
        kind: RaceKind,
        a: &CAssign,
        iteration: Option<i64>,
        target: (u32, usize),
        group: usize,
        current: Option<usize>,
    ) {
        if self.run.races.len() >= MAX_RACES {
            return;
        }
        let Some(g) = self.groups.get(group) else {
            return;
        };
        let (buf, off) = target;
        let index = self.index_of(buf, off);
        let pending = PendingGroup {
            queue: g.queue,
            seq: g.seq,
            members: g.members.clone(),
        };
        let other = self.member_touching(group, target, kind);
        let within_group = current == Some(group);
        let still_open = self.open.contains(&group);
        // No wait can cover a group before it is committed: none is blamed.
        let wait = if still_open {
            None
        } else {
            self.last_wait.get(g.q).copied().flatten()
        };
        let (name, versions) = self
            .bufs
            .get(buf as usize)
            .map_or((String::from("?"), 1), |b| (b.name.clone(), b.versions));
        let slot = (versions > 1).then(|| index.first().copied()).flatten();
        let instance = |(s, j): (StmtId, Option<i64>)| {
            format!(
                "{}{}",
                crate::interp::statement_name(&self.opts.statement_names, s),
                j.map_or(String::new(), |j| format!(" of iteration {j}"))
            )
        };
        let element = format!(
            "`{name}{index:?}`{}",
            slot.map_or(String::new(), |s| format!(" (ring slot {s})"))
        );
        let message = if within_group {
            let who = other.map_or_else(
                || "another of its statements".to_string(),
                |o| instance((o.stmt, o.iteration)),
            );
            let (what, how) = match kind {
                RaceKind::ReadAfterWrite => ("reads", "writes"),
                RaceKind::WriteAfterWrite => ("writes", "also writes"),
                RaceKind::WriteAfterRead => ("writes", "reads"),
            };
            format!(
                "{what} {element}, which {who} {how} asynchronously in the same commit group: group {} of queue {} completes its operations in no set order, so no wait can order the two; they need separate groups with a wait between them",
                pending.seq, pending.queue
            )
        } else {
            // A member per element: one statement instance copying a tile is named once.
            let mut distinct: Vec<((StmtId, Option<i64>), usize)> = Vec::new();
            for &m in &pending.members {
                match distinct.iter_mut().find(|(d, _)| *d == m) {
                    Some((_, n)) => *n += 1,
                    None => distinct.push((m, 1)),
                }
            }
            let mut who: Vec<String> = distinct
                .iter()
                .take(3)
                .map(|&(m, n)| match n {
                    1 => instance(m),
                    n => format!("{}, {n} elements", instance(m)),
                })
                .collect();
            if distinct.len() > 3 {
                who.push(format!("{} more", distinct.len() - 3));
            }
            format!(
                "{} {element}: group {} of queue {} ({}) is {}{}",
                kind.describe(),
                pending.seq,
                pending.queue,
                who.join(", "),
                if still_open {
                    "still being filled"
                } else {
                    "still in flight"
                },
                match wait {
                    _ if still_open => format!(
                        "; its commit scope has not ended, so no wait on queue {} can cover it here",
                        pending.queue
                    ),
                    Some(_) => format!(
                        "; the last wait on queue {} before this access should have covered it",
                        pending.queue
                    ),
                    None => format!(
                        "; no wait on queue {} ran before this access",
                        pending.queue
                    ),
                }
            )
        };
        self.run.races.push(Race {
            kind,
            stmt: a.stmt,
            span: a.span,
            iteration,
            buffer: name,
            element: index,
            slot,
            group: pending,
            wait,
            step: self.step,
            message,
            other,
            within_group,
        });
    }

    /// The member of group `g` whose pending access to `target` the race of `kind` meets: the
    /// write of it, or (write-after-read) the read.
    fn member_touching(
        &self,
        g: usize,
        target: (u32, usize),
        kind: RaceKind,
    ) -> Option<GroupMember> {
        let g = self.groups.get(g)?;
        let k = match kind {
            RaceKind::WriteAfterRead => g
                .reads
                .iter()
                .find(|r| (r.0, r.1) == target)
                .map(|r| r.2 as usize),
            _ => g.writes.iter().position(|w| (w.0, w.1) == target),
        }?;
        let (stmt, iteration) = g.members.get(k).copied()?;
        Some(GroupMember {
            stmt,
            iteration,
            span: g.spans.get(k).copied().unwrap_or_default(),
        })
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

    /// The group whose write of the element is pending: a committed one in flight, oldest
    /// first, else one still being filled (its commit scope open: an access inside the scope
    /// after the write, or another write of the same group).
    pub(super) fn pending_writer(&self, buf: u32, off: usize) -> Option<usize> {
        let writes = |g: &Group| g.writes.iter().any(|w| w.0 == buf && w.1 == off);
        self.pending_group_of(writes).or_else(|| {
            self.open
                .iter()
                .copied()
                .find(|&g| self.groups.get(g).is_some_and(|x| !x.done && writes(x)))
        })
    }

    /// The group, in flight or still being filled (the writer's own included: a group's
    /// operations are not ordered among themselves), that may still read the element.
    pub(super) fn pending_reader(&self, buf: u32, off: usize) -> Option<usize> {
        self.in_flight
            .iter()
            .flat_map(|q| q.iter())
            .copied()
            .chain(self.open.iter().copied())
            .find(|&g| {
                self.groups
                    .get(g)
                    .is_some_and(|x| !x.done && x.reads.iter().any(|r| r.0 == buf && r.1 == off))
            })
    }
}
