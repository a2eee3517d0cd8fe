//! Barriers between threads: where a loop run by several threads (waves) needs `barrier()` in
//! its pipelined program, and why (docs/execution-model.md, "Threads").
//!
//! A thread's wait says nothing about what *other* threads' copies wrote: when a statement reads
//! elements of a distributed buffer that other threads write, every thread must pass a barrier
//! after the wait that lands those writes and before the read (CUTLASS's `__syncthreads()` after
//! `cp_async_wait<kStages - 2>()`); and a slot other threads read must not be refilled before they
//! are all past a barrier. Each such pair of accesses is an interval of the pipelined program's
//! time — steps of `L` positions, one per unit in step order — and a barrier at a position of the
//! step repeats every step; the fewest positions that hit every interval are chosen (circular-arc
//! stabbing, tried from every interval's end), and each barrier carries the pairs it orders.
//!
//! The interpreter (`interp::threads`) judges the result by running every thread: this module
//! only reads the schedule and its dependences.

use crate::ir::*;
use crate::schedule::DepKind;
use crate::shape::LoopShape;

/// A position in the pipelined program's time: `step · L + position`, `L` units a step.
type Time = i64;

/// One pair of accesses that a barrier must separate: some barrier at a time in `lo..=hi`
/// (before the unit at that time, after its wait).
#[derive(Clone, Debug)]
struct Need {
    /// For the producer's iteration 0; iteration `i` shifts both by `i` steps.
    lo: Time,
    hi: Time,
    /// The consumer's iteration, the producer's being 0.
    distance: i64,
    /// For a read of an async copy: the copy's time and queue, from which the wait that lands
    /// it is found step by step (`lo` is the latest wait at a position any section waits at).
    lands: Option<(Time, i64)>,
    reason: BarrierReason,
}

/// What `irredundant` needs to keep a barrier only where no other orders a pair instance it
/// orders: the step length, the loop's first iteration and extent (`None` when symbolic: every
/// barrier is kept), the pairs, and where the steps wait.
struct Placement<'a> {
    len: i64,
    first: i64,
    extent: Option<i64>,
    needs: &'a [Need],
    shape: &'a LoopShape,
    waits: &'a Waits,
}

/// Labels a statement in a barrier's reason: its target, `A_frag[…]`.
pub fn statement_label(program: &Program, stmt: StmtId) -> String {
    let mut name = None;
    for_each_assign(&program.body, &mut |a| {
        if a.stmt == stmt && name.is_none() {
            name = program.buffer(a.target.buffer).map(|b| b.name.to_string());
        }
    });
    format!("{}[…]", name.unwrap_or_else(|| format!("statement {stmt}")))
}

/// Inserts the barriers the pipelined `out` needs when `program`'s loop runs on several waves
/// (threads when there are no waves); nothing otherwise.
pub fn place(out: &mut Program, program: &Program, shape: &LoopShape) {
    let Some(threads) = program.threads else {
        return;
    };
    if threads.waves <= 1 {
        return;
    }
    let step_len = shape.step_order.len() as i64;
    if step_len == 0 {
        return;
    }
    // The position of each unit in a step.
    let mut position = vec![0i64; shape.sched.units.len()];
    for (p, &u) in shape.step_order.iter().enumerate() {
        if let Some(slot) = position.get_mut(u) {
            *slot = p as i64;
        }
    }
    let waits = waits_before_units(out, shape);
    let needs = needs(program, threads, shape, &position, &waits, step_len);
    if needs.is_empty() {
        return;
    }
    let chosen = stab(&needs, step_len);
    let mut reasons: Vec<Vec<BarrierReason>> = vec![Vec::new(); chosen.len()];
    for n in &needs {
        // Each pair is named at the last chosen barrier that orders it.
        let hit = (n.lo..=n.hi)
            .rev()
            .find_map(|t| chosen.iter().position(|&g| g == t.rem_euclid(step_len)));
        if let Some(list) = hit.and_then(|k| reasons.get_mut(k)) {
            if !list.contains(&n.reason) {
                list.push(n.reason.clone());
            }
        }
    }
    let stmt_position = |s: StmtId| {
        shape
            .sched
            .units
            .iter()
            .position(|u| u.stmts.contains(&s))
            .and_then(|u| position.get(u).copied())
    };
    let mut barriers: Vec<(i64, Vec<BarrierReason>)> =
        chosen.iter().copied().zip(reasons).collect();
    barriers.sort_by_key(|(g, _)| *g);
    let extent = match &shape.sched.extent {
        crate::schedule::Extent::Const(e) => Some(*e),
        crate::schedule::Extent::Symbolic(_) => None,
    };
    let first = shape.sched.lo.as_const().unwrap_or(0);
    let placement = Placement {
        len: step_len,
        first,
        extent,
        needs: &needs,
        shape,
        waits: &waits,
    };
    let epilogue = extent.map(|e| first + e.max(shape.stages()));
    write_barriers(
        &mut out.body,
        &barriers,
        &placement,
        (Some(first), epilogue),
        (shape.sched.var, &stmt_position),
    );
}

