//! The Code pane's listings, drawn by the worker: a kernel with its notes and, once it ran, the
//! machine-level check's report above it with the lines it points at marked (`kernel_html`); the
//! loop exported as TVMScript (`tvmscript_html`). Each line is tinted by the source statement it
//! comes from, as Compiler Explorer does, and the page ties it to that statement on hover.

use super::MachineReport;
use crate::emit::Emitted;
use crate::html::Html;
use crate::machine::MachineVerdict;
use serde::{Deserialize, Serialize};

/// A listing drawn (text escaped), with the text the page's Copy takes (`None`: nothing to copy).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    pub markup: String,
    pub text: Option<String>,
}

/// Lines per chunk of a listing; the page's style.css gives a chunk this many lines of height.
pub const CHUNK_LINES: usize = 64;

/// Lines of code, each with its statement's palette and identity classes (`stmts`, per line), in
/// chunks that the browser does not style, lay out or paint while they are off screen: a large
/// loop's kernel is thousands of lines. `marked` are 1-based lines the machine-level check points
/// at (racing instructions and the waits they got past): they get the class `marked` and a
/// `data-kline` to be scrolled to.
pub fn lines_html(h: &mut Html, text: &str, stmts: &[Option<u32>], marked: &[u32]) {
    h.raw("<pre class=\"code\">");
    let n = text.lines().count();
    for (k, line) in text.lines().enumerate() {
        h.chunk(k, n, CHUNK_LINES, "chunk");
        let number = k as u32 + 1;
        let stmt = stmts.get(k).copied().flatten();
        h.raw("<div class=\"cl");
        if let Some(s) = stmt {
            h.raw(" s").num(s % 10).raw(" st").num(s);
        }
        if marked.contains(&number) {
            h.raw(" marked\" data-kline=\"").num(number);
        }
        h.raw("\"");
        if let Some(s) = stmt {
            h.raw(" data-st=\"").num(s).raw("\"");
        }
        h.raw(">").linked(line).raw("</div>");
    }
    h.end_chunks(n, CHUNK_LINES);
    h.raw("</pre>");
}

/// The kernel `c` as the Code pane shows it: what kept it from being emitted, its notes, the
/// machine-level check (`machine`; `None`: still executing), the tile each element of the loop
/// is, and its lines.
pub fn kernel_html(c: &Emitted, machine: Option<&MachineReport>) -> String {
    let mut h = Html::with_capacity(c.text.len() * 2);
    if let Some(e) = &c.error {
        h.raw("<div class=\"banner warn\">").prose(e).raw("</div>");
    }
    if !c.notes.is_empty() {
        h.raw("<ul class=\"notes\">");
        for n in &c.notes {
            h.raw("<li>").prose(n).raw("</li>");
        }
        h.raw("</ul>");
    }
    if c.error.is_none() {
        machine_html(&mut h, machine, c);
        // The kernel's buffers beside the Timeline's ring bytes, which count the loop's elements.
        h.raw("<p class=\"view-note\" id=\"tile-note\">Each element of the loop is a tile of ")
            .num(c.lanes)
            .raw(" values here, one per thread: a buffer's declared bytes are that many times the bytes the Timeline's ring buffers count for it.</p>");
    }
    lines_html(&mut h, &c.text, &c.line_stmts, &marked_lines(machine, c));
    h.finish()
}

/// The kernel with its text to copy, before the machine-level check has run on it.
pub fn kernel_listing(c: &Emitted) -> Listing {
    Listing {
        markup: kernel_html(c, None),
        text: Some(c.text.clone()),
    }
}

