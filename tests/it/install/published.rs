//! The publisher forms of 09 §Publishers end to end through the binary: an agent-skills v0.2
//! site (a `skill-md` and an `archive` entry, found from the bare origin and from a docs page,
//! and a versioned snapshot), vercel's `/.well-known/skills/` index, an opencode pack's folder,
//! GitHub (Enterprise) repositories, folders and files through a loopback server shaped like
//! the API (a tarball with GitHub's `pax_global_header` and `owner-repo-sha/` top folder,
//! reached through the API's redirect), archive URLs, and local folders and archives. Every
//! hostile archive is refused with the skill roots left exactly as they were.
//!
//! The shapes are the public ones: the agent-skills discovery RFC v0.2.0
//! (cloudflare/agent-skills-discovery-rfc: `$schema`, entries `{name, type, description, url,
//! digest}`), vercel-labs/skills `src/providers/wellknown.ts` (`{skills: [{name,
//! description, files}]}`, files at `/.well-known/skills/<name>/<file>`), and GitHub's REST
//! `GET /repos/{owner}/{repo}/tarball/{ref}` (a 302 to the archive host).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use skills_tests::http::{Reply, Server};
use skills_types::files::{LOCK_FILE, PROVENANCE_FILE};

use super::{Files, Skill, content, files_of, read_json, run, serve_pack, sha256, snapshot};
use crate::discovery::{Place, Tree};

const SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/// The commit the GitHub fixture's tarball holds.
pub(super) const COMMIT: &str = "4f2a9c1";

