//! The source editor: a transparent textarea over a highlighted copy of the same text.

use crate::ctx::{ctx, Ctx};
use crate::dom;
use crate::markup::highlight::{self, OverlayView};
use crate::model::history::Kind;
use crate::model::indent;
use crate::model::large::{coloured_as_typed, large_text};
use crate::model::moved::moved;
use crate::services::exploring;
use leptos::prelude::*;
use stagecraft::diagnostic::Diagnostic;
use stagecraft::explore::StatementInfo;
use std::ops::Range;
use wasm_bindgen::JsCast;

/// Which chunks of the overlay are shown, and the view that says which should be: kept from the
/// textarea's scroll events and the overlay's resize observer, so that no element's place is
/// read to know them (a read lays the page out; in the frame of a keystroke or of an exploration
/// it was that frame's longest part).
#[derive(Clone, Default)]
struct Shown {
    view: OverlayView,
    /// The overlay's lines, as last written.
    lines: usize,
    chunks: Range<usize>,
}

#[component]
pub fn Editor() -> impl IntoView {
    let ctx = ctx();
    let overlay = NodeRef::<leptos::html::Pre>::new();
    let area = NodeRef::<leptos::html::Textarea>::new();
    take_over_early(ctx, area);
    let shown = StoredValue::new(Shown {
        chunks: 0..1,
        ..Shown::default()
    });
    overlay.on_load(move |pre| observe_size(pre.into(), area, shown));
    // The text the overlay shows. Between an edit and the overlay of its exploration the textarea
    // shows its own text: rebuilding the overlay per keystroke would pair the new text with the old
    // tokens, and is a long task on a large text.
    let overlaid = write_overlays(ctx, overlay, shown);
    let plain = move || drawn_plain(ctx, overlaid);
    // A large text is drawn by the textarea itself, the overlay only underlines its problems and
    // tints its statements: colouring the textarea's text again after each exploration made the
    // browser lay all of it out again (`model::large`, docs/limits.md).
    let textarea_draws = move || ctx.text.with(|t| large_text(t));
    let sync_scroll = move |ev: leptos::ev::Event| {
        if let (Some(t), Some(pre)) = (dom::target_element(&ev), overlay.get()) {
            let top = t.scroll_top();
            pre.set_scroll_top(top);
            pre.set_scroll_left(t.scroll_left());
            shown.update_value(|s| s.view.scroll_top = f64::from(top));
            show_chunks_near(&pre, shown);
        }
    };
    // A paste or a drop that would make a text Stagecraft does not read (too many bytes or lines)
    // is refused before it lands in the editor, which the browser lays out whole, in one long task
    // for a text beyond the limits. The text stays as it was, and the banner says why.
    let refuse_beyond_limits = move |ev: &web_sys::Event, after: &str, verb: &str| {
        if let Some(why) = stagecraft::limits::source_beyond_limits(after) {
            ev.prevent_default();
            ctx.banner
                .set(Some(format!("Not {verb}: {why}. Your text is as it was.")));
        }
    };
    let area_of = |ev: &web_sys::Event| {
        dom::target_element(ev).and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
    };
    let plain_text =
        |data: Option<web_sys::DataTransfer>| data.and_then(|d| d.get_data("text/plain").ok());
    let on_paste = move |ev: web_sys::ClipboardEvent| {
        let Some(area) = area_of(&ev) else { return };
        let Some(pasted) = plain_text(ev.clipboard_data()) else {
            return;
        };
        let from = area.selection_start().ok().flatten().unwrap_or(0);
        let to = area.selection_end().ok().flatten().unwrap_or(from);
        refuse_beyond_limits(
            &ev,
            &after_paste(&area.value(), from, to, &pasted),
            "pasted",
        );
    };
    // A drop from elsewhere adds its text wherever it lands; a drag of the editor's own selection
    // only moves text, and is let through.
    let dragging_own = StoredValue::new(false);
    let on_drop = move |ev: web_sys::DragEvent| {
        if dragging_own.get_value() {
            return;
        }
        let Some(area) = area_of(&ev) else { return };
        let Some(dropped) = plain_text(ev.data_transfer()) else {
            return;
        };
        refuse_beyond_limits(&ev, &[area.value(), dropped].concat(), "dropped");
    };
    // Escape lets the next Tab leave the editor (it indents otherwise), as code editors do.
    let escaped = StoredValue::new(false);
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        let after_escape = escaped.get_value();
        escaped.set_value(key == "Escape");
        if let Some(redo) = undo_key(&ev) {
            ev.prevent_default();
            if let Some(area) = area_of(&ev) {
                undo(ctx, &area, redo);
                reveal_caret(&area, shown.with_value(|s| s.view));
            }
            return;
        }
        if ev.alt_key() || ev.ctrl_key() || ev.meta_key() || ev.is_composing() {
            return;
        }
        let Some(area) = area_of(&ev) else { return };
        let edit = |f: fn(&str, usize, usize) -> indent::Edit| {
            let text = area.value();
            let from = area.selection_start().ok().flatten().unwrap_or(0);
            let to = area.selection_end().ok().flatten().unwrap_or(from);
            let e = f(&text, utf16_to_byte(&text, from), utf16_to_byte(&text, to));
            ev.prevent_default();
            replace(&area, &text, &e);
            reveal_caret(&area, shown.with_value(|s| s.view));
        };
        match key.as_str() {
            "Tab" if after_escape => {}
            "Tab" if ev.shift_key() => edit(indent::dedent),
            "Tab" => edit(indent::indent),
            "Enter" if !ev.shift_key() => edit(indent::enter),
            _ => {}
        }
    };
    let on_input = move |ev: leptos::ev::Event| {
        dom::mark("stagecraft:edit");
        let kind = match ev.dyn_ref::<web_sys::InputEvent>().map(|e| e.input_type()) {
            Some(t) if t == "insertText" || t == "insertLineBreak" => Kind::Typing,
            Some(t) if t == "deleteContentBackward" => Kind::DeletingBack,
            Some(t) if t == "deleteContentForward" => Kind::DeletingForward,
            _ => Kind::Other,
        };
        ctx.edit_text(event_target_value(&ev), kind);
        exploring::ask_now();
    };
    // The browser's own undo (its Edit menu, the context menu) is the page's, as Ctrl+Z is.
    let on_beforeinput = move |ev: web_sys::InputEvent| {
        let redo = match ev.input_type().as_str() {
            "historyUndo" => false,
            "historyRedo" => true,
            _ => return,
        };
        ev.prevent_default();
        if let Some(area) = area_of(&ev) {
            undo(ctx, &area, redo);
            reveal_caret(&area, shown.with_value(|s| s.view));
        }
    };
    view! {
        <div class="editor" class:plain=plain class:large=textarea_draws>
            <pre class="overlay" node_ref=overlay aria-hidden="true"></pre>
            <span id="editor-keys" class="hidden">"Tab indents and Shift+Tab dedents; press Escape, then Tab, to leave the editor."</span>
            <textarea id="source" spellcheck="false" autocomplete="off" node_ref=area
                prop:value=move || ctx.text.get()
                aria-label="Loop source" aria-describedby="editor-keys"
                on:input=on_input
                on:beforeinput=on_beforeinput
                on:keydown=on_keydown
                on:blur=move |_| {
                    escaped.set_value(false);
                    exploring::ask_owed_now();
                }
                on:paste=on_paste
                on:drop=on_drop
                on:dragstart=move |_| dragging_own.set_value(true)
                on:dragend=move |_| dragging_own.set_value(false)
                on:scroll=sync_scroll></textarea>
        </div>
    }
}

