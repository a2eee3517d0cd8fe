//! The worker's side of the protocol (`protocol`): requests in, answers out, one unit of work at a
//! time so that the worker can read its messages between them. A newer exploration replaces
//! whatever older work is left; the parts of an exploration are computed in the order asked, a
//! part asked again moving ahead of the rest. The session keeps the newest exploration and the
//! newest one that produced a program (the page shows the latter's parts while the text has
//! errors), each with its own queue. Its answers are as the page is sent them
//! (`protocol::for_the_page`).

use crate::explore::{self, Exploration, Options};
use crate::protocol::{Answer, Job, Part, Request, Response, Want};
use crate::search_picture::{Comparison, SearchView};
use std::collections::VecDeque;

/// Answers requests. `clock` gives milliseconds (the worker's `performance.now()`, natively a
/// monotonic clock): each answer says how long its work took.
pub struct Session {
    clock: fn() -> f64,
    /// An exploration asked for and not begun: the newest only.
    asked: Option<Asked>,
    /// The newest exploration made.
    current: Option<Explored>,
    /// The newest exploration that produced a program, when it is not `current`.
    good: Option<Explored>,
    /// Whether the page has been told that every part asked for is answered.
    idle_said: bool,
    /// A search asked for and not begun.
    search_asked: Option<SearchAsked>,
    /// The search under way.
    searching: Option<Searching>,
    /// Previews asked for and not made, oldest first (at most `MAX_PREVIEWS_ASKED`).
    previews: VecDeque<PreviewAsked>,
    /// The text pinned for comparison, explored aside: kept while the page compares with it.
    pinned: Option<Pinned>,
}

/// A pinned text explored aside, with the options it was explored with.
struct Pinned {
    text: String,
    options: Options,
    exploration: Exploration,
}

/// Previews kept waiting: one asked beyond them drops the oldest (a row the pointer has left).
pub const MAX_PREVIEWS_ASKED: usize = 3;

struct PreviewAsked {
    id: u64,
    text: String,
    options: Box<Options>,
    width: u32,
}

/// Milliseconds of search between two looks at the messages (a slice: `Search::step` one
/// schedule at a time until it is over).
pub const SEARCH_SLICE_MS: f64 = 20.0;

struct SearchAsked {
    id: u64,
    text: String,
    options: Box<crate::search::SearchOptions>,
    scatter_px: u32,
    /// When it was asked for (the session's clock): the progress says the time since.
    at: f64,
}

struct Searching {
    id: u64,
    text: String,
    search: crate::search::Search,
    scatter_px: u32,
    at: f64,
}

struct Asked {
    id: u64,
    text: String,
    options: Box<Options>,
    wants: Vec<Want>,
}

/// An exploration made, and the parts still to compute for it.
struct Explored {
    id: u64,
    text: String,
    /// What it was explored with: a pinned text compared with it is explored alike.
    options: Box<Options>,
    exploration: Exploration,
    /// Its timeline once simulated (a part, or for a comparison).
    timeline: Option<Option<crate::timeline::Timeline>>,
    wants: VecDeque<Want>,
    /// The step-through last traced, kept while the page moves along it.
    steps: Option<(crate::steps::StepOptions, crate::steps::StepThrough)>,
}

impl Session {
    pub fn new(clock: fn() -> f64) -> Session {
        Session {
            clock,
            asked: None,
            current: None,
            good: None,
            idle_said: true,
            search_asked: None,
            searching: None,
            previews: VecDeque::new(),
            pinned: None,
        }
    }

