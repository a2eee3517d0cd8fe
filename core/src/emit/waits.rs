//! The text of a kernel's wait instructions, from the counts `sequence.rs` derived: each wait
//! point's instruction with a comment naming the IR waits it implements, the notes saying what
//! one immediate could not (a cap, instances that could keep more, groups the single sequence
//! forces), and `Emitted::waits`. One writer for every target whose waits count one in-order
//! sequence (AMDGPU vmcnt, asyncmarks, sm_80 cp.async groups); each target says how it spells
//! them (`WaitSpelling`).

use super::sequence::{Translated, WaitPoint};

/// What a wait point's line says, and what it is.
pub(crate) struct WaitLine {
    pub text: String,
    pub immediate: Option<u64>,
    pub exact: bool,
    pub instances: u64,
    pub group_units: Option<u64>,
    pub completes: bool,
    pub isolated: bool,
    pub needed_label: Option<usize>,
    /// Groups it completes that the IR lets stay in flight, and the note saying so.
    pub forced: Vec<(i64, u64)>,
    pub forced_note: Option<String>,
}

/// How a target writes and explains a wait of its single sequence.
pub(crate) struct WaitSpelling {
    /// The instruction keeping `n` units in flight.
    pub instr: fn(u64) -> String,
    /// Its short name in notes.
    pub short: fn(u64) -> String,
    /// What starts a line comment, with its space.
    pub comment: &'static str,
    /// The dash in comments (ptxas accepts only ASCII, even in comments).
    pub dash: &'static str,
    /// The unit counted ("mark", "group", "instruction").
    pub unit: &'static str,
    /// What follows the count of an IR wait's groups in the comment (" of it", or nothing).
    pub of_groups: &'static str,
    /// Why a point with nothing to complete needs nothing.
    pub nothing_needed: &'static str,
    /// The largest immediate the field holds, the field's name and what it counts.
    pub field_max: u64,
    pub field: &'static str,
    pub counted: &'static str,
    /// The machine a note names ("sm_80") and why its queues share one sequence.
    pub machine: &'static str,
    pub shared: &'static str,
    /// Where the target's comments and notes explain the single sequence: why one count serves
    /// every queue.
    pub sequence: Option<&'static str>,
}

