//! Tokens ↔ counts (`stagecraft::tokens`): every pipelined program, printed in token form and
//! translated back, is the same program (the same commits, waits and counts at every instance,
//! as `tvm::trace` runs it) — on every example and golden case in both forms, TVM's programs, and
//! random schedules of both generators; and a token awaited twice, never awaited, awaited before it
//! starts or misnamed is a located error.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Options};
use stagecraft::ir::Program;
use stagecraft::tokens::{from_tokens, to_tokens};
use stagecraft::tvm::trace;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn options() -> Options {
    Options {
        verify: false,
        timeline: false,
        targets: Vec::new(),
        both_forms: true,
        ..Options::default()
    }
}

fn lowered(text: &str) -> Program {
    let parsed = stagecraft::parser::parse(text);
    let lowered = stagecraft::lower::lower(&parsed.file);
    assert!(
        parsed
            .diagnostics
            .iter()
            .chain(&lowered.diagnostics)
            .all(|d| !d.is_error()),
        "{text}"
    );
    lowered.program
}

/// Count form → token form → count form; returns how many waits were written with tokens.
/// `unawaited_ok`: the program may leave groups in flight at its end (TVM's do), which the token
/// form reports as tokens never awaited.
fn round_trip(what: &str, program: &Program, unawaited_ok: bool) -> usize {
    let params = BTreeMap::new();
    let tokens = to_tokens(program, &params);
    let back = from_tokens(&tokens.text, &params);
    let errors: Vec<String> = back
        .diagnostics
        .iter()
        .filter(|d| d.is_error() && !(unawaited_ok && d.message.contains("never awaited")))
        .map(|d| d.render(what, &tokens.text))
        .collect();
    assert!(
        errors.is_empty(),
        "{what}: the token form does not check:\n{}\n{}",
        errors.join("\n"),
        tokens.text
    );
    let back = back.program.expect("a program");
    let (want, got) = (
        trace(program, &params, 1_000_000),
        trace(&back, &params, 1_000_000),
    );
    assert!(
        want == got,
        "{what}: the round trip changed the program\n{}\n--- want\n{}\n--- got\n{}",
        tokens.text,
        want.lines().take(60).collect::<Vec<_>>().join("\n"),
        got.lines().take(60).collect::<Vec<_>>().join("\n")
    );
    tokens.waits.iter().filter(|w| !w.tokens.is_empty()).count()
}

/// The printed programs of `source` (rolled and peeled), lowered; none when it does not pipeline.
fn programs(source: &str) -> Vec<(&'static str, Program)> {
    let ex = explore(source, &options());
    let mut out = Vec::new();
    for (form, printed) in [("rolled", &ex.rolled), ("peeled", &ex.peeled)] {
        if let Some(p) = printed {
            out.push((form, lowered(&p.text)));
        }
    }
    out
}

fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["examples", "tests/cases"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "py"))
            .collect();
        paths.sort();
        for p in paths {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    out
}

#[test]
fn every_example_round_trips_in_both_forms() {
    let (mut programs_checked, mut token_waits) = (0, 0);
    for (name, source) in sources() {
        for (form, program) in programs(&source) {
            token_waits += round_trip(&format!("{name} ({form})"), &program, false);
            programs_checked += 1;
        }
    }
    eprintln!("{programs_checked} programs, {token_waits} waits in token form");
    assert!(programs_checked >= 30 && token_waits >= 30);
}

