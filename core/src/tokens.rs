//! Tokens: the pipelined program's synchronization written XLA-style (seed 004) instead of with
//! counts (RFC 0077), and the translation between the two (the RFC review, seed 001).
//!
//! Every commit group is a token: the group a `with async_commit_queue(q):` commits is token
//! `qQ[n]`, the `n`-th group committed to queue `q` (from 0), and the line reads
//! `with async_start(q) as qQ[n]:`. Every wait names the tokens it completes that no earlier wait
//! completed: `with async_done(qQ[a], qQ[b]):`. The two forms translate exactly:
//!
//! ```text
//! count = tokens of the queue committed after the newest one awaited
//!       = committed − 1 − newest
//! ```
//!
//! In a loop, `n` and the awaited tokens are expressions of the loop variable (`q0[2 * i + 1]`),
//! found by running the program's structure (as `tvm::trace` does) and fitting each site's values
//! with one linear expression. A wait that completes no new token, or whose tokens cannot be
//! written as one expression per position, keeps its count form; both forms may be mixed.
//!
//! Checking a program written in token form (`from_tokens`) translates it back to counts and
//! reports, located: a token awaited twice, a token never awaited, a token awaited before it
//! starts, an `async_start` whose name is not the group it commits, and an `async_done` whose
//! counts are not one expression of the loop variable.

use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{IExpr, IOp, Node, Program, VarId};
use crate::simplify::simplify;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The token form of a program, with the translation of each wait.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TokenForm {
    pub text: String,
    /// One per wait of the program, in text order.
    pub waits: Vec<WaitTranslation>,
}

/// How one wait reads in both forms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitTranslation {
    /// 1-based line in `TokenForm::text`.
    pub line: usize,
    pub queue: i64,
    /// The count form's count, as printed (`5`, `36 - 2 * i`).
    pub count: String,
    /// The tokens it completes, as printed (`q0[2 * i - 5]`); empty when it keeps the count form.
    pub tokens: Vec<String>,
    /// Why it keeps the count form, when it does.
    pub kept_count: Option<String>,
}

/// Values a site takes, with the loop variables around it at each instance.
#[derive(Default)]
struct Samples {
    envs: Vec<Vec<(VarId, i64)>>,
}

struct CommitSite {
    queue: i64,
    samples: Samples,
    seqs: Vec<i64>,
}

struct WaitSite {
    queue: i64,
    samples: Samples,
    /// Per instance: the tokens it completes that no earlier wait completed (`from..=to`).
    forced: Vec<(i64, i64)>,
}

/// Runs a program's structure and records every commit's sequence number and every wait's newly
/// completed tokens (Stagecraft's semantics: a commit numbers its group when its block exits;
/// `wait(q, n)` completes every group of `q` but the `n` newest).
struct Runner {
    env: Vec<i64>,
    loops: Vec<VarId>,
    committed: BTreeMap<i64, i64>,
    forced: BTreeMap<i64, i64>,
    commits: Vec<CommitSite>,
    waits: Vec<WaitSite>,
    commit_index: usize,
    wait_index: usize,
    steps: u64,
}

/// Instances beyond this are not run (the token view of a huge loop keeps its count form).
const MAX_STEPS: u64 = 2_000_000;

impl Runner {
    fn new(program: &Program, params: &BTreeMap<String, i64>) -> Runner {
        let mut r = Runner {
            env: program.env(params),
            loops: Vec::new(),
            committed: BTreeMap::new(),
            forced: BTreeMap::new(),
            commits: Vec::new(),
            waits: Vec::new(),
            commit_index: 0,
            wait_index: 0,
            steps: 0,
        };
        r.register(&program.body);
        r
    }

    /// Sites in pre-order (the printer's order of `with` lines).
    fn register(&mut self, nodes: &[Node]) {
        for n in nodes {
            match n {
                Node::Commit { queue, body, .. } => {
                    self.commits.push(CommitSite {
                        queue: *queue,
                        samples: Samples::default(),
                        seqs: Vec::new(),
                    });
                    self.register(body);
                }
                Node::Wait { queue, body, .. } => {
                    self.waits.push(WaitSite {
                        queue: *queue,
                        samples: Samples::default(),
                        forced: Vec::new(),
                    });
                    self.register(body);
                }
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::AsyncScope { body, .. }
                | Node::Section { body, .. } => self.register(body),
                Node::Assign(_) => {}
            }
        }
    }

    fn snapshot(&self) -> Vec<(VarId, i64)> {
        self.loops
            .iter()
            .map(|&v| (v, self.env.get(v as usize).copied().unwrap_or(0)))
            .collect()
    }

