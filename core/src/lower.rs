//! Name resolution: the syntax tree becomes an `ir::Program` (buffers, variables, resolved
//! accesses) plus the list of annotations. Used for the user's loop and for a hand-edited pipelined
//! program alike. Problems become diagnostics; the offending statement is left out.

use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{self, *};
use crate::limits;
pub use crate::lower_threads::{THREADS_KEY, WAVES_KEY};
use crate::syntax::Ident;
use crate::syntax::{self, BinOp, BoolOp, Expr, ExprKind, File, Name, Stmt, StmtKind};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Annotation {
    pub var: Ident,
    pub var_span: Span,
    pub key: Ident,
    pub key_span: Span,
    /// The value when it is a list of integers (all pipeline annotations are).
    pub values: Option<Vec<i64>>,
    pub value_span: Span,
    pub span: Span,
}

/// The annotation of `key` on the loop over `var` that takes effect: the last one written, as in
/// TVM, whose annotations are a map (`schedule::repeated_keys` warns on the others).
pub fn annotation_used<'a>(
    annotations: &'a [Annotation],
    var: &str,
    key: &str,
) -> Option<&'a Annotation> {
    annotations.iter().rfind(|a| a.var == var && a.key == key)
}

#[derive(Clone, Debug, Default)]
pub struct Lowered {
    pub program: Program,
    pub annotations: Vec<Annotation>,
    pub diagnostics: Vec<Diagnostic>,
    /// Span of each assignment, indexed by `StmtId`.
    pub stmt_spans: Vec<Span>,
}

pub fn lower(file: &File) -> Lowered {
    // Sized for a typical loop: growing these from empty, one by one, was a tenth of lowering.
    let top_level = file.stmts.len();
    let mut cx = Lowerer {
        program: Program {
            buffers: Vec::with_capacity(4),
            vars: Vec::with_capacity(2),
            body: Vec::new(),
            threads: None,
        },
        annotations: Vec::with_capacity(top_level),
        stmt_spans: Vec::with_capacity(8),
        scopes: Vec::with_capacity(2),
        ..Lowerer::default()
    };
    // Declarations first, so a buffer may be allocated below the loop that uses it.
    for s in &file.stmts {
        if let StmtKind::Assign { target, value } = &s.kind {
            if let (ExprKind::Name(name), ExprKind::Call { func, args }) =
                (&target.kind, &value.kind)
            {
                if func.text == "alloc" || func.text.ends_with(".alloc_buffer") {
                    cx.alloc(name, target.span, args, s.span);
                }
            }
        }
    }
    let mut body = Vec::with_capacity(top_level);
    for s in &file.stmts {
        match &s.kind {
            StmtKind::Assign { target, value }
                if matches!(target.kind, ExprKind::Name(_))
                    && matches!(&value.kind, ExprKind::Call { func, .. } if func.text == "alloc" || func.text.ends_with(".alloc_buffer")) =>
                {}
            StmtKind::Expr(Expr {
                kind: ExprKind::Call { func, args },
                span,
            }) if func.text == "annotate" || func.text.ends_with(".annotate") => {
                cx.annotate(args, *span);
            }
            _ => {
                if let Some(n) = cx.stmt(s) {
                    body.push(n);
                }
            }
        }
    }
    cx.program.body = body;
    cx.free_names_in_indices();
    cx.program.threads = crate::lower_threads::threads(
        &cx.annotations,
        std::mem::take(&mut cx.distributed),
        &mut cx.diagnostics,
    );
    Lowered {
        program: cx.program,
        annotations: cx.annotations,
        diagnostics: cx.diagnostics,
        stmt_spans: cx.stmt_spans,
    }
}

#[derive(Default)]
struct Lowerer {
    program: Program,
    annotations: Vec<Annotation>,
    diagnostics: Vec<Diagnostic>,
    stmt_spans: Vec<Span>,
    scopes: Vec<(Ident, VarId)>,
    /// Lowering a loop's bounds: a free name there is a symbolic extent.
    in_extent: bool,
    /// The parameters some loop runs to (or from): symbolic extents.
    extents: Vec<VarId>,
    /// Where each parameter is first used outside a loop's bounds.
    uses: Vec<(VarId, Span)>,
    /// Buffers declared with a distribution over threads: name, where, which.
    distributed: Vec<(String, Span, Distribution)>,
    /// Each implicit global's first access: how many indices it has, and where it is.
    first_rank: Vec<(BufId, usize, Span)>,
}

