//! The statement instances of the pipelined loop's units within one iteration, enumerated
//! exactly: every assignment a unit runs, in program order, with the element it writes and the
//! elements it reads. For what the dependence analysis's intervals cannot tell — whether one
//! asynchronous unit touches an element twice in an iteration (its group's copies land in no set
//! order), whether a read sees what its own iteration wrote earlier inside the same unit (the ring
//! of an inner loop pipelined first) — under a constant extent, within a budget of instances.

use crate::diagnostic::Span;
use crate::ir::{for_each_read, Access, Assign, BufId, Node, Program};
use crate::schedule::{iteration_range, LoopSchedule, Unit};
use std::collections::HashMap;

/// Statement instances enumerated at most per question, over every iteration: the enumeration
/// runs inside the transform, which the app runs at every keystroke.
const MAX_INSTANCES: usize = 1 << 14;

/// An element of a buffer.
pub type Element = (BufId, Vec<i64>);

/// Every iteration of the schedule's loop with the program's variables at their values: calls
/// `f(iteration, env)` in order. `None` when the extent is not a constant or the instances of
/// every iteration would exceed the budget (`per_iteration` instances each).
fn each_iteration(
    program: &Program,
    sched: &LoopSchedule,
    per_iteration: usize,
    f: impl FnMut(i64, &mut Vec<i64>) -> Option<()>,
) -> Option<()> {
    let range = iteration_range(sched);
    if !range.is_known() {
        return None;
    }
    each_iteration_in(program, sched, range.lo, range.hi, per_iteration, f)
}

/// `each_iteration` over the iterations `lo ..= hi`.
fn each_iteration_in(
    program: &Program,
    sched: &LoopSchedule,
    lo: i64,
    hi: i64,
    per_iteration: usize,
    mut f: impl FnMut(i64, &mut Vec<i64>) -> Option<()>,
) -> Option<()> {
    let iterations = usize::try_from(hi - lo + 1).ok()?;
    if iterations.checked_mul(per_iteration)? > MAX_INSTANCES {
        return None;
    }
    let mut env = program.env(&Default::default());
    for i in lo..=hi {
        *env.get_mut(sched.var as usize)? = i;
        f(i, &mut env)?;
    }
    Some(())
}

/// The assignment instances of `node` in program order: `f` gets each assignment with `env`
/// holding its loops' values. `None` when a bound or a condition cannot be evaluated, there are
/// more than `budget`, or `f` says so.
fn walk<'n>(
    node: &'n Node,
    env: &mut Vec<i64>,
    budget: &mut usize,
    f: &mut dyn FnMut(&'n Assign, &[i64]) -> Option<()>,
) -> Option<()> {
    match node {
        Node::Barrier { .. } => {}
        Node::Assign(a) => {
            *budget = budget.checked_sub(1)?;
            f(a, env)?;
        }
        Node::For {
            var, lo, hi, body, ..
        } => {
            let (l, h) = (lo.eval(env)?, hi.eval(env)?);
            if usize::try_from(h.saturating_sub(l)).unwrap_or(0) > *budget {
                return None;
            }
            let saved = *env.get(*var as usize)?;
            for v in l..h {
                *env.get_mut(*var as usize)? = v;
                for n in body {
                    walk(n, env, budget, f)?;
                }
            }
            *env.get_mut(*var as usize)? = saved;
        }
        Node::If { cond, body, .. } => {
            if cond.eval(env)? {
                for n in body {
                    walk(n, env, budget, f)?;
                }
            }
        }
        Node::Commit { body, .. }
        | Node::AsyncScope { body, .. }
        | Node::Wait { body, .. }
        | Node::Section { body, .. } => {
            for n in body {
                walk(n, env, budget, f)?;
            }
        }
    }
    Some(())
}

/// The element an access touches under `env`.
fn element(a: &Access, env: &[i64]) -> Option<Element> {
    let ix: Option<Vec<i64>> = a.indices.iter().map(|e| e.eval(env)).collect();
    Some((a.buffer, ix?))
}

/// The instances `node` runs in one iteration, at most: every loop's trip count at its largest
/// (`None` when a bound is not a constant).
fn instances_per_iteration(node: &Node) -> Option<usize> {
    match node {
        Node::Assign(_) => Some(1),
        Node::Barrier { .. } => Some(0),
        Node::For { lo, hi, body, .. } => {
            let trips = usize::try_from(hi.as_const()? - lo.as_const()?).unwrap_or(0);
            trips.checked_mul(sum_of(body)?)
        }
        Node::If { body, .. }
        | Node::Commit { body, .. }
        | Node::AsyncScope { body, .. }
        | Node::Wait { body, .. }
        | Node::Section { body, .. } => sum_of(body),
    }
}

