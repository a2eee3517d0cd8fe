//! Machine code for a pipelined program: PTX for sm_80 (cp.async groups) and sm_90a (bulk copies
//! with per-slot mbarriers), AMDGPU ISA for gfx942 / gfx950 (LDS DMA with `s_waitcnt vmcnt`
//! counting instructions) and AMDGPU LLVM IR (asyncmarks).
//! The execution model — one thread block, every buffer element a tile of `lanes` values, thread t
//! owning value t — is in docs/execution-model.md.
//!
//! Every target starts from the same flattened form: the peeled program with parameters bound,
//! inner loops of statements unrolled, and the body loop kept as a real loop.

/// `emit!(gen, "fmt", args…)`: one instruction written straight into the emitter's output
/// (`gen.out`, indented its way), without an intermediate `String`.
macro_rules! emit {
    ($g:expr, $($arg:tt)*) => {
        $g.out.instr_args(format_args!($($arg)*))
    };
}

mod amdgpu;
mod items;
mod llvm;
mod mbarriers;
mod ptx;
pub(crate) mod sequence;
pub(crate) mod waits;
mod walk;

use crate::affine::{interval, Interval};
use crate::ir::*;
use crate::simplify::{simplify, substitute};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// PTX for sm_80: cp.async, commit_group, wait_group.
    Ptx,
    /// PTX for sm_90a: cp.async.bulk with one mbarrier per ring slot.
    PtxSm90,
    /// AMDGPU ISA for gfx942: LDS DMA and s_waitcnt vmcnt.
    Amdgpu,
    /// AMDGPU ISA for gfx950 (dwordx4 LDS DMA available).
    AmdgpuGfx950,
    /// AMDGPU LLVM IR with llvm.amdgcn.asyncmark / wait.asyncmark.
    AmdgpuIr,
}

impl Target {
    pub const ALL: [Target; 5] = [
        Target::Ptx,
        Target::PtxSm90,
        Target::Amdgpu,
        Target::AmdgpuGfx950,
        Target::AmdgpuIr,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Ptx => "ptx",
            Target::PtxSm90 => "ptx-sm90",
            Target::Amdgpu => "amdgpu",
            Target::AmdgpuGfx950 => "amdgpu-gfx950",
            Target::AmdgpuIr => "amdgpu-ir",
        }
    }

    /// The target as a person names it (the app's target menu).
    pub fn label(self) -> &'static str {
        match self {
            Target::Ptx => "PTX sm_80",
            Target::PtxSm90 => "PTX sm_90 (bulk + mbarrier)",
            Target::Amdgpu => "AMDGPU gfx942",
            Target::AmdgpuGfx950 => "AMDGPU gfx950",
            Target::AmdgpuIr => "AMDGPU LLVM IR",
        }
    }

    pub fn parse(s: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == s)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmitOptions {
    /// Threads in the block on NVIDIA; each buffer element is a tile of this many values.
    pub lanes: u32,
    /// Threads in the workgroup on AMDGPU (one wave of 64 by default, so tiles fit in 64 KB of LDS).
    pub amd_lanes: u32,
}

