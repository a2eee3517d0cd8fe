//! What a link carries: the whole explorer state, serialized with serde, deflated and
//! base64url-encoded behind a version prefix (`#v1/...`). Old versions keep decoding: `decode`
//! migrates every known version to the current `State`.

use base64::Engine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const MAX_HASH_BYTES: usize = stagecraft::limits::MAX_URL_HASH_BYTES;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct State {
    pub text: String,
    /// "rolled" or "peeled".
    pub form: String,
    /// The pane shown: "program", "verification", "timeline", "space", "code".
    pub pane: String,
    /// Values of symbolic extents.
    pub params: BTreeMap<String, i64>,
    /// Timeline zoom (pixels per 100 cycles).
    pub zoom: u32,
    /// Code pane target.
    pub target: String,
}

impl Default for State {
    fn default() -> Self {
        State {
            text: crate::presets::DEFAULT.to_string(),
            form: "rolled".into(),
            pane: "program".into(),
            params: BTreeMap::new(),
            zoom: 10,
            target: "tir".into(),
        }
    }
}

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
    let json = serde_json::to_vec(state).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("v1/{}", ENGINE.encode(packed))
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
    match version {
        "v1" => decode_v1(payload),
        other => Err(DecodeError::UnknownVersion(
            other.chars().take(12).collect(),
        )),
    }
}

fn decode_v1(payload: &str) -> Result<State, DecodeError> {
    let packed = ENGINE
        .decode(payload.trim_end_matches('='))
        .map_err(|_| DecodeError::Corrupt("not base64url"))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, 4 * MAX_HASH_BYTES * 16)
        .map_err(|_| DecodeError::Corrupt("not deflate data, or too large once inflated"))?;
    let state: State = serde_json::from_slice(&json)
        .map_err(|_| DecodeError::Corrupt("not a Stagecraft state"))?;
    if state.text.len() > stagecraft::limits::MAX_SOURCE_BYTES {
        return Err(DecodeError::TooLarge(state.text.len()));
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let s = State {
            form: "peeled".into(),
            params: [("N".to_string(), 7)].into(),
            ..State::default()
        };
        assert_eq!(decode(&format!("#{}", encode(&s))), Ok(s));
    }

    /// A link made by v1 must open forever: this one is frozen (RFC (a), peeled form, timeline pane).
    #[test]
    fn frozen_v1_link_still_opens() {
        let frozen = FROZEN_V1;
        let s = decode(frozen).expect("a v1 link decodes");
        assert!(s.text.contains("software_pipeline_async_stages"));
        assert_eq!(s.form, "peeled");
        assert_eq!(s.pane, "timeline");
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

    pub const FROZEN_V1: &str = include_str!("../tests/frozen_v1_link.txt");
}
