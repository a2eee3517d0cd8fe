//! The app's state, shared by every component as signals. The text (in `st`) is the one source of
//! truth; everything else shown is the latest `Exploration` of it.

use crate::dom;
use leptos::prelude::*;
use stagecraft::explore::Exploration;
use stagecraft::timeline::Timeline;
use stagecraft::verify::Verification;
use stagecraft_link::{CodeTarget, Form, Pane, State};
use std::sync::Arc;

/// Drawing cost per millisecond of exploring before any is measured: 160 statements pasted into
/// the program pane explored in 12 ms and took ~34 ms more to draw (Chromium, this project's
/// e2e machine). Assuming none put both in one task of ~50 ms on the first large paste. Drawing
/// them takes ~25–30 ms since the overlay and the grid render only what is near their view: the
/// prior errs on the side of separate tasks.
pub const RENDER_PER_EXPLORE_PRIOR: f64 = 2.5;

/// What the user picked in the Verification pane, to be shown in the other panes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// A race, by its position in `Verification::races`.
    Race(usize),
    /// A wait node, by its pre-order index (`WaitVerdict::index`, `LineInfo::wait_index`).
    Wait(usize),
}

/// A half of an exploration that is computed after it is shown (`explore::verification`,
/// `explore::timeline`), with the exploration it was computed from. A pane draws it with that
/// exploration, so that its races, waits and lines always refer to the same program.
#[derive(Clone)]
pub struct Ran<T> {
    pub of: Arc<Exploration>,
    /// `None`: the exploration has nothing to run (no program).
    pub value: Option<Arc<T>>,
}

impl<T> Ran<T> {
    pub fn belongs_to(&self, ex: &Arc<Exploration>) -> bool {
        Arc::ptr_eq(&self.of, ex)
    }

    /// The same value, as that of `ex` (an exploration of the same program).
    pub fn kept_for(&self, ex: &Arc<Exploration>) -> Ran<T> {
        Ran {
            of: ex.clone(),
            value: self.value.clone(),
        }
    }
}

/// The value of `ran` if it was computed from `ex`.
pub fn ran_for<'a, T>(ran: &'a Option<Ran<T>>, ex: &Arc<Exploration>) -> Option<&'a T> {
    ran.as_ref()
        .filter(|r| r.belongs_to(ex))
        .and_then(|r| r.value.as_deref())
}

fn is_pending<T>(good: &Option<Arc<Exploration>>, ran: &Option<Ran<T>>) -> bool {
    good.as_ref()
        .is_some_and(|g| !ran.as_ref().is_some_and(|r| r.belongs_to(g)))
}

/// What the last recomputation cost, in milliseconds of the main thread: exploring (without the
/// verification and the timeline), then verifying and simulating once each has run, in the same
/// task or in tasks of their own. What the header shows, and what decides whether typing waits
/// for a pause.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// Which recomputation (`Ctx::serial`) this is.
    pub serial: u64,
    pub explore: f64,
    pub verify: Option<f64>,
    pub simulate: Option<f64>,
    /// The program is the one explored before (another code target was asked for): its
    /// verification and timeline were kept, not run again.
    pub kept: bool,
}

impl Timing {
    pub fn total(&self) -> f64 {
        self.explore + self.verify.unwrap_or(0.0) + self.simulate.unwrap_or(0.0)
    }
}

