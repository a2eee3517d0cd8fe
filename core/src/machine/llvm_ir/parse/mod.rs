//! AMDGPU LLVM IR text (the subset Stagecraft's emitter writes) → decoded functions, with the
//! checks `llvm-as` and the verifier would make on what the subset uses: each value defined once
//! with the type its uses state, calls only to declared intrinsics with their signatures, immediate
//! arguments constant and in range (`wait.asyncmark`'s count is an `i16` that cannot be negative).

mod decode;

use super::super::{KernelText, NameMap};
use decode::decode;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    I1,
    I16,
    I32,
    Float,
    /// A pointer in an address space (1 global, 3 LDS).
    Ptr(u32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    Local(u32),
    Int(i64),
    /// float bits.
    Float(u32),
    Bool(bool),
    /// An LDS object (`@lds_B`), by index.
    Lds(u16),
    /// A kernel argument, by position.
    Arg(u16),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    Add,
    Sub,
    Mul,
    SRem,
    SDiv,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
    SMin,
    SMax,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pred {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    WorkitemId {
        dst: u32,
    },
    Int {
        dst: u32,
        op: IntOp,
        a: Val,
        b: Val,
    },
    Icmp {
        dst: u32,
        pred: Pred,
        a: Val,
        b: Val,
    },
    Select {
        dst: u32,
        c: Val,
        a: Val,
        b: Val,
    },
    /// `and`/`or`/`xor` on i1.
    Logic {
        dst: u32,
        op: IntOp,
        a: Val,
        b: Val,
    },
    /// `getelementptr`: base + 4 · index (float elements).
    Gep {
        dst: u32,
        base: Val,
        index: Val,
    },
    Load {
        dst: u32,
        ptr: Val,
    },
    Store {
        value: Val,
        ptr: Val,
    },
    FBin {
        dst: u32,
        op: FOp,
        a: Val,
        b: Val,
    },
    FNeg {
        dst: u32,
        a: Val,
    },
    FAbs {
        dst: u32,
        a: Val,
    },
    Fma {
        dst: u32,
        a: Val,
        b: Val,
        c: Val,
    },
    SiToFp {
        dst: u32,
        a: Val,
    },
    /// `llvm.amdgcn.global.load.async.lds(global, lds, size, offset, aux)`.
    AsyncLds {
        global: Val,
        lds: Val,
        size: i64,
        offset: i64,
    },
    AsyncMark,
    WaitAsyncMark {
        count: i64,
    },
    Phi {
        dst: u32,
        incoming: Vec<(Val, usize)>,
    },
    Br {
        to: usize,
    },
    CondBr {
        c: Val,
        then: usize,
        other: usize,
    },
    Ret,
}

impl Kind {
    /// The value the instruction defines, if any.
    pub fn dst(&self) -> Option<u32> {
        match self {
            Kind::WorkitemId { dst }
            | Kind::Int { dst, .. }
            | Kind::Icmp { dst, .. }
            | Kind::Select { dst, .. }
            | Kind::Logic { dst, .. }
            | Kind::Gep { dst, .. }
            | Kind::Load { dst, .. }
            | Kind::FBin { dst, .. }
            | Kind::FNeg { dst, .. }
            | Kind::FAbs { dst, .. }
            | Kind::Fma { dst, .. }
            | Kind::SiToFp { dst, .. }
            | Kind::Phi { dst, .. } => Some(*dst),
            Kind::Store { .. }
            | Kind::AsyncLds { .. }
            | Kind::AsyncMark
            | Kind::WaitAsyncMark { .. }
            | Kind::Br { .. }
            | Kind::CondBr { .. }
            | Kind::Ret => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub line: u32,
    pub kind: Kind,
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub name: String,
    pub insts: Vec<Inst>,
}

#[derive(Clone, Debug)]
pub struct LdsObject {
    pub name: String,
    /// In floats.
    pub elements: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Function {
    pub blocks: Vec<Block>,
    /// SSA values (locals), by index: name and type.
    pub locals: Vec<(String, Ty)>,
    pub lds: Vec<LdsObject>,
    /// Kernel arguments: name (all `ptr addrspace(1)`).
    pub args: Vec<String>,
}

pub use crate::machine::Complaint;
/// The kernel's function, what LLVM would reject, and the first valid IR the executor does not
/// model.
pub type Parsed = crate::machine::Parsed<Function>;

/// The intrinsics of the subset and their signatures, as `declare` must state them.
const DECLARATIONS: [(&str, &str); 10] = [
    ("llvm.amdgcn.workitem.id.x", "i32 ()"),
    ("llvm.amdgcn.asyncmark", "void ()"),
    ("llvm.amdgcn.wait.asyncmark", "void (i16)"),
    (
        "llvm.amdgcn.global.load.async.lds",
        "void (ptr addrspace(1), ptr addrspace(3), i32 immarg, i32 immarg, i32 immarg)",
    ),
    ("llvm.maxnum.f32", "float (float, float)"),
    ("llvm.minnum.f32", "float (float, float)"),
    ("llvm.fma.f32", "float (float, float, float)"),
    ("llvm.fabs.f32", "float (float)"),
    ("llvm.smin.i32", "i32 (i32, i32)"),
    ("llvm.smax.i32", "i32 (i32, i32)"),
];

fn strip_comment(s: &str) -> &str {
    // No string in the subset holds a `;` except the target triple, which has none.
    match s.bytes().position(|b| b == b';') {
        Some(at) => s.get(..at).unwrap_or(s),
        None => s,
    }
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let body = s.strip_prefix('-').unwrap_or(s);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A float constant: LLVM writes floats as the hex of the double (`0x3FF0000000000000`) or in
/// decimal; the value must be exactly a float.
fn parse_float(s: &str) -> Option<f64> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if hex.len() != 16 {
            return None;
        }
        return u64::from_str_radix(hex, 16).ok().map(f64::from_bits);
    }
    s.parse::<f64>().ok()
}

/// Splits `a, b, c` at top-level commas (not inside `(...)` or `[...]`).
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    // The delimiters are ASCII, so byte positions are character boundaries.
    for (i, byte) in s.bytes().enumerate() {
        match byte {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                out.push(s.get(start..i).unwrap_or("").trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s.get(start..).unwrap_or("").trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// `l.split_once(" = ")`, found by looking for the byte `=` first: that search is much cheaper
/// than a substring search, and this runs twice for every line (the first `=` of a line is its
/// assignment's in every line the emitter writes).
fn split_assignment(l: &str) -> Option<(&str, &str)> {
    let at = l.bytes().position(|b| b == b'=')?;
    let assignment = at > 0
        && l.as_bytes().get(at - 1) == Some(&b' ')
        && l.as_bytes().get(at + 1) == Some(&b' ');
    if !assignment {
        return l.split_once(" = ");
    }
    Some((l.get(..at - 1)?, l.get(at + 2..)?))
}

fn parse_ty(s: &str) -> Option<Ty> {
    match s.trim() {
        "i1" => Some(Ty::I1),
        "i16" => Some(Ty::I16),
        "i32" => Some(Ty::I32),
        "float" => Some(Ty::Float),
        "ptr" => Some(Ty::Ptr(0)),
        t => {
            let space = t
                .strip_prefix("ptr addrspace(")?
                .strip_suffix(')')?
                .trim()
                .parse()
                .ok()?;
            Some(Ty::Ptr(space))
        }
    }
}

/// Splits `TYPE VALUE` (the type may be `ptr addrspace(3)`).
fn split_typed(s: &str) -> Option<(Ty, &str)> {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("ptr addrspace(") {
        let close = rest.find(')')?;
        let space: u32 = rest.get(..close)?.trim().parse().ok()?;
        return Some((Ty::Ptr(space), rest.get(close + 1..)?.trim()));
    }
    let (t, v) = s.split_word()?;
    Some((parse_ty(t)?, v.trim()))
}

struct Ctx<'a> {
    locals: NameMap<&'a str, u32>,
    types: Vec<Ty>,
    lds: NameMap<String, u16>,
    args: NameMap<String, u16>,
    blocks: NameMap<String, usize>,
    problems: Vec<Complaint>,
    line: u32,
}

impl Ctx<'_> {
    fn bad(&mut self, what: impl Into<String>) {
        self.problems.push((self.line, what.into()));
    }

    /// A value of type `ty` written as `s`.
    fn val(&mut self, ty: Ty, s: &str) -> Val {
        let s = s.trim();
        if let Some(name) = s.strip_prefix('%') {
            if let Some(&k) = self.args.get(name) {
                if ty != Ty::Ptr(1) {
                    self.bad(format!("%{name} is a `ptr addrspace(1)`, used as {ty:?}"));
                }
                return Val::Arg(k);
            }
            return match self.locals.get(name) {
                Some(&k) => {
                    let actual = self.types.get(k as usize).copied();
                    if actual != Some(ty) {
                        self.bad(format!(
                            "%{name} has type {:?}, used as {ty:?}",
                            actual.unwrap_or(Ty::I32)
                        ));
                    }
                    Val::Local(k)
                }
                None => {
                    self.bad(format!("%{name} is not defined"));
                    Val::Int(0)
                }
            };
        }
        if let Some(name) = s.strip_prefix('@') {
            return match self.lds.get(name) {
                Some(&k) if ty == Ty::Ptr(3) => Val::Lds(k),
                Some(_) => {
                    self.bad(format!("@{name} is an LDS pointer, used as {ty:?}"));
                    Val::Int(0)
                }
                None => {
                    self.bad(format!("@{name} is not defined"));
                    Val::Int(0)
                }
            };
        }
        if s == "poison" || s == "undef" {
            self.bad(format!("uses `{s}`, which has no defined value"));
            return Val::Int(0);
        }
        match ty {
            Ty::I1 => match s {
                "true" => Val::Bool(true),
                "false" => Val::Bool(false),
                _ => {
                    self.bad(format!("`{s}` is not an i1"));
                    Val::Bool(false)
                }
            },
            Ty::I16 | Ty::I32 => match parse_int(s) {
                Some(v) => {
                    let (lo, hi) = if ty == Ty::I16 {
                        (i64::from(i16::MIN), i64::from(u16::MAX))
                    } else {
                        (i64::from(i32::MIN), i64::from(u32::MAX))
                    };
                    if !(lo..=hi).contains(&v) {
                        self.bad(format!("{v} does not fit in {ty:?}"));
                    }
                    Val::Int(v)
                }
                None => {
                    self.bad(format!("`{s}` is not an integer"));
                    Val::Int(0)
                }
            },
            Ty::Float => match parse_float(s) {
                Some(v) if f64::from(v as f32) == v || v.is_nan() => {
                    Val::Float((v as f32).to_bits())
                }
                Some(v) => {
                    self.bad(format!("{s} ({v}) is not exactly a float"));
                    Val::Float(0)
                }
                None => {
                    self.bad(format!("`{s}` is not a float constant"));
                    Val::Float(0)
                }
            },
            Ty::Ptr(_) => {
                self.bad(format!("`{s}` is not a pointer"));
                Val::Int(0)
            }
        }
    }

    fn typed(&mut self, s: &str, want: Ty) -> Val {
        match split_typed(s) {
            Some((ty, v)) => {
                if ty != want {
                    self.bad(format!("`{s}`: expected {want:?}"));
                }
                self.val(ty, v)
            }
            None => {
                self.bad(format!("`{s}` is not a typed value"));
                Val::Int(0)
            }
        }
    }

    fn block(&mut self, s: &str) -> usize {
        let s = s.trim();
        let name = s
            .strip_prefix("label %")
            .unwrap_or(s)
            .trim_start_matches('%');
        match self.blocks.get(name) {
            Some(&b) => b,
            None => {
                self.bad(format!("no block `{name}`"));
                0
            }
        }
    }

    fn imm(&mut self, s: &str, what: &str) -> i64 {
        match split_typed(s) {
            Some((Ty::I32 | Ty::I16, v)) => match parse_int(v) {
                Some(x) => x,
                None => {
                    self.bad(format!("{what} must be an immediate, not `{v}`"));
                    0
                }
            },
            _ => {
                self.bad(format!("{what}: `{s}` is not an integer argument"));
                0
            }
        }
    }
}

/// The type an instruction's result has, from its text (first pass).
fn result_type(rhs: &str) -> Option<Ty> {
    let (op, rest) = rhs.split_word()?;
    let rest = rest.trim();
    match op {
        "add" | "sub" | "mul" | "srem" | "sdiv" | "and" | "or" | "xor" | "shl" | "lshr"
        | "ashr" => {
            if rest.starts_with("i1 ") {
                Some(Ty::I1)
            } else {
                Some(Ty::I32)
            }
        }
        "icmp" => Some(Ty::I1),
        "select" => split_top(rest)
            .get(1)
            .and_then(|a| split_typed(a))
            .map(|(t, _)| t),
        "getelementptr" => split_top(rest)
            .get(1)
            .and_then(|a| split_typed(a))
            .map(|(t, _)| t),
        "load" | "fadd" | "fsub" | "fmul" | "fdiv" | "fneg" | "sitofp" => Some(Ty::Float),
        "phi" => rest.split_once(' ').and_then(|(t, _)| parse_ty(t)),
        "call" => {
            let (t, _) = rest.split_once(' ')?;
            parse_ty(t)
        }
        _ => None,
    }
}

/// `text` parsed: the module, then the function body.
pub fn parse(text: &str) -> Parsed {
    let lines = crate::machine::code_lines(text, strip_comment);
    let Module {
        mut function,
        mut problems,
        mut unsupported,
        declared,
        body,
    } = module(&lines);
    problems.extend(function_body(
        &mut function,
        &body,
        &declared,
        &mut unsupported,
    ));
    Parsed {
        kernel: function,
        problems,
        unsupported,
    }
}

/// What the lines outside the function say: the target, the LDS objects, the declarations, the
/// kernel's parameters, and the function's body lines.
struct Module<'a> {
    function: Function,
    problems: Vec<Complaint>,
    unsupported: Option<Complaint>,
    declared: BTreeMap<String, String>,
    body: Vec<(u32, &'a str)>,
}

fn module<'a>(lines: &[(u32, &'a str)]) -> Module<'a> {
    let mut f = Function::default();
    let mut problems: Vec<Complaint> = Vec::new();
    let mut unsupported: Option<Complaint> = None;
    let mut declared: BTreeMap<String, String> = BTreeMap::new();
    let mut triple = false;
    let mut body_lines: Vec<(u32, &str)> = Vec::new();
    let mut in_function = false;
    let mut defined = false;
    for &(line, l) in lines {
        if in_function {
            if l == "}" {
                in_function = false;
            } else {
                body_lines.push((line, l));
            }
            continue;
        }
        if let Some(t) = l.strip_prefix("target triple") {
            triple = true;
            if t.trim().trim_start_matches('=').trim() != "\"amdgcn-amd-amdhsa\"" {
                problems.push((
                    line,
                    format!(
                        "the target triple is {}, not \"amdgcn-amd-amdhsa\"",
                        t.trim().trim_start_matches('=').trim()
                    ),
                ));
            }
        } else if let Some(rest) = l.strip_prefix('@') {
            // @lds_B = internal addrspace(3) global [N x float] poison, align 16
            let Some((name, def)) = rest.split_once('=') else {
                problems.push((line, "a global without `=`".into()));
                continue;
            };
            let def = def.trim();
            let parsed = def
                .strip_prefix("internal addrspace(3) global [")
                .and_then(|r| r.split_once(" x float] "))
                .and_then(|(n, init)| Some((n.trim().parse::<u64>().ok()?, init)));
            match parsed {
                Some((n, init)) => {
                    let init = init.split(',').next().unwrap_or("").trim();
                    if init != "poison" && init != "undef" {
                        problems.push((line, format!("LDS cannot be initialized (`{init}`): the backend rejects an initializer for addrspace(3)")));
                    }
                    f.lds.push(LdsObject {
                        name: name.trim().to_string(),
                        elements: n,
                    });
                }
                None => {
                    unsupported.get_or_insert((line, format!("the global `@{}`", name.trim())));
                }
            }
        } else if let Some(rest) = l.strip_prefix("declare ") {
            // declare void @llvm.amdgcn.asyncmark()
            let Some((ret, sig)) = rest.split_once(" @") else {
                problems.push((line, "a declaration without a name".into()));
                continue;
            };
            let Some((name, params)) = sig.split_once('(') else {
                problems.push((line, "a declaration without parameters".into()));
                continue;
            };
            let params = params.trim_end_matches(')');
            declared.insert(name.to_string(), format!("{} ({params})", ret.trim()));
        } else if let Some(rest) = l.strip_prefix("define amdgpu_kernel void @") {
            if defined {
                unsupported.get_or_insert((line, "a second function".into()));
                continue;
            }
            defined = true;
            in_function = true;
            let params = rest
                .split_once('(')
                .and_then(|(_, p)| p.rsplit_once(')'))
                .map_or("", |(p, _)| p);
            for p in split_top(params) {
                match split_typed(p) {
                    Some((Ty::Ptr(1), name)) if name.starts_with('%') => {
                        f.args.push(name.trim_start_matches('%').to_string());
                    }
                    _ => {
                        unsupported.get_or_insert((line, format!("the kernel parameter `{p}`")));
                    }
                }
            }
        } else if l.starts_with("define ") {
            unsupported.get_or_insert((line, "a function that is not an amdgpu_kernel".into()));
        } else if l.starts_with("source_filename") || l.starts_with("target datalayout") {
        } else {
            unsupported.get_or_insert((line, format!("`{l}`")));
        }
    }
    if !triple {
        problems.push((0, "no `target triple = \"amdgcn-amd-amdhsa\"`".into()));
    }
    if !defined {
        problems.push((0, "no `define amdgpu_kernel void @…` function".into()));
    }
    if in_function {
        problems.push((0, "the function's `}` is missing".into()));
    }
    for (name, sig) in DECLARATIONS {
        if let Some(d) = declared.get(name) {
            if d != sig {
                problems.push((
                    0,
                    format!("@{name} is declared `{d}`; its signature is `{sig}`"),
                ));
            }
        }
    }
    Module {
        function: f,
        problems,
        unsupported,
        declared,
        body: body_lines,
    }
}

