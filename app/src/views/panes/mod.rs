//! The right-hand side: notices about skipped or slow work, the tabs, and the panes, each behind one
//! contract (`contract::PaneSpec`). Every pane stays in the page (hidden when not shown) and
//! remembers its scroll position across tab switches.

mod contract;
mod costs;
mod notices;
mod pinned;

use crate::ctx::{ctx, Ctx, Job};
use crate::dom;
use crate::markup::html::Html;
use crate::model::deferred::Ran;
use crate::model::roving::Axis;
use crate::services::searching;
use crate::views::render;
use crate::views::scroll::ScrollMemory;
use contract::PaneSpec;
use leptos::prelude::*;
use stagecraft_link::Pane;

/// Declares each pane's module, lists its `PANE` in `PANES` and its `view` in `boxes`, in the
/// order of the tabs.
macro_rules! registry {
    ($($pane:ident),* $(,)?) => {
        $(mod $pane;)*

        /// Every pane, in the order of its tab.
        pub const PANES: [PaneSpec; Pane::COUNT] = [$($pane::PANE),*];

        /// Every pane's box with its content, made once: each stays in the page, hidden while
        /// another is shown. A tuple of views rather than a list of type-erased ones, which cost
        /// the bundle about a kilobyte each.
        // Each pane's view erased to one type: a tuple of the panes' own types made the
        // renderer's code once per pane.
        fn boxes<R: Fn(leptos::ev::Event) + Clone + 'static>(remember: R) -> Vec<AnyView> {
            vec![$(pane_box(&$pane::PANE, remember.clone(), || $pane::view().into_any())),*]
        }
    };
}

registry![program, verification, timeline, space, code, steps, search];

/// The value shown, whichever exploration it belongs to.
fn shown<T>(ran: &Option<Ran<T>>) -> Option<&T> {
    ran.as_ref().and_then(|r| r.value.as_deref())
}

/// The spec of `pane`.
fn spec(pane: Pane) -> Option<&'static PaneSpec> {
    PANES.iter().find(|s| s.pane == pane)
}

/// The scrolling box of a pane, shown only while it is the pane shown; `remember` records its
/// offsets.
fn pane_box(
    spec: &'static PaneSpec,
    remember: impl Fn(leptos::ev::Event) + 'static,
    view: fn() -> AnyView,
) -> AnyView {
    let ctx = ctx();
    let pane = spec.pane;
    let class = move || {
        if ctx.shown(pane) {
            "pane"
        } else {
            "pane hidden"
        }
    };
    // A tab panel, focusable itself: a pane whose content has nothing to focus still scrolls by
    // keyboard.
    let notes = NodeRef::<leptos::html::Div>::new();
    render::while_visible(
        notes,
        move || ctx.shown(pane),
        move || pane_notices(ctx, pane),
    );
    view! {
        <div id=format!("pane-{}", pane.name()) class=class on:scroll=remember role="tabpanel"
            tabindex="0" aria-labelledby=format!("tab-{}", pane.name())>
            <div node_ref=notes></div>
            {view()}
        </div>
    }
    .into_any()
}

/// The notices of the exploration shown, each with the pane it is about (`None`: all of them).
fn said(ctx: Ctx) -> Vec<(Option<Pane>, String)> {
    ctx.good.with(|ex| {
        ctx.verification.with(|v| {
            ctx.timeline
                .with(|t| notices::notices(ex.as_deref(), shown(v), shown(t)))
        })
    })
}

/// The notices about `pane`, at the top of its box: the timeline's limits on the Timeline alone.
fn pane_notices(ctx: Ctx, pane: Pane) -> String {
    let said = said(ctx);
    let mut mine = said
        .iter()
        .filter(|(about, _)| *about == Some(pane))
        .peekable();
    if mine.peek().is_none() {
        return String::new();
    }
    let mut h = Html::default();
    h.raw("<ul class=\"notices pane-notices\">");
    for (_, n) in mine {
        h.raw("<li>").prose(n).raw("</li>");
    }
    h.raw("</ul>");
    h.finish()
}

