//! The ClawHub and skillhub registries against loopback fixture servers shaped like the real
//! ones (openclaw/clawhub `docs/http-api.md` and `convex/downloads.ts`; iflytek/skillhub
//! `docs/06-api-design.md` and its controllers), with real zips built here: listing with
//! cursor pages and numbered pages, search, installs of a multi-file skill with every file
//! present, and each refusal leaving the skill roots as they were.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use skills_tests::http::{Reply, Server};
use skills_types::files::PROVENANCE_FILE;
use skills_types::install::{Hooks, RegistryKind};
use skills_types::registry::{InstallRequest, Query};
use skills_types::{Error, SkillsConfig};

use crate::registry;

const SKILL_MD: &str = "---\nname: pdf-tools\ndescription: Fill and merge PDF forms.\n---\n# PDF tools\n\nRun `scripts/fill.sh`; see `reference/forms.md`.\n";

/// The files of the multi-file skill every fixture serves.
fn files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("SKILL.md", SKILL_MD.as_bytes().to_vec()),
        ("scripts/fill.sh", b"#!/bin/sh\necho filling\n".to_vec()),
        ("reference/forms.md", b"# Forms\n\nEvery field.\n".to_vec()),
    ]
}

/// A zip of `entries`, deflated, as ClawHub's `buildDeterministicZip` and skillhub's
/// `ZipOutputStream` write them.
fn zip_of(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// The skill's zip as ClawHub serves it: its files and `_meta.json`.
fn clawhub_zip() -> Vec<u8> {
    let mut entries = files();
    entries.push((
        "_meta.json",
        serde_json::to_vec_pretty(&json!({
            "ownerId": "users_1", "slug": "pdf-tools", "version": "1.2.3", "publishedAt": 0
        }))
        .unwrap(),
    ));
    zip_of(&entries)
}

fn zip_reply(bytes: Vec<u8>) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![
            ("Content-Type".to_owned(), "application/zip".to_owned()),
            (
                "Content-Disposition".to_owned(),
                "attachment; filename=\"pdf-tools-1.2.3.zip\"".to_owned(),
            ),
        ],
        body: bytes,
    }
}

fn json_reply(value: &Value) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
        body: value.to_string().into_bytes(),
    }
}

fn text_reply(status: u16, text: &str) -> Reply {
    Reply::Full {
        status,
        headers: vec![(
            "Content-Type".to_owned(),
            "text/plain; charset=utf-8".to_owned(),
        )],
        body: text.as_bytes().to_vec(),
    }
}

struct Fixture {
    server: Server,
    home: tempfile::TempDir,
    _workspace: tempfile::TempDir,
    config: SkillsConfig,
}

impl Fixture {
    fn new(kind: RegistryKind) -> Self {
        let server = Server::start().unwrap();
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let mut config = SkillsConfig::new(workspace.path(), home.path());
        config.cache = false;
        config.network.allow_loopback_http = true;
        config.registry.kind = kind;
        config.registry.catalog_url = Some(server.url("/"));
        Self {
            server,
            home,
            _workspace: workspace,
            config,
        }
    }

    /// Where a registry install lands by default.
    fn root(&self) -> std::path::PathBuf {
        self.home.path().join(".agents/skills")
    }

    /// Every file under the home folder, with its bytes.
    fn tree(&self) -> BTreeMap<String, Vec<u8>> {
        let mut tree = BTreeMap::new();
        walk(self.home.path(), self.home.path(), &mut tree);
        tree
    }

    fn hits(&self, path: &str) -> usize {
        self.server
            .targets()
            .iter()
            .filter(|target| target.split('?').next() == Some(path))
            .count()
    }
}

fn walk(base: &Path, dir: &Path, tree: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let relative = path.strip_prefix(base).unwrap().display().to_string();
        if path.is_dir() {
            tree.insert(format!("{relative}/"), Vec::new());
            walk(base, &path, tree);
        } else {
            tree.insert(relative, std::fs::read(&path).unwrap());
        }
    }
}

fn assert_installed(root: &Path, slug: &str) {
    for (name, bytes) in files() {
        assert_eq!(
            std::fs::read(root.join(slug).join(name)).unwrap(),
            bytes,
            "{name}"
        );
    }
    assert!(!root.join(slug).join("_meta.json").exists());
}

// ---------------------------------------------------------------------------------------------
// ClawHub.

fn clawhub_item(slug: &str, version: &str) -> Value {
    json!({
        "slug": slug,
        "displayName": slug.to_uppercase(),
        "summary": format!("The {slug} skill."),
        "tags": {"latest": version},
        "stats": {"downloads": 3, "stars": 1},
        "createdAt": 1_730_000_000_000u64,
        "updatedAt": 1_730_000_000_000u64,
        "latestVersion": {"version": version, "createdAt": 0, "changelog": "…"},
        "metadata": {"os": ["linux"], "systems": ["x86_64-linux"]}
    })
}

