//! Markup as strings, without a page: the builder and its escaping (`html`, core's, which also
//! writes what the worker draws), numbers and verdicts as text (`format`), and the editor's
//! highlighted overlay (`highlight`). The large, read-only outputs are written once per
//! exploration as one `innerHTML` (`html` says why).

pub mod format;
pub mod highlight;
pub mod html;
pub mod views;
