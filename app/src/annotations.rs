//! The annotation grid edits the text: it rewrites the `software_pipeline_*` lines of one loop and
//! leaves everything else as the user wrote it. The text stays the one source of truth.

use stagecraft::explore::AnnotationInfo;

pub const KEYS: [&str; 3] = [
    "software_pipeline_stage",
    "software_pipeline_order",
    "software_pipeline_async_stages",
];

/// Replaces the pipeline annotations of `var` with the given lists (appended where none were).
pub fn rewrite(
    text: &str,
    annotations: &[AnnotationInfo],
    var: &str,
    stages: &[i64],
    orders: &[i64],
    asyncs: &[i64],
) -> String {
    let list = |v: &[i64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lines = [
        format!("sch.annotate({var}, \"{}\", [{}])", KEYS[0], list(stages)),
        format!("sch.annotate({var}, \"{}\", [{}])", KEYS[1], list(orders)),
        format!("sch.annotate({var}, \"{}\", [{}])", KEYS[2], list(asyncs)),
    ];
    let mut out = text.to_string();
    let mut pending: Vec<(usize, &String)> = lines.iter().enumerate().collect();
    // Replace in place, last span first so earlier offsets stay valid.
    let mut mine: Vec<&AnnotationInfo> = annotations
        .iter()
        .filter(|a| a.loop_var == var && KEYS.contains(&a.key.as_str()))
        .collect();
    mine.sort_by_key(|a| std::cmp::Reverse(a.span.start));
    for a in mine {
        let (start, end) = (a.span.start as usize, a.span.end as usize);
        if end > out.len()
            || start > end
            || !out.is_char_boundary(start)
            || !out.is_char_boundary(end)
        {
            continue;
        }
        let k = KEYS.iter().position(|k| *k == a.key).unwrap_or(0);
        if let Some(i) = pending.iter().position(|(j, _)| *j == k) {
            let (_, line) = pending.remove(i);
            out.replace_range(start..end, line);
        } else {
            // A duplicate annotation: remove it with its line break.
            let end = if out[end..].starts_with('\n') {
                end + 1
            } else {
                end
            };
            out.replace_range(start..end, "");
        }
    }
    pending.sort_by_key(|(j, _)| *j);
    for (_, line) in pending {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
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
    let mut out = text.to_string();
    let mut mine: Vec<&AnnotationInfo> = annotations
        .iter()
        .filter(|a| a.loop_var == var && a.key == key)
        .collect();
    mine.sort_by_key(|a| std::cmp::Reverse(a.span.start));
    let line = format!(
        "sch.annotate({var}, \"{key}\", [{}])",
        values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let keep = values.iter().any(|v| *v != -1);
    let mut placed = false;
    for a in mine {
        let (start, end) = (a.span.start as usize, a.span.end as usize);
        if end > out.len() || !out.is_char_boundary(start) || !out.is_char_boundary(end) {
            continue;
        }
        if keep && !placed {
            out.replace_range(start..end, &line);
            placed = true;
        } else {
            let end = if out[end..].starts_with('\n') {
                end + 1
            } else {
                end
            };
            out.replace_range(start..end, "");
        }
    }
    if keep && !placed {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, Options};

    #[test]
    fn cost_lists_are_set_replaced_and_removed() {
        let text = "for i in range(4):\n    C[i] = A[i]\n";
        let ex = explore(
            text,
            &Options {
                verify: false,
                timeline: false,
                emit: false,
                ..Options::default()
            },
        );
        let once = set_list(text, &ex.annotations, "i", "stagecraft_latency", &[700]);
        assert!(once.ends_with("sch.annotate(i, \"stagecraft_latency\", [700])\n"));
        let ex = explore(
            &once,
            &Options {
                verify: false,
                timeline: false,
                emit: false,
                ..Options::default()
            },
        );
        assert_eq!(
            set_list(&once, &ex.annotations, "i", "stagecraft_latency", &[-1]),
            text
        );
    }

    #[test]
    fn rewrites_in_place_and_appends_missing_keys() {
        let text = "B = alloc([1])\nfor i in range(4):\n    B[0] = A[i]\n    C[i] = B[0]\n# keep me\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\n";
        let ex = explore(
            text,
            &Options {
                verify: false,
                timeline: false,
                ..Options::default()
            },
        );
        let out = rewrite(text, &ex.annotations, "i", &[0, 2], &[1, 0], &[0]);
        assert_eq!(
            out,
            "B = alloc([1])\nfor i in range(4):\n    B[0] = A[i]\n    C[i] = B[0]\n# keep me\nsch.annotate(i, \"software_pipeline_stage\", [0, 2])\nsch.annotate(i, \"software_pipeline_order\", [1, 0])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n"
        );
    }
}
