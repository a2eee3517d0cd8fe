//! The printed program is valid, runnable Python: run every golden case's loop and both printed
//! forms with `scripts/run_tir.py` (sequential scopes) and require identical results.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Options};
use std::path::Path;
use std::process::Command;

#[test]
fn printed_programs_run_as_python_and_compute_what_the_loop_computes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let script = root.join("scripts/run_tir.py");
    let dir = std::env::temp_dir().join(format!("stagecraft-python-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(root.join("tests/cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.extend(
        std::fs::read_dir(root.join("examples"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    entries.sort();
    for case in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
    {
        let source = std::fs::read_to_string(case).unwrap();
        let ex = explore(&source, &Options::default());
        let (Some(rolled), Some(peeled)) = (&ex.rolled, &ex.peeled) else {
            continue;
        };
        for (form, printed) in [("rolled", rolled), ("peeled", peeled)] {
            let out = dir.join(format!(
                "{}.{form}.py",
                case.file_stem().unwrap().to_string_lossy()
            ));
            std::fs::write(&out, &printed.text).unwrap();
            for n in ["16", "3", "1"] {
                let result = Command::new("python3")
                    .arg(&script)
                    .arg(case)
                    .arg(&out)
                    .arg(format!("N={n}"))
                    .output()
                    .expect("python3 runs (scripts/setup.sh installs it)");
                assert!(
                    result.status.success(),
                    "{} ({form}, N={n}):\n{}{}",
                    case.display(),
                    String::from_utf8_lossy(&result.stdout),
                    String::from_utf8_lossy(&result.stderr)
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} printed programs checked");
}
