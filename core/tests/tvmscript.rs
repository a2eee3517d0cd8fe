//! TVMScript in: every `tests/tvmscript/NAME.py` (TVM's own InjectSoftwarePipeline test schedules,
//! in TVM ≤ 0.20's `T.block` and 0.27's `Ts.sblock` spellings) is detected as TVMScript and
//! explores to `tests/tvmscript/NAME.out`, and so does its Stagecraft twin
//! `tests/tvmscript/twins/NAME.py`, written by hand: one expectation for both texts. Diagnostics
//! are compared by message (their locations are in different texts). `UPDATE_EXPECT=1` rewrites
//! the expectations from the TVMScript inputs; the twins must still agree.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use libtest_mimic::{Arguments, Trial};
use stagecraft::explore::{explore, Options};
use stagecraft::tvmscript::Dialect;

const DIR: &str = "tests/tvmscript";

fn main() {
    let args = Arguments::from_args();
    let inputs = support::files(DIR, "py");
    let mut trials = vec![support::enough("TVMScript inputs", inputs.len(), 18)];
    let stems: Vec<String> = inputs.iter().map(|(stem, _)| stem.clone()).collect();
    for (stem, path) in support::files(DIR, "out") {
        if !stems.contains(&stem) {
            trials.push(support::orphan(&path, &format!("no {stem}.py in {DIR}")));
        }
    }
    for (stem, path) in support::files(&format!("{DIR}/twins"), "py") {
        if !stems.contains(&stem) {
            trials.push(support::orphan(&path, &format!("no {stem}.py in {DIR}")));
        }
    }
    for (stem, path) in inputs {
        trials.push(Trial::test(path.clone(), move || {
            let read = |p: &str| {
                std::fs::read_to_string(support::root().join(p))
                    .map_err(|e| format!("{p}: cannot read: {e}"))
            };
            let source = read(&path)?;
            let twin_path = format!("{DIR}/twins/{stem}.py");
            let twin = read(&twin_path)?;
            let ex = explore(&source, &Options::default());
            if ex.dialect != Dialect::TvmScript {
                return Err(format!("{path} is read as {:?}", ex.dialect).into());
            }
            let twin_ex = explore(&twin, &Options::default());
            if twin_ex.dialect != Dialect::Stagecraft {
                return Err(format!("{twin_path} is read as {:?}", twin_ex.dialect).into());
            }
            let actual = support::unlocated(&ex, true);
            let twin_actual = support::unlocated(&twin_ex, true);
            if actual != twin_actual {
                return Err(format!(
                    "{path} and its twin explore differently:\n{}",
                    support::diff(&twin_actual, &actual, &stem)
                )
                .into());
            }
            support::check(&format!("{DIR}/{stem}.out"), &actual)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
