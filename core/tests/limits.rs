//! Every documented limit (docs/limits.md) is enforced with a plain, located message — and nothing
//! beyond a limit is attempted.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Options};
use stagecraft::limits;

fn messages(text: &str) -> Vec<String> {
    explore(text, &Options::default())
        .diagnostics
        .into_iter()
        .map(|d| d.message)
        .collect()
}

#[test]
fn source_size() {
    let text = format!("# {}\n", "x".repeat(limits::MAX_SOURCE_BYTES));
    assert_eq!(
        messages(&text),
        [format!(
            "the text is {} bytes; Stagecraft reads at most 65536 bytes",
            limits::MAX_SOURCE_BYTES + 3
        )]
    );
}

#[test]
fn source_lines() {
    let at_the_limit = "\n".repeat(limits::MAX_SOURCE_LINES - 1);
    assert!(limits::source_beyond_limits(&at_the_limit).is_none());
    assert_eq!(
        messages(&format!("{at_the_limit}\n")),
        ["the text has 4097 lines; Stagecraft reads at most 4096 lines"]
    );
}

#[test]
fn nesting_depth() {
    let mut text = String::new();
    for d in 0..(limits::MAX_NESTING + 4) {
        text.push_str(&format!("{}for v{d} in range(2):\n", "    ".repeat(d)));
    }
    text.push_str(&format!(
        "{}C[0] = 1\n",
        "    ".repeat(limits::MAX_NESTING + 4)
    ));
    assert!(messages(&text)
        .iter()
        .any(|m| m.contains("nested more than")));
    let deep_expr = format!(
        "for i in range(2):\n    C[i] = {}1{}\n",
        "(".repeat(400),
        ")".repeat(400)
    );
    assert!(messages(&deep_expr)
        .iter()
        .any(|m| m.contains("nested too deeply")));
}

/// Explores `text` with every phase the app runs (verification, timeline, every machine target) on
/// a thread with a 1 MiB stack, about what the browser gives WebAssembly, and returns the messages.
fn messages_on_a_small_stack(text: String) -> Vec<String> {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let options = Options {
                targets: stagecraft::emit::Target::ALL.to_vec(),
                ..Options::default()
            };
            let ex = explore(&text, &options);
            let _ = stagecraft::explore::verification(&ex);
            let _ = stagecraft::explore::timeline(&ex);
            ex.diagnostics.into_iter().map(|d| d.message).collect()
        })
        .unwrap()
        .join()
        .expect("exploring overflowed a 1 MiB stack")
}

#[test]
fn operator_chains() {
    let sum = |terms: usize| {
        format!(
            "for i in range(4):\n    C[i] = A[i]{}\n",
            " + 1".repeat(terms)
        )
    };
    // At the limit, every phase walks the tree (one level per operator) within the stack.
    let at_limit = messages_on_a_small_stack(sum(limits::MAX_OPERATORS));
    assert!(
        at_limit.iter().all(|m| !m.contains("operators")),
        "{at_limit:?}"
    );
    // The browser's hostile text (e2e/fresh.mjs "long-sum"): a located error, not a stack overflow.
    let beyond = messages_on_a_small_stack(sum(16_000));
    assert!(
        beyond
            .iter()
            .any(|m| m == "this statement has more than 1024 operators"),
        "{beyond:?}"
    );
    // The count starts again at every statement.
    let two = format!("{}    D[i] = A[i]{}\n", sum(1000), " + 1".repeat(1000));
    assert!(messages_on_a_small_stack(two)
        .iter()
        .all(|m| !m.contains("operators")));
}

#[test]
fn statement_count() {
    let mut text = String::from("for i in range(2):\n");
    for k in 0..(limits::MAX_STATEMENTS + 3) {
        text.push_str(&format!("    C{k}[i] = A[i]\n"));
    }
    assert!(messages(&text)
        .iter()
        .any(|m| m.contains("statements; the rest are ignored")));
}

#[test]
fn stage_numbers() {
    let text = format!(
        "for i in range(4):\n    C[i] = A[i]\nsch.annotate(i, \"software_pipeline_stage\", [{}])\nsch.annotate(i, \"software_pipeline_order\", [0])\n",
        limits::MAX_STAGE + 1
    );
    assert!(messages(&text)
        .iter()
        .any(|m| m.contains("stages run from 0 to")));
}

