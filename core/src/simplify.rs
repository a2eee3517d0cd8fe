//! Index-expression simplification for printing and folding: constants fold, sums of the same
//! variable collect, `x % 1` and `x * 1` disappear. Only transformations valid for all integers.

use crate::ir::{floor_div, floor_mod, CmpOp, Cond, IExpr, IOp, VarId};

/// Linear form: constant + Σ coef·atom, where an atom is a variable or any non-linear
/// subexpression (such as `max(N, 2)`), compared structurally.
type Terms = Vec<(IExpr, i64)>;

/// Adds `k`·`atom` to `terms`; `None` when a coefficient would overflow (the expression is then
/// not taken as linear, and is left as written).
fn add_term(terms: &mut Terms, atom: IExpr, k: i64) -> Option<()> {
    match terms.iter_mut().find(|(a, _)| *a == atom) {
        Some((_, c)) => *c = c.checked_add(k)?,
        None => terms.push((atom, k)),
    }
    terms.retain(|(_, c)| *c != 0);
    Some(())
}

/// A subexpression simplified once, bottom-up: its linear form when it has one (`simplify` writes
/// it with `from_linear`), else the expression as simplified. Each node is simplified once, so a
/// product of names nested in remainders costs its size, not twice per nesting level.
enum Simplified {
    Linear(i64, Terms),
    Other(IExpr),
}

impl Simplified {
    fn written(self) -> IExpr {
        match self {
            Simplified::Linear(c, terms) => from_linear(c, &terms),
            Simplified::Other(e) => e,
        }
    }
}

fn simplified(e: &IExpr) -> Simplified {
    match e {
        IExpr::Const(c) => Simplified::Linear(*c, Vec::new()),
        IExpr::Var(_) => Simplified::Linear(0, vec![(e.clone(), 1)]),
        IExpr::Bin(op @ (IOp::Add | IOp::Sub | IOp::Mul), ab) => {
            let [a, b] = &**ab;
            let (a, b) = (simplified(a), simplified(b));
            if let (Simplified::Linear(ca, ta), Simplified::Linear(cb, tb)) = (&a, &b) {
                if let Some((c, terms)) = combine_linear(*op, (*ca, ta), (*cb, tb)) {
                    return Simplified::Linear(c, terms);
                }
            }
            Simplified::Other(IExpr::bin(*op, a.written(), b.written()))
        }
        other => {
            // A non-linear node: simplified inside, then one atom of the linear form.
            let inner = simplify_nonlinear(other);
            match inner.as_const() {
                Some(c) => Simplified::Linear(c, Vec::new()),
                None => Simplified::Linear(0, vec![(inner, 1)]),
            }
        }
    }
}

/// The linear form of `a op b` (`op` is `+`, `−` or `·`) from those of `a` and `b`; `None` for a
/// product of two non-constant forms, or where a coefficient would overflow (the expression is
/// then not taken as linear, and is left as written).
fn combine_linear(
    op: IOp,
    (ca, ta): (i64, &Terms),
    (cb, tb): (i64, &Terms),
) -> Option<(i64, Terms)> {
    let scale = |t: &Terms, k: i64| -> Option<Terms> {
        t.iter()
            .map(|(v, c)| Some((v.clone(), c.checked_mul(k)?)))
            .filter(|t| t.as_ref().is_none_or(|(_, c)| *c != 0))
            .collect()
    };
    match op {
        IOp::Add | IOp::Sub => {
            let sign: i64 = if op == IOp::Add { 1 } else { -1 };
            let mut terms = ta.clone();
            for (v, k) in tb {
                add_term(&mut terms, v.clone(), sign.checked_mul(*k)?)?;
            }
            Some((ca.checked_add(sign.checked_mul(cb)?)?, terms))
        }
        IOp::Mul if ta.is_empty() => Some((ca.checked_mul(cb)?, scale(tb, ca)?)),
        IOp::Mul if tb.is_empty() => Some((ca.checked_mul(cb)?, scale(ta, cb)?)),
        _ => None,
    }
}

/// `c + k·v`: an expression affine in at most one variable.
type Affine1 = (i64, Option<(VarId, i64)>);

