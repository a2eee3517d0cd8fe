//! The few places the app touches the DOM directly, knowing nothing of the app: delegated events on
//! markup built as strings, markup kept up to date only while visible, lists rendered only near their
//! view, storage, timers after the browser's drawing, and performance marks.

use crate::markup::format::FINE_TICK_MS;
use leptos::prelude::*;
use std::cell::Cell;
use std::rc::Rc;
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
    PERFORMANCE.with(|p| p.as_ref().map_or(0.0, web_sys::Performance::now))
}

thread_local! {
    /// The page's `performance`, looked up once: finding the window and its `performance` again
    /// on every reading and mark costs more than the reading.
    static PERFORMANCE: Option<web_sys::Performance> = window().and_then(|w| w.performance());
}

/// How often `now_ms` ticks, in ms: browsers coarsen it (Chromium to 0.1 ms or finer, Firefox to
/// 1 ms), and a time shows no more digits than the clock has (`format::duration`). Watched once:
/// the shortest of up to three steps from one reading to the next, as a thread descheduled between
/// two readings makes a step longer than the tick, never shorter (one step alone, on a busy
/// machine, can make a fine clock look coarse). A fine clock is known at its first step.
pub fn clock_tick_ms() -> f64 {
    thread_local!(static TICK: Cell<f64> = const { Cell::new(0.0) });
    TICK.with(|tick| {
        if tick.get() == 0.0 {
            let mut at = next_tick(now_ms());
            let mut shortest = f64::INFINITY;
            for _ in 0..3 {
                let next = next_tick(at);
                if next > at {
                    shortest = shortest.min(next - at);
                }
                at = next;
                if shortest < FINE_TICK_MS {
                    break;
                }
            }
            tick.set(if shortest.is_finite() { shortest } else { 1.0 });
        }
        tick.get()
    })
}

/// The clock's first reading after `after` (bounded: a clock that does not move is not waited for).
fn next_tick(after: f64) -> f64 {
    (0..1_000_000)
        .map(|_| now_ms())
        .find(|&t| t != after)
        .unwrap_or(after)
}

/// A performance mark, for the browser tests' timing of edits (and the browser's profiler).
pub fn mark(name: &str) {
    PERFORMANCE.with(|p| {
        if let Some(p) = p {
            let _ = p.mark(name);
        }
    });
}

/// A performance measure between two marks.
pub fn measure(name: &str, from: &str, to: &str) {
    PERFORMANCE.with(|p| {
        if let Some(p) = p {
            let _ = p.measure_with_start_mark_and_end_mark(name, from, to);
        }
    });
}

pub fn clear_mark(name: &str) {
    PERFORMANCE.with(|p| {
        if let Some(p) = p {
            p.clear_marks_with_mark_name(name);
        }
    });
}

