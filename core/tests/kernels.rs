//! Kernels of loops run by several threads (docs/execution-model.md, "Threads"): the CUTLASS
//! preset's sm_80 kernel as CUTLASS runs it — 16-byte `cp.async.cg` copies shared by the block's
//! threads, `cp.async.wait_group kStages - 2` and `bar.sync 0` where the transform derived a
//! barrier — for kStages 3, 4 and 5, accepted by ptxas and executed by the machine-level
//! verifier; and the verifier, which reads only the kernel, catching every derived `bar.sync`
//! deleted as a race between two named threads. Likewise the CDNA4 preset's gfx950 kernel across
//! its 512 threads in 8 waves: LDS DMA `dwordx4` copies shared by the waves and `s_barrier` where
//! derived, accepted by llvm-mc and executed, every derived `s_barrier` deleted a race between two
//! named waves.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::{emit, EmitOptions, Target};
use stagecraft::explore::{explore, Options};
use stagecraft::machine::{check, MachineCheck, MachineRace, MachineVerdict};
use std::path::{Path, PathBuf};
use std::process::Command;

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
    kernel(source, Target::Ptx, text)
}

/// The kernel of `source`'s derived program for `target` (or `text` in its place), executed by
/// the machine-level verifier with the workgroup the emitter wrote it for.
fn kernel(source: &str, target: Target, text: Option<&str>) -> Kernel {
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
    let code = emit(&peeled, &programs.params, target, &opts);
    assert!(code.error.is_none(), "{:?}", code.error);
    let text = text.map_or(code.text, str::to_string);
    let check = check(
        &programs.original,
        &peeled,
        &programs.params,
        &text,
        target,
        code.lanes,
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
    each_deletion_races_between_two(&source, Target::Ptx, &lines, &derived, "in thread");
}

/// Deleting any one of `lines` at `derived` from `source`'s `target` kernel is a race the
/// verifier names between two agents (`who`: "in thread", "in wave").
fn each_deletion_races_between_two(
    source: &str,
    target: Target,
    lines: &[&str],
    derived: &[usize],
    who: &str,
) {
    for &at in derived {
        let mut without = lines.to_vec();
        without.remove(at);
        let m = kernel(source, target, Some(&(without.join("\n") + "\n")));
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
            .unwrap_or_else(|| panic!("no race between two {who}: {:?}", m.check.races));
        assert!(named.message.contains(who), "{}", named.message);
    }
}

/// How many of the lines at `barriers`, each deleted alone from `source`'s `target` kernel, make
/// it racy; every other deletion leaves it correct, and every race found is one `expected` accepts.
fn deletions_caught(
    source: &str,
    target: Target,
    lines: &[&str],
    barriers: &[usize],
    case: u64,
    expected: impl Fn(&MachineRace) -> bool,
) -> usize {
    let mut caught = 0;
    for &at in barriers {
        let mut without = lines.to_vec();
        without.remove(at);
        let m = kernel(source, target, Some(&(without.join("\n") + "\n")));
        if m.check.verdict == MachineVerdict::Racy {
            caught += 1;
            assert!(
                m.check.races.iter().any(&expected),
                "case {case}: {:?}",
                m.check.races
            );
        } else {
            assert_eq!(m.check.verdict, MachineVerdict::Correct, "case {case}");
        }
    }
    caught
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
        deleted += barriers.len();
        caught += deletions_caught(&source, Target::Ptx, &lines, &barriers, case, |r| {
            r.between.is_some_and(|(a, b)| a != b)
        });
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

fn cdna4() -> String {
    std::fs::read_to_string(root().join("examples/cdna4_interleaved.py")).unwrap()
}

fn llvm_mc_accepts(name: &str, cpu: &str, text: &str) {
    let dir = std::env::temp_dir().join(format!("stagecraft-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(format!("{name}.s"));
    std::fs::write(&f, text).unwrap();
    let out = Command::new("llvm-mc-22")
        .args([
            "-triple=amdgcn-amd-amdhsa",
            &format!("-mcpu={cpu}"),
            "-filetype=obj",
            "-o",
        ])
        .arg(dir.join(format!("{name}.o")))
        .arg(&f)
        .output()
        .expect("llvm-mc-22 runs (apt-get install llvm-22)");
    assert!(
        out.status.success(),
        "llvm-mc-22 -mcpu={cpu} rejects {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_cdna4_preset_on_gfx950_runs_512_threads_copying_together_with_s_barrier_where_derived() {
    let k = kernel(&cdna4(), Target::AmdgpuGfx950, None);
    assert!(
        k.text.contains("One workgroup of 512 threads"),
        "{}",
        k.text.lines().next().unwrap_or("")
    );
    assert_eq!(
        k.check.verdict,
        MachineVerdict::Correct,
        "{}",
        k.check.summary
    );
    // Every copy of the spread tiles is a 16-byte LDS DMA, issued by every wave under the EXEC
    // of the waves holding a chunk of the tile; none copies 4 bytes a lane.
    assert!(!k.text.contains("global_load_lds_dword "), "{}", k.text);
    let copies = k.text.matches("global_load_lds_dwordx4").count();
    assert!(copies > 0);
    assert_eq!(k.text.matches("s_cselect_b64 exec, -1, 0").count(), copies);
    // A derived barrier after each wait that lands a tile: the note's vmcnt + s_barrier.
    let lines: Vec<&str> = k.text.lines().collect();
    let derived = derived_s_barriers(&k.text);
    assert!(!derived.is_empty());
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("s_waitcnt vmcnt(") && l.contains("; wait #") {
            let next = lines[i + 1..]
                .iter()
                .find(|n| !n.trim_start().starts_with("s_waitcnt lgkmcnt(0)"))
                .unwrap();
            assert!(
                next.contains("s_barrier  ; derived barrier"),
                "line {}: a wait that lands other waves' copies is followed by s_barrier: {next}",
                i + 1,
            );
        }
    }
    llvm_mc_accepts("cdna4_gfx950", "gfx950", &k.text);
    // gfx942 has no dwordx4 LDS DMA: its kernel copies per thread and says so.
    let gfx942 = kernel(&cdna4(), Target::Amdgpu, None);
    assert_eq!(
        gfx942.check.verdict,
        MachineVerdict::Correct,
        "{}",
        gfx942.check.summary
    );
    assert!(gfx942.text.lines().all(|l| {
        let l = l.trim_start();
        !l.starts_with("global_load_lds_dwordx4") && !l.starts_with("s_barrier")
    }));
    llvm_mc_accepts("cdna4_gfx942", "gfx942", &gfx942.text);
}

/// The derived `s_barrier` lines of a kernel.
fn derived_s_barriers(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains("s_barrier  ; derived barrier"))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn deleting_any_derived_s_barrier_of_the_cdna4_gfx950_kernel_is_a_race_between_two_waves() {
    let source = cdna4();
    let k = kernel(&source, Target::AmdgpuGfx950, None);
    let lines: Vec<&str> = k.text.lines().collect();
    let derived = derived_s_barriers(&k.text);
    // After each wait that lands a tile, and before the refills no wait precedes.
    assert!(derived.len() >= 6, "{}", k.text);
    each_deletion_races_between_two(&source, Target::AmdgpuGfx950, &lines, &derived, "in wave");
}

/// The verifier executes the waves' EXEC: with every wave copying every tile, the waves' DMAs
/// overlap and overrun the tiles; a kernel that leaves EXEC at 0 after a copy runs a vector
/// instruction the executor does not model and says so. (No wave copying is not observable
/// here: the preset's accumulators are local and it stores nothing, and LDS is zero-filled.)
#[test]
fn the_cdna4_gfx950_kernel_depends_on_which_waves_copy() {
    let source = cdna4();
    let k = kernel(&source, Target::AmdgpuGfx950, None);
    let select = "s_cselect_b64 exec, -1, 0  ; the waves holding a chunk of this tile";
    let every_wave = k.text.replace(select, "s_mov_b64 exec, -1");
    let m = kernel(&source, Target::AmdgpuGfx950, Some(&every_wave));
    assert!(!m.check.is_correct(), "{}", m.check.summary);
    let exec_left_off = k.text.replace("  s_mov_b64 exec, -1\n", "");
    let m = kernel(&source, Target::AmdgpuGfx950, Some(&exec_left_off));
    assert_eq!(
        m.check.verdict,
        MachineVerdict::NotSupported,
        "{}",
        m.check.summary
    );
}

/// A random cooperative loop run by `waves` waves of 64 threads instead of its own threads.
fn in_waves_of_64(source: &str, waves: u64) -> String {
    let mut text: String = source
        .lines()
        .filter(|l| !l.contains("\"stagecraft_threads\"") && !l.contains("\"stagecraft_waves\""))
        .map(|l| format!("{l}\n"))
        .collect();
    text.push_str(&format!(
        "sch.annotate(i, \"stagecraft_threads\", [{}])\nsch.annotate(i, \"stagecraft_waves\", [{waves}])\n",
        64 * waves
    ));
    text
}

/// The random cooperative loops run by 4 or 8 waves of 64, as gfx950 kernels: each computes
/// the loop (these store their results) with no race across its waves, and a derived
/// `s_barrier` deleted is either caught as a race between two named waves or changes nothing
/// (it orders statements the kernel keeps per thread) — at least one caught in every kernel
/// whose waves copy together.
#[test]
fn random_cooperative_loops_in_waves_run_correctly_on_gfx950_and_need_their_s_barriers() {
    let wanted: usize = std::env::var("KERNEL_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120);
    let (mut accepted, mut together, mut deleted, mut caught) = (0, 0, 0, 0);
    let mut case = 0u64;
    while accepted < wanted {
        case += 1;
        assert!(case < 20 * wanted as u64, "too few schedules accepted");
        let source = in_waves_of_64(&cooperative_loops::cooperative(case), 4 << (case % 2));
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
        let k = kernel(&source, Target::AmdgpuGfx950, None);
        assert_eq!(
            k.check.verdict,
            MachineVerdict::Correct,
            "case {case}: {}\n{source}",
            k.check.summary
        );
        let copies = k.text.contains("global_load_lds_dwordx4");
        let lines: Vec<&str> = k.text.lines().collect();
        let barriers = derived_s_barriers(&k.text);
        together += usize::from(copies && !barriers.is_empty());
        let caught_before = caught;
        deleted += barriers.len();
        caught += deletions_caught(
            &source,
            Target::AmdgpuGfx950,
            &lines,
            &barriers,
            case,
            |r| r.between.is_some_and(|(a, b)| a != b) || r.in_flight,
        );
        assert!(
            !copies || barriers.is_empty() || caught > caught_before,
            "case {case}: no derived s_barrier is needed\n{source}"
        );
    }
    eprintln!(
        "{accepted} gfx950 kernels ({together} copying together with barriers), \
         {deleted} derived s_barrier deleted, {caught} caught"
    );
    assert!(together * 4 >= accepted, "too few cooperative kernels");
}
