//! What the last recomputation cost, in milliseconds of the main thread: what the header shows, and
//! what decides whether typing waits for a pause (`services::recompute`).

/// Exploring (without the verification and the timeline), then verifying and simulating once each
/// has run, in the same task or in tasks of their own.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// Which recomputation (`Ctx::serial`) this is.
    pub serial: u64,
    pub explore: f64,
    pub verify: Option<f64>,
    pub simulate: Option<f64>,
    /// The program is the one explored before (another code target was asked for): its
    /// verification and timeline were kept, not run again.
    pub kept: bool,
}

impl Timing {
    pub fn total(&self) -> f64 {
        self.explore + self.verify.unwrap_or(0.0) + self.simulate.unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_shown_adds_the_parts_that_have_run() {
        let mut t = Timing {
            serial: 3,
            explore: 12.5,
            ..Timing::default()
        };
        assert_eq!(t.total(), 12.5);
        t.verify = Some(20.0);
        t.simulate = Some(5.25);
        assert_eq!(t.total(), 37.75);
    }
}
