//! The guards of a pipelined program decided where each copy runs: a user's guard on the loop
//! variable is substituted into every copy, and most copies decide it.

use crate::ir::{Cond, Node, VarId};
use crate::simplify::decide_over;

/// Decides the guards of a section, those inside a loop of the pipelined variable over the range
/// that loop runs: a user's `if k == 7:` on a stage-1 statement reads `k - 1 == 7` in the body,
/// which never holds there (and the emitted kernels have no branches), and `7 == 7` in the
/// epilogue. What a guard held stays; commits stay, since a group is counted whether or not it
/// holds an instance.
pub(super) fn decide_guards(section: &mut Vec<Node>, steps: &mut Option<Vec<u32>>, var: VarId) {
    let mut nodes = std::mem::take(section).into_iter();
    // Step by step, so that each step's count of nodes stays its own.
    for count in steps.iter_mut().flatten() {
        let step: Vec<Node> = nodes.by_ref().take(*count as usize).collect();
        let step = decided(step, var, None);
        *count = u32::try_from(step.len()).unwrap_or(u32::MAX);
        section.extend(step);
    }
    section.extend(decided(nodes.collect(), var, None));
}

/// `nodes` with each guard that holds over `range` of `var` (the whole of it, or everywhere
/// outside a loop of `var`) replaced by what it guards and each that never does left out.
fn decided(nodes: Vec<Node>, var: VarId, range: Option<(i64, i64)>) -> Vec<Node> {
    let decide = |cond: &Cond| match range {
        Some((lo, hi)) => decide_over(cond, var, lo, hi),
        None if cond.mentions(var) => None,
        None => decide_over(cond, var, 0, 0),
    };
    let mut out = Vec::with_capacity(nodes.len());
    for node in nodes {
        match node {
            Node::If { cond, body, span } => match decide(&cond) {
                Some(true) => out.extend(decided(body, var, range)),
                Some(false) => {}
                None => out.push(Node::If {
                    cond,
                    body: decided(body, var, range),
                    span,
                }),
            },
            Node::For {
                var: v,
                ref lo,
                ref hi,
                ..
            } if v == var => {
                let inner = match (lo.as_const(), hi.as_const()) {
                    (Some(l), Some(h)) if l < h => Some((l, h - 1)),
                    // A loop of the pipelined variable to a symbolic extent: left as built.
                    _ => None,
                };
                out.push(match inner {
                    Some(r) => node.map_body(|body| decided(body, var, Some(r))),
                    None => node,
                });
            }
            // An asynchronous scope left with nothing in it is no scope.
            Node::AsyncScope { body, span } => {
                let body = decided(body, var, range);
                if !body.is_empty() {
                    out.push(Node::AsyncScope { body, span });
                }
            }
            other => out.push(other.map_body(|body| decided(body, var, range))),
        }
    }
    out
}
