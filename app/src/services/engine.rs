//! The core's worker, as the page sees it: started from the loader `scripts/version-worker.py` names
//! in `<meta name="stagecraft-worker">`, sent requests and read answers (`stagecraft::protocol`,
//! postcard's bytes both ways), and started again — with the module it compiled, not compiling it
//! again — when it traps or stays busy on work the page has moved on from.
//!
//! Start-up: the page begins fetching and compiling the worker's module while the worker's own
//! scripts load (one network round trip each, which would otherwise come before the module's
//! download); the worker says `hello`; the page answers with that module once compiled — or the
//! one an earlier worker gave it, or nothing if compiling failed (the worker then fetches its own);
//! the worker says it is ready, giving its module. Requests sent before that wait in an outbox.

use crate::dom;
use stagecraft::protocol::{decode_response, encode_request, Request, Response};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How long the worker may stay on older work after a newer request before it is started again.
pub const STALE_WORK_MS: u64 = 2000;

/// An answer of more bytes than this is decoded in a task before the one that shows it.
const LARGE_ANSWER_BYTES: usize = 256 * 1024;

/// How long without a keystroke is a pause in typing. A large answer is shown only once this long
/// has passed since the newest exploration was asked for: while the user types, another
/// keystroke (and with it a newer answer) usually comes first, and showing one — a task and a
/// frame of tens of milliseconds each, for a loop at the limits — would hold up the keystrokes
/// that follow (docs/limits.md). A slow text is explored only after such a pause
/// (`exploring::pause`).
pub const TYPING_PAUSE_MS: u64 = 250;

/// Why the worker was started again.
#[derive(Clone, Debug, PartialEq)]
pub enum Restart {
    /// It trapped (a bug, an abort) while computing `doing` for request `id`; `message` is what it
    /// said before it stopped, or the browser's error.
    Trapped {
        id: u64,
        doing: String,
        message: String,
    },
    /// It was still on older work `STALE_WORK_MS` after request `id` was sent.
    Stale { id: u64 },
}

/// What the page does with the worker's words.
pub struct Handlers {
    /// Whether an answer to request `id` would be shown: one that would not is not even decoded.
    pub wanted: Box<dyn Fn(u64) -> bool>,
    pub answer: Box<dyn Fn(Response)>,
    /// The worker was started again: what was asked of the old one is gone.
    pub restarted: Box<dyn Fn(Restart)>,
}

pub struct Engine {
    url: String,
    worker: RefCell<Option<web_sys::Worker>>,
    /// The module the first worker compiled, for those started after it.
    module: RefCell<JsValue>,
    /// The worker's module as the page began compiling it at start-up, until it is compiled.
    compiling: RefCell<Option<js_sys::Promise>>,
    ready: Cell<bool>,
    outbox: RefCell<Vec<Vec<u8>>>,
    /// The newest request sent that must be answered (an exploration), and the newest id any
    /// answer has carried: what the stale-work watch compares.
    expecting: Cell<u64>,
    answered: Cell<u64>,
    /// When `expecting` was sent (`dom::now_ms`).
    expecting_since: Cell<f64>,
    /// What the worker said before it trapped (`Answer::Stopped`), for the report.
    last_words: RefCell<Option<(u64, String, String)>>,
    handlers: Handlers,
    /// The current worker's event handlers, kept alive with it.
    listeners: RefCell<Option<Listeners>>,
    /// Answers not yet given to the page, oldest first, in the order they came: a part that
    /// overtook its exploration would be dropped as belonging to nothing shown, and never asked
    /// for again. They wait while the page is `held`.
    queued: RefCell<VecDeque<Pending>>,
    /// The answers after this one wait for a later task: `Some` while they do, with the number of
    /// the hold (a hold is released once, by whichever of its two releases comes first).
    held: Cell<Option<u64>>,
    holds: Cell<u64>,
}

/// An answer waiting its turn: its bytes as they came (decoded in its turn, so that a frame to be
/// drawn first is not delayed by decoding it), or decoded and shown in the next task.
enum Pending {
    Bytes { id: Option<u64>, bytes: Vec<u8> },
    Decoded(Result<Response, String>),
}