/// Whether the textarea draws the text while the overlay shows another (`overlaid`). A short
/// text's overlay is written as typed, in the same task (`write_overlays`): it is never drawn
/// plain once there is an exploration, and the class is not set and unset meanwhile (which styles
/// the overlay and the textarea again).
fn drawn_plain(ctx: Ctx, overlaid: RwSignal<String>) -> bool {
    ctx.text.with(|t| {
        !(coloured_as_typed(t) && ctx.current.with(Option::is_some)) && overlaid.with(|o| o != t)
    })
}

/// Takes over index.html's editor (`#early`, the default example shown before the page's
/// WebAssembly runs): it is removed as this editor is built, in the same task, so that a frame
/// never shows neither; what was typed into it becomes the text (one edit, which Undo takes back);
/// its caret, scroll and keyboard focus move to this editor (`area`) once it is in the page. A
/// tab that opened a link or saved work never showed it (assets/guard.js's `returning`), and
/// what it holds is not taken.
fn take_over_early(ctx: Ctx, area: NodeRef<leptos::html::Textarea>) {
    let Some(early) = dom::by_id("early") else {
        return;
    };
    let shown = dom::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|html| html.get_attribute("class"))
        .is_none_or(|class| !class.split_whitespace().any(|c| c == "returning"));
    let typed = early
        .query_selector("textarea")
        .ok()
        .flatten()
        .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
        .filter(|_| shown);
    let focused = typed.as_ref().is_some_and(|t| {
        dom::window()
            .and_then(|w| w.document())
            .and_then(|d| d.active_element())
            .is_some_and(|a| a.is_same_node(Some(t.as_ref())))
    });
    early.remove();
    let Some(typed) = typed else { return };
    let text = typed.value();
    if text != stagecraft_link::presets::DEFAULT
        && ctx
            .st
            .with_untracked(|s| s.text == stagecraft_link::presets::DEFAULT)
    {
        ctx.edit_text(text.clone(), Kind::Other);
    }
    let (from, to) = (
        typed.selection_start().ok().flatten().unwrap_or(0),
        typed.selection_end().ok().flatten().unwrap_or(0),
    );
    let (top, left) = (typed.scroll_top(), typed.scroll_left());
    // The text, the focus, the caret and the scroll as soon as this editor is in the document
    // (before its bound value is set, a task later: set then to the same text, it keeps the
    // caret), so that a keystroke lands where it would have; again before the first frame draws
    // it, unless something was typed meanwhile.
    leptos::task::spawn_local(async move {
        let Some(area) = area.get_untracked() else {
            return;
        };
        let restore = move |area: &web_sys::HtmlTextAreaElement| {
            area.set_scroll_top(top);
            area.set_scroll_left(left);
            if focused {
                let _ = area.focus();
                let _ = area.set_selection_range(from, to);
            }
        };
        if area.value().is_empty() {
            area.set_value(&text);
        }
        restore(&area);
        dom::before_drawing(Box::new(move || {
            if area.value() == text {
                restore(&area);
            }
        }));
    });
}

