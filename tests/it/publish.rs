//! `skills publish` end to end (09 §Publishing): a folder holding a single-file and a
//! multi-file skill is published by the binary, the site is served by a plain static file
//! server on loopback (Python's `http.server`, a real child process), and installed back.
//!
//! Without `python3` on the machine the same files are served by the fixture server, one
//! route per file of the site, which is what a static server does; the test says so on
//! stderr rather than passing silently.

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;
use skills_tests::http::{Reply, Server};

use super::install::{Files, content, files_of, install_json, run, sha256};
use crate::discovery::Tree;

/// Writes the two skills: `notes` (its `SKILL.md` alone, `metadata.version` 1.0.0) and
/// `pdf-tools` (a script and a reference beside it).
fn sources(tree: &Tree) -> PathBuf {
    let skills = tree.base.join("src");
    tree.write(
        &skills.join("notes/SKILL.md"),
        "---\nname: notes\ndescription: Takes meeting notes.\nmetadata:\n  version: 1.0.0\n---\n# Notes\n\nWrite them down.\n",
    );
    tree.write(
        &skills.join("pdf-tools/SKILL.md"),
        "---\nname: pdf-tools\ndescription: Extracts text from PDF files.\n---\n# PDF\n\nRun scripts/extract.py; see references/REFERENCE.md.\n",
    );
    tree.write(
        &skills.join("pdf-tools/scripts/extract.py"),
        "print('text')\n",
    );
    tree.write(
        &skills.join("pdf-tools/references/REFERENCE.md"),
        "# Reference\n\nPages are 1-based.\n",
    );
    skills
}

/// The site as a static server would serve it: every file below `site`, by URL path.
fn site_files(site: &Path) -> Files {
    files_of(site)
}

/// A static file server for `site` on loopback: Python's `http.server` when `python3` runs,
/// else the fixture server with one route per file. Dropping it stops the child.
enum Static {
    Python { child: Child, port: u16 },
    Fixture(Server),
}

impl Static {
    fn start(site: &Path) -> Self {
        let spawned = Command::new("python3")
            .args([
                "-u",
                "-m",
                "http.server",
                "--bind",
                "127.0.0.1",
                "0",
                "--directory",
            ])
            .arg(site)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        match spawned {
            Ok(mut child) => {
                // "Serving HTTP on 127.0.0.1 port 43121 (http://127.0.0.1:43121/) ...": printed
                // once the socket listens, so reading it is the readiness signal.
                let mut line = String::new();
                let stdout = child.stdout.take().unwrap();
                std::io::BufReader::new(stdout)
                    .read_line(&mut line)
                    .unwrap();
                let port = line
                    .split_whitespace()
                    .skip_while(|word| *word != "port")
                    .nth(1)
                    .and_then(|word| word.parse().ok())
                    .unwrap_or_else(|| panic!("python3 http.server said: {line:?}"));
                Self::Python { child, port }
            }
            Err(error) => {
                eprintln!(
                    "python3 cannot be started ({error}); serving the site with the fixture server instead"
                );
                let server = Server::start().unwrap();
                for (path, bytes) in site_files(site) {
                    server.route(&format!("/{path}"), Reply::Ok(bytes));
                }
                Self::Fixture(server)
            }
        }
    }

    fn url(&self, path: &str) -> String {
        match self {
            Self::Python { port, .. } => format!("http://127.0.0.1:{port}{path}"),
            Self::Fixture(server) => server.url(path),
        }
    }
}

impl Drop for Static {
    fn drop(&mut self) {
        if let Self::Python { child, .. } = self {
            drop(child.kill());
            drop(child.wait());
        }
    }
}

/// `--json publish SKILLS --out SITE`.
fn publish_args<'a>(skills: &'a Path, site: &'a Path) -> [&'a str; 5] {
    [
        "--json",
        "publish",
        skills.to_str().unwrap(),
        "--out",
        site.to_str().unwrap(),
    ]
}

fn publish(tree: &Tree, skills: &Path, site: &Path) -> Value {
    run(tree, &publish_args(skills, site)).json()
}

