//! TileLang in: every `tests/tilelang/NAME.py` (a TileLang kernel with a `T.Pipelined` loop) is
//! detected as TileLang and explores to `tests/tilelang/NAME.out`, and so does its Stagecraft twin
//! `tests/tilelang/twins/NAME.py`, written by hand with the schedule TileLang's planner gives (or
//! the one the kernel writes): one expectation for both texts, so the same waits, the same
//! pipelined program and the same verification. Every `tests/tilelang/errors/NAME.py` explores to
//! the located diagnostics of `tests/tilelang/errors/NAME.out`, each inside the text.
//! `UPDATE_EXPECT=1` rewrites the expectations; the twins must still agree.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use libtest_mimic::{Arguments, Trial};
use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::tvmscript::Dialect;

const DIR: &str = "tests/tilelang";
const ERRORS: &str = "tests/tilelang/errors";

fn read(p: &str) -> Result<String, libtest_mimic::Failed> {
    std::fs::read_to_string(support::root().join(p))
        .map_err(|e| format!("{p}: cannot read: {e}").into())
}

fn main() {
    let args = Arguments::from_args();
    let inputs = support::files(DIR, "py");
    let errors = support::files(ERRORS, "py");
    let mut trials = vec![
        support::enough("TileLang kernels", inputs.len(), 5),
        support::enough("TileLang error cases", errors.len(), 8),
    ];
    for (dir, ext, of) in [
        (DIR, "out", &inputs),
        (&format!("{DIR}/twins"), "py", &inputs),
        (ERRORS, "out", &errors),
    ] {
        for (stem, path) in support::files(dir, ext) {
            if !of.iter().any(|(s, _)| *s == stem) {
                trials.push(support::orphan(&path, &format!("no {stem}.py beside it")));
            }
        }
    }
    for (stem, path) in inputs {
        trials.push(Trial::test(path.clone(), move || twin_trial(&stem, &path)));
    }
    for (stem, path) in errors {
        trials.push(Trial::test(path.clone(), move || error_trial(&stem, &path)));
    }
    libtest_mimic::run(&args, trials).exit();
}

fn twin_trial(stem: &str, path: &str) -> Result<(), libtest_mimic::Failed> {
    let source = read(path)?;
    let twin_path = format!("{DIR}/twins/{stem}.py");
    let twin = read(&twin_path)?;
    let ex = explore(&source, &Options::default());
    if ex.dialect != Dialect::TileLang {
        return Err(format!("{path} is read as {:?}", ex.dialect).into());
    }
    if !ex.ok || ex.diagnostics.iter().any(|d| d.is_error()) {
        return Err(format!("{path} is not explored: {:?}", ex.diagnostics).into());
    }
    let twin_ex = explore(&twin, &Options::default());
    if twin_ex.dialect != Dialect::Stagecraft {
        return Err(format!("{twin_path} is read as {:?}", twin_ex.dialect).into());
    }
    let verified = |e: &Exploration| {
        e.verification
            .as_ref()
            .is_some_and(|v| v.races.is_empty() && v.summary.starts_with("equivalent"))
    };
    if !verified(&ex) {
        return Err(format!(
            "{path} is not verified: {:?}",
            ex.verification.map(|v| v.summary)
        )
        .into());
    }
    // The kernel's notes (what runs outside the pipelined loop) have no twin; all else does.
    let (compared, twin_actual) = (
        support::unlocated(&ex, false),
        support::unlocated(&twin_ex, false),
    );
    if compared != twin_actual {
        return Err(format!(
            "{path} and its twin explore differently:\n{}",
            support::diff(&twin_actual, &compared, stem)
        )
        .into());
    }
    support::check(&format!("{DIR}/{stem}.out"), &support::unlocated(&ex, true))
}

fn error_trial(stem: &str, path: &str) -> Result<(), libtest_mimic::Failed> {
    let source = read(path)?;
    let ex = explore(&source, &Options::default());
    if ex.dialect != Dialect::TileLang {
        return Err(format!("{path} is read as {:?}", ex.dialect).into());
    }
    if !ex.diagnostics.iter().any(|d| d.is_error()) {
        return Err(format!("{path} has no error").into());
    }
    for d in &ex.diagnostics {
        let (start, end) = (d.span.start as usize, d.span.end as usize);
        if start > end
            || end > source.len()
            || !source.is_char_boundary(start)
            || !source.is_char_boundary(end)
        {
            return Err(format!(
                "{path}: `{}` is located outside the text ({start}..{end})",
                d.message
            )
            .into());
        }
    }
    let mut actual = String::new();
    for d in &ex.diagnostics {
        actual.push_str(&d.render(&format!("{stem}.py"), &source));
    }
    support::check(&format!("{ERRORS}/{stem}.out"), &actual)
}
