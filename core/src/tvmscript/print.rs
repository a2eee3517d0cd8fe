//! TVMScript out: an annotated loop (the loop language's tree) printed as a PrimFunc in TVM 0.27's
//! spelling — the form `scripts/tvm-goldens.py` feeds TVM's own pass: `@T.prim_func(s_tir=True)`,
//! global buffers as parameters, each annotated loop's statements in `T.sblock`s (the allocations
//! in the outermost one, so the pass may version them), the annotations on the loop. Read back by
//! `read.rs`, it explores as the loop does (`core/tests/tvmscript_roundtrip.rs`).
//!
//! The threads a loop declares (`stagecraft_threads`, `stagecraft_waves`) and its buffers'
//! distributions over them (`threads=`) are left out, with a comment saying so: TVM's pass
//! pipelines the program one thread runs, and every thread runs it alike, so its stages, order,
//! versions and waits do not depend on them; TVM places the barriers in a later pass (docs/tvm.md,
//! "Threads in the export").

use crate::printer::print_float;
use crate::syntax::{Arg, BinOp, BoolOp, Expr, ExprKind, File, Stmt, StmtKind};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Why a loop has no TVMScript form.
pub type Refusal = String;

/// The export's comment when the loop declares threads: what is left out, and why TVM's pass does
/// not need it.
const THREADS_LEFT_OUT: &str = "\
# The loop's threads (stagecraft_threads, stagecraft_waves) and its buffers' spread over
# them (alloc's threads=) are left out: TVM's pass pipelines the program one thread runs,
# the same in every thread, so its stages, order, versions and waits do not depend on them.
# TVM places the barriers between threads in a later pass (s_tir.transform.ThreadSync).
";

/// `file` as a PrimFunc named `main`; global buffers get `size` elements per dimension (TVM
/// checks no bounds; Stagecraft infers them again when it reads the function back).
pub fn print(file: &File) -> Result<String, Refusal> {
    let mut p = Printer::default();
    let mut top_loop = None;
    for s in &file.stmts {
        match &s.kind {
            StmtKind::Assign { target, value } => match (&target.kind, &value.kind) {
                (ExprKind::Name(name), ExprKind::Call { func, args }) if func.text == "alloc" => {
                    let (line, distributed) = alloc(name, args)?;
                    p.threads_left_out |= distributed;
                    p.allocs.push((name.to_string(), line));
                }
                _ => return Err("only allocations may stand outside the loop".into()),
            },
            StmtKind::Expr(Expr {
                kind: ExprKind::Call { func, args },
                ..
            }) if func.text == "annotate" || func.text.ends_with(".annotate") => p.annotate(args),
            StmtKind::For { .. } if top_loop.is_none() => top_loop = Some(s),
            StmtKind::Pass | StmtKind::Error => {}
            _ => return Err("one top-level loop, allocations and annotations only".into()),
        }
    }
    let top = top_loop.ok_or("there is no loop")?;
    p.collect_globals(top);
    p.place_allocations(top);
    let mut body = String::new();
    // Allocations no annotated loop uses stand in a root block, outside every pipeline: in the
    // block of a pipelined loop, one no statement touches stops TVM 0.27's pass
    // (`InternalError: unordered_map::at`).
    let outside: Vec<&(String, String)> = p
        .allocs
        .iter()
        .filter(|(name, _)| !p.owner.contains_key(name))
        .collect();
    let depth = if outside.is_empty() {
        1
    } else {
        body.push_str("    with T.sblock(\"root\"):\n");
        for (name, line) in &outside {
            if !p.used.contains(name) {
                let _ = writeln!(
                    body,
                    "        # `{name}` is never used: allocated outside the pipelined loop, where TVM's pass does not look"
                );
            }
            let _ = writeln!(body, "        {line}");
        }
        2
    };
    p.stmt(top, depth, &mut body)?;
    let mut out = String::from("from tvm.script import tirx as T\n\n");
    if p.threads_left_out {
        out.push_str(THREADS_LEFT_OUT);
    }
    out.push_str("\n@T.prim_func(s_tir=True)\n");
    let params: Vec<String> = p
        .globals
        .iter()
        .map(|(name, dims)| {
            let shape = vec!["1024"; *dims].join(", ");
            let shape = if *dims == 1 {
                format!("{shape},")
            } else {
                shape
            };
            format!("{name}: T.Buffer(({shape}), \"float32\")")
        })
        // A symbolic extent is a scalar parameter: TVM wants every variable defined.
        .chain(p.symbols.iter().map(|n| format!("{n}: T.int32")))
        .collect();
    let _ = writeln!(out, "def main({}):", params.join(", "));
    out.push_str(&body);
    let taken = |t: &str| {
        p.globals.contains_key(t)
            || p.symbols.iter().any(|s| s == t)
            || p.loop_vars.iter().any(|s| s == t)
            || p.allocs.iter().any(|(name, _)| name == t)
    };
    if !taken("T") {
        return Ok(out);
    }
    // The loop names something `T` (a buffer of tests/cases/nested_inner_async.py does): the
    // module gets another name.
    let module = ["Tx", "T_", "TIR"]
        .into_iter()
        .find(|t| !taken(t))
        .ok_or("the loop names its buffers T, Tx, T_ and TIR")?;
    Ok(renamed_module(&out, module).replacen(
        "import tirx as T\n",
        &format!("import tirx as {module}\n"),
        1,
    ))
}

