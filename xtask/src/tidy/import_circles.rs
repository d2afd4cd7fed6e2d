//! Tidy's import-circle rule: inside a crate, files that import each other in a loop
//! (`a.rs` names `crate::b`, `b.rs` names `crate::a`, directly or through others) are one
//! design problem spread over several rooms (the style guide, "No circles"). The rule builds
//! each crate's graph of files from the paths its code names (`crate::…`, `super::…`, grouped
//! `use` trees included) and fails on every strongly connected group of two or more files.
//!
//! What is not an edge, and why:
//! - a module naming its own ancestors (`super::Error` in a child): a child lives in the room
//!   its parent gives it. The other way round is an edge: a parent that names its child
//!   (`child::X`, bare or not) depends on it, so `a.rs` → `b.rs` → `b/c.rs` → `a.rs` is a circle;
//! - the crate root (`lib.rs`, `main.rs`): it declares every module and re-exports, so every
//!   file "uses" it and it "uses" every file;
//! - test code: `tests.rs` files, folders named `tests`, and the `#[cfg(test)] mod tests`
//!   that ends a file are not the program's structure.
//!
//! Circles that exist when the rule arrives and are being untangled are listed in
//! [`KNOWN_CIRCLES`], each with why; a circle not listed there, or wider than listed, fails.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::Problem;

/// Circles tolerated for now, as the sorted list of the files (relative to the repository
/// root) that form one, with why it is still there. Empty since issue 30: keep it so.
const KNOWN_CIRCLES: &[(&[&str], &str)] = &[];

/// The problems of the whole repository: one per circle in any crate under `crates/`.
pub(super) fn check(root: &Path, files: &[PathBuf]) -> Vec<Problem> {
    let mut crates: BTreeMap<String, Vec<(Vec<String>, PathBuf)>> = BTreeMap::new();
    for file in files {
        let shown = file.to_string_lossy().replace('\\', "/");
        let Some((krate, module)) = module_of(&shown) else {
            continue;
        };
        crates
            .entry(krate)
            .or_default()
            .push((module, file.clone()));
    }
    let mut problems = Vec::new();
    for (krate, modules) in &crates {
        let mut texts = Vec::new();
        for (module, file) in modules {
            match std::fs::read_to_string(root.join(file)) {
                Ok(text) => texts.push((module.clone(), file.clone(), text)),
                Err(error) => problems.push(super::unreadable(file, &error)),
            }
        }
        problems.extend(circles_of(krate, &texts));
    }
    let mut stale = Vec::new();
    problems.retain(|problem| {
        let known = KNOWN_CIRCLES
            .iter()
            .find(|(known, _)| problem.message.ends_with(&listing(known)));
        if let Some((known, _)) = known {
            stale.push(*known);
        }
        known.is_none()
    });
    for (known, _) in KNOWN_CIRCLES {
        if !stale.contains(known) {
            problems.push(Problem {
                path: PathBuf::from("xtask/src/tidy/import_circles.rs"),
                line: 1,
                message: format!(
                    "KNOWN_CIRCLES lists a circle that is gone ({}): remove the entry, so it cannot come back unnoticed",
                    listing(known)
                ),
            });
        }
    }
    problems
}

/// How a circle's files are shown: sorted repository paths, joined.
fn listing<S: AsRef<str>>(files: &[S]) -> String {
    let mut files: Vec<&str> = files.iter().map(AsRef::as_ref).collect();
    files.sort_unstable();
    format!("[{}]", files.join(", "))
}

