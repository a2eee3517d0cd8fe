//! Thread loops (`T.thread_binding`): their iterations are threads that run at once, each with its
//! own asynchronous queues and its own `local` buffers, sharing `shared` and global memory. The
//! verifier runs them one after another, which is what the GPU computes whenever no two threads
//! touch one element of shared or global memory with one of them writing: then every interleaving
//! gives the same result. This checks that condition on TVM's program, run statically (loops
//! unrolled, conditions evaluated, as `trace` does), element by element in memory (row-major in a
//! declared shape, so indices past a dimension meet the elements they land on).

use super::ThreadBinding;
use crate::diagnostic::Diagnostic;
use crate::ir::{for_each_read, Access, Node, Program, Scope};
use std::collections::BTreeMap;

/// What the check says: one note per thread loop saying how it is run, and a warning per pair of
/// threads that share an element (at most a few), or why it could not look.
pub(super) fn check(
    program: &Program,
    threads: &[ThreadBinding],
    params: &BTreeMap<String, i64>,
) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = threads
        .iter()
        .map(|t| {
            Diagnostic::note(
                t.span,
                format!(
                    "`{}` binds {}: its iterations are threads that run at once, each with its own \
                     queues and local buffers; the verifier runs them one after another, which is \
                     what the GPU computes when no two threads share an element of shared or \
                     global memory (checked on TVM's program)",
                    t.var,
                    if t.thread.is_empty() {
                        "a thread index"
                    } else {
                        t.thread.as_str()
                    }
                ),
            )
        })
        .collect();
    let vars: Vec<Option<&ThreadBinding>> = program
        .vars
        .iter()
        .map(|v| threads.iter().find(|t| t.var == v.name))
        .collect();
    if vars.iter().all(Option::is_none) {
        return out;
    }
    let mut walk = Walk {
        program,
        vars: &vars,
        env: program.env(params),
        thread: Vec::new(),
        touched: BTreeMap::new(),
        conflicts: Vec::new(),
        instances: 0,
    };
    walk.nodes(&program.body);
    if walk.instances > crate::limits::MAX_INTERPRETED_INSTANCES {
        if let Some(t) = threads.first() {
            out.push(Diagnostic::note(
                t.span,
                format!(
                    "whether threads share an element is not checked: TVM's program runs more than {} statement instances",
                    crate::limits::MAX_INTERPRETED_INSTANCES
                ),
            ));
        }
        return out;
    }
    for c in walk.conflicts.iter().take(MAX_REPORTED) {
        let span = threads
            .iter()
            .find(|t| t.var == c.var)
            .map_or(crate::diagnostic::Span::new(0, 0), |t| t.span);
        out.push(
            Diagnostic::warning(
                span,
                format!(
                    "in TVM's program, threads {} = {} and {} = {} both touch element {} of `{}` ({} and {}), {}: nothing orders two threads without a barrier, so on a GPU this is a race the verifier, running them one after another, does not see",
                    c.var, c.first.0, c.var, c.second.0, c.offset, c.buffer, c.first.1, c.second.1,
                    if c.both_write { "both writing" } else { "one writing" }
                ),
            )
            .with_hint("index every shared buffer by the thread, or keep each thread to its own elements"),
        );
    }
    if walk.conflicts.len() > MAX_REPORTED {
        if let Some(t) = threads.first() {
            out.push(Diagnostic::warning(
                t.span,
                format!(
                    "and {} more elements shared between threads",
                    walk.conflicts.len() - MAX_REPORTED
                ),
            ));
        }
    }
    out
}

const MAX_REPORTED: usize = 3;

/// Two threads touching one element.
struct Conflict {
    var: String,
    buffer: String,
    offset: i64,
    /// Each thread's value with the access as written, indices evaluated.
    first: (i64, String),
    second: (i64, String),
    both_write: bool,
}

/// Who touched an element first: the thread loop's variable and value, the access, whether it
/// wrote; and whether a later access of another thread was already reported.
struct Touch {
    var: usize,
    value: i64,
    text: String,
    write: bool,
    reported: bool,
}

