//! Needs decided by enumeration under a symbolic extent. What an iteration touches does not
//! depend on N when no index, bound or condition of its unit mentions it, and the producer
//! instances an iteration may meet are all earlier ones: so the loop's first iterations can be
//! enumerated whatever N is (the prologue's steps run those). When what both units touch of the
//! need's buffer — its indices, every condition and loop bound — repeats with the iteration from
//! some iteration i0 on, with a period P (`eventual.rs`), and the buffer is a ring of v slots,
//! the distance at which iteration j meets its producer depends only on j mod L, L = lcm(P, v),
//! once j ≥ i0 + L + 1: a producer instance from i0 on is met at the same distance (one L
//! shorter would meet too), one from before i0 at a distance L longer every L iterations. One
//! more L enumerated gives it at every iteration, so the body's one count (the shortest distance
//! over every iteration it may run) and each epilogue step's are exact, not the dependence
//! analysis' conservative distance.

use super::eventual::{cond_form, form};
use super::exact::meetings;
use super::Need;
use crate::affine::lcm;
use crate::instances::{touches_of_first_iterations, Touch};
use crate::ir::{for_each_read, Node, VarId};
use crate::shape::LoopShape;

/// Iterations enumerated at most for one need: those before its units repeat and two periods.
const MAX_WINDOW: i64 = 512;

/// What a consumer iteration meets of its producer (`SymbolicNeed::meeting_at`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meeting {
    /// The producer instance this many iterations back.
    Distance(i64),
    /// The producer instance of this iteration, from before the units repeat.
    Before(i64),
}

/// A need's distance at each consumer iteration as enumeration found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolicNeed {
    /// At consumer iteration j (index j − lo), the shortest distance at which it meets the
    /// producer, `None` where it meets none.
    by_iteration: Vec<Option<i64>>,
    /// `(from, period)`: from iteration `from` on, iteration j meets its producer at the
    /// distance j − period does when that is at most `period`, else at one `period` longer.
    /// `None` when only the iterations enumerated are known.
    repeats: Option<(i64, i64)>,
}

impl SymbolicNeed {
    /// The distance at consumer iteration `j`: `None` where not known, `Some(None)` where it
    /// meets no producer instance.
    pub fn at(&self, j: i64) -> Option<Option<i64>> {
        let (from, period) = match self.repeats {
            Some((from, period)) if j >= from + period && period > 0 => (from, period),
            _ => return self.by_iteration.get(usize::try_from(j).ok()?).copied(),
        };
        let same = from + (j - from) % period;
        let d = self
            .by_iteration
            .get(usize::try_from(same).ok()?)
            .copied()?;
        // A distance within the period is to a producer instance that repeats too; a longer
        // one is to an instance before the units repeat, the same one for every period.
        Some(d.map(|d| if d <= period { d } else { d + (j - same) }))
    }

    /// What consumer iteration `j` meets, in a form that repeats with the need's period: a
    /// distance within the period as itself, a producer instance from before the units repeat
    /// (met at a distance growing with `j`) as that instance's iteration. `None` where not
    /// known, `Some(None)` where it meets none.
    pub fn meeting_at(&self, j: i64) -> Option<Option<Meeting>> {
        let d = self.at(j)?;
        Some(d.map(|d| match self.repeats {
            Some((from, period)) if j >= from + period && d > period => Meeting::Before(j - d),
            _ => Meeting::Distance(d),
        }))
    }

    /// The shortest distance over the consumer iterations `lo ..= hi` (`hi` `None`: every
    /// iteration from `lo` on): `None` where not known, `Some(None)` where none meets.
    pub fn shortest(&self, lo: i64, hi: Option<i64>) -> Option<Option<i64>> {
        let lo = lo.max(0);
        // Past `from + period` iterations repeat: one period from where they start is all.
        let last = match (self.repeats, hi) {
            (Some((from, period)), hi) => {
                let repeated = lo.max(from) + period - 1;
                hi.map_or(repeated, |hi| hi.min(repeated))
            }
            (None, Some(hi)) => hi,
            (None, None) => return None,
        };
        let mut best: Option<i64> = None;
        for j in lo..=last {
            if let Some(d) = self.at(j)? {
                best = Some(best.map_or(d, |b| b.min(d)));
            }
        }
        Some(best)
    }
}

