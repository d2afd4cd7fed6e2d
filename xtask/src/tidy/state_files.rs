//! Tidy's state-file rule: the program's own files (the caches, the search index, the trust
//! record, the run logs, the registry's catalog, the remote copies, managed runtimes, a root's
//! install record and lock, a skill's provenance, the audit's acceptances and verdicts:
//! `skills_ops::state::KINDS`) are read and written through `skills_ops::state` alone, the one
//! module that never follows a link, never blocks on a FIFO and never reads without a bound.
//!
//! A text search cannot tell which path a call opens, so the rule works by file: a source file
//! that names a state file ([`STATE_NAMES`]: the constants and helpers that spell the names)
//! must not open, read, write, create, rename or remove anything itself ([`RAW_IO`]); it hands
//! the state module a name instead. Comment lines and the `#[cfg(test)] mod tests` at the end
//! of a file are not code the program runs and are not looked at. The few files that both name
//! a state file and do other file work of their own are listed in [`ALLOWED`], each with why.

use std::path::Path;

use super::{Problem, contains_token};

/// Where state-file I/O belongs: the state module, and the primitives it is built on.
pub(super) const STATE_MODULE: &[&str] = &[
    "crates/skills-ops/src/state.rs",
    "crates/skills-ops/src/state/",
    "crates/skills-ops/src/fs.rs",
    // The names are defined here, and this crate does no I/O at all (the boundary rule).
    "crates/skills-types/",
];

/// What names a state file in code: the constants of the names and folders in the state
/// table, the helpers that build a state file's name or path, and the distinctive names
/// themselves. Matched as whole tokens.
pub(super) const STATE_NAMES: &[&str] = &[
    "TRUST_FILE",
    "TRUST_RECORD",
    "CACHE_DIR",
    "CATALOG_CACHE",
    "CATALOG_CACHE_PREFIX",
    "SEARCH_DIR_PREFIX",
    "SEARCH_STAMPS_FILE",
    "SEARCH_STAMPS",
    "RUNS_DIR",
    "RUN_LOG",
    "CANCEL_MARKER",
    "LOG_EXTENSION",
    "MARKER_EXTENSION",
    "log_name",
    "marker_name",
    "REGISTRY_DIR",
    "REGISTRY_HEADER",
    "REGISTRY_DATA",
    "REGISTRY_LOCK",
    "CACHE_FILE",
    "REFRESH_LOCK",
    "REMOTE_DIR",
    "REMOTE_SKILLS_DIR",
    "REMOTE_STATE_FILE",
    "REMOTE_STATE",
    "REMOTE_COPY",
    "REMOTE_LOCK",
    "RUNTIMES_DIR",
    "NPM_CACHE_DIR",
    "SKILL_ENVS_DIR",
    "SETUP_RECORD_FILE",
    "SKILL_ENV_PREFIX",
    "SETUP_LOCK_FILE",
    "SKILL_ENV_RECORD",
    "SKILL_ENV_LOCK",
    "LOCK_FILE",
    "LEGACY_LOCK_FILE",
    "INSTALL_LOCK",
    "INSTALL_RECORD",
    "PROVENANCE_FILE",
    "PROVENANCE",
    "INTERPRETER_VERSIONS_FILE",
    "INTERPRETER_VERSIONS",
    "VERCEL_LOCK_FILE",
    "VERCEL_LOCK",
    "ACCEPTED_FILE",
    "AUDIT_ACCEPTED",
    "VERDICTS_FILE",
    "AUDIT_VERDICTS",
    // The names themselves, in case a file spells one again instead of using its constant.
    "\"stamps.json\"",
    "\"trusted-workspaces.json\"",
    "\".skills-installed.json\"",
    "\"skills-lock.json\"",
    "\".skills-install.lock\"",
    "\".skill-source.json\"",
    "\"interpreters.json\"",
    "\".refresh.lock\"",
    "\"skill-registry\"",
    "\"npm-cache\"",
    "\"setup.json\"",
    "\".setup.lock\"",
    "\"audit-accepted.json\"",
    "\"audit-verdicts.json\"",
];

