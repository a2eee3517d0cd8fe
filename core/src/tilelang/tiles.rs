//! TileLang's tile operations as the loop language's element loops: `T.copy` a nest over the
//! tile copying element by element, `T.gemm` the three-deep multiply-accumulate nest
//! (examples/rfc_e_nested_gemm.py's innermost loops), `T.clear` / `T.fill` a nest storing one
//! value. Each statement made here carries the span of the call it stands for.

use crate::diagnostic::Span;
use crate::syntax::{BinOp, Expr, ExprKind, Ident, Name, Stmt, StmtKind};

/// One side of a `T.copy`: a buffer and where in it the tile starts (a whole buffer starts at
/// its origin).
pub(super) struct Region {
    pub buffer: Name,
    pub starts: Vec<Expr>,
}

fn name(text: &Ident, span: Span) -> Expr {
    Expr::new(ExprKind::Name(text.clone()), span)
}

/// `start + var`, or `var` from the origin.
fn offset(start: &Expr, var: &Ident, span: Span) -> Expr {
    match start.kind {
        ExprKind::Int(0) => name(var, span),
        _ => Expr::new(
            ExprKind::Binary(
                BinOp::Add,
                Box::new(start.clone()),
                Box::new(name(var, span)),
            ),
            span,
        ),
    }
}

fn element(region: &Region, vars: &[Ident], span: Span) -> Expr {
    let indices = region
        .starts
        .iter()
        .zip(vars)
        .map(|(s, v)| offset(s, v, span))
        .collect();
    Expr::new(
        ExprKind::Subscript {
            base: region.buffer.clone(),
            indices,
        },
        span,
    )
}

fn subscript(buffer: &Name, vars: &[&Ident], span: Span) -> Expr {
    Expr::new(
        ExprKind::Subscript {
            base: buffer.clone(),
            indices: vars.iter().map(|v| name(v, span)).collect(),
        },
        span,
    )
}

fn assign(target: Expr, value: Expr, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Assign { target, value },
        span,
    }
}

/// `inner` under one loop per extent, the outermost first.
fn nest(vars: &[Ident], extents: &[i64], inner: Stmt, span: Span) -> Stmt {
    vars.iter()
        .zip(extents)
        .rev()
        .fold(inner, |body, (var, extent)| Stmt {
            kind: StmtKind::For {
                var: Name {
                    text: var.clone(),
                    span,
                },
                range: vec![Expr::new(ExprKind::Int(*extent), span)],
                body: vec![body],
            },
            span,
        })
}

/// `T.copy(src, dst)` over a tile of `extents`: `dst[d + v…] = src[s + v…]`.
pub(super) fn copy(
    src: &Region,
    dst: &Region,
    extents: &[i64],
    vars: &[Ident],
    span: Span,
) -> Stmt {
    let inner = assign(element(dst, vars, span), element(src, vars, span), span);
    nest(vars, extents, inner, span)
}

/// `T.clear(buffer)` (`value` 0) or `T.fill(buffer, value)`.
pub(super) fn fill(buffer: &Name, shape: &[i64], value: Expr, vars: &[Ident], span: Span) -> Stmt {
    let all: Vec<&Ident> = vars.iter().collect();
    let inner = assign(subscript(buffer, &all, span), value, span);
    nest(vars, shape, inner, span)
}

/// The operands of a `T.gemm` and its sizes: `c[m, n] += a[m, k] * b[k, n]`, `a` read as
/// `a[k, m]` when transposed, `b` as `b[n, k]`.
pub(super) struct Gemm<'a> {
    pub a: &'a Name,
    pub b: &'a Name,
    pub c: &'a Name,
    pub transpose_a: bool,
    pub transpose_b: bool,
    /// M, N, K.
    pub sizes: [i64; 3],
}

/// The nest `for i: for j: for l: C[i, j] = C[i, j] + A[i, l] * B[l, j]` over M, N, K
/// (`vars` are i, j and l).
pub(super) fn gemm(g: &Gemm, vars: &[Ident; 3], span: Span) -> Stmt {
    let [i, j, l] = vars;
    let a = if g.transpose_a { [l, i] } else { [i, l] };
    let b = if g.transpose_b { [j, l] } else { [l, j] };
    let product = Expr::new(
        ExprKind::Binary(
            BinOp::Mul,
            Box::new(subscript(g.a, &a, span)),
            Box::new(subscript(g.b, &b, span)),
        ),
        span,
    );
    let value = Expr::new(
        ExprKind::Binary(
            BinOp::Add,
            Box::new(subscript(g.c, &[i, j], span)),
            Box::new(product),
        ),
        span,
    );
    let inner = assign(subscript(g.c, &[i, j], span), value, span);
    nest(&[i.clone(), j.clone(), l.clone()], &g.sizes, inner, span)
}
