//! Machine code per target, the loop as TVMScript, and the printed TIR. The worker draws the
//! kernels with their machine-level check and the TVMScript export (`stagecraft::explore::Listing`);
//! this keeps the target picker, Copy and the clicks. Lines are tinted by the source statement they
//! come from (as Compiler Explorer does); hovering a line highlights that statement everywhere, and
//! hovering a statement elsewhere highlights its lines here, through the focus style sheet.

use super::contract::{self, PaneSpec};
use crate::ctx::ctx;
use crate::dom;
use crate::markup::html::{self, Html};
use crate::views::copy::copy_button;
use leptos::prelude::*;
use crate::model::deferred::ran_for;
use stagecraft::explore::{lines_html, Exploration, Listing};
use crate::model::snapshot::Parts;
use stagecraft_link::{CodeTarget, Pane, State};
use std::sync::Arc;

/// How a target is named in the menu.
fn label(target: &CodeTarget) -> &str {
    match target {
        CodeTarget::Tir => "TIR (Python)",
        CodeTarget::TvmScript => "TVMScript (the loop, for TVM 0.27)",
        CodeTarget::Machine(t) => t.label(),
        CodeTarget::Unavailable(name) => name,
    }
}

/// The menu's options: the printed program, then core's machine targets.
fn options_html(chosen: &CodeTarget) -> String {
    let targets: Vec<CodeTarget> = CodeTarget::all().collect();
    let options: Vec<(&str, &str)> = targets.iter().map(|t| (t.name(), label(t))).collect();
    html::options(&options, chosen.name())
}

/// The pane's markup in parts when its code has more than `dom::FIRST_CHUNKS` chunks of lines: a
/// kernel of thousands of lines written at once is one long task (and again when its machine
/// check arrives). A chunk begins with the one `<div class="chunk"` of its lines' markup (their
/// text is escaped), and every chunk is a child of the one `pre.code`.
static CODE_PARTS: crate::dom::Splitting =
    crate::dom::Splitting::chunks_of_lines("<pre class=\"code\"", "pre.code");

/// The kernel for the target chosen (`Parts::code`), and the same with the machine-level check of
/// it once that ran (`Parts::machine`).
fn code_part(p: &Parts, s: &State) -> Option<Option<Arc<Listing>>> {
    let t = s.target.machine()?;
    p.code.iter().find(|(x, _)| *x == t).map(|(_, e)| e.clone())
}

fn machine_part(p: &Parts, s: &State) -> Option<Option<Arc<String>>> {
    let t = s.target.machine()?;
    p.machine.iter().find(|(x, _)| *x == t).map(|(_, m)| m.clone())
}

/// The text of `target` for copying, if this build produces it (`kernel`: its listing).
fn code_text(ex: &Exploration, target: &CodeTarget, peeled: bool, kernel: Option<&Listing>) -> Option<String> {
    match target {
        CodeTarget::Tir => ex.printed(peeled).map(|p| p.text.clone()),
        _ => kernel.and_then(|c| c.text.clone()),
    }
}

/// The export of the loop as TVMScript, drawn (`None`: still on its way).
fn tvmscript_html(export: Option<&Listing>) -> String {
    match export {
        Some(e) => e.markup.clone(),
        None => "<p class=\"unavailable\">Writing the loop as TVMScript…</p>".to_string(),
    }
}

/// The Code pane's content for `target`: the printed program, or the kernel (`kernel`, once it
/// arrived for this exploration) with its notes, and with the machine-level check once it ran on
/// it (`machine`: the same listing with the check's report).
pub fn code_html(
    ex: &Exploration,
    target: &CodeTarget,
    peeled: bool,
    kernel: Option<&Listing>,
    machine: Option<&String>,
) -> String {
    if *target == CodeTarget::Tir {
        let mut h = Html::default();
        if let Some(p) = ex.printed(peeled) {
            let stmts: Vec<Option<u32>> = p.lines.iter().map(|l| l.stmt).collect();
            lines_html(&mut h, &p.text, &stmts, &[]);
        }
        return h.finish();
    }
    if let Some(m) = machine {
        return m.clone();
    }
    if let Some(c) = kernel {
        return c.markup.clone();
    }
    let mut h = Html::default();
    match target {
        // Asked for when the pane shows it: the engine is writing it.
        CodeTarget::Machine(t) => h
            .raw("<p class=\"unavailable\">")
            .text(t.label())
            .raw(": generating (from a text without errors)…</p>"),
        // A target named by a link of a later version.
        _ => h
            .raw("<p class=\"unavailable\">")
            .text(target.name())
            .raw(" is not available in this build of Stagecraft.</p>"),
    };
    h.finish()
}

