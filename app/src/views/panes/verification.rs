//! The interpreter's verdict: what makes the program invalid, races, per-wait judgements and output
//! differences. Clicking a race or a wait selects it: its statement lights up in the editor, and the
//! detail box says (and links to) the wait line in the program and the point on the timeline.
//! Clicking a problem selects its place in the editor, as the problems under the editor do.

use super::contract::{self, PaneSpec};
use crate::ctx::{ctx, Ctx};
use crate::dom;
use crate::markup::format;
use crate::markup::html::Html;
use crate::model::deferred::ran_for;
use crate::model::focus::{self, Focus, Point, Selection};
use crate::model::roving::Axis;
use leptos::prelude::*;
use crate::views::problems::select_in_editor;
use stagecraft::diagnostic::line_col;
use stagecraft::explore::Exploration;
use stagecraft::timeline::{Lane, Timeline};
use stagecraft::interp::Race;
use stagecraft::verify::{Verdict, Verification};
use stagecraft_link::Pane;


/// 1-based line of the wait node `index` in the printed program shown, and its text.
fn wait_line(ex: &Exploration, peeled: bool, index: usize) -> Option<(usize, &str)> {
    let printed = ex.printed(peeled)?;
    let k = printed
        .lines
        .iter()
        .position(|l| l.wait_index == Some(index))?;
    Some((k + 1, printed.text.lines().nth(k)?.trim()))
}

/// The selection's detail: what it is and where it shows, with buttons that go there.
fn detail_html(h: &mut Html, ex: &Exploration, peeled: bool, selection: Selection, f: &Focus) {
    h.raw("<div class=\"detail\" id=\"selection-detail\">");
    match selection {
        Selection::Race(k) => {
            h.raw("<b>Race ").num(k + 1).raw("</b>");
            if let Some(s) = f.stmt.and_then(|s| ex.statements.get(s as usize)) {
                h.raw(" at <code>").text(&s.text).raw("</code>");
            }
            h.raw(". ");
        }
        Selection::Wait(_) => {
            h.raw("<b>Wait</b> ");
        }
    }
    match f.wait_index.and_then(|w| wait_line(ex, peeled, w)) {
        Some((line, text)) => {
            if matches!(selection, Selection::Race(_)) {
                h.raw("The wait that should have covered it: ");
            }
            h.raw("<code>")
                .text(text)
                .raw("</code>, line ")
                .num(line)
                .raw(" of the pipelined program ")
                .raw("<button data-goto=\"")
                .raw(Pane::Program.name())
                .raw("\">Show in program</button>");
        }
        None => {
            h.raw("No wait on its queue ran before this access.");
        }
    }
    h.raw("<br>");
    match &f.point {
        Point::At {
            step,
            lane,
            start,
            end,
        } => {
            h.raw("On the timeline: step ")
                .num(step)
                .raw(", cycles ")
                .num(start)
                .raw("–")
                .num(end);
            if let Lane::Queue(q) = lane {
                h.raw(" on queue ").num(q);
            }
            if matches!(selection, Selection::Wait(_)) {
                h.raw(" (its first stall)");
            }
            h.raw(" <button data-goto=\"")
                .raw(Pane::Timeline.name())
                .raw("\">Show on timeline</button>");
        }
        Point::Outside { step, shown } => {
            h.raw("On the timeline: step ")
                .num(step)
                .raw(", outside the steps drawn (")
                .num(shown.0)
                .raw("–")
                .num(shown.1)
                .raw(").");
        }
        Point::NoStall => {
            h.raw("On the timeline: it never stalls in the steps drawn.");
        }
        Point::Nothing => {}
    }
    h.raw("</div>");
}

/// The run's problems, those that make the program invalid first, each with its place in `text`
/// (the loop the program was derived from: its spans point there) and its fix.
fn problems_html(h: &mut Html, text: &str, v: &Verification) {
    if v.problems.is_empty() {
        return;
    }
    h.raw("<h3>Problems</h3><ul class=\"problems run-problems\">");
    for p in v.problems_invalid_first() {
        let (line, col) = line_col(text, p.span.start as usize);
        h.raw("<li class=\"")
            .raw(if p.invalid.is_some() { "error" } else { "warning" })
            .raw("\" data-span=\"")
            .num(p.span.start)
            .raw(" ")
            .num(p.span.end)
            .raw("\"><span class=\"where\">")
            .num(line)
            .raw(":")
            .num(col)
            .raw("</span> ")
            .prose(&p.message);
        if let Some(fix) = &p.fix {
            h.raw("<div class=\"hint\">Fix: ").prose(fix).raw("</div>");
        }
        h.raw("</li>");
    }
    h.raw("</ul>");
}

