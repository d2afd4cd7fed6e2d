//! What a failed run ran into that the user can fix (issue 30 §11), said in the run's
//! outcome as [`RunHint`]s: a write or a connection the sandbox refused, naming the rule and
//! the home setting that allows it, and a module the script imports that is not installed
//! for it, naming the command that sets the skill up.
//!
//! How a refusal is known. The kernel refuses silently: a denied `openat` or `connect` is an
//! error number returned to the script, and nothing else records it. The mechanisms that
//! would record it were examined and are out of reach of an unprivileged program without
//! `unsafe`: Landlock's audit records (Linux 6.15) and seccomp's `SECCOMP_RET_LOG` go to the
//! kernel's audit log, which needs `CAP_AUDIT_READ` or root to read; seccomp's user
//! notification (`SECCOMP_RET_USER_NOTIF`) needs a supervisor answering `ioctl`s for every
//! refused call, which `seccompiler` does not offer and `unsafe` would; `ptrace` of the
//! script is per architecture, slows every call, and breaks scripts that debug. So the
//! evidence is what the script reports (every runtime prints a refused call's error with its
//! path: Python's `PermissionError: [Errno 13] Permission denied: '/x'`, `OSError: [Errno 30]
//! Read-only file system`, Node's `EROFS: read-only file system, open '/x'`, the shells'
//! `cannot create /x: Read-only file system`), checked against what the runtime knows:
//!
//! - **a write**: the error is one the sandbox's layers give (`EROFS` from the read-only
//!   mounts, `EACCES` from Landlock, `EPERM`), the path it names is outside every folder the
//!   run could write (its temporary folder, the planned folders, the null devices), and the
//!   user may write there outside the sandbox (`access(W_OK)` from the supervisor, which is
//!   not confined). A path the user could not write anyway, or one inside a writable folder,
//!   is not the sandbox's doing and gets no hint;
//! - **a connection**: the run had `network = "deny"` applied (Landlock refuses TCP connect
//!   and bind, seccomp refuses every new socket, both with `EACCES`), and its error output
//!   shows a refused connection or name lookup;
//! - **a module**: Python's `ModuleNotFoundError: No module named 'x'`, Node's `Cannot find
//!   module 'x'` (CommonJS) and `Cannot find package 'x'` (ES modules), for a module that is
//!   not a file of the skill's own; the hint depends on what the skill declares and on its
//!   environment (`environment.rs`).
//!
//! A script that swallows the error leaves nothing to find, and then nothing is said: a hint
//! is never a guess the runtime could not check.

use std::path::{Component, Path, PathBuf};

use skills_types::run::{RunHint, RunHintKind, RunOutcome};
use skills_types::runtime::{NetworkMode, SandboxMode};

use crate::prepare::Prepared;

/// The most lines of a run's error output read, from its end (where a traceback ends).
const MAX_LINES: usize = 400;
/// The most hints one run gets.
const MAX_HINTS: usize = 6;
/// The most characters of a line quoted in a hint.
const QUOTED_CHARS: usize = 160;

/// The errors the sandbox's layers give a refused write, as programs print them (lowercase),
/// with the layer each comes from.
const WRITE_ERRORS: [(&str, &str); 6] = [
    ("read-only file system", READ_ONLY_MOUNTS),
    ("erofs", READ_ONLY_MOUNTS),
    ("permission denied", LANDLOCK),
    ("eacces", LANDLOCK),
    ("operation not permitted", LANDLOCK),
    ("eperm", LANDLOCK),
];
const READ_ONLY_MOUNTS: &str = "every mount is read-only to the run but the folders it may write";
const LANDLOCK: &str = "Landlock grants writes only beneath the folders the run may write";

/// Folders whose files are devices and kernel interfaces, not places a setting would open.
const SYSTEM_FOLDERS: [&str; 3] = ["/dev", "/proc", "/sys"];

