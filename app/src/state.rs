//! What a link carries: the whole explorer state as JSON, deflated and base64url-encoded behind a
//! version prefix (`#v1/...`). Old versions keep decoding: `decode` migrates every known version to
//! the current `State`. The same string is what this browser autosaves.
//!
//! The JSON, deflate and inflate are this crate's own (`state/`), written to the format serde_json
//! and miniz_oxide produce (the tests compare byte for byte): those two libraries made the gzipped
//! bundle 294.7 KB instead of 268.1 KB, against a budget of 300 KB (measured 2026-11-23 with
//! scripts/build-web.sh).

use base64::Engine;
use std::collections::BTreeMap;

// Explicit paths: fuzz/fuzz_targets/url_state.rs compiles this file on its own by path.
#[path = "state/deflate.rs"]
mod deflate;
#[path = "state/inflate.rs"]
mod inflate;
#[path = "state/json.rs"]
mod json;

pub const MAX_HASH_BYTES: usize = stagecraft::limits::MAX_URL_HASH_BYTES;

#[derive(Clone, Debug, PartialEq)]
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

impl State {
    /// The JSON object of v1 links (field names and order as the serde encoder wrote them).
    fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + 96);
        out.push_str("{\"text\":");
        json::write_string(&mut out, &self.text);
        out.push_str(",\"form\":");
        json::write_string(&mut out, &self.form);
        out.push_str(",\"pane\":");
        json::write_string(&mut out, &self.pane);
        out.push_str(",\"params\":");
        json::write_int_map(&mut out, &self.params);
        out.push_str(",\"zoom\":");
        out.push_str(&self.zoom.to_string());
        out.push_str(",\"target\":");
        json::write_string(&mut out, &self.target);
        out.push('}');
        out
    }

    /// Reads the JSON object of a v1 link: missing fields keep their defaults, unknown ones are
    /// ignored, a field of the wrong type makes the whole state unreadable.
    fn from_json(text: &str) -> Option<State> {
        let value = json::parse(text)?;
        let json::Value::Object(_) = value else {
            return None;
        };
        let mut s = State::default();
        let string = |key: &str, into: &mut String| -> Option<()> {
            match value.get(key) {
                None => Some(()),
                Some(json::Value::Str(v)) => {
                    *into = v.clone();
                    Some(())
                }
                Some(_) => None,
            }
        };
        string("text", &mut s.text)?;
        string("form", &mut s.form)?;
        string("pane", &mut s.pane)?;
        string("target", &mut s.target)?;
        match value.get("zoom") {
            None => {}
            Some(json::Value::Int(z)) => s.zoom = u32::try_from(*z).ok()?,
            Some(_) => return None,
        }
        match value.get("params") {
            None => {}
            Some(json::Value::Object(fields)) => {
                for (name, v) in fields {
                    let json::Value::Int(n) = v else { return None };
                    s.params.insert(name.clone(), *n);
                }
            }
            Some(_) => return None,
        }
        Some(s)
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
    let packed = deflate::compress(state.to_json().as_bytes());
    let mut out = String::from("v1/");
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
    let json = inflate::decompress(&packed, 4 * MAX_HASH_BYTES * 16).ok_or(
        DecodeError::Corrupt("not deflate data, or too large once inflated"),
    )?;
    let state = std::str::from_utf8(&json)
        .ok()
        .and_then(State::from_json)
        .ok_or(DecodeError::Corrupt("not a Stagecraft state"))?;
    // The text's own limits are not the decoder's: a link beyond them is refused, saying which
    // (`persist::start`), and saved work is restored whatever its size.
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
            form: &s.form,
            pane: &s.pane,
            params: &s.params,
            zoom: s.zoom,
            target: &s.target,
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
                form: "peeled".into(),
                pane: "code".into(),
                params: [("N".to_string(), 7), ("M".to_string(), -3)].into(),
                zoom: 42,
                target: "amdgpu".into(),
            };
            assert_eq!(decode(&old_encode(&s)), Ok(s.clone()));
            let ours = s.to_json();
            let theirs = String::from_utf8(old_json(&s)).expect("utf-8");
            assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn missing_unknown_and_mistyped_fields() {
        assert_eq!(
            State::from_json(r#"{"text": "x", "future": [1, {"a": 2}]}"#),
            Some(State {
                text: "x".into(),
                ..State::default()
            })
        );
        assert_eq!(State::from_json(r#"{"zoom": "big"}"#), None);
        assert_eq!(State::from_json(r#"{"zoom": -1}"#), None);
        assert_eq!(State::from_json(r#"{"params": {"N": 1.5}}"#), None);
        assert_eq!(State::from_json("[]"), None);
    }

    pub const FROZEN_V1: &str = include_str!("../tests/frozen_v1_link.txt");
}