/// The machine-level verdict above a kernel: executed or not, and each race, copy never awaited,
/// invalid instruction and wrong output with its line; a race also names the kernel wait it got
/// past and the pipelined program's waits that wait implements. `None`: still executing.
fn machine_html(h: &mut Html, report: Option<&MachineReport>, c: &Emitted) {
    let Some(r) = report else {
        h.raw("<p class=\"machine pending\">Executing the kernel on the machine model…</p>");
        return;
    };
    let m = &r.check;
    let class = match m.verdict {
        MachineVerdict::Correct => "ok",
        MachineVerdict::Racy | MachineVerdict::Different | MachineVerdict::Invalid => "bad",
        MachineVerdict::NotSupported | MachineVerdict::NotExecuted => "na",
    };
    h.raw("<div class=\"machine ")
        .raw(class)
        .raw("\" role=\"status\"><p><strong>Machine-level check:</strong> ")
        .prose(&m.summary)
        .raw("</p>");
    let mut items = Html::default();
    let item = |items: &mut Html, line: u32, message: &str| {
        items
            .raw("<li tabindex=\"0\" data-kline=\"")
            .num(line)
            .raw("\">line ")
            .num(line)
            .raw(": ")
            .prose(message);
    };
    for (race, covering) in m.races.iter().zip(&r.covering) {
        item(&mut items, race.line, &race.message);
        if let Some(w) = covering.and_then(|k| c.waits.get(k)) {
            items.raw(" — past the wait at line ").num(w.line);
            let ids: Vec<String> = w
                .ir
                .iter()
                .map(|i| match i.id {
                    Some(id) => format!("wait #{id} (queue {}, {} in flight)", i.queue, i.count),
                    None => format!("a wait on queue {} ({} in flight)", i.queue, i.count),
                })
                .collect();
            if !ids.is_empty() {
                items
                    .raw(", which implements the pipelined program's ")
                    .text(&ids.join(" and "));
            }
        }
        items.raw("</li>");
    }
    for u in &m.unawaited {
        item(&mut items, u.line, &u.message);
        items.raw("</li>");
    }
    for p in &m.problems {
        item(&mut items, p.line, &p.message);
        items.raw("</li>");
    }
    for d in &m.differences {
        let index: Vec<String> = d.index.iter().map(i64::to_string).collect();
        items
            .raw("<li>")
            .text(&format!(
                "{}[{}], thread {}: the loop computes {}, the kernel {}",
                d.buffer,
                index.join(", "),
                d.thread,
                d.expected,
                d.got
            ))
            .raw("</li>");
    }
    let items = items.finish();
    if !items.is_empty() {
        h.raw("<ul class=\"races\">").raw(&items).raw("</ul>");
    }
    h.raw("</div>");
}

