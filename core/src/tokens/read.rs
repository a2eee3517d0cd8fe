//! Token form → count form: the text's token lines rewritten as counts, lowered, and its spans
//! mapped back to the token text.

use super::check::{check_tokens, set_counts};
use super::notation::{parse_token, split_args, TokenRef};
use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{Node, Program};
use std::collections::BTreeMap;

/// A token line of the text.
pub(super) enum TokenLine {
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
    /// The text that was lowered: line for line the token text, each token line rewritten in the
    /// count form's words with a count of 0 (the counts are set in `program`; its printed form,
    /// `tir::print`, is the count form).
    pub count_text: String,
}

/// Translates a program written in token form (`with async_start(q) as qQ[n]:`,
/// `with async_done(qQ[a], …):`; count-form lines may be mixed in) to counts, and checks how its
/// tokens are used. `params` binds symbolic extents.
pub fn from_tokens(text: &str, params: &BTreeMap<String, i64>) -> FromTokens {
    let mut reading = Reading::default();
    let (count_text, pending_done) = reading.rewrite_lines(text);
    // The async_done lines, now that every token name has its queue.
    let mut done_queue: BTreeMap<usize, i64> = BTreeMap::new();
    for (lineno, at, code) in pending_done {
        if let Some(queue) = reading.done_line(lineno, at, code) {
            done_queue.insert(lineno, queue);
        }
    }
    let count_text = fill_done_queues(&count_text, &done_queue);
    reading.lower_and_check(text, count_text, params)
}

/// What reading the token text has found so far.
#[derive(Default)]
struct Reading {
    diagnostics: Vec<Diagnostic>,
    /// Each token line's replacement keeps its line; a replaced line's spans map to its start.
    lines: BTreeMap<usize, TokenLine>,
    /// The queue of each token name, as its async_start says.
    queues: BTreeMap<String, i64>,
}

/// An async_done line kept for later: its line number, the byte where its code starts, the code.
type PendingDone<'t> = (usize, usize, &'t str);

/// The byte a placeholder for an async_done's queue takes in the count text until it is known.
const QUEUE_PLACEHOLDER: char = '\u{0}';

