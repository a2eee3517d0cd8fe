//! `Options::defer_runs`: exploring without the verification and the timeline, then computing each
//! from the exploration (`explore::verification`, `explore::timeline`), gives exactly what one
//! exploration without deferral gives. The worker relies on it: it answers with the exploration
//! first and each of these parts as its own message (`core::session`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::cost::{Cost, CostModel};
use stagecraft::explore::{self, explore, Options};
use stagecraft::pipelined::Form;
use stagecraft::timeline::simulate;
use stagecraft::verify::{Verdict, VerifyOptions};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn examples() -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "the examples are missing: {files:?}");
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// What was run, so that the comparisons below cannot all pass on explorations that ran nothing.
#[derive(Default)]
struct Ran {
    verifications: usize,
    timelines: usize,
}

fn same<T: PartialEq>(name: &str, what: &str, got: &T, expected: &T) {
    assert!(got == expected, "{name}: the {what} differs");
}

/// Explores `text` both ways and asserts the deferred halves complete the deferred exploration
/// into the immediate one.
fn same_either_way(name: &str, text: &str, options: &Options, ran: &mut Ran) {
    let immediate = explore(text, options);
    let deferred = explore(
        text,
        &Options {
            defer_runs: true,
            ..options.clone()
        },
    );
    assert!(
        deferred.verification.is_none() && deferred.timeline.is_none(),
        "{name}: deferred runs were run anyway"
    );
    let verification = explore::verification(&deferred);
    let timeline = explore::timeline(&deferred);
    assert_eq!(
        verification.is_some(),
        options.verify && immediate.ok,
        "{name}"
    );
    assert_eq!(
        timeline.is_some(),
        options.timeline && immediate.ok,
        "{name}"
    );
    ran.verifications += usize::from(verification.is_some());
    ran.timelines += usize::from(timeline.is_some());
    let completed = explore::Exploration {
        verification,
        timeline,
        ..deferred
    };
    // Field by field first, to name the one that differs (a verification's trace runs to
    // megabytes when printed); then the whole value, programs included.
    same(
        name,
        "verification",
        &completed.verification,
        &immediate.verification,
    );
    same(name, "timeline", &completed.timeline, &immediate.timeline);
    same(
        name,
        "diagnostics",
        &completed.diagnostics,
        &immediate.diagnostics,
    );
    same(name, "cost", &completed.cost, &immediate.cost);
    same(
        name,
        "unit_costs",
        &completed.unit_costs,
        &immediate.unit_costs,
    );
    same(name, "exploration", &completed, &immediate);
    // Both ways share the code that runs: check it against the runs of the options as given.
    if let Some(p) = &immediate.programs {
        let pipelined = match options.form {
            Form::Rolled => &p.rolled,
            Form::Peeled => p.peeled.as_ref().unwrap(),
        };
        let verify_options = VerifyOptions {
            params: p.params.clone(),
            ..VerifyOptions::default()
        };
        // A symbolic extent is verified at several N (verify_extents); a constant one once.
        let stages = immediate.pipeline.as_ref().map_or(1, |i| i.stages + 1);
        let expected = options.verify.then(|| {
            stagecraft::verify_extents::verify_extents(
                &p.original,
                pipelined,
                &verify_options,
                stages,
            )
        });
        same(
            name,
            "verification as asked",
            &immediate.verification,
            &expected,
        );
        let expected = options.timeline.then(|| {
            let model = immediate.cost.as_ref().unwrap();
            simulate(
                &p.original,
                pipelined,
                model,
                &p.params,
                options.timeline_window,
            )
        });
        same(name, "timeline as asked", &immediate.timeline, &expected);
    }
}

fn variations() -> Vec<(&'static str, Options)> {
    let mut costly = CostModel::default();
    costly.overrides.insert(
        0,
        Cost {
            issue: 3,
            latency: 300,
        },
    );
    vec![
        ("default", Options::default()),
        (
            "peeled only",
            Options {
                form: Form::Peeled,
                both_forms: false,
                ..Options::default()
            },
        ),
        (
            "rolled only, no code (the app's program pane)",
            Options {
                both_forms: false,
                targets: Vec::new(),
                ..Options::default()
            },
        ),
        (
            "timeline off",
            Options {
                timeline: false,
                ..Options::default()
            },
        ),
        (
            "verify off",
            Options {
                verify: false,
                ..Options::default()
            },
        ),
        (
            "another cost model and window, no code",
            Options {
                cost: costly,
                timeline_window: (2, 5),
                targets: Vec::new(),
                ..Options::default()
            },
        ),
    ]
}

#[test]
fn every_example_explores_the_same_deferred_and_completed() {
    let mut ran = Ran::default();
    for (file, text) in examples() {
        for (variation, options) in variations() {
            same_either_way(&format!("{file}, {variation}"), &text, &options, &mut ran);
        }
    }
    assert!(ran.verifications > 0 && ran.timelines > 0);
}