struct Walk<'p> {
    program: &'p Program,
    vars: &'p [Option<&'p ThreadBinding>],
    env: Vec<i64>,
    /// The thread loops entered: (variable id, value).
    thread: Vec<(usize, i64)>,
    touched: BTreeMap<(u32, i64), Touch>,
    conflicts: Vec<Conflict>,
    instances: u64,
}

impl Walk<'_> {
    fn nodes(&mut self, nodes: &[Node]) {
        for n in nodes {
            if self.instances > crate::limits::MAX_INTERPRETED_INSTANCES {
                return;
            }
            self.node(n);
        }
    }

    fn node(&mut self, node: &Node) {
        match node {
            Node::Barrier { .. } => {}
            Node::For {
                var, lo, hi, body, ..
            } => {
                let (Some(lo), Some(hi)) = (lo.eval(&self.env), hi.eval(&self.env)) else {
                    return;
                };
                let is_thread = self.vars.get(*var as usize).is_some_and(Option::is_some);
                for v in lo..hi {
                    if let Some(slot) = self.env.get_mut(*var as usize) {
                        *slot = v;
                    }
                    if is_thread {
                        self.thread.push((*var as usize, v));
                    }
                    self.nodes(body);
                    if is_thread {
                        self.thread.pop();
                    }
                }
            }
            Node::If { cond, body, .. } => {
                if cond.eval(&self.env).unwrap_or(false) {
                    self.nodes(body);
                }
            }
            Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => self.nodes(body),
            Node::Assign(a) => {
                self.instances += 1;
                let mut reads = Vec::new();
                for_each_read(&a.value, &mut |r| reads.push(r.clone()));
                for r in &reads {
                    self.touch(r, false);
                }
                self.touch(&a.target, true);
            }
        }
    }

    /// The element an access lands on: its row-major offset in a declared shape, or for a global
    /// (whose shape is what the loop touches) a hash of its indices.
    fn element(&self, a: &Access, indices: &[i64]) -> i64 {
        match self.program.buffer(a.buffer).and_then(|b| b.shape.as_ref()) {
            Some(shape) => crate::interp::strides_of(shape)
                .iter()
                .zip(indices)
                .fold(0i64, |sum, (s, i)| sum.saturating_add(s.saturating_mul(*i))),
            None => indices
                .iter()
                .fold(17i64, |h, i| h.wrapping_mul(1_000_003).wrapping_add(*i)),
        }
    }

    fn touch(&mut self, a: &Access, write: bool) {
        let Some(&(var, value)) = self.thread.last() else {
            return;
        };
        let Some(buffer) = self.program.buffer(a.buffer) else {
            return;
        };
        if buffer.scope == Scope::Local {
            return;
        }
        let Some(indices) = a
            .indices
            .iter()
            .map(|i| i.eval(&self.env))
            .collect::<Option<Vec<i64>>>()
        else {
            return;
        };
        let offset = self.element(a, &indices);
        let text = format!(
            "`{}[{}]`",
            buffer.name,
            indices
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let key = (a.buffer, offset);
        match self.touched.get_mut(&key) {
            None => {
                self.touched.insert(
                    key,
                    Touch {
                        var,
                        value,
                        text,
                        write,
                        reported: false,
                    },
                );
            }
            Some(t) if t.var == var && t.value != value && (t.write || write) && !t.reported => {
                t.reported = true;
                let name = self
                    .program
                    .var_name(crate::ir::VarId::try_from(var).unwrap_or(u32::MAX))
                    .to_string();
                self.conflicts.push(Conflict {
                    var: name,
                    buffer: buffer.name.to_string(),
                    offset,
                    first: (t.value, t.text.clone()),
                    second: (value, text),
                    both_write: t.write && write,
                });
            }
            Some(t) => {
                // Keep the writer: a later reader of another thread conflicts with it.
                if write && !t.write && t.var == var && t.value == value {
                    t.write = true;
                }
            }
        }
    }
}
