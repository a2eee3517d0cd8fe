//! One instruction of the function body, decoded: its operands resolved against the values and
//! blocks the first pass found, its types and alignments checked, calls only to the intrinsics
//! the emitter uses, with their declared signatures.

use super::{
    parse_int, parse_ty, split_top, split_typed, Complaint, Ctx, FOp, IntOp, Kind, Pred, Ty, Val,
};
use crate::machine::KernelText;
use std::collections::BTreeMap;

pub(super) fn decode(
    ctx: &mut Ctx,
    dst: Option<u32>,
    rhs: &str,
    declared: &BTreeMap<String, String>,
    unsupported: &mut Option<Complaint>,
) -> Option<Kind> {
    let (op, rest) = rhs.split_word().unwrap_or((rhs, ""));
    let rest = rest.trim();
    let need_dst = |ctx: &mut Ctx| {
        if dst.is_none() {
            ctx.bad(format!("`{op}` needs a result name"));
        }
        dst.unwrap_or(0)
    };
    let int_op = |o: &str| {
        Some(match o {
            "add" => IntOp::Add,
            "sub" => IntOp::Sub,
            "mul" => IntOp::Mul,
            "srem" => IntOp::SRem,
            "sdiv" => IntOp::SDiv,
            "and" => IntOp::And,
            "or" => IntOp::Or,
            "xor" => IntOp::Xor,
            "shl" => IntOp::Shl,
            "lshr" => IntOp::LShr,
            "ashr" => IntOp::AShr,
            _ => return None,
        })
    };
    if let Some(iop) = int_op(op) {
        let d = need_dst(ctx);
        return integer(ctx, d, iop, rhs, unsupported);
    }
    match op {
        "icmp" => {
            let d = need_dst(ctx);
            compare(ctx, d, rest, unsupported)
        }
        "select" => {
            let d = need_dst(ctx);
            select(ctx, d, rest)
        }
        "getelementptr" => {
            let d = need_dst(ctx);
            getelementptr(ctx, d, rest, unsupported)
        }
        "load" => {
            let d = need_dst(ctx);
            load(ctx, d, rest, unsupported)
        }
        "store" => store(ctx, rest),
        "fadd" | "fsub" | "fmul" | "fdiv" => {
            let d = need_dst(ctx);
            float_binary(ctx, d, op, rest)
        }
        "fneg" => {
            let d = need_dst(ctx);
            Some(Kind::FNeg {
                dst: d,
                a: ctx.typed(rest, Ty::Float),
            })
        }
        "sitofp" => {
            let d = need_dst(ctx);
            let Some(v) = rest.strip_suffix(" to float") else {
                unsupported.get_or_insert((ctx.line, "sitofp to a type other than float".into()));
                return None;
            };
            Some(Kind::SiToFp {
                dst: d,
                a: ctx.typed(v, Ty::I32),
            })
        }
        "phi" => {
            let d = need_dst(ctx);
            phi(ctx, d, rest)
        }
        "br" => branch(ctx, rest),
        "ret" => {
            if rest != "void" {
                ctx.bad("the kernel returns void");
            }
            Some(Kind::Ret)
        }
        "call" => decode_call(ctx, dst, rest, declared, unsupported),
        other => {
            unsupported.get_or_insert((ctx.line, format!("the instruction `{other}`")));
            None
        }
    }
}

/// `icmp PRED i32 %a, %b`.
fn compare(ctx: &mut Ctx, d: u32, rest: &str, unsupported: &mut Option<Complaint>) -> Option<Kind> {
    let (pred, rest) = rest.split_word()?;
    let pred = match pred {
        "eq" => Pred::Eq,
        "ne" => Pred::Ne,
        "slt" => Pred::Slt,
        "sle" => Pred::Sle,
        "sgt" => Pred::Sgt,
        "sge" => Pred::Sge,
        other => {
            unsupported.get_or_insert((ctx.line, format!("icmp {other}")));
            return None;
        }
    };
    let (ty, operands) = rest.trim().split_word()?;
    let ty = parse_ty(ty)?;
    let parts = split_top(operands);
    let (Some(a), Some(b)) = (parts.first(), parts.get(1)) else {
        ctx.bad("icmp takes two operands");
        return None;
    };
    Some(Kind::Icmp {
        dst: d,
        pred,
        a: ctx.val(ty, a),
        b: ctx.val(ty, b),
    })
}

