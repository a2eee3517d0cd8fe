//! Ring versions: which intermediate buffers may be multi-versioned, and how many versions each
//! needs. TVM's rule (`use − def + 1`) first, then what correctness needs: a buffer gets versions only
//! when every read provably sees what the same iteration wrote (otherwise a version would hand the
//! read another iteration's slot), an asynchronous reader keeps its slot alive until it is awaited,
//! and slot reuse never reorders conflicting instances.

use crate::affine::{interval, split_linear, truth, Dim, Interval};
use crate::dependence::{
    conflict_distances, loop_range, IterationRange, UnitAccess, MAX_TABULATED_ITERATIONS,
};
use crate::ir::{BufId, Cond, IExpr, Node, Program, Scope, VarId};
use crate::schedule::{iteration_range, keeps_order, DepKind, Dependence, LoopSchedule, Unit};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VersionDecision {
    pub buffer: BufId,
    pub versions: u32,
    pub reason: String,
}

/// Chooses ring versions: TVM's rule first, then what correctness additionally needs.
/// `explain` writes each decision's reason (display only; the transform alone skips it).
pub fn choose_versions(
    program: &Program,
    sched: &LoopSchedule,
    deps: &[Dependence],
    explain: bool,
) -> Vec<VersionDecision> {
    // Reasons are built only when shown: formatting them is a tenth of a small transform.
    let say = |text: &dyn Fn() -> String| if explain { text() } else { String::new() };
    let range = iteration_range(sched);
    let mut out = Vec::with_capacity(program.buffers.len());
    // Which readers see their own iteration, instance by instance: one walk for every buffer,
    // made when a buffer first needs it.
    let exact = Exact {
        program,
        sched,
        sees: std::cell::OnceCell::new(),
    };
    for (id, buf) in program.buffers.iter().enumerate() {
        let id = id as BufId;
        if !buf.declared || buf.scope == Scope::Global || !sched.annotated {
            continue;
        }
        let writers: Vec<&Unit> = sched
            .units
            .iter()
            .filter(|u| u.accesses.iter().any(|a| a.write && a.buffer == id))
            .collect();
        let readers: Vec<&Unit> = sched
            .units
            .iter()
            .filter(|u| u.accesses.iter().any(|a| !a.write && a.buffer == id))
            .collect();
        if writers.is_empty() {
            continue;
        }
        let def = writers.iter().map(|u| u.stage).min().unwrap_or(0);
        let used = readers
            .iter()
            .map(|u| u.stage)
            .max()
            .unwrap_or(def)
            .max(def);
        let mut versions = used - def + 1;
        let mut reason = say(&|| {
            if versions == 1 {
                format!("written and read in stage {def}: one copy suffices")
            } else {
                format!("written in stage {def}, read up to stage {used}: {used} − {def} + 1 = {versions} versions")
            }
        });
        if versions == 2 {
            let needed = writers.iter().any(|w| {
                readers.iter().any(|r| {
                    w.order < r.order
                        && w.stage < r.stage
                        && w.accesses.iter().any(|x| {
                            x.write
                                && x.buffer == id
                                && r.accesses.iter().any(|y| {
                                    !y.write
                                        && y.buffer == id
                                        && conflict_distances(x, y, range).contains(0)
                                })
                        })
                })
            });
            if !needed {
                versions = 1;
                reason = say(&|| {
                    format!(
                    "written in stage {def}, read in stage {used}, but every reader runs before the writer in the pipelined body, so one copy suffices (TVM's rule)"
                )
                });
            }
        }
        // Async readers may read until their group completes: keep their slot until it is awaited.
        for r in readers.iter().filter(|r| r.is_async) {
            let consumers_stage = sched
                .units
                .iter()
                .filter(|c| {
                    c.pos != r.pos
                        && c.accesses.iter().any(|a| {
                            r.accesses
                                .iter()
                                .any(|w| w.write && w.buffer == a.buffer && !a.write)
                        })
                })
                .map(|c| c.stage)
                .min();
            if let Some(sc) = consumers_stage {
                let need = sc - def + 1;
                if need > versions {
                    reason = say(&|| {
                        format!(
                        "{reason}; {} reads it asynchronously and its group is awaited only in stage {sc}, so the slot must survive until then: {sc} − {def} + 1 = {need} versions (TVM keeps {versions}, which races)",
                        sched.label(r.pos)
                    )
                    });
                    versions = need;
                }
            }
        }
        // Slot reuse must not reorder conflicting instances.
        while let Some(d) = reused_slot(sched, deps, id, versions) {
            versions += 1;
            reason = say(&|| {
                let (f, t) = (sched.label(d.from), sched.label(d.to));
                format!(
                    "{reason}; raised to {versions} so that {t} never reuses the slot {f} still needs ({})",
                    d.kind.describe()
                )
            });
        }
        // A version hands each iteration its own slot: only right when no read needs what another
        // iteration wrote. Then validation checks every conflict against one shared copy.
        if versions > 1 {
            if let Some((reader, writer)) = cross_iteration_read(&exact, sched, deps, id) {
                reason = say(&|| {
                    let writer = if reader == writer {
                        "it".to_string()
                    } else {
                        sched.label(writer).to_string()
                    };
                    format!(
                        "{reason}; but {} may read what {writer} wrote in an earlier iteration, so every iteration must use the same storage: one copy",
                        sched.label(reader),
                    )
                });
                versions = 1;
            }
        }
        if versions > 1 && buf.versions > 1 {
            // An inner pipeline's ring: each outer version is a copy of all of it.
            reason = say(&|| {
                let inner = i64::from(buf.versions);
                format!(
                    "{reason}, each a copy of the inner pipeline's {inner}-slot ring: {versions} × {inner} = {} copies",
                    versions * inner
                )
            });
        }
        out.push(VersionDecision {
            buffer: id,
            versions: versions.clamp(1, 64) as u32,
            reason,
        });
    }
    out
}

