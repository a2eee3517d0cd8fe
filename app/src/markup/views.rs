//! The Pipelined program pane's other two views of the schedule: Stagecraft's program in token form
//! (`stagecraft::tokens`, XLA's `async-start` / `async-done`), and the program TVM 0.27's pass makes
//! of it (`stagecraft::tvm`, reproduced in core) with Stagecraft's verifier's verdict on it. Core
//! writes both programs, the translation of each wait and the verdict; this only lays them out.

use super::html::Html;
use stagecraft::diagnostic::{line_col, Diagnostic};
use stagecraft::explore::PipelinedCheck;
use stagecraft::tir::Printed;
use stagecraft::tokens::TokenForm;
use stagecraft::tvm::TvmExploration;
use stagecraft::verify::{Judgement, Verdict, Verification};

/// Stagecraft's program in token form: each `async_done` line carries its count translation (the
/// comment core writes), and is marked so that it reads apart from the statements.
pub fn tokens_html(form: &TokenForm) -> String {
    let mut h = Html::with_capacity(form.text.len() * 2);
    h.raw("<p class=\"view-note\">Each commit group is a token (<code>q0[i]</code>: queue 0, iteration i); a wait is the <code>async_done</code> of the newest token it needs, and its count is the number of tokens of that queue committed after it.</p>");
    h.raw("<pre id=\"token-program\" class=\"program tokens\">");
    let done_lines: Vec<usize> = form.waits.iter().map(|w| w.line).collect();
    for (k, line) in form.text.lines().enumerate() {
        let done = done_lines.contains(&(k + 1));
        h.raw(if done {
            "<div class=\"line done\">"
        } else {
            "<div class=\"line\">"
        });
        match line.split_once("  # ") {
            Some((code, translation)) if done => {
                h.text(code)
                    .raw("  <span class=\"translation\"># ")
                    .text(translation)
                    .raw("</span>");
            }
            _ => {
                h.text(line);
            }
        }
        h.raw("</div>");
    }
    h.raw("</pre>");
    h.finish()
}

/// Races listed before the rest are folded away.
const SHOWN_RACES: usize = 2;

/// Stagecraft's own program for the same schedule, set beside TVM's: its printed form and the
/// verdict on it, once arrived.
pub struct Ours<'a> {
    pub printed: Option<&'a Printed>,
    pub verification: Option<&'a Verification>,
}

/// TVM 0.27's program for the schedule, or its refusal, printed beside Stagecraft's own (`ours`),
/// each under the verifier's verdict on it. Lines of TVM's program where a race happens are marked;
/// each race names its line.
pub fn tvm_html(tvm: &TvmExploration, source: &str, ours: &Ours) -> String {
    let mut h = Html::default();
    let printed = tvm.printed.as_ref();
    if let (Some(v), Some(p)) = (&tvm.verification, printed) {
        races_html(&mut h, v, &p.text);
    }
    diagnostics_html(&mut h, &tvm.diagnostics, source);
    h.raw("<div class=\"side-by-side\"><section class=\"column\" aria-label=\"TVM ")
        .text(&tvm.version)
        .raw("'s program\">");
    match (&tvm.verification, printed) {
        (Some(v), Some(_)) => {
            h.raw("<div id=\"tvm-verdict\" class=\"")
                .raw(verdict_class(v.verdict))
                .raw("\">TVM ")
                .text(&tvm.version)
                .raw("'s program: ")
                .prose(&v.summary)
                .raw("</div>");
        }
        (None, Some(_)) => {
            h.raw("<div id=\"tvm-verdict\" class=\"verdict notrun\">TVM ")
                .text(&tvm.version)
                .raw("'s program (not verified)</div>");
        }
        _ => {
            h.raw("<div id=\"tvm-verdict\" class=\"verdict invalid\">TVM ")
                .text(&tvm.version)
                .raw(" makes no program of this loop (above: why)</div>");
        }
    }
    if let Some(p) = printed {
        let racy: Vec<usize> = tvm.verification.as_ref().map_or(Vec::new(), |v| {
            v.races
                .iter()
                .map(|r| line_col(&p.text, r.span.start as usize).0)
                .collect()
        });
        h.raw("<pre id=\"tvm-program\" class=\"program tvm\">");
        for (k, line) in p.text.lines().enumerate() {
            let racy = racy.contains(&(k + 1));
            h.raw(if racy {
                "<div class=\"line racy\">"
            } else {
                "<div class=\"line\">"
            })
            .text(line)
            .raw("</div>");
        }
        h.raw("</pre>");
    }
    h.raw("</section><section class=\"column\" aria-label=\"Stagecraft's program\">");
    match ours.verification {
        Some(v) => h
            .raw("<div id=\"ours-verdict\" class=\"")
            .raw(verdict_class(v.verdict))
            .raw("\">Stagecraft's program: ")
            .prose(&v.summary)
            .raw("</div>"),
        None => h.raw("<div id=\"ours-verdict\" class=\"verdict notrun\">Stagecraft's program: verifying…</div>"),
    };
    if let Some(p) = ours.printed {
        h.raw("<pre id=\"ours-program\" class=\"program\">");
        for line in p.text.lines() {
            h.raw("<div class=\"line\">").text(line).raw("</div>");
        }
        h.raw("</pre>");
    }
    h.raw("</section></div>");
    h.finish()
}

