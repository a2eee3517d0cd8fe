//! What a kernel may assume beyond its own text — the execution model of docs/execution-model.md —
//! and nothing of how it was made: how many threads run it and in what waves, which global buffer
//! each kernel argument is (in order), the element-tile layout (element `e`, thread `t` at byte
//! `(e · lanes + t) · 4`), the input values, and the outputs the original loop computes from them.
//!
//! Inputs differ between threads (thread `t` gets the loop's inputs for seed `seeds[t % len]`), so a
//! kernel that mixes up threads' values computes something else. Values are compared as float32
//! (the emitted code computes in float32 whatever the declared dtype): the reference is the
//! original loop interpreted with every buffer declared float32.

use super::memory::{Cell, Memory, SpaceKind};
use crate::interp::{input_value, run, strides_of, unflatten, RunOptions};
use crate::ir::{DType, Program, Scope};
use std::collections::BTreeMap;

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalBuffer {
    pub name: String,
    /// The shape the original loop gives it (the interpreter's inference for implicit globals).
    pub shape: Vec<i64>,
    /// Per seed: every element's value after the original loop ran.
    pub expected: Vec<Vec<f64>>,
}

/// A shared or local buffer of the pipelined program: named in reports, never assumed by the
/// semantics (the LDS layout of the ISA — these buffers in order, each `elements · lanes · 4`
/// bytes — is used only to say which buffer an LDS byte belongs to).
#[derive(Clone, Debug, PartialEq)]
pub struct SharedBuffer {
    pub name: String,
    /// Full shape, ring dimension first when `versions > 1`.
    pub shape: Vec<i64>,
    pub versions: u32,
    /// Thread-private (`scope="local"`): PTX local memory, not part of dynamic shared memory.
    pub local: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Contract {
    /// Threads in the block / workgroup.
    pub lanes: u32,
    /// Threads executed in lockstep: a wave (64 on AMDGPU) or a warp (32 on NVIDIA).
    pub wave: u32,
    pub globals: Vec<GlobalBuffer>,
    pub shared: Vec<SharedBuffer>,
    pub seeds: Vec<u64>,
    /// Wave-instructions executed at most before the run stops and says so.
    pub max_instructions: u64,
    /// The initial words of each kernel argument (`initial_words`), computed once.
    initial: Vec<Vec<u32>>,
}

/// Input seeds: three, so that threads 1, 2 and 64 apart see different values.
pub const SEEDS: [u64; 3] = [1, 2, 3];

impl Contract {
    /// The contract of a kernel emitted from `pipelined` for the loop `original`, with the
    /// parameters bound. `Err` says why the loop itself cannot serve as the reference.
    pub fn new(
        original: &Program,
        pipelined: &Program,
        params: &BTreeMap<String, i64>,
        lanes: u32,
        wave: u32,
    ) -> Result<Contract, String> {
        let mut reference = original.clone();
        for b in &mut reference.buffers {
            b.dtype = DType::Float32;
        }
        let mut runs = Vec::new();
        for &seed in &SEEDS {
            let r = run(
                &reference,
                &RunOptions {
                    params: params.clone(),
                    seed,
                    ..RunOptions::default()
                },
            );
            if let Some(why) = &r.aborted {
                return Err(format!("the loop itself cannot be interpreted: {why}"));
            }
            if r.truncated {
                return Err(format!(
                    "the loop runs more than {} statement instances, the interpreter's limit (`limits::MAX_INTERPRETED_INSTANCES`, docs/limits.md), and the check compares the kernel's outputs with that run's: check a smaller extent, or raise the limit in core/src/limits.rs and rebuild",
                    crate::limits::MAX_INTERPRETED_INSTANCES
                ));
            }
            if let Some(p) = r.problems.first() {
                return Err(format!("the loop itself has a problem: {}", p.message));
            }
            runs.push(r);
        }
        let mut globals = Vec::new();
        for b in pipelined
            .buffers
            .iter()
            .filter(|b| b.scope == Scope::Global)
        {
            let name = b.name.to_string();
            let shape = runs
                .first()
                .and_then(|r| r.memory.get(&name))
                .map(|m| m.shape.clone())
                .or_else(|| b.shape.clone())
                .unwrap_or_default();
            let expected = runs
                .iter()
                .map(|r| {
                    r.memory
                        .get(&name)
                        .map(|m| m.values.clone())
                        .unwrap_or_default()
                })
                .collect();
            globals.push(GlobalBuffer {
                name,
                shape,
                expected,
            });
        }
        let shared = pipelined
            .buffers
            .iter()
            .filter(|b| b.scope != Scope::Global)
            .map(|b| SharedBuffer {
                name: b.name.to_string(),
                shape: b.shape.clone().unwrap_or_default(),
                versions: b.versions,
                local: b.scope == Scope::Local,
            })
            .collect();
        let mut c = Contract {
            lanes,
            wave: wave.max(1),
            globals,
            shared,
            seeds: SEEDS.to_vec(),
            max_instructions: crate::limits::MAX_MACHINE_INSTRUCTIONS,
            initial: Vec::new(),
        };
        c.initial = (0..c.globals.len()).map(|k| c.compute_initial(k)).collect();
        Ok(c)
    }

    pub fn waves(&self) -> u32 {
        self.lanes.div_ceil(self.wave)
    }

    fn seed_of(&self, lane: u32) -> usize {
        (lane as usize) % self.seeds.len().max(1)
    }

