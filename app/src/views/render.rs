//! Markup kept equal to what a view renders (`dom::keep_rendered`), for every view of the page: after
//! new markup is written, a pane being shown again may at last reach its remembered scroll offsets.

use super::scroll::ScrollMemory;
use crate::dom::{self, Rendering};
use leptos::prelude::*;

/// What to do after new markup is written: let the pane being shown again, if any, scroll back,
/// before the next frame: at once, it would lay out the markup of every view not yet rendered
/// again — the shown pane's old content among them (`ScrollMemory::start_restoring`).
fn written() -> Box<dyn Fn()> {
    let scroll = use_context::<ScrollMemory>();
    Box::new(move || {
        // Most renders are edits, with no pane being shown again: no frame callback for them.
        if let Some(scroll) = scroll.filter(ScrollMemory::is_restoring) {
            dom::before_drawing(Box::new(move || scroll.restore()));
        }
    })
}

/// Keeps `node`'s markup equal to `render()` while `visible()`: a hidden pane catches up once when
/// shown.
pub fn while_visible(
    node: NodeRef<leptos::html::Div>,
    visible: impl Fn() -> bool + 'static,
    render: impl Fn() -> String + 'static,
) {
    while_visible_in_parts(node, visible, render, None);
}

/// `while_visible`, and `then()` after each new markup is written (what the page sets on markup
/// it does not write itself).
pub fn while_visible_then(
    node: NodeRef<leptos::html::Div>,
    visible: impl Fn() -> bool + 'static,
    render: impl Fn() -> String + 'static,
    then: impl Fn() + 'static,
) {
    let written = written();
    keep(
        node,
        visible,
        render,
        Box::new(move || {
            written();
            then();
        }),
        None,
    );
}

/// `while_visible`, long markup written in the parts `parts` splits it into.
pub fn while_visible_in_parts(
    node: NodeRef<leptos::html::Div>,
    visible: impl Fn() -> bool + 'static,
    render: impl Fn() -> String + 'static,
    parts: Option<&'static dom::Splitting>,
) {
    keep(node, visible, render, written(), parts);
}

fn keep(
    node: NodeRef<leptos::html::Div>,
    visible: impl Fn() -> bool + 'static,
    render: impl Fn() -> String + 'static,
    written: Box<dyn Fn()>,
    parts: Option<&'static dom::Splitting>,
) {
    dom::keep_rendered(
        node,
        Rendering {
            visible: Box::new(visible),
            render: Box::new(render),
            chunks: None,
            written,
            parts,
        },
    );
}

/// Keeps the markup of a scrolled element, whose lists are in `chunks`, equal to
/// `render()`, with only the chunks near what it shows rendered (`dom::show_near`).
pub fn near(
    node: NodeRef<leptos::html::Div>,
    render: impl Fn() -> String + 'static,
    chunks: dom::Chunks,
) {
    dom::keep_rendered(
        node,
        Rendering {
            visible: Box::new(|| true),
            render: Box::new(render),
            chunks: Some(chunks),
            written: written(),
            parts: None,
        },
    );
}
