//! Title, Documents, Lessons, presets (with undo), the rolled/peeled toggle, symbolic-extent parameters, sharing and the
//! time of the last recomputation.

use crate::ctx::{ctx, Job};
use crate::dom;
use crate::markup::format::duration;
use crate::markup::html::{self, Html};
use crate::model::timing::Timing;
use crate::services::documents::Documents;
use crate::views::copy::copy_button;
use crate::views::{documents, lessons, render};
use leptos::prelude::*;
use stagecraft::tvmscript::Dialect;
use stagecraft_link::{presets, Form};
use std::collections::BTreeMap;

/// An input per symbolic extent; `data-param` names it for the delegated change handler.
fn params_html(params: &BTreeMap<String, i64>) -> String {
    let mut h = Html::default();
    for (name, value) in params {
        h.raw("<label class=\"param\" data-param=\"")
            .text(name)
            .raw("\">")
            .text(name)
            .raw(" = <input type=\"number\" min=\"1\" max=\"4096\" value=\"")
            .num(value)
            .raw("\"></label>");
    }
    h.finish()
}

/// What the header's time is made of, for its tooltip, as a clock ticking every `tick` ms measured it.
fn timing_parts(t: &Timing, tick: f64) -> String {
    let mut s = format!(
        "the last edit's answer took {}: exploring {} in the engine",
        duration(t.round_trip, tick),
        duration(t.explore, tick)
    );
    for (what, ms) in [
        ("verifying", t.verify),
        ("simulating the timeline", t.simulate),
    ] {
        match ms {
            Some(ms) => s.push_str(&format!(", then {what} {}", duration(ms, tick))),
            None => s.push_str(&format!(", {what} still to come")),
        }
    }
    if let Some(ms) = t.machine {
        s.push_str(&format!(
            "; checking the kernel on the machine took {}",
            duration(ms, tick)
        ));
    }
    s
}

#[component]
pub fn Header() -> impl IntoView {
    let ctx = ctx();
    let docs = expect_context::<Documents>();
    // The URL follows the document shown once it is saved: saved now, it is the link.
    let link = move || {
        docs.flush();
        dom::window().and_then(|w| w.location().href().ok())
    };
    let load = move |ev: leptos::ev::Event| {
        let name = event_target_value(&ev);
        if let Some((_, text)) = presets::PRESETS.iter().find(|(n, _)| *n == name) {
            let old = ctx.st.get_untracked().text;
            ctx.undo.update(|u| u.push((old, text.to_string())));
            ctx.set_text(text.to_string());
        }
    };
    // The text before the load comes back; the example, if it was edited since, is kept as a
    // document of its own rather than dropped.
    let undo = move |_| {
        let Some((before, loaded)) = ctx.undo.try_update(|u| u.pop()).flatten() else {
            return;
        };
        let edited = ctx.st.get_untracked();
        if edited.text != loaded && edited.text != before {
            if let Some(name) = docs.keep_copy(&edited) {
                ctx.banner.set(Some(format!(
                    "Your edits of the example are kept as “{name}” in Documents."
                )));
            }
        }
        ctx.set_text(before);
    };
    let set_param = move |ev: leptos::ev::Event| {
        let (Some(name), Some(value)) =
            (dom::closest_data(&ev, "data-param"), dom::target_value(&ev))
        else {
            return;
        };
        let v = value.parse::<i64>().unwrap_or(16).clamp(1, 4096);
        ctx.st.update(|s| {
            s.params.insert(name, v);
        });
    };
    let params = NodeRef::<leptos::html::Div>::new();
    render::while_visible(
        params,
        || true,
        move || {
            ctx.current
                .with(|ex| {
                    let ex = ex.as_deref()?;
                    (!ex.params.is_empty()).then(|| params_html(&ex.params))
                })
                .unwrap_or_default()
        },
    );
    let mut presets = vec![("", "Load an example…")];
    presets.extend(presets::PRESETS.iter().map(|(name, _)| (*name, *name)));
    let presets = html::options(&presets, "");
    let set_peeled = move |ev: leptos::ev::Event| {
        let on = event_target_checked(&ev);
        ctx.st
            .update(|s| s.form = if on { Form::Peeled } else { Form::Rolled });
    };
    let timing = move || {
        if ctx.job.get() == Job::Starting && ctx.current.with(Option::is_none) {
            "starting…".to_string()
        } else {
            duration(ctx.timing.with(|t| t.round_trip), dom::clock_tick_ms())
        }
    };
    let timing_title = move || {
        if ctx.job.get() == Job::Starting {
            "Starting Stagecraft's engine (a worker beside the page): the text is explored in a moment.".to_string()
        } else {
            ctx.timing.with(|t| timing_parts(t, dom::clock_tick_ms()))
        }
    };
    // Which language the text was read as: a pasted `@T.prim_func` is TVMScript.
    let dialect = move || {
        ctx.current
            .with(|ex| ex.as_deref().map_or(Dialect::Stagecraft, |ex| ex.dialect))
    };
    let dialect_title = move || {
        match dialect() {
        Dialect::TvmScript => "The text is read as TVMScript (a @T.prim_func, TVM ≤ 0.20's T.block or 0.27's T.sblock spelling)",
        Dialect::TileLang => "The text is read as TileLang (a @T.prim_func kernel with T.Kernel, T.copy, T.gemm and T.Pipelined; docs/tilelang.md)",
        Dialect::Stagecraft => "The text is read as Stagecraft's loop language; a pasted TVMScript @T.prim_func is read as TVMScript, a TileLang kernel as TileLang",
    }
    };
    view! {
        <header>
            <h1>"Stagecraft"</h1>
            <span class="tagline">"software pipelines with asynchronous stages"</span>
            <span id="dialect" class="dialect" title=dialect_title>{move || format!("read as {}", dialect().name())}</span>
            {documents::view()}
            {lessons::menu_view()}
            <select id="presets" aria-label="Load an example" on:change=load inner_html=presets></select>
            <button id="undo" on:click=undo disabled=move || ctx.undo.with(|u| u.is_empty())>"Undo load"</button>
            <label class="toggle">
                <input id="peeled" type="checkbox" prop:checked=move || ctx.peeled.get()
                    on:change=set_peeled/>
                "peeled"
            </label>
            <div class="params" node_ref=params on:change=set_param></div>
            {copy_button("copy-link", "Copy link", "Link copied", link)}
            <span class="timing" title=timing_title>{timing}</span>
        </header>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tooltip_says_what_the_time_is_made_of() {
        let mut t = Timing {
            serial: 2,
            explore: 19.62,
            round_trip: 21.04,
            verify: Some(18.2),
            ..Timing::default()
        };
        assert_eq!(
            timing_parts(&t, 0.1),
            "the last edit's answer took 21.0 ms: exploring 19.6 ms in the engine, then verifying 18.2 ms, simulating the timeline still to come"
        );
        t.verify = None;
        assert!(timing_parts(&t, 0.1)
            .ends_with("verifying still to come, simulating the timeline still to come"));
        // Firefox's clock ticks each millisecond.
        let t = Timing {
            explore: 0.0,
            round_trip: 2.0,
            verify: Some(1.0),
            simulate: Some(0.0),
            ..Timing::default()
        };
        assert_eq!(
            timing_parts(&t, 1.0),
            "the last edit's answer took 2 ms: exploring < 1 ms in the engine, then verifying 1 ms, then simulating the timeline < 1 ms"
        );
    }
}
