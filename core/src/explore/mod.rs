//! The one entry point: source text in, everything Stagecraft shows out. The app renders this value
//! and never re-derives anything; the CLI prints parts of it. With `Options::defer_runs` the
//! verification and the timeline are left for `verification` and `timeline`, which compute them
//! from the exploration later (the worker answers with the program first). JSON shape:
//! docs/json.md. The phases that make an exploration are in `phases.rs`.

mod check_view;
mod counts;
mod listing;
mod phases;
mod program_view;
mod search_inputs;

use crate::diagnostic::{Diagnostic, Severity, Span};
use crate::ir::{BufId, Program, StmtId};
use crate::lexer::Token;
use crate::limits;
use crate::pipelined::Form;
use crate::shape::IterationSpace;
use crate::sync::{Group, Need, WaitSite};
use crate::tir::Printed;
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
    /// writes every prologue and epilogue step out: a large loop's is long, docs/benchmarks.md).
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
    /// (docs/benchmarks.md): the worker answers with the program first and with each of them as
    /// an answer of its own (`session`).
    pub defer_runs: bool,
    /// Build the peeled program even when it is neither printed nor emitted (it is then in
    /// `programs`). [`Options::without_code`] sets it.
    pub peeled_program: bool,
    /// Wait counts changed by hand: each applied to the pipelined program itself, so the printed
    /// program, the verification, the timeline and the emitted code all run the changed counts.
    /// One whose wait no longer exists (the text changed) is dropped with a note.
    pub count_overrides: Vec<CountOverride>,
    /// Print the loop as a TVM 0.27 PrimFunc into `Exploration::tvmscript` (`--emit tvmscript`).
    /// Off by default: the page does not show it, and it is work on every keystroke.
    pub tvmscript: bool,
}

/// A wait, named so that the same text explored again finds it again: its queue, its section and
/// its consumer's statement as written (not its line, so an edit elsewhere keeps it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitKey {
    pub queue: i64,
    pub section: crate::ir::SectionKind,
    /// The consumer's first line as written, whitespace collapsed; `None` for the final drain.
    pub before: Option<String>,
    /// Among the waits of this queue and section before consumers written alike, which one.
    #[serde(default)]
    pub occurrence: u32,
}

/// A wait's count moved by `delta` from the derived one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountOverride {
    pub wait: WaitKey,
    pub delta: i64,
}

/// Per wait site: the count derived and the count the program runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitCount {
    /// The site's id (`WaitSite::id`, a printed line's `wait`).
    pub wait: u32,
    pub key: WaitKey,
    /// The body's count, or the smallest of the site's per-step counts.
    pub derived: i64,
    pub in_effect: i64,
}