    /// Runs `nodes`; `false` when the step budget ran out.
    fn run(&mut self, nodes: &[Node]) -> bool {
        for n in nodes {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return false;
            }
            match n {
                Node::For {
                    var, lo, hi, body, ..
                } => {
                    let (lo, hi) = (lo.eval(&self.env), hi.eval(&self.env));
                    let (Some(lo), Some(hi)) = (lo, hi) else {
                        let (c, w) = count_sites(body);
                        self.commit_index += c;
                        self.wait_index += w;
                        continue;
                    };
                    // Sites inside are numbered once, whichever iteration runs them.
                    let (c0, w0) = (self.commit_index, self.wait_index);
                    let (c1, w1) = count_sites(body);
                    self.loops.push(*var);
                    for v in lo..hi {
                        if let Some(slot) = self.env.get_mut(*var as usize) {
                            *slot = v;
                        }
                        self.commit_index = c0;
                        self.wait_index = w0;
                        if !self.run(body) {
                            return false;
                        }
                    }
                    self.loops.pop();
                    self.commit_index = c0 + c1;
                    self.wait_index = w0 + w1;
                }
                Node::If { cond, body, .. } => {
                    if cond.eval(&self.env).unwrap_or(false) {
                        if !self.run(body) {
                            return false;
                        }
                    } else {
                        let (c, w) = count_sites(body);
                        self.commit_index += c;
                        self.wait_index += w;
                    }
                }
                Node::Commit { queue, body, .. } => {
                    let site = self.commit_index;
                    self.commit_index += 1;
                    let env = self.snapshot();
                    if !self.run(body) {
                        return false;
                    }
                    let seq = self.committed.entry(*queue).or_insert(0);
                    if let Some(s) = self.commits.get_mut(site) {
                        s.samples.envs.push(env);
                        s.seqs.push(*seq);
                    }
                    *seq += 1;
                }
                Node::Wait {
                    queue, count, body, ..
                } => {
                    let site = self.wait_index;
                    self.wait_index += 1;
                    let committed = self.committed.get(queue).copied().unwrap_or(0);
                    let n = count.eval(&self.env).unwrap_or(0).max(0);
                    let newest = (committed - 1 - n).min(committed - 1);
                    let done = self.forced.entry(*queue).or_insert(0);
                    let from = *done;
                    if newest >= *done {
                        *done = newest + 1;
                    }
                    let env = self.snapshot();
                    if let Some(s) = self.waits.get_mut(site) {
                        s.samples.envs.push(env);
                        s.forced.push((from, newest));
                    }
                    if !self.run(body) {
                        return false;
                    }
                }
                Node::AsyncScope { body, .. } | Node::Section { body, .. } => {
                    if !self.run(body) {
                        return false;
                    }
                }
                Node::Assign(_) => {}
            }
        }
        true
    }
}