/// What a refused socket looks like in an error (lowercase): the error ...
const NETWORK_ERRORS: [&str; 4] = [
    "permission denied",
    "eacces",
    "errno 13",
    "operation not permitted",
];
/// ... with a word of the network on its line, or (when the line names no path) in the
/// traceback that ends in it (the [`NETWORK_CONTEXT`] lines before) (Python's frames name `socket.py` and `create_connection`,
/// Node's error says `connect EACCES`) ...
const NETWORK_WORDS: [&str; 10] = [
    "connect",
    "socket",
    "urlopen",
    "urllib",
    "bind",
    "getaddrinfo",
    "resolve",
    "fetch",
    "http",
    "request",
];
/// How many lines before an error its traceback is looked at.
const NETWORK_CONTEXT: usize = 40;
/// ... or a name lookup that could not even start.
const LOOKUP_ERRORS: [&str; 4] = [
    "temporary failure in name resolution",
    "eai_again",
    "could not resolve host",
    "getaddrinfo",
];

/// The hints of a failed run; `temp` is its temporary folder.
pub(crate) fn hints(prepared: &Prepared, outcome: &RunOutcome, temp: &Path) -> Vec<RunHint> {
    let lines: Vec<&str> = outcome.stderr.lines().collect();
    let lines = &lines[lines.len().saturating_sub(MAX_LINES)..];
    let mut hints = Vec::new();
    if let Some(plan) = &prepared.sandbox {
        write_refusals(prepared, plan.mode, temp, lines, &mut hints);
        if plan.network == NetworkMode::Deny {
            hints.extend(network_refusal(prepared, lines));
        }
    }
    if !prepared.environment.setting_up {
        missing_modules(prepared, lines, &mut hints);
    }
    hints.truncate(MAX_HINTS);
    hints
}

/// A hint for every path a refused write names that the sandbox, and only the sandbox,
/// kept the script from writing.
fn write_refusals(
    prepared: &Prepared,
    mode: SandboxMode,
    temp: &Path,
    lines: &[&str],
    hints: &mut Vec<RunHint>,
) {
    let mut writable: Vec<PathBuf> = std::iter::once(temp.to_path_buf())
        .chain(prepared.write_dirs.iter().cloned())
        .chain(["/dev/null", "/dev/zero"].map(PathBuf::from))
        .map(|dir| std::fs::canonicalize(&dir).unwrap_or(dir))
        .collect();
    writable.dedup();
    let home = prepared
        .env
        .iter()
        .find(|(name, _)| name == "HOME")
        .map(|(_, value)| PathBuf::from(value));
    let mut seen: Vec<PathBuf> = Vec::new();
    for line in lines {
        let lower = line.to_lowercase();
        let Some((error, layer)) = WRITE_ERRORS.iter().find(|(error, _)| lower.contains(error))
        else {
            continue;
        };
        // A connection's error names a URL path, not a file.
        if NETWORK_WORDS.iter().any(|word| lower.contains(word)) {
            continue;
        }
        let before = lower.find(error).unwrap_or(lower.len());
        for candidate in refused_paths(line, before) {
            let Some(path) = absolute(&candidate, &prepared.cwd, home.as_deref()) else {
                continue;
            };
            if SYSTEM_FOLDERS.iter().any(|system| path.starts_with(system)) {
                continue;
            }
            let resolved = resolved(&path);
            if seen.contains(&resolved) || writable.iter().any(|dir| resolved.starts_with(dir)) {
                continue;
            }
            if !user_may_write(&resolved) {
                continue;
            }
            seen.push(resolved.clone());
            hints.push(write_hint(prepared, mode, &resolved, layer));
        }
    }
}

fn write_hint(prepared: &Prepared, mode: SandboxMode, path: &Path, layer: &str) -> RunHint {
    let folder = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent()
            .map_or_else(|| path.to_path_buf(), Path::to_path_buf)
    };
    let file = home_config_file_of(prepared);
    let once = if folder.is_dir() {
        ""
    } else {
        " once it exists"
    };
    let writable = format!("[runtime] writable = [\"{}\"]", folder.display());
    let (rule, remedy) = if prepared.environment.setting_up {
        (
            "a setup step writes only the skill's environment, npm's cache and its temporary \
             folder"
                .to_owned(),
            None,
        )
    } else if mode == SandboxMode::ReadOnly {
        (
            "under `sandbox = \"read-only\"` a run writes only its temporary folder".to_owned(),
            Some(format!(
                "`[runtime] sandbox = \"workspace-write\"` in the home {} (it writes the \
                 workspace), with `{writable}` for a folder outside it",
                file.display()
            )),
        )
    } else {
        (
            "under `sandbox = \"workspace-write\"` a run writes only beneath the workspace, its \
             temporary folder and the folders `[runtime] writable` lists"
                .to_owned(),
            Some(format!(
                "`{writable}` in the home {}{once} (a workspace's file cannot add one)",
                file.display()
            )),
        )
    };
    let message = match &remedy {
        Some(remedy) => format!(
            "the sandbox refused to let the script write {} ({layer}): {rule}; to let runs \
             write {}, set {remedy}",
            path.display(),
            folder.display()
        ),
        None => format!(
            "the sandbox refused to let the script write {} ({layer}): {rule}",
            path.display()
        ),
    };
    RunHint::new(
        RunHintKind::SandboxWrite,
        path.display().to_string(),
        message,
        remedy.map(|_| writable),
    )
}

