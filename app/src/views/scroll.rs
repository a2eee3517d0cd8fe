//! Where each pane was scrolled. A hidden pane loses its offsets, so they are put back when it is
//! shown again.

use crate::dom;
use leptos::prelude::*;
use stagecraft_link::Pane;

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

impl Default for ScrollMemory {
    fn default() -> Self {
        ScrollMemory {
            saved: StoredValue::new([(0, 0); Pane::COUNT]),
            restoring: StoredValue::new(None),
        }
    }
}

impl ScrollMemory {
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

    /// From now on `restore` puts `pane`'s offsets back; not at once: the pane just shown still
    /// holds what it last drew, which putting the offsets back would style and lay out first, to
    /// be replaced by its render at once (a large chart still in the timeline pane when another
    /// is shown: a forced style and layout of thousands of elements).
    /// Its render, or the frame's, puts them back.
    pub fn start_restoring(&self, pane: Pane) {
        self.restoring
            .set_value(Some((pane, dom::now_ms() + RESTORE_MS)));
    }

    /// A pane is being shown again, its offsets not put back yet.
    pub fn is_restoring(&self) -> bool {
        self.restoring.with_value(Option::is_some)
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