#[test]
fn a_published_site_is_reproducible_and_lists_both_kinds() {
    let tree = Tree::new();
    let skills = sources(&tree);
    let site = tree.base.join("site");
    let outcome = publish(&tree, &skills, &site);
    assert_eq!(outcome["changed"], true);
    let first = site_files(&site);
    let names: Vec<&str> = first.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            ".well-known/agent-skills/index.json",
            ".well-known/agent-skills/notes/SKILL.md",
            ".well-known/agent-skills/pdf-tools.tar.gz",
        ]
    );
    let index: Value =
        serde_json::from_slice(&first[".well-known/agent-skills/index.json"]).unwrap();
    assert_eq!(
        index["$schema"],
        "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
    );
    let kinds: Vec<(&str, &str)> = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["name"].as_str().unwrap(),
                entry["type"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(kinds, [("notes", "skill-md"), ("pdf-tools", "archive")]);
    assert_eq!(index["skills"][0]["version"], "1.0.0");

    let again = publish(&tree, &skills, &site);
    assert_eq!(again["changed"], false);
    assert_eq!(site_files(&site), first, "the same bytes, file for file");
}

#[test]
fn an_invalid_skill_is_not_published_and_its_diagnostics_are_printed() {
    let tree = Tree::new();
    let skills = sources(&tree);
    tree.write(
        &skills.join("broken/SKILL.md"),
        "---\nname: Broken_Name\ndescription: x\n---\nBody\n",
    );
    let site = tree.base.join("site");
    let result = run(
        &tree,
        &[
            "publish",
            skills.to_str().unwrap(),
            "--out",
            site.to_str().unwrap(),
        ],
    );
    assert_eq!(result.code, Some(1), "{result:?}");
    assert!(result.stdout.contains("FAIL"), "{result:?}");
    assert!(result.stdout.contains("broken"), "{result:?}");
    assert!(result.stderr.contains("nothing was written"), "{result:?}");
    assert!(!site.exists(), "nothing is written");
}

