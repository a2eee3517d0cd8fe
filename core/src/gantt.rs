//! The timeline drawn: the Gantt chart as SVG — what the Timeline pane shows and exports, and what
//! `stagecraft timeline --svg` writes, one function for both — and as text for a terminal.

use crate::timeline::{Lane, Timeline};
use std::fmt::Write;

const ROW: f64 = 28.0;
const LABEL_W: f64 = 90.0;
/// A bar at least this wide carries its iteration's number.
const LABELLED_BAR_PX: f64 = 16.0;
/// The width of a digit of the chart's 11 px monospace font.
const DIGIT_PX: f64 = 6.7;

/// An instance to mark in the chart: its step, and its span in cycles on a lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    pub step: u64,
    pub lane: Lane,
    pub start: u64,
    pub end: u64,
}

/// The hue a statement is drawn in, everywhere it is drawn.
pub fn hue(stmt: u32) -> u32 {
    ((stmt % 10) * 36 + 200) % 360
}

/// `x` with `decimals` digits after the point, without the float formatting machinery (which alone
/// costs kilobytes of the app's bundle).
pub fn fixed(x: f64, decimals: u32) -> String {
    let scale = 10i64.pow(decimals);
    let n = (x * scale as f64).round() as i64;
    let sign = if n < 0 { "-" } else { "" };
    let (whole, frac) = (n.abs() / scale, n.abs() % scale);
    if decimals == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{frac:0width$}", width = decimals as usize)
    }
}

/// Sub-rows of a lane: one per group in flight together on a queue's lane.
fn rows(t: &Timeline, lane: &Lane) -> u32 {
    match lane {
        Lane::Compute => 1,
        Lane::Queue(q) => t.queue_rows.get(q).copied().unwrap_or(1).max(1),
    }
}

/// Cycles between two ticks of the axis: 1, 2 or 5 × a power of ten, at least `min_px` apart
/// at `scale` pixels per cycle.
fn tick_step(scale: f64, min_px: f64) -> u64 {
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            let s = step.saturating_mul(m);
            if s as f64 * scale >= min_px || s == u64::MAX {
                return s;
            }
        }
        step = step.saturating_mul(10);
    }
}

/// A monospace character of the chart's 11 px font, in pixels (for laying out the legend).
const CHAR_PX: f64 = 6.7;

/// How the chart names statement `stmt`: its text (`names`, by statement id), on one line and
/// cut short, else its number.
fn statement_name(names: &[&str], stmt: u32) -> String {
    let text = names
        .get(stmt as usize)
        .map_or("", |t| t.lines().next().unwrap_or("").trim());
    if text.is_empty() {
        return format!("statement {stmt}");
    }
    let cut = text.char_indices().nth(40).map_or(text.len(), |(i, _)| i);
    let mut name = text.get(..cut).unwrap_or(text).to_string();
    if cut < text.len() {
        name.push('…');
    }
    name
}

/// `s` with XML's markup characters escaped.
/// A lane as its label and the bars' titles name it.
fn lane_name(lane: &Lane) -> String {
    match lane {
        Lane::Compute => "compute".to_string(),
        Lane::Queue(q) => format!("queue {q}"),
    }
}

fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// The cycle axis under the lanes (at `y`, from `label_w`): a tick and its cycle every
/// `tick_step`.
fn axis(h: &mut String, end: u64, scale: f64, y: f64, label_w: f64) {
    let step = tick_step(scale, 70.0);
    let _ = write!(
        h,
        "<g class=\"axis\" fill=\"#666\"><line x1=\"{}\" x2=\"{}\" y1=\"{y0}\" y2=\"{y0}\" stroke=\"#999\"/>",
        fixed(label_w, 1),
        fixed(label_w + end as f64 * scale, 1),
        y0 = fixed(y, 0)
    );
    let _ = write!(
        h,
        "<text x=\"4\" y=\"{}\">cycles</text>",
        fixed(y + 13.0, 0)
    );
    let mut cycle = 0;
    while cycle <= end {
        let x = fixed(label_w + cycle as f64 * scale, 1);
        let _ = write!(
            h,
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#999\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{cycle}</text>",
            fixed(y, 0),
            fixed(y + 4.0, 0),
            fixed(y + 14.0, 0)
        );
        cycle = match cycle.checked_add(step) {
            Some(c) => c,
            None => break,
        };
    }
    h.push_str("</g>");
}

/// The legend from `top`, wrapped at `width` pixels: each statement drawn with its colour and
/// text, what a stall, a sub-row and a bar's number are. Returns its height.
fn legend(h: &mut String, t: &Timeline, names: &[&str], width: f64, top: f64) -> f64 {
    legend_of(h, &[t], names, width, top)
}

