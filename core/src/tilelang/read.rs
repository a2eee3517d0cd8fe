//! A TileLang kernel's tree (`parser::parse_tvmscript`, which also reads `with … as …`,
//! parameter defaults and `return`) translated into the loop language's: module-level and
//! factory-function constants substituted, the kernel's tensors global buffers, its allocations
//! top-level `alloc`s, `T.Kernel`'s block indices 0 (one thread block's pipeline), tile
//! operations element loops (`ops.rs`, `tiles.rs`) and a `T.Pipelined` loop a `range` loop with
//! its three annotations (`schedule.rs`).

use crate::diagnostic::{Diagnostic, Span};
use crate::parser::Parsed;
use crate::syntax::{Arg, Expr, ExprKind, File, Ident, Name, Stmt, StmtKind};
use std::collections::HashSet;

/// Where a buffer lives, which decides which copies TileLang pipelines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Memory {
    Global,
    Shared,
    Local,
}

pub(super) struct TileBuffer {
    pub name: Ident,
    pub shape: Option<Vec<i64>>,
    pub memory: Memory,
}

#[derive(Default)]
pub(super) struct Reader {
    pub diagnostics: Vec<Diagnostic>,
    /// Names with a constant value (`block_M = 4`, a factory's `block_K=4`), the innermost last;
    /// a block index (`bx`) is the constant 0.
    pub consts: Vec<(Ident, Expr)>,
    pub buffers: Vec<TileBuffer>,
    pub allocs: Vec<Stmt>,
    pub annotations: Vec<Stmt>,
    /// Every name the text uses: element loops get names none of these is.
    pub used: HashSet<Ident>,
    kernels: usize,
    /// Each `T.Pipelined` loop read: where it is, and its annotations.
    pub pipelined: Vec<(Span, Vec<Stmt>)>,
}

/// The kernel in `text` as the loop language's tree.
pub(crate) fn read(text: &str) -> Parsed {
    let parsed = crate::parser::parse_tvmscript(text);
    let mut reader = Reader::default();
    collect_names(&parsed.file.stmts, &mut reader.used);
    let body = reader.module(&parsed.file.stmts);
    let body = reader.pipelined_alone(body);
    if reader.kernels == 0 {
        reader.error(
            Span::new(0, 0),
            "this TileLang text has no kernel",
            "paste a `@T.prim_func` whose `def` holds `with T.Kernel(...)`",
        );
    }
    let mut stmts = std::mem::take(&mut reader.allocs);
    stmts.extend(body);
    stmts.append(&mut reader.annotations);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.append(&mut reader.diagnostics);
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    Parsed {
        file: File { stmts },
        diagnostics,
        unlisted: parsed.unlisted,
    }
}

fn collect_names(stmts: &[Stmt], used: &mut HashSet<Ident>) {
    fn expr(e: &Expr, used: &mut HashSet<Ident>) {
        match &e.kind {
            ExprKind::Name(n) => {
                used.insert(n.clone());
            }
            ExprKind::Subscript { base, indices } => {
                used.insert(base.text.clone());
                indices.iter().for_each(|i| expr(i, used));
            }
            ExprKind::List(items) => items.iter().for_each(|i| expr(i, used)),
            ExprKind::Call { args, .. } => args.iter().for_each(|a| expr(&a.value, used)),
            ExprKind::Neg(x) | ExprKind::Not(x) => expr(x, used),
            ExprKind::Binary(_, l, r) | ExprKind::Compare(_, l, r) | ExprKind::Bool(_, l, r) => {
                expr(l, used);
                expr(r, used);
            }
            ExprKind::IfElse {
                cond,
                then,
                otherwise,
            } => {
                expr(cond, used);
                expr(then, used);
                expr(otherwise, used);
            }
            _ => {}
        }
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                expr(target, used);
                expr(value, used);
            }
            StmtKind::Expr(e) => expr(e, used),
            StmtKind::For { var, range, body } => {
                used.insert(var.text.clone());
                range.iter().for_each(|r| expr(r, used));
                collect_names(body, used);
            }
            StmtKind::With { item, body } => {
                expr(item, used);
                collect_names(body, used);
            }
            StmtKind::If { cond, body, orelse } => {
                expr(cond, used);
                collect_names(body, used);
                collect_names(orelse, used);
            }
            StmtKind::Pass | StmtKind::Error => {}
        }
    }
}

