//! PTX for sm_80: a complete `.entry` kernel. Global→shared copies in async stages become
//! `cp.async.ca.shared.global` (4 bytes per thread and element), every commit scope one
//! `cp.async.commit_group` (empty groups included, so the counts are the IR's), every wait a
//! `cp.async.wait_group N` with the immediate the peeled program carries.

use super::{element, elements, is_async_copy, Emitted, Flat, Item, Lines, Stmt};
use crate::emit::EmitOptions;
use crate::ir::*;

enum Op {
    Imm(i64),
    Reg(String),
}

impl Op {
    fn text(&self) -> String {
        match self {
            Op::Imm(v) => v.to_string(),
            Op::Reg(r) => r.clone(),
        }
    }
}

struct Gen<'a> {
    program: &'a Program,
    flat: &'a Flat,
    lanes: i64,
    out: Lines,
    r: u32,
    rd: u32,
    f: u32,
    p: u32,
    labels: u32,
    notes: Vec<String>,
}

impl Gen<'_> {
    fn r(&mut self) -> String {
        self.r += 1;
        format!("%r{}", self.r)
    }
    fn rd(&mut self) -> String {
        self.rd += 1;
        format!("%rd{}", self.rd)
    }
    fn f(&mut self) -> String {
        self.f += 1;
        format!("%f{}", self.f)
    }
    fn p(&mut self) -> String {
        self.p += 1;
        format!("%p{}", self.p)
    }
    fn emit(&mut self, s: impl AsRef<str>) {
        self.out.line(format!("    {}", s.as_ref()));
    }

    fn reg_of(&mut self, o: Op) -> String {
        match o {
            Op::Reg(r) => r,
            Op::Imm(v) => {
                let r = self.r();
                self.emit(format!("mov.s32 {r}, {v};"));
                r
            }
        }
    }

    fn int(&mut self, e: &IExpr) -> Op {
        if let Some(v) = e.eval(&[]) {
            return Op::Imm(v);
        }
        match e {
            IExpr::Const(v) => Op::Imm(*v),
            IExpr::Var(v) if Some(*v) == self.flat.loop_var => Op::Reg("%r1".into()),
            IExpr::Var(_) => Op::Imm(0),
            IExpr::Bin(op, a, b) => {
                let (a, b) = (self.int(a), self.int(b));
                let a = self.reg_of(a);
                let b = b.text();
                let d = self.r();
                match op {
                    IOp::Add => self.emit(format!("add.s32 {d}, {a}, {b};")),
                    IOp::Sub => self.emit(format!("sub.s32 {d}, {a}, {b};")),
                    IOp::Mul => self.emit(format!("mul.lo.s32 {d}, {a}, {b};")),
                    IOp::Min => self.emit(format!("min.s32 {d}, {a}, {b};")),
                    IOp::Max => self.emit(format!("max.s32 {d}, {a}, {b};")),
                    IOp::Mod => {
                        // Floor modulo for a positive divisor: rem, then add the divisor if negative.
                        let (t, p) = (self.r(), self.p());
                        self.emit(format!("rem.s32 {t}, {a}, {b};"));
                        self.emit(format!("setp.lt.s32 {p}, {t}, 0;"));
                        self.emit(format!("add.s32 {d}, {t}, {b};"));
                        self.emit(format!("selp.s32 {d}, {d}, {t}, {p};"));
                    }
                    IOp::FloorDiv => {
                        let (t, m, p) = (self.r(), self.r(), self.p());
                        self.emit(format!("div.s32 {t}, {a}, {b};"));
                        self.emit(format!("mul.lo.s32 {m}, {t}, {b};"));
                        self.emit(format!("setp.gt.s32 {p}, {m}, {a};"));
                        self.emit(format!("sub.s32 {d}, {t}, 1;"));
                        self.emit(format!("selp.s32 {d}, {d}, {t}, {p};"));
                    }
                }
                Op::Reg(d)
            }
            IExpr::Select(c, a, b) => {
                let p = self.cond(c);
                let (a, b) = (self.int(a), self.int(b));
                let (a, b) = (self.reg_of(a), self.reg_of(b));
                let d = self.r();
                self.emit(format!("selp.s32 {d}, {a}, {b}, {p};"));
                Op::Reg(d)
            }
        }
    }

    fn cond(&mut self, c: &Cond) -> String {
        let p = self.p();
        match c {
            Cond::Cmp(op, a, b) => {
                let (a, b) = (self.int(a), self.int(b));
                let a = self.reg_of(a);
                let cmp = match op {
                    CmpOp::Lt => "lt",
                    CmpOp::Le => "le",
                    CmpOp::Gt => "gt",
                    CmpOp::Ge => "ge",
                    CmpOp::Eq => "eq",
                    CmpOp::Ne => "ne",
                };
                self.emit(format!("setp.{cmp}.s32 {p}, {a}, {};", b.text()));
            }
            Cond::True => self.emit(format!("setp.eq.s32 {p}, 0, 0;")),
            Cond::Not(x) => {
                let q = self.cond(x);
                self.emit(format!("not.pred {p}, {q};"));
            }
            Cond::And(x, y) | Cond::Or(x, y) => {
                let (a, b) = (self.cond(x), self.cond(y));
                let op = if matches!(c, Cond::And(..)) {
                    "and"
                } else {
                    "or"
                };
                self.emit(format!("{op}.pred {p}, {a}, {b};"));
            }
        }
        p
    }

    fn scope(&self, b: BufId) -> Scope {
        self.program.buffer(b).map_or(Scope::Global, |b| b.scope)
    }

    fn name(&self, b: BufId) -> String {
        self.program
            .buffer(b)
            .map_or_else(|| format!("b{b}"), |b| b.name.clone())
    }

    /// The address of this thread's value of the accessed element (64-bit for global, 32-bit for
    /// shared, 64-bit local-window for local).
    fn address(&mut self, a: &Access) -> String {
        let e = element(&self.flat.shapes, a);
        let elem = self.int(&e);
        match self.scope(a.buffer) {
            Scope::Local => {
                let bytes = match elem {
                    Op::Imm(v) => Op::Imm(v * 4),
                    Op::Reg(r) => {
                        let t = self.r();
                        self.emit(format!("shl.b32 {t}, {r}, 2;"));
                        Op::Reg(t)
                    }
                };
                let (w, d) = (self.rd(), self.rd());
                let bytes = self.reg_of_text(bytes);
                self.emit(format!("cvt.s64.s32 {w}, {bytes};"));
                self.emit(format!("add.s64 {d}, %rd_{}, {w};", self.name(a.buffer)));
                d
            }
            scope => {
                let lane = self.r();
                match elem {
                    Op::Imm(v) => self.emit(format!("add.s32 {lane}, %r0, {};", v * self.lanes)),
                    Op::Reg(r) => {
                        self.emit(format!("mad.lo.s32 {lane}, {r}, {}, %r0;", self.lanes))
                    }
                }
                if scope == Scope::Shared {
                    let (t, d) = (self.r(), self.r());
                    self.emit(format!("shl.b32 {t}, {lane}, 2;"));
                    self.emit(format!("add.s32 {d}, %r_{}, {t};", self.name(a.buffer)));
                    d
                } else {
                    let (w, d) = (self.rd(), self.rd());
                    self.emit(format!("mul.wide.s32 {w}, {lane}, 4;"));
                    self.emit(format!("add.s64 {d}, %rd_{}, {w};", self.name(a.buffer)));
                    d
                }
            }
        }
    }

    fn reg_of_text(&mut self, o: Op) -> String {
        self.reg_of(o)
    }

    fn space(&self, b: BufId) -> &'static str {
        match self.scope(b) {
            Scope::Global => "global",
            Scope::Shared => "shared",
            Scope::Local => "local",
        }
    }

    fn value(&mut self, v: &VExpr) -> String {
        match v {
            VExpr::Lit(x) => {
                let d = self.f();
                self.emit(format!("mov.f32 {d}, 0f{:08X};", (*x as f32).to_bits()));
                d
            }
            VExpr::Read(a) => {
                let addr = self.address(a);
                let d = self.f();
                self.emit(format!("ld.{}.f32 {d}, [{addr}];", self.space(a.buffer)));
                d
            }
            VExpr::Index(e) => {
                let i = self.int(e);
                let i = self.reg_of(i);
                let d = self.f();
                self.emit(format!("cvt.rn.f32.s32 {d}, {i};"));
                d
            }
            VExpr::Neg(x) => {
                let x = self.value(x);
                let d = self.f();
                self.emit(format!("neg.f32 {d}, {x};"));
                d
            }
            VExpr::Bin(op, a, b) => {
                let (a, b) = (self.value(a), self.value(b));
                let d = self.f();
                let ins = match op {
                    VOp::Add => "add.f32",
                    VOp::Sub => "sub.f32",
                    VOp::Mul => "mul.f32",
                    VOp::Div => "div.rn.f32",
                };
                self.emit(format!("{ins} {d}, {a}, {b};"));
                d
            }
            VExpr::Call(func, args) => {
                let regs: Vec<String> = args.iter().map(|a| self.value(a)).collect();
                let d = self.f();
                let ins = match func {
                    Func::Max => "max.f32",
                    Func::Min => "min.f32",
                    Func::Fma => "fma.rn.f32",
                    Func::Abs => "abs.f32",
                };
                self.emit(format!("{ins} {d}, {};", regs.join(", ")));
                d
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.out.current = Some(s.assign.stmt);
        if let Some(src) = is_async_copy(self.program, s) {
            let (g, d) = (self.address(&src), self.address(&s.assign.target));
            self.emit(format!("cp.async.ca.shared.global [{d}], [{g}], 4;"));
        } else {
            if s.is_async {
                self.emit("// asynchronous in the schedule, but only global->shared copies are async on sm_80: issued synchronously");
                self.notes.push(format!(
                    "statement {} is in an async stage but is not a global->shared copy; sm_80 runs it synchronously (its commit group is empty)",
                    s.assign.stmt
                ));
            }
            let v = self.value(&s.assign.value);
            let addr = self.address(&s.assign.target);
            self.emit(format!(
                "st.{}.f32 [{addr}], {v};",
                self.space(s.assign.target.buffer)
            ));
        }
        self.out.current = None;
    }

    fn items(&mut self, items: &[Item]) {
        for it in items {
            match it {
                Item::Stmt(s) => self.stmt(s),
                Item::Commit(_) => self.emit("cp.async.commit_group;"),
                Item::Wait { queue, count, id } => {
                    self.emit(format!(
                        "cp.async.wait_group {count};  // wait #{} (queue {queue}): at most {count} groups in flight",
                        id.map_or("-".into(), |i| i.to_string())
                    ));
                }
                Item::Loop { lo, hi, body, .. } => {
                    self.labels += 1;
                    let (head, end) = (
                        format!("$L_body_{}", self.labels),
                        format!("$L_end_{}", self.labels),
                    );
                    let p = self.p();
                    self.emit(format!("mov.s32 %r1, {lo};"));
                    self.out.line(format!("{head}:"));
                    self.emit(format!("setp.ge.s32 {p}, %r1, {hi};"));
                    self.emit(format!("@{p} bra.uni {end};"));
                    self.items(body);
                    self.emit("add.s32 %r1, %r1, 1;");
                    self.emit(format!("bra.uni {head};"));
                    self.out.line(format!("{end}:"));
                }
            }
        }
    }
}

pub(super) fn emit(program: &Program, flat: &Flat, opts: &EmitOptions) -> Emitted {
    let mut g = Gen {
        program,
        flat,
        lanes: i64::from(opts.lanes.max(1)),
        out: Lines::default(),
        r: 1,
        rd: 0,
        f: 0,
        p: 0,
        labels: 0,
        notes: Vec::new(),
    };
    g.items(&flat.items);
    for b in &program.buffers {
        if b.dtype != DType::Float32 {
            g.notes.push(format!(
                "`{}` is {}; this emitter computes and stores float32",
                b.name,
                b.dtype.name()
            ));
        }
    }
    let mut head = Lines::default();
    head.line("//");
    head.line(
        "// Generated by Stagecraft for sm_80. One thread block; every buffer element is a tile of",
    );
    head.line(format!(
        "// {} values, thread t owning value t (docs/execution-model.md). Each thread reads only",
        g.lanes
    ));
    head.line("// the values it copied itself, so no barrier is needed after a wait.");
    head.line("//");
    head.line(".version 8.0");
    head.line(".target sm_80");
    head.line(".address_size 64");
    head.line("");
    head.line(".extern .shared .align 16 .b8 dyn_smem[];");
    let globals: Vec<&Buffer> = program
        .buffers
        .iter()
        .filter(|b| b.scope == Scope::Global)
        .collect();
    let params: Vec<String> = globals
        .iter()
        .map(|b| format!("    .param .u64 param_{}", b.name))
        .collect();
    head.line(".visible .entry stagecraft(");
    for (k, p) in params.iter().enumerate() {
        head.line(if k + 1 < params.len() {
            format!("{p},")
        } else {
            p.clone()
        });
    }
    head.line(")");
    head.line("{");
    head.line(format!("    .reg .pred %p<{}>;", g.p + 1));
    let mut extra = Vec::new();
    let shared_bytes: i64 = program
        .buffers
        .iter()
        .enumerate()
        .filter(|(_, b)| b.scope == Scope::Shared)
        .map(|(id, _)| elements(&flat.shapes, id as BufId) * g.lanes * 4)
        .sum();
    // Above 48 KB a block must use dynamic shared memory (and opt in at launch).
    let dynamic = shared_bytes > 48 * 1024;
    if shared_bytes > 163 * 1024 {
        return Emitted {
            error: Some(format!(
                "the shared buffers need {shared_bytes} bytes; sm_80 allows 163 KB per block"
            )),
            ..Emitted::default()
        };
    }
    if dynamic {
        head.line("    .reg .b32 %r_dyn;");
        extra.push("    mov.u32 %r_dyn, dyn_smem;".to_string());
        g.notes.push(format!(
            "{shared_bytes} bytes of shared memory: dynamic shared memory, launch with cudaFuncSetAttribute(stagecraft, cudaFuncAttributeMaxDynamicSharedMemorySize, {shared_bytes})"
        ));
    }
    let mut dyn_offset = 0;
    for (id, b) in program.buffers.iter().enumerate() {
        let n = elements(&flat.shapes, id as BufId);
        match b.scope {
            Scope::Shared if dynamic => {
                head.line(format!("    .reg .b32 %r_{};", b.name));
                extra.push(format!("    add.s32 %r_{}, %r_dyn, {dyn_offset};", b.name));
                dyn_offset += n * g.lanes * 4;
            }
            Scope::Shared => {
                head.line(format!(
                    "    .shared .align 16 .b8 sh_{}[{}];",
                    b.name,
                    n * g.lanes * 4
                ));
                head.line(format!("    .reg .b32 %r_{};", b.name));
                extra.push(format!("    mov.u32 %r_{0}, sh_{0};", b.name));
            }
            Scope::Local => {
                head.line(format!(
                    "    .local .align 4 .b8 loc_{}[{}];",
                    b.name,
                    n * 4
                ));
                head.line(format!("    .reg .b64 %rd_{};", b.name));
                extra.push(format!("    mov.u64 %rd_{0}, loc_{0};", b.name));
            }
            Scope::Global => {
                head.line(format!("    .reg .b64 %rd_{};", b.name));
                extra.push(format!("    ld.param.u64 %rd_{0}, [param_{0}];", b.name));
                extra.push(format!("    cvta.to.global.u64 %rd_{0}, %rd_{0};", b.name));
            }
        }
    }
    head.line(format!("    .reg .b32 %r<{}>;", g.r + 1));
    head.line(format!("    .reg .b64 %rd<{}>;", g.rd + 1));
    head.line(format!("    .reg .f32 %f<{}>;", g.f + 1));
    head.line("");
    head.line("    mov.u32 %r0, %tid.x;");
    for e in extra {
        head.line(e);
    }
    let mut text = head.text;
    text.push_str(&g.out.text);
    text.push_str("    ret;\n}\n");
    let mut line_stmts = head.stmts;
    line_stmts.extend(g.out.stmts);
    line_stmts.extend([None, None]);
    Emitted {
        text,
        notes: g.notes,
        line_stmts,
        ..Emitted::default()
    }
}
