//! Tokens of the loop language (a small Python subset). Indentation becomes `Indent`/`Dedent`
//! tokens; newlines inside brackets are ignored, as in Python. The lexer never fails: a stray
//! character becomes an `Unknown` token and a diagnostic. The app highlights text from these tokens.

use crate::diagnostic::{Diagnostic, Span};
use crate::limits::PHASE_DIAGNOSTICS;
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
    /// Which keyword, operator or punctuation this is, so the parser compares a byte, not text.
    #[serde(skip)]
    pub sym: Sym,
    pub span: Span,
}

impl Token {
    pub fn new(kind: TokenKind, span: Span) -> Token {
        Token {
            kind,
            sym: Sym::None,
            span,
        }
    }

    /// A keyword, operator or punctuation token.
    fn symbol(kind: TokenKind, sym: Sym, span: Span) -> Token {
        Token { kind, sym, span }
    }
}

/// Keywords, operators and punctuation, as the parser matches them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sym {
    /// Any other token (names, numbers, strings, layout).
    #[default]
    None,
    For,
    In,
    If,
    Else,
    With,
    And,
    Or,
    Not,
    Pass,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Dot,
    Assign,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Star,
    Slash,
    SlashSlash,
    Percent,
    /// `+=`, `-=`, `*=`, `/=`, `%=`: lexed whole so the parser can say they are not supported.
    AugAssign,
}

impl Sym {
    /// The keyword a word is, if it is one.
    pub fn keyword(word: &str) -> Option<Sym> {
        Sym::keyword_bytes(word.as_bytes())
    }

    fn keyword_bytes(word: &[u8]) -> Option<Sym> {
        Some(match word {
            b"for" => Sym::For,
            b"in" => Sym::In,
            b"if" => Sym::If,
            b"else" => Sym::Else,
            b"with" => Sym::With,
            b"and" => Sym::And,
            b"or" => Sym::Or,
            b"not" => Sym::Not,
            b"pass" => Sym::Pass,
            _ => return None,
        })
    }

    /// The text of a keyword, operator or punctuation (for messages).
    pub fn text(self) -> &'static str {
        match self {
            Sym::None => "",
            Sym::For => "for",
            Sym::In => "in",
            Sym::If => "if",
            Sym::Else => "else",
            Sym::With => "with",
            Sym::And => "and",
            Sym::Or => "or",
            Sym::Not => "not",
            Sym::Pass => "pass",
            Sym::LParen => "(",
            Sym::RParen => ")",
            Sym::LBracket => "[",
            Sym::RBracket => "]",
            Sym::LBrace => "{",
            Sym::RBrace => "}",
            Sym::Comma => ",",
            Sym::Colon => ":",
            Sym::Dot => ".",
            Sym::Assign => "=",
            Sym::Eq => "==",
            Sym::Ne => "!=",
            Sym::Lt => "<",
            Sym::Le => "<=",
            Sym::Gt => ">",
            Sym::Ge => ">=",
            Sym::Plus => "+",
            Sym::Minus => "-",
            Sym::Star => "*",
            Sym::Slash => "/",
            Sym::SlashSlash => "//",
            Sym::Percent => "%",
            Sym::AugAssign => "+=",
        }
    }

    /// The operator that starts with byte `c` (followed by `next`), and its length.
    fn operator(c: u8, next: u8) -> Option<(Sym, usize)> {
        let two = |sym| Some((sym, 2));
        let one = |sym| Some((sym, 1));
        match (c, next) {
            (b'=', b'=') => two(Sym::Eq),
            (b'!', b'=') => two(Sym::Ne),
            (b'<', b'=') => two(Sym::Le),
            (b'>', b'=') => two(Sym::Ge),
            (b'/', b'/') => two(Sym::SlashSlash),
            (b'+' | b'-' | b'*' | b'/' | b'%', b'=') => two(Sym::AugAssign),
            (b'=', _) => one(Sym::Assign),
            (b'<', _) => one(Sym::Lt),
            (b'>', _) => one(Sym::Gt),
            (b'+', _) => one(Sym::Plus),
            (b'-', _) => one(Sym::Minus),
            (b'*', _) => one(Sym::Star),
            (b'/', _) => one(Sym::Slash),
            (b'%', _) => one(Sym::Percent),
            _ => None,
        }
    }
}

