//! The timeline against closed forms: a copy→compute loop meets the steady state derived in
//! docs/cost-model.md over a grid of latencies, costs and stage distances; with every stage
//! synchronous the pipelined time equals the unpipelined time.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::cost::{Cost, CostModel};
use stagecraft::explore::{explore, Options};

fn copy_compute(d: i64, asynchronous: bool, extent: i64) -> String {
    format!(
        "B = alloc([1])\nfor i in range({extent}):\n    B[0] = A[i]\n    C[i] = B[0] * 2\n\
         sch.annotate(i, \"software_pipeline_stage\", [0, {d}])\n\
         sch.annotate(i, \"software_pipeline_order\", [0, 1])\n{}",
        if asynchronous {
            "sch.annotate(i, \"software_pipeline_async_stages\", [0])\n"
        } else {
            ""
        }
    )
}

fn model(l: u64, c: u64, compute: u64) -> CostModel {
    let mut m = CostModel::default();
    m.overrides.insert(
        0,
        Cost {
            issue: c,
            latency: l,
        },
    );
    m.overrides.insert(
        1,
        Cost {
            issue: compute,
            latency: 0,
        },
    );
    m
}

#[test]
fn copy_compute_steady_state_matches_the_closed_form() {
    for l in [0u64, 30, 200, 500, 1000] {
        for compute in [1u64, 16, 100, 400] {
            for d in 1i64..=4 {
                let c = 4;
                let ex = explore(
                    &copy_compute(d, true, 400),
                    &Options {
                        cost: model(l, c, compute),
                        verify: false,
                        ..Options::default()
                    },
                );
                let t = ex.timeline.unwrap();
                let measured = t.metrics.steady_cycles_per_iteration.unwrap();
                // P = max(c + C, (c + L + C) / (d + 1)): the issue, and the copy latency shared by
                // the d + 1 iterations in flight.
                let expected =
                    ((c + compute) as f64).max((c + l + compute) as f64 / (d + 1) as f64);
                assert!(
                    (measured - expected).abs() <= 1.0,
                    "L={l} C={compute} d={d}: measured {measured}, closed form {expected}"
                );
            }
        }
    }
}

#[test]
fn synchronous_pipelining_changes_nothing_in_time() {
    for d in 0i64..=3 {
        let ex = explore(
            &copy_compute(d, false, 50),
            &Options {
                verify: false,
                ..Options::default()
            },
        );
        let m = ex.timeline.unwrap().metrics;
        assert_eq!(m.total_cycles, m.unpipelined_cycles, "d={d}");
        assert_eq!(m.stall_cycles, 0);
    }
}

#[test]
fn windowed_view_returns_only_its_steps_and_the_metrics_of_all() {
    let opts = Options {
        timeline_window: (10, 20),
        verify: false,
        ..Options::default()
    };
    let ex = explore(&copy_compute(2, true, 10_000), &opts);
    let t = ex.timeline.unwrap();
    assert!(t.truncated);
    assert!(
        t.spans.iter().all(|s| (11..=20).contains(&s.step)),
        "{:?}",
        t.spans.first()
    );
    assert_eq!(t.metrics.steps, 10_002);
    assert!(t.metrics.speedup.unwrap() > 1.5);
}

#[test]
fn annotations_override_latency_and_issue() {
    let text = format!(
        "{}sch.annotate(i, \"stagecraft_latency\", [100, -1])\nsch.annotate(i, \"stagecraft_issue\", [2, 10])\n",
        copy_compute(1, true, 100)
    );
    let ex = explore(
        &text,
        &Options {
            verify: false,
            ..Options::default()
        },
    );
    let cost = ex.cost.unwrap();
    assert_eq!(
        cost.overrides[&0],
        Cost {
            issue: 2,
            latency: 100
        }
    );
    assert_eq!(cost.overrides[&1].issue, 10);
    let bad = explore(
        &format!(
            "{}sch.annotate(i, \"stagecraft_latency\", [1])\n",
            copy_compute(1, true, 8)
        ),
        &Options::default(),
    );
    assert!(bad
        .diagnostics
        .iter()
        .any(|d| d.message.contains("1 entries for 2 statements")));
}

