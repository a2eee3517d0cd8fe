//! The root component: where the state comes from, when it is explored again, and the page layout.

use crate::ctx::Ctx;
use crate::state::State;
use crate::{dom, editor, focus, grid, header, panes, persist, problems};
use leptos::prelude::*;
use stagecraft::emit::Target;
use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::pipelined::Form;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A recomputation longer than a frame, run on every frame of typing, would make typing stutter:
/// above this the app waits for a pause in typing instead.
pub const FRAME_MS: f64 = 16.0;

/// The longest task one keystroke may cause (the browser reports tasks over 50 ms as long): an
/// exploration whose writing and rendering would exceed it waits for a pause in typing too, and
/// its result is written in a task of its own.
pub const TASK_MS: f64 = 40.0;

/// An edit that changes the text's length by more than this (a paste) explores after a pause, like
/// a slow exploration: in the next animation frame its exploration, which may be the first slow one,
/// shared one task with drawing the pasted text (one of 82–88 ms pasting 64 statements into the
/// default example, in 3 of 7 runs).
pub const LARGE_EDIT_BYTES: usize = 1024;

/// A panic in wasm would silently kill the page: show it in a banner instead.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        leptos::logging::error!("{info}");
        if let Some(el) = dom::by_id("panic") {
            el.set_text_content(Some(&format!(
                "Stagecraft hit an internal error and stopped: {info}. Your work is saved in this browser; reload to continue."
            )));
            let _ = el.set_attribute("class", "banner error");
        }
    }));
}

/// What an exploration is computed from. The code target counts only while the Code pane shows
/// it: emitting every target on every keystroke was most of the cost of a large loop.
#[derive(Clone, PartialEq)]
struct Inputs {
    text: String,
    form: String,
    params: BTreeMap<String, i64>,
    emitted: Option<String>,
}

impl Inputs {
    fn of(s: &State) -> Inputs {
        Inputs {
            text: s.text.clone(),
            form: s.form.clone(),
            params: s.params.clone(),
            emitted: (s.pane == "code" && s.target != "tir").then(|| s.target.clone()),
        }
    }

    fn options(&self) -> Options {
        let targets: Vec<Target> = self
            .emitted
            .as_deref()
            .and_then(Target::parse)
            .into_iter()
            .collect();
        Options {
            params: self.params.clone(),
            form: if self.form == "peeled" {
                Form::Peeled
            } else {
                Form::Rolled
            },
            targets,
            both_forms: false,
            ..Options::default()
        }
    }

    /// Whether races, waits and lines of `self` still mean the same as those of `other`.
    fn same_program(&self, other: &Inputs) -> bool {
        self.text == other.text && self.form == other.form && self.params == other.params
    }
}

/// Explores the current text and publishes the result; marks the time to the updated DOM.
fn recompute(ctx: Ctx, last: StoredValue<Option<Inputs>>) {
    dom::mark("stagecraft:recompute");
    let inputs = ctx.st.with_untracked(Inputs::of);
    let t0 = dom::now_ms();
    let ex = Arc::new(explore(&inputs.text, &inputs.options()));
    let ms = dom::now_ms() - t0;
    let first = ctx.current.with_untracked(|c| c.is_none());
    ctx.recompute_ms.set(ms);
    // Exploring may fit a frame while writing and rendering its result do not: a 160-statement
    // loop explored in 12 ms and then took 34 ms more to style, lay out and paint, every keystroke.
    let whole_task = ms + ctx.drawing_estimate_ms(ms);
    let slow = !first && (ms > FRAME_MS || whole_task > TASK_MS);
    if ctx.slow.get_untracked() != slow {
        ctx.slow.set(slow);
    }
    if slow {
        // The DOM update is a task of its own after a long exploration: the two together would
        // hold the main thread for longer than either (a large loop: 40 ms + 30 ms), and a
        // keystroke can be handled between them.
        set_timeout(
            move || publish(ctx, last, inputs, ex, None),
            std::time::Duration::ZERO,
        );
    } else {
        publish(ctx, last, inputs, ex, Some((t0, ms)));
    }
}

