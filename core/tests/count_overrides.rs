//! Wait counts set by hand (issue 24, "break it to understand it"): the changed count is the
//! program's, so the verifier, the timeline and the emitted code see it; the exploration still
//! says what was derived.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, CountOverride, Exploration, Options, WaitCount};
use stagecraft::ir::SectionKind;
use stagecraft::verify::{Judgement, Verdict};

fn rfc_a() -> String {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/rfc_a_async_copy.py");
    std::fs::read_to_string(path).unwrap()
}

fn body_wait(ex: &Exploration) -> &WaitCount {
    ex.counts
        .iter()
        .find(|c| c.key.section == SectionKind::Body && c.key.before.is_some())
        .unwrap()
}

fn with_delta(source: &str, base: &Exploration, delta: i64) -> Exploration {
    let options = Options {
        count_overrides: vec![CountOverride {
            wait: body_wait(base).key.clone(),
            delta,
        }],
        ..Options::default()
    };
    explore(source, &options)
}

#[test]
fn raising_a_needed_wait_by_one_races_where_the_verifier_says() {
    let source = rfc_a();
    let derived = explore(&source, &Options::default());
    assert_eq!(
        derived.verification.as_ref().unwrap().verdict,
        Verdict::Equivalent
    );
    assert!(!derived.counts_by_hand);
    let wait = body_wait(&derived).clone();
    assert_eq!((wait.derived, wait.in_effect), (1, 1));
    assert_eq!(wait.key.before.as_deref(), Some("C[i] = B[0] + 1"));

    let raised = with_delta(&source, &derived, 1);
    assert!(raised.counts_by_hand);
    let changed = body_wait(&raised);
    assert_eq!((changed.derived, changed.in_effect), (1, 2));
    let v = raised.verification.as_ref().unwrap();
    assert_eq!(v.verdict, Verdict::Racy, "{}", v.summary);
    // The race is on B, read by the consumer the raised wait stands before, and is blamed on it.
    let race = v.races.first().unwrap();
    assert_eq!(race.buffer, "B");
    let blamed = race.wait.as_ref().and_then(|w| w.id);
    assert_eq!(blamed, Some(wait.wait));
    // The printed programs and the emitted code run the raised count.
    let rolled = &raised.rolled.as_ref().unwrap().text;
    assert!(rolled.contains("async_wait_queue(0, 2)"), "{rolled}");
    assert!(!derived
        .rolled
        .as_ref()
        .unwrap()
        .text
        .contains("async_wait_queue(0, 2)"));
    assert_ne!(
        raised.code.iter().map(|c| &c.text).collect::<Vec<_>>(),
        derived.code.iter().map(|c| &c.text).collect::<Vec<_>>()
    );
    // Said once, in `counts`: no note repeats it.
    assert!(raised.notes.is_empty(), "{:?}", raised.notes);
}

/// The verifier finds a racy wait's fix by running lower counts, not from the derivation: raised by
/// `k`, the body wait of RFC (a) is `k` too high.
#[test]
fn a_racy_wait_says_how_much_lower_its_count_must_be() {
    let source = rfc_a();
    let derived = explore(&source, &Options::default());
    let id = body_wait(&derived).wait;
    for k in 1..=2 {
        let raised = with_delta(&source, &derived, k);
        let v = raised.verification.as_ref().unwrap();
        assert_eq!(v.verdict, Verdict::Racy, "+{k}: {}", v.summary);
        let w = v.waits.iter().find(|w| w.id == Some(id)).unwrap();
        assert_eq!(
            (w.judgement, w.lower_by),
            (Judgement::Racy, Some(k)),
            "+{k}"
        );
        // Waits that are not racy have no fix.
        assert!(v
            .waits
            .iter()
            .filter(|w| w.judgement != Judgement::Racy)
            .all(|w| w.lower_by.is_none()));
    }
}

#[test]
fn lowering_a_wait_by_one_stays_correct_and_loses_overlap() {
    let source = rfc_a();
    let derived = explore(&source, &Options::default());
    let lowered = with_delta(&source, &derived, -1);
    let v = lowered.verification.as_ref().unwrap();
    assert!(
        v.races.is_empty() && v.differences.is_empty(),
        "{}",
        v.summary
    );
    // Same outputs and no race: the verifier calls it loose (not "equivalent"), and names the
    // lowered wait as the one that could let one more group stay in flight.
    assert_eq!(v.verdict, Verdict::SafeButLoose, "{}", v.summary);
    let lowered_id = body_wait(&derived).wait;
    assert!(
        v.waits
            .iter()
            .any(|w| w.id == Some(lowered_id) && w.judgement == Judgement::LooseBy { k: 1 }),
        "{:?}",
        v.waits
    );
    let before = &derived.timeline.as_ref().unwrap().metrics;
    let after = &lowered.timeline.as_ref().unwrap().metrics;
    assert!(
        after.total_cycles > before.total_cycles,
        "{} vs {}",
        after.total_cycles,
        before.total_cycles
    );
    assert!(after.stall_cycles > before.stall_cycles);
}

#[test]
fn a_count_below_zero_is_dropped_with_a_note() {
    let source = rfc_a();
    let derived = explore(&source, &Options::default());
    let too_low = with_delta(&source, &derived, -2);
    assert!(!too_low.counts_by_hand);
    assert_eq!(too_low.rolled, derived.rolled);
    assert!(
        too_low
            .notes
            .iter()
            .any(|n| n.contains("would be negative")),
        "{:?}",
        too_low.notes
    );
}

#[test]
fn an_override_of_a_wait_an_edit_removed_is_dropped_with_a_note() {
    let source = rfc_a();
    let derived = explore(&source, &Options::default());
    let edited = source.replace("C[i] = B[0] + 1", "C[i] = B[0] + 2");
    let after_edit = with_delta(&edited, &derived, 1);
    assert!(after_edit.ok);
    assert!(!after_edit.counts_by_hand);
    assert_eq!(
        after_edit.verification.as_ref().unwrap().verdict,
        Verdict::Equivalent
    );
    assert!(
        after_edit
            .notes
            .iter()
            .any(|n| n.contains("no such wait any more")),
        "{:?}",
        after_edit.notes
    );
    // An edit to another line keeps the override on its wait.
    let elsewhere = source.replace("B[0] = A[i] + 1", "B[0] = A[i] + 3");
    let kept = with_delta(&elsewhere, &derived, 1);
    assert!(kept.counts_by_hand);
    assert_eq!(kept.verification.as_ref().unwrap().verdict, Verdict::Racy);
    // The same text explored again gives the same keys.
    assert_eq!(explore(&source, &Options::default()).counts, derived.counts);
}
