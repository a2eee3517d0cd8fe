//! How an exploration is made: each phase in turn (read, find the loop, pipeline the inner loops
//! then the top one, present, costs, emit), filling one `Exploration`; a phase that finds an error
//! ends it there.

use super::*;
use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{IExpr, IOp, Node, Program, StmtId};
use crate::lexer::highlight_tokens;
use crate::limits;
use crate::lower::{lower, Annotation};
use crate::pipelined::{self, Form};
use crate::schedule::{self, LoopSchedule, STAGE_KEY};
use crate::shape::{self, LoopShape};
use crate::sync::{self, SyncPlan};
use crate::tir;
use std::collections::BTreeMap;
use std::sync::Arc;

mod presented;
mod read_once;
use presented::{buffer_infos, fill_statement_info, loop_header, pipeline_info, written};
pub(super) use read_once::pipeline_quietly;
pub use read_once::{Barriers, ReadLoop};

/// Every phase in turn; one that finds an error ends the exploration there.
pub(super) fn run(source: &str, options: &Options, present: bool) -> Exploration {
    let mut explorer = Explorer::new(Arc::from(source), options, present);
    // The problems the lexer and parser found past those they keep.
    let mut unlisted = 0;
    // `None` is an exploration that ended early: what it holds so far is the answer.
    if explorer.phases(&mut unlisted).is_some() && present {
        explorer.emit();
    }
    tidy(explorer.ex, unlisted)
}

/// One exploration under way: what every phase reads (the source and the options), and the
/// exploration each fills in. A phase that finds an error returns `None`, and the exploration ends
/// with what it holds.
struct Explorer<'o> {
    /// Shared with the loop's schedule, which quotes it (`LoopSchedule::label`).
    source: Arc<str>,
    options: &'o Options,
    /// Prepare what is displayed (`explore`), or only transform (`transform`).
    present: bool,
    ex: Exploration,
    /// `Options::count_overrides` resolved to wait sites (site id, delta).
    count_deltas: Vec<(u32, i64)>,
}

/// The loop being pipelined and where it is: the top-level loop, after its inner pipelines.
struct TopLoop {
    /// Index of the loop in `program.body`.
    at: usize,
    /// Variables of the inner loops pipelined first, and their ring-buffer decisions.
    inner_names: Vec<String>,
    inner_versions: Vec<crate::versions::VersionDecision>,
    /// The units of the top loop that are sections of an inner loop: their position, and which.
    inner_parts: Vec<(usize, InnerPart)>,
    /// The same, for the schedule's messages.
    inner_sections: Vec<schedule::InnerSection>,
}

/// The rolled pipelined program and what it was made from.
pub(super) struct Pipeline {
    /// The program with the top loop's statements moved into its schedule's units.
    pub(super) program: Program,
    annotations: Vec<Annotation>,
    original: Option<Program>,
    top: TopLoop,
    pub(super) shape: LoopShape,
    pub(super) sync: SyncPlan,
    info: Option<PipelineInfo>,
    pub(super) rolled: Program,
}

