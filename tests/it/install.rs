//! Installing through the binary (03 §Sources, §Writing to disk; 05; 06 §Safety, Install/pack):
//! skills served by the loopback fixture server, installed into a throwaway home and workspace,
//! then checked byte for byte on disk, through `skills list`, and in the provenance and lock
//! files.
//!
//! The submodules: `sources` (a single `SKILL.md`, a pack, a well-known index), `replace`
//! (already installed, a conflicting skill, `--force`), `scopes` (project scope, agent roots,
//! uninstall), `concurrent` (eight processes racing for one slug), `crash` (a child killed at
//! random points, fifty times), `restore` (`install` without a source: the records restored,
//! `--frozen`, the vercel tool's lock) and `private` (a GitHub token's origin binding). This file holds what they share: skill fixtures, serving them,
//! running `install`, and reading a folder back whole.
//!
//! Only loopback is ever contacted: every URL comes from [`Server::url`], and
//! `SKILLS_INSTALL_ALLOW_LOCAL_HTTP=1` is the one switch that lets the binary use plain http
//! to it.

#[cfg(unix)]
mod agents;
mod concurrent;
mod crash;
mod local_http;
mod private;
mod published;
mod replace;
mod repositories;
mod restore;
mod scopes;
mod sources;
#[cfg(unix)]
mod state;
mod unfetched;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use skills_tests::http::Server;
use skills_types::files::STAGING_PREFIX;

use crate::discovery::{Run, Tree};

/// The variable that lets the binary fetch over http from loopback fixtures.
pub(crate) const ALLOW_LOCAL_HTTP: &str = "SKILLS_INSTALL_ALLOW_LOCAL_HTTP";

/// Relative path → bytes: a skill's files as served, or a folder as found on disk.
pub(crate) type Files = BTreeMap<String, Vec<u8>>;

/// A skill as a source serves it.
#[derive(Clone, Debug)]
pub(crate) struct Skill {
    pub(crate) name: String,
    /// Every file, `SKILL.md` included.
    pub(crate) files: Files,
}

impl Skill {
    /// A skill whose `SKILL.md` declares `name` and `description` above `body`, with `extra`
    /// bundled files beside it.
    pub(crate) fn new(name: &str, description: &str, body: &str, extra: &[(&str, &str)]) -> Self {
        let mut files = Files::new();
        files.insert("SKILL.md".to_owned(), definition(name, description, body));
        for (path, text) in extra {
            files.insert((*path).to_owned(), text.as_bytes().to_vec());
        }
        Self {
            name: name.to_owned(),
            files,
        }
    }

    /// The definition file's bytes.
    pub(crate) fn definition(&self) -> &[u8] {
        &self.files["SKILL.md"]
    }

    /// The lowercase hex SHA-256 of every file, as `.skill-source.json` records them.
    pub(crate) fn digests(&self) -> Value {
        self.files
            .iter()
            .map(|(path, bytes)| (path.clone(), Value::from(sha256(bytes))))
            .collect::<serde_json::Map<_, _>>()
            .into()
    }
}

/// The text of a `SKILL.md`.
pub(crate) fn definition(name: &str, description: &str, body: &str) -> Vec<u8> {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{body}\n").into_bytes()
}

/// Lowercase hex SHA-256.
pub(crate) fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// Serves `skills` as a pack under `base` (`<base>/index.json`, each file at
/// `<base>/<name>/<file>`, `SKILL.md` listed first, every digest given) and returns the index
/// URL.
pub(crate) fn serve_pack(server: &Server, base: &str, skills: &[Skill], version: &str) -> String {
    let mut entries = Vec::new();
    for skill in skills {
        let mut listed = vec!["SKILL.md".to_owned()];
        listed.extend(
            skill
                .files
                .keys()
                .filter(|path| *path != "SKILL.md")
                .cloned(),
        );
        for (path, bytes) in &skill.files {
            server.route(
                &format!("{base}/{}/{path}", skill.name),
                skills_tests::http::Reply::Ok(bytes.clone()),
            );
        }
        entries.push(json!({
            "name": skill.name,
            "files": listed,
            "version": version,
            "sha256": skill.digests(),
        }));
    }
    let index = json!({ "skills": entries }).to_string();
    let path = format!("{base}/index.json");
    server.text(&path, &index);
    server.url(&path)
}

/// The paths `serve_pack` makes the installer fetch, in the order it fetches them.
pub(crate) fn pack_requests(base: &str, skills: &[Skill]) -> Vec<String> {
    let mut requests = vec![format!("{base}/index.json")];
    for skill in skills {
        requests.push(format!("{base}/{}/SKILL.md", skill.name));
        requests.extend(
            skill
                .files
                .keys()
                .filter(|path| *path != "SKILL.md")
                .map(|path| format!("{base}/{}/{path}", skill.name)),
        );
    }
    requests
}

/// Runs the binary on `tree` with loopback http allowed.
pub(crate) fn run(tree: &Tree, args: &[&str]) -> Run {
    tree.run_with(args, &[(ALLOW_LOCAL_HTTP, "1")])
}

