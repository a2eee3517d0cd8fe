//! The plan section by section: the prologue's steps, the body from a fixpoint checked stable,
//! the epilogue's steps, and the drains after them.

use super::planner::Planner;
use super::{DrainKept, StepPlan, StepTime, WaitInstance, WaitSite, BODY, T_REP};
use crate::ir::{Scope, SectionKind};
use std::collections::BTreeMap;

impl Planner<'_> {
    /// Steps 0 … S−1 from nothing complete; the groups known complete after the last.
    pub(super) fn plan_prologue(&mut self) -> (Vec<StepPlan>, Vec<i64>) {
        let s_max = self.p.stages();
        let mut covered: Vec<i64> = vec![-1; self.queues.len()];
        let mut prologue = Vec::with_capacity(usize::try_from(s_max).unwrap_or(0));
        for t in 0..s_max {
            let (plan, out) = self.plan(StepTime::Const(t), SectionKind::Prologue, covered);
            covered = out;
            if !plan.items.is_empty() {
                prologue.push(plan);
            }
        }
        (prologue, covered)
    }

    /// The one plan that serves every body step, if the loop has a body: the first step inherits
    /// the prologue's coverage, later ones the previous body step's; it starts from the
    /// prologue's and weakens until both are served. Returns what is known complete where the
    /// epilogue begins.
    pub(super) fn plan_body(&mut self, covered: Vec<i64>) -> (Option<StepPlan>, Vec<i64>) {
        let (extent, s_max, gs) = (self.extent, self.p.stages(), self.gs);
        if matches!(extent, Some(e) if e <= s_max) {
            return (None, covered);
        }
        let shift = |m: &[i64], by: i64| -> Vec<i64> {
            m.iter()
                .zip(gs)
                .map(|(&c, &g)| c.saturating_add(g.saturating_mul(by)))
                .collect()
        };
        match extent {
            Some(e) => self.body_distances = self.unforced_body_distances(e, &covered, None),
            None => self.symbolic_body = self.unforced_symbolic_body_distances(&covered),
        }
        let mut input = shift(&covered, T_REP - s_max);
        let mut result = None;
        let steady_state = body_fixpoint(self, None);
        // Trials lower each queue's input to `min(x0, N − g)`, N the newest group a body unit
        // needs (docs/benchmarks.md): planned at once when that is within the trials' reach, and
        // kept if it is a fixpoint (then it is sound, whatever the reasoning) with no error.
        // First the steady state alone: where it also serves the first body step, from what the
        // prologue left complete, a wait that only that step would need of the prologue's
        // groups is not waited for at every step. Under a symbolic extent too: whenever the
        // body runs, every prologue step ran, and the first body step is step S.
        if let Some(steady) = &steady_state {
            result = self.body_plan_if_sound(steady.clone(), steady, Some(&covered));
        }
        // Then, under a constant extent, the first body step's needs (from what the prologue
        // left complete) with the later steps' that the steady state leaves open: a need met
        // only at later iterations, of a group the step before already forced, is not waited
        // for at the first step, where it would force a group nothing needs yet.
        if let (None, Some(e), Some(steady)) = (&result, extent, &steady_state) {
            let after_the_first = self.unforced_body_distances(e, &covered, Some(steady));
            let all_iterations = std::mem::replace(&mut self.body_distances, after_the_first);
            let weakest: Vec<i64> = input.iter().zip(steady).map(|(&a, &b)| a.min(b)).collect();
            result = self.body_plan_if_sound(weakest, steady, Some(&covered));
            if result.is_none() {
                self.body_distances = all_iterations;
            }
        }
        if let Some(fixpoint) = result
            .is_none()
            .then(|| body_fixpoint(self, Some(&input)))
            .flatten()
        {
            // As the trials judge it (below), without building the vectors.
            result = self.body_plan_if_sound(fixpoint.clone(), &fixpoint, None);
        }
        for _ in 0..BODY_TRIALS {
            if result.is_some() {
                break;
            }
            // Where the input above does not apply: each trial is planned for real, and taken
            // back (sites and diagnostics) unless it is the fixpoint.
            let mark = self.mark();
            let (plan, out) = self.plan(BODY, SectionKind::Body, input.clone());
            let steady = shift(&out, -1);
            let next: Vec<i64> = input.iter().zip(&steady).map(|(&c, &s)| c.min(s)).collect();
            if next == input {
                result = Some((plan, out));
                break;
            }
            self.take_back(mark);
            input = next;
        }
        let (plan, out) = match result {
            Some(r) => r,
            None => {
                input = vec![NOTHING; self.queues.len()];
                self.plan(BODY, SectionKind::Body, input)
            }
        };
        // The last body step ends where the epilogue begins, with what the prologue forced
        // still complete (a queue the body waits on for nothing keeps it).
        let covered = match extent {
            Some(e) => shift(&out, e - 1 - T_REP)
                .iter()
                .zip(&covered)
                .map(|(&after, &before)| after.max(before))
                .collect(),
            None => {
                self.entry.after_body = Some(shift(&out, -1));
                covered
            }
        };
        (Some(plan), covered)
    }

    /// The body planned from `input`, kept when it leaves complete for the next step what it
    /// assumed complete (`assumed`, `stable`), with no error, and, given what the prologue left
    /// complete (`first`), serving the first body step too; taken back (its sites and
    /// diagnostics) otherwise.
    fn body_plan_if_sound(
        &mut self,
        input: Vec<i64>,
        assumed: &[i64],
        first: Option<&[i64]>,
    ) -> Option<(StepPlan, Vec<i64>)> {
        let mark = self.mark();
        let (plan, out) = self.plan(BODY, SectionKind::Body, input);
        let sound = stable(assumed, &out, self.gs)
            && !self.erred_since(mark)
            && first.is_none_or(|covered| self.serves_the_first_body_step(&plan, covered));
        if sound {
            Some((plan, out))
        } else {
            self.take_back(mark);
            None
        }
    }

    /// Steps E … E+S−1 from the body's (or the prologue's) coverage under a constant extent;
    /// under a symbolic one, S uniform steps from nothing known complete. Returns what is known
    /// complete after the last.
    pub(super) fn plan_epilogue(&mut self, mut covered: Vec<i64>) -> (Vec<StepPlan>, Vec<i64>) {
        let s_max = self.p.stages();
        let mut epilogue = Vec::with_capacity(usize::try_from(s_max).unwrap_or(0));
        match self.extent {
            Some(e) => {
                for t in s_max.max(e)..e + s_max {
                    let (plan, out) = self.plan(StepTime::Const(t), SectionKind::Epilogue, covered);
                    covered = out;
                    if !plan.items.is_empty() {
                        epilogue.push(plan);
                    }
                }
                (epilogue, covered)
            }
            None => {
                // The epilogue may follow the body or (for a short extent) the prologue: assume
                // nothing.
                let mut covered: Vec<i64> = vec![i64::MIN / 4; self.queues.len()];
                let by = T_REP - s_max;
                self.entry.stages = s_max;
                self.entry.prologue = self
                    .facts
                    .iter()
                    .map(|&(qi, group, j)| {
                        let g = self.gs.get(qi).copied().unwrap_or(0);
                        (qi, group + g * by, j + by)
                    })
                    .collect();
                self.facts.clear();
                for k in 0..s_max {
                    let (plan, out) = self.plan(
                        StepTime::Uniform {
                            epilogue_offset: Some(k),
                        },
                        SectionKind::Epilogue,
                        covered,
                    );
                    covered = out;
                    epilogue.push(plan);
                }
                (epilogue, covered)
            }
        }
    }

    /// Async writes land only when awaited, and nothing completes by itself at the end of the
    /// program: a final `wait(q, 0)` for every queue whose last groups no wait has forced (all
    /// of them under a symbolic extent). Returns those queues, their drains and, under a symbolic
    /// extent, what each drain lets stay at every N the plan serves (`SyncPlan::drain_kept`).
    pub(super) fn drain(&mut self, program: &crate::ir::Program, covered: &[i64]) -> Drains {
        let (units, extent, explain) = (&self.p.sched.units, self.extent, self.explain);
        let undrained: Vec<i64> = self
            .queues
            .iter()
            .zip(self.gs)
            .zip(covered)
            .enumerate()
            .filter(|&(qi, ((_, &g), &c))| match extent {
                Some(e) => c < g * e - 1,
                // The last group (of iteration max(E, S) − 1) forced by a wait of a consumer of
                // that very iteration: that wait runs whenever the iteration exists, and for
                // every E the newest nonempty group is forced the same way (docs/synchronization.md).
                // When a need of the queue begins late, or is decided iteration by iteration
                // (`periodic.rs`), the consumer of the last iteration of a short E may need
                // nothing there: some wait that runs must be seen to force it.
                None => {
                    let late = self.needs.iter().any(|n| {
                        self.queues.get(qi) == Some(&n.queue)
                            && (!n.starts.is_empty() || n.symbolic.is_some())
                    });
                    !self
                        .facts
                        .iter()
                        .any(|&(fq, fg, fj)| fq == qi && fg >= g * T_REP - 1 && fj < T_REP)
                        || (late && !self.short_extents_force_the_last_groups(qi, g))
                }
            })
            .map(|(_, x)| x)
            .map(|((&q, _), _)| q)
            .collect();
        let writes_global = |q: i64| {
            units.iter().any(|u| {
                u.is_async
                    && u.stage == q
                    && u.accesses.iter().any(|a| {
                        a.write && program.buffer(a.buffer).map(|b| b.scope) == Some(Scope::Global)
                    })
            })
        };
        let mut drains = Vec::with_capacity(undrained.len());
        let mut kept = BTreeMap::new();
        for q in undrained.iter() {
            // Under a constant extent, the newest group holding an instance: the last groups may
            // stay in flight when no statement runs in them (`if i % 2 == 1:` at an even last
            // iteration), and no drain is needed when every group after the forced ones is empty.
            let mut count = 0;
            if let (None, Some(class)) = (extent, self.regime_class) {
                // Under a symbolic extent, at N of one residue: the groups of the iterations
                // N … max(N, S) − 1 stay (`pipelined::build`) and so may the last ones before
                // them that hold nothing at every N of the residue.
                match self.kept_at_extents(*q, class) {
                    Some(DrainKept::Empty(k)) if k > 0 => {
                        count = k;
                        kept.insert(*q, DrainKept::Empty(k));
                    }
                    Some(after @ DrainKept::After(_)) => {
                        kept.insert(*q, after);
                    }
                    _ => {}
                }
            }
            if let Some(e) = extent {
                let Some(qi) = self.queues.iter().position(|x| x == q) else {
                    continue;
                };
                let g = self.gs.get(qi).copied().unwrap_or(1);
                let c = covered.get(qi).copied().unwrap_or(-1);
                match super::exact::newest_nonempty(self.groups, self.runs, *q, g, e, c) {
                    Some(None) => continue,
                    Some(Some(newest)) => count = g * e - 1 - newest,
                    None => {}
                }
            }
            let id = self.sites.len() as u32;
            self.sites.push(WaitSite {
                id,
                queue: *q,
                section: SectionKind::Epilogue,
                before: None,
                instances: vec![WaitInstance {
                    symbols: Vec::new(),
                    step: None,
                    count,
                    needs: Vec::new(),
                    arithmetic: if !explain {
                        String::new()
                    } else if let Some(DrainKept::After(newest)) = kept.get(q) {
                        format!("N = g·max(E, S) − 1 − {newest}: nothing completes by itself at the end of the program; the groups of queue {q} after group {newest} run no statement at any E")
                    } else if count > 0 {
                        format!("N = {count}: nothing completes by itself at the end of the program; the last {} of queue {q} run no statement", crate::english::count(usize::try_from(count).unwrap_or(0), "group"))
                    } else if extent.is_none() {
                        "N = g·(max(E, S) − E): nothing completes by itself at the end of the program; the groups of iterations E … max(E, S) − 1 are committed empty and may stay".into()
                    } else {
                        "N = 0: nothing completes by itself at the end of the program".into()
                    },
                    forces: None,
                }],
                summary: if !explain {
                    String::new()
                } else if writes_global(*q) {
                    format!("queue {q} writes global memory asynchronously; its last groups must land before the loop ends")
                } else {
                    format!("queue {q}'s last groups are never awaited by a consumer; they must land before the loop ends")
                },
            });
            drains.push((id, *q));
        }
        Drains {
            undrained,
            drains,
            kept,
        }
    }
}