/// Whether a word is reserved (it cannot name a buffer or a loop variable).
pub fn is_keyword(word: &str) -> bool {
    Sym::keyword(word).is_some()
}

pub struct Lexed {
    pub tokens: Vec<Token>,
    /// The first `limits::PHASE_DIAGNOSTICS` problems, in text order.
    pub diagnostics: Vec<Diagnostic>,
    /// Problems found past those, counted only.
    pub unlisted: usize,
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
        // Highlighting needs only the kind; the parser's symbol is not sent to the page.
        .map(|t| Token::new(t.kind, t.span))
        .collect()
}

pub fn lex(text: &str) -> Lexed {
    lex_with(text, true)
}

/// `lex` without the comment tokens, which the parser has no use for: not making them costs
/// less than removing them afterwards.
pub(crate) fn lex_code(text: &str) -> Lexed {
    lex_with(text, false)
}

/// A text the lexer cannot read: spans are 32-bit offsets. (The parser refuses anything over
/// `limits::MAX_SOURCE_BYTES` before lexing; this is for direct callers.)
fn too_long() -> Lexed {
    Lexed {
        tokens: vec![Token::new(TokenKind::Eof, Span::new(0, 0))],
        diagnostics: vec![Diagnostic::error(
            Span::new(0, 0),
            "this text is longer than 4 GiB, which Stagecraft cannot read",
        )],
        unlisted: 0,
    }
}

/// Records a problem in `$diagnostics` while there is room, else counts it in `$unlisted`. A
/// macro, not a closure or a cold method: either made the lexer's hot loop dearer although
/// problems are rare (docs/benchmarks.md).
macro_rules! report {
    ($diagnostics:ident, $unlisted:ident, $problem:expr $(,)?) => {
        if $diagnostics.len() < PHASE_DIAGNOSTICS {
            $diagnostics.push($problem);
        } else {
            $unlisted += 1;
        }
    };
}