#[test]
fn constant_extents() {
    let text = format!(
        "for i in range({}):\n    C[0] = A[0]\n",
        limits::MAX_EXTENT + 1
    );
    assert!(messages(&text)
        .iter()
        .any(|m| m.contains("above Stagecraft's limit")));
}

#[test]
fn buffer_elements() {
    let text = format!(
        "B = alloc([{}, 2])\nfor i in range(4):\n    B[0, 0] = A[i]\n",
        limits::MAX_BUFFER_ELEMENTS
    );
    assert!(messages(&text).iter().any(|m| m.contains("elements")));
}

#[test]
fn huge_symbolic_extent_is_not_interpreted_beyond_the_cap() {
    let text = "B = alloc([1])\nfor i in range(N):\n    B[0] = A[i] + 1\n    C[i] = B[0] + 1\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n";
    let mut opts = Options::default();
    opts.params.insert("N".into(), 10_000_000);
    let ex = explore(text, &opts);
    assert!(ex.ok);
    let v = ex.verification.unwrap();
    assert_eq!(v.verdict, stagecraft::verify::Verdict::NotRun);
    assert!(v.summary.contains("not verified"), "{}", v.summary);
    let t = ex.timeline.unwrap();
    assert!(t.metrics.steps <= limits::MAX_TIMELINE_STEPS as u64 + 1);
}

/// A loop of `n` independent statements over `extent` iterations.
fn independent_statements(n: usize, extent: &str) -> String {
    let mut text = format!("for i in range({extent}):\n");
    for k in 0..n {
        text.push_str(&format!("    C{k}[i] = A[i] + {k}\n"));
    }
    text
}

#[test]
fn a_loop_of_many_statements_simulates_fewer_steps() {
    // 100 statements × 5 000 iterations: the instance cap, not the step cap, stops the timeline.
    let text = independent_statements(100, "5000");
    let ex = explore(&text, &Options::default());
    assert!(ex.ok, "{:?}", ex.diagnostics);
    let t = ex.timeline.unwrap();
    let limit = (limits::MAX_TIMELINE_INSTANCES / 100) as u64;
    assert_eq!(t.step_limit, Some(limit));
    assert_eq!(t.metrics.steps, limit);
    assert_eq!(
        t.metrics.speedup, None,
        "the runs stopped at different points"
    );
    // A short loop is simulated whole.
    let short = explore(
        "for i in range(64):\n    C[i] = A[i] + 1\n",
        &Options::default(),
    );
    let t = short.timeline.unwrap();
    assert_eq!((t.step_limit, t.metrics.steps), (None, 64));
    assert!(t.metrics.speedup.is_some() && t.metrics.speedup_over_awaited.is_some());
}

#[test]
fn the_chart_draws_at_most_its_bars_and_the_metrics_cover_every_step() {
    // 100 statements: the first 64 steps would be 6 400 bars.
    let text = independent_statements(100, "64");
    let t = explore(&text, &Options::default()).timeline.unwrap();
    let bars = t.spans.len() + t.stalls.len() + t.markers.len();
    assert!(t.bars_limited);
    assert_eq!(
        t.window,
        (0, 20),
        "20 steps of 100 statements reach 2 000 bars"
    );
    assert!((limits::MAX_TIMELINE_BARS..limits::MAX_TIMELINE_BARS + 100).contains(&bars));
    assert!(t.spans.iter().all(|s| s.step <= 20));
    assert_eq!((t.metrics.steps, t.step_limit), (64, None));
    assert_eq!(
        t.coverage().as_deref(),
        Some("The timeline draws steps 1–20 of 64 (at most 2000 bars are drawn); the metrics cover all of them.")
    );
    // A window that starts later is cut the same way, after its first step.
    let later = Options {
        timeline_window: (20, 64),
        ..Options::default()
    };
    let t = explore(&text, &later).timeline.unwrap();
    assert_eq!(t.window, (20, 40));
    assert!(t.spans.iter().all(|s| (21..=40).contains(&s.step)));
    // A small loop is drawn whole, and nothing is said.
    let t = explore(&independent_statements(4, "16"), &Options::default())
        .timeline
        .unwrap();
    assert_eq!(
        (t.window, t.bars_limited, t.coverage()),
        ((0, 64), false, None)
    );
}

