//! Linear forms and predicates over a section's loop variable and the symbols the pipelined loop's
//! bounds use (symbolic sizes, enclosing loops' variables): what TVM's arithmetic analyzer proves,
//! decided here by trying every value of the variable at sampled values of the symbols.

use crate::ir::{CmpOp, Cond, IExpr, IOp, VarId};
use crate::simplify::{simplify, simplify_cond};

/// Values of the symbols: `(symbol, value)`, one entry per symbol.
pub(super) type Env = [(VarId, i64)];

/// `a · v + Σ c·s + b` over a section's loop variable `v` and symbols `s` (TVM's heads, iterations,
/// counts and bounds are all of this form).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Lin {
    pub(super) a: i64,
    pub(super) b: i64,
    /// Coefficients of the symbols, sorted by symbol, none zero.
    pub(super) syms: Vec<(VarId, i64)>,
}

impl Lin {
    pub(super) fn konst(b: i64) -> Lin {
        Lin {
            a: 0,
            b,
            syms: Vec::new(),
        }
    }

    /// The section's loop variable itself.
    pub(super) fn var() -> Lin {
        Lin {
            a: 1,
            ..Lin::default()
        }
    }

    pub(super) fn at(&self, v: i64, env: &Env) -> i64 {
        self.syms.iter().fold(
            self.a.saturating_mul(v).saturating_add(self.b),
            |sum, (s, c)| {
                let value = env.iter().find(|(x, _)| x == s).map_or(0, |(_, x)| *x);
                sum.saturating_add(c.saturating_mul(value))
            },
        )
    }

    pub(super) fn as_const(&self) -> Option<i64> {
        (self.a == 0 && self.syms.is_empty()).then_some(self.b)
    }

    fn combine(&self, o: &Lin, sign: i64) -> Lin {
        let mut syms = self.syms.clone();
        for &(s, c) in &o.syms {
            match syms.iter_mut().find(|(x, _)| *x == s) {
                Some((_, k)) => *k = k.saturating_add(sign.saturating_mul(c)),
                None => syms.push((s, sign.saturating_mul(c))),
            }
        }
        syms.retain(|(_, c)| *c != 0);
        syms.sort_unstable();
        Lin {
            a: self.a.saturating_add(sign.saturating_mul(o.a)),
            b: self.b.saturating_add(sign.saturating_mul(o.b)),
            syms,
        }
    }

    pub(super) fn add(&self, o: &Lin) -> Lin {
        self.combine(o, 1)
    }

    pub(super) fn sub(&self, o: &Lin) -> Lin {
        self.combine(o, -1)
    }

    pub(super) fn plus(&self, k: i64) -> Lin {
        self.add(&Lin::konst(k))
    }

