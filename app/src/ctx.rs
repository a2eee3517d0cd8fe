//! The app's shared signals, in one small context that every component reads. The text (in `st`) is
//! the one source of truth of what the user asks; `snapshot` holds everything the core's worker
//! has answered (`model::snapshot`), and the rest are views of it: the latest exploration, the last
//! one with a program, its verification and timeline — each a memo that notifies only when what
//! it points at is another value, not when another part arrives.

use crate::dom;
use crate::model::deferred::{is_pending, Ran};
use crate::model::focus::{Selection, Stepping};
use crate::model::history::{History, Kind};
use crate::model::snapshot::{Parts, Snapshot};
use crate::model::timing::Timing;
use leptos::prelude::*;
use stagecraft::explore::Exploration;
use stagecraft::timeline::Timeline;
use stagecraft::verify::Verification;
use stagecraft_link::{CodeTarget, Form, Pane, ProgramView, State};
use std::sync::Arc;

/// Where the core's work stands, as the header and the panes' veils say it.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// The worker is being started (the page's first moments, or after it stopped).
    Starting,
    /// Request `id` is being answered.
    Working { id: u64 },
    /// Everything asked has been answered.
    Idle,
}

#[derive(Clone, Copy)]
pub struct Ctx {
    pub st: RwSignal<State>,
    /// The text alone, to depend on it without depending on the pane, zoom or target.
    pub text: Memo<String>,
    /// The pane shown.
    pub pane: Memo<Pane>,
    /// The peeled form is shown (else the rolled one).
    pub peeled: Memo<bool>,
    /// The code target chosen.
    pub target: Memo<CodeTarget>,
    /// Which program the Pipelined program pane shows.
    pub view: Memo<ProgramView>,
    /// Everything the worker has answered, each part with its exploration.
    pub snapshot: RwSignal<Snapshot>,
    pub job: RwSignal<Job>,
    /// The text `current` was computed from: what views of its tokens and diagnostics (editor
    /// overlay, problems) show, so that spans always meet the text they came from.
    pub explored_text: Memo<String>,
    /// The latest exploration, and the last one that produced a program (shown while the text has
    /// errors).
    pub current: Memo<Option<Arc<Exploration>>>,
    pub good: Memo<Option<Arc<Exploration>>>,
    /// The verification and the timeline of `good`, or, until they arrive, those of the
    /// exploration shown before it (`Ran::of`), which the panes say are pending.
    pub verification: Memo<Option<Ran<Verification>>>,
    pub timeline: Memo<Option<Ran<Timeline>>>,
    /// Where the step-through of the program shown stands, while it has one: what the program,
    /// the editor, the timeline and the iteration space mark.
    pub stepping: Memo<Option<Stepping>>,
    /// The source statement under the pointer, in any pane.
    pub hovered: RwSignal<Option<u32>>,
    pub selection: RwSignal<Option<Selection>>,
    /// Loads of a preset, most recent last: the text each replaced, and the preset's text.
    pub undo: RwSignal<Vec<(String, String)>>,
    /// The editor's undo and redo of the text (`model::history`).
    pub history: StoredValue<History>,
    /// What the newest exploration and its parts cost, as the worker measured them.
    pub timing: RwSignal<Timing>,
    /// A CSS selector to scroll into view when the pane it is in is next shown (instead of that
    /// pane's remembered scroll).
    pub reveal: StoredValue<Option<String>>,
    /// The message above the page (a link that could not be read, a paste that was refused, the
    /// worker stopped).
    pub banner: RwSignal<Option<String>>,
}

