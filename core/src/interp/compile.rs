//! Compilation of an `ir::Program` for the machine, once per program: index expressions and
//! values as small trees (the commonest index shapes one dispatch each), every access with its
//! extents, strides and constant offset resolved, queues numbered densely. The hot loop then does
//! no allocation and no map lookup.

use super::exec::Buf;
use crate::diagnostic::Span;
use crate::ir::*;

/// An index expression or condition (1 or 0) as a tree. Every operand is evaluated, as the
/// unselected branch of a `Select` too: any division by zero or overflow makes the whole
/// expression fail. The commonest index shapes (`i ± c`, `i % c`, `(i - 1) % c`) get their own
/// variants so that they cost one dispatch.
#[derive(Clone, Debug)]
pub(super) enum Code {
    Const(i64),
    Var(u32),
    /// `v op c`.
    VarConst(IOp, u32, i64),
    /// `e op c`.
    ExprConst(IOp, Box<Code>, i64),
    Bin(IOp, Box<Code>, Box<Code>),
    Select(Box<Code>, Box<Code>, Box<Code>),
    Cmp(CmpOp, Box<Code>, Box<Code>),
    And(Box<Code>, Box<Code>),
    Or(Box<Code>, Box<Code>),
    Not(Box<Code>),
}

/// The value of `code` with variables bound by `env`; `None` on division by zero, overflow or an
/// unknown variable.
#[inline]
pub(super) fn eval(code: &Code, env: &[i64]) -> Option<i64> {
    // Inlined into the callers for the commonest shapes: a call costs more than these.
    match code {
        Code::Const(c) => Some(*c),
        Code::Var(v) => env.get(*v as usize).copied(),
        Code::VarConst(op, v, c) => op.apply(*env.get(*v as usize)?, *c),
        _ => eval_tree(code, env),
    }
}

fn eval_tree(code: &Code, env: &[i64]) -> Option<i64> {
    Some(match code {
        Code::Const(c) => *c,
        Code::Var(v) => *env.get(*v as usize)?,
        Code::VarConst(op, v, c) => op.apply(*env.get(*v as usize)?, *c)?,
        Code::ExprConst(op, e, c) => op.apply(eval(e, env)?, *c)?,
        Code::Bin(op, a, b) => op.apply(eval(a, env)?, eval(b, env)?)?,
        Code::Select(c, t, e) => {
            let (c, t, e) = (eval(c, env)?, eval(t, env)?, eval(e, env)?);
            if c != 0 {
                t
            } else {
                e
            }
        }
        Code::Cmp(op, a, b) => i64::from(op.holds(eval(a, env)?, eval(b, env)?)),
        Code::And(a, b) => {
            let (a, b) = (eval(a, env)?, eval(b, env)?);
            i64::from(a != 0 && b != 0)
        }
        Code::Or(a, b) => {
            let (a, b) = (eval(a, env)?, eval(b, env)?);
            i64::from(a != 0 || b != 0)
        }
        Code::Not(a) => i64::from(eval(a, env)? == 0),
    })
}

/// A statement's value as a tree over its reads, loaded before the value is computed.
#[derive(Clone, Debug)]
pub(super) enum Value {
    Lit(f64),
    /// The k-th read of the statement.
    Read(u32),
    /// Boxed: an inline `Code` lends `Value` its tag layout, which makes every match dearer.
    Index(Box<Code>),
    Neg(Box<Value>),
    Bin(VOp, Box<Value>, Box<Value>),
    Abs(Box<Value>),
    Max(Box<Value>, Box<Value>),
    Min(Box<Value>, Box<Value>),
    Fma(Box<Value>, Box<Value>, Box<Value>),
}

