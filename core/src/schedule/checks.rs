//! The checks a schedule passes once its versions are known: every dependence kept by the
//! pipelined order, every asynchronous unit touching an element at most once per iteration, every
//! index within its buffer; and a warning for a statement whose guard holds at no iteration.

use super::{keeps_order, DepKind, Dependence, LoopSchedule};
use crate::affine::Dim;
use crate::dependence::UnitAccess;
use crate::diagnostic::Diagnostic;
use crate::ir::{CmpOp, Cond, IExpr, Node, Program};
use crate::limits;
use crate::versions::VersionDecision;

/// Checks every dependence against the pipelined order, after versions are known.
pub fn validate_order(
    program: &Program,
    sched: &LoopSchedule,
    deps: &[Dependence],
    versions: &[VersionDecision],
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let mut ok = true;
    for d in deps {
        let (Some(from), Some(to)) = (sched.units.get(d.from), sched.units.get(d.to)) else {
            continue;
        };
        let v = versions
            .iter()
            .find(|v| v.buffer == d.buffer)
            .map_or(1, |v| i64::from(v.versions));
        let Some(dist) = (0..=sched.max_stage)
            .find(|&k| k % v == 0 && d.distances.contains(k) && !keeps_order(from, to, k))
        else {
            continue;
        };
        ok = false;
        let buf = program.buffer(d.buffer).map_or("?", |b| b.name.as_str());
        let when = if dist == 0 {
            "in the same iteration".to_string()
        } else {
            format!("{} later", crate::english::count(dist, "iteration"))
        };
        let message = match d.kind {
            DepKind::Raw if from.stage > to.stage && dist == 0 => format!(
                "{} reads `{buf}`, which {} writes in a later stage ({} > {})",
                sched.label(to.pos), sched.label(from.pos), from.stage, to.stage
            ),
            DepKind::Raw if dist == 0 => format!(
                "{} reads `{buf}` written by {} in the same stage, but is ordered before it ({} < {})",
                sched.label(to.pos), sched.label(from.pos), to.order, from.order
            ),
            kind => format!(
                "the pipeline reorders a {} dependence on `{buf}`: {} must run before {} {when}, but runs after it",
                kind.describe(),
                sched.label(from.pos),
                sched.label(to.pos)
            ),
        };
        let hint = match d.kind {
            _ if dist > 0 => loop_carried_hint(program, sched, d, dist, v),
            DepKind::Raw => "give the reader a stage at least the writer's (and a later order within one stage)".to_string(),
            DepKind::War => "TVM's check misses this write-after-read: move the writer to a later stage or order, or the reader earlier".to_string(),
            DepKind::Waw => "TVM's check misses this write-after-write: keep the writers in their original order".to_string(),
        };
        diags.push(
            // The underline goes on the statement that runs second, not over the whole loop.
            Diagnostic::error(to.span, message)
                .with_hint(hint)
                .with_related(from.span, "runs first in the original loop")
                .with_related(to.span, "runs second in the original loop"),
        );
    }
    ok
}

/// What to change for a dependence `dist` iterations apart that the pipeline reverses: the stage
/// difference, and (a scratch buffer kept in one copy, `versions` 1) what would let the buffer
/// have a copy per iteration.
fn loop_carried_hint(
    program: &Program,
    sched: &LoopSchedule,
    d: &Dependence,
    dist: i64,
    versions: i64,
) -> String {
    let (Some(from), Some(to)) = (sched.units.get(d.from), sched.units.get(d.to)) else {
        return String::new();
    };
    let lead = from.stage - to.stage;
    let buffer = program.buffer(d.buffer);
    let name = buffer.map_or("?", |b| b.name.as_str());
    let (first, second) = (sched.label(from.pos), sched.label(to.pos));
    // Iteration n's stage s runs in step n + s: a lead of exactly `dist` stages puts both in one
    // step, where the order alone decides; a longer lead puts the first one steps later.
    let mut hint = if lead == dist {
        format!(
            "{first} runs in the same step as {second} of the iteration {dist} later, and after it by order ({} > {}): order it before that one, or give it a stage at most {} (it has {})",
            from.order,
            to.order,
            from.stage - 1,
            from.stage
        )
    } else {
        format!(
            "{first} runs {} after {second} of the iteration {dist} later: give it a stage at most {} (it has {})",
            crate::english::count(lead - dist, "step"),
            to.stage + dist,
            from.stage
        )
    };
    // A read of what an earlier iteration wrote is the loop's meaning: no copy per iteration
    // can serve it. A write reordered with another iteration's access could have one.
    let scratch = buffer.is_some_and(|b| b.declared && b.scope != crate::ir::Scope::Global);
    if scratch && versions == 1 && d.kind != DepKind::Raw {
        hint.push_str(&format!(
            ", or let every iteration write what it reads of `{name}` before reading it, so that `{name}` can have a copy per iteration"
        ));
    }
    // A buffer never allocated is a kernel parameter, which gets no copies: a temporary the
    // user forgot to declare reads as this error, and declaring it is the fix.
    if buffer.is_some_and(|b| !b.declared) && d.kind != DepKind::Raw {
        hint.push_str(&format!(
            "; or, if `{name}` is a temporary, declare it (`{name} = alloc([…])`): a declared buffer gets a copy per iteration in flight, a kernel parameter (never allocated) cannot"
        ));
    }
    hint
}