fn wait_names(point: &WaitPoint, of_groups: &str) -> String {
    point
        .members
        .iter()
        .map(|(_, id, q, n, _)| {
            format!(
                "wait #{} (queue {q}): at most {}{of_groups} in flight",
                id.map_or("-".into(), |i| i.to_string()),
                crate::english::count(*n, "group")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// What the members of one wait point say together: each member is an IR wait translated on its
/// own (`Translated`); the point has one immediate, so the smallest exact count sets it.
pub(crate) struct PointSummary {
    pub instances: u64,
    /// The smallest exact count over the members' constrained instances.
    pub exact: Option<u64>,
    /// The smallest of the members' largest exact counts.
    pub loosest: Option<u64>,
    pub extra: u64,
    /// Groups it completes that the IR lets stay in flight: (queue, age), 1 the newest.
    pub forced: Vec<(i64, u64)>,
    /// Every member needs the same count at every instance.
    pub steady: bool,
    pub completes: bool,
    pub isolated: bool,
    pub needed_label: Option<usize>,
    /// What one group more would add, from the member that sets the immediate.
    pub group_units: Option<u64>,
}

impl PointSummary {
    pub(crate) fn of(p: &WaitPoint, t: &[Translated]) -> PointSummary {
        let of = |k: &usize| t.get(*k).cloned().unwrap_or_default();
        let exact = p.members.iter().filter_map(|m| of(&m.0).min).min();
        let setting = || {
            p.members
                .iter()
                .map(|m| of(&m.0))
                .filter(move |t| t.min.is_some() && t.min == exact)
        };
        PointSummary {
            instances: p
                .members
                .iter()
                .map(|m| of(&m.0).instances)
                .max()
                .unwrap_or(0),
            exact,
            loosest: p.members.iter().filter_map(|m| of(&m.0).max).min(),
            extra: p
                .members
                .iter()
                .map(|m| of(&m.0).extra_groups)
                .max()
                .unwrap_or(0),
            forced: {
                let mut all: Vec<(i64, u64)> =
                    p.members.iter().flat_map(|m| of(&m.0).forced).collect();
                all.sort_unstable();
                all.dedup();
                all
            },
            steady: p.members.iter().all(|m| {
                let t = of(&m.0);
                t.min.is_none() || (t.min == t.max && t.constrained == t.instances)
            }),
            completes: p.members.iter().all(|m| {
                let t = of(&m.0);
                t.constrained == 0 || t.completes
            }),
            isolated: p.members.iter().all(|m| {
                let t = of(&m.0);
                t.constrained == 0 || t.isolated
            }),
            needed_label: setting().map(|t| t.needed_label).next().flatten(),
            group_units: setting().map(|t| t.group_units).next().flatten(),
        }
    }
}

/// The text of each wait point (instruction and comment, or a comment alone when the point never
/// needs anything to complete), and the notes that say what one count could not express.
pub(crate) fn wait_lines(
    points: &[WaitPoint],
    t: &[Translated],
    notes: &mut Vec<String>,
    spelling: &WaitSpelling,
) -> Vec<WaitLine> {
    points
        .iter()
        .map(|p| wait_line(p, t, notes, spelling))
        .collect()
}

fn wait_line(
    p: &WaitPoint,
    t: &[Translated],
    notes: &mut Vec<String>,
    spelling: &WaitSpelling,
) -> WaitLine {
    let (c, dash) = (spelling.comment, spelling.dash);
    let units = format!("{}s", spelling.unit);
    let names = wait_names(p, spelling.of_groups);
    let summary = PointSummary::of(p, t);
    let instances = summary.instances;
    let Some(n) = summary.exact else {
        let text = if instances == 0 {
            format!("{c}{names} {dash} never runs (the body loop runs no iteration)")
        } else {
            format!("{c}{names} {dash} {}", spelling.nothing_needed)
        };
        return WaitLine {
            text,
            immediate: None,
            exact: false,
            instances,
            group_units: None,
            completes: false,
            isolated: false,
            needed_label: None,
            forced: Vec::new(),
            forced_note: None,
        };
    };
    let immediate = n.min(spelling.field_max);
    if let Some(l) = summary.loosest.filter(|l| *l > n) {
        notes.push(format!(
            "{names}: {} serves all its {instances} instances; it is exact where the fewest {units} may stay in flight ({n}), others could keep up to {l}",
            (spelling.short)(immediate)
        ));
    }
    let capped = n > spelling.field_max;
    let loose = summary.loosest.is_some_and(|l| l > n);
    // A capped count forces groups for want of bits in its field; the cap's note says so.
    let forced_note = (summary.extra > 0 && !capped).then(|| {
        let why = if loose {
            "one immediate serves all its instances, and some could keep more in flight"
        } else {
            spelling.shared
        };
        format!(
            "{names}: on {} this wait also completes {} that the IR lets stay in flight — {}: {why}",
            spelling.machine,
            crate::english::count(summary.extra, "group"),
            forced_groups(&summary.forced),
        )
    });
    let line = |text: String, exact: bool| WaitLine {
        text,
        immediate: Some(immediate),
        exact,
        instances,
        group_units: summary.group_units,
        completes: summary.completes,
        isolated: summary.isolated,
        needed_label: summary.needed_label,
        forced: summary.forced.clone(),
        forced_note: forced_note.clone(),
    };
    let instr = (spelling.instr)(immediate);
    if capped {
        let (max, more) = (spelling.field_max, n - spelling.field_max);
        notes.push(format!(
            "{names}: exactly {n} {} may stay in flight, but {} holds at most {max}: {} waits for {} than the IR asks",
            spelling.counted,
            spelling.field,
            (spelling.short)(max),
            crate::english::count(more, &format!("more {}", spelling.unit))
        ));
        return line(
            format!(
                "{instr}  {c}{names} = {n} {units}; {} holds at most {max}, so this waits for {more} more",
                spelling.field
            ),
            false,
        );
    }
    let mut text = format!("{instr}  {c}{names}");
    if let Some(why) = spelling.sequence {
        let per_queue: Vec<i64> = p.members.iter().map(|m| m.3).collect();
        if per_queue.len() > 1 || per_queue.first() != Some(&(n as i64)) {
            notes.push(format!(
                "{names}: {why}, so this is {} — the {units} committed after the newest group it needs, of every queue",
                (spelling.short)(n)
            ));
        }
        if summary.extra > 0 {
            text.push_str(&format!(
                " {dash} also completes {} the IR lets stay in flight",
                crate::english::count(summary.extra, "group")
            ));
        }
    }
    notes.extend(forced_note.clone());
    line(text, summary.steady)
}

/// "the 3rd newest group of queue 0, the newest group of queue 1".
pub(crate) fn forced_groups(forced: &[(i64, u64)]) -> String {
    forced
        .iter()
        .map(|&(queue, age)| {
            let nth = match age {
                1 => String::new(),
                2 => "2nd ".into(),
                3 => "3rd ".into(),
                n => format!("{n}th "),
            };
            format!("the {nth}newest group of queue {queue}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The kernel's waits for `Emitted::waits`; `offset` is the number of lines before the body.
pub(crate) fn emitted_waits(
    points: &[WaitPoint],
    lines: &[WaitLine],
    offset: usize,
) -> Vec<super::EmittedWait> {
    points
        .iter()
        .zip(lines)
        .map(|(p, l)| super::EmittedWait {
            line: (offset + p.line + 1) as u32,
            ir: p
                .members
                .iter()
                .map(|&(_, id, queue, count, node)| super::IrWait {
                    node,
                    id,
                    queue,
                    count,
                })
                .collect(),
            immediate: l.immediate,
            exact: l.exact,
            instances: l.instances,
            group_units: l.group_units,
            completes: l.completes,
            isolated: l.isolated,
            needed_line: l.needed_label.map(|n| (offset + n + 1) as u32),
            forced: l
                .forced
                .iter()
                .map(|&(queue, newest)| super::ForcedGroup { queue, newest })
                .collect(),
            forced_note: l.forced_note.clone(),
        })
        .collect()
}

/// Replaces each `@W{g}@` placeholder with wait point g's text.
pub(crate) fn fill_waits(text: &str, lines: &[WaitLine]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("@W") {
        out.push_str(rest.get(..at).unwrap_or(""));
        let after = rest.get(at + 2..).unwrap_or("");
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let k: Option<usize> = after.get(..digits).and_then(|d| d.parse().ok());
        match (k, after.get(digits..digits + 1)) {
            (Some(k), Some("@")) => {
                out.push_str(lines.get(k).map_or("", |l| l.text.as_str()));
                rest = after.get(digits + 1..).unwrap_or("");
            }
            _ => {
                out.push_str("@W");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
