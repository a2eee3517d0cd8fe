//! The transform's soundness, judged by the interpreter: random loops whose indices use `%`, `//`,
//! `min`, `max`, conditional expressions and statements, user-written rings and reads across
//! iterations, under random stages, orders and async stages. Every schedule is either refused with
//! a located error or pipelined into a program the verifier finds valid (never `Verdict::Invalid`),
//! race-free and computing the same outputs — at the loop's own extent and, for a symbolic extent,
//! at N = 0 … S + 2. (The peeled form, which the targets emit, is checked strictly for a target on
//! every example and golden case: `golden.rs`.)
//!
//! `SOUNDNESS_CASES=N` runs another number of loops; `SOUNDNESS_SEED=K` runs only loop K.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Options};
use stagecraft::random_loop::{random_loop, Flavor};
use stagecraft::verify::{verify, Verdict, VerifyOptions};
use std::collections::BTreeMap;

enum Outcome {
    Refused,
    Verified,
    Unsound(String),
}

fn check(text: &str, max_stage: i64, symbolic: bool) -> Outcome {
    let options = Options {
        targets: Vec::new(),
        timeline: false,
        both_forms: false,
        ..Options::default()
    };
    let ex = explore(text, &options);
    if !ex.ok {
        let located = ex
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.span.end > d.span.start);
        return if located {
            Outcome::Refused
        } else {
            Outcome::Unsound(format!(
                "refused without a located error: {:?}",
                ex.diagnostics
            ))
        };
    }
    let Some(pipelined) = ex.programs.as_ref().and_then(|p| p.pipelined()) else {
        return Outcome::Unsound("explored ok but no pipelined program".into());
    };
    let original = &ex.programs.as_ref().unwrap().original;
    let extents: Vec<Option<i64>> = if symbolic {
        (0..=max_stage + 2).map(Some).collect()
    } else {
        vec![None]
    };
    for n in extents {
        let mut params = BTreeMap::new();
        if let Some(n) = n {
            params.insert("N".to_string(), n);
        }
        let v = verify(
            original,
            pipelined,
            &VerifyOptions {
                params,
                judge_waits: false,
                trace: false,
                ..VerifyOptions::default()
            },
        );
        if v.verdict == Verdict::Invalid {
            return Outcome::Unsound(format!(
                "N = {n:?}: the derived program is invalid: {}\n{:?}\n--- pipelined ---\n{}",
                v.summary,
                v.problems,
                ex.rolled.as_ref().map_or("", |p| p.text.as_str())
            ));
        }
        let sound = matches!(v.verdict, Verdict::Equivalent | Verdict::SafeButLoose)
            && v.random_races.iter().all(|(_, races)| *races == 0)
            && v.problems.is_empty();
        if !sound {
            return Outcome::Unsound(format!(
                "N = {n:?}: {:?}: {}\n{:?}\n{:?}\n{:?}\n--- pipelined ---\n{}",
                v.verdict,
                v.summary,
                v.races.first(),
                v.differences.first(),
                v.problems.first(),
                ex.rolled.as_ref().map_or("", |p| p.text.as_str())
            ));
        }
    }
    Outcome::Verified
}

#[test]
fn every_random_schedule_is_refused_with_a_reason_or_verified() {
    let cases: u64 = std::env::var("SOUNDNESS_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let seeds: Vec<u64> = match std::env::var("SOUNDNESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(seed) => vec![seed],
        None => (0..cases).collect(),
    };
    let (mut refused, mut pipelined, mut failures) = (0, 0, Vec::new());
    for seed in seeds {
        let l = random_loop(seed, Flavor::Irregular);
        let text = l.text();
        match check(&text, l.max_stage(), l.extent.is_none()) {
            Outcome::Unsound(why) => failures.push(format!("seed {seed}:\n{text}{why}")),
            Outcome::Verified => pipelined += 1,
            Outcome::Refused => refused += 1,
        }
    }
    eprintln!(
        "{pipelined} pipelined and verified, {refused} refused with a located error, {} unsound",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} unsound schedule(s); the first:\n{}",
        failures.len(),
        failures.first().map_or("", String::as_str)
    );
}
