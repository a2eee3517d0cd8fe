//! sm_90a's mbarriers and bulk copies: initialization and its fence, arrivals with expected
//! bytes, `cp.async.bulk` completing tx-counts as late as a waiter allows, `try_wait.parity`, and
//! the deadlock of a phase that can never complete.

use super::parse::{self, Inst, Operand};
use super::{get, on, Barrier, Bulk, Group, Machine, Mask, WARP};
use crate::interp::RaceKind;
use crate::machine::memory::{Issue, Order};
use crate::machine::RacePlace;

impl Machine<'_> {
    /// The mbarrier at a shared address, checked for being visible to the threads using it.
    pub(super) fn barrier_at(&mut self, addr: u64, line: u32) -> Option<usize> {
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

    pub(super) fn uniform_address(
        &mut self,
        w: &Group,
        o: Operand,
        mask: &Mask,
        line: u32,
    ) -> Option<u64> {
        let addrs = self.addresses(w, o, mask, line);
        let first = addrs.first()?.1;
        if addrs.iter().any(|(_, a)| *a != first) {
            self.unsupported(line, "threads use different mbarriers at once");
            return None;
        }
        Some(first)
    }

    pub(super) fn uniform_value(
        &mut self,
        w: &Group,
        o: Operand,
        mask: &Mask,
        line: u32,
    ) -> Option<u64> {
        let v = self.src(w, o, line);
        let mut values = (0..w.lanes).filter(|l| on(mask, *l)).map(|l| get(w, v, l));
        let first = values.next()?;
        if values.any(|x| x != first) {
            self.unsupported(line, "an mbarrier operand that differs between threads");
            return None;
        }
        Some(first)
    }

    pub(super) fn active(w: &Group, mask: &Mask) -> Vec<usize> {
        (0..w.lanes).filter(|l| on(mask, *l)).collect()
    }

    pub(super) fn mbarrier_init(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) {
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

    pub(super) fn arrive(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) {
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

    pub(super) fn bulk(&mut self, w: &Group, inst: &Inst, mask: &Mask) {
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
                    wave: self.contract.lanes as u16,
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
    pub(super) fn try_wait(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) -> Option<()> {
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

    pub(super) fn deadlock(&mut self, line: u32, inst: &Inst) {
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
}
