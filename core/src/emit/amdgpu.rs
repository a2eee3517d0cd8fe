//! AMDGPU ISA for gfx942 / gfx950, assembled by `llvm-mc -triple=amdgcn-amd-amdhsa`. Global→LDS
//! copies in async stages are LDS DMA (`global_load_lds_dword`, M0 = the LDS address); a wait on
//! groups becomes `s_waitcnt vmcnt(M)` where M counts every vector-memory *instruction* still
//! allowed in flight — LDS DMA, ordinary global loads and stores alike — derived from the kernel's
//! real instruction stream for its actual trip count (`sequence.rs`).
//!
//! On gfx950, a loop run by waves of 64 (`stagecraft_waves`, 4, 8 or 16 of them) copies its
//! distributed buffers *cooperatively* (`Cooperative`): the workgroup is the loop's threads, each
//! element tile is copied by a quarter of the waves with `global_load_lds_dwordx4` (16 bytes a
//! lane), so a thread reads values other waves copied, and each derived barrier is `s_barrier`
//! (docs/execution-model.md, "Threads").

use super::items::{walk_items, ItemEmitter};
use super::sequence::Stream;
use super::waits::{emitted_waits, fill_waits, wait_lines, WaitSpelling};
use super::walk::{self, Isa, Spelling, ValueOp};
use super::{element, elements, is_async_copy, kernel, Emitted, Flat, Item, Lines, Stmt};
use crate::ir::*;

/// Index arithmetic is uniform across the block: scalar registers.
enum S {
    Imm(i64),
    Reg(u32),
}

/// The vmcnt field's largest value on gfx9.
const VMCNT_MAX: u64 = 63;

struct Gen<'a> {
    program: &'a Program,
    flat: &'a Flat,
    lanes: i64,
    out: Lines,
    /// The stream of vector-memory instructions, commits and waits.
    stream: Stream,
    /// A `ds_write` may be in flight (no `lgkmcnt(0)` since).
    lds_writes_pending: bool,
    s_next: u32,
    s_max: u32,
    v_next: u32,
    v_max: u32,
    s_base: u32,
    labels: u32,
    notes: Vec<String>,
    /// The statements `notes` already says are issued synchronously.
    synchronous: Vec<StmtId>,
    cooperative: Option<Cooperative>,
}

const S_WAVE: u32 = 2;
const S_LOOP: u32 = 3;

/// A loop copied cooperatively by its waves of 64 (gfx950).
struct Cooperative {
    /// Waves of the workgroup: 4, 8 or 16, so that an element tile (`waves · 256` bytes) is
    /// `waves / 4` whole wave-instructions of 1 024 bytes.
    waves: i64,
    /// Local buffers in VGPRs: the first register of each (its element `e` in register `+ e`).
    /// Every index of these is constant; at the loop's threads, per-thread tiles of them in LDS
    /// would not fit.
    registers: std::collections::BTreeMap<BufId, u32>,
}

/// The waves of 64 that copy a loop cooperatively on gfx950, if it has them: the loop declares
/// its threads in waves of 64 lanes, 4, 8 or 16 of them (a power of two, so a wave's place in
/// the rotation is a mask; at least 4, so a tile is whole wave-instructions).
pub(super) fn cooperative_waves(program: &Program) -> Option<u32> {
    let t = program.threads?;
    t.gfx950_cooperative().then_some(t.waves)
}

