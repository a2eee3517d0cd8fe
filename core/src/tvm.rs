//! TVM 0.27's `InjectSoftwarePipeline`, reproduced: the program TVM's pass produces for a loop, as
//! an `ir::Program` that Stagecraft prints, runs and verifies like its own — so that TVM's races
//! (RFC (b) with 2 versions, RFC (c)'s merged prologue group and count 5, `wait(-1)` in an
//! epilogue) are shown where they happen, and TVM's refusals with TVM's own message.
//!
//! This follows `src/s_tir/transform/inject_software_pipeline.cc` of TVM 0.27 step by step, its
//! corners included (docs/tvm.md): versions `use − def + 1`, 2 reduced to 1 unless a writer ordered
//! and staged before a reader may touch the same region; prologue `[0, S)`, body `[S, E)`, epilogue
//! `[max(E, S), E + S)` (S the maximum stage, E the extent); per section, consecutive async
//! statements of one stage are one commit group until a consumer of that stage has been seen; each
//! consumer's count is the sum over the commit groups it reads of `producer head − its own
//! iteration`, the global head (counted across sections) where the section commits nothing, and 0
//! where a head cannot be proved non-negative; one wait per producer stage, before its first
//! consumer, with the smallest count; `if_then_else(predicate, count, 0)` where the producers'
//! predicate is not always true; a commit run is read from the group's first block onward, so a
//! synchronous block listed between two async blocks of one group is swallowed (and TVM stops on
//! its "Predicates in the same stage" check when the section is a loop).
//!
//! What TVM proves with its arithmetic analyzer over a section's loop variable is decided here by
//! trying every value of it: the sections' bounds are constants (symbolic extents are not
//! reproduced yet), and every expression the pass asks about is linear in the variable.
//! `core/tests/tvm_goldens.rs` compares the result with TVM's real output on the schedules of
//! `tests/tvm/` (recorded by `scripts/tvm-goldens.py`), statement for statement, wait for wait.

use crate::affine::{interval, split_linear, Interval};
use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{
    for_each_assign, for_each_read, Access, Assign, BufId, CmpOp, Cond, IExpr, IOp, Node, Program,
    SectionKind, VExpr, VarId,
};
use crate::lower::{lower, Annotation};
use crate::schedule::{ASYNC_KEY, ORDER_KEY, STAGE_KEY};
use crate::simplify::{simplify, simplify_cond};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The TVM release whose pass this module reproduces (what `--as tvm-0.27` names).
pub const TVM_VERSION: &str = "0.27";

/// What TVM's pass makes of a loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The pipelined program TVM produces.
    Pipelined { program: Program },
    /// The loop has no pipeline annotations: TVM leaves it as it is.
    Unchanged { program: Program },
    /// TVM refuses the schedule.
    Rejected(Rejection),
    /// A loop this reproduction does not cover (yet); the reason says which construct.
    NotReproduced { reason: String, span: Span },
}

/// TVM's refusal: its error kind and its own message. Where TVM's message prints a statement (as a
/// TVMScript block), `message` quotes the Stagecraft statement and `template` has `<block>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejection {
    /// `ValueError`, `InternalError` or `IndexError`, as TVM raises it.
    pub kind: String,
    pub message: String,
    /// The message with each printed statement replaced by `<block>` (how the goldens store it).
    pub template: String,
    /// The statement or annotation TVM's message is about.
    pub span: Span,
}

/// The reproduction for a source loop, with the loop itself (for the verifier).
#[derive(Clone, Debug, PartialEq)]
pub struct Reproduction {
    /// Problems of the source itself (parse and name errors): nothing else is computed then.
    pub diagnostics: Vec<Diagnostic>,
    /// The source loop as lowered; `None` when the source does not lower.
    pub original: Option<Program>,
    pub outcome: Option<Outcome>,
}

impl Reproduction {
    /// TVM's program, when TVM produces one (pipelined or unchanged).
    pub fn program(&self) -> Option<&Program> {
        match &self.outcome {
            Some(Outcome::Pipelined { program } | Outcome::Unchanged { program }) => Some(program),
            _ => None,
        }
    }
}

