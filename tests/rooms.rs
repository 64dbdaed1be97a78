//! The house's rooms stay small enough to read: no production function in `src/` is longer
//! than [`MAX_LINES`] lines, data tables aside (issue 21.6), and no comment points at a file
//! this repository does not hold (issue 21.7).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::rust_files;

/// The longest a production function may be, counted from the line of its `fn` to the line
/// of its closing brace.
const MAX_LINES: usize = 120;

/// Functions allowed to be longer: data tables, whose length is their content, not steps.
/// (path under `src/`, function name, why).
const DATA_TABLES: &[(&str, &str, &str)] = &[
    (
        "app/rules.rs",
        "ruleset_rulings",
        "one (situation, ruling) row per situation and ruleset: what `blitz-arena rules` prints",
    ),
    (
        "rules/cite.rs",
        "cite",
        "one match arm per (situation, ruleset): the rule that decides it, nothing else",
    ),
];

/// Functions still too long, each waiting for its split into named steps (issue 21.6). Empty
/// when the house is in order; the test fails if an entry here is no longer needed.
const TO_SPLIT: &[(&str, &str)] = &[];

/// A source file with its comments and the contents of its string and character literals
/// blanked out (newlines kept, so line numbers hold): what is left is code only.
fn code_only(text: &str) -> Vec<char> {
    let src: Vec<char> = text.chars().collect();
    let mut out = src.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        let next = src.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = (i..src.len())
                .find(|&j| src[j] == '\n')
                .unwrap_or(src.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            // Block comments nest.
            let (mut depth, mut j) = (1, i + 2);
            while j < src.len() && depth > 0 {
                if src[j] == '/' && src.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if src[j] == '*' && src.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some((prefix, hashes)) = raw_string_start(&src, i) {
            // A raw string: r"..." or br#"..."#, with as many hashes to close as to open.
            // (An identifier is skipped whole below, so `i` starts a token here.)
            let body = i + prefix + hashes + 1;
            let mut j = body;
            loop {
                if j >= src.len() {
                    break;
                }
                if src[j] == '"' && (1..=hashes).all(|k| src.get(j + k) == Some(&'#')) {
                    break;
                }
                j += 1;
            }
            blank(&mut out, body, j.min(src.len()));
            i = j + 1 + hashes;
        } else if c == '"' {
            let mut j = i + 1;
            while j < src.len() && src[j] != '"' {
                j += if src[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j.min(src.len()));
            i = j + 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                let mut j = i + 2;
                while j < src.len() && src[j] != '\'' {
                    j += 1;
                }
                blank(&mut out, i + 1, j.min(src.len()));
                i = j + 1;
            } else if src.get(i + 2) == Some(&'\'') {
                blank(&mut out, i + 1, i + 2);
                i += 3;
            } else {
                i += 1;
            }
        } else if ident(c) {
            // Skip the whole identifier, so that the `r` or `b` inside one starts nothing.
            while i < src.len() && ident(src[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// If a raw string starts at `at`: the length of its prefix (`r` or `br`) and its number of
/// `#`s (a raw identifier, `r#type`, is none).
fn raw_string_start(src: &[char], at: usize) -> Option<(usize, usize)> {
    let prefix = match (src.get(at), src.get(at + 1)) {
        (Some('r'), _) => 1,
        (Some('b'), Some('r')) => 2,
        _ => return None,
    };
    let hashes = src[at + prefix..].iter().take_while(|&&c| c == '#').count();
    (src.get(at + prefix + hashes) == Some(&'"')).then_some((prefix, hashes))
}

/// The index just past the brace that closes the one at `open`.
fn matching_brace(code: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (j, &c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced braces")
}

fn word_at(code: &[char], i: usize, word: &str) -> bool {
    let ident = |c: &char| c.is_alphanumeric() || *c == '_';
    word.chars()
        .enumerate()
        .all(|(k, w)| code.get(i + k) == Some(&w))
        && (i == 0 || !ident(&code[i - 1]))
        && !code.get(i + word.len()).is_some_and(ident)
}

fn skip_space(code: &[char], mut i: usize) -> usize {
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    i
}

/// The identifier starting at `i`.
fn ident_at(code: &[char], i: usize) -> String {
    code[i..]
        .iter()
        .take_while(|c| c.is_alphanumeric() || **c == '_')
        .collect()
}

/// Where the item starting at `i` ends: past its `;`, or past the braces of its body (a `use`
/// with a group runs on to its `;`).
fn item_end(code: &[char], i: usize) -> usize {
    let is_use = word_at(code, i, "use") || word_at(code, skip_space(code, i + 3), "use");
    let mut j = i;
    while j < code.len() {
        match code[j] {
            ';' => return j + 1,
            '{' if !is_use => return matching_brace(code, j),
            '{' => j = matching_brace(code, j),
            _ => j += 1,
        }
    }
    code.len()
}

/// Blanks out every item marked `#[cfg(test)]` (test modules, test helpers), and returns the
/// names of the test modules declared here whose bodies live in files of their own (with the
/// `#[path]` they name, if any).
fn drop_test_items(text: &str, code: &mut [char]) -> Vec<(String, Option<String>)> {
    let original: Vec<char> = text.chars().collect();
    let text: String = code.iter().collect();
    let mut out_of_line = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find("#[cfg(test)]") {
        let at = text[..from + k].chars().count();
        from += k + "#[cfg(test)]".len();
        let mut i = skip_space(code, at + "#[cfg(test)]".chars().count());
        // Further attributes of the same item.
        let mut path = None;
        while code.get(i) == Some(&'#') {
            let close = (i..code.len()).find(|&j| code[j] == ']').unwrap();
            // (Read from the source: the code has its string literals blanked.)
            let attr: String = original[i..=close].iter().collect();
            if attr.starts_with("#[path") {
                path = Some(attr);
            }
            i = skip_space(code, close + 1);
        }
        let end = item_end(code, i);
        let mut head = i;
        if word_at(code, head, "pub") {
            head = skip_space(code, head + 3);
            if code.get(head) == Some(&'(') {
                head = skip_space(
                    code,
                    (head..code.len()).find(|&j| code[j] == ')').unwrap() + 1,
                );
            }
        }
        if word_at(code, head, "mod") && code[end - 1] == ';' {
            out_of_line.push((ident_at(code, skip_space(code, head + 3)), path));
        }
        for c in &mut code[at..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    }
    out_of_line
}

/// The functions of some code with a body: (name, first line, number of lines).
fn functions(code: &[char]) -> Vec<(String, usize, usize)> {
    let line_of = |i: usize| code[..i].iter().filter(|&&c| c == '\n').count() + 1;
    let mut found = Vec::new();
    for i in 0..code.len() {
        if !word_at(code, i, "fn") {
            continue;
        }
        let name_at = skip_space(code, i + 2);
        let name = ident_at(code, name_at);
        if name.is_empty() {
            continue; // a function type, `fn(u8) -> u8`
        }
        // The body is the first `{` outside parentheses and brackets; a `;` first means none.
        let mut depth = 0i32;
        let mut j = name_at;
        let body = loop {
            match code.get(j) {
                None => break None,
                Some('(' | '[') => depth += 1,
                Some(')' | ']') => depth -= 1,
                Some(';') if depth == 0 => break None,
                Some('{') if depth == 0 => break Some(j),
                _ => {}
            }
            j += 1;
        };
        if let Some(open) = body {
            let close = matching_brace(code, open);
            let first = line_of(i);
            found.push((name, first, line_of(close - 1) - first + 1));
        }
    }
    found
}

/// Every production source file (test-module files left out) with its code only, test items
/// blanked out.
fn production_sources() -> Vec<(String, Vec<char>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut test_files = BTreeSet::new();
    let mut sources = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let mut code = code_only(&text);
        let dir = path.parent().unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy();
        // A module's children live beside `mod.rs`, `lib.rs` and `main.rs`, else in a folder
        // named after the file.
        let children = if ["mod", "lib", "main"].contains(&stem.as_ref()) {
            dir.to_path_buf()
        } else {
            dir.join(stem.as_ref())
        };
        for (module, attr) in drop_test_items(&text, &mut code) {
            match attr {
                Some(attr) => {
                    let file = attr.split('"').nth(1).expect("#[path = \"...\"]");
                    test_files.insert(dir.join(file));
                }
                None => {
                    test_files.insert(children.join(format!("{module}.rs")));
                    test_files.insert(children.join(&module).join("mod.rs"));
                }
            }
        }
        let name = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        sources.push((path.clone(), name, code));
    }
    // A folder of a test module is test code throughout.
    let is_test = |path: &Path| {
        test_files.contains(path)
            || test_files.iter().any(|t| {
                t.file_name().is_some_and(|n| n == "mod.rs")
                    && path.starts_with(t.parent().unwrap())
            })
    };
    sources
        .into_iter()
        .filter(|(path, _, _)| !is_test(path))
        .map(|(_, name, code)| (name, code))
        .collect()
}

#[test]
fn no_production_function_is_longer_than_the_limit() {
    let sources = production_sources();
    assert!(
        sources.len() > 50,
        "src/ was not read: {} files",
        sources.len()
    );
    // Test-module files are recognised from their `#[cfg(test)] mod` declarations.
    for test_file in [
        "rules/tests.rs",
        "game/scripted.rs",
        "rules/known_legal_tests.rs",
    ] {
        assert!(
            !sources.iter().any(|(name, _)| name == test_file),
            "{test_file} is test code"
        );
    }
    assert!(sources.iter().any(|(name, _)| name == "app/run.rs"));
    let mut too_long = Vec::new();
    let mut tables_seen = BTreeSet::new();
    for (file, code) in &sources {
        for (name, line, lines) in functions(code) {
            if lines <= MAX_LINES {
                continue;
            }
            if DATA_TABLES.iter().any(|(f, n, _)| f == file && *n == name)
                || TO_SPLIT.iter().any(|(f, n)| f == file && *n == name)
            {
                tables_seen.insert((file.clone(), name));
                continue;
            }
            too_long.push(format!("src/{file}:{line} fn {name}: {lines} lines"));
        }
    }
    assert!(
        too_long.is_empty(),
        "production functions longer than {MAX_LINES} lines (split them into named steps, or, \
         for a data table, list it in DATA_TABLES with why):\n{}",
        too_long.join("\n")
    );
    let listed = DATA_TABLES.iter().map(|(f, n, _)| (f, n));
    for (file, name) in listed.chain(TO_SPLIT.iter().map(|(f, n)| (f, n))) {
        assert!(
            tables_seen.contains(&(file.to_string(), name.to_string())),
            "src/{file} fn {name} is listed, but is no longer over {MAX_LINES} lines (or no \
             longer there): drop its entry"
        );
    }
}

/// The scanner itself: literals and comments hide no braces, test modules are left out.
#[test]
fn the_scanner_sees_functions_as_the_compiler_does() {
    let text = r####"
fn one() {
    let s = "}}} fn fake() {";
    let r = r#"}" fn fake2() {"#;
    let c = '}';
    let l: &'static str = "x";
    let b = b'{';
    let br = br"{{";
    // fn commented() {
    /* nested /* fn x() { */ } */
    let t = "\"}";
}
trait T { fn declared(&self) -> [u8; 2]; }
fn two(f: fn(u8) -> u8) -> u8 {
    f(1)
}
#[cfg(test)]
mod tests {
    fn in_test() {}
}
#[cfg(test)]
mod more_tests;
fn three() {}
"####;
    let mut code = code_only(text);
    let modules = drop_test_items(text, &mut code);
    assert_eq!(modules, vec![("more_tests".to_string(), None)]);
    let found: Vec<(String, usize, usize)> = functions(&code);
    assert_eq!(
        found,
        vec![
            ("one".to_string(), 2, 11),
            ("two".to_string(), 14, 3),
            ("three".to_string(), 23, 1),
        ]
    );
}

/// Files that still cite the shared rule or design text, each waiting for its citations to be
/// rewritten. Empty when the house is in order; the test fails if an entry here is no longer
/// needed.
const STILL_CITING: &[&str] = &[];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// A reader of this repository has neither the shared rule text nor the design text: comments and docs cite the rule
/// itself ("FIDE A.4.2", "USCF 16R") or docs/rulesets.md and docs/architecture.md.
#[test]
fn nothing_cites_files_the_repository_does_not_hold() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "docs"] {
        files_under(&root.join(dir), &mut files);
    }
    files.push(root.join("README.md"));
    let (outside, inside) = ("RULES", "DESIGN");
    let names = [format!("{outside}.md"), format!("{inside}.md")];
    let mut citing = BTreeSet::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue; // not text
        };
        if names.iter().any(|n| text.contains(n.as_str())) {
            let name = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            citing.insert(name);
        }
    }
    let unexpected: Vec<&String> = citing
        .iter()
        .filter(|f| !STILL_CITING.contains(&f.as_str()))
        .collect();
    assert!(
        unexpected.is_empty(),
        "these files cite the shared rule or design text (by its file name), which this repository does not hold (cite the \
         rule, or docs/rulesets.md or docs/architecture.md): {unexpected:?}"
    );
    for file in STILL_CITING {
        assert!(
            citing.contains(*file),
            "{file} cites neither shared text any more: drop it from STILL_CITING"
        );
    }
}
