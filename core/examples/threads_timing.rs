//! Loops run by several threads, timed natively: the interpreter across threads
//! (`check_threads`: the loop and its pipelined program, every thread run or the idle ones
//! sampled), the Check view's whole verification of the derived program and of a pipelined
//! program from a file (`explore::check_pipelined`, which runs the one-thread verifier and the
//! threads), and the machine-level verifier on the sm_80 and gfx950 kernels, on one preset.
//! `cargo run --release -p stagecraft-core --example threads_timing [PRESET] [RUNS] [PIPELINED]`;
//! prints the median of RUNS runs of each (docs/benchmarks.md, "Threads").

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use stagecraft::emit::Target;
use stagecraft::explore::{explore, Options};
use stagecraft::interp::{check_threads, ThreadOptions};
use stagecraft::machine::check_with;
use stagecraft::workloads::machine_kernel;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn median_ms(runs: usize, mut f: impl FnMut() -> String) -> (f64, String) {
    let mut times = Vec::with_capacity(runs);
    let mut last = String::new();
    for _ in 0..runs {
        let start = Instant::now();
        last = f();
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], last)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let preset = args.first().map_or("cutlass_multistage", String::as_str);
    let runs: usize = args.get(1).map_or(11, |r| r.parse().unwrap());
    let path = format!("{}/../examples/{preset}.py", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let ex = explore(
        &text,
        &Options {
            targets: Vec::new(),
            timeline: false,
            verify: false,
            ..Options::default()
        },
    );
    let programs = ex.programs.expect("a valid schedule");
    for sample in [false, true] {
        let opts = ThreadOptions {
            sample_symmetric: sample,
            ..ThreadOptions::default()
        };
        let (ms, what) = median_ms(runs, || {
            let c = check_threads(&programs.original, &programs.rolled, &opts);
            format!(
                "{} agents run, {} instances, clean: {}",
                c.run.agents.len(),
                c.run.instances,
                c.is_clean()
            )
        });
        println!(
            "interpreter across threads ({}): {ms:.2} ms ({what})",
            if sample {
                "idle threads sampled"
            } else {
                "every thread"
            }
        );
    }
    let derived = explore(
        &text,
        &Options {
            targets: Vec::new(),
            timeline: false,
            verify: false,
            form: stagecraft::pipelined::Form::Peeled,
            ..Options::default()
        },
    )
    .peeled
    .expect("a peeled program")
    .text;
    let pasted = args
        .get(2)
        .map(|p| (p.clone(), std::fs::read_to_string(p).unwrap()));
    for (name, pipelined) in [("the derived program".to_string(), derived)]
        .into_iter()
        .chain(pasted)
    {
        let params = Default::default();
        let (ms, what) = median_ms(runs, || {
            let c = stagecraft::explore::check_pipelined(&text, &pipelined, &params);
            c.verification.map(|v| v.summary).unwrap_or_default()
        });
        println!("check view, {name}: {ms:.2} ms ({what})");
    }
    for (target, name) in [(Target::Ptx, "sm_80"), (Target::AmdgpuGfx950, "gfx950")] {
        let kernel = machine_kernel(&text, target).unwrap();
        let (ms, what) = median_ms(runs, || {
            check_with(&kernel.contract, std::hint::black_box(&kernel.text), target).summary
        });
        println!(
            "machine verifier, {name} kernel, {} threads: {ms:.2} ms ({what})",
            kernel.contract.lanes
        );
    }
}
