//! TVM's own InjectSoftwarePipeline tests as the acceptance test (issue 44): every input of
//! apache/tvm's `test_s_tir_transform_inject_software_pipeline.py` (TVM 0.27), as a user pastes it,
//! is in `tests/tvm_suite/NAME.py`, and what the real TVM 0.27 makes of it in `NAME.tvm` (both
//! recorded by `scripts/tvm-suite.py`; CI does not need TVM). For every input:
//!
//! - Stagecraft reads it (no error from the parser or the reader);
//! - Stagecraft pipelines it and its verifier says equivalent, or refuses it with errors located
//!   in the text, only where `REFUSED` says why no correct program exists;
//! - the reproduction of TVM's pass (`tvm::explore_tvm`, what the TVM 0.27 view shows) gives TVM's
//!   program — the same allocations, stores, commits and wait counts, executed (`tvm::trace`), at
//!   every value of a symbolic size the golden has — or TVM's own error message.
//!
//! `tests/tvm_suite/verdicts.txt` is the table of what each side says (rewritten with
//! `UPDATE_EXPECT=1`); the counts are printed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use stagecraft::diagnostic::Diagnostic;
use stagecraft::explore::{explore, Options};
use stagecraft::tvm::{explore_tvm, Outcome, TvmExploration};
use stagecraft::verify::{Verdict, VerifyOptions};
use std::collections::BTreeMap;
use std::fmt::Write;

const DIR: &str = "tests/tvm_suite";

/// The inputs Stagecraft refuses, and why no correct pipelined program exists for them.
const REFUSED: [(&str, &str); 7] = [
    (
        "error_conflicting_order",
        "the schedule gives two statements one order, so it does not say which runs first",
    ),
    (
        "error_missing_annotation",
        "the schedule gives stages but no order for the pipelined body",
    ),
    (
        "error_reorder",
        "the schedule runs `D = C + 1` before `C = B + 2` within one stage and iteration, so \
         D would read C before it is written",
    ),
    (
        "nested_pipeline_double_buffer",
        "the loop itself indexes `B` (16, 1, 1) at [tx, i, 0] and `A_shared` (16, 1, 16) at \
         [tx, i, j], i up to 15: past their shapes",
    ),
    (
        "nested_pipeline_interleaving",
        "the loop itself indexes `B` (16, 1, 1) at [tx, i, 0] and `A_shared` (16, 1, 16) at \
         [tx, i, j], i up to 15: past their shapes",
    ),
    (
        "nested_pipeline_prefetch_inner",
        "the loop itself indexes `B` (16, 1, 1) at [tx, i, 0], i up to 15: past its shape",
    ),
    (
        "nested_pipeline_simple",
        "the loop itself indexes `B` (16, 1, 1) at [tx, i, 0], i up to 15: past its shape",
    ),
];

/// One run of a golden: the values of its symbolic sizes and the trace at them.
struct Run {
    params: BTreeMap<String, i64>,
    trace: String,
}

/// `NAME.tvm` read: TVM's error line, or its runs.
enum Golden {
    Error(String),
    Runs(Vec<Run>),
}

fn golden(text: &str) -> Golden {
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("# ")).collect();
    if let Some(e) = lines.first().and_then(|l| l.strip_prefix("error ")) {
        return Golden::Error(e.to_string());
    }
    let mut runs = Vec::new();
    for line in lines {
        if let Some(bindings) = line.strip_prefix("run ") {
            let params = bindings
                .split(' ')
                .map(|b| {
                    let (k, v) = b.split_once('=').unwrap();
                    (k.to_string(), v.parse().unwrap())
                })
                .collect();
            runs.push(Run {
                params,
                trace: String::new(),
            });
            continue;
        }
        if runs.is_empty() {
            runs.push(Run {
                params: BTreeMap::new(),
                trace: String::new(),
            });
        }
        let run = runs.last_mut().unwrap();
        run.trace.push_str(line);
        run.trace.push('\n');
    }
    Golden::Runs(runs)
}

/// First differing line, with a few lines of context on both sides.
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let at = w
        .iter()
        .zip(&g)
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    let from = at.saturating_sub(4);
    let show = |v: &[&str]| {
        v.iter()
            .enumerate()
            .skip(from)
            .take(10)
            .map(|(i, l)| format!("{:>5} {}{l}", i + 1, if i == at { "> " } else { "  " }))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "first difference at trace line {}\n--- TVM\n{}\n--- reproduction\n{}",
        at + 1,
        show(&w),
        show(&g)
    )
}

fn located(d: &Diagnostic, source: &str) -> bool {
    d.span.end as usize <= source.len() && d.span.start < d.span.end
}

