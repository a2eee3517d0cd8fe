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

    /// The extents where some need starts to apply in some section, ascending (empty when no
    /// need begins late), at most `MAX_REGIMES − 1` of them, and the first one left out: past
    /// it the plan for every N, which waits for every need everywhere, serves alone.
    fn bounds(&self) -> (Vec<i64>, Option<i64>) {
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
            // A need decided by enumeration (`periodic.rs`): the body's count serves its
            // iterations S − stage … N − 1 − stage, so it waits for a newer group from the N
            // that first runs an iteration meeting the producer nearer than every earlier one;
            // likewise an epilogue step k, whose iterations start at S + k − stage.
            if let Some(known) = &n.symbolic {
                out.extend(
                    known
                        .shortenings(s_max - stage)
                        .into_iter()
                        .map(|j| j + stage + 1)
                        .filter(|&b| b > s_max + 1),
                );
                for k in 0..stage.min(s_max) {
                    out.extend(
                        known
                            .shortenings(s_max + k - stage)
                            .into_iter()
                            .map(|j| j + stage - k)
                            .filter(|&b| b > s_max),
                    );
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        let left_out = out.get(MAX_REGIMES - 1).copied();
        out.truncate(MAX_REGIMES - 1);
        (out, left_out)
    }

    /// Plans the ranges of N below the last bound and gives them to `main` (the plan of the
    /// rest), their waits named by `main`'s sites: a wait at the same place is the same site,
    /// and a wait at a place where `main` has none (a unit whose needs another unit's wait
    /// covers at the longer extents) becomes a site of `main`'s whose summary says at which N
    /// it waits. Leaves `main` alone if any range fails to plan: it is sound at every N by
    /// itself.
    pub(super) fn add_to(&self, main: &mut SyncPlan) {
        if self.p.sched.extent.as_const().is_some() {
            return;
        }
        let (bounds, left_out) = self.bounds();
        if let Some(from) = left_out.filter(|_| self.explain) {
            let last = bounds.last().copied().unwrap_or(from);
            for site in &mut main.sites {
                site.summary.push_str(&format!(
                    "; from N = {last} on its count is the one for every N: the extents at which this loop's needs begin (the next at N = {from}) are more than the {MAX_REGIMES} ranges of N a program chooses its counts among"
                ));
            }
        }
        let mut regimes: Vec<Regime> = Vec::with_capacity(bounds.len());
        let mut added: Vec<super::WaitSite> = Vec::new();
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
            if !same_steps(&plan, main) {
                return;
            }
            let from = regimes.last().map_or(0, |r| r.below);
            let ids = self.main_sites(&plan, main, &mut added, (from, below - 1));
            renumber(&mut plan, &ids);
            regimes.push(Regime { below, plan });
        }
        main.range_sites = added.len();
        main.sites.extend(added);
        main.regimes = regimes;
    }

    /// For each site of `plan`, the id of `main`'s at the same place, or of one added (to
    /// `added`, numbered after `main`'s) for a wait `main` does not have, which waits at the N
    /// of `range` (and perhaps of other ranges: its summary is extended).
    fn main_sites(
        &self,
        plan: &SyncPlan,
        main: &SyncPlan,
        added: &mut Vec<super::WaitSite>,
        (lo, hi): (i64, i64),
    ) -> Vec<u32> {
        let used = used_sites(plan);
        let key = |s: &super::WaitSite| (s.section, s.before, s.queue);
        plan.sites
            .iter()
            .map(|site| {
                if let Some(s) = main.sites.iter().find(|s| key(s) == key(site)) {
                    return s.id;
                }
                if !used.contains(&site.id) {
                    // Not in the program: its id is never looked up.
                    return site.id;
                }
                let range = if lo == hi {
                    format!("N = {lo}")
                } else {
                    format!("N = {lo} … {hi}")
                };
                if let Some(s) = added.iter_mut().find(|s| key(s) == key(site)) {
                    if self.explain {
                        s.summary.push_str(&format!(", {range}"));
                    }
                    return s.id;
                }
                let id = (main.sites.len() + added.len()) as u32;
                let summary = if !self.explain {
                    String::new()
                } else {
                    let what = match site.before {
                        Some(u) => format!(
                            "{} uses data produced asynchronously on queue {}",
                            self.p.sched.label(u),
                            site.queue
                        ),
                        None => format!("queue {}'s last groups must land before the loop ends", site.queue),
                    };
                    format!("{what}; at the longer extents another wait covers it, so it waits only at {range}")
                };
                added.push(super::WaitSite {
                    id,
                    summary,
                    ..site.clone()
                });
                id
            })
            .collect()
    }
}

/// Whether `plan` runs the same units at the same steps as `main` (their programs then differ
/// in their waits only).
fn same_steps(plan: &SyncPlan, main: &SyncPlan) -> bool {
    let steps = |p: &SyncPlan| -> Vec<(usize, Vec<usize>)> {
        p.prologue
            .iter()
            .chain(p.body.iter())
            .chain(p.epilogue.iter())
            .map(|s| (s.items.len(), s.items.iter().map(|i| i.unit).collect()))
            .collect()
    };
    steps(plan) == steps(main)
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
