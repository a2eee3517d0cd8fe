//! The Stagecraft explorer (Leptos, client-side). It calls the core through `explore` and renders
//! what comes back; it never re-derives anything.

mod annotations;
mod app;
mod ctx;
mod dom;
mod editor;
mod focus;
mod format;
mod grid;
mod header;
mod highlight;
mod html;
mod panes;
mod persist;
mod presets;
mod problems;
mod state;
mod warm;

fn main() {
    app::install_panic_hook();
    leptos::mount::mount_to_body(app::App);
}
