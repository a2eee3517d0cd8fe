//! Teaching mode (issue 24): the Lessons menu, the open lesson's text with its task checked live
//! by core (`stagecraft::lessons`), the introduction shown the first time the page opens, and the
//! glossary. Lessons done are remembered in this browser.

use crate::ctx::ctx;
use crate::dom;
use crate::markup::html::Html;
use crate::model::deferred::ran_for;
use crate::services::documents::Documents;
use crate::views::menu::menu;
use leptos::prelude::*;
use stagecraft::lessons::{lesson, lessons, Checked, Lesson, TaskStatus};
use stagecraft_link::State;

const DONE_KEY: &str = "stagecraft.lessons.done";
const INTRO_SEEN_KEY: &str = "stagecraft.intro.seen";

/// What the teaching panel shows besides a lesson.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Aside {
    None,
    Intro,
    Glossary,
}

#[derive(Clone, Copy)]
pub struct Teaching {
    aside: RwSignal<Aside>,
    /// Ids of the lessons whose task was met in this browser.
    done: RwSignal<Vec<String>>,
}

/// The teaching state, shared by the menu in the header and the panel beside the editor; the
/// introduction opens by itself the first time.
pub fn provide() {
    let storage = dom::storage();
    let seen = storage
        .as_ref()
        .and_then(|s| s.get_item(INTRO_SEEN_KEY).ok().flatten())
        .is_some();
    let done = storage
        .and_then(|s| s.get_item(DONE_KEY).ok().flatten())
        .map(|v| {
            v.split(',')
                .filter(|id| !id.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    provide_context(Teaching {
        aside: RwSignal::new(if seen { Aside::None } else { Aside::Intro }),
        done: RwSignal::new(done),
    });
}

fn teaching() -> Teaching {
    expect_context::<Teaching>()
}

fn mark_done(t: Teaching, id: &str) {
    if t.done.with_untracked(|d| d.iter().any(|x| x == id)) {
        return;
    }
    t.done.update(|d| d.push(id.to_string()));
    if let Some(s) = dom::storage() {
        let _ = s.set_item(DONE_KEY, &t.done.with_untracked(|d| d.join(",")));
    }
}

/// The Lessons menu: every lesson (a done one marked), the introduction and the glossary. Markup
/// with one delegated handler, as the large outputs are: a view per item cost bundle size.
pub fn menu_view() -> impl IntoView {
    let docs = expect_context::<Documents>();
    let t = teaching();
    menu("lessons", "Lessons", move |open| {
        let pick = move |ev: leptos::ev::MouseEvent| {
            let Some(what) = dom::closest_data(&ev, "data-lesson") else {
                return;
            };
            match what.as_str() {
                "intro" => t.aside.set(Aside::Intro),
                "glossary" => t.aside.set(Aside::Glossary),
                id => {
                    let Some(l) = lesson(id) else { return };
                    // A new document: the user's work stays as it was saved.
                    docs.create_with(State {
                        text: l.source.to_string(),
                        lesson: Some(id.to_string()),
                        counts: l.start_overrides(),
                        ..State::default()
                    });
                    t.aside.set(Aside::None);
                }
            }
            open.set(false);
        };
        let html = t.done.with_untracked(|done| menu_html(done));
        view! { <div class="lessons-menu" on:click=pick inner_html=html></div> }
    })
}

fn menu_html(done: &[String]) -> String {
    let mut h = Html::default();
    h.raw("<ul class=\"lessons\">");
    for l in lessons() {
        let is_done = done.iter().any(|d| d == l.id);
        h.raw("<li><button class=\"lesson-item\" data-lesson=\"")
            .text(l.id)
            .raw("\"");
        if is_done {
            h.raw(" aria-description=\"done\"");
        }
        h.raw(">").text(l.title);
        if is_done {
            h.raw("<span class=\"done-mark\" aria-hidden=\"true\"> ✓</span>");
        }
        h.raw("</button></li>");
    }
    h.raw("</ul><button id=\"show-intro\" data-lesson=\"intro\">Introduction</button>");
    h.raw("<button id=\"show-glossary\" data-lesson=\"glossary\">Glossary</button>");
    h.finish()
}

/// The open lesson's task, checked against the exploration shown and its verification and
/// timeline (`None` while no lesson is open).
fn task_status() -> Option<(String, TaskStatus)> {
    let ctx = ctx();
    let id = ctx.st.with(|s| s.lesson.clone())?;
    let l = lesson(&id)?;
    let status = ctx.good.with(|g| {
        let g = g.as_ref()?;
        Some(ctx.verification.with(|v| {
            ctx.timeline.with(|tl| {
                l.check_with(&Checked {
                    ex: g,
                    verification: ran_for(v, g),
                    timeline: ran_for(tl, g),
                })
            })
        }))
    })?;
    Some((id, status))
}

const INTRO: &str = "Stagecraft pipelines a loop. You give each statement a stage (how many steps after its \
iteration starts it runs) and an order; the explorer derives the pipelined program — prologue, body, \
epilogue, the buffers' versions and, for asynchronous stages, the commit groups and wait counts — and \
proves it by running it against the loop. Edit the annotations in the text or the grid and watch the \
panes. Every wait has − / +: move a count to see the race one more group in flight allows, or the \
overlap one fewer loses. The Lessons menu walks through it.";

const GLOSSARY: [(&str, &str); 8] = [
    ("stage", "how many steps after its iteration starts a statement runs: stage s of iteration j runs at step j + s"),
    ("order", "the order of the statements within one step"),
    ("async stage", "a stage whose statements complete later: their writes land when their group completes"),
    ("queue", "one per async stage; its groups complete in the order they were committed"),
    ("group", "the async statements of one queue committed together in a step; a wait counts groups"),
    ("version", "one copy of a buffer per iteration alive at once, used as a ring: slot = iteration mod versions"),
    ("prologue / body / epilogue", "the steps that fill the pipeline, the steady steps where every stage runs, and the steps that drain it"),
    ("rolled / peeled", "prologue and epilogue written as loops with guards, or written out step by step"),
];

/// The introduction, the glossary, or nothing.
fn aside_html(h: &mut Html, aside: Aside) {
    match aside {
        Aside::None => {}
        Aside::Intro => {
            h.raw("<section class=\"teach intro\" aria-labelledby=\"intro-title\"><h2 id=\"intro-title\">Welcome</h2><p>")
                .text(INTRO)
                .raw("</p><button id=\"dismiss-intro\">Got it</button></section>");
        }
        Aside::Glossary => {
            h.raw("<section class=\"teach glossary\" aria-labelledby=\"glossary-title\"><h2 id=\"glossary-title\">Glossary</h2><dl>");
            for (term, meaning) in GLOSSARY {
                h.elem("dt", term).elem("dd", meaning);
            }
            h.raw("</dl><button id=\"close-glossary\">Close</button></section>");
        }
    }
}

/// The open lesson: its text, its task and whether the schedule meets it, and why.
fn lesson_html(h: &mut Html, l: &Lesson, status: Option<&TaskStatus>) {
    let (class, state, why) = match status {
        None => ("pending", "checking…", ""),
        Some(s) if s.met => ("met", "Done", s.why.as_str()),
        Some(s) => ("unmet", "Not yet", s.why.as_str()),
    };
    h.raw(
        "<section class=\"teach lesson\" aria-labelledby=\"lesson-title\"><h2 id=\"lesson-title\">",
    )
    .text(l.title)
    .raw("</h2><p>");
    h.prose(l.text);
    h.raw("</p><div id=\"task\" class=\"task ")
        .raw(class)
        .raw("\" role=\"status\"><strong>Task: </strong>");
    h.prose(l.task);
    h.raw("<div class=\"task-state\">")
        .text(state)
        .raw("</div><div class=\"task-why\">");
    h.prose(why);
    h.raw("</div></div><button id=\"close-lesson\">Close lesson</button></section>");
}

/// Beside the editor: the introduction or glossary when asked for, and the open lesson.
#[component]
pub fn Panel() -> impl IntoView {
    let ctx = ctx();
    let t = teaching();
    let status = Memo::new(move |_| task_status());
    Effect::new(move |_| {
        if let Some((id, s)) = status.get() {
            if s.met {
                mark_done(t, &id);
            }
        }
    });
    let html = move || {
        let mut h = Html::default();
        aside_html(&mut h, t.aside.get());
        if let Some(l) = ctx.st.with(|s| s.lesson.clone()).and_then(|id| lesson(&id)) {
            let status = status.get();
            lesson_html(&mut h, l, status.as_ref().map(|(_, s)| s));
        }
        h.finish()
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(id) = dom::target_element(&ev).map(|e| e.id()) else {
            return;
        };
        match id.as_str() {
            "dismiss-intro" => {
                if let Some(s) = dom::storage() {
                    let _ = s.set_item(INTRO_SEEN_KEY, "1");
                }
                t.aside.set(Aside::None);
            }
            "close-glossary" => t.aside.set(Aside::None),
            "close-lesson" => ctx.st.update(|s| s.lesson = None),
            _ => {}
        }
    };
    view! { <div id="teach" on:click=on_click inner_html=html></div> }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// index.html's welcome, shown with its editor before the app runs, is the app's.
    #[test]
    fn early_editor_welcomes_as_the_app_does() {
        let page = include_str!("../../../index.html");
        let intro = format!("<h2>Welcome</h2><p>{}</p>", INTRO.replace('&', "&amp;"));
        assert!(
            page.contains(&intro),
            "index.html's #early welcome should be lessons.rs's INTRO:\n{intro}"
        );
    }

    /// A lesson's text is compiled in; the one string of the panel the user's schedule writes is
    /// the task's why (it quotes statements and counts): markup in it is shown as text, in every
    /// lesson, met or not, and so is every lesson's own text.
    #[test]
    fn the_lesson_panel_shows_markup_as_text() {
        let payload = "`<img src=x onerror=alert(1)>` and '\"><svg onload=alert(2)>";
        for l in lessons() {
            for met in [false, true] {
                let status = TaskStatus {
                    met,
                    why: payload.into(),
                };
                let mut h = Html::default();
                lesson_html(&mut h, l, Some(&status));
                let html = h.finish();
                assert!(!html.contains("<img") && !html.contains("<svg"), "{html}");
                assert!(
                    html.contains("<code>&lt;img src=x onerror=alert(1)&gt;</code>"),
                    "{html}"
                );
                assert!(html.contains("&#39;&quot;&gt;&lt;svg onload=alert(2)&gt;"));
            }
        }
        let menu = menu_html(&["<img src=x onerror=alert(3)>".to_string()]);
        assert!(!menu.contains("<img"), "{menu}");
    }
}
