//! Recursive-descent parser. It never fails: every problem becomes a located diagnostic, the bad
//! line becomes `StmtKind::Error`, and parsing resumes at the next line.

use crate::diagnostic::{Diagnostic, Span};
use crate::lexer::{lex_code, Sym, Token, TokenKind};
use crate::limits;
use crate::syntax::*;

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
/// `import` and `T.reads` / `T.writes` / `T.block_attr` lines become `pass`, a `def` becomes
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

    fn block_until_eof(&mut self) -> Vec<Stmt> {
        // Room for a typical file (buffers, a loop nest, its annotations) without regrowing.
        let mut stmts = Vec::with_capacity(16);
        loop {
            let t = self.peek_tok();
            match t.kind {
                TokenKind::Eof => return stmts,
                TokenKind::Newline => {
                    self.bump();
                }
                TokenKind::Indent => {
                    self.bump();
                    self.error_at(
                        t,
                        "unexpected indentation".into(),
                        Some("remove the leading spaces"),
                    );
                    let mut inner = self.block_body();
                    stmts.append(&mut inner);
                }
                TokenKind::Dedent => {
                    self.bump();
                }
                _ => stmts.push(self.statement()),
            }
        }
    }

    /// Statements until the matching Dedent (consumed).
    fn block_body(&mut self) -> Vec<Stmt> {
        // Loop bodies are short; allocating once beats growing from one.
        let mut stmts = Vec::with_capacity(4);
        loop {
            let t = self.peek_tok();
            match t.kind {
                TokenKind::Eof => return stmts,
                TokenKind::Dedent => {
                    self.bump();
                    return stmts;
                }
                TokenKind::Newline => {
                    self.bump();
                }
                TokenKind::Indent => {
                    self.bump();
                    self.error_at(
                        t,
                        "unexpected indentation".into(),
                        Some("align it with the line above"),
                    );
                    let mut inner = self.block_body();
                    stmts.append(&mut inner);
                }
                _ => stmts.push(self.statement()),
            }
        }
    }

    fn statement(&mut self) -> Stmt {
        let start = self.peek_tok().span;
        self.depth += 1;
        let result = if self.depth > crate::limits::MAX_NESTING {
            let t = self.peek_tok();
            self.error_at(
                t,
                format!(
                    "blocks are nested more than {} deep",
                    crate::limits::MAX_NESTING
                ),
                Some("flatten the loop nest"),
            );
            Err(())
        } else {
            self.statement_inner()
        };
        self.depth -= 1;
        match result {
            Ok(s) => s,
            Err(()) => {
                self.recover();
                let end = self
                    .tokens
                    .get(self.pos.saturating_sub(1))
                    .map_or(start, |t| t.span);
                Stmt {
                    kind: StmtKind::Error,
                    span: Span::new(start.start as usize, end.start.max(start.end) as usize),
                }
            }
        }
    }

    #[inline(always)]
    fn end_of_line(&mut self) -> PResult<()> {
        let t = self.peek_tok();
        match t.kind {
            TokenKind::Newline => {
                self.bump();
                Ok(())
            }
            TokenKind::Eof | TokenKind::Dedent => Ok(()),
            _ => {
                self.report_found(t, |found| {
                    format!("expected the end of the line, found {found}")
                });
                Err(())
            }
        }
    }

    fn suite(&mut self, header: Span) -> PResult<Vec<Stmt>> {
        self.expect(Sym::Colon, "to end the block header")?;
        let t = self.peek_tok();
        if t.kind != TokenKind::Newline {
            // One-line block: `for i in range(4): A[i] = 0`.
            let s = self.statement();
            return Ok(vec![s]);
        }
        self.bump();
        if self.peek_tok().kind != TokenKind::Indent {
            let t = self.peek_tok();
            self.report(|_| {
                Diagnostic::error(header, "this block has no body")
                    .with_hint("indent the statements that belong to it")
                    .with_related(t.span, "the next line is not indented")
            });
            return Ok(Vec::new());
        }
        self.bump();
        Ok(self.block_body())
    }

    #[inline(always)]
    fn statement_inner(&mut self) -> PResult<Stmt> {
        let first = self.peek_tok();
        if self.tvmscript {
            if let Some(s) = self.tvmscript_statement(first)? {
                return Ok(s);
            }
        }
        if first.kind == TokenKind::Keyword {
            match first.sym {
                Sym::For => return self.for_stmt(),
                Sym::With => {
                    self.bump();
                    let item = self.expr()?;
                    let body = self.suite(first.span.to(item.span))?;
                    let span = span_to_body(first.span, &body);
                    return Ok(Stmt {
                        kind: StmtKind::With { item, body },
                        span,
                    });
                }
                Sym::If => {
                    self.bump();
                    let cond = self.expr()?;
                    let body = self.suite(first.span.to(cond.span))?;
                    let mut span = span_to_body(first.span, &body);
                    let mut orelse = Vec::new();
                    if self.at(Sym::Else) {
                        let else_tok = self.bump();
                        orelse = self.suite(else_tok.span)?;
                        span = span_to_body(span.to(else_tok.span), &orelse);
                    }
                    return Ok(Stmt {
                        kind: StmtKind::If { cond, body, orelse },
                        span,
                    });
                }
                Sym::Pass => {
                    self.bump();
                    self.end_of_line()?;
                    return Ok(Stmt {
                        kind: StmtKind::Pass,
                        span: first.span,
                    });
                }
                _ => {}
            }
        }
        let lhs = self.expr()?;
        if self.eat(Sym::Assign) {
            let value = self.expr()?;
            let span = lhs.span.to(value.span);
            self.end_of_line()?;
            if !matches!(lhs.kind, ExprKind::Name(_) | ExprKind::Subscript { .. }) {
                self.report(|_| {
                    Diagnostic::error(
                        lhs.span,
                        "only a buffer element like `B[i, 0]` or a name can be assigned to",
                    )
                });
            }
            return Ok(Stmt {
                kind: StmtKind::Assign { target: lhs, value },
                span,
            });
        }
        if self.at(Sym::AugAssign) {
            let t = self.peek_tok();
            let target = self.text_of_span(lhs.span);
            let op = self.text_of(t).trim_end_matches('=');
            let hint = format!("write `{target} = {target} {op} …`");
            self.error_at(
                t,
                format!(
                    "`{}` (augmented assignment) is not supported",
                    self.text_of(t)
                ),
                Some(&hint),
            );
            return Err(());
        }
        let span = lhs.span;
        self.end_of_line()?;
        Ok(Stmt {
            kind: StmtKind::Expr(lhs),
            span,
        })
    }

    /// The TVMScript lines the loop language has no statement for, or `None` for the others.
    #[cold]
    fn tvmscript_statement(&mut self, first: Token) -> PResult<Option<Stmt>> {
        let word = self.text_of(first);
        let ignored_call = first.kind == TokenKind::Ident && {
            let mut k = 0;
            while self.peek_n(k + 1).sym == Sym::Dot && self.peek_n(k + 2).kind == TokenKind::Ident
            {
                k += 2;
            }
            k > 0
                && matches!(
                    self.text_of(self.peek_n(k)),
                    "reads" | "writes" | "block_attr"
                )
                && self.peek_n(k + 1).sym == Sym::LParen
        };
        let skipped = (first.kind == TokenKind::Unknown && word.starts_with('@'))
            || (first.kind == TokenKind::Ident && matches!(word, "import" | "from"))
            || ignored_call;
        if skipped {
            let mut end = first.span;
            while !matches!(self.peek_tok().kind, TokenKind::Newline | TokenKind::Eof) {
                end = self.bump().span;
            }
            self.bump();
            return Ok(Some(Stmt {
                kind: StmtKind::Pass,
                span: first.span.to(end),
            }));
        }
        if first.kind == TokenKind::Ident && word == "def" {
            return self.def_stmt().map(Some);
        }
        Ok(None)
    }

    /// `def name(param: annotation, ...) -> result:` and its body, as `with def(name):` whose
    /// body begins with `param = annotation` for each parameter.
    fn def_stmt(&mut self) -> PResult<Stmt> {
        let kw = self.bump();
        let name_tok = self.peek_tok();
        if name_tok.kind != TokenKind::Ident {
            self.report_found(name_tok, |found| {
                format!("expected the function's name after `def`, found {found}")
            });
            return Err(());
        }
        self.bump();
        self.expect(Sym::LParen, "after the function's name")?;
        let mut params = Vec::new();
        while !self.at(Sym::RParen) {
            let t = self.peek_tok();
            if t.kind != TokenKind::Ident {
                self.report_found(t, |found| format!("expected a parameter, found {found}"));
                return Err(());
            }
            self.bump();
            let target = Expr::new(ExprKind::Name(Ident::from(self.text_of(t))), t.span);
            let value = if self.eat(Sym::Colon) {
                self.expr()?
            } else {
                Expr::new(ExprKind::Name(Ident::from("handle")), t.span)
            };
            let span = t.span.to(value.span);
            params.push(Stmt {
                kind: StmtKind::Assign { target, value },
                span,
            });
            if !self.eat(Sym::Comma) {
                break;
            }
        }
        let close = self.expect(Sym::RParen, "to close the parameters")?;
        if self.at(Sym::Minus) && self.peek_n(1).sym == Sym::Gt {
            self.bump();
            self.bump();
            self.expr()?;
        }
        let mut body = self.suite(kw.span.to(close.span))?;
        params.append(&mut body);
        let func = Name {
            text: Ident::from("def"),
            span: kw.span,
        };
        let fn_name = Expr::new(
            ExprKind::Name(Ident::from(self.text_of(name_tok))),
            name_tok.span,
        );
        let item = Expr::new(
            ExprKind::Call {
                func,
                args: vec![Arg {
                    name: None,
                    value: fn_name,
                }],
            },
            kw.span.to(close.span),
        );
        let span = span_to_body(kw.span, &params);
        Ok(Stmt {
            kind: StmtKind::With { item, body: params },
            span,
        })
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        let kw = self.bump();
        let var_tok = self.peek_tok();
        if var_tok.kind != TokenKind::Ident {
            self.report_found(var_tok, |found| {
                format!("expected a loop variable after `for`, found {found}")
            });
            return Err(());
        }
        self.bump();
        let var = Name {
            text: Ident::from(self.text_of(var_tok)),
            span: var_tok.span,
        };
        self.expect(Sym::In, "after the loop variable")?;
        let range_tok = self.peek_tok();
        if self.tvmscript {
            // `T.serial(0, 16, annotations={...})`, `range(16)`: `tvmscript::read` tells them apart.
            let over = self.expr()?;
            let body = self.suite(kw.span.to(over.span))?;
            let span = span_to_body(kw.span, &body);
            return Ok(Stmt {
                kind: StmtKind::For {
                    var,
                    range: vec![over],
                    body,
                },
                span,
            });
        }
        if self.text_of(range_tok) != "range" {
            self.error_at(
                range_tok,
                "loops run over `range(...)`".into(),
                Some("write `for i in range(16):` or `for i in range(lo, hi):`"),
            );
            return Err(());
        }
        self.bump();
        self.expect(Sym::LParen, "after `range`")?;
        let range = self.comma_list(Sym::RParen, Self::expr)?;
        let close = self.expect(Sym::RParen, "to close `range(`")?;
        if range.is_empty() || range.len() > 2 {
            self.report(|_| {
                Diagnostic::error(
                    range_tok.span.to(close.span),
                    "`range` takes one or two arguments",
                )
                .with_hint("range(extent) or range(start, stop)")
            });
        }
        let body = self.suite(kw.span.to(close.span))?;
        let span = span_to_body(kw.span, &body);
        Ok(Stmt {
            kind: StmtKind::For { var, range, body },
            span,
        })
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.depth += 1;
        let r = if self.depth > crate::limits::MAX_NESTING * 4 {
            let t = self.peek_tok();
            self.error_at(
                t,
                "this expression is nested too deeply".into(),
                Some("simplify it"),
            );
            Err(())
        } else if self.at_lone_operand() {
            self.simple_operand()
        } else {
            self.if_else()
        };
        self.depth -= 1;
        r
    }

    #[inline(always)]
    fn if_else(&mut self) -> PResult<Expr> {
        let then = if matches!(self.peek_sym(), Sym::Not | Sym::Minus | Sym::Plus) {
            self.binary(Prec::Or)?
        } else {
            // Without a prefix the first operand is a postfix expression; parsing it here
            // saves a call level for every call, subscript and list.
            let operand = self.postfix()?;
            self.operators_after(operand, Prec::Or)?
        };
        if self.eat(Sym::If) {
            let cond = self.binary(Prec::Or)?;
            self.expect(Sym::Else, "in a conditional expression")?;
            let otherwise = self.expr()?;
            let span = then.span.to(otherwise.span);
            return Ok(Expr::new(
                ExprKind::IfElse {
                    cond: Box::new(cond),
                    then: Box::new(then),
                    otherwise: Box::new(otherwise),
                },
                span,
            ));
        }
        Ok(then)
    }

    /// Binary operators by precedence climbing: one loop for every level from `or` to `*`.
    /// `not` is a prefix between `and` and the comparisons; comparisons do not chain.
    fn binary(&mut self, min: Prec) -> PResult<Expr> {
        if self.at_lone_operand() {
            return self.simple_operand();
        }
        let lhs = if min <= Prec::Not && self.at(Sym::Not) {
            self.not_expr()?
        } else {
            self.unary()?
        };
        self.operators_after(lhs, min)
    }

    /// `lhs` and the operators at least as strong as `min` that follow it. Most operands stand
    /// alone (`B[0]`, a call): they skip the operator loop.
    #[inline(always)]
    fn operators_after(&mut self, lhs: Expr, min: Prec) -> PResult<Expr> {
        if infix(self.peek_sym()).is_some_and(|(prec, _)| prec >= min) {
            self.binary_operators(lhs, min)
        } else {
            Ok(lhs)
        }
    }

    /// The operators (at least as strong as `min`) that follow `lhs`, and their operands.
    fn binary_operators(&mut self, mut lhs: Expr, min: Prec) -> PResult<Expr> {
        loop {
            let t = self.peek_tok();
            let Some((prec, op)) = infix(t.sym) else {
                return Ok(lhs);
            };
            if prec < min {
                return Ok(lhs);
            }
            self.bump();
            let rhs = match prec.next() {
                Some(next) => self.binary(next)?,
                None => self.unary()?,
            };
            let span = lhs.span.to(rhs.span);
            let (l, r) = (Box::new(lhs), Box::new(rhs));
            lhs = Expr::new(
                match op {
                    Infix::Bool(op) => ExprKind::Bool(op, l, r),
                    Infix::Compare(op) => ExprKind::Compare(op, l, r),
                    Infix::Arith(op) => ExprKind::Binary(op, l, r),
                },
                span,
            );
            if prec == Prec::Compare {
                let next = self.peek_tok();
                if matches!(infix(next.sym), Some((Prec::Compare, _))) {
                    self.error_at(
                        next,
                        "chained comparisons are not supported".into(),
                        Some("join two comparisons with `and`"),
                    );
                    return Err(());
                }
            }
        }
    }

    fn not_expr(&mut self) -> PResult<Expr> {
        self.prefixed(|p| p.binary(Prec::Not), ExprKind::Not)
    }

    /// A prefix operator (the current token) applied to what `operand` parses, nesting-limited
    /// like every recursive level.
    fn prefixed(
        &mut self,
        operand: impl FnOnce(&mut Self) -> PResult<Expr>,
        kind: fn(Box<Expr>) -> ExprKind,
    ) -> PResult<Expr> {
        let t = self.bump();
        self.depth += 1;
        let inner = if self.depth > crate::limits::MAX_NESTING * 4 {
            self.error_at(t, "this expression is nested too deeply".into(), None);
            Err(())
        } else {
            operand(self)
        };
        self.depth -= 1;
        let inner = inner?;
        let span = t.span.to(inner.span);
        Ok(Expr::new(kind(Box::new(inner)), span))
    }

    fn unary(&mut self) -> PResult<Expr> {
        // A unary plus changes nothing; a loop, not recursion, so a long run of them cannot
        // exhaust the stack.
        while self.eat(Sym::Plus) {}
        if self.at(Sym::Minus) {
            self.negation()
        } else {
            self.postfix()
        }
    }

    fn negation(&mut self) -> PResult<Expr> {
        self.prefixed(Self::unary, ExprKind::Neg)
    }

    /// Items separated by commas (a trailing comma allowed) up to `close`, which is left for the
    /// caller. The vector is allocated once, at its size when there is one item.
    fn comma_list<T>(
        &mut self,
        close: Sym,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        if self.at(close) {
            return Ok(Vec::new());
        }
        let first = item(self)?;
        if !self.eat(Sym::Comma) {
            return Ok(vec![first]);
        }
        // Calls, subscripts and lists of the loop language rarely have more than four items.
        let mut items = Vec::with_capacity(4);
        items.push(first);
        while !self.at(close) {
            items.push(item(self)?);
            if !self.eat(Sym::Comma) {
                break;
            }
        }
        Ok(items)
    }

    /// A call argument, `value` or `name=value`.
    fn arg(&mut self) -> PResult<Arg> {
        let name = if self.peek_tok().kind == TokenKind::Ident && self.peek_n(1).sym == Sym::Assign
        {
            let k = self.bump();
            self.bump();
            Some(Name {
                text: Ident::from(self.text_of(k)),
                span: k.span,
            })
        } else {
            None
        };
        let value = self.expr()?;
        Ok(Arg { name, value })
    }

    /// A name starting at `first` (already consumed): dotted names such as `sch.annotate` and
    /// `T.float32` are one callee name.
    fn dotted_name(&mut self, first: Token) -> Name {
        let after_first = self.pos;
        let mut span = first.span;
        let mut touching = true;
        while self.at(Sym::Dot) && self.peek_n(1).kind == TokenKind::Ident {
            let dot = self.bump();
            let part = self.bump();
            touching &= dot.span.start == span.end && part.span.start == dot.span.end;
            span = span.to(part.span);
        }
        let text = if touching {
            // The usual case: the name is one slice of the text, copied once.
            Ident::from(self.text_of_span(span))
        } else {
            // `sch . annotate`: the parts without what lies between them.
            let mut text = Ident::from(self.text_of(first));
            let dots_and_parts = self.tokens.get(after_first..self.pos).unwrap_or_default();
            for part in dots_and_parts.iter().skip(1).step_by(2) {
                text.push('.');
                text.push_str(self.text_of(*part));
            }
            text
        };
        Name { text, span }
    }

    /// Whether the next token is a literal or a plain name that ends its expression, as most
    /// operands do (`i`, `0`, the `B` of `B = ...`, a string argument). The one-token check
    /// spares them the operator levels.
    #[inline(always)]
    fn at_lone_operand(&self) -> bool {
        let next = self.peek_n(1);
        matches!(
            self.peek_tok().kind,
            TokenKind::Int | TokenKind::Float | TokenKind::Str | TokenKind::Ident
        ) && (matches!(
            next.kind,
            TokenKind::Newline | TokenKind::Dedent | TokenKind::Eof
        ) || matches!(
            next.sym,
            Sym::Comma | Sym::RParen | Sym::RBracket | Sym::Colon | Sym::Assign
        ))
    }

    /// The current token, a literal or a name, as an expression. For a name the caller has
    /// checked that no dot, call or subscript follows.
    #[inline(always)]
    fn simple_operand(&mut self) -> PResult<Expr> {
        let t = self.bump();
        let text = self.text_of(t);
        let kind = match t.kind {
            TokenKind::Int => match int_value(text) {
                Some(v) => ExprKind::Int(v),
                None => {
                    self.error_at(t, "this integer does not fit in 64 bits".into(), None);
                    return Err(());
                }
            },
            TokenKind::Float => ExprKind::Float(text.parse::<f64>().unwrap_or(f64::NAN)),
            TokenKind::Str => ExprKind::Str(Ident::from(
                text.get(1..text.len().saturating_sub(1).max(1))
                    .unwrap_or(""),
            )),
            _ => ExprKind::Name(Ident::from(text)),
        };
        Ok(Expr::new(kind, t.span))
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let t = self.peek_tok();
        match t.kind {
            TokenKind::Int | TokenKind::Float | TokenKind::Str => self.simple_operand(),
            TokenKind::Ident => {
                self.bump();
                let name = self.dotted_name(t);
                if self.at(Sym::LParen) {
                    self.bump();
                    let args = self.comma_list(Sym::RParen, Self::arg)?;
                    let close = self.expect(Sym::RParen, "to close the call")?;
                    let span = name.span.to(close.span);
                    return Ok(Expr::new(ExprKind::Call { func: name, args }, span));
                }
                if self.at(Sym::LBracket) {
                    self.bump();
                    let indices = self.comma_list(Sym::RBracket, Self::expr)?;
                    let close = self.expect(Sym::RBracket, "to close the subscript")?;
                    if indices.is_empty() {
                        self.error_at(
                            close,
                            format!("`{}[]` needs at least one index", name.text),
                            None,
                        );
                    }
                    let span = name.span.to(close.span);
                    return Ok(Expr::new(
                        ExprKind::Subscript {
                            base: name,
                            indices,
                        },
                        span,
                    ));
                }
                Ok(Expr::new(ExprKind::Name(name.text), name.span))
            }
            TokenKind::Punct if t.sym == Sym::LParen => {
                self.bump();
                let mut inner = self.expr()?;
                if self.tvmscript && self.eat(Sym::Comma) {
                    // A tuple, `(16,)` or `(16, 16)`: a list to the reader.
                    let mut items = vec![inner];
                    items.append(&mut self.comma_list(Sym::RParen, Self::expr)?);
                    let close = self.expect(Sym::RParen, "to close the tuple")?;
                    return Ok(Expr::new(ExprKind::List(items), t.span.to(close.span)));
                }
                let close = self.expect(Sym::RParen, "to close the parenthesis")?;
                inner.span = t.span.to(close.span);
                Ok(inner)
            }
            TokenKind::Punct if t.sym == Sym::LBrace && self.tvmscript => {
                self.bump();
                let entries = self.comma_list(Sym::RBrace, |p| {
                    let key = p.expr()?;
                    p.expect(Sym::Colon, "between a key and its value")?;
                    let value = p.expr()?;
                    let span = key.span.to(value.span);
                    Ok(Arg {
                        name: None,
                        value: Expr::new(ExprKind::List(vec![key, value]), span),
                    })
                })?;
                let close = self.expect(Sym::RBrace, "to close the dictionary")?;
                let func = Name {
                    text: Ident::from("dict"),
                    span: t.span,
                };
                Ok(Expr::new(
                    ExprKind::Call {
                        func,
                        args: entries,
                    },
                    t.span.to(close.span),
                ))
            }
            TokenKind::Punct if t.sym == Sym::LBracket => {
                self.bump();
                let items = self.comma_list(Sym::RBracket, Self::expr)?;
                let close = self.expect(Sym::RBracket, "to close the list")?;
                Ok(Expr::new(ExprKind::List(items), t.span.to(close.span)))
            }
            _ => {
                self.report_found(t, |found| format!("expected an expression, found {found}"));
                Err(())
            }
        }
    }
}

