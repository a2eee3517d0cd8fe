//! TileLang, through its reader: no panic, every diagnostic inside the text. Any kernel read
//! without an error has a loop-language twin — the tree it reads to, printed — which parses back
//! to itself and pipelines exactly as the kernel does. An input starting with a byte below 0x20
//! is instead a GEMM the target builds from the bytes (tile sizes, extent, transposed B,
//! `num_stages` or written `order` / `stage`) together with its twin written independently, with
//! the schedule TileLang's planner gives a GEMM in closed form (docs/tilelang.md): the two
//! pipeline identically, or the kernel is refused where the twin's schedule puts the GEMM in the
//! copies' asynchronous stage.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft::explore::{transform, Options};
use stagecraft::tvmscript::{detect, Dialect};
use stagecraft_fuzz::{assert_located, assert_twin, errors, pipelined, read_dialect};

fn options() -> Options {
    Options {
        verify: false,
        timeline: false,
        targets: Vec::new(),
        ..Options::default()
    }
}

fuzz_target!(|data: &[u8]| {
    match data.first() {
        Some(&b) if b < 0x20 => built(data.get(1..).unwrap_or(&[])),
        _ => text(data),
    }
});

fn text(data: &[u8]) {
    let mut text = String::from_utf8_lossy(data).into_owned();
    if detect(&text) != Dialect::TileLang {
        text.insert_str(0, "import tilelang\n");
    }
    let file = read_dialect(&text, Dialect::TileLang, "the TileLang reader");
    let kernel = transform(&text, &options());
    assert_located(&kernel.diagnostics, &text, "the exploration");
    if let Some(file) = file {
        assert_twin(&file, &text, "kernel");
    }
}

/// The schedule a GEMM's loop is written with: planned from `num_stages`, or written lists.
enum Schedule {
    Planned(i64),
    Written { gemm_stage: i64, order: [i64; 3] },
}

const ORDERS: [[i64; 3]; 6] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];

fn built(bytes: &[u8]) {
    let at = |k: usize| i64::from(bytes.get(k).copied().unwrap_or(0));
    let (bm, bn, bk) = (1 + at(0) % 4, 1 + at(1) % 4, 1 + at(2) % 4);
    let tiles = 1 + at(3) % 6;
    let transpose_b = at(4) % 2 == 1;
    let schedule = if at(5) % 2 == 0 {
        Schedule::Planned(at(6) % 5)
    } else {
        Schedule::Written {
            gemm_stage: at(6) % 5,
            order: ORDERS.get((at(7) % 6) as usize).copied().unwrap_or([0, 1, 2]),
        }
    };
    let list = |v: &[i64]| {
        let items: Vec<String> = v.iter().map(i64::to_string).collect();
        format!("[{}]", items.join(", "))
    };
    let pipelined_args = match &schedule {
        Schedule::Planned(n) => format!("num_stages={n}"),
        Schedule::Written { gemm_stage, order } => {
            format!("order={}, stage={}", list(order), list(&[0, 0, *gemm_stage]))
        }
    };
    let (b_shape, b_copy, b_read) = if transpose_b {
        ("(block_N, block_K)", "B[bx * block_N, k * block_K]", "B_shared[j, l]")
    } else {
        ("(block_K, block_N)", "B[k * block_K, bx * block_N]", "B_shared[l, j]")
    };
    let kernel = format!(
        "import tilelang.language as T\n\nblock_M = {bm}\nblock_N = {bn}\nblock_K = {bk}\n\n\
@T.prim_func\ndef main(A: T.Tensor((block_M, {k}), \"float16\"), B: T.Tensor((64, 64), \"float16\"), C: T.Tensor((block_M, block_N), \"float32\")):\n    \
with T.Kernel(1, 1, threads=32) as (bx, by):\n        \
A_shared = T.alloc_shared((block_M, block_K), \"float16\")\n        \
B_shared = T.alloc_shared({b_shape}, \"float16\")\n        \
C_local = T.alloc_fragment((block_M, block_N), \"float\")\n        \
T.clear(C_local)\n        \
for k in T.Pipelined({tiles}, {pipelined_args}):\n            \
T.copy(A[by * block_M, k * block_K], A_shared)\n            \
T.copy({b_copy}, B_shared)\n            \
T.gemm(A_shared, B_shared, C_local, transpose_B={transpose})\n        \
T.copy(C_local, C[by * block_M, bx * block_N])\n",
        k = tiles * bk,
        transpose = if transpose_b { "True" } else { "False" },
    );
    let (b_rows, b_cols) = if transpose_b { (bn, bk) } else { (bk, bn) };
    let b_element = if transpose_b { format!("B[i, k * {bk} + j]") } else { format!("B[k * {bk} + i, j]") };
    let mut twin = format!(
        "A_shared = alloc([{bm}, {bk}], scope=\"shared\", dtype=\"float16\")\n\
B_shared = alloc([{b_rows}, {b_cols}], scope=\"shared\", dtype=\"float16\")\n\
C_local = alloc([{bm}, {bn}], scope=\"local\", dtype=\"float32\")\n\
for k in range({tiles}):\n    \
for i in range({bm}):\n        for j in range({bk}):\n            A_shared[i, j] = A[i, k * {bk} + j]\n    \
for i in range({b_rows}):\n        for j in range({b_cols}):\n            B_shared[i, j] = {b_element}\n    \
for i in range({bm}):\n        for j in range({bn}):\n            for l in range({bk}):\n                \
C_local[i, j] = C_local[i, j] + A_shared[i, l] * {b_read}\n\n"
    );
    // TileLang's planner on `copy, copy, gemm` (docs/tilelang.md): the copies in stage 0 and
    // asynchronous, the GEMM in stage num_stages − 1 (num_stages − 0 below 2, the copies then
    // ordered after it); 0 stages is no pipeline.
    let (stages, order) = match schedule {
        Schedule::Planned(0) => (None, [0, 1, 2]),
        Schedule::Planned(1) => (Some([0, 0, 1]), [1, 2, 0]),
        Schedule::Planned(n) => (Some([0, 0, n - 1]), [0, 1, 2]),
        Schedule::Written { gemm_stage, order } => (Some([0, 0, gemm_stage]), order),
    };
    if let Some(stages) = stages {
        twin.push_str(&format!(
            "sch.annotate(k, \"software_pipeline_stage\", {})\nsch.annotate(k, \"software_pipeline_order\", {})\nsch.annotate(k, \"software_pipeline_async_stages\", [0])\n",
            list(&stages),
            list(&order)
        ));
    }
    let a = transform(&kernel, &options());
    assert_eq!(a.dialect, Dialect::TileLang);
    assert_located(&a.diagnostics, &kernel, "the built kernel");
    if stages.is_some_and(|s| s[2] == 0) {
        assert!(errors(&a) > 0, "the GEMM in the copies' async stage is not refused:\n{kernel}");
        return;
    }
    let b = transform(&twin, &options());
    assert_eq!(a.ok, b.ok, "the kernel\n{kernel}\nand its twin\n{twin}\nare accepted differently: {:?} / {:?}", a.diagnostics, b.diagnostics);
    assert_eq!(pipelined(&a), pipelined(&b), "the kernel\n{kernel}\nand its twin\n{twin}\npipeline differently");
    assert_eq!(errors(&a), errors(&b), "the kernel\n{kernel}\nand its twin\n{twin}\nhave different errors: {:?} / {:?}", a.diagnostics, b.diagnostics);
}
