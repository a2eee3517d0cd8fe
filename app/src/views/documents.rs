//! The Documents menu: this browser's saved work, newest first, each with its name and when it was
//! saved; open one in this tab, start a new one, delete one (undoably).

use crate::model::documents::ago;
use crate::services::documents::Documents;
use crate::views::menu::{hold_focus, menu};
use leptos::prelude::*;
use wasm_bindgen::JsValue;

/// The date and time of `ms`, as this browser writes them.
fn when(ms: i64) -> String {
    js_sys::Date::new(&JsValue::from_f64(ms as f64))
        .to_locale_string("default", &JsValue::UNDEFINED)
        .into()
}

pub fn view() -> impl IntoView {
    let docs = expect_context::<Documents>();
    menu("documents", "Documents", move |open| {
        docs.refresh();
        let rows = move || {
            let now = js_sys::Date::now() as i64;
            let shown = docs.shown.get();
            docs.list
                .get()
                .into_iter()
                .map(|d| {
                    let here = d.id == shown;
                    let (id, delete_id) = (d.id.clone(), d.id.clone());
                    let delete_label = format!("Delete “{}”", d.name);
                    view! {
                        <li class="document" class:current=here>
                            <button class="open" aria-current=here.then_some("true")
                                on:click=move |_| { docs.open(&id); open.set(false); }>
                                <span class="name">{d.name}</span>
                                <span class="time" title=when(d.saved_ms)>{ago(now, d.saved_ms)}</span>
                            </button>
                            {if here {
                                view! { <span class="here">"this tab"</span> }.into_any()
                            } else {
                                view! {
                                    <button class="delete" aria-label=delete_label title="Delete"
                                        on:click=move |ev| {
                                            hold_focus("documents");
                                            ev.stop_propagation();
                                            docs.delete(&delete_id);
                                        }>"×"</button>
                                }.into_any()
                            }}
                        </li>
                    }
                })
                .collect_view()
        };
        let undo = move || {
            docs.deleted.get().map(|(_, d)| {
                view! {
                    <p class="undo" role="status">"Deleted “" {d.name} "”. "
                        <button id="documents-undo" on:click=move |_| { hold_focus("documents"); docs.restore(); }>"Undo"</button>
                    </p>
                }
            })
        };
        view! {
            <button id="documents-new" class="new" on:click=move |_| { docs.create(); open.set(false); }>"New document"</button>
            <ul class="documents">{rows}</ul>
            {move || docs.list.with(Vec::is_empty).then(|| view! {
                <p class="hint">"Nothing saved yet: your work is saved here as you edit."</p>
            })}
            {undo}
        }
    })
}
