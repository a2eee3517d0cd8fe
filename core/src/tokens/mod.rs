//! Tokens: the pipelined program's synchronization written XLA-style (seed 004) instead of with
//! counts (RFC 0077), and the translation between the two (the RFC review, seed 001).
//!
//! Every commit group is a token: the group a `with async_commit_queue(q):` commits is token
//! `qQ[n]`, the `n`-th group committed to queue `q` (from 0), and the line reads
//! `with async_start(q) as qQ[n]:`. Every wait names the tokens it completes that no earlier wait
//! completed: `with async_done(qQ[a], qQ[b]):`. The two forms translate exactly:
//!
//! ```text
//! count = tokens of the queue committed after the newest one awaited
//!       = committed − 1 − newest
//! ```
//!
//! In a loop, `n` and the awaited tokens are expressions of the loop variable (`q0[2 * i + 1]`),
//! found by running the program's structure (as `tvm::trace` does) and fitting each site's values
//! with one linear expression. A wait that completes no new token, or whose tokens cannot be
//! written as one expression per position, keeps its count form; both forms may be mixed.
//!
//! Checking a program written in token form (`from_tokens`) translates it back to counts and
//! reports, located: a token awaited twice, a token never awaited (but one of a group in which no
//! statement ran: it has nothing to land), a token awaited before it
//! starts, an `async_start` whose name is not the group it commits, and an `async_done` whose
//! counts are not one expression of the loop variable.

use crate::ir::VarId;
use serde::{Deserialize, Serialize};

mod check;
mod fit;
mod notation;
mod read;
mod sites;
mod view;
mod walk;
mod write;

pub use read::{from_tokens, is_token_form, FromTokens};
pub use view::tokens_html;
pub use write::to_tokens;

/// The token form of a program, with the translation of each wait.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TokenForm {
    pub text: String,
    /// One per wait of the program, in text order.
    pub waits: Vec<WaitTranslation>,
}

/// How one wait reads in both forms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitTranslation {
    /// 1-based line in `TokenForm::text`.
    pub line: usize,
    pub queue: i64,
    /// The count form's count, as printed (`5`, `36 - 2 * i`).
    pub count: String,
    /// The tokens it completes, as printed (`q0[2 * i - 5]`); empty when it keeps the count form.
    pub tokens: Vec<String>,
    /// Why it keeps the count form, when it does.
    pub kept_count: Option<String>,
}

/// Values a site takes, with the loop variables around it at each instance.
#[derive(Default)]
struct Samples {
    envs: Vec<Vec<(VarId, i64)>>,
}

/// Instances beyond this are not run (the token view of a huge loop keeps its count form).
const MAX_STEPS: u64 = 2_000_000;
