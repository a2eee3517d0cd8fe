//! The worker's side of the page's messages (see `main.rs`).

use stagecraft::protocol::{decode_request, encode_response, Answer, Job, Response};
use stagecraft::session::Session;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

thread_local! {
    static SESSION: RefCell<Session> = RefCell::new(Session::new(now));
    /// The request and the work under way, for the report a panic sends.
    static DOING: RefCell<(u64, String)> = RefCell::new((0, "nothing".into()));
    /// The next unit of work is already asked for.
    static SCHEDULED: Cell<bool> = const { Cell::new(false) };
    static CHANNEL: MessageChannel = MessageChannel::new().expect("a MessageChannel");
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn now() -> f64 {
    scope().performance().map_or(0.0, |p| p.now())
}

/// Posts an answer's bytes, moving their buffer to the page rather than copying it.
fn post(response: &Response) {
    let bytes = js_sys::Uint8Array::from(encode_response(response).as_slice());
    let transfer = js_sys::Array::of1(&bytes.buffer());
    // Posting bytes to the page cannot fail.
    let _ = scope().post_message_with_transfer(&bytes, &transfer);
}

pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let (id, doing) = DOING.with(|d| d.borrow().clone());
        post(&Response {
            id,
            answer: Answer::Stopped {
                doing,
                message: info.to_string(),
            },
        });
    }));
    let on_request = Closure::<dyn Fn(MessageEvent)>::new(|ev: MessageEvent| {
        let Ok(bytes) = ev.data().dyn_into::<js_sys::Uint8Array>() else {
            return;
        };
        match decode_request(&bytes.to_vec()) {
            Ok(request) => {
                if request.job == Job::Trap {
                    DOING
                        .with(|d| *d.borrow_mut() = (request.id, "a trap a test asked for".into()));
                    panic!("the page asked this worker to trap (a test of what a trap loses)");
                }
                let explore = matches!(request.job, Job::Explore { .. });
                SESSION.with(|s| s.borrow_mut().receive(request));
                // An idle worker explores at once: the page paints nothing new until this answer,
                // and a turn through the message queue would only delay it. A busy one takes it
                // at its next turn, where a still newer request may have replaced it.
                if explore && !SCHEDULED.with(Cell::get) {
                    work_once();
                }
                schedule();
            }
            Err(why) => post(&Response {
                id: 0,
                answer: Answer::Stopped {
                    doing: "reading a request".into(),
                    message: why,
                },
            }),
        }
    });
    scope().set_onmessage(Some(on_request.as_ref().unchecked_ref()));
    on_request.forget();
    let on_turn = Closure::<dyn Fn(MessageEvent)>::new(|_: MessageEvent| {
        SCHEDULED.with(|s| s.set(false));
        work_once();
    });
    CHANNEL.with(|c| {
        c.port1()
            .set_onmessage(Some(on_turn.as_ref().unchecked_ref()))
    });
    on_turn.forget();
    // Ready: the page keeps the module to start another worker without compiling it again.
    let ready = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&ready, &"ready".into(), &wasm_bindgen::module());
    let _ = scope().post_message(&ready);
}

/// Asks for a turn: a message to this worker, behind whatever messages are already queued.
fn schedule() {
    if SCHEDULED.with(|s| s.replace(true)) {
        return;
    }
    CHANNEL.with(|c| {
        let _ = c.port2().post_message(&JsValue::NULL);
    });
}

fn work_once() {
    let doing = SESSION.with(|s| s.borrow().doing());
    if let Some(d) = doing {
        DOING.with(|x| *x.borrow_mut() = d);
    }
    let answer = SESSION.with(|s| s.borrow_mut().work());
    if let Some(r) = answer {
        post(&r);
    }
    if SESSION.with(|s| s.borrow().busy()) {
        schedule();
    }
}