/// Per unit, the queues some wait directly around one of its statements waits on: in any
/// section, and in each section (prologue, body, epilogue).
struct Waits {
    any: Vec<Vec<i64>>,
    prologue: Vec<Vec<i64>>,
    body: Vec<Vec<i64>>,
    epilogue: Vec<Vec<i64>>,
}

impl Waits {
    /// Whether the unit at `position` of a step of `section` (any section when unknown) waits on
    /// `queue`.
    fn at(
        &self,
        shape: &LoopShape,
        section: Option<SectionKind>,
        position: i64,
        queue: i64,
    ) -> bool {
        let units = match section {
            None => &self.any,
            Some(SectionKind::Prologue) => &self.prologue,
            Some(SectionKind::Body) => &self.body,
            Some(SectionKind::Epilogue) => &self.epilogue,
        };
        shape
            .step_order
            .get(position as usize)
            .and_then(|&u| units.get(u))
            .is_some_and(|w| w.contains(&queue))
    }
}

fn waits_before_units(out: &Program, shape: &LoopShape) -> Waits {
    let none = vec![Vec::new(); shape.sched.units.len()];
    let mut waits = Waits {
        any: none.clone(),
        prologue: none.clone(),
        body: none.clone(),
        epilogue: none,
    };
    fn walk(nodes: &[Node], shape: &LoopShape, section: Option<SectionKind>, waits: &mut Waits) {
        for n in nodes {
            match n {
                Node::Wait { queue, body, .. } => {
                    let mut stmts = Vec::new();
                    for_each_assign(body, &mut |a| stmts.push(a.stmt));
                    for (u, unit) in shape.sched.units.iter().enumerate() {
                        if unit.stmts.iter().any(|s| stmts.contains(s)) {
                            let of_section = match section {
                                None => None,
                                Some(SectionKind::Prologue) => Some(&mut waits.prologue),
                                Some(SectionKind::Body) => Some(&mut waits.body),
                                Some(SectionKind::Epilogue) => Some(&mut waits.epilogue),
                            };
                            let lists = std::iter::once(&mut waits.any).chain(of_section);
                            for list in lists {
                                if let Some(w) = list.get_mut(u) {
                                    if !w.contains(queue) {
                                        w.push(*queue);
                                    }
                                }
                            }
                        }
                    }
                    walk(body, shape, section, waits);
                }
                Node::Section { body, kind, .. } => walk(body, shape, Some(*kind), waits),
                Node::For { body, .. }
                | Node::If { body, .. }
                | Node::Commit { body, .. }
                | Node::AsyncScope { body, .. } => walk(body, shape, section, waits),
                Node::Assign(_) | Node::Barrier { .. } => {}
            }
        }
    }
    walk(&out.body, shape, None, &mut waits);
    waits
}

