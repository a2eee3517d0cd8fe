//! The page's parts: the header, the editor, the annotation grid and the problems on the left, the
//! panes on the right. Each renders what the shared signals (`ctx`) hold and edits only the state
//! (`Ctx::st`); large outputs are markup strings (`markup`) kept up to date by `render`.

pub mod copy;
pub mod documents;
pub mod editor;
pub mod grid;
pub mod header;
pub mod lessons;
pub mod menu;
pub mod panes;
pub mod problems;
pub mod render;
pub mod scroll;
