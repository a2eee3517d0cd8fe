//! The annotation grid: one row per unit of the pipelined loop with its stage and order, and per
//! stage an async toggle. Editing it rewrites the `sch.annotate` lines of the text (the text stays
//! the one source of truth).

use crate::ctx::{ctx, Ctx};
use crate::dom;
use crate::markup::html::Html;
use crate::model::annotations;
use crate::services::exploring;
use crate::views::render;
use leptos::prelude::*;
use stagecraft::explore::{Exploration, PipelineInfo, StatementInfo, UnitInfo};
use stagecraft::tvmscript::Dialect;
use std::rc::Rc;

/// Rows per chunk of the grid: only chunks near the rows in view are rendered (`dom::show_near`),
/// and the grid shows about eight.
const GRID_CHUNK: usize = 16;

/// The grid's chunks hold its stage fields: hidden outright away from view (style.css keeps
/// their size), not display-locked — Chrome's autofill lays the whole page out again for each
/// locked chunk holding a form field, all in one task after the DOM changes.
const GRID_CHUNKS: dom::Chunks = dom::Chunks {
    class: "grid-chunk",
    hidden: "",
};

/// How a row names its unit: the text of its statements (a loop nest's statements, not its
/// `for` headers, which five rows of a GEMM would share), after the part it is of an inner loop
/// pipelined first.
fn unit_text(u: &UnitInfo, statements: &[StatementInfo]) -> String {
    let texts: Vec<&str> = u
        .stmts
        .iter()
        .filter_map(|s| statements.iter().find(|x| x.id == *s))
        .map(|s| s.text.as_str())
        .collect();
    if texts.is_empty() {
        u.label.clone()
    } else {
        texts.join("; ")
    }
}

