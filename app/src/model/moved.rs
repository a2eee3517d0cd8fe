//! An exploration's marks placed in the text as typed since it was made: the editor draws what
//! is typed at once, with its own tokens, and keeps the underlines and the statement marks of the
//! exploration on their way in where the edit moved them (the exploration of the new text places
//! them again).

use crate::model::history::{change, Change};
use stagecraft::diagnostic::{Diagnostic, Span};
use stagecraft::explore::StatementInfo;

/// `diagnostics` and `statements`, whose spans are in `explored`, with their spans in `typed`
/// (an edit of it): a span before the edit stays, one after it moves with it, one holding the
/// whole edit grows or shrinks with it, and one the edit cuts into is left out.
pub fn moved(
    explored: &str,
    typed: &str,
    diagnostics: &[Diagnostic],
    statements: &[StatementInfo],
) -> (Vec<Diagnostic>, Vec<StatementInfo>) {
    let c = change(explored, typed);
    let diagnostics = diagnostics
        .iter()
        .filter_map(|d| {
            let span = moved_span(d.span, &c)?;
            Some(Diagnostic { span, ..d.clone() })
        })
        .collect();
    let statements = statements
        .iter()
        .filter_map(|s| {
            let span = moved_span(s.span, &c)?;
            Some(StatementInfo { span, ..s.clone() })
        })
        .collect();
    (diagnostics, statements)
}

/// Where `span` lies after the change `c`, if the change did not cut into it.
fn moved_span(span: Span, c: &Change) -> Option<Span> {
    let (start, end) = (span.start as usize, span.end as usize);
    let cut_end = c.at + c.removed;
    let (start, end) = if end <= c.at {
        (start, end)
    } else if start >= cut_end {
        (start - c.removed + c.inserted, end - c.removed + c.inserted)
    } else if start <= c.at && cut_end <= end {
        (start, end - c.removed + c.inserted)
    } else {
        return None;
    };
    Some(Span {
        start: u32::try_from(start).ok()?,
        end: u32::try_from(end).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, Options};

    /// The spans of `ex`'s statements, as the text they cover in `text`.
    fn covered(text: &str, statements: &[StatementInfo]) -> Vec<String> {
        statements
            .iter()
            .map(|s| text[s.span.start as usize..s.span.end as usize].to_string())
            .collect()
    }

    #[test]
    fn marks_follow_an_edit_before_after_and_inside_them() {
        let explored = "for i in range(8):\n    B[i] = A[i] + 1\n    C[i] = B[i] * 2\n";
        let ex = explore(explored, &Options::default());
        let before = covered(explored, &ex.statements);
        assert_eq!(before, ["B[i] = A[i] + 1", "C[i] = B[i] * 2"]);
        // A comment added after every statement: nothing moves.
        let typed = format!("{explored}# note\n");
        let (_, s) = moved(explored, &typed, &ex.diagnostics, &ex.statements);
        assert_eq!(covered(&typed, &s), before);
        // A line added before them: both move with it.
        let typed = format!("# note\n{explored}");
        let (_, s) = moved(explored, &typed, &ex.diagnostics, &ex.statements);
        assert_eq!(covered(&typed, &s), before);
        // Typed inside the first statement: it grows, the second moves.
        let typed = explored.replace("A[i] + 1", "A[i + 0] + 1");
        let (_, s) = moved(explored, &typed, &ex.diagnostics, &ex.statements);
        assert_eq!(
            covered(&typed, &s),
            ["B[i] = A[i + 0] + 1", "C[i] = B[i] * 2"]
        );
        // The line break between them replaced: each keeps its text.
        let typed = explored.replace("+ 1\n    C", "+ 1; C");
        let (_, s) = moved(explored, &typed, &ex.diagnostics, &ex.statements);
        assert_eq!(covered(&typed, &s), before);
        // An edit across the two statements cuts both: they wait for the exploration.
        let typed = explored.replace("A[i] + 1\n    C[i] = B", "X");
        let (_, s) = moved(explored, &typed, &ex.diagnostics, &ex.statements);
        assert!(s.is_empty(), "{:?}", covered(&typed, &s));
    }

    #[test]
    fn an_underline_moves_with_the_text_it_marks() {
        let explored = "for i in range(8):\n    B[i] = A[i] +\n";
        let ex = explore(explored, &Options::default());
        assert!(!ex.diagnostics.is_empty());
        let typed = format!("# note\n{explored}");
        let (d, _) = moved(explored, &typed, &ex.diagnostics, &ex.statements);
        assert_eq!(d.len(), ex.diagnostics.len());
        for (was, now) in ex.diagnostics.iter().zip(&d) {
            assert_eq!(
                &explored[was.span.start as usize..was.span.end as usize],
                &typed[now.span.start as usize..now.span.end as usize]
            );
        }
    }
}
