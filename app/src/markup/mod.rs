//! Markup as strings, without a page: the builder and its escaping (`html`, the core's, which also
//! writes what the worker draws), numbers and verdicts as text (`format`), and the editor's
//! highlighted overlay (`highlight`). The large, read-only outputs are written once per
//! exploration as one `innerHTML` (`stagecraft::html` says why); the worker draws the Search pane,
//! the Pipelined program pane's other views and the step-through.

pub mod format;
pub mod highlight;
pub mod html;