impl Options {
    /// These options without machine code, but with everything emitting would have been given
    /// (the peeled program) built all the same: exploring as for a code target, without the
    /// emitting.
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
            count_overrides: Vec::new(),
            tvmscript: false,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Exploration {
    /// The language the source is written in (the header says which).
    #[serde(default)]
    pub dialect: crate::tvmscript::Dialect,
    /// The loop as a TVMScript PrimFunc TVM 0.27 parses and pipelines ("Export → TVMScript",
    /// `--emit tvmscript`); `None` when the text has errors or no TVMScript form.
    #[serde(default)]
    pub tvmscript: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// Highlighting tokens of the source (the worker does not send them: the page lexes the text
    /// it shows itself, `lexer::highlight_tokens`).
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
    /// Machine code per target, from the peeled program. The page is sent each kernel drawn
    /// instead (`protocol::Part::Code`), never this.
    #[serde(skip_deserializing, skip_serializing_if = "crate::wire::json_only")]
    pub code: Vec<crate::emit::Emitted>,
    /// The cost model in effect (defaults, options and source annotations combined).
    pub cost: Option<crate::cost::CostModel>,
    /// Cost in effect for each unit of the pipelined loop (its first statement), for editing.
    pub unit_costs: Vec<crate::cost::Cost>,
    /// Per unit (as `unit_costs`), the values the source's cost annotations set; the rest are defaults.
    pub unit_annotated_costs: Vec<crate::cost::AnnotatedCost>,
    pub notes: Vec<String>,
    /// Per wait site (in `waits` order), its derived count and the count in effect.
    pub counts: Vec<WaitCount>,
    /// Some wait count was changed by hand (`Options::count_overrides`): the programs shown and
    /// run are not the derived ones.
    pub counts_by_hand: bool,
    /// The value each symbolic extent was explored with (the options', else
    /// `limits::DEFAULT_SYMBOLIC_EXTENT`): the page's parameter fields.
    #[serde(default, skip_serializing_if = "crate::wire::omit_empty_map")]
    pub params: BTreeMap<String, i64>,
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
    /// What the peeled program is built from, kept while it is not built (`build_peeled`).
    pub peeled_recipe: Option<PeeledRecipe>,
}

/// The pipelined loop before it is written out in a form, with the counts set by hand: what
/// [`build_peeled`] builds the peeled program from when it was not built while exploring (the
/// worker explores without it, and builds it when code or the peeled token form is asked for).
#[derive(Clone, Debug)]
pub struct PeeledRecipe(std::sync::Arc<phases::Recipe>);

impl PartialEq for PeeledRecipe {
    /// Recipes are never compared for their contents: two explorations of the same text are equal
    /// when what they show is.
    fn eq(&self, _: &Self) -> bool {
        true
    }
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

impl Exploration {
    /// Each statement's text, by statement id: how the timeline's chart names its bars.
    pub fn statement_texts(&self) -> Vec<&str> {
        self.statements.iter().map(|s| s.text.as_str()).collect()
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
    /// The `annotations={…}` dictionary the annotation is an entry of (TVMScript; `span` is then
    /// the entry, key to value); `None` for a `sch.annotate(…)` call (`span` the call).
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub dict: Option<Span>,
    /// How a TileLang kernel gives the annotation; `None` in the other dialects.
    #[serde(default)]
    pub tilelang: Option<TileLangArgument>,
}

/// How a TileLang kernel gives one annotation of its `T.Pipelined` loop: an edit of the schedule
/// rewrites the kernel's own arguments, never `sch.annotate` lines a kernel cannot have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TileLangArgument {
    /// Planned from the `num_stages` argument (the annotation's `span`).
    Planned,
    /// The written `stage=` or `order=` list (`value_span`).
    Written,
    /// Not written at all: TileLang makes a stage's global-to-shared copies asynchronous.
    Derived,
}

impl TileLangArgument {
    /// How the TileLang kernel `source` gives annotation `key`, which its reader located at `span`:
    /// at the `num_stages` argument when planned, at the written list otherwise
    /// (`tilelang::schedule`).
    pub fn of(source: &str, key: &str, span: Span) -> TileLangArgument {
        let at = source
            .get(span.start as usize..span.end as usize)
            .unwrap_or("");
        if key == crate::schedule::ASYNC_KEY {
            TileLangArgument::Derived
        } else if at.trim_start().starts_with('[') {
            TileLangArgument::Written
        } else {
            TileLangArgument::Planned
        }
    }
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
    /// The part of an inner loop pipelined first that this unit is (RFC 0077's example (e)).
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub inner: Option<InnerPart>,
}

/// A section of an inner loop pipelined first, which is a unit of the outer pipeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InnerPart {
    /// The inner loop's header as written and its line: `` `for k1 in range(4):` (line 15)``.
    pub header: String,
    pub section: crate::ir::SectionKind,
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

impl Exploration {
    /// The pipelined program in the form asked (`peeled`). The page asks for the form it shows
    /// alone, so right after the form is switched the exploration has only the other one: that
    /// one stays shown until the exploration that prints the new form arrives, instead of a
    /// blank pane.
    pub fn printed(&self, peeled: bool) -> Option<&Printed> {
        let (shown, other) = if peeled {
            (&self.peeled, &self.rolled)
        } else {
            (&self.rolled, &self.peeled)
        };
        shown.as_ref().or(other.as_ref())
    }
}

pub fn explore(source: &str, options: &Options) -> Exploration {
    run(source, options, true)
}

/// The verification of an exploration made with `Options::defer_runs`: the interpreter runs the
/// source loop and the pipelined program and judges the waits (a symbolic extent at several N,
/// `verify_extents`), as `explore` does without deferral
/// (the same value). `None` when there is no program or `Options::verify` was off. The options
/// are those the exploration kept, so a later call cannot disagree with the rest of it.
pub fn verification(ex: &Exploration) -> Option<crate::verify::Verification> {
    let p = ex.programs.as_ref()?;
    let pipelined = p.pipelined()?;
    let options = crate::verify::VerifyOptions {
        params: p.params.clone(),
        ..Default::default()
    };
    // A symbolic extent is judged at every short N and a large one (verify_extents).
    let stages = ex.pipeline.as_ref().map_or(1, |i| i.stages + 1);
    p.verify
        .then(|| crate::verify_extents::verify_extents(&p.original, pipelined, &options, stages))
}

/// The timeline of an exploration made with `Options::defer_runs`, simulated under the cost model
/// in effect (`Exploration::cost`) as `explore` does without deferral (the same value). `None` when
/// there is no program or `Options::timeline` was off.
pub fn timeline(ex: &Exploration) -> Option<crate::timeline::Timeline> {
    let p = ex.programs.as_ref()?;
    Some(crate::timeline::simulate(
        &p.original,
        p.pipelined()?,
        ex.cost.as_ref()?,
        &p.params,
        p.timeline_window?,
    ))
}

/// The step-through of an exploration's pipelined program, in the form the verifier and the
/// timeline run, under the completion model `options` asks for (`steps`). Empty, with a note,
/// when the text produced no program.
pub fn step_through(
    ex: &Exploration,
    options: &crate::steps::StepOptions,
) -> crate::steps::StepThrough {
    let Some((p, program)) = ex.programs.as_ref().and_then(|p| Some((p, p.pipelined()?))) else {
        return crate::steps::StepThrough::nothing(
            "There is no pipelined program to step through yet.",
        );
    };
    let source = crate::steps::Source {
        program,
        printed: traced_printed(ex),
        cost: ex.cost.as_ref(),
        params: &p.params,
        // Named as the verifier names them, so that its race and the step-through's are one.
        statements: crate::tir::statement_texts(&p.original),
    };
    crate::steps::step_through(&source, options)
}

/// The printed form of the program `step_through` runs: the lines its steps name.
pub fn traced_printed(ex: &Exploration) -> Option<&crate::tir::Printed> {
    match ex.programs.as_ref()?.form {
        Form::Rolled => ex.rolled.as_ref(),
        Form::Peeled => ex.peeled.as_ref(),
    }
}

/// Builds `ex`'s peeled program if exploring did not (`Options::peeled_program`, `targets`,
/// `both_forms`): what emitting code and the peeled token form need. Whether it is there now.
pub fn build_peeled(ex: &mut Exploration) -> bool {
    let Some(p) = ex.programs.as_mut() else {
        return false;
    };
    if p.peeled.is_none() {
        if let Some(recipe) = p.peeled_recipe.take() {
            p.peeled = Some(recipe.0.build());
        }
    }
    p.peeled.is_some()
}

/// The kernel of `ex`'s peeled program for `target` (built first if exploring did not,
/// [`build_peeled`]). `None` when there is no program.
pub fn code(ex: &mut Exploration, target: crate::emit::Target) -> Option<crate::emit::Emitted> {
    if !build_peeled(ex) {
        return None;
    }
    let p = ex.programs.as_ref()?;
    let peeled = p.peeled.as_ref()?;
    Some(crate::emit::emit(
        peeled,
        &p.params,
        target,
        &crate::emit::EmitOptions::default(),
    ))
}

/// The machine-level check of the kernel an exploration emitted for `target` (it must be among
/// `Options::targets`), with [`MachineReport::covering`] added for the page. `max_instructions`
/// caps the execution below [`limits::MAX_MACHINE_INSTRUCTIONS`] where a caller wants a tighter
/// bound: beyond it the check says "not executed" and why. `None` when the exploration has no
/// peeled program or did not emit `target`.
pub fn machine_check(
    ex: &Exploration,
    target: crate::emit::Target,
    max_instructions: u64,
) -> Option<MachineReport> {
    let p = ex.programs.as_ref()?;
    let peeled = p.peeled.as_ref()?;
    let emitted = ex.code.iter().find(|c| c.target == target.name())?;
    if emitted.error.is_some() {
        return None;
    }
    let lanes = emitted.lanes;
    let wave = crate::machine::wave_of(target);
    let check = match crate::machine::Contract::new(&p.original, peeled, &p.params, lanes, wave) {
        Ok(mut contract) => {
            contract.max_instructions = contract.max_instructions.min(max_instructions);
            crate::machine::check_with(&contract, &emitted.text, target)
        }
        Err(why) => crate::machine::MachineCheck {
            target: target.name().into(),
            verdict: crate::machine::MachineVerdict::NotExecuted,
            summary: format!("not executed: {why}"),
            races: Vec::new(),
            unawaited: Vec::new(),
            problems: Vec::new(),
            differences: Vec::new(),
            instructions: 0,
            compared: 0,
            approximate: false,
        },
    };
    let covering = check
        .races
        .iter()
        .map(|r| covering_wait(&emitted.waits, r.line))
        .collect();
    Some(MachineReport { check, covering })
}

/// The kernel's last wait at or before `line`, in text order: the wait a race at `line` got
/// past (an index into `Emitted::waits`).
fn covering_wait(waits: &[crate::emit::EmittedWait], line: u32) -> Option<usize> {
    waits
        .iter()
        .enumerate()
        .filter(|(_, w)| w.line <= line)
        .max_by_key(|(_, w)| w.line)
        .map(|(k, _)| k)
}

/// A machine-level check as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineReport {
    pub check: crate::machine::MachineCheck,
    /// Per race (in `check.races` order), the kernel wait it got past, as an index into the
    /// emitted kernel's `waits` — whose `ir` names the pipelined program's waits that produced
    /// it. `None` when no wait precedes the racing line.
    pub covering: Vec<Option<usize>>,
}

pub use check_view::{check_html, CHECK_INVITATION};
pub use listing::{
    kernel_html, kernel_listing, lines_html, tvmscript_listing, Listing, CHUNK_LINES,
};
pub use phases::ReadLoop;
pub use program_view::program_pane_html;
pub use search_inputs::{rolled, rolled_with, scheduled_loop, Rolled, ScheduledLoop, Unplaced};

/// Parse + transform + waits only: the pipelined program is built (rolled form) but not printed,
/// and nothing is prepared for display: each wait instance has its count but not its reason (head
/// arithmetic, needs served, groups forced and left in flight). What the speed budget against
/// TVM's pass measures.
pub fn transform(source: &str, options: &Options) -> Exploration {
    run(source, options, false)
}

fn run(source: &str, options: &Options, present: bool) -> Exploration {
    phases::run(source, options, present)
}

/// The exploration as shown: problems in text order, errors first at one place, whichever phase
/// found them, and those past the limit left out. `unlisted` were found past what the lexer and
/// parser keep.
fn tidy(mut ex: Exploration, unlisted: usize) -> Exploration {
    ex.diagnostics
        .sort_by_key(|d| (d.span.start, d.severity != Severity::Error));
    leave_out_past_the_limit(&mut ex.diagnostics, unlisted);
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

/// The token form of an exploration's pipelined program in `form` (`stagecraft::tokens`): line
/// for line the printed program of that form (`Exploration::rolled` / `peeled`), each commit a
/// token and each wait the tokens it completes, with the count translation beside it. `None` when
/// there is no program, or the peeled one was not built (`Options::both_forms`, `form`).
pub fn tokens(ex: &Exploration, form: Form) -> Option<crate::tokens::TokenForm> {
    let p = ex.programs.as_ref()?;
    let program = match form {
        Form::Rolled => Some(&p.rolled),
        Form::Peeled => p.peeled.as_ref(),
    }?;
    Some(crate::tokens::to_tokens(program, &p.params))
}

/// A pipelined program written by hand — in count form, in token form, or as TVM's output
/// printed by `stagecraft explore --as tvm-0.27` — checked against its loop.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PipelinedCheck {
    /// Problems of the loop's text (spans into it); nothing is checked when one is an error.
    pub loop_diagnostics: Vec<Diagnostic>,
    /// Problems of the pipelined text, misused tokens included (spans into it).
    pub diagnostics: Vec<Diagnostic>,
    /// The text is (at least partly) in token form and was translated to counts.
    pub token_form: bool,
    /// The verifier's judgement, spans into the pipelined text; `None` when either text has an
    /// error.
    pub verification: Option<crate::verify::Verification>,
}

/// Checks `pipelined` (count or token form) against the loop in `loop_source`, which needs no
/// schedule Stagecraft accepts: only the loop itself is run. `params` binds symbolic extents.
pub fn check_pipelined(
    loop_source: &str,
    pipelined: &str,
    params: &BTreeMap<String, i64>,
) -> PipelinedCheck {
    let (parsed, _) = crate::tvmscript::parse(loop_source);
    let lowered = crate::lower::lower(&parsed.file);
    let mut loop_diagnostics = parsed.diagnostics;
    loop_diagnostics.extend(lowered.diagnostics);
    if loop_diagnostics.iter().any(Diagnostic::is_error) {
        return PipelinedCheck {
            loop_diagnostics,
            diagnostics: Vec::new(),
            token_form: crate::tokens::is_token_form(pipelined),
            verification: None,
        };
    }
    PipelinedCheck {
        loop_diagnostics,
        ..check_pipelined_program(&lowered.program, params, pipelined)
    }
}

/// `check_pipelined` with the loop already lowered (the CLI's `check --pipelined`).
pub fn check_pipelined_program(
    original: &Program,
    params: &BTreeMap<String, i64>,
    pipelined: &str,
) -> PipelinedCheck {
    let options = crate::verify::VerifyOptions {
        params: params.clone(),
        ..Default::default()
    };
    // Without a schedule the stages are unknown: a symbolic extent is judged at N = 0 … 3 and a
    // large N.
    check_pipelined_program_with(original, pipelined, &options, 1)
}

/// `check_pipelined_program` verified with `options` (the CLI's `check --emit` verifies strictly,
/// as for a target: `VerifyOptions::immediate_counts`) for a loop of `stages` stages (the largest
/// stage + 1): a symbolic extent is judged at N = 0 … stages + 2 and a large N (`verify_extents`).
pub fn check_pipelined_program_with(
    original: &Program,
    pipelined: &str,
    options: &crate::verify::VerifyOptions,
    stages: i64,
) -> PipelinedCheck {
    let params = &options.params;
    let token_form = crate::tokens::is_token_form(pipelined);
    let (program, diagnostics) = if token_form {
        let t = crate::tokens::from_tokens(pipelined, params);
        (t.program, t.diagnostics)
    } else {
        let parsed = crate::parser::parse(pipelined);
        let lowered = crate::lower::lower(&parsed.file);
        let mut d = parsed.diagnostics;
        d.extend(lowered.diagnostics);
        (Some(lowered.program), d)
    };
    let verification = match program {
        Some(p) if !diagnostics.iter().any(Diagnostic::is_error) => Some(
            crate::verify_extents::verify_extents(original, &p, options, stages),
        ),
        _ => None,
    };
    PipelinedCheck {
        loop_diagnostics: Vec::new(),
        diagnostics,
        token_form,
        verification,
    }
}
