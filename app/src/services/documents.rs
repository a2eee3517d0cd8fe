//! Saved work as documents in this browser's storage, each under a key of its own
//! (`stagecraft.document.<id>`), so that a link, a second tab or an example never writes over
//! someone's work:
//! - a tab remembers its document across reloads (session storage) and the URL's hash follows the
//!   document shown (`history.replaceState`, as it is saved), so a reload shows the newest state;
//! - a link opens as a new document, stored once it is edited (`model::documents::open`);
//! - the documents a tab shows are marked held (`stagecraft.open.<id>`), so a new tab opens the
//!   newest one no other tab shows;
//! - every save raises the document's revision: a tab that finds another revision than its own
//!   does not write over it but saves its version as a new document, and a tab without unsaved
//!   edits takes another tab's saved version as it comes (storage events);
//! - the last `MAX_DOCUMENTS` are kept; deleting one can be undone.
//!
//! The one slot of earlier versions (`stagecraft.v2.state`, before it `stagecraft.v1.text`)
//! becomes the first document.

use crate::ctx::Ctx;
use crate::dom;
use crate::model::documents::{self as model, Found, Opening, Summary, TabMemory};
use leptos::prelude::*;
use stagecraft_link::document::{self, Document};
use stagecraft_link::{decode, encode, State};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

const DOCUMENT_PREFIX: &str = "stagecraft.document.";
/// Which tab shows a document: `stagecraft.open.<document id>` = the tab's id.
const HELD_PREFIX: &str = "stagecraft.open.";
/// In session storage (one per tab): `TabMemory`.
const TAB_KEY: &str = "stagecraft.tab";
/// What earlier versions saved, migrated into the first document.
pub const OLD_STATE_KEY: &str = "stagecraft.v2.state";
pub const OLD_TEXT_KEY: &str = "stagecraft.v1.text";
/// Typing pauses this long before the document is saved (and the page hiding saves it at once).
const SAVE_DELAY_MS: u64 = 300;

/// The documents, the one this tab shows, and what can be done with them (the Documents menu).
#[derive(Clone, Copy)]
pub struct Documents {
    /// Every stored document, newest first.
    pub list: RwSignal<Vec<Summary>>,
    /// The id of the document this tab shows.
    pub shown: RwSignal<String>,
    /// The document deleted last, until it is restored or another is deleted.
    pub deleted: RwSignal<Option<(String, Document)>>,
    tab: StoredValue<Tab>,
    pending: StoredValue<Option<TimeoutHandle>>,
    st: RwSignal<State>,
    banner: RwSignal<Option<String>>,
    undo: RwSignal<Vec<(String, String)>>,
}

/// What this tab knows of the document it shows.
struct Tab {
    /// This tab, as the held marks name it.
    tab_id: String,
    id: String,
    /// It is in storage (else it is stored once edited).
    stored: bool,
    /// Its revision when this tab last read or wrote it.
    revision: u64,
    /// The state it was opened with: a document not stored yet is stored once this is edited.
    opened: State,
    /// The state as stored (encoded; empty when it is not): the same state is not written again.
    written: String,
    /// A state and its encoding: the last one encoded, read or written (encoding a large text is
    /// not free, and most saves are of a state just encoded).
    known: (State, String),
}

fn local() -> Option<web_sys::Storage> {
    dom::storage()
}

fn session() -> Option<web_sys::Storage> {
    dom::window()?.session_storage().ok().flatten()
}

fn now() -> i64 {
    js_sys::Date::now() as i64
}

/// Unique enough among one browser's documents and tabs: the time and a random number.
fn new_id() -> String {
    let random = (js_sys::Math::random() * 2f64.powi(40)) as u64;
    format!("{}{}", radix36(now().unsigned_abs()), radix36(random))
}

fn radix36(mut n: u64) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(char::from_digit((n % 36) as u32, 36).unwrap_or('0'));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().collect()
}

