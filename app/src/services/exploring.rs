//! Keeps what the page shows answering what the user asks: every change of the text, form,
//! parameters or counts is a new exploration request to the core's worker (`engine`), with the parts
//! the page needs for what it shows (`snapshot::wants`); a change of what it shows asks for the
//! parts it lacks. Answers go into the one snapshot (`Ctx::snapshot`); the newest request id is the
//! one rule for what is stale: an answer to any older exploration is dropped.

use crate::ctx::{Ctx, Job};
use crate::dom;
use crate::model::snapshot::{self, Applied};
use crate::model::timing::Timing;
use crate::services::engine::{Engine, Handlers, Restart, TYPING_PAUSE_MS};
use crate::services::searching;
use leptos::prelude::*;
use stagecraft::explore::{CountOverride, Options};
use stagecraft::protocol::{Answer, Job as Asked, Part, Request, Response, Want};
use stagecraft_link::{Form, State};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// What an exploration is computed from.
#[derive(Clone, PartialEq)]
struct Inputs {
    text: String,
    form: Form,
    params: BTreeMap<String, i64>,
    /// Wait counts moved by hand: they change the program, as the text does.
    counts: Vec<CountOverride>,
}

impl Inputs {
    fn of(s: &State) -> Inputs {
        Inputs {
            text: s.text.clone(),
            form: s.form,
            params: s.params.clone(),
            counts: s.counts.clone(),
        }
    }

    fn options(&self) -> Options {
        Options {
            params: self.params.clone(),
            form: self.form,
            targets: Vec::new(),
            both_forms: false,
            defer_runs: true,
            count_overrides: self.counts.clone(),
            ..Options::default()
        }
    }
}

/// The page's side of the conversation with the worker.
struct Conversation {
    engine: RefCell<Option<Rc<Engine>>>,
    /// The id of the last request sent: explorations, searches and previews take the next.
    last_id: Cell<u64>,
    /// The newest exploration asked for: its id and text.
    latest: RefCell<(u64, String)>,
    /// The parts asked for, by the id of the exploration they are asked of.
    asked: RefCell<Vec<(u64, Want)>>,
    /// When the oldest exploration not yet answered was asked for (`dom::now_ms`).
    unanswered_since: Cell<Option<f64>>,
    /// The newest request is a pause (`pause`): an exploration of the state as it now is is owed,
    /// once typing pauses.
    owed: Cell<bool>,
    /// Counts the keystrokes paused on: the exploration owed is asked by the timer of the last.
    keystrokes_paused: Cell<u64>,
}

/// A text whose exploration takes the worker longer than this is not explored per keystroke
/// while the user types (`slow`): its answer could not be painted with the keystroke anyway, and
/// a worker exploring each keystroke holds a core the page's own thread needs for the keystrokes
/// (docs/limits.md).
const SLOW_EXPLORATION_MS: f64 = 50.0;