/// Commit and wait nodes in `nodes`, at any depth.
fn count_sites(nodes: &[Node]) -> (usize, usize) {
    nodes.iter().fold((0, 0), |(c, w), n| {
        let (dc, dw) = match n {
            Node::Commit { body, .. } => {
                let (a, b) = count_sites(body);
                (a + 1, b)
            }
            Node::Wait { body, .. } => {
                let (a, b) = count_sites(body);
                (a, b + 1)
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => count_sites(body),
            Node::Assign(_) => (0, 0),
        };
        (c + dc, w + dw)
    })
}

/// One expression for `values` at the instances `envs`: a constant, `a · v + b` in one of the
/// enclosing loop variables, or, where the innermost variable only grows, up to four such pieces
/// (`1 if i < 14 else 0`, as the rolled form's epilogue counts read).
fn fit(envs: &[Vec<(VarId, i64)>], values: &[i64]) -> Option<IExpr> {
    let first = *values.first()?;
    if values.iter().all(|&v| v == first) {
        return Some(IExpr::Const(first));
    }
    let vars: Vec<VarId> = envs.first()?.iter().rev().map(|(v, _)| *v).collect();
    for &var in &vars {
        let xs: Option<Vec<i64>> = envs.iter().map(|e| value_of(e, var)).collect();
        if let Some((a, b)) = xs.and_then(|xs| linear(&xs, values)) {
            return Some(line(var, a, b));
        }
    }
    // Pieces over the innermost variable.
    let var = *vars.first()?;
    let xs: Vec<i64> = envs
        .iter()
        .map(|e| value_of(e, var))
        .collect::<Option<_>>()?;
    if xs.windows(2).any(|w| w.first() >= w.get(1)) {
        return None;
    }
    // Maximal runs, in order, each one line: (its first x, a, b).
    let mut pieces: Vec<(i64, i64, i64)> = Vec::new();
    let mut start = 0;
    while start < xs.len() {
        let mut end = start + 1;
        let mut best = (0, *values.get(start)?);
        while end < xs.len() {
            match linear(xs.get(start..=end)?, values.get(start..=end)?) {
                Some(ab) => {
                    best = ab;
                    end += 1;
                }
                None => break,
            }
        }
        pieces.push((*xs.get(start)?, best.0, best.1));
        if pieces.len() > 4 {
            return None;
        }
        start = end;
    }
    // `piece if v < next piece's first x else (the rest)`, from the last piece back.
    let (_, a, b) = *pieces.last()?;
    let mut e = line(var, a, b);
    for w in pieces.windows(2).rev() {
        let (Some(&(_, a, b)), Some(&(next, _, _))) = (w.first(), w.get(1)) else {
            continue;
        };
        e = IExpr::Select(Box::new((
            crate::ir::Cond::Cmp(crate::ir::CmpOp::Lt, IExpr::Var(var), IExpr::Const(next)),
            line(var, a, b),
            e,
        )));
    }
    Some(e)
}

fn value_of(env: &[(VarId, i64)], var: VarId) -> Option<i64> {
    env.iter().find(|(v, _)| *v == var).map(|p| p.1)
}

/// `(a, b)` with `values = a · xs + b` exactly, when there is one.
fn linear(xs: &[i64], values: &[i64]) -> Option<(i64, i64)> {
    let (x0, y0) = (*xs.first()?, *values.first()?);
    let Some((x1, y1)) = xs.iter().zip(values).find(|(&x, _)| x != x0) else {
        return values.iter().all(|&y| y == y0).then_some((0, y0));
    };
    let (dy, dx) = (y1 - y0, x1 - x0);
    if dx == 0 || dy % dx != 0 {
        return None;
    }
    let a = dy / dx;
    let b = y0 - a * x0;
    xs.iter()
        .zip(values)
        .all(|(&x, &y)| a.checked_mul(x).and_then(|ax| ax.checked_add(b)) == Some(y))
        .then_some((a, b))
}

fn line(var: VarId, a: i64, b: i64) -> IExpr {
    simplify(&IExpr::bin(
        IOp::Add,
        IExpr::bin(IOp::Mul, IExpr::Const(a), IExpr::Var(var)),
        IExpr::Const(b),
    ))
}

fn token_name(queue: i64) -> String {
    format!("q{queue}")
}

fn show(program: &Program, e: &IExpr) -> String {
    crate::printer::print_expr(&crate::tir::index_expr(program, e))
}

/// The token form of `program` (printed as `tir::print` prints it, with each commit and wait line
/// rewritten). `params` binds symbolic extents for the run that finds the tokens.
pub fn to_tokens(program: &Program, params: &BTreeMap<String, i64>) -> TokenForm {
    let printed = crate::tir::print(program);
    let mut runner = Runner::new(program, params);
    let complete = runner.run(&program.body);
    let mut commits = runner.commits.iter();
    let mut waits = runner.waits.iter();
    let mut out = String::with_capacity(printed.text.len() * 2);
    let mut translations = Vec::new();
    for (lineno, line) in printed.text.lines().enumerate() {
        let indent = &line[..line.len() - line.trim_start().len()];
        let body = line.trim_start();
        if body.starts_with("with async_commit_queue(") {
            let site = commits.next();
            let name = site.and_then(|s| {
                if !complete || s.seqs.is_empty() {
                    return None;
                }
                fit(&s.samples.envs, &s.seqs).map(|e| (s.queue, show(program, &e)))
            });
            match name {
                Some((q, e)) => out.push_str(&format!(
                    "{indent}with async_start({q}) as {}[{e}]:\n",
                    token_name(q)
                )),
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
            continue;
        }
        if let Some(rest) = body.strip_prefix("with async_wait_queue(") {
            let site = waits.next();
            let count = rest
                .trim_end_matches("):")
                .split_once(", ")
                .map_or(String::new(), |(_, c)| c.to_string());
            let queue = site.map_or(0, |s| s.queue);
            let tokens = site.ok_or("no such wait").and_then(|s| {
                if !complete {
                    return Err("the loop is too long to run for its tokens");
                }
                wait_tokens(program, s)
            });
            match tokens {
                Ok(tokens) => {
                    let newest = tokens.last().cloned().unwrap_or_default();
                    out.push_str(&format!(
                        "{indent}with async_done({}):  # wait({queue}, {count}): {count} = tokens of queue {queue} committed after {newest}\n",
                        tokens.join(", ")
                    ));
                    translations.push(WaitTranslation {
                        line: lineno + 1,
                        queue,
                        count,
                        tokens,
                        kept_count: None,
                    });
                }
                Err(why) => {
                    out.push_str(&format!("{line}  # count form kept: {why}\n"));
                    translations.push(WaitTranslation {
                        line: lineno + 1,
                        queue,
                        count,
                        tokens: Vec::new(),
                        kept_count: Some(why.to_string()),
                    });
                }
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    TokenForm {
        text: out,
        waits: translations,
    }
}

/// The tokens one wait site completes, each position one expression, or why they are not.
fn wait_tokens(program: &Program, s: &WaitSite) -> Result<Vec<String>, &'static str> {
    if s.forced.is_empty() {
        return Err("it never runs");
    }
    let sizes: Vec<i64> = s.forced.iter().map(|(a, b)| (b - a + 1).max(0)).collect();
    let k = sizes.first().copied().unwrap_or(0);
    if k == 0 && sizes.iter().all(|&n| n == 0) {
        return Err("it completes no group that an earlier wait has not");
    }
    if sizes.iter().any(|&n| n != k) {
        return Err("it completes a different number of groups at different steps");
    }
    if k > 8 {
        return Err("it completes more than 8 groups at once");
    }
    (0..k)
        .map(|j| {
            let values: Vec<i64> = s.forced.iter().map(|(a, _)| a + j).collect();
            fit(&s.samples.envs, &values)
                .map(|e| format!("{}[{}]", token_name(s.queue), show(program, &e)))
                .ok_or("its tokens are not one expression of the loop variable")
        })
        .collect()
}

// ------------------------------------------------------------------------------------------------
// Token form → counts

/// A token written in the text: its queue's name and index expression.
#[derive(Clone, Debug)]
struct TokenRef {
    name: String,
    index: TokExpr,
    span: Span,
}

/// Index expressions of tokens: integers, loop variables, `+ - * // %`, parentheses.
#[derive(Clone, Debug)]
enum TokExpr {
    Num(i64),
    Name(String),
    Neg(Box<TokExpr>),
    Bin(char, Box<TokExpr>, Box<TokExpr>),
}

impl TokExpr {
    fn eval(&self, vars: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
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
        }
    }
}

/// A tiny recursive-descent parser for `TokExpr`.
struct ExprParser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl ExprParser<'_> {
    fn skip(&mut self) {
        while self.s.get(self.pos) == Some(&b' ') {
            self.pos += 1;
        }
    }

    fn eat(&mut self, text: &str) -> bool {
        self.skip();
        if self.s.get(self.pos..self.pos + text.len()) == Some(text.as_bytes()) {
            self.pos += text.len();
            true
        } else {
            false
        }
    }

    fn sum(&mut self) -> Option<TokExpr> {
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

    fn product(&mut self) -> Option<TokExpr> {
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

    fn unary(&mut self) -> Option<TokExpr> {
        if self.eat("-") {
            return Some(TokExpr::Neg(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let e = self.sum()?;
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
fn parse_token(text: &str, offset: usize) -> Option<TokenRef> {
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
    let index = p.sum()?;
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
fn split_args(s: &str) -> Vec<(usize, &str)> {
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

/// A token line of the text.
enum TokenLine {
    Start { token: TokenRef, line_span: Span },
    Done { tokens: Vec<TokenRef> },
}

/// Whether `text` is written (at least partly) in token form.
pub fn is_token_form(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("with async_start(") || t.starts_with("with async_done(")
    })
}

/// A program written in token form, translated to counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FromTokens {
    /// The program with counts; `None` when the text does not lower or a count cannot be written.
    /// Present with errors in `diagnostics` when tokens are misused (what the text means, shown).
    pub program: Option<Program>,
    /// Located in the token text.
    pub diagnostics: Vec<Diagnostic>,
    /// The count form's text (line for line the token text).
    pub count_text: String,
}

/// Translates a program written in token form (`with async_start(q) as qQ[n]:`,
/// `with async_done(qQ[a], …):`; count-form lines may be mixed in) to counts, and checks how its
/// tokens are used. `params` binds symbolic extents.
pub fn from_tokens(text: &str, params: &BTreeMap<String, i64>) -> FromTokens {
    let mut diagnostics = Vec::new();
    let mut count_text = String::with_capacity(text.len());
    // Each token line's replacement keeps its line; a replaced line's spans map to its start.
    let mut lines: BTreeMap<usize, TokenLine> = BTreeMap::new();
    let mut queues: BTreeMap<String, i64> = BTreeMap::new();
    let mut offset = 0usize;
    let mut pending_done: Vec<(usize, usize, &str)> = Vec::new();
    for (lineno, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.trim_end_matches(['\n', '\r']);
        let indent = &line[..line.len() - line.trim_start().len()];
        let body = line.trim_start();
        let at = offset + indent.len();
        let line_span = Span::new(at, offset + line.len());
        let code = body.split_once('#').map_or(body, |(c, _)| c).trim_end();
        if let Some(rest) = code.strip_prefix("with async_start(") {
            let parsed = rest.strip_suffix(':').and_then(|r| {
                let (q, tok) = r.split_once(") as ")?;
                let queue: i64 = q.trim().parse().ok()?;
                let tok_off = at + "with async_start(".len() + q.len() + ") as ".len();
                Some((queue, parse_token(tok, tok_off)?))
            });
            match parsed {
                Some((queue, token)) => {
                    if let Some(&other) = queues.get(&token.name) {
                        if other != queue {
                            diagnostics.push(Diagnostic::error(
                                token.span,
                                format!(
                                    "tokens `{}` belong to queue {other}, not {queue}",
                                    token.name
                                ),
                            ));
                        }
                    }
                    queues.insert(token.name.clone(), queue);
                    count_text.push_str(&format!("{indent}with async_commit_queue({queue}):\n"));
                    lines.insert(lineno, TokenLine::Start { token, line_span });
                }
                None => {
                    diagnostics.push(
                        Diagnostic::error(
                            line_span,
                            "an async_start reads `with async_start(QUEUE) as NAME[INDEX]:`",
                        )
                        .with_hint("for example `with async_start(0) as q0[i]:`"),
                    );
                    count_text.push_str(&format!("{indent}with async_commit_queue(0):\n"));
                }
            }
        } else if code.starts_with("with async_done(") {
            pending_done.push((lineno, at, code));
            // The queue is known once every async_start is read: a placeholder for now.
            count_text.push_str(&format!("{indent}with async_wait_queue(\u{0}, 0):\n"));
        } else {
            count_text.push_str(line);
            count_text.push('\n');
        }
        offset += raw.len();
    }
    // The async_done lines, now that every token name has its queue.
    let mut done_queue: BTreeMap<usize, i64> = BTreeMap::new();
    for (lineno, at, code) in pending_done {
        let line_span = Span::new(at, at + code.len());
        let inner = code
            .strip_prefix("with async_done(")
            .and_then(|r| r.strip_suffix("):"));
        let Some(inner) = inner else {
            diagnostics.push(Diagnostic::error(
                line_span,
                "an async_done reads `with async_done(NAME[INDEX], ...):`",
            ));
            continue;
        };
        let base = at + "with async_done(".len();
        let mut tokens = Vec::new();
        let mut ok = true;
        for (off, arg) in split_args(inner) {
            match parse_token(arg, base + off) {
                Some(t) => tokens.push(t),
                None => {
                    let s = base + off;
                    diagnostics.push(
                        Diagnostic::error(
                            Span::new(s, s + arg.len()),
                            format!("`{}` is not a token", arg.trim()),
                        )
                        .with_hint(
                            "a token is NAME[INDEX], as its async_start names it: `q0[i - 1]`",
                        ),
                    );
                    ok = false;
                }
            }
        }
        if tokens.is_empty() && ok {
            diagnostics.push(
                Diagnostic::error(line_span, "this async_done awaits no token")
                    .with_hint("name the tokens it completes, or write the wait with a count"),
            );
            ok = false;
        }
        let mut queue = None;
        for t in &tokens {
            match queues.get(&t.name) {
                None => {
                    diagnostics.push(
                        Diagnostic::error(t.span, format!("no async_start names tokens `{}`", t.name))
                            .with_hint("each token is named by the `with async_start(QUEUE) as NAME[INDEX]:` that commits it"),
                    );
                    ok = false;
                }
                Some(&q) if queue.is_some_and(|p| p != q) => {
                    diagnostics.push(
                        Diagnostic::error(t.span, "one async_done awaits tokens of one queue")
                            .with_hint("write one `with async_done(...)` per queue, nested"),
                    );
                    ok = false;
                }
                Some(&q) => queue = Some(q),
            }
        }
        if ok {
            if let Some(q) = queue {
                done_queue.insert(lineno, q);
                lines.insert(lineno, TokenLine::Done { tokens });
            }
        }
    }
    // Put each async_done's queue in its placeholder line.
    let count_text: String = count_text
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| {
            if l.contains('\u{0}') {
                l.replace(
                    '\u{0}',
                    &done_queue.get(&i).copied().unwrap_or(0).to_string(),
                )
            } else {
                l.to_string()
            }
        })
        .collect();
    let parsed = crate::parser::parse(&count_text);
    let lowered = crate::lower::lower(&parsed.file);
    let map_span = |s: Span| map_span(text, &count_text, s);
    for d in parsed.diagnostics.iter().chain(&lowered.diagnostics) {
        let mut d = d.clone();
        d.span = map_span(d.span);
        diagnostics.push(d);
    }
    if diagnostics.iter().any(Diagnostic::is_error) {
        return FromTokens {
            program: None,
            diagnostics,
            count_text,
        };
    }
    let mut program = lowered.program;
    remap_spans(&mut program.body, &map_span);
    let Some(counts) = check_tokens(&program, text, &lines, params, &mut diagnostics) else {
        return FromTokens {
            program: None,
            diagnostics,
            count_text,
        };
    };
    set_counts(&mut program.body, &counts, &mut 0);
    FromTokens {
        program: Some(program),
        diagnostics,
        count_text,
    }
}

/// A span of the count text as a span of the token text: same line, the column clamped to the
/// token line's length (a rewritten `with` line's span covers the original line).
fn map_span(original: &str, translated: &str, s: Span) -> Span {
    let conv = |off: u32| -> usize {
        let (line, col) = crate::diagnostic::line_col(translated, off as usize);
        let mut start = 0usize;
        for (i, l) in original.split_inclusive('\n').enumerate() {
            if i + 1 == line {
                let len = l.trim_end_matches(['\n', '\r']).len();
                // Columns are characters; token lines are ASCII where they differ.
                let byte = l
                    .char_indices()
                    .nth(col.saturating_sub(1))
                    .map_or(len, |(b, _)| b)
                    .min(len);
                return start + byte;
            }
            start += l.len();
        }
        original.len()
    };
    Span::new(conv(s.start), conv(s.end).max(conv(s.start)))
}

fn remap_spans(nodes: &mut [Node], f: &dyn Fn(Span) -> Span) {
    for n in nodes {
        match n {
            Node::For { body, span, .. }
            | Node::If { body, span, .. }
            | Node::Commit { body, span, .. }
            | Node::AsyncScope { body, span, .. }
            | Node::Wait { body, span, .. } => {
                *span = f(*span);
                remap_spans(body, f);
            }
            Node::Section { body, .. } => remap_spans(body, f),
            Node::Assign(a) => {
                a.span = f(a.span);
                a.target.span = f(a.target.span);
                remap_value(&mut a.value, f);
            }
        }
    }
}

fn remap_value(v: &mut crate::ir::VExpr, f: &dyn Fn(Span) -> Span) {
    use crate::ir::VExpr;
    match v {
        VExpr::Lit(_) | VExpr::Index(_) => {}
        VExpr::Read(a) => a.span = f(a.span),
        VExpr::Neg(x) => remap_value(x, f),
        VExpr::Bin(_, ab) => {
            let [a, b] = &mut **ab;
            remap_value(a, f);
            remap_value(b, f);
        }
        VExpr::Call(_, args) => args.iter_mut().for_each(|a| remap_value(a, f)),
    }
}

/// Runs the program's structure, checking every token use; returns each wait site's count (in
/// pre-order), fitted over its instances, or `None` when some count cannot be written (the
/// program is then not translated). Misused tokens are errors in `diagnostics` either way: the
/// translated program is still returned, to show what the text means.
fn check_tokens(
    program: &Program,
    text: &str,
    lines: &BTreeMap<usize, TokenLine>,
    params: &BTreeMap<String, i64>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Vec<Option<IExpr>>> {
    // The token lines in text order match the commit and wait nodes in pre-order.
    let line_of = |s: Span| crate::diagnostic::line_col(text, s.start as usize).0 - 1;
    let mut runner = TokenRunner {
        program,
        text,
        env: program.env(params),
        loops: Vec::new(),
        committed: BTreeMap::new(),
        awaited: BTreeMap::new(),
        count_forced: BTreeMap::new(),
        started: BTreeMap::new(),
        counts: Vec::new(),
        lines,
        line_of: &line_of,
        diagnostics: Vec::new(),
        steps: 0,
        reported: std::collections::BTreeSet::new(),
    };
    let mut sites = Vec::new();
    collect_waits(&program.body, &mut sites);
    runner.counts = sites
        .iter()
        .map(|_| (Samples::default(), Vec::new()))
        .collect();
    let mut index = 0;
    let complete = runner.run(&program.body, &mut index);
    if !complete {
        diagnostics.push(Diagnostic::error(
            Span::new(0, 0),
            "the program is too long to check its tokens (more than 2 000 000 steps)",
        ));
        return None;
    }
    // Tokens never awaited: one message per async_start, with how many and the first.
    let mut never: BTreeMap<usize, (Span, Vec<i64>)> = BTreeMap::new();
    for ((queue, seq), (line, span)) in &runner.started {
        let awaited = runner.awaited.contains_key(&(*queue, *seq));
        if !awaited {
            never
                .entry(*line)
                .or_insert((*span, Vec::new()))
                .1
                .push(*seq);
        }
    }
    for (span, seqs) in never.values() {
        let name = match lines.get(&line_of(*span)) {
            Some(TokenLine::Start { token, .. }) => token.name.clone(),
            _ => "the token".to_string(),
        };
        let listed: Vec<String> = seqs
            .iter()
            .take(4)
            .map(|s| format!("{name}[{s}]"))
            .collect();
        diagnostics.push(
            Diagnostic::error(
                *span,
                format!(
                    "{} token{} committed here {} never awaited: {}{}",
                    seqs.len(),
                    if seqs.len() == 1 { "" } else { "s" },
                    if seqs.len() == 1 { "is" } else { "are" },
                    listed.join(", "),
                    if seqs.len() > 4 { ", …" } else { "" }
                ),
            )
            .with_hint("await each token with an async_done before its data is used, or by the end of the program"),
        );
    }
    diagnostics.append(&mut runner.diagnostics);
    let mut out = Vec::new();
    let mut all = true;
    for (i, (samples, values)) in runner.counts.iter().enumerate() {
        if values.is_empty() {
            out.push(None);
            continue;
        }
        match fit(&samples.envs, values) {
            Some(e) => out.push(Some(e)),
            None => {
                let span = sites.get(i).copied().unwrap_or(Span::new(0, 0));
                let shown: Vec<String> = values.iter().take(6).map(i64::to_string).collect();
                diagnostics.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "this async_done means counts {}{} at its successive steps, which are not one expression of the loop variable",
                            shown.join(", "),
                            if values.len() > 6 { ", …" } else { "" }
                        ),
                    )
                    .with_hint("write the wait in count form (`with async_wait_queue(QUEUE, N):`), or peel the loop"),
                );
                all = false;
                out.push(None);
            }
        }
    }
    all.then_some(out)
}

fn collect_waits(nodes: &[Node], out: &mut Vec<Span>) {
    for n in nodes {
        match n {
            Node::Wait { body, span, .. } => {
                out.push(*span);
                collect_waits(body, out);
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => collect_waits(body, out),
            Node::Assign(_) => {}
        }
    }
}

fn set_counts(nodes: &mut [Node], counts: &[Option<IExpr>], index: &mut usize) {
    for n in nodes {
        match n {
            Node::Wait { count, body, .. } => {
                if let Some(Some(c)) = counts.get(*index) {
                    *count = c.clone();
                }
                *index += 1;
                set_counts(body, counts, index);
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => set_counts(body, counts, index),
            Node::Assign(_) => {}
        }
    }
}

struct TokenRunner<'a> {
    program: &'a Program,
    text: &'a str,
    env: Vec<i64>,
    loops: Vec<VarId>,
    committed: BTreeMap<i64, i64>,
    /// (queue, seq) → where it was awaited.
    awaited: BTreeMap<(i64, i64), Span>,
    /// Per queue, the tokens below this are completed by waits in count form.
    count_forced: BTreeMap<i64, i64>,
    /// (queue, seq) → the async_start line and span that committed it.
    started: BTreeMap<(i64, i64), (usize, Span)>,
    /// Per wait site in pre-order: instances and counts.
    counts: Vec<(Samples, Vec<i64>)>,
    lines: &'a BTreeMap<usize, TokenLine>,
    line_of: &'a dyn Fn(Span) -> usize,
    diagnostics: Vec<Diagnostic>,
    steps: u64,
    /// (line, kind) already reported: a misuse inside a loop is said once.
    reported: std::collections::BTreeSet<(usize, u8)>,
}

impl TokenRunner<'_> {
    /// The value of `name`: the innermost enclosing loop of that name, else a parameter.
    fn var(&self, name: &str) -> Option<i64> {
        let id = self
            .loops
            .iter()
            .rev()
            .map(|&v| v as usize)
            .find(|&v| self.program.vars.get(v).is_some_and(|x| x.name == name))
            .or_else(|| {
                self.program
                    .vars
                    .iter()
                    .position(|v| v.name == name && v.kind == crate::ir::VarKind::Param)
            })?;
        self.env.get(id).copied()
    }

    fn report(&mut self, line: usize, kind: u8, d: Diagnostic) {
        if self.reported.insert((line, kind)) {
            self.diagnostics.push(d);
        }
    }

    fn run(&mut self, nodes: &[Node], index: &mut usize) -> bool {
        for n in nodes {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return false;
            }
            match n {
                Node::For {
                    var, lo, hi, body, ..
                } => {
                    let (Some(lo), Some(hi)) = (lo.eval(&self.env), hi.eval(&self.env)) else {
                        *index += count_sites(body).1;
                        continue;
                    };
                    let start = *index;
                    let (_, w) = count_sites(body);
                    self.loops.push(*var);
                    for v in lo..hi {
                        if let Some(slot) = self.env.get_mut(*var as usize) {
                            *slot = v;
                        }
                        *index = start;
                        if !self.run(body, index) {
                            return false;
                        }
                    }
                    self.loops.pop();
                    *index = start + w;
                }
                Node::If { cond, body, .. } => {
                    if cond.eval(&self.env).unwrap_or(false) {
                        if !self.run(body, index) {
                            return false;
                        }
                    } else {
                        *index += count_sites(body).1;
                    }
                }
                Node::Commit {
                    queue, body, span, ..
                } => {
                    if !self.run(body, index) {
                        return false;
                    }
                    let seq = {
                        let c = self.committed.entry(*queue).or_insert(0);
                        *c += 1;
                        *c - 1
                    };
                    let line = (self.line_of)(*span);
                    if let Some(TokenLine::Start {
                        token, line_span, ..
                    }) = self.lines.get(&line)
                    {
                        let named = token.index.eval(&|n| self.var(n));
                        if named != Some(seq) {
                            let d = Diagnostic::error(
                                token.span,
                                format!(
                                    "this async_start commits token {}[{seq}] (group {} of queue {queue}) but names it {}[{}]",
                                    token.name,
                                    seq + 1,
                                    token.name,
                                    named.map_or("?".to_string(), |v| v.to_string())
                                ),
                            )
                            .with_hint("tokens of a queue are numbered from 0 in the order their groups are committed");
                            self.report(line, 0, d);
                        }
                        self.started.insert((*queue, seq), (line, *line_span));
                    }
                }
                Node::Wait {
                    queue,
                    count,
                    body,
                    span,
                    ..
                } => {
                    let site = *index;
                    *index += 1;
                    let line = (self.line_of)(*span);
                    let committed = self.committed.get(queue).copied().unwrap_or(0);
                    let env: Vec<(VarId, i64)> = self
                        .loops
                        .iter()
                        .map(|&v| (v, self.env.get(v as usize).copied().unwrap_or(0)))
                        .collect();
                    let n = match self.lines.get(&line) {
                        Some(TokenLine::Done { tokens }) => {
                            let mut newest = i64::MIN;
                            for t in tokens {
                                let Some(k) = t.index.eval(&|n| self.var(n)) else {
                                    let d = Diagnostic::error(
                                        t.span,
                                        "this token's index does not evaluate here",
                                    )
                                    .with_hint("use the loop variables and integers");
                                    self.report(line, 1, d);
                                    continue;
                                };
                                if k >= committed || k < 0 {
                                    let d = Diagnostic::error(
                                        t.span,
                                        format!(
                                            "{}[{k}] is awaited before it starts: {committed} group{} of queue {queue} {} been committed here",
                                            t.name,
                                            if committed == 1 { "" } else { "s" },
                                            if committed == 1 { "has" } else { "have" }
                                        ),
                                    )
                                    .with_hint("an async_done can only await a token an earlier async_start committed");
                                    self.report(line, 2, d);
                                    continue;
                                }
                                if let Some(prev) = self.awaited.get(&(*queue, k)) {
                                    let (pl, _) =
                                        crate::diagnostic::line_col(self.text, prev.start as usize);
                                    let d = Diagnostic::error(
                                        t.span,
                                        format!("{}[{k}] is awaited twice: it was awaited on line {pl} already", t.name),
                                    )
                                    .with_hint("await each token once");
                                    self.report(line, 3, d);
                                    continue;
                                }
                                self.awaited.insert((*queue, k), t.span);
                                newest = newest.max(k);
                            }
                            // Counting completes every older group too, but a token counts as
                            // awaited only where an async_done names it.
                            if newest > i64::MIN {
                                committed - 1 - newest
                            } else {
                                count.eval(&self.env).unwrap_or(0)
                            }
                        }
                        _ => {
                            // A wait in count form awaits every token it completes.
                            let n = count.eval(&self.env).unwrap_or(0);
                            let newest = committed - 1 - n.max(0);
                            let from = self.count_forced.get(queue).copied().unwrap_or(0);
                            for k in from..=newest {
                                self.awaited.entry((*queue, k)).or_insert(*span);
                            }
                            if newest >= from {
                                self.count_forced.insert(*queue, newest + 1);
                            }
                            n
                        }
                    };
                    if let Some((samples, values)) = self.counts.get_mut(site) {
                        samples.envs.push(env);
                        values.push(n);
                    }
                    if !self.run(body, index) {
                        return false;
                    }
                }
                Node::AsyncScope { body, .. } | Node::Section { body, .. } => {
                    if !self.run(body, index) {
                        return false;
                    }
                }
                Node::Assign(_) => {}
            }
        }
        true
    }
}