/// The tree of `v`, numbering reads left to right as `ir::for_each_read` visits them. A call with
/// the wrong number of arguments (only in a program not made by `lower`, which rejects it) takes
/// missing arguments as 0 and ignores extra ones, whose reads still happen.
pub(super) fn value_tree(v: &VExpr, reads: &mut u32) -> Value {
    let mut tree = |x: &VExpr| Box::new(value_tree(x, reads));
    match v {
        VExpr::Lit(x) => Value::Lit(*x),
        VExpr::Read(_) => {
            *reads += 1;
            Value::Read(*reads - 1)
        }
        VExpr::Index(e) => Value::Index(Box::new(code_i(e))),
        VExpr::Neg(x) => Value::Neg(tree(x)),
        VExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            Value::Bin(*op, tree(a), tree(b))
        }
        VExpr::Call(f, args) => {
            let mut args = args.iter().map(|a| value_tree(a, reads));
            let mut arg = || Box::new(args.next().unwrap_or(Value::Lit(0.0)));
            let call = match f {
                Func::Abs => Value::Abs(arg()),
                Func::Max => Value::Max(arg(), arg()),
                Func::Min => Value::Min(arg(), arg()),
                Func::Fma => Value::Fma(arg(), arg(), arg()),
            };
            // Extra arguments are numbered too: their reads are loaded like any other.
            args.for_each(drop);
            call
        }
    }
}

/// Operands that are leaves are read without a call.
#[inline]
fn operand(v: &Value, reads: &[f64], env: &[i64]) -> f64 {
    match v {
        Value::Lit(x) => *x,
        Value::Read(k) => reads.get(*k as usize).copied().unwrap_or(0.0),
        _ => value_of(v, reads, env),
    }
}

pub(super) fn value_of(v: &Value, reads: &[f64], env: &[i64]) -> f64 {
    let op = |x: &Value| operand(x, reads, env);
    match v {
        Value::Lit(x) => *x,
        Value::Read(k) => reads.get(*k as usize).copied().unwrap_or(0.0),
        Value::Index(c) => eval(c, env).unwrap_or(0) as f64,
        Value::Neg(x) => -op(x),
        Value::Bin(o, a, b) => {
            let (x, y) = (op(a), op(b));
            match o {
                VOp::Add => x + y,
                VOp::Sub => x - y,
                VOp::Mul => x * y,
                VOp::Div => x / y,
            }
        }
        Value::Abs(x) => op(x).abs(),
        Value::Max(a, b) => op(a).max(op(b)),
        Value::Min(a, b) => op(a).min(op(b)),
        Value::Fma(a, b, c) => {
            let (x, y, z) = (op(a), op(b), op(c));
            x.mul_add(y, z)
        }
    }
}

/// An access with the extent and stride of each dimension resolved at compile time.
#[derive(Clone, Debug)]
pub(super) struct CAccess {
    pub(super) buf: u32,
    /// The offset contributed by constant indices within their extents (the `0` of `T[i % 2, 0]`).
    pub(super) base: i64,
    /// The other dimensions of the buffer that the access indexes.
    pub(super) dims: Vec<Dim>,
    /// The first index beyond the buffer's dimensions, if any: it is evaluated (it may report a
    /// problem) and the access is dropped.
    pub(super) extra: Option<Code>,
    pub(super) span: Span,
}

#[derive(Clone, Debug)]
pub(super) struct Dim {
    pub(super) index: Code,
    /// Which dimension (for reports).
    pub(super) k: usize,
    pub(super) size: i64,
    pub(super) stride: i64,
}

#[derive(Clone, Debug)]
pub(super) struct CAssign {
    pub(super) stmt: StmtId,
    /// Pre-order index among the program's assignments (`Event::Exec::node`).
    pub(super) node: usize,
    pub(super) span: Span,
    pub(super) iteration: Option<Code>,
    pub(super) target: CAccess,
    pub(super) reads: Vec<CAccess>,
    pub(super) value: Value,
}

#[derive(Clone, Debug)]
pub(super) enum CNode {
    For {
        var: u32,
        lo: Code,
        hi: Code,
        body: Vec<CNode>,
        /// Whether, run outside every other loop, this loop is the one whose value is "the
        /// iteration" in reports: in a program that waits or commits, the outermost loop that
        /// does; a loop of elements beside it (a pasted prologue's copy, an epilogue's tile) has
        /// no iteration of its own. In a program that does neither, the outermost loop.
        iterates: bool,
    },
    If {
        cond: Code,
        body: Vec<CNode>,
    },
    Commit {
        queue: i64,
        /// Dense number of the queue (queues in increasing order), indexing the machine's queues.
        q: usize,
        body: Vec<CNode>,
        span: Span,
    },
    Async {
        body: Vec<CNode>,
    },
    Wait {
        queue: i64,
        q: usize,
        count: Code,
        index: usize,
        body: Vec<CNode>,
        span: Span,
        /// The variables of the loops around it but the outermost: a target unrolls those and
        /// keeps the outermost rolled, so the count must not change with the outermost alone
        /// (`RunOptions::immediate_counts`).
        unrolled: Vec<u32>,
    },
    Assign(Box<CAssign>),
}