impl Gen<'_> {
    /// Before an LDS DMA: an LDS write still in flight (lgkmcnt) and the DMA's write (vmcnt) are
    /// not ordered, so a DMA into a word a `ds_write` wrote could land first.
    fn settle_lds_writes(&mut self) {
        if self.lds_writes_pending {
            self.out.instr("s_waitcnt lgkmcnt(0)  ; an LDS write may still be in flight where the LDS DMA lands");
            self.lds_writes_pending = false;
        }
    }

    fn s(&mut self) -> u32 {
        let r = self.s_next;
        self.s_next += 1;
        self.s_max = self.s_max.max(self.s_next);
        r
    }
    fn v(&mut self) -> u32 {
        let r = self.v_next;
        self.v_next += 1;
        self.v_max = self.v_max.max(self.v_next);
        r
    }
    fn v2(&mut self) -> u32 {
        if self.v_next % 2 == 1 {
            self.v_next += 1;
        }
        let r = self.v_next;
        self.v_next += 2;
        self.v_max = self.v_max.max(self.v_next);
        r
    }

    fn sreg(&mut self, x: S) -> u32 {
        match x {
            S::Reg(r) => r,
            S::Imm(v) => {
                let r = self.s();
                emit!(self, "s_mov_b32 s{r}, {v}");
                r
            }
        }
    }

    fn text(x: &S) -> String {
        match x {
            S::Imm(v) => v.to_string(),
            S::Reg(r) => format!("s{r}"),
        }
    }

    /// Sets SCC from a simple comparison (conditions in flattened programs are comparisons).
    fn scc(&mut self, c: &Cond) {
        match c {
            Cond::Cmp(op, a, b) => {
                let (a, b) = (walk::int(self, a), walk::int(self, b));
                let a = self.sreg(a);
                let cmp = Self::SPELLING.cmp(*op);
                emit!(self, "s_cmp_{cmp}_i32 s{a}, {}", Self::text(&b));
            }
            _ => {
                self.notes
                    .push("compound conditions in index selects are emitted as true".into());
                self.out.instr("s_cmp_eq_u32 0, 0");
            }
        }
    }

    fn scope(&self, b: BufId) -> Scope {
        self.program.buffer(b).map_or(Scope::Global, |b| b.scope)
    }

    /// Byte offset of the element's tile in its space, in an SGPR (uniform).
    fn tile_offset(&mut self, a: &Access) -> S {
        let e = element(&self.flat.shapes, a);
        let elem = walk::int(self, &e);
        let lds_base = self.lds_base(a.buffer);
        match elem {
            S::Imm(v) => S::Imm(lds_base + v * self.lanes * 4),
            S::Reg(r) => {
                let d = self.s();
                emit!(self, "s_mul_i32 s{d}, s{r}, {}", self.lanes * 4);
                if lds_base != 0 {
                    emit!(self, "s_add_i32 s{d}, s{d}, {lds_base}");
                }
                S::Reg(d)
            }
        }
    }

    /// A local buffer of a cooperative kernel held in VGPRs.
    fn in_registers(&self, b: BufId) -> bool {
        self.cooperative
            .as_ref()
            .is_some_and(|c| c.registers.contains_key(&b))
    }

    /// LDS bytes before this buffer (shared and local buffers both live in LDS here, but the
    /// locals a cooperative kernel holds in VGPRs).
    fn lds_base(&self, b: BufId) -> i64 {
        if self.scope(b) == Scope::Global {
            return 0;
        }
        let mut base = 0;
        for (id, buf) in self.program.buffers.iter().enumerate() {
            if id as BufId == b {
                break;
            }
            if buf.scope != Scope::Global && !self.in_registers(id as BufId) {
                base += elements(&self.flat.shapes, id as BufId) * self.lanes * 4;
            }
        }
        base
    }

    /// A VGPR holding this thread's byte address within the tile space (tile + 4·tid).
    fn lane_address(&mut self, a: &Access) -> u32 {
        let tile = self.tile_offset(a);
        let v = self.v();
        emit!(self, "v_lshlrev_b32 v{v}, 2, v0");
        match tile {
            S::Imm(0) => {}
            t => {
                let t = self.sreg(t);
                emit!(self, "v_add_u32 v{v}, s{t}, v{v}");
            }
        }
        v
    }

    /// A VGPR pair holding this thread's global address of the element.
    fn global_address(&mut self, a: &Access) -> u32 {
        let off = self.lane_address(a);
        let base = self.global_base(a.buffer);
        let p = self.v2();
        emit!(self, "v_mov_b32 v{}, s{}", p + 1, base + 1);
        emit!(self, "v_add_co_u32 v{p}, vcc, s{base}, v{off}");
        emit!(self, "v_addc_co_u32 v{}, vcc, 0, v{}, vcc", p + 1, p + 1);
        p
    }

    fn global_base(&self, b: BufId) -> u32 {
        let k = self
            .program
            .buffers
            .iter()
            .take(b as usize)
            .filter(|x| x.scope == Scope::Global)
            .count() as u32;
        self.s_base + 2 * k
    }

    /// The VGPR of a local buffer's element held in registers.
    fn register_of(&self, a: &Access) -> Option<u32> {
        let base = *self.cooperative.as_ref()?.registers.get(&a.buffer)?;
        let e = element(&self.flat.shapes, a).as_const()?;
        Some(base + u32::try_from(e).ok()?)
    }

    fn load(&mut self, a: &Access) -> u32 {
        let d = self.v();
        if let Some(r) = self.register_of(a) {
            emit!(self, "v_mov_b32 v{d}, v{r}");
        } else if self.scope(a.buffer) == Scope::Global {
            let p = self.global_address(a);
            emit!(self, "global_load_dword v{d}, v[{}:{}], off", p, p + 1);
            self.stream.unit(None, self.out.stmts.len() - 1);
            // vmcnt retires in order: waiting for this load waits for everything issued before it.
            self.out.instr("s_waitcnt vmcnt(0)  ; a synchronous load: every earlier vector-memory instruction lands too");
            self.stream.retire(0);
            self.notes.push("a synchronous global load waits with vmcnt(0), which also completes every LDS DMA in flight (vmcnt retires in order)".into());
        } else {
            let addr = self.lane_address(a);
            emit!(self, "ds_read_b32 v{d}, v{addr}");
            self.out.instr("s_waitcnt lgkmcnt(0)");
            self.lds_writes_pending = false;
        }
        d
    }

    fn stmt(&mut self, s: &Stmt) {
        self.out.current = Some(s.assign.stmt);
        // A statement's registers are free again after it: nothing lives across statements.
        let marks = (self.s_next, self.v_next);
        let copy = is_async_copy(self.program, s);
        if let (Some(src), true) = (&copy, self.copies_together(s.assign.target.buffer)) {
            self.cooperative_copy(src, &s.assign.target, s.queue);
        } else if let Some(src) = copy {
            let tile = self.tile_offset(&s.assign.target);
            self.settle_lds_writes();
            self.set_m0(S_WAVE, tile);
            let p = self.global_address(&src);
            emit!(
                self,
                "global_load_lds_dword v[{}:{}], off  ; LDS DMA: lands at M0 + 4 * lane",
                p,
                p + 1
            );
            self.stream.unit(s.queue, self.out.stmts.len() - 1);
        } else {
            if s.is_async {
                self.out.instr("; asynchronous in the schedule, but only global->LDS copies have an async form here: issued synchronously");
                if !self.synchronous.contains(&s.assign.stmt) {
                    self.synchronous.push(s.assign.stmt);
                    self.notes.push(super::synchronous_note(
                        self.program,
                        &s.assign,
                        "it runs synchronously",
                    ));
                }
            }
            walk::store(self, &s.assign);
        }
        self.out.current = None;
        (self.s_next, self.v_next) = marks;
    }

    fn items(&mut self, items: &[Item]) {
        walk_items(self, items);
    }

    /// Buffers the loop reads start at 0 in the loop; LDS and VGPRs start undefined: the header
    /// fills them, each element tile of every thread in LDS (its address (e · lanes + t) · 4), or
    /// each register of a local held in VGPRs.
    fn zero_fill(&mut self, head: &mut Lines) {
        let zeroed = super::read_buffers(self.program, &self.flat.items);
        if !zeroed.is_empty() {
            self.v_max = self.v_max.max(3);
            head.line("  v_mov_b32 v2, 0");
        }
        for b in zeroed {
            let name = self.program.buffer(b).map_or("?", |x| x.name.as_str());
            if let Some(&first) = self.cooperative.as_ref().and_then(|c| c.registers.get(&b)) {
                head.line(format!(
                "  ; `{name}` is read: the loop reads an element nothing wrote as 0 (VGPRs start undefined)"
            ));
                for r in first..first + elements(&self.flat.shapes, b) as u32 {
                    head.line(format!("  v_mov_b32 v{r}, 0"));
                }
                continue;
            }
            let base = self.lds_base(b);
            head.line(format!(
            "  ; `{name}` is read: the loop reads an element nothing wrote as 0, LDS starts undefined"
        ));
            head.line("  v_lshlrev_b32 v1, 2, v0");
            if base != 0 {
                head.line(format!("  v_add_u32 v1, {base}, v1"));
            }
            head.line(format!(
                "  s_mov_b32 s{S_LOOP}, {}",
                elements(&self.flat.shapes, b)
            ));
            head.line(format!(".Lzero{b}:"));
            head.line("  ds_write_b32 v1, v2");
            head.line(format!("  v_add_u32 v1, {}, v1", self.lanes * 4));
            head.line(format!("  s_sub_i32 s{S_LOOP}, s{S_LOOP}, 1"));
            head.line(format!("  s_cmp_lg_u32 s{S_LOOP}, 0"));
            head.line(format!("  s_cbranch_scc1 .Lzero{b}"));
            head.line("  s_waitcnt lgkmcnt(0)");
        }
    }

    /// Whether the async copies into `b` are cooperative: the kernel's waves copy together, and
    /// `b` is spread over the loop's threads (docs/execution-model.md, "Threads").
    fn copies_together(&self, b: BufId) -> bool {
        self.cooperative.is_some()
            && self
                .program
                .buffer(b)
                .is_some_and(|x| x.threads != Distribution::Each)
    }

    /// M0 = scalar register `base` + `tile`, the LDS address an LDS DMA writes at.
    fn set_m0(&mut self, base: u32, tile: S) {
        match tile {
            S::Imm(0) => emit!(self, "s_mov_b32 m0, s{base}"),
            S::Imm(v) => emit!(self, "s_add_u32 m0, s{base}, {v}"),
            S::Reg(r) => emit!(self, "s_add_u32 m0, s{base}, s{r}"),
        }
    }

    /// One element tile copied by the waves together, 16 bytes a lane. Chunk `c` of the buffer's
    /// 1 024-byte wave-chunks is copied by wave `c mod W`; tile `e` holds chunks `e · W/4 …`, so
    /// wave `w` copies chunk `r = (w − e · W/4) mod W` of it when `r < W/4`: M0 = the tile +
    /// 1 024 · r, lane `l` the 16 bytes at + 16 · l. Every wave issues the instruction — the
    /// others with EXEC = 0, which copies nothing but is counted by vmcnt like any
    /// vector-memory instruction — so every wave's vmcnt sequence is the same and the derived
    /// counts hold for each (LLVM's SIInsertWaitcnts counts every VMEM instruction whatever
    /// EXEC). The values a thread then reads were copied by other waves, which is why the
    /// derived barriers are written as `s_barrier`.
    fn cooperative_copy(&mut self, src: &Access, dst: &Access, queue: Option<i64>) {
        let waves = self.cooperative.as_ref().map_or(4, |c| c.waves);
        let quarter = waves / 4;
        let e = element(&self.flat.shapes, dst);
        let (wave, place) = (self.s(), self.s());
        emit!(self, "s_lshr_b32 s{wave}, s{S_WAVE}, 8");
        let from = match walk::int(self, &e) {
            S::Imm(v) => match (v * quarter).rem_euclid(waves) {
                0 => wave,
                first => {
                    emit!(self, "s_sub_i32 s{place}, s{wave}, {first}");
                    place
                }
            },
            S::Reg(r) => {
                emit!(self, "s_mul_i32 s{place}, s{r}, {quarter}");
                emit!(self, "s_sub_i32 s{place}, s{wave}, s{place}");
                place
            }
        };
        emit!(self, "s_and_b32 s{place}, s{from}, {}", waves - 1);
        let bytes = self.s();
        emit!(self, "s_lshl_b32 s{bytes}, s{place}, 10");
        // Global: this lane's 16 bytes of the source tile.
        let lane = self.v();
        emit!(self, "v_and_b32 v{lane}, 63, v0");
        emit!(self, "v_lshlrev_b32 v{lane}, 4, v{lane}");
        emit!(self, "v_add_u32 v{lane}, s{bytes}, v{lane}");
        match self.tile_offset(src) {
            S::Imm(0) => {}
            t => {
                let t = self.sreg(t);
                emit!(self, "v_add_u32 v{lane}, s{t}, v{lane}");
            }
        }
        let base = self.global_base(src.buffer);
        let p = self.v2();
        emit!(self, "v_mov_b32 v{}, s{}", p + 1, base + 1);
        emit!(self, "v_add_co_u32 v{p}, vcc, s{base}, v{lane}");
        emit!(self, "v_addc_co_u32 v{}, vcc, 0, v{}, vcc", p + 1, p + 1);
        // LDS: M0 = the tile + this wave's chunk of it.
        self.settle_lds_writes();
        let tile = self.tile_offset(dst);
        self.set_m0(bytes, tile);
        emit!(self, "s_cmp_lt_u32 s{place}, {quarter}");
        emit!(
            self,
            "s_cselect_b64 exec, -1, 0  ; the waves holding a chunk of this tile"
        );
        emit!(
            self,
            "global_load_lds_dwordx4 v[{}:{}], off  ; LDS DMA: lands at M0 + 16 * lane",
            p,
            p + 1
        );
        self.stream.unit(queue, self.out.stmts.len() - 1);
        self.out.instr("s_mov_b64 exec, -1");
    }
}

