//! The worker's session (`session::Session`) driven as the page drives it, every answer passed
//! through the protocol's JSON both ways: each part equals what the core's functions compute
//! directly, a newer exploration drops older work, a part asked again comes first, and the parts of
//! the last program stay available while the text has errors.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::emit::Target;
use stagecraft::explore::{self, Exploration, Options};
use stagecraft::pipelined::Form;
use stagecraft::protocol::{
    decode_request, decode_response, encode_request, encode_response, Answer, Job, Part, Request,
    Response, Want,
};
use stagecraft::search_picture::{Comparison, SearchView};
use stagecraft::session::Session;
use stagecraft::steps::{StepFrame, StepOptions};
use std::time::Instant;

fn clock() -> f64 {
    thread_local!(static T0: Instant = Instant::now());
    T0.with(|t| t.elapsed().as_secs_f64() * 1e3)
}

/// Sends `request` as the page does: through its bytes.
fn send(session: &mut Session, request: Request) {
    let bytes = encode_request(&request);
    session.receive(decode_request(&bytes).unwrap());
}

/// Every answer until the session is idle, each read back from its bytes.
fn answers(session: &mut Session) -> Vec<Response> {
    let mut out = Vec::new();
    while let Some(r) = session.work() {
        let bytes = encode_response(&r);
        assert_eq!(stagecraft::protocol::response_id(&bytes), Some(r.id));
        let read = decode_response(&bytes)
            .unwrap_or_else(|e| panic!("{e}\n{:.400}", String::from_utf8_lossy(&bytes)));
        if read != r {
            let (a, b) = (format!("{r:?}"), format!("{read:?}"));
            let at = a
                .bytes()
                .zip(b.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            let from = at.saturating_sub(300);
            panic!(
                "an answer reads back otherwise than it was sent, from byte {at}:\n  sent {}\n  read {}",
                &a[from..(at + 200).min(a.len())],
                &b[from..(at + 200).min(b.len())]
            );
        }
        out.push(read);
    }
    out
}

fn explore_job(text: &str, wants: Vec<Want>) -> Job {
    Job::Explore {
        text: text.to_string(),
        options: Box::new(Options {
            both_forms: false,
            targets: Vec::new(),
            ..Options::default()
        }),
        wants,
    }
}

fn example(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn every_want(pipelined: &str, pinned: &str) -> Vec<Want> {
    let mut wants = vec![Want::Verification, Want::Timeline];
    for target in Target::ALL {
        wants.push(Want::Code { target });
    }
    wants.extend([
        Want::Machine {
            target: Target::Ptx,
        },
        Want::Tokens { form: Form::Rolled },
        Want::Tokens { form: Form::Peeled },
        Want::Steps {
            options: StepOptions::default(),
            position: 3,
        },
        Want::Tvm,
        Want::Check {
            pipelined: pipelined.to_string(),
        },
        Want::TvmScript,
        Want::Whys,
        Want::Compare {
            pinned: pinned.to_string(),
            width: 700,
        },
    ]);
    wants
}

/// `text` explored aside as the worker explores a preview or a pinned text (`explore_job`'s
/// options, with its timeline and without the interpreter's runs).
fn aside(text: &str) -> Exploration {
    explore::explore(
        text,
        &Options {
            both_forms: false,
            verify: false,
            targets: Vec::new(),
            ..Options::default()
        },
    )
}

/// What exploring directly gives, with everything the parts are computed from.
fn direct(text: &str) -> Exploration {
    explore::explore(
        text,
        &Options {
            both_forms: false,
            targets: Vec::new(),
            defer_runs: true,
            ..Options::default()
        },
    )
}

#[test]
fn every_part_of_every_example_is_what_the_core_computes_directly() {
    let dir = format!("{}/../examples", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".py"))
        .collect();
    names.sort();
    assert!(names.len() >= 7);
    for name in names {
        let text = example(&name);
        let mut d = direct(&text);
        let ours = d.rolled.as_ref().unwrap().text.clone();
        let mut session = Session::new(clock);
        let wants = every_want(&ours, &text);
        send(
            &mut session,
            Request {
                id: 7,
                job: explore_job(&text, wants.clone()),
            },
        );
        let got = answers(&mut session);
        assert!(got.iter().all(|r| r.id == 7), "{name}");
        assert_eq!(
            got.len(),
            1 + wants.len() + 1,
            "{name}: explored, every part, idle"
        );
        let Answer::Explored {
            exploration,
            program,
            ..
        } = &got[0].answer
        else {
            panic!("{name}: the exploration comes first");
        };
        // The program pane's view comes drawn, of the program in the form asked.
        assert_eq!(
            *program,
            stagecraft::explore::program_pane_html(&d, false),
            "{name}"
        );
        // As the page is sent it: the waits' derivation stays in the worker.
        let mut expected = Response {
            id: 7,
            answer: Answer::Explored {
                exploration: Box::new(d.clone()),
                program: String::new(),
                ms: 0.0,
            },
        };
        stagecraft::protocol::for_the_page(&mut expected);
        let Answer::Explored {
            exploration: expected,
            ..
        } = expected.answer
        else {
            unreachable!()
        };
        assert_eq!(**exploration, *expected, "{name}");
        assert!(exploration.needs.is_empty(), "{name}");
        assert!(
            exploration.waits.iter().all(|w| w.instances.is_empty()),
            "{name}"
        );
        assert_eq!(got.last().unwrap().answer, Answer::Idle);
        let params = d.programs.as_ref().unwrap().params.clone();
        for (want, response) in wants.iter().zip(&got[1..]) {
            let Answer::Part { part, .. } = &response.answer else {
                panic!("{name}: {want:?} answered with {:?}", response.answer);
            };
            let expected = match want {
                Want::Verification => Part::Verification {
                    verification: explore::verification(&d),
                },
                Want::Timeline => Part::Timeline {
                    timeline: explore::timeline(&d),
                },
                Want::Code { target } => Part::Code {
                    target: *target,
                    listing: explore::code(&mut d, *target).map(|c| explore::kernel_listing(&c)),
                },
                Want::Machine { target } => {
                    let mut emitting = direct(&text);
                    let emitted = explore::code(&mut emitting, *target).unwrap();
                    emitting.code.push(emitted.clone());
                    let report = explore::machine_check(
                        &emitting,
                        *target,
                        stagecraft::limits::MAX_MACHINE_INSTRUCTIONS,
                    );
                    Part::Machine {
                        target: *target,
                        markup: report.map(|r| explore::kernel_html(&emitted, Some(&r))),
                    }
                }
                Want::Tokens { form } => {
                    explore::build_peeled(&mut d);
                    Part::Tokens {
                        form: *form,
                        view: explore::tokens(&d, *form)
                            .map(|t| stagecraft::tokens::tokens_html(&t)),
                    }
                }
                Want::Steps { options, position } => Part::Steps {
                    options: options.clone(),
                    position: *position,
                    frame: explore::step_through(&d, options)
                        .frame(*position, explore::traced_printed(&d)),
                },
                Want::Tvm => Part::Tvm {
                    view: stagecraft::tvm::tvm_view(
                        &stagecraft::tvm::explore_tvm(
                            &text,
                            true,
                            &stagecraft::verify::VerifyOptions {
                                params: params.clone(),
                                ..Default::default()
                            },
                        ),
                        &text,
                    ),
                },
                Want::Check { pipelined } => Part::Check {
                    pipelined: pipelined.clone(),
                    view: explore::check_html(
                        &explore::check_pipelined(&text, pipelined, &params),
                        &text,
                        pipelined,
                    ),
                },
                Want::TvmScript => Part::TvmScript {
                    listing: explore::tvmscript_listing(&stagecraft::tvmscript::export(&text)),
                },
                Want::Compare { pinned, width } => Part::Compare {
                    pinned: pinned.clone(),
                    width: *width,
                    comparison: Comparison::of(
                        &aside(pinned),
                        &d,
                        &explore::timeline(&d).unwrap(),
                        f64::from(*width),
                    ),
                },
                Want::Whys => Part::Whys {
                    whys: d
                        .waits
                        .iter()
                        .map(|w| stagecraft::sync::WaitWhy {
                            site: w.id,
                            text: w.why(),
                        })
                        .collect(),
                },
            };
            // As the page is sent it (`protocol::for_the_page`).
            let mut expected = Response {
                id: 7,
                answer: Answer::Part {
                    part: Box::new(expected),
                    ms: 0.0,
                },
            };
            stagecraft::protocol::for_the_page(&mut expected);
            let Answer::Part { part: expected, .. } = expected.answer else {
                unreachable!()
            };
            assert_eq!(**part, *expected, "{name}: {want:?}");
        }
        // Checking Stagecraft's own program finds it equivalent.
        let check = got.iter().find_map(|r| match &r.answer {
            Answer::Part { part, .. } => match &**part {
                Part::Check { view, .. } => Some(view.clone()),
                _ => None,
            },
            _ => None,
        });
        let check = check.unwrap();
        assert!(
            check.contains("id=\"check-verdict\" class=\"verdict equivalent\""),
            "{name}: {check}"
        );
    }
}

#[test]
fn a_newer_exploration_drops_the_older_ones_work() {
    let mut session = Session::new(clock);
    let a = example("rfc_a_async_copy.py");
    let c = example("rfc_c_interleaved.py");
    send(
        &mut session,
        Request {
            id: 1,
            job: explore_job(&a, vec![Want::Verification, Want::Timeline]),
        },
    );
    let first = session.work().unwrap();
    assert!(matches!(first.answer, Answer::Explored { .. }) && first.id == 1);
    // The page asks for another text before the first one's parts are done.
    send(
        &mut session,
        Request {
            id: 2,
            job: explore_job(&c, vec![Want::Timeline]),
        },
    );
    let rest = answers(&mut session);
    assert!(rest.iter().all(|r| r.id == 2), "{rest:?}");
    assert_eq!(rest.len(), 3);
    assert!(matches!(rest[0].answer, Answer::Explored { .. }));
    assert!(matches!(
        &rest[1].answer,
        Answer::Part { part, .. } if matches!(**part, Part::Timeline { .. })
    ));
    // Nothing left: the session says so once, then has nothing to do.
    assert!(session.work().is_none() && !session.busy());
}

#[test]
fn a_part_asked_again_comes_before_the_others() {
    let mut session = Session::new(clock);
    let a = example("rfc_a_async_copy.py");
    send(
        &mut session,
        Request {
            id: 3,
            job: explore_job(&a, vec![Want::Verification, Want::Timeline, Want::Tvm]),
        },
    );
    assert!(matches!(
        session.work().unwrap().answer,
        Answer::Explored { .. }
    ));
    assert_eq!(session.doing(), Some((3, "the verification".into())));
    send(
        &mut session,
        Request {
            id: 3,
            job: Job::More {
                wants: vec![Want::Tvm],
            },
        },
    );
    // An older id asks for nothing any more.
    send(
        &mut session,
        Request {
            id: 2,
            job: Job::More {
                wants: vec![Want::TvmScript],
            },
        },
    );
    let kinds: Vec<String> = answers(&mut session)
        .into_iter()
        .map(|r| match r.answer {
            Answer::Part { part, .. } => format!("{:?}", *part)
                .split(' ')
                .next()
                .unwrap()
                .to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["Tvm", "Verification", "Timeline", "Idle"]);
}

#[test]
fn moving_along_the_step_through_answers_the_newest_position_from_the_trace_kept() {
    let mut session = Session::new(clock);
    let a = example("rfc_a_async_copy.py");
    let at = |position| Want::Steps {
        options: StepOptions::default(),
        position,
    };
    send(
        &mut session,
        Request {
            id: 4,
            job: explore_job(&a, vec![at(0)]),
        },
    );
    let first = answers(&mut session);
    // Positions asked one after another while one is queued: only the newest is drawn.
    for position in [1, 2, 5] {
        send(
            &mut session,
            Request {
                id: 4,
                job: Job::More {
                    wants: vec![at(position)],
                },
            },
        );
    }
    let moved = answers(&mut session);
    let frames: Vec<(usize, StepFrame)> = first
        .into_iter()
        .chain(moved)
        .filter_map(|r| match r.answer {
            Answer::Part { part, .. } => match *part {
                Part::Steps {
                    position, frame, ..
                } => Some((position, frame)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        frames.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        [0, 5],
        "position 0 with the exploration, then only the newest of 1, 2, 5"
    );
    // Each frame is the trace's own, drawn at its position.
    let direct = direct(&a);
    let trace = explore::step_through(&direct, &StepOptions::default());
    for (position, frame) in &frames {
        assert_eq!(
            *frame,
            trace.frame(*position, explore::traced_printed(&direct))
        );
        assert_eq!(frame.len, trace.steps.len());
    }
    // Beyond the trace, the last position is drawn.
    send(
        &mut session,
        Request {
            id: 4,
            job: Job::More {
                wants: vec![at(usize::MAX)],
            },
        },
    );
    let last = answers(&mut session)
        .into_iter()
        .find_map(|r| match r.answer {
            Answer::Part { part, .. } => match *part {
                Part::Steps { frame, .. } => Some(frame),
                _ => None,
            },
            _ => None,
        });
    assert_eq!(last.map(|f| f.position), Some(trace.steps.len()));
}

#[test]
fn while_the_text_has_errors_the_last_program_keeps_its_parts() {
    let mut session = Session::new(clock);
    let a = example("rfc_a_async_copy.py");
    send(
        &mut session,
        Request {
            id: 1,
            job: explore_job(&a, vec![]),
        },
    );
    answers(&mut session);
    let broken = a.replace("range(16)", "range(16");
    send(
        &mut session,
        Request {
            id: 2,
            job: explore_job(&broken, vec![Want::Verification, Want::TvmScript]),
        },
    );
    let got = answers(&mut session);
    let Answer::Explored { exploration, .. } = &got[0].answer else {
        panic!()
    };
    assert!(!exploration.ok);
    // Only what the text alone gives: the export says why there is none.
    assert!(matches!(
        &got[1].answer,
        Answer::Part { part, .. } if matches!(&**part, Part::TvmScript { listing } if listing.text.is_none() && listing.markup.contains("fix line"))
    ));
    assert_eq!(got.len(), 3);
    // The program shown meanwhile (request 1's) still gets its parts.
    send(
        &mut session,
        Request {
            id: 1,
            job: Job::More {
                wants: vec![Want::Timeline],
            },
        },
    );
    let more = answers(&mut session);
    assert_eq!(more[0].id, 1);
    assert!(matches!(
        &more[0].answer,
        Answer::Part { part, .. } if matches!(&**part, Part::Timeline { timeline: Some(_) })
    ));
}

#[test]
fn a_request_that_cannot_be_read_is_an_error_not_a_panic() {
    let request = Request {
        id: 300,
        job: Job::Explore {
            text: "for i in range(4):\n    A[i] = 1\n".into(),
            options: Box::default(),
            wants: vec![Want::Verification, Want::Timeline],
        },
    };
    let bytes = encode_request(&request);
    assert_eq!(decode_request(&bytes), Ok(request));
    // Every prefix of a request is cut short; a byte more is not the request either.
    for n in 0..bytes.len() {
        assert!(decode_request(&bytes[..n]).is_err(), "{n} bytes");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(decode_request(&longer).is_err());
    // A job the worker does not know, and a text that is not UTF-8.
    assert!(decode_request(&[1, 99]).is_err());
    assert!(decode_request(&[1, 0, 2, 0xff, 0xfe]).is_err());
    for bad in ["{", "{\"id\": 1, \"job\": {\"job\": \"dance\"}}", "[]"] {
        assert!(decode_request(bad.as_bytes()).is_err(), "{bad}");
    }
}

fn search_job(text: &str) -> Job {
    Job::Search {
        text: text.to_string(),
        options: Box::default(),
        scatter_px: 560,
    }
}

/// The search's answers among `answers`: its views in order.
fn search_views(answers: &[Response], id: u64) -> Vec<SearchView> {
    answers
        .iter()
        .filter(|r| r.id == id)
        .filter_map(|r| match &r.answer {
            Answer::Searching { view, .. } => Some(*view.clone().unwrap()),
            _ => None,
        })
        .collect()
}

/// The number in `markup` after the first `attribute="`.
fn attribute(markup: &str, attribute: &str) -> Option<u64> {
    let from = markup.find(&format!("{attribute}=\""))? + attribute.len() + 2;
    let digits: String = markup[from..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[test]
fn a_search_streams_its_front_in_slices_to_the_same_end_as_a_search_run_at_once() {
    let text = example("cutlass_multistage.py");
    let mut session = Session::new(clock);
    send(
        &mut session,
        Request {
            id: 7,
            job: search_job(&text),
        },
    );
    let all = answers(&mut session);
    let reports = search_views(&all, 7);
    assert!(reports.len() > 2, "{} answers", reports.len());
    assert!(reports[..reports.len() - 1]
        .iter()
        .all(|r| r.stop.is_none()));
    let tried: Vec<u64> = reports.iter().map(|r| r.tried).collect();
    assert!(tried.windows(2).all(|w| w[0] <= w[1]), "{tried:?}");
    let last = reports.last().unwrap();
    assert_eq!(last.stop, Some(stagecraft::search::StopReason::Exhausted));
    // The page's bar: stage vectors walked, never back, all at the end.
    let progress: Vec<(u64, u64)> = reports
        .iter()
        .map(|r| {
            (
                attribute(&r.progress, "value").unwrap(),
                attribute(&r.progress, "max").unwrap(),
            )
        })
        .collect();
    assert!(
        progress
            .windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].1 == w[1].1),
        "{progress:?}"
    );
    assert!(progress[0].0 < progress[0].1, "{progress:?}");
    assert_eq!(progress.last().unwrap().0, progress.last().unwrap().1);
    let mut direct = stagecraft::search::Search::new(&text, &Default::default()).unwrap();
    direct.run();
    let front = direct.report().front;
    let schedules: Vec<_> = front.iter().map(|s| s.annotations.clone()).collect();
    assert_eq!(last.front, schedules);
    // A point and a row per schedule of the front, each with its cycles, and the loop's own.
    assert_eq!(
        last.scatter
            .matches("<circle class=\"front-point\"")
            .count(),
        front.len()
    );
    assert_eq!(last.scatter.matches("class=\"own-point\"").count(), 1);
    assert_eq!(
        last.table.matches("<tr class=\"front-row\"").count(),
        front.len()
    );
    for (k, s) in front.iter().enumerate() {
        let row = format!("id=\"front-row-{k}\" tabindex=\"");
        let at = last.table.find(&row).unwrap();
        assert!(
            last.table[at..].contains(&format!("<td>{}</td><td>{}</td>", k + 1, s.total_cycles)),
            "row {k}"
        );
    }
    assert!(last
        .progress
        .contains("every schedule of the space was tried"));
    assert!(matches!(all.last().unwrap().answer, Answer::Idle));
}

#[test]
fn an_edit_or_a_cancel_stops_the_search() {
    let text = example("cutlass_multistage.py");
    for stop in ["edit", "cancel"] {
        let mut session = Session::new(clock);
        send(
            &mut session,
            Request {
                id: 1,
                job: search_job(&text),
            },
        );
        // Begun, and one slice.
        session.work().unwrap();
        session.work().unwrap();
        let job = if stop == "edit" {
            explore_job(&format!("{text}\n"), Vec::new())
        } else {
            Job::CancelSearch
        };
        send(&mut session, Request { id: 2, job });
        let all = answers(&mut session);
        let reports = search_views(&all, 1);
        assert_eq!(reports.len(), 1, "{stop}: one last answer");
        assert_eq!(
            reports[0].stop,
            Some(stagecraft::search::StopReason::Cancelled),
            "{stop}"
        );
        assert!(!session.busy());
    }
}

#[test]
fn a_text_that_cannot_be_searched_says_why() {
    let mut session = Session::new(clock);
    send(
        &mut session,
        Request {
            id: 3,
            job: search_job("x = 1\n"),
        },
    );
    let all = answers(&mut session);
    let why = all
        .iter()
        .find_map(|r| match &r.answer {
            Answer::Searching { view: Err(why), .. } => Some(why.clone()),
            _ => None,
        })
        .unwrap();
    assert!(why.contains("loop"), "{why}");
}

fn preview_job(text: &str) -> Job {
    Job::Preview {
        text: text.to_string(),
        options: Box::new(Options {
            both_forms: false,
            ..Options::default()
        }),
        width: 700,
    }
}

#[test]
fn a_preview_is_explored_aside_while_the_search_and_the_exploration_go_on() {
    let text = example("cutlass_multistage.py");
    let mut session = Session::new(clock);
    send(
        &mut session,
        Request {
            id: 1,
            job: explore_job(&text, vec![Want::Timeline]),
        },
    );
    send(
        &mut session,
        Request {
            id: 2,
            job: search_job(&text),
        },
    );
    session.work().unwrap();
    // A front member previewed while the search runs: the search goes on to its end and the
    // exploration shown keeps its parts.
    let mut search = stagecraft::search::Search::new(&text, &Default::default()).unwrap();
    search.run();
    let other = search.apply(0).unwrap();
    send(
        &mut session,
        Request {
            id: 3,
            job: preview_job(&other),
        },
    );
    send(
        &mut session,
        Request {
            id: 1,
            job: Job::More {
                wants: vec![Want::Verification],
            },
        },
    );
    let all = answers(&mut session);
    let previewed = all
        .iter()
        .find_map(|r| match &r.answer {
            Answer::Previewed { text, markup, .. } if r.id == 3 => {
                Some((text.clone(), markup.clone()))
            }
            _ => None,
        })
        .expect("the preview's answer");
    assert_eq!(previewed.0, other);
    let direct = explore::explore(
        &other,
        &Options {
            both_forms: false,
            verify: false,
            targets: Vec::new(),
            ..Options::default()
        },
    );
    assert_eq!(
        previewed.1,
        stagecraft::search_picture::preview_html(&direct, 700.0)
    );
    let cycles = direct.timeline.as_ref().unwrap().metrics.total_cycles;
    assert_eq!(
        cycles,
        search.report().front[0].total_cycles,
        "the preview's cycles are those the search reported"
    );
    assert!(previewed.1.contains(&format!("<p>{cycles} cycles, ")));
    // Its program, escaped (a guard's `<` is text).
    let mut program = String::new();
    stagecraft::html::escape_into(&mut program, &direct.rolled.as_ref().unwrap().text);
    assert!(previewed.1.contains(&program));
    assert!(all
        .iter()
        .any(|r| r.id == 1 && matches!(&r.answer, Answer::Part { part, .. } if matches!(**part, Part::Verification { .. }))));
    let reports = search_views(&all, 2);
    assert_eq!(
        reports.last().unwrap().stop,
        Some(stagecraft::search::StopReason::Exhausted)
    );
}

#[test]
fn only_the_newest_previews_are_kept() {
    let mut session = Session::new(clock);
    let texts: Vec<String> = (1..=5)
        .map(|n| format!("for i in range({n}):\n    B[i] = A[i]\n"))
        .collect();
    for (k, text) in texts.iter().enumerate() {
        send(
            &mut session,
            Request {
                id: k as u64 + 1,
                job: preview_job(text),
            },
        );
    }
    let previewed: Vec<u64> = answers(&mut session)
        .iter()
        .filter(|r| matches!(r.answer, Answer::Previewed { .. }))
        .map(|r| r.id)
        .collect();
    let newest = stagecraft::session::MAX_PREVIEWS_ASKED as u64;
    assert_eq!(previewed, ((6 - newest)..=5).collect::<Vec<_>>());
}

#[test]
fn a_pinned_schedule_is_compared_with_the_exploration_shown() {
    let pinned = example("rfc_c_interleaved.py");
    let text = pinned.replace(
        "\"software_pipeline_stage\", [0, 0, 3]",
        "\"software_pipeline_stage\", [0, 0, 2]",
    );
    assert_ne!(text, pinned);
    let mut session = Session::new(clock);
    let compare = Want::Compare {
        pinned: pinned.clone(),
        width: 640,
    };
    send(
        &mut session,
        Request {
            id: 1,
            job: explore_job(&text, vec![compare, Want::Timeline]),
        },
    );
    let all = answers(&mut session);
    let parts: Vec<&Part> = all
        .iter()
        .filter_map(|r| match &r.answer {
            Answer::Part { part, .. } => Some(&**part),
            _ => None,
        })
        .collect();
    let Part::Compare {
        comparison: c,
        width: 640,
        ..
    } = parts[0]
    else {
        panic!("the comparison first: {:?}", parts[0]);
    };
    // The timeline simulated for the comparison is the part's too.
    let current = direct(&text);
    let timeline = explore::timeline(&current).unwrap();
    assert_eq!(
        parts[1],
        &Part::Timeline {
            timeline: Some(timeline.clone())
        }
    );
    let p = aside(&pinned).timeline.unwrap().metrics.total_cycles;
    let q = timeline.metrics.total_cycles;
    assert_ne!(p, q);
    assert!(
        c.metrics.contains("<code>stages [0, 0, 3]"),
        "{}",
        c.metrics
    );
    assert!(
        c.metrics.contains("<code>stages [0, 0, 2]"),
        "{}",
        c.metrics
    );
    let delta = q as i64 - p as i64;
    let sign = if delta > 0 { "+" } else { "" };
    assert!(
        c.metrics.contains(&format!(
            "<tr><td>total cycles</td><td>{p}</td><td>{q}</td><td class=\"delta\">{sign}{delta} ("
        )),
        "{}",
        c.metrics
    );
    assert!(c.timelines.contains("data-of=\"pinned\""));
    assert!(c.timelines.contains("data-of=\"current\""));
    assert!(c.diff.contains("<span class=\"added\">"));
    assert!(c.diff.contains("<span class=\"removed\">"));
}

#[test]
fn a_pause_drops_the_exploration_asked_and_the_parts_left_and_answers_nothing() {
    let text = example("rfc_a_async_copy.py");
    let wants = vec![Want::Verification, Want::Timeline];
    // Paused before the worker took the exploration: it is never computed.
    let mut session = Session::new(clock);
    send(
        &mut session,
        Request {
            id: 1,
            job: explore_job(&text, wants.clone()),
        },
    );
    send(
        &mut session,
        Request {
            id: 2,
            job: Job::Pause,
        },
    );
    let all = answers(&mut session);
    assert!(
        all.iter().all(|r| matches!(r.answer, Answer::Idle)),
        "{all:?}"
    );
    assert!(!session.busy());
    // Paused after the exploration, between its parts: the part under way was answered, the rest
    // is not computed; the exploration's parts are computed again when asked for again.
    send(
        &mut session,
        Request {
            id: 3,
            job: explore_job(&text, wants.clone()),
        },
    );
    assert!(matches!(
        session.work().unwrap().answer,
        Answer::Explored { .. }
    ));
    assert!(matches!(
        session.work().unwrap().answer,
        Answer::Part { .. }
    ));
    send(
        &mut session,
        Request {
            id: 4,
            job: Job::Pause,
        },
    );
    let all = answers(&mut session);
    assert!(
        all.iter().all(|r| matches!(r.answer, Answer::Idle)),
        "{all:?}"
    );
    send(
        &mut session,
        Request {
            id: 3,
            job: Job::More {
                wants: vec![Want::Timeline],
            },
        },
    );
    let all = answers(&mut session);
    assert!(
        all.iter().any(|r| r.id == 3
            && matches!(&r.answer, Answer::Part { part, .. } if matches!(**part, Part::Timeline { .. }))),
        "{all:?}"
    );
}