/// `text` with the module `T` (every `T.` not the end of a longer name) called `module`.
fn renamed_module(text: &str, module: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut previous = ' ';
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let word_before = previous.is_ascii_alphanumeric() || previous == '_';
        if c == 'T' && rest.starts_with("T.") && !word_before {
            out.push_str(module);
            out.push('.');
            rest = rest.get(2..).unwrap_or("");
            previous = '.';
            continue;
        }
        out.push(c);
        previous = c;
        rest = rest.get(c.len_utf8()..).unwrap_or("");
    }
    out
}

#[derive(Default)]
struct Printer {
    /// Each allocated buffer and its `name = T.sblock_alloc_buffer(…)` line, in text order.
    allocs: Vec<(String, String)>,
    /// The annotated loop whose block allocates each buffer: the outermost (the first in the
    /// text) that uses it, so that TVM's pass versions it there, as `stagecraft::tvm` reproduces.
    owner: BTreeMap<String, String>,
    /// The allocated buffers the loop uses.
    used: Vec<String>,
    /// Annotations by loop variable: (key, value as printed).
    annotations: BTreeMap<String, Vec<(String, String)>>,
    /// Whether the loop declares threads or spreads a buffer over them, which the export leaves
    /// out (`THREADS_LEFT_OUT`).
    threads_left_out: bool,
    /// Buffers never allocated, with their number of dimensions.
    globals: BTreeMap<String, usize>,
    /// Free names of extents: symbolic sizes.
    symbols: Vec<String>,
    loop_vars: Vec<String>,
}

