//! Generated loops of a chosen size: the benchmarks' synthetic loops and the heavy schedules of
//! docs/limits.md (the heaviest inputs within the limits). One place, so that the loop a benchmark
//! measures is the one the TVM comparison builds (`scripts/compare-tvm.py`) and the heavy loops are
//! those `scripts/heavy_loop.py` prints.

use std::fmt::Write;

/// RFC (a) over 10^5 iterations: the interpreter's long run.
pub const RFC_A_LONG: &str = "B = alloc([1])
for i in range(100000):
    B[0] = A[i] + 1
    C[i] = B[0] + 1
sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";

/// The benchmarks' synthetic loop: a chain of `n` statements, each reading the previous one's
/// result, and a last one writing `C[i]`, spread evenly over `stages` stages of which every other
/// is asynchronous, over `extent` iterations; each intermediate buffer has `slots` elements,
/// statement k using slot k mod `slots`. The transform benchmarks' loops are
/// `synthetic_chain(n, 8, 64, 4)` (as scripts/compare-tvm.py and the e2e tests build them); the
/// interpreter's is `synthetic_chain(32, 4, 20000, 1)`.
pub fn synthetic_chain(n: usize, stages: usize, extent: usize, slots: usize) -> String {
    let slot = |k: usize| k % slots.max(1);
    let mut s = String::new();
    for k in 0..n {
        let _ = writeln!(s, "T{k} = alloc([{slots}])");
    }
    let _ = writeln!(s, "for i in range({extent}):");
    for k in 0..n {
        let _ = match k.checked_sub(1) {
            None => writeln!(s, "    T0[{}] = A[i, 0] * 2 + 0", slot(0)),
            Some(prev) => writeln!(s, "    T{k}[{}] = T{prev}[{}] * 2 + {k}", slot(k), slot(k)),
        };
    }
    let last = n.saturating_sub(1);
    let _ = writeln!(s, "    C[i] = T{last}[{}]", slot(last));
    let stage: Vec<usize> = (0..=n).map(|k| k * stages / (n + 1)).collect();
    let asynchronous: Vec<usize> = (0..stages).step_by(2).collect();
    annotate(&mut s, &stage, &asynchronous);
    s
}

/// The heavy schedules of docs/limits.md (`scripts/heavy_loop.py N S E` prints the same text): a
/// chain of `n` statements and a last one writing `O[i]` (`n` + 1 in all), over stages 0 to
/// `max_stage` spread evenly, every stage that has a statement but the last asynchronous, and
/// `extent` iterations.
pub fn heavy_chain(n: usize, max_stage: usize, extent: usize) -> String {
    let mut s = String::new();
    for k in 0..n {
        let _ = writeln!(s, "T{k} = alloc([1])");
    }
    let _ = writeln!(s, "for i in range({extent}):");
    for k in 0..n {
        let _ = match k.checked_sub(1) {
            None => writeln!(s, "    T0[0] = A[i] + 1"),
            Some(prev) => writeln!(s, "    T{k}[0] = T{prev}[0] + 1"),
        };
    }
    let _ = writeln!(s, "    O[i] = T{}[0] + 1", n.saturating_sub(1));
    let stage: Vec<usize> = (0..=n)
        .map(|k| (k * (max_stage + 1) / (n + 1)).min(max_stage))
        .collect();
    let mut used = stage.clone();
    used.dedup();
    used.pop();
    annotate(&mut s, &stage, &used);
    s
}

/// The three annotations of a loop over `i` whose statements run in their written order.
fn annotate(s: &mut String, stage: &[usize], asynchronous: &[usize]) {
    let list = |values: &mut dyn Iterator<Item = usize>| {
        values.map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
    };
    let _ = writeln!(
        s,
        "sch.annotate(i, \"software_pipeline_stage\", [{}])",
        list(&mut stage.iter().copied())
    );
    let _ = writeln!(
        s,
        "sch.annotate(i, \"software_pipeline_order\", [{}])",
        list(&mut (0..stage.len()))
    );
    let _ = writeln!(
        s,
        "sch.annotate(i, \"software_pipeline_async_stages\", [{}])",
        list(&mut asynchronous.iter().copied())
    );
}

