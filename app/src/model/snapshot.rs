//! What the page shows of the core's work, in one value: the explorations the worker answered and
//! the parts that have arrived for each (`stagecraft::protocol`), every part kept with the
//! exploration it was computed from, so that a pane never pairs the races, waits or lines of one
//! program with another. `wants` says which parts the page needs for what it shows.

use crate::model::deferred::Ran;
use stagecraft::emit::Target;
use stagecraft::explore::{Exploration, Listing};
use stagecraft::pipelined::Form;
use stagecraft::protocol::{Answer, Part, Response, Want};
use stagecraft::search_picture::Comparison;
use stagecraft::steps::{StepFrame, StepOptions};
use stagecraft::sync::WaitWhy;
use stagecraft::timeline::Timeline;
use stagecraft::tvm::TvmView;
use stagecraft::verify::Verification;
use stagecraft_link::{CodeTarget, Pane, ProgramView, State};
use std::sync::Arc;

/// An exploration the worker answered: which request, the text it was made from, and its parts.
#[derive(Clone)]
pub struct Shown {
    pub id: u64,
    pub text: Arc<str>,
    pub exploration: Arc<Exploration>,
    /// The Pipelined program pane's view of its program, drawn by the worker.
    pub program: Arc<str>,
    pub parts: Parts,
}

/// The parts of one exploration that have arrived, each with what it was asked for with. The
/// outer `Option` of a part says whether it has arrived; the inner one (`None`) that the core had
/// nothing to compute (no program, a target it does not emit).
#[derive(Clone, Default)]
pub struct Parts {
    pub verification: Option<Option<Arc<Verification>>>,
    pub timeline: Option<Option<Arc<Timeline>>>,
    /// The Code pane's kernels, drawn by the worker; each again once checked on the machine.
    pub code: Vec<(Target, Option<Arc<Listing>>)>,
    pub machine: Vec<(Target, Option<Arc<String>>)>,
    /// The Pipelined program pane's views, drawn by the worker: the token form, TVM's program
    /// and a pasted program's check.
    pub tokens: Vec<(Form, Option<Arc<String>>)>,
    /// The step-through drawn at the position asked for (the newest asked).
    pub steps: Option<(StepOptions, usize, Arc<StepFrame>)>,
    pub tvm: Option<Arc<TvmView>>,
    pub check: Option<(String, Arc<String>)>,
    pub tvmscript: Option<Arc<Listing>>,
    pub whys: Option<Arc<Vec<WaitWhy>>>,
    /// The pinned text beside this exploration, drawn: the text pinned, the width asked for.
    pub compare: Option<(String, u32, Arc<Comparison>)>,
}

impl Parts {
    /// Whether `want` has been answered.
    pub fn has(&self, want: &Want) -> bool {
        match want {
            Want::Verification => self.verification.is_some(),
            Want::Timeline => self.timeline.is_some(),
            Want::Code { target } => self.code.iter().any(|(t, _)| t == target),
            Want::Machine { target } => self.machine.iter().any(|(t, _)| t == target),
            Want::Tokens { form } => self.tokens.iter().any(|(f, _)| f == form),
            Want::Steps { options, position } => self
                .steps
                .as_ref()
                .is_some_and(|(o, p, _)| o == options && p == position),
            Want::Tvm => self.tvm.is_some(),
            Want::Check { pipelined } => self.check.as_ref().is_some_and(|(p, _)| p == pipelined),
            Want::TvmScript => self.tvmscript.is_some(),
            Want::Whys => self.whys.is_some(),
            // Drawn at another width, it is still the comparison: a resize alone does not ask.
            Want::Compare { pinned, .. } => {
                self.compare.as_ref().is_some_and(|(p, _, _)| p == pinned)
            }
        }
    }

    fn set(&mut self, part: Part) {
        fn keyed<K: PartialEq, T>(list: &mut Vec<(K, Option<Arc<T>>)>, key: K, value: Option<T>) {
            list.retain(|(k, _)| *k != key);
            list.push((key, value.map(Arc::new)));
        }
        match part {
            Part::Verification { verification } => {
                self.verification = Some(verification.map(Arc::new))
            }
            Part::Timeline { timeline } => self.timeline = Some(timeline.map(Arc::new)),
            Part::Code { target, listing } => keyed(&mut self.code, target, listing),
            Part::Machine { target, markup } => keyed(&mut self.machine, target, markup),
            Part::Tokens { form, view } => keyed(&mut self.tokens, form, view),
            Part::Steps {
                options,
                position,
                frame,
            } => self.steps = Some((options, position, Arc::new(frame))),
            Part::Tvm { view } => self.tvm = Some(Arc::new(view)),
            Part::Check { pipelined, view } => self.check = Some((pipelined, Arc::new(view))),
            Part::TvmScript { listing } => self.tvmscript = Some(Arc::new(listing)),
            Part::Whys { whys } => self.whys = Some(Arc::new(whys)),
            Part::Compare {
                pinned,
                width,
                comparison,
            } => self.compare = Some((pinned, width, Arc::new(comparison))),
        }
    }
}

