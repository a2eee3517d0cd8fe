//! The count form's sites run: every commit's sequence number and the tokens each wait newly
//! completes, over every instance of the program's structure.

use super::walk::{Visitor, Walk};
use super::Samples;
use crate::diagnostic::Span;
use crate::ir::{IExpr, Node, Program};
use std::collections::BTreeMap;

pub(super) struct CommitSite {
    pub(super) queue: i64,
    pub(super) samples: Samples,
    pub(super) seqs: Vec<i64>,
}

pub(super) struct WaitSite {
    pub(super) queue: i64,
    pub(super) samples: Samples,
    /// Per instance: the tokens it completes that no earlier wait completed (`from..=to`).
    pub(super) forced: Vec<(i64, i64)>,
}

/// Records every commit's sequence number and every wait's newly completed tokens over a run of
/// the program's structure (Stagecraft's semantics: a commit numbers its group when its block
/// exits; `wait(q, n)` completes every group of `q` but the `n` newest).
pub(super) struct Runner {
    committed: BTreeMap<i64, i64>,
    forced: BTreeMap<i64, i64>,
    pub(super) commits: Vec<CommitSite>,
    pub(super) waits: Vec<WaitSite>,
}

impl Runner {
    /// The sites of `program`, none run yet.
    pub(super) fn new(program: &Program) -> Runner {
        let mut r = Runner {
            committed: BTreeMap::new(),
            forced: BTreeMap::new(),
            commits: Vec::new(),
            waits: Vec::new(),
        };
        r.register(&program.body);
        r
    }

    /// Sites in pre-order (the printer's order of `with` lines, and the walk's site numbers).
    fn register(&mut self, nodes: &[Node]) {
        for n in nodes {
            match n {
                Node::Commit { queue, body, .. } => {
                    self.commits.push(CommitSite {
                        queue: *queue,
                        samples: Samples::default(),
                        seqs: Vec::new(),
                    });
                    self.register(body);
                }
                Node::Wait { queue, body, .. } => {
                    self.waits.push(WaitSite {
                        queue: *queue,
                        samples: Samples::default(),
                        forced: Vec::new(),
                    });
                    self.register(body);
                }
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::AsyncScope { body, .. }
                | Node::Section { body, .. } => self.register(body),
                Node::Assign(_) | Node::Barrier { .. } => {}
            }
        }
    }

    /// Runs `program` with `params` bound; `false` when the step budget ran out.
    pub(super) fn run(&mut self, program: &Program, params: &BTreeMap<String, i64>) -> bool {
        Walk::new(program, params).run(&program.body, self)
    }
}

impl Visitor for Runner {
    fn commit(&mut self, at: &Walk, site: usize, queue: i64, _: Span, _: bool) {
        let seq = self.committed.entry(queue).or_insert(0);
        if let Some(s) = self.commits.get_mut(site) {
            s.samples.envs.push(at.loop_values());
            s.seqs.push(*seq);
        }
        *seq += 1;
    }

    fn wait(&mut self, at: &Walk, site: usize, queue: i64, count: &IExpr, _: Span) {
        let committed = self.committed.get(&queue).copied().unwrap_or(0);
        let n = count.eval(&at.env).unwrap_or(0).max(0);
        let newest = (committed - 1 - n).min(committed - 1);
        let done = self.forced.entry(queue).or_insert(0);
        let from = *done;
        if newest >= *done {
            *done = newest + 1;
        }
        if let Some(s) = self.waits.get_mut(site) {
            s.samples.envs.push(at.loop_values());
            s.forced.push((from, newest));
        }
    }
}
