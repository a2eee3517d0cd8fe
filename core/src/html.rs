//! Markup written as strings, text escaped: the one writer of markup for the page's large outputs
//! (printed programs, machine code, tables) and for what the worker draws for it (the
//! step-through's frame, the Search pane). Each becomes one `innerHTML`: a reactive node per line
//! would cost kilobytes of the page's bundle per view shape and milliseconds per update, for text
//! that never changes between answers; interaction on it is delegated (the app's
//! `dom::closest_data`).

use std::fmt::Write;

/// A string of markup under construction.
#[derive(Default)]
pub struct Html(pub String);

impl Html {
    pub fn with_capacity(n: usize) -> Self {
        Html(String::with_capacity(n))
    }

    /// Markup written as is (tags, attributes built from trusted parts).
    pub fn raw(&mut self, s: &str) -> &mut Self {
        self.0.push_str(s);
        self
    }

    /// Text, escaped for element content and attribute values.
    pub fn text(&mut self, s: &str) -> &mut Self {
        escape_into(&mut self.0, s);
        self
    }

    /// Text, escaped, each reference to a document of Stagecraft's (`docs/NAME.md`) a link to it
    /// (the documents are served beside the page): element content only.
    pub fn linked(&mut self, s: &str) -> &mut Self {
        let mut rest = s;
        while let Some((before, name, after)) = doc_reference(rest) {
            escape_into(&mut self.0, before);
            self.raw("<a href=\"docs/")
                .text(name)
                .raw(".md\" target=\"_blank\" rel=\"noopener\">docs/")
                .text(name)
                .raw(".md</a>");
            rest = after;
        }
        escape_into(&mut self.0, rest);
        self
    }

    /// A message of core's, escaped, its code spans (code quoted from the text, written as
    /// Markdown writes them: `x`, or ``a`b`` when the code holds a backtick; see
    /// `diagnostic::code`) set as code rather than shown with their backticks. A run of backticks
    /// that no run of the same length closes is text.
    pub fn prose(&mut self, s: &str) -> &mut Self {
        let mut rest = s;
        while let Some((before, code, after)) = code_span(rest) {
            self.linked(before);
            self.raw("<code>").text(code).raw("</code>");
            rest = after;
        }
        self.linked(rest)
    }

    /// A number (or anything displayed without markup characters).
    pub fn num(&mut self, n: impl std::fmt::Display) -> &mut Self {
        let _ = write!(self.0, "{n}");
        self
    }

    /// `<tag>text</tag>` with the text escaped.
    pub fn elem(&mut self, tag: &str, text: &str) -> &mut Self {
        self.raw("<").raw(tag).raw(">").text(text).raw("</");
        // The closing tag is the first word (attributes are allowed in `tag`).
        self.raw(tag.split(' ').next().unwrap_or(tag)).raw(">")
    }

    /// Before item `k` of the `n` items of a list written in `<div class="{class}">` chunks of
    /// `per` items, which the browser skips styling, laying out and painting while off screen
    /// (`content-visibility` in style.css): closes the previous chunk and opens the next where one
    /// begins. A chunk says how many items it holds (`--items`), so that style.css can size it
    /// exactly before it is laid out. A list of one chunk or less is written without one: on
    /// screen, a `content-visibility: auto` box is laid out twice in the frame that first draws
    /// it (once skipped, then again once found on screen). `end_chunks` closes the last.
    pub fn chunk(&mut self, k: usize, n: usize, per: usize, class: &str) -> &mut Self {
        let per = per.max(1);
        if n > per && k.is_multiple_of(per) {
            if k > 0 {
                self.raw("</div>");
            }
            self.raw("<div class=\"")
                .raw(class)
                .raw("\" style=\"--items:")
                .num(per.min(n.saturating_sub(k)))
                .raw("\">");
        }
        self
    }

    /// After the `n` items written with `chunk` in chunks of `per`.
    pub fn end_chunks(&mut self, n: usize, per: usize) -> &mut Self {
        if n > per.max(1) {
            self.raw("</div>");
        }
        self
    }

    pub fn finish(self) -> String {
        self.0
    }
}

/// `<option>`s of a `<select>`, the one with value `selected` selected.
pub fn options(options: &[(&str, &str)], selected: &str) -> String {
    let mut h = Html::default();
    for (value, label) in options {
        h.raw("<option value=\"").text(value).raw("\"");
        if *value == selected {
            h.raw(" selected");
        }
        h.raw(">").text(label).raw("</option>");
    }
    h.finish()
}

/// The first `docs/NAME.md` in `s` (NAME of lowercase letters, digits and hyphens): the text
/// before it, NAME, and the text after it.
fn doc_reference(s: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    while let Some(k) = s.get(from..)?.find("docs/") {
        let at = from + k;
        let tail = s.get(at + 5..)?;
        let n = tail
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
            .count();
        if n > 0 && tail.get(n..)?.starts_with(".md") {
            return Some((s.get(..at)?, tail.get(..n)?, tail.get(n + 3..)?));
        }
        from = at + 5;
    }
    None
}

