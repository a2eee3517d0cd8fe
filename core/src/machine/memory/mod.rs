//! Memory with operations in flight, shared by every target's executor.
//!
//! Memory is a set of *spaces* (one per kernel argument buffer, one per shared-memory object or
//! one LDS) of 4-byte words. An asynchronous operation — an LDS DMA, a `cp.async`, an ordinary
//! vector load or store whose completion the hardware counts — is issued with the words it reads
//! and the words it writes. Until it completes it may read its sources at any moment, and its
//! writes land only when it completes ("latest possible" completion: an operation completes only
//! when the executor, obeying a wait, says so). Every access in that window that could observe the
//! difference is a race:
//!
//! | race | when |
//! |---|---|
//! | read-after-write | a read of a word an operation in flight will write |
//! | write-after-read | a write of a word an operation in flight may still read |
//! | write-after-write | a write of a word an operation in flight will write |
//!
//! Operations of one *domain* (one hardware counter of one wave or thread) may be ordered among
//! themselves, which removes some of those races ([`Order`]). Per word the memory keeps counts of
//! pending reads and writes, so an access that races with nothing costs two array reads; only a
//! race walks the operations in flight to name the one it meets.
//!
//! Two waves (or warps) touching one word in one barrier interval, one of them writing, is a race
//! too: each word remembers the last wave that touched it and in which barrier interval.

use crate::interp::RaceKind;

mod touches;
use touches::Touch;
pub use touches::{RunAccess, RunWaves};

/// A word of memory: space and 4-byte index within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    pub space: u16,
    pub word: u32,
}

/// What a space holds, for naming its words in reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpaceKind {
    /// Kernel argument `param` (a global buffer of the contract, in order).
    Global { param: usize },
    /// Workgroup-shared memory: the whole LDS (`name` `None`, byte offsets as the ISA sees them),
    /// or one named object (`@lds_B` in LLVM IR, `sh_B` in PTX).
    Shared { name: Option<String> },
    /// PTX dynamic shared memory: the shared (not local) buffers laid out one after another.
    Dynamic,
    /// Thread-private memory of one named object (`loc_X` in PTX), element `e` of thread `t` at
    /// word `e · lanes + t`.
    Local { name: String },
}

/// How the operations of one domain are ordered among themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// They are performed in issue order, each at its issue (the LDS queue of one wave): within
    /// the domain no race is possible; only other domains see them in flight until they complete.
    InOrder,
    /// Nothing orders their effects while they are in flight (LLVM's async operations between
    /// two asyncmarks, the `cp.async` of one group, LDS DMAs: a counter that retires them in
    /// issue order says when they are known to have landed, not in which order their writes
    /// did): any conflict races.
    Unordered,
}

/// An operation to issue.
#[derive(Clone, Debug)]
pub struct Issue {
    /// 1-based line of the instruction in the kernel text.
    pub line: u32,
    /// Wave (or warp) that issued it.
    pub wave: u16,
    /// Hardware counter of that wave: operations of one domain are ordered by `order`.
    pub domain: u32,
    pub order: Order,
    pub reads: Vec<Cell>,
    pub writes: Vec<Cell>,
    /// What it writes to `writes`, word by word.
    pub values: Vec<u32>,
}

/// Identifies an operation in flight.
pub type OpId = u32;

/// The words an operation touches: a run of consecutive words of one space (an element tile of
/// a wave: the common case), or any list.
#[derive(Clone, Debug)]
enum Words {
    Run { space: u16, start: u32, len: u32 },
    List(Vec<Cell>),
}

impl Words {
    fn of(cells: &[Cell]) -> Words {
        let Some(first) = cells.first() else {
            return Words::List(Vec::new());
        };
        let run = cells.iter().enumerate().all(|(i, c)| {
            c.space == first.space && u64::from(c.word) == u64::from(first.word) + i as u64
        });
        if run {
            Words::Run {
                space: first.space,
                start: first.word,
                len: cells.len() as u32,
            }
        } else {
            Words::List(cells.to_vec())
        }
    }

