//! Random annotated loops (1–8 statements, stages 0–4, random orders and async subsets, extents
//! 1–20, constant or symbolic): exploring never panics; a valid schedule yields programs that parse
//! back cleanly with no negative wait count; and — through the interpreter — compute what the loop
//! computes, race-free.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use proptest::prelude::*;
use stagecraft::explore::{explore, Options};
use stagecraft::verify::Verdict;

/// A generated loop: statement k writes `T{k}[0]` (shared) or `O{k}[i]` (global) and reads some
/// earlier statements' results or the input.
#[derive(Clone, Debug)]
pub struct Spec {
    pub stmts: Vec<(bool, Vec<usize>, bool)>, // (writes global, reads, reads input)
    pub stages: Vec<i64>,
    pub orders: Vec<i64>,
    pub asyncs: Vec<i64>,
    pub extent: Option<i64>,
}

pub fn source(spec: &Spec) -> String {
    let n = spec.stmts.len();
    let mut s = String::new();
    for (k, (global, _, _)) in spec.stmts.iter().enumerate() {
        if !global {
            s.push_str(&format!("T{k} = alloc([1])\n"));
        }
    }
    let extent = spec.extent.map_or("N".to_string(), |e| e.to_string());
    s.push_str(&format!("for i in range({extent}):\n"));
    for (k, (global, reads, input)) in spec.stmts.iter().enumerate() {
        let target = if *global {
            format!("O{k}[i]")
        } else {
            format!("T{k}[0]")
        };
        let mut terms: Vec<String> = reads
            .iter()
            .map(|r| {
                if spec.stmts[*r].0 {
                    format!("O{r}[i]")
                } else {
                    format!("T{r}[0]")
                }
            })
            .collect();
        if *input || terms.is_empty() {
            terms.push("A[i]".into());
        }
        s.push_str(&format!(
            "    {target} = {} + {}\n",
            terms.join(" + "),
            k + 1
        ));
    }
    let list = |v: &[i64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    s.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_stage\", [{}])\n",
        list(&spec.stages)
    ));
    s.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_order\", [{}])\n",
        list(&spec.orders)
    ));
    s.push_str(&format!(
        "sch.annotate(i, \"software_pipeline_async_stages\", [{}])\n",
        list(&spec.asyncs)
    ));
    let _ = n;
    s
}

pub fn spec_strategy() -> impl Strategy<Value = Spec> {
    (1usize..=8)
        .prop_flat_map(|n| {
            let stmts = (0..n)
                .map(|k| {
                    (
                        any::<bool>(),
                        proptest::collection::vec(0..k.max(1), 0..=k.min(2)),
                        any::<bool>(),
                    )
                })
                .collect::<Vec<_>>();
            (
                stmts,
                proptest::collection::vec(0i64..=4, n),
                Just((0..n as i64).collect::<Vec<_>>()).prop_shuffle(),
                proptest::collection::vec(0i64..=4, 0..=3),
                prop_oneof![4 => (1i64..=20).prop_map(Some), 1 => Just(None)],
                any::<bool>(),
            )
        })
        .prop_map(|(stmts, stages, orders, asyncs, extent, make_valid)| {
            let stmts: Vec<(bool, Vec<usize>, bool)> = stmts
                .into_iter()
                .enumerate()
                .map(|(k, (g, reads, input))| {
                    (g, reads.into_iter().filter(|r| *r < k).collect(), input)
                })
                .collect();
            let mut stages = stages;
            let mut orders = orders;
            if make_valid {
                // Readers no earlier than writers; within a stage keep the original order.
                for k in 0..stmts.len() {
                    for r in &stmts[k].1 {
                        stages[k] = stages[k].max(stages[*r]);
                    }
                }
                orders = (0..stmts.len() as i64).collect();
            }
            Spec {
                stmts,
                stages,
                orders,
                asyncs,
                extent,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]
    #[test]
    fn exploring_random_schedules_never_panics_and_prints_parseable_programs(spec in spec_strategy()) {
        let text = source(&spec);
        let ex = explore(&text, &Options::default());
        if ex.ok {
            for printed in [ex.rolled.as_ref().unwrap(), ex.peeled.as_ref().unwrap()] {
                let parsed = stagecraft::parser::parse(&printed.text);
                prop_assert!(parsed.diagnostics.is_empty(), "{text}\n{}\n{:?}", printed.text, parsed.diagnostics);
                let lowered = stagecraft::lower::lower(&parsed.file);
                prop_assert!(lowered.diagnostics.is_empty(), "{text}\n{}\n{:?}", printed.text, lowered.diagnostics);
            }
            for w in &ex.waits {
                for i in &w.instances {
                    prop_assert!(i.count >= 0, "{text}\nnegative count in wait #{}", w.id);
                }
            }
            let v = ex.verification.as_ref().unwrap();
            prop_assert!(
                matches!(v.verdict, Verdict::Equivalent | Verdict::SafeButLoose),
                "{text}\n{}\n{}\n{:?}\n{:?}",
                ex.rolled.as_ref().unwrap().text,
                v.summary,
                v.races.first(),
                v.differences.first()
            );
            prop_assert!(v.random_races.iter().all(|(_, n)| *n == 0), "{text}\nrandom policy raced");
        } else {
            prop_assert!(ex.diagnostics.iter().any(|d| d.is_error()), "{text}\nnot ok but no error");
        }
    }
}
