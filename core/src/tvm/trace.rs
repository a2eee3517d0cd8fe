//! A program run statically into the form of TVM's goldens.

use crate::ir::{for_each_read, Access, IExpr, Node, Program};
use std::collections::BTreeMap;

/// A program run statically, as `scripts/tvm-goldens.py` runs TVM's output: one line per store in
/// execution order (`async ` when inside an async scope, the target and the elements the value
/// reads), `commit Q` and `wait Q N` lines with what they enclose indented, loops unrolled,
/// conditions evaluated, every index and count a number; declared buffers first (`alloc NAME
/// [shape]`). `params` binds symbolic extents. Lines beyond `max_lines` are cut with a last line
/// saying so.
pub fn trace(program: &Program, params: &BTreeMap<String, i64>, max_lines: usize) -> String {
    trace_threads(program, params, max_lines, &[])
}

/// `trace`, with each loop over one of `threads` (loop variables binding threads) run at its
/// first two and its last value only, each thread's lines after a `thread tx = 0` line: every
/// thread runs one program with its own index (`scripts/tvm-suite.py` traces TVM's output so).
pub fn trace_threads(
    program: &Program,
    params: &BTreeMap<String, i64>,
    max_lines: usize,
    threads: &[&str],
) -> String {
    let mut allocs: Vec<String> = program
        .buffers
        .iter()
        .filter(|b| b.declared)
        .map(|b| {
            let shape: Vec<String> = b
                .shape
                .as_deref()
                .unwrap_or(&[])
                .iter()
                .map(i64::to_string)
                .collect();
            format!("alloc {} [{}]", b.name, shape.join(", "))
        })
        .collect();
    allocs.sort();
    let mut t = Tracer {
        program,
        env: program.env(params),
        lines: allocs,
        max_lines,
        cut: false,
        threads,
    };
    t.nodes(&program.body, 0, false);
    if t.cut {
        t.lines.push(format!("... cut at {max_lines} lines"));
    }
    let mut out = t.lines.join("\n");
    out.push('\n');
    out
}

pub(super) struct Tracer<'p> {
    pub(super) program: &'p Program,
    pub(super) env: Vec<i64>,
    pub(super) lines: Vec<String>,
    pub(super) max_lines: usize,
    pub(super) cut: bool,
    pub(super) threads: &'p [&'p str],
}

impl Tracer<'_> {
    pub(super) fn push(&mut self, line: String) -> bool {
        if self.lines.len() >= self.max_lines {
            self.cut = true;
            return false;
        }
        self.lines.push(line);
        true
    }

    pub(super) fn eval(&self, e: &IExpr) -> String {
        e.eval(&self.env)
            .map_or_else(|| "?".to_string(), |v| v.to_string())
    }

    pub(super) fn access(&self, a: &Access) -> String {
        let ix: Vec<String> = a.indices.iter().map(|i| self.eval(i)).collect();
        let name = self
            .program
            .buffer(a.buffer)
            .map_or("?", |b| b.name.as_str());
        format!("{name}[{}]", ix.join(", "))
    }

    pub(super) fn nodes(&mut self, nodes: &[Node], depth: usize, is_async: bool) {
        for n in nodes {
            if self.cut {
                return;
            }
            self.node(n, depth, is_async);
        }
    }

    pub(super) fn node(&mut self, node: &Node, depth: usize, is_async: bool) {
        let pad = "    ".repeat(depth);
        match node {
            Node::Barrier { .. } => {}
            Node::For {
                var, lo, hi, body, ..
            } => {
                let (Some(lo), Some(hi)) = (lo.eval(&self.env), hi.eval(&self.env)) else {
                    self.push(format!("{pad}? a loop whose bounds do not evaluate"));
                    return;
                };
                let name = self.program.var_name(*var);
                let thread = self.threads.contains(&name);
                let mut values: Vec<i64> = if thread {
                    vec![lo, lo.saturating_add(1), hi.saturating_sub(1)]
                } else {
                    Vec::new()
                };
                values.retain(|v| (lo..hi).contains(v));
                values.dedup();
                let all = lo..hi;
                let values: Box<dyn Iterator<Item = i64>> = if thread {
                    Box::new(values.into_iter())
                } else {
                    Box::new(all)
                };
                for v in values {
                    if thread && !self.push(format!("{pad}thread {name} = {v}")) {
                        return;
                    }
                    if let Some(slot) = self.env.get_mut(*var as usize) {
                        *slot = v;
                    }
                    self.nodes(body, depth, is_async);
                    if self.cut {
                        return;
                    }
                }
            }
            Node::If { cond, body, .. } => {
                if cond.eval(&self.env).unwrap_or(false) {
                    self.nodes(body, depth, is_async);
                }
            }
            Node::Commit { queue, body, .. } => {
                if self.push(format!("{pad}commit {queue}")) {
                    self.nodes(body, depth + 1, is_async);
                }
            }
            Node::Wait {
                queue, count, body, ..
            } => {
                let n = self.eval(count);
                if self.push(format!("{pad}wait {queue} {n}")) {
                    self.nodes(body, depth + 1, is_async);
                }
            }
            Node::AsyncScope { body, .. } => self.nodes(body, depth, true),
            Node::Section { body, .. } => self.nodes(body, depth, is_async),
            Node::Assign(a) => {
                let mut reads = Vec::new();
                for_each_read(&a.value, &mut |r| reads.push(self.access(r)));
                let line = format!(
                    "{pad}{}{} <- {}",
                    if is_async { "async " } else { "" },
                    self.access(&a.target),
                    reads.join(", ")
                );
                self.push(line);
            }
        }
    }
}