#[test]
fn a_loop_beyond_the_interpreter_limit_is_refused_before_running() {
    let text = independent_statements(100, "N");
    let mut opts = Options::default();
    opts.params.insert("N".into(), 5000);
    let v = explore(&text, &opts).verification.unwrap();
    assert_eq!(v.verdict, stagecraft::verify::Verdict::NotRun);
    assert_eq!(v.instances, 0, "nothing was interpreted");
    assert!(
        v.summary.contains(
            "runs 500000 statement instances, more than the interpreter's limit of 100000"
        ),
        "{}",
        v.summary
    );
    // At the limit it runs.
    opts.params.insert("N".into(), 1000);
    let v = explore(&text, &opts).verification.unwrap();
    assert_eq!(
        v.verdict,
        stagecraft::verify::Verdict::Equivalent,
        "{}",
        v.summary
    );
}

#[test]
fn the_interpreter_stops_at_its_instance_cap() {
    let text = "for i in range(1000000):\n    C[i] = A[i]\n";
    let ex = explore(text, &Options::default());
    assert!(ex.verification.unwrap().truncated);
}

#[test]
fn emitted_statement_instances() {
    let text = "C = alloc([2048])\nfor i in range(4):\n    for k in range(2048):\n        C[k] = A[k]\n    D[i] = C[0]\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\n";
    let ex = explore(text, &Options::default());
    assert!(ex.ok, "{:?}", ex.diagnostics);
    for code in &ex.code {
        let error = code.error.as_deref().unwrap_or("");
        assert!(
            error.contains(&format!(
                "more than {} statement instances",
                limits::MAX_EMITTED_INSTANCES
            )),
            "{}: {error}",
            code.target
        );
    }
}

#[test]
fn global_buffers_are_indexed_from_zero_and_within_the_element_limit() {
    let negative = messages("for i in range(4):\n    C[i] = A[i - 5]\n");
    assert!(
        negative
            .iter()
            .any(|m| m.contains("reaches -5") && m.contains("indexed from 0")),
        "{negative:?}"
    );
    let far = messages("for i in range(4):\n    C[i] = A[i * 1000000000000]\n");
    assert!(
        far.iter()
            .any(|m| m.contains("reaches 3000000000000") && m.contains("at most")),
        "{far:?}"
    );
    let symbolic = messages("for i in range(N):\n    C[i] = A[i * 1000000000000]\n");
    assert!(
        symbolic.iter().any(|m| m.contains("uses 1000000000000")),
        "{symbolic:?}"
    );
}

