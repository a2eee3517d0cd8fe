//! Expressions: precedence climbed in one loop over the binary levels, unary and conditional
//! expressions, calls, subscripts and attribute names.

use super::{int_value, PResult, Parser};
use crate::lexer::{Sym, Token, TokenKind};
use crate::syntax::*;

impl<'a> Parser<'a> {
    pub(super) fn expr(&mut self) -> PResult<Expr> {
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
    pub(super) fn if_else(&mut self) -> PResult<Expr> {
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
    pub(super) fn binary(&mut self, min: Prec) -> PResult<Expr> {
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
    pub(super) fn operators_after(&mut self, lhs: Expr, min: Prec) -> PResult<Expr> {
        if infix(self.peek_sym()).is_some_and(|(prec, _)| prec >= min) {
            self.binary_operators(lhs, min)
        } else {
            Ok(lhs)
        }
    }

    /// The operators (at least as strong as `min`) that follow `lhs`, and their operands.
    pub(super) fn binary_operators(&mut self, mut lhs: Expr, min: Prec) -> PResult<Expr> {
        loop {
            let t = self.peek_tok();
            let Some((prec, op)) = infix(t.sym) else {
                return Ok(lhs);
            };
            if prec < min {
                return Ok(lhs);
            }
            self.operators += 1;
            if self.operators > crate::limits::MAX_OPERATORS {
                self.error_at(
                    t,
                    format!(
                        "this statement has more than {} operators",
                        crate::limits::MAX_OPERATORS
                    ),
                    Some("split it over several statements"),
                );
                return Err(());
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

    pub(super) fn not_expr(&mut self) -> PResult<Expr> {
        self.prefixed(|p| p.binary(Prec::Not), ExprKind::Not)
    }

    /// A prefix operator (the current token) applied to what `operand` parses, nesting-limited
    /// like every recursive level.
    pub(super) fn prefixed(
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

    pub(super) fn unary(&mut self) -> PResult<Expr> {
        // A unary plus changes nothing; a loop, not recursion, so a long run of them cannot
        // exhaust the stack.
        while self.eat(Sym::Plus) {}
        if self.at(Sym::Minus) {
            self.negation()
        } else {
            self.postfix()
        }
    }

    pub(super) fn negation(&mut self) -> PResult<Expr> {
        self.prefixed(Self::unary, ExprKind::Neg)
    }

    /// Items separated by commas (a trailing comma allowed) up to `close`, which is left for the
    /// caller. The vector is allocated once, at its size when there is one item.
    pub(super) fn comma_list<T>(
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
    pub(super) fn arg(&mut self) -> PResult<Arg> {
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
    pub(super) fn dotted_name(&mut self, first: Token) -> Name {
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
    pub(super) fn at_lone_operand(&self) -> bool {
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
    pub(super) fn simple_operand(&mut self) -> PResult<Expr> {
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

    pub(super) fn postfix(&mut self) -> PResult<Expr> {
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
                if self.eat(Sym::Comma) {
                    // A tuple, `(16,)` or `(16, 16)`: a list to the reader, as Python and TVM
                    // take either for an annotation's value or a shape.
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
pub(super) enum Prec {
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
    pub(super) fn next(self) -> Option<Prec> {
        match self {
            Prec::Or => Some(Prec::And),
            Prec::And => Some(Prec::Not),
            Prec::Not | Prec::Compare => Some(Prec::Sum),
            Prec::Sum => Some(Prec::Product),
            Prec::Product => None,
        }
    }
}

pub(super) enum Infix {
    Bool(BoolOp),
    Compare(CmpOp),
    Arith(BinOp),
}

pub(super) fn infix(sym: Sym) -> Option<(Prec, Infix)> {
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