#[test]
fn ring_bytes_and_peak_groups() {
    let ex = explore(
        &copy_compute(3, true, 64),
        &Options {
            verify: false,
            ..Options::default()
        },
    );
    let m = ex.timeline.unwrap().metrics;
    assert_eq!(m.ring_bytes["shared"], 4 * 4, "4 versions of one float32");
    assert_eq!(m.peak_groups_in_flight[&0], 4);
}

/// The cost annotations of each unit come back as written (−1: absent), merged as the model applies
/// them, so the app's cost editor never works them out itself.
#[test]
fn annotated_costs_are_reported_per_unit() {
    let text = format!(
        "{}sch.annotate(i, \"stagecraft_latency\", [100, -1])\nsch.annotate(i, \"stagecraft_issue\", [-1, 7])\n",
        copy_compute(1, true, 8)
    );
    let ex = explore(&text, &Options::default());
    let annotated = &ex.unit_annotated_costs;
    assert_eq!(annotated.len(), 2);
    assert_eq!(
        (annotated[0].latency, annotated[0].issue),
        (Some(100), None)
    );
    assert_eq!((annotated[1].latency, annotated[1].issue), (None, Some(7)));
    // The effective cost of unit 1 has an override (its issue) but its latency is the default.
    assert_eq!(ex.unit_costs[1].issue, 7);
    let plain = explore(&copy_compute(1, true, 8), &Options::default());
    assert_eq!(ex.unit_costs[1].latency, plain.unit_costs[1].latency);
    assert!(plain
        .unit_annotated_costs
        .iter()
        .all(|c| c.latency.is_none() && c.issue.is_none()));
}

