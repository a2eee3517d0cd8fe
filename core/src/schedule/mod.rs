//! Annotations → a validated schedule: each unit (a top-level statement of the pipelined loop) gets
//! its stage, order and async flag; dependences are checked against the pipelined order (TVM's checks
//! plus the write-after-read / write-after-write / loop-carried ones TVM misses); ring-buffer versions
//! are chosen with TVM's rule plus the adjustments correctness needs, each with its reason.

use crate::dependence::{conflict_distances, unit_accesses, Distances, IterationRange, UnitAccess};
use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{for_each_assign, BufId, IExpr, IOp, Node, Program, StmtId, VarId};
use crate::limits;
use crate::lower::Annotation;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

mod checks;
mod keys;
mod labels;
mod loops_named;
pub use checks::{check_async_units, check_bounds, validate_order, warn_guards_that_never_hold};
pub use keys::{repeated_keys, unknown_keys};
use labels::{label_of, unit_labels};
pub use loops_named::annotations_of_no_loop;

pub const STAGE_KEY: &str = "software_pipeline_stage";
pub const ORDER_KEY: &str = "software_pipeline_order";
pub const ASYNC_KEY: &str = "software_pipeline_async_stages";
/// Keys Stagecraft reads itself (the cost model reads `stagecraft_*`).
pub fn is_known_key(key: &str) -> bool {
    matches!(key, STAGE_KEY | ORDER_KEY | ASYNC_KEY) || key.starts_with("stagecraft_")
}

#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// Position in the loop body (original program order).
    pub pos: usize,
    pub node: Node,
    pub stmts: Vec<StmtId>,
    pub span: Span,
    pub stage: i64,
    pub order: i64,
    pub is_async: bool,
    pub accesses: Vec<UnitAccess>,
    /// The section of an inner loop pipelined first that this unit is, and that loop's span:
    /// messages name it "the prologue of `for k1 in range(4):` (line 15)", a unit like its
    /// neighbours, not by the first statement inside it.
    pub inner: Option<(crate::ir::SectionKind, Span)>,
}

/// A unit that is a section of an inner loop pipelined first: its position in the loop's body,
/// which section, and the inner loop's span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InnerSection {
    pub pos: usize,
    pub section: crate::ir::SectionKind,
    pub inner_loop: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Extent {
    Const(i64),
    /// An extent that contains a free name; the interpreter binds it.
    Symbolic(IExpr),
}

impl Extent {
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Extent::Const(e) => Some(*e),
            Extent::Symbolic(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LoopSchedule {
    pub var: VarId,
    pub lo: IExpr,
    pub extent: Extent,
    pub units: Vec<Unit>,
    pub max_stage: i64,
    pub async_stages: Vec<i64>,
    /// False when the loop carries no stage annotation: shown as is.
    pub annotated: bool,
    pub span: Span,
    /// The text the loop was parsed from, which `label` quotes (shared: a schedule outlives
    /// the exploration, in the recipe of its peeled program, `explore::PeeledRecipe`).
    source: Arc<str>,
    /// Per unit, a short quote of the source for messages: written when first asked for. A
    /// transform that reports nothing never needs them, and counting lines and quoting for every
    /// unit showed in the transform's profile (docs/benchmarks.md).
    labels: std::sync::OnceLock<Vec<String>>,
}

impl LoopSchedule {
    /// How messages name the unit at `pos`: `` `text` (line N)``.
    pub fn label(&self, pos: usize) -> &str {
        label_of(unit_labels(&self.labels, &self.source, &self.units), pos)
    }

    /// How messages name the statement at `span` of the loop's text: `` `text` (line N)``.
    pub fn quote(&self, span: Span) -> String {
        labels::quote_span(&self.source, span)
    }
}

/// A dependence between two unit instances `distance` iterations apart, in original program order.
#[derive(Clone, Debug, PartialEq)]
pub struct Dependence {
    pub from: usize,
    pub to: usize,
    pub buffer: BufId,
    pub kind: DepKind,
    pub distances: Distances,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DepKind {
    /// `to` reads what `from` wrote.
    Raw,
    /// `to` overwrites what `from` read.
    War,
    /// Both write.
    Waw,
}

impl DepKind {
    pub fn describe(self) -> &'static str {
        match self {
            DepKind::Raw => "read-after-write",
            DepKind::War => "write-after-read",
            DepKind::Waw => "write-after-write",
        }
    }
}

/// The loop a schedule is built for: the `for` node's parts and the file around it.
#[derive(Clone, Copy)]
pub struct LoopToSchedule<'a> {
    pub program: &'a Program,
    /// The text the loop was parsed from: messages quote it.
    pub source: &'a Arc<str>,
    /// All annotations of the file; those naming the loop's variable apply.
    pub annotations: &'a [Annotation],
    pub var: VarId,
    pub lo: &'a IExpr,
    pub hi: &'a IExpr,
    pub span: Span,
    /// The statements of the body that are sections of inner loops pipelined first.
    pub inner: &'a [InnerSection],
}

/// The three annotations of one loop; the last one written wins, as in TVM.
#[derive(Clone, Copy, Default)]
struct LoopAnnotations<'a> {
    stage: Option<&'a Annotation>,
    order: Option<&'a Annotation>,
    asyncs: Option<&'a Annotation>,
}

