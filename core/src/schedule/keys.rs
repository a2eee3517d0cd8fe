//! Annotation keys: which ones Stagecraft reads, and what it says of the others (a near miss is a
//! warning with "did you mean", anything else a note that it is kept but not read).

use super::{ASYNC_KEY, ORDER_KEY, STAGE_KEY};
use crate::diagnostic::Diagnostic;
use crate::lower::Annotation;

/// Every key Stagecraft reads, for "did you mean" (the last two are `cost::LATENCY_KEY` and
/// `cost::ISSUE_KEY`, spelled out: the cost model comes after the schedule).
const READ_KEYS: [&str; 7] = [
    STAGE_KEY,
    ORDER_KEY,
    ASYNC_KEY,
    "stagecraft_latency",
    "stagecraft_issue",
    crate::lower::THREADS_KEY,
    crate::lower::WAVES_KEY,
];

/// The keys no part of Stagecraft reads: a near miss of one it reads is a warning with "did you
/// mean" on the key itself — `"software_pipeline_async_stage"` would otherwise leave the schedule
/// synchronous without a word — and any other key a note saying it is kept but not read.
pub fn unknown_keys(annotations: &[Annotation]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for a in annotations {
        if READ_KEYS.contains(&a.key.as_str()) {
            continue;
        }
        let nearest = READ_KEYS
            .iter()
            .map(|k| (edit_distance(&a.key, k), *k))
            .min_by_key(|(d, _)| *d);
        match nearest {
            // A third of the key may be mistyped and still be a typo rather than another key.
            Some((d, k)) if d * 3 <= k.len() => out.push(
                Diagnostic::warning(
                    a.key_span,
                    format!(
                        "unknown annotation key \"{}\": did you mean \"{k}\"?",
                        a.key
                    ),
                )
                .with_hint(format!(
                    "as written, the key is ignored (TVM ignores it too); write \"{k}\""
                )),
            ),
            _ => out.push(Diagnostic::note(
                a.key_span,
                format!(
                    "Stagecraft does not read \"{}\"; it is kept as written",
                    a.key
                ),
            )),
        }
    }
    out
}

/// A key Stagecraft reads annotated twice on one loop: the last one written wins (as in TVM,
/// whose annotations are a map, and in a TVMScript dictionary), so each earlier one is a warning
/// pointing at the one that replaces it — an edit to the first would otherwise change nothing.
pub fn repeated_keys(annotations: &[Annotation]) -> Vec<Diagnostic> {
    annotations
        .iter()
        .filter(|a| READ_KEYS.contains(&a.key.as_str()))
        .filter_map(|a| {
            let later = crate::lower::annotation_used(annotations, &a.var, &a.key)
                .filter(|used| !std::ptr::eq(*used, a))?;
            Some(
                Diagnostic::warning(
                    a.span,
                    format!(
                        "\"{}\" is annotated on `{}` again below, and the last one written wins: this one is ignored",
                        a.key, a.var
                    ),
                )
                .with_hint("delete one of the two (TVM ignores all but the last too)")
                .with_related(later.span, "the annotation used"),
            )
        })
        .collect()
}

/// Levenshtein distance between two keys (bytes: keys are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut diagonal = i;
        let mut left = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let cost = usize::from(ca != *cb);
            let next = (diagonal + cost).min(up + 1).min(left + 1);
            diagonal = up;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = next;
            }
            left = next;
        }
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
    }
    row.last().copied().unwrap_or(0)
}