/// The peeled program is built only when it is printed, emitted or run, or asked for (it writes
/// every prologue and epilogue step out); leaving it out changes nothing else.
#[test]
fn the_peeled_program_is_built_only_when_used() {
    let rolled_only = Options {
        both_forms: false,
        targets: Vec::new(),
        ..Options::default()
    };
    for (file, text) in examples() {
        let full = explore(&text, &Options::default());
        let ex = explore(&text, &rolled_only);
        assert!(ex.ok && full.ok, "{file}");
        let (p, q) = (
            ex.programs.as_ref().unwrap(),
            full.programs.as_ref().unwrap(),
        );
        assert!(p.peeled.is_none() && q.peeled.is_some(), "{file}");
        assert!(ex.peeled.is_none() && ex.code.is_empty(), "{file}");
        same(&file, "rolled program", &p.rolled, &q.rolled);
        same(&file, "printed rolled form", &ex.rolled, &full.rolled);
        same(&file, "waits", &ex.waits, &full.waits);
        same(&file, "buffers", &ex.buffers, &full.buffers);
        same(
            &file,
            "iteration space",
            &ex.iteration_space,
            &full.iteration_space,
        );
        same(&file, "verification", &ex.verification, &full.verification);
        same(&file, "timeline", &ex.timeline, &full.timeline);
        // Printing the peeled form, emitting or running it builds it.
        for options in [
            Options {
                form: Form::Peeled,
                ..rolled_only.clone()
            },
            Options {
                targets: vec![stagecraft::emit::Target::Ptx],
                ..rolled_only.clone()
            },
            Options {
                peeled_program: true,
                ..rolled_only.clone()
            },
        ] {
            let ex = explore(&text, &options);
            let peeled = ex.programs.as_ref().and_then(|p| p.peeled.as_ref());
            same(&file, "peeled program", &peeled, &q.peeled.as_ref());
        }
    }
}

#[test]
fn a_parameter_value_reaches_the_deferred_runs() {
    let text = std::fs::read_to_string(root().join("tests/cases/symbolic_extent.py")).unwrap();
    let mut ran = Ran::default();
    let mut steps = Vec::new();
    for n in [3, 40] {
        for form in [Form::Rolled, Form::Peeled] {
            let options = Options {
                params: [("N".to_string(), n)].into(),
                form,
                ..Options::default()
            };
            same_either_way(&format!("N = {n}, {form:?}"), &text, &options, &mut ran);
            let deferred = explore(
                &text,
                &Options {
                    defer_runs: true,
                    ..options
                },
            );
            let v = explore::verification(&deferred).unwrap();
            assert_eq!(v.params.get("N"), Some(&n));
            steps.push(explore::timeline(&deferred).unwrap().metrics.steps);
        }
    }
    // Each form's simulation ran 37 steps more at N = 40 than at N = 3.
    assert!(
        steps[2] == steps[0] + 37 && steps[3] == steps[1] + 37,
        "{steps:?}"
    );
}

#[test]
fn runs_beyond_the_limits_and_failed_explorations_defer_the_same() {
    // Beyond the interpreter's limit (refused, "not run") and the timeline's (cut short).
    let long = "B = alloc([1], scope=\"shared\")\nfor i in range(60000):\n    B[0] = A[i]\n    C[i] = B[0] + 1\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n";
    let mut ran = Ran::default();
    same_either_way("long loop", long, &Options::default(), &mut ran);
    let deferred = explore(
        long,
        &Options {
            defer_runs: true,
            ..Options::default()
        },
    );
    assert_eq!(
        explore::verification(&deferred).unwrap().verdict,
        Verdict::NotRun
    );
    assert!(explore::timeline(&deferred).unwrap().step_limit.is_some());
    // A text with errors has no program: nothing is deferred, nothing is computed later.
    let broken = "for i in range(8):\n    B[i] = = A[i]\n";
    let ex = explore(
        broken,
        &Options {
            defer_runs: true,
            ..Options::default()
        },
    );
    assert!(!ex.ok && ex.programs.is_none());
    assert!(explore::verification(&ex).is_none() && explore::timeline(&ex).is_none());
    same_either_way("broken", broken, &Options::default(), &mut ran);
}

/// Without machine code, an exploration still builds the peeled program emitting would have been
/// given, and prints nothing more than it did.
#[test]
fn without_code_keeps_the_peeled_program_emitting_needs() {
    let text = std::fs::read_to_string(root().join("examples/rfc_b_two_async_stages.py")).unwrap();
    let app = Options {
        both_forms: false,
        targets: vec![stagecraft::emit::Target::Ptx],
        ..Options::default()
    };
    let emitting = explore(&text, &app);
    let ex = explore(&text, &app.clone().without_code());
    assert!(ex.ok && ex.code.is_empty() && !emitting.code.is_empty());
    assert!(ex.peeled.is_none(), "the peeled form is built, not printed");
    same(
        "rfc_b",
        "peeled program",
        &ex.programs.as_ref().and_then(|p| p.peeled.as_ref()),
        &emitting.programs.as_ref().and_then(|p| p.peeled.as_ref()),
    );
    same("rfc_b", "printed rolled form", &ex.rolled, &emitting.rolled);
    // Options that emit nothing are left as they are.
    let program_pane = Options {
        targets: Vec::new(),
        ..app
    };
    assert_eq!(program_pane.clone().without_code(), program_pane);
}
