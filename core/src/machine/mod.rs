//! The machine-level verifier: executes an emitted kernel's *text* and checks it against the
//! original loop — translation validation of the transform and the emitter together.
//!
//! It reads only the kernel text and the execution model's contract ([`contract`]: threads and
//! waves, kernel arguments = global buffers in order, the element-tile layout, the inputs); it
//! shares nothing with the transform's, the synchronization's or the emitters' reasoning, so that
//! a mistake in any of them shows up as a wrong output, a race or an invalid instruction.
//!
//! Each target family has a parser and an executor of the instruction subset the emitters produce
//! (anything else is refused with a located "not supported"); all share the memory model of
//! [`memory`]: operations in flight complete only when a wait forces them (latest possible
//! completion), and every access they could disturb is a race. Threads run in lockstep waves
//! (SIMT), waves round-robin, so barriers can be added without changing the shape.
//!
//! What a check reports ([`MachineCheck`]):
//! - races on data in flight — read-after-write, write-after-read, write-after-write — each with
//!   the 1-based line of the instruction, the buffer element (or register) and thread, and the
//!   operation in flight with its issuing line;
//! - asynchronous copies never awaited when the kernel ends;
//! - invalid instructions: immediates out of their field (`vmcnt(64)`), negative or non-integer
//!   counts, operands the assembler rejects, registers read before written, accesses outside
//!   every buffer;
//! - every output value (every element of every kernel argument, every thread) against the
//!   original loop interpreted on the same inputs.
//!
//! Targets: AMDGPU ISA gfx942 / gfx950 ([`amdgpu`]), AMDGPU LLVM IR with asyncmarks ([`llvm_ir`]),
//! PTX sm_80 (cp.async groups) and sm_90a (bulk copies and mbarriers) ([`ptx`]).
//! docs/execution-model.md states the machine semantics and where they come from.

pub mod amdgpu;
pub mod contract;
pub mod llvm_ir;
pub mod memory;
pub mod ptx;

use crate::emit::Target;
use crate::interp::RaceKind;
use crate::ir::Program;
pub use contract::{Contract, Place};
use memory::{Cell, Conflict, Memory};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MachineVerdict {
    /// Same outputs, no race, nothing left in flight, every instruction valid.
    Correct,
    /// A race on data in flight, or a copy never awaited.
    Racy,
    /// Outputs differ although nothing raced.
    Different,
    /// An instruction the target rejects (or that reads what was never written, or addresses
    /// outside every buffer).
    Invalid,
    /// The kernel uses something the executor does not model (a divergent branch, an instruction
    /// outside the subset); nothing is claimed.
    NotSupported,
    /// Not executed: a limit, no executor for the target, or a loop that cannot be interpreted.
    NotExecuted,
}

/// A located complaint about a kernel's text: its 1-based line and the message.
pub type Complaint = (u32, String);

/// The kernel parsers' splitting of a line: assemblers separate words with spaces and tabs
/// only, and the `str` methods that decode every character they look at (`trim`, a split at
/// `char::is_whitespace`) cost a large part of parsing a kernel.
pub(crate) trait KernelText {
    /// `trim()`, the same result: blanks are ASCII, so trimming those first leaves `trim` a
    /// character at each end.
    fn trim_blanks(&self) -> &str;
    /// The first word and the rest after the space or tab that ends it.
    fn split_word(&self) -> Option<(&str, &str)>;
}

impl KernelText for str {
    fn trim_blanks(&self) -> &str {
        self.trim_ascii().trim()
    }

    fn split_word(&self) -> Option<(&str, &str)> {
        let at = self.bytes().position(|b| b == b' ' || b == b'\t')?;
        Some((self.get(..at)?, self.get(at + 1..)?))
    }
}

/// The code of every line of a kernel's `text`, numbered from 1: its comment (as the target's
/// `strip_comment` finds it) and surrounding blanks gone, empty lines left out.
pub fn code_lines(text: &str, strip_comment: fn(&str) -> &str) -> Vec<(u32, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, raw)| ((i + 1) as u32, strip_comment(raw).trim_blanks()))
        .filter(|(_, code)| !code.is_empty())
        .collect()
}