    /// Elements of a global buffer.
    pub fn elements(&self, param: usize) -> usize {
        self.globals.get(param).map_or(0, |g| {
            g.shape
                .iter()
                .map(|d| (*d).max(0) as usize)
                .product::<usize>()
        })
    }

    /// The initial words of kernel argument `param`: element `e` of thread `t` at `e · lanes + t`.
    pub fn initial_words(&self, param: usize) -> Vec<u32> {
        self.initial.get(param).cloned().unwrap_or_default()
    }

    fn compute_initial(&self, param: usize) -> Vec<u32> {
        let Some(g) = self.globals.get(param) else {
            return Vec::new();
        };
        let strides = strides_of(&g.shape);
        let lanes = self.lanes as usize;
        let mut words = Vec::with_capacity(self.elements(param) * lanes);
        for e in 0..self.elements(param) {
            let index = unflatten(&strides, e);
            for t in 0..self.lanes {
                let seed = self.seeds.get(self.seed_of(t)).copied().unwrap_or(1);
                words.push((input_value(&g.name, &index, seed) as f32).to_bits());
            }
        }
        words
    }

    /// The value the original loop leaves in word `word` of kernel argument `param`.
    pub fn expected(&self, param: usize, word: usize) -> Option<f64> {
        let g = self.globals.get(param)?;
        let lanes = self.lanes as usize;
        let (e, t) = (word / lanes.max(1), word % lanes.max(1));
        g.expected.get(self.seed_of(t as u32))?.get(e).copied()
    }

    /// Which buffer element (and thread) a word of memory is, for reports.
    pub fn place(&self, memory: &Memory, c: Cell) -> Place {
        let Some(space) = memory.space(c.space) else {
            return Place::Raw {
                space: "?".into(),
                byte: u64::from(c.word) * 4,
            };
        };
        let lanes = u64::from(self.lanes.max(1));
        let word = u64::from(c.word);
        match &space.kind {
            SpaceKind::Global { param } => {
                let Some(g) = self.globals.get(*param) else {
                    return Place::Raw {
                        space: format!("argument {param}"),
                        byte: word * 4,
                    };
                };
                Place::Element {
                    space: "global".into(),
                    buffer: g.name.clone(),
                    index: unflatten(&strides_of(&g.shape), (word / lanes) as usize),
                    slot: None,
                    thread: (word % lanes) as u32,
                }
            }
            SpaceKind::Shared { .. } | SpaceKind::Local { .. } | SpaceKind::Dynamic => {
                let (space_name, name, dynamic) = match &space.kind {
                    SpaceKind::Local { name } => ("local", Some(name), false),
                    SpaceKind::Shared { name } => ("shared", name.as_ref(), false),
                    _ => ("shared", None, true),
                };
                // One named object, or the whole LDS (dynamic shared memory: its shared
                // buffers) laid out buffer after buffer.
                let (buffer, rel) = match name {
                    Some(n) => (self.shared.iter().find(|b| &b.name == n), word),
                    None => {
                        let mut base = 0u64;
                        let mut found = None;
                        for b in self.shared.iter().filter(|b| !(dynamic && b.local)) {
                            let size = elements_of(&b.shape) * lanes;
                            if word < base + size {
                                found = Some((b, word - base));
                                break;
                            }
                            base += size;
                        }
                        match found {
                            Some((b, rel)) => (Some(b), rel),
                            None => (None, word),
                        }
                    }
                };
                match buffer {
                    Some(b) => {
                        let index = unflatten(&strides_of(&b.shape), (rel / lanes) as usize);
                        Place::Element {
                            space: space_name.into(),
                            buffer: b.name.clone(),
                            slot: (b.versions > 1).then(|| index.first().copied()).flatten(),
                            index,
                            thread: (rel % lanes) as u32,
                        }
                    }
                    None => Place::Raw {
                        space: match (name, dynamic) {
                            (Some(n), _) => n.clone(),
                            (None, true) => "dynamic shared memory".into(),
                            (None, false) => "LDS".into(),
                        },
                        byte: word * 4,
                    },
                }
            }
        }
    }
}

fn elements_of(shape: &[i64]) -> u64 {
    shape
        .iter()
        .map(|d| (*d).max(0) as u64)
        .product::<u64>()
        .max(1)
}

crate::wire::dual_tagged! {
    remote = "Place", json(tag = "place"), both(rename_all = "snake_case");
/// A word of memory as a person names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    Element {
        /// "global" or "shared" (LDS on AMDGPU).
        space: String,
        buffer: String,
        index: Vec<i64>,
        /// Ring slot (first index) of a multi-versioned buffer.
        slot: Option<i64>,
        thread: u32,
    },
    /// A byte no buffer owns.
    Raw { space: String, byte: u64 },
    /// A register (its result still in flight).
    Register { name: String },
}
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Element {
                buffer,
                index,
                slot,
                thread,
                space,
            } => {
                let idx: Vec<String> = index.iter().map(|i| i.to_string()).collect();
                write!(f, "{space} `{buffer}[{}]`", idx.join(", "))?;
                if let Some(s) = slot {
                    write!(f, " (ring slot {s})")?;
                }
                write!(f, ", thread {thread}")
            }
            Place::Raw { space, byte } => write!(f, "{space} byte {byte}"),
            Place::Register { name } => write!(f, "register {name}"),
        }
    }
}