/// `c + k·v` when `e` is affine in at most one variable — nearly every index — found without
/// allocating; `None` for anything else (the general linear form handles it).
#[inline]
fn affine1(e: &IExpr) -> Option<Affine1> {
    // Most expressions asked about are leaves (a step, a bound, a stage): no call for those.
    match e {
        IExpr::Const(c) => Some((*c, None)),
        IExpr::Var(v) => Some((0, Some((*v, 1)))),
        _ => affine1_with(e, None),
    }
}

/// `affine1(substitute(e, var, with))` from `affine1(with)`, without building the substituted tree:
/// each node's form depends only on its children's, so this is the same recursion.
fn affine1_with(e: &IExpr, sub: Option<(VarId, Option<Affine1>)>) -> Option<Affine1> {
    match e {
        IExpr::Const(c) => Some((*c, None)),
        IExpr::Var(v) => match sub {
            Some((var, with)) if var == *v => with,
            _ => Some((0, Some((*v, 1)))),
        },
        IExpr::Bin(op @ (IOp::Add | IOp::Sub | IOp::Mul), ab) => {
            let [a, b] = &**ab;
            combine1(*op, affine1_with(a, sub)?, affine1_with(b, sub)?)
        }
        _ => None,
    }
}

/// The form of `a op b` from those of `a` and `b` (`op` is `+`, `−` or `·`).
fn combine1(op: IOp, (ca, ta): Affine1, (cb, tb): Affine1) -> Option<Affine1> {
    match op {
        IOp::Add | IOp::Sub => {
            let (c, tb) = if op == IOp::Add {
                (ca.checked_add(cb)?, tb)
            } else {
                let tb = match tb {
                    Some((v, k)) => Some((v, k.checked_neg()?)),
                    None => None,
                };
                (ca.checked_sub(cb)?, tb)
            };
            let term = match (ta, tb) {
                (None, t) | (t, None) => t,
                (Some((va, ka)), Some((vb, kb))) if va == vb => {
                    Some((va, ka.checked_add(kb)?)).filter(|t| t.1 != 0)
                }
                _ => return None,
            };
            Some((c, term))
        }
        IOp::Mul => {
            let (scale, term) = match (ta, tb) {
                (None, t) => (ca, t),
                (t, None) => (cb, t),
                _ => return None,
            };
            let term = match term {
                Some((v, k)) => Some((v, k.checked_mul(scale)?)).filter(|t| t.1 != 0),
                None => None,
            };
            Some((ca.checked_mul(cb)?, term))
        }
        _ => None,
    }
}

/// What `from_linear(c, &[(Var(v), k)])` writes, built without cloning the variable.
fn from_affine1(c: i64, term: Option<(VarId, i64)>) -> IExpr {
    let Some((v, k)) = term else {
        return IExpr::Const(c);
    };
    let (negative, term) = scaled_term(k, IExpr::Var(v));
    if c > 0 && negative {
        // `17 - i` reads better than `-i + 17`.
        return IExpr::bin(IOp::Sub, IExpr::Const(c), term);
    }
    let acc = if negative {
        IExpr::bin(IOp::Sub, IExpr::Const(0), term)
    } else {
        term
    };
    plus_constant(acc, c)
}

/// `k · v` as a magnitude term and whether it is subtracted. `i64::MIN` has no magnitude in i64:
/// it stays a (negative) factor, added.
fn scaled_term(k: i64, v: IExpr) -> (bool, IExpr) {
    match k.checked_abs() {
        Some(1) => (k < 0, v),
        Some(m) => (k < 0, IExpr::bin(IOp::Mul, IExpr::Const(m), v)),
        None => (false, IExpr::bin(IOp::Mul, IExpr::Const(k), v)),
    }
}

/// `acc + c`, written `acc - |c|` for a negative `c` whose magnitude fits.
fn plus_constant(acc: IExpr, c: i64) -> IExpr {
    match c {
        0 => acc,
        c if c > 0 => IExpr::bin(IOp::Add, acc, IExpr::Const(c)),
        c => match c.checked_neg() {
            Some(m) => IExpr::bin(IOp::Sub, acc, IExpr::Const(m)),
            None => IExpr::bin(IOp::Add, acc, IExpr::Const(c)),
        },
    }
}

