//! The annotation grid and the cost table edit the text: they rewrite the annotations of one loop
//! where and as the text writes them, and leave everything else as the user wrote it. The text
//! stays the one source of truth.
//!
//! A value is replaced in place, whatever spells it: `sch.annotate(i, "key", [0, 1])` (or
//! `ann_val=[0, 1]`) in the loop language, an entry `"key": [0, 1]` of a TVMScript loop's
//! `annotations={…}`. A key the loop lacks goes into that dictionary when the loop has one, else
//! on a `sch.annotate` line of its own at the end. A TileLang kernel says its schedule in
//! `T.Pipelined(…)`: its `stage=` and `order=` lists are set in place, and a `num_stages=` it was
//! planned from becomes the two lists; its asynchronous stages follow from the stages.

use stagecraft::explore::{AnnotationInfo, TileLangArgument};

pub const KEYS: [&str; 3] = [
    "software_pipeline_stage",
    "software_pipeline_order",
    "software_pipeline_async_stages",
];

/// `[v, …]`
fn list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// One replacement of `text[from..to]`; `from == to` inserts.
struct Edit {
    from: usize,
    to: usize,
    with: String,
}

/// `text` with `edits` made (they do not overlap); one out of the text is left out.
fn apply(text: &str, edits: Vec<Edit>) -> String {
    // In text order: an insertion sort of a handful (a library sort's code is kilobytes of the
    // bundle for each type it sorts).
    let mut sorted: Vec<Edit> = Vec::with_capacity(edits.len());
    for e in edits {
        let at = sorted
            .iter()
            .position(|s| (s.from, s.to) > (e.from, e.to))
            .unwrap_or(sorted.len());
        sorted.insert(at, e);
    }
    let edits = sorted;
    let mut out = String::with_capacity(text.len() + 64);
    let mut copied = 0;
    for e in edits {
        let Some(before) = text.get(copied..e.from) else {
            continue;
        };
        if e.to < e.from || text.get(e.from..e.to).is_none() {
            continue;
        }
        out.push_str(before);
        out.push_str(&e.with);
        copied = e.to;
    }
    out.push_str(text.get(copied..).unwrap_or(""));
    out
}

/// The edit that sets annotation `a`'s value.
fn set_value(a: &AnnotationInfo, values: &[i64]) -> Edit {
    Edit {
        from: a.value_span.start as usize,
        to: a.value_span.end as usize,
        with: list(values),
    }
}

/// The edit that removes annotation `a`: a `sch.annotate` call with its line break, a
/// dictionary entry with the comma that separates it from the next entry (or the previous one).
fn remove(text: &str, a: &AnnotationInfo) -> Edit {
    let (start, end) = (a.span.start as usize, a.span.end as usize);
    if a.dict.is_none() {
        let after = text.get(end..).unwrap_or("");
        return Edit {
            from: start,
            to: end + usize::from(after.starts_with('\n')),
            with: String::new(),
        };
    }
    let after = text.get(end..).unwrap_or("");
    // An entry on a line of its own goes with its line.
    let line_start = text
        .get(..start)
        .and_then(|b| b.rfind('\n'))
        .map_or(0, |n| n + 1);
    let lead = text.get(line_start..start).unwrap_or("");
    if let Some(eol) = after.find('\n') {
        let tail = after.get(..eol).unwrap_or("");
        if lead.trim().is_empty() && matches!(tail.trim(), "" | ",") {
            return Edit {
                from: line_start,
                to: end + eol + 1,
                with: String::new(),
            };
        }
    }
    let spaces = after.len() - after.trim_start().len();
    if after.trim_start().starts_with(',') {
        // `"a": [0], ` up to the next entry (or the closing brace).
        let rest = after.get(spaces + 1..).unwrap_or("");
        let blank = rest.len() - rest.trim_start().len();
        return Edit {
            from: start,
            to: end + spaces + 1 + blank,
            with: String::new(),
        };
    }
    // The last entry without a trailing comma: the comma before it goes.
    let before = text.get(..start).unwrap_or("");
    let from = before
        .trim_end()
        .strip_suffix(',')
        .map_or(start, |b| b.len());
    Edit {
        from,
        to: end,
        with: String::new(),
    }
}

