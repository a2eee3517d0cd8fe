//! Random annotated loops for the property tests (and anything else that wants many loops): the
//! index forms the dependence analysis handles exactly and those it must treat conservatively
//! (`%`, `//`, `min`, `max`, conditional expressions, conditional statements on the iteration,
//! user-written rings, reads of what earlier iterations wrote, allocations nothing touches), with
//! random stages, orders and async stages.
//! Seeded and deterministic, so a failing case is named by its seed.

use std::fmt::Write;

/// What kind of loop to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// Every index form the language accepts, rings and cross-iteration reads: for the transform's
    /// soundness.
    Irregular,
    /// Asynchronous global→shared copies feeding later statements: what the targets make
    /// asynchronous (LDS DMA, cp.async), for executing emitted kernels.
    Copies,
    /// An irregular loop in which one asynchronous stage writes an element twice: two
    /// statements writing the same element (or one that may be another), or one statement that
    /// writes it twice inside its own loop — for the commit groups, whose copies land in no set
    /// order.
    SameElement,
    /// A nested pipeline: a tile copy, an inner loop pipelined first whose prologue runs in an
    /// earlier outer stage than its body (RFC (d)'s nested GEMM), and an output — for versions
    /// of an inner pipeline's ring across outer iterations.
    NestedPrologue,
}

/// A generated loop. `text()` writes it; `with_extent` keeps everything but the trip count, so a
/// test can run the same schedule at the short trip counts.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomLoop {
    pub seed: u64,
    /// `X = alloc(...)` lines.
    pub allocations: Vec<String>,
    /// One entry per statement of the pipelined loop (several lines for a nested loop or an `if`),
    /// indented for the loop body.
    pub statements: Vec<String>,
    pub stages: Vec<i64>,
    pub orders: Vec<i64>,
    pub async_stages: Vec<i64>,
    /// `None`: the symbolic extent `N`.
    pub extent: Option<i64>,
    /// Annotation lines of inner loops, written after the pipelined loop's.
    pub inner_annotations: Vec<String>,
}

impl RandomLoop {
    pub fn max_stage(&self) -> i64 {
        self.stages.iter().copied().max().unwrap_or(0)
    }

    pub fn with_extent(&self, extent: Option<i64>) -> RandomLoop {
        RandomLoop {
            extent,
            ..self.clone()
        }
    }

    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# random loop, seed {}", self.seed);
        for a in &self.allocations {
            let _ = writeln!(s, "{a}");
        }
        let extent = self
            .extent
            .map_or_else(|| "N".to_string(), |e| e.to_string());
        let _ = writeln!(s, "for i in range({extent}):");
        for st in &self.statements {
            s.push_str(st);
        }
        let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        for (key, values) in [
            ("software_pipeline_stage", &self.stages),
            ("software_pipeline_order", &self.orders),
            ("software_pipeline_async_stages", &self.async_stages),
        ] {
            let _ = writeln!(s, "sch.annotate(i, \"{key}\", [{}])", list(values));
        }
        for a in &self.inner_annotations {
            let _ = writeln!(s, "{a}");
        }
        s
    }
}

/// splitmix64: small, seedable, good enough to pick shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo + 1).max(1) as u64;
        lo + (self.next() % span) as i64
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        items.get((self.next() % items.len() as u64) as usize)
    }
}

/// An intermediate buffer of the loop: its name and length (one dimension).
#[derive(Clone)]
struct Shared {
    name: String,
    len: i64,
}

/// An index into a buffer of length `len` at iteration `i`, always in bounds for `0 ≤ i < 13`.
fn index(rng: &mut Rng, len: i64) -> String {
    let last = len - 1;
    if len >= 16 && rng.chance(60) {
        // Affine: this iteration's element, or the next ones (read across iterations).
        return match rng.range(0, 2) {
            0 => "i".to_string(),
            c => format!("i + {c}"),
        };
    }
    match rng.range(0, 9) {
        0 => "0".to_string(),
        1 => rng.range(0, last).to_string(),
        2 => format!("i % {len}"),
        3 => format!("(i + {}) % {len}", rng.range(1, len.max(2))),
        4 => format!("(i // 2) % {len}"),
        5 => format!("min(i, {last})"),
        6 => format!("max({last} - i, 0)"),
        7 => format!(
            "({} if i % 2 == 0 else {})",
            rng.range(0, last),
            rng.range(0, last)
        ),
        8 => format!("(2 * i + {}) % {len}", rng.range(0, last)),
        _ => format!("min(i + 1, {last})"),
    }
}

