//! What the golden harnesses share (`golden.rs`, `emit_golden.rs`): the inputs of `examples/` and
//! `tests/cases/`, one libtest-mimic trial per expectation, expectations left without an input
//! reported as failures, the one update variable, and a line diff on failure.

#![allow(dead_code)]

use libtest_mimic::{Failed, Trial};
use similar::TextDiff;
use stagecraft::explore::Exploration;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The one variable that rewrites every expectation in the repository: expect-test's inline
/// snapshots (`expect![[…]]`) obey it too, and its name cannot be changed there.
pub const UPDATE: &str = "UPDATE_EXPECT";

/// Directories holding the `.py` inputs, relative to the repository root: the flagship examples
/// (also the app's presets) and the small golden cases.
pub const INPUT_DIRS: [&str; 2] = ["examples", "tests/cases"];

/// Diff lines shown before the rest is summarized: a large change reads better in `git diff`
/// after an update.
const MAX_DIFF_LINES: usize = 120;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn updating() -> bool {
    std::env::var_os(UPDATE).is_some_and(|v| !v.is_empty() && v != "0")
}

/// One `.py` input: its stem names its expectations.
pub struct Input {
    pub stem: String,
    /// Relative to the repository root, with `/` (it names the trial).
    pub path: String,
    pub source: String,
}

/// Every input of `INPUT_DIRS`, sorted by stem; a stem found in two directories (one expectation
/// for two inputs) or a file that cannot be read is an error trial instead.
pub fn inputs() -> (Vec<Input>, Vec<Trial>) {
    let mut by_stem: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut errors = Vec::new();
    for dir in INPUT_DIRS {
        for (stem, path) in files(dir, "py") {
            by_stem.entry(stem).or_default().push(path);
        }
    }
    let mut found = Vec::new();
    for (stem, paths) in by_stem {
        if let [path] = paths.as_slice() {
            match std::fs::read_to_string(root().join(path)) {
                Ok(source) => found.push(Input {
                    stem,
                    path: path.clone(),
                    source,
                }),
                Err(e) => errors.push(failing(path.clone(), format!("{path}: cannot read: {e}"))),
            }
        } else {
            errors.push(failing(
                format!("{stem}: one name, two inputs"),
                format!(
                    "{} share the stem `{stem}` and so one expectation; rename one of them",
                    paths.join(" and ")
                ),
            ));
        }
    }
    (found, errors)
}

/// `(stem, path)` of the files directly in `dir` (relative to the root) whose name ends with
/// `.{ext}`, sorted; `ext` is everything after the first dot of the name.
pub fn files(dir: &str, ext: &str) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let (stem, rest) = name.split_once('.')?;
            (rest == ext).then(|| (stem.to_string(), format!("{dir}/{name}")))
        })
        .collect();
    out.sort();
    out
}

/// Every file directly in `dir`, as `(file name, path relative to the root)`, sorted.
pub fn all_files(dir: &str) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let path = format!("{dir}/{name}");
            (name, path)
        })
        .collect();
    out.sort();
    out
}

/// A trial that fails with `message` (an orphan, a name clash, an unreadable file).
pub fn failing(name: String, message: String) -> Trial {
    Trial::test(name, move || Err(message.into()))
}

/// A trial for an expectation that no input produces: failing, naming the file. It is not deleted
/// under the update variable: an input may have been moved or renamed by mistake.
pub fn orphan(expectation: &str, produced_by: &str) -> Trial {
    failing(
        format!("orphan {expectation}"),
        format!(
            "{expectation} is an expectation with no input ({produced_by}); delete it \
             (`git rm {expectation}`) or restore its input"
        ),
    )
}

/// A trial failing when fewer than `min` inputs were found: a moved directory would otherwise
/// leave a harness that compares nothing and passes.
pub fn enough(what: &str, found: usize, min: usize) -> Trial {
    let what = what.to_string();
    Trial::test(format!("at least {min} {what}"), move || {
        if found >= min {
            Ok(())
        } else {
            Err(format!(
                "found {found} {what} in {}, expected at least {min}",
                INPUT_DIRS.join(" and ")
            )
            .into())
        }
    })
}

/// Compares `actual` with the expectation at `expectation` (relative to the root), or writes it
/// under the update variable. A failure names the file, says how to accept the output, and shows
/// a unified line diff (expected → actual).
pub fn check(expectation: &str, actual: &str) -> Result<(), Failed> {
    let path = root().join(expectation);
    let expected = std::fs::read_to_string(&path);
    if updating() {
        if expected.as_deref().ok() != Some(actual) {
            std::fs::write(&path, actual).map_err(|e| format!("{expectation}: {e}"))?;
        }
        return Ok(());
    }
    let accept = format!(
        "`{UPDATE}=1 cargo test --release -p stagecraft-core --test {}` rewrites it",
        harness_name()
    );
    let expected = match expected {
        Ok(text) => text,
        Err(_) => {
            return Err(format!(
            "{expectation} does not exist; {accept} (then review it as a new file in `git diff`)"
        )
            .into())
        }
    };
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "{expectation} differs from the output (- expected, + actual); if the change is right, \
         {accept}, and review it in `git diff`\n{}",
        diff(&expected, actual, expectation)
    )
    .into())
}

