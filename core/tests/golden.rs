//! Data-driven golden tests: every `tests/cases/NAME.py` explores to `tests/cases/NAME.out`
//! (diagnostics, buffers, waits with their arithmetic, rolled and peeled programs).
//! `BLESS=1 cargo test --test golden` regenerates the expectations; review them as diffs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Exploration, Options};
use std::fmt::Write;
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases")
}

pub fn render(name: &str, source: &str, ex: &Exploration) -> String {
    let mut out = String::new();
    for d in &ex.diagnostics {
        out.push_str(&d.render(name, source));
    }
    for n in &ex.notes {
        writeln!(out, "note: {n}").unwrap();
    }
    for b in ex.buffers.iter().filter(|b| b.declared) {
        writeln!(
            out,
            "buffer {} ({}): {} version(s){}",
            b.name,
            b.scope.name(),
            b.versions,
            b.reason
                .as_ref()
                .map_or(String::new(), |r| format!(" — {r}"))
        )
        .unwrap();
    }
    for g in &ex.groups {
        writeln!(
            out,
            "group queue {} slot {}: units {:?}",
            g.queue, g.slot, g.units
        )
        .unwrap();
    }
    for w in &ex.waits {
        let counts: Vec<String> = w
            .instances
            .iter()
            .map(|i| match i.step {
                Some(t) => format!("step {t}: {}", i.count),
                None => format!("every step: {}", i.count),
            })
            .collect();
        writeln!(
            out,
            "wait #{} queue {} in {} before {:?}: {}",
            w.id,
            w.queue,
            w.section.name(),
            w.before,
            counts.join(", ")
        )
        .unwrap();
        for i in &w.instances {
            writeln!(out, "    {}", i.arithmetic).unwrap();
        }
    }
    if let Some(v) = &ex.verification {
        writeln!(out, "verification: {}", v.summary).unwrap();
        for w in &v.waits {
            writeln!(
                out,
                "    wait #{:?} (queue {}): {:?}",
                w.id, w.queue, w.judgement
            )
            .unwrap();
        }
        for r in &v.races {
            writeln!(out, "    race: {}", r.message).unwrap();
        }
    }
    if let Some(r) = &ex.rolled {
        out.push_str("--- rolled\n");
        out.push_str(&r.text);
    }
    if let Some(p) = &ex.peeled {
        out.push_str("--- peeled\n");
        out.push_str(&p.text);
    }
    out
}

#[test]
fn golden_cases() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(cases_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let mut seen = 0;
    for path in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
    {
        seen += 1;
        let source = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let actual = render(&name, &source, &explore(&source, &Options::default()));
        let expected_path = cases_dir()
            .join(path.file_name().unwrap())
            .with_extension("out");
        if bless {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{name}: output differs from {}\n{}",
                expected_path.display(),
                diff(&expected, &actual)
            ));
        }
    }
    assert!(
        seen >= 10,
        "expected the golden cases in {}",
        cases_dir().display()
    );
    assert!(
        failures.is_empty(),
        "{}\nrun with BLESS=1 to accept",
        failures.join("\n")
    );
}

fn diff(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut out = String::new();
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i).copied(), a.get(i).copied());
        if x != y {
            writeln!(
                out,
                "line {}:\n  - {}\n  + {}",
                i + 1,
                x.unwrap_or("<none>"),
                y.unwrap_or("<none>")
            )
            .unwrap();
            if out.lines().count() > 30 {
                break;
            }
        }
    }
    out
}
