//! The interpreter and verifier on hand-written pipelined programs: TVM's racy outputs race where the
//! issue says, the fixed ones are equivalent with tight waits, a loose count is measured.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Options};
use stagecraft::interp::{run, Policy, RaceKind, RunOptions};
use stagecraft::ir::Program;
use stagecraft::verify::{verify, Judgement, Verdict, VerifyOptions};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn program(text: &str) -> Program {
    let parsed = stagecraft::parser::parse(text);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let lowered = stagecraft::lower::lower(&parsed.file);
    assert!(lowered.diagnostics.is_empty(), "{:?}", lowered.diagnostics);
    lowered.program
}

fn original(example: &str) -> Program {
    let text = std::fs::read_to_string(root().join("examples").join(example)).unwrap();
    explore(&text, &Options::default())
        .programs
        .unwrap()
        .original
}

fn pipelined(name: &str) -> Program {
    program(&std::fs::read_to_string(root().join("tests/pipelined").join(name)).unwrap())
}

#[test]
fn tvm_rfc_b_with_two_versions_races_write_after_read_on_b() {
    let v = verify(
        &original("rfc_b_two_async_stages.py"),
        &pipelined("rfc_b_tvm_two_versions.py"),
        &VerifyOptions::default(),
    );
    assert_eq!(v.verdict, Verdict::Racy);
    let r = &v.races[0];
    assert_eq!(r.kind, RaceKind::WriteAfterRead);
    assert_eq!(r.buffer, "B");
    assert_eq!(r.slot, Some(0));
    assert_eq!(
        r.group.queue, 1,
        "the pending reader is the async `C = B + 1`"
    );
}

#[test]
fn tvm_rfc_c_merged_prologue_races_in_the_first_two_body_iterations_only() {
    let v = verify(
        &original("rfc_c_interleaved.py"),
        &pipelined("rfc_c_tvm_merged_prologue.py"),
        &VerifyOptions::default(),
    );
    assert_eq!(v.verdict, Verdict::Racy);
    let reads: Vec<_> = v
        .races
        .iter()
        .filter(|r| r.kind == RaceKind::ReadAfterWrite)
        .collect();
    let mut iterations: Vec<i64> = reads.iter().map(|r| r.iteration.unwrap()).collect();
    iterations.dedup();
    assert_eq!(
        iterations,
        vec![3, 4],
        "steps 3 and 4 are the first two body iterations"
    );
    assert!(
        reads.iter().all(|r| r.wait.is_some()),
        "the body's wait(0, 5) should have covered them"
    );
    assert_eq!(v.differences.len(), 2);
}

#[test]
fn rfc_c_with_counts_three_and_four_first_is_equivalent_and_tight() {
    let v = verify(
        &original("rfc_c_interleaved.py"),
        &pipelined("rfc_c_fixed_counts.py"),
        &VerifyOptions::default(),
    );
    assert_eq!(v.verdict, Verdict::Equivalent, "{}", v.summary);
    assert!(v.waits.iter().all(|w| w.judgement == Judgement::Tight));
}

#[test]
fn a_count_lower_than_needed_is_loose_by_the_difference() {
    let text = std::fs::read_to_string(root().join("examples/rfc_a_async_copy.py")).unwrap();
    let ex = explore(&text, &Options::default());
    let printed = ex.rolled.unwrap().text.replace(
        "with async_wait_queue(0, 1):",
        "with async_wait_queue(0, 0):",
    );
    let v = verify(
        &ex.programs.unwrap().original,
        &program(&printed),
        &VerifyOptions::default(),
    );
    assert_eq!(v.verdict, Verdict::SafeButLoose, "{}", v.summary);
    assert!(
        v.waits
            .iter()
            .any(|w| w.judgement == Judgement::LooseBy { k: 1 }),
        "{:?}",
        v.waits
    );
}

