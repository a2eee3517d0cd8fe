//! Prints an `ir::Program` as the RFC-style TIR program: valid Python that runs with three small
//! context managers (`async_commit_queue`, `async_scope`, `async_wait_queue`) and `alloc` defined.
//! Every line records which source statement or wait it comes from, for highlighting.

use crate::ir::*;
use crate::printer::{print_expr, write_expr};
use crate::syntax::{self, Expr, ExprKind};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LineInfo {
    #[serde(skip_serializing_if = "crate::wire::omit_none")]
    pub stmt: Option<StmtId>,
    #[serde(skip_serializing_if = "crate::wire::omit_none")]
    pub wait: Option<u32>,
    /// Pre-order index of the wait node printed on this line: in the peeled form one derived wait
    /// is printed once per step, and the interpreter's races and the timeline's stalls name the node.
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub wait_index: Option<usize>,
    #[serde(skip_serializing_if = "crate::wire::omit_none")]
    pub section: Option<SectionKind>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Printed {
    pub text: String,
    pub lines: Vec<LineInfo>,
}

pub fn print(program: &Program) -> Printed {
    let mut p = Printer {
        program,
        out: Printed::default(),
        section: None,
        waits_seen: 0,
    };
    let implicit: Vec<&str> = program
        .buffers
        .iter()
        .filter(|b| !b.declared)
        .map(|b| b.name.as_str())
        .collect();
    if !implicit.is_empty() {
        p.line(
            0,
            &format!(
                "# global buffers (kernel parameters): {}",
                implicit.join(", ")
            ),
            LineInfo::default(),
        );
    }
    for b in program.buffers.iter().filter(|b| b.declared) {
        let shape = b.shape.as_ref().map_or_else(String::new, |s| {
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        });
        let mut args = format!(
            "[{shape}], scope=\"{}\", dtype=\"{}\"",
            b.scope.name(),
            b.dtype.name()
        );
        if b.versions > 1 {
            args.push_str(&format!(", versions={}", b.versions));
        }
        if !b.threads.is_each() {
            args.push_str(&format!(", threads=\"{}\"", b.threads.name()));
        }
        p.line(
            0,
            &format!("{} = alloc({args})", b.name),
            LineInfo::default(),
        );
    }
    p.nodes(&program.body, 0);
    if let Some(t) = program.threads {
        p.threads(t);
    }
    p.out
}

struct Printer<'a> {
    program: &'a Program,
    out: Printed,
    section: Option<SectionKind>,
    /// Wait nodes printed so far: the next one's pre-order index, numbered as `interp` does.
    waits_seen: usize,
}

