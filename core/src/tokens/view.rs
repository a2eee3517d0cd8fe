//! The Pipelined program pane's token view, drawn by the worker: Stagecraft's program in token
//! form, each `async_done` line marked so that it reads apart from the statements, with the count
//! it translates (the comment `write.rs` puts on it) set apart.

use super::TokenForm;
use crate::html::Html;

/// `form` drawn, under a sentence on how tokens read (text escaped).
pub fn tokens_html(form: &TokenForm) -> String {
    let mut h = Html::with_capacity(form.text.len() * 2);
    h.raw("<p class=\"view-note\">Each commit group is a token (<code>q0[i]</code>: queue 0, iteration i); a wait is the <code>async_done</code> of the newest token it needs, and its count is the number of tokens of that queue committed after it.</p>");
    h.raw("<pre id=\"token-program\" class=\"program tokens\">");
    for (k, line) in form.text.lines().enumerate() {
        let done = form.waits.iter().any(|w| w.line == k + 1);
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_wait_of_the_token_form_carries_its_translation() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
        let text = std::fs::read_to_string(format!("{dir}/rfc_b_two_async_stages.py")).unwrap();
        let ex = crate::explore::explore(&text, &Default::default());
        let form = crate::explore::tokens(&ex, crate::pipelined::Form::Rolled).unwrap();
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
