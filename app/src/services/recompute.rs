//! When the text is explored again, and how its results reach the page within the main thread's
//! budgets (`model::budget`): in the edit's own task while exploring is fast, after a pause in typing
//! once it is not; the verification and the timeline, most of a large loop's cost, right away when all of
//! it fits a frame, else each in a task of its own after the program is drawn.

use crate::ctx::Ctx;
use crate::dom::{self, after_drawing};
use crate::model::budget::{
    drawn_units, small_edit, DRAWING_MIN_UNITS, FRAME_MS, LARGE_EDIT_BYTES, TASK_MS,
};
use crate::model::deferred::Ran;
use crate::model::timing::Timing;
use leptos::prelude::*;
use stagecraft::emit::Target;
use stagecraft::explore::{Begun, CountOverride, Exploration, Options};
use stagecraft::timeline::Timeline;
use stagecraft::verify::Verification;
use stagecraft_link::{Form, Pane, State};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// The options of the exploration the app would run for `state` now (the warm-up explores with
/// them).
pub fn options(state: &State) -> Options {
    Inputs::of(state).options()
}

/// What an exploration is computed from. The code target counts only while the Code pane shows
/// it: emitting every target on every keystroke was most of the cost of a large loop.
#[derive(Clone, PartialEq)]
struct Inputs {
    text: String,
    form: Form,
    params: BTreeMap<String, i64>,
    /// Wait counts moved by hand: they change the program, as the text does.
    counts: Vec<CountOverride>,
    emitted: Option<Target>,
}

impl Inputs {
    fn of(s: &State) -> Inputs {
        Inputs {
            text: s.text.clone(),
            form: s.form,
            params: s.params.clone(),
            counts: s.counts.clone(),
            emitted: s.target.machine().filter(|_| s.pane == Pane::Code),
        }
    }

    fn options(&self) -> Options {
        Options {
            params: self.params.clone(),
            form: self.form,
            targets: self.emitted.into_iter().collect(),
            both_forms: false,
            defer_runs: true,
            count_overrides: self.counts.clone(),
            ..Options::default()
        }
    }

    /// Whether races, waits and lines of `self` still mean the same as those of `other`.
    fn same_program(&self, other: &Inputs) -> bool {
        self.text == other.text
            && self.form == other.form
            && self.params == other.params
            && self.counts == other.counts
    }
}

/// Whether computing for `ms`, then writing and drawing the result, fits one frame of typing and
/// one task.
fn fits(ctx: Ctx, ms: f64, ex: &Exploration) -> bool {
    // Exploring may fit a frame while writing and rendering its result do not: a large loop's
    // drawing costs a few times its exploring.
    ms <= FRAME_MS && ms + ctx.drawing_estimate_ms(ex) <= TASK_MS
}

/// Whether computing for `ms`, then writing and drawing the result, fits one frame: what is done
/// beyond exploring (the verification and the timeline) is done in the keystroke's frame only then,
/// else in tasks of their own right after it is drawn, so that an edit is painted within a frame.
fn fits_frame(ctx: Ctx, ms: f64, ex: &Exploration) -> bool {
    ms + ctx.drawing_estimate_ms(ex) <= FRAME_MS
}

/// Whether an exploration of `inputs` keeps the verification and the timeline shown: they are
/// those of the same program (only the code target differs), and not still pending.
fn keeps_runs(ctx: Ctx, last: StoredValue<Option<Inputs>>, inputs: &Inputs) -> bool {
    let same = last.with_value(|l| l.as_ref().is_some_and(|l| l.same_program(inputs)));
    same && !ctx.pending_untracked(ctx.verification) && !ctx.pending_untracked(ctx.timeline)
}

/// An exploration's verification and timeline, with the milliseconds each took.
struct Runs {
    verification: Option<Verification>,
    verify_ms: f64,
    timeline: Option<Timeline>,
    simulate_ms: f64,
}

