//! PTX: a complete `.entry` kernel, for two generations of asynchronous copies.
//!
//! - sm_80: global→shared copies in async stages become `cp.async.ca.shared.global` (4 bytes per
//!   thread and element), every commit scope one `cp.async.commit_group` (empty groups included).
//!   A thread's groups form ONE sequence whatever the queue, so each per-queue wait becomes the
//!   `cp.async.wait_group N` of the single sequence that completes exactly the groups it needs,
//!   from the kernel's real stream (`sequence.rs`); waits of several queues at one point are one
//!   instruction, and a note says when the sequence forces groups the IR lets stay in flight.
//! - sm_90a: the same copies become one `cp.async.bulk` per element tile, issued by thread 0 and
//!   tracked by one `mbarrier` per ring slot of the queue (plan in `mbarriers.rs`); a wait completes the
//!   barriers of the groups it needs, the phase bit of each slot tracked in a register in the body
//!   loop and known statically outside it.
//!
//! Shared and local buffers the loop reads are zero-filled first: the loop reads an element
//! nothing wrote as 0, and shared and local memory start undefined.

mod header;
mod hopper;

use header::SharedMemory;
use hopper::barrier_operand;

use super::items::{walk_items, ItemEmitter};
use super::mbarriers::{self, Plan, QueueState};
use super::sequence::Stream;
use super::waits::{emitted_waits, fill_waits, wait_lines, WaitSpelling};
use super::walk::{self, CondOp, Isa, Predicates, Spelling, ValueOp};
use super::{
    element, elements, is_async_copy, kernel, Emitted, EmittedWait, Flat, IrWait, Item, Lines, Stmt,
};
use crate::emit::EmitOptions;
use crate::ir::*;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arch {
    Sm80,
    Sm90,
}

/// The sm_90 barrier bookkeeping while emitting.
struct Hopper {
    plan: Plan,
    /// Per queue, outside the body loop; `None` inside it, where registers hold the state.
    state: Option<BTreeMap<i64, QueueState>>,
    next_wait: usize,
    /// The barrier operand of each open barrier group (innermost last).
    open: Vec<(i64, String)>,
    labels: u32,
    /// Each wait as `Emitted::waits` gives it, its line counted in the body until the header's
    /// length is known.
    waits: Vec<EmittedWait>,
    /// How many times the items being emitted run (the body loop's trips inside it).
    repeats: u64,
}

/// Most bytes one mbarrier phase can expect (the tx-count field).
const MAX_TX_BYTES: i64 = (1 << 20) - 1;

enum Op {
    Imm(i64),
    Reg(String),
}

impl Op {
    fn text(&self) -> String {
        match self {
            Op::Imm(v) => v.to_string(),
            Op::Reg(r) => r.clone(),
        }
    }
}

struct Gen<'a> {
    program: &'a Program,
    flat: &'a Flat,
    lanes: i64,
    out: Lines,
    r: u32,
    rd: u32,
    f: u32,
    p: u32,
    labels: u32,
    notes: Vec<String>,
    /// The statements `notes` already says are issued synchronously.
    synchronous: Vec<StmtId>,
    hopper: Option<Hopper>,
    error: Option<String>,
    /// sm_80: the stream of commits and waits of the single sequence of groups.
    stream: Stream,
    /// Buffers are zero-filled first (with registers of their own).
    zeroed: bool,
}