/// One race as a list item: selectable, its message's code set as code.
fn race_item(h: &mut Html, k: usize, r: &Race, selection: Option<Selection>, tab_stop: bool) {
    h.raw("<li id=\"race-")
        .num(k)
        .raw("\" data-race=\"")
        .num(k)
        .raw("\" tabindex=\"")
        .raw(if tab_stop { "0" } else { "-1" })
        .raw("\" aria-current=\"")
        .raw(if selection == Some(Selection::Race(k)) { "true" } else { "false" })
        .raw("\"><span class=\"dot s")
        .num(r.stmt % 10)
        .raw("\"></span>")
        .prose(&r.message)
        .raw("</li>");
}

/// The races in groups of races alike (`Verification::race_groups`): how many, which wait should
/// have covered them (its line), the first, and the others behind "and N more like it". The group
/// holding the selected race is open.
fn races_html(
    h: &mut Html,
    ex: &Exploration,
    peeled: bool,
    v: &Verification,
    selection: Option<Selection>,
) {
    let selected = match selection {
        Some(Selection::Race(k)) if k < v.races.len() => k,
        _ => 0,
    };
    h.raw("<h3>Races</h3>");
    if v.races.is_empty() {
        h.raw("<ul class=\"races\"><li class=\"none\">none</li></ul>");
        return;
    }
    h.raw("<ul class=\"race-groups\">");
    for group in v.race_groups() {
        let Some((&first, rest)) = group.split_first() else {
            continue;
        };
        let Some(r) = v.races.get(first) else {
            continue;
        };
        h.raw("<li class=\"race-group\"><p class=\"race-head\"><b>")
            .text(&stagecraft::english::count(group.len(), "race"))
            .raw("</b>");
        if let Some(s) = ex.statements.get(r.stmt as usize) {
            h.raw(" at <code>").text(&s.text).raw("</code>");
        }
        match r.wait.and_then(|w| wait_line(ex, peeled, w.index)) {
            Some((line, text)) => {
                let wait = text.trim_start_matches("with ").trim_end_matches(':');
                h.raw(": the wait on line ")
                    .num(line)
                    .raw(" of the pipelined program, <code>")
                    .text(wait)
                    .raw("</code>, should have covered ")
                    .raw(if group.len() == 1 { "it" } else { "them" });
            }
            None if r.within_group => {
                h.raw(": inside one commit group, which no wait can order");
            }
            None => {}
        }
        h.raw("</p><ul class=\"races\">");
        race_item(h, first, r, selection, first == selected);
        h.raw("</ul>");
        if !rest.is_empty() {
            h.raw("<details");
            if rest.contains(&selected) {
                h.raw(" open");
            }
            h.raw("><summary>and ")
                .num(rest.len())
                .raw(" more like it</summary><ul class=\"races\">");
            for &k in rest {
                if let Some(r) = v.races.get(k) {
                    race_item(h, k, r, selection, k == selected);
                }
            }
            h.raw("</ul></details>");
        }
        h.raw("</li>");
    }
    h.raw("</ul>");
}

/// The races between waves (threads) of a loop that declares its threads, one group per place a
/// barrier would cover (`Across::by_barrier`), each at its statements: the derived program places
/// those barriers, so these come from counts set by hand (or a pipelined program checked).
fn thread_races_html(h: &mut Html, ex: &Exploration, v: &Verification) {
    let Some(a) = v.across.as_ref().filter(|a| !a.races.is_empty()) else {
        return;
    };
    let word = a.agent_word();
    h.raw("<h3>Races between ")
        .text(word)
        .raw("s</h3><p class=\"hint\">")
        .prose(&a.how_run())
        .raw(" ")
        .text(&stagecraft::english::count(a.race_count as usize, "race"))
        .raw(if a.truncated {
            " before the run stopped at the interpreter's limit; the first at each place:"
        } else {
            " in all; the first at each place:"
        })
        .raw("</p><ul class=\"race-groups thread-races\">");
    let statement = |stmt: u32| ex.statements.get(stmt as usize).map(|s| s.text.as_str());
    for g in a.by_barrier() {
        let r = g.first;
        h.raw("<li class=\"race-group\"><p class=\"race-head\"><span class=\"dot s")
            .num(r.access.stmt % 10)
            .raw("\"></span>");
        if let Some(text) = statement(r.access.stmt) {
            h.raw("At <code>").text(text).raw("</code>");
        }
        if let Some(text) = statement(r.other.stmt) {
            h.raw(", against ")
                .text(r.other_access())
                .raw(" <code>")
                .text(text)
                .raw("</code>");
        }
        h.raw("</p><p>").prose(&r.message()).raw(".");
        if g.more > 0 {
            h.raw(" Like it: ")
                .text(&stagecraft::english::count(g.more, "more race"))
                .raw(", between ")
                .text(&g.between())
                .raw(".");
        }
        h.raw("</p></li>");
    }
    h.raw("</ul>");
}