fn keys(storage: &web_sys::Storage, prefix: &str) -> Vec<String> {
    let n = storage.length().unwrap_or(0);
    (0..n)
        .filter_map(|i| storage.key(i).ok().flatten())
        .filter_map(|k| k.strip_prefix(prefix).map(str::to_string))
        .collect()
}

fn stored(storage: &web_sys::Storage) -> Vec<(String, Document)> {
    keys(storage, DOCUMENT_PREFIX)
        .into_iter()
        .filter_map(|id| {
            let doc = storage
                .get_item(&format!("{DOCUMENT_PREFIX}{id}"))
                .ok()
                .flatten()
                .and_then(|t| document::read(&t))?;
            Some((id, doc))
        })
        .collect()
}

fn read(storage: &web_sys::Storage, id: &str) -> Option<Document> {
    storage
        .get_item(&format!("{DOCUMENT_PREFIX}{id}"))
        .ok()
        .flatten()
        .and_then(|t| document::read(&t))
}

fn summaries(storage: &web_sys::Storage) -> Vec<Summary> {
    let mut list: Vec<Summary> = stored(storage)
        .into_iter()
        .map(|(id, d)| Summary {
            id,
            name: d.name,
            saved_ms: d.saved_ms,
        })
        .collect();
    model::newest_first(&mut list);
    list
}

/// What this tab opens: the earlier versions' slot migrated first, if it is all there is.
pub fn load() -> Opening {
    let hash = dom::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    let Some(storage) = local() else {
        // Storage disabled: links and the default example still open, nothing is kept.
        return model::open(&Found {
            hash: &hash,
            tab: None,
            documents: &[],
            held: &[],
        });
    };
    let mut documents = stored(&storage);
    let mut migration_failed = None;
    if documents.is_empty() {
        let item = |key: &str| storage.get_item(key).ok().flatten();
        match model::migrate(
            item(OLD_STATE_KEY).as_deref(),
            item(OLD_TEXT_KEY).as_deref(),
            now(),
        ) {
            Some(Ok(doc)) => {
                let id = new_id();
                if storage
                    .set_item(&format!("{DOCUMENT_PREFIX}{id}"), &document::write(&doc))
                    .is_ok()
                {
                    let _ = storage.remove_item(OLD_STATE_KEY);
                    let _ = storage.remove_item(OLD_TEXT_KEY);
                    documents.push((id, doc));
                }
            }
            Some(Err(why)) => migration_failed = Some(why),
            None => {}
        }
    }
    let tab = session()
        .and_then(|s| s.get_item(TAB_KEY).ok().flatten())
        .and_then(|t| TabMemory::read(&t));
    let held = keys(&storage, HELD_PREFIX);
    let mut opening = model::open(&Found {
        hash: &hash,
        tab,
        documents: &documents,
        held: &held,
    });
    if opening.banner.is_none() {
        opening.banner = migration_failed;
    }
    opening
}

/// Keeps the document `opening` shows saved as it is edited, and the other tabs' changes seen.
pub fn keep(ctx: Ctx, opening: Opening) -> Documents {
    let stored = opening.id.is_some();
    let docs = Documents {
        list: RwSignal::new(Vec::new()),
        shown: RwSignal::new(String::new()),
        deleted: RwSignal::new(None),
        tab: StoredValue::new(Tab {
            tab_id: new_id(),
            id: opening.id.unwrap_or_else(new_id),
            stored,
            revision: opening.revision.unwrap_or(0),
            written: if stored {
                opening.encoded.clone().unwrap_or_default()
            } else {
                String::new()
            },
            known: (
                opening.state.clone(),
                opening.encoded.unwrap_or_else(|| encode(&opening.state)),
            ),
            opened: opening.state,
        }),
        pending: StoredValue::new(None),
        st: ctx.st,
        banner: ctx.banner,
        undo: ctx.undo,
    };
    docs.shown.set(docs.tab.with_value(|t| t.id.clone()));
    docs.hold();
    docs.refresh();
    // Every change is saved a moment later; the first run writes this tab's hash and memory.
    let st = ctx.st;
    Effect::new(move |_| {
        st.track();
        docs.schedule();
    });
    docs.listen();
    docs
}

