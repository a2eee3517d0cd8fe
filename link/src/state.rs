//! What the explorer shows, as values: the text is the one source of truth, the rest says how it is
//! looked at. Names of panes and code targets are those links carry (`name` / `parse`).

use crate::presets;
use stagecraft::emit::Target;
use stagecraft::explore::CountOverride;
use stagecraft::pipelined::Form;
use stagecraft::steps::CompletionModel;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub text: String,
    /// The printed form of the pipelined program.
    pub form: Form,
    /// The pane shown.
    pub pane: Pane,
    /// Values of symbolic extents.
    pub params: BTreeMap<String, i64>,
    /// Timeline zoom (pixels per 100 cycles).
    pub zoom: u32,
    /// What the Code pane shows.
    pub target: CodeTarget,
    /// The step-through's position: steps taken from the start (a link opens at the same instant).
    pub step: u64,
    /// When the step-through's groups complete: as late as possible, or as the timeline times them.
    pub completion: CompletionModel,
    /// The lesson open (`stagecraft::lessons`, by id), so a shared link opens it.
    pub lesson: Option<String>,
    /// Wait counts moved by hand from the derived ones (`explore::Options::count_overrides`).
    pub counts: Vec<CountOverride>,
    /// Which program the Pipelined program pane shows: Stagecraft's, in token form, TVM's, or one
    /// pasted to be checked.
    pub view: ProgramView,
    /// The pipelined program pasted to be checked against the loop (`ProgramView::Check`).
    pub pipelined: String,
    /// The text pinned for comparison ("Pin" in the Search pane): its schedule is shown beside
    /// the current one's. Written only when set, so every link before it reads as before.
    pub pinned: Option<String>,
}

impl Default for State {
    fn default() -> Self {
        State {
            text: presets::DEFAULT.to_string(),
            form: Form::Rolled,
            pane: Pane::Program,
            params: BTreeMap::new(),
            zoom: 10,
            target: CodeTarget::Tir,
            step: 0,
            completion: CompletionModel::Latest,
            lesson: None,
            counts: Vec::new(),
            view: ProgramView::Stagecraft,
            pipelined: String::new(),
            pinned: None,
        }
    }
}

/// The panes of the explorer, in the order of their tabs. The app's pane registry gives each its
/// label and its view; this is only what a link names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Pane {
    #[default]
    Program,
    Verification,
    Timeline,
    Space,
    Code,
    Steps,
    Search,
}

impl Pane {
    /// Each pane with the name a link gives it.
    const NAMES: [(Pane, &'static str); 7] = [
        (Pane::Program, "program"),
        (Pane::Verification, "verification"),
        (Pane::Timeline, "timeline"),
        (Pane::Space, "space"),
        (Pane::Code, "code"),
        (Pane::Steps, "steps"),
        (Pane::Search, "search"),
    ];

    pub const COUNT: usize = Pane::NAMES.len();

    pub fn all() -> impl Iterator<Item = Pane> {
        Pane::NAMES.into_iter().map(|(p, _)| p)
    }

    /// The pane's name in links and in the page's ids (`tab-{name}`, `pane-{name}`).
    pub fn name(self) -> &'static str {
        Pane::NAMES
            .into_iter()
            .find(|(p, _)| *p == self)
            .map_or("program", |(_, n)| n)
    }

    pub fn parse(name: &str) -> Option<Pane> {
        Pane::NAMES
            .into_iter()
            .find(|(_, n)| *n == name)
            .map(|(p, _)| p)
    }

    /// Its position among the panes (`0..COUNT`).
    pub fn index(self) -> usize {
        Pane::NAMES
            .iter()
            .position(|(p, _)| *p == self)
            .unwrap_or(0)
    }
}

/// Which program the Pipelined program pane shows. A link carries it: an argument about a schedule
/// in review is as often about TVM's output as about Stagecraft's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ProgramView {
    /// Stagecraft's pipelined program, with counts (`wait(q, N)`).
    #[default]
    Stagecraft,
    /// The same program with each commit group a token and each wait the tokens it completes.
    Tokens,
    /// The program TVM 0.27's `InjectSoftwarePipeline` makes of the schedule, verified.
    Tvm,
    /// A pipelined program written by hand or by another tool (count form, token form or TVM's
    /// printed output), checked against the loop.
    Check,
}