/// Every asynchronous unit touches each element at most once per iteration, unless all its
/// touches are reads: its statements join one commit group, whose copies land in no set order, so
/// a second write of an element — or a read of what another instance writes, or a write of what
/// another reads — has no defined outcome and no wait can order them (separate units get separate
/// groups with a wait between, `sync/groups.rs`). A unit that may do so is refused, both
/// statements located.
pub fn check_async_units(
    program: &Program,
    sched: &LoopSchedule,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let mut ok = true;
    for u in sched.units.iter().filter(|u| u.is_async) {
        let Some(c) = crate::instances::conflict_within_an_iteration(program, sched, u) else {
            continue;
        };
        ok = false;
        let buf = program.buffer(c.buffer).map_or("?", |b| b.name.as_str());
        let (first, second) = (sched.quote(c.first.0), sched.quote(c.second.0));
        let element = match &c.at {
            Some((_, ix)) => {
                let ix: Vec<String> = ix.iter().map(i64::to_string).collect();
                format!("`{buf}[{}]`", ix.join(", "))
            }
            None => format!("an element of `{buf}`"),
        };
        let when = match &c.at {
            Some((i, _)) => format!("in iteration {i}"),
            None => "in the same iteration, as far as Stagecraft can tell (it cannot enumerate this loop's iterations to rule it out)".to_string(),
        };
        let what = |writes: bool| if writes { "writes" } else { "reads" };
        let unit = sched.label(u.pos);
        let why = format!(
            "which is asynchronous (stage {}): its instances join one commit group, whose copies land in no set order, so no wait can order the two",
            u.stage
        );
        let hint = format!(
            "touch each element of `{buf}` once per iteration in an asynchronous statement, split the two into statements of the pipelined loop (each gets its own group, with a wait between them), or make stage {} synchronous",
            u.stage
        );
        let d = if c.first.0 == c.second.0 {
            Diagnostic::error(
                c.second.0,
                format!(
                    "{second} {} {element} more than once {when}, inside {unit}, {why}",
                    what(c.second.1 || c.first.1)
                ),
            )
        } else {
            Diagnostic::error(
                c.second.0,
                format!(
                    "{second} {}{} {element}, which {first} {} {}{when}; both are in {unit}, {why}",
                    if c.at.is_some() { "" } else { "may " },
                    if c.at.is_some() {
                        what(c.second.1)
                    } else if c.second.1 {
                        "write"
                    } else {
                        "read"
                    },
                    what(c.first.1),
                    if c.at.is_some() { "earlier " } else { "" }
                ),
            )
            .with_related(c.first.0, "touches it first")
            .with_related(c.second.0, "touches it again")
        };
        diags.push(d.with_hint(hint));
    }
    ok
}

/// The element touched may be outside the declared shape (checked over every iteration).
pub fn check_bounds(program: &Program, sched: &LoopSchedule, diags: &mut Vec<Diagnostic>) -> bool {
    let mut ok = true;
    let Some(extent) = sched.extent.as_const() else {
        // Without an extent, at least keep every coefficient and offset within a buffer's reach:
        // the emitters multiply them by lanes and strides.
        for a in sched.units.iter().flat_map(|u| &u.accesses) {
            for (k, dim) in a.dims.iter().enumerate() {
                let Dim::Affine { coef, rest } = dim else {
                    continue;
                };
                let reach = [*coef, rest.lo, rest.hi]
                    .into_iter()
                    .filter(|_| rest.is_bounded())
                    .map(i64::unsigned_abs)
                    .max()
                    .unwrap_or(0);
                if reach > limits::MAX_BUFFER_ELEMENTS.unsigned_abs() {
                    ok = false;
                    let name = program.buffer(a.buffer).map_or("?", |b| b.name.as_str());
                    diags.push(Diagnostic::error(
                        a.span,
                        format!(
                            "index {k} of `{name}` uses {reach}; Stagecraft's buffers hold at most {} elements",
                            limits::MAX_BUFFER_ELEMENTS
                        ),
                    ));
                }
            }
        }
        return ok;
    };
    let lo = sched.lo.as_const().unwrap_or(0);
    for u in &sched.units {
        for a in &u.accesses {
            let Some(buffer) = program.buffer(a.buffer) else {
                continue;
            };
            let Some(shape) = buffer.shape.as_ref() else {
                ok &= check_global_reach(buffer, a, lo, extent, diags);
                continue;
            };
            let versions = program.buffer(a.buffer).map_or(1, |b| b.versions);
            for (k, (dim, size)) in a.dims.iter().zip(shape.iter()).enumerate() {
                let Dim::Affine { coef, rest } = dim else {
                    continue;
                };
                if !rest.is_bounded() {
                    continue;
                }
                let (j0, j1) = (lo, lo + extent - 1);
                let (a0, a1) = (coef.saturating_mul(j0), coef.saturating_mul(j1));
                let min = a0.min(a1).saturating_add(rest.lo);
                let max = a0.max(a1).saturating_add(rest.hi);
                if min < 0 || max >= *size {
                    ok = false;
                    let name = program.buffer(a.buffer).map_or("?", |b| b.name.as_str());
                    let dim_note = if versions > 1 && k == 0 {
                        " (the ring slot)"
                    } else {
                        ""
                    };
                    diags.push(
                        Diagnostic::error(
                            a.span,
                            format!(
                                "index {k}{dim_note} of `{name}` ranges over [{min}, {max}] but the dimension has size {size}"
                            ),
                        )
                        .with_hint(format!("keep the index within 0..{size} for every iteration, or enlarge the allocation"))
                        .with_related(program.buffer(a.buffer).map_or(a.span, |b| b.span), "allocated here"),
                    );
                }
            }
        }
    }
    ok
}