/// The legend of the timelines `ts` drawn together (`legend`).
fn legend_of(h: &mut String, ts: &[&Timeline], names: &[&str], width: f64, top: f64) -> f64 {
    let mut stmts: Vec<u32> = ts
        .iter()
        .flat_map(|t| t.spans.iter().map(|s| s.stmt))
        .collect();
    stmts.sort_unstable();
    stmts.dedup();
    // (statement, paint, text); a statement's item highlights it as its bars do.
    let mut items: Vec<(Option<u32>, String, String)> = stmts
        .iter()
        .map(|&s| {
            (
                Some(s),
                format!("fill=\"hsl({},60%,62%)\"", hue(s)),
                statement_name(names, s),
            )
        })
        .collect();
    if ts.iter().any(|t| !t.stalls.is_empty()) {
        items.push((
            None,
            "fill=\"#e5484d\" opacity=\"0.35\"".to_string(),
            "stall: the compute lane waits for a group".to_string(),
        ));
    }
    let mut notes = vec!["the number on a bar is its iteration"];
    if ts.iter().any(|t| t.queue_rows.values().any(|&r| r > 1)) {
        notes.push("a queue's lane has a row per group in flight at once");
    }
    let _ = write!(h, "<g class=\"legend\">");
    let (mut x, mut y) = (4.0, top + 12.0);
    let line = 16.0;
    for (stmt, paint, text) in &items {
        let w = 16.0 + text.chars().count() as f64 * CHAR_PX + 14.0;
        if x > 4.0 && x + w > width {
            x = 4.0;
            y += line;
        }
        match stmt {
            Some(s) => {
                let _ = write!(h, "<g class=\"st{s}\" data-st=\"{s}\">");
            }
            None => h.push_str("<g>"),
        }
        let _ = write!(
            h,
            "<rect x=\"{}\" y=\"{}\" width=\"11\" height=\"11\" {paint} stroke=\"#333\" stroke-width=\"0.3\"/><text x=\"{}\" y=\"{}\">{}</text>",
            fixed(x, 1),
            fixed(y - 9.0, 0),
            fixed(x + 15.0, 1),
            fixed(y, 0),
            xml(text)
        );
        h.push_str("</g>");
        x += w;
    }
    for note in notes {
        let w = note.chars().count() as f64 * CHAR_PX + 14.0;
        if x > 4.0 && x + w > width {
            x = 4.0;
            y += line;
        }
        let _ = write!(
            h,
            "<text x=\"{}\" y=\"{}\" fill=\"#666\">{note}</text>",
            fixed(x, 1),
            fixed(y, 0)
        );
        x += w;
    }
    h.push_str("</g>");
    y - top + 6.0
}

