//! AMDGPU ISA (gfx942, gfx950): executes the kernel text wave by wave, 64 lanes in lockstep.
//!
//! Machine semantics (AMD's CDNA3/CDNA4 ISA reference and LLVM's AMDGPUUsage, as summarized in
//! docs/execution-model.md):
//! - A wave starts with the kernel-argument pointer in `s[0:1]` (`.amdhsa_user_sgpr_kernarg_segment_ptr`),
//!   the workgroup id in the next SGPR (`.amdhsa_system_sgpr_workgroup_id_x`, on by default) and its
//!   work-item ids in `v0`; every other register is undefined until written (reading it is an
//!   error). The argument segment holds one 8-byte pointer per global buffer, in order.
//! - Vector-memory instructions — `global_load_dword`, `global_store_dword`, the LDS DMA
//!   `global_load_lds_dword` (LDS address M0 + offset + 4 · lane) and gfx950's
//!   `global_load_lds_dwordx4` (16 contiguous bytes a lane, at M0 + offset + 16 · lane; invalid
//!   on gfx942) — are counted by the wave's own `vmcnt` and retire in issue order:
//!   `s_waitcnt vmcnt(N)` completes the oldest until at most N remain. Until it retires, a load's
//!   destination VGPR is in flight, a store's data has not landed, an LDS DMA may still read its
//!   global source and has not written LDS (latest possible completion: the adversary).
//! - EXEC is written whole (`s_mov_b64 exec, -1 | 0`, `s_cselect_b64 exec, -1, 0`): every lane
//!   on, or every lane off. With every lane off only an LDS DMA runs — issued and counted by
//!   `vmcnt`, touching no memory; any other vector instruction then is not supported.
//! - The workgroup's waves run round-robin; `s_barrier` holds a wave until every live wave has
//!   reached it, and starts a new barrier interval. A DMA's LDS write, when its wave's wait lands
//!   it, reaches the other waves only through a barrier after that wait: a read of it by another
//!   wave before one — in flight, or landed in the same interval — is a race naming both waves, as
//!   is any two waves' touching one word in one interval, one writing (a refill of a slot another
//!   wave read).
//! - LDS instructions (`ds_read_b32`, `ds_write_b32`) are performed in order among themselves; their
//!   results (a read's VGPR) are in flight until `lgkmcnt` retires them. Scalar loads are counted by
//!   `lgkmcnt` too but return out of order, so only `lgkmcnt(0)` is modelled while one is in flight.
//! - At `s_endpgm`, stores still in flight complete (a dispatch ends after its writes); an LDS DMA
//!   still in flight never lands: it is reported as never awaited.

mod access;
mod alu;
mod parse;

use super::contract::Contract;
use super::memory::{Conflict, Memory, OpId, Space, SpaceKind};
use super::{Execution, Float, Log, RacePlace, Stop};
use crate::interp::RaceKind;
use parse::{Inst, Op, Operand};
pub use parse::{EXPCNT_MAX, LGKMCNT_MAX, VMCNT_MAX};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gfx {
    Gfx942,
    Gfx950,
}

impl Gfx {
    fn cpu(self) -> &'static str {
        match self {
            Gfx::Gfx942 => "gfx942",
            Gfx::Gfx950 => "gfx950",
        }
    }
    fn lds_bytes(self) -> u64 {
        match self {
            Gfx::Gfx942 => 64 * 1024,
            Gfx::Gfx950 => 160 * 1024,
        }
    }
}

const WAVE: usize = 64;
/// The kernel-argument segment's address (any 8-aligned value would do).
const KERNARG_BASE: u64 = 0x7f00_0000_0000;

/// Where global buffer `k` starts: just below a 4 GiB boundary, so that address arithmetic that
/// drops the carry into the high half is caught.
fn global_base(k: usize) -> u64 {
    ((k as u64 + 1) << 36) | 0xffff_ff00
}

/// What an operation in flight writes back to registers when it retires.
#[derive(Clone, Debug)]
enum Writeback {
    None,
    Vgpr { reg: u16, values: Vec<u32> },
    Sgpr { reg: u16, values: [u32; 2] },
}

