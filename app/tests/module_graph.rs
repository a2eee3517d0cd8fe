//! The app's modules form layers, each importing only those below it, and no cycle: read from the
//! `crate::…` and `super::…` paths of every file in `app/src` (imports and paths in code alike, tests
//! included). A failure names the cycle or the edge that breaks a layer.
//!
//! Layers, lowest first: `model`, `markup` (no DOM and no signals), `dom` (knows nothing of the
//! app), `ctx` (the shared signals), `services`, `views`, then `app` and `main` (the root).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layer of a module, by its first segment.
const LAYERS: [&str; 8] = [
    "model", "markup", "dom", "ctx", "services", "views", "app", "main",
];

/// Crates that touch the page or its reactivity: not for the layers without DOM.
const PAGE_CRATES: [&str; 4] = ["leptos", "web_sys", "wasm_bindgen", "js_sys"];

fn layer(module: &str) -> Option<usize> {
    let top = module.split("::").next().unwrap_or(module);
    LAYERS.iter().position(|l| *l == top)
}

/// `main.rs` is the crate root (`main`), `a/mod.rs` is `a`, `a/b.rs` is `a::b`.
fn module_of(relative: &Path) -> String {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap_or_default();
    match file.trim_end_matches(".rs") {
        "mod" => {}
        "main" if parts.is_empty() => parts.push("main".into()),
        name => parts.push(name.into()),
    }
    parts.join("::")
}

/// The text without comments and the contents of string and char literals (their `crate::` is not
/// an import).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                // Raw strings (`r#"…"#`) in the app hold no quote before their end.
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                out.push_str("\"\"");
            }
            '\'' => {
                // A char literal ('x', '\n'), or a lifetime ('a), which is kept.
                let mut look = chars.clone();
                let literal = match look.next() {
                    Some('\\') => true,
                    Some(_) => look.next() == Some('\''),
                    None => false,
                };
                if literal {
                    for c in chars.by_ref() {
                        if c == '\'' {
                            break;
                        }
                    }
                    out.push_str("' '");
                } else {
                    out.push('\'');
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The paths a `use` tree or a path in code names, from just after `crate::` or `super::`:
/// `a::b`, `a::{b, c::d}`, `{a, b}`.
fn paths_from(code: &str) -> Vec<String> {
    fn tree(s: &mut std::iter::Peekable<std::str::Chars>, prefix: &str, out: &mut Vec<String>) {
        let mut path = prefix.to_string();
        loop {
            while s.peek().is_some_and(|c| c.is_whitespace()) {
                s.next();
            }
            if s.peek() == Some(&'{') {
                s.next();
                loop {
                    tree(s, &path, out);
                    while s.peek().is_some_and(|c| c.is_whitespace()) {
                        s.next();
                    }
                    match s.next() {
                        Some(',') => continue,
                        _ => return,
                    }
                }
            }
            let mut segment = String::new();
            while let Some(&c) = s.peek() {
                if c.is_alphanumeric() || c == '_' {
                    segment.push(c);
                    s.next();
                } else {
                    break;
                }
            }
            if segment.is_empty() || segment == "self" {
                out.push(path);
                return;
            }
            if !path.is_empty() {
                path.push_str("::");
            }
            path.push_str(&segment);
            let mut rest = s.clone();
            if rest.next() == Some(':') && rest.next() == Some(':') {
                s.next();
                s.next();
            } else {
                out.push(path);
                return;
            }
        }
    }
    let mut out = Vec::new();
    tree(&mut code.chars().peekable(), "", &mut out);
    out
}

/// The inline modules of a file's code (`mod tests { … }`): each name with the byte range of its
/// body, and the file modules it declares (`mod x;`).
fn modules_in(code: &str) -> (Vec<(String, std::ops::Range<usize>)>, Vec<String>) {
    let (mut inline, mut declared) = (Vec::new(), Vec::new());
    for (at, _) in code.match_indices("mod ") {
        if code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &code[at + 4..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = rest[name.len()..].trim_start();
        if name.is_empty() {
            continue;
        }
        if after.starts_with(';') {
            declared.push(name);
        } else if after.starts_with('{') {
            let open = code.len() - after.len();
            let mut depth = 0;
            for (k, c) in code[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            inline.push((name.clone(), open..open + k));
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    (inline, declared)
}

/// Module → the modules of this crate it names: paths from `crate::`, `super::` or `self::`, paths
/// into its own submodules (`child::…`), and the submodules it declares (a module depends on what
/// it declares: a registry names its entries).
fn graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<&str> = files.iter().map(|(m, _)| m.as_str()).collect();
    // The longest prefix of `path` that is a module.
    let resolve = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split("::").collect();
        (1..=parts.len())
            .rev()
            .map(|n| parts[..n].join("::"))
            .find(|m| modules.contains(m.as_str()))
    };
    let join = |a: &str, b: &str| match (a, b) {
        ("", b) => b.to_string(),
        (a, "") => a.to_string(),
        (a, b) => format!("{a}::{b}"),
    };
    let mut edges = BTreeMap::new();
    for (module, text) in files {
        let code = code_only(text);
        let (inline, declared) = modules_in(&code);
        // The crate root's paths are relative to the crate, as `crate::` ones are.
        let own = if module == "main" {
            ""
        } else {
            module.as_str()
        };
        // The module a position of the file is in, with its inline modules.
        let module_at = |at: usize| {
            inline
                .iter()
                .filter(|(_, body)| body.contains(&at))
                .fold(own.to_string(), |m, (name, _)| join(&m, name))
        };
        let mut named = BTreeSet::new();
        for child in &declared {
            named.extend(resolve(&join(own, child)));
        }
        let children: Vec<String> = modules
            .iter()
            .filter_map(|m| m.strip_prefix(own)?.strip_prefix("::").map(str::to_string))
            .filter(|rest| !own.is_empty() && !rest.contains("::"))
            .collect();
        let anchors = ["crate", "super", "self"]
            .into_iter()
            .chain(children.iter().map(String::as_str));
        for anchor in anchors {
            let pattern = format!("{anchor}::");
            for (at, _) in code.match_indices(&pattern) {
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let here = module_at(at);
                let base = match anchor {
                    "crate" => String::new(),
                    "super" => parent(&here),
                    "self" => here,
                    child => join(own, child),
                };
                for path in paths_from(&code[at + pattern.len()..]) {
                    if let Some(to) = resolve(&join(&base, &path)).filter(|to| to != module) {
                        named.insert(to);
                    }
                }
            }
        }
        edges.insert(module.clone(), named);
    }
    edges
}

/// `super` of a module: for `a::b`, `a`; for a top-level module, the crate root.
fn parent(module: &str) -> String {
    module
        .rsplit_once("::")
        .map_or(String::new(), |(p, _)| p.to_string())
}

/// A cycle of modules, if there is one (the first module repeated at the end).
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(m) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let from = stack.iter().position(|s| s == m).unwrap_or(0);
                let mut found = stack[from..].to_vec();
                found.push(m.to_string());
                return Some(found);
            }
            None => {}
        }
        marks.insert(m.to_string(), Mark::Open);
        stack.push(m.to_string());
        for to in edges.get(m).into_iter().flatten() {
            if let Some(c) = visit(to, edges, marks, stack) {
                return Some(c);
            }
        }
        stack.pop();
        marks.insert(m.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut marks, &mut Vec::new()))
}