impl ItemEmitter for Gen<'_> {
    /// The loop's label number.
    type Loop = u32;

    fn sink(&mut self) -> (&mut Stream, &mut Lines) {
        (&mut self.stream, &mut self.out)
    }

    fn statement(&mut self, s: &Stmt) {
        self.stmt(s);
    }

    fn open(&mut self, _queue: i64, _rest: &[Item]) {}

    /// A cooperative kernel writes a derived barrier as `s_barrier`, after its LDS writes have
    /// landed; a wave whose threads read only their own values needs none.
    fn barrier(&mut self, kinds: &[BarrierKind]) {
        if self.cooperative.is_none() {
            return;
        }
        if self.lds_writes_pending {
            self.out
                .instr("s_waitcnt lgkmcnt(0)  ; this wave's LDS writes land before the barrier");
            self.lds_writes_pending = false;
        }
        let after_write = kinds.contains(&BarrierKind::AfterWrite);
        let before_refill = kinds.contains(&BarrierKind::BeforeRefill);
        let why = match (after_write, before_refill) {
            (true, true) => "other waves' copies are read after it, and a slot other waves read is refilled after it",
            (true, false) => "other waves' copies are read after it",
            (false, true) => "a slot other waves read is refilled after it",
            (false, false) => "a barrier() of the program",
        };
        emit!(self, "s_barrier  ; derived barrier: {why}");
    }

    fn commit(&mut self, queue: i64) {
        emit!(self, "; commit group (queue {queue})");
        self.stream.commit(queue);
    }

    fn loop_head(&mut self, lo: i64, hi: i64) -> u32 {
        self.labels += 1;
        let n = self.labels;
        emit!(self, "s_mov_b32 s{S_LOOP}, {lo}");
        self.out.line(format!(".Lbody{n}:"));
        // The previous iteration's LDS writes may be in flight here.
        self.lds_writes_pending = true;
        emit!(self, "s_cmp_ge_i32 s{S_LOOP}, {hi}");
        emit!(self, "s_cbranch_scc1 .Lend{n}");
        n
    }

    fn loop_tail(&mut self, n: u32) {
        emit!(self, "s_add_i32 s{S_LOOP}, s{S_LOOP}, 1");
        emit!(self, "s_branch .Lbody{n}");
        self.out.line(format!(".Lend{n}:"));
        self.lds_writes_pending = true;
    }
}

