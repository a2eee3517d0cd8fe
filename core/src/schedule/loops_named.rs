//! The loop each annotation names: `sch.annotate(j, …)` where no loop is over `j` (a typo, or the
//! extent's name) would leave the loop it was meant for unannotated, which reads as a schedule
//! silently dropped, so it is an error on the name, naming the loops there are.

use crate::diagnostic::Diagnostic;
use crate::ir::Program;
use crate::lower::Annotation;

/// An error for each annotation of `annotations` that names no loop of `program`.
pub fn annotations_of_no_loop(program: &Program, annotations: &[Annotation]) -> Vec<Diagnostic> {
    let loops = program.loop_names();
    annotations
        .iter()
        .filter(|a| !loops.contains(&a.var.as_str()))
        .map(|a| {
            let hint = match loops.as_slice() {
                [] => "there is no loop to annotate: write the loop first (`for i in range(8):`)"
                    .to_string(),
                [one] => format!("the loop is over `{one}`: write sch.annotate({one}, …)"),
                many => format!(
                    "the loops are over {}; the first argument is the variable of the loop annotated",
                    many.iter()
                        .map(|l| format!("`{l}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            Diagnostic::error(
                a.var_span,
                format!(
                    "this annotation names `{}`, but no loop is over `{}`",
                    a.var, a.var
                ),
            )
            .with_hint(hint)
        })
        .collect()
}
