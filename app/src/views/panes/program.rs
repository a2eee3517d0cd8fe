//! The pipelined program: sections set apart, each statement line tied to its source statement, each
//! wait line explained on hover and marked by its node index (`w{index}`) for the selection. Other
//! views of the same schedule beside it (`ProgramView`), drawn by the worker: the program in token
//! form, the program TVM 0.27 makes of it, verified, set beside Stagecraft's own, and a pasted
//! program checked against the loop.

use super::contract::{self, PaneSpec};
use crate::ctx::ctx;
use crate::dom;
use crate::markup::{format, html::Html};
use crate::model::roving::Axis;
use leptos::prelude::*;
use crate::model::deferred::ran_for;
use crate::model::snapshot::Parts;
use stagecraft::explore::CountOverride;
use stagecraft::tvm::TvmView;
use stagecraft::sync::WaitWhy;
use stagecraft::verify::Verification;
use stagecraft::tir::Printed;
use stagecraft_link::{Pane, ProgramView, State};
use std::sync::Arc;

/// The pane's markup in parts when its program has more than `dom::FIRST_CHUNKS` chunks of lines.
/// A chunk begins with the one `<div class="chunk"` of its lines' markup (their text is escaped),
/// and every chunk is a child of `#program`.
static PROGRAM_PARTS: dom::Splitting = dom::Splitting::chunks_of_lines("<pre id=\"program\"", "#program");

/// The "why" of the wait line `line` (one with `data-site`), written into its `data-why` once:
/// what the popover beside it shows while it is pointed at or focused. `None` until the whys of
/// the program shown have arrived (`Want::Whys`).
fn explain_line(line: &web_sys::Element, whys: &[WaitWhy]) -> Option<String> {
    if let Some(why) = line.get_attribute("data-why") {
        return Some(why);
    }
    let id: u32 = line.get_attribute("data-site")?.parse().ok()?;
    let text = whys.iter().find(|x| x.site == id)?.text.clone();
    let _ = line.set_attribute("data-why", &text);
    Some(text)
}

/// The popover's widest and narrowest width beside the program's lines, in pixels.
const WHY_WIDTH: (f64, f64) = (480.0, 260.0);
/// Lines below a wait line that its popover may lie beside.
const WHY_LINES: usize = 16;

/// The right end of what `line` shows (its text and count controls), in the viewport.
fn content_right(line: &web_sys::Element) -> f64 {
    let range = dom::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_range().ok());
    match range {
        Some(r) if r.select_node_contents(line).is_ok() => r.get_bounding_client_rect().right(),
        _ => line.get_bounding_client_rect().right(),
    }
}

/// A length in whole pixels, as CSS reads it (without formatting a float, whose machinery costs
/// the bundle kilobytes).
fn px(v: f64) -> String {
    format!("{}px", v.round() as i64)
}

/// `line` and the lines after it in the program, `n` at most (across chunks).
fn lines_from(line: &web_sys::Element, n: usize) -> Vec<web_sys::Element> {
    let mut out = vec![line.clone()];
    let mut at = line.clone();
    while out.len() < n {
        let next = at.next_element_sibling().or_else(|| {
            at.parent_element()
                .filter(|p| p.class_list().contains("chunk"))
                .and_then(|chunk| chunk.next_element_sibling())
                .and_then(|next| next.first_element_child())
        });
        match next {
            Some(e) if e.class_list().contains("line") => {
                out.push(e.clone());
                at = e;
            }
            _ => break,
        }
    }
    out
}

/// Shows `text` in the popover `why` beside the wait line `line`: to the right of it and of the
/// lines it would lie beside, when the frame has room; else below the line, or above it, where it
/// covers no other wait line (below when both would).
fn show_why(why: &web_sys::HtmlElement, frame: &web_sys::Element, line: &web_sys::Element, text: &str) {
    why.set_text_content(Some(text));
    let f = frame.get_bounding_client_rect();
    let l = line.get_bounding_client_rect();
    let style = why.style();
    let right = lines_from(line, WHY_LINES)
        .iter()
        .map(content_right)
        .fold(l.left(), f64::max);
    let room = f.right() - right - 24.0;
    if room >= WHY_WIDTH.1 {
        let _ = style.set_property("left", &px(right - f.left() + 16.0));
        let _ = style.set_property("right", "auto");
        let _ = style.set_property("width", &px(room.min(WHY_WIDTH.0)));
        let _ = style.set_property("top", &px(l.top() - f.top()));
        let _ = why.remove_attribute("hidden");
        return;
    }
    let _ = style.set_property("left", "14px");
    let _ = style.set_property("right", "14px");
    let _ = style.remove_property("width");
    let _ = why.remove_attribute("hidden");
    let height = why.get_bounding_client_rect().height();
    let waits = frame.query_selector_all(".line.wait").ok();
    let covers_a_wait = |top: f64| {
        waits.as_ref().is_some_and(|list| {
            (0..list.length())
                .filter_map(|k| list.item(k))
                .filter_map(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok())
                .filter(|w| w != line)
                .map(|w| w.get_bounding_client_rect())
                .any(|r| r.bottom() > top && r.top() < top + height)
        })
    };
    let below = l.bottom();
    let above = l.top() - height;
    let top = if covers_a_wait(below) && !covers_a_wait(above) && above >= f.top() {
        above
    } else {
        below
    };
    let _ = style.set_property("top", &px(top - f.top()));
}