#[test]
fn a_count_higher_than_allowed_races_with_iteration_and_slot() {
    let text = std::fs::read_to_string(root().join("examples/rfc_a_async_copy.py")).unwrap();
    let ex = explore(&text, &Options::default());
    let printed = ex.peeled.unwrap().text.replace(
        "with async_wait_queue(0, 1):",
        "with async_wait_queue(0, 2):",
    );
    let v = verify(
        &ex.programs.unwrap().original,
        &program(&printed),
        &VerifyOptions::default(),
    );
    assert_eq!(v.verdict, Verdict::Racy);
    let r = &v.races[0];
    assert_eq!(
        (r.kind, r.buffer.as_str(), r.slot),
        (RaceKind::ReadAfterWrite, "B", Some(0))
    );
    // A hand-written program reports the step (its loop variable): C of iteration 0 runs at step 1.
    assert_eq!(r.iteration, Some(1));
}

#[test]
fn earliest_never_races_and_random_never_races_more_than_latest() {
    for name in [
        "rfc_b_tvm_two_versions.py",
        "rfc_c_tvm_merged_prologue.py",
        "rfc_c_fixed_counts.py",
    ] {
        let p = pipelined(name);
        let latest = run(&p, &RunOptions::default()).races.len();
        assert_eq!(
            run(
                &p,
                &RunOptions {
                    policy: Policy::Earliest,
                    ..RunOptions::default()
                }
            )
            .races
            .len(),
            0,
            "{name}"
        );
        for seed in 1..20 {
            let random = run(
                &p,
                &RunOptions {
                    policy: Policy::Random { seed },
                    ..RunOptions::default()
                },
            )
            .races
            .len();
            assert!(random <= latest, "{name} seed {seed}: {random} > {latest}");
        }
    }
}

#[test]
fn runtime_problems_are_reported_not_fatal() {
    let p = program("B = alloc([2])\nfor i in range(4):\n    B[i] = A[i]\n    with async_wait_queue(0, 0 - 1):\n        C[i] = B[i % 2]\n    D[i // 0] = 1\n");
    let r = run(&p, &RunOptions::default());
    let messages: Vec<&str> = r.problems.iter().map(|p| p.message.as_str()).collect();
    assert!(
        messages.iter().any(|m| m.contains("outside 0..2")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("negative")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("divides by zero")),
        "{messages:?}"
    );
}

#[test]
fn the_instance_cap_stops_a_run_plainly() {
    let p = program("for i in range(1000000):\n    C[i % 7] = A[i % 5] + 1\n");
    let r = run(
        &p,
        &RunOptions {
            max_instances: 1000,
            ..RunOptions::default()
        },
    );
    assert!(r.truncated);
    assert_eq!(r.instances, 1001);
}

#[test]
fn inputs_are_deterministic_and_shared_by_name() {
    assert_eq!(
        stagecraft::interp::input_value("A", &[3, 4], 1),
        stagecraft::interp::input_value("A", &[3, 4], 1)
    );
    let distinct: std::collections::BTreeSet<u64> = (0..64)
        .map(|i| stagecraft::interp::input_value("A", &[i], 1).to_bits())
        .collect();
    assert!(distinct.len() > 8);
}