/// A hint when the error output shows a connection or a name lookup the network rule
/// refused.
fn network_refusal(prepared: &Prepared, lines: &[&str]) -> Option<RunHint> {
    let line = lines[refused_connection(lines)?];
    let key = prepared.network_key;
    let file = home_config_file_of(prepared);
    let remedy = format!("[runtime] {key} = \"allow\"");
    let whose = if prepared.environment.setting_up {
        "the setup of a skill's dependencies"
    } else {
        "a run"
    };
    Some(RunHint::new(
        RunHintKind::SandboxNetwork,
        "network",
        format!(
            "the sandbox refused a connection: under `[runtime] {key} = \"deny\"` {whose} \
             opens no socket and reaches no host (Landlock refuses TCP connections, seccomp \
             refuses new sockets), and the script reported \"{}\"; to allow it, set `{remedy}` \
             in the home {} (a workspace's file cannot)",
            quoted(line),
            file.display()
        ),
        Some(remedy),
    ))
}

/// The line of `lines` that shows a refused connection or name lookup, if one does.
fn refused_connection(lines: &[&str]) -> Option<usize> {
    let lower: Vec<String> = lines.iter().map(|line| line.to_lowercase()).collect();
    let networky = |text: &String| NETWORK_WORDS.iter().any(|word| text.contains(word));
    (0..lines.len()).find(|&index| {
        let line = &lower[index];
        // A line that names a path and no network is a file's error, not a socket's.
        let refused = NETWORK_ERRORS.iter().any(|error| line.contains(error))
            && (networky(line)
                || (paths_in(lines[index]).is_empty()
                    && lower[index.saturating_sub(NETWORK_CONTEXT)..=index]
                        .iter()
                        .any(networky)));
        refused || LOOKUP_ERRORS.iter().any(|error| line.contains(error))
    })
}

/// A module a script imports and does not find.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Missing {
    name: String,
    node: bool,
    /// Node's ES module loader, which does not read `NODE_PATH`.
    esm: bool,
}

fn missing_modules(prepared: &Prepared, lines: &[&str], hints: &mut Vec<RunHint>) {
    let mut found: Vec<Missing> = Vec::new();
    for line in lines {
        let Some(missing) = missing_in(line) else {
            continue;
        };
        if !found.iter().any(|known| known.name == missing.name) {
            found.push(missing);
        }
    }
    if found.is_empty() {
        return;
    }
    let declared = skills_ops::resources::inventory(&prepared.skill_dir);
    let declared = crate::dependencies::read(&prepared.skill_dir, &declared);
    for missing in found.into_iter().take(3) {
        hints.push(module_hint(prepared, &missing, &declared));
    }
}

/// The module a line says is missing, when it says one is.
fn missing_in(line: &str) -> Option<Missing> {
    let after = |marker: &str| {
        let start = line.find(marker)? + marker.len();
        let rest = &line[start..];
        let end = rest.find(['\'', '"'])?;
        Some(rest[..end].to_owned())
    };
    if let Some(name) = after("No module named '") {
        let top = name.split('.').next().unwrap_or_default().to_owned();
        return (!top.is_empty()).then_some(Missing {
            name: top,
            node: false,
            esm: false,
        });
    }
    let (name, esm) = match after("Cannot find package '") {
        Some(name) => (name, true),
        None => (
            after("Cannot find module '")?,
            line.contains("ERR_MODULE_NOT_FOUND"),
        ),
    };
    // A file of the script's own, or a built-in: nothing to install.
    if name.is_empty() || name.starts_with(['.', '/']) || name.starts_with("node:") {
        return None;
    }
    // `pkg/sub/path` and `@scope/pkg/sub` are the package `pkg` and `@scope/pkg`.
    let parts: Vec<&str> = name.split('/').collect();
    let package = if name.starts_with('@') && parts.len() > 1 {
        parts[..2].join("/")
    } else {
        parts[0].to_owned()
    };
    Some(Missing {
        name: package,
        node: true,
        esm,
    })
}

