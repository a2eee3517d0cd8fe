//! A Copy button with honest feedback, for every Copy in the app: it says "copied" only once the
//! clipboard has the text; where the page has no clipboard, or the browser refuses the write, it
//! says so and offers the text selected in a field, to copy with the keyboard.

use crate::dom;
use crate::services::clipboard::{self, Outcome};
use leptos::prelude::*;
use leptos::task::spawn_local;

#[derive(Clone, Debug, PartialEq)]
enum Copying {
    Idle,
    Writing,
    Copied,
    /// The text to copy by hand, and why the clipboard did not take it (none: there is none).
    ByHand {
        text: String,
        refused: Option<String>,
    },
}

/// How long "copied" shows before the button reads as before.
const COPIED_MS: u64 = 1500;

/// The shortcut that copies on this platform.
fn copy_keys() -> &'static str {
    let mac = dom::window()
        .and_then(|w| w.navigator().platform().ok())
        .is_some_and(|p| p.starts_with("Mac") || p.starts_with("iP"));
    if mac {
        "⌘C"
    } else {
        "Ctrl+C"
    }
}

/// A button labelled `label` that copies what `text` gives (nothing when it gives `None`) and then
/// reads `done`; `id` names the button.
pub fn copy_button(
    id: &'static str,
    label: &'static str,
    done: &'static str,
    text: impl Fn() -> Option<String> + 'static,
) -> impl IntoView {
    copy_button_of(id, label, done, Box::new(text))
}

// Not generic over `text`: the button and its by-hand field are one copy of code in the bundle,
// not one per Copy in the app: the page has a byte budget (docs/benchmarks.md, "Bytes").
fn copy_button_of(
    id: &'static str,
    label: &'static str,
    done: &'static str,
    text: Box<dyn Fn() -> Option<String>>,
) -> impl IntoView {
    let state = RwSignal::new(Copying::Idle);
    let button = NodeRef::<leptos::html::Button>::new();
    let field = NodeRef::<leptos::html::Textarea>::new();
    let copied = move || {
        state.set(Copying::Copied);
        dom::after_ms(
            COPIED_MS,
            Box::new(move || {
                if state.get_untracked() == Copying::Copied {
                    state.set(Copying::Idle);
                }
            }),
        );
    };
    let click = move |_| {
        let Some(text) = text() else { return };
        state.set(Copying::Writing);
        spawn_local(async move {
            match clipboard::write_text(&text).await {
                Outcome::Copied => copied(),
                Outcome::Unavailable => state.set(Copying::ByHand {
                    text,
                    refused: None,
                }),
                Outcome::Refused(why) => state.set(Copying::ByHand {
                    text,
                    refused: Some(why),
                }),
            }
        });
    };
    let close = move || {
        state.set(Copying::Idle);
        if let Some(b) = button.get_untracked() {
            let _ = b.focus();
        }
    };
    // The field is focused with its whole text selected, ready for the keys.
    // (In the next frame: the field is made before it is in the page.)
    Effect::new(move |_| {
        if field.get().is_some() {
            crate::dom::before_drawing(Box::new(move || {
                if let Some(f) = field.get_untracked() {
                    let _ = f.focus();
                    f.select();
                    // A long link is selected whole but shown from its start.
                    f.set_scroll_top(0);
                }
            }));
        }
    });
    let keys = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.prevent_default();
            close();
        }
    };
    let by_hand = move || match state.get() {
        Copying::ByHand { text, refused } => Some(view! {
            <div class="copy-manual" role="group" aria-label="Copy by hand">
                {refused.map(|why| view! {
                    <p class="copy-status error" role="alert">"Not copied: the browser refused (" {why} ")."</p>
                })}
                <p>"Press " <kbd>{copy_keys()}</kbd> " to copy, then Esc."
                    <button class="close" aria-label="Close" on:click=move |_| close()>"×"</button></p>
                <textarea node_ref=field readonly=true rows="3" aria-label="The text to copy"
                    prop:value=text on:keydown=keys on:copy=move |_| copied()></textarea>
            </div>
        }),
        _ => None,
    };
    view! {
        <span class="copy-wrap">
            <button id=id class="copy" node_ref=button on:click=click
                aria-busy=move || (state.get() == Copying::Writing).then_some("true")>
                {move || if state.get() == Copying::Copied { done } else { label }}
            </button>
            <span class="visually-hidden" role="status">
                {move || if state.get() == Copying::Copied { done } else { "" }}
            </span>
            {by_hand}
        </span>
    }
}
