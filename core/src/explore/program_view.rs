//! The Pipelined program pane's own view, drawn here for the page to write (`protocol::Answer::
//! Explored`): the program's lines — sections set apart, each statement line tied to its source
//! statement (`data-st`), each wait line marked by its node index (`w{index}`) and site
//! (`data-site`, whose "why" the page writes when the line is pointed at), with its count's − / +
//! — the bar of counts set by hand above them and the ring buffers below.

use super::listing::CHUNK_LINES;
use super::{BufferInfo, Exploration, WaitCount};
use crate::html::Html;
use crate::sync::WaitSite;
use crate::tir::Printed;

/// The pane's view of the program of `ex` in the form asked (`peeled`), with the bar of counts
/// set by hand above it and its ring buffers below.
pub fn program_pane_html(ex: &Exploration, peeled: bool) -> String {
    let Some(printed) = ex.printed(peeled) else {
        return String::new();
    };
    let mut out = by_hand_html(ex);
    out.push_str(&program_html(printed, &ex.waits, &ex.counts));
    let long = printed.text.lines().count() > CHUNK_LINES;
    out.push_str(&buffers_html(&ex.buffers, long));
    out
}

/// Lines of a printed program; `waits` explain the wait lines, `counts` give each its count
/// control (− / +) and say when its count was set by hand.
fn program_html(printed: &Printed, waits: &[WaitSite], counts: &[WaitCount]) -> String {
    let mut h = Html::with_capacity(printed.text.len() * 3);
    h.raw("<pre id=\"program\" class=\"program\">");
    let n = printed.text.lines().count().min(printed.lines.len());
    // The wait lines are one tab stop, moved through with the arrows: focused, one shows why it
    // waits for what it does (its title, which a pointer shows on hover).
    let mut first_wait = true;
    for (k, (line, info)) in printed.text.lines().zip(&printed.lines).enumerate() {
        // In chunks: a 160-statement program is thousands of lines.
        h.chunk(k, n, CHUNK_LINES, "chunk");
        h.raw("<div class=\"line");
        if let Some(s) = info.section {
            h.raw(" sec-").raw(s.name());
        }
        if let Some(id) = info.stmt {
            h.raw(" st").num(id);
        }
        if let Some(w) = info.wait_index {
            h.raw(" wait w").num(w);
        }
        // Its line, which the step-through marks (the page's `focus::stepping_css`).
        h.raw("\" data-l=\"").num(k).raw("\"");
        if let Some(id) = info.stmt {
            h.raw(" data-st=\"").num(id).raw("\"");
        }
        // Its "why" is written by the page when the line is pointed at or focused: written
        // for every wait line of a large loop it would be most of the pane's HTML.
        if let Some(site) = info.wait.filter(|w| waits.iter().any(|x| x.id == *w)) {
            h.raw(" data-site=\"")
                .num(site)
                .raw("\" tabindex=\"")
                .raw(if first_wait { "0" } else { "-1" })
                .raw("\"");
            first_wait = false;
        }
        h.raw(">").text(line);
        if let Some(count) = info.wait.and_then(|w| counts.iter().find(|c| c.wait == w)) {
            count_control(&mut h, count);
        }
        h.raw("</div>");
    }
    h.end_chunks(n, CHUNK_LINES);
    h.raw("</pre>");
    h.finish()
}

/// The − / + of a wait line (`data-wait` the site, `data-delta` the step), and the mark of a count
/// set by hand.
fn count_control(h: &mut Html, count: &WaitCount) {
    let what = count.key.describe();
    for (delta, sign, verb) in [(-1, "−", "Lower"), (1, "+", "Raise")] {
        h.raw("<button class=\"count-step\" data-wait=\"")
            .num(count.wait)
            .raw("\" data-delta=\"")
            .num(delta)
            .raw("\" aria-label=\"")
            .text(&format!("{verb} the count of {what} by one"))
            .raw("\"");
        if delta < 0 && count.in_effect <= 0 {
            h.raw(" disabled");
        }
        h.raw(">").raw(sign).raw("</button>");
    }
    if count.in_effect != count.derived {
        h.raw("<span class=\"by-hand\">count ")
            .num(count.derived)
            .raw(" → ")
            .num(count.in_effect)
            .raw(", set by you</span>");
    }
}

/// Above a program whose counts were changed by hand: what that means, and the way back.
fn by_hand_html(ex: &Exploration) -> String {
    if !ex.counts_by_hand {
        return String::new();
    }
    let mut h = Html::default();
    h.raw("<div class=\"by-hand-bar\" role=\"status\">Counts set by you: not the derived program. <button id=\"reset-counts\">Reset</button></div>");
    h.finish()
}

