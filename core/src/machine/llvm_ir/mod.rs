//! AMDGPU LLVM IR with LLVM's asyncmark model: executes the kernel function, every thread of the
//! workgroup in lockstep (a branch whose condition differs between threads is "not supported").
//!
//! Machine semantics (seed 003, LLVM's "AMDGPU Asynchronous Operations", and the intrinsics'
//! definitions in IntrinsicsAMDGPU.td):
//! - `@llvm.amdgcn.global.load.async.lds(global, lds, size, offset, aux)` starts an asynchronous
//!   operation per wave: lane i copies `size` bytes from its own `global + offset` to
//!   `readfirstlane(lds) + offset + size · i` — the LDS address is the wave's first lane's, as for
//!   the `M0` base of the instruction it becomes. It may read its source, and its write lands, at
//!   any moment until it completes.
//! - Each thread has one sequence of asyncmarks. `@llvm.amdgcn.asyncmark()` appends a mark that
//!   covers the async operations the thread started since the previous mark;
//!   `@llvm.amdgcn.wait.asyncmark(i16 N)` removes marks from the front until at most N remain, and
//!   the operations of every removed mark complete. Operations after the last mark are covered by
//!   no wait at all; nothing completes when the function returns (they are never awaited).
//! - Ordinary loads and stores are performed in program order of the thread; async operations are
//!   ordered with nothing but the waits that complete them (two of them writing one word race).

mod parse;
mod uniform;

use super::contract::Contract;
use super::memory::{Cell, Issue, Memory, OpId, Order, RunAccess, RunWaves, Space, SpaceKind};
use super::{Execution, Float, Log, Stop};
use parse::{FOp, Function, IntOp, Kind, Pred, Val};
use std::collections::VecDeque;

const WAVE: usize = 64;

/// Pointers are (space, byte offset) packed in 64 bits: the space above bit 48.
fn pointer(space: u16, offset: i64) -> u64 {
    (u64::from(space) << 48) | ((offset as u64) & 0xffff_ffff_ffff)
}

fn unpack(p: u64) -> (u16, i64) {
    let space = (p >> 48) as u16;
    let offset = ((p << 16) as i64) >> 16;
    (space, offset)
}

struct Machine<'a> {
    f: &'a Function,
    contract: &'a Contract,
    lanes: usize,
    memory: Memory,
    log: Log,
    float: Float,
    /// Per local, one value per thread from its slot, or one value when it is uniform.
    values: Vec<u64>,
    slots: Vec<usize>,
    uniform: Vec<bool>,
    defined: Vec<bool>,
    arguments: Vec<u16>,
    lds: Vec<u16>,
    /// Async operations since the last asyncmark, and the marks in the sequence (oldest first),
    /// each with its operations and their lines.
    open: Vec<(OpId, u32)>,
    marks: VecDeque<Vec<(OpId, u32)>>,
    stop: Option<Stop>,
    instructions: u64,
    conflicts: Vec<super::memory::Conflict>,
    rows: Rows,
}

/// Operand and result rows reused from instruction to instruction.
#[derive(Default)]
struct Rows {
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
    r: Vec<u64>,
}

