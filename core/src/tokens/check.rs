//! The token text's program run: every token use checked, and each wait's count fitted over its
//! instances.

use super::fit::fit;
use super::notation::TokenRef;
use super::read::TokenLine;
use super::walk::{Visitor, Walk};
use super::Samples;
use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{IExpr, Node, Program};
use std::collections::BTreeMap;

/// Runs the program's structure, checking every token use; returns each wait site's count (in
/// pre-order), fitted over its instances, or `None` when some count cannot be written (the
/// program is then not translated). Misused tokens are errors in `diagnostics` either way: the
/// translated program is still returned, to show what the text means.
pub(super) fn check_tokens(
    program: &Program,
    text: &str,
    lines: &BTreeMap<usize, TokenLine>,
    params: &BTreeMap<String, i64>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Vec<Option<IExpr>>> {
    // The token lines in text order match the commit and wait nodes in pre-order.
    // Asked at every wait the run executes: an index, not a scan of the text each time.
    let lines_index = crate::diagnostic::LineIndex::new(text);
    let line_of = |s: Span| lines_index.line0(s.start as usize);
    let mut runner = TokenRunner {
        program,
        committed: BTreeMap::new(),
        awaited: BTreeMap::new(),
        count_forced: BTreeMap::new(),
        started: BTreeMap::new(),
        empty: std::collections::BTreeSet::new(),
        counts: Vec::new(),
        lines,
        line_of: &line_of,
        diagnostics: Vec::new(),
        reported: std::collections::BTreeSet::new(),
    };
    let mut sites = Vec::new();
    collect_waits(&program.body, &mut sites);
    runner.counts = sites
        .iter()
        .map(|_| (Samples::default(), Vec::new()))
        .collect();
    let complete = Walk::new(program, params).run(&program.body, &mut runner);
    if !complete {
        diagnostics.push(Diagnostic::error(
            Span::new(0, 0),
            "the program is too long to check its tokens (more than 2 000 000 steps)",
        ));
        return None;
    }
    // Tokens never awaited: one message per async_start, with how many and the first. A group in
    // which no statement ran has nothing to land: its token may stay (as the count form leaves
    // it in flight, and the interpreter accepts it).
    let mut never: BTreeMap<usize, (Span, Vec<i64>)> = BTreeMap::new();
    for ((queue, seq), (line, span)) in &runner.started {
        let awaited = runner.awaited.contains_key(&(*queue, *seq));
        if !awaited && !runner.empty.contains(&(*queue, *seq)) {
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
                    "{} committed here {} never awaited: {}{}",
                    crate::english::count(seqs.len(), "token"),
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

pub(super) fn collect_waits(nodes: &[Node], out: &mut Vec<Span>) {
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
            Node::Assign(_) | Node::Barrier { .. } => {}
        }
    }
}

pub(super) fn set_counts(nodes: &mut [Node], counts: &[Option<IExpr>], index: &mut usize) {
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
            Node::Assign(_) | Node::Barrier { .. } => {}
        }
    }
}

/// The checker's state over the walk: the groups committed and awaited, and what it reported.
struct TokenRunner<'a> {
    program: &'a Program,
    committed: BTreeMap<i64, i64>,
    /// (queue, seq) → where it was awaited.
    awaited: BTreeMap<(i64, i64), Span>,
    /// Per queue, the tokens below this are completed by waits in count form.
    count_forced: BTreeMap<i64, i64>,
    /// (queue, seq) → the async_start line and span that committed it.
    started: BTreeMap<(i64, i64), (usize, Span)>,
    /// (queue, seq) of the groups in which no statement ran.
    empty: std::collections::BTreeSet<(i64, i64)>,
    /// Per wait site in pre-order: instances and counts.
    counts: Vec<(Samples, Vec<i64>)>,
    lines: &'a BTreeMap<usize, TokenLine>,
    line_of: &'a dyn Fn(Span) -> usize,
    diagnostics: Vec<Diagnostic>,
    /// (line, kind) already reported: a misuse inside a loop is said once.
    reported: std::collections::BTreeSet<(usize, u8)>,
}

impl TokenRunner<'_> {
    /// The value of `name`: the innermost enclosing loop of that name, else a parameter.
    fn var(&self, at: &Walk, name: &str) -> Option<i64> {
        let id = at
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
        at.env.get(id).copied()
    }

    /// Reports the diagnostic `d` makes, once per line and kind: a misuse in a loop is met at
    /// every iteration, and its message is written only the first time.
    fn report(&mut self, line: usize, kind: u8, d: impl FnOnce(&Self) -> Diagnostic) {
        if self.reported.insert((line, kind)) {
            let d = d(self);
            self.diagnostics.push(d);
        }
    }
}

