//! The worker's side of the page ↔ worker protocol: each line of the input a request as the page
//! posts it, decoded, taken by a `Session` and worked on (a bounded number of units). No panic;
//! a request the worker cannot read is a plain error; every answer is one the page reads back,
//! its id readable without decoding it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft::protocol::{decode_request, decode_response, encode_response, response_id};
use stagecraft::session::Session;

/// Units of work done after each request: enough for an exploration and several parts.
const UNITS: usize = 12;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut session = Session::new(|| 0.0);
    for line in text.lines().take(4) {
        match decode_request(line) {
            Ok(request) => session.receive(request),
            Err(e) => {
                assert!(!e.is_empty());
                continue;
            }
        }
        for _ in 0..UNITS {
            let Some(response) = session.work() else {
                break;
            };
            let bytes = encode_response(&response);
            assert_eq!(response_id(&bytes), Some(response.id), "an answer's id");
            if let Err(e) = decode_response(&bytes) {
                panic!(
                    "the page cannot read an answer: {e}\n{}",
                    String::from_utf8_lossy(&bytes)
                );
            }
        }
    }
});
