//! TVM 0.27's program as the Pipelined program pane's TVM view shows it (`TvmView`), drawn by the
//! worker: TVM's refusal or the reproduction's notes at their lines of the user's loop, what the
//! verifier found in TVM's program (its races with the count that would be right, its loose waits),
//! and TVM's program under Stagecraft's verifier's verdict, its racing lines marked. The page sets Stagecraft's own program beside it.

use super::TvmExploration;
use crate::diagnostic::{line_col, Diagnostic};
use crate::html::Html;
use crate::verification_html::{findings_html, hint_html, verdict_class, MAX_LISTED};
use serde::{Deserialize, Serialize};

/// The TVM view, drawn (text escaped).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TvmView {
    /// Above both programs: the races of TVM's program with their fixes, TVM's refusal and the
    /// reproduction's notes.
    pub above: String,
    /// TVM's column: its verdict and its program (`<section class="column">`).
    pub column: String,
}

/// `tvm`, made from the loop `source` (whose lines its diagnostics name), drawn.
pub fn tvm_view(tvm: &TvmExploration, source: &str) -> TvmView {
    let mut above = Html::default();
    let printed = tvm.printed.as_ref();
    if let (Some(v), Some(p)) = (&tvm.verification, printed) {
        findings_html(&mut above, v, &p.text);
    }
    diagnostics_html(&mut above, &tvm.diagnostics, source);
    let mut h = Html::default();
    h.raw("<section class=\"column\" aria-label=\"TVM ")
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
            h.raw(if racy.contains(&(k + 1)) {
                "<div class=\"line racy\">"
            } else {
                "<div class=\"line\">"
            })
            .text(line)
            .raw("</div>");
        }
        h.raw("</pre>");
    }
    h.raw("</section>");
    TvmView {
        above: above.finish(),
        column: h.finish(),
    }
}

/// TVM's refusal (an error), then what the reproduction says of how it ran TVM's program: thread
/// loops run one thread after another, elements two threads share (notes and warnings), each at its
/// line of the user's loop.
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
                .raw(" of your loop: ")
                .prose(&d.message);
            hint_html(h, d);
            h.raw("</li>");
        }
        h.raw("</ul>");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn input(path: &str) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        std::fs::read_to_string(format!("{dir}/{path}")).unwrap()
    }

    fn drawn(text: &str) -> String {
        let v = tvm_view(
            &super::super::explore_tvm(text, true, &Default::default()),
            text,
        );
        format!("{}{}", v.above, v.column)
    }

    #[test]
    fn tvm_s_count_for_rfc_c_races_and_its_line_is_marked() {
        let html = drawn(&input("examples/rfc_c_interleaved.py"));
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
        let html = drawn(text);
        assert!(html.contains("id=\"tvm-refusal\""), "{html}");
        assert!(html.contains("line 5 of your loop"), "{html}");
        assert!(!html.contains("tvm-program"), "{html}");
    }

    #[test]
    fn how_tvm_s_program_runs_its_thread_loop_is_said_at_the_loop() {
        // TVM 0.27's own test_async_producer_interleaving: the pipelined loop in a threadIdx.x loop.
        let html = drawn(&input("tests/tvm_suite/async_producer_interleaving.py"));
        assert!(html.contains("<ul class=\"tvm-notes\">"), "{html}");
        assert!(
            html.contains("<code>tx</code> binds threadIdx.x: its iterations are threads"),
            "{html}"
        );
        assert!(!html.contains("tvm-refusal"), "{html}");
    }
}