fn clawhub_detail(moderation: &Value) -> Value {
    json!({
        "skill": {
            "slug": "pdf-tools",
            "displayName": "PDF tools",
            "summary": "Fill and merge PDF forms.",
            "icon": null,
            "description": null,
            "topics": [],
            "tags": {"latest": "1.2.3", "beta": "1.3.0-beta.1"},
            "stats": {},
            "createdAt": 0,
            "updatedAt": 0
        },
        "latestVersion": {"version": "1.2.3", "createdAt": 0, "changelog": "…", "license": "MIT"},
        "metadata": null,
        "owner": {"handle": "steipete", "userId": "users_1", "displayName": "Peter", "image": null},
        "moderation": moderation
    })
}

fn clawhub(fixture: &Fixture, moderation: &Value, download: Reply) {
    let server = &fixture.server;
    server.route(
        "/.well-known/clawhub.json",
        json_reply(&json!({
            "apiBase": server.url(""),
            "authBase": server.url(""),
            "minCliVersion": "0.0.5"
        })),
    );
    server.route(
        "/api/v1/skills",
        Reply::Sequence(vec![
            json_reply(&json!({
                "items": [clawhub_item("gifgrep", "1.0.0"), clawhub_item("pdf-tools", "1.2.3")],
                "nextCursor": "page-2"
            })),
            json_reply(&json!({
                "items": [clawhub_item("agent-notes", "0.3.0")],
                "nextCursor": null
            })),
        ]),
    );
    server.route(
        "/api/v1/search",
        json_reply(&json!({"results": [
            {"score": 0.91, "slug": "pdf-tools", "displayName": "PDF tools",
             "summary": "Fill and merge PDF forms.", "version": "1.2.3", "updatedAt": 1_730_000_000_000u64},
            {"score": 0.2, "slug": "gifgrep", "displayName": "GifGrep",
             "summary": "…", "version": "1.0.0", "updatedAt": 1_730_000_000_000u64}
        ]})),
    );
    server.route(
        "/api/v1/skills/pdf-tools",
        json_reply(&clawhub_detail(moderation)),
    );
    server.route("/api/v1/download", download);
}

#[tokio::test]
async fn clawhub_browse_follows_the_cursor_to_the_end() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(&fixture, &Value::Null, zip_reply(clawhub_zip()));
    let listing = registry::browse(&fixture.config, &Hooks::default(), None)
        .await
        .unwrap();
    let names: Vec<&str> = listing
        .entries
        .iter()
        .map(|entry| entry.name.as_str())
        .collect();
    assert_eq!(names, ["agent-notes", "gifgrep", "pdf-tools"]);
    let pdf = &listing.entries[2];
    assert_eq!(pdf.version, "1.2.3");
    assert_eq!(pdf.description, "The pdf-tools skill.");
    assert_eq!(pdf.platforms, ["linux"]);
    assert_eq!(listing.catalog.total, 3);
    let pages: Vec<String> = fixture
        .server
        .targets()
        .into_iter()
        .filter(|target| target.starts_with("/api/v1/skills?"))
        .collect();
    assert_eq!(pages.len(), 2, "{pages:?}");
    assert!(!pages[0].contains("cursor="), "{pages:?}");
    assert!(pages[1].contains("cursor=page-2"), "{pages:?}");
    assert!(pages[0].contains("limit=200"), "{pages:?}");
}

#[tokio::test]
async fn clawhub_browse_skips_bad_items_and_stops_on_a_repeated_cursor() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(&fixture, &Value::Null, zip_reply(clawhub_zip()));
    // Every page names the same next cursor: a loop the client must break.
    fixture.server.route(
        "/api/v1/skills",
        json_reply(&json!({
            "items": [clawhub_item("pdf-tools", "1.2.3"), {"slug": 42}, clawhub_item("Bad Slug", "1")],
            "nextCursor": "again"
        })),
    );
    let listing = registry::browse(&fixture.config, &Hooks::default(), None)
        .await
        .unwrap();
    let names: Vec<&str> = listing
        .entries
        .iter()
        .map(|entry| entry.name.as_str())
        .collect();
    assert_eq!(names, ["pdf-tools"]);
    assert_eq!(
        listing.catalog.skipped.len(),
        4,
        "{:?}",
        listing.catalog.skipped
    );
    assert!(
        listing
            .catalog
            .warnings
            .iter()
            .any(|warning| warning.contains("repeated")),
        "{:?}",
        listing.catalog.warnings
    );
    assert_eq!(fixture.hits("/api/v1/skills"), 2);
}

#[tokio::test]
async fn clawhub_search_asks_the_server_and_keeps_its_order() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(&fixture, &Value::Null, zip_reply(clawhub_zip()));
    let listing = registry::search(&fixture.config, &Hooks::default(), &Query::new("pdf forms"))
        .await
        .unwrap();
    let names: Vec<&str> = listing
        .entries
        .iter()
        .map(|entry| entry.name.as_str())
        .collect();
    assert_eq!(names, ["pdf-tools", "gifgrep"]);
    assert_eq!(listing.entries[0].version, "1.2.3");
    let search = fixture
        .server
        .targets()
        .into_iter()
        .find(|target| target.starts_with("/api/v1/search?"))
        .unwrap();
    assert!(search.contains("q=pdf+forms"), "{search}");
}