/// The presets (`examples/NAME.py`) whose kernels the machine benchmark and the profiling example
/// execute.
pub const PRESETS: [&str; 7] = [
    "rfc_a_async_copy",
    "rfc_b_two_async_stages",
    "rfc_c_interleaved",
    "rfc_d_same_stage",
    "rfc_e_nested_gemm",
    "cutlass_multistage",
    "cdna4_interleaved",
];

/// A loop's kernel for one target, emitted with the default options, and the contract it runs
/// under: what the machine-level verifier's benchmark and profiling example execute again and
/// again (building the contract runs the loop's reference once, outside any timing).
pub struct MachineKernel {
    pub contract: crate::machine::Contract,
    pub text: String,
}

/// The kernel of `source` for `target`, or why there is none.
pub fn machine_kernel(source: &str, target: crate::emit::Target) -> Result<MachineKernel, String> {
    use crate::emit::{emit, EmitOptions};
    use crate::explore::{explore, Options};
    let ex = explore(
        source,
        &Options {
            verify: false,
            timeline: false,
            targets: Vec::new(),
            peeled_program: true,
            ..Options::default()
        },
    );
    let programs = ex
        .programs
        .ok_or("the loop has no pipelined program (see its diagnostics)")?;
    let peeled = programs
        .peeled
        .ok_or("the loop has no peeled pipelined program")?;
    let opts = EmitOptions::default();
    let code = emit(&peeled, &programs.params, target, &opts);
    if let Some(e) = code.error {
        return Err(format!("no {} kernel: {e}", target.name()));
    }
    let contract = crate::machine::Contract::new(
        &programs.original,
        &peeled,
        &programs.params,
        code.lanes,
        crate::machine::wave_of(target),
    )?;
    Ok(MachineKernel {
        contract,
        text: code.text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{transform, Options};
    use expect_test::expect;

    #[test]
    fn a_small_synthetic_chain_reads_as_the_benchmarks_wrote_it() {
        expect![[r#"
            T0 = alloc([4])
            T1 = alloc([4])
            T2 = alloc([4])
            for i in range(64):
                T0[0] = A[i, 0] * 2 + 0
                T1[1] = T0[1] * 2 + 1
                T2[2] = T1[2] * 2 + 2
                C[i] = T2[2]
            sch.annotate(i, "software_pipeline_stage", [0, 2, 4, 6])
            sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
            sch.annotate(i, "software_pipeline_async_stages", [0, 2, 4, 6])
        "#]]
        .assert_eq(&synthetic_chain(3, 8, 64, 4));
    }

    #[test]
    fn a_small_heavy_chain_reads_as_heavy_loop_py_prints_it() {
        // `python3 scripts/heavy_loop.py 3 2 8`
        expect![[r#"
            T0 = alloc([1])
            T1 = alloc([1])
            T2 = alloc([1])
            for i in range(8):
                T0[0] = A[i] + 1
                T1[0] = T0[0] + 1
                T2[0] = T1[0] + 1
                O[i] = T2[0] + 1
            sch.annotate(i, "software_pipeline_stage", [0, 0, 1, 2])
            sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
            sch.annotate(i, "software_pipeline_async_stages", [0, 1])
        "#]]
        .assert_eq(&heavy_chain(3, 2, 8));
    }

    #[test]
    fn every_generated_loop_is_a_valid_schedule() {
        let loops = [
            synthetic_chain(1, 8, 64, 4),
            synthetic_chain(32, 8, 64, 4),
            synthetic_chain(127, 8, 64, 4),
            synthetic_chain(32, 4, 20000, 1),
            heavy_chain(1, 1, 4),
            heavy_chain(8, 8, 16),
            heavy_chain(159, 64, 64),
            heavy_chain(159, 8, 5000),
            RFC_A_LONG.to_string(),
        ];
        for text in loops {
            let ex = transform(&text, &Options::default());
            assert!(ex.ok, "{text}\n{:?}", ex.diagnostics);
        }
    }
}
