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