#[tokio::test]
async fn clawhub_installs_every_file_of_the_zip() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(&fixture, &Value::Null, zip_reply(clawhub_zip()));
    let outcome = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools"),
    )
    .await
    .unwrap();
    assert_eq!(outcome.slug, "pdf-tools");
    assert_installed(&fixture.root(), "pdf-tools");
    let record: Value =
        serde_json::from_slice(&std::fs::read(outcome.path.join(PROVENANCE_FILE)).unwrap())
            .unwrap();
    assert_eq!(record["kind"], "clawhub");
    assert_eq!(record["registry"]["coordinates"], "pdf-tools");
    assert_eq!(record["registry"]["version"], "1.2.3");
    assert_eq!(record["registry"]["id"], "steipete/pdf-tools");
    let download = fixture
        .server
        .targets()
        .into_iter()
        .find(|target| target.starts_with("/api/v1/download?"))
        .unwrap();
    assert_eq!(download, "/api/v1/download?slug=pdf-tools");
}

#[tokio::test]
async fn clawhub_pins_ask_for_that_version() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(&fixture, &Value::Null, zip_reply(clawhub_zip()));
    registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools@1.2.3"),
    )
    .await
    .unwrap();
    registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools@beta"),
    )
    .await
    .unwrap();
    registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools@latest"),
    )
    .await
    .unwrap();
    let downloads: Vec<String> = fixture
        .server
        .targets()
        .into_iter()
        .filter(|target| target.starts_with("/api/v1/download"))
        .collect();
    assert_eq!(
        downloads,
        [
            "/api/v1/download?slug=pdf-tools&version=1.2.3",
            "/api/v1/download?slug=pdf-tools&tag=beta",
            "/api/v1/download?slug=pdf-tools",
        ]
    );
}

fn flagged(suspicious: bool, malware: bool) -> Value {
    json!({
        "isSuspicious": suspicious,
        "isMalwareBlocked": malware,
        "verdict": if malware { "malicious" } else if suspicious { "suspicious" } else { "clean" },
        "reasonCodes": ["suspicious.dynamic_code_execution"],
        "summary": "Detected: suspicious.dynamic_code_execution",
        "engineVersion": "v2.0.0",
        "updatedAt": 0
    })
}

#[tokio::test]
async fn clawhub_never_installs_a_malware_blocked_skill_even_with_force() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(&fixture, &flagged(false, true), zip_reply(clawhub_zip()));
    let before = fixture.tree();
    for force in [false, true] {
        let mut request = InstallRequest::new("pdf-tools");
        request.force = force;
        let error = registry::install(&fixture.config, &Hooks::default(), &request)
            .await
            .unwrap_err();
        assert!(matches!(error, Error::InvalidInput(_)), "{error}");
        assert!(error.to_string().contains("malware"), "{error}");
        assert!(error.to_string().contains("never installed"), "{error}");
    }
    assert_eq!(
        fixture.hits("/api/v1/download"),
        0,
        "nothing was downloaded"
    );
    assert_eq!(fixture.tree(), before);
}

#[tokio::test]
async fn clawhub_installs_a_suspicious_skill_only_with_force_and_says_why() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(&fixture, &flagged(true, false), zip_reply(clawhub_zip()));
    let before = fixture.tree();
    let error = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools"),
    )
    .await
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("suspicious.dynamic_code_execution"),
        "{error}"
    );
    assert!(error.to_string().contains("--force"), "{error}");
    assert_eq!(fixture.hits("/api/v1/download"), 0);
    assert_eq!(fixture.tree(), before);

    let mut request = InstallRequest::new("pdf-tools");
    request.force = true;
    let outcome = registry::install(&fixture.config, &Hooks::default(), &request)
        .await
        .unwrap();
    assert_installed(&fixture.root(), "pdf-tools");
    assert!(
        outcome
            .warnings
            .iter()
            .any(|warning| warning.contains("suspicious.dynamic_code_execution")),
        "{:?}",
        outcome.warnings
    );
}

#[tokio::test]
async fn clawhub_waits_out_a_429_as_retry_after_says() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(
        &fixture,
        &Value::Null,
        Reply::Sequence(vec![
            Reply::Full {
                status: 429,
                headers: vec![
                    (
                        "Content-Type".to_owned(),
                        "text/plain; charset=utf-8".to_owned(),
                    ),
                    ("Retry-After".to_owned(), "1".to_owned()),
                    ("RateLimit-Reset".to_owned(), "1".to_owned()),
                ],
                body: b"Rate limit exceeded".to_vec(),
            },
            zip_reply(clawhub_zip()),
        ]),
    );
    registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools"),
    )
    .await
    .unwrap();
    assert_eq!(fixture.hits("/api/v1/download"), 2);
    assert_installed(&fixture.root(), "pdf-tools");
}