/// Runs TVM 0.27's `InjectSoftwarePipeline`, as reproduced, on a Stagecraft loop.
pub fn inject_software_pipeline(source: &str) -> Reproduction {
    let (parsed, _) = crate::tvmscript::parse(source);
    let lowered = lower(&parsed.file);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.extend(lowered.diagnostics);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Reproduction {
            diagnostics,
            original: None,
            outcome: None,
        };
    }
    let program = lowered.program;
    let outcome = reproduce(&program, &lowered.annotations, source);
    Reproduction {
        diagnostics,
        original: Some(program),
        outcome: Some(outcome),
    }
}

/// Everything the "TVM 0.27" view shows for a loop: TVM's program printed in Stagecraft's form,
/// its verification against the loop, or TVM's refusal. Spans in `verification` point into
/// `printed.text` (the program is verified as printed, as `stagecraft check --as tvm-0.27` does);
/// spans in `diagnostics` and in a `Rejected` outcome point into the source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TvmExploration {
    /// The TVM release reproduced (`TVM_VERSION`).
    pub version: String,
    /// Problems of the source itself, and TVM's refusal or what is not reproduced as an error.
    pub diagnostics: Vec<Diagnostic>,
    pub outcome: Option<Outcome>,
    /// TVM's program in Stagecraft's printed form, with the line → statement/wait map.
    pub printed: Option<crate::tir::Printed>,
    /// Stagecraft's verifier on TVM's program: its races, differences and wait judgements.
    pub verification: Option<crate::verify::Verification>,
}

impl TvmExploration {
    /// TVM's program (pipelined, or the loop unchanged when it has no pipeline annotations).
    pub fn program(&self) -> Option<&Program> {
        match &self.outcome {
            Some(Outcome::Pipelined { program } | Outcome::Unchanged { program }) => Some(program),
            _ => None,
        }
    }

    /// TVM's program in token form, line for line `printed` (`stagecraft::tokens`).
    pub fn tokens(&self, params: &BTreeMap<String, i64>) -> Option<crate::tokens::TokenForm> {
        self.program().map(|p| crate::tokens::to_tokens(p, params))
    }
}

/// TVM 0.27's pipelined program for `source`, printed and (with `verify`) run through the
/// verifier against the loop. `verify_options.params` binds symbolic extents of the loop.
pub fn explore_tvm(
    source: &str,
    verify: bool,
    verify_options: &crate::verify::VerifyOptions,
) -> TvmExploration {
    let r = inject_software_pipeline(source);
    let mut diagnostics = r.diagnostics.clone();
    match &r.outcome {
        Some(Outcome::Rejected(e)) => diagnostics.push(
            Diagnostic::error(
                e.span,
                format!(
                    "TVM {TVM_VERSION} refuses this schedule: {}: {}",
                    e.kind, e.message
                ),
            )
            .with_hint(
                "this is TVM's own message; Stagecraft's view of the schedule is unaffected",
            ),
        ),
        Some(Outcome::NotReproduced { reason, span }) => diagnostics.push(Diagnostic::error(
            *span,
            format!("TVM {TVM_VERSION}'s pass is not reproduced for this loop: {reason}"),
        )),
        _ => {}
    }
    let printed = r.program().map(crate::tir::print);
    let verification = match (&printed, &r.original, verify) {
        (Some(p), Some(original), true) => {
            let parsed = crate::parser::parse(&p.text);
            let lowered = lower(&parsed.file);
            let bad = parsed
                .diagnostics
                .iter()
                .chain(&lowered.diagnostics)
                .find(|d| d.is_error());
            match bad {
                // The printer and the parser disagree: a Stagecraft bug, said as such.
                Some(d) => {
                    diagnostics.push(Diagnostic::error(
                        Span::new(0, 0),
                        format!(
                            "TVM's program as printed does not parse back: {}",
                            d.message
                        ),
                    ));
                    None
                }
                None => Some(crate::verify::verify(
                    original,
                    &lowered.program,
                    verify_options,
                )),
            }
        }
        _ => None,
    };
    TvmExploration {
        version: TVM_VERSION.to_string(),
        diagnostics,
        outcome: r.outcome,
        printed,
        verification,
    }
}

fn not_reproduced(reason: impl Into<String>, span: Span) -> Outcome {
    Outcome::NotReproduced {
        reason: reason.into(),
        span,
    }
}

fn rejected(kind: &str, message: String, template: String, span: Span) -> Outcome {
    Outcome::Rejected(Rejection {
        kind: kind.to_string(),
        message,
        template,
        span,
    })
}

