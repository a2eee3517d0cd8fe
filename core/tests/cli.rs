//! The `stagecraft` command line as a user runs it: what goes to standard output, what to standard
//! error, and the exit code (0 valid, 1 invalid input, 2 a usage mistake, 3 a program that is
//! invalid, races or differs).

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn stagecraft(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stagecraft"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const RFC_A: &str = "examples/rfc_a_async_copy.py";

#[test]
fn explore_prints_the_pipelined_program_and_succeeds() {
    let out = stagecraft(&["explore", RFC_A], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    assert!(printed.contains("with async_commit_queue(0):"), "{printed}");
    assert!(
        printed.contains("with async_wait_queue(0, 1):"),
        "{printed}"
    );
    assert!(printed.contains("for i in range(1, 16):"), "{printed}");
}

#[test]
fn the_peeled_form_writes_every_step_out() {
    // Example (c) has three prologue steps: a loop in the rolled form, written out in the peeled.
    const RFC_C: &str = "examples/rfc_c_interleaved.py";
    let loops = |form: &str| {
        let out = stagecraft(&["explore", RFC_C, "--form", form], None);
        assert_eq!(out.status.code(), Some(0));
        text(&out.stdout).matches("for ").count()
    };
    assert_eq!((loops("rolled"), loops("peeled")), (3, 1));
}

#[test]
fn a_dash_reads_standard_input() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/rfc_a_async_copy.py"
    ))
    .unwrap();
    let from_file = stagecraft(&["explore", RFC_A], None);
    let from_stdin = stagecraft(&["explore", "-"], Some(&source));
    assert_eq!(from_stdin.status.code(), Some(0));
    assert_eq!(from_file.stdout, from_stdin.stdout);
}

#[test]
fn invalid_input_fails_with_located_diagnostics_on_standard_error() {
    let loop_text = "for i in range(8):\n    B[0] = A[i]\n    C[i] = B[0]\n\
        sch.annotate(i, \"software_pipeline_stage\", [1, 0])\n\
        sch.annotate(i, \"software_pipeline_order\", [0, 1])\n";
    let out = stagecraft(&["explore", "-"], Some(loop_text));
    assert_eq!(out.status.code(), Some(1));
    let errors = text(&out.stderr);
    // file:line:column of the statement that reads what a later stage writes.
    assert!(errors.contains("-:3:5"), "{errors}");
    assert!(errors.contains("error"), "{errors}");
}

#[test]
fn json_is_one_document_with_the_documented_fields() {
    let out = stagecraft(&["explore", RFC_A, "--emit", "json"], None);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in [
        "ok",
        "diagnostics",
        "rolled",
        "peeled",
        "buffers",
        "groups",
        "waits",
    ] {
        assert!(json.get(field).is_some(), "no `{field}` in {json}");
    }
}

