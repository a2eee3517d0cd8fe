//! Statements: blocks by indentation with line-level recovery, simple statements, `def` (and
//! TVMScript's decorated functions) and `for` with its annotations.

use super::{span_to_body, PResult, Parser};
use crate::diagnostic::{Diagnostic, Span};
use crate::lexer::{Sym, Token, TokenKind};
use crate::syntax::*;

impl<'a> Parser<'a> {
    /// Statements until the end of the file.
    pub(super) fn block_until_eof(&mut self) -> Vec<Stmt> {
        self.statements(false)
    }

    /// Statements until the matching Dedent (consumed).
    pub(super) fn block_body(&mut self) -> Vec<Stmt> {
        self.statements(true)
    }

    /// Statements until the end of the file or, `in_block`, the end of the block; a line indented
    /// deeper than its block is reported and read as the block's.
    fn statements(&mut self, in_block: bool) -> Vec<Stmt> {
        // Loop bodies are short (allocating once beats growing from one); a file holds buffers, a
        // loop nest and its annotations.
        let mut stmts = Vec::with_capacity(if in_block { 4 } else { 16 });
        loop {
            let t = self.peek_tok();
            match t.kind {
                TokenKind::Eof => return stmts,
                TokenKind::Dedent => {
                    self.bump();
                    if in_block {
                        return stmts;
                    }
                }
                TokenKind::Newline => {
                    self.bump();
                }
                TokenKind::Indent => {
                    self.bump();
                    let hint = if in_block {
                        "align it with the line above"
                    } else {
                        "remove the leading spaces"
                    };
                    self.error_at(t, "unexpected indentation".into(), Some(hint));
                    let mut inner = self.block_body();
                    stmts.append(&mut inner);
                }
                _ => stmts.push(self.statement()),
            }
        }
    }

