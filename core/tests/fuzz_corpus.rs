//! The committed fuzz corpora still reach what their targets are for. The `request` target reads
//! requests as the page posts them, in postcard, which is not self-describing: a field added to
//! `Options` or a `Want` leaves every request written before it unreadable, and the target then
//! fuzzes the decoder's errors alone, from a corpus that looks as large as ever. Each run of
//! `scripts/fuzz.sh request` merges requests written afresh (`stagecraft requests`) into it.

#![allow(clippy::unwrap_used, clippy::panic)]

use stagecraft::protocol::{decode_request, Job};
use std::path::Path;

/// The requests of one input of the `request` target, as it splits them: each its length, two
/// bytes little-endian, then its bytes.
fn requests(data: &[u8]) -> Vec<&[u8]> {
    let mut rest = data;
    let mut out = Vec::new();
    while let [lo, hi, after @ ..] = rest {
        let n = usize::from(u16::from_le_bytes([*lo, *hi])).min(after.len());
        let (message, after) = after.split_at(n);
        out.push(message);
        rest = after;
    }
    out
}

#[test]
fn the_request_corpus_speaks_the_current_protocol() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/request");
    let files: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|f| std::fs::read(f.unwrap().path()).unwrap())
        .collect();
    let exploring = files
        .iter()
        .filter(|data| {
            requests(data)
                .into_iter()
                .any(|m| decode_request(m).is_ok_and(|r| matches!(r.job, Job::Explore { .. })))
        })
        .count();
    // A corpus merged from fresh seeds has most of its files explore (the rest reach the
    // decoder's errors, or a request without an exploration before it).
    assert!(
        exploring * 4 >= files.len(),
        "only {exploring} of the {} files of fuzz/corpus/request hold an exploration the worker \
         can read: the protocol changed under the corpus. Run `scripts/fuzz.sh request --time 600` \
         to merge requests written afresh into it, and commit it.",
        files.len()
    );
}
