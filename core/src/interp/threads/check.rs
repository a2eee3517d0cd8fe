//! A pipelined program across threads judged against its loop: the loop run as one thread (the
//! statements in order, each a whole tile operation) gives the outputs; every wave's copy of each
//! output the loop writes must match it, and no access may race.

use super::{run_threads, ThreadOptions, ThreadRun};
use crate::interp::{run, RunOptions};
use crate::ir::Program;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadCheck {
    pub run: ThreadRun,
    /// Each output element that differs, in a sentence (at most a few).
    pub differences: Vec<String>,
}

impl ThreadCheck {
    /// Same outputs, no race, nothing cut short.
    pub fn is_clean(&self) -> bool {
        self.differences.is_empty()
            && self.run.races.is_empty()
            && !self.run.truncated
            && self.run.problems.is_empty()
    }
}

const MAX_DIFFERENCES: usize = 8;

/// Runs `pipelined` across its threads and compares its outputs with `original`'s.
pub fn check_threads(original: &Program, pipelined: &Program, opts: &ThreadOptions) -> ThreadCheck {
    let reference = run(
        original,
        &RunOptions {
            params: opts.params.clone(),
            seed: opts.seed,
            ..RunOptions::default()
        },
    );
    let run = run_threads(pipelined, opts);
    let mut differences = Vec::new();
    for (name, state) in &reference.memory {
        if !state.global {
            continue;
        }
        let Some(copies) = run.outputs.get(name) else {
            continue;
        };
        for (k, copy) in copies.iter().enumerate() {
            for (e, (want, written)) in state.values.iter().zip(&state.written).enumerate() {
                let got = copy.get(e).copied().unwrap_or(f64::NAN);
                if *written
                    && got.to_bits() != want.to_bits()
                    && differences.len() < MAX_DIFFERENCES
                {
                    let agent = run.agents.get(k).copied().unwrap_or(0);
                    differences.push(format!(
                        "{name} element {e}: the loop computes {want}, copy {agent} holds {got}"
                    ));
                }
            }
        }
    }
    ThreadCheck { run, differences }
}