/// The circles of one crate, given each file's module path, its repository path and its text.
fn circles_of(krate: &str, files: &[(Vec<String>, PathBuf, String)]) -> Vec<Problem> {
    let modules: BTreeSet<&[String]> = files.iter().map(|(module, _, _)| &module[..]).collect();
    let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    let index_of: BTreeMap<&[String], usize> = files
        .iter()
        .enumerate()
        .map(|(index, (module, _, _))| (&module[..], index))
        .collect();
    for (from, (module, _, text)) in files.iter().enumerate() {
        let children: Vec<&str> = modules
            .iter()
            .filter(|other| other.len() == module.len() + 1 && other.starts_with(module))
            .filter_map(|child| child.last().map(String::as_str))
            .collect();
        for named in named_paths(&code_of(text), &children) {
            let Some(absolute) = resolve(module, &named) else {
                continue;
            };
            let Some(target) = longest_module(&modules, &absolute) else {
                continue;
            };
            if target.is_empty() || module.starts_with(target) {
                continue;
            }
            if let Some(&to) = index_of.get(target) {
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    let mut problems = Vec::new();
    for component in strongly_connected(files.len(), &edges) {
        if component.len() < 2 {
            continue;
        }
        let mut names: Vec<String> = component
            .iter()
            .map(|&index| files[index].1.to_string_lossy().replace('\\', "/"))
            .collect();
        names.sort();
        let first = component
            .iter()
            .map(|&index| &files[index].1)
            .min()
            .cloned()
            .unwrap_or_default();
        let short: Vec<&str> = names
            .iter()
            .map(|name| {
                name.rsplit_once("/src/")
                    .map_or(name.as_str(), |(_, rest)| rest)
            })
            .collect();
        problems.push(Problem {
            path: first,
            line: 1,
            message: format!(
                "{krate}: these files import each other in a circle: {} — move what both halves need into a module below them, so imports run one way (the style guide, \"No circles\"); the files: {}",
                short.join(" ↔ "),
                listing(&names)
            ),
        });
    }
    problems
}

/// The crate and module path of a source file under `crates/<crate>/src/`, or `None` for
/// anything that is not the library's or binary's own module tree (test files and folders,
/// extra binaries under `src/bin/`).
fn module_of(shown: &str) -> Option<(String, Vec<String>)> {
    let rest = shown.strip_prefix("crates/")?;
    let (krate, rest) = rest.split_once("/src/")?;
    if krate.contains('/') || !rest.ends_with(".rs") || rest.starts_with("bin/") {
        return None;
    }
    let mut parts: Vec<String> = rest
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if parts.iter().any(|part| part == "tests") {
        return None;
    }
    if let Some(last) = parts.last()
        && (last == "mod" || ((last == "lib" || last == "main") && parts.len() == 1))
    {
        parts.pop();
    }
    Some((krate.to_owned(), parts))
}

/// The text the program runs: comments blanked and the `#[cfg(test)] mod tests` that ends a
/// file cut off.
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = String::new();
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let next = lines.get(index + 1).map_or("", |next| next.trim_start());
        // `mod tests {` is the test block that ends a file; `mod tests;` only declares a
        // file of its own, and the code after it is still the program's.
        if trimmed.starts_with("#[cfg(test)]") && next.starts_with("mod tests {") {
            break;
        }
        let without_comment = line.find("//").map_or(*line, |at| &line[..at]);
        code.push_str(without_comment);
        code.push('\n');
    }
    code
}

/// Every path the code names starting with `crate`, `super`, `self` or one of `children` (the
/// file's own child modules, which Rust lets it name bare), as its segments, with grouped
/// `use` trees (`crate::{a::B, c::{d, e}}`) expanded.
fn named_paths(code: &str, children: &[&str]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut paths = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let starts = ["crate", "super", "self"]
            .iter()
            .chain(children)
            .any(|start| {
                bytes[at..].starts_with(start.as_bytes())
                    && bytes[at + start.len()..].starts_with(b"::")
            });
        let boundary = at == 0 || !is_ident_byte(bytes[at - 1]) && bytes[at - 1] != b':';
        if starts && boundary {
            let mut prefix = Vec::new();
            let end = use_tree(code, at, &mut prefix, &mut paths);
            at = end.max(at + 1);
        } else {
            at += 1;
        }
    }
    paths
}

