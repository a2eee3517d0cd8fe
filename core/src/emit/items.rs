//! The walk over a flattened program's items that the emitters with one wait sequence share (AMDGPU
//! ISA, AMDGPU LLVM IR, PTX): consecutive waits become one wait point of the `Stream`, written as a
//! placeholder `@W{g}@` that the stream's exact counts replace later, and loops are entered and left
//! on the stream around their bodies. Each emitter says only what its statements, commits and loops
//! are in its own instructions.

use super::sequence::Stream;
use super::{Item, Lines, Stmt};

pub(crate) trait ItemEmitter {
    /// What a loop's head hands to its tail: labels, state saved for the body.
    type Loop;
    /// The wait sequence and the lines written so far.
    fn sink(&mut self) -> (&mut Stream, &mut Lines);
    fn statement(&mut self, s: &Stmt);
    /// A commit scope of `queue` opens; `rest` are the items after it.
    fn open(&mut self, queue: i64, rest: &[Item]);
    fn commit(&mut self, queue: i64);
    /// A wait the emitter implements itself (sm_90a's mbarriers) instead of a wait point of the
    /// stream; `false` when it does not.
    fn own_wait(&mut self, _wait: &Item) -> bool {
        false
    }
    /// A derived barrier (`Item::Barrier`); targets whose threads read only their own values
    /// need none and write nothing.
    fn barrier(&mut self, _kinds: &[crate::ir::BarrierKind]) {}
    fn loop_head(&mut self, lo: i64, hi: i64) -> Self::Loop;
    fn loop_tail(&mut self, head: Self::Loop);
}

/// Emits `items` through `e`, in order.
pub(crate) fn walk_items<E: ItemEmitter>(e: &mut E, items: &[Item]) {
    let mut at = 0;
    while let Some(it) = items.get(at) {
        at += 1;
        match it {
            Item::Stmt(s) => e.statement(s),
            Item::Open(q) => e.open(*q, items.get(at..).unwrap_or(&[])),
            Item::Commit(q) => e.commit(*q),
            Item::Barrier(kinds) => e.barrier(kinds),
            Item::Wait { .. } if e.own_wait(it) => {}
            Item::Wait { .. } => {
                let (stream, out) = e.sink();
                let (point, next) = stream.wait_point(items, at - 1, out.stmts.len());
                at = next;
                out.instr_args(format_args!("@W{point}@"));
            }
            Item::Loop { lo, hi, body, .. } => {
                let head = e.loop_head(*lo, *hi);
                let outer = e.sink().0.enter_loop();
                walk_items(e, body);
                e.sink().0.leave_loop(outer, *lo, *hi);
                e.loop_tail(head);
            }
        }
    }
}