/// The final drains of a plan (`Planner::drain`).
pub(super) struct Drains {
    /// The queues whose last groups no wait forces.
    pub(super) undrained: Vec<i64>,
    /// Their drains: (site id, queue).
    pub(super) drains: Vec<(u32, i64)>,
    /// `SyncPlan::drain_kept`.
    pub(super) kept: BTreeMap<i64, DrainKept>,
}

impl Planner<'_> {
    /// Under a symbolic extent, what queue `q`'s drain lets stay at every N of `class`: the
    /// groups before group g·N that hold nothing at all of them, or, where the statements of the
    /// queue have stopped (`if i < 7:` at N ≥ 7) and the newest group holding an instance is the
    /// same at all of them, every group after it. Their runs repeat from some iteration on, so
    /// the class's N up to one common period past there are all.
    fn kept_at_extents(&self, q: i64, class: super::Residue) -> Option<DrainKept> {
        let qi = self.queues.iter().position(|&x| x == q)?;
        let g = self.gs.get(qi).copied()?;
        let mut settled = 0;
        let mut period = class.modulus.max(1);
        for gr in self.groups.iter().filter(|gr| gr.queue == q) {
            for &u in &gr.units {
                let (from, p) = self.symbolic_runs.get(u)?.as_ref()?.repeats();
                settled = settled.max(from + p);
                period = crate::affine::lcm(period, p)?;
            }
        }
        let last = class.first().max(settled) + period + class.modulus;
        let (mut fewest, mut most) = (i64::MAX, 0);
        // The newest group holding an instance, while it is the same at every N.
        let mut newest: Option<Option<i64>> = None;
        for n in class.up_to(last) {
            let empty = super::periodic::trailing_empty(self.groups, self.symbolic_runs, q, g, n)?;
            fewest = fewest.min(empty);
            most = most.max(empty);
            let here = (empty < i64::MAX).then(|| g * n - 1 - empty);
            newest = match newest {
                None => Some(here),
                Some(before) if before == here => Some(here),
                Some(_) => Some(None),
            };
        }
        if fewest < i64::MAX {
            return Some(match newest.flatten() {
                // Empty groups that grow in number with N: no one count lets them stay.
                Some(group) if most > fewest => DrainKept::After(group),
                _ => DrainKept::Empty(fewest),
            });
        }
        // Every group is empty at every N of the class (a statement under `if i >= 5:` and
        // N ≤ 5): all of them may stay, as many as the last N before the first that commits a
        // group holding an instance has (`regimes::drain_extents`), one count for every
        // such range, so that adjacent ones stay one.
        let holding = (class.first()..=last + self.p.stages()).find(|&n| {
            super::periodic::trailing_empty(self.groups, self.symbolic_runs, q, g, n)
                .is_some_and(|empty| empty < i64::MAX)
        });
        Some(DrainKept::Empty(holding.map_or(0, |n| g * (n - 1).max(0))))
    }

    /// By need, under a constant extent `e`: the shortest distance at which a body iteration
    /// meets its producer in a group the prologue has not forced (`covered`, per queue) and,
    /// past the first body step, that the step before has not (`steady`, as `body_fixpoint`
    /// numbers it, where given). A group already complete when the body begins (`S1[0]`,
    /// written at iteration 0 and read at every later one, forced by the prologue's wait) is
    /// not waited for again at every body step; `None` where every body iteration's group is.
    /// Needs not decided iteration by iteration keep `Need::distance`.
    fn unforced_body_distances(
        &self,
        e: i64,
        covered: &[i64],
        steady: Option<&[i64]>,
    ) -> Vec<Option<i64>> {
        let s_max = self.p.stages();
        self.needs
            .iter()
            .map(|n| {
                let Some(exact) = &n.exact else {
                    return Some(n.distance);
                };
                let stage = self.p.sched.units.get(n.consumer).map_or(0, |u| u.stage);
                let qi = self.queues.iter().position(|&x| x == n.queue);
                let g = qi.and_then(|qi| self.gs.get(qi)).copied().unwrap_or(0);
                let done = qi.and_then(|qi| covered.get(qi)).copied().unwrap_or(-1);
                let steady = qi.and_then(|qi| steady?.get(qi)).copied();
                let first = (s_max - stage).max(0);
                // Step t of the body knows what the step before forced: the steady state's
                // groups, numbered as if t were `T_REP`, moved to t.
                let done_at = |j: i64| match steady {
                    Some(c) if j > first => done.max(c.saturating_add(g * (j + stage - T_REP))),
                    _ => done,
                };
                (first..e - stage)
                    .filter_map(|j| exact.at(j).map(|d| (j, d)))
                    .filter(|&(j, d)| g * (j - d) + i64::from(n.slot) > done_at(j))
                    .map(|(_, d)| d)
                    .min()
            })
            .collect()
    }

    /// By need, under a symbolic extent, as `unforced_body_distances`: the shortest distance
    /// over the body's iterations S − stage … (the last one the largest extent this plan
    /// serves runs; every one where it serves every N) at which the needed group is not one
    /// the prologue's waits forced (`covered`, per queue). Whenever the body runs, every
    /// prologue wait ran: their consumers' iterations are below S. `None` where enumeration
    /// does not decide every such iteration. Past where the distances repeat with period P, a
    /// distance within P is to a group that advances with the iteration, not forced once the
    /// iteration is P past the newest forced; a longer one is to the same group at every P.
    fn unforced_symbolic_body_distances(&self, covered: &[i64]) -> Vec<Option<Option<i64>>> {
        let s_max = self.p.stages();
        self.needs
            .iter()
            .map(|n| {
                let known = n.symbolic.as_ref()?;
                let stage = self.p.sched.units.get(n.consumer)?.stage;
                let qi = self.queues.iter().position(|&x| x == n.queue)?;
                let g = self.gs.get(qi).copied().filter(|&g| g > 0)?;
                let done = covered.get(qi).copied()?;
                let lo = (s_max - stage).max(0);
                let last = match (self.regime_hi, known.repeats()) {
                    (Some(hi), _) => hi - 1 - stage,
                    (None, Some((from, period))) => {
                        lo.max(from).max(done.div_euclid(g) + period + 1) + 2 * period
                    }
                    (None, None) => return None,
                };
                let mut best: Option<i64> = None;
                for j in lo..=last {
                    if let Some(d) = known.at(j)? {
                        if g * (j - d) + i64::from(n.slot) > done {
                            best = Some(best.map_or(d, |b| b.min(d)));
                        }
                    }
                }
                Some(best)
            })
            .collect()
    }

    /// Whether the body's `plan`, run at its first step (step S of a constant extent) after the
    /// prologue left `covered` complete, gives every unit there what it needs at that iteration.
    fn serves_the_first_body_step(&self, plan: &StepPlan, covered: &[i64]) -> bool {
        let t = self.p.stages();
        let time = StepTime::Const(t);
        let mut covered = covered.to_vec();
        for item in &plan.items {
            let Some(u) = self.p.sched.units.get(item.unit) else {
                return false;
            };
            for &(_, q, count) in &item.waits {
                let Some(qi) = self.queues.iter().position(|&x| x == q) else {
                    return false;
                };
                let forced = self.committed(qi, time, item.order) - count - 1;
                if let Some(c) = covered.get_mut(qi) {
                    *c = (*c).max(forced);
                }
            }
            let served = self
                .needs
                .iter()
                .enumerate()
                .filter(|(_, n)| n.consumer == item.unit)
                .all(|(k, n)| {
                    let Some(d) = self.distance(k, u.stage, time) else {
                        return true;
                    };
                    let j = t - u.stage - d;
                    let Some(qi) = self.queues.iter().position(|&x| x == n.queue) else {
                        return false;
                    };
                    let g = self.gs.get(qi).copied().unwrap_or(0);
                    j < 0
                        || covered
                            .get(qi)
                            .is_some_and(|&c| c >= g * j + i64::from(n.slot))
                });
            if !served {
                return false;
            }
        }
        true
    }

    /// Whether for every E below S the last group of queue `qi` (g a step), iteration E − 1's,
    /// is forced by a wait of the prologue or the epilogue (numbered from max(E, S) = S) whose
    /// consumer's iteration is below E, so that it runs.
    fn short_extents_force_the_last_groups(&self, qi: usize, g: i64) -> bool {
        let by = T_REP - self.entry.stages;
        (1..self.entry.stages).all(|e| {
            self.entry
                .prologue
                .iter()
                .chain(&self.facts)
                .any(|&(fq, fg, fj)| fq == qi && fg - g * by >= g * e - 1 && fj - by < e)
        })
    }
}

