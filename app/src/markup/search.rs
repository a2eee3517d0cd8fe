//! The Search pane's markup, drawn from what core answered: the search's progress, the front as
//! a scatter plot (shared bytes across, cycles up, the loop's own schedule marked) and as a table,
//! a schedule explored aside (its program and timeline), and the comparison of the pinned
//! schedule with the current one (metric deltas, both timelines on one cycle axis, the programs'
//! lines that differ). Nothing here computes a cost: every number is one of the reports'.

use super::format::fixed;
use super::html::Html;
use stagecraft::explore::Exploration;
use stagecraft::search::{Scored, SearchReport, Strategy};
use stagecraft::timeline::Timeline;

/// `bytes` as the table says them: bytes below a kilobyte, else KB with one decimal.
pub fn bytes(n: u64) -> String {
    if n < 1024 {
        format!("{n} B")
    } else {
        format!("{} KB", fixed(n as f64 / 1024.0, 1))
    }
}

fn list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// Where the search is: a bar (stage vectors walked, for an exhaustive search; moving without a
/// value for a local one while it runs), the counts, and how it ended.
pub fn progress_html(r: &SearchReport, running: bool, elapsed_ms: f64) -> String {
    let mut h = Html::default();
    h.raw("<div class=\"search-progress\"><progress id=\"search-progress\" aria-label=\"Search progress\"");
    match (r.progress, running) {
        (Some((walked, total)), _) => {
            h.raw(" max=\"")
                .num(total.max(1))
                .raw("\" value=\"")
                .num(walked)
                .raw("\"");
        }
        (None, false) => {
            h.raw(" max=\"1\" value=\"1\"");
        }
        (None, true) => {}
    }
    h.raw("></progress> <span id=\"search-status\" role=\"status\">");
    h.num(r.tried).raw(" schedules tried, ");
    h.num(r.valid).raw(" accepted by the transform, ");
    h.num(r.verified).raw(" run by the interpreter, ");
    h.num(r.front.len()).raw(" on the front");
    h.raw(" · ")
        .text(&fixed(elapsed_ms / 1000.0, 1))
        .raw(" s · ");
    match &r.stop {
        Some(stop) => h.text(&stop.describe()),
        None => h.raw(match r.strategy {
            Strategy::Exhaustive => "searching every schedule…",
            Strategy::Local => "searching locally from the loop's schedule (not exhaustive)…",
        }),
    };
    h.raw("</span></div>");
    h.raw("<p class=\"hint\">Loop over <code>")
        .text(&r.loop_var)
        .raw("</code>: ")
        .num(r.units.len())
        .raw(" units, stages 0–")
        .num(r.max_stages - 1)
        .raw(", shared memory at most ")
        .text(&bytes(r.budget_bytes))
        .raw(". Lower bound on the steady cycles per iteration: ")
        .prose(&r.bound.describe(&r.units))
        .raw(". Every schedule listed was judged equivalent and race-free by the interpreter.</p>");
    if r.refused_by_interpreter > 0 {
        h.raw("<p class=\"error\">")
            .num(r.refused_by_interpreter)
            .raw(" schedules the transform accepted failed the interpreter and are left out (a transform bug: please report it).</p>");
    }
    h.finish()
}

/// `ratio` of a schedule's steady state over the bound, as the table says it.
fn against_bound(s: &Scored) -> String {
    match s.bound_ratio {
        _ if s.at_bound => "at the bound (optimal)".into(),
        // An average over a body too short for its steady state, not a steady state.
        Some(r) if r < 1.0 => "no steady state (too few iterations)".into(),
        Some(r) => format!("{}× the bound", fixed(r, 2)),
        None => "—".into(),
    }
}

