//! AMDGPU LLVM IR with LLVM's asyncmark model (seed 003): LDS DMA through the `.async` intrinsic,
//! `llvm.amdgcn.asyncmark()` where a group is committed and `llvm.amdgcn.wait.asyncmark(i16 N)`
//! with N in marks. A thread has ONE sequence of asyncmarks whatever the queue, so each per-queue
//! wait of the pipelined program becomes the count of the single sequence that completes exactly
//! the groups it needs (`sequence.rs`); waits of several queues at one point are one call.
//! Checked with `llvm-as-22` and `opt-22 -passes=verify` (LLVM 22 accepts the declarations of the
//! new intrinsics).

use super::items::{walk_items, ItemEmitter};
use super::sequence::Stream;
use super::waits::{emitted_waits, fill_waits, wait_lines, WaitSpelling};
use super::walk::{self, CondOp, Isa, Predicates, Spelling, ValueOp};
use super::{element, elements, is_async_copy, kernel, Emitted, Flat, Item, Lines, Stmt};
use crate::ir::*;

struct Gen<'a> {
    program: &'a Program,
    flat: &'a Flat,
    lanes: i64,
    out: Lines,
    n: u32,
    loops: u32,
    notes: Vec<String>,
    /// The statements `notes` already says are issued synchronously.
    synchronous: Vec<StmtId>,
    block: String,
    stream: Stream,
}

fn float(x: f64) -> String {
    format!("0x{:016X}", f64::from(x as f32).to_bits())
}

impl Gen<'_> {
    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("%v{}", self.n)
    }

    fn name(&self, b: BufId) -> String {
        self.program
            .buffer(b)
            .map_or_else(|| format!("b{b}"), |b| b.name.to_string())
    }

    fn global(&self, b: BufId) -> bool {
        self.program
            .buffer(b)
            .is_none_or(|x| x.scope == Scope::Global)
    }

    /// Pointer to this thread's value of the element: global (addrspace 1) or LDS (addrspace 3).
    fn pointer(&mut self, a: &Access) -> String {
        let e = element(&self.flat.shapes, a);
        let elem = walk::int(self, &e);
        let scaled = self.fresh();
        let lanes = self.lanes;
        emit!(self, "{scaled} = mul i32 {elem}, {lanes}");
        let lane = self.fresh();
        emit!(self, "{lane} = add i32 {scaled}, %tid");
        let p = self.fresh();
        if self.global(a.buffer) {
            emit!(
                self,
                "{p} = getelementptr float, ptr addrspace(1) %{}, i32 {lane}",
                self.name(a.buffer)
            );
        } else {
            let n = elements(&self.flat.shapes, a.buffer) * self.lanes;
            emit!(
                self,
                "{p} = getelementptr [{n} x float], ptr addrspace(3) @lds_{}, i32 0, i32 {lane}",
                self.name(a.buffer)
            );
        }
        p
    }

    fn space(&self, b: BufId) -> u32 {
        if self.global(b) {
            1
        } else {
            3
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.out.current = Some(s.assign.stmt);
        if let Some(src) = is_async_copy(self.program, s) {
            self.stream.copy();
            let (g, l) = (self.pointer(&src), self.pointer(&s.assign.target));
            emit!(self, "call void @llvm.amdgcn.global.load.async.lds(ptr addrspace(1) {g}, ptr addrspace(3) {l}, i32 4, i32 0, i32 0)");
        } else {
            if s.is_async && !self.synchronous.contains(&s.assign.stmt) {
                self.synchronous.push(s.assign.stmt);
                self.notes.push(super::synchronous_note(
                    self.program,
                    &s.assign,
                    "it is emitted synchronously",
                ));
            }
            walk::store(self, &s.assign);
        }
        self.out.current = None;
    }

    fn items(&mut self, items: &[Item]) {
        walk_items(self, items);
    }

    /// Buffers the loop reads start at 0 in the loop; LDS starts undefined: a loop stores 0.0
    /// into each element of every thread.
    fn zero_fill(&mut self) {
        for b in super::read_buffers(self.program, &self.flat.items) {
            let name = self.name(b);
            let n = elements(&self.flat.shapes, b);
            let lanes = self.lanes;
            let from = self.block.clone();
            emit!(
                self,
                "; `{name}` is read: the loop reads an element nothing wrote as 0, LDS starts undefined"
            );
            emit!(self, "br label %zero{b}");
            self.out.line(format!("zero{b}:"));
            emit!(
                self,
                "%zi{b} = phi i32 [ 0, %{from} ], [ %zn{b}, %zero{b} ]"
            );
            emit!(self, "%zs{b} = mul i32 %zi{b}, {lanes}");
            emit!(self, "%zl{b} = add i32 %zs{b}, %tid");
            emit!(
                self,
                "%zp{b} = getelementptr [{} x float], ptr addrspace(3) @lds_{name}, i32 0, i32 %zl{b}",
                n * lanes
            );
            emit!(self, "store float 0.0, ptr addrspace(3) %zp{b}, align 4");
            emit!(self, "%zn{b} = add i32 %zi{b}, 1");
            emit!(self, "%zc{b} = icmp slt i32 %zn{b}, {n}");
            emit!(self, "br i1 %zc{b}, label %zero{b}, label %zeroed{b}");
            self.out.line(format!("zeroed{b}:"));
            self.block = format!("zeroed{b}");
        }
    }
}

