//! The one run of a program's structure that both token passes make: the writer's site recorder
//! (`sites.rs`) and the checker of a text in token form (`check.rs`). It evaluates loop bounds and
//! conditions, numbers the commit and wait sites in pre-order (a site inside a loop keeps its
//! number at every iteration), and stops at `MAX_STEPS`; what each pass does at a site is its
//! `Visitor`.

use super::MAX_STEPS;
use crate::diagnostic::Span;
use crate::ir::{IExpr, Node, Program, VarId};
use std::collections::BTreeMap;

/// What a pass does where the walk meets a commit or a wait.
pub(super) trait Visitor {
    /// The group of commit site `site` closes, its body run; `empty` when no statement ran in it
    /// (its group has nothing to land).
    fn commit(&mut self, at: &Walk, site: usize, queue: i64, span: Span, empty: bool);
    /// Wait site `site` is reached, before its body runs.
    fn wait(&mut self, at: &Walk, site: usize, queue: i64, count: &IExpr, span: Span);
}

/// Where the walk is: the variables' values and the loops around the current node.
pub(super) struct Walk {
    pub(super) env: Vec<i64>,
    /// The enclosing loops' variables, outermost first.
    pub(super) loops: Vec<VarId>,
    steps: u64,
    commit_site: usize,
    wait_site: usize,
    /// Statements run (or skipped because a bound or condition does not evaluate: they may run).
    ran: u64,
}

impl Walk {
    pub(super) fn new(program: &Program, params: &BTreeMap<String, i64>) -> Walk {
        Walk {
            env: program.env(params),
            loops: Vec::new(),
            steps: 0,
            commit_site: 0,
            wait_site: 0,
            ran: 0,
        }
    }

    /// The enclosing loops' variables with their values.
    pub(super) fn loop_values(&self) -> Vec<(VarId, i64)> {
        self.loops
            .iter()
            .map(|&v| (v, self.env.get(v as usize).copied().unwrap_or(0)))
            .collect()
    }

    /// Runs `nodes`, calling `visitor` at every commit and wait; `false` when the run went
    /// beyond `MAX_STEPS` (what was visited stands, the rest is not run).
    pub(super) fn run(&mut self, nodes: &[Node], visitor: &mut impl Visitor) -> bool {
        for n in nodes {
            if !self.step() {
                return false;
            }
            let complete = match n {
                Node::For {
                    var, lo, hi, body, ..
                } => match (lo.eval(&self.env), hi.eval(&self.env)) {
                    (Some(lo), Some(hi)) => self.run_loop(*var, lo..hi, body, visitor),
                    _ => {
                        self.skip(body);
                        self.ran += 1;
                        true
                    }
                },
                Node::If { cond, body, .. } => {
                    let holds = cond.eval(&self.env);
                    if holds == Some(true) {
                        self.run(body, visitor)
                    } else {
                        self.skip(body);
                        self.ran += u64::from(holds.is_none());
                        true
                    }
                }
                Node::Commit {
                    queue, body, span, ..
                } => {
                    let site = self.commit_site;
                    self.commit_site += 1;
                    let before = self.ran;
                    let complete = self.run(body, visitor);
                    if complete {
                        visitor.commit(self, site, *queue, *span, self.ran == before);
                    }
                    complete
                }
                Node::Wait {
                    queue,
                    count,
                    body,
                    span,
                    ..
                } => {
                    let site = self.wait_site;
                    self.wait_site += 1;
                    visitor.wait(self, site, *queue, count, *span);
                    self.run(body, visitor)
                }
                Node::AsyncScope { body, .. } | Node::Section { body, .. } => {
                    self.run(body, visitor)
                }
                Node::Assign(_) => {
                    self.ran += 1;
                    true
                }
                Node::Barrier { .. } => true,
            };
            if !complete {
                return false;
            }
        }
        true
    }

    /// Every iteration of a loop over `range`, each starting at the same sites.
    fn run_loop(
        &mut self,
        var: VarId,
        range: std::ops::Range<i64>,
        body: &[Node],
        visitor: &mut impl Visitor,
    ) -> bool {
        let start = (self.commit_site, self.wait_site);
        self.loops.push(var);
        for v in range {
            // An iteration is a step even when its body runs nothing (`pass`, an empty inner
            // loop): else a loop of 10¹⁵ empty iterations never reaches the limit.
            if !self.step() {
                return false;
            }
            if let Some(slot) = self.env.get_mut(var as usize) {
                *slot = v;
            }
            (self.commit_site, self.wait_site) = start;
            if !self.run(body, visitor) {
                return false;
            }
        }
        self.loops.pop();
        (self.commit_site, self.wait_site) = start;
        self.skip(body);
        true
    }

    fn step(&mut self) -> bool {
        self.steps += 1;
        self.steps <= MAX_STEPS
    }

    /// Numbers the sites of `nodes` without running them.
    fn skip(&mut self, nodes: &[Node]) {
        let (commits, waits) = count_sites(nodes);
        self.commit_site += commits;
        self.wait_site += waits;
    }
}

/// Commit and wait nodes in `nodes`, at any depth.
pub(super) fn count_sites(nodes: &[Node]) -> (usize, usize) {
    nodes.iter().fold((0, 0), |(c, w), n| {
        let (dc, dw) = match n {
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
            Node::Assign(_) | Node::Barrier { .. } => (0, 0),
        };
        (c + dc, w + dw)
    })
}