    /// Takes a request: it is worked on by the calls to `work` that follow.
    pub fn receive(&mut self, request: Request) {
        let Request { id, job } = request;
        match job {
            Job::Explore {
                text,
                options,
                wants,
            } => {
                // An edit stops the search of the text before it.
                if let Some(s) = self.searching.as_mut().filter(|s| s.text != text) {
                    s.search.cancel();
                }
                self.asked = Some(Asked {
                    id,
                    text,
                    options,
                    wants,
                });
            }
            Job::Search {
                text,
                options,
                scatter_px,
            } => {
                if let Some(s) = self.searching.as_mut() {
                    s.search.cancel();
                }
                self.search_asked = Some(SearchAsked {
                    id,
                    text,
                    options,
                    scatter_px,
                    at: (self.clock)(),
                });
            }
            Job::CancelSearch => {
                self.search_asked = None;
                if let Some(s) = self.searching.as_mut() {
                    s.search.cancel();
                }
            }
            Job::More { wants } => {
                if let Some(a) = self.asked.as_mut().filter(|a| a.id == id) {
                    for w in wants.into_iter().rev() {
                        a.wants.retain(|x| !w.replaces(x));
                        a.wants.insert(0, w);
                    }
                } else if let Some(e) = self.explored_mut(id) {
                    for w in wants.into_iter().rev() {
                        e.wants.retain(|x| !w.replaces(x));
                        e.wants.push_front(w);
                    }
                }
                // Any other id is an exploration the page has moved on from.
            }
            Job::Preview {
                text,
                options,
                width,
            } => {
                self.previews.retain(|p| p.text != text);
                if self.previews.len() >= MAX_PREVIEWS_ASKED {
                    self.previews.pop_front();
                }
                self.previews.push_back(PreviewAsked {
                    id,
                    text,
                    options,
                    width,
                });
            }
            Job::Pause => {
                self.asked = None;
                for e in [self.current.as_mut(), self.good.as_mut()]
                    .into_iter()
                    .flatten()
                {
                    e.wants.clear();
                }
            }
            Job::Trap => {}
        }
        self.idle_said = false;
    }

    /// Whether `work` has anything to do.
    pub fn busy(&self) -> bool {
        !self.idle_said
            || self.search_asked.is_some()
            || self.searching.is_some()
            || !self.previews.is_empty()
    }

    /// The request and the work the next call to `work` does, for a report if it stops on a bug.
    pub fn doing(&self) -> Option<(u64, String)> {
        if let Some(a) = &self.asked {
            return Some((a.id, "the exploration".into()));
        }
        if let Some(s) = &self.search_asked {
            return Some((s.id, "the schedule search".into()));
        }
        if let Some(p) = self.previews.front() {
            return Some((p.id, "a preview".into()));
        }
        [self.current.as_ref(), self.good.as_ref()]
            .into_iter()
            .flatten()
            .find_map(|e| Some((e.id, e.wants.front()?.describe())))
    }

    /// One unit of work — an exploration, or one part — and its answer; once everything asked is
    /// answered, `Answer::Idle` once; then `None`.
    pub fn work(&mut self) -> Option<Response> {
        if let Some(asked) = self.asked.take() {
            return Some(self.explore(asked));
        }
        for which in [Which::Current, Which::Good] {
            let clock = self.clock;
            // The fields apart: a comparison also reads the pinned text's exploration.
            let explored = match which {
                Which::Current => self.current.as_mut(),
                Which::Good => self.good.as_mut(),
            };
            let Some(e) = explored else {
                continue;
            };
            let Some(want) = e.wants.pop_front() else {
                continue;
            };
            let t0 = clock();
            let part = compute(e, &mut self.pinned, want);
            let ms = clock() - t0;
            let mut response = Response {
                id: e.id,
                answer: Answer::Part {
                    part: Box::new(part),
                    ms,
                },
            };
            crate::protocol::for_the_page(&mut response);
            return Some(response);
        }
        if let Some(asked) = self.previews.pop_front() {
            return Some(self.preview(asked));
        }
        if let Some(response) = self.search_slice() {
            return Some(response);
        }
        if self.idle_said {
            return None;
        }
        self.idle_said = true;
        let id = self.current.as_ref().map_or(0, |e| e.id);
        Some(Response {
            id,
            answer: Answer::Idle,
        })
    }