/// The binary on `tree` with loopback http allowed, not yet started (for tests that start
/// several at once or kill one).
pub(crate) fn command(tree: &Tree, args: &[&str]) -> std::process::Command {
    let mut command = skills_tests::skills();
    command
        .current_dir(&tree.base)
        .arg("--workspace")
        .arg(&tree.workspace)
        .arg("--home")
        .arg(&tree.home)
        .args(args)
        .env(ALLOW_LOCAL_HTTP, "1")
        .env_remove("COLUMNS")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    command
}

/// `skills --json install ARGS...`: asserts success and returns the `installed` outcomes.
pub(crate) fn install_json(tree: &Tree, args: &[&str]) -> Vec<Value> {
    let mut full = vec!["--json", "install"];
    full.extend_from_slice(args);
    let document = run(tree, &full).json();
    document["installed"]
        .as_array()
        .unwrap_or_else(|| panic!("no `installed` array: {document}"))
        .clone()
}

/// `skills --json list`: name → (scope, location).
pub(crate) fn listed(tree: &Tree) -> BTreeMap<String, (String, String)> {
    let listing = tree.run(&["--json", "list"]).json();
    crate::discovery::array(&listing, "skills")
        .iter()
        .map(|skill| {
            (
                skill["name"].as_str().unwrap().to_owned(),
                (
                    skill["scope"].as_str().unwrap().to_owned(),
                    skill["location"].as_str().unwrap().to_owned(),
                ),
            )
        })
        .collect()
}

/// Every regular file under `dir`, dot-files included; panics at anything else (a symlink, a
/// FIFO), which an install must never create.
pub(crate) fn files_of(dir: &Path) -> Files {
    let mut found = Files::new();
    collect(dir, "", &mut found);
    found
}

fn collect(dir: &Path, prefix: &str, found: &mut Files) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let kind = std::fs::symlink_metadata(entry.path()).unwrap().file_type();
        if kind.is_dir() {
            collect(&entry.path(), &relative, found);
        } else {
            assert!(kind.is_file(), "{} is not a regular file", relative);
            found.insert(relative, std::fs::read(entry.path()).unwrap());
        }
    }
}

/// `files` without the provenance record.
pub(crate) fn content(mut files: Files) -> Files {
    files.remove(skills_types::files::PROVENANCE_FILE);
    files
}

/// A JSON file, parsed.
pub(crate) fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{}: {error}: {text}", path.display()))
}

/// The names in `root` that start like a staging folder.
pub(crate) fn staging_leftovers(root: &Path) -> Vec<String> {
    match std::fs::read_dir(root) {
        Ok(entries) => entries
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(STAGING_PREFIX))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// What identifies one version of a file or folder: a rewrite, a rename over it or a touch
/// changes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    #[cfg(unix)]
    inode: (u64, u64),
    #[cfg(unix)]
    changed: (i64, i64),
    modified: std::time::SystemTime,
    bytes: Option<Vec<u8>>,
}

/// Every path under `dir` (and `dir` itself, as ``) with its identity and, for files, bytes.
/// Of `dir` itself only the inode counts: taking a root's install lock creates and removes
/// `.skills-install.lock` in it, which moves the root's own times and nothing else.
pub(crate) fn snapshot(dir: &Path) -> BTreeMap<String, Identity> {
    let mut found = BTreeMap::new();
    identify(dir, String::new(), &mut found);
    if let Some(root) = found.get_mut("") {
        root.modified = std::time::SystemTime::UNIX_EPOCH;
        #[cfg(unix)]
        {
            root.changed = (0, 0);
        }
    }
    found
}

fn identify(path: &Path, relative: String, found: &mut BTreeMap<String, Identity>) {
    let metadata = std::fs::symlink_metadata(path).unwrap();
    let bytes = metadata.is_file().then(|| std::fs::read(path).unwrap());
    #[cfg(unix)]
    let (inode, changed) = {
        use std::os::unix::fs::MetadataExt;
        (
            (metadata.dev(), metadata.ino()),
            (metadata.ctime(), metadata.ctime_nsec()),
        )
    };
    found.insert(
        relative.clone(),
        Identity {
            #[cfg(unix)]
            inode,
            #[cfg(unix)]
            changed,
            modified: metadata.modified().unwrap(),
            bytes,
        },
    );
    if metadata.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let child = if relative.is_empty() {
                name
            } else {
                format!("{relative}/{name}")
            };
            identify(&entry.path(), child, found);
        }
    }
}

/// The keys of a JSON object, sorted.
pub(crate) fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

/// Whether `text` looks like the RFC 3339 UTC second `installed_at` holds.
pub(crate) fn is_rfc3339_utc(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit =
        |range: std::ops::Range<usize>| range.into_iter().all(|i| bytes[i].is_ascii_digit());
    bytes.len() == 20
        && digit(0..4)
        && bytes[4] == b'-'
        && digit(5..7)
        && bytes[7] == b'-'
        && digit(8..10)
        && bytes[10] == b'T'
        && digit(11..13)
        && bytes[13] == b':'
        && digit(14..16)
        && bytes[16] == b':'
        && digit(17..19)
        && bytes[19] == b'Z'
}