/// `name = alloc(…)` as a `T.sblock_alloc_buffer` line, and whether it spread the buffer over
/// threads (`threads=`, left out).
fn alloc(name: &str, args: &[Arg]) -> Result<(String, bool), Refusal> {
    let mut shape = None;
    let mut distributed = false;
    let mut scope = "shared".to_string();
    let mut dtype = "float32".to_string();
    for (k, a) in args.iter().enumerate() {
        match (a.name.as_ref().map(|n| n.text.as_str()), &a.value.kind) {
            (None, ExprKind::List(dims)) if k == 0 => shape = Some(dims.clone()),
            (Some("shape"), ExprKind::List(dims)) => shape = Some(dims.clone()),
            (None, ExprKind::Str(s)) if k == 1 => dtype = s.to_string(),
            (Some("dtype"), ExprKind::Str(s)) => dtype = s.to_string(),
            (None, ExprKind::Str(s)) if k == 2 => scope = s.to_string(),
            (Some("scope"), ExprKind::Str(s)) => scope = s.to_string(),
            (Some("threads"), _) => distributed = true,
            _ => {
                return Err(format!(
                    "`{name} = alloc(…)` has an argument TVMScript has no place for"
                ))
            }
        }
    }
    let dims = shape.ok_or_else(|| format!("`{name}` has no shape"))?;
    let dims: Vec<String> = dims.iter().map(crate::printer::print_expr).collect();
    let dims = if dims.len() == 1 {
        format!("{},", dims.join(", "))
    } else {
        dims.join(", ")
    };
    Ok((
        format!("{name} = T.sblock_alloc_buffer(({dims}), \"{dtype}\", scope=\"{scope}\")"),
        distributed,
    ))
}

impl Printer {
    fn annotate(&mut self, args: &[Arg]) {
        let mut var = None;
        let mut key = None;
        let mut value = None;
        for (k, a) in args.iter().enumerate() {
            match (a.name.as_ref().map(|n| n.text.as_str()), k) {
                (Some("loop" | "block_or_loop"), _) | (None, 0) => var = Some(&a.value),
                (Some("ann_key"), _) | (None, 1) => key = Some(&a.value),
                (Some("ann_val"), _) | (None, 2) => value = Some(&a.value),
                _ => {}
            }
        }
        if let (
            Some(Expr {
                kind: ExprKind::Name(var),
                ..
            }),
            Some(Expr {
                kind: ExprKind::Str(key),
                ..
            }),
            Some(value),
        ) = (var, key, value)
        {
            if [crate::lower::THREADS_KEY, crate::lower::WAVES_KEY].contains(&key.as_str()) {
                self.threads_left_out = true;
                return;
            }
            let entries = self.annotations.entry(var.to_string()).or_default();
            entries.retain(|(k, _)| k != key.as_str());
            entries.push((key.to_string(), crate::printer::print_expr(value)));
        }
    }

    fn is_pipelined(&self, var: &str) -> bool {
        self.annotations.get(var).is_some_and(|entries| {
            entries
                .iter()
                .any(|(k, _)| k == crate::schedule::STAGE_KEY || k == crate::schedule::ORDER_KEY)
        })
    }

