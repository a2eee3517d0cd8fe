//! Builds the pipelined program (an `ir::Program`) from the pipeline shape and its synchronization,
//! in two presentations of the same result: *rolled* (prologue and epilogue as loops with predicates,
//! as TVM prints them) and *peeled* (every prologue/epilogue step written out, predicates resolved).
//! The body is a loop in both.

mod guards;

use crate::by_extent::{count_expr, free_count};
use crate::ir::*;
use crate::schedule::Extent;
use crate::shape::LoopShape;
use crate::simplify::{
    modulo, offset, simplify, simplify_cmp, simplify_cond, substitute, substitute_cond, sum,
    Substitution,
};
use crate::sync::{DrainKept, PlanUnit, StepPlan, StepTime, SyncPlan};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    #[default]
    Rolled,
    Peeled,
}

/// The program around the pipelined loop (`before` and `after` are top-level nodes of the source).
/// A symbolic extent planned by ranges (`SyncPlan::regimes`) is one program whose counts choose
/// by N; should the ranges' programs differ in more than their waits, the plan for every N,
/// sound at each by itself, is the program.
pub fn build(program: &Program, p: &LoopShape, sync: &SyncPlan, form: Form) -> Program {
    let mut built = build_without_barriers(program, p, sync, form);
    crate::sync::place_barriers(&mut built, program, p);
    built
}

/// `build` without the barriers between threads (`sync::place_barriers` adds them).
pub fn build_without_barriers(
    program: &Program,
    p: &LoopShape,
    sync: &SyncPlan,
    form: Form,
) -> Program {
    crate::by_extent::build_ranges(program, p, sync, form)
}

