//! Per-queue waits → counts of one in-order hardware sequence.
//!
//! The pipelined program waits per queue: `wait(q, n)` leaves the n newest groups of queue q in
//! flight. The hardware keeps one sequence per thread and waits by its length: AMDGPU's `vmcnt`
//! counts vector-memory instructions (which retire in issue order), LLVM's asyncmarks form one
//! sequence of marks per thread (seed 003), sm_80's `cp.async` groups likewise. This module walks
//! the real stream of the kernel — the prologue, the body loop for its actual trip count, the
//! epilogue — and gives each wait the count of *units* (instructions, marks) that may stay in
//! flight so that every group the IR wait needs completes, and no more:
//!
//! ```text
//! M = the units issued after the newest unit of a needed group
//! ```
//!
//! where the needed groups are the groups of q older than its n newest. A unit already retired by
//! a fixed wait of the stream (`Retire`, e.g. the `vmcnt(0)` after a synchronous load) needs
//! nothing. A wait that runs several times (in the body loop) gets one immediate: the smallest
//! over its instances, and [`Translated`] says when instances differ. The emitters share it:
//! `amdgpu.rs` (units = vector-memory instructions), `llvm.rs` (units = asyncmarks), and PTX
//! sm_80 (units = `cp.async.commit_group`s) can call it the same way.

use std::collections::VecDeque;

/// One event of the kernel's stream, in program order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ev {
    /// A counted unit; `group` is the queue of the group it belongs to, if any; `label` says
    /// which instruction of the kernel it is (the emitter's line index).
    Unit { group: Option<i64>, label: usize },
    /// A group of the queue is committed (after its units).
    Commit(i64),
    /// The k-th wait placeholder of the emitter: `wait(queue, count)` of the IR; `joined` when it
    /// is one instruction with the wait before it (waits of several queues at one point).
    Wait {
        k: usize,
        queue: i64,
        count: i64,
        joined: bool,
    },
    /// A fixed hardware wait in the stream: at most this many units stay in flight.
    Retire(u64),
    /// The body loop, run `trips` times.
    Loop { trips: u64, body: Vec<Ev> },
}

/// What an emitter records while it writes a kernel: the stream of units, commits and waits in
/// program order, and the wait points whose lines are placeholders (`@W{g}@`) until the stream
/// has been translated.
#[derive(Default)]
pub(crate) struct Stream {
    pub events: Vec<Ev>,
    /// Wait placeholders so far (one per IR wait; several make one point).
    waits: usize,
    pub points: Vec<WaitPoint>,
    /// Async copies issued since the open commit scope began, for targets whose commit is itself
    /// the counted unit: only a group with a copy has anything to complete.
    copies: usize,
}

impl Stream {
    pub(crate) fn unit(&mut self, group: Option<i64>, label: usize) {
        self.events.push(Ev::Unit { group, label });
    }

    pub(crate) fn retire(&mut self, in_flight: u64) {
        self.events.push(Ev::Retire(in_flight));
    }

    /// A commit scope opens.
    pub(crate) fn open(&mut self) {
        self.copies = 0;
    }

    /// An async copy is issued in the open commit scope.
    pub(crate) fn copy(&mut self) {
        self.copies += 1;
    }

    /// A commit that is not counted itself (AMDGPU: its copies are the units).
    pub(crate) fn commit(&mut self, queue: i64) {
        self.events.push(Ev::Commit(queue));
    }

    /// A commit that is the counted unit (an asyncmark, a `cp.async.commit_group`) at line `label`;
    /// a unit is counted whatever its group holds.
    pub(crate) fn commit_unit(&mut self, queue: i64, label: usize) {
        let group = (std::mem::take(&mut self.copies) > 0).then_some(queue);
        self.unit(group, label);
        self.commit(queue);
    }

