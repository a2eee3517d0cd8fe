//! The machine across threads: a program whose loop declares its threads (`Program::threads`) run
//! by every wave (every thread, when there are no waves) at once, each with its own queues of
//! commit groups and its own copies of the buffers every thread keeps (`Distribution::Each`), over
//! one copy of the distributed buffers (docs/interpreter.md, "Across threads").
//!
//! Control flow is the same in every thread (bounds, guards and counts depend on loop variables
//! only), so the program is walked once and each statement instance runs in the waves that
//! compute it: the owner of the element it writes, or every wave for a buffer each keeps. Between
//! two barriers the waves' order is not known: an access of another wave's data is a race unless
//! a barrier separates it from the other wave's access — for an async write, from its *landing*,
//! which any moment from its issue to the wave's wait that completes it may be (adversarial
//! completion). Accesses carry the barrier interval (`epoch`) they happen in, and a write the
//! interval it lands in, so that every interleaving and every completion order is judged at once;
//! a race-free program reads the same values in all of them, which the walk computes.
//!
//! It reads nothing of the transform: not the schedule, not the barriers' reasons, only the
//! program's nodes.

mod check;
mod races;

use super::memory::{infer_shapes, initial_values};
use super::result::Problem;
use crate::diagnostic::Span;
use crate::ir::*;
pub use check::{check_threads, ThreadCheck};
pub use races::{Side, ThreadRace, ThreadRaceKind};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// How the threads are run.
#[derive(Clone, Debug)]
pub struct ThreadOptions {
    pub params: BTreeMap<String, i64>,
    pub seed: u64,
    /// Statement instances, summed over the waves that run them, before the run stops.
    pub max_instances: u64,
    /// Run one wave for all the waves that own no element of any distributed buffer: they do the
    /// same work on their own copies and read the same elements, so they race exactly when it
    /// does (renaming them changes nothing). `core/tests/threads.rs` runs both ways.
    pub sample_symmetric: bool,
}

impl Default for ThreadOptions {
    fn default() -> Self {
        ThreadOptions {
            params: BTreeMap::new(),
            seed: 1,
            max_instances: crate::limits::MAX_THREAD_INSTANCES,
            sample_symmetric: true,
        }
    }
}

/// What a run across threads reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadRun {
    pub threads: Option<Threads>,
    /// The waves (threads) run: all of them, or the owners and one representative.
    pub agents: Vec<u32>,
    pub races: Vec<ThreadRace>,
    /// Every race found, kept or not.
    pub race_count: u64,
    pub problems: Vec<Problem>,
    /// Barriers passed.
    pub barriers: u64,
    pub instances: u64,
    pub truncated: bool,
    /// Global buffers at the end, per agent run (in `agents` order): one copy for a distributed
    /// buffer, each agent's own for the others.
    pub outputs: BTreeMap<String, Vec<Vec<f64>>>,
}

/// Races kept before only those at a new place are (`Machine::race`); every race is counted.
pub const MAX_RACES: usize = 64;
/// Races at a new place kept beyond `MAX_RACES`.
const MAX_PLACES: usize = 64;

/// One buffer's memory: one copy (distributed) or one per agent run.
struct Mem {
    name: String,
    shape: Vec<i64>,
    dtype: DType,
    versions: u32,
    distribution: Distribution,
    global: bool,
    copies: Vec<Vec<f64>>,
    /// Distributed buffers only, per element: the newest write and the reads of the current
    /// barrier interval.
    last_write: Vec<Vec<Option<Write>>>,
    reads: Vec<Vec<Read>>,
    /// Every buffer, per agent copy and element: async writes of that agent not yet landed.
    pending: Vec<Vec<u32>>,
}

#[derive(Clone, Copy, Debug)]
struct Write {
    side: Side,
    /// The interval it lands in, once its wave's wait completed it (at issue for a sync write).
    landed: Option<u64>,
    /// The wait that completed it (an async write).
    landed_at: Option<Span>,
}

#[derive(Clone, Copy, Debug)]
struct Read {
    side: Side,
}

struct Group {
    /// Buffer, agent copy (0 for a distributed buffer), element, value.
    writes: Vec<(usize, usize, usize, f64)>,
}

struct Machine<'a> {
    program: &'a Program,
    threads: Threads,
    opts: &'a ThreadOptions,
    env: Vec<i64>,
    mems: Vec<Mem>,
    agents: Vec<u32>,
    /// Per agent run and queue number: committed groups, oldest first.
    queues: Vec<BTreeMap<i64, VecDeque<Group>>>,
    /// Per agent run: the open commit scopes (queue, group).
    open: Vec<Vec<(i64, Group)>>,
    async_depth: usize,
    epoch: u64,
    outer: Option<VarId>,
    run: ThreadRun,
    stopped: bool,
}