    pub(super) fn statement(&mut self) -> Stmt {
        let start = self.peek_tok().span;
        self.operators = 0;
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
    pub(super) fn end_of_line(&mut self) -> PResult<()> {
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

    pub(super) fn suite(&mut self, header: Span) -> PResult<Vec<Stmt>> {
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
    pub(super) fn statement_inner(&mut self) -> PResult<Stmt> {
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
                    let mut item = self.expr()?;
                    if self.tvmscript && self.text_of(self.peek_tok()) == "as" {
                        item = self.with_as(item)?;
                    }
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
            // `X[i] += v` is `X[i] = X[i] + v`, as in Python: accumulations are written so.
            let t = self.bump();
            let op = match self.text_of(t) {
                "+=" => BinOp::Add,
                "-=" => BinOp::Sub,
                "*=" => BinOp::Mul,
                "/=" => BinOp::Div,
                _ => BinOp::Mod,
            };
            let value = self.expr()?;
            let span = lhs.span.to(value.span);
            self.end_of_line()?;
            let value = Expr::new(
                ExprKind::Binary(op, Box::new(lhs.clone()), Box::new(value)),
                span,
            );
            return Ok(Stmt {
                kind: StmtKind::Assign { target: lhs, value },
                span,
            });
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
    pub(super) fn tvmscript_statement(&mut self, first: Token) -> PResult<Option<Stmt>> {
        let word = self.text_of(first);
        let ignored_call = first.kind == TokenKind::Ident && {
            let mut k = 0;
            while self.peek_n(k + 1).sym == Sym::Dot && self.peek_n(k + 2).kind == TokenKind::Ident
            {
                k += 2;
            }
            k > 0
                && matches!(self.text_of(self.peek_n(k)), "reads" | "writes")
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
        if first.kind == TokenKind::Ident && word == "return" {
            // `return main` after a kernel (TileLang's factory functions): a call of `return`
            // the readers give meaning to or refuse, located.
            self.bump();
            let mut args = Vec::new();
            if !matches!(self.peek_tok().kind, TokenKind::Newline | TokenKind::Eof) {
                let value = self.expr()?;
                args.push(Arg { name: None, value });
            }
            self.end_of_line()?;
            let span = args
                .last()
                .map_or(first.span, |a| first.span.to(a.value.span));
            let func = Name {
                text: Ident::from("return"),
                span: first.span,
            };
            return Ok(Some(Stmt {
                kind: StmtKind::Expr(Expr::new(ExprKind::Call { func, args }, span)),
                span,
            }));
        }
        Ok(None)
    }

    /// `with item as target:` (TileLang's `with T.Kernel(...) as (bx, by):`) as the item
    /// `as(item, target)`, which `tilelang::read` takes apart and TVMScript's reader refuses.
    #[cold]
    fn with_as(&mut self, item: Expr) -> PResult<Expr> {
        let as_tok = self.bump();
        let target = self.expr()?;
        let span = item.span.to(target.span);
        let func = Name {
            text: Ident::from("as"),
            span: as_tok.span,
        };
        let args = vec![
            Arg {
                name: None,
                value: item,
            },
            Arg {
                name: None,
                value: target,
            },
        ];
        Ok(Expr::new(ExprKind::Call { func, args }, span))
    }

    /// `def name(param: annotation, ...) -> result:` and its body, as `with def(name):` whose
    /// body begins with `param = annotation` for each parameter.
    pub(super) fn def_stmt(&mut self) -> PResult<Stmt> {
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
            let mut value = if self.eat(Sym::Colon) {
                self.expr()?
            } else {
                Expr::new(ExprKind::Name(Ident::from("handle")), t.span)
            };
            // `block_M=128`: a default value (TileLang's factory functions) stands for the
            // parameter; a PrimFunc's parameters have none, and its reader refuses the binding.
            if self.eat(Sym::Assign) {
                value = self.expr()?;
            }
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

    pub(super) fn for_stmt(&mut self) -> PResult<Stmt> {
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
            // Read what it loops over, so that the error can name it and the body is still read.
            let over = self.expr()?;
            let (message, hint) = not_a_range(&var.text, &over, |s| self.text_of_span(s));
            self.report(|_| Diagnostic::error(over.span, message).with_hint(hint));
            let body = self.suite(kw.span.to(over.span))?;
            let span = span_to_body(kw.span, &body);
            return Ok(Stmt {
                kind: StmtKind::For {
                    var,
                    range: Vec::new(),
                    body,
                },
                span,
            });
        }
        self.bump();
        self.expect(Sym::LParen, "after `range`")?;
        let range = self.comma_list(Sym::RParen, Self::expr)?;
        let close = self.expect(Sym::RParen, "to close `range(`")?;
        if range.is_empty() || range.len() > 2 {
            let hint = match range.as_slice() {
                [start, stop, step] => stepped_range_hint(&var.text, start, stop, step),
                _ => "range(extent) or range(start, stop)".to_string(),
            };
            self.report(|_| {
                Diagnostic::error(
                    range_tok.span.to(close.span),
                    if range.len() == 3 {
                        "Stagecraft's loops step by 1: `range` takes no step"
                    } else {
                        "`range` takes one or two arguments"
                    },
                )
                .with_hint(hint)
            });
        }
        let body = self.suite(kw.span.to(close.span))?;
        let span = span_to_body(kw.span, &body);
        Ok(Stmt {
            kind: StmtKind::For { var, range, body },
            span,
        })
    }
}

/// The error for a loop over something other than `range(...)`: TVMScript's loops (`T.serial`,
/// `T.grid`, …) are named, with the `range` that writes the same loop when there is one.
fn not_a_range<'t>(var: &str, over: &Expr, text_of: impl Fn(Span) -> &'t str) -> (String, String) {
    let general = format!("write `for {var} in range(16):` or `for {var} in range(lo, hi):`");
    let ExprKind::Call { func, args } = &over.kind else {
        return ("loops run over `range(...)`".to_string(), general);
    };
    let Some(kind) = func.text.strip_prefix("T.") else {
        return (
            format!("loops run over `range(...)`, not `{}(...)`", func.text),
            general,
        );
    };
    let message = format!(
        "`{}` is TVMScript: in the loop language, loops run over `range(...)`",
        func.text
    );
    let positional: Vec<&str> = args
        .iter()
        .filter(|a| a.name.is_none())
        .map(|a| text_of(a.value.span))
        .collect();
    let paste = "or paste the whole `@T.prim_func`, which is read as TVMScript";
    let loop_kinds = ["serial", "unroll", "parallel", "vectorized"];
    let hint = if loop_kinds.contains(&kind) && (1..=2).contains(&positional.len()) {
        format!(
            "write `for {var} in range({}):`, {paste}",
            positional.join(", ")
        )
    } else {
        format!("{general}, {paste}")
    };
    (message, hint)
}

/// The hint for `range(start, stop, step)`: the loop over the iteration count that runs the same
/// iterations, and how to index with it, written out when the three are integers.
fn stepped_range_hint(var: &str, start: &Expr, stop: &Expr, step: &Expr) -> String {
    match (&start.kind, &stop.kind, &step.kind) {
        (ExprKind::Int(start), ExprKind::Int(stop), ExprKind::Int(step)) if *step > 0 => {
            let count = stop.saturating_sub(*start).max(0).saturating_add(step - 1) / step;
            let at = match *start {
                0 => format!("{step} * {var}"),
                s => format!("{s} + {step} * {var}"),
            };
            format!("count the iterations instead: `for {var} in range({count}):`, and write `{at}` where the loop used `{var}`")
        }
        _ => format!(
            "count the iterations instead: `for {var} in range(N):`, and write `start + step * {var}` where the loop used `{var}`"
        ),
    }
}