impl SymbolicNeed {
    /// From which iteration, and with which period, the distances repeat (`None`: only the
    /// iterations enumerated are known).
    pub fn repeats(&self) -> Option<(i64, i64)> {
        self.repeats
    }

    /// The shortest distance over the iterations max(N, S) + `offset` of the extents N of
    /// `class` (an epilogue step's, `s_max` = S): `None` where not known (only the iterations
    /// enumerated are), `Some(None)` where none meets. Past `from + period` a distance within
    /// the period repeats and a longer one grows with the iteration, so one common period of
    /// the class and the repetition past there is all.
    pub fn shortest_at_extents(
        &self,
        class: super::Residue,
        s_max: i64,
        offset: i64,
    ) -> Option<Option<i64>> {
        let last = match (self.repeats, class.below) {
            (Some((from, period)), _) => {
                let m = class.modulus.max(1);
                class.first().max(s_max).max(from + period - offset) + lcm(period, m)? + m
            }
            (None, Some(below)) => below - 1,
            (None, None) => return None,
        };
        let mut best: Option<i64> = None;
        for n in class.up_to(last) {
            let j = n.max(s_max) + offset;
            if j < 0 {
                continue;
            }
            if let Some(d) = self.at(j)? {
                best = Some(best.map_or(d, |b| b.min(d)));
            }
        }
        Some(best)
    }

    /// The last consumer iteration that meets the producer, where none after it does (the
    /// consumer stops, `if i < 4:`, or the producer's elements stop being touched); `None`
    /// where meetings go on, or are not known past the iterations enumerated.
    pub fn last_meeting(&self) -> Option<i64> {
        let (from, period) = self.repeats?;
        let from = from.max(0);
        if (from..from + period.max(1)).any(|j| !matches!(self.at(j), Some(None))) {
            return None;
        }
        (0..from)
            .rev()
            .find(|&j| matches!(self.at(j), Some(Some(_))))
    }

    /// The consumer iterations from `lo` on at which the shortest distance over `lo ..= j`
    /// shortens (or first exists), ascending, where enumeration decides it: from each of them
    /// on a count serving every iteration up to the last one a section runs waits for a newer
    /// group. The first iteration enumeration does not decide ends the list (the dependence
    /// analysis' distance stands from there on).
    pub fn shortenings(&self, lo: i64) -> Vec<i64> {
        let lo = lo.max(0);
        let last = match self.repeats {
            Some((from, period)) => lo.max(from) + period - 1,
            None => i64::try_from(self.by_iteration.len()).unwrap_or(0),
        };
        let mut out = Vec::new();
        let mut best: Option<i64> = None;
        for j in lo..=last {
            let Some(d) = self.at(j) else {
                out.push(j);
                break;
            };
            if let Some(d) = d.filter(|&d| best.is_none_or(|b| d < b)) {
                best = Some(d);
                out.push(j);
            }
        }
        out
    }
}

