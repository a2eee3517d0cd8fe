//! `if … else:` and `with async_stage(q):` in a source loop and in hand-written pipelined
//! programs: read, run and verified (issue 25, part 7). Their round trip through the printer is in
//! `syntax.rs`'s property test.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::Target;
use stagecraft::explore::{check_pipelined, explore, Options};
use stagecraft::verify::Verdict;
use std::collections::BTreeMap;

fn read(path: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(path),
    )
    .unwrap()
}

const COPY_LOOP: &str = "B = alloc([1])
for i in range(16):
    B[0] = A[i] + 1
    C[i] = B[0] + 1

sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

/// The else branch runs exactly when the guard is false: at i = 16 the then branch's count 1
/// would leave the last group in flight (a race), and taking neither would leave C[15] unwritten.
#[test]
fn else_runs_when_the_guard_is_false() {
    let pipelined = "B = alloc([2, 1], scope=\"shared\", versions=2)
for i in range(17):
    if i < 16:
        with async_stage(0):
            B[i % 2, 0] = A[i] + 1
    if i >= 1:
        if i < 16:
            with async_wait_queue(0, 1):
                C[i - 1] = B[(i - 1) % 2, 0] + 1
        else:
            with async_wait_queue(0, 0):
                C[i - 1] = B[(i - 1) % 2, 0] + 1
";
    let check = check_pipelined(COPY_LOOP, pipelined, &BTreeMap::new());
    assert!(check.diagnostics.is_empty(), "{:?}", check.diagnostics);
    let v = check.verification.unwrap();
    assert_eq!(v.verdict, Verdict::Equivalent, "{}", v.summary);
    let without_else = pipelined
        .replace("        else:\n", "        if i >= 16:\n")
        .replace(
            "if i >= 16:\n            with async_wait_queue(0, 0)",
            "if i >= 99:\n            with async_wait_queue(0, 0)",
        );
    let v = check_pipelined(COPY_LOOP, &without_else, &BTreeMap::new())
        .verification
        .unwrap();
    assert!(v.summary.contains("differ"), "{}", v.summary);
}

/// RFC (b)'s own listing pastes in, shorthand and `else` included, and shows its known race.
#[test]
fn rfc_b_listing_is_checked() {
    let check = check_pipelined(
        &read("examples/rfc_b_two_async_stages.py"),
        &read("tests/pipelined/rfc_b_rfc_text.py"),
        &BTreeMap::new(),
    );
    assert!(check.diagnostics.is_empty(), "{:?}", check.diagnostics);
    let v = check.verification.unwrap();
    assert_eq!(v.verdict, Verdict::Racy, "{}", v.summary);
    assert!(
        v.races.iter().any(|r| r.message.contains('B')),
        "{:?}",
        v.races
    );
}

/// An `if … else:` in the source loop is one statement of the pipeline, explored and verified;
/// each target emits it as it emits the same loop written with two `if`s (the sm_80/sm_90a/AMDGPU emitters refuse a guard
/// on the loop variable of the rolled body, with that reason, for both).
#[test]
fn else_in_a_source_loop_is_one_pipelined_statement() {
    let source = "B = alloc([1])
for i in range(16):
    if i < 8:
        B[0] = A[i] + 1
    else:
        B[0] = A[i] * 2
    C[i] = B[0] + 1

sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";
    let ex = explore(source, &Options::default());
    assert!(ex.ok, "{:?}", ex.diagnostics);
    assert_eq!(ex.pipeline.as_ref().unwrap().units.len(), 2);
    let v = ex.verification.as_ref().unwrap();
    assert_eq!(v.verdict, Verdict::Equivalent, "{}", v.summary);
    let two_ifs = source.replace("    else:\n", "    if i >= 8:\n").replace(
        "[0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])",
        "[0, 0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1, 2])",
    );
    let lone_if = explore(&two_ifs, &Options::default());
    assert!(lone_if.ok, "{:?}", lone_if.diagnostics);
    for target in Target::ALL {
        let code = |ex: &stagecraft::explore::Exploration| {
            ex.code
                .iter()
                .find(|c| c.target == target.name())
                .unwrap()
                .error
                .clone()
        };
        assert_eq!(code(&ex), code(&lone_if), "{target:?}");
    }
}

/// A pasted program's loops of elements (a prologue's copy, an epilogue's tile) have no iteration
/// of their own: a race in one is reported without an iteration rather than with the element's
/// index as if it were one. The pipeline's loop is the outermost loop that waits or commits.
#[test]
fn an_element_loop_beside_the_pipeline_is_no_iteration() {
    let source = "B = alloc([4])
for i in range(8):
    for e in range(4):
        B[e] = A[i * 4 + e] + 1
    for e in range(4):
        C[i * 4 + e] = B[e] + 1

sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";
    // The epilogue reads the last copy without waiting for it.
    let pipelined = "B = alloc([2, 4], scope=\"shared\", versions=2)
with async_commit_queue(0):
    with async_scope():
        for e in range(4):
            B[0, e] = A[e] + 1
for i in range(1, 8):
    with async_commit_queue(0):
        with async_scope():
            for e in range(4):
                B[i % 2, e] = A[i * 4 + e] + 1
    with async_wait_queue(0, 1):
        for e in range(4):
            C[(i - 1) * 4 + e] = B[(i - 1) % 2, e] + 1
for e in range(4):
    C[28 + e] = B[1, e] + 1
";
    let check = check_pipelined(source, pipelined, &BTreeMap::new());
    assert!(check.diagnostics.is_empty(), "{:?}", check.diagnostics);
    let v = check.verification.unwrap();
    let races = &v.races;
    assert!(!races.is_empty(), "{}", v.summary);
    let line = |p: &str, text: &str| {
        let at = p.find(text).unwrap() as u32;
        let end = at + text.len() as u32;
        move |r: &&stagecraft::interp::Race| r.span.start >= at && r.span.start < end
    };
    let epilogue = races
        .iter()
        .filter(line(pipelined, "C[28 + e] = B[1, e] + 1"))
        .collect::<Vec<_>>();
    assert!(!epilogue.is_empty(), "{races:?}");
    for r in epilogue {
        assert_eq!(r.iteration, None, "{}", r.message);
        assert!(
            r.message
                .contains("(`C[i * 4 + e] = B[e] + 1` of iteration 7, 4 elements)"),
            "{}",
            r.message
        );
    }
    // In the body the pipeline's loop is the iteration, not the element loop inside it.
    let raised = pipelined.replace("with async_wait_queue(0, 1)", "with async_wait_queue(0, 2)");
    let body = check_pipelined(source, &raised, &BTreeMap::new())
        .verification
        .unwrap();
    let at = body
        .races
        .iter()
        .find(line(&raised, "C[(i - 1) * 4 + e] = B[(i - 1) % 2, e] + 1"))
        .expect("the body's read races with its count raised");
    assert!(matches!(at.iteration, Some(1..=7)), "{at:?}");
}