    /// Which annotated loop's block allocates each buffer (`owner`), and which are used.
    fn place_allocations(&mut self, s: &Stmt) {
        let mut uses = Vec::new();
        buffers_used(s, &mut uses);
        self.used = self
            .allocs
            .iter()
            .map(|(name, _)| name.clone())
            .filter(|name| uses.contains(name))
            .collect();
        let mut loops = Vec::new();
        walk_stmt(s, &mut |_| {}, &mut |var, _| loops.push(var.to_string()));
        // `walk_stmt` meets loops in text order, an outer loop before the loops inside it.
        fn find<'a>(s: &'a Stmt, var: &str) -> Option<&'a Stmt> {
            match &s.kind {
                StmtKind::For { var: v, .. } if v.text.as_str() == var => Some(s),
                StmtKind::For { body, .. } | StmtKind::With { body, .. } => {
                    body.iter().find_map(|b| find(b, var))
                }
                StmtKind::If { body, orelse, .. } => {
                    body.iter().chain(orelse).find_map(|b| find(b, var))
                }
                _ => None,
            }
        }
        let pipelined: Vec<String> = loops.into_iter().filter(|v| self.is_pipelined(v)).collect();
        for var in &pipelined {
            let mut inside = Vec::new();
            if let Some(l) = find(s, var) {
                buffers_used(l, &mut inside);
            }
            for name in &self.used {
                if inside.contains(name) && !self.owner.contains_key(name) {
                    self.owner.insert(name.clone(), var.clone());
                }
            }
        }
    }

    fn collect_globals(&mut self, s: &Stmt) {
        let allocated: Vec<String> = self.allocs.iter().map(|(name, _)| name.clone()).collect();
        let mut loops = Vec::new();
        walk_stmt(
            s,
            &mut |e| {
                if let ExprKind::Subscript { base, indices } = &e.kind {
                    if !allocated.iter().any(|a| *a == base.text) {
                        self.globals
                            .entry(base.text.to_string())
                            .or_insert(indices.len());
                    }
                }
            },
            &mut |var, range| {
                loops.push(var.to_string());
                for r in range {
                    r.walk(&mut |e| {
                        if let ExprKind::Name(n) = &e.kind {
                            if !self.symbols.iter().any(|s| s == n.as_str()) {
                                self.symbols.push(n.to_string());
                            }
                        }
                    });
                }
            },
        );
        // A loop variable bound by an outer loop is no symbol.
        self.symbols.retain(|s| !loops.contains(s));
        self.loop_vars = loops;
    }

    fn stmt(&self, s: &Stmt, depth: usize, out: &mut String) -> Result<(), Refusal> {
        let pad = "    ".repeat(depth);
        match &s.kind {
            StmtKind::For { var, range, body } => {
                let (lo, hi) = match range.as_slice() {
                    [hi] => ("0".to_string(), self.index(hi)),
                    [lo, hi] => (self.index(lo), self.index(hi)),
                    _ => return Err("`range` takes one or two arguments".into()),
                };
                let annotations = self.annotations.get(var.text.as_str());
                let Some(annotations) = annotations else {
                    let _ = writeln!(out, "{pad}for {} in T.serial({lo}, {hi}):", var.text);
                    return self.body(body, depth + 1, out);
                };
                let dict: Vec<String> = annotations
                    .iter()
                    .map(|(k, v)| format!("\"{k}\": {v}"))
                    .collect();
                let _ = writeln!(
                    out,
                    "{pad}for {} in T.serial({lo}, {hi}, annotations={{{}}}):",
                    var.text,
                    dict.join(", ")
                );
                let _ = writeln!(out, "{pad}    with T.sblock():");
                for (name, line) in &self.allocs {
                    if self.owner.get(name) == Some(&var.text.to_string()) {
                        let _ = writeln!(out, "{pad}        {line}");
                    }
                }
                for child in body {
                    // An inner pipelined loop stands in the block itself, as in TVM's nested
                    // pipelines: the pass pipelines it first and counts its three parts.
                    let inner_pipeline = matches!(&child.kind, StmtKind::For { var, .. }
                        if self.annotations.contains_key(var.text.as_str()));
                    if inner_pipeline {
                        self.stmt(child, depth + 2, out)?;
                    } else {
                        let _ = writeln!(out, "{pad}        with T.sblock():");
                        self.stmt(child, depth + 3, out)?;
                    }
                }
                Ok(())
            }
            StmtKind::If { cond, body, orelse } => {
                let _ = writeln!(out, "{pad}if {}:", self.index(cond));
                self.body(body, depth + 1, out)?;
                if !orelse.is_empty() {
                    let _ = writeln!(out, "{pad}else:");
                    self.body(orelse, depth + 1, out)?;
                }
                Ok(())
            }
            StmtKind::Assign { target, value } => {
                let _ = writeln!(out, "{pad}{} = {}", self.index(target), self.value(value));
                Ok(())
            }
            StmtKind::Pass => {
                let _ = writeln!(out, "{pad}T.evaluate(0)");
                Ok(())
            }
            StmtKind::With { .. } => {
                Err("commit, async and wait scopes belong to pipelined programs, not to the loop TVM pipelines".into())
            }
            StmtKind::Expr(_) | StmtKind::Error => Err("a statement that does nothing".into()),
        }
    }

    fn body(&self, body: &[Stmt], depth: usize, out: &mut String) -> Result<(), Refusal> {
        if body.is_empty() {
            let _ = writeln!(out, "{}T.evaluate(0)", "    ".repeat(depth));
        }
        for s in body {
            self.stmt(s, depth, out)?;
        }
        Ok(())
    }

    /// An index expression or condition: Python's operators are TVMScript's; a conditional is
    /// `T.if_then_else`.
    fn index(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::IfElse {
                cond,
                then,
                otherwise,
            } => format!(
                "T.if_then_else({}, {}, {})",
                self.index(cond),
                self.index(then),
                self.index(otherwise)
            ),
            ExprKind::Subscript { base, indices } => {
                let idx: Vec<String> = indices.iter().map(|i| self.index(i)).collect();
                format!("{}[{}]", base.text, idx.join(", "))
            }
            ExprKind::Binary(op, l, r) => {
                format!("({} {} {})", self.index(l), op.symbol(), self.index(r))
            }
            ExprKind::Compare(op, l, r) => {
                format!("({} {} {})", self.index(l), op.symbol(), self.index(r))
            }
            ExprKind::Bool(op, l, r) => {
                let word = if *op == BoolOp::And { "and" } else { "or" };
                format!("({} {word} {})", self.index(l), self.index(r))
            }
            ExprKind::Not(x) => format!("(not {})", self.index(x)),
            ExprKind::Neg(x) => format!("(-{})", self.index(x)),
            ExprKind::Call { func, args } => {
                let a: Vec<String> = args.iter().map(|a| self.index(&a.value)).collect();
                format!("T.{}({})", func.text, a.join(", "))
            }
            _ => crate::printer::print_expr(e),
        }
    }

    /// A value: float32 throughout, its literals `T.float32(…)`, a loop variable cast.
    fn value(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Int(v) => format!("T.float32({v})"),
            ExprKind::Float(v) => format!("T.float32({})", print_float(*v)),
            ExprKind::Name(n) => format!("T.Cast(\"float32\", {n})"),
            ExprKind::Subscript { .. } => self.index(e),
            ExprKind::Neg(x) => format!("(-{})", self.value(x)),
            ExprKind::Binary(op, l, r) => {
                let op = if *op == BinOp::Div { "/" } else { op.symbol() };
                format!("({} {op} {})", self.value(l), self.value(r))
            }
            ExprKind::Call { func, args } => {
                let a: Vec<String> = args.iter().map(|a| self.value(&a.value)).collect();
                format!("T.{}({})", func.text, a.join(", "))
            }
            _ => crate::printer::print_expr(e),
        }
    }
}

