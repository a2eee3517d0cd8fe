//! What a selection points at in every pane, read from the exploration (a race names its statement,
//! the wait node that should have covered it and its timeline step; a wait verdict names its node),
//! and the one style sheet that highlights it all. Highlighting is a few CSS rules keyed by classes
//! that the panes write once per exploration (`st{stmt}`, `w{wait index}`, `wi{wait index}`), so a
//! hover or a click never rebuilds a pane.

use stagecraft::timeline::{Lane, Timeline};
use stagecraft::verify::Verification;
use std::fmt::Write;

/// What the user picked in the Verification pane, to be shown in the other panes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// A race, by its position in `Verification::races`.
    Race(usize),
    /// A wait node, by its pre-order index (`WaitVerdict::index`, `LineInfo::wait_index`).
    Wait(usize),
}

/// Where on the timeline a selection is.
#[derive(Clone, Debug, PartialEq)]
pub enum Point {
    /// Nothing to mark (nothing selected, or no timeline).
    Nothing,
    /// An instance drawn in the chart: its step and its span in cycles on a lane.
    At {
        step: u64,
        lane: Lane,
        start: u64,
        end: u64,
    },
    /// The instance ran at `step`, which the chart does not show (it shows steps `shown`, from 1).
    Outside { step: u64, shown: (u64, u64) },
    /// A wait that never stalls in the steps shown.
    NoStall,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Focus {
    pub stmt: Option<u32>,
    /// Pre-order index of the wait node to mark in the program.
    pub wait_index: Option<usize>,
    pub point: Point,
}

impl Focus {
    pub const NONE: Focus = Focus {
        stmt: None,
        wait_index: None,
        point: Point::Nothing,
    };
}

/// What `selection` points at, in the verification and the timeline of one program (either may be
/// missing: not computed yet).
pub fn focus(
    verification: Option<&Verification>,
    timeline: Option<&Timeline>,
    selection: Option<Selection>,
) -> Focus {
    let Some(selection) = selection else {
        return Focus::NONE;
    };
    match selection {
        Selection::Race(k) => {
            let Some(race) = verification.and_then(|v| v.races.get(k)) else {
                return Focus::NONE;
            };
            let point = match timeline {
                None => Point::Nothing,
                Some(t) => {
                    let of_step = |s: &&stagecraft::timeline::Span| s.step == race.step;
                    // The racing statement's own span in that step; else the step's first span.
                    let span = t
                        .spans
                        .iter()
                        .filter(of_step)
                        .find(|s| s.stmt == race.stmt && s.lane == Lane::Compute)
                        .or_else(|| t.spans.iter().find(of_step));
                    match span {
                        Some(s) => Point::At {
                            step: s.step,
                            lane: s.lane,
                            start: s.start,
                            end: s.end,
                        },
                        None => Point::Outside {
                            step: race.step,
                            shown: t.shown_steps(),
                        },
                    }
                }
            };
            Focus {
                stmt: Some(race.stmt),
                wait_index: race.wait.map(|w| w.index),
                point,
            }
        }
        Selection::Wait(index) => {
            let point =
                match timeline {
                    None => Point::Nothing,
                    Some(t) => t.stalls.iter().find(|s| s.wait_index == index).map_or(
                        Point::NoStall,
                        |s| Point::At {
                            step: s.step,
                            lane: Lane::Compute,
                            start: s.start,
                            end: s.end,
                        },
                    ),
                };
            Focus {
                stmt: None,
                wait_index: Some(index),
                point,
            }
        }
    }
}

/// Where the step-through stands (the worker's `StepFrame::stepping`, at the position the state
/// holds): what the other panes mark.
pub use stagecraft::steps::Stepping;

/// Where on the timeline the step-through stands: the statement's own span in its step, else the
/// step's first span.
pub fn stepping_point(timeline: &Timeline, s: &Stepping) -> Point {
    let of_step = |x: &&stagecraft::timeline::Span| x.step == s.step;
    let span = timeline
        .spans
        .iter()
        .filter(of_step)
        .find(|x| Some(x.stmt) == s.stmt && x.lane == Lane::Compute)
        .or_else(|| timeline.spans.iter().find(of_step));
    match span {
        Some(x) => Point::At {
            step: x.step,
            lane: x.lane,
            start: x.start,
            end: x.end,
        },
        None => Point::Outside {
            step: s.step,
            shown: timeline.shown_steps(),
        },
    }
}

/// The style that marks where the step-through stands: its line in the program, its statement in
/// the editor, its row of the iteration space; at a race, the wait that should have covered it.
pub fn stepping_css(s: &Stepping) -> String {
    let mut out = String::new();
    if let Some(l) = s.line {
        let _ = write!(
            out,
            "#program .line[data-l=\"{l}\"]{{background:#d6f5e0!important;box-shadow:inset 4px 0 #1e8449}}"
        );
    }
    if let Some(id) = s.stmt {
        let _ = write!(
            out,
            ".overlay .st{id}{{background:#d6f5e0!important;box-shadow:0 0 0 1px #1e8449}}"
        );
    }
    // The iteration space numbers its steps from 0, the timeline from 1.
    let _ = write!(
        out,
        "table.space tr[data-step=\"{}\"] td{{box-shadow:inset 0 2px #1e8449,inset 0 -2px #1e8449}}\
         svg.space-picture [data-step=\"{}\"]{{stroke:#1e8449;stroke-width:2}}",
        s.step.saturating_sub(1),
        s.step.saturating_sub(1)
    );
    if let Some(w) = s.wait_line {
        let _ = write!(
            out,
            "#program .line[data-l=\"{w}\"]{{background:#fde2e1!important;outline:2px solid #d93f3f;outline-offset:-1px}}"
        );
    }
    out
}

/// The palette: one hue per statement (ids modulo 10), the same in every pane (and in
/// assets/style.css). It starts at blue so that the first statements are not read as errors.
pub fn hue(stmt: u32) -> u32 {
    // The chart (core draws it) and the highlights must agree.
    stagecraft::gantt::hue(stmt)
}

/// The style sheet that shows the hovered statement and the selection everywhere.
pub fn css(hovered: Option<u32>, focus: &Focus, selection: Option<Selection>) -> String {
    let mut out = String::new();
    for (stmt, strong) in [(focus.stmt, true), (hovered, false)] {
        if let Some(id) = stmt {
            let _ = write!(
                out,
                ".st{id}{{background:hsla({},75%,62%,.45)!important;{}}}rect.st{id}{{stroke:#111;stroke-width:{}}}",
                hue(id),
                if strong {
                    "box-shadow:0 0 0 1px hsl(0,70%,45%)"
                } else {
                    "border-radius:3px"
                },
                if strong { 2 } else { 1 }
            );
        }
    }
    if let Some(w) = focus.wait_index {
        let _ = write!(
            out,
            ".w{w}{{background:#fde2e1!important;outline:2px solid #d93f3f;outline-offset:-1px}}\
             rect.wi{w}{{opacity:.6;stroke:#8b1d1d;stroke-width:1.5}}"
        );
    }
    match selection {
        Some(Selection::Race(k)) => {
            let _ = write!(out, "#race-{k}{{background:#fde2e1}}");
        }
        Some(Selection::Wait(w)) => {
            let _ = write!(out, "#wait-row-{w}{{background:#fde2e1}}");
        }
        None => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, Exploration, Options};
    use stagecraft::pipelined::Form;
    use std::path::Path;

    #[test]
    fn the_form_asked_for_is_shown_and_the_other_until_it_arrives() {
        let one_form = |form| Options {
            form,
            both_forms: false,
            ..Options::default()
        };
        let rolled = explore(stagecraft_link::presets::DEFAULT, &one_form(Form::Rolled));
        assert!(
            rolled.peeled.is_none(),
            "only the form asked for is printed"
        );
        assert_eq!(rolled.printed(false), rolled.rolled.as_ref());
        // Just switched to peeled: the rolled form stays until the peeled exploration arrives.
        assert_eq!(rolled.printed(true), rolled.rolled.as_ref());
        let peeled = explore(stagecraft_link::presets::DEFAULT, &one_form(Form::Peeled));
        assert_eq!(peeled.printed(true), peeled.peeled.as_ref());
        assert!(peeled.peeled.is_some());
    }

    fn root() -> &'static Path {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
    }