impl EmitOptions {
    /// The threads a kernel for `target` runs with.
    pub fn lanes_of(&self, target: Target) -> u32 {
        match target {
            Target::Amdgpu | Target::AmdgpuGfx950 | Target::AmdgpuIr => self.amd_lanes,
            Target::Ptx | Target::PtxSm90 => self.lanes,
        }
    }
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            lanes: 128,
            amd_lanes: 64,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Emitted {
    pub target: String,
    pub text: String,
    /// What the target could not express directly, and what that costs.
    pub notes: Vec<String>,
    /// The source statement each line comes from, for highlighting.
    pub line_stmts: Vec<Option<StmtId>>,
    /// Set when nothing could be emitted.
    pub error: Option<String>,
    /// Each wait of the kernel and the waits of the pipelined program it implements (every
    /// target).
    #[serde(default)]
    pub waits: Vec<EmittedWait>,
    /// Threads of the block / workgroup the kernel is written for: the target's `EmitOptions`
    /// lanes, or the loop's own threads where the kernel runs them (gfx950's cooperative
    /// copies). A machine check's contract must say the same.
    #[serde(default, skip_serializing_if = "crate::wire::omit_default")]
    pub lanes: u32,
}

/// A wait of the emitted kernel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EmittedWait {
    /// 1-based line of the wait instruction (or of the comment that stands for it when it needs
    /// nothing to complete).
    pub line: u32,
    /// The waits of the pipelined program it implements (several queues' waits at one point are
    /// one instruction).
    pub ir: Vec<IrWait>,
    /// Its immediate (`vmcnt`, marks), when an instruction is emitted.
    pub immediate: Option<u64>,
    /// The immediate is the exact count at every instance: one value serves them all and the
    /// field holds it.
    pub exact: bool,
    /// Dynamic instances.
    pub instances: u64,
    /// How much larger the immediate would be with one group more in flight (the newest needed
    /// group's units, from its first to its last), when the same at every instance.
    pub group_units: Option<u64>,
    /// At every instance the newest group it needs is still in flight when it runs: it is the
    /// wait that completes that group (an earlier wait forcing more — a capped `vmcnt`, the single
    /// sequence of asyncmarks — can leave a later wait nothing to do).
    pub completes: bool,
    /// At every instance no other wait completes anything between it and the next wait on its
    /// queue: a group it left in flight would stay in flight until then (another queue's wait, or
    /// the `vmcnt(0)` of a synchronous load, completes everything older in the single sequence).
    pub isolated: bool,
    /// The line of the unit its count is measured from — the newest instruction (LDS DMA) or
    /// asyncmark of the newest group it needs — when the same at every instance.
    pub needed_line: Option<u32>,
    /// The groups it completes that the pipelined program's waits let stay in flight, because the
    /// target's queues share one in-order sequence (sm_80 cp.async groups, asyncmarks, vmcnt),
    /// and the note saying so (also in `Emitted::notes`).
    #[serde(default)]
    pub forced: Vec<ForcedGroup>,
    #[serde(default)]
    pub forced_note: Option<String>,
}

/// A group a kernel wait completes beyond what the pipelined program's waits at that point ask.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForcedGroup {
    pub queue: i64,
    /// Its place among the queue's committed groups at the wait: 1 the newest.
    pub newest: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IrWait {
    /// Pre-order index of the `Wait` node in the pipelined program (`interp::WaitRef::index`).
    pub node: usize,
    /// The derived wait it comes from.
    pub id: Option<u32>,
    pub queue: i64,
    /// In groups.
    pub count: i64,
}

/// One item of the flattened program.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item {
    Stmt(Stmt),
    /// A commit scope of this queue opens (its group's statements follow, then `Commit`).
    Open(i64),
    Commit(i64),
    Wait {
        queue: i64,
        count: i64,
        id: Option<u32>,
        /// Pre-order index of the `Wait` node in the pipelined program (as the interpreter and
        /// the verifier number them).
        node: usize,
    },
    Loop {
        var: VarId,
        lo: i64,
        hi: i64,
        body: Vec<Item>,
    },
    /// A derived barrier of a loop run by several threads: every thread of the block waits for
    /// the others (the kinds of its reasons, for the kernel's comment).
    Barrier(Vec<BarrierKind>),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Stmt {
    pub assign: Assign,
    pub is_async: bool,
    /// The queue of the innermost commit scope around the statement, if any.
    pub queue: Option<i64>,
}

pub(crate) struct Flat {
    pub items: Vec<Item>,
    /// Full shapes (ring dimension included) of every buffer.
    pub shapes: Vec<Vec<i64>>,
    pub loop_var: Option<VarId>,
}

struct Flattener<'p> {
    program: &'p Program,
    /// Inside the body section (the pipelined loop is the first loop there).
    in_body: bool,
    /// The program is divided in sections (a derived program; a hand-written one may not be).
    sections: bool,
    /// The program's `Wait` nodes in pre-order, to number the items made from them.
    wait_nodes: Vec<&'p Node>,
    env: BTreeMap<VarId, i64>,
    loop_var: Option<VarId>,
    loop_range: Interval,
    commit_queue: Option<i64>,
    /// Statement instances emitted so far, against `limits::MAX_EMITTED_INSTANCES`.
    instances: usize,
    error: Option<String>,
}

/// The refusal of a statement whose guard on the pipelined loop's variable holds at some
/// iterations of the body only, naming both as the pipelined program prints them.
fn guarded_in_body(program: &Program, cond: &Cond, body: &[Node]) -> String {
    let mut first = None;
    for_each_assign(body, &mut |a| {
        first.get_or_insert(a);
    });
    let what = first.map_or_else(
        || "a statement".to_string(),
        |a| format!("`{}`", crate::tir::print_assign(program, a)),
    );
    format!(
        "{what} runs under `if {}:` in the pipelined loop's body, which holds at some of its iterations only: the emitted kernels have no branches, so this loop is not emitted (the interpreter and the timeline run it)",
        crate::tir::print_cond(program, cond)
    )
}