/// Counts events in an attribute of `<body>` that the browser tests wait on (a hidden pane is not
/// rendered, so no pane's content says that the page is ready): `data-explored`, explorations
/// published; `data-ran`, explorations whose verification and timeline were published too.
pub fn count(attribute: &str) {
    if let Some(body) = window().and_then(|w| w.document()).and_then(|d| d.body()) {
        let n = body
            .get_attribute(attribute)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        let _ = body.set_attribute(attribute, &(n + 1).to_string());
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

/// What `keep_rendered` keeps up to date, and when.
pub struct Rendering {
    /// Rendered only while this holds: a hidden pane is not rendered on every keystroke; it catches
    /// up once when shown.
    pub visible: Box<dyn Fn() -> bool>,
    pub render: Box<dyn Fn() -> String>,
    /// The chunks of a scrolled list, of which only those near its view are rendered
    /// (`show_near`).
    pub chunks: Option<Chunks>,
    /// Called after new markup is written.
    pub written: Box<dyn Fn()>,
    /// Where long markup is split into what is written at once and what is appended after it, a
    /// piece per task (`Parts`); `None` writes all of it at once.
    pub parts: Option<&'static Splitting>,
}

/// Markup written in parts: `now` at once, then each of `later` appended into the element
/// `into` (a selector within the rendered one) in a task of its own: written at once, a large
/// loop's program is one long task of parsing and building its elements.
pub struct Parts {
    pub now: String,
    pub into: &'static str,
    pub later: Vec<String>,
}

/// Where long markup is split into `Parts`: the items (each beginning with `item`, which occurs
/// nowhere else in them: their text is escaped) of the element that opens with `open` and closes
/// with the first `close` after it, of id `into`; `first` items written at once, the others
/// appended `per_task` in each task (both at least 1).
pub struct Splitting {
    pub open: &'static str,
    pub close: &'static str,
    pub item: &'static str,
    pub into: &'static str,
    pub first: usize,
    pub per_task: usize,
}

/// Chunks of lines (`<div class="chunk"`) a pane of code writes with the rest of it; the others
/// are appended `CHUNKS_PER_TASK` in each task.
pub const FIRST_CHUNKS: usize = 4;
pub const CHUNKS_PER_TASK: usize = 8;

impl Splitting {
    /// The chunks of lines of the `<pre` that begins with `open` (selected by `into`), in parts
    /// of `FIRST_CHUNKS`, then `CHUNKS_PER_TASK`: the program's and the code's panes.
    pub const fn chunks_of_lines(open: &'static str, into: &'static str) -> Splitting {
        Splitting {
            open,
            close: "</pre>",
            item: "<div class=\"chunk\"",
            into,
            first: FIRST_CHUNKS,
            per_task: CHUNKS_PER_TASK,
        }
    }

    /// `html` in parts, if its element holds more than `first` items.
    pub fn split(&self, html: &str) -> Option<Parts> {
        let open = html.find(self.open)?;
        let end = open + html.get(open..)?.find(self.close)?;
        let mut starts = html.get(..end)?.match_indices(self.item).map(|(at, _)| at);
        let first_later = starts
            .find(|&at| at > open)
            .and_then(|_| starts.nth(self.first - 1))?;
        let mut later = Vec::new();
        let mut from = first_later;
        for (k, at) in starts.enumerate() {
            if (k + 1) % self.per_task == 0 {
                later.push(html.get(from..at)?.to_owned());
                from = at;
            }
        }
        later.push(html.get(from..end)?.to_owned());
        let mut now = html.get(..first_later)?.to_owned();
        now.push_str(html.get(end..)?);
        Some(Parts {
            now,
            into: self.into,
            later,
        })
    }
}

/// Keeps the element's markup equal to `render()` while `visible()`. Rendering the same markup again
/// is skipped, so showing a pane whose exploration has not changed costs nothing and keeps its
/// scroll.
pub fn keep_rendered(node: NodeRef<leptos::html::Div>, r: Rendering) {
    // Boxed: one effect type for every use, where a generic effect per pane cost kilobytes of the
    // bundle each.
    let last = StoredValue::new(String::new());
    // Which markup was written last: pieces still to append of an older one are dropped.
    let generation = Rc::new(Cell::new(0_u64));
    Effect::new(move |_| {
        if !(r.visible)() {
            return;
        }
        let html = (r.render)();
        let Some(el) = node.get() else { return };
        if last.with_value(|l| *l != html) {
            // The keyboard's focus survives new markup: what had it, found again by its id.
            let focused = focused_id_within(&el);
            let parts = r.parts.and_then(|s| s.split(&html));
            el.set_inner_html(parts.as_ref().map_or(&html, |p| &p.now));
            if let Some(id) = focused {
                focus_by_id(&id);
            }
            generation.set(generation.get() + 1);
            if let Some(parts) = parts {
                let into = el.query_selector(parts.into).ok().flatten();
                let at = generation.get();
                let pieces = parts.later.into_iter().rev().collect();
                if let Some(into) = into {
                    append_in_tasks(into, pieces, generation.clone(), at);
                }
            }
            last.set_value(html);
            if let Some(chunks) = r.chunks {
                show_near_now_and_before_drawing(&el, chunks);
            }
            (r.written)();
        }
    });
}

/// Appends the last of `pieces` into `into` in a task of its own, then the one before it, and so
/// on, while `generation` is still `at` (the markup they belong to is the one written last). One
/// piece per frame drawn: in tasks of their own alone, all the pieces of a large chart are
/// appended before the next frame, which then styles every bar at once.
fn append_in_tasks(
    into: web_sys::Element,
    mut pieces: Vec<String>,
    generation: Rc<Cell<u64>>,
    at: u64,
) {
    after_drawing(Box::new(move || {
        if generation.get() != at {
            return;
        }
        if let Some(piece) = pieces.pop() {
            let _ = into.insert_adjacent_html("beforeend", &piece);
            append_in_tasks(into, pieces, generation, at);
        }
    }));
}

/// The id of the element that has the keyboard focus, if it is inside `el` and has one.
fn focused_id_within(el: &web_sys::Element) -> Option<String> {
    let active = window()?.document()?.active_element()?;
    (el.contains(Some(&active)) && !active.id().is_empty()).then(|| active.id())
}

/// Gives the keyboard focus to the element of id `id`, without scrolling to it.
pub fn focus_by_id(id: &str) {
    if let Some(input) = by_id(id).and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok()) {
        // A field rewritten while typed in: what is typed next replaces its value.
        let _ = input.focus();
        input.select();
    } else if let Some(el) = by_id(id).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    } else if let Some(el) = by_id(id).and_then(|e| e.dyn_into::<web_sys::SvgElement>().ok()) {
        let _ = el.focus();
    }
}