#[tokio::test]
async fn clawhub_a_retry_after_past_the_deadline_fails_at_once_and_says_so() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(
        &fixture,
        &Value::Null,
        Reply::Full {
            status: 429,
            headers: vec![("Retry-After".to_owned(), "3600".to_owned())],
            body: b"Rate limit exceeded".to_vec(),
        },
    );
    let before = fixture.tree();
    let mut request = InstallRequest::new("pdf-tools");
    request.timeout_secs = Some(5);
    let error = registry::install(&fixture.config, &Hooks::default(), &request)
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("Retry-After"), "{message}");
    assert!(message.contains("3600"), "{message}");
    assert_eq!(fixture.hits("/api/v1/download"), 1, "no second attempt");
    assert_eq!(fixture.tree(), before);
}

#[tokio::test]
async fn clawhub_errors_are_plain_text_and_a_missing_skill_is_not_found() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(
        &fixture,
        &Value::Null,
        text_reply(410, "Version not available"),
    );
    fixture
        .server
        .route("/api/v1/skills/nothing", text_reply(404, "Skill not found"));
    let error = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("nothing"),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, Error::SkillNotFound { .. }), "{error}");
    let error = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools@1.0.0"),
    )
    .await
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("HTTP 410: Version not available"),
        "{error}"
    );
}

#[tokio::test]
async fn clawhub_hostile_zips_are_refused_and_nothing_is_written() {
    let bomb = {
        let zeros = vec![0u8; 16 * 1024 * 1024];
        let mut entries = files();
        entries.push(("zeros.bin", zeros));
        zip_of(&entries)
    };
    let traversal = {
        let mut entries = files();
        entries.push(("../escaped.md", b"outside".to_vec()));
        zip_of(&entries)
    };
    let symlink = {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        writer.start_file("SKILL.md", options).unwrap();
        writer.write_all(SKILL_MD.as_bytes()).unwrap();
        writer
            .add_symlink("secret", "/etc/passwd", options)
            .unwrap();
        writer.finish().unwrap().into_inner()
    };
    let whole = clawhub_zip();
    let truncated = whole[..whole.len() / 2].to_vec();
    for (what, bytes) in [
        ("a zip bomb", bomb),
        ("a traversal entry", traversal),
        ("a symlink entry", symlink),
        ("a truncated zip", truncated),
        ("not a zip", b"<html>oops</html>".to_vec()),
    ] {
        let fixture = Fixture::new(RegistryKind::Clawhub);
        clawhub(&fixture, &Value::Null, zip_reply(bytes));
        let before = fixture.tree();
        let error = registry::install(
            &fixture.config,
            &Hooks::default(),
            &InstallRequest::new("pdf-tools"),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(error, Error::InvalidPackage { .. }),
            "{what}: {error}"
        );
        assert_eq!(fixture.tree(), before, "{what}");
        assert!(!fixture.home.path().join("escaped.md").exists());
        assert!(!fixture.root().join("escaped.md").exists());
    }
}

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// A repository tarball as GitHub serves it: everything under `owner-repo-<sha>/`.
fn tarball(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    for (name, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(
                &mut header,
                format!("acme-skills-0123456/{name}"),
                bytes.as_slice(),
            )
            .unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

fn handoff(path: &str) -> Reply {
    json_reply(&json!({
        "sourceRef": "public-github",
        "repo": "acme/skills",
        "commit": COMMIT,
        "path": path,
        "contentHash": "ab".repeat(32),
        "archiveUrl": format!("https://api.github.com/repos/acme/skills/zipball/{COMMIT}")
    }))
}

#[tokio::test]
async fn clawhub_github_handoffs_install_through_the_github_source() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    let github = Server::start().unwrap();
    let mut config = fixture.config.clone();
    config.github.url = Some(github.url(""));
    config.registry.token = Some(TOKEN.to_owned());
    clawhub(&fixture, &Value::Null, handoff("skills/pdf-tools"));
    let mut entries: Vec<(String, Vec<u8>)> = files()
        .into_iter()
        .map(|(name, bytes)| (format!("skills/pdf-tools/{name}"), bytes))
        .collect();
    entries.push((
        "skills/other/SKILL.md".to_owned(),
        b"---\nname: other\ndescription: x\n---\n".to_vec(),
    ));
    entries.push(("README.md".to_owned(), b"# skills\n".to_vec()));
    github.route(
        &format!("/api/v3/repos/acme/skills/tarball/{COMMIT}"),
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".to_owned(), "application/x-gzip".to_owned())],
            body: tarball(&entries),
        },
    );
    let outcome = registry::install(
        &config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools"),
    )
    .await
    .unwrap();
    assert_installed(&fixture.root(), "pdf-tools");
    assert!(!fixture.root().join("other").exists());
    let record: Value =
        serde_json::from_slice(&std::fs::read(outcome.path.join(PROVENANCE_FILE)).unwrap())
            .unwrap();
    assert_eq!(record["kind"], "clawhub");
    assert_eq!(record["registry"]["coordinates"], "pdf-tools");
    // GitHub is another origin: the registry's token never went there.
    let hits = github.hits();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].header("authorization"), None);
}