fn from_linear(c: i64, terms: &[(IExpr, i64)]) -> IExpr {
    // `17 - i` reads better than `-i + 17`.
    let lead_negative = terms.first().is_some_and(|(_, k)| *k < 0 && *k != i64::MIN);
    let mut acc: Option<IExpr> = if c > 0 && lead_negative {
        Some(IExpr::Const(c))
    } else {
        None
    };
    let c = if acc.is_some() { 0 } else { c };
    for (v, k) in terms {
        let (negative, term) = scaled_term(*k, v.clone());
        acc = Some(match acc {
            None if negative => IExpr::bin(IOp::Sub, IExpr::Const(0), term),
            None => term,
            Some(a) if negative => IExpr::bin(IOp::Sub, a, term),
            Some(a) => IExpr::bin(IOp::Add, a, term),
        });
    }
    match acc {
        None => IExpr::Const(c),
        Some(a) => plus_constant(a, c),
    }
}

/// `simplify(e + k)`, without building the sum when `e` is affine in at most one variable.
pub fn offset(e: &IExpr, k: i64) -> IExpr {
    match affine1(e).and_then(|(c, term)| Some((c.checked_add(k)?, term))) {
        Some((c, term)) => from_affine1(c, term),
        None if k == 0 => simplify(e),
        None => simplify(&IExpr::bin(IOp::Add, e.clone(), IExpr::Const(k))),
    }
}

/// `simplify(a + b)`, without building the sum when it is affine in at most one variable.
pub fn sum(a: &IExpr, b: &IExpr) -> IExpr {
    match affine1(a)
        .zip(affine1(b))
        .and_then(|(x, y)| combine1(IOp::Add, x, y))
    {
        Some((c, term)) => from_affine1(c, term),
        None => simplify_general(&IExpr::bin(IOp::Add, a.clone(), b.clone())),
    }
}

/// `simplify(a % m)` for an `a` that is simplified already (such as a pipelined copy's iteration),
/// without building the remainder first: `a % m` is one atom of the linear form, so simplifying it
/// is simplifying inside it.
pub fn modulo(a: IExpr, m: i64) -> IExpr {
    match a.as_const() {
        Some(x) => floor_mod(x, m).map_or_else(|| modulo_node(a, m), IExpr::Const),
        None if m == 1 => IExpr::Const(0),
        None => modulo_node(a, m),
    }
}

fn modulo_node(a: IExpr, m: i64) -> IExpr {
    IExpr::bin(IOp::Mod, a, IExpr::Const(m))
}

/// `var := with` applied to many expressions, each simplified: `apply(e)` is
/// `simplify(&substitute(e, var, with))`, without building the substituted tree when the result
/// is affine in at most one variable.
pub struct Substitution<'a> {
    var: VarId,
    with: &'a IExpr,
    affine: Option<Affine1>,
}

impl<'a> Substitution<'a> {
    pub fn new(var: VarId, with: &'a IExpr) -> Substitution<'a> {
        Substitution {
            var,
            with,
            affine: affine1(with),
        }
    }

    /// The variable replaced.
    pub fn var(&self) -> VarId {
        self.var
    }

    /// What it is replaced with.
    pub fn with(&self) -> &'a IExpr {
        self.with
    }

    pub fn apply(&self, e: &IExpr) -> IExpr {
        match affine1_with(e, Some((self.var, self.affine))) {
            Some((c, term)) => from_affine1(c, term),
            None if e.mentions(self.var) => simplify_general(&substitute(e, self.var, self.with)),
            None => simplify_general(e),
        }
    }
}

pub fn simplify(e: &IExpr) -> IExpr {
    match affine1(e) {
        Some((c, term)) => from_affine1(c, term),
        None => simplify_general(e),
    }
}

/// `simplify` without the one-variable shortcut (the shortcut must agree with it: see the tests).
fn simplify_general(e: &IExpr) -> IExpr {
    simplified(e).written()
}

