//! The right-hand side: notices about skipped or slow work, the tabs, and the five panes. Every pane
//! stays in the page (hidden when not shown) and remembers its scroll position across tab switches.

mod code;
mod costs;
mod program;
mod space;
mod timeline;
mod verification;

use crate::ctx::ctx;
use crate::dom;
use crate::markup::format::fixed;
use crate::markup::html::Html;
use crate::model::budget::FRAME_MS;
use crate::model::deferred::Ran;
use crate::model::timing::Timing;
use crate::views::render;
use crate::views::scroll::ScrollMemory;
use leptos::prelude::*;
use stagecraft::explore::Exploration;
use stagecraft::timeline::Timeline;
use stagecraft::verify::{Verdict, Verification};
use stagecraft_link::Pane;

pub const PANES: [(Pane, &str); 5] = [
    (Pane::Program, "Pipelined program"),
    (Pane::Verification, "Verification"),
    (Pane::Timeline, "Timeline"),
    (Pane::Space, "Iteration space"),
    (Pane::Code, "Code"),
];

/// Plain sentences about what was skipped, cut short or slow, and why. `slow` is, when the panes
/// wait for a pause in typing, the last recomputation's time and the estimated time to draw it.
pub fn notices(
    ex: Option<&Exploration>,
    verification: Option<&Verification>,
    timeline: Option<&Timeline>,
    slow: Option<(f64, f64)>,
) -> Vec<String> {
    let mut out = Vec::new();
    match slow {
        Some((ms, _)) if ms > FRAME_MS => out.push(format!(
            "Recomputing took {} ms, longer than a frame ({} ms): the panes now update when you pause typing.",
            fixed(ms, 0),
            fixed(FRAME_MS, 0)
        )),
        Some((ms, draw)) => out.push(format!(
            "Recomputing took {} ms and drawing its result about {} ms more, too long for one keystroke: the panes now update when you pause typing.",
            fixed(ms, 0),
            fixed(draw, 0)
        )),
        None => {}
    }
    let Some(ex) = ex else { return out };
    if let Some(v) = verification {
        if v.verdict == Verdict::NotRun {
            out.push(format!("Verification skipped — {}.", v.summary));
        } else if v.unjudged_for_budget > 0 {
            out.push(format!(
                "Some waits were not judged for tightness (the interpreter's budget): {}.",
                v.summary
            ));
        }
    }
    out.extend(timeline.and_then(|t| t.coverage()));
    out.extend(ex.notes.iter().cloned());
    out
}

/// The value shown, whichever exploration it belongs to.
fn shown<T>(ran: &Option<Ran<T>>) -> Option<&T> {
    ran.as_ref().and_then(|r| r.value.as_deref())
}

