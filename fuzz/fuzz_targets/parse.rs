//! Arbitrary bytes into the lexer, parser and name resolution: no panic, spans inside the text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = stagecraft::parser::parse(&text);
    for d in &parsed.diagnostics {
        assert!(d.span.end as usize <= text.len());
    }
    let _ = stagecraft::lower::lower(&parsed.file);
    let _ = stagecraft::lexer::highlight_tokens(&text);
});
