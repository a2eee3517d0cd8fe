//! The machine-level verifier on the emitted kernels (docs/execution-model.md, "Checking on the
//! machine"): every example, every golden case and thousands of random schedules, at their own
//! extents and at the short trip counts (extent 1, S, S + 1 for S stages; a symbolic extent bound
//! to 0 … S + 2), executed as AMDGPU ISA (gfx942, gfx950), AMDGPU LLVM IR and PTX (sm_80, sm_90a)
//! must compute what the loop computes with no race; the regressions keep their exact
//! counts; and the verifier itself catches a wait raised by one or deleted.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::{emit, EmitOptions, Emitted, EmittedWait, ForcedGroup, Target};
use stagecraft::explore::{explore, Options};
use stagecraft::interp::RaceKind;
use stagecraft::ir::Program;
use stagecraft::ir::Scope;
use stagecraft::machine::{check_with, lanes_of, wave_of, Contract, MachineCheck};
use stagecraft::random_loop::{random_loop, Flavor};
use stagecraft::verify::{verify, Judgement, VerifyOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const TARGETS: [Target; 5] = [
    Target::Amdgpu,
    Target::AmdgpuGfx950,
    Target::AmdgpuIr,
    Target::Ptx,
    Target::PtxSm90,
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A loop explored once: its programs and the contract its kernels run under.
struct Loop {
    original: Program,
    peeled: Program,
    params: BTreeMap<String, i64>,
    contract: Contract,
    /// The contract of the PTX kernels (a block of 128 threads in warps of 32).
    ptx_contract: Contract,
    /// The contract of the gfx950 kernel when it runs the loop's own threads (cooperative
    /// copies, `Emitted::lanes`).
    gfx950_contract: Option<Contract>,
    /// Pipelined loop variable, extent text and largest stage + 1.
    var: String,
    extent: String,
    stages: i64,
}

/// Why a generated loop is not checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Skip {
    /// The transform refuses the schedule.
    Refused,
    /// The interpreter reports a problem in the loop itself (an out-of-bounds index, a buffer
    /// indexed with different numbers of dimensions): no reference for a kernel.
    NoReference,
    /// The kernel cannot be emitted (a guard on the loop variable inside the body loop).
    NotEmitted,
}

fn explore_loop(source: &str, params: &BTreeMap<String, i64>) -> Option<Loop> {
    try_loop(source, params).ok()
}

fn try_loop(source: &str, params: &BTreeMap<String, i64>) -> Result<Loop, Skip> {
    let l = explore_reference(source, params)?;
    if emittable(&l) {
        Ok(l)
    } else {
        Err(Skip::NotEmitted)
    }
}

fn explore_reference(source: &str, params: &BTreeMap<String, i64>) -> Result<Loop, Skip> {
    let ex = explore(
        source,
        &Options {
            verify: false,
            timeline: false,
            targets: Vec::new(),
            peeled_program: true,
            both_forms: false,
            params: params.clone(),
            ..Options::default()
        },
    );
    let (Some(programs), Some(info)) = (ex.programs, ex.pipeline) else {
        return Err(Skip::Refused);
    };
    let peeled = programs.peeled.ok_or(Skip::Refused)?;
    let lanes = EmitOptions::default().amd_lanes;
    // A loop the interpreter reports a problem in (an out-of-bounds read, a buffer indexed with
    // different numbers of dimensions) is no reference for a kernel: not checked.
    let contract = Contract::new(
        &programs.original,
        &peeled,
        &programs.params,
        lanes,
        wave_of(Target::Amdgpu),
    )
    .map_err(|_| Skip::NoReference)?;
    let ptx_contract = Contract::new(
        &programs.original,
        &peeled,
        &programs.params,
        lanes_of(Target::Ptx, &EmitOptions::default()),
        wave_of(Target::Ptx),
    )
    .map_err(|_| Skip::NoReference)?;
    let gfx950_lanes = match peeled.threads {
        Some(_) => {
            emit(
                &peeled,
                &programs.params,
                Target::AmdgpuGfx950,
                &EmitOptions::default(),
            )
            .lanes
        }
        None => lanes,
    };
    let gfx950_contract = (gfx950_lanes != lanes)
        .then(|| {
            Contract::new(
                &programs.original,
                &peeled,
                &programs.params,
                gfx950_lanes,
                wave_of(Target::AmdgpuGfx950),
            )
        })
        .transpose()
        .map_err(|_| Skip::NoReference)?;
    Ok(Loop {
        original: programs.original,
        peeled,
        params: programs.params,
        contract,
        ptx_contract,
        gfx950_contract,
        var: info.loop_var,
        extent: info.extent_text,
        stages: info.stages + 1,
    })
}

fn kernel(l: &Loop, target: Target) -> Emitted {
    let code = emit(&l.peeled, &l.params, target, &EmitOptions::default());
    if let Some(e) = &code.error {
        panic!("{}: cannot emit: {e}", target.name());
    }
    code
}

impl Loop {
    /// The contract the kernel of `target` runs under.
    fn contract_for(&self, target: Target) -> &Contract {
        match target {
            Target::Ptx | Target::PtxSm90 => &self.ptx_contract,
            Target::AmdgpuGfx950 => self.gfx950_contract.as_ref().unwrap_or(&self.contract),
            _ => &self.contract,
        }
    }
}

/// Whether the kernels of this loop can be emitted at all (a guard on the loop variable inside
/// the body loop has no form in these kernels: they run the peeled program's body as a loop).
fn emittable(l: &Loop) -> bool {
    emit(
        &l.peeled,
        &l.params,
        Target::Amdgpu,
        &EmitOptions::default(),
    )
    .error
    .is_none()
}

/// The trip counts a loop is also checked at: its own, 1, S and S + 1 for a constant extent; a
/// symbolic extent bound to 0 … S + 2.
fn short_trips(source: &str, l: &Loop) -> Vec<(String, BTreeMap<String, i64>, String)> {
    let mut out = Vec::new();
    let s = l.stages;
    match l.extent.parse::<i64>() {
        Ok(e) => {
            let header = format!("for {} in range({}):", l.var, l.extent);
            let mut seen = vec![e];
            for t in [1, s, s + 1] {
                if seen.contains(&t) || !source.contains(&header) {
                    continue;
                }
                seen.push(t);
                let text = source.replacen(&header, &format!("for {} in range({t}):", l.var), 1);
                out.push((text, l.params.clone(), format!("extent {t}")));
            }
        }
        Err(_) => {
            for n in 0..=s + 2 {
                let mut p = l.params.clone();
                for v in p.values_mut() {
                    *v = n;
                }
                out.push((source.to_string(), p, format!("{} = {n}", l.extent)));
            }
        }
    }
    out
}

/// Checks every target's kernel of one loop; failures are described in `failures`.
fn check_loop(l: &Loop, label: &str, source: &str, failures: &mut Vec<String>) -> usize {
    let mut checked = 0;
    for t in TARGETS {
        let code = kernel(l, t);
        let m = check_with(l.contract_for(t), &code.text, t);
        checked += 1;
        if !m.is_correct() {
            failures.push(format!("{label} ({}): {}\n{source}", t.name(), m.summary));
        }
    }
    checked
}

/// Checks `source` at its own trip count and the short ones; returns whether the schedule is
/// valid and how many kernels ran.
fn check_all_trips(
    source: &str,
    label: &str,
    failures: &mut Vec<String>,
) -> (Result<(), Skip>, usize) {
    let l = match try_loop(source, &BTreeMap::new()) {
        Ok(l) => l,
        Err(skip) => return (Err(skip), 0),
    };
    let mut checked = check_loop(&l, label, source, failures);
    for (text, params, what) in short_trips(source, &l) {
        if let Ok(short) = try_loop(&text, &params) {
            checked += check_loop(&short, &format!("{label} at {what}"), &text, failures);
        }
    }
    (Ok(()), checked)
}

fn example_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .chain(std::fs::read_dir(root().join("tests/cases")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_example_and_golden_case_runs_correctly_on_the_machine_at_every_short_trip_count() {
    let mut failures = Vec::new();
    let (mut valid, mut kernels) = (0, 0);
    for f in example_files() {
        let source = std::fs::read_to_string(&f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let (ok, n) = check_all_trips(&source, &name, &mut failures);
        valid += usize::from(ok.is_ok());
        kernels += n;
    }
    assert!(
        failures.is_empty(),
        "{} of {kernels} kernels are wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(valid >= 15, "only {valid} valid examples and cases");
    eprintln!("{valid} valid examples and cases, {kernels} kernels executed");
    assert!(kernels >= 170, "only {kernels} kernels executed");
}

/// Random valid schedules whose async stages hold pure global→shared copies
/// (`random_loop::Flavor::Copies`), each at its own extent and the short trip counts, on every
/// target (split in two halves that run in parallel).
fn random_schedules(seeds: std::ops::Range<u64>) -> (usize, usize, Vec<String>) {
    let mut failures = Vec::new();
    let (mut valid, mut kernels) = (0, 0);
    let mut skipped: BTreeMap<Skip, usize> = BTreeMap::new();
    for seed in seeds {
        let text = random_loop(seed, Flavor::Copies).text();
        let (ok, n) = check_all_trips(&text, &format!("seed {seed}"), &mut failures);
        match ok {
            Ok(()) => valid += 1,
            Err(skip) => *skipped.entry(skip).or_default() += 1,
        }
        kernels += n;
    }
    eprintln!("not checked: {skipped:?}");
    (valid, kernels, failures)
}

const RANDOM_SEEDS: u64 = 4400;

#[test]
fn random_copy_schedules_first_half_run_correctly_on_the_machine() {
    let (valid, kernels, failures) = random_schedules(0..RANDOM_SEEDS / 2);
    eprintln!("{valid} valid schedules, {kernels} kernels executed");
    assert!(
        failures.is_empty(),
        "{} of {kernels} kernels are wrong:\n{}",
        failures.len(),
        failures
            .iter()
            .take(if std::env::var("MACHINE_ALL").is_ok() {
                usize::MAX
            } else {
                6
            })
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(valid >= 1000, "only {valid} valid schedules");
}

#[test]
fn random_copy_schedules_second_half_run_correctly_on_the_machine() {
    let (valid, kernels, failures) = random_schedules(RANDOM_SEEDS / 2..RANDOM_SEEDS);
    eprintln!("{valid} valid schedules, {kernels} kernels executed");
    assert!(
        failures.is_empty(),
        "{} of {kernels} kernels are wrong:\n{}",
        failures.len(),
        failures
            .iter()
            .take(if std::env::var("MACHINE_ALL").is_ok() {
                usize::MAX
            } else {
                6
            })
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(valid >= 1000, "only {valid} valid schedules");
}

// ------------------------------------------------------------------ the regressions

const THREE_ITERATIONS: &str = "B = alloc([1])
for i in range(3):
    B[0] = A[i]
    C[i] = B[0] + 1
sch.annotate(i, \"software_pipeline_stage\", [0, 2])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

/// The `vmcnt` immediates of a kernel, in order.
fn vmcnts(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| {
            let at = l.find("s_waitcnt vmcnt(")?;
            let rest = &l[at + "s_waitcnt vmcnt(".len()..];
            rest[..rest.find(')')?].parse().ok()
        })
        .collect()
}

fn asyncmark_waits(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| {
            let at = l.find("wait.asyncmark(i16 ")?;
            let rest = &l[at + "wait.asyncmark(i16 ".len()..];
            rest[..rest.find(')')?].parse().ok()
        })
        .collect()
}

/// The kernel with `line` (1-based) rewritten by `f`.
fn with_line(text: &str, line: u32, f: impl Fn(&str) -> String) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == line as usize {
                f(l)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn raise_immediate(line: &str) -> String {
    raise_by(line, 1)
}

fn raise_by(line: &str, by: u64) -> String {
    for prefix in ["vmcnt(", "wait.asyncmark(i16 ", "cp.async.wait_group "] {
        if let Some(at) = line.find(prefix) {
            let start = at + prefix.len();
            let end = start + line[start..].find([')', ';']).unwrap();
            let v: u64 = line[start..end].parse().unwrap();
            return format!("{}{}{}", &line[..start], v + by, &line[end..]);
        }
    }
    panic!("no immediate in `{line}`")
}

#[test]
fn the_three_iteration_loop_waits_for_exactly_what_its_epilogue_reads() {
    let l = explore_loop(THREE_ITERATIONS, &BTreeMap::new()).unwrap();
    // Body (one trip): load(2) issued, B[0] still needed → load(0) must land: load(1), load(2) stay.
    // Epilogue: after the body, load(1), load(2), store(C[0]) are in flight; reading slot 1 needs
    // load(1): vmcnt(2). Then C[1]'s store joins: load(2) must land: vmcnt(2).
    for t in [Target::Amdgpu, Target::AmdgpuGfx950] {
        let code = kernel(&l, t);
        assert_eq!(vmcnts(&code.text), vec![2, 2, 2, 0], "{}", code.text);
        let m = check_with(&l.contract, &code.text, t);
        assert!(m.is_correct(), "{}", m.summary);
        // The count the issue reported, vmcnt(3), lets load(1) stay in flight: caught, with its
        // line and the copy's.
        let epilogue = code.waits[1].line;
        let wrong = with_line(&code.text, epilogue, |s| s.replace("vmcnt(2)", "vmcnt(3)"));
        let m = check_with(&l.contract, &wrong, t);
        assert!(!m.is_correct());
        let race = &m.races[0];
        assert!(race.line > epilogue, "{race:?}");
        assert!(race.other_instruction.starts_with("global_load_lds_dword"));
        assert!(
            race.message.contains("`B[1, 0]` (ring slot 1)"),
            "{}",
            race.message
        );
    }
    let code = kernel(&l, Target::AmdgpuIr);
    assert_eq!(asyncmark_waits(&code.text), vec![2, 1, 0]);
    assert!(check_with(&l.contract, &code.text, Target::AmdgpuIr).is_correct());
    // sm_80: groups G0, G1 in the prologue, G2 in the body; the body's wait needs G0 (G1, G2
    // stay), the epilogue's G1 (G2 stays), then G2.
    let code = kernel(&l, Target::Ptx);
    assert_eq!(wait_groups(&code.text), vec![2, 1, 0], "{}", code.text);
    assert!(check_with(&l.ptx_contract, &code.text, Target::Ptx).is_correct());
    let epilogue = code.waits[1].line;
    let wrong = with_line(&code.text, epilogue, raise_immediate);
    let m = check_with(&l.ptx_contract, &wrong, Target::Ptx);
    assert!(!m.is_correct());
    assert!(m.races[0]
        .other_instruction
        .starts_with("cp.async.ca.shared.global"));
    assert!(
        m.races[0].message.contains("`B[1, 0]` (ring slot 1)"),
        "{}",
        m.races[0].message
    );
    let code = kernel(&l, Target::PtxSm90);
    assert!(check_with(&l.ptx_contract, &code.text, Target::PtxSm90).is_correct());
}

/// The `cp.async.wait_group` immediates of a kernel, in order.
fn wait_groups(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("cp.async.wait_group ")?;
            rest[..rest.find(';')?].parse().ok()
        })
        .collect()
}

#[test]
fn rfc_c_with_four_iterations_waits_for_exactly_five_instructions_before_its_epilogue() {
    let source = std::fs::read_to_string(root().join("examples/rfc_c_interleaved.py"))
        .unwrap()
        .replace("range(16)", "range(4)");
    let l = explore_loop(&source, &BTreeMap::new()).unwrap();
    for t in [Target::Amdgpu, Target::AmdgpuGfx950] {
        let code = kernel(&l, t);
        // The one body iteration's A copy, its C store and B copy, and the prologue's last
        // A and B copies: B(0) and A(1)… the epilogue's first read needs A(1), B(1): five stay.
        assert_eq!(vmcnts(&code.text), vec![5, 5, 4, 2, 0], "{}", code.text);
        assert!(check_with(&l.contract, &code.text, t).is_correct());
        let line = code.waits[1].line;
        let wrong = with_line(&code.text, line, |s| s.replace("vmcnt(5)", "vmcnt(6)"));
        assert!(!check_with(&l.contract, &wrong, t).is_correct());
    }
    let code = kernel(&l, Target::AmdgpuIr);
    assert!(check_with(&l.contract, &code.text, Target::AmdgpuIr).is_correct());
    // sm_80's groups are the IR's marks, one per commit: the same counts.
    let ir = asyncmark_waits(&code.text);
    let code = kernel(&l, Target::Ptx);
    assert_eq!(wait_groups(&code.text), ir, "{}", code.text);
    assert_eq!(ir, vec![5, 4, 2, 0]);
    assert!(check_with(&l.ptx_contract, &code.text, Target::Ptx).is_correct());
    for w in code.waits.iter().filter(|w| w.immediate.is_some()) {
        let wrong = with_line(&code.text, w.line, raise_immediate);
        assert!(!check_with(&l.ptx_contract, &wrong, Target::Ptx).is_correct());
    }
    let code = kernel(&l, Target::PtxSm90);
    assert!(check_with(&l.ptx_contract, &code.text, Target::PtxSm90).is_correct());
}

#[test]
fn a_symbolic_extent_bound_below_the_stages_runs_its_kernel_exactly() {
    let source = THREE_ITERATIONS.replace("range(3)", "range(N)");
    for n in 0..=4 {
        let l = explore_loop(&source, &BTreeMap::from([("N".to_string(), n)])).unwrap();
        for t in TARGETS {
            let code = kernel(&l, t);
            let m = check_with(l.contract_for(t), &code.text, t);
            assert!(m.is_correct(), "N = {n}, {}: {}", t.name(), m.summary);
        }
    }
    // N = 2: the body never runs; the epilogue reads slot 0 with both copies in flight:
    // vmcnt(1) (the second copy may stay); then slot 1 with C[0]'s store issued: vmcnt(1). The
    // symbolic epilogue's last read waits wait(0, 0) itself, so no drain follows (it was a
    // wait(0, 0) needing vmcnt(2)); the kernel's end waits for the stores: vmcnt(0).
    let l = explore_loop(&source, &BTreeMap::from([("N".to_string(), 2)])).unwrap();
    let code = kernel(&l, Target::Amdgpu);
    assert_eq!(vmcnts(&code.text), vec![1, 1, 0], "{}", code.text);
}

#[test]
fn the_cutlass_preset_says_how_much_more_its_capped_vmcnt_waits_for() {
    let source = std::fs::read_to_string(root().join("examples/cutlass_multistage.py")).unwrap();
    let l = explore_loop(&source, &BTreeMap::new()).unwrap();
    let code = kernel(&l, Target::Amdgpu);
    let capped: Vec<&str> = code
        .text
        .lines()
        .filter(|s| s.contains("vmcnt(63)"))
        .collect();
    assert!(!capped.is_empty());
    for s in capped {
        assert!(
            s.contains("vmcnt holds at most 63, so this waits for"),
            "{s}"
        );
    }
    assert!(code
        .notes
        .iter()
        .any(|n| n.contains("exactly 64 vector-memory instructions may stay in flight")));
}

/// Two async copies in two stages: at the consumer, queue 0 allows 3 groups of its own in flight
/// and queue 1 allows 2, per queue; the single sequence of asyncmarks needs one count.
#[test]
fn two_queues_become_one_sequence_of_asyncmarks_derived_by_hand() {
    let source = "A_sh = alloc([1])
B_sh = alloc([1])
for i in range(12):
    A_sh[0] = A[i]
    B_sh[0] = B[i]
    C[i] = A_sh[0] + B_sh[0]
sch.annotate(i, \"software_pipeline_stage\", [0, 1, 3])
sch.annotate(i, \"software_pipeline_order\", [0, 1, 2])
sch.annotate(i, \"software_pipeline_async_stages\", [0, 1])
";
    let l = explore_loop(source, &BTreeMap::new()).unwrap();
    let ex = explore(source, &Options::default());
    // The IR's body waits before C[j] at step t = j + 3: queue 0 (copies of A, one group per
    // step, A(t) already committed) keeps A(t), A(t-1), A(t-2) — wait(0, 3); queue 1 (copies of
    // B, B(t-1) committed this step) keeps B(t-1), B(t-2) — wait(1, 2).
    let body: Vec<(i64, i64)> = ex
        .waits
        .iter()
        .filter(|w| w.section == stagecraft::ir::SectionKind::Body && w.before.is_some())
        .map(|w| (w.queue, w.instances[0].count))
        .collect();
    assert_eq!(body, vec![(0, 3), (1, 2)]);
    // By hand, the marks of one body step are A(t) then B(t-1). Before C[j], newest first:
    // B(t-1), A(t), B(t-2), A(t-1), B(t-3), A(t-2), B(t-4), A(t-3)… C[j] = C[t-3] needs A(t-3)
    // and B(t-3); the newest of those is B(t-3), with 4 marks after it: wait.asyncmark(4).
    // Nested per-queue waits would be wait.asyncmark(3) then (2) — 2 marks, forcing A(t-1)
    // and B(t-2) too; the single count 4 keeps them in flight. sm_80: a thread's cp.async groups
    // are one sequence too — the same groups in the same order, so the same count: wait_group 4
    // (nested per-queue waits were wait_group 3; 2).
    for (target, body_label, instr, machine) in [
        (
            Target::AmdgpuIr,
            "body",
            "wait.asyncmark(i16 4)",
            "the asyncmark model",
        ),
        (Target::Ptx, "$L_body", "cp.async.wait_group 4;", "sm_80"),
    ] {
        let name = target.name();
        let code = kernel(&l, target);
        let wait = code
            .waits
            .iter()
            .find(|w| w.ir.len() == 2 && w.instances > 1)
            .unwrap();
        let body_line = code.text.lines().nth(wait.line as usize - 1).unwrap();
        let first_in_body = code
            .text
            .lines()
            .skip_while(|s| !s.starts_with(body_label))
            .find(|s| s.contains(instr.split(['(', ' ']).next().unwrap()))
            .unwrap();
        assert_eq!(body_line, first_in_body, "{name}");
        assert!(body_line.contains(instr), "{name}: {body_line}");
        assert!(body_line.contains("wait #") && body_line.matches("queue").count() == 2);
        // Keeping 4 completes A(t-2) too — the 3rd newest group of queue 0, which queue 0's
        // wait(0, 3) lets stay: one group more than the IR asked, said in the comment, in a note
        // and on the wait.
        assert!(
            body_line.contains("also completes 1 group the IR lets stay in flight"),
            "{name}: {body_line}"
        );
        assert_eq!(
            wait.forced,
            vec![ForcedGroup {
                queue: 0,
                newest: 3
            }],
            "{name}"
        );
        let note = wait.forced_note.as_deref().unwrap();
        assert!(
            note.contains(&format!("on {machine} this wait also completes 1 group that the IR lets stay in flight — the 3rd newest group of queue 0")),
            "{name}: {note}"
        );
        assert!(
            note.contains("the queues share the single sequence"),
            "{note}"
        );
        assert!(code.notes.iter().any(|n| n == note), "{name}");
        // Every wait that forces a group says so in its comment and has its note; the last one
        // completes everything and forces nothing the IR lets stay.
        for w in &code.waits {
            let text = code.text.lines().nth(w.line as usize - 1).unwrap();
            assert_eq!(
                w.forced.is_empty(),
                !text.contains("also completes"),
                "{name}: {text}"
            );
            assert_eq!(
                w.forced.is_empty(),
                w.forced_note.is_none(),
                "{name}: {text}"
            );
        }
        assert!(code.waits.last().unwrap().forced.is_empty());
        let contract = l.contract_for(target);
        assert!(check_with(contract, &code.text, target).is_correct());
        // One unit fewer in flight is still safe; one more is caught.
        let raised = with_line(&code.text, wait.line, raise_immediate);
        assert!(
            !check_with(contract, &raised, target).is_correct(),
            "{name}"
        );
    }
}

/// sm_90a kernels say which pipelined waits each of their waits implements, as the kernels of the
/// single-sequence targets do: every wait of the pipelined program is implemented where sm_80
/// implements it, as often and with as many instances, each at the line of its comment.
#[test]
fn sm_90a_kernels_say_which_pipelined_wait_each_wait_implements() {
    let mut seen = 0;
    for file in example_files() {
        let source = std::fs::read_to_string(&file).unwrap();
        let Some(l) = explore_loop(&source, &BTreeMap::new()) else {
            continue;
        };
        let name = file.display();
        // Per wait node: the kernel waits implementing it (an inner loop written out implements
        // a node several times) and their instances.
        let nodes = |code: &Emitted| -> BTreeMap<usize, (usize, u64)> {
            let mut out = BTreeMap::new();
            for w in &code.waits {
                for ir in &w.ir {
                    let e: &mut (usize, u64) = out.entry(ir.node).or_default();
                    *e = (e.0 + 1, e.1 + w.instances);
                }
            }
            out
        };
        let (hopper, ampere) = (kernel(&l, Target::PtxSm90), kernel(&l, Target::Ptx));
        assert_eq!(nodes(&hopper), nodes(&ampere), "{name}");
        for w in &hopper.waits {
            let [ir] = w.ir.as_slice() else {
                panic!("{name}: one sm_90a wait implements one pipelined wait")
            };
            let line = hopper.text.lines().nth(w.line as usize - 1).unwrap();
            let id = ir.id.map_or("-".into(), |i| i.to_string());
            assert!(
                line.contains(&format!("// wait #{id} (queue {}", ir.queue)),
                "{name}: line {} is {line}",
                w.line
            );
            assert_eq!(
                w.immediate, None,
                "{name}: mbarrier waits have no count immediate"
            );
            seen += 1;
        }
    }
    assert!(seen >= 20, "only {seen} sm_90a waits");
}

// ------------------------------------------------------------------ mutations of the verifier

/// How the IR verifier judges each wait node of `program` (pre-order index).
fn judgements(l: &Loop, program: &Program) -> BTreeMap<usize, Judgement> {
    let v = verify(
        &l.original,
        program,
        &VerifyOptions {
            params: l.params.clone(),
            random_runs: 0,
            trace: false,
            ..VerifyOptions::default()
        },
    );
    v.waits.iter().map(|w| (w.index, w.judgement)).collect()
}

/// Copies the targets make asynchronous (`shared = global[...]`): statement → (target, source).
fn copies(p: &Program) -> BTreeMap<u32, (String, String)> {
    let mut out = BTreeMap::new();
    stagecraft::ir::for_each_assign(&p.body, &mut |a| {
        let scope = |b: u32| p.buffer(b).map(|x| x.scope);
        if let stagecraft::ir::VExpr::Read(src) = &a.value {
            if scope(src.buffer) == Some(Scope::Global)
                && scope(a.target.buffer) == Some(Scope::Shared)
            {
                let name = |b: u32| p.buffer(b).map_or(String::new(), |x| x.name.to_string());
                out.insert(a.stmt, (name(a.target.buffer), name(src.buffer)));
            }
        }
    });
    out
}

/// The pipelined program as the target runs it, written in the IR so that the IR verifier can
/// judge its waits (`machine_shaped`): async statements that are not copies are synchronous (the
/// targets have no async form for them), and on the ISA every statement that loads from global
/// memory waits for every queue first (its `vmcnt(0)`). Returns the program and, per wait node
/// of the pipelined program, its node in the new one.
fn machine_shaped(p: &Program, target: Target) -> (Program, BTreeMap<usize, usize>) {
    use stagecraft::ir::{Node, VExpr};
    let copies = copies(p);
    let mut queues = Vec::new();
    fn collect(nodes: &[Node], out: &mut Vec<i64>) {
        for n in nodes {
            match n {
                Node::Commit { queue, body, .. } | Node::Wait { queue, body, .. } => {
                    if !out.contains(queue) {
                        out.push(*queue);
                    }
                    collect(body, out);
                }
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::AsyncScope { body, .. }
                | Node::Section { body, .. } => collect(body, out),
                Node::Assign(_) | Node::Barrier { .. } => {}
            }
        }
    }
    collect(&p.body, &mut queues);
    struct Walk<'a> {
        p: &'a Program,
        copies: BTreeMap<u32, (String, String)>,
        queues: Vec<i64>,
        isa: bool,
        in_async: bool,
        old: usize,
        new: usize,
        map: BTreeMap<usize, usize>,
    }
    impl Walk<'_> {
        fn reads_global(&self, v: &VExpr) -> bool {
            let mut any = false;
            stagecraft::ir::for_each_read(v, &mut |a| {
                any |= self
                    .p
                    .buffer(a.buffer)
                    .is_some_and(|b| b.scope == Scope::Global);
            });
            any
        }
        fn nodes(&mut self, nodes: &[Node]) -> Vec<Node> {
            let mut out = Vec::new();
            for n in nodes {
                match n {
                    Node::Barrier { .. } => out.push(n.clone()),
                    Node::Wait {
                        queue,
                        count,
                        body,
                        wait,
                        span,
                    } => {
                        self.map.insert(self.old, self.new);
                        self.old += 1;
                        self.new += 1;
                        out.push(Node::Wait {
                            queue: *queue,
                            count: count.clone(),
                            body: self.nodes(body),
                            wait: *wait,
                            span: *span,
                        });
                    }
                    Node::AsyncScope { body, span } => {
                        let copy = body.iter().all(|b| {
                            matches!(b, Node::Assign(a) if self.copies.contains_key(&a.stmt))
                                || matches!(b, Node::For { .. })
                        });
                        let outer = std::mem::replace(&mut self.in_async, copy);
                        let body = self.nodes(body);
                        self.in_async = outer;
                        if copy {
                            out.push(Node::AsyncScope { body, span: *span });
                        } else {
                            out.extend(body);
                        }
                    }
                    Node::Assign(a) => {
                        let retire = self.isa
                            && !(self.in_async && self.copies.contains_key(&a.stmt))
                            && self.reads_global(&a.value);
                        let mut node = n.clone();
                        if retire {
                            for q in self.queues.clone() {
                                self.new += 1;
                                node = Node::Wait {
                                    queue: q,
                                    count: stagecraft::ir::IExpr::Const(0),
                                    body: vec![node],
                                    wait: None,
                                    span: a.span,
                                };
                            }
                        }
                        out.push(node);
                    }
                    Node::For {
                        var,
                        lo,
                        hi,
                        body,
                        span,
                    } => out.push(Node::For {
                        var: *var,
                        lo: lo.clone(),
                        hi: hi.clone(),
                        body: self.nodes(body),
                        span: *span,
                    }),
                    Node::If { cond, body, span } => out.push(Node::If {
                        cond: cond.clone(),
                        body: self.nodes(body),
                        span: *span,
                    }),
                    Node::Commit { queue, body, span } => out.push(Node::Commit {
                        queue: *queue,
                        body: self.nodes(body),
                        span: *span,
                    }),
                    Node::Section { kind, body, steps } => out.push(Node::Section {
                        kind: *kind,
                        body: self.nodes(body),
                        steps: steps.clone(),
                    }),
                }
            }
            out
        }
    }
    let mut w = Walk {
        p,
        copies,
        queues,
        isa: target != Target::AmdgpuIr,
        in_async: false,
        old: 0,
        new: 0,
        map: BTreeMap::new(),
    };
    let body = w.nodes(&p.body);
    (
        Program {
            buffers: p.buffers.clone(),
            vars: p.vars.clone(),
            body,
            threads: p.threads,
        },
        w.map,
    )
}

/// Whether raising wait node `node` of the machine-shaped program by `by` races in a way the
/// target must prevent. The ISA keeps one wave's vector-memory instructions in order — copies
/// land in issue order, a copy reads its global source before any later store reaches it — so
/// there only reads of data a copy still writes, and other writes over it, count; asyncmarks
/// order nothing, so a copy still reading its source counts too.
fn needs_on(shaped: &Shaped, l: &Loop, node: usize, by: i64, target: Target) -> bool {
    let run = stagecraft::interp::run(
        &shaped.program,
        &stagecraft::interp::RunOptions {
            params: l.params.clone(),
            count_delta: BTreeMap::from([(node, by)]),
            ..Default::default()
        },
    );
    let copies = &shaped.copies;
    let isa = matches!(target, Target::Amdgpu | Target::AmdgpuGfx950);
    // Only kernel arguments are outputs on the machine (shared memory is gone at the end).
    let differs = stagecraft::verify::compare(&shaped.reference, &run)
        .iter()
        .any(|d| run.memory.get(&d.buffer).is_some_and(|b| b.global));
    differs
        || run.races.iter().any(|r| {
            let copy_writes = r
                .group
                .members
                .iter()
                .any(|(m, _)| copies.get(m).is_some_and(|(t, _)| *t == r.buffer));
            let copy_reads = r
                .group
                .members
                .iter()
                .any(|(m, _)| copies.get(m).is_some_and(|(_, s)| *s == r.buffer));
            let racing_copy = copies.contains_key(&r.stmt);
            match r.kind {
                RaceKind::ReadAfterWrite => copy_writes,
                RaceKind::WriteAfterWrite => copy_writes && !(isa && racing_copy),
                RaceKind::WriteAfterRead => copy_reads && !isa,
            }
        })
}

/// Tight, defined without the machine verifier: the IR verifier judges every IR wait the
/// instruction implements `Tight` (raising its group count by one races or changes an output),
/// and one of those races is one the target must prevent (`needs_on`); the translation is exact
/// (one immediate that is the exact count at every instance, within the field); and at every
/// instance it is this wait that completes the newest group it needs (no earlier wait forced it
/// already). Then one group more in flight — `group_units` more instructions, one mark — is what
/// raising the IR count by one would leave in flight.
fn tight(l: &Loop, w: &EmittedWait, shaped: &Shaped, t: Target) -> bool {
    w.exact
        && w.completes
        && w.isolated
        && w.immediate.is_some()
        && w.ir.iter().all(|i| {
            shaped.map.get(&i.node).is_some_and(|n| {
                shaped.judged.get(n) == Some(&Judgement::Tight) && needs_on(shaped, l, *n, 1, t)
            })
        })
}

/// Not redundant: every IR wait it implements is judged `Tight` or loose by some k, and
/// deleting it races in the IR in a way the target must prevent; and at every instance it is
/// this wait that completes the newest group it needs (deleted, that group stays in flight).
fn needed(l: &Loop, w: &EmittedWait, shaped: &Shaped, t: Target) -> bool {
    w.immediate.is_some()
        && w.completes
        && w.isolated
        && w.ir.iter().all(|i| {
            shaped.map.get(&i.node).is_some_and(|n| {
                matches!(
                    shaped.judged.get(n),
                    Some(Judgement::Tight | Judgement::LooseBy { .. })
                ) && needs_on(shaped, l, *n, 1 << 20, t)
            })
        })
}

/// The machine-shaped program of a target with the IR verifier's judgements of its waits.
struct Shaped {
    program: Program,
    map: BTreeMap<usize, usize>,
    judged: BTreeMap<usize, Judgement>,
    copies: BTreeMap<u32, (String, String)>,
    /// The loop's own run, to compare outputs with.
    reference: stagecraft::interp::Run,
}

fn shaped(l: &Loop, t: Target) -> Shaped {
    let (program, map) = machine_shaped(&l.peeled, t);
    let judged = judgements(l, &program);
    let reference = stagecraft::interp::run(
        &l.original,
        &stagecraft::interp::RunOptions {
            params: l.params.clone(),
            ..Default::default()
        },
    );
    Shaped {
        copies: copies(&program),
        program,
        map,
        judged,
        reference,
    }
}

struct Mutations {
    raised: usize,
    raised_by_one: usize,
    deleted: usize,
    marks_deleted: usize,
    mbarrier_waits: usize,
    mbarrier_caught: usize,
    missed: Vec<String>,
}

fn mutate(l: &Loop, label: &str, m: &mut Mutations) {
    let isa = shaped(l, Target::Amdgpu);
    let ir = shaped(l, Target::AmdgpuIr);
    for t in TARGETS {
        // sm_80's cp.async groups are ordered with nothing, like the IR's asyncmarks: one
        // sequence of groups per thread, a copy in flight until its group completes.
        let judged = match t {
            Target::AmdgpuIr | Target::Ptx => &ir,
            Target::PtxSm90 => {
                mutate_mbarrier_waits(l, label, m);
                continue;
            }
            _ => &isa,
        };
        let code = kernel(l, t);
        let run = |text: &str| -> MachineCheck { check_with(l.contract_for(t), text, t) };
        if !run(&code.text).is_correct() {
            m.missed.push(format!(
                "{label} ({}): the kernel itself is wrong",
                t.name()
            ));
            continue;
        }
        for w in &code.waits {
            if tight(l, w, judged, t) {
                // One group more in flight: the newest needed group's instructions (one for a
                // group of one copy, and always one mark).
                let by = w.group_units.unwrap_or(1);
                m.raised += 1;
                m.raised_by_one += usize::from(by == 1);
                if w.immediate.unwrap_or(0) + by > 63
                    && matches!(t, Target::Amdgpu | Target::AmdgpuGfx950)
                {
                    continue;
                }
                if run(&with_line(&code.text, w.line, |s| raise_by(s, by))).is_correct() {
                    m.missed.push(format!(
                        "{label} ({}): raising the tight wait at line {} by {by} is not caught",
                        t.name(),
                        w.line
                    ));
                }
            }
            if needed(l, w, judged, t) {
                m.deleted += 1;
                if run(&with_line(&code.text, w.line, |_| String::new())).is_correct() {
                    m.missed.push(format!(
                        "{label} ({}): deleting the wait at line {} is not caught",
                        t.name(),
                        w.line
                    ));
                }
            }
        }
        if matches!(t, Target::AmdgpuIr | Target::Ptx) {
            // An asyncmark (a commit_group) closes a group. Deleted, the group's copies join the next group, so a
            // tight wait that counts the marks after this one keeps the copies in flight where
            // raising it by one would: caught. (Marks no tight wait counts from are not
            // claimed.)
            let mut marks: Vec<u32> = code
                .waits
                .iter()
                .filter(|w| tight(l, w, judged, t))
                .filter_map(|w| w.needed_line)
                .collect();
            marks.sort_unstable();
            marks.dedup();
            for line in marks {
                let text = code.text.lines().nth(line as usize - 1).unwrap_or("");
                assert!(
                    text.contains("@llvm.amdgcn.asyncmark()")
                        || text.contains("cp.async.commit_group"),
                    "{text}"
                );
                m.marks_deleted += 1;
                if run(&with_line(&code.text, line, |_| String::new())).is_correct() {
                    m.missed.push(format!(
                        "{label} ({}): deleting the asyncmark at line {line} is not caught",
                        t.name()
                    ));
                }
            }
        }
    }
}

/// sm_90a: each mbarrier wait of the kernel made to succeed at once (the try_wait replaced by a
/// predicate set true); caught when its phase's bulk copies are then read, overwritten or left in
/// flight at the end while they may still land.
fn mutate_mbarrier_waits(l: &Loop, label: &str, m: &mut Mutations) {
    let t = Target::PtxSm90;
    let code = kernel(l, t);
    let run = |text: &str| -> MachineCheck { check_with(l.contract_for(t), text, t) };
    if !run(&code.text).is_correct() {
        m.missed.push(format!(
            "{label} ({}): the kernel itself is wrong",
            t.name()
        ));
        return;
    }
    for (i, line) in code.text.lines().enumerate() {
        let Some(rest) = line
            .trim()
            .strip_prefix("mbarrier.try_wait.parity.shared::cta.b64 ")
        else {
            continue;
        };
        let p = rest.split(',').next().unwrap().trim();
        m.mbarrier_waits += 1;
        let mutated = with_line(&code.text, i as u32 + 1, |_| {
            format!("    setp.eq.s32 {p}, 0, 0;")
        });
        // Not every one is needed (a later wait on the same barrier may complete the phase
        // first): counted, not asserted one by one.
        if !run(&mutated).is_correct() {
            m.mbarrier_caught += 1;
        }
    }
}

#[test]
fn raising_a_tight_wait_by_one_or_deleting_a_needed_one_is_caught() {
    let mut m = Mutations {
        raised: 0,
        raised_by_one: 0,
        deleted: 0,
        marks_deleted: 0,
        mbarrier_waits: 0,
        mbarrier_caught: 0,
        missed: Vec::new(),
    };
    let mut sources: Vec<(String, String)> = example_files()
        .into_iter()
        .map(|f| {
            (
                f.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read_to_string(&f).unwrap(),
            )
        })
        .collect();
    sources.push(("three iterations".into(), THREE_ITERATIONS.into()));
    for seed in 0..1200 {
        sources.push((
            format!("seed {seed}"),
            random_loop(seed, Flavor::Copies).text(),
        ));
    }
    for (label, source) in &sources {
        let Ok(l) = try_loop(source, &BTreeMap::new()) else {
            continue;
        };
        mutate(&l, label, &mut m);
        for (text, params, what) in short_trips(source, &l) {
            if let Ok(short) = try_loop(&text, &params) {
                mutate(&short, &format!("{label} at {what}"), &mut m);
            }
        }
    }
    eprintln!(
        "{} tight waits raised ({} by one instruction or mark), {} needed waits deleted, {} asyncmarks and commit groups deleted, {} mbarrier waits skipped ({} caught)",
        m.raised, m.raised_by_one, m.deleted, m.marks_deleted, m.mbarrier_waits, m.mbarrier_caught
    );
    assert!(
        m.missed.is_empty(),
        "{} mutations not caught:\n{}",
        m.missed.len(),
        m.missed
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(m.raised >= 500 && m.deleted >= 500 && m.marks_deleted >= 100);
    assert!(m.mbarrier_waits >= 100 && m.mbarrier_caught * 2 >= m.mbarrier_waits);
}

/// Several waves: 128 and 256 threads per workgroup (2 and 4 waves of 64), each wave its own LDS
/// DMA slice (M0 + 256 · wave) and its own vmcnt; a thread's values must not mix with another
/// wave's.
#[test]
fn every_example_runs_correctly_with_several_waves() {
    let mut failures = Vec::new();
    let mut kernels = 0;
    for f in example_files() {
        let source = std::fs::read_to_string(&f).unwrap();
        let Ok(l) = try_loop(&source, &BTreeMap::new()) else {
            continue;
        };
        for lanes in [128, 256] {
            let contract = Contract::new(
                &l.original,
                &l.peeled,
                &l.params,
                lanes,
                wave_of(Target::Amdgpu),
            )
            .unwrap();
            let opts = EmitOptions {
                amd_lanes: lanes,
                lanes,
            };
            for t in TARGETS {
                let code = emit(&l.peeled, &l.params, t, &opts);
                if code.error.is_some() {
                    // Beyond the target's LDS at this many threads.
                    continue;
                }
                kernels += 1;
                // A kernel that runs the loop's own threads (gfx950's cooperative copies).
                let own = (code.lanes != lanes).then(|| {
                    Contract::new(&l.original, &l.peeled, &l.params, code.lanes, wave_of(t))
                        .unwrap()
                });
                let m = check_with(own.as_ref().unwrap_or(&contract), &code.text, t);
                if !m.is_correct() {
                    failures.push(format!(
                        "{} ({}, {lanes} threads): {}",
                        f.display(),
                        t.name(),
                        m.summary
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(kernels >= 60, "only {kernels} kernels");
    // Each wave's LDS DMA lands at M0 + 4 · lane: with the wave's slice offset wrong, the second
    // wave's copies land in the first wave's words — caught.
    let source = std::fs::read_to_string(root().join("examples/rfc_c_interleaved.py")).unwrap();
    let l = try_loop(&source, &BTreeMap::new()).unwrap();
    let contract = Contract::new(&l.original, &l.peeled, &l.params, 128, 64).unwrap();
    let opts = EmitOptions {
        amd_lanes: 128,
        ..EmitOptions::default()
    };
    let code = emit(&l.peeled, &l.params, Target::Amdgpu, &opts);
    assert!(check_with(&contract, &code.text, Target::Amdgpu).is_correct());
    let wrong = code
        .text
        .replace("s_lshl_b32 s2, s2, 8", "s_lshl_b32 s2, s2, 7");
    assert_ne!(wrong, code.text);
    let m = check_with(&contract, &wrong, Target::Amdgpu);
    assert!(!m.is_correct(), "{}", m.summary);
}

/// What the verifier reports besides races: immediates the target rejects, copies never awaited,
/// each with its line.
#[test]
fn invalid_immediates_and_copies_never_awaited_are_reported_with_their_lines() {
    let source = std::fs::read_to_string(root().join("examples/rfc_c_interleaved.py")).unwrap();
    let l = try_loop(&source, &BTreeMap::new()).unwrap();
    let isa = kernel(&l, Target::Amdgpu);
    let line = isa.waits[0].line;
    for (bad, says) in [
        ("vmcnt(64)", "the field holds 0–63"),
        ("vmcnt(-1)", "cannot be negative"),
        ("vmcnt(N)", "integer immediate"),
    ] {
        let text = with_line(&isa.text, line, |s| {
            let at = s.find("vmcnt(").unwrap();
            let end = at + s[at..].find(')').unwrap() + 1;
            format!("{}{bad}{}", &s[..at], &s[end..])
        });
        let m = check_with(&l.contract, &text, Target::Amdgpu);
        assert_eq!(
            m.verdict,
            stagecraft::machine::MachineVerdict::Invalid,
            "{bad}"
        );
        assert_eq!(m.problems[0].line, line);
        assert!(
            m.problems[0].message.contains(says),
            "{}",
            m.problems[0].message
        );
    }
    // No vmcnt wait at all: the epilogue's reads race, and the last copies never land.
    let text: String = isa
        .text
        .lines()
        .filter(|s| !s.contains("s_waitcnt vmcnt"))
        .map(|s| format!("{s}\n"))
        .collect();
    let m = check_with(&l.contract, &text, Target::Amdgpu);
    assert!(
        !m.races.is_empty() && !m.unawaited.is_empty(),
        "{}",
        m.summary
    );
    assert!(m.unawaited[0]
        .instruction
        .starts_with("global_load_lds_dword"));

    let ir = kernel(&l, Target::AmdgpuIr);
    let line = ir.waits[0].line;
    let text = with_line(&ir.text, line, |s| {
        let at = s.find("(i16 ").unwrap() + 5;
        let end = at + s[at..].find(')').unwrap();
        format!("{}-1{}", &s[..at], &s[end..])
    });
    let m = check_with(&l.contract, &text, Target::AmdgpuIr);
    assert_eq!(m.verdict, stagecraft::machine::MachineVerdict::Invalid);
    assert!(m.problems[0].message.contains("cannot be negative"));
    // Without the epilogue's waits the last groups are never completed.
    let last = ir.waits.iter().map(|w| w.line).collect::<Vec<_>>();
    let text: String = ir
        .text
        .lines()
        .enumerate()
        .filter(|(i, _)| !last[1..].contains(&(*i as u32 + 1)))
        .map(|(_, s)| format!("{s}\n"))
        .collect();
    let m = check_with(&l.contract, &text, Target::AmdgpuIr);
    assert!(!m.unawaited.is_empty(), "{}", m.summary);
    assert!(
        m.unawaited[0].message.contains("never")
            || m.unawaited[0].message.contains("still in flight")
    );
}

/// Bad kernels never panic: the text of every example's kernels, mutated at random (a number
/// replaced by a huge, negative or odd one, a line deleted or duplicated, two lines swapped),
/// always gets a verdict.
#[test]
fn mutated_kernels_get_a_verdict_and_never_panic() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n.max(1)
    };
    let numbers = [
        "0",
        "1",
        "-1",
        "63",
        "64",
        "65535",
        "4294967295",
        "9223372036854775807",
        "-9223372036854775808",
        "0x7fffffff",
        "0xffffffffffffffff",
        "3",
    ];
    let mut verdicts = 0;
    for name in [
        "rfc_a_async_copy.py",
        "rfc_c_interleaved.py",
        "accumulate.py",
    ] {
        let path = if name == "accumulate.py" {
            root().join("tests/cases").join(name)
        } else {
            root().join("examples").join(name)
        };
        let l = try_loop(&std::fs::read_to_string(path).unwrap(), &BTreeMap::new()).unwrap();
        for t in TARGETS {
            let text = kernel(&l, t).text;
            let lines: Vec<&str> = text.lines().collect();
            for _ in 0..150 {
                let mut m: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                let i = next(m.len() as u64) as usize;
                match next(4) {
                    0 => {
                        // Replace the first number on the line.
                        let s = m[i].clone();
                        if let Some(at) = s.find(|c: char| c.is_ascii_digit()) {
                            let end = at
                                + s[at..]
                                    .find(|c: char| !c.is_ascii_alphanumeric())
                                    .unwrap_or(s.len() - at);
                            let n = numbers[next(numbers.len() as u64) as usize];
                            m[i] = format!("{}{n}{}", &s[..at], &s[end..]);
                        }
                    }
                    1 => {
                        m.remove(i);
                    }
                    2 => {
                        let s = m[i].clone();
                        m.insert(i, s);
                    }
                    _ => {
                        let j = next(m.len() as u64) as usize;
                        m.swap(i, j);
                    }
                }
                let mutated = m.join("\n") + "\n";
                let check = check_with(l.contract_for(t), &mutated, t);
                assert!(!check.summary.is_empty());
                verdicts += 1;
            }
        }
    }
    assert_eq!(verdicts, 3 * TARGETS.len() * 150);
}

/// Two copies of one group writing one element (TVM 0.27's program shape for two stage-1
/// statements writing `S0[(i - 1) % 2, (i - 1) % 2]`, tests/cases/async_same_element.py): no
/// target orders a group's copies, so every kernel races write-after-write on the element, the
/// second copy's line meeting the first's.
#[test]
fn two_copies_of_one_element_in_one_group_race_on_every_target() {
    let loop_text = "S = alloc([2])\nfor i in range(4):\n    S[i % 2] = A[i]\n    S[i % 2] = B[i]\n    C[i] = S[i % 2] + 1\n";
    let one_group = "S = alloc([2, 2], scope=\"shared\", versions=2)\n# prologue\nwith async_commit_queue(0):\n    with async_scope():\n        S[0, 0] = A[0]\n    with async_scope():\n        S[0, 0] = B[0]\n# body\nfor i in range(1, 4):\n    with async_commit_queue(0):\n        with async_scope():\n            S[i % 2, i % 2] = A[i]\n        with async_scope():\n            S[i % 2, i % 2] = B[i]\n    with async_wait_queue(0, 1):\n        C[i - 1] = S[(i - 1) % 2, (i - 1) % 2] + 1\n# epilogue\nwith async_wait_queue(0, 0):\n    C[3] = S[1, 1] + 1\n";
    let program = |text: &str| {
        let parsed = stagecraft::parser::parse(text);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        stagecraft::lower::lower(&parsed.file).program
    };
    let (original, peeled) = (program(loop_text), program(one_group));
    let params = BTreeMap::new();
    for target in TARGETS {
        let contract = Contract::new(
            &original,
            &peeled,
            &params,
            lanes_of(target, &EmitOptions::default()),
            wave_of(target),
        )
        .unwrap();
        let code = emit(&peeled, &params, target, &EmitOptions::default());
        assert!(code.error.is_none(), "{}: {:?}", target.name(), code.error);
        let m = check_with(&contract, &code.text, target);
        let waw = m
            .races
            .iter()
            .find(|r| r.kind == RaceKind::WriteAfterWrite && r.in_flight)
            .unwrap_or_else(|| panic!("{}: no write-after-write: {}", target.name(), m.summary));
        assert!(
            waw.other_line < waw.line && waw.place.to_string().contains("S[0, 0]"),
            "{}: {waw:?}",
            target.name()
        );
        // The two copies are the same instruction form, the second one line-for-line after the
        // first in the prologue.
        let line = |k: u32| code.text.lines().nth(k as usize - 1).unwrap().to_string();
        let first_word = |s: String| {
            s.split_whitespace()
                .find(|w| !w.starts_with('@'))
                .unwrap_or("")
                .to_string()
        };
        assert_eq!(
            first_word(line(waw.line)),
            first_word(line(waw.other_line)),
            "{}",
            target.name()
        );
    }
}