/// A kernel's text read by one of the targets' parsers.
pub struct Parsed<K> {
    pub kernel: K,
    /// What the target's assembler would reject.
    pub problems: Vec<Complaint>,
    /// Valid code the executor does not model (the first).
    pub unsupported: Option<Complaint>,
}

/// An access that met data in flight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineRace {
    pub kind: RaceKind,
    /// 1-based line of the racing instruction in the kernel text.
    pub line: u32,
    pub instruction: String,
    /// The first word (or register) it met, and its thread.
    pub place: Place,
    /// The operation in flight (or the other wave's access) and its issuing line.
    pub other_line: u32,
    pub other_instruction: String,
    /// Whether the other side is an operation in flight (else another wave's access without a
    /// barrier between).
    pub in_flight: bool,
    /// Dynamic instances of this (instruction, kind, other instruction) that raced.
    pub instances: u64,
    /// The first instance's two sides when they are two agents of the block (waves on AMDGPU,
    /// threads on PTX): the racing access's and the other's.
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub between: Option<(u32, u32)>,
    pub message: String,
}

/// An asynchronous copy still in flight when the kernel ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unawaited {
    pub line: u32,
    pub instruction: String,
    /// The first word it would write.
    pub place: Option<Place>,
    pub instances: u64,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineProblem {
    /// 1-based line (0: the kernel as a whole).
    pub line: u32,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineDifference {
    pub buffer: String,
    pub index: Vec<i64>,
    pub thread: u32,
    pub expected: f64,
    /// What the kernel left there.
    pub got: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineCheck {
    pub target: String,
    pub verdict: MachineVerdict,
    /// One line: "executed: same outputs, 0 races", or the first thing wrong.
    pub summary: String,
    pub races: Vec<MachineRace>,
    pub unawaited: Vec<Unawaited>,
    pub problems: Vec<MachineProblem>,
    pub differences: Vec<MachineDifference>,
    /// Wave-instructions executed (a wave executing one instruction for all its threads is one).
    pub instructions: u64,
    /// Output values compared (elements × threads).
    pub compared: u64,
    /// Whether values were compared within a relative 2^-16 rather than bit for bit: the kernel
    /// rounded somewhere the loop's interpretation does not (a division through a reciprocal).
    pub approximate: bool,
}

impl MachineCheck {
    fn without_run(target: Target, verdict: MachineVerdict, summary: String) -> MachineCheck {
        MachineCheck {
            target: target.name().into(),
            verdict,
            summary,
            races: Vec::new(),
            unawaited: Vec::new(),
            problems: Vec::new(),
            differences: Vec::new(),
            instructions: 0,
            compared: 0,
            approximate: false,
        }
    }

    /// The kernel is correct: executed with the same outputs, no race, nothing invalid.
    pub fn is_correct(&self) -> bool {
        self.verdict == MachineVerdict::Correct
    }
}

/// Why an execution stopped early.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stop {
    NotSupported {
        line: u32,
        what: String,
    },
    Limit(String),
    /// Refused before running: the problems say why.
    Invalid,
}

/// What executing a kernel leaves behind, before it is compared with the loop.
pub(crate) struct Execution {
    pub memory: Memory,
    /// The memory space of each kernel argument, in order.
    pub arguments: Vec<u16>,
    pub log: Log,
    pub instructions: u64,
    /// Some arithmetic rounded differently from the loop's interpretation could.
    pub inexact: bool,
    pub stop: Option<Stop>,
}

/// Races and problems as the executors find them, deduplicated.
#[derive(Default)]
pub(crate) struct Log {
    races: BTreeMap<(u32, u8, u32), RaceEntry>,
    order: Vec<(u32, u8, u32)>,
    pub problems: Vec<MachineProblem>,
    /// (line of the copy, first word it writes), per copy never awaited.
    pub unawaited: Vec<(u32, Option<Cell>)>,
    /// What the memory's agents are on this target ("thread" on PTX; "wave" when unset).
    pub agent: &'static str,
}

struct RaceEntry {
    kind: RaceKind,
    first: RacePlace,
    in_flight: bool,
    instances: u64,
    between: Option<(u32, u32)>,
}

#[derive(Clone)]
pub(crate) enum RacePlace {
    Memory(Cell),
    Register(String),
}

const MAX_RACES: usize = 64;
const MAX_PROBLEMS: usize = 64;
const MAX_DIFFERENCES: usize = 16;

fn kind_code(k: RaceKind) -> u8 {
    match k {
        RaceKind::ReadAfterWrite => 0,
        RaceKind::WriteAfterRead => 1,
        RaceKind::WriteAfterWrite => 2,
    }
}

impl Log {
    /// The conflicts one instruction instance met: one entry per (instruction, kind, other).
    pub fn conflicts(&mut self, line: u32, conflicts: &mut Vec<Conflict>) {
        let mut seen: Vec<(u8, u32)> = Vec::new();
        for c in conflicts.drain(..) {
            let key = (kind_code(c.kind), c.other_line);
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            self.race(
                line,
                c.kind,
                c.other_line,
                RacePlace::Memory(c.cell),
                c.in_flight,
            );
            if let (Some(wave), Some(e)) = (
                c.wave,
                self.races.get_mut(&(line, kind_code(c.kind), c.other_line)),
            ) {
                e.between
                    .get_or_insert((u32::from(wave), u32::from(c.other_wave)));
            }
        }
    }

    pub fn race(
        &mut self,
        line: u32,
        kind: RaceKind,
        other_line: u32,
        place: RacePlace,
        in_flight: bool,
    ) {
        let key = (line, kind_code(kind), other_line);
        if let Some(e) = self.races.get_mut(&key) {
            e.instances += 1;
            return;
        }
        if self.races.len() >= MAX_RACES {
            return;
        }
        self.order.push(key);
        self.races.insert(
            key,
            RaceEntry {
                kind,
                first: place,
                in_flight,
                instances: 1,
                between: None,
            },
        );
    }

    pub fn problem(&mut self, line: u32, message: impl Into<String>) {
        let message = message.into();
        if self.problems.len() < MAX_PROBLEMS
            && !self
                .problems
                .iter()
                .any(|p| p.line == line && p.message == message)
        {
            self.problems.push(MachineProblem { line, message });
        }
    }
}

/// The kernel text's lines, for quoting instructions.
struct Quote<'a>(Vec<&'a str>);

