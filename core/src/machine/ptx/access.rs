//! Memory instructions of the block's threads: addresses resolved to the kernel's objects
//! (global buffers, shared and local windows), `ld`/`st` performed in program order, sm_80's
//! `cp.async` copies in flight until `cp.async.wait_group` completes their group, and the proxy
//! rules between ordinary stores and bulk copies.

use super::parse::{self, Inst, Operand};
use super::{get, global_base, on, Group, Machine, Mask, Object, V, WARP};
use crate::interp::RaceKind;
use crate::machine::memory::{Cell, Issue, Order, RunAccess, RunWaves};
use crate::machine::RacePlace;

impl Machine<'_> {
    /// The addresses of an address operand in the threads of `mask`: (thread, address).
    pub(super) fn addresses(
        &mut self,
        w: &Group,
        o: Operand,
        mask: &Mask,
        line: u32,
    ) -> Vec<(usize, u64)> {
        let (base, offset) = match o {
            Operand::AddrReg(r, off) => (self.src(w, Operand::Reg(r), line), off),
            Operand::AddrSym(s, off) => (V::U(self.symbol(s)), off),
            _ => {
                self.problem(line, "an address operand is `[register]` or `[symbol]`");
                return Vec::new();
            }
        };
        let mut out = Vec::with_capacity(w.lanes);
        let address = |l: usize| (l, get(w, base, l).wrapping_add(offset as u64));
        match mask {
            None => out.extend((0..w.lanes).map(address)),
            Some(_) => out.extend((0..w.lanes).filter(|l| on(mask, *l)).map(address)),
        }
        out
    }

    pub(super) fn object_of(&self, space: parse::Space, addr: u64) -> Option<Object> {
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
    pub(super) fn cell(
        &mut self,
        space: parse::Space,
        addr: u64,
        thread: u32,
        line: u32,
    ) -> Option<Cell> {
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
    pub(super) fn run(
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
    pub(super) fn fast_run(
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

    pub(super) fn run_cells(c0: Cell, n: u32) -> Vec<Cell> {
        (0..n)
            .map(|i| Cell {
                space: c0.space,
                word: c0.word + i,
            })
            .collect()
    }

    pub(super) fn cells(
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
    pub(super) fn proxy_access(&mut self, w: &Group, cells: &[Cell], write: bool, line: u32) {
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

    pub(super) fn load(&mut self, w: &mut Group, inst: &Inst, space: parse::Space, mask: &Mask) {
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
                &|i| addrs.get(i).map_or(0, |(l, _)| *l as u16),
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
    pub(super) fn load_run(
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
                let at = RunAccess {
                    space: c0.space,
                    start: c0.word,
                    line,
                    waves: RunWaves::Threads { per: 1 },
                };
                self.memory
                    .read_run(at, n, &mut values, &mut self.conflicts);
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

    pub(super) fn store(&mut self, w: &mut Group, inst: &Inst, space: parse::Space, mask: &Mask) {
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
                let at = RunAccess {
                    space: c0.space,
                    start: c0.word,
                    line,
                    waves: RunWaves::Threads { per: 1 },
                };
                self.memory.write_run(at, &values, &mut self.conflicts);
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
            &|i| addrs.get(i).map_or(0, |(l, _)| *l as u16),
            &mut self.conflicts,
        );
        self.log.conflicts(line, &mut self.conflicts);
    }

    /// `cp.async.ca` / `.cg` of 4, 8 or 16 bytes: one operation per thread (each thread's copies
    /// are its own, completed by its own waits), reading and writing `size / 4` words from each
    /// address, which must be aligned to the size.
    pub(super) fn cp_async(&mut self, w: &mut Group, inst: &Inst, mask: &Mask) {
        let line = inst.line;
        let [d, s, n, ..] = inst.ops;
        let size = match n {
            Operand::Imm(n) if [4, 8, 16].contains(&n) => n as u64,
            _ => 4,
        };
        let dst = self.addresses(w, d, mask, line);
        let src = self.addresses(w, s, mask, line);
        for ((thread, da), (_, sa)) in dst.iter().zip(&src) {
            if da % size != 0 || sa % size != 0 {
                self.problem(
                    line,
                    format!("thread {thread}: a cp.async of {size} bytes needs addresses aligned to {size} bytes ({da:#x}, {sa:#x})"),
                );
                return;
            }
        }
        let words = size / 4;
        for ((thread, da), (_, sa)) in dst.iter().zip(&src) {
            let spread = |a: u64| (0..words).map(move |k| a + 4 * k);
            let mut writes = Vec::with_capacity(words as usize);
            let mut reads = Vec::with_capacity(words as usize);
            for a in spread(*da) {
                let Some(c) = self.cell(parse::Space::Shared, a, *thread as u32, line) else {
                    return;
                };
                writes.push(c);
            }
            for a in spread(*sa) {
                let Some(c) = self.cell(parse::Space::Global, a, *thread as u32, line) else {
                    return;
                };
                reads.push(c);
            }
            let values = self.memory.peek_all(&reads);
            let id = self.memory.issue(
                Issue {
                    line,
                    wave: *thread as u16,
                    domain: (*thread / WARP) as u32 * 4 + 2,
                    order: Order::Unordered,
                    reads,
                    writes,
                    values,
                },
                &mut self.conflicts,
            );
            w.uncommitted.push((id, line));
        }
        self.log.conflicts(line, &mut self.conflicts);
    }

    pub(super) fn wait_group(&mut self, w: &mut Group, keep: usize) {
        while w.groups.len() > keep {
            if let Some(g) = w.groups.pop_front() {
                for (id, _) in g {
                    self.memory.complete(id);
                }
            }
        }
    }
}
