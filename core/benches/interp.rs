//! `cargo bench -p stagecraft-core --bench interp`: statement instances per second of the interpreter
//! (budget ≥ 10 M/s) on pipelined programs with async groups, waits and race bookkeeping.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use stagecraft::explore::{explore, Options};
use stagecraft::interp::{run, RunOptions};
use stagecraft::ir::Program;

/// See core/Cargo.toml: the native tools allocate with mimalloc.
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn main() {
    divan::main();
}

fn pipelined(text: &str) -> Program {
    let ex = explore(
        text,
        &Options {
            verify: false,
            ..Options::default()
        },
    );
    assert!(ex.ok, "{:?}", ex.diagnostics);
    ex.programs.unwrap().rolled
}

const RFC_A_LONG: &str = "B = alloc([1])
for i in range(100000):
    B[0] = A[i] + 1
    C[i] = B[0] + 1
sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

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

fn bench_program(bencher: divan::Bencher, program: &Program) {
    let opts = RunOptions {
        max_instances: u64::MAX,
        ..RunOptions::default()
    };
    let instances = run(program, &opts).instances;
    assert!(run(program, &opts).races.is_empty());
    bencher
        .counter(divan::counter::ItemsCount::new(instances))
        .bench(|| run(divan::black_box(program), &opts));
}

/// RFC (a) with 10^5 iterations: 2·10^5 statement instances.
#[divan::bench]
fn rfc_a_100k(bencher: divan::Bencher) {
    bench_program(bencher, &pipelined(RFC_A_LONG));
}

/// A 32-statement chain over 4 stages, two of them async, 2·10^4 iterations.
#[divan::bench]
fn chain_32(bencher: divan::Bencher) {
    bench_program(bencher, &pipelined(&chain(32)));
}
