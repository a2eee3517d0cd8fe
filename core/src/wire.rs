//! The core's types in two serde formats: JSON for people and tools (`stagecraft … --json`,
//! docs/json.md) and postcard between the page and the worker (`protocol`).
//!
//! Postcard is not self-describing: a value is read back field by field in the order it was
//! written, which is what keeps the page's readers small (a struct's reader is a sequence of its
//! fields' readers — no field names matched, no maps visited, no numbers parsed from text). Two of
//! JSON's conveniences need what postcard lacks, and this module gives each a compact form:
//! - a field JSON omits when empty (`skip_serializing_if`) is always written in the compact form:
//!   the predicates here say "omit" only while no compact encoding is under way (`compact`);
//! - an internally tagged enum (`{"judgement": "loose_by", "k": 2}`) is read through a buffer of
//!   any value: `dual_tagged!` derives it twice, the JSON form and an externally tagged compact
//!   form, and picks by the format (`is_human_readable`).

use std::cell::Cell;
use std::collections::BTreeMap;

thread_local! {
    /// A compact encoding is under way on this thread.
    static COMPACT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (a postcard encoding) with every field written, JSON's empty ones included.
pub fn compact<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            COMPACT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(COMPACT.with(|c| c.replace(true)));
    f()
}

fn in_json() -> bool {
    !COMPACT.with(Cell::get)
}

/// JSON omits a `None`.
pub fn omit_none<T>(v: &Option<T>) -> bool {
    v.is_none() && in_json()
}

/// JSON omits an empty list.
pub fn omit_empty<T>(v: &[T]) -> bool {
    v.is_empty() && in_json()
}

/// JSON omits an empty string.
pub fn omit_empty_text(v: &str) -> bool {
    v.is_empty() && in_json()
}

/// JSON omits an empty map.
pub fn omit_empty_map<K, V>(v: &BTreeMap<K, V>) -> bool {
    v.is_empty() && in_json()
}

/// JSON omits a value equal to its default.
pub fn omit_default<T: Default + PartialEq>(v: &T) -> bool {
    in_json() && *v == T::default()
}

/// A field only JSON carries (the command line prints it; the page is never sent it, and no
/// reader reads it back: `skip_deserializing`).
pub fn json_only<T>(_: &T) -> bool {
    !in_json()
}

/// An enum whose JSON form is internally or adjacently tagged (`json(tag = "…")`), written
/// externally tagged in the compact form. `remote` is the enum's name as a string: serde's
/// `remote` derive makes the compact form's reader and writer on the enum itself
/// (`remote = "Self"`, as inherent functions) and the JSON form's on a copy of its definition.
macro_rules! dual_tagged {
    (
        remote = $remote:literal, json($($json:tt)*) $(, both($($both:tt)*))?;
        $(#[$attr:meta])*
        $vis:vis enum $name:ident { $($body:tt)* }
    ) => {
        $(#[$attr])*
        #[derive(serde::Serialize, serde::Deserialize)]
        #[serde(remote = "Self" $(, $($both)*)?)]
        $vis enum $name { $($body)* }

        const _: () = {
            #[allow(dead_code)]
            #[derive(serde::Serialize, serde::Deserialize)]
            #[serde(remote = $remote, $($json)* $(, $($both)*)?)]
            enum Json { $($body)* }

            impl serde::Serialize for $name {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    if s.is_human_readable() {
                        Json::serialize(self, s)
                    } else {
                        $name::serialize(self, s)
                    }
                }
            }

            impl<'de> serde::Deserialize<'de> for $name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    if d.is_human_readable() {
                        Json::deserialize(d)
                    } else {
                        $name::deserialize(d)
                    }
                }
            }
        };
    };
}
pub(crate) use dual_tagged;