/// `select i1 %c, TYPE %a, TYPE %b`.
fn select(ctx: &mut Ctx, d: u32, rest: &str) -> Option<Kind> {
    let parts = split_top(rest);
    let (Some(c), Some(a), Some(b)) = (parts.first(), parts.get(1), parts.get(2)) else {
        ctx.bad("select takes three operands");
        return None;
    };
    let c = ctx.typed(c, Ty::I1);
    let ty = split_typed(a).map_or(Ty::I32, |(t, _)| t);
    Some(Kind::Select {
        dst: d,
        c,
        a: ctx.typed(a, ty),
        b: ctx.typed(b, ty),
    })
}

/// `fadd float %a, %b` (and `fsub`, `fmul`, `fdiv`).
fn float_binary(ctx: &mut Ctx, d: u32, op: &str, rest: &str) -> Option<Kind> {
    let operands = rest.strip_prefix("float ").unwrap_or(rest);
    let parts = split_top(operands);
    let (Some(a), Some(b)) = (parts.first(), parts.get(1)) else {
        ctx.bad(format!("{op} takes two operands"));
        return None;
    };
    let fop = match op {
        "fadd" => FOp::Add,
        "fsub" => FOp::Sub,
        "fmul" => FOp::Mul,
        _ => FOp::Div,
    };
    Some(Kind::FBin {
        dst: d,
        op: fop,
        a: ctx.val(Ty::Float, a),
        b: ctx.val(Ty::Float, b),
    })
}

/// `br label %b`, or `br i1 %c, label %then, label %other`.
fn branch(ctx: &mut Ctx, rest: &str) -> Option<Kind> {
    if let Some(label) = rest.strip_prefix("label ") {
        return Some(Kind::Br {
            to: ctx.block(label),
        });
    }
    let parts = split_top(rest);
    let (Some(c), Some(t), Some(o)) = (parts.first(), parts.get(1), parts.get(2)) else {
        ctx.bad("br takes a label, or a condition and two labels");
        return None;
    };
    Some(Kind::CondBr {
        c: ctx.typed(c, Ty::I1),
        then: ctx.block(t),
        other: ctx.block(o),
    })
}

/// A two-operand integer operation: `add i32 %a, %b` (flags like nsw are not in the subset); on
/// i1 only the logic ones.
fn integer(
    ctx: &mut Ctx,
    d: u32,
    iop: IntOp,
    rhs: &str,
    unsupported: &mut Option<Complaint>,
) -> Option<Kind> {
    let (op, rest) = rhs.split_word().unwrap_or((rhs, ""));
    let rest = rest.trim();
    let Some((ty, operands)) = rest.split_word() else {
        ctx.bad(format!("`{rhs}` is incomplete"));
        return None;
    };
    let ty = parse_ty(ty)?;
    let parts = split_top(operands);
    let (Some(a), Some(b), 2) = (parts.first(), parts.get(1), parts.len()) else {
        ctx.bad(format!("`{op}` takes two operands"));
        return None;
    };
    let (a, b) = (ctx.val(ty, a), ctx.val(ty, b));
    Some(match ty {
        Ty::I1 if matches!(iop, IntOp::And | IntOp::Or | IntOp::Xor) => Kind::Logic {
            dst: d,
            op: iop,
            a,
            b,
        },
        Ty::I32 => Kind::Int {
            dst: d,
            op: iop,
            a,
            b,
        },
        _ => {
            unsupported.get_or_insert((ctx.line, format!("`{op}` on {ty:?}")));
            return None;
        }
    })
}