pub(crate) fn build_one(program: &Program, p: &LoopShape, sync: &SyncPlan, form: Form) -> Program {
    let mut out = Program {
        buffers: program.buffers.clone(),
        vars: program.vars.clone(),
        body: Vec::new(),
        threads: program.threads,
    };
    for v in &p.versions {
        if let Some(b) = out.buffers.get_mut(v.buffer as usize) {
            if v.versions > 1 {
                if let Some(shape) = &mut b.shape {
                    // Built anew: inserting would grow the clone's exactly sized allocation.
                    let mut ring = Vec::with_capacity(shape.len() + 1);
                    ring.push(i64::from(v.versions));
                    ring.extend_from_slice(shape);
                    *shape = ring;
                }
                b.versions = v.versions;
            }
        }
    }
    let b = Builder {
        p,
        sync,
        var: p.sched.var,
    };
    // Prologue, body, epilogue.
    let mut nodes = Vec::with_capacity(3);
    let s = p.stages();
    // Prologue.
    if !sync.prologue.is_empty() {
        let (body, steps) = match form {
            Form::Peeled => b.peeled(&sync.prologue, 0..s),
            Form::Rolled => {
                written_steps(b.rolled(&sync.prologue, IExpr::Const(0), IExpr::Const(s)))
            }
        };
        nodes.push(Node::Section {
            kind: SectionKind::Prologue,
            body,
            steps: Some(steps),
        });
    }
    if let Some(plan) = &sync.body {
        let hi = p.extent_expr();
        let body = b.step_nodes(plan, &IExpr::Var(b.var));
        nodes.push(Node::Section {
            kind: SectionKind::Body,
            body: vec![Node::For {
                var: b.var,
                lo: IExpr::Const(s),
                hi,
                body,
                span: p.sched.span,
            }],
            steps: Some(Vec::new()),
        });
    }
    let (mut epilogue, epilogue_steps) = match (&p.sched.extent, form) {
        (Extent::Const(e), Form::Peeled) => b.peeled(&sync.epilogue, s.max(*e)..e + s),
        (Extent::Const(e), Form::Rolled) => {
            written_steps(b.rolled(&sync.epilogue, IExpr::Const(s.max(*e)), IExpr::Const(e + s)))
        }
        (Extent::Symbolic(_), Form::Peeled) => {
            let mut written = WrittenSteps::default();
            for plan in &sync.epilogue {
                let k = match plan.time {
                    StepTime::Uniform {
                        epilogue_offset: Some(k),
                    } => k,
                    _ => 0,
                };
                let t = simplify(&IExpr::bin(IOp::Add, p.epilogue_start(), IExpr::Const(k)));
                written.push(b.step_nodes(plan, &t));
            }
            (written.body, written.steps)
        }
        (Extent::Symbolic(_), Form::Rolled) => (b.rolled_symbolic_epilogue(), Vec::new()),
    };
    for (id, q) in &sync.drains {
        // Under a symbolic extent the last g·(max(E, S) − E) groups of the queue are those of
        // the iterations E … max(E, S) − 1, committed empty: they may stay in flight.
        let count = match (&p.sched.extent, sync.drain_kept.get(q)) {
            // Where the queue's statements have stopped, every group after the newest holding
            // an instance stays, however many N adds.
            (Extent::Symbolic(_), Some(&DrainKept::After(newest))) => {
                let g = i64::from(sync.per_step.get(q).copied().unwrap_or(1));
                simplify(&IExpr::bin(
                    IOp::Sub,
                    IExpr::bin(IOp::Mul, IExpr::Const(g), p.epilogue_start()),
                    IExpr::Const(newest + 1),
                ))
            }
            // A plan for one residue of E (`sync::Serves::Residue`) lets the last groups
            // before those stay too where they hold nothing at every E of it.
            (Extent::Symbolic(e), kept) => {
                let g = i64::from(sync.per_step.get(q).copied().unwrap_or(1));
                let empty = IExpr::bin(IOp::Sub, p.epilogue_start(), e.clone());
                let before = match kept {
                    Some(&DrainKept::Empty(k)) => k,
                    _ => 0,
                };
                simplify(&IExpr::bin(
                    IOp::Add,
                    IExpr::bin(IOp::Mul, IExpr::Const(g), empty),
                    IExpr::Const(before),
                ))
            }
            // Groups after the last one holding an instance may stay (`sync`'s drain).
            (Extent::Const(_), _) => IExpr::Const(
                sync.sites
                    .get(*id as usize)
                    .and_then(|s| s.instances.first())
                    .map_or(0, |i| i.count),
            ),
        };
        epilogue.push(Node::Wait {
            queue: *q,
            count,
            body: Vec::new(),
            wait: Some(*id),
            span: p.sched.span,
        });
    }
    if !epilogue.is_empty() {
        nodes.push(Node::Section {
            kind: SectionKind::Epilogue,
            body: epilogue,
            steps: Some(epilogue_steps),
        });
    }
    for section in &mut nodes {
        if let Node::Section { body, steps, .. } = section {
            guards::decide_guards(body, steps, b.var);
        }
    }
    out.body = replace_loop(&program.body, p.sched.span, nodes);
    out
}

/// The item of `plan` at index `order` of the step order, and its index: items are in step order.
fn item_at(plan: &StepPlan, order: usize) -> Option<(usize, &PlanUnit)> {
    let k = plan
        .items
        .binary_search_by_key(&order, |it| it.order)
        .ok()?;
    Some((k, plan.items.get(k)?))
}

fn step_of(plan: &StepPlan) -> i64 {
    match plan.time {
        StepTime::Const(t) => t,
        StepTime::Uniform { .. } => 0,
    }
}

/// Replaces the pipelined loop (found by span) with the new nodes, keeping everything else.
fn replace_loop(nodes: &[Node], span: crate::diagnostic::Span, with: Vec<Node>) -> Vec<Node> {
    let mut out = Vec::with_capacity(nodes.len() + with.len());
    let mut with = Some(with);
    for n in nodes {
        match n {
            Node::For { span: s, .. } if *s == span => out.extend(with.take().unwrap_or_default()),
            other => out.push(other.clone()),
        }
    }
    out
}

/// Steps written out one after another, and how many nodes each took (`Node::Section::steps`).
#[derive(Default)]
struct WrittenSteps {
    body: Vec<Node>,
    steps: Vec<u32>,
}

impl WrittenSteps {
    fn push(&mut self, step: Vec<Node>) {
        self.steps.push(node_count(&step));
        self.body.extend(step);
    }
}