fn harness_name() -> String {
    std::env::args()
        .next()
        .and_then(|a| {
            let name = Path::new(&a).file_stem()?.to_string_lossy().to_string();
            // Cargo names test binaries `NAME-HASH`.
            Some(
                name.rsplit_once('-')
                    .map_or(name.clone(), |(n, _)| n.to_string()),
            )
        })
        .unwrap_or_else(|| "golden".into())
}

/// A unified diff with three lines of context, cut after `MAX_DIFF_LINES` lines.
pub fn diff(expected: &str, actual: &str, name: &str) -> String {
    let text = TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{name} (expected)"), &format!("{name} (actual)"))
        .to_string();
    let total = text.lines().count();
    if total <= MAX_DIFF_LINES {
        return text;
    }
    let mut cut: String = text
        .lines()
        .take(MAX_DIFF_LINES)
        .flat_map(|l| [l, "\n"])
        .collect();
    cut.push_str(&format!(
        "… {} more diff lines (rewrite with {UPDATE}=1 and read `git diff`)\n",
        total - MAX_DIFF_LINES
    ));
    cut
}

/// An exploration as the golden files hold it: diagnostics, notes, buffers, groups, waits with
/// their arithmetic, the verification, the rolled and peeled programs.
pub fn render(name: &str, source: &str, ex: &Exploration) -> String {
    let mut out = String::new();
    for d in &ex.diagnostics {
        out.push_str(&d.render(name, source));
    }
    for n in &ex.notes {
        writeln!(out, "note: {n}").unwrap();
    }
    for b in ex.buffers.iter().filter(|b| b.declared) {
        writeln!(
            out,
            "buffer {} ({}): {}{}",
            b.name,
            b.scope.name(),
            stagecraft::english::count(b.versions, "version"),
            b.reason
                .as_ref()
                .map_or(String::new(), |r| format!(" — {r}"))
        )
        .unwrap();
    }
    for g in &ex.groups {
        writeln!(
            out,
            "group queue {} slot {}: units {:?}",
            g.queue, g.slot, g.units
        )
        .unwrap();
    }
    for w in &ex.waits {
        let counts: Vec<String> = w
            .instances
            .iter()
            .map(|i| match i.step {
                Some(t) => format!("step {t}: {}", i.count),
                None => format!("every step: {}", i.count),
            })
            .collect();
        writeln!(
            out,
            "wait #{} queue {} in {} before {:?}: {}",
            w.id,
            w.queue,
            w.section.name(),
            w.before,
            counts.join(", ")
        )
        .unwrap();
        for i in &w.instances {
            writeln!(out, "    {}", i.arithmetic).unwrap();
        }
    }
    if let Some(v) = &ex.verification {
        writeln!(out, "verification: {}", v.summary).unwrap();
        for w in &v.waits {
            writeln!(
                out,
                "    wait #{:?} (queue {}): {:?}",
                w.id, w.queue, w.judgement
            )
            .unwrap();
        }
        for r in &v.races {
            writeln!(out, "    race: {}", r.message).unwrap();
        }
    }
    if let Some(r) = &ex.rolled {
        out.push_str("--- rolled\n");
        out.push_str(&r.text);
    }
    if let Some(p) = &ex.peeled {
        out.push_str("--- peeled\n");
        out.push_str(&p.text);
    }
    out
}

/// `message` without what it quotes of a text (`…`) or its line numbers: the same problem read
/// from two texts (a PrimFunc and its twin, a loop and its export) quotes `T.float32(2)` in one and
/// `2.0` in the other.
pub fn unquoted(message: &str) -> String {
    let mut out = String::new();
    for (k, part) in message.split('`').enumerate() {
        if k % 2 == 1 {
            out.push_str("`…`");
            continue;
        }
        let mut rest = part;
        while let Some(at) = rest.find("(line ") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 6..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            out.push_str("(line …");
            rest = &after[digits..];
        }
        out.push_str(rest);
    }
    out
}

/// `render` with each diagnostic as its severity, message and hint only, and what messages quote
/// of the text left out (`unquoted`): a dialect's text and its loop-language twin are different
/// texts that must say the same. Notes only `with_notes`.
pub fn unlocated(ex: &Exploration, with_notes: bool) -> String {
    let mut out = String::new();
    for d in &ex.diagnostics {
        if !with_notes && d.severity == stagecraft::diagnostic::Severity::Note {
            continue;
        }
        let _ = writeln!(out, "{:?}: {}", d.severity, d.message);
        if let Some(h) = &d.hint {
            let _ = writeln!(out, "    hint: {h}");
        }
    }
    let rest = Exploration {
        diagnostics: Vec::new(),
        ..ex.clone()
    };
    out.push_str(&render("", "", &rest));
    unquoted(&out)
}
