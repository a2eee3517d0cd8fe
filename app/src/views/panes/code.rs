//! Machine code per target, and the printed TIR. Lines are tinted by the source statement they come
//! from (as Compiler Explorer does); hovering a line highlights that statement everywhere, and
//! hovering a statement elsewhere highlights its lines here, through the focus style sheet.

use super::contract::{self, PaneSpec};
use crate::ctx::ctx;
use crate::dom;
use crate::markup::html::{self, Html};
use crate::model::focus;
use leptos::prelude::*;
use stagecraft::explore::Exploration;
use stagecraft_link::{CodeTarget, Pane};

/// How a target is named in the menu.
fn label(target: &CodeTarget) -> &str {
    match target {
        CodeTarget::Tir => "TIR (Python)",
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

/// Lines per chunk of the code pane; style.css gives a chunk this many lines of height.
const CHUNK_LINES: usize = 64;

/// Lines of code, each with its statement's palette and identity classes, in chunks that the
/// browser does not style, lay out or paint while they are off screen: a large loop's printed
/// program is thousands of lines, and laying them all out made the task that wrote them long.
fn lines_html(h: &mut Html, text: &str, stmts: &[Option<u32>]) {
    h.raw("<pre class=\"code\">");
    let n = text.lines().count();
    for (k, line) in text.lines().enumerate() {
        h.chunk(k, n, CHUNK_LINES, "chunk");
        match stmts.get(k).copied().flatten() {
            Some(s) => h
                .raw("<div class=\"cl s")
                .num(s % 10)
                .raw(" st")
                .num(s)
                .raw("\" data-st=\"")
                .num(s)
                .raw("\">"),
            None => h.raw("<div class=\"cl\">"),
        };
        h.text(line).raw("</div>");
    }
    h.end_chunks(n);
    h.raw("</pre>");
}

/// The machine code of `target` in `ex`, if it was emitted.
fn emitted<'a>(ex: &'a Exploration, target: &CodeTarget) -> Option<&'a stagecraft::emit::Emitted> {
    let t = target.machine()?;
    ex.code.iter().find(|c| c.target == t.name())
}

/// The text of `target` for copying, if this build produces it.
fn code_text(ex: &Exploration, target: &CodeTarget, peeled: bool) -> Option<String> {
    match target {
        CodeTarget::Tir => focus::printed(ex, peeled).map(|p| p.text.clone()),
        _ => emitted(ex, target).map(|c| c.text.clone()),
    }
}

pub fn code_html(ex: &Exploration, target: &CodeTarget, peeled: bool) -> String {
    let mut h = Html::default();
    if *target == CodeTarget::Tir {
        if let Some(p) = focus::printed(ex, peeled) {
            let stmts: Vec<Option<u32>> = p.lines.iter().map(|l| l.stmt).collect();
            lines_html(&mut h, &p.text, &stmts);
        }
        return h.finish();
    }
    let Some(c) = emitted(ex, target) else {
        match target {
            // Asked for when the pane shows it: the next exploration brings it.
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
        return h.finish();
    };
    if let Some(e) = &c.error {
        h.raw("<div class=\"banner warn\">").text(e).raw("</div>");
    }
    if !c.notes.is_empty() {
        h.raw("<ul class=\"notes\">");
        for n in &c.notes {
            h.raw("<li>").text(n).raw("</li>");
        }
        h.raw("</ul>");
    }
    lines_html(&mut h, &c.text, &c.line_stmts);
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
    let shown_code = StoredValue::new((CodeTarget::Tir, String::new()));
    contract::render_while_shown(
        node,
        PANE.pane,
        move || {
            let (target, peeled) = (target.get(), peeled.get());
            let html = ctx
                .good
                .with(|ex| ex.as_deref().map(|ex| code_html(ex, &target, peeled)))
                .unwrap_or_default();
            // The code of a target is emitted only while this pane shows it: coming back to the
            // pane, the previous code stays until the exploration that emits it again arrives
            // (instead of a placeholder, which would also lose the pane's scroll).
            let pending = !ctx.good.with(|ex| {
                ex.as_deref()
                    .is_some_and(|ex| target == CodeTarget::Tir || emitted(ex, &target).is_some())
            });
            shown_code.update_value(|(t, last)| {
                if !(pending && *t == target && !last.is_empty()) {
                    *t = target;
                    *last = html;
                }
            });
            shown_code.with_value(|(_, last)| last.clone())
        },
    );
    let copy = move |_| {
        let text = ctx.good.with_untracked(|ex| {
            ex.as_deref()
                .and_then(|ex| code_text(ex, &target.get_untracked(), peeled.get_untracked()))
        });
        if let (Some(w), Some(text)) = (dom::window(), text) {
            let _ = w.navigator().clipboard().write_text(&text);
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
                <select id="target" on:change=choose inner_html=move || target.with(options_html)></select>
                <button on:click=copy>"Copy"</button>
            </div>
            <div node_ref=node on:mouseover=on_over on:mouseleave=move |_| ctx.hover(None)></div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_link::Target;

    #[test]
    fn code_lines_are_tied_to_statements_and_missing_targets_say_so() {
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let ptx = code_html(&ex, &CodeTarget::Machine(Target::Ptx), false);
        assert!(
            ptx.contains("<div class=\"cl s0 st0\" data-st=\"0\">"),
            "{ptx}"
        );
        let lines = ex
            .code
            .iter()
            .find(|c| c.target == "ptx")
            .map_or(0, |c| c.text.lines().count());
        assert_eq!(ptx.matches("<div class=\"cl").count(), lines);
        let later = CodeTarget::parse("ptx-sm91");
        assert!(code_html(&ex, &later, false).contains("not available in this build"));
        let only_ptx = stagecraft::explore::explore(
            stagecraft_link::presets::DEFAULT,
            &stagecraft::explore::Options {
                targets: vec![Target::Ptx],
                ..Default::default()
            },
        );
        let amdgpu = CodeTarget::Machine(Target::Amdgpu);
        assert!(code_html(&only_ptx, &amdgpu, false).contains("generating"));
        assert!(code_html(&ex, &CodeTarget::Tir, true).contains("async_commit_queue"));
    }

    #[test]
    fn long_code_comes_in_chunks_of_its_lines() {
        let ex = stagecraft::explore::explore(&crate::model::long_loop(100), &Default::default());
        let html = code_html(&ex, &CodeTarget::Tir, false);
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
    }
}