    /// Every schedule Stagecraft produces is race-free, so a race comes from a hand-written
    /// pipelined program (TVM's RFC (c) output), verified and simulated in place of the derived one.
    fn racy_exploration() -> Exploration {
        let read = |p: &str| std::fs::read_to_string(root().join(p)).expect("test input");
        let mut ex = explore(&read("examples/rfc_c_interleaved.py"), &Options::default());
        let original = ex.programs.as_ref().expect("programs").original.clone();
        let text = read("tests/pipelined/rfc_c_tvm_merged_prologue.py");
        let lowered = stagecraft::lower::lower(&stagecraft::parser::parse(&text).file);
        let racy = lowered.program;
        ex.verification = Some(stagecraft::verify::verify(
            &original,
            &racy,
            &Default::default(),
        ));
        ex.timeline = Some(stagecraft::timeline::simulate(
            &original,
            &racy,
            &Default::default(),
            &Default::default(),
            (0, 4),
        ));
        ex.rolled = Some(stagecraft::tir::print(&racy));
        ex
    }

    #[test]
    fn a_race_points_at_its_statement_wait_line_and_timeline_step() {
        let ex = racy_exploration();
        let races = &ex.verification.as_ref().expect("verified").races;
        let k = races
            .iter()
            .position(|r| r.step <= 4 && r.wait.is_some())
            .expect("a race in the first four steps");
        let f = focus(
            ex.verification.as_ref(),
            ex.timeline.as_ref(),
            Some(Selection::Race(k)),
        );
        let race = &races[k];
        assert_eq!(f.stmt, Some(race.stmt));
        let index = f.wait_index.expect("a wait should have covered it");
        let printed = ex.printed(false).expect("printed");
        let line = printed
            .lines
            .iter()
            .position(|l| l.wait_index == Some(index))
            .expect("the wait's line");
        assert!(printed
            .text
            .lines()
            .nth(line)
            .expect("line")
            .contains("async_wait_queue(0, 5)"));
        match f.point {
            Point::At { step, .. } => assert_eq!(step, race.step),
            other => panic!("{other:?}"),
        }
        let css = css(None, &f, Some(Selection::Race(k)));
        assert!(css.contains(&format!(".w{index}{{")), "{css}");
        assert!(css.contains(&format!(".st{}{{", race.stmt)), "{css}");
    }