/// Whether `ev` is undo (`Some(false)`: Ctrl+Z, ⌘Z) or redo (`Some(true)`: Ctrl+Shift+Z, Ctrl+Y,
/// ⇧⌘Z).
pub fn undo_key(ev: &web_sys::KeyboardEvent) -> Option<bool> {
    if !(ev.ctrl_key() || ev.meta_key()) || ev.alt_key() {
        return None;
    }
    match ev.key().as_str() {
        "z" | "Z" => Some(ev.shift_key()),
        "y" | "Y" if ev.ctrl_key() => Some(true),
        _ => None,
    }
}

/// Undoes (`redo`: redoes) a step of the text in `area`, selecting what the step changed.
pub fn undo(ctx: Ctx, area: &web_sys::HtmlTextAreaElement, redo: bool) {
    let Some((text, (from, to))) = ctx.undo_text(redo) else {
        return;
    };
    area.set_value(&text);
    let _ = area.set_selection_range(
        byte_to_utf16(&text, from as u32),
        byte_to_utf16(&text, to as u32),
    );
}

/// Shows the overlay's chunks near its view and hides those that no longer are, by `shown`'s view
/// alone.
fn show_chunks_near(pre: &web_sys::Element, shown: StoredValue<Shown>) {
    let Some((was, near)) = shown.try_update_value(|s| {
        let near = highlight::chunks_near(&s.view, s.lines);
        (std::mem::replace(&mut s.chunks, near.clone()), near)
    }) else {
        return;
    };
    if was == near {
        return;
    }
    let chunks = pre.children();
    for k in was.clone().filter(|k| !near.contains(k)) {
        if let Some(chunk) = chunks.item(k as u32) {
            let _ = chunk.set_attribute("hidden", highlight::CHUNK_HIDDEN);
        }
    }
    for k in near.filter(|k| !was.contains(k)) {
        if let Some(chunk) = chunks.item(k as u32) {
            let _ = chunk.remove_attribute("hidden");
        }
    }
}

