//! Arbitrary bytes into the lexer, parser and name resolution: no panic, every diagnostic inside
//! the text, every highlighting token too.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft_fuzz::{assert_located, assert_span_in};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = stagecraft::parser::parse(&text);
    assert_located(&parsed.diagnostics, &text, "the parser");
    let lowered = stagecraft::lower::lower(&parsed.file);
    assert_located(&lowered.diagnostics, &text, "name resolution");
    for token in stagecraft::lexer::highlight_tokens(&text) {
        assert_span_in(token.span, &text, "a highlighting token");
    }
});