/// Generates loop `seed` of the given flavor.
pub fn random_loop(seed: u64, flavor: Flavor) -> RandomLoop {
    match flavor {
        Flavor::SameElement => same_element(seed),
        Flavor::NestedPrologue => nested_prologue(seed),
        Flavor::Irregular | Flavor::Copies => flat(seed, flavor),
    }
}

/// Irregular loop `seed` with one async stage writing an element twice (`Flavor::SameElement`):
/// a statement writing an intermediate buffer gets a twin in its stage, writing the same element
/// (or another index of the buffer), or becomes a loop writing it twice.
fn same_element(seed: u64) -> RandomLoop {
    let mut l = flat(seed, Flavor::Irregular);
    let mut rng = Rng(seed ^ 0x0005_A3E0_E1E3);
    let candidates: Vec<usize> = (0..l.statements.len())
        .filter(|&k| {
            l.statements
                .get(k)
                .is_some_and(|s| s.starts_with("    S") && s.lines().count() == 1)
        })
        .collect();
    let Some(&p) = rng.pick(&candidates) else {
        return l;
    };
    let line = l.statements.get(p).map_or("", |s| s.trim()).to_string();
    let Some((target, value)) = line.split_once(" = ") else {
        return l;
    };
    let name = target.split('[').next().unwrap_or("S0");
    let len = l
        .allocations
        .iter()
        .find_map(|a| {
            let rest = a.strip_prefix(&format!("{name} = alloc(["))?;
            rest.split(']').next()?.parse::<i64>().ok()
        })
        .unwrap_or(1);
    let twin = format!("B[i] + {}", rng.range(1, 9));
    let stage = l.stages.get(p).copied().unwrap_or(0);
    match rng.range(0, 3) {
        // One statement writing the element twice inside its own loop.
        0 => {
            if let Some(st) = l.statements.get_mut(p) {
                *st = format!(
                    "    for k in range(2):
        {target} = {value} + k
"
                );
            }
        }
        // One statement of two writes, the second perhaps of another element.
        1 => {
            let other = format!("{name}[{}]", index(&mut rng, len));
            if let Some(st) = l.statements.get_mut(p) {
                *st = format!(
                    "    for k in range(1):
        {target} = {value}
        {other} = {twin}
"
                );
            }
        }
        // A twin statement in the same stage: the same element, or another index.
        k => {
            let other = if k == 2 {
                target.to_string()
            } else {
                format!("{name}[{}]", index(&mut rng, len))
            };
            l.statements.insert(
                p + 1,
                format!(
                    "    {other} = {twin}
"
                ),
            );
            l.stages.insert(p + 1, stage);
            // Right after the first in the step's order (one group unless the transform splits
            // it), or last.
            let first = l.orders.get(p).copied().unwrap_or(0);
            let order = if rng.chance(70) {
                first + 1
            } else {
                l.orders.len() as i64
            };
            for o in l.orders.iter_mut().filter(|o| **o >= order) {
                *o += 1;
            }
            l.orders.insert(p + 1, order);
        }
    }
    if !l.async_stages.contains(&stage) {
        l.async_stages.push(stage);
        l.async_stages.sort_unstable();
    }
    l
}