/// The latest time in `a + 1..=b` at which a wait on `queue` runs, by `waits_at(time)`.
fn latest_wait(a: Time, b: Time, waits_at: impl Fn(Time) -> bool) -> Option<Time> {
    (a + 1..=b).rev().find(|&t| waits_at(t))
}

/// The pairs of accesses of different threads that the pipelined loop must separate.
fn needs(
    program: &Program,
    threads: Threads,
    shape: &LoopShape,
    position: &[i64],
    waits: &Waits,
    step_len: i64,
) -> Vec<Need> {
    let units = &shape.sched.units;
    // The loop's iterations, for the indices that name them (none when symbolic: such an index
    // is not judged, and its pair is kept).
    let iterations = match (&shape.sched.extent, shape.sched.lo.as_const()) {
        (crate::schedule::Extent::Const(e), Some(lo)) => Some((lo, lo + e)),
        _ => None,
    };
    let pipeline = (shape.sched.var, iterations);
    let mut out = Vec::new();
    for dep in &shape.deps {
        let shared = program
            .buffer(dep.buffer)
            .is_some_and(|b| !b.threads.is_each());
        if !shared || dep.kind == DepKind::Waw {
            continue;
        }
        let (Some(from), Some(to)) = (units.get(dep.from), units.get(dep.to)) else {
            continue;
        };
        let (reader, writer) = if dep.kind == DepKind::Raw {
            (to, from)
        } else {
            (from, to)
        };
        // Where a kernel copies an async copy's tile cooperatively, each thread a chunk whatever
        // the owner (docs/execution-model.md, "In the kernels"), a read of the owner's own
        // element still reads what other threads copied: there only a synchronous writer's pairs
        // are left out when every read is by the element's owner.
        if !(writer.is_async && threads.copied_cooperatively())
            && super::owners::reads_own_elements(
                program,
                &reader.node,
                dep.buffer,
                threads,
                pipeline,
            )
        {
            continue;
        }
        // A versioned buffer's slot is the iteration modulo its versions: a refill meets a read
        // only a multiple of them apart, and a read sees only its own iteration's write.
        let versions = shape.versions_of(dep.buffer);
        let d = match dep.kind {
            DepKind::Raw if versions > 1 => dep.distances.contains(0).then_some(0),
            DepKind::Raw => dep.distances.first(0, 1),
            _ => dep.distances.first(0, versions),
        };
        let Some(d) = d else {
            continue;
        };
        let time = |u: &crate::schedule::Unit, pos: usize, iteration: i64| {
            (iteration + u.stage) * step_len + position_of(position, pos)
        };
        let a = time(from, dep.from, 0);
        let b = time(to, dep.to, d);
        if b <= a {
            continue;
        }
        // The latest wait on the copy's queue at or before the read lands it in every thread
        // (waits complete oldest first): the barrier goes after it.
        let lands = (dep.kind == DepKind::Raw && from.is_async).then_some((a, from.stage));
        let lo = match lands {
            Some((a, queue)) => latest_wait(a, b, |t| {
                waits.at(shape, None, t.rem_euclid(step_len), queue)
            })
            .unwrap_or(b),
            None => a + 1,
        };
        let (Some(&producer), Some(&consumer)) = (from.stmts.first(), to.stmts.first()) else {
            continue;
        };
        let kind = match dep.kind {
            DepKind::Raw => BarrierKind::AfterWrite,
            _ => BarrierKind::BeforeRefill,
        };
        out.push(Need {
            lo,
            hi: b,
            distance: d,
            lands,
            reason: BarrierReason {
                kind,
                producer,
                consumer,
                buffer: dep.buffer,
                distance: u32::try_from(b.div_euclid(step_len) - a.div_euclid(step_len))
                    .unwrap_or(0),
            },
        });
    }
    out
}

fn position_of(position: &[i64], unit: usize) -> i64 {
    position.get(unit).copied().unwrap_or(0)
}