impl Runs {
    fn of(ex: &Exploration) -> Runs {
        let (verification, verify_ms) = timed(|| stagecraft::explore::verification(ex));
        let (timeline, simulate_ms) = timed(|| stagecraft::explore::timeline(ex));
        Runs {
            verification,
            verify_ms,
            timeline,
            simulate_ms,
        }
    }
}

/// What `f` returns, and the milliseconds it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t0 = dom::now_ms();
    let value = f();
    (value, dom::now_ms() - t0)
}

/// Whether the text, now `length` bytes long, changed by more than `LARGE_EDIT_BYTES` since it
/// was last explored (a paste).
fn large_edit(ctx: Ctx, length: usize) -> bool {
    ctx.explored_text
        .with_untracked(|t| t.len().abs_diff(length) > LARGE_EDIT_BYTES)
}

/// Explores the current text and publishes the result; marks the time to the updated DOM. The
/// exploration's phases after the first (`Begun::step`: presenting, emitting machine code) run in
/// this task while it would take at most a frame, else each in a task of its own
/// (`explore_on`): together they were one task of up to 81 ms for a large loop. The verification
/// and the timeline are left out of the exploration: they are about half of a large loop's cost.
/// They are run right away when all of it fits a frame, else each in a task of its own after the
/// program is drawn (`run_later`); the page's first exploration's always so.
fn recompute(ctx: Ctx, last: StoredValue<Option<Inputs>>) {
    dom::mark("stagecraft:recompute");
    let inputs = ctx.st.with_untracked(Inputs::of);
    let serial = ctx.serial.get_value() + 1;
    ctx.serial.set_value(serial);
    let t0 = dom::now_ms();
    let begun = stagecraft::explore::begin(&inputs.text, &inputs.options());
    let begun_ms = dom::now_ms() - t0;
    // The page's first exploration, unless its text waited for the warm-up, runs in code not yet
    // compiled (V8 compiles a function of the module when it is first called): its phases always
    // go in tasks of their own (and it begins in one, `schedule_recomputes`).
    let first = serial == 1 && !ctx.warmed.get_untracked();
    let exploring = Exploring {
        inputs,
        serial,
        first,
        t0,
        ms: begun_ms,
        phase_ms: begun_ms,
        split: false,
    };
    explore_on(
        ctx,
        last,
        exploring,
        begun,
        if first { f64::NEG_INFINITY } else { t0 },
        false,
    );
}

/// Runs the phases `begun` has left, in this task (begun at `task_t0`; `fresh` when it has run no
/// phase yet) while the next would end it within a frame, the next in a task of its own once it
/// would not (a keystroke can be handled between them, and a newer recomputation replaces this
/// one); then publishes the exploration. A phase is expected to take as long as the one before:
/// presenting a large loop costs about what beginning it did (25.3 and 25.6 M instructions for
/// `159 64 64`), and beginning it within a frame then presenting it in the same task made one
/// task of 51 ms (`fresh-load.mjs`, the header's "exploring 50.0 ms").
fn explore_on(
    ctx: Ctx,
    last: StoredValue<Option<Inputs>>,
    mut exploring: Exploring,
    mut begun: Begun,
    task_t0: f64,
    mut fresh: bool,
) {
    loop {
        if !fresh && dom::now_ms() - task_t0 + exploring.phase_ms > FRAME_MS {
            exploring.split = true;
            dom::in_a_task(Box::new(move || {
                // A newer recomputation has begun: this one would never be shown.
                if ctx.serial.get_value() == exploring.serial {
                    explore_on(ctx, last, exploring, begun, dom::now_ms(), true);
                }
            }));
            return;
        }
        fresh = false;
        let t = dom::now_ms();
        let more = begun.step();
        exploring.phase_ms = dom::now_ms() - t;
        exploring.ms += exploring.phase_ms;
        if !more {
            break;
        }
    }
    explored(ctx, last, exploring, begun.finish());
}