/// A buffer that is never allocated is a global one, indexed from 0 and sized by what the loop
/// touches: refuse negative indices and sizes beyond the buffer limit, before the interpreter
/// or an emitter meets them.
fn check_global_reach(
    buffer: &crate::ir::Buffer,
    a: &UnitAccess,
    lo: i64,
    extent: i64,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let mut ok = true;
    for (k, dim) in a.dims.iter().enumerate() {
        let Dim::Affine { coef, rest } = dim else {
            continue;
        };
        if !rest.is_bounded() {
            continue;
        }
        let (j0, j1) = (lo, lo.saturating_add(extent - 1));
        let (a0, a1) = (coef.saturating_mul(j0), coef.saturating_mul(j1));
        let min = a0.min(a1).saturating_add(rest.lo);
        let max = a0.max(a1).saturating_add(rest.hi);
        let name = &buffer.name;
        if min < 0 {
            ok = false;
            diags.push(
                Diagnostic::error(
                    a.span,
                    format!("index {k} of `{name}` reaches {min}; `{name}` is not allocated, so it is a global buffer indexed from 0"),
                )
                .with_hint("keep the index at 0 or above for every iteration (start the loop later, or offset the index)"),
            );
        } else if max >= limits::MAX_BUFFER_ELEMENTS {
            ok = false;
            diags.push(Diagnostic::error(
                a.span,
                format!(
                    "index {k} of `{name}` reaches {max}; Stagecraft's buffers hold at most {} elements",
                    limits::MAX_BUFFER_ELEMENTS
                ),
            ));
        }
    }
    ok
}

/// A statement guarded by the loop variable at no iteration of a constant extent never runs: most
/// often an off-by-one (`if k == 8:` in `range(8)`, whose last iteration is `k == 7`). A warning:
/// the program is still right, only not what was meant.
pub fn warn_guards_that_never_hold(
    program: &Program,
    sched: &LoopSchedule,
    diags: &mut Vec<Diagnostic>,
) {
    let (Some(lo), Some(extent)) = (sched.lo.as_const(), sched.extent.as_const()) else {
        return;
    };
    let Some(hi) = lo.checked_add(extent - 1).filter(|_| extent > 0) else {
        return;
    };
    let name = program.var_name(sched.var);
    for unit in &sched.units {
        let Node::If { cond, span, .. } = &unit.node else {
            continue;
        };
        if crate::simplify::decide_over(cond, sched.var, lo, hi) != Some(false) {
            continue;
        }
        let hint = match cond {
            Cond::Cmp(CmpOp::Eq, IExpr::Var(v), IExpr::Const(c))
                if *v == sched.var && Some(*c) == hi.checked_add(1) =>
            {
                format!("its last iteration is `{name} == {hi}`")
            }
            Cond::Cmp(CmpOp::Eq, IExpr::Var(v), IExpr::Const(c))
                if *v == sched.var && Some(*c) == lo.checked_sub(1) =>
            {
                format!("its first iteration is `{name} == {lo}`")
            }
            _ => "compare the guard with the loop's range, or remove the statement".to_string(),
        };
        diags.push(
            Diagnostic::warning(
                *span,
                format!("this `if` holds at no iteration of the loop (`{name}` runs from {lo} to {hi}), so its statement never runs"),
            )
            .with_hint(hint),
        );
    }
}
