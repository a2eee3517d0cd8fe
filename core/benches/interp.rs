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

use stagecraft::workloads::{synthetic_chain, RFC_A_LONG};

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
    bench_program(bencher, &pipelined(&synthetic_chain(32, 4, 20000, 1)));
}