#[derive(Clone, Debug)]
struct InFlight {
    /// Unique among the wave's operations (what its pending registers point to).
    ticket: u32,
    /// The memory operation, if it touches memory (scalar loads of the argument segment do not);
    /// for an LDS DMA, its LDS write.
    op: Option<OpId>,
    /// An LDS DMA's read of its global source.
    source: Option<OpId>,
    line: u32,
    writeback: Writeback,
    /// An LDS DMA: never landing at the kernel's end is reported.
    dma: bool,
    smem: bool,
}

struct Wave {
    index: u16,
    /// Lanes of the wave that exist (the last wave may be partial).
    exec: u64,
    lanes: usize,
    pc: usize,
    sgpr: Vec<u32>,
    sgpr_set: Vec<bool>,
    sgpr_pending: Vec<Option<u32>>,
    vgpr: Vec<u32>,
    vgpr_set: Vec<bool>,
    vgpr_pending: Vec<Option<u32>>,
    m0: Option<u32>,
    vcc: Option<u64>,
    scc: Option<bool>,
    /// EXEC is 0 (set by `s_mov_b64` / `s_cselect_b64`): every lane off; otherwise every lane of
    /// `exec` is on.
    lanes_off: bool,
    vm: VecDeque<InFlight>,
    lgkm: VecDeque<InFlight>,
    ended: bool,
    at_barrier: bool,
}

struct Machine<'a> {
    insts: &'a [Inst],
    contract: &'a Contract,
    memory: Memory,
    log: Log,
    float: Float,
    conflicts: Vec<Conflict>,
    /// Space of each kernel argument.
    arguments: Vec<u16>,
    lds: u16,
    lds_bytes: u64,
    /// Tickets of operations in flight, for register-pending bookkeeping (the memory's operation
    /// ids are recycled).
    next_ticket: u32,
    stop: Option<Stop>,
    instructions: u64,
}

enum Src {
    Scalar(u32),
    Vector(u16),
}

/// Integer inline constants of a float operation mean that many (`1` is 1.0).
fn imm_bits(v: i64, float: bool) -> u32 {
    if float && (-16..=64).contains(&v) {
        (v as f32).to_bits()
    } else {
        v as u32
    }
}