impl Quote<'_> {
    fn line(&self, line: u32) -> String {
        let text = self
            .0
            .get((line as usize).wrapping_sub(1))
            .copied()
            .unwrap_or("");
        // Without its comment: `s_waitcnt vmcnt(2)  ; wait #0 …` quotes as the instruction.
        let code = match text.find(';') {
            Some(at) if !text.trim_start().starts_with(';') => text.get(..at).unwrap_or(text),
            _ => text,
        };
        code.trim().to_string()
    }
}

/// Checks the kernel `text` emitted for `target` from the peeled pipelined program `pipelined`
/// against the loop `original`, with parameters bound to `params` and `lanes` threads (the
/// `EmitOptions` lanes of the target). Never panics.
pub fn check(
    original: &Program,
    pipelined: &Program,
    params: &BTreeMap<String, i64>,
    text: &str,
    target: Target,
    lanes: u32,
) -> MachineCheck {
    match Contract::new(original, pipelined, params, lanes, wave_of(target)) {
        Ok(contract) => check_with(&contract, text, target),
        Err(why) => MachineCheck::without_run(
            target,
            MachineVerdict::NotExecuted,
            format!("not executed: {why}"),
        ),
    }
}

/// Threads in lockstep on the target: a wave of 64 on AMDGPU, a warp of 32 on NVIDIA.
pub fn wave_of(target: Target) -> u32 {
    match target {
        Target::Amdgpu | Target::AmdgpuGfx950 | Target::AmdgpuIr => 64,
        Target::Ptx | Target::PtxSm90 => 32,
    }
}