    /// A linear index expression as a form: `var` is the section's variable (`None`: none).
    pub(super) fn of(e: &IExpr, var: Option<VarId>) -> Option<Lin> {
        match e {
            IExpr::Const(c) => Some(Lin::konst(*c)),
            IExpr::Var(v) if Some(*v) == var => Some(Lin::var()),
            IExpr::Var(v) => Some(Lin {
                syms: vec![(*v, 1)],
                ..Lin::default()
            }),
            IExpr::Bin(op, ab) => {
                let [x, y] = &**ab;
                let (x, y) = (Lin::of(x, var)?, Lin::of(y, var)?);
                match op {
                    IOp::Add => Some(x.add(&y)),
                    IOp::Sub => Some(x.sub(&y)),
                    IOp::Mul => match (x.as_const(), y.as_const()) {
                        (Some(k), _) => Some(y.scale(k)),
                        (_, Some(k)) => Some(x.scale(k)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            IExpr::Select(_) => None,
        }
    }

    fn scale(&self, k: i64) -> Lin {
        Lin::konst(0).combine(self, k)
    }

    /// `self ≥ 0` as a condition that reads as a bound on the variable (`i < 1`, not `-i >= 0`).
    pub(super) fn nonnegative(&self, var: VarId) -> Cond {
        let v = IExpr::Var(var);
        let rest = Lin {
            a: 0,
            ..self.clone()
        };
        match self.a {
            0 => simplify_cond(&Cond::Cmp(CmpOp::Ge, self.expr(var), IExpr::Const(0))),
            1 => Cond::Cmp(CmpOp::Ge, v, rest.scale(-1).expr(var)),
            -1 => Cond::Cmp(CmpOp::Lt, v, rest.plus(1).expr(var)),
            _ => simplify_cond(&Cond::Cmp(CmpOp::Ge, self.expr(var), IExpr::Const(0))),
        }
    }

    pub(super) fn expr(&self, var: VarId) -> IExpr {
        let mut e = IExpr::bin(IOp::Mul, IExpr::Const(self.a), IExpr::Var(var));
        for &(s, c) in &self.syms {
            e = IExpr::bin(
                IOp::Add,
                e,
                IExpr::bin(IOp::Mul, IExpr::Const(c), IExpr::Var(s)),
            );
        }
        simplify(&IExpr::bin(IOp::Add, e, IExpr::Const(self.b)))
    }
}

/// A conjunction of `lin ≥ 0` (a block's `inbound`, or the producers' combined predicate).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Pred(pub(super) Vec<Lin>);

impl Pred {
    pub(super) fn holds(&self, v: i64, env: &Env) -> bool {
        self.0.iter().all(|l| l.at(v, env) >= 0)
    }

    pub(super) fn and(&self, o: &Pred) -> Pred {
        let mut p = self.0.clone();
        p.extend(o.0.iter().cloned());
        Pred(p)
    }

    /// As a condition on the section variable, leaving out the parts `analyzer` proves over
    /// `domain`.
    pub(super) fn cond(&self, var: VarId, analyzer: &Analyzer, domain: &Domain) -> Cond {
        self.0
            .iter()
            .filter(|l| !analyzer.proves(domain, |v, env| l.at(v, env) >= 0))
            .fold(Cond::True, |c, l| Cond::and(c, l.nonnegative(var)))
    }
}

/// The values a section's variable takes, `[lo, hi)`: forms over the symbols only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Domain {
    pub(super) lo: Lin,
    pub(super) hi: Lin,
}

impl Domain {
    /// A unit section: its variable is a constant (its forms do not mention it).
    pub(super) fn unit() -> Domain {
        Domain {
            lo: Lin::konst(0),
            hi: Lin::konst(1),
        }
    }
}

/// What TVM's analyzer proves: a claim about a section's variable holds at every value of its
/// domain for every sampled value of the symbols (below, at and above the number of stages, and
/// negative: TVM knows nothing of a size it is not told, so neither does this).
pub(super) struct Analyzer {
    samples: Vec<Vec<(VarId, i64)>>,
}

/// Sampled values per symbol; more than `MAX_SYMBOLS` symbols are sampled together.
const MAX_SYMBOLS: usize = 2;
/// Values far above the number of stages, where the body section runs many steps.
const LARGE: [i64; 2] = [37, 64];

impl Analyzer {
    pub(super) fn new(symbols: &[VarId], max_stage: i64) -> Analyzer {
        let small = -2..=(2 * max_stage.max(1) + 4);
        let values: Vec<i64> = small.chain(LARGE).collect();
        let mut samples: Vec<Vec<(VarId, i64)>> = vec![Vec::new()];
        if symbols.len() > MAX_SYMBOLS {
            // Every symbol at one value at a time keeps the product small.
            samples = values
                .iter()
                .map(|&x| symbols.iter().map(|&s| (s, x)).collect())
                .collect();
        } else {
            for &s in symbols {
                samples = samples
                    .iter()
                    .flat_map(|env| {
                        values.iter().map(move |&x| {
                            let mut e = env.clone();
                            e.push((s, x));
                            e
                        })
                    })
                    .collect();
            }
        }
        Analyzer { samples }
    }

    /// `claim(v, symbols)` at every `v` of `domain`, for every sample of the symbols.
    pub(super) fn proves(&self, domain: &Domain, claim: impl Fn(i64, &Env) -> bool) -> bool {
        self.samples.iter().all(|env| {
            let (lo, hi) = (domain.lo.at(0, env), domain.hi.at(0, env));
            (lo..hi).all(|v| claim(v, env))
        })
    }

    /// A claim about the symbols alone.
    pub(super) fn proves_always(&self, claim: impl Fn(&Env) -> bool) -> bool {
        self.samples.iter().all(|env| claim(env))
    }
}