/// Indices in scalar registers (uniform across the block), values in vector registers, computed
/// in place where an operand is dead after the operation. A condition is SCC, set by one scalar
/// compare: no predicate values (`walk::Predicates`).
impl Isa for Gen<'_> {
    type Int = S;
    type Val = u32;

    const SPELLING: Spelling = Spelling {
        int: [
            "s_add_i32",
            "s_sub_i32",
            "s_mul_i32",
            "s_min_i32",
            "s_max_i32",
        ],
        cmp: ["lt", "le", "gt", "ge", "eq", "lg"],
        // Division is a reciprocal, then a multiplication.
        float: ["v_add_f32", "v_sub_f32", "v_mul_f32", "v_rcp_f32"],
        func: ["v_max_f32", "v_min_f32", "v_fma_f32", "v_and_b32"],
    };

    fn loop_var(&self) -> Option<VarId> {
        self.flat.loop_var
    }

    fn counter(&mut self) -> S {
        S::Reg(S_LOOP)
    }

    fn imm(&mut self, v: i64) -> S {
        S::Imm(v)
    }

    fn int_op(&mut self, op: IOp, a: S, b: S) -> S {
        let a = self.sreg(a);
        let d = self.s();
        let bt = Self::text(&b);
        match op {
            IOp::Mod | IOp::FloorDiv => {
                // Division by a constant through a multiply-high: exact for dividends in
                // [0, 65536) and divisors up to 256, which ring indices are.
                let S::Imm(div) = b else {
                    self.notes.push("a division by a non-constant index is not supported on AMDGPU; emitted as 0".into());
                    emit!(self, "s_mov_b32 s{d}, 0");
                    return S::Reg(d);
                };
                let div = div.clamp(1, 256);
                let magic = (1u64 << 32).div_ceil(div as u64);
                let q = if op == IOp::FloorDiv { d } else { self.s() };
                emit!(self, "s_mul_hi_u32 s{q}, s{a}, 0x{:x}", magic as u32);
                if op == IOp::Mod {
                    let t = self.s();
                    emit!(self, "s_mul_i32 s{t}, s{q}, {div}");
                    emit!(self, "s_sub_i32 s{d}, s{a}, s{t}");
                }
                self.notes.push("ring indices use a multiply-high division, exact for non-negative indices below 65536".into());
            }
            _ => emit!(self, "{} s{d}, s{a}, {bt}", Self::SPELLING.int(op)),
        }
        S::Reg(d)
    }

    /// The operands first: the scalar arithmetic computing them would overwrite SCC.
    fn select(&mut self, c: &Cond, a: &IExpr, b: &IExpr) -> S {
        let (a, b) = (walk::int(self, a), walk::int(self, b));
        let (a, b) = (self.sreg(a), self.sreg(b));
        self.scc(c);
        let d = self.s();
        emit!(self, "s_cselect_b32 s{d}, s{a}, s{b}");
        S::Reg(d)
    }

    fn literal(&mut self, x: f64) -> u32 {
        let d = self.v();
        emit!(self, "v_mov_b32 v{d}, 0x{:08x}", (x as f32).to_bits());
        d
    }

    fn read(&mut self, a: &Access) -> u32 {
        self.load(a)
    }

    fn store(&mut self, target: &Access, v: u32) {
        if let Some(r) = self.register_of(target) {
            emit!(self, "v_mov_b32 v{r}, v{v}");
        } else if self.scope(target.buffer) == Scope::Global {
            let p = self.global_address(target);
            emit!(self, "global_store_dword v[{}:{}], v{v}, off", p, p + 1);
            // Counted by vmcnt, but nothing waits for it: this wave's later vector-memory
            // accesses reach memory after it, and no other thread reads this thread's value.
            // (An async statement emitted synchronously has read its sources already.)
            self.stream.unit(None, self.out.stmts.len() - 1);
        } else {
            let addr = self.lane_address(target);
            emit!(self, "ds_write_b32 v{addr}, v{v}");
            self.lds_writes_pending = true;
        }
    }

    /// In place: the first operand's register holds the result.
    fn value_op(&mut self, op: ValueOp<S, u32>) -> u32 {
        match op {
            ValueOp::Index(i) => {
                let i = self.sreg(i);
                let d = self.v();
                emit!(self, "v_cvt_f32_i32 v{d}, s{i}");
                d
            }
            ValueOp::Neg(x) => {
                emit!(self, "v_xor_b32 v{x}, 0x80000000, v{x}");
                x
            }
            ValueOp::Bin(VOp::Div, a, b) => {
                emit!(self, "{} v{b}, v{b}", Self::SPELLING.float(VOp::Div));
                emit!(self, "v_mul_f32 v{a}, v{a}, v{b}");
                self.notes
                    .push("division is emitted as a multiplication by v_rcp_f32 (1 ulp)".into());
                a
            }
            ValueOp::Bin(op, a, b) => {
                emit!(self, "{} v{a}, v{a}, v{b}", Self::SPELLING.float(op));
                a
            }
            ValueOp::Call(f, args) => {
                let (a, b, c) = (
                    args.first().copied().unwrap_or(0),
                    args.get(1).copied().unwrap_or(0),
                    args.get(2).copied().unwrap_or(0),
                );
                let ins = Self::SPELLING.func(f);
                match f {
                    Func::Max | Func::Min => emit!(self, "{ins} v{a}, v{a}, v{b}"),
                    Func::Fma => emit!(self, "{ins} v{a}, v{a}, v{b}, v{c}"),
                    Func::Abs => emit!(self, "{ins} v{a}, 0x7fffffff, v{a}"),
                }
                a
            }
        }
    }
}

