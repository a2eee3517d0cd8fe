//! What a pane is to the page, as Compiler Explorer has its panes behind one interface: an id that
//! links name (`Pane`), a tab label, what its veil says while its content is computed (`PaneSpec`),
//! and its content (`view`). The frame (`Panes`) gives every pane its tab, its scrolling box
//! (remembered across tab switches) and its veil; a pane renders its content only while it is
//! shown (`render_while_shown`).
//!
//! Adding a pane: its name in `stagecraft_link::Pane`, a file here that defines `pub const PANE:
//! PaneSpec` and `pub fn view() -> impl IntoView`, and its name in the registry (`registry!` in
//! `mod.rs`).

use crate::ctx::{ctx, Ctx};
use crate::views::render;
use leptos::prelude::*;
use stagecraft_link::Pane;

pub struct PaneSpec {
    pub pane: Pane,
    /// The tab's text.
    pub label: &'static str,
    /// What the pane's veil says while what it shows is still that of an earlier program (`None`:
    /// it is not).
    pub pending: fn(Ctx) -> Option<&'static str>,
}

/// For a pane that draws the exploration itself, which is never pending.
pub fn never_pending(_: Ctx) -> Option<&'static str> {
    None
}

/// Keeps `node`'s markup equal to `render()` while `pane` is shown: a hidden pane is not rendered on
/// every keystroke, and catches up once when shown.
pub fn render_while_shown(
    node: NodeRef<leptos::html::Div>,
    pane: Pane,
    render: impl Fn() -> String + 'static,
) {
    let ctx = ctx();
    render::while_visible(node, move || ctx.shown(pane), render);
}

/// `render_while_shown`, and `then()` after each new markup is written.
pub fn render_while_shown_then(
    node: NodeRef<leptos::html::Div>,
    pane: Pane,
    render: impl Fn() -> String + 'static,
    then: impl Fn() + 'static,
) {
    let ctx = ctx();
    render::while_visible_then(node, move || ctx.shown(pane), render, then);
}

/// `render_while_shown`, long markup written in the parts `parts` splits it into
/// (`dom::Parts`).
pub fn render_in_parts_while_shown(
    node: NodeRef<leptos::html::Div>,
    pane: Pane,
    render: impl Fn() -> String + 'static,
    parts: &'static crate::dom::Splitting,
) {
    let ctx = ctx();
    render::while_visible_in_parts(node, move || ctx.shown(pane), render, Some(parts));
}