/// Whether two explorations shown are other ones (not whether their contents differ: comparing
/// those would cost as much as drawing them).
fn other_exploration(
    a: Option<&Option<Arc<Exploration>>>,
    b: Option<&Option<Arc<Exploration>>>,
) -> bool {
    match (a.and_then(Option::as_ref), b.and_then(Option::as_ref)) {
        (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
        (None, None) => a.is_none() != b.is_none(),
        _ => true,
    }
}

/// Whether two parts shown are other ones, by the same rule.
fn other_part<T>(a: Option<&Option<Ran<T>>>, b: Option<&Option<Ran<T>>>) -> bool {
    match (a.and_then(Option::as_ref), b.and_then(Option::as_ref)) {
        (Some(a), Some(b)) => {
            let same_value = match (&a.value, &b.value) {
                (Some(x), Some(y)) => Arc::ptr_eq(x, y),
                (None, None) => true,
                _ => false,
            };
            !(Arc::ptr_eq(&a.of, &b.of) && same_value)
        }
        (None, None) => a.is_none() != b.is_none(),
        _ => true,
    }
}

impl Ctx {
    /// The signals of a page showing `initial`.
    pub fn new(initial: State) -> Self {
        let history = StoredValue::new(History::new(&initial.text));
        let st = RwSignal::new(initial);
        let text = Memo::new(move |_| st.with(|s| s.text.clone()));
        let snapshot = RwSignal::new(Snapshot::default());
        Ctx {
            st,
            text,
            pane: Memo::new(move |_| st.with(|s| s.pane)),
            peeled: Memo::new(move |_| st.with(|s| s.form == Form::Peeled)),
            target: Memo::new(move |_| st.with(|s| s.target.clone())),
            view: Memo::new(move |_| st.with(|s| s.view)),
            snapshot,
            job: RwSignal::new(Job::Starting),
            explored_text: Memo::new(move |_| {
                snapshot.with(|s| {
                    s.current
                        .as_ref()
                        .map(|c| c.text.to_string())
                        .unwrap_or_default()
                })
            }),
            current: Memo::new_with_compare(
                move |_| snapshot.with(|s| s.current.as_ref().map(|c| c.exploration.clone())),
                other_exploration,
            ),
            good: Memo::new_with_compare(
                move |_| snapshot.with(|s| s.good().map(|g| g.exploration.clone())),
                other_exploration,
            ),
            verification: Memo::new_with_compare(
                move |_| snapshot.with(|s| s.ran(|p: &Parts| p.verification.clone())),
                other_part,
            ),
            timeline: Memo::new_with_compare(
                move |_| snapshot.with(|s| s.ran(|p: &Parts| p.timeline.clone())),
                other_part,
            ),
            stepping: Memo::new(move |_| {
                st.with(|state| {
                    snapshot.with(|s| {
                        let good = s.good()?;
                        let (options, _, frame) = good.parts.steps.as_ref()?;
                        // The marks follow the picture drawn, which the next frame replaces.
                        (options.model == state.completion).then(|| frame.stepping.clone())?
                    })
                })
            }),
            hovered: RwSignal::new(None),
            selection: RwSignal::new(None),
            undo: RwSignal::new(Vec::new()),
            history,
            timing: RwSignal::new(Timing::default()),
            reveal: StoredValue::new(None),
            banner: RwSignal::new(None),
        }
    }

    /// A part of the exploration shown (`pick`), as a memo that notifies only when it is another
    /// value: for the panes that show one part.
    pub fn part<T: Send + Sync + 'static>(
        &self,
        pick: fn(&Parts, &State) -> Option<Option<Arc<T>>>,
    ) -> Memo<Option<Ran<T>>> {
        let (snapshot, st) = (self.snapshot, self.st);
        Memo::new_with_compare(
            move |_| st.with(|state| snapshot.with(|s| s.ran(|p| pick(p, state)))),
            other_part,
        )
    }

    /// Whether the verification or the timeline (`ran`) shown is not yet that of `good` (tracked).
    pub fn pending<T: Send + Sync + 'static>(&self, ran: Memo<Option<Ran<T>>>) -> bool {
        self.good.with(|g| ran.with(|r| is_pending(g, r)))
    }

    /// `pending`, untracked.
    pub fn pending_untracked<T: Send + Sync + 'static>(&self, ran: Memo<Option<Ran<T>>>) -> bool {
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
    /// ahead of its exploration (an answer on its way).
    pub fn explored_now(&self) -> Option<Arc<Exploration>> {
        let current = self.current.get_untracked()?;
        let same = self
            .st
            .with_untracked(|s| self.explored_text.with_untracked(|t| *t == s.text));
        same.then_some(current)
    }

    /// Replaces the source text (an edit through the grid, the cost table or a preset): one
    /// step of the editor's undo. The same text again (a grid field's `change` after its
    /// `input`) changes nothing.
    pub fn set_text(&self, text: String) {
        self.edit_text(text, Kind::Other);
    }

    /// The text changed in the editor by a change of `kind` (typing runs are one undo step).
    pub fn edit_text(&self, text: String, kind: Kind) {
        let recorded = self.st.with_untracked(|s| {
            (s.text != text).then(|| {
                self.history
                    .update_value(|h| h.record(&s.text, &text, kind));
            })
        });
        if recorded.is_some() {
            self.st.update(|s| s.text = text);
        }
    }

    /// Undoes (or, `redo`, redoes) a step of the text's history: the text it makes, and the
    /// byte range of it the step changed (for the editor to select). `None`: nothing to undo.
    pub fn undo_text(&self, redo: bool) -> Option<(String, (usize, usize))> {
        let shown = self.st.with_untracked(|s| s.text.clone());
        let step =
            self.history.try_update_value(
                |h| {
                    if redo {
                        h.redo(&shown)
                    } else {
                        h.undo(&shown)
                    }
                },
            )??;
        let text = step.0.clone();
        self.st.update(|s| s.text = text);
        Some(step)
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
