//! What keeps the page's state alive without drawing anything: exploring the text again within the
//! main thread's budgets (`recompute`), warming the WebAssembly code up in idle time (`warm`), saved
//! work as documents in this browser (`documents`), the clipboard (`clipboard`), and executing the
//! kernel the Code pane shows (`machine`).

pub mod clipboard;
pub mod documents;
pub mod machine;
pub mod recompute;
pub mod warm;
