//! TVM's `PipelineInjector`: every annotated loop of the program pipelined, wherever it is in the
//! loop nest, the innermost first; a pipelined loop that is a statement of another pipelined loop
//! becomes three of its statements (its prologue, body and epilogue), and what its block
//! allocated joins the outer loop's allocations — TVM's nested pipelines.

use super::blocks::{accesses, validate, Block};
use super::linear::{Analyzer, Lin};
use super::sections::{PipelineLoop, Rewriter};
use super::{not_reproduced, rejected, rejected_plain, Outcome};
use crate::diagnostic::Span;
use crate::ir::{BufId, IExpr, Node, Program, VarId};
use crate::lower::Annotation;
use crate::schedule::{ASYNC_KEY, ORDER_KEY, STAGE_KEY};
use std::collections::{BTreeMap, BTreeSet};

/// Where the program's buffers are allocated, as far as TVM's pass cares.
#[derive(Clone, Debug, Default)]
pub(super) struct Scopes {
    /// The annotated loop (by its variable's name) whose block allocates each buffer: the
    /// buffers the pass may version when it pipelines that loop. A buffer not listed is
    /// allocated elsewhere (outside every pipeline, or unused in a loop written in Stagecraft).
    pub(super) owner: BTreeMap<BufId, String>,
    /// Buffers a block's `double_buffer_scope` attribute names: TVM gives them 2 versions where
    /// it would give 1.
    pub(super) double_buffers: BTreeSet<BufId>,
}

/// A statement of a loop body after the pass: itself, or a pipelined loop's three sections with
/// the buffers its block allocates.
enum Child {
    Node(Node),
    Pipeline {
        sections: Vec<Node>,
        allocs: Vec<BufId>,
        span: Span,
    },
}

fn flatten(children: Vec<Child>) -> Vec<Node> {
    children
        .into_iter()
        .flat_map(|c| match c {
            Child::Node(n) => vec![n],
            Child::Pipeline { sections, .. } => sections,
        })
        .collect()
}

pub(super) struct Injector<'a> {
    /// The program as the pass has made it so far (its buffers' shapes gain version dimensions).
    pub(super) program: Program,
    pub(super) annotations: &'a [Annotation],
    pub(super) source: &'a str,
    pub(super) scopes: Scopes,
    pub(super) pipelined: usize,
}

