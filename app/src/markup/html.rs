//! Markup written as strings: core's writer (`stagecraft::html`), which also writes what the
//! worker draws for the page, so that one escaper serves both.

pub use stagecraft::html::*;
