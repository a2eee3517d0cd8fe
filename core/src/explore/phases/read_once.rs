//! The schedule search's reading: a text read once, each schedule's annotations put in place of
//! its own, and the barriers between threads placed only on demand (`search_inputs.rs`).

use super::{Explorer, Pipeline};
use crate::diagnostic::{Diagnostic, Span};
use crate::explore::Options;
use crate::ir::Program;
use crate::lower::Annotation;
use crate::schedule::STAGE_KEY;
use std::sync::Arc;

/// The phases up to the rolled pipelined program of `source`, nothing presented: what the
/// schedule search reads (`search_inputs.rs`). The text's errors when it has no program.
pub(in crate::explore) fn pipeline_quietly(
    source: &str,
    options: &Options,
) -> Result<Pipeline, Vec<Diagnostic>> {
    let mut explorer = Explorer::new(Arc::from(source), options, false);
    let mut unlisted = 0;
    explorer
        .pipeline(&mut unlisted)
        .ok_or(explorer.ex.diagnostics)
}

/// A text read (tokens, syntax tree, lowered program and annotations) and found free of errors:
/// what the schedule search transforms once per schedule it tries, with only the loop's three
/// annotations changed (`ReadLoop::pipeline`), instead of reading the whole text again.
#[derive(Clone, Debug)]
pub struct ReadLoop {
    source: Arc<str>,
    program: Program,
    annotations: Vec<Annotation>,
}

impl ReadLoop {
    /// `source` read; its errors when it has any.
    pub fn read(source: &str, options: &Options) -> Result<ReadLoop, Vec<Diagnostic>> {
        let mut explorer = Explorer::new(Arc::from(source), options, false);
        let mut unlisted = 0;
        match explorer.read(&mut unlisted) {
            Some((program, annotations)) => Ok(ReadLoop {
                source: explorer.source,
                program,
                annotations,
            }),
            None => Err(explorer.ex.diagnostics),
        }
    }

    /// The phases after reading, for the text with the loop over `var` annotated with `a` in
    /// place of its own stage, order and async annotations (as `annotation_text::Template` writes
    /// it: no async annotation when no stage is asynchronous). The spans of the annotations are
    /// those of the text read: they only locate messages, and the search shows none of them.
    pub(in crate::explore) fn pipeline(
        &self,
        var: &str,
        a: &crate::annotation_text::Annotations,
        options: &Options,
        barriers: Barriers,
    ) -> Result<Pipeline, Vec<Diagnostic>> {
        use crate::schedule::{ASYNC_KEY, ORDER_KEY};
        let ours = |x: &Annotation| {
            x.var == var && [STAGE_KEY, ORDER_KEY, ASYNC_KEY].contains(&x.key.as_str())
        };
        let mut annotations: Vec<Annotation> = Vec::with_capacity(self.annotations.len() + 3);
        let mut template = None;
        for x in &self.annotations {
            if ours(x) {
                template.get_or_insert_with(|| x.clone());
            } else {
                annotations.push(x.clone());
            }
        }
        // A loop the text does not annotate gets annotations of its own (spans nowhere).
        let template = template.unwrap_or_else(|| Annotation {
            var: var.into(),
            var_span: Span::default(),
            key: STAGE_KEY.into(),
            key_span: Span::default(),
            values: None,
            value_span: Span::default(),
            span: Span::default(),
        });
        let lists = [
            (STAGE_KEY, &a.stages),
            (ORDER_KEY, &a.orders),
            (ASYNC_KEY, &a.async_stages),
        ];
        for (key, values) in lists {
            if key == ASYNC_KEY && values.is_empty() {
                continue;
            }
            annotations.push(Annotation {
                key: key.into(),
                values: Some(values.clone()),
                ..template.clone()
            });
        }
        let mut explorer = Explorer::new(self.source.clone(), options, false);
        explorer
            .pipeline_read(self.program.clone(), annotations, barriers)
            .ok_or(explorer.ex.diagnostics)
    }
}

/// Whether the rolled program is built with its barriers between threads, or without them, to be
/// placed later (`Pipeline::place_barriers`): the schedule search costs a schedule without them
/// first, since barriers only add cycles, and places them only in a schedule that may still
/// enter its front.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Barriers {
    Placed,
    Deferred,
}

impl Pipeline {
    /// Places the barriers of a pipeline built with `Barriers::Deferred`.
    pub(in crate::explore) fn place_barriers(&mut self) {
        crate::sync::place_barriers(&mut self.rolled, &self.program, &self.shape);
    }
}