/// The fewest positions of a step (`0..len`) such that every need's interval holds one of them
/// (modulo `len`): from each need's last time in turn, the greedy walk that places a barrier at
/// the end of the first interval not yet hit; the smallest answer, the earliest start on a tie.
fn stab(needs: &[Need], len: i64) -> Vec<i64> {
    // Intervals as arcs: start position and length (a whole step or more is any position).
    let arcs: Vec<(i64, i64)> = needs
        .iter()
        .map(|n| (n.lo.rem_euclid(len), (n.hi - n.lo).min(len - 1)))
        .collect();
    let hits = |g: i64, (start, length): (i64, i64)| (g - start).rem_euclid(len) <= length;
    let mut best: Option<Vec<i64>> = None;
    for &(s0, l0) in &arcs {
        let first = (s0 + l0).rem_euclid(len);
        let mut chosen = vec![first];
        // Walk the positions after `first` once around; at each arc's end not yet hit, place.
        let mut ends: Vec<(i64, (i64, i64))> = arcs
            .iter()
            .map(|&(s, l)| (((s + l) - first).rem_euclid(len), (s, l)))
            .collect();
        ends.sort_by_key(|(e, _)| *e);
        for (_, arc) in ends {
            if !chosen.iter().any(|&g| hits(g, arc)) {
                chosen.push((arc.0 + arc.1).rem_euclid(len));
            }
        }
        chosen.sort_unstable();
        chosen.dedup();
        if best.as_ref().is_none_or(|b| chosen.len() < b.len()) {
            best = Some(chosen);
        }
    }
    best.unwrap_or_default()
}

/// Where the barriers go and which of them are written: a first walk (`Mode::Record`) finds every
/// place a barrier would be written with the steps it would run at; `irredundant` keeps the
/// fewest that still order every pair; a second walk over the same places (`Mode::Write`) writes
/// those. Both walks meet the places in the same order: a barrier written or not changes no
/// later place (a barrier holds no statement, and places are found by statements).
struct Writer<'a> {
    var: VarId,
    stmt_position: &'a dyn Fn(StmtId) -> Option<i64>,
    mode: Mode,
    next: usize,
    /// The section each step written is in.
    sections: std::collections::BTreeMap<i64, SectionKind>,
    /// The waits each step written runs: the position of the statements each waits around, and
    /// its queue.
    step_waits: std::collections::BTreeMap<i64, Vec<StepWait>>,
    /// The commits each step written certainly runs (not under a guard the step leaves
    /// undecided), with the positions of the statements each holds.
    step_commits: std::collections::BTreeMap<i64, Vec<StepCommit>>,
}

/// A wait a step runs: the position of a statement it waits around, its queue, and — when the
/// step certainly runs it at that position, before any statement it holds, with a count the
/// step decides — that count.
#[derive(Clone, Copy, Debug)]
struct StepWait {
    position: i64,
    queue: i64,
    count: Option<i64>,
}

/// A commit a step runs: its queue and the first and last positions of its statements.
#[derive(Clone, Copy, Debug)]
struct StepCommit {
    queue: i64,
    first: i64,
    last: i64,
}

enum Mode {
    Record(Vec<Site>),
    Write(Vec<bool>),
}

/// A place a barrier would be written: its position in the step and the steps it runs at
/// (`None` when they are not known: a loop with a symbolic range, a guard not decided by the
/// step alone).
#[derive(Clone, Debug)]
struct Site {
    g: i64,
    steps: Option<Vec<i64>>,
}

