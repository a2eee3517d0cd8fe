//! PTX for sm_80 and sm_90a: executes the kernel text warp by warp, 32 threads in lockstep, the
//! block's warps between barriers one after another (an access of another warp in the same
//! barrier interval is a race whatever the interleaving: `memory.rs` remembers who touched a
//! word in which interval).
//!
//! Machine semantics (the PTX ISA 8.x, sections cited as in docs/execution-model.md):
//! - Registers are per thread and undefined until written (reading one is an error). `%tid.x` is
//!   the thread's index; a kernel parameter (`ld.param.u64`) is the address of the global buffer
//!   of that position; `cvta.to.global` keeps it. Shared objects (`.shared`, then the
//!   `.extern .shared` array of dynamic shared memory, sized for the loop's shared buffers) and
//!   local objects (`.local`, private to each thread) start undefined: reading a word nothing
//!   wrote is an error.
//! - `ld`/`st` of the global, shared and local state spaces are performed in program order of
//!   the thread (§9.7.9.8, §9.7.9.9).
//! - sm_80 (§9.7.9.25): `cp.async.ca.shared.global [d], [s], 4` starts a copy that may read its
//!   source and write its destination at any moment until it completes; copies are ordered with
//!   nothing ("no ordering guarantee between two cp.async operations"). `cp.async.commit_group`
//!   closes the thread's uncommitted copies into a group (empty groups too); the thread's groups
//!   form ONE sequence; `cp.async.wait_group N` completes the oldest groups until at most N remain
//!   pending, `cp.async.wait_all` all of them and the uncommitted copies. Nothing else completes
//!   a copy: one still pending when the kernel ends is reported as never awaited.
//! - sm_90a (§9.7.9.25.4, §9.7.13.15): `cp.async.bulk…mbarrier::complete_tx::bytes [d], [s], n,
//!   [bar]` (issued by the threads whose guard holds) copies n bytes in the async proxy; when it
//!   completes it performs complete-tx of n bytes on the mbarrier. An mbarrier (`mbarrier.init`
//!   with an arrival count) has a current phase, pending arrivals and a tx-count;
//!   `mbarrier.arrive.expect_tx` adds to the tx-count and arrives; the phase completes when no
//!   arrival is pending and the tx-count is zero. `mbarrier.try_wait.parity` is true once the
//!   phase of that parity has completed — and only then is the bulk-copied data visible to the
//!   waiting thread. Completion is as late as possible: a bulk copy completes only when a waiter
//!   needs its phase; a waiter whose phase cannot complete waits (the spin loop around it), and
//!   when every warp waits and no barrier can release them, the kernel deadlocks (an error).
//!   The initialization must be made visible by `fence.mbarrier_init` and a `bar.sync` before
//!   another warp uses the barrier; an arrival on a phase that has no arrival pending (it waits
//!   only for bytes in flight) is an error — which phase it counts for depends on when they land.
//!   Generic-proxy stores to words a bulk copy reads or writes need `fence.proxy.async` by the
//!   storing thread before the copy is issued (§9.7.13.4.1: proxy fences).
//! - `bar.sync 0` waits for every warp of the block; accesses after it are ordered after every
//!   access before it, and what one warp has observed of an mbarrier's phases the others have too.

mod parse;

use super::contract::Contract;
use super::memory::{Cell, Conflict, Issue, Memory, OpId, Order, Space, SpaceKind};
use super::{Execution, Float, Log, RacePlace, Stop};
use crate::interp::RaceKind;
use parse::{Class, FOp, Inst, IntOp, Op, Operand, Symbol};
use std::collections::VecDeque;

const WARP: usize = 32;

/// Where global buffer `k` starts: just below a 4 GiB boundary, so that address arithmetic that
/// drops the carry into the high half is caught.
fn global_base(k: usize) -> u64 {
    ((k as u64 + 1) << 36) | 0xffff_ff00
}

/// The shared and local windows start here (so that an offset used without its object's base
/// addresses nothing).
const WINDOW_BASE: u64 = 0x400;

/// An operand's value in a warp: one for every thread, or per thread (a register's slice).
#[derive(Clone, Copy)]
enum V {
    U(u64),
    L(usize),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Running,
    AtBarrier,
    /// Waiting on an mbarrier phase (the instruction is retried).
    Blocked,
    Ended,
}

struct Warp {
    index: u16,
    lanes: usize,
    pc: usize,
    vals: Vec<u64>,
    uniform: Vec<bool>,
    defined: Vec<bool>,
    /// cp.async copies not yet committed, and the committed groups, oldest first.
    uncommitted: Vec<(OpId, u32)>,
    groups: VecDeque<Vec<(OpId, u32)>>,
    state: State,
    /// `fence.proxy.async` instructions executed.
    fences: u32,
    /// Per mbarrier: phases this warp knows have completed.
    observed: Vec<u32>,
}

/// A memory object of the kernel: its window address, size and memory space.
#[derive(Clone, Copy)]
struct Object {
    base: u64,
    bytes: u64,
    space: u16,
}

struct Barrier {
    addr: u64,
    line: u32,
    expected: i64,
    pending: i64,
    tx: i64,
    /// Phases completed.
    phase: u32,
    warp: u16,
    interval: u32,
    fenced: bool,
}

struct Bulk {
    op: OpId,
    barrier: usize,
    bytes: i64,
    line: u32,
    space: u16,
    start: u32,
    len: u32,
}

/// Per word of a space: the generic-proxy store that last wrote it (warp + 1, that warp's fence
/// count then, line), and the bulk copy that last wrote it (barrier, phases completed with it).
#[derive(Clone, Copy, Default)]
struct Proxy {
    store_warp: u16,
    store_fences: u32,
    store_line: u32,
    bulk: Option<(u16, u32, u32)>,
}

