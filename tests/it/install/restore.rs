//! `skills install` without a source, through the binary: the skills the install records list
//! restored from a loopback server shaped like GitHub's API and archive host (through the
//! `[github] url` base), at the recorded commit; already installed ones left alone without a
//! request; a digest the source no longer serves refused by name; `--frozen` writing nothing
//! on any difference (the workspace compared inode by inode before and after); the home's
//! records with `--scope user`; the vercel tool's `skills-lock.json` read (never written) so a
//! team moving from that tool restores the same skills.
//!
//! The fixture's shapes are the public ones: GitHub's REST `GET
//! /repos/{owner}/{repo}/tarball/{ref}` answering with a redirect to the archive host, whose
//! tarball holds one `owner-repo-<sha>/` top folder; the vercel tool's project lock
//! (vercel-labs/skills `src/local-lock.ts`: `{version: 1, skills: {name: {source, ref?,
//! sourceType, computedHash, skillPath?}}}`).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skills_tests::http::{Reply, Server};
use skills_types::files::{LOCK_FILE, VERCEL_LOCK_FILE};

use super::{ALLOW_LOCAL_HTTP, Files, Skill, content, files_of, read_json, snapshot};
use crate::discovery::{Place, Run, Tree};

/// The commit the fixture's tarballs hold (GitHub names the top folder with 7 of its digits).
pub(super) const COMMIT: &str = "9c41e7d";

/// A GitHub tarball of `skills` under `skills/<name>/`, in `owner-repo-<commit>/`.
pub(super) fn github_tarball(owner: &str, repo: &str, commit: &str, skills: &[Skill]) -> Vec<u8> {
    let top = format!("{owner}-{repo}-{commit}");
    let mut builder = tar::Builder::new(Vec::new());
    let mut add = |path: &str, bytes: &[u8], kind: tar::EntryType| {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(kind);
        header.set_size(bytes.len() as u64);
        header.set_mode(if kind == tar::EntryType::Directory {
            0o755
        } else {
            0o644
        });
        header.set_mtime(1_700_000_000);
        header.set_cksum();
        builder.append_data(&mut header, path, bytes).unwrap();
    };
    add(&format!("{top}/"), b"", tar::EntryType::Directory);
    add(
        &format!("{top}/README.md"),
        b"# skills\n",
        tar::EntryType::Regular,
    );
    for skill in skills {
        for (path, bytes) in &skill.files {
            add(
                &format!("{top}/skills/{}/{path}", skill.name),
                bytes,
                tar::EntryType::Regular,
            );
        }
    }
    let tar = builder.into_inner().unwrap();
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&tar).unwrap();
    gzip.finish().unwrap()
}

/// Serves `tarball` as `owner/repo` at each of `refs` (`""`: the default branch): the API
/// path redirects to an archive path on the same server.
fn serve_repository(server: &Server, repository: &str, refs: &[&str], tarball: &[u8]) {
    for reference in refs {
        let api = if reference.is_empty() {
            format!("/api/v3/repos/{repository}/tarball")
        } else {
            format!("/api/v3/repos/{repository}/tarball/{reference}")
        };
        let archive = format!("/_codeload/{repository}/legacy.tar.gz/{reference}");
        server.route(&api, Reply::Redirect(server.url(&archive)));
        server.route(&archive, Reply::Ok(tarball.to_vec()));
    }
}

fn pdf() -> Skill {
    Skill::new(
        "pdf-forms",
        "Fills PDF forms.",
        "Run scripts/fill.py.",
        &[("scripts/fill.py", "print('filled')\n")],
    )
}

fn csv() -> Skill {
    Skill::new(
        "csv-clean",
        "Cleans CSV files.",
        "Read references/rules.md.",
        &[("references/rules.md", "# Rules\n")],
    )
}

/// A trusted workspace whose project root holds `pdf-forms` and `csv-clean`, installed from
/// the fixture's `acme/skills` at `main`; the server and the record's bytes.
struct Lab {
    tree: Tree,
    server: Server,
    record: Vec<u8>,
}

