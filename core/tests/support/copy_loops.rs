//! Random annotated loops whose async stages hold pure global→shared copies (`S[t] = A[i]` — the
//! only statements the targets make asynchronous), with computations on shared and local buffers
//! and global outputs behind them. Deterministic per seed; valid schedules are not guaranteed
//! (callers keep those the transform accepts). Written so that a general random-loop generator
//! can take it over: `copy_loop(seed)` → source text plus the facts a test needs.

#![allow(dead_code)]

/// A generated loop.
#[derive(Clone, Debug)]
pub struct CopyLoop {
    pub source: String,
    /// Largest stage + 1.
    pub stages: i64,
    /// Whether the extent is the symbolic `N`.
    pub symbolic: bool,
}

/// xorshift64: small and deterministic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A loop of 1–6 units over `extent` (`None`: the symbolic `N`). Unit kinds:
/// - a copy of `w` elements of a global input into a shared buffer (`S{k}[t] = A{k}[w·i + t]`),
///   in an inner loop when `w > 1`; two copies may share one stage;
/// - a compute into a local or shared buffer from the previous unit's buffer;
/// - a reduction of the previous buffer into a global output `O{k}[i]`.
///
/// The last statement writes the global output `O[i]` from the last buffer, so every unit's
/// result reaches memory the check compares.
pub fn copy_loop(seed: u64, extent: Option<i64>) -> CopyLoop {
    let mut rng = Rng::new(seed);
    let n = 1 + rng.below(6) as usize;
    let mut decls = String::new();
    let mut body = String::new();
    let mut stages: Vec<i64> = Vec::new();
    let mut copy_stages: Vec<i64> = Vec::new();
    // (name, width) of the buffer the previous unit wrote.
    let mut prev: Option<(String, usize)> = None;
    for k in 0..n {
        let kind = if k == 0 { 0 } else { rng.below(4) };
        let last_stage = stages.last().copied().unwrap_or(0);
        // Readers never before their writers; a new copy may start anywhere.
        let stage = match kind {
            0 => {
                if rng.chance(50) {
                    last_stage
                } else {
                    rng.below(3) as i64
                }
            }
            _ => last_stage + rng.below(3) as i64,
        };
        let w = 1 + rng.below(2) as usize;
        match (kind, &prev) {
            (0, _) | (_, None) => {
                decls.push_str(&format!("S{k} = alloc([{w}], scope=\"shared\")\n"));
                if w == 1 {
                    body.push_str(&format!("    S{k}[0] = A{k}[i]\n"));
                } else {
                    body.push_str(&format!(
                        "    for t in range({w}):\n        S{k}[t] = A{k}[{w} * i + t]\n"
                    ));
                }
                // A copy's stage may be before the previous unit's: it reads only globals.
                stages.push(stage);
                copy_stages.push(stage);
                prev = Some((format!("S{k}"), w));
                continue;
            }
            (1, Some((p, pw))) => {
                let scope = if rng.chance(50) { "local" } else { "shared" };
                decls.push_str(&format!("L{k} = alloc([{pw}], scope=\"{scope}\")\n"));
                body.push_str(&format!(
                    "    for t in range({pw}):\n        L{k}[t] = {p}[t] * 2 + {k}\n"
                ));
                prev = Some((format!("L{k}"), *pw));
            }
            (2, Some((p, pw))) => {
                decls.push_str(&format!("R{k} = alloc([1], scope=\"local\")\n"));
                let terms: Vec<String> = (0..*pw).map(|t| format!("{p}[{t}]")).collect();
                let value = if terms.len() == 1 {
                    format!("{} + {k}", terms.join(""))
                } else {
                    format!("max({})", terms.join(", "))
                };
                body.push_str(&format!("    R{k}[0] = {value}\n"));
                prev = Some((format!("R{k}"), 1));
            }
            (_, Some((p, _))) => {
                body.push_str(&format!("    O{k}[i] = {p}[0] - {k}\n"));
            }
        }
        stages.push(stage.max(last_stage));
    }
    let (p, _) = prev.unwrap_or(("A0".into(), 1));
    let last = stages.last().copied().unwrap_or(0) + rng.below(2) as i64;
    stages.push(last);
    body.push_str(&format!("    O[i] = {p}[0] + 1\n"));
    // Stages must not decrease along a chain of readers; copies are free. Fix readers after
    // their writer by construction above; the final store follows the last unit.
    let m = stages.len();
    let mut orders: Vec<i64> = (0..m as i64).collect();
    if rng.chance(20) && m > 2 {
        // Swap two adjacent copies' orders when both are copies (reordering independent units).
        orders.swap(0, 1);
    }
    let max_stage = stages.iter().copied().max().unwrap_or(0);
    let mut asyncs: Vec<i64> = (0..=max_stage)
        .filter(|s| copy_stages.contains(s) && rng.chance(75) || rng.chance(10))
        .collect();
    asyncs.dedup();
    let symbolic = extent.is_none();
    let ext = extent.map_or("N".to_string(), |e| e.to_string());
    let source = format!(
        "{decls}for i in range({ext}):\n{body}sch.annotate(i, \"software_pipeline_stage\", [{}])\nsch.annotate(i, \"software_pipeline_order\", [{}])\nsch.annotate(i, \"software_pipeline_async_stages\", [{}])\n",
        list(&stages),
        list(&orders),
        list(&asyncs)
    );
    CopyLoop {
        source,
        stages: max_stage + 1,
        symbolic,
    }
}

/// The extent a seed picks for its base case (1–12 or symbolic).
pub fn base_extent(seed: u64) -> Option<i64> {
    let mut rng = Rng::new(seed ^ 0xA5A5);
    if rng.chance(15) {
        None
    } else {
        Some(1 + rng.below(12) as i64)
    }
}