/// The grid's markup; controls carry `data-unit` / `data-move` / `data-stage` for the delegated
/// handlers, rows their statement's `st{id}` class for highlighting. The units of an inner loop
/// pipelined first come under a row naming that loop, as its prologue, body and epilogue.
/// `editable` is false while the text has errors: the last good grid is shown, read-only. A
/// TileLang kernel's asynchronous stages are shown but not toggled: TileLang derives them.
pub fn grid_html(
    p: &PipelineInfo,
    statements: &[StatementInfo],
    dialect: Dialect,
    editable: bool,
) -> String {
    let max_stage = p.units.iter().map(|u| u.stage).max().unwrap_or(0) + 1;
    let mut h = Html::with_capacity(256 * p.units.len() + 512);
    if !editable {
        h.raw("<fieldset class=\"readonly\" disabled>");
    }
    let groups = p
        .units
        .iter()
        .enumerate()
        .filter(|(k, u)| {
            u.inner.as_ref().is_some_and(|part| {
                *k == 0
                    || p.units
                        .get(k - 1)
                        .and_then(|prev| prev.inner.as_ref())
                        .is_none_or(|prev| prev.header != part.header)
            })
        })
        .count();
    // Rows, not a table, in chunks that the browser skips while off screen: as a table with a
    // number input per row, a large grid was most of the styling and layout of every paste.
    // Chunks far from view are hidden from assistive technology too: the row count and indices
    // say where the rows shown are.
    h.raw("<div id=\"grid\" role=\"table\" aria-label=\"stages and orders\" aria-rowcount=\"")
        .num(p.units.len() + groups + 1)
        .raw("\"><div class=\"grid-row head\" role=\"row\" aria-rowindex=\"1\"><span role=\"columnheader\">statement</span><span role=\"columnheader\">stage</span><span role=\"columnheader\">order</span></div>");
    let mut row = 1;
    let mut header: Option<&str> = None;
    for (k, u) in p.units.iter().enumerate() {
        h.chunk(k, p.units.len(), GRID_CHUNK, GRID_CHUNKS.class);
        let part = u.inner.as_ref();
        if let Some(part) = part.filter(|part| header != Some(part.header.as_str())) {
            row += 1;
            h.raw("<div class=\"grid-row group\" role=\"row\" aria-rowindex=\"")
                .num(row)
                .raw("\"><span role=\"cell\">inner loop ")
                .prose(&part.header)
                .raw(", pipelined first</span></div>");
        }
        header = part.map(|part| part.header.as_str());
        row += 1;
        h.raw("<div role=\"row\" aria-rowindex=\"")
            .num(row)
            .raw("\" data-unit=\"")
            .num(k)
            .raw("\"");
        let class = if part.is_some() {
            "grid-row inner"
        } else {
            "grid-row"
        };
        match u.stmts.first() {
            Some(s) => {
                h.raw(" data-st=\"")
                    .num(s)
                    .raw("\" class=\"")
                    .raw(class)
                    .raw(" st")
                    .num(s)
                    .raw("\"");
            }
            None => {
                h.raw(" class=\"").raw(class).raw("\"");
            }
        }
        let text = unit_text(u, statements);
        // A narrow panel cuts long labels short; the title keeps them readable, with where the
        // unit is.
        h.raw("><span class=\"label\" role=\"cell\" title=\"")
            .text(&u.label)
            .raw(": ")
            .text(&text)
            .raw("\">");
        if let Some(s) = u.stmts.first() {
            h.raw("<span class=\"dot s").num(s % 10).raw("\"></span>");
        }
        if let Some(part) = part {
            h.raw("<span class=\"part\">")
                .raw(part.section.name())
                .raw(" of the inner loop</span> ");
        }
        h.raw("<code>").text(&text).raw("</code></span>");
        h.raw("<span role=\"cell\"><input class=\"stage\" type=\"number\" min=\"0\" max=\"64\" id=\"stage-")
            .num(k)
            .raw("\" aria-label=\"stage of ")
            .text(&text)
            .raw("\" value=\"")
            .num(u.stage)
            .raw("\"></span><span class=\"order\" role=\"cell\">")
            .num(u.order)
            .raw("<button data-move=\"-1\" title=\"earlier in the step\" aria-label=\"earlier in the step\">↑</button>")
            .raw("<button data-move=\"1\" title=\"later in the step\" aria-label=\"later in the step\">↓</button></span></div>");
    }
    h.end_chunks(p.units.len(), GRID_CHUNK);
    h.raw("</div><div class=\"asyncs\">async stages: ");
    // A stage no statement is in has nothing to make asynchronous: offered only while the text
    // still names it (to take it back out).
    let offered = (0..max_stage)
        .filter(|s| p.units.iter().any(|u| u.stage == *s) || p.async_stages.contains(s));
    for s in offered {
        h.raw("<label class=\"async-toggle\"><input type=\"checkbox\" id=\"async-")
            .num(s)
            .raw("\" data-stage=\"")
            .num(s)
            .raw("\"");
        if p.async_stages.contains(&s) {
            h.raw(" checked");
        }
        if dialect == Dialect::TileLang {
            h.raw(" disabled title=\"TileLang makes the global-to-shared copies of a stage asynchronous: change the stages to change these (docs/tilelang.md)\"");
        }
        h.raw(">stage ").num(s).raw("</label>");
    }
    h.raw("</div><p class=\"hint\">")
        .num(p.units.len())
        .raw(" statements, stages 0–")
        .num(max_stage - 1)
        .raw(if editable {
            "; editing the grid rewrites the loop's annotations where the text writes them</p>"
        } else {
            "; fix the problems below to edit the grid again</p></fieldset>"
        });
    h.finish()
}

/// Changes (stages, orders, async stages) of the loop being edited.
type GridEdit = Rc<dyn Fn(&mut [i64], &mut [i64], &mut Vec<i64>)>;

/// Grid edits made while the text shown in the grid was not yet explored (typed just before, or
/// held back by a typing pause): applied, in order, once its exploration arrives.
#[derive(Default)]
struct Queued {
    /// The text the edits were made on.
    text: String,
    /// How many rows the grid the user edited had: its rows are the new exploration's only if
    /// the count is the same (the edits name rows by index).
    rows: usize,
    edits: Vec<GridEdit>,
}

