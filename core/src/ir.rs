//! The executable program form shared by the original loop and the pipelined result: loops, guards,
//! commit/async/wait scopes and assignments over resolved buffers and variables. The interpreter
//! runs it, the timeline simulates it, the emitters and the TIR printer walk it.

use crate::diagnostic::Span;
use serde::{Deserialize, Serialize};

pub type VarId = u32;
pub type BufId = u32;
/// Index of an assignment in the source, in text order. Every copy of a statement keeps it.
pub type StmtId = u32;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct Program {
    pub buffers: Vec<Buffer>,
    pub vars: Vec<Var>,
    pub body: Vec<Node>,
    /// The threads that run the loop together, when it declares them
    /// (`sch.annotate(k, "stagecraft_threads", [T])`); `None` is the one-thread model, in which
    /// every thread computes only its own values (docs/execution-model.md).
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub threads: Option<Threads>,
}

/// How many threads run a loop, and how they are grouped into waves (AMDGPU: a wave's lanes run
/// in lockstep and share one `vmcnt`, so the wave is what waits; on NVIDIA every thread waits for
/// its own `cp.async` groups, `waves == threads`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Threads {
    pub threads: u32,
    pub waves: u32,
}

impl Threads {
    /// Whether some kernel copies this loop's async copies into a spread buffer cooperatively —
    /// each thread (lane) a chunk of a tile, whoever owns its elements (docs/execution-model.md,
    /// "In the kernels"): sm_80 when every thread is its own agent (no waves), gfx950 when the
    /// loop runs on 4, 8 or 16 waves of 64. Any other loop's kernels copy per thread.
    pub fn copied_cooperatively(self) -> bool {
        self.sm80_cooperative() || self.gfx950_cooperative()
    }

    /// Several threads, each its own agent: waiting for its own `cp.async` groups, as on NVIDIA.
    pub fn sm80_cooperative(self) -> bool {
        self.threads > 1 && self.waves == self.threads
    }

    /// Waves of 64 lanes, 4, 8 or 16 of them (a power of two, so a wave's place in a chunk's
    /// round is a shift).
    pub fn gfx950_cooperative(self) -> bool {
        self.threads == 64 * self.waves && matches!(self.waves, 4 | 8 | 16)
    }

    /// The agent (wave, or thread when there are no waves) that thread `t` belongs to.
    pub fn wave_of(self, thread: u32) -> u32 {
        let lanes = (self.threads / self.waves.max(1)).max(1);
        thread / lanes
    }
}

/// How a buffer's elements are spread over the threads that run the loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    /// Every thread has its own copy (registers, fragments) and computes all of it: the
    /// one-thread model, the default.
    #[default]
    Each,
    /// One copy shared by all threads; element `e` (row-major, the ring slot left out) is
    /// written by thread `e mod T`.
    Cyclic,
    /// One copy shared by all threads; element `e` of `n` is written by thread `⌊e · T / n⌋`.
    Blocked,
}

