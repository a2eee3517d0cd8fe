//! TVM's rewriter: the program cut into prologue, body and epilogue (`EmitImpl`), with the
//! per-stage state it carries across and within sections.

use super::blocks::Block;
use super::linear::{Lin, Pred};
use super::Outcome;
use crate::diagnostic::Span;
use crate::ir::{BufId, IExpr, Node, Program, SectionKind, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// Per async stage, across sections (TVM's `AsyncStateGlobal`).
#[derive(Clone, Debug)]
pub(super) struct StageGlobal {
    pub(super) dst_buffers: BTreeSet<BufId>,
    pub(super) producer_head: Option<i64>,
}

impl Default for StageGlobal {
    fn default() -> Self {
        StageGlobal {
            dst_buffers: BTreeSet::new(),
            producer_head: Some(-1),
        }
    }
}

/// Per stage, within one section (TVM's `AsyncStateLocal`).
#[derive(Clone, Debug, Default)]
pub(super) struct StageLocal {
    /// Where the wait goes (a block index) and its count.
    pub(super) pending_wait: Option<(usize, Lin, bool)>,
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

pub(super) struct Rewriter<'p> {
    pub(super) program: &'p Program,
    pub(super) var: VarId,
    pub(super) extent: i64,
    pub(super) blocks: Vec<Block>,
    pub(super) order: Vec<usize>,
    pub(super) max_stage: i64,
    pub(super) versions: BTreeMap<BufId, i64>,
    pub(super) stages: BTreeMap<i64, StageGlobal>,
}

/// Which count a wait of a section asks for: a constant of the section, or `if_then_else`.
pub(super) enum Count {
    Lin(Lin),
    Guarded(Pred, Lin),
}

impl<'p> Rewriter<'p> {
    pub(super) fn new(
        program: &'p Program,
        var: VarId,
        extent: i64,
        blocks: Vec<Block>,
    ) -> Rewriter<'p> {
        let mut order: Vec<usize> = (0..blocks.len()).collect();
        order.sort_by_key(|&b| blocks.get(b).map_or(0, |b| b.order));
        let max_stage = blocks.iter().map(|b| b.stage).max().unwrap_or(-1);
        let mut r = Rewriter {
            program,
            var,
            extent,
            blocks,
            order,
            max_stage,
            versions: BTreeMap::new(),
            stages: BTreeMap::new(),
        };
        r.versions = r.compute_versions();
        r
    }
}
impl Rewriter<'_> {
    pub(super) fn build(mut self) -> Outcome {
        let s = self.max_stage;
        let e = self.extent;
        let prologue = self.section(0, s, SectionKind::Prologue);
        let body = self.section(s, e, SectionKind::Body);
        // "introduce extra lowerbound when the loop length is smaller than num stages".
        let epilogue_start = if s > 1 && e < s { e.max(s) } else { e };
        let epilogue = self.section(epilogue_start, e + s, SectionKind::Epilogue);
        let mut sections = Vec::new();
        for part in [prologue, body, epilogue] {
            match part {
                Ok(node) => sections.push(node),
                Err(out) => return out,
            }
        }
        let mut program = self.program.clone();
        for (&id, &v) in &self.versions {
            if let Some(b) = program.buffers.get_mut(id as usize) {
                b.versions = u32::try_from(v).unwrap_or(u32::MAX);
                if let Some(shape) = &mut b.shape {
                    shape.insert(0, v);
                }
            }
        }
        program.body = sections;
        Outcome::Pipelined { program }
    }

    /// TVM's `EmitImpl` for steps `[start, end)` of the pipeline.
    pub(super) fn section(
        &mut self,
        start: i64,
        end: i64,
        kind: SectionKind,
    ) -> Result<Node, Outcome> {
        let ext = end - start;
        let section = |body: Vec<Node>| Node::Section {
            kind,
            body,
            steps: None,
        };
        if ext <= 0 {
            return Ok(section(Vec::new()));
        }
        let unit = ext == 1;
        // The section's loop runs v over [0, ext); the step is v + start (a unit loop: start).
        let range: Vec<i64> = if unit { vec![0] } else { (0..ext).collect() };
        let step = if unit {
            Lin::konst(start)
        } else {
            Lin { a: 1, b: start }
        };
        let proves = |p: &dyn Fn(i64) -> bool| range.iter().all(|&v| p(v));
        let mut placed: Vec<Placed> = Vec::new();
        let mut local: BTreeMap<i64, StageLocal> = BTreeMap::new();
        let mut buffer_group: BTreeMap<BufId, usize> = BTreeMap::new();
        let order = self.order.clone();
        for &bi in &order {
            let Some(block) = self.blocks.get(bi) else {
                continue;
            };
            let access = step.sub(Lin::konst(block.stage));
            // inbound: 0 <= step - stage < extent
            let inbound = Pred(vec![access, Lin::konst(self.extent - 1).sub(access)]);
            if proves(&|v| !inbound.holds(v)) {
                continue;
            }
            let mut body = self.rewrite(&block.node, access);
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
                st.producer_head = Some(access);
                st.predicate = match st.predicate.take() {
                    Some(p) if !proves(&|v| p.holds(v)) => Some(p.and(&inbound)),
                    _ => Some(inbound.clone()),
                };
                body = Node::AsyncScope {
                    body: vec![body],
                    span: block.span,
                };
            }
            placed.push(Placed {
                block: bi,
                stage: block.stage,
                predicate: inbound,
                access,
                is_async: block.is_async,
                body,
            });
            for r in &block.reads {
                for (&p, g) in &self.stages {
                    if p <= block.stage && g.dst_buffers.contains(r) {
                        local.entry(p).or_default().consumed = true;
                    }
                }
            }
        }
        self.populate_wait_counts(&placed, &mut local, &buffer_group, &range)?;
        let stmts = self.complete(placed, &local, unit, &range)?;
        // Advance the global producer heads by the section's extent where TVM can.
        for (&stage, st) in &local {
            let g = self.stages.entry(stage).or_default();
            g.producer_head = match (&st.predicate, g.producer_head) {
                (Some(p), Some(h)) if proves(&|v| p.holds(v)) => Some(h + ext),
                _ => None,
            };
        }
        let body = if stmts.is_empty() || unit {
            stmts
        } else {
            // The section's loop variable is the pipelined loop's (TVM copies it with its name).
            vec![Node::For {
                var: self.var,
                lo: IExpr::Const(0),
                hi: IExpr::Const(ext),
                body: stmts,
                span: Span::new(0, 0),
            }]
        };
        Ok(section(body))
    }
}