/// The steps of what `Builder::rolled` wrote: a loop (its iterations are the steps) or one step
/// written out.
fn written_steps(nodes: Vec<Node>) -> (Vec<Node>, Vec<u32>) {
    let steps = match nodes.as_slice() {
        [Node::For { .. }] | [] => Vec::new(),
        one_step => vec![node_count(one_step)],
    };
    (nodes, steps)
}

fn node_count(step: &[Node]) -> u32 {
    u32::try_from(step.len()).unwrap_or(u32::MAX)
}

/// The waits `(site, queue, count)` placed right before a unit: the plan's own counts, or in a
/// rolled loop counts that are expressions of the step variable.
enum Waits<'a> {
    Plan(&'a [(u32, i64, i64)]),
    Rolled(&'a [(u32, i64, IExpr)]),
}

/// A unit to emit and the waits placed right before it.
trait Placed {
    fn unit(&self) -> usize;
    fn waits(&self) -> Waits<'_>;
}

impl Placed for PlanUnit {
    fn unit(&self) -> usize {
        self.unit
    }

    fn waits(&self) -> Waits<'_> {
        Waits::Plan(&self.waits)
    }
}

/// A unit of a rolled loop and its waits.
type RolledUnit = (usize, Vec<(u32, i64, IExpr)>);

impl Placed for RolledUnit {
    fn unit(&self) -> usize {
        self.0
    }

    fn waits(&self) -> Waits<'_> {
        Waits::Rolled(&self.1)
    }
}

struct Builder<'a> {
    p: &'a LoopShape,
    sync: &'a SyncPlan,
    var: VarId,
}

enum Guard {
    None,
    /// Wraps the whole unit, commit scope included (constant extents: absent instances do not commit).
    Outside(Cond),
    /// Inside the commit scope (symbolic extents: the group is committed, possibly empty).
    Inside(Cond),
    /// The first outside, the second inside.
    Both(Cond, Cond),
}

impl Guard {
    /// The conditions (outside, inside).
    fn split(self) -> (Option<Cond>, Option<Cond>) {
        match self {
            Guard::None => (None, None),
            Guard::Outside(c) => (Some(c), None),
            Guard::Inside(c) => (None, Some(c)),
            Guard::Both(o, i) => (Some(o), Some(i)),
        }
    }
}