impl ItemEmitter for Gen<'_> {
    /// The loop's number (its blocks' names).
    type Loop = u32;

    fn sink(&mut self) -> (&mut Stream, &mut Lines) {
        (&mut self.stream, &mut self.out)
    }

    fn statement(&mut self, s: &Stmt) {
        self.stmt(s);
    }

    fn open(&mut self, _queue: i64, _rest: &[Item]) {
        self.stream.open();
    }

    fn commit(&mut self, queue: i64) {
        emit!(
            self,
            "call void @llvm.amdgcn.asyncmark()  ; commit group (queue {queue})"
        );
        self.stream.commit_unit(queue, self.out.stmts.len() - 1);
    }

    fn loop_head(&mut self, lo: i64, hi: i64) -> u32 {
        self.loops += 1;
        let k = self.loops;
        let from = self.block.clone();
        emit!(self, "br label %head{k}");
        self.out.line(format!("head{k}:"));
        emit!(
            self,
            "%i{k} = phi i32 [ {lo}, %{from} ], [ %next{k}, %body{k} ]"
        );
        emit!(self, "%more{k} = icmp slt i32 %i{k}, {hi}");
        emit!(self, "br i1 %more{k}, label %body{k}, label %exit{k}");
        self.out.line(format!("body{k}:"));
        self.block = format!("body{k}");
        k
    }

    fn loop_tail(&mut self, k: u32) {
        emit!(self, "%next{k} = add i32 %i{k}, 1");
        emit!(self, "br label %head{k}");
        self.out.line(format!("exit{k}:"));
        self.block = format!("exit{k}");
    }
}