/// The body's input as the trials would find it, if they would: per queue, `min(x0, N − g)` where
/// N is the newest group any body unit needs (every trial below it waits for N, so its output is
/// N; from above, each trial lowers it by g until it is); `NOTHING` for a queue no body unit
/// needs. `None` where a queue takes more trials than the loop allows.
/// Without `x0` (the steady state alone, whatever the prologue left), `N − g`.
pub(super) fn body_fixpoint(cx: &Planner, x0: Option<&[i64]>) -> Option<Vec<i64>> {
    let units = &cx.p.sched.units;
    let mut fixpoint = Vec::with_capacity(cx.queues.len());
    for (qi, (&q, &g)) in cx.queues.iter().zip(cx.gs).enumerate() {
        if g < 1 {
            return None;
        }
        let Some(newest) = cx
            .needs
            .iter()
            .enumerate()
            .filter(|(_, n)| n.queue == q)
            .filter_map(|(k, n)| {
                let stage = units.get(n.consumer)?.stage;
                let j = T_REP - stage - cx.distance(k, stage, BODY)?;
                (j >= 0).then(|| g * j + i64::from(n.slot))
            })
            .max()
        else {
            // No body unit waits on this queue: what is complete of it matters to none.
            fixpoint.push(NOTHING);
            continue;
        };
        let target = newest - g;
        let &x = x0.map_or(Some(&target), |x0| x0.get(qi))?;
        let trials = if x <= target {
            1
        } else if x < newest {
            2
        } else {
            // Unstable trials lower x by g until it is below `newest`, then one more to `target`
            // unless it landed there; the last trial confirms.
            let m = (x - newest) / g + 1;
            m + if x - m * g == target { 1 } else { 2 }
        };
        if trials > BODY_TRIALS {
            return None;
        }
        fixpoint.push(x.min(target));
    }
    Some(fixpoint)
}

/// Whether a body plan that assumed `assumed` complete (per queue, numbered as `body_fixpoint`
/// numbers it) when its step begins leaves at least that complete for the next step (`out`,
/// after this one; g groups a step). A queue no body unit needs assumes nothing (`NOTHING`),
/// which is sound whatever the step before left complete.
fn stable(assumed: &[i64], out: &[i64], gs: &[i64]) -> bool {
    assumed
        .iter()
        .zip(out)
        .zip(gs)
        .all(|((&c, &o), &g)| c <= o.saturating_sub(g) || c == NOTHING)
}

/// What a body plan assumes complete of a queue it knows nothing of.
const NOTHING: i64 = i64::MIN / 4;

/// Trials of the body's plan before planning it for the weakest input.
pub(super) const BODY_TRIALS: i64 = 8;
