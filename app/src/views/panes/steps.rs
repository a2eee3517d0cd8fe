//! The step-through: the machine at one position of the interpreter's trace, drawn by the worker
//! (core's `StepFrame`: the trace stays there, and each position moved to is asked for), with
//! controls and keys to move along it. The position and the completion model live in the shared
//! state, so a link reopens the same instant.

use super::contract::{self, PaneSpec};
use crate::ctx::ctx;
use leptos::prelude::*;
use crate::model::snapshot::Parts;
use stagecraft::steps::{CompletionModel, StepFrame};
use stagecraft_link::{Pane, State};
use std::sync::Arc;
use std::time::Duration;

pub const PANE: PaneSpec = PaneSpec {
    pane: Pane::Steps,
    label: "Step through",
    pending: contract::never_pending,
};

/// Steps per second while playing.
const PLAY_MS: u64 = 33;

/// The pane's content, made once by the registry.
pub fn view() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    let model = Memo::new(move |_| ctx.st.with(|s| s.completion));
    // The newest frame drawn of the program shown, or until one arrives the program shown
    // before's; `None` while the trace is on its way.
    let part = ctx.part(|p: &Parts, s: &State| {
        let (options, _, frame) = p.steps.as_ref()?;
        (options.model == s.completion).then(|| Some(frame.clone()))
    });
    let frame: Memo<Option<Arc<StepFrame>>> = Memo::new_with_compare(
        move |_| part.with(|r| r.as_ref().and_then(|r| r.value.clone())),
        |a, b| match (a, b) {
            (Some(Some(a)), Some(Some(b))) => !Arc::ptr_eq(a, b),
            (Some(None), Some(None)) => false,
            _ => true,
        },
    );
    let position = move || ctx.st.with(|s| s.step) as usize;
    let last = move || frame.with(|f| f.as_ref().map_or(0, |f| f.len));
    let go = move |p: usize| {
        let p = p.min(last()) as u64;
        if ctx.st.with_untracked(|s| s.step) != p {
            ctx.st.update(|s| s.step = p);
        }
    };
    let playing = StoredValue::new(None::<IntervalHandle>);
    let pause = move || {
        if let Some(h) = playing.get_value() {
            h.clear();
            playing.set_value(None);
        }
    };
    // Playing stops at the end, and at a race: the race is what there is to see.
    let forward = move || {
        let p = ctx.st.with_untracked(|s| s.step) as usize;
        let (len, race) = frame.with_untracked(|f| f.as_ref().map_or((0, None), |f| (f.len, f.race)));
        if p >= len {
            pause();
        } else {
            go(p + 1);
            if race == Some(p + 1) {
                pause();
            }
        }
    };
    let play = move || {
        if playing.get_value().is_none() {
            if let Ok(h) = set_interval_with_handle(forward, Duration::from_millis(PLAY_MS)) {
                playing.set_value(Some(h));
            }
        }
    };
    let back = move || go(position().saturating_sub(1));
    // The frame drawn knows the next wait after its own position: not yet that of a position
    // moved to since, whose frame is on its way.
    let next_wait = move || {
        let p = position();
        let next = frame.with_untracked(|f| {
            f.as_ref()
                .filter(|f| f.position == p)
                .and_then(|f| f.next_wait)
        });
        if let Some(n) = next {
            go(n);
        }
    };
    let next_race = move || {
        if let Some(p) = frame.with_untracked(|f| f.as_ref().and_then(|f| f.race)) {
            go(p);
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        match (ev.key().as_str(), ev.shift_key()) {
            (" ", _) if playing.get_value().is_some() => pause(),
            (" ", _) => play(),
            ("ArrowRight", true) => next_wait(),
            ("ArrowRight", false) => forward(),
            ("ArrowLeft", _) => back(),
            _ => return,
        }
        ev.prevent_default();
    };
    contract::render_while_shown(node, PANE.pane, move || {
        frame.with(|f| match f {
            Some(f) => f.markup.clone(),
            None => "<p class=\"focus-note\">Tracing the pipelined program…</p>".to_string(),
        })
    });
    view! {
        <div id="steps" tabindex="0" on:keydown=on_key>
            <div class="controls steps-controls">
                <button on:click=move |_| play()>"Play"</button>
                <button on:click=move |_| pause()>"Pause"</button>
                <button on:click=move |_| back()>"Step back"</button>
                <button on:click=move |_| forward()>"Step forward"</button>
                <button on:click=move |_| next_wait()>"Next wait"</button>
                <button on:click=move |_| next_race()>"Next race"</button>
                <input type="range" aria-label="Position" min="0" max=move || last().to_string()
                    prop:value=move || position().to_string()
                    on:input=move |ev| go(event_target_value(&ev).parse().unwrap_or(0)) />
                <span id="position">{move || {
                    // While the trace is on its way, its length is not known.
                    if frame.with(Option::is_none) {
                        format!("{} / …", position())
                    } else {
                        format!("{} / {}", position(), last())
                    }
                }}</span>
                // Which completion the machine picture shows is a choice a learner makes
                // knowingly: said in words, not a bare "latest".
                <label class="completion" title="When an asynchronous group completes in the picture: as late as the waits allow (what exposes a missing wait), or when the timeline's cost model says">
                    "groups complete "
                    <select
                        on:change=move |ev| {
                            let m = if event_target_value(&ev) == "as_timed" {
                                CompletionModel::AsTimed
                            } else {
                                CompletionModel::Latest
                            };
                            ctx.st.update(|s| s.completion = m);
                        }>
                        <option value="latest" selected=move || model.get() == CompletionModel::Latest>
                            "as late as the waits allow"</option>
                        <option value="as_timed" selected=move || model.get() == CompletionModel::AsTimed>
                            "as the timeline times them"</option>
                    </select>
                </label>
            </div>
            <div node_ref=node></div>
        </div>
    }
}