impl Documents {
    /// `state` as a link carries it.
    fn encoded(self, state: &State) -> String {
        if let Some(known) = self
            .tab
            .with_value(|t| (t.known.0 == *state).then(|| t.known.1.clone()))
        {
            return known;
        }
        let encoded = encode(state);
        self.tab
            .update_value(|t| t.known = (state.clone(), encoded.clone()));
        encoded
    }

    fn schedule(self) {
        if let Some(h) = self.pending.try_update_value(|p| p.take()).flatten() {
            h.clear();
        }
        let handle = set_timeout_with_handle(
            move || {
                self.pending.set_value(None);
                self.save();
            },
            std::time::Duration::from_millis(SAVE_DELAY_MS),
        )
        .ok();
        self.pending.set_value(handle);
    }

    /// Saves now what is waiting to be saved (before a link is copied, the page is hidden or
    /// another document is shown).
    pub fn flush(self) {
        if let Some(h) = self.pending.try_update_value(|p| p.take()).flatten() {
            h.clear();
            self.save();
        }
    }

    /// Points the URL and this tab's memory at the state shown, and stores it if it is the user's.
    fn save(self) {
        let state = self.st.get_untracked();
        let encoded = self.encoded(&state);
        if let Some(w) = dom::window() {
            let hash = format!("#{encoded}");
            if w.location().hash().ok().as_deref() != Some(hash.as_str()) {
                let _ = w.history().and_then(|h| {
                    h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&hash))
                });
            }
        }
        let id = self.tab.with_value(|t| t.id.clone());
        if let Some(s) = session() {
            let memory = TabMemory {
                id: id.clone(),
                hash: encoded.clone(),
            };
            let _ = s.set_item(TAB_KEY, &memory.write());
        }
        let (unchanged, worth_storing) = self.tab.with_value(|t| {
            (
                t.written == encoded,
                t.stored || model::edited(&t.opened, &state),
            )
        });
        if unchanged || !worth_storing {
            return;
        }
        let Some(storage) = local() else { return };
        let theirs = read(&storage, &id);
        let revision = self.tab.with_value(|t| t.revision);
        let id = match theirs {
            // Another tab saved this document since this one read it: both versions are kept.
            Some(doc) if doc.revision != revision && doc.state != encoded => {
                let copy = new_id();
                self.release();
                self.tab.update_value(|t| {
                    t.id = copy.clone();
                    t.revision = 0;
                });
                self.shown.set(copy.clone());
                self.banner.set(Some(format!(
                    "Another tab saved “{}” while you were editing it here: your version is kept \
                     as a document of its own (in Documents).",
                    doc.name
                )));
                copy
            }
            Some(doc) if doc.revision != revision => {
                self.tab.update_value(|t| t.revision = doc.revision);
                id
            }
            _ => id,
        };
        let doc = Document {
            name: document::name_of(&state.text),
            saved_ms: now(),
            revision: self.tab.with_value(|t| t.revision) + 1,
            state: encoded.clone(),
        };
        if storage
            .set_item(&format!("{DOCUMENT_PREFIX}{id}"), &document::write(&doc))
            .is_err()
        {
            self.banner.set(Some(
                "Your work could not be saved in this browser (its storage is full or turned \
                 off): Copy link keeps it in the link."
                    .to_string(),
            ));
            return;
        }
        self.tab.update_value(|t| {
            t.stored = true;
            t.revision = doc.revision;
            t.written = encoded;
        });
        if let Some(s) = session() {
            let memory = TabMemory {
                id: id.clone(),
                hash: doc.state.clone(),
            };
            let _ = s.set_item(TAB_KEY, &memory.write());
        }
        self.hold();
        for old in model::beyond_the_limit(&summaries(&storage), &id) {
            let _ = storage.remove_item(&format!("{DOCUMENT_PREFIX}{old}"));
            let _ = storage.remove_item(&format!("{HELD_PREFIX}{old}"));
        }
        self.refresh();
    }

    /// Reads the list of documents again.
    pub fn refresh(self) {
        if let Some(storage) = local() {
            self.list.set(summaries(&storage));
        }
    }

    /// Marks the document shown as held by this tab (if it is stored).
    fn hold(self) {
        let (tab_id, id, stored) = self
            .tab
            .with_value(|t| (t.tab_id.clone(), t.id.clone(), t.stored));
        if let (true, Some(storage)) = (stored, local()) {
            let _ = storage.set_item(&format!("{HELD_PREFIX}{id}"), &tab_id);
        }
    }

    /// Removes this tab's mark from the document shown.
    fn release(self) {
        let (tab_id, id) = self.tab.with_value(|t| (t.tab_id.clone(), t.id.clone()));
        if let Some(storage) = local() {
            let key = format!("{HELD_PREFIX}{id}");
            if storage.get_item(&key).ok().flatten().as_deref() == Some(tab_id.as_str()) {
                let _ = storage.remove_item(&key);
            }
        }
    }

    /// Shows `state` as the document `id` (stored at `revision`, if it is), instead of the one shown.
    fn show(self, id: String, stored: Option<(u64, String)>, state: State) {
        self.flush();
        self.release();
        self.tab.update_value(|t| {
            t.id = id.clone();
            t.stored = stored.is_some();
            t.revision = stored.as_ref().map_or(0, |(r, _)| *r);
            t.written = stored.map(|(_, s)| s).unwrap_or_default();
            if t.stored {
                t.known = (state.clone(), t.written.clone());
            }
            t.opened = state.clone();
        });
        self.shown.set(id);
        self.hold();
        // The examples' undo is of the document shown.
        self.undo.set(Vec::new());
        if self
            .banner
            .with_untracked(|b| b.as_deref() == Some(model::FROM_LINK))
        {
            self.banner.set(None);
        }
        self.st.set(state);
        self.refresh();
    }

    /// Shows the stored document `id` in this tab.
    pub fn open(self, id: &str) {
        let Some(doc) = local().and_then(|s| read(&s, id)) else {
            self.refresh();
            return;
        };
        match decode(&doc.state) {
            Ok(state) => self.show(id.to_string(), Some((doc.revision, doc.state)), state),
            Err(e) => self.banner.set(Some(format!(
                "“{}” could not be read ({e}); it is left as it is.",
                doc.name
            ))),
        }
    }

    /// Shows a new document with the default example, stored once edited.
    pub fn create(self) {
        self.show(new_id(), None, State::default());
    }

    /// Shows `state` (a lesson's loop) as a new document, stored once edited: the work shown
    /// before stays as it was saved.
    pub fn create_with(self, state: State) {
        self.show(new_id(), None, state);
    }

    /// Stores `state` as a new document, not shown (work about to be replaced in the document
    /// shown); its name, or `None` when the browser's storage refused it.
    pub fn keep_copy(self, state: &State) -> Option<String> {
        let storage = local()?;
        let doc = Document {
            name: document::name_of(&state.text),
            saved_ms: now(),
            revision: 1,
            state: self.encoded(state),
        };
        storage
            .set_item(
                &format!("{DOCUMENT_PREFIX}{}", new_id()),
                &document::write(&doc),
            )
            .ok()?;
        self.refresh();
        Some(doc.name)
    }

    /// Deletes a stored document other than the one shown; `restore` brings it back.
    pub fn delete(self, id: &str) {
        if self.tab.with_value(|t| t.id == id) {
            return;
        }
        let Some(storage) = local() else { return };
        if let Some(doc) = read(&storage, id) {
            let _ = storage.remove_item(&format!("{DOCUMENT_PREFIX}{id}"));
            self.deleted.set(Some((id.to_string(), doc)));
        }
        self.refresh();
    }

    /// Brings the document deleted last back.
    pub fn restore(self) {
        let Some((id, doc)) = self.deleted.try_update(Option::take).flatten() else {
            return;
        };
        if let Some(storage) = local() {
            let _ = storage.set_item(&format!("{DOCUMENT_PREFIX}{id}"), &document::write(&doc));
        }
        self.refresh();
    }

    /// Another tab saved, deleted or added a document.
    fn changed(self, key: &str, new_value: Option<String>) {
        let Some(id) = key.strip_prefix(DOCUMENT_PREFIX) else {
            return;
        };
        self.refresh();
        if !self.tab.with_value(|t| t.id == id) {
            return;
        }
        let state = self.st.get_untracked();
        let now = self.encoded(&state);
        let unsaved = self
            .tab
            .with_value(|t| t.written != now && (t.stored || model::edited(&t.opened, &state)));
        match new_value.as_deref().and_then(document::read) {
            // Its newer version, unless this tab has edits of its own (its save keeps both).
            Some(doc) if !unsaved && doc.revision > self.tab.with_value(|t| t.revision) => {
                if let Ok(state) = decode(&doc.state) {
                    self.tab.update_value(|t| {
                        t.stored = true;
                        t.revision = doc.revision;
                        t.written = doc.state.clone();
                        t.known = (state.clone(), doc.state.clone());
                    });
                    self.st.set(state);
                }
            }
            None if new_value.is_none() => {
                let name = self.st.with_untracked(|s| document::name_of(&s.text));
                self.tab.update_value(|t| {
                    t.stored = false;
                    t.written.clear();
                    t.opened = self.st.get_untracked();
                });
                self.banner.set(Some(format!(
                    "“{name}” was deleted in another tab; editing it here saves it again."
                )));
            }
            _ => {}
        }
    }

    /// A hash this tab did not write: a link pasted into the address bar opens as a new document.
    fn hash_changed(self) {
        let Some(w) = dom::window() else { return };
        let hash = w.location().hash().unwrap_or_default();
        // `replaceState` fires no hashchange: a hash this tab wrote is one of its own history's.
        let shown = self.encoded(&self.st.get_untracked());
        let own = hash.strip_prefix('#') == Some(shown.as_str());
        if own || hash.len() <= 1 {
            return;
        }
        let documents = local().map(|s| stored(&s)).unwrap_or_default();
        let opening = model::open(&Found {
            hash: &hash,
            tab: None,
            documents: &documents,
            held: &[],
        });
        let banner = opening.banner.clone();
        self.show(new_id(), None, opening.state);
        self.banner.set(banner);
    }

    /// Storage events from other tabs; the page hidden (saved at once, no longer held) and shown
    /// again; the hash changed by hand.
    fn listen(self) {
        let Some(w) = dom::window() else { return };
        let on_storage = Closure::<dyn Fn(web_sys::Event)>::new(move |ev: web_sys::Event| {
            if let Ok(ev) = ev.dyn_into::<web_sys::StorageEvent>() {
                if let Some(key) = ev.key() {
                    self.changed(&key, ev.new_value());
                }
            }
        });
        let on_hide = Closure::<dyn Fn()>::new(move || {
            self.flush();
            self.release();
        });
        let on_show = Closure::<dyn Fn()>::new(move || self.hold());
        let on_hash = Closure::<dyn Fn()>::new(move || self.hash_changed());
        for (event, f) in [
            ("storage", on_storage.as_ref()),
            ("pagehide", on_hide.as_ref()),
            ("pageshow", on_show.as_ref()),
            ("hashchange", on_hash.as_ref()),
        ] {
            let _ = w.add_event_listener_with_callback(event, f.unchecked_ref());
        }
        on_storage.forget();
        on_hide.forget();
        on_show.forget();
        on_hash.forget();
    }
}
