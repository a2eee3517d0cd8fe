//! TVM's `ComputeBufferVersions`: how many versions each buffer gets, and the region check that
//! decides whether 2 is reduced to 1.

use super::blocks::Block;
use super::sections::Rewriter;
use super::{rejected_plain, Outcome};
use crate::affine::{interval, split_linear, Interval};
use crate::diagnostic::Span;
use crate::ir::{for_each_read, Access, BufId, Node, VarId};
use crate::simplify::simplify;
use std::collections::BTreeMap;

impl Rewriter<'_> {
    /// TVM's `ComputeBufferVersions` for every buffer the pipelined loop allocates. An allocation
    /// no block touches is not in TVM's table of accesses, and looking it up fails: TVM stops
    /// with `InternalError: unordered_map::at`.
    pub(super) fn compute_versions(&self) -> Result<BTreeMap<BufId, i64>, Outcome> {
        let blocks = &self.pipeline.blocks;
        let mut out = BTreeMap::new();
        for &id in &self.pipeline.allocs {
            let touched = blocks
                .iter()
                .any(|b| b.writes.contains(&id) || b.reads.contains(&id));
            if !touched {
                let buffer = self.program.buffer(id);
                let span = buffer.map_or(Span::new(0, 0), |b| b.span);
                let name = buffer.map_or("?", |b| b.name.as_str());
                let meaning = format!(
                    "the pass looks up each buffer the pipelined loop's block allocates among the buffers its statements read or write, and no statement touches `{name}`; allocate it outside the pipelined loop, or delete it"
                );
                return Err(
                    match rejected_plain("InternalError", "unordered_map::at", span) {
                        Outcome::Rejected(r) => Outcome::Rejected(super::Rejection {
                            meaning: Some(meaning),
                            ..r
                        }),
                        other => other,
                    },
                );
            }
            let def = blocks
                .iter()
                .filter(|b| b.writes.contains(&id))
                .map(|b| b.stage)
                .min();
            // A buffer the pipeline only reads keeps its one version.
            let Some(def) = def else { continue };
            let use_ = blocks
                .iter()
                .filter(|b| b.reads.contains(&id))
                .map(|b| b.stage)
                .max()
                .unwrap_or(-1);
            let mut versions = use_ - def + 1;
            if versions == 2 {
                let needed = blocks.iter().any(|w| {
                    w.writes.contains(&id)
                        && blocks.iter().any(|r| {
                            r.reads.contains(&id)
                                && w.order < r.order
                                && w.stage < r.stage
                                && self.may_conflict(w, r, id)
                        })
                });
                if !needed {
                    versions = 1;
                }
            }
            if versions == 1 && self.pipeline.double_buffers.contains(&id) {
                versions = 2;
            }
            if versions > 1 {
                out.insert(id, versions);
            }
        }
        Ok(out)
    }

    /// TVM's `MayConflict` on the regions the two blocks access of `buf`: they are disjoint only
    /// when some dimension's two intervals provably do not meet (the same `coef · i` on both sides).
    pub(super) fn may_conflict(&self, writer: &Block, reader: &Block, buf: BufId) -> bool {
        let (Some(w), Some(r)) = (
            self.region(&writer.node, buf, true),
            self.region(&reader.node, buf, false),
        ) else {
            return true;
        };
        !w.iter().zip(&r).any(|(a, b)| match (a, b) {
            (Some((ca, ia)), Some((cb, ib))) if ca == cb && ia.is_bounded() && ib.is_bounded() => {
                ia.hi < ib.lo || ib.hi < ia.lo
            }
            _ => false,
        })
    }

    /// The region a block accesses of `buf` (its writes or its reads): per dimension
    /// `coef · i + [lo, hi]` over the block's inner loops, `None` for a dimension not of that form.
    #[allow(clippy::type_complexity)]
    pub(super) fn region(
        &self,
        node: &Node,
        buf: BufId,
        write: bool,
    ) -> Option<Vec<Option<(i64, Interval)>>> {
        let mut ranges: BTreeMap<VarId, Interval> = BTreeMap::new();
        let mut dims: Option<Vec<Option<(i64, Interval)>>> = None;
        self.collect_region(node, buf, write, &mut ranges, &mut dims);
        dims
    }

    pub(super) fn collect_region(
        &self,
        node: &Node,
        buf: BufId,
        write: bool,
        ranges: &mut BTreeMap<VarId, Interval>,
        dims: &mut Option<Vec<Option<(i64, Interval)>>>,
    ) {
        match node {
            Node::Barrier { .. } => {}
            Node::For {
                var, lo, hi, body, ..
            } => {
                let look = |v: VarId| ranges.get(&v).copied().unwrap_or(Interval::ALL);
                let (l, h) = (interval(lo, &look), interval(hi, &look));
                let r = Interval {
                    lo: l.lo,
                    hi: h.hi.saturating_sub(1),
                };
                ranges.insert(*var, r);
                for n in body {
                    self.collect_region(n, buf, write, ranges, dims);
                }
            }
            Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => {
                for n in body {
                    self.collect_region(n, buf, write, ranges, dims);
                }
            }
            Node::Assign(a) => {
                let mut add = |acc: &Access| {
                    if acc.buffer != buf {
                        return;
                    }
                    let this: Vec<Option<(i64, Interval)>> = acc
                        .indices
                        .iter()
                        .map(|ix| {
                            let (coef, rest) = split_linear(&simplify(ix), self.var())?;
                            let look = |v: VarId| ranges.get(&v).copied().unwrap_or(Interval::ALL);
                            Some((coef, interval(&simplify(&rest), &look)))
                        })
                        .collect();
                    *dims = Some(match dims.take() {
                        None => this,
                        Some(prev) => prev
                            .into_iter()
                            .zip(this)
                            .map(|(p, t)| match (p, t) {
                                (Some((cp, ip)), Some((ct, it))) if cp == ct => Some((
                                    cp,
                                    Interval {
                                        lo: ip.lo.min(it.lo),
                                        hi: ip.hi.max(it.hi),
                                    },
                                )),
                                _ => None,
                            })
                            .collect(),
                    });
                };
                if write {
                    add(&a.target);
                } else {
                    for_each_read(&a.value, &mut |r| add(r));
                }
            }
        }
    }
}
