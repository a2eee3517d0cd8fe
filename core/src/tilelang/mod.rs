//! TileLang in: a `@T.prim_func` kernel with `T.Kernel`, `T.alloc_shared` / `T.alloc_fragment`,
//! `T.clear`, `T.copy`, `T.gemm` and a `for k in T.Pipelined(extent, num_stages=…)` loop, read
//! into the loop language's tree (`read.rs`): each tile operation a nest of element loops over
//! the tile (`tiles.rs`), and the pipelined loop's stages, order and asynchronous stages either
//! as written (`order=`, `stage=`) or as TileLang's own planning pass gives them (`plan.rs`,
//! docs/tilelang.md). Every node keeps its span in the pasted text; what has no meaning here is
//! a located error naming the construct.

mod ops;
mod plan;
mod read;
mod schedule;
mod tiles;

pub use plan::{plan, Plan, Unit};

/// Whether `text` is TileLang: it imports `tilelang`, or its kernel launches with `T.Kernel` or
/// pipelines with `T.Pipelined` (TVMScript has neither; the loop language has no `T.`).
pub fn is_tilelang(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with("import tilelang")
            || line.starts_with("from tilelang")
            || line.contains("T.Pipelined(")
            || line.contains("T.Kernel(")
    })
}

pub(crate) use read::read;
