//! A lower bound on the steady-state cycles per iteration of every schedule of a loop, in the
//! sense of modulo scheduling (Rau's iterative modulo scheduling; LLVM's MachinePipeliner): the
//! larger of the resource bound (ResMII: the compute lane's cycles per iteration, and each copy
//! queue's when the model limits its groups in flight) and the recurrence bound (RecMII: the
//! maximum over the dependence graph's cycles of delay / iteration distance). The graph has the
//! dependences between units and the edges ring-slot reuse adds: with `V` versions the slot an
//! iteration writes is written again `V` iterations later, after every read of it — an edge LLVM's
//! pipeliner does not model, and the one that makes a latency-bound loop's bound tight
//! (docs/search.md, "The lower bound").
//!
//! The bound holds for every schedule the search may try (stages below `max_stages`), whatever
//! its waits: each edge is a dependence that holds at every iteration (`always_meet`), which
//! every race-free run of every such schedule respects, at the weakest distance any of them
//! gives it.

use crate::cost::CostModel;
use crate::dependence::{Distances, UnitAccess};
use crate::explore::ScheduledLoop;
use crate::ir::{Node, Program, Scope};
use crate::schedule::{DepKind, Dependence};
use serde::{Deserialize, Serialize};

/// What one unit costs per iteration of the pipelined loop, every instance counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitCost {
    /// Cycles the compute lane spends issuing its instances.
    pub issue: u64,
    /// The latencies of its instances that are synchronous inside it (an inner pipeline's
    /// synchronous statements; all of them for a plain unit when it is synchronous).
    pub sync_latency: u64,
    /// The smallest latency of its instances (0 when it has none, or is an inner pipeline's
    /// section, whose groups may still be in flight when it ends).
    pub min_latency: u64,
    /// A section of an inner loop pipelined first.
    pub inner: bool,
}

/// An edge of the dependence graph: `to` of iteration `j + distance` starts at least `delay`
/// cycles after `from` of iteration `j`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub delay: u64,
    pub distance: i64,
    pub kind: DepKind,
    /// The buffer the dependence is on.
    pub buffer: String,
}

/// Which term of the bound is the largest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Binding {
    Compute,
    Queue,
    Recurrence,
}

/// The lower bound and its terms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bound {
    /// Cycles per iteration no schedule's steady state goes below: the largest term.
    pub ii: f64,
    /// ResMII of the compute lane: every unit's issue cycles (any unit may be asynchronous).
    pub compute: f64,
    /// ResMII of the copy queues (0 while the model lets groups stay in flight without limit).
    pub queue: f64,
    /// RecMII: the largest delay / distance over the graph's cycles.
    pub recurrence: f64,
    pub binding: Binding,
    /// The units of the cycle that gives `recurrence`, in order (empty when there is none).
    pub critical_cycle: Vec<usize>,
    /// That cycle's total delay and iteration distance.
    pub critical_totals: (u64, i64),
    pub units: Vec<UnitCost>,
    pub edges: Vec<Edge>,
}

impl Bound {
    /// How a schedule of `ii` steady cycles per iteration compares: `ii / bound`.
    pub fn ratio(&self, ii: f64) -> f64 {
        if self.ii > 0.0 {
            ii / self.ii
        } else {
            1.0
        }
    }

    /// Whether `ii` is at the bound (within the rounding of an average over the steady steps).
    /// Below it is not: such a figure is a run too short to reach its steady state.
    pub fn is_at_bound(&self, ii: f64) -> bool {
        (ii - self.ii).abs() <= self.ii * 1e-9 + 1e-9
    }

    /// Cycles no schedule of a loop of `extent` iterations runs in fewer of: the compute lane
    /// issues every unit `extent` times, and the critical recurrence, followed from the first
    /// iteration, reaches the `⌊(extent − 1) / distance⌋`-th lap. A loop too short for its
    /// steady state may average fewer cycles per iteration than `ii`; never fewer in total than
    /// this.
    pub fn cycles_floor(&self, extent: i64) -> u64 {
        let n = extent.max(0) as u64;
        let work = (self.compute.floor() as u64).saturating_mul(n);
        let (delay, distance) = self.critical_totals;
        let laps = if distance > 0 && extent > 0 {
            ((extent - 1) / distance) as u64
        } else {
            0
        };
        work.max(delay.saturating_mul(laps))
    }