/// A rejection whose message prints no statement.
fn rejected_plain(kind: &str, message: &str, span: Span) -> Outcome {
    rejected(kind, message.to_string(), message.to_string(), span)
}

/// One block of the pipeline: a top-level statement of the loop with its annotations.
struct Block {
    node: Node,
    span: Span,
    stage: i64,
    order: i64,
    is_async: bool,
    /// Buffers read and written, in order of first appearance (TVM's inferred regions' order).
    reads: Vec<BufId>,
    writes: Vec<BufId>,
}

fn reproduce(program: &Program, annotations: &[Annotation], source: &str) -> Outcome {
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

fn inner_loop_named(nodes: &[Node], program: &Program, name: &str) -> bool {
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
fn accesses(node: &Node) -> (Vec<BufId>, Vec<BufId>) {
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
fn quote(source: &str, span: Span) -> String {
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
fn validate(blocks: &[Block], source: &str, order_span: Span) -> Option<Outcome> {
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

/// `a · v + b` over a section's loop variable `v` (TVM's heads, iterations and counts are all
/// linear in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lin {
    a: i64,
    b: i64,
}

impl Lin {
    fn at(self, v: i64) -> i64 {
        self.a.saturating_mul(v).saturating_add(self.b)
    }

    fn add(self, o: Lin) -> Lin {
        Lin {
            a: self.a.saturating_add(o.a),
            b: self.b.saturating_add(o.b),
        }
    }

    fn sub(self, o: Lin) -> Lin {
        Lin {
            a: self.a.saturating_sub(o.a),
            b: self.b.saturating_sub(o.b),
        }
    }

    fn konst(b: i64) -> Lin {
        Lin { a: 0, b }
    }

    /// `self ≥ 0` as a condition that reads as a bound on the variable (`i < 1`, not `-i >= 0`).
    fn nonnegative(self, var: VarId) -> Cond {
        let v = IExpr::Var(var);
        match self.a {
            0 => simplify_cond(&Cond::Cmp(CmpOp::Ge, IExpr::Const(self.b), IExpr::Const(0))),
            1 => Cond::Cmp(CmpOp::Ge, v, IExpr::Const(self.b.saturating_neg())),
            -1 => Cond::Cmp(CmpOp::Lt, v, IExpr::Const(self.b.saturating_add(1))),
            _ => simplify_cond(&Cond::Cmp(CmpOp::Ge, self.expr(var), IExpr::Const(0))),
        }
    }

    fn expr(self, var: VarId) -> IExpr {
        simplify(&IExpr::bin(
            IOp::Add,
            IExpr::bin(IOp::Mul, IExpr::Const(self.a), IExpr::Var(var)),
            IExpr::Const(self.b),
        ))
    }
}

/// A conjunction of `lin ≥ 0` (a block's `inbound`, or the producers' combined predicate).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
struct Pred(Vec<Lin>);

impl Pred {
    fn holds(&self, v: i64) -> bool {
        self.0.iter().all(|l| l.at(v) >= 0)
    }

    fn and(&self, o: &Pred) -> Pred {
        let mut p = self.0.clone();
        p.extend(o.0.iter().copied());
        Pred(p)
    }

    /// As a condition on the section variable, leaving out the parts true at every `v` of `range`.
    fn cond(&self, var: VarId, range: &[i64]) -> Cond {
        self.0
            .iter()
            .filter(|l| !range.iter().all(|&v| l.at(v) >= 0))
            .fold(Cond::True, |c, l| Cond::and(c, l.nonnegative(var)))
    }
}

/// Per async stage, across sections (TVM's `AsyncStateGlobal`).
#[derive(Clone, Debug)]
struct StageGlobal {
    dst_buffers: BTreeSet<BufId>,
    producer_head: Option<i64>,
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
struct StageLocal {
    /// Where the wait goes (a block index) and its count.
    pending_wait: Option<(usize, Lin, bool)>,
    seen: BTreeSet<BufId>,
    producer_head: Option<Lin>,
    predicate: Option<Pred>,
    commit_groups: Vec<Vec<usize>>,
    consumed: bool,
}

/// A block placed in a section.
struct Placed {
    block: usize,
    stage: i64,
    predicate: Pred,
    access: Lin,
    is_async: bool,
    /// The block's statement, rewritten for this section; waits are wrapped around it.
    body: Node,
}

struct Rewriter<'p> {
    program: &'p Program,
    var: VarId,
    extent: i64,
    blocks: Vec<Block>,
    order: Vec<usize>,
    max_stage: i64,
    versions: BTreeMap<BufId, i64>,
    stages: BTreeMap<i64, StageGlobal>,
}

/// Which count a wait of a section asks for: a constant of the section, or `if_then_else`.
enum Count {
    Lin(Lin),
    Guarded(Pred, Lin),
}

impl<'p> Rewriter<'p> {
    fn new(program: &'p Program, var: VarId, extent: i64, blocks: Vec<Block>) -> Rewriter<'p> {
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

    /// TVM's `ComputeBufferVersions` for every buffer allocated in the program.
    fn compute_versions(&self) -> BTreeMap<BufId, i64> {
        let mut out = BTreeMap::new();
        for (id, buf) in self.program.buffers.iter().enumerate() {
            let id = id as BufId;
            if !buf.declared {
                continue;
            }
            let def = self
                .blocks
                .iter()
                .filter(|b| b.writes.contains(&id))
                .map(|b| b.stage)
                .min();
            let Some(def) = def else { continue };
            let use_ = self
                .blocks
                .iter()
                .filter(|b| b.reads.contains(&id))
                .map(|b| b.stage)
                .max()
                .unwrap_or(-1);
            let mut versions = use_ - def + 1;
            if versions == 2 {
                let needed = self.blocks.iter().any(|w| {
                    w.writes.contains(&id)
                        && self.blocks.iter().any(|r| {
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
            if versions > 1 {
                out.insert(id, versions);
            }
        }
        out
    }

    /// TVM's `MayConflict` on the regions the two blocks access of `buf`: they are disjoint only
    /// when some dimension's two intervals provably do not meet (the same `coef · i` on both sides).
    fn may_conflict(&self, writer: &Block, reader: &Block, buf: BufId) -> bool {
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
    fn region(&self, node: &Node, buf: BufId, write: bool) -> Option<Vec<Option<(i64, Interval)>>> {
        let mut ranges: BTreeMap<VarId, Interval> = BTreeMap::new();
        let mut dims: Option<Vec<Option<(i64, Interval)>>> = None;
        self.collect_region(node, buf, write, &mut ranges, &mut dims);
        dims
    }

    fn collect_region(
        &self,
        node: &Node,
        buf: BufId,
        write: bool,
        ranges: &mut BTreeMap<VarId, Interval>,
        dims: &mut Option<Vec<Option<(i64, Interval)>>>,
    ) {
        match node {
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
                            let (coef, rest) = split_linear(&simplify(ix), self.var)?;
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

    fn build(mut self) -> Outcome {
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
    fn section(&mut self, start: i64, end: i64, kind: SectionKind) -> Result<Node, Outcome> {
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

    /// TVM's `PopulateWaitCounts`.
    fn populate_wait_counts(
        &self,
        placed: &[Placed],
        local: &mut BTreeMap<i64, StageLocal>,
        buffer_group: &BTreeMap<BufId, usize>,
        range: &[i64],
    ) -> Result<(), Outcome> {
        let proves = |p: &dyn Fn(i64) -> bool| range.iter().all(|&v| p(v));
        for (i, pl) in placed.iter().enumerate() {
            let Some(block) = self.blocks.get(pl.block) else {
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
            let global_head = self.stages.get(&p).and_then(|g| g.producer_head);
            let dst = self
                .stages
                .get(&p)
                .map(|g| g.dst_buffers.clone())
                .unwrap_or_default();
            let dep = local.entry(p).or_default();
            let mut heads: Vec<Option<Lin>> = Vec::new();
            if dep.commit_groups.is_empty() {
                heads.push(global_head.map(Lin::konst));
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
                    let Some(head) = dep.producer_head else {
                        continue;
                    };
                    heads.push(Some(if dep.seen.contains(r) {
                        head
                    } else {
                        head.sub(Lin::konst(1))
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
                    Some(h) if proves(&|v| h.at(v) >= 0) => count = count.add(h.sub(pl.access)),
                    _ => known = false,
                }
            }
            let count = if known { count } else { Lin::konst(0) };
            match dep.pending_wait {
                None => dep.pending_wait = Some((i, count, true)),
                Some((at, old, _)) if proves(&|v| count.at(v) < old.at(v)) => {
                    dep.pending_wait = Some((at, count, true))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// TVM's `CompletePipelineLoopStatements`: waits attached, commit runs formed.
    fn complete(
        &self,
        mut placed: Vec<Placed>,
        local: &BTreeMap<i64, StageLocal>,
        unit: bool,
        range: &[i64],
    ) -> Result<Vec<Node>, Outcome> {
        let proves = |p: &dyn Fn(i64) -> bool| range.iter().all(|&v| p(v));
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
            if let Some((at, count, _)) = st.pending_wait {
                let count = match &st.predicate {
                    Some(p) if !proves(&|v| p.holds(v)) => Count::Guarded(p.clone(), count),
                    _ => Count::Lin(count),
                };
                let count = match count {
                    Count::Lin(l) => l.expr(self.var),
                    Count::Guarded(p, l) => {
                        let c = p.cond(self.var, range);
                        simplify(&IExpr::Select(Box::new((
                            c,
                            l.expr(self.var),
                            IExpr::Const(0),
                        ))))
                    }
                };
                if let Some(pl) = placed.get_mut(at) {
                    let span = self
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
        let guard = |pred: &Pred, body: Vec<Node>, span: Span| -> Node {
            match pred.cond(self.var, range) {
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
                .and_then(|p| self.blocks.get(p.block))
                .map_or(Span::new(0, 0), |b| b.span);
            let mut bodies = Vec::new();
            while i < placed.len() && group_stage.get(i).copied().flatten() == Some(stage) {
                let Some(pl) = placed.get_mut(i) else { break };
                // Predicates are structurally equal only within one stage, or when the section is
                // a single step (both fold to `True`).
                if pl.stage != first_stage && !unit {
                    let span = self.blocks.get(pl.block).map_or(span, |b| b.span);
                    return Err(rejected_plain(
                        "InternalError",
                        "Check failed: (ffi::StructuralEqual()(predicate, new_blocks[i].predicate)) is false: Predicates in the same stage are expected to be identical",
                        span,
                    ));
                }
                let bspan = self.blocks.get(pl.block).map_or(span, |b| b.span);
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

    /// A copy of a block for the step whose iteration of it is `access`: the loop variable
    /// replaced, every versioned buffer indexed by `access mod versions` first.
    fn rewrite(&self, node: &Node, access: Lin) -> Node {
        let with = access.expr(self.var);
        let mut n = node.clone();
        self.rewrite_node(&mut n, &with);
        n
    }

    fn rewrite_node(&self, node: &mut Node, with: &IExpr) {
        let sub = |e: &IExpr| simplify(&crate::simplify::substitute(e, self.var, with));
        match node {
            Node::For { lo, hi, body, .. } => {
                *lo = sub(lo);
                *hi = sub(hi);
                for n in body {
                    self.rewrite_node(n, with);
                }
            }
            Node::If { cond, body, .. } => {
                *cond = simplify_cond(&crate::simplify::substitute_cond(cond, self.var, with));
                for n in body {
                    self.rewrite_node(n, with);
                }
            }
            Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => {
                for n in body {
                    self.rewrite_node(n, with);
                }
            }
            Node::Wait { count, body, .. } => {
                *count = sub(count);
                for n in body {
                    self.rewrite_node(n, with);
                }
            }
            Node::Assign(a) => {
                a.iteration = Some(with.clone());
                self.rewrite_access(&mut a.target, with);
                self.rewrite_value(&mut a.value, with);
            }
        }
    }

    fn rewrite_access(&self, acc: &mut Access, with: &IExpr) {
        for ix in &mut acc.indices {
            *ix = simplify(&crate::simplify::substitute(ix, self.var, with));
        }
        if let Some(&v) = self.versions.get(&acc.buffer) {
            acc.indices
                .insert(0, crate::simplify::modulo(with.clone(), v));
        }
    }

    fn rewrite_value(&self, v: &mut VExpr, with: &IExpr) {
        match v {
            VExpr::Lit(_) => {}
            VExpr::Index(e) => *e = simplify(&crate::simplify::substitute(e, self.var, with)),
            VExpr::Read(a) => self.rewrite_access(a, with),
            VExpr::Neg(x) => self.rewrite_value(x, with),
            VExpr::Bin(_, ab) => {
                let [a, b] = &mut **ab;
                self.rewrite_value(a, with);
                self.rewrite_value(b, with);
            }
            VExpr::Call(_, args) => args.iter_mut().for_each(|a| self.rewrite_value(a, with)),
        }
    }
}

/// One node for a list of nodes (a block's statement, a commit): itself when alone.
fn wrap(mut body: Vec<Node>, span: Span) -> Node {
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

/// A program run statically, as `scripts/tvm-goldens.py` runs TVM's output: one line per store in
/// execution order (`async ` when inside an async scope, the target and the elements the value
/// reads), `commit Q` and `wait Q N` lines with what they enclose indented, loops unrolled,
/// conditions evaluated, every index and count a number; declared buffers first (`alloc NAME
/// [shape]`). `params` binds symbolic extents. Lines beyond `max_lines` are cut with a last line
/// saying so.
pub fn trace(program: &Program, params: &BTreeMap<String, i64>, max_lines: usize) -> String {
    let mut allocs: Vec<String> = program
        .buffers
        .iter()
        .filter(|b| b.declared)
        .map(|b| {
            let shape: Vec<String> = b
                .shape
                .as_deref()
                .unwrap_or(&[])
                .iter()
                .map(i64::to_string)
                .collect();
            format!("alloc {} [{}]", b.name, shape.join(", "))
        })
        .collect();
    allocs.sort();
    let mut t = Tracer {
        program,
        env: program.env(params),
        lines: allocs,
        max_lines,
        cut: false,
    };
    t.nodes(&program.body, 0, false);
    if t.cut {
        t.lines.push(format!("... cut at {max_lines} lines"));
    }
    let mut out = t.lines.join("\n");
    out.push('\n');
    out
}

struct Tracer<'p> {
    program: &'p Program,
    env: Vec<i64>,
    lines: Vec<String>,
    max_lines: usize,
    cut: bool,
}

impl Tracer<'_> {
    fn push(&mut self, line: String) -> bool {
        if self.lines.len() >= self.max_lines {
            self.cut = true;
            return false;
        }
        self.lines.push(line);
        true
    }

    fn eval(&self, e: &IExpr) -> String {
        e.eval(&self.env)
            .map_or_else(|| "?".to_string(), |v| v.to_string())
    }

    fn access(&self, a: &Access) -> String {
        let ix: Vec<String> = a.indices.iter().map(|i| self.eval(i)).collect();
        let name = self
            .program
            .buffer(a.buffer)
            .map_or("?", |b| b.name.as_str());
        format!("{name}[{}]", ix.join(", "))
    }

    fn nodes(&mut self, nodes: &[Node], depth: usize, is_async: bool) {
        for n in nodes {
            if self.cut {
                return;
            }
            self.node(n, depth, is_async);
        }
    }

    fn node(&mut self, node: &Node, depth: usize, is_async: bool) {
        let pad = "    ".repeat(depth);
        match node {
            Node::For {
                var, lo, hi, body, ..
            } => {
                let (Some(lo), Some(hi)) = (lo.eval(&self.env), hi.eval(&self.env)) else {
                    self.push(format!("{pad}? a loop whose bounds do not evaluate"));
                    return;
                };
                for v in lo..hi {
                    if let Some(slot) = self.env.get_mut(*var as usize) {
                        *slot = v;
                    }
                    self.nodes(body, depth, is_async);
                    if self.cut {
                        return;
                    }
                }
            }
            Node::If { cond, body, .. } => {
                if cond.eval(&self.env).unwrap_or(false) {
                    self.nodes(body, depth, is_async);
                }
            }
            Node::Commit { queue, body, .. } => {
                if self.push(format!("{pad}commit {queue}")) {
                    self.nodes(body, depth + 1, is_async);
                }
            }
            Node::Wait {
                queue, count, body, ..
            } => {
                let n = self.eval(count);
                if self.push(format!("{pad}wait {queue} {n}")) {
                    self.nodes(body, depth + 1, is_async);
                }
            }
            Node::AsyncScope { body, .. } => self.nodes(body, depth, true),
            Node::Section { body, .. } => self.nodes(body, depth, is_async),
            Node::Assign(a) => {
                let mut reads = Vec::new();
                for_each_read(&a.value, &mut |r| reads.push(self.access(r)));
                let line = format!(
                    "{pad}{}{} <- {}",
                    if is_async { "async " } else { "" },
                    self.access(&a.target),
                    reads.join(", ")
                );
                self.push(line);
            }
        }
    }
}