/// Why the answers after one wait: until the next task (a large answer, decoded in one task and
/// shown in the next), or until the frame that draws an exploration has been painted (a part
/// that came meanwhile — a large timeline, say — would otherwise be decoded and written before
/// that frame, and the program the user is waiting for would be drawn a frame or more later).
#[derive(Clone, Copy)]
enum Hold {
    ATask,
    ItsFrame,
    /// For this many milliseconds: typing is going on (`TYPING_PAUSE_MS`).
    Ms(u64),
}

/// A hold for a frame is released after this long even if the browser draws no frame (a page
/// in a background tab does not).
const FRAME_HOLD_MS: u64 = 100;

/// A worker's two event handlers.
struct Listeners {
    _message: Closure<dyn Fn(web_sys::MessageEvent)>,
    _error: Closure<dyn Fn(web_sys::ErrorEvent)>,
}

/// The worker's loader, as the page's build named it.
fn loader_url() -> String {
    dom::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector("meta[name=stagecraft-worker]")
                .ok()
                .flatten()
        })
        .and_then(|m| m.get_attribute("content"))
        .unwrap_or_else(|| "./stagecraft-worker_loader.js".into())
}

/// Begins fetching and compiling the worker's module, named after its loader as
/// `scripts/version-worker.py` names them.
fn compile_module(loader: &str) -> Option<js_sys::Promise> {
    let wasm = loader.strip_suffix("_loader.js")?.to_owned() + "_bg.wasm";
    let fetched = dom::window()?.fetch_with_str(&wasm);
    Some(js_sys::WebAssembly::compile_streaming(&fetched))
}

impl Engine {
    pub fn start(handlers: Handlers) -> Rc<Engine> {
        let url = loader_url();
        let engine = Rc::new(Engine {
            compiling: RefCell::new(compile_module(&url)),
            url,
            worker: RefCell::new(None),
            module: RefCell::new(JsValue::UNDEFINED),
            ready: Cell::new(false),
            outbox: RefCell::new(Vec::new()),
            expecting: Cell::new(0),
            answered: Cell::new(0),
            expecting_since: Cell::new(0.0),
            last_words: RefCell::new(None),
            handlers,
            listeners: RefCell::new(None),
            queued: RefCell::new(VecDeque::new()),
            held: Cell::new(None),
            holds: Cell::new(0),
        });
        Engine::spawn(&engine);
        engine
    }

    /// When the newest request that must be answered (an exploration) was sent, on the page's
    /// clock (`dom::now_ms`).
    pub fn asked_at(&self) -> f64 {
        self.expecting_since.get()
    }

    /// Sends `request`; one that begins new work (`expect_answer`) is watched: the worker must
    /// begin answering it within `STALE_WORK_MS`.
    pub fn send(self: &Rc<Engine>, request: &Request, expect_answer: bool) {
        let bytes = encode_request(request);
        if self.ready.get() {
            self.post(&bytes);
        } else {
            self.outbox.borrow_mut().push(bytes);
        }
        if expect_answer {
            self.expecting.set(request.id);
            self.expecting_since.set(dom::now_ms());
            self.watch(request.id);
        }
    }

    /// A keystroke paused on (`exploring::pause`): no answer is owed (the worker was asked to drop
    /// the exploration it was asked, which is then never answered and is not stale work), and
    /// typing goes on, so a large answer still on its way waits for a pause.
    pub fn paused(&self) {
        self.expecting.set(0);
        self.expecting_since.set(dom::now_ms());
    }

    /// Forgets what is waiting to be sent (after a trap, the request that caused it is not sent
    /// again).
    pub fn clear_outbox(&self) {
        self.outbox.borrow_mut().clear();
    }

    fn post(&self, bytes: &[u8]) {
        if let Some(w) = self.worker.borrow().as_ref() {
            // Bytes always post.
            let _ = w.post_message(&js_sys::Uint8Array::from(bytes));
        }
    }

