//! TileLang's pipeline planning (`src/transform/pipeline_planning.cc`, `PipelinePlanner` and
//! `PipelineStageAnalyzer::AssignStagesAndOrders` / `EmitImplicitAsyncAnnotations`), for a
//! `T.Pipelined(…, num_stages=N)` loop whose `order` and `stage` are not written: the stage and
//! order of each statement of the body, and the stages whose copies are asynchronous.
//! docs/tilelang.md, "Stages when not given", says the rule in prose.
//!
//! Accesses are compared by buffer: a tile operation reads or writes its whole tile here, where
//! TileLang compares regions (`MayConflict`); for the loops it plans the two agree.

use crate::syntax::Ident;

/// One statement of the pipelined loop's body, as the planner sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unit {
    /// The buffers the statement reads (its indices' loads included) and writes.
    pub reads: Vec<Ident>,
    pub writes: Vec<Ident>,
    /// A copy from global into shared memory (`T.copy(A[…], A_shared)`, or a loop nest storing
    /// only global loads into a shared buffer): the producer TileLang pipelines.
    pub copy: bool,
    /// Under a condition (an `if` in it): such a copy neither advances the stage nor is async.
    pub conditional: bool,
}

/// The three annotations of the loop, as TileLang's planner writes them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub stages: Vec<i64>,
    pub orders: Vec<i64>,
    pub async_stages: Vec<i64>,
}

fn conflict(a: &[Ident], b: &[Ident]) -> bool {
    a.iter().any(|x| b.contains(x))
}

/// For each copy, the last later statement reading what it writes; `Err((copy, other))` when a
/// later statement writes what a copy writes (TileLang's "Multiple writes to overlapping buffer
/// regions" refusal).
pub fn last_uses(units: &[Unit]) -> Result<Vec<Option<usize>>, (usize, usize)> {
    let mut last = vec![None; units.len()];
    for (i, u) in units.iter().enumerate() {
        if !u.copy {
            continue;
        }
        for (j, later) in units.iter().enumerate().skip(i + 1) {
            if conflict(&u.writes, &later.reads) {
                if let Some(slot) = last.get_mut(i) {
                    *slot = Some(j);
                }
            }
            if conflict(&u.writes, &later.writes) {
                return Err((i, j));
            }
        }
    }
    Ok(last)
}

/// Edges of the body's dependence graph, each from an earlier statement to a later one: any
/// read-after-write, write-after-read or write-after-write on a buffer; `same_stage` marks the
/// write-after-read ones, whose two ends TileLang keeps in one stage.
struct Dag {
    predecessors: Vec<Vec<usize>>,
    successors: Vec<Vec<usize>>,
    same_stage: Vec<Vec<usize>>,
}

fn dag(units: &[Unit]) -> Dag {
    let n = units.len();
    let mut d = Dag {
        predecessors: vec![Vec::new(); n],
        successors: vec![Vec::new(); n],
        same_stage: vec![Vec::new(); n],
    };
    for (dst, b) in units.iter().enumerate() {
        for (src, a) in units.iter().enumerate().take(dst) {
            let raw = conflict(&a.writes, &b.reads);
            let war = conflict(&a.reads, &b.writes);
            let waw = conflict(&a.writes, &b.writes);
            if !(raw || war || waw) {
                continue;
            }
            if let Some(s) = d.successors.get_mut(src) {
                s.push(dst);
            }
            if let Some(p) = d.predecessors.get_mut(dst) {
                p.push(src);
            }
            if war {
                if let Some(s) = d.same_stage.get_mut(src) {
                    s.push(dst);
                }
            }
        }
    }
    d
}

fn at(v: &[i64], i: usize) -> i64 {
    v.get(i).copied().unwrap_or(0)
}

