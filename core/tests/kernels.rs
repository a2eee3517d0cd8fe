//! Kernels of loops run by several threads (docs/execution-model.md, "Threads"): the CUTLASS
//! preset's sm_80 kernel as CUTLASS runs it — 16-byte `cp.async.cg` copies shared by the block's
//! threads, `cp.async.wait_group kStages - 2` and `bar.sync 0` where the transform derived a
//! barrier — for kStages 3, 4 and 5, accepted by ptxas and executed by the machine-level
//! verifier; and the verifier, which reads only the kernel, catching every derived `bar.sync`
//! deleted as a race between two named threads.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::{emit, EmitOptions, Target};
use stagecraft::explore::{explore, Options};
use stagecraft::machine::{check, lanes_of, MachineCheck, MachineVerdict};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The CUTLASS preset with its copies `k_stages - 1` iterations ahead of the reads
/// (`software_pipeline_stage` `[0, 0, S, S, S]`, S = kStages - 1).
fn cutlass(k_stages: i64) -> String {
    let text = std::fs::read_to_string(root().join("examples/cutlass_multistage.py")).unwrap();
    let s = k_stages - 1;
    let stages = "\"software_pipeline_stage\", [0, 0, 3, 3, 3]";
    assert!(text.contains(stages), "the preset's stages changed");
    text.replace(
        stages,
        &format!("\"software_pipeline_stage\", [0, 0, {s}, {s}, {s}]"),
    )
}

struct Kernel {
    text: String,
    check: MachineCheck,
}

fn ptx_kernel(source: &str, text: Option<&str>) -> Kernel {
    let ex = explore(
        source,
        &Options {
            verify: false,
            timeline: false,
            targets: Vec::new(),
            peeled_program: true,
            both_forms: false,
            ..Options::default()
        },
    );
    let programs = ex.programs.expect("a valid schedule");
    let peeled = programs.peeled.expect("a peeled program");
    let opts = EmitOptions::default();
    let code = emit(&peeled, &programs.params, Target::Ptx, &opts);
    assert!(code.error.is_none(), "{:?}", code.error);
    let text = text.map_or(code.text, str::to_string);
    let check = check(
        &programs.original,
        &peeled,
        &programs.params,
        &text,
        Target::Ptx,
        lanes_of(Target::Ptx, &opts),
    );
    Kernel { text, check }
}

#[path = "support/ptxas.rs"]
mod ptxas;
use ptxas::ptxas_accepts;

/// The lines of the body loop (between its label and its back branch).
fn body_loop(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("$L_body_"))
        .expect("a body loop");
    let end = lines
        .iter()
        .position(|l| l.starts_with("$L_end_"))
        .expect("its end");
    lines[start..end].to_vec()
}

#[test]
fn the_cutlass_preset_waits_k_stages_minus_two_then_bar_syncs_for_k_stages_3_4_5() {
    for k_stages in [3, 4, 5] {
        let k = ptx_kernel(&cutlass(k_stages), None);
        let body = body_loop(&k.text);
        let waits: Vec<&&str> = body
            .iter()
            .filter(|l| l.contains("cp.async.wait_group"))
            .collect();
        assert_eq!(waits.len(), 1, "kStages {k_stages}: {waits:?}");
        assert!(
            waits[0]
                .trim()
                .starts_with(&format!("cp.async.wait_group {};", k_stages - 2)),
            "kStages {k_stages}: CUTLASS waits cp_async_wait<kStages - 2>: {}",
            waits[0]
        );
        // CUTLASS's __syncthreads() right after the wait, and the only barrier of the iteration:
        // it publishes the next tile and frees the slot the last one was read from.
        let at = body.iter().position(|l| l.contains("wait_group")).unwrap();
        assert!(
            body[at + 1].trim().starts_with("bar.sync 0;"),
            "{}",
            body[at + 1]
        );
        assert_eq!(body.iter().filter(|l| l.contains("bar.sync")).count(), 1);
        // 32 copies of 16 bytes per k-tile and operand chunk: every copy cooperative.
        let copies: Vec<&&str> = body
            .iter()
            .filter(|l| l.contains("cp.async.cg") || l.contains("cp.async.ca"))
            .collect();
        assert_eq!(copies.len(), 32, "kStages {k_stages}");
        assert!(
            copies
                .iter()
                .all(|l| l.contains("cp.async.cg.shared.global") && l.trim_end().ends_with(", 16;")),
            "{copies:?}"
        );
        assert!(!k.text.contains("cp.async.ca"));
        assert_eq!(
            k.check.verdict,
            MachineVerdict::Correct,
            "kStages {k_stages}: {}",
            k.check.summary
        );
        ptxas_accepts(&format!("cutlass_k{k_stages}"), &k.text);
    }
}