/// What opens, reads, writes, creates, renames or removes a file or folder: the standard
/// library's calls, the system calls through `rustix`, and the path-based helpers of
/// `skills_ops::fs` (meant for the user's files, such as `AGENTS.md`). Looking at a path
/// (`metadata`, `canonicalize`) is not on the list: it never blocks, reads nothing and
/// writes nothing.
pub(super) const RAW_IO: &[&str] = &[
    "fs::read",
    "fs::write",
    "File::open",
    "File::create",
    "OpenOptions",
    "fs::remove_",
    "fs::rename",
    "fs::create_dir",
    "fs::copy",
    "fs::hard_link",
    "fs::set_permissions",
    "DirBuilder",
    "fs::symlink(",
    "rustix::fs::open",
    "rustix::fs::mkdir",
    "rustix::fs::unlink",
    "rustix::fs::rename",
    "fs::write_atomic(",
    "fs::write_new(",
    "fs::read_no_follow(",
    "fs::rename_noreplace(",
    "fs::exchange(",
];

/// Files that name a state file and also do file work of their own, with why that work is
/// not state-file I/O.
pub(super) const ALLOWED: &[(&str, &str)] = &[
    (
        "crates/skills-install/src/write.rs",
        "writes and compares skill folders (a skill's own files) in a root; the one state file inside, the provenance record, is written through state::Folder",
    ),
    (
        "crates/skills-runtime/src/npm.rs",
        "reads a skill's package.json and lock files (the skill's own files); npm's cache folder is made through state::Folder",
    ),
    (
        "crates/skills-install/src/publish.rs",
        "lists and reads the skill folders being published (the user's own files, through the safe reader); names the provenance record only to leave it out of the site",
    ),
    (
        "crates/skills-ops/src/watch.rs",
        "lists the roots' folders to watch them; the trust record's path is only watched, never opened",
    ),
];

/// The problems of one source file: each line of raw file I/O in a file that names a state
/// file, unless the file is the state module's or allowed.
pub(super) fn check(path: &Path, text: &str) -> Vec<Problem> {
    let shown = path.to_string_lossy().replace('\\', "/");
    let is_source = shown.starts_with("crates/") && shown.contains("/src/");
    let is_test = shown.ends_with("/tests.rs") || shown.contains("/tests/");
    let exempt = STATE_MODULE.iter().any(|prefix| shown.starts_with(prefix))
        || ALLOWED.iter().any(|(file, _)| shown == *file);
    if !is_source || is_test || exempt {
        return Vec::new();
    }
    let code = code_lines(text);
    let Some((named_at, name)) = code.iter().find_map(|(index, line)| {
        STATE_NAMES
            .iter()
            .find(|name| contains_token(line, name))
            .map(|name| (*index, *name))
    }) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (index, line) in &code {
        if let Some(call) = RAW_IO.iter().find(|call| line.contains(*call)) {
            problems.push(Problem {
                path: path.to_path_buf(),
                line: index + 1,
                message: format!(
                    "`{call}` in a file that names a state file (`{name}`, line {}): the program's own files are read and written through skills_ops::state alone (no link followed, no FIFO blocking, every read bounded); hand it the folder and the name, or add the file to ALLOWED in xtask/src/tidy/state_files.rs with why its file work is not state-file I/O",
                    named_at + 1
                ),
            });
        }
    }
    problems
}

