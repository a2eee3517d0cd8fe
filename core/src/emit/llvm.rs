//! AMDGPU LLVM IR with LLVM's asyncmark model (seed 003): LDS DMA through the `.async` intrinsic,
//! `llvm.amdgcn.asyncmark()` where a group is committed and `llvm.amdgcn.wait.asyncmark(i16 N)`
//! with N in marks — exactly the group counts of the pipelined program. Checked with `llvm-as-22`
//! and `opt-22 -passes=verify` (LLVM 22 accepts the declarations of the new intrinsics).

use super::{element, elements, is_async_copy, Emitted, Flat, Item, Lines, Stmt};
use crate::ir::*;

struct Gen<'a> {
    program: &'a Program,
    flat: &'a Flat,
    lanes: i64,
    out: Lines,
    n: u32,
    loops: u32,
    notes: Vec<String>,
    block: String,
}

fn float(x: f64) -> String {
    format!("0x{:016X}", f64::from(x as f32).to_bits())
}

impl Gen<'_> {
    fn emit(&mut self, s: impl AsRef<str>) {
        self.out.indented("  ", s.as_ref());
    }
    fn emit_args(&mut self, args: std::fmt::Arguments<'_>) {
        self.out.indented_args("  ", args);
    }
    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("%v{}", self.n)
    }

    fn int(&mut self, e: &IExpr) -> String {
        if let Some(v) = e.eval(&[]) {
            return v.to_string();
        }
        match e {
            IExpr::Const(v) => v.to_string(),
            IExpr::Var(v) if Some(*v) == self.flat.loop_var => format!("%i{}", self.loops),
            IExpr::Var(_) => "0".into(),
            IExpr::Bin(op, ab) => {
                let [a, b] = &**ab;
                let (a, b) = (self.int(a), self.int(b));
                let d = self.fresh();
                match op {
                    IOp::Add => emit!(self, "{d} = add i32 {a}, {b}"),
                    IOp::Sub => emit!(self, "{d} = sub i32 {a}, {b}"),
                    IOp::Mul => emit!(self, "{d} = mul i32 {a}, {b}"),
                    IOp::Min => {
                        emit!(self, "{d} = call i32 @llvm.smin.i32(i32 {a}, i32 {b})")
                    }
                    IOp::Max => {
                        emit!(self, "{d} = call i32 @llvm.smax.i32(i32 {a}, i32 {b})")
                    }
                    IOp::Mod => {
                        let (r, neg, adj) = (self.fresh(), self.fresh(), self.fresh());
                        emit!(self, "{r} = srem i32 {a}, {b}");
                        emit!(self, "{neg} = icmp slt i32 {r}, 0");
                        emit!(self, "{adj} = add i32 {r}, {b}");
                        emit!(self, "{d} = select i1 {neg}, i32 {adj}, i32 {r}");
                    }
                    IOp::FloorDiv => {
                        let (q, m, gt, dec) =
                            (self.fresh(), self.fresh(), self.fresh(), self.fresh());
                        emit!(self, "{q} = sdiv i32 {a}, {b}");
                        emit!(self, "{m} = mul i32 {q}, {b}");
                        emit!(self, "{gt} = icmp sgt i32 {m}, {a}");
                        emit!(self, "{dec} = sub i32 {q}, 1");
                        emit!(self, "{d} = select i1 {gt}, i32 {dec}, i32 {q}");
                    }
                }
                d
            }
            IExpr::Select(s) => {
                let (c, a, b) = &**s;
                let c = self.cond(c);
                let (a, b) = (self.int(a), self.int(b));
                let d = self.fresh();
                emit!(self, "{d} = select i1 {c}, i32 {a}, i32 {b}");
                d
            }
        }
    }

    fn cond(&mut self, c: &Cond) -> String {
        match c {
            Cond::True => "true".into(),
            Cond::Cmp(op, a, b) => {
                let (a, b) = (self.int(a), self.int(b));
                let d = self.fresh();
                let p = match op {
                    CmpOp::Lt => "slt",
                    CmpOp::Le => "sle",
                    CmpOp::Gt => "sgt",
                    CmpOp::Ge => "sge",
                    CmpOp::Eq => "eq",
                    CmpOp::Ne => "ne",
                };
                emit!(self, "{d} = icmp {p} i32 {a}, {b}");
                d
            }
            Cond::Not(x) => {
                let x = self.cond(x);
                let d = self.fresh();
                emit!(self, "{d} = xor i1 {x}, true");
                d
            }
            Cond::And(x, y) | Cond::Or(x, y) => {
                let (a, b) = (self.cond(x), self.cond(y));
                let d = self.fresh();
                let op = if matches!(c, Cond::And(..)) {
                    "and"
                } else {
                    "or"
                };
                emit!(self, "{d} = {op} i1 {a}, {b}");
                d
            }
        }
    }

    fn name(&self, b: BufId) -> String {
        self.program
            .buffer(b)
            .map_or_else(|| format!("b{b}"), |b| b.name.to_string())
    }

    fn global(&self, b: BufId) -> bool {
        self.program
            .buffer(b)
            .is_none_or(|x| x.scope == Scope::Global)
    }

    /// Pointer to this thread's value of the element: global (addrspace 1) or LDS (addrspace 3).
    fn pointer(&mut self, a: &Access) -> String {
        let e = element(&self.flat.shapes, a);
        let elem = self.int(&e);
        let scaled = self.fresh();
        let lanes = self.lanes;
        emit!(self, "{scaled} = mul i32 {elem}, {lanes}");
        let lane = self.fresh();
        emit!(self, "{lane} = add i32 {scaled}, %tid");
        let p = self.fresh();
        if self.global(a.buffer) {
            emit!(
                self,
                "{p} = getelementptr float, ptr addrspace(1) %{}, i32 {lane}",
                self.name(a.buffer)
            );
        } else {
            let n = elements(&self.flat.shapes, a.buffer) * self.lanes;
            emit!(
                self,
                "{p} = getelementptr [{n} x float], ptr addrspace(3) @lds_{}, i32 0, i32 {lane}",
                self.name(a.buffer)
            );
        }
        p
    }

    fn space(&self, b: BufId) -> u32 {
        if self.global(b) {
            1
        } else {
            3
        }
    }

    fn value(&mut self, v: &VExpr) -> String {
        match v {
            VExpr::Lit(x) => float(*x),
            VExpr::Read(a) => {
                let p = self.pointer(a);
                let d = self.fresh();
                emit!(
                    self,
                    "{d} = load float, ptr addrspace({}) {p}, align 4",
                    self.space(a.buffer)
                );
                d
            }
            VExpr::Index(e) => {
                let i = self.int(e);
                let d = self.fresh();
                emit!(self, "{d} = sitofp i32 {i} to float");
                d
            }
            VExpr::Neg(x) => {
                let x = self.value(x);
                let d = self.fresh();
                emit!(self, "{d} = fneg float {x}");
                d
            }
            VExpr::Bin(op, ab) => {
                let [a, b] = &**ab;
                let (a, b) = (self.value(a), self.value(b));
                let d = self.fresh();
                let ins = match op {
                    VOp::Add => "fadd",
                    VOp::Sub => "fsub",
                    VOp::Mul => "fmul",
                    VOp::Div => "fdiv",
                };
                emit!(self, "{d} = {ins} float {a}, {b}");
                d
            }
            VExpr::Call(func, args) => {
                let r: Vec<String> = args
                    .iter()
                    .map(|a| format!("float {}", self.value(a)))
                    .collect();
                let d = self.fresh();
                let f = match func {
                    Func::Max => "llvm.maxnum.f32",
                    Func::Min => "llvm.minnum.f32",
                    Func::Fma => "llvm.fma.f32",
                    Func::Abs => "llvm.fabs.f32",
                };
                emit!(self, "{d} = call float @{f}({})", r.join(", "));
                d
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.out.current = Some(s.assign.stmt);
        if let Some(src) = is_async_copy(self.program, s) {
            let (g, l) = (self.pointer(&src), self.pointer(&s.assign.target));
            emit!(self, "call void @llvm.amdgcn.global.load.async.lds(ptr addrspace(1) {g}, ptr addrspace(3) {l}, i32 4, i32 0, i32 0)");
        } else {
            if s.is_async {
                self.notes.push(format!("statement {} is in an async stage but is not a global->shared copy; it is emitted synchronously", s.assign.stmt));
            }
            let v = self.value(&s.assign.value);
            let p = self.pointer(&s.assign.target);
            emit!(
                self,
                "store float {v}, ptr addrspace({}) {p}, align 4",
                self.space(s.assign.target.buffer)
            );
        }
        self.out.current = None;
    }

    fn items(&mut self, items: &[Item]) {
        for it in items {
            match it {
                Item::Stmt(s) => self.stmt(s),
                Item::Open(_) => {}
                Item::Commit(_) => self.emit("call void @llvm.amdgcn.asyncmark()"),
                Item::Wait { count, .. } => emit!(
                    self,
                    "call void @llvm.amdgcn.wait.asyncmark(i16 {})",
                    (*count).min(i64::from(i16::MAX))
                ),
                Item::Loop { lo, hi, body, .. } => {
                    self.loops += 1;
                    let k = self.loops;
                    let from = self.block.clone();
                    emit!(self, "br label %head{k}");
                    self.out.line(format!("head{k}:"));
                    emit!(
                        self,
                        "%i{k} = phi i32 [ {lo}, %{from} ], [ %next{k}, %body{k} ]"
                    );
                    emit!(self, "%more{k} = icmp slt i32 %i{k}, {hi}");
                    emit!(self, "br i1 %more{k}, label %body{k}, label %exit{k}");
                    self.out.line(format!("body{k}:"));
                    self.block = format!("body{k}");
                    self.items(body);
                    emit!(self, "%next{k} = add i32 %i{k}, 1");
                    emit!(self, "br label %head{k}");
                    self.out.line(format!("exit{k}:"));
                    self.block = format!("exit{k}");
                }
            }
        }
    }
}

pub(super) fn emit(program: &Program, flat: &Flat, lanes: u32) -> Emitted {
    let mut g = Gen {
        program,
        flat,
        lanes: i64::from(lanes.max(1)),
        out: Lines::default(),
        n: 0,
        loops: 0,
        notes: Vec::new(),
        block: "entry".into(),
    };
    g.items(&flat.items);
    let mut head = Lines::default();
    head.line("; Generated by Stagecraft: AMDGPU LLVM IR with asyncmarks. One workgroup; every buffer element");
    head.line(format!(
        "; is a tile of {} floats, thread t owning value t (docs/execution-model.md).",
        g.lanes
    ));
    head.line("target triple = \"amdgcn-amd-amdhsa\"");
    head.line("");
    for (id, b) in program.buffers.iter().enumerate() {
        if b.scope != Scope::Global {
            let n = elements(&flat.shapes, id as BufId) * g.lanes;
            head.line(format!(
                "@lds_{} = internal addrspace(3) global [{n} x float] poison, align 16",
                b.name
            ));
        }
    }
    for d in [
        "declare i32 @llvm.amdgcn.workitem.id.x()",
        "declare void @llvm.amdgcn.asyncmark()",
        "declare void @llvm.amdgcn.wait.asyncmark(i16)",
        "declare void @llvm.amdgcn.global.load.async.lds(ptr addrspace(1), ptr addrspace(3), i32 immarg, i32 immarg, i32 immarg)",
        "declare float @llvm.maxnum.f32(float, float)",
        "declare float @llvm.minnum.f32(float, float)",
        "declare float @llvm.fma.f32(float, float, float)",
        "declare float @llvm.fabs.f32(float)",
        "declare i32 @llvm.smin.i32(i32, i32)",
        "declare i32 @llvm.smax.i32(i32, i32)",
    ] {
        head.line(d);
    }
    head.line("");
    let params: Vec<String> = program
        .buffers
        .iter()
        .filter(|b| b.scope == Scope::Global)
        .map(|b| format!("ptr addrspace(1) %{}", b.name))
        .collect();
    head.line(format!(
        "define amdgpu_kernel void @stagecraft({}) {{",
        params.join(", ")
    ));
    head.line("entry:");
    head.line("  %tid = call i32 @llvm.amdgcn.workitem.id.x()");
    let mut text = head.text;
    text.push_str(&g.out.text);
    text.push_str("  ret void\n}\n");
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