impl Machine<'_> {
    fn problem(&mut self, line: u32, message: impl Into<String>) {
        self.log.problem(line, message);
        self.stop.get_or_insert(Stop::Invalid);
    }

    fn value(&mut self, v: Val, lane: usize, line: u32) -> u64 {
        match v {
            Val::Local(k) => {
                if !self.defined.get(k as usize).copied().unwrap_or(false) {
                    let name = self
                        .f
                        .locals
                        .get(k as usize)
                        .map_or("?", |(n, _)| n.as_str());
                    self.problem(line, format!("uses %{name} before any path defined it"));
                    return 0;
                }
                let lane = if self.uniform.get(k as usize).copied().unwrap_or(false) {
                    0
                } else {
                    lane
                };
                self.values.get(self.slot(k) + lane).copied().unwrap_or(0)
            }
            Val::Int(i) => i64::from(i as i32) as u64,
            Val::Float(bits) => u64::from(bits),
            Val::Bool(b) => u64::from(b),
            Val::Lds(k) => pointer(self.lds.get(k as usize).copied().unwrap_or(u16::MAX), 0),
            Val::Arg(k) => pointer(
                self.arguments.get(k as usize).copied().unwrap_or(u16::MAX),
                0,
            ),
        }
    }

    /// Where local `k`'s values start in `values` (past its end for no local).
    fn slot(&self, k: u32) -> usize {
        self.slots
            .get(k as usize)
            .copied()
            .unwrap_or(self.values.len())
    }

    /// How many threads' values an instruction defining `dst` computes: one when `dst` is
    /// uniform (then every operand is), else every thread's.
    fn width(&self, dst: u32) -> usize {
        if self.uniform.get(dst as usize).copied().unwrap_or(false) {
            1
        } else {
            self.lanes
        }
    }

    /// Operand `v` in the first `n` threads into `out` (`n` is 1 or every thread; a uniform
    /// operand is repeated).
    fn operand(&mut self, v: Val, n: usize, line: u32, out: &mut Vec<u64>) {
        out.clear();
        match v {
            Val::Local(k) => {
                if !self.defined.get(k as usize).copied().unwrap_or(false) {
                    let _ = self.value(v, 0, line);
                    out.resize(n, 0);
                    return;
                }
                let base = self.slot(k);
                if self.uniform.get(k as usize).copied().unwrap_or(false) {
                    out.resize(n, self.values.get(base).copied().unwrap_or(0));
                    return;
                }
                match self.values.get(base..base + n) {
                    Some(s) => out.extend_from_slice(s),
                    None => out.resize(n, 0),
                }
            }
            other => {
                let x = self.value(other, 0, line);
                out.resize(n, x);
            }
        }
    }

    /// Defines `dst` with one value per thread.
    fn store_all(&mut self, dst: u32, values: &[u64]) {
        let base = self.slot(dst);
        if let Some(s) = self.values.get_mut(base..base + values.len()) {
            s.copy_from_slice(values);
        }
        self.define(dst);
    }

    fn set(&mut self, dst: u32, lane: usize, v: u64) {
        let at = self.slot(dst) + lane;
        if let Some(x) = self.values.get_mut(at) {
            *x = v;
        }
    }

    fn define(&mut self, dst: u32) {
        if let Some(d) = self.defined.get_mut(dst as usize) {
            *d = true;
        }
    }

    /// The first word of the run of consecutive words of one object the threads' pointers
    /// address (an element tile), if they do.
    fn tile(&self, ptrs: &[u64]) -> Option<(u16, u32)> {
        let (space, first) = unpack(*ptrs.first()?);
        let words = self.memory.space(space).map_or(0, |s| s.len() as i64);
        let run = first >= 0
            && first % 4 == 0
            && first / 4 + ptrs.len() as i64 <= words
            && ptrs
                .iter()
                .enumerate()
                .all(|(i, p)| *p == pointer(space, first + 4 * i as i64));
        run.then_some((space, (first / 4) as u32))
    }

    /// The words the threads' pointers address, or a problem for the first bad one. Threads
    /// addressing consecutive words of one object (an element tile) are checked at once.
    fn cells(&mut self, ptrs: &[u64], line: u32, first_lane: usize) -> Option<Vec<Cell>> {
        if let Some((space, start)) = self.tile(ptrs) {
            return Some(
                (0..ptrs.len() as u32)
                    .map(|i| Cell {
                        space,
                        word: start + i,
                    })
                    .collect(),
            );
        }
        let mut cells = Vec::with_capacity(ptrs.len());
        for (l, p) in ptrs.iter().enumerate() {
            cells.push(self.cell(*p, line, first_lane + l)?);
        }
        Some(cells)
    }

    /// The word a pointer addresses, or a problem.
    fn cell(&mut self, p: u64, line: u32, lane: usize) -> Option<Cell> {
        let (space, offset) = unpack(p);
        let words = self.memory.space(space).map(|s| s.len());
        let Some(words) = words else {
            self.problem(line, format!("thread {lane}: a pointer into no object"));
            return None;
        };
        if offset < 0 || offset % 4 != 0 || (offset / 4) as usize >= words {
            let what = match self.memory.space(space).map(|s| &s.kind) {
                Some(SpaceKind::Global { param }) => self
                    .contract
                    .globals
                    .get(*param)
                    .map_or("a kernel argument".into(), |g| format!("`{}`", g.name)),
                Some(SpaceKind::Shared { name }) => {
                    format!("@{}", name.as_deref().unwrap_or("LDS"))
                }
                Some(SpaceKind::Local { name }) => format!("@{name}"),
                Some(SpaceKind::Dynamic) | None => "?".into(),
            };
            self.problem(
                line,
                format!(
                    "thread {lane}: byte {offset} is outside {what} ({} bytes){}",
                    words * 4,
                    if offset % 4 != 0 {
                        ", or unaligned"
                    } else {
                        ""
                    }
                ),
            );
            return None;
        }
        Some(Cell {
            space,
            word: (offset / 4) as u32,
        })
    }

    fn int(&mut self, op: IntOp, a: i32, b: i32, line: u32) -> i32 {
        match op {
            IntOp::Add => a.wrapping_add(b),
            IntOp::Sub => a.wrapping_sub(b),
            IntOp::Mul => a.wrapping_mul(b),
            IntOp::SRem | IntOp::SDiv => {
                if b == 0 || (a == i32::MIN && b == -1) {
                    self.problem(
                        line,
                        format!(
                            "{} {a} by {b} is undefined",
                            if op == IntOp::SRem { "srem" } else { "sdiv" }
                        ),
                    );
                    return 0;
                }
                if op == IntOp::SRem {
                    a % b
                } else {
                    a / b
                }
            }
            IntOp::And => a & b,
            IntOp::Or => a | b,
            IntOp::Xor => a ^ b,
            IntOp::Shl | IntOp::LShr | IntOp::AShr => {
                if !(0..32).contains(&b) {
                    self.problem(line, format!("a shift by {b} is poison"));
                    return 0;
                }
                match op {
                    IntOp::Shl => a.wrapping_shl(b as u32),
                    IntOp::LShr => ((a as u32) >> b) as i32,
                    _ => a >> b,
                }
            }
            IntOp::SMin => a.min(b),
            IntOp::SMax => a.max(b),
        }
    }

    /// Runs one non-terminator instruction for every thread.
    fn exec(&mut self, inst: &parse::Inst) {
        let mut rows = std::mem::take(&mut self.rows);
        self.exec_with(inst, &mut rows);
        self.rows = rows;
    }

    fn exec_with(&mut self, inst: &parse::Inst, rows: &mut Rows) {
        let line = inst.line;
        let n = inst.kind.dst().map_or(self.lanes, |d| self.width(d));
        let Rows {
            a: x,
            b: y,
            c: z,
            r,
        } = rows;
        r.clear();
        match &inst.kind {
            Kind::WorkitemId { dst } => {
                r.extend(0..n as u64);
                self.store_all(*dst, r);
            }
            Kind::Int { dst, op, a, b } => {
                self.operand(*a, n, line, x);
                self.operand(*b, n, line, y);
                self.integer(*op, x, y, r, line);
                self.store_all(*dst, r);
            }
            Kind::Logic { dst, op, a, b } => {
                self.operand(*a, n, line, x);
                self.operand(*b, n, line, y);
                let f: fn(u64, u64) -> u64 = match op {
                    IntOp::And => |p, q| p & q,
                    IntOp::Or => |p, q| p | q,
                    _ => |p, q| p ^ q,
                };
                r.extend(x.iter().zip(y.iter()).map(|(p, q)| f(p & 1, q & 1)));
                self.store_all(*dst, r);
            }
            Kind::Icmp { dst, pred, a, b } => {
                self.operand(*a, n, line, x);
                self.operand(*b, n, line, y);
                let f: fn(&i64, &i64) -> bool = match pred {
                    Pred::Eq => i64::eq,
                    Pred::Ne => i64::ne,
                    Pred::Slt => i64::lt,
                    Pred::Sle => i64::le,
                    Pred::Sgt => i64::gt,
                    Pred::Sge => i64::ge,
                };
                r.extend(
                    x.iter()
                        .zip(y.iter())
                        .map(|(p, q)| u64::from(f(&(*p as i64), &(*q as i64)))),
                );
                self.store_all(*dst, r);
            }
            Kind::Select { dst, c, a, b } => {
                self.operand(*c, n, line, z);
                self.operand(*a, n, line, x);
                self.operand(*b, n, line, y);
                r.extend(z.iter().zip(x.iter().zip(y.iter())).map(|(c, (p, q))| {
                    if c & 1 == 1 {
                        *p
                    } else {
                        *q
                    }
                }));
                self.store_all(*dst, r);
            }
            Kind::Gep { dst, base, index } => {
                self.operand(*base, n, line, x);
                self.operand(*index, n, line, y);
                r.extend(x.iter().zip(y.iter()).map(|(p, i)| {
                    let (space, offset) = unpack(*p);
                    pointer(space, offset.wrapping_add(4 * i64::from(*i as i32)))
                }));
                self.store_all(*dst, r);
            }
            Kind::Load { dst, ptr } => {
                self.operand(*ptr, n, line, x);
                self.load_words(*dst, x, line);
            }
            Kind::Store { value, ptr } => {
                self.operand(*value, n, line, x);
                self.operand(*ptr, n, line, y);
                self.store_words(x, y, line);
            }
            Kind::FBin { dst, op, a, b } => {
                self.operand(*a, n, line, x);
                self.operand(*b, n, line, y);
                self.float_binary(*op, x, y, r);
                self.store_all(*dst, r);
            }
            Kind::FNeg { dst, a } | Kind::FAbs { dst, a } => {
                let neg = matches!(inst.kind, Kind::FNeg { .. });
                self.operand(*a, n, line, x);
                r.extend(x.iter().map(|v| {
                    let v = *v as u32;
                    u64::from(if neg {
                        v ^ 0x8000_0000
                    } else {
                        v & 0x7fff_ffff
                    })
                }));
                self.store_all(*dst, r);
            }
            Kind::Fma { dst, a, b, c } => {
                self.operand(*a, n, line, x);
                self.operand(*b, n, line, y);
                self.operand(*c, n, line, z);
                let f = |v: &u64| f32::from_bits(*v as u32);
                for (p, (q, s)) in x.iter().zip(y.iter().zip(z.iter())) {
                    r.push(u64::from(self.float.fma(f(p), f(q), f(s)).to_bits()));
                }
                self.store_all(*dst, r);
            }
            Kind::SiToFp { dst, a } => {
                self.operand(*a, n, line, x);
                for v in x.iter() {
                    let i = *v as i32;
                    let f = i as f32;
                    if f64::from(f) != f64::from(i) {
                        self.float.inexact = true;
                    }
                    r.push(u64::from(f.to_bits()));
                }
                self.store_all(*dst, r);
            }
            Kind::AsyncLds {
                global,
                lds,
                size: _,
                offset,
            } => {
                self.operand(*global, self.lanes, line, x);
                self.async_copy(x, *lds, *offset, line);
            }
            Kind::AsyncMark => {
                let ops = std::mem::take(&mut self.open);
                self.marks.push_back(ops);
            }
            Kind::WaitAsyncMark { count } => {
                while self.marks.len() as i64 > *count {
                    if let Some(ops) = self.marks.pop_front() {
                        for (id, _) in ops {
                            self.memory.complete(id);
                        }
                    }
                }
            }
            Kind::Phi { .. } | Kind::Br { .. } | Kind::CondBr { .. } | Kind::Ret => {}
        }
    }

    fn integer(&mut self, op: IntOp, x: &[u64], y: &[u64], r: &mut Vec<u64>, line: u32) {
        let narrow = |v: u64| v as i32;
        match op {
            IntOp::SRem | IntOp::SDiv | IntOp::Shl | IntOp::LShr | IntOp::AShr => {
                for (p, q) in x.iter().zip(y) {
                    let v = self.int(op, narrow(*p), narrow(*q), line);
                    r.push(i64::from(v) as u64);
                }
            }
            _ => {
                let f: fn(i32, i32) -> i32 = match op {
                    IntOp::Add => i32::wrapping_add,
                    IntOp::Sub => i32::wrapping_sub,
                    IntOp::Mul => i32::wrapping_mul,
                    IntOp::And => |p, q| p & q,
                    IntOp::Or => |p, q| p | q,
                    IntOp::Xor => |p, q| p ^ q,
                    IntOp::SMin => i32::min,
                    _ => i32::max,
                };
                r.extend(
                    x.iter()
                        .zip(y)
                        .map(|(p, q)| i64::from(f(narrow(*p), narrow(*q))) as u64),
                );
            }
        }
    }

    fn float_binary(&mut self, op: FOp, x: &[u64], y: &[u64], r: &mut Vec<u64>) {
        let f = |v: u64| f32::from_bits(v as u32);
        for (p, q) in x.iter().zip(y) {
            let (p, q) = (f(*p), f(*q));
            let v = match op {
                FOp::Add => self.float.add(p, q),
                FOp::Sub => self.float.sub(p, q),
                FOp::Mul => self.float.mul(p, q),
                FOp::Div => self.float.div(p, q),
                FOp::Max => p.max(q),
                FOp::Min => p.min(q),
            };
            r.push(u64::from(v.to_bits()));
        }
    }

    /// `load`: every thread reads the word its pointer addresses.
    fn load_words(&mut self, dst: u32, ptrs: &[u64], line: u32) {
        let mut words = Vec::with_capacity(ptrs.len());
        let uninitialized = if let Some((space, start)) = self.tile(ptrs) {
            let cells = (start..start + ptrs.len() as u32).map(|word| Cell { space, word });
            let uninitialized = self.first_uninitialized(cells);
            let at = RunAccess {
                space,
                start,
                line,
                waves: RunWaves::Threads { per: WAVE as u32 },
            };
            self.memory
                .read_run(at, ptrs.len() as u32, &mut words, &mut self.conflicts);
            uninitialized
        } else {
            let Some(cells) = self.cells(ptrs, line, 0) else {
                return;
            };
            let uninitialized = self.first_uninitialized(cells.iter().copied());
            words = self
                .memory
                .read_all(&cells, line, &|i| (i / WAVE) as u16, &mut self.conflicts)
                .unwrap_or_default();
            uninitialized
        };
        self.log.conflicts(line, &mut self.conflicts);
        if let Some(c) = uninitialized {
            let place = self.contract.place(&self.memory, c);
            self.problem(
                line,
                format!("reads {place}, which nothing wrote (LDS starts undefined)"),
            );
        }
        let values: Vec<u64> = words.into_iter().map(u64::from).collect();
        self.store_all(dst, &values);
    }

    /// A word never written, and with no write in flight (that one races instead).
    fn first_uninitialized(&self, mut cells: impl Iterator<Item = Cell>) -> Option<Cell> {
        cells.find(|c| !self.memory.initialized(*c) && !self.memory.write_pending(*c))
    }

    /// `store`: every thread writes its value to the word its pointer addresses.
    fn store_words(&mut self, values: &[u64], ptrs: &[u64], line: u32) {
        let values: Vec<u32> = values.iter().map(|v| *v as u32).collect();
        let waves = |i: usize| (i / WAVE) as u16;
        if let Some((space, start)) = self.tile(ptrs) {
            let at = RunAccess {
                space,
                start,
                line,
                waves: RunWaves::Threads { per: WAVE as u32 },
            };
            self.memory.write_run(at, &values, &mut self.conflicts);
        } else {
            let Some(cells) = self.cells(ptrs, line, 0) else {
                return;
            };
            self.memory
                .write_all(&cells, &values, line, &waves, &mut self.conflicts);
        }
        self.log.conflicts(line, &mut self.conflicts);
    }

    /// `global.load.async.lds`: one asynchronous copy per wave, from each thread's global
    /// pointer to consecutive words at the wave's first thread's LDS pointer.
    fn async_copy(&mut self, globals: &[u64], lds: Val, offset: i64, line: u32) {
        let mut sources = Vec::with_capacity(WAVE);
        let mut destinations = Vec::with_capacity(WAVE);
        for first in (0..self.lanes).step_by(WAVE) {
            let end = (first + WAVE).min(self.lanes);
            let (ls, lo) = unpack(self.value(lds, first, line));
            sources.clear();
            sources.extend(globals.get(first..end).unwrap_or(&[]).iter().map(|g| {
                let (gs, go) = unpack(*g);
                pointer(gs, go.wrapping_add(offset))
            }));
            destinations.clear();
            destinations.extend(
                (0..end - first)
                    .map(|l| pointer(ls, lo.wrapping_add(offset).wrapping_add(4 * l as i64))),
            );
            let Some(reads) = self.cells(&sources, line, first) else {
                return;
            };
            let Some(writes) = self.cells(&destinations, line, first) else {
                return;
            };
            let values = self.memory.peek_all(&reads);
            let wave = (first / WAVE) as u16;
            let id = self.memory.issue(
                Issue {
                    line,
                    wave,
                    domain: u32::from(wave),
                    order: Order::Unordered,
                    reads,
                    writes,
                    values,
                },
                &mut self.conflicts,
            );
            self.open.push((id, line));
        }
        self.log.conflicts(line, &mut self.conflicts);
    }

    fn uniform(&mut self, c: Val, line: u32) -> Option<bool> {
        let first = self.value(c, 0, line) & 1;
        let threads = match c {
            Val::Local(k) => self.width(k),
            _ => 1,
        };
        for l in 1..threads {
            if self.value(c, l, line) & 1 != first {
                self.stop.get_or_insert(Stop::NotSupported {
                    line,
                    what: "the threads branch different ways (a divergent branch)".into(),
                });
                return None;
            }
        }
        Some(first == 1)
    }

    /// Enters block `to` from block `from`: its phis take their values all at once.
    fn enter(&mut self, to: usize, from: usize) {
        let Some(block) = self.f.blocks.get(to) else {
            return;
        };
        let mut updates: Vec<(u32, Vec<u64>)> = Vec::new();
        for inst in &block.insts {
            let Kind::Phi { dst, incoming } = &inst.kind else {
                break;
            };
            self.instructions += 1;
            let Some((v, _)) = incoming.iter().find(|(_, b)| *b == from) else {
                self.problem(
                    inst.line,
                    format!(
                        "the phi has no value for the block `{}` it is entered from",
                        self.f.blocks.get(from).map_or("?", |b| b.name.as_str())
                    ),
                );
                return;
            };
            let values = (0..self.width(*dst))
                .map(|l| self.value(*v, l, inst.line))
                .collect();
            updates.push((*dst, values));
        }
        for (dst, values) in updates {
            for (l, v) in values.into_iter().enumerate() {
                self.set(dst, l, v);
            }
            self.define(dst);
        }
    }

    /// Runs from the entry block until the kernel ends or stops.
    fn run(&mut self) {
        let mut block = 0usize;
        loop {
            let Some(b) = self.f.blocks.get(block) else {
                self.problem(0, "control reaches a block that does not exist");
                return;
            };
            let mut next = None;
            for inst in &b.insts {
                if matches!(inst.kind, Kind::Phi { .. }) {
                    continue;
                }
                self.instructions += 1;
                match &inst.kind {
                    Kind::Br { to } => next = Some(*to),
                    Kind::CondBr { c, then, other } => {
                        let Some(taken) = self.uniform(*c, inst.line) else {
                            return;
                        };
                        next = Some(if taken { *then } else { *other });
                    }
                    Kind::Ret => {
                        self.end();
                        return;
                    }
                    _ => self.exec(inst),
                }
                if self.stop.is_some() {
                    return;
                }
                if next.is_some() {
                    break;
                }
            }
            let Some(to) = next else {
                self.problem(
                    b.insts.last().map_or(0, |i| i.line),
                    format!("the block `{}` ends without a branch or ret", b.name),
                );
                return;
            };
            if self
                .instructions
                .saturating_mul(self.lanes.div_ceil(WAVE) as u64)
                > self.contract.max_instructions
            {
                self.stop = Some(Stop::Limit(crate::machine::beyond_the_limit(
                    self.contract.max_instructions,
                    "wave-instructions",
                )));
                return;
            }
            self.enter(to, block);
            if self.stop.is_some() {
                return;
            }
            block = to;
        }
    }

    /// `ret`: operations not completed by a wait never are.
    fn end(&mut self) {
        let left: Vec<(OpId, u32)> = self
            .marks
            .drain(..)
            .flatten()
            .chain(self.open.drain(..))
            .collect();
        for (id, line) in left {
            let cell = self.memory.first_write(id);
            self.log.unawaited.push((line, cell));
        }
    }
}