fn sum_of(nodes: &[Node]) -> Option<usize> {
    nodes
        .iter()
        .try_fold(0usize, |n, x| n.checked_add(instances_per_iteration(x)?))
}

/// One access of a statement instance: the element, and whether the instance writes it.
pub type Touch = (Element, bool);

/// The elements `unit` touches at each iteration of the loop (at index `i − lo`), reads and
/// writes in program order: what the dependence analysis's intervals approximate, exactly.
/// `None` when it cannot be enumerated (a symbolic extent, bounds or indices that are not
/// constants, more instances than the budget).
pub fn touches_by_iteration(
    program: &Program,
    sched: &LoopSchedule,
    unit: &Unit,
) -> Option<Vec<Vec<Touch>>> {
    let range = iteration_range(sched);
    if !range.is_known() {
        return None;
    }
    touches_in(program, sched, unit, range.lo, range.hi)
}

/// As `touches_by_iteration`, for the first `iterations` iterations of the loop whatever its
/// extent: what an iteration touches does not depend on how many iterations follow it, as long
/// as no bound, condition or index of `unit` mentions a parameter (`None` when one does, or
/// when the loop's first iteration is not a constant).
pub fn touches_of_first_iterations(
    program: &Program,
    sched: &LoopSchedule,
    unit: &Unit,
    iterations: i64,
) -> Option<Vec<Vec<Touch>>> {
    let lo = sched.lo.as_const()?;
    let params: Vec<crate::ir::VarId> = program.params().map(|(id, _)| id).collect();
    if mentions_any(&unit.node, &params) {
        return None;
    }
    touches_in(program, sched, unit, lo, lo + iterations - 1)
}

/// Whether a bound, condition or index of `node` mentions one of `vars`.
fn mentions_any(node: &Node, vars: &[crate::ir::VarId]) -> bool {
    let access = |a: &Access| {
        a.indices
            .iter()
            .any(|e| vars.iter().any(|&v| e.mentions(v)))
    };
    match node {
        Node::Barrier { .. } => false,
        Node::Assign(a) => {
            let mut read = false;
            for_each_read(&a.value, &mut |r| read = read || access(r));
            read || access(&a.target)
        }
        Node::For { lo, hi, body, .. } => {
            vars.iter().any(|&v| lo.mentions(v) || hi.mentions(v))
                || body.iter().any(|n| mentions_any(n, vars))
        }
        Node::If { cond, body, .. } => {
            vars.iter().any(|&v| cond.mentions(v)) || body.iter().any(|n| mentions_any(n, vars))
        }
        Node::Wait { count, body, .. } => {
            vars.iter().any(|&v| count.mentions(v)) || body.iter().any(|n| mentions_any(n, vars))
        }
        Node::Commit { body, .. } | Node::AsyncScope { body, .. } | Node::Section { body, .. } => {
            body.iter().any(|n| mentions_any(n, vars))
        }
    }
}

/// The touches of `unit` at each iteration `lo ..= hi`.
fn touches_in(
    program: &Program,
    sched: &LoopSchedule,
    unit: &Unit,
    lo: i64,
    hi: i64,
) -> Option<Vec<Vec<Touch>>> {
    let per_iteration = instances_per_iteration(&unit.node)?;
    let mut out = Vec::new();
    each_iteration_in(program, sched, lo, hi, per_iteration, |_, env| {
        // Most statements make two to four accesses.
        let mut touches = Vec::with_capacity(4 * per_iteration);
        let mut budget = per_iteration;
        walk(&unit.node, env, &mut budget, &mut |a, env| {
            let mut known = true;
            for_each_read(&a.value, &mut |r| match element(r, env) {
                Some(e) => touches.push((e, false)),
                None => known = false,
            });
            touches.push((element(&a.target, env)?, true));
            known.then_some(())
        })?;
        out.push(touches);
        Some(())
    })?;
    Some(out)
}

/// Two instances of one unit, in one iteration, touching one element, at least one writing.
struct TwoTouches {
    iteration: i64,
    element: Element,
    /// The statement that touches it first, and whether it writes it.
    first: (Span, bool),
    /// The statement that touches it again (it writes, or reads what the first wrote).
    second: (Span, bool),
}

