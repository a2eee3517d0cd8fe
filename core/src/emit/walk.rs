//! One walk over a flattened statement's index expressions, conditions and values, shared by the
//! three emitters. The walk fixes the order in which operands are computed, and so how registers
//! are numbered; the target says what an operand is and writes each operation (`Isa`,
//! `Predicates`), spelling the one-instruction operations from its `Spelling`.

use crate::ir::{Access, Assign, CmpOp, Cond, Func, IExpr, IOp, VExpr, VOp, VarId};

/// How a target spells the operations that are one instruction (or one call) on it.
pub(super) struct Spelling {
    /// `IOp::Add`, `Sub`, `Mul`, `Min`, `Max` (floor division and modulo are sequences, written
    /// by the target).
    pub int: [&'static str; 5],
    /// `CmpOp::Lt`, `Le`, `Gt`, `Ge`, `Eq`, `Ne`.
    pub cmp: [&'static str; 6],
    /// `VOp::Add`, `Sub`, `Mul`, `Div`.
    pub float: [&'static str; 4],
    /// `Func::Max`, `Min`, `Fma`, `Abs`.
    pub func: [&'static str; 4],
}

impl Spelling {
    pub fn int(&self, op: IOp) -> &'static str {
        let k = match op {
            IOp::Add => 0,
            IOp::Sub => 1,
            IOp::Mul => 2,
            IOp::Min => 3,
            IOp::Max => 4,
            IOp::FloorDiv | IOp::Mod => return "",
        };
        self.int.get(k).copied().unwrap_or_default()
    }

    pub fn cmp(&self, op: CmpOp) -> &'static str {
        let k = match op {
            CmpOp::Lt => 0,
            CmpOp::Le => 1,
            CmpOp::Gt => 2,
            CmpOp::Ge => 3,
            CmpOp::Eq => 4,
            CmpOp::Ne => 5,
        };
        self.cmp.get(k).copied().unwrap_or_default()
    }

    pub fn float(&self, op: VOp) -> &'static str {
        let k = match op {
            VOp::Add => 0,
            VOp::Sub => 1,
            VOp::Mul => 2,
            VOp::Div => 3,
        };
        self.float.get(k).copied().unwrap_or_default()
    }

    pub fn func(&self, f: Func) -> &'static str {
        let k = match f {
            Func::Max => 0,
            Func::Min => 1,
            Func::Fma => 2,
            Func::Abs => 3,
        };
        self.func.get(k).copied().unwrap_or_default()
    }
}

/// A value computed from values (or from an index) by one operation.
pub(super) enum ValueOp<I, V> {
    /// An index used as a value.
    Index(I),
    Neg(V),
    Bin(VOp, V, V),
    Call(Func, Vec<V>),
}

/// A condition computed from indices or from conditions.
pub(super) enum CondOp<I, P> {
    Cmp(CmpOp, I, I),
    True,
    Not(P),
    And(P, P),
    Or(P, P),
}

/// What a target computes index arithmetic and values into, and how it writes each operation.
/// Every hook is called after the operands it takes have been computed, left to right.
pub(super) trait Isa {
    /// An index operand: an immediate, or what holds a computed index.
    type Int;
    /// A float value.
    type Val;

    const SPELLING: Spelling;

    /// The variable of the body loop, the one index variable left after flattening.
    fn loop_var(&self) -> Option<VarId>;
    /// The body loop's counter.
    fn counter(&mut self) -> Self::Int;
    fn imm(&mut self, v: i64) -> Self::Int;
    fn int_op(&mut self, op: IOp, a: Self::Int, b: Self::Int) -> Self::Int;
    /// `c ? a : b`: the target chooses when its condition is computed ([`select`] for targets
    /// with predicates).
    fn select(&mut self, c: &Cond, a: &IExpr, b: &IExpr) -> Self::Int;
    fn literal(&mut self, x: f64) -> Self::Val;
    fn read(&mut self, a: &Access) -> Self::Val;
    /// A synchronous store of a computed value.
    fn store(&mut self, target: &Access, v: Self::Val);
    fn value_op(&mut self, op: ValueOp<Self::Int, Self::Val>) -> Self::Val;
}

/// A target whose conditions are values (PTX predicates, LLVM `i1`), built by [`cond`].
pub(super) trait Predicates: Isa {
    type Pred;
    /// Where a condition's result goes, named before its operands are computed (PTX numbers its
    /// predicates outermost first).
    type Dest;

    fn dest(&mut self) -> Self::Dest;
    fn cond_op(&mut self, d: Self::Dest, op: CondOp<Self::Int, Self::Pred>) -> Self::Pred;
    fn select_op(&mut self, c: Self::Pred, a: Self::Int, b: Self::Int) -> Self::Int;
}

/// An index expression: a constant folds to an immediate, any other variable than the body
/// loop's (none is left after flattening) reads as 0.
pub(super) fn int<T: Isa>(t: &mut T, e: &IExpr) -> T::Int {
    if let Some(v) = e.eval(&[]) {
        return t.imm(v);
    }
    match e {
        IExpr::Const(v) => t.imm(*v),
        IExpr::Var(v) if Some(*v) == t.loop_var() => t.counter(),
        IExpr::Var(_) => t.imm(0),
        IExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            let (a, b) = (int(t, a), int(t, b));
            t.int_op(*op, a, b)
        }
        IExpr::Select(s) => {
            let (c, a, b) = &**s;
            t.select(c, a, b)
        }
    }
}

/// `c ? a : b` with the condition computed first, then the operands.
pub(super) fn select<T: Predicates>(t: &mut T, c: &Cond, a: &IExpr, b: &IExpr) -> T::Int {
    let c = cond(t, c);
    let (a, b) = (int(t, a), int(t, b));
    t.select_op(c, a, b)
}

pub(super) fn cond<T: Predicates>(t: &mut T, c: &Cond) -> T::Pred {
    let d = t.dest();
    let op = match c {
        Cond::Cmp(op, a, b) => CondOp::Cmp(*op, int(t, a), int(t, b)),
        Cond::True => CondOp::True,
        Cond::Not(x) => CondOp::Not(cond(t, x)),
        Cond::And(x, y) => CondOp::And(cond(t, x), cond(t, y)),
        Cond::Or(x, y) => CondOp::Or(cond(t, x), cond(t, y)),
    };
    t.cond_op(d, op)
}

/// A statement computed and stored synchronously: its value, then the store.
pub(super) fn store<T: Isa>(t: &mut T, a: &Assign) {
    let v = value(t, &a.value);
    t.store(&a.target, v);
}

pub(super) fn value<T: Isa>(t: &mut T, v: &VExpr) -> T::Val {
    let op = match v {
        VExpr::Lit(x) => return t.literal(*x),
        VExpr::Read(a) => return t.read(a),
        VExpr::Index(e) => ValueOp::Index(int(t, e)),
        VExpr::Neg(x) => ValueOp::Neg(value(t, x)),
        VExpr::Bin(op, ab) => {
            let [a, b] = &**ab;
            ValueOp::Bin(*op, value(t, a), value(t, b))
        }
        VExpr::Call(f, args) => ValueOp::Call(*f, args.iter().map(|a| value(t, a)).collect()),
    };
    t.value_op(op)
}