/// Moves the keyboard focus within the list of `items` (a selector) inside `container` as `key`
/// says (`model::roving`), keeping the list one tab stop: the item moved to gets `tabindex="0"`,
/// the others `-1`. Returns the item focused, or `None` when the key moves nothing (the event is
/// then left alone).
pub fn rove(
    ev: &web_sys::KeyboardEvent,
    container: &web_sys::Element,
    items: &str,
    axis: crate::model::roving::Axis,
) -> Option<web_sys::Element> {
    let target = target_element(ev)?;
    let list = container.query_selector_all(items).ok()?;
    let all: Vec<web_sys::Element> = (0..list.length())
        .filter_map(|k| list.item(k))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .collect();
    let at = all.iter().position(|e| *e == target)?;
    let to = crate::model::roving::next(&ev.key(), axis, at, all.len())?;
    ev.prevent_default();
    let next = all.get(to)?;
    for e in &all {
        let _ = e.set_attribute("tabindex", if e == next { "0" } else { "-1" });
    }
    if let Some(h) = next.dyn_ref::<web_sys::HtmlElement>() {
        let _ = h.focus();
    } else if let Some(s) = next.dyn_ref::<web_sys::SvgElement>() {
        let _ = s.focus();
    }
    Some(next.clone())
}

/// Runs `f` in a task after the browser's next rendering: a timeout set in an animation frame runs
/// once that frame is drawn (a timeout alone may run first, and the page would show nothing new
/// until `f` returns).
pub fn after_drawing(f: Box<dyn FnOnce()>) {
    before_drawing(Box::new(move || in_a_task(f)));
}

/// Runs `f` before the browser next draws (an animation frame). Boxed, as `in_a_task`.
pub fn before_drawing(f: Box<dyn FnOnce()>) {
    request_animation_frame(f);
}

/// Runs `f` in a task of its own, after those already queued (a timeout of 0): input can be
/// handled before it. Boxed, as every closure given to the browser's timers: each closure type
/// costs its own glue in the bundle.
pub fn in_a_task(f: Box<dyn FnOnce()>) {
    set_timeout(f, std::time::Duration::ZERO);
}

/// Runs `f` in a task of its own after `ms` milliseconds.
pub fn after_ms(ms: u64, f: Box<dyn FnOnce()>) {
    set_timeout(f, std::time::Duration::from_millis(ms));
}

/// `show_near` after a list is written, and again before the browser draws it: what else is written
/// in the same task can move the list (the grid's new rows shrink the editor above it).
pub fn show_near_now_and_before_drawing(scroller: &web_sys::Element, chunks: Chunks) {
    show_near(scroller, chunks);
    show_near_before_drawing(scroller, chunks);
}

/// `show_near` before the browser next draws, only: for a list written outside an animation frame
/// (whose next frame then comes before any drawing), where reading the geometry at once would lay
/// the page out twice in a row.
pub fn show_near_before_drawing(scroller: &web_sys::Element, chunks: Chunks) {
    let scroller = scroller.clone();
    before_drawing(Box::new(move || show_near(&scroller, chunks)));
}

