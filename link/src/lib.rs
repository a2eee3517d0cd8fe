//! The explorer's state without a page: what it shows (`State`: the text, the printed form, the pane,
//! the parameters, the zoom, the code target), how a link and this browser's saved work carry it
//! (`encode` / `decode`, the versioned `#v1/…` format; `document`, one piece of saved work), and the examples a state starts from
//! (`presets`). No DOM and no reactivity: the app, the url_state fuzz target and native tests use
//! it alike.

mod codec;
mod deflate;
pub mod document;
mod inflate;
pub mod presets;
mod state;
mod v1;

pub use codec::{decode, encode, DecodeError, MAX_HASH_BYTES};
pub use stagecraft::emit::Target;
pub use stagecraft::pipelined::Form;
pub use state::{CodeTarget, Pane, ProgramView, State};

/// The decoder's layers one by one, for the fuzz targets (`fuzz/`, feature `fuzzing`).
#[cfg(feature = "fuzzing")]
pub mod layers {
    pub use crate::deflate::compress;
    pub use crate::inflate::decompress;
    pub use crate::v1::{from_json, to_json};
}