/// One entry of a tar stream, hostile ones included (names are written raw, so `../x` and
/// `/etc/x` reach the extractor as a real attacker would send them).
#[derive(Clone, Copy)]
pub(super) enum Tar<'a> {
    Dir(&'a str),
    File(&'a str, &'a [u8]),
    Symlink(&'a str, &'a str),
    /// GitHub's `pax_global_header` (the commit id as a comment).
    GlobalHeader(&'a str),
}

pub(super) fn tar_gz(entries: &[Tar<'_>]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for entry in entries {
        let mut header = tar::Header::new_ustar();
        let (name, kind, body): (&str, tar::EntryType, Vec<u8>) = match entry {
            Tar::Dir(name) => (name, tar::EntryType::Directory, Vec::new()),
            Tar::File(name, bytes) => (name, tar::EntryType::Regular, bytes.to_vec()),
            Tar::Symlink(name, target) => {
                header.set_link_name(target).unwrap();
                (name, tar::EntryType::Symlink, Vec::new())
            }
            Tar::GlobalHeader(commit) => {
                let record = format!("comment={commit}\n");
                let line = format!("{} {record}", record.len() + 3);
                (
                    "pax_global_header",
                    tar::EntryType::XGlobalHeader,
                    line.into_bytes(),
                )
            }
        };
        let raw = &mut header.as_old_mut().name;
        raw[..name.len()].copy_from_slice(name.as_bytes());
        header.set_entry_type(kind);
        header.set_mode(if kind == tar::EntryType::Directory {
            0o755
        } else {
            0o644
        });
        header.set_mtime(1_700_000_000);
        header.set_size(body.len() as u64);
        header.set_cksum();
        builder.append(&header, body.as_slice()).unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&tar).unwrap();
    gzip.finish().unwrap()
}

/// A zip of `files` (deflated), with `links` as symlink entries.
pub(super) fn zip_of(files: &[(&str, &[u8])], links: &[(&str, &str)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        writer.start_file(*name, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    for (name, target) in links {
        writer.add_symlink(*name, *target, options).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// A skill's files as tar entries under `prefix` (`""` for the archive root).
fn entries_of<'a>(skill: &'a Skill, prefix: &str) -> Vec<(String, &'a [u8])> {
    skill
        .files
        .iter()
        .map(|(path, bytes)| (format!("{prefix}{path}"), bytes.as_slice()))
        .collect()
}

fn tar_of_skill(skill: &Skill) -> Vec<u8> {
    let entries = entries_of(skill, "");
    tar_gz(
        &entries
            .iter()
            .map(|(path, bytes)| Tar::File(path, bytes))
            .collect::<Vec<_>>(),
    )
}

pub(super) fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", sha256(bytes))
}

fn single() -> Skill {
    Skill::new(
        "code-review",
        "Reviews code for bugs.",
        "Read the diff first.",
        &[],
    )
}

fn multi() -> Skill {
    Skill::new(
        "wrangler",
        "Deploys Workers projects.",
        "See references/commands.md and run scripts/deploy.sh.",
        &[
            ("references/commands.md", "# Commands\n\nwrangler deploy\n"),
            ("scripts/deploy.sh", "#!/bin/sh\nwrangler deploy\n"),
        ],
    )
}

/// Serves a v0.2 site at `dir` (`/.well-known/agent-skills`): `single` as a `skill-md` entry,
/// `archive` (the `.tar.gz` bytes of `multi`) as an `archive` entry, both at version
/// `version`. Returns the index's JSON.
fn serve_v0_2(server: &Server, dir: &str, version: &str, archive: &[u8]) -> Value {
    let single = single();
    server.route(
        &format!("{dir}/code-review/SKILL.md"),
        Reply::Ok(single.definition().to_vec()),
    );
    server.route(
        &format!("{dir}/wrangler.tar.gz"),
        Reply::Ok(archive.to_vec()),
    );
    let index = json!({
        "$schema": SCHEMA,
        "skills": [
            {
                "name": "code-review",
                "type": "skill-md",
                "description": "Reviews code for bugs.",
                "url": "code-review/SKILL.md",
                "digest": digest(single.definition()),
                "version": version,
            },
            {
                "name": "wrangler",
                "type": "archive",
                "description": "Deploys Workers projects.",
                "url": "wrangler.tar.gz",
                "digest": digest(archive),
                "version": version,
            },
        ],
    });
    server.text(&format!("{dir}/index.json"), &index.to_string());
    index
}

/// The state of every place an install could write.
pub(super) fn roots(
    tree: &Tree,
) -> (
    BTreeMap<String, super::Identity>,
    BTreeMap<String, super::Identity>,
) {
    (snapshot(&tree.home), snapshot(&tree.workspace))
}

pub(super) fn installed(tree: &Tree, slug: &str) -> Files {
    content(files_of(&tree.root(Place::UserAgents).join(slug)))
}

pub(super) fn provenance(tree: &Tree, slug: &str) -> Value {
    read_json(
        &tree
            .root(Place::UserAgents)
            .join(slug)
            .join(PROVENANCE_FILE),
    )
}

pub(super) fn install(tree: &Tree, args: &[&str]) -> Vec<Value> {
    let mut full = vec!["--json", "install"];
    full.extend_from_slice(args);
    let document = run(tree, &full).json();
    document["installed"].as_array().unwrap().clone()
}

/// Runs an install that must fail, and checks that it changed nothing; returns stderr.
pub(super) fn refused(tree: &Tree, args: &[&str], env: &[(&str, &str)]) -> String {
    let before = roots(tree);
    let mut full = vec!["install"];
    full.extend_from_slice(args);
    let mut vars = vec![(super::ALLOW_LOCAL_HTTP, "1")];
    vars.extend_from_slice(env);
    let outcome = tree.run_with(&full, &vars);
    assert_ne!(outcome.code, Some(0), "{outcome:?}");
    assert!(
        before == roots(tree),
        "a refused install changed the roots: {outcome:?}"
    );
    outcome.stderr
}

#[test]
fn a_v0_2_site_installs_its_skill_md_and_archive_entries_from_the_bare_origin() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let archive = tar_of_skill(&multi());
    serve_v0_2(&server, "/.well-known/agent-skills", "1.2.0", &archive);
    let origin = server.url("");

    // --list: what it offers, nothing written.
    let before = roots(&tree);
    let listed = run(&tree, &["--json", "install", &origin, "--list"]).json();
    let offered = listed["offered"].as_array().unwrap();
    let names: Vec<&str> = offered
        .iter()
        .map(|o| o["slug"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["code-review", "wrangler"]);
    assert_eq!(offered[1]["kind"], "well-known");
    assert_eq!(offered[1]["description"], "Deploys Workers projects.");
    assert_eq!(offered[1]["files"], 3);
    assert!(before == roots(&tree), "--list wrote something");
    let text = run(&tree, &["install", &origin, "--list"]);
    assert!(
        text.ok()
            .contains("wrangler (well-known, 3 files, version 1.2.0)"),
        "{text:?}"
    );

    let outcomes = install(&tree, &[&origin]);
    assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    assert_eq!(installed(&tree, "code-review"), single().files);
    assert_eq!(installed(&tree, "wrangler"), multi().files);
    let record = provenance(&tree, "wrangler");
    assert_eq!(record["kind"], "well-known");
    assert_eq!(record["version"], "1.2.0");
    assert_eq!(record["digest"], digest(&archive));
    assert_eq!(
        record["resolved_url"],
        server.url("/.well-known/agent-skills/index.json")
    );
    let lock = read_json(&tree.root(Place::UserAgents).join(LOCK_FILE));
    assert_eq!(lock["skills"]["wrangler"]["digest"], digest(&archive));
    assert_eq!(lock["skills"]["code-review"]["version"], "1.2.0");
}

#[test]
fn a_docs_page_looks_beside_its_path_before_the_origin_root() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    serve_v0_2(
        &server,
        "/.well-known/agent-skills",
        "1.0.0",
        &tar_of_skill(&multi()),
    );
    let outcomes = install(&tree, &[&server.url("/docs/"), "--skill", "wrangler"]);
    assert_eq!(outcomes.len(), 1);
    assert_eq!(installed(&tree, "wrangler"), multi().files);
    // Every index form at the path first, then the origin's root.
    let targets = server.targets();
    assert_eq!(
        targets[..4],
        [
            "/docs/.well-known/agent-skills/index.json".to_owned(),
            "/docs/.well-known/skills/index.json".to_owned(),
            "/docs/index.json".to_owned(),
            "/.well-known/agent-skills/index.json".to_owned()
        ],
        "{targets:?}"
    );
    assert!(
        !targets.iter().any(|target| target.contains("code-review")),
        "an unwanted entry was fetched: {targets:?}"
    );
}

/// Issue 30 §6: a v0.2 index at the origin's root used to win over a v0.1 (vercel) index or a
/// pack at the path asked for, installing another publisher's skills. Every form at the path
/// comes first now; the root is asked only when the path has none.
#[test]
fn every_index_form_at_the_path_wins_over_the_origin_root() {
    let server = Server::start().unwrap();
    // The origin's root publishes its own skills (v0.2).
    serve_v0_2(
        &server,
        "/.well-known/agent-skills",
        "1.0.0",
        &tar_of_skill(&multi()),
    );
    // A v0.1 index at /docs, and a pack at /packs.
    let docs = Skill::new("docs-skill", "From the docs.", "Body.", &[]);
    server.route(
        "/docs/.well-known/skills/docs-skill/SKILL.md",
        Reply::Ok(docs.definition().to_vec()),
    );
    server.text(
        "/docs/.well-known/skills/index.json",
        &json!({"skills": [{"name": "docs-skill", "description": "From the docs.", "files": ["SKILL.md"]}]})
            .to_string(),
    );
    let packed = Skill::new("packed", "From the pack.", "Body.", &[]);
    serve_pack(&server, "/packs", std::slice::from_ref(&packed), "1.0.0");
    for (path, slug, kind, tried) in [
        (
            "/docs",
            "docs-skill",
            "vercel-well-known",
            &[
                "/docs/.well-known/agent-skills/index.json",
                "/docs/.well-known/skills/index.json",
            ][..],
        ),
        (
            "/packs/",
            "packed",
            "pack",
            &[
                "/packs/.well-known/agent-skills/index.json",
                "/packs/.well-known/skills/index.json",
                "/packs/index.json",
            ][..],
        ),
    ] {
        let tree = Tree::new();
        let before = server.targets().len();
        let outcomes = install(&tree, &[&server.url(path)]);
        assert_eq!(outcomes.len(), 1, "{path}: {outcomes:?}");
        assert_eq!(outcomes[0]["slug"], slug);
        assert_eq!(outcomes[0]["kind"], kind);
        let targets = server.targets()[before..].to_vec();
        assert_eq!(targets[..tried.len()], *tried, "{path}: {targets:?}");
        assert!(
            !targets
                .iter()
                .any(|target| target.starts_with("/.well-known/")),
            "{path}: the root was asked: {targets:?}"
        );
    }
    // A path with no index of any form falls back to the root, last.
    let tree = Tree::new();
    let before = server.targets().len();
    let outcomes = install(&tree, &[&server.url("/blog"), "--skill", "code-review"]);
    assert_eq!(outcomes[0]["slug"], "code-review");
    assert_eq!(
        server.targets()[before..before + 4],
        [
            "/blog/.well-known/agent-skills/index.json",
            "/blog/.well-known/skills/index.json",
            "/blog/index.json",
            "/.well-known/agent-skills/index.json",
        ]
    );
}

#[test]
fn a_skill_an_index_does_not_list_is_an_error_naming_what_it_lists() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    serve_v0_2(
        &server,
        "/.well-known/agent-skills",
        "1.0.0",
        &tar_of_skill(&multi()),
    );
    let stderr = refused(&tree, &[&server.url("/"), "--skill", "nope"], &[]);
    assert!(
        stderr.contains("'nope'") && stderr.contains("code-review, wrangler"),
        "{stderr}"
    );
    assert_eq!(
        server.targets(),
        ["/.well-known/agent-skills/index.json"],
        "no entry is fetched for a name the index does not list"
    );
}

#[test]
fn a_github_redirect_to_an_internal_address_is_refused() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    server.route(
        "/api/v3/repos/acme/skills/tarball",
        Reply::Redirect("https://169.254.169.254/latest/meta-data/".to_owned()),
    );
    let base = server.url("");
    let stderr = refused(&tree, &["acme/skills"], &[("SKILLS_GITHUB_URL", &base)]);
    assert!(stderr.contains("169.254.169.254"), "{stderr}");
}

