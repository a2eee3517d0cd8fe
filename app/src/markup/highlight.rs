//! HTML for the editor's highlighted overlay: tokens coloured by kind, diagnostics underlined at their
//! spans, statements marked for the focus style sheet. Pure functions, tested natively.

use crate::markup::html::Html;
use stagecraft::diagnostic::{Diagnostic, Severity};
use stagecraft::explore::StatementInfo;
use stagecraft::ir::StmtId;
use stagecraft::lexer::{Token, TokenKind};
use std::borrow::Cow;
use std::ops::Range;

fn class_of(kind: TokenKind) -> &'static str {
    match kind {
        TokenKind::Keyword => "tk-kw",
        TokenKind::Int | TokenKind::Float => "tk-num",
        TokenKind::Str => "tk-str",
        TokenKind::Comment => "tk-com",
        TokenKind::Op => "tk-op",
        TokenKind::Unknown => "tk-bad",
        // Names keep the text colour: a span each would be the overlay's most numerous element,
        // styled and laid out on every exploration for nothing.
        _ => "",
    }
}

/// Lines per chunk of the overlay. Off-screen chunks are not styled, laid out or painted
/// (`content-visibility` in style.css): the overlay of a 160-statement paste is thousands of spans.
const CHUNK_LINES: usize = 32;

/// The class of the overlay's chunks, and the `hidden` value of those away from view:
/// `until-found`, which the browser's find in page still reveals (they hold no form field,
/// `dom::Chunks`). `views::editor` shows the chunks near the view by these.
pub const CHUNK_CLASS: &str = "chunk";
pub const CHUNK_HIDDEN: &str = "until-found";

/// Where the overlay is scrolled and how much of it its box shows, in CSS pixels: what says which
/// chunks are near the view without reading any element's place (which would lay the page out).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OverlayView {
    pub scroll_top: f64,
    /// The box's height, padding included (its `clientHeight`).
    pub height: f64,
    /// One line's height (style.css: every line of the overlay is one, chunks sized exactly).
    pub line: f64,
    /// The padding above the first line.
    pub pad: f64,
}

/// The chunks of an overlay of `lines` lines that lie within one box height of what `view` shows
/// (as `dom::show_near` would find them by their geometry): every chunk but the last holds
/// `CHUNK_LINES` lines of `view.line` pixels. Only the first while the view is not known.
pub fn chunks_near(view: &OverlayView, lines: usize) -> Range<usize> {
    let count = lines.div_ceil(CHUNK_LINES).max(1);
    let chunk = view.line * CHUNK_LINES as f64;
    if !(chunk > 0.0 && view.height.is_finite() && view.scroll_top.is_finite()) {
        return 0..1;
    }
    let from = (view.scroll_top - view.height - view.pad) / chunk;
    let to = (view.scroll_top + 2.0 * view.height - view.pad) / chunk;
    let first = (from.floor().max(0.0) as usize).min(count - 1);
    let last = (to.floor().max(0.0) as usize).min(count - 1);
    first..last + 1
}

