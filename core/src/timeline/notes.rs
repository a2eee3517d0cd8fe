//! What a timeline says of itself in words: what its chart leaves out, and what the single
//! sequence of groups sm_80 and asyncmarks keep changes.

use super::{SequenceForced, Timeline};

impl Timeline {
    /// What the chart leaves out, said plainly, when it draws fewer steps than the loop runs.
    pub fn coverage(&self) -> Option<String> {
        let steps = self.metrics.steps;
        if self.step_limit.is_none() && steps <= self.window.1 && self.window.0 == 0 {
            return None;
        }
        let (from, to) = self.shown_steps();
        let drawn = if self.bars_limited {
            format!(
                " (at most {} bars are drawn)",
                crate::limits::MAX_TIMELINE_BARS
            )
        } else {
            String::new()
        };
        Some(match self.step_limit {
            Some(0) => format!(
                "The timeline stops within the loop's first step: that step alone runs more than {} statement instances or steps through more than {} loop iterations (Stagecraft simulates at most {} instances per run), so no step is drawn and the metrics cover only what ran of it.",
                crate::limits::MAX_TIMELINE_STEP_INSTANCES,
                crate::limits::MAX_LOOP_ITERATIONS,
                crate::limits::MAX_TIMELINE_INSTANCES
            ),
            Some(limit) => format!(
                "The timeline simulates the first {limit} steps only (Stagecraft simulates at most {} statement instances, or {} steps, per run); it draws steps {from}–{to}{drawn}, and the metrics cover the {limit}.",
                crate::limits::MAX_TIMELINE_INSTANCES,
                crate::limits::MAX_TIMELINE_STEPS
            ),
            None => format!(
                "The timeline draws steps {from}–{to} of {steps}{drawn}; the metrics cover all of them."
            ),
        })
    }

    /// What the single sequence of sm_80 and asyncmarks changes, said plainly, when it forces
    /// anything.
    pub fn sequence_note(&self) -> Option<String> {
        if let Some(n) = self.sequence_events {
            return Some(format!(
                "On sm_80 and AMDGPU IR a thread's groups are one sequence; with {n} commits and waits it is beyond the {} the timeline follows, so what its waits complete beyond the IR's is not shown.",
                crate::limits::MAX_SEQUENCE_EVENTS
            ));
        }
        let cycles = self.metrics.sequence_cycles?;
        let waits: Vec<String> = self.sequence.iter().map(SequenceForced::describe).collect();
        Some(format!(
            "On sm_80 and AMDGPU IR a thread's groups are one sequence: these waits also complete groups the IR lets stay in flight — {}. Run so, the loop takes {cycles} cycles ({:+} on the IR's per-queue waits, which the chart shows).",
            waits.join("; "),
            cycles as i64 - self.metrics.total_cycles as i64
        ))
    }
}
