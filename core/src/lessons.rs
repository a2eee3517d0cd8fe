//! Lessons as data (issue 24): each a starting loop, a short text and a task checked against the
//! exploration of whatever the learner has made of the loop. A task is a predicate over what core
//! computed (verdict, a wait's count, a buffer's versions, the sections), never a match on the
//! text, and its explanation is written from the numbers of the schedule on screen.

use crate::explore::{CountOverride, Exploration, WaitCount, WaitKey};
use crate::ir::SectionKind;
use crate::timeline::Timeline;
use crate::verify::{Verdict, Verification};
use serde::{Deserialize, Serialize};

pub struct Lesson {
    /// Stable: kept in links and in the browser's record of lessons done.
    pub id: &'static str,
    pub title: &'static str,
    /// At most 150 words (`core/tests/lessons.rs`).
    pub text: &'static str,
    /// The task in one line, as the task panel states it.
    pub task: &'static str,
    pub source: &'static str,
    /// A count moved by hand the lesson starts with: (consumer as written, queue, delta) of a body
    /// wait.
    start_counts: &'static [(&'static str, i64, i64)],
    check: fn(&Checked) -> TaskStatus,
}

/// Whether the schedule on screen meets a lesson's task, and why (or what is missing), in the
/// schedule's own numbers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskStatus {
    pub met: bool,
    pub why: String,
}

/// What a task looks at: an exploration and its verification and timeline, which the app gets
/// separately (`explore::verification`, `explore::timeline`).
pub struct Checked<'a> {
    pub ex: &'a Exploration,
    pub verification: Option<&'a Verification>,
    pub timeline: Option<&'a Timeline>,
}

impl Lesson {
    /// The task checked against an exploration that holds its own verification and timeline.
    pub fn check(&self, ex: &Exploration) -> TaskStatus {
        self.check_with(&Checked {
            ex,
            verification: ex.verification.as_ref(),
            timeline: ex.timeline.as_ref(),
        })
    }

    pub fn check_with(&self, checked: &Checked) -> TaskStatus {
        if !checked.ex.ok {
            return not_met("the loop has no pipelined program yet: fix the problems listed first");
        }
        (self.check)(checked)
    }

    /// The counts the lesson starts with, for `explore::Options::count_overrides`.
    pub fn start_overrides(&self) -> Vec<CountOverride> {
        self.start_counts
            .iter()
            .map(|&(before, queue, delta)| CountOverride {
                wait: WaitKey {
                    queue,
                    section: SectionKind::Body,
                    before: Some(before.to_string()),
                    occurrence: 0,
                },
                delta,
            })
            .collect()
    }
}

pub fn lessons() -> &'static [Lesson] {
    &LESSONS
}

pub fn lesson(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

fn met(why: String) -> TaskStatus {
    TaskStatus { met: true, why }
}

fn not_met(why: impl Into<String>) -> TaskStatus {
    TaskStatus {
        met: false,
        why: why.into(),
    }
}

fn verdict(c: &Checked) -> Result<&'static str, TaskStatus> {
    let v = c
        .verification
        .ok_or_else(|| not_met("waiting for the verification"))?;
    Ok(match v.verdict {
        Verdict::Equivalent => "equivalent",
        Verdict::SafeButLoose => "safe but loose",
        Verdict::Racy => "racy",
        Verdict::Different => "different",
        Verdict::Invalid => "invalid",
        Verdict::NotRun => "not run",
    })
}

/// The body wait before the consumer whose text starts with `consumer`.
fn body_wait<'a>(c: &'a Checked, consumer: &str) -> Option<&'a WaitCount> {
    c.ex.counts.iter().find(|w| {
        w.key.section == SectionKind::Body
            && w.key
                .before
                .as_deref()
                .is_some_and(|b| b.starts_with(consumer))
    })
}

