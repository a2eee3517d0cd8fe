//! A schedule as the loop's `sch.annotate` lines, and a text with them in place of the ones it
//! has: what the schedule search tries (each schedule explored as text, exactly as a user would
//! write it) and what `stagecraft search --apply` and the app's "Apply" write.

use crate::diagnostic::Span;
use crate::schedule::{ASYNC_KEY, ORDER_KEY, STAGE_KEY};
use serde::{Deserialize, Serialize};

/// The three annotations of one pipelined loop: a stage and an order per unit, and the stages
/// whose units are asynchronous.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Annotations {
    pub stages: Vec<i64>,
    pub orders: Vec<i64>,
    pub async_stages: Vec<i64>,
}

/// `[0, 0, 2]`: an annotation's list as the text writes it.
pub(crate) fn list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

impl Annotations {
    /// The lines that say it for the loop over `var` (no async line when no stage is
    /// asynchronous), each ended by a newline.
    pub fn lines(&self, var: &str) -> String {
        let mut out = format!(
            "sch.annotate({var}, \"{STAGE_KEY}\", {})\nsch.annotate({var}, \"{ORDER_KEY}\", {})\n",
            list(&self.stages),
            list(&self.orders)
        );
        if !self.async_stages.is_empty() {
            out.push_str(&format!(
                "sch.annotate({var}, \"{ASYNC_KEY}\", {})\n",
                list(&self.async_stages)
            ));
        }
        out
    }

    /// The three lists as one line reads them: `stages [0, 1] · order [0, 1] · async [0]`.
    pub fn describe(&self) -> String {
        format!(
            "stages {} · order {} · async {}",
            list(&self.stages),
            list(&self.orders),
            list(&self.async_stages)
        )
    }
}

/// A text with the pipelined loop's stage, order and async lines cut out, and where the new ones
/// go: the place of the first line cut, or the end of the text when it had none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    before: String,
    after: String,
    var: String,
}

impl Template {
    /// The template of `source` for the loop over `var`. An error, said plainly, when the text is
    /// TVMScript (its annotations are a dictionary of the loop, not lines this rewrites).
    pub fn new(source: &str, var: &str) -> Result<Template, String> {
        let (parsed, dialect) = crate::tvmscript::parse(source);
        if dialect == crate::tvmscript::Dialect::TileLang {
            return Err("the search rewrites the loop language's `sch.annotate` lines; a TileLang kernel says its schedule in `T.Pipelined(…)` (search its loop written in the loop language: docs/tilelang.md shows what a kernel reads as)".into());
        }
        if dialect == crate::tvmscript::Dialect::TvmScript {
            return Err("the search rewrites the loop language's `sch.annotate` lines; a TVMScript PrimFunc has none (search the loop written in the loop language: docs/tvm.md, \"TVMScript in\", shows what a PrimFunc reads as)".into());
        }
        let lowered = crate::lower::lower(&parsed.file);
        let mut cut: Vec<Span> = lowered
            .annotations
            .iter()
            .filter(|a| a.var == var && [STAGE_KEY, ORDER_KEY, ASYNC_KEY].contains(&a.key.as_str()))
            .map(|a| whole_lines(source, a.span))
            .collect();
        cut.sort_by_key(|s| s.start);
        let mut kept = String::with_capacity(source.len());
        let mut at = 0usize;
        let mut insert_at = None;
        for span in &cut {
            let (start, end) = (span.start as usize, span.end as usize);
            if start < at {
                continue;
            }
            kept.push_str(source.get(at..start).unwrap_or(""));
            insert_at.get_or_insert(kept.len());
            at = end;
        }
        kept.push_str(source.get(at..).unwrap_or(""));
        let insert_at = insert_at.unwrap_or_else(|| {
            if !kept.ends_with('\n') && !kept.is_empty() {
                kept.push('\n');
            }
            kept.len()
        });
        let (before, after) = kept.split_at(insert_at.min(kept.len()));
        Ok(Template {
            before: before.to_string(),
            after: after.to_string(),
            var: var.to_string(),
        })
    }

    /// The text with `annotations`' lines in place.
    pub fn with(&self, annotations: &Annotations) -> String {
        let lines = annotations.lines(&self.var);
        let mut out = String::with_capacity(self.before.len() + lines.len() + self.after.len());
        out.push_str(&self.before);
        out.push_str(&lines);
        out.push_str(&self.after);
        out
    }
}

/// `span` widened to the whole lines it is on, the newline that ends the last included.
fn whole_lines(source: &str, span: Span) -> Span {
    let bytes = source.as_bytes();
    let mut start = (span.start as usize).min(bytes.len());
    while start > 0 && bytes.get(start - 1).is_some_and(|b| *b != b'\n') {
        start -= 1;
    }
    let mut end = (span.end as usize).min(bytes.len());
    while end < bytes.len() && bytes.get(end).is_some_and(|b| *b != b'\n') {
        end += 1;
    }
    if end < bytes.len() {
        end += 1;
    }
    Span::new(start, end)
}
