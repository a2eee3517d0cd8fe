//! A pinned schedule beside the current one, in the pane that shows what changed: the Program
//! pane shows the pipelined programs' lines that differ, the Timeline pane the metrics with their
//! differences and both timelines on one cycle axis. Each has an Unpin. The comparison is a part
//! of the exploration shown (`Want::Compare`): the worker explores the pinned text aside and draws
//! it (core's `search_picture::Comparison`), as for the Search tab's summary of it.

use super::contract;
use crate::ctx::Ctx;
use leptos::prelude::*;
use stagecraft::search_picture::Comparison;
use stagecraft_link::Pane;
use std::sync::Arc;

/// The comparison of the text `pinned` with the exploration the panes show, once it has arrived
/// (tracked).
pub fn comparison(ctx: Ctx, pinned: &str) -> Option<Arc<Comparison>> {
    ctx.snapshot.with(|s| {
        let (p, _, c) = s.good()?.parts.compare.as_ref()?;
        (p == pinned).then(|| c.clone())
    })
}

/// What a pane shows of the comparison.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The pipelined programs' lines that differ.
    Program,
    /// The metrics with their differences, and both timelines on one axis.
    Timeline,
}

impl Part {
    fn id(self) -> &'static str {
        match self {
            Part::Program => "pinned-program",
            Part::Timeline => "pinned-timeline",
        }
    }
}

/// The comparison `part` shows in `pane` while a schedule is pinned (nothing otherwise).
pub fn view(ctx: Ctx, pane: Pane, part: Part) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    let pinned = Memo::new(move |_| ctx.st.with(|st| st.pinned.clone()));
    contract::render_while_shown(node, pane, move || {
        let Some(text) = pinned.get() else {
            return String::new();
        };
        let mut h = String::from("<div class=\"compare-body\">");
        if ctx.text.with(|t| *t == text) {
            h.push_str("<p class=\"hint\">The pinned schedule is the text as it is now: change the annotations (or apply a schedule of the Search tab) to compare.</p>");
        }
        let Some(c) = comparison(ctx, &text) else {
            h.push_str("<p class=\"hint\">Exploring the pinned schedule…</p></div>");
            return h;
        };
        match part {
            // No diff: the pinned text has no program, and the metrics' place says why.
            Part::Program if c.diff.is_empty() => h.push_str(&c.metrics),
            Part::Program => h.push_str(&c.diff),
            Part::Timeline => {
                h.push_str("<div id=\"pinned-metrics\">");
                h.push_str(&c.metrics);
                h.push_str("</div>");
                h.push_str(&c.timelines);
            }
        }
        h.push_str("</div>");
        h
    });
    let shown = move || pinned.with(Option::is_some);
    let id = part.id();
    view! {
        <section class="compare pinned-compare" id=id hidden=move || !shown()>
            <div class="controls">
                <h3>"Pinned and current"</h3>
                <button class="unpin" title="Stop comparing with the pinned schedule"
                    on:click=move |_| ctx.st.update(|st| st.pinned = None)>"Unpin"</button>
            </div>
            <div node_ref=node></div>
        </section>
    }
}