    #[test]
    fn a_race_beyond_the_window_says_so() {
        let ex = racy_exploration();
        let races = &ex.verification.as_ref().expect("verified").races;
        let Some(k) = races.iter().position(|r| r.step > 4) else {
            panic!("the merged prologue races at steps 4 and 5: {races:?}");
        };
        assert_eq!(
            focus(
                ex.verification.as_ref(),
                ex.timeline.as_ref(),
                Some(Selection::Race(k))
            )
            .point,
            Point::Outside {
                step: races[k].step,
                shown: (1, 4)
            }
        );
    }

    #[test]
    fn a_wait_points_at_its_first_stall_or_says_it_never_stalls() {
        let ex = explore(
            &std::fs::read_to_string(root().join("examples/rfc_a_async_copy.py")).expect("input"),
            &Options::default(),
        );
        let waits = &ex.verification.as_ref().expect("verified").waits;
        let stalls = &ex.timeline.as_ref().expect("timeline").stalls;
        for w in waits {
            let f = focus(
                ex.verification.as_ref(),
                ex.timeline.as_ref(),
                Some(Selection::Wait(w.index)),
            );
            assert_eq!(f.wait_index, Some(w.index));
            match stalls.iter().find(|s| s.wait_index == w.index) {
                Some(s) => assert!(matches!(f.point, Point::At { step, .. } if step == s.step)),
                None => assert_eq!(f.point, Point::NoStall),
            }
        }
        assert_eq!(
            focus(
                ex.verification.as_ref(),
                ex.timeline.as_ref(),
                Some(Selection::Race(99))
            ),
            Focus::NONE
        );
    }
}
