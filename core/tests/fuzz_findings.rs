//! What the fuzz targets found (`fuzz/`, docs/fuzzing.md "Findings"), one test each, on the
//! smallest input that showed it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;

/// `tokens`: a parse problem of a program in token form pointed at its own place in the token
/// text, but the place it relates ("the next line is not indented") was left where it is in the
/// count text the token lines are rewritten into, a few bytes off on every line after a rewritten
/// one: inside another line, or inside a character.
#[test]
fn a_token_programs_related_places_are_in_its_own_text() {
    let text = "with async_start(0) as q0[0]:\n    B[0] = A[0]\nfor i in range(4):\nx = \u{e9}\n";
    let read = stagecraft::tokens::from_tokens(text, &BTreeMap::new());
    let d = read
        .diagnostics
        .iter()
        .find(|d| d.message == "this block has no body")
        .expect("the loop without a body is reported");
    let related = d
        .related
        .first()
        .expect("with the line that is not indented");
    let at = text.find("x = ").unwrap();
    assert_eq!(related.span.start as usize, at, "{:?}", d.related);
    assert!(text.is_char_boundary(related.span.end as usize));
}

/// `tvmscript`: a stage of 900 000 000 000 000 001 in a PrimFunc's annotation made TVM 0.27's
/// reproduction sample its analyzer over every value up to twice the stage — an allocation the
/// size of the stage, which aborted the worker. Such a stage is now a located "not reproduced".
#[test]
fn a_huge_stage_in_a_primfunc_is_not_reproduced_at_its_annotation() {
    let text = r#"from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((16,), "float32"), Y: T.Buffer((16,), "float32")):
    for i in T.serial(0, 10, annotations={"software_pipeline_stage": [0, 900000000000000001], "software_pipeline_order": [0, 1]}):
        with T.block():
            X_sh = T.alloc_buffer((1,), "float32", scope="shared")
            with T.block():
                X_sh[0] = X[i]
            with T.block():
                Y[i] = X_sh[0]
"#;
    let out = stagecraft::tvm::inject_software_pipeline(text);
    let Some(stagecraft::tvm::Outcome::NotReproduced { reason, span }) = &out.outcome else {
        panic!("expected not reproduced, got {:?}", out.outcome.is_some());
    };
    assert!(reason.contains("900000000000000001"), "{reason}");
    let at = text.find("[0, 900000000000000001]").unwrap();
    assert_eq!(span.start as usize, at);
}

/// `tilelang`: a TileLang copy `T.copy(A[by * block_M, k * -block_K], A_shared)` was refused for
/// reaching below `A`'s index 0, but its loop-language twin `A[i, k * -4 + j]` was pipelined: the
/// affine analysis read `k * -4` (the `-4` is `0 - 4`) as an index not linear in `k`, so the
/// bounds check skipped it and only the interpreter met the negative index. Every spelling of
/// the coefficient is now linear, and refused alike.
#[test]
fn a_negative_coefficient_is_linear_in_every_spelling() {
    let options = stagecraft::explore::Options {
        verify: false,
        timeline: false,
        targets: Vec::new(),
        ..Default::default()
    };
    for index in ["k * -4 + j", "-4 * k + j", "k * (0 - 4) + j", "j - 4 * k"] {
        let text = format!(
            "S = alloc([4], scope=\"shared\")\nfor k in range(8):\n    for j in range(4):\n        S[j] = A[{index}]\n    for j in range(4):\n        C[k, j] = S[j]\nannotate(k, \"software_pipeline_stage\", [0, 1])\nannotate(k, \"software_pipeline_order\", [0, 1])\nannotate(k, \"software_pipeline_async_stages\", [0])\n"
        );
        let ex = stagecraft::explore::explore(&text, &options);
        assert!(!ex.ok, "{index}: pipelined\n{text}");
        let e = ex
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .expect("an error");
        assert_eq!(
            e.message,
            "index 0 of `A` reaches -28; `A` is not allocated, so it is a global buffer indexed from 0",
            "{index}"
        );
    }
}