/// vmcnt counts this wave's vector-memory instructions, which retire in issue order.
const VMCNT: WaitSpelling = WaitSpelling {
    instr: |n| format!("s_waitcnt vmcnt({n})"),
    short: |n| format!("vmcnt({n})"),
    comment: "; ",
    dash: "—",
    unit: "instruction",
    of_groups: "",
    nothing_needed: "nothing to wait for: every group it needs issued no vector-memory instruction, or has landed already",
    field_max: VMCNT_MAX,
    field: "vmcnt",
    counted: "vector-memory instructions",
    machine: "gfx9",
    shared: "vmcnt retires vector-memory instructions in issue order, whatever their group or queue",
    sequence: None,
};

pub(super) fn emit(program: &Program, flat: &Flat, lanes: u32, gfx950: bool) -> Emitted {
    let globals = program
        .buffers
        .iter()
        .filter(|b| b.scope == Scope::Global)
        .count() as u32;
    let s_base = 4;
    let waves = cooperative_waves(program).filter(|_| gfx950);
    // A cooperative kernel's workgroup is the loop's own threads.
    let lanes = waves.map_or(lanes, |w| 64 * w);
    let cooperative = waves.map(|w| Cooperative {
        waves: i64::from(w),
        registers: local_registers(program, flat),
    });
    let first_free_vgpr = cooperative.as_ref().map_or(1, |c| {
        c.registers
            .keys()
            .map(|&b| elements(&flat.shapes, b) as u32)
            .sum::<u32>()
            + FIRST_LOCAL_VGPR
    });
    let mut g = Gen {
        program,
        flat,
        lanes: i64::from(lanes.clamp(64, 1024)),
        out: Lines::indented_by("  "),
        stream: Stream::default(),
        lds_writes_pending: false,
        s_next: s_base + 2 * globals,
        s_max: s_base + 2 * globals,
        v_next: first_free_vgpr,
        v_max: first_free_vgpr,
        s_base,
        labels: 0,
        notes: Vec::new(),
        synchronous: Vec::new(),
        cooperative,
    };
    let cpu = if gfx950 { "gfx950" } else { "gfx942" };
    // Refused before any code is generated: a kernel that cannot launch is not worth the time.
    let lds: i64 = program
        .buffers
        .iter()
        .enumerate()
        .filter(|(id, b)| b.scope != Scope::Global && !g.in_registers(*id as BufId))
        .map(|(id, _)| elements(&flat.shapes, id as BufId) * g.lanes * 4)
        .sum();
    let lds_limit = if gfx950 { 160 * 1024 } else { 64 * 1024 };
    if lds > lds_limit {
        return Emitted {
            error: Some(format!(
                "the buffers need {lds} bytes of LDS; {cpu} has {lds_limit}"
            )),
            ..Emitted::default()
        };
    }
    g.items(&flat.items);
    // The kernel ends with `s_waitcnt vmcnt(0)` (below): a wait's group left in flight there
    // completes at the end, so the last waits are not the only ones completing it.
    g.stream.retire(0);
    let together = g.cooperative.is_some() && any_copied_together(&g, &flat.items);
    let translated = g.stream.translate(VMCNT_MAX);
    let lines = wait_lines(&g.stream.points, &translated, &mut g.notes, &VMCNT);
    let body = fill_waits(&g.out.text, &lines);
    if together {
        g.notes.push(format!("the loop's {} threads in {} waves copy each tile of a buffer spread over them together: global_load_lds_dwordx4, 16 bytes a lane, by a quarter of the waves (the others issue it with EXEC = 0, so every wave's vmcnt counts the same instructions); every derived barrier is s_barrier", g.lanes, g.lanes / 64));
    } else if gfx950 {
        g.notes.push("gfx950 has global_load_lds_dwordx4, but each thread copies one 4-byte value per element in this model, so the dword form is used".into());
    } else if cooperative_waves(program).is_some() {
        g.notes.push("gfx942 has no dwordx4 LDS DMA (global_load_lds_dwordx4 is gfx950's): each thread copies its own 4-byte values with global_load_lds_dword, reads only what it copied, and needs none of the loop's barriers; the gfx950 kernel copies cooperatively".into());
    }
    let mut head = Lines::default();
    head.line(format!(
        "; Generated by Stagecraft for {cpu}. One workgroup of {} threads; every buffer element is",
        g.lanes
    ));
    if together {
        head.line("; a tile of one 4-byte value per thread (docs/execution-model.md). Shared buffers live in");
        head.line("; LDS, local ones in VGPRs; the waves copy the tiles of a buffer spread over the threads");
        head.line("; together, so the derived barriers are s_barrier (after the s_waitcnt that lands a copy).");
    } else {
        head.line("; a tile of one 4-byte value per thread (docs/execution-model.md). Shared and local buffers");
        head.line(
            "; live in LDS; each thread reads only what it copied, so waits need no s_barrier.",
        );
    }
    head.line(format!(".amdgcn_target \"amdgcn-amd-amdhsa--{cpu}\""));
    head.line(".text");
    head.line(".globl stagecraft");
    head.line(".p2align 8");
    head.line(".type stagecraft,@function");
    head.line("stagecraft:");
    for k in 0..globals {
        head.line(format!(
            "  s_load_dwordx2 s[{}:{}], s[0:1], 0x{:x}",
            s_base + 2 * k,
            s_base + 2 * k + 1,
            8 * k
        ));
    }
    // This wave's slice of every LDS tile: LDS DMA writes M0 + 4 * lane (lane within the wave).
    head.line("  v_lshrrev_b32 v1, 6, v0");
    head.line(format!("  v_readfirstlane_b32 s{S_WAVE}, v1"));
    head.line(format!("  s_lshl_b32 s{S_WAVE}, s{S_WAVE}, 8"));
    head.line("  s_waitcnt lgkmcnt(0)");
    g.zero_fill(&mut head);
    if together {
        head.line(
            "  s_barrier  ; every wave's zeros stored before other waves' copies overwrite them",
        );
    }
    let vgprs = (g.v_max + 2).div_ceil(4) * 4;
    let sgprs = g.s_max + 2;
    let tail = format!(
        "  s_waitcnt vmcnt(0)\n  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel stagecraft\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_group_segment_fixed_size {lds}\n  .amdhsa_next_free_vgpr {vgprs}\n  .amdhsa_next_free_sgpr {sgprs}\n  .amdhsa_accum_offset {vgprs}\n.end_amdhsa_kernel\n"
    );
    let waits = emitted_waits(&g.stream.points, &lines, head.stmts.len());
    Emitted {
        waits,
        lanes: if g.cooperative.is_some() { lanes } else { 0 },
        ..kernel(head, &body, g.out, &tail, g.notes)
    }
}