impl Writer<'_> {
    /// Whether this is the first walk, which notes the places and what `irredundant` reads of
    /// the steps (their sections and waits); the second only writes.
    fn recording(&self) -> bool {
        matches!(self.mode, Mode::Record(_))
    }

    /// Whether the barrier at this place is written; recording, every place is.
    fn site(&mut self, g: i64, steps: &Option<Vec<i64>>) -> bool {
        let k = self.next;
        self.next += 1;
        match &mut self.mode {
            Mode::Record(sites) => {
                sites.push(Site {
                    g,
                    steps: steps.clone(),
                });
                true
            }
            Mode::Write(keep) => keep.get(k).copied().unwrap_or(true),
        }
    }

    /// The value of `e` at step `t`, when it reads nothing but the pipeline's variable.
    fn at_step(&self, e: &IExpr, t: i64) -> Option<i64> {
        if (0..self.var).any(|v| e.mentions(v)) {
            return None;
        }
        let mut env = vec![0; self.var as usize + 1];
        *env.get_mut(self.var as usize)? = t;
        e.eval(&env)
    }

    /// The steps of `steps` at which `cond` is `holds`.
    fn where_cond(&self, cond: &Cond, holds: bool, steps: &Option<Vec<i64>>) -> Option<Vec<i64>> {
        // A guard that reads anything but the pipeline's variable is not decided by the step.
        if (0..self.var).any(|v| cond.mentions(v)) {
            return None;
        }
        let mut env = vec![0; self.var as usize + 1];
        let steps = steps.as_ref()?;
        let mut out = Vec::new();
        for &t in steps {
            if let Some(slot) = env.get_mut(self.var as usize) {
                *slot = t;
            }
            match cond.eval(&env) {
                Some(c) if c != holds => {}
                Some(_) => out.push(t),
                None => return None,
            }
        }
        Some(out)
    }
}

/// Inserts each barrier, in every step of every section, before the first statement at or after
/// its position (after that statement's wait), or at the step's end when none follows: of
/// those places, only the ones `irredundant` keeps (a place that orders no pair instance is
/// never kept).
fn write_barriers(
    body: &mut [Node],
    barriers: &[(i64, Vec<BarrierReason>)],
    placement: &Placement,
    starts: (Option<i64>, Option<i64>),
    writer: (VarId, &dyn Fn(StmtId) -> Option<i64>),
) {
    let (var, stmt_position) = writer;
    let mut record = Writer {
        var,
        stmt_position,
        mode: Mode::Record(Vec::new()),
        next: 0,
        sections: Default::default(),
        step_waits: Default::default(),
        step_commits: Default::default(),
    };
    insert_in_steps(&mut body.to_vec(), barriers, starts, &mut record);
    let Mode::Record(sites) = std::mem::replace(&mut record.mode, Mode::Write(Vec::new())) else {
        return;
    };
    let keep = irredundant(&sites, placement, &record);
    let mut write = Writer {
        var,
        stmt_position,
        mode: Mode::Write(keep),
        next: 0,
        sections: Default::default(),
        step_waits: Default::default(),
        step_commits: Default::default(),
    };
    insert_in_steps(body, barriers, starts, &mut write);
}

