//! HTML for the editor's highlighted overlay: tokens coloured by kind, diagnostics underlined at their
//! spans, statements marked for the focus style sheet. Pure functions, tested natively.

use crate::html::Html;
use stagecraft::diagnostic::{Diagnostic, Severity};
use stagecraft::explore::StatementInfo;
use stagecraft::lexer::{Token, TokenKind};

fn class_of(kind: TokenKind) -> &'static str {
    match kind {
        TokenKind::Keyword => "tk-kw",
        TokenKind::Int | TokenKind::Float => "tk-num",
        TokenKind::Str => "tk-str",
        TokenKind::Comment => "tk-com",
        TokenKind::Op => "tk-op",
        TokenKind::Unknown => "tk-bad",
        // Names keep the text colour: a span each would be the overlay's most numerous element,
        // styled and laid out on every exploration for nothing.
        _ => "",
    }
}

/// The editor overlay: every byte of `text` appears once, wrapped in spans. Each statement is wrapped
/// in a span with its `st{id}` class so that hovering a statement anywhere tints it here through the focus style sheet,
/// without rebuilding the overlay.
pub fn editor_html(
    text: &str,
    tokens: &[Token],
    diagnostics: &[Diagnostic],
    statements: &[StatementInfo],
) -> String {
    // Boundaries where a span may open or close.
    let mut marks: Vec<usize> = Vec::with_capacity(2 * (tokens.len() + statements.len()) + 2);
    marks.extend([0, text.len()]);
    for t in tokens {
        marks.extend([t.span.start as usize, t.span.end as usize]);
    }
    for d in diagnostics {
        marks.extend([
            d.span.start as usize,
            (d.span.end.max(d.span.start + 1)) as usize,
        ]);
    }
    for s in statements {
        marks.extend([s.span.start as usize, s.span.end as usize]);
    }
    marks.retain(|m| *m <= text.len() && text.is_char_boundary(*m));
    marks.sort_unstable();
    marks.dedup();
    // Tokens and statements come in text order without overlap: one forward sweep finds the one
    // covering each piece (a search per piece made long texts quadratic).
    let (mut tk, mut st) = (0, 0);
    let mut out = Html::with_capacity(text.len() * 2);
    let mut classes = String::new();
    let mut open_until: Option<usize> = None;
    for w in marks.windows(2) {
        let &[a, b] = w else { continue };
        let Some(piece) = text.get(a..b) else {
            continue;
        };
        classes.clear();
        while tokens.get(tk).is_some_and(|t| (t.span.end as usize) <= a) {
            tk += 1;
        }
        if let Some(t) = tokens
            .get(tk)
            .filter(|t| (t.span.start as usize) <= a && b <= t.span.end as usize)
        {
            classes.push_str(class_of(t.kind));
        }
        if let Some(d) = diagnostics.iter().find(|d| {
            (d.span.start as usize) <= a && b <= (d.span.end.max(d.span.start + 1)) as usize
        }) {
            classes.push_str(if d.severity == Severity::Error {
                " diag-err"
            } else {
                " diag-warn"
            });
        }
        while statements
            .get(st)
            .is_some_and(|s| (s.span.end as usize) <= a)
        {
            st += 1;
        }
        // A statement is one span around its pieces, so its highlight is one unbroken box.
        if open_until.is_some_and(|end| a >= end) {
            out.raw("</span>");
            open_until = None;
        }
        if open_until.is_none() {
            if let Some(s) = statements
                .get(st)
                .filter(|s| s.span.start as usize == a && s.span.end as usize > a)
            {
                out.raw("<span class=\"st").num(s.id).raw("\">");
                open_until = Some(s.span.end as usize);
            }
        }
        let classes = classes.trim();
        if classes.is_empty() {
            out.text(piece);
        } else {
            out.raw("<span class=\"")
                .raw(classes)
                .raw("\">")
                .text(piece)
                .raw("</span>");
        }
    }
    if open_until.is_some() {
        out.raw("</span>");
    }
    // A trailing newline needs a character after it to keep the overlay's height.
    out.raw(" ");
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_once_and_escaped() {
        let text = "B[0] = A[i] < 1 # x\n";
        let ex = stagecraft::explore::explore(text, &Default::default());
        let html = editor_html(text, &ex.tokens, &ex.diagnostics, &ex.statements);
        assert!(html.contains("&lt;"));
        assert!(html.contains("tk-com"));
        // Tags removed and entities decoded, the overlay is the text itself (plus one space).
        let mut plain = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => plain.push(c),
                _ => {}
            }
        }
        let plain = plain
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        assert_eq!(plain, format!("{text} "));
    }

    #[test]
    fn statements_carry_their_id_class() {
        let text = "for i in range(4):\n    C[i] = A[i]\n";
        let ex = stagecraft::explore::explore(text, &Default::default());
        let html = editor_html(text, &ex.tokens, &ex.diagnostics, &ex.statements);
        assert!(html.contains("<span class=\"st0\">C["), "{html}");
    }
}
