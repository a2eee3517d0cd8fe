//! A verification as the command line prints it (`stagecraft check`): the summary, then each
//! race, race between waves, difference, problem and wait, located in the program checked.

use crate::verify::{Across, Verification};
use std::fmt::Write;

/// One line into a `String` (writing to a `String` cannot fail).
macro_rules! outln {
    ($out:expr, $($t:tt)*) => {{
        let _ = writeln!($out, $($t)*);
    }};
}

/// A verification as text: the summary, then each race, difference, problem and wait, located
/// in the program `name` (whose text is `text`).
pub fn verification_text(v: &Verification, name: &str, text: &str) -> String {
    let mut out = String::new();
    outln!(out, "{name}: {}", v.summary);
    for p in v.problems.iter().filter(|p| p.invalid.is_some()) {
        let (line, col) = crate::diagnostic::line_col(text, p.span.start as usize);
        outln!(out, "  invalid at {name}:{line}:{col}: {}", p.message);
        if let Some(fix) = &p.fix {
            outln!(out, "    fix: {fix}");
        }
    }
    // Races alike (`Verification::race_groups`): the first of each, the others counted.
    for group in v.race_groups() {
        let Some(r) = group.first().and_then(|&k| v.races.get(k)) else {
            continue;
        };
        let (line, col) = crate::diagnostic::line_col(text, r.span.start as usize);
        outln!(out, "  race at {name}:{line}:{col}: {}", r.message);
        if let Some(o) = r.other {
            let (ol, oc) = crate::diagnostic::line_col(text, o.span.start as usize);
            outln!(out, "    (the other access: {name}:{ol}:{oc})");
        }
        if let Some(w) = r.wait {
            let (wl, wc) = crate::diagnostic::line_col(text, w.span.start as usize);
            outln!(out, "    (that wait: {name}:{wl}:{wc})");
        }
        if group.len() > 1 {
            outln!(
                out,
                "    (and {} like it: the same statement, kind and wait)",
                crate::english::count(group.len() - 1, "more race")
            );
        }
    }
    if let Some(a) = &v.across {
        thread_races_text(&mut out, a, name, text);
    }
    for d in &v.differences {
        outln!(
            out,
            "  `{}{:?}`: the loop computes {}, the pipelined program {}",
            d.buffer,
            d.element,
            d.expected,
            d.got.map_or("nothing".to_string(), |g| g.to_string())
        );
    }
    for p in v.problems.iter().filter(|p| p.invalid.is_none()) {
        let (line, col) = crate::diagnostic::line_col(text, p.span.start as usize);
        outln!(out, "  problem at {name}:{line}:{col}: {}", p.message);
    }
    for w in &v.waits {
        let (line, _) = crate::diagnostic::line_col(text, w.span.start as usize);
        let at = |ns: &[i64], what: &str| {
            let ns: Vec<String> = ns.iter().map(i64::to_string).collect();
            (!ns.is_empty()).then(|| format!("{what} at N = {}", ns.join(", ")))
        };
        let per_n: Vec<String> = [
            at(&w.not_executed_at, "not executed"),
            at(&w.forces_nothing_at, "nothing in flight to complete"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let not_executed = if per_n.is_empty() {
            String::new()
        } else {
            format!(" ({})", per_n.join("; "))
        };
        let fix = w.lower_by.map_or(String::new(), |k| {
            format!(" — its count {k} lower leaves no race on it")
        });
        outln!(
            out,
            "  wait on queue {} (line {line}, {}): {}{fix}{not_executed}",
            w.queue,
            crate::english::count(w.instances, "instance"),
            w.judgement.words()
        );
    }
    if let Some(note) = v.unjudged_note() {
        outln!(out, "  ({note})");
    }
    out
}

/// Races between waves (threads) written, one per barrier that would cover them: the first such
/// race at its line, the other wave's access, the barrier's place and how many more it covers.
fn thread_races_text(out: &mut String, a: &Across, name: &str, text: &str) {
    let at = |span: crate::diagnostic::Span| {
        let (line, col) = crate::diagnostic::line_col(text, span.start as usize);
        format!("{name}:{line}:{col}")
    };
    let line =
        |span: crate::diagnostic::Span| crate::diagnostic::line_col(text, span.start as usize).0;
    for g in a.by_barrier() {
        let r = g.first;
        outln!(out, "  race at {}: {}", at(r.access.span), r.message());
        outln!(out, "    ({}: {})", r.other_access(), at(r.other.span));
        let more = if g.more > 0 {
            format!(
                ", and {} like it between {}",
                crate::english::count(g.more, "more race"),
                g.between()
            )
        } else {
            String::new()
        };
        match r.covering_barrier(line) {
            Some(cover) => outln!(out, "    (covered by {cover}{more})"),
            None if g.more > 0 => outln!(out, "    ({} like it)", g.between()),
            None => {}
        }
    }
    for d in &a.differences {
        outln!(out, "  {d}");
    }
}
