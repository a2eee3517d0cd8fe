//! Machine code per target, and the printed TIR. Lines are tinted by the source statement they come
//! from (as Compiler Explorer does); hovering a line highlights that statement everywhere, and
//! hovering a statement elsewhere highlights its lines here, through the focus style sheet.

use super::contract::{self, PaneSpec};
use crate::ctx::ctx;
use crate::dom;
use crate::markup::html::{self, Html};
use crate::model::focus;
use crate::views::copy::copy_button;
use leptos::prelude::*;
use crate::model::deferred::ran_for;
use stagecraft::emit::Emitted;
use stagecraft::explore::{Exploration, MachineReport};
use stagecraft::machine::MachineVerdict;
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

/// Lines per chunk of the code pane; style.css gives a chunk this many lines of height.
const CHUNK_LINES: usize = 64;

/// The pane's markup in parts when its code has more than `dom::FIRST_CHUNKS` chunks of lines: a
/// kernel of thousands of lines written at once is one long task (and again when its machine
/// check arrives). A chunk begins with the one `<div class="chunk"` of its lines' markup (their
/// text is escaped), and every chunk is a child of the one `pre.code`.
static CODE_PARTS: crate::dom::Splitting =
    crate::dom::Splitting::chunks_of_lines("<pre class=\"code\"", "pre.code");

/// Lines of code, each with its statement's palette and identity classes, in chunks that the
/// browser does not style, lay out or paint while they are off screen: a large loop's printed
/// program is thousands of lines, and laying them all out made the task that wrote them long.
/// `marked` are 1-based lines the machine-level check points at (racing instructions and the
/// waits they got past): they get the class `marked` and a `data-kline` to be scrolled to.
fn lines_html(h: &mut Html, text: &str, stmts: &[Option<u32>], marked: &[u32]) {
    h.raw("<pre class=\"code\">");
    let n = text.lines().count();
    for (k, line) in text.lines().enumerate() {
        h.chunk(k, n, CHUNK_LINES, "chunk");
        let number = k as u32 + 1;
        h.raw("<div class=\"cl");
        if let Some(s) = stmts.get(k).copied().flatten() {
            h.raw(" s").num(s % 10).raw(" st").num(s);
        }
        if marked.contains(&number) {
            h.raw(" marked\" data-kline=\"").num(number);
        }
        h.raw("\"");
        if let Some(s) = stmts.get(k).copied().flatten() {
            h.raw(" data-st=\"").num(s).raw("\"");
        }
        h.raw(">");
        h.linked(line).raw("</div>");
    }
    h.end_chunks(n);
    h.raw("</pre>");
}

/// The kernel for the target chosen (`Parts::code`), with the machine-level check of it.
fn code_part(p: &Parts, s: &State) -> Option<Option<Arc<Emitted>>> {
    let t = s.target.machine()?;
    p.code.iter().find(|(x, _)| *x == t).map(|(_, e)| e.clone())
}

fn machine_part(p: &Parts, s: &State) -> Option<Option<Arc<MachineReport>>> {
    let t = s.target.machine()?;
    p.machine.iter().find(|(x, _)| *x == t).map(|(_, m)| m.clone())
}

/// The text of `target` for copying, if this build produces it (`emitted`: its kernel).
fn code_text(ex: &Exploration, target: &CodeTarget, peeled: bool, emitted: Option<&Emitted>) -> Option<String> {
    match target {
        CodeTarget::Tir => focus::printed(ex, peeled).map(|p| p.text.clone()),
        _ => emitted.map(|c| c.text.clone()),
    }
}

/// The export of the loop as TVMScript (`None`: still on its way), or why it cannot be exported.
fn tvmscript_html(export: Option<&Result<String, String>>) -> String {
    let mut h = Html::default();
    match export {
        None => {
            h.raw("<p class=\"unavailable\">Writing the loop as TVMScript…</p>");
        }
        Some(Ok(text)) => {
            h.raw("<p class=\"view-note\">The loop and its annotations as a PrimFunc: paste it into TVM 0.27 and run <code>tvm.s_tir.transform.InjectSoftwarePipeline</code>; <code>stagecraft explore FILE --as tvm-0.27</code> prints what it makes of it, reproduced.</p>");
            lines_html(&mut h, text, &[], &[]);
        }
        Some(Err(why)) => {
            h.raw("<p class=\"unavailable\">This loop has no TVMScript form: ")
                .text(why)
                .raw("</p>");
        }
    }
    h.finish()
}