    /// The critical cycle's total delay and distance (`(0, 0)` when there is none).
    pub fn critical_chain(&self) -> (u64, i64) {
        self.critical_totals
    }

    /// What gives the bound, in a sentence.
    pub fn describe(&self, unit_names: &[String]) -> String {
        let name = |u: &usize| {
            unit_names
                .get(*u)
                .cloned()
                .unwrap_or_else(|| format!("unit {u}"))
        };
        match self.binding {
            Binding::Compute => format!(
                "{:.1} cycles per iteration: the compute lane issues every unit once per iteration",
                self.ii
            ),
            Binding::Queue => format!(
                "{:.1} cycles per iteration: a copy queue holds its groups in flight for their latency",
                self.ii
            ),
            Binding::Recurrence => {
                let cycle: Vec<String> = self.critical_cycle.iter().map(name).collect();
                format!(
                    "{:.1} cycles per iteration: the recurrence {} → back",
                    self.ii,
                    cycle.join(" → ")
                )
            }
        }
    }
}

/// The bound of every schedule of `lp` with stages below `max_stages`, under `model`.
pub fn loop_bound(lp: &ScheduledLoop, model: &CostModel, max_stages: i64) -> Bound {
    let units: Vec<UnitCost> = lp
        .units
        .iter()
        .map(|u| unit_cost(&lp.program, model, &u.node, u.inner.is_some()))
        .collect();
    let edges = edges(lp, &units, max_stages.max(1));
    let compute = units.iter().map(|u| u.issue as f64).sum::<f64>();
    let queue = match model.max_groups_in_flight {
        Some(g) if g > 0 => units
            .iter()
            .filter(|u| !u.inner)
            .map(|u| {
                // Asynchronous, its queue holds a group per iteration for its latency in one of
                // `g` slots; synchronous, the compute lane waits out the latency itself.
                (u.min_latency as f64 / f64::from(g)).min((u.issue + u.sync_latency) as f64)
            })
            .fold(0.0, f64::max),
        _ => 0.0,
    };
    let critical = max_cycle_ratio(units.len(), &edges);
    let recurrence = critical.ratio;
    let (ii, binding) = [
        (compute, Binding::Compute),
        (queue, Binding::Queue),
        (recurrence, Binding::Recurrence),
    ]
    .into_iter()
    .fold(
        (0.0, Binding::Compute),
        |best, t| {
            if t.0 > best.0 {
                t
            } else {
                best
            }
        },
    );
    Bound {
        ii,
        compute,
        queue,
        recurrence,
        binding,
        critical_cycle: critical.nodes,
        critical_totals: (critical.delay, critical.distance),
        units,
        edges,
    }
}

/// Per iteration, what `node` costs: each assignment's instances counted through loops of
/// constant trip count. A loop of another trip count, and a guarded block, count none: a lower
/// bound.
pub fn unit_cost(program: &Program, model: &CostModel, node: &Node, inner: bool) -> UnitCost {
    let mut c = UnitCost {
        inner,
        min_latency: u64::MAX,
        ..UnitCost::default()
    };
    walk(program, model, node, 1, false, &mut c);
    if c.min_latency == u64::MAX || inner {
        c.min_latency = 0;
    }
    c
}