impl Gen<'_> {
    fn r(&mut self) -> String {
        self.r += 1;
        format!("%r{}", self.r)
    }
    fn rd(&mut self) -> String {
        self.rd += 1;
        format!("%rd{}", self.rd)
    }
    fn f(&mut self) -> String {
        self.f += 1;
        format!("%f{}", self.f)
    }
    fn p(&mut self) -> String {
        self.p += 1;
        format!("%p{}", self.p)
    }
    fn reg_of(&mut self, o: Op) -> String {
        match o {
            Op::Reg(r) => r,
            Op::Imm(v) => {
                let r = self.r();
                emit!(self, "mov.s32 {r}, {v};");
                r
            }
        }
    }

    fn scope(&self, b: BufId) -> Scope {
        self.program.buffer(b).map_or(Scope::Global, |b| b.scope)
    }

    fn name(&self, b: BufId) -> String {
        self.program
            .buffer(b)
            .map_or_else(|| format!("b{b}"), |b| b.name.to_string())
    }

    /// The address of this thread's value of the accessed element (64-bit for global, 32-bit for
    /// shared, 64-bit local-window for local).
    fn address(&mut self, a: &Access) -> String {
        let e = element(&self.flat.shapes, a);
        let elem = walk::int(self, &e);
        match self.scope(a.buffer) {
            Scope::Local => {
                let bytes = match elem {
                    Op::Imm(v) => Op::Imm(v * 4),
                    Op::Reg(r) => {
                        let t = self.r();
                        emit!(self, "shl.b32 {t}, {r}, 2;");
                        Op::Reg(t)
                    }
                };
                let (w, d) = (self.rd(), self.rd());
                let bytes = self.reg_of(bytes);
                emit!(self, "cvt.s64.s32 {w}, {bytes};");
                emit!(self, "add.s64 {d}, %rd_{}, {w};", self.name(a.buffer));
                d
            }
            scope => {
                let lane = self.r();
                match elem {
                    Op::Imm(v) => {
                        let offset = v * self.lanes;
                        emit!(self, "add.s32 {lane}, %r0, {offset};")
                    }
                    Op::Reg(r) => {
                        let lanes = self.lanes;
                        emit!(self, "mad.lo.s32 {lane}, {r}, {lanes}, %r0;")
                    }
                }
                if scope == Scope::Shared {
                    let (t, d) = (self.r(), self.r());
                    emit!(self, "shl.b32 {t}, {lane}, 2;");
                    emit!(self, "add.s32 {d}, %r_{}, {t};", self.name(a.buffer));
                    d
                } else {
                    let (w, d) = (self.rd(), self.rd());
                    emit!(self, "mul.wide.s32 {w}, {lane}, 4;");
                    emit!(self, "add.s64 {d}, %rd_{}, {w};", self.name(a.buffer));
                    d
                }
            }
        }
    }

    fn space(&self, b: BufId) -> &'static str {
        match self.scope(b) {
            Scope::Global => "global",
            Scope::Shared => "shared",
            Scope::Local => "local",
        }
    }

    /// The shared (32-bit) or global (64-bit) address of a whole element tile: what a bulk copy moves.
    fn tile_address(&mut self, a: &Access) -> String {
        let e = element(&self.flat.shapes, a);
        let tile = self.lanes * 4;
        let elem = walk::int(self, &e);
        if self.scope(a.buffer) == Scope::Shared {
            let d = self.r();
            match elem {
                Op::Imm(v) => emit!(
                    self,
                    "add.s32 {d}, %r_{}, {};",
                    self.name(a.buffer),
                    v * tile
                ),
                Op::Reg(r) => emit!(
                    self,
                    "mad.lo.s32 {d}, {r}, {tile}, %r_{};",
                    self.name(a.buffer)
                ),
            }
            d
        } else {
            let (w, d) = (self.rd(), self.rd());
            let e = self.reg_of(elem);
            emit!(self, "mul.wide.s32 {w}, {e}, {tile};");
            emit!(self, "add.s64 {d}, %rd_{}, {w};", self.name(a.buffer));
            d
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.out.current = Some(s.assign.stmt);
        let bulk = self.hopper.is_some() && mbarriers::is_bulk_copy(self.program, s);
        let barrier = self.hopper.as_ref().and_then(|h| {
            h.open
                .iter()
                .rev()
                .find(|(q, _)| Some(*q) == s.queue)
                .map(|(_, b)| b.clone())
        });
        if let (true, Some(src), Some(bar)) = (bulk, is_async_copy(self.program, s), barrier) {
            let (g, d) = (self.tile_address(&src), self.tile_address(&s.assign.target));
            emit!(self,
                "@%p_lead cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{g}], {}, [{bar}];",
                self.lanes * 4
            );
        } else if let (None, Some(src)) = (&self.hopper, is_async_copy(self.program, s)) {
            self.stream.copy();
            if self.cooperative(s.assign.target.buffer) {
                self.cooperative_copy(&src, &s.assign.target);
            } else {
                let (g, d) = (self.address(&src), self.address(&s.assign.target));
                emit!(self, "cp.async.ca.shared.global [{d}], [{g}], 4;");
            }
        } else {
            if s.is_async {
                let arch = if self.hopper.is_some() {
                    "sm_90"
                } else {
                    "sm_80"
                };
                emit!(self, "// asynchronous in the schedule, but only global->shared copies are async on {arch}: issued synchronously");
                if !self.synchronous.contains(&s.assign.stmt) {
                    self.synchronous.push(s.assign.stmt);
                    self.notes.push(super::synchronous_note(
                        self.program,
                        &s.assign,
                        &format!("{arch} runs it synchronously (its commit group is empty)"),
                    ));
                }
            }
            walk::store(self, &s.assign);
        }
        self.out.current = None;
    }

    /// Whether the async copies into `b` are cooperative: the loop declares several threads,
    /// each waiting for its own copies as on NVIDIA (no waves: a wave's lanes need no barrier
    /// between them, so the program has none to write), spreads `b` over them, and a tile
    /// splits into 16-byte chunks (docs/execution-model.md, "Threads").
    fn cooperative(&self, b: BufId) -> bool {
        self.program.threads.is_some_and(|t| t.sm80_cooperative())
            && self.lanes % 4 == 0
            && self
                .program
                .buffer(b)
                .is_some_and(|x| x.threads != Distribution::Each)
    }

    /// One element tile copied by the block's threads together: chunk `c` of the buffer's
    /// 16-byte chunks (`c = e · lanes/4 + j` for chunk `j` of element `e`) is copied by thread
    /// `c mod lanes`, so the threads `(e · lanes/4 + j) mod lanes` copy this tile, one chunk each;
    /// the others skip it. The values a thread then reads were mostly copied by other threads,
    /// which is why the derived barriers are written as `bar.sync`.
    fn cooperative_copy(&mut self, src: &Access, dst: &Access) {
        let (lanes, chunks) = (self.lanes, self.lanes / 4);
        let e = element(&self.flat.shapes, dst);
        // j = (t + lanes - (e · chunks) mod lanes) mod lanes, this thread's chunk of the tile.
        let shifted = self.r();
        match walk::int(self, &e) {
            Op::Imm(v) => {
                let first = (v * chunks).rem_euclid(lanes);
                emit!(self, "add.s32 {shifted}, %r0, {};", lanes - first);
            }
            Op::Reg(r) => {
                let (m, first) = (self.r(), self.r());
                emit!(self, "mul.lo.s32 {m}, {r}, {chunks};");
                emit!(self, "rem.s32 {first}, {m}, {lanes};");
                emit!(self, "sub.s32 {shifted}, {lanes}, {first};");
                emit!(self, "add.s32 {shifted}, {shifted}, %r0;");
            }
        }
        let (j, p, off, off64) = (self.r(), self.p(), self.r(), self.rd());
        emit!(self, "rem.s32 {j}, {shifted}, {lanes};");
        emit!(self, "setp.lt.s32 {p}, {j}, {chunks};");
        emit!(self, "shl.b32 {off}, {j}, 4;");
        emit!(self, "cvt.s64.s32 {off64}, {off};");
        let (g, d) = (self.tile_address(src), self.tile_address(dst));
        let (gc, dc) = (self.rd(), self.r());
        emit!(self, "add.s64 {gc}, {g}, {off64};");
        emit!(self, "add.s32 {dc}, {d}, {off};");
        emit!(self, "@{p} cp.async.cg.shared.global [{dc}], [{gc}], 16;");
    }

    /// Whether any async copy of the kernel is cooperative.
    fn any_cooperative(&self, items: &[Item]) -> bool {
        items.iter().any(|it| match it {
            Item::Stmt(s) => {
                is_async_copy(self.program, s).is_some() && self.cooperative(s.assign.target.buffer)
            }
            Item::Loop { body, .. } => self.any_cooperative(body),
            _ => false,
        })
    }

    fn items(&mut self, items: &[Item]) {
        walk_items(self, items);
    }

    /// Buffers the loop reads start at 0 in the loop; shared and local memory start undefined:
    /// each thread stores 0.0 into its value of every element first.
    fn zero_fill(&mut self) {
        let read = super::read_buffers(self.program, &self.flat.items);
        if read.is_empty() {
            return;
        }
        // Registers of their own (declared in the header), so the body's numbering is the same
        // with or without the fill.
        self.zeroed = true;
        self.out.instr("mov.f32 %fz, 0f00000000;");
        for b in read {
            let name = self.name(b);
            let n = elements(&self.flat.shapes, b);
            let lanes = self.lanes;
            let space = self.space(b);
            emit!(
                self,
                "// `{name}` is read: the loop reads an element nothing wrote as 0, {space} memory starts undefined"
            );
            self.out.instr("mov.s32 %rz0, 0;");
            self.out.line(format!("$L_zero_{name}:"));
            if self.scope(b) == Scope::Local {
                self.out.instr("mul.wide.s32 %rdz, %rz0, 4;");
                emit!(self, "add.s64 %rdz, %rd_{name}, %rdz;");
                self.out.instr("st.local.f32 [%rdz], %fz;");
            } else {
                emit!(self, "mad.lo.s32 %rz1, %rz0, {lanes}, %r0;");
                self.out.instr("shl.b32 %rz1, %rz1, 2;");
                emit!(self, "add.s32 %rz1, %r_{name}, %rz1;");
                self.out.instr("st.shared.f32 [%rz1], %fz;");
            }
            self.out.instr("add.s32 %rz0, %rz0, 1;");
            emit!(self, "setp.lt.s32 %pz, %rz0, {n};");
            emit!(self, "@%pz bra.uni $L_zero_{name};");
        }
        if self.hopper.is_none() && self.any_cooperative(&self.flat.items) {
            self.out.instr(
                "// every thread's zeros stored before other threads' copies overwrite them",
            );
            self.out.instr("bar.sync 0;");
        }
    }

    /// Entering the body loop, the barrier state moves from constants into registers.
    fn enter_loop(&mut self) {
        let Some(h) = &mut self.hopper else { return };
        let state = h.state.take().unwrap_or_default();
        let mut lines = Vec::new();
        for (q, k) in &h.plan.slots {
            let s = state.get(q).copied().unwrap_or_default();
            // Bit j: the parity of the next phase to await on slot j.
            let mut phases = 0u32;
            for slot in 0..*k {
                let next = s.awaited + (slot - s.awaited).rem_euclid(*k);
                if (next / k) % 2 == 1 {
                    phases |= 1 << slot;
                }
            }
            lines.push(format!(
                "mov.s32 %cq{q}, {};  // queue {q}: barrier groups committed",
                s.committed
            ));
            lines.push(format!(
                "mov.s32 %wq{q}, {};  // queue {q}: barrier groups awaited",
                s.awaited
            ));
            lines.push(format!(
                "mov.b32 %ph{q}, {phases};  // queue {q}: phase bit of each slot"
            ));
        }
        for l in lines {
            self.out.instr(&l);
        }
    }
}