/// The pane's markup for `v`, the verification of `ex` (explored from `text`); `timeline` is
/// `ex`'s too, when it has arrived (the selection's point on it).
pub fn verification_html(
    ex: &Exploration,
    text: &str,
    v: &Verification,
    timeline: Option<&Timeline>,
    peeled: bool,
    selection: Option<Selection>,
) -> String {
    let mut h = Html::default();
    h.raw("<div class=\"")
        .raw(format::verdict_class(v.verdict))
        .raw("\" id=\"verdict\">")
        .prose(&v.summary)
        .raw("</div>");
    // A loop beyond the interpreter's limit is not run: "Races: none" and an empty table of waits
    // would read as a clean run.
    if v.verdict == Verdict::NotRun && v.races.is_empty() && v.waits.is_empty() {
        return h.finish();
    }
    if let Some(sel) = selection {
        let f = focus::focus(Some(v), timeline, Some(sel));
        detail_html(&mut h, ex, peeled, sel, &f);
    }
    problems_html(&mut h, text, v);
    // Races and waits are each one tab stop, moved through with the arrows (`dom::rove`): the
    // selected one, else the first.
    races_html(&mut h, ex, peeled, v, selection);
    let selected_wait = match selection {
        Some(Selection::Wait(w)) if v.waits.iter().any(|x| x.index == w) => Some(w),
        _ => v.waits.first().map(|w| w.index),
    };
    h.raw("<h3>Waits</h3><p class=\"hint\">Click a wait (or press Enter on it) to see its line and its stalls.</p>")
        .raw("<table class=\"waits\"><tr><th>wait</th><th>line</th><th>queue</th><th>instances</th><th>judgement</th></tr>");
    for w in &v.waits {
        h.raw("<tr id=\"wait-row-")
            .num(w.index)
            .raw("\" data-wait=\"")
            .num(w.index)
            .raw("\" tabindex=\"")
            .raw(if Some(w.index) == selected_wait { "0" } else { "-1" })
            .raw("\" aria-selected=\"")
            .raw(if selection == Some(Selection::Wait(w.index)) { "true" } else { "false" })
            .raw("\"><td>");
        match w.id {
            Some(id) => h.raw("#").num(id),
            None => h.raw("—"),
        };
        h.raw("</td><td>");
        if let Some((line, _)) = wait_line(ex, peeled, w.index) {
            h.num(line);
        }
        h.raw("</td><td>")
            .num(w.queue)
            .raw("</td><td>")
            .num(w.instances)
            .raw("</td>")
            .elem("td", &format::judgement_with_fix(w.judgement, w.lower_by))
            .raw("</tr>");
    }
    h.raw("</table>");
    if let Some(note) = v.unjudged_note() {
        h.raw("<p class=\"hint\">Why “not judged”: ").text(note).raw(".</p>");
    }
    // After the waits: a wait's count set by hand is what makes these (the derived program
    // places every barrier), and its row says the count that removes them.
    thread_races_html(&mut h, ex, v);
    let across = v.across.as_ref().map_or(&[][..], |a| a.differences.as_slice());
    if !v.differences.is_empty() || !across.is_empty() {
        h.raw("<h3>Differences</h3><ul>");
        for d in &v.differences {
            let got = d.got.map_or("nothing".to_string(), format::value);
            h.raw("<li>")
                .text(&d.buffer)
                .text(&format::index(&d.element))
                .raw(": loop ")
                .text(&format::value(d.expected))
                .raw(" — pipelined ")
                .text(&got)
                .raw("</li>");
        }
        for d in across {
            h.raw("<li>").prose(d).raw("</li>");
        }
        h.raw("</ul>");
    }
    h.finish()
}

pub const PANE: PaneSpec = PaneSpec {
    pane: Pane::Verification,
    label: "Verification",
    pending: |ctx| ctx.pending(ctx.verification).then_some("Verifying…"),
};