/// A nested loop (`Flavor::NestedPrologue`): a tile copied into `S_sh`, an inner loop over `k`
/// (pipelined first, stages [0, 1]) loading a column into the local `S_lo` and accumulating it
/// into `S_acc`, and the accumulator written out. The outer stages put the inner prologue in an
/// earlier stage than the inner body, the copy no later than the prologue, the output last.
fn nested_prologue(seed: u64) -> RandomLoop {
    let mut rng = Rng(seed ^ 0x0002_E57E_D00F);
    let t = *rng.pick(&[1, 2, 4]).unwrap_or(&2);
    let kk = rng.range(2, 4);
    let reset = rng.chance(50);
    let offset = if t > 1 && rng.chance(30) {
        format!("(x + 1) % {t}")
    } else {
        "x".to_string()
    };
    let allocations = vec![
        format!("S_sh = alloc([{t}, {kk}])"),
        format!("S_lo = alloc([{t}], scope=\"local\")"),
        format!("S_acc = alloc([{t}], scope=\"local\")"),
    ];
    let mut statements = vec![format!(
        "    for a in range({t}):\n        for b in range({kk}):\n            S_sh[a, b] = A[i, a * {kk} + b]\n"
    )];
    if reset {
        statements.push(format!("    for x in range({t}):\n        S_acc[x] = 0\n"));
    }
    statements.push(format!(
        "    for k in range({kk}):\n        for x in range({t}):\n            S_lo[x] = S_sh[x, k]\n        for x in range({t}):\n            S_acc[x] = S_acc[x] + S_lo[{offset}]\n"
    ));
    statements.push(format!(
        "    for x in range({t}):\n        O1[i, x] = S_acc[x] + 1\n"
    ));
    // Units of the outer loop: copy, [reset,] inner prologue, body, epilogue, output.
    let max_stage = rng.range(1, 3);
    let prologue = rng.range(0, max_stage - 1);
    let body = rng.range(prologue + 1, max_stage);
    let epilogue = rng.range(body, max_stage);
    let copy = rng.range(0, prologue);
    let mut stages = vec![copy];
    if reset {
        stages.push(rng.range(0, prologue));
    }
    stages.extend([prologue, body, epilogue, rng.range(epilogue, max_stage)]);
    let n = stages.len();
    let mut orders: Vec<i64> = (0..n as i64).collect();
    if rng.chance(40) {
        // The inner prologue after the inner body within a step, as RFC (d) and (e) order it.
        let p = n - 4;
        orders.swap(p, p + 1);
    } else if rng.chance(30) {
        for k in (1..n).rev() {
            let j = rng.range(0, k as i64) as usize;
            orders.swap(k, j);
        }
    }
    let async_stages = if rng.chance(60) {
        vec![copy]
    } else {
        Vec::new()
    };
    let extent = if rng.chance(15) {
        None
    } else {
        Some(rng.range(1, 8))
    };
    RandomLoop {
        seed,
        allocations,
        statements,
        stages,
        orders,
        async_stages,
        extent,
        inner_annotations: vec![
            "sch.annotate(k, \"software_pipeline_stage\", [0, 1])".to_string(),
            "sch.annotate(k, \"software_pipeline_order\", [0, 1])".to_string(),
        ],
    }
}

/// What a copy reads: a row of `A` or one of its elements. `A` has one number of dimensions, the
/// first copy's (`one_index`); the draws are made as before it was kept, so that a loop whose
/// copies agreed is the one it always was.
fn copy_source(rng: &mut Rng, one_index: &mut Option<bool>) -> String {
    let drawn = rng.chance(70);
    let column = if drawn { 0 } else { rng.range(0, 3) };
    if *one_index.get_or_insert(drawn) {
        "A[i]".to_string()
    } else {
        format!("A[i, {column}]")
    }
}

/// A guard on the loop variable: every other iteration, or one a pipelined copy decides over the
/// iterations it runs (a first or last iteration's statement). All but the first form are drawn
/// from their own stream, so that the rest of each loop is as it was before they were made.
fn guard(rng: &mut Rng, guard_rng: &mut Rng) -> String {
    let parity = rng.range(0, 1);
    match guard_rng.range(0, 3) {
        0 => format!("i % 2 == {parity}"),
        1 => format!("i == {}", guard_rng.range(0, 8)),
        2 => format!("i < {}", guard_rng.range(1, 8)),
        _ => format!("i >= {}", guard_rng.range(1, 8)),
    }
}

