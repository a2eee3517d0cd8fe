//! A TileLang kernel's calls and expressions: the tile operations (`T.copy`, `T.gemm`,
//! `T.clear`, `T.fill`) checked against their tiles' shapes and made element loops
//! (`tiles.rs`); names replaced by the constants they stand for, `T.ceildiv` and the block
//! indices folded, TileLang's functions the loop language's.

use super::read::{callee, construct_name, last_part, Reader};
use super::tiles::{self, Gemm, Region};
use crate::syntax::{Arg, BinOp, Expr, ExprKind, Ident, Name, Stmt};

/// Calls that only steer how blocks are ordered or tiles laid out: one block's pipeline is the
/// same without them.
const LAYOUT_HINTS: [&str; 4] = [
    "use_swizzle",
    "annotate_layout",
    "disable_warp_group_reg_alloc",
    "no_set_max_nreg",
];

/// A tile operation's positional arguments and its keyword ones.
type Arguments<'a> = (Vec<&'a Expr>, Vec<(&'a Name, &'a Expr)>);

const ELEMENT_VARS: [&str; 8] = ["i", "j", "l", "m", "n", "o", "p", "q"];

fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

fn floor_mod(a: i64, b: i64) -> Option<i64> {
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

/// `l op r` with what is known folded: two integers computed, `0 * x` is 0, `0 + x` and
/// `1 * x` are `x` (a block index is 0, so `by * block_M + i` is `i`).
fn fold(op: BinOp, l: Expr, r: Expr, span: crate::diagnostic::Span) -> Expr {
    use ExprKind::Int;
    let computed = match (&l.kind, &r.kind) {
        (Int(a), Int(b)) => match op {
            BinOp::Add => a.checked_add(*b),
            BinOp::Sub => a.checked_sub(*b),
            BinOp::Mul => a.checked_mul(*b),
            BinOp::FloorDiv => floor_div(*a, *b),
            BinOp::Mod => floor_mod(*a, *b),
            BinOp::Div => None,
        },
        _ => None,
    };
    if let Some(v) = computed {
        return Expr::new(Int(v), span);
    }
    match (op, &l.kind, &r.kind) {
        (BinOp::Mul, Int(0), _) | (BinOp::Mul, _, Int(0)) => Expr::new(Int(0), span),
        (BinOp::Add, Int(0), _) | (BinOp::Mul, Int(1), _) => r,
        (BinOp::Add, _, Int(0)) | (BinOp::Sub, _, Int(0)) | (BinOp::Mul, _, Int(1)) => l,
        _ => Expr::new(ExprKind::Binary(op, Box::new(l), Box::new(r)), span),
    }
}

fn flag(e: &Expr) -> Option<bool> {
    match &e.kind {
        ExprKind::Name(n) if n == "True" => Some(true),
        ExprKind::Name(n) if n == "False" => Some(false),
        ExprKind::Int(v) => Some(*v != 0),
        _ => None,
    }
}

impl Reader {
    /// A name for an element loop that the text does not use (sibling nests share names).
    fn fresh(&self, base: &str) -> Ident {
        let mut name = String::from(base);
        while self.used.contains(name.as_str()) {
            name.push('_');
        }
        Ident::from(name)
    }

    fn element_vars(&self, rank: usize) -> Vec<Ident> {
        ELEMENT_VARS
            .iter()
            .take(rank)
            .map(|b| self.fresh(b))
            .collect()
    }

    fn shape_of(&self, name: &str) -> Option<Vec<i64>> {
        self.buffers
            .iter()
            .rev()
            .find(|b| b.name == name)
            .and_then(|b| b.shape.clone())
    }

    /// A statement that is a call: a tile operation, a layout hint (nothing), or refused.
    pub(super) fn operation(&mut self, e: &Expr) -> Vec<Stmt> {
        let ExprKind::Call { func, args } = &e.kind else {
            let construct = construct_name(e);
            self.unsupported(e.span, &construct);
            return Vec::new();
        };
        let made = match last_part(&func.text) {
            "copy" => self.copy(e, func, args),
            "gemm" => self.gemm(e, func, args),
            "clear" => self.fill(e, func, args, true),
            "fill" => self.fill(e, func, args, false),
            hint if LAYOUT_HINTS.contains(&hint) => None,
            _ => {
                self.unsupported(func.span, &format!("{}(…)", func.text));
                None
            }
        };
        made.into_iter().collect()
    }

    /// The positional arguments of a tile operation, `count` of them, and its keyword ones
    /// (each checked against `keywords`); a located error otherwise.
    fn arguments<'a>(
        &mut self,
        e: &Expr,
        func: &Name,
        args: &'a [Arg],
        count: usize,
        keywords: &[&str],
    ) -> Option<Arguments<'a>> {
        let positional: Vec<&Expr> = args
            .iter()
            .filter(|a| a.name.is_none())
            .map(|a| &a.value)
            .collect();
        let named: Vec<(&Name, &Expr)> = args
            .iter()
            .filter_map(|a| a.name.as_ref().map(|n| (n, &a.value)))
            .collect();
        for (n, v) in &named {
            if !keywords.contains(&n.text.as_str()) {
                self.unsupported(
                    n.span.to(v.span),
                    &format!("{}(…, {}=…)", func.text, n.text),
                );
                return None;
            }
        }
        if positional.len() != count {
            self.error(
                e.span,
                format!("`{}` takes {count} arguments here", func.text),
                "T.copy(A[by * 4, k * 4], A_shared), T.gemm(A_shared, B_shared, C_local), T.clear(C_local), T.fill(C_local, 0)",
            );
            return None;
        }
        Some((positional, named))
    }

    /// A side of `T.copy`: a whole buffer (with its shape) or its tile's first element.
    fn region(&mut self, e: &Expr) -> Option<(Region, Option<Vec<i64>>)> {
        match &e.kind {
            ExprKind::Name(n) => {
                let buffer = Name {
                    text: n.clone(),
                    span: e.span,
                };
                let shape = self.shape_of(n);
                let rank = shape.as_ref().map_or(0, Vec::len);
                let starts = vec![Expr::new(ExprKind::Int(0), e.span); rank];
                Some((Region { buffer, starts }, shape))
            }
            ExprKind::Subscript { base, indices } => {
                let starts = indices
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<Option<Vec<_>>>()?;
                Some((
                    Region {
                        buffer: base.clone(),
                        starts,
                    },
                    None,
                ))
            }
            _ => {
                self.error(
                    e.span,
                    "a side of `T.copy` is a buffer or its tile's first element",
                    "T.copy(A[by * block_M, k * block_K], A_shared)",
                );
                None
            }
        }
    }

    fn copy(&mut self, e: &Expr, func: &Name, args: &[Arg]) -> Option<Stmt> {
        let (positional, _) = self.arguments(e, func, args, 2, &[])?;
        let (src_e, dst_e) = (*positional.first()?, *positional.get(1)?);
        let (src, src_shape) = self.region(src_e)?;
        let (dst, dst_shape) = self.region(dst_e)?;
        let Some(extents) = dst_shape.or(src_shape) else {
            self.error(
                e.span,
                "`T.copy` takes its tile's size from a whole buffer on one side; neither side here is an allocated tile",
                "T.copy(A[by * block_M, k * block_K], A_shared)",
            );
            return None;
        };
        for (side, region) in [(src_e, &src), (dst_e, &dst)] {
            if region.starts.len() != extents.len() {
                self.error(
                    side.span,
                    format!(
                        "`{}` is indexed in {} dimensions here; the tile copied has {}",
                        region.buffer.text,
                        region.starts.len(),
                        extents.len()
                    ),
                    "give the first element of the tile in every dimension: A[by * block_M, k * block_K]",
                );
                return None;
            }
        }
        if extents.len() > ELEMENT_VARS.len() {
            self.error(e.span, "a tile has at most 8 dimensions here", "");
            return None;
        }
        let vars = self.element_vars(extents.len());
        Some(tiles::copy(&src, &dst, &extents, &vars, e.span))
    }

    /// A `T.gemm` operand: an allocated two-dimensional tile.
    fn matrix(&mut self, e: &Expr, role: &str) -> Option<(Name, [i64; 2])> {
        let name = match &e.kind {
            ExprKind::Name(n) => n.clone(),
            _ => {
                self.error(
                    e.span,
                    format!("`T.gemm`'s {role} is a whole tile"),
                    "T.gemm(A_shared, B_shared, C_local)",
                );
                return None;
            }
        };
        match self.shape_of(&name).as_deref() {
            Some([rows, cols]) => Some((
                Name {
                    text: name,
                    span: e.span,
                },
                [*rows, *cols],
            )),
            _ => {
                self.error(
                    e.span,
                    format!("`T.gemm`'s {role} `{name}` is not an allocated two-dimensional tile"),
                    "allocate it in the kernel: T.alloc_shared((block_M, block_K), dtype)",
                );
                None
            }
        }
    }

    fn gemm(&mut self, e: &Expr, func: &Name, args: &[Arg]) -> Option<Stmt> {
        let (positional, named) = self.arguments(
            e,
            func,
            args,
            3,
            &[
                "transpose_A",
                "transpose_B",
                "clear_accum",
                "policy",
                "k_pack",
            ],
        )?;
        let mut transpose = [false, false];
        for (n, v) in named {
            let value = self.expr(v).and_then(|x| flag(&x));
            let which = match n.text.as_str() {
                "transpose_A" => Some(0),
                "transpose_B" => Some(1),
                _ => None,
            };
            match (which, value) {
                (Some(k), Some(b)) => {
                    if let Some(t) = transpose.get_mut(k) {
                        *t = b;
                    }
                }
                // `clear_accum=False`, a warp policy, `k_pack`: how the product is computed,
                // not what it is.
                (None, Some(false)) if n.text == "clear_accum" => {}
                (None, _) if n.text != "clear_accum" => {}
                _ => {
                    self.error(
                        n.span.to(v.span),
                        format!("`T.gemm`'s `{}=` has no meaning in Stagecraft", n.text),
                        "clear the accumulator with T.clear(C_local) before the loop",
                    );
                    return None;
                }
            }
        }
        let (a, a_shape) = self.matrix(positional.first()?, "A")?;
        let (b, b_shape) = self.matrix(positional.get(1)?, "B")?;
        let (c, c_shape) = self.matrix(positional.get(2)?, "C")?;
        let [transpose_a, transpose_b] = transpose;
        let (m, k_a) = if transpose_a {
            (a_shape[1], a_shape[0])
        } else {
            (a_shape[0], a_shape[1])
        };
        let (k_b, n) = if transpose_b {
            (b_shape[1], b_shape[0])
        } else {
            (b_shape[0], b_shape[1])
        };
        if k_a != k_b || c_shape != [m, n] {
            self.error(
                e.span,
                format!(
                    "`T.gemm`'s shapes do not fit: A is {}×{}, B {}×{}, C {}×{}{}",
                    a_shape[0],
                    a_shape[1],
                    b_shape[0],
                    b_shape[1],
                    c_shape[0],
                    c_shape[1],
                    match (transpose_a, transpose_b) {
                        (false, false) => "",
                        (true, false) => " (A transposed)",
                        (false, true) => " (B transposed)",
                        (true, true) => " (A and B transposed)",
                    }
                ),
                "C (M×N) accumulates A (M×K) times B (K×N); transpose_B=True reads B as N×K",
            );
            return None;
        }
        let vars = [self.fresh("i"), self.fresh("j"), self.fresh("l")];
        let g = Gemm {
            a: &a,
            b: &b,
            c: &c,
            transpose_a,
            transpose_b,
            sizes: [m, n, k_a],
        };
        Some(tiles::gemm(&g, &vars, e.span))
    }

    /// `T.clear(tile)` or `T.fill(tile, value)`.
    fn fill(&mut self, e: &Expr, func: &Name, args: &[Arg], clear: bool) -> Option<Stmt> {
        let (positional, _) = self.arguments(e, func, args, if clear { 1 } else { 2 }, &[])?;
        let target = *positional.first()?;
        let ExprKind::Name(name) = &target.kind else {
            self.error(
                target.span,
                format!("`{}` fills a whole tile", func.text),
                "T.clear(C_local)",
            );
            return None;
        };
        let Some(shape) = self.shape_of(name) else {
            self.error(
                target.span,
                format!("`{name}` is not an allocated tile"),
                "allocate it in the kernel: C_local = T.alloc_fragment((block_M, block_N), accum_dtype)",
            );
            return None;
        };
        let value = match positional.get(1) {
            Some(v) => self.expr(v)?,
            None => Expr::new(ExprKind::Float(0.0), e.span),
        };
        let buffer = Name {
            text: name.clone(),
            span: target.span,
        };
        let vars = self.element_vars(shape.len());
        Some(tiles::fill(&buffer, &shape, value, &vars, e.span))
    }

    /// An expression of the kernel in the loop language: constants substituted, arithmetic
    /// on them folded, `T.ceildiv` and TileLang's math the language's own.
    pub(super) fn expr(&mut self, e: &Expr) -> Option<Expr> {
        let kind = match &e.kind {
            ExprKind::Name(n) => match self.consts.iter().rev().find(|(name, _)| name == n) {
                Some((_, v)) => v.kind.clone(),
                None => e.kind.clone(),
            },
            ExprKind::Call { func, args } => return self.call(e, func, args),
            ExprKind::Neg(x) => match self.expr(x)?.kind {
                ExprKind::Int(v) if v != i64::MIN => ExprKind::Int(-v),
                ExprKind::Float(v) => ExprKind::Float(-v),
                other => ExprKind::Neg(Box::new(Expr::new(other, x.span))),
            },
            ExprKind::Binary(op, l, r) => {
                let (l, r) = (self.expr(l)?, self.expr(r)?);
                return Some(fold(*op, l, r, e.span));
            }
            kind => kind.try_map_children(&mut |x| self.expr(x))?,
        };
        Some(Expr::new(kind, e.span))
    }

    fn call(&mut self, e: &Expr, func: &Name, args: &[Arg]) -> Option<Expr> {
        let name = last_part(&func.text);
        let positional: Vec<&Expr> = args
            .iter()
            .filter(|a| a.name.is_none())
            .map(|a| &a.value)
            .collect();
        let arity = |r: &mut Reader, n: usize| -> Option<()> {
            if positional.len() == n && positional.len() == args.len() {
                Some(())
            } else {
                r.error(
                    e.span,
                    format!("`{}` takes {n} arguments here", func.text),
                    "T.ceildiv(K, block_K), T.min(a, b), T.float32(0)",
                );
                None
            }
        };
        match name {
            "ceildiv" => {
                arity(self, 2)?;
                let a = self.expr(positional.first()?)?;
                let b = self.expr(positional.get(1)?)?;
                if let (ExprKind::Int(x), ExprKind::Int(y)) = (&a.kind, &b.kind) {
                    if *y > 0 {
                        let v = x.checked_add(y - 1).and_then(|s| floor_div(s, *y))?;
                        return Some(Expr::new(ExprKind::Int(v), e.span));
                    }
                }
                // (a + b - 1) // b
                let one = Expr::new(ExprKind::Int(1), e.span);
                let sum = fold(BinOp::Add, a, b.clone(), e.span);
                let less = fold(BinOp::Sub, sum, one, e.span);
                Some(fold(BinOp::FloorDiv, less, b, e.span))
            }
            "max" | "min" | "abs" | "fma" => {
                let args = args
                    .iter()
                    .map(|a| {
                        self.expr(&a.value).map(|value| Arg {
                            name: a.name.clone(),
                            value,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?;
                let func = Name {
                    text: Ident::from(name),
                    span: func.span,
                };
                Some(Expr::new(ExprKind::Call { func, args }, e.span))
            }
            dtype
                if func.text.contains('.')
                    && (dtype.starts_with("float")
                        || dtype.starts_with("int")
                        || dtype.starts_with("uint")
                        || dtype == "bfloat16") =>
            {
                arity(self, 1)?;
                let value = self.expr(positional.first()?)?;
                // `T.float32(0)` is the value 0.0; the loop language's values are all numbers.
                Some(match value.kind {
                    ExprKind::Int(v) if dtype.starts_with("float") || dtype == "bfloat16" => {
                        Expr::new(ExprKind::Float(v as f64), e.span)
                    }
                    kind => Expr::new(kind, e.span),
                })
            }
            _ => {
                let construct = match callee(e) {
                    Some(_) => format!("{}(…)", func.text),
                    None => construct_name(e),
                };
                self.unsupported(func.span, &construct);
                None
            }
        }
    }
}