impl Distribution {
    pub fn name(self) -> &'static str {
        match self {
            Distribution::Each => "each",
            Distribution::Cyclic => "cyclic",
            Distribution::Blocked => "blocked",
        }
    }

    pub fn parse(s: &str) -> Option<Distribution> {
        [
            Distribution::Each,
            Distribution::Cyclic,
            Distribution::Blocked,
        ]
        .into_iter()
        .find(|d| d.name() == s)
    }

    pub fn is_each(&self) -> bool {
        *self == Distribution::Each
    }

    /// The thread that writes element `e` of a slot of `n` elements, for `threads` threads.
    pub fn owner(self, e: i64, n: i64, threads: u32) -> Option<u32> {
        let t = i64::from(threads.max(1));
        match self {
            Distribution::Each => None,
            Distribution::Cyclic => Some(e.rem_euclid(t) as u32),
            Distribution::Blocked => Some((e.saturating_mul(t) / n.max(1)).clamp(0, t - 1) as u32),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Var {
    pub name: crate::syntax::Ident,
    pub kind: VarKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VarKind {
    Loop,
    /// A free name such as a symbolic extent `N`; bound to a value when the program runs.
    Param,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Global,
    Shared,
    Local,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Shared => "shared",
            Scope::Local => "local",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Float16,
    Bfloat16,
    Float32,
    Float64,
    Int8,
    Int32,
}

impl DType {
    pub const ALL: [DType; 6] = [
        DType::Float16,
        DType::Bfloat16,
        DType::Float32,
        DType::Float64,
        DType::Int8,
        DType::Int32,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DType::Float16 => "float16",
            DType::Bfloat16 => "bfloat16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Int8 => "int8",
            DType::Int32 => "int32",
        }
    }

    pub fn bytes(self) -> u32 {
        match self {
            DType::Float16 | DType::Bfloat16 => 2,
            DType::Float32 | DType::Int32 => 4,
            DType::Float64 => 8,
            DType::Int8 => 1,
        }
    }

    pub fn parse(s: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == s)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Buffer {
    pub name: crate::syntax::Ident,
    /// Full shape, including the leading ring dimension when `versions > 1`.
    /// `None` for a global whose shape is inferred from the accesses (see `bounds`).
    pub shape: Option<Vec<i64>>,
    pub scope: Scope,
    pub dtype: DType,
    /// Ring-buffer versions; the leading index selects the slot when this is more than 1.
    pub versions: u32,
    /// Where the buffer is declared, or first used if it is an implicit global.
    pub span: Span,
    pub declared: bool,
    /// How its elements are spread over the loop's threads (`threads=` in `alloc`).
    #[serde(default, skip_serializing_if = "crate::wire::omit_default")]
    pub threads: Distribution,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SectionKind {
    Prologue,
    Body,
    Epilogue,
}

impl SectionKind {
    pub fn name(self) -> &'static str {
        match self {
            SectionKind::Prologue => "prologue",
            SectionKind::Body => "body",
            SectionKind::Epilogue => "epilogue",
        }
    }
}

crate::wire::dual_tagged! {
    remote = "Node", json(tag = "node"), both(rename_all = "snake_case");
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    For {
        var: VarId,
        lo: IExpr,
        hi: IExpr,
        body: Vec<Node>,
        span: Span,
    },
    If {
        cond: Cond,
        body: Vec<Node>,
        span: Span,
    },
    /// `with async_commit_queue(q):` commits one group to queue `q` when the block exits, even an
    /// empty one.
    Commit {
        queue: i64,
        body: Vec<Node>,
        span: Span,
    },
    /// `with async_scope():` makes the writes inside join the innermost open commit scope.
    AsyncScope {
        body: Vec<Node>,
        span: Span,
    },
    /// `with async_wait_queue(q, n):` waits until at most `n` committed groups of `q` are in flight,
    /// then runs the block. `wait` links to the derived wait (its reason) when known.
    Wait {
        queue: i64,
        count: IExpr,
        body: Vec<Node>,
        wait: Option<u32>,
        span: Span,
    },
    Assign(Assign),
    /// `barrier()`: every thread (every wave) of the block arrives before any goes on
    /// (`bar.sync 0`, `s_barrier`). The reasons say which cross-thread dependences it orders,
    /// when the transform derived it.
    Barrier {
        #[serde(default, skip_serializing_if = "crate::wire::omit_empty")]
        reasons: Vec<BarrierReason>,
        span: Span,
    },
    /// A labelled part of the program (printed as a comment).
    Section {
        kind: SectionKind,
        body: Vec<Node>,
        /// Where its steps begin, for the timeline, when the transform wrote it: the first
        /// `steps[0]` nodes are one step written out (a peeled step, or a one-step loop written
        /// out), the next `steps[1]` the next step, and so on; the nodes after them are loops,
        /// whose iterations are steps, and nodes that end the last step (the final drains).
        /// `None` when unknown: each top-level node is a step.
        steps: Option<Vec<u32>>,
    },
}
}

/// Why a derived barrier is there: one thread's access that another thread's later access must
/// not overtake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BarrierReason {
    pub kind: BarrierKind,
    /// The statement whose writes are read (after a wait), or whose reads the refill must follow.
    pub producer: StmtId,
    /// The statement that reads what other threads wrote, or that refills the slot.
    pub consumer: StmtId,
    pub buffer: BufId,
    /// How many steps apart the two are, when the barrier orders accesses of different steps.
    pub distance: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierKind {
    /// Threads read what other threads wrote (after the wait that lands it, for an async copy).
    AfterWrite,
    /// A slot is refilled while other threads may still read it.
    BeforeRefill,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assign {
    pub stmt: StmtId,
    /// The original loop iteration this copy computes, as an expression of the enclosing step
    /// variable (set by the pipeline transform; `None` in the source loop and hand-written programs).
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub iteration: Option<IExpr>,
    pub target: Access,
    pub value: VExpr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Access {
    pub buffer: BufId,
    pub indices: Vec<IExpr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IOp {
    Add,
    Sub,
    Mul,
    FloorDiv,
    Mod,
    Min,
    Max,
}

impl IOp {
    /// `a op b`; `None` on overflow or division by zero.
    #[inline]
    pub fn apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            IOp::Add => a.checked_add(b),
            IOp::Sub => a.checked_sub(b),
            IOp::Mul => a.checked_mul(b),
            IOp::FloorDiv => floor_div(a, b),
            IOp::Mod => floor_mod(a, b),
            IOp::Min => Some(a.min(b)),
            IOp::Max => Some(a.max(b)),
        }
    }
}

/// Integer (index) expressions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IExpr {
    Const(i64),
    Var(VarId),
    /// The operands share one allocation: index arithmetic is built for every pipelined
    /// instance, and this halves its allocations.
    Bin(IOp, Box<[IExpr; 2]>),
    /// `cond ? then : otherwise`, rare (per-step counts of a rolled loop): boxed whole, so that
    /// every other index expression stays two words.
    Select(Box<(Cond, IExpr, IExpr)>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cond {
    True,
    Cmp(CmpOp, IExpr, IExpr),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VOp {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Func {
    Max,
    Min,
    Fma,
    Abs,
}

impl Func {
    pub fn name(self) -> &'static str {
        match self {
            Func::Max => "max",
            Func::Min => "min",
            Func::Fma => "fma",
            Func::Abs => "abs",
        }
    }

    pub fn arity(self) -> usize {
        match self {
            Func::Max | Func::Min => 2,
            Func::Fma => 3,
            Func::Abs => 1,
        }
    }

    pub fn parse(s: &str) -> Option<Func> {
        [Func::Max, Func::Min, Func::Fma, Func::Abs]
            .into_iter()
            .find(|f| f.name() == s)
    }
}

/// Value expressions: what an assignment computes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VExpr {
    Lit(f64),
    Read(Access),
    /// An index expression used as a value (`C[i] = i`).
    Index(IExpr),
    Neg(Box<VExpr>),
    /// The operands share one allocation, as in `IExpr::Bin`.
    Bin(VOp, Box<[VExpr; 2]>),
    Call(Func, Vec<VExpr>),
}

impl VExpr {
    pub fn bin(op: VOp, a: VExpr, b: VExpr) -> VExpr {
        VExpr::Bin(op, Box::new([a, b]))
    }
}

impl IExpr {
    pub fn c(v: i64) -> IExpr {
        IExpr::Const(v)
    }

    pub fn bin(op: IOp, a: IExpr, b: IExpr) -> IExpr {
        IExpr::Bin(op, Box::new([a, b]))
    }

    /// Evaluates with variable values from `env`; `None` on division by zero or overflow.
    pub fn eval(&self, env: &[i64]) -> Option<i64> {
        match self {
            IExpr::Const(v) => Some(*v),
            IExpr::Var(v) => env.get(*v as usize).copied(),
            IExpr::Bin(op, ab) => {
                let [a, b] = &**ab;
                op.apply(a.eval(env)?, b.eval(env)?)
            }
            IExpr::Select(s) => {
                let (c, a, b) = &**s;
                if c.eval(env)? {
                    a.eval(env)
                } else {
                    b.eval(env)
                }
            }
        }
    }

    pub fn as_const(&self) -> Option<i64> {
        match self {
            IExpr::Const(v) => Some(*v),
            _ => None,
        }
    }

    pub fn mentions(&self, var: VarId) -> bool {
        match self {
            IExpr::Const(_) => false,
            IExpr::Var(v) => *v == var,
            IExpr::Bin(_, ab) => {
                let [a, b] = &**ab;
                a.mentions(var) || b.mentions(var)
            }
            IExpr::Select(s) => s.0.mentions(var) || s.1.mentions(var) || s.2.mentions(var),
        }
    }
}

impl CmpOp {
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        }
    }
}

impl Cond {
    pub fn eval(&self, env: &[i64]) -> Option<bool> {
        match self {
            Cond::True => Some(true),
            Cond::Cmp(op, a, b) => Some(op.holds(a.eval(env)?, b.eval(env)?)),
            Cond::And(a, b) => Some(a.eval(env)? && b.eval(env)?),
            Cond::Or(a, b) => Some(a.eval(env)? || b.eval(env)?),
            Cond::Not(a) => Some(!a.eval(env)?),
        }
    }

    pub fn mentions(&self, var: VarId) -> bool {
        match self {
            Cond::True => false,
            Cond::Cmp(_, a, b) => a.mentions(var) || b.mentions(var),
            Cond::And(a, b) | Cond::Or(a, b) => a.mentions(var) || b.mentions(var),
            Cond::Not(a) => a.mentions(var),
        }
    }

    pub fn and(a: Cond, b: Cond) -> Cond {
        match (a, b) {
            (Cond::True, x) | (x, Cond::True) => x,
            (a, b) => Cond::And(Box::new(a), Box::new(b)),
        }
    }
}

pub fn floor_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

pub fn floor_mod(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

impl Program {
    pub fn buffer(&self, id: BufId) -> Option<&Buffer> {
        self.buffers.get(id as usize)
    }

    /// The names of the loop variables, in the order they were declared.
    pub fn loop_names(&self) -> Vec<&str> {
        self.vars
            .iter()
            .filter(|v| v.kind == VarKind::Loop)
            .map(|v| v.name.as_str())
            .collect()
    }

    pub fn var_name(&self, id: VarId) -> &str {
        self.vars.get(id as usize).map_or("?", |v| v.name.as_str())
    }

    pub fn buffer_id(&self, name: &str) -> Option<BufId> {
        self.buffers
            .iter()
            .position(|b| b.name == name)
            .and_then(|i| u32::try_from(i).ok())
    }

    /// The values of the program's variables, by id: parameters from `params` (a missing one takes
    /// `limits::DEFAULT_SYMBOLIC_EXTENT`), loop variables 0 until a loop sets them.
    pub fn env(&self, params: &std::collections::BTreeMap<String, i64>) -> Vec<i64> {
        self.vars
            .iter()
            .map(|v| match v.kind {
                VarKind::Param => params
                    .get(v.name.as_str())
                    .copied()
                    .unwrap_or(crate::limits::DEFAULT_SYMBOLIC_EXTENT),
                VarKind::Loop => 0,
            })
            .collect()
    }

    pub fn params(&self) -> impl Iterator<Item = (VarId, &Var)> {
        self.vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.kind == VarKind::Param)
            .map(|(i, v)| (i as VarId, v))
    }
}

/// Statement instances `nodes` run: loops count `trips(lo, hi)` times (`None`: unknown), conditions
/// are taken as true, so it is an upper bound where a condition is ever false.
pub fn statement_instances(
    nodes: &[Node],
    trips: &impl Fn(&IExpr, &IExpr) -> Option<u64>,
) -> Option<u64> {
    nodes.iter().try_fold(0u64, |sum, n| {
        let here = match n {
            Node::Assign(_) => 1,
            Node::Barrier { .. } => 0,
            Node::For { lo, hi, body, .. } => {
                trips(lo, hi)?.saturating_mul(statement_instances(body, trips)?)
            }
            Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => statement_instances(body, trips)?,
        };
        Some(sum.saturating_add(here))
    })
}

/// The ids of the derived waits among `nodes`, in program order.
pub fn wait_ids(nodes: &[Node], out: &mut Vec<u32>) {
    for n in nodes {
        match n {
            Node::Wait { wait, body, .. } => {
                out.extend(*wait);
                wait_ids(body, out);
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => wait_ids(body, out),
            Node::Assign(_) | Node::Barrier { .. } => {}
        }
    }
}

impl Node {
    /// The node with the nodes it holds replaced by `f` of them (an assignment or a barrier as
    /// it is).
    pub fn map_body(self, f: impl FnOnce(Vec<Node>) -> Vec<Node>) -> Node {
        match self {
            Node::For {
                var,
                lo,
                hi,
                body,
                span,
            } => Node::For {
                var,
                lo,
                hi,
                body: f(body),
                span,
            },
            Node::If { cond, body, span } => Node::If {
                cond,
                body: f(body),
                span,
            },
            Node::Commit { queue, body, span } => Node::Commit {
                queue,
                body: f(body),
                span,
            },
            Node::AsyncScope { body, span } => Node::AsyncScope {
                body: f(body),
                span,
            },
            Node::Wait {
                queue,
                count,
                body,
                wait,
                span,
            } => Node::Wait {
                queue,
                count,
                body: f(body),
                wait,
                span,
            },
            Node::Section { kind, body, steps } => Node::Section {
                kind,
                body: f(body),
                steps,
            },
            leaf @ (Node::Assign(_) | Node::Barrier { .. }) => leaf,
        }
    }
}

/// Visits every assignment in program order (static order, not execution order).
pub fn for_each_assign<'a>(nodes: &'a [Node], f: &mut impl FnMut(&'a Assign)) {
    for n in nodes {
        match n {
            Node::Assign(a) => f(a),
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => for_each_assign(body, f),
            Node::Barrier { .. } => {}
        }
    }
}

/// Visits every read access of a value expression.
pub fn for_each_read<'a>(v: &'a VExpr, f: &mut impl FnMut(&'a Access)) {
    match v {
        VExpr::Lit(_) | VExpr::Index(_) => {}
        VExpr::Read(a) => f(a),
        VExpr::Neg(x) => for_each_read(x, f),
        VExpr::Bin(_, ab) => {
            let [a, b] = &**ab;
            for_each_read(a, f);
            for_each_read(b, f);
        }
        VExpr::Call(_, args) => args.iter().for_each(|a| for_each_read(a, f)),
    }
}
