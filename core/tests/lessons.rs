//! Every lesson (issue 24): its start does not meet its task, a solution does, and its text is
//! short. The solutions live here, not in the app.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, CountOverride, Options};
use stagecraft::ir::SectionKind;
use stagecraft::lessons::{lesson, lessons, Lesson, TaskStatus};

fn status(lesson: &Lesson, source: &str, overrides: Vec<CountOverride>) -> TaskStatus {
    let options = Options {
        count_overrides: overrides,
        targets: Vec::new(),
        ..Options::default()
    };
    lesson.check(&explore(source, &options))
}

fn raise_body_wait(before: &str, queue: i64) -> Vec<CountOverride> {
    vec![CountOverride {
        wait: stagecraft::explore::WaitKey {
            queue,
            section: SectionKind::Body,
            before: Some(before.into()),
            occurrence: 0,
        },
        delta: 1,
    }]
}

/// A solution per lesson: the text the learner might arrive at, and the counts moved by hand.
fn solution(id: &str) -> (String, Vec<CountOverride>) {
    let l = lesson(id).unwrap();
    let s = l.source;
    match id {
        "two-stages" => (s.replace("[0, 0]", "[0, 1]"), Vec::new()),
        "versions" => (s.replace("stage\", [0, 1]", "stage\", [0, 2]"), Vec::new()),
        "async-count" => (s.replace("stage\", [0, 1]", "stage\", [0, 2]"), Vec::new()),
        "race-free" => (s.to_string(), Vec::new()),
        "two-queues" => (
            s.replace("async_stages\", [0]", "async_stages\", [0, 1]"),
            Vec::new(),
        ),
        "tvm-race" => (
            s.to_string(),
            raise_body_wait("C[i] = A_sh[0] + B_sh[0]", 0),
        ),
        other => panic!("no solution for lesson {other}"),
    }
}

#[test]
fn every_lesson_starts_unmet_and_its_solution_meets_it() {
    assert!(lessons().len() >= 6);
    for l in lessons() {
        let start = status(l, l.source, l.start_overrides());
        assert!(
            !start.met,
            "{}: the start already meets the task: {}",
            l.id, start.why
        );
        assert!(!start.why.is_empty());
        let (text, overrides) = solution(l.id);
        let solved = status(l, &text, overrides);
        assert!(
            solved.met,
            "{}: the solution does not meet the task: {}",
            l.id, solved.why
        );
        eprintln!("{}\n  start: {}\n  solved: {}", l.id, start.why, solved.why);
    }
}

#[test]
fn a_met_task_turns_unmet_when_the_schedule_stops_meeting_it() {
    let l = lesson("race-free").unwrap();
    assert!(status(l, l.source, Vec::new()).met);
    let again = status(l, l.source, l.start_overrides());
    assert!(!again.met);
    assert!(
        again
            .why
            .contains("lets 2 groups stay in flight where the schedule allows 1"),
        "{}",
        again.why
    );
}

#[test]
fn lesson_texts_are_at_most_150_words_and_ids_are_unique() {
    for l in lessons() {
        let words = l.text.split_whitespace().count() + l.task.split_whitespace().count();
        assert!(words <= 150, "{}: {words} words", l.id);
        assert_eq!(lessons().iter().filter(|m| m.id == l.id).count(), 1);
        assert!(explore(l.source, &Options::default()).ok, "{}", l.id);
    }
}

/// The "why N" of every wait of the RFC examples names each symbol its arithmetic uses, one
/// sentence per symbol, with this schedule's value.
#[test]
fn why_n_names_every_symbol_with_its_value() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for name in [
        "rfc_a_async_copy.py",
        "rfc_b_two_async_stages.py",
        "rfc_c_interleaved.py",
        "cutlass_multistage.py",
    ] {
        let ex = explore(
            &std::fs::read_to_string(dir.join(name)).unwrap(),
            &Options::default(),
        );
        let mut seen = 0;
        for site in ex.waits.iter().filter(|w| w.before.is_some()) {
            for i in site
                .instances
                .iter()
                .take(stagecraft::sync::EXPLAINED_INSTANCES)
            {
                let formula = i.arithmetic.split(" = ").nth(1).unwrap_or("");
                for symbol in [
                    "g",
                    "s_consumer",
                    "s_producer",
                    "d",
                    "committed_this_step",
                    "slot",
                    "committed",
                    "needed",
                    "k",
                ] {
                    let used = formula
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == symbol);
                    if used {
                        let prefix = format!("{symbol} = ");
                        let sentence = i.symbols.iter().find(|s| s.starts_with(&prefix));
                        assert!(
                            sentence.is_some(),
                            "{name}: {symbol} of `{}` unexplained: {:?}",
                            i.arithmetic,
                            i.symbols
                        );
                        // Its value is this schedule's: a number right after "symbol = ".
                        let value = sentence.unwrap()[prefix.len()..].split(':').next().unwrap();
                        assert!(value.parse::<i64>().is_ok(), "{name}: {value}");
                    }
                }
                assert!(
                    i.symbols
                        .iter()
                        .any(|s| s.starts_with(&format!("N = {}:", i.count))),
                    "{name}: {:?}",
                    i.symbols
                );
                seen += 1;
            }
        }
        assert!(seen > 0, "{name} has waits");
    }
    let a = explore(
        &std::fs::read_to_string(dir.join("rfc_a_async_copy.py")).unwrap(),
        &Options::default(),
    );
    let body = a
        .waits
        .iter()
        .find(|w| w.section == SectionKind::Body)
        .unwrap();
    eprintln!(
        "{}\n{}",
        body.instances[0].arithmetic,
        body.instances[0].symbols.join("\n")
    );
}

/// The first instances of each wait are explained (the page shows those) and the rest are not:
/// the explanations are written after the waits are derived (`SyncPlan::explain`), from the
/// numbers noted for those instances only.
#[test]
fn the_first_instances_of_each_wait_are_explained_and_only_those() {
    let stages = 9;
    let mut source = String::new();
    for s in 0..stages {
        source.push_str(&format!("T{s} = alloc([1])\n"));
    }
    source.push_str("for i in range(16):\n    T0[0] = A[i] + 1\n");
    for s in 1..stages {
        source.push_str(&format!("    T{s}[0] = T{}[0] + 1\n", s - 1));
    }
    source.push_str(&format!("    O[i] = T{}[0] + 1\n", stages - 1));
    let list = |f: &dyn Fn(i64) -> i64| {
        (0..=stages)
            .map(|s| f(s).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    source.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_stage\", [{}])\n",
        list(&|s| s)
    ));
    source.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_order\", [{}])\n",
        list(&|s| s)
    ));
    source.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_async_stages\", [{}])\n",
        (0..stages)
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let ex = explore(&source, &Options::default());
    assert!(ex.ok, "{:?}", ex.diagnostics);
    let shown = stagecraft::sync::EXPLAINED_INSTANCES;
    let mut past = 0;
    for site in ex.waits.iter().filter(|w| w.before.is_some()) {
        for (k, i) in site.instances.iter().enumerate() {
            if k < shown {
                assert!(
                    i.arithmetic.ends_with(&format!("= {}", i.count))
                        || i.arithmetic.contains(&format!("= {} (", i.count)),
                    "site {} instance {k}: {}",
                    site.id,
                    i.arithmetic
                );
                assert!(!i.symbols.is_empty() && i.forces.is_some());
            } else {
                past += 1;
                assert!(i.arithmetic.is_empty() && i.symbols.is_empty() && i.forces.is_none());
            }
        }
    }
    assert!(past > 0, "some wait has more than {shown} instances");
}
