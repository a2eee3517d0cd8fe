//! A PrimFunc's tree (`parser::parse_tvmscript`) translated into the loop language's: parameters
//! and `T.match_buffer` are global buffers, `T.alloc_buffer` / `T.sblock_alloc_buffer` top-level
//! `alloc`s, blocks their bodies (a `T.where` the guard of what follows it), a loop's
//! `annotations={...}` one `annotate` per entry, TVM's functions the language's operators.
//! Every node keeps its span in the pasted text; what has no meaning here is a located error
//! naming the construct.

use super::scopes::{is_block, AnnotationEntry, Level, ThreadBinding, TvmScopes};
use crate::diagnostic::{Diagnostic, Span};
use crate::parser::Parsed;
use crate::syntax::{Arg, BinOp, Expr, ExprKind, File, Ident, Name, Stmt, StmtKind};

/// The PrimFunc in `text` as the loop language's tree, and where its blocks put what TVM's pass
/// cares about (`TvmScopes`).
pub(super) fn read(text: &str) -> (Parsed, TvmScopes) {
    let parsed = crate::parser::parse_tvmscript(text);
    let mut reader = Reader::default();
    let mut functions = 0usize;
    let mut outside = Vec::new();
    let mut body = Vec::new();
    for s in parsed.file.stmts {
        match s.kind {
            StmtKind::Pass | StmtKind::Error => {}
            StmtKind::With { item, body: inner } if callee(&item) == Some("def") => {
                functions += 1;
                if functions > 1 {
                    reader.error(
                        item.span,
                        "a second PrimFunc: Stagecraft explores one at a time",
                        "paste the functions one by one",
                    );
                    continue;
                }
                body = reader.block(&inner);
            }
            // `sch.annotate(i, ...)` after the function, as TVM's tests schedule it.
            _ => outside.push(s),
        }
    }
    if functions == 0 {
        reader.error(
            Span::new(0, 0),
            "this TVMScript has no `def`",
            "paste a whole `@T.prim_func`, decorator and `def` included",
        );
    }
    let mut stmts = reader.allocs;
    stmts.append(&mut body);
    stmts.append(&mut reader.annotations);
    stmts.append(&mut outside);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.append(&mut reader.diagnostics);
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    let parsed = Parsed {
        file: File { stmts },
        diagnostics,
        unlisted: parsed.unlisted,
    };
    (parsed, reader.scopes)
}

#[derive(Default)]
struct Reader {
    diagnostics: Vec<Diagnostic>,
    /// The buffers allocated anywhere in the function, as top-level `alloc`s.
    allocs: Vec<Stmt>,
    /// One `annotate(var, key, value)` per entry of a loop's `annotations`.
    annotations: Vec<Stmt>,
    /// Block axes (`vi = T.axis.spatial(16, i)`) and renamed loop variables, innermost last.
    names: Vec<(Ident, Expr)>,
    /// Every loop variable so far, and those of annotated loops (`loop_name`).
    loop_names: Vec<Ident>,
    annotated_names: Vec<Ident>,
    /// Where each allocation, thread binding and double-buffer attribute is.
    scopes: TvmScopes,
    /// One entry per statement list being read: whose pipeline an allocation met there joins.
    levels: Vec<Level>,
    /// Set by a loop whose body is one block, for that block: the loop's own block, and the
    /// loop's name when it is annotated (its allocations are the pipeline's).
    loop_block: Option<Option<Ident>>,
}

/// The last part of a dotted callee (`T.serial` → `serial`), whatever the module is called
/// (`T`, `Ts`, `tir`).
fn callee(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Call { func, .. } => Some(last_part(&func.text)),
        _ => None,
    }
}