fn arithmetic(c: &Checked, wait: u32) -> String {
    c.ex.waits
        .iter()
        .find(|s| s.id == wait)
        .and_then(|s| s.instances.iter().find(|i| i.step.is_none()))
        .map_or_else(String::new, |i| i.arithmetic.clone())
}

fn largest_stage(c: &Checked) -> i64 {
    c.ex.pipeline.as_ref().map_or(0, |p| p.stages)
}

fn section_steps(c: &Checked, kind: SectionKind) -> usize {
    c.ex.iteration_space
        .as_ref()
        .map_or(0, |s| s.rows.iter().filter(|r| r.section == kind).count())
}

fn two_stages(c: &Checked) -> TaskStatus {
    let s = largest_stage(c);
    let (prologue, epilogue) = (
        section_steps(c, SectionKind::Prologue),
        section_steps(c, SectionKind::Epilogue),
    );
    if s != 1 {
        return not_met(format!(
            "the largest stage is S = {s}, so the prologue has {} and the epilogue {epilogue}: the task wants S = 1, one step of each",
            crate::english::count(prologue, "step")
        ));
    }
    match verdict(c) {
        Err(wait) => wait,
        Ok("equivalent") => met(format!(
            "S = 1: the prologue runs only stage 0 of iteration 0 ({prologue} step), the epilogue only stage 1 of the last iteration ({epilogue} step); every body step overlaps two iterations"
        )),
        Ok(other) => not_met(format!("S = 1, but the verifier says {other}")),
    }
}

fn three_versions(c: &Checked) -> TaskStatus {
    let Some(b) = c.ex.buffers.iter().find(|b| b.name == "B") else {
        return not_met("the loop no longer writes B");
    };
    let reason = b.reason.clone().unwrap_or_default();
    if b.versions != 3 {
        return not_met(format!(
            "B has {} ({reason}); the task wants 3",
            crate::english::count(b.versions, "version")
        ));
    }
    match verdict(c) {
        Err(wait) => wait,
        Ok("equivalent") => met(format!("B has 3 versions: {reason}")),
        Ok(other) => not_met(format!("B has 3 versions, but the verifier says {other}")),
    }
}

fn count_two(c: &Checked) -> TaskStatus {
    let Some(w) = body_wait(c, "C[i]") else {
        return not_met(
            "the body has no wait before `C[i] = …`: is the copy's stage asynchronous, and C in a later stage?",
        );
    };
    let why = arithmetic(c, w.wait);
    if w.in_effect != w.derived {
        return not_met(format!(
            "the count is {} by hand (derived {}): the task wants the schedule itself to allow 2",
            w.in_effect, w.derived
        ));
    }
    if w.derived != 2 {
        return not_met(format!(
            "the wait lets {} stay in flight: {why}",
            crate::english::count(w.derived, "group")
        ));
    }
    match verdict(c) {
        Err(wait) => wait,
        Ok("equivalent") => met(format!("two copies stay in flight: {why}")),
        Ok(other) => not_met(format!("the count is 2, but the verifier says {other}")),
    }
}

/// "`C[i] = B[0] + 1` at iteration 1 reads data whose …": the verifier's message with its
/// statement and iteration.
fn race_sentence(c: &Checked, r: &crate::interp::Race) -> String {
    let text =
        c.ex.statements
            .iter()
            .find(|s| s.id == r.stmt)
            .map_or("a statement", |s| s.text.as_str());
    match r.iteration {
        Some(j) => format!("`{text}` at iteration {j} {}", r.message),
        None => format!("`{text}` {}", r.message),
    }
}

