//! Small text formatting shared by the panes, kept out of the views.

use stagecraft::verify::Judgement;

/// `x` with `decimals` digits after the point, without the float formatting machinery (which alone
/// costs kilobytes of the bundle).
pub fn fixed(x: f64, decimals: u32) -> String {
    let scale = 10i64.pow(decimals);
    let n = (x * scale as f64).round() as i64;
    let sign = if n < 0 { "-" } else { "" };
    let (whole, frac) = (n.abs() / scale, n.abs() % scale);
    if decimals == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{frac:0width$}", width = decimals as usize)
    }
}

/// A clock that ticks more often than this (ms) is read to tenths of a millisecond.
pub const FINE_TICK_MS: f64 = 0.5;

/// `ms` milliseconds as a clock that ticks every `tick` ms measured them: tenths where it ticks
/// at least twice a millisecond (Chromium's every 0.1 ms or less, a difference of two readings
/// a hair either side of it), whole milliseconds where it ticks each millisecond (Firefox's, where
/// a recomputation of 0.6 ms reads 0 or 1), and less than one tick as such.
pub fn duration(ms: f64, tick: f64) -> String {
    if tick < FINE_TICK_MS {
        format!("{} ms", fixed(ms, 1))
    } else if ms < tick {
        format!("< {} ms", fixed(tick, 0))
    } else {
        format!("{} ms", fixed(ms, 0))
    }
}

/// The verdict's class, as the panes colour it: the worker's drawings and the page's alike.
pub use stagecraft::verification_html::verdict_class;

/// A wait's judgement, with the fix of a racy one (`WaitVerdict::lower_by`).
pub fn judgement_with_fix(j: Judgement, lower_by: Option<i64>) -> String {
    match (j, lower_by) {
        (Judgement::Racy, Some(k)) => format!("racy: count {k} lower is race-free"),
        _ => j.words(),
    }
}

/// `[1, 2]`
pub fn index(index: &[i64]) -> String {
    let parts: Vec<String> = index.iter().map(|i| i.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// An output value as the interpreter computed it (small integers in practice), without the float
/// formatting machinery.
pub fn value(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        (v as i64).to_string()
    } else {
        fixed(v, 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_rounds_and_signs() {
        assert_eq!(fixed(2.345, 2), "2.35");
        assert_eq!(fixed(-0.5, 1), "-0.5");
        assert_eq!(fixed(12.0, 0), "12");
        assert_eq!(value(-8.0), "-8");
        assert_eq!(value(0.25), "0.2500");
        assert_eq!(index(&[1, -2]), "[1, -2]");
    }

    #[test]
    fn a_duration_has_no_more_digits_than_its_clock() {
        assert_eq!(duration(0.62, 0.005), "0.6 ms");
        // A 0.1 ms clock's tick, as two of its readings differ.
        assert_eq!(duration(12.0, 1234.5 - 1234.4), "12.0 ms");
        assert_eq!(duration(0.0, 1.0), "< 1 ms");
        assert_eq!(duration(1.0, 1.0), "1 ms");
        assert_eq!(duration(17.0, 1.0), "17 ms");
    }
}
