//! A symbolic extent judged at several values: the pipelined program is one text for every N, so
//! the verifier runs it at N = 0 … S + 2 (S stages: every short trip count, where the prologue and
//! epilogue meet) and at one large N (the value chosen, or `limits::DEFAULT_SYMBOLIC_EXTENT`), and
//! a wait is tight only if it is tight at every N where it runs. A wait that does not run at some
//! N is not loose there: it is "not executed at N = …".

use crate::interp::{run, RunOptions};
use crate::ir::Program;
use crate::verify::{instances_of, verify, Judgement, Verdict, Verification, VerifyOptions};
use std::collections::BTreeMap;

/// The values of N judged for a loop of `stages` stages (the largest stage + 1) when `chosen` is
/// the value the user chose (or the default): 0 … S + 2, then the chosen one if larger, else the
/// default.
pub fn extents_to_judge(stages: i64, chosen: Option<i64>) -> Vec<i64> {
    let short = stages.max(1) + 2;
    let mut out: Vec<i64> = (0..=short).collect();
    let large = chosen
        .filter(|&n| n > short)
        .unwrap_or(crate::limits::DEFAULT_SYMBOLIC_EXTENT.max(short + 1));
    out.push(large);
    out
}

/// `verify` at every N of `extents_to_judge` (every parameter bound to N), merged: the verdict is
/// the worst of the runs (a race or a difference names the N it happened at), each wait's
/// judgement is the worst where it ran, and the summary says which N were run. Without a
/// parameter this is `verify`.
pub fn verify_extents(
    original: &Program,
    pipelined: &Program,
    opts: &VerifyOptions,
    stages: i64,
) -> Verification {
    if opts.params.is_empty() {
        return verify(original, pipelined, opts);
    }
    let chosen = opts.params.values().next().copied();
    let mut extents = extents_to_judge(stages, chosen);
    let short = stages.max(1) + 2;
    let mut out_of_bounds_at = None;
    if let Some(large) = extents.last_mut() {
        if goes_out_of_bounds(original, opts, *large) {
            out_of_bounds_at = Some(*large);
            if let Some(clean) = largest_clean_extent(original, opts, short, *large) {
                *large = clean;
            }
        }
    }
    let runs: Vec<(i64, Verification)> = extents
        .iter()
        .map(|&n| {
            let params: BTreeMap<String, i64> =
                opts.params.keys().map(|k| (k.clone(), n)).collect();
            let o = VerifyOptions {
                params,
                ..opts.clone()
            };
            (n, verify(original, pipelined, &o))
        })
        .collect();
    let mut v = merge(runs, chosen, &extents).unwrap_or_else(|| verify(original, pipelined, opts));
    if let Some(n) = out_of_bounds_at.filter(|n| !extents.contains(n)) {
        v.summary = format!(
            "{} (N = {n} is not judged: the loop itself goes out of bounds there)",
            v.summary
        );
    }
    v
}

/// Whether the original loop, run at N = `n`, goes out of bounds (or has another problem). A
/// loop too large to interpret is not run here: `verify` refuses it before running, and says so.
fn goes_out_of_bounds(original: &Program, opts: &VerifyOptions, n: i64) -> bool {
    let params: BTreeMap<String, i64> = opts.params.keys().map(|k| (k.clone(), n)).collect();
    let small_enough = instances_of(original, &params).is_some_and(|k| k <= opts.max_instances);
    if !small_enough {
        return false;
    }
    let r = run(
        original,
        &RunOptions {
            params,
            max_instances: opts.max_instances,
            ..RunOptions::default()
        },
    );
    !r.problems.is_empty() && r.aborted.is_none() && !r.truncated
}

/// The largest N in (`short`, `large`) at which the loop runs cleanly, when it does not at
/// `large`: a large N the loop itself goes out of bounds at judges no wait (its pipelined program
/// has no correct behaviour to be tight against), yet the waits that only matter beyond the short
/// N must still be judged somewhere. The loop's iterations at N are a prefix of those at N + 1,
/// so running cleanly is (but for indices written with N) monotone, and a bisection finds it.
fn largest_clean_extent(
    original: &Program,
    opts: &VerifyOptions,
    short: i64,
    large: i64,
) -> Option<i64> {
    let (mut clean, mut bad) = (short, large);
    if goes_out_of_bounds(original, opts, clean) {
        return None;
    }
    while bad - clean > 1 {
        let mid = clean + (bad - clean) / 2;
        if !goes_out_of_bounds(original, opts, mid) {
            clean = mid;
        } else {
            bad = mid;
        }
    }
    (clean > short).then_some(clean)
}

