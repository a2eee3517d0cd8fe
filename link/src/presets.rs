//! The examples a user can load: RFC 0077's, a CUTLASS-style multistage main loop, the CDNA4
//! interleaved schedule, corner cases from TVM's tests, and one GEMM at three stages in the
//! conventions of CUTLASS, TileLang and Triton (docs/conventions.md).

pub const DEFAULT: &str = include_str!("../../examples/rfc_a_async_copy.py");

pub const PRESETS: &[(&str, &str)] = &[
    ("RFC (a): async copy", DEFAULT),
    (
        "RFC (b): two async stages",
        include_str!("../../examples/rfc_b_two_async_stages.py"),
    ),
    (
        "RFC (c): interleaved producers",
        include_str!("../../examples/rfc_c_interleaved.py"),
    ),
    (
        "RFC (d): consumer in the producer's stage",
        include_str!("../../examples/rfc_d_same_stage.py"),
    ),
    (
        "RFC (e): nested GEMM",
        include_str!("../../examples/rfc_e_nested_gemm.py"),
    ),
    (
        "CUTLASS-style multistage GEMM",
        include_str!("../../examples/cutlass_multistage.py"),
    ),
    (
        "CDNA4 interleaved (seed 002)",
        include_str!("../../examples/cdna4_interleaved.py"),
    ),
    (
        "Corner: extent < stages",
        include_str!("../../tests/cases/extent_below_stages.py"),
    ),
    (
        "Corner: extent 1",
        include_str!("../../tests/cases/extent_one.py"),
    ),
    (
        "Corner: reversed order",
        include_str!("../../tests/cases/reversed_order.py"),
    ),
    (
        "Corner: symbolic extent",
        include_str!("../../tests/cases/symbolic_extent.py"),
    ),
    (
        "Corner: accumulator",
        include_str!("../../tests/cases/accumulate.py"),
    ),
    // The same GEMM at three stages, as each library synchronizes it; docs/conventions.md has
    // their waits and barriers side by side, with Stagecraft's.
    (
        "Three stages: CUTLASS's convention",
        include_str!("../../examples/conventions_cutlass.py"),
    ),
    (
        "Three stages: TileLang's convention",
        include_str!("../../examples/conventions_tilelang.py"),
    ),
    (
        "Three stages: Triton's convention",
        include_str!("../../examples/conventions_triton.py"),
    ),
];
