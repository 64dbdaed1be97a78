//! The house's layers (docs/architecture.md, "Layers") hold: every `crate::` path in the
//! library's production code names a module of a lower layer than its own.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::rust_files;

const ARCHITECTURE: &str = include_str!("../docs/architecture.md");

/// Known imports that still run back up, each with the work that removes it. Empty when the
/// house is in order; a test below fails if an entry here is no longer needed.
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// The layer table: module name -> layer number (1 is the top).
fn layers() -> BTreeMap<String, u32> {
    let section = ARCHITECTURE
        .split("\n## Layers\n")
        .nth(1)
        .expect("docs/architecture.md has a \"## Layers\" section");
    let mut layers = BTreeMap::new();
    for line in section.lines().take_while(|l| !l.starts_with("## ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Some(layer) = cells.get(1).and_then(|c| c.parse::<u32>().ok()) else {
            continue;
        };
        for module in cells[2].split(',') {
            let module = module.trim().trim_matches('`').to_string();
            assert!(
                layers.insert(module.clone(), layer).is_none(),
                "{module} is in two layers"
            );
        }
    }
    assert!(
        layers.len() > 10,
        "the layer table was not found: {layers:?}"
    );
    layers
}

/// The production code of a source file: comments and the trailing test module left out.
/// Test-only files (`tests.rs`, `*_tests.rs`) have none.
fn production_code(path: &Path, text: &str) -> String {
    let name = path.file_name().unwrap().to_string_lossy();
    if name == "tests.rs" || name.ends_with("_tests.rs") {
        return String::new();
    }
    let code = text.split("#[cfg(test)]").next().unwrap();
    code.lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a piece of code names through `crate::`, including the ones inside
/// `use crate::{a::X, b::Y}`.
fn named_modules(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The first segment of each top-level item of the group.
            let mut depth = 0;
            let mut item_start = true;
            let mut head = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => head.push(c),
                    _ if item_start && !head.is_empty() => {
                        found.push(std::mem::take(&mut head));
                        item_start = false;
                    }
                    _ => {}
                }
            }
            found.push(head);
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            found.push(rest[..end].to_string());
        }
    }
    found.retain(|m| !m.is_empty());
    found
}

/// Every import that breaks the table: (file under src/, the module it names).
fn upward_imports() -> Vec<(String, String)> {
    let layers = layers();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut broken = Vec::new();
    for path in files {
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let own = relative
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        if own == "main" || own == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let named = named_modules(&production_code(&path, &text));
        if own == "test_support" {
            // The unit tests' helpers (`#[cfg(test)]`): test code, like the test modules.
            continue;
        }
        let own_layer = *layers
            .get(&own)
            .unwrap_or_else(|| panic!("src/{relative}: module {own} is not in the layer table"));
        for module in named {
            // `test_support` holds the unit tests' helpers; only `#[cfg(test)]` code names it.
            if module == own || module == "self" || module == "test_support" {
                continue;
            }
            let layer = *layers.get(&module).unwrap_or_else(|| {
                panic!("src/{relative} names crate::{module}, which is not in the layer table")
            });
            if layer <= own_layer {
                broken.push((relative.clone(), module));
            }
        }
    }
    broken.sort();
    broken.dedup();
    broken
}

#[test]
fn no_import_runs_back_up_the_layers() {
    let unexpected: Vec<_> = upward_imports()
        .into_iter()
        .filter(|(file, module)| !KNOWN_UPWARD.contains(&(file.as_str(), module.as_str())))
        .collect();
    assert!(
        unexpected.is_empty(),
        "imports of a module in the same or a higher layer (docs/architecture.md, \"Layers\"): {unexpected:?}"
    );
}

#[test]
fn every_known_upward_import_is_still_there() {
    let broken = upward_imports();
    for (file, module) in KNOWN_UPWARD {
        assert!(
            broken.contains(&(file.to_string(), module.to_string())),
            "src/{file} no longer imports {module}: remove it from KNOWN_UPWARD"
        );
    }
}

#[test]
fn every_module_of_the_library_is_in_the_layer_table() {
    let layers = layers();
    let lib = include_str!("../src/lib.rs");
    for line in lib.lines() {
        if let Some(module) = line.strip_prefix("pub mod ") {
            let module = module.trim_end_matches(';');
            assert!(layers.contains_key(module), "{module} has no layer");
        }
    }
}

#[test]
fn the_reader_finds_grouped_and_plain_paths() {
    let code = "use crate::{event::Side, rules::{self, X}};\nlet x = crate::clock::Clock::new();";
    let found = named_modules(code);
    assert!(found.contains(&"event".to_string()), "{found:?}");
    assert!(found.contains(&"rules".to_string()), "{found:?}");
    assert!(found.contains(&"clock".to_string()), "{found:?}");
}
