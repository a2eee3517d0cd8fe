//! One position of a step-through as the page shows it (`StepFrame`): the machine picture drawn
//! as SVG with its caption, where the trace stands (which the other panes mark) and what the
//! controls need. The worker draws it, so the page holds neither the replay nor the drawing, and
//! the picture and the CLI's numbers cannot disagree.

use super::{SlotRef, SlotStatus, StepEvent, StepThrough, StepView};
use crate::html::Html;
use crate::ir::StmtId;
use crate::tir::Printed;
use serde::{Deserialize, Serialize};

/// The step-through at one position, drawn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepFrame {
    /// The position drawn (the one asked for, within the trace).
    pub position: usize,
    /// Steps in the trace: the last position.
    pub len: usize,
    /// The next wait or race stop after `position` (`StepThrough::next_wait`).
    pub next_wait: Option<usize>,
    /// The race stop's position, if the run races.
    pub race: Option<usize>,
    /// Where the trace stands, for the marks in the other panes; `None` before the first step.
    pub stepping: Option<Stepping>,
    /// The picture, its caption, the trace's notes and the line run, as markup (text escaped).
    pub markup: String,
}

/// Where the step-through stands: what the other panes mark.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stepping {
    pub stmt: Option<StmtId>,
    /// 0-based line of the printed program that was run.
    pub line: Option<usize>,
    /// The timeline step (from 1, as `timeline::Span::step`).
    pub step: u64,
    /// At a race stop: the line of the wait that should have covered it.
    pub wait_line: Option<usize>,
}

impl StepThrough {
    /// The frame at `position` (clamped to the trace); `printed` is the program that was run, whose
    /// line the frame quotes.
    pub fn frame(&self, position: usize, printed: Option<&Printed>) -> StepFrame {
        let view = self.view(position);
        let stepping = self.stepping(view.position);
        let mut markup = picture(self, &view);
        if let Some(l) = stepping.as_ref().and_then(|s| s.line) {
            if let Some(text) = printed.and_then(|p| p.text.lines().nth(l)) {
                line_html(&mut markup, l, text);
            }
        }
        StepFrame {
            position: view.position,
            len: self.steps.len(),
            next_wait: self.next_wait(view.position),
            race: self.race.as_ref().map(|r| r.position),
            stepping,
            markup,
        }
    }

    fn stepping(&self, position: usize) -> Option<Stepping> {
        let current = self.steps.get(position.checked_sub(1)?)?;
        let (stmt, line) = match &current.event {
            StepEvent::Exec { stmt, line, .. } => (Some(*stmt), *line),
            StepEvent::Wait { line, .. } => (None, *line),
            StepEvent::Commit { .. } | StepEvent::Complete { .. } => (None, None),
        };
        let wait_line = self
            .race
            .as_ref()
            .filter(|r| r.position == position)
            .and_then(|r| r.wait_line);
        Some(Stepping {
            stmt,
            line,
            step: current.step,
            wait_line,
        })
    }
}

/// Fill and legend text per slot status, in legend order.
const STATUSES: [(SlotStatus, &str, &str); 4] = [
    (SlotStatus::Empty, "#eeeeee", "empty"),
    (SlotStatus::InFlight, "#f5b041", "in flight"),
    (SlotStatus::Ready, "#82e0aa", "ready"),
    (SlotStatus::BeingRead, "#85c1e9", "being read"),
];

const SLOT_W: usize = 64;
const ROW_H: usize = 34;
const LEFT: usize = 120;

/// The picture and the caption (at a wait, core's caption is the head arithmetic).
fn picture(trace: &StepThrough, v: &StepView) -> String {
    let mut h = Html::with_capacity(4096);
    let widest = trace
        .rings
        .iter()
        .map(|r| r.slots as usize)
        .max()
        .unwrap_or(0);
    let stack = v
        .state
        .queues
        .iter()
        .map(|q| q.outstanding.len())
        .max()
        .unwrap_or(0)
        .max(1);
    // At the race stop: the slot both instances touch.
    let raced = trace.race.as_ref().filter(|_| v.race).and_then(|r| r.slot);
    let rings_h = ROW_H * trace.rings.len() + 30;
    let stacks_x = LEFT + widest * SLOT_W + 40;
    let width = stacks_x + 230 * v.state.queues.len().max(1);
    let height = (rings_h + 20).max(ROW_H * (stack + 2) + 10);
    h.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"machine\" font-family=\"sans-serif\" font-size=\"12\" width=\"")
        .num(width)
        .raw("\" height=\"")
        .num(height)
        .raw("\">");
    legend(&mut h);
    rings(&mut h, trace, v, raced);
    queues(&mut h, v, stacks_x, height);
    h.raw("</svg>");
    h.raw("<p id=\"caption\"")
        .raw(if v.race { " class=\"race\">" } else { ">" })
        .prose(&v.caption)
        .raw("</p>");
    for note in &trace.notes {
        h.raw("<p class=\"focus-note\">").prose(note).raw("</p>");
    }
    if let Some(l) = &trace.limit {
        h.raw("<p class=\"focus-note\">").prose(&l.note).raw("</p>");
    }
    h.finish()
}

