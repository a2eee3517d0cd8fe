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

mod access;
mod alu;
mod mbarrier;
mod parse;

use super::contract::Contract;
use super::memory::{Conflict, Memory, OpId, Space, SpaceKind};
use super::{Execution, Float, Log, Stop};
use parse::{Class, Inst, Op, Operand, Symbol};
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
            Op::Int { op, wide: false } => self.int32(w, inst, mask, op),
            Op::Int { op, wide: true } => self.int64(w, inst, mask, op),
            Op::MulWide => self.apply(w, inst, mask, 2, |a, b, _| {
                (i64::from(i32_of(a)).wrapping_mul(i64::from(i32_of(b)))) as u64
            }),
            Op::MadLo => self.apply(w, inst, mask, 3, |a, b, c| {
                b32(i32_of(a).wrapping_mul(i32_of(b)).wrapping_add(i32_of(c)))
            }),
            Op::Setp { cmp, signed } => self.setp(w, inst, mask, cmp, signed),
            Op::Selp => self.apply(w, inst, mask, 3, |a, b, c| if c & 1 == 1 { a } else { b }),
            Op::NotPred => self.apply(w, inst, mask, 1, |a, _, _| (a & 1) ^ 1),
            Op::AndPred => self.apply(w, inst, mask, 2, |a, b, _| a & b & 1),
            Op::OrPred => self.apply(w, inst, mask, 2, |a, b, _| (a | b) & 1),
            Op::CvtS64S32 => self.apply(w, inst, mask, 1, |a, _, _| i64::from(i32_of(a)) as u64),
            Op::CvtF32S32 => self.cvt_f32_s32(w, inst, mask),
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
            Op::FBin(op) => self.float_binary(w, inst, mask, op),
            Op::FNeg => self.apply(w, inst, mask, 1, |a, _, _| (a ^ 0x8000_0000) & 0xffff_ffff),
            Op::FAbs => self.apply(w, inst, mask, 1, |a, _, _| a & 0x7fff_ffff),
            Op::Fma => self.fma(w, inst, mask),
            Op::CpAsync | Op::CpAsyncCg => self.cp_async(w, inst, mask),
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

/// The kernel's memory: a space per global buffer (its argument), per `.shared` object, for the
/// dynamic shared memory, and per `.local` object (one copy per thread), at their window
/// addresses.
struct Layout {
    spaces: Vec<Space>,
    arguments: Vec<u16>,
    shared: Vec<Object>,
    dynamic: Option<Object>,
    local: Vec<Object>,
}

fn layout(k: &parse::Kernel, contract: &Contract) -> Layout {
    let lanes = contract.lanes as usize;
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
    Layout {
        spaces,
        arguments,
        shared,
        dynamic,
        local,
    }
}

/// Executes the PTX kernel `text` under `contract`; `sm` is the target's (80 or 90).
pub(crate) fn execute(text: &str, contract: &Contract, sm: u32) -> Execution {
    let parsed = parse::parse(text);
    let mut log = Log {
        agent: "thread",
        ..Log::default()
    };
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
    let Layout {
        spaces,
        arguments,
        shared,
        dynamic,
        local,
    } = layout(k, contract);
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
    // The memory's agents are the threads: a thread reading what another thread wrote, in the
    // same warp or not, needs a barrier between.
    let memory_waves = if has_bulk { lanes + 1 } else { lanes };
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
        let mut w = starting_group(&m, lanes, regs);
        execute_group(&mut m, &mut w);
        keep_rows(w);
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

/// The block's threads as one group at the kernel's start, in the rows the last run kept.
fn starting_group(m: &Machine, lanes: usize, regs: usize) -> Group {
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
    w
}

/// Keeps the rows of a finished run for the next.
fn keep_rows(mut w: Group) {
    let mut rows = std::mem::take(&mut w.rows);
    if rows.capacity() <= KEPT_ROWS {
        rows.clear();
        ROWS.with(|r| *r.borrow_mut() = rows);
    }
}

/// Runs the group until the kernel ends or stops.
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
            m.stop = Some(Stop::Limit(crate::machine::beyond_the_limit(
                m.contract.max_instructions,
                "warp-instructions",
            )));
            return;
        }
    }
}
