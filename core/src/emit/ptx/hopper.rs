//! sm_90a: commit groups with bulk copies arm one mbarrier per ring slot of their queue with the
//! bytes they deliver; a wait completes, oldest first, the barrier phases of the groups it needs —
//! statically outside the body loop, with the phase bits kept in registers inside it.

use super::{Gen, MAX_TX_BYTES};
use crate::emit::mbarriers::{self, QueueState};
use crate::emit::{EmittedWait, IrWait, Item};

impl Gen<'_> {
    /// A commit scope opens: if its group issues bulk copies, arm the group's barrier with the bytes
    /// they will deliver, once every thread is done with the slot being refilled.
    pub(super) fn hopper_open(&mut self, queue: i64, rest: &[Item]) {
        let mut copies = 0i64;
        let mut depth = 0;
        for it in rest {
            match it {
                Item::Open(_) => depth += 1,
                Item::Commit(_) if depth == 0 => break,
                Item::Commit(_) => depth -= 1,
                Item::Stmt(s) if depth == 0 && mbarriers::is_bulk_copy(self.program, s) => {
                    copies += 1
                }
                _ => {}
            }
        }
        if copies == 0 {
            emit!(
                self,
                "// group of queue {queue}: no bulk copy, so no barrier to arm or wait on"
            );
            return;
        }
        let bytes = copies * self.lanes * 4;
        if bytes > MAX_TX_BYTES {
            self.error.get_or_insert_with(|| format!("a commit group of queue {queue} moves {bytes} bytes; one mbarrier phase counts at most {MAX_TX_BYTES}"));
        }
        let Some(h) = &self.hopper else { return };
        let k = h.plan.slots.get(&queue).copied().unwrap_or(1);
        let bar = match h.state.as_ref() {
            Some(state) => {
                let slot = state.get(&queue).map_or(0, |s| s.committed.rem_euclid(k));
                barrier_operand(queue, slot)
            }
            None => {
                let (slot, addr) = (self.r(), self.r());
                emit!(self, "rem.s32 {slot}, %cq{queue}, {k};");
                emit!(self, "mad.lo.s32 {addr}, {slot}, 8, %r_mbar_q{queue};");
                addr
            }
        };
        self.out.instr("fence.proxy.async;  // this block's earlier ordinary stores are ordered before the bulk copies");
        self.out.instr("bar.sync 0;  // every thread is done with the slot being refilled and has passed its earlier waits");
        emit!(
            self,
            "@%p_lead mbarrier.arrive.expect_tx.shared::cta.b64 %rd_state, [{bar}], {bytes};"
        );
        if let Some(h) = &mut self.hopper {
            h.open.push((queue, bar));
        }
    }

    pub(super) fn hopper_commit(&mut self, queue: i64) {
        let Some(h) = &mut self.hopper else { return };
        let Some(at) = h.open.iter().rposition(|(q, _)| *q == queue) else {
            return;
        };
        h.open.remove(at);
        match h.state.as_mut() {
            Some(state) => state.entry(queue).or_default().committed += 1,
            None => emit!(self, "add.s32 %cq{queue}, %cq{queue}, 1;  // commit"),
        }
    }

    /// `wait(queue, count)`: complete, oldest first, every barrier group but the newest ones the
    /// plan lets stay in flight. The mbarrier phase completing also makes the bulk-copied tile
    /// visible to the waiting thread, so no `bar.sync` follows.
    pub(super) fn hopper_wait(&mut self, ir: IrWait) {
        let (queue, count, id) = (ir.queue, ir.count, ir.id);
        let line = self.out.stmts.len();
        let Some(h) = &mut self.hopper else { return };
        let site = h.next_wait;
        h.next_wait += 1;
        let keep = h.plan.keep.get(site).copied().unwrap_or(0);
        let loose = h.plan.loose.get(site).copied().unwrap_or(false);
        let slots = h.plan.slots.get(&queue).copied();
        // Outside the loop the groups to await are known: [awaited, committed - keep).
        let known = h.state.as_mut().map(|state| {
            let s = state.entry(queue).or_default();
            let range = (s.awaited, s.committed - keep);
            s.awaited = s.awaited.max(range.1);
            range
        });
        let name = id.map_or("-".into(), |i| i.to_string());
        // Each queue's groups have barriers of their own: no other queue's wait completes them,
        // and what this one completes is [awaited, committed - keep) of its queue alone.
        h.waits.push(EmittedWait {
            line: line as u32,
            ir: vec![ir],
            immediate: None,
            exact: slots.is_some() && !loose,
            instances: h.repeats,
            completes: slots.is_some() && known.is_none_or(|(from, to)| to > from),
            isolated: slots.is_some(),
            ..EmittedWait::default()
        });
        let Some(k) = slots else {
            emit!(self, "// wait #{name} (queue {queue}, {count}): queue {queue} issues no bulk copy, nothing to wait for");
            return;
        };
        if loose {
            self.notes.push(format!(
                "wait #{name} (queue {queue}) keeps {} in flight at every instance; some instances could keep more",
                crate::english::count(keep, "barrier group")
            ));
        }
        let at_most = crate::english::count(count, "group");
        emit!(self, "// wait #{name} (queue {queue}): at most {at_most} in flight, {keep} of them with a barrier");
        if let Some((from, to)) = known {
            for g in from..to {
                self.await_group(queue, g, k);
            }
            return;
        }
        let Some(h) = &mut self.hopper else { return };
        h.labels += 1;
        let n = h.labels;
        let (next, done, spin) = (
            format!("$W{n}_next"),
            format!("$W{n}_done"),
            format!("$W{n}_spin"),
        );
        let (target, slot, addr, parity, bit) = (self.r(), self.r(), self.r(), self.r(), self.r());
        let (p, ready) = (self.p(), self.p());
        emit!(self, "sub.s32 {target}, %cq{queue}, {keep};");
        self.out.line(format!("{next}:"));
        emit!(self, "setp.ge.s32 {p}, %wq{queue}, {target};");
        emit!(self, "@{p} bra {done};");
        emit!(self, "rem.s32 {slot}, %wq{queue}, {k};");
        emit!(self, "mad.lo.s32 {addr}, {slot}, 8, %r_mbar_q{queue};");
        emit!(self, "shr.b32 {parity}, %ph{queue}, {slot};");
        emit!(self, "and.b32 {parity}, {parity}, 1;");
        self.out.line(format!("{spin}:"));
        emit!(
            self,
            "mbarrier.try_wait.parity.shared::cta.b64 {ready}, [{addr}], {parity};"
        );
        emit!(self, "@!{ready} bra {spin};");
        emit!(self, "shl.b32 {bit}, 1, {slot};");
        emit!(self, "xor.b32 %ph{queue}, %ph{queue}, {bit};");
        emit!(self, "add.s32 %wq{queue}, %wq{queue}, 1;");
        emit!(self, "bra {next};");
        self.out.line(format!("{done}:"));
    }

    /// Waits for barrier group `g` of `queue` where its slot and phase are known statically.
    pub(super) fn await_group(&mut self, queue: i64, g: i64, k: i64) {
        let (slot, parity) = (g.rem_euclid(k), (g / k) % 2);
        let Some(h) = &mut self.hopper else { return };
        h.labels += 1;
        let spin = format!("$W{}_spin", h.labels);
        let ready = self.p();
        self.out.line(format!(
            "{spin}:  // group {g} of queue {queue}: slot {slot}, phase {parity}"
        ));
        emit!(
            self,
            "mbarrier.try_wait.parity.shared::cta.b64 {ready}, [{}], {parity};",
            barrier_operand(queue, slot)
        );
        emit!(self, "@!{ready} bra {spin};");
    }

    /// A block must not exit while a bulk copy still writes its shared memory.
    pub(super) fn drain(&mut self) {
        let Some(h) = &self.hopper else { return };
        let pending: Vec<(i64, QueueState, i64)> = h
            .state
            .iter()
            .flatten()
            .filter(|(_, s)| s.in_flight() > 0)
            .filter_map(|(q, s)| h.plan.slots.get(q).map(|k| (*q, *s, *k)))
            .collect();
        for (q, s, k) in pending {
            emit!(self, "// queue {q}: groups still in flight at the end are awaited before the block exits");
            for g in s.awaited..s.committed {
                self.await_group(q, g, k);
            }
        }
    }
}

pub(super) fn barrier_operand(queue: i64, slot: i64) -> String {
    if slot == 0 {
        format!("mbar_q{queue}")
    } else {
        format!("mbar_q{queue}+{}", slot * 8)
    }
}
