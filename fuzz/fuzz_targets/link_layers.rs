//! The link decoder's layers one by one (`url_state` reaches them only through valid base64 and
//! deflate): raw bytes into inflate — no panic, never beyond its limit, and whatever the link's
//! deflate writes inflates back to the bytes — and text into the v1 JSON reader and the reader
//! of a document saved in this browser, whose every state and document survives writing and
//! reading back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft_link::document;
use stagecraft_link::layers::{compress, decompress, from_json, to_json};

const LIMIT: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    if let Some(out) = decompress(data, LIMIT) {
        assert!(out.len() <= LIMIT);
    }
    assert_eq!(
        decompress(&compress(data), data.len()).as_deref(),
        Some(data)
    );
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(state) = from_json(text) {
            assert_eq!(from_json(&to_json(&state)), Some(state));
        }
        if let Some(doc) = document::read(text) {
            assert_eq!(document::read(&document::write(&doc)), Some(doc));
        }
    }
});
