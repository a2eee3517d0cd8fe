//! Located messages. Every stage of the pipeline reports problems as values, never as panics.

use serde::{Deserialize, Serialize};

/// A half-open byte range into the text the diagnostic talks about.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: clamp_u32(start),
            end: clamp_u32(end.max(start)),
        }
    }

    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Span,
    pub message: String,
    #[serde(skip_serializing_if = "crate::wire::omit_none")]
    pub hint: Option<String>,
    /// Other places the message talks about (e.g. the second statement of a conflicting pair).
    #[serde(skip_serializing_if = "crate::wire::omit_empty", default)]
    pub related: Vec<Related>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            hint: None,
            related: Vec::new(),
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    pub fn note(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::error(span, message)
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.related.push(Related {
            span,
            message: message.into(),
        });
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:col: error: message` followed by the source line and a caret, for terminals.
    pub fn render(&self, file: &str, text: &str) -> String {
        let (line, col) = line_col(text, self.span.start as usize);
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        let mut out = format!("{file}:{line}:{col}: {severity}: {}\n", self.message);
        let line_text = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
        out.push_str(&format!("    {line_text}\n"));
        // In characters, as the column is: a character of several bytes gets one caret.
        let spanned = text
            .get(self.span.start as usize..self.span.end as usize)
            .map_or(self.span.len() as usize, |s| s.chars().count());
        let rest = line_text.chars().count().saturating_sub(col - 1).max(1);
        let width = spanned.clamp(1, rest);
        out.push_str(&format!(
            "    {}{}\n",
            " ".repeat(col - 1),
            "^".repeat(width)
        ));
        if let Some(hint) = &self.hint {
            out.push_str(&format!("    hint: {hint}\n"));
        }
        for related in &self.related {
            let (l, c) = line_col(text, related.span.start as usize);
            out.push_str(&format!("    {file}:{l}:{c}: {}\n", related.message));
        }
        out
    }
}

/// The line of a byte offset, for a text asked many times (`line_col` reads the text up to the
/// offset each time, which a reader asking per executed statement turns quadratic).
pub struct LineIndex {
    newlines: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            newlines: text
                .bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        }
    }

    /// The 0-based line of `offset`: `line_col(text, offset).0 - 1`.
    pub fn line0(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&nl| nl < offset)
    }
}

/// `text` quoted as code in a message, as Markdown writes a code span (the page's
/// `Html::prose` sets it as code): in backticks, fenced by a run longer than any it holds, with
/// a space inside each fence where the reader would otherwise strip one or join a backtick of
/// the text to the fence.
pub fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let spaced = text.starts_with(' ') && text.ends_with(' ') && text.trim() != "";
    let pad = if text.starts_with('`') || text.ends_with('`') || spaced {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    // Counting bytes: a newline byte is never part of a longer UTF-8 character, and a byte
    // loop needs none of a string pattern search's setting up.
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_fenced_by_more_backticks_than_it_holds() {
        assert_eq!(code("A[i]"), "`A[i]`");
        assert_eq!(code("`"), "`` ` ``");
        assert_eq!(code("a``b"), "```a``b```");
        assert_eq!(code(""), "``");
    }

    #[test]
    fn the_line_index_agrees_with_line_col_at_every_offset() {
        for text in ["", "\n", "a\nbc\n\nd", "x = 1\n\n  y = 2\n", "é\nü\n"] {
            let index = LineIndex::new(text);
            for offset in (0..=text.len()).filter(|o| text.is_char_boundary(*o)) {
                assert_eq!(
                    index.line0(offset),
                    line_col(text, offset).0 - 1,
                    "{text:?} at {offset}"
                );
            }
        }
    }
}