/// `explore`: a loop nested in the first step with an extent of 55 555 555 555 554 made the
/// timeline, which iterates the steps it draws statement by statement, record a bar per instance
/// within that one step: the limit of simulated instances was checked only between steps, and
/// the run grew past 2 GB. A step now stops within once it passes twice the limit, and the
/// timeline says so.
#[test]
fn a_step_of_enormous_inner_loops_stops_the_timeline_within_it() {
    let text = "for k0 in range(8):
    for a in range(55555555555554):
        for x in range(8):
            C[x] = C[x] + A[x]
";
    let ex = stagecraft::explore::explore(text, &Default::default());
    let t = ex.timeline.as_ref().expect("a timeline");
    assert_eq!(t.step_limit, Some(0), "stopped within the first step");
    let said = t.coverage().expect("the limit said");
    assert!(
        said.contains("stops within the loop's first step"),
        "{said}"
    );
    let bars = t.spans.len() + t.stalls.len() + t.markers.len();
    assert!(
        bars <= 3 * stagecraft::limits::MAX_TIMELINE_INSTANCES as usize,
        "{bars} bars"
    );
    // Part of one step against thousands of the original loop's iterations: no ratio of the two.
    assert_eq!(
        (t.metrics.speedup, t.metrics.speedup_over_awaited),
        (None, None),
        "{:?}",
        t.metrics
    );
    assert!(stagecraft::gantt::metrics_text(t).contains(stagecraft::gantt::NO_RATIO));
    // Nor a range of steps that ends before it begins ("steps 1–0 of 0").
    let chart = stagecraft::gantt::svg(t, &["C[x] = C[x] + A[x]"], 1, 800.0, None);
    assert!(chart.contains(">no step whole<"), "{chart}");
}

/// Found by the `explore` fuzz target (a timeout): a loop of 5.6·10¹³ iterations whose body runs
/// no statement (its inner loop is empty). The interpreter and the timeline counted statement
/// instances against their limits, and stepped through the empty iterations without end; loop
/// iterations now count too (`limits::MAX_LOOP_ITERATIONS`), and the verification says why it
/// did not run.
#[test]
fn a_huge_loop_that_runs_no_statement_stops_at_the_iteration_limit() {
    let text = "for k in range(8):
    for a in range(55555555555554):
        for b in range(0):
            C[b] = C[b] + 1
";
    let ex = stagecraft::explore::explore(text, &Default::default());
    let v = ex.verification.as_ref().expect("a verification");
    assert!(
        v.summary.contains("iterations, the interpreter's limit"),
        "{}",
        v.summary
    );
    let t = ex.timeline.as_ref().expect("a timeline");
    assert!(t.truncated || t.step_limit.is_some(), "{:?}", t.step_limit);
}

/// Found by the `tokens` fuzz target (a timeout): a program in token form whose loop runs to the
/// token checker's step limit (2 000 000 steps). The checker found the line of a wait by reading
/// the text up to it at every wait it executed, and built each misuse's message at every
/// iteration before dropping it as already said, past the fuzzer's time limit per input. Lines
/// are now looked up in an index of the text, and a message is written only when it is new.
#[test]
fn a_token_program_run_to_the_step_limit_is_checked_without_rereading_its_text() {
    let text = "A_sh = alloc([4, 1], scope=\"shared\", dtype=\"float32\", versions=4)
for i in range(100000000):
    with async_start(0) as q0[i]:
        with async_scope():
            A_sh[i % 4, 0] = A[i]
    with async_done(q0[i - 3]):
        C[i] = A_sh[(i - 3) % 4, 0]
";
    let read = stopped_at_the_token_step_limit(text);
    for d in &read.diagnostics {
        assert!(d.span.end as usize <= text.len(), "{d:?}");
    }
}

/// Found by the `tokens` fuzz target (a hang): a program in token form with a loop of
/// 4·10¹⁵ iterations whose body is `pass` (its extent garbled by NUL bytes). The token checker
/// counted its steps per statement run, so iterations that run none never reached its limit.
/// Each iteration is a step now.
#[test]
fn a_token_programs_empty_loop_stops_at_the_step_limit() {
    let text = "with async_start(0) as q0[0]:\n    with async_scope():\n        B[0] = A[0]\nfor i in range(4000000000000079):\n    pass\nwith async_done(q0[0]):\n    C[0] = B[0]\n";
    stopped_at_the_token_step_limit(text);
}

/// `text` read in token form, which the token checker stops at its step limit, and says so.
fn stopped_at_the_token_step_limit(text: &str) -> stagecraft::tokens::FromTokens {
    let read = stagecraft::tokens::from_tokens(text, &BTreeMap::new());
    assert!(
        read.diagnostics
            .iter()
            .any(|d| d.is_error() && d.message.contains("too long to check its tokens")),
        "{:?}",
        read.diagnostics
    );
    read
}