pub(super) fn code_i(e: &IExpr) -> Code {
    match e {
        IExpr::Const(c) => Code::Const(*c),
        IExpr::Var(v) => Code::Var(*v),
        IExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            match (code_i(a), code_i(b)) {
                (Code::Var(v), Code::Const(c)) => Code::VarConst(*op, v, c),
                (a, Code::Const(c)) => Code::ExprConst(*op, Box::new(a), c),
                (a, b) => Code::Bin(*op, Box::new(a), Box::new(b)),
            }
        }
        IExpr::Select(s) => Code::Select(
            Box::new(code_c(&s.0)),
            Box::new(code_i(&s.1)),
            Box::new(code_i(&s.2)),
        ),
    }
}

pub(super) fn code_c(c: &Cond) -> Code {
    match c {
        Cond::True => Code::Const(1),
        Cond::Cmp(op, a, b) => Code::Cmp(*op, Box::new(code_i(a)), Box::new(code_i(b))),
        Cond::And(a, b) => Code::And(Box::new(code_c(a)), Box::new(code_c(b))),
        Cond::Or(a, b) => Code::Or(Box::new(code_c(a)), Box::new(code_c(b))),
        Cond::Not(a) => Code::Not(Box::new(code_c(a))),
    }
}

fn compile_access(a: &Access, bufs: &[Buf]) -> CAccess {
    let (shape, strides) = bufs
        .get(a.buffer as usize)
        .map_or((&[][..], &[][..]), |b| (&b.shape[..], &b.strides[..]));
    let mut base = 0;
    let mut dims = Vec::with_capacity(a.indices.len());
    let mut extra = None;
    for (k, e) in a.indices.iter().enumerate() {
        match (shape.get(k), strides.get(k)) {
            (Some(&size), Some(&stride)) => match code_i(e) {
                // Cannot fail: no report is skipped by adding it in advance.
                Code::Const(c) if (0..size).contains(&c) => base += c * stride,
                index => dims.push(Dim {
                    index,
                    k,
                    size,
                    stride,
                }),
            },
            _ => {
                extra = Some(code_i(e));
                break;
            }
        }
    }
    CAccess {
        buf: a.buffer,
        base,
        dims,
        extra,
        span: a.span,
    }
}

