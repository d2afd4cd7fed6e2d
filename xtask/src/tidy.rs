//! Tidy: the repository's conventions (the style guide; step 2 of ci) as code, so they hold
//! without a reviewer remembering them.
//!
//! The rules run in-process from `cargo xtask tidy` and `cargo xtask ci`, and again as the
//! `#[test]`s at the bottom of this file, so plain `cargo test` enforces them too (the
//! rust-analyzer habit). Every finding names `file:line`.
//!
//! The debugging-leftover rule scans raw text, comments and strings included: a test that
//! needs such a macro name as data builds it with `concat!`, as this file does.

mod import_circles;
mod state_files;
mod true_docs;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::Failure;

/// Directories never walked. A name without `/` is skipped at any depth; a path with `/` is
/// relative to the repository root. `target` covers the workspace's build output and any
/// other crate built in place (the stub consumer, the fuzz crate).
const SKIPPED_DIRS: [&str; 5] = [
    ".git",
    "target",
    "fuzz/corpus",
    "fuzz/artifacts",
    "fuzz/coverage",
];

/// Text that must not be committed in a `.rs` file, with why. The needles are assembled with
/// `concat!` so this file does not trip over its own rule.
const LEFTOVERS: [(&str, &str); 4] = [
    (
        concat!("dbg", "!"),
        "debugging output left in: remove it, or log through `tracing`",
    ),
    (
        concat!("todo", "!"),
        "unfinished code: finish it or return an error that says what is missing",
    ),
    (
        concat!("unimplemented", "!"),
        "unfinished code: finish it or return an error that says what is missing",
    ),
    (
        concat!("#[", "ignore"),
        "an ignored test never runs: fix it or delete it",
    ),
];

/// Crate boundaries from docs/ARCHITECTURE.md that a text search can hold: code under
/// `scope` (a path prefix) must not name `needle`, except under `allowed`. Comment lines are
/// not code and are skipped, so a module may explain what it stays away from.
struct Boundary {
    scope: &'static str,
    needle: &'static str,
    /// Path prefixes where the needle is fine.
    allowed: &'static [&'static str],
    why: &'static str,
    /// Whether test files (a `tests.rs`, anything in a `tests/` folder) may name it: a door
    /// keeps the library's own code in line, while a test starts its fixtures as it needs.
    tests_exempt: bool,
}

/// Whether `shown` (a `/`-separated repository path) is a test file.
fn is_test_file(shown: &str) -> bool {
    shown.contains("/tests/") || shown.ends_with("tests.rs")
}

/// (`core::net` is allowed: it holds the address types and no sockets.)
const NO_IO: &str = "skills-types and skills-stub hold data and no-ops: no files, network, processes, threads or environment (address types come from core::net)";

/// Where the environment may be read: the command line maps it, the facade's parity test
/// reads the mode CI asked for, and the runtime's tests hand their `PATH` to the children
/// they start (through `RuntimeConfig::inherited_env`, as the command line does).
const ENVIRONMENT_READERS: &[&str] = &[
    "crates/skills-cli/",
    "crates/skills/tests/",
    "crates/skills-runtime/src/tests.rs",
    "crates/skills-runtime/src/tools/tests.rs",
];

/// Why JSON an agent reads leaves the command line and the MCP server through one place each.
const ONE_EXIT: &str = "agent-facing JSON leaves through the one sanitiser's exit: the command line's `output::print_json` / `output::json_line`, the MCP server's `outbound.rs` (docs/decisions.md, Everything agent-facing through the one sanitiser)";

/// Why a child process is made in one place.
const ONE_SPAWNER: &str = "every child process goes through the runtime's door, `skills-runtime/src/spawn.rs` (an empty environment given whole, no standard input, a process group of its own); only the sandbox helper's own stages (`sandbox/isolate.rs`) and the command line's secret hand-over (`secrets.rs`, which re-executes itself) start one otherwise";

