//! Saved work as documents, decided without the page: which document a tab opens (a link is always
//! a new one; a reload is the tab's own; otherwise the newest no other tab shows), which to forget
//! beyond the last `MAX_DOCUMENTS`, what one-slot storage of earlier versions becomes, and how a
//! time is told. `services::documents` reads and writes the browser's storage with these.

use stagecraft_link::document::{self, Document};
use stagecraft_link::{decode, State};

/// The documents kept: saving one more forgets the least recently saved.
pub const MAX_DOCUMENTS: usize = 20;

/// A document as the menu lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub id: String,
    pub name: String,
    pub saved_ms: i64,
}

/// What the tab remembers across reloads (the browser keeps it per tab): its document, and the
/// hash it last wrote, which tells its own reload from a link pasted into its address bar.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TabMemory {
    pub id: String,
    pub hash: String,
}

impl TabMemory {
    pub fn write(&self) -> String {
        format!("{}\n{}", self.id, self.hash)
    }

    pub fn read(text: &str) -> Option<TabMemory> {
        let (id, hash) = text.split_once('\n')?;
        Some(TabMemory {
            id: id.to_string(),
            hash: hash.to_string(),
        })
    }
}

/// What a tab opens at load.
#[derive(Debug, PartialEq)]
pub struct Opening {
    /// The document's id: a stored one, or a new one (`None`) saved once it is edited.
    pub id: Option<String>,
    pub state: State,
    /// The state as a link carries it, when it is at hand (the link, the stored document): a
    /// large text is not encoded again to know it.
    pub encoded: Option<String>,
    /// The stored document's revision, when it is one.
    pub revision: Option<u64>,
    pub banner: Option<String>,
}

/// Storage as a tab finds it at load.
pub struct Found<'a> {
    /// The location's hash, with its `#`.
    pub hash: &'a str,
    pub tab: Option<TabMemory>,
    /// Every stored document, by id.
    pub documents: &'a [(String, Document)],
    /// The documents other tabs show.
    pub held: &'a [String],
}

pub const FROM_LINK: &str = "Opened from a link — your own work is in Documents.";

pub fn open(found: &Found) -> Opening {
    let stored = |id: &str| found.documents.iter().find(|(i, _)| i == id);
    let own = found.tab.as_ref().and_then(|t| {
        let hash = found.hash.strip_prefix('#').unwrap_or(found.hash);
        (hash.is_empty() || t.hash == hash).then_some(t)
    });
    if let Some(tab) = own {
        // A reload: the document as stored (another tab showing it may have saved it since), else
        // what this tab showed and had not saved.
        if let Some((id, doc)) = stored(&tab.id) {
            if let Ok(state) = decode(&doc.state) {
                return Opening {
                    id: Some(id.clone()),
                    state,
                    encoded: Some(doc.state.clone()),
                    revision: Some(doc.revision),
                    banner: None,
                };
            }
        }
        if let Ok(state) = decode(&tab.hash) {
            return Opening {
                id: None,
                state,
                encoded: Some(tab.hash.clone()),
                revision: None,
                banner: None,
            };
        }
    }
    if found.hash.len() > 1 {
        return from_link(found.hash, !found.documents.is_empty());
    }
    let newest = found
        .documents
        .iter()
        .filter(|(id, _)| !found.held.contains(id))
        .filter_map(|(id, doc)| Some((id, doc, decode(&doc.state).ok()?)))
        .max_by_key(|(_, doc, _)| doc.saved_ms);
    match newest {
        Some((id, doc, state)) => Opening {
            id: Some(id.clone()),
            state,
            encoded: Some(doc.state.clone()),
            revision: Some(doc.revision),
            banner: None,
        },
        None => Opening {
            id: None,
            state: State::default(),
            encoded: None,
            revision: None,
            banner: None,
        },
    }
}

/// A link (good or damaged) opens as a new document; the user's own are untouched.
fn from_link(hash: &str, have_documents: bool) -> Opening {
    let link = hash.strip_prefix('#').unwrap_or(hash);
    let (state, encoded, banner) = match decode(link) {
        // A link of a few hundred bytes can hold tens of thousands of blank lines, which the
        // browser lays out in the editor in one long task: refused, as a paste of them is.
        // (Saved work is the user's own, and is restored whatever its size.)
        Ok(state) => match stagecraft::limits::source_beyond_limits(&state.text) {
            Some(why) => (
                State::default(),
                None,
                Some(format!(
                    "The link's text is not shown: {why}. Showing the default example; your \
                     saved work is untouched."
                )),
            ),
            None => (
                state,
                Some(link.to_string()),
                have_documents.then(|| FROM_LINK.to_string()),
            ),
        },
        Err(e) => (
            State::default(),
            None,
            Some(format!(
                "{e}. Showing the default example; your saved work is untouched."
            )),
        ),
    };
    Opening {
        id: None,
        state,
        encoded,
        revision: None,
        banner,
    }
}

