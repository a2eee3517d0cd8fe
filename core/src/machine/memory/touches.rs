//! Accesses of several waves to one word in one barrier interval, one of them a write: a race
//! without anything in flight. Each word of a shared space remembers the last wave that touched
//! it, in which interval and whether it wrote; thread-private spaces keep no record.

use super::{Actor, Cell, Conflict, Memory, Words};
use crate::interp::RaceKind;

/// The waves of a run of words accessed in lockstep: word `i` by thread `i`, `per` threads to a
/// wave (a tile of the block's threads), or every word by one wave (an operation of one wave).
#[derive(Clone, Copy, Debug)]
pub enum RunWaves {
    Threads { per: u32 },
    One(u16),
}

/// Where a run of words begins (a space and its first word) and who accesses it: the line and
/// the waves (`Memory::read_run`, `write_run`).
#[derive(Clone, Copy, Debug)]
pub struct RunAccess {
    pub space: u16,
    pub start: u32,
    pub line: u32,
    pub waves: RunWaves,
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Touch {
    /// Line of the last access (0: never), its wave and barrier interval.
    line: u32,
    wave: u16,
    interval: u32,
    wrote: bool,
}

/// Records `actor`'s access to word `c` in the barrier interval `interval`, after the race it
/// makes with another wave's access in the same interval, if any.
fn touch_one(
    t: &mut Touch,
    c: Cell,
    actor: Actor,
    write: bool,
    interval: u32,
    out: &mut Vec<Conflict>,
) {
    if t.line != 0 && t.wave != actor.wave && t.interval == interval && (t.wrote || write) {
        out.push(Conflict {
            kind: match (t.wrote, write) {
                (true, true) => RaceKind::WriteAfterWrite,
                (true, false) => RaceKind::ReadAfterWrite,
                _ => RaceKind::WriteAfterRead,
            },
            cell: c,
            other_line: t.line,
            other_wave: t.wave,
            wave: Some(actor.wave),
            in_flight: false,
        });
    }
    let wrote = write || (t.wave == actor.wave && t.interval == interval && t.wrote);
    *t = Touch {
        line: actor.line,
        wave: actor.wave,
        interval,
        wrote,
    };
}

impl Memory {
    /// Forgets which wave last touched `len` words from `start`: an operation whose completion
    /// every later accessor must observe first (a bulk copy behind an mbarrier phase) is ordered
    /// with those accesses by that observation, not by a barrier interval.
    pub fn forget_touches(&mut self, space: u16, start: u32, len: u32) {
        if let Some(t) = self.spaces.get_mut(space as usize).and_then(|s| {
            s.touched
                .get_mut(start as usize..(start as usize).saturating_add(len as usize))
        }) {
            t.fill(Touch::default());
        }
    }

    /// A workgroup barrier: accesses after it are ordered after every access before it.
    pub(super) fn touch(&mut self, c: Cell, actor: Actor, write: bool, out: &mut Vec<Conflict>) {
        if self.waves <= 1 {
            return;
        }
        let interval = self.interval;
        if let Some(t) = self
            .spaces
            .get_mut(c.space as usize)
            .and_then(|s| s.touched.get_mut(c.word as usize))
        {
            touch_one(t, c, actor, write, interval, out);
        }
    }

    pub(super) fn touch_run(
        &mut self,
        at: RunAccess,
        len: u32,
        write: bool,
        out: &mut Vec<Conflict>,
    ) {
        let RunAccess {
            space,
            start,
            line,
            waves,
        } = at;
        if self.waves <= 1 {
            return;
        }
        let interval = self.interval;
        let range = start as usize..start as usize + len as usize;
        let Some(touched) = self
            .spaces
            .get_mut(space as usize)
            .and_then(|s| s.touched.get_mut(range))
        else {
            return;
        };
        // A wave's words at a time: the wave is then one value, not a call per word.
        let (per, first_wave) = match waves {
            RunWaves::Threads { per } => (per.max(1) as usize, 0),
            RunWaves::One(wave) => (touched.len().max(1), wave),
        };
        let mut word = start;
        for (k, chunk) in touched.chunks_mut(per).enumerate() {
            let actor = Actor {
                line,
                wave: first_wave.wrapping_add(k as u16),
            };
            for t in chunk {
                touch_one(t, Cell { space, word }, actor, write, interval, out);
                word += 1;
            }
        }
    }

    /// `touch` of every word of an operation of one wave.
    pub(super) fn touch_words(
        &mut self,
        words: &Words,
        actor: Actor,
        write: bool,
        out: &mut Vec<Conflict>,
    ) {
        match words {
            Words::Run { space, start, len } => {
                let at = RunAccess {
                    space: *space,
                    start: *start,
                    line: actor.line,
                    waves: RunWaves::One(actor.wave),
                };
                self.touch_run(at, *len, write, out);
            }
            Words::List(cells) => {
                for &c in cells {
                    self.touch(c, actor, write, out);
                }
            }
        }
    }
}