#[test]
fn a_code_target_prints_its_code() {
    // RFC (a)'s async statement is not a pure copy: its groups are empty on sm_80 and its waits
    // comments. The CUTLASS preset's copies are the block's cooperative 16-byte cp.async.
    let out = stagecraft(&["explore", RFC_A, "--emit", "ptx"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ptx = text(&out.stdout);
    assert!(ptx.contains("cp.async.commit_group"), "{ptx}");
    assert!(ptx.contains("nothing to wait for"), "{ptx}");
    let out = stagecraft(
        &["explore", "examples/cutlass_multistage.py", "--emit", "ptx"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ptx = text(&out.stdout);
    assert!(ptx.contains("cp.async.cg.shared.global"), "{ptx}");
    assert!(ptx.contains("cp.async.wait_group "), "{ptx}");
    assert!(ptx.contains("bar.sync 0;"), "{ptx}");
}

#[test]
fn usage_mistakes_exit_2_with_the_usage() {
    for args in [
        &[][..],
        &["explore"][..],
        &["explore", RFC_A, "--form", "diagonal"][..],
        &["explore", RFC_A, "--emit", "sass"][..],
        &["explore", RFC_A, "--param", "N"][..],
        &["explore", "no/such/file.py"][..],
        &["frobnicate"][..],
        &["workload", "heavy", "8"][..],
        &["workload", "heavy", "eight", "2"][..],
        &["workload", "spiral", "8"][..],
    ] {
        let out = stagecraft(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let errors = text(&out.stderr);
        assert!(errors.starts_with("stagecraft: "), "{args:?}: {errors}");
        assert!(errors.contains("usage:"), "{args:?}: {errors}");
    }
}

#[test]
fn check_exits_3_on_the_race_tvm_leaves_in_example_b() {
    let out = stagecraft(
        &[
            "check",
            "examples/rfc_b_two_async_stages.py",
            "--pipelined",
            "tests/pipelined/rfc_b_tvm_two_versions.py",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("race at "),
        "{}",
        text(&out.stdout)
    );
    let derived = stagecraft(&["check", "examples/rfc_b_two_async_stages.py"], None);
    assert_eq!(derived.status.code(), Some(0), "{}", text(&derived.stdout));
}

/// TVM's program for RFC (c) races six times, in two groups of races alike (one statement, one
/// kind, one wait): the first of each is written out, the others counted under it.
#[test]
fn check_writes_the_first_of_each_group_of_races_alike() {
    let out = stagecraft(
        &[
            "check",
            "examples/rfc_c_interleaved.py",
            "--pipelined",
            "tests/pipelined/rfc_c_tvm_merged_prologue.py",
        ],
        None,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("racy: 6 races on in-flight data"),
        "{stdout}"
    );
    let races = stdout
        .lines()
        .filter(|l| l.starts_with("  race at "))
        .count();
    assert_eq!(races, 2, "{stdout}");
    assert!(
        stdout.contains("    (and 3 more races like it: the same statement, kind and wait)")
            && stdout.contains("    (and 1 more race like it: the same statement, kind and wait)"),
        "{stdout}"
    );
    // The waits the race leaves unjudged say why.
    assert!(
        stdout.contains(": not judged\n")
            && stdout.contains("  (a wait is judged tight or loose only in a run with no race"),
        "{stdout}"
    );
}

/// The CDNA4 preset's program with its barriers deleted, checked by hand: the run across its 8
/// waves finds each wave reading another wave's part of the tile before a barrier publishes it,
/// at the read's line, naming both waves, the slot and the iteration, and saying where the barrier
/// that would have covered it goes. The derived program (with its barriers) is clean across them.
#[test]
fn check_runs_a_threaded_program_across_its_waves_and_locates_the_race_between_two() {
    const VARIANT: &str = "tests/pipelined/cdna4_wave_local_waits.py";
    let out = stagecraft(
        &[
            "check",
            "examples/cdna4_interleaved.py",
            "--pipelined",
            VARIANT,
        ],
        None,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    let first_line = stdout.lines().next().unwrap_or_default();
    assert!(
        first_line.contains("racy:") && first_line.contains("between waves"),
        "{stdout}"
    );
    // The first race: wave a reads at its line what wave b copied, with the barrier's place.
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/pipelined/cdna4_wave_local_waits.py"
    ))
    .unwrap();
    let race = stdout
        .lines()
        .position(|l| l.starts_with(&format!("  race at {VARIANT}:")))
        .unwrap_or_else(|| panic!("no race listed: {stdout}"));
    let lines: Vec<&str> = stdout.lines().collect();
    let said = lines[race];
    let waves: Vec<u32> = said
        .split("wave ")
        .skip(1)
        .filter_map(|w| w.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
        .collect();
    assert!(
        waves.len() >= 2 && waves[0] != waves[1],
        "two waves named: {said}"
    );
    assert!(
        said.contains("(slot ") && said.contains("at iteration "),
        "{said}"
    );
    let read_line: usize = said
        .trim_start_matches(&format!("  race at {VARIANT}:"))
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        source.lines().nth(read_line - 1).unwrap().contains("A_sh["),
        "the race is at a read of the shared tile: {said}"
    );
    let cover = lines[race + 2];
    assert!(
        cover.contains("covered by a barrier() after the wait on line "),
        "{cover}"
    );
    let wait_line: usize = cover
        .split("after the wait on line ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        source
            .lines()
            .nth(wait_line - 1)
            .unwrap()
            .contains("async_wait_queue(0, "),
        "{cover}"
    );
    assert!(wait_line < read_line, "{cover}");

    let derived = stagecraft(&["check", "examples/cdna4_interleaved.py"], None);
    let derived_out = text(&derived.stdout);
    assert_eq!(derived.status.code(), Some(0), "{derived_out}");
    assert!(
        derived_out.contains("no race across its 8 waves (512 threads)"),
        "{derived_out}"
    );
}

#[test]
fn workloads_print_the_library_generators() {
    let heavy = stagecraft(&["workload", "heavy", "12", "4", "9"], None);
    assert_eq!(
        text(&heavy.stdout),
        stagecraft::workloads::heavy_chain(12, 4, 9)
    );
    let synthetic = stagecraft(&["workload", "synthetic", "16"], None);
    assert_eq!(
        text(&synthetic.stdout),
        stagecraft::workloads::synthetic_chain(16, 8, 64, 4)
    );
}

#[test]
fn check_points_at_lines_of_the_program_it_checked() {
    // The derived program's waits are reported at their lines in the printed program (they were
    // once resolved against the loop's own text: "line 4", which is `# prologue`).
    const RFC_C: &str = "examples/rfc_c_interleaved.py";
    for form in ["rolled", "peeled"] {
        let printed = text(&stagecraft(&["explore", RFC_C, "--form", form], None).stdout);
        let wait_lines: Vec<usize> = printed
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains("async_wait_queue"))
            .map(|(k, _)| k + 1)
            .collect();
        let out = stagecraft(&["check", RFC_C, "--form", form], None);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let report = text(&out.stdout);
        let reported: Vec<usize> = report
            .lines()
            .filter_map(|l| l.split("(line ").nth(1))
            .filter_map(|l| l.split(',').next()?.parse().ok())
            .collect();
        assert!(!reported.is_empty(), "{report}");
        for line in &reported {
            assert!(
                wait_lines.contains(line),
                "{form}: line {line} is not a wait in\n{printed}\n{report}"
            );
        }
    }
}

#[test]
fn check_emit_executes_the_kernel_and_exits_0_only_when_it_is_correct() {
    for target in ["amdgpu", "amdgpu-gfx950", "amdgpu-ir"] {
        let out = stagecraft(&["check", RFC_A, "--emit", target], None);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        assert!(
            text(&out.stdout).contains("executed: same outputs, 0 races"),
            "{}",
            text(&out.stdout)
        );
    }
    // The three-iteration loop, written by hand with the count it reported for the
    // epilogue's first wait (3 groups in flight instead of 1): its kernel races, and the race
    // names the kernel line that read B's slot 1 and the copy's line.
    let pipelined = "B = alloc([3, 1], scope=\"shared\", versions=3)
with async_commit_queue(0):
    with async_scope():
        B[0, 0] = A[0]
with async_commit_queue(0):
    with async_scope():
        B[1, 0] = A[1]
for i in range(2, 3):
    with async_commit_queue(0):
        with async_scope():
            B[i % 3, 0] = A[i]
    with async_wait_queue(0, 2):
        C[i - 2] = B[(i - 2) % 3, 0] + 1
with async_wait_queue(0, 2):
    C[1] = B[1, 0] + 1
with async_wait_queue(0, 0):
    C[2] = B[2, 0] + 1
";
    let dir = std::env::temp_dir().join(format!("stagecraft-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let loop_file = dir.join("three.py");
    std::fs::write(
        &loop_file,
        "B = alloc([1])
for i in range(3):
    B[0] = A[i]
    C[i] = B[0] + 1
sch.annotate(i, \"software_pipeline_stage\", [0, 2])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
",
    )
    .unwrap();
    let derived = stagecraft(
        &["check", loop_file.to_str().unwrap(), "--emit", "amdgpu"],
        None,
    );
    assert_eq!(derived.status.code(), Some(0), "{}", text(&derived.stdout));
    let hand = dir.join("three_pipelined.py");
    std::fs::write(&hand, pipelined).unwrap();
    let out = stagecraft(
        &[
            "check",
            loop_file.to_str().unwrap(),
            "--pipelined",
            hand.to_str().unwrap(),
            "--emit",
            "amdgpu",
        ],
        None,
    );
    let printed = text(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{printed}");
    assert!(printed.contains("race at line "), "{printed}");
    assert!(printed.contains("`ds_read_b32"), "{printed}");
    assert!(printed.contains("`global_load_lds_dword"), "{printed}");
    assert!(printed.contains("`B[1, 0]` (ring slot 1)"), "{printed}");
    // A negative count is no immediate: the program is invalid (at the wait's line), nothing
    // emitted.
    std::fs::write(&hand, pipelined.replace("(0, 0)", "(0, -1)")).unwrap();
    let out = stagecraft(
        &[
            "check",
            loop_file.to_str().unwrap(),
            "--pipelined",
            hand.to_str().unwrap(),
            "--emit",
            "amdgpu-ir",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    let printed = text(&out.stdout);
    assert!(
        printed.contains(":16:1: this wait's count is -1"),
        "{printed}"
    );
    assert!(printed.contains("it cannot be negative"), "{printed}");
    assert!(!printed.contains("--emit amdgpu-ir:"), "emitted: {printed}");
    // The PTX targets execute like the AMDGPU ones.
    for target in ["ptx", "ptx-sm90"] {
        let out = stagecraft(&["check", RFC_A, "--emit", target], None);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        assert!(
            text(&out.stdout).contains("executed: same outputs, 0 races"),
            "{}",
            text(&out.stdout)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn as_tvm_prints_tvms_program_and_check_exits_3_on_its_race() {
    const RFC_C: &str = "examples/rfc_c_interleaved.py";
    let out = stagecraft(&["explore", RFC_C, "--as", "tvm-0.27"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    // TVM's merged prologue group (both copies in one commit) and its body count 5.
    assert!(
        printed.contains("    with async_commit_queue(0):\n        with async_scope():\n            A_sh[i % 4, 0] = A[i]\n        with async_scope():\n            B_sh[i % 4, 0] = B[i]\n"),
        "{printed}"
    );
    assert!(
        printed.contains("with async_wait_queue(0, 5):"),
        "{printed}"
    );
    let out = stagecraft(&["check", RFC_C, "--as", "tvm-0.27"], None);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains("race at examples/rfc_c_interleaved.py --as tvm-0.27:17:9: reads data whose asynchronous write is still in flight"),
        "{report}"
    );
    let out = stagecraft(&["check", RFC_A, "--as", "tvm-0.27"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn as_tvm_refusals_are_tvms_message_and_exit_1() {
    let out = stagecraft(
        &[
            "explore",
            "tests/cases/error_later_stage.py",
            "--as",
            "tvm-0.27",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("error: TVM 0.27 refuses this schedule: ValueError: Check failed: src_info.stage <= dst_info.stage (1 vs. 0)"),
        "{err}"
    );
    let out = stagecraft(&["explore", RFC_A, "--as", "tvm-0.26"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn tokens_print_and_check() {
    const RFC_B: &str = "examples/rfc_b_two_async_stages.py";
    let out = stagecraft(&["explore", RFC_B, "--emit", "tir-tokens"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tokens = text(&out.stdout);
    assert!(
        tokens.contains("with async_start(1) as q1[i - 1]:"),
        "{tokens}"
    );
    assert!(
        tokens.contains("with async_done(q1[i - 2]):  # wait(1, 1): 1 = tokens of queue 1 committed after q1[i - 2]"),
        "{tokens}"
    );
    let dir = std::env::temp_dir().join(format!("stagecraft-cli-tokens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("b_tokens.py");
    std::fs::write(&good, &tokens).unwrap();
    let out = stagecraft(
        &["check", RFC_B, "--pipelined", good.to_str().unwrap()],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    // Awaiting the body's token twice: the epilogue's first wait names it again.
    let bad = dir.join("b_twice.py");
    std::fs::write(
        &bad,
        tokens.replace("with async_done(q0[15]):", "with async_done(q0[14]):"),
    )
    .unwrap();
    let out = stagecraft(
        &["check", RFC_B, "--pipelined", bad.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("error: q0[14] is awaited twice: it was awaited on line 17 already"),
        "{err}"
    );
    assert!(
        err.contains("error: 1 token committed here is never awaited: q0[15]"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One hand-written program per problem of the strict verdict, in `tests/pipelined/invalid/`, each
/// named after its `Invalid` kind, its first line saying at which line the problem is and, when
/// only a target makes it invalid, a line `# checked with: ARGS`. `check` calls each invalid at
/// that line, with its fix, and exits 3; without those arguments the program is not invalid.
#[test]
fn check_calls_each_invalid_program_invalid_at_its_line_and_exits_3() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/pipelined/invalid");
    let mut kinds = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let kind: stagecraft::interp::Invalid = serde_json::from_str(&format!("\"{stem}\""))
            .unwrap_or_else(|_| panic!("{stem}.py is named after no kind of invalid program"));
        let source = std::fs::read_to_string(&path).unwrap();
        let line: usize = source
            .lines()
            .next()
            .and_then(|l| l.split("(line ").nth(1))
            .and_then(|l| l.split(')').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{stem}.py: its first line names no `(line N)`"));
        let extra: Vec<&str> = source
            .lines()
            .find_map(|l| l.strip_prefix("# checked with: "))
            .map_or_else(Vec::new, |a| a.split_whitespace().collect());
        let relative = format!("tests/pipelined/invalid/{stem}.py");
        let mut args = vec!["check", RFC_A, "--pipelined", relative.as_str()];
        args.extend(&extra);
        let out = stagecraft(&args, None);
        let printed = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{stem}: {printed}{}",
            text(&out.stderr)
        );
        assert!(
            printed.contains(&format!("invalid: {}", kind.what())),
            "{stem}: {printed}"
        );
        assert!(
            printed.contains(&format!("invalid at {relative}:{line}:")),
            "{stem}: not at line {line}: {printed}"
        );
        assert!(
            printed.contains(&format!("fix: {}", kind.fix())),
            "{stem}: {printed}"
        );
        if !extra.is_empty() {
            let plain = stagecraft(&["check", RFC_A, "--pipelined", relative.as_str()], None);
            assert_eq!(
                plain.status.code(),
                Some(0),
                "{stem}: {}",
                text(&plain.stdout)
            );
        }
        kinds.push(kind);
    }
    kinds.sort_by_key(|k| k.what());
    kinds.dedup();
    assert_eq!(kinds.len(), 5, "one program per kind: {kinds:?}");
}

#[test]
fn timeline_prints_the_metrics_and_a_gantt_and_writes_the_panes_svg() {
    let dir = std::env::temp_dir().join(format!("stagecraft-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("rfc_a.svg");
    let example = format!(
        "{}/../examples/rfc_a_async_copy.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = stagecraft(
        &["timeline", &example, "--svg", svg.to_str().unwrap()],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    for metric in [
        "total cycles",
        "unpipelined cycles",
        "× over the program with every copy awaited at once",
        "steady cycles / iter",
        "stall cycles",
        "ring buffers          shared 8 B",
    ] {
        assert!(printed.contains(metric), "{metric} missing:\n{printed}");
    }
    assert!(printed.contains("compute   |"), "{printed}");
    assert!(printed.contains("queue 0   |"), "{printed}");
    assert!(
        printed.contains("  row 1   |"),
        "a second group in flight:\n{printed}"
    );
    let written = std::fs::read_to_string(&svg).unwrap();
    let ex = stagecraft::explore::explore(
        &std::fs::read_to_string(&example).unwrap(),
        &Default::default(),
    );
    assert_eq!(
        written,
        stagecraft::gantt::svg(
            ex.timeline.as_ref().unwrap(),
            &ex.statement_texts(),
            10,
            1200.0,
            None
        ),
        "the same chart the pane exports"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 39: TVM 0.27 commits the two stage-1 writes of `S0[(i - 1) % 2, (i - 1) % 2]` in one
/// group; `check --as tvm-0.27` says racy (it said "equivalent: same outputs, no race"), locates
/// both writes, and Stagecraft's own program for the loop is equivalent.
#[test]
fn as_tvm_two_writes_of_one_element_in_one_group_are_racy() {
    const LOOP: &str = "tests/cases/async_same_element.py";
    let out = stagecraft(&["check", LOOP, "--as", "tvm-0.27"], None);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("--as tvm-0.27: racy: 8 races"), "{report}");
    assert!(
        report.contains("race at tests/cases/async_same_element.py --as tvm-0.27:10:17: writes `S0[0, 0]` (ring slot 0), which `S0[i % 2] = A[i]` of iteration 1 also writes asynchronously in the same commit group")
            && report.contains("(the other access: tests/cases/async_same_element.py --as tvm-0.27:8:17)"),
        "{report}"
    );
    let out = stagecraft(&["check", LOOP], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}
