//! TVMScript, in both spellings (`T.block`, 0.27's `T.sblock`), through its reader and TVM 0.27's
//! pass as reproduced: no panic, every diagnostic and refusal inside the text. A PrimFunc read
//! without an error has a loop-language twin — the tree it reads to, printed — which parses back
//! cleanly to itself and pipelines exactly as the PrimFunc does.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft::tvm::{inject_software_pipeline, Outcome};
use stagecraft::tvmscript::{detect, Dialect};
use stagecraft_fuzz::{assert_located, assert_span_in, assert_twin, read_dialect};

fuzz_target!(|data: &[u8]| {
    let mut text = String::from_utf8_lossy(data).into_owned();
    // Only a text detected as TVMScript reaches the reader (the loop language's is `parse`'s;
    // TileLang, detected before TVMScript, is the `tilelang` target's).
    match detect(&text) {
        Dialect::TileLang => return,
        Dialect::TvmScript => {}
        _ => text.insert_str(0, "import tvm\n"),
    }
    let file = read_dialect(&text, Dialect::TvmScript, "the TVMScript reader");
    let tvm = inject_software_pipeline(&text);
    assert_located(&tvm.diagnostics, &text, "TVM's pass");
    match &tvm.outcome {
        Some(Outcome::Rejected(r)) => assert_span_in(r.span, &text, "TVM's refusal"),
        Some(Outcome::NotReproduced { span, .. }) => assert_span_in(*span, &text, "not reproduced"),
        _ => {}
    }
    if let Some(file) = file {
        assert_twin(&file, &text, "PrimFunc");
    }
});
