//! Canonical text for a syntax tree: four-space indentation, minimal parentheses, one statement per
//! line. `parse(print(x)) == x` (up to spans) is a property test.

use crate::syntax::*;

pub fn print_file(file: &File) -> String {
    let mut out = String::new();
    for s in &file.stmts {
        print_stmt(&mut out, s, 0);
    }
    out
}

pub fn print_stmt(out: &mut String, s: &Stmt, indent: usize) {
    let pad = "    ".repeat(indent);
    match &s.kind {
        StmtKind::Assign { target, value } => {
            out.push_str(&format!(
                "{pad}{} = {}\n",
                print_expr(target),
                print_expr(value)
            ));
        }
        StmtKind::Expr(e) => out.push_str(&format!("{pad}{}\n", print_expr(e))),
        StmtKind::For { var, range, body } => {
            let args: Vec<String> = range.iter().map(print_expr).collect();
            out.push_str(&format!(
                "{pad}for {} in range({}):\n",
                var.text,
                args.join(", ")
            ));
            print_body(out, body, indent + 1);
        }
        StmtKind::With { item, body } => {
            out.push_str(&format!("{pad}with {}:\n", print_expr(item)));
            print_body(out, body, indent + 1);
        }
        StmtKind::If { cond, body } => {
            out.push_str(&format!("{pad}if {}:\n", print_expr(cond)));
            print_body(out, body, indent + 1);
        }
        StmtKind::Pass => out.push_str(&format!("{pad}pass\n")),
        StmtKind::Error => out.push_str(&format!("{pad}pass  # unparsed line\n")),
    }
}

fn print_body(out: &mut String, body: &[Stmt], indent: usize) {
    if body.is_empty() {
        out.push_str(&format!("{}pass\n", "    ".repeat(indent)));
    }
    for s in body {
        print_stmt(out, s, indent);
    }
}

/// Binding strength, higher binds tighter.
fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::IfElse { .. } => 1,
        ExprKind::Bool(BoolOp::Or, ..) => 2,
        ExprKind::Bool(BoolOp::And, ..) => 3,
        ExprKind::Not(_) => 4,
        ExprKind::Compare(..) => 5,
        ExprKind::Binary(BinOp::Add | BinOp::Sub, ..) => 6,
        ExprKind::Binary(..) => 7,
        ExprKind::Neg(_) => 8,
        ExprKind::Int(v) if *v < 0 => 8,
        ExprKind::Float(v) if v.is_sign_negative() => 8,
        _ => 9,
    }
}

fn wrap(e: &Expr, min: u8) -> String {
    let s = print_expr(e);
    if precedence(e) < min {
        format!("({s})")
    } else {
        s
    }
}

pub fn print_float(v: f64) -> String {
    if v.is_nan() {
        return "float(\"nan\")".into();
    }
    if v.is_infinite() {
        return if v > 0.0 {
            "float(\"inf\")".into()
        } else {
            "-float(\"inf\")".into()
        };
    }
    let s = format!("{v:?}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

pub fn print_expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Float(v) => print_float(*v),
        ExprKind::Str(s) => format!("\"{s}\""),
        ExprKind::Name(n) => n.clone(),
        ExprKind::List(items) => {
            format!(
                "[{}]",
                items.iter().map(print_expr).collect::<Vec<_>>().join(", ")
            )
        }
        ExprKind::Subscript { base, indices } => {
            format!(
                "{}[{}]",
                base.text,
                indices
                    .iter()
                    .map(print_expr)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        ExprKind::Call { func, args } => {
            let args: Vec<String> = args
                .iter()
                .map(|a| match &a.name {
                    Some(n) => format!("{}={}", n.text, print_expr(&a.value)),
                    None => print_expr(&a.value),
                })
                .collect();
            format!("{}({})", func.text, args.join(", "))
        }
        ExprKind::Neg(x) => format!("-{}", wrap(x, 8)),
        ExprKind::Not(x) => format!("not {}", wrap(x, 4)),
        ExprKind::Binary(op, l, r) => {
            let p = precedence(e);
            format!("{} {} {}", wrap(l, p), op.symbol(), wrap(r, p + 1))
        }
        ExprKind::Compare(op, l, r) => format!("{} {} {}", wrap(l, 6), op.symbol(), wrap(r, 6)),
        ExprKind::Bool(op, l, r) => {
            let p = precedence(e);
            let word = if *op == BoolOp::And { "and" } else { "or" };
            format!("{} {word} {}", wrap(l, p), wrap(r, p + 1))
        }
        ExprKind::IfElse {
            cond,
            then,
            otherwise,
        } => {
            format!(
                "{} if {} else {}",
                wrap(then, 2),
                wrap(cond, 2),
                wrap(otherwise, 1)
            )
        }
        ExprKind::Error => "None".into(),
    }
}
