//! Warming the WebAssembly code up in idle time after the first render. V8 compiles WebAssembly with
//! its baseline compiler first and optimizes a function only once it has run enough: without this,
//! the first large exploration of a page runs in baseline code, about three times slower, and makes
//! a long task. Explorations of loops of the same kind, dropped, make V8 optimize the functions exploring runs
//! most. They run in idle callbacks, a few milliseconds each, and yield to the user: none runs while
//! a recomputation is scheduled or its results are pending, or within a second of an edit
//! (docs/limits.md, "The first large exploration of a page").
//!
//! A text too large to explore in baseline code (`waits`: a page opened with a large loop in it,
//! or one pasted early) is not explored until the warm-up has finished: the text is shown at once,
//! the panes say that the explorer is being prepared, and the warm-up runs its steps without its
//! pauses, one idle callback after another.

use crate::ctx::Ctx;
use crate::dom;
use leptos::prelude::*;
use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::workloads::heavy_chain as chain;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The loops explored to warm up, one per step (`workloads::heavy_chain`'s statements, largest
/// stage and iterations, as `scripts/heavy_loop.py` takes them):
/// small first, as the first exploration of a kind also compiles its code (in a page opened with a
/// large text, the first step is the page's first exploration);
/// more iterations than stages, so that the pipeline has a body as well as its prologue and
/// epilogue.
const STEPS: [(usize, usize, usize); 12] = [
    (2, 2, 4),
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

// The largest text explored before the warm-up has finished (`waits`), in bytes, lines, and lines
// times stages: the largest loops whose cold exploration in a fresh page fits a frame, by each
// measure, with every preset within all three (a test checks it).
/// The largest text explored in baseline code, in bytes.
const COLD_BYTES: usize = 4096;
/// The largest text explored in baseline code, in lines.
const COLD_LINES: usize = 64;
/// The largest text explored in baseline code, in lines times (stages + 1).
const COLD_LINE_STAGES: usize = 512;

/// The largest stage a `software_pipeline_stage` annotation of `text` names (0 if none), read
/// without parsing: any number on such a line counts, which can only overestimate.
fn stages(text: &str) -> usize {
    text.lines()
        .filter(|l| l.contains(stagecraft::schedule::STAGE_KEY))
        .flat_map(|l| l.split(|c: char| !c.is_ascii_digit()))
        .filter_map(|n| n.parse::<usize>().ok())
        .max()
        .unwrap_or(0)
}

/// Whether exploring `text` waits for the warm-up: in baseline code its exploration may be a long
/// task. What a pipeline costs grows with its statements and with its stages, as every step of the
/// prologue and epilogue is written out; a cheap bound on both (lines, bytes and the largest stage
/// named), since exploring is what must not run yet.
pub fn waits(text: &str) -> bool {
    if text.len() > COLD_BYTES {
        return true;
    }
    let lines = text.lines().count();
    lines > COLD_LINES || lines * (stages(text).min(COLD_LINE_STAGES) + 1) > COLD_LINE_STAGES
}

/// While a text waits, a chain verified and then simulated after the exploring steps: else the
/// page's first verification runs in baseline code and makes a long task.
const RUNS_STEP: (usize, usize, usize) = (8, 8, 16);

/// While a text waits, the memory its exploration will use is written first, a chunk per idle
/// callback: growing and first writing the memory inside the exploration's task made it long, and
/// writing all of it at once would be a long task of its own.
const MEMORY_CHUNK: usize = 4 << 20;
/// How many `MEMORY_CHUNK`s are written: with room above what the largest loop within the limits
/// uses.
const MEMORY_CHUNKS: usize = 6;

/// How long after an edit of the text the warm-up stays paused.
const QUIET_MS: f64 = 1000.0;

/// How often a paused warm-up looks again whether it may run.
const RETRY_MS: f64 = 100.0;

/// The longest wait for an idle period, in milliseconds.
const IDLE_TIMEOUT_MS: u32 = 200;

/// The longest a task of several warm-up steps is meant to take, in milliseconds: on a busy machine
/// (the optimizing compiler runs meanwhile) one step can take ten times the one before it, and
/// two such in one task made a long one.
const SLICE_MS: f64 = 12.0;

struct Warm {
    ctx: Ctx,
    /// The exploration of `RUNS_STEP`, verified, to be simulated in the next step.
    runs: RefCell<Option<Exploration>>,
    /// Memory written while a text waits (`MEMORY_CHUNKS`).
    memory: RefCell<Vec<Vec<u8>>>,
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
        // Reading, not only tracking: the memo, computed first by another reader after this
        // effect's first run, would notify it as if the text had been edited (and the warm-up
        // waited a second after the page loaded). A copy, as the editor reads it: one more way
        // of reading the memo costs its own code in the bundle.
        drop(ctx.text.get());
        // The first run is the text loaded, not an edit.
        if first.is_some() {
            edited.set_value(dom::now_ms());
        }
    });
    let warm = Rc::new(Warm {
        ctx,
        runs: RefCell::new(None),
        memory: RefCell::new(Vec::new()),
        options: Box::new(options),
        scheduled: Box::new(scheduled),
        edited,
    });
    // From the first exploration published on, or at once when the text waits for the warm-up:
    // the first render is never delayed (an idle callback runs after it). Once started, the effect
    // reads nothing and never runs again.
    Effect::new(move |started: Option<bool>| {
        if started == Some(true) {
            return true;
        }
        let ready = ctx.current.with(Option::is_some) || ctx.preparing.get();
        if ready {
            when_idle(warm.clone(), 0);
        }
        ready
    });
}