struct Machine<'a> {
    insts: &'a [Inst],
    kernel_regs: &'a [(String, Class)],
    /// `fence.proxy.async`s each warp executed.
    warp_fences: Vec<u32>,
    contract: &'a Contract,
    memory: Memory,
    log: Log,
    float: Float,
    conflicts: Vec<Conflict>,
    arguments: Vec<u16>,
    shared: Vec<Object>,
    dynamic: Option<Object>,
    local: Vec<Object>,
    regs: usize,
    /// The register slot holding `%tid.x`.
    tid: usize,
    barriers: Vec<Barrier>,
    bulks: Vec<Bulk>,
    /// Per space, when the kernel issues bulk copies.
    proxy: Vec<Vec<Proxy>>,
    has_bulk: bool,
    warps: u16,
    interval: u32,
    stop: Option<Stop>,
    instructions: u64,
}

fn get(w: &Warp, v: V, lane: usize) -> u64 {
    match v {
        V::U(x) => x,
        V::L(base) => w.vals.get(base + lane).copied().unwrap_or(0),
    }
}

fn i32_of(v: u64) -> i32 {
    v as u32 as i32
}

fn b32(v: i32) -> u64 {
    u64::from(v as u32)
}

fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

impl Warp {
    fn set_uniform(&mut self, r: u16, v: u64) {
        let r = r as usize;
        if let Some(x) = self.vals.get_mut(r * WARP) {
            *x = v;
        }
        if let (Some(u), Some(d)) = (self.uniform.get_mut(r), self.defined.get_mut(r)) {
            *u = true;
            *d = true;
        }
    }

    /// Writes the lanes of `mask` (the others keep their value).
    fn set_lanes(&mut self, r: u16, values: &[u64; WARP], mask: u32) {
        let r = r as usize;
        let was_uniform = self.uniform.get(r).copied().unwrap_or(false);
        let Some(slice) = self.vals.get_mut(r * WARP..r * WARP + WARP) else {
            return;
        };
        if was_uniform {
            let v = slice.first().copied().unwrap_or(0);
            slice.fill(v);
        }
        for (l, (x, v)) in slice.iter_mut().zip(values).enumerate() {
            if mask & (1 << l) != 0 {
                *x = *v;
            }
        }
        if let (Some(u), Some(d)) = (self.uniform.get_mut(r), self.defined.get_mut(r)) {
            *u = false;
            *d = true;
        }
    }
}