/// Binding strength of the binary levels, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Or,
    And,
    Not,
    Compare,
    Sum,
    Product,
}

impl Prec {
    /// The level of a right operand, one stronger (every binary operator here is
    /// left-associative); `None` above products, where operands are unary expressions.
    fn next(self) -> Option<Prec> {
        match self {
            Prec::Or => Some(Prec::And),
            Prec::And => Some(Prec::Not),
            Prec::Not | Prec::Compare => Some(Prec::Sum),
            Prec::Sum => Some(Prec::Product),
            Prec::Product => None,
        }
    }
}

enum Infix {
    Bool(BoolOp),
    Compare(CmpOp),
    Arith(BinOp),
}

fn infix(sym: Sym) -> Option<(Prec, Infix)> {
    Some(match sym {
        Sym::Or => (Prec::Or, Infix::Bool(BoolOp::Or)),
        Sym::And => (Prec::And, Infix::Bool(BoolOp::And)),
        Sym::Lt => (Prec::Compare, Infix::Compare(CmpOp::Lt)),
        Sym::Le => (Prec::Compare, Infix::Compare(CmpOp::Le)),
        Sym::Gt => (Prec::Compare, Infix::Compare(CmpOp::Gt)),
        Sym::Ge => (Prec::Compare, Infix::Compare(CmpOp::Ge)),
        Sym::Eq => (Prec::Compare, Infix::Compare(CmpOp::Eq)),
        Sym::Ne => (Prec::Compare, Infix::Compare(CmpOp::Ne)),
        Sym::Plus => (Prec::Sum, Infix::Arith(BinOp::Add)),
        Sym::Minus => (Prec::Sum, Infix::Arith(BinOp::Sub)),
        Sym::Star => (Prec::Product, Infix::Arith(BinOp::Mul)),
        Sym::Slash => (Prec::Product, Infix::Arith(BinOp::Div)),
        Sym::SlashSlash => (Prec::Product, Infix::Arith(BinOp::FloorDiv)),
        Sym::Percent => (Prec::Product, Infix::Arith(BinOp::Mod)),
        _ => return None,
    })
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
