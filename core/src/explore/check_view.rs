//! The Pipelined program pane's check view, drawn by the worker: a program pasted beside the loop,
//! checked against it (`check_pipelined`), with what keeps it from being checked or the verdict,
//! and what the verifier found (problems, races, loose waits, differences) at their lines of the
//! pasted program, with their fixes.

use super::PipelinedCheck;
use crate::diagnostic::line_col;
use crate::html::Html;
use crate::verification_html::{findings_html, hint_html, verdict_class, MAX_LISTED};

/// What the check view says while nothing is pasted: the page shows it without asking.
pub const CHECK_INVITATION: &str = "<p class=\"view-note\" id=\"check-verdict\">Paste a pipelined program above — Stagecraft's form, the token form, or TVM's output as the TVM 0.27 view prints it — to check it against the loop in the editor.</p>";

/// The verdict on a pipelined program checked against the loop (`loop_source`): what keeps it from
/// being checked (the loop's errors, the program's own, misused tokens), else the verifier's
/// verdict with each race at its line of the program (`pipelined`) and each racy wait with the
/// count that would be right.
pub fn check_html(check: &PipelinedCheck, loop_source: &str, pipelined: &str) -> String {
    if pipelined.trim().is_empty() {
        return CHECK_INVITATION.to_string();
    }
    let mut h = Html::default();
    if let Some(d) = check.loop_diagnostics.iter().find(|d| d.is_error()) {
        let (line, _) = line_col(loop_source, d.span.start as usize);
        h.raw("<div id=\"check-verdict\" class=\"verdict notrun\">Not checked: fix line ")
            .num(line)
            .raw(" of the loop first: ")
            .prose(&d.message)
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
                .prose(&v.summary)
                .raw("</div>");
            findings_html(&mut h, v, pipelined);
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
                .prose(&d.message);
            hint_html(&mut h, d);
            h.raw("</li>");
        }
        h.raw("</ul>");
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::explore::check_pipelined;

    fn example(name: &str) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
        std::fs::read_to_string(format!("{dir}/{name}")).unwrap()
    }

    #[test]
    fn a_pasted_program_is_checked_against_the_loop_with_its_fix() {
        let text = example("rfc_c_interleaved.py");
        let tvm = crate::tvm::explore_tvm(&text, false, &Default::default());
        let printed = tvm.printed.map(|p| p.text).unwrap_or_default();
        let params = Default::default();
        let html = check_html(&check_pipelined(&text, &printed, &params), &text, &printed);
        assert!(
            html.contains("id=\"check-verdict\" class=\"verdict racy\""),
            "{html}"
        );
        assert!(
            html.contains("its count 2 lower leaves no race on it"),
            "{html}"
        );
        // Races alike are one item each, the others counted (TVM's program: 6 races in 2
        // groups, the first of 4 and one of 2).
        let races = &html[html.find("<h3>Races</h3>").unwrap()..];
        assert_eq!(races.matches("<li>line ").count(), 2, "{races}");
        assert!(
            races.contains("(and 3 more races like it)")
                && races.contains("(and 1 more race like it)"),
            "{races}"
        );
        let fixed = printed.replace("async_wait_queue(0, 5)", "async_wait_queue(0, 3)");
        let html = check_html(&check_pipelined(&text, &fixed, &params), &text, &fixed);
        assert!(html.contains("verdict equivalent"), "{html}");
        // A token awaited twice is a located error of the program, not a verdict.
        let tokens = "for i in range(16):\n    with async_start(0) as q0[i]:\n        with async_scope():\n            A_sh[0] = A[i]\n            B_sh[0] = B[i]\n    with async_done(q0[i]):\n        C[i] = A_sh[0] + B_sh[0]\n    with async_done(q0[i]):\n        C[i] = A_sh[0] + B_sh[0]\n";
        let html = check_html(&check_pipelined(&text, tokens, &params), &text, tokens);
        assert!(html.contains("Read in token form"), "{html}");
        assert!(
            html.contains("<li class=\"check-problem\">line 8:"),
            "{html}"
        );
        let blank = check_pipelined(&text, " ", &params);
        assert_eq!(check_html(&blank, &text, " "), CHECK_INVITATION);
    }

    /// What the verifier finds besides races is shown at its line of the pasted program: a
    /// negative count with its fix, a loose wait with how loose, an element that differs.
    #[test]
    fn problems_loose_waits_and_differences_are_located() {
        let text = example("rfc_c_interleaved.py");
        let ex = crate::explore::explore(&text, &Default::default());
        let ours = crate::explore::traced_printed(&ex).unwrap().text.clone();
        let params = Default::default();
        let check =
            |pasted: &str| check_html(&check_pipelined(&text, pasted, &params), &text, pasted);
        let (at, count) = ours
            .lines()
            .enumerate()
            .find_map(|(k, l)| {
                let c = l
                    .trim()
                    .strip_prefix("with async_wait_queue(0, ")?
                    .strip_suffix("):")?;
                Some((k + 1, c.parse::<i64>().ok()?))
            })
            .unwrap();
        let with_count = |c: i64| {
            ours.replacen(
                &format!("async_wait_queue(0, {count})"),
                &format!("async_wait_queue(0, {c})"),
                1,
            )
        };
        let html = check(&with_count(-1));
        assert!(html.contains("verdict invalid"), "{html}");
        assert!(
            html.contains(&format!(
                "<li class=\"error\">line {at}: this wait&#39;s count is -1"
            )),
            "{html}"
        );
        assert!(
            html.contains("<div class=\"hint\">Fix: a wait count is"),
            "{html}"
        );
        let html = check(&with_count(count - 1));
        assert!(html.contains("verdict safebutloose"), "{html}");
        assert!(
            html.contains(&format!(
                "<li>line {at}: <code>with async_wait_queue(0, {}):</code> waits for more than the program needs: a count 1 higher still leaves no race",
                count - 1
            )),
            "{html}"
        );
        // The consumer writes one element too far along: C[0] is never written.
        let shifted = ours.replace("C[i - 3] =", "C[i - 2] =");
        assert_ne!(shifted, ours);
        let html = check(&shifted);
        assert!(html.contains("<h3>Differences</h3>"), "{html}");
        assert!(
            html.contains("<li><code>C[0]</code>: the loop computes "),
            "{html}"
        );
        assert!(
            html.contains(", this program never writes it</li>"),
            "{html}"
        );
    }

    #[test]
    fn markup_in_a_pasted_program_is_text() {
        let text = example("rfc_c_interleaved.py");
        let pasted =
            "with async_wait_queue(0, 1):  # <img src=x onerror=alert(1)>\n    B[0] = \"<b>\"\n";
        let html = check_html(
            &check_pipelined(&text, pasted, &Default::default()),
            &text,
            pasted,
        );
        assert!(!html.contains("<img") && !html.contains("<b>"), "{html}");
    }
}