impl Machine<'_> {
    fn problem(&mut self, line: u32, message: impl Into<String>) {
        self.log.problem(line, message);
        self.stop.get_or_insert(Stop::Invalid);
    }

    fn unsupported(&mut self, line: u32, what: impl Into<String>) {
        self.stop.get_or_insert(Stop::NotSupported {
            line,
            what: what.into(),
        });
    }

    fn read_sgpr(&mut self, w: &mut Wave, r: u16, line: u32) -> u32 {
        let i = r as usize;
        if let Some(Some(t)) = w.sgpr_pending.get(i) {
            let other = self.ticket_line(w, *t);
            self.log.race(
                line,
                RaceKind::ReadAfterWrite,
                other,
                RacePlace::Register(format!("s{r}")),
                true,
            );
        }
        if !w.sgpr_set.get(i).copied().unwrap_or(false) {
            self.problem(line, format!("reads s{r}, which nothing wrote"));
        }
        w.sgpr.get(i).copied().unwrap_or(0)
    }

    fn write_sgpr(&mut self, w: &mut Wave, r: u16, v: u32, line: u32) {
        let i = r as usize;
        if let Some(Some(t)) = w.sgpr_pending.get(i) {
            let other = self.ticket_line(w, *t);
            self.log.race(
                line,
                RaceKind::WriteAfterWrite,
                other,
                RacePlace::Register(format!("s{r}")),
                true,
            );
        }
        if let (Some(x), Some(s)) = (w.sgpr.get_mut(i), w.sgpr_set.get_mut(i)) {
            *x = v;
            *s = true;
        }
    }

    /// The line of the in-flight instruction holding ticket `t`.
    fn ticket_line(&self, w: &Wave, t: u32) -> u32 {
        w.vm.iter()
            .chain(w.lgkm.iter())
            .find(|f| f.ticket == t)
            .map_or(0, |f| f.line)
    }

    fn scalar(&mut self, w: &mut Wave, o: Operand, line: u32) -> u32 {
        match o {
            Operand::Sgpr(r) => self.read_sgpr(w, r, line),
            Operand::Imm(v) => v as u32,
            Operand::M0 => match w.m0 {
                Some(v) => v,
                None => {
                    self.problem(line, "reads M0, which nothing wrote");
                    0
                }
            },
            Operand::Vcc => match w.vcc {
                Some(v) => v as u32,
                None => {
                    self.problem(line, "reads VCC, which nothing wrote");
                    0
                }
            },
            _ => {
                self.problem(line, "expects a scalar operand");
                0
            }
        }
    }

    fn write_scalar(&mut self, w: &mut Wave, o: Operand, v: u32, line: u32) {
        match o {
            Operand::Sgpr(r) => self.write_sgpr(w, r, v, line),
            Operand::M0 => w.m0 = Some(v),
            _ => self.problem(line, "expects a scalar destination"),
        }
    }

    fn scc(&mut self, w: &Wave, line: u32) -> bool {
        match w.scc {
            Some(b) => b,
            None => {
                self.problem(line, "reads SCC, which nothing set");
                false
            }
        }
    }

    /// A VALU source: a scalar value for all lanes, or a VGPR (checked for results in flight).
    fn vsrc(&mut self, w: &mut Wave, o: Operand, float: bool, line: u32) -> Src {
        match o {
            Operand::Vgpr(r) => {
                self.check_vgpr_read(w, r, line);
                Src::Vector(r)
            }
            Operand::Imm(v) => Src::Scalar(imm_bits(v, float)),
            other => Src::Scalar(self.scalar(w, other, line)),
        }
    }

    fn check_vgpr_read(&mut self, w: &mut Wave, r: u16, line: u32) {
        let i = r as usize;
        if let Some(Some(t)) = w.vgpr_pending.get(i) {
            let other = self.ticket_line(w, *t);
            self.log.race(
                line,
                RaceKind::ReadAfterWrite,
                other,
                RacePlace::Register(format!("v{r}")),
                true,
            );
        }
        if !w.vgpr_set.get(i).copied().unwrap_or(false) {
            self.problem(line, format!("reads v{r}, which nothing wrote"));
        }
    }

    fn check_vgpr_write(&mut self, w: &mut Wave, r: u16, line: u32) {
        let i = r as usize;
        if let Some(Some(t)) = w.vgpr_pending.get(i) {
            let other = self.ticket_line(w, *t);
            self.log.race(
                line,
                RaceKind::WriteAfterWrite,
                other,
                RacePlace::Register(format!("v{r}")),
                true,
            );
        }
        if let Some(s) = w.vgpr_set.get_mut(i) {
            *s = true;
        }
    }

    fn lane_value(w: &Wave, s: &Src, lane: usize) -> u32 {
        match s {
            Src::Scalar(v) => *v,
            Src::Vector(r) => w.vgpr.get(*r as usize * WAVE + lane).copied().unwrap_or(0),
        }
    }

    /// A VALU source's value in every lane of the wave.
    fn lanes(w: &Wave, s: &Src) -> [u32; WAVE] {
        match s {
            Src::Scalar(v) => [*v; WAVE],
            Src::Vector(r) => {
                let mut a = [0u32; WAVE];
                let base = *r as usize * WAVE;
                if let Some(src) = w.vgpr.get(base..base + WAVE) {
                    a.copy_from_slice(src);
                }
                a
            }
        }
    }

    /// Writes the wave's lanes of VGPR `r` (lanes beyond the wave's keep their value).
    fn set_lanes(w: &mut Wave, r: u16, values: &[u32; WAVE]) {
        let base = r as usize * WAVE;
        let n = w.lanes;
        if let (Some(dst), Some(src)) = (w.vgpr.get_mut(base..base + n), values.get(..n)) {
            dst.copy_from_slice(src);
        }
    }

    fn set_lane(w: &mut Wave, r: u16, lane: usize, v: u32) {
        if let Some(x) = w.vgpr.get_mut(r as usize * WAVE + lane) {
            *x = v;
        }
    }

    fn vgpr_of(&mut self, o: Operand, line: u32) -> u16 {
        match o {
            Operand::Vgpr(r) => r,
            _ => {
                self.problem(line, "expects a VGPR");
                0
            }
        }
    }

    /// EXEC written whole from an immediate: every lane of the wave on (any value covering
    /// them, `-1`) or off (`0`). A mask of some lanes is not modelled.
    fn write_exec(&mut self, w: &mut Wave, value: Operand, line: u32) {
        let Operand::Imm(v) = value else {
            self.problem(line, "EXEC is written from an immediate here");
            return;
        };
        let mask = v as u64;
        if mask & w.exec == w.exec {
            w.lanes_off = false;
        } else if mask & w.exec == 0 {
            w.lanes_off = true;
        } else {
            self.unsupported(line, "EXEC with some of the wave's lanes on: the executor models every lane on or every lane off");
        }
    }

    fn step(&mut self, w: &mut Wave) {
        let Some(inst) = self.insts.get(w.pc) else {
            self.problem(
                0,
                "execution ran past the last instruction without s_endpgm",
            );
            w.ended = true;
            return;
        };
        self.instructions += 1;
        w.pc += 1;
        let line = inst.line;
        let ops = &inst.operands;
        let at = |i: usize| ops.get(i).copied().unwrap_or(Operand::Off);
        if w.lanes_off && !inst.op.runs_without_lanes() {
            self.unsupported(
                line,
                "a vector instruction while EXEC is 0 (the executor models EXEC 0 around LDS DMA only)",
            );
            return;
        }
        use Op::*;
        match inst.op {
            SEndpgm => w.ended = true,
            SNop => {}
            SBarrier => w.at_barrier = true,
            SWaitcnt => self.waitcnt(w, inst),
            SBranch => {
                if let Operand::Label(k) = at(0) {
                    w.pc = k;
                }
            }
            SCbranchScc1 | SCbranchScc0 => {
                let scc = self.scc(w, line);
                if scc == (inst.op == SCbranchScc1) {
                    if let Operand::Label(k) = at(0) {
                        w.pc = k;
                    }
                }
            }
            SLoadDwordx2 => self.scalar_load(w, inst),
            SMovB32 => {
                let v = self.scalar(w, at(1), line);
                self.write_scalar(w, at(0), v, line);
            }
            SAddU32 | SSubU32 | SAddI32 | SSubI32 | SMulI32 | SMulHiU32 | SMinI32 | SMaxI32
            | SLshlB32 | SLshrB32 | SAndB32 | SOrB32 => self.scalar_alu(w, inst),
            SCmp(cmp, signed) => self.scalar_compare(w, inst, cmp, signed),
            SCselectB32 => {
                let a = self.scalar(w, at(1), line);
                let b = self.scalar(w, at(2), line);
                let scc = self.scc(w, line);
                self.write_scalar(w, at(0), if scc { a } else { b }, line);
            }
            SMovB64 => self.write_exec(w, at(1), line),
            SCselectB64 => {
                let pick = if self.scc(w, line) { at(1) } else { at(2) };
                self.write_exec(w, pick, line);
            }
            VReadfirstlaneB32 => {
                let r = self.vgpr_of(at(1), line);
                self.check_vgpr_read(w, r, line);
                let first = w.exec.trailing_zeros() as usize;
                let v = Self::lane_value(w, &Src::Vector(r), first);
                self.write_scalar(w, at(0), v, line);
            }
            VMovB32 | VRcpF32 | VCvtF32I32 => self.vector_unary(w, inst),
            VLshlrevB32 | VLshrrevB32 | VAddU32 | VSubU32 | VAndB32 | VOrB32 | VXorB32
            | VAddF32 | VSubF32 | VMulF32 | VMaxF32 | VMinF32 => self.vector_binary(w, inst),
            VAddCoU32 | VAddcCoU32 => self.vector_add_carry(w, inst),
            VFmaF32 => self.vector_fma(w, inst),
            GlobalLoadDword | GlobalStoreDword | GlobalLoadLdsDword | GlobalLoadLdsDwordx4 => {
                self.vector_memory(w, inst);
            }
            DsReadB32 | DsWriteB32 => self.lds_access(w, inst),
        }
    }
}

