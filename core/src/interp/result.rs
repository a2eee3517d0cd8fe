//! What a run is asked for and what it reports: the completion policy and options, races with
//! the group, slot and wait they involve, located problems, the trace, per-wait statistics and
//! the final memory.

use crate::diagnostic::Span;
use crate::ir::StmtId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase", tag = "policy")]
pub enum Policy {
    /// A group completes only when a wait forces it: exposes every missing wait.
    #[default]
    Latest,
    /// A group completes as soon as it is committed.
    Earliest,
    /// Groups complete at seeded random moments, oldest first within a queue.
    Random { seed: u64 },
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
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BufferState {
    pub shape: Vec<i64>,
    pub values: Vec<f64>,
    pub written: Vec<bool>,
    pub global: bool,
    pub versions: u32,
}
