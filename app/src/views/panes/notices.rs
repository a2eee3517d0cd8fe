//! Plain sentences above the tabs about what was skipped or cut short, and why.

use stagecraft::explore::Exploration;
use stagecraft::timeline::Timeline;
use stagecraft::verify::{Verdict, Verification};
use stagecraft_link::Pane;

/// Plain sentences about what was skipped or cut short, and why, each with the pane it is about
/// (`None`: the page as a whole).
pub fn notices(
    ex: Option<&Exploration>,
    verification: Option<&Verification>,
    timeline: Option<&Timeline>,
) -> Vec<(Option<Pane>, String)> {
    let mut out: Vec<(Option<Pane>, String)> = Vec::new();
    let Some(ex) = ex else { return out };
    let verifying = Some(Pane::Verification);
    if let Some(v) = verification {
        if v.verdict == Verdict::NotRun {
            out.push((verifying, format!("Verification skipped — {}.", v.summary)));
        } else if v.unjudged_for_budget > 0 {
            out.push((
                verifying,
                format!(
                    "Some waits were not judged for tightness (the interpreter's budget): {}.",
                    v.summary
                ),
            ));
        }
    }
    out.extend(
        timeline
            .and_then(|t| t.coverage())
            .map(|n| (Some(Pane::Timeline), n)),
    );
    // The exploration's notes are about the pipelined program.
    out.extend(ex.notes.iter().map(|n| (Some(Pane::Program), n.clone())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft::explore::{explore, Options};

    #[test]
    fn skipped_and_cut_short_work_is_said_plainly() {
        let text = "B = alloc([1], scope=\"shared\")\nfor i in range(60000):\n    B[0] = A[i]\n    C[i] = B[0] + 1\nsch.annotate(i, \"software_pipeline_stage\", [0, 1])\nsch.annotate(i, \"software_pipeline_order\", [0, 1])\nsch.annotate(i, \"software_pipeline_async_stages\", [0])\n";
        let ex = explore(text, &Options::default());
        let all = notices(Some(&ex), ex.verification.as_ref(), ex.timeline.as_ref());
        let about = |pane: Option<Pane>| {
            all.iter()
                .filter(|(p, _)| *p == pane)
                .map(|(_, n)| n.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(about(Some(Pane::Verification)).contains("Verification skipped"));
        let said = about(Some(Pane::Timeline));
        assert!(
            said.contains("The timeline simulates the first 25001 steps only")
                && said.contains("it draws steps 1–64, and the metrics cover the 25001."),
            "{said}"
        );
        let small = explore(stagecraft_link::presets::DEFAULT, &Options::default());
        let v = small.verification.as_ref();
        let t = small.timeline.as_ref();
        assert!(notices(Some(&small), v, t).is_empty());
    }
}
