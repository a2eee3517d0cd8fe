//! Golden files for emitted code, one trial per input and target: every `examples/NAME.py` and
//! `tests/cases/NAME.py` whose schedule is valid emits `tests/emit/NAME.TARGET` (the code, then its
//! notes and any error as `# note:` / `# error:` lines). A file there that no input and target
//! produce is a failing trial; `UPDATE_EXPECT=1 cargo test --release -p stagecraft-core --test
//! emit_golden` rewrites them, to be reviewed as diffs. Their acceptance by the real assemblers is
//! core/tests/emit_judges.rs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use libtest_mimic::{Arguments, Trial};
use stagecraft::emit::Target;
use stagecraft::explore::{explore, Options};
use std::collections::BTreeSet;

const EXPECTATIONS: &str = "tests/emit";

fn options(target: Target) -> Options {
    Options {
        verify: false,
        timeline: false,
        targets: vec![target],
        ..Options::default()
    }
}

/// The golden text of one target's output.
fn render(source: &str, target: Target) -> Result<String, String> {
    let ex = explore(source, &options(target));
    let code = ex
        .code
        .iter()
        .find(|c| c.target == target.name())
        .ok_or_else(|| format!("no {} output in the exploration", target.name()))?;
    let mut text = code.text.clone();
    for n in &code.notes {
        text.push_str(&format!("# note: {n}\n"));
    }
    if let Some(e) = &code.error {
        text.push_str(&format!("# error: {e}\n"));
    }
    Ok(text)
}

fn main() {
    let args = Arguments::from_args();
    let (inputs, mut trials) = support::inputs();
    // Only valid schedules have code: the others' diagnostics are golden.rs's.
    let with_code: Vec<_> = inputs
        .into_iter()
        .filter(|i| explore(&i.source, &options(Target::Ptx)).ok)
        .collect();
    trials.push(support::enough("inputs with code", with_code.len(), 12));
    let expected: BTreeSet<String> = with_code
        .iter()
        .flat_map(|i| Target::ALL.map(|t| format!("{}.{}", i.stem, t.name())))
        .collect();
    for (name, path) in support::all_files(EXPECTATIONS) {
        if !expected.contains(&name) {
            trials.push(support::orphan(
                &path,
                "no valid schedule NAME.py in examples/ or tests/cases/ for a target NAME.TARGET",
            ));
        }
    }
    for input in &with_code {
        for target in Target::ALL {
            let name = format!("{}.{}", input.stem, target.name());
            let source = input.source.clone();
            trials.push(Trial::test(name.clone(), move || {
                support::check(&format!("{EXPECTATIONS}/{name}"), &render(&source, target)?)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