/// Steps are the pipeline's steps (prologue, body and epilogue: E + S for a constant extent E ≥ S)
/// in both printed forms: a step written out counts once however many statements it has. The
/// peeled form counted each top-level statement, and so did a one-step rolled prologue of two
/// synchronous statements.
#[test]
fn both_forms_count_the_pipeline_steps() {
    let two_in_stage_0 = "B = alloc([1])\nD = alloc([1])\nfor i in range(16):\n    B[0] = A[i] + 1\n    D[0] = A[i] * 2\n    C[i] = B[0] + D[0]\n\
        sch.annotate(i, \"software_pipeline_stage\", [0, 0, 1])\n\
        sch.annotate(i, \"software_pipeline_order\", [0, 1, 2])\n";
    let mut loops = vec![
        (
            "two statements in stage 0".to_string(),
            two_in_stage_0.to_string(),
            17,
        ),
        (
            "copy → compute, 3 stages apart".into(),
            copy_compute(3, true, 12),
            15,
        ),
    ];
    for (name, stages, steps) in [
        ("rfc_a_async_copy", 1, 17),
        ("rfc_b_two_async_stages", 2, 18),
        ("rfc_c_interleaved", 3, 19),
        ("rfc_d_same_stage", 0, 16),
    ] {
        let text = std::fs::read_to_string(format!(
            "{}/../examples/{name}.py",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        assert_eq!(16 + stages, steps, "{name}: extent 16");
        loops.push((name.to_string(), text, steps));
    }
    for (name, text, steps) in loops {
        for form in [
            stagecraft::pipelined::Form::Rolled,
            stagecraft::pipelined::Form::Peeled,
        ] {
            let options = Options {
                form,
                targets: Vec::new(),
                ..Options::default()
            };
            let t = explore(&text, &options).timeline.expect("a timeline");
            assert_eq!(t.metrics.steps, steps, "{name}, {form:?} form");
        }
    }
}

/// Groups of one queue in flight together are drawn on sub-rows of their own: on every (queue,
/// row) no two groups' bars overlap, and with d = 3 stages of copies in flight there are 4 rows.
#[test]
fn groups_in_flight_together_take_sub_rows_of_their_own() {
    let ex = explore(
        &copy_compute(3, true, 16),
        &Options {
            cost: model(500, 4, 16),
            ..Options::default()
        },
    );
    let t = ex.timeline.unwrap();
    let rows = t.queue_rows[&0];
    assert_eq!(rows, 4, "one copy per step, each in flight over 4 steps");
    let queue: Vec<_> = t
        .spans
        .iter()
        .filter(|s| s.lane == stagecraft::timeline::Lane::Queue(0))
        .collect();
    assert_eq!(queue.len(), 16, "every copy has its bar");
    for a in &queue {
        for b in &queue {
            if a.iteration != b.iteration && a.row == b.row {
                assert!(
                    a.end <= b.start || b.end <= a.start,
                    "iterations {:?} and {:?} overlap on row {}",
                    a.iteration,
                    b.iteration,
                    a.row
                );
            }
        }
    }
}

/// The "awaited at once" baseline is the same program with every count 0, simulated: never faster
/// than the pipelined one, and for a copy→compute loop it waits out one copy latency per step.
#[test]
fn the_awaited_at_once_baseline_is_simulated() {
    let (l, c, compute) = (500u64, 4u64, 16u64);
    let ex = explore(
        &copy_compute(1, true, 64),
        &Options {
            cost: model(l, c, compute),
            ..Options::default()
        },
    );
    let m = ex.timeline.unwrap().metrics;
    assert!(m.awaited_cycles > m.total_cycles);
    // Count 0: each body step issues its copy (c), waits for it (L) and computes (compute).
    let per_step = (m.awaited_cycles as f64) / 64.0;
    assert!(
        (per_step - (c + l + compute) as f64).abs() < 10.0,
        "{per_step} cycles per step awaited at once"
    );
    assert!(
        (m.speedup_over_awaited.unwrap() - m.awaited_cycles as f64 / m.total_cycles as f64).abs()
            < 1e-9
    );
}

/// Two async queues whose consumer reads both: `A_sh` (queue 0, stage 0) and `B_sh` (queue 1,
/// stage 1) for `C` at stage 3 (core/tests/machine.rs derives the kernels' waits by hand).
fn two_queues(a_latency: i64) -> String {
    format!(
        "A_sh = alloc([1])\nB_sh = alloc([1])\nfor i in range(12):\n    A_sh[0] = A[i]\n    \
         B_sh[0] = B[i]\n    C[i] = A_sh[0] + B_sh[0]\n\
         sch.annotate(i, \"software_pipeline_stage\", [0, 1, 3])\n\
         sch.annotate(i, \"software_pipeline_order\", [0, 1, 2])\n\
         sch.annotate(i, \"software_pipeline_async_stages\", [0, 1])\n\
         sch.annotate(i, \"stagecraft_latency\", [{a_latency}, -1, -1])\n"
    )
}

/// `program` with every wait of `queue` keeping one group fewer in flight (none below 0).
fn one_fewer(program: &stagecraft::ir::Program, queue: i64) -> stagecraft::ir::Program {
    use stagecraft::ir::{IExpr, Node};
    fn walk(nodes: &mut [Node], queue: i64) {
        for n in nodes {
            match n {
                Node::Wait {
                    queue: q,
                    count,
                    body,
                    ..
                } => {
                    if let (true, Some(c)) = (*q == queue, count.as_const()) {
                        *count = IExpr::Const((c - 1).max(0));
                    }
                    walk(body, queue);
                }
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::Commit { body, .. }
                | Node::AsyncScope { body, .. }
                | Node::Section { body, .. } => walk(body, queue),
                Node::Assign(_) | Node::Barrier { .. } => {}
            }
        }
    }
    let mut p = program.clone();
    walk(&mut p.body, queue);
    p
}

/// sm_80's `cp.async` groups and asyncmarks are one sequence per thread: the timeline names the
/// groups a wait completes there beyond the IR's per-queue wait, as the kernels do, and runs the
/// kernels' waits for their cycles.
#[test]
fn the_single_sequence_forces_the_groups_derived_by_hand() {
    use stagecraft::emit::Target;
    use stagecraft::pipelined::Form;
    // By hand. Prologue steps 1–3 commit A0 A1 B0 A2 B1; body step t (4–12, i = t - 1) commits
    // A(i) then B(i-1); epilogue steps 13–15 commit B11 (step 13), each waiting before C.
    // Body, before C[i-3]: wait(0, 3) keeps A(i), A(i-1), A(i-2); wait(1, 2) keeps B(i-1),
    // B(i-2). One sequence, newest first: B(i-1) A(i) B(i-2) A(i-1) B(i-3) A(i-2) …: the newest
    // group needed is B(i-3), and completing it completes A(i-2), committed before it — the 3rd
    // newest of queue 0, one group the IR lets stay (at step 4: A0 A1 B0 A2 B1 A3 B2, B0 needed,
    // A1 forced: the same). Step 13: … A9 B8 A10 B9 A11 B10 B11; wait(0, 2), wait(1, 2) need A9
    // and B9: A10, the 2nd newest of queue 0, completes too. Step 14: wait(0, 1), wait(1, 1) need
    // A10 and B10: A11, the newest, completes too. Step 15: wait(·, 0) asks for everything.
    let hand = vec![
        (None, 1, vec![(0, 3)]),
        (Some(13), 1, vec![(0, 2)]),
        (Some(14), 1, vec![(0, 1)]),
    ];
    for form in [Form::Rolled, Form::Peeled] {
        let ex = explore(
            &two_queues(-1),
            &Options {
                form,
                ..Options::default()
            },
        );
        let t = ex.timeline.as_ref().unwrap();
        let derived: Vec<_> = t
            .sequence
            .iter()
            .map(|f| {
                assert_eq!(f.waits.len(), 2, "both queues' waits are one instruction");
                let groups = f.forced.iter().map(|g| (g.queue, g.newest)).collect();
                (f.step, f.groups, groups)
            })
            .collect();
        assert_eq!(derived, hand, "{form:?}");
        // The kernels' waits force the same groups (the same derivation).
        for target in [Target::Ptx, Target::AmdgpuIr] {
            let code = ex.code.iter().find(|c| c.target == target.name()).unwrap();
            let kernel: Vec<_> = code
                .waits
                .iter()
                .filter(|w| !w.forced.is_empty())
                .map(|w| {
                    w.forced
                        .iter()
                        .map(|g| (g.queue, g.newest))
                        .collect::<Vec<_>>()
                })
                .collect();
            let timeline: Vec<_> = hand.iter().map(|h| h.2.clone()).collect();
            assert_eq!(kernel, timeline, "{}", target.name());
        }
        // Equal latencies: A(i-2) is issued before B(i-3) and lands no later, so completing it
        // costs nothing; the stall where it is forced says so, and so does the note.
        assert_eq!(t.metrics.sequence_cycles, Some(t.metrics.total_cycles));
        let svg = stagecraft::gantt::svg(t, &ex.statement_texts(), 10, 1200.0, None);
        assert!(
            svg.contains("on sm_80 and AMDGPU IR also 1 group — the 3rd newest group of queue 0")
        );
        let note = t.sequence_note().unwrap();
        assert!(
            note.contains("wait #0, #1 (body): 1 group — the 3rd newest group of queue 0"),
            "{note}"
        );
        assert!(note.contains("(+0 on the IR's per-queue waits"), "{note}");
    }
    // A's copies four times slower: A(i-2) lands 1 500 cycles after B(i-3), and the kernels' waits
    // stall for it. They complete exactly what the per-queue waits of queue 0 would keeping one
    // group fewer (body 2, epilogue 1 and 0): that program takes the sequence's cycles.
    let ex = explore(&two_queues(2000), &Options::default());
    let t = ex.timeline.as_ref().unwrap();
    let single = t.metrics.sequence_cycles.unwrap();
    assert!(single > t.metrics.total_cycles, "{single}");
    let p = ex.programs.as_ref().unwrap();
    // The peeled form: its epilogue's counts are constants (the rolled one's are `14 - i`).
    let fewer = one_fewer(p.peeled.as_ref().unwrap(), 0);
    let per_queue = stagecraft::timeline::simulate(
        &p.original,
        &fewer,
        ex.cost.as_ref().unwrap(),
        &p.params,
        (0, 64),
    );
    assert_eq!(per_queue.metrics.total_cycles, single);
    // That program's waits force nothing more.
    assert!(per_queue.sequence.is_empty());
    assert_eq!(per_queue.metrics.sequence_cycles, None);
}

/// A long sequence of groups (159 statements over 16 queues: 7 129 commits and waits) is not
/// translated — the translation looks back from every wait — and the note says so instead of
/// naming forced groups.
#[test]
fn a_sequence_beyond_the_limit_is_said_not_worked_out() {
    let ex = stagecraft::explore::explore(
        &stagecraft::workloads::heavy_chain(159, 16, 64),
        &Default::default(),
    );
    let t = ex.timeline.as_ref().expect("a timeline");
    let events = t.sequence_events.expect("beyond the limit");
    assert!(events > stagecraft::limits::MAX_SEQUENCE_EVENTS);
    assert!(t.sequence.is_empty() && t.metrics.sequence_cycles.is_none());
    let note = t.sequence_note().expect("a note");
    assert!(
        note.contains(&format!("with {events} commits and waits")),
        "{note}"
    );
}

/// The iteration numbers written on the chart's bars: (x, y, number).
fn bar_numbers(svg: &str) -> Vec<(f64, f64, String)> {
    svg.split("<text class=\"it\" x=\"")
        .skip(1)
        .map(|rest| {
            let (x, rest) = rest.split_once("\" y=\"").unwrap();
            let (y, rest) = rest.split_once('"').unwrap();
            let n = rest.split_once('>').unwrap().1.split_once('<').unwrap().0;
            (x.parse().unwrap(), y.parse().unwrap(), n.to_string())
        })
        .collect()
}

/// A row of bars overlapping each other (a group's element copies issued a few cycles apart)
/// carries one number per iteration, none written over another, and after every bar (no bar
/// covers one); bars apart each carry their own.
#[test]
fn iteration_numbers_are_not_written_over_each_other() {
    let elements = "B = alloc([32], scope=\"shared\")\nfor i in range(16):\n    for j in range(32):\n        B[j] = A[i, j]\n    for j in range(32):\n        C[i, j] = B[j] + 1\n\
        sch.annotate(i, \"software_pipeline_stage\", [0, 1])\n\
        sch.annotate(i, \"software_pipeline_order\", [0, 1])\n\
        sch.annotate(i, \"software_pipeline_async_stages\", [0])\n";
    let ex = explore(elements, &Options::default());
    let t = ex.timeline.as_ref().unwrap();
    for zoom in [10, 100] {
        let numbers = bar_numbers(&stagecraft::gantt::svg(
            t,
            &ex.statement_texts(),
            zoom,
            900.0,
            None,
        ));
        assert!(!numbers.is_empty(), "zoom {zoom}");
        let svg = stagecraft::gantt::svg(t, &ex.statement_texts(), zoom, 900.0, None);
        let first_number = svg.find("<text class=\"it\"").unwrap();
        assert!(
            svg.rfind("<rect role=\"img\"").unwrap() < first_number,
            "zoom {zoom}: a bar drawn over a number"
        );
        let mut rows: Vec<f64> = numbers.iter().map(|n| n.1).collect();
        rows.dedup();
        for y in rows {
            let mut row: Vec<_> = numbers.iter().filter(|n| n.1 == y).collect();
            row.sort_by(|a, b| a.0.total_cmp(&b.0));
            for pair in row.windows(2) {
                // One number for an iteration's bars side by side.
                assert_ne!(pair[0].2, pair[1].2, "zoom {zoom}: {pair:?}");
                let digits = pair[0].2.len() as f64;
                assert!(
                    pair[1].0 >= pair[0].0 + 6.7 * digits,
                    "zoom {zoom}: {:?} written over {:?}",
                    pair[1],
                    pair[0]
                );
            }
        }
    }
    // One copy per iteration, its bars apart: each bar wide enough for a number has its own.
    let ex = explore(&copy_compute(1, true, 16), &Options::default());
    let t = ex.timeline.as_ref().unwrap();
    let svg = stagecraft::gantt::svg(t, &ex.statement_texts(), 10, 1200.0, None);
    let queued = t
        .spans
        .iter()
        .filter(|s| s.lane != stagecraft::timeline::Lane::Compute)
        .count();
    assert!(bar_numbers(&svg).len() >= queued, "{queued} copies");
}

/// Two timelines on one cycle axis (`gantt::compare_svg`, the compare view's chart): a group of
/// each per timeline, named; within one, no two bars of a row overlap in cycles (groups in flight
/// together take sub-rows, as in the Timeline pane); one axis to the longer end; one legend
/// naming every statement of both.
#[test]
fn two_timelines_share_one_axis_with_a_legend_and_no_overlapping_bars() {
    let run = |d: i64, asynchronous: bool| {
        let ex = explore(
            &copy_compute(d, asynchronous, 16),
            &Options {
                cost: model(500, 4, 16),
                ..Options::default()
            },
        );
        let names: Vec<String> = ex.statement_texts().iter().map(|s| s.to_string()).collect();
        (ex.timeline.unwrap(), names)
    };
    let (pinned, names) = run(3, true);
    let (current, _) = run(1, false);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let svg = stagecraft::gantt::compare_svg(
        &[("pinned", &pinned), ("current", &current)],
        &names,
        900.0,
    );
    let groups: Vec<&str> = svg
        .split("<g class=\"timeline-of\" data-of=\"")
        .skip(1)
        .collect();
    assert_eq!(groups.len(), 2);
    assert!(groups[0].starts_with("pinned\"") && groups[1].starts_with("current\""));
    for (group, t) in groups.iter().zip([&pinned, &current]) {
        let body = &group[..group.find("</g>").unwrap()];
        // (y, from, to) of every statement's bar, from its title's cycles.
        let mut bars: Vec<(String, u64, u64)> = Vec::new();
        // Statements' bars are of class `st<id>`; stalls' of class `stall`.
        let statement_bars = body
            .split("<rect class=\"st")
            .skip(1)
            .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        for rect in statement_bars {
            let y = rect
                .split("y=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let cycles = rect
                .split("cycles ")
                .nth(1)
                .unwrap()
                .split("</title>")
                .next()
                .unwrap();
            let (a, b) = cycles.split_once('–').unwrap();
            bars.push((y.to_string(), a.parse().unwrap(), b.parse().unwrap()));
        }
        assert_eq!(bars.len(), t.spans.len());
        for (k, a) in bars.iter().enumerate() {
            for b in bars.iter().skip(k + 1) {
                assert!(
                    a.0 != b.0 || a.2 <= b.1 || b.2 <= a.1,
                    "bars {a:?} and {b:?} overlap on one row"
                );
            }
        }
    }
    assert!(
        pinned.queue_rows.values().any(|&r| r > 1),
        "the pinned run has sub-rows"
    );
    // One axis, to the end of the longer run: where its last bar ends.
    assert_eq!(svg.matches("<g class=\"axis\"").count(), 1);
    let axis = &svg[svg.find("<g class=\"axis\"").unwrap()..];
    let attr = |tag: &str, name: &str| -> f64 {
        let at = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        tag[at..].split('"').next().unwrap().parse().unwrap()
    };
    let axis_end = attr(axis, "x2");
    let last_bar_end = svg
        .split("<rect class=\"st")
        .skip(1)
        .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        .map(|r| attr(r, "x") + attr(r, "width"))
        .fold(0.0, f64::max);
    assert!(
        (axis_end - last_bar_end).abs() <= 1.0,
        "axis to {axis_end}, bars to {last_bar_end}"
    );
    assert!(current.metrics.total_cycles != pinned.metrics.total_cycles);
    let legend = &svg[svg.find("<g class=\"legend\">").unwrap()..];
    assert!(legend.contains("B[0] = A[i]") && legend.contains("C[i] = B[0] * 2"));
    assert!(legend.contains("a queue's lane has a row per group in flight at once"));
}

/// A barrier waits for the work before it and costs `CostModel::barrier` more: the CUTLASS
/// preset (one barrier per step, after its wait) takes exactly that much longer per barrier
/// passed, and a loop without threads passes none.
#[test]
fn barriers_are_counted_at_their_editable_cost() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cutlass_multistage.py"),
    )
    .unwrap();
    let timeline = |text: &str, barrier: u64| {
        let ex = explore(
            text,
            &Options {
                targets: Vec::new(),
                cost: CostModel {
                    barrier,
                    ..CostModel::default()
                },
                ..Options::default()
            },
        );
        ex.timeline.expect("a timeline")
    };
    let (free, costly) = (timeline(&text, 0), timeline(&text, 1000));
    // 16 iterations: one barrier in each of the 13 body steps and the 3 epilogue steps.
    assert_eq!(
        costly.metrics.total_cycles - free.metrics.total_cycles,
        1000 * 16,
        "{} barriers drawn",
        costly.barriers
    );
    assert_eq!(costly.barriers, free.barriers);
    assert!(costly.barriers > 0);
    let one_thread = text.replace("sch.annotate(k, \"stagecraft_threads\", [128])", "");
    let one_thread = one_thread.replace(", threads=\"cyclic\"", "");
    assert_eq!(timeline(&one_thread, 1000).barriers, 0);
}

/// `cycles`, the search's run, records nothing, and so simulates one iteration of a loop inside
/// a step for all of them; the run that records every statement instance simulates each. On
/// every example (both forms) and 400 random loops under varied costs, the two agree on the
/// total and the steady state.
#[test]
fn a_run_that_records_nothing_takes_the_cycles_of_one_that_records_everything() {
    use stagecraft::random_loop::{random_loop, Flavor};
    use stagecraft::timeline::{cycles, simulate};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut texts: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    for seed in 0..200 {
        texts.push(random_loop(seed, Flavor::Irregular).text());
        texts.push(random_loop(seed, Flavor::Copies).text());
    }
    let mut compared = 0;
    for (k, text) in texts.iter().enumerate() {
        let ex = explore(text, &Options::default());
        let (Some(p), Some(_)) = (&ex.programs, &ex.cost) else {
            continue;
        };
        // Statement costs of their own: issue and latency differ by statement.
        let mut m = CostModel::default();
        for stmt in 0..ex.statements.len() as u32 {
            let x = (k as u64 * 7 + u64::from(stmt) * 13) % 29;
            m.overrides.insert(
                stmt,
                Cost {
                    issue: 1 + x % 5,
                    latency: x * 3,
                },
            );
        }
        let mut programs = vec![&p.rolled];
        programs.extend(&p.peeled);
        for program in programs {
            let recorded = simulate(&p.original, program, &m, &p.params, (0, u64::MAX));
            let quick = cycles(program, &m, &p.params);
            assert_eq!(
                (quick.total, quick.steady),
                (
                    recorded.metrics.total_cycles,
                    recorded.metrics.steady_cycles_per_iteration
                ),
                "{text}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 300, "{compared} programs compared");
}