#[component]
pub fn Panes() -> impl IntoView {
    let ctx = ctx();
    let scroll = expect_context::<ScrollMemory>();
    let stale = move || ctx.current.with(|ex| ex.as_ref().is_some_and(|ex| !ex.ok));
    let notes = NodeRef::<leptos::html::Div>::new();
    render::while_visible(
        notes,
        || true,
        move || {
            let slow = ctx.slow.get().then(|| {
                let ms = ctx.timing.with(Timing::total);
                (ms, ctx.drawing_estimate_ms(ms))
            });
            let mut h = Html::default();
            h.raw("<ul class=\"notices\">");
            if stale() {
                h.raw("<li class=\"stale\">Showing the last good result: fix the problems on the left.</li>");
            }
            // While the verification and the timeline of a new exploration are computed, the
            // notices about the earlier ones stay: they come and go with a pause in typing
            // otherwise, and the panes below would jump each time.
            let said = ctx.good.with(|ex| {
                ctx.verification.with(|v| {
                    ctx.timeline
                        .with(|t| notices(ex.as_deref(), shown(v), shown(t), slow))
                })
            });
            for n in said {
                h.raw("<li>").text(&n).raw("</li>");
            }
            h.raw("</ul>");
            h.finish()
        },
    );
    let remember = move |ev: leptos::ev::Event| {
        if let Some(el) = dom::target_element(&ev) {
            let id = el.id();
            let pane = Pane::parse(id.trim_start_matches("pane-"));
            if let Some(pane) = pane.filter(|p| ctx.pane.get_untracked() == *p) {
                scroll.remember(pane, &el);
            }
        }
    };
    Effect::new(move |previous: Option<Pane>| {
        let pane = ctx.pane.get();
        if previous.is_some_and(|p| p != pane) {
            // The element under the pointer is gone from view: it no longer hovers anything.
            ctx.hover(None);
            // From now on (before the browser reports the shown pane's reset offsets as scrolls)
            // its remembered offsets are being put back: after it renders, and on the next frame.
            scroll.start_restoring(pane);
            request_animation_frame(move || {
                if let Some(selector) = ctx.reveal.try_update_value(|r| r.take()).flatten() {
                    scroll.stop_restoring();
                    dom::scroll_into_view(&selector);
                } else {
                    scroll.restore();
                }
            });
        }
        pane
    });
    let tab = move |pane: Pane, label: &'static str| {
        view! {
            <button class="tab" id=format!("tab-{}", pane.name()) class:active=move || ctx.shown(pane)
                on:click=move |_| ctx.st.update(|s| s.pane = pane)>{label}</button>
        }
    };
    // A verification or timeline still being computed for the program shown: its pane keeps the
    // earlier one, under a veil that after a moment dims it and says what is coming (style.css),
    // so that a wait of a few frames shows nothing but the update. The veil is a sibling of the
    // panes: a class on a pane would restyle all of its content, 10 000 rectangles in the chart
    // of a large loop (240 ms).
    let pending_note = move || {
        if ctx.preparing.get() {
            // A large text waits for the warm-up (warm.rs): a fraction of a second.
            return Some("Preparing the explorer…");
        }
        match ctx.pane.get() {
            Pane::Verification if ctx.pending(ctx.verification) => Some("Verifying…"),
            Pane::Timeline if ctx.pending(ctx.timeline) => Some("Simulating…"),
            _ => None,
        }
    };
    let pane_class = move |pane: Pane| {
        move || {
            if ctx.shown(pane) {
                "pane"
            } else {
                "pane hidden"
            }
        }
    };
    view! {
        <div node_ref=notes></div>
        <nav class="tabs">
            {PANES.iter().map(|(pane, label)| tab(*pane, label)).collect_view()}
        </nav>
        <div class="panes" class:dim=stale>
            <div class="pending" class:hidden=move || pending_note().is_none()>
                <span role="status">{move || pending_note().unwrap_or_default()}</span>
            </div>
            <div id="pane-program" class=pane_class(Pane::Program) on:scroll=remember><program::ProgramPane/></div>
            <div id="pane-verification" class=pane_class(Pane::Verification) on:scroll=remember><verification::VerificationPane/></div>
            <div id="pane-timeline" class=pane_class(Pane::Timeline) on:scroll=remember><timeline::TimelinePane/></div>
            <div id="pane-space" class=pane_class(Pane::Space) on:scroll=remember><space::SpacePane/></div>
            <div id="pane-code" class=pane_class(Pane::Code) on:scroll=remember><code::CodePane/></div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, Options};

    #[test]
    fn skipped_cut_short_and_slow_work_is_said_plainly() {
        let text = "B = alloc([1], scope=\"shared\")\nfor i in range(60000):\n    B[0] = A[i]\n    C[i] = B[0] + 1\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n";
        let ex = explore(text, &Options::default());
        let said = notices(
            Some(&ex),
            ex.verification.as_ref(),
            ex.timeline.as_ref(),
            Some((40.0, 0.0)),
        )
        .join("\n");
        assert!(said.contains("Recomputing took 40 ms"), "{said}");
        assert!(said.contains("Verification skipped"), "{said}");
        assert!(
            said.contains("The timeline simulates the first 25001 steps only")
                && said.contains("it draws steps 1–64, and the metrics cover the 25001."),
            "{said}"
        );
        let small = explore(stagecraft_link::presets::DEFAULT, &Options::default());
        let v = small.verification.as_ref();
        let t = small.timeline.as_ref();
        assert!(notices(Some(&small), v, t, None).is_empty());
        let drawn = notices(Some(&small), v, t, Some((12.0, 34.0))).join("\n");
        assert!(
            drawn.contains("took 12 ms and drawing its result about 34 ms more"),
            "{drawn}"
        );
    }
}
