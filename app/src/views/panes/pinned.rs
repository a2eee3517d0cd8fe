//! A pinned schedule beside the current one, in the pane that shows what changed: the Program
//! pane shows the pipelined programs' lines that differ, the Timeline pane the metrics with their
//! differences and both timelines on one cycle axis (core's `gantt::compare_svg`). Each has an
//! Unpin. The pinned text is explored aside by the worker (`searching::preview`), as the Search
//! tab's summary of the comparison is.

use super::contract;
use crate::ctx::Ctx;
use crate::dom;
use crate::markup::search as markup;
use crate::services::searching::{self, Searching};
use leptos::prelude::*;
use stagecraft_link::Pane;

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
    let s = expect_context::<Searching>();
    let node = NodeRef::<leptos::html::Div>::new();
    let pinned = Memo::new(move |_| ctx.st.with(|st| st.pinned.clone()));
    // The pinned text explored aside, asked for while the pane is shown.
    Effect::new(move |_| {
        if let Some(text) = pinned.get().filter(|_| ctx.shown(pane)) {
            if searching::previewed(s, &text).is_none() {
                searching::preview(ctx, &text);
            }
        }
    });
    contract::render_while_shown(node, pane, move || {
        let Some(text) = pinned.get() else {
            return String::new();
        };
        let mut h = String::from("<div class=\"compare-body\">");
        if ctx.text.with(|t| *t == text) {
            h.push_str("<p class=\"hint\">The pinned schedule is the text as it is now: change the annotations (or apply a schedule of the Search tab) to compare.</p>");
        }
        let current = ctx.good.get();
        let timeline = ctx
            .timeline
            .with(|t| t.as_ref().and_then(|r| r.value.clone()));
        let (Some(p), Some(c), Some(ct)) = (searching::previewed(s, &text), current, timeline)
        else {
            h.push_str("<p class=\"hint\">Exploring the pinned schedule…</p></div>");
            return h;
        };
        let Some(pt) = p.timeline.as_ref() else {
            let mut m = crate::markup::html::Html::default();
            m.raw("<p class=\"error\">The pinned text has no timeline");
            if let Some(d) = p.diagnostics.iter().find(|d| d.is_error()) {
                m.raw(": ").prose(&d.message);
            }
            m.raw("</p></div>");
            h.push_str(&m.finish());
            return h;
        };
        match part {
            Part::Program => {
                let peeled = ctx.peeled.get();
                h.push_str(&markup::diff_html(
                    markup::program_text(&p, peeled),
                    markup::program_text(&c, peeled),
                ));
            }
            Part::Timeline => {
                let width = dom::by_id("pane-timeline")
                    .map(|e| f64::from(e.client_width()) - 40.0)
                    .filter(|w| *w > 0.0)
                    .unwrap_or(900.0);
                h.push_str(&markup::compare_metrics_html(
                    (&p, pt),
                    (&c, &ct),
                    "pinned-metrics",
                ));
                h.push_str(&markup::compare_timelines_html((&p, pt), (&c, &ct), width));
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