/// A node other than `+`, `−` and `·`, simplified inside and folded where its operands are constant.
fn simplify_nonlinear(e: &IExpr) -> IExpr {
    match e {
        IExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            let (a, b) = (simplify(a), simplify(b));
            match (op, a.as_const(), b.as_const()) {
                (IOp::Mod, Some(x), Some(y)) => {
                    floor_mod(x, y).map_or_else(|| IExpr::bin(*op, a, b), IExpr::Const)
                }
                (IOp::FloorDiv, Some(x), Some(y)) => {
                    floor_div(x, y).map_or_else(|| IExpr::bin(*op, a, b), IExpr::Const)
                }
                (IOp::Min, Some(x), Some(y)) => IExpr::Const(x.min(y)),
                (IOp::Max, Some(x), Some(y)) => IExpr::Const(x.max(y)),
                (IOp::Mod, _, Some(1)) => IExpr::Const(0),
                (IOp::FloorDiv, _, Some(1)) => a,
                _ => IExpr::bin(*op, a, b),
            }
        }
        IExpr::Select(s) => {
            let (c, a, b) = &**s;
            let c = simplify_cond(c);
            match c {
                Cond::True => simplify(a),
                Cond::Not(ref x) if **x == Cond::True => simplify(b),
                c => IExpr::Select(Box::new((c, simplify(a), simplify(b)))),
            }
        }
        other => other.clone(),
    }
}

/// Substitutes `var := with` everywhere in `e`.
pub fn substitute(e: &IExpr, var: VarId, with: &IExpr) -> IExpr {
    match e {
        IExpr::Var(v) if *v == var => with.clone(),
        IExpr::Const(_) | IExpr::Var(_) => e.clone(),
        IExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            IExpr::bin(*op, substitute(a, var, with), substitute(b, var, with))
        }
        IExpr::Select(s) => IExpr::Select(Box::new((
            substitute_cond(&s.0, var, with),
            substitute(&s.1, var, with),
            substitute(&s.2, var, with),
        ))),
    }
}

pub fn substitute_cond(c: &Cond, var: VarId, with: &IExpr) -> Cond {
    match c {
        Cond::True => Cond::True,
        Cond::Cmp(op, a, b) => Cond::Cmp(*op, substitute(a, var, with), substitute(b, var, with)),
        Cond::And(a, b) => Cond::And(
            Box::new(substitute_cond(a, var, with)),
            Box::new(substitute_cond(b, var, with)),
        ),
        Cond::Or(a, b) => Cond::Or(
            Box::new(substitute_cond(a, var, with)),
            Box::new(substitute_cond(b, var, with)),
        ),
        Cond::Not(a) => Cond::Not(Box::new(substitute_cond(a, var, with))),
    }
}

/// Folds comparisons between constants; `Not(True)` stands for false.
pub fn simplify_cond(c: &Cond) -> Cond {
    let falsity = || Cond::Not(Box::new(Cond::True));
    match c {
        Cond::True => Cond::True,
        Cond::Cmp(op, a, b) => simplify_cmp(*op, a, b),
        Cond::And(a, b) => match (simplify_cond(a), simplify_cond(b)) {
            (Cond::True, x) | (x, Cond::True) => x,
            (x, _) if is_false(&x) => falsity(),
            (_, y) if is_false(&y) => falsity(),
            (x, y) => Cond::And(Box::new(x), Box::new(y)),
        },
        Cond::Or(a, b) => match (simplify_cond(a), simplify_cond(b)) {
            (Cond::True, _) | (_, Cond::True) => Cond::True,
            (x, y) if is_false(&x) => y,
            (x, y) if is_false(&y) => x,
            (x, y) => Cond::Or(Box::new(x), Box::new(y)),
        },
        Cond::Not(a) => match simplify_cond(a) {
            Cond::Not(x) => *x,
            x => Cond::Not(Box::new(x)),
        },
    }
}

/// `simplify_cond(&Cond::Cmp(op, a, b))`, from borrowed sides.
pub fn simplify_cmp(op: CmpOp, a: &IExpr, b: &IExpr) -> Cond {
    let decided = |holds: bool| {
        if holds {
            Cond::True
        } else {
            Cond::Not(Box::new(Cond::True))
        }
    };
    if let (Some((ca, ta)), Some((cb, tb))) = (affine1(a), affine1(b)) {
        // The common case, decided without building the difference.
        if ta == tb {
            if let Some(diff) = ca.checked_sub(cb) {
                return decided(op.holds(diff, 0));
            }
        }
        return Cond::Cmp(op, from_affine1(ca, ta), from_affine1(cb, tb));
    }
    let (a, b) = (simplify(a), simplify(b));
    // Compare through the difference so `i - 1 < i` folds too.
    let diff = simplify(&IExpr::bin(IOp::Sub, a.clone(), b.clone()));
    match diff.as_const() {
        Some(d) => decided(op.holds(d, 0)),
        None => Cond::Cmp(op, a, b),
    }
}

