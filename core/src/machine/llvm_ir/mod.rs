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

use super::contract::Contract;
use super::memory::{Cell, Issue, Memory, OpId, Order, Space, SpaceKind};
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
    values: Vec<u64>,
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
                self.values
                    .get(k as usize * self.lanes + lane)
                    .copied()
                    .unwrap_or(0)
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

    /// Operand `v` in every thread.
    fn load(&mut self, v: Val, line: u32) -> Vec<u64> {
        match v {
            Val::Local(k) => {
                if !self.defined.get(k as usize).copied().unwrap_or(false) {
                    let _ = self.value(v, 0, line);
                    return vec![0; self.lanes];
                }
                let base = k as usize * self.lanes;
                match self.values.get(base..base + self.lanes) {
                    Some(s) => s.to_vec(),
                    None => vec![0; self.lanes],
                }
            }
            other => vec![self.value(other, 0, line); self.lanes],
        }
    }

    /// Defines `dst` with one value per thread.
    fn store_all(&mut self, dst: u32, values: &[u64]) {
        let base = dst as usize * self.lanes;
        if let Some(s) = self.values.get_mut(base..base + values.len()) {
            s.copy_from_slice(values);
        }
        self.define(dst);
    }

    fn set(&mut self, dst: u32, lane: usize, v: u64) {
        if let Some(x) = self.values.get_mut(dst as usize * self.lanes + lane) {
            *x = v;
        }
    }

    fn define(&mut self, dst: u32) {
        if let Some(d) = self.defined.get_mut(dst as usize) {
            *d = true;
        }
    }

    /// The words the threads' pointers address, or a problem for the first bad one. Threads
    /// addressing consecutive words of one object (an element tile) are checked at once.
    fn cells(&mut self, ptrs: &[u64], line: u32) -> Option<Vec<Cell>> {
        let (space, first) = unpack(*ptrs.first()?);
        let words = self.memory.space(space).map_or(0, |s| s.len() as i64);
        let run = first >= 0
            && first % 4 == 0
            && first / 4 + ptrs.len() as i64 <= words
            && ptrs
                .iter()
                .enumerate()
                .all(|(i, p)| *p == pointer(space, first + 4 * i as i64));
        if run {
            let start = (first / 4) as u32;
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
            cells.push(self.cell(*p, line, l)?);
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
        let line = inst.line;
        let lanes = self.lanes;
        match &inst.kind {
            Kind::WorkitemId { dst } => {
                let ids: Vec<u64> = (0..lanes as u64).collect();
                self.store_all(*dst, &ids);
            }
            Kind::Int { dst, op, a, b } => {
                let (x, y) = (self.load(*a, line), self.load(*b, line));
                let mut r = Vec::with_capacity(lanes);
                let narrow = |v: u64| v as i32;
                match op {
                    IntOp::SRem | IntOp::SDiv | IntOp::Shl | IntOp::LShr | IntOp::AShr => {
                        for (p, q) in x.iter().zip(&y) {
                            let v = self.int(*op, narrow(*p), narrow(*q), line);
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
                                .zip(&y)
                                .map(|(p, q)| i64::from(f(narrow(*p), narrow(*q))) as u64),
                        );
                    }
                }
                self.store_all(*dst, &r);
            }
            Kind::Logic { dst, op, a, b } => {
                let (x, y) = (self.load(*a, line), self.load(*b, line));
                let f: fn(u64, u64) -> u64 = match op {
                    IntOp::And => |p, q| p & q,
                    IntOp::Or => |p, q| p | q,
                    _ => |p, q| p ^ q,
                };
                let r: Vec<u64> = x.iter().zip(&y).map(|(p, q)| f(p & 1, q & 1)).collect();
                self.store_all(*dst, &r);
            }
            Kind::Icmp { dst, pred, a, b } => {
                let (x, y) = (self.load(*a, line), self.load(*b, line));
                let f: fn(&i64, &i64) -> bool = match pred {
                    Pred::Eq => i64::eq,
                    Pred::Ne => i64::ne,
                    Pred::Slt => i64::lt,
                    Pred::Sle => i64::le,
                    Pred::Sgt => i64::gt,
                    Pred::Sge => i64::ge,
                };
                let r: Vec<u64> = x
                    .iter()
                    .zip(&y)
                    .map(|(p, q)| u64::from(f(&(*p as i64), &(*q as i64))))
                    .collect();
                self.store_all(*dst, &r);
            }
            Kind::Select { dst, c, a, b } => {
                let (cs, x, y) = (
                    self.load(*c, line),
                    self.load(*a, line),
                    self.load(*b, line),
                );
                let r: Vec<u64> = cs
                    .iter()
                    .zip(x.iter().zip(&y))
                    .map(|(c, (p, q))| if c & 1 == 1 { *p } else { *q })
                    .collect();
                self.store_all(*dst, &r);
            }
            Kind::Gep { dst, base, index } => {
                let (p, i) = (self.load(*base, line), self.load(*index, line));
                let r: Vec<u64> = p
                    .iter()
                    .zip(&i)
                    .map(|(p, i)| {
                        let (space, offset) = unpack(*p);
                        pointer(space, offset.wrapping_add(4 * i64::from(*i as i32)))
                    })
                    .collect();
                self.store_all(*dst, &r);
            }
            Kind::Load { dst, ptr } => {
                let ptrs = self.load(*ptr, line);
                let Some(cells) = self.cells(&ptrs, line) else {
                    return;
                };
                // A word never written, and with no write in flight (that one races instead).
                let uninitialized = cells
                    .iter()
                    .find(|c| !self.memory.initialized(**c) && !self.memory.write_pending(**c))
                    .copied();
                let values = self
                    .memory
                    .read_all(&cells, line, &|i| (i / WAVE) as u16, &mut self.conflicts)
                    .unwrap_or_default();
                self.log.conflicts(line, &mut self.conflicts);
                if let Some(c) = uninitialized {
                    let place = self.contract.place(&self.memory, c);
                    self.problem(
                        line,
                        format!("reads {place}, which nothing wrote (LDS starts undefined)"),
                    );
                }
                let values: Vec<u64> = values.into_iter().map(u64::from).collect();
                self.store_all(*dst, &values);
            }
            Kind::Store { value, ptr } => {
                let values: Vec<u32> = self
                    .load(*value, line)
                    .into_iter()
                    .map(|v| v as u32)
                    .collect();
                let ptrs = self.load(*ptr, line);
                let Some(cells) = self.cells(&ptrs, line) else {
                    return;
                };
                self.memory.write_all(
                    &cells,
                    &values,
                    line,
                    &|i| (i / WAVE) as u16,
                    &mut self.conflicts,
                );
                self.log.conflicts(line, &mut self.conflicts);
            }
            Kind::FBin { dst, op, a, b } => {
                let (x, y) = (self.load(*a, line), self.load(*b, line));
                let f = |v: u64| f32::from_bits(v as u32);
                let mut r = Vec::with_capacity(lanes);
                for (p, q) in x.iter().zip(&y) {
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
                self.store_all(*dst, &r);
            }
            Kind::FNeg { dst, a } | Kind::FAbs { dst, a } => {
                let neg = matches!(inst.kind, Kind::FNeg { .. });
                let x = self.load(*a, line);
                let r: Vec<u64> = x
                    .iter()
                    .map(|v| {
                        let v = *v as u32;
                        u64::from(if neg {
                            v ^ 0x8000_0000
                        } else {
                            v & 0x7fff_ffff
                        })
                    })
                    .collect();
                self.store_all(*dst, &r);
            }
            Kind::Fma { dst, a, b, c } => {
                let (x, y, z) = (
                    self.load(*a, line),
                    self.load(*b, line),
                    self.load(*c, line),
                );
                let f = |v: &u64| f32::from_bits(*v as u32);
                let mut r = Vec::with_capacity(lanes);
                for (p, (q, s)) in x.iter().zip(y.iter().zip(&z)) {
                    r.push(u64::from(self.float.fma(f(p), f(q), f(s)).to_bits()));
                }
                self.store_all(*dst, &r);
            }
            Kind::SiToFp { dst, a } => {
                let x = self.load(*a, line);
                let mut r = Vec::with_capacity(lanes);
                for v in x {
                    let i = v as i32;
                    let f = i as f32;
                    if f64::from(f) != f64::from(i) {
                        self.float.inexact = true;
                    }
                    r.push(u64::from(f.to_bits()));
                }
                self.store_all(*dst, &r);
            }
            Kind::AsyncLds {
                global,
                lds,
                size: _,
                offset,
            } => {
                for first in (0..lanes).step_by(WAVE) {
                    let end = (first + WAVE).min(lanes);
                    let base = self.value(*lds, first, line);
                    let mut reads = Vec::with_capacity(end - first);
                    let mut writes = Vec::with_capacity(end - first);
                    let mut values = Vec::with_capacity(end - first);
                    for l in first..end {
                        let g = self.value(*global, l, line);
                        let (gs, go) = unpack(g);
                        let Some(src) = self.cell(pointer(gs, go.wrapping_add(*offset)), line, l)
                        else {
                            return;
                        };
                        let (ls, lo) = unpack(base);
                        let dst_ptr = pointer(
                            ls,
                            lo.wrapping_add(*offset)
                                .wrapping_add(4 * (l - first) as i64),
                        );
                        let Some(dst) = self.cell(dst_ptr, line, l) else {
                            return;
                        };
                        reads.push(src);
                        writes.push(dst);
                        values.push(self.memory.peek(src).unwrap_or(0));
                    }
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

    fn uniform(&mut self, c: Val, line: u32) -> Option<bool> {
        let first = self.value(c, 0, line) & 1;
        for l in 1..self.lanes {
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
            let values = (0..self.lanes)
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
                self.stop = Some(Stop::Limit(format!(
                    "the kernel ran more than {} wave-instructions",
                    self.contract.max_instructions
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
    let f = &parsed.function;
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
        defined: vec![false; f.locals.len()],
        arguments,
        lds,
        open: Vec::new(),
        marks: VecDeque::new(),
        stop,
        instructions: 0,
        conflicts: Vec::new(),
    };
    if m.stop.is_none() {
        m.values = vec![0; f.locals.len() * lanes];
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
