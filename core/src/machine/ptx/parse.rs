//! PTX text (the subset Stagecraft's emitter writes) → decoded instructions, with the checks
//! ptxas makes on what it sees: every register declared (`.reg`), every label and symbol defined,
//! instructions available on the `.target` (cp.async from sm_80, bulk copies and `expect_tx`
//! from sm_90), immediates where the ISA wants them (`cp.async.wait_group N`: an integer
//! constant, not negative).

use super::super::{KernelText, NameMap};
use std::collections::BTreeMap;

/// A register's class, as declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Pred,
    B32,
    B64,
    F32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    /// Kernel parameter k (`.param .u64 param_X`): read with `ld.param`.
    Param(usize),
    /// A `.shared` object (index into `Kernel::shared`).
    Shared(usize),
    /// The `.extern .shared` array: dynamic shared memory, after every static object.
    Dynamic,
    /// A `.local` object (index into `Kernel::local`).
    Local(usize),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    None,
    Reg(u16),
    Imm(i64),
    /// `0fXXXXXXXX`: a float32 by its bits.
    F32(u32),
    /// A symbol's address (`sh_B`, `loc_X`, `mbar_q0`).
    Sym(Symbol),
    /// `%tid.x`.
    Tid,
    /// `[reg + offset]`.
    AddrReg(u16, i64),
    /// `[symbol + offset]`.
    AddrSym(Symbol, i64),
    /// Index of the instruction a label names.
    Label(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    Shared,
    Local,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Integer operations of 32 bits (`.s32`, `.u32`, `.b32`) or 64 (`.s64`, `.u64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    Add,
    Sub,
    MulLo,
    Min,
    Max,
    Rem,
    Div,
    Shl,
    /// Arithmetic (`.s32`) or logical (`.b32`, `.u32`).
    Shr {
        signed: bool,
    },
    And,
    Or,
    Xor,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `mov.{u32,s32,b32,f32,u64,b64}`.
    Mov {
        wide: bool,
    },
    Int {
        op: IntOp,
        wide: bool,
    },
    /// `mul.wide.s32`.
    MulWide,
    /// `mad.lo.s32`.
    MadLo,
    /// `setp.CMP.{s32,u32}`.
    Setp {
        cmp: Cmp,
        signed: bool,
    },
    /// `selp.{s32,b32,u32,f32}`.
    Selp,
    NotPred,
    AndPred,
    OrPred,
    /// `cvt.s64.s32`.
    CvtS64S32,
    /// `cvt.rn.f32.s32`.
    CvtF32S32,
    /// `cvta.to.global.u64`.
    CvtaGlobal,
    LdParam,
    Ld(Space),
    St(Space),
    FBin(FOp),
    FNeg,
    FAbs,
    Fma,
    /// `cp.async.ca.shared.global [dst], [src], size`.
    CpAsync,
    /// `cp.async.cg.shared.global [dst], [src], 16` (cached in L2 only: 16 bytes).
    CpAsyncCg,
    CommitGroup,
    WaitGroup,
    WaitAll,
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]`.
    Bulk,
    MbarInit,
    MbarArriveExpectTx,
    MbarTryWaitParity,
    FenceProxyAsync,
    FenceMbarInit,
    BarSync,
    Bra,
    Ret,
}

#[derive(Clone, Debug)]
pub struct Inst {
    /// 1-based line in the text.
    pub line: u32,
    /// `@%p` (`false`) or `@!%p` (`true`).
    pub guard: Option<(u16, bool)>,
    pub op: Op,
    pub ops: [Operand; 4],
}

#[derive(Clone, Debug)]
pub struct Object {
    pub name: String,
    pub bytes: u64,
    pub align: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Kernel {
    pub insts: Vec<Inst>,
    pub params: Vec<String>,
    pub shared: Vec<Object>,
    pub local: Vec<Object>,
    /// Declared registers: name and class, by index.
    pub regs: Vec<(String, Class)>,
    /// The `.target` (80 for sm_80, 90 for sm_90 / sm_90a).
    pub sm: u32,
    pub has_dynamic: bool,
}

pub use crate::machine::Complaint;
/// The kernel, what ptxas would reject, and the first valid PTX the executor does not model.
pub type Parsed = crate::machine::Parsed<Kernel>;

fn strip_comment(s: &str) -> &str {
    // A byte loop: a kernel's lines are short, and `find` spends more setting up its search
    // than searching (a large part of the parser's time in a profile).
    match s.as_bytes().windows(2).position(|w| w == b"//") {
        Some(at) => s.get(..at).unwrap_or(s),
        None => s,
    }
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        body.parse::<i64>().ok()?
    } else {
        return None;
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `n` in decimal, written into `buffer`.
fn decimal(mut n: u32, buffer: &mut [u8; 10]) -> &str {
    let mut at = buffer.len();
    loop {
        at -= 1;
        if let Some(d) = buffer.get_mut(at) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    std::str::from_utf8(buffer.get(at..).unwrap_or(&[])).unwrap_or("")
}

/// Registers: ranges declared as `%r<N>` are looked up by prefix and number, others by name.
#[derive(Default)]
struct Regs {
    named: NameMap<String, u16>,
    /// Prefix, first register, count: a kernel declares a handful, so a scan beats hashing the
    /// name on each of its tens of thousands of operands. No named register is inside a range.
    ranges: Vec<(String, u16, u32)>,
    list: Vec<(String, Class)>,
}

impl Regs {
    fn declare(&mut self, name: &str, class: Class) -> Result<(), String> {
        if let Some((prefix, n)) = name.strip_suffix('>').and_then(|s| s.split_once('<')) {
            let count: u32 = n
                .parse()
                .map_err(|_| format!("bad register range `{name}`"))?;
            if self.list.len() + count as usize > u16::MAX as usize {
                return Err("more registers than the executor holds".into());
            }
            if let Some(taken) = self.named.keys().find(|r| in_range(r, prefix, count)) {
                return Err(format!("`{taken}` is declared twice"));
            }
            if self.ranges.iter().any(|(p, ..)| p == prefix) {
                return Err(format!("`{prefix}<…>` is declared twice"));
            }
            let base = self.list.len() as u16;
            self.list.reserve(count as usize);
            // Thousands of names in a large kernel: written without the formatting machinery.
            let mut digits = [0u8; 10];
            for i in 0..count {
                let mut name = String::with_capacity(prefix.len() + 5);
                name.push_str(prefix);
                name.push_str(decimal(i, &mut digits));
                self.list.push((name, class));
            }
            self.ranges.push((prefix.to_string(), base, count));
            return Ok(());
        }
        if self.lookup(name).is_some() {
            return Err(format!("`{name}` is declared twice"));
        }
        if self.list.len() >= u16::MAX as usize {
            return Err("more registers than the executor holds".into());
        }
        self.named.insert(name.to_string(), self.list.len() as u16);
        self.list.push((name.to_string(), class));
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<u16> {
        if let Some((prefix, n)) = numbered(name) {
            let range = self.ranges.iter().find(|(p, ..)| p == prefix);
            if let Some((_, base, _)) = range.filter(|(.., count)| n < *count) {
                return Some(base + n as u16);
            }
        }
        self.named.get(name).copied()
    }
}

/// `%rd12` → (`%rd`, 12); `None` without a number, or with a leading zero (`%r01` is a name).
fn numbered(name: &str) -> Option<(&str, u32)> {
    let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (prefix, n) = name.split_at(name.len() - digits);
    if digits == 0 || (digits > 1 && n.starts_with('0')) {
        return None;
    }
    Some((prefix, n.parse().ok()?))
}

/// Whether `name` is one of the registers `prefix<count>` declares.
fn in_range(name: &str, prefix: &str, count: u32) -> bool {
    numbered(name).is_some_and(|(p, n)| p == prefix && n < count)
}

/// Mnemonic → operation.
fn decode(m: &str) -> Option<Op> {
    use Op::*;
    let cmp = |s: &str| match s {
        "eq" => Some(Cmp::Eq),
        "ne" => Some(Cmp::Ne),
        "lt" => Some(Cmp::Lt),
        "le" => Some(Cmp::Le),
        "gt" => Some(Cmp::Gt),
        "ge" => Some(Cmp::Ge),
        _ => None,
    };
    if let Some(rest) = m.strip_prefix("setp.") {
        let (c, ty) = rest.split_once('.')?;
        let signed = match ty {
            "s32" => true,
            "u32" => false,
            _ => return None,
        };
        return Some(Setp {
            cmp: cmp(c)?,
            signed,
        });
    }
    let int = |op: IntOp, ty: &str| -> Option<Op> {
        let wide = match ty {
            "s32" | "u32" | "b32" => false,
            "s64" | "u64" | "b64" => true,
            _ => return None,
        };
        Some(Int { op, wide })
    };
    if let Some((head, ty)) = m.rsplit_once('.') {
        let op = match head {
            "add" if ty != "f32" => Some(IntOp::Add),
            "sub" if ty != "f32" => Some(IntOp::Sub),
            "mul.lo" => Some(IntOp::MulLo),
            "min" if ty != "f32" => Some(IntOp::Min),
            "max" if ty != "f32" => Some(IntOp::Max),
            "rem" => Some(IntOp::Rem),
            "div" => Some(IntOp::Div),
            "shl" => Some(IntOp::Shl),
            "shr" => Some(IntOp::Shr {
                signed: ty.starts_with('s'),
            }),
            "and" if ty != "pred" => Some(IntOp::And),
            "or" if ty != "pred" => Some(IntOp::Or),
            "xor" if ty != "pred" => Some(IntOp::Xor),
            _ => None,
        };
        if let Some(op) = op {
            // Signed division and remainder only (what the emitter writes).
            if matches!(op, IntOp::Rem | IntOp::Div | IntOp::Min | IntOp::Max)
                && !ty.starts_with('s')
            {
                return None;
            }
            return int(op, ty);
        }
    }
    Some(match m {
        "mov.u32" | "mov.s32" | "mov.b32" | "mov.f32" => Mov { wide: false },
        "mov.u64" | "mov.s64" | "mov.b64" => Mov { wide: true },
        "mul.wide.s32" => MulWide,
        "mad.lo.s32" => MadLo,
        "selp.s32" | "selp.b32" | "selp.u32" | "selp.f32" => Selp,
        "not.pred" => NotPred,
        "and.pred" => AndPred,
        "or.pred" => OrPred,
        "cvt.s64.s32" => CvtS64S32,
        "cvt.rn.f32.s32" => CvtF32S32,
        "cvta.to.global.u64" => CvtaGlobal,
        "ld.param.u64" => LdParam,
        "ld.global.f32" => Ld(Space::Global),
        "ld.shared.f32" => Ld(Space::Shared),
        "ld.local.f32" => Ld(Space::Local),
        "st.global.f32" => St(Space::Global),
        "st.shared.f32" => St(Space::Shared),
        "st.local.f32" => St(Space::Local),
        "add.f32" => FBin(FOp::Add),
        "sub.f32" => FBin(FOp::Sub),
        "mul.f32" => FBin(FOp::Mul),
        "div.rn.f32" => FBin(FOp::Div),
        "max.f32" => FBin(FOp::Max),
        "min.f32" => FBin(FOp::Min),
        "neg.f32" => FNeg,
        "abs.f32" => FAbs,
        "fma.rn.f32" => Fma,
        "cp.async.ca.shared.global" => CpAsync,
        "cp.async.cg.shared.global" => CpAsyncCg,
        "cp.async.commit_group" => CommitGroup,
        "cp.async.wait_group" => WaitGroup,
        "cp.async.wait_all" => WaitAll,
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" => Bulk,
        "mbarrier.init.shared::cta.b64" | "mbarrier.init.shared.b64" => MbarInit,
        "mbarrier.arrive.expect_tx.shared::cta.b64" => MbarArriveExpectTx,
        "mbarrier.try_wait.parity.shared::cta.b64" => MbarTryWaitParity,
        "fence.proxy.async" | "fence.proxy.async.shared::cta" => FenceProxyAsync,
        "fence.mbarrier_init.release.cluster" => FenceMbarInit,
        "bar.sync" | "barrier.sync" => BarSync,
        "bra" | "bra.uni" => Bra,
        "ret" => Ret,
        _ => return None,
    })
}

/// Operands a mnemonic takes (a count ptxas checks).
fn arity(op: Op) -> usize {
    use Op::*;
    match op {
        Ret | CommitGroup | WaitAll | FenceProxyAsync | FenceMbarInit => 0,
        Bra | WaitGroup | BarSync => 1,
        Mov { .. }
        | NotPred
        | CvtS64S32
        | CvtF32S32
        | CvtaGlobal
        | LdParam
        | Ld(_)
        | St(_)
        | FNeg
        | FAbs
        | MbarInit => 2,
        Int { .. }
        | MulWide
        | Setp { .. }
        | AndPred
        | OrPred
        | FBin(_)
        | CpAsync
        | CpAsyncCg
        | MbarArriveExpectTx
        | MbarTryWaitParity => 3,
        MadLo | Selp | Fma | Bulk => 4,
    }
}

/// Splits operands at top-level commas.
fn split_operands(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    // Bytes, not characters: the delimiters are ASCII, which never occurs inside a multi-byte
    // character, so every split is at a character boundary.
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b',' if depth == 0 => {
                out.push(s.get(start..i).unwrap_or("").trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s.get(start..).unwrap_or("").trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    out
}

struct Ctx<'a> {
    regs: &'a Regs,
    symbols: &'a BTreeMap<String, Symbol>,
    labels: &'a BTreeMap<&'a str, usize>,
}

impl Ctx<'_> {
    fn operand(&self, s: &str) -> Result<Operand, String> {
        if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            let inner = inner.trim();
            let (base, offset) = match inner.find(['+', '-']) {
                Some(at) if at > 0 => {
                    let (b, o) = inner.split_at(at);
                    let o = o.trim();
                    let v = parse_int(o.strip_prefix('+').unwrap_or(o).trim())
                        .ok_or_else(|| format!("bad address offset in `{s}`"))?;
                    (b.trim(), v)
                }
                _ => (inner, 0),
            };
            if base.starts_with('%') {
                let r = self
                    .regs
                    .lookup(base)
                    .ok_or_else(|| format!("`{base}` is not a declared register"))?;
                return Ok(Operand::AddrReg(r, offset));
            }
            let sym = self
                .symbols
                .get(base)
                .ok_or_else(|| format!("`{base}` is not a declared symbol"))?;
            return Ok(Operand::AddrSym(*sym, offset));
        }
        if s == "%tid.x" {
            return Ok(Operand::Tid);
        }
        if s.starts_with('%') {
            return self
                .regs
                .lookup(s)
                .map(Operand::Reg)
                .ok_or_else(|| format!("`{s}` is not a declared register"));
        }
        if let Some(hex) = s.strip_prefix("0f").or_else(|| s.strip_prefix("0F")) {
            if hex.len() == 8 {
                return u32::from_str_radix(hex, 16)
                    .map(Operand::F32)
                    .map_err(|_| format!("bad float literal `{s}`"));
            }
        }
        if let Some(v) = parse_int(s) {
            return Ok(Operand::Imm(v));
        }
        if let Some(sym) = self.symbols.get(s) {
            return Ok(Operand::Sym(*sym));
        }
        if let Some(at) = self.labels.get(s) {
            return Ok(Operand::Label(*at));
        }
        Err(format!(
            "`{s}` is neither a register, a number, a symbol nor a label"
        ))
    }
}

/// `.shared .align 16 .b8 sh_B[1536]` → (name, bytes, align).
fn object(rest: &str) -> Option<(String, u64, u64)> {
    let mut align = 1u64;
    let mut unit = 1u64;
    let mut decl = None;
    let mut words = rest.split_whitespace();
    while let Some(w) = words.next() {
        match w {
            ".align" => align = words.next()?.parse().ok()?,
            ".b8" | ".u8" => unit = 1,
            ".b32" | ".u32" | ".f32" => unit = 4,
            ".b64" | ".u64" => unit = 8,
            _ => decl = Some(w),
        }
    }
    let decl = decl?.trim_end_matches(';');
    let (name, n) = decl.strip_suffix(']')?.split_once('[')?;
    let n: u64 = if n.is_empty() { 0 } else { n.parse().ok()? };
    Some((name.to_string(), n.saturating_mul(unit), align.max(1)))
}

pub fn parse(text: &str) -> Parsed {
    let lines = crate::machine::code_lines(text, strip_comment);
    let mut d = declarations(&lines);
    let ctx = Ctx {
        regs: &d.regs,
        symbols: &d.symbols,
        labels: &d.labels,
    };
    d.kernel.insts.reserve(d.instructions);
    for &(line, code) in &lines {
        if code.ends_with(':') || code.starts_with('.') || matches!(code, "{" | "}" | ")") {
            continue;
        }
        match instruction(&ctx, d.kernel.sm, line, code, &mut d.unsupported) {
            Ok(Some(inst)) => d.kernel.insts.push(inst),
            Ok(None) => {}
            Err(why) => d.problems.push((line, why)),
        }
    }
    d.kernel.regs = d.regs.list;
    Parsed {
        kernel: d.kernel,
        problems: d.problems,
        unsupported: d.unsupported,
    }
}

/// What the first pass over the text finds: the target, registers, parameters and memory
/// objects declared, and each label's instruction index.
struct Declarations<'a> {
    kernel: Kernel,
    regs: Regs,
    symbols: BTreeMap<String, Symbol>,
    labels: BTreeMap<&'a str, usize>,
    /// Instruction lines.
    instructions: usize,
    problems: Vec<Complaint>,
    unsupported: Option<Complaint>,
}

fn declarations<'a>(lines: &[(u32, &'a str)]) -> Declarations<'a> {
    let mut d = Declarations {
        kernel: Kernel::default(),
        regs: Regs::default(),
        symbols: BTreeMap::new(),
        labels: BTreeMap::new(),
        instructions: 0,
        problems: Vec::new(),
        unsupported: None,
    };
    let mut target_seen = false;
    for &(line, code) in lines {
        if let Some(label) = code.strip_suffix(':') {
            if d.labels.insert(label.trim(), d.instructions).is_some() {
                d.problems.push((
                    line,
                    format!("the label `{}` is defined twice", label.trim()),
                ));
            }
        } else if let Some(t) = code.strip_prefix(".target") {
            target_seen = true;
            d.target(line, t.trim());
        } else if let Some(rest) = code.strip_prefix(".reg") {
            d.registers(line, rest);
        } else if let Some(rest) = code.strip_prefix(".param") {
            let name = rest
                .split_whitespace()
                .last()
                .unwrap_or("")
                .trim_end_matches(',');
            if !rest.contains(".u64") && !rest.contains(".b64") {
                d.problems
                    .push((line, format!("parameter `{name}` is not a 64-bit pointer")));
            }
            d.symbols
                .insert(name.to_string(), Symbol::Param(d.kernel.params.len()));
            d.kernel.params.push(name.to_string());
        } else if let Some(rest) = code.strip_prefix(".extern") {
            match object(rest) {
                Some((name, _, _)) if rest.contains(".shared") => {
                    d.kernel.has_dynamic = true;
                    d.symbols.insert(name, Symbol::Dynamic);
                }
                _ => d
                    .problems
                    .push((line, "an `.extern` the executor does not model".into())),
            }
        } else if let Some(rest) = code.strip_prefix(".shared") {
            d.object(line, code, rest, false);
        } else if let Some(rest) = code.strip_prefix(".local") {
            d.object(line, code, rest, true);
        } else if !code.starts_with('.') && !matches!(code, "{" | "}" | ")") {
            d.instructions += 1;
        }
    }
    if !target_seen {
        d.problems.push((0, "the kernel has no `.target`".into()));
    }
    d
}