impl Builder<'_> {
    fn stage(&self, unit: usize) -> i64 {
        self.p.sched.units.get(unit).map_or(0, |u| u.stage)
    }

    /// The unit's commit group, if it is asynchronous.
    fn group(&self, unit: usize) -> Option<usize> {
        self.sync.unit_group.get(unit).copied().flatten()
    }

    /// The unit's node at step `t`: its iteration is `t − stage`.
    fn unit_node(&self, unit: usize, t: &IExpr) -> Option<Node> {
        let u = self.p.sched.units.get(unit)?;
        let j = offset(t, -u.stage);
        let value = sum(&self.p.sched.lo, &j);
        let rewrite = Rewrite {
            sub: Substitution::new(self.var, &value),
            j: &j,
            p: self.p,
        };
        Some(rewrite.node(&u.node))
    }

    /// Guard for a unit at step `t`. `lower` says whether `t >= stage` can fail in this context.
    fn guard(&self, unit: usize, t: &IExpr, lower_can_fail: bool) -> Guard {
        let s = self.stage(unit);
        let j = offset(t, -s);
        let lower = if lower_can_fail {
            simplify_cmp(CmpOp::Ge, t, &IExpr::Const(s))
        } else {
            Cond::True
        };
        let upper = match &self.p.sched.extent {
            Extent::Const(e) => simplify_cmp(CmpOp::Lt, &j, &IExpr::Const(*e)),
            Extent::Symbolic(e) => simplify_cmp(CmpOp::Lt, &j, e),
        };
        match &self.p.sched.extent {
            Extent::Const(_) => match (lower, upper) {
                // The usual case, without combining and folding the two again.
                (Cond::True, Cond::True) => Guard::None,
                (lower, upper) => match simplify_cond(&Cond::and(lower, upper)) {
                    Cond::True => Guard::None,
                    c => Guard::Outside(c),
                },
            },
            // A symbolic extent commits even when the instance is predicated off, so the
            // extent-dependent guard goes inside the commit scope.
            Extent::Symbolic(_) => match (lower, upper) {
                (Cond::True, Cond::True) => Guard::None,
                (Cond::True, up) => Guard::Inside(up),
                (low, Cond::True) => Guard::Outside(low),
                (low, up) => Guard::Both(low, up),
            },
        }
    }

    /// Wraps `inner` in the waits; each wait's span is its consumer's, so races point at it.
    fn wrap_waits(&self, unit: usize, waits: Waits, inner: Node) -> Node {
        self.wrap_waits_on(unit, waits, inner, &|_| true)
    }

    /// `wrap_waits` with the waits on the queues `on` accepts only.
    fn wrap_waits_on(
        &self,
        unit: usize,
        waits: Waits,
        inner: Node,
        on: &dyn Fn(i64) -> bool,
    ) -> Node {
        let span = self
            .p
            .sched
            .units
            .get(unit)
            .map_or(self.p.sched.span, |u| u.span);
        let wait = |body: Node, id: u32, queue: i64, count: IExpr| Node::Wait {
            queue,
            count,
            body: vec![body],
            wait: Some(id),
            span,
        };
        match waits {
            Waits::Plan(w) => w
                .iter()
                .rev()
                .filter(|w| on(w.1))
                .fold(inner, |body, &(id, q, c)| {
                    wait(body, id, q, IExpr::Const(c))
                }),
            Waits::Rolled(w) => w
                .iter()
                .rev()
                .filter(|w| on(w.1))
                .fold(inner, |body, (id, q, c)| wait(body, *id, *q, c.clone())),
        }
    }

    /// The waits placed before `unit` as nodes of their own (nested, the innermost empty), or
    /// `None` when there are none.
    fn waits_alone(&self, unit: usize, waits: Waits) -> Option<Node> {
        let span = self
            .p
            .sched
            .units
            .get(unit)
            .map_or(self.p.sched.span, |u| u.span);
        let all: Vec<(u32, i64, IExpr)> = match waits {
            Waits::Plan(w) => w
                .iter()
                .map(|&(id, q, c)| (id, q, IExpr::Const(c)))
                .collect(),
            Waits::Rolled(w) => w.to_vec(),
        };
        all.into_iter()
            .rev()
            .fold(None, |body, (id, queue, count)| {
                Some(Node::Wait {
                    queue,
                    count,
                    body: body.into_iter().collect(),
                    wait: Some(id),
                    span,
                })
            })
    }

    fn guarded(&self, cond: Option<Cond>, node: Node) -> Node {
        match cond {
            Some(cond) => Node::If {
                cond,
                body: vec![node],
                span: self.p.sched.span,
            },
            None => node,
        }
    }

    fn step_nodes(&self, plan: &StepPlan, t: &IExpr) -> Vec<Node> {
        let guards = |unit: usize| match plan.time {
            StepTime::Uniform {
                epilogue_offset: None,
            } => Guard::None,
            StepTime::Uniform {
                epilogue_offset: Some(_),
            } => self.guard(unit, t, false),
            StepTime::Const(_) => self.guard(unit, t, true),
        };
        self.emit(&plan.items, t, &guards)
    }

    /// Emits units with their waits, opening one commit scope per group.
    fn emit(&self, items: &[impl Placed], t: &IExpr, guards: &dyn Fn(usize) -> Guard) -> Vec<Node> {
        // Each node written takes at least one item.
        let mut out = Vec::with_capacity(items.len());
        let mut i = 0;
        while let Some(item) = items.get(i) {
            let unit = item.unit();
            let group = self.group(unit);
            match group.and_then(|g| self.sync.groups.get(g).map(|gr| (g, gr))) {
                Some((g, gr)) => {
                    let mut k = i;
                    let run = items
                        .iter()
                        .skip(i)
                        .take_while(|it| self.group(it.unit()) == Some(g))
                        .count();
                    let mut inner = Vec::with_capacity(run);
                    let mut first_outside = None;
                    // A later member's waits on the group's own queue go before the commit
                    // scope: inside it they would run with the group open, which no hardware
                    // wait covers (`interp::Invalid::WaitInOwnCommit`). Nothing of that queue
                    // commits in between, so they force the same groups.
                    let mut hoisted = Vec::new();
                    while let Some(other) = items.get(k) {
                        let u = other.unit();
                        if self.group(u) != Some(g) {
                            break;
                        }
                        let Some(node) = self.unit_node(u, t) else {
                            break;
                        };
                        let scope = Node::AsyncScope {
                            body: vec![node],
                            span: self.p.sched.span,
                        };
                        let (outside, inside) = guards(u).split();
                        if k == i {
                            inner.push(self.guarded(inside.clone(), scope));
                            first_outside = Some((outside, inside));
                        } else {
                            // Waits on other queues run where the statement does (inside its
                            // guard); those on the group's own queue go before the commit scope.
                            let n = self.wrap_waits_on(u, other.waits(), scope, &|q| q != gr.queue);
                            inner.push(self.guarded(inside, n));
                            hoisted.push((u, other.waits()));
                        }
                        k += 1;
                    }
                    let commit = Node::Commit {
                        queue: gr.queue,
                        body: inner,
                        span: self.p.sched.span,
                    };
                    let commit = hoisted.into_iter().rev().fold(commit, |body, (u, w)| {
                        self.wrap_waits_on(u, w, body, &|q| q == gr.queue)
                    });
                    let (outside, inside) = first_outside.unwrap_or_else(|| guards(unit).split());
                    match (inside, self.waits_alone(unit, item.waits())) {
                        // The group is committed (possibly empty) whatever the guard says, but
                        // its waits serve the statement only: they run where it does, before the
                        // commit scope opens.
                        (Some(inside), Some(waits)) => {
                            let waits = self.guarded(Some(inside), waits);
                            match outside {
                                Some(cond) => out.push(Node::If {
                                    cond,
                                    body: vec![waits, commit],
                                    span: self.p.sched.span,
                                }),
                                None => out.extend([waits, commit]),
                            }
                        }
                        _ => {
                            let node = self.wrap_waits(unit, item.waits(), commit);
                            out.push(self.guarded(outside, node));
                        }
                    }
                    i = k.max(i + 1);
                }
                None => {
                    if let Some(node) = self.unit_node(unit, t) {
                        let (outside, inside) = guards(unit).split();
                        // A wait runs only where its statement does (inside its guard).
                        let node = self.wrap_waits(unit, item.waits(), node);
                        let node = self.guarded(inside, node);
                        out.push(self.guarded(outside, node));
                    }
                    i += 1;
                }
            }
        }
        out
    }

    /// One loop over constant steps [lo, hi) whose body is the union of the steps' plans, with
    /// predicates and per-step counts as expressions of the step variable.
    /// Steps `range` written out one after the other (a step without a plan, which runs
    /// nothing, is written as no nodes), and how many nodes each took.
    fn peeled(&self, plans: &[StepPlan], range: std::ops::Range<i64>) -> (Vec<Node>, Vec<u32>) {
        let mut written = WrittenSteps::default();
        let mut plans = plans.iter().peekable();
        for t in range {
            written.push(match plans.next_if(|plan| step_of(plan) == t) {
                Some(plan) => self.step_nodes(plan, &IExpr::Const(t)),
                None => Vec::new(),
            });
        }
        // Plans are in step order within the range; anything else is still written, never lost.
        for plan in plans {
            written.push(self.step_nodes(plan, &IExpr::Const(step_of(plan))));
        }
        (written.body, written.steps)
    }

    /// The epilogue of a symbolic extent as one loop over its steps `i` in [max(E, S), max(E, S) + S):
    /// a unit of stage s is kept while `i − s < E` can hold (step k = i − max(E, S) < s), its
    /// commit (if any) while statically present (`i < max(E, S) + s`), and each wait's count is
    /// the plan's count at step k written as an expression of `i` (one that completes nothing at a
    /// step whose unit waits for nothing, `free_at`).
    fn rolled_symbolic_epilogue(&self) -> Vec<Node> {
        let plans = &self.sync.epilogue;
        let s_max = self.p.stages();
        if s_max <= 0 || plans.iter().all(|pl| pl.items.is_empty()) {
            return Vec::new();
        }
        let start = self.p.epilogue_start();
        let k_of = |pl: &StepPlan| match pl.time {
            StepTime::Uniform {
                epilogue_offset: Some(k),
            } => k,
            _ => 0,
        };
        let var = IExpr::Var(self.var);
        // k = i − max(E, S), to write a count of the step offset as one of the step.
        let k_expr = simplify(&IExpr::bin(IOp::Sub, var.clone(), start.clone()));
        let units: Vec<(usize, usize)> = self
            .p
            .step_order
            .iter()
            .copied()
            .enumerate()
            .filter(|&(order, _)| plans.iter().any(|pl| item_at(pl, order).is_some()))
            .collect();
        let items: Vec<RolledUnit> = units
            .iter()
            .map(|&(order, pos)| {
                let mut sites: Vec<(u32, i64)> = Vec::new();
                for (_, it) in plans.iter().filter_map(|pl| item_at(pl, order)) {
                    for (id, q, _) in &it.waits {
                        if !sites.contains(&(*id, *q)) {
                            sites.push((*id, *q));
                        }
                    }
                }
                let waits = sites
                    .into_iter()
                    .map(|(id, q)| {
                        let values: Vec<(i64, i64)> = plans
                            .iter()
                            .filter_map(|pl| {
                                let (_, it) = item_at(pl, order)?;
                                let c = it.waits.iter().find(|w| w.0 == id)?.2;
                                Some((k_of(pl), c))
                            })
                            .collect();
                        let by_k = count_expr(&values, self.var);
                        let missing: Vec<i64> = (0..s_max)
                            .filter(|&k| !values.iter().any(|v| v.0 == k))
                            .filter(|&k| {
                                plans
                                    .iter()
                                    .any(|pl| k_of(pl) == k && item_at(pl, order).is_some())
                            })
                            .collect();
                        let by_k = match &self.p.sched.extent {
                            Extent::Symbolic(n) => {
                                let g = self.sync.per_step.get(&q).copied().unwrap_or(1);
                                let free = free_count(i64::from(g), s_max, n, None);
                                crate::by_extent::free_at(by_k, self.var, free, &missing)
                            }
                            Extent::Const(_) => by_k,
                        };
                        let count = simplify(&substitute(&by_k, self.var, &k_expr));
                        (id, q, count)
                    })
                    .collect();
                (pos, waits)
            })
            .collect();
        let guards = |unit: usize| {
            let s = self.stage(unit);
            let dynamic = match self.guard(unit, &var, false) {
                Guard::Inside(c) | Guard::Both(_, c) => Some(c),
                _ => None,
            };
            let commits = self.group(unit).is_some();
            match dynamic {
                Some(d) if commits && s < s_max => {
                    Guard::Both(simplify_cmp(CmpOp::Lt, &var, &offset(&start, s)), d)
                }
                Some(d) => Guard::Inside(d),
                None => Guard::None,
            }
        };
        let body = self.emit(&items, &var, &guards);
        vec![Node::For {
            var: self.var,
            lo: start.clone(),
            hi: offset(&start, s_max),
            body,
            span: self.p.sched.span,
        }]
    }

    fn rolled(&self, plans: &[StepPlan], lo: IExpr, hi: IExpr) -> Vec<Node> {
        if plans.is_empty() {
            return Vec::new();
        }
        if let ([plan], Some(l), Some(h)) = (plans, lo.as_const(), hi.as_const()) {
            if h - l == 1 {
                // A one-step loop reads better written out.
                return self.step_nodes(plan, &IExpr::Const(step_of(plan)));
            }
        }
        let steps: Vec<i64> = plans.iter().map(step_of).collect();
        // (index in the step order, unit) of the units some step runs.
        let units: Vec<(usize, usize)> = self
            .p
            .step_order
            .iter()
            .copied()
            .enumerate()
            .filter(|&(order, _)| plans.iter().any(|pl| item_at(pl, order).is_some()))
            .collect();
        let var = IExpr::Var(self.var);
        let items: Vec<RolledUnit> = units
            .iter()
            .map(|&(order, pos)| {
                let mut sites: Vec<(u32, i64)> = Vec::new();
                for (_, it) in plans.iter().filter_map(|pl| item_at(pl, order)) {
                    for (id, q, _) in &it.waits {
                        if !sites.contains(&(*id, *q)) {
                            sites.push((*id, *q));
                        }
                    }
                }
                let waits = sites
                    .into_iter()
                    .map(|(id, q)| {
                        let values: Vec<(i64, i64)> = plans
                            .iter()
                            .filter_map(|pl| {
                                let (k, it) = item_at(pl, order)?;
                                let count =
                                    it.waits.iter().find(|w| w.0 == id).map(|w| w.2).or_else(
                                        || {
                                            // Not needed at this step: a count that completes nothing.
                                            self.sync.committed_before(pl, k, q)
                                        },
                                    )?;
                                Some((step_of(pl), count))
                            })
                            .collect();
                        (id, q, count_expr(&values, self.var))
                    })
                    .collect();
                (pos, waits)
            })
            .collect();
        let guards = |unit: usize| {
            let s = self.stage(unit);
            let order = units
                .iter()
                .find(|u| u.1 == unit)
                .map_or(usize::MAX, |u| u.0);
            // Plans are of distinct constant steps (a prologue or a constant extent's epilogue).
            let every_step = plans.iter().all(|pl| item_at(pl, order).is_some());
            match &self.p.sched.extent {
                Extent::Symbolic(_) => self.guard(unit, &var, lo.as_const().is_none_or(|l| l < s)),
                Extent::Const(e) => {
                    if every_step && steps.len() as i64 == range_len(&lo, &hi) {
                        Guard::None
                    } else {
                        let mut c = Cond::True;
                        if steps.iter().any(|t| t - s < 0) || lo.as_const().is_some_and(|l| l < s) {
                            c = Cond::and(c, Cond::Cmp(CmpOp::Ge, var.clone(), IExpr::Const(s)));
                        }
                        if hi.as_const().is_some_and(|h| h - 1 - s >= *e) {
                            c = Cond::and(
                                c,
                                Cond::Cmp(
                                    CmpOp::Lt,
                                    simplify(&IExpr::bin(IOp::Sub, var.clone(), IExpr::Const(s))),
                                    IExpr::Const(*e),
                                ),
                            );
                        }
                        if c == Cond::True {
                            Guard::None
                        } else {
                            Guard::Outside(c)
                        }
                    }
                }
            }
        };
        let body = self.emit(&items, &var, &guards);
        vec![Node::For {
            var: self.var,
            lo,
            hi,
            body,
            span: self.p.sched.span,
        }]
    }
}