/// An exploration made: what from, which recomputation (`Ctx::serial`), whether it is the page's
/// first, when it began, the milliseconds of its phases, and whether they ran in tasks of their
/// own.
struct Exploring {
    inputs: Inputs,
    serial: u64,
    /// The page's first exploration, in code not yet compiled.
    first: bool,
    t0: f64,
    ms: f64,
    /// The milliseconds of its last phase.
    phase_ms: f64,
    split: bool,
}

/// Publishes exploration `ex`, with its verification and timeline when they fit the frame.
fn explored(ctx: Ctx, last: StoredValue<Option<Inputs>>, exploring: Exploring, ex: Exploration) {
    let Exploring {
        inputs,
        serial,
        first,
        t0,
        ms,
        split,
        ..
    } = exploring;
    let ex = Arc::new(ex);
    let kept = ex.ok && keeps_runs(ctx, last, &inputs);
    let runs_estimate = if kept || !ex.ok {
        0.0
    } else {
        ctx.runs_ms.get_value()
    };
    // The first exploration also warms the WebAssembly code up: it is never called slow. It is
    // always drawn in a task of its own: its drawing is also the panes' first style and layout,
    // which the estimate from exploring does not foresee.
    let together = !first && !split && fits(ctx, ms, &ex);
    // The last runs' cost is an estimate for an edit of the same loop, not for a pasted one, whose
    // runs may cost many times those of the loop it replaced. The first runs, of code not yet
    // optimized, have no estimate (they cost more than ten times the next ones): they run later,
    // and `run_later` does not take their cost as the next runs' estimate.
    let pasted = large_edit(ctx, inputs.text.len());
    let runs_now =
        together && !first && ex.ok && !kept && !pasted && fits_frame(ctx, ms + runs_estimate, &ex);
    let runs = runs_now.then(|| Runs::of(&ex));
    let mut timing = Timing {
        serial,
        explore: ms,
        ..Timing::default()
    };
    let mut runs_ms = runs_estimate;
    if let Some(r) = &runs {
        timing.verify = Some(r.verify_ms);
        timing.simulate = Some(r.simulate_ms);
        runs_ms = r.verify_ms + r.simulate_ms;
        ctx.runs_ms.set_value(runs_ms);
    }
    ctx.timing.set(timing);
    let slow = !first && !fits(ctx, ms + runs_ms, &ex);
    if ctx.slow.get_untracked() != slow {
        ctx.slow.set(slow);
    }
    let explored = Explored {
        serial,
        inputs,
        ex,
        runs: None,
        measured: None,
        cold: first,
    };
    if together {
        // Only an edit of the program shown tells what its next edit costs to draw.
        let edited = ctx
            .explored_text
            .with_untracked(|t| small_edit(t, &explored.inputs.text))
            && last.with_value(|l| {
                l.as_ref().is_some_and(|l| {
                    l.form == explored.inputs.form && l.emitted == explored.inputs.emitted
                })
            });
        let measured = edited.then_some((t0, timing.total()));
        publish(
            ctx,
            last,
            Explored {
                runs,
                measured,
                ..explored
            },
        );
    } else {
        // The DOM update is a task of its own after a long exploration: the two together would
        // hold the main thread for longer than either, and a keystroke can be handled between
        // them.
        dom::in_a_task(Box::new(move || publish(ctx, last, explored)));
    }
}

/// An exploration to be shown, and how it was made.
struct Explored {
    /// Which recomputation it is (`Ctx::serial`).
    serial: u64,
    inputs: Inputs,
    ex: Arc<Exploration>,
    /// Its verification and timeline when they were computed with it; else those shown are kept
    /// (the same program) or computed later.
    runs: Option<Runs>,
    /// When exploring began and how long it took, given when exploring, writing and rendering run
    /// in one frame and the text is an edit of the program shown (`budget::small_edit`), so that
    /// their cost per unit drawn can be measured.
    measured: Option<(f64, f64)>,
    /// The page's first exploration, in code not yet optimized.
    cold: bool,
}

