//! Latency and issue cost per unit of the pipelined loop. Editing a value writes the
//! `stagecraft_latency` / `stagecraft_issue` annotation into the text; which values are annotated
//! (and which are defaults) comes from the exploration.

use crate::ctx::Ctx;
use crate::markup::html::Html;
use crate::model::annotations;
use leptos::prelude::*;
use stagecraft::cost::{ISSUE_KEY, LATENCY_KEY, MAX_ANNOTATED_CYCLES};
use stagecraft::explore::Exploration;

/// The cost table (inside a `<details>`, open when `open`). `editable` is false while the text has
/// errors: the last good values are shown, read-only, as the grid does. A TileLang kernel has no
/// place for cost annotations: its costs are the model's defaults, shown read-only.
pub fn costs_html(ex: &Exploration, open: bool, editable: bool) -> String {
    let Some(p) = ex.pipeline.as_ref() else {
        return String::new();
    };
    let tilelang = ex.dialect == stagecraft::tvmscript::Dialect::TileLang;
    let editable = editable && !tilelang;
    let mut h = Html::default();
    h.raw("<details class=\"costs\"");
    if open {
        h.raw(" open");
    }
    h.raw("><summary>Cost per statement (cycles): latency and issue</summary>");
    if !editable {
        h.raw("<fieldset class=\"readonly\" disabled>");
    }
    h.raw("<table id=\"costs\"><tr><th>statement</th><th>latency</th><th>issue</th></tr>");
    let rows = p
        .units
        .iter()
        .zip(&ex.unit_costs)
        .zip(&ex.unit_annotated_costs);
    for (k, ((u, cost), annotated)) in rows.enumerate() {
        h.raw("<tr");
        if let Some(s) = u.stmts.first() {
            h.raw(" class=\"st")
                .num(s)
                .raw("\" data-st=\"")
                .num(s)
                .raw("\"");
        }
        h.raw("><td><code>").text(&u.label).raw("</code></td>");
        for (key, value, set) in [
            (LATENCY_KEY, cost.latency, annotated.latency.is_some()),
            (ISSUE_KEY, cost.issue, annotated.issue.is_some()),
        ] {
            h.raw("<td><input type=\"number\" min=\"0\" max=\"1000000\" data-unit=\"")
                .num(k)
                .raw("\" data-key=\"")
                .raw(key)
                .raw("\" value=\"")
                .num(value)
                .raw("\"");
            if set {
                h.raw(" class=\"annotated\" title=\"set by ")
                    .raw(key)
                    .raw("; clear to use the default\"");
            } else {
                h.raw(" title=\"the default of the cost model\"");
            }
            h.raw("></td>");
        }
        h.raw("</tr>");
    }
    h.raw(if editable {
        "</table><p class=\"hint\">Bold values come from annotations in the text; clear a field to go back to the default.</p></details>"
    } else if tilelang {
        "</table><p class=\"hint\">A TileLang kernel has no cost annotations: these are the cost model's defaults. Write the loop in the loop language to change them (docs/tilelang.md shows what a kernel reads as).</p></fieldset></details>"
    } else {
        "</table><p class=\"hint\">Fix the problems in the text to edit the costs again.</p></fieldset></details>"
    });
    h.finish()
}

/// Sets unit `unit`'s value for `key` (`None`: back to the default) and writes the annotation.
/// Only from the exploration of the text as it is now: the last good one, shown while the text has
/// errors, has the spans of an older text, and splicing at them would garble this one.
pub fn set_cost(ctx: Ctx, key: &str, unit: usize, value: Option<u64>) {
    let Some(ex) = ctx.explored_now() else {
        return;
    };
    let Some(p) = ex.pipeline.as_ref() else {
        return;
    };
    let key = if key == ISSUE_KEY {
        ISSUE_KEY
    } else {
        LATENCY_KEY
    };
    let mut values: Vec<i64> = ex
        .unit_annotated_costs
        .iter()
        .map(|a| {
            let v = if key == ISSUE_KEY { a.issue } else { a.latency };
            v.map_or(-1, |v| v as i64)
        })
        .collect();
    if let Some(v) = values.get_mut(unit) {
        *v = value.map_or(-1, |v| v.min(MAX_ANNOTATED_CYCLES as u64) as i64);
    }
    let text = ctx.st.with_untracked(|s| s.text.clone());
    let new = annotations::set_list(&text, &ex.annotations, &p.loop_var, key, &values);
    ctx.set_text(new);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotated_values_are_marked_and_defaults_are_not() {
        let text = format!(
            "{}sch.annotate(i, \"stagecraft_latency\", [100, -1])\n",
            stagecraft_link::presets::DEFAULT
        );
        let ex = stagecraft::explore::explore(&text, &Default::default());
        let html = costs_html(&ex, true, true);
        assert!(html.contains("<details class=\"costs\" open>"));
        assert_eq!(html.matches("class=\"annotated\"").count(), 1, "{html}");
        assert!(html.contains("data-key=\"stagecraft_latency\" value=\"100\" class=\"annotated\""));
    }
}
