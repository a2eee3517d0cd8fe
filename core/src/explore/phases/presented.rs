//! What the panes are told of the loop as written: its statements' and units' stages and orders,
//! the pipelined loop's header and extent, and each buffer with the reason for its versions.

use super::*;
use crate::diagnostic::Span;
use crate::ir::{BufId, Program};
use crate::schedule::{self, LoopSchedule};
use crate::tir;

/// Text as the user wrote it, on one line (an annotation's value may span lines).
pub(super) fn written(source: &str, span: Span) -> String {
    let text = source
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn fill_statement_info(statements: &mut [StatementInfo], sched: &LoopSchedule) {
    for u in &sched.units {
        for id in &u.stmts {
            if let Some(s) = statements.get_mut(*id as usize) {
                s.unit = Some(u.pos);
                s.stage = Some(u.stage);
                s.order = Some(u.order);
                s.is_async = u.is_async;
            }
        }
    }
}

/// A loop's header line as written, and its line number: `` `for k1 in range(4):` (line 15)``.
pub(super) fn loop_header(source: &str, span: Span) -> String {
    let start = span.start as usize;
    let line = source.get(..start).unwrap_or("").matches('\n').count() + 1;
    let text = source
        .get(start..)
        .and_then(|t| t.lines().next())
        .unwrap_or("")
        .trim();
    format!("`{text}` (line {line})")
}

pub(super) fn pipeline_info(
    program: &Program,
    sched: &LoopSchedule,
    inner: Vec<String>,
    inner_parts: &[(usize, InnerPart)],
) -> PipelineInfo {
    let (extent, extent_text) = match &sched.extent {
        schedule::Extent::Const(e) => (Some(*e), e.to_string()),
        schedule::Extent::Symbolic(e) => (None, tir::print_index(program, e)),
    };
    PipelineInfo {
        loop_var: program.var_name(sched.var).to_string(),
        extent,
        extent_text,
        stages: sched.max_stage,
        async_stages: sched.async_stages.clone(),
        units: sched
            .units
            .iter()
            .map(|u| UnitInfo {
                pos: u.pos,
                label: sched.label(u.pos).to_string(),
                span: u.span,
                stmts: u.stmts.clone(),
                stage: u.stage,
                order: u.order,
                is_async: u.is_async,
                inner: inner_parts
                    .iter()
                    .find(|(pos, _)| *pos == u.pos)
                    .map(|(_, part)| part.clone()),
            })
            .collect(),
        inner,
    }
}

pub(super) fn buffer_infos(
    program: &Program,
    versions: &[crate::versions::VersionDecision],
) -> Vec<BufferInfo> {
    program
        .buffers
        .iter()
        .enumerate()
        .map(|(id, b)| {
            let reasons: Vec<String> = versions
                .iter()
                .filter(|v| v.buffer as usize == id)
                .map(|v| v.reason.clone())
                .collect();
            let shape = b.shape.as_ref().map(|s| {
                if b.versions > 1 {
                    s.iter().skip(1).copied().collect()
                } else {
                    s.clone()
                }
            });
            BufferInfo {
                id: id as BufId,
                name: b.name.to_string(),
                scope: b.scope,
                dtype: b.dtype,
                shape,
                versions: b.versions,
                reason: if reasons.is_empty() {
                    None
                } else {
                    Some(reasons.join("; then "))
                },
                declared: b.declared,
            }
        })
        .collect()
}