/// The buffers a statement reads or writes (every subscripted name), each once.
fn buffers_used(s: &Stmt, out: &mut Vec<String>) {
    walk_stmt(
        s,
        &mut |e| {
            if let ExprKind::Subscript { base, .. } = &e.kind {
                if !out.iter().any(|n| n == base.text.as_str()) {
                    out.push(base.text.to_string());
                }
            }
        },
        &mut |_, _| {},
    );
}

fn walk_stmt(s: &Stmt, on_expr: &mut impl FnMut(&Expr), on_loop: &mut impl FnMut(&str, &[Expr])) {
    match &s.kind {
        StmtKind::For { var, range, body } => {
            on_loop(&var.text, range);
            for b in body {
                walk_stmt(b, on_expr, on_loop);
            }
        }
        StmtKind::If { cond, body, orelse } => {
            cond.walk(on_expr);
            for b in body.iter().chain(orelse) {
                walk_stmt(b, on_expr, on_loop);
            }
        }
        StmtKind::With { body, .. } => {
            for b in body {
                walk_stmt(b, on_expr, on_loop);
            }
        }
        StmtKind::Assign { target, value } => {
            target.walk(on_expr);
            value.walk(on_expr);
        }
        StmtKind::Expr(e) => e.walk(on_expr),
        StmtKind::Pass | StmtKind::Error => {}
    }
}