/// Starts the worker and keeps the snapshot answering the state. Nothing is asked before
/// `mounted`: the panes that show an exploration are the page's last part mounted (`app::App`).
pub fn start(ctx: Ctx, mounted: Memo<bool>) {
    let talk = Rc::new(Conversation {
        engine: RefCell::new(None),
        last_id: Cell::new(0),
        latest: RefCell::new((0, String::new())),
        asked: RefCell::new(Vec::new()),
        unanswered_since: Cell::new(None),
        owed: Cell::new(false),
        keystrokes_paused: Cell::new(0),
    });
    let answered = talk.clone();
    let restarted = talk.clone();
    let wanting = talk.clone();
    let engine = Engine::start(Handlers {
        wanted: Box::new(move |id| wanted(ctx, &wanting, id)),
        answer: Box::new(move |r| receive(ctx, &answered, r)),
        restarted: Box::new(move |why| on_restart(ctx, &restarted, why)),
    });
    *talk.engine.borrow_mut() = Some(engine);
    // The search and the previews are sent on the same worker, ids from the same count.
    let side = talk.clone();
    searching::connect(Box::new(move |job| {
        let id = side.last_id.get() + 1;
        side.last_id.set(id);
        if let Some(engine) = self::engine(&side) {
            engine.send(&Request { id, job }, false);
        }
        id
    }));
    let inputs = Memo::new(move |_| ctx.st.with(Inputs::of));
    // The inputs last asked about: the editor asks at once in its input handler (`ask_now`), and
    // the effect after it, seeing the same inputs, asks nothing more.
    let last_asked = Rc::new(RefCell::new(None::<Inputs>));
    let explore = talk.clone();
    let asked_now = last_asked.clone();
    let explore_now = talk.clone();
    let (owed_talk, owed_last) = (talk.clone(), last_asked.clone());
    OWED.with(|owed| {
        *owed.borrow_mut() = Some(Box::new(move || ask_owed(ctx, &owed_talk, &owed_last)));
    });
    NOW.with(|now| {
        *now.borrow_mut() = Some(Box::new(move || {
            if mounted.get_untracked() {
                let inputs = ctx.st.with_untracked(Inputs::of);
                if slow(ctx, &explore_now) {
                    pause(ctx, &explore_now, &asked_now, inputs);
                } else {
                    ask_if_new(ctx, &explore_now, &asked_now, inputs);
                }
            }
        }))
    });
    Effect::new(move |_| {
        if !mounted.get() {
            return;
        }
        ask_if_new(ctx, &explore, &last_asked, inputs.get());
    });
    listen_for_trap_requests(&talk);
    // What is shown changed (a pane, a target, a view, a pasted program) or an answer arrived:
    // the parts still missing are asked for.
    let more = talk.clone();
    Effect::new(move |_| {
        if !mounted.get() {
            return;
        }
        let wants = ctx.st.with(|s| snapshot::wants(s, searching::chart_px()));
        ctx.snapshot.with(|s| ask_missing(&more, s, &wants));
    });
}

thread_local! {
    /// What `ask_now` does, once the worker is started.
    static NOW: RefCell<Option<Box<dyn Fn()>>> = const { RefCell::new(None) };
    /// What `ask_owed_now` does, once the worker is started.
    static OWED: RefCell<Option<Box<dyn Fn()>>> = const { RefCell::new(None) };
}

/// Asks at once for the exploration owed since keystrokes paused the worker, if one is: the
/// editor calls it when it loses the focus, and the grid when it is edited before the text is
/// explored, as the grid and the panes act on the text explored (a grid edit waits for it).
pub fn ask_owed_now() {
    OWED.with(|owed| {
        if let Some(ask) = owed.borrow().as_ref() {
            ask();
        }
    });
}

/// Asks the worker at once for the state as it now is, if that is not what was last asked: the
/// editor calls it in its input handler, so that the request leaves before the page's own work
/// for the keystroke (the effects that run after the handler), and the worker computes while the
/// page does that work.
pub fn ask_now() {
    NOW.with(|now| {
        if let Some(ask) = now.borrow().as_ref() {
            ask();
        }
    });
}

/// Asks for an exploration of `inputs` unless they are the ones last asked about.
fn ask_if_new(ctx: Ctx, talk: &Conversation, last: &RefCell<Option<Inputs>>, inputs: Inputs) {
    if last.borrow().as_ref() == Some(&inputs) {
        return;
    }
    *last.borrow_mut() = Some(inputs.clone());
    let wants = ctx
        .st
        .with_untracked(|s| snapshot::wants(s, searching::chart_px()));
    ask_exploration(ctx, talk, inputs, wants);
}

fn engine(talk: &Conversation) -> Option<Rc<Engine>> {
    talk.engine.borrow().clone()
}