impl Injector<'_> {
    /// The pass on the whole program: TVM's program, or its refusal.
    pub(super) fn run(mut self) -> Outcome {
        let body = std::mem::take(&mut self.program.body);
        match self.nodes(&body) {
            Err(out) => out,
            Ok(children) => {
                self.program.body = flatten(children);
                if self.pipelined == 0 {
                    Outcome::Unchanged {
                        program: self.program,
                    }
                } else {
                    Outcome::Pipelined {
                        program: self.program,
                    }
                }
            }
        }
    }

    fn nodes(&mut self, nodes: &[Node]) -> Result<Vec<Child>, Outcome> {
        nodes.iter().map(|n| self.node(n)).collect()
    }

    fn annotation(&self, var: VarId, key: &str) -> Option<&Annotation> {
        crate::lower::annotation_used(self.annotations, self.program.var_name(var), key)
    }

    fn node(&mut self, node: &Node) -> Result<Child, Outcome> {
        Ok(Child::Node(match node {
            Node::For {
                var,
                lo,
                hi,
                body,
                span,
            } => {
                // TVM rewrites the children first.
                let children = self.nodes(body)?;
                // TVM's `HasPipelineAnnotation`.
                match (
                    self.annotation(*var, STAGE_KEY),
                    self.annotation(*var, ORDER_KEY),
                ) {
                    (None, None) => Node::For {
                        var: *var,
                        lo: lo.clone(),
                        hi: hi.clone(),
                        body: flatten(children),
                        span: *span,
                    },
                    (Some(a), None) => {
                        return Err(rejected_plain(
                            "ValueError",
                            "Order of the software pipeline is not defined.",
                            a.span,
                        ))
                    }
                    (None, Some(a)) => {
                        return Err(rejected_plain(
                            "ValueError",
                            "Stage of the software pipeline is not defined.",
                            a.span,
                        ))
                    }
                    (Some(_), Some(_)) => {
                        return self.pipeline(*var, lo, hi, *span, body.len(), children)
                    }
                }
            }
            Node::If { cond, body, span } => Node::If {
                cond: cond.clone(),
                body: flatten(self.nodes(body)?),
                span: *span,
            },
            other => other.clone(),
        }))
    }

    /// The loop's three annotation lists, each as long as the pipeline has blocks, as TVM checks
    /// them.
    fn lists(&self, var: VarId, n: usize, span: Span) -> Result<Lists, Outcome> {
        let (stage_ann, order_ann, async_ann) = (
            self.annotation(var, STAGE_KEY),
            self.annotation(var, ORDER_KEY),
            self.annotation(var, ASYNC_KEY),
        );
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
        let (stages, orders, asyncs) = (values(stage_ann)?, values(order_ann)?, values(async_ann)?);
        for (list, a, which) in [
            (&stages, stage_ann, "pipeline_stages"),
            (&orders, order_ann, "pipeline_orders"),
        ] {
            if list.len() != n {
                let names = vec!["\"\""; n].join(", ");
                let values: Vec<String> = list.iter().map(i64::to_string).collect();
                let message = format!(
                    "Check failed: {which}.size() == original_order.size() ({} vs. {n}) : PrimFunc \"main\" has original order ({names}), but pipeline annotation is ({}) with different size",
                    list.len(),
                    values.join(", ")
                );
                let at = a.map_or(span, |a| a.value_span);
                return Err(rejected("InternalError", message.clone(), message, at));
            }
        }
        // TVM accepts any stage; reproducing its prologue and epilogue step by step does not.
        if let Some(&stage) = stages.iter().find(|&&s| s > crate::limits::MAX_STAGE) {
            return Err(not_reproduced(
                format!(
                    "stage {stage} is beyond what the reproduction steps through (at most {})",
                    crate::limits::MAX_STAGE
                ),
                stage_ann.map_or(span, |a| a.value_span),
            ));
        }
        Ok(Lists {
            stages,
            orders,
            asyncs,
            order_span: order_ann.map_or(span, |a| a.value_span),
        })
    }

    /// One annotated loop pipelined, its children already rewritten.
    fn pipeline(
        &mut self,
        var: VarId,
        lo: &IExpr,
        hi: &IExpr,
        span: Span,
        written: usize,
        children: Vec<Child>,
    ) -> Result<Child, Outcome> {
        let name = self.program.var_name(var).to_string();
        let (Some(min), Some(end)) = (Lin::of(lo, Some(var)), Lin::of(hi, Some(var))) else {
            return Err(not_reproduced(
                format!(
                    "the bounds of the loop over `{name}` are not linear in the sizes they use"
                ),
                span,
            ));
        };
        if min.a != 0 || end.a != 0 {
            return Err(not_reproduced(
                format!("the loop over `{name}` has bounds that use its own variable"),
                span,
            ));
        }
        let extent = end.sub(&min);
        // TVM: "The body of the software pipeline should be SeqStmt": one statement is one block.
        if written < 2 {
            return Err(rejected_plain(
                "ValueError",
                "Check failed: (pipeline_body_seq) is false: The body of the software pipeline should be SeqStmt, got s_tir.SBlockRealize",
                span,
            ));
        }
        // The blocks: the statements, a nested pipeline's three sections taken in with what its
        // block allocates.
        let mut allocs: Vec<BufId> = self
            .scopes
            .owner
            .iter()
            .filter(|(_, loop_name)| **loop_name == name)
            .map(|(&id, _)| id)
            .collect();
        let mut nodes: Vec<(Node, Span)> = Vec::new();
        for child in children {
            match child {
                Child::Node(n) => {
                    let s = crate::schedule::node_span(&n);
                    nodes.push((n, s));
                }
                Child::Pipeline {
                    sections,
                    allocs: inner,
                    span: inner_span,
                } => {
                    nodes.extend(sections.into_iter().map(|s| (s, inner_span)));
                    allocs.extend(inner);
                }
            }
        }
        let Lists {
            stages,
            orders,
            asyncs,
            order_span,
        } = self.lists(var, nodes.len(), span)?;
        let blocks: Vec<Block> = nodes
            .into_iter()
            .zip(stages.iter().zip(&orders))
            .map(|((node, span), (&stage, &order))| {
                let (reads, writes) = accesses(&node);
                Block {
                    node,
                    span,
                    stage,
                    order,
                    is_async: asyncs.contains(&stage),
                    reads,
                    writes,
                }
            })
            .collect();
        if let Some(out) = validate(&blocks, self.source, order_span) {
            return Err(out);
        }
        let symbols = symbols_of(&[lo, hi]);
        let max_stage = blocks.iter().map(|b| b.stage).max().unwrap_or(-1);
        let pipeline = PipelineLoop {
            var,
            min,
            extent,
            blocks,
            allocs: allocs.clone(),
            double_buffers: self.scopes.double_buffers.clone(),
            order_span,
        };
        let rewriter = Rewriter::new(&self.program, pipeline, Analyzer::new(&symbols, max_stage));
        let pipelined = rewriter.build()?;
        for (&id, &v) in &pipelined.versions {
            if let Some(b) = self.program.buffers.get_mut(id as usize) {
                b.versions = u32::try_from(v).unwrap_or(u32::MAX);
                if let Some(shape) = &mut b.shape {
                    shape.insert(0, v);
                }
            }
        }
        self.pipelined += 1;
        Ok(Child::Pipeline {
            sections: pipelined.sections,
            allocs,
            span,
        })
    }
}

