//! The memory instructions of one wave: vector memory (global loads and stores, LDS DMA), in
//! flight until `vmcnt` retires them in issue order; LDS and scalar loads, until `lgkmcnt` does;
//! and what a wave leaves in flight when it ends.

use super::parse::{Inst, Op, Operand};
use super::{global_base, InFlight, Machine, Src, Wave, Writeback, KERNARG_BASE, WAVE};
use crate::interp::RaceKind;
use crate::machine::memory::{Cell, Issue, Order};
use crate::machine::RacePlace;

impl Machine<'_> {
    /// A global address → (kernel argument's space, word), or a problem.
    pub(super) fn global_cell(&mut self, addr: u64, line: u32, lane: usize) -> Option<Cell> {
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
    pub(super) fn lds_cells(
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

    pub(super) fn lds_cell(&mut self, byte: u64, line: u32, lane: usize) -> Option<Cell> {
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
    pub(super) fn addresses(
        &mut self,
        w: &mut Wave,
        o: Operand,
        offset: i64,
        line: u32,
    ) -> Vec<u64> {
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

    pub(super) fn ticket(&mut self) -> u32 {
        self.next_ticket += 1;
        self.next_ticket
    }

    pub(super) fn retire(&mut self, w: &mut Wave, f: InFlight) {
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

    pub(super) fn waitcnt(&mut self, w: &mut Wave, inst: &Inst) {
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

    /// `s_load_dwordx2` from the kernel argument segment: the address of a global buffer, in
    /// flight (lgkmcnt) until a wait.
    pub(super) fn scalar_load(&mut self, w: &mut Wave, inst: &Inst) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        let (Operand::SgprPair(d), Operand::SgprPair(b), Operand::Imm(off)) = (at(0), at(1), at(2))
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

    pub(super) fn vector_memory(&mut self, w: &mut Wave, inst: &Inst) {
        let line = inst.line;
        let at = |i: usize| inst.operands.get(i).copied().unwrap_or(Operand::Off);
        let dma = matches!(inst.op, Op::GlobalLoadLdsDword | Op::GlobalLoadLdsDwordx4);
        if w.lanes_off {
            // Issued with EXEC = 0 (only an LDS DMA runs so, `runs_without_lanes`): counted by
            // vmcnt like any vector-memory instruction, touching no memory.
            let ticket = self.ticket();
            w.vm.push_back(InFlight {
                ticket,
                op: None,
                source: None,
                line,
                writeback: Writeback::None,
                dma: false,
                smem: false,
            });
            return;
        }
        let addr_operand = if inst.op == Op::GlobalStoreDword || !dma {
            at(usize::from(inst.op != Op::GlobalStoreDword))
        } else {
            at(0)
        };
        // Words a lane moves: 4 with dwordx4 (16 contiguous bytes from its address).
        let words = if inst.op == Op::GlobalLoadLdsDwordx4 {
            4
        } else {
            1
        };
        let addrs = self.addresses(w, addr_operand, inst.offset, line);
        let mut cells = Vec::with_capacity(addrs.len() * words);
        for (l, a) in addrs.iter().enumerate() {
            for k in 0..words {
                match self.global_cell(a.wrapping_add(4 * k as u64), line, l) {
                    Some(c) => cells.push(c),
                    None => return,
                }
            }
        }
        // One wave's vector-memory instructions reach global memory in issue order (the compiler
        // inserts no wait between a store and a later load of the same address: the hardware
        // keeps them in order): their global accesses are performed at issue, in flight only for
        // other waves. What lands when they retire is a load's VGPR and an LDS DMA's LDS write:
        // vmcnt retires them in issue order, but the model promises no order between two LDS
        // DMAs' writes of one word (as between two `cp.async` of one group, RFC 0077's commit
        // groups order nothing inside a group), so two in flight on one word race.
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
                let Some(values) = self.store_data(w, at(1), cells.len(), line) else {
                    return;
                };
                (global(Vec::new(), cells, values), None, None)
            }
            _ => {
                let Some(m0) = w.m0 else {
                    self.problem(line, "the LDS DMA's address is M0, which nothing wrote");
                    return;
                };
                let base = u64::from(m0).wrapping_add(inst.offset as u64);
                // Lane l's words land at M0 + offset + 4·words·l onwards: the LDS side of the
                // DMA is one run of the wave's lanes in order (IntrinsicsAMDGPU.td,
                // global_load_lds: lane i's `size` bytes at the LDS base + size · i).
                let Some(dst) = self.lds_cells(
                    (0..cells.len()).map(|k| base.wrapping_add(4 * k as u64)),
                    line,
                ) else {
                    return;
                };
                let values = self.memory.peek_all(&cells);
                let lds = Issue {
                    line,
                    wave: actor_wave,
                    domain,
                    order: Order::Unordered,
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
        let (ticket, writeback) = self.pending_writeback(w, writeback, line);
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

    pub(super) fn lds_access(&mut self, w: &mut Wave, inst: &Inst) {
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
            let Some(values) = self.store_data(w, at(1), cells.len(), line) else {
                return;
            };
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
        let (ticket, writeback) = self.pending_writeback(w, writeback, line);
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

    /// The values a store writes: its data register's, one per address.
    fn store_data(
        &mut self,
        w: &mut Wave,
        data: Operand,
        addresses: usize,
        line: u32,
    ) -> Option<Vec<u32>> {
        let Operand::Vgpr(data) = data else {
            return None;
        };
        self.check_vgpr_read(w, data, line);
        let mut values = Self::lanes(w, &Src::Vector(data)).to_vec();
        values.truncate(addresses);
        Some(values)
    }

    /// A memory instruction's ticket, and the register it writes when it retires (pending until
    /// then: reading it earlier is a race).
    fn pending_writeback(
        &mut self,
        w: &mut Wave,
        writeback: Option<(u16, Vec<u32>)>,
        line: u32,
    ) -> (u32, Writeback) {
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
        (ticket, writeback)
    }

    /// What is left in flight when a wave ends.
    pub(super) fn end_wave(&mut self, w: &mut Wave) {
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