impl Declarations<'_> {
    fn target(&mut self, line: u32, t: &str) {
        self.kernel.sm = match t {
            "sm_80" | "sm_86" | "sm_89" => 80,
            "sm_90" | "sm_90a" => 90,
            _ => {
                self.problems.push((
                    line,
                    format!("`.target {t}`: the executor models sm_80 and sm_90a"),
                ));
                0
            }
        };
    }

    /// `.reg .b32 %r<4>;` or `.reg .pred %p, %q;`.
    fn registers(&mut self, line: u32, rest: &str) {
        let rest = rest.trim().trim_end_matches(';');
        let (ty, names) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let class = match ty {
            ".pred" => Class::Pred,
            ".b32" | ".u32" | ".s32" => Class::B32,
            ".b64" | ".u64" | ".s64" => Class::B64,
            ".f32" => Class::F32,
            other => {
                self.problems.push((
                    line,
                    format!("`.reg {other}`: a register type the executor does not model"),
                ));
                return;
            }
        };
        for n in names.split(',') {
            if let Err(e) = self.regs.declare(n.trim(), class) {
                self.problems.push((line, e));
            }
        }
    }

    /// A `.shared` or `.local` object.
    fn object(&mut self, line: u32, code: &str, rest: &str, local: bool) {
        let Some((name, bytes, align)) = object(rest) else {
            self.problems
                .push((line, format!("cannot read the declaration `{code}`")));
            return;
        };
        let symbol = if local {
            Symbol::Local(self.kernel.local.len())
        } else {
            Symbol::Shared(self.kernel.shared.len())
        };
        match self.symbols.entry(name.clone()) {
            std::collections::btree_map::Entry::Occupied(e) => self
                .problems
                .push((line, format!("`{}` is declared twice", e.key()))),
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(symbol);
                let o = Object { name, bytes, align };
                if local {
                    self.kernel.local.push(o);
                } else {
                    self.kernel.shared.push(o);
                }
            }
        }
    }
}

