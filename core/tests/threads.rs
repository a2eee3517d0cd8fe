//! Loops run by several threads: the barriers the transform derives (hand-derived placements),
//! and the interpreter across threads judging them — random cooperative schedules computing the
//! loop's outputs with no race, and every derived barrier, deleted, caught as a race naming both
//! threads — or, one the program does not need, by the machine-level verifier on the sm_80
//! kernel of the program without it (docs/execution-model.md, "Threads"; docs/interpreter.md,
//! "Across threads").

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::{emit, EmitOptions, Target};
use stagecraft::explore::{explore, Options};
use stagecraft::interp::{check_threads, ThreadOptions};
use stagecraft::ir::{BarrierKind, Node, Program};
use stagecraft::machine::{self, MachineVerdict};
use stagecraft::pipelined::Form;
use std::collections::BTreeMap;

#[path = "support/cooperative.rs"]
mod cooperative_loops;
use cooperative_loops::cooperative;

fn options(form: Form) -> Options {
    Options {
        targets: Vec::new(),
        timeline: false,
        both_forms: true,
        form,
        ..Options::default()
    }
}

/// The original loop and the pipelined program in `form`.
fn programs(text: &str, form: Form) -> (Program, Program) {
    let ex = explore(text, &options(form));
    let errors: Vec<String> = ex
        .diagnostics
        .iter()
        .filter(|d| d.severity == stagecraft::diagnostic::Severity::Error)
        .map(|d| d.message.clone())
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{text}");
    let p = ex.programs.expect("programs");
    let pipelined = match form {
        Form::Rolled => p.rolled.clone(),
        Form::Peeled => p.peeled.clone().expect("peeled"),
    };
    (p.original, pipelined)
}

fn printed(p: &Program) -> String {
    stagecraft::tir::print(p).text
}

/// The barriers of a node list, in pre-order, with the kinds of their reasons.
fn barriers(nodes: &[Node], out: &mut Vec<Vec<BarrierKind>>) {
    for n in nodes {
        match n {
            Node::Barrier { reasons, .. } => out.push(reasons.iter().map(|r| r.kind).collect()),
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => barriers(body, out),
            Node::Assign(_) => {}
        }
    }
}

/// The body loop's barriers.
fn body_barriers(p: &Program) -> Vec<Vec<BarrierKind>> {
    let mut out = Vec::new();
    for n in &p.body {
        if let Node::Section {
            kind: stagecraft::ir::SectionKind::Body,
            body,
            ..
        } = n
        {
            barriers(body, &mut out);
        }
    }
    out
}