impl<'o> Explorer<'o> {
    fn new(source: Arc<str>, options: &'o Options, present: bool) -> Explorer<'o> {
        Explorer {
            source,
            options,
            present,
            ex: Exploration::default(),
            count_deltas: Vec::new(),
        }
    }

    /// The phases that make the rolled pipelined program: read, the top loop, its inner
    /// pipelines, its own pipeline and waits (with the counts set by hand).
    fn pipeline(&mut self, unlisted: &mut usize) -> Option<Pipeline> {
        let (program, annotations) = self.read(unlisted)?;
        self.pipeline_read(program, annotations, Barriers::Placed)
    }

    /// The phases of `pipeline` after reading.
    fn pipeline_read(
        &mut self,
        mut program: Program,
        annotations: Vec<Annotation>,
        barriers: Barriers,
    ) -> Option<Pipeline> {
        let at = self.top_loop(&program)?;
        // The source loop, for the interpreter, timeline and emitters (display only).
        let original = self.present.then(|| program.clone());
        let top = self.pipeline_inner_loops(&mut program, at, &annotations)?;
        let (p, mut s, info) = self.pipeline_top_loop(&mut program, &top, &annotations)?;
        crate::by_extent::keep_mergeable_ranges(&program, &p, &mut s);
        if self.present {
            // Each wait's reason, written from the numbers the planner noted.
            s.explain(&p);
        }
        let resolved = counts::resolve(
            &s.sites,
            &counts::keys(&s.sites, &p.sched, &self.source),
            &self.options.count_overrides,
        );
        self.count_deltas = resolved.deltas;
        self.ex.counts_by_hand = !self.count_deltas.is_empty();
        self.ex.counts = resolved.counts;
        self.ex.notes.extend(resolved.notes);
        let mut rolled = match barriers {
            Barriers::Placed => pipelined::build(&program, &p, &s, Form::Rolled),
            Barriers::Deferred => pipelined::build_without_barriers(&program, &p, &s, Form::Rolled),
        };
        counts::apply(&mut rolled.body, &self.count_deltas);
        Some(Pipeline {
            program,
            annotations,
            original,
            top,
            shape: p,
            sync: s,
            info,
            rolled,
        })
    }

    /// The phases up to the programs in the exploration (emitting is `emit`'s).
    fn phases(&mut self, unlisted: &mut usize) -> Option<()> {
        let Pipeline {
            program,
            annotations,
            original,
            top,
            shape: p,
            sync: s,
            info,
            rolled,
        } = self.pipeline(unlisted)?;
        if !self.present {
            self.ex.groups = s.groups;
            self.ex.needs = s.needs;
            self.ex.waits = s.sites;
            self.ex.ok = true;
            return Some(());
        }
        let original = original?;
        let mut all_versions = top.inner_versions;
        all_versions.extend(p.versions.iter().cloned());
        let built = Built {
            program: &program,
            original: &original,
            shape: &p,
            sync: &s,
            annotations: &annotations,
        };
        let (peeled, params) = self.present(&built, &rolled, &all_versions, info);
        self.ex.params = params.clone();
        if self.options.timeline {
            self.costs(&built);
        }
        let peeled_recipe = peeled.is_none().then(|| {
            PeeledRecipe(Arc::new(Recipe {
                program: program.clone(),
                shape: p.clone(),
                sync: s.clone(),
                count_deltas: self.count_deltas.clone(),
            }))
        });
        self.ex.programs = Some(Programs {
            original,
            rolled,
            peeled,
            peeled_recipe,
            params,
            form: self.options.form,
            verify: self.options.verify,
            timeline_window: self
                .options
                .timeline
                .then_some(self.options.timeline_window),
        });
        if !self.options.defer_runs {
            self.ex.verification = verification(&self.ex);
            self.ex.timeline = timeline(&self.ex);
        }
        Some(())
    }

    /// Tokens, the syntax tree and the program with its annotations; the statements, annotations
    /// and buffers as written, when presenting. `None` after any error.
    fn read(&mut self, unlisted: &mut usize) -> Option<(Program, Vec<Annotation>)> {
        let (source, ex) = (&*self.source, &mut self.ex);
        if self.present {
            ex.tokens = highlight_tokens(source);
        }
        let (parsed, dialect, scopes) = crate::tvmscript::parse_with_scopes(source);
        ex.dialect = dialect;
        ex.diagnostics.extend(parsed.diagnostics);
        *unlisted = parsed.unlisted;
        let crate::lower::Lowered {
            program,
            annotations,
            diagnostics,
            stmt_spans,
        } = lower(&parsed.file);
        ex.diagnostics.extend(diagnostics);
        // After a syntax error a loop may be missing from the program: its annotations would
        // each say so again.
        if !ex.diagnostics.iter().any(Diagnostic::is_error) {
            ex.diagnostics
                .extend(schedule::annotations_of_no_loop(&program, &annotations));
        }
        ex.diagnostics.extend(schedule::unknown_keys(&annotations));
        ex.diagnostics.extend(schedule::repeated_keys(&annotations));
        if self.present
            && self.options.tvmscript
            && !ex.diagnostics.iter().any(Diagnostic::is_error)
        {
            ex.tvmscript = crate::tvmscript::print(&parsed.file).ok();
        }
        if self.present {
            ex.annotations = annotations
                .iter()
                .map(|a| AnnotationInfo {
                    loop_var: a.var.to_string(),
                    key: a.key.to_string(),
                    value: written(source, a.value_span),
                    known: schedule::is_known_key(&a.key),
                    span: a.span,
                    value_span: a.value_span,
                    dict: scopes.as_ref().and_then(|s| {
                        s.annotation_entries
                            .iter()
                            .find(|e| e.entry == a.span)
                            .map(|e| e.dict)
                    }),
                    tilelang: (dialect == crate::tvmscript::Dialect::TileLang)
                        .then(|| TileLangArgument::of(source, &a.key, a.span)),
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
        self.no_error()?;
        Some((program, annotations))
    }

    /// `None` once an error has been reported.
    fn no_error(&self) -> Option<()> {
        (!self.ex.diagnostics.iter().any(Diagnostic::is_error)).then_some(())
    }

    /// The index of the one top-level loop: anything else at the top level is an error.
    fn top_loop(&mut self, program: &Program) -> Option<usize> {
        let loop_at = program
            .body
            .iter()
            .position(|n| matches!(n, Node::For { .. }));
        let mut top = None;
        for (i, n) in program.body.iter().enumerate() {
            if !matches!(n, Node::For { .. }) {
                let hint = match loop_at.and_then(|at| program.body.get(at)) {
                    Some(Node::For { var, lo, hi, .. }) => {
                        let show =
                            |e: &IExpr| tir::print_index(program, &crate::simplify::simplify(e));
                        let (var, first) = (program.var_name(*var), show(lo));
                        let last = show(&IExpr::bin(IOp::Sub, hi.clone(), IExpr::Const(1)));
                        if loop_at.is_some_and(|at| i < at) {
                            format!("Stagecraft pipelines the loop alone: to run this first, put it at the top of the loop under `if {var} == {first}:`, or delete it")
                        } else {
                            format!("Stagecraft pipelines the loop alone: to run this last, put it at the end of the loop under `if {var} == {last}:`, or delete it")
                        }
                    }
                    _ => "move it into the loop, or delete it".to_string(),
                };
                self.ex.diagnostics.push(
                    Diagnostic::error(
                        schedule::node_span(n),
                        "statements outside the loop are not part of the pipeline",
                    )
                    .with_hint(hint),
                );
            } else if top.is_some() {
                self.ex.diagnostics.push(
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
            self.ex.diagnostics.push(
                Diagnostic::error(Span::new(0, 0), "there is no loop to pipeline")
                    .with_hint("write `for i in range(16):` followed by indented statements"),
            );
            return None;
        };
        self.no_error()?;
        Some(top)
    }

    /// Inner loops with their own annotations are pipelined first, as TVM does: each becomes its
    /// pipeline's sections, statements of the top loop.
    fn pipeline_inner_loops(
        &mut self,
        program: &mut Program,
        at: usize,
        annotations: &[Annotation],
    ) -> Option<TopLoop> {
        let mut top = TopLoop {
            at,
            inner_names: Vec::new(),
            inner_versions: Vec::new(),
            inner_parts: Vec::new(),
            inner_sections: Vec::new(),
        };
        let has_inner_pipeline = matches!(program.body.get(at), Some(Node::For { body, .. })
            if body.iter().any(|n| matches!(n, Node::For { var, .. } if has_stage_annotation(program, *var, annotations))));
        // The loop's statements are taken out while the inner pipelines rewrite them, and put back.
        let outer = match program.body.get_mut(at) {
            Some(Node::For { body, var, .. }) if has_inner_pipeline => {
                Some((std::mem::take(body), *var))
            }
            _ => None,
        };
        let Some((body, outer_var)) = outer else {
            return Some(top);
        };
        let new_body =
            self.pipeline_children(program, body, outer_var, annotations, &mut top, true)?;
        if let Some(Node::For { body, .. }) = program.body.get_mut(at) {
            *body = new_body;
        }
        Some(top)
    }

    /// The annotated loops among a loop's statements pipelined, each replaced by its sections;
    /// `at_top`: the loop is the top loop (whose sections the pipeline pane labels).
    fn pipeline_children(
        &mut self,
        program: &mut Program,
        body: Vec<Node>,
        outer_var: crate::ir::VarId,
        annotations: &[Annotation],
        top: &mut TopLoop,
        at_top: bool,
    ) -> Option<Vec<Node>> {
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
                } if has_stage_annotation(program, var, annotations) => {
                    let inner = InnerLoop {
                        var,
                        lo,
                        hi,
                        body: inner_body,
                        span,
                    };
                    let header = loop_header(&self.source, span);
                    let sections =
                        self.pipeline_inner(program, inner, annotations, outer_has_async, top)?;
                    for (kind, node) in sections {
                        if let (Some(section), true) = (kind, at_top) {
                            let part = InnerPart {
                                header: header.clone(),
                                section,
                            };
                            top.inner_parts.push((new_body.len(), part));
                            top.inner_sections.push(schedule::InnerSection {
                                pos: new_body.len(),
                                section,
                                inner_loop: span,
                            });
                        }
                        new_body.push(node);
                    }
                }
                other => new_body.push(other),
            }
        }
        Some(new_body)
    }

    /// One inner loop pipelined: the nodes that replace it in the top loop's body, each with the
    /// section of the inner pipeline it is.
    fn pipeline_inner(
        &mut self,
        program: &mut Program,
        inner: InnerLoop,
        annotations: &[Annotation],
        outer_has_async: bool,
        top: &mut TopLoop,
    ) -> Option<Vec<(Option<crate::ir::SectionKind>, Node)>> {
        let InnerLoop {
            var,
            lo,
            hi,
            body: inner_body,
            span,
        } = inner;
        // An inner loop with pipelined loops of its own (TVM's nested pipelines inside a thread
        // loop): those first, as for the top loop.
        let nested = inner_body.iter().any(
            |n| matches!(n, Node::For { var, .. } if has_stage_annotation(program, *var, annotations)),
        );
        let inner_body = if nested {
            self.pipeline_children(program, inner_body, var, annotations, top, false)?
        } else {
            inner_body
        };
        let mut diags = Vec::new();
        let Some(sched) = schedule::schedule_loop(
            schedule::LoopToSchedule {
                program,
                source: &self.source,
                annotations,
                var,
                lo: &lo,
                hi: &hi,
                span,
                inner: &[],
            },
            inner_body,
            &mut diags,
        ) else {
            self.ex.diagnostics.extend(diags);
            return None;
        };
        let Some((p, s)) = pipeline_and_sync(program, sched, &mut diags, self.present) else {
            self.ex.diagnostics.extend(diags);
            return None;
        };
        self.ex.diagnostics.extend(diags);
        if !s.groups.is_empty() {
            self.ex.notes.push(format!(
                "the inner loop over `{}` has async stages: its queues are drained inside each outer iteration",
                program.var_name(var)
            ));
        }
        if !s.groups.is_empty() && outer_has_async {
            self.ex.diagnostics.push(
                Diagnostic::error(span, "both this inner loop and the outer loop have async stages; Stagecraft does not nest asynchronous pipelines yet")
                    .with_hint("keep the async stages on one of the two loops"),
            );
            return None;
        }
        // The program around the inner loop: the builder replaces the loop (found by its span)
        // with the pipeline's sections, which it builds from the schedule's units, so the loop's
        // own body is not needed.
        let around = Program {
            threads: program.threads,
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
        drain_after_inner(&mut built, &s, span);
        program.buffers = std::mem::take(&mut built.buffers);
        top.inner_versions.extend(p.versions.iter().cloned());
        top.inner_names.push(program.var_name(var).to_string());
        Some(
            built
                .body
                .into_iter()
                .map(|sec| {
                    let kind = match &sec {
                        Node::Section { kind, .. } => Some(*kind),
                        _ => None,
                    };
                    (kind, sec)
                })
                .map(|(kind, sec)| {
                    (
                        kind,
                        match sec {
                            Node::Section { body, .. } if body.len() == 1 => {
                                body.into_iter().next().unwrap_or(Node::Section {
                                    kind: crate::ir::SectionKind::Body,
                                    body: Vec::new(),
                                    steps: None,
                                })
                            }
                            other => other,
                        },
                    )
                })
                .collect(),
        )
    }

    /// The top loop scheduled and pipelined, with its waits; what the pipeline pane shows of it
    /// when presenting (kept when the pipeline fails, to show where).
    fn pipeline_top_loop(
        &mut self,
        program: &mut Program,
        top: &TopLoop,
        annotations: &[Annotation],
    ) -> Option<(LoopShape, SyncPlan, Option<PipelineInfo>)> {
        // The loop's statements move into the schedule's units: the pipelined programs are built
        // from those, and everything that shows the source loop took its copy before.
        let Some(Node::For {
            var,
            lo,
            hi,
            body,
            span,
        }) = program.body.get_mut(top.at)
        else {
            return None;
        };
        let (var, lo, hi, span) = (*var, lo.clone(), hi.clone(), *span);
        let body = std::mem::take(body);
        let mut diags = Vec::new();
        let sched = schedule::schedule_loop(
            schedule::LoopToSchedule {
                program,
                source: &self.source,
                annotations,
                var,
                lo: &lo,
                hi: &hi,
                span,
                inner: &top.inner_sections,
            },
            body,
            &mut diags,
        );
        let Some(sched) = sched else {
            self.ex.diagnostics.extend(diags);
            return None;
        };
        fill_statement_info(&mut self.ex.statements, &sched);
        let info = self
            .present
            .then(|| pipeline_info(program, &sched, top.inner_names.clone(), &top.inner_parts));
        let Some((p, s)) = pipeline_and_sync(program, sched, &mut diags, self.present) else {
            self.ex.diagnostics.extend(diags);
            self.ex.pipeline = info;
            return None;
        };
        self.ex.diagnostics.extend(diags);
        if !p.sched.annotated {
            self.ex.notes.push(format!(
                "the loop over `{}` has no \"{STAGE_KEY}\" annotation, so it runs unpipelined (every statement in stage 0)",
                program.var_name(var)
            ));
        }
        Some((p, s, info))
    }

    /// Everything displayed of the pipelined loop: buffers, the iteration space, the printed
    /// forms, groups, needs and waits. Returns the peeled program when it is printed, emitted or
    /// asked for, and the values of the symbolic extents.
    fn present(
        &mut self,
        built: &Built,
        rolled: &Program,
        all_versions: &[crate::versions::VersionDecision],
        info: Option<PipelineInfo>,
    ) -> (Option<Program>, BTreeMap<String, i64>) {
        let (options, p, s) = (self.options, built.shape, built.sync);
        let printed = |form: Form| options.both_forms || options.form == form;
        // The peeled program writes every prologue and epilogue step out: built only when it is
        // printed, emitted or asked for, as it is a large part of exploring a large loop
        // (docs/benchmarks.md).
        let peeled = (printed(Form::Peeled)
            || options.peeled_program
            || !options.targets.is_empty())
        .then(|| {
            let mut peeled = pipelined::build(built.program, p, s, Form::Peeled);
            counts::apply(&mut peeled.body, &self.count_deltas);
            peeled
        });
        self.ex.buffers = buffer_infos(rolled, all_versions);
        let mut params = BTreeMap::new();
        for (_, v) in built.original.params() {
            let value = options
                .params
                .get(v.name.as_str())
                .copied()
                .unwrap_or(limits::DEFAULT_SYMBOLIC_EXTENT);
            params.insert(v.name.to_string(), value);
        }
        let concrete_extent = p.sched.extent.as_const().unwrap_or_else(|| {
            let env = built.program.env(&params);
            match &p.sched.extent {
                schedule::Extent::Symbolic(e) => {
                    e.eval(&env).unwrap_or(limits::DEFAULT_SYMBOLIC_EXTENT)
                }
                schedule::Extent::Const(e) => *e,
            }
        });
        self.ex.iteration_space = Some(shape::iteration_space(
            p,
            concrete_extent,
            options.max_iteration_rows,
        ));
        self.ex.rolled = printed(Form::Rolled).then(|| tir::print(rolled));
        self.ex.peeled = peeled
            .as_ref()
            .filter(|_| printed(Form::Peeled))
            .map(tir::print);
        self.ex.groups = s.groups.clone();
        self.ex.needs = s.needs.clone();
        self.ex.waits = s.sites.clone();
        self.ex.pipeline = info;
        self.ex.ok = true;
        (peeled, params)
    }

    /// The cost model in effect (options, then the source's cost annotations) and each unit's
    /// cost under it, for the timeline and its editor.
    fn costs(&mut self, built: &Built) {
        let (p, original) = (built.shape, built.original);
        let mut model = self.options.cost.clone();
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
                |a| base.cost(original, a),
            )
        };
        let mut cost_diags = Vec::new();
        self.ex.unit_annotated_costs = model.apply_annotations(
            built.annotations,
            built.program.var_name(p.sched.var),
            &unit_stmts,
            &defaults,
            &mut cost_diags,
        );
        self.ex.diagnostics.extend(cost_diags);
        self.ex.unit_costs = p
            .sched
            .units
            .iter()
            .map(|u| {
                u.stmts.first().and_then(|s| assigns.get(s)).map_or(
                    crate::cost::Cost {
                        issue: 1,
                        latency: 0,
                    },
                    |a| model.cost(original, a),
                )
            })
            .collect();
        self.ex.cost = Some(model);
    }

    /// The machine code of the peeled program for every target asked for, once the programs are
    /// in the exploration.
    fn emit(&mut self) {
        let Some(p) = self.ex.programs.as_ref() else {
            return;
        };
        if let Some(peeled) = p.peeled.as_ref() {
            let opts = crate::emit::EmitOptions::default();
            self.ex.code = self
                .options
                .targets
                .iter()
                .map(|t| crate::emit::emit(peeled, &p.params, *t, &opts))
                .collect();
        }
    }
}

/// What the peeled program is built from (`PeeledRecipe`): the loop with its inner pipelines,
/// its shape and synchronization, and the counts set by hand.
#[derive(Debug)]
pub struct Recipe {
    program: Program,
    shape: LoopShape,
    sync: SyncPlan,
    count_deltas: Vec<(u32, i64)>,
}

impl Recipe {
    pub(super) fn build(&self) -> Program {
        let mut peeled = pipelined::build(&self.program, &self.shape, &self.sync, Form::Peeled);
        counts::apply(&mut peeled.body, &self.count_deltas);
        peeled
    }
}

/// An inner loop with its own stage annotation, taken out of the top loop's body.
struct InnerLoop {
    var: crate::ir::VarId,
    lo: crate::ir::IExpr,
    hi: crate::ir::IExpr,
    body: Vec<Node>,
    span: Span,
}

/// The pipelined top loop and what it was built from, for the phases that present it.
struct Built<'a> {
    program: &'a Program,
    original: &'a Program,
    shape: &'a LoopShape,
    sync: &'a SyncPlan,
    annotations: &'a [Annotation],
}

/// The inner pipeline is one statement of the outer one: it must leave nothing in flight behind
/// it, so its epilogue ends with a `wait(q, 0)` for every queue its own waits leave undrained.
fn drain_after_inner(built: &mut Program, s: &SyncPlan, span: Span) {
    let undrained: Vec<i64> = s
        .undrained
        .iter()
        .copied()
        .filter(|q| {
            // A drain that lets the last, empty groups stay in flight does not end the pipeline.
            !s.drains.iter().any(|d| {
                d.1 == *q
                    && s.sites
                        .get(d.0 as usize)
                        .and_then(|w| w.instances.first())
                        .is_none_or(|i| i.count == 0)
            })
        })
        .collect();
    if let Some(Node::Section { body, .. }) = built.body.iter_mut().rev().find(|n| {
        matches!(
            n,
            Node::Section {
                kind: crate::ir::SectionKind::Epilogue,
                ..
            }
        )
    }) {
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
}

fn has_stage_annotation(program: &Program, var: u32, annotations: &[Annotation]) -> bool {
    let name = program.var_name(var);
    annotations
        .iter()
        .any(|a| a.var == name && a.key == STAGE_KEY)
}

fn pipeline_and_sync(
    program: &Program,
    sched: LoopSchedule,
    diags: &mut Vec<Diagnostic>,
    explain: bool,
) -> Option<(LoopShape, SyncPlan)> {
    let p = shape::build(program, sched, diags, explain)?;
    let s = sync::derive(program, &p, diags, explain)?;
    Some((p, s))
}