/// One instruction line (`[@guard] mnemonic operands;`) of a kernel targeting `sm`: the
/// instruction, nothing (valid PTX outside the subset, noted in `unsupported`), or what ptxas
/// would reject.
fn instruction(
    ctx: &Ctx,
    sm: u32,
    line: u32,
    code: &str,
    unsupported: &mut Option<Complaint>,
) -> Result<Option<Inst>, String> {
    let body = code
        .strip_suffix(';')
        .ok_or("an instruction ends with `;`")?
        .trim();
    let (guard, body) = match body.strip_prefix('@') {
        Some(rest) => {
            let (g, rest) = rest.split_word().unwrap_or((rest, ""));
            let (neg, g) = match g.strip_prefix('!') {
                Some(x) => (true, x),
                None => (false, g),
            };
            match ctx.regs.lookup(g) {
                Some(r) if ctx.regs.list.get(r as usize).map(|x| x.1) == Some(Class::Pred) => {
                    (Some((r, neg)), rest.trim())
                }
                _ => return Err(format!("the guard `{g}` is not a declared predicate")),
            }
        }
        None => (None, body),
    };
    let (mnemonic, rest) = body.split_word().unwrap_or((body, ""));
    let Some(op) = decode(mnemonic) else {
        unsupported.get_or_insert((
            line,
            format!("`{mnemonic}` is outside the subset the executor models"),
        ));
        return Ok(None);
    };
    let needs = match op {
        Op::CpAsync | Op::CpAsyncCg | Op::CommitGroup | Op::WaitGroup | Op::WaitAll => 80,
        Op::Bulk
        | Op::MbarArriveExpectTx
        | Op::MbarTryWaitParity
        | Op::FenceProxyAsync
        | Op::FenceMbarInit => 90,
        _ => 0,
    };
    if sm != 0 && sm < needs {
        return Err(format!(
            "`{mnemonic}` requires sm_{needs} or higher; the kernel targets sm_{sm}"
        ));
    }
    let texts = split_operands(rest);
    if texts.len() != arity(op) {
        return Err(format!(
            "`{mnemonic}` takes {}, not {}",
            crate::english::count(arity(op), "operand"),
            texts.len()
        ));
    }
    let mut ops = [Operand::None; 4];
    for (slot, t) in ops.iter_mut().zip(&texts) {
        *slot = ctx.operand(t)?;
    }
    if let Some(why) = immediate_complaint(op, ops, line, unsupported) {
        return Err(why);
    }
    Ok(Some(Inst {
        line,
        guard,
        op,
        ops,
    }))
}