/// The last part of a dotted callee (`T.copy` → `copy`).
pub(super) fn callee(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Call { func, .. } => Some(last_part(&func.text)),
        _ => None,
    }
}

pub(super) fn last_part(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// How a construct is quoted in a message: its callee, or its text's kind.
pub(super) fn construct_name(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Call { func, .. } => format!("{}(…)", func.text),
        ExprKind::Name(n) => n.to_string(),
        _ => "this expression".into(),
    }
}

fn is_def(s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::With { item, .. } if callee(item) == Some("def"))
}

fn contains_def(stmts: &[Stmt]) -> bool {
    stmts.iter().any(is_def)
}

/// A constant a name can stand for: a number or a string, or a name bound to one.
fn constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => true,
        ExprKind::Neg(x) => matches!(x.kind, ExprKind::Int(_) | ExprKind::Float(_)),
        _ => false,
    }
}

impl Reader {
    pub(super) fn error(&mut self, span: Span, message: impl Into<String>, hint: &str) {
        self.diagnostics
            .push(Diagnostic::error(span, message).with_hint(hint));
    }

    pub(super) fn unsupported(&mut self, span: Span, construct: &str) {
        self.error(
            span,
            format!("TileLang's `{construct}` has no meaning in Stagecraft"),
            "Stagecraft reads T.Kernel, T.alloc_shared / T.alloc_fragment / T.alloc_local, \
             T.clear, T.fill, T.copy, T.gemm, T.Pipelined, T.serial and element assignments \
             (docs/tilelang.md)",
        );
    }

    fn skipped(&mut self, span: Span, what: &str) {
        self.diagnostics.push(
            Diagnostic::warning(span, format!("{what} outside the kernel is not read")).with_hint(
                "Stagecraft reads constants, the `@T.prim_func` and the function that returns it",
            ),
        );
    }

    /// `name = value` outside a kernel (or a factory's parameter default): a constant, kept.
    fn bind_constant(&mut self, name: &Ident, value: &Expr) -> bool {
        let Some(v) = self.expr(value) else {
            return false;
        };
        if constant(&v) {
            self.consts.push((name.clone(), v));
            true
        } else {
            false
        }
    }

    /// The kernel's first pipelined loop alone, when it has one: the loop language pipelines
    /// one top-level loop, and what runs before it (`T.clear`) or after it (the epilogue's
    /// `T.copy`) is said in a note and left out; the tiles the loop reads first are then its
    /// inputs, and what it writes its outputs.
    fn pipelined_alone(&mut self, body: Vec<Stmt>) -> Vec<Stmt> {
        let inside =
            |outer: Span, inner: Span| inner.start >= outer.start && inner.end <= outer.end;
        let loops: Vec<Span> = self.pipelined.iter().map(|(at, _)| *at).collect();
        let holds_pipeline = |s: &Stmt| loops.iter().any(|at| inside(s.span, *at));
        let Some(first) = body.iter().find(|s| holds_pipeline(s)).map(|s| s.span) else {
            return body;
        };
        for (at, annotations) in std::mem::take(&mut self.pipelined) {
            if inside(first, at) {
                self.annotations.extend(annotations);
            }
        }
        let mut kept = Vec::with_capacity(1);
        for s in body {
            if s.span == first {
                kept.push(s);
                continue;
            }
            let (message, hint) = if holds_pipeline(&s) {
                (
                    "a second `T.Pipelined` loop: Stagecraft explores the kernel's first one",
                    "paste a kernel with this loop alone to explore it",
                )
            } else if s.span.start < first.start {
                (
                    "this runs before the pipelined loop, which Stagecraft explores alone: the tiles the loop reads before writing are its inputs",
                    "the loop's waits do not depend on it",
                )
            } else {
                (
                    "this runs after the pipelined loop, which Stagecraft explores alone: what the loop writes is its output",
                    "the loop's waits do not depend on it",
                )
            };
            self.diagnostics
                .push(Diagnostic::note(s.span, message).with_hint(hint));
        }
        kept
    }

