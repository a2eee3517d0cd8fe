//! `stagecraft` — the command-line face of the engine.
//!
//!     stagecraft explore FILE [--form rolled|peeled] [--emit tir|json]
//!
//! FILE may be `-` for standard input. Invalid input exits non-zero with located diagnostics on stderr.

use stagecraft::emit::Target;
use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::pipelined::Form;
use std::io::{Read, Write};

/// Prints to stdout, ignoring a closed pipe (`stagecraft ... | head` must not panic).
macro_rules! outln {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

macro_rules! out {
    ($($t:tt)*) => {{
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}
use std::process::ExitCode;

/// See core/Cargo.toml: the native tools allocate with mimalloc.
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

const USAGE: &str = "usage:
  stagecraft explore FILE [--form rolled|peeled] [--emit tir|tir-tokens|tvmscript|json|ptx|ptx-sm90|amdgpu|amdgpu-gfx950|amdgpu-ir] [--param NAME=VALUE]...
      (tir-tokens: the program with each commit group a token, async_start / async_done)
  stagecraft explore FILE --as tvm-0.27 [--emit tir|tir-tokens|json]
      (the program TVM 0.27's InjectSoftwarePipeline produces, reproduced; exit 1 when TVM refuses)
  stagecraft check LOOP [--pipelined FILE] [--form rolled|peeled] [--emit json]
  stagecraft check LOOP --as tvm-0.27 [--emit json]
      (FILE may be written with counts or with tokens; --as checks TVM's program)
      (run the loop and the pipelined program: the derived one, or FILE)
  stagecraft check LOOP --emit TARGET [--pipelined FILE] [--param NAME=VALUE]...
      (check the pipelined program strictly for TARGET — every wait count one immediate — then
      emit its kernel and execute the kernel's text)
  exit codes of check: 0 equivalent (or safe but loose; with --emit: the kernel computes what the
      loop computes, with no race); 3 invalid (something no hardware runs as written: a negative
      or non-immediate count, an async write outside a commit scope, a wait inside its own
      group, groups never awaited), racy or different; 1 nothing to check (the loop or program
      has errors, nothing could be emitted or executed); 2 a usage error
  stagecraft timeline FILE [--svg OUT] [--form rolled|peeled] [--param NAME=VALUE]...
      (the cost model's metrics — total and unpipelined cycles, speedups, steady cycles per
      iteration, stall cycles, ring bytes — and a text Gantt of the steps drawn; --svg writes the
      chart the Timeline pane exports)
  stagecraft search FILE [--max-stages S] [--smem-bytes B | --target TARGET] [--json] [--apply K]
      (the schedules of the loop that are fastest for their shared memory, within B bytes — by
      default TARGET's limit, sm_80's 48 KB — each proven by the interpreter, against the loop's
      lower bound; --apply K prints FILE with the K-th schedule's annotations in place)
  stagecraft time FILE      (time of parse + transform + waits: the fastest of ten batches of
      STAGECRAFT_TIME_REPS / 10 runs)
  stagecraft workload heavy N STAGES [EXTENT]
  stagecraft workload synthetic N [STAGES [EXTENT [SLOTS]]]
      (print a generated loop of N + 1 statements: docs/limits.md's heavy chains, the benchmarks'
      synthetic chains)
  stagecraft workload random SEED
  stagecraft workload copies SEED
  stagecraft workload same-element SEED
  stagecraft workload nested SEED
      (print the property tests' random loop number SEED: any index form, async copies, an
      async stage writing an element twice, or a nested pipeline whose inner prologue runs in an
      earlier outer stage)
  stagecraft requests       (the page's requests to the worker, one JSON object a line on
      standard input, as the bytes the page posts — each after its length, two bytes
      little-endian: the request fuzz target's input, docs/fuzzing.md)
FILE may be `-` to read standard input.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("stagecraft: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn read_source(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
    }
}

struct Args {
    file: String,
    form: Form,
    emit: Emit,
    options: Options,
    /// `--as tvm-0.27`: TVM's program instead of Stagecraft's.
    as_tvm: bool,
}

/// What `--emit` prints.
#[derive(Clone, Copy, PartialEq)]
enum Emit {
    Tir,
    /// The printed program in token form (`stagecraft::tokens`).
    TirTokens,
    /// The annotated loop as a TVMScript PrimFunc (`Exploration::tvmscript`).
    TvmScript,
    Json,
    Code(Target),
}

impl Emit {
    fn parse(s: &str) -> Result<Emit, String> {
        match s {
            "tir" => Ok(Emit::Tir),
            "tir-tokens" => Ok(Emit::TirTokens),
            "tvmscript" => Ok(Emit::TvmScript),
            "json" => Ok(Emit::Json),
            other => Target::parse(other).map(Emit::Code).ok_or_else(|| {
                let targets: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
                format!(
                    "--emit takes tir, tir-tokens, tvmscript, json or a code target ({}), not {other}",
                    targets.join(", ")
                )
            }),
        }
    }
}

fn parse_args(rest: &[String]) -> Result<Args, String> {
    let mut file = None;
    let mut form = Form::Rolled;
    let mut emit = Emit::Tir;
    let mut options = Options::default();
    let mut as_tvm = false;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--as" => match it.next().map(String::as_str) {
                Some("tvm-0.27") => as_tvm = true,
                other => {
                    return Err(format!(
                        "--as takes tvm-0.27 (the TVM release whose pass is reproduced), not {}",
                        other.unwrap_or("nothing")
                    ))
                }
            },
            "--form" => {
                form = match it.next().map(String::as_str) {
                    Some("rolled") => Form::Rolled,
                    Some("peeled") => Form::Peeled,
                    other => {
                        return Err(format!(
                            "--form takes rolled or peeled, not {}",
                            other.unwrap_or("nothing")
                        ))
                    }
                }
            }
            "--emit" => emit = Emit::parse(it.next().ok_or("--emit needs a value")?)?,
            "--param" => {
                let kv = it.next().ok_or("--param needs NAME=VALUE")?;
                let (k, v) = kv.split_once('=').ok_or("--param needs NAME=VALUE")?;
                let v: i64 = v
                    .parse()
                    .map_err(|_| format!("--param {k}: `{v}` is not an integer"))?;
                options.params.insert(k.to_string(), v);
            }
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            s => {
                if file.replace(s.to_string()).is_some() {
                    return Err("give one FILE".into());
                }
            }
        }
    }
    Ok(Args {
        file: file.ok_or("missing FILE")?,
        form,
        emit,
        options,
        as_tvm,
    })
}

/// The text of `stagecraft workload KIND N ...` (`stagecraft::workloads`).
fn workload(rest: &[String]) -> Result<String, String> {
    let (kind, numbers) = rest
        .split_first()
        .ok_or("workload needs heavy, synthetic, random or copies")?;
    let numbers = numbers
        .iter()
        .map(|n| {
            n.parse::<usize>()
                .map_err(|_| format!("workload {kind}: `{n}` is not a count"))
        })
        .collect::<Result<Vec<usize>, String>>()?;
    // A typo of a few more digits would print gigabytes.
    if numbers.iter().any(|&n| n > 1 << 20) {
        return Err(format!("workload {kind}: counts go up to {}", 1 << 20));
    }
    let arg = |i: usize, default: Option<usize>| {
        numbers
            .get(i)
            .copied()
            .or(default)
            .ok_or_else(|| format!("workload {kind} needs N and STAGES"))
    };
    let most = match kind.as_str() {
        "heavy" => 3,
        "random" | "copies" => 1,
        _ => 4,
    };
    if numbers.len() > most {
        return Err(format!("workload {kind} takes at most {most} numbers"));
    }
    match kind.as_str() {
        "heavy" => Ok(stagecraft::workloads::heavy_chain(
            arg(0, None)?,
            arg(1, None)?,
            arg(2, Some(64))?,
        )),
        "synthetic" => Ok(stagecraft::workloads::synthetic_chain(
            arg(0, None)?,
            arg(1, Some(8))?,
            arg(2, Some(64))?,
            arg(3, Some(4))?,
        )),
        "random" | "copies" | "same-element" | "nested" => {
            use stagecraft::random_loop::Flavor;
            let flavor = match kind.as_str() {
                "random" => Flavor::Irregular,
                "copies" => Flavor::Copies,
                "same-element" => Flavor::SameElement,
                _ => Flavor::NestedPrologue,
            };
            Ok(stagecraft::random_loop::random_loop(arg(0, None)? as u64, flavor).text())
        }
        other => Err(format!(
            "workload takes heavy, synthetic, random, copies, same-element or nested, not {other}"
        )),
    }
}

fn report(ex: &Exploration, file: &str, source: &str) -> bool {
    for d in &ex.diagnostics {
        eprint!("{}", d.render(file, source));
    }
    for n in &ex.notes {
        eprintln!("note: {n}");
    }
    ex.ok
}

/// `check LOOP --emit TARGET`: checks the derived pipelined program (or the hand-written one of
/// `--pipelined`) strictly for a target, then emits the kernel for TARGET and executes it with the
/// machine-level verifier (docs/execution-model.md). Exit 0 only when the kernel is correct, 3
/// when the program is invalid or the kernel races, differs or is invalid, 1 when nothing could
/// be emitted or executed.
fn check_machine(
    a: &Args,
    source: &str,
    target: Target,
    pipelined_path: Option<&str>,
) -> Result<ExitCode, String> {
    let options = Options {
        verify: false,
        timeline: false,
        targets: Vec::new(),
        peeled_program: true,
        both_forms: false,
        form: Form::Peeled,
        ..a.options.clone()
    };
    let ex = explore(source, &options);
    if !report(&ex, &a.file, source) {
        return Ok(ExitCode::from(1));
    }
    let Some(programs) = &ex.programs else {
        return Ok(ExitCode::from(1));
    };
    let hand_written;
    let (pipelined, name) = match pipelined_path {
        None => match &programs.peeled {
            Some(p) => (p, a.file.clone()),
            None => return Ok(ExitCode::from(1)),
        },
        Some(path) => {
            let text = read_source(path)?;
            let parsed = stagecraft::parser::parse(&text);
            let lowered = stagecraft::lower::lower(&parsed.file);
            let mut bad = false;
            for d in parsed.diagnostics.iter().chain(&lowered.diagnostics) {
                eprint!("{}", d.render(path, &text));
                bad |= d.is_error();
            }
            if bad {
                return Ok(ExitCode::from(1));
            }
            hand_written = lowered.program;
            (&hand_written, path.to_string())
        }
    };
    // The IR-level verdict first, strict for a target: a program no hardware runs as written is
    // reported at its lines, not emitted. The derived program is checked as it prints.
    let (text, checked) = match pipelined_path {
        Some(path) => (read_source(path)?, name.clone()),
        None => (
            ex.peeled
                .as_ref()
                .map(|p| p.text.clone())
                .unwrap_or_default(),
            format!(
                "(derived, as `stagecraft explore {} --form peeled` prints it)",
                a.file
            ),
        ),
    };
    let stages = ex.pipeline.as_ref().map_or(1, |i| i.stages + 1);
    let Some(v) = verify_text(&checked, &text, programs, true, stages) else {
        return Ok(ExitCode::from(1));
    };
    if v.verdict == stagecraft::verify::Verdict::Invalid {
        print_verification(&v, &checked, &text);
        return Ok(ExitCode::from(3));
    }
    let emit_options = stagecraft::emit::EmitOptions::default();
    let code = stagecraft::emit::emit(pipelined, &programs.params, target, &emit_options);
    if let Some(e) = &code.error {
        eprintln!("stagecraft: cannot emit {}: {e}", target.name());
        return Ok(ExitCode::from(1));
    }
    for n in &code.notes {
        eprintln!("note: {n}");
    }
    let lanes = code.lanes;
    let m = stagecraft::machine::check(
        &programs.original,
        pipelined,
        &programs.params,
        &code.text,
        target,
        lanes,
    );
    let kernel = format!("{name} --emit {}", target.name());
    if a.emit == Emit::Json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&m).map_err(|e| e.to_string())?
        );
    } else {
        outln!("{kernel}: {}", m.summary);
        for p in &m.problems {
            outln!("  invalid at line {}: {}", p.line, p.message);
        }
        for r in &m.races {
            outln!("  race at line {}: {}", r.line, r.message);
        }
        for u in &m.unawaited {
            outln!("  never awaited at line {}: {}", u.line, u.message);
        }
        for d in &m.differences {
            let idx: Vec<String> = d.index.iter().map(|i| i.to_string()).collect();
            outln!(
                "  `{}[{}]`, thread {}: the loop computes {}, the kernel {}",
                d.buffer,
                idx.join(", "),
                d.thread,
                d.expected,
                d.got
            );
        }
    }
    Ok(match m.verdict {
        stagecraft::machine::MachineVerdict::Correct => ExitCode::SUCCESS,
        stagecraft::machine::MachineVerdict::NotExecuted
        | stagecraft::machine::MachineVerdict::NotSupported => ExitCode::from(1),
        _ => ExitCode::from(3),
    })
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some((command, rest)) = args.split_first() else {
        return Err("missing command".into());
    };
    match command.as_str() {
        "explore" => explore_command(rest),
        "check" => check_command(rest),
        "time" => time_command(rest),
        "timeline" => timeline_command(rest),
        "search" => search_command(rest),
        "workload" => {
            outln!("{}", workload(rest)?.trim_end());
            Ok(ExitCode::SUCCESS)
        }
        "requests" => requests_command(),
        "help" | "--help" | "-h" => {
            outln!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command `{other}`")),
    }
}

/// `stagecraft requests`: JSON requests in, the bytes the page posts out, each after its length.
fn requests_command() -> Result<ExitCode, String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    let mut bytes = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let request: stagecraft::protocol::Request = serde_json::from_str(line)
            .map_err(|e| format!("line {}: not a request: {e}", n + 1))?;
        let message = stagecraft::protocol::encode_request(&request);
        let length = u16::try_from(message.len())
            .map_err(|_| format!("line {}: a request of over 64 KB", n + 1))?;
        bytes.extend_from_slice(&length.to_le_bytes());
        bytes.extend_from_slice(&message);
    }
    std::io::stdout()
        .write_all(&bytes)
        .map_err(|e| format!("cannot write: {e}"))?;
    Ok(ExitCode::SUCCESS)
}

