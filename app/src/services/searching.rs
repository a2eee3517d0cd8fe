//! The schedule search and the previews, beside the exploration: the search of the text (core's
//! `search`, run by the worker in slices, `Job::Search`) streams its front, drawn by the worker
//! (`search_picture::SearchView`), into `Searching::search`; a preview (`Job::Preview`) is a
//! schedule of the front explored aside and drawn with its program and timeline, kept by its text
//! in `Searching::previews`. Both go to the same worker as the exploration, with ids from the same
//! count (`exploring` sends them and hands their answers here); neither replaces the exploration
//! shown. An edit of the text stops the search in the worker, whose last answer says it was
//! cancelled. (The pinned schedule's comparison is a part of the exploration: `Want::Compare`.)

use crate::ctx::Ctx;
use crate::dom;
use leptos::prelude::*;
use stagecraft::explore::Options;
use stagecraft::protocol::{Answer, Job, Response};
use stagecraft::search::SearchOptions;
use stagecraft::search_picture::SearchView;
use std::cell::{Cell, RefCell};
use std::sync::Arc;

/// Previews kept on the page, newest last: a row hovered again is shown at once.
pub const PREVIEWS_KEPT: usize = 12;

/// A search asked of the worker, and what it has answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Searched {
    pub id: u64,
    /// The text searched: the front's annotations are of its loop.
    pub text: String,
    /// The newest answer: the front so far, drawn (its `stop` set on the last), or why the text
    /// cannot be searched. `None` until the first arrives.
    pub view: Option<Result<Arc<SearchView>, String>>,
    /// The worker was started again before the search ended: it is lost.
    pub lost: bool,
}

impl Searched {
    /// Whether the worker is still searching.
    pub fn running(&self) -> bool {
        !self.lost
            && match &self.view {
                None => true,
                Some(Ok(v)) => v.stop.is_none(),
                Some(Err(_)) => false,
            }
    }
}

/// The search's and the previews' signals, in the context.
#[derive(Clone, Copy)]
pub struct Searching {
    pub search: RwSignal<Option<Searched>>,
    /// Schedules explored aside, each text with its preview's markup, newest last.
    pub previews: RwSignal<Vec<(String, Arc<str>)>>,
}

/// What the page's side of the conversation gives this one: a job sent, its id returned.
type Sender = Box<dyn Fn(Job) -> u64>;

thread_local! {
    static SEND: RefCell<Option<Sender>> = const { RefCell::new(None) };
    /// Previews asked and not answered: their ids and texts.
    static PENDING: RefCell<Vec<(u64, String)>> = const { RefCell::new(Vec::new()) };
    static SIGNALS: RefCell<Option<Searching>> = const { RefCell::new(None) };
    /// `chart_px` as the panes were last laid out; 0 until they were.
    static CHART_PX: Cell<u32> = const { Cell::new(0) };
}

/// The signals, made once and put in the context (`app::App`).
pub fn provide() -> Searching {
    let s = Searching {
        search: RwSignal::new(None),
        previews: RwSignal::new(Vec::new()),
    };
    SIGNALS.with(|x| *x.borrow_mut() = Some(s));
    provide_context(s);
    s
}

fn signals() -> Option<Searching> {
    SIGNALS.with(|x| *x.borrow())
}

/// How jobs reach the worker (`exploring::start`).
pub fn connect(send: Sender) {
    SEND.with(|s| *s.borrow_mut() = Some(send));
}

fn send(job: Job) -> Option<u64> {
    SEND.with(|s| s.borrow().as_ref().map(|send| send(job)))
}

/// Whether an answer to request `id` is one this wants: the search's, or an unanswered preview's.
pub fn wants(id: u64) -> bool {
    let search = signals()
        .and_then(|s| s.search.with_untracked(|x| x.as_ref().map(|x| x.id)))
        .is_some_and(|s| s == id);
    search || PENDING.with(|p| p.borrow().iter().any(|(p, _)| *p == id))
}

