//! Every input limit in one place (documented in docs/limits.md). Beyond a limit the work is refused
//! with a plain message instead of being attempted, so that every answer comes in bounded time.

/// Source text size.
pub const MAX_SOURCE_BYTES: usize = 64 * 1024;
/// Source text lines (newlines + 1). A browser lays a textarea's text out whole, so a text of many
/// short lines stalls the editor however little Stagecraft does with it.
pub const MAX_SOURCE_LINES: usize = 4096;

/// Why Stagecraft does not read `text`, if it is beyond `MAX_SOURCE_BYTES` or `MAX_SOURCE_LINES`.
/// The app asks before a paste lands in the editor; the parser, of any text.
pub fn source_beyond_limits(text: &str) -> Option<String> {
    if text.len() > MAX_SOURCE_BYTES {
        return Some(format!(
            "the text is {} bytes; Stagecraft reads at most {MAX_SOURCE_BYTES} bytes",
            text.len()
        ));
    }
    // A text shorter than the line limit is within it: the usual short texts are not counted,
    // which would cost on every byte (docs/benchmarks.md).
    if text.len() < MAX_SOURCE_LINES {
        return None;
    }
    let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
    (lines > MAX_SOURCE_LINES).then(|| {
        format!("the text has {lines} lines; Stagecraft reads at most {MAX_SOURCE_LINES} lines")
    })
}
/// Blocks and expressions nest at most this deep (protects the recursive parser's stack).
pub const MAX_NESTING: usize = 32;
/// Binary operators in one statement. A chain of them is a tree as deep as it is long, and every
/// phase walks trees recursively (dropping the tree too): at this limit every phase runs within a
/// 1 MiB stack, about what a browser gives WebAssembly (core/tests/limits.rs).
pub const MAX_OPERATORS: usize = 1024;
/// Statements (assignments) in one program.
pub const MAX_STATEMENTS: usize = 160;
/// Largest stage number.
pub const MAX_STAGE: i64 = 64;
/// Stages the schedule search may use (`stagecraft search --max-stages`): its space grows as
/// `stages^units`.
pub const MAX_STAGES_SEARCHED: i64 = 8;
/// Constant extents above this are refused (they would only be simulated partially anyway).
pub const MAX_EXTENT: i64 = 1 << 30;
/// Iterations of an inner loop the emitters unroll.
pub const MAX_UNROLLED_INNER: i64 = 4096;
/// Statement instances in one emitted kernel (inner loops unrolled, prologue and epilogue written out).
pub const MAX_EMITTED_INSTANCES: usize = 4096;
/// Statement instances the interpreter executes per program before it stops and says so.
pub const MAX_INTERPRETED_INSTANCES: u64 = 100_000;
/// Loop iterations the interpreter and the timeline step through per run, statements run or not:
/// a huge loop whose body runs nothing (an inner loop of extent 0, a guard never true) never
/// meets their instance limits.
pub const MAX_LOOP_ITERATIONS: u64 = 10 * MAX_INTERPRETED_INSTANCES;
/// Steps through producers' iterations when a constant extent's needs are decided iteration by
/// iteration (`sync/exact.rs`), over all the needs of one loop: beyond it a need keeps the
/// dependence analysis' distance.
pub const MAX_NEED_STEPS: usize = 1 << 20;
/// Statement instances across threads (summed over the waves that run them) before a run across
/// threads stops (`interp::run_threads`).
pub const MAX_THREAD_INSTANCES: u64 = 4_000_000;
/// Waits are judged (re-runs with raised counts) only when one run takes at most this many instances.
pub const MAX_JUDGED_INSTANCES: u64 = 20_000;
/// Statement instances all judging re-runs of one verification may execute together.
pub const MAX_JUDGE_INSTANCES: u64 = 40_000;
/// Wave-instructions the machine-level verifier executes in one kernel before it stops and says
/// so (a wave executing one instruction for all its threads counts once).
pub const MAX_MACHINE_INSTRUCTIONS: u64 = 2_000_000;
/// Steps (statement instances, commits, waits, completions) the step-through keeps of one run;
/// beyond it the trace ends with a note (docs/interpreter.md, "Step-through").
pub const MAX_STEP_EVENTS: usize = 20_000;
/// Elements in one buffer.
pub const MAX_BUFFER_ELEMENTS: i64 = 1 << 20;
/// Default concrete value of a symbolic extent for interpretation and simulation.
pub const DEFAULT_SYMBOLIC_EXTENT: i64 = 16;
/// Steps the timeline simulates in one window.
pub const MAX_TIMELINE_STEPS: i64 = 200_000;
/// Statement instances the timeline simulates in one run: a loop of many statements simulates
/// fewer steps, so that a large loop's timeline stays cheap.
pub const MAX_TIMELINE_INSTANCES: i64 = 50_000;
/// Statement instances of one step after which the timeline stops within it: the limits above
/// stop a run between steps, and a step with a loop of an enormous extent nested in it, iterated
/// for the chart instance by instance, would otherwise record past any memory.
pub const MAX_TIMELINE_STEP_INSTANCES: i64 = 2 * MAX_TIMELINE_INSTANCES;
/// Commits and waits of the single sequence of sm_80 and asyncmarks that the timeline works out
/// what its waits force from: the translation looks back along the sequence from every wait, so
/// its cost grows faster than the sequence (the presets' sequences are far shorter).
pub const MAX_SEQUENCE_EVENTS: usize = 1000;
/// Bars (statement spans, stalls and group markers) the timeline returns for its chart: the
/// window ends at the step where this many are drawn, as the browser's cost of writing, styling
/// and laying out the chart grows with its bars.
pub const MAX_TIMELINE_BARS: usize = 2000;
/// Problems listed for one text, the first in the text; one more says how many were left out. A
/// text of 64 KiB can hold 65 000 of them (a stray character on every line), and the app
/// underlines and lists each.
pub const MAX_DIAGNOSTICS: usize = 100;
/// Problems the lexer, and the parser, each keep; past it they count them without writing them.
/// Twice `MAX_DIAGNOSTICS`, so that the first `MAX_DIAGNOSTICS` of the text are among those kept.
pub const PHASE_DIAGNOSTICS: usize = 2 * MAX_DIAGNOSTICS;
/// URL hash size accepted by the app.
pub const MAX_URL_HASH_BYTES: usize = 64 * 1024;
