//! One pipelined program from the programs of several ranges of a symbolic extent
//! (`sync::Regime`): they differ only in their waits, so they are walked together and every wait
//! takes, at each N, the count of the range N is in — `0 if N >= 9 else 18` — or, in a range that
//! does not wait there, a count that completes nothing.

use crate::ir::{wait_ids, CmpOp, Cond, IExpr, IOp, Node, Program, SectionKind, VarId};
use crate::pipelined::Form;
use crate::schedule::Extent;
use crate::shape::LoopShape;
use crate::simplify::simplify;
use crate::sync::{Serves, SyncPlan};
use std::collections::VecDeque;

/// `main`, the program of the plan for every N, merged with `ranges`, the programs of
/// `sync.regimes` in order; `main` itself where they differ in more than their waits (it is
/// sound at every N by itself).
pub(crate) fn merge(
    main: Program,
    ranges: Vec<Program>,
    p: &LoopShape,
    sync: &SyncPlan,
) -> Program {
    let Extent::Symbolic(n) = &p.sched.extent else {
        return main;
    };
    let s = p.stages();
    let free = |q: i64, below: Option<i64>| {
        let g = i64::from(sync.per_step.get(&q).copied().unwrap_or(1));
        free_count(g, s, n, below.map(|b| b - 1))
    };
    let merger = Merger {
        serves: sync
            .regimes
            .iter()
            .map(|r| Some(r.serves))
            .chain([None])
            .collect(),
        n,
        free: &free,
        stages: s,
        section: std::cell::Cell::new(None),
    };
    let lists: Vec<Vec<Node>> = ranges
        .into_iter()
        .map(|r| r.body)
        .chain([main.body.clone()])
        .collect();
    match merger.lists(lists) {
        Some(body) => Program { body, ..main },
        None => main,
    }
}

/// Ranges of N, ascending: each program serves N below its bound (and at least the previous
/// one's), or one residue of N past them; the last serves the rest.
struct Merger<'a> {
    serves: Vec<Option<Serves>>,
    /// The extent, N.
    n: &'a IExpr,
    /// A count of queue `q` that completes nothing at any N below the bound (any N: `None`).
    free: &'a dyn Fn(i64, Option<i64>) -> IExpr,
    /// The largest stage: the body runs only when N exceeds it.
    stages: i64,
    /// The section being merged.
    section: std::cell::Cell<Option<SectionKind>>,
}

