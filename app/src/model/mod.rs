//! What the app knows without a page: the results it shows and where they came from (`snapshot`),
//! what a selection points at, and how the grid's edits become text. No DOM and no signals: every
//! function here is tested natively. The state a link carries, and the presets, are the
//! `stagecraft-link` crate.

pub mod annotations;
pub mod deferred;
pub mod documents;
pub mod focus;
pub mod history;
pub mod indent;
pub mod large;
pub mod moved;
pub mod roving;
pub mod snapshot;
pub mod timing;

/// A loop of `statements` independent statements over 64 iterations, for tests of long outputs.
#[cfg(test)]
pub fn long_loop(statements: usize) -> String {
    let mut text = String::from("for i in range(64):\n");
    for k in 0..statements {
        text.push_str(&format!("    T{k}[i] = A[i] + {k}\n"));
    }
    text
}
