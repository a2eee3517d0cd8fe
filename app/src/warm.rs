//! Warming the WebAssembly code up in idle time after the first render. V8 compiles WebAssembly with
//! its baseline compiler first and optimizes a function only once it has run enough: without this,
//! the first large exploration of a page runs in baseline code (160 statements over 64 stages, in
//! the program pane: one task of 49–53 ms instead of 16–19 ms warm; 25–28 ms after the warm-up).
//! Explorations of loops of the same kind, dropped, make V8 optimize the functions exploring runs
//! most. They run in idle callbacks, a few milliseconds each, and yield to the user: none runs while
//! a recomputation is scheduled or its results are pending, or within a second of an edit
//! (docs/limits.md, "The first large exploration of a page").

use crate::ctx::Ctx;
use crate::dom;
use leptos::prelude::*;
use stagecraft::explore::{explore, Options};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The loops explored to warm up, one per step (`chain`'s statements, stages and iterations):
/// small first, as the first exploration of a kind also compiles its code; more iterations than
/// stages, so that the pipeline has a body as well as its prologue and epilogue.
const STEPS: [(usize, usize, usize); 11] = [
    (8, 8, 16),
    (16, 16, 24),
    (24, 24, 32),
    (32, 32, 40),
    (32, 32, 40),
    (32, 32, 40),
    (32, 32, 40),
    (32, 32, 40),
    (32, 32, 40),
    (32, 32, 40),
    (32, 32, 40),
];

/// How long after an edit of the text the warm-up stays paused.
const QUIET_MS: f64 = 1000.0;

/// How often the warm-up looks again whether a pending recomputation is done.
const RETRY_MS: f64 = 100.0;

/// The longest wait for an idle period, in milliseconds.
const IDLE_TIMEOUT_MS: u32 = 200;

/// The longest a task of several warm-up steps is meant to take, in milliseconds: a step of a few
/// milliseconds once the code is optimized took 40 ms once while the two cores were busy (with the
/// optimizing compiler, among others), and the one before it in the same task made that 53 ms.
const SLICE_MS: f64 = 12.0;

/// A chain of `statements` + 1 statements over `stages` stages (spread evenly, every stage but the
/// last asynchronous) and `extent` iterations: a small copy of the heavy schedules of
/// docs/limits.md (`scripts/heavy_loop.py`).
fn chain(statements: usize, stages: usize, extent: usize) -> String {
    let mut text = String::new();
    for k in 0..statements {
        text.push_str(&format!("T{k} = alloc([1])\n"));
    }
    text.push_str(&format!("for i in range({extent}):\n"));
    for k in 0..statements {
        match k {
            0 => text.push_str("    T0[0] = A[i] + 1\n"),
            _ => text.push_str(&format!("    T{k}[0] = T{}[0] + 1\n", k - 1)),
        }
    }
    text.push_str(&format!("    O[i] = T{}[0] + 1\n", statements - 1));
    let stage: Vec<String> = (0..=statements)
        .map(|k| {
            (k * (stages + 1) / (statements + 1))
                .min(stages)
                .to_string()
        })
        .collect();
    let order: Vec<String> = (0..=statements).map(|k| k.to_string()).collect();
    let asynchronous: Vec<String> = (0..stages).map(|s| s.to_string()).collect();
    text.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_stage\", [{}])\n",
        stage.join(", ")
    ));
    text.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_order\", [{}])\n",
        order.join(", ")
    ));
    text.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_async_stages\", [{}])\n",
        asynchronous.join(", ")
    ));
    text
}

struct Warm {
    ctx: Ctx,
    /// The options of the exploration the app would run now (form, code target).
    options: Box<dyn Fn() -> Options>,
    /// Whether a recomputation is scheduled and has not begun.
    scheduled: Box<dyn Fn() -> bool>,
    /// When the text was last edited (ms on the performance clock).
    edited: StoredValue<f64>,
}

/// Starts warming up once the first exploration is published and the page is idle.
pub fn start(
    ctx: Ctx,
    options: impl Fn() -> Options + 'static,
    scheduled: impl Fn() -> bool + 'static,
) {
    let edited = StoredValue::new(f64::NEG_INFINITY);
    Effect::new(move |first: Option<()>| {
        ctx.text.track();
        // The first run is the text loaded, not an edit.
        if first.is_some() {
            edited.set_value(dom::now_ms());
        }
    });
    let warm = Rc::new(Warm {
        ctx,
        options: Box::new(options),
        scheduled: Box::new(scheduled),
        edited,
    });
    // From the first exploration published on: the first render is never delayed. Once started,
    // the effect reads nothing and never runs again.
    Effect::new(move |started: Option<bool>| {
        if started == Some(true) {
            return true;
        }
        let ready = ctx.current.with(Option::is_some);
        if ready {
            when_idle(warm.clone(), 0);
        }
        ready
    });
}

