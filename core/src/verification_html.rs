//! A verification as the worker draws it for the page, located in the program verified: the
//! verdict's class, its problems with their fixes, each racy wait with the count that would be
//! right, the races at their lines, the races between waves grouped by the barrier that would
//! cover them, the loose waits and the elements that differ — what the TVM view
//! (`tvm::view`) and the check view (`explore::check_html`) show of a program's verification.
//! `verification_text.rs` is the same for the terminal.

use crate::diagnostic::{line_col, Diagnostic, Span};
use crate::html::Html;
use crate::verify::{Across, Judgement, Verdict, Verification};

/// Races listed before the rest are folded away.
const SHOWN_RACES: usize = 2;

/// Places a barrier is missing at, listed before the rest are folded away.
const SHOWN_PLACES: usize = 4;

/// Problems listed in a view; the rest are counted.
pub(crate) const MAX_LISTED: usize = 20;

/// The verdict's class, as the page colours it.
pub fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Invalid => "verdict invalid",
        Verdict::Equivalent => "verdict equivalent",
        Verdict::SafeButLoose => "verdict safebutloose",
        Verdict::Racy => "verdict racy",
        Verdict::Different => "verdict different",
        Verdict::NotRun => "verdict notrun",
    }
}

/// A diagnostic's hint, after its message.
pub(crate) fn hint_html(h: &mut Html, d: &Diagnostic) {
    if let Some(hint) = &d.hint {
        h.raw(" <span class=\"hint\">(").prose(hint).raw(")</span>");
    }
}

/// The races of a program (`text`, the one verified): first each racy wait with the count that
/// would be right, then the races at their lines, the first of each group of races alike
/// (`Verification::race_groups`) with the others counted — the first few groups, the rest folded
/// away so that they do not push the program off the screen.
fn races_html(h: &mut Html, v: &Verification, text: &str) {
    if v.races.is_empty() {
        return;
    }
    fixes_html(h, v, text);
    let groups = v.race_groups();
    h.raw("<h3>Races</h3><ul class=\"races tvm-races\">");
    for (k, group) in groups.iter().enumerate() {
        if k == SHOWN_RACES {
            h.raw("</ul><details><summary>")
                .num(groups.len() - SHOWN_RACES)
                .raw(" more</summary><ul class=\"races tvm-races\">");
        }
        let Some(r) = group.first().and_then(|&first| v.races.get(first)) else {
            continue;
        };
        let (line, _) = line_col(text, r.span.start as usize);
        h.raw("<li>line ").num(line).raw(": ").prose(&r.message);
        if group.len() > 1 {
            h.raw(" <span class=\"hint\">(and ")
                .text(&crate::english::count(group.len() - 1, "more race"))
                .raw(" like it)</span>");
        }
        h.raw("</li>");
    }
    h.raw("</ul>");
    if groups.len() > SHOWN_RACES {
        h.raw("</details>");
    }
}

/// The races between waves (threads) of a program that declares its threads, one per barrier that
/// would cover them (`Across::by_barrier`): at its line, the wave that reads (writes) and the wave
/// whose access it meets, the element, its slot, the iteration; then where that barrier goes and
/// how many more races, between which waves, it covers.
fn thread_races_html(h: &mut Html, a: &Across, text: &str) {
    if a.races.is_empty() {
        return;
    }
    let line = |span: Span| line_col(text, span.start as usize).0;
    let word = a.agent_word();
    h.raw("<h3>Races between ")
        .text(word)
        .raw("s</h3><p class=\"view-note\">")
        .prose(&a.how_run())
        .raw(" One race for each wait and read (read and refill) with no barrier between them:</p><ul class=\"races tvm-races thread-races\">");
    let groups = a.by_barrier();
    for (k, g) in groups.iter().enumerate() {
        if k == SHOWN_PLACES {
            h.raw("</ul><details><summary>")
                .num(groups.len() - SHOWN_PLACES)
                .raw(" more places</summary><ul class=\"races tvm-races thread-races\">");
        }
        let r = g.first;
        h.raw("<li>line ")
            .num(line(r.access.span))
            .raw(": ")
            .prose(&r.message())
            .raw(" (")
            .text(r.other_access())
            .raw(": line ")
            .num(line(r.other.span))
            .raw(").");
        if let Some(cover) = r.covering_barrier(line) {
            h.raw("<br><span class=\"cover\">Fix: ").text(&cover);
            if g.more > 0 {
                h.raw(" — it also covers ")
                    .text(&crate::english::count(g.more, "more race"))
                    .raw(" like this one, between ")
                    .text(&g.between());
            }
            h.raw(".</span>");
        }
        h.raw("</li>");
    }
    h.raw("</ul>");
    if groups.len() > SHOWN_PLACES {
        h.raw("</details>");
    }
}