/// Of the places `sites`, the ones to write: a place is dropped when every pair it orders (at
/// every step it runs) is ordered by another place still kept — earliest places first, so the
/// barrier kept is the one nearest the read; the body's places, which run at many steps, last.
/// What remains is irredundant: deleting any one of them leaves some pair unordered. With a
/// symbolic extent every place is kept.
fn irredundant(sites: &[Site], placement: &Placement, walked: &Writer) -> Vec<bool> {
    let mut keep = vec![true; sites.len()];
    let Some(extent) = placement.extent else {
        return keep;
    };
    let (len, first) = (placement.len, placement.first);
    let last = first + extent - 1;
    // The pairs' instances, each an interval of times. Far from both ends of the loop, an
    // instance is a translation of one nearer: only the body's places meet it, and they meet it
    // as they meet the nearer one. So a long loop is judged on its ends.
    let reach = placement
        .needs
        .iter()
        .map(|n| (n.hi - n.lo) / len + n.distance.abs() + 2)
        .max()
        .unwrap_or(0)
        + 2;
    let iterations: Vec<i64> = if extent <= 4 * reach {
        (first..=last).collect()
    } else {
        (first..first + 2 * reach)
            .chain(last + 1 - 2 * reach..=last)
            .collect()
    };
    // An instance's read waits where its own step waits, not where any step does.
    let waits_at = |queue: i64| {
        move |t: Time| {
            let (step, p) = (t.div_euclid(len), t.rem_euclid(len));
            match walked.step_waits.get(&step) {
                Some(waits) => waits.iter().any(|w| w.position == p && w.queue == queue),
                None => {
                    let section = walked.sections.get(&step).copied();
                    placement.waits.at(placement.shape, section, p, queue)
                }
            }
        }
    };
    let mut pairs: Vec<(i64, i64)> = Vec::new();
    for n in placement.needs {
        for &i in &iterations {
            if (first..=last).contains(&(i + n.distance)) {
                let hi = n.hi + i * len;
                let lo = match n.lands {
                    Some((a, queue)) => first_landing(walked, len, a + i * len, hi, queue)
                        .or_else(|| latest_wait(a + i * len, hi, waits_at(queue)))
                        .unwrap_or(n.lo + i * len),
                    None => n.lo + i * len,
                };
                pairs.push((lo, hi));
            }
        }
    }
    let hits = |site: &Site, (lo, hi): (i64, i64)| match &site.steps {
        None => true,
        Some(steps) => {
            let from =
                (lo - site.g).div_euclid(len) + i64::from((lo - site.g).rem_euclid(len) != 0);
            let to = (hi - site.g).div_euclid(len);
            let at = steps.partition_point(|&t| t < from);
            steps.get(at).is_some_and(|&t| t <= to)
        }
    };
    let mut order: Vec<usize> = (0..sites.len()).collect();
    order.sort_by_key(|&k| {
        sites.get(k).map_or((true, 0, 0), |s| match &s.steps {
            None => (true, 0, 0),
            Some(steps) => (steps.len() > 1, steps.first().copied().unwrap_or(0), s.g),
        })
    });
    for k in order {
        let Some(site) = sites.get(k) else { continue };
        if site.steps.is_none() {
            continue;
        }
        let redundant = pairs.iter().filter(|&&p| hits(site, p)).all(|&p| {
            sites
                .iter()
                .zip(&keep)
                .enumerate()
                .any(|(j, (other, &kept))| j != k && kept && hits(other, p))
        });
        if redundant {
            if let Some(slot) = keep.get_mut(k) {
                *slot = false;
            }
        }
    }
    keep
}

fn insert_in_steps(
    nodes: &mut [Node],
    barriers: &[(i64, Vec<BarrierReason>)],
    (prologue, epilogue): (Option<i64>, Option<i64>),
    w: &mut Writer,
) {
    for n in nodes.iter_mut() {
        if let Node::Section {
            body, steps, kind, ..
        } = n
        {
            let mut written_step = match kind {
                SectionKind::Prologue => prologue,
                SectionKind::Epilogue => epilogue,
                SectionKind::Body => None,
            };
            let written: usize = steps
                .as_ref()
                .map_or(0, |s| s.iter().map(|&k| k as usize).sum());
            let mut rest = body.split_off(written.min(body.len()));
            let mut counts = Vec::new();
            let mut rebuilt = Vec::new();
            let mut taken = std::mem::take(body).into_iter();
            for &k in steps.as_deref().unwrap_or_default() {
                let mut step: Vec<Node> = taken.by_ref().take(k as usize).collect();
                if let Some(t) = written_step.filter(|_| w.recording()) {
                    w.sections.insert(t, *kind);
                    record_waits(&step, &Some(vec![t]), w);
                }
                insert_in_step(&mut step, barriers, &written_step.map(|t| vec![t]), w);
                written_step = written_step.map(|t| t + 1);
                counts.push(step.len() as u32);
                rebuilt.append(&mut step);
            }
            rebuilt.extend(taken);
            for r in rest.iter_mut() {
                if let Node::For {
                    var: v,
                    body,
                    lo,
                    hi,
                    ..
                } = r
                {
                    if *v == w.var {
                        let range = lo.as_const().zip(hi.as_const()).map(|(l, h)| (l, h - 1));
                        if w.recording() {
                            for t in range.into_iter().flat_map(|(l, h)| l..=h) {
                                w.sections.insert(t, *kind);
                            }
                            record_waits(body, &range.map(|(l, h)| (l..=h).collect()), w);
                        }
                        insert_in_step(body, barriers, &range.map(|(l, h)| (l..=h).collect()), w);
                    }
                }
            }
            rebuilt.append(&mut rest);
            *body = rebuilt;
            if let Some(s) = steps {
                *s = counts;
            }
        }
    }
}