impl Lowerer {
    fn err(&mut self, span: Span, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic::error(span, message));
    }

    fn alloc(&mut self, name: &str, name_span: Span, args: &[syntax::Arg], span: Span) {
        if self.program.buffer_id(name).is_some() {
            self.diagnostics.push(
                Diagnostic::error(name_span, format!("`{name}` is allocated twice"))
                    .with_hint("give the second buffer another name"),
            );
            return;
        }
        let mut shape = None;
        let mut scope = Scope::Shared;
        let mut dtype = DType::Float32;
        let mut versions = 1u32;
        let mut threads = Distribution::Each;
        for (i, a) in args.iter().enumerate() {
            let key = a.name.as_ref().map(|n| n.text.as_str());
            match (key, i) {
                (None, 0) | (Some("shape"), _) => {
                    let items: Vec<&Expr> = match &a.value.kind {
                        ExprKind::List(items) => items.iter().collect(),
                        ExprKind::Int(_) => vec![&a.value],
                        _ => {
                            self.err(
                                a.value.span,
                                "the shape is a list of integers, like `[2, 16]`",
                            );
                            return;
                        }
                    };
                    let mut dims = Vec::new();
                    for it in items {
                        match it.kind {
                            ExprKind::Int(v) if v > 0 && v <= limits::MAX_BUFFER_ELEMENTS => {
                                dims.push(v)
                            }
                            _ => {
                                self.diagnostics.push(
                                    Diagnostic::error(
                                        it.span,
                                        "each dimension is a positive integer constant",
                                    )
                                    .with_hint(format!(
                                        "at most {} elements",
                                        limits::MAX_BUFFER_ELEMENTS
                                    )),
                                );
                                return;
                            }
                        }
                    }
                    let total = dims.iter().try_fold(1i64, |acc, d| acc.checked_mul(*d));
                    if dims.is_empty() || total.is_none_or(|t| t > limits::MAX_BUFFER_ELEMENTS) {
                        self.diagnostics.push(Diagnostic::error(
                            a.value.span,
                            format!(
                                "`{name}` must have between 1 and {} elements",
                                limits::MAX_BUFFER_ELEMENTS
                            ),
                        ));
                        return;
                    }
                    shape = Some(dims);
                }
                (Some("scope"), _) | (None, 2) => match &a.value.kind {
                    ExprKind::Str(s) => {
                        scope = match s.as_str() {
                            "global" => Scope::Global,
                            "shared" | "shared.dyn" => Scope::Shared,
                            "local" | "register" | "warp" => Scope::Local,
                            _ => {
                                self.diagnostics.push(
                                    Diagnostic::error(
                                        a.value.span,
                                        format!("unknown scope \"{s}\""),
                                    )
                                    .with_hint("use \"global\", \"shared\" or \"local\""),
                                );
                                Scope::Shared
                            }
                        }
                    }
                    _ => self.err(a.value.span, "the scope is a string such as \"shared\""),
                },
                (Some("dtype"), _) | (None, 1) => match &a.value.kind {
                    ExprKind::Str(s) => match DType::parse(s) {
                        Some(d) => dtype = d,
                        None => {
                            let all: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
                            self.diagnostics.push(
                                Diagnostic::error(a.value.span, format!("unknown dtype \"{s}\""))
                                    .with_hint(format!("one of {}", all.join(", "))),
                            );
                        }
                    },
                    _ => self.err(a.value.span, "the dtype is a string such as \"float32\""),
                },
                (Some("versions"), _) => match a.value.kind {
                    ExprKind::Int(v) if (1..=64).contains(&v) => versions = v as u32,
                    _ => self.err(a.value.span, "versions is an integer between 1 and 64"),
                },
                (Some("threads"), _) => {
                    if let Some(d) =
                        crate::lower_threads::distribution(&a.value, &mut self.diagnostics)
                    {
                        threads = d;
                        self.distributed.push((name.to_string(), a.value.span, d));
                    }
                }
                (Some(other), _) => {
                    let span = a.name.as_ref().map_or(a.value.span, |n| n.span);
                    self.diagnostics.push(
                        Diagnostic::error(span, format!("`alloc` has no argument `{other}`"))
                            .with_hint("alloc([shape], scope=\"shared\", dtype=\"float32\")"),
                    );
                }
                (None, _) => self.err(a.value.span, "too many arguments to `alloc`"),
            }
        }
        let Some(shape) = shape else {
            self.diagnostics.push(
                Diagnostic::error(span, format!("`{name}` needs a shape"))
                    .with_hint(format!("{name} = alloc([1])")),
            );
            return;
        };
        if versions > 1 && shape.first() != Some(&i64::from(versions)) {
            self.err(
                span,
                format!("a buffer with versions={versions} has {versions} as its first dimension"),
            );
        }
        self.program.buffers.push(Buffer {
            name: Ident::from(name),
            shape: Some(shape),
            scope,
            dtype,
            versions,
            span: name_span,
            declared: true,
            threads,
        });
    }

    fn annotate(&mut self, args: &[syntax::Arg], span: Span) {
        let mut var = None;
        let mut key = None;
        let mut value = None;
        for (i, a) in args.iter().enumerate() {
            match (a.name.as_ref().map(|n| n.text.as_str()), i) {
                (Some("loop") | Some("block_or_loop"), _) | (None, 0) => var = Some(&a.value),
                (Some("ann_key"), _) | (None, 1) => key = Some(&a.value),
                (Some("ann_val"), _) | (None, 2) => value = Some(&a.value),
                _ => {
                    self.diagnostics.push(
                        Diagnostic::error(a.value.span, "unexpected argument to `annotate`")
                            .with_hint("sch.annotate(i, \"software_pipeline_stage\", [0, 1])"),
                    );
                    return;
                }
            }
        }
        let (Some(var), Some(key), Some(value)) = (var, key, value) else {
            self.diagnostics.push(
                Diagnostic::error(span, "`annotate` takes a loop, a key and a value")
                    .with_hint("sch.annotate(i, \"software_pipeline_stage\", [0, 1])"),
            );
            return;
        };
        let ExprKind::Name(var_name) = &var.kind else {
            self.err(
                var.span,
                "the first argument of `annotate` is the loop variable, like `i`",
            );
            return;
        };
        let ExprKind::Str(key_text) = &key.kind else {
            self.err(
                key.span,
                "the annotation key is a string, like \"software_pipeline_stage\"",
            );
            return;
        };
        let values = match &value.kind {
            ExprKind::List(items) => items
                .iter()
                .map(|e| match e.kind {
                    ExprKind::Int(v) => Some(v),
                    ExprKind::Neg(ref x) => match x.kind {
                        ExprKind::Int(v) => Some(-v),
                        _ => None,
                    },
                    _ => None,
                })
                .collect::<Option<Vec<i64>>>(),
            _ => None,
        };
        self.annotations.push(Annotation {
            var: var_name.clone(),
            var_span: var.span,
            key: key_text.clone(),
            key_span: key.span,
            values,
            value_span: value.span,
            span,
        });
    }

    fn block(&mut self, stmts: &[Stmt]) -> Vec<Node> {
        stmts.iter().filter_map(|s| self.stmt(s)).collect()
    }

    fn stmt(&mut self, s: &Stmt) -> Option<Node> {
        match &s.kind {
            StmtKind::Assign { target, value } => self.assign_stmt(s, target, value),
            StmtKind::For { var, range, body } => self.for_stmt(s, var, range, body),
            StmtKind::With { item, body } => self.with_stmt(s, item, body),
            StmtKind::If { cond, body, orelse } => self.if_stmt(s, cond, body, orelse),
            StmtKind::Expr(Expr {
                kind: ExprKind::Call { func, args },
                span,
            }) if func.text == "barrier" && args.is_empty() => Some(Node::Barrier {
                reasons: Vec::new(),
                span: *span,
            }),
            StmtKind::Expr(e) => {
                self.diagnostics.push(
                    Diagnostic::error(e.span, "this expression does nothing")
                        .with_hint("statements assign to a buffer element: `B[i] = ...`"),
                );
                None
            }
            StmtKind::Pass | StmtKind::Error => None,
        }
    }

    /// `B[...] = value`: one statement of the program, numbered, within `MAX_STATEMENTS`.
    fn assign_stmt(&mut self, s: &Stmt, target: &Expr, value: &Expr) -> Option<Node> {
        let ExprKind::Subscript { base, indices } = &target.kind else {
            self.diagnostics.push(
                Diagnostic::error(
                    target.span,
                    "only buffer elements can be assigned inside the program",
                )
                .with_hint("write `B[0] = ...`; allocate buffers at the top level with `alloc`"),
            );
            return None;
        };
        let target = self.access(base, indices, target.span)?;
        let value = self.value(value)?;
        if self.stmt_spans.len() >= limits::MAX_STATEMENTS {
            if self.stmt_spans.len() == limits::MAX_STATEMENTS {
                self.diagnostics.push(Diagnostic::error(
                    s.span,
                    format!(
                        "more than {} statements; the rest are ignored",
                        limits::MAX_STATEMENTS
                    ),
                ));
                self.stmt_spans.push(s.span);
            }
            return None;
        }
        let stmt = self.stmt_spans.len() as StmtId;
        self.stmt_spans.push(s.span);
        Some(Node::Assign(ir::Assign {
            stmt,
            iteration: None,
            target,
            value,
            span: s.span,
        }))
    }

    fn for_stmt(&mut self, s: &Stmt, var: &Name, range: &[Expr], body: &[Stmt]) -> Option<Node> {
        self.in_extent = true;
        let bounds = match range {
            [hi] => self.index(hi).map(|hi| (IExpr::Const(0), hi)),
            [lo, hi] => self.index(lo).zip(self.index(hi)),
            _ => None,
        };
        self.in_extent = false;
        let (lo, hi) = bounds?;
        let id = self.program.vars.len() as VarId;
        self.program.vars.push(Var {
            name: var.text.clone(),
            kind: VarKind::Loop,
        });
        self.scopes.push((var.text.clone(), id));
        let body = self.block(body);
        self.scopes.pop();
        Some(Node::For {
            var: id,
            lo,
            hi,
            body,
            span: s.span,
        })
    }

    /// `with async_commit_queue(q):`, `async_scope()`, `async_stage(q)` or
    /// `async_wait_queue(q, n)`.
    fn with_stmt(&mut self, s: &Stmt, item: &Expr, body: &[Stmt]) -> Option<Node> {
        let ExprKind::Call { func, args } = &item.kind else {
            self.unknown_with(item.span);
            return None;
        };
        let positional: Vec<&Expr> = args.iter().map(|a| &a.value).collect();
        let const_arg = |cx: &mut Lowerer, e: Option<&&Expr>, what: &str| -> Option<i64> {
            match e.map(|e| &e.kind) {
                Some(ExprKind::Int(v)) => Some(*v),
                _ => {
                    cx.err(
                        item.span,
                        format!("the {what} of `{}` is an integer constant", func.text),
                    );
                    None
                }
            }
        };
        match func.text.as_str() {
            "async_commit_queue" => {
                let queue = const_arg(self, positional.first(), "queue")?;
                let body = self.block(body);
                Some(Node::Commit {
                    queue,
                    body,
                    span: s.span,
                })
            }
            "async_scope" => Some(Node::AsyncScope {
                body: self.block(body),
                span: s.span,
            }),
            // The review's shorthand: one group of queue `q` whose writes are asynchronous.
            "async_stage" => {
                let queue = const_arg(self, positional.first(), "queue")?;
                let body = self.block(body);
                Some(Node::Commit {
                    queue,
                    body: vec![Node::AsyncScope { body, span: s.span }],
                    span: s.span,
                })
            }
            "async_wait_queue" => {
                let queue = const_arg(self, positional.first(), "queue")?;
                let Some(count_expr) = positional.get(1) else {
                    self.err(item.span, "`async_wait_queue(queue, count)` needs a count");
                    return None;
                };
                let count = self.index(count_expr)?;
                let body = self.block(body);
                Some(Node::Wait {
                    queue,
                    count,
                    body,
                    wait: None,
                    span: s.span,
                })
            }
            _ => {
                self.unknown_with(item.span);
                None
            }
        }
    }

    fn if_stmt(&mut self, s: &Stmt, cond: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Option<Node> {
        let cond = self.cond(cond)?;
        let then = self.block(body);
        if orelse.is_empty() {
            return Some(Node::If {
                cond,
                body: then,
                span: s.span,
            });
        }
        // `else` is the guard's negation (conditions compare indices, which the branch
        // cannot change); the pair stays one node, so one statement of a pipelined loop.
        let otherwise = self.block(orelse);
        let else_span = orelse.first().map_or(s.span, |f| f.span.to(s.span));
        Some(Node::If {
            cond: Cond::True,
            body: vec![
                Node::If {
                    cond: cond.clone(),
                    body: then,
                    span: s.span,
                },
                Node::If {
                    cond: Cond::Not(Box::new(cond)),
                    body: otherwise,
                    span: else_span,
                },
            ],
            span: s.span,
        })
    }

    /// A free name in an index (`A[j]` with no loop over `j`) is a typo unless some loop runs to
    /// it: only symbolic extents are parameters.
    fn free_names_in_indices(&mut self) {
        for (id, span) in std::mem::take(&mut self.uses) {
            if self.extents.contains(&id) {
                continue;
            }
            let name = self.program.var_name(id).to_string();
            let loops = self.program.loop_names();
            let hint = if loops.is_empty() {
                "an index uses loop variables, and sizes some loop runs to (`for i in range(N)`)"
                    .to_string()
            } else {
                format!(
                    "the loop variables are {}; a size in an index is also some loop's extent (`for i in range(N)`)",
                    loops
                        .iter()
                        .map(|l| format!("`{l}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            self.diagnostics.push(
                Diagnostic::error(
                    span,
                    format!("`{name}` is neither a loop variable here nor a symbolic extent"),
                )
                .with_hint(hint),
            );
        }
    }

    fn unknown_with(&mut self, span: Span) {
        self.diagnostics
            .push(Diagnostic::error(span, "unknown `with` scope").with_hint(
                "the scopes are async_commit_queue(q), async_scope(), async_stage(q) (the two together) and async_wait_queue(q, n)",
            ));
    }

    fn lookup_var(&mut self, name: &str, span: Span) -> VarId {
        if let Some((_, id)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return *id;
        }
        let id = match self
            .program
            .vars
            .iter()
            .position(|v| v.kind == VarKind::Param && v.name == name)
        {
            Some(i) => i as VarId,
            None => {
                let id = self.program.vars.len() as VarId;
                self.program.vars.push(Var {
                    name: Ident::from(name),
                    kind: VarKind::Param,
                });
                id
            }
        };
        if self.in_extent {
            if !self.extents.contains(&id) {
                self.extents.push(id);
            }
        } else if !self.uses.iter().any(|(u, _)| *u == id) {
            self.uses.push((id, span));
        }
        id
    }

    fn access(&mut self, base: &syntax::Name, indices: &[Expr], span: Span) -> Option<Access> {
        if self.scopes.iter().any(|(n, _)| *n == base.text) {
            self.diagnostics.push(Diagnostic::error(
                base.span,
                format!("`{}` is a loop variable, not a buffer", base.text),
            ));
            return None;
        }
        let buffer = match self.program.buffer_id(&base.text) {
            Some(b) => b,
            None => {
                self.program.buffers.push(Buffer {
                    name: base.text.clone(),
                    shape: None,
                    scope: Scope::Global,
                    dtype: DType::Float32,
                    versions: 1,
                    span: base.span,
                    declared: false,
                    threads: Distribution::Each,
                });
                (self.program.buffers.len() - 1) as BufId
            }
        };
        let indices = indices
            .iter()
            .map(|e| self.index(e))
            .collect::<Option<Vec<_>>>()?;
        if let Some(Some(shape)) = self.program.buffer(buffer).map(|b| b.shape.as_ref()) {
            if shape.len() != indices.len() {
                self.diagnostics.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "`{}` has {} dimensions but is indexed with {}",
                            base.text,
                            shape.len(),
                            indices.len()
                        ),
                    )
                    .with_related(
                        self.program
                            .buffers
                            .get(buffer as usize)
                            .map_or(span, |b| b.span),
                        "declared here",
                    ),
                );
                return None;
            }
        } else if !self.same_rank_as_first_use(buffer, &base.text, indices.len(), span) {
            return None;
        }
        Some(Access {
            buffer,
            indices,
            span,
        })
    }

    /// Whether an implicit global's access has as many indices as its first (in text order): a
    /// buffer has one number of dimensions. Its shape is inferred from its accesses (the
    /// interpreter's memory), which mixed numbers of indices would make depend on the order the
    /// accesses run in — another in the pipelined program than in the loop.
    fn same_rank_as_first_use(
        &mut self,
        buffer: BufId,
        name: &str,
        rank: usize,
        span: Span,
    ) -> bool {
        let Some(&(_, first, at)) = self.first_rank.iter().find(|(b, _, _)| *b == buffer) else {
            self.first_rank.push((buffer, rank, span));
            return true;
        };
        if first == rank {
            return true;
        }
        let indices = |n: usize| {
            if n == 1 {
                "1 index".to_string()
            } else {
                format!("{n} indices")
            }
        };
        self.diagnostics.push(
            Diagnostic::error(
                span,
                format!(
                    "`{name}` is indexed with {} here but with {} where it is first used",
                    indices(rank),
                    indices(first)
                ),
            )
            .with_hint(format!("a buffer has one number of dimensions: index `{name}` the same way everywhere, or name the other one differently"))
            .with_related(at, "first used here"),
        );
        false
    }

    fn index(&mut self, e: &Expr) -> Option<IExpr> {
        let bin = |cx: &mut Lowerer, op, a: &Expr, b: &Expr| {
            Some(IExpr::bin(op, cx.index(a)?, cx.index(b)?))
        };
        match &e.kind {
            ExprKind::Int(v) => Some(IExpr::Const(*v)),
            ExprKind::Name(n) => Some(IExpr::Var(self.lookup_var(n, e.span))),
            ExprKind::Neg(x) => Some(IExpr::bin(IOp::Sub, IExpr::Const(0), self.index(x)?)),
            ExprKind::Binary(op, a, b) => match op {
                BinOp::Add => bin(self, IOp::Add, a, b),
                BinOp::Sub => bin(self, IOp::Sub, a, b),
                BinOp::Mul => bin(self, IOp::Mul, a, b),
                BinOp::FloorDiv => bin(self, IOp::FloorDiv, a, b),
                BinOp::Mod => bin(self, IOp::Mod, a, b),
                BinOp::Div => {
                    self.diagnostics.push(
                        Diagnostic::error(e.span, "indices are integers; `/` divides values")
                            .with_hint("use `//` for integer division"),
                    );
                    None
                }
            },
            ExprKind::Call { func, args }
                if matches!(func.text.as_str(), "min" | "max") && args.len() == 2 =>
            {
                let op = if func.text == "min" {
                    IOp::Min
                } else {
                    IOp::Max
                };
                let (a, b) = (args.first()?, args.get(1)?);
                bin(self, op, &a.value, &b.value)
            }
            ExprKind::IfElse {
                cond,
                then,
                otherwise,
            } => {
                let c = self.cond(cond)?;
                Some(IExpr::Select(Box::new((
                    c,
                    self.index(then)?,
                    self.index(otherwise)?,
                ))))
            }
            ExprKind::Float(_) => {
                self.err(e.span, "indices are integers");
                None
            }
            ExprKind::Subscript { base, .. } => {
                self.diagnostics.push(
                    Diagnostic::error(
                        e.span,
                        format!("an index cannot read a buffer (`{}`)", base.text),
                    )
                    .with_hint("indices are affine in the loop variables, like `2 * i + k`"),
                );
                None
            }
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(e.span, format!("{} is not an index", what_it_is(e)))
                        .with_hint("indices are affine in the loop variables, like `2 * i + k`"),
                );
                None
            }
        }
    }

    fn cond(&mut self, e: &Expr) -> Option<Cond> {
        match &e.kind {
            ExprKind::Compare(op, a, b) => {
                let op = match op {
                    syntax::CmpOp::Lt => CmpOp::Lt,
                    syntax::CmpOp::Le => CmpOp::Le,
                    syntax::CmpOp::Gt => CmpOp::Gt,
                    syntax::CmpOp::Ge => CmpOp::Ge,
                    syntax::CmpOp::Eq => CmpOp::Eq,
                    syntax::CmpOp::Ne => CmpOp::Ne,
                };
                Some(Cond::Cmp(op, self.index(a)?, self.index(b)?))
            }
            ExprKind::Bool(op, a, b) => {
                let (a, b) = (Box::new(self.cond(a)?), Box::new(self.cond(b)?));
                Some(if *op == BoolOp::And {
                    Cond::And(a, b)
                } else {
                    Cond::Or(a, b)
                })
            }
            ExprKind::Not(x) => Some(Cond::Not(Box::new(self.cond(x)?))),
            ExprKind::Name(n) if n == "True" => Some(Cond::True),
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(e.span, "a condition compares indices")
                        .with_hint("like `i >= 1 and i - 1 < 16`"),
                );
                None
            }
        }
    }

    fn value(&mut self, e: &Expr) -> Option<VExpr> {
        match &e.kind {
            ExprKind::Int(v) => Some(VExpr::Lit(*v as f64)),
            ExprKind::Float(v) => Some(VExpr::Lit(*v)),
            ExprKind::Subscript { base, indices } => {
                Some(VExpr::Read(self.access(base, indices, e.span)?))
            }
            ExprKind::Name(n) => {
                if let Some((_, id)) = self.scopes.iter().rev().find(|(name, _)| name == n) {
                    return Some(VExpr::Index(IExpr::Var(*id)));
                }
                let hint = if self.program.buffer_id(n).is_some() {
                    format!("read an element: `{n}[0]`")
                } else {
                    format!("allocate it (`{n} = alloc([1])`) or index it like a global buffer (`{n}[i]`)")
                };
                self.diagnostics.push(
                    Diagnostic::error(
                        e.span,
                        format!("`{n}` is neither a buffer element nor a loop variable"),
                    )
                    .with_hint(hint),
                );
                None
            }
            ExprKind::Neg(x) => Some(VExpr::Neg(Box::new(self.value(x)?))),
            ExprKind::Binary(op, a, b) => {
                let op = match op {
                    BinOp::Add => VOp::Add,
                    BinOp::Sub => VOp::Sub,
                    BinOp::Mul => VOp::Mul,
                    BinOp::Div => VOp::Div,
                    BinOp::FloorDiv | BinOp::Mod => {
                        self.diagnostics.push(
                            Diagnostic::error(
                                e.span,
                                "`//` and `%` are index operators, not value operators",
                            )
                            .with_hint("values use + - * / and max, min, fma, abs"),
                        );
                        return None;
                    }
                };
                Some(VExpr::bin(op, self.value(a)?, self.value(b)?))
            }
            ExprKind::Call { func, args } => {
                let Some(f) = Func::parse(&func.text) else {
                    self.diagnostics.push(
                        Diagnostic::error(func.span, format!("unknown function `{}`", func.text))
                            .with_hint(
                                "the functions are max(a, b), min(a, b), fma(a, b, c) and abs(a)",
                            ),
                    );
                    return None;
                };
                if args.len() != f.arity() || args.iter().any(|a| a.name.is_some()) {
                    self.err(
                        e.span,
                        format!("`{}` takes {} positional arguments", f.name(), f.arity()),
                    );
                    return None;
                }
                let args = args
                    .iter()
                    .map(|a| self.value(&a.value))
                    .collect::<Option<Vec<_>>>()?;
                Some(VExpr::Call(f, args))
            }
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(e.span, format!("{} is not a value", what_it_is(e)))
                        .with_hint(
                            "a statement writes one number: read elements (`A[i]`) and combine \
                             them with + - * / and max, min, fma, abs",
                        ),
                );
                None
            }
        }
    }
}

/// What an expression that is neither an index nor a value is, for the error that refuses it.
fn what_it_is(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::List(_) => "a list or tuple",
        ExprKind::Str(_) => "a string",
        ExprKind::Compare(..) | ExprKind::Bool(..) | ExprKind::Not(_) => "a condition",
        ExprKind::IfElse { .. } => "a conditional expression",
        ExprKind::Call { .. } => "this call",
        _ => "this",
    }
}