/// Under a symbolic extent, each need's distances decided by enumeration (`Need::symbolic`),
/// where its units can be enumerated: at the first S iterations (S the number of stages), and at
/// every iteration when what both units touch of its buffer repeats with the iteration.
pub(super) fn refine(program: &crate::ir::Program, p: &LoopShape, needs: &mut [Need]) {
    let units = &p.sched.units;
    let var = p.sched.var;
    let s_max = p.stages();
    let mut env = program.env(&Default::default());
    // The iterations each need enumerates, and from where and how they repeat.
    let windows: Vec<(i64, Option<(i64, i64)>)> = needs
        .iter()
        .map(|n| {
            let mut unit = |pos: usize| {
                let u = units.get(pos)?;
                repeats_of(&u.node, var, n.buffer, &mut env)
            };
            let versions = p.versions_of(n.buffer).max(1);
            let repeats =
                unit(n.producer)
                    .zip(unit(n.consumer))
                    .and_then(|((fa, pa), (fb, pb))| {
                        let ring = lcm(lcm(pa, pb)?, versions)?;
                        let from = fa.max(fb).max(0) + ring + 1;
                        (from + ring <= MAX_WINDOW).then_some((from, ring))
                    });
            // Where one index moves with the iteration (`S0[i + 1]` against `S0[(i // 2) % 16]`)
            // nothing repeats, but the loop stays within the buffer only while the moving
            // index does: enumerating as many iterations as the buffer is long (twice, and the
            // stages) decides the need at every iteration of every extent that runs cleanly.
            let moving = program
                .buffer(n.buffer)
                .and_then(|b| b.shape.as_ref())
                .and_then(|shape| shape.iter().copied().max())
                .map_or(s_max, |len| (2 * len + s_max).min(MAX_WINDOW));
            let window = repeats.map_or(s_max.max(moving), |(from, ring)| s_max.max(from + ring));
            (window, repeats)
        })
        .collect();
    let touches: Vec<Option<Vec<Vec<Touch>>>> = units
        .iter()
        .enumerate()
        .map(|(pos, unit)| {
            let window = needs
                .iter()
                .zip(&windows)
                .filter(|(n, _)| n.producer == pos || n.consumer == pos)
                .map(|(_, &(w, _))| w)
                .max()?;
            if unit.inner.is_some() {
                return None;
            }
            touches_of_first_iterations(program, &p.sched, unit, window)
        })
        .collect();
    let mut steps = crate::limits::MAX_NEED_STEPS;
    for (n, &(window, repeats)) in needs.iter_mut().zip(&windows) {
        let w = usize::try_from(window).unwrap_or(0);
        let of = |pos: usize| {
            touches
                .get(pos)
                .and_then(Option::as_deref)
                .and_then(|t| t.get(..w))
        };
        let (Some(producer), Some(consumer)) = (of(n.producer), of(n.consumer)) else {
            continue;
        };
        let same_iteration = units
            .get(n.producer)
            .zip(units.get(n.consumer))
            .is_some_and(|(a, b)| a.pos < b.pos);
        let versions = p.versions_of(n.buffer).max(1);
        let Some(by_iteration) =
            meetings(n, producer, consumer, versions, same_iteration, &mut steps)
        else {
            continue;
        };
        n.symbolic = Some(SymbolicNeed {
            by_iteration,
            repeats,
        });
    }
}

/// Whether an async unit runs an instance at each iteration under a symbolic extent: enumerated
/// up to where its conditions and loop bounds repeat (`if i % 2 == 1:` every 2 iterations from
/// 0 on), and repeating after.
#[derive(Clone, Debug)]
pub(super) struct SymbolicRuns {
    by_iteration: Vec<bool>,
    from: i64,
    period: i64,
}

impl SymbolicRuns {
    /// Whether the unit runs an instance at iteration `j` (`None` below 0).
    pub(super) fn at(&self, j: i64) -> Option<bool> {
        let j = if j >= self.from + self.period {
            self.from + (j - self.from) % self.period
        } else {
            j
        };
        self.by_iteration.get(usize::try_from(j).ok()?).copied()
    }

    /// From which iteration, and with which period, it repeats.
    pub(super) fn repeats(&self) -> (i64, i64) {
        (self.from, self.period)
    }
}

/// By unit, under a symbolic extent, whether each asynchronous one runs an instance at each
/// iteration (`None` for the others, and where it does not repeat within `MAX_WINDOW`): the
/// drain at the end may let an empty last group stay (`sections.rs`).
pub(super) fn runs_by_iteration(
    program: &crate::ir::Program,
    p: &LoopShape,
) -> Vec<Option<SymbolicRuns>> {
    let mut env = program.env(&Default::default());
    p.sched
        .units
        .iter()
        .map(|u| {
            if !u.is_async || u.inner.is_some() {
                return None;
            }
            let (from, period) = runs_repeat(&u.node, p.sched.var, &mut env)?;
            let from = from.max(0);
            if from + 2 * period > MAX_WINDOW {
                return None;
            }
            let touches = touches_of_first_iterations(program, &p.sched, u, from + period)?;
            Some(SymbolicRuns {
                by_iteration: touches.iter().map(|t| !t.is_empty()).collect(),
                from,
                period,
            })
        })
        .collect()
}

