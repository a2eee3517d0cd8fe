//! Interprets the pipelined 32-statement chain of `benches/interp.rs` (4 stages, two async,
//! 2·10^4 iterations) once: a fixed workload for profilers.
//! `cargo run --release -p stagecraft-core --example prof_interp_chain`

fn chain(n: usize) -> String {
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

fn main() {
    let options = stagecraft::explore::Options {
        verify: false,
        timeline: false,
        targets: Vec::new(),
        ..Default::default()
    };
    let ex = stagecraft::explore::explore(&chain(32), &options);
    let Some(programs) = ex.programs else { return };
    let run_options = stagecraft::interp::RunOptions {
        max_instances: u64::MAX,
        ..Default::default()
    };
    let run = stagecraft::interp::run(&programs.rolled, &run_options);
    println!(
        "{} statement instances, {} races",
        run.instances,
        run.races.len()
    );
}

/// Like the command line and the benchmarks (core/Cargo.toml).
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;
