//! Teaching mode (issue 24): the Lessons menu, the open lesson's text with its task checked live
//! by core (`stagecraft::lessons`), the introduction shown the first time the page opens, and the
//! glossary. Lessons done are remembered in this browser.

use crate::ctx::ctx;
use crate::dom;
use crate::model::deferred::ran_for;
use crate::services::documents::Documents;
use crate::views::menu::menu;
use leptos::prelude::*;
use stagecraft::lessons::{lesson, lessons, Checked, TaskStatus};
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

/// The Lessons menu: every lesson (a done one marked), the introduction and the glossary.
pub fn menu_view() -> impl IntoView {
    let docs = expect_context::<Documents>();
    let t = teaching();
    menu("lessons", "Lessons", move |open| {
        let rows = lessons()
            .iter()
            .map(|l| {
                let id = l.id;
                let done = move || t.done.with(|d| d.iter().any(|x| x == id));
                let pick = move |_| {
                    let Some(l) = lesson(id) else { return };
                    // A new document: the user's work stays as it was saved.
                    docs.create_with(State {
                        text: l.source.to_string(),
                        lesson: Some(id.to_string()),
                        counts: l.start_overrides(),
                        ..State::default()
                    });
                    t.aside.set(Aside::None);
                    open.set(false);
                };
                view! {
                    <li><button class="lesson-item" on:click=pick
                        aria-description=move || done().then_some("done")>
                        {l.title}
                        {move || done().then(|| view! { <span class="done-mark" aria-hidden="true">" ✓"</span> })}
                    </button></li>
                }
            })
            .collect_view();
        view! {
            <ul class="lessons">{rows}</ul>
            <button id="show-intro" on:click=move |_| { t.aside.set(Aside::Intro); open.set(false); }>"Introduction"</button>
            <button id="show-glossary" on:click=move |_| { t.aside.set(Aside::Glossary); open.set(false); }>"Glossary"</button>
        }
    })
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

/// Beside the editor: the open lesson, or the introduction or glossary when asked for.
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
    let close_aside = move |_| {
        if t.aside.get_untracked() == Aside::Intro {
            if let Some(s) = dom::storage() {
                let _ = s.set_item(INTRO_SEEN_KEY, "1");
            }
        }
        t.aside.set(Aside::None);
    };
    let aside = move || {
        match t.aside.get() {
        Aside::None => None,
        Aside::Intro => Some(view! {
            <section class="teach intro" aria-labelledby="intro-title">
                <h2 id="intro-title">"Welcome"</h2>
                <p>{INTRO}</p>
                <button id="dismiss-intro" on:click=close_aside>"Got it"</button>
            </section>
        }.into_any()),
        Aside::Glossary => Some(view! {
            <section class="teach glossary" aria-labelledby="glossary-title">
                <h2 id="glossary-title">"Glossary"</h2>
                <dl>{GLOSSARY.iter().map(|(term, meaning)| view! { <dt>{*term}</dt><dd>{*meaning}</dd> }).collect_view()}</dl>
                <button id="close-glossary" on:click=close_aside>"Close"</button>
            </section>
        }.into_any()),
    }
    };
    let lesson_view = move || {
        let l = ctx
            .st
            .with(|s| s.lesson.clone())
            .and_then(|id| lesson(&id))?;
        let state = move || match status.get() {
            None => ("pending", "checking…".to_string(), String::new()),
            Some((_, s)) if s.met => ("met", "Done".to_string(), s.why),
            Some((_, s)) => ("unmet", "Not yet".to_string(), s.why),
        };
        Some(view! {
            <section class="teach lesson" aria-labelledby="lesson-title">
                <h2 id="lesson-title">{l.title}</h2>
                <p>{l.text}</p>
                <div id="task" class=move || format!("task {}", state().0) role="status">
                    <strong>"Task: "</strong>{l.task}
                    <div class="task-state">{move || state().1}</div>
                    <div class="task-why">{move || state().2}</div>
                </div>
                <button id="close-lesson" on:click=move |_| ctx.st.update(|s| s.lesson = None)>"Close lesson"</button>
            </section>
        })
    };
    view! { {aside} {lesson_view} }
}