/// Executes the AMDGPU ISA kernel `text` under `contract`.
pub(crate) fn execute(text: &str, contract: &Contract, gfx: Gfx) -> Execution {
    let parsed = parse::parse(text, gfx.cpu(), gfx.lds_bytes());
    let mut log = Log::default();
    for (line, message) in &parsed.problems {
        log.problem(*line, message.clone());
    }
    let mut spaces = Vec::new();
    let mut arguments = Vec::new();
    for k in 0..contract.globals.len() {
        arguments.push(spaces.len() as u16);
        spaces.push(Space::new(
            SpaceKind::Global { param: k },
            contract.initial_words(k),
            true,
        ));
    }
    let d = &parsed.kernel.descriptor;
    let lds = spaces.len() as u16;
    spaces.push(Space::new(
        SpaceKind::Shared { name: None },
        vec![0; (d.group_segment / 4) as usize],
        false,
    ));
    let waves = contract.waves();
    let memory = Memory::new(spaces, waves as u16);
    let stop = if !parsed.problems.is_empty() {
        Some(Stop::Invalid)
    } else {
        parsed
            .unsupported
            .as_ref()
            .map(|(line, what)| Stop::NotSupported {
                line: *line,
                what: what.clone(),
            })
    };
    let mut m = Machine {
        insts: &parsed.kernel.insts,
        contract,
        memory,
        log,
        float: Float { inexact: false },
        conflicts: Vec::new(),
        arguments,
        lds,
        lds_bytes: d.group_segment,
        next_ticket: 0,
        stop,
        instructions: 0,
    };
    if m.stop.is_none() {
        let mut waves = starting_waves(&parsed.kernel, contract);
        run(&mut m, &mut waves, contract);
    }
    Execution {
        memory: m.memory,
        arguments: m.arguments,
        log: m.log,
        instructions: m.instructions,
        inexact: m.float.inexact,
        stop: m.stop,
    }
}

