//! TVM's rewriter: the program cut into prologue, body and epilogue (`BuildPipeline`, `EmitImpl`),
//! with the per-stage state it carries across and within sections.

use super::blocks::Block;
use super::linear::{Analyzer, Domain, Lin, Pred};
use super::Outcome;
use crate::diagnostic::Span;
use crate::ir::{BufId, Node, Program, SectionKind, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// Per async stage, across sections (TVM's `AsyncStateGlobal`).
#[derive(Clone, Debug)]
pub(super) struct StageGlobal {
    pub(super) dst_buffers: BTreeSet<BufId>,
    pub(super) producer_head: Option<Lin>,
}

impl Default for StageGlobal {
    fn default() -> Self {
        StageGlobal {
            dst_buffers: BTreeSet::new(),
            producer_head: Some(Lin::konst(-1)),
        }
    }
}

/// Per stage, within one section (TVM's `AsyncStateLocal`).
#[derive(Clone, Debug, Default)]
pub(super) struct StageLocal {
    /// Where the wait goes (a block index) and its count.
    pub(super) pending_wait: Option<(usize, Lin)>,
    pub(super) seen: BTreeSet<BufId>,
    pub(super) producer_head: Option<Lin>,
    pub(super) predicate: Option<Pred>,
    pub(super) commit_groups: Vec<Vec<usize>>,
    pub(super) consumed: bool,
}

/// A block placed in a section.
pub(super) struct Placed {
    pub(super) block: usize,
    pub(super) stage: i64,
    pub(super) predicate: Pred,
    pub(super) access: Lin,
    pub(super) is_async: bool,
    /// The block's statement, rewritten for this section; waits are wrapped around it.
    pub(super) body: Node,
}

/// The pipelined loop: its variable, bounds and blocks.
pub(super) struct PipelineLoop {
    pub(super) var: VarId,
    /// Its first value and its number of iterations: forms over the symbols.
    pub(super) min: Lin,
    pub(super) extent: Lin,
    pub(super) blocks: Vec<Block>,
    /// The buffers the loop's block allocates (and those of the nested pipelines it takes in):
    /// the ones the pass may version.
    pub(super) allocs: Vec<BufId>,
    /// Buffers a `double_buffer_scope` block attribute names.
    pub(super) double_buffers: BTreeSet<BufId>,
    /// The order annotation's value, where TVM's index check points.
    pub(super) order_span: Span,
}

/// One section as TVM emits it: where its steps are, and the two analyzers' domains.
pub(super) struct SectionFrame {
    /// The step a value of the section's variable stands for (`v - min + start`, or `start`).
    pub(super) step: Lin,
    /// The values the variable takes when the program runs (`[min, min + extent)`; a unit section
    /// has none), which is also what TVM's `analyzer_` knows of it, shifted.
    pub(super) runs: Domain,
    /// What TVM's `ana_normalized` knows: `Range(min, extent)`, i.e. `[min, extent)`.
    pub(super) normalized: Domain,
    /// What `analyzer_` knows when it compares counts: the variable in `[start, end)`.
    pub(super) unshifted: Domain,
    pub(super) unit: bool,
}

pub(super) struct Rewriter<'p> {
    pub(super) program: &'p Program,
    pub(super) pipeline: PipelineLoop,
    pub(super) order: Vec<usize>,
    pub(super) max_stage: i64,
    pub(super) versions: BTreeMap<BufId, i64>,
    pub(super) stages: BTreeMap<i64, StageGlobal>,
    pub(super) analyzer: Analyzer,
}

/// What the pass makes of one loop: the three sections that replace it, and the versions it gave
/// the buffers it allocates.
pub(super) struct Pipelined {
    pub(super) sections: Vec<Node>,
    pub(super) versions: BTreeMap<BufId, i64>,
}