/// `getelementptr float, ptr addrspace(N) %p, i32 %i` or over `[N x float]` with the indices 0, i.
fn getelementptr(
    ctx: &mut Ctx,
    d: u32,
    rest: &str,
    unsupported: &mut Option<Complaint>,
) -> Option<Kind> {
    let parts = split_top(rest);
    let elem = parts.first().copied().unwrap_or("");
    let Some(base) = parts.get(1) else {
        ctx.bad("getelementptr without a base");
        return None;
    };
    let space = match split_typed(base) {
        Some((Ty::Ptr(s), _)) => s,
        _ => {
            ctx.bad(format!("`{base}` is not a pointer"));
            return None;
        }
    };
    let base = ctx.typed(base, Ty::Ptr(space));
    let index = if elem == "float" {
        match (parts.get(2), parts.len()) {
            (Some(i), 3) => ctx.typed(i, Ty::I32),
            _ => {
                ctx.bad("getelementptr float takes one index");
                return None;
            }
        }
    } else if elem.starts_with('[') && elem.ends_with(" x float]") {
        match (parts.get(2), parts.get(3), parts.len()) {
            (Some(z), Some(i), 4) => {
                if ctx.typed(z, Ty::I32) != Val::Int(0) {
                    unsupported.get_or_insert((
                        ctx.line,
                        "a getelementptr whose first index is not 0".into(),
                    ));
                }
                ctx.typed(i, Ty::I32)
            }
            _ => {
                ctx.bad("getelementptr [N x float] takes the indices 0 and one more");
                return None;
            }
        }
    } else {
        unsupported.get_or_insert((ctx.line, format!("getelementptr over `{elem}`")));
        return None;
    };
    Some(Kind::Gep {
        dst: d,
        base,
        index,
    })
}

/// `load float, ptr addrspace(N) %p, align 4`.
fn load(ctx: &mut Ctx, d: u32, rest: &str, unsupported: &mut Option<Complaint>) -> Option<Kind> {
    let parts = split_top(rest);
    if parts.first() != Some(&"float") {
        unsupported.get_or_insert((ctx.line, "a load of a type other than float".into()));
        return None;
    }
    let Some(p) = parts.get(1) else {
        ctx.bad("load without a pointer");
        return None;
    };
    check_align(ctx, parts.get(2));
    let space = match split_typed(p) {
        Some((Ty::Ptr(s), _)) => s,
        _ => 0,
    };
    Some(Kind::Load {
        dst: d,
        ptr: ctx.typed(p, Ty::Ptr(space)),
    })
}

/// `store float %v, ptr addrspace(N) %p, align 4`.
fn store(ctx: &mut Ctx, rest: &str) -> Option<Kind> {
    let parts = split_top(rest);
    let (Some(v), Some(p)) = (parts.first(), parts.get(1)) else {
        ctx.bad("store takes a value and a pointer");
        return None;
    };
    check_align(ctx, parts.get(2));
    let space = match split_typed(p) {
        Some((Ty::Ptr(s), _)) => s,
        _ => 0,
    };
    Some(Kind::Store {
        value: ctx.typed(v, Ty::Float),
        ptr: ctx.typed(p, Ty::Ptr(space)),
    })
}

/// `phi T [v, %block], …`.
fn phi(ctx: &mut Ctx, d: u32, rest: &str) -> Option<Kind> {
    let (ty, incoming) = rest.split_word()?;
    let ty = parse_ty(ty)?;
    let mut list = Vec::new();
    for part in split_top(incoming) {
        let inner = part
            .trim()
            .strip_prefix('[')
            .and_then(|p| p.strip_suffix(']'))
            .map(str::trim);
        let Some((v, b)) = inner.and_then(|i| i.split_once(',')) else {
            ctx.bad(format!("`{part}` is not a phi entry"));
            continue;
        };
        let v = ctx.val(ty, v);
        let b = ctx.block(b);
        list.push((v, b));
    }
    Some(Kind::Phi {
        dst: d,
        incoming: list,
    })
}

fn check_align(ctx: &mut Ctx, a: Option<&&str>) {
    if let Some(a) = a {
        match a.trim().strip_prefix("align ").and_then(parse_int) {
            Some(4) => {}
            Some(n) if n > 4 => ctx.bad(format!("align {n}: a float is 4-byte aligned here")),
            _ => ctx.bad(format!("`{a}` is not `align 4`")),
        }
    }
}