/// Notes in `w.step_waits` the waits `nodes` run at each of `steps` (nothing when unknown), and
/// in `w.step_commits` the commits they run there.
fn record_waits(nodes: &[Node], steps: &Option<Vec<i64>>, w: &mut Writer) {
    let Some(list) = steps else { return };
    for &t in list {
        w.step_waits.entry(t).or_default();
    }
    note_waits(nodes, steps, true, w);
}

/// `record_waits` below the steps' entries, under guards that hold at every step of `steps`
/// when `certain`.
fn note_waits(nodes: &[Node], steps: &Option<Vec<i64>>, certain: bool, w: &mut Writer) {
    let Some(list) = steps else { return };
    for n in nodes {
        match n {
            Node::Wait {
                queue, body, count, ..
            } => {
                let at = positions_in(n, w.stmt_position);
                let first = at.iter().min().copied();
                for &t in list {
                    let count = w.at_step(count, t).filter(|_| certain);
                    let waits = w.step_waits.entry(t).or_default();
                    for &p in &at {
                        let count = count.filter(|_| Some(p) == first);
                        if !waits.iter().any(|x| x.position == p && x.queue == *queue) {
                            waits.push(StepWait {
                                position: p,
                                queue: *queue,
                                count,
                            });
                        }
                    }
                }
                note_waits(body, steps, certain, w);
            }
            Node::If { cond, body, .. } => {
                // A guard the step does not decide: its waits are noted as running, which
                // can only make a pair's interval narrower (a later wait), never wider; its
                // commits are not, which can only make a copy land later.
                let decided = w.where_cond(cond, true, steps);
                let certain = certain && decided.is_some();
                let holds = decided.or_else(|| steps.clone());
                note_waits(body, &holds, certain, w);
            }
            Node::Commit { queue, body, .. } => {
                let at = positions_in(n, w.stmt_position);
                if let (true, Some(&first), Some(&last)) =
                    (certain, at.iter().min(), at.iter().max())
                {
                    for &t in list {
                        w.step_commits.entry(t).or_default().push(StepCommit {
                            queue: *queue,
                            first,
                            last,
                        });
                    }
                }
                note_waits(body, steps, certain, w);
            }
            Node::For { body, .. } | Node::AsyncScope { body, .. } | Node::Section { body, .. } => {
                note_waits(body, steps, certain, w)
            }
            Node::Assign(_) | Node::Barrier { .. } => {}
        }
    }
}

/// The earliest time in `a + 1..=b` at which a wait on `queue` lands the copy committed at `a`,
/// as the steps written run them: a wait of count `c` completes every group but the `c` latest,
/// so it lands the copy once `c` groups of the queue are committed after the copy's and before
/// the wait. `None` when no wait there is known to (a step not written, a count or a guard the
/// step does not decide).
fn first_landing(walked: &Writer, len: i64, a: Time, b: Time, queue: i64) -> Option<Time> {
    let mut committed = 0i64;
    for t in a + 1..=b {
        let (step, p) = (t.div_euclid(len), t.rem_euclid(len));
        let waits = walked.step_waits.get(&step)?;
        let lands = waits
            .iter()
            .filter(|x| x.position == p && x.queue == queue)
            .any(|x| x.count.is_some_and(|c| committed >= c));
        if lands {
            return Some(t);
        }
        // Commits whose statements all lie after the copy, the last of them at `t`: done
        // before any wait at a later time.
        committed += walked.step_commits.get(&step).map_or(0, |commits| {
            commits
                .iter()
                .filter(|c| c.queue == queue && c.last == p && step * len + c.first > a)
                .count() as i64
        });
    }
    None
}