impl<'p> Rewriter<'p> {
    pub(super) fn new(
        program: &'p Program,
        pipeline: PipelineLoop,
        analyzer: Analyzer,
    ) -> Rewriter<'p> {
        let blocks = &pipeline.blocks;
        let mut order: Vec<usize> = (0..blocks.len()).collect();
        order.sort_by_key(|&b| blocks.get(b).map_or(0, |b| b.order));
        let max_stage = blocks.iter().map(|b| b.stage).max().unwrap_or(-1);
        Rewriter {
            program,
            pipeline,
            order,
            max_stage,
            versions: BTreeMap::new(),
            stages: BTreeMap::new(),
            analyzer,
        }
    }

    pub(super) fn var(&self) -> VarId {
        self.pipeline.var
    }

    /// TVM's `BuildPipeline`: versions, then prologue, body and epilogue.
    pub(super) fn build(mut self) -> Result<Pipelined, Outcome> {
        self.versions = self.compute_versions()?;
        if let Some(out) =
            super::blocks::check_order_range(&self.pipeline.blocks, self.pipeline.order_span)
        {
            return Err(out);
        }
        let s = self.max_stage;
        let (min, extent) = (self.pipeline.min.clone(), self.pipeline.extent.clone());
        let prologue = self.section(&min, &min.plus(s), SectionKind::Prologue, None)?;
        let body = self.section(&min.plus(s), &min.add(&extent), SectionKind::Body, None)?;
        // "introduce extra lowerbound when the loop length is smaller than num stages".
        let mut epilogue_start = min.add(&extent);
        let mut extra_lower_bound = None;
        if s > 1 && !self.analyzer.proves_always(|env| extent.at(0, env) >= s) {
            match (epilogue_start.as_const(), min.as_const()) {
                (Some(e), Some(m)) => epilogue_start = Lin::konst(e.max(m + s)),
                // For a symbolic extent, TVM adds the bound to the epilogue's predicates.
                _ => extra_lower_bound = Some(min.plus(s)),
            }
        }
        let end = min.add(&extent).plus(s);
        let epilogue = self.section(
            &epilogue_start,
            &end,
            SectionKind::Epilogue,
            extra_lower_bound,
        )?;
        Ok(Pipelined {
            sections: vec![prologue, body, epilogue],
            versions: self.versions,
        })
    }

    /// TVM's `EmitImpl` for steps `[start, end)` of the pipeline.
    pub(super) fn section(
        &mut self,
        start: &Lin,
        end: &Lin,
        kind: SectionKind,
        extra_lower_bound: Option<Lin>,
    ) -> Result<Node, Outcome> {
        let ext = end.sub(start);
        let section = |body: Vec<Node>| Node::Section {
            kind,
            body,
            steps: None,
        };
        if self.analyzer.proves_always(|env| ext.at(0, env) <= 0) {
            return Ok(section(Vec::new()));
        }
        let unit = self.analyzer.proves_always(|env| ext.at(0, env) == 1);
        let min = self.pipeline.min.clone();
        let frame = if unit {
            SectionFrame {
                step: start.clone(),
                runs: Domain::unit(),
                normalized: Domain::unit(),
                unshifted: Domain::unit(),
                unit,
            }
        } else {
            SectionFrame {
                step: Lin::var().sub(&min).add(start),
                runs: Domain {
                    lo: min.clone(),
                    hi: min.add(&ext),
                },
                normalized: Domain {
                    lo: min.clone(),
                    hi: ext.clone(),
                },
                unshifted: Domain {
                    lo: start.clone(),
                    hi: end.clone(),
                },
                unit,
            }
        };
        let mut placed: Vec<Placed> = Vec::new();
        let mut local: BTreeMap<i64, StageLocal> = BTreeMap::new();
        let mut buffer_group: BTreeMap<BufId, usize> = BTreeMap::new();
        let order = self.order.clone();
        for &bi in &order {
            let Some(block) = self.pipeline.blocks.get(bi) else {
                continue;
            };
            let access = frame.step.plus(-block.stage);
            // inbound: min <= step - stage < min + extent (and, in a symbolic epilogue, step >=
            // min + stages)
            let mut inbound = Pred(vec![
                access.sub(&min),
                min.add(&self.pipeline.extent).plus(-1).sub(&access),
            ]);
            if let Some(bound) = &extra_lower_bound {
                inbound.0.push(frame.step.sub(bound));
            }
            if self
                .analyzer
                .proves(&frame.runs, |v, env| !inbound.holds(v, env))
            {
                continue;
            }
            let mut body = self.rewrite(&block.node, &access);
            if block.is_async {
                let st = local.entry(block.stage).or_default();
                let group = if st.commit_groups.is_empty() || st.consumed {
                    st.commit_groups.push(vec![placed.len()]);
                    st.commit_groups.len() - 1
                } else {
                    if let Some(g) = st.commit_groups.last_mut() {
                        g.push(placed.len());
                    }
                    st.commit_groups.len() - 1
                };
                let global = self.stages.entry(block.stage).or_default();
                for &w in &block.writes {
                    global.dst_buffers.insert(w);
                    buffer_group.insert(w, group);
                }
                st.producer_head = Some(access.clone());
                st.predicate = match st.predicate.take() {
                    Some(p)
                        if !self
                            .analyzer
                            .proves(&frame.normalized, |v, env| p.holds(v, env)) =>
                    {
                        Some(p.and(&inbound))
                    }
                    _ => Some(inbound.clone()),
                };
                body = Node::AsyncScope {
                    body: vec![body],
                    span: block.span,
                };
            }
            for r in &block.reads {
                for (&p, g) in &self.stages {
                    if p <= block.stage && g.dst_buffers.contains(r) {
                        local.entry(p).or_default().consumed = true;
                    }
                }
            }
            placed.push(Placed {
                block: bi,
                stage: block.stage,
                predicate: inbound,
                access,
                is_async: block.is_async,
                body,
            });
        }
        self.populate_wait_counts(&placed, &mut local, &buffer_group, &frame)?;
        let stmts = self.complete(placed, &local, &frame)?;
        // Advance the global producer heads by the section's extent where TVM can.
        for (&stage, st) in &local {
            let g = self.stages.entry(stage).or_default();
            g.producer_head = match (&st.predicate, &g.producer_head) {
                (Some(p), Some(h))
                    if self
                        .analyzer
                        .proves(&frame.normalized, |v, env| p.holds(v, env)) =>
                {
                    Some(h.add(&ext))
                }
                _ => None,
            };
        }
        let body = if stmts.is_empty() || unit {
            stmts
        } else {
            // The section's loop variable is the pipelined loop's (TVM copies it with its name).
            vec![Node::For {
                var: self.var(),
                lo: min.expr(self.var()),
                hi: min.add(&ext).expr(self.var()),
                body: stmts,
                span: Span::new(0, 0),
            }]
        };
        Ok(section(body))
    }
}