#[tokio::test]
async fn clawhub_handoffs_that_leave_their_repository_are_refused() {
    for path in ["../../etc", "skills/../../x", "skills\\..\\x"] {
        let fixture = Fixture::new(RegistryKind::Clawhub);
        let github = Server::start().unwrap();
        let mut config = fixture.config.clone();
        config.github.url = Some(github.url(""));
        clawhub(&fixture, &Value::Null, handoff(path));
        let before = fixture.tree();
        let error = registry::install(
            &config,
            &Hooks::default(),
            &InstallRequest::new("pdf-tools"),
        )
        .await
        .unwrap_err();
        assert!(error.to_string().contains("hand-off"), "{path}: {error}");
        assert_eq!(fixture.tree(), before);
        assert!(github.hits().is_empty(), "{path}");
    }
}

#[tokio::test]
async fn clawhub_show_gives_the_owner_license_page_and_moderation() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(&fixture, &flagged(true, false), zip_reply(clawhub_zip()));
    let details = registry::show(&fixture.config, &Hooks::default(), "pdf-tools")
        .await
        .unwrap();
    assert_eq!(details.entry.name, "pdf-tools");
    assert_eq!(details.entry.version, "1.2.3");
    assert_eq!(details.entry.author, "steipete");
    assert_eq!(details.entry.license, "MIT");
    assert_eq!(
        details.entry.docs_path.as_deref(),
        Some(fixture.server.url("/steipete/pdf-tools").as_str())
    );
    assert_eq!(details.notes.len(), 1, "{:?}", details.notes);
    assert!(details.notes[0].contains("suspicious.dynamic_code_execution"));
    assert_eq!(fixture.hits("/api/v1/download"), 0);
    let error = registry::show(&fixture.config, &Hooks::default(), "nothing")
        .await
        .unwrap_err();
    assert!(matches!(error, Error::SkillNotFound { .. }), "{error}");
}

#[tokio::test]
async fn skillhub_show_reads_the_detail_envelope() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    skillhub(&fixture, &skillhub_fingerprint(), zip_of(&files()));
    let mut detail = summary("team", "pdf-tools", "1.2.0");
    detail["ownerId"] = json!("u-1");
    detail["ownerDisplayName"] = json!("Team Lead");
    detail["hidden"] = json!(false);
    detail["labels"] = json!([]);
    fixture.server.route(
        "/api/v1/skills/team/pdf-tools",
        json_reply(&envelope(&detail)),
    );
    let details = registry::show(&fixture.config, &Hooks::default(), "@team/pdf-tools")
        .await
        .unwrap();
    assert_eq!(details.entry.name, "@team/pdf-tools");
    assert_eq!(details.entry.version, "1.2.0");
    assert_eq!(details.entry.author, "Team Lead");
    assert_eq!(details.entry.source, "team");
}

#[tokio::test]
async fn clawhub_has_no_categories_or_namespaces() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    clawhub(&fixture, &Value::Null, zip_reply(clawhub_zip()));
    assert!(
        registry::categories(&fixture.config, &Hooks::default())
            .await
            .is_err()
    );
    let error = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("@acme/pdf-tools"),
    )
    .await
    .unwrap_err();
    assert!(error.to_string().contains("no namespaces"), "{error}");
}

// ---------------------------------------------------------------------------------------------
// skillhub.

fn envelope(data: &Value) -> Value {
    json!({
        "code": 0,
        "msg": "Success",
        "data": data,
        "timestamp": "2026-03-15T06:00:00Z",
        "requestId": "req-123"
    })
}

fn summary(namespace: &str, slug: &str, version: &str) -> Value {
    json!({
        "id": 1,
        "slug": slug,
        "displayName": slug,
        "summary": format!("The {slug} skill."),
        "visibility": "PUBLIC",
        "status": "ACTIVE",
        "downloadCount": 12,
        "starCount": 3,
        "ratingAvg": 4.5,
        "ratingCount": 2,
        "namespace": namespace,
        "updatedAt": "2026-03-15T06:00:00Z",
        "canSubmitPromotion": false,
        "headlineVersion": {"id": 7, "version": version, "status": "PUBLISHED"},
        "publishedVersion": {"id": 7, "version": version, "status": "PUBLISHED"},
        "ownerPreviewVersion": null,
        "resolutionMode": "PUBLISHED"
    })
}

/// skillhub's fingerprint, computed here independently of the code under test.
fn skillhub_fingerprint() -> String {
    let mut lines: Vec<String> = files()
        .iter()
        .map(|(path, bytes)| format!("{path}:{:x}\n", Sha256::digest(bytes)))
        .collect();
    lines.sort();
    format!("sha256:{:x}", Sha256::digest(lines.concat().as_bytes()))
}

fn resolved(namespace: &str, fingerprint: &str, download_url: &str) -> Value {
    envelope(&json!({
        "skillId": 456,
        "namespace": namespace,
        "slug": "pdf-tools",
        "version": "1.2.0",
        "versionId": 123,
        "fingerprint": fingerprint,
        "matched": null,
        "downloadUrl": download_url
    }))
}

const SKILLHUB_DOWNLOAD: &str = "/api/v1/skills/team/pdf-tools/versions/1.2.0/download";