/// The editor overlay: every byte of `text` appears once, wrapped in spans, in chunks of
/// `CHUNK_LINES` lines. Each statement is wrapped in a span with its `st{id}` class so that hovering
/// a statement anywhere tints it here through the focus style sheet, without rebuilding the overlay.
/// The chunks of `shown` (`chunks_near`) are written shown, the others hidden (`CHUNK_HIDDEN`).
pub fn editor_html(
    text: &str,
    tokens: &[Token],
    diagnostics: &[Diagnostic],
    statements: &[StatementInfo],
    shown: Range<usize>,
) -> String {
    let tokens: &[Token] = &outside_long_lines(text, tokens);
    // Boundaries where a span may open or close.
    let mut marks: Vec<usize> = Vec::with_capacity(2 * (tokens.len() + statements.len()) + 2);
    marks.extend([0, text.len()]);
    for t in tokens {
        marks.extend([t.span.start as usize, t.span.end as usize]);
    }
    for d in diagnostics {
        marks.extend([
            d.span.start as usize,
            (d.span.end.max(d.span.start + 1)) as usize,
        ]);
    }
    for s in statements {
        marks.extend([s.span.start as usize, s.span.end as usize]);
    }
    marks.retain(|m| *m <= text.len() && text.is_char_boundary(*m));
    marks.sort_unstable();
    marks.dedup();
    // Tokens and statements come in text order without overlap: one forward sweep finds the one
    // covering each piece (a search per piece made long texts quadratic).
    let (mut tk, mut st) = (0, 0);
    let mut out = Chunked::new(text, shown);
    let mut classes = String::new();
    let mut open_until: Option<usize> = None;
    for w in marks.windows(2) {
        let &[a, b] = w else { continue };
        let Some(piece) = text.get(a..b) else {
            continue;
        };
        classes.clear();
        while tokens.get(tk).is_some_and(|t| (t.span.end as usize) <= a) {
            tk += 1;
        }
        if let Some(t) = tokens
            .get(tk)
            .filter(|t| (t.span.start as usize) <= a && b <= t.span.end as usize)
        {
            classes.push_str(class_of(t.kind));
        }
        if let Some(d) = diagnostics.iter().find(|d| {
            (d.span.start as usize) <= a && b <= (d.span.end.max(d.span.start + 1)) as usize
        }) {
            classes.push_str(if d.severity == Severity::Error {
                " diag-err"
            } else {
                " diag-warn"
            });
        }
        while statements
            .get(st)
            .is_some_and(|s| (s.span.end as usize) <= a)
        {
            st += 1;
        }
        // A statement is one span around its pieces, so its highlight is one unbroken box.
        if open_until.is_some_and(|end| a >= end) {
            out.close_statement();
            open_until = None;
        }
        if open_until.is_none() {
            if let Some(s) = statements
                .get(st)
                .filter(|s| s.span.start as usize == a && s.span.end as usize > a)
            {
                out.open_statement(s.id);
                open_until = Some(s.span.end as usize);
            }
        }
        out.piece(classes.trim(), piece);
    }
    // A trailing newline needs a character after it to keep the overlay's height.
    out.piece("", " ");
    out.finish()
}

/// The overlay's chunks (`editor_html` cut at each chunk), each written shown: `views::editor`
/// writes only the chunks that differ from those it shows, hiding those away from the view
/// (`hidden_chunk`).
pub fn editor_chunks(
    text: &str,
    tokens: &[Token],
    diagnostics: &[Diagnostic],
    statements: &[StatementInfo],
) -> Vec<String> {
    let html = editor_html(text, tokens, diagnostics, statements, 0..usize::MAX);
    // Text is escaped, so a chunk's opening tag appears nowhere else.
    let opening = "<div class=\"chunk\"";
    let starts: Vec<usize> = html.match_indices(opening).map(|(k, _)| k).collect();
    starts
        .iter()
        .zip(starts.iter().skip(1).copied().chain([html.len()]))
        .filter_map(|(&from, to)| html.get(from..to).map(str::to_string))
        .collect()
}

/// A chunk of `editor_chunks` as its `style` attribute and its content: what changes when the
/// chunk's element is kept and only written into.
pub fn chunk_style_and_content(chunk: &str) -> Option<(&str, &str)> {
    let rest = chunk
        .strip_prefix("<div class=\"")?
        .strip_prefix(CHUNK_CLASS)?;
    let (style, rest) = rest.strip_prefix("\" style=\"")?.split_once("\">")?;
    Some((style, rest.strip_suffix("</div>")?))
}

/// A chunk of `editor_chunks`, written hidden (`CHUNK_HIDDEN`).
pub fn hidden_chunk(chunk: &str) -> String {
    let rest = chunk.strip_prefix("<div").unwrap_or(chunk);
    ["<div hidden=\"", CHUNK_HIDDEN, "\"", rest].concat()
}

/// Lines longer than this many bytes are drawn without colours: a line of tens of thousands of
/// spans in one line box is a long task of the browser's style and layout. (The longest annotation
/// list within the limits is under 1 KiB.)
const LONG_LINE: usize = 2048;