/// The pane's content, made once by the registry.
pub fn view() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    let peeled = ctx.peeled;
    contract::render_while_shown(
        node,
        PANE.pane,
        move || {
            let (peeled, selection) = (peeled.get(), ctx.selection.get());
            // Drawn with the exploration it was computed from, which is `good` unless a newer
            // one's verification is still being computed (the pane is then marked pending).
            ctx.verification
                .with(|ran| {
                    let ran = ran.as_ref()?;
                    let v = ran.value.as_deref()?;
                    // The timeline matters only to a selection's detail: without one, its
                    // arrival does not redraw this pane.
                    // The text of the exploration shown; while a newer one is verified the pane
                    // is marked pending and its problems select nothing.
                    let html = ctx.explored_text.with_untracked(|text| match selection {
                        Some(_) => ctx.timeline.with(|t| {
                            verification_html(
                                &ran.of,
                                text,
                                v,
                                ran_for(t, &ran.of),
                                peeled,
                                selection,
                            )
                        }),
                        None => verification_html(&ran.of, text, v, None, peeled, None),
                    });
                    Some(html)
                })
                .unwrap_or_default()
        },
    );
    let on_click = move |ev: leptos::ev::MouseEvent| activate(ctx, &ev);
    // Enter or Space on a race or a wait selects it, as a click does; the arrows move along them.
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        let on_item = dom::closest_data(&ev, "data-race").is_some()
            || dom::closest_data(&ev, "data-wait").is_some();
        if !on_item {
            return;
        }
        if key == "Enter" || key == " " {
            ev.prevent_default();
            activate(ctx, &ev);
        } else if let Some(el) = node.get_untracked() {
            let items = if dom::closest_data(&ev, "data-race").is_some() {
                // Not those of a group folded away.
                "[data-race]:not(details:not([open]) [data-race])"
            } else {
                "tr[data-wait]"
            };
            dom::rove(&ev, &el, items, Axis::Vertical);
        }
    };
    view! { <div id="verification" node_ref=node on:click=on_click on:keydown=on_keydown></div> }
}