/// The statuses' colours, above the rings.
fn legend(h: &mut Html) {
    for (k, (_, fill, name)) in STATUSES.iter().enumerate() {
        let x = k * 95;
        h.raw("<rect x=\"")
            .num(x)
            .raw("\" y=\"2\" width=\"12\" height=\"12\" stroke=\"#555\" fill=\"")
            .raw(fill)
            .raw("\"/><text x=\"")
            .num(x + 16)
            .raw("\" y=\"12\">")
            .raw(name)
            .raw("</text>");
    }
}

/// Every ring buffer as its row of slots, each labelled with the iteration whose data it holds and
/// coloured by its status; `raced` outlined.
fn rings(h: &mut Html, trace: &StepThrough, v: &StepView, raced: Option<SlotRef>) {
    for (ring, (r, slots)) in trace.rings.iter().zip(&v.state.rings).enumerate() {
        let y = 26 + ring * ROW_H;
        h.raw("<text x=\"0\" y=\"")
            .num(y + 18)
            .raw("\">")
            .text(&r.buffer)
            .raw("</text>");
        for (slot, s) in slots.iter().enumerate() {
            let at = SlotRef {
                ring,
                slot: slot as u32,
            };
            let status = s.status(v.reading.contains(&at));
            let (fill, name) = STATUSES
                .iter()
                .find(|(st, _, _)| *st == status)
                .map_or(("#fff", ""), |(_, f, n)| (*f, *n));
            let x = LEFT + slot * SLOT_W;
            let race = raced == Some(at);
            h.raw(if race {
                "<g class=\"slot race\" data-buffer=\""
            } else {
                "<g class=\"slot\" data-buffer=\""
            })
            .text(&r.buffer)
            .raw("\" data-slot=\"")
            .num(slot)
            .raw("\" data-status=\"")
            .raw(name)
            .raw("\"><title>")
            .text(&r.buffer)
            .raw(" slot ")
            .num(slot)
            .raw(": ")
            .raw(name)
            .raw(if race { ", the race is here" } else { "" })
            .raw("</title><rect x=\"")
            .num(x)
            .raw("\" y=\"")
            .num(y)
            .raw("\" width=\"")
            .num(SLOT_W - 4)
            .raw("\" height=\"")
            .num(ROW_H - 6)
            .raw(if race {
                "\" stroke=\"#d93f3f\" stroke-width=\"3\" fill=\""
            } else {
                "\" stroke=\"#555\" fill=\""
            })
            .raw(fill)
            .raw("\"/><text x=\"")
            .num(x + 6)
            .raw("\" y=\"")
            .num(y + 18)
            .raw("\">");
            match s.iteration {
                Some(i) => h.raw("it ").num(i),
                None => h.raw("—"),
            };
            h.raw("</text></g>");
        }
    }
}

/// Per queue, its heads and its groups in flight.
fn queues(h: &mut Html, v: &StepView, stacks_x: usize, height: usize) {
    // Per queue, its groups in flight stacked oldest at the bottom, under its heads.
    let bottom = height - 10;
    for (k, q) in v.state.queues.iter().enumerate() {
        let x = stacks_x + k * 230;
        h.raw("<g class=\"queue\" data-queue=\"")
            .num(q.queue)
            .raw("\"><text x=\"")
            .num(x)
            .raw("\" y=\"30\">queue ")
            .num(q.queue)
            .raw(": committed ")
            .num(q.committed)
            .raw(", completed ")
            .num(q.completed)
            .raw("</text><text x=\"")
            .num(x)
            .raw("\" y=\"46\" fill=\"#555\">groups in flight, oldest at the bottom</text>");
        for (depth, g) in q.outstanding.iter().enumerate() {
            let y = bottom - (depth + 1) * ROW_H;
            h.raw("<g class=\"group\" data-seq=\"")
                .num(g.seq)
                .raw("\"><rect x=\"")
                .num(x)
                .raw("\" y=\"")
                .num(y)
                .raw("\" width=\"130\" height=\"")
                .num(ROW_H - 6)
                .raw("\" stroke=\"#555\" fill=\"#f5b041\"/><text x=\"")
                .num(x + 6)
                .raw("\" y=\"")
                .num(y + 18)
                .raw("\">group ")
                .num(g.seq);
            let iterations: Vec<i64> = g.members.iter().filter_map(|(_, i)| *i).collect();
            if let (Some(a), Some(b)) = (iterations.iter().min(), iterations.iter().max()) {
                h.raw(" · it ").num(a);
                if a != b {
                    h.raw("–").num(b);
                }
            }
            h.raw("</text></g>");
        }
        h.raw("</g>");
    }
}

/// The line of the pipelined program a step ran (`l`, 0-based), as the program pane marks it.
fn line_html(out: &mut String, l: usize, text: &str) {
    let mut h = Html(std::mem::take(out));
    h.raw("<p id=\"step-line\" class=\"step-line\">Line ")
        .num(l + 1)
        .raw(" of the pipelined program (marked in its pane): <code>")
        .text(text.trim())
        .raw("</code></p>");
    *out = h.0;
}