    fn contains(&self, c: Cell) -> bool {
        match self {
            Words::Run { space, start, len } => {
                c.space == *space && c.word >= *start && c.word - start < *len
            }
            Words::List(l) => l.contains(&c),
        }
    }

    fn first(&self) -> Option<Cell> {
        match self {
            Words::Run { space, start, len } => (*len > 0).then_some(Cell {
                space: *space,
                word: *start,
            }),
            Words::List(l) => l.first().copied(),
        }
    }
}

#[derive(Clone, Debug)]
struct Op {
    /// Incremented each time the slot is reused, so that a word's record of its last pending
    /// writer or reader can tell a recycled slot from the operation it meant.
    generation: u32,
    line: u32,
    wave: u16,
    domain: u32,
    order: Order,
    reads: Words,
    writes: Words,
    /// What it writes, word by word in the order of `writes`.
    values: Vec<u32>,
    live: bool,
}

/// An access that met an operation in flight (or another wave's access).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub kind: RaceKind,
    pub cell: Cell,
    /// Line of the operation in flight, or of the other wave's last access to the word.
    pub other_line: u32,
    pub other_wave: u16,
    /// The wave (thread) whose access met the other side, when the memory knows it (an access
    /// of another wave in the same barrier interval).
    pub wave: Option<u16>,
    /// The other side is an operation in flight (not an earlier access by another wave).
    pub in_flight: bool,
}

/// Who accesses a word synchronously.
#[derive(Clone, Copy, Debug)]
pub struct Actor {
    pub line: u32,
    pub wave: u16,
}

/// What a word has in flight.
#[derive(Clone, Copy, Debug)]
struct WordState {
    written: bool,
    pending_reads: u16,
    pending_writes: u16,
    /// The last operation that put a pending read / write on the word (slot, generation): with
    /// one pending, it is the one to check, without walking the operations in flight.
    last_reader: (OpId, u32),
    last_writer: (OpId, u32),
}

