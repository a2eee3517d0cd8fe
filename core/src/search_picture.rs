//! The Search pane as the page shows it, drawn by the worker: the search's progress, its front as
//! a scatter plot (shared bytes across, cycles up, the loop's own schedule marked) and as a table
//! (`SearchView`), a schedule explored aside with its program and timeline (`preview_html`), and
//! the pinned schedule beside the current one (`Comparison`: the metrics' differences, both
//! timelines on one cycle axis, the programs' lines that differ). The page puts the markup in place
//! and handles the clicks; it decodes neither the search's report nor the explorations compared.
//! Nothing here computes a cost: every number is one of the reports'.

use crate::annotation_text::list;
use crate::annotation_text::Annotations;
use crate::explore::Exploration;
use crate::gantt::fixed;
use crate::html::Html;
use crate::search::{Scored, SearchReport, StopReason, Strategy};
use crate::timeline::{Metrics, Timeline};
use serde::{Deserialize, Serialize};

/// A search's answer as the page shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchView {
    /// Why it stopped, on its last answer.
    pub stop: Option<StopReason>,
    /// Schedules tried so far.
    pub tried: u64,
    /// The variable of the loop searched, and the front's schedules in the table's order: what
    /// Apply writes into the text's annotation lines (`data-apply` is an index into `front`).
    pub loop_var: String,
    pub front: Vec<Annotations>,
    /// The bar, the counts and how it ended; the loop, its bound and the budget.
    pub progress: String,
    /// The front as a scatter plot (`svg#search-scatter`, each point `circle.front-point` with its
    /// index in `data-k`).
    pub scatter: String,
    /// The front as a table (`table#search-front`, each row `tr.front-row` with `data-k`, the
    /// first the tab stop, Apply buttons enabled).
    pub table: String,
}

impl SearchView {
    /// `r` drawn: `elapsed_ms` since the search was asked for, the scatter plot `scatter_px` wide
    /// (kept within 260–640).
    pub fn of(r: &SearchReport, elapsed_ms: f64, scatter_px: f64) -> SearchView {
        SearchView {
            stop: r.stop.clone(),
            tried: r.tried,
            loop_var: r.loop_var.clone(),
            front: r.front.iter().map(|s| s.annotations.clone()).collect(),
            progress: progress_html(r, elapsed_ms),
            scatter: scatter_svg(r, scatter_px),
            table: table_html(r),
        }
    }
}

/// `bytes` as the table says them: bytes below a kilobyte, else KB with one decimal.
pub fn bytes(n: u64) -> String {
    if n < 1024 {
        format!("{n} B")
    } else {
        format!("{} KB", fixed(n as f64 / 1024.0, 1))
    }
}

