//! Plans per range of a symbolic extent. A need that begins at some consumer iteration
//! (`Need::starts`: indices clamped by `min`/`max` that meet only once both clamp) applies in a
//! section only at the extents that run such an iteration there: the body from N = from +
//! stage + 1 on, a symbolic epilogue's step k from N = from + stage − k on (and likewise its
//! shortest distance shortens where a shorter one begins). One plan for every
//! N would have to wait for it at every N, forcing groups nothing reads at the short ones; so the
//! extents are cut where some need starts to apply, each range is planned with the needs that
//! apply in it, and the pipelined program's counts choose by N (`pipelined::build`).

use super::groups::Grouping;
use super::periodic::Meeting;
use super::{planned, Need, Regime, Residue, Serves, SyncPlan};
use crate::diagnostic::Diagnostic;
use crate::shape::LoopShape;

/// Ranges of N a program chooses among at most: each is a whole plan, and each count a choice
/// among them (9 in random loop 6439, `S0[min(i + 1, 7)]` against `S0[(2 * i + 3) % 8]`: its
/// needs begin at eight extents, and past them they differ by N's residue).
const MAX_REGIMES: usize = 12;

/// Extents at which needs begin that are cut at, at most, before adjacent ranges that wait
/// alike are merged (`Regimes::add_to`): each range is planned.
const MAX_BOUNDS: usize = 24;

/// The largest modulus by which the longer extents are told apart (`Regimes::tail_modulus`):
/// one plan for each residue (16: `S[(i // 2) % 8]` against a fixed element, met at two
/// iterations of every sixteen; the modulus is common to every need of the loop).
const MAX_MODULUS: i64 = 16;

/// Extents past where the ranges end compared to find the modulus of the epilogue's needs.
const MODULUS_WINDOW: i64 = 48;

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
    /// Under a symbolic extent, per async unit, whether it runs an instance at each iteration
    /// (`periodic::runs_by_iteration`).
    pub(super) symbolic_runs: &'a [Option<super::periodic::SymbolicRuns>],
    pub(super) explain: bool,
}