/// The note for a statement of an async stage that is not a global->shared copy, which the
/// target issues synchronously (`issued`: "sm_80 runs it synchronously …"), naming the statement as
/// the pipelined program prints it where the kernel first meets it.
fn synchronous_note(program: &Program, a: &Assign, issued: &str) -> String {
    format!(
        "`{}` is in an async stage but is not a global->shared copy; {issued}",
        crate::tir::print_assign(program, a)
    )
}

/// `Wait` nodes in pre-order (a wait before the nodes in its body).
fn wait_nodes<'p>(nodes: &'p [Node], out: &mut Vec<&'p Node>) {
    for n in nodes {
        match n {
            Node::Wait { body, .. } => {
                out.push(n);
                wait_nodes(body, out);
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => wait_nodes(body, out),
            Node::Assign(_) | Node::Barrier { .. } => {}
        }
    }
}

impl<'p> Flattener<'p> {
    fn bind(&self, e: &IExpr) -> IExpr {
        let mut e = e.clone();
        for (v, x) in &self.env {
            e = substitute(&e, *v, &IExpr::Const(*x));
        }
        simplify(&e)
    }

    fn const_of(&mut self, e: &IExpr, what: &str) -> Option<i64> {
        let b = self.bind(e);
        if b.as_const().is_none() {
            self.error.get_or_insert_with(|| format!("{what} depends on the pipelined loop's variable; only constant inner loops are emitted"));
        }
        b.as_const()
    }

    /// A guard resolved where the kernel runs it: inner loops' variables are bound here, the
    /// pipelined loop's are decided by the transform where they can be.
    fn guarded(
        &mut self,
        cond: &Cond,
        body: &'p [Node],
        is_async: bool,
        top: bool,
        out: &mut Vec<Item>,
    ) {
        let mut c = cond.clone();
        for (v, x) in &self.env {
            c = crate::simplify::substitute_cond(&c, *v, &IExpr::Const(*x));
        }
        match c.eval(&[]) {
            Some(true) => self.nodes(body, is_async, top, out),
            Some(false) => {}
            // Inside the body loop, the user's `if` on its variable, left where it holds at
            // some iterations only; outside it, a rolled form's guard.
            None if self.loop_var.is_some() => {
                let program = self.program;
                self.error
                    .get_or_insert_with(|| guarded_in_body(program, cond, body));
            }
            None => {
                self.error.get_or_insert_with(|| {
                    "a guard depends on the loop variable; emit the peeled form of a constant extent".into()
                });
            }
        }
    }