impl<'a> LoopAnnotations<'a> {
    fn of(annotations: &'a [Annotation], var_name: &str) -> Self {
        let find = |key: &str| crate::lower::annotation_used(annotations, var_name, key);
        LoopAnnotations {
            stage: find(STAGE_KEY),
            order: find(ORDER_KEY),
            asyncs: find(ASYNC_KEY),
        }
    }

    fn annotated(&self) -> bool {
        self.stage.is_some() || self.order.is_some()
    }
}

/// Builds the schedule of one loop whose body is `body`: its extent, its units, then the
/// annotations read, checked and applied. `None` when an error was reported into `diags`.
pub fn schedule_loop(
    cx: LoopToSchedule<'_>,
    body: Vec<Node>,
    diags: &mut Vec<Diagnostic>,
) -> Option<LoopSchedule> {
    if let Some(span) = first_barrier(&body) {
        diags.push(
            Diagnostic::error(span, "`barrier()` has no place in the loop that is pipelined")
                .with_hint("the loop means its statements in order, each finished by every thread before the next; the transform writes the barriers the pipelined program needs (docs/language.md, \"Threads\") — remove this line"),
        );
        return None;
    }
    let extent = extent_of(cx, diags)?;
    let mut units = units_of(body, cx.var, iteration_range_of(cx.lo, &extent));
    for s in cx.inner {
        if let Some(u) = units.get_mut(s.pos) {
            u.inner = Some((s.section, s.inner_loop));
        }
    }
    let mut builder = Builder {
        cx,
        var_name: cx.program.var_name(cx.var),
        anns: LoopAnnotations::of(cx.annotations, cx.program.var_name(cx.var)),
        units,
        labels: std::sync::OnceLock::new(),
        diags,
    };
    let anns = builder.anns;
    let stages = anns.stage.and_then(|a| builder.entries(a, true));
    let orders = anns.order.and_then(|a| builder.entries(a, true));
    let asyncs = anns.asyncs.and_then(|a| builder.entries(a, false));
    builder.check_pairing();
    if anns.annotated() && (stages.is_none() || orders.is_none()) {
        return None;
    }
    let mut ok = true;
    if let (Some(stages), Some(orders)) = (stages, orders) {
        ok &= builder.assign_stages_and_orders(stages, orders);
    }
    let async_stages = builder.async_stages(asyncs, &mut ok);
    if !ok {
        return None;
    }
    Some(builder.finish(extent, async_stages))
}