/// A dependence on `buffer` whose two instances, `versions` apart or a multiple of it (the same
/// slot), the pipeline would reorder — while another version can still separate them.
fn reused_slot<'d>(
    sched: &LoopSchedule,
    deps: &'d [Dependence],
    buffer: BufId,
    versions: i64,
) -> Option<&'d Dependence> {
    if versions > sched.max_stage {
        return None;
    }
    deps.iter().find(|d| {
        d.buffer == buffer
            && (1..=sched.max_stage).any(|dist| {
                dist % versions == 0
                    && d.distances.contains(dist)
                    && match (sched.units.get(d.from), sched.units.get(d.to)) {
                        (Some(f), Some(t)) => !keeps_order(f, t, dist),
                        _ => false,
                    }
            })
    })
}

/// `instances::readers_seeing_their_own_iteration`, computed once when first asked.
struct Exact<'a> {
    program: &'a Program,
    sched: &'a LoopSchedule,
    sees: std::cell::OnceCell<Option<Vec<Option<Vec<bool>>>>>,
}

impl Exact<'_> {
    /// Whether the reads of `buffer` in unit `reader` all see their own iteration; `None` when
    /// the loop cannot be enumerated.
    fn sees(&self, buffer: BufId, reader: usize) -> Option<bool> {
        let all = self.sees.get_or_init(|| {
            crate::instances::readers_seeing_their_own_iteration(self.program, self.sched)
        });
        let per_unit = all.as_ref()?.get(buffer as usize)?.as_ref()?;
        per_unit.get(reader).copied()
    }
}

/// A read of `buffer` that may see a value an earlier iteration wrote: `(reader, writer)` unit
/// positions of the first read-after-write dependence at a distance ≥ 1 whose reader is not
/// covered by a write of the same iteration before it.
fn cross_iteration_read(
    exact: &Exact,
    sched: &LoopSchedule,
    deps: &[Dependence],
    buffer: BufId,
) -> Option<(usize, usize)> {
    deps.iter()
        .filter(|d| d.buffer == buffer && d.kind == DepKind::Raw && d.distances.any_from(1))
        .find(|d| !reads_are_covered(sched, d.to, buffer, &|| exact.sees(buffer, d.to)))
        .map(|d| (d.to, d.from))
}