/// The front as a scatter plot: shared bytes across, total cycles up, each point the front's
/// `k`-th schedule (`data-k`), the loop's own schedule a ring, the budget a dashed line.
pub fn scatter_svg(r: &SearchReport, width: f64, selected: Option<usize>) -> String {
    let (w, hgt) = (width.clamp(260.0, 640.0), 220.0);
    let (left, right, top, bottom) = (64.0, 16.0, 12.0, 38.0);
    let points = r.front.iter().chain(r.own.as_ref());
    let max_bytes = points
        .clone()
        .map(|s| s.smem_bytes)
        .max()
        .unwrap_or(0)
        .max(1);
    let max_cycles = points.map(|s| s.total_cycles).max().unwrap_or(0).max(1);
    let (xmax, ymax) = (max_bytes as f64 * 1.1, max_cycles as f64 * 1.1);
    let x = |b: u64| left + (b as f64 / xmax) * (w - left - right);
    let y = |c: u64| top + (1.0 - c as f64 / ymax) * (hgt - top - bottom);
    let mut h = Html::default();
    h.raw("<svg id=\"search-scatter\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"")
        .text(&fixed(w, 0))
        .raw("\" height=\"")
        .text(&fixed(hgt, 0))
        .raw("\" font-family=\"monospace\" font-size=\"11\"><title>The front: total cycles against shared bytes</title>");
    // Axes from 0, with their ends labelled.
    let (x0, y0) = (fixed(left, 1), fixed(hgt - bottom, 1));
    h.raw("<g class=\"axis\" stroke=\"#999\"><line x1=\"")
        .raw(&x0)
        .raw("\" y1=\"")
        .raw(&y0)
        .raw("\" x2=\"")
        .text(&fixed(w - right, 1))
        .raw("\" y2=\"")
        .raw(&y0)
        .raw("\"/><line x1=\"")
        .raw(&x0)
        .raw("\" y1=\"")
        .text(&fixed(top, 1))
        .raw("\" x2=\"")
        .raw(&x0)
        .raw("\" y2=\"")
        .raw(&y0)
        .raw("\"/></g><g fill=\"#555\">");
    let label = |h: &mut Html, x: f64, y: f64, anchor: &str, text: &str| {
        h.raw("<text x=\"")
            .text(&fixed(x, 1))
            .raw("\" y=\"")
            .text(&fixed(y, 1))
            .raw("\" text-anchor=\"")
            .raw(anchor)
            .raw("\">")
            .text(text)
            .raw("</text>");
    };
    label(&mut h, left, hgt - bottom + 14.0, "middle", "0");
    label(
        &mut h,
        x(max_bytes),
        hgt - bottom + 14.0,
        "middle",
        &bytes(max_bytes),
    );
    label(
        &mut h,
        (left + w - right) / 2.0,
        hgt - 6.0,
        "middle",
        "shared memory",
    );
    label(
        &mut h,
        left - 4.0,
        y(max_cycles) + 4.0,
        "end",
        max_cycles.to_string().as_str(),
    );
    label(&mut h, left - 4.0, hgt - bottom, "end", "0");
    label(&mut h, 4.0, top + 2.0, "start", "cycles");
    h.raw("</g>");
    if r.budget_bytes as f64 <= xmax {
        let bx = fixed(x(r.budget_bytes), 1);
        h.raw("<line class=\"budget\" stroke=\"#c33\" stroke-dasharray=\"4 3\" x1=\"")
            .raw(&bx)
            .raw("\" x2=\"")
            .raw(&bx)
            .raw("\" y1=\"")
            .text(&fixed(top, 1))
            .raw("\" y2=\"")
            .raw(&y0)
            .raw("\"/>");
    }
    // The front as a staircase: each point covers what is above and to its right.
    let mut by_bytes: Vec<&Scored> = r.front.iter().collect();
    by_bytes.sort_by_key(|s| (s.smem_bytes, s.total_cycles));
    if !by_bytes.is_empty() {
        h.raw("<polyline class=\"front-line\" fill=\"none\" stroke=\"#7a9\" points=\"");
        for (k, s) in by_bytes.iter().enumerate() {
            if let Some(prev) = k.checked_sub(1).and_then(|p| by_bytes.get(p)) {
                h.text(&fixed(x(s.smem_bytes), 1))
                    .raw(",")
                    .text(&fixed(y(prev.total_cycles), 1))
                    .raw(" ");
            }
            h.text(&fixed(x(s.smem_bytes), 1))
                .raw(",")
                .text(&fixed(y(s.total_cycles), 1))
                .raw(" ");
        }
        h.raw("\"/>");
    }
    if let Some(own) = &r.own {
        h.raw("<g class=\"own-point\"><circle cx=\"")
            .text(&fixed(x(own.smem_bytes), 1))
            .raw("\" cy=\"")
            .text(&fixed(y(own.total_cycles), 1))
            .raw("\" r=\"9\" fill=\"none\" stroke=\"#333\" stroke-width=\"2\"><title>the loop's own schedule: ")
            .num(own.total_cycles)
            .raw(" cycles, ")
            .text(&bytes(own.smem_bytes))
            .raw("</title></circle>");
        label(
            &mut h,
            x(own.smem_bytes) + 12.0,
            y(own.total_cycles) - 8.0,
            "start",
            "current",
        );
        h.raw("</g>");
    }
    for (k, s) in r.front.iter().enumerate() {
        h.raw("<circle class=\"front-point")
            .raw(if selected == Some(k) { " selected" } else { "" })
            .raw("\" data-k=\"")
            .num(k)
            .raw("\" cx=\"")
            .text(&fixed(x(s.smem_bytes), 1))
            .raw("\" cy=\"")
            .text(&fixed(y(s.total_cycles), 1))
            .raw("\" r=\"5\"><title>#")
            .num(k + 1)
            .raw(": ")
            .num(s.total_cycles)
            .raw(" cycles, ")
            .text(&bytes(s.smem_bytes))
            .raw(", ")
            .text(&s.annotations.describe())
            .raw("</title></circle>");
    }
    h.raw("</svg>");
    h.finish()
}

/// One row of the table: `key` is the front's index (`None`: the loop's own schedule).
/// The row focusable by Tab (`tab_stop`) is the selected one, else the first.
fn row(
    h: &mut Html,
    key: Option<usize>,
    s: &Scored,
    applicable: bool,
    selected: bool,
    tab_stop: bool,
) {
    match key {
        Some(k) => {
            h.raw("<tr class=\"front-row")
                .raw(if selected { " selected" } else { "" })
                .raw("\" id=\"front-row-")
                .num(k)
                .raw("\" tabindex=\"")
                .raw(if tab_stop { "0" } else { "-1" })
                .raw("\" data-k=\"")
                .num(k)
                .raw("\"><td>")
                .num(k + 1)
                .raw("</td>");
        }
        None => {
            h.raw("<tr class=\"own-row\"><td>current</td>");
        }
    }
    h.raw("<td>")
        .num(s.total_cycles)
        .raw("</td><td>")
        .text(&fixed(s.speedup, 2))
        .raw("×</td><td>")
        .text(&bytes(s.smem_bytes))
        .raw("</td><td>")
        .text(&against_bound(s))
        .raw("</td><td><code>")
        .text(&list(&s.annotations.stages))
        .raw("</code></td><td><code>")
        .text(&list(&s.annotations.orders))
        .raw("</code></td><td><code>")
        .text(&list(&s.annotations.async_stages))
        .raw("</code></td><td>");
    if let Some(k) = key {
        h.raw("<button class=\"apply\" data-apply=\"")
            .num(k)
            .raw("\"")
            .raw(if applicable { "" } else { " disabled" })
            .raw(">Apply</button>");
    }
    h.raw("</td></tr>");
}

/// The front as a table, fastest first, the loop's own schedule above it; a row is focusable
/// (the arrows move along them: `dom::rove`) and says its schedule; Apply writes it into the text
/// (`applicable`: the text is still the one searched).
pub fn table_html(r: &SearchReport, applicable: bool, selected: Option<usize>) -> String {
    let mut h = Html::default();
    h.raw("<table id=\"search-front\" class=\"search-front\"><thead><tr><th>#</th><th>cycles</th><th>speedup</th><th>shared memory</th><th>II vs bound</th><th>stages</th><th>order</th><th>async stages</th><th></th></tr></thead><tbody>");
    if let Some(own) = &r.own {
        row(&mut h, None, own, false, false, false);
    }
    let tab_stop = selected.filter(|k| *k < r.front.len()).unwrap_or(0);
    for (k, s) in r.front.iter().enumerate() {
        row(
            &mut h,
            Some(k),
            s,
            applicable,
            selected == Some(k),
            k == tab_stop,
        );
    }
    h.raw("</tbody></table>");
    if r.front.is_empty() {
        h.raw("<p class=\"hint\">")
            .raw(if r.stop.is_some() {
                "No schedule within the budget was found."
            } else {
                "No schedule found yet."
            })
            .raw("</p>");
    }
    h.finish()
}

/// The schedule an exploration has, as one line.
pub fn schedule_line(ex: &Exploration) -> String {
    match &ex.pipeline {
        Some(p) => {
            let stages: Vec<i64> = p.units.iter().map(|u| u.stage).collect();
            let orders: Vec<i64> = p.units.iter().map(|u| u.order).collect();
            format!(
                "stages {} · order {} · async {}",
                list(&stages),
                list(&orders),
                list(&p.async_stages)
            )
        }
        None => "no pipelined loop".into(),
    }
}

/// The printed program of `ex` in the form shown.
pub fn program_text(ex: &Exploration, peeled: bool) -> &str {
    let printed = if peeled { &ex.peeled } else { &ex.rolled };
    printed
        .as_ref()
        .or(ex.rolled.as_ref())
        .map_or("", |p| p.text.as_str())
}

/// A schedule explored aside: its metrics, its timeline and its program.
pub fn preview_html(ex: &Exploration, peeled: bool, width: f64) -> String {
    let mut h = Html::default();
    h.raw("<div class=\"search-preview\" id=\"search-preview\"><h3>")
        .text(&schedule_line(ex))
        .raw("</h3>");
    if let Some(d) = ex.diagnostics.iter().find(|d| d.is_error()) {
        h.raw("<p class=\"error\">").prose(&d.message).raw("</p>");
    }
    if let Some(t) = &ex.timeline {
        let m = &t.metrics;
        h.raw("<p>")
            .num(m.total_cycles)
            .raw(" cycles, ")
            .text(&fixed(m.speedup, 2))
            .raw("× over the loop unpipelined, ")
            .num(m.stall_cycles)
            .raw(" stall cycles</p>");
        h.raw(&stagecraft::gantt::compare_svg(
            &[("this", t)],
            &ex.statement_texts(),
            width,
        ));
        if let Some(c) = t.coverage() {
            h.raw("<p class=\"hint\">").prose(&c).raw("</p>");
        }
    }
    h.raw("<pre class=\"search-program\">")
        .text(program_text(ex, peeled))
        .raw("</pre></div>");
    h.finish()
}

/// One metric of the comparison: its name and each side's value, as numbers to subtract.
fn delta_row(h: &mut Html, name: &str, pinned: Option<f64>, current: Option<f64>, decimals: u32) {
    let show = |v: Option<f64>| v.map_or("—".to_string(), |v| fixed(v, decimals));
    h.raw("<tr><td>")
        .text(name)
        .raw("</td><td>")
        .text(&show(pinned))
        .raw("</td><td>")
        .text(&show(current))
        .raw("</td><td class=\"delta\">");
    if let (Some(p), Some(c)) = (pinned, current) {
        let d = c - p;
        h.text(&format!(
            "{}{}",
            if d > 0.0 { "+" } else { "" },
            fixed(d, decimals)
        ));
        if p != 0.0 {
            h.raw(" (")
                .text(&format!(
                    "{}{}",
                    if d > 0.0 { "+" } else { "" },
                    fixed(d / p * 100.0, 1)
                ))
                .raw("%)");
        }
    }
    h.raw("</td></tr>");
}

/// The pinned schedule beside the current one: each side's schedule, the metrics with their
/// differences, both timelines on one axis, and the printed programs' lines that differ.
pub fn compare_html(
    pinned: (&Exploration, &Timeline),
    current: (&Exploration, &Timeline),
    peeled: bool,
    width: f64,
) -> String {
    let mut h = compare_metrics_html(pinned, current, "compare-metrics");
    h.push_str(&compare_timelines_html(pinned, current, width));
    h.push_str(&diff_html(
        program_text(pinned.0, peeled),
        program_text(current.0, peeled),
    ));
    h
}

/// Both timelines on one cycle axis (core's `gantt::compare_svg`), and what each covers when a
/// limit cut it short.
pub fn compare_timelines_html(
    pinned: (&Exploration, &Timeline),
    current: (&Exploration, &Timeline),
    width: f64,
) -> String {
    let (pt, ct) = (pinned.1, current.1);
    let mut h = Html::default();
    h.raw(&stagecraft::gantt::compare_svg(
        &[("pinned", pt), ("current", ct)],
        &current.0.statement_texts(),
        width,
    ));
    for (name, t) in [("pinned", pt), ("current", ct)] {
        if let Some(c) = t.coverage() {
            h.raw("<p class=\"hint\">")
                .text(name)
                .raw(": ")
                .prose(&c)
                .raw("</p>");
        }
    }
    h.finish()
}

/// Each side's schedule and the metrics with their differences (current − pinned), as a table
/// of id `id`.
pub fn compare_metrics_html(
    pinned: (&Exploration, &Timeline),
    current: (&Exploration, &Timeline),
    id: &str,
) -> String {
    let (pe, pt) = pinned;
    let (ce, ct) = current;
    let mut h = Html::default();
    h.raw("<table class=\"compare-metrics\" id=\"")
        .text(id)
        .raw("\"><thead><tr><th></th><th>pinned</th><th>current</th><th>current − pinned</th></tr></thead><tbody>");
    h.raw("<tr><td>schedule</td><td><code>")
        .text(&schedule_line(pe))
        .raw("</code></td><td><code>")
        .text(&schedule_line(ce))
        .raw("</code></td><td></td></tr>");
    let (pm, cm) = (&pt.metrics, &ct.metrics);
    delta_row(
        &mut h,
        "total cycles",
        Some(pm.total_cycles as f64),
        Some(cm.total_cycles as f64),
        0,
    );
    delta_row(
        &mut h,
        "steady cycles / iteration",
        pm.steady_cycles_per_iteration,
        cm.steady_cycles_per_iteration,
        1,
    );
    delta_row(&mut h, "speedup", Some(pm.speedup), Some(cm.speedup), 2);
    delta_row(
        &mut h,
        "stall cycles",
        Some(pm.stall_cycles as f64),
        Some(cm.stall_cycles as f64),
        0,
    );
    let mut scopes: Vec<&String> = pm.ring_bytes.keys().chain(cm.ring_bytes.keys()).collect();
    scopes.sort();
    scopes.dedup();
    for scope in scopes {
        let bytes = |m: &stagecraft::timeline::Metrics| m.ring_bytes.get(scope).map(|b| *b as f64);
        delta_row(
            &mut h,
            &format!("ring buffers, {scope} (bytes)"),
            bytes(pm),
            bytes(cm),
            0,
        );
    }
    delta_row(
        &mut h,
        "waits",
        Some(pe.waits.len() as f64),
        Some(ce.waits.len() as f64),
        0,
    );
    h.raw("</tbody></table>");
    h.finish()
}

/// Lines of either program beyond which the diff is not drawn (its table is quadratic).
const MAX_DIFF_LINES: usize = 600;

/// The two programs' lines as a unified diff: a longest common subsequence of lines, the pinned
/// program's other lines marked `−`, the current one's `+`.
pub fn diff_html(pinned: &str, current: &str) -> String {
    let a: Vec<&str> = pinned.lines().collect();
    let b: Vec<&str> = current.lines().collect();
    let mut h = Html::default();
    h.raw("<details class=\"program-diff\" open><summary>Pipelined program: pinned → current</summary>");
    if a.len() > MAX_DIFF_LINES || b.len() > MAX_DIFF_LINES {
        h.raw("<p class=\"hint\">The programs are too long to compare line by line here (over ")
            .num(MAX_DIFF_LINES)
            .raw(" lines).</p></details>");
        return h.finish();
    }
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let width = b.len() + 1;
    let mut lcs = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            let v = if a.get(i) == b.get(j) {
                lcs.get((i + 1) * width + j + 1).copied().unwrap_or(0) + 1
            } else {
                let down = lcs.get((i + 1) * width + j).copied().unwrap_or(0);
                let right = lcs.get(i * width + j + 1).copied().unwrap_or(0);
                down.max(right)
            };
            if let Some(cell) = lcs.get_mut(i * width + j) {
                *cell = v;
            }
        }
    }
    let at = |i: usize, j: usize| lcs.get(i * width + j).copied().unwrap_or(0);
    h.raw("<pre class=\"diff\">");
    let line = |h: &mut Html, class: &str, mark: &str, text: &str| {
        h.raw("<span class=\"")
            .raw(class)
            .raw("\">")
            .raw(mark)
            .text(text)
            .raw("\n</span>");
    };
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                line(&mut h, "same", "  ", x);
                i += 1;
                j += 1;
            }
            (Some(x), Some(_)) if at(i + 1, j) >= at(i, j + 1) => {
                line(&mut h, "removed", "− ", x);
                i += 1;
            }
            (Some(x), None) => {
                line(&mut h, "removed", "− ", x);
                i += 1;
            }
            (_, Some(y)) => {
                line(&mut h, "added", "+ ", y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    h.raw("</pre></details>");
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_marks_the_lines_either_side_lacks() {
        let out = diff_html("a\nb\nc\n", "a\nc\nd\n");
        assert!(out.contains("<span class=\"same\">  a"));
        assert!(out.contains("<span class=\"removed\">− b"));
        assert!(out.contains("<span class=\"same\">  c"));
        assert!(out.contains("<span class=\"added\">+ d"));
        assert_eq!(out.matches("class=\"same\"").count(), 2);
    }

    #[test]
    fn bytes_are_said_in_bytes_then_kilobytes() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 * 1024 + 512), "3.5 KB");
    }
}
