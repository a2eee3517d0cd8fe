//! TVM 0.27's `InjectSoftwarePipeline` as core reproduces it (`stagecraft::tvm`) against what the
//! real TVM produced for the same loops: `tests/tvm/NAME.tvm`, recorded by `scripts/tvm-goldens.py`
//! (each file names its loop). Both sides are run statically into the same trace — every store
//! with its reads, every commit and wait with its count — and must be equal line for line; where
//! TVM refused the schedule, the reproduction must refuse it with TVM's message. TVM is not
//! needed here: the goldens are committed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::tvm::{inject_software_pipeline, trace, Outcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The reproduction's trace for `source`, in the golden's form (without its two header lines).
fn reproduce(source: &str) -> String {
    let r = inject_software_pipeline(source);
    assert!(
        r.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        r.diagnostics
    );
    match r.outcome.expect("an outcome") {
        Outcome::Pipelined { program } | Outcome::Unchanged { program } => {
            trace(&program, &BTreeMap::new(), usize::MAX)
        }
        Outcome::Rejected(e) => format!("error {}: {}\n", e.kind, e.template),
        Outcome::NotReproduced { reason, .. } => format!("not reproduced: {reason}\n"),
    }
}

/// First differing line, with a few lines of context on both sides.
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let at = w
        .iter()
        .zip(&g)
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    let from = at.saturating_sub(4);
    let show = |v: &[&str]| {
        v.iter()
            .enumerate()
            .skip(from)
            .take(10)
            .map(|(i, l)| format!("{:>5} {}{l}", i + 1, if i == at { "> " } else { "  " }))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "first difference at trace line {}\n--- TVM\n{}\n--- reproduction\n{}",
        at + 1,
        show(&w),
        show(&g)
    )
}

#[test]
fn reproduction_equals_tvm_on_every_golden() {
    let dir = root().join("tests/tvm");
    let mut goldens: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tvm"))
        .collect();
    goldens.sort();
    let (mut pipelined, mut refused, mut failures) = (0, 0, Vec::new());
    for path in &goldens {
        let text = std::fs::read_to_string(path).unwrap();
        let loop_path = text
            .lines()
            .find_map(|l| l.strip_prefix("# loop: "))
            .unwrap_or_else(|| panic!("{}: no `# loop:` line", path.display()));
        let source = std::fs::read_to_string(root().join(loop_path)).unwrap();
        let want: String = text
            .lines()
            .filter(|l| !l.starts_with("# "))
            .map(|l| format!("{l}\n"))
            .collect();
        let got = reproduce(&source);
        if want.starts_with("error ") {
            refused += 1;
        } else {
            pipelined += 1;
        }
        if want != got {
            failures.push(format!(
                "{} ({loop_path}): {}",
                path.file_name().unwrap().to_string_lossy(),
                first_difference(&want, &got)
            ));
        }
    }
    eprintln!(
        "{} schedules compared with TVM 0.27: {pipelined} pipelined, {refused} refused",
        goldens.len()
    );
    assert!(
        goldens.len() >= 30,
        "only {} goldens in tests/tvm",
        goldens.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} schedules differ from TVM:\n\n{}",
        failures.len(),
        goldens.len(),
        failures.join("\n\n")
    );
}
