//! What keeps the page's state alive without drawing anything: the core's worker (`engine`), the
//! conversation that keeps what is shown answering what is asked (`exploring`), saved work as
//! documents in this browser (`documents`), the schedule search and the previews beside the
//! exploration (`searching`), and the clipboard (`clipboard`).

pub mod clipboard;
pub mod documents;
pub mod engine;
pub mod exploring;
pub mod searching;
