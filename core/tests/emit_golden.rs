//! Golden files for emitted code (`tests/emit/NAME.TARGET`), reviewed as diffs; `BLESS=1`
//! regenerates them. Their acceptance by the real assemblers is core/tests/emit_judges.rs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::Target;
use stagecraft::explore::{explore, Options};
use std::path::Path;

#[test]
fn emitted_code_matches_the_golden_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out_dir = root.join("tests/emit");
    std::fs::create_dir_all(&out_dir).unwrap();
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
    {
        let ex = explore(
            &std::fs::read_to_string(f).unwrap(),
            &Options {
                verify: false,
                timeline: false,
                ..Options::default()
            },
        );
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        for t in Target::ALL {
            let code = ex.code.iter().find(|c| c.target == t.name()).unwrap();
            let mut actual = code.text.clone();
            for n in &code.notes {
                actual.push_str(&format!("# note: {n}\n"));
            }
            let path = out_dir.join(format!("{stem}.{}", t.name()));
            if bless {
                std::fs::write(&path, &actual).unwrap();
            } else if std::fs::read_to_string(&path).unwrap_or_default() != actual {
                failures.push(path.display().to_string());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "emitted code differs from {failures:?}; review and run with BLESS=1"
    );
}