fn lex_with(text: &str, keep_comments: bool) -> Lexed {
    if u32::try_from(text.len()).is_err() {
        return too_long();
    }
    let bytes = text.as_bytes();
    // Room for a token per three bytes, more than a loop's text has; growing the vector costs
    // more than the slack.
    let mut tokens = Vec::with_capacity(text.len() / 3 + 8);
    let mut diagnostics = Vec::new();
    // Problems past the first `PHASE_DIAGNOSTICS`, counted only: a text of stray characters has
    // one on every line.
    let mut unlisted = 0usize;
    let mut blocks = Blocks::default();
    let mut depth = 0usize; // bracket nesting
    let mut pos = 0usize;
    let mut at_line_start = true;
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(0);

    // One turn per line that starts a statement (so at bracket depth 0): its indentation, then
    // its tokens.
    'lines: while pos < bytes.len() {
        // Blank and comment-only lines do not change the indentation.
        let (col, p) = indentation(bytes, pos);
        if let Some((end, comment)) = blank_line(text, p) {
            if let (true, Some(c)) = (keep_comments, comment) {
                tokens.push(Token::new(TokenKind::Comment, c));
            }
            pos = end;
            continue 'lines;
        }
        if !blocks.enter(col, p, &mut tokens) {
            report!(diagnostics, unlisted, unmatched_indentation(pos, p));
        }
        pos = p;
        at_line_start = false;
        while let Some(&c) = bytes.get(pos) {
            let start = pos;
            match c {
                // Mostly single spaces between tokens: a step costs less than a scan.
                b' ' | b'\t' | b'\r' => pos += 1,
                b'\\' if byte(pos + 1) == b'\n' => pos += 2,
                b'\n' => {
                    pos += 1;
                    if depth > 0 && starts_statement(text.get(pos..).unwrap_or("")) {
                        // An unclosed bracket would swallow the rest of the file; a line that
                        // starts a statement ends it instead, so one typo costs one line.
                        depth = 0;
                    }
                    if depth == 0 {
                        tokens.push(Token::new(TokenKind::Newline, span(start, pos)));
                        at_line_start = true;
                        continue 'lines;
                    }
                }
                b'#' => {
                    pos = line_end(text, pos);
                    if keep_comments {
                        tokens.push(Token::new(TokenKind::Comment, span(start, pos)));
                    }
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                    pos = skip_while(bytes, pos + 1, is_word_byte);
                    tokens.push(match bytes.get(start..pos).and_then(Sym::keyword_bytes) {
                        Some(sym) => Token::symbol(TokenKind::Keyword, sym, span(start, pos)),
                        None => Token::new(TokenKind::Ident, span(start, pos)),
                    });
                }
                b'0'..=b'9' | b'.' if c != b'.' || byte(pos + 1).is_ascii_digit() => {
                    let float;
                    (pos, float) = number_end(bytes, pos);
                    let kind = if float {
                        TokenKind::Float
                    } else {
                        TokenKind::Int
                    };
                    tokens.push(Token::new(kind, span(start, pos)));
                }
                b'"' | b'\'' => {
                    pos = skip_while(bytes, pos + 1, |b| b != c && b != b'\n');
                    if byte(pos) == c {
                        pos += 1;
                    } else {
                        report!(
                            diagnostics,
                            unlisted,
                            Diagnostic::error(span(start, pos), "this string is not closed")
                                .with_hint(format!("end it with {}", c as char)),
                        );
                    }
                    tokens.push(Token::new(TokenKind::Str, span(start, pos)));
                }
                b'(' | b'[' | b'{' | b')' | b']' | b'}' | b',' | b':' | b'.' => {
                    pos += 1;
                    let sym = punctuation(c);
                    match sym {
                        Sym::LParen | Sym::LBracket | Sym::LBrace => depth += 1,
                        Sym::RParen | Sym::RBracket | Sym::RBrace => {
                            depth = depth.saturating_sub(1)
                        }
                        _ => {}
                    }
                    tokens.push(Token::symbol(TokenKind::Punct, sym, span(start, pos)));
                }
                b'=' | b'<' | b'>' | b'+' | b'-' | b'*' | b'/' | b'%' => {
                    let (sym, len) = Sym::operator(c, byte(pos + 1)).unwrap_or((Sym::None, 1));
                    pos += len;
                    tokens.push(Token::symbol(TokenKind::Op, sym, span(start, pos)));
                }
                b'!' => {
                    if byte(pos + 1) == b'=' {
                        pos += 2;
                        tokens.push(Token::symbol(TokenKind::Op, Sym::Ne, span(start, pos)));
                    } else {
                        pos += 1;
                        report!(diagnostics, unlisted, lone_bang(start, pos));
                        tokens.push(Token::new(TokenKind::Unknown, span(start, pos)));
                    }
                }
                _ => {
                    // A run of characters the language has no use for is one token and one
                    // problem, not one per character. Whole UTF-8 characters are skipped, so
                    // spans stay on character boundaries.
                    pos = skip_while(bytes, pos + 1, is_stray_byte);
                    while !text.is_char_boundary(pos) {
                        pos += 1;
                    }
                    report!(diagnostics, unlisted, stray(text, start, pos));
                    tokens.push(Token::new(TokenKind::Unknown, span(start, pos)));
                }
            }
        }
    }
    blocks.end_of_text(bytes.len(), !at_line_start, &mut tokens);
    Lexed {
        tokens,
        diagnostics,
        unlisted,
    }
}

/// The columns of the open blocks; the outermost, column 0, is left implicit.
struct Blocks {
    columns: Vec<usize>,
}

impl Default for Blocks {
    fn default() -> Self {
        // Sized for the usual nesting: growing from empty cost more than the allocation.
        Blocks {
            columns: Vec::with_capacity(4),
        }
    }
}

impl Blocks {
    /// At the end of the text (offset `end`): the last line ends if it is `open`, then every
    /// block, then the text.
    fn end_of_text(self, end: usize, open: bool, tokens: &mut Vec<Token>) {
        if open {
            tokens.push(Token::new(TokenKind::Newline, span(end, end)));
        }
        for _ in self.columns {
            tokens.push(Token::new(TokenKind::Dedent, span(end, end)));
        }
        tokens.push(Token::new(TokenKind::Eof, span(end, end)));
    }

