//! The check view: a loop and a pipelined program pasted beside it (the input's bytes before and
//! after its first NUL), the program in count or token form. No panic; every diagnostic and every
//! problem of a run inside the text it is about; a program in token form is judged exactly as its
//! count-form twin.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft::diagnostic::Diagnostic;
use stagecraft::explore::{check_pipelined, PipelinedCheck};
use stagecraft_fuzz::{assert_located, assert_span_in};
use std::collections::BTreeMap;

/// What the view shows of a check, locations aside.
fn judged(c: &PipelinedCheck) -> Option<(String, usize, usize, usize)> {
    let v = c.verification.as_ref()?;
    Some((
        format!("{:?}", v.verdict),
        v.races.len(),
        v.differences.len(),
        v.problems.len(),
    ))
}

fn errors(c: &PipelinedCheck) -> usize {
    c.diagnostics.iter().filter(|d| d.is_error()).count()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (loop_text, pasted) = text.split_once('\0').unwrap_or(("", &text));
    let params = BTreeMap::new();
    let check = check_pipelined(loop_text, pasted, &params);
    assert_located(&check.loop_diagnostics, loop_text, "the loop");
    assert_located(&check.diagnostics, pasted, "the pasted program");
    if let Some(v) = &check.verification {
        for p in &v.problems {
            assert_span_in(
                p.span,
                pasted,
                &format!("the pasted program's run: {}", p.message),
            );
        }
        for p in &v.original_problems {
            assert_span_in(p.span, loop_text, &format!("the loop's run: {}", p.message));
        }
    }
    let errors_in = |d: &[Diagnostic]| d.iter().any(Diagnostic::is_error);
    if !check.token_form || errors_in(&check.loop_diagnostics) || errors_in(&check.diagnostics) {
        return;
    }
    let Some(program) = stagecraft::tokens::from_tokens(pasted, &params).program else {
        panic!("a token form checked without an error has no program");
    };
    let counts = stagecraft::tir::print(&program).text;
    let twin = check_pipelined(loop_text, &counts, &params);
    assert_eq!(
        errors(&twin),
        0,
        "the count form\n{counts}\nhas errors: {:?}",
        twin.diagnostics
    );
    assert_eq!(
        judged(&check),
        judged(&twin),
        "the token form and its count form\n{counts}\nare judged differently"
    );
});
