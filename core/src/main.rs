//! `stagecraft` — the command-line face of the engine.
//!
//!     stagecraft explore FILE [--form rolled|peeled] [--emit tir|json]
//!
//! FILE may be `-` for standard input. Invalid input exits non-zero with located diagnostics on stderr.

use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::pipelined::Form;
use std::io::Read;
use std::process::ExitCode;

const USAGE: &str = "usage:
  stagecraft explore FILE [--form rolled|peeled] [--emit tir|json] [--param NAME=VALUE]...
  stagecraft time FILE      (mean time of parse + transform + waits; STAGECRAFT_TIME_REPS runs)
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
    emit: String,
    options: Options,
}

fn parse_args(rest: &[String]) -> Result<Args, String> {
    let mut file = None;
    let mut form = Form::Rolled;
    let mut emit = "tir".to_string();
    let mut options = Options::default();
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
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
            "--emit" => emit = it.next().cloned().ok_or("--emit needs a value")?,
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
    })
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

fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some((command, rest)) = args.split_first() else {
        return Err("missing command".into());
    };
    match command.as_str() {
        "explore" => {
            let a = parse_args(rest)?;
            let source = read_source(&a.file)?;
            let ex = explore(&source, &a.options);
            let ok = report(&ex, &a.file, &source);
            match a.emit.as_str() {
                "json" => {
                    let json = serde_json::to_string_pretty(&ex).map_err(|e| e.to_string())?;
                    println!("{json}");
                }
                "tir" => {
                    let printed = match a.form {
                        Form::Rolled => &ex.rolled,
                        Form::Peeled => &ex.peeled,
                    };
                    if let Some(p) = printed {
                        print!("{}", p.text);
                    }
                }
                other => return Err(format!("--emit takes tir or json, not {other}")),
            }
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        "time" => {
            // Mean wall time of parse + transform + waits, for comparisons with other tools.
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
            let start = std::time::Instant::now();
            for _ in 0..reps {
                std::hint::black_box(stagecraft::explore::transform(
                    std::hint::black_box(&source),
                    &a.options,
                ));
            }
            let micros = start.elapsed().as_secs_f64() * 1e6 / f64::from(reps.max(1));
            println!("{micros:.3} us per transform ({reps} runs)");
            Ok(ExitCode::SUCCESS)
        }
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command `{other}`")),
    }
}