/// The plan of a body of `units` under `num_stages` (≥ 1), or the refusal TileLang gives: two
/// statements `(copy, other)` writing one buffer.
pub fn plan(units: &[Unit], num_stages: i64) -> Result<Plan, (usize, usize)> {
    let n = units.len();
    let last_use = last_uses(units)?;
    let g = dag(units);
    // A copy that a write-after-read pair ends at overwrites what the next iteration reads
    // first: TileLang keeps it synchronous.
    let mut cyclic = vec![false; n];
    for targets in &g.same_stage {
        for &dst in targets {
            if units.get(dst).is_some_and(|u| u.copy) {
                if let Some(c) = cyclic.get_mut(dst) {
                    *c = true;
                }
            }
        }
    }
    // 1. Logical levels: the longest path, where only an unconditional copy weighs one.
    let mut level = vec![0i64; n];
    for dst in 0..n {
        for &src in g.predecessors.get(dst).map_or(&[][..], |p| p.as_slice()) {
            let weight = units.get(src).is_some_and(|u| u.copy && !u.conditional);
            let candidate = at(&level, src) + i64::from(weight);
            if let Some(l) = level.get_mut(dst) {
                *l = (*l).max(candidate);
            }
        }
    }
    // 2. Levels spread over [0, num_stages]; 3. sinks in the last stage.
    let max_stage = num_stages;
    let max_level = level.iter().copied().max().unwrap_or(0);
    let mut stage: Vec<i64> = level
        .iter()
        .map(|l| {
            if max_level > 0 {
                l.saturating_mul(max_stage) / max_level
            } else {
                0
            }
        })
        .collect();
    for (i, s) in stage.iter_mut().enumerate() {
        if g.successors.get(i).is_none_or(Vec::is_empty) {
            *s = max_stage;
        }
    }
    // Both ends of a write-after-read in one stage, and no edge going back a stage: the least
    // fixed point (stages only rise, and are bounded by `max_stage`).
    let mut updated = true;
    while updated {
        updated = false;
        for src in 0..n {
            for &dst in g.same_stage.get(src).map_or(&[][..], |p| p.as_slice()) {
                let common = at(&stage, src).max(at(&stage, dst));
                for k in [src, dst] {
                    if let Some(s) = stage.get_mut(k) {
                        if *s != common {
                            *s = common;
                            updated = true;
                        }
                    }
                }
            }
        }
        for src in 0..n {
            let from = at(&stage, src);
            for &dst in g.successors.get(src).map_or(&[][..], |p| p.as_slice()) {
                if let Some(s) = stage.get_mut(dst) {
                    if *s < from {
                        *s = from;
                        updated = true;
                    }
                }
            }
        }
    }
    // 4. The terminal stage retimed one earlier when it only consumes (nothing it writes is
    // read by a later statement of the body).
    let internal_producer = (0..n).any(|src| {
        at(&stage, src) == max_stage
            && g.successors.get(src).is_some_and(|succ| {
                succ.iter()
                    .any(|&dst| match (units.get(src), units.get(dst)) {
                        (Some(a), Some(b)) => conflict(&a.writes, &b.reads),
                        _ => false,
                    })
            })
    });
    let compacted = max_stage >= 2 && !internal_producer;
    if compacted {
        for s in stage.iter_mut().filter(|s| **s == max_stage) {
            *s -= 1;
        }
    }
    let order_of = if compacted {
        // 6. By stage, then source position.
        let mut indices: Vec<usize> = (0..n).collect();
        indices.sort_by_key(|&i| (at(&stage, i), i));
        indices
    } else {
        // Each early copy placed right after its last consumer.
        lifecycle_order(units, &stage, &last_use)
    };
    let mut orders = vec![0i64; n];
    for (position, &i) in order_of.iter().enumerate() {
        if let Some(o) = orders.get_mut(i) {
            *o = position as i64;
        }
    }
    let async_stages = async_stages(units, &stage, &cyclic);
    Ok(Plan {
        stages: stage,
        orders,
        async_stages,
    })
}

fn lifecycle_order(units: &[Unit], stage: &[i64], last_use: &[Option<usize>]) -> Vec<usize> {
    let n = units.len();
    let mut order = Vec::with_capacity(n);
    let mut deferred = vec![false; n];
    for i in 0..n {
        let early = |c: usize| {
            units.get(c).is_some_and(|u| u.copy)
                && last_use
                    .get(c)
                    .copied()
                    .flatten()
                    .is_some_and(|l| at(stage, c) < at(stage, l))
        };
        if early(i) {
            if let Some(d) = deferred.get_mut(i) {
                *d = true;
            }
            continue;
        }
        order.push(i);
        for c in 0..n {
            if deferred.get(c) == Some(&true) && last_use.get(c).copied().flatten() == Some(i) {
                order.push(c);
                if let Some(d) = deferred.get_mut(c) {
                    *d = false;
                }
            }
        }
    }
    order
}

/// The stages of the copies TileLang makes asynchronous (cp.async on an sm_80 target): every
/// unconditional copy from global to shared memory not overwriting what the next iteration
/// reads first — whether the stages were planned or written.
pub fn async_stages(units: &[Unit], stage: &[i64], cyclic: &[bool]) -> Vec<i64> {
    let mut out: Vec<i64> = units
        .iter()
        .enumerate()
        .filter(|(i, u)| u.copy && !u.conditional && cyclic.get(*i) != Some(&true))
        .map(|(i, _)| at(stage, i))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// `async_stages` for stages the user wrote: TileLang's explicit-list path
/// (`MaybeAnnotateLegacyAsyncPipelineLoop`) marks every unconditional copy from global to shared
/// memory, with no write-after-read analysis.
pub fn async_stages_of_written(units: &[Unit], stage: &[i64]) -> Vec<i64> {
    async_stages(units, stage, &[])
}
