//! The threads that run a loop and how buffers are spread over them, as the loop language
//! declares them: `sch.annotate(k, "stagecraft_threads", [T])`, `"stagecraft_waves"` and
//! `alloc(…, threads="cyclic")` (docs/language.md, "Threads").

use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{Distribution, Threads};
use crate::lower::Annotation;
use crate::syntax::{Expr, ExprKind};

/// `threads="…"` of an `alloc`: the distribution, or a located error.
pub fn distribution(value: &Expr, diagnostics: &mut Vec<Diagnostic>) -> Option<Distribution> {
    match &value.kind {
        ExprKind::Str(s) => {
            let d = Distribution::parse(s);
            if d.is_none() {
                diagnostics.push(
                    Diagnostic::error(value.span, format!("unknown thread distribution \"{s}\""))
                        .with_hint("\"each\" (every thread its own copy), \"cyclic\" or \"blocked\" (one copy, each element written by one thread)"),
                );
            }
            d
        }
        _ => {
            diagnostics.push(Diagnostic::error(
                value.span,
                "the distribution is a string: \"each\", \"cyclic\" or \"blocked\"",
            ));
            None
        }
    }
}

/// The annotation keys that declare the threads running a loop.
pub const THREADS_KEY: &str = "stagecraft_threads";
pub const WAVES_KEY: &str = "stagecraft_waves";
/// Threads in one block (CUDA's and HIP's limit).
const MAX_THREADS: i64 = 1024;

/// `sch.annotate(k, "stagecraft_threads", [T])` and `sch.annotate(k, "stagecraft_waves", [W])`:
/// the threads that run the loop, and the waves they form. A distributed buffer needs them.
pub fn threads(
    annotations: &[Annotation],
    distributed: Vec<(String, Span, Distribution)>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Threads> {
    let value = |key: &str| {
        // The last one written, as for every other key (`schedule::repeated_keys`).
        annotations
            .iter()
            .rfind(|a| a.key == key)
            .map(|a| (a.values.clone().unwrap_or_default(), a.value_span))
    };
    let threads = value(THREADS_KEY);
    let waves = value(WAVES_KEY);
    let declared = match &threads {
        Some((v, span)) => match v.as_slice() {
            [t] if (1..=MAX_THREADS).contains(t) => Some(*t as u32),
            _ => {
                diagnostics.push(
                    Diagnostic::error(
                        *span,
                        format!("the threads are one number between 1 and {MAX_THREADS}"),
                    )
                    .with_hint(format!("sch.annotate(k, \"{THREADS_KEY}\", [128])")),
                );
                None
            }
        },
        None => None,
    };
    let mut spec = declared.map(|t| Threads {
        threads: t,
        waves: t,
    });
    if let Some((v, span)) = waves {
        match (v.as_slice(), spec.as_mut()) {
            ([w], Some(s)) if *w >= 1 && i64::from(s.threads) % *w == 0 => s.waves = *w as u32,
            (_, None) => diagnostics.push(
                Diagnostic::error(span, "waves need the loop's threads declared first")
                    .with_hint(format!("sch.annotate(k, \"{THREADS_KEY}\", [512])")),
            ),
            _ => diagnostics.push(
                Diagnostic::error(span, "the waves are one number dividing the threads").with_hint(
                    format!("sch.annotate(k, \"{WAVES_KEY}\", [8]) for 512 threads of 64 lanes"),
                ),
            ),
        }
    }
    if spec.is_none() {
        for (name, span, d) in distributed {
            diagnostics.push(
                Diagnostic::error(
                    span,
                    format!(
                        "`{name}` is spread over threads (\"{}\"), but the loop declares none",
                        d.name()
                    ),
                )
                .with_hint(format!(
                    "declare them: sch.annotate(k, \"{THREADS_KEY}\", [128])"
                )),
            );
        }
    }
    spec
}
