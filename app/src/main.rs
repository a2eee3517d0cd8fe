//! The Stagecraft explorer (Leptos, client-side). It calls the core through `explore` and renders
//! what comes back; it never re-derives anything.

mod annotations;
mod app;
mod highlight;
mod presets;
mod state;

fn main() {
    app::install_panic_hook();
    leptos::mount::mount_to_body(app::App);
}
