//! The one entry point: source text in, everything Stagecraft shows out. The app renders this value
//! and never re-derives anything; the CLI prints parts of it. With `Options::defer_runs` the
//! verification and the timeline are left for `verification` and `timeline`, which compute them
//! from the exploration later (the app draws the program first). JSON shape: docs/json.md.

use crate::diagnostic::{Diagnostic, Severity, Span};
use crate::ir::{BufId, Node, Program, StmtId};
use crate::lexer::{highlight_tokens, Token};
use crate::lower::{lower, Annotation};
use crate::pipeline::{self, IterationSpace, Pipeline};
use crate::pipelined::{self, Form};
use crate::schedule::{self, LoopSchedule, STAGE_KEY};
use crate::sync::{self, Group, Need, Sync, WaitSite};
use crate::tir::{self, Printed};
use crate::{limits, parser};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// Values for symbolic extents (by name); missing ones take `limits::DEFAULT_SYMBOLIC_EXTENT`.
    pub params: BTreeMap<String, i64>,
    /// Rows of the iteration-space picture before the middle of the body is elided.
    pub max_iteration_rows: usize,
    /// Run the interpreter on the original and the pipelined program.
    pub verify: bool,
    /// Which printed form the verifier runs (both compute the same; the rolled one is TVM's shape).
    pub form: Form,
    /// Print both forms; otherwise only `form` (the app shows one at a time, and the peeled form
    /// of a 160-statement, 64-stage loop is 36 700 lines).
    pub both_forms: bool,
    /// The timeline's cost model (annotations in the source override it per statement).
    pub cost: crate::cost::CostModel,
    /// Steps of the timeline whose spans are returned: [from, to).
    pub timeline_window: (u64, u64),
    pub timeline: bool,
    /// The machine-code targets to emit (PTX, AMDGPU ISA and IR); none skips emission. The app
    /// asks only for the one it shows.
    pub targets: Vec<crate::emit::Target>,
    /// Leave `verification` and `timeline` empty, to be computed later by [`verification`] and
    /// [`timeline`] from the exploration's programs. They are most of the cost of a large loop
    /// (160 statements over 64 stages: 85 M and 26 M of 215 M instructions): the app draws the
    /// program first and runs them in tasks of their own.
    pub defer_runs: bool,
    /// Build the peeled program even when it is neither printed nor emitted (it is then in
    /// `programs`). [`Options::without_code`] sets it.
    pub peeled_program: bool,
}

