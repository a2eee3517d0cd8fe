//! The machine-level check of the kernel the Code pane shows (`explore::machine_check`): run after
//! the exploration that emitted it is drawn, in a task of its own, only while the pane shows a
//! machine target, and within the main thread's budget (`budget::MACHINE_INSTRUCTIONS`).

use crate::ctx::Ctx;
use crate::model::budget::MACHINE_INSTRUCTIONS;
use crate::model::deferred::Ran;
use leptos::prelude::*;
use stagecraft_link::Pane;
use std::sync::Arc;

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
        crate::dom::in_a_task(Box::new(move || {
            let still = ctx
                .good
                .with_untracked(|g| g.as_ref().is_some_and(|g| Arc::ptr_eq(g, &ex)))
                && ctx.target.with_untracked(|t| t.machine()) == Some(target);
            if !still {
                return;
            }
            let report = stagecraft::explore::machine_check(&ex, target, MACHINE_INSTRUCTIONS);
            ctx.machine.set(Some(Ran {
                of: ex,
                value: report.map(Arc::new),
            }));
        }));
    });
}