/// What earlier versions saved in their one slot: the whole state (`v1/…`), or before that the
/// text alone. Becomes the first document; `Err` says why a saved state could not be read (the
/// slot is then left as it is).
pub fn migrate(
    saved_state: Option<&str>,
    saved_text: Option<&str>,
    now_ms: i64,
) -> Option<Result<Document, String>> {
    let (state, encoded) = match (saved_state, saved_text) {
        (Some(saved), _) => match decode(saved) {
            Ok(state) => (state, saved.to_string()),
            Err(e) => {
                return Some(Err(format!(
                    "The state saved in this browser could not be read ({e})."
                )))
            }
        },
        (None, Some(text)) => {
            let state = State {
                text: text.to_string(),
                ..State::default()
            };
            let encoded = stagecraft_link::encode(&state);
            (state, encoded)
        }
        (None, None) => return None,
    };
    Some(Ok(Document {
        name: document::name_of(&state.text),
        saved_ms: now_ms,
        revision: 1,
        state: encoded,
    }))
}

/// Whether `now` is the user's own work rather than what they were shown (a link, an example):
/// looking around (pane, zoom, code target) is not an edit; the text, the form and the parameters
/// are.
pub fn edited(opened: &State, now: &State) -> bool {
    opened.text != now.text || opened.form != now.form || opened.params != now.params
}

/// The documents to forget so that `MAX_DOCUMENTS` remain: the least recently saved, never `keep`
/// (the one being saved).
pub fn beyond_the_limit(documents: &[Summary], keep: &str) -> Vec<String> {
    let mut others: Vec<&Summary> = documents.iter().filter(|d| d.id != keep).collect();
    let room = MAX_DOCUMENTS.saturating_sub(documents.len() - others.len());
    if others.len() <= room {
        return Vec::new();
    }
    others.sort_by_key(|d| std::cmp::Reverse(d.saved_ms));
    others
        .split_off(room)
        .into_iter()
        .map(|d| d.id.clone())
        .collect()
}

/// The menu's order: the most recently saved first.
pub fn newest_first(documents: &mut [Summary]) {
    documents.sort_by(|a, b| b.saved_ms.cmp(&a.saved_ms).then_with(|| a.id.cmp(&b.id)));
}

/// How long ago `then` was, as the menu says it.
pub fn ago(now_ms: i64, then_ms: i64) -> String {
    let s = (now_ms - then_ms).max(0) / 1000;
    match s {
        0..=59 => "just now".to_string(),
        60..=3599 => units_ago(s / 60, "minute"),
        3600..=86_399 => units_ago(s / 3600, "hour"),
        _ => units_ago(s / 86_400, "day"),
    }
}

