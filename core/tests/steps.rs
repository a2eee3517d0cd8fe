//! The step-through (`steps`): at every statement instance of the trace, the ring slots and the
//! outstanding groups it replays equal the interpreter's own state — taken from a run of the
//! interpreter stopped at that instance (its memory's pending writes and last writers, its groups
//! in flight), not from the step-through's bookkeeping — over random schedules under both
//! completion models; and a count made one too large stops the trace at the verifier's first race.
//!
//! `STEPS_CASES=N` checks another number of schedules (default 1 000 that pipeline).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{self, explore, Exploration, Options};
use stagecraft::interp::{self, Policy, RunOptions};
use stagecraft::ir::{IExpr, IOp, Node, Program};
use stagecraft::random_loop::{random_loop, Flavor};
use stagecraft::steps::{
    CompletionModel, GroupId, MachineState, SlotState, StepEvent, StepOptions, StepThrough,
};
use stagecraft::verify::{verify, VerifyOptions};
use std::collections::BTreeMap;

fn options() -> Options {
    Options {
        targets: Vec::new(),
        both_forms: false,
        defer_runs: true,
        ..Options::default()
    }
}

fn cases() -> u64 {
    std::env::var("STEPS_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000)
}

fn example(name: &str) -> Exploration {
    let path = format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    explore(&text, &options())
}

/// The interpreter's state after `instances` statement instances, in the step-through's terms,
/// computed from the interpreter's memory and groups only.
fn reference(
    program: &Program,
    run_options: &RunOptions,
    instances: u64,
    steps: &StepThrough,
) -> MachineState {
    let run = interp::run(
        program,
        &RunOptions {
            max_instances: instances,
            ..run_options.clone()
        },
    );
    let mut state = MachineState::default();
    for ring in &steps.rings {
        let memory = &run.memory[&ring.buffer];
        let per_slot: usize = if ring.slots > 1 {
            memory.shape.iter().skip(1).product::<i64>().max(1) as usize
        } else {
            memory.values.len().max(1)
        };
        let mut slots = vec![SlotState::default(); ring.slots as usize];
        let mut newest: Vec<u64> = vec![0; slots.len()];
        for (off, write) in memory.last_write.iter().enumerate() {
            let slot = (off / per_slot).min(slots.len() - 1);
            if let Some((stamp, iteration)) = write {
                slots[slot].written = true;
                if *stamp >= newest[slot] {
                    newest[slot] = *stamp;
                    slots[slot].iteration = *iteration;
                }
            }
        }
        // A write issued into a group still being filled is in flight too.
        for (group, writes) in run.in_flight.iter().chain(&run.open) {
            for (name, off) in writes {
                if *name == ring.buffer {
                    let slot = (off / per_slot).min(slots.len() - 1);
                    let id = GroupId {
                        queue: group.queue,
                        seq: group.seq,
                    };
                    if !slots[slot].in_flight.contains(&id) {
                        slots[slot].in_flight.push(id);
                    }
                }
            }
        }
        for s in &mut slots {
            s.in_flight.sort_unstable();
        }
        state.rings.push(slots);
    }
    state
}

/// (queue, [(seq, members)]) of the step-through's state, and of the interpreter's groups.
type Groups = Vec<(u64, Vec<(u32, Option<i64>)>)>;
type Outstanding = Vec<(i64, Groups)>;

fn outstanding_of(state: &MachineState) -> Outstanding {
    state
        .queues
        .iter()
        .filter(|q| !q.outstanding.is_empty())
        .map(|q| {
            (
                q.queue,
                q.outstanding
                    .iter()
                    .map(|g| (g.seq, g.members.clone()))
                    .collect(),
            )
        })
        .collect()
}

fn interpreter_outstanding(
    program: &Program,
    run_options: &RunOptions,
    instances: u64,
) -> Outstanding {
    let run = interp::run(
        program,
        &RunOptions {
            max_instances: instances,
            ..run_options.clone()
        },
    );
    let mut out: BTreeMap<i64, Groups> = BTreeMap::new();
    for (g, _) in &run.in_flight {
        out.entry(g.queue)
            .or_default()
            .push((g.seq, g.members.clone()));
    }
    out.into_iter().collect()
}

/// Compares the step-through's state before every statement instance (and at the end) with the
/// interpreter stopped there. Returns the number of positions compared.
fn check_against_interpreter(ex: &Exploration, model: CompletionModel, label: &str) -> usize {
    let p = ex.programs.as_ref().unwrap();
    let program = p.pipelined().unwrap();
    let steps = explore::step_through(
        ex,
        &StepOptions {
            model,
            ..StepOptions::default()
        },
    );
    assert!(steps.limit.is_none(), "{label}: random loops are short");
    let mut run_options = RunOptions {
        params: p.params.clone(),
        trace: true,
        ..RunOptions::default()
    };
    if steps.model == CompletionModel::AsTimed {
        let moments =
            stagecraft::timeline::moments(program, ex.cost.as_ref().unwrap(), &p.params).unwrap();
        run_options.policy = Policy::AsTimed;
        run_options.completions = moments.completion_instances();
    }
    let mut compared = 0;
    let mut positions: Vec<(usize, u64)> = steps
        .steps
        .iter()
        .enumerate()
        .filter_map(|(k, s)| match s.event {
            StepEvent::Exec { instance, .. } => Some((k, instance - 1)),
            _ => None,
        })
        .collect();
    if steps.race.is_none() {
        let all = steps
            .steps
            .iter()
            .filter(|s| matches!(s.event, StepEvent::Exec { .. }))
            .count() as u64;
        positions.push((steps.steps.len(), all));
    }
    for (position, instances) in positions {
        let mine = steps.state_at(position);
        let theirs = reference(program, &run_options, instances, &steps);
        assert_eq!(
            mine.rings, theirs.rings,
            "{label}, {model:?}: ring slots after {instances} instances (position {position})"
        );
        assert_eq!(
            outstanding_of(&mine),
            interpreter_outstanding(program, &run_options, instances),
            "{label}, {model:?}: outstanding groups after {instances} instances (position {position})"
        );
        for q in &mine.queues {
            assert_eq!(
                q.committed - q.completed,
                q.outstanding.len() as u64,
                "{label}: heads"
            );
        }
        compared += 1;
    }
    compared
}

#[test]
fn every_step_of_random_schedules_matches_the_interpreter() {
    let mut schedules = 0;
    let mut positions = 0;
    let mut with_rings = 0;
    // Seeds until that many schedules pipeline (many random loops are refused).
    for seed in 0.. {
        if schedules >= cases() as usize {
            break;
        }
        let flavor = if seed % 2 == 0 {
            Flavor::Copies
        } else {
            Flavor::Irregular
        };
        let text = random_loop(seed, flavor).text();
        let ex = explore(&text, &options());
        if !ex.ok {
            continue;
        }
        schedules += 1;
        if ex.buffers.iter().any(|b| b.versions > 1) {
            with_rings += 1;
        }
        for model in [CompletionModel::Latest, CompletionModel::AsTimed] {
            positions += check_against_interpreter(&ex, model, &format!("seed {seed}"));
        }
    }
    eprintln!(
        "{schedules} schedules ({with_rings} with ring buffers), {positions} positions compared"
    );
    assert!(
        schedules >= cases() as usize * 3 / 4,
        "most random loops pipeline"
    );
    assert!(with_rings > 0);
}

/// The pre-order index of every wait node, with the count it has.
fn waits(nodes: &[Node], out: &mut Vec<IExpr>) {
    for n in nodes {
        match n {
            Node::Wait { count, body, .. } => {
                out.push(count.clone());
                waits(body, out);
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => waits(body, out),
            Node::Assign(_) | Node::Barrier { .. } => {}
        }
    }
}

/// `program` with the count of wait `index` (pre-order) raised by one.
fn raised(program: &Program, index: usize) -> Program {
    fn walk(nodes: &mut [Node], index: usize, seen: &mut usize) {
        for n in nodes {
            match n {
                Node::Wait { count, body, .. } => {
                    if *seen == index {
                        *count = IExpr::Bin(IOp::Add, Box::new([count.clone(), IExpr::Const(1)]));
                    }
                    *seen += 1;
                    walk(body, index, seen);
                }
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::Commit { body, .. }
                | Node::AsyncScope { body, .. }
                | Node::Section { body, .. } => walk(body, index, seen),
                Node::Assign(_) | Node::Barrier { .. } => {}
            }
        }
    }
    let mut p = program.clone();
    walk(&mut p.body, index, &mut 0);
    p
}

#[test]
fn a_count_one_too_large_stops_at_the_verifiers_first_race() {
    let mut racy = 0;
    for seed in 0..cases() {
        let text = random_loop(seed, Flavor::Copies).text();
        let ex = explore(&text, &options());
        if !ex.ok {
            continue;
        }
        let p = ex.programs.as_ref().unwrap();
        let program = p.pipelined().unwrap();
        let mut counts = Vec::new();
        waits(&program.body, &mut counts);
        for index in 0..counts.len() {
            let v = verify(
                &p.original,
                &raised(program, index),
                &VerifyOptions {
                    params: p.params.clone(),
                    judge_waits: false,
                    random_runs: 0,
                    ..VerifyOptions::default()
                },
            );
            let steps = explore::step_through(
                &ex,
                &StepOptions {
                    model: CompletionModel::Latest,
                    count_delta: BTreeMap::from([(index, 1)]),
                },
            );
            match (v.races.first(), &steps.race) {
                (None, None) => {}
                (Some(first), Some(stop)) => {
                    racy += 1;
                    assert_eq!(&stop.race, first, "seed {seed}, wait {index}");
                    assert_eq!(stop.position, steps.steps.len(), "the trace ends at the race");
                    let Some(StepEvent::Exec {
                        stmt,
                        iteration,
                        raced,
                        ..
                    }) = steps.steps.last().map(|s| &s.event)
                    else {
                        panic!("seed {seed}: the race stop is a statement");
                    };
                    assert!(raced);
                    assert_eq!((*stmt, *iteration), (first.stmt, first.iteration));
                    assert_eq!(steps.steps.last().unwrap().step, first.step);
                    let view = steps.view(stop.position);
                    assert!(view.race && view.caption.contains("RACE"), "{}", view.caption);
                }
                (a, b) => panic!(
                    "seed {seed}, wait {index}: the verifier's first race {a:?}, the step-through's {b:?}"
                ),
            }
        }
    }
    eprintln!("{racy} racy schedules");
    assert!(racy >= 100, "only {racy} racy schedules");
}

#[test]
fn rfc_a_first_wait_shows_the_head_arithmetic_and_the_slots() {
    let ex = example("rfc_a_async_copy.py");
    let steps = explore::step_through(&ex, &StepOptions::default());
    assert!(steps.race.is_none() && steps.limit.is_none());
    assert_eq!(steps.rings.len(), 1);
    assert_eq!(
        (steps.rings[0].buffer.as_str(), steps.rings[0].slots),
        ("B", 2)
    );
    let at = steps.next_wait(0).unwrap();
    let view = steps.view(at);
    let a = view.arithmetic.as_ref().unwrap();
    // Prologue commits group 0, the first body step group 1; wait(0, 1) needs group 0.
    assert_eq!(
        (a.committed, a.needed, a.count, a.in_flight),
        (2, Some(0), 1, 2)
    );
    assert_eq!(a.forced, vec![0]);
    assert!(
        a.sentence
            .starts_with("committed 2 − needed group 0 − 1 = 1 may stay in flight"),
        "{}",
        a.sentence
    );
    // Slot 0 holds iteration 0 (landed), slot 1 iteration 1 (in flight in group 1).
    let b = &view.state.rings[0];
    assert_eq!((b[0].iteration, b[0].in_flight.len()), (Some(0), 0));
    assert_eq!(b[1].iteration, Some(1));
    assert_eq!(b[1].in_flight, vec![GroupId { queue: 0, seq: 1 }]);
    let q = &view.state.queues[0];
    assert_eq!((q.committed, q.completed), (2, 1));
    assert_eq!(
        q.outstanding.iter().map(|g| g.seq).collect::<Vec<_>>(),
        vec![1]
    );
    // The next statement reads slot 0.
    let read = steps.view(at + 1);
    assert_eq!(read.reading.len(), 1);
    assert!(
        read.caption.contains("reads B slot 0 (iteration 0's data)"),
        "{}",
        read.caption
    );
    // The statement is named by its text, as the verifier names it, not by a number.
    assert!(
        read.caption.starts_with('`') && !read.caption.contains("Statement "),
        "{}",
        read.caption
    );
    let line = match read.current.as_ref().unwrap().event {
        StepEvent::Exec { line, .. } => line.unwrap(),
        _ => panic!("a statement"),
    };
    let text = ex.rolled.as_ref().unwrap().text.lines().nth(line).unwrap();
    assert_eq!(text.trim(), "C[i - 1] = B[(i - 1) % 2, 0] + 1");
}

#[test]
fn as_timed_completes_groups_before_the_wait_needs_them() {
    let ex = example("rfc_a_async_copy.py");
    let latest = explore::step_through(&ex, &StepOptions::default());
    let timed = explore::step_through(
        &ex,
        &StepOptions {
            model: CompletionModel::AsTimed,
            ..StepOptions::default()
        },
    );
    assert_eq!(timed.model, CompletionModel::AsTimed);
    let forced = |s: &StepThrough| -> usize {
        s.steps
            .iter()
            .map(|s| match &s.event {
                StepEvent::Wait { forced, .. } => forced.len(),
                _ => 0,
            })
            .sum()
    };
    // Latest: every group is forced by a wait.
    assert_eq!(forced(&latest), 16);
    let completes = |s: &StepThrough| {
        s.steps
            .iter()
            .filter(|s| matches!(s.event, StepEvent::Complete { .. }))
            .count()
    };
    assert_eq!(completes(&latest), 16);
    assert_eq!(completes(&timed), 16);
    // Every step has a cycle, and cycles never go back.
    let cycles: Vec<u64> = timed.steps.iter().map(|s| s.cycle.unwrap()).collect();
    assert!(cycles.windows(2).all(|w| w[0] <= w[1]));
    // As timed, a group completes between the last statement starting before the cost model's
    // moment for it (the Timeline's marker) and the first starting at or after it.
    let t = explore::timeline(&ex).unwrap();
    let mut previous_statement = None;
    for s in &timed.steps {
        match s.event {
            StepEvent::Exec { .. } => previous_statement = s.cycle,
            StepEvent::Complete { group } => {
                let m = t
                    .markers
                    .iter()
                    .find(|m| m.queue == group.queue && m.group == group.seq)
                    .unwrap();
                let at = s.cycle.unwrap();
                assert!(
                    at >= m.complete && previous_statement.is_none_or(|c| c < m.complete),
                    "group {} completes at {at} (previous statement at {previous_statement:?}), its moment is {}",
                    group.seq,
                    m.complete
                );
            }
            _ => {}
        }
    }
}

#[test]
fn a_long_trace_ends_at_the_limit_with_a_note() {
    let text = "B = alloc([1])\nfor i in range(20000):\n    B[0] = A[i] + 1\n    C[i] = B[0] + 1\n\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n";
    let ex = explore(text, &options());
    assert!(ex.ok);
    let steps = explore::step_through(&ex, &StepOptions::default());
    let limit = steps.limit.as_ref().expect("the limit is reached");
    assert_eq!(steps.steps.len(), stagecraft::limits::MAX_STEP_EVENTS);
    assert!(limit.note.contains("first 20000 steps"), "{}", limit.note);
    // The last position's state is still right.
    let last = steps.view(steps.steps.len());
    assert_eq!(last.state.queues.len(), 1);
}

/// TVM 0.27's program for `tests/cases/async_same_element.py` commits two writes of one element
/// in one group: the step-through stops at the second write, names the first (its step and its
/// line) and says no wait can order them.
#[test]
fn two_writes_of_one_element_in_one_group_stop_the_trace_at_the_second() {
    let root = format!("{}/..", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(format!(
        "{root}/tests/pipelined/same_element_tvm_one_group.py"
    ))
    .unwrap();
    let parsed = stagecraft::parser::parse(&text);
    let program = stagecraft::lower::lower(&parsed.file).program;
    let printed = stagecraft::tir::print(&program);
    let params = BTreeMap::new();
    let steps = stagecraft::steps::step_through(
        &stagecraft::steps::Source {
            program: &program,
            printed: Some(&printed),
            cost: None,
            params: &params,
            statements: Vec::new(),
        },
        &StepOptions::default(),
    );
    let stop = steps.race.as_ref().expect("the trace stops at the race");
    assert!(stop.race.within_group, "{:?}", stop.race);
    assert_eq!(stop.wait_line, None);
    let other = stop.other_position.expect("the first write's step");
    assert!(other < stop.position);
    let (
        StepEvent::Exec {
            line: first,
            group: g1,
            ..
        },
        StepEvent::Exec {
            line: second,
            group: g2,
            ..
        },
    ) = (
        &steps.steps[other - 1].event,
        &steps.steps[stop.position - 1].event,
    )
    else {
        panic!("both steps are statement instances");
    };
    assert_eq!(g1, g2, "one group");
    assert_eq!(stop.other_line, *first);
    let (first, second) = (first.unwrap(), second.unwrap());
    let line = |k: usize| printed.text.lines().nth(k).unwrap().trim().to_string();
    assert!(
        line(first).ends_with("= A[i - 1]") && line(second).ends_with("= B[i - 1]"),
        "{} / {}",
        line(first),
        line(second)
    );
    let caption = steps.view(stop.position).caption;
    assert!(
        caption.contains("in the same group") && caption.contains(&format!("(line {})", first + 1)),
        "{caption}"
    );
}