/// Threads of the block the kernel of `target` is emitted for (`EmitOptions::lanes` on NVIDIA,
/// `amd_lanes` on AMDGPU): what its contract must say.
pub fn lanes_of(target: Target, opts: &crate::emit::EmitOptions) -> u32 {
    match target {
        Target::Amdgpu | Target::AmdgpuGfx950 | Target::AmdgpuIr => opts.amd_lanes,
        Target::Ptx | Target::PtxSm90 => opts.lanes,
    }
}

/// [`check`] with the contract built already (it holds the loop's reference runs, so several
/// kernels of one loop — several targets — share it). The contract's wave must be the target's.
// Never inlined: profilers count one check by toggling collection on this symbol
// (docs/benchmarks.md).
#[inline(never)]
pub fn check_with(contract: &Contract, text: &str, target: Target) -> MachineCheck {
    let execution = match target {
        Target::Amdgpu | Target::AmdgpuGfx950 => {
            let gfx = if target == Target::Amdgpu {
                amdgpu::Gfx::Gfx942
            } else {
                amdgpu::Gfx::Gfx950
            };
            amdgpu::execute(text, contract, gfx)
        }
        Target::AmdgpuIr => llvm_ir::execute(text, contract),
        Target::Ptx | Target::PtxSm90 => {
            let sm = if target == Target::Ptx { 80 } else { 90 };
            ptx::execute(text, contract, sm)
        }
    };
    judge(text, target, contract, execution)
}

/// Compares an execution with the loop and writes the verdict.
fn judge(text: &str, target: Target, contract: &Contract, ex: Execution) -> MachineCheck {
    let quote = Quote(text.lines().collect());
    let mut check = MachineCheck::without_run(target, MachineVerdict::Correct, String::new());
    check.instructions = ex.instructions;
    check.problems = ex.log.problems.clone();
    check.races = races(&quote, contract, &ex);
    check.unawaited = unawaited(&quote, contract, &ex);
    match &ex.stop {
        Some(Stop::NotSupported { line, what }) => {
            check.verdict = MachineVerdict::NotSupported;
            check.summary = if *line > 0 {
                format!("not supported: line {line} `{}`: {what}", quote.line(*line))
            } else {
                format!("not supported: {what}")
            };
            return check;
        }
        Some(Stop::Limit(why)) => {
            check.verdict = MachineVerdict::NotExecuted;
            check.summary = format!("not executed: {why}");
            return check;
        }
        Some(Stop::Invalid) | None => {}
    }
    if ex.stop.is_none() {
        compare(contract, &ex, &mut check);
    }
    (check.verdict, check.summary) = verdict(&quote, &check);
    check
}

/// The races the execution logged, each quoted with its two instructions.
fn races(quote: &Quote, contract: &Contract, ex: &Execution) -> Vec<MachineRace> {
    let mut races = Vec::new();
    for key in &ex.log.order {
        let Some(e) = ex.log.races.get(key) else {
            continue;
        };
        let (line, _, other_line) = *key;
        let place = match &e.first {
            RacePlace::Memory(c) => contract.place(&ex.memory, *c),
            RacePlace::Register(name) => Place::Register { name: name.clone() },
        };
        let (instruction, other_instruction) = (quote.line(line), quote.line(other_line));
        let message = if e.in_flight {
            format!(
                "line {line} `{instruction}` {} — {place} — issued at line {other_line} `{other_instruction}`",
                e.kind.describe()
            )
        } else if let Some((this, other)) = e.between {
            let agent = if ex.log.agent.is_empty() {
                "wave"
            } else {
                ex.log.agent
            };
            format!(
                "line {line} `{instruction}` in {agent} {this} and line {other_line} `{other_instruction}` in {agent} {other} touch {place} with no barrier between ({})",
                race_name(e.kind)
            )
        } else {
            format!(
                "line {line} `{instruction}` and line {other_line} `{other_instruction}` of another wave touch {place} with no barrier between ({})",
                race_name(e.kind)
            )
        };
        races.push(MachineRace {
            kind: e.kind,
            line,
            instruction,
            place,
            other_line,
            other_instruction,
            in_flight: e.in_flight,
            instances: e.instances,
            between: e.between,
            message,
        });
    }
    races
}