/// Applies a change to the schedule and writes it back into the text. The exploration of the text
/// as it is now is used: its annotation spans are those of this text. When the text has changed
/// since its last exploration, the change waits for the exploration of the text as it is (asked
/// at once), as `apply_queued` does.
fn edit(ctx: Ctx, queued: StoredValue<Queued, LocalStorage>, f: GridEdit) {
    if let Some(ex) = ctx.explored_now() {
        rewrite(ctx, &ex, &[f]);
        return;
    }
    let text = ctx.st.with_untracked(|s| s.text.clone());
    let rows = ctx.current.with_untracked(|ex| {
        ex.as_deref()
            .and_then(|ex| ex.pipeline.as_ref())
            .map_or(0, |p| p.units.len())
    });
    queued.update_value(|q| {
        if q.text != text {
            *q = Queued {
                text,
                rows,
                edits: Vec::new(),
            };
        }
        q.edits.push(f);
    });
    exploring::ask_owed_now();
}

/// The grid edits queued (`edit`), once the text they were made on is explored: applied together
/// as one rewrite when the rows are the grid's the user saw, else dropped with a word why.
fn apply_queued(ctx: Ctx, queued: StoredValue<Queued, LocalStorage>) {
    if queued.with_value(|q| q.edits.is_empty()) {
        return;
    }
    let Some(ex) = ctx.explored_now() else {
        return;
    };
    let Queued { text, rows, edits } = queued.try_update_value(std::mem::take).unwrap_or_default();
    let Some(p) = ex.pipeline.as_ref() else {
        return;
    };
    let now = ctx.st.with_untracked(|s| s.text.clone());
    if text == now && rows == p.units.len() {
        rewrite(ctx, &ex, &edits);
    } else {
        ctx.banner.set(Some(
            "The grid's change was not applied: the loop's statements changed before it was explored. Make it again in the grid as it is now."
                .into(),
        ));
    }
}

/// `edits` applied in turn to the schedule of `ex` (the text's exploration), written back into the
/// text as one step of its undo.
fn rewrite(ctx: Ctx, ex: &Exploration, edits: &[GridEdit]) {
    let Some(p) = ex.pipeline.as_ref() else {
        return;
    };
    let mut stages: Vec<i64> = p.units.iter().map(|u| u.stage).collect();
    let mut orders: Vec<i64> = p.units.iter().map(|u| u.order).collect();
    let mut asyncs = p.async_stages.clone();
    for f in edits {
        f(&mut stages, &mut orders, &mut asyncs);
    }
    asyncs.sort_unstable();
    asyncs.dedup();
    let text = ctx.st.with_untracked(|s| s.text.clone());
    let new = annotations::rewrite(
        &text,
        &ex.annotations,
        &p.loop_var,
        &stages,
        &orders,
        &asyncs,
    );
    ctx.set_text(new);
}

/// Swaps unit `k`'s order with the neighbour `dir` positions away in step order.
pub fn move_order(orders: &mut [i64], k: usize, dir: i64) {
    let Some(&mine) = orders.get(k) else { return };
    let mut sorted: Vec<i64> = orders.to_vec();
    sorted.sort_unstable();
    let Some(pos) = sorted.iter().position(|o| *o == mine) else {
        return;
    };
    let Some(&target) = sorted.get((pos as i64 + dir).max(0) as usize) else {
        return;
    };
    if let Some(j) = orders.iter().position(|o| *o == target) {
        orders.swap(k, j);
    }
}

fn data_num<T: std::str::FromStr>(ev: &web_sys::Event, attr: &str) -> Option<T> {
    dom::closest_data(ev, attr)?.parse().ok()
}

