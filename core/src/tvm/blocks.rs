//! The loop read as TVM's pipeline: its blocks with their stages, orders and accesses, and TVM's
//! checks of them (`ValidatePipelineBody`).

use super::sections::Rewriter;
use super::{not_reproduced, rejected, rejected_plain, Outcome};
use crate::diagnostic::Span;
use crate::ir::{for_each_assign, for_each_read, Access, Assign, BufId, Node, Program};
use crate::lower::Annotation;
use crate::schedule::{ASYNC_KEY, ORDER_KEY, STAGE_KEY};
use std::collections::{BTreeMap, BTreeSet};

/// One block of the pipeline: a top-level statement of the loop with its annotations.
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

pub(super) fn reproduce(program: &Program, annotations: &[Annotation], source: &str) -> Outcome {
    let loops: Vec<&Node> = program
        .body
        .iter()
        .filter(|n| matches!(n, Node::For { .. }))
        .collect();
    let (var, lo, hi, body, span) = match (loops.as_slice(), program.body.len()) {
        (
            [Node::For {
                var,
                lo,
                hi,
                body,
                span,
            }],
            1,
        ) => (*var, lo, hi, body, *span),
        _ => {
            return not_reproduced(
                "the reproduction of TVM's pass takes one loop and nothing outside it",
                Span::new(0, 0),
            )
        }
    };
    let name = program.var_name(var);
    let find = |key: &str| {
        annotations
            .iter()
            .rev()
            .find(|a| a.var == name && a.key == key)
    };
    let (stage_ann, order_ann, async_ann) = (find(STAGE_KEY), find(ORDER_KEY), find(ASYNC_KEY));
    // TVM's `HasPipelineAnnotation`.
    match (stage_ann, order_ann) {
        (None, None) => {
            return Outcome::Unchanged {
                program: program.clone(),
            }
        }
        (Some(a), None) => {
            return rejected_plain(
                "ValueError",
                "Order of the software pipeline is not defined.",
                a.span,
            )
        }
        (None, Some(a)) => {
            return rejected_plain(
                "ValueError",
                "Stage of the software pipeline is not defined.",
                a.span,
            )
        }
        (Some(_), Some(_)) => {}
    }
    let has_inner_pipeline = annotations.iter().any(|a| {
        a.var != name
            && (a.key == STAGE_KEY || a.key == ORDER_KEY)
            && inner_loop_named(body, program, &a.var)
    });
    if has_inner_pipeline {
        return not_reproduced(
            "nested pipelines (an annotated loop inside the pipelined one) are not reproduced yet",
            span,
        );
    }
    let (Some(lo), Some(hi)) = (lo.as_const(), hi.as_const()) else {
        return not_reproduced(
            "symbolic extents are not reproduced yet: give the loop a constant extent",
            span,
        );
    };
    if lo != 0 {
        return not_reproduced("loops that do not start at 0 are not reproduced yet", span);
    }
    let extent = hi - lo;
    // TVM: "The body of the software pipeline should be SeqStmt": one statement is one block.
    if body.len() < 2 {
        return rejected_plain(
            "ValueError",
            "Check failed: (pipeline_body_seq) is false: The body of the software pipeline should be SeqStmt, got s_tir.SBlockRealize",
            span,
        );
    }
    let values = |a: Option<&Annotation>| -> Result<Vec<i64>, Outcome> {
        match a {
            None => Ok(Vec::new()),
            Some(a) => a.values.clone().ok_or_else(|| {
                not_reproduced(
                    format!("\"{}\" is not a list of integers", a.key),
                    a.value_span,
                )
            }),
        }
    };
    let (stages, orders, asyncs) = match (values(stage_ann), values(order_ann), values(async_ann)) {
        (Ok(s), Ok(o), Ok(a)) => (s, o, a),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return e,
    };
    let n = body.len();
    for (list, a) in [(&stages, stage_ann), (&orders, order_ann)] {
        if list.len() != n {
            let names = vec!["\"\""; n].join(", ");
            let values: Vec<String> = list.iter().map(i64::to_string).collect();
            let which = if std::ptr::eq(list, &stages) {
                "pipeline_stages"
            } else {
                "pipeline_orders"
            };
            let message = format!(
                "Check failed: {which}.size() == original_order.size() ({} vs. {n}) : PrimFunc \"main\" has original order ({names}), but pipeline annotation is ({}) with different size",
                list.len(),
                values.join(", ")
            );
            let at = a.map_or(span, |a| a.value_span);
            return rejected("InternalError", message.clone(), message, at);
        }
    }
    let blocks: Vec<Block> = body
        .iter()
        .zip(stages.iter().zip(&orders))
        .map(|(node, (&stage, &order))| {
            let (reads, writes) = accesses(node);
            Block {
                node: node.clone(),
                span: crate::schedule::node_span(node),
                stage,
                order,
                is_async: asyncs.contains(&stage),
                reads,
                writes,
            }
        })
        .collect();
    if let Some(out) = validate(&blocks, source, order_ann.map_or(span, |a| a.value_span)) {
        return out;
    }
    Rewriter::new(program, var, extent, blocks).build()
}

pub(super) fn inner_loop_named(nodes: &[Node], program: &Program, name: &str) -> bool {
    nodes.iter().any(|n| match n {
        Node::For { var, body, .. } => {
            program.var_name(*var) == name || inner_loop_named(body, program, name)
        }
        Node::If { body, .. }
        | Node::Commit { body, .. }
        | Node::AsyncScope { body, .. }
        | Node::Wait { body, .. }
        | Node::Section { body, .. } => inner_loop_named(body, program, name),
        Node::Assign(_) => false,
    })
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
    // `ordered_stmts_.Set(order, block)`: orders index an array of one entry per block.
    if let Some(b) = blocks
        .iter()
        .find(|b| b.order < 0 || b.order >= blocks.len() as i64)
    {
        let message = format!("Index {} out of bounds {}", b.order, blocks.len());
        return Some(rejected("IndexError", message.clone(), message, order_span));
    }
    None
}
