//! The core in a dedicated Web Worker: the page posts requests (`stagecraft::protocol`, as
//! postcard's bytes), a `Session` answers them one unit of work at a time, and between two units the worker
//! lets its message queue run, so that a newer request pre-empts older work at the next unit.
//! (A microtask would not let a message in: each next unit is a message of its own, posted
//! through a `MessageChannel`.)
//!
//! Start-up, with the loader `scripts/version-worker.py` writes: the worker says `hello`; the page
//! answers with the compiled module it got from an earlier worker, or nothing; the worker
//! instantiates it (or fetches its own) and this `main` runs, saying it is ready with its module.
//! A panic posts `Answer::Stopped` with what was being computed, then the worker traps and the
//! page starts another.

#[cfg(target_arch = "wasm32")]
mod web;

#[cfg(target_arch = "wasm32")]
fn main() {
    web::start();
}

/// Natively there is no page to serve: the session is tested directly (core/tests/session.rs).
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "stagecraft-worker runs in a browser's Web Worker; natively, use the `stagecraft` CLI"
    );
    std::process::exit(2);
}