/// The tokens that do not lie on a line longer than `LONG_LINE`: all of them, not copied, when no
/// line is (the usual text).
fn outside_long_lines<'t>(text: &str, tokens: &'t [Token]) -> Cow<'t, [Token]> {
    let mut long = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if line.len() > LONG_LINE {
            long.push(start..start + line.len());
        }
        start += line.len();
    }
    if long.is_empty() {
        return Cow::Borrowed(tokens);
    }
    let mut long = long.into_iter().peekable();
    tokens
        .iter()
        .filter(|t| {
            let at = t.span.start as usize;
            while long.next_if(|l| l.end <= at).is_some() {}
            !long.peek().is_some_and(|l| l.contains(&at))
        })
        .copied()
        .collect()
}

/// The overlay's markup, cut into chunks of lines. A span crossing from one chunk into the next is
/// closed before the cut and opened again after it, so every chunk is balanced markup.
struct Chunked {
    out: Html,
    /// Lines and widest line of each chunk still to open.
    sizes: std::vec::IntoIter<ChunkSize>,
    /// Newlines still to write before the current chunk ends.
    newlines_left: usize,
    /// The statement span open, to open again in the next chunk.
    statement: Option<StmtId>,
    /// The chunk being written, and the chunks written shown.
    chunk: usize,
    shown: Range<usize>,
}

/// What style.css needs to size a chunk the browser has not laid out: a wrong height would move
/// everything below it once the chunk is shown, and an overlay shorter or narrower than the
/// textarea would stop scrolling short of it, out of line with the text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ChunkSize {
    lines: usize,
    /// Columns of the widest line (tabs reach the next multiple of 4, as `tab-size` says):
    /// the overlay must scroll sideways as far as the textarea even while its widest line is not
    /// laid out.
    columns: usize,
}

impl Chunked {
    fn new(text: &str, shown: Range<usize>) -> Self {
        let sizes = chunk_sizes(text);
        let mut out = Html::with_capacity(text.len() * 2 + 64 * sizes.len());
        let mut sizes = sizes.into_iter();
        open_chunk(
            &mut out,
            sizes.next().unwrap_or_default(),
            !shown.contains(&0),
        );
        Chunked {
            out,
            sizes,
            newlines_left: CHUNK_LINES,
            statement: None,
            chunk: 0,
            shown,
        }
    }

    fn open_statement(&mut self, id: StmtId) {
        self.out.raw("<span class=\"st").num(id).raw("\">");
        self.statement = Some(id);
    }

    fn close_statement(&mut self) {
        if self.statement.take().is_some() {
            self.out.raw("</span>");
        }
    }

    /// Text in a span of `classes` (none if empty), cut where chunks end.
    fn piece(&mut self, classes: &str, mut text: &str) {
        while !text.is_empty() {
            let (now, later) = match text.match_indices('\n').nth(self.newlines_left - 1) {
                Some((k, _)) => text.split_at(k + 1),
                None => (text, ""),
            };
            if classes.is_empty() {
                self.out.text(now);
            } else {
                self.out
                    .raw("<span class=\"")
                    .raw(classes)
                    .raw("\">")
                    .text(now)
                    .raw("</span>");
            }
            self.newlines_left -= now.bytes().filter(|&c| c == b'\n').count();
            if self.newlines_left == 0 {
                self.next_chunk();
            }
            text = later;
        }
    }

    fn next_chunk(&mut self) {
        let statement = self.statement;
        self.close_statement();
        self.out.raw("</div>");
        // Only the chunks near the view are written shown: written shown, every line would be
        // styled and laid out in the frame that draws them.
        self.chunk += 1;
        let hidden = !self.shown.contains(&self.chunk);
        open_chunk(&mut self.out, self.sizes.next().unwrap_or_default(), hidden);
        self.newlines_left = CHUNK_LINES;
        if let Some(id) = statement {
            self.open_statement(id);
        }
    }