impl Options {
    /// These options without machine code, but with everything emitting would have been given
    /// (the peeled program) built all the same: for exploring what the app will explore, to make
    /// V8 optimize that code, without emitting, which is most of the cost.
    pub fn without_code(self) -> Options {
        Options {
            peeled_program: self.peeled_program || !self.targets.is_empty(),
            targets: Vec::new(),
            ..self
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            params: BTreeMap::new(),
            max_iteration_rows: 48,
            verify: true,
            form: Form::Rolled,
            both_forms: true,
            cost: crate::cost::CostModel::default(),
            timeline_window: (0, 64),
            timeline: true,
            targets: crate::emit::Target::ALL.to_vec(),
            defer_runs: false,
            peeled_program: false,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Exploration {
    pub diagnostics: Vec<Diagnostic>,
    /// Highlighting tokens of the source.
    pub tokens: Vec<Token>,
    /// True when the pipelined program was produced.
    pub ok: bool,
    pub statements: Vec<StatementInfo>,
    pub annotations: Vec<AnnotationInfo>,
    pub pipeline: Option<PipelineInfo>,
    pub buffers: Vec<BufferInfo>,
    pub groups: Vec<Group>,
    pub needs: Vec<Need>,
    pub waits: Vec<WaitSite>,
    pub rolled: Option<Printed>,
    pub peeled: Option<Printed>,
    pub iteration_space: Option<IterationSpace>,
    /// Absent under `Options::defer_runs` until [`verification`] computes it.
    pub verification: Option<crate::verify::Verification>,
    /// Absent under `Options::defer_runs` until [`timeline`] computes it.
    pub timeline: Option<crate::timeline::Timeline>,
    /// Machine code per target, from the peeled program.
    pub code: Vec<crate::emit::Emitted>,
    /// The cost model in effect (defaults, options and source annotations combined).
    pub cost: Option<crate::cost::CostModel>,
    /// Cost in effect for each unit of the pipelined loop (its first statement), for editing.
    pub unit_costs: Vec<crate::cost::Cost>,
    /// Per unit (as `unit_costs`), the values the source's cost annotations set; the rest are defaults.
    pub unit_annotated_costs: Vec<crate::cost::AnnotatedCost>,
    pub notes: Vec<String>,
    /// The source loop and the pipelined programs, for the interpreter, timeline and emitters, and
    /// what [`verification`] and [`timeline`] compute from them.
    #[serde(skip)]
    pub programs: Option<Programs>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Programs {
    pub original: Program,
    pub rolled: Program,
    /// Built only when it is printed, emitted or run (`Options::both_forms`, `form`, `targets`):
    /// it writes every prologue and epilogue step out.
    pub peeled: Option<Program>,
    /// Parameter values used for symbolic extents.
    pub params: BTreeMap<String, i64>,
    /// The form the verifier and the timeline run (`Options::form`).
    pub form: Form,
    /// `Options::verify`.
    pub verify: bool,
    /// `Options::timeline_window`, when `Options::timeline`.
    pub timeline_window: Option<(u64, u64)>,
}

impl Programs {
    /// The pipelined program in the form the verifier and the timeline run (`explore` always
    /// builds it).
    pub fn pipelined(&self) -> Option<&Program> {
        match self.form {
            Form::Rolled => Some(&self.rolled),
            Form::Peeled => self.peeled.as_ref(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatementInfo {
    pub id: StmtId,
    pub span: Span,
    pub text: String,
    /// Position of its unit in the pipelined loop (units are statements or inner loops).
    pub unit: Option<usize>,
    pub stage: Option<i64>,
    pub order: Option<i64>,
    pub is_async: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnnotationInfo {
    pub loop_var: String,
    pub key: String,
    pub value: String,
    /// Keys Stagecraft does not interpret are kept and shown.
    pub known: bool,
    pub span: Span,
    pub value_span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PipelineInfo {
    pub loop_var: String,
    pub extent: Option<i64>,
    pub extent_text: String,
    pub stages: i64,
    pub async_stages: Vec<i64>,
    pub units: Vec<UnitInfo>,
    /// Nested loops pipelined first, by their variable.
    pub inner: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitInfo {
    pub pos: usize,
    pub label: String,
    pub span: Span,
    pub stmts: Vec<StmtId>,
    pub stage: i64,
    pub order: i64,
    pub is_async: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BufferInfo {
    pub id: BufId,
    pub name: String,
    pub scope: crate::ir::Scope,
    pub dtype: crate::ir::DType,
    /// Shape as declared (without the ring dimension); `None` for implicit globals.
    pub shape: Option<Vec<i64>>,
    pub versions: u32,
    pub reason: Option<String>,
    pub declared: bool,
}

pub fn explore(source: &str, options: &Options) -> Exploration {
    run(source, options, true)
}

/// The verification of an exploration made with `Options::defer_runs`: the interpreter runs the
/// source loop and the pipelined program and judges the waits, as `explore` does without deferral
/// (the same value). `None` when there is no program or `Options::verify` was off. The options
/// are those the exploration kept, so a later call cannot disagree with the rest of it.
pub fn verification(ex: &Exploration) -> Option<crate::verify::Verification> {
    let p = ex.programs.as_ref()?;
    let options = crate::verify::VerifyOptions {
        params: p.params.clone(),
        ..Default::default()
    };
    let pipelined = p.pipelined()?;
    p.verify
        .then(|| crate::verify::verify(&p.original, pipelined, &options))
}

/// The timeline of an exploration made with `Options::defer_runs`, simulated under the cost model
/// in effect (`Exploration::cost`) as `explore` does without deferral (the same value). `None` when
/// there is no program or `Options::timeline` was off.
pub fn timeline(ex: &Exploration) -> Option<crate::timeline::Timeline> {
    let p = ex.programs.as_ref()?;
    let window = p.timeline_window?;
    let model = ex.cost.as_ref()?;
    Some(crate::timeline::simulate(
        &p.original,
        p.pipelined()?,
        model,
        &p.params,
        window,
    ))
}

/// Parse + transform + waits only: the pipelined program is built (rolled form) but not printed,
/// and nothing is prepared for display: each wait instance has its count but not its reason (head
/// arithmetic, needs served, groups forced and left in flight). What the speed budget against
/// TVM's pass measures.
pub fn transform(source: &str, options: &Options) -> Exploration {
    run(source, options, false)
}

fn run(source: &str, options: &Options, present: bool) -> Exploration {
    let mut unlisted = 0;
    let mut ex = run_phases(source, options, present, &mut unlisted);
    // Problems in text order, errors first at one place, whichever phase found them.
    ex.diagnostics
        .sort_by_key(|d| (d.span.start, d.severity != Severity::Error));
    leave_out_past_the_limit(&mut ex.diagnostics, unlisted);
    ex
}

/// Every phase in turn; one that finds an error ends the exploration there. `unlisted` counts the
/// problems the lexer and parser found past those they keep.
fn run_phases(source: &str, options: &Options, present: bool, unlisted: &mut usize) -> Exploration {
    let mut ex = Exploration {
        tokens: if present {
            highlight_tokens(source)
        } else {
            Vec::new()
        },
        ..Exploration::default()
    };
    let parsed = parser::parse(source);
    ex.diagnostics.extend(parsed.diagnostics);
    *unlisted = parsed.unlisted;
    let lowered = lower(&parsed.file);
    let crate::lower::Lowered {
        mut program,
        annotations,
        diagnostics,
        stmt_spans,
    } = lowered;
    ex.diagnostics.extend(diagnostics);
    if present {
        ex.annotations = annotations
            .iter()
            .map(|a| AnnotationInfo {
                loop_var: a.var.to_string(),
                key: a.key.to_string(),
                value: written(source, a.value_span),
                known: schedule::is_known_key(&a.key),
                span: a.span,
                value_span: a.value_span,
            })
            .collect();
        ex.statements = stmt_spans
            .iter()
            .enumerate()
            .map(|(id, span)| StatementInfo {
                id: id as StmtId,
                span: *span,
                text: source
                    .get(span.start as usize..span.end as usize)
                    .unwrap_or("")
                    .trim()
                    .to_string(),
                unit: None,
                stage: None,
                order: None,
                is_async: false,
            })
            .collect();
        ex.buffers = buffer_infos(&program, &[]);
    }
    if ex.diagnostics.iter().any(Diagnostic::is_error) {
        return ex;
    }
    let mut top = None;
    for (i, n) in program.body.iter().enumerate() {
        if !matches!(n, Node::For { .. }) {
            ex.diagnostics.push(
                Diagnostic::error(
                    schedule::node_span(n),
                    "statements outside the loop are not part of the pipeline",
                )
                .with_hint("move it into the loop, or delete it"),
            );
        } else if top.is_some() {
            ex.diagnostics.push(
                Diagnostic::error(
                    schedule::node_span(n),
                    "Stagecraft pipelines one loop at a time; this is a second top-level loop",
                )
                .with_hint("nest it inside the first loop, or explore it separately"),
            );
        } else {
            top = Some(i);
        }
    }
    let Some(top) = top else {
        ex.diagnostics.push(
            Diagnostic::error(Span::new(0, 0), "there is no loop to pipeline")
                .with_hint("write `for i in range(16):` followed by indented statements"),
        );
        return ex;
    };
    if ex.diagnostics.iter().any(Diagnostic::is_error) {
        return ex;
    }
    // The source loop, for the interpreter, timeline and emitters (display only).
    let original = present.then(|| program.clone());
    // Inner loops with their own annotations are pipelined first, as TVM does.
    let mut inner_names = Vec::new();
    let mut inner_versions = Vec::new();
    let has_inner_pipeline = matches!(program.body.get(top), Some(Node::For { body, .. })
        if body.iter().any(|n| matches!(n, Node::For { var, .. } if has_stage_annotation(&program, *var, &annotations))));
    // The loop's statements are taken out while the inner pipelines rewrite them, and put back.
    let outer = match program.body.get_mut(top) {
        Some(Node::For { body, var, .. }) if has_inner_pipeline => {
            Some((std::mem::take(body), *var))
        }
        _ => None,
    };
    if let Some((body, outer_var)) = outer {
        let outer_name = program.var_name(outer_var).to_string();
        let outer_has_async = annotations.iter().any(|a| {
            a.var == outer_name
                && a.key == schedule::ASYNC_KEY
                && a.values.as_ref().is_some_and(|v| !v.is_empty())
        });
        let mut new_body = Vec::with_capacity(body.len());
        for n in body {
            match n {
                Node::For {
                    var,
                    lo,
                    hi,
                    body: inner_body,
                    span,
                } if has_stage_annotation(&program, var, &annotations) => {
                    let mut diags = Vec::new();
                    let Some(sched) = schedule::schedule_loop(
                        &program,
                        source,
                        var,
                        &lo,
                        &hi,
                        inner_body,
                        span,
                        &annotations,
                        &mut diags,
                    ) else {
                        ex.diagnostics.extend(diags);
                        return ex;
                    };
                    let Some((p, s)) = pipeline_and_sync(&program, sched, &mut diags, present)
                    else {
                        ex.diagnostics.extend(diags);
                        return ex;
                    };
                    ex.diagnostics.extend(diags);
                    if !s.groups.is_empty() {
                        ex.notes.push(format!(
                            "the inner loop over `{}` has async stages: its queues are drained inside each outer iteration",
                            program.var_name(var)
                        ));
                    }
                    if !s.groups.is_empty() && outer_has_async {
                        ex.diagnostics.push(
                            Diagnostic::error(span, "both this inner loop and the outer loop have async stages; Stagecraft does not nest asynchronous pipelines yet")
                                .with_hint("keep the async stages on one of the two loops"),
                        );
                        return ex;
                    }
                    // The program around the inner loop: the builder replaces the loop (found by
                    // its span) with the pipeline's sections, which it builds from the schedule's
                    // units, so the loop's own body is not needed.
                    let around = Program {
                        buffers: std::mem::take(&mut program.buffers),
                        vars: program.vars.clone(),
                        body: vec![Node::For {
                            var,
                            lo,
                            hi,
                            body: Vec::new(),
                            span,
                        }],
                    };
                    let mut built = pipelined::build(&around, &p, &s, Form::Peeled);
                    // The inner pipeline is one statement of the outer one: it must leave nothing
                    // in flight behind it.
                    let undrained: Vec<i64> = s
                        .undrained
                        .iter()
                        .copied()
                        .filter(|q| !s.drains.iter().any(|d| d.1 == *q))
                        .collect();
                    if let Some(Node::Section { body, .. }) =
                        built.body.iter_mut().rev().find(|n| {
                            matches!(
                                n,
                                Node::Section {
                                    kind: crate::ir::SectionKind::Epilogue,
                                    ..
                                }
                            )
                        })
                    {
                        for q in undrained {
                            body.push(Node::Wait {
                                queue: q,
                                count: crate::ir::IExpr::Const(0),
                                body: Vec::new(),
                                wait: None,
                                span,
                            });
                        }
                    }
                    program.buffers = std::mem::take(&mut built.buffers);
                    inner_versions.extend(p.versions.iter().cloned());
                    inner_names.push(program.var_name(var).to_string());
                    new_body.extend(built.body.into_iter().map(|sec| match sec {
                        Node::Section { body, .. } if body.len() == 1 => {
                            body.into_iter().next().unwrap_or(Node::Section {
                                kind: crate::ir::SectionKind::Body,
                                body: Vec::new(),
                                steps: None,
                            })
                        }
                        other => other,
                    }));
                }
                other => new_body.push(other),
            }
        }
        if let Some(Node::For { body, .. }) = program.body.get_mut(top) {
            *body = new_body;
        }
    }

    // The loop's statements move into the schedule's units: the pipelined programs are built
    // from those, and everything that shows the source loop took its copy above.
    let Some(Node::For {
        var,
        lo,
        hi,
        body,
        span,
    }) = program.body.get_mut(top)
    else {
        return ex;
    };
    let (var, lo, hi, span) = (*var, lo.clone(), hi.clone(), *span);
    let body = std::mem::take(body);
    let mut diags = Vec::new();
    let sched = schedule::schedule_loop(
        &program,
        source,
        var,
        &lo,
        &hi,
        body,
        span,
        &annotations,
        &mut diags,
    );
    let Some(sched) = sched else {
        ex.diagnostics.extend(diags);
        return ex;
    };
    fill_statement_info(&mut ex.statements, &sched);
    let info = present.then(|| pipeline_info(&program, &sched, inner_names));
    let Some((p, s)) = pipeline_and_sync(&program, sched, &mut diags, present) else {
        ex.diagnostics.extend(diags);
        ex.pipeline = info;
        return ex;
    };
    ex.diagnostics.extend(diags);
    if !p.sched.annotated {
        ex.notes.push(format!(
            "the loop over `{}` has no \"{STAGE_KEY}\" annotation, so it runs unpipelined (every statement in stage 0)",
            program.var_name(var)
        ));
    }
    let mut all_versions = inner_versions;
    all_versions.extend(p.versions.iter().cloned());
    let rolled = pipelined::build(&program, &p, &s, Form::Rolled);
    if !present {
        ex.groups = s.groups;
        ex.needs = s.needs;
        ex.waits = s.sites;
        ex.ok = true;
        return ex;
    }
    let Some(original) = original else {
        return ex;
    };
    let printed = |form: Form| options.both_forms || options.form == form;
    // The peeled program writes every prologue and epilogue step out: building it was a third of
    // what the app's program pane explores (rolled form) of a 160-statement, 64-stage loop.
    let peeled = (printed(Form::Peeled) || options.peeled_program || !options.targets.is_empty())
        .then(|| pipelined::build(&program, &p, &s, Form::Peeled));
    ex.buffers = buffer_infos(&rolled, &all_versions);
    let mut params = BTreeMap::new();
    for (_, v) in original.params() {
        let value = options
            .params
            .get(v.name.as_str())
            .copied()
            .unwrap_or(limits::DEFAULT_SYMBOLIC_EXTENT);
        params.insert(v.name.to_string(), value);
    }
    let concrete_extent = p.sched.extent.as_const().unwrap_or_else(|| {
        let env = program.env(&params);
        match &p.sched.extent {
            schedule::Extent::Symbolic(e) => {
                e.eval(&env).unwrap_or(limits::DEFAULT_SYMBOLIC_EXTENT)
            }
            schedule::Extent::Const(e) => *e,
        }
    });
    ex.iteration_space = Some(pipeline::iteration_space(
        &p,
        concrete_extent,
        options.max_iteration_rows,
    ));
    ex.rolled = printed(Form::Rolled).then(|| tir::print(&rolled));
    ex.peeled = peeled
        .as_ref()
        .filter(|_| printed(Form::Peeled))
        .map(tir::print);
    ex.groups = s.groups.clone();
    ex.needs = s.needs.clone();
    ex.waits = s.sites.clone();
    ex.pipeline = info;
    ex.ok = true;
    if options.timeline {
        let mut model = options.cost.clone();
        let unit_stmts: Vec<Vec<StmtId>> = p.sched.units.iter().map(|u| u.stmts.clone()).collect();
        let mut assigns: BTreeMap<StmtId, crate::ir::Assign> = BTreeMap::new();
        crate::ir::for_each_assign(&original.body, &mut |a| {
            assigns.insert(a.stmt, a.clone());
        });
        let base = model.clone();
        let defaults = |id: StmtId| {
            assigns.get(&id).map_or(
                crate::cost::Cost {
                    issue: 1,
                    latency: 0,
                },
                |a| base.cost(&original, a),
            )
        };
        let mut cost_diags = Vec::new();
        ex.unit_annotated_costs = model.apply_annotations(
            &annotations,
            program.var_name(p.sched.var),
            &unit_stmts,
            &defaults,
            &mut cost_diags,
        );
        ex.diagnostics.extend(cost_diags);
        ex.unit_costs = p
            .sched
            .units
            .iter()
            .map(|u| {
                u.stmts.first().and_then(|s| assigns.get(s)).map_or(
                    crate::cost::Cost {
                        issue: 1,
                        latency: 0,
                    },
                    |a| model.cost(&original, a),
                )
            })
            .collect();
        ex.cost = Some(model);
    }
    if let Some(peeled) = peeled.as_ref().filter(|_| !options.targets.is_empty()) {
        let opts = crate::emit::EmitOptions::default();
        ex.code = options
            .targets
            .iter()
            .map(|t| crate::emit::emit(peeled, &params, *t, &opts))
            .collect();
    }
    ex.programs = Some(Programs {
        original,
        rolled,
        peeled,
        params,
        form: options.form,
        verify: options.verify,
        timeline_window: options.timeline.then_some(options.timeline_window),
    });
    if !options.defer_runs {
        ex.verification = verification(&ex);
        ex.timeline = timeline(&ex);
    }
    ex
}

/// Keeps the first `limits::MAX_DIAGNOSTICS` problems and says how many more there are, where the
/// first of those is: the rest are almost always the same mistake repeated. `unlisted` were found
/// past what the lexer and parser keep (all errors, and after those kept).
fn leave_out_past_the_limit(diagnostics: &mut Vec<Diagnostic>, unlisted: usize) {
    let Some(first_left_out) = diagnostics.get(limits::MAX_DIAGNOSTICS) else {
        return;
    };
    let span = first_left_out.span;
    let left_out = diagnostics.split_off(limits::MAX_DIAGNOSTICS);
    let errors = left_out.iter().filter(|d| d.is_error()).count() + unlisted;
    let count = left_out.len() + unlisted;
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    let kinds = match errors {
        0 => String::new(),
        n if n == count => format!(" ({})", plural(n, "an error", "all errors")),
        n => format!(" ({n} of them {})", plural(n, "an error", "errors")),
    };
    let message = format!(
        "{count} more {} from here on {} not listed{kinds}: Stagecraft lists the first {}",
        plural(count, "problem", "problems"),
        plural(count, "is", "are"),
        limits::MAX_DIAGNOSTICS,
    );
    let hint = "fix the ones above first: the rest are often the same mistake";
    diagnostics.push(if errors > 0 {
        Diagnostic::error(span, message).with_hint(hint)
    } else {
        Diagnostic::warning(span, message).with_hint(hint)
    });
}

/// Text as the user wrote it, on one line (an annotation's value may span lines).
fn written(source: &str, span: Span) -> String {
    let text = source
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn has_stage_annotation(program: &Program, var: u32, annotations: &[Annotation]) -> bool {
    let name = program.var_name(var);
    annotations
        .iter()
        .any(|a| a.var == name && a.key == STAGE_KEY)
}

fn pipeline_and_sync<'s>(
    program: &Program,
    sched: LoopSchedule<'s>,
    diags: &mut Vec<Diagnostic>,
    explain: bool,
) -> Option<(Pipeline<'s>, Sync)> {
    let p = pipeline::build(program, sched, diags, explain)?;
    let s = sync::derive(program, &p, diags, explain)?;
    Some((p, s))
}

fn fill_statement_info(statements: &mut [StatementInfo], sched: &LoopSchedule) {
    for u in &sched.units {
        for id in &u.stmts {
            if let Some(s) = statements.get_mut(*id as usize) {
                s.unit = Some(u.pos);
                s.stage = Some(u.stage);
                s.order = Some(u.order);
                s.is_async = u.is_async;
            }
        }
    }
}

fn pipeline_info(program: &Program, sched: &LoopSchedule, inner: Vec<String>) -> PipelineInfo {
    let (extent, extent_text) = match &sched.extent {
        schedule::Extent::Const(e) => (Some(*e), e.to_string()),
        schedule::Extent::Symbolic(e) => (
            None,
            crate::printer::print_expr(&tir::index_expr(program, e)),
        ),
    };
    PipelineInfo {
        loop_var: program.var_name(sched.var).to_string(),
        extent,
        extent_text,
        stages: sched.max_stage,
        async_stages: sched.async_stages.clone(),
        units: sched
            .units
            .iter()
            .map(|u| UnitInfo {
                pos: u.pos,
                label: sched.label(u.pos).to_string(),
                span: u.span,
                stmts: u.stmts.clone(),
                stage: u.stage,
                order: u.order,
                is_async: u.is_async,
            })
            .collect(),
        inner,
    }
}

fn buffer_infos(
    program: &Program,
    versions: &[crate::versions::VersionDecision],
) -> Vec<BufferInfo> {
    program
        .buffers
        .iter()
        .enumerate()
        .map(|(id, b)| {
            let reasons: Vec<String> = versions
                .iter()
                .filter(|v| v.buffer as usize == id)
                .map(|v| v.reason.clone())
                .collect();
            let shape = b.shape.as_ref().map(|s| {
                if b.versions > 1 {
                    s.iter().skip(1).copied().collect()
                } else {
                    s.clone()
                }
            });
            BufferInfo {
                id: id as BufId,
                name: b.name.to_string(),
                scope: b.scope,
                dtype: b.dtype,
                shape,
                versions: b.versions,
                reason: if reasons.is_empty() {
                    None
                } else {
                    Some(reasons.join("; then "))
                },
                declared: b.declared,
            }
        })
        .collect()
}
