//! A block's statement rewritten for one step: the loop variable replaced and versioned buffers
//! indexed by their ring slot.

use super::linear::Lin;
use super::sections::Rewriter;
use crate::diagnostic::Span;
use crate::ir::{Access, Cond, IExpr, Node, VExpr};
use crate::simplify::{simplify, simplify_cond};

impl Rewriter<'_> {
    /// A copy of a block for the step whose iteration of it is `access`: the loop variable
    /// replaced, every versioned buffer indexed by `(access - min) mod versions` first.
    pub(super) fn rewrite(&self, node: &Node, access: &Lin) -> Node {
        let with = access.expr(self.var());
        let slot = access.sub(&self.pipeline.min).expr(self.var());
        let mut n = node.clone();
        self.rewrite_node(&mut n, &with, &slot);
        n
    }

    pub(super) fn rewrite_node(&self, node: &mut Node, with: &IExpr, slot: &IExpr) {
        let var = self.var();
        let sub = |e: &IExpr| simplify(&crate::simplify::substitute(e, var, with));
        match node {
            Node::Barrier { .. } => {}
            Node::For { lo, hi, body, .. } => {
                *lo = sub(lo);
                *hi = sub(hi);
                for n in body {
                    self.rewrite_node(n, with, slot);
                }
            }
            Node::If { cond, body, .. } => {
                *cond = simplify_cond(&crate::simplify::substitute_cond(cond, var, with));
                for n in body {
                    self.rewrite_node(n, with, slot);
                }
            }
            Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => {
                for n in body {
                    self.rewrite_node(n, with, slot);
                }
            }
            Node::Wait { count, body, .. } => {
                *count = sub(count);
                for n in body {
                    self.rewrite_node(n, with, slot);
                }
            }
            Node::Assign(a) => {
                // An inner pipeline's statement keeps the inner iteration it computes.
                match &mut a.iteration {
                    Some(it) => *it = sub(it),
                    None => a.iteration = Some(with.clone()),
                }
                self.rewrite_access(&mut a.target, with, slot);
                self.rewrite_value(&mut a.value, with, slot);
            }
        }
    }

    pub(super) fn rewrite_access(&self, acc: &mut Access, with: &IExpr, slot: &IExpr) {
        for ix in &mut acc.indices {
            *ix = simplify(&crate::simplify::substitute(ix, self.var(), with));
        }
        if let Some(&v) = self.versions.get(&acc.buffer) {
            acc.indices
                .insert(0, crate::simplify::modulo(slot.clone(), v));
        }
    }

    pub(super) fn rewrite_value(&self, v: &mut VExpr, with: &IExpr, slot: &IExpr) {
        match v {
            VExpr::Lit(_) => {}
            VExpr::Index(e) => *e = simplify(&crate::simplify::substitute(e, self.var(), with)),
            VExpr::Read(a) => self.rewrite_access(a, with, slot),
            VExpr::Neg(x) => self.rewrite_value(x, with, slot),
            VExpr::Bin(_, ab) => {
                let [a, b] = &mut **ab;
                self.rewrite_value(a, with, slot);
                self.rewrite_value(b, with, slot);
            }
            VExpr::Call(_, args) => args
                .iter_mut()
                .for_each(|a| self.rewrite_value(a, with, slot)),
        }
    }
}

/// One node for a list of nodes (a block's statement, a commit): itself when alone.
pub(super) fn wrap(mut body: Vec<Node>, span: Span) -> Node {
    if body.len() == 1 {
        if let Some(n) = body.pop() {
            return n;
        }
    }
    Node::If {
        cond: Cond::True,
        body,
        span,
    }
}