impl Merger<'_> {
    /// The lists of nodes at one place of every range's program, merged; `None` where they
    /// differ in anything but waits.
    fn lists(&self, lists: Vec<Vec<Node>>) -> Option<Vec<Node>> {
        let mut lists: Vec<VecDeque<Node>> = lists.into_iter().map(VecDeque::from).collect();
        let mut out = Vec::new();
        loop {
            if let Some(nodes) = self.wait(&mut lists)? {
                out.extend(nodes);
                continue;
            }
            if let Some(node) = self.waits_alone(&mut lists)? {
                out.push(node);
                continue;
            }
            if lists.iter().all(VecDeque::is_empty) {
                return Some(out);
            }
            let heads: Vec<Node> = lists
                .iter_mut()
                .map(VecDeque::pop_front)
                .collect::<Option<_>>()?;
            out.push(self.same(heads)?);
        }
    }

    /// The wait at the head of some list, of the first queue (waits nest in queue order), with
    /// the node it wraps in each list (without the wait when no range that runs it has it);
    /// `Some(None)` when no list starts with a wait.
    fn wait(&self, lists: &mut [VecDeque<Node>]) -> Option<Option<Vec<Node>>> {
        let head = |l: &VecDeque<Node>| match l.front() {
            Some(Node::Wait { queue, wait, .. }) => Some((*queue, *wait)),
            _ => None,
        };
        let Some((queue, id)) = lists.iter().filter_map(head).min() else {
            return Some(None);
        };
        // Whether the wait wraps a node (else it stands alone: a drain, or a wait before its
        // statement's commit scope, perhaps with the waits of later queues inside it, which one
        // range may have and another not).
        let wraps_node = |body: &[Node]| !body.is_empty() && !waits_only(body);
        let wraps = lists.iter().find_map(|l| match l.front() {
            Some(Node::Wait {
                queue: q,
                wait,
                body,
                ..
            }) if (*q, *wait) == (queue, id) => Some(wraps_node(body)),
            _ => None,
        })?;
        let (mut counts, mut bodies, mut span) = (Vec::new(), Vec::new(), None);
        for l in lists.iter_mut() {
            if head(l) == Some((queue, id)) {
                let Some(Node::Wait {
                    count,
                    body,
                    span: s,
                    ..
                }) = l.pop_front()
                else {
                    return None;
                };
                if wraps_node(&body) != wraps {
                    return None;
                }
                counts.push(Some(count));
                bodies.push(body);
                span = Some(s);
            } else {
                counts.push(None);
                bodies.push(if wraps {
                    l.pop_front().into_iter().collect()
                } else {
                    Vec::new()
                });
            }
        }
        let body = self.lists(bodies)?;
        let Some(count) = self.count(queue, counts) else {
            return Some(Some(body));
        };
        Some(Some(vec![Node::Wait {
            queue,
            count,
            body,
            wait: id,
            span: span?,
        }]))
    }

    /// An `if` holding waits alone (a statement's waits, which run only where it does, before
    /// its group's commit scope) at the head of some list: a range that does not wait there has
    /// no such `if`.
    fn waits_alone(&self, lists: &mut [VecDeque<Node>]) -> Option<Option<Node>> {
        let alone = |n: &Node| match n {
            Node::If { cond, body, .. } if waits_only(body) => Some(cond.clone()),
            _ => None,
        };
        let Some(cond) = lists.iter().find_map(|l| l.front().and_then(alone)) else {
            return Some(None);
        };
        let mut bodies = Vec::with_capacity(lists.len());
        let mut span = None;
        for l in lists.iter_mut() {
            if l.front().and_then(alone).as_ref() == Some(&cond) {
                let Some(Node::If { body, span: s, .. }) = l.pop_front() else {
                    return None;
                };
                bodies.push(body);
                span = Some(s);
            } else {
                bodies.push(Vec::new());
            }
        }
        Some(Some(Node::If {
            cond,
            body: self.lists(bodies)?,
            span: span?,
        }))
    }

    /// Nodes that must be the same in every range but for the waits inside them.
    fn same(&self, heads: Vec<Node>) -> Option<Node> {
        let first = heads.first()?.clone();
        let bodies = |heads: Vec<Node>, like: &dyn Fn(&Node) -> bool| -> Option<Vec<Vec<Node>>> {
            heads
                .into_iter()
                .map(|h| like(&h).then(|| body_of(h)).flatten())
                .collect()
        };
        Some(match first {
            Node::Assign(a) => {
                if !heads
                    .iter()
                    .all(|h| matches!(h, Node::Assign(b) if *b == a))
                {
                    return None;
                }
                Node::Assign(a)
            }
            Node::For {
                var, lo, hi, span, ..
            } => {
                let like = |h: &Node| matches!(h, Node::For { var: v, lo: l, hi: x, .. } if *v == var && *l == lo && *x == hi);
                let body = self.lists(bodies(heads, &like)?)?;
                Node::For {
                    var,
                    lo,
                    hi,
                    body,
                    span,
                }
            }
            Node::If { cond, span, .. } => {
                let like = |h: &Node| matches!(h, Node::If { cond: c, .. } if *c == cond);
                let body = self.lists(bodies(heads, &like)?)?;
                Node::If { cond, body, span }
            }
            Node::Commit { queue, span, .. } => {
                let like = |h: &Node| matches!(h, Node::Commit { queue: q, .. } if *q == queue);
                let body = self.lists(bodies(heads, &like)?)?;
                Node::Commit { queue, body, span }
            }
            Node::AsyncScope { span, .. } => {
                let like = |h: &Node| matches!(h, Node::AsyncScope { .. });
                let body = self.lists(bodies(heads, &like)?)?;
                Node::AsyncScope { body, span }
            }
            Node::Section { kind, .. } => {
                let like = |h: &Node| matches!(h, Node::Section { kind: k, .. } if *k == kind);
                // The steps are the last range's: the merged program has its nodes, one for
                // one.
                let steps = match heads.last() {
                    Some(Node::Section { steps, .. }) => steps.clone(),
                    _ => None,
                };
                self.section.set(Some(kind));
                let body = self.lists(bodies(heads, &like)?);
                self.section.set(None);
                Node::Section {
                    kind,
                    body: body?,
                    steps,
                }
            }
            Node::Wait { .. } => return None,
            Node::Barrier { reasons, span } => {
                if heads.iter().all(|h| matches!(h, Node::Barrier { .. })) {
                    Node::Barrier { reasons, span }
                } else {
                    return None;
                }
            }
        })
    }

    /// The bound of range `k` (of its band of residues), if it is one below a bound.
    fn below(&self, k: usize) -> Option<i64> {
        match self.serves.get(k).copied().flatten() {
            Some(Serves::Below(b)) => Some(b),
            Some(Serves::Residue(r)) => r.below,
            None => None,
        }
    }

    /// Each range's count (a range without the wait: one that completes nothing), as one
    /// expression of N: a range split by residues of N (`Serves::Residue`) chooses among them,
    /// and neighbouring ranges with the same count are one piece.
    fn count(&self, queue: i64, mut counts: Vec<Option<IExpr>>) -> Option<IExpr> {
        // A range whose N all skip the body never runs its waits: it takes the next range's
        // count, whatever its own plan said.
        if self.section.get() == Some(SectionKind::Body) {
            for k in (0..counts.len()).rev() {
                if self.below(k).is_some_and(|b| b - 1 <= self.stages) {
                    let next = counts.get(k + 1).cloned().flatten();
                    if let Some(c) = counts.get_mut(k) {
                        *c = next;
                    }
                }
            }
        }
        if counts.iter().all(Option::is_none) {
            return None;
        }
        let counts: Vec<IExpr> = (0..counts.len())
            .map(|k| match counts.get(k).cloned().flatten() {
                Some(c) => c,
                None => {
                    // A run of ranges without the wait takes one count, good up to its end.
                    let end = (k..counts.len())
                        .take_while(|&m| counts.get(m).is_some_and(Option::is_none))
                        .last()
                        .unwrap_or(k);
                    (self.free)(queue, self.below(end))
                }
            })
            .collect();
        // Bands of ranges with one bound (a range, or its residues), each one expression.
        let mut bands: Vec<(Option<i64>, IExpr)> = Vec::new();
        let mut k = 0;
        while k < counts.len() {
            let below = self.below(k);
            let end = (k..counts.len())
                .take_while(|&m| self.below(m) == below)
                .last()
                .unwrap_or(k);
            let residues: Vec<(crate::sync::Residue, &IExpr)> = (k..=end)
                .filter_map(|m| match self.serves.get(m).copied().flatten() {
                    Some(Serves::Residue(r)) => Some((r, counts.get(m)?)),
                    _ => None,
                })
                .collect();
            let band = if residues.is_empty() {
                counts.get(k)?.clone()
            } else {
                self.by_residue(&residues)?
            };
            match bands.last_mut() {
                Some((b, prev)) if *prev == band => *b = below,
                _ => bands.push((below, band)),
            }
            k = end + 1;
        }
        let mut bands = bands.into_iter().rev();
        let (_, mut e) = bands.next()?;
        for (below, c) in bands {
            let Some(b) = below else { continue };
            if c != e {
                e = IExpr::Select(Box::new((
                    Cond::Cmp(CmpOp::Lt, self.n.clone(), IExpr::Const(b)),
                    c,
                    e,
                )));
            }
        }
        Some(simplify(&e))
    }

    /// The counts of a range's residues of N as one expression: the most common one but where
    /// a residue's differs, `1 if N % 2 == 1 else 0`.
    fn by_residue(&self, residues: &[(crate::sync::Residue, &IExpr)]) -> Option<IExpr> {
        let times = |c: &IExpr| residues.iter().filter(|(_, x)| *x == c).count();
        let most = residues.iter().map(|(_, c)| times(c)).max()?;
        let common = residues
            .iter()
            .map(|(_, c)| *c)
            .find(|c| times(c) == most)?;
        let mut e = common.clone();
        for (r, c) in residues.iter().rev().filter(|(_, c)| *c != common) {
            let cond = Cond::Cmp(
                CmpOp::Eq,
                IExpr::bin(IOp::Mod, self.n.clone(), IExpr::Const(r.modulus)),
                IExpr::Const(r.residue),
            );
            e = IExpr::Select(Box::new((cond, (*c).clone(), e)));
        }
        Some(e)
    }
}

