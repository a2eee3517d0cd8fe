//! A search's report as `stagecraft search` prints it: what was searched, the lower bound, the
//! loop's own schedule and the front as a table.

use crate::search::{Scored, SearchReport};
use std::fmt::Write;

fn kb(bytes: u64) -> String {
    if bytes >= 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

fn ii(s: &Scored) -> String {
    match (s.steady_cycles_per_iteration, s.bound_ratio) {
        (Some(ii), Some(r)) if r < 1.0 && !s.at_bound => format!("{ii:.1} (no steady state)"),
        (Some(ii), Some(_)) if s.at_bound => format!("{ii:.1} (at the bound)"),
        (Some(ii), Some(r)) => format!("{ii:.1} ({r:.2}× the bound)"),
        (Some(ii), None) => format!("{ii:.1}"),
        _ => "—".into(),
    }
}

fn row(out: &mut String, label: &str, s: &Scored) {
    let a = &s.annotations;
    let list = |v: &[i64]| {
        let items: Vec<String> = v.iter().map(i64::to_string).collect();
        format!("[{}]", items.join(", "))
    };
    let _ = writeln!(
        out,
        "{label:>4}  {:>9}  {:>7}  {:>9}  {:>5}  {:<26}  {:<18}  {:<18}  {}",
        s.total_cycles,
        format!("{:.2}×", s.speedup),
        kb(s.smem_bytes),
        s.waits,
        ii(s),
        list(&a.stages),
        list(&a.orders),
        list(&a.async_stages),
    );
}

/// The report as text.
pub fn table(r: &SearchReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "loop over `{}`: {} units, stages 0–{}, shared memory at most {}",
        r.loop_var,
        r.units.len(),
        r.max_stages - 1,
        kb(r.budget_bytes)
    );
    let how = r
        .stop
        .as_ref()
        .map_or_else(|| "still running".to_string(), |s| s.describe());
    let _ = writeln!(
        out,
        "{} schedules tried ({} accepted by the transform, {} over the budget, {} groups bounded out): {how}",
        r.tried, r.valid, r.over_budget, r.bounded_out
    );
    if r.loose_waits > 0 {
        let _ = writeln!(
            out,
            "{} schedules are correct but have a wait looser than needed (the interpreter shows more groups could stay in flight); they are left out",
            r.loose_waits
        );
    }
    if r.refused_by_interpreter > 0 {
        let _ = writeln!(
            out,
            "{} accepted schedules failed the interpreter and are left out (a transform bug: please report it)",
            r.refused_by_interpreter
        );
    }
    let _ = writeln!(
        out,
        "lower bound: {} (compute {:.1}, queues {:.1}, recurrences {:.1}); unpipelined: {} cycles",
        r.bound.describe(&r.units),
        r.bound.compute,
        r.bound.queue,
        r.bound.recurrence,
        r.unpipelined_cycles
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:>4}  {:>9}  {:>7}  {:>9}  {:>5}  {:<26}  {:<18}  {:<18}  async",
        "#", "cycles", "speedup", "smem", "waits", "II (steady)", "stages", "order"
    );
    if let Some(own) = &r.own {
        row(&mut out, "own", own);
    }
    for (k, s) in r.front.iter().enumerate() {
        row(&mut out, &(k + 1).to_string(), s);
    }
    if r.front.is_empty() {
        let _ = writeln!(out, "no schedule within the budget was found");
    }
    out
}