/// Executes the LLVM IR kernel `text` under `contract`.
pub(crate) fn execute(text: &str, contract: &Contract) -> Execution {
    let parsed = parse::parse(text);
    let mut log = Log::default();
    for (line, message) in &parsed.problems {
        log.problem(*line, message.clone());
    }
    let f = &parsed.kernel;
    if f.args.len() != contract.globals.len() && parsed.problems.is_empty() {
        log.problem(
            0,
            format!(
                "the kernel takes {} pointers; the loop has {} global buffers (one argument each, in order)",
                f.args.len(),
                contract.globals.len()
            ),
        );
    }
    let mut spaces = Vec::new();
    let mut arguments = Vec::new();
    for k in 0..contract.globals.len() {
        arguments.push(spaces.len() as u16);
        spaces.push(Space::new(
            SpaceKind::Global { param: k },
            contract.initial_words(k),
            true,
        ));
    }
    let mut lds = Vec::new();
    for o in &f.lds {
        lds.push(spaces.len() as u16);
        // Named for reports by the buffer the object holds (`@lds_B` holds `B`).
        let name = o.name.strip_prefix("lds_").unwrap_or(&o.name).to_string();
        spaces.push(Space::new(
            SpaceKind::Shared { name: Some(name) },
            vec![0; o.elements as usize],
            false,
        ));
    }
    let lanes = contract.lanes as usize;
    let mut stop = if !log.problems.is_empty() {
        Some(Stop::Invalid)
    } else {
        parsed
            .unsupported
            .as_ref()
            .map(|(line, what)| Stop::NotSupported {
                line: *line,
                what: what.clone(),
            })
    };
    if f.locals.len().saturating_mul(lanes) > 1 << 26 && stop.is_none() {
        stop = Some(Stop::Limit(format!(
            "{} values × {lanes} threads is beyond what the executor holds",
            f.locals.len()
        )));
    }
    let mut m = Machine {
        f,
        contract,
        lanes,
        memory: Memory::new(spaces, contract.waves() as u16),
        log,
        float: Float { inexact: false },
        values: Vec::new(),
        slots: Vec::new(),
        uniform: uniform::uniform_locals(f),
        defined: vec![false; f.locals.len()],
        arguments,
        lds,
        open: Vec::new(),
        marks: VecDeque::new(),
        stop,
        instructions: 0,
        conflicts: Vec::new(),
        rows: Rows::default(),
    };
    if m.stop.is_none() {
        let mut next = 0;
        m.slots = m
            .uniform
            .iter()
            .map(|u| {
                let slot = next;
                next += if *u { 1 } else { lanes };
                slot
            })
            .collect();
        m.values = vec![0; next];
        m.run();
    }
    Execution {
        instructions: m.instructions * (lanes.div_ceil(WAVE) as u64),
        memory: m.memory,
        arguments: m.arguments,
        log: m.log,
        inexact: m.float.inexact,
        stop: m.stop,
    }
}
