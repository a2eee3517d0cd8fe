//! The timeline: metrics, the cost table, and a Gantt chart with one row per lane, stalls in red,
//! the selection marked, zoomable and exportable as SVG.

use super::contract::{self, PaneSpec};
use super::costs;
use crate::ctx::ctx;
use crate::dom;
use crate::markup::format::fixed;
use stagecraft::gantt::{ratio, NO_RATIO};
use crate::markup::html::Html;
use crate::model::deferred::ran_for;
use crate::model::focus::{self, Point};
use crate::model::roving::Axis;
use leptos::prelude::*;
use stagecraft::explore::Exploration;
use stagecraft::timeline::Timeline;
use stagecraft_link::Pane;
use wasm_bindgen::JsCast;

/// The metrics, the headline speedup the one a GPU engineer means (against the same program
/// with every copy awaited at once), each baseline said in words, and what the ring bytes count.
/// `asynchronous`: the loop has an asynchronous stage (else nothing can stay in flight).
pub fn metrics_html(t: &Timeline, asynchronous: bool) -> String {
    let m = &t.metrics;
    let mut h = Html::default();
    h.raw("<table class=\"metrics\"><tr><td>total cycles</td><td id=\"total-cycles\">")
        .num(m.total_cycles)
        .raw("</td><td title=\"against this program with every wait count 0\">speedup</td><td id=\"speedup\">")
        .text(&ratio(m.speedup_over_awaited))
        .raw("</td><td>steady cycles / iteration</td><td>")
        .text(
            &m.steady_cycles_per_iteration
                .map_or("—".into(), |v| fixed(v, 1)),
        )
        .raw("</td></tr><tr><td>stall cycles</td><td>")
        .num(m.stall_cycles)
        .raw("</td><td>ring buffers</td><td id=\"ring-bytes\" colspan=\"3\">");
    for (k, (scope, bytes)) in m.ring_bytes.iter().enumerate() {
        if k > 0 {
            h.raw(", ");
        }
        h.text(scope).raw(" ").num(bytes).raw(" B");
    }
    if m.ring_bytes.is_empty() {
        h.raw("none");
    }
    h.raw("</td></tr></table><p class=\"hint\" id=\"baselines\">");
    if asynchronous {
        h.raw("Speedup: against this program with every wait count 0, each copy awaited before anything after it runs (")
            .num(m.awaited_cycles)
            .raw(" cycles): what keeping copies in flight buys. ");
    } else {
        // No figure where the runs did not all reach the loop's end (`NO_RATIO`, below).
        h.raw(if m.speedup_over_awaited.is_some() {
            "Speedup 1.00×: no stage"
        } else {
            "No stage"
        })
        .raw(" is asynchronous, so nothing stays in flight and each statement waits for the one before; pipelining reorders the statements, which the cost model does not make faster. ");
    }
    h.raw("Against the loop unpipelined, every statement after the one before and each copy's whole latency waited out one after another: ")
        .text(&ratio(m.speedup))
        .raw(" (")
        .num(m.unpipelined_cycles)
        .raw(" cycles).");
    if m.speedup.is_none() {
        h.raw(" ").text(NO_RATIO);
    }
    if !m.ring_bytes.is_empty() {
        let lanes = stagecraft::emit::EmitOptions::default();
        h.raw(" Ring bytes count the loop's elements; the kernels in the Code pane make each element a tile of one value per thread (")
            .num(lanes.lanes)
            .raw(" on NVIDIA, ")
            .num(lanes.amd_lanes)
            .raw(" on AMD), so their buffers are that many times larger.");
    }
    h.raw("</p>");
    // sm_80's and asyncmarks' single sequence: what their waits complete beyond the IR's.
    if let Some(n) = t.sequence_note() {
        h.raw("<p class=\"hint\" id=\"sequence-note\">").prose(&n).raw("</p>");
    }
    h.finish()
}

