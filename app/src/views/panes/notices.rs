//! Plain sentences above the tabs about what was skipped, cut short or slow, and why.

use crate::markup::format::fixed;
use crate::model::budget::FRAME_MS;
use stagecraft::explore::Exploration;
use stagecraft::timeline::Timeline;
use stagecraft::verify::{Verdict, Verification};

/// Plain sentences about what was skipped, cut short or slow, and why. `slow` is, when the panes
/// wait for a pause in typing, the last recomputation's time and the estimated time to draw it.
pub fn notices(
    ex: Option<&Exploration>,
    verification: Option<&Verification>,
    timeline: Option<&Timeline>,
    slow: Option<(f64, f64)>,
) -> Vec<String> {
    let mut out = Vec::new();
    match slow {
        Some((ms, _)) if ms > FRAME_MS => out.push(format!(
            "Recomputing took {} ms, longer than a frame ({} ms): the panes now update when you pause typing.",
            fixed(ms, 0),
            fixed(FRAME_MS, 0)
        )),
        Some((ms, draw)) => out.push(format!(
            "Recomputing took {} ms and drawing its result about {} ms more, too long for one keystroke: the panes now update when you pause typing.",
            fixed(ms, 0),
            fixed(draw, 0)
        )),
        None => {}
    }
    let Some(ex) = ex else { return out };
    if let Some(v) = verification {
        if v.verdict == Verdict::NotRun {
            out.push(format!("Verification skipped — {}.", v.summary));
        } else if v.unjudged_for_budget > 0 {
            out.push(format!(
                "Some waits were not judged for tightness (the interpreter's budget): {}.",
                v.summary
            ));
        }
    }
    out.extend(timeline.and_then(|t| t.coverage()));
    out.extend(ex.notes.iter().cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, Options};

    #[test]
    fn skipped_cut_short_and_slow_work_is_said_plainly() {
        let text = "B = alloc([1], scope=\"shared\")\nfor i in range(60000):\n    B[0] = A[i]\n    C[i] = B[0] + 1\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n";
        let ex = explore(text, &Options::default());
        let said = notices(
            Some(&ex),
            ex.verification.as_ref(),
            ex.timeline.as_ref(),
            Some((40.0, 0.0)),
        )
        .join("\n");
        assert!(said.contains("Recomputing took 40 ms"), "{said}");
        assert!(said.contains("Verification skipped"), "{said}");
        assert!(
            said.contains("The timeline simulates the first 25001 steps only")
                && said.contains("it draws steps 1–64, and the metrics cover the 25001."),
            "{said}"
        );
        let small = explore(stagecraft_link::presets::DEFAULT, &Options::default());
        let v = small.verification.as_ref();
        let t = small.timeline.as_ref();
        assert!(notices(Some(&small), v, t, None).is_empty());
        let drawn = notices(Some(&small), v, t, Some((12.0, 34.0))).join("\n");
        assert!(
            drawn.contains("took 12 ms and drawing its result about 34 ms more"),
            "{drawn}"
        );
    }
}