#[test]
fn tvms_programs_round_trip() {
    let mut checked = 0;
    for (name, source) in sources() {
        let r = stagecraft::tvm::inject_software_pipeline(&source);
        if let Some(p) = r.program() {
            round_trip(&format!("{name} (TVM)"), p, true);
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn random_schedules_round_trip() {
    use stagecraft::random_loop::{random_loop, Flavor};
    let (mut schedules, mut programs_checked, mut token_waits) = (0, 0, 0);
    for seed in 1..=1400u64 {
        for flavor in [Flavor::Irregular, Flavor::Copies] {
            let source = random_loop(seed, flavor).text();
            let ps = programs(&source);
            if ps.is_empty() {
                continue;
            }
            schedules += 1;
            for (form, program) in ps {
                token_waits +=
                    round_trip(&format!("seed {seed} {flavor:?} ({form})"), &program, false);
                programs_checked += 1;
            }
        }
    }
    eprintln!("{schedules} random schedules, {programs_checked} programs, {token_waits} waits in token form");
    assert!(schedules >= 1000, "{schedules}");
}

fn check(text: &str) -> Vec<(String, String)> {
    let r = from_tokens(text, &BTreeMap::new());
    r.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            (
                d.message.clone(),
                text[d.span.start as usize..d.span.end as usize].to_string(),
            )
        })
        .collect()
}

const GOOD: &str = "\
B = alloc([2, 1], scope=\"shared\", dtype=\"float32\", versions=2)
with async_start(0) as q0[0]:
    with async_scope():
        B[0, 0] = A[0] + 1
for i in range(1, 16):
    with async_start(0) as q0[i]:
        with async_scope():
            B[i % 2, 0] = A[i] + 1
    with async_done(q0[i - 1]):
        C[i - 1] = B[(i - 1) % 2, 0] + 1
with async_done(q0[15]):
    C[15] = B[1, 0] + 1
";

#[test]
fn a_token_program_translates_to_counts() {
    let r = from_tokens(GOOD, &BTreeMap::new());
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let printed = stagecraft::tir::print(&r.program.unwrap()).text;
    assert!(
        printed.contains("with async_wait_queue(0, 1):"),
        "{printed}"
    );
    assert!(
        printed.contains("with async_wait_queue(0, 0):"),
        "{printed}"
    );
}

#[test]
fn misused_tokens_are_located_errors() {
    let twice = GOOD.replace("with async_done(q0[15]):", "with async_done(q0[14]):");
    let errors = check(&twice);
    assert!(
        errors
            .iter()
            .any(|(m, at)| m.contains("q0[14] is awaited twice") && at == "q0[14]"),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|(m, at)| m.contains("never awaited: q0[15]")
                && at.starts_with("with async_start(0) as q0[i]")),
        "{errors:?}"
    );
    let early = GOOD.replace("with async_done(q0[i - 1]):", "with async_done(q0[i + 1]):");
    let errors = check(&early);
    assert!(
        errors
            .iter()
            .any(|(m, at)| m.contains("q0[2] is awaited before it starts") && at == "q0[i + 1]"),
        "{errors:?}"
    );
    let misnamed = GOOD.replace("as q0[i]:", "as q0[i + 1]:");
    let errors = check(&misnamed);
    assert!(
        errors
            .iter()
            .any(|(m, at)| m.contains("commits token q0[1]")
                && m.contains("names it q0[2]")
                && at == "q0[i + 1]"),
        "{errors:?}"
    );
    let unknown = GOOD.replace("with async_done(q0[15]):", "with async_done(t[15]):");
    let errors = check(&unknown);
    assert!(
        errors
            .iter()
            .any(|(m, at)| m.contains("no async_start names tokens `t`") && at == "t[15]"),
        "{errors:?}"
    );
}

#[test]
fn the_token_view_shows_the_translation() {
    let source =
        std::fs::read_to_string(root().join("examples/rfc_b_two_async_stages.py")).unwrap();
    let (_, program) = programs(&source).remove(1);
    let t = to_tokens(&program, &BTreeMap::new());
    assert!(
        t.text.contains("with async_start(0) as q0[0]:"),
        "{}",
        t.text
    );
    assert!(
        t.waits.iter().all(|w| w.kept_count.is_none()),
        "{:?}",
        t.waits
    );
    let body_wait = t
        .text
        .lines()
        .find(|l| l.contains("async_done(q1[i - 2])"))
        .unwrap_or_else(|| panic!("{}", t.text));
    assert!(
        body_wait.contains("# wait(1, 1): 1 = tokens of queue 1 committed after q1[i - 2]"),
        "{body_wait}"
    );
}

