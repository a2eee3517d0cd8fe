//! The root component: where the state comes from, the services that keep it explored and saved,
//! and the page layout.

use crate::ctx::Ctx;
use crate::dom::after_drawing;
use crate::model::deferred::ran_for;
use crate::model::focus;
use crate::services::{documents, machine, recompute, warm};
use crate::views::scroll::ScrollMemory;
use crate::views::{editor, grid, header, lessons, panes, problems};
use leptos::prelude::*;

#[component]
pub fn App() -> impl IntoView {
    let opening = documents::load();
    let ctx = Ctx::new(opening.state.clone(), warm::waits);
    ctx.banner.set(opening.banner.clone());
    provide_context(ctx);
    provide_context(ScrollMemory::default());
    provide_context(documents::keep(ctx, opening));
    lessons::provide();
    // The page's first task mounts the header and the editor with the text, and the browser draws
    // them; the grid, the problems and the panes follow in a task of their own, then the first
    // exploration in the next frame. Instantiating the WebAssembly and mounting the whole page in
    // one task made a long one, and so did the first exploration in the frame that first lays the
    // page out.
    let (mounted, set_mounted) = signal(false);
    after_drawing(Box::new(move || set_mounted.set(true)));
    let scheduled = recompute::schedule_recomputes(ctx, mounted);
    machine::start(ctx);
    // In idle time after the first render, explorations that make V8 optimize exploring's code:
    // with the options the app would use now, yielding to any recomputation.
    warm::start(
        ctx,
        move || ctx.st.with_untracked(recompute::options),
        scheduled,
    );
    // A memo: the style sheet is rewritten (and the whole page restyled) only when it changes,
    // not each time a verification or a timeline arrives.
    let focus_css = Memo::new(move |_| {
        let selection = ctx.selection.get();
        // What a selection points at, in the verification and the timeline of the program shown
        // (a selection is cleared when the program changes, and made only in panes that show it).
        let f = match selection {
            None => focus::Focus::NONE,
            Some(_) => ctx.good.with(|g| {
                let Some(g) = g.as_ref() else {
                    return focus::Focus::NONE;
                };
                ctx.verification.with(|v| {
                    ctx.timeline
                        .with(|t| focus::focus(ran_for(v, g), ran_for(t, g), selection))
                })
            }),
        };
        focus::css(ctx.hovered.get(), &f, selection)
    });
    let banner = ctx.banner;
    view! {
        <style id="focus-style">{focus_css}</style>
        <div id="panic" class="hidden"></div>
        {move || banner.get().map(|b| view! {
            <div class="banner warn">{b}<button aria-label="Dismiss" title="Dismiss" on:click=move |_| banner.set(None)>"×"</button></div>
        })}
        <header::Header/>
        <main>
            <section class="left">
                <lessons::Panel/>
                <editor::Editor/>
                {move || mounted.get().then(|| view! { <grid::Grid/><problems::Problems/> })}
            </section>
            <section class="right">
                {move || mounted.get().then(|| view! { <panes::Panes/> })}
            </section>
        </main>
    }
}