/// Under a symbolic extent N, how many of queue `q`'s groups (`g` a step) before group g·N,
/// newest first, hold no statement instance: `None` where some unit of the queue was not
/// enumerated, `i64::MAX` when every one is empty.
pub(super) fn trailing_empty(
    groups: &[super::Group],
    runs: &[Option<SymbolicRuns>],
    q: i64,
    g: i64,
    n: i64,
) -> Option<i64> {
    let g = g.max(1);
    let mut group = g.checked_mul(n)? - 1;
    let mut count = 0;
    while group >= 0 {
        let (j, slot) = (group / g, group % g);
        for gr in groups
            .iter()
            .filter(|gr| gr.queue == q && i64::from(gr.slot) == slot)
        {
            for &u in &gr.units {
                if runs.get(u)?.as_ref()?.at(j)? {
                    return Some(count);
                }
            }
        }
        count += 1;
        group -= 1;
    }
    Some(i64::MAX)
}

/// From which iteration, and with which period, whether `node` runs an instance repeats: its
/// conditions and loop bounds (`eventual::form`); `None` where one does not repeat.
fn runs_repeat(node: &Node, var: VarId, env: &mut Vec<i64>) -> Option<(i64, i64)> {
    fn combine(a: (i64, i64), b: (i64, i64)) -> Option<(i64, i64)> {
        Some((a.0.max(b.0), lcm(a.1, b.1)?))
    }
    let all = |body: &[Node], acc: (i64, i64), env: &mut Vec<i64>| {
        body.iter()
            .try_fold(acc, |acc, n| combine(acc, runs_repeat(n, var, env)?))
    };
    match node {
        Node::Barrier { .. } | Node::Assign(_) => Some((0, 1)),
        Node::For { lo, hi, body, .. } => {
            let (l, h) = (form(lo, var, env)?, form(hi, var, env)?);
            if l.delta != 0 || h.delta != 0 {
                return None;
            }
            let bounds = combine((l.from, l.period), (h.from, h.period))?;
            all(body, bounds, env)
        }
        Node::If { cond, body, .. } => {
            let truth = cond_form(cond, var, env)?.repeats();
            all(body, truth, env)
        }
        Node::Wait { body, .. }
        | Node::Commit { body, .. }
        | Node::AsyncScope { body, .. }
        | Node::Section { body, .. } => all(body, (0, 1), env),
    }
}

/// From which iteration, and with which period, what `node` touches of `buffer` repeats with
/// the iteration: every index of `buffer` it reads or writes, every condition and loop bound
/// (`eventual::form`); `None` where one does not repeat or moves with the iteration.
fn repeats_of(
    node: &Node,
    var: VarId,
    buffer: crate::ir::BufId,
    env: &mut Vec<i64>,
) -> Option<(i64, i64)> {
    fn combine(a: (i64, i64), b: (i64, i64)) -> Option<(i64, i64)> {
        Some((a.0.max(b.0), lcm(a.1, b.1)?))
    }
    let of_access = |a: &crate::ir::Access, env: &mut Vec<i64>| -> Option<(i64, i64)> {
        if a.buffer != buffer {
            return Some((0, 1));
        }
        a.indices.iter().try_fold((0, 1), |acc, e| {
            let f = form(e, var, env).filter(|f| f.delta == 0)?;
            combine(acc, (f.from, f.period))
        })
    };
    let all = |body: &[Node], acc: (i64, i64), env: &mut Vec<i64>| {
        body.iter()
            .try_fold(acc, |acc, n| combine(acc, repeats_of(n, var, buffer, env)?))
    };
    match node {
        Node::Barrier { .. } => Some((0, 1)),
        Node::Assign(a) => {
            let mut acc = of_access(&a.target, env);
            for_each_read(&a.value, &mut |r| {
                acc = match acc {
                    Some(x) => of_access(r, env).and_then(|y| combine(x, y)),
                    None => None,
                };
            });
            acc
        }
        Node::For { lo, hi, body, .. } => {
            let (l, h) = (form(lo, var, env)?, form(hi, var, env)?);
            if l.delta != 0 || h.delta != 0 {
                return None;
            }
            let bounds = combine((l.from, l.period), (h.from, h.period))?;
            all(body, bounds, env)
        }
        Node::If { cond, body, .. } => {
            let truth = cond_form(cond, var, env)?.repeats();
            all(body, truth, env)
        }
        Node::Wait { body, .. }
        | Node::Commit { body, .. }
        | Node::AsyncScope { body, .. }
        | Node::Section { body, .. } => all(body, (0, 1), env),
    }
}
