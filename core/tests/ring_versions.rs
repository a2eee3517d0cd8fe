//! Ring versions are given only where they are right: the loops of issue 21 whose versioned
//! buffers sent reads to the wrong slot, and the classic cases that keep their rings.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Options};
use stagecraft::verify::Verdict;

/// Explores `source` and returns (versions of `buffer`, verdict), failing on a refusal.
fn versions_and_verdict(source: &str, buffer: &str) -> (u32, Verdict) {
    let ex = explore(source, &Options::default());
    assert!(ex.ok, "refused:\n{source}\n{:?}", ex.diagnostics);
    let b = ex.buffers.iter().find(|b| b.name == buffer).unwrap();
    (b.versions, ex.verification.unwrap().verdict)
}

fn user_ring(asynchronous: &str) -> String {
    format!(
        "S = alloc([4])
for i in range(16):
    S[i % 4] = A[i]
    C[i] = S[(i + 3) % 4]
sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [{asynchronous}])
"
    )
}

#[test]
fn a_user_written_ring_reading_the_previous_iteration_keeps_one_version() {
    for asynchronous in ["", "0"] {
        let (versions, verdict) = versions_and_verdict(&user_ring(asynchronous), "S");
        assert_eq!(versions, 1, "async [{asynchronous}]");
        assert_eq!(verdict, Verdict::Equivalent, "async [{asynchronous}]");
    }
}

#[test]
fn an_element_every_iteration_reads_keeps_one_version() {
    let source = "S1 = alloc([16])
for i in range(16):
    S1[i] = B[i] * 3
    C[i] = B[i] + S1[0]
sch.annotate(i, \"software_pipeline_stage\", [2, 3])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [2])
";
    let (versions, verdict) = versions_and_verdict(source, "S1");
    assert_eq!(versions, 1);
    assert!(
        matches!(verdict, Verdict::Equivalent | Verdict::SafeButLoose),
        "{verdict:?}"
    );
}

#[test]
fn a_buffer_written_and_read_in_the_same_iteration_keeps_its_ring() {
    // RFC 0077 (a): the classic double buffer.
    let source = "B = alloc([1])
for i in range(16):
    B[0] = A[i] + 1
    C[i] = B[0] + 1
sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";
    assert_eq!(versions_and_verdict(source, "B"), (2, Verdict::Equivalent));
    // Two halves of a tile written by two statements cover a read of the whole tile.
    let halves = "T = alloc([4])
for i in range(8):
    for x in range(2):
        T[x] = A[i, x]
    for x in range(2):
        T[x + 2] = A[i, x + 2]
    for x in range(4):
        C[i, x] = T[x]
sch.annotate(i, \"software_pipeline_stage\", [0, 0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1, 2])
sch.annotate(i, \"software_pipeline_async_stages\", [0])
";
    assert_eq!(versions_and_verdict(halves, "T"), (2, Verdict::Equivalent));
}