/// Why archives are read and written in one place each.
const ONE_ARCHIVE_DOOR: &str = "archives are read by the one extractor and written by the one packer, both in `skills-net/src/archive.rs` (no link out, no traversal, bounded; reproducible headers); the audit inflates gzip in memory within its caps (`hidden/decode.rs`) and writes nothing";

/// Where children may be made.
const SPAWNERS: &[&str] = &[
    "crates/skills-runtime/src/spawn.rs",
    "crates/skills-runtime/src/sandbox/isolate.rs",
    "crates/skills-cli/src/secrets.rs",
];

/// Where archive crates may be named.
const ARCHIVE_DOORS: &[&str] = &[
    "crates/skills-net/src/archive.rs",
    "crates/skills-audit/src/analyzers/hidden/decode.rs",
];

const BOUNDARIES: [Boundary; 21] = [
    Boundary {
        scope: "crates/skills-types/",
        needle: "std::fs",
        allowed: &[],
        why: NO_IO,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-types/",
        needle: "std::net",
        allowed: &[],
        why: NO_IO,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-types/",
        needle: "std::process",
        allowed: &[],
        why: NO_IO,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-types/",
        needle: "std::thread",
        allowed: &[],
        why: NO_IO,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-types/",
        needle: "std::env",
        allowed: &[],
        why: NO_IO,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-stub/",
        needle: "std::fs",
        allowed: &[],
        why: NO_IO,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-stub/",
        needle: "std::net",
        allowed: &[],
        why: NO_IO,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-stub/",
        needle: "std::thread",
        allowed: &[],
        why: NO_IO,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-stub/",
        needle: "std::env",
        allowed: &[],
        why: NO_IO,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/",
        needle: "serde_yaml",
        allowed: &["crates/skills-ops/src/yaml.rs"],
        why: "all YAML access lives in crates/skills-ops/src/yaml.rs, so the YAML crate can be swapped in one place",
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/",
        needle: "env::var",
        allowed: ENVIRONMENT_READERS,
        why: "the library never reads environment variables (the CLI maps them into SkillsConfig), so tests never race on the environment",
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/",
        needle: "env::set_var",
        allowed: ENVIRONMENT_READERS,
        why: "the library never changes the process environment",
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-cli/src/",
        needle: "serde_json::to_string",
        allowed: &["crates/skills-cli/src/output.rs"],
        why: ONE_EXIT,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/skills-cli/src/",
        needle: "serde_json::to_writer",
        allowed: &["crates/skills-cli/src/output.rs"],
        why: ONE_EXIT,
        tests_exempt: false,
    },
    Boundary {
        scope: "crates/",
        needle: "Command::new",
        allowed: SPAWNERS,
        why: ONE_SPAWNER,
        tests_exempt: true,
    },
    Boundary {
        scope: "crates/",
        needle: "reqwest",
        allowed: &["crates/skills-net/src/client.rs"],
        why: "every request goes through the one client (`skills-net/src/client.rs`): the URL policy and the address check on every hop, the limits, the proxy and CA configuration",
        tests_exempt: true,
    },
    Boundary {
        scope: "crates/",
        needle: "tar::",
        allowed: ARCHIVE_DOORS,
        why: ONE_ARCHIVE_DOOR,
        tests_exempt: true,
    },
    Boundary {
        scope: "crates/",
        needle: "zip::",
        allowed: ARCHIVE_DOORS,
        why: ONE_ARCHIVE_DOOR,
        tests_exempt: true,
    },
    Boundary {
        scope: "crates/",
        needle: "flate2::",
        allowed: ARCHIVE_DOORS,
        why: ONE_ARCHIVE_DOOR,
        tests_exempt: true,
    },
    Boundary {
        scope: "crates/skills-mcp/",
        needle: "transport::stdio",
        allowed: &[],
        why: ONE_EXIT,
        tests_exempt: false,
    },
    // The HTTP transport answers in `http.rs` alone, where every answer is wrapped by
    // `outbound::response`; a second place serving it would answer around the sanitiser.
    Boundary {
        scope: "crates/skills-mcp/",
        needle: "streamable_http_server",
        allowed: &["crates/skills-mcp/src/http.rs"],
        why: ONE_EXIT,
        tests_exempt: false,
    },
];

