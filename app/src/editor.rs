//! The source editor: a transparent textarea over a highlighted copy of the same text.

use crate::ctx::ctx;
use crate::{dom, highlight};
use leptos::prelude::*;

#[component]
pub fn Editor() -> impl IntoView {
    let ctx = ctx();
    let overlay = NodeRef::<leptos::html::Pre>::new();
    // Between an edit and its exploration the textarea shows its own text: rebuilding the overlay
    // per keystroke would pair the new text with the old tokens, and costs ≈ 50 ms on a large text.
    let plain = move || ctx.text.with(|t| ctx.explored_text.with(|h| h != t));
    // Rebuilt with each exploration, never on hover (the focus style sheet tints statements
    // through their classes).
    let overlay_html = move || {
        let text = ctx.explored_text.get();
        ctx.current.with(|ex| match ex {
            Some(ex) => highlight::editor_html(&text, &ex.tokens, &ex.diagnostics, &ex.statements),
            None => highlight::editor_html(&text, &[], &[], &[]),
        })
    };
    // Another exploration of the same text (another form, parameter or code target) leaves the
    // overlay as it is.
    let written = StoredValue::new(String::new());
    Effect::new(move |_| {
        let html = overlay_html();
        let Some(pre) = overlay.get() else { return };
        if written.with_value(|w| *w != html) {
            pre.set_inner_html(&html);
            written.set_value(html);
            // The text alone, before anything is explored, is written in the page's first task,
            // not in a frame: read at once, the geometry laid out the whole page in it (10 ms of
            // that task's 35), and the browser's next frame would lay it out again.
            if ctx.current.with_untracked(Option::is_none) {
                dom::show_near_before_drawing(&pre, "chunk");
            } else {
                dom::show_near_now_and_before_drawing(&pre, "chunk");
            }
        }
    });
    dom::show_near_on_resize(move || overlay.get_untracked().map(Into::into), "chunk");
    let sync_scroll = move |ev: leptos::ev::Event| {
        if let (Some(t), Some(pre)) = (dom::target_element(&ev), overlay.get()) {
            pre.set_scroll_top(t.scroll_top());
            pre.set_scroll_left(t.scroll_left());
            dom::show_near(&pre, "chunk");
        }
    };
    let on_input = move |ev: leptos::ev::Event| {
        dom::mark("stagecraft:edit");
        let v = event_target_value(&ev);
        ctx.set_text(v);
    };
    view! {
        <div class="editor" class:plain=plain>
            <pre class="overlay" node_ref=overlay aria-hidden="true"></pre>
            <textarea id="source" spellcheck="false" autocomplete="off"
                prop:value=move || ctx.text.get()
                on:input=on_input
                on:scroll=sync_scroll></textarea>
        </div>
    }
}
