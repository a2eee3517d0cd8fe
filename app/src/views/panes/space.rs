//! The iteration space: per step of the pipelined loop, which iteration each unit computes.

use super::contract::{self, PaneSpec};
use crate::ctx::ctx;
use crate::markup::html::Html;
use leptos::prelude::*;
use stagecraft::shape::IterationSpace;
use stagecraft_link::Pane;

pub fn space_html(sp: &IterationSpace) -> String {
    let mut h = Html::with_capacity(160 * sp.rows.len() * (sp.units.len() + 1) + 1024);
    // The picture, then the same numbers as a table (to read exactly, and for screen readers).
    h.raw(&stagecraft::space_picture::svg(sp));
    h.raw("<table class=\"space\"><tr><th>step</th>");
    for u in &sp.units {
        h.raw("<th>unit ")
            .num(u.unit)
            .raw(" (stage ")
            .num(u.stage)
            .raw(if u.is_async { ", async)" } else { ")" })
            .raw("</th>");
    }
    h.raw("</tr>");
    for r in &sp.rows {
        // The steps left out, [from, to), come before the first one shown after them (the
        // row was never written while it was looked for at `from`).
        if let Some((from, to)) = sp.elided.filter(|(_, to)| *to == r.step) {
            h.raw("<tr class=\"elided\"><td colspan=\"99\">… steps ")
                .num(from)
                .raw("–")
                .num(to - 1)
                .raw(" …</td></tr>");
        }
        h.raw("<tr class=\"sec-")
            .raw(r.section.name())
            .raw("\" data-step=\"")
            .num(r.step)
            .raw("\"><td>")
            .num(r.step)
            .raw("</td>");
        for (it, u) in r.iterations.iter().zip(&sp.units) {
            match it {
                Some(i) => h
                    .raw("<td class=\"cell stage")
                    .num(u.stage % 8)
                    .raw("\">")
                    .num(i)
                    .raw("</td>"),
                None => h.raw("<td class=\"cell idle\"></td>"),
            };
        }
        h.raw("</tr>");
    }
    h.raw("</table>");
    h.finish()
}

pub const PANE: PaneSpec = PaneSpec {
    pane: Pane::Space,
    label: "Iteration space",
    pending: contract::never_pending,
};

/// The pane's content, made once by the registry.
pub fn view() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    contract::render_while_shown(
        node,
        PANE.pane,
        move || {
            ctx.good
                .with(|ex| ex.as_deref()?.iteration_space.as_ref().map(space_html))
                .unwrap_or_default()
        },
    );
    view! { <div id="space" node_ref=node></div> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cell_per_unit_and_step() {
        let ex =
            stagecraft::explore::explore(stagecraft_link::presets::DEFAULT, &Default::default());
        let sp = ex.iteration_space.as_ref().expect("space");
        let html = space_html(sp);
        assert_eq!(
            html.matches("<td class=\"cell").count(),
            sp.rows.len() * sp.units.len()
        );
        assert!(html.starts_with("<svg class=\"space-picture\""));
    }

    #[test]
    fn a_long_loop_says_which_steps_are_left_out() {
        let text = stagecraft_link::presets::DEFAULT.replace("range(16)", "range(400)");
        let ex = stagecraft::explore::explore(&text, &Default::default());
        let sp = ex.iteration_space.as_ref().expect("space");
        let (from, to) = sp.elided.expect("steps left out");
        let said = format!("… steps {from}–{} …", to - 1);
        assert_eq!(space_html(sp).matches(&said).count(), 1, "{said}");
    }
}
