//! TVMScript constructs one by one: each reads as the loop language says it means (the program
//! equals a hand-written twin's), and each unsupported one is an error located on it and naming it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::tvmscript::{detect, Dialect};

fn run(source: &str) -> Exploration {
    explore(source, &Options::default())
}

fn rolled(ex: &Exploration) -> String {
    assert!(
        ex.ok,
        "not explored: {:?}",
        ex.diagnostics
            .iter()
            .map(|d| &d.message)
            .collect::<Vec<_>>()
    );
    ex.rolled.as_ref().unwrap().text.clone()
}

/// The one error of `source`, and the text it is located on.
fn error_at(source: &str) -> (String, String) {
    let ex = run(source);
    let errors: Vec<_> = ex.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let d = errors[0];
    let located = source[d.span.start as usize..d.span.end as usize].to_string();
    (d.message.clone(), located)
}

const HEADER: &str = "from tvm.script import tir as T\n\n@T.prim_func\ndef f(A: T.Buffer((32,), \"float32\"), C: T.Buffer((32,), \"float32\")):\n";

#[test]
fn expressions_read_as_the_loop_language_operators() {
    let tvm = format!(
        "{HEADER}    for i in T.serial(0, 16, annotations={{\"software_pipeline_stage\": [0, 1], \"software_pipeline_order\": [0, 1]}}):
        with T.block(\"b\"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi : vi + 2])
            B = T.alloc_buffer((2,), \"float32\", scope=\"shared\")
            with T.block():
                T.where(vi < 15)
                B[T.FloorMod(vi, 2)] = T.Cast(\"float32\", A[T.floordiv(vi * 2, 2)]) + T.float32(1)
            C[vi] = B[T.floormod(vi, 2)] * T.max(A[T.if_then_else(vi < 15, vi, 0, dtype=\"int32\")], T.float32(0.5))
"
    );
    let twin = "B = alloc([2], \"float32\", scope=\"shared\")
for i in range(0, 16):
    if i < 15:
        B[i % 2] = A[i * 2 // 2] + 1.0
    C[i] = B[i % 2] * max(A[i if i < 15 else 0], 0.5)

sch.annotate(i, \"software_pipeline_stage\", [0, 1])
sch.annotate(i, \"software_pipeline_order\", [0, 1])
";
    let (t, s) = (run(&tvm), run(twin));
    assert_eq!(t.dialect, Dialect::TvmScript);
    assert_eq!(s.dialect, Dialect::Stagecraft);
    assert_eq!(rolled(&t), rolled(&s));
    assert_eq!(
        t.verification.as_ref().unwrap().summary,
        s.verification.as_ref().unwrap().summary
    );
}

#[test]
fn statements_keep_their_place_in_the_pasted_text() {
    let tvm = format!(
        "{HEADER}    for i in range(16):
        with T.sblock():
            C[i] = A[i] + T.float32(1)
"
    );
    let ex = run(&tvm);
    let span = ex.statements[0].span;
    assert_eq!(
        &tvm[span.start as usize..span.end as usize],
        "C[i] = A[i] + T.float32(1)"
    );
}

#[test]
fn unsupported_constructs_are_located_errors_naming_them() {
    let cases = [
        ("        C[i] = T.exp(A[i])\n", "T.exp"),
        (
            "        with T.attr(0, \"async_scope\", 1):\n            C[i] = A[i]\n",
            "T.attr",
        ),
        (
            "        T.evaluate(0)\n        T.call_extern(\"f\")\n",
            "T.call_extern",
        ),
    ];
    for (body, construct) in cases {
        let source = format!("{HEADER}    for i in T.serial(16):\n{body}");
        let (message, located) = error_at(&source);
        assert!(message.contains(construct), "{message}");
        assert!(located.starts_with(construct), "{located} for {construct}");
    }
    let grid = format!("{HEADER}    for i in T.grid(16):\n        C[i] = A[i]\n");
    let (message, located) = error_at(&grid);
    assert!(message.contains("T.grid"), "{message}");
    assert_eq!(located, "T.grid");
    let align = format!(
        "{HEADER}    B = T.alloc_buffer((16,), align=64)\n    for i in T.serial(16):\n        B[i] = A[i]\n        C[i] = B[i]\n"
    );
    let (message, located) = error_at(&align);
    assert!(message.contains("align"), "{message}");
    assert_eq!(located, "align=64");
}

#[test]
fn one_prim_func_at_a_time() {
    let one = format!("{HEADER}    for i in T.serial(16):\n        C[i] = A[i]\n");
    let two = format!("{one}\n\n@T.prim_func\ndef g(A: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        A[i] = A[i]\n");
    let (message, located) = error_at(&two);
    assert!(message.contains("second PrimFunc"), "{message}");
    assert!(located.starts_with("def"), "{located}");
}

#[test]
fn detection_needs_a_decorator_or_an_import() {
    assert_eq!(
        detect("for i in range(4):\n    A[i] = 1\n"),
        Dialect::Stagecraft
    );
    assert_eq!(
        detect("@T.prim_func\ndef f():\n    pass\n"),
        Dialect::TvmScript
    );
    assert_eq!(
        detect("@Ts.prim_func\ndef f():\n    pass\n"),
        Dialect::TvmScript
    );
    assert_eq!(
        detect("from tvm.script import tir as T\n"),
        Dialect::TvmScript
    );
}
