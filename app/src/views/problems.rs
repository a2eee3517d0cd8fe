//! Errors and warnings with their place; clicking one (or Enter on it) selects its span in the
//! editor.

use crate::ctx::ctx;
use crate::dom;
use crate::markup::html::Html;
use crate::views::editor::byte_to_utf16;
use crate::views::render;
use leptos::prelude::*;
use stagecraft::diagnostic::{line_col, Diagnostic, Severity};
use wasm_bindgen::JsCast;

pub fn problems_html(text: &str, diagnostics: &[Diagnostic]) -> String {
    let mut h = Html::default();
    h.raw("<ul id=\"problems\" class=\"problems\">");
    for d in diagnostics {
        let (line, col) = line_col(text, d.span.start as usize);
        let severity = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        h.raw("<li class=\"")
            .raw(severity)
            .raw("\" data-span=\"")
            .num(d.span.start)
            .raw(" ")
            .num(d.span.end)
            .raw("\" tabindex=\"0\"><span class=\"where\">")
            .num(line)
            .raw(":")
            .num(col)
            .raw("</span> ")
            .prose(&d.message);
        if let Some(hint) = &d.hint {
            h.raw("<div class=\"hint\">").prose(hint).raw("</div>");
        }
        h.raw("</li>");
    }
    h.raw("</ul>");
    h.finish()
}

/// Selects bytes `start..end` of the text in the editor (the textarea counts UTF-16 units).
pub fn select_in_editor(text: &str, start: u32, end: u32) {
    let Some(t) =
        dom::by_id("source").and_then(|e| e.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
    else {
        return;
    };
    let _ = t.focus();
    let _ = t.set_selection_range(byte_to_utf16(text, start), byte_to_utf16(text, end));
}

#[component]
pub fn Problems() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    render::while_visible(
        node,
        || true,
        move || {
            let text = ctx.explored_text.get();
            ctx.current
                .with(|ex| ex.as_ref().map(|ex| problems_html(&text, &ex.diagnostics)))
                .unwrap_or_default()
        },
    );
    let go = move |ev: &web_sys::Event| {
        let Some(span) = dom::closest_data(ev, "data-span") else {
            return;
        };
        let mut parts = span.split(' ').map(|p| p.parse::<u32>().unwrap_or(0));
        let (start, end) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        ctx.st
            .with_untracked(|s| select_in_editor(&s.text, start, end));
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if ev.key() == "Enter" {
            ev.prevent_default();
            go(&ev);
        }
    };
    view! {
        <div class="problems-wrap" node_ref=node on:click=move |ev| go(&ev) on:keydown=on_key></div>
    }
}
