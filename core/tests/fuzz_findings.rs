//! What the fuzz targets found (`fuzz/`, docs/fuzzing.md "Findings"), one test each, on the
//! smallest input that showed it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;

/// `tokens`: a parse problem of a program in token form pointed at its own place in the token
/// text, but the place it relates ("the next line is not indented") was left where it is in the
/// count text the token lines are rewritten into, a few bytes off on every line after a rewritten
/// one: inside another line, or inside a character.
#[test]
fn a_token_programs_related_places_are_in_its_own_text() {
    let text = "with async_start(0) as q0[0]:\n    B[0] = A[0]\nfor i in range(4):\nx = \u{e9}\n";
    let read = stagecraft::tokens::from_tokens(text, &BTreeMap::new());
    let d = read
        .diagnostics
        .iter()
        .find(|d| d.message == "this block has no body")
        .expect("the loop without a body is reported");
    let related = d
        .related
        .first()
        .expect("with the line that is not indented");
    let at = text.find("x = ").unwrap();
    assert_eq!(related.span.start as usize, at, "{:?}", d.related);
    assert!(text.is_char_boundary(related.span.end as usize));
}