/// Takes the search's and the previews' answers; any other is given back.
pub fn take(response: Response) -> Option<Response> {
    let Some(s) = signals() else {
        return Some(response);
    };
    match response.answer {
        Answer::Searching { view, .. } => {
            s.search.update(|x| {
                if let Some(x) = x.as_mut().filter(|x| x.id == response.id) {
                    x.view = Some(view.map(|v| Arc::new(*v)));
                }
            });
            if s.search
                .with_untracked(|x| x.as_ref().is_some_and(|x| !x.running()))
            {
                // Counted once the frame that draws its last answer is painted: what the browser
                // tests wait on.
                dom::before_drawing(Box::new(|| {
                    dom::in_a_task(Box::new(|| dom::count("data-searched")));
                }));
            }
            None
        }
        Answer::Previewed { text, markup, .. } => {
            PENDING.with(|p| p.borrow_mut().retain(|(id, _)| *id != response.id));
            s.previews.update(|v| {
                v.retain(|(t, _)| *t != text);
                v.push((text, Arc::from(markup)));
                if v.len() > PREVIEWS_KEPT {
                    v.remove(0);
                }
            });
            None
        }
        answer => Some(Response {
            id: response.id,
            answer,
        }),
    }
}

/// The options the worker explores with, as the exploration's (symbolic extents, printed form);
/// wait counts moved by hand are of the text's own schedule and are left out.
fn explore_options(ctx: Ctx) -> Options {
    ctx.st.with_untracked(|s| Options {
        params: s.params.clone(),
        form: s.form,
        targets: Vec::new(),
        both_forms: false,
        ..Options::default()
    })
}

/// Searches the text as it is now, stopping the search before it.
pub fn start(ctx: Ctx) {
    let Some(s) = signals() else { return };
    let text = ctx.st.with_untracked(|s| s.text.clone());
    let options = SearchOptions {
        explore: explore_options(ctx),
        ..SearchOptions::default()
    };
    let Some(id) = send(Job::Search {
        text: text.clone(),
        options: Box::new(options),
        scatter_px: chart_px().min(560),
    }) else {
        return;
    };
    s.search.set(Some(Searched {
        id,
        text,
        view: None,
        lost: false,
    }));
}

/// The width the panes draw their charts to: a pane's, less its padding (every pane has the same
/// box). Read from what `watch_chart_width` last saw, so that asking for a part on a keystroke
/// does not lay the page out before its frame; measured once if nothing was seen yet.
pub fn chart_px() -> u32 {
    let seen = CHART_PX.with(Cell::get);
    if seen > 0 {
        return seen;
    }
    let measured = measure_chart_px();
    if let Some(px) = measured {
        CHART_PX.with(|c| c.set(px));
    }
    measured.unwrap_or(900)
}

/// The shown pane's width less its padding, if the page is laid out.
fn measure_chart_px() -> Option<u32> {
    dom::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(".pane:not(.hidden)").ok().flatten())
        .and_then(|e| u32::try_from(e.client_width() - 40).ok())
        .filter(|w| *w > 0)
}

/// Keeps `chart_px` up to date as the panes' box `panes` is resized (the window, the editor's
/// width dragged, the layout stacked): a resize observer reports after the browser's layout, so
/// measuring there lays nothing out.
pub fn watch_chart_width(panes: &web_sys::Element) {
    dom::on_resize(panes, |_| {
        if let Some(px) = measure_chart_px() {
            CHART_PX.with(|c| c.set(px));
        }
    });
}

/// Stops the search under way: its last answer says it was cancelled.
pub fn cancel() {
    send(Job::CancelSearch);
}

/// Asks for `text` explored aside and drawn, unless it is kept or on its way.
pub fn preview(ctx: Ctx, text: &str) {
    let Some(s) = signals() else { return };
    let kept = s
        .previews
        .with_untracked(|v| v.iter().any(|(t, _)| t == text));
    let asked = PENDING.with(|p| p.borrow().iter().any(|(_, t)| t == text));
    if kept || asked {
        return;
    }
    let options = explore_options(ctx);
    if let Some(id) = send(Job::Preview {
        text: text.to_string(),
        options: Box::new(options),
        width: chart_px(),
    }) {
        PENDING.with(|p| {
            let mut p = p.borrow_mut();
            p.push((id, text.to_string()));
            // The worker keeps the newest few; the page forgets the others too.
            let keep = stagecraft::session::MAX_PREVIEWS_ASKED;
            let n = p.len();
            if n > keep {
                p.drain(..n - keep);
            }
        });
    }
}

/// The preview of `text`, once it has arrived (tracked).
pub fn previewed(s: Searching, text: &str) -> Option<Arc<str>> {
    s.previews
        .with(|v| v.iter().find(|(t, _)| t == text).map(|(_, e)| e.clone()))
}

/// The worker was started again: the search and the previews asked of it are lost.
pub fn restarted() {
    PENDING.with(|p| p.borrow_mut().clear());
    if let Some(s) = signals() {
        s.search.update(|x| {
            if let Some(x) = x.as_mut().filter(|x| x.running()) {
                x.lost = true;
            }
        });
    }
}