/// Everything shown of the core's work.
#[derive(Clone, Default)]
pub struct Snapshot {
    /// The newest exploration answered (it may have errors).
    pub current: Option<Shown>,
    /// The newest exploration with a program, when `current` has none: the panes show it and the
    /// problems list says the text has errors.
    pub good: Option<Shown>,
    /// The exploration with a program shown before the newest one: its verification and timeline
    /// stay on screen, veiled, until the newest one's arrive.
    pub previous: Option<Shown>,
}

/// What an answer did to the snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    Explored,
    Part,
    /// An answer to a request the page has moved on from, or one with nothing to show.
    Dropped,
}

impl Snapshot {
    /// The exploration with a program the panes show: the newest one, or the one before errors.
    pub fn good(&self) -> Option<&Shown> {
        self.current
            .as_ref()
            .filter(|c| c.exploration.ok)
            .or(self.good.as_ref())
    }

    /// Takes the worker's answer to request `response.id`, whose text was `text` (the page's
    /// newest request is `latest`; an exploration for any other is dropped, and a part is kept
    /// only for an exploration shown). The explorations no longer shown go into `retired`, for
    /// the caller to free once the frame that shows the new one is drawn: freeing an
    /// exploration, its verification and its timeline is thousands of deallocations.
    pub fn apply(
        &mut self,
        response: Response,
        latest: u64,
        text: &str,
        retired: &mut Vec<Shown>,
    ) -> Applied {
        let Response { id, answer } = response;
        match answer {
            Answer::Explored {
                exploration,
                program,
                ..
            } if id == latest => {
                let shown = Shown {
                    id,
                    text: Arc::from(text),
                    exploration: Arc::new(*exploration),
                    program: Arc::from(program),
                    parts: Parts::default(),
                };
                let previous_good = self.good().cloned();
                let mut replaced = Vec::new();
                if shown.exploration.ok {
                    if let Some(p) = previous_good {
                        replaced.push(self.previous.replace(p));
                    }
                    replaced.push(self.good.take());
                } else if let Some(p) = previous_good {
                    replaced.push(self.good.replace(p));
                }
                replaced.push(self.current.replace(shown));
                retired.extend(replaced.into_iter().flatten());
                Applied::Explored
            }
            Answer::Part { part, .. } => {
                let shown = [self.current.as_mut(), self.good.as_mut()]
                    .into_iter()
                    .flatten()
                    .find(|s| s.id == id);
                match shown {
                    Some(s) => {
                        s.parts.set(*part);
                        Applied::Part
                    }
                    None => Applied::Dropped,
                }
            }
            _ => Applied::Dropped,
        }
    }

    /// A part of the exploration the panes show (`pick`), or, until it arrives, the same part of
    /// the exploration shown before it, each with the exploration it belongs to.
    pub fn ran<T>(&self, pick: impl Fn(&Parts) -> Option<Option<Arc<T>>>) -> Option<Ran<T>> {
        [self.good(), self.previous.as_ref()]
            .into_iter()
            .flatten()
            .find_map(|s| {
                pick(&s.parts).map(|value| Ran {
                    of: s.exploration.clone(),
                    value,
                })
            })
    }

    /// The exploration whose parts `want` comes from, and whether `want` has arrived for it or
    /// is not to be asked for: the newest text's for what needs no program, else the panes'.
    pub fn owner(&self, want: &Want) -> Option<&Shown> {
        if want.needs_program() {
            self.good()
        } else {
            self.current.as_ref()
        }
    }
}

/// The parts the page needs for `state`, in the order it needs them: the shown pane's first;
/// `chart_px` is the width the panes draw their charts to.
pub fn wants(state: &State, chart_px: u32) -> Vec<Want> {
    let mut first = Vec::new();
    match state.pane {
        Pane::Timeline => first.push(Want::Timeline),
        Pane::Verification => first.push(Want::Verification),
        Pane::Code => match &state.target {
            CodeTarget::Machine(target) => first.extend([
                Want::Code { target: *target },
                Want::Machine { target: *target },
            ]),
            CodeTarget::TvmScript => first.push(Want::TvmScript),
            CodeTarget::Tir | CodeTarget::Unavailable(_) => {}
        },
        Pane::Steps => first.push(Want::Steps {
            options: StepOptions {
                model: state.completion,
                ..StepOptions::default()
            },
            position: usize::try_from(state.step).unwrap_or(usize::MAX),
        }),
        Pane::Program => match state.view {
            // The waits' "why", shown beside a wait line pointed at or focused.
            ProgramView::Stagecraft => first.push(Want::Whys),
            ProgramView::Tokens => first.push(Want::Tokens { form: state.form }),
            ProgramView::Tvm => first.push(Want::Tvm),
            ProgramView::Check if !state.pipelined.trim().is_empty() => first.push(Want::Check {
                pipelined: state.pipelined.clone(),
            }),
            ProgramView::Check => {}
        },
        Pane::Space | Pane::Search => {}
    }
    // A pinned schedule is compared with the current one in these panes.
    if let Some(pinned) = &state.pinned {
        if matches!(state.pane, Pane::Search | Pane::Program | Pane::Timeline) {
            first.push(Want::Compare {
                pinned: pinned.clone(),
                width: chart_px,
            });
        }
    }
    // The verification and the timeline are always wanted: the header, the lessons and the
    // notices read them whatever pane is shown.
    for w in [Want::Verification, Want::Timeline] {
        if !first.contains(&w) {
            first.push(w);
        }
    }
    first
}