/// Shows a new exploration: the panes' effects update the DOM; marks the time to the updated DOM.
fn publish(ctx: Ctx, last: StoredValue<Option<Inputs>>, explored: Explored) {
    let Explored {
        serial,
        inputs,
        ex,
        runs,
        measured,
        cold,
    } = explored;
    ctx.explored_text.set(inputs.text.clone());
    let mut later = None;
    if ex.ok {
        // Race and wait indices belong to the program they came from.
        let same = last.with_value(|l| l.as_ref().is_some_and(|l| l.same_program(&inputs)));
        if !same && ctx.selection.get_untracked().is_some() {
            ctx.selection.set(None);
        }
        let kept = runs.is_none() && keeps_runs(ctx, last, &inputs);
        last.set_value(Some(inputs));
        ctx.good.set(Some(ex.clone()));
        match runs {
            Some(r) => {
                show(ctx.verification, &ex, r.verification);
                show(ctx.timeline, &ex, r.timeline);
                dom::count("data-ran");
            }
            None if kept => {
                // The same values, now of this exploration: what shows them draws the same.
                let v = ctx
                    .verification
                    .with_untracked(|v| v.as_ref().map(|v| v.kept_for(&ex)));
                let t = ctx
                    .timeline
                    .with_untracked(|t| t.as_ref().map(|t| t.kept_for(&ex)));
                ctx.verification.set(v);
                ctx.timeline.set(t);
                ctx.timing.update(|t| {
                    if t.serial == serial {
                        t.kept = true;
                    }
                });
                dom::count("data-ran");
            }
            None => later = Some(ex.clone()),
        }
    }
    let units = drawn_units(&ex);
    ctx.current.set(Some(ex));
    // The panes' effects were woken by the signals set above and run as tasks of Leptos's executor,
    // in the order woken; a task spawned now runs after them (the second tick lets effects woken by
    // those effects run too). There the DOM is written: the "edit → updated DOM".
    let written_at = Rc::new(Cell::new(f64::NAN));
    let written = written_at.clone();
    leptos::task::spawn_local(async move {
        leptos::task::tick().await;
        leptos::task::tick().await;
        written.set(dom::now_ms());
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
    // The browser styles, lays out and paints that DOM in its next frame; a timeout set in the
    // frame runs after it.
    crate::dom::before_drawing(Box::new(move || {
        let frame_at = dom::now_ms();
        dom::in_a_task(Box::new(move || {
            // Writing the DOM, then the frame's rendering (not the wait for the frame between
            // them), per unit drawn.
            if let Some((t0, ms)) = measured.filter(|_| units >= DRAWING_MIN_UNITS) {
                let writing = (written_at.get() - t0 - ms).max(0.0);
                let rendered = writing + (dom::now_ms() - frame_at);
                ctx.drawing
                    .update_value(|d| d.learn(rendered / units as f64));
            }
            dom::mark("stagecraft:painted");
            dom::measure(
                "stagecraft:edit-to-painted",
                "stagecraft:edit",
                "stagecraft:painted",
            );
            // The next measure starts from the next keystroke, not this one.
            dom::clear_mark("stagecraft:edit");
            dom::count("data-explored");
        }));
    }));
    if let Some(ex) = later {
        run_later(ctx, serial, ex, cold);
    }
}

/// Publishes `value` as the verification or the timeline (`signal`) of `ex`.
fn show<T: Send + Sync + 'static>(
    signal: RwSignal<Option<Ran<T>>>,
    ex: &Arc<Exploration>,
    value: Option<T>,
) {
    signal.set(Some(Ran {
        of: ex.clone(),
        value: value.map(Arc::new),
    }));
}

/// Computes `ex`'s verification and timeline (recomputation `serial`) in tasks of their own, the
/// first of each after the browser has drawn what came before it, the one the pane shown needs
/// first; the verification in its steps (`explore::verification_steps`: its runs, then its
/// judging, per N) and the timeline in its (`explore::timeline_steps`: one simulation each), one
/// per task, as a large loop's verification was one task of up to 85 ms and its timeline one of
/// up to 83. Each publishes its
/// result alone, so that only what shows it is drawn again in its task. An exploration no longer
/// `good` when a task starts has been replaced: its results would never be shown, and the newer
/// one has tasks of its own. `cold`: `ex` is the page's first exploration, in code not yet
/// optimized.
fn run_later(ctx: Ctx, serial: u64, ex: Arc<Exploration>, cold: bool) {
    let timeline_first = ctx.shown(Pane::Timeline);
    let explored = ex.clone();
    let still_good = {
        let ex = ex.clone();
        move || {
            ctx.good
                .with_untracked(|g| g.as_ref().is_some_and(|g| Arc::ptr_eq(g, &ex)))
        }
    };
    // Another recomputation (of a text with errors) may have begun meanwhile: its timing is not
    // this one's.
    let record = move |timeline: bool, ms: f64| {
        if ctx.timing.with_untracked(|t| t.serial == serial) {
            ctx.timing.update(|t| {
                if timeline {
                    t.simulate = Some(ms);
                } else {
                    t.verify = Some(ms);
                }
            });
        }
    };
    let verifying = Stepped::default();
    let simulating = Stepped::default();
    let step: Step = Rc::new(move |timeline: bool| {
        if !still_good() {
            return None;
        }
        let done = if timeline {
            simulating
                .step(
                    || stagecraft::explore::timeline_steps(&ex),
                    |s| stagecraft::explore::timeline_step(&ex, s),
                )
                .map(|(t, ms)| {
                    show(ctx.timeline, &ex, t);
                    record(true, ms);
                })
        } else {
            verifying
                .step(
                    || stagecraft::explore::verification_steps(&ex),
                    |s| stagecraft::explore::verification_step(&ex, s),
                )
                .map(|(v, ms)| {
                    show(ctx.verification, &ex, v);
                    record(false, ms);
                })
        };
        Some(done.is_some())
    });
    let second = step.clone();
    in_tasks(
        step,
        timeline_first,
        Box::new(move || {
            in_tasks(
                second,
                !timeline_first,
                Box::new(move || {
                    let timing = ctx.timing.get_untracked();
                    // As in `recompute`, the first exploration's cost is that of code not yet
                    // optimized.
                    if timing.serial == serial && !cold {
                        ctx.runs_ms.set_value(timing.total() - timing.explore);
                        let slow = !fits(ctx, timing.total(), &explored);
                        if ctx.slow.get_untracked() != slow {
                            ctx.slow.set(slow);
                        }
                    }
                    dom::count("data-ran");
                }),
            )
        }),
    );
}

/// Work done in steps over several tasks (the verification's, the timeline's): the steps, made at
/// the first, and the milliseconds taken so far.
struct Stepped<S> {
    steps: RefCell<Option<Option<S>>>,
    ms: Cell<f64>,
}

impl<S> Default for Stepped<S> {
    fn default() -> Self {
        Stepped {
            steps: RefCell::new(None),
            ms: Cell::new(0.0),
        }
    }
}

impl<S> Stepped<S> {
    /// Runs the next step (`next`; `begin` makes the steps, `None` when there is nothing to
    /// compute): the result after the last, `None` when there is none, and the milliseconds
    /// of every step.
    fn step<T>(
        &self,
        begin: impl FnOnce() -> Option<S>,
        next: impl FnOnce(&mut S) -> Option<T>,
    ) -> Option<(Option<T>, f64)> {
        let (result, ms) = timed(|| {
            let mut steps = self.steps.borrow_mut();
            match steps.get_or_insert_with(begin).as_mut() {
                None => Some(None),
                Some(s) => next(s).map(Some),
            }
        });
        self.ms.set(self.ms.get() + ms);
        result.map(|r| (r, self.ms.get()))
    }
}

/// One task's work on the verification (`false`) or the timeline (`true`): whether that half is
/// done, or `None` when its exploration was replaced.
type Step = Rc<dyn Fn(bool) -> Option<bool>>;

/// Runs `step` on one half after the browser has drawn, then again in a task of its own until the
/// half is done (`then` runs after it) or its exploration was replaced (nothing more runs).
fn in_tasks(step: Step, timeline: bool, then: Box<dyn FnOnce()>) {
    after_drawing(Box::new(move || continue_in_tasks(step, timeline, then)));
}

fn continue_in_tasks(step: Step, timeline: bool, then: Box<dyn FnOnce()>) {
    match step(timeline) {
        None => {}
        Some(true) => then(),
        // A task of its own, without waiting for a frame: input can be handled between them.
        Some(false) => dom::in_a_task(Box::new(move || continue_in_tasks(step, timeline, then))),
    }
}

/// Recomputes when the text, form, parameters or shown code target change: in the change's own task
/// while that is fast, after a pause in typing once it is not (typing never waits for a slow recomputation). A text
/// too large to explore before the warm-up has finished (`Ctx::preparing`) waits for it, then is
/// explored at once: the user has waited already. Returns whether a recomputation is scheduled and
/// has not begun.
/// Nothing is explored before `mounted`: the panes that show an exploration are the page's last
/// part mounted (`app::App`).
pub fn schedule_recomputes(ctx: Ctx, mounted: Memo<bool>) -> impl Fn() -> bool + Copy {
    let inputs = Memo::new(move |_| ctx.st.with(Inputs::of));
    let last = StoredValue::new(None::<Inputs>);
    let queued = StoredValue::new(false);
    let pending = StoredValue::new(None::<TimeoutHandle>);
    let waited = StoredValue::new(false);
    let cancel = move || {
        if let Some(h) = pending.try_update_value(|p| p.take()).flatten() {
            h.clear();
        }
    };
    // A recomputation queued before a large paste runs after it: the text then waits, and the
    // effect runs again once the warm-up has finished.
    let run = move || {
        if !ctx.preparing.get_untracked() {
            recompute(ctx, last);
        }
    };
    Effect::new(move |_| {
        if !mounted.get() {
            return;
        }
        // Reading (not only tracking) the memo: a memo never read never recomputes or notifies.
        let length = inputs.with(|i| i.text.len());
        if ctx.preparing.get() {
            // An earlier edit's recomputation would explore this text as it is by then.
            cancel();
            waited.set_value(true);
            return;
        }
        let last_ms = ctx.timing.with_untracked(Timing::total);
        let after_waiting = waited.get_value();
        waited.set_value(false);
        // The page's first: in a task of its own, not in the one that mounted the panes.
        let at_once = after_waiting || ctx.serial.get_value() == 0;
        if at_once || ctx.slow.get_untracked() || large_edit(ctx, length) {
            cancel();
            // In a task of its own, not in a frame with the browser's rendering; after waiting for
            // the warm-up, or the page's first, at once.
            let wait = if at_once {
                0
            } else {
                (last_ms * 2.0).clamp(150.0, 1000.0) as u64
            };
            let handle = set_timeout_with_handle(
                move || {
                    pending.set_value(None);
                    run();
                },
                std::time::Duration::from_millis(wait),
            )
            .ok();
            pending.set_value(handle);
        } else if !queued.get_value() {
            queued.set_value(true);
            // In the keystroke's own task, after the effects it woke: the browser draws the result
            // in its next frame, and exploring overlaps the wait for that frame (in the frame, it
            // came after it).
            leptos::task::spawn_local(async move {
                queued.set_value(false);
                run();
            });
        }
    });
    move || queued.get_value() || pending.with_value(Option::is_some)
}