impl WordState {
    fn new(written: bool) -> WordState {
        WordState {
            written,
            pending_reads: 0,
            pending_writes: 0,
            last_reader: (OpId::MAX, 0),
            last_writer: (OpId::MAX, 0),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Space {
    pub kind: SpaceKind,
    words: Vec<u32>,
    state: Vec<WordState>,
    touched: Vec<Touch>,
}

impl Space {
    pub fn new(kind: SpaceKind, initial: Vec<u32>, initialized: bool) -> Space {
        let n = initial.len();
        Space {
            kind,
            words: initial,
            state: vec![WordState::new(initialized); n],
            touched: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn words(&self) -> &[u32] {
        &self.words
    }
}

#[derive(Clone, Debug, Default)]
pub struct Memory {
    pub spaces: Vec<Space>,
    ops: Vec<Op>,
    free: Vec<OpId>,
    /// Barrier intervals passed so far (cross-wave accesses in different intervals are ordered).
    interval: u32,
    /// Waves in the kernel: with one, the cross-wave bookkeeping is skipped.
    waves: u16,
}

impl Memory {
    pub fn new(mut spaces: Vec<Space>, waves: u16) -> Memory {
        if waves > 1 {
            // Thread-private memory is never touched by another wave: its words need no record
            // (a tiled kernel's fragments are thread-private: each access skips a record).
            for s in spaces
                .iter_mut()
                .filter(|s| !matches!(s.kind, SpaceKind::Local { .. }))
            {
                s.touched = vec![Touch::default(); s.words.len()];
            }
        }
        Memory {
            spaces,
            ops: Vec::new(),
            free: Vec::new(),
            interval: 0,
            waves,
        }
    }

    /// Whether the cell exists.
    pub fn contains(&self, c: Cell) -> bool {
        self.spaces
            .get(c.space as usize)
            .is_some_and(|s| (c.word as usize) < s.len())
    }

    pub fn barrier(&mut self) {
        self.interval += 1;
    }

    fn word(&self, c: Cell) -> Option<&WordState> {
        self.spaces
            .get(c.space as usize)?
            .state
            .get(c.word as usize)
    }

    /// Does an operation in flight write the word?
    pub fn write_pending(&self, c: Cell) -> bool {
        self.word(c).is_some_and(|w| w.pending_writes > 0)
    }

    /// Was the word ever written (or initialized)?
    pub fn initialized(&self, c: Cell) -> bool {
        self.word(c).is_some_and(|w| w.written)
    }

    /// The operations in flight that conflict with an access to `c` by `domain` (`None`: a
    /// synchronous access, ordered with nothing in flight).
    fn conflicts(
        &self,
        c: Cell,
        write: bool,
        domain: Option<(u32, Order)>,
        out: &mut Vec<Conflict>,
    ) {
        let Some(state) = self.word(c).copied() else {
            return;
        };
        let pw = state.pending_writes;
        let pr = if write { state.pending_reads } else { 0 };
        if pw == 0 && pr == 0 {
            return;
        }
        // With one pending, the word names its operation; otherwise walk those in flight.
        let named = |last: Option<&(OpId, u32)>| {
            last.and_then(|(id, generation)| {
                self.ops
                    .get(*id as usize)
                    .filter(|o| o.live && o.generation == *generation)
            })
        };
        if pw == 1 && pr == 0 {
            if let Some(op) = named(Some(&state.last_writer)) {
                self.against(op, c, write, false, domain, out);
                return;
            }
        }
        if pw == 0 && pr == 1 {
            if let Some(op) = named(Some(&state.last_reader)) {
                self.against(op, c, write, true, domain, out);
                return;
            }
        }
        for op in self.ops.iter().filter(|o| o.live) {
            if pw > 0 && op.writes.contains(c) {
                self.against(op, c, write, false, domain, out);
            }
            if pr > 0 && op.reads.contains(c) {
                self.against(op, c, write, true, domain, out);
            }
        }
    }

    /// The race, if any, between an access to `c` and the operation in flight `op`, which
    /// writes `c` (or reads it, `op_reads`).
    fn against(
        &self,
        op: &Op,
        c: Cell,
        write: bool,
        op_reads: bool,
        domain: Option<(u32, Order)>,
        out: &mut Vec<Conflict>,
    ) {
        // Within an in-order domain everything is ordered; nothing else is.
        let ordered = domain.is_some_and(|(d, o)| d == op.domain && o == Order::InOrder);
        let kind = match (op_reads, write) {
            (true, _) => RaceKind::WriteAfterRead,
            (false, true) => RaceKind::WriteAfterWrite,
            (false, false) => RaceKind::ReadAfterWrite,
        };
        if !ordered {
            out.push(Conflict {
                kind,
                cell: c,
                other_line: op.line,
                other_wave: op.wave,
                wave: None,
                in_flight: true,
            });
        }
    }

    /// Synchronous reads of several words by threads in lockstep (`waves[i]` is the wave of the
    /// thread reading `cells[i]`): their current values, stale where a write is in flight.
    /// `None` when a word is outside every space.
    pub fn read_all(
        &mut self,
        cells: &[Cell],
        line: u32,
        waves: &dyn Fn(usize) -> u16,
        out: &mut Vec<Conflict>,
    ) -> Option<Vec<u32>> {
        let words = Words::of(cells);
        if !cells.iter().all(|c| self.contains(*c)) {
            return None;
        }
        self.check(&words, false, None, out);
        if self.waves > 1 {
            for (i, c) in cells.iter().enumerate() {
                let actor = Actor {
                    line,
                    wave: waves(i),
                };
                self.touch(*c, actor, false, out);
            }
        }
        Some(self.peek_all(cells))
    }

    /// `read_all` of a run of `len` words from `at` (an element tile): their values appended to
    /// `values`; `false` when the run is outside the space.
    pub fn read_run(
        &mut self,
        at: RunAccess,
        len: u32,
        values: &mut Vec<u32>,
        out: &mut Vec<Conflict>,
    ) -> bool {
        let (space, start) = (at.space, at.start);
        let range = start as usize..start as usize + len as usize;
        let Some(words) = self
            .spaces
            .get(space as usize)
            .and_then(|s| s.words.get(range))
        else {
            return false;
        };
        values.extend_from_slice(words);
        self.check(&Words::Run { space, start, len }, false, None, out);
        self.touch_run(at, len, false, out);
        true
    }

    /// `write_all` of a run of words from `at`; `false` outside the space.
    pub fn write_run(&mut self, at: RunAccess, values: &[u32], out: &mut Vec<Conflict>) -> bool {
        let (space, start) = (at.space, at.start);
        let len = values.len() as u32;
        let fits = self
            .spaces
            .get(space as usize)
            .is_some_and(|s| start as usize + values.len() <= s.len());
        if !fits {
            return false;
        }
        let words = Words::Run { space, start, len };
        self.check(&words, true, None, out);
        self.touch_run(at, len, true, out);
        self.mark(&words, values, |w, v| {
            w.written = true;
            Some(v)
        });
        true
    }

    /// Synchronous writes of several words by threads in lockstep (see `read_all`). Returns
    /// `false` when a word is outside every space (nothing is written then).
    pub fn write_all(
        &mut self,
        cells: &[Cell],
        values: &[u32],
        line: u32,
        waves: &dyn Fn(usize) -> u16,
        out: &mut Vec<Conflict>,
    ) -> bool {
        if !cells.iter().all(|c| self.contains(*c)) {
            return false;
        }
        let words = Words::of(cells);
        self.check(&words, true, None, out);
        if self.waves > 1 {
            for (i, c) in cells.iter().enumerate() {
                let actor = Actor {
                    line,
                    wave: waves(i),
                };
                self.touch(*c, actor, true, out);
            }
        }
        self.mark(&words, values, |w, v| {
            w.written = true;
            Some(v)
        });
        true
    }

    /// A synchronous read: the word's current value (stale if a write to it is in flight).
    /// `None` for a word outside every space.
    pub fn read(&mut self, c: Cell, actor: Actor, out: &mut Vec<Conflict>) -> Option<u32> {
        let v = self
            .spaces
            .get(c.space as usize)?
            .words
            .get(c.word as usize)
            .copied()?;
        self.conflicts(c, false, None, out);
        self.touch(c, actor, false, out);
        Some(v)
    }

    /// A synchronous write. Returns `false` for a word outside every space.
    pub fn write(&mut self, c: Cell, value: u32, actor: Actor, out: &mut Vec<Conflict>) -> bool {
        if !self.contains(c) {
            return false;
        }
        self.conflicts(c, true, None, out);
        self.touch(c, actor, true, out);
        self.store(c, value);
        true
    }

    fn store(&mut self, c: Cell, value: u32) {
        if let Some(s) = self.spaces.get_mut(c.space as usize) {
            if let (Some(w), Some(f)) = (
                s.words.get_mut(c.word as usize),
                s.state.get_mut(c.word as usize),
            ) {
                *w = value;
                f.written = true;
            }
        }
    }

    /// Issues an operation; its reads and writes must be cells that exist (the executor checks
    /// bounds first and reports the rest as problems). The values it writes were computed by the
    /// executor at issue, from the words it reads (`peek`).
    pub fn issue(&mut self, op: Issue, out: &mut Vec<Conflict>) -> OpId {
        let actor = Actor {
            line: op.line,
            wave: op.wave,
        };
        let domain = Some((op.domain, op.order));
        let multi = self.waves > 1;
        let values = op.values;
        let (reads, writes) = (Words::of(&op.reads), Words::of(&op.writes));
        // Checks first, against what was in flight before this operation.
        self.check(&reads, false, domain, out);
        self.check(&writes, true, domain, out);
        if multi {
            self.touch_words(&reads, actor, false, out);
            self.touch_words(&writes, actor, true, out);
        }
        // The slot the operation takes, and its generation, for the words' records.
        let (id, generation) = match self.free.pop() {
            Some(id) => (
                id,
                self.ops
                    .get(id as usize)
                    .map_or(0, |o| o.generation.wrapping_add(1)),
            ),
            None => {
                self.ops.push(Op {
                    generation: 0,
                    line: 0,
                    wave: 0,
                    domain: 0,
                    order: Order::Unordered,
                    reads: Words::List(Vec::new()),
                    writes: Words::List(Vec::new()),
                    values: Vec::new(),
                    live: false,
                });
                ((self.ops.len() - 1) as OpId, 0)
            }
        };
        let me = (id, generation);
        self.mark(&reads, &[], |w, _| {
            w.pending_reads = w.pending_reads.saturating_add(1);
            w.last_reader = me;
            None
        });
        // An in-order operation is performed at issue; others land when they complete.
        let at_issue = op.order == Order::InOrder;
        self.mark(&writes, &values, |w, v| {
            w.pending_writes = w.pending_writes.saturating_add(1);
            w.last_writer = me;
            at_issue.then(|| {
                w.written = true;
                v
            })
        });
        if let Some(o) = self.ops.get_mut(id as usize) {
            *o = Op {
                generation,
                line: op.line,
                wave: op.wave,
                domain: op.domain,
                order: op.order,
                reads,
                writes,
                values,
                live: true,
            };
        }
        id
    }

    /// Races of an access to `words` with what is in flight (only words with something pending
    /// are looked at closely).
    fn check(
        &self,
        words: &Words,
        write: bool,
        domain: Option<(u32, Order)>,
        out: &mut Vec<Conflict>,
    ) {
        let busy = |w: &WordState| w.pending_writes > 0 || (write && w.pending_reads > 0);
        match words {
            Words::Run { space, start, len } => {
                let Some(states) = self.spaces.get(*space as usize).and_then(|s| {
                    s.state
                        .get(*start as usize..*start as usize + *len as usize)
                }) else {
                    return;
                };
                for (i, w) in states.iter().enumerate() {
                    if busy(w) {
                        let c = Cell {
                            space: *space,
                            word: start + i as u32,
                        };
                        self.conflicts(c, write, domain, out);
                    }
                }
            }
            Words::List(cells) => {
                for &c in cells {
                    if self.word(c).is_some_and(busy) {
                        self.conflicts(c, write, domain, out);
                    }
                }
            }
        }
    }

    /// Applies `f` to the state of every word (with the value written there, if any); a
    /// returned value is stored in the word.
    fn mark(
        &mut self,
        words: &Words,
        values: &[u32],
        mut f: impl FnMut(&mut WordState, u32) -> Option<u32>,
    ) {
        match words {
            Words::Run { space, start, len } => {
                let Some(s) = self.spaces.get_mut(*space as usize) else {
                    return;
                };
                let range = *start as usize..*start as usize + *len as usize;
                let (Some(states), Some(data)) =
                    (s.state.get_mut(range.clone()), s.words.get_mut(range))
                else {
                    return;
                };
                for (i, (w, x)) in states.iter_mut().zip(data.iter_mut()).enumerate() {
                    if let Some(v) = f(w, values.get(i).copied().unwrap_or(0)) {
                        *x = v;
                    }
                }
            }
            Words::List(cells) => {
                for (i, c) in cells.iter().enumerate() {
                    if let Some(s) = self.spaces.get_mut(c.space as usize) {
                        if let (Some(w), Some(x)) = (
                            s.state.get_mut(c.word as usize),
                            s.words.get_mut(c.word as usize),
                        ) {
                            if let Some(v) = f(w, values.get(i).copied().unwrap_or(0)) {
                                *x = v;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Reads a run of thread-private words (PTX local memory: no operation is ever in flight on
    /// them and no other thread reaches them, so nothing is checked): their values, and the
    /// offset in the run of the first word nothing wrote. `None` outside the space.
    pub fn private_read(&self, space: u16, start: u32, len: u32) -> Option<(&[u32], Option<u32>)> {
        let s = self.spaces.get(space as usize)?;
        let range = start as usize..start as usize + len as usize;
        let (words, state) = (s.words.get(range.clone())?, s.state.get(range)?);
        let unwritten = state.iter().position(|w| !w.written).map(|i| i as u32);
        Some((words, unwritten))
    }

    /// Writes a run of thread-private words (see `private_read`); `false` outside the space.
    pub fn private_write(&mut self, space: u16, start: u32, values: &[u32]) -> bool {
        let Some(s) = self.spaces.get_mut(space as usize) else {
            return false;
        };
        let range = start as usize..start as usize + values.len();
        let (Some(words), Some(state)) = (s.words.get_mut(range.clone()), s.state.get_mut(range))
        else {
            return false;
        };
        words.copy_from_slice(values);
        for w in state {
            w.written = true;
        }
        true
    }

    /// The words' current values, without any race check (an operation's own reads at issue).
    pub fn peek_all(&self, cells: &[Cell]) -> Vec<u32> {
        if let Words::Run { space, start, len } = Words::of(cells) {
            if let Some(run) = self
                .spaces
                .get(space as usize)
                .and_then(|s| s.words.get(start as usize..(start + len) as usize))
            {
                return run.to_vec();
            }
        }
        cells.iter().map(|c| self.peek(*c).unwrap_or(0)).collect()
    }

    /// The word's current value, without any race check (for an operation's own reads at issue).
    pub fn peek(&self, c: Cell) -> Option<u32> {
        self.spaces
            .get(c.space as usize)?
            .words
            .get(c.word as usize)
            .copied()
    }

    /// Completes an operation: its writes land (unless performed at issue). Completing an
    /// operation twice does nothing. The words it writes are touched again by its wave in the
    /// current barrier interval: the data is published to other waves only by a barrier after
    /// its landing, which may be as late as this (adversarial completion) — an access of another
    /// wave before that barrier races with it. (What the landing itself meets was met at the
    /// issue or by the accesses while it was in flight, and is not reported twice.)
    pub fn complete(&mut self, id: OpId) {
        let Some(op) = self.ops.get_mut(id as usize).filter(|o| o.live) else {
            return;
        };
        op.live = false;
        if self.waves > 1 && op.order != Order::InOrder {
            let actor = Actor {
                line: op.line,
                wave: op.wave,
            };
            let writes = op.writes.clone();
            self.touch_words(&writes, actor, true, &mut Vec::new());
        }
        let Some(op) = self.ops.get_mut(id as usize) else {
            return;
        };
        let reads = std::mem::replace(&mut op.reads, Words::List(Vec::new()));
        let writes = std::mem::replace(&mut op.writes, Words::List(Vec::new()));
        let values = std::mem::take(&mut op.values);
        let land = op.order != Order::InOrder;
        self.mark(&reads, &[], |w, _| {
            w.pending_reads = w.pending_reads.saturating_sub(1);
            None
        });
        self.mark(&writes, &values, |w, v| {
            w.pending_writes = w.pending_writes.saturating_sub(1);
            land.then(|| {
                w.written = true;
                v
            })
        });
        self.free.push(id);
    }

    /// Line and wave of every operation still in flight, oldest slot first.
    pub fn in_flight(&self) -> Vec<(OpId, u32, u16)> {
        self.ops
            .iter()
            .enumerate()
            .filter(|(_, o)| o.live)
            .map(|(id, o)| (id as OpId, o.line, o.wave))
            .collect()
    }

    /// The first word an operation in flight writes (for reports of operations never awaited).
    pub fn first_write(&self, id: OpId) -> Option<Cell> {
        self.ops
            .get(id as usize)
            .filter(|o| o.live)
            .and_then(|o| o.writes.first())
    }

    /// The words of a space, for comparing outputs.
    pub fn space(&self, id: u16) -> Option<&Space> {
        self.spaces.get(id as usize)
    }
}

#[cfg(test)]
mod tests;