/// Runs step `step` in the browser's next idle period, or after `IDLE_TIMEOUT_MS` at the latest:
/// Chromium may report no idle period for as long as the pointer rests where it clicked. A browser
/// without idle callbacks (Safari) runs it in a task of its own, with `SLICE_MS` as its idle
/// period: a large text waits for the warm-up, and must not wait forever.
fn when_idle(warm: Rc<Warm>, step: usize) {
    let Some(w) = dom::window() else {
        return;
    };
    let idle = js_sys::Reflect::has(&w, &JsValue::from_str("requestIdleCallback")).unwrap_or(false);
    if idle {
        let f = Closure::once_into_js(move |deadline: web_sys::IdleDeadline| {
            run(warm, step, &|| deadline.time_remaining())
        });
        let options = web_sys::IdleRequestOptions::new();
        options.set_timeout(IDLE_TIMEOUT_MS);
        let _ = w.request_idle_callback_with_options(f.unchecked_ref(), &options);
    } else {
        dom::in_a_task(Box::new(move || {
            let began = dom::now_ms();
            run(warm, step, &|| SLICE_MS - (dom::now_ms() - began));
        }));
    }
}

/// How long the user's work keeps the warm-up waiting, in milliseconds: until a second after the
/// last edit, or while a recomputation, its drawing, or its verification or timeline is pending;
/// `None` when it may run. Never while a text waits for the warm-up: the user is waiting for it.
fn wait_ms(warm: &Warm) -> Option<f64> {
    let ctx = warm.ctx;
    if ctx.preparing.get_untracked() {
        return None;
    }
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

/// Runs steps from `step` on while the next explores the same loop and the idle period and the
/// task's `SLICE_MS` have room for it (twice the last one's time: a step may take longer than the
/// one before), then asks for the next idle period. After the last, `finish`.
fn run(warm: Rc<Warm>, mut step: usize, idle_remaining: &dyn Fn() -> f64) {
    if step >= STEPS.len() {
        finish(warm, step - STEPS.len());
        return;
    }
    let began = dom::now_ms();
    // Nothing the user does can change them within this task (reading them copies the text).
    // The app's options but without emitting machine code, which is most of exploring a chain
    // and made steps too long; what emitting is given is built.
    let options = (warm.options)().without_code();
    while let Some(&(statements, stages, extent)) = STEPS.get(step) {
        if let Some(ms) = wait_ms(&warm) {
            // At most `RETRY_MS` at a time: a text pasted meanwhile may need the warm-up at once.
            dom::after_ms(
                ms.min(RETRY_MS).ceil() as u64,
                Box::new(move || when_idle(warm, step)),
            );
            return;
        }
        let t0 = dom::now_ms();
        timed_step(|| drop(explore(&chain(statements, stages, extent), &options)));
        step += 1;
        let now = dom::now_ms();
        let took = now - t0;
        // Only a step of the same loop is expected to take about as long.
        let same = STEPS.get(step) == Some(&(statements, stages, extent));
        if !same || idle_remaining() < 2.0 * took || now - began + 2.0 * took > SLICE_MS {
            break;
        }
    }
    when_idle(warm, step);
}

/// Runs one step, between performance marks (the browser tests and `e2e/fresh-load.mjs` list
/// them).
fn timed_step(f: impl FnOnce()) {
    dom::mark("stagecraft:warm-up");
    f();
    dom::mark("stagecraft:warmed");
    dom::measure(
        "stagecraft:warm-up-step",
        "stagecraft:warm-up",
        "stagecraft:warmed",
    );
}

/// Finishing step `k`, after the exploring steps, while a text waits for the warm-up: first a
/// small chain is explored and verified (`RUNS_STEP`), then simulated, then each step writes a
/// `MEMORY_CHUNK` until `MEMORY_CHUNKS` are held; then they are freed for the text's exploration,
/// which `app::schedule_recomputes` runs once the warm-up is marked done. Without a text waiting,
/// the warm-up is done at once.
fn finish(warm: Rc<Warm>, k: usize) {
    if !warm.ctx.preparing.get_untracked() || k >= 2 + MEMORY_CHUNKS {
        warm.runs.take();
        // Freed, the memory stays the page's (WebAssembly memory never shrinks): the allocator
        // hands it out again.
        warm.memory.borrow_mut().clear();
        warm.ctx.warmed.set(true);
        return;
    }
    timed_step(|| match k {
        0 => {
            let (statements, stages, extent) = RUNS_STEP;
            let ex = explore(
                &chain(statements, stages, extent),
                &(warm.options)().without_code(),
            );
            drop(stagecraft::explore::verification(&ex));
            *warm.runs.borrow_mut() = Some(ex);
        }
        1 => {
            if let Some(ex) = warm.runs.take() {
                drop(stagecraft::explore::timeline(&ex));
            }
        }
        _ => warm.memory.borrow_mut().push(vec![1; MEMORY_CHUNK]),
    });
    when_idle(warm, STEPS.len() + k + 1);
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
    fn presets_are_explored_at_once_and_large_loops_wait() {
        for (name, text) in stagecraft_link::presets::PRESETS {
            assert!(!waits(text), "{name}");
        }
        // The loops of heavy_loop.py 24 8, 32 64, 64 2 and 159 64 64, as chain() writes them.
        assert!(!waits(&chain(24, 8, 64)));
        assert!(waits(&chain(32, 64, 64)));
        assert!(waits(&chain(64, 2, 64)));
        assert!(waits(&chain(159, 64, 64)));
        assert!(waits(&"# a comment\n".repeat(400)));
        assert_eq!(stages(&chain(24, 8, 64)), 8);
        assert_eq!(stages("for i in range(4):\n    B[i] = A[i]\n"), 0);
    }
}