fn units_ago(n: i64, unit: &str) -> String {
    format!("{} ago", stagecraft::english::count(n, unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_link::{encode, CodeTarget, Form, Pane, Target};

    fn doc(text: &str, saved_ms: i64) -> Document {
        let state = State {
            text: text.into(),
            ..State::default()
        };
        Document {
            name: document::name_of(text),
            saved_ms,
            revision: 3,
            state: encode(&state),
        }
    }

    fn found<'a>(
        hash: &'a str,
        tab: Option<TabMemory>,
        documents: &'a [(String, Document)],
        held: &'a [String],
    ) -> Found<'a> {
        Found {
            hash,
            tab,
            documents,
            held,
        }
    }

    #[test]
    fn a_link_is_a_new_document_and_says_where_the_users_work_is() {
        let docs = [("a".to_string(), doc("# mine\n", 10))];
        let link = State {
            text: "# theirs\n".into(),
            pane: Pane::Timeline,
            ..State::default()
        };
        let hash = format!("#{}", encode(&link));
        let o = open(&found(&hash, None, &docs, &[]));
        assert_eq!((o.id, o.revision), (None, None));
        assert_eq!(o.state, link);
        assert_eq!(o.banner.as_deref(), Some(FROM_LINK));
        // With no work of the user's, there is nothing to point at.
        assert_eq!(open(&found(&hash, None, &[], &[])).banner, None);
        // A tab whose last hash was another one: a link pasted into its address bar.
        let tab = TabMemory {
            id: "a".into(),
            hash: docs[0].1.state.clone(),
        };
        assert_eq!(open(&found(&hash, Some(tab), &docs, &[])).state, link);
        let bad = open(&found("#v1/garbage!", None, &docs, &[]));
        assert!(bad.banner.is_some_and(|b| b.contains("untouched")));
        assert_eq!(bad.state, State::default());
    }

    #[test]
    fn a_reload_opens_the_tabs_own_document_as_stored_or_as_it_showed_it() {
        let docs = [
            ("a".to_string(), doc("# a\n", 10)),
            ("b".to_string(), doc("# b, newer\n", 20)),
        ];
        let tab = TabMemory {
            id: "a".into(),
            hash: "v1/whatever-it-wrote-last".into(),
        };
        let hash = format!("#{}", tab.hash);
        let o = open(&found(&hash, Some(tab.clone()), &docs, &[]));
        assert_eq!((o.id.as_deref(), o.revision), (Some("a"), Some(3)));
        assert_eq!(o.state.text, "# a\n");
        // Not saved (a link looked at, not edited): what the tab showed.
        let unsaved = State {
            text: "# looked at\n".into(),
            ..State::default()
        };
        let tab = TabMemory {
            id: "gone".into(),
            hash: encode(&unsaved),
        };
        let hash = format!("#{}", tab.hash);
        let o = open(&found(&hash, Some(tab), &docs, &[]));
        assert_eq!((o.id, o.state, o.banner), (None, unsaved, None));
    }

    #[test]
    fn a_new_tab_opens_the_newest_document_no_other_tab_shows() {
        let docs = [
            ("a".to_string(), doc("# a\n", 10)),
            ("b".to_string(), doc("# b\n", 30)),
            ("c".to_string(), doc("# c\n", 20)),
        ];
        assert_eq!(open(&found("", None, &docs, &[])).id.as_deref(), Some("b"));
        let held = ["b".to_string()];
        assert_eq!(
            open(&found("#", None, &docs, &held)).id.as_deref(),
            Some("c")
        );
        let held = ["a".to_string(), "b".to_string(), "c".to_string()];
        let o = open(&found("", None, &docs, &held));
        assert_eq!((o.id, o.state), (None, State::default()));
    }

    #[test]
    fn the_one_slot_of_earlier_versions_becomes_a_document() {
        let saved = State {
            text: "# saved\nfor i in range(3):\n    C[i] = A[i]\n".into(),
            pane: Pane::Code,
            target: CodeTarget::Machine(Target::Amdgpu),
            form: Form::Peeled,
            ..State::default()
        };
        let d = migrate(Some(&encode(&saved)), Some("older"), 5)
            .and_then(Result::ok)
            .expect("migrates");
        assert_eq!((d.name.as_str(), d.saved_ms, d.revision), ("saved", 5, 1));
        assert_eq!(decode(&d.state), Ok(saved));
        let d = migrate(None, Some("x = 1\n"), 5)
            .and_then(Result::ok)
            .expect("migrates");
        assert_eq!(decode(&d.state).map(|s| s.text), Ok("x = 1\n".to_string()));
        assert!(migrate(Some("v1/garbage!"), None, 5).is_some_and(|r| r.is_err()));
        assert_eq!(migrate(None, None, 5), None);
    }

    #[test]
    fn beyond_the_limit_the_least_recently_saved_are_forgotten_never_the_one_saved() {
        let docs: Vec<Summary> = (0..23)
            .map(|k| Summary {
                id: format!("d{k}"),
                name: String::new(),
                saved_ms: 100 + k,
            })
            .collect();
        assert_eq!(beyond_the_limit(&docs, "d22"), ["d2", "d1", "d0"]);
        assert_eq!(beyond_the_limit(&docs, "d0"), ["d3", "d2", "d1"]);
        assert!(beyond_the_limit(&docs[..20], "d5").is_empty());
        assert_eq!(beyond_the_limit(&docs[..21], "new"), ["d0"]);
    }

    #[test]
    fn a_link_beyond_the_text_limits_is_refused_but_saved_work_is_restored() {
        let long = State {
            text: "\n".repeat(stagecraft::limits::MAX_SOURCE_LINES),
            ..State::default()
        };
        let hash = format!("#{}", encode(&long));
        let o = open(&found(&hash, None, &[], &[]));
        assert_eq!((o.state, o.encoded), (State::default(), None));
        assert_eq!(
            o.banner.as_deref(),
            Some(
                "The link's text is not shown: the text has 4097 lines; Stagecraft reads at most \
                 4096 lines. Showing the default example; your saved work is untouched."
            )
        );
        let docs = [(
            "a".to_string(),
            Document {
                name: "long".into(),
                saved_ms: 1,
                revision: 1,
                state: encode(&long),
            },
        )];
        assert_eq!(open(&found("", None, &docs, &[])).state, long);
    }

    #[test]
    fn looking_around_is_not_an_edit() {
        let a = State::default();
        let mut b = a.clone();
        b.pane = Pane::Code;
        b.zoom = 50;
        b.target = CodeTarget::Machine(Target::Ptx);
        assert!(!edited(&a, &b));
        b.form = Form::Peeled;
        assert!(edited(&a, &b));
    }

    #[test]
    fn times_are_told_as_people_say_them() {
        assert_eq!(ago(100_000, 99_000), "just now");
        assert_eq!(ago(100_000, 200_000), "just now");
        assert_eq!(ago(61_000, 0), "1 minute ago");
        assert_eq!(ago(7_300_000, 0), "2 hours ago");
        assert_eq!(ago(3 * 86_400_000, 0), "3 days ago");
    }

    #[test]
    fn the_tabs_memory_reads_what_it_writes() {
        let t = TabMemory {
            id: "k3x".into(),
            hash: "v1/ab".into(),
        };
        assert_eq!(TabMemory::read(&t.write()), Some(t));
        assert_eq!(TabMemory::read("no newline"), None);
    }
}
