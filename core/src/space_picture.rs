//! The iteration space drawn: stages × time as SVG, the Iteration space pane's picture. Time runs
//! to the right, one column per step of the pipelined loop; each unit (a stage's statements, in
//! order) is a row, and a cell holds the iteration that unit computes at that step. The
//! prologue's columns, where the pipeline fills, and the epilogue's, where it drains, are shaded
//! and named, so that the staircase of a software pipeline is seen, not read off a table.

use crate::gantt::fixed;
use crate::ir::SectionKind;
use crate::shape::IterationSpace;
use std::fmt::Write;

const CELL_W: f64 = 30.0;
const CELL_H: f64 = 24.0;
/// The width of a character of the picture's monospace 12 px font, a little generously.
const CHAR_W: f64 = 7.4;
/// Above the cells: the sections' names on two rows, then the step numbers.
const HEAD_H: f64 = 46.0;
const LEGEND_H: f64 = 44.0;

/// What the pipeline does in each section: over the columns, short enough for two of them (a
/// section may be one step long, and its neighbours' names go on the other row); in the legend,
/// with the section's name.
fn section_label(s: SectionKind, short: bool) -> &'static str {
    match (s, short) {
        (SectionKind::Prologue, true) => "fill",
        (SectionKind::Body, true) => "steady",
        (SectionKind::Epilogue, true) => "drain",
        (SectionKind::Prologue, false) => "fill (prologue)",
        (SectionKind::Body, false) => "steady state (body)",
        (SectionKind::Epilogue, false) => "drain (epilogue)",
    }
}

fn unit_label(u: &crate::shape::IterationUnit) -> String {
    format!(
        "unit {} · stage {}{}",
        u.unit,
        u.stage,
        if u.is_async { " · async" } else { "" }
    )
}

/// The picture as SVG markup (styled by the page's `.space-picture` rules).
pub fn svg(sp: &IterationSpace) -> String {
    // Columns: one per step shown, and one for the steps left out, where they are.
    let mut columns: Vec<Option<usize>> = Vec::with_capacity(sp.rows.len() + 1);
    for (k, r) in sp.rows.iter().enumerate() {
        // The steps left out, [from, to), come before the first one shown after them.
        if sp.elided.is_some_and(|(_, to)| to == r.step) {
            columns.push(None);
        }
        columns.push(Some(k));
    }
    let labels: Vec<String> = sp.units.iter().map(unit_label).collect();
    let label_w =
        12.0 + CHAR_W * labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64;
    let x = |c: usize| label_w + c as f64 * CELL_W;
    let units_h = sp.units.len() as f64 * CELL_H;
    // As wide as the cells, or as the legend under them where that is wider (a short loop).
    let width = (x(columns.len()) + 8.0).max(legend_width());
    let height = HEAD_H + units_h + LEGEND_H;
    let first = sp.rows.first().map_or(0, |r| r.step);
    let last = sp.rows.last().map_or(0, |r| r.step);
    let mut h = String::with_capacity(96 * (columns.len() * (sp.units.len() + 2)) + 1024);
    let _ = write!(
        h,
        "<svg class=\"space-picture\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"Iteration space: steps {first} to {last} across, {} down; each cell is the iteration a unit computes at that step\">",
        fixed(width, 0),
        fixed(height, 0),
        crate::english::count(sp.units.len(), "unit")
    );
    // The sections' bands, each named over its first column, the names on alternate rows.
    let (mut named, mut names) = (None, 0);
    for (c, col) in columns.iter().enumerate() {
        let Some(r) = col.and_then(|k| sp.rows.get(k)) else {
            let _ = write!(
                h,
                "<text class=\"elided\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">…</text>",
                fixed(x(c) + CELL_W / 2.0, 0),
                fixed(HEAD_H + units_h / 2.0 + 4.0, 0)
            );
            continue;
        };
        let _ = write!(
            h,
            "<rect class=\"sec-{}\" data-step=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/><text class=\"step\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            r.section.name(),
            r.step,
            fixed(x(c), 0),
            fixed(HEAD_H - 14.0, 0),
            fixed(CELL_W, 0),
            fixed(units_h + 14.0, 0),
            fixed(x(c) + CELL_W / 2.0, 0),
            fixed(HEAD_H - 3.0, 0),
            r.step
        );
        if named != Some(r.section) {
            named = Some(r.section);
            let _ = write!(
                h,
                "<text class=\"section\" x=\"{}\" y=\"{}\">{}</text>",
                fixed(x(c) + 2.0, 0),
                if names % 2 == 0 { 12 } else { 24 },
                section_label(r.section, true)
            );
            names += 1;
        }
    }
    for (u, (unit, label)) in sp.units.iter().zip(&labels).enumerate() {
        let y = HEAD_H + u as f64 * CELL_H;
        let _ = write!(
            h,
            "<text x=\"4\" y=\"{}\">{label}</text>",
            fixed(y + 16.0, 0)
        );
        for (c, col) in columns.iter().enumerate() {
            let Some(Some(i)) = col
                .and_then(|k| sp.rows.get(k))
                .and_then(|r| r.iterations.get(u))
            else {
                continue;
            };
            let _ = write!(
                h,
                "<rect class=\"cell stage{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{i}</text>",
                unit.stage.rem_euclid(8),
                fixed(x(c) + 2.0, 0),
                fixed(y + 2.0, 0),
                fixed(CELL_W - 4.0, 0),
                fixed(CELL_H - 4.0, 0),
                fixed(x(c) + CELL_W / 2.0, 0),
                fixed(y + 16.0, 0)
            );
        }
    }
    legend(&mut h, HEAD_H + units_h + 12.0);
    h.push_str("</svg>");
    h
}

