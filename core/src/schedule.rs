//! Annotations → a validated schedule: each unit (a top-level statement of the pipelined loop) gets
//! its stage, order and async flag; dependences are checked against the pipelined order (TVM's checks
//! plus the write-after-read / write-after-write / loop-carried ones TVM misses); ring-buffer versions
//! are chosen with TVM's rule plus the adjustments correctness needs, each with its reason.

use crate::affine::Dim;
use crate::dependence::{conflict_distances, unit_accesses, Distances, IterationRange, UnitAccess};
use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{for_each_assign, BufId, IExpr, IOp, Node, Program, StmtId, VarId};
use crate::limits;
use crate::lower::Annotation;
use crate::versions::VersionDecision;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub const STAGE_KEY: &str = "software_pipeline_stage";
pub const ORDER_KEY: &str = "software_pipeline_order";
pub const ASYNC_KEY: &str = "software_pipeline_async_stages";
/// Keys Stagecraft reads itself (the cost model reads `stagecraft_*`).
pub fn is_known_key(key: &str) -> bool {
    matches!(key, STAGE_KEY | ORDER_KEY | ASYNC_KEY) || key.starts_with("stagecraft_")
}

/// Every key Stagecraft reads, for "did you mean" (the last two are `cost::LATENCY_KEY` and
/// `cost::ISSUE_KEY`, spelled out: the cost model comes after the schedule).
const READ_KEYS: [&str; 5] = [
    STAGE_KEY,
    ORDER_KEY,
    ASYNC_KEY,
    "stagecraft_latency",
    "stagecraft_issue",
];

/// The keys no part of Stagecraft reads: a near miss of one it reads is a warning with "did you
/// mean" on the key itself — `"software_pipeline_async_stage"` would otherwise leave the schedule
/// synchronous without a word — and any other key a note saying it is kept but not read.
pub fn unknown_keys(annotations: &[Annotation]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for a in annotations {
        if READ_KEYS.contains(&a.key.as_str()) {
            continue;
        }
        let nearest = READ_KEYS
            .iter()
            .map(|k| (edit_distance(&a.key, k), *k))
            .min_by_key(|(d, _)| *d);
        match nearest {
            // A third of the key may be mistyped and still be a typo rather than another key.
            Some((d, k)) if d * 3 <= k.len() => out.push(
                Diagnostic::warning(
                    a.key_span,
                    format!(
                        "unknown annotation key \"{}\": did you mean \"{k}\"?",
                        a.key
                    ),
                )
                .with_hint(format!(
                    "as written, the key is ignored (TVM ignores it too); write \"{k}\""
                )),
            ),
            _ => out.push(Diagnostic::note(
                a.key_span,
                format!(
                    "Stagecraft does not read \"{}\"; it is kept as written",
                    a.key
                ),
            )),
        }
    }
    out
}

/// Levenshtein distance between two keys (bytes: keys are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut diagonal = i;
        let mut left = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let cost = usize::from(ca != *cb);
            let next = (diagonal + cost).min(up + 1).min(left + 1);
            diagonal = up;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = next;
            }
            left = next;
        }
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
    }
    row.last().copied().unwrap_or(0)
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
}

/// Labels of `units` (in source order), counting lines as they go.
fn labels(source: &str, units: &[Unit]) -> Vec<String> {
    let mut lines = LineCursor {
        source,
        offset: 0,
        line: 1,
    };
    units
        .iter()
        .map(|u| quote(source, u.span, lines.line_of(u.span.start as usize)))
        .collect()
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

/// `` `text` (line N)``: how messages name a statement.
/// The line is the caller's: quoting many spans in source order, it counts lines as it goes
/// (`LineCursor`) instead of from the start of the text each time.
fn quote(source: &str, span: Span, line: usize) -> String {
    let text = source
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    let first = text.lines().next().unwrap_or("").trim();
    // At most 48 characters, cut at a character boundary (48 bytes are at most 48 characters).
    let cut = if first.len() <= 48 {
        first.len()
    } else {
        first.char_indices().nth(48).map_or(first.len(), |(i, _)| i)
    };
    let short = first.get(..cut).unwrap_or(first);
    let mut out = String::with_capacity(short.len() + 20);
    out.push('`');
    out.push_str(short);
    if cut < first.len() {
        out.push('…');
    }
    out.push_str("` (line ");
    push_decimal(&mut out, line);
    out.push(')');
    out
}

/// Line numbers of offsets visited in increasing order, each counted from the previous one.
struct LineCursor<'s> {
    source: &'s str,
    offset: usize,
    line: usize,
}