    /// The consecutive waits from `items[first]` on (several queues' waits at one point are one
    /// instruction) become one wait point at line `line`: returns the point's placeholder number
    /// and the index of the item after its waits.
    pub(crate) fn wait_point(
        &mut self,
        items: &[super::Item],
        first: usize,
        line: usize,
    ) -> (usize, usize) {
        let mut members = Vec::new();
        let mut next = first;
        while let Some(super::Item::Wait {
            queue,
            count,
            id,
            node,
        }) = items.get(next)
        {
            let k = self.waits;
            self.waits += 1;
            self.events.push(Ev::Wait {
                k,
                queue: *queue,
                count: *count,
                joined: !members.is_empty(),
            });
            members.push((k, *id, *queue, *count, *node));
            next += 1;
        }
        self.points.push(WaitPoint { members, line });
        (self.points.len() - 1, next)
    }

    /// The body loop begins: its events are recorded apart until [`Stream::leave_loop`], which is
    /// given what this returns.
    pub(crate) fn enter_loop(&mut self) -> Vec<Ev> {
        std::mem::take(&mut self.events)
    }

    pub(crate) fn leave_loop(&mut self, outer: Vec<Ev>, lo: i64, hi: i64) {
        let body = std::mem::replace(&mut self.events, outer);
        self.events.push(Ev::Loop {
            trips: u64::try_from(hi - lo).unwrap_or(0),
            body,
        });
    }

    /// Every wait placeholder translated for a counter whose field holds at most `field_max`.
    pub(crate) fn translate(&self, field_max: u64) -> Vec<Translated> {
        translate(&self.events, self.waits, field_max)
    }
}

/// What a wait placeholder becomes.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Translated {
    /// Dynamic instances of the wait.
    pub instances: u64,
    /// Instances where some unit must complete.
    pub constrained: u64,
    /// Smallest and largest exact count over the constrained instances.
    pub min: Option<u64>,
    pub max: Option<u64>,
    /// Most groups of any queue the immediate forces, at one instance, beyond those the IR waits
    /// at that point asked for (groups in flight that the IR lets stay).
    pub extra_groups: u64,
    /// Those groups, at any instance: (queue, age), age 1 being the queue's newest committed group.
    pub forced: Vec<(i64, u64)>,
    /// The units from the first to the last of the newest needed group (what one group more in
    /// flight adds to the count), when the same at every constrained instance.
    pub group_units: Option<u64>,
    /// Whether `group_units` differed between instances.
    group_units_vary: bool,
    /// The unit the exact count is measured from (the newest unit of the newest needed group),
    /// when the same instruction at every constrained instance.
    pub needed_label: Option<usize>,
    needed_label_vary: bool,
    /// At every instance, the newest needed unit is still in flight when the wait runs (with the
    /// immediates chosen): this wait is what completes it, not an earlier one forcing more.
    pub completes: bool,
    /// At every instance, no other wait completes anything between it and the next wait on its
    /// queue: with one group more left in flight, that group stays in flight until then.
    pub isolated: bool,
}

/// Head and tail iterations written out when the loop is long; the iterations between them are
/// all alike (a `Gap`).
#[derive(Clone, Debug, PartialEq)]
enum Flat {
    Unit(Option<i64>, usize),
    Commit(i64),
    Wait {
        k: usize,
        queue: i64,
        count: i64,
        joined: bool,
        /// Instances this position stands for: 1, or more for the iteration written before a
        /// gap (it stands for the steady ones), or 0 for iterations just after a gap.
        weight: u64,
    },
    Retire(u64),
    /// `iterations` copies of the body, all alike.
    Gap {
        iterations: u64,
        units: u64,
        commits: Vec<(i64, u64)>,
        tagged: Vec<i64>,
    },
}

/// Per body iteration: units, commits of each queue, queues with units, and whether it holds a
/// fixed wait.
struct Span {
    units: u64,
    commits: Vec<(i64, u64)>,
    tagged: Vec<i64>,
    retires: bool,
}

fn span(body: &[Ev]) -> Span {
    let mut s = Span {
        units: 0,
        commits: Vec::new(),
        tagged: Vec::new(),
        retires: false,
    };
    for e in body {
        match e {
            Ev::Unit { group, .. } => {
                s.units += 1;
                if let Some(q) = group {
                    if !s.tagged.contains(q) {
                        s.tagged.push(*q);
                    }
                }
            }
            Ev::Commit(q) => match s.commits.iter_mut().find(|(x, _)| x == q) {
                Some((_, c)) => *c += 1,
                None => s.commits.push((*q, 1)),
            },
            Ev::Retire(_) => s.retires = true,
            // Loops nest only once in a kernel; an inner one is flattened by the emitters.
            Ev::Wait { .. } | Ev::Loop { .. } => {}
        }
    }
    s
}

