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

/// Milliseconds of writing and rendering per unit drawn (`budget::drawn_units`), the median of
/// the last few drawings measured: one drawing that also laid out a new program's rows for the
/// first time (a preset just loaded), or that a collection paused, does not make the next edit of
/// an ordinary loop look too slow to draw in its frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DrawingRate {
    recent: Vec<f64>,
}

/// Drawings the rate is the median of.
const RECENT_DRAWINGS: usize = 5;

impl DrawingRate {
    pub fn learn(&mut self, ms_per_unit: f64) {
        if !ms_per_unit.is_finite() {
            return;
        }
        if self.recent.len() == RECENT_DRAWINGS {
            self.recent.remove(0);
        }
        self.recent.push(ms_per_unit);
    }

    /// The median of the drawings measured, or `prior` before any.
    pub fn ms_per_unit(&self, prior: f64) -> f64 {
        let mut sorted = self.recent.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(prior)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_slow_drawing_does_not_move_the_rate_and_the_oldest_is_forgotten() {
        let mut r = DrawingRate::default();
        assert_eq!(r.ms_per_unit(0.5), 0.5);
        for x in [0.01, 0.012, 0.30, 0.011] {
            r.learn(x);
        }
        assert_eq!(r.ms_per_unit(0.5), 0.012);
        r.learn(f64::NAN);
        for x in [0.02, 0.021, 0.022] {
            r.learn(x);
        }
        // 0.01 and 0.012 are forgotten; 0.30, 0.011, 0.02, 0.021, 0.022 remain.
        assert_eq!(r.ms_per_unit(0.5), 0.021);
    }

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
