//! Wait counts set by hand ("break it to understand it"): a learner raises or lowers a derived
//! count and everything downstream — the printed program, the verification, the timeline and the
//! emitted code — runs the changed program, since the change is made to the pipelined program
//! itself. The exploration keeps saying what was derived, so the page can show both.

use super::{CountOverride, WaitCount, WaitKey};
use crate::ir::{IExpr, IOp, Node, SectionKind};
use crate::schedule::LoopSchedule;
use crate::simplify::simplify;
use crate::sync::WaitSite;

/// The key of every site, in site order. The consumer is named by its text (not its line or its
/// position) so that an edit elsewhere in the loop keeps a count set by hand on the same wait.
pub(super) fn keys(sites: &[WaitSite], sched: &LoopSchedule, source: &str) -> Vec<WaitKey> {
    let consumer_text = |pos: usize| {
        let text = sched
            .units
            .get(pos)
            .and_then(|u| source.get(u.span.start as usize..u.span.end as usize))
            .unwrap_or("");
        text.lines()
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut keys: Vec<WaitKey> = Vec::with_capacity(sites.len());
    for site in sites {
        let mut key = WaitKey {
            queue: site.queue,
            section: site.section,
            before: site.before.map(consumer_text),
            occurrence: 0,
        };
        // Two consumers written alike: the second is the second of that text, in site order.
        key.occurrence = keys.iter().filter(|k| k.same_wait_as(&key)).count() as u32;
        keys.push(key);
    }
    keys
}

impl WaitKey {
    fn same_wait_as(&self, other: &WaitKey) -> bool {
        self.queue == other.queue && self.section == other.section && self.before == other.before
    }

    /// "the wait on queue 0 before `C[i] = B[0] + 1` (body)", for notes.
    pub fn describe(&self) -> String {
        let section = match self.section {
            SectionKind::Prologue => "prologue",
            SectionKind::Body => "body",
            SectionKind::Epilogue => "epilogue",
        };
        match &self.before {
            Some(text) => format!(
                "the wait on queue {} before `{text}` ({section})",
                self.queue
            ),
            None => format!("the final drain of queue {}", self.queue),
        }
    }
}

/// The count shown for a site: its body count when it has one (every body step shares it), else
/// the smallest of its steps' counts.
fn derived_count(site: &WaitSite) -> i64 {
    site.instances
        .iter()
        .find(|i| i.step.is_none())
        .map_or_else(|| site.min_count(), |i| i.count)
}

/// Which sites' counts change and by how much (site id, delta); the per-site counts the
/// exploration reports (which say what was applied); and a note for every override dropped.
pub(super) struct Resolved {
    pub deltas: Vec<(u32, i64)>,
    pub counts: Vec<WaitCount>,
    pub notes: Vec<String>,
}

pub(super) fn resolve(
    sites: &[WaitSite],
    keys: &[WaitKey],
    overrides: &[CountOverride],
) -> Resolved {
    let mut deltas: Vec<(u32, i64)> = Vec::new();
    let mut notes = Vec::new();
    for o in overrides.iter().filter(|o| o.delta != 0) {
        let site = keys
            .iter()
            .position(|k| *k == o.wait)
            .and_then(|at| sites.get(at));
        let Some(site) = site else {
            notes.push(format!(
                "the count set by hand for {} was dropped: the program has no such wait any more",
                o.wait.describe()
            ));
            continue;
        };
        if site.min_count() + o.delta < 0 {
            notes.push(format!(
                "the count set by hand for {} was dropped: {} {:+} would be negative, and a wait cannot ask for fewer than 0 groups in flight",
                o.wait.describe(),
                site.min_count(),
                o.delta
            ));
            continue;
        }
        match deltas.iter_mut().find(|(id, _)| *id == site.id) {
            Some((_, d)) => *d += o.delta,
            None => deltas.push((site.id, o.delta)),
        }
    }
    let counts: Vec<WaitCount> = sites
        .iter()
        .zip(keys)
        .map(|(site, key)| {
            let delta = deltas
                .iter()
                .find(|(id, _)| *id == site.id)
                .map_or(0, |&(_, d)| d);
            WaitCount {
                wait: site.id,
                key: key.clone(),
                derived: derived_count(site),
                in_effect: derived_count(site) + delta,
            }
        })
        .collect();
    Resolved {
        deltas,
        counts,
        notes,
    }
}

/// Adds each site's delta to every wait node of that site (a count may be an expression of the
/// step variable in the rolled form, or of a symbolic extent). The inner loops pipelined first keep
/// waits of their own plans; they never share a program with the top loop's waits (an outer loop
/// with async stages refuses inner ones), so the site ids cannot be confused.
pub(super) fn apply(nodes: &mut [Node], deltas: &[(u32, i64)]) {
    if deltas.is_empty() {
        return;
    }
    for node in nodes {
        match node {
            Node::Wait {
                count, wait, body, ..
            } => {
                if let Some(&(_, delta)) = wait.and_then(|w| deltas.iter().find(|(id, _)| *id == w))
                {
                    *count = simplify(&IExpr::bin(IOp::Add, count.clone(), IExpr::Const(delta)));
                }
                apply(body, deltas);
            }
            Node::For { body, .. }
            | Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Section { body, .. } => apply(body, deltas),
            Node::Assign(_) | Node::Barrier { .. } => {}
        }
    }
}
