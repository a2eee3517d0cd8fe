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

    /// A message of core's, escaped, its `backticked` parts (code quoted from the text) set as
    /// code rather than shown with their backticks.
    pub fn prose(&mut self, s: &str) -> &mut Self {
        let mut code = false;
        for (k, part) in s.split('`').enumerate() {
            // An odd number of backticks leaves the last part as it was written.
            let last_unclosed = code && k + 1 == s.split('`').count();
            if last_unclosed {
                self.raw("`");
            } else if code {
                self.raw("<code>");
            }
            if code {
                escape_into(&mut self.0, part);
            } else {
                self.linked(part);
            }
            if code && !last_unclosed {
                self.raw("</code>");
            }
            code = !code;
        }
        self
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

    #[test]
    fn prose_sets_backticked_code_as_code_and_escapes_the_rest() {
        let mut h = Html::default();
        h.prose("reads `A_sh[0, 0]` <before> `x < y` and `open");
        assert_eq!(
            h.finish(),
            "reads <code>A_sh[0, 0]</code> &lt;before&gt; <code>x &lt; y</code> and `open"
        );
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
