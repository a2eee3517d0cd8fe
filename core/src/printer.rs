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
        StmtKind::If { cond, body, orelse } => {
            out.push_str(&format!("{pad}if {}:\n", print_expr(cond)));
            print_body(out, body, indent + 1);
            if !orelse.is_empty() {
                out.push_str(&format!("{pad}else:\n"));
                print_body(out, orelse, indent + 1);
            }
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

/// Writes `e`, in parentheses when it binds looser than `min`.
fn wrap(out: &mut String, e: &Expr, min: u8) {
    if precedence(e) < min {
        out.push('(');
        write_expr(out, e);
        out.push(')');
    } else {
        write_expr(out, e);
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
    let mut out = String::new();
    write_expr(&mut out, e);
    out
}

fn write_list(out: &mut String, items: &[Expr]) {
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_expr(out, item);
    }
}

/// Appends the text of `e` to `out`: one buffer for a whole program, where a string per node
/// made printing a large pipelined program a tenth of its exploration.
pub fn write_expr(out: &mut String, e: &Expr) {
    use std::fmt::Write;
    match &e.kind {
        ExprKind::Int(v) => {
            let _ = write!(out, "{v}");
        }
        ExprKind::Float(v) => out.push_str(&print_float(*v)),
        ExprKind::Str(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        ExprKind::Name(n) => out.push_str(n),
        ExprKind::List(items) => {
            out.push('[');
            write_list(out, items);
            out.push(']');
        }
        ExprKind::Subscript { base, indices } => {
            out.push_str(&base.text);
            out.push('[');
            write_list(out, indices);
            out.push(']');
        }
        ExprKind::Call { func, args } => {
            out.push_str(&func.text);
            out.push('(');
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                if let Some(n) = &a.name {
                    out.push_str(&n.text);
                    out.push('=');
                }
                write_expr(out, &a.value);
            }
            out.push(')');
        }
        ExprKind::Neg(x) => {
            out.push('-');
            wrap(out, x, 8);
        }
        ExprKind::Not(x) => {
            out.push_str("not ");
            wrap(out, x, 4);
        }
        ExprKind::Binary(op, l, r) => {
            let p = precedence(e);
            wrap(out, l, p);
            out.push(' ');
            out.push_str(op.symbol());
            out.push(' ');
            wrap(out, r, p + 1);
        }
        ExprKind::Compare(op, l, r) => {
            wrap(out, l, 6);
            out.push(' ');
            out.push_str(op.symbol());
            out.push(' ');
            wrap(out, r, 6);
        }
        ExprKind::Bool(op, l, r) => {
            let p = precedence(e);
            wrap(out, l, p);
            out.push_str(if *op == BoolOp::And { " and " } else { " or " });
            wrap(out, r, p + 1);
        }
        ExprKind::IfElse {
            cond,
            then,
            otherwise,
        } => {
            wrap(out, then, 2);
            out.push_str(" if ");
            wrap(out, cond, 2);
            out.push_str(" else ");
            wrap(out, otherwise, 1);
        }
        ExprKind::Error => out.push_str("None"),
    }
}
