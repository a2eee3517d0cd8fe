//! One GEMM at three stages in the conventions of CUTLASS, TileLang and Triton
//! (docs/conventions.md): each preset's derived waits and barriers against the doc's table,
//! equivalent and race-free across its 128 threads; its sm_80 kernel accepted by ptxas, executed
//! by the machine-level verifier, with the same waits and barriers; and a convention that waits
//! for more than Stagecraft derives (Triton's one wait before both operands' reads) safe but
//! not tight.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::{emit, EmitOptions, Target};
use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::machine::{check, lanes_of, MachineVerdict};
use stagecraft::verify::{Judgement, Verdict};
use std::path::{Path, PathBuf};

#[path = "support/ptxas.rs"]
mod ptxas;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// One row of docs/conventions.md's table.
#[derive(Debug)]
struct Row {
    preset: String,
    /// "the convention's count": the groups its wait before the reads leaves in flight.
    convention_count: i64,
    /// "Stagecraft's waits": the body's wait counts, in program order.
    waits: Vec<i64>,
    /// "Stagecraft's barriers": the body's barriers.
    barriers: usize,
}

/// The table of docs/conventions.md, its columns found by their headers.
fn table() -> Vec<Row> {
    let doc = read("docs/conventions.md");
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut lines = doc.lines().skip_while(|l| !l.starts_with("| preset |"));
    let header = cells(lines.next().expect("the table's header"));
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name:?} in {header:?}"))
    };
    let (preset, count, waits, barriers) = (
        column("preset"),
        column("the convention's count"),
        column("Stagecraft's waits"),
        column("Stagecraft's barriers"),
    );
    lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let c = cells(l);
            Row {
                preset: c[preset].trim_matches('`').to_string(),
                convention_count: c[count].parse().unwrap(),
                waits: c[waits]
                    .split(',')
                    .map(|w| w.trim().parse().unwrap())
                    .collect(),
                barriers: c[barriers].parse().unwrap(),
            }
        })
        .collect()
}

fn explored(source: &str) -> Exploration {
    let ex = explore(
        source,
        &Options {
            timeline: false,
            targets: Vec::new(),
            peeled_program: true,
            ..Options::default()
        },
    );
    assert!(ex.ok, "{:?}", ex.diagnostics);
    ex
}

/// The rolled program's body loop, as printed: from `# body` to `# epilogue`.
fn body(program: &str) -> Vec<&str> {
    program
        .lines()
        .skip_while(|l| *l != "# body")
        .take_while(|l| *l != "# epilogue")
        .collect()
}

fn wait_counts(lines: &[&str]) -> Vec<i64> {
    lines
        .iter()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("with async_wait_queue(0, ")?;
            rest.strip_suffix("):")?.parse().ok()
        })
        .collect()
}

fn barrier_count(lines: &[&str]) -> usize {
    lines
        .iter()
        .filter(|l| l.trim().starts_with("barrier()"))
        .count()
}

#[test]
fn the_table_names_the_three_presets_and_the_app_offers_them() {
    let rows = table();
    let presets = read("link/src/presets.rs");
    let names: Vec<&str> = rows.iter().map(|r| r.preset.as_str()).collect();
    assert_eq!(
        names,
        [
            "examples/conventions_cutlass.py",
            "examples/conventions_tilelang.py",
            "examples/conventions_triton.py"
        ]
    );
    for r in &rows {
        assert!(
            presets.contains(&format!("\"../../{}\"", r.preset)),
            "{}",
            r.preset
        );
    }
}

#[test]
fn each_preset_derives_the_waits_and_barriers_of_the_table_equivalent_across_its_threads() {
    for row in table() {
        let ex = explored(&read(&row.preset));
        let program = stagecraft::tir::print(&ex.programs.as_ref().unwrap().rolled).text;
        let lines = body(&program);
        assert_eq!(wait_counts(&lines), row.waits, "{}:\n{program}", row.preset);
        assert_eq!(
            barrier_count(&lines),
            row.barriers,
            "{}:\n{program}",
            row.preset
        );
        let v = ex.verification.expect("verified");
        assert_eq!(
            v.verdict,
            Verdict::Equivalent,
            "{}: {}",
            row.preset,
            v.summary
        );
        let across = v.across.expect("run across its threads");
        assert_eq!(across.threads.threads, 128, "{}", row.preset);
        assert!(
            across.races.is_empty(),
            "{}: {:?}",
            row.preset,
            across.races
        );
        // Each barrier of the body is needed: without it the threads race.
        for at in lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim().starts_with("barrier()"))
            .map(|(i, _)| i)
        {
            let without: String = program
                .lines()
                .filter(|l| *l != lines[at])
                .map(|l| format!("{l}\n"))
                .collect();
            let check = stagecraft::explore::check_pipelined(
                &read(&row.preset),
                &without,
                &Default::default(),
            );
            let v = check.verification.expect("verified");
            assert_eq!(
                v.verdict,
                Verdict::Racy,
                "{}: deleting `{}` was not caught",
                row.preset,
                lines[at].trim()
            );
        }
    }
}

