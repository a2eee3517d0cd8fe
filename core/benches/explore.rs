//! `cargo bench -p stagecraft-core --bench explore`: parse + transform + waits (the `explore` entry
//! point) on every example and on synthetic async loops. Budgets (issue 2): RFC (a) ≤ 5 µs,
//! 128 statements / 8 stages ≤ 4 ms.

#![allow(clippy::indexing_slicing, clippy::unwrap_used)]

use stagecraft::explore::{explore, transform, Options};

/// See core/Cargo.toml: the native tools allocate with mimalloc.
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn main() {
    divan::main();
}

/// The synthetic async loop of `n` + 1 statements over `stages` stages (scripts/compare-tvm.py builds
/// the same one for TVM).
fn synthetic(n: usize, stages: usize) -> String {
    stagecraft::workloads::synthetic_chain(n, stages, 64, 4)
}

const EXAMPLES: &[(&str, &str)] = &[
    ("rfc_a", include_str!("../../examples/rfc_a_async_copy.py")),
    (
        "rfc_b",
        include_str!("../../examples/rfc_b_two_async_stages.py"),
    ),
    ("rfc_c", include_str!("../../examples/rfc_c_interleaved.py")),
    ("rfc_d", include_str!("../../examples/rfc_d_same_stage.py")),
    ("rfc_e", include_str!("../../examples/rfc_e_nested_gemm.py")),
];

/// Parse + transform + waits (the figure compared with TVM's InjectSoftwarePipeline).
#[divan::bench(args = ["rfc_a", "rfc_b", "rfc_c", "rfc_d", "rfc_e"])]
fn transform_example(bencher: divan::Bencher, name: &str) {
    let text = EXAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, t)| t);
    let options = Options::default();
    // The result is dropped inside the timed call, as `stagecraft time` and TVM's timing (which
    // frees each output at once) do: divan otherwise keeps 100 results alive per sample, and the
    // figure measures their cache misses rather than the transform.
    bencher.bench(|| transform(divan::black_box(text), &options).ok);
}

#[divan::bench(args = [32, 128])]
fn transform_synthetic(bencher: divan::Bencher, n: usize) {
    let text = synthetic(n, 8);
    let options = Options::default();
    assert!(
        transform(&text, &options).ok,
        "the synthetic loop must be a valid schedule"
    );
    bencher.bench(|| transform(divan::black_box(&text), &options).ok);
}

/// The whole exploration (both forms printed, iteration space, display data).
#[divan::bench(args = ["rfc_a", "rfc_b", "rfc_c", "rfc_d", "rfc_e"])]
fn example(bencher: divan::Bencher, name: &str) {
    let text = EXAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, t)| t);
    let options = Options::default();
    bencher.bench(|| explore(divan::black_box(text), &options));
}

/// What the app computes per keystroke: everything but only the code target on screen (PTX here).
#[divan::bench(args = ["rfc_a", "rfc_b", "rfc_c", "rfc_d", "rfc_e"])]
fn app_example(bencher: divan::Bencher, name: &str) {
    let text = EXAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, t)| t);
    let options = Options {
        targets: vec![stagecraft::emit::Target::Ptx],
        ..Options::default()
    };
    bencher.bench(|| explore(divan::black_box(text), &options));
}

#[divan::bench(args = [32, 128])]
fn app_synthetic(bencher: divan::Bencher, n: usize) {
    let text = synthetic(n, 8);
    let options = Options {
        targets: vec![stagecraft::emit::Target::Ptx],
        ..Options::default()
    };
    bencher.bench(|| explore(divan::black_box(&text), &options));
}

#[divan::bench(args = [32, 128])]
fn synthetic_async_loop(bencher: divan::Bencher, n: usize) {
    let text = synthetic(n, 8);
    let options = Options::default();
    assert!(
        explore(&text, &options).ok,
        "the synthetic loop must be a valid schedule"
    );
    bencher.bench(|| explore(divan::black_box(&text), &options));
}

#[divan::bench]
fn rfc_a_parse_only(bencher: divan::Bencher) {
    let text = EXAMPLES[0].1;
    bencher.bench(|| stagecraft::parser::parse(divan::black_box(text)));
}

/// TVMScript in: the CUTLASS preset as a PrimFunc (tests/tvmscript/cutlass_multistage.py), read
/// into the loop language's tree — the budget is 1 ms; and its twin by the loop parser.
#[divan::bench(args = ["tvmscript", "stagecraft"])]
fn cutlass_parse_only(bencher: divan::Bencher, dialect: &str) {
    let source = if dialect == "tvmscript" {
        include_str!("../../tests/tvmscript/cutlass_multistage.py")
    } else {
        include_str!("../../tests/tvmscript/twins/cutlass_multistage.py")
    };
    bencher.bench(|| stagecraft::tvmscript::parse(divan::black_box(source)));
}

#[divan::bench]
fn rfc_a_lex_only(bencher: divan::Bencher) {
    let text = EXAMPLES[0].1;
    bencher.bench(|| stagecraft::lexer::lex(divan::black_box(text)).tokens.len());
}

/// Every emitter on the nested GEMM (the largest example), from the peeled program.
#[divan::bench(args = ["ptx", "ptx-sm90", "amdgpu", "amdgpu-gfx950", "amdgpu-ir"])]
fn emit_gemm(bencher: divan::Bencher, target: &str) {
    let ex = explore(
        EXAMPLES[4].1,
        &Options {
            verify: false,
            timeline: false,
            targets: Vec::new(),
            ..Options::default()
        },
    );
    let programs = ex.programs.unwrap();
    let peeled = programs.peeled.as_ref().unwrap();
    let t = stagecraft::emit::Target::parse(target).unwrap();
    let opts = stagecraft::emit::EmitOptions::default();
    bencher.bench(|| stagecraft::emit::emit(peeled, &programs.params, t, &opts));
}
