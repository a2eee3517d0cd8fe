//! The link decoder of the app (`app/src/state.rs`, compiled here as it is): arbitrary hashes never
//! panic, every decoded state survives encode → decode unchanged, and any text a user can type makes
//! a link that opens to exactly that text.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../app/src/state.rs"]
#[allow(dead_code)]
mod state;

/// What `state.rs` takes from the app's preset list.
mod presets {
    pub const DEFAULT: &str = include_str!("../../examples/rfc_a_async_copy.py");
}

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    match state::decode(&input) {
        Ok(s) => assert_eq!(state::decode(&state::encode(&s)).as_ref(), Ok(&s)),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    if input.len() <= stagecraft::limits::MAX_SOURCE_BYTES {
        let s = state::State {
            text: input.into_owned(),
            ..state::State::default()
        };
        let link = state::encode(&s);
        if link.len() <= state::MAX_HASH_BYTES {
            assert_eq!(state::decode(&link).as_ref(), Ok(&s));
        }
    }
});