/// Whether a keystroke comes while the worker is on a slow exploration: one is awaited, and the
/// newest answered took the worker longer than `SLOW_EXPLORATION_MS`, or (a text pasted, not yet
/// answered once) the oldest awaited was asked for a typing pause ago. A keystroke that finds the
/// worker idle is explored at once, however slow the text: only those typed over an exploration
/// under way wait for a pause.
fn slow(ctx: Ctx, talk: &Conversation) -> bool {
    talk.unanswered_since.get().is_some_and(|t| {
        ctx.timing.with_untracked(|t| t.explore) >= SLOW_EXPLORATION_MS
            || dom::now_ms() - t >= TYPING_PAUSE_MS as f64
    })
}

/// A keystroke into a slow text: the worker drops the exploration it was asked and the parts
/// left (`Job::Pause`, sent once while keystrokes keep coming), the page drops their answers,
/// and the text is explored once no keystroke has come for `TYPING_PAUSE_MS`.
fn pause(ctx: Ctx, talk: &Rc<Conversation>, last: &Rc<RefCell<Option<Inputs>>>, inputs: Inputs) {
    let Some(engine) = engine(talk) else { return };
    if !talk.owed.replace(true) {
        let id = talk.last_id.get() + 1;
        talk.last_id.set(id);
        *talk.latest.borrow_mut() = (id, inputs.text.clone());
        talk.asked.borrow_mut().clear();
        engine.send(
            &Request {
                id,
                job: Asked::Pause,
            },
            false,
        );
        if ctx.job.get_untracked() != Job::Starting {
            ctx.job.set(Job::Working { id });
        }
    }
    engine.paused();
    // The effect that follows the input handler sees these inputs as asked.
    *last.borrow_mut() = Some(inputs);
    let n = talk.keystrokes_paused.get() + 1;
    talk.keystrokes_paused.set(n);
    let talk = talk.clone();
    let last = last.clone();
    dom::after_ms(
        TYPING_PAUSE_MS,
        Box::new(move || {
            if talk.keystrokes_paused.get() == n {
                ask_owed(ctx, &talk, &last);
            }
        }),
    );
}

/// Asks for the exploration of the state as it now is, if a pause owes one.
fn ask_owed(ctx: Ctx, talk: &Conversation, last: &RefCell<Option<Inputs>>) {
    if !talk.owed.get() {
        return;
    }
    let inputs = ctx.st.with_untracked(Inputs::of);
    *last.borrow_mut() = Some(inputs.clone());
    let wants = ctx
        .st
        .with_untracked(|s| snapshot::wants(s, searching::chart_px()));
    ask_exploration(ctx, talk, inputs, wants);
}

fn ask_exploration(ctx: Ctx, talk: &Conversation, inputs: Inputs, wants: Vec<Want>) {
    let Some(engine) = engine(talk) else { return };
    let id = talk.last_id.get() + 1;
    talk.last_id.set(id);
    *talk.latest.borrow_mut() = (id, inputs.text.clone());
    *talk.asked.borrow_mut() = wants.iter().map(|w| (id, w.clone())).collect();
    talk.owed.set(false);
    if talk.unanswered_since.get().is_none() {
        talk.unanswered_since.set(Some(dom::now_ms()));
    }
    dom::mark("stagecraft:recompute");
    let request = Request {
        id,
        job: Asked::Explore {
            options: Box::new(inputs.options()),
            text: inputs.text,
            wants,
        },
    };
    engine.send(&request, true);
    if ctx.job.get_untracked() != Job::Starting {
        ctx.job.set(Job::Working { id });
    }
}