    fn finish(mut self) -> String {
        self.close_statement();
        self.out.raw("</div>");
        self.out.finish()
    }
}

fn open_chunk(out: &mut Html, size: ChunkSize, hidden: bool) {
    out.raw("<div class=\"")
        .raw(CHUNK_CLASS)
        .raw("\" style=\"--lines:")
        .num(size.lines)
        .raw(";--columns:")
        .num(size.columns);
    if hidden {
        out.raw("\" hidden=\"").raw(CHUNK_HIDDEN);
    }
    out.raw("\">");
}

/// The size of each chunk of the overlay of `text` (which ends with one more space).
fn chunk_sizes(text: &str) -> Vec<ChunkSize> {
    let mut sizes: Vec<ChunkSize> = Vec::with_capacity(text.len() / (CHUNK_LINES * 16) + 1);
    for (k, line) in text.split('\n').enumerate() {
        if k % CHUNK_LINES == 0 {
            sizes.push(ChunkSize::default());
        }
        if let Some(size) = sizes.last_mut() {
            size.lines += 1;
            size.columns = size.columns.max(columns(line));
        }
    }
    if let Some(last) = sizes.last_mut() {
        let trailing = text.rsplit('\n').next().unwrap_or("");
        last.columns = last.columns.max(columns(trailing) + 1);
    }
    sizes
}

/// Columns a line takes in a monospace font: one per character (wide characters are the rare
/// exception, and a chunk's remembered size replaces the estimate once it has been shown).
fn columns(line: &str) -> usize {
    line.chars().fold(0, |col, c| {
        if c == '\t' {
            (col / 4 + 1) * 4
        } else {
            col + 1
        }
    })
}

/// Whether line `line` (from 0) is shown by `view`, at least its upper half (a browser that
/// scrolls to the caret may leave its line's last pixels below the box).
pub fn line_in_view(view: &OverlayView, line: usize) -> bool {
    let middle = view.pad + (line as f64 + 0.5) * view.line;
    middle >= view.scroll_top && middle <= view.scroll_top + view.height
}