/// The positions of a node's statements in the step.
fn positions_in(node: &Node, stmt_position: &dyn Fn(StmtId) -> Option<i64>) -> Vec<i64> {
    let mut out = Vec::new();
    for_each_assign(std::slice::from_ref(node), &mut |a| {
        if let Some(p) = stmt_position(a.stmt) {
            out.push(p);
        }
    });
    out
}

/// The barriers of one step (or of a loop's body, running at `steps`), latest position first.
fn insert_in_step(
    step: &mut Vec<Node>,
    barriers: &[(i64, Vec<BarrierReason>)],
    steps: &Option<Vec<i64>>,
    w: &mut Writer,
) {
    for (g, reasons) in barriers.iter().rev() {
        insert_one(step, *g, reasons, steps, w);
    }
    merge_adjacent(step);
}

/// Two barriers with nothing between them (a step that lacks the statements between their
/// positions) are one, with both reasons.
fn merge_adjacent(list: &mut Vec<Node>) {
    let mut out: Vec<Node> = Vec::with_capacity(list.len());
    for mut n in std::mem::take(list) {
        if let Node::Barrier { reasons, .. } = &mut n {
            if let Some(Node::Barrier {
                reasons: before, ..
            }) = out.last_mut()
            {
                for r in reasons.drain(..) {
                    if !before.contains(&r) {
                        before.push(r);
                    }
                }
                continue;
            }
        }
        match &mut n {
            Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::If { body, .. } => merge_adjacent(body),
            _ => {}
        }
        out.push(n);
    }
    *list = out;
}

/// The barrier at position `g` into `list`, which runs at `steps`.
fn insert_one(
    list: &mut Vec<Node>,
    g: i64,
    reasons: &[BarrierReason],
    steps: &Option<Vec<i64>>,
    w: &mut Writer,
) {
    let barrier = || Node::Barrier {
        reasons: reasons.to_vec(),
        span: crate::diagnostic::Span::default(),
    };
    for i in 0..list.len() {
        let Some(node) = list.get_mut(i) else {
            return;
        };
        let at = positions_in(node, w.stmt_position);
        if at.is_empty() || at.iter().all(|&p| p < g) {
            continue;
        }
        if at.iter().all(|&p| p >= g) {
            match node {
                Node::Wait { body, .. } => {
                    if w.site(g, steps) {
                        body.insert(0, barrier());
                    }
                }
                // A guarded wait (a prologue or epilogue step's): after the wait under its
                // guard, and alone under the guard negated, so that every step passes it
                // (pairs with statements after the guarded part still need it).
                Node::If { body, cond, span }
                    if matches!(body.first(), Some(Node::Wait { .. })) =>
                {
                    let (holds, fails) = (
                        w.where_cond(cond, true, steps),
                        w.where_cond(cond, false, steps),
                    );
                    let (cond, span) = (cond.clone(), *span);
                    insert_one(body, g, reasons, &holds, w);
                    if fails.as_ref().is_none_or(|f| !f.is_empty()) && w.site(g, &fails) {
                        let otherwise = Node::If {
                            cond: Cond::Not(Box::new(cond)),
                            body: vec![barrier()],
                            span,
                        };
                        list.insert(i + 1, otherwise);
                    }
                }
                _ => {
                    if w.site(g, steps) {
                        list.insert(i, barrier());
                    }
                }
            }
            return;
        }
        // The node holds statements on both sides: the barrier goes inside it.
        match node {
            Node::If { body, cond, .. } => {
                let holds = w.where_cond(cond, true, steps);
                insert_one(body, g, reasons, &holds, w)
            }
            Node::Commit { body, .. } | Node::AsyncScope { body, .. } | Node::Wait { body, .. } => {
                insert_one(body, g, reasons, steps, w)
            }
            _ => {
                if w.site(g, steps) {
                    list.insert(i, barrier());
                }
            }
        }
        return;
    }
    if w.site(g, steps) {
        list.push(barrier());
    }
}
