//! The annotation grid edits the text: it rewrites the `software_pipeline_*` lines of one loop and
//! leaves everything else as the user wrote it. The text stays the one source of truth.

use stagecraft::explore::AnnotationInfo;

pub const KEYS: [&str; 3] = [
    "software_pipeline_stage",
    "software_pipeline_order",
    "software_pipeline_async_stages",
];

/// `sch.annotate(var, "key", [v, …])`
fn annotate_line(var: &str, key: &str, values: &[i64]) -> String {
    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("sch.annotate({var}, \"{key}\", [{}])", list.join(", "))
}

/// Rewrites `text` in one forward pass over `mine` (annotations in text order, as lowering lists
/// them): annotation `k` becomes `replacement(k)`, or disappears with its line break for `None`. An
/// annotation out of order or off the text is left as written.
fn splice<'a>(
    text: &str,
    mine: &[&AnnotationInfo],
    replacement: impl Fn(usize) -> Option<&'a str>,
) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut copied = 0;
    for (k, a) in mine.iter().enumerate() {
        let (start, end) = (a.span.start as usize, a.span.end as usize);
        let (Some(before), Some(after)) = (text.get(copied..start), text.get(end..)) else {
            continue;
        };
        if start > end {
            continue;
        }
        out.push_str(before);
        copied = match replacement(k) {
            Some(line) => {
                out.push_str(line);
                end
            }
            None => end + usize::from(after.starts_with('\n')),
        };
    }
    out.push_str(text.get(copied..).unwrap_or(""));
    out
}

/// `line` on a line of its own at the end of `text`.
fn append_line(text: &mut String, line: &str) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
    text.push('\n');
}

/// Replaces the pipeline annotations of `var` with the given lists (appended where none were). When
/// a key is annotated twice, the last one (the one in effect) is replaced and the others removed.
pub fn rewrite(
    text: &str,
    annotations: &[AnnotationInfo],
    var: &str,
    stages: &[i64],
    orders: &[i64],
    asyncs: &[i64],
) -> String {
    let lines = [
        annotate_line(var, KEYS[0], stages),
        annotate_line(var, KEYS[1], orders),
        annotate_line(var, KEYS[2], asyncs),
    ];
    let mine: Vec<&AnnotationInfo> = annotations
        .iter()
        .filter(|a| a.loop_var == var && KEYS.contains(&a.key.as_str()))
        .collect();
    let last_of = |key: &str| mine.iter().rposition(|a| a.key == key);
    let kept: Vec<Option<usize>> = KEYS.iter().map(|k| last_of(k)).collect();
    let mut out = splice(text, &mine, |k| {
        let this = mine.get(k)?;
        let key = KEYS.iter().position(|key| *key == this.key)?;
        (kept.get(key).copied().flatten() == Some(k))
            .then(|| lines.get(key).map(String::as_str))
            .flatten()
    });
    for (line, kept) in lines.iter().zip(&kept) {
        if kept.is_none() {
            append_line(&mut out, line);
        }
    }
    out
}

/// Sets (or removes, when every entry is −1) one per-statement list annotation such as
/// `stagecraft_latency`, keeping the rest of the text as written.
pub fn set_list(
    text: &str,
    annotations: &[AnnotationInfo],
    var: &str,
    key: &str,
    values: &[i64],
) -> String {
    let mine: Vec<&AnnotationInfo> = annotations
        .iter()
        .filter(|a| a.loop_var == var && a.key == key)
        .collect();
    let line = annotate_line(var, key, values);
    let keep = values.iter().any(|v| *v != -1);
    // The last one is in effect: it becomes the new line, the others go.
    let kept = if keep {
        mine.len().checked_sub(1)
    } else {
        None
    };
    let mut out = splice(text, &mine, |k| (Some(k) == kept).then_some(line.as_str()));
    if keep && kept.is_none() {
        append_line(&mut out, &line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, AnnotationInfo, Options};

    /// The annotations as the app receives them (nothing else computed).
    fn annotations(text: &str) -> Vec<AnnotationInfo> {
        let only_text = Options {
            verify: false,
            timeline: false,
            targets: Vec::new(),
            ..Options::default()
        };
        explore(text, &only_text).annotations
    }

    #[test]
    fn cost_lists_are_set_replaced_and_removed() {
        let text = "for i in range(4):\n    C[i] = A[i]\n";
        let ann = annotations(text);
        let once = set_list(text, &ann, "i", "stagecraft_latency", &[700]);
        assert!(once.ends_with("sch.annotate(i, \"stagecraft_latency\", [700])\n"));
        let ann = annotations(&once);
        assert_eq!(
            set_list(&once, &ann, "i", "stagecraft_latency", &[-1]),
            text
        );
    }

    #[test]
    fn rewrites_in_place_and_appends_missing_keys() {
        let text = "B = alloc([1])\nfor i in range(4):\n    B[0] = A[i]\n    C[i] = B[0]\n# keep me\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\n";
        let ann = annotations(text);
        let out = rewrite(text, &ann, "i", &[0, 2], &[1, 0], &[0]);
        assert_eq!(
            out,
            "B = alloc([1])\nfor i in range(4):\n    B[0] = A[i]\n    C[i] = B[0]\n# keep me\nsch.annotate(i, \"software_pipeline_stage\", [0, 2])\nsch.annotate(i, \"software_pipeline_order\", [1, 0])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n"
        );
    }

    #[test]
    fn duplicates_keep_the_last_one_replaced_and_lose_the_others() {
        let text = "for i in range(4):\n    C[i] = A[i]\nsch.annotate(i, \"software_pipeline_stage\", [1])\nsch.annotate(i, \"software_pipeline_stage\", [0])\n# end\n";
        let ann = annotations(text);
        let out = rewrite(text, &ann, "i", &[0], &[0], &[]);
        assert_eq!(
            out,
            "for i in range(4):\n    C[i] = A[i]\nsch.annotate(i, \"software_pipeline_stage\", [0])\n# end\nsch.annotate(i, \"software_pipeline_order\", [0])\nsch.annotate(i, \"software_pipeline_async_stages\", [])\n"
        );
    }
}