/// Served by a static file server and installed back through the bare origin
/// (`http://127.0.0.1:PORT`, discovered as the v0.2 index at its root): every skill, byte for
/// byte, the archive's digest checked against the index.
#[test]
fn a_published_site_served_statically_installs_back_byte_identical() {
    let tree = Tree::new();
    let skills = sources(&tree);
    let site = tree.base.join("site");
    publish(&tree, &skills, &site);
    let server = Static::start(&site);

    let origin = server.url("");
    let outcomes = install_json(&tree, &[&origin]);
    let mut installed: Vec<&str> = outcomes
        .iter()
        .map(|outcome| outcome["slug"].as_str().unwrap())
        .collect();
    installed.sort_unstable();
    assert_eq!(installed, ["notes", "pdf-tools"], "{outcomes:?}");
    let root = tree.home.join(".agents/skills");
    for name in ["notes", "pdf-tools"] {
        assert_eq!(
            content(files_of(&root.join(name))),
            content(files_of(&skills.join(name))),
            "{name} comes back byte for byte"
        );
    }
    let index: Value = serde_json::from_slice(
        &std::fs::read(site.join(".well-known/agent-skills/index.json")).unwrap(),
    )
    .unwrap();
    let provenance: Value = serde_json::from_slice(
        &std::fs::read(
            root.join("pdf-tools")
                .join(skills_types::files::PROVENANCE_FILE),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(provenance["kind"], "well-known", "{provenance}");
    assert_eq!(
        provenance["resolved_url"],
        server.url("/.well-known/agent-skills/index.json")
    );
    let archive_digest = index["skills"][1]["digest"].as_str().unwrap();
    assert!(
        provenance.to_string().contains(archive_digest),
        "the archive's digest is recorded: {provenance}"
    );
    assert_eq!(
        provenance["sha256"]["scripts/extract.py"],
        sha256(b"print('text')\n")
    );

    // Through the index URL too, into a fresh home.
    let other = Tree::new();
    let index_url = server.url("/.well-known/agent-skills/index.json");
    assert_eq!(install_json(&other, &[&index_url]).len(), 2);
    assert_eq!(
        content(files_of(&other.home.join(".agents/skills/pdf-tools"))),
        content(files_of(&skills.join("pdf-tools")))
    );
}

/// An older version kept by a second publish installs from the site by `--version`, through the
/// `versions.json` the installer reads: the snapshot's bytes are the first publish's.
#[test]
fn an_older_version_kept_by_publish_installs_by_version() {
    let tree = Tree::new();
    let skills = sources(&tree);
    let site = tree.base.join("site");
    publish(&tree, &skills, &site);
    let first = std::fs::read(skills.join("notes/SKILL.md")).unwrap();
    tree.write(
        &skills.join("notes/SKILL.md"),
        "---\nname: notes\ndescription: Takes meeting notes.\nmetadata:\n  version: 1.1.0\n---\n# Notes\n\nWrite them down, with dates.\n",
    );
    let outcome = publish(&tree, &skills, &site);
    assert_eq!(outcome["snapshots"][0]["version"], "1.0.0", "{outcome}");
    let server = Static::start(&site);

    let outcomes = install_json(
        &tree,
        &[&server.url(""), "--skill", "notes", "--version", "1.0.0"],
    );
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    let installed = tree.home.join(".agents/skills/notes/SKILL.md");
    assert_eq!(std::fs::read(&installed).unwrap(), first);
}

/// The team workflow: publish, install from the site, publish a change, and `check` /
/// `update` on the installing side see it and bring it in (an archive entry this time).
#[test]
fn a_republished_site_is_seen_by_check_and_installed_by_update() {
    let tree = Tree::new();
    let skills = sources(&tree);
    let site = tree.base.join("site");
    publish(&tree, &skills, &site);
    let server = Static::start(&site);
    install_json(&tree, &[&server.url("")]);

    tree.write(
        &skills.join("pdf-tools/scripts/extract.py"),
        "print('text, faster')\n",
    );
    publish(&tree, &skills, &site);
    if let Static::Fixture(fixture) = &server {
        for (path, bytes) in site_files(&site) {
            fixture.route(&format!("/{path}"), Reply::Ok(bytes));
        }
    }
    let checks = run(&tree, &["--json", "check"]).json();
    let pending: Vec<&str> = checks["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|check| check["update_available"] == true)
        .map(|check| check["slug"].as_str().unwrap())
        .collect();
    assert_eq!(pending, ["pdf-tools"], "{checks}");

    let updated = run(&tree, &["--json", "update"]).json();
    let root = tree.home.join(".agents/skills");
    assert_eq!(
        content(files_of(&root.join("pdf-tools"))),
        content(files_of(&skills.join("pdf-tools"))),
        "{updated}"
    );
}

/// What can sit among a skill's files in place of a plain file (issue 29: a hard-linked
/// `~/.ssh/id_rsa` was published in the archive), and what the refusal must say.
#[derive(Clone, Copy, Debug)]
enum NotAPlainFile {
    /// A second name of a file outside the skill.
    HardLink,
    /// A second name of the skill's own definition file.
    HardLinkedDefinition,
    Fifo,
    Socket,
    Symlink,
}

impl NotAPlainFile {
    const ALL: [Self; 5] = [
        Self::HardLink,
        Self::HardLinkedDefinition,
        Self::Fifo,
        Self::Socket,
        Self::Symlink,
    ];

    /// Plants it in the skill `dir`, pointing at `secret` where it points anywhere; returns
    /// the path the refusal must name (and the socket, kept open while the publish runs).
    fn plant(
        self,
        dir: &Path,
        secret: &Path,
    ) -> (PathBuf, Option<std::os::unix::net::UnixListener>) {
        let at = dir.join("references/key.md");
        let socket = match self {
            Self::HardLink => {
                std::fs::hard_link(secret, &at).unwrap();
                None
            }
            Self::HardLinkedDefinition => {
                std::fs::hard_link(dir.join("SKILL.md"), &at).unwrap();
                // Both names are the same file, and `SKILL.md` is read first.
                return (dir.join("SKILL.md"), None);
            }
            Self::Fifo => {
                let made = Command::new("mkfifo").arg(&at).status().unwrap();
                assert!(made.success());
                None
            }
            Self::Socket => Some(std::os::unix::net::UnixListener::bind(&at).unwrap()),
            Self::Symlink => {
                std::os::unix::fs::symlink(secret, &at).unwrap();
                None
            }
        };
        (at, socket)
    }

    fn said(self) -> &'static str {
        match self {
            Self::HardLink | Self::HardLinkedDefinition => "2 hard links",
            Self::Fifo => "FIFO",
            Self::Socket => "socket",
            Self::Symlink => "symbolic link",
        }
    }
}

/// `skills --json publish SKILLS --out SITE`, killed and failed if it runs 20 seconds (a
/// FIFO read without `O_NONBLOCK` hangs forever).
fn publish_within(tree: &Tree, skills: &Path, site: &Path) -> crate::discovery::Run {
    let child = crate::runtime::spawn(tree, &publish_args(skills, site));
    crate::runtime::wait_within(child, std::time::Duration::from_secs(20))
}

#[test]
fn a_hard_link_a_fifo_a_socket_or_a_link_stops_publish_and_writes_no_partial_site() {
    for planted in NotAPlainFile::ALL {
        let tree = Tree::new();
        let skills = sources(&tree);
        let secret = tree.base.join("id_rsa");
        std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n").unwrap();
        // A site published before, which a refused publish must leave exactly as it was.
        let site = tree.base.join("site");
        publish(&tree, &skills, &site);
        let before = site_files(&site);
        let empty_site = tree.base.join("new-site");

        let (at, _socket) = planted.plant(&skills.join("pdf-tools"), &secret);
        for (out, expected) in [(&site, Some(&before)), (&empty_site, None)] {
            let result = publish_within(&tree, &skills, out);
            assert_eq!(result.code, Some(2), "{planted:?}: {result:?}");
            let error: Value = serde_json::from_str(&result.stdout).unwrap();
            assert_eq!(
                error["error"]["kind"], "refused_path",
                "{planted:?}: {result:?}"
            );
            let message = error["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&at.display().to_string()) && message.contains(planted.said()),
                "{planted:?}: the refusal names the file and what it is: {message}"
            );
            let output = format!("{}{}", result.stdout, result.stderr);
            assert!(!output.contains("secret\n"), "{planted:?}: {output}");
            match expected {
                Some(before) => assert_eq!(&site_files(out), before, "{planted:?}"),
                None => assert!(!out.exists(), "{planted:?}: nothing is written"),
            }
        }
        assert_eq!(
            std::fs::read_to_string(&secret).unwrap(),
            "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n"
        );
    }
}

/// `--keep-going` (issue 30): one skill over the description limit no longer blocks the two
/// valid ones beside it. Without the flag nothing is written; with it the two are published,
/// the refused one is named by its folder with why, and the status is 1. `--json` carries the
/// same refusal.
#[test]
fn keep_going_publishes_the_valid_skills_and_names_the_refused_folder() {
    let tree = Tree::new();
    let skills = sources(&tree);
    let description = "d".repeat(skills_types::limits::MAX_DESCRIPTION_CHARS + 1);
    let long = skills.join("long-winded");
    tree.write(
        &long.join("SKILL.md"),
        format!("---\nname: long-winded\ndescription: {description}\n---\n# Long\n"),
    );
    let site = tree.base.join("site");
    let args = |extra: &[&'static str]| {
        let mut args = vec![
            "publish".to_owned(),
            skills.display().to_string(),
            "--out".to_owned(),
            site.display().to_string(),
        ];
        args.extend(extra.iter().map(|arg| (*arg).to_owned()));
        args
    };

    let all_or_nothing = run(&tree, &strs(&args(&[])));
    assert_eq!(all_or_nothing.code, Some(1), "{all_or_nothing:?}");
    assert!(!site.exists(), "nothing is written without the flag");

    let kept_going = run(&tree, &strs(&args(&["--keep-going"])));
    assert_eq!(kept_going.code, Some(1), "{kept_going:?}");
    let refused_line = kept_going
        .stdout
        .lines()
        .find(|line| line.starts_with("refused "))
        .unwrap_or_else(|| panic!("no refused line: {kept_going:?}"));
    assert!(
        refused_line.contains(&long.display().to_string()),
        "named by its folder: {refused_line}"
    );
    assert!(
        kept_going.stdout.contains("description-too-long"),
        "{kept_going:?}"
    );
    for name in ["notes", "pdf-tools"] {
        assert!(
            kept_going.stdout.contains(&format!("published {name} ")),
            "{kept_going:?}"
        );
    }
    assert!(
        kept_going.stderr.contains("1 skill was not published"),
        "{kept_going:?}"
    );
    let index: Value = serde_json::from_slice(
        &std::fs::read(site.join(".well-known/agent-skills/index.json")).unwrap(),
    )
    .unwrap();
    let names: Vec<&str> = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["notes", "pdf-tools"]);

    let mut json_args = vec!["--json".to_owned()];
    json_args.extend(args(&["--keep-going"]));
    let json = run(&tree, &strs(&json_args));
    assert_eq!(json.code, Some(1), "{json:?}");
    let outcome: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(outcome["skills"].as_array().unwrap().len(), 2, "{outcome}");
    let refused = outcome["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{outcome}");
    assert_eq!(refused[0]["dir"], long.display().to_string());
    assert_eq!(refused[0]["kind"], "not_publishable");
    assert!(
        refused[0]["reason"]
            .as_str()
            .unwrap()
            .contains("description"),
        "{outcome}"
    );
    assert_eq!(refused[0]["kept"], false);
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}