/// A loop of one of the flat flavors (`Irregular`, `Copies`).
fn flat(seed: u64, flavor: Flavor) -> RandomLoop {
    let mut rng = Rng(seed ^ 0x05EE_D0F1_00B5);
    let mut guard_rng = Rng(seed ^ 0x0C0D_1710_4A15);
    let n = rng.range(1, 6) as usize;
    let mut shared: Vec<Shared> = Vec::new();
    let mut allocations = Vec::new();
    let mut statements = Vec::with_capacity(n);
    let mut copies = Vec::with_capacity(n);
    let mut outputs = 0;
    let mut a_has_one_index: Option<bool> = None;
    for k in 0..n {
        let copy = flavor == Flavor::Copies && (k == 0 || rng.chance(40));
        let last = k + 1 == n;
        // The value: reads of earlier buffers (any index form) and the inputs.
        let mut terms = Vec::new();
        if copy {
            // A pure global→shared copy, the only statement a target makes asynchronous.
            terms.push(copy_source(&mut rng, &mut a_has_one_index));
        } else {
            for _ in 0..rng.range(0, 2) {
                if let Some(b) = rng.pick(&shared).cloned() {
                    let ix = if flavor == Flavor::Copies && rng.chance(60) {
                        "i % ".to_string() + &b.len.to_string()
                    } else {
                        index(&mut rng, b.len)
                    };
                    terms.push(format!("{}[{ix}]", b.name));
                }
            }
            if terms.is_empty() || rng.chance(30) {
                let row = if rng.chance(80) { "i" } else { "(i + 1) % 8" };
                // In the copies' number of dimensions.
                terms.push(if a_has_one_index == Some(false) {
                    format!("A[{row}, 0]")
                } else {
                    format!("A[{row}]")
                });
            }
        }
        let value = if copy {
            terms.join("")
        } else {
            format!("{} + {}", terms.join(" + "), k + 1)
        };
        // The target: a new or an earlier intermediate buffer, or a global output.
        let to_output = last || (!copy && rng.chance(20));
        let statement = if to_output {
            outputs += 1;
            let o = format!("O{outputs}");
            if !last && rng.chance(30) {
                // A nested loop writing a row of the output.
                format!("    for x in range(2):\n        {o}[i, x] = {value} + x\n")
            } else {
                format!("    {o}[i] = {value}\n")
            }
        } else {
            let reuse = !copy && rng.chance(25);
            let b = match (reuse, rng.pick(&shared).cloned()) {
                (true, Some(b)) => b,
                _ => {
                    let b = Shared {
                        name: format!("S{}", shared.len()),
                        len: *rng.pick(&[1, 2, 3, 4, 4, 8, 16]).unwrap_or(&4),
                    };
                    allocations.push(format!("{} = alloc([{}])", b.name, b.len));
                    shared.push(b.clone());
                    b
                }
            };
            let ix = if copy && rng.chance(50) {
                format!("i % {}", b.len)
            } else {
                index(&mut rng, b.len)
            };
            let accumulate = !copy && rng.chance(15);
            let value = if accumulate {
                format!("{}[{ix}] + {value}", b.name)
            } else {
                value
            };
            if !copy && rng.chance(15) {
                let guard = guard(&mut rng, &mut guard_rng);
                format!("    if {guard}:\n        {}[{ix}] = {value}\n", b.name)
            } else {
                format!("    {}[{ix}] = {value}\n", b.name)
            }
        };
        statements.push(statement);
        copies.push(copy);
    }
    let max_stage = if flavor == Flavor::Copies {
        rng.range(1, 3)
    } else {
        rng.range(0, 3)
    };
    let mut stages: Vec<i64> = (0..n).map(|_| rng.range(0, max_stage)).collect();
    let mut orders: Vec<i64> = (0..n as i64).collect();
    if flavor == Flavor::Copies || rng.chance(50) {
        // Stages that never decrease along the text and orders as written: mostly valid.
        stages.sort_unstable();
    } else {
        // A random permutation of the orders (Fisher–Yates).
        for k in (1..n).rev() {
            let j = rng.range(0, k as i64) as usize;
            orders.swap(k, j);
        }
    }
    let mut async_stages: Vec<i64> = match flavor {
        // The copies' stages, which the targets make asynchronous.
        Flavor::Copies => stages
            .iter()
            .zip(&copies)
            .filter(|(_, &c)| c)
            .map(|(&s, _)| s)
            .collect(),
        _ => (0..=max_stage).filter(|_| rng.chance(40)).collect(),
    };
    async_stages.dedup();
    let extent = if rng.chance(15) {
        None
    } else {
        // At most 12 iterations: `i + 2` stays inside a buffer of 16.
        Some(rng.range(1, 12))
    };
    // One irregular loop in five allocates a buffer no statement touches (TVM 0.27 fails on one
    // inside the pipelined block, issue 39): decided by the seed, not drawn, so every other loop
    // is the one its seed always named.
    if flavor == Flavor::Irregular && seed % 5 == 2 {
        allocations.push("U_unused = alloc([16], scope=\"shared\")".to_string());
    }
    RandomLoop {
        seed,
        allocations,
        statements,
        stages,
        orders,
        async_stages,
        extent,
        inner_annotations: Vec::new(),
    }
}
