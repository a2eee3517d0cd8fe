//! The app's shared signals, in one small context that every component reads. The text (in `st`) is
//! the one source of truth; everything else shown is the latest `Exploration` of it, its
//! verification and timeline, and what the user points at.

use crate::dom;
use crate::model::budget::{drawn_units, DRAWING_MS_PER_UNIT_PRIOR};
use crate::model::deferred::{is_pending, Ran};
use crate::model::focus::Selection;
use crate::model::timing::{DrawingRate, Timing};
use leptos::prelude::*;
use stagecraft::explore::{Exploration, MachineReport};
use stagecraft::timeline::Timeline;
use stagecraft::verify::Verification;
use stagecraft_link::{CodeTarget, Form, Pane, ProgramView, State};
use std::sync::Arc;

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
    /// Which program the Pipelined program pane shows.
    pub view: Memo<ProgramView>,
    /// The latest exploration, and the last one that produced a program (shown while the text has
    /// errors).
    pub current: RwSignal<Option<Arc<Exploration>>>,
    pub good: RwSignal<Option<Arc<Exploration>>>,
    /// The verification and the timeline, which `good` leaves out: computed in tasks of their own
    /// after it is drawn, each published alone so that only what shows it is drawn again. Until
    /// they arrive they are those of an earlier exploration (`Ran::of`), and the panes say so.
    pub verification: RwSignal<Option<Ran<Verification>>>,
    pub timeline: RwSignal<Option<Ran<Timeline>>>,
    /// The machine-level check of the kernel the Code pane shows (`services::machine`).
    pub machine: RwSignal<Option<Ran<MachineReport>>>,
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
    /// than `budget::TASK_MS` (the first one, which also warms the WebAssembly code up, does not count).
    pub slow: RwSignal<bool>,
    /// What writing and rendering an exploration's result costs per unit it draws
    /// (`budget::drawn_units`), measured whenever the result was written in the frame it was
    /// explored in. Until measured, `DRAWING_MS_PER_UNIT_PRIOR`.
    pub drawing: StoredValue<DrawingRate>,
    /// The warm-up (`services::warm`) has run all its steps: exploring's code is optimized.
    pub warmed: RwSignal<bool>,
    /// The text is too large to explore before the warm-up has finished (the warm-up's predicate,
    /// given to `Ctx::new`): its exploration waits, the panes say that the explorer is being
    /// prepared, and the warm-up runs without its pauses.
    pub preparing: Memo<bool>,
    /// A CSS selector to scroll into view when the pane it is in is next shown (instead of that
    /// pane's remembered scroll).
    pub reveal: StoredValue<Option<String>>,
    /// The message above the page (a link that could not be read, a paste that was refused).
    pub banner: RwSignal<Option<String>>,
}

impl Ctx {
    /// Writing and rendering the result of `ex`, estimated from its size: a ratio to the time
    /// exploring took, as before, carried each loop's noise (and one preset's first drawing)
    /// over to the next and flipped the slow path now and then.
    pub fn drawing_estimate_ms(&self, ex: &Exploration) -> f64 {
        let rate = self
            .drawing
            .with_value(|d| d.ms_per_unit(DRAWING_MS_PER_UNIT_PRIOR));
        drawn_units(ex) as f64 * rate
    }

    /// The signals of a page showing `initial`; `waits_for_warm_up` says whether a text is too large
    /// to explore before the warm-up has finished.
    pub fn new(initial: State, waits_for_warm_up: fn(&str) -> bool) -> Self {
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
            view: Memo::new(move |_| st.with(|s| s.view)),
            current: RwSignal::new(None),
            good: RwSignal::new(None),
            verification: RwSignal::new(None),
            timeline: RwSignal::new(None),
            machine: RwSignal::new(None),
            hovered: RwSignal::new(None),
            selection: RwSignal::new(None),
            undo: RwSignal::new(Vec::new()),
            timing: RwSignal::new(Timing::default()),
            serial: StoredValue::new(0),
            runs_ms: StoredValue::new(0.0),
            slow: RwSignal::new(false),
            drawing: StoredValue::new(DrawingRate::default()),
            warmed,
            // Once warmed, the text is not even looked at.
            preparing: Memo::new(move |_| !warmed.get() && text.with(|t| waits_for_warm_up(t))),
            reveal: StoredValue::new(None),
            banner: RwSignal::new(None),
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
    /// The same text again (a grid field's `change` after its `input`) changes nothing.
    pub fn set_text(&self, text: String) {
        if self.st.with_untracked(|s| s.text != text) {
            self.st.update(|s| s.text = text);
        }
    }

    /// Whether `pane` is the one shown (tracked).
    pub fn shown(&self, pane: Pane) -> bool {
        self.pane.with(|p| *p == pane)
    }

    /// Shows `pane`, scrolled so that `selector` (inside it) is in view.
    pub fn show(&self, pane: Pane, selector: String) {
        self.reveal.set_value(Some(selector));
        if self.st.with_untracked(|s| s.pane == pane) {
            // After the pane has rendered what the selector points at.
            let reveal = self.reveal;
            crate::dom::before_drawing(Box::new(move || {
                if let Some(selector) = reveal.try_update_value(|r| r.take()).flatten() {
                    dom::reveal(&selector);
                }
            }));
        } else {
            self.st.update(|s| s.pane = pane);
        }
    }
}

pub fn ctx() -> Ctx {
    expect_context::<Ctx>()
}
