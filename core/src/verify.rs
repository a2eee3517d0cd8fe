//! The verifier: runs the original loop and a pipelined program on the same inputs, compares every
//! output element, lists the races, and judges every wait — safe, tight, or loose by k — by re-running
//! with its count raised. This is how Stagecraft proves its own waits and shows TVM's races.

use crate::diagnostic::Span;
use crate::english::count;
use crate::interp::{prepare, run, Policy, Prepared, Problem, Race, Run, RunOptions};
use crate::ir::{statement_instances, IExpr, Program, StmtId, VarId, VarKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VerifyOptions {
    pub params: BTreeMap<String, i64>,
    pub seed: u64,
    /// Extra runs under the random completion policy (seeds 1..=n).
    pub random_runs: u32,
    /// Judge each wait (costs a few extra runs per wait).
    pub judge_waits: bool,
    pub max_instances: u64,
    pub trace: bool,
    /// A target is asked for: every wait count must be one immediate (`Invalid::CountNotImmediate`).
    pub immediate_counts: bool,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            params: BTreeMap::new(),
            seed: 1,
            random_runs: 2,
            judge_waits: true,
            max_instances: crate::limits::MAX_INTERPRETED_INSTANCES,
            trace: true,
            immediate_counts: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The program does something real hardware does not (a negative count, async writes outside
    /// a commit scope, a wait inside its own open group, groups never awaited, a count that is not
    /// one immediate where a target needs one): `Verification::problems` with `invalid` set say
    /// where. Outranks every other verdict; races and differences found are still listed.
    Invalid,
    /// Same outputs, no race, every wait tight.
    Equivalent,
    /// Same outputs and no race, but some wait could allow more groups in flight.
    SafeButLoose,
    Racy,
    /// Outputs differ although nothing raced (the transform itself is wrong).
    Different,
    NotRun,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    pub buffer: String,
    pub element: Vec<i64>,
    pub expected: f64,
    /// `None` when the pipelined program never wrote the element.
    pub got: Option<f64>,
}

crate::wire::dual_tagged! {
    remote = "Judgement", json(tag = "judgement"), both(rename_all = "snake_case");
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// Raising the count by one races: every group it forces is needed.
    Tight,
    /// The count could be raised by `k` without a race.
    LooseBy { k: i64 },
    /// It never forces anything at any instance (it could be removed).
    Redundant,
    /// A race happened that this wait should have covered.
    Racy,
    /// It never ran.
    NeverRan,
    /// Not judged because the program races elsewhere.
    NotJudged,
}
}

impl Judgement {
    /// The judgement as the page and the command line say it: "tight", "loose by 2".
    pub fn words(self) -> String {
        match self {
            Judgement::Tight => "tight".into(),
            Judgement::LooseBy { k } => format!("loose by {k}"),
            Judgement::Redundant => "redundant".into(),
            Judgement::Racy => "racy".into(),
            Judgement::NeverRan => "never ran".into(),
            Judgement::NotJudged => "not judged".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitVerdict {
    pub index: usize,
    pub id: Option<u32>,
    pub queue: i64,
    pub span: Span,
    pub judgement: Judgement,
    pub instances: u64,
    pub max_in_flight: u64,
    /// Instances that completed at least one group.
    #[serde(default)]
    pub forcing_instances: u64,
    /// The values of a symbolic extent at which it did not run (`verify_extents`).
    #[serde(default)]
    pub not_executed_at: Vec<i64>,
    /// The values of a symbolic extent at which it ran but had nothing to complete (`verify_extents`).
    #[serde(default)]
    pub forces_nothing_at: Vec<i64>,
    /// A racy wait's fix: its count lowered by this much (at every instance) leaves no race blamed
    /// on it. `None` when it is not racy, when no count down to 0 does (the race is another
    /// wait's or a missing one's to cover), or when searching would exceed the judging budget.
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub lower_by: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    pub verdict: Verdict,
    pub summary: String,
    pub races: Vec<Race>,
    pub differences: Vec<Difference>,
    pub waits: Vec<WaitVerdict>,
    pub problems: Vec<Problem>,
    /// Problems while running the original loop (should be none).
    pub original_problems: Vec<Problem>,
    pub instances: u64,
    pub truncated: bool,
    /// The interpreter's events (`VerifyOptions::trace`). Printed by the command line, never read
    /// back: the page does not show it, and the worker does not send it.
    #[serde(skip_deserializing, skip_serializing_if = "crate::wire::json_only")]
    pub trace: Vec<crate::interp::Event>,
    /// Races found under random completion orders (seed → count), beyond the latest-policy run.
    pub random_races: Vec<(u64, usize)>,
    pub params: BTreeMap<String, i64>,
    /// Waits of an equivalent, race-free run left unjudged: judging was off, or would have exceeded
    /// the interpretation budget.
    #[serde(default)]
    pub unjudged_for_budget: usize,
    /// A program whose loop declares its threads, run across them as well
    /// (`interp::check_threads`): who ran, and the races between waves (threads) it found.
    #[serde(default, skip_serializing_if = "crate::wire::omit_none")]
    pub across: Option<Across>,
}

/// The run across threads of a program that declares them: the races between its waves (a read
/// of what another wave copied before a barrier publishes it, a write over what another wave may
/// still read), which the one-thread runs above cannot see.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Across {
    pub threads: crate::ir::Threads,
    /// The waves (threads) run: every one, or those owning an element of a shared tile and one
    /// that owns none, standing for the rest (`interp::ThreadOptions::sample_symmetric`).
    pub agents_run: u32,
    pub barriers: u64,
    /// The first races found, and the first at each further place a barrier would cover.
    pub races: Vec<crate::interp::ThreadRace>,
    /// Every race found.
    pub race_count: u64,
    /// Output elements a wave's copy holds that the loop does not compute, in sentences.
    pub differences: Vec<String>,
    /// The run stopped at the interpreter's limit: nothing is claimed.
    pub truncated: bool,
}

impl Across {
    /// "wave", or "thread" when every thread waits for its own copies.
    pub fn agent_word(&self) -> &'static str {
        if self.threads.waves < self.threads.threads {
            "wave"
        } else {
            "thread"
        }
    }

    /// How the run across threads judges, for the list of its races: "Run across its 8 waves
    /// (512 threads): each wave's wait completes only its own copies; a `barrier()` publishes them
    /// to the other waves."
    pub fn how_run(&self) -> String {
        let word = self.agent_word();
        format!(
            "Run across its {}: each {word}'s wait completes only its own copies; a `barrier()` publishes them to the other {word}s.",
            self.who()
        )
    }

    /// "8 waves (512 threads)", "128 threads".
    pub fn who(&self) -> String {
        if self.threads.waves < self.threads.threads {
            format!(
                "{} ({} threads)",
                count(self.threads.waves as usize, "wave"),
                self.threads.threads
            )
        } else {
            count(self.threads.threads as usize, "thread")
        }
    }
}

/// Races between waves that one barrier would cover (the same kind at the same two accesses, the
/// copy landed at the same wait), met by several waves and elements: the first, and the others
/// counted.
#[derive(Clone, Debug)]
pub struct RaceGroup<'a> {
    pub first: &'a crate::interp::ThreadRace,
    /// The races like it kept beyond the first (`Across::races`).
    pub more: usize,
    /// Every wave (thread) on either side of them, in order.
    pub agents: Vec<u32>,
}

impl RaceGroup<'_> {
    /// "waves 0–7", "threads 1, 3 and 9".
    pub fn between(&self) -> String {
        let word = &self.first.agent_word;
        let contiguous = self
            .agents
            .windows(2)
            .all(|w| matches!(w, [a, b] if b == &(a + 1)));
        match self.agents.as_slice() {
            [] => String::new(),
            [one] => format!("{word} {one}"),
            [first, .., last] if contiguous => format!("{word}s {first}–{last}"),
            [init @ .., last] => format!(
                "{word}s {} and {last}",
                init.iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl Across {
    /// The races grouped by the barrier that would cover them, in the order first met.
    pub fn by_barrier(&self) -> Vec<RaceGroup<'_>> {
        let mut groups: Vec<RaceGroup<'_>> = Vec::new();
        for r in &self.races {
            let same = |g: &RaceGroup<'_>| g.first.cover_key() == r.cover_key();
            match groups.iter_mut().find(|g| same(g)) {
                Some(g) => {
                    g.more += 1;
                    g.agents.extend([r.access.agent, r.other.agent]);
                }
                None => groups.push(RaceGroup {
                    first: r,
                    more: 0,
                    agents: vec![r.access.agent, r.other.agent],
                }),
            }
        }
        for g in &mut groups {
            g.agents.sort_unstable();
            g.agents.dedup();
        }
        groups
    }
}

/// `pipelined` run across the threads it declares and its outputs compared with the loop's;
/// `None` when it declares none.
fn across_threads(original: &Program, pipelined: &Program, opts: &VerifyOptions) -> Option<Across> {
    let threads = pipelined.threads?;
    let check = crate::interp::check_threads(
        original,
        pipelined,
        &crate::interp::ThreadOptions {
            params: opts.params.clone(),
            seed: opts.seed,
            ..crate::interp::ThreadOptions::default()
        },
    );
    Some(Across {
        threads,
        agents_run: check.run.agents.len() as u32,
        barriers: check.run.barriers,
        races: check.run.races,
        race_count: check.run.race_count,
        differences: check.differences,
        truncated: check.run.truncated,
    })
}

const MAX_DIFFERENCES: usize = 16;

/// The outputs: every element of a global buffer (a kernel parameter) the original wrote,
/// compared by index with the pipelined program's. A `shared` or `local` buffer is scratch: its
/// last value is not an output (the kernel's caller never sees it), whatever its versions.
pub fn compare(original: &Run, pipelined: &Run) -> Vec<Difference> {
    let mut out = Vec::new();
    for (name, a) in original.memory.iter().filter(|(_, a)| a.global) {
        let Some(b) = pipelined.memory.get(name) else {
            continue;
        };
        let strides = crate::interp::strides_of(&a.shape);
        for (off, (&value, &written)) in a.values.iter().zip(&a.written).enumerate() {
            if !written {
                continue;
            }
            let index = crate::interp::unflatten(&strides, off);
            let got = offset(&b.shape, &index).and_then(|o| {
                let w = b.written.get(o).copied().unwrap_or(false);
                w.then(|| b.values.get(o).copied()).flatten()
            });
            let same = got
                .is_some_and(|g| g.to_bits() == value.to_bits() || (g.is_nan() && value.is_nan()));
            if !same {
                out.push(Difference {
                    buffer: name.clone(),
                    element: index,
                    expected: value,
                    got,
                });
                if out.len() >= MAX_DIFFERENCES {
                    return out;
                }
            }
        }
    }
    out
}

fn offset(shape: &[i64], index: &[i64]) -> Option<usize> {
    if shape.len() != index.len() {
        return None;
    }
    let mut off = 0i64;
    for (&i, &d) in index.iter().zip(shape) {
        if i < 0 || i >= d {
            return None;
        }
        off = off * d + i;
    }
    usize::try_from(off).ok()
}

/// Statement instances `program` runs with `params`, when every loop's bounds depend on parameters
/// only (`None` otherwise: the run finds out).
pub(crate) fn instances_of(program: &Program, params: &BTreeMap<String, i64>) -> Option<u64> {
    let env = program.env(params);
    let loop_vars: Vec<VarId> = program
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.kind == VarKind::Loop)
        .map(|(id, _)| id as VarId)
        .collect();
    let trips = |lo: &IExpr, hi: &IExpr| {
        if loop_vars.iter().any(|&v| lo.mentions(v) || hi.mentions(v)) {
            return None;
        }
        Some(u64::try_from(hi.eval(&env)? - lo.eval(&env)?).unwrap_or(0))
    };
    statement_instances(&program.body, &trips)
}

/// The runs that decide races and outputs (the original loop's, the pipelined program's under
/// the adversary and in random orders), then every wait judged and the verdict. Refused beyond
/// the interpreter's limit; a run that stopped ends it there.
pub fn verify(original: &Program, pipelined: &Program, opts: &VerifyOptions) -> Verification {
    // Beyond the interpreter's limit the work is refused, not attempted and abandoned: exploring a
    // 160-statement, 5 000-iteration loop would run both programs to the limit and throw the runs
    // away.
    if let Some(n) = instances_of(original, &opts.params).filter(|&n| n > opts.max_instances) {
        return Verification {
            summary: format!(
                "not verified: the loop runs {n} statement instances, more than the interpreter's limit of {}; choose a smaller extent",
                opts.max_instances
            ),
            truncated: true,
            ..Verification::not_run(opts)
        };
    }
    let base = RunOptions {
        policy: Policy::Latest,
        params: opts.params.clone(),
        seed: opts.seed,
        max_instances: opts.max_instances,
        trace: false,
        immediate_counts: opts.immediate_counts,
        statement_names: crate::tir::statement_texts(original),
        ..RunOptions::default()
    };
    let orig = run(original, &base);
    // The pipelined program is run again and again (random orders, judging): compile it once.
    let prepared = prepare(pipelined, &base);
    let runs = Runs {
        orig: &orig,
        prepared: &prepared,
        base: &base,
    };
    let main = runs.pipelined(&RunOptions {
        trace: opts.trace,
        ..base.clone()
    });
    let mut v = Verification {
        races: main.races.clone(),
        problems: main.problems.clone(),
        original_problems: orig.problems.clone(),
        instances: main.instances,
        truncated: main.truncated || orig.truncated,
        trace: main.trace.clone(),
        ..Verification::not_run(opts)
    };
    if let Some(why) = orig.aborted.as_ref().or(main.aborted.as_ref()) {
        v.summary = format!("not verified: {why}; choose a smaller extent");
        return v;
    }
    if v.truncated {
        v.summary = format!(
            "not verified: the run stopped after {} statement instances (limit {}); choose a smaller extent",
            opts.max_instances, opts.max_instances
        );
        return v;
    }
    v.differences = compare(&orig, &main);
    v.across = across_threads(original, pipelined, opts);
    for seed in 1..=u64::from(opts.random_runs) {
        let r = runs.pipelined(&RunOptions {
            policy: Policy::Random { seed },
            ..base.clone()
        });
        v.random_races.push((seed, r.races.len()));
    }
    v.unjudged_for_budget = judge_waits(&mut v, &runs, &main, opts);
    let loose = v.loose_waits();
    v.verdict = if v.invalid() > 0 {
        Verdict::Invalid
    } else if !v.races.is_empty() || v.across.as_ref().is_some_and(|a| !a.races.is_empty()) {
        Verdict::Racy
    } else if !v.differences.is_empty()
        || v.across.as_ref().is_some_and(|a| !a.differences.is_empty())
    {
        Verdict::Different
    } else if loose > 0 {
        Verdict::SafeButLoose
    } else {
        Verdict::Equivalent
    };
    v.summary = summary(&v, loose);
    v
}

impl Verification {
    /// How many waits could allow more groups in flight (loose or redundant).
    pub fn loose_waits(&self) -> usize {
        self.waits
            .iter()
            .filter(|w| {
                matches!(
                    w.judgement,
                    Judgement::LooseBy { .. } | Judgement::Redundant
                )
            })
            .count()
    }

    /// The problems, those that make the program invalid first (as every view lists them).
    pub fn problems_invalid_first(&self) -> impl Iterator<Item = &Problem> {
        let invalid = |p: &&Problem| p.invalid.is_some();
        self.problems
            .iter()
            .filter(invalid)
            .chain(self.problems.iter().filter(move |p| !invalid(p)))
    }

    /// The races (their indices) in groups of races alike: of one statement, of one kind, and
    /// left by one wait (or by none, or inside one commit group), in the order first met. A
    /// raised count makes one such group per iteration it leaves uncovered; every view lists a
    /// group's first race and counts the others.
    pub fn race_groups(&self) -> Vec<Vec<usize>> {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let key =
            |r: &crate::interp::Race| (r.wait.map(|w| w.index), r.within_group, r.kind, r.stmt);
        for (k, r) in self.races.iter().enumerate() {
            let found = groups.iter_mut().find(|g| {
                g.first()
                    .and_then(|&f| self.races.get(f))
                    .is_some_and(|f| key(f) == key(r))
            });
            match found {
                Some(g) => g.push(k),
                None => groups.push(vec![k]),
            }
        }
        groups
    }

    /// Whether the waits are judged at all: only against a run of a valid program with no race
    /// on in-flight data and the loop's outputs (`judge_waits`; else every wait that ran and
    /// did not race is "not judged", and `unjudged_note` says why).
    fn judgeable(&self) -> bool {
        self.races.is_empty() && self.invalid() == 0 && self.differences.is_empty()
    }

    /// Why some waits are "not judged", when the verdict does not say it: the run is not one
    /// waits are judged against (`judgeable`; the interpretation budget is said in the summary).
    pub fn unjudged_note(&self) -> Option<&'static str> {
        let unjudged = self
            .waits
            .iter()
            .any(|w| w.judgement == Judgement::NotJudged);
        (unjudged && !self.judgeable()).then_some(
            "a wait is judged tight or loose only in a run with no race and the loop's outputs, of a valid program; those not judged here are judged once the races, differing outputs and problems are gone",
        )
    }

    /// How many problems make the program invalid (`Verdict::Invalid`).
    pub fn invalid(&self) -> usize {
        self.problems.iter().filter(|p| p.invalid.is_some()).count()
    }

    /// Nothing run yet: the verdict and summary say so until a run fills them in.
    fn not_run(opts: &VerifyOptions) -> Verification {
        Verification {
            verdict: Verdict::NotRun,
            summary: String::new(),
            races: Vec::new(),
            differences: Vec::new(),
            waits: Vec::new(),
            problems: Vec::new(),
            original_problems: Vec::new(),
            instances: 0,
            truncated: false,
            trace: Vec::new(),
            random_races: Vec::new(),
            params: opts.params.clone(),
            unjudged_for_budget: 0,
            across: None,
        }
    }
}

/// What a verification runs from: the original loop's run, and the pipelined program compiled
/// once with its initial memory (or the run that could not start), under `base`'s options.
struct Runs<'a> {
    orig: &'a Run,
    prepared: &'a Result<Prepared, Box<Run>>,
    base: &'a RunOptions,
}