    fn nodes(&mut self, nodes: &'p [Node], is_async: bool, top: bool, out: &mut Vec<Item>) {
        for n in nodes {
            match n {
                Node::Barrier { reasons, .. } => {
                    out.push(Item::Barrier(reasons.iter().map(|r| r.kind).collect()));
                }
                Node::Section { body, kind, .. } => {
                    // Only the body section's loop is the pipelined loop: a prologue's inner
                    // loop (`for t in range(2)` of a copy) is unrolled like any other.
                    if *kind == SectionKind::Body {
                        self.in_body = true;
                    }
                    self.nodes(body, is_async, top, out);
                    self.in_body = false;
                }
                Node::For {
                    var, lo, hi, body, ..
                } if top && self.loop_var.is_none() && (self.in_body || !self.sections) => {
                    let (Some(l), Some(h)) = (
                        self.const_of(lo, "the body loop's start"),
                        self.const_of(hi, "the body loop's end"),
                    ) else {
                        return;
                    };
                    self.loop_var = Some(*var);
                    self.loop_range = Interval {
                        lo: l,
                        hi: (h - 1).max(l),
                    };
                    let mut inner = Vec::new();
                    self.nodes(body, is_async, false, &mut inner);
                    out.push(Item::Loop {
                        var: *var,
                        lo: l,
                        hi: h,
                        body: inner,
                    });
                }
                Node::For {
                    var, lo, hi, body, ..
                } => {
                    let (Some(l), Some(h)) = (
                        self.const_of(lo, "an inner loop's start"),
                        self.const_of(hi, "an inner loop's end"),
                    ) else {
                        return;
                    };
                    if h - l > crate::limits::MAX_UNROLLED_INNER {
                        self.error.get_or_insert_with(|| {
                            format!(
                                "an inner loop has {} iterations, more than the {} the emitted code unrolls",
                                h - l,
                                crate::limits::MAX_UNROLLED_INNER
                            )
                        });
                        return;
                    }
                    for v in l..h {
                        self.env.insert(*var, v);
                        self.nodes(body, is_async, false, out);
                    }
                    self.env.remove(var);
                }
                Node::If { cond, body, .. } => self.guarded(cond, body, is_async, top, out),
                Node::Commit { queue, body, .. } => {
                    let outer = self.commit_queue.replace(*queue);
                    out.push(Item::Open(*queue));
                    self.nodes(body, is_async, false, out);
                    self.commit_queue = outer;
                    out.push(Item::Commit(*queue));
                }
                Node::AsyncScope { body, .. } => self.nodes(body, true, false, out),
                Node::Wait {
                    queue,
                    count,
                    body,
                    wait,
                    ..
                } => {
                    let node = self
                        .wait_nodes
                        .iter()
                        .position(|p| std::ptr::eq(*p, n))
                        .unwrap_or(usize::MAX);
                    let Some(c) = self.const_of(count, "a wait count") else {
                        return;
                    };
                    if c < 0 {
                        self.error.get_or_insert_with(|| {
                            format!("a wait on queue {queue} has the count {c}; a count of groups in flight cannot be negative")
                        });
                        return;
                    }
                    out.push(Item::Wait {
                        queue: *queue,
                        count: c,
                        id: *wait,
                        node,
                    });
                    self.nodes(body, is_async, false, out);
                }
                Node::Assign(a) => {
                    self.instances += 1;
                    if self.instances > crate::limits::MAX_EMITTED_INSTANCES {
                        self.error.get_or_insert_with(|| format!(
                            "the kernel would have more than {} statement instances (inner loops are unrolled into every prologue, body and epilogue copy); not emitted",
                            crate::limits::MAX_EMITTED_INSTANCES
                        ));
                        return;
                    }
                    let bind_access = |f: &Self, x: &Access| Access {
                        buffer: x.buffer,
                        indices: x.indices.iter().map(|i| f.bind(i)).collect(),
                        span: x.span,
                    };
                    let value = bind_value(self, &a.value);
                    let assign = Assign {
                        stmt: a.stmt,
                        iteration: a.iteration.clone(),
                        target: bind_access(self, &a.target),
                        value,
                        span: a.span,
                    };
                    out.push(Item::Stmt(Stmt {
                        assign,
                        is_async,
                        queue: self.commit_queue,
                    }));
                }
            }
        }
    }
}

fn bind_value(f: &Flattener, v: &VExpr) -> VExpr {
    match v {
        VExpr::Lit(x) => VExpr::Lit(*x),
        VExpr::Read(a) => VExpr::Read(Access {
            buffer: a.buffer,
            indices: a.indices.iter().map(|i| f.bind(i)).collect(),
            span: a.span,
        }),
        VExpr::Index(e) => VExpr::Index(f.bind(e)),
        VExpr::Neg(x) => VExpr::Neg(Box::new(bind_value(f, x))),
        VExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            VExpr::bin(*op, bind_value(f, a), bind_value(f, b))
        }
        VExpr::Call(func, args) => {
            VExpr::Call(*func, args.iter().map(|a| bind_value(f, a)).collect())
        }
    }
}

