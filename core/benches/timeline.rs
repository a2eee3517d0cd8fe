//! `cargo bench -p stagecraft-core --bench timeline`: simulating a 4-statement async loop of 10^5
//! iterations as exploring does — metrics up to the instance limit (`MAX_TIMELINE_INSTANCES`,
//! 12 500 steps here), spans for a 64-step window — within one frame (16 ms).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use stagecraft::cost::CostModel;
use stagecraft::explore::{explore, Options};
use stagecraft::timeline::simulate;

/// See core/Cargo.toml: the native tools allocate with mimalloc.
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn main() {
    divan::main();
}

const LOOP: &str = "A_sh = alloc([1])
B_sh = alloc([1])
for i in range(100000):
    A_sh[0] = A[i]
    B_sh[0] = B[i]
    T[i] = A_sh[0] * B_sh[0]
    C[i] = T[i] + 1
sch.annotate(i, \"software_pipeline_stage\", [0, 0, 2, 3])
sch.annotate(i, \"software_pipeline_order\", [0, 1, 2, 3])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

#[divan::bench]
fn simulate_to_the_instance_limit(bencher: divan::Bencher) {
    let ex = explore(
        LOOP,
        &Options {
            verify: false,
            timeline: false,
            ..Options::default()
        },
    );
    let programs = ex.programs.unwrap();
    let model = CostModel::default();
    bencher.bench(|| {
        simulate(
            &programs.original,
            &programs.rolled,
            &model,
            &programs.params,
            (0, 64),
        )
    });
}
