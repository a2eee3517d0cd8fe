//! AMDGPU ISA (gfx942, gfx950): executes the kernel text wave by wave, 64 lanes in lockstep.
//!
//! Machine semantics (AMD's CDNA3/CDNA4 ISA reference and LLVM's AMDGPUUsage, as summarized in
//! docs/execution-model.md):
//! - A wave starts with the kernel-argument pointer in `s[0:1]` (`.amdhsa_user_sgpr_kernarg_segment_ptr`),
//!   the workgroup id in the next SGPR (`.amdhsa_system_sgpr_workgroup_id_x`, on by default) and its
//!   work-item ids in `v0`; every other register is undefined until written (reading it is an
//!   error). The argument segment holds one 8-byte pointer per global buffer, in order.
//! - Vector-memory instructions — `global_load_dword`, `global_store_dword`, the LDS DMA
//!   `global_load_lds_dword` (LDS address M0 + offset + 4 · lane) — are counted by `vmcnt` and
//!   retire in issue order: `s_waitcnt vmcnt(N)` completes the oldest until at most N remain. Until
//!   it retires, a load's destination VGPR is in flight, a store's data has not landed, an LDS DMA
//!   may still read its global source and has not written LDS.
//! - LDS instructions (`ds_read_b32`, `ds_write_b32`) are performed in order among themselves; their
//!   results (a read's VGPR) are in flight until `lgkmcnt` retires them. Scalar loads are counted by
//!   `lgkmcnt` too but return out of order, so only `lgkmcnt(0)` is modelled while one is in flight.
//! - At `s_endpgm`, stores still in flight complete (a dispatch ends after its writes); an LDS DMA
//!   still in flight never lands: it is reported as never awaited.

mod parse;

use super::contract::Contract;
use super::memory::{Cell, Conflict, Issue, Memory, OpId, Order, Space, SpaceKind};
use super::{Execution, Float, Log, RacePlace, Stop};
use crate::interp::RaceKind;
use parse::{Cmp, Inst, Op, Operand};
pub use parse::{EXPCNT_MAX, LGKMCNT_MAX, VMCNT_MAX};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gfx {
    Gfx942,
    Gfx950,
}

impl Gfx {
    fn cpu(self) -> &'static str {
        match self {
            Gfx::Gfx942 => "gfx942",
            Gfx::Gfx950 => "gfx950",
        }
    }
    fn lds_bytes(self) -> u64 {
        match self {
            Gfx::Gfx942 => 64 * 1024,
            Gfx::Gfx950 => 160 * 1024,
        }
    }
}

const WAVE: usize = 64;
/// The kernel-argument segment's address (any 8-aligned value would do).
const KERNARG_BASE: u64 = 0x7f00_0000_0000;

/// Where global buffer `k` starts: just below a 4 GiB boundary, so that address arithmetic that
/// drops the carry into the high half is caught.
fn global_base(k: usize) -> u64 {
    ((k as u64 + 1) << 36) | 0xffff_ff00
}

/// What an operation in flight writes back to registers when it retires.
#[derive(Clone, Debug)]
enum Writeback {
    None,
    Vgpr { reg: u16, values: Vec<u32> },
    Sgpr { reg: u16, values: [u32; 2] },
}

#[derive(Clone, Debug)]
struct InFlight {
    /// Unique among the wave's operations (what its pending registers point to).
    ticket: u32,
    /// The memory operation, if it touches memory (scalar loads of the argument segment do not);
    /// for an LDS DMA, its LDS write.
    op: Option<OpId>,
    /// An LDS DMA's read of its global source.
    source: Option<OpId>,
    line: u32,
    writeback: Writeback,
    /// An LDS DMA: never landing at the kernel's end is reported.
    dma: bool,
    smem: bool,
}

struct Wave {
    index: u16,
    /// Lanes of the wave that exist (the last wave may be partial).
    exec: u64,
    lanes: usize,
    pc: usize,
    sgpr: Vec<u32>,
    sgpr_set: Vec<bool>,
    sgpr_pending: Vec<Option<u32>>,
    vgpr: Vec<u32>,
    vgpr_set: Vec<bool>,
    vgpr_pending: Vec<Option<u32>>,
    m0: Option<u32>,
    vcc: Option<u64>,
    scc: Option<bool>,
    vm: VecDeque<InFlight>,
    lgkm: VecDeque<InFlight>,
    ended: bool,
    at_barrier: bool,
}

struct Machine<'a> {
    insts: &'a [Inst],
    contract: &'a Contract,
    memory: Memory,
    log: Log,
    float: Float,
    conflicts: Vec<Conflict>,
    /// Space of each kernel argument.
    arguments: Vec<u16>,
    lds: u16,
    lds_bytes: u64,
    /// Tickets of operations in flight, for register-pending bookkeeping (the memory's operation
    /// ids are recycled).
    next_ticket: u32,
    stop: Option<Stop>,
    instructions: u64,
}

