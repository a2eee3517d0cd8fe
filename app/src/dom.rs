//! The few places the app touches the DOM directly: delegated events on markup built as strings,
//! panes rendered only while visible, scroll memory, storage and performance marks.

use crate::ctx::Ctx;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

pub fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

pub fn by_id(id: &str) -> Option<web_sys::Element> {
    window()?.document()?.get_element_by_id(id)
}

pub fn storage() -> Option<web_sys::Storage> {
    window()?.local_storage().ok().flatten()
}

pub fn now_ms() -> f64 {
    window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// A performance mark, for the browser tests' timing of edits (and the browser's profiler).
pub fn mark(name: &str) {
    if let Some(p) = window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// A performance measure between two marks.
pub fn measure(name: &str, from: &str, to: &str) {
    if let Some(p) = window().and_then(|w| w.performance()) {
        let _ = p.measure_with_start_mark_and_end_mark(name, from, to);
    }
}

pub fn clear_mark(name: &str) {
    if let Some(p) = window().and_then(|w| w.performance()) {
        p.clear_marks_with_mark_name(name);
    }
}

/// Counts published explorations in `<body data-explored>`: the browser tests wait on it (a hidden
/// pane is not rendered, so no pane's content says that the page is ready).
pub fn count_exploration() {
    if let Some(body) = window().and_then(|w| w.document()).and_then(|d| d.body()) {
        let n = body
            .get_attribute("data-explored")
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        let _ = body.set_attribute("data-explored", &(n + 1).to_string());
    }
}

/// The element under an event, as an `Element`.
pub fn target_element(ev: &web_sys::Event) -> Option<web_sys::Element> {
    ev.target()?.dyn_into::<web_sys::Element>().ok()
}

/// The value of `attr` on the event's target or its nearest ancestor that has it: how handlers on a
/// container learn which generated row, line or button the event is about.
pub fn closest_data(ev: &web_sys::Event, attr: &str) -> Option<String> {
    let el = target_element(ev)?;
    el.closest(&format!("[{attr}]")).ok()??.get_attribute(attr)
}

/// The value of a form control an event came from.
pub fn target_value(ev: &web_sys::Event) -> Option<String> {
    let el = target_element(ev)?;
    if let Some(input) = el.dyn_ref::<web_sys::HtmlInputElement>() {
        return Some(input.value());
    }
    el.dyn_ref::<web_sys::HtmlSelectElement>()
        .map(|s| s.value())
}

/// Keeps the element's markup equal to `render()` while `visible()`. A hidden pane is not rendered
/// on every keystroke; it catches up once when shown. Rendering the same markup again is skipped, so
/// showing a pane whose exploration has not changed costs nothing and keeps its scroll.
pub fn render_while_visible(
    node: NodeRef<leptos::html::Div>,
    visible: impl Fn() -> bool + 'static,
    render: impl Fn() -> String + 'static,
) {
    // One effect type for every use: a generic effect per pane cost kilobytes of the bundle each.
    keep_rendered(crate::ctx::ctx(), node, Box::new(visible), Box::new(render));
}

fn keep_rendered(
    ctx: Ctx,
    node: NodeRef<leptos::html::Div>,
    visible: Box<dyn Fn() -> bool>,
    render: Box<dyn Fn() -> String>,
) {
    let last = StoredValue::new(String::new());
    Effect::new(move |_| {
        if !visible() {
            return;
        }
        let html = render();
        let Some(el) = node.get() else { return };
        if last.with_value(|l| *l != html) {
            el.set_inner_html(&html);
            last.set_value(html);
            // New content may be what a pane being shown again needed to reach its offsets.
            ctx.scroll.restore();
        }
    });
}

/// Scrolls the pending `ctx.reveal` target into view, after the pane showing it has rendered.
pub fn reveal_now(ctx: Ctx) {
    request_animation_frame(move || {
        if let Some(selector) = ctx.reveal.try_update_value(|r| r.take()).flatten() {
            scroll_into_view(&selector);
        }
    });
}

pub fn scroll_into_view(selector: &str) {
    let found = window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(selector).ok().flatten());
    if let Some(el) = found {
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Center);
        options.set_inline(web_sys::ScrollLogicalPosition::Nearest);
        el.scroll_into_view_with_scroll_into_view_options(&options);
    }
}
