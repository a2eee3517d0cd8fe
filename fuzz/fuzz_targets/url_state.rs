//! The app's link codec (`stagecraft-link`): arbitrary hashes never panic, every decoded state
//! survives encode → decode unchanged, and any text a user can type makes a link that opens to
//! exactly that text.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft_link::{decode, encode, State, MAX_HASH_BYTES};

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    match decode(&input) {
        Ok(s) => assert_eq!(decode(&encode(&s)).as_ref(), Ok(&s)),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    if input.len() <= stagecraft::limits::MAX_SOURCE_BYTES {
        let s = State {
            text: input.into_owned(),
            ..State::default()
        };
        let link = encode(&s);
        if link.len() <= MAX_HASH_BYTES {
            assert_eq!(decode(&link).as_ref(), Ok(&s));
        }
    }
});
