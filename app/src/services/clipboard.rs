//! Writing text to the clipboard, and saying what really happened: `navigator.clipboard` is
//! missing on plain http from another host than localhost, and the browser may refuse a write
//! (permissions, no user activation). Every Copy in the app goes through `write_text` and shows its
//! `Outcome` (`views::copy`).

use crate::dom;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The write resolved: the clipboard has the text.
    Copied,
    /// This page has no clipboard to write to.
    Unavailable,
    /// The browser refused the write, saying why.
    Refused(String),
}

/// Writes `text`, resolving once the browser has said whether it did.
pub async fn write_text(text: &str) -> Outcome {
    let Some(w) = dom::window() else {
        return Outcome::Unavailable;
    };
    let clipboard = js_sys::Reflect::get(&w.navigator(), &JsValue::from_str("clipboard"))
        .unwrap_or(JsValue::UNDEFINED);
    if clipboard.is_undefined() || clipboard.is_null() {
        return Outcome::Unavailable;
    }
    // Called through Reflect, so that a clipboard without `writeText`, or one that throws, is an
    // outcome rather than an exception through the WebAssembly.
    let Ok(write) = js_sys::Reflect::get(&clipboard, &JsValue::from_str("writeText"))
        .and_then(|f| f.dyn_into::<js_sys::Function>())
    else {
        return Outcome::Unavailable;
    };
    let promise = match write.call1(&clipboard, &JsValue::from_str(text)) {
        Ok(p) => p,
        Err(e) => return Outcome::Refused(why(&e)),
    };
    match JsFuture::from(js_sys::Promise::resolve(&promise)).await {
        Ok(_) => Outcome::Copied,
        Err(e) => Outcome::Refused(why(&e)),
    }
}

/// A rejection's reason, as the browser words it (`NotAllowedError: Write permission denied.`).
fn why(e: &JsValue) -> String {
    let field = |name: &str| {
        js_sys::Reflect::get(e, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
    };
    match (field("name"), field("message")) {
        (Some(n), Some(m)) => format!("{n}: {m}"),
        (Some(s), None) | (None, Some(s)) => s,
        (None, None) => e
            .as_string()
            .unwrap_or_else(|| "no reason given".to_string()),
    }
}