/// What a click (or Enter or Space) on the pane does: go to a selection's place, or select the
/// race or wait under it.
fn activate(ctx: Ctx, ev: &web_sys::Event) {
    // Races and waits of an earlier program, shown while this one's are computed, select
    // nothing in this one.
    if ctx.pending_untracked(ctx.verification) {
        return;
    }
    // A problem of the run: its place in the editor.
    if let Some(span) = dom::closest_data(ev, "data-span") {
        let mut parts = span.split(' ').map(|p| p.parse::<u32>().unwrap_or(0));
        let (start, end) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        ctx.st
            .with_untracked(|s| select_in_editor(&s.text, start, end));
        return;
    }
    if let Some(to) = dom::closest_data(ev, "data-goto") {
        let selection = ctx.selection.get_untracked();
        let f = ctx.verification.with_untracked(|v| {
            ctx.timeline.with_untracked(|t| {
                let ran = v.as_ref()?;
                Some(focus::focus(
                    ran.value.as_deref(),
                    ran_for(t, &ran.of),
                    selection,
                ))
            })
        });
        let Some(f) = f else {
            return;
        };
        match (Pane::parse(&to), f.wait_index) {
            (Some(Pane::Program), Some(w)) => {
                ctx.show(Pane::Program, format!("#program .w{w}"))
            }
            (Some(Pane::Timeline), _) => ctx.show(Pane::Timeline, "#focus-marker".to_string()),
            _ => {}
        }
        return;
    }
    let picked = if let Some(k) = dom::closest_data(ev, "data-race") {
        k.parse().ok().map(Selection::Race)
    } else {
        dom::closest_data(ev, "data-wait")
            .and_then(|w| w.parse().ok())
            .map(Selection::Wait)
    };
    if picked.is_some() {
        ctx.selection.set(picked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selected_wait_names_its_line_and_timeline_point() {
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let v = ex.verification.clone().expect("verified");
        let w = v.waits.first().expect("a wait").index;
        let html = verification_html(
            &ex,
            stagecraft_link::presets::DEFAULT,
            &v,
            ex.timeline.as_ref(),
            false,
            Some(Selection::Wait(w)),
        );
        assert!(html.contains("id=\"selection-detail\""), "{html}");
        assert!(html.contains("async_wait_queue(0, 1)"), "{html}");
        assert!(html.contains("data-goto=\"program\""), "{html}");
        assert!(html.contains(&format!("id=\"wait-row-{w}\" data-wait=\"{w}\"")));
        assert!(html.contains("On the timeline"), "{html}");
    }

    #[test]
    fn races_between_threads_are_listed_at_their_statements() {
        // CUTLASS's multistage loop with its body's wait raised by one: each thread's wait
        // leaves a copy in flight that other threads read after the barrier.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/cutlass_multistage.py");
        let text = std::fs::read_to_string(path).expect("the example");
        let derived = stagecraft::explore::explore(&text, &Default::default());
        let body = derived
            .counts
            .iter()
            .find(|c| c.key.section == stagecraft::ir::SectionKind::Body)
            .expect("a wait in the body");
        let options = stagecraft::explore::Options {
            count_overrides: vec![stagecraft::explore::CountOverride {
                wait: body.key.clone(),
                delta: 1,
            }],
            ..Default::default()
        };
        let ex = stagecraft::explore::explore(&text, &options);
        let v = ex.verification.clone().expect("verified");
        let across = v.across.as_ref().expect("run across its threads");
        assert!(across.race_count > 0, "{}", v.summary);
        let html = verification_html(&ex, &text, &v, None, false, None);
        assert!(html.contains("<h3>Races between threads</h3>"), "{html}");
        let races = &html[html.find("Races between threads").expect("the list")..];
        assert!(
            races.contains(&format!("{} in all", stagecraft::english::count(across.race_count as usize, "race"))),
            "{races}"
        );
        let first = across.races.first().expect("a race");
        let statement = &ex.statements[first.access.stmt as usize].text;
        assert!(
            races.contains(&format!("At <code>{}</code>", {
                let mut escaped = String::new();
                crate::markup::html::escape_into(&mut escaped, statement);
                escaped
            })),
            "the race is at its statement: {races}"
        );
        assert!(races.contains("written by thread"), "{races}");
        // Its other wait is not judged, and the pane says why.
        assert!(v
            .waits
            .iter()
            .any(|w| w.judgement == stagecraft::verify::Judgement::NotJudged));
        assert!(
            html.contains("<p class=\"hint\">Why “not judged”: a wait is judged tight or loose only in a run with no race"),
            "{html}"
        );
    }

    #[test]
    fn a_loop_not_run_shows_why_and_no_empty_lists() {
        let mut text = String::from("for i in range(200000):\n");
        text.push_str("    B[i] = A[i] + 1\n");
        let ex = stagecraft::explore::explore(&text, &Default::default());
        let v = ex.verification.clone().expect("a verdict");
        assert_eq!(v.verdict, Verdict::NotRun);
        let html = verification_html(&ex, &text, &v, ex.timeline.as_ref(), false, None);
        assert!(html.contains("runs 200000 statement instances"), "{html}");
        assert!(!html.contains("Races") && !html.contains("Waits"), "{html}");
    }

    #[test]
    fn an_invalid_program_is_red_and_lists_its_problems_at_their_lines_with_a_fix() {
        // RFC (a)'s derived program with the epilogue's count written as -1: the verdict is
        // invalid, its problem first, at the wait's line in the checked text, with its fix.
        let loop_text = stagecraft_link::presets::DEFAULT;
        let ex = stagecraft::explore::explore(loop_text, &Default::default());
        let printed = ex.rolled.as_ref().expect("a program").text.clone();
        let last = printed.rfind("async_wait_queue(0, 0)").expect("a final wait");
        let hand = format!(
            "{}async_wait_queue(0, -1){}",
            &printed[..last],
            &printed[last + "async_wait_queue(0, 0)".len()..]
        );
        let lowered = stagecraft::lower::lower(&stagecraft::parser::parse(&hand).file);
        let programs = ex.programs.as_ref().expect("programs");
        let v = stagecraft::verify::verify(
            &programs.original,
            &lowered.program,
            &Default::default(),
        );
        assert_eq!(v.verdict, Verdict::Invalid, "{}", v.summary);
        let html = verification_html(&ex, &hand, &v, None, false, None);
        assert!(html.contains("class=\"verdict invalid\""), "{html}");
        let (line, _) = line_col(&hand, last);
        assert!(
            html.contains("<li class=\"error\" data-span="),
            "{html}"
        );
        assert!(html.contains(&format!("<span class=\"where\">{line}:")), "{html}");
        assert!(html.contains("Fix: a wait count is the number of groups"), "{html}");
        assert!(html.find("Problems") < html.find("Races"), "{html}");
    }
}