/// `stagecraft search FILE`: the front as a table or JSON, or FILE with one of its schedules.
fn search_command(rest: &[String]) -> Result<ExitCode, String> {
    use stagecraft::search::{Search, SearchOptions};
    let mut options = SearchOptions::default();
    let (mut file, mut json, mut apply) = (None, false, None);
    let mut it = rest.iter();
    let number = |v: Option<&String>, flag: &str| -> Result<u64, String> {
        v.and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{flag} needs a whole number"))
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--max-stages" => options.max_stages = number(it.next(), arg)? as i64,
            "--smem-bytes" => options.smem_bytes = number(it.next(), arg)?,
            "--target" => {
                let name = it.next().ok_or("--target needs a target")?;
                let target = Target::ALL
                    .into_iter()
                    .find(|t| t.name() == name)
                    .ok_or_else(|| format!("unknown target `{name}`"))?;
                options.smem_bytes = stagecraft::search::smem_limit(target);
            }
            "--json" => json = true,
            "--apply" => apply = Some(number(it.next(), arg)?),
            f if file.is_none() && !f.starts_with("--") => file = Some(f.to_string()),
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    let file = file.ok_or("search needs a FILE")?;
    if !(1..=stagecraft::limits::MAX_STAGES_SEARCHED).contains(&options.max_stages) {
        return Err(format!(
            "--max-stages takes 1 to {}",
            stagecraft::limits::MAX_STAGES_SEARCHED
        ));
    }
    let source = read_source(&file)?;
    let mut search = match Search::new(&source, &options) {
        Ok(s) => s,
        Err(why) => {
            eprintln!("stagecraft: {file}: {why}");
            return Ok(ExitCode::from(1));
        }
    };
    search.run();
    let report = search.report();
    if let Some(k) = apply {
        let Some(text) = (k as usize).checked_sub(1).and_then(|k| search.apply(k)) else {
            eprintln!(
                "stagecraft: {file}: the front has {} schedules; --apply takes 1 to that",
                report.front.len()
            );
            return Ok(ExitCode::from(1));
        };
        out!("{text}");
    } else if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        out!("{}", stagecraft::search_text::table(&report));
    }
    Ok(ExitCode::SUCCESS)
}