fn walk(
    program: &Program,
    model: &CostModel,
    node: &Node,
    times: u64,
    in_async: bool,
    c: &mut UnitCost,
) {
    let each = |body: &[Node], times: u64, in_async: bool, c: &mut UnitCost| {
        for n in body {
            walk(program, model, n, times, in_async, c);
        }
    };
    match node {
        Node::Barrier { .. } => {}
        Node::Assign(a) => {
            let cost = model.cost(program, a);
            c.issue = c.issue.saturating_add(cost.issue.saturating_mul(times));
            if !in_async {
                c.sync_latency = c
                    .sync_latency
                    .saturating_add(cost.latency.saturating_mul(times));
            }
            if times > 0 {
                c.min_latency = c.min_latency.min(cost.latency);
            }
        }
        Node::For { lo, hi, body, .. } => {
            let trips = crate::simplify::simplify(&crate::ir::IExpr::bin(
                crate::ir::IOp::Sub,
                hi.clone(),
                lo.clone(),
            ))
            .as_const()
            .map_or(0, |t| t.max(0) as u64);
            each(body, times.saturating_mul(trips), in_async, c);
        }
        Node::If { body, .. } => each(body, 0, in_async, c),
        Node::AsyncScope { body, .. } => each(body, times, true, c),
        Node::Commit { body, .. } | Node::Wait { body, .. } | Node::Section { body, .. } => {
            each(body, times, in_async, c)
        }
    }
}

/// The graph's edges: each dependence between units that holds at every iteration
/// (`always_meet`), at the weakest distance any schedule gives it. A dependence met at some
/// iterations only is no edge: those between run free of it. A buffer that may be versioned
/// (declared, not global) meets itself at the first such distance that is a multiple of its
/// versions; with `V` versions at most `max_stages` (`versions.rs`), the edge is the largest of
/// those first distances over `V = 1 … max_stages`, and absent when some `V` has none.
fn edges(lp: &ScheduledLoop, units: &[UnitCost], max_stages: i64) -> Vec<Edge> {
    let mut out = Vec::new();
    for d in &lp.deps {
        let Some(from) = units.get(d.from) else {
            continue;
        };
        let always = always_meeting(lp, d);
        let buffer = lp.program.buffer(d.buffer);
        let versionable = buffer.is_some_and(|b| b.declared && b.scope != Scope::Global);
        let most = if versionable { max_stages } else { 1 };
        let distance = (1..=most)
            .map(|v| always.first(0, v))
            .try_fold(0i64, |far, first| first.map(|f| far.max(f)));
        let Some(distance) = distance else {
            continue;
        };
        let delay = match d.kind {
            // The reader's value, or the slot's last read, is ready no sooner than the issue of
            // every instance and a latency after the last.
            DepKind::Raw | DepKind::War => from.issue.saturating_add(from.min_latency),
            // Two writes in one queue land in order: only the compute lane orders their issues.
            DepKind::Waw => from.issue,
        };
        out.push(Edge {
            from: d.from,
            to: d.to,
            delay,
            distance,
            kind: d.kind,
            buffer: buffer.map_or_else(|| "?".to_string(), |b| b.name.to_string()),
        });
    }
    out
}

/// The distances at which `d` holds at every iteration: some access of its source unit and one of
/// its target's, of its kind, always meet there (`dependence::dependences` pairs them alike).
fn always_meeting(lp: &ScheduledLoop, d: &Dependence) -> Distances {
    let (Some(a), Some(b)) = (
        lp.units.iter().find(|u| u.pos == d.from),
        lp.units.iter().find(|u| u.pos == d.to),
    ) else {
        return Distances::NONE;
    };
    let kind = |x: &UnitAccess, y: &UnitAccess| match (x.write, y.write) {
        (true, false) => Some(DepKind::Raw),
        (false, true) => Some(DepKind::War),
        (true, true) => Some(DepKind::Waw),
        (false, false) => None,
    };
    let mut set = Distances::NONE;
    for x in a.accesses.iter().filter(|x| x.buffer == d.buffer) {
        for y in b.accesses.iter().filter(|y| y.buffer == d.buffer) {
            if kind(x, y) == Some(d.kind) {
                set = set.union(&crate::always_meet::always_meeting(x, y));
            }
        }
    }
    // Within one iteration the source runs first only when it comes first in the body.
    if a.pos >= b.pos {
        set = set.intersect(&Distances::between(1, i64::MAX / 4));
    }
    set
}

/// The cycle of largest ratio: its ratio, its nodes in order, its total delay and distance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CriticalCycle {
    pub ratio: f64,
    pub nodes: Vec<usize>,
    pub delay: u64,
    pub distance: i64,
}