impl Machine<'_> {
    fn problem(&mut self, line: u32, message: impl Into<String>) {
        self.log.problem(line, message);
        self.stop.get_or_insert(Stop::Invalid);
    }

    fn unsupported(&mut self, line: u32, what: impl Into<String>) {
        self.stop.get_or_insert(Stop::NotSupported {
            line,
            what: what.into(),
        });
    }

    fn reg_name(&self, r: u16) -> String {
        self.kernel_regs
            .get(r as usize)
            .map_or_else(|| format!("%reg{r}"), |(n, _)| n.clone())
    }

    fn symbol(&self, s: Symbol) -> u64 {
        match s {
            Symbol::Param(k) => self.arguments.get(k).map_or(0, |_| global_base(k)),
            Symbol::Shared(i) => self.shared.get(i).map_or(0, |o| o.base),
            Symbol::Dynamic => self.dynamic.map_or(0, |o| o.base),
            Symbol::Local(i) => self.local.get(i).map_or(0, |o| o.base),
        }
    }

    fn src(&mut self, w: &Warp, o: Operand, line: u32) -> V {
        match o {
            Operand::Reg(r) => {
                let i = r as usize;
                if !w.defined.get(i).copied().unwrap_or(false) {
                    let name = self.reg_name(r);
                    self.problem(line, format!("reads {name}, which nothing wrote"));
                    return V::U(0);
                }
                if w.uniform.get(i).copied().unwrap_or(false) {
                    V::U(w.vals.get(i * WARP).copied().unwrap_or(0))
                } else {
                    V::L(i * WARP)
                }
            }
            Operand::Imm(v) => V::U(v as u64),
            Operand::F32(bits) => V::U(u64::from(bits)),
            Operand::Sym(s) => V::U(self.symbol(s)),
            Operand::Tid => V::L(self.tid * WARP),
            Operand::None | Operand::AddrReg(..) | Operand::AddrSym(..) | Operand::Label(_) => {
                self.problem(line, "an operand of the wrong kind");
                V::U(0)
            }
        }
    }

    fn dst(&mut self, o: Operand, line: u32) -> Option<u16> {
        match o {
            Operand::Reg(r) => Some(r),
            _ => {
                self.problem(line, "the destination is not a register");
                None
            }
        }
    }

    /// The lanes whose guard holds.
    fn mask(&mut self, w: &Warp, inst: &Inst) -> u32 {
        let full: u32 = if w.lanes >= 32 {
            u32::MAX
        } else {
            (1u32 << w.lanes) - 1
        };
        let Some((p, negate)) = inst.guard else {
            return full;
        };
        let v = self.src(w, Operand::Reg(p), inst.line);
        let mut m = 0u32;
        for l in 0..w.lanes {
            if (get(w, v, l) & 1 == 1) != negate {
                m |= 1 << l;
            }
        }
        m
    }

    /// `dst = f(a, b, c)` on the lanes of `mask`: once when every source is uniform.
    fn apply<F: FnMut(u64, u64, u64) -> u64>(
        &mut self,
        w: &mut Warp,
        inst: &Inst,
        mask: u32,
        sources: usize,
        mut f: F,
    ) {
        let line = inst.line;
        let [d, a, b, c] = inst.ops;
        let Some(d) = self.dst(d, line) else { return };
        let mut v = [V::U(0); 3];
        for (slot, o) in v.iter_mut().zip([a, b, c]).take(sources) {
            *slot = self.src(w, o, line);
        }
        let [x, y, z] = v;
        let full = w.lanes >= 32 && mask == u32::MAX || mask == (1u32 << w.lanes) - 1;
        if full && v.iter().all(|s| matches!(s, V::U(_))) {
            let r = f(get(w, x, 0), get(w, y, 0), get(w, z, 0));
            w.set_uniform(d, r);
            return;
        }
        let mut out = [0u64; WARP];
        for (l, o) in out.iter_mut().enumerate().take(w.lanes) {
            if mask & (1 << l) != 0 {
                *o = f(get(w, x, l), get(w, y, l), get(w, z, l));
            }
        }
        w.set_lanes(d, &out, mask);
    }

    /// The addresses of an address operand in the lanes of `mask`.
    fn addresses(&mut self, w: &Warp, o: Operand, mask: u32, line: u32) -> Vec<(usize, u64)> {
        let (base, offset) = match o {
            Operand::AddrReg(r, off) => (self.src(w, Operand::Reg(r), line), off),
            Operand::AddrSym(s, off) => (V::U(self.symbol(s)), off),
            _ => {
                self.problem(line, "an address operand is `[register]` or `[symbol]`");
                return Vec::new();
            }
        };
        (0..w.lanes)
            .filter(|l| mask & (1 << l) != 0)
            .map(|l| (l, get(w, base, l).wrapping_add(offset as u64)))
            .collect()
    }

    /// The word a thread's address names in a state space, or a problem.
    fn cell(&mut self, space: parse::Space, addr: u64, thread: u32, line: u32) -> Option<Cell> {
        let lanes = u64::from(self.contract.lanes.max(1));
        let (object, what) = match space {
            parse::Space::Global => {
                let k = (addr >> 36).wrapping_sub(1) as usize;
                let space_id = self.arguments.get(k).copied();
                let words = space_id
                    .and_then(|s| self.memory.space(s))
                    .map_or(0, |s| s.len() as u64);
                let object = space_id.map(|s| Object {
                    base: global_base(k),
                    bytes: words * 4,
                    space: s,
                });
                (object, "global memory")
            }
            parse::Space::Shared => {
                let addr = addr & 0xffff_ffff;
                let object = self
                    .shared
                    .iter()
                    .chain(self.dynamic.iter())
                    .find(|o| addr >= o.base && addr < o.base + o.bytes)
                    .copied();
                (object, "shared memory")
            }
            parse::Space::Local => {
                let object = self
                    .local
                    .iter()
                    .find(|o| addr >= o.base && addr < o.base + o.bytes)
                    .copied();
                (object, "local memory")
            }
        };
        let addr = if space == parse::Space::Shared {
            addr & 0xffff_ffff
        } else {
            addr
        };
        match object {
            Some(o) if addr >= o.base && addr < o.base + o.bytes && (addr - o.base) % 4 == 0 => {
                let word = (addr - o.base) / 4;
                let word = if space == parse::Space::Local {
                    word * lanes + u64::from(thread)
                } else {
                    word
                };
                Some(Cell {
                    space: o.space,
                    word: word as u32,
                })
            }
            _ => {
                self.problem(
                    line,
                    format!(
                        "thread {thread}: address {addr:#x} is outside every object of {what}{}",
                        if addr % 4 != 0 { ", or unaligned" } else { "" }
                    ),
                );
                None
            }
        }
    }

    fn cells(
        &mut self,
        w: &Warp,
        space: parse::Space,
        addrs: &[(usize, u64)],
        line: u32,
    ) -> Option<Vec<Cell>> {
        let first_thread = u32::from(w.index) * WARP as u32;
        let mut out = Vec::with_capacity(addrs.len());
        for (l, a) in addrs {
            out.push(self.cell(space, *a, first_thread + *l as u32, line)?);
        }
        Some(out)
    }

    /// Checks sm_90a's proxy and mbarrier rules for a generic access by warp `w`.
    fn proxy_access(&mut self, w: &Warp, cells: &[Cell], write: bool, line: u32) {
        if !self.has_bulk {
            return;
        }
        for c in cells {
            let Some(p) = self
                .proxy
                .get(c.space as usize)
                .and_then(|s| s.get(c.word as usize))
                .copied()
            else {
                continue;
            };
            if let Some((bar, phase, bulk_line)) = p.bulk {
                if w.observed.get(bar as usize).copied().unwrap_or(0) < phase {
                    let kind = if write {
                        RaceKind::WriteAfterWrite
                    } else {
                        RaceKind::ReadAfterWrite
                    };
                    self.log
                        .race(line, kind, bulk_line, RacePlace::Memory(*c), true);
                }
            }
        }
        if write {
            let (warp, fences) = (w.index + 1, w.fences);
            for c in cells {
                if let Some(p) = self
                    .proxy
                    .get_mut(c.space as usize)
                    .and_then(|s| s.get_mut(c.word as usize))
                {
                    p.store_warp = warp;
                    p.store_fences = fences;
                    p.store_line = line;
                }
            }
        }
    }

    fn load(&mut self, w: &mut Warp, inst: &Inst, space: parse::Space, mask: u32) {
        let line = inst.line;
        let [d, a, ..] = inst.ops;
        let Some(d) = self.dst(d, line) else { return };
        let addrs = self.addresses(w, a, mask, line);
        let Some(cells) = self.cells(w, space, &addrs, line) else {
            return;
        };
        if space != parse::Space::Global {
            let uninitialized = cells
                .iter()
                .find(|c| !self.memory.initialized(**c) && !self.memory.write_pending(**c))
                .copied();
            if let Some(c) = uninitialized {
                let place = self.contract.place(&self.memory, c);
                self.problem(
                    line,
                    format!(
                        "reads {place}, which nothing wrote ({} memory starts undefined)",
                        if space == parse::Space::Shared {
                            "shared"
                        } else {
                            "local"
                        }
                    ),
                );
                return;
            }
        }
        self.proxy_access(w, &cells, false, line);
        let warp = w.index;
        let values = self
            .memory
            .read_all(&cells, line, &|_| warp, &mut self.conflicts)
            .unwrap_or_default();
        self.log.conflicts(line, &mut self.conflicts);
        let mut out = [0u64; WARP];
        for ((l, _), v) in addrs.iter().zip(values) {
            if let Some(o) = out.get_mut(*l) {
                *o = u64::from(v);
            }
        }
        w.set_lanes(d, &out, mask);
    }

    fn store(&mut self, w: &mut Warp, inst: &Inst, space: parse::Space, mask: u32) {
        let line = inst.line;
        let [a, v, ..] = inst.ops;
        let value = self.src(w, v, line);
        let addrs = self.addresses(w, a, mask, line);
        let Some(cells) = self.cells(w, space, &addrs, line) else {
            return;
        };
        let values: Vec<u32> = addrs
            .iter()
            .map(|(l, _)| get(w, value, *l) as u32)
            .collect();
        self.proxy_access(w, &cells, true, line);
        let warp = w.index;
        self.memory
            .write_all(&cells, &values, line, &|_| warp, &mut self.conflicts);
        self.log.conflicts(line, &mut self.conflicts);
    }

    fn cp_async(&mut self, w: &mut Warp, inst: &Inst, mask: u32) {
        let line = inst.line;
        let [d, s, ..] = inst.ops;
        let dst = self.addresses(w, d, mask, line);
        let src = self.addresses(w, s, mask, line);
        let (Some(writes), Some(reads)) = (
            self.cells(w, parse::Space::Shared, &dst, line),
            self.cells(w, parse::Space::Global, &src, line),
        ) else {
            return;
        };
        let values = self.memory.peek_all(&reads);
        let id = self.memory.issue(
            Issue {
                line,
                wave: w.index,
                domain: u32::from(w.index) * 4 + 2,
                order: Order::Unordered,
                reads,
                writes,
                values,
            },
            &mut self.conflicts,
        );
        self.log.conflicts(line, &mut self.conflicts);
        w.uncommitted.push((id, line));
    }

    fn wait_group(&mut self, w: &mut Warp, keep: usize) {
        while w.groups.len() > keep {
            if let Some(g) = w.groups.pop_front() {
                for (id, _) in g {
                    self.memory.complete(id);
                }
            }
        }
    }

    /// The mbarrier at a uniform shared address, checked for being visible to warp `w`.
    fn barrier_at(&mut self, w: &Warp, addr: u64, line: u32) -> Option<usize> {
        let addr = addr & 0xffff_ffff;
        let Some(i) = self.barriers.iter().position(|b| b.addr == addr) else {
            self.problem(
                line,
                format!("uses the mbarrier at shared address {addr:#x}, which no mbarrier.init initialized"),
            );
            return None;
        };
        let b = self.barriers.get(i)?;
        if b.warp != w.index && !(b.fenced && self.interval > b.interval) {
            let init = b.line;
            self.problem(
                line,
                format!(
                    "warp {} uses the mbarrier initialized at line {init} by warp {} before fence.mbarrier_init and a bar.sync make the initialization visible",
                    w.index, b.warp
                ),
            );
            return None;
        }
        Some(i)
    }

    fn uniform_address(&mut self, w: &Warp, o: Operand, mask: u32, line: u32) -> Option<u64> {
        let addrs = self.addresses(w, o, mask, line);
        let first = addrs.first()?.1;
        if addrs.iter().any(|(_, a)| *a != first) {
            self.unsupported(line, "threads of a warp use different mbarriers");
            return None;
        }
        Some(first)
    }

    fn mbarrier_init(&mut self, w: &Warp, inst: &Inst, mask: u32) {
        let line = inst.line;
        let [a, n, ..] = inst.ops;
        if mask == 0 {
            return;
        }
        let Some(addr) = self.uniform_address(w, a, mask, line) else {
            return;
        };
        let addr = addr & 0xffff_ffff;
        let count = match self.src(w, n, line) {
            V::U(c) => c as i64,
            V::L(_) => {
                self.unsupported(line, "an arrival count that differs between threads");
                return;
            }
        };
        // The 8 bytes must be a shared word pair.
        if self.cell(parse::Space::Shared, addr, 0, line).is_none() {
            return;
        }
        if addr % 8 != 0 {
            self.problem(line, "an mbarrier is 8-byte aligned");
            return;
        }
        let arrivals = i64::from(mask.count_ones());
        let fresh = Barrier {
            addr,
            line,
            expected: count,
            pending: count,
            tx: 0,
            phase: 0,
            warp: w.index,
            interval: self.interval,
            fenced: false,
        };
        if arrivals > 1 {
            self.problem(
                line,
                format!("{arrivals} threads initialize one mbarrier at once"),
            );
            return;
        }
        match self.barriers.iter().position(|b| b.addr == addr) {
            Some(i) => {
                if self.bulks.iter().any(|b| b.barrier == i) {
                    self.problem(
                        line,
                        "initializes an mbarrier again while bulk copies still complete on it",
                    );
                    return;
                }
                if let Some(b) = self.barriers.get_mut(i) {
                    *b = fresh;
                }
            }
            None => {
                self.barriers.push(fresh);
            }
        }
    }

    fn arrive(&mut self, w: &mut Warp, inst: &Inst, mask: u32) {
        let line = inst.line;
        let [d, a, bytes, _] = inst.ops;
        if mask == 0 {
            return;
        }
        let Some(addr) = self.uniform_address(w, a, mask, line) else {
            return;
        };
        let tx = match self.src(w, bytes, line) {
            V::U(c) => c as i64,
            V::L(_) => {
                self.unsupported(line, "a tx-count that differs between threads");
                return;
            }
        };
        let Some(i) = self.barrier_at(w, addr, line) else {
            return;
        };
        for _ in 0..mask.count_ones() {
            let Some(b) = self.barriers.get_mut(i) else {
                return;
            };
            if b.pending <= 0 {
                let (phase, waiting) = (b.phase, b.tx);
                self.problem(
                    line,
                    format!(
                        "arrives on an mbarrier whose phase {phase} has no arrival pending and still waits for {waiting} bytes of bulk copies in flight: which phase this arrival counts for depends on when they land"
                    ),
                );
                return;
            }
            b.tx += tx;
            b.pending -= 1;
            if b.tx.abs() >= 1 << 20 {
                self.problem(
                    line,
                    "the mbarrier's tx-count leaves its range (±(2^20 - 1))",
                );
                return;
            }
            if b.pending == 0 && b.tx == 0 {
                b.phase += 1;
                b.pending = b.expected;
            }
        }
        if let Some(d) = self.dst(d, line) {
            let phase = self.barriers.get(i).map_or(0, |b| u64::from(b.phase));
            let out = [phase; WARP];
            w.set_lanes(d, &out, mask);
        }
    }

    fn bulk(&mut self, w: &Warp, inst: &Inst, mask: u32) {
        let line = inst.line;
        let [d, s, n, bar] = inst.ops;
        let first_thread = u32::from(w.index) * WARP as u32;
        let bytes = match self.src(w, n, line) {
            V::U(b) => b as i64,
            V::L(_) => {
                self.unsupported(line, "a bulk copy size that differs between threads");
                return;
            }
        };
        let dst = self.addresses(w, d, mask, line);
        let src = self.addresses(w, s, mask, line);
        let bars = self.addresses(w, bar, mask, line);
        for (((l, da), (_, sa)), (_, ba)) in dst.iter().zip(&src).zip(&bars) {
            let thread = first_thread + *l as u32;
            if da % 16 != 0 || sa % 16 != 0 {
                self.problem(
                    line,
                    format!("thread {thread}: a bulk copy's addresses are 16-byte aligned"),
                );
                return;
            }
            let words = (bytes / 4).max(0) as u64;
            let mut writes = Vec::with_capacity(words as usize);
            let mut reads = Vec::with_capacity(words as usize);
            for k in 0..words {
                let (Some(wc), Some(rc)) = (
                    self.cell(parse::Space::Shared, da.wrapping_add(4 * k), thread, line),
                    self.cell(parse::Space::Global, sa.wrapping_add(4 * k), thread, line),
                ) else {
                    return;
                };
                writes.push(wc);
                reads.push(rc);
            }
            let Some(barrier) = self.barrier_at(w, *ba, line) else {
                return;
            };
            // Generic-proxy stores into these words need a proxy fence by their thread first.
            for c in writes.iter().chain(&reads) {
                let p = self
                    .proxy
                    .get(c.space as usize)
                    .and_then(|s| s.get(c.word as usize))
                    .copied()
                    .unwrap_or_default();
                if p.store_warp > 0 {
                    let fences = self
                        .warp_fences
                        .get(p.store_warp as usize - 1)
                        .copied()
                        .unwrap_or(0);
                    if fences == p.store_fences {
                        self.log.race(
                            line,
                            RaceKind::WriteAfterWrite,
                            p.store_line,
                            RacePlace::Memory(*c),
                            false,
                        );
                        break;
                    }
                }
            }
            let values = self.memory.peek_all(&reads);
            let (space, start, len) = (
                writes.first().map_or(0, |c| c.space),
                writes.first().map_or(0, |c| c.word),
                writes.len() as u32,
            );
            let op = self.memory.issue(
                Issue {
                    line,
                    wave: self.warps,
                    domain: u32::MAX,
                    order: Order::Unordered,
                    reads,
                    writes,
                    values,
                },
                &mut self.conflicts,
            );
            self.log.conflicts(line, &mut self.conflicts);
            self.bulks.push(Bulk {
                op,
                barrier,
                bytes,
                line,
                space,
                start,
                len,
            });
        }
    }

    /// `mbarrier.try_wait.parity`: `Some(true)` once the phase of that parity has completed (the
    /// bulk copies it needs complete now); `None` when it cannot complete yet.
    fn try_wait(&mut self, w: &mut Warp, inst: &Inst, mask: u32) -> Option<()> {
        let line = inst.line;
        let [d, a, parity, _] = inst.ops;
        let addr = self.uniform_address(w, a, mask, line)?;
        let parity = match self.src(w, parity, line) {
            V::U(p) => p & 1,
            V::L(base) => {
                let first = w.vals.get(base).copied().unwrap_or(0) & 1;
                if (0..w.lanes).any(|l| get(w, V::L(base), l) & 1 != first) {
                    self.unsupported(line, "threads of a warp wait on different phases");
                    return Some(());
                }
                first
            }
        };
        let i = self.barrier_at(w, addr, line)?;
        let b = self.barriers.get(i)?;
        if u64::from(b.phase % 2) == parity {
            // The phase in progress is the one awaited: complete it if it can.
            if b.pending != 0 {
                return None;
            }
            let mut tx = b.tx;
            let mut take = Vec::new();
            if tx != 0 {
                for (k, bulk) in self.bulks.iter().enumerate() {
                    if bulk.barrier == i {
                        tx -= bulk.bytes;
                        take.push(k);
                        if tx == 0 {
                            break;
                        }
                    }
                }
                if tx != 0 {
                    return None;
                }
            }
            let phase = b.phase + 1;
            for k in take.into_iter().rev() {
                let bulk = self.bulks.remove(k);
                self.memory.complete(bulk.op);
                self.memory.forget_touches(bulk.space, bulk.start, bulk.len);
                if let Some(words) = self
                    .proxy
                    .get_mut(bulk.space as usize)
                    .and_then(|s| s.get_mut(bulk.start as usize..(bulk.start + bulk.len) as usize))
                {
                    for p in words {
                        p.bulk = Some((i as u16, phase, bulk.line));
                    }
                }
            }
            if let Some(b) = self.barriers.get_mut(i) {
                b.tx = 0;
                b.phase = phase;
                b.pending = b.expected;
            }
        }
        let phase = self.barriers.get(i).map_or(0, |b| b.phase);
        if let Some(o) = w.observed.get_mut(i) {
            *o = (*o).max(phase);
        } else {
            w.observed.resize(i + 1, 0);
            if let Some(o) = w.observed.get_mut(i) {
                *o = phase;
            }
        }
        if let Some(d) = self.dst(d, line) {
            w.set_lanes(d, &[1; WARP], mask);
        }
        Some(())
    }

    /// Runs warp `w` until it ends, reaches a barrier or waits on an mbarrier; whether it
    /// executed anything.
    fn run_warp(&mut self, w: &mut Warp) -> bool {
        let mut progressed = false;
        w.state = State::Running;
        while w.state == State::Running {
            let Some(inst) = self.insts.get(w.pc) else {
                // Falling off the end is `ret`.
                w.state = State::Ended;
                self.end_warp(w);
                break;
            };
            if self.exec(w, inst) {
                progressed = true;
                self.instructions += 1;
            }
            if self.stop.is_some() {
                break;
            }
            if self.instructions > self.contract.max_instructions {
                self.stop = Some(Stop::Limit(format!(
                    "the kernel ran more than {} warp-instructions",
                    self.contract.max_instructions
                )));
                break;
            }
        }
        progressed
    }

    /// Executes one instruction; `false` when the warp waits on an mbarrier instead.
    fn exec(&mut self, w: &mut Warp, inst: &Inst) -> bool {
        let line = inst.line;
        let mask = self.mask(w, inst);
        let mut next = w.pc + 1;
        match inst.op {
            Op::Mov { wide } => {
                self.apply(
                    w,
                    inst,
                    mask,
                    1,
                    |a, _, _| if wide { a } else { a & 0xffff_ffff },
                )
            }
            Op::Int { op, wide: false } => {
                let mut bad = None;
                self.apply(w, inst, mask, 2, |a, b, _| {
                    let (x, y) = (i32_of(a), i32_of(b));
                    b32(match op {
                        IntOp::Add => x.wrapping_add(y),
                        IntOp::Sub => x.wrapping_sub(y),
                        IntOp::MulLo => x.wrapping_mul(y),
                        IntOp::Min => x.min(y),
                        IntOp::Max => x.max(y),
                        IntOp::Rem | IntOp::Div => {
                            if y == 0 || (x == i32::MIN && y == -1) {
                                bad = Some((x, y));
                                0
                            } else if op == IntOp::Rem {
                                x % y
                            } else {
                                x / y
                            }
                        }
                        // Shift amounts above 32 are clamped to 32 (§9.7.7.7).
                        IntOp::Shl => {
                            if (b as u32) >= 32 {
                                0
                            } else {
                                ((x as u32) << (b as u32)) as i32
                            }
                        }
                        IntOp::Shr { signed } => {
                            let s = (b as u32).min(32);
                            if signed {
                                x >> s.min(31)
                            } else if s >= 32 {
                                0
                            } else {
                                ((x as u32) >> s) as i32
                            }
                        }
                        IntOp::And => x & y,
                        IntOp::Or => x | y,
                        IntOp::Xor => x ^ y,
                    })
                });
                if let Some((x, y)) = bad {
                    self.problem(line, format!("{x} divided by {y} is undefined"));
                }
            }
            Op::Int { op, wide: true } => {
                let mut unsupported = false;
                self.apply(w, inst, mask, 2, |a, b, _| match op {
                    IntOp::Add => a.wrapping_add(b),
                    IntOp::Sub => a.wrapping_sub(b),
                    IntOp::MulLo => a.wrapping_mul(b),
                    IntOp::And => a & b,
                    IntOp::Or => a | b,
                    IntOp::Xor => a ^ b,
                    _ => {
                        unsupported = true;
                        0
                    }
                });
                if unsupported {
                    self.unsupported(
                        line,
                        "64-bit integer operations other than add, sub, mul.lo, and, or, xor",
                    );
                }
            }
            Op::MulWide => self.apply(w, inst, mask, 2, |a, b, _| {
                (i64::from(i32_of(a)).wrapping_mul(i64::from(i32_of(b)))) as u64
            }),
            Op::MadLo => self.apply(w, inst, mask, 3, |a, b, c| {
                b32(i32_of(a).wrapping_mul(i32_of(b)).wrapping_add(i32_of(c)))
            }),
            Op::Setp { cmp, signed } => self.apply(w, inst, mask, 2, |a, b, _| {
                let (x, y) = if signed {
                    (i64::from(i32_of(a)), i64::from(i32_of(b)))
                } else {
                    (i64::from(a as u32), i64::from(b as u32))
                };
                u64::from(match cmp {
                    parse::Cmp::Eq => x == y,
                    parse::Cmp::Ne => x != y,
                    parse::Cmp::Lt => x < y,
                    parse::Cmp::Le => x <= y,
                    parse::Cmp::Gt => x > y,
                    parse::Cmp::Ge => x >= y,
                })
            }),
            Op::Selp => self.apply(w, inst, mask, 3, |a, b, c| if c & 1 == 1 { a } else { b }),
            Op::NotPred => self.apply(w, inst, mask, 1, |a, _, _| (a & 1) ^ 1),
            Op::AndPred => self.apply(w, inst, mask, 2, |a, b, _| a & b & 1),
            Op::OrPred => self.apply(w, inst, mask, 2, |a, b, _| (a | b) & 1),
            Op::CvtS64S32 => self.apply(w, inst, mask, 1, |a, _, _| i64::from(i32_of(a)) as u64),
            Op::CvtF32S32 => {
                let mut inexact = false;
                self.apply(w, inst, mask, 1, |a, _, _| {
                    let i = i32_of(a);
                    let f = i as f32;
                    if f64::from(f) != f64::from(i) {
                        inexact = true;
                    }
                    u64::from(f.to_bits())
                });
                self.float.inexact |= inexact;
            }
            Op::CvtaGlobal => self.apply(w, inst, mask, 1, |a, _, _| a),
            Op::LdParam => {
                let [d, a, ..] = inst.ops;
                let Operand::AddrSym(Symbol::Param(k), 0) = a else {
                    self.problem(line, "ld.param reads a kernel parameter by its name");
                    return true;
                };
                if let Some(d) = self.dst(d, line) {
                    w.set_uniform(d, global_base(k));
                }
            }
            Op::Ld(space) => self.load(w, inst, space, mask),
            Op::St(space) => self.store(w, inst, space, mask),
            Op::FBin(op) => {
                let mut fl = Float { inexact: false };
                self.apply(w, inst, mask, 2, |a, b, _| {
                    let (x, y) = (f32_of(a), f32_of(b));
                    u64::from(
                        match op {
                            FOp::Add => fl.add(x, y),
                            FOp::Sub => fl.sub(x, y),
                            FOp::Mul => fl.mul(x, y),
                            FOp::Div => fl.div(x, y),
                            FOp::Max => x.max(y),
                            FOp::Min => x.min(y),
                        }
                        .to_bits(),
                    )
                });
                self.float.inexact |= fl.inexact;
            }
            Op::FNeg => self.apply(w, inst, mask, 1, |a, _, _| (a ^ 0x8000_0000) & 0xffff_ffff),
            Op::FAbs => self.apply(w, inst, mask, 1, |a, _, _| a & 0x7fff_ffff),
            Op::Fma => {
                let mut fl = Float { inexact: false };
                self.apply(w, inst, mask, 3, |a, b, c| {
                    u64::from(fl.fma(f32_of(a), f32_of(b), f32_of(c)).to_bits())
                });
                self.float.inexact |= fl.inexact;
            }
            Op::CpAsync => self.cp_async(w, inst, mask),
            Op::CommitGroup => {
                let g = std::mem::take(&mut w.uncommitted);
                w.groups.push_back(g);
            }
            Op::WaitGroup => {
                let keep = match inst.ops.first() {
                    Some(Operand::Imm(n)) => (*n).max(0) as usize,
                    _ => 0,
                };
                self.wait_group(w, keep);
            }
            Op::WaitAll => {
                let g = std::mem::take(&mut w.uncommitted);
                w.groups.push_back(g);
                self.wait_group(w, 0);
            }
            Op::Bulk => self.bulk(w, inst, mask),
            Op::MbarInit => self.mbarrier_init(w, inst, mask),
            Op::MbarArriveExpectTx => self.arrive(w, inst, mask),
            Op::MbarTryWaitParity => {
                if self.try_wait(w, inst, mask).is_none() && self.stop.is_none() {
                    w.state = State::Blocked;
                    return false;
                }
            }
            Op::FenceProxyAsync => {
                w.fences += 1;
                if let Some(f) = self.warp_fences.get_mut(w.index as usize) {
                    *f = w.fences;
                }
            }
            Op::FenceMbarInit => {
                for b in &mut self.barriers {
                    if b.warp == w.index {
                        b.fenced = true;
                    }
                }
            }
            Op::BarSync => {
                w.state = State::AtBarrier;
            }
            Op::Bra => {
                let full = if w.lanes >= 32 {
                    u32::MAX
                } else {
                    (1u32 << w.lanes) - 1
                };
                if mask != 0 && mask != full {
                    self.unsupported(
                        line,
                        "the threads branch different ways (a divergent branch)",
                    );
                    return true;
                }
                if mask != 0 {
                    if let Some(Operand::Label(to)) = inst.ops.first() {
                        next = *to;
                    }
                }
            }
            Op::Ret => {
                if mask != 0 {
                    w.state = State::Ended;
                    self.end_warp(w);
                }
            }
        }
        w.pc = next;
        true
    }

    /// cp.async copies still pending when a warp exits never complete.
    fn end_warp(&mut self, w: &mut Warp) {
        let left: Vec<(OpId, u32)> = w
            .groups
            .drain(..)
            .flatten()
            .chain(w.uncommitted.drain(..))
            .collect();
        for (id, line) in left {
            let cell = self.memory.first_write(id);
            self.log.unawaited.push((line, cell));
        }
    }
}

