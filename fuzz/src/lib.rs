//! What the fuzz targets check of every reader's answer, in one place: each diagnostic (and each
//! place it points to besides) lies inside the text it was read from, on character boundaries, so
//! the page can underline it and quote it.

use stagecraft::diagnostic::{Diagnostic, Span};

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
