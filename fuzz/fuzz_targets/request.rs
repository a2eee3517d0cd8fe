//! The worker's side of the page ↔ worker protocol: the input requests as the page posts them
//! (each its length, two bytes little-endian, then that many bytes of `encode_request`), each
//! decoded, taken by a `Session` and worked on (a bounded number of units). No panic; a request
//! the worker cannot read is a plain error; every answer is one the page reads back, its id
//! readable without decoding it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stagecraft::protocol::{decode_request, decode_response, encode_response, response_id};
use stagecraft::session::Session;

/// Units of work done after each request: enough for an exploration and several parts.
const UNITS: usize = 12;

/// Requests read from one input.
const REQUESTS: usize = 4;

fuzz_target!(|data: &[u8]| {
    let mut session = Session::new(|| 0.0);
    let mut rest = data;
    for _ in 0..REQUESTS {
        let [lo, hi, after @ ..] = rest else {
            break;
        };
        let (message, after) = after.split_at(usize::from(u16::from_le_bytes([*lo, *hi])).min(after.len()));
        rest = after;
        match decode_request(message) {
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
            match decode_response(&bytes) {
                // Compared by its bytes: a NaN among the figures is a value read back too.
                Ok(read) => assert!(encode_response(&read) == bytes, "an answer read back"),
                Err(e) => panic!("the page cannot read an answer: {e}\n{response:?}"),
            }
        }
    }
});