/// Executes the PTX kernel `text` under `contract`; `sm` is the target's (80 or 90).
pub(crate) fn execute(text: &str, contract: &Contract, sm: u32) -> Execution {
    let parsed = parse::parse(text);
    let mut log = Log::default();
    for (line, message) in &parsed.problems {
        log.problem(*line, message.clone());
    }
    let k = &parsed.kernel;
    if k.sm != 0 && k.sm != sm && parsed.problems.is_empty() {
        log.problem(
            0,
            format!("the kernel targets sm_{}, checked as sm_{sm}", k.sm),
        );
    }
    if k.params.len() != contract.globals.len() && parsed.problems.is_empty() {
        log.problem(
            0,
            format!(
                "the kernel takes {} parameters; the loop has {} global buffers (one pointer each, in order)",
                k.params.len(),
                contract.globals.len()
            ),
        );
    }
    let lanes = contract.lanes as usize;
    let warps = lanes.div_ceil(WARP).max(1);
    let mut spaces = Vec::new();
    let mut arguments = Vec::new();
    for p in 0..contract.globals.len() {
        arguments.push(spaces.len() as u16);
        spaces.push(Space::new(
            SpaceKind::Global { param: p },
            contract.initial_words(p),
            true,
        ));
    }
    let align = |at: u64, a: u64| at.div_ceil(a.max(1)) * a.max(1);
    let mut at = WINDOW_BASE;
    let mut shared = Vec::new();
    for o in &k.shared {
        at = align(at, o.align);
        let name = o.name.strip_prefix("sh_").unwrap_or(&o.name).to_string();
        shared.push(Object {
            base: at,
            bytes: o.bytes,
            space: spaces.len() as u16,
        });
        spaces.push(Space::new(
            SpaceKind::Shared { name: Some(name) },
            vec![0; (o.bytes / 4) as usize],
            false,
        ));
        at += o.bytes;
    }
    let dynamic = k.has_dynamic.then(|| {
        // Launched with room for the loop's shared buffers (the emitter's note says how much).
        let bytes: u64 = contract
            .shared
            .iter()
            .filter(|b| !b.local)
            .map(|b| {
                b.shape
                    .iter()
                    .map(|d| (*d).max(0) as u64)
                    .product::<u64>()
                    .max(1)
                    * u64::from(contract.lanes)
                    * 4
            })
            .sum();
        let o = Object {
            base: align(at, 16),
            bytes,
            space: spaces.len() as u16,
        };
        spaces.push(Space::new(
            SpaceKind::Dynamic,
            vec![0; (bytes / 4) as usize],
            false,
        ));
        o
    });
    let mut local = Vec::new();
    let mut at = WINDOW_BASE;
    for o in &k.local {
        at = align(at, o.align);
        let name = o.name.strip_prefix("loc_").unwrap_or(&o.name).to_string();
        local.push(Object {
            base: at,
            bytes: o.bytes,
            space: spaces.len() as u16,
        });
        spaces.push(Space::new(
            SpaceKind::Local { name },
            vec![0; (o.bytes / 4) as usize * lanes],
            false,
        ));
        at += o.bytes;
    }
    let has_bulk = k.insts.iter().any(|i| i.op == Op::Bulk);
    let proxy = if has_bulk {
        spaces
            .iter()
            .map(|s| vec![Proxy::default(); s.len()])
            .collect()
    } else {
        Vec::new()
    };
    let total_words: usize = spaces.iter().map(Space::len).sum();
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
    let regs = k.regs.len() + 1;
    if stop.is_none() && (regs * WARP * warps > 1 << 26 || total_words > 1 << 28) {
        stop = Some(Stop::Limit(format!(
            "{} registers and {total_words} words of memory are beyond what the executor holds",
            regs
        )));
    }
    // Bulk copies issue as a wave of their own (the async proxy): ordered with the warps only by
    // mbarriers and barriers.
    let memory_waves = if has_bulk { warps + 1 } else { warps };
    let mut m = Machine {
        insts: &k.insts,
        kernel_regs: &k.regs,
        warp_fences: vec![0; warps],
        contract,
        memory: Memory::new(spaces, memory_waves as u16),
        log,
        float: Float { inexact: false },
        conflicts: Vec::new(),
        arguments,
        shared,
        dynamic,
        local,
        regs,
        tid: regs - 1,
        barriers: Vec::new(),
        bulks: Vec::new(),
        proxy,
        has_bulk,
        warps: warps as u16,
        interval: 0,
        stop,
        instructions: 0,
    };
    if m.stop.is_none() {
        run(&mut m, lanes, warps);
    }
    Execution {
        memory: m.memory,
        arguments: m.arguments,
        log: m.log,
        instructions: m.instructions,
        inexact: m.float.inexact,
        stop: m.stop,
    }
}