/// Text that points at the specification folder the project was written from, which sits
/// beside the repository and is not part of it: a reader of a clone follows such a reference
/// into nothing. Assembled with `concat!` so this file does not trip over its own rule.
const OUTSIDE_REFERENCES: [&str; 2] = [concat!("../", "shared"), concat!("shared", "/spec")];

/// File name endings insta leaves behind when a snapshot changed and was not reviewed.
const PENDING_SNAPSHOT_SUFFIXES: [&str; 2] = [".snap.new", ".pending-snap"];

/// One broken convention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// Relative to the repository root.
    pub(crate) path: PathBuf,
    /// 1-based.
    pub(crate) line: usize,
    pub(crate) message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// A rule of tidy; each has its own test below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Every `.rs` file opens with a `//!` paragraph.
    DocComment,
    /// Every Cargo feature but `default` has `##` lines directly above it.
    FeatureDocs,
    /// No debugging or unfinished-code macros, no ignored tests.
    Leftovers,
    /// No unreviewed insta snapshots.
    PendingSnapshots,
    /// No code crosses the crate boundaries of [`BOUNDARIES`].
    Boundaries,
    /// Docs and source stand alone: no [`OUTSIDE_REFERENCES`], and every relative Markdown
    /// link names a file inside the repository.
    StandAlone,
    /// The program's own files are read and written through `skills_ops::state` alone
    /// ([`state_files`]).
    StateFiles,
    /// No files of a crate import each other in a loop ([`import_circles`]).
    ImportCircles,
    /// Markdown says what is true: no README defers to a stage, no table is cut by a blank
    /// line ([`true_docs`]).
    TrueDocs,
}

const RULES: [Rule; 9] = [
    Rule::DocComment,
    Rule::FeatureDocs,
    Rule::Leftovers,
    Rule::PendingSnapshots,
    Rule::Boundaries,
    Rule::StandAlone,
    Rule::StateFiles,
    Rule::ImportCircles,
    Rule::TrueDocs,
];

/// Runs every rule over the repository and prints the findings.
pub(crate) fn run(root: &Path) -> Result<(), Failure> {
    let problems = check(root, &RULES);
    if problems.is_empty() {
        println!("tidy: no problems");
        return Ok(());
    }
    for problem in &problems {
        eprintln!("{problem}");
    }
    Err(Failure::new(
        format!("tidy found {} problem(s), listed above", problems.len()),
        "fix each file:line above (the rules and their reasons are in xtask/src/tidy.rs); check again with `cargo xtask tidy`",
    ))
}

fn check(root: &Path, rules: &[Rule]) -> Vec<Problem> {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    walk(root, Path::new(""), &mut files, &mut problems);
    files.sort();
    for file in &files {
        for rule in rules {
            problems.extend(apply(root, file, *rule));
        }
    }
    if rules.contains(&Rule::ImportCircles) {
        problems.extend(import_circles::check(root, &files));
    }
    problems
}

/// Collects every file below `root/dir` (as paths relative to `root`), skipping
/// [`SKIPPED_DIRS`]. Symbolic links are not followed: a link cycle must not hang CI.
fn walk(root: &Path, dir: &Path, files: &mut Vec<PathBuf>, problems: &mut Vec<Problem>) {
    let entries = match std::fs::read_dir(root.join(dir)) {
        Ok(entries) => entries,
        Err(error) => {
            problems.push(unreadable(dir, &error));
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                problems.push(unreadable(dir, &error));
                continue;
            }
        };
        let path = dir.join(entry.file_name());
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !is_skipped(&path) {
                walk(root, &path, files, problems);
            }
        } else if kind.is_file() {
            files.push(path);
        }
    }
}