    /// The `Indent` or `Dedent` tokens of a line whose first token is at column `col`, offset
    /// `p`. False when the column matches no enclosing block: it opens one all the same.
    fn enter(&mut self, col: usize, p: usize, tokens: &mut Vec<Token>) -> bool {
        let current = |columns: &[usize]| columns.last().copied().unwrap_or(0);
        if col > current(&self.columns) {
            self.columns.push(col);
            tokens.push(Token::new(TokenKind::Indent, span(p, p)));
            return true;
        }
        while col < current(&self.columns) {
            self.columns.pop();
            tokens.push(Token::new(TokenKind::Dedent, span(p, p)));
        }
        if col == current(&self.columns) {
            return true;
        }
        self.columns.push(col);
        tokens.push(Token::new(TokenKind::Indent, span(p, p)));
        false
    }
}

/// The column of the line starting at `pos` (a tab advances to the next multiple of 8), and the
/// offset of its first byte that is not a blank.
fn indentation(bytes: &[u8], pos: usize) -> (usize, usize) {
    let mut col = 0usize;
    let mut p = pos;
    while let Some(&b) = bytes.get(p).filter(|&&b| b == b' ' || b == b'\t') {
        col += if b == b'\t' { 8 - col % 8 } else { 1 };
        p += 1;
    }
    (col, p)
}

/// If the line whose first non-blank byte is at `p` has nothing else or only a comment: where the
/// next line starts, and the comment's span.
fn blank_line(text: &str, p: usize) -> Option<(usize, Option<Span>)> {
    let byte = |i: usize| text.as_bytes().get(i).copied().unwrap_or(0);
    let c = byte(p);
    if p < text.len() && c != b'\n' && c != b'\r' && c != b'#' {
        return None;
    }
    let mut pos = p;
    let mut comment = None;
    if c == b'#' {
        pos = line_end(text, p);
        comment = Some(span(p, pos));
    }
    if byte(pos) == b'\r' {
        pos += 1;
    }
    if byte(pos) == b'\n' {
        pos += 1;
    }
    Some((pos, comment))
}

/// Where the number starting at `pos` ends (digits and `_`, a fraction, an exponent), and whether
/// it is a float.
fn number_end(bytes: &[u8], mut pos: usize) -> (usize, bool) {
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(0);
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
    (pos, float)
}

/// The symbol of a bracket or punctuation byte.
fn punctuation(c: u8) -> Sym {
    match c {
        b'(' => Sym::LParen,
        b'[' => Sym::LBracket,
        b'{' => Sym::LBrace,
        b')' => Sym::RParen,
        b']' => Sym::RBracket,
        b'}' => Sym::RBrace,
        b',' => Sym::Comma,
        b':' => Sym::Colon,
        _ => Sym::Dot,
    }
}

/// The span of bytes `start..end` of a text `lex_with` accepted: shorter than 4 GiB, so the
/// offsets fit 32 bits. (`Span::new` clamps them instead, a cost on every token:
/// docs/benchmarks.md.)
fn span(start: usize, end: usize) -> Span {
    Span {
        start: start as u32,
        end: end as u32,
    }
}

/// Where the line that `from` is on ends (its `\n`, or the end of the text). `find` searches a
/// word at a time, and comments are long.
fn line_end(text: &str, from: usize) -> usize {
    text.get(from..)
        .and_then(|rest| rest.find('\n'))
        .map_or(text.len(), |end| from + end)
}

/// The first position from `from` on whose byte is not `pred`, or the end of the text.
fn skip_while(bytes: &[u8], from: usize, pred: impl Fn(u8) -> bool) -> usize {
    let rest = bytes.get(from..).unwrap_or_default();
    from + rest.iter().position(|&b| !pred(b)).unwrap_or(rest.len())
}

/// Whether a byte continues a name: a table lookup, because names are most of the text.
fn is_word_byte(b: u8) -> bool {
    WORD_BYTES.get(usize::from(b)).copied().unwrap_or(false)
}

static WORD_BYTES: [bool; 256] = word_bytes();

// Evaluated at compile time, where an index out of bounds is a build error, not a panic.
#[allow(clippy::indexing_slicing)]
const fn word_bytes() -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        table[i] = b.is_ascii_alphanumeric() || b == b'_';
        i += 1;
    }
    table
}