fn skillhub(fixture: &Fixture, fingerprint: &str, zip: Vec<u8>) {
    let server = &fixture.server;
    server.route(
        "/api/web/skills",
        Reply::Sequence(vec![
            json_reply(&envelope(&json!({
                "items": [summary("team", "pdf-tools", "1.2.0"), summary("global", "notes", "0.1.0")],
                "total": 3, "page": 0, "size": 2
            }))),
            json_reply(&envelope(&json!({
                "items": [summary("team", "csv", "2.0.0")],
                "total": 3, "page": 1, "size": 2
            }))),
        ]),
    );
    server.route(
        "/api/v1/skills/team/pdf-tools/resolve",
        json_reply(&resolved("team", fingerprint, SKILLHUB_DOWNLOAD)),
    );
    server.route(
        "/api/v1/skills/global/pdf-tools/resolve",
        json_reply(&resolved(
            "global",
            fingerprint,
            "/api/v1/skills/global/pdf-tools/versions/1.2.0/download",
        )),
    );
    server.route(SKILLHUB_DOWNLOAD, zip_reply(zip.clone()));
    server.route(
        "/api/v1/skills/global/pdf-tools/versions/1.2.0/download",
        zip_reply(zip),
    );
    server.route(
        "/api/v1/skills/team/nothing/resolve",
        Reply::Full {
            status: 404,
            headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
            body: json!({"code": 404, "msg": "Skill not found: nothing", "data": null,
                         "timestamp": "2026-03-15T06:00:00Z", "requestId": "req-9"})
            .to_string()
            .into_bytes(),
        },
    );
}

#[tokio::test]
async fn skillhub_browse_reads_every_page_of_the_envelope() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    skillhub(&fixture, &skillhub_fingerprint(), zip_of(&files()));
    let listing = registry::browse(&fixture.config, &Hooks::default(), None)
        .await
        .unwrap();
    let names: Vec<&str> = listing
        .entries
        .iter()
        .map(|entry| entry.name.as_str())
        .collect();
    assert_eq!(names, ["@team/csv", "@team/pdf-tools", "notes"]);
    assert_eq!(listing.entries[1].version, "1.2.0");
    assert_eq!(listing.entries[2].source, "global");
    let pages: Vec<String> = fixture
        .server
        .targets()
        .into_iter()
        .filter(|target| target.starts_with("/api/web/skills?"))
        .collect();
    assert_eq!(pages.len(), 2, "{pages:?}");
    assert!(pages[0].contains("page=0"), "{pages:?}");
    assert!(pages[1].contains("page=1"), "{pages:?}");

    // A fresh server: the pages above were answered in turn.
    let fixture = Fixture::new(RegistryKind::Skillhub);
    skillhub(&fixture, &skillhub_fingerprint(), zip_of(&files()));
    let counts = registry::sources(&fixture.config, &Hooks::default())
        .await
        .unwrap();
    let counts: Vec<(&str, usize)> = counts
        .counts
        .iter()
        .map(|count| (count.name.as_str(), count.count))
        .collect();
    assert_eq!(counts, [("global", 1), ("team", 2)]);
}

#[tokio::test]
async fn skillhub_search_passes_words_and_namespace() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    skillhub(&fixture, &skillhub_fingerprint(), zip_of(&files()));
    let mut query = Query::new("pdf");
    query.source = Some("team".to_owned());
    registry::search(&fixture.config, &Hooks::default(), &query)
        .await
        .unwrap();
    let first = fixture
        .server
        .targets()
        .into_iter()
        .find(|target| target.starts_with("/api/web/skills?"))
        .unwrap();
    assert!(first.contains("q=pdf"), "{first}");
    assert!(first.contains("namespace=team"), "{first}");
}

#[tokio::test]
async fn skillhub_installs_every_file_after_checking_the_fingerprint() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    skillhub(&fixture, &skillhub_fingerprint(), zip_of(&files()));
    let outcome = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("@team/pdf-tools"),
    )
    .await
    .unwrap();
    assert_eq!(outcome.slug, "pdf-tools");
    assert_installed(&fixture.root(), "pdf-tools");
    let record: Value =
        serde_json::from_slice(&std::fs::read(outcome.path.join(PROVENANCE_FILE)).unwrap())
            .unwrap();
    assert_eq!(record["kind"], "skillhub");
    assert_eq!(record["registry"]["coordinates"], "@team/pdf-tools");
    assert_eq!(record["registry"]["version"], "1.2.0");
    assert_eq!(fixture.hits(SKILLHUB_DOWNLOAD), 1);
}

#[tokio::test]
async fn skillhub_accepts_a_fingerprint_of_the_zip_itself() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    let zip = zip_of(&files());
    let digest = format!("sha256:{:x}", Sha256::digest(&zip));
    skillhub(&fixture, &digest, zip);
    registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("@team/pdf-tools"),
    )
    .await
    .unwrap();
    assert_installed(&fixture.root(), "pdf-tools");
}