/// The lines the program runs, with their 0-based index: not comments, and nothing from the
/// `#[cfg(test)] mod tests` that ends a file.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let next = lines.get(index + 1).map_or("", |next| next.trim_start());
        // `mod tests;` only declares a file of its own: the code after it is still checked.
        if trimmed.starts_with("#[cfg(test)]") && next.starts_with("mod tests {") {
            break;
        }
        if !trimmed.starts_with("//") {
            code.push((index, *line));
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kinds' names that are patterns rather than constants, and the name in [`STATE_NAMES`]
    /// the code builds each with.
    const PATTERNS: &[(&str, &str)] = &[
        ("catalog-*.bin", "CATALOG_CACHE_PREFIX"),
        ("search-*", "SEARCH_DIR_PREFIX"),
        ("*.json", "SEARCH_DIR_PREFIX"),
        ("*.*", "SEARCH_DIR_PREFIX"),
        (".tantivy-*.lock", "SEARCH_DIR_PREFIX"),
        ("*.jsonl", "log_name"),
        ("*.cancel", "marker_name"),
        ("*", "REMOTE_DIR"),
        ("node-v*", "RUNTIMES_DIR"),
        ("env-*", "SKILL_ENV_PREFIX"),
    ];

    /// The names and folders the state table (`crates/skills-ops/src/state.rs`) gives its kinds,
    /// as written there: constants and quoted patterns.
    fn table_names(state_rs: &str) -> Vec<String> {
        let mut found = Vec::new();
        for line in state_rs.lines() {
            let line = line.trim();
            let values = if let Some(name) = line.strip_prefix("name:") {
                name
            } else if let Some(folders) = line.strip_prefix("folders:") {
                folders
            } else {
                continue;
            };
            for value in values
                .trim_end_matches(',')
                .trim_start_matches(" &[")
                .trim_start_matches('&')
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
            {
                let value = value.trim();
                let value = value.rsplit("::").next().unwrap_or(value);
                if !value.is_empty() {
                    found.push(value.trim_matches('"').to_owned());
                }
            }
        }
        found
    }

    fn lines(problems: &[Problem]) -> Vec<usize> {
        problems.iter().map(|problem| problem.line).collect()
    }

    #[test]
    fn a_planted_violation_is_found() {
        let code = [
            "//! A module that keeps a record.",
            "use skills_types::trust::TRUST_FILE;",
            "// std::fs::read is mentioned here only in a comment",
            "fn read(home: &Path) -> Vec<u8> {",
            "    std::fs::read(home.join(TRUST_FILE)).unwrap_or_default()",
            "}",
            "fn write(path: &Path) { let _ = skills_ops::fs::write_atomic(path, b\"{}\"); }",
            "#[cfg(test)]",
            "mod tests {",
            "    fn plant() { std::fs::write(\"x\", \"y\").unwrap(); }",
            "}",
        ]
        .join("\n");
        let problems = check(Path::new("crates/skills-ops/src/planted.rs"), &code);
        assert_eq!(lines(&problems), [5, 7], "{problems:?}");
        assert!(
            problems[0].message.contains("`TRUST_FILE`, line 2"),
            "{}",
            problems[0]
        );
        assert!(
            problems[0].message.contains("skills_ops::state"),
            "{}",
            problems[0]
        );
    }

    #[test]
    fn the_state_module_allowed_files_and_files_naming_no_state_file_pass() {
        let code = "use x::TRUST_FILE;\nfn f() { std::fs::read(TRUST_FILE); }\n";
        for exempt in [
            "crates/skills-ops/src/state.rs",
            "crates/skills-ops/src/state/folder.rs",
            "crates/skills-install/src/write.rs",
            "crates/skills-ops/src/trust/tests.rs",
            "tests/it/state.rs",
        ] {
            assert!(check(Path::new(exempt), code).is_empty(), "{exempt}");
        }
        let unrelated = "fn f() { std::fs::read(\"SKILL.md\"); }\n";
        assert!(check(Path::new("crates/skills-ops/src/load.rs"), unrelated).is_empty());
        // A whole token only: `LOCK_FILES` is npm's, not ours.
        let npm = "const LOCK_FILES: [&str; 1] = [\"package-lock.json\"];\nfn f() { std::fs::read(\"x\"); }\n";
        assert!(check(Path::new("crates/skills-runtime/src/other.rs"), npm).is_empty());
        // Looking at a path is not I/O.
        let stat = "use x::RUNS_DIR;\nfn f() { std::fs::metadata(RUNS_DIR).is_ok(); }\n";
        assert!(check(Path::new("crates/skills-runtime/src/other.rs"), stat).is_empty());
    }

    #[test]
    fn every_name_in_the_state_table_is_recognised() {
        let state_rs =
            std::fs::read_to_string(crate::project_root().join("crates/skills-ops/src/state.rs"))
                .unwrap();
        let names = table_names(&state_rs);
        assert!(names.len() >= 20, "the table was read: {names:?}");
        for name in names {
            let known = STATE_NAMES.contains(&name.as_str())
                || PATTERNS.iter().any(|(pattern, _)| *pattern == name);
            assert!(
                known,
                "the state table names `{name}`, which tidy's state-file rule does not recognise: add it (or the constant the code builds it with) to STATE_NAMES or PATTERNS in xtask/src/tidy/state_files.rs"
            );
        }
        for (_, needle) in PATTERNS {
            assert!(STATE_NAMES.contains(needle), "{needle}");
        }
    }
}