/// The machine-level verdict above a kernel: executed or not, and each race, copy never awaited,
/// invalid instruction and wrong output with its line; a race also names the kernel wait it got
/// past and the pipelined program's waits that wait implements. `None`: still executing.
fn machine_html(h: &mut Html, report: Option<&MachineReport>, c: &Emitted) {
    let Some(r) = report else {
        h.raw("<p class=\"machine pending\">Executing the kernel on the machine model…</p>");
        return;
    };
    let m = &r.check;
    let class = match m.verdict {
        MachineVerdict::Correct => "ok",
        MachineVerdict::Racy | MachineVerdict::Different | MachineVerdict::Invalid => "bad",
        MachineVerdict::NotSupported | MachineVerdict::NotExecuted => "na",
    };
    h.raw("<div class=\"machine ")
        .raw(class)
        .raw("\" role=\"status\"><p><strong>Machine-level check:</strong> ")
        .prose(&m.summary)
        .raw("</p>");
    let mut items = Html::default();
    for (race, covering) in m.races.iter().zip(&r.covering) {
        items
            .raw("<li tabindex=\"0\" data-kline=\"")
            .num(race.line)
            .raw("\">line ")
            .num(race.line)
            .raw(": ")
            .text(&race.message);
        if let Some(w) = covering.and_then(|k| c.waits.get(k)) {
            items.raw(" — past the wait at line ").num(w.line);
            let ids: Vec<String> = w
                .ir
                .iter()
                .map(|i| match i.id {
                    Some(id) => format!("wait #{id} (queue {}, {} in flight)", i.queue, i.count),
                    None => format!("a wait on queue {} ({} in flight)", i.queue, i.count),
                })
                .collect();
            if !ids.is_empty() {
                items.raw(", which implements the pipelined program's ").text(&ids.join(" and "));
            }
        }
        items.raw("</li>");
    }
    for u in &m.unawaited {
        items.raw("<li tabindex=\"0\" data-kline=\"").num(u.line).raw("\">line ").num(u.line).raw(": ").text(&u.message).raw("</li>");
    }
    for p in &m.problems {
        items.raw("<li tabindex=\"0\" data-kline=\"").num(p.line).raw("\">line ").num(p.line).raw(": ").text(&p.message).raw("</li>");
    }
    for d in &m.differences {
        let index: Vec<String> = d.index.iter().map(i64::to_string).collect();
        items
            .raw("<li>")
            .text(&format!(
                "{}[{}], thread {}: the loop computes {}, the kernel {}",
                d.buffer,
                index.join(", "),
                d.thread,
                d.expected,
                d.got
            ))
            .raw("</li>");
    }
    let items = items.finish();
    if !items.is_empty() {
        h.raw("<ul class=\"races\">").raw(&items).raw("</ul>");
    }
    h.raw("</div>");
}