    fn spawn(engine: &Rc<Engine>) {
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let Ok(worker) = web_sys::Worker::new_with_options(&engine.url, &options) else {
            // Not started again: it would be refused again.
            (engine.handlers.restarted)(Restart::Trapped {
                id: 0,
                doing: "starting".into(),
                message: "the browser refused to start a worker".into(),
            });
            return;
        };
        let me = Rc::downgrade(engine);
        let on_message =
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
                if let Some(engine) = me.upgrade() {
                    engine.received(ev.data());
                }
            });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let me = Rc::downgrade(engine);
        let on_error =
            Closure::<dyn Fn(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
                ev.prevent_default();
                if let Some(engine) = me.upgrade() {
                    engine.show_all_queued();
                    let (id, doing, said) = engine.last_words.borrow_mut().take().unwrap_or((
                        engine.expecting.get(),
                        "its work".into(),
                        String::new(),
                    ));
                    let message = if said.is_empty() { ev.message() } else { said };
                    engine.trapped(id, &doing, &message);
                }
            });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        *engine.listeners.borrow_mut() = Some(Listeners {
            _message: on_message,
            _error: on_error,
        });
        engine.ready.set(false);
        *engine.worker.borrow_mut() = Some(worker);
    }

    fn received(self: &Rc<Engine>, data: JsValue) {
        if data.as_string().is_some_and(|t| t == "hello") {
            self.give_module();
            return;
        }
        if let Some(bytes) = data.dyn_ref::<js_sys::Uint8Array>() {
            let id = self.peek_id(bytes);
            if let Some(id) = id {
                self.answered.set(self.answered.get().max(id));
                if !(self.handlers.wanted)(id) {
                    return;
                }
            }
            let bytes = bytes.to_vec();
            self.queued
                .borrow_mut()
                .push_back(Pending::Bytes { id, bytes });
            self.show_queued();
            return;
        }
        // Ready, with the module it runs.
        if let Ok(module) = js_sys::Reflect::get(&data, &"ready".into()) {
            if !module.is_undefined() {
                *self.module.borrow_mut() = module;
            }
            self.ready.set(true);
            let outbox = std::mem::take(&mut *self.outbox.borrow_mut());
            for bytes in outbox {
                self.post(&bytes);
            }
        }
    }

    /// Answers the worker's `hello` with the module to instantiate: the one compiled at start-up
    /// once it is (nothing, if that failed: the worker fetches its own), else an earlier worker's.
    fn give_module(self: &Rc<Engine>) {
        let Some(compiling) = self.compiling.borrow_mut().take() else {
            if let Some(w) = self.worker.borrow().as_ref() {
                let _ = w.post_message(&self.module.borrow());
            }
            return;
        };
        // The worker is given what the compiling settles to, or nothing if it failed.
        let give = |settled: fn(JsValue) -> JsValue| {
            let me = Rc::downgrade(self);
            Closure::once(move |value: JsValue| {
                if let Some(w) = me.upgrade().and_then(|e| e.worker.borrow().clone()) {
                    let _ = w.post_message(&settled(value));
                }
            })
        };
        let compiled = give(|module| module);
        let failed = give(|_| JsValue::UNDEFINED);
        let _ = compiling.then2(&compiled, &failed);
        // Each runs once, when the compiling settles; a worker started again meanwhile (a trap)
        // says `hello` again and is given the module it then has.
        compiled.forget();
        failed.forget();
    }

    /// The id of an answer from its first bytes, copied alone out of the message.
    fn peek_id(&self, bytes: &js_sys::Uint8Array) -> Option<u64> {
        let head = bytes.subarray(0, bytes.length().min(32)).to_vec();
        stagecraft::protocol::response_id(&head)
    }

    /// Decodes an answer. Not marked for the performance timeline: answers come several per edit,
    /// and each mark is work on the way to the frame that paints the edit.
    fn decode(&self, bytes: &[u8]) -> Result<Response, String> {
        decode_response(bytes)
    }

    /// Gives the page the answers that waited, in the order they came, until one of them holds
    /// the rest. An answer the page has stopped wanting while it waited is dropped undecoded.
    fn show_queued(self: &Rc<Engine>) {
        while self.held.get().is_none() {
            let next = self.queued.borrow_mut().pop_front();
            match next {
                Some(Pending::Bytes { id, bytes }) => {
                    if id.is_some_and(|id| !(self.handlers.wanted)(id)) {
                        continue;
                    }
                    let large = bytes.len() > LARGE_ANSWER_BYTES;
                    let typing =
                        TYPING_PAUSE_MS as f64 - (dom::now_ms() - self.expecting_since.get());
                    if large && typing > 0.0 {
                        self.queued
                            .borrow_mut()
                            .push_front(Pending::Bytes { id, bytes });
                        self.hold(Hold::Ms(typing.ceil() as u64));
                        continue;
                    }
                    let decoded = self.decode(&bytes);
                    if large {
                        // Decoded in this task, shown in the next: each within a task's budget.
                        self.queued
                            .borrow_mut()
                            .push_front(Pending::Decoded(decoded));
                        self.hold(Hold::ATask);
                    } else {
                        self.take(decoded);
                    }
                }
                Some(Pending::Decoded(decoded)) => self.take(decoded),
                None => return,
            }
        }
    }

    /// Makes the answers still queued wait (`Hold`), then shows them.
    fn hold(self: &Rc<Engine>, why: Hold) {
        let n = self.holds.get() + 1;
        self.holds.set(n);
        self.held.set(Some(n));
        let release = |me: std::rc::Weak<Engine>| -> Box<dyn FnOnce()> {
            Box::new(move || {
                let Some(engine) = me.upgrade() else { return };
                if engine.held.get() == Some(n) {
                    engine.held.set(None);
                    engine.show_queued();
                }
            })
        };
        match why {
            Hold::ATask => dom::in_a_task(release(Rc::downgrade(self))),
            Hold::Ms(ms) => dom::after_ms(ms, release(Rc::downgrade(self))),
            Hold::ItsFrame => {
                // After the page's own after-the-frame work (its marks), which was asked first.
                dom::after_drawing(release(Rc::downgrade(self)));
                dom::after_ms(FRAME_HOLD_MS, release(Rc::downgrade(self)));
            }
        }
    }

    /// Gives the page every answer still queued, none held: before a trap is reported, the
    /// worker's last words among them are read.
    fn show_all_queued(self: &Rc<Engine>) {
        self.held.set(None);
        loop {
            let next = self.queued.borrow_mut().pop_front();
            match next {
                Some(Pending::Bytes { bytes, .. }) => {
                    let decoded = self.decode(&bytes);
                    self.take(decoded);
                }
                Some(Pending::Decoded(decoded)) => self.take(decoded),
                None => return,
            }
        }
    }

    /// A decoded answer: the worker's last words before a trap are kept for the report; anything
    /// else goes to the page.
    fn take(self: &Rc<Engine>, decoded: Result<Response, String>) {
        match decoded {
            Ok(response) => {
                if let stagecraft::protocol::Answer::Stopped { doing, message } = &response.answer {
                    *self.last_words.borrow_mut() =
                        Some((response.id, doing.clone(), message.clone()));
                    return;
                }
                let explored = matches!(
                    response.answer,
                    stagecraft::protocol::Answer::Explored { .. }
                );
                (self.handlers.answer)(response);
                if explored {
                    self.hold(Hold::ItsFrame);
                }
            }
            Err(why) => self.trapped(self.expecting.get(), "reading its answer", &why),
        }
    }

    /// After `STALE_WORK_MS`, the worker is started again if it has not begun answering `id` and
    /// `id` is still the newest request.
    fn watch(self: &Rc<Engine>, id: u64) {
        let me = Rc::downgrade(self);
        dom::after_ms(
            STALE_WORK_MS,
            Box::new(move || {
                let Some(engine) = me.upgrade() else { return };
                if engine.ready.get() && engine.expecting.get() == id && engine.answered.get() < id
                {
                    engine.restart(Restart::Stale { id });
                }
            }),
        );
    }

    fn trapped(self: &Rc<Engine>, id: u64, doing: &str, message: &str) {
        let why = Restart::Trapped {
            id,
            doing: doing.into(),
            message: message.into(),
        };
        // In a task of its own: the worker's handlers, one of which is running, are dropped.
        let me = self.clone();
        dom::in_a_task(Box::new(move || me.restart(why)));
    }

    fn restart(self: &Rc<Engine>, why: Restart) {
        if let Some(w) = self.worker.borrow_mut().take() {
            w.terminate();
        }
        self.listeners.borrow_mut().take();
        Engine::spawn(self);
        (self.handlers.restarted)(why);
    }
}
