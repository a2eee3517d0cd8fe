//! PTX for sm_80 and sm_90a: executes the kernel text for every thread of the block in lockstep
//! (a branch whose condition differs between threads is "not supported"), each thread knowing
//! its warp of 32: an access of another warp in the same barrier interval is a race whatever the
//! interleaving (`memory.rs` remembers who touched a word in which interval), and the warps'
//! asynchronous operations are their own. Running the warps in lockstep loses no interleaving
//! that matters: every cross-warp access between two barriers is checked as if in any order, a
//! copy completes only at its own warp's wait, and an mbarrier phase that cannot complete when
//! every thread waits on it never will.
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
//!   needs its phase; a waiter whose phase cannot complete then never will (every thread is
//!   waiting): the kernel deadlocks (an error).
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

/// An operand's value: one for every thread, or per thread (an offset into the register rows).
#[derive(Clone, Copy)]
enum V {
    U(u64),
    L(usize),
}

/// The threads an instruction runs for: all (`None`), or those whose guard holds.
type Mask = Option<Vec<bool>>;

fn on(mask: &Mask, lane: usize) -> bool {
    mask.as_ref()
        .is_none_or(|m| m.get(lane).copied().unwrap_or(false))
}

/// The block's threads, in lockstep.
struct Group {
    lanes: usize,
    pc: usize,
    /// Per register: its value when the same in every thread, else its row in `rows`.
    uni: Vec<u64>,
    row: Vec<u32>,
    rows: Vec<u64>,
    uniform: Vec<bool>,
    defined: Vec<bool>,
    /// cp.async copies not yet committed, and the committed groups, oldest first (one sequence
    /// per thread, alike in every thread: the operations are per warp).
    uncommitted: Vec<(OpId, u32)>,
    groups: VecDeque<Vec<(OpId, u32)>>,
    ended: bool,
    /// `fence.proxy.async` instructions executed.
    fences: u32,
    /// Per mbarrier: phases the threads know have completed.
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
    /// The warp whose thread initialized it, the barrier interval then, and whether a
    /// `fence.mbarrier_init` followed.
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

/// Per word of a space: the generic-proxy store that last wrote it (the fences executed before
/// it, its line), and the bulk copy that last wrote it (barrier, phases completed with it, line).
#[derive(Clone, Copy, Default)]
struct Proxy {
    stored: bool,
    store_fences: u32,
    store_line: u32,
    bulk: Option<(u16, u32, u32)>,
}

struct Machine<'a> {
    insts: &'a [Inst],
    kernel_regs: &'a [(String, Class)],
    contract: &'a Contract,
    memory: Memory,
    log: Log,
    float: Float,
    conflicts: Vec<Conflict>,
    arguments: Vec<u16>,
    shared: Vec<Object>,
    dynamic: Option<Object>,
    local: Vec<Object>,
    /// The register holding `%tid.x`.
    tid: u16,
    barriers: Vec<Barrier>,
    bulks: Vec<Bulk>,
    /// Per space, when the kernel issues bulk copies.
    proxy: Vec<Vec<Proxy>>,
    has_bulk: bool,
    warps: u16,
    interval: u32,
    stop: Option<Stop>,
    /// Block-instructions executed (each is one instruction of every warp).
    instructions: u64,
    scratch: Vec<u64>,
}