    fn module(&mut self, stmts: &[Stmt]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            match &s.kind {
                StmtKind::Pass | StmtKind::Error => {}
                StmtKind::With { item, body } if callee(item) == Some("def") => {
                    out.extend(self.function(item, body));
                }
                StmtKind::Assign { target, value } => {
                    let bound = match &target.kind {
                        ExprKind::Name(n) => self.bind_constant(n, value),
                        _ => false,
                    };
                    if !bound {
                        self.skipped(s.span, "an assignment that is not a constant");
                    }
                }
                _ => self.skipped(s.span, "a statement"),
            }
        }
        out
    }

    /// A `def`: a factory when it holds another `def` (its parameters' defaults and its
    /// constants bind names; `return main` ends it), the kernel otherwise.
    fn function(&mut self, item: &Expr, body: &[Stmt]) -> Vec<Stmt> {
        let consts = self.consts.len();
        let header = item.span;
        let is_param = |s: &Stmt| s.span.start >= header.start && s.span.end <= header.end;
        let out = if contains_def(body) {
            let mut out = Vec::new();
            for s in body {
                match &s.kind {
                    StmtKind::With { item, body } if callee(item) == Some("def") => {
                        out.extend(self.function(item, body));
                    }
                    StmtKind::Assign { target, value } => {
                        if let ExprKind::Name(n) = &target.kind {
                            // A parameter without a default keeps its name (a symbol).
                            if !self.bind_constant(n, value) && !is_param(s) {
                                self.skipped(s.span, "an assignment that is not a constant");
                            }
                        }
                    }
                    StmtKind::Expr(e) if callee(e) == Some("return") => {}
                    StmtKind::Pass | StmtKind::Error => {}
                    _ => self.skipped(s.span, "a statement"),
                }
            }
            out
        } else {
            self.kernels += 1;
            if self.kernels > 1 {
                self.error(
                    header,
                    "a second kernel: Stagecraft explores one at a time",
                    "paste the kernels one by one",
                );
                Vec::new()
            } else {
                let (params, rest): (Vec<&Stmt>, Vec<&Stmt>) =
                    body.iter().partition(|s| is_param(s));
                for p in params {
                    self.parameter(p);
                }
                let rest: Vec<Stmt> = rest.into_iter().cloned().collect();
                self.block(&rest)
            }
        };
        self.consts.truncate(consts);
        out
    }

    /// `A: T.Tensor((M, K), dtype)` (or `T.Buffer`): a global buffer; a scalar parameter
    /// (`n: T.int32`) is a symbol.
    fn parameter(&mut self, p: &Stmt) {
        let StmtKind::Assign { target, value } = &p.kind else {
            return;
        };
        let ExprKind::Name(name) = &target.kind else {
            return;
        };
        let ExprKind::Call { func, args } = &value.kind else {
            return;
        };
        if !matches!(last_part(&func.text), "Tensor" | "Buffer" | "StridedTensor") {
            return;
        }
        let shape = args
            .first()
            .and_then(|a| self.expr(&a.value))
            .and_then(|s| match s.kind {
                ExprKind::List(items) => items
                    .iter()
                    .map(|d| match d.kind {
                        ExprKind::Int(v) => Some(v),
                        _ => None,
                    })
                    .collect::<Option<Vec<i64>>>(),
                ExprKind::Int(v) => Some(vec![v]),
                _ => None,
            });
        self.buffers.push(TileBuffer {
            name: name.clone(),
            shape,
            memory: Memory::Global,
        });
    }

    pub(super) fn block(&mut self, stmts: &[Stmt]) -> Vec<Stmt> {
        let consts = self.consts.len();
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            out.extend(self.stmt(s));
        }
        self.consts.truncate(consts);
        out
    }

    /// The loop-language statements one kernel statement becomes (none for a declaration).
    fn stmt(&mut self, s: &Stmt) -> Vec<Stmt> {
        match &s.kind {
            StmtKind::Pass | StmtKind::Error => Vec::new(),
            StmtKind::Assign { target, value } => match &target.kind {
                ExprKind::Name(name) => {
                    self.binding(name, target.span, value, s.span);
                    Vec::new()
                }
                _ => {
                    let (Some(target), Some(value)) = (self.expr(target), self.expr(value)) else {
                        return Vec::new();
                    };
                    vec![Stmt {
                        kind: StmtKind::Assign { target, value },
                        span: s.span,
                    }]
                }
            },
            StmtKind::For { var, range, body } => self.for_loop(var, range, body, s.span),
            StmtKind::With { item, body } => self.with(item, body),
            StmtKind::If { cond, body, orelse } => {
                let Some(cond) = self.expr(cond) else {
                    return Vec::new();
                };
                let body = self.block(body);
                let orelse = self.block(orelse);
                vec![Stmt {
                    kind: StmtKind::If { cond, body, orelse },
                    span: s.span,
                }]
            }
            StmtKind::Expr(e) => self.operation(e),
        }
    }

    /// `with T.Kernel(...) as (bx, by):` — one thread block's view: its indices are 0.
    fn with(&mut self, item: &Expr, body: &[Stmt]) -> Vec<Stmt> {
        let (launch, target) = match &item.kind {
            ExprKind::Call { func, args } if func.text == "as" => (
                args.first().map(|a| &a.value),
                args.get(1).map(|a| &a.value),
            ),
            _ => (Some(item), None),
        };
        let Some(launch) = launch else {
            return Vec::new();
        };
        if callee(launch) != Some("Kernel") {
            let construct = construct_name(launch);
            self.unsupported(launch.span, &format!("with {construct}"));
            return Vec::new();
        }
        let consts = self.consts.len();
        let names: Vec<&Expr> = match target.map(|t| &t.kind) {
            Some(ExprKind::List(items)) => items.iter().collect(),
            Some(_) => target.into_iter().collect(),
            None => Vec::new(),
        };
        for n in names {
            match &n.kind {
                ExprKind::Name(name) => self
                    .consts
                    .push((name.clone(), Expr::new(ExprKind::Int(0), n.span))),
                _ => self.error(
                    n.span,
                    "`T.Kernel` binds names to the block indices",
                    "with T.Kernel(T.ceildiv(N, 4), T.ceildiv(M, 4), threads=128) as (bx, by):",
                ),
            }
        }
        let out = self.block(body);
        self.consts.truncate(consts);
        out
    }

    /// `name = …` in the kernel: an allocation, or a constant.
    fn binding(&mut self, name: &Ident, name_span: Span, value: &Expr, span: Span) {
        if let ExprKind::Call { func, args } = &value.kind {
            let memory = match last_part(&func.text) {
                "alloc_shared" => Some(Memory::Shared),
                "alloc_fragment" | "alloc_local" => Some(Memory::Local),
                _ => None,
            };
            if let Some(memory) = memory {
                self.alloc(name, name_span, func, args, memory, span);
                return;
            }
        }
        if !self.bind_constant(name, value) {
            self.error(
                span,
                format!("`{name} = …`: Stagecraft reads a kernel's tiles and constants, not scalar variables"),
                "write the value where it is used, or allocate a tile: `X = T.alloc_fragment((4, 4), \"float32\")`",
            );
        }
    }

    fn alloc(
        &mut self,
        name: &Ident,
        name_span: Span,
        func: &Name,
        args: &[Arg],
        memory: Memory,
        span: Span,
    ) {
        let mut shape_arg = None;
        let mut dtype_arg = None;
        for (k, a) in args.iter().enumerate() {
            match (a.name.as_ref().map(|n| n.text.as_str()), k) {
                (None, 0) | (Some("shape"), _) => shape_arg = Some(&a.value),
                (None, 1) | (Some("dtype"), _) => dtype_arg = Some(&a.value),
                (Some("scope"), _) => {}
                (key, _) => {
                    let at = a
                        .name
                        .as_ref()
                        .map_or(a.value.span, |n| n.span.to(a.value.span));
                    self.unsupported(
                        at,
                        &format!(
                            "{}(…, {}…)",
                            func.text,
                            key.map_or(String::new(), |k| format!("{k}="))
                        ),
                    );
                    return;
                }
            }
        }
        let Some(shape_arg) = shape_arg else {
            self.error(
                span,
                format!("`{name}` needs a shape"),
                "T.alloc_shared((4, 4), \"float16\")",
            );
            return;
        };
        let Some(shape) = self.expr(shape_arg) else {
            return;
        };
        let dims: Vec<Expr> = match shape.kind {
            ExprKind::List(items) => items,
            _ => vec![shape],
        };
        let mut sizes = Vec::with_capacity(dims.len());
        for d in &dims {
            match d.kind {
                ExprKind::Int(v) => sizes.push(v),
                _ => {
                    let written = match &d.kind {
                        ExprKind::Name(n) => format!("`{n}`"),
                        _ => "this size".into(),
                    };
                    self.error(
                        d.span,
                        format!("the tile size {written} has no value: Stagecraft's tiles have constant sizes"),
                        "bind it above the kernel (`block_M = 4`) or give the factory's parameter a default (`block_M=4`)",
                    );
                    return;
                }
            }
        }
        let mut kept = vec![Arg {
            name: None,
            value: Expr::new(ExprKind::List(dims), shape_arg.span),
        }];
        if let Some(d) = dtype_arg.and_then(|d| self.dtype(d)) {
            kept.push(Arg {
                name: Some(Name {
                    text: Ident::from("dtype"),
                    span: d.span,
                }),
                value: d,
            });
        }
        let scope = if memory == Memory::Shared {
            "shared"
        } else {
            "local"
        };
        kept.push(Arg {
            name: Some(Name {
                text: Ident::from("scope"),
                span: func.span,
            }),
            value: Expr::new(ExprKind::Str(Ident::from(scope)), func.span),
        });
        self.buffers.push(TileBuffer {
            name: name.clone(),
            shape: Some(sizes),
            memory,
        });
        let call = ExprKind::Call {
            func: Name {
                text: Ident::from("alloc"),
                span: func.span,
            },
            args: kept,
        };
        self.allocs.push(Stmt {
            kind: StmtKind::Assign {
                target: Expr::new(ExprKind::Name(name.clone()), name_span),
                value: Expr::new(call, span),
            },
            span,
        });
    }

    /// A dtype as the loop language names it: `"float"` is float32, `T.float16` float16; a name
    /// with no value leaves the tile float32, said in a warning.
    fn dtype(&mut self, d: &Expr) -> Option<Expr> {
        let value = self.expr(d)?;
        let text = match &value.kind {
            ExprKind::Str(s) => s.to_string(),
            ExprKind::Name(n) if n.contains('.') => last_part(n).to_string(),
            ExprKind::Name(n) => {
                self.diagnostics.push(
                    Diagnostic::warning(
                        d.span,
                        format!("`{n}` has no value here: the tile is float32"),
                    )
                    .with_hint("bind it above the kernel: `dtype = \"float16\"`"),
                );
                return None;
            }
            _ => return Some(value),
        };
        let text = match text.as_str() {
            "float" => "float32",
            "half" => "float16",
            "double" => "float64",
            other => other,
        };
        Some(Expr::new(ExprKind::Str(Ident::from(text)), value.span))
    }

    fn for_loop(&mut self, var: &Name, range: &[Expr], body: &[Stmt], span: Span) -> Vec<Stmt> {
        let Some(over) = range.first() else {
            return Vec::new();
        };
        let ExprKind::Call { func, args } = &over.kind else {
            self.error(
                over.span,
                "a loop runs over `T.Pipelined(…)`, `T.serial(…)` or `range(…)`",
                "for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):",
            );
            return Vec::new();
        };
        let kind = last_part(&func.text);
        if kind == "Pipelined" {
            return self.pipelined(var, func, args, body, span);
        }
        if !matches!(
            kind,
            "serial"
                | "Serial"
                | "range"
                | "unroll"
                | "Unroll"
                | "vectorized"
                | "Vectorized"
                | "Parallel"
        ) {
            self.unsupported(func.span, &func.text);
            return Vec::new();
        }
        let mut bounds = Vec::with_capacity(2);
        for a in args {
            if let Some(n) = &a.name {
                self.unsupported(
                    n.span.to(a.value.span),
                    &format!("{}(…, {}=…)", func.text, n.text),
                );
                return Vec::new();
            }
            match self.expr(&a.value) {
                Some(b) => bounds.push(b),
                None => return Vec::new(),
            }
        }
        let most = if kind == "Parallel" { 1 } else { 2 };
        if bounds.is_empty() || bounds.len() > most {
            self.error(
                over.span,
                format!(
                    "`{}` takes {}",
                    func.text,
                    if most == 1 {
                        "one extent here"
                    } else {
                        "an extent, or a start and a stop"
                    }
                ),
                "for i in T.serial(4):",
            );
            return Vec::new();
        }
        let consts = self.consts.len();
        self.shadow(var);
        let body = self.block(body);
        self.consts.truncate(consts);
        vec![Stmt {
            kind: StmtKind::For {
                var: var.clone(),
                range: bounds,
                body,
            },
            span,
        }]
    }

    /// A loop variable hides a constant of its name inside the loop (until the caller truncates
    /// `consts` back).
    pub(super) fn shadow(&mut self, var: &Name) {
        let itself = Expr::new(ExprKind::Name(var.text.clone()), var.span);
        self.consts.push((var.text.clone(), itself));
    }

    pub(super) fn memory(&self, name: &str) -> Memory {
        self.buffers
            .iter()
            .rev()
            .find(|b| b.name == name)
            .map_or(Memory::Global, |b| b.memory)
    }
}