/// Whether one iteration of `unit` touches an element twice, once at least writing it, in two
/// different statement instances: `Some(None)` never, `Some(Some(..))` the first such pair,
/// `None` when it cannot be enumerated (a symbolic extent, bounds that are not constants, too
/// many instances).
fn touches_twice(
    program: &Program,
    sched: &LoopSchedule,
    unit: &Unit,
) -> Option<Option<TwoTouches>> {
    #[derive(Default)]
    struct Seen {
        writer: Option<(usize, Span)>,
        reader: Option<(usize, Span)>,
    }
    let per_iteration = instances_per_iteration(&unit.node)?;
    let mut found = None;
    let mut unknown = false;
    each_iteration(program, sched, per_iteration, |i, env| {
        let mut seen: HashMap<Element, Seen> = HashMap::new();
        let mut k = 0usize;
        let mut budget = per_iteration;
        walk(&unit.node, env, &mut budget, &mut |a, env| {
            let here = (k, a.span);
            k += 1;
            let mut reads = Vec::new();
            for_each_read(&a.value, &mut |r| reads.push(element(r, env)));
            let Some(reads) = reads.into_iter().collect::<Option<Vec<Element>>>() else {
                unknown = true;
                return None;
            };
            let Some(write) = element(&a.target, env) else {
                unknown = true;
                return None;
            };
            for r in reads {
                let s = seen.entry(r.clone()).or_default();
                if let Some((_, span)) = s.writer.filter(|w| w.0 != here.0) {
                    found = Some(TwoTouches {
                        iteration: i,
                        element: r,
                        first: (span, true),
                        second: (here.1, false),
                    });
                    return None;
                }
                s.reader.get_or_insert(here);
            }
            let s = seen.entry(write.clone()).or_default();
            let other = s
                .writer
                .map(|w| (w, true))
                .or_else(|| s.reader.map(|r| (r, false)))
                .filter(|((k, _), _)| *k != here.0);
            if let Some(((_, span), wrote)) = other {
                found = Some(TwoTouches {
                    iteration: i,
                    element: write,
                    first: (span, wrote),
                    second: (here.1, true),
                });
                return None;
            }
            s.writer.get_or_insert(here);
            Some(())
        })
    });
    // The walk stops at the first pair found (or at what it cannot evaluate).
    if unknown || (found.is_none() && !enumerable(program, sched, per_iteration)) {
        return None;
    }
    Some(found)
}

/// Whether `each_iteration` enumerates the loop with `per_iteration` instances in each.
fn enumerable(program: &Program, sched: &LoopSchedule, per_iteration: usize) -> bool {
    each_iteration(program, sched, per_iteration, |_, _| Some(())).is_some()
}

/// For every intermediate buffer with a shape (indexed by buffer id) and every unit position:
/// whether every read of the buffer in the unit, at every iteration, reads an element its own
/// iteration wrote before it (in the loop as written: units before it, or earlier instances of
/// its own statements) or one no earlier iteration wrote. One walk over every instance of every
/// iteration; `None` when the loop cannot be enumerated.
pub fn readers_seeing_their_own_iteration(
    program: &Program,
    sched: &LoopSchedule,
) -> Option<Vec<Option<Vec<bool>>>> {
    // It reads the loop as written, never its annotations: the schedule search, which
    // transforms one loop under thousands of annotations, walks it once.
    let key = SeesKey {
        buffers: program.buffers.clone(),
        vars: program.vars.clone(),
        var: sched.var,
        lo: sched.lo.clone(),
        extent: sched.extent.clone(),
        nodes: sched.units.iter().map(|u| u.node.clone()).collect(),
    };
    LAST_SEES.with(|last| {
        if let Some((k, sees)) = last.borrow().as_ref() {
            if *k == key {
                return sees.clone();
            }
        }
        let sees = walk_readers_seeing_their_own_iteration(program, sched);
        *last.borrow_mut() = Some((key, sees.clone()));
        sees
    })
}

/// What `readers_seeing_their_own_iteration` reads of a loop.
#[derive(PartialEq)]
struct SeesKey {
    buffers: Vec<crate::ir::Buffer>,
    vars: Vec<crate::ir::Var>,
    var: crate::ir::VarId,
    lo: crate::ir::IExpr,
    extent: crate::schedule::Extent,
    nodes: Vec<Node>,
}

/// The loop it answered last, and its answer.
type SeesMemo = Option<(SeesKey, Option<Vec<Option<Vec<bool>>>>)>;

thread_local! {
    static LAST_SEES: std::cell::RefCell<SeesMemo> = const { std::cell::RefCell::new(None) };
}