/// The chart as SVG markup; `mark` is drawn when given. At zoom 10 the chart is `fit_px` wide.
/// Bars are named by their statement's text (`names`, by statement id); under the lanes, the
/// cycle axis and the legend (wrapped at `fit_px`, to be read without scrolling).
pub fn svg(t: &Timeline, names: &[&str], zoom: u32, fit_px: f64, mark: Option<&Mark>) -> String {
    let end = t
        .spans
        .iter()
        .map(|s| s.end)
        .chain(t.stalls.iter().map(|s| s.end))
        .max()
        .unwrap_or(0);
    // Each step of the zoom slider is 10% of the fitting scale.
    let lanes_px = (fit_px - LABEL_W - 20.0).max(200.0);
    let scale = lanes_px / (end.max(1) as f64) * f64::from(zoom) / 10.0;
    let x = |cycle: u64| fixed(LABEL_W + cycle as f64 * scale, 1);
    let w = |from: u64, to: u64| (to.saturating_sub(from) as f64 * scale).max(1.0);
    let width = LABEL_W + end as f64 * scale + 20.0;
    // Lanes stacked, each as tall as its sub-rows.
    let mut tops = Vec::with_capacity(t.lanes.len());
    let mut lanes_h = 0.0;
    for l in &t.lanes {
        tops.push(lanes_h);
        lanes_h += ROW * f64::from(rows(t, l));
    }
    let lane_y = |l: &Lane| {
        t.lanes
            .iter()
            .position(|x| x == l)
            .and_then(|k| tops.get(k).copied())
            .unwrap_or(0.0)
    };
    // Below the lanes: the axis, a band for the marker's label and the steps shown, the legend.
    let axis_y = lanes_h + 4.0;
    let steps_y = axis_y + 40.0;
    let mut legend_markup = String::new();
    let legend_h = legend(
        &mut legend_markup,
        t,
        names,
        fit_px.max(300.0),
        steps_y + 4.0,
    );
    let height = steps_y + 4.0 + legend_h;
    let mut h = String::with_capacity(200 * t.spans.len() + 1024);
    let _ = write!(
        h,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"monospace\" font-size=\"11\">",
        fixed(width.max(fit_px.max(300.0)), 0),
        fixed(height, 0)
    );
    for l in &t.lanes {
        let y = fixed(lane_y(l) + 18.0, 0);
        let _ = write!(h, "<text x=\"4\" y=\"{y}\">{}</text>", lane_name(l));
    }
    for st in &t.stalls {
        // The kernels' single sequence makes this wait complete more: said where it stalls.
        let also = t
            .sequence
            .iter()
            .find(|f| f.at(st.wait_index, st.step))
            .map_or(String::new(), |f| {
                format!("; on sm_80 and AMDGPU IR also {}", f.groups_text())
            });
        let _ = write!(
            h,
            "<rect class=\"stall wi{}\" x=\"{}\" y=\"2\" width=\"{}\" height=\"{}\" fill=\"#e5484d\" opacity=\"0.35\"><title>stall {} cycles ({}–{}): wait {} on queue {} for group {}{also}</title></rect>",
            st.wait_index,
            x(st.start),
            fixed(w(st.start, st.end), 1),
            fixed(ROW - 4.0, 0),
            st.end - st.start,
            st.start,
            st.end,
            st.wait.map_or("?".to_string(), |id| format!("#{id}")),
            st.queue,
            st.group
        );
    }
    bars(&mut h, t, names, &lane_y, scale);
    axis(&mut h, end, scale, axis_y, LABEL_W);
    if let Some(m) = mark {
        // A line through every lane at the instance, and a frame around it on its lane.
        let _ = write!(
            h,
            "<g id=\"focus-marker\"><line x1=\"{x0}\" x2=\"{x0}\" y1=\"0\" y2=\"{}\" stroke=\"#d93f3f\" stroke-width=\"2\" stroke-dasharray=\"4 2\"/><rect x=\"{x0}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#d93f3f\" stroke-width=\"2\"/><text x=\"{x0}\" y=\"{}\" fill=\"#d93f3f\">▲ step {}</text></g>",
            fixed(lanes_h + 4.0, 0),
            fixed(lane_y(&m.lane) + 2.0, 0),
            fixed(w(m.start, m.end), 1),
            fixed(ROW - 4.0, 0),
            fixed(axis_y + 27.0, 0),
            m.step,
            x0 = x(m.start),
        );
    }
    let _ = write!(
        h,
        "<text x=\"4\" y=\"{}\" fill=\"#666\">{}</text>",
        fixed(steps_y, 0),
        steps_caption(t)
    );
    h.push_str(&legend_markup);
    h.push_str("</svg>");
    h
}

/// The bars, in a group of their own (which the app writes in parts; the marker stays on top).
/// They are one tab stop in the app, moved through with the arrows; each is named by its title.
fn bars(h: &mut String, t: &Timeline, names: &[&str], lane_y: &dyn Fn(&Lane) -> f64, scale: f64) {
    h.push_str("<g id=\"bars\">");
    // The iteration numbers, after every bar so that no later bar covers one. On a lane's row,
    // a number is written once for bars of one iteration side by side (a group's element copies
    // issued a few cycles apart), and never over the number before it.
    let mut numbers = String::from("<g class=\"its\" pointer-events=\"none\" paint-order=\"stroke\" stroke=\"white\" stroke-width=\"2.5\" stroke-linejoin=\"round\">");
    let mut numbers_end: Vec<((Lane, u32), (i64, f64))> = Vec::new();
    for (k, sp) in t.spans.iter().enumerate() {
        let y = lane_y(&sp.lane) + f64::from(sp.row) * ROW;
        let bar_w = ((sp.end.saturating_sub(sp.start)) as f64 * scale).max(1.0);
        let lane = lane_name(&sp.lane);
        let _ = write!(
            h,
            "<rect role=\"img\" tabindex=\"{}\" class=\"span s{} st{}\" data-st=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"hsl({},60%,62%)\" stroke=\"#333\" stroke-width=\"0.3\"><title>{}, iteration {} ({}), step {}, on {lane}: cycles {}–{}</title></rect>",
            if k == 0 { "0" } else { "-1" },
            sp.stmt % 10,
            sp.stmt,
            sp.stmt,
            fixed(LABEL_W + sp.start as f64 * scale, 1),
            fixed(y + 4.0, 0),
            fixed(bar_w, 1),
            fixed(ROW - 8.0, 0),
            hue(sp.stmt),
            xml(&statement_name(names, sp.stmt)),
            sp.iteration.map_or("—".to_string(), |i| i.to_string()),
            sp.section.map_or("", |s| s.name()),
            sp.step,
            sp.start,
            sp.end
        );
        if let (Some(i), true) = (sp.iteration, bar_w >= LABELLED_BAR_PX) {
            let at = LABEL_W + sp.start as f64 * scale + 2.0;
            let row = (sp.lane, sp.row);
            let before = numbers_end.iter().find(|(r, _)| *r == row).map(|e| e.1);
            let free = before.is_none_or(|(it, end)| it != i && at >= end);
            if free {
                let _ = write!(
                    numbers,
                    "<text class=\"it\" x=\"{}\" y=\"{}\">{i}</text>",
                    fixed(at, 1),
                    fixed(y + 18.0, 0)
                );
                let end = at + DIGIT_PX * i.to_string().len() as f64 + 4.0;
                match numbers_end.iter_mut().find(|(r, _)| *r == row) {
                    Some(e) => e.1 = (i, end),
                    None => numbers_end.push((row, (i, end))),
                }
            }
        }
    }
    h.push_str("</g>");
    numbers.push_str("</g>");
    h.push_str(&numbers);
}