/// TVM's side for one input: `Ok(what the table says)` when the reproduction gives TVM's output.
fn tvm_side(name: &str, golden: &Golden, tvm: &TvmExploration) -> Result<String, String> {
    match (golden, &tvm.outcome) {
        (Golden::Error(want), Some(Outcome::Rejected(r))) => {
            let got = format!("{}: {}", r.kind, r.template);
            if &got == want {
                Ok(format!("TVM's error matched: {got}"))
            } else {
                Err(format!(
                    "{name}: TVM says\n    {want}\nthe reproduction\n    {got}"
                ))
            }
        }
        (Golden::Error(want), _) => Err(format!(
            "{name}: TVM says {want}; the reproduction: {:?}",
            tvm.diagnostics
                .iter()
                .map(|d| &d.message)
                .collect::<Vec<_>>()
        )),
        (Golden::Runs(runs), _) => {
            let Some(program) = tvm.program() else {
                return Err(format!(
                    "{name}: TVM pipelines it; the reproduction: {:?}",
                    tvm.diagnostics
                        .iter()
                        .map(|d| &d.message)
                        .collect::<Vec<_>>()
                ));
            };
            let threads: Vec<&str> = tvm.threads.iter().map(|t| t.var.as_str()).collect();
            for run in runs {
                let got =
                    stagecraft::tvm::trace_threads(program, &run.params, usize::MAX, &threads);
                if got != run.trace {
                    return Err(format!(
                        "{name} at {:?}: {}",
                        run.params,
                        first_difference(&run.trace, &got)
                    ));
                }
            }
            let mut verdict = tvm
                .verification
                .as_ref()
                .map_or("not verified".to_string(), |v| v.summary.clone());
            if let Some(p) = tvm.verification.as_ref().and_then(|v| v.problems.first()) {
                let n = tvm.verification.as_ref().map_or(0, |v| v.problems.len());
                verdict.push_str(&format!("; {n} problems, the first: {}", p.message));
            }
            let shared = tvm
                .diagnostics
                .iter()
                .filter(|d| d.severity == stagecraft::diagnostic::Severity::Warning)
                .count();
            if shared > 0 {
                verdict.push_str(&format!(
                    "; {shared} warnings of elements two threads share"
                ));
            }
            Ok(format!(
                "TVM's program reproduced ({} {}); {verdict}",
                runs.len(),
                if runs.len() == 1 { "run" } else { "runs" }
            ))
        }
    }
}

#[test]
fn tvm_own_tests_read_pipelined_and_reproduced() {
    let inputs = support::files(DIR, "py");
    assert!(inputs.len() >= 19, "only {} inputs in {DIR}", inputs.len());
    let mut table = String::new();
    let mut failures = Vec::new();
    let (mut read, mut verified, mut refused, mut reproduced, mut errors_matched) = (0, 0, 0, 0, 0);
    for (stem, path) in &inputs {
        let source = std::fs::read_to_string(support::root().join(path)).unwrap();
        let golden_path = support::root().join(format!("{DIR}/{stem}.tvm"));
        let golden = golden(&std::fs::read_to_string(&golden_path).unwrap_or_else(|e| {
            panic!("{}: {e}", golden_path.display());
        }));
        let _ = writeln!(table, "{stem}");
        // Read: the parser and the reader have nothing to say against it.
        let (parsed, _) = stagecraft::tvmscript::parse(&source);
        let lowered = stagecraft::lower::lower(&parsed.file);
        let read_errors: Vec<&Diagnostic> = parsed
            .diagnostics
            .iter()
            .chain(&lowered.diagnostics)
            .filter(|d| d.is_error())
            .collect();
        if read_errors.is_empty() {
            read += 1;
        } else {
            failures.push(format!("{stem}: not read: {:?}", read_errors));
        }
        // Stagecraft's own pipeline, verified; or a located refusal where REFUSED says why.
        let ex = explore(&source, &Options::default());
        let errors: Vec<&Diagnostic> = ex.diagnostics.iter().filter(|d| d.is_error()).collect();
        let expected_refusal = REFUSED.iter().find(|(n, _)| n == stem).map(|(_, why)| *why);
        if errors.is_empty() {
            let v = ex.verification.as_ref();
            match v.map(|v| v.verdict) {
                Some(Verdict::Equivalent) => {
                    verified += 1;
                    let _ = writeln!(table, "    Stagecraft: {}", v.unwrap().summary);
                }
                _ => failures.push(format!(
                    "{stem}: Stagecraft's pipeline is not verified equivalent: {:?}",
                    v.map(|v| &v.summary)
                )),
            }
            if expected_refusal.is_some() {
                failures.push(format!(
                    "{stem}: listed in REFUSED but Stagecraft accepts it"
                ));
            }
        } else {
            refused += 1;
            for d in &errors {
                let _ = writeln!(table, "    Stagecraft refuses: {}", d.message);
                if !located(d, &source) {
                    failures.push(format!("{stem}: an error without a place: {}", d.message));
                }
            }
            match expected_refusal {
                Some(why) => {
                    let _ = writeln!(table, "        (no correct program exists: {why})");
                }
                None => failures.push(format!(
                    "{stem}: Stagecraft refuses it: {:?}",
                    errors.iter().map(|d| &d.message).collect::<Vec<_>>()
                )),
            }
        }
        // TVM's side, as the TVM 0.27 view computes it; a thread-binding loop is recorded as one.
        let tvm = explore_tvm(&source, true, &VerifyOptions::default());
        let binds = source.matches("T.thread_binding(").count();
        if tvm.threads.len() != binds {
            failures.push(format!(
                "{stem}: {binds} thread-binding loops, {} recorded",
                tvm.threads.len()
            ));
        }
        match tvm_side(stem, &golden, &tvm) {
            Ok(line) => {
                match golden {
                    Golden::Error(_) => errors_matched += 1,
                    Golden::Runs(_) => reproduced += 1,
                }
                let _ = writeln!(table, "    {line}");
            }
            Err(e) => {
                let _ = writeln!(table, "    TVM's output NOT reproduced");
                failures.push(e);
            }
        }
    }
    let counts = format!(
        "{} inputs: {read} read; Stagecraft: {verified} pipelined and verified equivalent, \
         {refused} refused with located reasons; TVM 0.27: {reproduced} programs reproduced \
         trace for trace, {errors_matched} errors matched\n",
        inputs.len()
    );
    eprint!("{counts}");
    table.push_str(&counts);
    if let Err(e) = support::check(&format!("{DIR}/verdicts.txt"), &table) {
        failures.push(e.message().unwrap_or("verdicts.txt differs").to_string());
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