fn walk_readers_seeing_their_own_iteration(
    program: &Program,
    sched: &LoopSchedule,
) -> Option<Vec<Option<Vec<bool>>>> {
    /// A buffer followed: its shape, the iteration that last wrote each element (numbered from
    /// 1; 0 never), and per unit whether its reads all see their own iteration.
    struct Followed<'s> {
        shape: &'s [i64],
        written: Vec<u64>,
        sees: Vec<bool>,
    }
    let units = &sched.units;
    let mut followed: Vec<Option<Followed>> = program
        .buffers
        .iter()
        .map(|b| {
            let shape = b.shape.as_deref().filter(|_| b.declared)?;
            let elements = usize::try_from(shape.iter().product::<i64>()).ok()?;
            Some(Followed {
                shape,
                written: vec![0; elements],
                sees: vec![true; units.len()],
            })
        })
        .collect();
    // Row-major offset of the element an access touches, `None` outside the shape.
    let offset = |shape: &[i64], ix: &[crate::ir::IExpr], env: &[i64]| -> Option<usize> {
        if ix.len() != shape.len() {
            return None;
        }
        let mut off = 0i64;
        for (e, &d) in ix.iter().zip(shape) {
            let i = e.eval(env)?;
            if i < 0 || i >= d {
                return None;
            }
            off = off * d + i;
        }
        usize::try_from(off).ok()
    };
    let per_iteration = units.iter().try_fold(0usize, |n, u| {
        n.checked_add(instances_per_iteration(&u.node)?)
    })?;
    let mut stamp = 0u64;
    each_iteration(program, sched, per_iteration, |_, env| {
        stamp += 1;
        let mut budget = per_iteration;
        for u in units {
            walk(&u.node, env, &mut budget, &mut |a, env| {
                let mut known = true;
                for_each_read(&a.value, &mut |r| {
                    let Some(Some(f)) = followed.get_mut(r.buffer as usize) else {
                        return;
                    };
                    match offset(f.shape, &r.indices, env).and_then(|o| f.written.get(o)) {
                        // Written by this iteration, or by none before it.
                        Some(&w) if w == stamp || w == 0 => {}
                        Some(_) => {
                            if let Some(x) = f.sees.get_mut(u.pos) {
                                *x = false;
                            }
                        }
                        None => known = false,
                    }
                });
                if let Some(Some(f)) = followed.get_mut(a.target.buffer as usize) {
                    match offset(f.shape, &a.target.indices, env).and_then(|o| f.written.get_mut(o))
                    {
                        Some(w) => *w = stamp,
                        None => known = false,
                    }
                }
                known.then_some(())
            })?;
        }
        Some(())
    })?;
    Some(followed.into_iter().map(|f| f.map(|f| f.sees)).collect())
}

/// Two statement instances of one unit that touch (or, unproven, may touch) one element in one
/// iteration, one of them writing it.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    pub buffer: BufId,
    /// The element and the iteration, when found by enumeration; `None` when the loop's
    /// iterations could not be enumerated and the analysis could not rule the conflict out.
    pub at: Option<(i64, Vec<i64>)>,
    /// The statement that touches it first, and whether it writes it.
    pub first: (Span, bool),
    /// The statement that touches it again.
    pub second: (Span, bool),
}

/// The first conflict between two statement instances of `unit` within one iteration. The
/// indices' form rules most out at once (a write that takes a different element at every value
/// of its loops, two statements whose elements differ in some index at every iteration: a tile's
/// copy); what it cannot rule out is decided by enumeration under a constant extent, and
/// otherwise reported as possible. `None`: there is none.
pub fn conflict_within_an_iteration(
    program: &Program,
    sched: &LoopSchedule,
    unit: &Unit,
) -> Option<Conflict> {
    let placed = placed(&unit.node);
    let possible = placed.iter().enumerate().find_map(|(k, a)| {
        placed
            .iter()
            .skip(k)
            .find_map(|b| may_conflict(a, b, sched.var))
    })?;
    match touches_twice(program, sched, unit) {
        Some(found) => found.map(|t| Conflict {
            buffer: t.element.0,
            at: Some((t.iteration, t.element.1)),
            first: t.first,
            second: t.second,
        }),
        None => Some(possible),
    }
}

/// An assignment of a unit with the loops of the unit around it (their ranges, all values when
/// a bound is not a constant).
struct Placed<'n> {
    assign: &'n Assign,
    loops: Vec<(crate::ir::VarId, crate::affine::Interval)>,
}