/// Shows a new exploration: the panes' effects update the DOM; marks the time to the updated DOM.
/// `explored` (when it began, how long it took) is given when exploring, writing and rendering run
/// in one frame, so that their cost relative to exploring can be measured.
fn publish(
    ctx: Ctx,
    last: StoredValue<Option<Inputs>>,
    inputs: Inputs,
    ex: Arc<Exploration>,
    explored: Option<(f64, f64)>,
) {
    ctx.explored_text.set(inputs.text.clone());
    if ex.ok {
        // Race and wait indices belong to the program they came from.
        let same = last.with_value(|l| l.as_ref().is_some_and(|l| l.same_program(&inputs)));
        if !same && ctx.selection.get_untracked().is_some() {
            ctx.selection.set(None);
        }
        last.set_value(Some(inputs));
        ctx.good.set(Some(ex.clone()));
    }
    ctx.current.set(Some(ex));
    // The panes' effects were woken by the signals set above and run as tasks of Leptos's executor,
    // in the order woken; a task spawned now runs after them (the second tick lets effects woken by
    // those effects run too). There the DOM is written: the "edit → updated DOM".
    leptos::task::spawn_local(async {
        leptos::task::tick().await;
        leptos::task::tick().await;
        dom::mark("stagecraft:dom");
        dom::measure(
            "stagecraft:recompute-to-dom",
            "stagecraft:recompute",
            "stagecraft:dom",
        );
        dom::measure(
            "stagecraft:edit-to-dom",
            "stagecraft:edit",
            "stagecraft:dom",
        );
    });
    // A timeout runs after the browser has also styled, laid out and painted that DOM (when the
    // recomputation ran in an animation frame).
    set_timeout(
        move || {
            // Small explorations are left out: fixed costs dominate their rendering, and a ratio
            // taken from them would call a mid-sized loop slow.
            if let Some((t0, ms)) = explored.filter(|&(_, ms)| ms >= FRAME_MS / 4.0) {
                let rendered = (dom::now_ms() - t0 - ms).max(0.0);
                ctx.render_per_explore_ms.set_value(rendered / ms);
            }
            dom::mark("stagecraft:painted");
            dom::measure(
                "stagecraft:edit-to-painted",
                "stagecraft:edit",
                "stagecraft:painted",
            );
            // The next measure starts from the next keystroke, not this one.
            dom::clear_mark("stagecraft:edit");
            dom::count_exploration();
        },
        std::time::Duration::ZERO,
    );
}

/// Recomputes when the text, form, parameters or shown code target change: on the next frame while that is fast,
/// after a pause in typing once it is not (typing never waits for a slow recomputation).
fn schedule_recomputes(ctx: Ctx) {
    let inputs = Memo::new(move |_| ctx.st.with(Inputs::of));
    let last = StoredValue::new(None::<Inputs>);
    let frame_requested = StoredValue::new(false);
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        // Reading (not only tracking) the memo: a memo never read never recomputes or notifies.
        let length = inputs.with(|i| i.text.len());
        let last_ms = ctx.recompute_ms.get_untracked();
        let large_edit = ctx
            .explored_text
            .with_untracked(|t| t.len().abs_diff(length) > LARGE_EDIT_BYTES);
        if ctx.slow.get_untracked() || large_edit {
            if let Some(h) = pending.try_update_value(|p| p.take()).flatten() {
                h.clear();
            }
            let wait = (last_ms * 2.0).clamp(150.0, 1000.0) as u64;
            let handle = set_timeout_with_handle(
                move || {
                    pending.set_value(None);
                    recompute(ctx, last);
                },
                std::time::Duration::from_millis(wait),
            )
            .ok();
            pending.set_value(handle);
        } else if !frame_requested.get_value() {
            frame_requested.set_value(true);
            request_animation_frame(move || {
                frame_requested.set_value(false);
                recompute(ctx, last);
            });
        }
    });
}

#[component]
pub fn App() -> impl IntoView {
    let start = persist::load();
    let ctx = Ctx::new(start.state.clone());
    provide_context(ctx);
    persist::autosave(ctx.st, start.state, start.from_link);
    schedule_recomputes(ctx);
    let banner = RwSignal::new(start.banner);
    let focus_css = move || {
        let selection = ctx.selection.get();
        let f = ctx
            .good
            .with(|ex| ex.as_ref().map(|ex| focus::focus(ex, selection)))
            .unwrap_or(focus::Focus::NONE);
        focus::css(ctx.hovered.get(), &f, selection)
    };
    view! {
        <style id="focus-style">{focus_css}</style>
        <div id="panic" class="hidden"></div>
        {move || banner.get().map(|b| view! {
            <div class="banner warn">{b}<button on:click=move |_| banner.set(None)>"×"</button></div>
        })}
        <header::Header/>
        <main>
            <section class="left">
                <editor::Editor/>
                <grid::Grid/>
                <problems::Problems/>
            </section>
            <section class="right">
                <panes::Panes/>
            </section>
        </main>
    }
}
