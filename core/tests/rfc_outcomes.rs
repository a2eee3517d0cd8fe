//! The reference outcomes from RFC 0077's examples (issue 2), asserted on the derived waits.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::ir::SectionKind;

fn example(name: &str) -> Exploration {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name);
    let ex = explore(&std::fs::read_to_string(path).unwrap(), &Options::default());
    assert!(ex.ok, "{name}: {:?}", ex.diagnostics);
    ex
}

/// (queue, counts) of every wait in a section, in order.
fn waits(ex: &Exploration, section: SectionKind) -> Vec<(i64, Vec<i64>)> {
    ex.waits
        .iter()
        .filter(|w| w.section == section && w.before.is_some())
        .map(|w| (w.queue, w.instances.iter().map(|i| i.count).collect()))
        .collect()
}

fn versions(ex: &Exploration, buffer: &str) -> u32 {
    ex.buffers
        .iter()
        .find(|b| b.name == buffer)
        .unwrap()
        .versions
}

#[test]
fn a_one_group_in_the_prologue_wait_1_in_the_body_wait_0_in_the_epilogue() {
    let ex = example("rfc_a_async_copy.py");
    assert_eq!(waits(&ex, SectionKind::Prologue), vec![]);
    assert_eq!(waits(&ex, SectionKind::Body), vec![(0, vec![1])]);
    assert_eq!(waits(&ex, SectionKind::Epilogue), vec![(0, vec![0])]);
    let peeled = &ex.peeled.as_ref().unwrap().text;
    let prologue = peeled.split("# body").next().unwrap();
    assert_eq!(prologue.matches("async_commit_queue(0)").count(), 1);
    assert!(peeled.contains("for i in range(1, 16):"));
    assert_eq!(versions(&ex, "B"), 2);
}

#[test]
fn b_waits_on_both_queues_and_b_gets_a_third_version_for_its_async_reader() {
    let ex = example("rfc_b_two_async_stages.py");
    assert_eq!(
        waits(&ex, SectionKind::Body),
        vec![(0, vec![1]), (1, vec![1])]
    );
    assert_eq!(versions(&ex, "B"), 3);
    assert!(ex
        .buffers
        .iter()
        .find(|b| b.name == "B")
        .unwrap()
        .reason
        .as_ref()
        .unwrap()
        .contains("asynchronously"));
}

#[test]
fn c_the_steady_state_waits_for_five_groups_and_the_prologue_groups_like_the_body() {
    let ex = example("rfc_c_interleaved.py");
    assert_eq!(waits(&ex, SectionKind::Body), vec![(0, vec![5])]);
    let body_wait = ex
        .waits
        .iter()
        .find(|w| w.section == SectionKind::Body)
        .unwrap();
    assert!(
        body_wait.instances[0].arithmetic.ends_with("= 5"),
        "{}",
        body_wait.instances[0].arithmetic
    );
    // Two groups per step everywhere, so the first body iterations need 5 as well.
    assert_eq!(ex.groups.len(), 2);
    let prologue = ex
        .peeled
        .as_ref()
        .unwrap()
        .text
        .split("# body")
        .next()
        .unwrap()
        .to_string();
    assert_eq!(prologue.matches("async_commit_queue(0)").count(), 6);
}

#[test]
fn d_a_consumer_in_its_producers_stage_waits_for_zero() {
    let ex = example("rfc_d_same_stage.py");
    let body = waits(&ex, SectionKind::Body);
    assert!(body.contains(&(0, vec![0])), "{body:?}");
}

#[test]
fn e_the_nested_gemm_waits_for_two_and_drains_without_negative_counts() {
    let ex = example("rfc_e_nested_gemm.py");
    assert_eq!(waits(&ex, SectionKind::Body), vec![(0, vec![2])]);
    assert_eq!(ex.pipeline.as_ref().unwrap().units.len(), 5);
    for w in &ex.waits {
        assert!(w.instances.iter().all(|i| i.count >= 0));
    }
    let epilogue = waits(&ex, SectionKind::Epilogue);
    assert_eq!(epilogue, vec![(0, vec![1, 0])]);
    assert_eq!(versions(&ex, "A_shared"), 4);
    assert_eq!(versions(&ex, "A_local"), 2);
}

