//! A menu button: a button that shows a popup below it, for lists of actions (Documents, and the
//! lessons to come). Escape closes it and returns to the button; focus leaving it closes it; the
//! arrow keys, Home and End move between the popup's buttons; opening it focuses the first.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The popup's buttons, in order.
fn items(popup: &web_sys::HtmlElement) -> Vec<web_sys::HtmlElement> {
    let Ok(list) = popup.query_selector_all("button:not([disabled])") else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into::<web_sys::HtmlElement>().ok())
        .collect()
}

/// Moves the focus to the popup of menu `id` itself: before one of its buttons goes away (the
/// focus would leave the menu, which closes it).
pub fn hold_focus(id: &str) {
    if let Some(p) = crate::dom::by_id(&format!("{id}-menu"))
        .and_then(|p| p.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = p.focus();
    }
}

/// A menu button `id` labelled `label`; its popup (`{id}-menu`) shows what `content` makes,
/// which is given the signal that keeps the popup open.
pub fn menu<V: IntoView + 'static>(
    id: &'static str,
    label: &'static str,
    content: impl Fn(RwSignal<bool>) -> V + Send + Sync + Copy + 'static,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let button = NodeRef::<leptos::html::Button>::new();
    let popup = NodeRef::<leptos::html::Div>::new();
    let root = NodeRef::<leptos::html::Div>::new();
    let close = move |refocus: bool| {
        open.set(false);
        if refocus {
            if let Some(b) = button.get_untracked() {
                let _ = b.focus();
            }
        }
    };
    Effect::new(move |_| {
        if popup.get().is_some() {
            crate::dom::before_drawing(Box::new(move || {
                if let Some(first) = popup
                    .get_untracked()
                    .and_then(|p| items(&p).into_iter().next())
                {
                    let _ = first.focus();
                }
            }));
        }
    });
    let keys = move |ev: leptos::ev::KeyboardEvent| {
        if !open.get_untracked() {
            return;
        }
        let Some(p) = popup.get_untracked() else {
            return;
        };
        let list = items(&p);
        let active = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.active_element());
        let at = list.iter().position(|e| {
            active
                .as_ref()
                .is_some_and(|a| a == e.unchecked_ref::<web_sys::Element>())
        });
        let n = list.len();
        let to = match ev.key().as_str() {
            "Escape" => {
                ev.prevent_default();
                close(true);
                return;
            }
            "ArrowDown" => at.map_or(0, |k| (k + 1) % n.max(1)),
            "ArrowUp" => at.map_or(n.saturating_sub(1), |k| (k + n - 1) % n.max(1)),
            "Home" => 0,
            "End" => n.saturating_sub(1),
            _ => return,
        };
        ev.prevent_default();
        if let Some(e) = list.get(to) {
            let _ = e.focus();
        }
    };
    // Focus moving out of the button and its popup (a click elsewhere, Tab past the end).
    let focus_out = move |ev: leptos::ev::FocusEvent| {
        let inside = ev
            .related_target()
            .and_then(|t| t.dyn_into::<web_sys::Node>().ok())
            .zip(root.get_untracked())
            .is_some_and(|(t, r)| r.contains(Some(&t)));
        if !inside {
            close(false);
        }
    };
    view! {
        <div class="menu" node_ref=root on:keydown=keys on:focusout=focus_out>
            <button id=id node_ref=button aria-haspopup="true" aria-controls=format!("{id}-menu")
                aria-expanded=move || if open.get() { "true" } else { "false" }
                on:click=move |_| open.update(|o| *o = !*o)>{label}</button>
            {move || open.get().then(|| view! {
                <div id=format!("{id}-menu") class="popup" node_ref=popup tabindex="-1">{content(open)}</div>
            })}
        </div>
    }
}