/// The verdict on a pipelined program checked against the loop: what keeps it from being checked
/// (the loop's errors, the program's own, misused tokens), else the verifier's verdict with each
/// race at its line of the program and each racy wait with the count that would be right.
pub fn check_html(check: &PipelinedCheck, loop_source: &str, pipelined: &str) -> String {
    let mut h = Html::default();
    if pipelined.trim().is_empty() {
        h.raw("<p class=\"view-note\" id=\"check-verdict\">Paste a pipelined program above — Stagecraft's form, the token form, or TVM's output as the TVM 0.27 view prints it — to check it against the loop in the editor.</p>");
        return h.finish();
    }
    let loop_errors: Vec<&Diagnostic> = check
        .loop_diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect();
    if let Some(d) = loop_errors.first() {
        let (line, _) = line_col(loop_source, d.span.start as usize);
        h.raw("<div id=\"check-verdict\" class=\"verdict notrun\">Not checked: fix line ")
            .num(line)
            .raw(" of the loop first: ")
            .text(&d.message)
            .raw("</div>");
        return h.finish();
    }
    if check.token_form {
        h.raw("<p class=\"view-note\">Read in token form: each <code>async_done</code> was translated to the count it means.</p>");
    }
    match &check.verification {
        Some(v) => {
            h.raw("<div id=\"check-verdict\" class=\"")
                .raw(verdict_class(v.verdict))
                .raw("\">")
                .text(&v.summary)
                .raw("</div>");
            races_html(&mut h, v, pipelined);
            if let Some(a) = &v.across {
                thread_races_html(&mut h, a, pipelined);
            }
        }
        None => {
            h.raw("<div id=\"check-verdict\" class=\"verdict invalid\">Not checked: the program has errors</div>");
        }
    }
    if !check.diagnostics.is_empty() {
        h.raw("<ul class=\"tvm-problems\">");
        for d in check.diagnostics.iter().take(MAX_LISTED) {
            let (line, _) = line_col(pipelined, d.span.start as usize);
            h.raw("<li class=\"check-problem\">line ")
                .num(line)
                .raw(": ")
                .text(&d.message);
            if let Some(hint) = &d.hint {
                h.raw(" <span class=\"hint\">(").text(hint).raw(")</span>");
            }
            h.raw("</li>");
        }
        h.raw("</ul>");
    }
    h.finish()
}

/// Problems listed in the check's view; the rest are counted.
const MAX_LISTED: usize = 20;

/// The races of a program (`text`, the one verified): first each racy wait with the count that
/// would be right, then the races at their lines — the first few, the rest (often the same race in
/// later slots) folded away so that they do not push the program off the screen.
fn races_html(h: &mut Html, v: &Verification, text: &str) {
    if v.races.is_empty() {
        return;
    }
    fixes_html(h, v, text);
    h.raw("<h3>Races</h3><ul class=\"races tvm-races\">");
    for (k, r) in v.races.iter().enumerate() {
        if k == SHOWN_RACES {
            h.raw("</ul><details><summary>")
                .num(v.races.len() - SHOWN_RACES)
                .raw(" more</summary><ul class=\"races tvm-races\">");
        }
        let (line, _) = line_col(text, r.span.start as usize);
        h.raw("<li>line ")
            .num(line)
            .raw(": ")
            .prose(&r.message)
            .raw("</li>");
    }
    h.raw("</ul>");
    if v.races.len() > SHOWN_RACES {
        h.raw("</details>");
    }
}

