//! The Stagecraft explorer (Leptos, client-side). It sends the text and the options to the core's
//! Web Worker (`services::engine`) and renders what comes back; it never re-derives anything.
//!
//! Layers, each importing only those before it (`tests/module_graph.rs` checks it): `model` and
//! `markup` (no DOM, no signals; with the `stagecraft-link` crate), `dom` (DOM helpers that know
//! nothing of the app), `ctx` (the shared signals), `services` (the worker, exploring, saving),
//! `views` (the page's parts and its panes), and `app`, the root that wires them together.

mod app;
mod ctx;
mod dom;
mod markup;
mod model;
mod services;
mod views;

/// Mounts the page in a task after the one that instantiates the WebAssembly: compiling the module
/// (its bytes arriving at once from a cache or a local server) and mounting the page in one task
/// made a long one.
fn main() {
    // Where the standard library is built to abort at once (`panic = "immediate-abort"`) no hook
    // would run: it, and formatting what it is given, would only be bytes of the bundle there.
    #[cfg(not(panic = "immediate-abort"))]
    install_panic_hook();
    dom::in_a_task(Box::new(|| leptos::mount::mount_to_body(app::App)));
}

/// A panic in wasm would silently kill the page: show it in a banner instead. The wasm traps
/// after it (`panic = "abort"`); index.html shows the same banner for a trap without a panic.
#[cfg(not(panic = "immediate-abort"))]
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        leptos::logging::error!("{info}");
        if let Some(el) = dom::by_id("panic") {
            el.set_text_content(Some(&format!(
                "Stagecraft hit an internal error and stopped: {info}. Your work is saved in this browser; reload to continue."
            )));
            let _ = el.set_attribute("class", "banner error");
        }
    }));
}