/// The chart as SVG markup (also what "Export SVG" saves, and `stagecraft timeline --svg` writes:
/// core draws it, its bars named by `ex`'s statements); `point` is marked when drawn. At zoom 10
/// the chart is `fit_px` wide.
pub fn gantt_svg(ex: &Exploration, t: &Timeline, zoom: u32, fit_px: f64, point: &Point) -> String {
    let mark = match point {
        Point::At {
            step,
            lane,
            start,
            end,
        } => Some(stagecraft::gantt::Mark {
            step: *step,
            lane: *lane,
            start: *start,
            end: *end,
        }),
        _ => None,
    };
    stagecraft::gantt::svg(t, &ex.statement_texts(), zoom, fit_px, mark.as_ref())
}

/// Everything below the controls: the timeline `t` of `ex`, and `ex`'s cost table.
fn body_html(
    ex: &Exploration,
    t: &Timeline,
    zoom: u32,
    fit_px: f64,
    point: &Point,
    costs_open: bool,
    editable: bool,
) -> String {
    let asynchronous = ex.pipeline.as_ref().is_some_and(|p| !p.async_stages.is_empty());
    let mut out = metrics_html(t, asynchronous);
    out.push_str(&costs::costs_html(ex, costs_open, editable));
    if let Point::Outside { step, shown } = point {
        out.push_str(&format!(
            "<p class=\"focus-note\" id=\"focus-outside\">The selected instance ran at step {step}, outside the steps drawn ({}–{}).</p>",
            shown.0, shown.1
        ));
    }
    out.push_str("<div class=\"svgwrap\">");
    out.push_str(&gantt_svg(ex, t, zoom, fit_px, point));
    out.push_str("</div>");
    out
}

/// Bars written with the rest of the pane; the others are appended after it, `BARS_PER_TASK` in
/// each task (`dom::Parts`): written at once, a chart of `limits::MAX_TIMELINE_BARS` bars is one
/// long task, much of it the browser's styling of its elements.
const FIRST_BARS: usize = 150;
const BARS_PER_TASK: usize = 250;

/// The pane's markup in parts when its chart has more than `FIRST_BARS` bars. A bar begins with
/// the one `<rect role="img"` of its markup, and every bar is a child of `#bars`.
static CHART_PARTS: dom::Splitting = dom::Splitting {
    open: "<g id=\"bars\">",
    close: "</g>",
    item: "<rect role=\"img\"",
    into: "#bars",
    first: FIRST_BARS,
    per_task: BARS_PER_TASK,
};

fn export_svg() {
    let Some(markup) = dom::by_id("timeline")
        .and_then(|t| t.query_selector(".svgwrap").ok().flatten())
        .map(|div| div.inner_html())
    else {
        return;
    };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(&markup));
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type("image/svg+xml");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Some(a) = dom::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download("stagecraft-timeline.svg");
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

pub const PANE: PaneSpec = PaneSpec {
    pane: Pane::Timeline,
    label: "Timeline",
    pending: |ctx| ctx.pending(ctx.timeline).then_some("Simulating…"),
};