/// The kernel's waves as they start.
fn starting_waves(kernel: &parse::Kernel, contract: &Contract) -> Vec<Wave> {
    let d = &kernel.descriptor;
    let nv = d.next_free_vgpr.max(1) as usize;
    let ns = d.next_free_sgpr.max(3) as usize + 2;
    let lanes_total = contract.lanes as usize;
    (0..contract.waves() as usize)
        .map(|k| {
            let lanes = (lanes_total - k * WAVE).min(WAVE);
            let mut w = Wave {
                index: k as u16,
                exec: if lanes >= 64 {
                    u64::MAX
                } else {
                    (1u64 << lanes) - 1
                },
                lanes,
                pc: kernel.entry,
                sgpr: vec![0; ns],
                sgpr_set: vec![false; ns],
                sgpr_pending: vec![None; ns],
                vgpr: vec![0; nv * WAVE],
                vgpr_set: vec![false; nv],
                vgpr_pending: vec![None; nv],
                m0: None,
                vcc: None,
                scc: None,
                lanes_off: false,
                vm: VecDeque::new(),
                lgkm: VecDeque::new(),
                ended: false,
                at_barrier: false,
            };
            let mut next = 0usize;
            if d.kernarg_ptr {
                for (i, v) in [KERNARG_BASE as u32, (KERNARG_BASE >> 32) as u32]
                    .into_iter()
                    .enumerate()
                {
                    if let (Some(x), Some(s)) = (w.sgpr.get_mut(i), w.sgpr_set.get_mut(i)) {
                        *x = v;
                        *s = true;
                    }
                }
                next = 2;
            }
            if d.workgroup_id_x {
                if let (Some(x), Some(s)) = (w.sgpr.get_mut(next), w.sgpr_set.get_mut(next)) {
                    *x = 0;
                    *s = true;
                }
            }
            for l in 0..lanes {
                if let Some(x) = w.vgpr.get_mut(l) {
                    *x = (k * WAVE + l) as u32;
                }
            }
            if let Some(s) = w.vgpr_set.first_mut() {
                *s = true;
            }
            w
        })
        .collect()
}

/// Runs the waves round-robin until the kernel ends or stops.
fn run(m: &mut Machine, waves: &mut [Wave], contract: &Contract) {
    loop {
        let mut progressed = false;
        for w in waves.iter_mut() {
            if w.ended || w.at_barrier {
                continue;
            }
            progressed = true;
            m.step(w);
            if w.ended {
                m.end_wave(w);
            }
            if m.stop.is_some() {
                return;
            }
            if m.instructions > contract.max_instructions {
                m.stop = Some(Stop::Limit(crate::machine::beyond_the_limit(
                    contract.max_instructions,
                    "wave-instructions",
                )));
                return;
            }
        }
        if waves.iter().all(|w| w.ended) {
            return;
        }
        if !progressed {
            // Every live wave waits at a barrier: release them.
            m.memory.barrier();
            for w in waves.iter_mut() {
                w.at_barrier = false;
            }
        }
    }
}