/// The races between waves (threads) of a program that declares its threads, one per barrier that
/// would cover them (core's `Across::by_barrier`): at its line, the wave that reads (writes) and
/// the wave whose access it meets, the element, its slot, the iteration; then where that barrier
/// goes and how many more races, between which waves, it covers.
fn thread_races_html(h: &mut Html, a: &stagecraft::verify::Across, text: &str) {
    if a.races.is_empty() {
        return;
    }
    let line = |span: stagecraft::diagnostic::Span| line_col(text, span.start as usize).0;
    let word = a.agent_word();
    h.raw("<h3>Races between ")
        .text(word)
        .raw("s</h3><p class=\"view-note\">Run across its ")
        .text(&a.who())
        .raw(": each ")
        .text(word)
        .raw("'s wait completes only its own copies; a <code>barrier()</code> publishes them to the other ")
        .text(word)
        .raw("s. One race for each wait and read (read and refill) with no barrier between them:</p><ul class=\"races tvm-races thread-races\">");
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
            .text(&r.message())
            .raw(" (")
            .text(r.other_access())
            .raw(": line ")
            .num(line(r.other.span))
            .raw(").");
        if let Some(cover) = r.covering_barrier(line) {
            h.raw("<br><span class=\"cover\">Fix: ").text(&cover);
            if g.more > 0 {
                h.raw(" — it also covers ")
                    .text(&stagecraft::english::count(g.more, "more race"))
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

/// Places a barrier is missing at, listed before the rest are folded away.
const SHOWN_PLACES: usize = 4;

/// Each racy wait with the count that would be right, found by the verifier (`lower_by`).
fn fixes_html(h: &mut Html, v: &Verification, text: &str) {
    let racy = v.waits.iter().filter(|w| w.judgement == Judgement::Racy);
    h.raw("<ul class=\"tvm-fixes\">");
    for w in racy {
        let (line, _) = line_col(text, w.span.start as usize);
        let wait = text
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or("")
            .trim();
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

/// TVM's refusal, or what the reproduction does not cover, at its line of the user's loop.
/// TVM's refusal (an error), then what the reproduction says of how it ran TVM's program: thread
/// loops run one thread after another, elements two threads share (notes and warnings).
fn diagnostics_html(h: &mut Html, diagnostics: &[Diagnostic], source: &str) {
    let (errors, notes): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
        diagnostics.iter().partition(|d| d.is_error());
    for (list, class, id) in [
        (errors, "tvm-problems", " id=\"tvm-refusal\""),
        (notes, "tvm-notes", ""),
    ] {
        if list.is_empty() {
            continue;
        }
        h.raw("<ul class=\"").raw(class).raw("\">");
        for d in list.into_iter().take(MAX_LISTED) {
            let (line, _) = line_col(source, d.span.start as usize);
            h.raw("<li")
                .raw(id)
                .raw(">line ")
                .num(line)
                .raw(" of your loop: ");
            h.prose(&d.message);
            if let Some(hint) = &d.hint {
                h.raw(" <span class=\"hint\">(").text(hint).raw(")</span>");
            }
            h.raw("</li>");
        }
        h.raw("</ul>");
    }
}

/// The verdict's class, as the Verification pane colours it.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn example(name: &str) -> &'static str {
        stagecraft_link::presets::PRESETS
            .iter()
            .find(|p| p.0.contains(name))
            .map(|p| p.1)
            .unwrap()
    }

    #[test]
    fn tvm_s_count_for_rfc_c_races_and_its_line_is_marked() {
        let text = example("(c)");
        let tvm = stagecraft::tvm::explore_tvm(text, true, &Default::default());
        let html = tvm_html(
            &tvm,
            text,
            &Ours {
                printed: None,
                verification: None,
            },
        );
        assert!(html.contains("verdict racy"), "{html}");
        assert!(
            html.contains("async_wait_queue(0, 5)"),
            "TVM's count is 5: {html}"
        );
        assert!(html.contains("<div class=\"line racy\">"), "{html}");
        assert!(html.contains("<h3>Races</h3>"));
        // TVM's count 5 lets the merged prologue group stay in flight: 3 is right for TVM's program
        // (`stagecraft check --pipelined` with 3: equivalent and tight; with 4: racy).
        assert!(html.contains("<code>with async_wait_queue(0, 5):</code> should have covered them: its count 2 lower leaves no race on it"), "{html}");
    }

    #[test]
    fn tvm_s_refusal_is_shown_at_its_line_of_the_loop() {
        // TVM refuses an order that is not a permutation.
        let text = "for i in range(4):\n    B[i] = A[i]\n    C[i] = B[i]\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 0])\n";
        let tvm = stagecraft::tvm::explore_tvm(text, true, &Default::default());
        let html = tvm_html(
            &tvm,
            text,
            &Ours {
                printed: None,
                verification: None,
            },
        );
        assert!(html.contains("id=\"tvm-refusal\""), "{html}");
        assert!(!html.contains("tvm-program"), "{html}");
    }

    #[test]
    fn how_tvm_s_program_runs_its_thread_loop_is_said_at_the_loop() {
        // TVM 0.27's own test_async_producer_interleaving: the pipelined loop in a threadIdx.x loop.
        let text = include_str!("../../../tests/tvm_suite/async_producer_interleaving.py");
        let tvm = stagecraft::tvm::explore_tvm(text, true, &Default::default());
        let html = tvm_html(
            &tvm,
            text,
            &Ours {
                printed: None,
                verification: None,
            },
        );
        assert!(html.contains("<ul class=\"tvm-notes\">"), "{html}");
        assert!(
            html.contains("<code>tx</code> binds threadIdx.x: its iterations are threads"),
            "{html}"
        );
        assert!(!html.contains("tvm-refusal"), "{html}");
    }

    #[test]
    fn a_pasted_program_is_checked_against_the_loop_with_its_fix() {
        let text = example("(c)");
        let tvm = stagecraft::tvm::explore_tvm(text, false, &Default::default());
        let printed = tvm.printed.unwrap().text;
        let params = Default::default();
        let html = check_html(
            &stagecraft::explore::check_pipelined(text, &printed, &params),
            text,
            &printed,
        );
        assert!(
            html.contains("id=\"check-verdict\" class=\"verdict racy\""),
            "{html}"
        );
        assert!(
            html.contains("its count 2 lower leaves no race on it"),
            "{html}"
        );
        let fixed = printed.replace("async_wait_queue(0, 5)", "async_wait_queue(0, 3)");
        let html = check_html(
            &stagecraft::explore::check_pipelined(text, &fixed, &params),
            text,
            &fixed,
        );
        assert!(html.contains("verdict equivalent"), "{html}");
        // A token awaited twice is a located error of the program, not a verdict.
        let tokens = "for i in range(16):\n    with async_start(0) as q0[i]:\n        with async_scope():\n            A_sh[0] = A[i]\n            B_sh[0] = B[i]\n    with async_done(q0[i]):\n        C[i] = A_sh[0] + B_sh[0]\n    with async_done(q0[i]):\n        C[i] = A_sh[0] + B_sh[0]\n";
        let html = check_html(
            &stagecraft::explore::check_pipelined(text, tokens, &params),
            text,
            tokens,
        );
        assert!(html.contains("Read in token form"), "{html}");
        assert!(
            html.contains("<li class=\"check-problem\">line 8:"),
            "{html}"
        );
        let blank = stagecraft::explore::check_pipelined(text, " ", &params);
        assert!(check_html(&blank, text, " ").contains("Paste a pipelined program"));
    }

    #[test]
    fn every_wait_of_the_token_form_carries_its_translation() {
        let ex = stagecraft::explore::explore(example("(b)"), &Default::default());
        let form = stagecraft::explore::tokens(&ex, stagecraft::pipelined::Form::Rolled).unwrap();
        let html = tokens_html(&form);
        assert_eq!(
            html.matches("<div class=\"line done\">").count(),
            form.waits.len()
        );
        assert!(html.contains("async_done(q0[i - 1])"), "{html}");
        assert!(
            html.contains("<span class=\"translation\"># wait(0, 1)"),
            "{html}"
        );
    }
}