/// The pane's content, made once by the registry.
pub fn view() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    let costs_open = StoredValue::new(false);
    let zoom = Memo::new(move |_| ctx.st.with(|s| s.zoom));
    // The costs are editable while the exploration shown is the text's own (a memo: the chart is
    // not redrawn on every keystroke of a text with errors).
    let editable = Memo::new(move |_| ctx.current.with(|c| c.as_ref().is_some_and(|c| c.ok)));
    contract::render_in_parts_while_shown(
        node,
        PANE.pane,
        move || {
            let (zoom, selection, editable) = (zoom.get(), ctx.selection.get(), editable.get());
            // The pane is visible when this runs: fit the chart to its width (minus the frame).
            // Measured with its markup out of the way (style.css `.measuring`): a pane just shown
            // still holds the chart of the exploration it last drew, and reading its width would
            // style and lay out all of it first, to be replaced at once (a forced style and
            // layout of thousands of elements when one large chart replaces another).
            let fit_px = node
                .get_untracked()
                .map_or(0, |el| {
                    let classes = el.class_list();
                    let _ = classes.add_1("measuring");
                    let width = el.client_width();
                    let _ = classes.remove_1("measuring");
                    width - 4
                })
                .max(0);
            let fit_px = if fit_px > 0 { f64::from(fit_px) } else { 900.0 };
            // Drawn with the exploration it was computed from (its cost table too), which is
            // `good` unless a newer one's timeline is still being computed (the pane is then
            // marked pending, and its costs are not edited).
            ctx.timeline
                .with(|ran| {
                    let ran = ran.as_ref()?;
                    let t = ran.value.as_deref()?;
                    // The verification matters only to a selected race's point: without a
                    // selection, its arrival does not redraw the chart. Without one, the
                    // step-through's position is marked, when it is of this program.
                    let point = match selection {
                        Some(_) => ctx
                            .verification
                            .with(|v| focus::focus(ran_for(v, &ran.of), Some(t), selection).point),
                        None => {
                            let this = ctx.good.with(|g| {
                                g.as_ref().is_some_and(|g| std::sync::Arc::ptr_eq(g, &ran.of))
                            });
                            ctx.stepping.with(|s| match s {
                                Some(s) if this => focus::stepping_point(t, s),
                                _ => Point::Nothing,
                            })
                        }
                    };
                    Some(body_html(
                        &ran.of,
                        t,
                        zoom,
                        fit_px,
                        &point,
                        costs_open.get_value(),
                        editable,
                    ))
                })
                .unwrap_or_default()
        },
        &CHART_PARTS,
    );
    let on_change = move |ev: leptos::ev::Event| {
        // The cost table shown is that of the text as it is now only once its timeline is.
        let shown_now = ctx.timeline.with_untracked(|t| {
            let now = ctx.explored_now();
            t.as_ref()
                .zip(now.as_ref())
                .is_some_and(|(t, now)| t.belongs_to(now))
        });
        if !shown_now {
            return;
        }
        let (Some(key), Some(unit)) = (
            dom::closest_data(&ev, "data-key"),
            dom::closest_data(&ev, "data-unit").and_then(|u| u.parse::<usize>().ok()),
        ) else {
            return;
        };
        let value = dom::target_value(&ev).and_then(|v| v.trim().parse::<u64>().ok());
        costs::set_cost(ctx, &key, unit, value);
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        // The cost table's <details> is rebuilt with each exploration: remember whether it is open.
        if let Some(el) = dom::target_element(&ev) {
            if el.tag_name().eq_ignore_ascii_case("summary") {
                costs_open.update_value(|o| *o = !*o);
            }
        }
    };
    let on_over = move |ev: leptos::ev::MouseEvent| {
        ctx.hover(dom::closest_data(&ev, "data-st").and_then(|v| v.parse().ok()));
    };
    // A bar focused by keyboard hovers its statement, as the pointer does, and says what it is.
    let info = NodeRef::<leptos::html::P>::new();
    let on_focus = move |ev: web_sys::FocusEvent| {
        let Some(bar) = dom::target_element(&ev) else {
            return;
        };
        ctx.hover(bar.get_attribute("data-st").and_then(|v| v.parse().ok()));
        let said = bar
            .query_selector("title")
            .ok()
            .flatten()
            .and_then(|t| t.text_content());
        if let Some(info) = info.get_untracked() {
            info.set_text_content(said.as_deref());
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if let Some(el) = node.get_untracked() {
            dom::rove(&ev, &el, "rect.span", Axis::Horizontal);
        }
    };
    let set_zoom = move |ev: leptos::ev::Event| {
        let z: u32 = event_target_value(&ev).parse().unwrap_or(10);
        ctx.st.update(|s| s.zoom = z.clamp(1, 100));
    };
    let pinned = super::pinned::view(ctx, PANE.pane, super::pinned::Part::Timeline);
    view! {
        <div id="timeline">
            {pinned}
            <div class="controls">
                <label>"zoom "<input type="range" min="1" max="100" prop:value=move || zoom.get().to_string()
                    on:input=set_zoom/></label>
                <button on:click=move |_| export_svg()>"Export SVG"</button>
            </div>
            <p id="bar-info" class="bar-info" aria-live="polite" node_ref=info>
                "Tab to the chart, then move along its bars with the arrow keys."</p>
            <div node_ref=node on:change=on_change on:click=on_click on:mouseover=on_over
                on:mouseleave=move |_| ctx.hover(None) on:focusin=on_focus
                on:focusout=move |_| ctx.hover(None) on:keydown=on_key></div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::timeline::Lane;

    #[test]
    fn long_charts_are_written_in_parts_that_make_the_whole() {
        let (_, cutlass) = stagecraft_link::presets::PRESETS
            .iter()
            .find(|(name, _)| name.starts_with("CUTLASS"))
            .expect("the CUTLASS preset");
        let ex = stagecraft::explore::explore(cutlass, &Default::default());
        let t = ex.timeline.as_ref().expect("timeline");
        let html = body_html(&ex, t, 10, 900.0, &Point::Nothing, false, true);
        let bars = html.matches("<rect role=\"img\"").count();
        assert!(bars > FIRST_BARS + BARS_PER_TASK, "{bars} bars");
        let parts = CHART_PARTS.split(&html).expect("in parts");
        assert_eq!(parts.now.matches("<rect role=\"img\"").count(), FIRST_BARS);
        assert_eq!(parts.later.len(), (bars - FIRST_BARS).div_ceil(BARS_PER_TASK));
        assert!(parts.later.iter().all(|p| p.starts_with("<rect role=\"img\"")));
        // The pieces go at the end of the bars' group, before the marker and the steps shown.
        let (before, after) = parts.now.split_once("</g>").unwrap();
        assert!(before.contains("<g id=\"bars\">"));
        assert_eq!(format!("{before}{}</g>{after}", parts.later.concat()), html);
        assert!(parts.now.contains("steps "));
        // A short chart is written at once.
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let t = ex.timeline.as_ref().expect("timeline");
        let html = body_html(&ex, t, 10, 900.0, &Point::Nothing, false, true);
        assert!(CHART_PARTS.split(&html).is_none());
    }

    #[test]
    fn the_chart_marks_a_point_and_its_stalls_carry_their_wait() {
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let t = ex.timeline.as_ref().expect("timeline");
        let plain = gantt_svg(&ex, t, 10, 900.0, &Point::Nothing);
        assert!(!plain.contains("focus-marker"));
        assert!(plain.contains("class=\"span s0 st0\""), "{plain}");
        if let Some(stall) = t.stalls.first() {
            assert!(plain.contains(&format!("class=\"stall wi{}\"", stall.wait_index)));
        }
        let marked = gantt_svg(
            &ex,
            t,
            10,
            900.0,
            &Point::At {
                step: 2,
                lane: Lane::Compute,
                start: 10,
                end: 20,
            },
        );
        assert!(marked.contains("<g id=\"focus-marker\">"));
        assert!(marked.contains("step 2"));
    }

    #[test]
    fn the_single_sequence_is_said_under_the_metrics_only_when_it_forces_groups() {
        let two_queues = "A_sh = alloc([1])\nB_sh = alloc([1])\nfor i in range(12):\n    A_sh[0] = A[i]\n    B_sh[0] = B[i]\n    C[i] = A_sh[0] + B_sh[0]\nsch.annotate(i, \"software_pipeline_stage\", [0, 1, 3])\nsch.annotate(i, \"software_pipeline_order\", [0, 1, 2])\nsch.annotate(i, \"software_pipeline_async_stages\", [0, 1])\n";
        let ex = stagecraft::explore::explore(two_queues, &Default::default());
        let html = metrics_html(ex.timeline.as_ref().expect("timeline"), true);
        assert!(html.contains("id=\"sequence-note\""), "{html}");
        assert!(html.contains("the 3rd newest group of queue 0"), "{html}");
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        assert!(!metrics_html(ex.timeline.as_ref().expect("timeline"), true).contains("sequence-note"));
    }
}
