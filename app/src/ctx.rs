//! The app's state, shared by every component as signals. The text (in `st`) is the one source of
//! truth; everything else shown is the latest `Exploration` of it.

use crate::state::State;
use leptos::prelude::*;
use stagecraft::explore::Exploration;
use std::sync::Arc;

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
    /// The pane shown.
    pub pane: Memo<String>,
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
    /// The last recomputation took longer than a frame (the first one, which also warms the
    /// WebAssembly code up, does not count).
    pub slow: RwSignal<bool>,
    /// A CSS selector to scroll into view when the pane it is in is next shown (instead of that
    /// pane's remembered scroll).
    pub reveal: StoredValue<Option<String>>,
}

impl Ctx {
    pub fn new(initial: State) -> Self {
        let st = RwSignal::new(initial);
        Ctx {
            st,
            text: Memo::new(move |_| st.with(|s| s.text.clone())),
            pane: Memo::new(move |_| st.with(|s| s.pane.clone())),
            current: RwSignal::new(None),
            good: RwSignal::new(None),
            hovered: RwSignal::new(None),
            selection: RwSignal::new(None),
            undo: RwSignal::new(Vec::new()),
            recompute_ms: RwSignal::new(0.0),
            slow: RwSignal::new(false),
            reveal: StoredValue::new(None),
        }
    }

    /// Sets the hovered statement, notifying only on a change (pointer moves fire often).
    pub fn hover(&self, stmt: Option<u32>) {
        if self.hovered.get_untracked() != stmt {
            self.hovered.set(stmt);
        }
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
