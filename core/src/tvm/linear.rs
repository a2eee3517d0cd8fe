//! Linear forms and predicates over a section's loop variable: what TVM's arithmetic analyzer
//! proves, decided here by trying every value of the variable.

use crate::ir::{CmpOp, Cond, IExpr, IOp, VarId};
use crate::simplify::{simplify, simplify_cond};

/// `a · v + b` over a section's loop variable `v` (TVM's heads, iterations and counts are all
/// linear in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lin {
    pub(super) a: i64,
    pub(super) b: i64,
}

impl Lin {
    pub(super) fn at(self, v: i64) -> i64 {
        self.a.saturating_mul(v).saturating_add(self.b)
    }

    pub(super) fn add(self, o: Lin) -> Lin {
        Lin {
            a: self.a.saturating_add(o.a),
            b: self.b.saturating_add(o.b),
        }
    }

    pub(super) fn sub(self, o: Lin) -> Lin {
        Lin {
            a: self.a.saturating_sub(o.a),
            b: self.b.saturating_sub(o.b),
        }
    }

    pub(super) fn konst(b: i64) -> Lin {
        Lin { a: 0, b }
    }

    /// `self ≥ 0` as a condition that reads as a bound on the variable (`i < 1`, not `-i >= 0`).
    pub(super) fn nonnegative(self, var: VarId) -> Cond {
        let v = IExpr::Var(var);
        match self.a {
            0 => simplify_cond(&Cond::Cmp(CmpOp::Ge, IExpr::Const(self.b), IExpr::Const(0))),
            1 => Cond::Cmp(CmpOp::Ge, v, IExpr::Const(self.b.saturating_neg())),
            -1 => Cond::Cmp(CmpOp::Lt, v, IExpr::Const(self.b.saturating_add(1))),
            _ => simplify_cond(&Cond::Cmp(CmpOp::Ge, self.expr(var), IExpr::Const(0))),
        }
    }

    pub(super) fn expr(self, var: VarId) -> IExpr {
        simplify(&IExpr::bin(
            IOp::Add,
            IExpr::bin(IOp::Mul, IExpr::Const(self.a), IExpr::Var(var)),
            IExpr::Const(self.b),
        ))
    }
}

/// A conjunction of `lin ≥ 0` (a block's `inbound`, or the producers' combined predicate).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Pred(pub(super) Vec<Lin>);

impl Pred {
    pub(super) fn holds(&self, v: i64) -> bool {
        self.0.iter().all(|l| l.at(v) >= 0)
    }

    pub(super) fn and(&self, o: &Pred) -> Pred {
        let mut p = self.0.clone();
        p.extend(o.0.iter().copied());
        Pred(p)
    }

    /// As a condition on the section variable, leaving out the parts true at every `v` of `range`.
    pub(super) fn cond(&self, var: VarId, range: &[i64]) -> Cond {
        self.0
            .iter()
            .filter(|l| !range.iter().all(|&v| l.at(v) >= 0))
            .fold(Cond::True, |c, l| Cond::and(c, l.nonnegative(var)))
    }
}