fn last_part(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

const DTYPES: [&str; 12] = [
    "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
    "uint16", "uint32", "bool",
];

impl Reader {
    fn error(&mut self, span: Span, message: impl Into<String>, hint: &str) {
        self.diagnostics
            .push(Diagnostic::error(span, message).with_hint(hint));
    }

    fn unsupported(&mut self, span: Span, construct: &str) {
        self.error(
            span,
            format!("TVMScript's `{construct}` has no meaning in Stagecraft"),
            "Stagecraft reads buffers, loops (T.serial, range, T.thread_binding), blocks, \
             T.where, assignments and T.float32 / T.FloorMod / T.floordiv / T.if_then_else / \
             T.Cast (docs/tvm.md)",
        );
    }

    fn block(&mut self, stmts: &[Stmt]) -> Vec<Stmt> {
        let names = self.names.len();
        let mut out = Vec::with_capacity(stmts.len());
        let mut rest = stmts.iter();
        while let Some(s) = rest.next() {
            if let StmtKind::Expr(e) = &s.kind {
                if matches!(callee(e), Some("sblock_attr" | "block_attr")) {
                    self.block_attr(e, stmts);
                    continue;
                }
                if callee(e) == Some("where") {
                    // The block's predicate guards all that follows it in the block.
                    let after: Vec<Stmt> = rest.by_ref().cloned().collect();
                    if let Some(cond) = self.where_cond(e) {
                        let body = self.block(&after);
                        let span = body.last().map_or(s.span, |l| s.span.to(l.span));
                        out.push(Stmt {
                            kind: StmtKind::If {
                                cond,
                                body,
                                orelse: Vec::new(),
                            },
                            span,
                        });
                    }
                    break;
                }
            }
            if let Some(mut t) = self.stmt(s) {
                out.append(&mut t);
            }
        }
        self.names.truncate(names);
        out
    }

    /// `T.sblock_attr({...})` (`T.block_attr`): TVM's pass reads `double_buffer_scope`, the index
    /// of the block's written buffer to keep two versions of; the others mean nothing here.
    fn block_attr(&mut self, e: &Expr, block: &[Stmt]) {
        let dict = match &e.kind {
            ExprKind::Call { args, .. } => args.first().map(|a| &a.value),
            _ => None,
        };
        let Some(Expr {
            kind: ExprKind::Call { func, args },
            ..
        }) = dict
        else {
            self.error(
                e.span,
                "a block's attributes are a dictionary",
                "T.sblock_attr({\"double_buffer_scope\": 0})",
            );
            return;
        };
        if func.text != "dict" {
            return;
        }
        for entry in args {
            let ExprKind::List(kv) = &entry.value.kind else {
                continue;
            };
            let [key, value] = kv.as_slice() else {
                continue;
            };
            let is_double_buffer =
                matches!(&key.kind, ExprKind::Str(k) if k.as_str() == "double_buffer_scope");
            if !is_double_buffer {
                continue;
            }
            let written = super::scopes::written_buffers(block);
            match value.kind {
                ExprKind::Int(k) if k >= 0 && (k as usize) < written.len() => {
                    if let Some(b) = written.get(k as usize) {
                        self.scopes.double_buffers.push(b.clone());
                    }
                }
                // TVM's own check, in its words.
                _ => self.error(
                    value.span,
                    format!(
                        "Index of the buffer exceeds the size of the write regions of the block: the block writes {} buffers",
                        written.len()
                    ),
                    "double_buffer_scope is the index of a buffer the block writes, from 0",
                ),
            }
        }
    }

    fn where_cond(&mut self, e: &Expr) -> Option<Expr> {
        let ExprKind::Call { args, .. } = &e.kind else {
            return None;
        };
        match args.as_slice() {
            [Arg { name: None, value }] => self.expr(value),
            _ => {
                self.error(e.span, "`T.where` takes one condition", "T.where(i < 16)");
                None
            }
        }
    }

    /// The loop-language statements one TVMScript statement becomes (none for a declaration).
    fn stmt(&mut self, s: &Stmt) -> Option<Vec<Stmt>> {
        match &s.kind {
            StmtKind::Pass | StmtKind::Error => None,
            StmtKind::Assign { target, value } => match &target.kind {
                ExprKind::Name(name) => {
                    self.binding(name, target.span, value, s.span);
                    None
                }
                _ => {
                    let target = self.expr(target)?;
                    let value = self.expr(value)?;
                    Some(vec![Stmt {
                        kind: StmtKind::Assign { target, value },
                        span: s.span,
                    }])
                }
            },
            StmtKind::For { var, range, body } => self.for_loop(var, range, body, s.span),
            StmtKind::With { item, body } => match callee(item) {
                Some("block" | "sblock") => {
                    let level = match self.loop_block.take() {
                        Some(owner) => Level {
                            owner,
                            loop_block: true,
                        },
                        None => Level::child(self.levels.last(), body),
                    };
                    self.levels.push(level);
                    let out = self.block(body);
                    self.levels.pop();
                    Some(out)
                }
                _ => {
                    let construct = construct_name(item);
                    self.unsupported(item.span, &format!("with {construct}"));
                    None
                }
            },
            StmtKind::If { cond, body, orelse } => {
                let cond = self.expr(cond)?;
                self.levels.push(Level::default());
                let body = self.block(body);
                let orelse = self.block(orelse);
                self.levels.pop();
                Some(vec![Stmt {
                    kind: StmtKind::If { cond, body, orelse },
                    span: s.span,
                }])
            }
            StmtKind::Expr(e) => {
                if callee(e) != Some("evaluate") {
                    let construct = construct_name(e);
                    self.unsupported(e.span, &construct);
                }
                None
            }
        }
    }

    /// `name = value` in a PrimFunc (or `name: annotation` as a parameter): a buffer, a symbolic
    /// size or a block axis.
    fn binding(&mut self, name: &str, name_span: Span, value: &Expr, span: Span) {
        let (func, args) = match &value.kind {
            ExprKind::Call { func, args } => (func, args.as_slice()),
            // `a: T.handle`, a parameter `match_buffer` gives a shape to; `n: T.int32`, a
            // symbolic size passed as a scalar.
            ExprKind::Name(n) if last_part(n) == "handle" || DTYPES.contains(&last_part(n)) => {
                return
            }
            _ => {
                self.error(
                    span,
                    format!("`{name} = …`: a PrimFunc binds buffers, sizes and block axes only"),
                    "values are written into buffer elements: `B[i] = …`",
                );
                return;
            }
        };
        match last_part(&func.text) {
            // Kernel parameters are Stagecraft's global buffers, their shape inferred from the
            // loop as for a buffer never allocated.
            "Buffer" | "match_buffer" => {}
            // `k = T.int32()`: a symbolic size, a parameter wherever it is used.
            dtype if DTYPES.contains(&dtype) && args.is_empty() => {}
            "alloc_buffer" | "sblock_alloc_buffer" => {
                let owner = self.levels.last().and_then(|l| l.owner.clone());
                self.scopes.allocations.push((Ident::from(name), owner));
                self.alloc(name, name_span, func, args, span)
            }
            "spatial" | "reduce" | "S" | "R" => match args {
                [_, Arg { name: None, value }] => {
                    if let Some(v) = self.expr(value) {
                        self.names.push((Ident::from(name), v));
                    }
                }
                _ => self.error(
                    value.span,
                    format!("`{}` takes an extent and a value", func.text),
                    "vi = T.axis.spatial(16, i)",
                ),
            },
            _ => self.unsupported(func.span, &func.text),
        }
    }

    fn alloc(&mut self, name: &str, name_span: Span, func: &Name, args: &[Arg], span: Span) {
        let mut kept = Vec::with_capacity(3);
        for (k, a) in args.iter().enumerate() {
            let key = a.name.as_ref().map(|n| n.text.as_str());
            let known = matches!(
                (key, k),
                (None, 0 | 1) | (Some("shape" | "dtype" | "scope"), _)
            );
            if !known {
                let at = a
                    .name
                    .as_ref()
                    .map_or(a.value.span, |n| n.span.to(a.value.span));
                self.error(
                    at,
                    format!(
                        "`{}`'s argument `{}` has no meaning in Stagecraft",
                        func.text,
                        key.unwrap_or("…")
                    ),
                    "T.alloc_buffer((16, 1), dtype=\"float32\", scope=\"shared\")",
                );
                return;
            }
            kept.push(a.clone());
        }
        let target = Expr::new(ExprKind::Name(Ident::from(name)), name_span);
        let func = Name {
            text: Ident::from("alloc"),
            span: func.span,
        };
        let value = Expr::new(ExprKind::Call { func, args: kept }, span);
        self.allocs.push(Stmt {
            kind: StmtKind::Assign { target, value },
            span,
        });
    }

    fn for_loop(
        &mut self,
        var: &Name,
        range: &[Expr],
        body: &[Stmt],
        span: Span,
    ) -> Option<Vec<Stmt>> {
        let over = range.first()?;
        let ExprKind::Call { func, args } = &over.kind else {
            self.error(
                over.span,
                "a loop runs over `T.serial(…)`, `range(…)` or `T.thread_binding(…)`",
                "for i in T.serial(0, 16):",
            );
            return None;
        };
        let kind = last_part(&func.text);
        if !matches!(
            kind,
            "serial" | "range" | "thread_binding" | "unroll" | "vectorized" | "parallel"
        ) {
            self.unsupported(func.span, &func.text);
            return None;
        }
        let annotated = args
            .iter()
            .any(|a| a.name.as_ref().is_some_and(|n| n.text == "annotations"));
        let name = self.loop_name(&var.text, annotated);
        let mut bounds = Vec::with_capacity(2);
        let mut annotations = None;
        for a in args {
            match a.name.as_ref().map(|n| n.text.as_str()) {
                None => bounds.push(self.expr(&a.value)?),
                Some("annotations") => annotations = Some(&a.value),
                Some("thread") if kind == "thread_binding" => {
                    let thread = match &a.value.kind {
                        ExprKind::Str(t) => t.to_string(),
                        _ => String::new(),
                    };
                    self.scopes.threads.push(ThreadBinding {
                        var: name.clone(),
                        thread,
                        span: var.span.to(over.span),
                    });
                }
                Some(other) => {
                    let at = a.name.as_ref().map_or(a.value.span, |n| n.span);
                    self.unsupported(at, &format!("{}(…, {other}=…)", func.text));
                    return None;
                }
            }
        }
        if bounds.is_empty() || bounds.len() > 2 {
            self.error(
                over.span,
                format!("`{}` takes an extent, or a start and a stop", func.text),
                "T.serial(16) or T.serial(0, 16)",
            );
            return None;
        }
        let names = self.names.len();
        // The loop's own name inside it, whatever an outer scope bound it to.
        self.names.push((
            var.text.clone(),
            Expr::new(ExprKind::Name(name.clone()), var.span),
        ));
        let var = Name {
            text: name,
            span: var.span,
        };
        if let Some(dict) = annotations {
            self.loop_annotations(&var, dict);
        }
        // A body that is one block is the loop's own block, where TVM finds its allocations;
        // otherwise the body itself is the pipeline's, and its blocks of several statements are
        // spliced into it with their allocations.
        let own_block = matches!(body, [only] if is_block(only));
        self.loop_block = own_block.then(|| Some(var.text.clone()));
        self.levels.push(if own_block {
            Level::default()
        } else {
            Level {
                owner: Some(var.text.clone()),
                loop_block: true,
            }
        });
        let body = self.block(body);
        self.levels.pop();
        self.loop_block = None;
        self.names.truncate(names);
        Some(vec![Stmt {
            kind: StmtKind::For {
                var,
                range: bounds,
                body,
            },
            span,
        }])
    }

    /// The loop variable's name, or a fresh one (`j_1`, `j_2`…) where an annotation would name
    /// two loops: an annotated loop sharing its name with an earlier loop, or a loop sharing
    /// its name with an earlier annotated one. TVM prints its own duplicates the same way.
    fn loop_name(&mut self, name: &str, annotated: bool) -> Ident {
        let mut fresh = Ident::from(name);
        let clash = if annotated {
            self.loop_names.contains(&fresh)
        } else {
            self.annotated_names.contains(&fresh)
        };
        if clash {
            let mut k = 0;
            while self.loop_names.contains(&fresh) {
                k += 1;
                fresh = Ident::from(format!("{name}_{k}"));
            }
        }
        if !self.loop_names.contains(&fresh) {
            self.loop_names.push(fresh.clone());
        }
        if annotated {
            self.annotated_names.push(fresh.clone());
        }
        fresh
    }

    fn loop_annotations(&mut self, var: &Name, dict: &Expr) {
        let ExprKind::Call { func, args } = &dict.kind else {
            self.error(
                dict.span,
                "a loop's annotations are a dictionary",
                "annotations={\"software_pipeline_stage\": [0, 1]}",
            );
            return;
        };
        if func.text != "dict" {
            self.error(
                dict.span,
                "a loop's annotations are a dictionary",
                "annotations={\"software_pipeline_stage\": [0, 1]}",
            );
            return;
        }
        for entry in args {
            let ExprKind::List(kv) = &entry.value.kind else {
                continue;
            };
            let [key, value] = kv.as_slice() else {
                continue;
            };
            let span = entry.value.span;
            self.scopes.annotation_entries.push(AnnotationEntry {
                entry: span,
                dict: dict.span,
            });
            self.annotations.push(crate::syntax::annotate_stmt(
                var,
                key.clone(),
                value.clone(),
                span,
            ));
        }
    }

    fn expr(&mut self, e: &Expr) -> Option<Expr> {
        let kind = match &e.kind {
            ExprKind::Name(n) => match self.names.iter().rev().find(|(name, _)| name == n) {
                Some((_, v)) => {
                    let mut v = v.clone();
                    v.span = e.span;
                    return Some(v);
                }
                None => e.kind.clone(),
            },
            ExprKind::Call { func, args } => return self.call(e, func, args),
            kind => kind.try_map_children(&mut |x| self.expr(x))?,
        };
        Some(Expr::new(kind, e.span))
    }

    /// TVM's functions as the loop language's operators and functions.
    fn call(&mut self, e: &Expr, func: &Name, args: &[Arg]) -> Option<Expr> {
        let positional: Vec<&Expr> = args
            .iter()
            .filter(|a| a.name.as_ref().is_none_or(|n| n.text != "dtype"))
            .map(|a| &a.value)
            .collect();
        let name = last_part(&func.text);
        let dotted = func.text.contains('.');
        let arity = |r: &mut Reader, n: usize| -> Option<()> {
            if positional.len() == n
                && args
                    .iter()
                    .all(|a| a.name.as_ref().is_none_or(|k| k.text == "dtype"))
            {
                Some(())
            } else {
                r.error(
                    e.span,
                    format!("`{}` takes {n} arguments here", func.text),
                    "T.FloorMod(a, b), T.if_then_else(c, a, b), T.Cast(\"float32\", x), T.float32(1)",
                );
                None
            }
        };
        let kind = match name {
            dtype if dotted && DTYPES.contains(&dtype) => {
                arity(self, 1)?;
                let value = self.expr(positional.first()?)?;
                // `T.float32(2)` is the value 2.0; the loop language's values are all numbers.
                return Some(match value.kind {
                    ExprKind::Int(v) if dtype.starts_with("float") || dtype == "bfloat16" => {
                        Expr::new(ExprKind::Float(v as f64), e.span)
                    }
                    _ => Expr::new(value.kind, e.span),
                });
            }
            "FloorMod" | "floormod" | "FloorDiv" | "floordiv" if dotted => {
                arity(self, 2)?;
                let op = if name.eq_ignore_ascii_case("floormod") {
                    BinOp::Mod
                } else {
                    BinOp::FloorDiv
                };
                let l = self.expr(positional.first()?)?;
                let r = self.expr(positional.get(1)?)?;
                ExprKind::Binary(op, Box::new(l), Box::new(r))
            }
            "if_then_else" if dotted => {
                arity(self, 3)?;
                ExprKind::IfElse {
                    cond: Box::new(self.expr(positional.first()?)?),
                    then: Box::new(self.expr(positional.get(1)?)?),
                    otherwise: Box::new(self.expr(positional.get(2)?)?),
                }
            }
            // `T.Cast("float32", x)` and `T.cast(x, "float32")`: values have no types here.
            "Cast" | "cast" if dotted => {
                arity(self, 2)?;
                let value = positional
                    .iter()
                    .find(|v| !matches!(v.kind, ExprKind::Str(_)))?;
                return self.expr(value).map(|mut v| {
                    v.span = e.span;
                    v
                });
            }
            "max" | "min" | "abs" | "fma" => ExprKind::Call {
                func: Name {
                    text: Ident::from(name),
                    span: func.span,
                },
                args: args
                    .iter()
                    .map(|a| {
                        self.expr(&a.value).map(|value| Arg {
                            name: a.name.clone(),
                            value,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?,
            },
            _ => {
                self.unsupported(func.span, &func.text);
                return None;
            }
        };
        Some(Expr::new(kind, e.span))
    }
}

/// How a construct is quoted in a message: its callee, or its text's kind.
fn construct_name(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Call { func, .. } => format!("{}(…)", func.text),
        ExprKind::Name(n) => n.to_string(),
        _ => "this expression".into(),
    }
}