/// The asynchronous operations still in flight at the end, one entry per issuing line.
fn unawaited(quote: &Quote, contract: &Contract, ex: &Execution) -> Vec<Unawaited> {
    let mut by_line: BTreeMap<u32, (Option<Cell>, u64)> = BTreeMap::new();
    for (line, cell) in &ex.log.unawaited {
        by_line.entry(*line).or_insert((*cell, 0)).1 += 1;
    }
    by_line
        .into_iter()
        .map(|(line, (cell, instances))| {
            let instruction = quote.line(line);
            let place = cell.map(|c| contract.place(&ex.memory, c));
            let message = format!(
                "line {line} `{instruction}` is still in flight when the kernel ends ({}); no wait completes it{}",
                crate::english::count(instances, "instance"),
                place.as_ref().map_or(String::new(), |p| format!(" — it writes {p}"))
            );
            Unawaited {
                line,
                instruction,
                place,
                instances,
                message,
            }
        })
        .collect()
}

/// What one step of a kernel's execution is called on `target`: a warp's instruction on NVIDIA, a
/// wave's on AMD (one instruction executed for all the threads of either counts once).
pub fn instruction_unit(target: &str) -> &'static str {
    if target.starts_with("ptx") {
        "warp-instructions"
    } else {
        "wave-instructions"
    }
}

/// Why an execution stopped at `max` instructions, with the limit's name and how to get past it.
/// `unit`: `instruction_unit` of the kernel's target.
pub(crate) fn beyond_the_limit(max: u64, unit: &str) -> String {
    format!(
        "the kernel ran more than {max} {unit}, the machine model's limit (`limits::MAX_MACHINE_INSTRUCTIONS`, docs/limits.md): check a smaller extent, or raise the limit in core/src/limits.rs and rebuild"
    )
}

/// The verdict of an executed kernel and its one-line summary: the first problem, race, copy
/// never awaited or differing output, in that order of gravity.
fn verdict(quote: &Quote, check: &MachineCheck) -> (MachineVerdict, String) {
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    if let Some(p) = check.problems.first() {
        let first = if p.line > 0 {
            format!("line {} `{}`: {}", p.line, quote.line(p.line), p.message)
        } else {
            p.message.clone()
        };
        (
            MachineVerdict::Invalid,
            format!(
                "invalid: {first}{}",
                if check.problems.len() > 1 {
                    format!(" (and {} more)", check.problems.len() - 1)
                } else {
                    String::new()
                }
            ),
        )
    } else if let Some(r) = check.races.first() {
        (
            MachineVerdict::Racy,
            format!(
                "executed: {}; first: {}",
                plural(check.races.len(), "race", "races"),
                r.message
            ),
        )
    } else if let Some(u) = check.unawaited.first() {
        (
            MachineVerdict::Racy,
            format!(
                "executed: {} never awaited; first: {}",
                plural(check.unawaited.len(), "copy", "copies"),
                u.message
            ),
        )
    } else if let Some(d) = check.differences.first() {
        let idx: Vec<String> = d.index.iter().map(|i| i.to_string()).collect();
        (
            MachineVerdict::Different,
            format!(
                "executed: {} differ although nothing raced; first: `{}[{}]`, thread {}: the loop computes {}, the kernel {}",
                plural(check.differences.len(), "output value", "output values"),
                d.buffer,
                idx.join(", "),
                d.thread,
                d.expected,
                d.got
            ),
        )
    } else {
        (
            MachineVerdict::Correct,
            format!(
                "executed: same outputs, 0 races ({} values compared{}, {} {})",
                check.compared,
                if check.approximate {
                    " within 2^-16: the kernel divides through a reciprocal"
                } else {
                    ""
                },
                check.instructions,
                instruction_unit(&check.target)
            ),
        )
    }
}

