//! Parser and printer: located diagnostics for bad input, and parse(print(x)) == x.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use expect_test::{expect, Expect};
use proptest::prelude::*;
use stagecraft::parser::parse;
use stagecraft::printer::print_file;
use stagecraft::syntax::*;

fn check_diagnostics(text: &str, expect: Expect) {
    let parsed = parse(text);
    let lowered = stagecraft::lower::lower(&parsed.file);
    let rendered: String = parsed
        .diagnostics
        .iter()
        .chain(&lowered.diagnostics)
        .map(|d| d.render("t.py", text))
        .collect();
    expect.assert_eq(&rendered);
}

#[test]
fn unclosed_bracket_costs_one_line() {
    check_diagnostics(
        "B = alloc([1]\nfor i in range(4):\n    C[i] = A[i]\n",
        expect![[r#"
            t.py:1:14: error: expected `)` to close the call, found the end of the line
                B = alloc([1]
                             ^
        "#]],
    );
}

#[test]
fn bad_indentation_and_unknown_functions_are_located() {
    check_diagnostics(
        "for i in range(4):\n    C[i] = A[i]\n      D[i] = sqrt(A[i])\n",
        expect![[r#"
            t.py:3:7: error: unexpected indentation
                      D[i] = sqrt(A[i])
                      ^
                hint: align it with the line above
            t.py:3:14: error: unknown function `sqrt`
                      D[i] = sqrt(A[i])
                             ^^^^
                hint: the functions are max(a, b), min(a, b), fma(a, b, c) and abs(a)
        "#]],
    );
}

#[test]
fn names_that_are_neither_buffers_nor_loop_variables() {
    check_diagnostics(
        "for i in range(4):\n    C[i] = A + 1\n",
        expect![[r#"
            t.py:2:12: error: `A` is neither a buffer element nor a loop variable
                    C[i] = A + 1
                           ^
                hint: allocate it (`A = alloc([1])`) or index it like a global buffer (`A[i]`)
        "#]],
    );
}

#[test]
fn annotations_in_both_forms_with_and_without_sch() {
    let text = "for i in range(4):\n    C[i] = A[i]\nsch.annotate(i, \"software_pipeline_stage\", [0])\nannotate(i, ann_key=\"custom\", ann_val=[1, -2])\n";
    let lowered = stagecraft::lower::lower(&parse(text).file);
    assert!(lowered.diagnostics.is_empty());
    let anns: Vec<(String, Option<Vec<i64>>)> = lowered
        .annotations
        .iter()
        .map(|a| (a.key.to_string(), a.values.clone()))
        .collect();
    assert_eq!(
        anns,
        vec![
            ("software_pipeline_stage".into(), Some(vec![0])),
            ("custom".into(), Some(vec![1, -2]))
        ]
    );
}

/// Python and TVM take a tuple wherever a list goes: `(0, 1)` and `(0,)` annotate as `[0, 1]` and
/// `[0]` do. Where no list goes, a tuple is refused as a list is.
#[test]
fn annotation_values_may_be_tuples() {
    let text = "for i in range(4):\n    C[i] = A[i]\nsch.annotate(i, \"software_pipeline_stage\", (0, 1))\nsch.annotate(i, \"software_pipeline_async_stages\", (0,))\n";
    let lowered = stagecraft::lower::lower(&parse(text).file);
    assert!(lowered.diagnostics.is_empty(), "{:?}", lowered.diagnostics);
    let values: Vec<Option<Vec<i64>>> = lowered
        .annotations
        .iter()
        .map(|a| a.values.clone())
        .collect();
    assert_eq!(values, vec![Some(vec![0, 1]), Some(vec![0])]);
    check_diagnostics(
        "for i in range(4):\n    C[i] = (A[i], 1)\n",
        expect![[r#"
            t.py:2:12: error: a list or tuple is not a value
                    C[i] = (A[i], 1)
                           ^^^^^^^^^
                hint: a statement writes one number: read elements (`A[i]`) and combine them with + - * / and max, min, fma, abs
        "#]],
    );
}

/// What a GPU engineer writes from habit: a stepped range and TVMScript's loops. Each is named,
/// with the loop the language takes, and the body is still read (both loops are reported).
#[test]
fn stepped_ranges_and_tvmscript_loops_say_what_to_write() {
    check_diagnostics(
        "for k in range(8, 64, 16):\n    for j in T.serial(16):\n        C[k + j] = A[k + j]\n    for j in T.grid(4, 4):\n        C[j] = A[j]\n",
        expect![[r#"
            t.py:1:10: error: Stagecraft's loops step by 1: `range` takes no step
                for k in range(8, 64, 16):
                         ^^^^^^^^^^^^^^^^
                hint: count the iterations instead: `for k in range(4):`, and write `8 + 16 * k` where the loop used `k`
            t.py:2:14: error: `T.serial` is TVMScript: in the loop language, loops run over `range(...)`
                    for j in T.serial(16):
                             ^^^^^^^^^^^^
                hint: write `for j in range(16):`, or paste the whole `@T.prim_func`, which is read as TVMScript
            t.py:4:14: error: `T.grid` is TVMScript: in the loop language, loops run over `range(...)`
                    for j in T.grid(4, 4):
                             ^^^^^^^^^^^^
                hint: write `for j in range(16):` or `for j in range(lo, hi):`, or paste the whole `@T.prim_func`, which is read as TVMScript
        "#]],
    );
}

/// `X[i] op= v` is `X[i] = X[i] op v`, the whole of `v` one operand (`*= a + b` multiplies by the
/// sum); what is not a buffer element gets the error any assignment to it gets.
#[test]
fn augmented_assignments_read_as_their_long_form() {
    let short = parse("for i in range(4):\n    C[0] *= A[i] + 1\n    D[i] -= 2\n");
    let long = parse("for i in range(4):\n    C[0] = C[0] * (A[i] + 1)\n    D[i] = D[i] - 2\n");
    assert!(short.diagnostics.is_empty(), "{:?}", short.diagnostics);
    assert_eq!(print_file(&short.file), print_file(&long.file));
    check_diagnostics(
        "for i in range(4):\n    C += A[i]\nN += 1\n",
        expect![[r#"
            t.py:2:5: error: only buffer elements can be assigned inside the program
                    C += A[i]
                    ^
                hint: write `B[0] = ...`; allocate buffers at the top level with `alloc`
            t.py:3:1: error: only buffer elements can be assigned inside the program
                N += 1
                ^
                hint: write `B[0] = ...`; allocate buffers at the top level with `alloc`
        "#]],
    );
}

#[test]
fn garbage_never_panics() {
    for text in [
        "",
        "\n\n",
        "for",
        "for i in",
        "((((((",
        "]]]",
        "with x:",
        "if :",
        "\t\tB[0] = 1",
        "é = ∑",
        "B[0] = 1 if",
        "x = alloc([1], versions=3)",
    ] {
        let _ = stagecraft::explore::explore(text, &Default::default());
    }
}

fn arb_expr() -> BoxedStrategy<Expr> {
    let leaf = prop_oneof![
        (0i64..1000).prop_map(ExprKind::Int),
        (0u32..1000).prop_map(|v| ExprKind::Float(f64::from(v) / 8.0)),
        "[a-z][a-z0-9_]{0,3}"
            .prop_filter("keyword", |s| !stagecraft::lexer::is_keyword(s))
            .prop_map(|s| ExprKind::Name(s.into())),
    ]
    .prop_map(|k| Expr::new(k, Default::default()));
    leaf.prop_recursive(4, 24, 3, |inner| {
        let b = |e: Expr| Box::new(e);
        prop_oneof![
            (
                inner.clone(),
                inner.clone(),
                prop_oneof![
                    Just(BinOp::Add),
                    Just(BinOp::Sub),
                    Just(BinOp::Mul),
                    Just(BinOp::Div),
                    Just(BinOp::FloorDiv),
                    Just(BinOp::Mod)
                ]
            )
                .prop_map(move |(l, r, op)| Expr::new(
                    ExprKind::Binary(op, b(l), b(r)),
                    Default::default()
                )),
            inner
                .clone()
                .prop_map(move |x| Expr::new(ExprKind::Neg(b(x)), Default::default())),
            (
                "[A-Z][a-z]{0,2}",
                proptest::collection::vec(inner.clone(), 1..3)
            )
                .prop_map(|(n, ix)| Expr::new(
                    ExprKind::Subscript {
                        base: Name {
                            text: n.into(),
                            span: Default::default()
                        },
                        indices: ix
                    },
                    Default::default()
                )),
            (inner.clone(), inner).prop_map(move |(l, r)| Expr::new(
                ExprKind::Call {
                    func: Name {
                        text: "max".into(),
                        span: Default::default()
                    },
                    args: vec![
                        Arg {
                            name: None,
                            value: l
                        },
                        Arg {
                            name: None,
                            value: r
                        }
                    ]
                },
                Default::default()
            )),
        ]
    })
    .boxed()
}

fn arb_file() -> impl Strategy<Value = File> {
    let assign =
        ("[A-Z]".prop_map(String::from), arb_expr(), arb_expr()).prop_map(|(n, i, v)| Stmt {
            kind: StmtKind::Assign {
                target: Expr::new(
                    ExprKind::Subscript {
                        base: Name {
                            text: n.into(),
                            span: Default::default(),
                        },
                        indices: vec![i],
                    },
                    Default::default(),
                ),
                value: v,
            },
            span: Default::default(),
        });
    let for_loop = proptest::collection::vec(assign.clone(), 1..4).prop_map(|body| Stmt {
        kind: StmtKind::For {
            var: Name {
                text: "i".into(),
                span: Default::default(),
            },
            range: vec![Expr::new(ExprKind::Int(16), Default::default())],
            body,
        },
        span: Default::default(),
    });
    // `if … else:` (the else empty or not) and `with async_stage(q):` round-trip too.
    let branches = (
        arb_expr(),
        proptest::collection::vec(assign.clone(), 1..3),
        proptest::collection::vec(assign.clone(), 0..3),
    )
        .prop_map(|(cond, body, orelse)| Stmt {
            kind: StmtKind::If { cond, body, orelse },
            span: Default::default(),
        });
    let stage = proptest::collection::vec(assign.clone(), 1..3).prop_map(|body| Stmt {
        kind: StmtKind::With {
            item: Expr::new(
                ExprKind::Call {
                    func: Name {
                        text: "async_stage".into(),
                        span: Default::default(),
                    },
                    args: vec![Arg {
                        name: None,
                        value: Expr::new(ExprKind::Int(0), Default::default()),
                    }],
                },
                Default::default(),
            ),
            body,
        },
        span: Default::default(),
    });
    proptest::collection::vec(prop_oneof![assign, for_loop, branches, stage], 0..5)
        .prop_map(|stmts| File { stmts })
}

proptest! {
    #[test]
    fn parse_of_print_is_identity(file in arb_file()) {
        let text = print_file(&file);
        let parsed = parse(&text);
        prop_assert!(parsed.diagnostics.is_empty(), "{text}\n{:?}", parsed.diagnostics);
        prop_assert_eq!(without_spans(&parsed.file), without_spans(&file), "{}", text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "[ -~\n\t]{0,200}") {
        let ex = stagecraft::explore::explore(&text, &Default::default());
        for d in &ex.diagnostics {
            prop_assert!(d.span.end as usize <= text.len());
        }
    }
}

/// Operators of one level group to the left, and each level binds as Python's does.
#[test]
fn binary_operators_group_left_and_by_precedence() {
    let parsed = parse("x = a - b - c * d / e % f\ny = not p < q and r or s\n");
    assert!(parsed.diagnostics.is_empty());
    expect![[r#"
        x = a - b - c * d / e % f
        y = not p < q and r or s
    "#]]
    .assert_eq(&print_file(&parsed.file));
    let StmtKind::Assign { value, .. } = &parsed.file.stmts[0].kind else {
        panic!("an assignment")
    };
    let ExprKind::Binary(BinOp::Sub, lhs, rhs) = &value.kind else {
        panic!("the last `-` is the root: {value:?}")
    };
    assert!(matches!(lhs.kind, ExprKind::Binary(BinOp::Sub, _, _)));
    assert!(matches!(rhs.kind, ExprKind::Binary(BinOp::Mod, _, _)));
    let StmtKind::Assign { value, .. } = &parsed.file.stmts[1].kind else {
        panic!("an assignment")
    };
    let ExprKind::Bool(BoolOp::Or, lhs, _) = &value.kind else {
        panic!("`or` is the root: {value:?}")
    };
    let ExprKind::Bool(BoolOp::And, not, _) = &lhs.kind else {
        panic!("`and` binds tighter than `or`")
    };
    assert!(
        matches!(&not.kind, ExprKind::Not(inner) if matches!(inner.kind, ExprKind::Compare(..)))
    );
}

/// A long run of prefix operators is refused plainly instead of exhausting the stack.
#[test]
fn deeply_nested_prefix_operators_are_refused() {
    for op in ["not ", "-"] {
        let text = format!("x = {}1\n", op.repeat(40_000 / op.len()));
        let parsed = parse(&text);
        assert!(
            parsed
                .diagnostics
                .iter()
                .any(|d| d.message.contains("nested too deeply")),
            "{op}"
        );
    }
}