/// Runs step `step` in the browser's next idle period, or after `IDLE_TIMEOUT_MS` at the latest:
/// Chromium may report no idle period for as long as the pointer rests where it clicked.
fn when_idle(warm: Rc<Warm>, step: usize) {
    let f =
        Closure::once_into_js(move |deadline: web_sys::IdleDeadline| run(warm, step, &deadline));
    if let Some(w) = dom::window() {
        let options = web_sys::IdleRequestOptions::new();
        options.set_timeout(IDLE_TIMEOUT_MS);
        let _ = w.request_idle_callback_with_options(f.unchecked_ref(), &options);
    }
}

/// How long the user's work keeps the warm-up waiting, in milliseconds: until a second after the
/// last edit, or while a recomputation, its drawing, or its verification or timeline is pending;
/// `None` when it may run.
fn wait_ms(warm: &Warm) -> Option<f64> {
    let ctx = warm.ctx;
    let since_edit = dom::now_ms() - warm.edited.get_value();
    if since_edit < QUIET_MS {
        return Some(QUIET_MS - since_edit);
    }
    let explored = ctx
        .st
        .with_untracked(|s| ctx.explored_text.with_untracked(|t| *t == s.text));
    let pending = (warm.scheduled)()
        || !explored
        || ctx.current.with_untracked(Option::is_none)
        || ctx.pending_untracked(ctx.verification)
        || ctx.pending_untracked(ctx.timeline);
    pending.then_some(RETRY_MS)
}

/// The app's options for a warm-up step. Without the code of a target: emitting a chain is most of
/// exploring it (3–4 times the cost without), which made steps of up to 45 ms; with both printed
/// forms instead, so that the peeled program that emitting needs is built, as when the app emits.
fn step_options(app: Options) -> Options {
    Options {
        both_forms: app.both_forms || !app.targets.is_empty(),
        targets: Vec::new(),
        ..app
    }
}

/// Runs steps from `step` on while the next explores the same loop and the idle period and the
/// task's `SLICE_MS` have room for it (twice the last one's time: a step may take longer than the
/// one before), then asks for the next idle period.
fn run(warm: Rc<Warm>, mut step: usize, deadline: &web_sys::IdleDeadline) {
    let began = dom::now_ms();
    // Nothing the user does can change them within this task (reading them copies the text).
    let options = step_options((warm.options)());
    while let Some(&(statements, stages, extent)) = STEPS.get(step) {
        if let Some(ms) = wait_ms(&warm) {
            set_timeout(
                move || when_idle(warm, step),
                std::time::Duration::from_millis(ms.ceil() as u64),
            );
            return;
        }
        let t0 = dom::now_ms();
        dom::mark("stagecraft:warm-up");
        drop(explore(&chain(statements, stages, extent), &options));
        dom::mark("stagecraft:warmed");
        dom::measure(
            "stagecraft:warm-up-step",
            "stagecraft:warm-up",
            "stagecraft:warmed",
        );
        step += 1;
        let now = dom::now_ms();
        let took = now - t0;
        // Only a step of the same loop is expected to take about as long.
        let same = STEPS.get(step) == Some(&(statements, stages, extent));
        if !same || deadline.time_remaining() < 2.0 * took || now - began + 2.0 * took > SLICE_MS {
            break;
        }
    }
    if step < STEPS.len() {
        when_idle(warm, step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_explores_a_pipelined_chain_of_its_size() {
        for (statements, stages, extent) in STEPS {
            let ex = explore(&chain(statements, stages, extent), &Options::default());
            assert!(ex.ok, "{:?}", ex.diagnostics);
            let p = ex.pipeline.as_ref().expect("a pipeline");
            assert_eq!(p.units.len(), statements + 1);
            assert_eq!(p.stages, stages as i64);
            assert_eq!(p.async_stages, (0..stages as i64).collect::<Vec<_>>());
            assert_eq!(p.extent, Some(extent as i64));
            assert!(extent > stages, "the pipeline has a body");
        }
    }

    #[test]
    fn steps_emit_no_code_but_build_what_emitting_needs() {
        let app = Options {
            both_forms: false,
            targets: vec![stagecraft::emit::Target::Ptx],
            ..Options::default()
        };
        let step = step_options(app.clone());
        assert!(step.targets.is_empty() && step.both_forms);
        assert_eq!((step.form, step.defer_runs), (app.form, app.defer_runs));
        let ex = explore(&chain(12, 12, 20), &step);
        assert!(ex.code.is_empty() && ex.peeled.is_some());
        // Without a code target, the app's options as they are.
        let program = Options {
            targets: Vec::new(),
            ..app
        };
        assert_eq!(step_options(program.clone()), program);
    }
}
