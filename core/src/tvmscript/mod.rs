//! TVMScript, the dialect the people who argue about pipelined schedules write: a `@T.prim_func`
//! is read into the same syntax tree the loop parser makes (`read.rs`), its spans in the pasted
//! text, so a PrimFunc explores exactly as its Stagecraft twin does. docs/tvm.md, "TVMScript".

mod print;
mod read;
mod scopes;

pub use print::{print, Refusal};
pub use scopes::{AnnotationEntry, ThreadBinding, TvmScopes};

use crate::parser::Parsed;
use serde::{Deserialize, Serialize};

/// The language a source text is written in, as detected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// Stagecraft's loop language (docs/language.md).
    #[default]
    Stagecraft,
    /// TVMScript: a `@T.prim_func` (TVM ≤ 0.20's `T.block` or 0.27's `T.sblock` spelling).
    TvmScript,
    /// TileLang: a `@T.prim_func` kernel with `T.Kernel`, tile operations and `T.Pipelined`
    /// (docs/tilelang.md).
    TileLang,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Stagecraft => "Stagecraft",
            Dialect::TvmScript => "TVMScript",
            Dialect::TileLang => "TileLang",
        }
    }
}

/// Which dialect `text` is in: TileLang when it imports `tilelang` or uses `T.Kernel` /
/// `T.Pipelined`; else TVMScript when a line is a `prim_func` decorator or imports from `tvm`;
/// the loop language has neither decorators nor imports.
pub fn detect(text: &str) -> Dialect {
    if crate::tilelang::is_tilelang(text) {
        return Dialect::TileLang;
    }
    let tvm = text.lines().any(|line| {
        let line = line.trim_start();
        (line.starts_with('@') && line.contains("prim_func"))
            || line.starts_with("from tvm")
            || line.starts_with("import tvm")
    });
    if tvm {
        Dialect::TvmScript
    } else {
        Dialect::Stagecraft
    }
}

/// `text` parsed in the dialect it is detected to be in: for TVMScript and TileLang, translated
/// into the loop language's tree (spans into `text`), its unsupported constructs located errors.
pub fn parse(text: &str) -> (Parsed, Dialect) {
    let (parsed, dialect, _) = parse_with_scopes(text);
    (parsed, dialect)
}

/// `parse`, and for TVMScript where its blocks put what TVM's pass cares about (which loop
/// allocates each buffer, thread bindings, `double_buffer_scope`): `stagecraft::tvm` reads it.
pub fn parse_with_scopes(text: &str) -> (Parsed, Dialect, Option<TvmScopes>) {
    match detect(text) {
        Dialect::Stagecraft => (crate::parser::parse(text), Dialect::Stagecraft, None),
        Dialect::TvmScript => {
            let (parsed, scopes) = read::read(text);
            (parsed, Dialect::TvmScript, Some(scopes))
        }
        Dialect::TileLang => (crate::tilelang::read(text), Dialect::TileLang, None),
    }
}

/// The loop in `source` as a TVMScript PrimFunc TVM 0.27 parses and pipelines ("Export →
/// TVMScript"), or why it has none: the first error of the text, or what the printer cannot say.
pub fn export(source: &str) -> Result<String, String> {
    let (parsed, _) = parse(source);
    if let Some(d) = parsed.diagnostics.iter().find(|d| d.is_error()) {
        let (line, _) = crate::diagnostic::line_col(source, d.span.start as usize);
        return Err(format!("fix line {line} first: {}", d.message));
    }
    print(&parsed.file)
}
