//! Plans per range of a symbolic extent. A need that begins at some consumer iteration
//! (`Need::starts`: indices clamped by `min`/`max` that meet only once both clamp) applies in a
//! section only at the extents that run such an iteration there: the body from N = from +
//! stage + 1 on, a symbolic epilogue's step k from N = from + stage − k on (and likewise its
//! shortest distance shortens where a shorter one begins). One plan for every
//! N would have to wait for it at every N, forcing groups nothing reads at the short ones; so the
//! extents are cut where some need starts to apply, each range is planned with the needs that
//! apply in it, and the pipelined program's counts choose by N (`pipelined::build`).

use super::groups::Grouping;
use super::{planned, Need, Regime, SyncPlan};
use crate::diagnostic::Diagnostic;
use crate::shape::LoopShape;

/// Ranges of N planned at most: each is a whole plan, and each count a choice among them.
const MAX_REGIMES: usize = 6;

/// What every plan of one loop shares: the needs, and the groups found from all of them (a
/// need that does not apply still splits its group, so that every range's program has the same
/// commit scopes and only its waits differ).
pub(super) struct Regimes<'a> {
    pub(super) program: &'a crate::ir::Program,
    pub(super) p: &'a LoopShape,
    pub(super) needs: &'a [Need],
    pub(super) grouping: &'a Grouping,
    pub(super) closed_before: &'a [i64],
    /// Per unit, whether it runs an instance at each iteration (`exact::refine`).
    pub(super) runs: &'a [Option<Vec<bool>>],
    pub(super) explain: bool,
}

impl Regimes<'_> {
    pub(super) fn plan(
        &self,
        regime_hi: Option<i64>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<SyncPlan> {
        planned(self, regime_hi, diags)
    }

    /// The extents where some need starts to apply in some section, ascending; empty when no
    /// need begins late, or when there are too many for a plan each (the plan for every N,
    /// which waits for every need everywhere, then serves alone).
    fn bounds(&self) -> Vec<i64> {
        let s_max = self.p.stages();
        let mut out = Vec::new();
        for n in self.needs {
            let Some(stage) = self.p.sched.units.get(n.consumer).map(|u| u.stage) else {
                continue;
            };
            for &(_, from) in &n.starts {
                out.push(from + stage + 1);
                out.extend(
                    (0..stage.min(s_max))
                        .map(|k| from + stage - k)
                        .filter(|&b| b > s_max),
                );
            }
        }
        out.sort_unstable();
        out.dedup();
        if out.len() >= MAX_REGIMES {
            out.clear();
        }
        out
    }

    /// Plans the ranges of N below the last bound and gives `main` (the plan of the rest) those
    /// that wait less than it does, their waits named by `main`'s sites: a wait at the same
    /// place is the same site. Leaves `main` alone if any range fails to plan: it is sound at
    /// every N by itself.
    pub(super) fn add_to(&self, main: &mut SyncPlan) {
        if self.p.sched.extent.as_const().is_some() {
            return;
        }
        let bounds = self.bounds();
        let mut regimes = Vec::with_capacity(bounds.len());
        for &below in &bounds {
            let mut scratch = Vec::new();
            let Some(mut plan) = self.plan(Some(below - 1), &mut scratch) else {
                return;
            };
            if scratch.iter().any(Diagnostic::is_error) {
                return;
            }
            if below - 1 <= self.p.stages() {
                // No N of the range runs the body: its waits are no one's (the program takes
                // the next range's there).
                for item in plan.body.iter_mut().flat_map(|b| b.items.iter_mut()) {
                    item.waits.clear();
                }
            }
            // A range that waits somewhere the plan for every N does not, or for more, is left
            // to the next range's (sound at its shorter N too): the planner serves its first
            // body step as any other, and such a wait may complete nothing at any N. So a range
            // kept adds no site: the page lists `main`'s, each wait of the program among them.
            let Some(ids) = main_sites(&plan, main) else {
                continue;
            };
            renumber(&mut plan, &ids);
            if looser(&plan, main) {
                regimes.push(Regime { below, plan });
            }
        }
        main.regimes = regimes;
    }
}

/// For each site of `plan`, the id of `main`'s at the same place; `None` if a wait or drain of
/// `plan` has none.
fn main_sites(plan: &SyncPlan, main: &SyncPlan) -> Option<Vec<u32>> {
    let used = used_sites(plan);
    let key = |s: &super::WaitSite| (s.section, s.before, s.queue);
    plan.sites
        .iter()
        .map(|site| {
            let theirs = main.sites.iter().find(|s| key(s) == key(site));
            match theirs {
                Some(s) => Some(s.id),
                None if used.contains(&site.id) => None,
                // Not in the program: its id is never looked up.
                None => Some(site.id),
            }
        })
        .collect()
}

/// Whether every wait of `plan` is one of `main`'s at the same place, with a count at least as
/// large, and every queue it drains `main` drains.
fn looser(plan: &SyncPlan, main: &SyncPlan) -> bool {
    let steps = |p: &SyncPlan| -> Vec<super::StepPlan> {
        p.prologue
            .iter()
            .chain(p.body.iter())
            .chain(p.epilogue.iter())
            .cloned()
            .collect()
    };
    let (mine, theirs) = (steps(plan), steps(main));
    mine.len() == theirs.len()
        && mine.iter().zip(&theirs).all(|(a, b)| {
            a.items.len() == b.items.len()
                && a.items.iter().zip(&b.items).all(|(x, y)| {
                    x.waits.iter().all(|&(id, _, c)| {
                        y.waits.iter().any(|&(other, _, m)| other == id && m <= c)
                    })
                })
        })
        && plan
            .drains
            .iter()
            .all(|(_, q)| main.drains.iter().any(|(_, m)| m == q))
}

/// The sites a plan's waits and drains name.
fn used_sites(plan: &SyncPlan) -> Vec<u32> {
    let steps = plan
        .prologue
        .iter()
        .chain(plan.body.iter())
        .chain(plan.epilogue.iter());
    let mut out: Vec<u32> = steps
        .flat_map(|step| step.items.iter())
        .flat_map(|item| item.waits.iter().map(|w| w.0))
        .chain(plan.drains.iter().map(|d| d.0))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Gives a range's waits the ids of `main`'s sites at the same places, and drops its own list
/// and the instances it noted to explain (the page explains `main`'s).
fn renumber(plan: &mut SyncPlan, ids: &[u32]) {
    let id = |k: u32| ids.get(k as usize).copied().unwrap_or(k);
    let steps = plan
        .prologue
        .iter_mut()
        .chain(plan.body.iter_mut())
        .chain(plan.epilogue.iter_mut());
    for step in steps {
        for item in &mut step.items {
            for w in &mut item.waits {
                w.0 = id(w.0);
            }
        }
    }
    for d in &mut plan.drains {
        d.0 = id(d.0);
    }
    plan.sites = Vec::new();
    plan.unexplained = Vec::new();
}
