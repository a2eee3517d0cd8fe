//! The Search pane: the schedule search of the loop (core's `search`, run by the worker and
//! streamed in: `services::searching`), its front as a scatter plot and a table whose rows preview
//! their schedule (its program and timeline, explored aside by the worker) and whose Apply writes
//! it into the text's annotation lines (one step of "Undo load"); and the comparison of a pinned
//! schedule with the current one. The worker draws all of it (core's `search_picture`): the page
//! puts it in place, marks the schedule selected and handles the clicks.

use super::contract::{self, PaneSpec};
use super::pinned;
use crate::ctx::{ctx, Ctx};
use crate::dom;
use crate::model::annotations;
use crate::model::roving::Axis;
use crate::services::searching::{self, Searched, Searching};
use leptos::prelude::*;
use stagecraft::search_picture::SearchView;
use wasm_bindgen::JsCast;
use stagecraft_link::Pane;

pub const PANE: PaneSpec = PaneSpec {
    pane: Pane::Search,
    label: "Search",
    pending: contract::never_pending,
};

/// The text with the front's `k`-th schedule written into its annotation lines, where and as the
/// text has them (the grid's rewriting): `None` unless the text is still the one searched and
/// its exploration, whose annotation spans the rewriting needs, has arrived.
fn text_with(ctx: Ctx, searched: &Searched, k: usize) -> Option<String> {
    let ex = ctx.explored_now()?;
    let text = ctx.st.with_untracked(|s| s.text.clone());
    if text != searched.text {
        return None;
    }
    let view = searched.view.as_ref()?.as_ref().ok()?;
    let a = view.front.get(k)?;
    Some(annotations::rewrite(
        &text,
        &ex.annotations,
        &view.loop_var,
        &a.stages,
        &a.orders,
        &a.async_stages,
    ))
}

/// Where the search stands: not begun, lost, of an earlier text, refused, or its progress.
fn status_html(x: Option<&Searched>, outdated: bool) -> String {
    let Some(x) = x else {
        return "<p class=\"hint\">Search every schedule of the loop (stages, orders and async stages): the fastest for each amount of shared memory, each judged by the interpreter. The search runs beside the page; an edit of the text stops it.</p>".to_string();
    };
    let mut out = String::new();
    if x.lost {
        out.push_str("<p class=\"error\">Stagecraft's engine was started again before the search ended: search again.</p>");
    }
    if outdated {
        out.push_str("<p class=\"stale\" id=\"search-outdated\">These schedules are of the text as it was searched; it has changed since. Search again to apply one.</p>");
    }
    match &x.view {
        None => out.push_str("<p role=\"status\" id=\"search-status\">Starting the search…</p>"),
        Some(Err(why)) => {
            let mut h = crate::markup::html::Html::default();
            h.raw("<p class=\"error\" id=\"search-status\">This text cannot be searched: ")
                .prose(why)
                .raw("</p>");
            out.push_str(&h.finish());
        }
        Some(Ok(v)) => out.push_str(&v.progress),
    }
    out
}

/// Marks the front's `selected` schedule in the scatter plot and the table (its row the table's
/// tab stop) and enables Apply only while `applicable`, in the markup under `root`: the worker
/// draws the front with nothing selected and every Apply enabled.
fn mark(root: &web_sys::Element, selected: Option<usize>, applicable: bool) {
    let Ok(list) = root.query_selector_all("[data-k], button[data-apply]") else {
        return;
    };
    let k = selected.map(|k| k.to_string());
    let row_selected = k.as_ref().is_some_and(|k| {
        root.query_selector(&format!("tr[data-k=\"{k}\"]"))
            .ok()
            .flatten()
            .is_some()
    });
    for e in (0..list.length()).filter_map(|n| list.item(n)) {
        let Ok(e) = e.dyn_into::<web_sys::Element>() else {
            continue;
        };
        if e.has_attribute("data-apply") {
            let _ = if applicable {
                e.remove_attribute("disabled")
            } else {
                e.set_attribute("disabled", "")
            };
        } else if let Some(v) = e.get_attribute("data-k") {
            let on = k.as_deref() == Some(v.as_str());
            let class = e.get_attribute("class").unwrap_or_default();
            let base = class.trim_end_matches(" selected");
            let class = if on {
                format!("{base} selected")
            } else {
                base.to_string()
            };
            let _ = e.set_attribute("class", &class);
            if row_selected && e.tag_name().eq_ignore_ascii_case("tr") {
                let _ = e.set_attribute("tabindex", if on { "0" } else { "-1" });
            }
        }
    }
}