fn module_hint(
    prepared: &Prepared,
    missing: &Missing,
    declared: &Result<crate::dependencies::Declared, skills_types::Error>,
) -> RunHint {
    let skill = &prepared.skill;
    let setup = format!("skills setup {}", shell_word(skill));
    let name = &missing.name;
    let what = if missing.node {
        format!("the Node package '{name}'")
    } else {
        format!("the Python module '{name}'")
    };
    let environment = &prepared.environment;
    let in_use = environment.in_use.as_ref();
    let (declares, problem) = match declared {
        Ok(declared) if missing.node => (declared.node.is_some(), None),
        Ok(declared) => (!declared.requirements.is_empty(), None),
        Err(error) => (true, Some(error.to_string())),
    };
    let (message, remedy) = if let Some(problem) = problem {
        (
            format!(
                "the script needs {what}, and the skill's declared dependencies cannot be \
                 installed as they are: {problem}"
            ),
            None,
        )
    } else if missing.node && missing.esm && in_use.and_then(|env| env.node_modules()).is_some() {
        (
            format!(
                "the script needs {what} through an ES module `import`, which does not look in \
                 NODE_PATH, where runs find the skill's environment; a CommonJS `require` finds \
                 it, or `skills run {} --npm install` installs the packages into the skill \
                 folder, where `import` looks",
                shell_word(skill)
            ),
            None,
        )
    } else if environment.used {
        let add = if missing.node {
            "add it to the skill's package.json and run it again".to_owned()
        } else {
            format!("`{setup} --package NAME` adds the package that provides it")
        };
        (
            format!(
                "the script needs {what}, and the skill's environment ({}) does not have it: \
                 nothing the skill declares (or you added) provides it; {add}",
                in_use.map_or_else(String::new, |env| env.dir.display().to_string())
            ),
            (!missing.node).then(|| format!("{setup} --package NAME")),
        )
    } else if let (Some(env), false) = (in_use, missing.node) {
        let made_with = env
            .record
            .python
            .as_ref()
            .map(|part| part.base.display().to_string());
        match made_with {
            Some(base) if base != prepared.program.display().to_string() => (
                format!(
                    "the script needs {what}; the skill's environment was made with {base}, and \
                     runs now use {}, so it was not used: `{setup}` makes it again with that \
                     interpreter",
                    prepared.program.display()
                ),
                Some(setup.clone()),
            ),
            _ => not_set_up(&what, &setup, declares, missing),
        }
    } else {
        not_set_up(&what, &setup, declares, missing)
    };
    RunHint::new(RunHintKind::MissingModule, name.clone(), message, remedy)
}

/// The hint for a module missing from a skill that is not set up (for this kind).
fn not_set_up(
    what: &str,
    setup: &str,
    declares: bool,
    missing: &Missing,
) -> (String, Option<String>) {
    if declares {
        return (
            format!(
                "the script needs {what}, which the skill declares and which is not installed \
                 for it: `{setup}` installs the skill's dependencies into its own environment \
                 (`--setup` on a run does it first)"
            ),
            Some(setup.to_owned()),
        );
    }
    if missing.node {
        return (
            format!(
                "the script needs {what}, and the skill declares no npm dependencies (no \
                 `dependencies` in a package.json); add them there, then `{setup}` installs them"
            ),
            None,
        );
    }
    (
        format!(
            "the script needs {what}, and the skill declares no Python dependencies (no \
             requirements.txt, no `# /// script` block in its scripts): `{setup} --package \
             NAME` installs a package into the skill's own environment (the package that \
             provides '{}' is often named the same)",
            missing.name
        ),
        Some(format!("{setup} --package {}", missing.name)),
    )
}