/// Every operand is an SSA name or a literal; each result a fresh name, numbered after its
/// operands'.
impl Isa for Gen<'_> {
    type Int = String;
    type Val = String;

    const SPELLING: Spelling = Spelling {
        int: ["add", "sub", "mul", "llvm.smin.i32", "llvm.smax.i32"],
        cmp: ["slt", "sle", "sgt", "sge", "eq", "ne"],
        float: ["fadd", "fsub", "fmul", "fdiv"],
        func: [
            "llvm.maxnum.f32",
            "llvm.minnum.f32",
            "llvm.fma.f32",
            "llvm.fabs.f32",
        ],
    };

    fn loop_var(&self) -> Option<VarId> {
        self.flat.loop_var
    }

    fn counter(&mut self) -> String {
        format!("%i{}", self.loops)
    }

    fn imm(&mut self, v: i64) -> String {
        v.to_string()
    }

    fn int_op(&mut self, op: IOp, a: String, b: String) -> String {
        let d = self.fresh();
        let ins = Self::SPELLING.int(op);
        match op {
            IOp::Min | IOp::Max => emit!(self, "{d} = call i32 @{ins}(i32 {a}, i32 {b})"),
            IOp::Mod => {
                let (r, neg, adj) = (self.fresh(), self.fresh(), self.fresh());
                emit!(self, "{r} = srem i32 {a}, {b}");
                emit!(self, "{neg} = icmp slt i32 {r}, 0");
                emit!(self, "{adj} = add i32 {r}, {b}");
                emit!(self, "{d} = select i1 {neg}, i32 {adj}, i32 {r}");
            }
            IOp::FloorDiv => {
                let (q, m, gt, dec) = (self.fresh(), self.fresh(), self.fresh(), self.fresh());
                emit!(self, "{q} = sdiv i32 {a}, {b}");
                emit!(self, "{m} = mul i32 {q}, {b}");
                emit!(self, "{gt} = icmp sgt i32 {m}, {a}");
                emit!(self, "{dec} = sub i32 {q}, 1");
                emit!(self, "{d} = select i1 {gt}, i32 {dec}, i32 {q}");
            }
            IOp::Add | IOp::Sub | IOp::Mul => emit!(self, "{d} = {ins} i32 {a}, {b}"),
        }
        d
    }

    fn select(&mut self, c: &Cond, a: &IExpr, b: &IExpr) -> String {
        walk::select(self, c, a, b)
    }

    fn literal(&mut self, x: f64) -> String {
        float(x)
    }

    fn read(&mut self, a: &Access) -> String {
        let p = self.pointer(a);
        let d = self.fresh();
        let space = self.space(a.buffer);
        emit!(
            self,
            "{d} = load float, ptr addrspace({space}) {p}, align 4"
        );
        d
    }

    fn store(&mut self, target: &Access, v: String) {
        let p = self.pointer(target);
        let space = self.space(target.buffer);
        emit!(self, "store float {v}, ptr addrspace({space}) {p}, align 4");
    }

    fn value_op(&mut self, op: ValueOp<String, String>) -> String {
        let d = self.fresh();
        match op {
            ValueOp::Index(i) => emit!(self, "{d} = sitofp i32 {i} to float"),
            ValueOp::Neg(x) => emit!(self, "{d} = fneg float {x}"),
            ValueOp::Bin(op, a, b) => {
                emit!(self, "{d} = {} float {a}, {b}", Self::SPELLING.float(op))
            }
            ValueOp::Call(f, args) => {
                let args: Vec<String> = args.iter().map(|a| format!("float {a}")).collect();
                let f = Self::SPELLING.func(f);
                emit!(self, "{d} = call float @{f}({})", args.join(", "));
            }
        }
        d
    }
}

/// Conditions are `i1` values; `true` is a literal.
impl Predicates for Gen<'_> {
    type Pred = String;
    type Dest = ();

    fn dest(&mut self) {}

    fn cond_op(&mut self, (): (), op: CondOp<String, String>) -> String {
        if let CondOp::True = op {
            return "true".into();
        }
        let d = self.fresh();
        match op {
            CondOp::Cmp(cmp, a, b) => {
                emit!(self, "{d} = icmp {} i32 {a}, {b}", Self::SPELLING.cmp(cmp))
            }
            CondOp::True => {}
            CondOp::Not(x) => emit!(self, "{d} = xor i1 {x}, true"),
            CondOp::And(a, b) => emit!(self, "{d} = and i1 {a}, {b}"),
            CondOp::Or(a, b) => emit!(self, "{d} = or i1 {a}, {b}"),
        }
        d
    }

    fn select_op(&mut self, c: String, a: String, b: String) -> String {
        let d = self.fresh();
        emit!(self, "{d} = select i1 {c}, i32 {a}, i32 {b}");
        d
    }
}