/// A loop's labels, and the times its body repeats outside it (sm_90a's barrier phases).
struct PtxLoop {
    head: String,
    end: String,
    outside: u64,
}

/// sm_80 waits are wait points of the single sequence; sm_90a's commit scopes, commits and waits
/// are its mbarriers' (`hopper.rs`).
impl ItemEmitter for Gen<'_> {
    type Loop = PtxLoop;

    fn sink(&mut self) -> (&mut Stream, &mut Lines) {
        (&mut self.stream, &mut self.out)
    }

    fn statement(&mut self, s: &Stmt) {
        self.stmt(s);
    }

    /// sm_80 writes a derived barrier as `bar.sync 0`; sm_90a's threads read what every thread
    /// observed of its mbarriers' phases, and it refills a slot behind a `bar.sync` of its own.
    fn barrier(&mut self, kinds: &[BarrierKind]) {
        if self.hopper.is_some() {
            return;
        }
        let after_write = kinds.contains(&BarrierKind::AfterWrite);
        let before_refill = kinds.contains(&BarrierKind::BeforeRefill);
        let why = match (after_write, before_refill) {
            (true, true) => "other threads' copies are read after it, and a slot other threads read is refilled after it",
            (true, false) => "other threads' copies are read after it",
            (false, true) => "a slot other threads read is refilled after it",
            (false, false) => "a barrier() of the program",
        };
        emit!(self, "bar.sync 0;  // derived barrier: {why}");
    }

    fn open(&mut self, queue: i64, rest: &[Item]) {
        if self.hopper.is_some() {
            self.hopper_open(queue, rest);
        } else {
            self.stream.open();
        }
    }

    fn commit(&mut self, queue: i64) {
        if self.hopper.is_some() {
            self.hopper_commit(queue);
        } else {
            self.out.instr("cp.async.commit_group;");
            self.stream.commit_unit(queue, self.out.stmts.len() - 1);
        }
    }

    fn own_wait(&mut self, wait: &Item) -> bool {
        let Item::Wait {
            queue,
            count,
            id,
            node,
        } = wait
        else {
            return false;
        };
        if self.hopper.is_none() {
            return false;
        }
        self.hopper_wait(IrWait {
            node: *node,
            id: *id,
            queue: *queue,
            count: *count,
        });
        true
    }

    fn loop_head(&mut self, lo: i64, hi: i64) -> PtxLoop {
        self.labels += 1;
        let (head, end) = (
            format!("$L_body_{}", self.labels),
            format!("$L_end_{}", self.labels),
        );
        let p = self.p();
        self.enter_loop();
        emit!(self, "mov.s32 %r1, {lo};");
        self.out.line(format!("{head}:"));
        emit!(self, "setp.ge.s32 {p}, %r1, {hi};");
        emit!(self, "@{p} bra.uni {end};");
        let outside = self.hopper.as_ref().map_or(1, |h| h.repeats);
        if let Some(h) = &mut self.hopper {
            h.repeats = outside * u64::try_from(hi - lo).unwrap_or(0);
        }
        PtxLoop { head, end, outside }
    }

    fn loop_tail(&mut self, l: PtxLoop) {
        if let Some(h) = &mut self.hopper {
            h.repeats = l.outside;
        }
        self.out.instr("add.s32 %r1, %r1, 1;");
        emit!(self, "bra.uni {};", l.head);
        self.out.line(format!("{}:", l.end));
        if let Some(h) = &mut self.hopper {
            h.state = Some(h.plan.after_loop.clone());
        }
    }
}