impl Printer<'_> {
    fn line(&mut self, indent: usize, text: &str, mut info: LineInfo) {
        if info.section.is_none() {
            info.section = self.section;
        }
        for _ in 0..indent {
            self.out.text.push_str("    ");
        }
        self.out.text.push_str(text);
        self.out.text.push('\n');
        self.out.lines.push(info);
    }

    /// The threads that run the loop, as the annotations that declare them (on the first loop).
    fn threads(&mut self, t: Threads) {
        fn first_loop(nodes: &[Node]) -> Option<VarId> {
            nodes.iter().find_map(|n| match n {
                Node::For { var, .. } => Some(*var),
                Node::Section { body, .. } => first_loop(body),
                _ => None,
            })
        }
        let Some(var) = first_loop(&self.program.body) else {
            return;
        };
        let name = self.program.var_name(var).to_string();
        self.line(0, "", LineInfo::default());
        self.line(
            0,
            &format!(
                "sch.annotate({name}, \"{}\", [{}])",
                crate::lower::THREADS_KEY,
                t.threads
            ),
            LineInfo::default(),
        );
        if t.waves != t.threads {
            self.line(
                0,
                &format!(
                    "sch.annotate({name}, \"{}\", [{}])",
                    crate::lower::WAVES_KEY,
                    t.waves
                ),
                LineInfo::default(),
            );
        }
    }

    /// `barrier()`, with the dependences it orders as a comment.
    fn barrier(&mut self, reasons: &[BarrierReason], indent: usize) {
        let mut text = String::from("barrier()");
        // Two statements of one label (the halves of a tile) give the same sentence: said once.
        let mut said: Vec<String> = Vec::new();
        for r in reasons {
            let s = self.reason(r);
            if !said.contains(&s) {
                said.push(s);
            }
        }
        if !said.is_empty() {
            text.push_str("  # ");
            text.push_str(&said.join("; "));
        }
        self.line(indent, &text, LineInfo::default());
    }

    fn reason(&self, r: &BarrierReason) -> String {
        let buffer = self
            .program
            .buffer(r.buffer)
            .map_or("?", |b| b.name.as_str());
        let name = |s: StmtId| crate::sync::statement_label(self.program, s);
        let apart = match r.distance {
            0 => String::new(),
            1 => " (1 step before)".to_string(),
            d => format!(" ({d} steps before)"),
        };
        // With waves, a wave waits for its own copies: the others are other waves.
        let others = match self.program.threads {
            Some(t) if t.waves < t.threads => "other waves",
            _ => "other threads",
        };
        match r.kind {
            BarrierKind::AfterWrite => format!(
                "{} reads {buffer} written by {} in {others}{apart}",
                name(r.consumer),
                name(r.producer)
            ),
            BarrierKind::BeforeRefill => format!(
                "{} refills {buffer}, which {} in {others} may still read{apart}",
                name(r.consumer),
                name(r.producer)
            ),
        }
    }

    fn nodes(&mut self, nodes: &[Node], indent: usize) {
        if nodes.is_empty() {
            self.line(indent, "pass", LineInfo::default());
        }
        for n in nodes {
            self.node(n, indent);
        }
    }

    fn node(&mut self, n: &Node, indent: usize) {
        match n {
            Node::Barrier { reasons, .. } => self.barrier(reasons, indent),
            Node::Section { kind, body, .. } => {
                let saved = self.section;
                if saved.is_some() {
                    // A section of an inner loop pipelined first.
                    self.line(
                        indent,
                        &format!("# inner loop {}", kind.name()),
                        LineInfo::default(),
                    );
                } else {
                    self.section = Some(*kind);
                    self.line(indent, &format!("# {}", kind.name()), LineInfo::default());
                }
                for n in body {
                    self.node(n, indent);
                }
                self.section = saved;
            }
            Node::For {
                var, lo, hi, body, ..
            } => {
                let name = self.program.var_name(*var).to_string();
                let range = match lo.as_const() {
                    Some(0) => self.ix(hi),
                    _ => format!("{}, {}", self.ix(lo), self.ix(hi)),
                };
                self.line(
                    indent,
                    &format!("for {name} in range({range}):"),
                    LineInfo::default(),
                );
                self.nodes(body, indent + 1);
            }
            Node::If { cond, body, .. } => {
                let c = print_cond(self.program, cond);
                self.line(indent, &format!("if {c}:"), LineInfo::default());
                self.nodes(body, indent + 1);
            }
            Node::Commit { queue, body, .. } => {
                self.line(
                    indent,
                    &format!("with async_commit_queue({queue}):"),
                    LineInfo::default(),
                );
                self.nodes(body, indent + 1);
            }
            Node::AsyncScope { body, .. } => {
                self.line(indent, "with async_scope():", LineInfo::default());
                self.nodes(body, indent + 1);
            }
            Node::Wait {
                queue,
                count,
                body,
                wait,
                ..
            } => {
                let info = LineInfo {
                    wait: *wait,
                    wait_index: Some(self.waits_seen),
                    ..LineInfo::default()
                };
                self.waits_seen += 1;
                self.line(
                    indent,
                    &format!("with async_wait_queue({queue}, {}):", self.ix(count)),
                    info,
                );
                self.nodes(body, indent + 1);
            }
            Node::Assign(a) => {
                self.line(
                    indent,
                    &print_assign(self.program, a),
                    LineInfo {
                        stmt: Some(a.stmt),
                        ..LineInfo::default()
                    },
                );
            }
        }
    }

    fn ix(&self, e: &IExpr) -> String {
        print_index(self.program, e)
    }
}

fn ex(kind: ExprKind) -> Expr {
    Expr::new(kind, crate::diagnostic::Span::default())
}

fn name(text: &str) -> syntax::Name {
    syntax::Name {
        text: text.into(),
        span: crate::diagnostic::Span::default(),
    }
}

/// `a` as the printed program writes it (`A_sh[k % 2, j] = A[16 * k + j]`).
pub fn print_assign(program: &Program, a: &Assign) -> String {
    let mut text = String::with_capacity(64);
    write_expr(&mut text, &access_expr(program, &a.target));
    text.push_str(" = ");
    write_expr(&mut text, &value_expr(program, &a.value));
    text
}

/// Each statement of `program` as the printed program writes its first assignment, by statement
/// id (of the source loop: `B[0] = A[i] + 1`); "" for an id with none.
pub fn statement_texts(program: &Program) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    for_each_assign(&program.body, &mut |a| {
        let k = a.stmt as usize;
        if texts.len() <= k {
            texts.resize(k + 1, String::new());
        }
        if let Some(t) = texts.get_mut(k).filter(|t| t.is_empty()) {
            *t = print_assign(program, a);
        }
    });
    texts
}

/// `c` as the printed program writes it after `if` (`k - 1 == 7`).
pub fn print_cond(program: &Program, c: &Cond) -> String {
    print_expr(&cond_expr(program, c))
}

/// `e` as the printed program writes it (`16 * k + j`).
pub fn print_index(program: &Program, e: &IExpr) -> String {
    print_expr(&index_expr(program, e))
}