/// Parses one use tree starting at `at` below `prefix`, pushing every full path; returns
/// where it ended.
fn use_tree(
    code: &str,
    mut at: usize,
    prefix: &mut Vec<String>,
    paths: &mut Vec<Vec<String>>,
) -> usize {
    let bytes = code.as_bytes();
    let depth = prefix.len();
    loop {
        at = skip_space(bytes, at);
        let start = at;
        while at < bytes.len() && is_ident_byte(bytes[at]) {
            at += 1;
        }
        if start == at {
            if at < bytes.len() && bytes[at] == b'{' {
                at += 1;
                loop {
                    at = skip_space(bytes, at);
                    if at >= bytes.len() {
                        break;
                    }
                    if bytes[at] == b'}' {
                        at += 1;
                        break;
                    }
                    if bytes[at] == b',' {
                        at += 1;
                        continue;
                    }
                    let before = at;
                    at = use_tree(code, at, prefix, paths);
                    if at == before {
                        at += 1;
                    }
                }
            } else if prefix.len() > depth {
                paths.push(prefix.clone());
            }
            prefix.truncate(depth);
            return at;
        }
        prefix.push(code[start..at].to_owned());
        let after = skip_space(bytes, at);
        if bytes[after..].starts_with(b"::") {
            at = after + 2;
            continue;
        }
        paths.push(prefix.clone());
        prefix.truncate(depth);
        return at;
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && bytes[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

fn is_ident_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The absolute module path a named path leads to, in the file whose module is `module`
/// (`x.rs` and `x/mod.rs` are both module `x`, so `super` counts the same from either).
fn resolve(module: &[String], named: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = module.to_vec();
    let mut segments = named.iter().peekable();
    match segments.peek().map(|segment| segment.as_str()) {
        Some("crate") => {
            base.clear();
            segments.next();
        }
        Some("self") => {
            segments.next();
        }
        Some("super") => {
            while segments.peek().is_some_and(|segment| *segment == "super") {
                segments.next();
                base.pop()?;
            }
        }
        Some(_) => {}
        None => return None,
    }
    base.extend(segments.cloned());
    Some(base)
}

/// The longest module of the crate that `path` starts with.
fn longest_module<'a>(modules: &BTreeSet<&'a [String]>, path: &[String]) -> Option<&'a [String]> {
    (0..=path.len())
        .rev()
        .find_map(|length| modules.get(&path[..length]).copied())
}

/// Tarjan's strongly connected components over `count` nodes.
fn strongly_connected(count: usize, edges: &BTreeMap<usize, BTreeSet<usize>>) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<usize, BTreeSet<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    fn visit(state: &mut State<'_>, node: usize) {
        state.index[node] = Some(state.next);
        state.low[node] = state.next;
        state.next += 1;
        state.stack.push(node);
        state.on_stack[node] = true;
        let targets: Vec<usize> = state
            .edges
            .get(&node)
            .map(|targets| targets.iter().copied().collect())
            .unwrap_or_default();
        for target in targets {
            match state.index[target] {
                None => {
                    visit(state, target);
                    state.low[node] = state.low[node].min(state.low[target]);
                }
                Some(index) if state.on_stack[target] => {
                    state.low[node] = state.low[node].min(index);
                }
                Some(_) => {}
            }
        }
        if Some(state.low[node]) == state.index[node] {
            let mut component = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack[member] = false;
                component.push(member);
                if member == node {
                    break;
                }
            }
            state.components.push(component);
        }
    }
    let mut state = State {
        edges,
        index: vec![None; count],
        low: vec![0; count],
        on_stack: vec![false; count],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for node in 0..count {
        if state.index[node].is_none() {
            visit(&mut state, node);
        }
    }
    state.components
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> (Vec<String>, PathBuf, String) {
        let (_, module) = module_of(path).expect("a module path");
        (module, PathBuf::from(path), text.to_owned())
    }

    #[test]
    fn module_paths_follow_the_file_layout() {
        let module = |path: &str| module_of(path).map(|(krate, parts)| (krate, parts.join("::")));
        assert_eq!(
            module("crates/a/src/lib.rs"),
            Some(("a".into(), String::new()))
        );
        assert_eq!(module("crates/a/src/x.rs"), Some(("a".into(), "x".into())));
        assert_eq!(
            module("crates/a/src/x/y.rs"),
            Some(("a".into(), "x::y".into()))
        );
        assert_eq!(
            module("crates/a/src/x/mod.rs"),
            Some(("a".into(), "x".into()))
        );
        assert_eq!(module("crates/a/src/x/tests.rs"), None);
        assert_eq!(module("crates/a/src/bin/tool.rs"), None);
        assert_eq!(module("crates/a/tests/it/main.rs"), None);
    }

    #[test]
    fn grouped_use_trees_are_expanded() {
        let paths = named_paths(
            "use crate::{a::B, c::{d, e::F}};\nlet x = super::g::h(); kid::K; notkid::N;",
            &["kid"],
        );
        let shown: Vec<String> = paths.iter().map(|path| path.join("::")).collect();
        assert_eq!(
            shown,
            [
                "crate::a::B",
                "crate::c::d",
                "crate::c::e::F",
                "super::g::h",
                "kid::K"
            ]
        );
    }

    #[test]
    fn a_loop_between_sibling_files_is_found() {
        let files = [
            file("crates/a/src/lib.rs", "mod x; mod y; mod z;"),
            file("crates/a/src/x.rs", "use crate::y::Thing;"),
            file("crates/a/src/y.rs", "pub fn f() { super::z::g() }"),
            file("crates/a/src/z.rs", "use crate::{x::Other};"),
        ];
        let problems = circles_of("a", &files);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].message.contains("x.rs ↔ y.rs ↔ z.rs"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn parents_children_the_root_comments_and_tests_make_no_circle() {
        let files = [
            file(
                "crates/a/src/lib.rs",
                "pub use crate::x::X; pub use crate::y::Y;",
            ),
            file(
                "crates/a/src/x.rs",
                "mod inner; use crate::x::inner::I; use crate::Y;",
            ),
            file("crates/a/src/x/inner.rs", "use super::X;"),
            file(
                "crates/a/src/y.rs",
                "// crate::x::X is not code\nfn f() {}\n#[cfg(test)]\nmod tests {\n use crate::x::X;\n}",
            ),
            file("crates/a/src/z.rs", "use crate::y::Y;"),
        ];
        let problems = circles_of("a", &files);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn a_loop_through_a_parent_and_its_child_is_found() {
        let files = [
            file(
                "crates/a/src/lib.rs",
                "mod registry; mod write; mod install;",
            ),
            file(
                "crates/a/src/write.rs",
                "fn f() { crate::registry::check() }",
            ),
            file(
                "crates/a/src/registry.rs",
                "mod resolve;\npub use resolve::entry;",
            ),
            file(
                "crates/a/src/registry/resolve.rs",
                "use super::Error; use crate::install::run;",
            ),
            file("crates/a/src/install.rs", "use crate::write;"),
        ];
        let problems = circles_of("a", &files);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0]
                .message
                .contains("install.rs ↔ registry.rs ↔ registry/resolve.rs ↔ write.rs"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn a_one_way_chain_is_no_circle_but_closing_it_is() {
        let chain = [
            file("crates/a/src/x.rs", "use crate::y::Y;"),
            file("crates/a/src/y.rs", "use crate::z::Z;"),
            file("crates/a/src/z.rs", "pub struct Z;"),
        ];
        assert!(circles_of("a", &chain).is_empty());
        let closed = [
            file("crates/a/src/x.rs", "use crate::y::Y;"),
            file("crates/a/src/y.rs", "use crate::z::Z;"),
            file("crates/a/src/z.rs", "use crate::x;"),
        ];
        assert_eq!(circles_of("a", &closed).len(), 1);
    }
}
