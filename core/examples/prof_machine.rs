//! A fixed workload for profilers: the machine-level verifier executing one preset's kernel many
//! times. `cargo build --profile bench -p stagecraft-core --example prof_machine`, then
//! `perf record target/bench/examples/prof_machine [PRESET] [amdgpu|amdgpu-gfx950|amdgpu-ir|ptx|ptx-sm90] [RUNS]`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use stagecraft::emit::Target;
use stagecraft::machine::check_with;
use stagecraft::workloads::machine_kernel;

#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let preset = args.first().map_or("cutlass_multistage", String::as_str);
    let target = Target::parse(args.get(1).map_or("amdgpu", String::as_str)).unwrap();
    let runs: usize = args.get(2).map_or(20, |r| r.parse().unwrap());
    let path = format!("{}/../examples/{preset}.py", env!("CARGO_MANIFEST_DIR"));
    let kernel = machine_kernel(&std::fs::read_to_string(path).unwrap(), target).unwrap();
    let start = std::time::Instant::now();
    let mut last = None;
    for _ in 0..runs {
        last = Some(check_with(
            &kernel.contract,
            std::hint::black_box(&kernel.text),
            target,
        ));
    }
    println!(
        "{preset} {}: {:.2} ms per run; {}",
        target.name(),
        start.elapsed().as_secs_f64() * 1e3 / runs as f64,
        last.unwrap().summary
    );
}
