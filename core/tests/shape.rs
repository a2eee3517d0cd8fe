//! The shape of the code (issue 22): no function in `core/src`, `link/src` or `app/src` longer than
//! `MAX_FUNCTION_LINES`, and no module of `core/src` with more than `MAX_MODULE_LINES` lines of code
//! (its tests excluded). A long function is split into named steps, a long module into a folder of
//! files named for what they hold; the test names every offender, not only the first.
//!
//! A function's length is counted from the line of its `fn` to the line of its closing brace. The
//! scan reads text, not syntax trees: it skips comments and the contents of string and character
//! literals so that their braces do not count.

use std::path::{Path, PathBuf};

const MAX_FUNCTION_LINES: usize = 150;
const MAX_MODULE_LINES: usize = 900;

/// Functions allowed over the limit for now, as `path::name` (path from the repository root).
const LONG_FUNCTIONS_ALLOWED: &[&str] = &[];

/// Modules allowed over the limit for now (path from the repository root).
const LONG_MODULES_ALLOWED: &[&str] = &[];

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text with comments and the contents of string and char literals blanked (newlines kept, so
/// line numbers still hold).
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, b: u8| out.push(if b == b'\n' { b'\n' } else { b' ' });
    while let Some(&b) = bytes.get(i) {
        let next = bytes.get(i + 1).copied();
        if b == b'/' && next == Some(b'/') {
            while let Some(&c) = bytes.get(i) {
                if c == b'\n' {
                    break;
                }
                out.push(b' ');
                i += 1;
            }
        } else if b == b'/' && next == Some(b'*') {
            let mut depth = 0usize;
            while let Some(&c) = bytes.get(i) {
                let n = bytes.get(i + 1).copied();
                if c == b'/' && n == Some(b'*') {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if c == b'*' && n == Some(b'/') {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c);
                    i += 1;
                }
            }
        } else if b == b'r'
            && matches!(next, Some(b'"') | Some(b'#'))
            && !bytes
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_ascii_alphanumeric() || *p == b'_')
        {
            // A raw string: `r"…"` or `r#"…"#`, ended by the quote and as many hashes.
            let mut hashes = 0;
            let mut j = i + 1;
            while bytes.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if bytes.get(j) != Some(&b'"') {
                out.push(b);
                i += 1;
                continue;
            }
            out.resize(out.len() + (j + 1 - i), b' ');
            i = j + 1;
            while let Some(&c) = bytes.get(i) {
                let closes = c == b'"' && (1..=hashes).all(|k| bytes.get(i + k) == Some(&b'#'));
                if closes {
                    out.resize(out.len() + 1 + hashes, b' ');
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, c);
                i += 1;
            }
        } else if b == b'"' {
            out.push(b' ');
            i += 1;
            while let Some(&c) = bytes.get(i) {
                if c == b'\\' {
                    out.push(b' ');
                    if let Some(&escaped) = bytes.get(i + 1) {
                        blank(&mut out, escaped);
                    }
                    i += 2;
                    continue;
                }
                blank(&mut out, c);
                i += 1;
                if c == b'"' {
                    break;
                }
            }
        } else if b == b'\'' {
            // A char literal ('x', '\n', '\u{7b}') or a lifetime ('a): only the former is blanked.
            let literal_end = if next == Some(b'\\') {
                (i + 2..bytes.len().min(i + 12)).find(|&k| bytes.get(k) == Some(&b'\''))
            } else {
                let width = text
                    .get(i + 1..)
                    .and_then(|s| s.chars().next())
                    .map_or(1, char::len_utf8);
                (bytes.get(i + 1 + width) == Some(&b'\'')).then_some(i + 1 + width)
            };
            match literal_end {
                Some(end) => {
                    out.resize(out.len() + (end + 1 - i), b' ');
                    i = end + 1;
                }
                None => {
                    out.push(b);
                    i += 1;
                }
            }
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The name of the function a line declares, if it declares one with a body on or after it.
fn declared_function(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace().peekable();
    while let Some(word) = words.next() {
        if word == "fn" {
            let name = words.next()?;
            let end = name
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(name.len());
            return name.get(..end).filter(|n| !n.is_empty());
        }
        let qualifier = word.starts_with("pub")
            || matches!(word, "const" | "async" | "unsafe" | "extern" | "default")
            || word.starts_with('"');
        if !qualifier {
            return None;
        }
    }
    None
}

/// `(name, first line, length in lines)` of every function with a body.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(name) = declared_function(line) else {
            continue;
        };
        // The body opens at the first `{` before any `;` outside brackets (a declaration without a
        // body ends at `;`; `[u8; 4]` in the signature does not).
        let mut depth = 0usize;
        let mut brackets = 0usize;
        let mut opened = false;
        let mut end = None;
        'scan: for (offset, text) in lines.iter().enumerate().skip(start) {
            for c in text.chars() {
                match c {
                    '(' | '[' if !opened => brackets += 1,
                    ')' | ']' if !opened => brackets = brackets.saturating_sub(1),
                    ';' if !opened && brackets == 0 => break 'scan,
                    '{' => {
                        opened = true;
                        depth += 1;
                    }
                    '}' if opened => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(offset);
                            break 'scan;
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(end) = end {
            found.push((name.to_string(), start + 1, end - start + 1));
        }
    }
    found
}

/// Lines of code before the module's tests (`#[cfg(test)]` at the start of a line).
fn module_code_lines(text: &str) -> usize {
    text.lines()
        .take_while(|l| !l.starts_with("#[cfg(test)]"))
        .count()
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn no_function_is_longer_than_the_limit() {
    let root = repository_root();
    let mut files = Vec::new();
    for dir in ["core/src", "link/src", "app/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut long = Vec::new();
    let mut allowed_seen = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let file = relative(path, &root);
        for (name, line, length) in functions(&code_only(&text)) {
            if length <= MAX_FUNCTION_LINES {
                continue;
            }
            let key = format!("{file}::{name}");
            if LONG_FUNCTIONS_ALLOWED.contains(&key.as_str()) {
                allowed_seen.push(key);
            } else {
                long.push(format!("{file}:{line} `{name}`: {length} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines — split each into named steps:\n  {}",
        long.join("\n  ")
    );
    let stale: Vec<&&str> = LONG_FUNCTIONS_ALLOWED
        .iter()
        .filter(|a| !allowed_seen.iter().any(|s| s == **a))
        .collect();
    assert!(
        stale.is_empty(),
        "allowed long functions that are no longer long (or gone): remove them from the list: {stale:?}"
    );
}

#[test]
fn no_core_module_is_longer_than_the_limit() {
    let root = repository_root();
    let mut files = Vec::new();
    rust_files(&root.join("core/src"), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let file = relative(path, &root);
            let lines = module_code_lines(&std::fs::read_to_string(path).unwrap_or_default());
            (lines > MAX_MODULE_LINES && !LONG_MODULES_ALLOWED.contains(&file.as_str()))
                .then(|| format!("{file}: {lines} lines of code"))
        })
        .collect();
    assert!(
        long.is_empty(),
        "modules over {MAX_MODULE_LINES} lines of code — split each into a folder of files named \
         for what they hold:\n  {}",
        long.join("\n  ")
    );
}

#[test]
fn the_scan_measures_what_it_claims() {
    let text = "fn short() {\n    let s = \"}\";\n    let c = '{';\n}\n\
                pub(crate) fn long<'a>(x: &'a str) -> &'a str {\n    // }\n    /* { */\n    \
                let r = r#\"}\"#;\n    x\n}\n\
                trait T { fn declared(&self); }\n                fn array(a: [u8; 2]) {\n}\n";
    let found = functions(&code_only(text));
    assert_eq!(
        found,
        vec![
            ("short".to_string(), 1, 4),
            ("long".to_string(), 5, 6),
            ("array".to_string(), 12, 2)
        ]
    );
}
