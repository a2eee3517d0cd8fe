//! What a run is asked for and what it reports: the completion policy and options, races with
//! the group, slot and wait they involve, located problems, the trace, per-wait statistics and
//! the final memory.

use crate::diagnostic::Span;
use crate::ir::StmtId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

crate::wire::dual_tagged! {
    remote = "Policy", json(tag = "policy"), both(rename_all = "lowercase");
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// A group completes only when a wait forces it: exposes every missing wait.
    Latest,
    /// A group completes as soon as it is committed.
    Earliest,
    /// Groups complete at seeded random moments, oldest first within a queue.
    Random { seed: u64 },
    /// Groups complete before the statement instances `RunOptions::completions` names (the cost
    /// model's moments, `timeline::moments`), or when a wait forces them earlier.
    #[serde(rename = "as_timed")]
    AsTimed,
}
}

// Not derived: `#[default]` on a variant would be copied into `dual_tagged!`'s JSON form, which
// derives no `Default`.
#[allow(clippy::derivable_impls)]
impl Default for Policy {
    fn default() -> Self {
        Policy::Latest
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunOptions {
    pub policy: Policy,
    /// Values of free names (symbolic extents); missing ones take `limits::DEFAULT_SYMBOLIC_EXTENT`.
    pub params: BTreeMap<String, i64>,
    /// Seed of the input values.
    pub seed: u64,
    pub max_instances: u64,
    pub trace: bool,
    pub max_trace_events: usize,
    /// Added to the count of the wait with this static index (pre-order), at every instance.
    pub count_delta: BTreeMap<usize, i64>,
    /// A target is asked for: a wait count must be one immediate at every iteration of the
    /// outermost loop around it (`Invalid::CountNotImmediate`).
    pub immediate_counts: bool,
    /// Under `Policy::AsTimed`: per queue, for each group in commit order, the statement instance
    /// (counted from 1) before which it completes; a group beyond the list completes only when a
    /// wait forces it.
    pub completions: BTreeMap<i64, Vec<u64>>,
    /// How a race names a statement: its text, by statement id (`tir::statement_texts` of the
    /// loop). A statement without one is "statement N", its id.
    pub statement_names: Vec<String>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            policy: Policy::Latest,
            params: BTreeMap::new(),
            seed: 1,
            max_instances: crate::limits::MAX_INTERPRETED_INSTANCES,
            trace: false,
            max_trace_events: 4096,
            count_delta: BTreeMap::new(),
            immediate_counts: false,
            completions: BTreeMap::new(),
            statement_names: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaceKind {
    /// A read of an element whose asynchronous write has not completed.
    ReadAfterWrite,
    /// A write to an element that a pending asynchronous write also targets.
    WriteAfterWrite,
    /// A write to an element that a pending asynchronous statement may still be reading.
    WriteAfterRead,
}

impl RaceKind {
    pub fn describe(self) -> &'static str {
        match self {
            RaceKind::ReadAfterWrite => "reads data whose asynchronous write is still in flight",
            RaceKind::WriteAfterWrite => {
                "overwrites data that an in-flight asynchronous write also targets"
            }
            RaceKind::WriteAfterRead => {
                "overwrites data that an in-flight asynchronous statement may still be reading"
            }
        }
    }
}

/// A group still in flight, named by what it contains.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingGroup {
    pub queue: i64,
    /// Commit number within its queue, from 0.
    pub seq: u64,
    /// (statement, iteration) of the async statements in the group.
    pub members: Vec<(StmtId, Option<i64>)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Race {
    pub kind: RaceKind,
    pub stmt: StmtId,
    pub span: Span,
    pub iteration: Option<i64>,
    pub buffer: String,
    pub element: Vec<i64>,
    /// Ring slot (first index) when the buffer is multi-versioned.
    pub slot: Option<i64>,
    pub group: PendingGroup,
    /// The last wait on that queue executed before the racing access (static index and id), if any.
    pub wait: Option<WaitRef>,
    /// The top-level step of the racing access, numbered from 1 as the timeline numbers its spans'
    /// steps (every iteration of a top-level loop, and every other top-level statement or scope).
    #[serde(default)]
    pub step: u64,
    pub message: String,
    /// The pending group's statement instance whose access the racing one meets: the write of
    /// the element, or (write-after-read) its read.
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub other: Option<GroupMember>,
    /// Both accesses are in one commit group: a group's operations complete in no set order, so
    /// no wait can order them (`wait` is `None`); they need separate groups.
    #[serde(default)]
    pub within_group: bool,
}

/// One asynchronous statement instance of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupMember {
    pub stmt: StmtId,
    pub iteration: Option<i64>,
    /// Its statement in the program run.
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitRef {
    /// Pre-order index of the `Wait` node.
    pub index: usize,
    /// The derived wait it comes from, when known.
    pub id: Option<u32>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    pub span: Span,
    pub message: String,
    /// Set when the problem makes the program invalid on real hardware (the strict verdict,
    /// `Verdict::Invalid`); `None` for a problem of the run alone (an index out of bounds).
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub invalid: Option<Invalid>,
    /// How to fix it, for an invalid program.
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub fix: Option<String>,
}

impl Problem {
    pub(crate) fn of_run(span: Span, message: String) -> Problem {
        Problem {
            span,
            message,
            invalid: None,
            fix: None,
        }
    }
}

/// What makes a program invalid although the interpreter could run it: each is something real
/// hardware does not do the way a run without the check would assume (docs/interpreter.md, "The
/// strict verdict").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Invalid {
    /// A wait count below 0: no instruction encodes it.
    NegativeCount,
    /// An async statement outside every commit scope: its write joins no group, so no wait ever
    /// covers it.
    AsyncOutsideCommit,
    /// A wait inside a commit scope of its own queue: the group being filled is not committed yet,
    /// so the wait cannot cover it.
    WaitInOwnCommit,
    /// Groups still in flight when the program ends: nothing waits for them.
    NeverAwaited,
    /// A wait whose count differs between iterations of the loop a target keeps rolled, where the
    /// instruction needs one immediate (asked for only when a target is: `RunOptions::immediate_counts`).
    CountNotImmediate,
}

impl Invalid {
    /// The fix, in one sentence.
    pub fn fix(self) -> &'static str {
        match self {
            Invalid::NegativeCount => "a wait count is the number of groups that may stay in flight; it cannot be negative — use 0 to wait for all",
            Invalid::AsyncOutsideCommit => "put the `async_scope` inside a `with async_commit_queue(q):` scope, so that its writes form a group a wait can cover",
            Invalid::WaitInOwnCommit => "move the wait out of the commit scope of its queue (before it, or after it once the group is committed)",
            Invalid::NeverAwaited => "end the program with `with async_wait_queue(q, 0):` around the last reads, or after the last commit, so that every group completes",
            Invalid::CountNotImmediate => "give the wait a count that is the same at every iteration of the loop (peel the iterations that need another count into a prologue or epilogue)",
        }
    }