#[test]
fn a_published_version_installs_from_its_snapshot() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    serve_v0_2(
        &server,
        "/.well-known/agent-skills",
        "2.0.0",
        &tar_of_skill(&multi()),
    );
    let old = Skill::new("code-review", "Reviews code for bugs.", "The old way.", &[]);
    server.route(
        "/.well-known/agent-skills/v1.0.0/code-review/SKILL.md",
        Reply::Ok(old.definition().to_vec()),
    );
    server.text(
        "/.well-known/agent-skills/v1.0.0/index.json",
        &json!({"$schema": SCHEMA, "skills": [{
            "name": "code-review", "type": "skill-md", "description": "Reviews code for bugs.",
            "url": "code-review/SKILL.md", "digest": digest(old.definition()), "version": "1.0.0",
        }]})
        .to_string(),
    );
    server.text(
        "/.well-known/agent-skills/versions.json",
        &json!({"versions": [{"version": "1.0.0", "url": "v1.0.0/index.json", "skills": ["code-review"]}]})
            .to_string(),
    );
    let outcomes = install(&tree, &[&server.url("/"), "--version", "1.0.0"]);
    assert_eq!(outcomes.len(), 1);
    assert_eq!(installed(&tree, "code-review"), old.files);
    let record = provenance(&tree, "code-review");
    assert_eq!(record["ref"], "1.0.0");
    assert_eq!(record["version"], "1.0.0");

    let stderr = refused(&tree, &[&server.url("/"), "--version", "0.9.0"], &[]);
    assert!(
        stderr.contains("no version 0.9.0") && stderr.contains("1.0.0"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_schema_is_refused_by_name() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let single = single();
    server.route(
        "/.well-known/agent-skills/code-review/SKILL.md",
        Reply::Ok(single.definition().to_vec()),
    );
    server.text(
        "/.well-known/agent-skills/index.json",
        &json!({"$schema": "https://schemas.agentskills.io/discovery/9.0.0/schema.json",
                "skills": [{"name": "code-review", "type": "skill-md", "description": "x",
                            "url": "code-review/SKILL.md", "digest": digest(single.definition())}]})
        .to_string(),
    );
    let stderr = refused(&tree, &[&server.url("/")], &[]);
    assert!(stderr.contains("discovery/9.0.0/schema.json"), "{stderr}");
    assert!(
        !server
            .targets()
            .iter()
            .any(|target| target.ends_with("SKILL.md")),
        "nothing is fetched from an index of an unknown schema"
    );
}

/// Hostile archives, each refused both as a v0.2 `archive` entry and as an archive URL, with
/// words the refusal must hold.
fn hostile_archives() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let definition = multi().files["SKILL.md"].clone();
    let valid = tar_of_skill(&multi());
    let zip_valid = zip_of(
        &[("SKILL.md", &definition), ("notes.md", b"# notes\n")],
        &[],
    );
    let zeros = vec![0u8; 24 * 1024 * 1024];
    let skill_md = Tar::File("SKILL.md", &definition);
    vec![
        (
            "traversal",
            tar_gz(&[skill_md, Tar::File("../escape.md", b"x")]),
            "'..' component",
        ),
        (
            "absolute",
            tar_gz(&[skill_md, Tar::File("/tmp/abs.md", b"x")]),
            "absolute",
        ),
        (
            "tar symlink",
            tar_gz(&[skill_md, Tar::Symlink("key", "/etc/passwd")]),
            "symbolic link",
        ),
        (
            "zip symlink",
            zip_of(&[("SKILL.md", &definition)], &[("key", "/etc/passwd")]),
            "symbolic link",
        ),
        (
            "zip traversal",
            zip_of(&[("SKILL.md", &definition), ("../../escape.md", b"x")], &[]),
            "'..' component",
        ),
        (
            "zip bomb",
            zip_of(&[("SKILL.md", &definition), ("zeros.bin", &zeros)], &[]),
            "larger than",
        ),
        (
            // Every file within the package limit, the whole far past 100:1.
            "zip ratio bomb",
            zip_of(
                &[
                    ("SKILL.md", &definition),
                    ("a.bin", &zeros[..900 * 1024]),
                    ("b.bin", &zeros[..900 * 1024]),
                    ("c.bin", &zeros[..900 * 1024]),
                ],
                &[],
            ),
            "bomb",
        ),
        (
            "truncated tar.gz",
            valid[..valid.len() / 2].to_vec(),
            "incomplete",
        ),
        (
            "truncated zip",
            zip_valid[..zip_valid.len() - 30].to_vec(),
            "truncated",
        ),
    ]
}

