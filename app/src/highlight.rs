//! HTML for the editor's highlighted overlay and the program panes: tokens coloured by kind,
//! diagnostics underlined at their spans, statements tinted on hover. Pure functions, tested natively.

use stagecraft::diagnostic::{Diagnostic, Severity};
use stagecraft::explore::StatementInfo;
use stagecraft::lexer::{Token, TokenKind};

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn class_of(kind: TokenKind) -> &'static str {
    match kind {
        TokenKind::Keyword => "tk-kw",
        TokenKind::Int | TokenKind::Float => "tk-num",
        TokenKind::Str => "tk-str",
        TokenKind::Comment => "tk-com",
        TokenKind::Op => "tk-op",
        TokenKind::Unknown => "tk-bad",
        TokenKind::Ident => "tk-id",
        _ => "",
    }
}

/// The editor overlay: every byte of `text` appears once, wrapped in spans.
pub fn editor_html(
    text: &str,
    tokens: &[Token],
    diagnostics: &[Diagnostic],
    statements: &[StatementInfo],
    hovered: Option<u32>,
) -> String {
    // Boundaries where a span may open or close.
    let mut marks: Vec<usize> = vec![0, text.len()];
    for t in tokens {
        marks.push(t.span.start as usize);
        marks.push(t.span.end as usize);
    }
    for d in diagnostics {
        marks.push(d.span.start as usize);
        marks.push((d.span.end.max(d.span.start + 1)) as usize);
    }
    for s in statements {
        marks.push(s.span.start as usize);
        marks.push(s.span.end as usize);
    }
    marks.retain(|m| *m <= text.len() && text.is_char_boundary(*m));
    marks.sort_unstable();
    marks.dedup();
    let mut out = String::with_capacity(text.len() * 2);
    for w in marks.windows(2) {
        let (a, b) = (w[0], w[1]);
        let piece = &text[a..b];
        let mut classes = Vec::new();
        if let Some(t) = tokens
            .iter()
            .find(|t| (t.span.start as usize) <= a && b <= t.span.end as usize)
        {
            classes.push(class_of(t.kind).to_string());
        }
        if let Some(d) = diagnostics.iter().find(|d| {
            (d.span.start as usize) <= a && b <= (d.span.end.max(d.span.start + 1)) as usize
        }) {
            classes.push(if d.severity == Severity::Error {
                "diag-err".into()
            } else {
                "diag-warn".into()
            });
        }
        if let Some(s) = statements
            .iter()
            .find(|s| (s.span.start as usize) <= a && b <= s.span.end as usize)
        {
            if hovered == Some(s.id) {
                classes.push(format!("hl s{}", s.id % 10));
            }
        }
        let escaped = escape(piece);
        if classes.is_empty() {
            out.push_str(&escaped);
        } else {
            out.push_str(&format!(
                "<span class=\"{}\">{escaped}</span>",
                classes.join(" ")
            ));
        }
    }
    // A trailing newline needs a character after it to keep the overlay's height.
    out.push(' ');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_once_and_escaped() {
        let text = "B[0] = A[i] < 1 # x\n";
        let ex = stagecraft::explore::explore(text, &Default::default());
        let html = editor_html(text, &ex.tokens, &ex.diagnostics, &ex.statements, None);
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
}
