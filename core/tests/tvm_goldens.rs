//! TVM 0.27's `InjectSoftwarePipeline` as core reproduces it (`stagecraft::tvm`) against what the
//! real TVM produced for the same loops: `tests/tvm/NAME.tvm`, recorded by `scripts/tvm-goldens.py`
//! (each file names its loop). Both sides are run statically into the same trace — every store
//! with its reads, every commit and wait with its count — and must be equal line for line; where
//! TVM refused the schedule, the reproduction must refuse it with TVM's message. TVM is not
//! needed here: the goldens are committed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::tvm::{inject_software_pipeline, trace, trace_threads, Outcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The reproduction's trace for `source`, in the golden's form (without its two header lines):
/// once per `run` line of the golden `want` (the values of the symbolic sizes), thread loops at
/// their first two and last thread.
fn reproduce(source: &str, want: &str) -> String {
    let r = inject_software_pipeline(source);
    assert!(
        r.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        r.diagnostics
    );
    let threads: Vec<&str> = r.threads.iter().map(|t| t.var.as_str()).collect();
    match r.outcome.expect("an outcome") {
        Outcome::Pipelined { program } | Outcome::Unchanged { program } => {
            let runs: Vec<&str> = want.lines().filter(|l| l.starts_with("run ")).collect();
            if runs.is_empty() {
                return trace_threads(&program, &BTreeMap::new(), usize::MAX, &threads);
            }
            runs.iter()
                .map(|run| {
                    let params: BTreeMap<String, i64> = run["run ".len()..]
                        .split(' ')
                        .filter_map(|b| {
                            let (k, v) = b.split_once('=')?;
                            Some((k.to_string(), v.parse().ok()?))
                        })
                        .collect();
                    format!(
                        "{run}\n{}",
                        trace_threads(&program, &params, usize::MAX, &threads)
                    )
                })
                .collect()
        }
        Outcome::Rejected(e) => format!("error {}: {}\n", e.kind, e.template),
        Outcome::NotReproduced { reason, .. } => format!("not reproduced: {reason}\n"),
    }
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

#[test]
fn reproduction_equals_tvm_on_every_golden() {
    let dir = root().join("tests/tvm");
    let mut goldens: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tvm"))
        .collect();
    goldens.sort();
    let (mut pipelined, mut refused, mut failures) = (0, 0, Vec::new());
    for path in &goldens {
        let text = std::fs::read_to_string(path).unwrap();
        let loop_path = text
            .lines()
            .find_map(|l| l.strip_prefix("# loop: "))
            .unwrap_or_else(|| panic!("{}: no `# loop:` line", path.display()));
        let source = std::fs::read_to_string(root().join(loop_path)).unwrap();
        let want: String = text
            .lines()
            .filter(|l| !l.starts_with("# "))
            .map(|l| format!("{l}\n"))
            .collect();
        let got = reproduce(&source, &want);
        if want.starts_with("error ") {
            refused += 1;
        } else {
            pipelined += 1;
        }
        if want != got {
            failures.push(format!(
                "{} ({loop_path}): {}",
                path.file_name().unwrap().to_string_lossy(),
                first_difference(&want, &got)
            ));
        }
    }
    eprintln!(
        "{} schedules compared with TVM 0.27: {pipelined} pipelined, {refused} refused",
        goldens.len()
    );
    assert!(
        goldens.len() >= 30,
        "only {} goldens in tests/tvm",
        goldens.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} schedules differ from TVM:\n\n{}",
        failures.len(),
        goldens.len(),
        failures.join("\n\n")
    );
}

fn tvm_of(path: &str) -> stagecraft::tvm::TvmExploration {
    let source = std::fs::read_to_string(root().join(path)).unwrap();
    stagecraft::tvm::explore_tvm(&source, true, &Default::default())
}

/// TVM's program printed in Stagecraft's form parses back to the same program (as traced): what
/// `stagecraft check --as tvm-0.27` and the app verify is what TVM produces.
#[test]
fn printed_tvm_programs_parse_back_to_the_same_program() {
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("tests/tvm")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "tvm") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let loop_path = text
            .lines()
            .find_map(|l| l.strip_prefix("# loop: "))
            .unwrap();
        let source = std::fs::read_to_string(root().join(loop_path)).unwrap();
        let r = inject_software_pipeline(&source);
        let Some(program) = r.program() else { continue };
        let printed = stagecraft::tir::print(program);
        let parsed = stagecraft::parser::parse(&printed.text);
        let lowered = stagecraft::lower::lower(&parsed.file);
        assert!(
            parsed
                .diagnostics
                .iter()
                .chain(&lowered.diagnostics)
                .all(|d| !d.is_error()),
            "{loop_path}: {:?}\n{}",
            lowered.diagnostics,
            printed.text
        );
        let params = BTreeMap::new();
        assert_eq!(
            trace(&lowered.program, &params, usize::MAX),
            trace(program, &params, usize::MAX),
            "{loop_path}"
        );
        checked += 1;
    }
    assert!(checked >= 30, "{checked}");
}