/// Constants near i64::MIN fold without overflow (a debug build used to panic negating them), and
/// no emitter is handed an address it would overflow computing.
#[test]
fn extreme_index_constants_neither_overflow_nor_reach_an_emitter() {
    let text = "for i in range(4):
    C[0 - 9223372036854775807 - 1 + i] = A[i]
    D[i] = A[(0 - 9223372036854775807 - 1) * i]
    E[i] = A[0 - (0 - 9223372036854775807 - 1) * i]
sch.annotate(i, \"software_pipeline_stage\", [0, 1, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1, 2])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";
    let ex = explore(text, &Options::default());
    for code in &ex.code {
        let error = code.error.as_deref().unwrap_or("");
        assert!(
            error.contains("beyond any buffer"),
            "{}: {error}",
            code.target
        );
    }
}

#[test]
fn problems_past_the_listing_limit_are_counted_not_listed() {
    // A statement with no value on each of 2 000 lines (the parser's problems), then a stray
    // character on each of 2 000 more (the lexer's): both find more than they keep.
    let text = format!("{}{}", "x = \n".repeat(2000), "@\n".repeat(2000));
    let listed = messages(&text);
    assert_eq!(listed.len(), limits::MAX_DIAGNOSTICS + 1);
    assert_eq!(
        listed.last().unwrap(),
        &format!(
            "{} more problems from here on are not listed (all errors): Stagecraft lists the first {}",
            4000 - limits::MAX_DIAGNOSTICS,
            limits::MAX_DIAGNOSTICS
        )
    );
}

#[test]
fn the_problems_listed_are_the_first_in_the_text_whichever_phase_found_them() {
    // The parser's problems come first in the text, the lexer's after: the lexer finds its own
    // first, and keeps more of them than are listed.
    let text = format!("{}{}", "x = \n".repeat(150), "$\n".repeat(300));
    let ex = explore(&text, &Options::default());
    let (listed, summary) = ex.diagnostics.split_at(limits::MAX_DIAGNOSTICS);
    assert!(
        listed
            .iter()
            .all(|d| d.message.starts_with("expected an expression")),
        "{listed:?}"
    );
    assert!(listed.windows(2).all(|w| w[0].span.start < w[1].span.start));
    // 50 more statements, then 300 stray characters: one problem each, the lexer's (the parser
    // does not say again that it found one).
    assert!(
        summary[0].message.starts_with("350 more problems"),
        "{summary:?}"
    );
    assert_eq!(summary[0].span.start as usize, 100 * "x = \n".len() + 4);
}

#[test]
fn a_run_of_stray_characters_is_one_problem() {
    let listed = messages(&format!("x = 1 {}\n", "@".repeat(60_000)));
    assert_eq!(
        listed.first().unwrap(),
        "unexpected characters `@@@@@@@@@@@@…` (60000 in all)"
    );
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(messages("x = 1 ¤\n")[0], "unexpected character `¤`");
    // A backtick is quoted as Markdown quotes one, so that the page shows it as code.
    assert_eq!(messages("x = 1 `\n")[0], "unexpected character `` ` ``");
}

#[test]
fn a_character_copied_text_brings_is_named_and_what_to_type_said() {
    let said = |text: &str| {
        let d = explore(text, &Options::default()).diagnostics.remove(0);
        (d.message, d.hint.unwrap_or_default(), d.span)
    };
    // A no-break space shows as a space: named by its code point, never quoted as a blank.
    let (message, hint, span) = said("for i in range(8):\n    C[i] = A[i]\u{a0}+ 1\n");
    assert_eq!(message, "unexpected character U+00A0 (a no-break space)");
    assert!(hint.contains("write a plain space"), "{hint}");
    assert_eq!(span.len(), 2, "the whole character");
    let (message, hint, _) = said("for i in range(8):\n    C[i] = A[i] \u{2212} 1\n");
    assert_eq!(message, "unexpected character `\u{2212}`");
    assert!(hint.ends_with("write `-` instead"), "{hint}");
    let (message, hint, _) = said("for i in range(8):\n    C[i] = A[i] \u{200b}+ 1\n");
    assert_eq!(message, "unexpected character U+200B (a zero-width space)");
    assert!(hint.contains("delete it"), "{hint}");
    // NUL bytes are one run, one problem.
    let (message, _, span) = said("for i in range(1, 16\0\0\0):\n    C[i] = A[i]\n");
    assert_eq!(
        message,
        "unexpected characters U+0000 (NUL) U+0000 (NUL) U+0000 (NUL)"
    );
    assert_eq!(span.len(), 3);
    let (message, hint, _) =
        said("sch.annotate(i, \u{201c}software_pipeline_stage\u{201d}, [0])\n");
    assert_eq!(message, "unexpected character `\u{201c}`");
    assert!(hint.ends_with("write `\"` instead"), "{hint}");
}

#[test]
fn machine_instructions() {
    // The machine-level verifier stops a kernel that runs past its budget of wave-instructions
    // and says so ("not executed"), whatever the kernel; here with a budget lowered to 100.
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/rfc_a_async_copy.py"
    ))
    .unwrap();
    let ex = explore(
        &source,
        &Options {
            peeled_program: true,
            ..Options::default()
        },
    );
    let p = ex.programs.unwrap();
    let peeled = p.peeled.unwrap();
    let target = stagecraft::emit::Target::Amdgpu;
    let code = stagecraft::emit::emit(
        &peeled,
        &p.params,
        target,
        &stagecraft::emit::EmitOptions::default(),
    );
    let mut contract =
        stagecraft::machine::Contract::new(&p.original, &peeled, &p.params, 64, 64).unwrap();
    assert_eq!(contract.max_instructions, limits::MAX_MACHINE_INSTRUCTIONS);
    contract.max_instructions = 100;
    let m = stagecraft::machine::check_with(&contract, &code.text, target);
    assert_eq!(m.verdict, stagecraft::machine::MachineVerdict::NotExecuted);
    assert!(
        m.summary.starts_with(
            "not executed: the kernel ran more than 100 wave-instructions, the machine model's limit (`limits::MAX_MACHINE_INSTRUCTIONS`"
        ),
        "{}",
        m.summary
    );
    assert!(
        m.summary.contains("raise the limit in core/src/limits.rs"),
        "{}",
        m.summary
    );
}