/// Edges that point to a higher layer, or that leave a module's layer for an unknown one.
fn upward(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for (from, tos) in edges {
        for to in tos {
            match (layer(from), layer(to)) {
                (Some(a), Some(b)) if b <= a => {}
                _ => out.push(format!("{from} → {to}")),
            }
        }
    }
    out
}

fn files_of(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable source directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).expect("inside the root");
                let text = std::fs::read_to_string(&path).expect("a readable source file");
                out.push((module_of(relative), text));
            }
        }
    }
    out.sort();
    out
}

fn app_files() -> Vec<(String, String)> {
    files_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn the_app_has_no_import_cycle_and_every_import_points_down_its_layers() {
    let files = app_files();
    let edges = graph(&files);
    // The reader sees the edges it should: if it found none, the checks below would pass for nothing.
    for (from, to) in [
        ("app", "services::exploring"),
        ("views::panes::timeline", "views::panes::costs"),
        ("views::panes::program", "views::panes::contract"),
        ("ctx", "model::deferred"),
        ("markup::highlight", "markup::html"),
    ] {
        assert!(
            edges.get(from).is_some_and(|t| t.contains(to)),
            "{from} → {to} not found: {edges:#?}"
        );
    }
    if let Some(c) = cycle(&edges) {
        panic!("an import cycle in app/src: {}", c.join(" → "));
    }
    let up = upward(&edges);
    assert!(
        up.is_empty(),
        "imports against the layers ({}): {}",
        LAYERS.join(" < "),
        up.join(", ")
    );
}

#[test]
fn the_layers_without_a_page_use_no_page_crate() {
    for (module, text) in app_files() {
        if layer(&module).is_some_and(|l| l < 2) {
            let code = code_only(&text);
            for name in PAGE_CRATES {
                assert!(
                    !code.contains(&format!("{name}::")),
                    "{module} uses {name}, but model and markup know nothing of the page"
                );
            }
        }
    }
}

#[test]
fn the_reader_finds_cycles_and_upward_edges_in_a_made_up_crate() {
    let file = |m: &str, t: &str| (m.to_string(), t.to_string());
    let files = [
        file("main", "mod app; mod dom;"),
        file("app", "use crate::views::{header, panes::code};"),
        file("views", "pub mod header; pub mod panes;"),
        file(
            "views::header",
            "use super::panes::code; // crate::app in a comment\n",
        ),
        file("views::panes", "mod code; fn f() { code::g() }"),
        file(
            "views::panes::code",
            "fn g() { crate::dom::by_id(\"crate::app\"); }\nmod tests { use super::*; }",
        ),
        file("dom", "pub fn by_id() { let _ = crate::views::header::X; }"),
    ];
    let edges = graph(&files);
    let of = |m: &str| edges.get(m).cloned().unwrap_or_default();
    assert_eq!(
        of("app"),
        ["views::header", "views::panes::code"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        of("views::header"),
        ["views::panes::code"].map(String::from).into()
    );
    assert_eq!(of("views::panes::code"), ["dom"].map(String::from).into());
    assert_eq!(
        cycle(&edges).map(|c| c.join(" → ")),
        Some("views::header → views::panes::code → dom → views::header".into())
    );
    // Declared submodules count; `super` inside an inline `mod tests` is the file's own module.
    assert_eq!(of("main"), ["app", "dom"].map(String::from).into());
    assert_eq!(
        of("views::panes"),
        ["views::panes::code"].map(String::from).into()
    );
    assert_eq!(
        of("views"),
        ["views::header", "views::panes"].map(String::from).into()
    );
    assert_eq!(upward(&edges), ["dom → views::header"]);
}