/// Each racy wait with the count that would be right, found by the verifier (`lower_by`).
fn fixes_html(h: &mut Html, v: &Verification, text: &str) {
    let racy = v.waits.iter().filter(|w| w.judgement == Judgement::Racy);
    h.raw("<ul class=\"tvm-fixes\">");
    for w in racy {
        let (line, wait) = line_at(text, w.span);
        h.raw("<li>line ")
            .num(line)
            .raw(": <code>")
            .text(wait)
            .raw("</code> ");
        match w.lower_by {
            Some(k) => h
                .raw("should have covered them: its count ")
                .num(k)
                .raw(" lower leaves no race on it"),
            None => h.raw("should have covered them; no lower count alone removes its races"),
        };
        h.raw("</li>");
    }
    h.raw("</ul>");
}

/// All the verifier found, at its lines of the program verified (`text`): its problems (what
/// makes it invalid first, each with its fix), its races (with the counts and barriers that would
/// cover them), the waits that could allow more groups in flight, and the output elements that
/// differ from the loop's.
pub(crate) fn findings_html(h: &mut Html, v: &Verification, text: &str) {
    problems_html(h, v, text);
    races_html(h, v, text);
    if let Some(a) = &v.across {
        thread_races_html(h, a, text);
    }
    loose_waits_html(h, v, text);
    differences_html(h, v);
}

/// The line of `text` that a span starts on, and that line's text without its indentation.
fn line_at(text: &str, span: Span) -> (usize, &str) {
    let (line, _) = line_col(text, span.start as usize);
    let said = text
        .lines()
        .nth(line.saturating_sub(1))
        .unwrap_or("")
        .trim();
    (line, said)
}

/// The item that counts what a list of `listed` things leaves out past `MAX_LISTED`.
fn more_html(h: &mut Html, listed: usize, more: &str) {
    if listed > MAX_LISTED {
        h.raw("<li>")
            .text(&crate::english::count(listed - MAX_LISTED, more))
            .raw("</li>");
    }
}

fn problems_html(h: &mut Html, v: &Verification, text: &str) {
    if v.problems.is_empty() {
        return;
    }
    h.raw("<h3>Problems</h3><ul class=\"tvm-problems run-problems\">");
    for p in v.problems_invalid_first().take(MAX_LISTED) {
        let (line, _) = line_at(text, p.span);
        h.raw("<li class=\"")
            .raw(if p.invalid.is_some() {
                "error"
            } else {
                "warning"
            })
            .raw("\">line ")
            .num(line)
            .raw(": ")
            .prose(&p.message);
        if let Some(fix) = &p.fix {
            h.raw("<div class=\"hint\">Fix: ").prose(fix).raw("</div>");
        }
        h.raw("</li>");
    }
    more_html(h, v.problems.len(), "more problem");
    h.raw("</ul>");
}

fn loose_waits_html(h: &mut Html, v: &Verification, text: &str) {
    let mut loose = v.waits.iter().filter(|w| {
        matches!(
            w.judgement,
            Judgement::LooseBy { .. } | Judgement::Redundant
        )
    });
    let Some(first) = loose.next() else {
        return;
    };
    h.raw("<h3>Loose waits</h3><ul class=\"tvm-fixes loose-waits\">");
    for w in std::iter::once(first).chain(loose) {
        let (line, wait) = line_at(text, w.span);
        h.raw("<li>line ")
            .num(line)
            .raw(": <code>")
            .text(wait)
            .raw("</code> ");
        match w.judgement {
            Judgement::LooseBy { k } => h
                .raw("waits for more than the program needs: a count ")
                .num(k)
                .raw(" higher still leaves no race"),
            _ => h.raw("never completes a group at any instance: it could be removed"),
        };
        h.raw("</li>");
    }
    h.raw("</ul>");
}

fn differences_html(h: &mut Html, v: &Verification) {
    // A wave's own copy of an output the loop does not compute (the run across threads).
    let across = v
        .across
        .as_ref()
        .map_or(&[][..], |a| a.differences.as_slice());
    if v.differences.is_empty() && across.is_empty() {
        return;
    }
    h.raw("<h3>Differences</h3><ul class=\"tvm-problems differences\">");
    for d in v.differences.iter().take(MAX_LISTED) {
        let element: Vec<String> = d.element.iter().map(i64::to_string).collect();
        h.raw("<li><code>")
            .text(&d.buffer)
            .raw("[")
            .text(&element.join(", "))
            .raw("]</code>: the loop computes ")
            .text(&d.expected.to_string())
            .raw(", this program ");
        match d.got {
            Some(got) => h.text(&got.to_string()),
            None => h.raw("never writes it"),
        };
        h.raw("</li>");
    }
    more_html(h, v.differences.len(), "more element");
    for d in across.iter().take(MAX_LISTED) {
        h.raw("<li>").prose(d).raw("</li>");
    }
    more_html(h, across.len(), "more difference");
    h.raw("</ul>");
}
