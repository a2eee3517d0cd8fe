//! The app's state, shared by every component as signals. The text (in `st`) is the one source of
//! truth; everything else shown is the latest `Exploration` of it.

use crate::dom;
use crate::panes::PANES;
use crate::state::State;
use leptos::prelude::*;
use stagecraft::explore::Exploration;
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

#[derive(Clone, Copy)]
pub struct Ctx {
    pub st: RwSignal<State>,
    /// The text alone, to depend on it without depending on the pane, zoom or target.
    pub text: Memo<String>,
    /// The text `current` was computed from: what views of its tokens and diagnostics (editor
    /// overlay, problems) show, so that spans always meet the text they came from.
    pub explored_text: RwSignal<String>,
    /// The pane shown.
    pub pane: Memo<String>,
    /// The peeled form is shown (else the rolled one).
    pub peeled: Memo<bool>,
    /// The code target chosen.
    pub target: Memo<String>,
    /// The latest exploration, and the last one that produced a program (shown while the text has
    /// errors).
    pub current: RwSignal<Option<Arc<Exploration>>>,
    pub good: RwSignal<Option<Arc<Exploration>>>,
    /// The source statement under the pointer, in any pane.
    pub hovered: RwSignal<Option<u32>>,
    pub selection: RwSignal<Option<Selection>>,
    /// Texts replaced by loading a preset, most recent last.
    pub undo: RwSignal<Vec<String>>,
    /// Milliseconds the last `explore` took.
    pub recompute_ms: RwSignal<f64>,
    /// The last recomputation took longer than a frame, or with the DOM writing and the browser's
    /// rendering that follow it would make one task longer than `app::TASK_MS` (the first one,
    /// which also warms the WebAssembly code up, does not count).
    pub slow: RwSignal<bool>,
    /// What writing and rendering an exploration's result costs, per millisecond of exploring:
    /// measured whenever both ran in one frame after an exploration of at least a quarter frame
    /// (their cost grows with the output, as exploring does). Until measured, `RENDER_PER_EXPLORE_PRIOR`.
    pub render_per_explore_ms: StoredValue<f64>,
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
    /// (top, left) per pane, in the order of `panes::PANES`.
    saved: StoredValue<[(i32, i32); PANES.len()]>,
    /// The pane being restored, until when (ms on the performance clock).
    restoring: StoredValue<Option<(String, f64)>>,
}

fn pane_index(pane: &str) -> Option<usize> {
    PANES.iter().position(|(id, _)| *id == pane)
}

/// How long a shown pane's content may take to arrive.
const RESTORE_MS: f64 = 2000.0;

impl ScrollMemory {
    fn new() -> Self {
        ScrollMemory {
            saved: StoredValue::new([(0, 0); PANES.len()]),
            restoring: StoredValue::new(None),
        }
    }

    /// Records a pane's offsets (scroll events), except those of the restoring itself.
    pub fn remember(&self, pane: &str, el: &web_sys::Element) {
        let restoring = self.restoring.with_value(|r| {
            r.as_ref()
                .is_some_and(|(p, until)| p == pane && dom::now_ms() < *until)
        });
        if let (false, Some(k)) = (restoring, pane_index(pane)) {
            self.saved.update_value(|s| {
                if let Some(slot) = s.get_mut(k) {
                    *slot = (el.scroll_top(), el.scroll_left());
                }
            });
        }
    }

    pub fn start_restoring(&self, pane: String) {
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
        let Some(el) = dom::by_id(&format!("pane-{pane}")) else {
            return;
        };
        let (top, left) = pane_index(&pane)
            .and_then(|k| self.saved.with_value(|s| s.get(k).copied()))
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
        Ctx {
            st,
            text,
            explored_text,
            pane: Memo::new(move |_| st.with(|s| s.pane.clone())),
            peeled: Memo::new(move |_| st.with(|s| s.form == "peeled")),
            target: Memo::new(move |_| st.with(|s| s.target.clone())),
            current: RwSignal::new(None),
            good: RwSignal::new(None),
            hovered: RwSignal::new(None),
            selection: RwSignal::new(None),
            undo: RwSignal::new(Vec::new()),
            recompute_ms: RwSignal::new(0.0),
            slow: RwSignal::new(false),
            render_per_explore_ms: StoredValue::new(RENDER_PER_EXPLORE_PRIOR),
            reveal: StoredValue::new(None),
            scroll: ScrollMemory::new(),
        }
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
    pub fn shown(&self, pane: &str) -> bool {
        self.pane.with(|p| p == pane)
    }

    /// Shows `pane`, scrolled so that `selector` (inside it) is in view.
    pub fn show(&self, pane: &str, selector: String) {
        self.reveal.set_value(Some(selector));
        if self.st.with_untracked(|s| s.pane == pane) {
            crate::dom::reveal_now(*self);
        } else {
            self.st.update(|s| s.pane = pane.to_string());
        }
    }
}

pub fn ctx() -> Ctx {
    expect_context::<Ctx>()
}