/// The first VGPR of the local buffers held in registers (v0 is the thread id, v1 and v2 the
/// header's).
const FIRST_LOCAL_VGPR: u32 = 3;

/// Most VGPRs the local buffers of a cooperative kernel take (of gfx950's 256 architected
/// ones), leaving room for the statements' own registers.
const MAX_LOCAL_VGPRS: i64 = 160;

/// The local buffers of a cooperative kernel that live in VGPRs, with their first register:
/// those whose every access has a constant element (inner loops unrolled), while they fit.
fn local_registers(program: &Program, flat: &Flat) -> std::collections::BTreeMap<BufId, u32> {
    let mut variable = std::collections::BTreeSet::new();
    super::walk_accesses(&flat.items, &mut |a: &Access| {
        if element(&flat.shapes, a).as_const().is_none() {
            variable.insert(a.buffer);
        }
    });
    let mut out = std::collections::BTreeMap::new();
    let mut next = i64::from(FIRST_LOCAL_VGPR);
    for (id, b) in program.buffers.iter().enumerate() {
        let id = id as BufId;
        let n = elements(&flat.shapes, id);
        if b.scope == Scope::Local
            && !variable.contains(&id)
            && next + n <= i64::from(FIRST_LOCAL_VGPR) + MAX_LOCAL_VGPRS
        {
            out.insert(id, next as u32);
            next += n;
        }
    }
    out
}

/// Whether a statement of `items` is an async copy the waves make together.
fn any_copied_together(g: &Gen, items: &[Item]) -> bool {
    items.iter().any(|it| match it {
        Item::Stmt(s) => {
            is_async_copy(g.program, s).is_some() && g.copies_together(s.assign.target.buffer)
        }
        Item::Loop { body, .. } => any_copied_together(g, body),
        _ => false,
    })
}