/// The function body in two passes: the blocks and the values they define, then each
/// instruction decoded into the block of the label above it. Returns the problems found.
fn function_body(
    f: &mut Function,
    body_lines: &[(u32, &str)],
    declared: &BTreeMap<String, String>,
    unsupported: &mut Option<Complaint>,
) -> Vec<Complaint> {
    let mut ctx = Ctx {
        locals: NameMap::default(),
        types: Vec::new(),
        lds: f
            .lds
            .iter()
            .enumerate()
            .map(|(k, o)| (o.name.clone(), k as u16))
            .collect(),
        args: f
            .args
            .iter()
            .enumerate()
            .map(|(k, a)| (a.clone(), k as u16))
            .collect(),
        blocks: NameMap::default(),
        problems: Vec::new(),
        line: 0,
    };
    let mut nblocks = 0usize;
    if !matches!(body_lines.first(), Some((_, l)) if l.ends_with(':')) {
        // An unnamed entry block.
        nblocks = 1;
        f.blocks.push(Block::default());
    }
    define_values(&mut ctx, f, body_lines, nblocks);
    decode_lines(&mut ctx, f, body_lines, declared, unsupported);
    ctx.problems
}

/// The first pass: the blocks and the values they define; `nblocks` blocks are made already.
fn define_values<'a>(
    ctx: &mut Ctx<'a>,
    f: &mut Function,
    body_lines: &[(u32, &'a str)],
    mut nblocks: usize,
) {
    for &(line, l) in body_lines {
        ctx.line = line;
        if let Some(name) = l.strip_suffix(':') {
            if ctx.blocks.insert(name.to_string(), nblocks).is_some() {
                ctx.bad(format!("the block `{name}` is defined twice"));
            }
            f.blocks.push(Block {
                name: name.to_string(),
                insts: Vec::new(),
            });
            nblocks += 1;
            continue;
        }
        if let Some((lhs, rhs)) = split_assignment(l) {
            let Some(name) = lhs.trim().strip_prefix('%') else {
                ctx.bad(format!("`{lhs}` is not a local value"));
                continue;
            };
            let Some(ty) = result_type(rhs.trim()) else {
                continue;
            };
            let k = ctx.types.len() as u32;
            if ctx.locals.insert(name, k).is_some() {
                ctx.bad(format!("%{name} is defined twice"));
            }
            ctx.types.push(ty);
            f.locals.push((name.to_string(), ty));
        }
    }
}

/// The second pass: each instruction decoded into the block of the label above it (block 0
/// before any label).
fn decode_lines<'a>(
    ctx: &mut Ctx<'a>,
    f: &mut Function,
    body_lines: &[(u32, &'a str)],
    declared: &BTreeMap<String, String>,
    unsupported: &mut Option<Complaint>,
) {
    let mut block = 0usize;
    for &(line, l) in body_lines {
        ctx.line = line;
        if let Some(name) = l.strip_suffix(':') {
            block = ctx.blocks.get(name).copied().unwrap_or(block);
            continue;
        }
        let (dst, rhs) = match split_assignment(l) {
            Some((lhs, rhs)) => (
                ctx.locals.get(lhs.trim().trim_start_matches('%')).copied(),
                rhs.trim(),
            ),
            None => (None, l),
        };
        let kind = decode(ctx, dst, rhs, declared, unsupported);
        if let (Some(kind), Some(b)) = (kind, f.blocks.get_mut(block)) {
            b.insts.push(Inst { line, kind });
        }
    }
}