/// Where a key `var` lacks goes: after the last entry of the dictionary its annotations are
/// written in (on a line of its own, indented as that entry, when the dictionary spans lines),
/// else a `sch.annotate` line at the end of the text.
fn add(text: &str, mine: &[&AnnotationInfo], var: &str, key: &str, values: &[i64]) -> Edit {
    let last_entry = mine
        .iter()
        .filter(|a| a.dict.is_some())
        .max_by_key(|a| a.span.end);
    if let Some(last) = last_entry {
        let at = last.span.end as usize;
        let line_start = text
            .get(..last.span.start as usize)
            .and_then(|b| b.rfind('\n'))
            .map_or(0, |n| n + 1);
        let line = text.get(line_start..last.span.start as usize).unwrap_or("");
        let multiline = last
            .dict
            .and_then(|d| text.get(d.start as usize..d.end as usize))
            .is_some_and(|d| d.contains('\n'));
        let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
        let separator = if multiline && line.trim().is_empty() {
            format!(",\n{indent}")
        } else {
            ", ".to_string()
        };
        return Edit {
            from: at,
            to: at,
            with: format!("{separator}\"{key}\": {}", list(values)),
        };
    }
    // Spelled as the loop's other `annotate` calls are: their object, their keyword arguments.
    let like = mine
        .iter()
        .filter(|a| a.dict.is_none())
        .max_by_key(|a| a.span.end)
        .and_then(|a| text.get(a.span.start as usize..a.span.end as usize));
    let callee = like
        .and_then(|t| t.find("annotate(").and_then(|k| t.get(..k)))
        .filter(|c| !c.is_empty() && !c.contains(['\n', '(']))
        .unwrap_or("sch.");
    let line = if like.is_some_and(|t| t.contains("ann_key=")) {
        format!(
            "{callee}annotate({var}, ann_key=\"{key}\", ann_val={})\n",
            list(values)
        )
    } else {
        format!("{callee}annotate({var}, \"{key}\", {})\n", list(values))
    };
    let with = if !text.is_empty() && !text.ends_with('\n') {
        format!("\n{line}")
    } else {
        line
    };
    Edit {
        from: text.len(),
        to: text.len(),
        with,
    }
}

/// The edits that make `key` of `var` hold `values` (`None`: not annotated): the annotation in
/// effect (the last) set in place, the earlier ones of the key removed, the key added where the
/// loop has none.
fn set_key(
    text: &str,
    annotations: &[AnnotationInfo],
    var: &str,
    key: &str,
    values: Option<&[i64]>,
) -> Vec<Edit> {
    let of_var: Vec<&AnnotationInfo> = annotations.iter().filter(|a| a.loop_var == var).collect();
    let of_key: Vec<&&AnnotationInfo> = of_var.iter().filter(|a| a.key == key).collect();
    let mut edits = Vec::new();
    match (values, of_key.split_last()) {
        (Some(values), Some((last, earlier))) => {
            edits.push(set_value(last, values));
            edits.extend(earlier.iter().map(|a| remove(text, a)));
        }
        (Some(values), None) => edits.push(add(text, &of_var, var, key, values)),
        (None, _) => edits.extend(of_key.iter().map(|a| remove(text, a))),
    }
    edits
}

/// Sets the pipeline annotations of `var` to the given lists. Every edit is placed against
/// `text` (the spans are its own); keys added at one place go there in `KEYS`' order.
pub fn rewrite(
    text: &str,
    annotations: &[AnnotationInfo],
    var: &str,
    stages: &[i64],
    orders: &[i64],
    asyncs: &[i64],
) -> String {
    if let Some(edits) = tilelang_edits(annotations, var, stages, orders) {
        return apply(text, edits);
    }
    let mut edits: Vec<Edit> = Vec::new();
    for (key, values) in KEYS.iter().zip([stages, orders, asyncs]) {
        // No async stage is the default: not written where the text does not say it.
        let absent = !annotations
            .iter()
            .any(|a| a.loop_var == var && a.key == *key);
        if absent && values.is_empty() {
            continue;
        }
        for e in set_key(text, annotations, var, key, Some(values)) {
            let insertion = e.from == e.to;
            match edits
                .iter_mut()
                .find(|m| insertion && m.from == e.from && m.to == e.to)
            {
                Some(m) => m
                    .with
                    .push_str(e.with.strip_prefix('\n').unwrap_or(&e.with)),
                None => edits.push(e),
            }
        }
    }
    apply(text, edits)
}

