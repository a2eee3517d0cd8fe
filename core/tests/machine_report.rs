//! `explore::machine_check`, what the Code pane shows: the kernel on screen executed, its races
//! tied to the wait they got past, and a plain "not executed" beyond the caller's budget.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::Target;
use stagecraft::explore::{explore, machine_check, Exploration, Options};
use stagecraft::machine::MachineVerdict;

fn explored(file: &str, target: Target) -> Exploration {
    let path = format!("{}/../examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let ex = explore(
        &source,
        &Options {
            targets: vec![target],
            defer_runs: true,
            ..Options::default()
        },
    );
    assert!(ex.ok, "{file} explores");
    ex
}

#[test]
fn every_example_executes_correctly_on_the_amdgpu_targets() {
    for file in [
        "rfc_a_async_copy.py",
        "rfc_b_two_async_stages.py",
        "rfc_c_interleaved.py",
        "rfc_d_same_stage.py",
        "cutlass_multistage.py",
    ] {
        for target in [Target::Amdgpu, Target::AmdgpuIr] {
            let ex = explored(file, target);
            let report = machine_check(&ex, target, u64::MAX).expect("emitted");
            assert_eq!(
                report.check.verdict,
                MachineVerdict::Correct,
                "{file} on {}: {}",
                target.name(),
                report.check.summary
            );
            assert!(
                report.check.summary.starts_with("executed"),
                "{}",
                report.check.summary
            );
            assert!(report.covering.is_empty());
        }
    }
}

#[test]
fn beyond_the_callers_budget_the_kernel_is_not_executed_and_the_summary_says_why() {
    let ex = explored("cutlass_multistage.py", Target::Amdgpu);
    let report = machine_check(&ex, Target::Amdgpu, 1_000).expect("emitted");
    assert_eq!(report.check.verdict, MachineVerdict::NotExecuted);
    assert!(
        report
            .check
            .summary
            .contains("more than 1000 wave-instructions"),
        "{}",
        report.check.summary
    );
}

#[test]
fn a_target_that_was_not_emitted_has_no_report() {
    let ex = explored("rfc_a_async_copy.py", Target::Amdgpu);
    assert!(machine_check(&ex, Target::AmdgpuIr, u64::MAX).is_none());
}

/// A wait's immediate raised by one (each in turn) lets a copy stay in flight: the race is reported at a line
/// after that wait, and tied to a wait that names the pipelined program's waits.
#[test]
fn a_race_is_tied_to_the_wait_it_got_past() {
    // Its async stages are global->shared copies: asynchronous on the machine too.
    let ex = explored("cutlass_multistage.py", Target::Amdgpu);
    let code = ex.code.first().expect("emitted");
    let mut raced = 0;
    for wait in code.waits.iter().filter(|w| w.immediate.is_some()) {
        let k = wait.immediate.unwrap_or(0);
        let mut lines: Vec<String> = code.text.lines().map(str::to_string).collect();
        let line = &mut lines[wait.line as usize - 1];
        let from = format!("vmcnt({k})");
        assert!(line.contains(&from), "{line}");
        *line = line.replace(&from, &format!("vmcnt({})", k + 1));
        let mut mutated = ex.clone();
        mutated.code[0].text = lines.join("\n") + "\n";
        let report = machine_check(&mutated, Target::Amdgpu, u64::MAX).expect("emitted");
        if report.check.verdict != MachineVerdict::Racy {
            continue;
        }
        raced += 1;
        assert_eq!(report.covering.len(), report.check.races.len());
        let (race, covering) = report
            .check
            .races
            .iter()
            .zip(&report.covering)
            .next()
            .expect("a race");
        let tied = covering
            .and_then(|i| code.waits.get(i))
            .expect("tied to a wait");
        assert!(tied.line <= race.line);
        assert!(
            !tied.ir.is_empty(),
            "the kernel wait names the pipelined program's waits"
        );
    }
    assert!(
        raced > 0,
        "raising some wait of the CUTLASS preset by one races"
    );
}
