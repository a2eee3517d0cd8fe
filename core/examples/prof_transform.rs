//! Runs `transform` on a file N times: a fixed workload for profilers (callgrind, perf).
//! PHASE=parse|lower limits the work to those phases; PHASE=explore runs everything instead;
//! TARGETS=ptx,... chooses the emitted targets (TARGETS= none, as the app's program pane);
//! BOTH_FORMS=0 prints only the rolled form; DEFER_RUNS=1 runs neither the verification nor the
//! timeline (the app runs them later).
//! `cargo run --release -p stagecraft-core --example prof_transform -- FILE [N]`

fn main() {
    let text =
        std::fs::read_to_string(std::env::args().nth(1).unwrap_or_default()).unwrap_or_default();
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let mut options = stagecraft::explore::Options::default();
    // TARGETS=ptx,amdgpu limits the emitted targets (the app asks for the one it shows).
    if let Ok(list) = std::env::var("TARGETS") {
        options.targets = list
            .split(',')
            .filter_map(stagecraft::emit::Target::parse)
            .collect();
    }
    // BOTH_FORMS=0 prints only the form the app shows, as the app asks.
    if std::env::var("BOTH_FORMS").is_ok_and(|v| v == "0") {
        options.both_forms = false;
    }
    // DEFER_RUNS=1 leaves the verification and the timeline out, as the app's exploration does.
    if std::env::var("DEFER_RUNS").is_ok_and(|v| v == "1") {
        options.defer_runs = true;
    }
    let mut ok = 0;
    let phase = std::env::var("PHASE").unwrap_or_default();
    for _ in 0..n {
        ok += match phase.as_str() {
            "parse" => usize::from(
                stagecraft::parser::parse(std::hint::black_box(&text))
                    .diagnostics
                    .is_empty(),
            ),
            "explore" => {
                usize::from(stagecraft::explore::explore(std::hint::black_box(&text), &options).ok)
            }
            "lower" => {
                let parsed = stagecraft::parser::parse(std::hint::black_box(&text));
                usize::from(
                    stagecraft::lower::lower(&parsed.file)
                        .diagnostics
                        .is_empty(),
                )
            }
            _ => usize::from(
                stagecraft::explore::transform(std::hint::black_box(&text), &options).ok,
            ),
        };
    }
    println!("{ok} of {n} runs produced a program");
}

/// Like the command line and the benchmarks (core/Cargo.toml).
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;
