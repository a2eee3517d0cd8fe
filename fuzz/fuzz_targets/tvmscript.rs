//! TVMScript, in both spellings (`T.block`, 0.27's `T.sblock`), through its reader and TVM 0.27's
//! pass as reproduced: no panic, every diagnostic and refusal inside the text. A PrimFunc read
//! without an error has a loop-language twin — the tree it reads to, printed — which parses back
//! cleanly to itself and pipelines exactly as the PrimFunc does.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft::diagnostic::Diagnostic;
use stagecraft::tvm::{inject_software_pipeline, Outcome};
use stagecraft::tvmscript::{detect, parse_with_scopes, Dialect};
use stagecraft_fuzz::{assert_located, assert_span_in, assert_twin};

fuzz_target!(|data: &[u8]| {
    let mut text = String::from_utf8_lossy(data).into_owned();
    // Only a text detected as TVMScript reaches the reader (the loop language's is `parse`'s;
    // TileLang, detected before TVMScript, is the `tilelang` target's).
    match detect(&text) {
        Dialect::TileLang => return,
        Dialect::TvmScript => {}
        _ => text.insert_str(0, "import tvm\n"),
    }
    let (parsed, dialect, _) = parse_with_scopes(&text);
    assert_eq!(dialect, Dialect::TvmScript);
    assert_located(&parsed.diagnostics, &text, "the TVMScript reader");
    let lowered = stagecraft::lower::lower(&parsed.file);
    assert_located(&lowered.diagnostics, &text, "name resolution");

    let tvm = inject_software_pipeline(&text);
    assert_located(&tvm.diagnostics, &text, "TVM's pass");
    match &tvm.outcome {
        Some(Outcome::Rejected(r)) => assert_span_in(r.span, &text, "TVM's refusal"),
        Some(Outcome::NotReproduced { span, .. }) => assert_span_in(*span, &text, "not reproduced"),
        _ => {}
    }

    if parsed
        .diagnostics
        .iter()
        .chain(&lowered.diagnostics)
        .any(Diagnostic::is_error)
    {
        return;
    }
    assert_twin(&parsed.file, &text, "PrimFunc");
});
