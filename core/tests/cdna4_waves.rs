//! The CDNA4 preset (examples/cdna4_interleaved.py, seed 002) run by its 512 threads in 8 waves:
//! the derived program computes the loop with no race, and its variant with every barrier deleted
//! — each wave waiting only on its own `vmcnt` (tests/pipelined/cdna4_wave_local_waits.py) — races,
//! naming the wave that reads and the wave whose LDS DMA wrote: the note's output-mismatch class.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Options};
use stagecraft::interp::{check_threads, ThreadOptions, ThreadRaceKind};
use stagecraft::ir::{Program, Threads};
use stagecraft::pipelined::Form;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// The preset's loop and its derived peeled program, as printed.
fn preset() -> (Program, Program, String) {
    let ex = explore(
        &read("examples/cdna4_interleaved.py"),
        &Options {
            targets: Vec::new(),
            timeline: false,
            both_forms: true,
            form: Form::Peeled,
            ..Options::default()
        },
    );
    assert!(ex.ok, "{:?}", ex.diagnostics);
    let p = ex.programs.expect("programs");
    let peeled = p.peeled.expect("a peeled program");
    let text = stagecraft::tir::print(&peeled).text;
    (p.original, peeled, text)
}

fn lowered(text: &str) -> Program {
    let parsed = stagecraft::parser::parse(text);
    let lowered = stagecraft::lower::lower(&parsed.file);
    let errors: Vec<_> = parsed
        .diagnostics
        .iter()
        .chain(&lowered.diagnostics)
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    lowered.program
}

#[test]
fn the_preset_runs_512_threads_in_8_waves_and_computes_the_loop_with_no_race() {
    let (original, peeled, text) = preset();
    assert_eq!(
        peeled.threads,
        Some(Threads {
            threads: 512,
            waves: 8
        })
    );
    assert!(text.contains("barrier()"), "{text}");
    let check = check_threads(&original, &peeled, &ThreadOptions::default());
    assert!(check.is_clean(), "{check:?}\n{text}");
    // Each element of the shared tiles is written by its own wave (`"blocked"`: element e of 8
    // by thread 64·e), so all eight waves run and each reads what the seven others copied.
    assert_eq!(check.run.agents, (0..8).collect::<Vec<u32>>());
    assert!(check.run.barriers > 0);
}

#[test]
fn without_its_barriers_each_wave_waits_only_for_its_own_dma_and_reads_another_waves_tile_early() {
    let (original, _, text) = preset();
    let variant = read("tests/pipelined/cdna4_wave_local_waits.py");
    // The variant is the derived program with its barrier() lines deleted, nothing else.
    let body: String = variant
        .lines()
        .skip_while(|l| l.starts_with('#') && !l.starts_with("# global"))
        .map(|l| format!("{l}\n"))
        .collect();
    let derived: String = text
        .lines()
        .filter(|l| l.trim_start() != "barrier()" && !l.trim_start().starts_with("barrier()  #"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        body, derived,
        "regenerate the variant from the preset's program"
    );
    let check = check_threads(&original, &lowered(&variant), &ThreadOptions::default());
    let race = check
        .run
        .races
        .iter()
        .find(|r| r.kind == ThreadRaceKind::ReadNotPublished)
        .unwrap_or_else(|| panic!("no race: {check:?}"));
    assert_ne!(race.access.agent, race.other.agent);
    assert_eq!(race.agent_word, "wave");
    let message = race.message();
    assert!(
        message.contains(&format!("wave {}", race.access.agent))
            && message.contains(&format!("wave {}", race.other.agent)),
        "{message}"
    );
    // The waits are the derived ones: each wave's own count is right for its own copies.
    assert!(variant.contains("async_wait_queue(0, "));
}

/// The Check view's path (`explore::check_pipelined`, which the worker runs for a pasted program):
/// a program that declares its threads is run across them too, so the variant is racy with the
/// races between waves located, and the derived program is equivalent across all 8 waves.
#[test]
fn the_check_view_runs_a_pasted_threaded_program_across_its_waves() {
    let loop_source = read("examples/cdna4_interleaved.py");
    let variant = read("tests/pipelined/cdna4_wave_local_waits.py");
    let params = Default::default();
    let check = stagecraft::explore::check_pipelined(&loop_source, &variant, &params);
    let v = check.verification.expect("verified");
    assert_eq!(
        v.verdict,
        stagecraft::verify::Verdict::Racy,
        "{}",
        v.summary
    );
    assert!(v.summary.contains("between waves"), "{}", v.summary);
    let across = v.across.expect("run across its waves");
    assert_eq!(across.agents_run, 8);
    let race = across
        .races
        .iter()
        .find(|r| r.kind == ThreadRaceKind::ReadNotPublished)
        .expect("a read of another wave's copy");
    assert_ne!(race.access.agent, race.other.agent);
    assert_eq!(
        race.slot,
        race.element.first().copied(),
        "A_sh has 2 versions"
    );
    let line = |s: stagecraft::diagnostic::Span| {
        stagecraft::diagnostic::line_col(&variant, s.start as usize).0
    };
    let landed = race.landed_at.expect("the copy landed at a wait");
    let wait = variant.lines().nth(line(landed) - 1).unwrap();
    assert!(wait.contains("async_wait_queue(0, "), "{wait}");
    let cover = race.covering_barrier(line).unwrap();
    assert!(
        cover.starts_with(&format!(
            "a barrier() after the wait on line {}",
            line(landed)
        )),
        "{cover}"
    );
    // Between that wait and the read, the derived program has its barrier: the one deleted.
    let (_, _, derived) = preset();
    let derived_check = stagecraft::explore::check_pipelined(&loop_source, &derived, &params);
    let dv = derived_check.verification.expect("verified");
    assert_eq!(
        dv.verdict,
        stagecraft::verify::Verdict::Equivalent,
        "{}",
        dv.summary
    );
    assert!(dv
        .across
        .is_some_and(|a| a.races.is_empty() && a.barriers > 0));
}