fn is_skipped(dir: &Path) -> bool {
    SKIPPED_DIRS.iter().any(|skipped| {
        if skipped.contains('/') {
            dir == Path::new(skipped)
        } else {
            dir.file_name().is_some_and(|name| name == *skipped)
        }
    })
}

fn unreadable(path: &Path, error: &std::io::Error) -> Problem {
    Problem {
        path: path.to_path_buf(),
        line: 1,
        message: format!("could not be read: {error}"),
    }
}

fn apply(root: &Path, file: &Path, rule: Rule) -> Vec<Problem> {
    let name = file
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    let wants_text = match rule {
        Rule::DocComment | Rule::Leftovers | Rule::Boundaries | Rule::StateFiles => {
            name.ends_with(".rs")
        }
        Rule::FeatureDocs => name == "Cargo.toml",
        Rule::TrueDocs => name.ends_with(".md"),
        Rule::StandAlone => [".md", ".rs", ".toml"]
            .iter()
            .any(|suffix| name.ends_with(suffix)),
        Rule::PendingSnapshots => return pending_snapshot(file).into_iter().collect(),
        // A rule over a whole crate's files, run once by `check`.
        Rule::ImportCircles => return Vec::new(),
    };
    if !wants_text {
        return Vec::new();
    }
    let bytes = match std::fs::read(root.join(file)) {
        Ok(bytes) => bytes,
        Err(error) => return vec![unreadable(file, &error)],
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        // A test fixture that is not UTF-8 on purpose can still point outside, or cut a table.
        Err(error) if matches!(rule, Rule::StandAlone | Rule::TrueDocs) => {
            String::from_utf8_lossy(error.as_bytes()).into_owned()
        }
        Err(error) => {
            let error = std::io::Error::new(std::io::ErrorKind::InvalidData, error);
            return vec![unreadable(file, &error)];
        }
    };
    match rule {
        Rule::DocComment => doc_comment(file, &text).into_iter().collect(),
        Rule::Leftovers => leftovers(file, &text),
        Rule::FeatureDocs => undocumented_features(file, &text),
        Rule::Boundaries => crossed_boundaries(file, &text),
        Rule::StandAlone => outside_references(root, file, &text),
        Rule::StateFiles => state_files::check(file, &text),
        Rule::TrueDocs => true_docs::check(file, &text),
        Rule::PendingSnapshots | Rule::ImportCircles => Vec::new(),
    }
}

/// References that leave the repository: any [`OUTSIDE_REFERENCES`] text, and in Markdown a
/// relative link (`[text](path)`) whose file does not exist below `root`. A clone must read
/// whole: state the fact in our own words, or link a document that ships with it.
fn outside_references(root: &Path, file: &Path, text: &str) -> Vec<Problem> {
    let markdown = file.extension().is_some_and(|extension| extension == "md");
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut report = |message: String| {
            problems.push(Problem {
                path: file.to_path_buf(),
                line: index + 1,
                message,
            });
        };
        if let Some(needle) = OUTSIDE_REFERENCES
            .iter()
            .find(|needle| line.contains(*needle))
        {
            report(format!(
                "`{needle}` is outside the repository, so a clone cannot follow it: state the fact here in our own words, or link a document inside the repository"
            ));
        }
        if markdown && cites_spec_section(line) {
            report(
                "a spec section (`NN §…`) is cited: the spec is not in the repository, so say what it means here"
                    .to_owned(),
            );
        }
        if markdown {
            for target in relative_links(line) {
                if !inside(root, file, target) {
                    report(format!(
                        "the link `{target}` names no file inside the repository"
                    ));
                }
            }
        }
    }
    problems
}

/// Whether `line` cites a section of the spec the way its files are numbered (`02 §Scopes`).
fn cites_spec_section(line: &str) -> bool {
    line.match_indices('§').any(|(at, _)| {
        let before = &line.as_bytes()[..at];
        matches!(before, [.., b'0', digit, b' '] if digit.is_ascii_digit())
    })
}

