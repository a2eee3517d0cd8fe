//! The timeline drawn: the Gantt chart as SVG — what the Timeline pane shows and exports, and what
//! `stagecraft timeline --svg` writes, one function for both — and as text for a terminal.

use crate::timeline::{Lane, Timeline};
use std::fmt::Write;

const ROW: f64 = 28.0;
const LABEL_W: f64 = 90.0;
/// A bar at least this wide carries its iteration's number.
const LABELLED_BAR_PX: f64 = 16.0;

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

/// The chart as SVG markup; `mark` is drawn when given. At zoom 10 the chart is `fit_px` wide.
pub fn svg(t: &Timeline, zoom: u32, fit_px: f64, mark: Option<&Mark>) -> String {
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
    // Below the lanes: a band for the marker's label, then one for the steps shown.
    let height = lanes_h + 36.0;
    let mut h = String::with_capacity(200 * t.spans.len() + 512);
    let _ = write!(
        h,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"monospace\" font-size=\"11\">",
        fixed(width, 0),
        fixed(height, 0)
    );
    for l in &t.lanes {
        let y = fixed(lane_y(l) + 18.0, 0);
        match l {
            Lane::Compute => {
                let _ = write!(h, "<text x=\"4\" y=\"{y}\">compute</text>");
            }
            Lane::Queue(q) => {
                let _ = write!(h, "<text x=\"4\" y=\"{y}\">queue {q}</text>");
            }
        }
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
            "<rect class=\"stall wi{}\" x=\"{}\" y=\"2\" width=\"{}\" height=\"{}\" fill=\"#e5484d\" opacity=\"0.35\"><title>stall {} cycles: wait {} on queue {} for group {}{also}</title></rect>",
            st.wait_index,
            x(st.start),
            fixed(w(st.start, st.end), 1),
            fixed(ROW - 4.0, 0),
            st.end - st.start,
            st.wait.map_or("?".to_string(), |id| format!("#{id}")),
            st.queue,
            st.group
        );
    }
    // The bars are one tab stop in the app, moved through with the arrows; each is named by its
    // title. In a group of their own, which the app writes in parts (the marker stays on top).
    h.push_str("<g id=\"bars\">");
    for (k, sp) in t.spans.iter().enumerate() {
        let y = lane_y(&sp.lane) + f64::from(sp.row) * ROW;
        let bar_w = w(sp.start, sp.end);
        let _ = write!(
            h,
            "<rect role=\"img\" tabindex=\"{}\" class=\"span s{} st{}\" data-st=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"hsl({},60%,62%)\" stroke=\"#333\" stroke-width=\"0.3\"><title>statement {} iteration {} ({}) step {}: {}–{}</title></rect>",
            if k == 0 { "0" } else { "-1" },
            sp.stmt % 10,
            sp.stmt,
            sp.stmt,
            x(sp.start),
            fixed(y + 4.0, 0),
            fixed(bar_w, 1),
            fixed(ROW - 8.0, 0),
            hue(sp.stmt),
            sp.stmt,
            sp.iteration.map_or("—".to_string(), |i| i.to_string()),
            sp.section.map_or("", |s| s.name()),
            sp.step,
            sp.start,
            sp.end
        );
        if let (Some(i), true) = (sp.iteration, bar_w >= LABELLED_BAR_PX) {
            let _ = write!(
                h,
                "<text class=\"it\" x=\"{}\" y=\"{}\" pointer-events=\"none\">{i}</text>",
                fixed(LABEL_W + sp.start as f64 * scale + 2.0, 1),
                fixed(y + 18.0, 0)
            );
        }
    }
    h.push_str("</g>");
    if let Some(m) = mark {
        // A line through every lane at the instance, and a frame around it on its lane.
        let _ = write!(
            h,
            "<g id=\"focus-marker\"><line x1=\"{x0}\" x2=\"{x0}\" y1=\"0\" y2=\"{}\" stroke=\"#d93f3f\" stroke-width=\"2\" stroke-dasharray=\"4 2\"/><rect x=\"{x0}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#d93f3f\" stroke-width=\"2\"/><text x=\"{x0}\" y=\"{}\" fill=\"#d93f3f\">▲ step {}</text></g>",
            fixed(lanes_h + 4.0, 0),
            fixed(lane_y(&m.lane) + 2.0, 0),
            fixed(w(m.start, m.end), 1),
            fixed(ROW - 4.0, 0),
            fixed(lanes_h + 15.0, 0),
            m.step,
            x0 = x(m.start),
        );
    }
    let (from, to) = t.shown_steps();
    let _ = write!(
        h,
        "<text x=\"4\" y=\"{}\" fill=\"#666\">steps {from}–{to} of {}</text></svg>",
        fixed(height - 5.0, 0),
        t.metrics.steps
    );
    h
}

/// The metrics, one per line, for a terminal.
pub fn metrics_text(t: &Timeline) -> String {
    let m = &t.metrics;
    let mut out = String::new();
    let _ = writeln!(out, "total cycles          {}", m.total_cycles);
    let _ = writeln!(out, "unpipelined cycles    {}", m.unpipelined_cycles);
    let _ = writeln!(out, "speedup               {}×", fixed(m.speedup, 2));
    let _ = writeln!(
        out,
        "awaited-at-once       {} cycles (every wait count 0): speedup {}×",
        m.awaited_cycles,
        fixed(m.speedup_over_awaited, 2)
    );
    let _ = writeln!(
        out,
        "steady cycles / iter  {}",
        m.steady_cycles_per_iteration
            .map_or("—".to_string(), |v| fixed(v, 1))
    );
    let _ = writeln!(out, "stall cycles          {}", m.stall_cycles);
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
    let (from, to) = t.shown_steps();
    let _ = writeln!(
        out,
        "{:<10} 0 … {end} cycles; steps {from}–{to} of {}; a digit is a statement's id (mod 10)",
        "", t.metrics.steps
    );
    out
}