/// CUTLASS's main loop shrunk: A and B copied cooperatively into a 4-slot ring, three k-tiles in
/// flight, every thread reading the whole tile into its fragments.
fn cutlass(order: &str, threads: u32) -> String {
    format!(
        "A_smem = alloc([4, 4], scope=\"shared\", threads=\"cyclic\")
B_smem = alloc([4, 4], scope=\"shared\", threads=\"cyclic\")
A_frag = alloc([4, 4], scope=\"local\")
B_frag = alloc([4, 4], scope=\"local\")
accum = alloc([4, 4], scope=\"local\")
for k in range(8):
    for m in range(4):
        for kk in range(4):
            A_smem[m, kk] = A[m, 4 * k + kk]
    for kk in range(4):
        for n in range(4):
            B_smem[kk, n] = B[4 * k + kk, n]
    for m in range(4):
        for kk in range(4):
            A_frag[m, kk] = A_smem[m, kk]
    for kk in range(4):
        for n in range(4):
            B_frag[kk, n] = B_smem[kk, n]
    for m in range(4):
        for n in range(4):
            for kk in range(4):
                accum[m, n] = fma(A_frag[m, kk], B_frag[kk, n], accum[m, n])
    for m in range(4):
        for n in range(4):
            C[m, n] = accum[m, n]

sch.annotate(k, \"software_pipeline_stage\", [0, 0, 3, 3, 3, 3])
sch.annotate(k, \"software_pipeline_order\", {order})
sch.annotate(k, \"software_pipeline_async_stages\", [0])
sch.annotate(k, \"stagecraft_threads\", [{threads}])
"
    )
}

#[test]
fn copies_first_need_one_barrier_after_the_wait_and_one_before_the_refill() {
    let (original, pipelined) = programs(&cutlass("[0, 1, 2, 3, 4, 5]", 8), Form::Rolled);
    let text = printed(&pipelined);
    assert_eq!(
        body_barriers(&pipelined),
        vec![
            vec![BarrierKind::BeforeRefill, BarrierKind::BeforeRefill],
            vec![BarrierKind::AfterWrite, BarrierKind::AfterWrite],
        ],
        "{text}"
    );
    let check = check_threads(&original, &pipelined, &ThreadOptions::default());
    assert!(check.is_clean(), "{check:?}\n{text}");
}

#[test]
fn copies_after_the_reads_need_one_barrier_that_covers_both() {
    let (original, pipelined) = programs(&cutlass("[4, 5, 0, 1, 2, 3]", 8), Form::Rolled);
    let text = printed(&pipelined);
    let body = body_barriers(&pipelined);
    assert_eq!(body.len(), 1, "{text}");
    assert!(body[0].contains(&BarrierKind::AfterWrite), "{text}");
    let check = check_threads(&original, &pipelined, &ThreadOptions::default());
    assert!(check.is_clean(), "{check:?}\n{text}");
}

/// Every barrier of `p`, in pre-order, removed in turn.
fn without_each_barrier(p: &Program) -> Vec<Program> {
    fn count(nodes: &[Node]) -> usize {
        nodes
            .iter()
            .map(|n| match n {
                Node::Barrier { .. } => 1,
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::Commit { body, .. }
                | Node::AsyncScope { body, .. }
                | Node::Wait { body, .. }
                | Node::Section { body, .. } => count(body),
                Node::Assign(_) => 0,
            })
            .sum()
    }
    fn remove(nodes: &mut Vec<Node>, k: &mut usize) -> bool {
        let mut i = 0;
        while i < nodes.len() {
            match &mut nodes[i] {
                Node::Barrier { .. } => {
                    if *k == 0 {
                        nodes.remove(i);
                        return true;
                    }
                    *k -= 1;
                }
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::Commit { body, .. }
                | Node::AsyncScope { body, .. }
                | Node::Wait { body, .. }
                | Node::Section { body, .. } => {
                    if remove(body, k) {
                        return true;
                    }
                }
                Node::Assign(_) => {}
            }
            i += 1;
        }
        false
    }
    (0..count(&p.body))
        .map(|k| {
            let mut q = p.clone();
            remove(&mut q.body, &mut { k });
            q
        })
        .collect()
}

#[test]
fn deleting_a_derived_barrier_of_the_cutlass_loop_is_a_race_naming_both_threads() {
    for order in ["[0, 1, 2, 3, 4, 5]", "[4, 5, 0, 1, 2, 3]"] {
        for form in [Form::Rolled, Form::Peeled] {
            let (original, pipelined) = programs(&cutlass(order, 8), form);
            for (k, cut) in without_each_barrier(&pipelined).iter().enumerate() {
                let check = check_threads(&original, cut, &ThreadOptions::default());
                let race = check.run.races.first();
                assert!(
                    race.is_some_and(|r| r.access.agent != r.other.agent),
                    "barrier {k} of order {order} ({form:?}) deleted, no race between threads:\n{}",
                    printed(cut)
                );
                assert!(race.unwrap().message().contains("thread"));
            }
        }
    }
}

/// A random loop explored: its text, the original and pipelined programs, and the parameter
/// values the kernels are emitted with.
type Explored = (String, Program, Program, BTreeMap<String, i64>);

/// Explores a random loop; `None` when the transform refuses its schedule.
fn cooperative_programs(case: u64, form: Form) -> Option<Explored> {
    let text = cooperative(case);
    let ex = explore(&text, &options(form));
    if ex
        .diagnostics
        .iter()
        .any(|d| d.severity == stagecraft::diagnostic::Severity::Error)
    {
        return None;
    }
    let p = ex.programs?;
    let pipelined = match form {
        Form::Rolled => p.rolled.clone(),
        Form::Peeled => p.peeled.clone()?,
    };
    Some((text, p.original, pipelined, p.params))
}

/// What the machine-level verifier says of the sm_80 kernel of a pipelined program.
enum Kernel {
    /// Same outputs, no race.
    Correct,
    /// A race, or outputs that differ.
    Caught,
    /// The emitter refuses the program, or the verifier does not judge its kernel (the reason).
    NotJudged(String),
}

/// The sm_80 kernel of `pipelined` (16-byte `cp.async.cg` chunks spread over the block's
/// threads whatever the element's owner), executed across its threads by the machine-level
/// verifier against `original`.
fn sm80_kernel(original: &Program, pipelined: &Program, params: &BTreeMap<String, i64>) -> Kernel {
    let code = emit(pipelined, params, Target::Ptx, &EmitOptions::default());
    if let Some(e) = code.error {
        return Kernel::NotJudged(format!("not emitted: {e}"));
    }
    let m = machine::check(
        original,
        pipelined,
        params,
        &code.text,
        Target::Ptx,
        code.lanes,
    );
    match m.verdict {
        MachineVerdict::Correct => Kernel::Correct,
        MachineVerdict::Racy | MachineVerdict::Different => Kernel::Caught,
        _ => Kernel::NotJudged(m.summary),
    }
}

/// Each random cooperative schedule computes the loop with no race across its threads, by both
/// verifiers (the interpreter running the program, the machine-level verifier its sm_80 kernel),
/// and every
/// derived barrier, deleted, is caught: as a race by the interpreter across threads, or — the
/// barriers the program does not need — by the machine-level verifier executing the sm_80 kernel
/// of the program without it (docs/execution-model.md, "Threads").
#[test]
fn random_cooperative_schedules_compute_the_loop_with_no_race_and_each_barrier_caught() {
    let wanted: usize = std::env::var("THREADS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let debug = std::env::var("THREADS_DEBUG").is_ok();
    let (mut accepted, mut with_barriers, mut deletions) = (0, 0, 0);
    let (mut by_ir, mut by_kernel, mut not_judged, mut by_neither) = (0, 0, 0, 0);
    let mut kernels_correct = 0;
    let mut case = 0u64;
    while accepted < wanted {
        case += 1;
        assert!(case < 20 * wanted as u64, "too few schedules accepted");
        let form = if case.is_multiple_of(2) {
            Form::Rolled
        } else {
            Form::Peeled
        };
        let Some((text, original, pipelined, params)) = cooperative_programs(case, form) else {
            continue;
        };
        accepted += 1;
        let check = check_threads(&original, &pipelined, &ThreadOptions::default());
        assert!(
            check.is_clean(),
            "case {case}: {:?} {:?}\n{}\n{text}",
            check.run.races.first().map(|r| r.message()),
            check.differences,
            printed(&pipelined)
        );
        // The machine-level verifier too: the sm_80 kernel of the whole program, executed
        // across its threads, computes the loop with no race.
        let whole = sm80_kernel(&original, &pipelined, &params);
        match &whole {
            Kernel::Correct => kernels_correct += 1,
            Kernel::Caught => panic!(
                "case {case} ({form:?}): the sm_80 kernel races or differs with every \
                 barrier\n{text}\n{}",
                printed(&pipelined)
            ),
            Kernel::NotJudged(_) => {}
        }
        let cuts = without_each_barrier(&pipelined);
        with_barriers += usize::from(!cuts.is_empty());
        let caught_before = by_ir;
        for (k, cut) in cuts.iter().enumerate() {
            deletions += 1;
            let check = check_threads(&original, cut, &ThreadOptions::default());
            if !check.run.races.is_empty() {
                by_ir += 1;
                continue;
            }
            // A deletion counts as caught by the kernel only if the kernel with every barrier
            // runs correctly (asserted above).
            let verdict = match &whole {
                Kernel::Correct | Kernel::Caught => sm80_kernel(&original, cut, &params),
                Kernel::NotJudged(why) => Kernel::NotJudged(why.clone()),
            };
            match verdict {
                Kernel::Caught => by_kernel += 1,
                Kernel::NotJudged(why) => {
                    not_judged += 1;
                    if debug {
                        eprintln!("case {case} ({form:?}): barrier {k} (in pre-order) not needed by the program, its kernel not judged: {why}");
                    }
                }
                Kernel::Correct => {
                    by_neither += 1;
                    if debug {
                        eprintln!(
                            "case {case} ({form:?}): barrier {k} (in pre-order) needed by neither \
                             the program nor its sm_80 kernel\n{text}\n{}",
                            printed(&pipelined)
                        );
                    }
                }
            }
        }
        assert!(
            cuts.is_empty() || by_ir > caught_before,
            "case {case}: no derived barrier is needed by the program\n{}\n{text}",
            printed(&pipelined)
        );
    }
    // Every schedule's kernel is emitted and executed (none refused, none left unjudged).
    assert_eq!(
        kernels_correct, accepted,
        "schedules whose sm_80 kernel was not judged"
    );
    eprintln!(
        "{accepted} schedules ({kernels_correct} sm_80 kernels executed correctly), \
         {with_barriers} with barriers, {deletions} barriers deleted: \
         {by_ir} caught by the interpreter across threads, {by_kernel} only by the sm_80 kernel, \
         {not_judged} with no sm_80 kernel judged, {by_neither} by neither"
    );
    assert!(
        with_barriers * 4 >= accepted,
        "too few schedules need a barrier"
    );
    // Every kernel of a deletion the program does not need was emitted and judged.
    assert_eq!(not_judged, 0, "THREADS_DEBUG=1 prints each");
    // A pair is kept when its writer is an async copy, even when the owner reads its own
    // element, where a kernel copies the loop cooperatively (`Threads::copied_cooperatively`,
    // docs/execution-model.md, "Threads"): the program does not need it, the sm_80 kernel does,
    // its copies spread over the block's threads whatever the owner. Every other barrier the
    // program needs. THREADS_DEBUG=1 prints any that neither needs.
    assert!(
        by_neither == 0,
        "{by_neither} derived barriers needed by neither the program nor its kernel"
    );
}

/// Sampling the waves that own nothing (one runs for all) judges as running them all does.
#[test]
fn sampling_idle_threads_symmetrically_judges_as_running_them_all() {
    let (mut compared, mut sampled_away) = (0, 0);
    for case in 1..400u64 {
        let Some((_, original, pipelined, _)) = cooperative_programs(case, Form::Rolled) else {
            continue;
        };
        let mut cuts = without_each_barrier(&pipelined);
        cuts.push(pipelined);
        for p in &cuts {
            let all = check_threads(
                &original,
                p,
                &ThreadOptions {
                    sample_symmetric: false,
                    ..ThreadOptions::default()
                },
            );
            let some = check_threads(&original, p, &ThreadOptions::default());
            assert_eq!(all.is_clean(), some.is_clean(), "case {case}");
            assert_eq!(all.run.races.is_empty(), some.run.races.is_empty());
            sampled_away += all.run.agents.len() - some.run.agents.len();
            compared += 1;
        }
    }
    assert!(
        compared > 100 && sampled_away > 0,
        "{compared} {sampled_away}"
    );
}

/// The source loop means its statements in order; `barrier()` belongs to pipelined programs
/// only, and in a source loop is a located error, not silently a statement.
#[test]
fn a_barrier_written_in_the_source_loop_is_a_located_error() {
    let text = "S = alloc([4], scope=\"shared\", threads=\"cyclic\")
for k in range(8):
    for m in range(4):
        S[m] = A[k, m]
    barrier()
    for m in range(4):
        C[k, m] = S[3 - m]
sch.annotate(k, \"software_pipeline_stage\", [0, 1])
sch.annotate(k, \"software_pipeline_order\", [0, 1])
sch.annotate(k, \"stagecraft_threads\", [4])
";
    let ex = explore(text, &options(Form::Rolled));
    let errors: Vec<_> = ex
        .diagnostics
        .iter()
        .filter(|d| d.severity == stagecraft::diagnostic::Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].message.contains("`barrier()` has no place"),
        "{errors:?}"
    );
    let at = text.find("barrier()").unwrap();
    assert_eq!(errors[0].span.start as usize, at);
    assert!(ex.programs.is_none());
}