/// Runs `program` across the threads it declares (as one thread when it declares none).
pub fn run_threads(program: &Program, opts: &ThreadOptions) -> ThreadRun {
    let threads = program.threads.unwrap_or(Threads {
        threads: 1,
        waves: 1,
    });
    let env = program.env(&opts.params);
    let mut problems = Vec::new();
    let shapes = infer_shapes(program, &env, &mut problems);
    let mut mems = Vec::new();
    for (b, shape) in program.buffers.iter().zip(shapes) {
        let shape = shape.unwrap_or_default();
        let total = shape
            .iter()
            .try_fold(1i64, |acc, d| acc.checked_mul((*d).max(0)))
            .filter(|t| *t <= crate::limits::MAX_BUFFER_ELEMENTS)
            .unwrap_or(0) as usize;
        let global = b.scope == Scope::Global;
        let values = if global {
            initial_values(&b.name, &shape, total, opts.seed)
        } else {
            vec![0.0; total]
        };
        mems.push(Mem {
            name: b.name.to_string(),
            shape,
            dtype: b.dtype,
            versions: b.versions,
            distribution: b.threads,
            global,
            copies: vec![values],
            last_write: Vec::new(),
            reads: Vec::new(),
            pending: Vec::new(),
        });
    }
    let agents = agents_to_run(&mems, threads, opts.sample_symmetric);
    for m in &mut mems {
        let total = m.copies.first().map_or(0, Vec::len);
        if m.distribution.is_each() {
            let first = m.copies.pop().unwrap_or_default();
            m.copies = vec![first; agents.len()];
        } else {
            m.reads = vec![Vec::new(); total];
        }
        m.last_write = vec![vec![None; total]; m.copies.len()];
        m.pending = vec![vec![0; total]; m.copies.len()];
    }
    let mut machine = Machine {
        program,
        threads,
        opts,
        env,
        queues: (0..agents.len()).map(|_| BTreeMap::new()).collect(),
        open: (0..agents.len()).map(|_| Vec::new()).collect(),
        mems,
        run: ThreadRun {
            threads: program.threads,
            agents: agents.clone(),
            problems,
            ..ThreadRun::default()
        },
        agents,
        async_depth: 0,
        epoch: 0,
        outer: None,
        stopped: false,
    };
    machine.nodes(&program.body);
    machine.never_awaited();
    for m in machine.mems {
        if m.global {
            machine.run.outputs.insert(m.name, m.copies);
        }
    }
    machine.run
}

/// Every agent, or (sampling) those that own an element of some distributed buffer and the first
/// that owns none.
fn agents_to_run(mems: &[Mem], threads: Threads, sample: bool) -> Vec<u32> {
    let all: Vec<u32> = (0..threads.waves.max(1)).collect();
    if !sample {
        return all;
    }
    let mut owners = vec![false; all.len()];
    for m in mems.iter().filter(|m| !m.distribution.is_each()) {
        let slot = slot_elements(m);
        for e in 0..slot.min(i64::from(threads.threads)) {
            if let Some(t) = m.distribution.owner(e, slot, threads.threads) {
                if let Some(o) = owners.get_mut(threads.wave_of(t) as usize) {
                    *o = true;
                }
            }
        }
        if m.distribution == Distribution::Blocked {
            for e in 0..slot {
                if let Some(t) = m.distribution.owner(e, slot, threads.threads) {
                    if let Some(o) = owners.get_mut(threads.wave_of(t) as usize) {
                        *o = true;
                    }
                }
            }
        }
    }
    let mut out: Vec<u32> = all
        .iter()
        .copied()
        .filter(|a| owners.get(*a as usize).copied().unwrap_or(false))
        .collect();
    if let Some(idle) = all
        .iter()
        .find(|a| !owners.get(**a as usize).copied().unwrap_or(false))
    {
        out.push(*idle);
        out.sort_unstable();
    }
    out
}

/// Whether `nodes` wait, commit or pass a barrier (a pipeline's loop does; a loop over a tile's
/// elements does not).
fn synchronizes(nodes: &[Node]) -> bool {
    nodes.iter().any(|n| match n {
        Node::Commit { .. } | Node::Wait { .. } | Node::Barrier { .. } => true,
        Node::For { body, .. } | Node::If { body, .. } | Node::Section { body, .. } => {
            synchronizes(body)
        }
        Node::AsyncScope { .. } | Node::Assign(_) => false,
    })
}

/// Elements of one ring slot (the whole buffer when it has one version).
fn slot_elements(m: &Mem) -> i64 {
    let dims = if m.versions > 1 {
        m.shape.get(1..).unwrap_or_default()
    } else {
        &m.shape[..]
    };
    dims.iter().product::<i64>().max(1)
}