/// Indices in 32-bit registers (`%r`), conditions in predicates (`%p`), values in `%f`.
impl Isa for Gen<'_> {
    type Int = Op;
    type Val = String;

    const SPELLING: Spelling = Spelling {
        int: ["add.s32", "sub.s32", "mul.lo.s32", "min.s32", "max.s32"],
        cmp: ["lt", "le", "gt", "ge", "eq", "ne"],
        float: ["add.f32", "sub.f32", "mul.f32", "div.rn.f32"],
        func: ["max.f32", "min.f32", "fma.rn.f32", "abs.f32"],
    };

    fn loop_var(&self) -> Option<VarId> {
        self.flat.loop_var
    }

    fn counter(&mut self) -> Op {
        Op::Reg("%r1".into())
    }

    fn imm(&mut self, v: i64) -> Op {
        Op::Imm(v)
    }

    fn int_op(&mut self, op: IOp, a: Op, b: Op) -> Op {
        let a = self.reg_of(a);
        let b = b.text();
        let d = self.r();
        match op {
            IOp::Mod => {
                // Floor modulo for a positive divisor: rem, then add the divisor if negative.
                let (t, p) = (self.r(), self.p());
                emit!(self, "rem.s32 {t}, {a}, {b};");
                emit!(self, "setp.lt.s32 {p}, {t}, 0;");
                emit!(self, "add.s32 {d}, {t}, {b};");
                emit!(self, "selp.s32 {d}, {d}, {t}, {p};");
            }
            IOp::FloorDiv => {
                let (t, m, p) = (self.r(), self.r(), self.p());
                emit!(self, "div.s32 {t}, {a}, {b};");
                emit!(self, "mul.lo.s32 {m}, {t}, {b};");
                emit!(self, "setp.gt.s32 {p}, {m}, {a};");
                emit!(self, "sub.s32 {d}, {t}, 1;");
                emit!(self, "selp.s32 {d}, {d}, {t}, {p};");
            }
            _ => emit!(self, "{} {d}, {a}, {b};", Self::SPELLING.int(op)),
        }
        Op::Reg(d)
    }

    fn select(&mut self, c: &Cond, a: &IExpr, b: &IExpr) -> Op {
        walk::select(self, c, a, b)
    }

    fn literal(&mut self, x: f64) -> String {
        let d = self.f();
        emit!(self, "mov.f32 {d}, 0f{:08X};", (x as f32).to_bits());
        d
    }

    fn read(&mut self, a: &Access) -> String {
        let addr = self.address(a);
        let d = self.f();
        emit!(self, "ld.{}.f32 {d}, [{addr}];", self.space(a.buffer));
        d
    }

    fn store(&mut self, target: &Access, v: String) {
        let addr = self.address(target);
        emit!(self, "st.{}.f32 [{addr}], {v};", self.space(target.buffer));
    }

    fn value_op(&mut self, op: ValueOp<Op, String>) -> String {
        let d = self.f();
        match op {
            ValueOp::Index(i) => {
                let i = self.reg_of(i);
                emit!(self, "cvt.rn.f32.s32 {d}, {i};");
            }
            ValueOp::Neg(x) => emit!(self, "neg.f32 {d}, {x};"),
            ValueOp::Bin(op, a, b) => emit!(self, "{} {d}, {a}, {b};", Self::SPELLING.float(op)),
            ValueOp::Call(f, args) => {
                emit!(self, "{} {d}, {};", Self::SPELLING.func(f), args.join(", "))
            }
        }
        d
    }
}