/// `wait.asyncmark`'s operand is 16 bits wide.
const MARKS_MAX: u64 = u16::MAX as u64;

/// LLVM's asyncmarks (seed 003).
const ASYNCMARKS: WaitSpelling = WaitSpelling {
    instr: |n| format!("call void @llvm.amdgcn.wait.asyncmark(i16 {n})"),
    short: |n| format!("wait.asyncmark({n})"),
    comment: "; ",
    dash: "—",
    unit: "mark",
    of_groups: " of it",
    nothing_needed: "nothing to wait for: every group it needs is complete already",
    field_max: MARKS_MAX,
    field: "the i16 operand",
    counted: "asyncmarks",
    machine: "the asyncmark model",
    shared: "the queues share the single sequence of asyncmarks (a mark completes every older mark, of any queue)",
    sequence: Some("asyncmarks form one sequence per thread (seed 003)"),
};

pub(super) fn emit(program: &Program, flat: &Flat, lanes: u32) -> Emitted {
    let mut g = Gen {
        program,
        flat,
        lanes: i64::from(lanes.max(1)),
        out: Lines::indented_by("  "),
        n: 0,
        loops: 0,
        notes: Vec::new(),
        synchronous: Vec::new(),
        block: "entry".into(),
        stream: Stream::default(),
    };
    g.zero_fill();
    g.items(&flat.items);
    let translated = g.stream.translate(MARKS_MAX);
    let lines = wait_lines(&g.stream.points, &translated, &mut g.notes, &ASYNCMARKS);
    let body = fill_waits(&g.out.text, &lines);
    let mut head = Lines::default();
    head.line("; Generated by Stagecraft: AMDGPU LLVM IR with asyncmarks. One workgroup; every buffer element");
    head.line(format!(
        "; is a tile of {} floats, thread t owning value t (docs/execution-model.md).",
        g.lanes
    ));
    head.line("target triple = \"amdgcn-amd-amdhsa\"");
    head.line("");
    for (id, b) in program.buffers.iter().enumerate() {
        if b.scope != Scope::Global {
            let n = elements(&flat.shapes, id as BufId) * g.lanes;
            head.line(format!(
                "@lds_{} = internal addrspace(3) global [{n} x float] poison, align 16",
                b.name
            ));
        }
    }
    for d in [
        "declare i32 @llvm.amdgcn.workitem.id.x()",
        "declare void @llvm.amdgcn.asyncmark()",
        "declare void @llvm.amdgcn.wait.asyncmark(i16)",
        "declare void @llvm.amdgcn.global.load.async.lds(ptr addrspace(1), ptr addrspace(3), i32 immarg, i32 immarg, i32 immarg)",
        "declare float @llvm.maxnum.f32(float, float)",
        "declare float @llvm.minnum.f32(float, float)",
        "declare float @llvm.fma.f32(float, float, float)",
        "declare float @llvm.fabs.f32(float)",
        "declare i32 @llvm.smin.i32(i32, i32)",
        "declare i32 @llvm.smax.i32(i32, i32)",
    ] {
        head.line(d);
    }
    head.line("");
    let params: Vec<String> = program
        .buffers
        .iter()
        .filter(|b| b.scope == Scope::Global)
        .map(|b| format!("ptr addrspace(1) %{}", b.name))
        .collect();
    head.line(format!(
        "define amdgpu_kernel void @stagecraft({}) {{",
        params.join(", ")
    ));
    head.line("entry:");
    head.line("  %tid = call i32 @llvm.amdgcn.workitem.id.x()");
    let waits = emitted_waits(&g.stream.points, &lines, head.stmts.len());
    Emitted {
        waits,
        ..kernel(head, &body, g.out, "  ret void\n}\n", g.notes)
    }
}
