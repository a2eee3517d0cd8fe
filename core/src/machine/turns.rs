//! A check that shares the thread it runs on. The page runs the machine check on its main
//! thread, where a large kernel's run (CUTLASS: 80–130 ms in Chromium) would be one task that
//! freezes the page; so the executors are `async` and, every [`ASK_EVERY`] units of work (an
//! instruction, a round of the waves, a line of the IR parser's second pass), ask whether the
//! caller's turn is over, and if it is, return `Pending` and go on where they were when polled
//! again. A caller that does not share the thread ([`finish`], every native use)
//! never pauses, and the result is the same: a pause keeps every value of the run.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Units of work between two questions to the caller: asking costs a clock read in the browser
/// (tens of nanoseconds) where an instruction costs about a microsecond.
const ASK_EVERY: u32 = 256;

/// When a run pauses: `over` says whether the caller's turn is over.
pub struct Turns {
    over: Option<fn() -> bool>,
    countdown: Cell<u32>,
}

impl Turns {
    /// Turns that end whenever `over` says so.
    pub fn new(over: fn() -> bool) -> Self {
        Turns {
            over: Some(over),
            countdown: Cell::new(ASK_EVERY),
        }
    }

    /// One turn, as long as the run: it never pauses.
    pub fn unbroken() -> Turns {
        Turns {
            over: None,
            countdown: Cell::new(u32::MAX),
        }
    }

    /// Counts one unit of work; true every [`ASK_EVERY`] of them when the turn is over. The
    /// caller then returns to the `async` function that awaits [`Turns::pause`].
    #[inline]
    pub fn due(&self) -> bool {
        let left = self.countdown.get();
        if left > 0 {
            self.countdown.set(left - 1);
            return false;
        }
        self.countdown.set(ASK_EVERY);
        self.over()
    }

    /// Whether the turn is over now (between the phases of a check: contract, parse, run).
    pub fn over(&self) -> bool {
        self.over.is_some_and(|over| over())
    }

    /// Lets the caller go (one `Pending`); the run goes on when polled again.
    pub fn pause(&self) -> Pause {
        Pause { paused: false }
    }
}

/// The future of [`Turns::pause`]: pending once, then ready.
pub struct Pause {
    paused: bool,
}

impl Future for Pause {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.paused {
            return Poll::Ready(());
        }
        self.paused = true;
        // Ready to go on at once: when is the caller's to say (it polls again in its next task).
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Runs `run` to its end on this thread (it pauses only if its turns end, and then is polled
/// again at once).
pub fn finish<T>(run: impl Future<Output = T>) -> T {
    let mut run = std::pin::pin!(run);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = run.as_mut().poll(&mut cx) {
            return value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn count_to(n: u32, turns: &Turns) -> u32 {
        let mut counted = 0;
        for _ in 0..n {
            counted += 1;
            if turns.due() {
                turns.pause().await;
            }
        }
        counted
    }

    #[test]
    fn a_run_whose_turns_end_pauses_and_goes_on_where_it_was() {
        let turns = Turns::new(|| true);
        let mut run = std::pin::pin!(count_to(10 * (ASK_EVERY + 1), &turns));
        let mut cx = Context::from_waker(Waker::noop());
        let mut pauses = 0;
        let counted = loop {
            match run.as_mut().poll(&mut cx) {
                Poll::Ready(counted) => break counted,
                Poll::Pending => pauses += 1,
            }
        };
        assert_eq!(counted, 10 * (ASK_EVERY + 1));
        assert_eq!(pauses, 10);
    }

    #[test]
    fn unbroken_turns_finish_in_one_poll() {
        let turns = Turns::unbroken();
        let mut run = std::pin::pin!(count_to(100_000, &turns));
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(run.as_mut().poll(&mut cx), Poll::Ready(100_000));
    }
}