/// The kernel lines the machine-level check points at.
fn marked_lines(report: Option<&MachineReport>, c: &Emitted) -> Vec<u32> {
    let Some(r) = report else {
        return Vec::new();
    };
    let m = &r.check;
    let mut lines: Vec<u32> = m.races.iter().map(|x| x.line).collect();
    lines.extend(
        r.covering
            .iter()
            .flatten()
            .filter_map(|&k| c.waits.get(k))
            .map(|w| w.line),
    );
    lines.extend(m.unawaited.iter().map(|u| u.line));
    lines.extend(m.problems.iter().map(|p| p.line));
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The loop exported as TVMScript (`crate::tvmscript::export`), or why it cannot be.
pub fn tvmscript_listing(export: &Result<String, String>) -> Listing {
    let mut h = Html::default();
    match export {
        Ok(text) => {
            h.raw("<p class=\"view-note\">The loop and its annotations as a PrimFunc: paste it into TVM 0.27 and run <code>tvm.s_tir.transform.InjectSoftwarePipeline</code>; <code>stagecraft explore FILE --as tvm-0.27</code> prints what it makes of it, reproduced.</p>");
            lines_html(&mut h, text, &[], &[]);
        }
        Err(why) => {
            h.raw("<p class=\"unavailable\">This loop has no TVMScript form: ")
                .prose(why)
                .raw("</p>");
        }
    }
    Listing {
        markup: h.finish(),
        text: export.as_ref().ok().cloned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::emit::Target;
    use crate::explore::{explore, machine_check, Options};

    fn example(name: &str) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
        std::fs::read_to_string(format!("{dir}/{name}")).unwrap()
    }

    /// The machine-level verdict is shown above a kernel; a race (here: the CUTLASS example's
    /// waits raised by one, one at a time, until one races) lists its line and the wait it got
    /// past, and marks both lines of the code.
    #[test]
    fn the_machine_check_is_shown_with_its_races_lines_and_waits() {
        let options = Options {
            targets: vec![Target::Amdgpu],
            ..Default::default()
        };
        let ex = explore(&example("cutlass_multistage.py"), &options);
        let code = &ex.code[0];
        let pending = kernel_listing(code);
        assert!(
            pending.markup.contains("Executing the kernel"),
            "{}",
            pending.markup
        );
        assert!(pending.markup.contains("id=\"tile-note\""));
        assert_eq!(pending.text.as_deref(), Some(code.text.as_str()));
        assert_eq!(
            pending.markup.matches("<div class=\"cl").count(),
            code.text.lines().count()
        );
        let report = machine_check(&ex, Target::Amdgpu, u64::MAX);
        let html = kernel_html(code, report.as_ref());
        assert!(html.contains("machine ok"), "{html}");
        assert!(html.contains("executed: same outputs, 0 races"));
        let racy = code
            .waits
            .iter()
            .filter(|w| w.immediate.is_some())
            .find_map(|w| {
                let k = w.immediate.unwrap_or(0);
                let mut mutated = ex.clone();
                let mut lines: Vec<String> = code.text.lines().map(str::to_string).collect();
                let line = lines.get_mut(w.line as usize - 1)?;
                *line = line.replace(&format!("vmcnt({k})"), &format!("vmcnt({})", k + 1));
                mutated.code[0].text = lines.join("\n") + "\n";
                let r = machine_check(&mutated, Target::Amdgpu, u64::MAX)?;
                (r.check.verdict == MachineVerdict::Racy).then_some((mutated, r, w.line))
            });
        let (mutated, r, wait_line) = racy.unwrap();
        let html = kernel_html(&mutated.code[0], Some(&r));
        assert!(html.contains("machine bad"), "{html}");
        assert!(!html.contains("Executing the kernel"), "{html}");
        let race_line = r.check.races[0].line;
        assert!(html.contains(&format!("line {race_line}: ")), "{html}");
        // The instructions the message quotes are set as code, not shown with their backticks.
        assert!(r.check.races[0].message.contains('`'));
        let item = html
            .split(&format!("data-kline=\"{race_line}\">"))
            .nth(1)
            .unwrap_or("");
        let item = item.split("</li>").next().unwrap_or("");
        assert!(item.contains("<code>") && !item.contains('`'), "{item}");
        assert!(
            html.contains(&format!("past the wait at line {wait_line}")),
            "{html}"
        );
        assert!(
            html.contains("which implements the pipelined program's wait #"),
            "{html}"
        );
        for line in [race_line, wait_line] {
            assert!(
                html.contains(&format!("marked\" data-kline=\"{line}\"")),
                "{line}"
            );
        }
    }

    #[test]
    fn a_kernel_s_text_and_notes_are_escaped_and_its_documents_linked() {
        let c = Emitted {
            target: "ptx".into(),
            text: "mov <b>x</b>;\n".into(),
            notes: vec!["<img src=x> (docs/execution-model.md)".into()],
            line_stmts: vec![Some(3)],
            ..Default::default()
        };
        let html = kernel_html(&c, None);
        assert!(!html.contains("<img") && !html.contains("<b>"), "{html}");
        assert!(html.contains("mov &lt;b&gt;x&lt;/b&gt;;"), "{html}");
        assert!(
            html.contains("<a href=\"docs/execution-model.md\""),
            "{html}"
        );
        assert!(
            html.contains("<div class=\"cl s3 st3\" data-st=\"3\">"),
            "{html}"
        );
    }

    #[test]
    fn a_loop_without_a_tvmscript_form_says_why_and_has_nothing_to_copy() {
        let ok = tvmscript_listing(&Ok("@T.prim_func\ndef main():\n".into()));
        assert_eq!(ok.text.as_deref(), Some("@T.prim_func\ndef main():\n"));
        assert_eq!(
            ok.markup.matches("<div class=\"cl\">").count(),
            2,
            "{}",
            ok.markup
        );
        let err = tvmscript_listing(&Err("fix line 2 <first>".into()));
        assert_eq!(err.text, None);
        assert!(
            err.markup
                .contains("no TVMScript form: fix line 2 &lt;first&gt;"),
            "{}",
            err.markup
        );
    }
}