/// Asks for each part of `wants` that the exploration it belongs to has not got and has not
/// been asked for.
fn ask_missing(talk: &Conversation, s: &snapshot::Snapshot, wants: &[Want]) {
    if talk.owed.get() {
        // Paused: what is shown is of a text already typed over, and the exploration owed asks
        // for the parts the page then needs.
        return;
    }
    let Some(engine) = engine(talk) else { return };
    let mut by_id: Vec<(u64, Vec<Want>)> = Vec::new();
    {
        let asked = talk.asked.borrow();
        for want in wants {
            let Some(owner) = s.owner(want) else { continue };
            if owner.parts.has(want) || asked.iter().any(|(id, w)| *id == owner.id && w == want) {
                continue;
            }
            match by_id.iter_mut().find(|(id, _)| *id == owner.id) {
                Some((_, list)) => list.push(want.clone()),
                None => by_id.push((owner.id, vec![want.clone()])),
            }
        }
    }
    for (id, wants) in by_id {
        let mut asked = talk.asked.borrow_mut();
        // The worker drops a part still queued that a newer ask replaces (`Want::replaces`: the
        // step-through at another position), so it is no longer asked: going back to it asks again.
        asked.retain(|(i, w)| *i != id || !wants.iter().any(|n| n.replaces(w)));
        asked.extend(wants.iter().map(|w| (id, w.clone())));
        drop(asked);
        engine.send(
            &Request {
                id,
                job: Asked::More { wants },
            },
            false,
        );
    }
}

/// Whether an answer to request `id` would be shown: the newest exploration asked for, or a part
/// of an exploration shown.
fn wanted(ctx: Ctx, talk: &Conversation, id: u64) -> bool {
    id == talk.latest.borrow().0
        || searching::wants(id)
        || ctx.snapshot.with_untracked(|s| {
            [s.current.as_ref(), s.good.as_ref()]
                .into_iter()
                .flatten()
                .any(|shown| shown.id == id)
        })
}

fn receive(ctx: Ctx, talk: &Conversation, response: Response) {
    let Some(response) = searching::take(response) else {
        return;
    };
    let id = response.id;
    let (latest, text) = talk.latest.borrow().clone();
    let timing = match &response.answer {
        Answer::Explored { ms, .. } => Some((None, *ms)),
        Answer::Part { part, ms } => Some((Some(part_kind(part)), *ms)),
        Answer::Idle => {
            if id == latest {
                ctx.job.set(Job::Idle);
            }
            None
        }
        // The search's and the previews' answers went to `searching`.
        Answer::Stopped { .. } | Answer::Searching { .. } | Answer::Previewed { .. } => None,
    };
    let mut applied = Applied::Dropped;
    let mut retired = Vec::new();
    ctx.snapshot
        .update(|s| applied = s.apply(response, latest, &text, &mut retired));
    if !retired.is_empty() {
        dom::after_drawing(Box::new(move || drop(retired)));
    }
    match (applied, timing) {
        (Applied::Explored, Some((_, ms))) => {
            if id == latest {
                talk.unanswered_since.set(None);
            }
            ctx.timing.set(Timing {
                serial: id,
                explore: ms,
                round_trip: engine(talk).map_or(0.0, |e| dom::now_ms() - e.asked_at()),
                ..Timing::default()
            });
            if ctx.job.get_untracked() == Job::Starting {
                ctx.job.set(Job::Working { id });
            }
            published();
        }
        (Applied::Part, Some((Some(kind), ms))) => {
            ctx.timing.update(|t| {
                if t.serial == id {
                    match kind {
                        PartKind::Verification => t.verify = Some(ms),
                        PartKind::Timeline => t.simulate = Some(ms),
                        PartKind::Machine => t.machine = Some(ms),
                        PartKind::Other => {}
                    }
                }
            });
            if matches!(kind, PartKind::Verification | PartKind::Timeline) && ran(ctx, id) {
                // Counted once the frame that draws them has been painted.
                dom::before_drawing(Box::new(|| {
                    dom::in_a_task(Box::new(|| {
                        dom::mark("stagecraft:ran");
                        dom::count("data-ran");
                    }))
                }));
            }
        }
        _ => {}
    }
}

#[derive(Clone, Copy, PartialEq)]
enum PartKind {
    Verification,
    Timeline,
    Machine,
    Other,
}