/// Keeps `shown`'s view the size of the overlay `pre`, from a resize observer: it reports the size
/// the browser's layout found, after that layout, so nothing is laid out to know it. The line
/// height and the padding are read from its style once (a style read, not a layout). When the
/// box shrinks under the caret's line (the problems listed below the editor grew after the last
/// key), that line is scrolled back into view.
fn observe_size(
    pre: web_sys::Element,
    area: NodeRef<leptos::html::Textarea>,
    shown: StoredValue<Shown>,
) {
    let observed = pre.clone();
    dom::on_resize(&pre, move |content| {
        let before = shown.with_value(|s| s.view);
        let known = shown.with_value(|s| s.view.line > 0.0);
        let style = (!known)
            .then(|| dom::window()?.get_computed_style(&observed).ok().flatten())
            .flatten();
        let px = |name: &str| {
            style
                .as_ref()
                .and_then(|st| st.get_property_value(name).ok())
                // The browser's number reader: Rust's float parser is kilobytes of the page.
                .map(|v| js_sys::Number::parse_float(&v))
                .filter(|v| v.is_finite())
                .unwrap_or(0.0)
        };
        shown.update_value(|s| {
            if style.is_some() {
                s.view.line = px("line-height");
                s.view.pad = px("padding-top");
            }
            s.view.height = content.height() + 2.0 * s.view.pad;
        });
        let after = shown.with_value(|s| s.view);
        if let Some(area) = area
            .get_untracked()
            .filter(|_| after.height < before.height)
        {
            if caret_line(&area).is_some_and(|line| highlight::line_in_view(&before, line)) {
                reveal_caret(&area, after);
            }
        }
        show_chunks_near(&observed, shown);
    });
}

/// The line (from 0) the caret is on, while the editor has the focus.
fn caret_line(area: &web_sys::HtmlTextAreaElement) -> Option<usize> {
    let focused = dom::window()?.document()?.active_element()?;
    if !focused.is_same_node(Some(area)) {
        return None;
    }
    let text = area.value();
    let at = utf16_to_byte(&text, area.selection_start().ok()??);
    Some(stagecraft::diagnostic::line_col(&text, at).0 - 1)
}

/// Scrolls the editor to the caret's line if it is not shown, as the browser does after a key
/// it handles itself: after an edit the page makes (Enter's indentation, Tab), and when the box
/// shrinks under the line. `view` gives the lines' geometry; the scroll is read anew. Its scroll
/// event moves the overlay with it.
fn reveal_caret(area: &web_sys::HtmlTextAreaElement, view: OverlayView) {
    let Some(line) = caret_line(area) else { return };
    let view = OverlayView {
        scroll_top: f64::from(area.scroll_top()),
        ..view
    };
    if let Some(to) = highlight::scroll_to_show(&view, line) {
        area.set_scroll_top(to.round() as i32);
    }
}

/// Makes the overlay `pre`, whose chunks are `old`, show `new`: only the chunks that differ are
/// written (an edit changes a chunk or a few; the browser styles and lays out only what is
/// written), new ones as `as_shown` writes chunk k, and `old` becomes `new`. A chunk that changed
/// keeps its element and gets the new content: a new element is laid out as skipped until the
/// browser finds it on screen (`content-visibility: auto`), then again in the same frame.
fn write_chunks(
    pre: &web_sys::Element,
    old: &mut Vec<String>,
    new: Vec<String>,
    as_shown: &dyn Fn(usize, &str) -> String,
) {
    let children = pre.children();
    if old.is_empty() || children.length() as usize != old.len() {
        let html: String = new
            .iter()
            .enumerate()
            .map(|(k, c)| as_shown(k, c))
            .collect();
        pre.set_inner_html(&html);
    } else {
        for (k, chunk) in new.iter().enumerate() {
            match old.get(k) {
                Some(was) if was == chunk => {}
                Some(was) => {
                    if let Some(el) = children.item(k as u32) {
                        match (
                            highlight::chunk_style_and_content(was),
                            highlight::chunk_style_and_content(chunk),
                        ) {
                            (Some((old_style, _)), Some((style, content))) => {
                                if old_style != style {
                                    let _ = el.set_attribute("style", style);
                                }
                                el.set_inner_html(content);
                            }
                            _ => el.set_outer_html(&as_shown(k, chunk)),
                        }
                    }
                }
                None => {
                    let _ = pre.insert_adjacent_html("beforeend", &as_shown(k, chunk));
                }
            }
        }
        for k in (new.len()..old.len()).rev() {
            if let Some(el) = children.item(k as u32) {
                el.remove();
            }
        }
    }
    *old = new;
}

