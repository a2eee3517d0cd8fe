//! The main thread's budgets, which decide when the app explores, draws and runs the verification
//! and the timeline (`services::recompute`). The measurements behind each are in docs/benchmarks.md
//! ("The app's budgets and the figures behind them").

/// A recomputation longer than a frame, run on every frame of typing, would make typing stutter:
/// above this the app waits for a pause in typing instead.
pub const FRAME_MS: f64 = 16.0;

/// The longest task one keystroke may cause (the browser reports tasks over 50 ms as long): an
/// exploration whose writing and rendering would exceed it waits for a pause in typing too, and
/// its result is written in a task of its own.
pub const TASK_MS: f64 = 40.0;

/// An edit that changes the text's length by more than this (a paste) explores after a pause, like
/// a slow exploration: in the next animation frame its exploration would share one task with the
/// browser drawing the pasted text.
pub const LARGE_EDIT_BYTES: usize = 1024;

/// A text of more bytes or lines than these is large: its editor overlay is written in a task of
/// its own, after the rest of its exploration is drawn, and the textarea draws its text. Near the
/// limits, writing the overlay and colouring the textarea's text again each cost about as much as
/// writing all the panes.
pub const LARGE_TEXT_BYTES: usize = 16 * 1024;
pub const LARGE_TEXT_LINES: usize = 1024;

/// Whether `text` is large (`LARGE_TEXT_BYTES`, `LARGE_TEXT_LINES`).
pub fn large_text(text: &str) -> bool {
    text.len() > LARGE_TEXT_BYTES || text.bytes().filter(|&b| b == b'\n').count() > LARGE_TEXT_LINES
}

/// Writing and rendering an exploration's result, per unit it draws (`drawn_units`), before any is
/// measured: high enough that the first large paste explores and draws in separate tasks rather than
/// in one long one.
pub const DRAWING_MS_PER_UNIT_PRIOR: f64 = 0.02;

/// Drawings of fewer units than this are not learned from: fixed costs (the header, the panes'
/// frames) dominate them, and a rate taken from them would call a mid-sized loop slow.
pub const DRAWING_MIN_UNITS: usize = 400;

/// What drawing an exploration's result grows with: the editor's tokens, the printed program's
/// lines and the grid's rows, which its panes write (each a line or a span of markup).
pub fn drawn_units(ex: &stagecraft::explore::Exploration) -> usize {
    let printed = |p: &Option<stagecraft::tir::Printed>| p.as_ref().map_or(0, |p| p.lines.len());
    ex.tokens.len() + printed(&ex.rolled) + printed(&ex.peeled) + ex.statements.len()
}

/// Wave-instructions the Code pane's machine-level check executes on the main thread before it
/// says "not executed": the largest preset's kernel (CUTLASS, gfx942) runs about 38 000, and the
/// check's cost per wave-instruction is in docs/benchmarks.md.
pub const MACHINE_INSTRUCTIONS: u64 = 60_000;

/// The machine check's share of one task (`services::machine`): it pauses when its turn has run
/// this long, leaving the rest of the task's 50 ms to what the page does around it.
pub const MACHINE_TURN_MS: f64 = 20.0;

/// An edit that changes at most this many bytes in one place (a keystroke, a word pasted, a grid
/// field) is an edit of the program shown; more is another program (a preset, a document opened).
pub const SMALL_EDIT_BYTES: usize = 64;

/// Whether `after` is `before` changed in one place by at most `SMALL_EDIT_BYTES`. Only such an
/// edit's drawing is learned from: the first drawing of another program also lays out its rows
/// anew, and a few of those in a row (presets tried one after another) made the rate learned call
/// the next ordinary edit too slow to draw in its frame.
pub fn small_edit(before: &str, after: &str) -> bool {
    let (a, b) = (before.as_bytes(), after.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    a.len().max(b.len()) - suffix <= SMALL_EDIT_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keystroke_or_a_word_is_a_small_edit_another_loop_is_not() {
        let loop_a =
            "B = alloc([1])\nfor i in range(16):\n    B[0] = A[i] + 1\n    C[i] = B[0] + 1\n";
        assert!(small_edit(loop_a, loop_a));
        assert!(small_edit(loop_a, &loop_a.replace("16", "160")));
        assert!(small_edit(
            loop_a,
            &loop_a.replace("+ 1\n    C", "* 3 + 2\n    C")
        ));
        // Deleting and inserting the same character next to each other: one place.
        assert!(small_edit("aaaa", "aaa"));
        assert!(small_edit("", "x"));
        // Two places far apart count together with everything between them.
        let far = loop_a
            .replace("B = alloc", "S = alloc")
            .replace("C[i] = B", "C[i] = S");
        assert!(!small_edit(loop_a, &format!("{far}{}", "#".repeat(64))));
        assert!(!small_edit(
            loop_a,
            "A_sh = alloc([1])\nfor i in range(16):\n    A_sh[0] = A[i]\n"
        ));
    }
}