#[test]
fn hostile_archives_are_refused_and_leave_the_roots_unchanged() {
    let tree = Tree::new();
    // Something installed before, which must stay exactly as it is.
    tree.skill(Place::UserAgents, "keep", "keep", "Stays.");
    for (case, bytes, needle) in hostile_archives() {
        let server = Server::start().unwrap();
        serve_v0_2(&server, "/.well-known/agent-skills", "1.0.0", &bytes);
        let stderr = refused(&tree, &[&server.url("/"), "--skill", "wrangler"], &[]);
        assert!(stderr.contains(needle), "{case}: {stderr}");
        // The same bytes as an archive URL, a GitHub tarball and a local archive.
        server.route("/dl/x.tar.gz", Reply::Ok(bytes.clone()));
        server.route("/dl/x.zip", Reply::Ok(bytes.clone()));
        server.route("/api/v3/repos/evil/x/tarball", Reply::Ok(bytes.clone()));
        for args in [[server.url("/dl/x.tar.gz")], [server.url("/dl/x.zip")]] {
            let stderr = refused(&tree, &[&args[0]], &[]);
            assert!(stderr.contains(needle), "{case} at {}: {stderr}", args[0]);
        }
        let base = server.url("");
        let stderr = refused(&tree, &["evil/x"], &[("SKILLS_GITHUB_URL", &base)]);
        assert!(stderr.contains(needle), "{case} from GitHub: {stderr}");
        let name = if bytes.starts_with(&[0x1f, 0x8b]) {
            "hostile.tar.gz"
        } else {
            "hostile.zip"
        };
        let local = tree.base.join(name);
        std::fs::write(&local, &bytes).unwrap();
        let stderr = refused(&tree, &[local.to_str().unwrap()], &[]);
        assert!(
            stderr.contains(needle),
            "{case} from a local file: {stderr}"
        );
        std::fs::remove_file(&local).unwrap();
    }
}