/// Writes the overlay of each exploration into `overlay`; returns the text the overlay shows.
fn write_overlays(
    ctx: Ctx,
    overlay: NodeRef<leptos::html::Pre>,
    shown: StoredValue<Shown>,
) -> RwSignal<String> {
    let overlaid = RwSignal::new(String::new());
    // The last overlay written, and which write is the newest: a large text's overlay is written
    // in a task of its own, and an exploration that comes before that task replaces it.
    let written = StoredValue::new(Vec::<String>::new());
    let newest = StoredValue::new(0u64);
    // What the overlay last drew: the text, whether it was explored, and its marks.
    type Drawn = (String, bool, (Vec<Diagnostic>, Vec<StatementInfo>));
    let last_drawn = StoredValue::new(None::<Drawn>);
    // What the overlay draws: a short text as typed, once there is an exploration to mark it
    // (its tokens are the page's own, the exploration's underlines and statement marks moved by
    // the edit since, `moved`), so that a keystroke is drawn coloured in its own frame rather
    // than plain until the worker answers; a longer text as explored (`coloured_as_typed`: the
    // textarea draws what is typed meanwhile).
    let source = Memo::new(move |_| {
        let typed = ctx.text.get();
        if !coloured_as_typed(&typed) || ctx.current.with(Option::is_none) {
            ctx.explored_text.get()
        } else {
            typed
        }
    });
    // Rebuilt with each exploration and each keystroke of a small text, never on hover (the
    // focus style sheet tints statements through their classes). Another exploration of the same
    // text (another form, parameter or code target) leaves the overlay as it is.
    Effect::new(move |_| {
        let text = source.get();
        let explored = ctx.explored_text.get_untracked();
        let ex = ctx.current.get();
        let first = ex.is_none();
        let large = large_text(&text);
        let write_id = newest.get_value() + 1;
        newest.set_value(write_id);
        let write = move || {
            if newest.get_value() != write_id {
                return;
            }
            let Some(pre) = overlay.get_untracked() else {
                return;
            };
            // The underlines and statement marks for this text: the exploration's, or those moved
            // by the edit since (`moved`).
            let marks = match &ex {
                Some(ex) if text == explored => (ex.diagnostics.clone(), ex.statements.clone()),
                Some(ex) => moved(&explored, &text, &ex.diagnostics, &ex.statements),
                None => Default::default(),
            };
            // The exploration of a text typed is drawn as typed already when its marks are those
            // moved: the answer to a keystroke in a comment, or in a name, usually.
            let drawn = (text.clone(), ex.is_some(), marks);
            if last_drawn.with_value(|d| d.as_ref() == Some(&drawn)) {
                return;
            }
            let (_, _, (diagnostics, statements)) = &drawn;
            // The page lexes the text it shows: the worker does not send its tokens. A large
            // text's are not coloured: its textarea shows the text (`large`).
            let tokens = if large || ex.is_none() {
                Vec::new()
            } else {
                stagecraft::lexer::highlight_tokens(&text)
            };
            let chunks = highlight::editor_chunks(&text, &tokens, diagnostics, statements);
            last_drawn.set_value(Some(drawn));
            // Chunks are written as shown or hidden as they are now, then those near the view
            // for the new text shown (`show_chunks_near`).
            let was_shown = shown.with_value(|s| s.chunks.clone());
            let as_shown = |k: usize, chunk: &str| {
                if was_shown.contains(&k) {
                    chunk.to_string()
                } else {
                    highlight::hidden_chunk(chunk)
                }
            };
            written.update_value(|old| write_chunks(&pre, old, chunks, &as_shown));
            shown.update_value(|s| s.lines = text.split('\n').count());
            show_chunks_near(&pre, shown);
            if overlaid.with_untracked(|o| *o != text) {
                overlaid.set(text);
            }
        };
        // A large text's overlay in the same task as the panes, the problems and the grid made
        // it a long one: writing the overlay and styling the textarea's colours again are each
        // a large part of drawing a large text, so they come after that task.
        if !first && large {
            dom::after_drawing(Box::new(write));
        } else {
            write();
        }
    });
    overlaid
}