#[derive(Clone, Copy)]
pub struct Ctx {
    pub st: RwSignal<State>,
    /// The text alone, to depend on it without depending on the pane, zoom or target.
    pub text: Memo<String>,
    /// The text `current` was computed from: what views of its tokens and diagnostics (editor
    /// overlay, problems) show, so that spans always meet the text they came from.
    pub explored_text: RwSignal<String>,
    /// The pane shown.
    pub pane: Memo<Pane>,
    /// The peeled form is shown (else the rolled one).
    pub peeled: Memo<bool>,
    /// The code target chosen.
    pub target: Memo<CodeTarget>,
    /// The latest exploration, and the last one that produced a program (shown while the text has
    /// errors).
    pub current: RwSignal<Option<Arc<Exploration>>>,
    pub good: RwSignal<Option<Arc<Exploration>>>,
    /// The verification and the timeline, which `good` leaves out: computed in tasks of their own
    /// after it is drawn, each published alone so that only what shows it is drawn again. Until
    /// they arrive they are those of an earlier exploration (`Ran::of`), and the panes say so.
    pub verification: RwSignal<Option<Ran<Verification>>>,
    pub timeline: RwSignal<Option<Ran<Timeline>>>,
    /// The source statement under the pointer, in any pane.
    pub hovered: RwSignal<Option<u32>>,
    pub selection: RwSignal<Option<Selection>>,
    /// Texts replaced by loading a preset, most recent last.
    pub undo: RwSignal<Vec<String>>,
    /// What the last recomputation cost so far.
    pub timing: RwSignal<Timing>,
    /// The number of the latest recomputation.
    pub serial: StoredValue<u64>,
    /// Milliseconds the last verification and timeline took together: the estimate for the next
    /// ones, which decides whether they run in the same task as exploring.
    pub runs_ms: StoredValue<f64>,
    /// The last recomputation (with its verification and timeline) took longer than a frame, or
    /// with the DOM writing and the browser's rendering that follow it would make one task longer
    /// than `app::TASK_MS` (the first one, which also warms the WebAssembly code up, does not count).
    pub slow: RwSignal<bool>,
    /// What writing and rendering an exploration's result costs, per millisecond of exploring:
    /// measured whenever both ran in one frame after an exploration of at least a quarter frame
    /// (their cost grows with the output, as exploring does). Until measured, `RENDER_PER_EXPLORE_PRIOR`.
    pub render_per_explore_ms: StoredValue<f64>,
    /// The warm-up (`warm.rs`) has run all its steps: exploring's code is optimized.
    pub warmed: RwSignal<bool>,
    /// The text is too large to explore before the warm-up has finished (`warm::waits`): its
    /// exploration waits, the panes say that the explorer is being prepared, and the warm-up runs
    /// without its pauses.
    pub preparing: Memo<bool>,
    /// A CSS selector to scroll into view when the pane it is in is next shown (instead of that
    /// pane's remembered scroll).
    pub reveal: StoredValue<Option<String>>,
    pub scroll: ScrollMemory,
}

/// Scroll offsets of the panes. A hidden pane loses its offsets, so they are put back when it is
/// shown again: once it is displayed, and again after each render until they are reached (a pane
/// may render only when shown, or after the exploration it asked for), for a short while.
#[derive(Clone, Copy)]
pub struct ScrollMemory {
    /// (top, left) per pane, in the order of `Pane::all`.
    saved: StoredValue<[(i32, i32); Pane::COUNT]>,
    /// The pane being restored, until when (ms on the performance clock).
    restoring: StoredValue<Option<(Pane, f64)>>,
}

/// How long a shown pane's content may take to arrive.
const RESTORE_MS: f64 = 2000.0;

impl ScrollMemory {
    fn new() -> Self {
        ScrollMemory {
            saved: StoredValue::new([(0, 0); Pane::COUNT]),
            restoring: StoredValue::new(None),
        }
    }

    /// Records a pane's offsets (scroll events), except those of the restoring itself.
    pub fn remember(&self, pane: Pane, el: &web_sys::Element) {
        let restoring = self.restoring.with_value(|r| {
            r.as_ref()
                .is_some_and(|(p, until)| *p == pane && dom::now_ms() < *until)
        });
        if !restoring {
            self.saved.update_value(|s| {
                if let Some(slot) = s.get_mut(pane.index()) {
                    *slot = (el.scroll_top(), el.scroll_left());
                }
            });
        }
    }

    pub fn start_restoring(&self, pane: Pane) {
        self.restoring
            .set_value(Some((pane, dom::now_ms() + RESTORE_MS)));
        self.restore();
    }

    pub fn stop_restoring(&self) {
        self.restoring.set_value(None);
    }

    /// Puts the restoring pane's offsets back, and stops once they are reached (or too late).
    pub fn restore(&self) {
        let Some((pane, until)) = self.restoring.get_value() else {
            return;
        };
        if dom::now_ms() > until {
            self.stop_restoring();
            return;
        }
        let Some(el) = dom::by_id(&format!("pane-{}", pane.name())) else {
            return;
        };
        let (top, left) = self
            .saved
            .with_value(|s| s.get(pane.index()).copied())
            .unwrap_or((0, 0));
        el.set_scroll_top(top);
        el.set_scroll_left(left);
        // A pane still hidden reports whatever it was given: only a displayed one has arrived.
        let displayed = el.client_height() > 0;
        if displayed && (el.scroll_top() - top).abs() <= 1 && (el.scroll_left() - left).abs() <= 1 {
            self.stop_restoring();
        }
    }
}

impl Ctx {
    /// Writing and rendering the result of an exploration that took `explore_ms`, estimated.
    pub fn drawing_estimate_ms(&self, explore_ms: f64) -> f64 {
        explore_ms * self.render_per_explore_ms.get_value()
    }