#[component]
pub fn Panes() -> impl IntoView {
    let ctx = ctx();
    let scroll = expect_context::<ScrollMemory>();
    let stale = move || ctx.current.with(|ex| ex.as_ref().is_some_and(|ex| !ex.ok));
    let notes = NodeRef::<leptos::html::Div>::new();
    render::while_visible(
        notes,
        || true,
        move || {
            let mut h = Html::default();
            h.raw("<ul class=\"notices\">");
            if stale() {
                h.raw("<li class=\"stale\">Showing the last good result: fix the problems listed under the editor.</li>");
            }
            // While the verification and the timeline of a new exploration are computed, the
            // notices about the earlier ones stay: they come and go with a pause in typing
            // otherwise, and the panes below would jump each time.
            let said = said(ctx);
            for (_, n) in said.iter().filter(|(about, _)| about.is_none()) {
                h.raw("<li>").prose(n).raw("</li>");
            }
            h.raw("</ul>");
            h.finish()
        },
    );
    let remember = move |ev: leptos::ev::Event| {
        if let Some(el) = dom::target_element(&ev) {
            let id = el.id();
            let pane = Pane::parse(id.trim_start_matches("pane-"));
            if let Some(pane) = pane.filter(|p| ctx.pane.get_untracked() == *p) {
                scroll.remember(pane, &el);
            }
        }
    };
    Effect::new(move |previous: Option<Pane>| {
        let pane = ctx.pane.get();
        if previous.is_some_and(|p| p != pane) {
            // The element under the pointer is gone from view: it no longer hovers anything.
            ctx.hover(None);
            // From now on (before the browser reports the shown pane's reset offsets as scrolls)
            // its remembered offsets are being put back: after it renders, and on the next frame.
            scroll.start_restoring(pane);
            crate::dom::before_drawing(Box::new(move || {
                if let Some(selector) = ctx.reveal.try_update_value(|r| r.take()).flatten() {
                    scroll.stop_restoring();
                    dom::reveal(&selector);
                } else {
                    scroll.restore();
                }
            }));
        }
        pane
    });
    // A WAI-ARIA tablist: one tab stop (the selected tab), the arrows, Home and End move along the
    // tabs and select the tab moved to.
    let tab = move |spec: &'static PaneSpec| {
        let pane = spec.pane;
        view! {
            <button class="tab" id=format!("tab-{}", pane.name()) class:active=move || ctx.shown(pane)
                role="tab" aria-controls=format!("pane-{}", pane.name())
                aria-selected=move || if ctx.shown(pane) { "true" } else { "false" }
                tabindex=move || if ctx.shown(pane) { "0" } else { "-1" }
                on:click=move |_| ctx.st.update(|s| s.pane = pane)>{spec.label}</button>
        }
    };
    let tabs = NodeRef::<leptos::html::Nav>::new();
    let panes_box = NodeRef::<leptos::html::Div>::new();
    panes_box.on_load(|panes| searching::watch_chart_width(&panes));
    let on_tab_key = move |ev: web_sys::KeyboardEvent| {
        let Some(nav) = tabs.get_untracked() else {
            return;
        };
        if let Some(to) = dom::rove(&ev, &nav, "[role=tab]", Axis::Horizontal) {
            if let Some(pane) = Pane::parse(to.id().trim_start_matches("tab-")) {
                ctx.st.update(|s| s.pane = pane);
            }
        }
    };
    // A verification or timeline still being computed for the program shown: its pane keeps the
    // earlier one, under a veil that after a moment dims it and says what is coming (style.css),
    // so that a wait of a few frames shows nothing but the update. The veil is a sibling of the
    // panes: a class on a pane would restyle all of its content, the thousands of rectangles of a
    // large loop's chart among them.
    let pending_note = move || {
        if ctx.job.get() == Job::Starting && ctx.good.with(Option::is_none) {
            return Some("Starting Stagecraft's engine…");
        }
        spec(ctx.pane.get()).and_then(|s| (s.pending)(ctx))
    };
    view! {
        <div node_ref=notes></div>
        <nav class="tabs" role="tablist" aria-label="Panes" node_ref=tabs on:keydown=on_tab_key>
            {PANES.iter().map(tab).collect_view()}
        </nav>
        <div class="panes" class:dim=stale node_ref=panes_box>
            <div class="pending" class:hidden=move || pending_note().is_none()>
                <span role="status">{move || pending_note().unwrap_or_default()}</span>
            </div>
            {boxes(remember)}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pane_has_one_entry_in_the_registry() {
        for pane in Pane::all() {
            let entries = PANES.iter().filter(|s| s.pane == pane).count();
            assert_eq!(entries, 1, "{pane:?}");
        }
        assert!(PANES.iter().all(|s| !s.label.is_empty()));
    }
}
