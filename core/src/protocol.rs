//! What the page asks of the core and what comes back: the messages between the page and the
//! worker that runs the core (docs/json.md, "The worker's messages"). A request carries an id, which
//! each answer repeats; the page keeps the newest id and drops every other answer. The worker answers
//! an exploration first and then each part asked for, one message each, so that the first pane
//! paints as soon as its part exists (`session::Session` does the answering).
//!
//! Messages travel as postcard's bytes, both ways (`wire` says how the types whose JSON needs a
//! self-describing format are written): the page's readers of them are a sequence of each field's
//! reader, which keeps the page's wasm small, and an answer's bytes move to the page without a
//! copy.

use crate::emit::Target;
use crate::explore::{Exploration, Listing, Options};
use crate::pipelined::Form;
use crate::steps::{StepFrame, StepOptions};
use crate::timeline::Timeline;
use crate::tvm::TvmView;
use crate::verify::Verification;
use serde::{Deserialize, Serialize};

/// One request from the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    pub job: Job,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Job {
    /// Explore `text` (a new program: whatever older work is left is dropped), then compute
    /// `wants` in their order.
    Explore {
        text: String,
        options: Box<Options>,
        wants: Vec<Want>,
    },
    /// More parts of the exploration made for this request's id, ahead of those still queued.
    More { wants: Vec<Want> },
    /// Searches the schedules of `text`'s loop (`search`), in slices between other work: the
    /// answers (`Answer::Searching`, this request's id) carry the front so far, the last one its
    /// stop reason. A newer search, `CancelSearch` or an exploration of another text stops it.
    Search {
        text: String,
        options: Box<crate::search::SearchOptions>,
        /// The width the scatter plot is drawn to, in pixels.
        scatter_px: u32,
    },
    /// Stops the search under way: its last answer says it was cancelled.
    CancelSearch,
    /// Explores `text` aside, beside the exploration shown (which it neither replaces nor
    /// delays): its program and timeline, not its verification, drawn for the Search pane (its
    /// timeline `width` pixels wide) as `Answer::Previewed`, this request's id. Only the newest
    /// few previews asked are kept.
    Preview {
        text: String,
        options: Box<Options>,
        width: u32,
    },
    /// Makes the worker stop with a trap, as a bug would: what the page's tests use to check that
    /// a trap loses nothing. The core never acts on it; the worker does.
    Trap,
    /// Drops the exploration asked and the parts still to compute, at the next boundary between
    /// units of work, and answers nothing: the page sends it for a keystroke into a text whose
    /// exploration is slow, and asks for the exploration once typing pauses, so that the worker
    /// does not hold a core on texts already typed over. A search and previews go on.
    Pause,
}

/// A part of an exploration computed after it, on its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Want {
    /// The interpreter's runs of the loop and the pipelined program, the waits judged.
    Verification,
    /// The cost model's simulation.
    Timeline,
    /// The kernel emitted for a target, drawn for the Code pane with its text to copy
    /// (`explore::kernel_listing`).
    Code { target: Target },
    /// The machine-level check of that kernel (emitted first if it was not): the kernel drawn
    /// again with the check's report above it and the lines it points at marked
    /// (`explore::kernel_html`).
    Machine { target: Target },
    /// The pipelined program in token form, drawn (`tokens::tokens_html`).
    Tokens { form: Form },
    /// The step-through of the pipelined program at `position`, drawn (the worker keeps the
    /// trace: moving along it asks for another position).
    Steps {
        options: StepOptions,
        position: usize,
    },
    /// The program TVM 0.27's pass makes of the text, verified (reproduced in core), drawn
    /// (`tvm::tvm_view`).
    Tvm,
    /// A pipelined program written by hand, checked against the loop, drawn
    /// (`explore::check_html`).
    Check { pipelined: String },
    /// The loop as a TVMScript PrimFunc, drawn with its text to copy (`explore::tvmscript_listing`).
    TvmScript,
    /// Why each wait of the pipelined program has its count (`sync::WaitSite::why`).
    Whys,
    /// The `pinned` text (explored aside, with its timeline) beside this exploration, drawn
    /// (`search_picture::Comparison`), the timelines `width` pixels wide.
    Compare { pinned: String, width: u32 },
}

impl Want {
    /// Whether asking for `self` makes `other`, still queued, needless: the same part, or the
    /// step-through at another position (moving along a trace asks for each position in turn,
    /// and only the newest is shown).
    pub fn replaces(&self, other: &Want) -> bool {
        match (self, other) {
            (Want::Steps { options: a, .. }, Want::Steps { options: b, .. }) => a == b,
            // Only the comparison with the text pinned now, at the width now, is shown.
            (Want::Compare { .. }, Want::Compare { .. }) => true,
            _ => self == other,
        }
    }

    /// Whether the part is computed from the pipelined program (else from the text alone: TVM's
    /// program, a pasted program's check and the TVMScript export exist whether or not Stagecraft
    /// accepts the schedule).
    pub fn needs_program(&self) -> bool {
        !matches!(self, Want::Tvm | Want::Check { .. } | Want::TvmScript)
    }

    /// What computing it is, as a sentence's object: "computing the verification".
    pub fn describe(&self) -> String {
        match self {
            Want::Verification => "the verification".into(),
            Want::Timeline => "the timeline".into(),
            Want::Code { target } => format!("the {} kernel", target.name()),
            Want::Machine { target } => {
                format!("the machine-level check of the {} kernel", target.name())
            }
            Want::Tokens { .. } => "the token form".into(),
            Want::Steps { .. } => "the step-through".into(),
            Want::Tvm => "TVM 0.27's program".into(),
            Want::Check { .. } => "the check of the pasted program".into(),
            Want::TvmScript => "the TVMScript export".into(),
            Want::Whys => "why each wait has its count".into(),
            Want::Compare { .. } => "the comparison with the pinned schedule".into(),
        }
    }
}