/// The parts the other views show, drawn by the worker, as they have arrived (`None`: on its way).
struct Views<'a> {
    tokens: Option<&'a str>,
    tvm: Option<&'a TvmView>,
    check: Option<&'a str>,
}

/// Stagecraft's own program for the schedule, set beside TVM's: its printed form and the
/// verifier's verdict on it (`None`: on its way).
fn ours_html(printed: Option<&Printed>, verification: Option<&Verification>) -> String {
    let mut h = Html::default();
    h.raw("<section class=\"column\" aria-label=\"Stagecraft's program\">");
    match verification {
        Some(v) => h
            .raw("<div id=\"ours-verdict\" class=\"")
            .raw(format::verdict_class(v.verdict))
            .raw("\">Stagecraft's program: ")
            .prose(&v.summary)
            .raw("</div>"),
        None => h.raw("<div id=\"ours-verdict\" class=\"verdict notrun\">Stagecraft's program: verifying…</div>"),
    };
    if let Some(p) = printed {
        h.raw("<pre id=\"ours-program\" class=\"program\">");
        for line in p.text.lines() {
            h.raw("<div class=\"line\">").text(line).raw("</div>");
        }
        h.raw("</pre>");
    }
    h.raw("</section>");
    h.finish()
}

/// The pane's content in `view`: TVM's program is set beside Stagecraft's (`ours`, drawn when
/// asked); `pipelined` is the program pasted to be checked against the loop.
fn view_html(view: ProgramView, pipelined: &str, parts: &Views, ours: impl Fn() -> String) -> String {
    let waiting = |what: &str| format!("<p class=\"view-note\">{what}…</p>");
    match view {
        ProgramView::Stagecraft => String::new(),
        ProgramView::Tokens => parts
            .tokens
            .map_or_else(|| waiting("Writing the program in token form"), str::to_string),
        ProgramView::Check if pipelined.trim().is_empty() => {
            stagecraft::explore::CHECK_INVITATION.to_string()
        }
        ProgramView::Check => parts
            .check
            .map_or_else(|| waiting("Checking the pasted program"), str::to_string),
        ProgramView::Tvm => parts.tvm.map_or_else(
            || waiting("Pipelining the loop as TVM 0.27 does"),
            |t| {
                format!(
                    "{}<div class=\"side-by-side\">{}{}</div>",
                    t.above,
                    t.column,
                    ours()
                )
            },
        ),
    }
}

/// The buttons that choose the view, one pressed.
fn view_buttons(current: ProgramView) -> String {
    let mut h = Html::default();
    for v in ProgramView::all() {
        h.raw("<button type=\"button\" data-view=\"")
            .raw(v.name())
            .raw("\" aria-pressed=\"")
            .raw(if v == current { "true" } else { "false" })
            .raw("\">")
            .text(v.label())
            .raw("</button>");
    }
    h.finish()
}

/// Moves the count of the wait `key` by `delta` among those set by hand; back at the derived count,
/// it is no longer one of them.
fn step_count(counts: &mut Vec<CountOverride>, key: stagecraft::explore::WaitKey, delta: i64) {
    match counts.iter_mut().find(|c| c.wait == key) {
        Some(c) => c.delta += delta,
        None => counts.push(CountOverride { wait: key, delta }),
    }
    counts.retain(|c| c.delta != 0);
}

pub const PANE: PaneSpec = PaneSpec {
    pane: Pane::Program,
    label: "Pipelined program",
    pending: contract::never_pending,
};

