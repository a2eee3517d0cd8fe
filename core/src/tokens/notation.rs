//! A token as written, `NAME[INDEX]`, and its index expression.

use crate::diagnostic::Span;

/// A token written in the text: its queue's name and index expression.
#[derive(Clone, Debug)]
pub(super) struct TokenRef {
    pub(super) name: String,
    pub(super) index: TokExpr,
    pub(super) span: Span,
}

/// Index expressions of tokens: integers, loop variables, `+ - * // %`, parentheses, and
/// `A if X < B else C` (a comparison of two sums: the pieces `to_tokens` writes where a site's
/// tokens follow one line over some steps and another over the rest).
#[derive(Clone, Debug)]
pub(super) enum TokExpr {
    Num(i64),
    Name(String),
    Neg(Box<TokExpr>),
    Bin(char, Box<TokExpr>, Box<TokExpr>),
    /// `then if lhs OP rhs else otherwise`, `OP` one of `< <= > >= == !=`.
    Select(Box<Select>),
}

#[derive(Clone, Debug)]
pub(super) struct Select {
    pub(super) lhs: TokExpr,
    pub(super) op: &'static str,
    pub(super) rhs: TokExpr,
    pub(super) then: TokExpr,
    pub(super) otherwise: TokExpr,
}

impl TokExpr {
    pub(super) fn eval(&self, vars: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        match self {
            TokExpr::Num(n) => Some(*n),
            TokExpr::Name(n) => vars(n),
            TokExpr::Neg(x) => x.eval(vars)?.checked_neg(),
            TokExpr::Bin(op, a, b) => {
                let (a, b) = (a.eval(vars)?, b.eval(vars)?);
                match op {
                    '+' => a.checked_add(b),
                    '-' => a.checked_sub(b),
                    '*' => a.checked_mul(b),
                    '/' => crate::ir::floor_div(a, b),
                    _ => crate::ir::floor_mod(a, b),
                }
            }
            TokExpr::Select(s) => {
                let (a, b) = (s.lhs.eval(vars)?, s.rhs.eval(vars)?);
                let holds = match s.op {
                    "<" => a < b,
                    "<=" => a <= b,
                    ">" => a > b,
                    ">=" => a >= b,
                    "==" => a == b,
                    _ => a != b,
                };
                if holds {
                    s.then.eval(vars)
                } else {
                    s.otherwise.eval(vars)
                }
            }
        }
    }
}

/// A tiny recursive-descent parser for `TokExpr`.
pub(super) struct ExprParser<'a> {
    pub(super) s: &'a [u8],
    pub(super) pos: usize,
}

impl ExprParser<'_> {
    pub(super) fn skip(&mut self) {
        while self.s.get(self.pos) == Some(&b' ') {
            self.pos += 1;
        }
    }

    pub(super) fn eat(&mut self, text: &str) -> bool {
        self.skip();
        if self.s.get(self.pos..self.pos + text.len()) == Some(text.as_bytes()) {
            self.pos += text.len();
            true
        } else {
            false
        }
    }

    /// A sum, or `sum if sum OP sum else expr`.
    pub(super) fn expr(&mut self) -> Option<TokExpr> {
        let then = self.sum()?;
        if !self.eat_word("if") {
            return Some(then);
        }
        let lhs = self.sum()?;
        // Two-character operators first.
        let op = ["<=", ">=", "==", "!=", "<", ">"]
            .into_iter()
            .find(|op| self.eat(op))?;
        let rhs = self.sum()?;
        if !self.eat_word("else") {
            return None;
        }
        let otherwise = self.expr()?;
        Some(TokExpr::Select(Box::new(Select {
            lhs,
            op,
            rhs,
            then,
            otherwise,
        })))
    }

    /// `word` as a whole word (not the start of a longer name).
    fn eat_word(&mut self, word: &str) -> bool {
        let at = self.pos;
        if !self.eat(word) {
            return false;
        }
        let continues = self
            .s
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
        if continues {
            self.pos = at;
        }
        !continues
    }

    pub(super) fn sum(&mut self) -> Option<TokExpr> {
        let mut e = self.product()?;
        loop {
            if self.eat("+") {
                e = TokExpr::Bin('+', Box::new(e), Box::new(self.product()?));
            } else if self.eat("-") {
                e = TokExpr::Bin('-', Box::new(e), Box::new(self.product()?));
            } else {
                return Some(e);
            }
        }
    }

    pub(super) fn product(&mut self) -> Option<TokExpr> {
        let mut e = self.unary()?;
        loop {
            if self.eat("//") {
                e = TokExpr::Bin('/', Box::new(e), Box::new(self.unary()?));
            } else if self.eat("*") {
                e = TokExpr::Bin('*', Box::new(e), Box::new(self.unary()?));
            } else if self.eat("%") {
                e = TokExpr::Bin('%', Box::new(e), Box::new(self.unary()?));
            } else {
                return Some(e);
            }
        }
    }

    pub(super) fn unary(&mut self) -> Option<TokExpr> {
        if self.eat("-") {
            return Some(TokExpr::Neg(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let e = self.expr()?;
            return self.eat(")").then_some(e);
        }
        self.skip();
        let start = self.pos;
        while self
            .s
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.pos += 1;
        }
        let word = std::str::from_utf8(self.s.get(start..self.pos)?).ok()?;
        if word.is_empty() {
            return None;
        }
        if word.bytes().all(|c| c.is_ascii_digit()) {
            word.parse().ok().map(TokExpr::Num)
        } else if word.bytes().next().is_some_and(|c| c.is_ascii_digit()) {
            None
        } else {
            Some(TokExpr::Name(word.to_string()))
        }
    }
}

/// `name[expr]` at byte `offset` of the source, whole.
pub(super) fn parse_token(text: &str, offset: usize) -> Option<TokenRef> {
    let t = text.trim();
    let lead = text.len() - text.trim_start().len();
    let (name, rest) = t.split_once('[')?;
    let inner = rest.strip_suffix(']')?;
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    let mut p = ExprParser {
        s: inner.as_bytes(),
        pos: 0,
    };
    let index = p.expr()?;
    p.skip();
    if p.pos != inner.len() {
        return None;
    }
    let start = offset + lead;
    Some(TokenRef {
        name: name.to_string(),
        index,
        span: Span::new(start, start + t.len()),
    })
}

/// Splits `a, b(c, d), e` at top-level commas, with each part's byte offset.
pub(super) fn split_args(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push((start, &s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push((start, &s[start..]));
    }
    out
}
