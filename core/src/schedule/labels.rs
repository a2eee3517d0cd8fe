//! How messages name a unit of the loop: a short quote of its text and its line
//! (`` `text` (line N)``), written once for all units when a message first needs one.

use super::Unit;
use crate::diagnostic::Span;

/// Labels of `units` (in source order), counting lines as they go.
pub(super) fn labels(source: &str, units: &[Unit]) -> Vec<String> {
    let mut lines = LineCursor {
        source,
        offset: 0,
        line: 1,
    };
    units
        .iter()
        .map(|u| match u.inner {
            // A section of an inner loop pipelined first is of the loop: named by its header.
            Some((section, inner_loop)) => format!(
                "the {} of {}",
                section.name(),
                quote_line(source, inner_loop, lines.line_of(inner_loop.start as usize))
            ),
            None => quote(source, u.span, lines.line_of(u.span.start as usize)),
        })
        .collect()
}

/// `` `text` (line N)``: how messages name a statement.
/// The line is the caller's: quoting many spans in source order, it counts lines as it goes
/// (`LineCursor`) instead of from the start of the text each time.
/// A unit that is a loop nest or a block (`for j in range(32):`, TVMScript's `with T.block():`)
/// is named by its first assignment to an element, which says what it does.
fn quote(source: &str, span: Span, line: usize) -> String {
    let text = source
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    let mut lines = text.lines();
    let header = lines.next().unwrap_or("").trim();
    let (first, line) = if header.ends_with(':') {
        lines
            .enumerate()
            .map(|(k, l)| (l.trim(), line + k + 1))
            .find(|(l, _)| assigns_an_element(l))
            .unwrap_or((header, line))
    } else {
        (header, line)
    };
    quoted(first, line)
}

/// `` `first line` (line N)`` of `span`, whatever it is.
fn quote_line(source: &str, span: Span, line: usize) -> String {
    let text = source
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    quoted(text.lines().next().unwrap_or("").trim(), line)
}

/// `` `text` (line N)``, the text cut at 48 characters.
fn quoted(first: &str, line: usize) -> String {
    // At most 48 characters, cut at a character boundary (48 bytes are at most 48 characters).
    let cut = if first.len() <= 48 {
        first.len()
    } else {
        first.char_indices().nth(48).map_or(first.len(), |(i, _)| i)
    };
    let short = first.get(..cut).unwrap_or(first);
    let mut out = String::with_capacity(short.len() + 20);
    out.push('`');
    out.push_str(short);
    if cut < first.len() {
        out.push('…');
    }
    out.push_str("` (line ");
    push_decimal(&mut out, line);
    out.push(')');
    out
}

/// `X[…] = …` (or `+=` and the like): a statement, not a loop header, a block's `T.reads` or
/// an axis binding.
fn assigns_an_element(line: &str) -> bool {
    let Some((target, _)) = line.split_once('=') else {
        return false;
    };
    let target = target.trim_end_matches(['+', '-', '*', '/', '%', '&', '|', '^', '<', '>']);
    !line.ends_with(':') && target.trim_end().ends_with(']') && !target.contains('(')
}

/// `` `text` (line N)`` of one span, its line counted from the start of the text.
pub(super) fn quote_span(source: &str, span: Span) -> String {
    let line = LineCursor {
        source,
        offset: 0,
        line: 1,
    }
    .line_of(span.start as usize);
    quote(source, span, line)
}

/// Line numbers of offsets visited in increasing order, each counted from the previous one.
struct LineCursor<'s> {
    source: &'s str,
    offset: usize,
    line: usize,
}

impl LineCursor<'_> {
    fn line_of(&mut self, offset: usize) -> usize {
        if offset < self.offset {
            // Out of order (never for a loop body): count from the start.
            self.offset = 0;
            self.line = 1;
        }
        let between = self.source.get(self.offset..offset).unwrap_or("");
        self.line += between.bytes().filter(|&b| b == b'\n').count();
        self.offset = offset.max(self.offset);
        self.line
    }
}

/// `n` in decimal, without the formatting machinery (`write!` was a tenth of scheduling a small
/// loop when every transform labelled every statement; explanations still label them all).
fn push_decimal(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    let mut k = digits.len();
    let mut n = n;
    loop {
        k -= 1;
        if let Some(d) = digits.get_mut(k) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || k == 0 {
            break;
        }
    }
    for &d in digits.get(k..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// The labels of `units`, written into `names` on first use.
pub(super) fn unit_labels<'c>(
    names: &'c std::sync::OnceLock<Vec<String>>,
    source: &str,
    units: &[Unit],
) -> &'c [String] {
    names.get_or_init(|| labels(source, units))
}

pub(super) fn label_of(labels: &[String], pos: usize) -> &str {
    labels.get(pos).map_or("", String::as_str)
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Span;

    #[test]
    fn a_loop_nest_or_a_block_is_named_by_its_first_assignment() {
        let text = "for j in range(32):\n    B[j] = A[i, j]\n";
        let span = Span::new(0, text.len());
        assert_eq!(super::quote(text, span, 3), "`B[j] = A[i, j]` (line 4)");
        let block = "with T.block():\n    T.reads(A[i])\n    vi = T.axis.spatial(16, i)\n    C[vi] += B[0]\n";
        let span = Span::new(0, block.len());
        assert_eq!(super::quote(block, span, 1), "`C[vi] += B[0]` (line 4)");
        let plain = "C[i] = B[0] + 1\n";
        assert_eq!(
            super::quote(plain, Span::new(0, 15), 7),
            "`C[i] = B[0] + 1` (line 7)"
        );
    }

    #[test]
    fn decimal_digits() {
        for n in [0, 7, 10, 99, 12345, usize::MAX] {
            let mut s = String::from("x");
            super::push_decimal(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }
}