/// The paths a line with a refused write names, the error at byte `error`: the quoted ones
/// (Python's `...: '/x'`, Node's `open '/x'`, coreutils' `'/x'` or `‘/x’`), else the last
/// unquoted one before the error (the shells' `cannot create /x: Read-only file system`,
/// where the script's own path starts the line).
fn refused_paths(line: &str, error: usize) -> Vec<String> {
    let quoted = quoted_paths(line);
    if !quoted.is_empty() {
        return quoted;
    }
    let head = line.get(..error).unwrap_or(line);
    head.split_whitespace()
        .map(|word| word.trim_end_matches([':', ',', ';', ')']))
        .rfind(|word| word.starts_with('/') && word.len() > 1)
        .map(str::to_owned)
        .into_iter()
        .collect()
}

/// The paths a line of error output names: quoted (any of the quotes programs use), or
/// unquoted words that start with `/`.
fn paths_in(line: &str) -> Vec<String> {
    let mut found = quoted_paths(line);
    for word in line.split_whitespace() {
        let word = word.trim_end_matches([':', ',', '.', ')', ';']);
        if word.starts_with('/') && word.len() > 1 && !found.iter().any(|known| known == word) {
            found.push(word.to_owned());
        }
    }
    found
}

/// The quoted texts of a line that can be paths.
fn quoted_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('“', '”')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else {
                break;
            };
            let quoted = &after[..end];
            if !quoted.is_empty() && !quoted.contains('\n') && looks_like_a_path(quoted) {
                found.push(quoted.to_owned());
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    found
}

/// Whether a quoted text can be a path a program printed: absolute, home-relative, or a
/// relative name with no characters error messages put around words.
fn looks_like_a_path(text: &str) -> bool {
    text.starts_with(['/', '~'])
        || (!text.contains(char::is_whitespace)
            && !text.contains(['=', '(', '<', '>', '[', '{'])
            && (text.contains('.') || text.contains('/')))
}

/// `text` as an absolute path, lexically normalised: relative to `cwd`, `~` to `home`.
fn absolute(text: &str, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let path = match text.strip_prefix("~/") {
        Some(rest) => home?.join(rest),
        None if text.starts_with('/') => PathBuf::from(text),
        None => cwd.join(text),
    };
    let mut normal = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal.is_absolute().then_some(normal)
}

