//! A `T.Pipelined` loop as the loop language's annotated `range` loop: its statements, what the
//! planner sees of each (`Unit`), and its stage, order and async-stage annotations, as written or
//! as TileLang's planner (`plan.rs`) gives them.

use super::plan::{self, Unit};
use super::read::{Memory, Reader};
use crate::diagnostic::{Diagnostic, Span};
use crate::syntax::{Arg, Expr, ExprKind, Ident, Name, Stmt, StmtKind};

impl Reader {
    /// `for k in T.Pipelined(extent, num_stages=N, order=[…], stage=[…])`: a `range` loop whose
    /// top-level statements are the units, annotated as written or as TileLang plans them.
    pub(super) fn pipelined(
        &mut self,
        var: &Name,
        func: &Name,
        args: &[Arg],
        body: &[Stmt],
        span: Span,
    ) -> Vec<Stmt> {
        const POSITIONS: [&str; 7] = [
            "start",
            "stop",
            "num_stages",
            "order",
            "stage",
            "sync",
            "group",
        ];
        let mut given: Vec<(&str, &Expr, Span)> = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let key = match &a.name {
                Some(n) => n.text.as_str(),
                None => POSITIONS.get(k).copied().unwrap_or("…"),
            };
            let at = a
                .name
                .as_ref()
                .map_or(a.value.span, |n| n.span.to(a.value.span));
            if !POSITIONS.contains(&key) {
                self.unsupported(at, &format!("{}(…, {key}=…)", func.text));
                return Vec::new();
            }
            given.push((key, &a.value, at));
        }
        let arg = |key: &str| {
            given
                .iter()
                .find(|(k, _, _)| *k == key)
                .map(|(_, v, at)| (*v, *at))
        };
        let mut bounds = Vec::with_capacity(2);
        for key in ["start", "stop"] {
            if let Some((v, _)) = arg(key) {
                match self.expr(v) {
                    Some(b) => bounds.push(b),
                    None => return Vec::new(),
                }
            }
        }
        if bounds.is_empty() {
            self.error(
                func.span,
                "`T.Pipelined` needs an extent",
                "T.Pipelined(T.ceildiv(K, block_K), num_stages=3)",
            );
            return Vec::new();
        }
        for key in ["sync", "group"] {
            if let Some((v, at)) = arg(key) {
                if !matches!(&v.kind, ExprKind::List(items) if items.is_empty()) {
                    self.error(
                        at,
                        format!("`T.Pipelined`'s `{key}` has no meaning in Stagecraft"),
                        "Stagecraft commits one group per asynchronous stage and derives the waits; leave out sync and group",
                    );
                    return Vec::new();
                }
            }
        }
        let consts = self.consts.len();
        self.shadow(var);
        let units = self.block(body);
        self.consts.truncate(consts);
        let annotations = self.schedule(var, &units, arg("num_stages"), arg("order"), arg("stage"));
        self.pipelined.push((span, annotations));
        vec![Stmt {
            kind: StmtKind::For {
                var: var.clone(),
                range: bounds,
                body: units,
            },
            span,
        }]
    }

    fn int_list(&mut self, e: &Expr, what: &str) -> Option<Vec<i64>> {
        let v = self.expr(e)?;
        let items = match &v.kind {
            ExprKind::List(items) => items,
            _ => {
                self.error(
                    e.span,
                    format!("`{what}` is a list of integers"),
                    "stage=[0, 0, 2]",
                );
                return None;
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            match it.kind {
                ExprKind::Int(x) => out.push(x),
                _ => {
                    self.error(
                        it.span,
                        format!("`{what}` is a list of integers"),
                        "stage=[0, 0, 2]",
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// The loop's annotations: the written `order` and `stage`, or TileLang's plan for
    /// `num_stages` (none for 0, its default: the loop is not pipelined); the async stages by
    /// TileLang's rule either way.
    fn schedule(
        &mut self,
        var: &Name,
        units: &[Stmt],
        num_stages: Option<(&Expr, Span)>,
        order: Option<(&Expr, Span)>,
        stage: Option<(&Expr, Span)>,
    ) -> Vec<Stmt> {
        let planned: Vec<Unit> = units.iter().map(|u| self.unit(u)).collect();
        let (stages, orders, at) = match (order, stage) {
            (Some((o, _)), Some((s, _))) => {
                let (Some(orders), Some(stages)) =
                    (self.int_list(o, "order"), self.int_list(s, "stage"))
                else {
                    return Vec::new();
                };
                if let Err((copy, other)) = plan::last_uses(&planned) {
                    self.refuse_overlap(units, copy, other);
                    return Vec::new();
                }
                let async_stages = plan::async_stages_of_written(&planned, &stages);
                ((stages, s.span), (orders, o.span), (async_stages, s.span))
            }
            (Some((_, at)), None) | (None, Some((_, at))) => {
                self.error(
                    at,
                    "`T.Pipelined` takes `order` and `stage` together",
                    "write both lists, one entry per statement of the loop: order=[0, 1, 2], stage=[0, 0, 2]",
                );
                return Vec::new();
            }
            (None, None) => {
                let Some((n, at)) = num_stages else {
                    return Vec::new();
                };
                let n_value = self.expr(n).and_then(|v| match v.kind {
                    ExprKind::Int(x) => Some(x),
                    _ => None,
                });
                let Some(n_value) = n_value.filter(|x| (0..=crate::limits::MAX_STAGE).contains(x))
                else {
                    self.error(
                        at,
                        format!(
                            "`num_stages` is an integer from 0 to {}",
                            crate::limits::MAX_STAGE
                        ),
                        "num_stages=3",
                    );
                    return Vec::new();
                };
                if n_value == 0 {
                    return Vec::new();
                }
                match plan::plan(&planned, n_value) {
                    Ok(p) => ((p.stages, at), (p.orders, at), (p.async_stages, at)),
                    Err((copy, other)) => {
                        self.refuse_overlap(units, copy, other);
                        return Vec::new();
                    }
                }
            }
        };
        // A list of the wrong length is Stagecraft's schedule check's to say, on the list.
        if stages.0.len() == units.len() {
            self.whole_async_stages(units, &planned, &stages.0, &at.0);
        }
        let mut out = vec![
            annotate(var, crate::schedule::STAGE_KEY, &stages.0, stages.1),
            annotate(var, crate::schedule::ORDER_KEY, &orders.0, orders.1),
        ];
        if !at.0.is_empty() {
            out.push(annotate(var, crate::schedule::ASYNC_KEY, &at.0, at.1));
        }
        out
    }

    fn refuse_overlap(&mut self, units: &[Stmt], copy: usize, other: usize) {
        let span = units.get(other).map_or(Span::new(0, 0), |s| s.span);
        let first = units.get(copy).map_or(span, |s| s.span);
        self.diagnostics.push(
            Diagnostic::error(
                span,
                format!(
                    "TileLang's planner refuses this loop: statement {other} writes a buffer that the copy, statement {copy}, writes too (\"Multiple writes to overlapping buffer regions\")"
                ),
            )
            .with_hint("copy each tile into a buffer of its own")
            .with_related(first, "the copy"),
        );
    }

    /// TileLang makes individual copies asynchronous; Stagecraft a whole stage. A statement
    /// sharing an async stage with TileLang's copies but not one of them is refused, located.
    fn whole_async_stages(
        &mut self,
        units: &[Stmt],
        planned: &[Unit],
        stages: &[i64],
        async_stages: &[i64],
    ) {
        for (i, u) in planned.iter().enumerate() {
            let s = stages.get(i).copied().unwrap_or(0);
            if async_stages.contains(&s) && (!u.copy || u.conditional) {
                let span = units.get(i).map_or(Span::new(0, 0), |x| x.span);
                self.error(
                    span,
                    format!("TileLang copies asynchronously only the global-to-shared copies of stage {s}; this statement is in stage {s} too, and Stagecraft's asynchronous stages are whole stages"),
                    "give this statement a stage of its own (`stage=[…]`)",
                );
                return;
            }
        }
    }

    /// What the planner sees of one statement of the pipelined body.
    fn unit(&self, s: &Stmt) -> Unit {
        let mut u = Unit::default();
        let mut all_copies = true;
        let mut stores = 0usize;
        walk_stmt(s, &mut |node| match node {
            Node::Store(target, value) => {
                stores += 1;
                if let ExprKind::Subscript { base, .. } = &target.kind {
                    push(&mut u.writes, &base.text);
                    let store_shared = self.memory(&base.text) == Memory::Shared;
                    let global_load = matches!(&value.kind, ExprKind::Subscript { base, .. } if self.memory(&base.text) == Memory::Global);
                    all_copies &= store_shared && global_load;
                }
            }
            Node::Load(name) => push(&mut u.reads, name),
            Node::Condition => u.conditional = true,
        });
        u.copy = all_copies && stores > 0;
        u
    }
}

fn push(list: &mut Vec<Ident>, name: &Ident) {
    if !list.contains(name) {
        list.push(name.clone());
    }
}

enum Node<'a> {
    Store(&'a Expr, &'a Expr),
    Load(&'a Ident),
    Condition,
}

fn walk_stmt<'a>(s: &'a Stmt, f: &mut impl FnMut(Node<'a>)) {
    match &s.kind {
        StmtKind::Assign { target, value } => {
            f(Node::Store(target, value));
            if let ExprKind::Subscript { indices, .. } = &target.kind {
                indices.iter().for_each(|i| walk_expr(i, f));
            }
            walk_expr(value, f);
        }
        StmtKind::Expr(e) => walk_expr(e, f),
        StmtKind::For { range, body, .. } => {
            range.iter().for_each(|r| walk_expr(r, f));
            body.iter().for_each(|b| walk_stmt(b, f));
        }
        StmtKind::With { body, .. } => body.iter().for_each(|b| walk_stmt(b, f)),
        StmtKind::If { cond, body, orelse } => {
            f(Node::Condition);
            walk_expr(cond, f);
            body.iter().chain(orelse).for_each(|b| walk_stmt(b, f));
        }
        StmtKind::Pass | StmtKind::Error => {}
    }
}

fn walk_expr<'a>(e: &'a Expr, f: &mut impl FnMut(Node<'a>)) {
    e.walk(&mut |x| match &x.kind {
        ExprKind::Subscript { base, .. } => f(Node::Load(&base.text)),
        ExprKind::IfElse { .. } => f(Node::Condition),
        _ => {}
    });
}

/// `annotate(k, key, [values])`, its list located at `at` (the written list, or the
/// `num_stages=` argument it was planned from).
fn annotate(var: &Name, key: &str, values: &[i64], at: Span) -> Stmt {
    let list = values
        .iter()
        .map(|v| Expr::new(ExprKind::Int(*v), at))
        .collect();
    crate::syntax::annotate_stmt(
        var,
        Expr::new(ExprKind::Str(Ident::from(key)), at),
        Expr::new(ExprKind::List(list), at),
        at,
    )
}