pub fn index_expr(program: &Program, e: &IExpr) -> Expr {
    let b = |x: &IExpr| Box::new(index_expr(program, x));
    match e {
        IExpr::Const(v) if *v < 0 => ex(ExprKind::Neg(Box::new(ex(ExprKind::Int(
            v.saturating_neg(),
        ))))),
        IExpr::Const(v) => ex(ExprKind::Int(*v)),
        IExpr::Var(v) => ex(ExprKind::Name(program.var_name(*v).into())),
        IExpr::Bin(op, lr) => {
            let [l, r] = &**lr;
            match op {
                IOp::Add => ex(ExprKind::Binary(syntax::BinOp::Add, b(l), b(r))),
                IOp::Sub if l.as_const() == Some(0) => ex(ExprKind::Neg(b(r))),
                IOp::Sub => ex(ExprKind::Binary(syntax::BinOp::Sub, b(l), b(r))),
                IOp::Mul => ex(ExprKind::Binary(syntax::BinOp::Mul, b(l), b(r))),
                IOp::FloorDiv => ex(ExprKind::Binary(syntax::BinOp::FloorDiv, b(l), b(r))),
                IOp::Mod => ex(ExprKind::Binary(syntax::BinOp::Mod, b(l), b(r))),
                IOp::Min | IOp::Max => ex(ExprKind::Call {
                    func: name(if *op == IOp::Min { "min" } else { "max" }),
                    args: vec![
                        syntax::Arg {
                            name: None,
                            value: index_expr(program, l),
                        },
                        syntax::Arg {
                            name: None,
                            value: index_expr(program, r),
                        },
                    ],
                }),
            }
        }
        IExpr::Select(s) => ex(ExprKind::IfElse {
            cond: Box::new(cond_expr(program, &s.0)),
            then: b(&s.1),
            otherwise: b(&s.2),
        }),
    }
}

pub fn cond_expr(program: &Program, c: &Cond) -> Expr {
    match c {
        Cond::True => ex(ExprKind::Name("True".into())),
        Cond::Cmp(op, a, b) => {
            let op = match op {
                CmpOp::Lt => syntax::CmpOp::Lt,
                CmpOp::Le => syntax::CmpOp::Le,
                CmpOp::Gt => syntax::CmpOp::Gt,
                CmpOp::Ge => syntax::CmpOp::Ge,
                CmpOp::Eq => syntax::CmpOp::Eq,
                CmpOp::Ne => syntax::CmpOp::Ne,
            };
            ex(ExprKind::Compare(
                op,
                Box::new(index_expr(program, a)),
                Box::new(index_expr(program, b)),
            ))
        }
        Cond::And(a, b) => ex(ExprKind::Bool(
            syntax::BoolOp::And,
            Box::new(cond_expr(program, a)),
            Box::new(cond_expr(program, b)),
        )),
        Cond::Or(a, b) => ex(ExprKind::Bool(
            syntax::BoolOp::Or,
            Box::new(cond_expr(program, a)),
            Box::new(cond_expr(program, b)),
        )),
        Cond::Not(a) => ex(ExprKind::Not(Box::new(cond_expr(program, a)))),
    }
}

pub fn access_expr(program: &Program, a: &Access) -> Expr {
    let base = program.buffer(a.buffer).map_or("?", |b| b.name.as_str());
    ex(ExprKind::Subscript {
        base: name(base),
        indices: a.indices.iter().map(|i| index_expr(program, i)).collect(),
    })
}

pub fn value_expr(program: &Program, v: &VExpr) -> Expr {
    let b = |x: &VExpr| Box::new(value_expr(program, x));
    match v {
        VExpr::Lit(x) if x.fract() == 0.0 && x.abs() < 1e15 => {
            let i = *x as i64;
            if i < 0 {
                ex(ExprKind::Neg(Box::new(ex(ExprKind::Int(-i)))))
            } else {
                ex(ExprKind::Int(i))
            }
        }
        VExpr::Lit(x) if *x < 0.0 => ex(ExprKind::Neg(Box::new(ex(ExprKind::Float(-x))))),
        VExpr::Lit(x) => ex(ExprKind::Float(*x)),
        VExpr::Read(a) => access_expr(program, a),
        VExpr::Index(e) => index_expr(program, e),
        VExpr::Neg(x) => ex(ExprKind::Neg(b(x))),
        VExpr::Bin(op, lr) => {
            let [l, r] = &**lr;
            let op = match op {
                VOp::Add => syntax::BinOp::Add,
                VOp::Sub => syntax::BinOp::Sub,
                VOp::Mul => syntax::BinOp::Mul,
                VOp::Div => syntax::BinOp::Div,
            };
            ex(ExprKind::Binary(op, b(l), b(r)))
        }
        VExpr::Call(f, args) => ex(ExprKind::Call {
            func: name(f.name()),
            args: args
                .iter()
                .map(|a| syntax::Arg {
                    name: None,
                    value: value_expr(program, a),
                })
                .collect(),
        }),
    }
}
