//! What TVM's `InjectSoftwarePipeline` reads in a PrimFunc that the loop language does not say:
//! which loop's block allocates each buffer (the buffers a pipeline may version), which loops
//! bind threads, and which buffers a block's `double_buffer_scope` attribute names. `read.rs`
//! fills it in as it reads; `stagecraft::tvm` uses it (docs/tvm.md).

use crate::diagnostic::Span;
use crate::syntax::{ExprKind, Ident, Stmt, StmtKind};
use serde::{Deserialize, Serialize};

/// A `T.thread_binding` loop: its iterations are parallel threads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadBinding {
    /// The loop's variable, as the loop language names it.
    pub var: Ident,
    /// The thread index it binds (`threadIdx.x`).
    pub thread: String,
    /// The loop's variable and range in the text.
    pub span: Span,
}

/// Where a PrimFunc's blocks put what TVM's pass cares about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TvmScopes {
    /// Every allocation with the loop whose pipeline it belongs to: allocated in the block that
    /// is the loop's body, or in a block of several statements directly inside that one (TVM
    /// takes those blocks' statements into the pipeline). `None`: allocated anywhere else.
    pub allocations: Vec<(Ident, Option<Ident>)>,
    pub threads: Vec<ThreadBinding>,
    /// Buffers named by a block's `double_buffer_scope` attribute.
    pub double_buffers: Vec<Ident>,
    /// Each entry of a loop's `annotations={…}` (read as an `annotate` statement spanning the
    /// entry) and the dictionary it is written in: where an edit of the annotation goes.
    pub annotation_entries: Vec<AnnotationEntry>,
}

/// One `"key": value` of a loop's `annotations={…}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnnotationEntry {
    /// The entry, key to value.
    pub entry: Span,
    /// The dictionary, braces included.
    pub dict: Span,
}

/// A statement list being read: the loop whose pipeline an allocation met in it joins, and
/// whether it is a loop's own block.
#[derive(Clone, Debug, Default)]
pub(super) struct Level {
    pub(super) owner: Option<Ident>,
    pub(super) loop_block: bool,
}

impl Level {
    /// A block that is not a loop's own: its allocations are the pipeline's only when it stands
    /// directly in a loop's own block, with no `T.where` and several statements (TVM splices
    /// such a block's statements into the pipeline body).
    pub(super) fn child(parent: Option<&Level>, body: &[Stmt]) -> Level {
        let spliced = parent.is_some_and(|p| p.loop_block)
            && !body.iter().any(|s| is_call(s, "where"))
            && statements(body) >= 2;
        Level {
            owner: parent.filter(|_| spliced).and_then(|p| p.owner.clone()),
            loop_block: false,
        }
    }
}

/// `with T.block(…)` / `with T.sblock(…)`.
pub(super) fn is_block(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::With { item, .. } => matches!(
            &item.kind,
            ExprKind::Call { func, .. } if matches!(last_part(&func.text), "block" | "sblock")
        ),
        _ => false,
    }
}

fn last_part(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn is_call(s: &Stmt, name: &str) -> bool {
    matches!(&s.kind, StmtKind::Expr(e)
        if matches!(&e.kind, ExprKind::Call { func, .. } if last_part(&func.text) == name))
}

/// The statements of a block's body as TVM counts them: not its allocations, `T.reads`,
/// `T.writes`, `T.where` or attributes.
fn statements(body: &[Stmt]) -> usize {
    body.iter()
        .filter(|s| match &s.kind {
            StmtKind::For { .. } | StmtKind::With { .. } | StmtKind::If { .. } => true,
            StmtKind::Assign { target, .. } => !matches!(target.kind, ExprKind::Name(_)),
            StmtKind::Expr(_) => is_call(s, "evaluate"),
            StmtKind::Pass | StmtKind::Error => false,
        })
        .count()
}

/// The buffers a block writes, each once, in the order its statements first write them.
pub(super) fn written_buffers(block: &[Stmt]) -> Vec<Ident> {
    fn walk(stmts: &[Stmt], out: &mut Vec<Ident>) {
        for s in stmts {
            match &s.kind {
                StmtKind::Assign { target, .. } => {
                    if let ExprKind::Subscript { base, .. } = &target.kind {
                        if !out.contains(&base.text) {
                            out.push(base.text.clone());
                        }
                    }
                }
                StmtKind::For { body, .. } | StmtKind::With { body, .. } => walk(body, out),
                StmtKind::If { body, orelse, .. } => {
                    walk(body, out);
                    walk(orelse, out);
                }
                StmtKind::Expr(_) | StmtKind::Pass | StmtKind::Error => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(block, &mut out);
    out
}
