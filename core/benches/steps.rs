//! `cargo bench -p stagecraft-core --bench steps`: the step-through of every example, under both
//! completion models (budget 5 ms each natively), and one `view` — the state the picture draws at
//! a position — at the far end of a trace at the step limit (`MAX_STEP_EVENTS`), the replay from
//! the nearest checkpoint included.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use stagecraft::explore::{self, explore, Exploration, Options};
use stagecraft::steps::{CompletionModel, StepOptions};

/// See core/Cargo.toml: the native tools allocate with mimalloc.
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn main() {
    divan::main();
}

const EXAMPLES: [&str; 7] = [
    "rfc_a_async_copy.py",
    "rfc_b_two_async_stages.py",
    "rfc_c_interleaved.py",
    "rfc_d_same_stage.py",
    "rfc_e_nested_gemm.py",
    "cutlass_multistage.py",
    "cdna4_interleaved.py",
];

fn explored(name: &str) -> Exploration {
    let path = format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    explore(
        &text,
        &Options {
            targets: Vec::new(),
            defer_runs: true,
            ..Options::default()
        },
    )
}

#[divan::bench(args = EXAMPLES)]
fn latest(bencher: divan::Bencher, name: &str) {
    let ex = explored(name);
    bencher.bench(|| explore::step_through(&ex, &StepOptions::default()));
}

#[divan::bench(args = EXAMPLES)]
fn as_timed(bencher: divan::Bencher, name: &str) {
    let ex = explored(name);
    let options = StepOptions {
        model: CompletionModel::AsTimed,
        ..StepOptions::default()
    };
    bencher.bench(|| explore::step_through(&ex, &options));
}

const LONG: &str = "B = alloc([4, 1])
for i in range(20000):
    B[i % 4, 0] = A[i] + 1
    C[i] = B[i % 4, 0] + 1
sch.annotate(i, \"software_pipeline_stage\", [0, 3])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

#[divan::bench]
fn trace_at_the_step_limit(bencher: divan::Bencher) {
    let ex = explore(
        LONG,
        &Options {
            targets: Vec::new(),
            defer_runs: true,
            ..Options::default()
        },
    );
    bencher.bench(|| explore::step_through(&ex, &StepOptions::default()));
}

#[divan::bench]
fn view_at_the_last_step(bencher: divan::Bencher) {
    let ex = explore(
        LONG,
        &Options {
            targets: Vec::new(),
            defer_runs: true,
            ..Options::default()
        },
    );
    let steps = explore::step_through(&ex, &StepOptions::default());
    let last = steps.steps.len() - 1;
    bencher.bench(|| steps.view(last));
}
