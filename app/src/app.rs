//! The root component: where the state comes from, the services that keep it explored and saved,
//! and the page layout.

use crate::ctx::Ctx;
use crate::dom::after_drawing;
use crate::model::deferred::ran_for;
use crate::model::focus;
use crate::services::{documents, exploring, searching};
use crate::views::scroll::ScrollMemory;
use crate::views::{editor, grid, header, lessons, panes, problems};
use leptos::prelude::*;

#[component]
pub fn App() -> impl IntoView {
    let opening = documents::load();
    let ctx = Ctx::new(opening.state.clone());
    ctx.banner.set(opening.banner.clone());
    provide_context(ctx);
    provide_context(ScrollMemory::default());
    provide_context(documents::keep(ctx, opening));
    lessons::provide();
    searching::provide();
    // The page is mounted in two parts, the browser drawing between them (`mount_in_parts`): the
    // header and the editor at once, the text editable in the first frame drawn; then the rest.
    // Once the panes are mounted, the core's worker is asked for the first exploration
    // (`exploring`).
    let (mounted, set_mounted) = signal(Mounted::Editor);
    mount_in_parts(set_mounted, Mounted::Editor);
    // A memo: the panes are built once, not again each time `mounted` is set.
    let panes_shown = Memo::new(move |_| mounted.get() >= Mounted::Panes);
    exploring::start(ctx, panes_shown);
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
        let mut css = focus::css(ctx.hovered.get(), &f, selection);
        if let Some(s) = ctx.stepping.get() {
            css.push_str(&focus::stepping_css(&s));
        }
        css
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
                <lessons::Panel/><editor::Editor/>
                {when_shown(panes_shown, || view! { <grid::Grid/><problems::Problems/> }.into_any())}
            </section>
            <section class="right">
                {when_shown(panes_shown, || view! { <panes::Panes/> }.into_any())}
            </section>
        </main>
    }
}

/// How much of the page is mounted, in the order its parts are.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mounted {
    /// The header, the lessons and the editor with the text: what a user reads and types into
    /// first.
    Editor,
    /// The grid, the problems and the panes.
    Panes,
}

impl Mounted {
    fn next(self) -> Option<Mounted> {
        match self {
            Mounted::Editor => Some(Mounted::Panes),
            Mounted::Panes => None,
        }
    }
}

/// Mounts the part after `mounted` once the browser has drawn, and so on, each in a task of its
/// own. A part's first build runs WebAssembly not yet compiled and is the first style and layout
/// of what it adds: reading the saved documents, making the context and mounting the whole page
/// in one task made a long one.
fn mount_in_parts(set_mounted: WriteSignal<Mounted>, mounted: Mounted) {
    if let Some(part) = mounted.next() {
        after_drawing(Box::new(move || {
            set_mounted.set(part);
            mount_in_parts(set_mounted, part);
        }));
    }
}

/// `part`, once `shown`. One closure type for every part: each type of reactive child costs its
/// own rendering code in the bundle.
fn when_shown(shown: Memo<bool>, part: fn() -> AnyView) -> impl Fn() -> Option<AnyView> {
    move || shown.get().then(part)
}
