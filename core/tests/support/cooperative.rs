//! Random cooperative loops, reproducible by number: the interpreter across threads judges
//! them (`threads.rs`), and the machine-level verifier their kernels (`kernels.rs`).

/// A small deterministic generator (the cases are reproducible by number).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// A random cooperative loop: a tile copied into `S` by its owners, read shifted by other threads
/// into `T`, both read into every thread's `L`, written out; random threads (and waves),
/// distributions, shifts, stages, orders and async stages.
pub fn cooperative(case: u64) -> String {
    let mut r = Lcg(case.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let n = [2, 3, 4, 6][r.below(4) as usize];
    let extent = 3 + r.below(5);
    let threads: u64 = [2, 3, 4, 8][r.below(4) as usize];
    let waves = if threads.is_multiple_of(2) && r.below(3) == 0 {
        threads / 2
    } else {
        threads
    };
    let spread = |r: &mut Lcg| ["cyclic", "blocked"][r.below(2) as usize];
    let (ds, dt) = (spread(&mut r), spread(&mut r));
    let (shift, shift2) = (r.below(n), r.below(n));
    let mut stages = vec![0u64];
    for _ in 0..3 {
        let last = *stages.last().unwrap();
        stages.push((last + r.below(3)).min(3));
    }
    let mut order: Vec<u64> = (0..4).collect();
    for k in (1..4).rev() {
        let j = r.below(k + 1) as usize;
        order.swap(k as usize, j);
    }
    let asyncs = match r.below(4) {
        0 => String::new(),
        1 => format!("{}", stages[1]),
        _ => "0".to_string(),
    };
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let mut text = format!(
        "S = alloc([{n}], scope=\"shared\", threads=\"{ds}\")
T = alloc([{n}], scope=\"shared\", threads=\"{dt}\")
L = alloc([{n}], scope=\"local\")
for i in range({extent}):
    for t in range({n}):
        S[t] = A[i, t]
    for t in range({n}):
        T[t] = S[(t + {shift}) % {n}] * 2 + 1
    for t in range({n}):
        L[t] = T[(t + {shift2}) % {n}] + S[t]
    for t in range({n}):
        C[i, t] = L[t]

sch.annotate(i, \"software_pipeline_stage\", [{}])
sch.annotate(i, \"software_pipeline_order\", [{}])
sch.annotate(i, \"software_pipeline_async_stages\", [{asyncs}])
sch.annotate(i, \"stagecraft_threads\", [{threads}])
",
        list(&stages),
        list(&order)
    );
    if waves != threads {
        text.push_str(&format!(
            "sch.annotate(i, \"stagecraft_waves\", [{waves}])\n"
        ));
    }
    text
}
