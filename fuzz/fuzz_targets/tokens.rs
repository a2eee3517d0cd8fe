//! The token form (`with async_start(q) as q0[n]:`, `with async_done(q0[a]):`) through its reader:
//! no panic, every diagnostic inside the text; a program read without an error, written in token
//! form again and read back, is the same program.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft::diagnostic::Diagnostic;
use stagecraft::tokens::{from_tokens, to_tokens};
use stagecraft_fuzz::assert_located;
use std::collections::BTreeMap;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let params = BTreeMap::new();
    let read = from_tokens(&text, &params);
    assert_located(&read.diagnostics, &text, "the token reader");
    let Some(program) = read.program else { return };
    if read.diagnostics.iter().any(Diagnostic::is_error) {
        return;
    }
    let printed = stagecraft::tir::print(&program).text;
    let written = to_tokens(&program, &params);
    let again = from_tokens(&written.text, &params);
    assert!(
        !again.diagnostics.iter().any(Diagnostic::is_error),
        "the token form written of\n{text}\ndoes not read back:\n{}\n{:?}",
        written.text,
        again.diagnostics
    );
    let again = again.program.map(|p| stagecraft::tir::print(&p).text);
    assert_eq!(
        again.as_deref(),
        Some(printed.as_str()),
        "token form:\n{}",
        written.text
    );
});
