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
mod problems;
mod warm;

/// Mounts the page in a task after the one that instantiates the WebAssembly: in one task, the
/// module's compilation (its bytes arriving at once from a cache or a local server: 11–27 ms) and
/// mounting made one of 60–90 ms.
fn main() {
    app::install_panic_hook();
    leptos::prelude::set_timeout(mount, std::time::Duration::ZERO);
}

/// Mounts the page, between performance marks (`e2e/trace-load.mjs` shows what its task holds).
fn mount() {
    dom::mark("stagecraft:main");
    leptos::mount::mount_to_body(app::App);
    dom::mark("stagecraft:mounted");
}

#[cfg(test)]
mod testing {
    /// A loop of `statements` independent statements over 64 iterations, for tests of long outputs.
    pub fn long_loop(statements: usize) -> String {
        let mut text = String::from("for i in range(64):\n");
        for k in 0..statements {
            text.push_str(&format!("    T{k}[i] = A[i] + {k}\n"));
        }
        text
    }
}