impl Predicates for Gen<'_> {
    type Pred = String;
    type Dest = String;

    fn dest(&mut self) -> String {
        self.p()
    }

    fn cond_op(&mut self, p: String, op: CondOp<Op, String>) -> String {
        match op {
            CondOp::Cmp(cmp, a, b) => {
                let a = self.reg_of(a);
                let cmp = Self::SPELLING.cmp(cmp);
                emit!(self, "setp.{cmp}.s32 {p}, {a}, {};", b.text());
            }
            CondOp::True => emit!(self, "setp.eq.s32 {p}, 0, 0;"),
            CondOp::Not(x) => emit!(self, "not.pred {p}, {x};"),
            CondOp::And(a, b) => emit!(self, "and.pred {p}, {a}, {b};"),
            CondOp::Or(a, b) => emit!(self, "or.pred {p}, {a}, {b};"),
        }
        p
    }

    fn select_op(&mut self, p: String, a: Op, b: Op) -> Op {
        let (a, b) = (self.reg_of(a), self.reg_of(b));
        let d = self.r();
        emit!(self, "selp.s32 {d}, {a}, {b}, {p};");
        Op::Reg(d)
    }
}

pub(super) fn emit(program: &Program, flat: &Flat, opts: &EmitOptions, arch: Arch) -> Emitted {
    let lanes = i64::from(opts.lanes.max(1));
    let hopper = (arch == Arch::Sm90).then(|| {
        let plan = mbarriers::plan(program, &flat.items);
        Hopper {
            state: Some(BTreeMap::new()),
            plan,
            next_wait: 0,
            open: Vec::new(),
            labels: 0,
            waits: Vec::new(),
            repeats: 1,
        }
    });
    let refused = |error: String| Emitted {
        error: Some(error),
        ..Emitted::default()
    };
    if hopper.is_some() && (lanes * 4) % 16 != 0 {
        return refused(format!(
            "a tile of {lanes} values is {} bytes; bulk copies move multiples of 16 bytes (use a multiple of 4 threads)",
            lanes * 4
        ));
    }
    let (sm, shared_limit_kb) = match arch {
        Arch::Sm80 => ("sm_80", 163),
        Arch::Sm90 => ("sm_90a", 227),
    };
    // Refused before any code is generated: a kernel that cannot launch is not worth the time.
    let shared = SharedMemory {
        buffers: program
            .buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| b.scope == Scope::Shared)
            .map(|(id, _)| elements(&flat.shapes, id as BufId) * lanes * 4)
            .sum(),
        barriers: hopper
            .as_ref()
            .map_or(0, |h| h.plan.slots.values().sum::<i64>() * 8),
    };
    if shared.total() > shared_limit_kb * 1024 {
        return refused(format!(
            "the shared buffers need {} bytes; {sm} allows {shared_limit_kb} KB per block",
            shared.total()
        ));
    }
    let mut g = Gen {
        program,
        flat,
        lanes,
        out: Lines::indented_by("    "),
        r: 1,
        rd: 0,
        f: 0,
        p: 0,
        labels: 0,
        notes: Vec::new(),
        synchronous: Vec::new(),
        hopper,
        error: None,
        stream: Stream::default(),
        zeroed: false,
    };
    g.zero_fill();
    g.items(&flat.items);
    g.drain();
    if let Some(e) = g.error.take() {
        return refused(e);
    }
    for b in &program.buffers {
        if b.dtype != DType::Float32 {
            g.notes.push(format!(
                "`{}` is {}; this emitter computes and stores float32",
                b.name,
                b.dtype.name()
            ));
        }
    }
    let translated = g.stream.translate(u64::MAX);
    let lines = wait_lines(&g.stream.points, &translated, &mut g.notes, &WAIT_GROUPS);
    let head = g.header(arch, sm, shared);
    let body = fill_waits(&g.out.text, &lines);
    let mut waits = emitted_waits(&g.stream.points, &lines, head.stmts.len());
    if let Some(h) = g.hopper.take() {
        waits = h.waits;
        for w in &mut waits {
            w.line += head.stmts.len() as u32 + 1;
        }
    }
    Emitted {
        waits,
        ..kernel(head, &body, g.out, "    ret;\n}\n", g.notes)
    }
}

/// sm_80's `cp.async` groups: one sequence per thread (PTX ISA, "cp.async.wait_group": the
/// most recent N groups of the executing thread may stay pending, every older one completes).
const WAIT_GROUPS: WaitSpelling = WaitSpelling {
    instr: |n| format!("cp.async.wait_group {n};"),
    short: |n| format!("cp.async.wait_group {n}"),
    comment: "// ",
    dash: "-",
    unit: "group",
    of_groups: " of it",
    nothing_needed: "nothing to wait for: every group it needs is complete already",
    field_max: u64::MAX,
    field: "wait_group",
    counted: "groups",
    machine: "sm_80",
    shared: "the queues share the single sequence of cp.async groups (wait_group completes every older group of the thread, of any queue)",
    sequence: Some("a thread's cp.async groups form one sequence (PTX ISA, cp.async.wait_group)"),
};