/// Whether a byte is part of a character the lexer has no token for (UTF-8 bytes beyond ASCII
/// included: a character the language has no use for is always a stray).
fn is_stray_byte(b: u8) -> bool {
    !b.is_ascii()
        || matches!(
            b,
            b'@' | b'$' | b'?' | b'`' | b'^' | b'&' | b'|' | b'~' | b';'
        )
        || (b.is_ascii_control() && !matches!(b, b'\n' | b'\r' | b'\t'))
}

/// The problem of a line, its indentation at `start..end`, whose indentation opens no block and
/// closes to none.
fn unmatched_indentation(start: usize, end: usize) -> Diagnostic {
    Diagnostic::error(
        span(start, end),
        "this line's indentation matches no enclosing block",
    )
    .with_hint("indent it exactly like the line it belongs with")
}

/// The problem of a `!` not followed by `=`.
fn lone_bang(start: usize, end: usize) -> Diagnostic {
    Diagnostic::error(span(start, end), "unexpected `!`").with_hint("use `not` or `!=`")
}

/// The problem of the stray characters at `start..end`, quoting the first few; a character that
/// cannot be seen, or that looks like one the language uses (what text copied from a web page or
/// a document brings), is named, with what to type instead.
fn stray(text: &str, start: usize, end: usize) -> Diagnostic {
    const SHOWN: usize = 12;
    let run = text.get(start..end).unwrap_or("?");
    // `more`: "…" when the run goes on beyond what is quoted.
    let quoted = |part: &str, more: &str| -> String {
        if part.chars().any(|c| invisible(c).is_some()) {
            format!(
                "{}{more}",
                part.chars().map(named).collect::<Vec<_>>().join(" ")
            )
        } else {
            crate::diagnostic::code(&format!("{part}{more}"))
        }
    };
    let message = match run.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!(
            "unexpected characters {} ({} in all)",
            quoted(run.get(..cut).unwrap_or(run), "…"),
            run.chars().count()
        ),
        None if run.chars().nth(1).is_some() => {
            format!("unexpected characters {}", quoted(run, ""))
        }
        None => format!("unexpected character {}", quoted(run, "")),
    };
    let d = Diagnostic::error(span(start, end), message);
    match run.chars().find_map(instead) {
        Some(hint) => d.with_hint(hint),
        None => d,
    }
}

/// The name of a character that shows as nothing, or as a space.
fn invisible(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{0}' => "NUL",
        '\u{a0}' => "a no-break space",
        '\u{200b}' => "a zero-width space",
        '\u{200c}' | '\u{200d}' => "a zero-width joiner",
        '\u{feff}' => "a byte order mark",
        '\u{2028}' | '\u{2029}' => "a Unicode line separator",
        c if c.is_whitespace() => "a Unicode space",
        c if c.is_control() => "a control character",
        _ => return None,
    })
}

/// A character quoted by its code point, and its name when it cannot be seen.
fn named(c: char) -> String {
    match invisible(c) {
        Some(name) => format!("U+{:04X} ({name})", u32::from(c)),
        None => crate::diagnostic::code(&c.to_string()),
    }
}

/// What to type instead of a character copied text often carries.
fn instead(c: char) -> Option<String> {
    let (what, write) = match c {
        '“' | '”' | '„' | '″' => ("a typographic quote", "`\"`"),
        '‘' | '’' | '′' => ("a typographic quote", "`'`"),
        '−' | '–' | '—' => ("a dash", "`-`"),
        '×' => ("a multiplication sign", "`*`"),
        '…' => ("an ellipsis", "`...`"),
        c if c.is_whitespace() => ("a space the language does not read", "a plain space"),
        c if invisible(c).is_some() => {
            return Some(
                "it cannot be seen, and copied text often carries it: delete it".to_string(),
            )
        }
        _ => return None,
    };
    // A space is named by its code point alone: quoted, it would show as a blank.
    let subject = if c.is_whitespace() {
        format!("U+{:04X}", u32::from(c))
    } else {
        format!("`{c}`")
    };
    Some(format!(
        "{subject} is {what}, which copied text often carries: write {write} instead"
    ))
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