fn race_free(c: &Checked) -> TaskStatus {
    let v = match verdict(c) {
        Err(wait) => return wait,
        Ok(v) => v,
    };
    if v == "equivalent" {
        return met("no race, same outputs, every wait tight".into());
    }
    let race = c.verification.and_then(|v| v.races.first());
    let blamed = race.and_then(|r| r.wait.as_ref()).and_then(|w| w.id);
    let count = blamed.and_then(|id| c.ex.counts.iter().find(|w| w.wait == id));
    match (race, count) {
        (Some(r), Some(w)) => not_met(format!(
            "{}; the wait before it lets {} stay in flight where the schedule allows {}",
            race_sentence(c, r),
            crate::english::count(w.in_effect, "group"),
            w.derived
        )),
        (Some(r), None) => not_met(race_sentence(c, r)),
        _ => not_met(format!("the verifier says {v}")),
    }
}

fn two_queues(c: &Checked) -> TaskStatus {
    let queues: Vec<i64> =
        c.ex.counts
            .iter()
            .filter(|w| w.key.section == SectionKind::Body)
            .filter(|w| {
                w.key
                    .before
                    .as_deref()
                    .is_some_and(|b| b.starts_with("C[i]"))
            })
            .map(|w| w.key.queue)
            .collect();
    if queues.len() < 2 {
        let listed = queues
            .iter()
            .map(|q| format!("queue {q}"))
            .collect::<Vec<_>>()
            .join(", ");
        return not_met(format!(
            "`C[i] = …` waits on {}; async stages are {:?}",
            if listed.is_empty() {
                "no queue".into()
            } else {
                listed
            },
            c.ex.pipeline
                .as_ref()
                .map(|p| p.async_stages.clone())
                .unwrap_or_default()
        ));
    }
    match verdict(c) {
        Err(wait) => wait,
        Ok("equivalent") => met(format!(
            "`C[i] = …` waits on queues {queues:?}: each queue counts only its own groups"
        )),
        Ok(other) => not_met(format!("two queues, but the verifier says {other}")),
    }
}

fn tvm_race(c: &Checked) -> TaskStatus {
    let Some(w) = body_wait(c, "C[i]") else {
        return not_met("the body has no wait before `C[i] = …`");
    };
    if w.in_effect <= w.derived {
        return not_met(format!(
            "the wait before `C[i] = …` lets {} stay in flight, as derived ({}): one more is what TVM's grouping amounts to",
            crate::english::count(w.in_effect, "group"),
            arithmetic(c, w.wait)
        ));
    }
    match (verdict(c), c.verification.and_then(|v| v.races.first())) {
        (Err(wait), _) => wait,
        (Ok("racy"), Some(r)) => met(format!(
            "with {} in flight instead of {}: {}",
            w.in_effect,
            w.derived,
            race_sentence(c, r)
        )),
        (Ok(other), _) => not_met(format!(
            "{} in flight instead of {}, and the verifier says {other}",
            w.in_effect, w.derived
        )),
    }
}

const SYNC_LOOP: &str = "B = alloc([1])
for i in range(8):
    B[0] = A[i] * 2
    C[i] = B[0] + 1