/// Keeps `node` showing the view chosen: Stagecraft's program, its token form, TVM's program
/// beside it, or the check of a pasted program.
fn render_views(ctx: crate::ctx::Ctx, node: NodeRef<leptos::html::Div>) {
    let peeled = ctx.peeled;
    let tokens = ctx.part(|p: &Parts, s: &State| {
        let form = s.form;
        p.tokens.iter().find(|(f, _)| *f == form).map(|(_, t)| t.clone())
    });
    // TVM's program and a pasted program's check are of the newest text, whatever its verdict.
    let tvm = Memo::new(move |_| {
        ctx.snapshot
            .with(|s| s.current.as_ref().and_then(|c| c.parts.tvm.clone()))
    });
    let check = Memo::new(move |_| {
        let pasted = ctx.st.with(|s| s.pipelined.clone());
        ctx.snapshot.with(|s| {
            s.current
                .as_ref()
                .and_then(|c| c.parts.check.clone())
                .filter(|(p, _)| *p == pasted)
                .map(|(_, c)| c)
        })
    });
    // Drawn by the worker; another answer is another value (comparing the markup would cost as
    // much as writing it).
    let program = Memo::new_with_compare(
        move |_| ctx.snapshot.with(|s| s.good().map(|g| g.program.clone())),
        |a: Option<&Option<Arc<str>>>, b: Option<&Option<Arc<str>>>| {
            !matches!(
                (a.and_then(Option::as_ref), b.and_then(Option::as_ref)),
                (Some(x), Some(y)) if Arc::ptr_eq(x, y)
            )
        },
    );
    contract::render_in_parts_while_shown(node, PANE.pane, move || {
        let (peeled, view) = (peeled.get(), ctx.view.get());
        if view == ProgramView::Stagecraft {
            return program.with(|p| p.as_deref().map(str::to_owned).unwrap_or_default());
        }
        let pipelined = ctx.st.with(|s| s.pipelined.clone());
        ctx.verification.with(|verified| {
            ctx.good.with(|ex| {
                let Some(ex) = ex.as_ref() else {
                    return String::new();
                };
                let ours = || ours_html(ex.printed(peeled), ran_for(verified, ex));
                tokens.with(|t| {
                    tvm.with(|tvm| {
                        check.with(|check| {
                            let parts = Views {
                                tokens: ran_for(t, ex).map(String::as_str),
                                tvm: tvm.as_deref(),
                                check: check.as_deref().map(String::as_str),
                            };
                            view_html(view, &pipelined, &parts, ours)
                        })
                    })
                })
            })
        })
    }, &PROGRAM_PARTS);
}

