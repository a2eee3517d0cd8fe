//! When a text is large enough that the editor draws it differently.

/// A text of more bytes or lines than these is large: the textarea draws its text and the
/// overlay only underlines its problems and tints its statements (colouring all of it again after
/// each exploration made the browser lay it out again; docs/limits.md).
pub const LARGE_TEXT_BYTES: usize = 16 * 1024;
pub const LARGE_TEXT_LINES: usize = 1024;

/// Whether `text` is large (`LARGE_TEXT_BYTES`, `LARGE_TEXT_LINES`).
pub fn large_text(text: &str) -> bool {
    !within(text, LARGE_TEXT_BYTES, LARGE_TEXT_LINES)
}

/// Whether `text` has at most `bytes` bytes and `lines` line breaks.
fn within(text: &str, bytes: usize, lines: usize) -> bool {
    text.len() <= bytes && text.bytes().filter(|&b| b == b'\n').count() <= lines
}

/// A text of at most these many bytes and lines is coloured as typed, in the keystroke's own
/// frame (`views::editor`); a longer one as each exploration arrives, drawn plain meanwhile:
/// colouring it again on every keystroke made each keystroke a long task.
pub const TYPED_TEXT_BYTES: usize = 6 * 1024;
pub const TYPED_TEXT_LINES: usize = 128;

/// Whether `text` is coloured as typed (`TYPED_TEXT_BYTES`, `TYPED_TEXT_LINES`).
pub fn coloured_as_typed(text: &str) -> bool {
    within(text, TYPED_TEXT_BYTES, TYPED_TEXT_LINES)
}
