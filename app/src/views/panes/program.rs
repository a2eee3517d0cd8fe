//! The pipelined program: sections set apart, each statement line tied to its source statement, each
//! wait line explained on hover and marked by its node index (`w{index}`) for the selection.

use super::contract::{self, PaneSpec};
use crate::ctx::ctx;
use crate::dom;
use crate::markup::html::Html;
use crate::model::focus;
use crate::model::roving::Axis;
use leptos::prelude::*;
use stagecraft::explore::{BufferInfo, Exploration};
use stagecraft::sync::WaitSite;
use stagecraft::tir::Printed;
use stagecraft_link::Pane;

/// Lines per chunk of the program pane; style.css gives a chunk this many lines of height.
const CHUNK_LINES: usize = 64;

/// Lines of a printed program; `waits` explain the wait lines.
pub fn program_html(printed: &Printed, waits: &[WaitSite]) -> String {
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
        h.raw("\"");
        if let Some(id) = info.stmt {
            h.raw(" data-st=\"").num(id).raw("\"");
        }
        if let Some(site) = info.wait.and_then(|w| waits.iter().find(|x| x.id == w)) {
            h.raw(" title=\"")
                .text(&wait_explanation(site))
                .raw("\" tabindex=\"")
                .raw(if first_wait { "0" } else { "-1" })
                .raw("\"");
            first_wait = false;
        }
        h.raw(">").text(line).raw("</div>");
    }
    h.end_chunks(n);
    h.raw("</pre>");
    h.finish()
}

/// Why a wait has its count: the derivation's summary and its arithmetic per instance.
fn wait_explanation(site: &WaitSite) -> String {
    let mut t = site.summary.clone();
    for i in site.instances.iter().take(4) {
        t.push('\n');
        t.push_str(&i.arithmetic);
        if !i.leaves.is_empty() {
            t.push_str("\nleaves ");
            t.push_str(&i.leaves.len().to_string());
            t.push_str(" group(s) in flight");
        }
    }
    t
}

/// Ring buffers and why each got its versions.
pub fn buffers_html(buffers: &[BufferInfo]) -> String {
    let declared = buffers.iter().filter(|b| b.declared);
    let mut h = Html::default();
    // Below the program, hence off screen when a long program is drawn: a 160-buffer table was
    // most of the objects the browser styled and laid out before it knew what is on screen.
    h.raw("<div class=\"buffers-wrap\" style=\"--rows:")
        .num(declared.clone().count() + 1)
        .raw("\">");
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

fn pane_html(ex: &Exploration, peeled: bool) -> String {
    let Some(printed) = focus::printed(ex, peeled) else {
        return String::new();
    };
    let mut out = program_html(printed, &ex.waits);
    out.push_str(&buffers_html(&ex.buffers));
    out
}

pub const PANE: PaneSpec = PaneSpec {
    pane: Pane::Program,
    label: "Pipelined program",
    pending: contract::never_pending,
};

/// The pane's content, made once by the registry.
pub fn view() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    let peeled = ctx.peeled;
    contract::render_while_shown(
        node,
        PANE.pane,
        move || {
            let peeled = peeled.get();
            ctx.good
                .with(|ex| ex.as_deref().map(|ex| pane_html(ex, peeled)))
                .unwrap_or_default()
        },
    );
    let on_over = move |ev: leptos::ev::MouseEvent| {
        ctx.hover(dom::closest_data(&ev, "data-st").and_then(|v| v.parse().ok()));
    };
    // A focused wait line's "why", shown below it.
    let why = NodeRef::<leptos::html::Div>::new();
    let frame = NodeRef::<leptos::html::Div>::new();
    let on_focus = move |ev: web_sys::FocusEvent| {
        let (Some(line), Some(why), Some(frame)) =
            (dom::target_element(&ev), why.get_untracked(), frame.get_untracked())
        else {
            return;
        };
        let Some(text) = line
            .class_list()
            .contains("wait")
            .then(|| line.get_attribute("title"))
            .flatten()
        else {
            return;
        };
        why.set_text_content(Some(&text));
        let top = line.get_bounding_client_rect().bottom() - frame.get_bounding_client_rect().top();
        let _ = why.set_attribute("style", &format!("top:{top}px"));
        let _ = why.remove_attribute("hidden");
    };
    let on_blur = move |_: web_sys::FocusEvent| {
        if let Some(why) = why.get_untracked() {
            let _ = why.set_attribute("hidden", "");
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if let Some(el) = node.get_untracked() {
            dom::rove(&ev, &el, ".line.wait[tabindex]", Axis::Vertical);
        }
    };
    view! {
        <div class="program-frame" node_ref=frame>
            <div node_ref=node on:mouseover=on_over on:mouseleave=move |_| ctx.hover(None)
                on:focusin=on_focus on:focusout=on_blur on:keydown=on_key></div>
            <div id="why" class="why" role="tooltip" node_ref=why hidden></div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_statements_sections_and_wait_nodes() {
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let html = pane_html(&ex, false);
        assert!(html.contains("<div class=\"line sec-body wait w"), "{html}");
        assert!(html.contains("data-st=\"1\""));
        assert!(html.contains("title=\""), "wait lines are explained");
        assert!(html.contains("<table class=\"buffers\">"));
        assert_eq!(
            html.matches("<div class=\"line").count(),
            ex.rolled.as_ref().map_or(0, |p| p.lines.len())
        );
    }

    #[test]
    fn long_programs_come_in_balanced_chunks() {
        let text = crate::model::long_loop(100);
        let ex = stagecraft::explore::explore(&text, &Default::default());
        let printed = ex.rolled.as_ref().map(|p| program_html(p, &ex.waits));
        let html = printed.unwrap_or_default();
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
    }
}