/// Every queue that the program commits to or waits on, in increasing order: the machine keeps its
/// queues in a vector in this order, which iterates them as a map keyed by queue would.
pub(super) fn queues_of(nodes: &[Node], out: &mut Vec<i64>) {
    for n in nodes {
        match n {
            Node::Commit { queue, body, .. } | Node::Wait { queue, body, .. } => {
                out.push(*queue);
                queues_of(body, out);
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => queues_of(body, out),
            Node::Assign(_) | Node::Barrier { .. } => {}
        }
    }
}

pub(super) fn compile(
    nodes: &[Node],
    bufs: &[Buf],
    queues: &[i64],
    waits: &mut Vec<(Option<u32>, i64, Span)>,
) -> Vec<CNode> {
    let mut out = compile_in(nodes, bufs, queues, waits, &[], &mut 0);
    if synchronizes(&out) {
        mark_element_loops(&mut out);
    }
    out
}

/// Whether `nodes` wait or commit anywhere.
fn synchronizes(nodes: &[CNode]) -> bool {
    nodes.iter().any(|n| match n {
        CNode::Commit { .. } | CNode::Wait { .. } => true,
        CNode::For { body, .. } | CNode::If { body, .. } | CNode::Async { body } => {
            synchronizes(body)
        }
        CNode::Assign(_) => false,
    })
}

/// Every loop that neither waits nor commits, in a program that does, iterates over elements.
fn mark_element_loops(nodes: &mut [CNode]) {
    for n in nodes {
        match n {
            CNode::For { body, iterates, .. } => {
                *iterates = synchronizes(body);
                mark_element_loops(body);
            }
            CNode::If { body, .. } | CNode::Async { body } | CNode::Commit { body, .. } => {
                mark_element_loops(body)
            }
            CNode::Wait { body, .. } => mark_element_loops(body),
            CNode::Assign(_) => {}
        }
    }
}

/// `compile` of `nodes` inside the loops of `loops` (outermost first).
fn compile_in(
    nodes: &[Node],
    bufs: &[Buf],
    queues: &[i64],
    waits: &mut Vec<(Option<u32>, i64, Span)>,
    loops: &[u32],
    assigns: &mut usize,
) -> Vec<CNode> {
    let dense = |queue: i64| queues.binary_search(&queue).unwrap_or(0);
    let mut out = Vec::new();
    for n in nodes {
        match n {
            Node::For {
                var, lo, hi, body, ..
            } => {
                let inner: Vec<u32> = loops.iter().copied().chain([*var]).collect();
                out.push(CNode::For {
                    var: *var,
                    lo: code_i(lo),
                    hi: code_i(hi),
                    body: compile_in(body, bufs, queues, waits, &inner, assigns),
                    iterates: true,
                })
            }
            Node::If { cond, body, .. } => out.push(CNode::If {
                cond: code_c(cond),
                body: compile_in(body, bufs, queues, waits, loops, assigns),
            }),
            Node::Commit { queue, body, span } => out.push(CNode::Commit {
                queue: *queue,
                q: dense(*queue),
                body: compile_in(body, bufs, queues, waits, loops, assigns),
                span: *span,
            }),
            Node::AsyncScope { body, .. } => out.push(CNode::Async {
                body: compile_in(body, bufs, queues, waits, loops, assigns),
            }),
            Node::Wait {
                queue,
                count,
                body,
                wait,
                span,
            } => {
                let index = waits.len();
                waits.push((*wait, *queue, *span));
                out.push(CNode::Wait {
                    queue: *queue,
                    q: dense(*queue),
                    count: code_i(count),
                    index,
                    body: compile_in(body, bufs, queues, waits, loops, assigns),
                    span: *span,
                    unrolled: loops.get(1..).unwrap_or_default().to_vec(),
                })
            }
            // One thread (this machine's model) passes a barrier alone: nothing to wait for.
            Node::Barrier { .. } => {}
            Node::Section { body, .. } => {
                out.extend(compile_in(body, bufs, queues, waits, loops, assigns))
            }
            Node::Assign(a) => {
                let mut reads = Vec::new();
                for_each_read(&a.value, &mut |r| reads.push(compile_access(r, bufs)));
                let value = value_tree(&a.value, &mut 0);
                let node = *assigns;
                *assigns += 1;
                out.push(CNode::Assign(Box::new(CAssign {
                    stmt: a.stmt,
                    node,
                    span: a.span,
                    iteration: a.iteration.as_ref().map(code_i),
                    target: compile_access(&a.target, bufs),
                    reads,
                    value,
                })));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read() -> VExpr {
        VExpr::Read(Access {
            buffer: 0,
            indices: vec![IExpr::Const(0)],
            span: Span::default(),
        })
    }

    /// Reads are numbered in `for_each_read`'s order (how the machine loads them), also through a
    /// call with the wrong number of arguments.
    #[test]
    fn value_trees_number_reads_as_they_are_loaded() {
        let mut n = 0;
        let short = value_tree(&VExpr::Call(Func::Fma, vec![read(), read()]), &mut n);
        assert_eq!(n, 2);
        assert_eq!(
            value_of(&short, &[2.0, 3.0], &[]),
            6.0,
            "a missing addend is 0"
        );
        let mut n = 0;
        let long = value_tree(&VExpr::Call(Func::Abs, vec![read(), read()]), &mut n);
        assert_eq!(n, 2, "the extra argument's read is still loaded");
        assert_eq!(value_of(&long, &[-4.0, 9.0], &[]), 4.0);
    }
}