/// Ring buffers and why each got its versions; `below_long` when they come after a program too
/// long to fit on screen.
fn buffers_html(buffers: &[BufferInfo], below_long: bool) -> String {
    let declared = buffers.iter().filter(|b| b.declared);
    let mut h = Html::default();
    // Off screen below a long program: a 160-buffer table was most of the objects the browser
    // styled and laid out before it knew what is on screen. Below a short one it is on screen,
    // where skipping it would only lay it out twice (`Html::chunk`).
    h.raw("<div");
    if below_long {
        h.raw(" class=\"buffers-wrap\" style=\"--rows:")
            .num(declared.clone().count() + 1)
            .raw("\"");
    }
    h.raw(">");
    h.raw("<table class=\"buffers\"><tr><th>buffer</th><th>scope</th><th>versions</th><th>why</th></tr>");
    for b in declared {
        h.raw("<tr><td><code>")
            .text(&b.name)
            .raw("</code></td>")
            .elem("td", b.scope.name())
            .raw("<td>")
            .num(b.versions)
            .raw("</td>")
            .elem("td", b.reason.as_deref().unwrap_or(""))
            .raw("</tr>");
    }
    h.raw("</table></div>");
    h.finish()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;
    use crate::explore::{explore, CountOverride, Options};

    fn example(name: &str) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
        std::fs::read_to_string(format!("{dir}/{name}")).unwrap()
    }

    #[test]
    fn lines_carry_statements_sections_and_wait_nodes() {
        let ex = explore(&example("rfc_a_async_copy.py"), &Options::default());
        let html = program_pane_html(&ex, false);
        assert!(html.contains("<div class=\"line sec-body wait w"), "{html}");
        assert!(html.contains("data-st=\"1\""));
        // Wait lines name their site, whose "why" the page writes when the line is pointed at.
        let site = html
            .split("data-site=\"")
            .nth(1)
            .and_then(|s| s.split('"').next()?.parse::<u32>().ok())
            .expect("a wait line names its site");
        assert!(ex.waits.iter().any(|w| w.id == site));
        assert!(
            !html.contains("title=\""),
            "no line carries its why before it is asked for"
        );
        assert!(html.contains("<table class=\"buffers\">"));
        assert_eq!(
            html.matches("<div class=\"line").count(),
            ex.rolled.as_ref().map_or(0, |p| p.lines.len())
        );
        // One chunk's worth of lines is written without a chunk, the buffers outright.
        assert!(!html.contains("class=\"chunk\"") && !html.contains("buffers-wrap"));
    }

    #[test]
    fn wait_lines_have_count_controls_and_a_count_set_by_hand_is_marked() {
        let text = example("rfc_a_async_copy.py");
        let ex = explore(&text, &Options::default());
        let html = program_pane_html(&ex, false);
        assert!(
            html.contains("data-delta=\"1\" aria-label=\"Raise the count of the wait on queue"),
            "{html}"
        );
        assert!(!html.contains("set by you") && !html.contains("reset-counts"));
        let body = ex
            .counts
            .iter()
            .find(|c| c.key.section == crate::ir::SectionKind::Body)
            .unwrap();
        let options = Options {
            count_overrides: vec![CountOverride {
                wait: body.key.clone(),
                delta: 1,
            }],
            ..Options::default()
        };
        let raised = program_pane_html(&explore(&text, &options), false);
        let mark = format!("count {} → {}, set by you", body.derived, body.derived + 1);
        assert!(raised.contains(&mark), "{raised}");
        assert!(raised.contains("id=\"reset-counts\""));
    }

    #[test]
    fn long_programs_come_in_balanced_chunks() {
        let mut text = String::from("for i in range(64):\n");
        for k in 0..100 {
            text.push_str(&format!("    T{k}[i] = A[i] + {k}\n"));
        }
        let ex = explore(&text, &Options::default());
        let html = program_pane_html(&ex, false);
        let lines = html.matches("<div class=\"line").count();
        assert!(lines > CHUNK_LINES, "{lines} lines");
        assert_eq!(
            html.matches("<div class=\"chunk\"").count(),
            lines.div_ceil(CHUNK_LINES)
        );
        assert_eq!(html.matches("<div").count(), html.matches("</div>").count());
        // Each chunk is sized by its own number of lines, the last one by what is left.
        let sizes: Vec<usize> = html
            .split("--items:")
            .skip(1)
            .filter_map(|s| s.split('"').next()?.parse().ok())
            .collect();
        assert_eq!(sizes.iter().sum::<usize>(), lines);
        assert_eq!(
            sizes.last(),
            Some(&(lines - (sizes.len() - 1) * CHUNK_LINES))
        );
        // Below a long program the buffers are skipped while off screen.
        assert!(html.contains("class=\"buffers-wrap\""));
    }
}