    pub fn new(initial: State) -> Self {
        let st = RwSignal::new(initial);
        let text = Memo::new(move |_| st.with(|s| s.text.clone()));
        let explored_text = RwSignal::new(st.with_untracked(|s| s.text.clone()));
        let warmed = RwSignal::new(false);
        Ctx {
            st,
            text,
            explored_text,
            pane: Memo::new(move |_| st.with(|s| s.pane)),
            peeled: Memo::new(move |_| st.with(|s| s.form == Form::Peeled)),
            target: Memo::new(move |_| st.with(|s| s.target.clone())),
            current: RwSignal::new(None),
            good: RwSignal::new(None),
            verification: RwSignal::new(None),
            timeline: RwSignal::new(None),
            hovered: RwSignal::new(None),
            selection: RwSignal::new(None),
            undo: RwSignal::new(Vec::new()),
            timing: RwSignal::new(Timing::default()),
            serial: StoredValue::new(0),
            runs_ms: StoredValue::new(0.0),
            slow: RwSignal::new(false),
            render_per_explore_ms: StoredValue::new(RENDER_PER_EXPLORE_PRIOR),
            warmed,
            // Once warmed, the text is not even looked at.
            preparing: Memo::new(move |_| !warmed.get() && text.with(|t| crate::warm::waits(t))),
            reveal: StoredValue::new(None),
            scroll: ScrollMemory::new(),
        }
    }

    /// Whether the verification or the timeline (`ran`) shown is not yet that of `good` (tracked).
    pub fn pending<T: Send + Sync + 'static>(&self, ran: RwSignal<Option<Ran<T>>>) -> bool {
        self.good.with(|g| ran.with(|r| is_pending(g, r)))
    }

    /// `pending`, untracked.
    pub fn pending_untracked<T: Send + Sync + 'static>(
        &self,
        ran: RwSignal<Option<Ran<T>>>,
    ) -> bool {
        self.good
            .with_untracked(|g| ran.with_untracked(|r| is_pending(g, r)))
    }

    /// Sets the hovered statement, notifying only on a change (pointer moves fire often).
    pub fn hover(&self, stmt: Option<u32>) {
        if self.hovered.get_untracked() != stmt {
            self.hovered.set(stmt);
        }
    }

    /// The latest exploration, if it was computed from the text as it is now: edits that splice
    /// annotation lines need spans that are offsets into this very text. `None` while the text is
    /// ahead of its exploration (a large text being typed).
    pub fn explored_now(&self) -> Option<Arc<Exploration>> {
        let current = self.current.get_untracked()?;
        let same = self
            .st
            .with_untracked(|s| self.explored_text.with_untracked(|t| *t == s.text));
        same.then_some(current)
    }

    /// Replaces the source text (an edit through the grid, the cost table or a preset).
    pub fn set_text(&self, text: String) {
        self.st.update(|s| s.text = text);
    }

    /// Whether `pane` is the one shown (tracked).
    pub fn shown(&self, pane: Pane) -> bool {
        self.pane.with(|p| *p == pane)
    }

    /// Shows `pane`, scrolled so that `selector` (inside it) is in view.
    pub fn show(&self, pane: Pane, selector: String) {
        self.reveal.set_value(Some(selector));
        if self.st.with_untracked(|s| s.pane == pane) {
            crate::dom::reveal_now(*self);
        } else {
            self.st.update(|s| s.pane = pane);
        }
    }
}

pub fn ctx() -> Ctx {
    expect_context::<Ctx>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, Options};

    #[test]
    fn a_deferred_result_counts_only_for_the_exploration_it_came_from() {
        let deferred = Options {
            defer_runs: true,
            ..Options::default()
        };
        let older = Arc::new(explore(stagecraft_link::presets::DEFAULT, &deferred));
        let newer = Arc::new(explore(stagecraft_link::presets::DEFAULT, &deferred));
        let v = stagecraft::explore::verification(&older).map(Arc::new);
        let ran = Some(Ran {
            of: older.clone(),
            value: v,
        });
        assert!(ran_for(&ran, &older).is_some());
        // An exploration of the same text is still another one: its result is pending.
        assert!(ran_for(&ran, &newer).is_none());
        assert!(is_pending(&Some(newer.clone()), &ran));
        assert!(!is_pending(&Some(older.clone()), &ran));
        assert!(is_pending(&Some(newer.clone()), &None::<Ran<Verification>>));
        // Nothing shown yet: nothing is pending.
        assert!(!is_pending(&None, &ran));
        let kept = ran.as_ref().map(|r| r.kept_for(&newer));
        assert!(ran_for(&kept, &newer).is_some() && !is_pending(&Some(newer), &kept));
    }

    #[test]
    fn the_time_shown_adds_the_parts_that_have_run() {
        let mut t = Timing {
            serial: 3,
            explore: 12.5,
            ..Timing::default()
        };
        assert_eq!(t.total(), 12.5);
        t.verify = Some(20.0);
        t.simulate = Some(5.25);
        assert_eq!(t.total(), 37.75);
    }
}