#[test]
fn deleting_any_derived_bar_sync_of_the_cutlass_kernel_is_a_race_between_two_threads() {
    let source = cutlass(4);
    let k = ptx_kernel(&source, None);
    let lines: Vec<&str> = k.text.lines().collect();
    let derived: Vec<usize> = (0..lines.len())
        .filter(|i| lines[*i].contains("bar.sync 0;  // derived barrier"))
        .collect();
    // The body's, and one after each of the epilogue's three waits.
    assert_eq!(derived.len(), 4, "{}", k.text);
    for at in derived {
        let mut without = lines.clone();
        without.remove(at);
        let text = without.join("\n") + "\n";
        let m = ptx_kernel(&source, Some(&text));
        assert_eq!(
            m.check.verdict,
            MachineVerdict::Racy,
            "deleting line {} `{}` was not caught: {}",
            at + 1,
            lines[at].trim(),
            m.check.summary
        );
        let named = m
            .check
            .races
            .iter()
            .find(|r| r.between.is_some_and(|(a, b)| a != b))
            .unwrap_or_else(|| panic!("no race names two threads: {:?}", m.check.races));
        assert!(named.message.contains("in thread"), "{}", named.message);
    }
}

#[test]
fn a_copy_read_before_its_copier_waits_is_a_race_in_flight() {
    // Every wait deleted: the copies are still in flight when other threads read them.
    let source = cutlass(3);
    let k = ptx_kernel(&source, None);
    let text: String = k
        .text
        .lines()
        .filter(|l| !l.contains("cp.async.wait_group"))
        .map(|l| format!("{l}\n"))
        .collect();
    let m = ptx_kernel(&source, Some(&text));
    assert!(
        m.check.races.iter().any(|r| r.in_flight),
        "{}",
        m.check.summary
    );
}

#[path = "support/cooperative.rs"]
mod cooperative_loops;

/// The derived `bar.sync` lines of a kernel.
fn derived_barriers(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains("bar.sync 0;  // derived barrier"))
        .map(|(i, _)| i)
        .collect()
}

/// The random cooperative loops of `threads.rs`, as sm_80 kernels: every one computes the loop
/// with no race on the machine; a derived `bar.sync` deleted is caught whenever it orders a
/// cooperative copy with another thread's read (the kernel's other statements keep each
/// thread on its own values, so some barriers the program needs protect nothing in the kernel).
#[test]
fn random_cooperative_kernels_run_correctly_and_their_copies_need_their_bar_syncs() {
    let wanted: usize = std::env::var("KERNEL_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let (mut accepted, mut deleted, mut caught) = (0, 0, 0);
    let mut cooperative_kernels = 0;
    let mut case = 0u64;
    while accepted < wanted {
        case += 1;
        assert!(case < 20 * wanted as u64, "too few schedules accepted");
        let source = cooperative_loops::cooperative(case);
        let ex = explore(
            &source,
            &Options {
                verify: false,
                timeline: false,
                targets: Vec::new(),
                peeled_program: true,
                both_forms: false,
                ..Options::default()
            },
        );
        if ex
            .diagnostics
            .iter()
            .any(|d| d.severity == stagecraft::diagnostic::Severity::Error)
            || ex.programs.is_none()
        {
            continue;
        }
        accepted += 1;
        let k = ptx_kernel(&source, None);
        assert_eq!(
            k.check.verdict,
            MachineVerdict::Correct,
            "case {case}: {}\n{source}",
            k.check.summary
        );
        let lines: Vec<&str> = k.text.lines().collect();
        let barriers = derived_barriers(&k.text);
        let cooperative = k.text.contains("cp.async.cg");
        cooperative_kernels += usize::from(cooperative && !barriers.is_empty());
        let caught_before = caught;
        for at in barriers.iter().copied() {
            let mut without = lines.clone();
            without.remove(at);
            let m = ptx_kernel(&source, Some(&(without.join("\n") + "\n")));
            deleted += 1;
            if m.check.verdict == MachineVerdict::Racy {
                caught += 1;
                assert!(
                    m.check
                        .races
                        .iter()
                        .any(|r| r.between.is_some_and(|(a, b)| a != b)),
                    "case {case}: {:?}",
                    m.check.races
                );
            } else {
                assert_eq!(m.check.verdict, MachineVerdict::Correct, "case {case}");
            }
        }
        // A kernel whose threads read each other's copies needs at least one of its barriers.
        assert!(
            !cooperative || barriers.is_empty() || caught > caught_before,
            "case {case}: no derived bar.sync is needed\n{source}"
        );
    }
    eprintln!(
        "{accepted} kernels ({cooperative_kernels} with cooperative copies and barriers), \
         {deleted} derived bar.sync deleted, {caught} caught"
    );
    assert!(
        cooperative_kernels * 4 >= accepted,
        "too few cooperative kernels"
    );
}