impl Runs<'_> {
    fn pipelined(&self, o: &RunOptions) -> Run {
        match self.prepared {
            Ok(p) => p.run(o),
            Err(aborted) => Run::clone(aborted),
        }
    }
}

/// A judgement for every wait of the latest-policy run `main`; returns how many of a race-free,
/// equivalent run were left unjudged (judging off, or beyond the interpretation budget).
fn judge_waits(v: &mut Verification, runs: &Runs, main: &Run, opts: &VerifyOptions) -> usize {
    // An invalid program is not judged: its waits' counts mean nothing a target can run.
    let judgeable = v.judgeable();
    // Judging re-runs the program a few times per wait; keep the whole verification bounded.
    let mut judge_budget = crate::limits::MAX_JUDGE_INSTANCES;
    let mut over_budget = 0;
    for st in &main.waits {
        let mut lower_by = None;
        let judgement = if st.instances == 0 {
            Judgement::NeverRan
        } else if v
            .races
            .iter()
            .any(|r| r.wait.is_some_and(|w| w.index == st.index))
        {
            if let Ok(prepared) = runs.prepared {
                if judge_budget >= main.instances.saturating_mul(st.max_in_flight) {
                    let (k, n) = racy_fix(prepared, runs.base, st.index, st.max_in_flight);
                    judge_budget = judge_budget.saturating_sub(main.instances.saturating_mul(n));
                    lower_by = k;
                }
            }
            Judgement::Racy
        } else if !judgeable {
            Judgement::NotJudged
        } else if !opts.judge_waits
            || main.instances > crate::limits::MAX_JUDGED_INSTANCES
            || judge_budget < main.instances.saturating_mul(2)
        {
            // The summary must not call a wait tight that was never judged.
            over_budget += 1;
            Judgement::NotJudged
        } else if let Ok(prepared) = runs.prepared {
            let (j, n) = judge(
                runs.orig,
                prepared,
                runs.base,
                st.index,
                st.max_in_flight,
                st.forcing_instances,
            );
            judge_budget = judge_budget.saturating_sub(main.instances.saturating_mul(n));
            j
        } else {
            Judgement::NotJudged
        };
        v.waits.push(WaitVerdict {
            index: st.index,
            id: st.id,
            queue: st.queue,
            span: st.span,
            judgement,
            instances: st.instances,
            max_in_flight: st.max_in_flight,
            forcing_instances: st.forcing_instances,
            not_executed_at: Vec::new(),
            forces_nothing_at: Vec::new(),
            lower_by,
        });
    }
    over_budget
}