fn waits_only(nodes: &[Node]) -> bool {
    !nodes.is_empty()
        && nodes
            .iter()
            .all(|n| matches!(n, Node::Wait { body, .. } if body.is_empty() || waits_only(body)))
}

fn body_of(n: Node) -> Option<Vec<Node>> {
    match n {
        Node::For { body, .. }
        | Node::If { body, .. }
        | Node::Commit { body, .. }
        | Node::AsyncScope { body, .. }
        | Node::Section { body, .. }
        | Node::Wait { body, .. } => Some(body),
        Node::Assign(_) | Node::Barrier { .. } => None,
    }
}

/// A count of a queue committing `g` groups a step that completes nothing at any extent up to
/// `hi` (any extent: `None`) of a loop of `s` stages (its largest stage): more than the queue
/// ever commits, g · (max(N, S) + S).
pub(crate) fn free_count(g: i64, s: i64, n: &IExpr, hi: Option<i64>) -> IExpr {
    let steps = match hi {
        Some(hi) => IExpr::Const(hi.max(s) + s),
        None => IExpr::bin(
            IOp::Add,
            IExpr::bin(IOp::Max, n.clone(), IExpr::Const(s)),
            IExpr::Const(s),
        ),
    };
    simplify(&IExpr::bin(IOp::Mul, IExpr::Const(g), steps))
}