#[test]
fn e_the_inner_pipelines_sections_are_units_that_name_their_loop_and_part() {
    let ex = example("rfc_e_nested_gemm.py");
    let parts: Vec<Option<(String, SectionKind)>> = ex
        .pipeline
        .as_ref()
        .unwrap()
        .units
        .iter()
        .map(|u| u.inner.as_ref().map(|p| (p.header.clone(), p.section)))
        .collect();
    let k1 = "`for k1 in range(4):` (line 15)".to_string();
    assert_eq!(
        parts,
        [
            None,
            None,
            Some((k1.clone(), SectionKind::Prologue)),
            Some((k1.clone(), SectionKind::Body)),
            Some((k1, SectionKind::Epilogue)),
        ]
    );
    let flat = example("cutlass_multistage.py");
    assert!(flat
        .pipeline
        .unwrap()
        .units
        .iter()
        .all(|u| u.inner.is_none()));
}

/// RFC (d) in its nested-GEMM form (the RFC's "mistaken" stages `[0, 0, 0, 3, 3]`): the inner
/// prologue runs three outer iterations ahead of the inner body that reads what it loads, so
/// `A_local` / `B_local` get a copy per outer iteration in flight — 4 versions of the inner
/// pipeline's 2-slot ring, as TVM 0.27 versions them — and the program is verified (it was
/// refused, "the pipeline reorders a write-after-write dependence on `A_local`").
#[test]
fn d_the_nested_gemm_versions_the_inner_ring_per_outer_iteration() {
    let ex = example("rfc_d_nested_gemm.py");
    for name in ["A_local", "B_local"] {
        let b = ex.buffers.iter().find(|b| b.name == name).unwrap();
        assert_eq!(b.versions, 4, "{name}");
        assert_eq!(
            b.shape,
            Some(vec![2, 4]),
            "{name}: each version is the inner ring"
        );
        assert!(b.reason.as_ref().unwrap().contains("4 × 2 = 8 copies"));
    }
    let rolled = &ex.rolled.as_ref().unwrap().text;
    assert!(rolled.contains("A_local = alloc([4, 2, 4]"), "{rolled}");
    assert!(rolled.contains("A_local[k0 % 4, 0, x] = A_shared[k0 % 4, x, 0]"));
    assert!(rolled.contains("A_local[(k0 - 3) % 4, (k1 - 1) % 2, x]"));
    let v = ex.verification.as_ref().unwrap();
    assert_eq!(
        v.verdict,
        stagecraft::verify::Verdict::Equivalent,
        "{}",
        v.summary
    );
}

/// A nested schedule refused for a reason that holds (the inner epilogue of one outer iteration
/// accumulates into `C_local` three stages after the next iteration's inner body reads it) names
/// two units of the outer loop — sections of the inner loop, not a loop and a statement inside
/// it — and the distance, and its hint says what to change without blaming TVM.
#[test]
fn a_refused_nested_schedule_names_two_sections_and_the_distance() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/rfc_d_nested_gemm.py");
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("[0, 0, 0, 3, 3]", "[0, 0, 0, 0, 3]");
    let ex = explore(&text, &Options::default());
    assert!(!ex.ok);
    let d = ex
        .diagnostics
        .iter()
        .find(|d| {
            d.message
                .contains("read-after-write dependence on `C_local`")
        })
        .unwrap();
    assert!(
        d.message.contains("the epilogue of `for k1 in range(4):` (line 18) must run before the body of `for k1 in range(4):` (line 18) 1 iteration later"),
        "{}",
        d.message
    );
    let hint = d.hint.as_ref().unwrap();
    assert!(
        hint.contains("runs 2 steps after") && hint.contains("a stage at most 1 (it has 3)"),
        "{hint}"
    );
    assert!(!hint.contains("TVM"), "{hint}");
}