#[test]
fn a_wrong_archive_digest_is_refused_before_extraction() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let archive = tar_of_skill(&multi());
    serve_v0_2(&server, "/.well-known/agent-skills", "1.0.0", &archive);
    // The publisher's archive changed after the index was written.
    let other = tar_of_skill(&Skill::new("wrangler", "Deploys.", "Tampered.", &[]));
    server.route(
        "/.well-known/agent-skills/wrangler.tar.gz",
        Reply::Ok(other),
    );
    let stderr = refused(&tree, &[&server.url("/")], &[]);
    assert!(stderr.contains("digest"), "{stderr}");
}

#[test]
fn a_vercel_well_known_index_installs_every_listed_file_as_its_own_kind() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skill = multi();
    for (path, bytes) in &skill.files {
        server.route(
            &format!("/.well-known/skills/wrangler/{path}"),
            Reply::Ok(bytes.clone()),
        );
    }
    let files: Vec<&String> = skill.files.keys().collect();
    server.text(
        "/.well-known/skills/index.json",
        &json!({"skills": [{"name": "wrangler", "description": "Deploys Workers projects.", "files": files}]})
            .to_string(),
    );
    // An object store answers 403 for the agent-skills index it does not have.
    server.route("/.well-known/agent-skills/index.json", Reply::Status(403));
    let listed = run(&tree, &["--json", "install", &server.url("/"), "--list"]).json();
    assert_eq!(listed["offered"][0]["kind"], "vercel-well-known");
    install(&tree, &[&server.url("/")]);
    assert_eq!(installed(&tree, "wrangler"), skill.files);
    assert_eq!(provenance(&tree, "wrangler")["kind"], "vercel-well-known");
}