/// An access with the ranges of the loops of its unit around it.
struct Located<'n> {
    indices: &'n [IExpr],
    /// Variables of loops inside the unit around the access, with the values they take.
    loops: HashMap<VarId, Interval>,
    /// Loops around it that run every value of their range, unconditionally: (var, first, last).
    exact_loops: Vec<(VarId, i64, i64)>,
    /// Inside a loop of its unit whose range is not a constant, or under an `if` (below).
    conditional: bool,
    /// The conditions of the `if`s around it inside its unit.
    guards: Vec<&'n Cond>,
}

/// Every read (`write == false`) or write of `buffer` in `node`.
fn located<'n>(node: &'n Node, buffer: BufId, write: bool) -> Vec<Located<'n>> {
    fn walk<'n>(
        node: &'n Node,
        buffer: BufId,
        write: bool,
        cx: &mut Context<'n>,
        out: &mut Vec<Located<'n>>,
    ) {
        let mut found = |indices: &'n [IExpr], cx: &Context<'n>| {
            out.push(Located {
                indices,
                loops: cx.0.clone(),
                exact_loops: cx.1.clone(),
                conditional: cx.2 || !cx.3.is_empty(),
                guards: cx.3.clone(),
            })
        };
        match node {
            Node::Barrier { .. } => {}
            Node::Assign(a) => {
                if write {
                    if a.target.buffer == buffer {
                        found(&a.target.indices, cx);
                    }
                } else {
                    crate::ir::for_each_read(&a.value, &mut |r| {
                        if r.buffer == buffer {
                            found(&r.indices, cx);
                        }
                    });
                }
            }
            Node::For {
                var, lo, hi, body, ..
            } => {
                let range = loop_range(lo, hi, &cx.0);
                let exact = match (lo.as_const(), hi.as_const()) {
                    (Some(l), Some(h)) if l < h => Some((*var, l, h - 1)),
                    _ => None,
                };
                let was_conditional = cx.2;
                cx.0.insert(*var, range);
                match exact {
                    Some(e) => cx.1.push(e),
                    None => cx.2 = true,
                }
                for n in body {
                    walk(n, buffer, write, cx, out);
                }
                if exact.is_some() {
                    cx.1.pop();
                }
                cx.2 = was_conditional;
                cx.0.remove(var);
            }
            Node::If { cond, body, .. } => {
                cx.3.push(cond);
                for n in body {
                    walk(n, buffer, write, cx, out);
                }
                cx.3.pop();
            }
            Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => {
                for n in body {
                    walk(n, buffer, write, cx, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(
        node,
        buffer,
        write,
        &mut (HashMap::new(), Vec::new(), false, Vec::new()),
        &mut out,
    );
    out
}

/// While walking a unit: the ranges of its loops around, its exact loops, whether a loop around is
/// not exact, and the conditions of the `if`s around.
type Context<'n> = (
    HashMap<VarId, Interval>,
    Vec<(VarId, i64, i64)>,
    bool,
    Vec<&'n Cond>,
);

/// Does every read of `buffer` in unit `reader` read only elements that units before it write,
/// unconditionally, in the same iteration?
fn reads_are_covered(
    sched: &LoopSchedule,
    reader: usize,
    buffer: BufId,
    exact: &dyn Fn() -> Option<bool>,
) -> bool {
    let Some(r) = sched.units.get(reader) else {
        return false;
    };
    // Most often each read is of one fixed element (`B[0]`, `B[i]`) that a unit before writes
    // with the very same index, unconditionally.
    let fixed = |a: &UnitAccess| {
        a.dims
            .iter()
            .all(|d| matches!(d, Dim::Affine { rest, .. } if rest.lo == rest.hi))
    };
    let same_element_written = |read: &UnitAccess| {
        fixed(read)
            && sched.units.iter().filter(|u| u.pos < r.pos).any(|u| {
                u.accesses.iter().any(|w| {
                    w.write && w.unconditional && w.buffer == buffer && w.dims == read.dims
                })
            })
    };
    if r.accesses
        .iter()
        .filter(|a| !a.write && a.buffer == buffer)
        .all(same_element_written)
    {
        return true;
    }
    let writes: Vec<Located> = sched
        .units
        .iter()
        .filter(|u| u.pos < r.pos)
        .flat_map(|u| located(&u.node, buffer, true))
        .filter(|w| !w.conditional)
        .collect();
    let reads = located(&r.node, buffer, false);
    let range = iteration_range(sched);
    if reads
        .iter()
        .all(|read| covered(&writes, read, sched.var, range))
    {
        return true;
    }
    if every_element_is_always_or_never_written(sched, r.pos, buffer, &reads, range) {
        return true;
    }
    // For a constant extent, decide instance by instance (`exact`, computed once for every
    // reader of the buffer); where that cannot be enumerated, for a short constant extent,
    // iteration by iteration.
    match exact() {
        Some(sees) => sees,
        None => {
            range.is_known()
                && range.hi - range.lo < MAX_TABULATED_ITERATIONS
                && every_read_sees_its_own_iteration(sched, r.pos, buffer, &reads, range)
        }
    }
}

/// Every element the reads may touch, at any iteration, is either written in every iteration by a
/// unit before the reader (the same element each time, unconditionally) or never written at all.
fn every_element_is_always_or_never_written(
    sched: &LoopSchedule,
    reader: usize,
    buffer: BufId,
    reads: &[Located],
    range: IterationRange,
) -> bool {
    let outer = sched.var;
    let iterations = Interval {
        lo: range.lo,
        hi: range.hi,
    };
    let over_all = |a: &Located| -> Vec<Interval> {
        let look = |v: VarId| {
            if v == outer {
                iterations
            } else {
                a.loops.get(&v).copied().unwrap_or(Interval::ALL)
            }
        };
        a.indices.iter().map(|e| interval(e, &look)).collect()
    };
    let mut always: Vec<Vec<Interval>> = Vec::new();
    let mut ever: Vec<Vec<Interval>> = Vec::new();
    for u in &sched.units {
        for w in located(&u.node, buffer, true) {
            if u.pos < reader && !w.conditional {
                let mut used = Vec::with_capacity(w.indices.len());
                let must: Option<Vec<Interval>> = w
                    .indices
                    .iter()
                    .map(|e| must_write(e, &w, &mut used, &|_| Interval::ALL))
                    .collect();
                always.extend(must);
            }
            ever.push(over_all(&w));
        }
    }
    let inside = |b: &[Interval], p: &[i64]| {
        b.len() == p.len() && b.iter().zip(p).all(|(x, &v)| x.lo <= v && v <= x.hi)
    };
    reads.iter().all(|read| {
        points(&over_all(read)).is_some_and(|ps| {
            ps.iter()
                .all(|p| always.iter().any(|b| inside(b, p)) || !ever.iter().any(|b| inside(b, p)))
        })
    })
}

/// Elements enumerated at most per access and iteration by the iteration-by-iteration check.
const MAX_BOX_POINTS: i64 = 256;

/// The box of elements an access may touch at iteration `i`, its dimensions' intervals.
fn box_at(access: &Located, outer: VarId, i: i64) -> Vec<Interval> {
    let look = |v: VarId| {
        if v == outer {
            Interval::point(i)
        } else {
            access.loops.get(&v).copied().unwrap_or(Interval::ALL)
        }
    };
    access.indices.iter().map(|e| interval(e, &look)).collect()
}

/// The elements of a box, if it is bounded and small.
fn points(b: &[Interval]) -> Option<Vec<Vec<i64>>> {
    let count = b.iter().try_fold(1i64, |n, x| {
        (x.is_bounded() && x.lo <= x.hi).then(|| n.saturating_mul(x.hi - x.lo + 1))
    })?;
    if count > MAX_BOX_POINTS {
        return None;
    }
    let mut out: Vec<Vec<i64>> = vec![Vec::with_capacity(b.len())];
    for x in b {
        out = out
            .into_iter()
            .flat_map(|p| {
                (x.lo..=x.hi).map(move |v| {
                    let mut q = p.clone();
                    q.push(v);
                    q
                })
            })
            .collect();
    }
    Some(out)
}

/// The exact check for a short constant extent: at every iteration `i`, every element the reader
/// may read is either written by a unit before it in iteration `i`, unconditionally, or written by
/// no earlier iteration at all (it still holds its first value, which every version holds too).
fn every_read_sees_its_own_iteration(
    sched: &LoopSchedule,
    reader: usize,
    buffer: BufId,
    reads: &[Located],
    range: IterationRange,
) -> bool {
    let outer = sched.var;
    let all_writes: Vec<(usize, Located)> = sched
        .units
        .iter()
        .flat_map(|u| {
            located(&u.node, buffer, true)
                .into_iter()
                .map(move |w| (u.pos, w))
        })
        .collect();
    let mut written_before: HashSet<Vec<i64>> = HashSet::new();
    let mut anything_written_before = false;
    for i in range.lo..=range.hi {
        // Whether each write runs in this iteration: certainly, perhaps, or not at all.
        let runs = |w: &Located| -> Option<bool> {
            let look = |v: VarId| {
                if v == outer {
                    Interval::point(i)
                } else {
                    w.loops.get(&v).copied().unwrap_or(Interval::ALL)
                }
            };
            let mut all = Some(true);
            for g in &w.guards {
                match truth(g, &look) {
                    Some(false) => return Some(false),
                    Some(true) => {}
                    None => all = None,
                }
            }
            all
        };
        // What units before the reader certainly write in this iteration.
        let musts: Vec<Vec<Interval>> = all_writes
            .iter()
            .filter(|(pos, w)| {
                *pos < reader && w.exact_loops.len() == w.loops.len() && runs(w) == Some(true)
            })
            .filter_map(|(_, w)| {
                let fixed = |v: VarId| {
                    if v == outer {
                        Interval::point(i)
                    } else {
                        Interval::ALL
                    }
                };
                let mut used = Vec::with_capacity(w.indices.len());
                w.indices
                    .iter()
                    .map(|e| must_write(e, w, &mut used, &fixed))
                    .collect::<Option<Vec<Interval>>>()
            })
            .collect();
        let certainly_written = |p: &[i64]| {
            musts.iter().any(|m| {
                m.len() == p.len() && m.iter().zip(p).all(|(x, &v)| x.lo <= v && v <= x.hi)
            })
        };
        for read in reads {
            let b = box_at(read, outer, i);
            if musts.iter().any(|m| {
                m.len() == b.len() && m.iter().zip(&b).all(|(x, y)| x.lo <= y.lo && y.hi <= x.hi)
            }) {
                continue;
            }
            let Some(ps) = points(&b) else {
                return false;
            };
            for p in ps {
                if !certainly_written(&p)
                    && (anything_written_before || written_before.contains(&p))
                {
                    return false;
                }
            }
        }
        // Everything this iteration may write is written before the next one reads.
        for (_, w) in all_writes.iter().filter(|(_, w)| runs(w) != Some(false)) {
            match points(&box_at(w, outer, i)) {
                Some(ps) if !anything_written_before => written_before.extend(ps),
                Some(_) => {}
                None => anything_written_before = true,
            }
        }
    }
    true
}

/// What one write certainly writes in one dimension, seen from a read's dimension.
#[derive(Clone, Copy)]
enum Written {
    /// The read's very element, whatever it is (the same function of the iteration).
    Same,
    /// The values in this interval (the read's dimension is `coef · i + value`, same `coef`).
    Values(Interval),
    Nothing,
}

/// Elements of a read's box enumerated at most, to check it against the union of several writes.
const MAX_COVER_POINTS: i64 = 4096;

/// Is every element `read` may touch at iteration `i` written by one of `writes` at iteration `i`?
fn covered(writes: &[Located], read: &Located, outer: VarId, range: IterationRange) -> bool {
    let rank = read.indices.len();
    let iterations = Interval {
        lo: range.lo,
        hi: range.hi,
    };
    // `(coef, rest)` of an index that is `coef · i + rest`, or a constant however it is written.
    let linear = |e: &IExpr, loops: &HashMap<VarId, Interval>| -> Option<(i64, IExpr)> {
        split_linear(e, outer).or_else(|| {
            let x = interval(e, &|v| {
                if v == outer {
                    iterations
                } else {
                    loops.get(&v).copied().unwrap_or(Interval::ALL)
                }
            });
            (x.is_bounded() && x.lo == x.hi).then_some((0, IExpr::Const(x.lo)))
        })
    };
    // Per dimension of the read: the interval of its values (besides the iteration part), if
    // affine in the iteration and bounded.
    let look = |v: VarId| read.loops.get(&v).copied().unwrap_or(Interval::ALL);
    let read_dims: Vec<Option<(i64, Interval)>> = read
        .indices
        .iter()
        .map(|r| {
            let (c, rest) = linear(r, &read.loops)?;
            let x = interval(&rest, &look);
            x.is_bounded().then_some((c, x))
        })
        .collect();
    let iteration_only =
        |e: &IExpr, loops: &HashMap<VarId, Interval>| !loops.keys().any(|&v| e.mentions(v));
    let per_write: Vec<Vec<Written>> = writes
        .iter()
        .filter(|w| w.indices.len() == rank)
        .map(|w| {
            let mut used = Vec::with_capacity(rank);
            w.indices
                .iter()
                .zip(read.indices)
                .zip(&read_dims)
                .map(|((we, re), rd)| {
                    if we == re && iteration_only(we, &w.loops) && iteration_only(re, &read.loops) {
                        return Written::Same;
                    }
                    let (Some((cw, rest)), Some((cr, _))) = (linear(we, &w.loops), rd) else {
                        return Written::Nothing;
                    };
                    match must_write(&rest, w, &mut used, &|_| Interval::ALL) {
                        Some(m) if cw == *cr => Written::Values(m),
                        _ => Written::Nothing,
                    }
                })
                .collect()
        })
        .collect();
    // One write covering the whole read is the common case.
    let whole = |w: &[Written]| {
        w.iter().zip(&read_dims).all(|(x, rd)| match (x, rd) {
            (Written::Same, _) => true,
            (Written::Values(m), Some((_, r))) => m.lo <= r.lo && r.hi <= m.hi,
            _ => false,
        })
    };
    if per_write.iter().any(|w| whole(w)) {
        return true;
    }
    // Otherwise every element of the read's box must be in one write's (the halves of a tile
    // written by two statements).
    let Some(boxed) = read_dims.iter().copied().collect::<Option<Vec<_>>>() else {
        return false;
    };
    let points = boxed
        .iter()
        .try_fold(1i64, |n, (_, r)| n.checked_mul(r.hi - r.lo + 1))
        .unwrap_or(i64::MAX);
    if points > MAX_COVER_POINTS {
        return false;
    }
    let mut point: Vec<i64> = boxed.iter().map(|(_, r)| r.lo).collect();
    loop {
        let in_some = per_write.iter().any(|w| {
            w.iter().zip(&point).all(|(x, &v)| match x {
                Written::Same => true,
                Written::Values(m) => m.lo <= v && v <= m.hi,
                Written::Nothing => false,
            })
        });
        if !in_some {
            return false;
        }
        // Next point, odometer style.
        let mut k = rank;
        loop {
            let Some(k1) = k.checked_sub(1) else {
                return true;
            };
            k = k1;
            let (Some(v), Some((_, r))) = (point.get_mut(k), boxed.get(k)) else {
                return false;
            };
            if *v < r.hi {
                *v += 1;
                break;
            }
            *v = r.lo;
        }
    }
}

/// The elements a write index certainly writes over the loops of its unit: a constant (once the
/// variables `fixed` gives a point are fixed), or `±v + c` for a loop variable `v` of an exact loop
/// used by no other dimension.
fn must_write(
    rest: &IExpr,
    write: &Located,
    used: &mut Vec<VarId>,
    fixed: &dyn Fn(VarId) -> Interval,
) -> Option<Interval> {
    let point = |e: &IExpr| {
        let x = interval(e, fixed);
        (x.lo == x.hi && x.is_bounded()).then_some(x.lo)
    };
    if let Some(c) = point(rest) {
        return Some(Interval::point(c));
    }
    let mentioned: Vec<&(VarId, i64, i64)> = write
        .exact_loops
        .iter()
        .filter(|(v, _, _)| rest.mentions(*v))
        .collect();
    let [&(v, first, last)] = mentioned.as_slice() else {
        return None;
    };
    if used.contains(&v) {
        return None;
    }
    used.push(v);
    let (coef, c) = split_linear(rest, v)?;
    let c = point(&c)?;
    match coef {
        1 => Some(Interval {
            lo: first + c,
            hi: last + c,
        }),
        -1 => Some(Interval {
            lo: c - last,
            hi: c - first,
        }),
        _ => None,
    }
}