/// Where the search is: a bar (stage vectors walked, for an exhaustive search; moving without a
/// value for a local one while it runs), the counts, and how it ended.
fn progress_html(r: &SearchReport, elapsed_ms: f64) -> String {
    let mut h = Html::default();
    h.raw("<div class=\"search-progress\"><progress id=\"search-progress\" aria-label=\"Search progress\"");
    match (r.progress, &r.stop) {
        (Some((walked, total)), _) => {
            h.raw(" max=\"")
                .num(total.max(1))
                .raw("\" value=\"")
                .num(walked)
                .raw("\"");
        }
        (None, Some(_)) => {
            h.raw(" max=\"1\" value=\"1\"");
        }
        (None, None) => {}
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

/// A schedule's steady state over the bound, as the table says it.
fn against_bound(s: &Scored) -> String {
    match s.bound_ratio {
        _ if s.at_bound => "at the bound (optimal)".into(),
        // An average over a body too short for its steady state, not a steady state.
        Some(r) if r < 1.0 => "no steady state (too few iterations)".into(),
        Some(r) => format!("{}× the bound", fixed(r, 2)),
        None => "—".into(),
    }
}

/// `<text>` at (`x`, `y`), anchored at `anchor`.
fn label(h: &mut Html, x: f64, y: f64, anchor: &str, text: &str) {
    h.raw("<text x=\"")
        .text(&fixed(x, 1))
        .raw("\" y=\"")
        .text(&fixed(y, 1))
        .raw("\" text-anchor=\"")
        .raw(anchor)
        .raw("\">")
        .text(text)
        .raw("</text>");
}

/// The front as a scatter plot: shared bytes across, total cycles up, each point the front's
/// `k`-th schedule (`data-k`), the loop's own schedule a ring, the budget a dashed line.
fn scatter_svg(r: &SearchReport, width: f64) -> String {
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
    let under = hgt - bottom + 14.0;
    label(&mut h, left, under, "middle", "0");
    label(&mut h, x(max_bytes), under, "middle", &bytes(max_bytes));
    label(
        &mut h,
        (left + w - right) / 2.0,
        hgt - 6.0,
        "middle",
        "shared memory",
    );
    let cycles = max_cycles.to_string();
    label(&mut h, left - 4.0, y(max_cycles) + 4.0, "end", &cycles);
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
        let mut previous: Option<&Scored> = None;
        for s in &by_bytes {
            if let Some(prev) = previous {
                h.text(&fixed(x(s.smem_bytes), 1))
                    .raw(",")
                    .text(&fixed(y(prev.total_cycles), 1))
                    .raw(" ");
            }
            h.text(&fixed(x(s.smem_bytes), 1))
                .raw(",")
                .text(&fixed(y(s.total_cycles), 1))
                .raw(" ");
            previous = Some(s);
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
        h.raw("<circle class=\"front-point\" data-k=\"")
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

/// One row of the table: `key` is the front's index (`None`: the loop's own schedule). The
/// front's first row is the table's tab stop until the page moves it to the row selected.
fn row(h: &mut Html, key: Option<usize>, s: &Scored) {
    match key {
        Some(k) => {
            h.raw("<tr class=\"front-row\" id=\"front-row-")
                .num(k)
                .raw("\" tabindex=\"")
                .raw(if k == 0 { "0" } else { "-1" })
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
            .raw("\">Apply</button>");
    }
    h.raw("</td></tr>");
}

/// The front as a table, fastest first, the loop's own schedule above it; a row is focusable
/// (the page's arrows move along them) and says its schedule; Apply writes it into the text.
fn table_html(r: &SearchReport) -> String {
    let mut h = Html::default();
    h.raw("<table id=\"search-front\" class=\"search-front\"><thead><tr><th>#</th><th>cycles</th><th>speedup</th><th>shared memory</th><th>II vs bound</th><th>stages</th><th>order</th><th>async stages</th><th></th></tr></thead><tbody>");
    if let Some(own) = &r.own {
        row(&mut h, None, own);
    }
    for (k, s) in r.front.iter().enumerate() {
        row(&mut h, Some(k), s);
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
fn schedule_line(ex: &Exploration) -> String {
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

/// The printed program of `ex` in the form it was explored in.
fn program_text(ex: &Exploration) -> &str {
    let peeled = ex.programs.as_ref().map(|p| p.form) == Some(crate::pipelined::Form::Peeled);
    let printed = if peeled { &ex.peeled } else { &ex.rolled };
    printed
        .as_ref()
        .or(ex.rolled.as_ref())
        .map_or("", |p| p.text.as_str())
}

/// A schedule explored aside (with its timeline): its metrics, its timeline `width` pixels wide
/// and its program.
pub fn preview_html(ex: &Exploration, width: f64) -> String {
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
            .text(&crate::gantt::ratio(m.speedup))
            .raw(" over the loop unpipelined, ")
            .num(m.stall_cycles)
            .raw(" stall cycles</p>");
        h.raw(&crate::gantt::compare_svg(
            &[("this", t)],
            &ex.statement_texts(),
            width,
        ));
        if let Some(c) = t.coverage() {
            h.raw("<p class=\"hint\">").prose(&c).raw("</p>");
        }
    }
    h.raw("<pre class=\"search-program\">")
        .text(program_text(ex))
        .raw("</pre></div>");
    h.finish()
}

/// The pinned schedule beside the current one, as the page shows it: in the Search pane all
/// three parts, in the Timeline pane the metrics and the timelines, in the Program pane the diff.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Each side's schedule and the metrics with their differences (current − pinned): a
    /// `table.compare-metrics`, whose id the page's wrapper gives. When the pinned text has no
    /// timeline, the error saying why, and the other two parts empty.
    pub metrics: String,
    /// Both timelines on one cycle axis, and what each covers when a limit cut it short.
    pub timelines: String,
    /// The printed programs' lines that differ (`details.program-diff`).
    pub diff: String,
}

impl Comparison {
    /// `pinned` (explored aside with its timeline) beside `current` (the exploration shown, whose
    /// timeline is `current_timeline`), the timelines `width` pixels wide.
    pub fn of(
        pinned: &Exploration,
        current: &Exploration,
        current_timeline: &Timeline,
        width: f64,
    ) -> Comparison {
        let Some(pinned_timeline) = pinned.timeline.as_ref() else {
            let mut h = Html::default();
            h.raw("<p class=\"error\">The pinned text has no timeline");
            if let Some(d) = pinned.diagnostics.iter().find(|d| d.is_error()) {
                h.raw(": ").prose(&d.message);
            }
            h.raw("</p>");
            return Comparison {
                metrics: h.finish(),
                ..Comparison::default()
            };
        };
        let sides = [("pinned", pinned_timeline), ("current", current_timeline)];
        let mut timelines = Html::default();
        timelines.raw(&crate::gantt::compare_svg(
            &sides,
            &current.statement_texts(),
            width,
        ));
        for (name, t) in sides {
            if let Some(c) = t.coverage() {
                timelines
                    .raw("<p class=\"hint\">")
                    .text(name)
                    .raw(": ")
                    .prose(&c)
                    .raw("</p>");
            }
        }
        Comparison {
            metrics: metrics_html(
                (pinned, &pinned_timeline.metrics),
                (current, &current_timeline.metrics),
            ),
            timelines: timelines.finish(),
            diff: diff_html(program_text(pinned), program_text(current)),
        }
    }
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
        let sign = if d > 0.0 { "+" } else { "" };
        h.raw(sign).text(&fixed(d, decimals));
        if p != 0.0 {
            h.raw(" (")
                .raw(sign)
                .text(&fixed(d / p * 100.0, 1))
                .raw("%)");
        }
    }
    h.raw("</td></tr>");
}

/// Each side's schedule and the metrics with their differences (current − pinned).
fn metrics_html(pinned: (&Exploration, &Metrics), current: (&Exploration, &Metrics)) -> String {
    let ((pe, pm), (ce, cm)) = (pinned, current);
    let mut h = Html::default();
    h.raw("<table class=\"compare-metrics\"><thead><tr><th></th><th>pinned</th><th>current</th><th>current − pinned</th></tr></thead><tbody>");
    h.raw("<tr><td>schedule</td><td><code>")
        .text(&schedule_line(pe))
        .raw("</code></td><td><code>")
        .text(&schedule_line(ce))
        .raw("</code></td><td></td></tr>");
    let both = |f: fn(&Metrics) -> f64| (Some(f(pm)), Some(f(cm)));
    let (p, c) = both(|m| m.total_cycles as f64);
    delta_row(&mut h, "total cycles", p, c, 0);
    delta_row(
        &mut h,
        "steady cycles / iteration",
        pm.steady_cycles_per_iteration,
        cm.steady_cycles_per_iteration,
        1,
    );
    delta_row(&mut h, "speedup", pm.speedup, cm.speedup, 2);
    let (p, c) = both(|m| m.stall_cycles as f64);
    delta_row(&mut h, "stall cycles", p, c, 0);
    let mut scopes: Vec<&String> = pm.ring_bytes.keys().chain(cm.ring_bytes.keys()).collect();
    scopes.sort();
    scopes.dedup();
    for scope in scopes {
        let bytes = |m: &Metrics| m.ring_bytes.get(scope).map(|b| *b as f64);
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
fn diff_html(pinned: &str, current: &str) -> String {
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
    fn the_diff_marks_the_lines_either_side_lacks_and_escapes_them() {
        let out = diff_html("a\nb < c\nc\n", "a\nc\nd\n");
        assert!(out.contains("<span class=\"same\">  a"));
        assert!(out.contains("<span class=\"removed\">− b &lt; c"));
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