/// The pane's content, made once by the registry.
pub fn view() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    render_views(ctx, node);
    let on_view = move |ev: leptos::ev::MouseEvent| {
        if let Some(v) = dom::closest_data(&ev, "data-view") {
            ctx.st.update(|s| s.view = ProgramView::parse(&v));
        }
    };
    let explained = move |line: &web_sys::Element| {
        ctx.snapshot.with_untracked(|s| {
            let whys = s.good()?.parts.whys.clone()?;
            explain_line(line, &whys)
        })
    };
    // A wait line's "why", beside it while it is pointed at or focused (the pointer first).
    let why = NodeRef::<leptos::html::Div>::new();
    let frame = NodeRef::<leptos::html::Div>::new();
    let focused = StoredValue::new(None::<web_sys::Element>);
    let pointed = StoredValue::new(None::<web_sys::Element>);
    let show = move || {
        let (Some(why), Some(frame)) = (why.get_untracked(), frame.get_untracked()) else {
            return;
        };
        let line = pointed.get_value().or_else(|| focused.get_value());
        match line.and_then(|l| explained(&l).map(|t| (l, t))) {
            Some((line, text)) => show_why(&why, &frame, &line, &text),
            None if !why.has_attribute("hidden") => {
                let _ = why.set_attribute("hidden", "");
            }
            None => {}
        }
    };
    // A line pointed at or focused before the whys arrived is explained when they do.
    let whys_arrived = Memo::new(move |_| {
        ctx.snapshot
            .with(|s| s.good().is_some_and(|g| g.parts.whys.is_some()))
    });
    Effect::new(move |_| {
        if whys_arrived.get() {
            show();
        }
    });
    let wait_line = |ev: &web_sys::Event| {
        dom::target_element(ev).and_then(|e| e.closest(".line.wait[data-site]").ok().flatten())
    };
    let on_over = move |ev: leptos::ev::MouseEvent| {
        ctx.hover(dom::closest_data(&ev, "data-st").and_then(|v| v.parse().ok()));
        let line = wait_line(&ev);
        if line != pointed.get_value() {
            pointed.set_value(line);
            show();
        }
    };
    let on_leave = move |_| {
        ctx.hover(None);
        pointed.set_value(None);
        show();
    };
    let on_focus = move |ev: web_sys::FocusEvent| {
        let line = wait_line(&ev);
        if let Some(l) = &line {
            let _ = l.set_attribute("aria-describedby", "why");
        }
        focused.set_value(line);
        show();
    };
    let on_blur = move |_: web_sys::FocusEvent| {
        focused.set_value(None);
        show();
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if let Some(el) = node.get_untracked() {
            dom::rove(&ev, &el, ".line.wait[tabindex]", Axis::Vertical);
        }
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if dom::target_element(&ev).is_some_and(|e| e.id() == "reset-counts") {
            ctx.st.update(|s| s.counts.clear());
            return;
        }
        let (Some(wait), Some(delta)) = (
            dom::closest_data(&ev, "data-wait").and_then(|w| w.parse::<u32>().ok()),
            dom::closest_data(&ev, "data-delta").and_then(|d| d.parse::<i64>().ok()),
        ) else {
            return;
        };
        let key = ctx.good.with_untracked(|ex| {
            ex.as_deref()?
                .counts
                .iter()
                .find(|c| c.wait == wait)
                .map(|c| c.key.clone())
        });
        if let Some(key) = key {
            ctx.st.update(|s| step_count(&mut s.counts, key, delta));
        }
    };
    // The program to check is typed or pasted here; the loop stays in the editor beside it.
    let checking = move || ctx.view.get() == ProgramView::Check;
    let on_pipelined = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        if text.len() <= stagecraft::limits::MAX_SOURCE_BYTES {
            ctx.st.update(|s| s.pipelined = text);
        }
    };
    let start_from_ours = move |_| {
        let ours = ctx.good.with_untracked(|ex| {
            ex.as_deref()
                .and_then(|ex| ex.printed(false))
                .map(|p| p.text.clone())
        });
        if let Some(text) = ours {
            ctx.st.update(|s| s.pipelined = text);
        }
    };
    let pinned = super::pinned::view(ctx, PANE.pane, super::pinned::Part::Program);
    view! {
        {pinned}
        <div class="program-views" role="group" aria-label="Program shown" on:click=on_view
            inner_html=move || view_buttons(ctx.view.get())></div>
        <Show when=checking>
            <div class="check-input">
                <label for="pipelined">"Pipelined program to check against the loop in the editor"</label>
                <button type="button" on:click=start_from_ours>"Start from Stagecraft's program"</button>
                <textarea id="pipelined" spellcheck="false" maxlength=stagecraft::limits::MAX_SOURCE_BYTES
                    prop:value=move || ctx.st.with(|s| s.pipelined.clone()) on:input=on_pipelined></textarea>
            </div>
        </Show>
        <div class="program-frame" node_ref=frame>
            <div node_ref=node on:click=on_click on:mouseover=on_over on:mouseleave=on_leave
                on:focusin=on_focus on:focusout=on_blur on:keydown=on_key></div>
            <div id="why" class="why" role="tooltip" node_ref=why hidden></div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{CHUNKS_PER_TASK, FIRST_CHUNKS};
    use stagecraft::explore::program_pane_html;

    #[test]
    fn a_count_stepped_back_to_the_derived_one_is_no_longer_set_by_hand() {
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let body = ex.counts.iter().find(|c| c.key.section == stagecraft::ir::SectionKind::Body).unwrap();
        let mut counts = Vec::new();
        step_count(&mut counts, body.key.clone(), 1);
        assert_eq!(counts.len(), 1);
        assert_eq!(counts[0].delta, 1);
        step_count(&mut counts, body.key.clone(), -1);
        assert!(counts.is_empty(), "back at the derived count nothing is set by hand");
    }

    /// Written in parts, a long program is the same markup once every part is in: what is written
    /// at once holds the first chunks and everything around the program, the parts the others.
    #[test]
    fn long_programs_are_written_in_parts_that_make_the_whole() {
        let list = |f: fn(usize) -> usize| {
            (0..150).map(|k| f(k).to_string()).collect::<Vec<_>>().join(", ")
        };
        let text = format!(
            "{}sch.annotate(i, \"software_pipeline_stage\", [{}])\n\
             sch.annotate(i, \"software_pipeline_order\", [{}])\n",
            crate::model::long_loop(150),
            list(|k| k % 16),
            list(|k| k)
        );
        let ex = stagecraft::explore::explore(&text, &Default::default());
        // The peeled form prints every step of the prologue and the epilogue.
        let html = program_pane_html(&ex, true);
        let chunks = html.matches("<div class=\"chunk\"").count();
        assert!(
            chunks > FIRST_CHUNKS + CHUNKS_PER_TASK,
            "{chunks} chunks: {:?}",
            ex.diagnostics
        );
        let parts = PROGRAM_PARTS.split(&html).expect("in parts");
        assert_eq!(
            parts.now.matches("<div class=\"chunk\"").count(),
            FIRST_CHUNKS
        );
        assert_eq!(parts.later.len(), (chunks - FIRST_CHUNKS).div_ceil(CHUNKS_PER_TASK));
        let (before, after) = parts.now.split_once("</pre>").unwrap();
        assert_eq!(format!("{before}{}</pre>{after}", parts.later.concat()), html);
        assert!(parts.now.contains("<table class=\"buffers\">"));
        // A short program is written at once.
        let short = program_pane_html(
            &stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default()),
            false,
        );
        assert!(PROGRAM_PARTS.split(&short).is_none());
    }
}