    /// A search's next slice (begun first if it was only asked for), or its last answer once it
    /// stopped; `None` when no search is under way.
    fn search_slice(&mut self) -> Option<Response> {
        let clock = self.clock;
        let t0 = clock();
        if let Some(asked) = self.search_asked.take() {
            self.searching = None;
            let view = match crate::search::Search::new(&asked.text, &asked.options) {
                Ok(search) => {
                    let view = SearchView::of(
                        &search.report(),
                        clock() - asked.at,
                        f64::from(asked.scatter_px),
                    );
                    self.searching = Some(Searching {
                        id: asked.id,
                        text: asked.text,
                        search,
                        scatter_px: asked.scatter_px,
                        at: asked.at,
                    });
                    Ok(Box::new(view))
                }
                Err(why) => Err(why),
            };
            return Some(Response {
                id: asked.id,
                answer: Answer::Searching {
                    view,
                    ms: clock() - t0,
                },
            });
        }
        let s = self.searching.as_mut()?;
        while s.search.stop_reason().is_none() && clock() - t0 < SEARCH_SLICE_MS {
            s.search.step(1);
        }
        let view = SearchView::of(&s.search.report(), clock() - s.at, f64::from(s.scatter_px));
        let response = Response {
            id: s.id,
            answer: Answer::Searching {
                view: Ok(Box::new(view)),
                ms: clock() - t0,
            },
        };
        if s.search.stop_reason().is_some() {
            self.searching = None;
        }
        Some(response)
    }

    fn explore(&mut self, asked: Asked) -> Response {
        let Asked {
            id,
            text,
            options,
            wants,
        } = asked;
        let t0 = (self.clock)();
        let exploration = explore::explore(
            &text,
            &Options {
                defer_runs: true,
                ..(*options).clone()
            },
        );
        let ms = (self.clock)() - t0;
        let program = explore::program_pane_html(
            &exploration,
            options.form == crate::pipelined::Form::Peeled,
        );
        // What the page sees (`protocol::for_the_page`): the programs the parts are computed from
        // and the waits' derivation stay here, and the page lexes the text itself. What is not
        // sent is set aside before the rest is copied: for a large loop it is most of the copy.
        let mut exploration = exploration;
        let kept = (
            exploration.programs.take(),
            std::mem::take(&mut exploration.tokens),
            std::mem::take(&mut exploration.needs),
            std::mem::take(&mut exploration.waits),
        );
        let shown = Exploration {
            waits: kept
                .3
                .iter()
                .map(crate::protocol::site_for_the_page)
                .collect(),
            ..exploration.clone()
        };
        (
            exploration.programs,
            exploration.tokens,
            exploration.needs,
            exploration.waits,
        ) = kept;
        let ok = exploration.ok;
        let wants = wants
            .into_iter()
            .filter(|w| ok || !w.needs_program())
            .collect();
        let made = Explored {
            id,
            text,
            options,
            exploration,
            timeline: None,
            wants,
            steps: None,
        };
        if ok {
            self.good = None;
        } else if let Some(previous) = self.current.take().filter(|c| c.exploration.ok) {
            self.good = Some(previous);
        }
        let mut response = Response {
            id,
            answer: Answer::Explored {
                exploration: Box::new(shown),
                program,
                ms,
            },
        };
        self.current = Some(made);
        crate::protocol::for_the_page(&mut response);
        response
    }

    /// A text explored aside, drawn with its timeline and program.
    fn preview(&mut self, asked: PreviewAsked) -> Response {
        let PreviewAsked {
            id,
            text,
            options,
            width,
        } = asked;
        let t0 = (self.clock)();
        let exploration = explore_aside(&text, &options);
        let markup = crate::search_picture::preview_html(&exploration, f64::from(width));
        Response {
            id,
            answer: Answer::Previewed {
                text,
                markup,
                ms: (self.clock)() - t0,
            },
        }
    }

    fn explored_mut(&mut self, id: u64) -> Option<&mut Explored> {
        if self.current.as_ref().is_some_and(|e| e.id == id) {
            return self.current.as_mut();
        }
        self.good.as_mut().filter(|e| e.id == id)
    }
}

#[derive(Clone, Copy)]
enum Which {
    Current,
    Good,
}

/// `text` explored aside with its timeline and without the interpreter's runs, as `options` ask
/// otherwise (a preview, a pinned text).
fn explore_aside(text: &str, options: &Options) -> Exploration {
    explore::explore(
        text,
        &Options {
            verify: false,
            timeline: true,
            defer_runs: false,
            targets: Vec::new(),
            ..options.clone()
        },
    )
}