/// Makes the edit `e` of `text` in `area` as typing would: through the browser's editing
/// command, so that it is one step of the textarea's undo and fires `input`; by setting the text
/// where the command is missing.
fn replace(area: &web_sys::HtmlTextAreaElement, text: &str, e: &indent::Edit) {
    let units = |byte: usize| byte_to_utf16(text, byte as u32);
    let (from, to) = (units(e.from.min(text.len())), units(e.to.min(text.len())));
    let _ = area.set_selection_range(from, to);
    let typed = dom::window()
        .and_then(|w| w.document())
        .and_then(|d| d.dyn_into::<web_sys::HtmlDocument>().ok())
        .and_then(|d| {
            d.exec_command_with_show_ui_and_value("insertText", false, &e.insert)
                .ok()
        })
        .unwrap_or(false);
    if !typed {
        let _ = area.set_range_text(&e.insert);
        if let Ok(input) = web_sys::Event::new_with_event_init_dict("input", &{
            let init = web_sys::EventInit::new();
            init.set_bubbles(true);
            init
        }) {
            let _ = area.dispatch_event(&input);
        }
    }
    let new = area.value();
    let at = |byte: usize| byte_to_utf16(&new, byte as u32);
    let _ = area.set_selection_range(at(e.selection.0), at(e.selection.1));
}

/// The text a paste of `pasted` over the selection `from..to` of `text` makes; the selection is in
/// UTF-16 code units, as a textarea gives it.
fn after_paste(text: &str, from: u32, to: u32, pasted: &str) -> String {
    let (from, to) = (
        utf16_to_byte(text, from.min(to)),
        utf16_to_byte(text, to.max(from)),
    );
    [
        text.get(..from).unwrap_or(""),
        pasted,
        text.get(to..).unwrap_or(""),
    ]
    .concat()
}

/// Where byte `byte` of `text` is in UTF-16 code units, as a textarea counts its selection.
pub fn byte_to_utf16(text: &str, byte: u32) -> u32 {
    text.get(..byte as usize)
        .map_or(0, |p| p.encode_utf16().count()) as u32
}

/// The byte of `text` at UTF-16 code unit `units` (the end of the text past it).
fn utf16_to_byte(text: &str, units: u32) -> usize {
    let mut seen = 0u32;
    text.char_indices()
        .find(|&(_, c)| {
            let here = seen >= units;
            seen += c.len_utf16() as u32;
            here
        })
        .map_or(text.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::{after_paste, byte_to_utf16, utf16_to_byte};

    /// Text as index.html writes it inside an element.
    fn escaped(text: &str) -> String {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    }

    /// index.html's editor, shown before the app runs (`take_over_early`), holds the default
    /// example: the text the app opens with when nothing else is asked.
    #[test]
    fn early_editor_holds_the_default_example() {
        let page = include_str!("../../../index.html");
        let early = format!(
            "<textarea id=\"source\" spellcheck=\"false\" autocomplete=\"off\" aria-label=\"Loop source\">{}</textarea>",
            escaped(stagecraft_link::presets::DEFAULT)
        );
        assert!(
            page.contains(&early),
            "index.html's #early textarea should hold link/presets.rs's DEFAULT, escaped:\n{early}"
        );
    }

    #[test]
    fn a_paste_replaces_the_selection_counted_in_utf16_units() {
        assert_eq!(after_paste("abcdef", 2, 4, "XY"), "abXYef");
        assert_eq!(after_paste("abc", 3, 3, "d"), "abcd");
        assert_eq!(after_paste("abc", 0, 3, ""), "");
        // `ü` is one unit, `𝔸` two: units 2..5 are `𝔸c`.
        assert_eq!(after_paste("üb𝔸c", 2, 5, "-"), "üb-");
        assert_eq!(after_paste("ab", 9, 12, "!"), "ab!");
    }

    #[test]
    fn utf16_units_and_bytes_convert_both_ways() {
        let text = "üb𝔸c";
        for (byte, units) in [(0, 0), (2, 1), (3, 2), (7, 4), (8, 5)] {
            assert_eq!(byte_to_utf16(text, byte), units);
            assert_eq!(utf16_to_byte(text, units), byte as usize);
        }
    }
}
