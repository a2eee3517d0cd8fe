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
//! Every annotated loop is pipelined wherever it is in the loop nest, the innermost first; a
//! nested pipeline's three sections are statements of the outer one, as in TVM's tests
//! (`nest.rs`). What TVM proves with its arithmetic analyzer over a section's loop variable is
//! decided here by trying every value of it at sampled values of the sizes the loop's bounds use:
//! every expression the pass asks about is linear in both (`linear.rs`).
//! `core/tests/tvm_goldens.rs` compares the result with TVM's real output on the schedules of
//! `tests/tvm/` (recorded by `scripts/tvm-goldens.py`), and `core/tests/tvm_suite.rs` on the inputs
//! of TVM's own tests (`tests/tvm_suite/`, `scripts/tvm-suite.py`), statement for statement, wait
//! for wait.

use crate::diagnostic::{Diagnostic, Span};
use crate::ir::Program;
use crate::lower::lower;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod blocks;
mod counts;
mod linear;
mod nest;
mod rewrite;
mod sections;
mod threads;
mod trace;
mod versions;
mod view;

pub use crate::tvmscript::ThreadBinding;
pub use trace::{trace, trace_threads};
pub use view::{tvm_view, TvmView};

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
    /// What TVM's message means, in plain words, where it does not say (`unordered_map::at`).
    #[serde(default)]
    pub meaning: Option<String>,
}

/// The reproduction for a source loop, with the loop itself (for the verifier).
#[derive(Clone, Debug, PartialEq)]
pub struct Reproduction {
    /// Problems of the source itself (parse and name errors): nothing else is computed then.
    pub diagnostics: Vec<Diagnostic>,
    /// The source loop as lowered; `None` when the source does not lower.
    pub original: Option<Program>,
    pub outcome: Option<Outcome>,
    /// The loops that bind threads (`T.thread_binding` in a PrimFunc): their iterations are
    /// parallel threads (docs/tvm.md, "Thread loops").
    pub threads: Vec<ThreadBinding>,
    /// The largest stage any pipeline annotation gives, plus one (1 without one): how many short
    /// trip counts a symbolic extent is verified at (`verify_extents`).
    pub stages: i64,
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

/// Runs TVM 0.27's `InjectSoftwarePipeline`, as reproduced, on a loop written in Stagecraft or
/// TVMScript. A Stagecraft loop stands for its TVMScript export (`tvmscript::print`): each
/// allocation in the block of the outermost annotated loop that uses it.
pub fn inject_software_pipeline(source: &str) -> Reproduction {
    let (parsed, _, tvm_scopes) = crate::tvmscript::parse_with_scopes(source);
    let lowered = lower(&parsed.file);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.extend(lowered.diagnostics);
    let threads = tvm_scopes
        .as_ref()
        .map_or_else(Vec::new, |s| s.threads.clone());
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Reproduction {
            diagnostics,
            original: None,
            outcome: None,
            threads,
            stages: 1,
        };
    }
    let stages = lowered
        .annotations
        .iter()
        .filter(|a| a.key == crate::schedule::STAGE_KEY)
        .filter_map(|a| a.values.as_ref()?.iter().max().copied())
        .max()
        .map_or(1, |s| s.saturating_add(1).max(1));
    let program = lowered.program;
    let scopes = match &tvm_scopes {
        Some(s) => nest::tvmscript_scopes(&program, s),
        None => nest::stagecraft_scopes(&program, &lowered.annotations),
    };
    let outcome = nest::Injector {
        program: program.clone(),
        annotations: &lowered.annotations,
        source,
        scopes,
        pipelined: 0,
    }
    .run();
    Reproduction {
        diagnostics,
        original: Some(program),
        outcome: Some(outcome),
        threads,
        stages,
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
    /// TVM's program as the pass built it: printed by the command line, never read back (the page
    /// shows `printed`, and the worker does not send it).
    #[serde(skip_deserializing, skip_serializing_if = "crate::wire::json_only")]
    pub outcome: Option<Outcome>,
    /// TVM's program in Stagecraft's printed form, with the line → statement/wait map.
    pub printed: Option<crate::tir::Printed>,
    /// Stagecraft's verifier on TVM's program: its races, differences and wait judgements.
    pub verification: Option<crate::verify::Verification>,
    /// The loops that bind threads (docs/tvm.md, "Thread loops").
    #[serde(default)]
    pub threads: Vec<ThreadBinding>,
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
            .with_hint(match &e.meaning {
                Some(meaning) => format!(
                    "this is TVM's own message: {meaning}; Stagecraft's view of the schedule is unaffected"
                ),
                None => {
                    "this is TVM's own message; Stagecraft's view of the schedule is unaffected"
                        .to_string()
                }
            }),
        ),
        Some(Outcome::NotReproduced { reason, span }) => diagnostics.push(Diagnostic::error(
            *span,
            format!("TVM {TVM_VERSION}'s pass is not reproduced for this loop: {reason}"),
        )),
        _ => {}
    }
    if let Some(program) = r.program() {
        if !r.threads.is_empty() {
            diagnostics.extend(threads::check(program, &r.threads, &verify_options.params));
        }
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
                // A symbolic extent at every short trip count and a large one, as Stagecraft's
                // own program is verified.
                None => {
                    let mut options = verify_options.clone();
                    for (_, v) in original.params() {
                        options
                            .params
                            .entry(v.name.to_string())
                            .or_insert(crate::limits::DEFAULT_SYMBOLIC_EXTENT);
                    }
                    Some(crate::verify_extents::verify_extents(
                        original,
                        &lowered.program,
                        &options,
                        r.stages,
                    ))
                }
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
        threads: r.threads,
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
        meaning: None,
    })
}

/// A rejection whose message prints no statement.
fn rejected_plain(kind: &str, message: &str, span: Span) -> Outcome {
    rejected(kind, message.to_string(), message.to_string(), span)
}
