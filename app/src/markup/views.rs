//! The Pipelined program pane's token view: Stagecraft's program in token form (`stagecraft::tokens`,
//! XLA's `async-start` / `async-done`). Core writes the program and the translation of each wait;
//! this only lays them out. (The TVM 0.27 view and the check view are on branch dialects2: they do
//! not fit the bundle's budget yet, docs/tvm.md.)

use super::html::Html;
use stagecraft::tokens::TokenForm;

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