#[component]
pub fn Grid() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    let queued = StoredValue::new_local(Queued::default());
    Effect::new(move |_| {
        ctx.current.track();
        apply_queued(ctx, queued);
    });
    render::near(
        node,
        move || {
            let now = ctx.current.with(|ex| {
                let ex = ex.as_deref()?;
                Some(grid_html(
                    ex.pipeline.as_ref()?,
                    &ex.statements,
                    ex.dialect,
                    true,
                ))
            });
            now.or_else(|| {
                ctx.good.with(|ex| {
                    let ex = ex.as_deref()?;
                    Some(grid_html(
                        ex.pipeline.as_ref()?,
                        &ex.statements,
                        ex.dialect,
                        false,
                    ))
                })
            })
            .unwrap_or_default()
        },
        GRID_CHUNKS,
    );
    // A stage applies as it is typed, as the editor's text does; a field left empty or not a
    // number changes nothing (the next exploration writes the stage back).
    let set_stage = move |ev: &web_sys::Event| {
        let Some(k) = data_num::<usize>(ev, "data-unit") else {
            return;
        };
        let Some(v) = dom::target_value(ev).and_then(|v| v.trim().parse::<i64>().ok()) else {
            return;
        };
        let v = v.clamp(0, 64);
        edit(
            ctx,
            queued,
            Rc::new(move |s, _, _| {
                if let Some(x) = s.get_mut(k) {
                    *x = v
                }
            }),
        );
    };
    let on_change = move |ev: leptos::ev::Event| {
        if let Some(stage) = data_num::<i64>(&ev, "data-stage") {
            let on = event_target_checked(&ev);
            edit(
                ctx,
                queued,
                Rc::new(move |_, _, a| {
                    if on {
                        a.push(stage)
                    } else {
                        a.retain(|x| *x != stage)
                    }
                }),
            );
        } else {
            set_stage(&ev);
        }
    };
    let on_input = move |ev: leptos::ev::Event| set_stage(&ev);
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if let (Some(dir), Some(k)) = (
            data_num::<i64>(&ev, "data-move"),
            data_num::<usize>(&ev, "data-unit"),
        ) {
            edit(ctx, queued, Rc::new(move |_, o, _| move_order(o, k, dir)));
        }
    };
    // Ctrl+Z in the grid undoes the text's last step, as in the editor (a grid edit is one).
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        if let Some(redo) = crate::views::editor::undo_key(&ev) {
            ev.prevent_default();
            ctx.undo_text(redo);
        }
    };
    let on_over = move |ev: leptos::ev::MouseEvent| ctx.hover(data_num(&ev, "data-st"));
    let show_near = move || {
        if let Some(el) = node.get_untracked() {
            dom::show_near(&el, GRID_CHUNKS);
        }
    };
    dom::show_near_on_resize(move || node.get_untracked().map(Into::into), GRID_CHUNKS);
    view! {
        <div class="grid" node_ref=node on:change=on_change on:input=on_input on:click=on_click
            on:keydown=on_keydown on:scroll=move |_| show_near()
            on:mouseover=on_over on:mouseleave=move |_| ctx.hover(None)></div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tilelang_kernels_async_stages_are_shown_not_toggled() {
        let kernel = include_str!("../../../tests/tilelang/gemm_stages3.py");
        let ex = stagecraft::explore::explore(kernel, &Default::default());
        assert_eq!(ex.dialect, Dialect::TileLang);
        let html = grid_html(
            ex.pipeline.as_ref().expect("a pipeline"),
            &ex.statements,
            ex.dialect,
            true,
        );
        assert!(
            html.contains("id=\"async-0\" data-stage=\"0\" checked disabled"),
            "{html}"
        );
        assert!(html.contains("type=\"number\""), "the stages stay editable");
    }

    #[test]
    fn grid_rows_carry_units_statements_and_escaped_labels() {
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let html = grid_html(
            ex.pipeline.as_ref().expect("a pipeline"),
            &ex.statements,
            ex.dialect,
            true,
        );
        assert!(!html.contains("disabled"));
        assert!(
            html.contains("data-unit=\"1\" data-st=\"1\" class=\"grid-row st1\""),
            "{html}"
        );
        assert!(
            html.contains("id=\"async-0\" data-stage=\"0\" checked"),
            "{html}"
        );
        assert!(
            !html.contains("<code>B[0, 0] = A[i] <"),
            "labels are escaped"
        );
    }

    #[test]
    fn move_order_swaps_neighbours_and_stops_at_the_ends() {
        let mut o = vec![0, 1, 2];
        move_order(&mut o, 0, -1);
        assert_eq!(o, [0, 1, 2]);
        move_order(&mut o, 0, 1);
        assert_eq!(o, [1, 0, 2]);
    }
}