/// The pipelined program run with the count of wait `index` moved by `delta` at every instance.
fn run_with_delta(pipelined: &Prepared, base: &RunOptions, index: usize, delta: i64) -> Run {
    let mut o = base.clone();
    o.count_delta.insert(index, delta);
    pipelined.run(&o)
}

/// How much lower the count of the racy wait `index` must be for no race to be blamed on it, found
/// by running the program with it lowered by 1, 2, … up to the most groups it ever let stay in
/// flight (lowering only completes more, so the first that works is the fix); with the runs made.
fn racy_fix(
    pipelined: &Prepared,
    base: &RunOptions,
    index: usize,
    max_in_flight: u64,
) -> (Option<i64>, u64) {
    let mut runs = 0;
    for k in 1..=max_in_flight as i64 {
        runs += 1;
        let r = run_with_delta(pipelined, base, index, -k);
        // A count below 0 at some instance is no instruction a target has.
        if r.problems.iter().any(|p| p.invalid.is_some()) {
            break;
        }
        if r.races
            .iter()
            .all(|x| x.wait.is_none_or(|w| w.index != index))
        {
            return (Some(k), runs);
        }
    }
    (None, runs)
}

/// "its wait tight", "all 3 waits tight".
pub fn all_tight(waits: usize) -> String {
    if waits == 1 {
        "its one wait tight".to_string()
    } else {
        format!("all {} tight", count(waits, "wait"))
    }
}