/// The maximum over the graph's cycles of Σ delay / Σ distance, and a cycle that gives it (a
/// positive cycle of `delay − λ·distance` has a ratio above λ: Bellman–Ford finds one at the
/// best ratio so far until there is none; the ratios of simple cycles are finitely many). Cycles
/// of distance 0 cannot occur: a dependence within one iteration goes forward in the loop.
pub fn max_cycle_ratio(nodes: usize, edges: &[Edge]) -> CriticalCycle {
    let usable: Vec<&Edge> = edges
        .iter()
        .filter(|e| e.from < nodes && e.to < nodes)
        .collect();
    let Some(mut best) = positive_cycle(nodes, &usable, -1.0) else {
        return CriticalCycle::default();
    };
    let mut totals = cycle_totals(&best, &usable);
    let mut ratio = ratio_of(totals);
    for _ in 0..4 * nodes.max(1) * nodes.max(1) + 64 {
        match positive_cycle(nodes, &usable, ratio + 1e-9 * ratio.max(1.0)) {
            Some(c) => {
                let t = cycle_totals(&c, &usable);
                if ratio_of(t) <= ratio {
                    break;
                }
                ratio = ratio_of(t);
                totals = t;
                best = c;
            }
            None => break,
        }
    }
    CriticalCycle {
        ratio: ratio.max(0.0),
        nodes: best.iter().map(|e| e.0).collect(),
        delay: totals.0,
        distance: totals.1,
    }
}

fn ratio_of((delay, distance): (u64, i64)) -> f64 {
    if distance <= 0 {
        return 0.0;
    }
    delay as f64 / distance as f64
}

/// A cycle as its edges: (from node, edge index).
type Cycle = Vec<(usize, usize)>;

fn cycle_totals(cycle: &Cycle, edges: &[&Edge]) -> (u64, i64) {
    cycle.iter().fold((0u64, 0i64), |(d, k), (_, e)| {
        let e = edges.get(*e);
        (
            d.saturating_add(e.map_or(0, |e| e.delay)),
            k + e.map_or(0, |e| e.distance),
        )
    })
}

/// A cycle whose `delay − lambda · distance` is positive, if any (longest paths by
/// Bellman–Ford from a virtual source; a node still relaxed after `nodes` rounds is on or behind
/// one).
fn positive_cycle(nodes: usize, edges: &[&Edge], lambda: f64) -> Option<Cycle> {
    let mut dist = vec![0.0f64; nodes];
    let mut pred: Vec<Option<(usize, usize)>> = vec![None; nodes];
    let mut changed = None;
    for _ in 0..=nodes {
        changed = None;
        for (k, e) in edges.iter().enumerate() {
            let w = e.delay as f64 - lambda * e.distance as f64;
            let (Some(&df), Some(&dt)) = (dist.get(e.from), dist.get(e.to)) else {
                continue;
            };
            if df + w > dt + 1e-9 * (1.0 + dt.abs()) {
                if let (Some(t), Some(p)) = (dist.get_mut(e.to), pred.get_mut(e.to)) {
                    *t = df + w;
                    *p = Some((e.from, k));
                }
                changed = Some(e.to);
            }
        }
        changed?;
    }
    // Walk back `nodes` steps to land on the cycle, then collect it.
    let mut v = changed?;
    for _ in 0..nodes {
        v = pred.get(v).copied().flatten()?.0;
    }
    let start = v;
    let mut cycle = Vec::new();
    loop {
        let (u, k) = pred.get(v).copied().flatten()?;
        cycle.push((u, k));
        v = u;
        if v == start || cycle.len() > nodes {
            break;
        }
    }
    cycle.reverse();
    Some(cycle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_steady_state_at_the_bound_is_at_it() {
        let bound = Bound {
            ii: 128.0,
            compute: 8.0,
            queue: 0.0,
            recurrence: 128.0,
            binding: Binding::Recurrence,
            critical_cycle: vec![0, 1],
            critical_totals: (512, 4),
            units: Vec::new(),
            edges: Vec::new(),
        };
        assert!(bound.is_at_bound(128.0));
        assert!(!bound.is_at_bound(129.0));
        // An average over a body too short for its steady state may fall below: not optimal.
        assert!(!bound.is_at_bound(16.0));
    }
}