#[tokio::test]
async fn skillhub_refuses_a_wrong_or_missing_fingerprint_and_writes_nothing() {
    for fingerprint in [format!("sha256:{}", "0".repeat(64)), String::new()] {
        let fixture = Fixture::new(RegistryKind::Skillhub);
        skillhub(&fixture, &fingerprint, zip_of(&files()));
        let before = fixture.tree();
        let error = registry::install(
            &fixture.config,
            &Hooks::default(),
            &InstallRequest::new("@team/pdf-tools"),
        )
        .await
        .unwrap_err();
        assert!(matches!(error, Error::InvalidPackage { .. }), "{error}");
        assert!(error.to_string().contains("fingerprint"), "{error}");
        assert_eq!(fixture.tree(), before, "{fingerprint:?}");
    }
}

#[tokio::test]
async fn skillhub_a_traversal_entry_is_refused_even_when_the_fingerprint_matches() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    let mut entries = files();
    entries.push(("../../escaped.md", b"outside".to_vec()));
    let zip = zip_of(&entries);
    let digest = format!("sha256:{:x}", Sha256::digest(&zip));
    skillhub(&fixture, &digest, zip);
    let before = fixture.tree();
    let error = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("@team/pdf-tools"),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, Error::InvalidPackage { .. }), "{error}");
    assert_eq!(fixture.tree(), before);
}

#[tokio::test]
async fn skillhub_global_and_bare_are_one_skill_without_a_conflict() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    skillhub(&fixture, &skillhub_fingerprint(), zip_of(&files()));
    registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools"),
    )
    .await
    .unwrap();
    let again = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("@global/pdf-tools"),
    )
    .await
    .unwrap();
    assert!(again.already_installed);
    assert_eq!(fixture.hits("/api/v1/skills/global/pdf-tools/resolve"), 2);
    // A real other namespace under the same slug still is a conflict, found before download.
    let error = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("@team/pdf-tools"),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, Error::NamespaceConflict { .. }), "{error}");
    assert_eq!(fixture.hits(SKILLHUB_DOWNLOAD), 0);
}

#[tokio::test]
async fn skillhub_errors_come_from_the_envelope() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    skillhub(&fixture, &skillhub_fingerprint(), zip_of(&files()));
    let error = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("@team/nothing"),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, Error::SkillNotFound { .. }), "{error}");
    fixture.server.route(
        "/api/v1/skills/team/pdf-tools/resolve",
        Reply::Full {
            status: 403,
            headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
            body: json!({"code": 403, "msg": "Namespace members only", "data": null,
                         "timestamp": "2026-03-15T06:00:00Z", "requestId": "req-10"})
            .to_string()
            .into_bytes(),
        },
    );
    let error = registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("@team/pdf-tools"),
    )
    .await
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("code 403: Namespace members only"),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------------------
// The token.

const TOKEN: &str = "clh_secret-token-4242";

#[tokio::test]
async fn the_token_goes_to_the_registry_origin_and_never_to_another() {
    // The download is on another origin (object storage), named by an absolute downloadUrl.
    let fixture = Fixture::new(RegistryKind::Skillhub);
    let storage = Server::start().unwrap();
    let mut config = fixture.config.clone();
    config.registry.token = Some(TOKEN.to_owned());
    skillhub(&fixture, &skillhub_fingerprint(), Vec::new());
    fixture.server.route(
        "/api/v1/skills/team/pdf-tools/resolve",
        json_reply(&resolved(
            "team",
            &skillhub_fingerprint(),
            &storage.url("/bucket/pdf-tools.zip"),
        )),
    );
    storage.route("/bucket/pdf-tools.zip", zip_reply(zip_of(&files())));
    registry::install(
        &config,
        &Hooks::default(),
        &InstallRequest::new("@team/pdf-tools"),
    )
    .await
    .unwrap();
    let own = fixture.server.hits();
    assert!(!own.is_empty());
    for hit in &own {
        assert_eq!(
            hit.header("authorization"),
            Some(format!("Bearer {TOKEN}").as_str()),
            "{}",
            hit.target
        );
    }
    let other = storage.hits();
    assert_eq!(other.len(), 1);
    assert_eq!(other[0].header("authorization"), None);
}

#[tokio::test]
async fn the_token_is_dropped_on_a_redirect_to_another_origin() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    let storage = Server::start().unwrap();
    let mut config = fixture.config.clone();
    config.registry.token = Some(TOKEN.to_owned());
    skillhub(&fixture, &skillhub_fingerprint(), Vec::new());
    // skillhub answers a download with a 302 to a presigned object-storage URL.
    fixture.server.route(
        SKILLHUB_DOWNLOAD,
        Reply::Redirect(storage.url("/bucket/pdf-tools.zip?X-Amz-Signature=abc")),
    );
    storage.route("/bucket/pdf-tools.zip", zip_reply(zip_of(&files())));
    registry::install(
        &config,
        &Hooks::default(),
        &InstallRequest::new("@team/pdf-tools"),
    )
    .await
    .unwrap();
    assert_installed(&fixture.root(), "pdf-tools");
    let redirected = fixture
        .server
        .hits()
        .into_iter()
        .find(|hit| hit.target == SKILLHUB_DOWNLOAD)
        .unwrap();
    assert!(redirected.header("authorization").is_some());
    let other = storage.hits();
    assert_eq!(other.len(), 1);
    assert_eq!(other[0].header("authorization"), None);
}

