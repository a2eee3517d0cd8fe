//! The loop read as TVM's pipeline: its blocks with their stages, orders and accesses, and TVM's
//! checks of them (`ValidatePipelineBody`).

use super::{rejected, rejected_plain, Outcome};
use crate::diagnostic::Span;
use crate::ir::{for_each_assign, for_each_read, Access, Assign, BufId, Node};
use std::collections::{BTreeMap, BTreeSet};

/// One block of the pipeline: a statement of the loop (or a section of a nested pipeline) with
/// its annotations.
pub(super) struct Block {
    pub(super) node: Node,
    pub(super) span: Span,
    pub(super) stage: i64,
    pub(super) order: i64,
    pub(super) is_async: bool,
    /// Buffers read and written, in order of first appearance (TVM's inferred regions' order).
    pub(super) reads: Vec<BufId>,
    pub(super) writes: Vec<BufId>,
}

/// The buffers a block reads and writes, each once, in order of first appearance.
pub(super) fn accesses(node: &Node) -> (Vec<BufId>, Vec<BufId>) {
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    for_each_assign(std::slice::from_ref(node), &mut |a: &Assign| {
        for_each_read(&a.value, &mut |r: &Access| {
            if !reads.contains(&r.buffer) {
                reads.push(r.buffer);
            }
        });
        if !writes.contains(&a.target.buffer) {
            writes.push(a.target.buffer);
        }
    });
    (reads, writes)
}

/// How TVM's messages name a statement: here, its Stagecraft text.
pub(super) fn quote(source: &str, span: Span) -> String {
    let text = source
        .get(span.start as usize..span.end as usize)
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("")
        .trim();
    format!("`{text}`")
}

/// TVM's `ValidatePipelineBody`: orders unique, and each read-after-write inside an iteration
/// (a block reading a buffer an earlier block writes) keeps its stage order, and its order within
/// one stage. TVM checks only these; write-after-read and loop-carried dependences it does not see.
pub(super) fn validate(blocks: &[Block], source: &str, order_span: Span) -> Option<Outcome> {
    let mut used = BTreeSet::new();
    for b in blocks {
        if !used.insert(b.order) {
            return Some(rejected_plain(
                "ValueError",
                "Check failed: (!used_orders.count(order)) is false: Two statements in the software pipeline cannot have the same order",
                order_span,
            ));
        }
    }
    // TVM's `BuildDependencyGraph`: each block that reads a buffer depends on every earlier block
    // that writes it (a block's own writes count from the next block on).
    let mut writers: BTreeMap<BufId, Vec<usize>> = BTreeMap::new();
    let mut edges: Vec<(usize, Vec<usize>)> = Vec::new();
    for (d, dst) in blocks.iter().enumerate() {
        for r in &dst.reads {
            for &src in writers.get(r).map_or(&[][..], Vec::as_slice) {
                match edges.iter_mut().find(|(s, _)| *s == src) {
                    Some((_, dsts)) => dsts.push(d),
                    None => edges.push((src, vec![d])),
                }
            }
        }
        for &w in &dst.writes {
            writers.entry(w).or_default().push(d);
        }
    }
    // TVM walks these edges out of an `std::unordered_map` keyed by block: libstdc++ lists a small
    // map's entries newest first, which decides which violation TVM reports when there are several
    // (tests/tvm/random_19 and random_26 have two).
    for (s, dsts) in edges.iter().rev() {
        let Some(src) = blocks.get(*s) else { continue };
        for dst in dsts.iter().filter_map(|&d| blocks.get(d)) {
            if !dst.reads.iter().any(|r| src.writes.contains(r)) {
                continue;
            }
            if src.stage > dst.stage {
                let message = |a: &str, b: &str| {
                    format!(
                        "Check failed: src_info.stage <= dst_info.stage ({} vs. {}) : statement {a} in stage {} cannot depends on statement {b} in a later stage {}",
                        src.stage, dst.stage, dst.stage, src.stage
                    )
                };
                return Some(rejected(
                    "ValueError",
                    message(&quote(source, dst.span), &quote(source, src.span)),
                    message("<block>", "<block>"),
                    dst.span,
                ));
            }
            if src.stage == dst.stage && src.order >= dst.order {
                let message = format!(
                    "Check failed: src_info.order < dst_info.order ({} vs. {}) : two statements with buffer access dependency in the same stage of the software pipeline cannot be reordered",
                    src.order, dst.order
                );
                return Some(rejected("ValueError", message.clone(), message, dst.span));
            }
        }
    }
    None
}

/// `ordered_stmts_.Set(order, block)`: orders index an array of one entry per block. TVM meets
/// this after it has computed the versions.
pub(super) fn check_order_range(blocks: &[Block], order_span: Span) -> Option<Outcome> {
    let b = blocks
        .iter()
        .find(|b| b.order < 0 || b.order >= blocks.len() as i64)?;
    let message = format!("Index {} out of bounds {}", b.order, blocks.len());
    Some(rejected("IndexError", message.clone(), message, order_span))
}