impl Lab {
    fn new() -> Self {
        let tree = Tree::new();
        let server = Server::start().unwrap();
        let tarball = github_tarball("acme", "skills", COMMIT, &[pdf(), csv()]);
        serve_repository(&server, "acme/skills", &["main", COMMIT], &tarball);
        tree.user_config(&format!("[github]\nurl = \"{}\"\n", server.url("")));
        tree.trust();
        let lab = Self {
            tree,
            server,
            record: Vec::new(),
        };
        let installed = lab.run(&[
            "--json",
            "install",
            "acme/skills@main",
            "--scope",
            "project",
        ]);
        assert_eq!(installed.json()["installed"].as_array().unwrap().len(), 2);
        Self {
            record: std::fs::read(lab.record_path()).unwrap(),
            ..lab
        }
    }

    fn root(&self) -> PathBuf {
        self.tree.root(Place::ProjectAgents)
    }

    fn record_path(&self) -> PathBuf {
        self.root().join(LOCK_FILE)
    }

    fn run(&self, args: &[&str]) -> Run {
        self.tree.run_with(args, &[(ALLOW_LOCAL_HTTP, "1")])
    }

    /// A fresh clone: the record is there, the skills are not.
    fn clone_fresh(&self) {
        for skill in [pdf(), csv()] {
            std::fs::remove_dir_all(self.root().join(&skill.name)).unwrap();
        }
    }

    fn installed(&self, name: &str) -> Files {
        content(files_of(&self.root().join(name)))
    }

    /// Sets the record's digest of `name` to one the source does not serve.
    fn tamper_digest(&self, name: &str) -> String {
        let mut record = read_json(&self.record_path());
        let wrong = format!("sha256:{}", "0".repeat(64));
        record["skills"][name]["sha256"] = Value::from(wrong.clone());
        std::fs::write(
            self.record_path(),
            serde_json::to_vec_pretty(&record).unwrap(),
        )
        .unwrap();
        wrong
    }
}

fn by_slug(report: &Value) -> std::collections::BTreeMap<String, Value> {
    report["restore"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|outcome| {
            (
                outcome["slug"].as_str().unwrap().to_owned(),
                outcome.clone(),
            )
        })
        .collect()
}

#[test]
fn a_fresh_clone_restores_every_recorded_skill_at_its_commit_and_the_record_reads_the_same() {
    let lab = Lab::new();
    lab.clone_fresh();
    let before = lab.server.targets().len();
    let run = lab.run(&["--json", "install"]);
    let report = run.json();
    let outcomes = by_slug(&report);
    assert_eq!(outcomes.len(), 2, "{report}");
    for skill in [pdf(), csv()] {
        let outcome = &outcomes[&skill.name];
        assert_eq!(outcome["action"], "installed", "{outcome}");
        assert_eq!(outcome["record"], "installed");
        assert_eq!(outcome["scope"], "project");
        assert_eq!(outcome["source"], "acme/skills@main");
        assert_eq!(lab.installed(&skill.name), skill.files);
    }
    assert_eq!(
        report["restore"]["records"],
        json!([lab.record_path().display().to_string()])
    );
    // One download, at the recorded commit rather than wherever `main` is now.
    assert_eq!(
        lab.server.targets()[before..],
        [
            format!("/api/v3/repos/acme/skills/tarball/{COMMIT}"),
            format!("/_codeload/acme/skills/legacy.tar.gz/{COMMIT}"),
        ]
    );
    assert_eq!(
        std::fs::read(lab.record_path()).unwrap(),
        lab.record,
        "the committed record reads the same after a restore"
    );

    // Everything is installed as recorded: nothing is fetched, nothing written.
    let workspace = snapshot(&lab.tree.workspace);
    let requests = lab.server.targets().len();
    let again = lab.run(&["install"]);
    assert_eq!(again.code, Some(0), "{again:?}");
    assert!(again.stdout.contains("current pdf-forms"), "{again:?}");
    assert_eq!(lab.server.targets().len(), requests, "no request was made");
    assert!(
        snapshot(&lab.tree.workspace) == workspace,
        "nothing was written"
    );
}