/// `stagecraft timeline FILE [--svg OUT]`: the metrics and a text Gantt; the pane's SVG with `--svg`.
fn timeline_command(rest: &[String]) -> Result<ExitCode, String> {
    let mut svg_out = None;
    let mut others = Vec::new();
    let mut it = rest.iter();
    while let Some(arg) = it.next() {
        if arg == "--svg" {
            let out = it.next().ok_or("--svg needs a file to write")?;
            svg_out = Some(out.clone());
        } else {
            others.push(arg.clone());
        }
    }
    let mut a = parse_args(&others)?;
    a.options.targets = Vec::new();
    a.options.verify = false;
    let source = read_source(&a.file)?;
    let ex = explore(&source, &a.options);
    if !report(&ex, &a.file, &source) {
        return Ok(ExitCode::from(1));
    }
    let Some(t) = ex.timeline.as_ref() else {
        eprintln!(
            "stagecraft: {}: there is no pipelined program to simulate",
            a.file
        );
        return Ok(ExitCode::from(1));
    };
    out!("{}", stagecraft::gantt::metrics_text(t));
    outln!();
    out!("{}", stagecraft::gantt::text(t, 100));
    if let Some(note) = t.coverage() {
        outln!("{note}");
    }
    if let Some(note) = t.sequence_note() {
        outln!("{note}");
    }
    if let Some(path) = svg_out {
        // The pane's export at its default zoom, fitted to a 1200-pixel page.
        let svg = stagecraft::gantt::svg(t, &ex.statement_texts(), 10, 1200.0, None);
        std::fs::write(&path, svg).map_err(|e| format!("cannot write {path}: {e}"))?;
        eprintln!("wrote {path}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `stagecraft explore FILE`: the pipelined program, the exploration as JSON, or emitted code.
fn explore_command(rest: &[String]) -> Result<ExitCode, String> {
    let mut a = parse_args(rest)?;
    // Emit only what is printed: the JSON carries every target, tir none, a target itself.
    a.options.targets = match a.emit {
        Emit::Json => a.options.targets,
        Emit::Tir | Emit::TirTokens | Emit::TvmScript => Vec::new(),
        Emit::Code(t) => vec![t],
    };
    // The JSON carries everything an exploration can say, the PrimFunc too.
    a.options.tvmscript = matches!(a.emit, Emit::Json | Emit::TvmScript);
    let source = read_source(&a.file)?;
    if a.as_tvm {
        return explore_tvm_command(&a, &source);
    }
    let ex = explore(&source, &a.options);
    let ok = report(&ex, &a.file, &source);
    match a.emit {
        Emit::Json => {
            let json = serde_json::to_string_pretty(&ex).map_err(|e| e.to_string())?;
            outln!("{json}");
        }
        Emit::Tir => {
            let printed = match a.form {
                Form::Rolled => &ex.rolled,
                Form::Peeled => &ex.peeled,
            };
            if let Some(p) = printed {
                out!("{}", p.text);
            }
        }
        Emit::TirTokens => {
            let printed = match a.form {
                Form::Rolled => &ex.rolled,
                Form::Peeled => &ex.peeled,
            };
            if let Some(p) = printed {
                // The program as printed, so that the token form is line for line that text.
                let lowered = stagecraft::lower::lower(&stagecraft::parser::parse(&p.text).file);
                out!(
                    "{}",
                    stagecraft::tokens::to_tokens(&lowered.program, &a.options.params).text
                );
            }
        }
        Emit::TvmScript => match &ex.tvmscript {
            Some(text) => out!("{text}"),
            None => {
                let (parsed, _) = stagecraft::tvmscript::parse(&source);
                if let Err(why) = stagecraft::tvmscript::print(&parsed.file) {
                    eprintln!("stagecraft: no TVMScript form: {why}");
                }
                return Ok(ExitCode::from(1));
            }
        },
        Emit::Code(t) => {
            if let Some(code) = ex.code.iter().find(|c| c.target == t.name()) {
                match &code.error {
                    Some(e) => {
                        eprintln!("stagecraft: cannot emit {}: {e}", t.name());
                        return Ok(ExitCode::from(1));
                    }
                    None => out!("{}", code.text),
                }
                for n in &code.notes {
                    eprintln!("note: {n}");
                }
            }
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `stagecraft explore FILE --as tvm-0.27`: the program TVM 0.27's pass produces, reproduced
/// (`stagecraft::tvm`), in Stagecraft's printed form, in token form, or as JSON; TVM's refusal as
/// a located error (exit 1).
fn explore_tvm_command(a: &Args, source: &str) -> Result<ExitCode, String> {
    if let Emit::Code(t) = a.emit {
        return Err(format!(
            "--as tvm-0.27 prints TVM's program (--emit tir, tir-tokens or json), not {} code",
            t.name()
        ));
    }
    let vopts = stagecraft::verify::VerifyOptions {
        params: a.options.params.clone(),
        ..Default::default()
    };
    let ex = stagecraft::tvm::explore_tvm(source, a.emit == Emit::Json, &vopts);
    for d in &ex.diagnostics {
        eprint!("{}", d.render(&a.file, source));
    }
    match (a.emit, &ex.printed) {
        (Emit::Json, _) => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&ex).map_err(|e| e.to_string())?
            );
        }
        (Emit::TirTokens, Some(p)) => {
            let lowered = stagecraft::lower::lower(&stagecraft::parser::parse(&p.text).file);
            out!(
                "{}",
                stagecraft::tokens::to_tokens(&lowered.program, &a.options.params).text
            );
        }
        (_, Some(p)) => out!("{}", p.text),
        (_, None) => {}
    }
    Ok(if ex.printed.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `stagecraft check LOOP --as tvm-0.27`: TVM's program, as `explore --as tvm-0.27` prints it, run
/// against the loop: exit 3 when it races or computes something else, 1 when TVM refuses.
fn check_tvm_command(a: &Args, source: &str) -> Result<ExitCode, String> {
    let vopts = stagecraft::verify::VerifyOptions {
        params: a.options.params.clone(),
        ..Default::default()
    };
    let ex = stagecraft::tvm::explore_tvm(source, true, &vopts);
    for d in &ex.diagnostics {
        eprint!("{}", d.render(&a.file, source));
    }
    let (Some(printed), Some(v)) = (&ex.printed, &ex.verification) else {
        return Ok(ExitCode::from(1));
    };
    // Lines point into TVM's program as `stagecraft explore FILE --as tvm-0.27` prints it.
    let name = format!("{} --as tvm-0.27", a.file);
    if a.emit == Emit::Json {
        outln!(
            "{}",
            serde_json::to_string_pretty(v).map_err(|e| e.to_string())?
        );
    } else {
        print_verification(v, &name, &printed.text);
    }
    Ok(match v.verdict {
        stagecraft::verify::Verdict::Equivalent | stagecraft::verify::Verdict::SafeButLoose => {
            ExitCode::SUCCESS
        }
        _ => ExitCode::from(3),
    })
}

/// `stagecraft check LOOP [--pipelined FILE]`: verifies the derived program, or a pipelined
/// program written or edited by hand, against the loop.
fn check_command(rest: &[String]) -> Result<ExitCode, String> {
    let mut rest = rest.to_vec();
    let pipelined_path = match rest.iter().position(|a| a == "--pipelined") {
        Some(i) => {
            let path = rest.get(i + 1).cloned().ok_or("--pipelined needs a FILE")?;
            rest.drain(i..=i + 1);
            Some(path)
        }
        None => None,
    };
    let a = parse_args(&rest)?;
    let source = read_source(&a.file)?;
    if a.as_tvm {
        if pipelined_path.is_some() || matches!(a.emit, Emit::Code(_)) {
            return Err(
                "--as tvm-0.27 checks TVM's program: give it without --pipelined or a code target"
                    .into(),
            );
        }
        return check_tvm_command(&a, &source);
    }
    if let Emit::Code(target) = a.emit {
        return check_machine(&a, &source, target, pipelined_path.as_deref());
    }
    let mut options = a.options.clone();
    options.form = a.form;
    // The program checked is verified below, from its text.
    options.verify = false;
    let ex = explore(&source, &options);
    if !report(&ex, &a.file, &source) {
        return Ok(ExitCode::from(1));
    }
    let Some(programs) = &ex.programs else {
        return Ok(ExitCode::from(1));
    };
    // The program actually checked is a text, so that every line below points into it: the file
    // given, or the derived program as `stagecraft explore FILE` prints it.
    let (text, name) = match &pipelined_path {
        None => {
            let printed = match a.form {
                Form::Rolled => ex.rolled.as_ref(),
                Form::Peeled => ex.peeled.as_ref(),
            };
            let form = match a.form {
                Form::Rolled => "rolled",
                Form::Peeled => "peeled",
            };
            (
                printed.map(|p| p.text.clone()).unwrap_or_default(),
                format!(
                    "(derived, as `stagecraft explore {} --form {form}` prints it)",
                    a.file
                ),
            )
        }
        Some(path) => (read_source(path)?, path.clone()),
    };
    let stages = ex.pipeline.as_ref().map_or(1, |i| i.stages + 1);
    let Some(v) = verify_text(&name, &text, programs, false, stages) else {
        return Ok(ExitCode::from(1));
    };
    if a.emit == Emit::Json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
    } else {
        print_verification(&v, &name, &text);
    }
    Ok(match v.verdict {
        stagecraft::verify::Verdict::Equivalent | stagecraft::verify::Verdict::SafeButLoose => {
            ExitCode::SUCCESS
        }
        _ => ExitCode::from(3),
    })
}

/// The pipelined program in `text` (called `name`; counts or tokens) run against the loop,
/// strictly for a target when `for_target` (every count one immediate; the waits are then not
/// judged, the kernel's execution judges them); `None` when it does not read (its problems are
/// printed).
fn verify_text(
    name: &str,
    text: &str,
    programs: &stagecraft::explore::Programs,
    for_target: bool,
    stages: i64,
) -> Option<stagecraft::verify::Verification> {
    let defaults = stagecraft::verify::VerifyOptions::default();
    let vopts = stagecraft::verify::VerifyOptions {
        params: programs.params.clone(),
        immediate_counts: for_target,
        judge_waits: !for_target,
        random_runs: if for_target { 0 } else { defaults.random_runs },
        ..defaults
    };
    let check =
        stagecraft::explore::check_pipelined_program_with(&programs.original, text, &vopts, stages);
    for d in &check.diagnostics {
        eprint!("{}", d.render(name, text));
    }
    check.verification
}

/// A verification as text, printed (`stagecraft::verification_text`).
fn print_verification(v: &stagecraft::verify::Verification, name: &str, text: &str) {
    out!(
        "{}",
        stagecraft::verification_text::verification_text(v, name, text)
    );
}

/// `stagecraft time FILE`: wall time of parse + transform + waits, for comparisons with other
/// tools.
fn time_command(rest: &[String]) -> Result<ExitCode, String> {
    let a = parse_args(rest)?;
    let source = read_source(&a.file)?;
    let reps: u32 = std::env::var("STAGECRAFT_TIME_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let first = stagecraft::explore::transform(&source, &a.options);
    if !report(&first, &a.file, &source) {
        return Ok(ExitCode::from(1));
    }
    // The fastest of ten batches: a preempted batch says nothing about the transform.
    let batch = (reps / 10).max(1);
    let mut micros = f64::INFINITY;
    for _ in 0..10 {
        let start = std::time::Instant::now();
        for _ in 0..batch {
            std::hint::black_box(stagecraft::explore::transform(
                std::hint::black_box(&source),
                &a.options,
            ));
        }
        micros = micros.min(start.elapsed().as_secs_f64() * 1e6 / f64::from(batch));
    }
    outln!("{micros:.3} us per transform (fastest of 10 batches of {batch})");
    Ok(ExitCode::SUCCESS)
}