fn get(w: &Group, v: V, lane: usize) -> u64 {
    match v {
        V::U(x) => x,
        V::L(base) => w.rows.get(base + lane).copied().unwrap_or(0),
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

impl Group {
    fn set_uniform(&mut self, r: u16, v: u64) {
        let r = r as usize;
        if let (Some(x), Some(u), Some(d)) = (
            self.uni.get_mut(r),
            self.uniform.get_mut(r),
            self.defined.get_mut(r),
        ) {
            *x = v;
            *u = true;
            *d = true;
        }
    }

    /// Writes the threads of `mask` (the others keep their value).
    fn set_lanes(&mut self, r: u16, values: &[u64], mask: &Mask) {
        let r = r as usize;
        let lanes = self.lanes;
        let Some(row) = self.row.get(r).copied() else {
            return;
        };
        let was_uniform = self.uniform.get(r).copied().unwrap_or(false);
        let start = if row == u32::MAX {
            let start = self.rows.len();
            self.rows.resize(start + lanes, 0);
            if let Some(x) = self.row.get_mut(r) {
                *x = (start / lanes.max(1)) as u32;
            }
            start
        } else {
            row as usize * lanes
        };
        let old = self.uni.get(r).copied().unwrap_or(0);
        let Some(slice) = self.rows.get_mut(start..start + lanes) else {
            return;
        };
        match mask {
            None => {
                let n = values.len().min(lanes);
                if let (Some(s), Some(v)) = (slice.get_mut(..n), values.get(..n)) {
                    s.copy_from_slice(v);
                }
            }
            Some(m) => {
                if was_uniform {
                    slice.fill(old);
                }
                for ((x, v), on) in slice.iter_mut().zip(values).zip(m) {
                    if *on {
                        *x = *v;
                    }
                }
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

    fn src(&mut self, w: &Group, o: Operand, line: u32) -> V {
        match o {
            Operand::Reg(r) => {
                let i = r as usize;
                if !w.defined.get(i).copied().unwrap_or(false) {
                    let name = self.reg_name(r);
                    self.problem(line, format!("reads {name}, which nothing wrote"));
                    return V::U(0);
                }
                if w.uniform.get(i).copied().unwrap_or(false) {
                    V::U(w.uni.get(i).copied().unwrap_or(0))
                } else {
                    V::L(w.row.get(i).map_or(0, |r| *r as usize * w.lanes))
                }
            }
            Operand::Imm(v) => V::U(v as u64),
            Operand::F32(bits) => V::U(u64::from(bits)),
            Operand::Sym(s) => V::U(self.symbol(s)),
            Operand::Tid => self.src(w, Operand::Reg(self.tid), line),
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

    /// The threads whose guard holds (`None`: all of them).
    fn mask(&mut self, w: &Group, inst: &Inst) -> Mask {
        let (p, negate) = inst.guard?;
        match self.src(w, Operand::Reg(p), inst.line) {
            V::U(v) => ((v & 1 == 1) == negate).then(|| vec![false; w.lanes]),
            v => {
                let m: Vec<bool> = (0..w.lanes)
                    .map(|l| (get(w, v, l) & 1 == 1) != negate)
                    .collect();
                (!m.iter().all(|x| *x)).then_some(m)
            }
        }
    }

    /// `dst = f(a, b, c)` for the threads of `mask`: once when every source is uniform.
    fn apply<F: FnMut(u64, u64, u64) -> u64>(
        &mut self,
        w: &mut Group,
        inst: &Inst,
        mask: &Mask,
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
        if mask.is_none() && v.iter().all(|s| matches!(s, V::U(_))) {
            let r = f(get(w, x, 0), get(w, y, 0), get(w, z, 0));
            w.set_uniform(d, r);
            return;
        }
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let lanes = w.lanes;
        let slice = |v: V| match v {
            V::U(c) => Err(c),
            V::L(b) => w.rows.get(b..b + lanes).ok_or(0),
        };
        match (mask, slice(x), slice(y), slice(z)) {
            (None, Ok(p), Err(b), Err(c)) => out.extend(p.iter().map(|a| f(*a, b, c))),
            (None, Ok(p), Ok(q), Err(c)) => {
                out.extend(p.iter().zip(q).map(|(a, b)| f(*a, *b, c)));
            }
            (None, Err(a), Ok(q), Err(c)) => out.extend(q.iter().map(|b| f(a, *b, c))),
            _ => out.extend((0..lanes).map(|l| {
                if on(mask, l) {
                    f(get(w, x, l), get(w, y, l), get(w, z, l))
                } else {
                    0
                }
            })),
        }
        w.set_lanes(d, &out, mask);
        self.scratch = out;
    }

    /// The addresses of an address operand in the threads of `mask`: (thread, address).
    fn addresses(&mut self, w: &Group, o: Operand, mask: &Mask, line: u32) -> Vec<(usize, u64)> {
        let (base, offset) = match o {
            Operand::AddrReg(r, off) => (self.src(w, Operand::Reg(r), line), off),
            Operand::AddrSym(s, off) => (V::U(self.symbol(s)), off),
            _ => {
                self.problem(line, "an address operand is `[register]` or `[symbol]`");
                return Vec::new();
            }
        };
        (0..w.lanes)
            .filter(|l| on(mask, *l))
            .map(|l| (l, get(w, base, l).wrapping_add(offset as u64)))
            .collect()
    }

    fn object_of(&self, space: parse::Space, addr: u64) -> Option<Object> {
        match space {
            parse::Space::Global => {
                let k = (addr >> 36).wrapping_sub(1) as usize;
                let s = *self.arguments.get(k)?;
                let words = self.memory.space(s).map_or(0, |x| x.len() as u64);
                Some(Object {
                    base: global_base(k),
                    bytes: words * 4,
                    space: s,
                })
            }
            parse::Space::Shared => {
                let addr = addr & 0xffff_ffff;
                self.shared
                    .iter()
                    .chain(self.dynamic.iter())
                    .find(|o| addr >= o.base && addr < o.base + o.bytes)
                    .copied()
            }
            parse::Space::Local => self
                .local
                .iter()
                .find(|o| addr >= o.base && addr < o.base + o.bytes)
                .copied(),
        }
    }

    /// The word a thread's address names in a state space, or a problem.
    fn cell(&mut self, space: parse::Space, addr: u64, thread: u32, line: u32) -> Option<Cell> {
        let lanes = u64::from(self.contract.lanes.max(1));
        let addr = if space == parse::Space::Shared {
            addr & 0xffff_ffff
        } else {
            addr
        };
        match self.object_of(space, addr) {
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
                let what = match space {
                    parse::Space::Global => "global memory",
                    parse::Space::Shared => "shared memory",
                    parse::Space::Local => "local memory",
                };
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

    /// When consecutive threads address consecutive words of one object (an element tile, or
    /// one local element of each thread): its first cell and length.
    fn run(
        &mut self,
        space: parse::Space,
        addrs: &[(usize, u64)],
        line: u32,
    ) -> Option<(Cell, u32)> {
        let &(l0, a0) = addrs.first()?;
        let step = if space == parse::Space::Local { 0 } else { 4 };
        let consecutive = addrs
            .iter()
            .enumerate()
            .all(|(i, (l, a))| *l == l0 + i && *a == a0.wrapping_add(step * i as u64));
        if !consecutive {
            return None;
        }
        let n = addrs.len() as u32;
        let object = self.object_of(space, a0)?;
        let fits =
            space == parse::Space::Local || a0 + 4 * u64::from(n) <= object.base + object.bytes;
        if !fits {
            return None;
        }
        let c0 = self.cell(space, a0, l0 as u32, line)?;
        let words = self.memory.space(c0.space).map_or(0, |s| s.len() as u64);
        (u64::from(c0.word) + u64::from(n) <= words).then_some((c0, n))
    }

    /// With every thread active, the run of words the threads address when it is one (an
    /// element tile: consecutive words; a local element: the same address in every thread),
    /// found without listing the addresses.
    fn fast_run(
        &mut self,
        w: &Group,
        o: Operand,
        space: parse::Space,
        line: u32,
    ) -> Option<(Cell, u32)> {
        let (base, off) = match o {
            Operand::AddrReg(r, off) => (self.src(w, Operand::Reg(r), line), off),
            Operand::AddrSym(s, off) => (V::U(self.symbol(s)), off),
            _ => return None,
        };
        let n = w.lanes as u32;
        let a0 = match (space, base) {
            (parse::Space::Local, V::U(a)) => a.wrapping_add(off as u64),
            (parse::Space::Global | parse::Space::Shared, V::L(b)) => {
                let row = w.rows.get(b..b + w.lanes)?;
                let first = *row.first()?;
                let consecutive = row
                    .iter()
                    .enumerate()
                    .all(|(i, a)| *a == first.wrapping_add(4 * i as u64));
                if !consecutive {
                    return None;
                }
                first.wrapping_add(off as u64)
            }
            _ => return None,
        };
        let object = self.object_of(space, a0)?;
        let a = if space == parse::Space::Shared {
            a0 & 0xffff_ffff
        } else {
            a0
        };
        let fits = space == parse::Space::Local
            || a.saturating_add(4 * u64::from(n)) <= object.base + object.bytes;
        if !fits {
            return None;
        }
        let c0 = self.cell(space, a0, 0, line)?;
        let words = self.memory.space(c0.space).map_or(0, |s| s.len() as u64);
        (u64::from(c0.word) + u64::from(n) <= words).then_some((c0, n))
    }

    fn run_cells(c0: Cell, n: u32) -> Vec<Cell> {
        (0..n)
            .map(|i| Cell {
                space: c0.space,
                word: c0.word + i,
            })
            .collect()
    }

    fn cells(
        &mut self,
        space: parse::Space,
        addrs: &[(usize, u64)],
        line: u32,
    ) -> Option<Vec<Cell>> {
        if let Some((c0, n)) = self.run(space, addrs, line) {
            return Some(
                (0..n)
                    .map(|i| Cell {
                        space: c0.space,
                        word: c0.word + i,
                    })
                    .collect(),
            );
        }
        let mut out = Vec::with_capacity(addrs.len());
        for (l, a) in addrs {
            out.push(self.cell(space, *a, *l as u32, line)?);
        }
        Some(out)
    }

    /// sm_90a's rules for a generic access: a word a bulk copy wrote is read (or overwritten)
    /// only after its mbarrier phase was observed; a store is remembered for the proxy fence.
    fn proxy_access(&mut self, w: &Group, cells: &[Cell], write: bool, line: u32) {
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
            for c in cells {
                if let Some(p) = self
                    .proxy
                    .get_mut(c.space as usize)
                    .and_then(|s| s.get_mut(c.word as usize))
                {
                    p.stored = true;
                    p.store_fences = w.fences;
                    p.store_line = line;
                }
            }
        }
    }

    fn load(&mut self, w: &mut Group, inst: &Inst, space: parse::Space, mask: &Mask) {
        let line = inst.line;
        let [d, a, ..] = inst.ops;
        let Some(d) = self.dst(d, line) else { return };
        if mask.is_none() {
            if let Some((c0, n)) = self.fast_run(w, a, space, line) {
                self.load_run(w, d, c0, n, space, line);
                return;
            }
        }
        let addrs = self.addresses(w, a, mask, line);
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        out.resize(w.lanes, 0);
        if space == parse::Space::Local {
            // Thread-private: nothing in flight, no other thread; only definedness matters.
            if let Some((c0, n)) = self.run(space, &addrs, line) {
                let Some((words, unwritten)) = self.memory.private_read(c0.space, c0.word, n)
                else {
                    self.scratch = out;
                    return;
                };
                for ((l, _), v) in addrs.iter().zip(words) {
                    if let Some(o) = out.get_mut(*l) {
                        *o = u64::from(*v);
                    }
                }
                if let Some(i) = unwritten {
                    let c = Cell {
                        space: c0.space,
                        word: c0.word + i,
                    };
                    let place = self.contract.place(&self.memory, c);
                    self.problem(
                        line,
                        format!(
                            "reads {place}, which nothing wrote (local memory starts undefined)"
                        ),
                    );
                    self.scratch = out;
                    return;
                }
                w.set_lanes(d, &out, mask);
                self.scratch = out;
                return;
            }
        }
        let Some(cells) = self.cells(space, &addrs, line) else {
            self.scratch = out;
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
                self.scratch = out;
                return;
            }
        }
        self.proxy_access(w, &cells, false, line);
        let values = self
            .memory
            .read_all(
                &cells,
                line,
                &|i| addrs.get(i).map_or(0, |(l, _)| (l / WARP) as u16),
                &mut self.conflicts,
            )
            .unwrap_or_default();
        self.log.conflicts(line, &mut self.conflicts);
        for ((l, _), v) in addrs.iter().zip(values) {
            if let Some(o) = out.get_mut(*l) {
                *o = u64::from(v);
            }
        }
        w.set_lanes(d, &out, mask);
        self.scratch = out;
    }

    /// A load by every thread of a run of words (thread i reads word i of the run).
    fn load_run(
        &mut self,
        w: &mut Group,
        d: u16,
        c0: Cell,
        n: u32,
        space: parse::Space,
        line: u32,
    ) {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let mut unwritten = None;
        if space == parse::Space::Local {
            if let Some((words, u)) = self.memory.private_read(c0.space, c0.word, n) {
                out.extend(words.iter().map(|v| u64::from(*v)));
                unwritten = u.map(|i| c0.word + i);
            }
        } else {
            if space == parse::Space::Shared {
                unwritten = (c0.word..c0.word + n).find(|word| {
                    let c = Cell {
                        space: c0.space,
                        word: *word,
                    };
                    !self.memory.initialized(c) && !self.memory.write_pending(c)
                });
            }
            if unwritten.is_none() {
                if self.has_bulk {
                    let cells = Self::run_cells(c0, n);
                    self.proxy_access(w, &cells, false, line);
                }
                let mut values = Vec::with_capacity(n as usize);
                self.memory.read_run(
                    c0.space,
                    c0.word,
                    n,
                    line,
                    &|i| (i / WARP) as u16,
                    &mut values,
                    &mut self.conflicts,
                );
                self.log.conflicts(line, &mut self.conflicts);
                out.extend(values.into_iter().map(u64::from));
            }
        }
        if let Some(word) = unwritten {
            let c = Cell {
                space: c0.space,
                word,
            };
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
        } else {
            out.resize(w.lanes, 0);
            w.set_lanes(d, &out, &None);
        }
        self.scratch = out;
    }

    fn store(&mut self, w: &mut Group, inst: &Inst, space: parse::Space, mask: &Mask) {
        let line = inst.line;
        let [a, v, ..] = inst.ops;
        let value = self.src(w, v, line);
        if mask.is_none() {
            if let Some((c0, n)) = self.fast_run(w, a, space, line) {
                let values: Vec<u32> = (0..n as usize).map(|l| get(w, value, l) as u32).collect();
                if space == parse::Space::Local {
                    self.memory.private_write(c0.space, c0.word, &values);
                    return;
                }
                if self.has_bulk {
                    let cells = Self::run_cells(c0, n);
                    self.proxy_access(w, &cells, true, line);
                }
                self.memory.write_run(
                    c0.space,
                    c0.word,
                    &values,
                    line,
                    &|i| (i / WARP) as u16,
                    &mut self.conflicts,
                );
                self.log.conflicts(line, &mut self.conflicts);
                return;
            }
        }
        let addrs = self.addresses(w, a, mask, line);
        let values: Vec<u32> = addrs
            .iter()
            .map(|(l, _)| get(w, value, *l) as u32)
            .collect();
        if space == parse::Space::Local {
            if let Some((c0, _)) = self.run(space, &addrs, line) {
                self.memory.private_write(c0.space, c0.word, &values);
                return;
            }
        }
        let Some(cells) = self.cells(space, &addrs, line) else {
            return;
        };
        self.proxy_access(w, &cells, true, line);
        self.memory.write_all(
            &cells,
            &values,
            line,
            &|i| addrs.get(i).map_or(0, |(l, _)| (l / WARP) as u16),
            &mut self.conflicts,
        );
        self.log.conflicts(line, &mut self.conflicts);
    }

    /// One copy per warp (each thread's copies are its own; a warp's are one operation).
    fn cp_async(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) {
        let line = inst.line;
        let [d, s, ..] = inst.ops;
        let dst = self.addresses(w, d, mask, line);
        let src = self.addresses(w, s, mask, line);
        let (Some(writes), Some(reads)) = (
            self.cells(parse::Space::Shared, &dst, line),
            self.cells(parse::Space::Global, &src, line),
        ) else {
            return;
        };
        let mut at = 0;
        while at < dst.len() {
            let warp = dst.get(at).map_or(0, |(l, _)| l / WARP);
            let end = dst
                .iter()
                .skip(at)
                .position(|(l, _)| l / WARP != warp)
                .map_or(dst.len(), |n| at + n);
            let reads: Vec<Cell> = reads.get(at..end).unwrap_or(&[]).to_vec();
            let writes: Vec<Cell> = writes.get(at..end).unwrap_or(&[]).to_vec();
            let values = self.memory.peek_all(&reads);
            let id = self.memory.issue(
                Issue {
                    line,
                    wave: warp as u16,
                    domain: warp as u32 * 4 + 2,
                    order: Order::Unordered,
                    reads,
                    writes,
                    values,
                },
                &mut self.conflicts,
            );
            w.uncommitted.push((id, line));
            at = end;
        }
        self.log.conflicts(line, &mut self.conflicts);
    }

    fn wait_group(&mut self, w: &mut Group, keep: usize) {
        while w.groups.len() > keep {
            if let Some(g) = w.groups.pop_front() {
                for (id, _) in g {
                    self.memory.complete(id);
                }
            }
        }
    }

    /// The mbarrier at a shared address, checked for being visible to the threads using it.
    fn barrier_at(&mut self, addr: u64, line: u32) -> Option<usize> {
        let addr = addr & 0xffff_ffff;
        let Some(i) = self.barriers.iter().position(|b| b.addr == addr) else {
            self.problem(
                line,
                format!("uses the mbarrier at shared address {addr:#x}, which no mbarrier.init initialized"),
            );
            return None;
        };
        let b = self.barriers.get(i)?;
        let others = self.warps > 1 || b.warp != 0;
        if others && !(b.fenced && self.interval > b.interval) {
            let (init, warp) = (b.line, b.warp);
            self.problem(
                line,
                format!(
                    "uses the mbarrier initialized at line {init} by a thread of warp {warp} before fence.mbarrier_init and a bar.sync make the initialization visible to the other warps"
                ),
            );
            return None;
        }
        Some(i)
    }

    fn uniform_address(&mut self, w: &Group, o: Operand, mask: &Mask, line: u32) -> Option<u64> {
        let addrs = self.addresses(w, o, mask, line);
        let first = addrs.first()?.1;
        if addrs.iter().any(|(_, a)| *a != first) {
            self.unsupported(line, "threads use different mbarriers at once");
            return None;
        }
        Some(first)
    }

    fn uniform_value(&mut self, w: &Group, o: Operand, mask: &Mask, line: u32) -> Option<u64> {
        let v = self.src(w, o, line);
        let mut values = (0..w.lanes).filter(|l| on(mask, *l)).map(|l| get(w, v, l));
        let first = values.next()?;
        if values.any(|x| x != first) {
            self.unsupported(line, "an mbarrier operand that differs between threads");
            return None;
        }
        Some(first)
    }

    fn active(w: &Group, mask: &Mask) -> Vec<usize> {
        (0..w.lanes).filter(|l| on(mask, *l)).collect()
    }

    fn mbarrier_init(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) {
        let line = inst.line;
        let [a, n, ..] = inst.ops;
        let active = Self::active(w, mask);
        let Some(&first) = active.first() else {
            return;
        };
        if active.len() > 1 {
            self.problem(
                line,
                format!("{} threads initialize one mbarrier at once", active.len()),
            );
            return;
        }
        let Some(addr) = self.uniform_address(w, a, mask, line) else {
            return;
        };
        let Some(count) = self.uniform_value(w, n, mask, line) else {
            return;
        };
        let addr = addr & 0xffff_ffff;
        if self
            .cell(parse::Space::Shared, addr, first as u32, line)
            .is_none()
        {
            return;
        }
        if addr % 8 != 0 {
            self.problem(line, "an mbarrier is 8-byte aligned");
            return;
        }
        let fresh = Barrier {
            addr,
            line,
            expected: count as i64,
            pending: count as i64,
            tx: 0,
            phase: 0,
            warp: (first / WARP) as u16,
            interval: self.interval,
            fenced: false,
        };
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
                if let Some(o) = w.observed.get_mut(i) {
                    *o = 0;
                }
            }
            None => self.barriers.push(fresh),
        }
    }

    fn arrive(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) {
        let line = inst.line;
        let [d, a, bytes, _] = inst.ops;
        let arrivals = Self::active(w, mask).len();
        if arrivals == 0 {
            return;
        }
        let Some(addr) = self.uniform_address(w, a, mask, line) else {
            return;
        };
        let Some(tx) = self.uniform_value(w, bytes, mask, line) else {
            return;
        };
        let Some(i) = self.barrier_at(addr, line) else {
            return;
        };
        for _ in 0..arrivals {
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
            b.tx += tx as i64;
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
            let out = vec![phase; w.lanes];
            w.set_lanes(d, &out, mask);
        }
    }

    fn bulk(&mut self, w: &Group, inst: &Inst, mask: &Mask) {
        let line = inst.line;
        let [d, s, n, bar] = inst.ops;
        let active = Self::active(w, mask);
        if active.is_empty() {
            return;
        }
        let Some(bytes) = self.uniform_value(w, n, mask, line) else {
            return;
        };
        let bytes = bytes as i64;
        let dst = self.addresses(w, d, mask, line);
        let src = self.addresses(w, s, mask, line);
        let bars = self.addresses(w, bar, mask, line);
        for (((l, da), (_, sa)), (_, ba)) in dst.iter().zip(&src).zip(&bars) {
            let thread = *l as u32;
            if da % 16 != 0 || sa % 16 != 0 {
                self.problem(
                    line,
                    format!("thread {thread}: a bulk copy's addresses are 16-byte aligned"),
                );
                return;
            }
            let words = (bytes / 4).max(0) as u64;
            let dst_addrs: Vec<(usize, u64)> = (0..words)
                .map(|k| (k as usize, da.wrapping_add(4 * k)))
                .collect();
            let src_addrs: Vec<(usize, u64)> = (0..words)
                .map(|k| (k as usize, sa.wrapping_add(4 * k)))
                .collect();
            let (Some(writes), Some(reads)) = (
                self.cells(parse::Space::Shared, &dst_addrs, line),
                self.cells(parse::Space::Global, &src_addrs, line),
            ) else {
                return;
            };
            let Some(barrier) = self.barrier_at(*ba, line) else {
                return;
            };
            // Generic-proxy stores into these words need a proxy fence first.
            for c in writes.iter().chain(&reads) {
                let p = self
                    .proxy
                    .get(c.space as usize)
                    .and_then(|s| s.get(c.word as usize))
                    .copied()
                    .unwrap_or_default();
                if p.stored && p.store_fences == w.fences {
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

    /// `mbarrier.try_wait.parity`: `Some` once the phase of that parity has completed (the bulk
    /// copies it needs complete now); `None` when it cannot complete.
    fn try_wait(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) -> Option<()> {
        let line = inst.line;
        let [d, a, parity, _] = inst.ops;
        if mask.is_some() {
            self.unsupported(line, "a guarded mbarrier wait");
            return Some(());
        }
        let addr = self.uniform_address(w, a, mask, line)?;
        let parity = self.uniform_value(w, parity, mask, line)? & 1;
        let i = self.barrier_at(addr, line)?;
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
        if w.observed.len() <= i {
            w.observed.resize(i + 1, 0);
        }
        if let Some(o) = w.observed.get_mut(i) {
            *o = (*o).max(phase);
        }
        if let Some(d) = self.dst(d, line) {
            w.set_uniform(d, 1);
        }
        Some(())
    }

    fn deadlock(&mut self, line: u32, inst: &Inst) {
        let what = match inst.ops.get(1) {
            Some(Operand::AddrSym(..) | Operand::AddrReg(..)) => "its mbarrier",
            _ => "an mbarrier",
        };
        self.problem(
            line,
            format!(
                "deadlock: every thread waits for a phase of {what} that can never complete (an arrival or bulk-copy bytes it expects never come)"
            ),
        );
    }

    fn exec(&mut self, w: &mut Group, inst: &Inst) -> bool {
        let line = inst.line;
        let mask = self.mask(w, inst);
        let mask = &mask;
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
                    self.deadlock(line, inst);
                    return false;
                }
            }
            Op::FenceProxyAsync => w.fences += 1,
            Op::FenceMbarInit => {
                for b in &mut self.barriers {
                    b.fenced = true;
                }
            }
            Op::BarSync => {
                // Every thread is here (lockstep): accesses after it are ordered after those before.
                self.memory.barrier();
                self.interval += 1;
            }
            Op::Bra => match mask {
                Some(m) if m.iter().any(|x| *x) => {
                    self.unsupported(
                        line,
                        "the threads branch different ways (a divergent branch)",
                    );
                    return true;
                }
                Some(_) => {}
                None => {
                    if let Some(Operand::Label(to)) = inst.ops.first() {
                        next = *to;
                    }
                }
            },
            Op::Ret => match mask {
                Some(m) if m.iter().any(|x| *x) => {
                    self.unsupported(line, "some threads return and others do not");
                    return true;
                }
                Some(_) => {}
                None => {
                    w.ended = true;
                    self.end(w);
                }
            },
        }
        w.pc = next;
        true
    }

    /// cp.async copies still pending when the block exits never complete.
    fn end(&mut self, w: &mut Group) {
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
        for b in std::mem::take(&mut self.bulks) {
            let cell = self.memory.first_write(b.op);
            self.log.unawaited.push((b.line, cell));
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
    if stop.is_none() && (regs.saturating_mul(lanes) > 1 << 26 || total_words > 1 << 28) {
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
        contract,
        memory: Memory::new(spaces, memory_waves as u16),
        log,
        float: Float { inexact: false },
        conflicts: Vec::new(),
        arguments,
        shared,
        dynamic,
        local,
        tid: (regs - 1) as u16,
        barriers: Vec::new(),
        bulks: Vec::new(),
        proxy,
        has_bulk,
        warps: warps as u16,
        interval: 0,
        stop,
        instructions: 0,
        scratch: Vec::with_capacity(lanes),
    };
    if m.stop.is_none() {
        run(&mut m, lanes, regs);
    }
    Execution {
        memory: m.memory,
        arguments: m.arguments,
        log: m.log,
        instructions: m.instructions * warps as u64,
        inexact: m.float.inexact,
        stop: m.stop,
    }
}

thread_local! {
    /// The register rows of the last run, kept for the next: a large kernel's rows are
    /// megabytes, and fresh pages from the system cost more than executing into them.
    static ROWS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Rows kept between runs at most (bytes / 8).
const KEPT_ROWS: usize = 8 << 20;

fn run(m: &mut Machine, lanes: usize, regs: usize) {
    let mut rows = ROWS.with(|r| std::mem::take(&mut *r.borrow_mut()));
    rows.clear();
    let mut w = Group {
        lanes,
        pc: 0,
        uni: vec![0; regs],
        row: vec![u32::MAX; regs],
        rows,
        uniform: vec![false; regs],
        defined: vec![false; regs],
        uncommitted: Vec::new(),
        groups: VecDeque::new(),
        ended: false,
        fences: 0,
        observed: Vec::new(),
    };
    let tids: Vec<u64> = (0..lanes as u64).collect();
    w.set_lanes(m.tid, &tids, &None);
    execute_group(m, &mut w);
    let mut rows = std::mem::take(&mut w.rows);
    if rows.capacity() <= KEPT_ROWS {
        rows.clear();
        ROWS.with(|r| *r.borrow_mut() = rows);
    }
}

fn execute_group(m: &mut Machine, w: &mut Group) {
    let limit = m.contract.max_instructions / u64::from(m.warps.max(1));
    while !w.ended {
        let Some(inst) = m.insts.get(w.pc) else {
            // Falling off the end is `ret`.
            m.end(w);
            break;
        };
        m.exec(w, inst);
        m.instructions += 1;
        if m.stop.is_some() {
            return;
        }
        if m.instructions > limit {
            m.stop = Some(Stop::Limit(format!(
                "the kernel ran more than {} warp-instructions",
                m.contract.max_instructions
            )));
            return;
        }
    }
}
