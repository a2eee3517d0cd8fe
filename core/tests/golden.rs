//! Data-driven golden tests, one trial per input: every `examples/NAME.py` and
//! `tests/cases/NAME.py` explores to `tests/cases/NAME.out` (diagnostics, buffers, waits with their
//! arithmetic, the verification, rolled and peeled programs), and neither program is invalid
//! (`Verdict::Invalid`; the peeled one strict for a target). An `.out` with no input and an input
//! with no `.out` are failing trials; `UPDATE_EXPECT=1 cargo test --release -p stagecraft-core
//! --test golden` rewrites the expectations, to be reviewed as diffs (`core/tests/support`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use libtest_mimic::{Arguments, Trial};
use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::verify::{verify, Verdict, VerifyOptions};
use std::collections::BTreeSet;

/// Where every input's expectation is, whichever directory the input is in.
const EXPECTATIONS: &str = "tests/cases";

fn main() {
    let args = Arguments::from_args();
    let (inputs, mut trials) = support::inputs();
    trials.push(support::enough("inputs", inputs.len(), 20));
    let stems: BTreeSet<String> = inputs.iter().map(|i| i.stem.clone()).collect();
    for (stem, path) in support::files(EXPECTATIONS, "out") {
        if !stems.contains(&stem) {
            trials.push(support::orphan(
                &path,
                &format!("no {stem}.py in {}", support::INPUT_DIRS.join(" or ")),
            ));
        }
    }
    for input in inputs {
        let expectation = format!("{EXPECTATIONS}/{}.out", input.stem);
        trials.push(Trial::test(input.path.clone(), move || {
            let name = format!("{}.py", input.stem);
            let ex = explore(&input.source, &Options::default());
            never_invalid(&ex)?;
            let actual = support::render(&name, &input.source, &ex);
            support::check(&expectation, &actual)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The programs Stagecraft prints are never invalid: the rolled form as the interpreter runs it,
/// the peeled form — the one the targets emit — strictly for a target (every count one immediate).
fn never_invalid(ex: &Exploration) -> Result<(), libtest_mimic::Failed> {
    let Some(p) = &ex.programs else {
        return Ok(());
    };
    let forms = [
        ("rolled", Some(&p.rolled), false),
        ("peeled", p.peeled.as_ref(), true),
    ];
    for (form, program, for_target) in forms {
        let Some(program) = program else {
            continue;
        };
        let v = verify(
            &p.original,
            program,
            &VerifyOptions {
                params: p.params.clone(),
                judge_waits: false,
                random_runs: 0,
                trace: false,
                immediate_counts: for_target,
                ..VerifyOptions::default()
            },
        );
        if v.verdict == Verdict::Invalid {
            return Err(format!(
                "the {form} program is invalid: {}\n{:?}",
                v.summary, v.problems
            )
            .into());
        }
    }
    Ok(())
}
