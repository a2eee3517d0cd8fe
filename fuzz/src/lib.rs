//! What the fuzz targets check of every reader's answer, in one place: each diagnostic (and each
//! place it points to besides) lies inside the text it was read from, on character boundaries, so
//! the page can underline it and quote it; and a dialect read into the loop language has a twin
//! that means the same.

use stagecraft::diagnostic::{Diagnostic, Span};
use stagecraft::explore::{transform, Exploration, Options};

/// `span` lies inside `text`, from a character boundary to one at or after it.
pub fn assert_span_in(span: Span, text: &str, what: &str) {
    let (start, end) = (span.start as usize, span.end as usize);
    assert!(
        start <= end && end <= text.len(),
        "{what}: span {start}..{end} outside a text of {} bytes",
        text.len()
    );
    assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "{what}: span {start}..{end} splits a character"
    );
}

/// Every diagnostic of `diagnostics`, and every place it relates, lies inside `text`; and each
/// says something.
pub fn assert_located(diagnostics: &[Diagnostic], text: &str, what: &str) {
    for d in diagnostics {
        assert!(
            !d.message.is_empty(),
            "{what}: a diagnostic without a message"
        );
        assert_span_in(d.span, text, &format!("{what}: “{}”", d.message));
        for r in &d.related {
            assert_span_in(r.span, text, &format!("{what}: related to “{}”", d.message));
        }
    }
}

/// `text` read as `dialect` and its names resolved, every diagnostic of both located inside it
/// (`what`: the reader's name); the syntax tree when neither found an error.
pub fn read_dialect(
    text: &str,
    dialect: stagecraft::tvmscript::Dialect,
    what: &str,
) -> Option<stagecraft::syntax::File> {
    let (parsed, read_as, _) = stagecraft::tvmscript::parse_with_scopes(text);
    assert_eq!(read_as, dialect);
    assert_located(&parsed.diagnostics, text, what);
    let lowered = stagecraft::lower::lower(&parsed.file);
    assert_located(&lowered.diagnostics, text, "name resolution");
    let failed = parsed
        .diagnostics
        .iter()
        .chain(&lowered.diagnostics)
        .any(Diagnostic::is_error);
    (!failed).then_some(parsed.file)
}

/// `file`, read without an error from `text` (a TVMScript PrimFunc or a TileLang kernel, `what`),
/// printed in the loop language is its twin: the twin parses back cleanly to itself, and it is
/// accepted, pipelined and refused exactly as `text` is.
pub fn assert_twin(file: &stagecraft::syntax::File, text: &str, what: &str) {
    let twin = stagecraft::printer::print_file(file);
    let reparsed = stagecraft::parser::parse(&twin);
    assert!(
        reparsed.diagnostics.is_empty(),
        "the twin of\n{text}\ndoes not parse back:\n{twin}\n{:?}",
        reparsed.diagnostics
    );
    assert_eq!(
        stagecraft::printer::print_file(&reparsed.file),
        twin,
        "the twin does not print back to itself"
    );
    let options = Options {
        verify: false,
        timeline: false,
        targets: Vec::new(),
        ..Options::default()
    };
    let (a, b) = (transform(text, &options), transform(&twin, &options));
    assert_eq!(
        a.ok, b.ok,
        "the {what} and its twin\n{twin}\nare accepted differently"
    );
    assert_eq!(
        pipelined(&a),
        pipelined(&b),
        "the {what} and its twin\n{twin}\npipeline differently"
    );
    assert_eq!(
        errors(&a),
        errors(&b),
        "the {what} and its twin\n{twin}\nhave different errors"
    );
}

/// The pipelined program of an exploration, printed.
pub fn pipelined(ex: &Exploration) -> Option<String> {
    ex.programs
        .as_ref()
        .and_then(|p| p.pipelined())
        .map(|p| stagecraft::tir::print(p).text)
}

/// How many errors an exploration reports.
pub fn errors(ex: &Exploration) -> usize {
    ex.diagnostics.iter().filter(|d| d.is_error()).count()
}