/// One part of `e`'s exploration; `pinned` is the pinned text explored aside, kept across
/// explorations for the comparisons.
fn compute(e: &mut Explored, pinned: &mut Option<Pinned>, want: Want) -> Part {
    let ex = &mut e.exploration;
    let params = ex
        .programs
        .as_ref()
        .map(|p| p.params.clone())
        .unwrap_or_default();
    match want {
        Want::Verification => Part::Verification {
            verification: explore::verification(ex),
        },
        Want::Timeline => {
            // Simulated already for a comparison asked first, or simulated now and kept for one.
            let timeline = e
                .timeline
                .get_or_insert_with(|| explore::timeline(ex))
                .clone();
            Part::Timeline { timeline }
        }
        Want::Code { target } => Part::Code {
            target,
            listing: emitted(ex, target).map(|c| explore::kernel_listing(&c)),
        },
        Want::Machine { target } => {
            let kernel = emitted(ex, target);
            let report =
                explore::machine_check(ex, target, crate::limits::MAX_MACHINE_INSTRUCTIONS);
            Part::Machine {
                target,
                markup: kernel
                    .zip(report)
                    .map(|(c, r)| explore::kernel_html(&c, Some(&r))),
            }
        }
        Want::Tokens { form } => {
            if form == crate::pipelined::Form::Peeled {
                explore::build_peeled(ex);
            }
            Part::Tokens {
                form,
                view: explore::tokens(ex, form).map(|t| crate::tokens::tokens_html(&t)),
            }
        }
        Want::Steps { options, position } => {
            let trace = match e.steps.take() {
                Some((o, trace)) if o == options => trace,
                _ => explore::step_through(ex, &options),
            };
            let frame = trace.frame(position, explore::traced_printed(ex));
            e.steps = Some((options.clone(), trace));
            Part::Steps {
                options,
                position,
                frame,
            }
        }
        Want::Tvm => {
            let options = crate::verify::VerifyOptions {
                params,
                ..Default::default()
            };
            let tvm = crate::tvm::explore_tvm(&e.text, true, &options);
            Part::Tvm {
                view: crate::tvm::tvm_view(&tvm, &e.text),
            }
        }
        Want::Check { pipelined } => {
            let check = explore::check_pipelined(&e.text, &pipelined, &params);
            Part::Check {
                view: explore::check_html(&check, &e.text, &pipelined),
                pipelined,
            }
        }
        Want::TvmScript => Part::TvmScript {
            listing: explore::tvmscript_listing(&crate::tvmscript::export(&e.text)),
        },
        Want::Compare {
            pinned: text,
            width,
        } => {
            // The pinned text explored as this exploration was, but for the wait counts moved
            // by hand, which are of this text's own schedule.
            let options = Options {
                count_overrides: Vec::new(),
                ..(*e.options).clone()
            };
            let kept = pinned
                .as_ref()
                .is_some_and(|p| p.text == text && p.options == options);
            if !kept {
                *pinned = Some(Pinned {
                    exploration: explore_aside(&text, &options),
                    text: text.clone(),
                    options,
                });
            }
            let timeline = e.timeline.get_or_insert_with(|| explore::timeline(ex));
            let comparison = match (pinned.as_ref(), timeline.as_ref()) {
                (Some(p), Some(t)) => Comparison::of(&p.exploration, ex, t, f64::from(width)),
                _ => Comparison {
                    metrics: "<p class=\"error\">This schedule has no timeline to compare.</p>"
                        .into(),
                    ..Comparison::default()
                },
            };
            Part::Compare {
                pinned: text,
                width,
                comparison,
            }
        }
        Want::Whys => Part::Whys {
            whys: ex
                .waits
                .iter()
                .map(|site| crate::sync::WaitWhy {
                    site: site.id,
                    text: site.why(),
                })
                .collect(),
        },
    }
}

/// The kernel for `target`, kept in the exploration (where the machine-level check finds it):
/// emitted once.
fn emitted(ex: &mut Exploration, target: crate::emit::Target) -> Option<crate::emit::Emitted> {
    if let Some(done) = ex.code.iter().find(|c| c.target == target.name()) {
        return Some(done.clone());
    }
    let emitted = explore::code(ex, target)?;
    ex.code.push(emitted.clone());
    Some(emitted)
}