impl LineCursor<'_> {
    fn line_of(&mut self, offset: usize) -> usize {
        if offset < self.offset {
            // Out of order (never for a loop body): count from the start.
            self.offset = 0;
            self.line = 1;
        }
        let between = self.source.get(self.offset..offset).unwrap_or("");
        self.line += between.bytes().filter(|&b| b == b'\n').count();
        self.offset = offset.max(self.offset);
        self.line
    }
}

/// `n` in decimal, without the formatting machinery (`write!` was a tenth of scheduling a small
/// loop when every transform labelled every statement; explanations still label them all).
fn push_decimal(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    let mut k = digits.len();
    let mut n = n;
    loop {
        k -= 1;
        if let Some(d) = digits.get_mut(k) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || k == 0 {
            break;
        }
    }
    for &d in digits.get(k..).unwrap_or_default() {
        out.push(char::from(d));
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
        let find = |key: &str| {
            annotations
                .iter()
                .rev()
                .find(|a| a.var == var_name && a.key == key)
        };
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
    let extent = extent_of(cx, diags)?;
    let units = units_of(body, cx.var, iteration_range_of(cx.lo, &extent));
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

/// The labels of `units`, written into `names` on first use.
fn unit_labels<'c>(
    names: &'c std::sync::OnceLock<Vec<String>>,
    source: &str,
    units: &[Unit],
) -> &'c [String] {
    names.get_or_init(|| labels(source, units))
}

fn label_of(labels: &[String], pos: usize) -> &str {
    labels.get(pos).map_or("", String::as_str)
}

