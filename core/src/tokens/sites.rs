//! The count form's sites run: every commit's sequence number and the tokens each wait newly
//! completes, over every instance of the program's structure.

use super::{Samples, MAX_STEPS};
use crate::ir::{Node, Program, VarId};
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

/// Runs a program's structure and records every commit's sequence number and every wait's newly
/// completed tokens (Stagecraft's semantics: a commit numbers its group when its block exits;
/// `wait(q, n)` completes every group of `q` but the `n` newest).
pub(super) struct Runner {
    pub(super) env: Vec<i64>,
    pub(super) loops: Vec<VarId>,
    pub(super) committed: BTreeMap<i64, i64>,
    pub(super) forced: BTreeMap<i64, i64>,
    pub(super) commits: Vec<CommitSite>,
    pub(super) waits: Vec<WaitSite>,
    pub(super) commit_index: usize,
    pub(super) wait_index: usize,
    pub(super) steps: u64,
}

impl Runner {
    pub(super) fn new(program: &Program, params: &BTreeMap<String, i64>) -> Runner {
        let mut r = Runner {
            env: program.env(params),
            loops: Vec::new(),
            committed: BTreeMap::new(),
            forced: BTreeMap::new(),
            commits: Vec::new(),
            waits: Vec::new(),
            commit_index: 0,
            wait_index: 0,
            steps: 0,
        };
        r.register(&program.body);
        r
    }

    /// Sites in pre-order (the printer's order of `with` lines).
    pub(super) fn register(&mut self, nodes: &[Node]) {
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

    pub(super) fn snapshot(&self) -> Vec<(VarId, i64)> {
        self.loops
            .iter()
            .map(|&v| (v, self.env.get(v as usize).copied().unwrap_or(0)))
            .collect()
    }

    /// Runs `nodes`; `false` when the step budget ran out.
    pub(super) fn run(&mut self, nodes: &[Node]) -> bool {
        for n in nodes {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return false;
            }
            match n {
                Node::For {
                    var, lo, hi, body, ..
                } => {
                    let (lo, hi) = (lo.eval(&self.env), hi.eval(&self.env));
                    let (Some(lo), Some(hi)) = (lo, hi) else {
                        let (c, w) = count_sites(body);
                        self.commit_index += c;
                        self.wait_index += w;
                        continue;
                    };
                    // Sites inside are numbered once, whichever iteration runs them.
                    let (c0, w0) = (self.commit_index, self.wait_index);
                    let (c1, w1) = count_sites(body);
                    self.loops.push(*var);
                    for v in lo..hi {
                        // An iteration is a step even when its body runs nothing (as in
                        // `TokenRunner::run_loop`).
                        self.steps += 1;
                        if self.steps > MAX_STEPS {
                            return false;
                        }
                        if let Some(slot) = self.env.get_mut(*var as usize) {
                            *slot = v;
                        }
                        self.commit_index = c0;
                        self.wait_index = w0;
                        if !self.run(body) {
                            return false;
                        }
                    }
                    self.loops.pop();
                    self.commit_index = c0 + c1;
                    self.wait_index = w0 + w1;
                }
                Node::If { cond, body, .. } => {
                    if cond.eval(&self.env).unwrap_or(false) {
                        if !self.run(body) {
                            return false;
                        }
                    } else {
                        let (c, w) = count_sites(body);
                        self.commit_index += c;
                        self.wait_index += w;
                    }
                }
                Node::Commit { queue, body, .. } => {
                    let site = self.commit_index;
                    self.commit_index += 1;
                    let env = self.snapshot();
                    if !self.run(body) {
                        return false;
                    }
                    let seq = self.committed.entry(*queue).or_insert(0);
                    if let Some(s) = self.commits.get_mut(site) {
                        s.samples.envs.push(env);
                        s.seqs.push(*seq);
                    }
                    *seq += 1;
                }
                Node::Wait {
                    queue, count, body, ..
                } => {
                    let site = self.wait_index;
                    self.wait_index += 1;
                    let committed = self.committed.get(queue).copied().unwrap_or(0);
                    let n = count.eval(&self.env).unwrap_or(0).max(0);
                    let newest = (committed - 1 - n).min(committed - 1);
                    let done = self.forced.entry(*queue).or_insert(0);
                    let from = *done;
                    if newest >= *done {
                        *done = newest + 1;
                    }
                    let env = self.snapshot();
                    if let Some(s) = self.waits.get_mut(site) {
                        s.samples.envs.push(env);
                        s.forced.push((from, newest));
                    }
                    if !self.run(body) {
                        return false;
                    }
                }
                Node::AsyncScope { body, .. } | Node::Section { body, .. } => {
                    if !self.run(body) {
                        return false;
                    }
                }
                Node::Assign(_) | Node::Barrier { .. } => {}
            }
        }
        true
    }
}

/// Commit and wait nodes in `nodes`, at any depth.
pub(super) fn count_sites(nodes: &[Node]) -> (usize, usize) {
    nodes.iter().fold((0, 0), |(c, w), n| {
        let (dc, dw) = match n {
            Node::Barrier { .. } => (0, 0),
            Node::Commit { body, .. } => {
                let (a, b) = count_sites(body);
                (a + 1, b)
            }
            Node::Wait { body, .. } => {
                let (a, b) = count_sites(body);
                (a, b + 1)
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => count_sites(body),
            Node::Assign(_) => (0, 0),
        };
        (c + dc, w + dw)
    })
}