/// The first code span of `s`, as CommonMark reads one: a run of n backticks, then text, then
/// the next run of exactly n; the text with one space stripped from each end when it has one at
/// both. Returns the text before the span, the code and the text after it.
fn code_span(s: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    loop {
        let open = from + s.get(from..)?.find('`')?;
        let n = run_of_backticks(s.get(open..)?);
        let inner_start = open + n;
        let mut at = inner_start;
        let close = loop {
            let Some(k) = s.get(at..)?.find('`') else {
                break None;
            };
            let m = run_of_backticks(s.get(at + k..)?);
            if m == n {
                break Some(at + k);
            }
            at += k + m;
        };
        let Some(close) = close else {
            // Unclosed: the run is text, and so is every backtick after it of its length;
            // a shorter or longer run further on may still open a span.
            from = inner_start;
            continue;
        };
        let mut code = s.get(inner_start..close)?;
        if code.len() >= 2 && code.starts_with(' ') && code.ends_with(' ') && code.trim() != "" {
            code = code.get(1..code.len() - 1)?;
        }
        return Some((s.get(..open)?, code, s.get(close + n..)?));
    }
}

fn run_of_backticks(s: &str) -> usize {
    s.bytes().take_while(|&b| b == b'`').count()
}

pub fn escape_into(out: &mut String, s: &str) {
    // Most text has nothing to escape: copy runs between special characters at once.
    let mut rest = s;
    while let Some(k) = rest.find(['<', '>', '&', '"', '\'']) {
        let (plain, tail) = rest.split_at(k);
        out.push_str(plain);
        let mut chars = tail.chars();
        out.push_str(match chars.next() {
            Some('<') => "&lt;",
            Some('>') => "&gt;",
            Some('&') => "&amp;",
            Some('"') => "&quot;",
            _ => "&#39;",
        });
        rest = chars.as_str();
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose(s: &str) -> String {
        let mut h = Html::default();
        h.prose(s);
        h.finish()
    }

    #[test]
    fn prose_sets_backticked_code_as_code_and_escapes_the_rest() {
        assert_eq!(
            prose("reads `A_sh[0, 0]` <before> `x < y` and `open"),
            "reads <code>A_sh[0, 0]</code> &lt;before&gt; <code>x &lt; y</code> and `open"
        );
        // Code holding a backtick is fenced by a longer run, as `diagnostic::code` writes it.
        assert_eq!(
            prose("unexpected character `` ` `` here"),
            "unexpected character <code>`</code> here"
        );
        assert_eq!(
            prose("`` a`b `` and `c`"),
            "<code>a`b</code> and <code>c</code>"
        );
        // A run no run of its length closes is text; a later span still opens.
        assert_eq!(prose("``` then `x`"), "``` then <code>x</code>");
        assert_eq!(prose("`a``"), "`a``");
        assert_eq!(prose("see docs/limits.md and `k`"), "see <a href=\"docs/limits.md\" target=\"_blank\" rel=\"noopener\">docs/limits.md</a> and <code>k</code>");
    }

    #[test]
    fn code_quoted_by_diagnostic_code_is_shown_as_written() {
        for text in [
            "A[i]", "`", "``", "a`b", "` x", "x `", "```a`", "<b>`&`", " a ", "  ",
        ] {
            let mut escaped = String::new();
            escape_into(&mut escaped, text);
            let message = format!("at {} here", crate::diagnostic::code(text));
            assert_eq!(
                prose(&message),
                format!("at <code>{escaped}</code> here"),
                "{text:?}"
            );
        }
    }

    #[test]
    fn prose_shows_every_character_of_a_message_once() {
        // Whatever the backticks, the text shown is the message less its fences: no character
        // of a quoted input is lost or doubled.
        for s in [
            "`",
            "``",
            "` `",
            "a`b`c`d",
            "`` ` ``",
            "x ``` y ` z",
            "`<img>`",
            "``a``b`",
        ] {
            let shown = prose(s).replace("<code>", "").replace("</code>", "");
            let kept: String = s.chars().filter(|&c| c != '`').collect();
            let shown_less_ticks: String = shown
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .chars()
                .filter(|&c| c != '`')
                .collect();
            assert_eq!(
                shown_less_ticks.trim(),
                kept.trim(),
                "{s:?} shown as {shown:?}"
            );
        }
    }

    #[test]
    fn references_to_the_docs_are_links() {
        let mut h = Html::default();
        h.linked("a tile (docs/execution-model.md). <docs/x.rs> docs/limits.md");
        assert_eq!(
            h.finish(),
            "a tile (<a href=\"docs/execution-model.md\" target=\"_blank\" rel=\"noopener\">docs/execution-model.md</a>). &lt;docs/x.rs&gt; <a href=\"docs/limits.md\" target=\"_blank\" rel=\"noopener\">docs/limits.md</a>"
        );
    }

    /// Items written with `chunk` and `end_chunks`: `n` items of `per` a chunk.
    fn chunked(n: usize, per: usize) -> String {
        let mut h = Html::default();
        for k in 0..n {
            h.chunk(k, n, per, "c").num(k);
        }
        h.end_chunks(n, per);
        h.finish()
    }

    #[test]
    fn a_list_is_chunked_only_when_it_is_more_than_one_chunk() {
        assert_eq!(chunked(0, 2), "");
        assert_eq!(chunked(2, 2), "01");
        assert_eq!(
            chunked(5, 2),
            "<div class=\"c\" style=\"--items:2\">01</div><div class=\"c\" style=\"--items:2\">23</div><div class=\"c\" style=\"--items:1\">4</div>"
        );
    }

    #[test]
    fn escapes_every_markup_character_and_keeps_the_rest() {
        let mut escaped = String::new();
        escape_into(&mut escaped, "a<b>&\"c'd é");
        assert_eq!(escaped, "a&lt;b&gt;&amp;&quot;c&#39;d é");
        let mut h = Html::default();
        h.elem("td class=\"x\"", "1 < 2").num(3);
        assert_eq!(h.finish(), "<td class=\"x\">1 &lt; 2</td>3");
    }
}
