//! Title, Documents, Lessons, presets (with undo), the rolled/peeled toggle, symbolic-extent parameters, sharing and the
//! time of the last recomputation.

use crate::ctx::ctx;
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
        "time of the last recomputation: exploring {}",
        duration(t.explore, tick)
    );
    if t.kept {
        s.push_str(" (the verification and the timeline of the same program were kept)");
        return s;
    }
    for (what, ms) in [
        ("verifying", t.verify),
        ("simulating the timeline", t.simulate),
    ] {
        match ms {
            Some(ms) => s.push_str(&format!(", {what} {}", duration(ms, tick))),
            None => s.push_str(&format!(", {what} still to come")),
        }
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
            ctx.undo.update(|u| u.push(old));
            ctx.set_text(text.to_string());
        }
    };
    let undo = move |_| {
        if let Some(prev) = ctx.undo.try_update(|u| u.pop()).flatten() {
            ctx.set_text(prev);
        }
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
                    let p = ex.as_deref()?.programs.as_ref()?;
                    Some(params_html(&p.params))
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
    // While a large text waits for the warm-up, the time shown would be of another text (or none).
    let timing = move || {
        if ctx.preparing.get() {
            "preparing…".to_string()
        } else {
            duration(ctx.timing.with(Timing::total), dom::clock_tick_ms())
        }
    };
    let timing_title = move || {
        if ctx.preparing.get() {
            "Preparing the explorer: this text is explored in a moment.".to_string()
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
        Dialect::Stagecraft => "The text is read as Stagecraft's loop language; a pasted TVMScript @T.prim_func is read as TVMScript",
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
            verify: Some(18.2),
            ..Timing::default()
        };
        assert_eq!(
            timing_parts(&t, 0.1),
            "time of the last recomputation: exploring 19.6 ms, verifying 18.2 ms, simulating the timeline still to come"
        );
        t.verify = None;
        t.kept = true;
        assert_eq!(
            timing_parts(&t, 0.1),
            "time of the last recomputation: exploring 19.6 ms (the verification and the timeline of the same program were kept)"
        );
        // Firefox's clock ticks each millisecond.
        let t = Timing {
            explore: 0.0,
            verify: Some(1.0),
            simulate: Some(0.0),
            ..Timing::default()
        };
        assert_eq!(
            timing_parts(&t, 1.0),
            "time of the last recomputation: exploring < 1 ms, verifying 1 ms, simulating the timeline < 1 ms"
        );
    }
}
