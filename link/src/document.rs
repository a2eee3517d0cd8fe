//! A document: one piece of saved work in this browser, under a key of its own, so that two tabs
//! never share one slot. It keeps the state as a link carries it (`v1/…`), a name and when it was
//! saved, and a revision that every save raises: a tab that finds a revision other than the one
//! it last read knows another tab wrote the document meanwhile, and does not write over it.
//!
//! Stored as a small JSON object, `{"document":1,…}`; a record of a later format, or a damaged one,
//! reads as `None` and is left alone.

use crate::presets;
use crate::v1::write_string;
use serde_json::Value;
use std::fmt::Write;

/// The format `write` produces.
const FORMAT: i64 = 1;

/// A name is shown in one line of a menu.
pub const MAX_NAME_CHARS: usize = 60;

#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub name: String,
    /// When it was last saved, in milliseconds since 1970 (the browser's `Date.now()`).
    pub saved_ms: i64,
    /// Raised by every save.
    pub revision: u64,
    /// The state, as `encode` writes it (without the `#`).
    pub state: String,
}

pub fn write(doc: &Document) -> String {
    let mut out = format!("{{\"document\":{FORMAT},\"name\":");
    write_string(&mut out, &doc.name);
    let _ = write!(
        out,
        ",\"saved\":{},\"revision\":{},\"state\":",
        doc.saved_ms, doc.revision
    );
    write_string(&mut out, &doc.state);
    out.push('}');
    out
}

pub fn read(text: &str) -> Option<Document> {
    let v: Value = serde_json::from_str(text).ok()?;
    if v.get("document").and_then(Value::as_i64) != Some(FORMAT) {
        return None;
    }
    let string = |key| v.get(key).and_then(Value::as_str).map(str::to_string);
    let int = |key| v.get(key).and_then(Value::as_i64);
    Some(Document {
        name: string("name")?,
        saved_ms: int("saved")?,
        revision: u64::try_from(int("revision")?).ok()?,
        state: string("state")?,
    })
}

/// What a document is called: its first comment line (as every example begins with one), else the
/// example it is, else its first line.
pub fn name_of(text: &str) -> String {
    let comment = text
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix('#').map(str::trim).filter(|c| !c.is_empty()));
    let name = comment
        .or_else(|| {
            presets::PRESETS
                .iter()
                .find(|(_, t)| *t == text)
                .map(|(n, _)| *n)
        })
        .or_else(|| {
            text.lines()
                .map(str::trim)
                .find(|l| !l.trim_start_matches('#').trim().is_empty())
        })
        .unwrap_or("Empty document");
    shorten(name)
}

fn shorten(name: &str) -> String {
    if name.chars().count() <= MAX_NAME_CHARS {
        return name.to_string();
    }
    let mut s: String = name.chars().take(MAX_NAME_CHARS - 1).collect();
    s.truncate(s.trim_end().len());
    s.push('…');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes_and_refuses_other_formats() {
        let doc = Document {
            name: "a \"quoted\" name é".into(),
            saved_ms: 1_764_089_000_123,
            revision: 7,
            state: "v1/abc-_".into(),
        };
        let text = write(&doc);
        assert_eq!(
            text,
            "{\"document\":1,\"name\":\"a \\\"quoted\\\" name é\",\"saved\":1764089000123,\"revision\":7,\"state\":\"v1/abc-_\"}"
        );
        assert_eq!(read(&text), Some(doc));
        assert_eq!(
            read(&text.replace("\"document\":1", "\"document\":2")),
            None
        );
        assert_eq!(
            read(&text.replace("\"revision\":7", "\"revision\":-7")),
            None
        );
        assert_eq!(read("v1/abc"), None);
        assert_eq!(read(""), None);
    }

    #[test]
    fn names_come_from_the_first_comment_the_example_or_the_first_line() {
        assert_eq!(
            name_of(presets::DEFAULT),
            "RFC 0077, example (a): the first stage is asynchronous."
        );
        assert_eq!(name_of("\n  #   mine  \nx = 1\n"), "mine");
        assert_eq!(name_of("#\nx = 1 # not this\n"), "x = 1 # not this");
        assert_eq!(name_of("   \n"), "Empty document");
        let long = name_of(&format!("# {}\n", "word ".repeat(30)));
        assert_eq!(long.chars().count(), MAX_NAME_CHARS);
        assert!(long.ends_with("word…"), "{long}");
        // Every example is told apart by its name.
        let mut names: Vec<_> = presets::PRESETS.iter().map(|(_, t)| name_of(t)).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), presets::PRESETS.len());
    }
}
