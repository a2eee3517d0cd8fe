//! What keeps the page's state alive without drawing anything: exploring the text again within the
//! main thread's budgets (`recompute`), warming the WebAssembly code up in idle time (`warm`), and
//! where the first state comes from and when it is saved (`persist`), and executing the kernel the
//! Code pane shows (`machine`).

pub mod machine;
pub mod persist;
pub mod recompute;
pub mod warm;