/// What a cell's number and colour are (the legend's second line).
const CELL_MEANING: &str =
    "a number: the iteration that unit computes at that step; its colour: the unit's stage";

/// The legend's width: its swatches' line or its second line, whichever is wider.
fn legend_width() -> f64 {
    let swatches: f64 = [
        SectionKind::Prologue,
        SectionKind::Body,
        SectionKind::Epilogue,
    ]
    .iter()
    .map(|s| 18.0 + CHAR_W * section_label(*s, false).len() as f64 + 14.0)
    .sum();
    let meaning = 4.0 + CHAR_W * CELL_MEANING.chars().count() as f64 + 8.0;
    (4.0 + swatches).max(meaning)
}

/// Swatches of the three sections, and what a cell's number is.
fn legend(h: &mut String, top: f64) {
    let mut x = 4.0;
    for s in [
        SectionKind::Prologue,
        SectionKind::Body,
        SectionKind::Epilogue,
    ] {
        let label = section_label(s, false);
        let _ = write!(
            h,
            "<rect class=\"sec-{} swatch\" x=\"{}\" y=\"{}\" width=\"14\" height=\"14\"/><text x=\"{}\" y=\"{}\">{label}</text>",
            s.name(),
            fixed(x, 0),
            fixed(top, 0),
            fixed(x + 18.0, 0),
            fixed(top + 11.0, 0)
        );
        x += 18.0 + CHAR_W * label.len() as f64 + 14.0;
    }
    let _ = write!(
        h,
        "<text x=\"4\" y=\"{}\">{CELL_MEANING}</text>",
        fixed(top + 30.0, 0)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{explore, Options};

    /// The picture of `text`'s iteration space, and the steps left out of it.
    fn picture(text: &str) -> (String, Option<(i64, i64)>, usize) {
        let sp = explore(text, &Options::default()).iteration_space;
        let rows = sp.as_ref().map_or(0, |sp| sp.rows.len());
        let elided = sp.as_ref().and_then(|sp| sp.elided);
        (sp.as_ref().map(svg).unwrap_or_default(), elided, rows)
    }

    const TWO_STAGES: &str = "B = alloc([1])\nfor i in range(4):\n    B[0] = A[i] + 1\n    C[i] = B[0] + 1\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\n";

    #[test]
    fn a_cell_per_iteration_computed_and_a_band_per_step() {
        let (svg, _, _) = picture(TWO_STAGES);
        // Four iterations, each computed once by each of the two units.
        assert_eq!(svg.matches("class=\"cell stage").count(), 8);
        assert_eq!(svg.matches("class=\"cell stage0\"").count(), 4);
        assert_eq!(svg.matches("class=\"cell stage1\"").count(), 4);
        // Steps 0 (fill), 1–3 (steady state), 4 (drain); the legend's swatches besides.
        assert_eq!(svg.matches("<rect class=\"sec-prologue\"").count(), 1);
        assert_eq!(svg.matches("<rect class=\"sec-body\"").count(), 3);
        assert_eq!(svg.matches("<rect class=\"sec-epilogue\"").count(), 1);
        assert_eq!(svg.matches(">fill<").count(), 1);
        assert_eq!(svg.matches(">fill (prologue)<").count(), 1);
        assert!(svg.contains("unit 1 · stage 1<"));
        // Five columns are narrower than the legend: the picture is as wide as the legend.
        let width: Option<f64> = svg
            .split_once("width=\"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .and_then(|(w, _)| w.parse().ok());
        assert!(
            width.is_some_and(|w| w >= legend_width()),
            "{width:?} < {}",
            legend_width()
        );
    }

    #[test]
    fn a_long_loop_shows_where_steps_are_left_out() {
        let (svg, elided, rows) = picture(&TWO_STAGES.replace("range(4)", "range(400)"));
        assert!(elided.is_some());
        assert_eq!(svg.matches("class=\"elided\"").count(), 1);
        assert_eq!(
            svg.matches("class=\"step\"").count(),
            rows,
            "one step number per column shown"
        );
    }
}