/// The targets of the inline Markdown links on `line` that are paths: web addresses, mail
/// addresses and same-page anchors are left out.
fn relative_links(line: &str) -> Vec<&str> {
    line.match_indices("](")
        .filter_map(|(at, opening)| {
            let rest = &line[at + opening.len()..];
            let target = &rest[..rest.find(')')?];
            // `[text](path "title")`: the path is the first word.
            target.split_whitespace().next()
        })
        .filter(|target| {
            !(target.starts_with('#') || target.contains("://") || target.starts_with("mailto:"))
        })
        .collect()
}

/// Whether the link `target` in `file` (relative to `root`) names an existing file or folder
/// that lies below `root`.
fn inside(root: &Path, file: &Path, target: &str) -> bool {
    let path = target.split('#').next().unwrap_or(target);
    let joined = match path.strip_prefix('/') {
        Some(from_root) => PathBuf::from(from_root),
        None => file.parent().unwrap_or(Path::new("")).join(path),
    };
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            std::path::Component::Normal(part) => normal.push(part),
            std::path::Component::ParentDir if !normal.pop() => return false,
            _ => {}
        }
    }
    root.join(normal).exists()
}

fn crossed_boundaries(path: &Path, text: &str) -> Vec<Problem> {
    // Compare with `/` separators whatever the platform.
    let shown = path.to_string_lossy().replace('\\', "/");
    let applicable: Vec<&Boundary> = BOUNDARIES
        .iter()
        .filter(|boundary| shown.starts_with(boundary.scope))
        .filter(|boundary| !(boundary.tests_exempt && is_test_file(&shown)))
        .filter(|boundary| {
            !boundary
                .allowed
                .iter()
                .any(|prefix| shown.starts_with(prefix))
        })
        .collect();
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        for boundary in &applicable {
            if line.contains(boundary.needle) {
                problems.push(Problem {
                    path: path.to_path_buf(),
                    line: index + 1,
                    message: format!("`{}`: {}", boundary.needle, boundary.why),
                });
            }
        }
    }
    problems
}

/// The first non-empty line must start with `//!`: a reader opening any file learns what
/// lives there and why before reading code.
fn doc_comment(path: &Path, text: &str) -> Option<Problem> {
    let first = text
        .lines()
        .enumerate()
        .find(|(_, line)| !line.trim().is_empty());
    match first {
        Some((_, line)) if line.trim_start().starts_with("//!") => None,
        _ => Some(Problem {
            path: path.to_path_buf(),
            line: first.map_or(1, |(index, _)| index + 1),
            message: "the file must open with a `//!` paragraph saying what lives here and why"
                .to_owned(),
        }),
    }
}

fn leftovers(path: &Path, text: &str) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        for (needle, why) in LEFTOVERS {
            if contains_token(line, needle) {
                problems.push(Problem {
                    path: path.to_path_buf(),
                    line: index + 1,
                    message: format!("`{needle}`: {why}"),
                });
            }
        }
    }
    problems
}

/// Whether `needle` occurs in `line` as a whole token: `#[ignore_case]` or `my_todo!` are
/// somebody else's names, not the leftovers we look for.
fn contains_token(line: &str, needle: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(needle).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + needle.len()..].chars().next();
        let starts_clean = !needle.starts_with(is_ident) || !before.is_some_and(is_ident);
        let ends_clean = !needle.ends_with(is_ident) || !after.is_some_and(is_ident);
        starts_clean && ends_clean
    })
}