#[test]
fn an_agent_skills_index_of_the_rfc_v0_1_form_installs_the_files_it_lists() {
    // v0.1 had no `$schema` and listed each skill's files, served beside the index.
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skill = multi();
    for (path, bytes) in &skill.files {
        server.route(
            &format!("/.well-known/agent-skills/wrangler/{path}"),
            Reply::Ok(bytes.clone()),
        );
    }
    let files: Vec<&String> = skill.files.keys().collect();
    server.text(
        "/.well-known/agent-skills/index.json",
        &json!({"skills": [{"name": "wrangler", "description": "Deploys.", "files": files}]})
            .to_string(),
    );
    install(&tree, &[&server.url("/")]);
    assert_eq!(installed(&tree, "wrangler"), skill.files);
    assert_eq!(provenance(&tree, "wrangler")["kind"], "well-known");
}

#[test]
fn an_opencode_pack_installs_from_its_folder_without_index_json() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skills = super::sources::pack_skills();
    serve_pack(&server, "/packs/team", &skills, "3.1.0");
    install(&tree, &[&server.url("/packs/team/")]);
    for skill in &skills {
        assert_eq!(installed(&tree, &skill.name), skill.files);
        assert_eq!(provenance(&tree, &skill.name)["kind"], "pack");
    }
}

/// A GitHub-shaped server: `GET /api/v3/repos/acme/skills/tarball[/REF]` answers 302 to the
/// archive host, which serves GitHub's tarball layout.
fn serve_github(server: &Server) -> Vec<u8> {
    let pdf = multi();
    let csv = Skill::new(
        "csv-tools",
        "Cleans CSV files.",
        "Run it.",
        &[("ref/x.md", "x\n")],
    );
    let top = format!("acme-skills-{COMMIT}/");
    let mut owned: Vec<(String, Vec<u8>)> =
        vec![(format!("{top}README.md"), b"# skills\n".to_vec())];
    for (path, bytes) in &pdf.files {
        owned.push((format!("{top}skills/wrangler/{path}"), bytes.clone()));
    }
    for (path, bytes) in &csv.files {
        owned.push((format!("{top}skills/csv-tools/{path}"), bytes.clone()));
    }
    owned.push((
        format!("{top}.github/workflows/ci.yml"),
        b"on: push\n".to_vec(),
    ));
    // A repository's link beside its skills (`CLAUDE.md -> AGENTS.md`) is left out, never
    // created; only a link inside a skill refuses the install.
    let link = format!("{top}CLAUDE.md");
    let mut entries = vec![Tar::GlobalHeader(COMMIT), Tar::Dir(&top)];
    entries.extend(owned.iter().map(|(path, bytes)| Tar::File(path, bytes)));
    entries.push(Tar::Symlink(&link, "AGENTS.md"));
    let tarball = tar_gz(&entries);
    for (api, archive) in [
        (
            "/api/v3/repos/acme/skills/tarball/main",
            "/_codeload/acme/skills/legacy.tar.gz/main",
        ),
        (
            "/api/v3/repos/acme/skills/tarball",
            "/_codeload/acme/skills/legacy.tar.gz/HEAD",
        ),
    ] {
        server.route(api, Reply::Redirect(server.url(archive)));
        server.route(archive, Reply::Ok(tarball.clone()));
    }
    server.route(
        "/acme/skills/raw/main/skills/wrangler/SKILL.md",
        Reply::Ok(pdf.definition().to_vec()),
    );
    tarball
}