/// One sentence for the verdict; `loose` waits could allow more groups in flight.
fn summary(v: &Verification, loose: usize) -> String {
    let over_budget = v.unjudged_for_budget;
    // "no race" says across whom, when the program declares its threads.
    let no_race = match &v.across {
        Some(a) if a.truncated => format!(
            "no race in one thread (the run across its {} stopped at the interpreter's limit)",
            a.who()
        ),
        Some(a) => format!("no race across its {}", a.who()),
        None => "no race".to_string(),
    };
    match v.verdict {
        Verdict::Equivalent if v.waits.is_empty() => {
            format!("equivalent: same outputs, {no_race}, no waits needed ({} statement instances)", v.instances)
        }
        Verdict::Equivalent if over_budget > 0 => format!(
            "equivalent: same outputs, {no_race}; {} of {} waits judged tight, {over_budget} not judged (interpretation budget) ({} statement instances)",
            v.waits.len() - over_budget,
            v.waits.len(),
            v.instances
        ),
        Verdict::Equivalent => format!(
            "equivalent: same outputs, {no_race}, {} ({} statement instances)",
            all_tight(v.waits.len()),
            v.instances
        ),
        Verdict::SafeButLoose => format!(
            "safe but loose: same outputs and {no_race}, but {} could allow more groups in flight",
            count(loose, "wait")
        ),
        Verdict::Invalid => {
            let first = v
                .problems
                .iter()
                .find_map(|p| p.invalid)
                .map_or("", |k| k.what());
            let more = v.invalid().saturating_sub(1);
            let mut also = races_said(v);
            if !v.differences.is_empty() {
                also.push(differ(v.differences.len()));
            }
            format!(
                "invalid: {first}{}, which no hardware runs as written{}",
                if more > 0 {
                    format!(" and {}", count(more, "more problem"))
                } else {
                    String::new()
                },
                if also.is_empty() {
                    String::new()
                } else {
                    format!("; also {}", also.join(", "))
                }
            )
        }
        Verdict::Racy => format!("racy: {}", races_said(v).join(", ")),
        Verdict::Different => {
            let across = v.across.as_ref().map_or(0, |a| a.differences.len());
            let n = if v.differences.is_empty() {
                across
            } else {
                v.differences.len()
            };
            format!("different: {} although nothing raced", differ(n))
        }
        Verdict::NotRun => "not run".into(),
    }
}