/// Every feature in a `[features]` table, except `default`, needs `##` comment lines directly
/// above it (the `document-features` convention): a feature nobody can explain is a feature
/// nobody dares to turn off.
fn undocumented_features(path: &Path, text: &str) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut in_features = false;
    // Open `[` of a value spanning several lines, so its lines are not taken for keys.
    let mut depth = 0_usize;
    let mut previous = "";
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if depth == 0 && line.starts_with('[') {
            in_features = table_name(line) == Some("features");
            previous = line;
            continue;
        }
        if in_features
            && depth == 0
            && let Some(feature) = key(line)
            && feature != "default"
            && !previous.starts_with("##")
        {
            problems.push(Problem {
                path: path.to_path_buf(),
                line: index + 1,
                message: format!(
                    "feature `{feature}` has no `## ` comment line directly above it saying what it turns on"
                ),
            });
        }
        depth = bracket_depth(line, depth);
        previous = line;
    }
    problems
}

/// The name of a `[table]` header; `None` for `[[array]]` headers.
fn table_name(line: &str) -> Option<&str> {
    if line.starts_with("[[") {
        return None;
    }
    let inner = line.strip_prefix('[')?;
    let end = inner.find(']')?;
    Some(inner[..end].trim())
}

/// The key of a `key = value` line, unquoted.
fn key(line: &str) -> Option<&str> {
    if line.starts_with('#') {
        return None;
    }
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty()).then_some(key)
}

/// `depth` after `line`, counting brackets outside strings and comments.
fn bracket_depth(line: &str, mut depth: usize) -> usize {
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => break,
            (None, '[') => depth += 1,
            (None, ']') => depth = depth.saturating_sub(1),
            (None, _) => {}
        }
    }
    depth
}

