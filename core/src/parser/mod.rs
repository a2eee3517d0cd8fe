//! Recursive-descent parser. It never fails: every problem becomes a located diagnostic, the bad
//! line becomes `StmtKind::Error`, and parsing resumes at the next line.

use crate::diagnostic::{Diagnostic, Span};
use crate::lexer::{lex_code, Sym, Token, TokenKind};
use crate::limits;
use crate::syntax::*;

mod expressions;
mod statements;

pub struct Parsed {
    pub file: File,
    /// The lexer's and the parser's first `limits::PHASE_DIAGNOSTICS` problems each.
    pub diagnostics: Vec<Diagnostic>,
    /// Problems found past those, counted only.
    pub unlisted: usize,
}

pub fn parse(text: &str) -> Parsed {
    parse_as(text, false)
}

/// `parse` reading TVMScript's Python instead (`tvmscript::read` gives the tree meaning): decorator,
/// `import` and `T.reads` / `T.writes` lines become `pass` (a block's attributes, `T.sblock_attr`,
/// are read by `tvmscript::read`), a `def` becomes
/// `with def(name):` whose body starts with one `param = annotation` per parameter, a loop may run
/// over any call (`T.serial(...)`), a parenthesized list is a tuple and `{k: v}` a call of `dict`
/// with one `[k, v]` per entry. The `@` of a decorator is no stray character there.
pub(crate) fn parse_tvmscript(text: &str) -> Parsed {
    parse_as(text, true)
}

fn parse_as(text: &str, tvmscript: bool) -> Parsed {
    if let Some(message) = limits::source_beyond_limits(text) {
        let d = Diagnostic::error(Span::new(0, 0), message)
            .with_hint("a pipelined loop body fits in far less; split the example");
        return Parsed {
            file: File::default(),
            diagnostics: vec![d],
            unlisted: 0,
        };
    }
    // Comments matter to the highlighter only; without them, peeking is indexing.
    let mut lexed = lex_code(text);
    if tvmscript {
        lexed.diagnostics.retain(|d| {
            !text
                .get(d.span.start as usize..)
                .is_some_and(|t| t.starts_with('@'))
        });
    }
    let mut p = Parser {
        tvmscript,
        text,
        tokens: lexed.tokens,
        pos: 0,
        room: lexed.diagnostics.len() + limits::PHASE_DIAGNOSTICS,
        diagnostics: lexed.diagnostics,
        unlisted: lexed.unlisted,
        depth: 0,
        operators: 0,
    };
    let stmts = p.block_until_eof();
    Parsed {
        file: File { stmts },
        diagnostics: p.diagnostics,
        unlisted: p.unlisted,
    }
}

struct Parser<'a> {
    /// Reading TVMScript (`parse_tvmscript`).
    tvmscript: bool,
    text: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    diagnostics: Vec<Diagnostic>,
    /// How long `diagnostics` may grow: the lexer's and `limits::PHASE_DIAGNOSTICS` more.
    room: usize,
    /// Problems past `room`, counted only.
    unlisted: usize,
    depth: usize,
    /// Binary operators read since the current statement began (`limits::MAX_OPERATORS`).
    operators: usize,
}

// The small levels marked `#[inline(always)]` return a 72-byte `Expr` (or a 152-byte `Stmt`) by
// value: inlined, it is built where the caller keeps it rather than copied at every level
// (docs/benchmarks.md).
type PResult<T> = Result<T, ()>;

impl<'a> Parser<'a> {
    fn peek_tok(&self) -> Token {
        self.peek_n(0)
    }

    fn peek_n(&self, n: usize) -> Token {
        self.tokens.get(self.pos + n).copied().unwrap_or_else(|| {
            let end = self.text.len();
            Token::new(TokenKind::Eof, Span::new(end, end))
        })
    }

    fn text_of(&self, t: Token) -> &'a str {
        self.text_of_span(t.span)
    }

    fn text_of_span(&self, span: Span) -> &'a str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    fn bump(&mut self) -> Token {
        let t = self.peek_tok();
        if self.pos < self.tokens.len() {
            self.pos += 1;
        }
        t
    }

    fn peek_sym(&self) -> Sym {
        self.tokens.get(self.pos).map_or(Sym::None, |t| t.sym)
    }

    fn at(&self, sym: Sym) -> bool {
        self.tokens.get(self.pos).is_some_and(|t| t.sym == sym)
    }

    fn eat(&mut self, sym: Sym) -> bool {
        if self.at(sym) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, sym: Sym, what: &str) -> PResult<Token> {
        if self.at(sym) {
            Ok(self.bump())
        } else {
            self.expected(sym, what)
        }
    }

    /// The error of `expect`, apart so that the hot path stays small.
    #[cold]
    fn expected(&mut self, sym: Sym, what: &str) -> PResult<Token> {
        let t = self.peek_tok();
        self.report_found(t, |found| {
            format!("expected `{}` {what}, found {found}", sym.text())
        });
        Err(())
    }

    /// Reports what was expected where token `t` was found (`message` of its description); not
    /// at a stray character, which the lexer has reported already.
    #[cold]
    fn report_found(&mut self, t: Token, message: impl FnOnce(&str) -> String) {
        if t.kind != TokenKind::Unknown {
            self.report(|p| Diagnostic::error(t.span, message(&describe(t, p.text_of(t)))));
        }
    }

    /// Records the problem `make` makes, while there is room (a text of bad lines has one on
    /// every line); past it, only counts it.
    #[cold]
    fn report(&mut self, make: impl FnOnce(&Self) -> Diagnostic) {
        if self.diagnostics.len() < self.room {
            let d = make(self);
            self.diagnostics.push(d);
        } else {
            self.unlisted += 1;
        }
    }

    fn error_at(&mut self, t: Token, message: String, hint: Option<&str>) {
        self.report(|_| {
            let d = Diagnostic::error(t.span, message);
            match hint {
                Some(h) => d.with_hint(h),
                None => d,
            }
        });
    }

    /// Skips to the start of the next logical line (past its Newline), keeping nested blocks balanced.
    fn recover(&mut self) {
        let mut nesting = 0i32;
        loop {
            let t = self.peek_tok();
            match t.kind {
                TokenKind::Eof => return,
                TokenKind::Newline if nesting <= 0 => {
                    self.bump();
                    if self.peek_tok().kind == TokenKind::Indent {
                        // The bad line opened a block: skip the whole block too.
                        self.bump();
                        nesting = 1;
                        continue;
                    }
                    return;
                }
                TokenKind::Indent => nesting += 1,
                TokenKind::Dedent => {
                    if nesting <= 0 {
                        return;
                    }
                    nesting -= 1;
                    if nesting == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }
}

/// The value of an integer literal (digits and `_` separators), if it fits in 64 bits.
fn int_value(text: &str) -> Option<i64> {
    text.bytes().filter(|&b| b != b'_').try_fold(0i64, |n, b| {
        n.checked_mul(10)?
            .checked_add(i64::from(b.wrapping_sub(b'0')))
    })
}

fn span_to_body(head: Span, body: &[Stmt]) -> Span {
    body.last().map_or(head, |s| head.to(s.span))
}

fn describe(t: Token, text: &str) -> String {
    match t.kind {
        TokenKind::Newline => "the end of the line".into(),
        TokenKind::Eof => "the end of the text".into(),
        TokenKind::Indent => "an indented line".into(),
        TokenKind::Dedent => "the end of the block".into(),
        _ => format!("`{text}`"),
    }
}