#[test]
fn each_presets_sm80_kernel_has_the_same_waits_and_barriers_and_runs_correctly() {
    for row in table() {
        let source = read(&row.preset);
        let ex = explored(&source);
        let programs = ex.programs.unwrap();
        let peeled = programs.peeled.expect("a peeled program");
        let opts = EmitOptions::default();
        let code = emit(&peeled, &programs.params, Target::Ptx, &opts);
        assert!(code.error.is_none(), "{:?}", code.error);
        let lines: Vec<&str> = code.text.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.starts_with("$L_body_"))
            .unwrap();
        let end = lines.iter().position(|l| l.starts_with("$L_end_")).unwrap();
        let loop_lines = &lines[start..end];
        // One queue: the single sequence of cp.async groups is the queue's, so the immediates
        // are the program's counts.
        let immediates: Vec<i64> = loop_lines
            .iter()
            .filter_map(|l| {
                let rest = l.trim().strip_prefix("cp.async.wait_group ")?;
                rest.split(';').next()?.parse().ok()
            })
            .collect();
        assert_eq!(immediates, row.waits, "{}", row.preset);
        let bar_syncs = loop_lines
            .iter()
            .filter(|l| l.trim().starts_with("bar.sync 0;  // derived barrier"))
            .count();
        assert_eq!(bar_syncs, row.barriers, "{}", row.preset);
        assert!(
            loop_lines
                .iter()
                .any(|l| l.contains("cp.async.cg.shared.global")),
            "{}: cooperative 16-byte copies",
            row.preset
        );
        let run = check(
            &programs.original,
            &peeled,
            &programs.params,
            &code.text,
            Target::Ptx,
            lanes_of(Target::Ptx, &opts),
        );
        assert_eq!(
            run.verdict,
            MachineVerdict::Correct,
            "{}: {}",
            row.preset,
            run.summary
        );
        let name = Path::new(&row.preset)
            .file_stem()
            .unwrap()
            .to_string_lossy();
        ptxas::ptxas_accepts(&name, &code.text);
    }
}

/// The program with the body's first wait set to `count`; with `merged`, every later wait of
/// the body is removed with its barrier (its statements kept, one level out): one wait and one
/// barrier before the reads of both operands, as Triton waits.
fn with_first_wait(program: &str, count: i64, merged: bool) -> String {
    let mut out = Vec::new();
    let (mut in_body, mut waits, mut dedent) = (false, 0, false);
    let mut lines = program.lines().peekable();
    while let Some(line) = lines.next() {
        match line {
            "# body" => in_body = true,
            "# epilogue" => in_body = false,
            _ => {}
        }
        let indent = line.len() - line.trim_start().len();
        if dedent && indent <= 4 {
            dedent = false;
        }
        if in_body && indent == 4 && line.trim_start().starts_with("with async_wait_queue(0, ") {
            waits += 1;
            if waits == 1 {
                out.push(format!("    with async_wait_queue(0, {count}):"));
                continue;
            }
            if merged {
                if lines
                    .peek()
                    .is_some_and(|l| l.trim().starts_with("barrier()"))
                {
                    lines.next();
                }
                dedent = true;
                continue;
            }
        }
        out.push(if dedent {
            line[4..].to_string()
        } else {
            line.to_string()
        });
    }
    assert!(waits >= 2, "the body has one wait:\n{program}");
    out.join("\n") + "\n"
}

/// The verdict on the wait `convention` writes at `line` (1-based).
fn judgement_at(v: &stagecraft::verify::Verification, text: &str, line: usize) -> Judgement {
    v.waits
        .iter()
        .find(|w| stagecraft::diagnostic::line_col(text, w.span.start as usize).0 == line)
        .unwrap_or_else(|| panic!("no verdict for line {line}: {:?}", v.waits))
        .judgement
}

/// Where the convention's count is Stagecraft's, the derived wait is it (and tight). Triton's is
/// smaller than Stagecraft's first: in Stagecraft's place of it, before A's reads with B's own
/// wait after them, it is safe and loose by one group (B's group of the same tile); as Triton
/// writes it, one wait before both operands' reads, it is tight, and one barrier is enough.
#[test]
fn a_convention_that_waits_for_more_than_stagecraft_is_safe_but_not_tight() {
    let mut loose = 0;
    for row in table() {
        let source = read(&row.preset);
        let ex = explored(&source);
        let program = stagecraft::tir::print(&ex.programs.as_ref().unwrap().rolled).text;
        let first = row.waits[0];
        if row.convention_count == first {
            assert_eq!(row.waits.len(), 1, "{}", row.preset);
            assert_eq!(ex.verification.unwrap().verdict, Verdict::Equivalent);
            continue;
        }
        assert!(
            row.convention_count < first,
            "{}: the convention waits for fewer groups than Stagecraft",
            row.preset
        );
        loose += 1;
        let wait = format!("    with async_wait_queue(0, {}):", row.convention_count);
        let params = Default::default();

        let in_place = with_first_wait(&program, row.convention_count, false);
        let v = stagecraft::explore::check_pipelined(&source, &in_place, &params)
            .verification
            .expect("verified");
        assert_eq!(
            v.verdict,
            Verdict::SafeButLoose,
            "{}: {}",
            row.preset,
            v.summary
        );
        assert!(v.across.as_ref().is_some_and(|a| a.races.is_empty()));
        let line = in_place.lines().position(|l| l == wait).unwrap() + 1;
        assert_eq!(
            judgement_at(&v, &in_place, line),
            Judgement::LooseBy {
                k: first - row.convention_count
            },
            "{}",
            row.preset
        );

        let merged = with_first_wait(&program, row.convention_count, true);
        assert_eq!(barrier_count(&body(&merged)), 1, "{merged}");
        let v = stagecraft::explore::check_pipelined(&source, &merged, &params)
            .verification
            .expect("verified");
        assert_eq!(
            v.verdict,
            Verdict::Equivalent,
            "{}: {}",
            row.preset,
            v.summary
        );
        assert!(v.across.as_ref().is_some_and(|a| a.races.is_empty()));
        let line = merged.lines().position(|l| l == wait).unwrap() + 1;
        assert_eq!(judgement_at(&v, &merged, line), Judgement::Tight);
    }
    assert_eq!(
        loose, 1,
        "Triton's is the one convention that waits for more"
    );
}
