//! `cargo bench -p stagecraft-core --bench machine`: the machine-level verifier executing each
//! preset's emitted kernel (examples/*.py) — parse the text, run every wave, compare every output
//! with the loop's (the loop's reference runs are built once, outside the timing). Budget: 10 ms
//! per preset for one target.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use stagecraft::emit::Target;
use stagecraft::machine::check_with;
use stagecraft::workloads::{machine_kernel, PRESETS};

/// See core/Cargo.toml: the native tools allocate with mimalloc.
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn main() {
    divan::main();
}

fn bench_target(bencher: divan::Bencher, preset: &str, target: Target) {
    let path = format!("{}/../examples/{preset}.py", env!("CARGO_MANIFEST_DIR"));
    let kernel = machine_kernel(&std::fs::read_to_string(path).unwrap(), target).unwrap();
    assert!(check_with(&kernel.contract, &kernel.text, target).is_correct());
    bencher.bench(|| check_with(&kernel.contract, divan::black_box(&kernel.text), target));
}

#[divan::bench(args = PRESETS)]
fn amdgpu(bencher: divan::Bencher, preset: &str) {
    bench_target(bencher, preset, Target::Amdgpu);
}

#[divan::bench(args = PRESETS)]
fn amdgpu_gfx950(bencher: divan::Bencher, preset: &str) {
    bench_target(bencher, preset, Target::AmdgpuGfx950);
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