/// Calls `on_resize` with the new content box of `el` whenever its size changes (and once when it
/// is first laid out), for the page's life, as the elements observed are kept.
pub fn on_resize(el: &web_sys::Element, on_resize: impl Fn(web_sys::DomRectReadOnly) + 'static) {
    use wasm_bindgen::JsCast;
    let callback = wasm_bindgen::closure::Closure::<dyn Fn(js_sys::Array)>::new(
        move |entries: js_sys::Array| {
            if let Ok(entry) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() {
                on_resize(entry.content_rect());
            }
        },
    );
    if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(el);
    }
    callback.forget();
}

/// `show_near` whenever the window is resized: a taller box shows more of its list.
pub fn show_near_on_resize(
    scroller: impl Fn() -> Option<web_sys::Element> + 'static,
    chunks: Chunks,
) {
    // Kept for the page's life, as the components are.
    let _ = window_event_listener_untyped("resize", move |_| {
        if let Some(el) = scroller() {
            show_near(&el, chunks);
        }
    });
}

/// A scrolled list written in chunks of class `class` (`Html::chunk`), of which `show_near`
/// renders only those near what its box shows; the others get the attribute `hidden`, of value
/// `hidden`: `until-found` display-locks a chunk (style.css: not styled, laid out or painted) and
/// the browser's find in page still reveals it; `""` hides it outright, for chunks holding form
/// fields: Chrome's autofill, looking through every field of a page after it changes, lays the
/// page out again for each display-locked element that holds one.
#[derive(Clone, Copy)]
pub struct Chunks {
    pub class: &'static str,
    pub hidden: &'static str,
}

/// Renders only the `chunks` of a scrolled list that lie within one box height of what `scroller`
/// shows, and hides the others (`Chunks::hidden`).
/// `content-visibility: auto` alone renders whatever lies within one and a half *window* heights of
/// the screen: in the grid's small box, many times the rows seen, with their inputs and buttons,
/// each styled and laid out. Reading the geometry lays out the page, cheaply while newly written
/// chunks are still skipped.
///
/// Every chunk is measured before any is changed: reading a chunk's place after changing another
/// lays the page out again, once per chunk. A chunk is sized by its line count whether hidden or
/// not, so changing one moves none of the others.
pub fn show_near(scroller: &web_sys::Element, chunks: Chunks) {
    let list = scroller.get_elements_by_class_name(chunks.class);
    // One chunk is the whole list, always near its view (and written shown): no geometry read,
    // which would lay the page out.
    if list.length() <= 1 {
        return;
    }
    let view = scroller.get_bounding_client_rect();
    let (top, bottom) = (view.top() - view.height(), view.bottom() + view.height());
    let changes: Vec<(web_sys::Element, bool)> = (0..list.length())
        .filter_map(|k| list.item(k))
        .filter_map(|chunk| {
            let at = chunk.get_bounding_client_rect();
            let near = at.bottom() > top && at.top() < bottom;
            (near == chunk.has_attribute("hidden")).then_some((chunk, near))
        })
        .collect();
    for (chunk, near) in changes {
        let _ = if near {
            chunk.remove_attribute("hidden")
        } else {
            chunk.set_attribute("hidden", chunks.hidden)
        };
    }
}

/// Scrolls what `selector` finds into view and gives it the keyboard focus if it takes it (else
/// the tab panel it is in): a "Show in …" pressed by keyboard leaves the focus where it showed.
pub fn reveal(selector: &str) {
    let found = window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(selector).ok().flatten());
    if let Some(el) = found {
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Center);
        options.set_inline(web_sys::ScrollLogicalPosition::Nearest);
        el.scroll_into_view_with_scroll_into_view_options(&options);
        let focusable = if el.has_attribute("tabindex") {
            Some(el)
        } else {
            el.closest("[role=tabpanel]").ok().flatten()
        };
        if let Some(h) = focusable
            .as_ref()
            .and_then(|e| e.dyn_ref::<web_sys::HtmlElement>())
        {
            let _ = h.focus();
        }
    }
}