/// The loop's trip count: a constant within Stagecraft's limits, or symbolic.
fn extent_of(cx: LoopToSchedule, diags: &mut Vec<Diagnostic>) -> Option<Extent> {
    let var_name = cx.program.var_name(cx.var);
    let extent_expr =
        crate::simplify::simplify(&IExpr::bin(IOp::Sub, cx.hi.clone(), cx.lo.clone()));
    match extent_expr.as_const() {
        Some(e) if e <= 0 => {
            diags.push(
                Diagnostic::error(cx.span, format!("the loop over `{var_name}` runs {e} times; a pipeline needs at least one iteration"))
                    .with_hint("give range() a positive extent"),
            );
            None
        }
        Some(e) if e > limits::MAX_EXTENT => {
            diags.push(
                Diagnostic::error(
                    cx.span,
                    format!(
                        "the extent {e} is above Stagecraft's limit of {}",
                        limits::MAX_EXTENT
                    ),
                )
                .with_hint("use a symbolic extent (`range(N)`) to explore a long loop"),
            );
            None
        }
        Some(e) => Some(Extent::Const(e)),
        None => Some(Extent::Symbolic(extent_expr)),
    }
}

/// One unit per top-level statement of the body, in program order, with its accesses analysed
/// over the loop's iterations; stage 0 and order = position until annotations say otherwise.
fn units_of(body: Vec<Node>, var: VarId, range: IterationRange) -> Vec<Unit> {
    let mut units = Vec::with_capacity(body.len());
    for (pos, node) in body.into_iter().enumerate() {
        // Units are mostly single statements.
        let mut stmts = Vec::with_capacity(1);
        for_each_assign(std::slice::from_ref(&node), &mut |a| stmts.push(a.stmt));
        let span = node_span(&node);
        let accesses = unit_accesses(&node, var, range);
        units.push(Unit {
            pos,
            node,
            stmts,
            span,
            stage: 0,
            order: pos as i64,
            is_async: false,
            accesses,
            inner: None,
        });
    }
    units
}

/// A schedule being built: the loop, its units, and where the messages go.
struct Builder<'a, 'd> {
    cx: LoopToSchedule<'a>,
    var_name: &'a str,
    anns: LoopAnnotations<'a>,
    units: Vec<Unit>,
    /// Quotes of the units for messages, made only when a message needs one.
    labels: std::sync::OnceLock<Vec<String>>,
    diags: &'d mut Vec<Diagnostic>,
}