pub fn node_span(node: &Node) -> Span {
    match node {
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

/// Checks every dependence against the pipelined order, after versions are known.
pub fn validate_order(
    program: &Program,
    sched: &LoopSchedule,
    deps: &[Dependence],
    versions: &[VersionDecision],
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let mut ok = true;
    for d in deps {
        let (Some(from), Some(to)) = (sched.units.get(d.from), sched.units.get(d.to)) else {
            continue;
        };
        let v = versions
            .iter()
            .find(|v| v.buffer == d.buffer)
            .map_or(1, |v| i64::from(v.versions));
        let Some(dist) = (0..=sched.max_stage)
            .find(|&k| k % v == 0 && d.distances.contains(k) && !keeps_order(from, to, k))
        else {
            continue;
        };
        ok = false;
        let buf = program.buffer(d.buffer).map_or("?", |b| b.name.as_str());
        let when = if dist == 0 {
            "in the same iteration".to_string()
        } else {
            format!("{} later", crate::english::count(dist, "iteration"))
        };
        let message = match d.kind {
            DepKind::Raw if from.stage > to.stage && dist == 0 => format!(
                "{} reads `{buf}`, which {} writes in a later stage ({} > {})",
                sched.label(to.pos), sched.label(from.pos), from.stage, to.stage
            ),
            DepKind::Raw if dist == 0 => format!(
                "{} reads `{buf}` written by {} in the same stage, but is ordered before it ({} < {})",
                sched.label(to.pos), sched.label(from.pos), to.order, from.order
            ),
            kind => format!(
                "the pipeline reorders a {} dependence on `{buf}`: {} must run before {} {when}, but runs after it",
                kind.describe(),
                sched.label(from.pos),
                sched.label(to.pos)
            ),
        };
        let hint = match d.kind {
            DepKind::Raw => "give the reader a stage at least the writer's (and a later order within one stage)",
            DepKind::War if dist == 0 => "TVM's check misses this write-after-read: move the writer to a later stage or order, or the reader earlier",
            DepKind::Waw if dist == 0 => "TVM's check misses this write-after-write: keep the writers in their original order",
            _ => "TVM's check misses loop-carried dependences: reduce the stage difference between the two statements",
        };
        diags.push(
            // The underline goes on the statement that runs second, not over the whole loop.
            Diagnostic::error(to.span, message)
                .with_hint(hint)
                .with_related(from.span, "runs first in the original loop")
                .with_related(to.span, "runs second in the original loop"),
        );
    }
    ok
}

/// The element touched may be outside the declared shape (checked over every iteration).
pub fn check_bounds(program: &Program, sched: &LoopSchedule, diags: &mut Vec<Diagnostic>) -> bool {
    let mut ok = true;
    let Some(extent) = sched.extent.as_const() else {
        // Without an extent, at least keep every coefficient and offset within a buffer's reach:
        // the emitters multiply them by lanes and strides.
        for a in sched.units.iter().flat_map(|u| &u.accesses) {
            for (k, dim) in a.dims.iter().enumerate() {
                let Dim::Affine { coef, rest } = dim else {
                    continue;
                };
                let reach = [*coef, rest.lo, rest.hi]
                    .into_iter()
                    .filter(|_| rest.is_bounded())
                    .map(i64::unsigned_abs)
                    .max()
                    .unwrap_or(0);
                if reach > limits::MAX_BUFFER_ELEMENTS.unsigned_abs() {
                    ok = false;
                    let name = program.buffer(a.buffer).map_or("?", |b| b.name.as_str());
                    diags.push(Diagnostic::error(
                        a.span,
                        format!(
                            "index {k} of `{name}` uses {reach}; Stagecraft's buffers hold at most {} elements",
                            limits::MAX_BUFFER_ELEMENTS
                        ),
                    ));
                }
            }
        }
        return ok;
    };
    let lo = sched.lo.as_const().unwrap_or(0);
    for u in &sched.units {
        for a in &u.accesses {
            let Some(buffer) = program.buffer(a.buffer) else {
                continue;
            };
            let Some(shape) = buffer.shape.as_ref() else {
                ok &= check_global_reach(buffer, a, lo, extent, diags);
                continue;
            };
            let versions = program.buffer(a.buffer).map_or(1, |b| b.versions);
            for (k, (dim, size)) in a.dims.iter().zip(shape.iter()).enumerate() {
                let Dim::Affine { coef, rest } = dim else {
                    continue;
                };
                if !rest.is_bounded() {
                    continue;
                }
                let (j0, j1) = (lo, lo + extent - 1);
                let (a0, a1) = (coef.saturating_mul(j0), coef.saturating_mul(j1));
                let min = a0.min(a1).saturating_add(rest.lo);
                let max = a0.max(a1).saturating_add(rest.hi);
                if min < 0 || max >= *size {
                    ok = false;
                    let name = program.buffer(a.buffer).map_or("?", |b| b.name.as_str());
                    let dim_note = if versions > 1 && k == 0 {
                        " (the ring slot)"
                    } else {
                        ""
                    };
                    diags.push(
                        Diagnostic::error(
                            a.span,
                            format!(
                                "index {k}{dim_note} of `{name}` ranges over [{min}, {max}] but the dimension has size {size}"
                            ),
                        )
                        .with_hint(format!("keep the index within 0..{size} for every iteration, or enlarge the allocation"))
                        .with_related(program.buffer(a.buffer).map_or(a.span, |b| b.span), "allocated here"),
                    );
                }
            }
        }
    }
    ok
}

/// A buffer that is never allocated is a global one, indexed from 0 and sized by what the loop
/// touches: refuse negative indices and sizes beyond the buffer limit, before the interpreter
/// or an emitter meets them.
fn check_global_reach(
    buffer: &crate::ir::Buffer,
    a: &UnitAccess,
    lo: i64,
    extent: i64,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let mut ok = true;
    for (k, dim) in a.dims.iter().enumerate() {
        let Dim::Affine { coef, rest } = dim else {
            continue;
        };
        if !rest.is_bounded() {
            continue;
        }
        let (j0, j1) = (lo, lo.saturating_add(extent - 1));
        let (a0, a1) = (coef.saturating_mul(j0), coef.saturating_mul(j1));
        let min = a0.min(a1).saturating_add(rest.lo);
        let max = a0.max(a1).saturating_add(rest.hi);
        let name = &buffer.name;
        if min < 0 {
            ok = false;
            diags.push(
                Diagnostic::error(
                    a.span,
                    format!("index {k} of `{name}` reaches {min}; `{name}` is not allocated, so it is a global buffer indexed from 0"),
                )
                .with_hint("keep the index at 0 or above for every iteration (start the loop later, or offset the index)"),
            );
        } else if max >= limits::MAX_BUFFER_ELEMENTS {
            ok = false;
            diags.push(Diagnostic::error(
                a.span,
                format!(
                    "index {k} of `{name}` reaches {max}; Stagecraft's buffers hold at most {} elements",
                    limits::MAX_BUFFER_ELEMENTS
                ),
            ));
        }
    }
    ok
}

/// Earliest physical distance at which `from` and `to` meet (for synchronization), if any.
pub fn first_physical_distance(d: &Dependence, versions: i64) -> Option<i64> {
    d.distances.first(0, versions)
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimal_digits() {
        for n in [0, 7, 10, 99, 12345, usize::MAX] {
            let mut s = String::from("x");
            super::push_decimal(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }
}