fn placed(node: &Node) -> Vec<Placed<'_>> {
    fn go<'n>(
        node: &'n Node,
        loops: &mut Vec<(crate::ir::VarId, crate::affine::Interval)>,
        out: &mut Vec<Placed<'n>>,
    ) {
        match node {
            Node::Barrier { .. } => {}
            Node::Assign(assign) => out.push(Placed {
                assign,
                loops: loops.clone(),
            }),
            Node::For {
                var, lo, hi, body, ..
            } => {
                let range = match (lo.as_const(), hi.as_const()) {
                    (Some(l), Some(h)) => crate::affine::Interval { lo: l, hi: h - 1 },
                    _ => crate::affine::Interval::ALL,
                };
                loops.push((*var, range));
                for n in body {
                    go(n, loops, out);
                }
                loops.pop();
            }
            Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => {
                for n in body {
                    go(n, loops, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    go(node, &mut Vec::new(), &mut out);
    out
}

/// Whether two instances of `a` and `b` (the same assignment at different values of its loops,
/// when `a` is `b`) may touch one element in one iteration, one writing it: the pair, unless the
/// indices' form rules it out.
fn may_conflict(a: &Placed, b: &Placed, outer: crate::ir::VarId) -> Option<Conflict> {
    let same = std::ptr::eq(a.assign, b.assign);
    let runs_more_than_once = a.loops.iter().any(|(_, r)| r.lo != r.hi);
    if same && !runs_more_than_once {
        return None;
    }
    let (wa, wb) = (&a.assign.target, &b.assign.target);
    let reads_of = |p: &Placed<'_>| {
        let mut reads = Vec::new();
        for_each_read(&p.assign.value, &mut |r| reads.push(r.clone()));
        reads
    };
    let (ra, rb) = (reads_of(a), reads_of(b));
    let conflict = |first_writes: bool, second_writes: bool, buffer: BufId| Conflict {
        buffer,
        at: None,
        first: (a.assign.span, first_writes),
        second: (b.assign.span, second_writes),
    };
    if same {
        let injective = injective(&wa.indices, &a.loops);
        if !injective {
            return Some(conflict(true, true, wa.buffer));
        }
        // Its own write, read by another instance of it.
        return ra
            .iter()
            .find(|r| r.buffer == wa.buffer && r.indices != wa.indices)
            .map(|r| conflict(true, false, r.buffer));
    }
    let apart = |x: &crate::ir::Access, xl: &Placed, y: &crate::ir::Access, yl: &Placed| {
        x.buffer != y.buffer || disjoint(&x.indices, &xl.loops, &y.indices, &yl.loops, outer)
    };
    if !apart(wa, a, wb, b) {
        return Some(conflict(true, true, wa.buffer));
    }
    if let Some(r) = rb.iter().find(|r| !apart(wa, a, r, b)) {
        return Some(conflict(true, false, r.buffer));
    }
    ra.iter()
        .find(|r| !apart(r, a, wb, b))
        .map(|r| conflict(false, true, r.buffer))
}

/// Whether a write takes a different element at every value of its loops: each loop that runs
/// more than once is `±v + c` in some index, `c` free of the loops.
fn injective(
    indices: &[crate::ir::IExpr],
    loops: &[(crate::ir::VarId, crate::affine::Interval)],
) -> bool {
    loops.iter().filter(|(_, r)| r.lo != r.hi).all(|(v, _)| {
        indices.iter().any(|e| {
            crate::affine::split_linear(e, *v).is_some_and(|(coef, rest)| {
                coef.abs() == 1 && !loops.iter().any(|(w, _)| rest.mentions(*w))
            })
        })
    })
}

/// Whether two accesses of one iteration never meet: in some index both are `c · i + rest` with
/// the same `c` and the ranges of their rests (over their loops) do not overlap.
fn disjoint(
    x: &[crate::ir::IExpr],
    xl: &[(crate::ir::VarId, crate::affine::Interval)],
    y: &[crate::ir::IExpr],
    yl: &[(crate::ir::VarId, crate::affine::Interval)],
    outer: crate::ir::VarId,
) -> bool {
    let range = |loops: &[(crate::ir::VarId, crate::affine::Interval)]| {
        let loops = loops.to_vec();
        move |v: crate::ir::VarId| {
            loops
                .iter()
                .find(|(w, _)| *w == v)
                .map_or(crate::affine::Interval::ALL, |(_, r)| *r)
        }
    };
    let (rx, ry) = (range(xl), range(yl));
    x.len() == y.len()
        && x.iter().zip(y).any(|(ex, ey)| {
            let (Some((cx, restx)), Some((cy, resty))) = (
                crate::affine::split_linear(ex, outer),
                crate::affine::split_linear(ey, outer),
            ) else {
                return false;
            };
            let (ix, iy) = (
                crate::affine::interval(&restx, &rx),
                crate::affine::interval(&resty, &ry),
            );
            cx == cy && ix.is_bounded() && iy.is_bounded() && (ix.hi < iy.lo || iy.hi < ix.lo)
        })
}
