//! TVMScript out and back: every example and golden case, and 1 000 random loops of each
//! generator, exported as a PrimFunc (`Exploration::tvmscript`) and read back by the TVMScript
//! reader, explore to the same programs, waits, verification and diagnostics (messages) as the
//! loop itself. `scripts/tvmscript-roundtrip.sh` checks in TVM 0.27 that the exports parse and
//! pipeline.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use libtest_mimic::{Arguments, Failed, Trial};
use stagecraft::diagnostic::Diagnostic;
use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::lower::lower;
use stagecraft::parser::parse;
use stagecraft::random_loop::{random_loop, Flavor};
use stagecraft::schedule::repeated_keys;
use stagecraft::tvmscript::Dialect;

const RANDOM_LOOPS: u64 = 1000;

fn options() -> Options {
    Options {
        targets: Vec::new(),
        timeline: false,
        tvmscript: true,
        ..Options::default()
    }
}

/// What must survive the round trip: the messages (without what they quote, and but those in
/// `left_out`), the printed programs (up to the order of their allocations), the waits and the
/// verification's verdict.
fn essence(ex: &Exploration, left_out: &[Diagnostic]) -> String {
    // In text order, which differs: the export has the annotations on the loop.
    let mut messages: Vec<String> = ex
        .diagnostics
        .iter()
        .filter(|d| !left_out.contains(d))
        .map(|d| format!("{:?}: {}\n", d.severity, support::unquoted(&d.message)))
        .collect();
    messages.sort();
    let mut out = messages.concat();
    for w in &ex.waits {
        let counts: Vec<String> = w
            .instances
            .iter()
            .map(|i| format!("{:?}:{}", i.step, i.count))
            .collect();
        out.push_str(&format!(
            "wait {} q{} {}\n",
            w.id,
            w.queue,
            counts.join(",")
        ));
    }
    if let Some(v) = &ex.verification {
        out.push_str(&format!("{}\n", v.summary));
    }
    for p in [&ex.rolled, &ex.peeled].into_iter().flatten() {
        out.push_str(&allocations_sorted(&p.text));
    }
    out
}

/// A printed program with its allocation lines in name order: the export allocates a buffer no
/// annotated loop uses ahead of the others, in a root block (tvmscript::print), so it is read
/// back first.
fn allocations_sorted(text: &str) -> String {
    let is_alloc = |l: &&str| !l.starts_with(' ') && l.contains(" = alloc(");
    let mut allocs: Vec<&str> = text.lines().filter(is_alloc).collect();
    allocs.sort_unstable();
    let mut allocs = allocs.into_iter();
    text.lines()
        .map(|l| {
            if is_alloc(&l) {
                allocs.next().unwrap_or(l)
            } else {
                l
            }
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// `source` without its thread declarations: the `stagecraft_threads` and `stagecraft_waves`
/// annotations and every `threads=` argument of an allocation.
fn without_threads(source: &str) -> String {
    source
        .lines()
        .filter(|l| !l.contains("\"stagecraft_threads\"") && !l.contains("\"stagecraft_waves\""))
        .map(|l| match l.find(", threads=\"") {
            Some(at) => {
                let rest = &l[at + ", threads=\"".len()..];
                let end = rest.find('"').map_or(rest.len(), |e| e + 1);
                format!("{}{}\n", &l[..at], &rest[end..])
            }
            None => format!("{l}\n"),
        })
        .collect()
}

fn round_trip(name: &str, source: &str) -> Result<(), Failed> {
    let ex = explore(source, &options());
    let Some(export) = &ex.tvmscript else {
        if ex.ok {
            return Err(format!("{name} explores but has no TVMScript export").into());
        }
        return Ok(());
    };
    let back = explore(export, &options());
    if back.dialect != Dialect::TvmScript {
        return Err(format!("{name}'s export is not read as TVMScript").into());
    }
    // The export leaves the loop's threads out (docs/tvm.md, "Threads in the export"): read
    // back, it is the loop without them.
    let one_thread = without_threads(source);
    if one_thread != source
        && !export.contains("are left out: TVM's pass pipelines the program one thread runs")
    {
        return Err(format!("{name}'s export does not say it leaves the threads out").into());
    }
    let ex = explore(&one_thread, &options());
    // The export writes each key once, the one in effect (its annotations are a dictionary), so
    // the warning on a key written twice has nothing to point at there.
    let repeated = repeated_keys(&lower(&parse(&one_thread).file).annotations);
    let (a, b) = (essence(&ex, &repeated), essence(&back, &[]));
    if a != b {
        return Err(format!(
            "{name}: the export explores differently\n{export}\n{}",
            support::diff(&a, &b, name)
        )
        .into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let (inputs, mut trials) = support::inputs();
    let exported = inputs
        .iter()
        .filter(|i| explore(&i.source, &options()).tvmscript.is_some())
        .count();
    trials.push(support::enough("exported examples and cases", exported, 20));
    for input in inputs {
        trials.push(Trial::test(input.path.clone(), move || {
            round_trip(&input.path, &input.source)
        }));
    }
    for (flavor, label) in [(Flavor::Irregular, "random"), (Flavor::Copies, "copies")] {
        trials.push(Trial::test(
            format!("{RANDOM_LOOPS} {label} loops"),
            move || {
                let mut exported = 0;
                for seed in 0..RANDOM_LOOPS {
                    let text = random_loop(seed, flavor).text();
                    round_trip(&format!("{label} {seed}"), &text)?;
                    exported += usize::from(explore(&text, &options()).tvmscript.is_some());
                }
                if exported < RANDOM_LOOPS as usize / 2 {
                    return Err(format!(
                        "only {exported} of {RANDOM_LOOPS} {label} loops were exported"
                    )
                    .into());
                }
                Ok(())
            },
        ));
    }
    libtest_mimic::run(&args, trials).exit();
}
