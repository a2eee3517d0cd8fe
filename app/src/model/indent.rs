//! The editor's indentation keys, as code editors have them for an indentation-based language:
//! Tab indents (the lines of a selection, or to the next stop at the caret), Shift+Tab dedents,
//! Enter keeps the line's indentation and adds a level after a `:`. Offsets are bytes of the text.

/// Spaces per indentation level.
pub const WIDTH: usize = 4;

/// A replacement of `text[from..to]` by `insert`, and the selection after it (bytes of the new text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub from: usize,
    pub to: usize,
    pub insert: String,
    pub selection: (usize, usize),
}

/// Where the line holding byte `at` starts.
fn line_start(text: &str, at: usize) -> usize {
    text.get(..at)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |k| k + 1)
}

/// Where the line holding byte `at` ends (before its newline).
fn line_end(text: &str, at: usize) -> usize {
    text.get(at..)
        .and_then(|t| t.find('\n'))
        .map_or(text.len(), |k| at + k)
}

/// The edit Enter makes at the selection `from..to`: a newline, the indentation of the line the
/// caret is on (up to the caret), and one more level when what precedes the caret ends in `:`.
pub fn enter(text: &str, from: usize, to: usize) -> Edit {
    let start = line_start(text, from);
    let before = text.get(start..from).unwrap_or("");
    let indent: String = before.chars().take_while(|c| *c == ' ').collect();
    let mut insert = format!("\n{indent}");
    if before.trim_end().ends_with(':') {
        insert.push_str(&" ".repeat(WIDTH));
    }
    let caret = from + insert.len();
    Edit {
        from,
        to,
        insert,
        selection: (caret, caret),
    }
}

/// The edit Tab makes: within a line, spaces to the next indentation stop; over several lines,
/// one level more at the start of each.
pub fn indent(text: &str, from: usize, to: usize) -> Edit {
    let start = line_start(text, from);
    if !text.get(from..to).unwrap_or("").contains('\n') {
        let column = text.get(start..from).map_or(0, |t| t.chars().count());
        let insert = " ".repeat(WIDTH - column % WIDTH);
        let caret = from + insert.len();
        return Edit {
            from,
            to,
            insert,
            selection: (caret, caret),
        };
    }
    let end = line_end(text, to);
    let block = text.get(start..end).unwrap_or("");
    let pad = " ".repeat(WIDTH);
    let insert: String = block
        .split('\n')
        .map(|l| {
            if l.is_empty() {
                l.to_string()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    Edit {
        from: start,
        to: end,
        selection: (start, start + insert.len()),
        insert,
    }
}

/// The edit Shift+Tab makes: at most one level less at the start of each line of the selection.
pub fn dedent(text: &str, from: usize, to: usize) -> Edit {
    let start = line_start(text, from);
    let end = line_end(text, to);
    let block = text.get(start..end).unwrap_or("");
    let lines: Vec<&str> = block.split('\n').collect();
    let removed_first = lines
        .first()
        .map_or(0, |l| l.len() - l.trim_start_matches(' ').len())
        .min(WIDTH);
    let insert: String = lines
        .iter()
        .map(|l| {
            let spaces = (l.len() - l.trim_start_matches(' ').len()).min(WIDTH);
            l.get(spaces..).unwrap_or(*l)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let selection = if lines.len() == 1 {
        let caret = from.saturating_sub(removed_first).max(start);
        (caret, caret)
    } else {
        (start, start + insert.len())
    };
    Edit {
        from: start,
        to: end,
        insert,
        selection,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, e: &Edit) -> String {
        [&text[..e.from], &e.insert, &text[e.to..]].concat()
    }

    #[test]
    fn enter_keeps_the_indentation_and_adds_a_level_after_a_colon() {
        let t = "for i in range(4):";
        let e = enter(t, t.len(), t.len());
        assert_eq!(apply(t, &e), "for i in range(4):\n    ");
        assert_eq!(e.selection, (23, 23));
        let t = "for i in range(4):\n    B[i] = A[i]";
        let e = enter(t, t.len(), t.len());
        assert_eq!(apply(t, &e), format!("{t}\n    "));
        // A colon after the caret does not count; a selection is replaced.
        let t = "    x = 1  # a: b";
        assert_eq!(apply(t, &enter(t, 9, 9)), "    x = 1\n      # a: b");
        assert_eq!(apply("ab:cd", &enter("ab:cd", 3, 5)), "ab:\n    ");
    }

    #[test]
    fn tab_goes_to_the_next_stop_or_indents_each_line_and_shift_tab_dedents() {
        assert_eq!(apply("ab", &indent("ab", 1, 1)), "a   b");
        assert_eq!(apply("    x", &indent("    x", 4, 4)), "        x");
        let t = "a\n\n  b\nc";
        let e = indent(t, 0, t.len());
        assert_eq!(apply(t, &e), "    a\n\n      b\n    c");
        assert_eq!(e.selection, (0, e.insert.len()));
        let t = "        x\n  y\nz";
        let e = dedent(t, 0, t.len());
        assert_eq!(apply(t, &e), "    x\ny\nz");
        let t = "a\n    b";
        let e = dedent(t, 7, 7);
        assert_eq!(apply(t, &e), "a\nb");
        assert_eq!(e.selection, (3, 3));
        // Out of range offsets never panic.
        let _ = (indent("x", 5, 9), dedent("x", 5, 9), enter("x", 5, 9));
    }
}