impl ProgramView {
    const NAMES: [(ProgramView, &'static str, &'static str); 4] = [
        (ProgramView::Stagecraft, "stagecraft", "Stagecraft"),
        (ProgramView::Tokens, "tokens", "Tokens"),
        (ProgramView::Tvm, "tvm-0.27", "TVM 0.27"),
        (ProgramView::Check, "check", "Check a pipelined program"),
    ];

    pub fn all() -> impl Iterator<Item = ProgramView> {
        ProgramView::NAMES.into_iter().map(|(v, _, _)| v)
    }

    /// The view's name in links.
    pub fn name(self) -> &'static str {
        ProgramView::NAMES
            .into_iter()
            .find(|(v, _, _)| *v == self)
            .map_or("stagecraft", |(_, n, _)| n)
    }

    /// What its button says.
    pub fn label(self) -> &'static str {
        ProgramView::NAMES
            .into_iter()
            .find(|(v, _, _)| *v == self)
            .map_or("Stagecraft", |(_, _, l)| l)
    }

    /// A name this build does not know shows Stagecraft's program.
    pub fn parse(name: &str) -> ProgramView {
        ProgramView::NAMES
            .into_iter()
            .find(|(_, n, _)| *n == name)
            .map_or(ProgramView::Stagecraft, |(v, _, _)| v)
    }
}

/// What the Code pane shows: the printed program, or machine code for one of core's targets.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum CodeTarget {
    /// The printed program (TVM's Python form), in the form shown.
    #[default]
    Tir,
    /// The loop itself as a TVMScript PrimFunc that TVM 0.27 parses and pipelines (the export).
    TvmScript,
    Machine(Target),
    /// A target named by a link of another version of Stagecraft, which this build does not emit:
    /// kept as written, so that the pane can say so and the link survives being shared again.
    Unavailable(String),
}

impl CodeTarget {
    const TIR: &'static str = "tir";
    const TVMSCRIPT: &'static str = "tvmscript";

    /// Every target this build shows, in the order offered.
    pub fn all() -> impl Iterator<Item = CodeTarget> {
        [CodeTarget::Tir, CodeTarget::TvmScript]
            .into_iter()
            .chain(Target::ALL.into_iter().map(CodeTarget::Machine))
    }

    pub fn name(&self) -> &str {
        match self {
            CodeTarget::Tir => CodeTarget::TIR,
            CodeTarget::TvmScript => CodeTarget::TVMSCRIPT,
            CodeTarget::Machine(t) => t.name(),
            CodeTarget::Unavailable(name) => name,
        }
    }

    /// Any name reads: one this build does not know is `Unavailable`.
    pub fn parse(name: &str) -> CodeTarget {
        match name {
            CodeTarget::TIR => return CodeTarget::Tir,
            CodeTarget::TVMSCRIPT => return CodeTarget::TvmScript,
            _ => {}
        }
        Target::parse(name).map_or_else(
            || CodeTarget::Unavailable(name.to_string()),
            CodeTarget::Machine,
        )
    }

    /// The machine target, if it is one.
    pub fn machine(&self) -> Option<Target> {
        match self {
            CodeTarget::Machine(t) => Some(*t),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_as_what_they_name() {
        for p in Pane::all() {
            assert_eq!(Pane::parse(p.name()), Some(p));
            assert_eq!(Pane::all().nth(p.index()), Some(p));
        }
        assert_eq!(Pane::all().count(), Pane::COUNT);
        assert_eq!(Pane::parse("stepping"), None);
        for t in CodeTarget::all() {
            assert_eq!(CodeTarget::parse(t.name()), t);
        }
        assert_eq!(CodeTarget::parse("amdgpu").machine(), Some(Target::Amdgpu));
        let later = CodeTarget::parse("ptx-sm100");
        assert_eq!(later, CodeTarget::Unavailable("ptx-sm100".into()));
        assert_eq!(later.name(), "ptx-sm100");
        for v in ProgramView::all() {
            assert_eq!(ProgramView::parse(v.name()), v);
        }
        assert_eq!(ProgramView::parse("tvm-0.30"), ProgramView::Stagecraft);
    }
}