/// `path` with its longest existing ancestor resolved (links followed), the rest as written:
/// what the sandbox's rules, which are set on resolved folders, compare.
fn resolved(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&existing) {
            return rest.iter().rev().fold(real, |dir, part| dir.join(part));
        }
        match (
            existing.file_name().map(ToOwned::to_owned),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Whether this (unconfined) process may write `path`: the file itself when it exists (and
/// read it: a file the user cannot read failed to open for another reason than the sandbox,
/// which never refuses a read), else the folder it would be created in, which must exist (a
/// program creates a file or a folder in one that exists; a path below a missing folder
/// failed for that reason).
fn user_may_write(path: &Path) -> bool {
    use rustix::fs::{Access, access};
    if std::fs::symlink_metadata(path).is_ok() {
        return access(path, Access::READ_OK | Access::WRITE_OK).is_ok();
    }
    path.parent()
        .is_some_and(|parent| parent.is_dir() && access(parent, Access::WRITE_OK).is_ok())
}

fn home_config_file_of(prepared: &Prepared) -> PathBuf {
    let place = &prepared.environment.place;
    // The app folder is the one the run's environment lives under: `<home>/<app_dir>`.
    place.app.join(skills_ops::discover::CONFIG_FILE)
}

/// A line quoted in a hint: trimmed, at most [`QUOTED_CHARS`] characters.
fn quoted(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= QUOTED_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(QUOTED_CHARS).collect();
    format!("{cut}…")
}

/// `word` as one shell word in a command the user copies: quoted when it holds anything but
/// letters, digits and `._-`.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_read_from_what_runtimes_print() {
        for (line, path) in [
            (
                "PermissionError: [Errno 13] Permission denied: '/home/me/out.txt'",
                "/home/me/out.txt",
            ),
            (
                "OSError: [Errno 30] Read-only file system: 'report.csv'",
                "report.csv",
            ),
            (
                "Error: EROFS: read-only file system, open '/srv/out/x.json'",
                "/srv/out/x.json",
            ),
            (
                "sh: 1: cannot create /srv/out/x: Read-only file system",
                "/srv/out/x",
            ),
            (
                "touch: cannot touch '/srv/a b/c': Read-only file system",
                "/srv/a b/c",
            ),
            (
                "mkdir: cannot create directory ‘/srv/new’: Read-only file system",
                "/srv/new",
            ),
        ] {
            assert!(
                paths_in(line).iter().any(|found| found == path),
                "{line}: {:?}",
                paths_in(line)
            );
        }
        assert!(paths_in("PermissionError: [Errno 13] Permission denied").is_empty());
    }

    #[test]
    fn a_refused_write_names_the_path_next_to_its_error() {
        let refused = |line: &str| {
            let at = line.to_lowercase().find("read-only file system").unwrap();
            refused_paths(line, at)
        };
        assert_eq!(
            refused("/s/scripts/write.sh: 1: cannot create /srv/out/x: Read-only file system"),
            ["/srv/out/x"]
        );
        assert_eq!(
            refused("bash: line 1: /srv/out/x: Read-only file system"),
            ["/srv/out/x"]
        );
        assert_eq!(
            refused("OSError: [Errno 30] Read-only file system: '/srv/out/x'"),
            ["/srv/out/x"]
        );
    }

    #[test]
    fn paths_are_made_absolute_against_the_working_folder_and_home() {
        let cwd = Path::new("/work/space");
        let home = Some(Path::new("/home/me"));
        assert_eq!(
            absolute("out/../r.csv", cwd, home),
            Some(PathBuf::from("/work/space/r.csv"))
        );
        assert_eq!(
            absolute("~/out/x", cwd, home),
            Some(PathBuf::from("/home/me/out/x"))
        );
        assert_eq!(absolute("~/x", cwd, None), None);
    }

    #[test]
    fn missing_modules_are_read_from_python_and_node() {
        let read = |line| missing_in(line).map(|missing| (missing.name, missing.node, missing.esm));
        assert_eq!(
            read("ModuleNotFoundError: No module named 'pypdf'"),
            Some(("pypdf".to_owned(), false, false))
        );
        assert_eq!(
            read("ModuleNotFoundError: No module named 'google.protobuf'"),
            Some(("google".to_owned(), false, false))
        );
        assert_eq!(
            read("Error: Cannot find module 'pdf-lib/dist/x'"),
            Some(("pdf-lib".to_owned(), true, false))
        );
        assert_eq!(
            read(
                "Error [ERR_MODULE_NOT_FOUND]: Cannot find package '@scope/pkg' imported from /s/x.mjs"
            ),
            Some(("@scope/pkg".to_owned(), true, true))
        );
        assert_eq!(read("Error: Cannot find module './helper'"), None);
        assert_eq!(read("Error: Cannot find module '/s/scripts/x.js'"), None);
        assert_eq!(read("everything is fine"), None);
    }

    #[test]
    fn refused_connections_are_told_from_refused_files() {
        let python = [
            "Traceback (most recent call last):",
            "  File \"/s/scripts/connect.py\", line 2, in <module>",
            "    socket.create_connection(('127.0.0.1', 80))",
            "  File \"/usr/lib/python3.11/socket.py\", line 851, in create_connection",
            "PermissionError: [Errno 13] Permission denied",
        ];
        assert_eq!(refused_connection(&python), Some(4));
        let pip = [
            "WARNING: Could not fetch URL http://127.0.0.1:1/simple/pypdf/: connection error: (Caused by NewConnectionError('...: Failed to establish a new connection: [Errno 13] Permission denied')) - skipping",
        ];
        assert_eq!(refused_connection(&pip), Some(0));
        let node = ["Error: connect EACCES 127.0.0.1:8080"];
        assert_eq!(refused_connection(&node), Some(0));
        let lookup = ["socket.gaierror: [Errno -3] Temporary failure in name resolution"];
        assert_eq!(refused_connection(&lookup), Some(0));
        let file = [
            "  File \"/s/scripts/save.py\", line 3, in save",
            "PermissionError: [Errno 13] Permission denied: '/srv/out/x.txt'",
        ];
        assert_eq!(refused_connection(&file), None);
        assert_eq!(refused_connection(&["it failed"]), None);
    }

    #[test]
    fn commands_quote_names_a_shell_would_split() {
        assert_eq!(shell_word("pdf"), "pdf");
        assert_eq!(shell_word("API Fuzzing"), "'API Fuzzing'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }
}