#[test]
fn github_shorthand_installs_one_folder_of_the_tarball_from_the_configured_base() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let tarball = serve_github(&server);
    // The home file's [github] url.
    tree.user_config(&format!("[github]\nurl = \"{}\"\n", server.url("")));
    install(&tree, &["acme/skills/skills/wrangler@main"]);
    assert_eq!(installed(&tree, "wrangler"), multi().files);
    assert!(!tree.root(Place::UserAgents).join("csv-tools").exists());
    let record = provenance(&tree, "wrangler");
    assert_eq!(record["kind"], "github");
    assert_eq!(record["source_url"], "acme/skills/skills/wrangler@main");
    assert_eq!(record["ref"], "main");
    assert_eq!(record["commit"], COMMIT);
    assert_eq!(record["digest"], digest(&tarball));
    assert_eq!(
        record["resolved_url"],
        server.url("/api/v3/repos/acme/skills/tarball/main")
    );
    // One tarball request (and the archive host it redirects to), nothing else.
    assert_eq!(
        server.targets(),
        [
            "/api/v3/repos/acme/skills/tarball/main",
            "/_codeload/acme/skills/legacy.tar.gz/main"
        ]
    );
}

#[test]
fn github_tree_urls_repositories_and_file_pages() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    serve_github(&server);
    let base = server.url("");
    let env = [("SKILLS_GITHUB_URL", base.as_str())];
    // The variable wins over the file.
    tree.user_config("[github]\nurl = \"http://127.0.0.1:9\"\n");
    let with = |args: &[&str]| {
        let mut full = vec!["--json", "install"];
        full.extend_from_slice(args);
        tree.run_with(&full, &[(super::ALLOW_LOCAL_HTTP, "1"), env[0]])
    };
    let listed = with(&[&server.url("/acme/skills/tree/main/skills"), "--list"]).json();
    let names: Vec<&str> = listed["offered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["slug"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["csv-tools", "wrangler"]);

    let outcome = with(&[
        &server.url("/acme/skills/tree/main/skills"),
        "--skill",
        "csv-tools",
    ]);
    assert_eq!(outcome.json()["installed"].as_array().unwrap().len(), 1);
    assert!(!tree.root(Place::UserAgents).join("wrangler").exists());

    let stderr = refused(&tree, &["acme/skills", "--skill", "nope"], &env);
    assert!(
        stderr.contains("'nope'") && stderr.contains("csv-tools, wrangler"),
        "{stderr}"
    );

    // The repository root at its default branch: every skill in it.
    let all = with(&[&server.url("/acme/skills"), "--force"]).json();
    assert_eq!(all["installed"].as_array().unwrap().len(), 2, "{all}");
    assert!(
        server
            .targets()
            .contains(&"/api/v3/repos/acme/skills/tarball".to_owned())
    );

    // A file page stays one file.
    let tree_two = Tree::new();
    let file = tree_two.run_with(
        &[
            "--json",
            "install",
            &server.url("/acme/skills/blob/main/skills/wrangler/SKILL.md"),
        ],
        &[(super::ALLOW_LOCAL_HTTP, "1"), env[0]],
    );
    assert_eq!(file.json()["installed"][0]["files"], 1);
}

#[test]
fn an_archive_url_installs_every_skill_inside() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let one = multi();
    let two = single();
    let mut files: Vec<(String, &[u8])> = entries_of(&one, "bundle/wrangler/");
    files.extend(entries_of(&two, "bundle/code-review/"));
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), *b)).collect();
    let archive = zip_of(&borrowed, &[]);
    server.route("/releases/skills.zip", Reply::Ok(archive.clone()));
    let before = roots(&tree);
    let listed = run(
        &tree,
        &[
            "--json",
            "install",
            &server.url("/releases/skills.zip"),
            "--list",
        ],
    )
    .json();
    let kinds: Vec<(&str, &str)> = listed["offered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["slug"].as_str().unwrap(), o["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(kinds, [("code-review", "archive"), ("wrangler", "archive")]);
    assert!(before == roots(&tree), "--list wrote something");
    let outcomes = install(&tree, &[&server.url("/releases/skills.zip")]);
    assert_eq!(outcomes.len(), 2);
    assert_eq!(installed(&tree, "wrangler"), one.files);
    assert_eq!(installed(&tree, "code-review"), two.files);
    let record = provenance(&tree, "wrangler");
    assert_eq!(record["kind"], "archive");
    assert_eq!(record["digest"], digest(&archive));
}