fn decode_call(
    ctx: &mut Ctx,
    dst: Option<u32>,
    rest: &str,
    declared: &BTreeMap<String, String>,
    unsupported: &mut Option<Complaint>,
) -> Option<Kind> {
    // call TYPE @NAME(ARGS)
    let (_ret, callee) = rest.split_once(" @")?;
    let (name, args) = callee.split_once('(')?;
    let args = args.strip_suffix(')').unwrap_or(args);
    let args = split_top(args);
    if !declared.contains_key(name) {
        ctx.bad(format!("@{name} is called but not declared"));
    }
    let d = dst.unwrap_or(0);
    let arg = |k: usize| args.get(k).copied().unwrap_or("");
    Some(match name {
        "llvm.amdgcn.workitem.id.x" => Kind::WorkitemId { dst: d },
        "llvm.amdgcn.asyncmark" => Kind::AsyncMark,
        "llvm.amdgcn.wait.asyncmark" => {
            let count = match split_typed(arg(0)) {
                Some((Ty::I16, v)) => match parse_int(v) {
                    Some(n) if n < 0 => {
                        ctx.bad(format!(
                            "wait.asyncmark(i16 {n}): a count of marks cannot be negative"
                        ));
                        0
                    }
                    Some(n) if n > i64::from(u16::MAX) => {
                        ctx.bad(format!("wait.asyncmark(i16 {n}): {n} does not fit in i16"));
                        0
                    }
                    Some(n) => n,
                    None => {
                        ctx.bad(format!(
                            "wait.asyncmark({}): the count must be a constant",
                            arg(0)
                        ));
                        0
                    }
                },
                _ => {
                    ctx.bad(format!("wait.asyncmark takes one i16, not `{}`", arg(0)));
                    0
                }
            };
            Kind::WaitAsyncMark { count }
        }
        "llvm.amdgcn.global.load.async.lds" => {
            if args.len() != 5 {
                ctx.bad("global.load.async.lds takes five arguments");
                return None;
            }
            let global = ctx.typed(arg(0), Ty::Ptr(1));
            let lds = ctx.typed(arg(1), Ty::Ptr(3));
            let size = ctx.imm(arg(2), "the size");
            let offset = ctx.imm(arg(3), "the offset");
            let _aux = ctx.imm(arg(4), "the cache policy");
            if ![1, 2, 4, 12, 16].contains(&size) {
                ctx.bad(format!(
                    "a size of {size} bytes: the LDS DMA moves 1, 2, 4, 12 or 16 bytes per lane"
                ));
            } else if size != 4 {
                unsupported.get_or_insert((ctx.line, format!("LDS DMA of {size} bytes per lane")));
                return None;
            }
            Kind::AsyncLds {
                global,
                lds,
                size,
                offset,
            }
        }
        "llvm.maxnum.f32" | "llvm.minnum.f32" => Kind::FBin {
            dst: d,
            op: if name == "llvm.maxnum.f32" {
                FOp::Max
            } else {
                FOp::Min
            },
            a: ctx.typed(arg(0), Ty::Float),
            b: ctx.typed(arg(1), Ty::Float),
        },
        "llvm.fma.f32" => Kind::Fma {
            dst: d,
            a: ctx.typed(arg(0), Ty::Float),
            b: ctx.typed(arg(1), Ty::Float),
            c: ctx.typed(arg(2), Ty::Float),
        },
        "llvm.fabs.f32" => Kind::FAbs {
            dst: d,
            a: ctx.typed(arg(0), Ty::Float),
        },
        "llvm.smin.i32" | "llvm.smax.i32" => Kind::Int {
            dst: d,
            op: if name == "llvm.smin.i32" {
                IntOp::SMin
            } else {
                IntOp::SMax
            },
            a: ctx.typed(arg(0), Ty::I32),
            b: ctx.typed(arg(1), Ty::I32),
        },
        other => {
            unsupported.get_or_insert((ctx.line, format!("a call to @{other}")));
            return None;
        }
    })
}
