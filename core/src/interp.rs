//! The interpreter: runs an `ir::Program` — the source loop or a pipelined program, printed by
//! Stagecraft or edited by hand — on a machine with asynchronous queues, and reports every race on
//! in-flight data. docs/interpreter.md states the model.
//!
//! The program is compiled once (index expressions and values as small trees, each access with its
//! extents, strides and constant offset resolved, queues numbered densely) so that the hot loop
//! does no allocation and no map lookup: per element it keeps counts of pending async writes and
//! reads, which makes each race check O(1).

use crate::affine::{interval, Interval};
use crate::diagnostic::Span;
use crate::ir::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase", tag = "policy")]
pub enum Policy {
    /// A group completes only when a wait forces it: exposes every missing wait.
    #[default]
    Latest,
    /// A group completes as soon as it is committed.
    Earliest,
    /// Groups complete at seeded random moments, oldest first within a queue.
    Random { seed: u64 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunOptions {
    pub policy: Policy,
    /// Values of free names (symbolic extents); missing ones take `limits::DEFAULT_SYMBOLIC_EXTENT`.
    pub params: BTreeMap<String, i64>,
    /// Seed of the input values.
    pub seed: u64,
    pub max_instances: u64,
    pub trace: bool,
    pub max_trace_events: usize,
    /// Added to the count of the wait with this static index (pre-order), at every instance.
    pub count_delta: BTreeMap<usize, i64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            policy: Policy::Latest,
            params: BTreeMap::new(),
            seed: 1,
            max_instances: crate::limits::MAX_INTERPRETED_INSTANCES,
            trace: false,
            max_trace_events: 4096,
            count_delta: BTreeMap::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaceKind {
    /// A read of an element whose asynchronous write has not completed.
    ReadAfterWrite,
    /// A write to an element that a pending asynchronous write also targets.
    WriteAfterWrite,
    /// A write to an element that a pending asynchronous statement may still be reading.
    WriteAfterRead,
}

impl RaceKind {
    pub fn describe(self) -> &'static str {
        match self {
            RaceKind::ReadAfterWrite => "reads data whose asynchronous write is still in flight",
            RaceKind::WriteAfterWrite => {
                "overwrites data that an in-flight asynchronous write also targets"
            }
            RaceKind::WriteAfterRead => {
                "overwrites data that an in-flight asynchronous statement may still be reading"
            }
        }
    }
}

/// A group still in flight, named by what it contains.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingGroup {
    pub queue: i64,
    /// Commit number within its queue, from 0.
    pub seq: u64,
    /// (statement, iteration) of the async statements in the group.
    pub members: Vec<(StmtId, Option<i64>)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Race {
    pub kind: RaceKind,
    pub stmt: StmtId,
    pub span: Span,
    pub iteration: Option<i64>,
    pub buffer: String,
    pub element: Vec<i64>,
    /// Ring slot (first index) when the buffer is multi-versioned.
    pub slot: Option<i64>,
    pub group: PendingGroup,
    /// The last wait on that queue executed before the racing access (static index and id), if any.
    pub wait: Option<WaitRef>,
    /// The top-level step of the racing access, numbered from 1 as the timeline numbers its spans'
    /// steps (every iteration of a top-level loop, and every other top-level statement or scope).
    #[serde(default)]
    pub step: u64,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitRef {
    /// Pre-order index of the `Wait` node.
    pub index: usize,
    /// The derived wait it comes from, when known.
    pub id: Option<u32>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Exec {
        stmt: StmtId,
        iteration: Option<i64>,
        is_async: bool,
        group: Option<(i64, u64)>,
        target: (String, Vec<i64>),
    },
    Commit {
        queue: i64,
        seq: u64,
        size: usize,
    },
    Wait {
        index: usize,
        queue: i64,
        count: i64,
        in_flight: u64,
        forced: Vec<u64>,
    },
    Complete {
        queue: i64,
        seq: u64,
    },
}

/// Statistics of one static wait across its instances.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WaitStats {
    pub index: usize,
    pub id: Option<u32>,
    pub queue: i64,
    pub span: Span,
    pub instances: u64,
    /// Largest number of groups in flight when it ran.
    pub max_in_flight: u64,
    /// Instances where it forced at least one group.
    pub forcing_instances: u64,
    /// Smallest `in_flight − count` seen (≤ 0 means the count already covered everything in flight).
    pub min_slack: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub races: Vec<Race>,
    pub problems: Vec<Problem>,
    pub trace: Vec<Event>,
    pub waits: Vec<WaitStats>,
    pub instances: u64,
    /// The instance cap stopped the run.
    pub truncated: bool,
    /// Global buffers: name → (shape, values, written mask).
    #[serde(skip)]
    pub memory: BTreeMap<String, BufferState>,
    pub pending_at_end: u64,
    /// Why the run could not start (e.g. a buffer beyond the size limit).
    pub aborted: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BufferState {
    pub shape: Vec<i64>,
    pub values: Vec<f64>,
    pub written: Vec<bool>,
    pub global: bool,
    pub versions: u32,
}

const MAX_RACES: usize = 64;

/// Row-major strides of a shape.
pub fn strides_of(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        let next =
            strides.get(k + 1).copied().unwrap_or(1) * shape.get(k + 1).copied().unwrap_or(1);
        if let Some(s) = strides.get_mut(k) {
            *s = next;
        }
    }
    strides
}

/// The multi-dimensional index of a flat offset.
pub fn unflatten(strides: &[i64], off: usize) -> Vec<i64> {
    let mut rest = off as i64;
    strides
        .iter()
        .map(|s| {
            let s = (*s).max(1);
            let i = rest / s;
            rest %= s;
            i
        })
        .collect()
}

/// The deterministic input value of element `index` of global buffer `name`.
pub fn input_value(name: &str, index: &[i64], seed: u64) -> f64 {
    input_value_after(name_hash(name, seed), index)
}

/// The part of `input_value` that depends on the buffer only, computed once per buffer.
fn name_hash(name: &str, seed: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    h
}

fn input_value_after(mut h: u64, index: &[i64]) -> f64 {
    for &i in index {
        h = (h ^ (i as u64)).wrapping_mul(0x100_0000_01b3);
        h ^= h >> 29;
    }
    // Small integers keep every sum and product exact in any float type.
    ((h % 17) as f64) - 8.0
}

// ---------------------------------------------------------------- compilation

/// An index expression or condition (1 or 0) as a tree. Every operand is evaluated, as the
/// unselected branch of a `Select` too: any division by zero or overflow makes the whole
/// expression fail. The commonest index shapes (`i ± c`, `i % c`, `(i - 1) % c`) get their own
/// variants so that they cost one dispatch.
#[derive(Clone, Debug)]
enum Code {
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
fn eval(code: &Code, env: &[i64]) -> Option<i64> {
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
enum Value {
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
fn value_tree(v: &VExpr, reads: &mut u32) -> Value {
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

fn value_of(v: &Value, reads: &[f64], env: &[i64]) -> f64 {
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
struct CAccess {
    buf: u32,
    /// The offset contributed by constant indices within their extents (the `0` of `T[i % 2, 0]`).
    base: i64,
    /// The other dimensions of the buffer that the access indexes.
    dims: Vec<Dim>,
    /// The first index beyond the buffer's dimensions, if any: it is evaluated (it may report a
    /// problem) and the access is dropped.
    extra: Option<Code>,
    span: Span,
}

#[derive(Clone, Debug)]
struct Dim {
    index: Code,
    /// Which dimension (for reports).
    k: usize,
    size: i64,
    stride: i64,
}

#[derive(Clone, Debug)]
struct CAssign {
    stmt: StmtId,
    span: Span,
    iteration: Option<Code>,
    target: CAccess,
    reads: Vec<CAccess>,
    value: Value,
}

#[derive(Clone, Debug)]
enum CNode {
    For {
        var: u32,
        lo: Code,
        hi: Code,
        body: Vec<CNode>,
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
    },
    Assign(Box<CAssign>),
}

fn code_i(e: &IExpr) -> Code {
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

fn code_c(c: &Cond) -> Code {
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
fn queues_of(nodes: &[Node], out: &mut Vec<i64>) {
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
            Node::Assign(_) => {}
        }
    }
}

fn compile(
    nodes: &[Node],
    bufs: &[Buf],
    queues: &[i64],
    waits: &mut Vec<(Option<u32>, i64, Span)>,
) -> Vec<CNode> {
    let dense = |queue: i64| queues.binary_search(&queue).unwrap_or(0);
    let mut out = Vec::new();
    for n in nodes {
        match n {
            Node::For {
                var, lo, hi, body, ..
            } => out.push(CNode::For {
                var: *var,
                lo: code_i(lo),
                hi: code_i(hi),
                body: compile(body, bufs, queues, waits),
            }),
            Node::If { cond, body, .. } => out.push(CNode::If {
                cond: code_c(cond),
                body: compile(body, bufs, queues, waits),
            }),
            Node::Commit { queue, body, .. } => out.push(CNode::Commit {
                queue: *queue,
                q: dense(*queue),
                body: compile(body, bufs, queues, waits),
            }),
            Node::AsyncScope { body, .. } => out.push(CNode::Async {
                body: compile(body, bufs, queues, waits),
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
                    body: compile(body, bufs, queues, waits),
                    span: *span,
                })
            }
            Node::Section { body, .. } => out.extend(compile(body, bufs, queues, waits)),
            Node::Assign(a) => {
                let mut reads = Vec::new();
                for_each_read(&a.value, &mut |r| reads.push(compile_access(r, bufs)));
                let value = value_tree(&a.value, &mut 0);
                out.push(CNode::Assign(Box::new(CAssign {
                    stmt: a.stmt,
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

// ---------------------------------------------------------------- shapes

/// Shapes of implicit globals: the interval each index covers over the loop ranges.
fn infer_shapes(
    program: &Program,
    env: &[i64],
    problems: &mut Vec<Problem>,
) -> Vec<Option<Vec<i64>>> {
    let mut shapes: Vec<Option<Vec<i64>>> =
        program.buffers.iter().map(|b| b.shape.clone()).collect();
    let mut ranges: Vec<Interval> = env.iter().map(|v| Interval::point(*v)).collect();
    for (i, v) in program.vars.iter().enumerate() {
        if v.kind == VarKind::Loop {
            if let Some(r) = ranges.get_mut(i) {
                *r = Interval::ALL;
            }
        }
    }
    let mut inferred: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
    walk_shapes(&program.body, program, &mut ranges, &mut inferred, problems);
    for (b, dims) in inferred {
        if let Some(s) = shapes.get_mut(b as usize) {
            if s.is_none() {
                *s = Some(dims.iter().map(|d| (*d).max(1)).collect());
            }
        }
    }
    shapes
}

fn walk_shapes(
    nodes: &[Node],
    program: &Program,
    ranges: &mut Vec<Interval>,
    inferred: &mut BTreeMap<u32, Vec<i64>>,
    problems: &mut Vec<Problem>,
) {
    for n in nodes {
        match n {
            Node::For {
                var, lo, hi, body, ..
            } => {
                let look = |v: VarId| ranges.get(v as usize).copied().unwrap_or(Interval::ALL);
                let (l, h) = (interval(lo, &look), interval(hi, &look));
                let saved = ranges.get(*var as usize).copied();
                if let Some(r) = ranges.get_mut(*var as usize) {
                    *r = Interval {
                        lo: l.lo,
                        hi: h.hi.saturating_sub(1).max(l.lo),
                    };
                }
                walk_shapes(body, program, ranges, inferred, problems);
                if let (Some(r), Some(s)) = (ranges.get_mut(*var as usize), saved) {
                    *r = s;
                }
            }
            Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => walk_shapes(body, program, ranges, inferred, problems),
            Node::Assign(a) => {
                let mut note = |acc: &Access| {
                    if program
                        .buffer(acc.buffer)
                        .is_some_and(|b| b.shape.is_none())
                    {
                        let look =
                            |v: VarId| ranges.get(v as usize).copied().unwrap_or(Interval::ALL);
                        let dims: Vec<i64> = acc
                            .indices
                            .iter()
                            .map(|e| {
                                let iv = interval(e, &look);
                                if iv.is_bounded() {
                                    iv.hi.saturating_add(1)
                                } else {
                                    -1
                                }
                            })
                            .collect();
                        let entry = inferred
                            .entry(acc.buffer)
                            .or_insert_with(|| vec![0; dims.len()]);
                        if entry.len() != dims.len() {
                            problems.push(Problem {
                                span: acc.span,
                                message: "this global buffer is indexed with different numbers of dimensions".into(),
                            });
                            return;
                        }
                        for (e, d) in entry.iter_mut().zip(&dims) {
                            *e = if *d < 0 || *e < 0 { -1 } else { (*e).max(*d) };
                        }
                    }
                };
                note(&a.target);
                for_each_read(&a.value, &mut note);
            }
        }
    }
}

// ---------------------------------------------------------------- machine

#[derive(Clone)]
struct Buf {
    name: String,
    shape: Vec<i64>,
    strides: Vec<i64>,
    values: Vec<f64>,
    written: Vec<bool>,
    pending_writes: Vec<u32>,
    pending_reads: Vec<u32>,
    dtype: DType,
    versions: u32,
    global: bool,
}

struct Group {
    queue: i64,
    q: usize,
    seq: u64,
    writes: Vec<(u32, usize, f64)>,
    reads: Vec<(u32, usize)>,
    members: Vec<(StmtId, Option<i64>)>,
    done: bool,
}

struct Machine<'a> {
    opts: &'a RunOptions,
    bufs: Vec<Buf>,
    env: Vec<i64>,
    groups: Vec<Group>,
    open: Vec<usize>,
    /// Per dense queue number: groups committed and not completed, oldest first.
    in_flight: Vec<VecDeque<usize>>,
    /// Per dense queue number: groups committed so far.
    committed: Vec<u64>,
    last_wait: Vec<Option<WaitRef>>,
    /// `opts.count_delta` per wait index.
    count_delta: Vec<i64>,
    wait_refs: Vec<(Option<u32>, i64, Span)>,
    run: Run,
    async_depth: usize,
    rng: u64,
    stopped: bool,
    scratch_offsets: Vec<(u32, usize)>,
    free_groups: Vec<usize>,
    scratch_values: Vec<f64>,
    for_depth: usize,
    current_outer: Option<u32>,
    /// Loops and scopes entered (sections and guards do not count): 0 at the top level.
    nest: usize,
    /// Top-level steps begun so far, counted as `timeline` counts them.
    step: u64,
}

enum Stop {
    Cap,
}

impl Machine<'_> {
    fn eval(&self, code: &Code) -> Option<i64> {
        eval(code, &self.env)
    }

    fn problem(&mut self, span: Span, message: String) {
        if self.run.problems.len() < 32
            && !self
                .run
                .problems
                .iter()
                .any(|p| p.span == span && p.message == message)
        {
            self.run.problems.push(Problem { span, message });
        }
    }

    /// Element offset of an access, or a located problem. Allocation-free on the hot path.
    #[inline]
    fn locate(&mut self, a: &CAccess) -> Option<usize> {
        let mut off = a.base;
        for d in &a.dims {
            let Some(i) = eval(&d.index, &self.env) else {
                self.problem(a.span, "an index divides by zero or overflows".into());
                return None;
            };
            if i < 0 || i >= d.size {
                self.out_of_bounds(a, d.k, i);
                return None;
            }
            off += i * d.stride;
        }
        if let Some(c) = &a.extra {
            if eval(c, &self.env).is_none() {
                self.problem(a.span, "an index divides by zero or overflows".into());
            }
            return None;
        }
        Some(off as usize)
    }

    #[cold]
    fn out_of_bounds(&mut self, a: &CAccess, k: usize, i: i64) {
        let Some(buf) = self.bufs.get(a.buf as usize) else {
            return;
        };
        let name = buf.name.clone();
        let shape = buf.shape.clone();
        let size = shape.get(k).copied().unwrap_or(0);
        let iter = self.iteration_of(None);
        self.problem(
            a.span,
            format!(
                "index {k} of `{name}` is {i}, outside 0..{size} (shape {shape:?}{})",
                iter.map_or(String::new(), |j| format!(", iteration {j}"))
            ),
        );
    }

    /// The multi-dimensional index of an element offset (for reports).
    fn index_of(&self, buf: u32, off: usize) -> Vec<i64> {
        self.bufs
            .get(buf as usize)
            .map_or_else(Vec::new, |b| unflatten(&b.strides, off))
    }

    /// The original iteration of a pipelined copy, or (hand-written and source programs) the value
    /// of the outermost loop variable running now.
    fn iteration_of(&mut self, code: Option<&Code>) -> Option<i64> {
        match code {
            Some(c) => self.eval(c),
            None => self
                .current_outer
                .and_then(|v| self.env.get(v as usize).copied()),
        }
    }

    fn pending_group_of(&self, queue_filter: impl Fn(&Group) -> bool) -> Option<usize> {
        self.in_flight
            .iter()
            .flat_map(|q| q.iter())
            .copied()
            .find(|&g| {
                self.groups
                    .get(g)
                    .is_some_and(|g| !g.done && queue_filter(g))
            })
    }

    #[allow(clippy::too_many_arguments)]
    fn race(
        &mut self,
        kind: RaceKind,
        a: &CAssign,
        iteration: Option<i64>,
        buf: u32,
        index: &[i64],
        group: usize,
    ) {
        if self.run.races.len() >= MAX_RACES {
            return;
        }
        let Some(g) = self.groups.get(group) else {
            return;
        };
        let pending = PendingGroup {
            queue: g.queue,
            seq: g.seq,
            members: g.members.clone(),
        };
        let wait = self.last_wait.get(g.q).copied().flatten();
        let (name, versions) = self
            .bufs
            .get(buf as usize)
            .map_or((String::from("?"), 1), |b| (b.name.clone(), b.versions));
        let slot = (versions > 1).then(|| index.first().copied()).flatten();
        let who: Vec<String> = pending
            .members
            .iter()
            .take(3)
            .map(|(s, j)| {
                format!(
                    "statement {s}{}",
                    j.map_or(String::new(), |j| format!(" of iteration {j}"))
                )
            })
            .collect();
        let message = format!(
            "{} `{name}{index:?}`{}: group {} of queue {} ({}) is still in flight{}",
            kind.describe(),
            slot.map_or(String::new(), |s| format!(" (ring slot {s})")),
            pending.seq,
            pending.queue,
            who.join(", "),
            match wait {
                Some(_) => format!(
                    "; the last wait on queue {} before this access should have covered it",
                    pending.queue
                ),
                None => format!(
                    "; no wait on queue {} ran before this access",
                    pending.queue
                ),
            }
        );
        self.run.races.push(Race {
            kind,
            stmt: a.stmt,
            span: a.span,
            iteration,
            buffer: name,
            element: index.to_vec(),
            slot,
            group: pending,
            wait,
            step: self.step,
            message,
        });
    }

    fn complete(&mut self, g: usize) {
        let Some(group) = self.groups.get_mut(g) else {
            return;
        };
        if group.done {
            return;
        }
        group.done = true;
        let (queue, q, seq) = (group.queue, group.q, group.seq);
        let bufs = &mut self.bufs;
        for &(b, off, v) in &group.writes {
            if let Some(buf) = bufs.get_mut(b as usize) {
                if let Some(x) = buf.values.get_mut(off) {
                    *x = v;
                }
                if let Some(w) = buf.written.get_mut(off) {
                    *w = true;
                }
                if let Some(p) = buf.pending_writes.get_mut(off) {
                    *p = p.saturating_sub(1);
                }
            }
        }
        for &(b, off) in &group.reads {
            if let Some(p) = bufs
                .get_mut(b as usize)
                .and_then(|buf| buf.pending_reads.get_mut(off))
            {
                *p = p.saturating_sub(1);
            }
        }
        // Recycle the slot and its buffers: long runs commit many groups.
        group.writes.clear();
        group.reads.clear();
        group.members.clear();
        if let Some(q) = self.in_flight.get_mut(q) {
            // Waits and the random policy complete the oldest group.
            if q.front() == Some(&g) {
                q.pop_front();
            } else {
                q.retain(|x| *x != g);
            }
        }
        self.free_groups.push(g);
        if self.opts.trace {
            self.trace(Event::Complete { queue, seq });
        }
    }

    fn begin_step_at_top(&mut self) {
        if self.nest == 0 {
            self.step += 1;
        }
    }

    fn trace(&mut self, e: Event) {
        if self.opts.trace && self.run.trace.len() < self.opts.max_trace_events {
            self.run.trace.push(e);
        }
    }

    fn random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Under the random policy, sometimes complete the oldest group of some queue.
    fn maybe_complete(&mut self) {
        if let Policy::Random { .. } = self.opts.policy {
            if self.random().is_multiple_of(4) {
                let queues: Vec<usize> = self
                    .in_flight
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(q, _)| q)
                    .collect();
                if !queues.is_empty() {
                    let q = queues
                        .get((self.random() as usize) % queues.len())
                        .copied()
                        .unwrap_or(0);
                    if let Some(&g) = self.in_flight.get(q).and_then(|v| v.front()) {
                        self.complete(g);
                    }
                }
            }
        }
    }

    fn exec(&mut self, nodes: &[CNode]) -> Result<(), Stop> {
        for n in nodes {
            if self.stopped {
                return Err(Stop::Cap);
            }
            match n {
                CNode::For { var, lo, hi, body } => {
                    let (Some(l), Some(h)) = (self.eval(lo), self.eval(hi)) else {
                        continue;
                    };
                    let outermost = self.for_depth == 0;
                    if outermost {
                        self.current_outer = Some(*var);
                    }
                    let top = self.nest == 0;
                    self.for_depth += 1;
                    self.nest += 1;
                    let saved = self.env.get(*var as usize).copied();
                    let mut v = l;
                    while v < h {
                        if let Some(slot) = self.env.get_mut(*var as usize) {
                            *slot = v;
                        }
                        if top {
                            self.step += 1;
                        }
                        self.exec(body)?;
                        v += 1;
                    }
                    self.nest -= 1;
                    if let (Some(slot), Some(s)) = (self.env.get_mut(*var as usize), saved) {
                        *slot = s;
                    }
                    self.for_depth -= 1;
                    if outermost {
                        self.current_outer = None;
                    }
                }
                CNode::If { cond, body } => {
                    if self.eval(cond).is_some_and(|c| c != 0) {
                        self.exec(body)?;
                    }
                }
                CNode::Commit { queue, q, body } => {
                    self.begin_step_at_top();
                    let seq = self.committed.get(*q).copied().unwrap_or(0);
                    let g = match self.free_groups.pop() {
                        Some(g) => {
                            if let Some(x) = self.groups.get_mut(g) {
                                x.queue = *queue;
                                x.q = *q;
                                x.seq = seq;
                                x.done = false;
                            }
                            g
                        }
                        None => {
                            self.groups.push(Group {
                                queue: *queue,
                                q: *q,
                                seq,
                                writes: Vec::new(),
                                reads: Vec::new(),
                                members: Vec::new(),
                                done: false,
                            });
                            self.groups.len() - 1
                        }
                    };
                    self.open.push(g);
                    self.nest += 1;
                    let r = self.exec(body);
                    self.nest -= 1;
                    self.open.pop();
                    if let Some(c) = self.committed.get_mut(*q) {
                        *c = seq + 1;
                    }
                    if let Some(f) = self.in_flight.get_mut(*q) {
                        f.push_back(g);
                    }
                    if self.opts.trace {
                        let size = self.groups.get(g).map_or(0, |x| x.members.len());
                        self.trace(Event::Commit {
                            queue: *queue,
                            seq,
                            size,
                        });
                    }
                    if self.opts.policy == Policy::Earliest {
                        self.complete(g);
                    }
                    r?;
                }
                CNode::Async { body } => {
                    self.async_depth += 1;
                    self.nest += 1;
                    let r = self.exec(body);
                    self.nest -= 1;
                    self.async_depth -= 1;
                    r?;
                }
                CNode::Wait {
                    queue,
                    q,
                    count,
                    index,
                    body,
                    span,
                } => {
                    self.begin_step_at_top();
                    let Some(mut n) = self.eval(count) else {
                        self.problem(*span, "this wait count divides by zero or overflows".into());
                        continue;
                    };
                    n += self.count_delta.get(*index).copied().unwrap_or(0);
                    if n < 0 {
                        self.problem(
                            *span,
                            format!("wait count {n} is negative; it is treated as 0"),
                        );
                        n = 0;
                    }
                    let in_flight = self.in_flight.get(*q).map_or(0, VecDeque::len) as u64;
                    // The commit numbers of the forced groups are only kept for the trace.
                    let mut forced = Vec::new();
                    let mut forcing = false;
                    while self.in_flight.get(*q).map_or(0, VecDeque::len) as i64 > n {
                        let Some(g) = self.in_flight.get(*q).and_then(VecDeque::front).copied()
                        else {
                            break;
                        };
                        if self.opts.trace {
                            forced.push(self.groups.get(g).map_or(0, |x| x.seq));
                        }
                        forcing = true;
                        self.complete(g);
                    }
                    if let Some(st) = self.run.waits.get_mut(*index) {
                        st.instances += 1;
                        st.max_in_flight = st.max_in_flight.max(in_flight);
                        if forcing {
                            st.forcing_instances += 1;
                        }
                        let slack = in_flight as i64 - n;
                        st.min_slack = Some(st.min_slack.map_or(slack, |m| m.min(slack)));
                    }
                    let id = self.wait_refs.get(*index).and_then(|w| w.0);
                    if let Some(w) = self.last_wait.get_mut(*q) {
                        *w = Some(WaitRef {
                            index: *index,
                            id,
                            span: *span,
                        });
                    }
                    if self.opts.trace {
                        self.trace(Event::Wait {
                            index: *index,
                            queue: *queue,
                            count: n,
                            in_flight,
                            forced,
                        });
                    }
                    self.nest += 1;
                    let r = self.exec(body);
                    self.nest -= 1;
                    r?;
                }
                CNode::Assign(a) => {
                    self.begin_step_at_top();
                    self.run.instances += 1;
                    if self.run.instances > self.opts.max_instances {
                        self.run.truncated = true;
                        self.stopped = true;
                        return Err(Stop::Cap);
                    }
                    self.assign(a);
                    self.maybe_complete();
                }
            }
        }
        Ok(())
    }

    fn assign(&mut self, a: &CAssign) {
        let iteration = if self.opts.trace || self.async_depth > 0 {
            self.iteration_of(a.iteration.as_ref())
        } else {
            None
        };
        let is_async = self.async_depth > 0;
        let group = if is_async {
            self.open.last().copied()
        } else {
            None
        };
        if is_async && group.is_none() {
            self.problem(
                a.span,
                "an async statement outside any commit scope: it is executed synchronously".into(),
            );
        }
        // Reads.
        let mut read_offsets = std::mem::take(&mut self.scratch_offsets);
        let mut read_values = std::mem::take(&mut self.scratch_values);
        read_offsets.clear();
        read_values.clear();
        self.assign_with(
            a,
            iteration,
            group,
            is_async,
            &mut read_offsets,
            &mut read_values,
        );
        self.scratch_offsets = read_offsets;
        self.scratch_values = read_values;
    }

    fn assign_with(
        &mut self,
        a: &CAssign,
        iteration: Option<i64>,
        group: Option<usize>,
        is_async: bool,
        read_offsets: &mut Vec<(u32, usize)>,
        read_values: &mut Vec<f64>,
    ) {
        for r in &a.reads {
            let Some(off) = self.locate(r) else {
                return;
            };
            let (pending, value) = match self.bufs.get(r.buf as usize) {
                Some(b) => (
                    b.pending_writes.get(off).copied().unwrap_or(0),
                    b.values.get(off).copied().unwrap_or(0.0),
                ),
                None => return,
            };
            if pending > 0 {
                if let Some(g) = self.pending_writer(r.buf, off) {
                    let index = self.index_of(r.buf, off);
                    let iteration = iteration.or_else(|| self.iteration_of(a.iteration.as_ref()));
                    self.race(RaceKind::ReadAfterWrite, a, iteration, r.buf, &index, g);
                }
            }
            read_offsets.push((r.buf, off));
            read_values.push(value);
        }
        let value = value_of(&a.value, read_values, &self.env);
        // Write.
        let Some(off) = self.locate(&a.target) else {
            return;
        };
        let (pw, pr, dtype) = match self.bufs.get(a.target.buf as usize) {
            Some(b) => (
                b.pending_writes.get(off).copied().unwrap_or(0),
                b.pending_reads.get(off).copied().unwrap_or(0),
                b.dtype,
            ),
            None => return,
        };
        if pw > 0 {
            if let Some(g) = self.pending_writer(a.target.buf, off) {
                let index = self.index_of(a.target.buf, off);
                let iteration = iteration.or_else(|| self.iteration_of(a.iteration.as_ref()));
                self.race(
                    RaceKind::WriteAfterWrite,
                    a,
                    iteration,
                    a.target.buf,
                    &index,
                    g,
                );
            }
        }
        if pr > 0 {
            if let Some(g) = self.pending_reader(a.target.buf, off, group) {
                let index = self.index_of(a.target.buf, off);
                let iteration = iteration.or_else(|| self.iteration_of(a.iteration.as_ref()));
                self.race(
                    RaceKind::WriteAfterRead,
                    a,
                    iteration,
                    a.target.buf,
                    &index,
                    g,
                );
            }
        }
        let value = round(value, dtype);
        let name = if self.opts.trace {
            self.bufs.get(a.target.buf as usize).map(|b| b.name.clone())
        } else {
            None
        };
        match group {
            Some(g) => {
                if let Some(buf) = self.bufs.get_mut(a.target.buf as usize) {
                    if let Some(p) = buf.pending_writes.get_mut(off) {
                        *p += 1;
                    }
                }
                for &(b, o) in read_offsets.iter() {
                    if let Some(p) = self
                        .bufs
                        .get_mut(b as usize)
                        .and_then(|buf| buf.pending_reads.get_mut(o))
                    {
                        *p += 1;
                    }
                }
                if let Some(gr) = self.groups.get_mut(g) {
                    gr.writes.push((a.target.buf, off, value));
                    gr.reads.extend(read_offsets.iter().copied());
                    gr.members.push((a.stmt, iteration));
                }
            }
            None => {
                if let Some(buf) = self.bufs.get_mut(a.target.buf as usize) {
                    if let Some(x) = buf.values.get_mut(off) {
                        *x = value;
                    }
                    if let Some(w) = buf.written.get_mut(off) {
                        *w = true;
                    }
                }
            }
        }
        if let Some(name) = name {
            let seq = group
                .and_then(|g| self.groups.get(g))
                .map(|g| (g.queue, g.seq));
            self.trace(Event::Exec {
                stmt: a.stmt,
                iteration,
                is_async,
                group: seq,
                target: (name, self.index_of(a.target.buf, off)),
            });
        }
    }

    fn pending_writer(&self, buf: u32, off: usize) -> Option<usize> {
        self.pending_group_of(|g| g.writes.iter().any(|w| w.0 == buf && w.1 == off))
    }

    fn pending_reader(&self, buf: u32, off: usize, except: Option<usize>) -> Option<usize> {
        self.in_flight
            .iter()
            .flat_map(|q| q.iter())
            .copied()
            .chain(self.open.iter().copied())
            .find(|&g| {
                Some(g) != except
                    && self.groups.get(g).is_some_and(|x| {
                        !x.done && x.reads.iter().any(|r| r.0 == buf && r.1 == off)
                    })
            })
    }
}

fn round(v: f64, dtype: DType) -> f64 {
    match dtype {
        DType::Float64 => v,
        // float16/bfloat16 are rounded like float32: exact for the small integers of the inputs.
        DType::Float32 | DType::Float16 | DType::Bfloat16 => v as f32 as f64,
        DType::Int32 => (v as i64 as i32) as f64,
        DType::Int8 => (v as i64 as i8) as f64,
    }
}

/// `input_value` of every element in row-major order. The index advances like an odometer instead
/// of being recomputed from each offset: long buffers are most of the cost of preparing a run.
fn initial_values(name: &str, shape: &[i64], total: usize, seed: u64) -> Vec<f64> {
    let h = name_hash(name, seed);
    let mut index = vec![0i64; shape.len()];
    let mut values = Vec::with_capacity(total);
    for _ in 0..total {
        values.push(input_value_after(h, &index));
        for (i, d) in index.iter_mut().zip(shape).rev() {
            *i += 1;
            if *i < *d {
                break;
            }
            *i = 0;
        }
    }
    values
}

/// Runs the program. Never panics; problems are reported in the result.
pub fn run(program: &Program, opts: &RunOptions) -> Run {
    match prepare(program, opts) {
        Ok(prepared) => prepared.run(opts),
        Err(aborted) => *aborted,
    }
}

/// A program compiled with its initial memory, to run several times (the verifier re-runs the
/// pipelined program with raised wait counts and random completion orders).
pub struct Prepared {
    problems: Vec<Problem>,
    env: Vec<i64>,
    bufs: Vec<Buf>,
    code: Vec<CNode>,
    wait_refs: Vec<(Option<u32>, i64, Span)>,
    /// Number of distinct queues.
    queues: usize,
}

/// Compiles `program` and builds its initial memory from `opts.params` and `opts.seed`; a program
/// that cannot run (a buffer too large) is returned as its aborted run.
pub fn prepare(program: &Program, opts: &RunOptions) -> Result<Prepared, Box<Run>> {
    let mut problems = Vec::new();
    let env = program.env(&opts.params);
    let shapes = infer_shapes(program, &env, &mut problems);
    let mut bufs = Vec::new();
    for (b, shape) in program.buffers.iter().zip(shapes) {
        let shape = shape.unwrap_or_default();
        if shape.iter().any(|d| *d < 0) {
            problems.push(Problem {
                span: b.span,
                message: format!(
                    "the extent of `{}` cannot be inferred (an index is unbounded)",
                    b.name
                ),
            });
        }
        let total = shape
            .iter()
            .try_fold(1i64, |acc, d| acc.checked_mul((*d).max(0)));
        let total = match total {
            Some(t) if t <= crate::limits::MAX_BUFFER_ELEMENTS => t as usize,
            _ => {
                let message = format!(
                    "`{}` would have more than {} elements; not interpreted",
                    b.name,
                    crate::limits::MAX_BUFFER_ELEMENTS
                );
                problems.push(Problem {
                    span: b.span,
                    message: message.clone(),
                });
                return Err(Box::new(Run {
                    problems,
                    aborted: Some(message),
                    ..Run::default()
                }));
            }
        };
        let strides = strides_of(&shape);
        let global = b.scope == Scope::Global;
        let values: Vec<f64> = if global {
            initial_values(&b.name, &shape, total, opts.seed)
        } else {
            vec![0.0; total]
        };
        bufs.push(Buf {
            name: b.name.to_string(),
            shape,
            strides,
            values,
            written: vec![false; total],
            pending_writes: vec![0; total],
            pending_reads: vec![0; total],
            dtype: b.dtype,
            versions: b.versions,
            global,
        });
    }
    let mut wait_refs = Vec::new();
    let mut queues = Vec::new();
    queues_of(&program.body, &mut queues);
    queues.sort_unstable();
    queues.dedup();
    let code = compile(&program.body, &bufs, &queues, &mut wait_refs);
    Ok(Prepared {
        problems,
        env,
        bufs,
        code,
        wait_refs,
        queues: queues.len(),
    })
}

impl Prepared {
    /// Runs from the initial memory. Of `opts`, the policy, instance cap, trace and count deltas
    /// apply; parameters and input seed were fixed by `prepare`.
    pub fn run(&self, opts: &RunOptions) -> Run {
        run_prepared(self, opts)
    }
}

fn run_prepared(prepared: &Prepared, opts: &RunOptions) -> Run {
    let Prepared {
        problems,
        env,
        bufs,
        code,
        wait_refs,
        queues,
    } = prepared;
    let (problems, env, bufs, wait_refs) = (
        problems.clone(),
        env.clone(),
        bufs.clone(),
        wait_refs.clone(),
    );
    let seed = match opts.policy {
        Policy::Random { seed } => seed | 1,
        _ => 1,
    };
    let mut m = Machine {
        opts,
        bufs,
        env,
        groups: Vec::new(),
        open: Vec::new(),
        in_flight: vec![VecDeque::new(); *queues],
        committed: vec![0; *queues],
        last_wait: vec![None; *queues],
        count_delta: wait_refs
            .iter()
            .enumerate()
            .map(|(index, _)| opts.count_delta.get(&index).copied().unwrap_or(0))
            .collect(),
        run: Run {
            problems,
            waits: wait_refs
                .iter()
                .enumerate()
                .map(|(index, (id, queue, span))| WaitStats {
                    index,
                    id: *id,
                    queue: *queue,
                    span: *span,
                    ..WaitStats::default()
                })
                .collect(),
            ..Run::default()
        },
        wait_refs,
        async_depth: 0,
        rng: seed,
        stopped: false,
        scratch_offsets: Vec::new(),
        free_groups: Vec::new(),
        scratch_values: Vec::new(),
        for_depth: 0,
        current_outer: None,
        nest: 0,
        step: 0,
    };
    let _ = m.exec(code);
    m.run.pending_at_end = m.in_flight.iter().map(|q| q.len() as u64).sum();
    for b in m.bufs {
        m.run.memory.insert(
            b.name.clone(),
            BufferState {
                shape: b.shape,
                values: b.values,
                written: b.written,
                global: b.global,
                versions: b.versions,
            },
        );
    }
    m.run
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