/// Iterations of a loop that must be written out around a gap, so that every walk from after
/// the gap stops before reaching it, and iterations after the head are steady.
fn horizon(body: &[Ev], waits_max: i64) -> u64 {
    let c_min = span(body)
        .commits
        .iter()
        .map(|(_, c)| *c)
        .filter(|c| *c > 0)
        .min();
    match c_min {
        Some(c) => (waits_max.max(0) as u64 + 1).div_ceil(c) + 2,
        None => 2,
    }
}

fn max_count(evs: &[Ev]) -> i64 {
    evs.iter()
        .map(|e| match e {
            Ev::Wait { count, .. } => *count,
            Ev::Loop { body, .. } => max_count(body),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

fn flatten(evs: &[Ev], waits_max: i64, out: &mut Vec<Flat>) {
    for e in evs {
        match e {
            Ev::Unit { group, label } => out.push(Flat::Unit(*group, *label)),
            Ev::Commit(q) => out.push(Flat::Commit(*q)),
            Ev::Retire(c) => out.push(Flat::Retire(*c)),
            Ev::Wait {
                k,
                queue,
                count,
                joined,
            } => out.push(Flat::Wait {
                k: *k,
                queue: *queue,
                count: *count,
                joined: *joined,
                weight: 1,
            }),
            Ev::Loop { trips, body } => {
                // A long loop is written as: h iterations, a gap, 2h iterations. The gap's
                // iterations and the first h after it are steady — their waits have the values of
                // the last iteration before the gap, which stands for them (its weight); the
                // last h after it are computed exactly (walks from there never reach the gap).
                let h = horizon(body, waits_max);
                if *trips <= 3 * h + 1 {
                    for _ in 0..*trips {
                        flatten(body, waits_max, out);
                    }
                    continue;
                }
                let gap = trips - 3 * h;
                for i in 0..h {
                    let start = out.len();
                    flatten(body, waits_max, out);
                    if i + 1 == h {
                        reweigh(out, start, |w| w + gap + h);
                    }
                }
                let s = span(body);
                out.push(Flat::Gap {
                    iterations: gap,
                    units: s.units,
                    commits: s.commits,
                    tagged: s.tagged,
                });
                for i in 0..2 * h {
                    let start = out.len();
                    flatten(body, waits_max, out);
                    if i < h {
                        reweigh(out, start, |_| 0);
                    }
                }
            }
        }
    }
}

fn reweigh(out: &mut [Flat], start: usize, f: impl Fn(u64) -> u64) {
    for x in out.iter_mut().skip(start) {
        if let Flat::Wait { weight, .. } = x {
            *weight = f(*weight);
        }
    }
}

/// The exact count at the wait at `pos` (`None`: nothing needs to complete), the units of the
/// newest needed group, and the position of its newest unit.
fn exact(stream: &[Flat], pos: usize, queue: i64, count: i64) -> Option<(u64, u64, usize)> {
    let mut commits_passed: i64 = 0;
    // Passed the commit that closed the newest needed group.
    let mut found_commit = false;
    let mut units: u64 = 0;
    // How many more (older) units a fixed wait passed so far lets stay in flight.
    let mut horizon: Option<u64> = None;
    for (at, f) in stream.get(..pos).unwrap_or(&[]).iter().enumerate().rev() {
        match f {
            Flat::Commit(q) if *q == queue && !found_commit => {
                if commits_passed == count {
                    found_commit = true;
                } else {
                    commits_passed += 1;
                }
            }
            Flat::Unit(g, _) => {
                if horizon == Some(0) {
                    // This unit and every older one are retired already.
                    return None;
                }
                if found_commit && *g == Some(queue) {
                    // The newest unit of a needed group.
                    return Some((units, group_span(stream, at, queue), at));
                }
                units += 1;
                if let Some(h) = horizon.as_mut() {
                    *h -= 1;
                }
            }
            Flat::Retire(c) => horizon = Some(horizon.map_or(*c, |h| h.min(*c))),
            Flat::Gap {
                iterations,
                units: u,
                commits,
                tagged,
            } => {
                let stops_inside = if found_commit {
                    tagged.contains(&queue)
                } else {
                    commits.iter().any(|(q, c)| *q == queue && *c > 0)
                };
                if stops_inside {
                    // Walks from after the gap stop before it (the horizon); this count is
                    // smaller than the exact one, so still safe.
                    return Some((units, 1, at));
                }
                // Fixed waits inside the gap are ignored: fewer units than exact, still safe.
                units += iterations * u;
                if let Some(h) = horizon.as_mut() {
                    *h = h.saturating_sub(iterations * u);
                }
            }
            Flat::Commit(_) | Flat::Wait { .. } => {}
        }
    }
    None
}

/// Units from the first unit of `queue`'s group whose last unit is at `at`, through it.
fn group_span(stream: &[Flat], at: usize, queue: i64) -> u64 {
    let mut span = 0;
    let mut first = 0;
    for f in stream.get(..=at).unwrap_or(&[]).iter().rev() {
        match f {
            Flat::Unit(g, _) => {
                span += 1;
                if *g == Some(queue) {
                    first = span;
                }
            }
            Flat::Commit(q) if *q == queue => break,
            Flat::Gap { .. } => break,
            _ => {}
        }
    }
    first
}

/// Translates every wait placeholder of `events` (`waits` of them) for a counter whose field
/// holds at most `field_max`.
pub(crate) fn translate(events: &[Ev], waits: usize, field_max: u64) -> Vec<Translated> {
    let mut stream = Vec::new();
    flatten(events, max_count(events), &mut stream);
    let mut out = vec![Translated::default(); waits];
    // Pass 1: the exact count at every instance, from the stream alone.
    let exact_at = exact_counts(&stream, &mut out);
    // A wait with nothing to complete is not emitted: it keeps everything in flight.
    let immediates: Vec<u64> = out
        .iter()
        .map(|t| t.min.map_or(u64::MAX, |m| m.min(field_max)))
        .collect();
    for t in &mut out {
        t.completes = t.constrained > 0;
        t.isolated = t.constrained > 0;
    }
    // Pass 2: run the sequence with those immediates — which waits complete the newest group
    // they need, and which groups they force that the IR lets stay in flight.
    let mut run = SequenceRun {
        stream: &stream,
        exact_at: &exact_at,
        immediates: &immediates,
        out,
        fifo: VecDeque::new(),
        committed: Vec::new(),
        open: Vec::new(),
    };
    let mut i = 0;
    while let Some(f) = stream.get(i) {
        i = match f {
            Flat::Unit(g, _) => {
                run.unit(i, *g);
                i + 1
            }
            Flat::Commit(q) => {
                run.commit(*q);
                i + 1
            }
            Flat::Retire(c) => {
                run.retire(*c);
                i + 1
            }
            Flat::Wait { .. } => run.wait_instruction(i),
            Flat::Gap { .. } => i + 1,
        };
    }
    run.out
}

/// The exact count (count, group units, the needed unit's position) at every wait instance of
/// `stream`, by position; each wait's `out` entry gathers its instances' range, group size and
/// needed instruction.
fn exact_counts(stream: &[Flat], out: &mut [Translated]) -> Vec<Option<(u64, u64, usize)>> {
    let mut results: Vec<Option<(u64, u64, usize)>> = vec![None; stream.len()];
    for (pos, f) in stream.iter().enumerate() {
        let Flat::Wait {
            k,
            queue,
            count,
            weight,
            ..
        } = f
        else {
            continue;
        };
        let r = exact(stream, pos, *queue, *count);
        if let Some(slot) = results.get_mut(pos) {
            *slot = r;
        }
        if *weight == 0 {
            continue;
        }
        let Some(t) = out.get_mut(*k) else { continue };
        t.instances += weight;
        if let Some((m, span, at)) = r {
            let label = match stream.get(at) {
                Some(Flat::Unit(_, label)) => Some(*label),
                _ => None,
            };
            record_instance(t, *weight, m, span, label);
        }
    }
    results
}

/// One constrained instance of a wait: its count `m`, its group's units `span`, and the label of
/// the unit it needs, folded into what the wait's instances share.
fn record_instance(t: &mut Translated, weight: u64, m: u64, span: u64, label: Option<usize>) {
    match t.needed_label {
        _ if t.needed_label_vary => {}
        None if t.constrained == 0 => t.needed_label = label,
        x if x != label => {
            t.needed_label = None;
            t.needed_label_vary = true;
        }
        _ => {}
    }
    t.constrained += weight;
    t.min = Some(t.min.map_or(m, |x| x.min(m)));
    t.max = Some(t.max.map_or(m, |x| x.max(m)));
    match t.group_units {
        None if !t.group_units_vary => t.group_units = Some(span),
        Some(g) if g != span => {
            t.group_units = None;
            t.group_units_vary = true;
        }
        _ => {}
    }
}

/// The hardware sequence run with the chosen immediates (pass 2 of `translate`).
struct SequenceRun<'s> {
    stream: &'s [Flat],
    /// Pass 1's exact count at each position.
    exact_at: &'s [Option<(u64, u64, usize)>],
    /// Each wait's immediate.
    immediates: &'s [u64],
    out: Vec<Translated>,
    /// Units in flight, oldest first: their position and their group (queue, number).
    fifo: VecDeque<(usize, Option<(i64, u64)>)>,
    /// Groups committed so far, per queue.
    committed: Vec<(i64, u64)>,
    /// Instances waiting to learn whether they are isolated: (wait, queue, counts).
    open: Vec<(usize, i64, bool)>,
}

impl SequenceRun<'_> {
    /// Groups committed to `queue` so far.
    fn number(&self, queue: i64) -> u64 {
        self.committed
            .iter()
            .find(|(x, _)| *x == queue)
            .map_or(0, |(_, c)| *c)
    }

    /// No open instance is isolated: something is completed before its queue's next wait.
    fn none_isolated(&mut self) {
        for (k, _, counts) in self.open.drain(..) {
            if counts {
                if let Some(t) = self.out.get_mut(k) {
                    t.isolated = false;
                }
            }
        }
    }

    fn unit(&mut self, position: usize, queue: Option<i64>) {
        let group = queue.map(|q| (q, self.number(q)));
        self.fifo.push_back((position, group));
    }

    fn commit(&mut self, queue: i64) {
        match self.committed.iter_mut().find(|(x, _)| *x == queue) {
            Some((_, c)) => *c += 1,
            None => self.committed.push((queue, 1)),
        }
    }

    fn retire(&mut self, keep: u64) {
        // One group more in flight would be completed here if it completes anything
        // now or would with those units too (at least as many in flight as it keeps).
        if self.fifo.len() as u64 >= keep {
            self.none_isolated();
        }
        while self.fifo.len() as u64 > keep {
            self.fifo.pop_front();
        }
    }

    /// The waits of one instruction, from position `i`: they act as one, with the smallest
    /// immediate. Returns the position after them.
    fn wait_instruction(&mut self, i: usize) -> usize {
        let mut j = i;
        let mut needed: Vec<(i64, u64)> = Vec::new();
        let mut keep = u64::MAX;
        while let Some(Flat::Wait {
            k,
            queue,
            count,
            weight,
            joined,
        }) = self.stream.get(j)
        {
            if j > i && !joined {
                break;
            }
            let older = self.number(*queue).saturating_sub((*count).max(0) as u64);
            needed.push((*queue, older));
            if let (Some((_, _, at)), Some(t)) = (
                self.exact_at.get(j).copied().flatten(),
                self.out.get_mut(*k),
            ) {
                let in_flight = self.fifo.front().is_some_and(|(p, _)| at >= *p);
                if *weight > 0 && !in_flight {
                    t.completes = false;
                }
            }
            if let Some(imm) = self.immediates.get(*k) {
                keep = keep.min(*imm);
            }
            j += 1;
        }
        let waits = self.stream.get(i..j).unwrap_or(&[]);
        // Instances of earlier waits on these queues end here (isolated so far); those of
        // other queues are not isolated if this wait completes anything.
        let here: Vec<i64> = needed.iter().map(|(q, _)| *q).collect();
        self.open.retain(|(_, q, _)| !here.contains(q));
        if self.fifo.len() as u64 >= keep {
            self.none_isolated();
        }
        for w in waits {
            if let Flat::Wait {
                k, queue, weight, ..
            } = w
            {
                self.open.push((*k, *queue, *weight > 0));
            }
        }
        let unasked = self.force_beyond(keep, &needed);
        for w in waits {
            if let Flat::Wait { k, .. } = w {
                if let Some(t) = self.out.get_mut(*k) {
                    t.extra_groups = t.extra_groups.max(unasked.len() as u64);
                    for g in &unasked {
                        if !t.forced.contains(g) {
                            t.forced.push(*g);
                        }
                    }
                    t.forced.sort_unstable();
                }
            }
        }
        j
    }

    /// Completes all but the `keep` newest units in flight; returns the groups completed that
    /// the IR lets stay in flight (none of `needed` asks for them), by queue and age (1: the
    /// queue's newest committed group).
    fn force_beyond(&mut self, keep: u64, needed: &[(i64, u64)]) -> Vec<(i64, u64)> {
        let mut forced: Vec<(i64, u64)> = Vec::new();
        while self.fifo.len() as u64 > keep {
            if let Some((_, Some(g))) = self.fifo.pop_front() {
                if !forced.contains(&g) {
                    forced.push(g);
                }
            }
        }
        forced
            .iter()
            .filter(|(q, n)| {
                let asked = needed.iter().any(|(nq, older)| nq == q && n < older);
                let complete = !self.fifo.iter().any(|(_, g)| *g == Some((*q, *n)));
                complete && !asked
            })
            .map(|(q, n)| (*q, self.number(*q).saturating_sub(*n)))
            .collect()
    }
}

/// One wait instruction of a kernel: the IR waits at that point.
pub(crate) struct WaitPoint {
    /// (placeholder, derived wait id, queue, count in groups, wait node).
    pub members: Vec<(usize, Option<u32>, i64, i64, usize)>,
    /// Index of its line in the emitted body.
    pub line: usize,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn unit(q: i64) -> Ev {
        Ev::Unit {
            group: Some(q),
            label: 0,
        }
    }

    /// A group of `units` copies of queue q, committed.
    fn group(q: i64, units: usize) -> Vec<Ev> {
        let mut v = vec![unit(q); units];
        v.push(Ev::Commit(q));
        v
    }

    #[test]
    fn the_three_iteration_loop_needs_two_instructions_in_flight_at_the_epilogue() {
        // Stages [0, 2], one copy (LDS DMA) per group; the consumer stores C (a vector-memory
        // instruction outside any group). Prologue: two groups; body (1 trip): group, wait(2),
        // store; epilogue: wait(1), store, wait(0), store.
        let mut ev = Vec::new();
        ev.extend(group(0, 1));
        ev.extend(group(0, 1));
        let mut body = group(0, 1);
        body.push(Ev::Wait {
            k: 0,
            queue: 0,
            count: 2,
            joined: false,
        });
        body.push(Ev::Unit {
            group: None,
            label: 0,
        });
        ev.push(Ev::Loop { trips: 1, body });
        ev.push(Ev::Wait {
            k: 1,
            queue: 0,
            count: 1,
            joined: false,
        });
        ev.push(Ev::Unit {
            group: None,
            label: 0,
        });
        ev.push(Ev::Wait {
            k: 2,
            queue: 0,
            count: 0,
            joined: false,
        });
        ev.push(Ev::Unit {
            group: None,
            label: 0,
        });
        let t = translate(&ev, 3, 63);
        assert_eq!(t[0].min, Some(2));
        // In flight after the body: load(1), load(2), store(C[0]): load(1) must land.
        assert_eq!(t[1].min, Some(2));
        assert_eq!(t[2].min, Some(2));
    }

    #[test]
    fn a_long_loop_gives_the_same_counts_as_writing_it_out() {
        let body = |k0| {
            let mut b = group(0, 2);
            b.push(Ev::Wait {
                k: k0,
                queue: 0,
                count: 3,
                joined: false,
            });
            b.push(Ev::Unit {
                group: None,
                label: 0,
            });
            b
        };
        for trips in [0u64, 1, 5, 17, 100, 1000] {
            let mut ev = Vec::new();
            for _ in 0..3 {
                ev.extend(group(0, 2));
            }
            ev.push(Ev::Loop {
                trips,
                body: body(0),
            });
            ev.push(Ev::Wait {
                k: 1,
                queue: 0,
                count: 0,
                joined: false,
            });
            let mut written = Vec::new();
            for _ in 0..3 {
                written.extend(group(0, 2));
            }
            for _ in 0..trips {
                written.extend(body(0));
            }
            written.push(Ev::Wait {
                k: 1,
                queue: 0,
                count: 0,
                joined: false,
            });
            assert_eq!(
                translate(&ev, 2, 63),
                translate(&written, 2, 63),
                "{trips} trips"
            );
        }
    }

    #[test]
    fn a_unit_retired_by_a_fixed_wait_needs_nothing() {
        let ev = vec![
            unit(0),
            Ev::Commit(0),
            Ev::Unit {
                group: None,
                label: 0,
            },
            Ev::Retire(0),
            Ev::Wait {
                k: 0,
                queue: 0,
                count: 0,
                joined: false,
            },
        ];
        let t = translate(&ev, 1, 63);
        assert_eq!(t[0].constrained, 0);
        assert_eq!(t[0].min, None);
    }

    /// Two queues in one sequence of marks: the count is what the single sequence needs, and the
    /// groups it forces beyond the IR's per-queue waits are counted.
    #[test]
    fn two_queues_translate_to_one_sequence_of_marks() {
        // Marks: a0 b0 a1 b1 a2 — wait(0, 1) needs a1 (a2 may stay): 1 mark after it (a2)...
        // then b1 is newer than a1: 2 marks after a1.
        let mut ev = Vec::new();
        for q in [0, 1, 0, 1, 0] {
            ev.extend(group(q, 1));
        }
        ev.push(Ev::Wait {
            k: 0,
            queue: 0,
            count: 1,
            joined: false,
        });
        ev.push(Ev::Wait {
            k: 1,
            queue: 1,
            count: 1,
            joined: true,
        });
        let t = translate(&ev, 2, u64::MAX);
        assert_eq!(t[0].min, Some(2)); // b1, a2 stay
        assert_eq!(t[1].min, Some(3)); // a1, b1, a2 stay: b0 completes
                                       // Keeping 2 marks forces a0, b0, a1; the IR asked for a0, a1 (queue 0) and b0 (queue 1).
        assert_eq!(t[0].extra_groups, 0);
        assert!(t[0].completes && t[1].completes);
        // One queue alone: wait(1, 0) after a0 b0 a1 needs b0; the single sequence forces a0 too,
        // which queue 1's wait does not ask for.
        let mut ev = Vec::new();
        for q in [0, 1, 0] {
            ev.extend(group(q, 1));
        }
        ev.push(Ev::Wait {
            k: 0,
            queue: 1,
            count: 0,
            joined: false,
        });
        let t = translate(&ev, 1, u64::MAX);
        assert_eq!(t[0].min, Some(1));
        assert_eq!(t[0].extra_groups, 1);
    }

    /// CUTLASS's shape: groups of 32 copies, three in flight in the body (96 instructions, capped
    /// at 63), then the epilogue: the capped body wait has already completed what the first
    /// epilogue wait needs.
    #[test]
    fn a_capped_wait_can_leave_the_next_one_nothing_to_complete() {
        let mut ev = Vec::new();
        for _ in 0..3 {
            ev.extend(group(0, 32));
        }
        let mut body = group(0, 32);
        body.push(Ev::Wait {
            k: 0,
            queue: 0,
            count: 3,
            joined: false,
        });
        ev.push(Ev::Loop { trips: 13, body });
        for (k, count) in [(1, 2), (2, 1), (3, 0)] {
            ev.push(Ev::Wait {
                k,
                queue: 0,
                count,
                joined: false,
            });
        }
        let t = translate(&ev, 4, 63);
        assert_eq!(t[0].min, Some(96));
        assert_eq!(t[0].min.map(|m| m.min(63)), Some(63));
        assert_eq!(t[1].min, Some(64));
        assert!(
            !t[1].completes,
            "the body's vmcnt(63) completed group 13 already"
        );
        assert!(t[2].completes && t[3].completes);
        assert_eq!(t[2].group_units, Some(32));
    }
}