impl Reading {
    /// The count text with every async_start line rewritten and every async_done line a
    /// placeholder, and the async_done lines to read once every async_start is read.
    fn rewrite_lines<'t>(&mut self, text: &'t str) -> (String, Vec<PendingDone<'t>>) {
        let mut count_text = String::with_capacity(text.len());
        let mut offset = 0usize;
        let mut pending_done = Vec::new();
        for (lineno, raw) in text.split_inclusive('\n').enumerate() {
            let line = raw.trim_end_matches(['\n', '\r']);
            let indent = &line[..line.len() - line.trim_start().len()];
            let body = line.trim_start();
            let at = offset + indent.len();
            let line_span = Span::new(at, offset + line.len());
            let code = body.split_once('#').map_or(body, |(c, _)| c).trim_end();
            if let Some(rest) = code.strip_prefix("with async_start(") {
                let queue = self.start_line(lineno, rest, at, line_span);
                count_text.push_str(&format!(
                    "{indent}with async_commit_queue({}):\n",
                    queue.unwrap_or(0)
                ));
            } else if code.starts_with("with async_done(") {
                pending_done.push((lineno, at, code));
                count_text.push_str(&format!(
                    "{indent}with async_wait_queue({QUEUE_PLACEHOLDER}, 0):\n"
                ));
            } else {
                count_text.push_str(line);
                count_text.push('\n');
            }
            offset += raw.len();
        }
        (count_text, pending_done)
    }

    /// One `with async_start(Q) as NAME[INDEX]:` line (`rest` after its opening parenthesis): its
    /// queue, or `None` (reported) when it does not read so.
    fn start_line(&mut self, lineno: usize, rest: &str, at: usize, line_span: Span) -> Option<i64> {
        let parsed = rest.strip_suffix(':').and_then(|r| {
            let (q, tok) = r.split_once(") as ")?;
            let queue: i64 = q.trim().parse().ok()?;
            let tok_off = at + "with async_start(".len() + q.len() + ") as ".len();
            Some((queue, parse_token(tok, tok_off)?))
        });
        let Some((queue, token)) = parsed else {
            self.diagnostics.push(
                Diagnostic::error(
                    line_span,
                    "an async_start reads `with async_start(QUEUE) as NAME[INDEX]:`",
                )
                .with_hint("for example `with async_start(0) as q0[i]:`"),
            );
            return None;
        };
        if let Some(&other) = self.queues.get(&token.name) {
            if other != queue {
                self.diagnostics.push(Diagnostic::error(
                    token.span,
                    format!(
                        "tokens `{}` belong to queue {other}, not {queue}",
                        token.name
                    ),
                ));
            }
        }
        self.queues.insert(token.name.clone(), queue);
        self.lines
            .insert(lineno, TokenLine::Start { token, line_span });
        Some(queue)
    }

    /// One async_done line: the queue it waits on, or `None` (reported) when its tokens are not
    /// tokens of one queue some async_start names.
    fn done_line(&mut self, lineno: usize, at: usize, code: &str) -> Option<i64> {
        let line_span = Span::new(at, at + code.len());
        let inner = code
            .strip_prefix("with async_done(")
            .and_then(|r| r.strip_suffix("):"));
        let Some(inner) = inner else {
            self.diagnostics.push(Diagnostic::error(
                line_span,
                "an async_done reads `with async_done(NAME[INDEX], ...):`",
            ));
            return None;
        };
        let base = at + "with async_done(".len();
        let mut tokens = Vec::new();
        let mut ok = true;
        for (off, arg) in split_args(inner) {
            match parse_token(arg, base + off) {
                Some(t) => tokens.push(t),
                None => {
                    let s = base + off;
                    self.diagnostics.push(
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
            self.diagnostics.push(
                Diagnostic::error(line_span, "this async_done awaits no token")
                    .with_hint("name the tokens it completes, or write the wait with a count"),
            );
            ok = false;
        }
        let queue = self.queue_of(&tokens);
        let queue = queue.filter(|_| ok)?;
        self.lines.insert(lineno, TokenLine::Done { tokens });
        Some(queue)
    }

    /// The one queue of an async_done's tokens; `None` (reported) when a name has no async_start
    /// or the names belong to several queues.
    fn queue_of(&mut self, tokens: &[TokenRef]) -> Option<i64> {
        let mut queue = None;
        let mut ok = true;
        for t in tokens {
            match self.queues.get(&t.name) {
                None => {
                    self.diagnostics.push(
                        Diagnostic::error(t.span, format!("no async_start names tokens `{}`", t.name))
                            .with_hint("each token is named by the `with async_start(QUEUE) as NAME[INDEX]:` that commits it"),
                    );
                    ok = false;
                }
                Some(&q) if queue.is_some_and(|p| p != q) => {
                    self.diagnostics.push(
                        Diagnostic::error(t.span, "one async_done awaits tokens of one queue")
                            .with_hint("write one `with async_done(...)` per queue, nested"),
                    );
                    ok = false;
                }
                Some(&q) => queue = Some(q),
            }
        }
        queue.filter(|_| ok)
    }

    /// The count text parsed and lowered, its spans mapped back to the token text, and the
    /// tokens' counts checked and set.
    fn lower_and_check(
        mut self,
        text: &str,
        count_text: String,
        params: &BTreeMap<String, i64>,
    ) -> FromTokens {
        let parsed = crate::parser::parse(&count_text);
        let lowered = crate::lower::lower(&parsed.file);
        let map_span = |s: Span| map_span(text, &count_text, s);
        for d in parsed.diagnostics.iter().chain(&lowered.diagnostics) {
            let mut d = d.clone();
            d.span = map_span(d.span);
            for r in &mut d.related {
                r.span = map_span(r.span);
            }
            self.diagnostics.push(d);
        }
        let mut program = None;
        if !self.diagnostics.iter().any(Diagnostic::is_error) {
            let mut lowered = lowered.program;
            remap_spans(&mut lowered.body, &map_span);
            let counts = check_tokens(&lowered, text, &self.lines, params, &mut self.diagnostics);
            if let Some(counts) = counts {
                set_counts(&mut lowered.body, &counts, &mut 0);
                program = Some(lowered);
            }
        }
        FromTokens {
            program,
            diagnostics: self.diagnostics,
            count_text,
        }
    }
}

/// Each async_done's queue put in its placeholder line.
fn fill_done_queues(count_text: &str, done_queue: &BTreeMap<usize, i64>) -> String {
    count_text
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| {
            if l.contains(QUEUE_PLACEHOLDER) {
                l.replace(
                    QUEUE_PLACEHOLDER,
                    &done_queue.get(&i).copied().unwrap_or(0).to_string(),
                )
            } else {
                l.to_string()
            }
        })
        .collect()
}

/// A span of the count text as a span of the token text: same line, the column clamped to the
/// token line's length (a rewritten `with` line's span covers the original line).
pub(super) fn map_span(original: &str, translated: &str, s: Span) -> Span {
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

pub(super) fn remap_spans(nodes: &mut [Node], f: &dyn Fn(Span) -> Span) {
    for n in nodes {
        match n {
            Node::Barrier { .. } => {}
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

pub(super) fn remap_value(v: &mut crate::ir::VExpr, f: &dyn Fn(Span) -> Span) {
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
