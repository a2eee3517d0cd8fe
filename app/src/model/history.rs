//! The editor's undo and redo, of every change to the text in this document: typing (a typed run
//! is one step, as a plain text field undoes it), pastes, the grid's and the cost table's edits,
//! an example loaded. The browser's own undo cannot serve: Chromium ends a typing run at any
//! change to the page's elements, and the page redraws its panes as the text is explored, so
//! its Ctrl+Z took back one character at a time; and an edit made by setting the text (the
//! grid's) is not in it at all.

/// How a change was made: runs of one kind, each continuing where the last ended, are one step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Characters typed (`insertText`, Enter, Tab).
    Typing,
    /// Backspace.
    DeletingBack,
    /// Delete.
    DeletingForward,
    /// Anything else (a paste, a cut, a grid edit, an example): a step of its own.
    Other,
}

/// A change as the text shows it: `text[at..at + removed]` became `inserted` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    pub at: usize,
    pub removed: usize,
    pub inserted: usize,
}

/// The change from `before` to `after`, at whole characters.
pub fn change(before: &str, after: &str) -> Change {
    let mut prefix = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !before.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = before.len().min(after.len()) - prefix;
    let mut suffix = before
        .bytes()
        .rev()
        .zip(after.bytes().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    while !before.is_char_boundary(before.len() - suffix) {
        suffix -= 1;
    }
    Change {
        at: prefix,
        removed: before.len() - prefix - suffix,
        inserted: after.len() - prefix - suffix,
    }
}

/// Steps kept to undo: each holds a whole text (at most `limits::MAX_SOURCE_BYTES`).
pub const MAX_STEPS: usize = 200;

#[derive(Clone, Debug, Default)]
pub struct History {
    /// The texts before each step, oldest first.
    past: Vec<String>,
    /// The texts undone, the most recently undone last.
    future: Vec<String>,
    /// The text as the history last saw it.
    now: String,
    /// The run the last change was part of, and where it ended.
    run: Option<(Kind, usize)>,
}

impl History {
    /// A history of `text`, with nothing to undo.
    pub fn new(text: &str) -> Self {
        History {
            now: text.to_string(),
            ..History::default()
        }
    }

    /// The text became `after` by a change of `kind`. A text other than the one it last saw
    /// before it (another document shown, another tab's version taken) starts the history again.
    pub fn record(&mut self, before: &str, after: &str, kind: Kind) {
        if before != self.now {
            *self = History::new(before);
        }
        if before == after {
            return;
        }
        let c = change(before, after);
        let continues = match (self.run, kind) {
            (Some((Kind::Typing, end)), Kind::Typing) => c.removed == 0 && c.at == end,
            (Some((Kind::DeletingBack, end)), Kind::DeletingBack) => {
                c.inserted == 0 && c.at + c.removed == end
            }
            (Some((Kind::DeletingForward, end)), Kind::DeletingForward) => {
                c.inserted == 0 && c.at == end
            }
            _ => false,
        };
        if !continues {
            self.past.push(before.to_string());
            if self.past.len() > MAX_STEPS {
                self.past.remove(0);
            }
        }
        self.future.clear();
        let end = match kind {
            Kind::Typing => c.at + c.inserted,
            _ => c.at,
        };
        self.run = (kind != Kind::Other).then_some((kind, end));
        self.now = after.to_string();
    }

    /// The text before the last step of `shown` (the text as it is), and where the step was in
    /// it (a byte range to select: what the step had removed, or where it had inserted). `None`
    /// when there is nothing to undo, or `shown` is a text the history did not see (it starts
    /// again from it).
    pub fn undo(&mut self, shown: &str) -> Option<(String, (usize, usize))> {
        self.follow(shown)?;
        let text = self.past.pop()?;
        let c = change(&self.now, &text);
        self.future
            .push(std::mem::replace(&mut self.now, text.clone()));
        self.run = None;
        Some((text, (c.at, c.at + c.inserted)))
    }

    /// The text of the last step undone, and where it changed (the inserted bytes selected).
    pub fn redo(&mut self, shown: &str) -> Option<(String, (usize, usize))> {
        self.follow(shown)?;
        let text = self.future.pop()?;
        let c = change(&self.now, &text);
        self.past
            .push(std::mem::replace(&mut self.now, text.clone()));
        self.run = None;
        Some((text, (c.at, c.at + c.inserted)))
    }

    /// `Some` when `shown` is the text the history last saw; else it starts again from it.
    fn follow(&mut self, shown: &str) -> Option<()> {
        if shown != self.now {
            *self = History::new(shown);
            return None;
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn back(h: &mut History) -> Option<(String, (usize, usize))> {
        let shown = h.now.clone();
        h.undo(&shown)
    }

    fn forward(h: &mut History) -> Option<(String, (usize, usize))> {
        let shown = h.now.clone();
        h.redo(&shown)
    }

    /// Types `typed` into `text` at its end, a character at a time.
    fn type_in(h: &mut History, text: &mut String, typed: &str) {
        for c in typed.chars() {
            let before = text.clone();
            text.push(c);
            h.record(&before, text, Kind::Typing);
        }
    }

    #[test]
    fn a_typed_run_is_one_step_and_comes_back_with_redo() {
        let mut text = String::from("x = 1\n");
        let mut h = History::new(&text);
        type_in(&mut h, &mut text, "# hello world");
        assert_eq!(back(&mut h).map(|u| u.0).as_deref(), Some("x = 1\n"));
        assert!(back(&mut h).is_none());
        let (again, selected) = forward(&mut h).expect("a redo");
        assert_eq!(again, "x = 1\n# hello world");
        assert_eq!(selected, (6, 19));
    }

    #[test]
    fn a_run_ends_where_the_caret_moved_or_the_kind_changed() {
        let mut h = History::new("ab");
        h.record("ab", "abc", Kind::Typing);
        // Typed elsewhere: a new step.
        h.record("abc", "Xabc", Kind::Typing);
        // Backspaces in a row: one step.
        h.record("Xabc", "Xab", Kind::DeletingBack);
        h.record("Xab", "Xa", Kind::DeletingBack);
        h.record("Xa", "Xa!", Kind::Typing);
        assert_eq!(back(&mut h).map(|u| u.0).as_deref(), Some("Xa"));
        assert_eq!(back(&mut h).map(|u| u.0).as_deref(), Some("Xabc"));
        assert_eq!(back(&mut h).map(|u| u.0).as_deref(), Some("abc"));
        assert_eq!(back(&mut h).map(|u| u.0).as_deref(), Some("ab"));
        assert!(back(&mut h).is_none());
    }

    #[test]
    fn other_changes_are_steps_of_their_own_and_a_new_change_ends_the_redo() {
        let mut h = History::new("s = [0, 1]");
        h.record("s = [0, 1]", "s = [0, 2]", Kind::Other);
        h.record("s = [0, 2]", "s = [0, 3]", Kind::Other);
        let (undone, selected) = back(&mut h).expect("an undo");
        assert_eq!(undone, "s = [0, 2]");
        assert_eq!(selected, (8, 9));
        h.record("s = [0, 2]", "s = [0, 4]", Kind::Other);
        assert!(forward(&mut h).is_none());
        assert_eq!(back(&mut h).map(|u| u.0).as_deref(), Some("s = [0, 2]"));
        assert_eq!(back(&mut h).map(|u| u.0).as_deref(), Some("s = [0, 1]"));
    }

    #[test]
    fn a_text_it_did_not_see_starts_it_again() {
        let mut h = History::new("mine");
        h.record("mine", "mine!", Kind::Typing);
        // Another document shown, then typed in.
        h.record("theirs", "theirs?", Kind::Typing);
        assert_eq!(back(&mut h).map(|u| u.0).as_deref(), Some("theirs"));
        assert!(back(&mut h).is_none());
    }

    #[test]
    fn an_undo_of_a_text_it_did_not_see_does_nothing() {
        let mut h = History::new("mine");
        h.record("mine", "mine!", Kind::Typing);
        assert!(h.undo("another document").is_none());
        assert!(back(&mut h).is_none());
    }

    #[test]
    fn changes_are_found_at_whole_characters() {
        let mut h = History::new("a\u{e9}");
        h.record("a\u{e9}", "a\u{e8}", Kind::Other);
        assert_eq!(back(&mut h), Some(("a\u{e9}".to_string(), (1, 3))));
    }

    #[test]
    fn it_keeps_the_last_steps() {
        let mut h = History::new("");
        let mut text = String::new();
        for k in 0..MAX_STEPS + 5 {
            let before = text.clone();
            text = k.to_string();
            h.record(&before, &text, Kind::Other);
        }
        let mut undone = 0;
        while back(&mut h).is_some() {
            undone += 1;
        }
        assert_eq!(undone, MAX_STEPS);
    }
}