/// A race names the step the timeline draws its instance in, and the printed line of the wait that
/// should have covered it: the app marks both without re-deriving anything.
#[test]
fn a_race_names_its_timeline_step_and_its_wait_line() {
    for name in ["rfc_c_tvm_merged_prologue.py", "rfc_b_tvm_two_versions.py"] {
        let example = if name.starts_with("rfc_c") {
            "rfc_c_interleaved.py"
        } else {
            "rfc_b_two_async_stages.py"
        };
        let orig = original(example);
        let racy = pipelined(name);
        let v = verify(&orig, &racy, &VerifyOptions::default());
        assert!(!v.races.is_empty(), "{name}");
        let timeline = stagecraft::timeline::simulate(
            &orig,
            &racy,
            &stagecraft::cost::CostModel::default(),
            &Default::default(),
            (0, 1000),
        );
        let printed = stagecraft::tir::print(&racy);
        for r in &v.races {
            assert!(r.step >= 1, "{name}: steps count from 1");
            assert!(
                timeline
                    .spans
                    .iter()
                    // A hand-written program has no original iterations: the interpreter reports
                    // its loop variable instead, the timeline nothing.
                    .any(|s| s.step == r.step
                        && s.stmt == r.stmt
                        && (s.iteration.is_none() || s.iteration == r.iteration)),
                "{name}: no span of statement {} iteration {:?} at step {}",
                r.stmt,
                r.iteration,
                r.step
            );
            if let Some(w) = r.wait {
                let lines: Vec<usize> = printed
                    .lines
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.wait_index == Some(w.index))
                    .map(|(k, _)| k)
                    .collect();
                assert_eq!(lines.len(), 1, "{name}: one line per wait node");
                let text = printed.text.lines().nth(lines[0]).unwrap();
                assert!(
                    text.contains(&format!("async_wait_queue({}", r.group.queue)),
                    "{name}: {text}"
                );
            }
        }
    }
}

/// Past the judging limit the waits are not judged, and the summary says so instead of calling them
/// tight.
#[test]
fn waits_not_judged_for_size_are_not_called_tight() {
    let text = "B = alloc([1], scope=\"shared\")\nfor i in range(12000):\n    B[0] = A[i]\n    C[i] = B[0] + 1\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n";
    let ex = explore(text, &Options::default());
    let v = ex.verification.expect("verified");
    assert!(v.instances > stagecraft::limits::MAX_JUDGED_INSTANCES);
    assert_eq!(v.verdict, Verdict::Equivalent, "{}", v.summary);
    assert!(v.waits.iter().all(|w| w.judgement == Judgement::NotJudged));
    assert!(v.summary.contains("not judged"), "{}", v.summary);
    assert!(!v.summary.contains("all"), "{}", v.summary);
    assert_eq!(v.unjudged_for_budget, v.waits.len());
}

/// Outputs are the global buffers (kernel parameters): a `shared` or `local` buffer's final
/// value is scratch. This program computes `C` as the loop does but leaves `S` in another state
/// (its slot 1 never written, slot 0 holding another iteration's value): equivalent, and it stays
/// "different" when a global element differs.
#[test]
fn scratch_buffers_are_not_outputs() {
    let loop_text = "S = alloc([2])\nL = alloc([1], scope=\"local\")\nfor i in range(4):\n    S[i % 2] = A[i] * 2\n    L[0] = S[i % 2] + 1\n    C[i] = L[0]\n";
    let same_globals = "S = alloc([2])\nL = alloc([1], scope=\"local\")\nfor i in range(4):\n    S[0] = A[i] * 2\n    L[0] = S[0] + 1\n    C[i] = L[0]\n    L[0] = 0\n";
    let v = verify(
        &program(loop_text),
        &program(same_globals),
        &VerifyOptions::default(),
    );
    assert_eq!(v.verdict, Verdict::Equivalent, "{}", v.summary);
    assert!(v.differences.is_empty(), "{:?}", v.differences);
    let wrong_global = same_globals.replace("C[i] = L[0]", "C[i] = L[0] + 1");
    let v = verify(
        &program(loop_text),
        &program(&wrong_global),
        &VerifyOptions::default(),
    );
    assert_eq!(v.verdict, Verdict::Different, "{}", v.summary);
    assert!(
        v.differences.iter().all(|d| d.buffer == "C"),
        "{:?}",
        v.differences
    );
}

fn case(name: &str) -> String {
    std::fs::read_to_string(root().join("tests/cases").join(name)).unwrap()
}

