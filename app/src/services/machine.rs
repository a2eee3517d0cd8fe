//! The machine-level check of the kernel the Code pane shows (`explore::machine_check_in_turns`):
//! run after the exploration that emitted it is drawn, only while the pane shows a machine target,
//! within `budget::MACHINE_INSTRUCTIONS`, and in turns of at most `budget::MACHINE_TURN_MS`, one
//! task each, so that checking a large kernel (80–130 ms in one task) never freezes the page.

use crate::ctx::Ctx;
use crate::model::budget::{MACHINE_INSTRUCTIONS, MACHINE_TURN_MS};
use crate::model::deferred::Ran;
use leptos::prelude::*;
use stagecraft::emit::Target;
use stagecraft::explore::{Exploration, MachineReport};
use stagecraft::machine::Turns;
use stagecraft_link::Pane;
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

pub fn start(ctx: Ctx) {
    Effect::new(move |_| {
        let Some(target) = ctx.target.with(|t| t.machine()) else {
            return;
        };
        if ctx.pane.get() != Pane::Code {
            return;
        }
        let Some(ex) = ctx.good.get() else {
            return;
        };
        // The exploration that emits this target is on its way.
        if !ex.code.iter().any(|c| c.target == target.name()) {
            return;
        }
        let done = ctx.machine.with_untracked(|m| {
            m.as_ref().is_some_and(|m| {
                m.belongs_to(&ex)
                    && m.value
                        .as_ref()
                        .is_some_and(|r| r.check.target == target.name())
            })
        });
        if done {
            return;
        }
        let check = check(ex.clone(), target);
        crate::dom::in_a_task(Box::new(move || take_turn(ctx, ex, target, check)));
    });
}

/// A check under way: it owns what it reads.
type Check = Pin<Box<dyn Future<Output = Option<MachineReport>>>>;

/// The check of the kernel `ex` emitted for `target`, ready for its first turn.
fn check(ex: Arc<Exploration>, target: Target) -> Check {
    Box::pin(async move {
        let turns = Turns::new(turn_over);
        stagecraft::explore::machine_check_in_turns(&ex, target, MACHINE_INSTRUCTIONS, &turns).await
    })
}

thread_local! {
    /// When the running turn ends (ms on the performance clock).
    static TURN_ENDS: Cell<f64> = const { Cell::new(0.0) };
}

fn turn_over() -> bool {
    crate::dom::now_ms() > TURN_ENDS.with(Cell::get)
}

/// Runs `check` for a turn of `ms` milliseconds at most (or to its end).
fn turn(check: &mut Check, ms: f64) -> Poll<Option<MachineReport>> {
    TURN_ENDS.with(|t| t.set(crate::dom::now_ms() + ms));
    check.as_mut().poll(&mut Context::from_waker(Waker::noop()))
}

/// Runs `check` for a turn; it goes on in the next task until it is done, unless the page has moved
/// on to another exploration or target meanwhile (then it is dropped).
fn take_turn(ctx: Ctx, ex: Arc<Exploration>, target: Target, mut check: Check) {
    let still = ctx
        .good
        .with_untracked(|g| g.as_ref().is_some_and(|g| Arc::ptr_eq(g, &ex)))
        && ctx.target.with_untracked(|t| t.machine()) == Some(target);
    if !still {
        return;
    }
    match turn(&mut check, MACHINE_TURN_MS) {
        Poll::Ready(report) => ctx.machine.set(Some(Ran {
            of: ex,
            value: report.map(Arc::new),
        })),
        Poll::Pending => {
            crate::dom::in_a_task(Box::new(move || take_turn(ctx, ex, target, check)));
        }
    }
}