fn race_name(k: RaceKind) -> &'static str {
    match k {
        RaceKind::ReadAfterWrite => "read-after-write",
        RaceKind::WriteAfterRead => "write-after-read",
        RaceKind::WriteAfterWrite => "write-after-write",
    }
}

#[derive(PartialEq)]
enum Match {
    Exact,
    /// Within a relative 2^-16, which counts only when the kernel rounded somewhere.
    Close,
    No,
}

fn matches(expected: f64, got: f32) -> Match {
    let e = expected as f32;
    if e.to_bits() == got.to_bits() || (e.is_nan() && got.is_nan()) {
        return Match::Exact;
    }
    if !e.is_finite() || !got.is_finite() {
        return Match::No;
    }
    let scale = e.abs().max(got.abs()).max(f32::MIN_POSITIVE);
    if ((e - got).abs() / scale) <= 1.0 / 65536.0 {
        Match::Close
    } else {
        Match::No
    }
}

fn compare(contract: &Contract, ex: &Execution, check: &mut MachineCheck) {
    for (param, g) in contract.globals.iter().enumerate() {
        let Some(space) = ex.arguments.get(param).and_then(|s| ex.memory.space(*s)) else {
            continue;
        };
        let strides = crate::interp::strides_of(&g.shape);
        let lanes = contract.lanes.max(1) as usize;
        for (word, bits) in space.words().iter().enumerate() {
            let Some(expected) = contract.expected(param, word) else {
                continue;
            };
            check.compared += 1;
            let got = f32::from_bits(*bits);
            let m = matches(expected, got);
            if m == Match::Close && ex.inexact {
                check.approximate = true;
                continue;
            }
            if m != Match::Exact && check.differences.len() < MAX_DIFFERENCES {
                check.differences.push(MachineDifference {
                    buffer: g.name.clone(),
                    index: crate::interp::unflatten(&strides, word / lanes),
                    thread: (word % lanes) as u32,
                    expected: f64::from(expected as f32),
                    got: f64::from(got),
                });
            }
        }
    }
}

/// FNV-1a: names in kernel texts are short, and a map from names is looked up once per operand.
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A hash map keyed by names of a kernel text.
pub(crate) type NameMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<Fnv>>;

/// Float arithmetic in float32 as the machine does it, noting whether a result was rounded where
/// the loop's interpretation (float64, rounded to float32 when stored) might not round the same.
pub(crate) struct Float {
    pub inexact: bool,
}

impl Float {
    fn note(&mut self, wide: f64, narrow: f32) -> f32 {
        if wide.is_finite() && f64::from(narrow) != wide {
            self.inexact = true;
        }
        narrow
    }
    pub fn add(&mut self, a: f32, b: f32) -> f32 {
        self.note(f64::from(a) + f64::from(b), a + b)
    }
    pub fn sub(&mut self, a: f32, b: f32) -> f32 {
        self.note(f64::from(a) - f64::from(b), a - b)
    }
    pub fn mul(&mut self, a: f32, b: f32) -> f32 {
        self.note(f64::from(a) * f64::from(b), a * b)
    }
    pub fn div(&mut self, a: f32, b: f32) -> f32 {
        self.note(f64::from(a) / f64::from(b), a / b)
    }
    pub fn fma(&mut self, a: f32, b: f32, c: f32) -> f32 {
        self.note(
            f64::from(a).mul_add(f64::from(b), f64::from(c)),
            a.mul_add(b, c),
        )
    }
    /// An approximate reciprocal (`v_rcp_f32`, 1 ulp): always counted as inexact unless exact.
    pub fn rcp(&mut self, a: f32) -> f32 {
        self.note(1.0 / f64::from(a), 1.0 / a)
    }
}