/// A commit group's copies complete in no set order (PTX orders no `cp.async` of a group, nor
/// does anything order LDS DMAs): two writes of one element inside one group leave its value
/// undefined. TVM 0.27 commits both stage-1 writes of `S0[(i - 1) % 2, (i - 1) % 2]` in one
/// group; the run reports each as a write-after-write inside the group, with both statements
/// located and no wait blamed (no count can order them).
#[test]
fn two_writes_of_one_element_in_one_group_race() {
    let text = pipelined("same_element_tvm_one_group.py");
    let loop_program = explore(&case("async_same_element.py"), &Options::default())
        .programs
        .unwrap()
        .original;
    let v = verify(&loop_program, &text, &VerifyOptions::default());
    assert_eq!(v.verdict, Verdict::Racy, "{}", v.summary);
    let printed =
        std::fs::read_to_string(root().join("tests/pipelined/same_element_tvm_one_group.py"))
            .unwrap();
    let line_of = |span: stagecraft::diagnostic::Span| {
        stagecraft::diagnostic::line_col(&printed, span.start as usize).0
    };
    for r in &v.races {
        assert_eq!(r.kind, RaceKind::WriteAfterWrite, "{}", r.message);
        assert!(r.within_group && r.wait.is_none(), "{r:?}");
        let other = r.other.expect("the group's other write is named");
        // The second write (`= B[…]`) meets the first (`= A[…]`) of the same iteration, one
        // line above it.
        assert_eq!(other.iteration, r.iteration);
        assert_eq!(line_of(other.span) + 2, line_of(r.span), "{}", r.message);
        assert!(
            r.message.contains("in the same commit group"),
            "{}",
            r.message
        );
    }
    // Every iteration's group: 8 iterations, 8 races.
    assert_eq!(v.races.len(), 8);
    // The transform gives each write its own group, with a wait between them.
    let ex = explore(&case("async_same_element.py"), &Options::default());
    assert_eq!(
        ex.verification.as_ref().unwrap().verdict,
        Verdict::Equivalent
    );
}

/// Inside one group, a read of an element an earlier statement of the group writes, and a write
/// of an element an earlier statement of the group reads, race as well; so does a synchronous
/// read inside the commit scope of the write it needs (the group is not even committed).
#[test]
fn reads_and_writes_inside_one_group_race_with_each_other() {
    let loop_text = "S = alloc([1])\nT = alloc([1])\nfor i in range(2):\n    S[0] = A[i]\n    T[0] = S[0] + 1\n    S[0] = A[i + 1]\n    C[i] = T[0] + S[0]\n";
    let one_group = "S = alloc([1])\nT = alloc([1])\nfor i in range(2):\n    with async_commit_queue(0):\n        with async_scope():\n            S[0] = A[i]\n        with async_scope():\n            T[0] = S[0] + 1\n        with async_scope():\n            S[0] = A[i + 1]\n    with async_wait_queue(0, 0):\n        C[i] = T[0] + S[0]\n";
    let v = verify(
        &program(loop_text),
        &program(one_group),
        &VerifyOptions::default(),
    );
    assert_eq!(v.verdict, Verdict::Racy, "{}", v.summary);
    let kinds: Vec<RaceKind> = v.races.iter().take(3).map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        vec![
            RaceKind::ReadAfterWrite,
            RaceKind::WriteAfterWrite,
            RaceKind::WriteAfterRead
        ]
    );
    assert!(v.races.iter().all(|r| r.within_group && r.other.is_some()));
    let sync_read_inside = "S = alloc([1])\nT = alloc([1])\nfor i in range(2):\n    with async_commit_queue(0):\n        with async_scope():\n            S[0] = A[i]\n        T[0] = S[0] + 1\n    with async_wait_queue(0, 0):\n        S[0] = A[i + 1]\n    C[i] = T[0] + S[0]\n";
    let v = verify(
        &program(loop_text),
        &program(sync_read_inside),
        &VerifyOptions::default(),
    );
    let r = &v.races[0];
    assert_eq!(r.kind, RaceKind::ReadAfterWrite);
    assert!(!r.within_group && r.wait.is_none(), "{r:?}");
    assert!(r.message.contains("still being filled"), "{}", r.message);
}
