//! Interprets the pipelined RFC (a) loop over 10^5 iterations once: a fixed workload for profilers.
//! `cargo run --release -p stagecraft-core --example prof_interp`

fn main() {
    let text = "B = alloc([1])\nfor i in range(100000):\n    B[0] = A[i] + 1\n    C[i] = B[0] + 1\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n";
    let options = stagecraft::explore::Options {
        verify: false,
        timeline: false,
        targets: Vec::new(),
        ..Default::default()
    };
    let ex = stagecraft::explore::explore(text, &options);
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