pub(crate) fn flatten(program: &Program, params: &BTreeMap<String, i64>) -> Result<Flat, String> {
    let mut env = BTreeMap::new();
    for (id, v) in program.params() {
        env.insert(
            id,
            params
                .get(v.name.as_str())
                .copied()
                .unwrap_or(crate::limits::DEFAULT_SYMBOLIC_EXTENT),
        );
    }
    let mut waits = Vec::new();
    wait_nodes(&program.body, &mut waits);
    let mut f = Flattener {
        program,
        in_body: false,
        sections: program
            .body
            .iter()
            .any(|n| matches!(n, Node::Section { .. })),
        wait_nodes: waits,
        env,
        loop_var: None,
        loop_range: Interval::point(0),
        commit_queue: None,
        instances: 0,
        error: None,
    };
    let mut items = Vec::new();
    f.nodes(&program.body, false, true, &mut items);
    if let Some(e) = f.error {
        return Err(e);
    }
    // Shapes: declared ones, and implicit globals from the intervals their indices cover.
    let range = f.loop_range;
    let var = f.loop_var;
    let look = |v: VarId| if Some(v) == var { range } else { Interval::ALL };
    let mut shapes: Vec<Vec<i64>> = program
        .buffers
        .iter()
        .map(|b| b.shape.clone().unwrap_or_default())
        .collect();
    let mut out_of_reach = None;
    let mut visit = |a: &Access| {
        // Addresses are lanes × strides × indices: a constant beyond any buffer's size would
        // overflow them (validation refuses such indices wherever it can bound them).
        if let Some(c) = a
            .indices
            .iter()
            .map(largest_constant)
            .max()
            .filter(|&c| c > crate::limits::MAX_BUFFER_ELEMENTS.unsigned_abs())
        {
            let name = program.buffer(a.buffer).map_or("?", |b| b.name.as_str());
            out_of_reach.get_or_insert_with(|| {
                format!(
                    "an index of `{name}` uses the constant {c}, beyond any buffer ({} elements at most)",
                    crate::limits::MAX_BUFFER_ELEMENTS
                )
            });
        }
        if program.buffer(a.buffer).is_some_and(|b| b.shape.is_none()) {
            if let Some(s) = shapes.get_mut(a.buffer as usize) {
                if s.len() < a.indices.len() {
                    s.resize(a.indices.len(), 1);
                }
                for (d, e) in s.iter_mut().zip(&a.indices) {
                    let iv = interval(e, &look);
                    if iv.is_bounded() {
                        *d = (*d).max(iv.hi + 1);
                    }
                }
            }
        }
    };
    walk_accesses(&items, &mut visit);
    if let Some(e) = out_of_reach {
        return Err(e);
    }
    Ok(Flat {
        items,
        shapes,
        loop_var: var,
    })
}

/// The largest magnitude of a constant in an index expression (conditions excluded: they are
/// compared, never scaled).
fn largest_constant(e: &IExpr) -> u64 {
    match e {
        IExpr::Const(c) => c.unsigned_abs(),
        IExpr::Var(_) => 0,
        IExpr::Bin(_, ab) => {
            let [a, b] = &**ab;
            largest_constant(a).max(largest_constant(b))
        }
        IExpr::Select(s) => largest_constant(&s.1).max(largest_constant(&s.2)),
    }
}

pub(crate) fn walk_accesses(items: &[Item], f: &mut impl FnMut(&Access)) {
    for it in items {
        match it {
            Item::Stmt(s) => {
                f(&s.assign.target);
                for_each_read(&s.assign.value, &mut |r| f(r));
            }
            Item::Loop { body, .. } => walk_accesses(body, f),
            _ => {}
        }
    }
}

/// Flat element index of an access as an index expression (row-major over the full shape).
pub(crate) fn element(shapes: &[Vec<i64>], a: &Access) -> IExpr {
    let shape = shapes.get(a.buffer as usize).cloned().unwrap_or_default();
    let mut e = IExpr::Const(0);
    for (k, idx) in a.indices.iter().enumerate() {
        let stride: i64 = shape.iter().skip(k + 1).product();
        e = IExpr::bin(
            IOp::Add,
            e,
            IExpr::bin(IOp::Mul, idx.clone(), IExpr::Const(stride)),
        );
    }
    simplify(&e)
}

pub(crate) fn elements(shapes: &[Vec<i64>], b: BufId) -> i64 {
    shapes
        .get(b as usize)
        .map_or(1, |s| s.iter().product::<i64>().max(1))
}