/// The pipelined program without the barriers between threads.
pub(crate) fn build_ranges(
    program: &Program,
    p: &LoopShape,
    sync: &SyncPlan,
    form: Form,
) -> Program {
    let main = crate::pipelined::build_one(program, p, sync, form);
    if sync.regimes.is_empty() {
        return main;
    }
    let ranges = sync
        .regimes
        .iter()
        .map(|r| crate::pipelined::build_one(program, p, &r.plan, form))
        .collect();
    merge(main, ranges, p, sync)
}

/// Drops from `sync` the waits only a range of N has (`SyncPlan::without_ranges`) when the
/// ranges' programs, in either form, do not merge into one (`build` then writes the plan for
/// every N): the sites the page lists are the program's.
pub(crate) fn keep_mergeable_ranges(program: &Program, p: &LoopShape, sync: &mut SyncPlan) {
    if sync.range_sites == 0 {
        return;
    }
    let own = sync.sites.len().saturating_sub(sync.range_sites);
    let merged = [Form::Rolled, Form::Peeled].iter().all(|&form| {
        let built = crate::by_extent::build_ranges(program, p, sync, form);
        let mut ids = Vec::new();
        wait_ids(&built.body, &mut ids);
        sync.sites.iter().skip(own).all(|s| ids.contains(&s.id))
    });
    if !merged {
        sync.without_ranges();
    }
}

/// `by_k`, a rolled symbolic epilogue's count as an expression of the step offset `var`, with
/// `free` (a count that completes nothing) at the offsets `missing`, where the unit runs but
/// waits for nothing: its need begins later, or an earlier wait covered it. Another step's
/// count there would force groups of that step's needs (`O1[i] = S0[i % 2]` of a producer
/// writing `S0[1]` only: iteration 0 needs nothing, iteration 1 the newest group).
pub(crate) fn free_at(by_k: IExpr, var: VarId, free: IExpr, missing: &[i64]) -> IExpr {
    let at = IExpr::Var(var);
    // The offsets without a wait are mostly the first ones (a need that begins at some
    // iteration): one comparison for those, one per other offset.
    let prefix = (0i64..).zip(missing).take_while(|&(i, &k)| i == k).count();
    let mut e = by_k;
    for &k in missing.iter().skip(prefix).rev() {
        e = IExpr::Select(Box::new((
            Cond::Cmp(CmpOp::Eq, at.clone(), IExpr::Const(k)),
            free.clone(),
            e,
        )));
    }
    if let Some(&last) = missing.get(..prefix).and_then(<[i64]>::last) {
        e = IExpr::Select(Box::new((
            Cond::Cmp(CmpOp::Lt, at, IExpr::Const(last + 1)),
            free,
            e,
        )));
    }
    e
}

/// A count that varies by step (`values`: (step, count) in step order): a constant, an affine
/// function of the step, or affine pieces chosen by comparing the step with where each begins —
/// `2 * i - 26 if i < 78 else 0`. (A comparison per step read badly and made every execution of
/// the wait walk a chain as long as the loop: 64 deep at 64 stages.) Steps without a value do not
/// run the wait; they take any piece.
pub(crate) fn count_expr(values: &[(i64, i64)], var: VarId) -> IExpr {
    let line = |&(_, slope, offset): &(i64, i64, i64)| {
        if slope == 0 {
            return IExpr::Const(offset);
        }
        simplify(&IExpr::bin(
            IOp::Add,
            IExpr::bin(IOp::Mul, IExpr::Const(slope), IExpr::Var(var)),
            IExpr::Const(offset),
        ))
    };
    let pieces = affine_pieces(values);
    let Some(last) = pieces.last() else {
        return IExpr::Const(0);
    };
    let mut e = line(last);
    for w in pieces.windows(2).rev() {
        let [piece, next] = w else { continue };
        e = IExpr::Select(Box::new((
            Cond::Cmp(CmpOp::Lt, IExpr::Var(var), IExpr::Const(next.0)),
            line(piece),
            e,
        )));
    }
    e
}

/// `values` cut greedily into maximal runs on one line `count = slope · step + offset`: (first
/// step, slope, offset) of each.
fn affine_pieces(values: &[(i64, i64)]) -> Vec<(i64, i64, i64)> {
    let mut pieces = Vec::new();
    let mut i = 0;
    while let Some(&(t0, c0)) = values.get(i) {
        let (mut slope, mut end) = (0, i + 1);
        if let Some(&(t1, c1)) = values.get(i + 1) {
            if t1 != t0 && (c1 - c0) % (t1 - t0) == 0 {
                slope = (c1 - c0) / (t1 - t0);
                end = i + 2;
                while values
                    .get(end)
                    .is_some_and(|&(t, c)| c0 + slope * (t - t0) == c)
                {
                    end += 1;
                }
            }
        }
        pieces.push((t0, slope, c0 - slope * t0));
        i = end;
    }
    pieces
}