/// The scroll top that shows line `line` (from 0) whole, its padding beside it, when `view` does
/// not: at the box's bottom for a line below it, at its top for a line above; `None` when it is
/// shown whole, or the line's height is not known yet.
pub fn scroll_to_show(view: &OverlayView, line: usize) -> Option<f64> {
    if view.line <= 0.0 {
        return None;
    }
    let top = view.pad + line as f64 * view.line;
    let bottom = top + view.line;
    if bottom > view.scroll_top + view.height - view.pad {
        Some(bottom + view.pad - view.height)
    } else if top < view.scroll_top + view.pad {
        Some(top - view.pad)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_outside_the_box_is_scrolled_to_its_nearer_edge() {
        // Ten lines of 20 px in a 200 px box with 10 px of padding: lines 0 to 8 whole, then
        // line 9 cut at its middle.
        let view = OverlayView {
            scroll_top: 0.0,
            height: 200.0,
            line: 20.0,
            pad: 10.0,
        };
        assert!(line_in_view(&view, 0) && line_in_view(&view, 8) && line_in_view(&view, 9));
        assert!(!line_in_view(&view, 10));
        assert_eq!(scroll_to_show(&view, 0), None);
        assert_eq!(scroll_to_show(&view, 8), None);
        // Line 9 ends at 210: shown with the padding below it once scrolled by 20.
        assert_eq!(scroll_to_show(&view, 9), Some(20.0));
        let scrolled = OverlayView {
            scroll_top: 20.0,
            ..view
        };
        assert_eq!(scroll_to_show(&scrolled, 9), None);
        // A line above the box: at its top, the padding above it.
        let further = OverlayView {
            scroll_top: 400.0,
            ..view
        };
        assert_eq!(scroll_to_show(&further, 3), Some(60.0));
        assert_eq!(scroll_to_show(&OverlayView::default(), 3), None);
    }

    #[test]
    fn lines_too_long_to_colour_are_drawn_plain() {
        // Longer than LONG_LINE in bytes, with fewer operators than a statement may have.
        let long = format!("x = {}1\n", "123456789 + ".repeat(LONG_LINE / 8));
        let text = format!("y = 2\n{long}z = 3\n");
        let ex = stagecraft::explore::explore(&text, &Default::default());
        let html = editor_html(&text, &ex.tokens, &ex.diagnostics, &ex.statements, 0..1);
        // `2` and `3` are coloured; nothing of the long line is.
        assert_eq!(html.matches("tk-num").count(), 2, "{html}");
        // (Problems are still underlined there: `x` is no buffer.)
        assert!(html.contains(&long[1..long.len() - 1]));
    }

    #[test]
    fn every_byte_once_and_escaped() {
        let text = "B[0] = A[i] < 1 # x\n";
        let ex = stagecraft::explore::explore(text, &Default::default());
        let html = editor_html(text, &ex.tokens, &ex.diagnostics, &ex.statements, 0..1);
        assert!(html.contains("&lt;"));
        assert!(html.contains("tk-com"));
        // Tags removed and entities decoded, the overlay is the text itself (plus one space).
        let mut plain = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => plain.push(c),
                _ => {}
            }
        }
        let plain = plain
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        assert_eq!(plain, format!("{text} "));
    }

    #[test]
    fn statements_carry_their_id_class() {
        let text = "for i in range(4):\n    C[i] = A[i]\n";
        let ex = stagecraft::explore::explore(text, &Default::default());
        let html = editor_html(text, &ex.tokens, &ex.diagnostics, &ex.statements, 0..1);
        assert!(html.contains("<span class=\"st0\">C["), "{html}");
    }

    #[test]
    fn every_chunk_is_its_style_and_content() {
        let text = crate::model::long_loop(40);
        let ex = stagecraft::explore::explore(&text, &Default::default());
        let chunks = editor_chunks(&text, &ex.tokens, &ex.diagnostics, &ex.statements);
        assert!(chunks.len() > 1);
        for chunk in &chunks {
            let (style, content) = chunk_style_and_content(chunk).expect(chunk);
            assert!(style.starts_with("--lines:"), "{style}");
            let again = format!("<div class=\"{CHUNK_CLASS}\" style=\"{style}\">{content}</div>");
            assert_eq!(&again, chunk);
        }
        assert_eq!(chunk_style_and_content(&hidden_chunk(&chunks[0])), None);
    }

    /// The chunks of `html`, each as the markup inside its `<div>`, with its `--lines`.
    fn chunks(html: &str) -> Vec<(usize, &str)> {
        html.split("<div class=\"chunk\" style=\"--lines:")
            .skip(1)
            .map(|c| {
                let (lines, rest) = c.split_once(';').unwrap_or_default();
                let inner = rest.split_once("\">").unwrap_or_default().1;
                (lines.parse().unwrap_or(0), inner.trim_end_matches("</div>"))
            })
            .collect()
    }

    #[test]
    fn long_texts_come_in_chunks_of_whole_lines_with_their_sizes() {
        let text = crate::model::long_loop(100);
        let ex = stagecraft::explore::explore(&text, &Default::default());
        let html = editor_html(&text, &ex.tokens, &ex.diagnostics, &ex.statements, 0..1);
        let lines = text.split('\n').count();
        let chunks = chunks(&html);
        assert_eq!(chunks.len(), lines.div_ceil(CHUNK_LINES));
        for (k, (declared, inner)) in chunks.iter().enumerate() {
            let newlines = inner.matches('\n').count();
            if k + 1 < chunks.len() {
                assert_eq!(
                    (*declared, newlines),
                    (CHUNK_LINES, CHUNK_LINES),
                    "chunk {k}"
                );
                assert!(inner.ends_with('\n'), "chunk {k} ends with its last line");
            } else {
                assert_eq!(*declared, newlines + 1, "the last line has no newline");
            }
            assert_eq!(
                inner.matches("<span").count(),
                inner.matches("</span>").count()
            );
        }
        assert_eq!(html.matches("<div").count(), html.matches("</div>").count());
    }

    #[test]
    fn the_chunks_near_the_view_are_those_within_a_box_height_of_it() {
        // style.css: 13px lines of 1.5em, 10px of padding.
        let at = |scroll_top: f64, height: f64| OverlayView {
            scroll_top,
            height,
            line: 19.5,
            pad: 10.0,
        };
        let chunk = 19.5 * CHUNK_LINES as f64;
        // 10 chunks; a box of two thirds of a chunk at the top shows chunk 0 and reaches chunk 1.
        assert_eq!(chunks_near(&at(0.0, chunk * 0.66), 320), 0..2);
        // Scrolled to chunk 5's middle with a box of one chunk: 4 (above) to 7 (below).
        assert_eq!(chunks_near(&at(5.5 * chunk + 10.0, chunk), 320), 4..8);
        // Never past the last chunk, never none.
        assert_eq!(chunks_near(&at(100.0 * chunk, chunk), 320), 9..10);
        assert_eq!(chunks_near(&at(0.0, chunk), 5), 0..1);
        // The view not known yet (no size): the first chunk.
        assert_eq!(chunks_near(&OverlayView::default(), 320), 0..1);
    }

    #[test]
    fn the_chunks_asked_for_are_written_shown_and_the_others_hidden() {
        let text = "x\n".repeat(5 * CHUNK_LINES);
        let html = editor_html(&text, &[], &[], &[], 2..4);
        let hidden: Vec<bool> = html
            .split("<div class=\"chunk\"")
            .skip(1)
            .map(|c| c.split_once('>').unwrap_or_default().0.contains("hidden"))
            .collect();
        assert_eq!(hidden, [true, true, false, false, true, true]);
    }

    #[test]
    fn the_chunks_one_by_one_are_the_overlay_written_shown() {
        let text = crate::model::long_loop(100);
        let ex = stagecraft::explore::explore(&text, &Default::default());
        let chunks = editor_chunks(&text, &ex.tokens, &ex.diagnostics, &ex.statements);
        let all = editor_html(
            &text,
            &ex.tokens,
            &ex.diagnostics,
            &ex.statements,
            0..chunks.len(),
        );
        assert!(chunks.len() > 2);
        assert_eq!(chunks.concat(), all);
        let hidden = hidden_chunk(&chunks[1]);
        assert!(
            hidden.starts_with("<div hidden=\"until-found\" class=\"chunk\""),
            "{hidden}"
        );
        assert_eq!(hidden.replace(" hidden=\"until-found\"", ""), chunks[1]);
    }

    #[test]
    fn a_statement_across_a_chunk_boundary_is_closed_and_opened_again() {
        let text = "x\n".repeat(40);
        let start = text.match_indices('\n').nth(29).map_or(0, |(k, _)| k + 1) as u32;
        let end = start + 10;
        let statement = StatementInfo {
            id: 7,
            span: stagecraft::diagnostic::Span { start, end },
            text: String::new(),
            unit: None,
            stage: None,
            order: None,
            is_async: false,
        };
        let html = editor_html(&text, &[], &[], &[statement], 0..1);
        let chunks = chunks(&html);
        assert_eq!(chunks.len(), 2);
        assert!(chunks[0].1.ends_with("x\nx\n</span>"), "{}", chunks[0].1);
        assert!(
            chunks[1].1.starts_with("<span class=\"st7\">x\n"),
            "{}",
            chunks[1].1
        );
    }

    #[test]
    fn a_chunk_is_as_wide_as_its_widest_line_with_tabs_to_the_next_stop() {
        assert_eq!(columns("\tab"), 6);
        assert_eq!(columns("ab\tc"), 5);
        assert_eq!(columns("é"), 1);
        let sizes = chunk_sizes("ab\nabcd\n");
        // The overlay adds a space after the last line.
        assert_eq!(
            sizes,
            vec![ChunkSize {
                lines: 3,
                columns: 4
            }]
        );
    }
}