impl<'a> Builder<'a, '_> {
    fn label(&self, pos: usize) -> &str {
        label_of(unit_labels(&self.labels, self.cx.source, &self.units), pos)
    }

    /// A stage without an order (or the reverse) is an error; async stages without either do nothing.
    fn check_pairing(&mut self) {
        let (var_name, n) = (self.var_name, self.units.len());
        match (self.anns.stage, self.anns.order) {
            (Some(a), None) => self.diags.push(
                Diagnostic::error(
                    a.span,
                    format!("`{var_name}` has a stage annotation but no \"{ORDER_KEY}\""),
                )
                .with_hint(format!(
                    "add sch.annotate({var_name}, \"{ORDER_KEY}\", [{}])",
                    (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
                )),
            ),
            (None, Some(a)) => self.diags.push(
                Diagnostic::error(
                    a.span,
                    format!("`{var_name}` has an order annotation but no \"{STAGE_KEY}\""),
                )
                .with_hint(format!(
                    "add sch.annotate({var_name}, \"{STAGE_KEY}\", [...]) with one stage per statement"
                )),
            ),
            _ => {}
        }
        if let (Some(a), false) = (self.anns.asyncs, self.anns.annotated()) {
            self.diags.push(Diagnostic::warning(
                a.span,
                "async stages without a stage annotation have no effect",
            ));
        }
    }

    /// The annotation's list of integers; with `exact_len`, one entry per unit.
    fn entries(&mut self, a: &'a Annotation, exact_len: bool) -> Option<&'a [i64]> {
        let Some(values) = &a.values else {
            self.diags.push(
                Diagnostic::error(
                    a.value_span,
                    format!("\"{}\" takes a list of integers", a.key),
                )
                .with_hint("like [0, 1]"),
            );
            return None;
        };
        let n = self.units.len();
        if exact_len && values.len() != n {
            let listed = unit_labels(&self.labels, self.cx.source, &self.units).join(", ");
            self.diags.push(
                Diagnostic::error(
                    a.value_span,
                    format!(
                        "\"{}\" has {} entries but the loop over `{}` has {}",
                        a.key,
                        values.len(),
                        self.var_name,
                        crate::english::count(n, "statement")
                    ),
                )
                .with_hint(format!("one entry per statement, in order: {listed}")),
            );
            return None;
        }
        Some(values.as_slice())
    }

    /// Gives each unit its stage and order; false when a stage is out of range or two units share
    /// an order.
    fn assign_stages_and_orders(&mut self, stages: &[i64], orders: &[i64]) -> bool {
        for (u, (&s, &o)) in self.units.iter_mut().zip(stages.iter().zip(orders)) {
            u.stage = s;
            u.order = o;
        }
        let mut ok = true;
        let span_s = self.anns.stage.map_or(self.cx.span, |a| a.value_span);
        for u in &self.units {
            if u.stage < 0 || u.stage > limits::MAX_STAGE {
                ok = false;
                let message = format!(
                    "{} has stage {}; stages run from 0 to {}",
                    self.label(u.pos),
                    u.stage,
                    limits::MAX_STAGE
                );
                self.diags.push(
                    Diagnostic::error(span_s, message).with_related(u.span, "this statement"),
                );
            }
        }
        let span_o = self.anns.order.map_or(self.cx.span, |a| a.value_span);
        for (i, a) in self.units.iter().enumerate() {
            for b in self.units.iter().skip(i + 1) {
                if a.order == b.order {
                    ok = false;
                    let message = format!(
                        "{} and {} both have order {}",
                        self.label(a.pos),
                        self.label(b.pos),
                        a.order
                    );
                    self.diags.push(
                        Diagnostic::error(span_o, message)
                            .with_hint(
                                "every statement needs its own position in the pipelined body",
                            )
                            .with_related(a.span, "first statement")
                            .with_related(b.span, "second statement"),
                    );
                }
            }
        }
        ok
    }

    /// The async stages in use, sorted and without repeats, and each unit's async flag; a
    /// negative stage clears `ok`, a stage no unit is in only warns.
    fn async_stages(&mut self, list: Option<&[i64]>, ok: &mut bool) -> Vec<i64> {
        let mut async_stages = Vec::new();
        if let (Some(list), Some(a)) = (list, self.anns.asyncs) {
            for &s in list {
                if s < 0 {
                    *ok = false;
                    self.diags.push(Diagnostic::error(
                        a.value_span,
                        format!("async stage {s} is negative"),
                    ));
                } else if !self.units.iter().any(|u| u.stage == s) {
                    self.diags.push(
                        Diagnostic::warning(a.value_span, format!("no statement is in stage {s}, so marking it async does nothing"))
                            .with_hint("TVM ignores this silently; the stages in use are listed in the annotation grid"),
                    );
                } else if !async_stages.contains(&s) {
                    async_stages.push(s);
                }
            }
        }
        async_stages.sort_unstable();
        for u in self.units.iter_mut() {
            u.is_async = async_stages.contains(&u.stage);
        }
        async_stages
    }

    fn finish(self, extent: Extent, async_stages: Vec<i64>) -> LoopSchedule {
        LoopSchedule {
            var: self.cx.var,
            lo: self.cx.lo.clone(),
            extent,
            max_stage: self.units.iter().map(|u| u.stage).max().unwrap_or(0),
            units: self.units,
            async_stages,
            annotated: self.anns.annotated(),
            span: self.cx.span,
            source: self.cx.source.clone(),
            labels: self.labels,
        }
    }
}

/// The first `barrier()` written in `nodes`, at any depth.
fn first_barrier(nodes: &[Node]) -> Option<Span> {
    nodes.iter().find_map(|n| match n {
        Node::Barrier { span, .. } => Some(*span),
        Node::For { body, .. }
        | Node::If { body, .. }
        | Node::Commit { body, .. }
        | Node::AsyncScope { body, .. }
        | Node::Wait { body, .. }
        | Node::Section { body, .. } => first_barrier(body),
        Node::Assign(_) => None,
    })
}

pub fn node_span(node: &Node) -> Span {
    match node {
        Node::Barrier { span, .. } => *span,
        Node::Assign(a) => a.span,
        Node::For { span, .. }
        | Node::If { span, .. }
        | Node::Commit { span, .. }
        | Node::AsyncScope { span, .. }
        | Node::Wait { span, .. } => *span,
        Node::Section { body, .. } => body
            .iter()
            .map(node_span)
            .reduce(Span::to)
            .unwrap_or_default(),
    }
}

/// All dependences between units, in original program order (`from` runs first), for iterations
/// in `range`.
pub fn dependences(units: &[Unit], range: IterationRange) -> Vec<Dependence> {
    let mut deps: Vec<Dependence> = Vec::with_capacity(2 * units.len());
    for a in units {
        for b in units {
            for x in &a.accesses {
                for y in &b.accesses {
                    if x.buffer != y.buffer || (!x.write && !y.write) {
                        continue;
                    }
                    let mut set = conflict_distances(x, y, range);
                    // `a` at iteration j runs before `b` at j + d when d > 0, or d == 0 and a is
                    // earlier; within one unit, its own accesses at d == 0 are not reordered.
                    if a.pos >= b.pos {
                        set = set.intersect(&Distances::between(1, i64::MAX / 4));
                    }
                    if set.is_empty() {
                        continue;
                    }
                    let kind = match (x.write, y.write) {
                        (true, false) => DepKind::Raw,
                        (false, true) => DepKind::War,
                        _ => DepKind::Waw,
                    };
                    let dup = deps.iter_mut().find(|d| {
                        d.from == a.pos && d.to == b.pos && d.buffer == x.buffer && d.kind == kind
                    });
                    match dup {
                        Some(d) => d.distances = d.distances.union(&set),
                        None => deps.push(Dependence {
                            from: a.pos,
                            to: b.pos,
                            buffer: x.buffer,
                            kind,
                            distances: set,
                        }),
                    }
                }
            }
        }
    }
    deps
}

/// The iterations of the schedule's loop variable, as far as they are known.
pub fn iteration_range(sched: &LoopSchedule) -> IterationRange {
    iteration_range_of(&sched.lo, &sched.extent)
}

fn iteration_range_of(lo: &IExpr, extent: &Extent) -> IterationRange {
    match (lo.as_const(), extent) {
        (Some(lo), Extent::Const(e)) => IterationRange {
            lo,
            hi: lo.saturating_add(e - 1),
        },
        (Some(lo), Extent::Symbolic(_)) => IterationRange {
            lo,
            ..IterationRange::UNKNOWN
        },
        _ => IterationRange::UNKNOWN,
    }
}

/// Does the pipelined order keep `from` (iteration j) before `to` (iteration j + d)?
pub fn keeps_order(from: &Unit, to: &Unit, d: i64) -> bool {
    let lead = from.stage - to.stage;
    lead < d || (lead == d && from.order < to.order)
}

/// Earliest physical distance at which `from` and `to` meet (for synchronization), if any.
pub fn first_physical_distance(d: &Dependence, versions: i64) -> Option<i64> {
    d.distances.first(0, versions)
}
