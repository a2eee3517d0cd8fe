//! A link carries the whole explorer state: its JSON (`v1.rs`), deflated and base64url-encoded
//! behind a version prefix (`#v1/...`). The same string is what this browser saves. Links are shared
//! and kept for years, so every version ever written keeps decoding: `decode` reads each known
//! version's payload in that version's own form and migrates it to the current `State`, one version
//! at a time, as Compiler Explorer's `url.ts` does with its `loadState`.
//!
//! A new version is a module of its own with its reader and a migration from the one before; `encode`
//! writes only the newest. Fields that older versions can ignore and newer ones can default (a step
//! position, a lesson) need no new version: v1 already reads missing fields as their defaults and
//! skips unknown ones.
//!
//! The JSON is serde_json's (the page holds it already, for the worker's answers). The deflate and
//! inflate are this crate's own, written to the format miniz_oxide produces (the tests compare
//! byte for byte): a general library would add more to the page's bytes than the whole codec.

use crate::state::State;
use crate::{deflate, inflate, v1};
use base64::Engine;

pub const MAX_HASH_BYTES: usize = stagecraft::limits::MAX_URL_HASH_BYTES;

/// The version `encode` writes.
const CURRENT: &str = "v1";

#[derive(Debug, PartialEq)]
pub enum DecodeError {
    TooLarge(usize),
    UnknownVersion(String),
    Corrupt(&'static str),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::TooLarge(n) => write!(
                f,
                "the link is {n} bytes, more than the {MAX_HASH_BYTES} Stagecraft reads"
            ),
            DecodeError::UnknownVersion(v) => write!(
                f,
                "the link has format “{v}”, which this version of Stagecraft does not know"
            ),
            DecodeError::Corrupt(why) => write!(f, "the link is damaged ({why})"),
        }
    }
}

const ENGINE: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

pub fn encode(state: &State) -> String {
    let packed = deflate::compress(v1::to_json(state).as_bytes());
    let mut out = format!("{CURRENT}/");
    ENGINE.encode_string(packed, &mut out);
    out
}

/// Decodes a hash (with or without the leading `#`). Every error is a plain message; nothing panics.
pub fn decode(hash: &str) -> Result<State, DecodeError> {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    if hash.len() > MAX_HASH_BYTES {
        return Err(DecodeError::TooLarge(hash.len()));
    }
    let (version, payload) = hash
        .split_once('/')
        .ok_or(DecodeError::Corrupt("no version prefix"))?;
    // Each older version would be read in its own form and migrated up to the current one here.
    match version {
        "v1" => decode_v1(payload),
        other => Err(DecodeError::UnknownVersion(
            other.chars().take(12).collect(),
        )),
    }
}

/// The bytes of a payload: base64url of deflated data (every version so far).
fn unpack(payload: &str) -> Result<Vec<u8>, DecodeError> {
    let packed = ENGINE
        .decode(payload.trim_end_matches('='))
        .map_err(|_| DecodeError::Corrupt("not base64url"))?;
    inflate::decompress(&packed, 4 * MAX_HASH_BYTES * 16).ok_or(DecodeError::Corrupt(
        "not deflate data, or too large once inflated",
    ))
}