/// Timelines drawn on one cycle axis, `fit_px` wide: for each `(name, timeline)` of `charts`
/// in turn, its lanes (a queue's with a row per group in flight at once, so that no two groups
/// overlap), labelled with its name; under them the axis and one legend of both (statements by
/// their text, `names`). What the Search tab and the compare view of a pinned schedule draw.
pub fn compare_svg(charts: &[(&str, &Timeline)], names: &[&str], fit_px: f64) -> String {
    // Wide enough for "current · queue 0".
    const LABEL_W: f64 = 130.0;
    const ROW: f64 = 18.0;
    let end = charts
        .iter()
        .flat_map(|(_, t)| {
            t.spans
                .iter()
                .map(|s| s.end)
                .chain(t.stalls.iter().map(|s| s.end))
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let width = fit_px.max(360.0);
    let scale = (width - LABEL_W - 24.0) / end as f64;
    let x = |cycle: u64| fixed(LABEL_W + cycle as f64 * scale, 1);
    let w = |from: u64, to: u64| fixed((to.saturating_sub(from) as f64 * scale).max(1.0), 1);
    let mut body = String::with_capacity(
        160 * charts.iter().map(|(_, t)| t.spans.len()).sum::<usize>() + 1024,
    );
    let mut top = 0.0;
    for (name, t) in charts {
        let _ = write!(body, "<g class=\"timeline-of\" data-of=\"{}\">", xml(name));
        for lane in &t.lanes {
            let lane_name = lane_name(lane);
            let _ = write!(
                body,
                "<text x=\"4\" y=\"{}\">{} · {lane_name}</text>",
                fixed(top + 13.0, 1),
                xml(name)
            );
            if *lane == Lane::Compute {
                for st in &t.stalls {
                    let _ = write!(
                        body,
                        "<rect class=\"stall\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#e5484d\" opacity=\"0.35\"><title>{name}: stall {} cycles ({}–{})</title></rect>",
                        x(st.start),
                        fixed(top + 2.0, 1),
                        w(st.start, st.end),
                        fixed(ROW - 4.0, 0),
                        st.end - st.start,
                        st.start,
                        st.end,
                        name = xml(name)
                    );
                }
            }
            for sp in t.spans.iter().filter(|s| s.lane == *lane) {
                let _ = write!(
                    body,
                    "<rect class=\"st{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"hsl({},60%,62%)\" stroke=\"#333\" stroke-width=\"0.3\"><title>{}: {}, iteration {}, on {lane_name}: cycles {}–{}</title></rect>",
                    sp.stmt,
                    x(sp.start),
                    fixed(top + f64::from(sp.row) * ROW + 2.0, 1),
                    w(sp.start, sp.end),
                    fixed(ROW - 4.0, 0),
                    hue(sp.stmt),
                    xml(name),
                    xml(&statement_name(names, sp.stmt)),
                    sp.iteration.map_or("—".to_string(), |i| i.to_string()),
                    sp.start,
                    sp.end
                );
            }
            top += ROW * f64::from(rows(t, lane));
        }
        body.push_str("</g>");
        top += 8.0;
    }
    axis(&mut body, end, scale, top + 2.0, LABEL_W);
    let timelines: Vec<&Timeline> = charts.iter().map(|(_, t)| *t).collect();
    let legend_h = legend_of(&mut body, &timelines, names, width, top + 24.0);
    let mut h = String::with_capacity(body.len() + 200);
    let _ = write!(
        h,
        "<svg class=\"compare-timelines\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"monospace\" font-size=\"11\">",
        fixed(width, 0),
        fixed(top + 24.0 + legend_h, 0)
    );
    h.push_str(&body);
    h.push_str("</svg>");
    h
}

/// A speedup with two decimals and its "×", or "—" where the runs it divides did not all reach
/// the loop's end (`Metrics::speedup`).
pub fn ratio(speedup: Option<f64>) -> String {
    speedup.map_or_else(|| "—".to_string(), |s| format!("{}×", fixed(s, 2)))
}

/// Why a speedup is "—", said once under the metrics.
pub const NO_RATIO: &str = "A limit stopped the simulation before the loop's end: the runs cover different parts of it, so no speedup is given.";

/// The metrics, one per line, for a terminal.
pub fn metrics_text(t: &Timeline) -> String {
    let m = &t.metrics;
    let mut out = String::new();
    let _ = writeln!(out, "total cycles          {}", m.total_cycles);
    let _ = writeln!(
        out,
        "speedup               {} over the program with every copy awaited at once ({} cycles, every wait count 0)",
        ratio(m.speedup_over_awaited),
        m.awaited_cycles
    );
    let _ = writeln!(
        out,
        "unpipelined cycles    {} ({}: the loop in order, each copy's latency waited out)",
        m.unpipelined_cycles,
        ratio(m.speedup)
    );
    let _ = writeln!(
        out,
        "steady cycles / iter  {}",
        m.steady_cycles_per_iteration
            .map_or("—".to_string(), |v| fixed(v, 1))
    );
    let _ = writeln!(out, "stall cycles          {}", m.stall_cycles);
    if m.speedup.is_none() {
        let _ = writeln!(out, "                      {NO_RATIO}");
    }
    let rings: Vec<String> = m
        .ring_bytes
        .iter()
        .map(|(scope, bytes)| format!("{scope} {bytes} B"))
        .collect();
    let _ = writeln!(
        out,
        "ring buffers          {}",
        if rings.is_empty() {
            "none".to_string()
        } else {
            rings.join(", ")
        }
    );
    out
}

/// The chart as text, `columns` characters of cycles wide: one line per lane and sub-row, each
/// bar the last digit of its statement, stalls as `!` under the compute lane.
pub fn text(t: &Timeline, columns: usize) -> String {
    let end = t
        .spans
        .iter()
        .map(|s| s.end)
        .chain(t.stalls.iter().map(|s| s.end))
        .max()
        .unwrap_or(0)
        .max(1);
    let columns = columns.max(10);
    let col = |cycle: u64| ((cycle as u128 * columns as u128) / end as u128) as usize;
    let mut out = String::new();
    let mut line = |label: String, cells: Vec<char>| {
        let _ = writeln!(
            out,
            "{label:<10}|{}|",
            cells.into_iter().collect::<String>()
        );
    };
    for l in &t.lanes {
        for row in 0..rows(t, l) {
            let mut cells = vec![' '; columns];
            for sp in t.spans.iter().filter(|s| s.lane == *l && s.row == row) {
                let (a, b) = (col(sp.start), col(sp.end).max(col(sp.start) + 1));
                let digit = char::from_digit(sp.stmt % 10, 10).unwrap_or('#');
                for c in cells.iter_mut().take(b).skip(a) {
                    *c = digit;
                }
            }
            let label = match (l, row) {
                (Lane::Compute, _) => "compute".to_string(),
                (Lane::Queue(q), 0) => format!("queue {q}"),
                (Lane::Queue(_), r) => format!("  row {r}"),
            };
            line(label, cells);
        }
        if *l == Lane::Compute && !t.stalls.is_empty() {
            let mut cells = vec![' '; columns];
            for st in &t.stalls {
                let (a, b) = (col(st.start), col(st.end).max(col(st.start) + 1));
                for c in cells.iter_mut().take(b).skip(a) {
                    *c = '!';
                }
            }
            line("stalls".to_string(), cells);
        }
    }
    let _ = writeln!(
        out,
        "{:<10} 0 … {end} cycles; {}; a digit is a statement's id (mod 10)",
        "",
        steps_caption(t)
    );
    out
}

/// Which steps the chart draws, said under it: "steps 1–15 of 19", or that none is whole (a limit
/// stopped the run within its first step).
fn steps_caption(t: &Timeline) -> String {
    let (from, to) = t.shown_steps();
    if to < from {
        "no step whole".to_string()
    } else {
        format!("steps {from}–{to} of {}", t.metrics.steps)
    }
}