enum Src {
    Scalar(u32),
    Vector(u16),
}

/// Integer inline constants of a float operation mean that many (`1` is 1.0).
fn imm_bits(v: i64, float: bool) -> u32 {
    if float && (-16..=64).contains(&v) {
        (v as f32).to_bits()
    } else {
        v as u32
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

    fn read_sgpr(&mut self, w: &mut Wave, r: u16, line: u32) -> u32 {
        let i = r as usize;
        if let Some(Some(t)) = w.sgpr_pending.get(i) {
            let other = self.ticket_line(w, *t);
            self.log.race(
                line,
                RaceKind::ReadAfterWrite,
                other,
                RacePlace::Register(format!("s{r}")),
                true,
            );
        }
        if !w.sgpr_set.get(i).copied().unwrap_or(false) {
            self.problem(line, format!("reads s{r}, which nothing wrote"));
        }
        w.sgpr.get(i).copied().unwrap_or(0)
    }

    fn write_sgpr(&mut self, w: &mut Wave, r: u16, v: u32, line: u32) {
        let i = r as usize;
        if let Some(Some(t)) = w.sgpr_pending.get(i) {
            let other = self.ticket_line(w, *t);
            self.log.race(
                line,
                RaceKind::WriteAfterWrite,
                other,
                RacePlace::Register(format!("s{r}")),
                true,
            );
        }
        if let (Some(x), Some(s)) = (w.sgpr.get_mut(i), w.sgpr_set.get_mut(i)) {
            *x = v;
            *s = true;
        }
    }

    /// The line of the in-flight instruction holding ticket `t`.
    fn ticket_line(&self, w: &Wave, t: u32) -> u32 {
        w.vm.iter()
            .chain(w.lgkm.iter())
            .find(|f| f.ticket == t)
            .map_or(0, |f| f.line)
    }

    fn scalar(&mut self, w: &mut Wave, o: Operand, line: u32) -> u32 {
        match o {
            Operand::Sgpr(r) => self.read_sgpr(w, r, line),
            Operand::Imm(v) => v as u32,
            Operand::M0 => match w.m0 {
                Some(v) => v,
                None => {
                    self.problem(line, "reads M0, which nothing wrote");
                    0
                }
            },
            Operand::Vcc => match w.vcc {
                Some(v) => v as u32,
                None => {
                    self.problem(line, "reads VCC, which nothing wrote");
                    0
                }
            },
            _ => {
                self.problem(line, "expects a scalar operand");
                0
            }
        }
    }

    fn write_scalar(&mut self, w: &mut Wave, o: Operand, v: u32, line: u32) {
        match o {
            Operand::Sgpr(r) => self.write_sgpr(w, r, v, line),
            Operand::M0 => w.m0 = Some(v),
            _ => self.problem(line, "expects a scalar destination"),
        }
    }

    fn scc(&mut self, w: &Wave, line: u32) -> bool {
        match w.scc {
            Some(b) => b,
            None => {
                self.problem(line, "reads SCC, which nothing set");
                false
            }
        }
    }

    /// A VALU source: a scalar value for all lanes, or a VGPR (checked for results in flight).
    fn vsrc(&mut self, w: &mut Wave, o: Operand, float: bool, line: u32) -> Src {
        match o {
            Operand::Vgpr(r) => {
                self.check_vgpr_read(w, r, line);
                Src::Vector(r)
            }
            Operand::Imm(v) => Src::Scalar(imm_bits(v, float)),
            other => Src::Scalar(self.scalar(w, other, line)),
        }
    }

    fn check_vgpr_read(&mut self, w: &mut Wave, r: u16, line: u32) {
        let i = r as usize;
        if let Some(Some(t)) = w.vgpr_pending.get(i) {
            let other = self.ticket_line(w, *t);
            self.log.race(
                line,
                RaceKind::ReadAfterWrite,
                other,
                RacePlace::Register(format!("v{r}")),
                true,
            );
        }
        if !w.vgpr_set.get(i).copied().unwrap_or(false) {
            self.problem(line, format!("reads v{r}, which nothing wrote"));
        }
    }

    fn check_vgpr_write(&mut self, w: &mut Wave, r: u16, line: u32) {
        let i = r as usize;
        if let Some(Some(t)) = w.vgpr_pending.get(i) {
            let other = self.ticket_line(w, *t);
            self.log.race(
                line,
                RaceKind::WriteAfterWrite,
                other,
                RacePlace::Register(format!("v{r}")),
                true,
            );
        }
        if let Some(s) = w.vgpr_set.get_mut(i) {
            *s = true;
        }
    }

    fn lane_value(w: &Wave, s: &Src, lane: usize) -> u32 {
        match s {
            Src::Scalar(v) => *v,
            Src::Vector(r) => w.vgpr.get(*r as usize * WAVE + lane).copied().unwrap_or(0),
        }
    }

    /// A VALU source's value in every lane of the wave.
    fn lanes(w: &Wave, s: &Src) -> [u32; WAVE] {
        match s {
            Src::Scalar(v) => [*v; WAVE],
            Src::Vector(r) => {
                let mut a = [0u32; WAVE];
                let base = *r as usize * WAVE;
                if let Some(src) = w.vgpr.get(base..base + WAVE) {
                    a.copy_from_slice(src);
                }
                a
            }
        }
    }

    /// Writes the wave's lanes of VGPR `r` (lanes beyond the wave's keep their value).
    fn set_lanes(w: &mut Wave, r: u16, values: &[u32; WAVE]) {
        let base = r as usize * WAVE;
        let n = w.lanes;
        if let (Some(dst), Some(src)) = (w.vgpr.get_mut(base..base + n), values.get(..n)) {
            dst.copy_from_slice(src);
        }
    }

    fn set_lane(w: &mut Wave, r: u16, lane: usize, v: u32) {
        if let Some(x) = w.vgpr.get_mut(r as usize * WAVE + lane) {
            *x = v;
        }
    }

    fn vgpr_of(&mut self, o: Operand, line: u32) -> u16 {
        match o {
            Operand::Vgpr(r) => r,
            _ => {
                self.problem(line, "expects a VGPR");
                0
            }
        }
    }

    /// A global address → (kernel argument's space, word), or a problem.
    fn global_cell(&mut self, addr: u64, line: u32, lane: usize) -> Option<Cell> {
        for (k, &space) in self.arguments.iter().enumerate() {
            let base = global_base(k);
            let bytes = self.memory.space(space).map_or(0, |s| s.len() as u64 * 4);
            if addr >= base && addr - base < bytes {
                let off = addr - base;
                if !off.is_multiple_of(4) {
                    self.problem(
                        line,
                        format!("lane {lane}: address {addr:#x} is not 4-byte aligned"),
                    );
                    return None;
                }
                return Some(Cell {
                    space,
                    word: (off / 4) as u32,
                });
            }
        }
        let near = self
            .contract
            .globals
            .iter()
            .enumerate()
            .find(|(k, _)| addr >= global_base(*k) && addr < global_base(*k) + (1 << 32))
            .map(|(k, g)| {
                format!(
                    " (byte {} of `{}`, which has {})",
                    addr - global_base(k),
                    g.name,
                    self.contract.elements(k) * self.contract.lanes as usize * 4
                )
            })
            .unwrap_or_default();
        self.problem(
            line,
            format!("lane {lane}: global address {addr:#x} is outside every kernel argument{near}"),
        );
        None
    }

    /// The LDS words of every lane's byte address, or a problem for the first bad one.
    fn lds_cells(
        &mut self,
        bytes: impl Iterator<Item = u64> + Clone,
        line: u32,
    ) -> Option<Vec<Cell>> {
        let limit = self.lds_bytes;
        let space = self.lds;
        let mut cells = Vec::with_capacity(WAVE);
        for b in bytes.clone() {
            if !b.is_multiple_of(4) || b.saturating_add(4) > limit {
                for (lane, b) in bytes.enumerate() {
                    self.lds_cell(b, line, lane)?;
                }
                return None;
            }
            cells.push(Cell {
                space,
                word: (b / 4) as u32,
            });
        }
        Some(cells)
    }

    fn lds_cell(&mut self, byte: u64, line: u32, lane: usize) -> Option<Cell> {
        if !byte.is_multiple_of(4) {
            self.problem(
                line,
                format!("lane {lane}: LDS address {byte} is not 4-byte aligned"),
            );
            return None;
        }
        if byte.saturating_add(4) > self.lds_bytes {
            self.problem(
                line,
                format!(
                    "lane {lane}: LDS address {byte} is outside the {} bytes the kernel allocates",
                    self.lds_bytes
                ),
            );
            return None;
        }
        Some(Cell {
            space: self.lds,
            word: (byte / 4) as u32,
        })
    }

    /// Per-lane 64-bit addresses from a VGPR pair (+ offset).
    fn addresses(&mut self, w: &mut Wave, o: Operand, offset: i64, line: u32) -> Vec<u64> {
        let Operand::VgprPair(r) = o else {
            self.problem(line, "expects a VGPR pair address");
            return Vec::new();
        };
        self.check_vgpr_read(w, r, line);
        self.check_vgpr_read(w, r + 1, line);
        (0..w.lanes)
            .map(|l| {
                let lo = Self::lane_value(w, &Src::Vector(r), l);
                let hi = Self::lane_value(w, &Src::Vector(r + 1), l);
                ((u64::from(hi) << 32) | u64::from(lo)).wrapping_add(offset as u64)
            })
            .collect()
    }

    fn ticket(&mut self) -> u32 {
        self.next_ticket += 1;
        self.next_ticket
    }

    fn retire(&mut self, w: &mut Wave, f: InFlight) {
        for op in [f.op, f.source].into_iter().flatten() {
            self.memory.complete(op);
        }
        let ticket = f.ticket;
        match f.writeback {
            Writeback::None => {}
            Writeback::Vgpr { reg, values } => {
                for (l, v) in values.into_iter().enumerate() {
                    Self::set_lane(w, reg, l, v);
                }
                if let Some(p) = w.vgpr_pending.get_mut(reg as usize) {
                    if *p == Some(ticket) {
                        *p = None;
                    }
                }
            }
            Writeback::Sgpr { reg, values } => {
                for (k, v) in values.into_iter().enumerate() {
                    let i = reg as usize + k;
                    if let (Some(x), Some(p)) = (w.sgpr.get_mut(i), w.sgpr_pending.get_mut(i)) {
                        *x = v;
                        if *p == Some(ticket) {
                            *p = None;
                        }
                    }
                }
            }
        }
    }

    fn waitcnt(&mut self, w: &mut Wave, inst: &Inst) {
        if let Some(n) = inst.waitcnt.vmcnt {
            while w.vm.len() > n as usize {
                if let Some(f) = w.vm.pop_front() {
                    self.retire(w, f);
                }
            }
        }
        if let Some(n) = inst.waitcnt.lgkmcnt {
            if w.lgkm.len() > n as usize && n > 0 && w.lgkm.iter().any(|f| f.smem) {
                self.unsupported(
                    inst.line,
                    "lgkmcnt above 0 while a scalar load is in flight: scalar loads return out of order",
                );
                return;
            }
            while w.lgkm.len() > n as usize {
                if let Some(f) = w.lgkm.pop_front() {
                    self.retire(w, f);
                }
            }
        }
    }

    fn step(&mut self, w: &mut Wave) {
        let Some(inst) = self.insts.get(w.pc) else {
            self.problem(
                0,
                "execution ran past the last instruction without s_endpgm",
            );
            w.ended = true;
            return;
        };
        self.instructions += 1;
        w.pc += 1;
        let line = inst.line;
        let ops = &inst.operands;
        let at = |i: usize| ops.get(i).copied().unwrap_or(Operand::Off);
        use Op::*;
        match inst.op {
            SEndpgm => w.ended = true,
            SNop => {}
            SBarrier => w.at_barrier = true,
            SWaitcnt => self.waitcnt(w, inst),
            SBranch => {
                if let Operand::Label(k) = at(0) {
                    w.pc = k;
                }
            }
            SCbranchScc1 | SCbranchScc0 => {
                let scc = self.scc(w, line);
                if scc == (inst.op == SCbranchScc1) {
                    if let Operand::Label(k) = at(0) {
                        w.pc = k;
                    }
                }
            }
            SLoadDwordx2 => {
                let (Operand::SgprPair(d), Operand::SgprPair(b), Operand::Imm(off)) =
                    (at(0), at(1), at(2))
                else {
                    return;
                };
                let lo = self.read_sgpr(w, b, line);
                let hi = self.read_sgpr(w, b + 1, line);
                let addr = ((u64::from(hi) << 32) | u64::from(lo)).wrapping_add(off as u64);
                let args = self.arguments.len() as u64;
                let values = if addr >= KERNARG_BASE
                    && addr.saturating_add(8) <= KERNARG_BASE + 8 * args
                    && (addr - KERNARG_BASE).is_multiple_of(4)
                {
                    let at8 = addr - KERNARG_BASE;
                    let k = (at8 / 8) as usize;
                    let p = global_base(k);
                    if at8.is_multiple_of(8) {
                        [p as u32, (p >> 32) as u32]
                    } else {
                        [(p >> 32) as u32, global_base(k + 1) as u32]
                    }
                } else {
                    self.problem(
                        line,
                        format!(
                            "loads 8 bytes at {addr:#x}, outside the {}-byte argument segment",
                            8 * args
                        ),
                    );
                    [0, 0]
                };
                let ticket = self.ticket();
                for k in 0..2u16 {
                    let i = (d + k) as usize;
                    if let Some(Some(t)) = w.sgpr_pending.get(i) {
                        let other = self.ticket_line(w, *t);
                        self.log.race(
                            line,
                            RaceKind::WriteAfterWrite,
                            other,
                            RacePlace::Register(format!("s{}", d + k)),
                            true,
                        );
                    }
                    if let (Some(p), Some(s)) = (w.sgpr_pending.get_mut(i), w.sgpr_set.get_mut(i)) {
                        *p = Some(ticket);
                        *s = true;
                    }
                }
                w.lgkm.push_back(InFlight {
                    ticket,
                    op: None,
                    source: None,
                    line,
                    writeback: Writeback::Sgpr { reg: d, values },
                    dma: false,
                    smem: true,
                });
            }
            SMovB32 => {
                let v = self.scalar(w, at(1), line);
                self.write_scalar(w, at(0), v, line);
            }
            SAddU32 | SSubU32 | SAddI32 | SSubI32 | SMulI32 | SMulHiU32 | SMinI32 | SMaxI32
            | SLshlB32 | SLshrB32 | SAndB32 | SOrB32 => {
                let a = self.scalar(w, at(1), line);
                let b = self.scalar(w, at(2), line);
                let (ai, bi) = (a as i32, b as i32);
                let (d, scc) = match inst.op {
                    SAddU32 => {
                        let r = u64::from(a) + u64::from(b);
                        (r as u32, Some(r >> 32 != 0))
                    }
                    SSubU32 => (a.wrapping_sub(b), Some(b > a)),
                    SAddI32 => {
                        let (r, o) = ai.overflowing_add(bi);
                        (r as u32, Some(o))
                    }
                    SSubI32 => {
                        let (r, o) = ai.overflowing_sub(bi);
                        (r as u32, Some(o))
                    }
                    SMulI32 => (ai.wrapping_mul(bi) as u32, None),
                    SMulHiU32 => (((u64::from(a) * u64::from(b)) >> 32) as u32, None),
                    SMinI32 => (ai.min(bi) as u32, Some(ai < bi)),
                    SMaxI32 => (ai.max(bi) as u32, Some(ai > bi)),
                    SLshlB32 => {
                        let r = a << (b & 31);
                        (r, Some(r != 0))
                    }
                    SLshrB32 => {
                        let r = a >> (b & 31);
                        (r, Some(r != 0))
                    }
                    SAndB32 => (a & b, Some(a & b != 0)),
                    _ => (a | b, Some(a | b != 0)),
                };
                self.write_scalar(w, at(0), d, line);
                if scc.is_some() {
                    w.scc = scc;
                }
            }
            SCmp(cmp, signed) => {
                let a = self.scalar(w, at(0), line);
                let b = self.scalar(w, at(1), line);
                let ord = if signed {
                    (a as i32).cmp(&(b as i32))
                } else {
                    a.cmp(&b)
                };
                use std::cmp::Ordering::*;
                w.scc = Some(match cmp {
                    Cmp::Eq => ord == Equal,
                    Cmp::Lg => ord != Equal,
                    Cmp::Gt => ord == Greater,
                    Cmp::Ge => ord != Less,
                    Cmp::Lt => ord == Less,
                    Cmp::Le => ord != Greater,
                });
            }
            SCselectB32 => {
                let a = self.scalar(w, at(1), line);
                let b = self.scalar(w, at(2), line);
                let scc = self.scc(w, line);
                self.write_scalar(w, at(0), if scc { a } else { b }, line);
            }
            VReadfirstlaneB32 => {
                let r = self.vgpr_of(at(1), line);
                self.check_vgpr_read(w, r, line);
                let first = w.exec.trailing_zeros() as usize;
                let v = Self::lane_value(w, &Src::Vector(r), first);
                self.write_scalar(w, at(0), v, line);
            }
            VMovB32 | VRcpF32 | VCvtF32I32 => {
                let s = self.vsrc(w, at(1), inst.op.is_float(), line);
                let d = self.vgpr_of(at(0), line);
                self.check_vgpr_write(w, d, line);
                let x = Self::lanes(w, &s);
                let mut r = [0u32; WAVE];
                match inst.op {
                    VMovB32 => r = x,
                    VRcpF32 => {
                        for (o, a) in r.iter_mut().zip(x) {
                            *o = self.float.rcp(f32::from_bits(a)).to_bits();
                        }
                    }
                    _ => {
                        for (o, a) in r.iter_mut().zip(x) {
                            let f = a as i32 as f32;
                            if f64::from(f) != f64::from(a as i32) {
                                self.float.inexact = true;
                            }
                            *o = f.to_bits();
                        }
                    }
                }
                Self::set_lanes(w, d, &r);
            }
            VLshlrevB32 | VLshrrevB32 | VAddU32 | VSubU32 | VAndB32 | VOrB32 | VXorB32
            | VAddF32 | VSubF32 | VMulF32 | VMaxF32 | VMinF32 => {
                let float = inst.op.is_float();
                let a = self.vsrc(w, at(1), float, line);
                let b = self.vsrc(w, at(2), float, line);
                let d = self.vgpr_of(at(0), line);
                self.check_vgpr_write(w, d, line);
                let (x, y) = (Self::lanes(w, &a), Self::lanes(w, &b));
                let mut r = [0u32; WAVE];
                // One loop per operation: the operation is chosen once per instruction.
                let each = |r: &mut [u32; WAVE], f: &dyn Fn(u32, u32) -> u32| {
                    for ((o, a), b) in r.iter_mut().zip(x).zip(y) {
                        *o = f(a, b);
                    }
                };
                let float_op =
                    |r: &mut [u32; WAVE], f: fn(f32, f32) -> f32, wide: fn(f64, f64) -> f64| {
                        let mut inexact = false;
                        for ((o, a), b) in r.iter_mut().zip(x).zip(y) {
                            let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
                            let v = f(fa, fb);
                            let exact = wide(f64::from(fa), f64::from(fb));
                            inexact |= exact.is_finite() && f64::from(v) != exact;
                            *o = v.to_bits();
                        }
                        inexact
                    };
                let mut inexact = false;
                match inst.op {
                    VLshlrevB32 => each(&mut r, &|a, b| b << (a & 31)),
                    VLshrrevB32 => each(&mut r, &|a, b| b >> (a & 31)),
                    VAddU32 => each(&mut r, &|a, b| a.wrapping_add(b)),
                    VSubU32 => each(&mut r, &|a, b| a.wrapping_sub(b)),
                    VAndB32 => each(&mut r, &|a, b| a & b),
                    VOrB32 => each(&mut r, &|a, b| a | b),
                    VXorB32 => each(&mut r, &|a, b| a ^ b),
                    VAddF32 => inexact = float_op(&mut r, |a, b| a + b, |a, b| a + b),
                    VSubF32 => inexact = float_op(&mut r, |a, b| a - b, |a, b| a - b),
                    VMulF32 => inexact = float_op(&mut r, |a, b| a * b, |a, b| a * b),
                    VMaxF32 => each(&mut r, &|a, b| {
                        f32::from_bits(a).max(f32::from_bits(b)).to_bits()
                    }),
                    _ => each(&mut r, &|a, b| {
                        f32::from_bits(a).min(f32::from_bits(b)).to_bits()
                    }),
                }
                self.float.inexact |= inexact;
                Self::set_lanes(w, d, &r);
            }
            VAddCoU32 | VAddcCoU32 => {
                let a = self.vsrc(w, at(2), false, line);
                let b = self.vsrc(w, at(3), false, line);
                let carry_in = if inst.op == VAddcCoU32 {
                    match w.vcc {
                        Some(v) => v,
                        None => {
                            self.problem(line, "reads VCC, which nothing wrote");
                            0
                        }
                    }
                } else {
                    0
                };
                let d = self.vgpr_of(at(0), line);
                self.check_vgpr_write(w, d, line);
                let (x, y) = (Self::lanes(w, &a), Self::lanes(w, &b));
                let mut r = [0u32; WAVE];
                let mut vcc = 0u64;
                for (l, ((o, a), b)) in r.iter_mut().zip(x).zip(y).enumerate() {
                    let sum = u64::from(a) + u64::from(b) + ((carry_in >> l) & 1);
                    *o = sum as u32;
                    vcc |= (sum >> 32) << l;
                }
                Self::set_lanes(w, d, &r);
                w.vcc = Some(vcc & w.exec);
            }
            VFmaF32 => {
                let a = self.vsrc(w, at(1), true, line);
                let b = self.vsrc(w, at(2), true, line);
                let c = self.vsrc(w, at(3), true, line);
                let d = self.vgpr_of(at(0), line);
                self.check_vgpr_write(w, d, line);
                let (x, y, z) = (Self::lanes(w, &a), Self::lanes(w, &b), Self::lanes(w, &c));
                let mut r = [0u32; WAVE];
                for (((o, a), b), c) in r.iter_mut().zip(x).zip(y).zip(z) {
                    let f = f32::from_bits;
                    *o = self.float.fma(f(a), f(b), f(c)).to_bits();
                }
                Self::set_lanes(w, d, &r);
            }
            GlobalLoadDword | GlobalStoreDword | GlobalLoadLdsDword => {
                self.vector_memory(w, inst);
            }
            DsReadB32 | DsWriteB32 => self.lds_access(w, inst),
        }
    }

    fn vector_memory(&mut self, w: &mut Wave, inst: &Inst) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        let addr_operand = if inst.op == Op::GlobalStoreDword {
            at(0)
        } else {
            at(1 - usize::from(inst.op == Op::GlobalLoadLdsDword))
        };
        let addrs = self.addresses(w, addr_operand, inst.offset, line);
        let mut cells = Vec::with_capacity(addrs.len());
        for (l, a) in addrs.iter().enumerate() {
            match self.global_cell(*a, line, l) {
                Some(c) => cells.push(c),
                None => return,
            }
        }
        // One wave's vector-memory instructions reach global memory in issue order (the compiler
        // inserts no wait between a store and a later load of the same address: the hardware
        // keeps them in order): their global accesses are performed at issue, in flight only for
        // other waves. What lands when they retire is a load's VGPR and an LDS DMA's LDS write,
        // which retire in issue order.
        let domain = u32::from(w.index) * 4;
        let actor_wave = w.index;
        let global = |reads: Vec<Cell>, writes: Vec<Cell>, values: Vec<u32>| Issue {
            line,
            wave: actor_wave,
            domain,
            order: Order::InOrder,
            reads,
            writes,
            values,
        };
        let (issue, lds_write, writeback) = match inst.op {
            Op::GlobalLoadDword => {
                let d = self.vgpr_of(at(0), line);
                let values: Vec<u32> = self.memory.peek_all(&cells);
                (
                    global(cells, Vec::new(), Vec::new()),
                    None,
                    Some((d, values)),
                )
            }
            Op::GlobalStoreDword => {
                let Operand::Vgpr(data) = at(1) else {
                    return;
                };
                self.check_vgpr_read(w, data, line);
                let mut values = Self::lanes(w, &Src::Vector(data)).to_vec();
                values.truncate(cells.len());
                (global(Vec::new(), cells, values), None, None)
            }
            _ => {
                let Some(m0) = w.m0 else {
                    self.problem(line, "the LDS DMA's address is M0, which nothing wrote");
                    return;
                };
                let base = u64::from(m0).wrapping_add(inst.offset as u64);
                let Some(dst) = self.lds_cells(
                    (0..cells.len()).map(|l| base.wrapping_add(4 * l as u64)),
                    line,
                ) else {
                    return;
                };
                let values = self.memory.peek_all(&cells);
                let lds = Issue {
                    line,
                    wave: actor_wave,
                    domain,
                    order: Order::Fifo,
                    reads: Vec::new(),
                    writes: dst,
                    values,
                };
                (global(cells, Vec::new(), Vec::new()), Some(lds), None)
            }
        };
        let source = self.memory.issue(issue, &mut self.conflicts);
        let (op, source, dma) = match lds_write {
            Some(lds) => (
                self.memory.issue(lds, &mut self.conflicts),
                Some(source),
                true,
            ),
            None => (source, None, false),
        };
        self.log.conflicts(line, &mut self.conflicts);
        let ticket = self.ticket();
        let writeback = match writeback {
            Some((reg, values)) => {
                self.check_vgpr_write(w, reg, line);
                if let Some(p) = w.vgpr_pending.get_mut(reg as usize) {
                    *p = Some(ticket);
                }
                Writeback::Vgpr { reg, values }
            }
            None => Writeback::None,
        };
        w.vm.push_back(InFlight {
            ticket,
            op: Some(op),
            source,
            line,
            writeback,
            dma,
            smem: false,
        });
    }

    fn lds_access(&mut self, w: &mut Wave, inst: &Inst) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        let (addr_reg, read) = match inst.op {
            Op::DsReadB32 => (at(1), true),
            _ => (at(0), false),
        };
        let a = self.vgpr_of(addr_reg, line);
        self.check_vgpr_read(w, a, line);
        let addresses = Self::lanes(w, &Src::Vector(a));
        let offset = inst.offset as u64;
        let bytes = addresses
            .into_iter()
            .take(w.lanes)
            .map(|v| u64::from(v) + offset);
        let Some(cells) = self.lds_cells(bytes, line) else {
            return;
        };
        let domain = u32::from(w.index) * 4 + 1;
        let (issue, writeback) = if read {
            let d = self.vgpr_of(at(0), line);
            let values: Vec<u32> = self.memory.peek_all(&cells);
            // (A word whose write is in flight races instead.)
            let uninitialized = cells
                .iter()
                .find(|c| !self.memory.initialized(**c) && !self.memory.write_pending(**c))
                .copied();
            if let Some(c) = uninitialized {
                let place = self.contract.place(&self.memory, c);
                self.problem(
                    line,
                    format!("reads {place}, which nothing wrote (LDS starts undefined)"),
                );
            }
            (
                Issue {
                    line,
                    wave: w.index,
                    domain,
                    order: Order::InOrder,
                    reads: cells,
                    writes: Vec::new(),
                    values: Vec::new(),
                },
                Some((d, values)),
            )
        } else {
            let Operand::Vgpr(data) = at(1) else {
                return;
            };
            self.check_vgpr_read(w, data, line);
            let mut values = Self::lanes(w, &Src::Vector(data)).to_vec();
            values.truncate(cells.len());
            (
                Issue {
                    line,
                    wave: w.index,
                    domain,
                    order: Order::InOrder,
                    reads: Vec::new(),
                    writes: cells,
                    values,
                },
                None,
            )
        };
        let op = self.memory.issue(issue, &mut self.conflicts);
        self.log.conflicts(line, &mut self.conflicts);
        let ticket = self.ticket();
        let writeback = match writeback {
            Some((reg, values)) => {
                self.check_vgpr_write(w, reg, line);
                if let Some(p) = w.vgpr_pending.get_mut(reg as usize) {
                    *p = Some(ticket);
                }
                Writeback::Vgpr { reg, values }
            }
            None => Writeback::None,
        };
        w.lgkm.push_back(InFlight {
            ticket,
            op: Some(op),
            source: None,
            line,
            writeback,
            dma: false,
            smem: false,
        });
    }

    /// What is left in flight when a wave ends.
    fn end_wave(&mut self, w: &mut Wave) {
        while let Some(f) = w.vm.pop_front() {
            if f.dma {
                let cell = f.op.and_then(|o| self.memory.first_write(o));
                self.log.unawaited.push((f.line, cell));
                // Its LDS write never lands (the wave's LDS is gone); its source was read.
                if let Some(s) = f.source {
                    self.memory.complete(s);
                }
                continue;
            }
            self.retire(w, f);
        }
        while let Some(f) = w.lgkm.pop_front() {
            self.retire(w, f);
        }
    }
}