impl Machine<'_> {
    fn problem(&mut self, span: Span, message: String) {
        if self.run.problems.len() < 32
            && !self
                .run
                .problems
                .iter()
                .any(|p| p.span == span && p.message == message)
        {
            self.run.problems.push(Problem::of_run(span, message));
        }
    }

    fn nodes(&mut self, nodes: &[Node]) {
        for n in nodes {
            if self.stopped {
                return;
            }
            self.node(n);
        }
    }

    fn node(&mut self, n: &Node) {
        match n {
            Node::For {
                var, lo, hi, body, ..
            } => {
                let (Some(l), Some(h)) = (lo.eval(&self.env), hi.eval(&self.env)) else {
                    return;
                };
                // The pipeline's loop is the outermost one that waits or commits: a loop of
                // elements (a prologue's copy, an epilogue's tile) has no iteration of its own.
                let outermost = self.outer.is_none() && synchronizes(body);
                if outermost {
                    self.outer = Some(*var);
                }
                let saved = self.env.get(*var as usize).copied();
                for v in l..h {
                    if let Some(slot) = self.env.get_mut(*var as usize) {
                        *slot = v;
                    }
                    self.nodes(body);
                    if self.stopped {
                        break;
                    }
                }
                if let (Some(slot), Some(s)) = (self.env.get_mut(*var as usize), saved) {
                    *slot = s;
                }
                if outermost {
                    self.outer = None;
                }
            }
            Node::If { cond, body, .. } => {
                if cond.eval(&self.env) == Some(true) {
                    self.nodes(body);
                }
            }
            Node::Commit { queue, body, .. } => {
                for open in &mut self.open {
                    open.push((*queue, Group { writes: Vec::new() }));
                }
                self.nodes(body);
                for (a, open) in self.open.iter_mut().enumerate() {
                    if let Some((q, g)) = open.pop() {
                        if let Some(queues) = self.queues.get_mut(a) {
                            queues.entry(q).or_default().push_back(g);
                        }
                    }
                }
            }
            Node::AsyncScope { body, .. } => {
                self.async_depth += 1;
                self.nodes(body);
                self.async_depth -= 1;
            }
            Node::Wait {
                queue,
                count,
                body,
                span,
                ..
            } => {
                match count.eval(&self.env) {
                    Some(n) => self.wait(*queue, n.max(0), *span),
                    None => self.problem(*span, "this wait count cannot be evaluated".into()),
                }
                self.nodes(body);
            }
            Node::Barrier { .. } => {
                self.epoch += 1;
                self.run.barriers += 1;
            }
            Node::Assign(a) => self.assign(a),
            Node::Section { body, .. } => self.nodes(body),
        }
    }

    /// Every agent completes the oldest groups of `queue` until `keep` remain: their writes land
    /// in this barrier interval.
    fn wait(&mut self, queue: i64, keep: i64, at: Span) {
        for a in 0..self.agents.len() {
            while let Some(q) = self.queues.get_mut(a).and_then(|qs| qs.get_mut(&queue)) {
                if q.len() as i64 <= keep {
                    break;
                }
                let Some(g) = q.pop_front() else {
                    break;
                };
                for (b, copy, e, v) in g.writes {
                    self.land(b, copy, e, v, at);
                }
            }
        }
    }

    fn land(&mut self, b: usize, copy: usize, e: usize, v: f64, at: Span) {
        let epoch = self.epoch;
        let Some(m) = self.mems.get_mut(b) else {
            return;
        };
        if let Some(x) = m.copies.get_mut(copy).and_then(|c| c.get_mut(e)) {
            *x = v;
        }
        if let Some(p) = m.pending.get_mut(copy).and_then(|p| p.get_mut(e)) {
            *p = p.saturating_sub(1);
        }
        if let Some(Some(w)) = m.last_write.get_mut(copy).and_then(|l| l.get_mut(e)) {
            if w.landed.is_none() {
                w.landed = Some(epoch);
                w.landed_at = Some(at);
            }
        }
    }

    /// Groups still holding writes when the program ends.
    fn never_awaited(&mut self) {
        let left: usize = self
            .queues
            .iter()
            .flat_map(|qs| qs.values())
            .flatten()
            .map(|g| g.writes.len())
            .sum();
        if left > 0 {
            self.problem(
                Span::default(),
                format!(
                    "{} still in flight when the program ends: nothing waits for them",
                    crate::english::count(left, "async write")
                ),
            );
        }
    }

    fn iteration(&self, a: &Assign) -> Option<i64> {
        match &a.iteration {
            Some(e) => e.eval(&self.env),
            None => self.outer.and_then(|v| self.env.get(v as usize).copied()),
        }
    }
}