fn range_len(lo: &IExpr, hi: &IExpr) -> i64 {
    match (lo.as_const(), hi.as_const()) {
        (Some(l), Some(h)) => h - l,
        _ => -1,
    }
}

/// Substitutes the pipelined loop variable, adds ring slots and records each copy's iteration.
struct Rewrite<'a> {
    /// The loop variable := its value at this copy, `lo + j`, simplified.
    sub: Substitution<'a>,
    /// The iteration this copy computes: recorded on each assignment, and `j % versions` is its
    /// ring slot.
    j: &'a IExpr,
    p: &'a LoopShape,
}

impl Rewrite<'_> {
    fn ix(&self, e: &IExpr) -> IExpr {
        match e {
            // `value` is simplified already.
            IExpr::Var(v) if *v == self.sub.var() => self.sub.with().clone(),
            // Other leaves simplify to themselves.
            IExpr::Const(c) => IExpr::Const(*c),
            IExpr::Var(v) => IExpr::Var(*v),
            _ => self.sub.apply(e),
        }
    }

    fn access(&self, a: &Access) -> Access {
        let v = self.p.versions_of(a.buffer);
        let mut indices = Vec::with_capacity(a.indices.len() + usize::from(v > 1));
        if v > 1 {
            // `j` is simplified where the copy is made.
            indices.push(modulo(self.j.clone(), v));
        }
        indices.extend(a.indices.iter().map(|e| self.ix(e)));
        Access {
            buffer: a.buffer,
            indices,
            span: a.span,
        }
    }

    fn nodes(&self, body: &[Node]) -> Vec<Node> {
        body.iter().map(|n| self.node(n)).collect()
    }

    fn node(&self, node: &Node) -> Node {
        match node {
            Node::Barrier { .. } => node.clone(),
            Node::Assign(a) => Node::Assign(Assign {
                stmt: a.stmt,
                iteration: Some(self.j.clone()),
                target: self.access(&a.target),
                value: self.value(&a.value),
                span: a.span,
            }),
            Node::For {
                var: v,
                lo,
                hi,
                body,
                span,
            } => Node::For {
                var: *v,
                lo: self.ix(lo),
                hi: self.ix(hi),
                body: self.nodes(body),
                span: *span,
            },
            Node::If { cond, body, span } => Node::If {
                cond: simplify_cond(&substitute_cond(cond, self.sub.var(), self.sub.with())),
                body: self.nodes(body),
                span: *span,
            },
            Node::Commit { queue, body, span } => Node::Commit {
                queue: *queue,
                body: self.nodes(body),
                span: *span,
            },
            Node::AsyncScope { body, span } => Node::AsyncScope {
                body: self.nodes(body),
                span: *span,
            },
            Node::Wait {
                queue,
                count,
                body,
                wait,
                span,
            } => Node::Wait {
                queue: *queue,
                count: self.ix(count),
                body: self.nodes(body),
                wait: *wait,
                span: *span,
            },
            Node::Section { kind, body, steps } => Node::Section {
                kind: *kind,
                body: self.nodes(body),
                steps: steps.clone(),
            },
        }
    }

    fn value(&self, v: &VExpr) -> VExpr {
        match v {
            VExpr::Lit(x) => VExpr::Lit(*x),
            VExpr::Read(a) => VExpr::Read(self.access(a)),
            VExpr::Index(e) => VExpr::Index(self.ix(e)),
            VExpr::Neg(x) => VExpr::Neg(Box::new(self.value(x))),
            VExpr::Bin(op, ab) => {
                let [a, b] = &**ab;
                VExpr::bin(*op, self.value(a), self.value(b))
            }
            VExpr::Call(f, args) => VExpr::Call(*f, args.iter().map(|a| self.value(a)).collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]
    use super::*;
    use proptest::prelude::*;

    fn at(e: &IExpr, step: i64) -> Option<i64> {
        e.eval(&[step])
    }

    #[test]
    fn counts_are_written_as_few_affine_pieces() {
        let steps = |counts: &[i64]| -> Vec<(i64, i64)> {
            counts
                .iter()
                .enumerate()
                .map(|(t, &c)| (t as i64 + 64, c))
                .collect()
        };
        let constant = count_expr(&steps(&[3, 3, 3]), 0);
        assert_eq!(constant, IExpr::Const(3));
        let ramp = count_expr(&steps(&[189, 192, 195]), 0);
        assert!(!matches!(ramp, IExpr::Select(_)), "{ramp:?}");
        // A ramp that drains to zero: one comparison, not one per step.
        let drain = count_expr(&steps(&[189, 192, 195, 0]), 0);
        let IExpr::Select(s) = &drain else {
            panic!("{drain:?}")
        };
        assert_eq!(s.0, Cond::Cmp(CmpOp::Lt, IExpr::Var(0), IExpr::Const(67)));
        assert_eq!(s.2, IExpr::Const(0));
    }

    proptest! {
        /// Every step with a count gets exactly that count.
        #[test]
        fn count_expressions_give_each_step_its_count(
            start in -4i64..70,
            counts in prop::collection::vec((1i64..4, 0i64..40), 1..20),
        ) {
            let mut t = start;
            let values: Vec<(i64, i64)> = counts
                .iter()
                .map(|&(gap, c)| {
                    t += gap;
                    (t, c)
                })
                .collect();
            let e = count_expr(&values, 0);
            for &(step, count) in &values {
                prop_assert_eq!(at(&e, step), Some(count), "{:?} at {}", e, step);
            }
        }
    }
}