impl Visitor for TokenRunner<'_> {
    /// A group committed to `queue` (`empty`: no statement ran in it): numbered, and checked
    /// against the name its async_start gives it.
    fn commit(&mut self, at: &Walk, _: usize, queue: i64, span: Span, empty: bool) {
        let seq = {
            let c = self.committed.entry(queue).or_insert(0);
            *c += 1;
            *c - 1
        };
        if empty {
            self.empty.insert((queue, seq));
        }
        let line = (self.line_of)(span);
        if let Some(TokenLine::Start {
            token, line_span, ..
        }) = self.lines.get(&line)
        {
            let named = token.index.eval(&|n| self.var(at, n));
            if named != Some(seq) {
                let d = |_: &Self| {
                    Diagnostic::error(
                    token.span,
                    format!(
                        "this async_start commits token {}[{seq}] (group {} of queue {queue}) but names it {}[{}]",
                        token.name,
                        seq + 1,
                        token.name,
                        named.map_or("?".to_string(), |v| v.to_string())
                    ),
                )
                .with_hint("tokens of a queue are numbered from 0 in the order their groups are committed")
                };
                self.report(line, 0, d);
            }
            self.started.insert((queue, seq), (line, *line_span));
        }
    }

    /// One instance of the wait site `index`: the count it means recorded with the loop
    /// variables around it, and the tokens it awaits checked and marked awaited.
    fn wait(&mut self, at: &Walk, site: usize, queue: i64, count: &IExpr, span: Span) {
        let line = (self.line_of)(span);
        let committed = self.committed.get(&queue).copied().unwrap_or(0);
        let n = match self.lines.get(&line) {
            Some(TokenLine::Done { tokens }) => {
                match self.await_tokens(at, tokens, queue, committed, line) {
                    // Counting completes every older group too, but a token counts as
                    // awaited only where an async_done names it.
                    Some(newest) => committed - 1 - newest,
                    None => count.eval(&at.env).unwrap_or(0),
                }
            }
            _ => {
                // A wait in count form awaits every token it completes.
                let n = count.eval(&at.env).unwrap_or(0);
                let newest = committed - 1 - n.max(0);
                let from = self.count_forced.get(&queue).copied().unwrap_or(0);
                for k in from..=newest {
                    self.awaited.entry((queue, k)).or_insert(span);
                }
                if newest >= from {
                    self.count_forced.insert(queue, newest + 1);
                }
                n
            }
        };
        if let Some((samples, values)) = self.counts.get_mut(site) {
            samples.envs.push(at.loop_values());
            values.push(n);
        }
    }
}

impl TokenRunner<'_> {
    /// The tokens an async_done names, each checked (it evaluates, it has started, it is not
    /// awaited already) and marked awaited; the newest of those that pass, if any.
    fn await_tokens(
        &mut self,
        at: &Walk,
        tokens: &[TokenRef],
        queue: i64,
        committed: i64,
        line: usize,
    ) -> Option<i64> {
        let mut newest = None;
        for t in tokens {
            let Some(k) = t.index.eval(&|n| self.var(at, n)) else {
                let d = |_: &Self| {
                    Diagnostic::error(t.span, "this token's index does not evaluate here")
                        .with_hint("use the loop variables and integers")
                };
                self.report(line, 1, d);
                continue;
            };
            if k >= committed || k < 0 {
                let d = |_: &Self| {
                    Diagnostic::error(
                    t.span,
                    format!(
                        "{}[{k}] is awaited before it starts: {} of queue {queue} {} been committed here",
                        t.name,
                        crate::english::count(committed, "group"),
                        if committed == 1 { "has" } else { "have" }
                    ),
                )
                .with_hint("an async_done can only await a token an earlier async_start committed")
                };
                self.report(line, 2, d);
                continue;
            }
            if let Some(&prev) = self.awaited.get(&(queue, k)) {
                let d = |s: &Self| {
                    Diagnostic::error(
                        t.span,
                        format!(
                            "{}[{k}] is awaited twice: it was awaited on line {} already",
                            t.name,
                            (s.line_of)(prev) + 1
                        ),
                    )
                    .with_hint("await each token once")
                };
                self.report(line, 3, d);
                continue;
            }
            self.awaited.insert((queue, k), t.span);
            newest = Some(newest.map_or(k, |m: i64| m.max(k)));
        }
        newest
    }
}
