//! The schedule search on every example, natively: the best schedule found against the
//! example's own (cycles, speedup, shared bytes) and how long the search took, the fastest of
//! three runs (docs/benchmarks.md, "Schedule search"):
//!
//!     cargo run --release -p stagecraft-core --example search_bench
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    println!("| example | units | strategy | tried | search | own: cycles, speedup, smem | best: cycles, speedup, smem | best II vs bound |");
    println!("|---|---|---|---|---|---|---|---|");
    for path in files {
        let source = std::fs::read_to_string(&path).unwrap_or_default();
        let mut fastest = f64::INFINITY;
        let mut report = None;
        for _ in 0..3 {
            let t = Instant::now();
            let Ok(mut search) = stagecraft::search::Search::new(&source, &Default::default())
            else {
                break;
            };
            search.run();
            fastest = fastest.min(t.elapsed().as_secs_f64());
            report = Some(search.report());
        }
        let Some(r) = report else { continue };
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into());
        let show = |s: Option<&stagecraft::search::Scored>| {
            s.map_or_else(
                || "—".to_string(),
                |s| format!("{}, {:.2}×, {} B", s.total_cycles, s.speedup, s.smem_bytes),
            )
        };
        let best = r.front.first();
        let ratio = best
            .and_then(|b| b.bound_ratio)
            .map_or_else(|| "—".to_string(), |x| format!("{x:.2}×"));
        println!(
            "| {name} | {} | {:?} | {} | {:.0} ms | {} | {} | {ratio} |",
            r.units.len(),
            r.strategy,
            r.tried,
            fastest * 1e3,
            show(r.own.as_ref()),
            show(best),
        );
    }
}