#[tokio::test]
async fn clawhub_an_api_base_on_another_origin_never_gets_the_token() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    let api = Server::start().unwrap();
    let mut config = fixture.config.clone();
    config.registry.token = Some(TOKEN.to_owned());
    fixture.server.route(
        "/.well-known/clawhub.json",
        json_reply(&json!({"apiBase": api.url(""), "minCliVersion": "0.0.5"})),
    );
    let elsewhere = Fixture {
        server: api,
        home: tempfile::tempdir().unwrap(),
        _workspace: tempfile::tempdir().unwrap(),
        config: config.clone(),
    };
    clawhub(&elsewhere, &Value::Null, zip_reply(clawhub_zip()));
    registry::install(
        &config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools"),
    )
    .await
    .unwrap();
    assert_installed(&fixture.root(), "pdf-tools");
    let discovery = fixture.server.hits();
    assert_eq!(discovery.len(), 1);
    assert!(discovery[0].header("authorization").is_some());
    let api_hits = elsewhere.server.hits();
    assert!(api_hits.len() >= 2, "{api_hits:?}");
    assert!(
        api_hits
            .iter()
            .all(|hit| hit.header("authorization").is_none()),
        "{api_hits:?}"
    );
}

#[tokio::test]
async fn the_token_never_appears_in_an_error() {
    let fixture = Fixture::new(RegistryKind::Clawhub);
    let mut config = fixture.config.clone();
    config.registry.token = Some(TOKEN.to_owned());
    clawhub(&fixture, &Value::Null, zip_reply(clawhub_zip()));
    // A server echoing the token back in its error body.
    fixture.server.route(
        "/api/v1/skills/pdf-tools",
        text_reply(401, &format!("Invalid token Bearer {TOKEN}")),
    );
    let error = registry::install(
        &config,
        &Hooks::default(),
        &InstallRequest::new("pdf-tools"),
    )
    .await
    .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("HTTP 401"), "{message}");
    assert!(!message.contains(TOKEN), "{message}");
    assert!(!format!("{error:?}").contains(TOKEN));
    assert!(!format!("{config:?}").contains(TOKEN));
}

#[tokio::test]
async fn the_home_skills_toml_chooses_the_kind() {
    let fixture = Fixture::new(RegistryKind::Catalog);
    clawhub(&fixture, &Value::Null, zip_reply(clawhub_zip()));
    let mut config = fixture.config.clone();
    config.registry.catalog_url = None;
    config.read_config_files = true;
    let file = fixture
        .home
        .path()
        .join(&config.app_dir)
        .join("skills.toml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        format!(
            "[registry]\nkind = \"clawhub\"\nurl = \"{}\"\n",
            fixture.server.url("/")
        ),
    )
    .unwrap();
    let listing = registry::browse(&config, &Hooks::default(), None)
        .await
        .unwrap();
    assert_eq!(listing.entries.len(), 3);
}

#[tokio::test]
async fn catalog_show_answers_from_the_catalog() {
    let mut fixture = Fixture::new(RegistryKind::Catalog);
    fixture.server.route(
        "/catalog.json",
        json_reply(&json!([
            {"name": "pdf-tools", "description": "PDF forms.", "category": "documents",
             "source": "acme", "version": "1.2.0", "author": "Acme", "license": "MIT",
             "tags": ["pdf"], "platforms": ["linux"]}
        ])),
    );
    fixture.config.registry.catalog_url = Some(fixture.server.url("/catalog.json"));
    let details = registry::show(&fixture.config, &Hooks::default(), "pdf-tools@1.2.0")
        .await
        .unwrap();
    assert_eq!(details.entry.name, "pdf-tools");
    assert_eq!(details.entry.author, "Acme");
    assert!(details.notes.is_empty());
    let error = registry::show(&fixture.config, &Hooks::default(), "pdf-tools@9.9.9")
        .await
        .unwrap_err();
    assert!(matches!(error, Error::SkillNotFound { .. }), "{error}");
}

#[tokio::test]
async fn skillhub_waits_out_a_429_as_retry_after_says() {
    let fixture = Fixture::new(RegistryKind::Skillhub);
    skillhub(&fixture, &skillhub_fingerprint(), zip_of(&files()));
    fixture.server.route(
        SKILLHUB_DOWNLOAD,
        Reply::Sequence(vec![
            Reply::Full {
                status: 429,
                headers: vec![
                    ("Content-Type".to_owned(), "application/json".to_owned()),
                    ("Retry-After".to_owned(), "1".to_owned()),
                ],
                body: json!({"code": 429, "msg": "Too many requests", "data": null,
                             "timestamp": "2026-03-15T06:00:00Z", "requestId": "r"})
                .to_string()
                .into_bytes(),
            },
            zip_reply(zip_of(&files())),
        ]),
    );
    registry::install(
        &fixture.config,
        &Hooks::default(),
        &InstallRequest::new("@team/pdf-tools"),
    )
    .await
    .unwrap();
    assert_eq!(fixture.hits(SKILLHUB_DOWNLOAD), 2);
    assert_installed(&fixture.root(), "pdf-tools");
}
