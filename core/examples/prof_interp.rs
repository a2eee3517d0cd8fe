//! Interprets a pipelined loop once: a fixed workload for profilers. RFC (a) over 10^5 iterations,
//! or with `chain` the 32-statement chain of `benches/interp.rs` (2·10^4 iterations).
//! `cargo run --release -p stagecraft-core --example prof_interp [-- chain]`

use stagecraft::workloads;

fn main() {
    let text = match std::env::args().nth(1).as_deref() {
        Some("chain") => workloads::synthetic_chain(32, 4, 20000, 1),
        _ => workloads::RFC_A_LONG.to_string(),
    };
    let options = stagecraft::explore::Options {
        verify: false,
        timeline: false,
        targets: Vec::new(),
        ..Default::default()
    };
    let ex = stagecraft::explore::explore(&text, &options);
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