pub const PANE: PaneSpec = PaneSpec {
    pane: Pane::Code,
    label: "Code",
    pending: contract::never_pending,
};

/// The pane's content, made once by the registry.
pub fn view() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    let (target, peeled) = (ctx.target, ctx.peeled);
    let code = ctx.part(code_part);
    let machine = ctx.part(machine_part);
    let export = Memo::new(move |_| {
        ctx.snapshot
            .with(|s| s.current.as_ref().and_then(|c| c.parts.tvmscript.clone()))
    });
    let shown_code = StoredValue::new((CodeTarget::Tir, String::new()));
    contract::render_in_parts_while_shown(
        node,
        PANE.pane,
        move || {
            let (target, peeled) = (target.get(), peeled.get());
            if target == CodeTarget::TvmScript {
                return export.with(|e| tvmscript_html(e.as_deref()));
            }
            let html = ctx
                .good
                .with(|ex| {
                    ex.as_ref().map(|ex| {
                        code.with(|c| {
                            machine.with(|m| {
                                code_html(ex, &target, peeled, ran_for(c, ex), ran_for(m, ex))
                            })
                        })
                    })
                })
                .unwrap_or_default();
            // Coming back to the pane, the previous code stays until the kernel of the target
            // arrives (instead of a placeholder, which would also lose the pane's scroll).
            let pending = target != CodeTarget::Tir
                && ctx.good.with(|ex| code.with(|c| ex.as_ref().is_none_or(|ex| ran_for(c, ex).is_none())));
            shown_code.update_value(|(t, last)| {
                if !(pending && *t == target && !last.is_empty()) {
                    *t = target;
                    *last = html;
                }
            });
            shown_code.with_value(|(_, last)| last.clone())
        },
        &CODE_PARTS,
    );
    let copy = move || {
        if target.get_untracked() == CodeTarget::TvmScript {
            return export.with_untracked(|e| e.as_deref().and_then(|e| e.text.clone()));
        }
        ctx.good.with_untracked(|ex| {
            let ex = ex.as_ref()?;
            code.with_untracked(|c| {
                code_text(ex, &target.get_untracked(), peeled.get_untracked(), ran_for(c, ex))
            })
        })
    };
    // A race, a copy never awaited or an invalid instruction: its kernel line is shown.
    let reveal_line = move |ev: &web_sys::Event| {
        if let Some(line) = dom::closest_data(ev, "data-kline") {
            dom::reveal(&format!("#code .cl[data-kline=\"{line}\"]"));
        }
    };
    let on_click = move |ev: leptos::ev::MouseEvent| reveal_line(&ev);
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" || ev.key() == " " {
            ev.prevent_default();
            reveal_line(&ev);
        }
    };
    let on_over = move |ev: leptos::ev::MouseEvent| {
        ctx.hover(dom::closest_data(&ev, "data-st").and_then(|v| v.parse().ok()));
    };
    let choose = move |ev: leptos::ev::Event| {
        let v = CodeTarget::parse(&event_target_value(&ev));
        ctx.hover(None);
        ctx.st.update(|s| s.target = v);
    };
    view! {
        <div id="code">
            <div class="controls">
                <select id="target" aria-label="Code target" on:change=choose inner_html=move || target.with(options_html)></select>
                {copy_button("copy-code", "Copy", "Copied", copy)}
            </div>
            <div node_ref=node on:mouseover=on_over on:mouseleave=move |_| ctx.hover(None) on:click=on_click on:keydown=on_key></div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{CHUNKS_PER_TASK, FIRST_CHUNKS};
    use stagecraft::explore::CHUNK_LINES;
    use stagecraft_link::Target;

    /// The kernel `ex` emitted for `target`, as the worker draws it.
    fn kernel_in(ex: &Exploration, target: &CodeTarget) -> Option<Listing> {
        let t = target.machine()?;
        let c = ex.code.iter().find(|c| c.target == t.name())?;
        Some(stagecraft::explore::kernel_listing(c))
    }

    #[test]
    fn code_lines_are_tied_to_statements_and_missing_targets_say_so() {
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let target = CodeTarget::Machine(Target::Ptx);
        let kernel = kernel_in(&ex, &target);
        let ptx = code_html(&ex, &target, false, kernel.as_ref(), None);
        assert!(
            ptx.contains("<div class=\"cl s0 st0\" data-st=\"0\">"),
            "{ptx}"
        );
        assert!(ptx.contains("Executing the kernel"), "{ptx}");
        let lines = ex
            .code
            .iter()
            .find(|c| c.target == "ptx")
            .map_or(0, |c| c.text.lines().count());
        assert_eq!(ptx.matches("<div class=\"cl").count(), lines);
        // Once the machine-level check ran, its listing is shown.
        let checked = "<div class=\"machine ok\">".to_string();
        assert_eq!(code_html(&ex, &target, false, kernel.as_ref(), Some(&checked)), checked);
        let later = CodeTarget::parse("ptx-sm91");
        assert!(code_html(&ex, &later, false, None, None).contains("not available in this build"));
        let amdgpu = CodeTarget::Machine(Target::Amdgpu);
        assert!(code_html(&ex, &amdgpu, false, None, None).contains("generating"));
        assert!(code_html(&ex, &CodeTarget::Tir, true, None, None).contains("async_commit_queue"));
        assert_eq!(
            code_text(&ex, &target, false, kernel.as_ref()),
            kernel.and_then(|k| k.text)
        );
    }

    #[test]
    fn long_code_comes_in_chunks_of_its_lines() {
        let ex = stagecraft::explore::explore(&crate::model::long_loop(100), &Default::default());
        let html = code_html(&ex, &CodeTarget::Tir, false, None, None);
        let lines = html.matches("<div class=\"cl").count();
        assert_eq!(
            lines,
            ex.rolled.as_ref().map_or(0, |p| p.text.lines().count())
        );
        assert!(lines > CHUNK_LINES, "{lines} lines");
        let sizes: Vec<usize> = html
            .split("<div class=\"chunk\" style=\"--items:")
            .skip(1)
            .filter_map(|s| s.split('"').next()?.parse().ok())
            .collect();
        assert_eq!(sizes.len(), lines.div_ceil(CHUNK_LINES));
        assert_eq!(sizes.iter().sum::<usize>(), lines);
        assert_eq!(html.matches("<div").count(), html.matches("</div>").count());
        // A longer program is written in parts that make the whole.
        let ex = stagecraft::explore::explore(
            &stagecraft::workloads::heavy_chain(64, 8, 64),
            &Default::default(),
        );
        let html = code_html(&ex, &CodeTarget::Tir, true, None, None);
        let chunks = html.matches("<div class=\"chunk\"").count();
        assert!(chunks > FIRST_CHUNKS + CHUNKS_PER_TASK, "{chunks} chunks");
        let parts = CODE_PARTS.split(&html).expect("in parts");
        assert_eq!(parts.later.len(), (chunks - FIRST_CHUNKS).div_ceil(CHUNKS_PER_TASK));
        assert_eq!(
            parts.now.matches("<div class=\"chunk\"").count(),
            FIRST_CHUNKS
        );
        let (before, after) = parts.now.split_once("</pre>").unwrap();
        assert_eq!(format!("{before}{}</pre>{after}", parts.later.concat()), html);
    }
}