/// The races of a verification in words: those on in-flight data (one thread's runs), then those
/// between waves (threads) with what the first of them is.
fn races_said(v: &Verification) -> Vec<String> {
    let mut out = Vec::new();
    if !v.races.is_empty() {
        out.push(format!(
            "{} on in-flight data",
            count(v.races.len(), "race")
        ));
    }
    if let Some(a) = v.across.as_ref().filter(|a| !a.races.is_empty()) {
        let word = a.agent_word();
        let what = match a.races.first().map(|r| r.kind) {
            Some(crate::interp::ThreadRaceKind::ReadNotPublished) => format!(
                " — a {word} reads part of a tile another {word} copied before a barrier publishes it"
            ),
            Some(crate::interp::ThreadRaceKind::WriteOverRead) => format!(
                " — a {word} refills part of a tile another {word} may still be reading"
            ),
            _ => String::new(),
        };
        let races = count(a.race_count as usize, "race");
        out.push(format!("{races} between {word}s{what}"));
    }
    out
}

/// "1 output element differs", "3 output elements differ".
fn differ(n: usize) -> String {
    let verb = if n == 1 { "differs" } else { "differ" };
    format!("{} {verb}", count(n, "output element"))
}

/// Tight if count+1 races or changes the result; otherwise the largest safe increase.
fn judge(
    orig: &Run,
    pipelined: &Prepared,
    base: &RunOptions,
    index: usize,
    max_in_flight: u64,
    forcing: u64,
) -> (Judgement, u64) {
    let runs = std::cell::Cell::new(0u64);
    let j = judge_runs(orig, pipelined, base, index, max_in_flight, forcing, &runs);
    (j, runs.get())
}

