//! The syntax tree of the loop language: a small, indentation-based Python subset that reads the
//! RFC's loops, TVM's `sch.annotate` lines and Stagecraft's own printed programs alike.
//! Parsing lives in `parser/`, printing back to canonical text in `printer.rs`.

use crate::diagnostic::Span;
use serde::{Deserialize, Serialize};

/// A name or string literal of the source. Almost all are short enough (24 bytes) to be stored
/// inline, so building the tree allocates nothing for them.
pub type Ident = compact_str::CompactString;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct File {
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Name {
    pub text: Ident,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StmtKind {
    /// `target = value`; the target is a name (for `alloc`) or a subscript.
    Assign {
        target: Expr,
        value: Expr,
    },
    /// A bare expression, e.g. `sch.annotate(...)`.
    Expr(Expr),
    /// `for var in range(args):` with one or two range arguments.
    For {
        var: Name,
        range: Vec<Expr>,
        body: Vec<Stmt>,
    },
    /// `with call:`
    With {
        item: Expr,
        body: Vec<Stmt>,
    },
    /// `if cond:` and its `else:` block (empty without one).
    If {
        cond: Expr,
        body: Vec<Stmt>,
        #[serde(default)]
        orelse: Vec<Stmt>,
    },
    Pass,
    /// A line that could not be parsed; its diagnostic was reported.
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Arg {
    pub name: Option<Name>,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    Str(Ident),
    Name(Ident),
    List(Vec<Expr>),
    Subscript {
        base: Name,
        indices: Vec<Expr>,
    },
    /// `func(args)`; a dotted callee such as `sch.annotate` is kept as one name.
    Call {
        func: Name,
        args: Vec<Arg>,
    },
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    Bool(BoolOp, Box<Expr>, Box<Expr>),
    IfElse {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    Error,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
        }
    }
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// `f` on this expression and every expression in it (a call's argument values too), each
    /// before its children: the one read-only walk the tree's readers share.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::List(items) | ExprKind::Subscript { indices: items, .. } => {
                items.iter().for_each(|x| x.walk(f))
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| a.value.walk(f)),
            ExprKind::Neg(x) | ExprKind::Not(x) => x.walk(f),
            ExprKind::Binary(_, l, r) | ExprKind::Compare(_, l, r) | ExprKind::Bool(_, l, r) => {
                l.walk(f);
                r.walk(f);
            }
            ExprKind::IfElse {
                cond,
                then,
                otherwise,
            } => {
                cond.walk(f);
                then.walk(f);
                otherwise.walk(f);
            }
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Name(_)
            | ExprKind::Error => {}
        }
    }
}

/// `annotate(var, key, value)` at `span`: the loop language's annotation, as the dialects' readers
/// write what a TVMScript dictionary or a TileLang `T.Pipelined` argument says.
pub fn annotate_stmt(var: &Name, key: Expr, value: Expr, span: Span) -> Stmt {
    let arg = |value| Arg { name: None, value };
    let call = ExprKind::Call {
        func: Name {
            text: Ident::from("annotate"),
            span: key.span,
        },
        args: vec![
            arg(Expr::new(ExprKind::Name(var.text.clone()), var.span)),
            arg(key),
            arg(value),
        ],
    };
    Stmt {
        kind: StmtKind::Expr(Expr::new(call, span)),
        span,
    }
}

impl ExprKind {
    /// This node with each child expression (a call's argument values too) replaced by `f`'s
    /// result, everything else kept: the one walk the tree's rewriters share, each handling only
    /// the kinds it changes. `None` as soon as `f` gives `None`.
    pub fn try_map_children(&self, f: &mut impl FnMut(&Expr) -> Option<Expr>) -> Option<ExprKind> {
        let mut boxed = |x: &Expr| f(x).map(Box::new);
        Some(match self {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Name(_)
            | ExprKind::Error => self.clone(),
            ExprKind::List(items) => {
                ExprKind::List(items.iter().map(&mut *f).collect::<Option<_>>()?)
            }
            ExprKind::Subscript { base, indices } => ExprKind::Subscript {
                base: base.clone(),
                indices: indices.iter().map(&mut *f).collect::<Option<_>>()?,
            },
            ExprKind::Call { func, args } => ExprKind::Call {
                func: func.clone(),
                args: args
                    .iter()
                    .map(|a| {
                        let value = f(&a.value)?;
                        Some(Arg {
                            name: a.name.clone(),
                            value,
                        })
                    })
                    .collect::<Option<_>>()?,
            },
            ExprKind::Neg(x) => ExprKind::Neg(boxed(x)?),
            ExprKind::Not(x) => ExprKind::Not(boxed(x)?),
            ExprKind::Binary(op, l, r) => ExprKind::Binary(*op, boxed(l)?, boxed(r)?),
            ExprKind::Compare(op, l, r) => ExprKind::Compare(*op, boxed(l)?, boxed(r)?),
            ExprKind::Bool(op, l, r) => ExprKind::Bool(*op, boxed(l)?, boxed(r)?),
            ExprKind::IfElse {
                cond,
                then,
                otherwise,
            } => ExprKind::IfElse {
                cond: boxed(cond)?,
                then: boxed(then)?,
                otherwise: boxed(otherwise)?,
            },
        })
    }
}

/// Zero every span, so trees can be compared by structure alone (parse(print(x)) == x).
pub fn without_spans(file: &File) -> File {
    File {
        stmts: file.stmts.iter().map(stmt_without_spans).collect(),
    }
}

fn name_without_span(n: &Name) -> Name {
    Name {
        text: n.text.clone(),
        span: Span::default(),
    }
}

fn stmt_without_spans(s: &Stmt) -> Stmt {
    let kind = match &s.kind {
        StmtKind::Assign { target, value } => StmtKind::Assign {
            target: expr_without_spans(target),
            value: expr_without_spans(value),
        },
        StmtKind::Expr(e) => StmtKind::Expr(expr_without_spans(e)),
        StmtKind::For { var, range, body } => StmtKind::For {
            var: name_without_span(var),
            range: range.iter().map(expr_without_spans).collect(),
            body: body.iter().map(stmt_without_spans).collect(),
        },
        StmtKind::With { item, body } => StmtKind::With {
            item: expr_without_spans(item),
            body: body.iter().map(stmt_without_spans).collect(),
        },
        StmtKind::If { cond, body, orelse } => StmtKind::If {
            cond: expr_without_spans(cond),
            body: body.iter().map(stmt_without_spans).collect(),
            orelse: orelse.iter().map(stmt_without_spans).collect(),
        },
        StmtKind::Pass => StmtKind::Pass,
        StmtKind::Error => StmtKind::Error,
    };
    Stmt {
        kind,
        span: Span::default(),
    }
}

fn expr_without_spans(e: &Expr) -> Expr {
    let mut kind = e
        .kind
        .try_map_children(&mut |x| Some(expr_without_spans(x)))
        .unwrap_or(ExprKind::Error);
    match &mut kind {
        ExprKind::Subscript { base, .. } => base.span = Span::default(),
        ExprKind::Call { func, args } => {
            func.span = Span::default();
            for name in args.iter_mut().filter_map(|a| a.name.as_mut()) {
                name.span = Span::default();
            }
        }
        _ => {}
    }
    Expr {
        kind,
        span: Span::default(),
    }
}