fn part_kind(part: &Part) -> PartKind {
    match part {
        Part::Verification { .. } => PartKind::Verification,
        Part::Timeline { .. } => PartKind::Timeline,
        Part::Machine { .. } => PartKind::Machine,
        _ => PartKind::Other,
    }
}

/// Whether exploration `id` is the one the panes show and its verification and timeline have both
/// arrived: what the browser tests wait on (`data-ran`).
fn ran(ctx: Ctx, id: u64) -> bool {
    ctx.snapshot.with_untracked(|s| {
        s.good().is_some_and(|g| {
            g.id == id && g.parts.verification.is_some() && g.parts.timeline.is_some()
        })
    })
}

/// Marks the time to the updated DOM and to the frame that paints it, for the browser tests.
fn published() {
    // The panes' effects were woken by the snapshot and run as tasks of Leptos's executor, in the
    // order woken; a task spawned now runs after them (the second tick lets effects woken by those
    // effects run too). There the DOM is written.
    leptos::task::spawn_local(async move {
        leptos::task::tick().await;
        leptos::task::tick().await;
        dom::mark("stagecraft:dom");
        dom::measure(
            "stagecraft:recompute-to-dom",
            "stagecraft:recompute",
            "stagecraft:dom",
        );
        dom::measure(
            "stagecraft:edit-to-dom",
            "stagecraft:edit",
            "stagecraft:dom",
        );
    });
    // The browser styles, lays out and paints that DOM in its next frame; a timeout set in the
    // frame runs after it.
    dom::before_drawing(Box::new(move || {
        dom::in_a_task(Box::new(move || {
            dom::mark("stagecraft:painted");
            dom::measure(
                "stagecraft:edit-to-painted",
                "stagecraft:edit",
                "stagecraft:painted",
            );
            // The next measure starts from the next keystroke, not this one.
            dom::clear_mark("stagecraft:edit");
            dom::count("data-explored");
        }));
    }));
}

/// The worker was started again. After a trap the page keeps what it shows and says what was
/// being computed; the request that trapped is not sent again by itself (it would trap again):
/// the next edit asks anew. A worker stopped for staying on stale work is given the newest request
/// again.
fn on_restart(ctx: Ctx, talk: &Rc<Conversation>, why: Restart) {
    talk.asked.borrow_mut().clear();
    // What the stopped worker was asked is never answered: it says nothing of the next text.
    talk.unanswered_since.set(None);
    searching::restarted();
    let Some(engine) = engine(talk) else { return };
    ctx.job.set(Job::Starting);
    match why {
        Restart::Trapped { doing, message, .. } => {
            engine.clear_outbox();
            ctx.banner.set(Some(format!(
                "Stagecraft's engine stopped while computing {doing} ({message}). It has been started again; \
                 what is shown is the last result it gave, and nothing you typed is lost. Edit the text to try again."
            )));
        }
        Restart::Stale { .. } => {
            let inputs = ctx.st.with_untracked(Inputs::of);
            let wants = ctx
                .st
                .with_untracked(|s| snapshot::wants(s, searching::chart_px()));
            ask_exploration(ctx, talk, inputs, wants);
        }
    }
}

/// A `stagecraft-trap` event on the document makes the worker trap, as a bug would: what the
/// browser tests use to check that a trap keeps the view and loses nothing typed. A user cannot
/// send one by accident.
fn listen_for_trap_requests(talk: &Rc<Conversation>) {
    let talk = talk.clone();
    let on_trap = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
        if let Some(engine) = engine(&talk) {
            let id = talk.latest.borrow().0;
            engine.send(
                &Request {
                    id,
                    job: Asked::Trap,
                },
                false,
            );
        }
    });
    if let Some(d) = dom::window().and_then(|w| w.document()) {
        use wasm_bindgen::JsCast;
        let _ =
            d.add_event_listener_with_callback("stagecraft-trap", on_trap.as_ref().unchecked_ref());
    }
    on_trap.forget();
}
