//! Fixed workloads, shared by the benchmarks and the profiling examples (each includes this file
//! with `#[path]`), so the profiled loop is the benchmarked one.

/// RFC (a) over 10^5 iterations.
pub const RFC_A_LONG: &str = "B = alloc([1])
for i in range(100000):
    B[0] = A[i] + 1
    C[i] = B[0] + 1
sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

/// A chain of `n` statements, each reading the previous one's result, spread evenly over `stages`
/// stages of which every other is asynchronous, over `extent` iterations; each intermediate buffer
/// has `slots` elements, statement k using slot k mod `slots`. The transform benchmarks' synthetic
/// loops are `chain(n, 8, 64, 4)` (as scripts/compare-tvm.py and the e2e tests build them); the
/// interpreter's is `chain(32, 4, 20000, 1)`.
pub fn chain(n: usize, stages: usize, extent: usize, slots: usize) -> String {
    let mut s = String::new();
    for k in 0..n {
        s.push_str(&format!("T{k} = alloc([{slots}])\n"));
    }
    s.push_str(&format!("for i in range({extent}):\n"));
    let slot = |k: usize| k % slots.max(1);
    for k in 0..n {
        let src = if k == 0 {
            "A[i, 0]".to_string()
        } else {
            format!("T{}[{}]", k - 1, slot(k))
        };
        s.push_str(&format!("    T{k}[{}] = {src} * 2 + {k}\n", slot(k)));
    }
    s.push_str(&format!("    C[i] = T{}[{}]\n", n - 1, slot(n - 1)));
    let list = |f: &dyn Fn(usize) -> usize| {
        (0..=n)
            .map(|k| f(k).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    s.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_stage\", [{}])\n",
        list(&|k| k * stages / (n + 1))
    ));
    s.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_order\", [{}])\n",
        list(&|k| k)
    ));
    let asyncs: Vec<String> = (0..stages).step_by(2).map(|k| k.to_string()).collect();
    s.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_async_stages\", [{}])\n",
        asyncs.join(", ")
    ));
    s
}