sch.annotate(i, \"software_pipeline_stage\", [0, 0])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
";

const VERSIONS_LOOP: &str = "B = alloc([1])
for i in range(8):
    B[0] = A[i] * 2
    C[i] = B[0] + 1

sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
";

const ASYNC_LOOP: &str = "B = alloc([1])
for i in range(16):
    B[0] = A[i] + 1
    C[i] = B[0] + 1

sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

const TWO_COPIES_LOOP: &str = "A_sh = alloc([1])
B_sh = alloc([1])
for i in range(16):
    A_sh[0] = A[i]
    B_sh[0] = B[i]
    C[i] = A_sh[0] + B_sh[0]

sch.annotate(i, \"software_pipeline_stage\", [0, 1, 2])
sch.annotate(i, \"software_pipeline_order\", [0, 1, 2])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

const RFC_C_LOOP: &str = "A_sh = alloc([1])
B_sh = alloc([1])
for i in range(16):
    A_sh[0] = A[i]
    B_sh[0] = B[i]
    C[i] = A_sh[0] + B_sh[0]

sch.annotate(i, \"software_pipeline_stage\", [0, 0, 3])
sch.annotate(i, \"software_pipeline_order\", [0, 2, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

static LESSONS: [Lesson; 6] = [
    Lesson {
        id: "two-stages",
        title: "1. Two stages: prologue and epilogue",
        text:
            "A stage says how many steps after its iteration starts a statement runs. With every \
statement in stage 0 nothing overlaps. Put the second statement in stage 1: at step t the loop \
runs stage 0 of iteration t and stage 1 of iteration t − 1. The first step has no earlier \
iteration (the prologue) and the last has no new one (the epilogue). Watch the Iteration space \
and the Pipelined program.",
        task: "Make it a two-stage pipeline (largest stage 1) that verifies equivalent.",
        source: SYNC_LOOP,
        start_counts: &[],
        check: two_stages,
    },
    Lesson {
        id: "versions",
        title: "2. Why a buffer gets versions",
        text: "B is written in stage 0 and read in stage 1, so while iteration j − 1 reads B, \
iteration j already writes it. The transform gives B one slot per iteration alive at once: \
versions = last reading stage − writing stage + 1. Versions cost memory (see the Timeline's ring \
bytes) and keep one iteration's write from overwriting what an earlier one still reads. Here every \
stage is synchronous, so the Timeline shows 1.00×: versions pay off once a copy runs ahead \
asynchronously (lesson 3).",
        task: "Make B need three versions, still equivalent.",
        source: VERSIONS_LOOP,
        start_counts: &[],
        check: three_versions,
    },
    Lesson {
        id: "async-count",
        title: "3. An async copy and its wait",
        text: "Stage 0 is asynchronous: each copy into B is committed as a group to queue 0 and \
completes later. Before `C[i]` reads B, a wait lets at most N of the most recently committed \
groups stay in flight: every older one must have landed. The deeper the pipeline, the more copies \
may be under way. The Pipelined program shows N on each wait; point at a wait line (or Tab to it) \
to see why, symbol by symbol.",
        task: "Let the copy run two iterations ahead: the derived count before `C[i] = …` is 2.",
        source: ASYNC_LOOP,
        start_counts: &[],
        check: count_two,
    },
    Lesson {
        id: "race-free",
        title: "4. Make a racy schedule race-free",
        text: "This loop starts with a wait count changed by hand: it lets one more copy stay in \
flight than the schedule allows, so `C[i]` may read B before its copy lands. The Verification \
pane shows the race: which element, which group was still in flight, which wait should have \
covered it. Use the − beside that wait, or Reset, to fix it.",
        task: "Make the schedule race-free: the verifier says equivalent.",
        source: ASYNC_LOOP,
        start_counts: &[("C[i] = B[0] + 1", 0, 1)],
        check: race_free,
    },
    Lesson {
        id: "two-queues",
        title: "5. Two async stages, one consumer",
        text: "Queue = stage: every async stage commits its groups to a queue of its own, and a \
wait counts only that queue's groups. Here only stage 0 is asynchronous, so B_sh's copy runs \
synchronously. Make stage 1 asynchronous too: `C[i]` then needs a wait on each queue, each with \
its own count.",
        task: "Make `C[i] = …` wait on two queues, still equivalent.",
        source: TWO_COPIES_LOOP,
        start_counts: &[],
        check: two_queues,
    },
    Lesson {
        id: "tvm-race",
        title: "6. RFC (c): why TVM's count races",
        text:
            "Two copies in stage 0 feed `C[i]` in stage 3. Stagecraft commits them as two groups \
in every step, so one count serves every body step. TVM commits the prologue's copies as one \
group, so its first body steps need smaller counts than the body's, yet use the body's: one group \
too many stays in flight. Reproduce that with the + beside the wait before `C[i]`.",
        task: "Let one more group stay in flight before `C[i] = …` and see the race.",
        source: RFC_C_LOOP,
        start_counts: &[],
        check: tvm_race,
    },
];