/// What ptxas checks on an instruction's immediates and operand kinds.
fn immediate_complaint(
    op: Op,
    [a, b, c, _]: [Operand; 4],
    line: u32,
    unsupported: &mut Option<Complaint>,
) -> Option<String> {
    match op {
        Op::WaitGroup => match a {
            Operand::Imm(n) if n < 0 => Some(format!(
                "cp.async.wait_group {n}: N counts the most recent groups left pending; a negative count is not valid"
            )),
            Operand::Imm(_) => None,
            _ => Some("cp.async.wait_group takes an integer constant".into()),
        },
        Op::CpAsync => match c {
            Operand::Imm(4 | 8 | 16) => None,
            _ => Some("cp.async.ca copies 4, 8 or 16 bytes (an integer constant)".into()),
        },
        Op::CpAsyncCg => match c {
            Operand::Imm(16) => None,
            _ => Some("cp.async.cg copies 16 bytes (PTX ISA: .cg only with a cp-size of 16)".into()),
        },
        Op::Bulk => match c {
            Operand::Imm(n) if n > 0 && n % 16 == 0 => None,
            Operand::Imm(n) => Some(format!("a bulk copy moves a positive multiple of 16 bytes, not {n}")),
            _ => None,
        },
        Op::MbarArriveExpectTx => match c {
            Operand::Imm(n) if !(0..(1 << 20)).contains(&n) => Some(format!(
                "expect_tx of {n} bytes: the tx-count is at most 2^20 - 1"
            )),
            _ => None,
        },
        Op::MbarInit => match b {
            Operand::Imm(n) if !(1..(1 << 20)).contains(&n) => {
                Some(format!("an mbarrier counts 1 to 2^20 - 1 arrivals, not {n}"))
            }
            _ => None,
        },
        Op::MbarTryWaitParity => match c {
            Operand::Imm(n) if !(0..=1).contains(&n) => {
                Some(format!("a phase parity is 0 or 1, not {n}"))
            }
            _ => None,
        },
        Op::BarSync => match a {
            Operand::Imm(0) => None,
            Operand::Imm(n) if (0..16).contains(&n) => {
                unsupported.get_or_insert((line, "named barriers other than 0".into()));
                None
            }
            _ => Some("bar.sync takes a barrier number 0..15".into()),
        },
        Op::Bra => match a {
            Operand::Label(_) => None,
            _ => Some("a branch goes to a label".into()),
        },
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn the_registers_of_a_range_are_named_by_their_numbers() {
        let mut regs = Regs::default();
        regs.declare("%r<2492>", Class::B32).unwrap();
        let names: Vec<&str> = [0, 9, 10, 2491]
            .iter()
            .map(|&i| regs.list[i].0.as_str())
            .collect();
        assert_eq!(names, ["%r0", "%r9", "%r10", "%r2491"]);
        assert_eq!(decimal(u32::MAX, &mut [0; 10]), "4294967295");
    }

    #[test]
    fn registers_of_a_range_and_named_ones_are_found() {
        let p = parse(
            ".target sm_80\n{\n.reg .b32 %r<4>;\n.reg .b32 %r_B, %cq0;\nadd.s32 %r3, %r_B, %cq0;\nadd.s32 %r4, %r1, 1;\n}\n",
        );
        assert_eq!(p.kernel.insts.len(), 1);
        assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
        assert!(p.problems[0].1.contains("%r4"));
    }

    #[test]
    fn a_named_register_beyond_a_range_is_found_and_one_inside_it_is_declared_twice() {
        let p =
            parse(".target sm_80\n{\n.reg .b32 %r<4>;\n.reg .b32 %r7;\nadd.s32 %r7, %r3, 1;\n}\n");
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.kernel.insts.len(), 1);
        let p = parse(".target sm_80\n{\n.reg .b32 %r2;\n.reg .b32 %r<4>;\n}\n");
        assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
        assert!(p.problems[0].1.contains("`%r2` is declared twice"));
    }

    #[test]
    fn a_negative_wait_group_and_a_bulk_copy_on_sm_80_are_rejected() {
        let p = parse(".target sm_80\n{\ncp.async.wait_group -1;\nfence.proxy.async;\n}\n");
        assert_eq!(p.problems.len(), 2, "{:?}", p.problems);
        assert_eq!(p.problems[0].0, 3);
        assert!(p.problems[1].1.contains("sm_90"));
    }
}