    /// What it is, in a few words (the verdict's sentence).
    pub fn what(self) -> &'static str {
        match self {
            Invalid::NegativeCount => "a negative wait count",
            Invalid::AsyncOutsideCommit => "an async write outside every commit scope",
            Invalid::WaitInOwnCommit => "a wait inside its own queue's open group",
            Invalid::NeverAwaited => "copies never awaited at the end",
            Invalid::CountNotImmediate => "a wait count that is not one immediate",
        }
    }

    pub fn problem(self, span: Span, message: String) -> Problem {
        Problem {
            span,
            message,
            invalid: Some(self),
            fix: Some(self.fix().to_string()),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Exec {
        stmt: StmtId,
        iteration: Option<i64>,
        is_async: bool,
        group: Option<(i64, u64)>,
        target: (String, Vec<i64>),
        /// Pre-order index of the assignment node among the program's assignments: its line in
        /// the printed program is the one of that rank among the lines with a statement.
        #[serde(default)]
        node: usize,
        /// Statement instances run so far, this one included (`RunOptions::max_instances` counts
        /// the same).
        #[serde(default)]
        instance: u64,
        /// The elements it reads, in the order it loads them.
        #[serde(default)]
        reads: Vec<(String, Vec<i64>)>,
        /// The top-level step it runs in, numbered as `Race::step`.
        #[serde(default)]
        step: u64,
        /// This instance raced (the races it caused are the last ones of `Run::races` so far).
        #[serde(default)]
        raced: bool,
    },
    Commit {
        queue: i64,
        seq: u64,
        size: usize,
    },
    Wait {
        index: usize,
        queue: i64,
        count: i64,
        in_flight: u64,
        forced: Vec<u64>,
    },
    Complete {
        queue: i64,
        seq: u64,
    },
}

/// Statistics of one static wait across its instances.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WaitStats {
    pub index: usize,
    pub id: Option<u32>,
    pub queue: i64,
    pub span: Span,
    pub instances: u64,
    /// Largest number of groups in flight when it ran.
    pub max_in_flight: u64,
    /// Instances where it forced at least one group.
    pub forcing_instances: u64,
    /// Smallest `in_flight − count` seen (≤ 0 means the count already covered everything in flight).
    pub min_slack: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub races: Vec<Race>,
    pub problems: Vec<Problem>,
    pub trace: Vec<Event>,
    pub waits: Vec<WaitStats>,
    pub instances: u64,
    /// The instance cap stopped the run.
    pub truncated: bool,
    /// Global buffers: name → (shape, values, written mask).
    #[serde(skip)]
    pub memory: BTreeMap<String, BufferState>,
    pub pending_at_end: u64,
    /// Why the run could not start (e.g. a buffer beyond the size limit).
    pub aborted: Option<String>,
    /// Under `RunOptions::trace`: the groups in flight where the run ended or stopped, per queue
    /// oldest first, each with the elements its writes will land in (buffer, element offset).
    #[serde(skip)]
    pub in_flight: Vec<(PendingGroup, Vec<(String, usize)>)>,
    /// Under `RunOptions::trace`: the groups still being filled where a run stopped (their commit
    /// scope open), as `in_flight`.
    #[serde(skip)]
    pub open: Vec<(PendingGroup, Vec<(String, usize)>)>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BufferState {
    pub shape: Vec<i64>,
    pub values: Vec<f64>,
    pub written: Vec<bool>,
    pub global: bool,
    pub versions: u32,
    /// Per element, asynchronous writes issued and not landed.
    pub pending_writes: Vec<u32>,
    /// Under `RunOptions::trace`: per element, the statement instance (counted from 1) that last
    /// wrote it — issued, landed or not — and that instance's iteration; empty otherwise.
    pub last_write: Vec<Option<(u64, Option<i64>)>>,
}