/// One answer from the worker, to the request `id`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response {
    pub id: u64,
    pub answer: Answer,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// The exploration (made with `Options::defer_runs`: its verification and timeline come as
    /// parts), the Pipelined program pane's view of its program in the form asked
    /// (`explore::program_pane_html`), and the milliseconds exploring took.
    Explored {
        exploration: Box<Exploration>,
        program: String,
        ms: f64,
    },
    /// A part asked for, and the milliseconds it took.
    Part { part: Box<Part>, ms: f64 },
    /// A search's progress, drawn: what it has found so far (its `stop` set on the last
    /// answer), or why the text cannot be searched; the milliseconds its slice took.
    Searching {
        view: Result<Box<crate::search_picture::SearchView>, String>,
        ms: f64,
    },
    /// A preview (`Job::Preview`): the text explored aside, drawn with its timeline and program
    /// (`search_picture::preview_html`), and the milliseconds it took.
    Previewed {
        text: String,
        markup: String,
        ms: f64,
    },
    /// Every part asked for so far has been answered.
    Idle,
    /// The worker stopped on a bug while computing `doing`: this is the last it says before it
    /// traps. The page restarts it.
    Stopped { doing: String, message: String },
}

/// A part computed, with what it was asked for with (the page matches it to what it shows).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// `None`: nothing to verify (no program, or verifying is off).
    Verification {
        verification: Option<Verification>,
    },
    Timeline {
        timeline: Option<Timeline>,
    },
    /// `None`: no kernel for the target (no program).
    Code {
        target: Target,
        listing: Option<Listing>,
    },
    /// `None`: the kernel could not be checked (no kernel, or one that says why it is not).
    Machine {
        target: Target,
        markup: Option<String>,
    },
    /// The token view's markup; `None`: no program to write in token form.
    Tokens {
        form: Form,
        view: Option<String>,
    },
    Steps {
        options: StepOptions,
        position: usize,
        frame: StepFrame,
    },
    Tvm {
        view: TvmView,
    },
    /// The check view's markup.
    Check {
        pipelined: String,
        view: String,
    },
    /// The PrimFunc, or why the loop has none (then nothing to copy).
    TvmScript {
        listing: Listing,
    },
    /// Each wait site's "why", in the order of the exploration's sites.
    Whys {
        whys: Vec<crate::sync::WaitWhy>,
    },
    Compare {
        pinned: String,
        width: u32,
        comparison: crate::search_picture::Comparison,
    },
}

/// A request as the page sends it.
pub fn encode_request(request: &Request) -> Vec<u8> {
    encode(request)
}

/// A request as the worker reads it: a message it cannot read is an error it answers with.
pub fn decode_request(bytes: &[u8]) -> Result<Request, String> {
    decode(bytes).map_err(|e| format!("the worker could not read a request: {e}"))
}

/// An answer as the worker sends it: bytes, which move to the page without a copy.
pub fn encode_response(response: &Response) -> Vec<u8> {
    encode(response)
}

/// An answer as the page reads it.
pub fn decode_response(bytes: &[u8]) -> Result<Response, String> {
    decode(bytes).map_err(|e| format!("the page could not read the worker's answer: {e}"))
}

/// The id of an encoded answer, read from its first bytes (the id is written first): the page
/// drops an answer to a request it has moved on from without decoding the rest.
pub fn response_id(bytes: &[u8]) -> Option<u64> {
    postcard::take_from_bytes::<u64>(bytes)
        .ok()
        .map(|(id, _)| id)
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Encoding into a growing buffer cannot fail: every sequence and map knows its length.
    crate::wire::compact(|| postcard::to_allocvec(value)).unwrap_or_default()
}

/// Reads one whole message: bytes left over mean it was not the message it claims to be.
fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, postcard::Error> {
    match postcard::take_from_bytes(bytes)? {
        (value, []) => Ok(value),
        _ => Err(postcard::Error::DeserializeBadEncoding),
    }
}

/// What the page is sent of an exploration and its parts: what it shows. The programs stay in
/// the worker, the page lexes its text itself, and the interpreter's events are not shown. Of the derivation of the
/// waits the page is sent each site alone, not its instances: what it shows of them, each site's
/// "why", comes as a part of its own (`Want::Whys`) — a long prologue repeats a site once per step,
/// and the instances with their explanations and the needs they cover made a large loop's
/// exploration several times the size of the rest, all of it decoded on the page's thread before
/// its program could be drawn.
pub fn for_the_page(response: &mut Response) {
    match &mut response.answer {
        Answer::Explored { exploration, .. } => {
            exploration.programs = None;
            exploration.tokens = Vec::new();
            exploration.needs = Vec::new();
            for site in &mut exploration.waits {
                *site = site_for_the_page(site);
            }
        }
        Answer::Part { part, .. } => {
            if let Part::Verification {
                verification: Some(v),
            } = &mut **part
            {
                v.trace = Vec::new();
            }
        }
        Answer::Idle
        | Answer::Stopped { .. }
        | Answer::Searching { .. }
        | Answer::Previewed { .. } => {}
    }
}

/// A wait site as the page is sent it (`for_the_page`): which it is, not its instances.
pub fn site_for_the_page(site: &crate::sync::WaitSite) -> crate::sync::WaitSite {
    crate::sync::WaitSite {
        instances: Vec::new(),
        summary: String::new(),
        ..site.clone()
    }
}