fn merge(
    runs: Vec<(i64, Verification)>,
    chosen: Option<i64>,
    extents: &[i64],
) -> Option<Verification> {
    let at = |n: i64| format!("N = {n}");
    let listed = list(extents);
    // The run shown (trace, instances) is the chosen N's, or the last.
    let main_index = runs
        .iter()
        .position(|(n, _)| Some(*n) == chosen)
        .unwrap_or(runs.len().saturating_sub(1));
    let failed = runs.iter().position(|(_, v)| {
        matches!(
            v.verdict,
            Verdict::Racy | Verdict::Different | Verdict::NotRun
        )
    });
    let mut waits = merged_waits(&runs);
    for w in &mut waits {
        if w.judgement == Judgement::NeverRan && !w.forces_nothing_at.is_empty() {
            w.judgement = Judgement::Redundant;
        }
    }
    let mut runs = runs;
    let (n, mut v) = match failed {
        Some(i) if i < runs.len() => runs.swap_remove(i),
        _ if main_index < runs.len() => runs.swap_remove(main_index),
        _ => return None,
    };
    if failed.is_some() {
        v.summary = format!("{} (at {}; judged at {listed})", v.summary, at(n));
        return Some(v);
    }
    v.unjudged_for_budget = v.unjudged_for_budget.max(
        runs.iter()
            .map(|(_, r)| r.unjudged_for_budget)
            .max()
            .unwrap_or(0),
    );
    v.waits = waits;
    let loose = v.loose_waits();
    let never = |w: &crate::verify::WaitVerdict| {
        w.not_executed_at.len() == extents.len() || w.judgement == Judgement::NeverRan
    };
    let judged = v.waits.iter().filter(|w| !never(w)).count();
    v.verdict = if loose > 0 {
        Verdict::SafeButLoose
    } else {
        Verdict::Equivalent
    };
    let partly = v
        .waits
        .iter()
        .filter(|w| !never(w) && (!w.not_executed_at.is_empty() || !w.forces_nothing_at.is_empty()))
        .count();
    let not_run = match partly {
        0 => String::new(),
        1 => "; one of them does not run, or has nothing to complete, at some N".to_string(),
        m => format!("; {m} of them do not run, or have nothing to complete, at some N"),
    };
    v.summary = match v.verdict {
        Verdict::SafeButLoose => format!(
            "safe but loose at some N (judged at {listed}): same outputs and no race, but {} could allow more groups in flight",
            crate::english::count(loose, "wait")
        ),
        _ if v.waits.is_empty() => format!(
            "equivalent at every N judged ({listed}): same outputs, no race, no waits needed"
        ),
        _ if v.unjudged_for_budget > 0 => format!(
            "equivalent at every N judged ({listed}): same outputs, no race; {} not judged (interpretation budget){not_run}",
            crate::english::count(v.unjudged_for_budget, "wait")
        ),
        _ => format!(
            "equivalent at every N judged ({listed}): same outputs, no race, {} where {}{not_run} ({} statement instances at {})",
            crate::verify::all_tight(judged),
            if judged == 1 { "it runs" } else { "they run" },
            v.instances,
            at(n)
        ),
    };
    Some(v)
}

/// Per wait (by index, in the order the runs list them): the worst judgement where it ran, and
/// the N where it did not.
fn merged_waits(runs: &[(i64, Verification)]) -> Vec<crate::verify::WaitVerdict> {
    let mut out: Vec<crate::verify::WaitVerdict> = Vec::new();
    for (n, v) in runs {
        for w in &v.waits {
            let k = match out.iter().position(|o| o.index == w.index) {
                Some(k) => k,
                None => {
                    let mut first = w.clone();
                    first.judgement = Judgement::NeverRan;
                    first.instances = 0;
                    first.max_in_flight = 0;
                    first.not_executed_at.clear();
                    first.forces_nothing_at.clear();
                    first.forcing_instances = 0;
                    out.push(first);
                    out.len() - 1
                }
            };
            let Some(o) = out.get_mut(k) else { continue };
            o.instances += w.instances;
            o.forcing_instances += w.forcing_instances;
            o.max_in_flight = o.max_in_flight.max(w.max_in_flight);
            if w.instances == 0 || w.judgement == Judgement::NeverRan {
                o.not_executed_at.push(*n);
                continue;
            }
            // Every group in flight was among those it lets stay: at this N no count completes
            // more (nothing to loosen), and the count is what the other N need.
            if w.judgement == Judgement::Redundant && w.forcing_instances == 0 {
                o.forces_nothing_at.push(*n);
                continue;
            }
            o.judgement = worse(o.judgement, w.judgement);
            // The fix must hold at every N: the largest lowering any N needs.
            o.lower_by = o.lower_by.max(w.lower_by);
        }
    }
    out
}

/// The worse of two judgements of one wait at two values of N.
fn worse(a: Judgement, b: Judgement) -> Judgement {
    let rank = |j: Judgement| match j {
        Judgement::NeverRan => 0,
        Judgement::Tight => 1,
        Judgement::NotJudged => 2,
        Judgement::LooseBy { .. } => 3,
        Judgement::Redundant => 4,
        Judgement::Racy => 5,
    };
    match (a, b) {
        (Judgement::LooseBy { k: x }, Judgement::LooseBy { k: y }) => {
            Judgement::LooseBy { k: x.min(y) }
        }
        _ if rank(b) > rank(a) => b,
        _ => a,
    }
}

/// `0 … 5, 16` for a run of consecutive values and the rest.
fn list(ns: &[i64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(&first) = ns.get(i) {
        let mut j = i;
        while ns
            .get(j + 1)
            .is_some_and(|&x| x == ns.get(j).copied().unwrap_or(0) + 1)
        {
            j += 1;
        }
        let last = ns.get(j).copied().unwrap_or(first);
        parts.push(match last - first {
            0 => format!("N = {first}"),
            1 => format!("N = {first}, {last}"),
            _ => format!("N = {first} … {last}"),
        });
        i = j + 1;
    }
    parts.join(", ")
}