fn write_skill(dir: &Path, skill: &Skill) {
    for (path, bytes) in &skill.files {
        let file = dir.join(&skill.name).join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, bytes).unwrap();
    }
}

#[test]
fn a_local_folder_and_a_local_archive_install_without_network() {
    let tree = Tree::new();
    let source = tree.base.join("src");
    write_skill(&source, &multi());
    write_skill(&source, &single());
    let listed = run(&tree, &["--json", "install", "./src", "--list"]).json();
    assert_eq!(listed["offered"].as_array().unwrap().len(), 2, "{listed}");
    assert_eq!(listed["offered"][0]["kind"], "local");
    let outcomes = install(&tree, &["./src"]);
    assert_eq!(outcomes.len(), 2);
    assert_eq!(installed(&tree, "wrangler"), multi().files);
    let record = provenance(&tree, "wrangler");
    assert_eq!(record["kind"], "local");
    assert_eq!(record["source_url"], source.display().to_string());

    let zip_path = tree.base.join("one.zip");
    let one = Skill::new("zipped", "From a zip.", "Body.", &[("a/b.md", "b\n")]);
    let files = entries_of(&one, "");
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), *b)).collect();
    std::fs::write(&zip_path, zip_of(&borrowed, &[])).unwrap();
    install(&tree, &[zip_path.to_str().unwrap()]);
    assert_eq!(installed(&tree, "zipped"), one.files);
}

/// A link inside one skill refuses that skill, not its neighbours: `--skill` of another one
/// installs, the whole folder installs the others and names the refused one, and nothing of
/// the linked one (or what it points to) is written. Naming the linked one is an error.
#[cfg(unix)]
#[test]
fn a_link_inside_one_skill_refuses_only_that_skill() {
    let tree = Tree::new();
    let secret_path = tree.base.join("id_rsa");
    std::fs::write(&secret_path, b"SECRET-2b7c-do-not-copy").unwrap();
    let source = tree.base.join("src");
    write_skill(&source, &multi());
    write_skill(&source, &single());
    std::os::unix::fs::symlink(&secret_path, source.join("wrangler/references/key.md")).unwrap();

    for args in [
        vec!["./src", "--skill", "wrangler"],
        vec!["./src", "--skill", "wrangler", "--skill", "code-review"],
    ] {
        let stderr = refused(&tree, &args, &[]);
        assert!(
            stderr.contains("link") && stderr.contains("wrangler"),
            "{args:?}: {stderr}"
        );
    }
    let outcomes = install(&tree, &["./src", "--skill", "code-review"]);
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert_eq!(installed(&tree, "code-review"), single().files);
    assert!(!tree.home.join(".agents/skills/wrangler").exists());

    let whole = run(&tree, &["install", "./src"]);
    assert_eq!(whole.code, Some(0), "{whole:?}");
    let warning = whole
        .stderr
        .lines()
        .find(|line| line.contains("not installed"))
        .unwrap_or_else(|| panic!("no warning: {whole:?}"));
    assert!(
        warning.starts_with("warning: 'wrangler': ")
            && warning.contains("'wrangler/references/key.md' is a symbolic link"),
        "{warning}"
    );
    assert!(!tree.home.join(".agents/skills/wrangler").exists());
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_secret_in_a_local_folder_is_refused_and_never_copied() {
    let tree = Tree::new();
    let secret = b"SECRET-7f3e9a-do-not-copy".to_vec();
    let secret_path = tree.base.join("id_rsa");
    std::fs::write(&secret_path, &secret).unwrap();
    let source = tree.base.join("src");
    write_skill(&source, &multi());
    std::os::unix::fs::symlink(&secret_path, source.join("wrangler/references/key.md")).unwrap();
    let stderr = refused(&tree, &["./src"], &[]);
    assert!(stderr.contains("link"), "{stderr}");
    let stderr = refused(&tree, &["./src", "--list"], &[]);
    assert!(stderr.contains("link"), "{stderr}");
    for root in [&tree.home, &tree.workspace] {
        for (path, bytes) in files_of(root) {
            assert!(
                !bytes
                    .windows(secret.len())
                    .any(|window| window == secret.as_slice()),
                "the secret was copied into {path}"
            );
        }
    }
}