/// Shared and local buffers some statement reads. The loop reads an element no statement has
/// written as 0 (docs/interpreter.md) — an accumulator `acc[0] = acc[0] + x`, or `S[i + 1]` read
/// before iteration i + 1 writes it; shared memory and LDS start undefined, so the kernel fills
/// these buffers with zeros first.
pub(crate) fn read_buffers(program: &Program, items: &[Item]) -> Vec<BufId> {
    fn walk(program: &Program, items: &[Item], out: &mut Vec<BufId>) {
        for it in items {
            match it {
                Item::Stmt(s) => for_each_read(&s.assign.value, &mut |a| {
                    let local = program
                        .buffer(a.buffer)
                        .is_some_and(|x| x.scope != Scope::Global);
                    if local && !out.contains(&a.buffer) {
                        out.push(a.buffer);
                    }
                }),
                Item::Loop { body, .. } => walk(program, body, out),
                Item::Open(_) | Item::Commit(_) | Item::Wait { .. } | Item::Barrier(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(program, items, &mut out);
    out.sort_unstable();
    out
}

/// Is this statement a global→shared copy the hardware can do asynchronously?
pub(crate) fn is_async_copy(program: &Program, s: &Stmt) -> Option<Access> {
    if !s.is_async {
        return None;
    }
    copy_source(program, &s.assign).cloned()
}

/// The source of a global→shared copy: the statements a group's `cp.async` or LDS DMA issue (the
/// timeline's single sequence counts groups with one as the emitters do).
pub(crate) fn copy_source<'a>(program: &Program, a: &'a Assign) -> Option<&'a Access> {
    let VExpr::Read(src) = &a.value else {
        return None;
    };
    let scope = |b: BufId| program.buffer(b).map(|b| b.scope);
    (scope(src.buffer) == Some(Scope::Global) && scope(a.target.buffer) == Some(Scope::Shared))
        .then_some(src)
}

/// Emits `program` (a peeled pipelined program) for `target`. Never panics: anything the target
/// cannot express becomes a note or an error in the result.
pub fn emit(
    program: &Program,
    params: &BTreeMap<String, i64>,
    target: Target,
    opts: &EmitOptions,
) -> Emitted {
    let flat = match flatten(program, params) {
        Ok(f) => f,
        Err(e) => {
            return Emitted {
                target: target.name().into(),
                error: Some(e),
                ..Emitted::default()
            }
        }
    };
    let mut out = match target {
        Target::Ptx => ptx::emit(program, &flat, opts, ptx::Arch::Sm80),
        Target::PtxSm90 => ptx::emit(program, &flat, opts, ptx::Arch::Sm90),
        Target::Amdgpu => amdgpu::emit(program, &flat, opts.amd_lanes, false),
        Target::AmdgpuGfx950 => amdgpu::emit(program, &flat, opts.amd_lanes, true),
        Target::AmdgpuIr => llvm::emit(program, &flat, opts.amd_lanes),
    };
    out.target = target.name().into();
    if out.lanes == 0 {
        out.lanes = opts.lanes_of(target);
    }
    // Each note once, in the order first met (a note per statement instance would repeat).
    let mut kept: Vec<String> = Vec::new();
    for n in std::mem::take(&mut out.notes) {
        if !kept.contains(&n) {
            kept.push(n);
        }
    }
    out.notes = kept;
    out
}

/// A kernel's text: its header, the instructions the emitter wrote (`body`: `out.text`, or that
/// text once completed), then its closing lines; each line mapped to the statement it comes from
/// (header and closing lines to none).
pub(crate) fn kernel(
    head: Lines,
    body: &str,
    out: Lines,
    tail: &str,
    notes: Vec<String>,
) -> Emitted {
    let mut text = head.text;
    text.push_str(body);
    text.push_str(tail);
    let mut line_stmts = head.stmts;
    line_stmts.extend(out.stmts);
    // Every line written through `Lines` has its entry; the tail's lines come from none. (Counting
    // the whole text's lines instead was a scan of every kernel.)
    line_stmts.resize(line_stmts.len() + tail.lines().count(), None);
    Emitted {
        text,
        notes,
        line_stmts,
        ..Emitted::default()
    }
}

/// Text with a statement id per line, built line by line.
#[derive(Default)]
pub(crate) struct Lines {
    /// Before each instruction (`instr`), not before a label or a header line (`line`).
    pub indent: &'static str,
    pub text: String,
    pub stmts: Vec<Option<StmtId>>,
    pub current: Option<StmtId>,
}

impl Lines {
    pub fn indented_by(indent: &'static str) -> Lines {
        Lines {
            indent,
            ..Lines::default()
        }
    }

    pub fn line(&mut self, s: impl AsRef<str>) {
        self.indented("", s.as_ref());
    }

    pub fn instr(&mut self, s: &str) {
        self.indented(self.indent, s);
    }

    pub fn instr_args(&mut self, args: std::fmt::Arguments<'_>) {
        use std::fmt::Write;
        self.text.push_str(self.indent);
        let _ = self.text.write_fmt(args);
        self.text.push('\n');
        self.stmts.push(self.current);
    }

    pub fn indented(&mut self, indent: &str, s: &str) {
        self.text.push_str(indent);
        self.text.push_str(s);
        self.text.push('\n');
        self.stmts.push(self.current);
    }
}