fn decode_v1(payload: &str) -> Result<State, DecodeError> {
    let json = unpack(payload)?;
    let state = std::str::from_utf8(&json)
        .ok()
        .and_then(v1::from_json)
        .ok_or(DecodeError::Corrupt("not a Stagecraft state"))?;
    // The text's own limits are not the decoder's: a link beyond them is refused, saying which
    // (the app's `model::documents::open`), and saved work is restored whatever its size.
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{CodeTarget, Pane};
    use stagecraft::emit::Target;
    use stagecraft::pipelined::Form;
    use std::collections::BTreeMap;

    /// The step-through's position and completion model travel in the link.
    #[test]
    fn the_step_through_position_round_trips() {
        let s = State {
            step: 37,
            completion: stagecraft::steps::CompletionModel::AsTimed,
            ..State::default()
        };
        let encoded = encode(&s);
        assert_eq!(decode(&format!("#{encoded}")), Ok(s));
        let plain = encode(&State::default());
        assert_ne!(encoded, plain);
        assert_eq!(decode(&format!("#{plain}")).map(|s| s.step), Ok(0));
    }

    #[test]
    fn round_trip() {
        let s = State {
            form: Form::Peeled,
            params: [("N".to_string(), 7)].into(),
            ..State::default()
        };
        assert_eq!(decode(&format!("#{}", encode(&s))), Ok(s));
    }

    #[test]
    fn a_lesson_and_counts_set_by_hand_round_trip() {
        let s = State {
            lesson: Some("race-free".into()),
            counts: vec![stagecraft::explore::CountOverride {
                wait: stagecraft::explore::WaitKey {
                    queue: 0,
                    section: stagecraft::ir::SectionKind::Body,
                    before: Some("C[i] = \"B\"[0] + 1".into()),
                    occurrence: 1,
                },
                delta: -1,
            }],
            ..State::default()
        };
        assert_eq!(decode(&format!("#{}", encode(&s))), Ok(s));
        // Without them the link is written as before.
        assert!(!crate::v1::to_json(&State::default()).contains("lesson"));
    }

    #[test]
    fn the_program_view_round_trips_and_is_written_only_when_not_stagecraft_s() {
        for view in crate::state::ProgramView::all() {
            let s = State {
                view,
                ..State::default()
            };
            assert_eq!(decode(&format!("#{}", encode(&s))), Ok(s));
        }
        assert!(!crate::v1::to_json(&State::default()).contains("view"));
        let checked = State {
            view: crate::state::ProgramView::Check,
            pipelined: "for i in range(4):\n    C[i] = A[i]\n".into(),
            ..State::default()
        };
        assert_eq!(decode(&format!("#{}", encode(&checked))), Ok(checked));
        assert!(!crate::v1::to_json(&State::default()).contains("pipelined"));
    }

    #[test]
    fn a_pinned_schedule_round_trips_and_is_written_only_when_set() {
        let s = State {
            pane: crate::state::Pane::Search,
            pinned: Some("for i in range(4):\n    C[i] = A[i]\n".into()),
            ..State::default()
        };
        assert_eq!(decode(&format!("#{}", encode(&s))), Ok(s));
        assert!(!crate::v1::to_json(&State::default()).contains("pinned"));
        // A link written before the Search pane existed names none of it and opens as it did.
        assert_eq!(decode(FROZEN_V1).unwrap().pinned, None);
    }

    /// A link made by v1 must open forever: this one is frozen (RFC (a), peeled form, timeline pane).
    #[test]
    fn frozen_v1_link_still_opens() {
        let frozen = FROZEN_V1;
        let s = decode(frozen).expect("a v1 link decodes");
        assert!(s.text.contains("software_pipeline_async_stages"));
        assert_eq!(s.form, Form::Peeled);
        assert_eq!(s.pane, Pane::Timeline);
    }

    #[test]
    fn corrupt_and_oversized_links_are_plain_errors() {
        assert_eq!(
            decode("#v1/!!!"),
            Err(DecodeError::Corrupt("not base64url"))
        );
        assert_eq!(
            decode("#v1/AAAA"),
            Err(DecodeError::Corrupt(
                "not deflate data, or too large once inflated"
            ))
        );
        assert!(matches!(
            decode("#v9/xyz"),
            Err(DecodeError::UnknownVersion(_))
        ));
        assert!(matches!(
            decode(&"x".repeat(MAX_HASH_BYTES + 1)),
            Err(DecodeError::TooLarge(_))
        ));
        assert_eq!(
            decode("#garbage"),
            Err(DecodeError::Corrupt("no version prefix"))
        );
    }

    /// The encoder this module used before (serde_json + miniz level 9): its links still open.
    #[derive(serde::Serialize)]
    struct OldState<'a> {
        text: &'a str,
        form: &'a str,
        pane: &'a str,
        params: &'a BTreeMap<String, i64>,
        zoom: u32,
        target: &'a str,
    }

    fn old_json(s: &State) -> Vec<u8> {
        serde_json::to_vec(&OldState {
            text: &s.text,
            form: if s.form == Form::Peeled {
                "peeled"
            } else {
                "rolled"
            },
            pane: s.pane.name(),
            params: &s.params,
            zoom: s.zoom,
            target: s.target.name(),
        })
        .expect("serializes")
    }

    fn old_encode(s: &State) -> String {
        let packed = miniz_oxide::deflate::compress_to_vec(&old_json(s), 9);
        format!("v1/{}", ENGINE.encode(packed))
    }

    #[test]
    fn links_of_the_earlier_encoder_open_and_ours_match_its_json() {
        for (_, text) in crate::presets::PRESETS {
            let s = State {
                text: format!("{text}# \"quoted\" \\ tab\t é\n"),
                form: Form::Peeled,
                pane: Pane::Code,
                params: [("N".to_string(), 7), ("M".to_string(), -3)].into(),
                zoom: 42,
                target: CodeTarget::Machine(Target::Amdgpu),
                ..State::default()
            };
            assert_eq!(decode(&old_encode(&s)), Ok(s.clone()));
            let ours = v1::to_json(&s);
            let theirs = String::from_utf8(old_json(&s)).expect("utf-8");
            assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn missing_unknown_and_mistyped_fields() {
        assert_eq!(
            v1::from_json(r#"{"text": "x", "future": [1, {"a": 2}]}"#),
            Some(State {
                text: "x".into(),
                ..State::default()
            })
        );
        assert_eq!(v1::from_json(r#"{"zoom": "big"}"#), None);
        assert_eq!(v1::from_json(r#"{"zoom": -1}"#), None);
        assert_eq!(v1::from_json(r#"{"params": {"N": 1.5}}"#), None);
        assert_eq!(v1::from_json("[]"), None);
    }

    /// Names from links of other versions: a pane this build lacks shows the first one, a code
    /// target it does not emit is kept as written; either way the state survives another round.
    #[test]
    fn names_this_version_does_not_know() {
        let json = r#"{"text":"x","form":"diagonal","pane":"stepping","params":{},"zoom":10,"target":"ptx-sm100"}"#;
        let s = v1::from_json(json).expect("readable");
        assert_eq!(s.form, Form::Rolled);
        assert_eq!(s.pane, Pane::Program);
        assert_eq!(s.target, CodeTarget::Unavailable("ptx-sm100".into()));
        assert_eq!(decode(&encode(&s)), Ok(s));
    }

    pub const FROZEN_V1: &str = include_str!("../tests/frozen_v1_link.txt");
}
