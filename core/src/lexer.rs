//! Tokens of the loop language (a small Python subset). Indentation becomes `Indent`/`Dedent`
//! tokens; newlines inside brackets are ignored, as in Python. The lexer never fails: a stray
//! character becomes an `Unknown` token and a diagnostic. The app highlights text from these tokens.

use crate::diagnostic::{Diagnostic, Span};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    Ident,
    Keyword,
    Int,
    Float,
    Str,
    Comment,
    Op,
    Punct,
    Newline,
    Indent,
    Dedent,
    Unknown,
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

pub const KEYWORDS: &[&str] = &[
    "for", "in", "if", "else", "with", "and", "or", "not", "pass",
];

pub struct Lexed {
    pub tokens: Vec<Token>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Tokens for highlighting: everything the user wrote, including comments, in order.
pub fn highlight_tokens(text: &str) -> Vec<Token> {
    lex(text)
        .tokens
        .into_iter()
        .filter(|t| {
            !matches!(
                t.kind,
                TokenKind::Newline | TokenKind::Indent | TokenKind::Dedent | TokenKind::Eof
            )
        })
        .collect()
}

pub fn lex(text: &str) -> Lexed {
    let bytes = text.as_bytes();
    // About one token per four bytes in practice; growing the vector costs more than the slack.
    let mut tokens = Vec::with_capacity(text.len() / 3 + 8);
    let mut diagnostics = Vec::new();
    let mut indents: Vec<usize> = vec![0];
    let mut depth = 0usize; // bracket nesting
    let mut pos = 0usize;
    let mut at_line_start = true;
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(0);

    while pos < bytes.len() {
        if at_line_start && depth == 0 {
            // Measure indentation; blank and comment-only lines do not change it.
            let mut col = 0usize;
            let mut p = pos;
            while matches!(byte(p), b' ' | b'\t') {
                col += if byte(p) == b'\t' { 8 - col % 8 } else { 1 };
                p += 1;
            }
            let c = byte(p);
            if p >= bytes.len() || c == b'\n' || c == b'\r' || c == b'#' {
                pos = p;
                if c == b'#' {
                    let end = text
                        .get(p..)
                        .and_then(|s| s.find('\n'))
                        .map_or(bytes.len(), |e| p + e);
                    tokens.push(Token {
                        kind: TokenKind::Comment,
                        span: Span::new(p, end),
                    });
                    pos = end;
                }
                if byte(pos) == b'\r' {
                    pos += 1;
                }
                if byte(pos) == b'\n' {
                    pos += 1;
                }
                continue;
            }
            let current = indents.last().copied().unwrap_or(0);
            if col > current {
                indents.push(col);
                tokens.push(Token {
                    kind: TokenKind::Indent,
                    span: Span::new(p, p),
                });
            } else {
                while col < indents.last().copied().unwrap_or(0) {
                    indents.pop();
                    tokens.push(Token {
                        kind: TokenKind::Dedent,
                        span: Span::new(p, p),
                    });
                }
                if col != indents.last().copied().unwrap_or(0) {
                    diagnostics.push(
                        Diagnostic::error(
                            Span::new(pos, p),
                            "this line's indentation matches no enclosing block",
                        )
                        .with_hint("indent it exactly like the line it belongs with"),
                    );
                    indents.push(col);
                    tokens.push(Token {
                        kind: TokenKind::Indent,
                        span: Span::new(p, p),
                    });
                }
            }
            pos = p;
            at_line_start = false;
            continue;
        }
        let c = byte(pos);
        let start = pos;
        match c {
            b' ' | b'\t' | b'\r' => {
                while matches!(byte(pos), b' ' | b'\t' | b'\r') {
                    pos += 1;
                }
            }
            b'\\' if byte(pos + 1) == b'\n' => pos += 2,
            b'\n' => {
                pos += 1;
                if depth > 0 && starts_statement(text.get(pos..).unwrap_or("")) {
                    // An unclosed bracket would swallow the rest of the file; a line that
                    // starts a statement ends it instead, so one typo costs one line.
                    depth = 0;
                }
                if depth == 0 {
                    tokens.push(Token {
                        kind: TokenKind::Newline,
                        span: Span::new(start, pos),
                    });
                    at_line_start = true;
                }
            }
            b'#' => {
                let end = text
                    .get(pos..)
                    .and_then(|s| s.find('\n'))
                    .map_or(bytes.len(), |e| pos + e);
                tokens.push(Token {
                    kind: TokenKind::Comment,
                    span: Span::new(pos, end),
                });
                pos = end;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while byte(pos).is_ascii_alphanumeric() || byte(pos) == b'_' {
                    pos += 1;
                }
                let word = text.get(start..pos).unwrap_or("");
                let kind = if KEYWORDS.contains(&word) {
                    TokenKind::Keyword
                } else {
                    TokenKind::Ident
                };
                tokens.push(Token {
                    kind,
                    span: Span::new(start, pos),
                });
            }
            b'0'..=b'9' | b'.' if c != b'.' || byte(pos + 1).is_ascii_digit() => {
                let mut float = false;
                while byte(pos).is_ascii_digit() || byte(pos) == b'_' {
                    pos += 1;
                }
                if byte(pos) == b'.' && byte(pos + 1) != b'.' {
                    float = true;
                    pos += 1;
                    while byte(pos).is_ascii_digit() {
                        pos += 1;
                    }
                }
                if matches!(byte(pos), b'e' | b'E')
                    && (byte(pos + 1).is_ascii_digit()
                        || (matches!(byte(pos + 1), b'+' | b'-') && byte(pos + 2).is_ascii_digit()))
                {
                    float = true;
                    pos += 2;
                    while byte(pos).is_ascii_digit() {
                        pos += 1;
                    }
                }
                let kind = if float {
                    TokenKind::Float
                } else {
                    TokenKind::Int
                };
                tokens.push(Token {
                    kind,
                    span: Span::new(start, pos),
                });
            }
            b'"' | b'\'' => {
                pos += 1;
                pos += bytes
                    .get(pos..)
                    .unwrap_or_default()
                    .iter()
                    .position(|&b| b == c || b == b'\n')
                    .unwrap_or(bytes.len().saturating_sub(pos));
                if byte(pos) == c {
                    pos += 1;
                } else {
                    diagnostics.push(
                        Diagnostic::error(Span::new(start, pos), "this string is not closed")
                            .with_hint(format!("end it with {}", c as char)),
                    );
                }
                tokens.push(Token {
                    kind: TokenKind::Str,
                    span: Span::new(start, pos),
                });
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                pos += 1;
                tokens.push(Token {
                    kind: TokenKind::Punct,
                    span: Span::new(start, pos),
                });
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                pos += 1;
                tokens.push(Token {
                    kind: TokenKind::Punct,
                    span: Span::new(start, pos),
                });
            }
            b',' | b':' | b'.' => {
                pos += 1;
                tokens.push(Token {
                    kind: TokenKind::Punct,
                    span: Span::new(start, pos),
                });
            }
            b'=' | b'!' | b'<' | b'>' | b'+' | b'-' | b'*' | b'/' | b'%' => {
                pos += 1;
                let two = matches!(
                    (c, byte(pos)),
                    (b'=' | b'!' | b'<' | b'>', b'=') | (b'/', b'/')
                );
                if two {
                    pos += 1;
                }
                if c == b'!' && !two {
                    diagnostics.push(
                        Diagnostic::error(Span::new(start, pos), "unexpected `!`")
                            .with_hint("use `not` or `!=`"),
                    );
                    tokens.push(Token {
                        kind: TokenKind::Unknown,
                        span: Span::new(start, pos),
                    });
                } else {
                    tokens.push(Token {
                        kind: TokenKind::Op,
                        span: Span::new(start, pos),
                    });
                }
            }
            _ => {
                // Skip a whole UTF-8 character so spans stay on character boundaries.
                let len = text
                    .get(pos..)
                    .and_then(|s| s.chars().next())
                    .map_or(1, char::len_utf8);
                pos += len;
                let shown = text.get(start..pos).unwrap_or("?");
                diagnostics.push(Diagnostic::error(
                    Span::new(start, pos),
                    format!("unexpected character `{shown}`"),
                ));
                tokens.push(Token {
                    kind: TokenKind::Unknown,
                    span: Span::new(start, pos),
                });
            }
        }
    }
    let end = bytes.len();
    if !at_line_start {
        tokens.push(Token {
            kind: TokenKind::Newline,
            span: Span::new(end, end),
        });
    }
    while indents.len() > 1 {
        indents.pop();
        tokens.push(Token {
            kind: TokenKind::Dedent,
            span: Span::new(end, end),
        });
    }
    tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(end, end),
    });
    Lexed {
        tokens,
        diagnostics,
    }
}

fn starts_statement(line: &str) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    ["for ", "with ", "if ", "sch.", "pass"]
        .iter()
        .any(|k| t.starts_with(k))
        || (t
            .find(" = ")
            .is_some_and(|eq| !t.get(..eq).unwrap_or("").contains(['(', ',']))
            && t.split(" = ").next().is_some_and(|lhs| {
                lhs.ends_with(']') || lhs.chars().all(|c| c.is_alphanumeric() || c == '_')
            }))
}
