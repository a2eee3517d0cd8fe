//! `cargo bench -p stagecraft-core --bench machine`: the machine-level verifier executing each
//! preset's emitted kernel (examples/*.py) — parse the text, run every wave, compare every output
//! with the loop's (the loop's reference runs are built once, outside the timing). Budget: 10 ms
//! per preset for one target.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use stagecraft::emit::{emit, EmitOptions, Target};
use stagecraft::explore::{explore, Options};
use stagecraft::machine::{check_with, lanes_of, wave_of, Contract};

/// See core/Cargo.toml: the native tools allocate with mimalloc.
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn main() {
    divan::main();
}

const PRESETS: [&str; 7] = [
    "rfc_a_async_copy",
    "rfc_b_two_async_stages",
    "rfc_c_interleaved",
    "rfc_d_same_stage",
    "rfc_e_nested_gemm",
    "cutlass_multistage",
    "cdna4_interleaved",
];

fn kernel(preset: &str, target: Target) -> (Contract, String) {
    let path = format!("{}/../examples/{preset}.py", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(path).unwrap();
    let ex = explore(
        &source,
        &Options {
            verify: false,
            timeline: false,
            targets: Vec::new(),
            peeled_program: true,
            ..Options::default()
        },
    );
    let p = ex.programs.unwrap();
    let peeled = p.peeled.unwrap();
    let opts = EmitOptions::default();
    let code = emit(&peeled, &p.params, target, &opts);
    let contract = Contract::new(
        &p.original,
        &peeled,
        &p.params,
        lanes_of(target, &opts),
        wave_of(target),
    )
    .unwrap();
    (contract, code.text)
}

fn bench_target(bencher: divan::Bencher, preset: &str, target: Target) {
    let (contract, text) = kernel(preset, target);
    assert!(check_with(&contract, &text, target).is_correct());
    bencher.bench(|| check_with(&contract, divan::black_box(&text), target));
}

#[divan::bench(args = PRESETS)]
fn amdgpu(bencher: divan::Bencher, preset: &str) {
    bench_target(bencher, preset, Target::Amdgpu);
}

#[divan::bench(args = PRESETS)]
fn amdgpu_ir(bencher: divan::Bencher, preset: &str) {
    bench_target(bencher, preset, Target::AmdgpuIr);
}

#[divan::bench(args = PRESETS)]
fn ptx(bencher: divan::Bencher, preset: &str) {
    bench_target(bencher, preset, Target::Ptx);
}

#[divan::bench(args = PRESETS)]
fn ptx_sm90(bencher: divan::Bencher, preset: &str) {
    bench_target(bencher, preset, Target::PtxSm90);
}