fn pending_snapshot(path: &Path) -> Option<Problem> {
    let name = path.file_name()?.to_string_lossy();
    PENDING_SNAPSHOT_SUFFIXES
        .iter()
        .any(|suffix| name.ends_with(suffix))
        .then(|| Problem {
            path: path.to_path_buf(),
            line: 1,
            message: "an unreviewed snapshot: run `cargo insta review`, then commit the accepted `.snap` files".to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_tidy(rule: Rule) {
        let problems = check(&crate::project_root(), &[rule]);
        let listing: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(problems.is_empty(), "{rule:?}:\n{}", listing.join("\n"));
    }

    // The repository itself, one test per rule.

    #[test]
    fn rust_files_open_with_a_doc_comment() {
        assert_tidy(Rule::DocComment);
    }

    #[test]
    fn cargo_features_are_documented() {
        assert_tidy(Rule::FeatureDocs);
    }

    #[test]
    fn no_debugging_leftovers_or_ignored_tests() {
        assert_tidy(Rule::Leftovers);
    }

    #[test]
    fn no_pending_snapshots() {
        assert_tidy(Rule::PendingSnapshots);
    }

    #[test]
    fn crate_boundaries_hold() {
        assert_tidy(Rule::Boundaries);
    }

    #[test]
    fn docs_and_source_stand_alone() {
        assert_tidy(Rule::StandAlone);
    }

    #[test]
    fn state_files_go_through_the_state_module() {
        assert_tidy(Rule::StateFiles);
    }

    #[test]
    fn no_import_circles() {
        assert_tidy(Rule::ImportCircles);
    }

    #[test]
    fn docs_say_what_is_true() {
        assert_tidy(Rule::TrueDocs);
    }

    // The rules on small inputs, so a rule that silently stops matching is noticed.

    fn lines(problems: &[Problem]) -> Vec<usize> {
        problems.iter().map(|problem| problem.line).collect()
    }

    #[test]
    fn doc_comment_rule() {
        let path = Path::new("a.rs");
        assert_eq!(doc_comment(path, "//! What and why.\nfn f() {}\n"), None);
        assert_eq!(doc_comment(path, "\n\n//! Late but first.\n"), None);
        assert_eq!(
            doc_comment(path, "\n// plain\n//! doc\n").map(|p| p.line),
            Some(2)
        );
        assert_eq!(
            doc_comment(path, "/// item doc\nfn f() {}\n").map(|p| p.line),
            Some(1)
        );
        assert_eq!(doc_comment(path, "").map(|p| p.line), Some(1));
    }

    #[test]
    fn leftover_rule() {
        let path = Path::new("a.rs");
        let text = [
            "let x = 1;",
            concat!("dbg", "!(x);"),
            concat!("    ", "todo", "!()"),
            concat!("#[", "ignore", "]"),
            concat!("#[", "ignore", " = \"slow\"]"),
            concat!("unimplemented", "!()"),
            concat!("#[", "ignore_case", "]"),
            concat!("my_", "todo", "!()"),
        ]
        .join("\n");
        assert_eq!(lines(&leftovers(path, &text)), [2, 3, 4, 5, 6]);
    }

    #[test]
    fn feature_rule() {
        let manifest = r#"
[package]
name = "x"

[features]
default = ["a"]
## Turns on a.
a = []
b = ["dep:c"]
## Spans
## two lines.
"quoted" = [
    "a",
    "b",
]
d = []

## Not a feature: another table.
[dependencies]
c = { version = "1", optional = true }
"#;
        let problems = undocumented_features(Path::new("Cargo.toml"), manifest);
        assert_eq!(lines(&problems), [9, 16]);
        assert!(problems[0].message.contains("`b`"), "{}", problems[0]);
    }

    #[test]
    fn boundary_rule() {
        let code = "use std::fs;\n// std::fs is not used here\nlet v = std::env::var(\"X\");\n";
        let types = crossed_boundaries(Path::new("crates/skills-types/src/a.rs"), code);
        assert_eq!(lines(&types), [1, 3, 3]);
        let cli = crossed_boundaries(Path::new("crates/skills-cli/src/main.rs"), code);
        assert!(cli.is_empty(), "{cli:?}");
        let yaml = "use serde_yaml::Value;\n";
        assert_eq!(
            lines(&crossed_boundaries(
                Path::new("crates/skills-ops/src/load.rs"),
                yaml
            )),
            [1]
        );
        assert!(crossed_boundaries(Path::new("crates/skills-ops/src/yaml.rs"), yaml).is_empty());
    }

    #[test]
    fn door_rules_find_a_planted_violation() {
        let planted = [
            (
                "let c = std::process::Command::new(\"sh\");",
                "Command::new",
            ),
            ("let c = reqwest::Client::new();", "reqwest"),
            ("let a = tar::Archive::new(r);", "tar::"),
            ("let z = zip::ZipArchive::new(r);", "zip::"),
            ("let d = flate2::read::GzDecoder::new(r);", "flate2::"),
        ];
        for (code, needle) in planted {
            let found = crossed_boundaries(Path::new("crates/skills-ops/src/walk.rs"), code);
            assert_eq!(lines(&found), [1], "{code}");
            assert!(found[0].message.contains(needle), "{found:?}");
            // A test file starts its fixtures as it needs.
            let test = crossed_boundaries(Path::new("crates/skills-ops/src/walk/tests.rs"), code);
            assert!(test.is_empty(), "{test:?}");
        }
        let door = "let mut command = Command::new(program);";
        assert!(
            crossed_boundaries(Path::new("crates/skills-runtime/src/spawn.rs"), door).is_empty()
        );
        assert_eq!(
            lines(&crossed_boundaries(
                Path::new("crates/skills-runtime/src/runtimes.rs"),
                door
            )),
            [1]
        );
        let archive = "use flate2::read::GzDecoder;";
        assert!(
            crossed_boundaries(Path::new("crates/skills-net/src/archive.rs"), archive).is_empty()
        );
        // The old homes of the doors are no longer doors: the installer reaches archives and
        // the network through `skills-net`.
        for moved in [
            "crates/skills-install/src/archive.rs",
            "crates/skills-install/src/publish.rs",
        ] {
            assert_eq!(
                lines(&crossed_boundaries(Path::new(moved), archive)),
                [1],
                "{moved}"
            );
        }
        let request = "let client = reqwest::Client::builder();";
        assert!(
            crossed_boundaries(Path::new("crates/skills-net/src/client.rs"), request).is_empty()
        );
        for elsewhere in [
            "crates/skills-install/src/client.rs",
            "crates/skills-runtime/src/managed_node.rs",
        ] {
            assert_eq!(
                lines(&crossed_boundaries(Path::new(elsewhere), request)),
                [1],
                "{elsewhere}"
            );
        }
        // The MCP server's HTTP answers leave where the sanitiser wraps them, and only there.
        let served = "use rmcp::transport::streamable_http_server::StreamableHttpService;";
        assert!(crossed_boundaries(Path::new("crates/skills-mcp/src/http.rs"), served).is_empty());
        assert_eq!(
            lines(&crossed_boundaries(
                Path::new("crates/skills-mcp/src/server.rs"),
                served
            )),
            [1]
        );
        // The rules that hold for tests too still do.
        let types = crossed_boundaries(
            Path::new("crates/skills-types/src/tests.rs"),
            "use std::fs;",
        );
        assert_eq!(lines(&types), [1]);
    }

    #[test]
    fn stand_alone_rule() {
        let root = tempfile_root();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/cli.md"), "").unwrap();
        std::fs::write(root.join("README.md"), "").unwrap();
        let outside = concat!("../", "shared");
        let doc = [
            format!("see `{outside}/spec/02-discovery.md`"),
            "[the commands](cli.md), [a section](cli.md#list), [up](../README.md)".to_owned(),
            "[web](https://agentskills.io) [here](#below) [mail](mailto:a@b.c)".to_owned(),
            "[gone](missing.md) and [escaping](../../etc/passwd)".to_owned(),
            format!("[spec]({outside}/spec/README.md \"title\")"),
            "[root-relative](/docs/cli.md)".to_owned(),
            "as 02 §Scopes says; issue 11 §5 is the tracker's".to_owned(),
        ]
        .join("\n");
        let problems = outside_references(&root, Path::new("docs/decisions.md"), &doc);
        assert_eq!(lines(&problems), [1, 4, 4, 5, 5, 7], "{problems:?}");
        assert!(
            problems[1].message.contains("`missing.md`"),
            "{}",
            problems[1]
        );
        // In source only the text rule applies: a `](` there is code, not a link.
        let code = format!("//! Where the spec says so ({outside}/spec).\nlet x = a[0](b);\n");
        let source = outside_references(&root, Path::new("crates/a/src/lib.rs"), &code);
        assert_eq!(lines(&source), [1], "{source:?}");
        let _ = std::fs::remove_dir_all(&root);
    }

    /// A fresh folder of its own under the system's temporary directory (xtask has no
    /// `tempfile`).
    fn tempfile_root() -> PathBuf {
        let root = std::env::temp_dir().join(format!(
            "xtask-tidy-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        root
    }

    #[test]
    fn pending_snapshot_rule() {
        assert!(pending_snapshot(Path::new("s/x__y.snap.new")).is_some());
        assert!(pending_snapshot(Path::new("s/.x.pending-snap")).is_some());
        assert!(pending_snapshot(Path::new("s/x__y.snap")).is_none());
    }

    #[test]
    fn skips_build_output_and_fuzz_data() {
        assert!(is_skipped(Path::new("target")));
        assert!(is_skipped(Path::new("fuzz/target")));
        assert!(is_skipped(Path::new("tests/stub-consumer/target")));
        assert!(is_skipped(Path::new("fuzz/corpus")));
        assert!(!is_skipped(Path::new("crates/corpus")));
        assert!(!is_skipped(Path::new("crates/skills")));
    }

    #[test]
    fn problems_name_file_and_line() {
        let problem = Problem {
            path: PathBuf::from("crates/a/src/lib.rs"),
            line: 7,
            message: "m".to_owned(),
        };
        assert_eq!(problem.to_string(), "crates/a/src/lib.rs:7: m");
    }
}