/// RFC (b): TVM gives `B` 2 versions, but `C = B + 1` is itself async and may still read B's slot
/// when the producer two iterations later overwrites it: the verifier finds the write-after-read.
#[test]
fn rfc_b_with_tvms_two_versions_races_on_b() {
    let ex = tvm_of("examples/rfc_b_two_async_stages.py");
    let v = ex.verification.unwrap();
    assert_eq!(
        v.verdict,
        stagecraft::verify::Verdict::Racy,
        "{}",
        v.summary
    );
    let race = v
        .races
        .iter()
        .find(|r| r.buffer == "B")
        .expect("a race on B");
    assert!(race.slot.is_some(), "{race:?}");
    assert!(
        race.message.contains("may still be reading"),
        "{}",
        race.message
    );
    let text = &ex.printed.unwrap().text;
    assert!(text.contains("B = alloc([2, 1]"), "{text}");
}

/// RFC (c): TVM's prologue commits both copies of an iteration as one group, and the body's count 5
/// assumes two groups per iteration: the first body iterations read A_sh and B_sh in flight.
#[test]
fn rfc_c_count_5_races_in_the_first_body_iterations() {
    let ex = tvm_of("examples/rfc_c_interleaved.py");
    let printed = ex.printed.unwrap();
    assert!(
        printed.text.contains("with async_wait_queue(0, 5):"),
        "{}",
        printed.text
    );
    let v = ex.verification.unwrap();
    assert_eq!(
        v.verdict,
        stagecraft::verify::Verdict::Racy,
        "{}",
        v.summary
    );
    let reads: Vec<_> = v
        .races
        .iter()
        .filter(|r| {
            r.message
                .contains("reads data whose asynchronous write is still in flight")
        })
        .collect();
    assert!(!reads.is_empty(), "{:?}", v.races);
    for r in &reads {
        assert!(r.iteration.is_some_and(|i| i < 3), "{r:?}");
        // The wait that should have covered it is the body's count 5.
        let w = r.wait.expect("the body's wait");
        let line = printed.text[..w.span.start as usize].lines().count();
        let wait_line = printed
            .text
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or("");
        assert!(wait_line.contains("async_wait_queue(0, 5)"), "{wait_line}");
    }
}

/// RFC (a) pipelines correctly in TVM too.
#[test]
fn rfc_a_is_correct_in_tvm() {
    let v = tvm_of("examples/rfc_a_async_copy.py").verification.unwrap();
    assert_eq!(
        v.verdict,
        stagecraft::verify::Verdict::Equivalent,
        "{}",
        v.summary
    );
}

/// A refusal is TVM's message, located at the statement it is about.
#[test]
fn refusals_carry_tvms_message() {
    let source = std::fs::read_to_string(root().join("tests/cases/error_later_stage.py")).unwrap();
    let ex = stagecraft::tvm::explore_tvm(&source, true, &Default::default());
    assert!(ex.printed.is_none() && ex.verification.is_none());
    let d = ex.diagnostics.iter().find(|d| d.is_error()).unwrap();
    assert!(
        d.message.contains("statement `C[i] = B[0] + 1` in stage 0 cannot depends on statement `B[0] = A[i] + 1` in a later stage 1"),
        "{}",
        d.message
    );
    assert_eq!(
        &source[d.span.start as usize..d.span.end as usize],
        "C[i] = B[0] + 1"
    );
}

/// TVM's pass fails on an allocation of the pipelined loop's block that no statement touches
/// (`unordered_map::at`, tests/tvm/hand_unused_alloc_tvmscript): the TVM view says so at the
/// allocation, with what the message means.
#[test]
fn an_unused_allocation_is_tvms_internal_error_explained() {
    let ex = tvm_of("tests/tvm/hand_unused_alloc_tvmscript.py");
    let source =
        std::fs::read_to_string(root().join("tests/tvm/hand_unused_alloc_tvmscript.py")).unwrap();
    assert!(ex.printed.is_none() && ex.verification.is_none());
    let d = ex.diagnostics.iter().find(|d| d.is_error()).unwrap();
    assert!(
        d.message.ends_with("InternalError: unordered_map::at"),
        "{}",
        d.message
    );
    assert!(
        d.hint
            .as_deref()
            .is_some_and(|h| h.contains("no statement touches `U`")),
        "{:?}",
        d.hint
    );
    assert_eq!(&source[d.span.start as usize..d.span.end as usize], "U");
}

/// The same loop written in Stagecraft stands for its export, which allocates the unused buffer
/// outside the pipelined loop: TVM pipelines it (tests/tvm/unused_alloc.tvm).
#[test]
fn an_unused_allocation_in_a_stagecraft_loop_is_pipelined() {
    let ex = tvm_of("tests/cases/unused_alloc.py");
    assert!(
        ex.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        ex.diagnostics
    );
    assert!(matches!(ex.outcome, Some(Outcome::Pipelined { .. })));
}