#[test]
fn a_digest_the_source_no_longer_serves_is_refused_by_name() {
    let lab = Lab::new();
    lab.clone_fresh();
    let wrong = lab.tamper_digest("csv-clean");
    let run = lab.run(&["install"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr.contains("digest_mismatch csv-clean")
            && run.stderr.contains(&wrong)
            && run.stderr.contains("acme/skills@main"),
        "{run:?}"
    );
    // The skill that matches is restored; the other is not there at all.
    assert!(run.stdout.contains("restored pdf-forms"), "{run:?}");
    assert_eq!(lab.installed("pdf-forms"), pdf().files);
    assert!(!lab.root().join("csv-clean").exists());
}

#[test]
fn frozen_writes_nothing_on_any_difference_and_restores_when_nothing_differs() {
    let lab = Lab::new();
    lab.clone_fresh();
    let untouched = lab.record.clone();
    lab.tamper_digest("csv-clean");
    let workspace = snapshot(&lab.tree.workspace);
    let run = lab.run(&["--json", "install", "--frozen"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let outcomes = by_slug(&report);
    assert_eq!(outcomes["csv-clean"]["action"], "differs");
    assert_eq!(outcomes["csv-clean"]["difference"], "digest_mismatch");
    assert_eq!(outcomes["pdf-forms"]["action"], "held", "{report}");
    assert!(
        snapshot(&lab.tree.workspace) == workspace,
        "a frozen restore that found a difference changed the workspace"
    );

    // The record as it was: everything matches, so everything is installed.
    std::fs::write(lab.record_path(), &untouched).unwrap();
    let run = lab.run(&["install", "--frozen"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    for skill in [pdf(), csv()] {
        assert_eq!(lab.installed(&skill.name), skill.files);
    }

    // A copy changed since it was installed is a difference too, and is kept.
    let edited = lab.root().join("pdf-forms/scripts/fill.py");
    std::fs::write(&edited, "print('mine')\n").unwrap();
    let workspace = snapshot(&lab.tree.workspace);
    let run = lab.run(&["install", "--frozen"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains("locally_modified pdf-forms"), "{run:?}");
    assert!(snapshot(&lab.tree.workspace) == workspace);

    // Without --frozen it is kept too, and --force puts the recorded version back.
    let run = lab.run(&["install"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(std::fs::read_to_string(&edited).unwrap(), "print('mine')\n");
    let run = lab.run(&["install", "--force"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(lab.installed("pdf-forms"), pdf().files);
    assert_eq!(std::fs::read(lab.record_path()).unwrap(), untouched);
}

#[test]
fn frozen_fails_when_a_source_cannot_be_reached_or_no_longer_offers_the_skill() {
    let lab = Lab::new();
    // The installed copies match; a frozen restore still asks every source.
    let served = github_tarball("acme", "skills", COMMIT, &[pdf()]);
    serve_repository(&lab.server, "acme/skills", &[COMMIT], &served);
    let workspace = snapshot(&lab.tree.workspace);
    let run = lab.run(&["--json", "install", "--frozen"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let outcomes = by_slug(&report);
    assert_eq!(outcomes["csv-clean"]["difference"], "missing", "{report}");
    assert_eq!(outcomes["pdf-forms"]["action"], "current", "{report}");

    // The server gone: every skill's source is unreachable.
    let Lab { tree, server, .. } = lab;
    drop(server);
    let run = tree.run_with(
        &["--json", "install", "--frozen"],
        &[(ALLOW_LOCAL_HTTP, "1")],
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    for outcome in by_slug(&report).values() {
        assert_eq!(outcome["difference"], "source_unreachable", "{outcome}");
    }
    assert!(snapshot(&tree.workspace) == workspace);
}

#[test]
fn the_user_scope_restores_the_homes_record_and_a_project_restore_needs_trust() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let tarball = github_tarball("acme", "skills", COMMIT, &[pdf(), csv()]);
    serve_repository(&server, "acme/skills", &["", COMMIT], &tarball);
    let env = [(ALLOW_LOCAL_HTTP, "1")];
    tree.user_config(&format!("[github]\nurl = \"{}\"\n", server.url("")));
    let run = tree.run_with(&["install", "acme/skills", "--skill", "pdf-forms"], &env);
    assert_eq!(run.code, Some(0), "{run:?}");
    let root = tree.root(Place::UserAgents);
    std::fs::remove_dir_all(root.join("pdf-forms")).unwrap();

    // The project's records by default: an untrusted workspace is refused, naming trust.
    let refused = tree.run_with(&["install"], &env);
    assert_ne!(refused.code, Some(0), "{refused:?}");
    assert!(refused.stderr.contains("trust"), "{refused:?}");
    assert!(!root.join("pdf-forms").exists());

    let run = tree.run_with(&["install", "--scope", "user"], &env);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(content(files_of(&root.join("pdf-forms"))), pdf().files);
    assert!(!root.join("csv-clean").exists(), "only what was recorded");
}

/// Writes the vercel tool's project lock into the workspace; returns its bytes.
fn vercel_lock(workspace: &Path, skills: Value) -> Vec<u8> {
    let text = serde_json::to_string_pretty(&json!({ "version": 1, "skills": skills })).unwrap();
    let bytes = format!("{text}\n").into_bytes();
    std::fs::write(workspace.join(VERCEL_LOCK_FILE), &bytes).unwrap();
    bytes
}

#[test]
fn the_vercel_tools_lock_restores_the_same_skills_and_is_never_written() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let tarball = github_tarball("acme", "skills", COMMIT, &[pdf(), csv()]);
    serve_repository(&server, "acme/skills", &["v2"], &tarball);
    tree.user_config(&format!("[github]\nurl = \"{}\"\n", server.url("")));
    tree.trust();
    let notes = Skill::new("team-notes", "Keeps team notes.", "Write them down.", &[]);
    for (path, bytes) in &notes.files {
        tree.write(&tree.workspace.join("vendor/team-notes").join(path), bytes);
    }
    let lock = vercel_lock(
        &tree.workspace,
        json!({
            "pdf-forms": {
                "source": "acme/skills",
                "ref": "v2",
                "sourceType": "github",
                "skillPath": "skills/pdf-forms/SKILL.md",
                "computedHash": "5a1d"
            },
            "team-notes": {
                "source": "vendor/team-notes",
                "sourceType": "local",
                "computedHash": "77c0"
            },
            "from-npm": {
                "source": "@acme/skills-pkg",
                "sourceType": "node_modules",
                "computedHash": "0b9e"
            }
        }),
    );
    let run = tree.run_with(&["--json", "install"], &[(ALLOW_LOCAL_HTTP, "1")]);
    assert_eq!(run.code, Some(1), "one entry cannot be restored: {run:?}");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let outcomes = by_slug(&report);
    assert_eq!(outcomes["pdf-forms"]["action"], "installed", "{report}");
    assert_eq!(outcomes["pdf-forms"]["record"], "vercel-lock");
    assert_eq!(
        outcomes["pdf-forms"]["source"],
        "acme/skills/skills/pdf-forms@v2"
    );
    assert_eq!(outcomes["team-notes"]["action"], "installed", "{report}");
    assert_eq!(outcomes["from-npm"]["difference"], "unrestorable");
    assert!(
        outcomes["from-npm"]["message"]
            .as_str()
            .unwrap()
            .contains("'node_modules'"),
        "{report}"
    );
    // Into the project's `.agents/skills`, as the vercel tool restores.
    let root = tree.root(Place::ProjectAgents);
    assert_eq!(content(files_of(&root.join("pdf-forms"))), pdf().files);
    assert_eq!(content(files_of(&root.join("team-notes"))), notes.files);
    assert!(!root.join("csv-clean").exists());
    assert_eq!(
        std::fs::read(tree.workspace.join(VERCEL_LOCK_FILE)).unwrap(),
        lock,
        "the vercel tool's lock is never written"
    );
    // This program's record now lists them, with digests of its own.
    let record = read_json(&root.join(LOCK_FILE));
    assert_eq!(
        record["skills"]["pdf-forms"]["source_url"],
        "acme/skills/skills/pdf-forms@v2"
    );
    assert!(
        record["skills"]["pdf-forms"]["sha256"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );

    // Present now: a second restore leaves them alone and fetches nothing.
    let requests = server.targets().len();
    let again = tree.run_with(&["--json", "install"], &[(ALLOW_LOCAL_HTTP, "1")]);
    let report: Value = serde_json::from_str(&again.stdout).unwrap();
    let outcomes = by_slug(&report);
    assert_eq!(outcomes["pdf-forms"]["action"], "current", "{report}");
    assert_eq!(server.targets().len(), requests);
}