/// Whether `c` holds at every value of `var` in `lo..=hi` (`Some(true)`), at none
/// (`Some(false)`), or at some only or undecided (`None`). Exact where each comparison is affine in
/// `var` alone, which is how a user's guard on the loop variable reads in a pipelined copy
/// (`k - 1 == 7` in a body running `k` in 1..=7); a comparison of anything else is undecided.
pub fn decide_over(c: &Cond, var: VarId, lo: i64, hi: i64) -> Option<bool> {
    match c {
        Cond::True => Some(true),
        Cond::Cmp(op, a, b) => decide_cmp_over(*op, a, b, var, lo, hi),
        Cond::And(a, b) => match (decide_over(a, var, lo, hi), decide_over(b, var, lo, hi)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Cond::Or(a, b) => match (decide_over(a, var, lo, hi), decide_over(b, var, lo, hi)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Cond::Not(a) => decide_over(a, var, lo, hi).map(|holds| !holds),
    }
}

fn decide_cmp_over(op: CmpOp, a: &IExpr, b: &IExpr, var: VarId, lo: i64, hi: i64) -> Option<bool> {
    if lo > hi {
        return None;
    }
    let coefficient = |term: Option<(VarId, i64)>| match term {
        None => Some(0),
        Some((v, k)) if v == var => Some(k),
        Some(_) => None,
    };
    let (ca, ta) = affine1(a)?;
    let (cb, tb) = affine1(b)?;
    // a − b = k·var + d, monotone in var: its sign at the two ends decides an order, and an
    // equality holds somewhere only at the root −d/k.
    let k = coefficient(ta)?.checked_sub(coefficient(tb)?)?;
    let d = ca.checked_sub(cb)?;
    let at = |x: i64| k.checked_mul(x)?.checked_add(d);
    let (first, last) = (op.holds(at(lo)?, 0), op.holds(at(hi)?, 0));
    let root_inside = k != 0
        && d.checked_rem(k) == Some(0)
        && d.checked_div(k)
            .and_then(i64::checked_neg)
            .is_some_and(|root| (lo..=hi).contains(&root));
    match op {
        CmpOp::Eq | CmpOp::Ne if root_inside && lo < hi => None,
        CmpOp::Eq | CmpOp::Ne => Some(first),
        _ => (first == last).then_some(first),
    }
}

pub fn is_false(c: &Cond) -> bool {
    matches!(c, Cond::Not(x) if **x == Cond::True)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    fn expr() -> impl Strategy<Value = IExpr> {
        let leaf = prop_oneof![
            (-20i64..20).prop_map(IExpr::Const),
            (0u32..2).prop_map(IExpr::Var)
        ];
        leaf.prop_recursive(4, 24, 2, |inner| {
            (
                prop_oneof![
                    Just(IOp::Add),
                    Just(IOp::Sub),
                    Just(IOp::Mul),
                    Just(IOp::Mod),
                    Just(IOp::FloorDiv),
                    Just(IOp::Max)
                ],
                inner.clone(),
                inner,
            )
                .prop_map(|(op, a, b)| IExpr::bin(op, a, b))
        })
    }

    /// Found by the `explore` fuzz target (a debug-assertion overflow): a coefficient that
    /// overflows when scaled or summed leaves the expression as written. Wrapped, `(x0·2⁶² + x1)·4`
    /// lost its `x0` (2⁶⁴ wraps to 0) and became `x1·4`.
    #[test]
    fn a_coefficient_that_overflows_keeps_the_expression_as_written() {
        let (x0, x1) = (IExpr::Var(0), IExpr::Var(1));
        let big = IExpr::bin(IOp::Mul, x0.clone(), IExpr::Const(1 << 62));
        let scaled = IExpr::bin(
            IOp::Mul,
            IExpr::bin(IOp::Add, big.clone(), x1.clone()),
            IExpr::Const(4),
        );
        assert!(simplify(&scaled).mentions(0), "{:?}", simplify(&scaled));
        let min = IExpr::bin(IOp::Mul, x0.clone(), IExpr::Const(i64::MIN));
        let negated = IExpr::bin(IOp::Sub, x1, IExpr::bin(IOp::Add, min, big));
        assert!(simplify(&negated).mentions(0), "{:?}", simplify(&negated));
    }

    /// `c·x0 + d` written as a guard on the loop variable reads after substitution (`x0 - 1`,
    /// `2 * x0 + 3`), which `expr` rarely makes and which the decision decides.
    fn affine_in_x0() -> impl Strategy<Value = IExpr> {
        (-3i64..4, -12i64..12).prop_map(|(c, d)| {
            IExpr::bin(
                IOp::Add,
                IExpr::bin(IOp::Mul, IExpr::Const(c), IExpr::Var(0)),
                IExpr::Const(d),
            )
        })
    }

    /// A last iteration's guard `k == 7` on a stage-1 statement, as the body copy reads it.
    #[test]
    fn a_guard_is_decided_over_the_range_of_its_loop() {
        let k = IExpr::Var(0);
        let guard = Cond::Cmp(
            CmpOp::Eq,
            IExpr::bin(IOp::Sub, k.clone(), IExpr::Const(1)),
            IExpr::Const(7),
        );
        assert_eq!(decide_over(&guard, 0, 1, 7), Some(false));
        assert_eq!(decide_over(&guard, 0, 1, 8), None);
        assert_eq!(decide_over(&guard, 0, 8, 8), Some(true));
        let below = Cond::Cmp(CmpOp::Lt, k.clone(), IExpr::Const(9));
        assert_eq!(decide_over(&below, 0, 0, 8), Some(true));
        assert_eq!(decide_over(&below, 0, 0, 9), None);
        // Another variable leaves it undecided, unless the other side decides it.
        let inner = Cond::Cmp(CmpOp::Eq, IExpr::Var(1), IExpr::Const(0));
        assert_eq!(decide_over(&inner, 0, 0, 8), None);
        assert_eq!(
            decide_over(&Cond::and(guard.clone(), inner.clone()), 0, 1, 7),
            Some(false)
        );
        assert_eq!(decide_over(&Cond::and(guard, inner), 0, 1, 8), None);
        // `i64::MIN - k == 0`: its root's remainder, `i64::MIN % -1`, overflows (it panicked);
        // the root is past every i64, so the guard holds nowhere in the range.
        let far = Cond::Cmp(
            CmpOp::Eq,
            IExpr::bin(IOp::Sub, IExpr::Const(i64::MIN), k),
            IExpr::Const(0),
        );
        assert_eq!(decide_over(&far, 0, -8, 0), Some(false));
    }

    /// Found by the `explore` fuzz target (a timeout): a loop extent of about a hundred names
    /// multiplied, with remainders among them. Simplifying a node once as a linear form and again,
    /// when its parent was not linear, as written, doubled the work at every remainder nested in a
    /// product: this nest of forty would not finish.
    #[test]
    fn a_product_nested_in_remainders_is_simplified_once() {
        let mut e = IExpr::Var(0);
        for level in 0..40 {
            let product = IExpr::bin(IOp::Mul, e, IExpr::Var(1 + level % 3));
            e = IExpr::bin(IOp::Mod, product, IExpr::Const(7 + i64::from(level)));
        }
        let simplified = simplify(&IExpr::bin(IOp::Add, e.clone(), IExpr::Const(0)));
        assert_eq!(simplified, e);
    }

    /// What `simplify_general` wrote before it simplified each node once: the linear form of the
    /// whole expression, or else each operand simplified anew. Slow (exponential in nested
    /// remainders) but plainly right, so the one-pass version is checked against it.
    fn simplified_twice_over(e: &IExpr) -> IExpr {
        fn linear(e: &IExpr) -> Option<(i64, Terms)> {
            match e {
                IExpr::Const(c) => Some((*c, Vec::new())),
                IExpr::Var(_) => Some((0, vec![(e.clone(), 1)])),
                IExpr::Bin(op @ (IOp::Add | IOp::Sub | IOp::Mul), ab) => {
                    let [a, b] = &**ab;
                    let (ca, ta) = linear(a)?;
                    let (cb, tb) = linear(b)?;
                    combine_linear(*op, (ca, &ta), (cb, &tb))
                }
                other => {
                    let inner = nonlinear(other);
                    match inner.as_const() {
                        Some(c) => Some((c, Vec::new())),
                        None => Some((0, vec![(inner, 1)])),
                    }
                }
            }
        }
        fn nonlinear(e: &IExpr) -> IExpr {
            match e {
                IExpr::Bin(op @ (IOp::Add | IOp::Sub | IOp::Mul), ab) => {
                    let [a, b] = &**ab;
                    IExpr::bin(*op, simplified_twice_over(a), simplified_twice_over(b))
                }
                other => simplify_nonlinear(other),
            }
        }
        match linear(e) {
            Some((c, terms)) => from_linear(c, &terms),
            None => nonlinear(e),
        }
    }

    proptest! {
        /// The allocation-free shortcut writes exactly what the general linear form writes.
        #[test]
        fn one_variable_shortcut_agrees_with_the_linear_form(e in expr()) {
            prop_assert_eq!(simplify(&e), simplify_general(&e));
            let k = 3;
            prop_assert_eq!(offset(&e, k), simplify_general(&IExpr::bin(IOp::Add, e.clone(), IExpr::Const(k))));
        }

        /// Simplifying each node once writes what simplifying the whole, then each operand, wrote.
        #[test]
        fn one_pass_agrees_with_simplifying_twice_over(e in expr()) {
            prop_assert_eq!(simplify_general(&e), simplified_twice_over(&e));
        }

        /// The helpers that skip building a tree write what simplifying the tree writes.
        #[test]
        fn helpers_agree_with_simplifying_the_tree(a in expr(), b in expr(), m in -3i64..5) {
            prop_assert_eq!(sum(&a, &b), simplify(&IExpr::bin(IOp::Add, a.clone(), b.clone())));
            prop_assert_eq!(modulo(simplify(&a), m), simplify(&IExpr::bin(IOp::Mod, a.clone(), IExpr::Const(m))));
            let sub = Substitution::new(0, &b);
            prop_assert_eq!(sub.apply(&a), simplify(&substitute(&a, 0, &b)));
        }

        /// A condition decided over a range holds, or fails, at every point of it.
        #[test]
        fn a_condition_decided_over_a_range_is_so_at_every_point(
            a in prop_oneof![expr(), affine_in_x0()], b in prop_oneof![expr(), affine_in_x0()],
            lo in -12i64..12, len in 0i64..12, y in -9i64..9,
        ) {
            let hi = lo + len;
            for op in [CmpOp::Lt, CmpOp::Le, CmpOp::Eq, CmpOp::Ne, CmpOp::Ge] {
                let c = Cond::Cmp(op, a.clone(), b.clone());
                let both = Cond::And(Box::new(c.clone()), Box::new(Cond::Not(Box::new(c.clone()))));
                for c in [c.clone(), both] {
                    if let Some(decided) = decide_over(&c, 0, lo, hi) {
                        for x in lo..=hi {
                            if let Some(v) = c.eval(&[x, y]) {
                                prop_assert_eq!(v, decided, "{:?} at x0 = {}", c, x);
                            }
                        }
                    }
                }
            }
        }

        /// Simplifying never changes a value or a comparison's outcome.
        #[test]
        fn simplification_keeps_values(a in expr(), b in expr(), x in -9i64..9, y in -9i64..9) {
            let env = [x, y];
            // (Only where the expression is defined: `0 * (x % 0)` may fold to 0.)
            if let Some(v) = a.eval(&env) {
                prop_assert_eq!(simplify(&a).eval(&env), Some(v));
            }
            for op in [CmpOp::Lt, CmpOp::Le, CmpOp::Eq, CmpOp::Ne, CmpOp::Ge] {
                let c = Cond::Cmp(op, a.clone(), b.clone());
                if let Some(v) = c.eval(&env) {
                    let folded = simplify_cond(&c);
                    prop_assert_eq!(folded.eval(&env), Some(v), "{:?} → {:?}", c, folded);
                }
            }
        }
    }
}