/// The kernel lines the machine-level check points at.
fn marked_lines(report: Option<&MachineReport>, c: &Emitted) -> Vec<u32> {
    let Some(r) = report else {
        return Vec::new();
    };
    let m = &r.check;
    let mut lines: Vec<u32> = m.races.iter().map(|x| x.line).collect();
    lines.extend(r.covering.iter().flatten().filter_map(|&k| c.waits.get(k)).map(|w| w.line));
    lines.extend(m.unawaited.iter().map(|u| u.line));
    lines.extend(m.problems.iter().map(|p| p.line));
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The Code pane's content for `target`: the printed program, or the kernel (`emitted`, once it
/// arrived for this exploration) with its notes and the machine-level check (`machine`, once it
/// ran on it).
pub fn code_html(
    ex: &Exploration,
    target: &CodeTarget,
    peeled: bool,
    emitted: Option<&Emitted>,
    machine: Option<&MachineReport>,
) -> String {
    let mut h = Html::default();
    if *target == CodeTarget::Tir {
        if let Some(p) = focus::printed(ex, peeled) {
            let stmts: Vec<Option<u32>> = p.lines.iter().map(|l| l.stmt).collect();
            lines_html(&mut h, &p.text, &stmts, &[]);
        }
        return h.finish();
    }
    let Some(c) = emitted else {
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
        return h.finish();
    };
    if let Some(e) = &c.error {
        h.raw("<div class=\"banner warn\">").text(e).raw("</div>");
    }
    if !c.notes.is_empty() {
        h.raw("<ul class=\"notes\">");
        for n in &c.notes {
            h.raw("<li>").linked(n).raw("</li>");
        }
        h.raw("</ul>");
    }
    if c.error.is_none() {
        machine_html(&mut h, machine, c);
        if let CodeTarget::Machine(_) = target {
            // The kernel's buffers beside the Timeline's ring bytes, which count the loop's elements.
            h.raw("<p class=\"view-note\" id=\"tile-note\">Each element of the loop is a tile of ")
                .num(c.lanes)
                .raw(" values here, one per thread: a buffer's declared bytes are that many times the bytes the Timeline's ring buffers count for it.</p>");
        }
    }
    lines_html(&mut h, &c.text, &c.line_stmts, &marked_lines(machine, c));
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
            return export.with_untracked(|e| e.as_deref().and_then(|e| e.clone().ok()));
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
    use stagecraft_link::Target;

    /// The kernel `ex` emitted for `target`, as the engine sends it.
    fn emitted_in<'a>(ex: &'a Exploration, target: &CodeTarget) -> Option<&'a Emitted> {
        let t = target.machine()?;
        ex.code.iter().find(|c| c.target == t.name())
    }

    #[test]
    fn code_lines_are_tied_to_statements_and_missing_targets_say_so() {
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let ptx = code_html(&ex, &CodeTarget::Machine(Target::Ptx), false, emitted_in(&ex, &CodeTarget::Machine(Target::Ptx)), None);
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
        assert!(code_html(&ex, &later, false, emitted_in(&ex, &later), None).contains("not available in this build"));
        let only_ptx = stagecraft::explore::explore(
            stagecraft_link::presets::DEFAULT,
            &stagecraft::explore::Options {
                targets: vec![Target::Ptx],
                ..Default::default()
            },
        );
        let amdgpu = CodeTarget::Machine(Target::Amdgpu);
        assert!(code_html(&only_ptx, &amdgpu, false, emitted_in(&only_ptx, &amdgpu), None).contains("generating"));
        assert!(code_html(&ex, &CodeTarget::Tir, true, emitted_in(&ex, &CodeTarget::Tir), None).contains("async_commit_queue"));
    }

    /// The machine-level verdict is shown above the kernel; a race (here: the CUTLASS preset's
    /// waits raised by one, one at a time, until one races) lists its line and the wait it got
    /// past, and marks both lines of the code.
    #[test]
    fn the_machine_check_is_shown_with_its_races_lines_and_waits() {
        let options = stagecraft::explore::Options {
            targets: vec![Target::Amdgpu],
            ..Default::default()
        };
        let cutlass = stagecraft_link::presets::PRESETS
            .iter()
            .find(|(name, _)| name.starts_with("CUTLASS"))
            .map(|(_, text)| *text)
            .unwrap_or_default();
        let ex = stagecraft::explore::explore(cutlass, &options);
        let target = CodeTarget::Machine(Target::Amdgpu);
        let pending = code_html(&ex, &target, true, emitted_in(&ex, &target), None);
        assert!(pending.contains("Executing the kernel"), "{pending}");
        let report = stagecraft::explore::machine_check(&ex, Target::Amdgpu, u64::MAX);
        let html = code_html(&ex, &target, true, emitted_in(&ex, &target), report.as_ref());
        assert!(html.contains("machine ok"), "{html}");
        assert!(html.contains("executed: same outputs, 0 races"));
        let code = &ex.code[0];
        let racy = code.waits.iter().filter(|w| w.immediate.is_some()).find_map(|w| {
            let k = w.immediate.unwrap_or(0);
            let mut mutated = ex.clone();
            let mut lines: Vec<String> = code.text.lines().map(str::to_string).collect();
            let line = lines.get_mut(w.line as usize - 1)?;
            *line = line.replace(&format!("vmcnt({k})"), &format!("vmcnt({})", k + 1));
            mutated.code[0].text = lines.join("\n") + "\n";
            let r = stagecraft::explore::machine_check(&mutated, Target::Amdgpu, u64::MAX)?;
            (r.check.verdict == MachineVerdict::Racy).then_some((mutated, r, w.line))
        });
        let (mutated, r, wait_line) = racy.expect("a wait raised by one races");
        let html = code_html(&mutated, &target, true, emitted_in(&mutated, &target), Some(&r));
        assert!(html.contains("machine bad"), "{html}");
        let race_line = r.check.races[0].line;
        assert!(html.contains(&format!("line {race_line}: ")), "{html}");
        assert!(html.contains(&format!("past the wait at line {wait_line}")), "{html}");
        assert!(html.contains("which implements the pipelined program's wait #"), "{html}");
        for line in [race_line, wait_line] {
            assert!(html.contains(&format!("marked\" data-kline=\"{line}\"")), "{line}");
        }
    }

    #[test]
    fn long_code_comes_in_chunks_of_its_lines() {
        let ex = stagecraft::explore::explore(&crate::model::long_loop(100), &Default::default());
        let html = code_html(&ex, &CodeTarget::Tir, false, emitted_in(&ex, &CodeTarget::Tir), None);
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
        let html = code_html(&ex, &CodeTarget::Tir, true, emitted_in(&ex, &CodeTarget::Tir), None);
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
