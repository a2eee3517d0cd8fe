//! Where the first state comes from and when this browser's copy is written. A link (good or
//! damaged) wins over the saved state but never overwrites it until the user edits; without a link
//! the last saved state comes back whole (text, form, parameters, pane, zoom, target).

use crate::dom;
use leptos::prelude::*;
use stagecraft_link::{decode, encode, State};
use wasm_bindgen::JsCast;

/// The whole state, as the `v1/…` string of a link.
pub const STATE_KEY: &str = "stagecraft.v2.state";
/// What earlier versions saved: the text only. Read when no state is saved (migration).
pub const OLD_TEXT_KEY: &str = "stagecraft.v1.text";
/// Typing pauses this long before the state is written (and the page hiding writes it at once).
const SAVE_DELAY_MS: u64 = 300;

pub struct Start {
    pub state: State,
    /// Something the user should know about where the state came from.
    pub banner: Option<String>,
    pub from_link: bool,
}

/// The first state, from the location hash and what this browser saved.
pub fn start(hash: &str, saved: Option<&str>, old_text: Option<&str>) -> Start {
    if hash.len() > 1 {
        return match decode(hash) {
            // A link of a few hundred bytes can hold tens of thousands of blank lines, which the
            // browser lays out in the editor in one long task: refused, as a paste of them is.
            // (Saved work is the user's own, and is restored whatever its size.)
            Ok(state) => match stagecraft::limits::source_beyond_limits(&state.text) {
                Some(why) => Start {
                    state: State::default(),
                    banner: Some(format!(
                        "The link's text is not shown: {why}. Showing the default example; your \
                         saved work is untouched."
                    )),
                    from_link: true,
                },
                None => Start {
                    state,
                    banner: None,
                    from_link: true,
                },
            },
            Err(e) => Start {
                state: State::default(),
                banner: Some(format!(
                    "{e}. Showing the default example; your saved work is untouched."
                )),
                from_link: true,
            },
        };
    }
    let mut banner = None;
    if let Some(saved) = saved {
        match decode(saved) {
            Ok(state) => {
                return Start {
                    state,
                    banner: None,
                    from_link: false,
                }
            }
            Err(e) => {
                banner = Some(format!(
                    "The state saved in this browser could not be read ({e})."
                ))
            }
        }
    }
    let mut state = State::default();
    if let Some(text) = old_text {
        state.text = text.to_string();
    }
    Start {
        state,
        banner,
        from_link: false,
    }
}

/// Whether `now` is the user's own work rather than what a link showed them: looking around (pane,
/// zoom, code target) is not an edit; the text, the form and the parameters are.
pub fn edited(opened: &State, now: &State) -> bool {
    opened.text != now.text || opened.form != now.form || opened.params != now.params
}

/// The state of this page at load: from the link or from storage.
pub fn load() -> Start {
    let hash = dom::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    let stored = |key: &str| dom::storage().and_then(|s| s.get_item(key).ok().flatten());
    start(
        &hash,
        stored(STATE_KEY).as_deref(),
        stored(OLD_TEXT_KEY).as_deref(),
    )
}

/// Writes the state to storage a moment after each change (and when the page is hidden), unless the
/// page was opened from a link and nothing was edited yet.
pub fn autosave(st: RwSignal<State>, opened: State, from_link: bool) {
    let opened = StoredValue::new(opened);
    let save = move || {
        let s = st.get_untracked();
        if from_link && !opened.with_value(|o| edited(o, &s)) {
            return;
        }
        if let Some(storage) = dom::storage() {
            let _ = storage.set_item(STATE_KEY, &encode(&s));
        }
    };
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |first: Option<()>| {
        st.track();
        if first.is_none() && !from_link {
            // Without a link, what is shown is what is saved: nothing to write yet.
            return;
        }
        if let Some(h) = pending.try_update_value(|p| p.take()).flatten() {
            h.clear();
        }
        let handle = set_timeout_with_handle(
            move || {
                pending.set_value(None);
                save();
            },
            std::time::Duration::from_millis(SAVE_DELAY_MS),
        )
        .ok();
        pending.set_value(handle);
    });
    // Closing the tab right after typing must not lose the last keystrokes.
    let flush = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
        if let Some(h) = pending.try_update_value(|p| p.take()).flatten() {
            h.clear();
            save();
        }
    });
    if let Some(w) = dom::window() {
        let _ = w.add_event_listener_with_callback("pagehide", flush.as_ref().unchecked_ref());
    }
    flush.forget();
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_link::{CodeTarget, Form, Pane, Target};

    #[test]
    fn a_link_wins_but_saved_state_restores_whole_and_old_text_migrates() {
        let saved = State {
            text: "for i in range(3):\n    C[i] = A[i]\n".into(),
            pane: Pane::Code,
            target: CodeTarget::Machine(Target::Amdgpu),
            form: Form::Peeled,
            ..State::default()
        };
        let encoded = encode(&saved);
        let link = State {
            pane: Pane::Timeline,
            ..State::default()
        };
        let s = start(&format!("#{}", encode(&link)), Some(&encoded), None);
        assert!(s.from_link && s.banner.is_none());
        assert_eq!(s.state, link);
        let s = start("", Some(&encoded), Some("old"));
        assert!(!s.from_link);
        assert_eq!(s.state, saved);
        let s = start("#", None, Some("old text"));
        assert_eq!(s.state.text, "old text");
        assert_eq!(s.state.pane, Pane::Program);
        let s = start("#v1/garbage!", Some(&encoded), None);
        assert!(s.from_link);
        assert!(s.banner.as_deref().is_some_and(|b| b.contains("untouched")));
        assert_eq!(s.state, State::default());
        let s = start("", Some("v1/garbage!"), Some("old"));
        assert!(s.banner.is_some());
        assert_eq!(s.state.text, "old");
    }

    #[test]
    fn a_link_beyond_the_text_limits_is_refused_but_saved_work_is_restored() {
        let long = State {
            text: "\n".repeat(stagecraft::limits::MAX_SOURCE_LINES),
            ..State::default()
        };
        let encoded = encode(&long);
        let s = start(&format!("#{encoded}"), None, None);
        assert_eq!(s.state, State::default());
        assert_eq!(
            s.banner.as_deref(),
            Some(
                "The link's text is not shown: the text has 4097 lines; Stagecraft reads at most \
                 4096 lines. Showing the default example; your saved work is untouched."
            )
        );
        assert_eq!(start("", Some(&encoded), None).state, long);
        let large = State {
            text: "#".repeat(stagecraft::limits::MAX_SOURCE_BYTES + 1),
            ..State::default()
        };
        let encoded = encode(&large);
        let s = start(&format!("#{encoded}"), None, None);
        assert!(
            s.banner.as_deref().is_some_and(|b| b.starts_with(
                "The link's text is not shown: the text is 65537 bytes; Stagecraft reads at most \
                 65536 bytes."
            )),
            "{:?}",
            s.banner
        );
        assert_eq!(start("", Some(&encoded), None).state, large);
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
}