/// The app's token view: line for line the printed program, for Stagecraft's and TVM's programs.
#[test]
fn the_token_view_is_line_for_line_the_printed_program() {
    for (name, source) in sources() {
        let ex = explore(&source, &options());
        for (form, printed) in [
            (stagecraft::pipelined::Form::Rolled, &ex.rolled),
            (stagecraft::pipelined::Form::Peeled, &ex.peeled),
        ] {
            let (Some(p), Some(t)) = (printed, stagecraft::explore::tokens(&ex, form)) else {
                continue;
            };
            let (a, b): (Vec<&str>, Vec<&str>) =
                (p.text.lines().collect(), t.text.lines().collect());
            assert_eq!(a.len(), b.len(), "{name}");
            for (x, y) in a.iter().zip(&b) {
                let rewritten = x.trim_start().starts_with("with async_commit_queue(")
                    || x.trim_start().starts_with("with async_wait_queue(");
                assert!(rewritten || x == y, "{name}: {x} / {y}");
            }
        }
        let tvm = stagecraft::tvm::explore_tvm(&source, false, &Default::default());
        if let (Some(p), Some(t)) = (&tvm.printed, tvm.tokens(&BTreeMap::new())) {
            assert_eq!(
                p.text.lines().count(),
                t.text.lines().count(),
                "{name} (TVM)"
            );
        }
    }
}

/// "Check a pipelined program": TVM's output for a schedule Stagecraft refuses (a write-after-read
/// TVM does not see) is still checked against the loop, in count and in token form.
#[test]
fn check_pipelined_takes_tvms_output_for_a_loop_stagecraft_refuses() {
    // tests/cases/error_war.py with its first statement asynchronous.
    let source = std::fs::read_to_string(root().join("tests/cases/error_war.py"))
        .unwrap()
        .replace(
            "sch.annotate(i, \"software_pipeline_order\", [1, 0])",
            "sch.annotate(i, \"software_pipeline_order\", [1, 0])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])",
        );
    assert!(source.contains("async_stages"), "{source}");
    assert!(!explore(&source, &options()).ok);
    let tvm = stagecraft::tvm::explore_tvm(&source, false, &Default::default());
    let printed = tvm.printed.as_ref().expect("TVM pipelines it");
    let params = BTreeMap::new();
    let counts = stagecraft::explore::check_pipelined(&source, &printed.text, &params);
    assert!(!counts.token_form);
    let v = counts.verification.expect("checked");
    assert_ne!(
        v.verdict,
        stagecraft::verify::Verdict::NotRun,
        "{}",
        v.summary
    );
    // In token form, the group TVM's program leaves in flight at its end is a token never awaited.
    let tokens = tvm.tokens(&params).unwrap();
    let via_tokens = stagecraft::explore::check_pipelined(&source, &tokens.text, &params);
    assert!(via_tokens.token_form, "{}", tokens.text);
    assert!(via_tokens.verification.is_none());
    let d = &via_tokens.diagnostics[0];
    assert!(d.message.contains("never awaited: q0[15]"), "{d:?}");
    assert!(tokens.text[d.span.start as usize..].starts_with("with async_start(0) as q0[i]:"));
}

/// A group in which no statement ran has nothing to land: its token may stay unawaited, as the
/// count form leaves it in flight (a constant extent's drain waits for the newest group that
/// runs something); a group that ran one still needs its `async_done`.
#[test]
fn the_token_of_an_empty_group_may_stay_unawaited() {
    let last_empty = "\
B = alloc([2], scope=\"shared\", dtype=\"float32\")
for i in range(2):
    with async_start(0) as q0[i]:
        if i == 0:
            with async_scope():
                B[i] = A[i] + 1
with async_done(q0[0]):
    C[0] = B[0] + 1
";
    assert_eq!(check(last_empty), Vec::<(String, String)>::new());
    let errors = check(&last_empty.replace("if i == 0:", "if i == 1:"));
    assert!(
        errors.iter().any(
            |(m, at)| m.contains("1 token committed here is never awaited: q0[1]")
                && at.starts_with("with async_start(0) as q0[i]")
        ),
        "{errors:?}"
    );
}
