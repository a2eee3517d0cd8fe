//! Which agent (wave, or thread without waves) reads which element of a buffer spread over the
//! loop's threads: a pair of accesses that never meets another agent's needs no barrier
//! (`barriers.rs`). Judged by value over the statements' instances, as the interpreter across
//! threads runs them (`interp::threads`): an instance runs in the owner of the element it writes.

use crate::ir::*;

/// Whether every read of `buffer` by the statements of `node` runs in the agent (wave, or thread
/// without waves) that owns the element read — the agent whose statements write and refill it —
/// judged by value over every instance: the owner of the element the statement writes against
/// the owner of the element it reads (`S[(t + 0) % 3]` is `S[t]`, and `S[(t + 2) % 4]` is read by
/// its owner too when two threads share four elements cyclically). `false` when some instance
/// runs in every agent (its target is each agent's own), or is not known.
pub(super) fn reads_own_elements(
    program: &Program,
    node: &Node,
    buffer: BufId,
    threads: Threads,
    pipeline: (VarId, Option<(i64, i64)>),
) -> bool {
    let mut own = Own {
        program,
        buffer,
        threads,
        env: vec![0; program.vars.len()],
        bound: vec![false; program.vars.len()],
        budget: 1 << 16,
    };
    let (var, range) = pipeline;
    let nodes = std::slice::from_ref(node);
    match range {
        Some((lo, hi)) => (lo..hi).all(|i| {
            own.bind(var, i);
            own.walk(nodes)
        }),
        None => own.walk(nodes),
    }
}

/// The walk of `reads_own_elements` over a unit's instances.
struct Own<'a> {
    program: &'a Program,
    buffer: BufId,
    threads: Threads,
    env: Vec<i64>,
    bound: Vec<bool>,
    /// Instances left to judge before giving up (and keeping the pair).
    budget: u64,
}

impl Own<'_> {
    fn bind(&mut self, var: VarId, value: i64) {
        if let (Some(slot), Some(b)) = (
            self.env.get_mut(var as usize),
            self.bound.get_mut(var as usize),
        ) {
            *slot = value;
            *b = true;
        }
    }

    fn eval(&self, e: &IExpr) -> Option<i64> {
        let unbound = self
            .bound
            .iter()
            .enumerate()
            .any(|(v, &b)| !b && e.mentions(v as VarId));
        if unbound {
            return None;
        }
        e.eval(&self.env)
    }

    /// The agent owning the element `access` names, for a buffer spread over the threads.
    fn owner(&self, access: &Access) -> Option<u32> {
        let buf = self.program.buffer(access.buffer)?;
        let shape = buf.shape.as_deref()?;
        if shape.len() != access.indices.len() {
            return None;
        }
        let mut flat = 0i64;
        for (ix, &d) in access.indices.iter().zip(shape) {
            let i = self.eval(ix)?;
            if !(0..d).contains(&i) {
                return None;
            }
            flat = flat.checked_mul(d)?.checked_add(i)?;
        }
        // As the interpreter does: the element within its ring slot.
        let slot_dims = if buf.versions > 1 {
            shape.get(1..).unwrap_or_default()
        } else {
            shape
        };
        let slot: i64 = slot_dims.iter().product::<i64>().max(1);
        let thread = buf
            .threads
            .owner(flat.rem_euclid(slot), slot, self.threads.threads)?;
        Some(self.threads.wave_of(thread))
    }

    /// Whether every instance in `nodes` reading the buffer reads its own agent's element.
    fn walk(&mut self, nodes: &[Node]) -> bool {
        nodes.iter().all(|n| match n {
            Node::For {
                var, lo, hi, body, ..
            } => {
                let (Some(lo), Some(hi)) = (self.eval(lo), self.eval(hi)) else {
                    return false;
                };
                let was = self.bound.get(*var as usize).copied().unwrap_or(false);
                let all = (lo..hi).all(|v| {
                    self.bind(*var, v);
                    self.walk(body)
                });
                if let Some(b) = self.bound.get_mut(*var as usize) {
                    *b = was;
                }
                all
            }
            // A guard not known here may hold: its statements are judged as running.
            Node::If { cond, body, .. } => {
                let unbound = self
                    .bound
                    .iter()
                    .enumerate()
                    .any(|(v, &b)| !b && cond.mentions(v as VarId));
                let holds = if unbound { None } else { cond.eval(&self.env) };
                holds == Some(false) || self.walk(body)
            }
            Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => self.walk(body),
            Node::Barrier { .. } => true,
            Node::Assign(a) => {
                let mut reads = Vec::new();
                for_each_read(&a.value, &mut |r| {
                    if r.buffer == self.buffer {
                        reads.push(r);
                    }
                });
                if reads.is_empty() {
                    return true;
                }
                if self.budget == 0 {
                    return false;
                }
                self.budget -= 1;
                // A target each agent keeps is computed by every agent: some reads another's.
                let Some(runs_in) = self.owner(&a.target) else {
                    return false;
                };
                reads.iter().all(|r| self.owner(r) == Some(runs_in))
            }
        })
    }
}