fn run(m: &mut Machine, lanes: usize, warps: usize) {
    let mut all: Vec<Warp> = (0..warps)
        .map(|k| {
            let n = (lanes - k * WARP).min(WARP);
            let mut w = Warp {
                index: k as u16,
                lanes: n,
                pc: 0,
                vals: vec![0; m.regs * WARP],
                uniform: vec![false; m.regs],
                defined: vec![false; m.regs],
                uncommitted: Vec::new(),
                groups: VecDeque::new(),
                state: State::Running,
                fences: 0,
                observed: Vec::new(),
            };
            let mut tids = [0u64; WARP];
            for (l, t) in tids.iter_mut().enumerate() {
                *t = (k * WARP + l) as u64;
            }
            w.set_lanes(m.tid as u16, &tids, u32::MAX);
            w
        })
        .collect();
    loop {
        let mut progressed = false;
        for w in all.iter_mut() {
            if matches!(w.state, State::Running | State::Blocked) {
                progressed |= m.run_warp(w);
                if m.stop.is_some() {
                    return;
                }
            }
        }
        if all.iter().all(|w| w.state == State::Ended) {
            break;
        }
        if progressed {
            continue;
        }
        if all
            .iter()
            .all(|w| matches!(w.state, State::Ended | State::AtBarrier))
        {
            // Every live warp is at the barrier: release them, sharing what they observed.
            m.memory.barrier();
            m.interval += 1;
            let n = m.barriers.len();
            let mut seen = vec![0u32; n];
            for w in &all {
                for (s, o) in seen.iter_mut().zip(&w.observed) {
                    *s = (*s).max(*o);
                }
            }
            for w in all.iter_mut() {
                w.observed.clone_from(&seen);
                if w.state == State::AtBarrier {
                    w.state = State::Running;
                }
            }
            continue;
        }
        let (line, why) = all
            .iter()
            .find(|w| w.state == State::Blocked)
            .and_then(|w| m.insts.get(w.pc).map(|i| (i.line, w.index)))
            .map_or((0, "every warp waits".to_string()), |(line, warp)| {
                (
                    line,
                    format!(
                        "deadlock: warp {warp} waits for an mbarrier phase that can never complete (its arrivals or bulk-copy bytes never come{})",
                        if all.iter().any(|w| w.state == State::AtBarrier) {
                            ", while other warps wait at bar.sync"
                        } else {
                            ""
                        }
                    ),
                )
            });
        m.problem(line, why);
        return;
    }
    // Bulk copies still in flight when the block exits never land.
    for b in std::mem::take(&mut m.bulks) {
        let cell = m.memory.first_write(b.op);
        m.log.unawaited.push((b.line, cell));
    }
}
