//! The step-through's sentences: what the current step does, from its numbers — a statement
//! issued or run with the slots it writes and reads, a commit, a wait's head arithmetic, a
//! completion, and the race that stops the trace.

use super::{HeadArithmetic, MachineState, RaceStop, SlotRef, Step, StepEvent, StepThrough};
use crate::interp::RaceKind;
use std::fmt::Write;

impl StepThrough {
    fn ring_name(&self, s: SlotRef) -> String {
        let name = self.rings.get(s.ring).map_or("?", |r| r.buffer.as_str());
        format!("{name} slot {}", s.slot)
    }

    pub(super) fn caption(&self, step: &Step, state: &MachineState, race: bool) -> String {
        let mut out = String::new();
        match &step.event {
            StepEvent::Exec {
                stmt,
                iteration,
                is_async,
                group,
                writes,
                reads,
                ..
            } => {
                // "`C[i] = …` of iteration 3 runs"; a statement without a text, by its number.
                let name = crate::english::sentence_start(&crate::interp::statement_name(
                    &self.statements,
                    *stmt,
                ));
                out.push_str(&name);
                if let Some(j) = iteration {
                    let _ = write!(out, " of iteration {j}");
                }
                match (is_async, group) {
                    (true, Some(g)) => {
                        let _ = write!(out, " is issued into group {} of queue {}", g.seq, g.queue);
                        if let Some(w) = writes {
                            let _ = write!(
                                out,
                                "; its write lands in {} when the group completes",
                                self.ring_name(*w)
                            );
                        }
                    }
                    _ => {
                        let _ = write!(out, " runs");
                        if let Some(w) = writes {
                            let _ = write!(out, ", writing {}", self.ring_name(*w));
                        }
                    }
                }
                if !reads.is_empty() {
                    let mut names: Vec<String> = Vec::new();
                    for r in reads {
                        let holds = state
                            .rings
                            .get(r.ring)
                            .and_then(|x| x.get(r.slot as usize))
                            .and_then(|x| x.iteration)
                            .map_or(String::new(), |j| format!(" (iteration {j}'s data)"));
                        let n = format!("{}{holds}", self.ring_name(*r));
                        if !names.contains(&n) {
                            names.push(n);
                        }
                    }
                    let _ = write!(out, "; it reads {}", names.join(", "));
                }
                out.push('.');
                if race {
                    if let Some(stop) = &self.race {
                        out.push_str(&race_sentence(stop, &self.statements));
                    }
                }
            }
            StepEvent::Commit { group, size } => {
                let _ = write!(
                    out,
                    "Group {} of queue {} is committed with {size} async statement{}: it is in flight until a wait or its landing completes it.",
                    group.seq,
                    group.queue,
                    if *size == 1 { "" } else { "s" }
                );
            }
            StepEvent::Wait {
                queue,
                count,
                committed,
                in_flight,
                forced,
                ..
            } => {
                let a = head_arithmetic(*queue, *committed, *count, *in_flight, forced);
                let _ = write!(
                    out,
                    "Wait on queue {queue} with count {count}: {}",
                    a.sentence
                );
            }
            StepEvent::Complete { group } => {
                let _ = write!(
                    out,
                    "Group {} of queue {} completes: its writes have landed.",
                    group.seq, group.queue
                );
            }
        }
        out
    }
}

/// What the race stop says after its statement: the group and the wait that should have covered
/// it, or, inside one group, the group's other statement and why no wait can order the two.
fn race_sentence(stop: &RaceStop, statements: &[String]) -> String {
    let r = &stop.race;
    if r.within_group {
        let who = r.other.map_or_else(
            || "another of its statements".to_string(),
            |o| {
                format!(
                    "{}{}{}",
                    crate::interp::statement_name(statements, o.stmt),
                    o.iteration
                        .map_or(String::new(), |j| format!(" of iteration {j}")),
                    stop.other_line
                        .map_or(String::new(), |l| format!(" (line {})", l + 1))
                )
            },
        );
        let (what, how) = match r.kind {
            RaceKind::ReadAfterWrite => ("reads", "writes"),
            RaceKind::WriteAfterWrite => ("writes", "also writes"),
            RaceKind::WriteAfterRead => ("writes", "reads"),
        };
        return format!(
            " RACE: it {what} `{}{:?}`, which {who} {how} in the same group {} of queue {}: a group's operations complete in no set order, so no wait can order the two — they need separate groups.",
            r.buffer, r.element, r.group.seq, r.group.queue
        );
    }
    let mut out = format!(
        " RACE: it {} — group {} of queue {} is still in flight.",
        r.kind.describe(),
        r.group.seq,
        r.group.queue
    );
    match stop.wait_line {
        Some(l) => {
            let _ = write!(out, " The wait on line {} should have covered it.", l + 1);
        }
        None => {
            let _ = write!(out, " No wait on queue {} ran before it.", r.group.queue);
        }
    }
    out
}

pub(super) fn head_arithmetic(
    queue: i64,
    committed: u64,
    count: i64,
    in_flight: u64,
    forced: &[u64],
) -> HeadArithmetic {
    let count_u = u64::try_from(count).unwrap_or(0);
    let needed = committed.checked_sub(count_u + 1);
    let mut sentence = match needed {
        Some(g) => {
            format!("committed {committed} − needed group {g} − 1 = {count} may stay in flight")
        }
        None => format!("committed {committed} ≤ count {count}: no group has to complete"),
    };
    match forced {
        [] if in_flight > 0 => {
            let _ = write!(
                sentence,
                "; {in_flight} in flight, none forced (those it needs have already completed)."
            );
        }
        [] => sentence.push_str("; nothing is in flight."),
        [one] => {
            let _ = write!(sentence, "; it forces group {one} to complete.");
        }
        many => {
            let list: Vec<String> = many.iter().map(u64::to_string).collect();
            let _ = write!(
                sentence,
                "; it forces groups {} to complete.",
                list.join(", ")
            );
        }
    }
    HeadArithmetic {
        queue,
        committed,
        needed,
        count,
        in_flight,
        forced: forced.to_vec(),
        sentence,
    }
}
