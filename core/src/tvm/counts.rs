//! TVM's wait counts and commit runs in one section (`PopulateWaitCounts`,
//! `CompletePipelineLoopStatements`).

use super::linear::Lin;
use super::rewrite::wrap;
use super::sections::{Placed, Rewriter, SectionFrame, StageLocal};
use super::{rejected_plain, Outcome};
use crate::diagnostic::Span;
use crate::ir::{BufId, Cond, IExpr, Node};
use crate::simplify::simplify;
use std::collections::BTreeMap;

impl Rewriter<'_> {
    /// TVM's `PopulateWaitCounts`.
    pub(super) fn populate_wait_counts(
        &self,
        placed: &[Placed],
        local: &mut BTreeMap<i64, StageLocal>,
        buffer_group: &BTreeMap<BufId, usize>,
        frame: &SectionFrame,
    ) -> Result<(), Outcome> {
        for (i, pl) in placed.iter().enumerate() {
            let Some(block) = self.pipeline.blocks.get(pl.block) else {
                continue;
            };
            if pl.is_async {
                let st = local.entry(pl.stage).or_default();
                st.seen.extend(block.writes.iter().copied());
            }
            let mut producer: Option<i64> = None;
            for r in &block.reads {
                for (&p, g) in &self.stages {
                    if p <= pl.stage && g.dst_buffers.contains(r) {
                        if producer.is_some_and(|q| q != p) {
                            return Err(rejected_plain(
                                "InternalError",
                                "Check failed: (producer_stage_idx == -1 || producer_stage_idx == kv.first) is false: A dependency on multiple async stages is not supported",
                                block.span,
                            ));
                        }
                        producer = Some(p);
                    }
                }
            }
            let Some(p) = producer else { continue };
            let global_head = self.stages.get(&p).and_then(|g| g.producer_head.clone());
            let dst = self
                .stages
                .get(&p)
                .map(|g| g.dst_buffers.clone())
                .unwrap_or_default();
            let dep = local.entry(p).or_default();
            let mut heads: Vec<Option<Lin>> = Vec::new();
            if dep.commit_groups.is_empty() {
                heads.push(global_head);
            } else {
                let mut need = vec![true; dep.commit_groups.len()];
                for r in &block.reads {
                    if !dst.contains(r) {
                        continue;
                    }
                    let Some(&g) = buffer_group.get(r) else {
                        continue;
                    };
                    if !need.get(g).copied().unwrap_or(false) {
                        continue;
                    }
                    let Some(head) = dep.producer_head.clone() else {
                        continue;
                    };
                    heads.push(Some(if dep.seen.contains(r) {
                        head
                    } else {
                        head.plus(-1)
                    }));
                    if let Some(n) = need.get_mut(g) {
                        *n = false;
                    }
                }
            }
            let mut count = Lin::konst(0);
            let mut known = true;
            for h in heads {
                match h {
                    Some(h)
                        if self
                            .analyzer
                            .proves(&frame.normalized, |v, env| h.at(v, env) >= 0) =>
                    {
                        count = count.add(&h.sub(&pl.access))
                    }
                    _ => known = false,
                }
            }
            let count = if known { count } else { Lin::konst(0) };
            // TVM compares the counts with the analyzer that knows the variable unshifted.
            let fewer = |old: &Lin| {
                self.analyzer
                    .proves(&frame.unshifted, |v, env| count.at(v, env) < old.at(v, env))
            };
            let at = match &dep.pending_wait {
                None => Some(i),
                Some((at, old)) if fewer(old) => Some(*at),
                Some(_) => None,
            };
            if let Some(at) = at {
                dep.pending_wait = Some((at, count));
            }
        }
        Ok(())
    }

    /// TVM's `CompletePipelineLoopStatements`: waits attached, commit runs formed.
    pub(super) fn complete(
        &self,
        mut placed: Vec<Placed>,
        local: &BTreeMap<i64, StageLocal>,
        frame: &SectionFrame,
    ) -> Result<Vec<Node>, Outcome> {
        let var = self.var();
        let mut group_stage: Vec<Option<i64>> = vec![None; placed.len()];
        for (&stage, st) in local {
            // TVM marks `group[0] + j`: a group whose blocks are not adjacent covers the blocks
            // that follow its first one instead.
            for g in &st.commit_groups {
                let first = g.first().copied().unwrap_or(0);
                for j in 0..g.len() {
                    if let Some(slot) = group_stage.get_mut(first + j) {
                        *slot = Some(stage);
                    }
                }
            }
            if let Some((at, count)) = &st.pending_wait {
                let count = match &st.predicate {
                    // The count holds where the producers run: `if_then_else(predicate, count, 0)`.
                    Some(p)
                        if !self
                            .analyzer
                            .proves(&frame.normalized, |v, env| p.holds(v, env)) =>
                    {
                        let c = p.cond(var, &self.analyzer, &frame.runs);
                        simplify(&IExpr::Select(Box::new((
                            c,
                            count.expr(var),
                            IExpr::Const(0),
                        ))))
                    }
                    _ => count.expr(var),
                };
                let at = *at;
                if let Some(pl) = placed.get_mut(at) {
                    let span = self
                        .pipeline
                        .blocks
                        .get(pl.block)
                        .map_or(Span::new(0, 0), |b| b.span);
                    let inner = std::mem::replace(
                        &mut pl.body,
                        Node::AsyncScope {
                            body: Vec::new(),
                            span,
                        },
                    );
                    pl.body = Node::Wait {
                        queue: stage,
                        count,
                        body: vec![inner],
                        wait: None,
                        span,
                    };
                }
            }
        }
        let guard = |pred: &super::linear::Pred, body: Vec<Node>, span: Span| -> Node {
            match pred.cond(var, &self.analyzer, &frame.runs) {
                Cond::True => wrap(body, span),
                cond => Node::If { cond, body, span },
            }
        };
        let mut stmts = Vec::new();
        let mut i = 0;
        while i < placed.len() {
            let Some(stage) = group_stage.get(i).copied().flatten() else {
                if let Some(pl) = placed.get_mut(i) {
                    let span = self
                        .pipeline
                        .blocks
                        .get(pl.block)
                        .map_or(Span::new(0, 0), |b| b.span);
                    let body = std::mem::replace(
                        &mut pl.body,
                        Node::AsyncScope {
                            body: Vec::new(),
                            span,
                        },
                    );
                    stmts.push(guard(&pl.predicate, vec![body], span));
                }
                i += 1;
                continue;
            };
            let first_stage = placed.get(i).map_or(stage, |p| p.stage);
            let predicate = placed
                .get(i)
                .map(|p| p.predicate.clone())
                .unwrap_or_default();
            let span = placed
                .get(i)
                .and_then(|p| self.pipeline.blocks.get(p.block))
                .map_or(Span::new(0, 0), |b| b.span);
            let mut bodies = Vec::new();
            while i < placed.len() && group_stage.get(i).copied().flatten() == Some(stage) {
                let Some(pl) = placed.get_mut(i) else { break };
                // Predicates are structurally equal only within one stage, or when the section is
                // a single step (both fold to `True`).
                if pl.stage != first_stage && !frame.unit {
                    let span = self.pipeline.blocks.get(pl.block).map_or(span, |b| b.span);
                    return Err(rejected_plain(
                        "InternalError",
                        "Check failed: (ffi::StructuralEqual()(predicate, new_blocks[i].predicate)) is false: Predicates in the same stage are expected to be identical",
                        span,
                    ));
                }
                let bspan = self.pipeline.blocks.get(pl.block).map_or(span, |b| b.span);
                bodies.push(std::mem::replace(
                    &mut pl.body,
                    Node::AsyncScope {
                        body: Vec::new(),
                        span: bspan,
                    },
                ));
                i += 1;
            }
            let commit = Node::Commit {
                queue: stage,
                body: bodies,
                span,
            };
            stmts.push(guard(&predicate, vec![commit], span));
        }
        Ok(stmts)
    }
}