/// The edits of a TileLang kernel's `T.Pipelined` arguments that give it these stages and orders;
/// `None` when the loop is not TileLang's.
fn tilelang_edits(
    annotations: &[AnnotationInfo],
    var: &str,
    stages: &[i64],
    orders: &[i64],
) -> Option<Vec<Edit>> {
    let mine = || annotations.iter().filter(|a| a.loop_var == var);
    let spelled = |key: &str| mine().find(|a| a.key == key && a.tilelang.is_some());
    let stage = spelled(KEYS[0])?;
    if stage.tilelang == Some(TileLangArgument::Planned) {
        return Some(vec![Edit {
            from: stage.span.start as usize,
            to: stage.span.end as usize,
            with: format!("order={}, stage={}", list(orders), list(stages)),
        }]);
    }
    let mut edits = vec![set_value(stage, stages)];
    edits.extend(spelled(KEYS[1]).map(|a| set_value(a, orders)));
    Some(edits)
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
    let keep = values.iter().any(|v| *v != -1);
    apply(
        text,
        set_key(text, annotations, var, key, keep.then_some(values)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, AnnotationInfo, Exploration, Options};

    /// The exploration as far as the grid needs it (nothing run).
    fn read(text: &str) -> Exploration {
        let only_text = Options {
            verify: false,
            timeline: false,
            targets: Vec::new(),
            ..Options::default()
        };
        explore(text, &only_text)
    }

    fn annotations(text: &str) -> Vec<AnnotationInfo> {
        read(text).annotations
    }

    /// `text` after the grid sets the stages, orders and async stages of its pipelined loop; the
    /// result must read without an error, with those lists in effect.
    fn grid_edit(text: &str, stages: &[i64], orders: &[i64], asyncs: &[i64]) -> String {
        let ex = read(text);
        let var = ex.pipeline.as_ref().expect("a pipeline").loop_var.clone();
        let out = rewrite(text, &ex.annotations, &var, stages, orders, asyncs);
        let after = read(&out);
        assert!(
            !after.diagnostics.iter().any(|d| d.is_error()),
            "{out}\n{:?}",
            after.diagnostics
        );
        let p = after.pipeline.as_ref().expect("still a pipeline");
        let got: Vec<i64> = p.units.iter().map(|u| u.stage).collect();
        assert_eq!(got, stages, "{out}");
        let got: Vec<i64> = p.units.iter().map(|u| u.order).collect();
        assert_eq!(got, orders, "{out}");
        assert_eq!(p.async_stages, asyncs, "{out}");
        out
    }

    #[test]
    fn cost_lists_are_set_replaced_and_removed() {
        let text = "for i in range(4):\n    C[i] = A[i]\n";
        let ann = annotations(text);
        let once = set_list(text, &ann, "i", "stagecraft_latency", &[700]);
        assert!(once.ends_with("sch.annotate(i, \"stagecraft_latency\", [700])\n"));
        let ann = annotations(&once);
        let twice = set_list(&once, &ann, "i", "stagecraft_latency", &[900]);
        assert!(twice.ends_with("sch.annotate(i, \"stagecraft_latency\", [900])\n"));
        let ann = annotations(&twice);
        assert_eq!(
            set_list(&twice, &ann, "i", "stagecraft_latency", &[-1]),
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
            "for i in range(4):\n    C[i] = A[i]\nsch.annotate(i, \"software_pipeline_stage\", [0])\n# end\nsch.annotate(i, \"software_pipeline_order\", [0])\n"
        );
    }

    #[test]
    fn keyword_arguments_keep_their_spelling() {
        let text = "B = alloc([1])\nfor i in range(4):\n    B[0] = A[i]\n    C[i] = B[0]\nsch.annotate(i, ann_key=\"software_pipeline_stage\", ann_val=[0, 1])\nsch.annotate(i, ann_key=\"software_pipeline_order\", ann_val=[0, 1])\n";
        let out = grid_edit(text, &[0, 2], &[0, 1], &[0]);
        assert!(out.contains("ann_val=[0, 2])"), "{out}");
        // A key added is spelled as the others are.
        assert!(
            out.ends_with(
                "sch.annotate(i, ann_key=\"software_pipeline_async_stages\", ann_val=[0])\n"
            ),
            "{out}"
        );
        // Without an async stage, none is written.
        let none = grid_edit(text, &[0, 2], &[0, 1], &[]);
        assert!(!none.contains("async"), "{none}");
    }

    const TVM_MULTILINE: &str = "from tvm.script import tir as T\n\n@T.prim_func\ndef f(A: T.Buffer((16,), \"float32\"), C: T.Buffer((16,), \"float32\")):\n    for i in T.serial(\n        0,\n        16,\n        annotations={\n            \"software_pipeline_stage\": [0, 1],\n            \"software_pipeline_order\": [0, 1],\n        },\n    ):\n        with T.block(\"compute\"):\n            B = T.alloc_buffer((1,), \"float32\", scope=\"shared\")\n            with T.block():\n                B[0] = A[i] * T.float32(2)\n            with T.block():\n                C[i] = B[0] + T.float32(1)\n";

    #[test]
    fn a_tvmscript_dictionary_is_edited_in_place_and_grows_by_entries() {
        let out = grid_edit(TVM_MULTILINE, &[0, 2], &[1, 0], &[0]);
        assert!(
            out.contains("annotations={\n            \"software_pipeline_stage\": [0, 2],\n            \"software_pipeline_order\": [1, 0],\n            \"software_pipeline_async_stages\": [0],\n        },"),
            "{out}"
        );
        assert!(!out.contains("sch.annotate"), "{out}");
        // Again, from the dictionary with all three keys.
        let again = grid_edit(&out, &[0, 1], &[0, 1], &[]);
        assert!(
            again.contains("\"software_pipeline_async_stages\": [],"),
            "{again}"
        );
        // A cost goes in the same dictionary, and comes out of it.
        let ex = read(&again);
        let with_cost = set_list(
            &again,
            &ex.annotations,
            "i",
            "stagecraft_latency",
            &[300, -1],
        );
        assert!(with_cost.contains("\"software_pipeline_async_stages\": [],\n            \"stagecraft_latency\": [300, -1],"), "{with_cost}");
        let ex = read(&with_cost);
        assert!(!ex.diagnostics.iter().any(|d| d.is_error()), "{with_cost}");
        let without = set_list(
            &with_cost,
            &ex.annotations,
            "i",
            "stagecraft_latency",
            &[-1, -1],
        );
        assert_eq!(without, again);
    }

    #[test]
    fn a_tilelang_kernel_gets_its_own_arguments_rewritten() {
        let planned = include_str!("../../../tests/tilelang/gemm_stages3.py");
        assert!(planned.contains("T.Pipelined(T.ceildiv(K, block_K), num_stages=3)"));
        let out = grid_edit(planned, &[0, 0, 1], &[0, 1, 2], &[0]);
        assert!(
            out.contains("T.Pipelined(T.ceildiv(K, block_K), order=[0, 1, 2], stage=[0, 0, 1])"),
            "{out}"
        );
        assert!(!out.contains("sch.annotate"), "{out}");
        // Written lists are set in place.
        let again = grid_edit(&out, &[0, 0, 2], &[1, 0, 2], &[0]);
        assert!(
            again.contains("T.Pipelined(T.ceildiv(K, block_K), order=[1, 0, 2], stage=[0, 0, 2])"),
            "{again}"
        );
    }

    #[test]
    fn a_one_line_dictionary_stays_on_one_line() {
        // The page's own TVMScript export, as pasted back.
        let export =
            stagecraft::tvmscript::export(stagecraft_link::presets::DEFAULT).expect("an export");
        let stripped = export.replace(", \"software_pipeline_async_stages\": [0]", "");
        assert_ne!(stripped, export, "{export}");
        let out = grid_edit(&stripped, &[0, 2], &[0, 1], &[0]);
        assert!(
            out.contains("annotations={\"software_pipeline_stage\": [0, 2], \"software_pipeline_order\": [0, 1], \"software_pipeline_async_stages\": [0]}"),
            "{out}"
        );
        let ex = read(&out);
        let removed = set_list(
            &out,
            &ex.annotations,
            "i",
            "software_pipeline_async_stages",
            &[-1],
        );
        assert!(removed.contains("[0, 1]}"), "{removed}");
    }
}