/// Executes the AMDGPU ISA kernel `text` under `contract`.
pub(crate) fn execute(text: &str, contract: &Contract, gfx: Gfx) -> Execution {
    let parsed = parse::parse(text, gfx.cpu(), gfx.lds_bytes());
    let mut log = Log::default();
    for (line, message) in &parsed.problems {
        log.problem(*line, message.clone());
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
    let d = &parsed.kernel.descriptor;
    let lds = spaces.len() as u16;
    spaces.push(Space::new(
        SpaceKind::Shared { name: None },
        vec![0; (d.group_segment / 4) as usize],
        false,
    ));
    let waves = contract.waves();
    let memory = Memory::new(spaces, waves as u16);
    let stop = if !parsed.problems.is_empty() {
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
    let mut m = Machine {
        insts: &parsed.kernel.insts,
        contract,
        memory,
        log,
        float: Float { inexact: false },
        conflicts: Vec::new(),
        arguments,
        lds,
        lds_bytes: d.group_segment,
        next_ticket: 0,
        stop,
        instructions: 0,
    };
    if m.stop.is_none() {
        run(&mut m, &parsed.kernel, contract);
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

fn run(m: &mut Machine, kernel: &parse::Kernel, contract: &Contract) {
    let d = &kernel.descriptor;
    let nv = d.next_free_vgpr.max(1) as usize;
    let ns = d.next_free_sgpr.max(3) as usize + 2;
    let lanes_total = contract.lanes as usize;
    let mut waves: Vec<Wave> = (0..contract.waves() as usize)
        .map(|k| {
            let lanes = (lanes_total - k * WAVE).min(WAVE);
            let mut w = Wave {
                index: k as u16,
                exec: if lanes >= 64 {
                    u64::MAX
                } else {
                    (1u64 << lanes) - 1
                },
                lanes,
                pc: kernel.entry,
                sgpr: vec![0; ns],
                sgpr_set: vec![false; ns],
                sgpr_pending: vec![None; ns],
                vgpr: vec![0; nv * WAVE],
                vgpr_set: vec![false; nv],
                vgpr_pending: vec![None; nv],
                m0: None,
                vcc: None,
                scc: None,
                vm: VecDeque::new(),
                lgkm: VecDeque::new(),
                ended: false,
                at_barrier: false,
            };
            let mut next = 0usize;
            if d.kernarg_ptr {
                for (i, v) in [KERNARG_BASE as u32, (KERNARG_BASE >> 32) as u32]
                    .into_iter()
                    .enumerate()
                {
                    if let (Some(x), Some(s)) = (w.sgpr.get_mut(i), w.sgpr_set.get_mut(i)) {
                        *x = v;
                        *s = true;
                    }
                }
                next = 2;
            }
            if d.workgroup_id_x {
                if let (Some(x), Some(s)) = (w.sgpr.get_mut(next), w.sgpr_set.get_mut(next)) {
                    *x = 0;
                    *s = true;
                }
            }
            for l in 0..lanes {
                if let Some(x) = w.vgpr.get_mut(l) {
                    *x = (k * WAVE + l) as u32;
                }
            }
            if let Some(s) = w.vgpr_set.first_mut() {
                *s = true;
            }
            w
        })
        .collect();
    loop {
        let mut progressed = false;
        for w in waves.iter_mut() {
            if w.ended || w.at_barrier {
                continue;
            }
            progressed = true;
            m.step(w);
            if w.ended {
                m.end_wave(w);
            }
            if m.stop.is_some() {
                return;
            }
            if m.instructions > contract.max_instructions {
                m.stop = Some(Stop::Limit(format!(
                    "the kernel ran more than {} wave-instructions",
                    contract.max_instructions
                )));
                return;
            }
        }
        if waves.iter().all(|w| w.ended) {
            return;
        }
        if !progressed {
            // Every live wave waits at a barrier: release them.
            m.memory.barrier();
            for w in waves.iter_mut() {
                w.at_barrier = false;
            }
        }
    }
}