fn judge_runs(
    orig: &Run,
    pipelined: &Prepared,
    base: &RunOptions,
    index: usize,
    max_in_flight: u64,
    forcing: u64,
    runs: &std::cell::Cell<u64>,
) -> Judgement {
    let safe = |delta: i64| {
        runs.set(runs.get() + 1);
        let r = run_with_delta(pipelined, base, index, delta);
        // A raised final wait may leave a group never awaited: not safe, even unobserved.
        r.races.is_empty()
            && r.problems.iter().all(|p| p.invalid.is_none())
            && compare(orig, &r).is_empty()
    };
    if !safe(1) {
        return Judgement::Tight;
    }
    if forcing == 0 {
        return Judgement::Redundant;
    }
    // Raising a count only lets more stay in flight, so safety is monotone: binary search.
    let (mut lo, mut hi) = (1i64, max_in_flight as i64 + 1);
    if safe(hi) {
        return Judgement::Redundant;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if safe(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Judgement::LooseBy { k: lo }
}

/// Maps a hand-written pipelined program's statements to source statements by target buffer and the
/// buffers read (in order), so races in it can name the source statement.
pub fn match_statements(original: &Program, pipelined: &Program) -> BTreeMap<StmtId, StmtId> {
    let signature = |p: &Program, a: &crate::ir::Assign| {
        let mut reads = Vec::new();
        crate::ir::for_each_read(&a.value, &mut |r| {
            reads.push(
                p.buffer(r.buffer)
                    .map_or(String::new(), |b| b.name.to_string()),
            )
        });
        (
            p.buffer(a.target.buffer)
                .map_or(String::new(), |b| b.name.to_string()),
            reads,
        )
    };
    let mut sources = Vec::new();
    crate::ir::for_each_assign(&original.body, &mut |a| {
        sources.push((a.stmt, signature(original, a)))
    });
    let mut out = BTreeMap::new();
    crate::ir::for_each_assign(&pipelined.body, &mut |a| {
        let sig = signature(pipelined, a);
        if let Some((id, _)) = sources.iter().find(|(_, s)| *s == sig) {
            out.insert(a.stmt, *id);
        }
    });
    out
}