impl Regimes<'_> {
    pub(super) fn plan(
        &self,
        regime_hi: Option<i64>,
        regime_class: Option<Residue>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<SyncPlan> {
        planned(self, regime_hi, regime_class, diags)
    }

    /// The smallest modulus m ≤ `MAX_MODULUS` such that, at the longer extents N (from where
    /// every need's iterations repeat on), what every epilogue step's iteration
    /// (max(N, S) + k − stage) needs, as enumeration decides it (`periodic.rs`), and how many
    /// of each queue's last groups are empty (`if i % 2 == 1:`) are the same at N and N + m,
    /// and not the same at every N; `None` where there is none (every N alike, or
    /// no such period).
    fn tail_modulus(&self) -> Option<i64> {
        let s_max = self.p.stages();
        // A meeting with a producer instance from before the units repeat is met at a
        // distance growing with N (`S[1]` written only at iteration 1): it is compared as that
        // instance, which every N of a residue meets alike.
        let signature = |n: i64| -> (Vec<Option<Option<Meeting>>>, Vec<Option<i64>>) {
            let (mut out, mut empties) = (Vec::new(), Vec::new());
            for need in self.needs {
                let (Some(known), Some(u)) =
                    (&need.symbolic, self.p.sched.units.get(need.consumer))
                else {
                    continue;
                };
                out.extend(
                    (0..u.stage.min(s_max)).map(|k| known.meeting_at(n.max(s_max) + k - u.stage)),
                );
            }
            // And how many of each queue's last groups hold nothing (the drain lets them stay).
            for (&q, &g) in &self.grouping.per_step {
                let empty = super::periodic::trailing_empty(
                    &self.grouping.groups,
                    self.symbolic_runs,
                    q,
                    i64::from(g),
                    n,
                );
                empties.push(empty);
            }
            (out, empties)
        };
        // Compared where every need repeats (`SymbolicNeed::at`): before, a distance may
        // change once (`S[(i // 2) % 8]` first meets an earlier instance at i = 16).
        let settled = self
            .needs
            .iter()
            .filter_map(|n| n.symbolic.as_ref()?.repeats())
            .chain(self.symbolic_runs.iter().flatten().map(|r| r.repeats()))
            .map(|(from, period)| from + period + s_max)
            .max()?;
        let start = settled;
        let sigs: Vec<_> = (start..start + MODULUS_WINDOW).map(signature).collect();
        if sigs.windows(2).all(|w| w.first() == w.get(1)) {
            return None;
        }
        (2..=MAX_MODULUS).find(|&m| {
            let m = usize::try_from(m).unwrap_or(usize::MAX);
            sigs.iter().zip(sigs.iter().skip(m)).all(|(a, b)| a == b)
        })
    }

    /// The extents where some need starts to apply in some section, ascending (empty when no
    /// need begins late), at most `MAX_BOUNDS` of them, and the first one left out: past it the
    /// plan for every N, which waits for every need everywhere, serves alone.
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
                // Where the meetings end (`if i < 4:`), from the N whose epilogue step k runs
                // an iteration past the last, that step needs nothing of this producer.
                if let Some(last) = known.last_meeting() {
                    out.extend(
                        (0..stage.min(s_max))
                            .map(|k| last + stage - k + 1)
                            .filter(|&b| b > s_max),
                    );
                }
            }
        }
        out.extend(self.drain_extents());
        out.sort_unstable();
        out.dedup();
        let left_out = out.get(MAX_BOUNDS).copied();
        out.truncate(MAX_BOUNDS);
        (out, left_out)
    }

    /// The extents at which what a queue's drain may let stay changes, before the queue's runs
    /// repeat: where it first commits a group holding an instance (a statement under `if i >= 5:`
    /// runs at no N ≤ 5: below, the drain has nothing to wait for), where the number of empty
    /// groups after its newest holding one changes while that group moves with N (one under
    /// `if i < 1:` in the last slot of a step), and where that group stops moving (its
    /// statements stop, `if i < 7:`: from there the drain lets every later group stay)
    /// (`Planner::kept_at_extents`). A plan for each range waits for less.
    fn drain_extents(&self) -> Vec<i64> {
        let s_max = self.p.stages();
        let mut out = Vec::new();
        for (&q, &g) in &self.grouping.per_step {
            let mut units = self
                .grouping
                .groups
                .iter()
                .filter(|gr| gr.queue == q)
                .flat_map(|gr| gr.units.iter());
            // Past where every unit's runs repeat, one more period holds every pattern.
            let Some(last) = units.try_fold(0, |last: i64, &u| {
                let (from, period) = self.symbolic_runs.get(u)?.as_ref()?.repeats();
                Some(last.max(from + period))
            }) else {
                continue;
            };
            let g = i64::from(g);
            // The empty groups last, and the newest group holding an instance (`None`: none).
            let tail = |n: i64| {
                let empty = super::periodic::trailing_empty(
                    &self.grouping.groups,
                    self.symbolic_runs,
                    q,
                    g,
                    n,
                )?;
                Some((empty, (empty < i64::MAX).then(|| g * n - 1 - empty)))
            };
            for n in 1..=last + s_max {
                let (Some((before, was)), Some((now, is))) = (tail(n - 1), tail(n)) else {
                    continue;
                };
                let moved = match (was, is) {
                    (Some(a), Some(b)) => a != b,
                    _ => true,
                };
                if before != now && moved {
                    out.push(n);
                }
            }
            // The last iteration any of the queue's statements runs at, when none runs past
            // where their runs repeat (every period is at most `last`).
            let runs = |j: i64| {
                let units = self.grouping.groups.iter().filter(|gr| gr.queue == q);
                units.flat_map(|gr| gr.units.iter()).any(|&u| {
                    self.symbolic_runs
                        .get(u)
                        .and_then(Option::as_ref)
                        .and_then(|r| r.at(j))
                        .unwrap_or(true)
                })
            };
            if !(last..=2 * last).any(runs) {
                if let Some(stop) = (0..last).rev().find(|&j| runs(j)) {
                    out.push(stop + 1);
                }
            }
        }
        out
    }

    /// Plans the ranges of N below the last bound and gives them to `main` (the plan of the
    /// rest), their waits named by `main`'s sites: a wait at the same place is the same site,
    /// and a wait at a place where `main` has none (a unit whose needs another unit's wait
    /// covers at the longer extents) becomes a site of `main`'s whose summary says at which N
    /// it waits. Every range up to `MAX_BOUNDS` is planned first and adjacent ones that wait
    /// alike are one: only where more than `MAX_REGIMES` still differ are the ranges those of
    /// the first bounds, the plan for every N serving past them. Leaves `main` alone if any
    /// range fails to plan: it is sound at every N by itself.
    pub(super) fn add_to(&self, main: &mut SyncPlan) {
        if self.p.sched.extent.as_const().is_some() {
            return;
        }
        let (all, beyond) = self.bounds();
        let modulus = self.tail_modulus();
        let (bounds, left_out, planned) = match self.ranges(main, &all, modulus) {
            Some(planned) if bands(&planned.0) <= MAX_REGIMES => (all, beyond, planned),
            _ => {
                let left_out = all.get(MAX_REGIMES - 1).copied().or(beyond);
                let first: Vec<i64> = all.iter().copied().take(MAX_REGIMES - 1).collect();
                let Some(planned) = self.ranges(main, &first, modulus) else {
                    return;
                };
                (first, left_out, planned)
            }
        };
        if let Some(from) = left_out.filter(|_| self.explain) {
            let last = bounds.last().copied().unwrap_or(from);
            for site in &mut main.sites {
                site.summary.push_str(&format!(
                    "; from N = {last} on its count is the one for every N: the extents at which this loop's needs begin (the next at N = {from}) are more than the {MAX_REGIMES} ranges of N a program chooses its counts among"
                ));
            }
        }
        let (regimes, added) = planned;
        main.range_sites = added.len();
        main.sites.extend(added);
        main.regimes = regimes;
    }

    /// The plans of the ranges of N cut at `bounds` (ascending) and past the last, for `main`
    /// (the plan for every N), with the sites they add; a range that waits as the next one
    /// does (or, the last below a bound, as `main` where nothing follows it) is left to that
    /// one. `None` where a range fails to plan.
    fn ranges(
        &self,
        main: &SyncPlan,
        bounds: &[i64],
        modulus: Option<i64>,
    ) -> Option<(Vec<Regime>, Vec<super::WaitSite>)> {
        let mut regimes: Vec<Regime> = Vec::with_capacity(bounds.len());
        let mut added: Vec<super::WaitSite> = Vec::new();
        let mut from = 0;
        for below in bounds.iter().map(|&b| Some(b)).chain([None]) {
            // The range as one plan, then (where the needs differ by N's phase) one plan per
            // residue of N, kept where they differ.
            // Planned for its own N: an epilogue step runs the iterations those N run there,
            // from max(from, S) + k − stage on, and the drain knows which last groups are
            // empty at all of them.
            let mut whole_added = added.clone();
            let whole_class = Residue {
                from,
                below,
                modulus: 1,
                residue: 0,
            };
            let range = match below {
                Some(b) if from == b - 1 => format!("N = {from}"),
                Some(b) => format!("N = {from} … {}", b - 1),
                None => format!("N ≥ {from}"),
            };
            let whole = match below {
                Some(below) => {
                    let plan =
                        self.range_plan(main, Some(below), whole_class, &range, &mut whole_added)?;
                    Some(Regime {
                        serves: Serves::Below(below),
                        plan,
                    })
                }
                // Past the ranges, where they end above 0 and that changes a wait.
                None if from > 0 => self
                    .range_plan(main, None, whole_class, &range, &mut whole_added)
                    .filter(|plan| !same_waits(plan, main))
                    .map(|plan| Regime {
                        serves: Serves::Residue(whole_class),
                        plan,
                    }),
                None => None,
            };
            let by_residue = modulus
                .and_then(|m| self.residue_plans(main, (from, below), m, &added))
                .filter(|(plans, _)| {
                    // Kept only where some residue's waits differ from another's.
                    plans.windows(2).any(|w| match w {
                        [a, b] => !same_waits(&a.plan, &b.plan),
                        _ => false,
                    })
                });
            match by_residue {
                Some((plans, with_added)) => {
                    regimes.extend(plans);
                    added = with_added;
                }
                None => {
                    // A range below a bound waiting as the one before it does: that one
                    // serves both (it serves the N below its bound from the previous one's).
                    if let (Some(new), Some(last)) = (&whole, regimes.last_mut()) {
                        if matches!(
                            (last.serves, new.serves),
                            (Serves::Below(_), Serves::Below(_))
                        ) && same_waits(&last.plan, &new.plan)
                        {
                            last.serves = new.serves;
                            added = whole_added;
                            if let Some(below) = below {
                                from = below;
                            }
                            continue;
                        }
                    }
                    regimes.extend(whole);
                    added = whole_added;
                }
            }
            if let Some(below) = below {
                from = below;
            }
        }
        // The last range below a bound, where `main` serves past it and they wait alike.
        while let Some(last) = regimes.last() {
            if matches!(last.serves, Serves::Below(_)) && same_waits(&last.plan, main) {
                regimes.pop();
            } else {
                break;
            }
        }
        Some((regimes, added))
    }

    /// The plan for the N of `class` (below its bound, or every N from its start), its waits
    /// renumbered as `main`'s sites (`added` gets those `main` lacks); `None` where it fails
    /// to plan or runs other steps than `main`.
    fn range_plan(
        &self,
        main: &SyncPlan,
        below: Option<i64>,
        class: Residue,
        range: &str,
        added: &mut Vec<super::WaitSite>,
    ) -> Option<SyncPlan> {
        let mut scratch = Vec::new();
        let mut plan = self.plan(below.map(|b| b - 1), Some(class), &mut scratch)?;
        if scratch.iter().any(Diagnostic::is_error) {
            return None;
        }
        if below.is_some_and(|b| b - 1 <= self.p.stages()) {
            // No N of the range runs the body: its waits are no one's (the program takes
            // the next range's there).
            for item in plan.body.iter_mut().flat_map(|b| b.items.iter_mut()) {
                item.waits.clear();
            }
        }
        if !same_steps(&plan, main) {
            return None;
        }
        let ids = self.main_sites(&plan, main, added, range);
        renumber(&mut plan, &ids);
        Some(plan)
    }

    /// One plan per residue of N modulo `modulus` among the N from `from` on, below `below`
    /// (every N from `from` on: `None`), skipping residues with no such N; with the sites
    /// `added` then has. `None` where one fails to plan.
    fn residue_plans(
        &self,
        main: &SyncPlan,
        (from, below): (i64, Option<i64>),
        modulus: i64,
        added: &[super::WaitSite],
    ) -> Option<(Vec<Regime>, Vec<super::WaitSite>)> {
        let mut added = added.to_vec();
        let mut plans = Vec::new();
        for residue in 0..modulus {
            let class = Residue {
                from,
                below,
                modulus,
                residue,
            };
            if below.is_some_and(|b| class.first() >= b) {
                continue;
            }
            let range = match below {
                Some(b) => format!("N = {from} … {} with N % {modulus} = {residue}", b - 1),
                None => format!("N ≥ {from} with N % {modulus} = {residue}"),
            };
            let plan = self.range_plan(main, below, class, &range, &mut added)?;
            plans.push(Regime {
                serves: Serves::Residue(class),
                plan,
            });
        }
        Some((plans, added))
    }

    /// For each site of `plan`, the id of `main`'s at the same place, or of one added (to
    /// `added`, numbered after `main`'s) for a wait `main` does not have, which waits at the N
    /// of `range` (and perhaps of other ranges: its summary is extended).
    fn main_sites(
        &self,
        plan: &SyncPlan,
        main: &SyncPlan,
        added: &mut Vec<super::WaitSite>,
        range: &str,
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

/// The ranges of N below a bound (or past them) the program chooses among: a range's plans
/// for each residue of N are one.
fn bands(regimes: &[Regime]) -> usize {
    let below = |r: &Regime| match r.serves {
        Serves::Below(b) => Some(b),
        Serves::Residue(class) => class.below,
    };
    regimes
        .iter()
        .enumerate()
        .filter(|&(k, r)| k == 0 || regimes.get(k - 1).map(below) != Some(below(r)))
        .count()
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

/// Whether two plans of one loop wait alike (the same counts at the same places and drains).
fn same_waits(a: &SyncPlan, b: &SyncPlan) -> bool {
    a.prologue == b.prologue
        && a.body == b.body
        && a.epilogue == b.epilogue
        && a.drains == b.drains
        && a.drain_kept == b.drain_kept
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
