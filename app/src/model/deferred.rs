//! The parts of an exploration arrive after it (`model::snapshot`): each is kept with that exploration, so that what
//! draws it never pairs races, waits or lines of one program with another.

use stagecraft::explore::Exploration;
use std::sync::Arc;

/// A part of an exploration computed after it is shown, with the exploration it was computed from.
/// A pane draws it with that exploration.
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
}

/// The value of `ran` if it was computed from `ex`.
pub fn ran_for<'a, T>(ran: &'a Option<Ran<T>>, ex: &Arc<Exploration>) -> Option<&'a T> {
    ran.as_ref()
        .filter(|r| r.belongs_to(ex))
        .and_then(|r| r.value.as_deref())
}

/// Whether what is shown (`ran`) is not yet that of the exploration shown (`good`).
pub fn is_pending<T>(good: &Option<Arc<Exploration>>, ran: &Option<Ran<T>>) -> bool {
    good.as_ref()
        .is_some_and(|g| !ran.as_ref().is_some_and(|r| r.belongs_to(g)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, Options};
    use stagecraft::verify::Verification;

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
    }
}