/// A pipelined loop's annotations, read.
struct Lists {
    stages: Vec<i64>,
    orders: Vec<i64>,
    asyncs: Vec<i64>,
    /// Where a misordered block is reported: the order annotation, else the loop.
    order_span: Span,
}

/// The variables of some index expressions, each once.
fn symbols_of(exprs: &[&IExpr]) -> Vec<VarId> {
    fn walk(e: &IExpr, out: &mut Vec<VarId>) {
        match e {
            IExpr::Const(_) => {}
            IExpr::Var(v) => {
                if !out.contains(v) {
                    out.push(*v);
                }
            }
            IExpr::Bin(_, ab) => {
                let [a, b] = &**ab;
                walk(a, out);
                walk(b, out);
            }
            IExpr::Select(s) => {
                let (_, a, b) = &**s;
                walk(a, out);
                walk(b, out);
            }
        }
    }
    let mut out = Vec::new();
    for e in exprs {
        walk(e, &mut out);
    }
    out
}

/// A PrimFunc's scopes as the pass sees them, by buffer id.
pub(super) fn tvmscript_scopes(program: &Program, s: &crate::tvmscript::TvmScopes) -> Scopes {
    let id = |name: &str| program.buffer_id(name);
    Scopes {
        owner: s
            .allocations
            .iter()
            .filter_map(|(b, owner)| Some((id(b)?, owner.as_ref()?.to_string())))
            .collect(),
        double_buffers: s.double_buffers.iter().filter_map(|b| id(b)).collect(),
    }
}

/// A Stagecraft loop's scopes, as its TVMScript export (`tvmscript::print`) places the
/// allocations: each in the block of the outermost annotated loop (the first in the text) that
/// uses it; one no annotated loop uses stays outside every pipeline.
pub(super) fn stagecraft_scopes(program: &Program, annotations: &[Annotation]) -> Scopes {
    let annotated = |var: VarId| {
        let name = program.var_name(var);
        annotations
            .iter()
            .any(|a| a.var == name && (a.key == STAGE_KEY || a.key == ORDER_KEY))
    };
    let mut owner = BTreeMap::new();
    fn walk(
        nodes: &[Node],
        program: &Program,
        annotated: &dyn Fn(VarId) -> bool,
        owner: &mut BTreeMap<BufId, String>,
    ) {
        for n in nodes {
            match n {
                Node::For { var, body, .. } if annotated(*var) => {
                    let (reads, writes) = accesses(n);
                    for b in reads.into_iter().chain(writes) {
                        let declared = program.buffer(b).is_some_and(|x| x.declared);
                        if declared {
                            owner
                                .entry(b)
                                .or_insert_with(|| program.var_name(*var).to_string());
                        }
                    }
                    walk(body, program, annotated, owner);
                }
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::Commit { body, .. }
                | Node::AsyncScope { body, .. }
                | Node::Wait { body, .. }
                | Node::Section { body, .. } => walk(body, program, annotated, owner),
                Node::Assign(_) | Node::Barrier { .. } => {}
            }
        }
    }
    walk(&program.body, program, &annotated, &mut owner);
    Scopes {
        owner,
        double_buffers: BTreeSet::new(),
    }
}
