//! Fixed interpreter workloads, shared by `benches/interp.rs` and `examples/prof_interp.rs` (each
//! includes this file with `#[path]`), so the profiled loop is the benchmarked one.

/// RFC (a) over 10^5 iterations.
pub const RFC_A_LONG: &str = "B = alloc([1])
for i in range(100000):
    B[0] = A[i] + 1
    C[i] = B[0] + 1
sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

/// A chain of `n` statements over 4 stages, stages 0 and 2 asynchronous, 2·10^4 iterations.
pub fn chain(n: usize) -> String {
    let mut s = String::new();
    for k in 0..n {
        s.push_str(&format!("T{k} = alloc([1])\n"));
    }
    s.push_str("for i in range(20000):\n");
    for k in 0..n {
        let src = if k == 0 {
            "A[i]".to_string()
        } else {
            format!("T{}[0]", k - 1)
        };
        s.push_str(&format!("    T{k}[0] = {src} * 2 + {k}\n"));
    }
    s.push_str(&format!("    C[i] = T{}[0]\n", n - 1));
    let stages: Vec<String> = (0..=n).map(|k| (k * 4 / (n + 1)).to_string()).collect();
    let orders: Vec<String> = (0..=n).map(|k| k.to_string()).collect();
    s.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_stage\", [{}])\n",
        stages.join(", ")
    ));
    s.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_order\", [{}])\n",
        orders.join(", ")
    ));
    s.push_str("sch.annotate(i, \"software_pipeline_async_stages\", [0, 2])\n");
    s
}