/// The pane's content, made once by the registry.
pub fn view() -> impl IntoView {
    let ctx = ctx();
    let s = expect_context::<Searching>();
    let selected = RwSignal::new(None::<usize>);
    // The preview shown: the text of the row selected, once made.
    let preview_text = RwSignal::new(None::<String>);
    let running = move || s.search.with(|x| x.as_ref().is_some_and(Searched::running));
    // The text searched is not the text now: its schedules are of an earlier loop.
    let outdated = move || {
        s.search
            .with(|x| x.as_ref().map(|x| x.text.clone()))
            .is_some_and(|t| ctx.text.with(|now| *now != t))
    };
    let start = move |_| {
        selected.set(None);
        preview_text.set(None);
        searching::start(ctx);
    };
    let select = move |k: usize| {
        if selected.get_untracked() == Some(k) {
            return;
        }
        selected.set(Some(k));
        let text = s
            .search
            .with_untracked(|x| x.as_ref().and_then(|x| text_with(ctx, x, k)));
        if let Some(t) = &text {
            searching::preview(ctx, t);
        }
        preview_text.set(text);
    };
    let on_point = move |ev: &web_sys::Event| {
        if let Some(k) = dom::closest_data(ev, "data-k").and_then(|k| k.parse().ok()) {
            select(k);
        }
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(k) = dom::closest_data(&ev, "data-apply").and_then(|k| k.parse::<usize>().ok())
        else {
            return;
        };
        let text = s
            .search
            .with_untracked(|x| x.as_ref().and_then(|x| text_with(ctx, x, k)));
        if let Some(new) = text {
            // One step of "Undo load", as loading an example is.
            let old = ctx.st.with_untracked(|st| st.text.clone());
            ctx.undo.update(|u| u.push((old, new.clone())));
            ctx.set_text(new);
        }
    };
    let table = NodeRef::<leptos::html::Div>::new();
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let Some(node) = table.get_untracked() else {
            return;
        };
        if let Some(to) = dom::rove(&ev, &node, "tr.front-row", Axis::Vertical) {
            if let Some(k) = to.get_attribute("data-k").and_then(|k| k.parse().ok()) {
                select(k);
            }
        }
    };
    let status = NodeRef::<leptos::html::Div>::new();
    contract::render_while_shown(status, PANE.pane, move || {
        let outdated = outdated();
        s.search.with(|x| status_html(x.as_ref(), outdated))
    });
    // Apply writes into the text searched, once its exploration (the annotations' spans) is here.
    let applicable = move || !outdated() && explored_now(ctx);
    let results = NodeRef::<leptos::html::Div>::new();
    let marked = move || {
        if let Some(root) = results.get_untracked() {
            let (k, applicable) = untrack(|| (selected.get(), applicable()));
            mark(&root, k, applicable);
        }
    };
    Effect::new(move |_| {
        selected.track();
        applicable();
        marked();
    });
    let drawn = move |pick: fn(&SearchView) -> &String| {
        move || {
            s.search.with(|x| {
                x.as_ref()
                    .and_then(|x| x.view.as_ref()?.as_ref().ok())
                    .map(|v| pick(v).clone())
                    .unwrap_or_default()
            })
        }
    };
    let scatter = NodeRef::<leptos::html::Div>::new();
    contract::render_while_shown_then(scatter, PANE.pane, drawn(|v| &v.scatter), marked);
    contract::render_while_shown_then(table, PANE.pane, drawn(|v| &v.table), marked);
    let preview = NodeRef::<leptos::html::Div>::new();
    contract::render_while_shown(preview, PANE.pane, move || {
        let Some(text) = preview_text.get() else {
            return String::new();
        };
        match searching::previewed(s, &text) {
            Some(markup) => markup.to_string(),
            None => "<p class=\"hint\" id=\"search-preview\">Exploring this schedule…</p>".into(),
        }
    });
    let compare = compare_view(ctx);
    let pinned = move || ctx.st.with(|st| st.pinned.is_some());
    view! {
        <div id="search">
            <div class="controls search-controls">
                <button id="search-start" on:click=start>
                    {move || if s.search.with(Option::is_some) { "Search again" } else { "Search schedules" }}
                </button>
                <button id="search-cancel" disabled=move || !running()
                    on:click=move |_| searching::cancel()>"Cancel"</button>
                <button id="pin" title="Keep the text as it is now, to compare the schedules you try with it"
                    on:click=move |_| ctx.st.update(|st| st.pinned = Some(st.text.clone()))>
                    {move || if pinned() { "Pin again" } else { "Pin current schedule" }}
                </button>
                <button id="unpin" disabled=move || !pinned()
                    on:click=move |_| ctx.st.update(|st| st.pinned = None)>"Unpin"</button>
            </div>
            <div node_ref=status></div>
            <div class="search-results" node_ref=results>
                <div node_ref=scatter on:mouseover=move |ev| on_point(ev.as_ref())></div>
                <div node_ref=table class="search-table" on:click=on_click
                    on:mouseover=move |ev| on_point(ev.as_ref())
                    on:focusin=move |ev| on_point(ev.as_ref()) on:keydown=on_key></div>
            </div>
            <div node_ref=preview></div>
            {compare}
        </div>
    }
}

/// Whether the exploration of the text as it is now has arrived (tracked): Apply waits for it,
/// its annotation spans being what the rewriting needs.
fn explored_now(ctx: Ctx) -> bool {
    ctx.current.with(Option::is_some) && ctx.explored_text.with(|t| ctx.text.with(|now| t == now))
}

/// The comparison of the pinned text's schedule with the current one, while one is pinned.
fn compare_view(ctx: Ctx) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    let pinned = Memo::new(move |_| ctx.st.with(|st| st.pinned.clone()));
    contract::render_while_shown(node, PANE.pane, move || {
        let Some(text) = pinned.get() else {
            return String::new();
        };
        let mut h = String::from("<section class=\"compare\" id=\"compare\"><h3>Pinned and current</h3>");
        if ctx.text.with(|t| *t == text) {
            h.push_str("<p class=\"hint\">The pinned schedule is the text as it is now: change the annotations (or apply a schedule of the search) to compare.</p>");
        }
        match pinned::comparison(ctx, &text) {
            Some(c) => {
                h.push_str("<div id=\"compare-metrics\">");
                h.push_str(&c.metrics);
                h.push_str("</div>");
                h.push_str(&c.timelines);
                h.push_str(&c.diff);
            }
            None => h.push_str("<p class=\"hint\">Exploring the pinned schedule…</p>"),
        }
        h.push_str("</section>");
        h
    });
    view! { <div node_ref=node></div> }
}
