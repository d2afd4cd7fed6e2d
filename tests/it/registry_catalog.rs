//! The `catalog` registry at the real catalog's size (09 §Registries, catalog; issue 12
//! §Acceptance): a generated Hermes `skills.json` of more than 25 MB and 50,000 entries
//! (`skills_tests::catalog`), served by the loopback fixture server with an `ETag` and a
//! `Last-Modified`.
//!
//! The first search downloads and streams it into the cache; a second search answers from the
//! cache without a request (`Server::hits`); a stale cache is revalidated with exactly one
//! conditional request answered `304`; a catalog over either cap is refused with a message
//! naming the setting and the cached copy stays; a malformed entry is skipped with a warning;
//! an entry installs with every file of its source; and the registry's token reaches the
//! registry's own origin only (two servers on two ports are two origins).

use std::io::Write as _;
use std::path::PathBuf;

use serde_json::{Value, json};
use skills_install::registry;
use skills_tests::catalog::{self, NEEDLE, NEEDLE_WORD, Shape};
use skills_tests::http::{Reply, Server};
use skills_types::SkillsConfig;
use skills_types::install::Hooks;
use skills_types::registry::{CACHE_DIR, CACHE_FILE, InstallRequest, Query};

const CATALOG: &str = "/api/skills.json";
const ETAG: &str = "\"catalog-v1\"";
const LAST_MODIFIED: &str = "Wed, 02 Dec 2026 10:00:00 GMT";
const TOKEN: &str = "s3cret-registry-token";

struct Fixture {
    server: Server,
    home: tempfile::TempDir,
    _workspace: tempfile::TempDir,
    config: SkillsConfig,
}

impl Fixture {
    fn new(body: Vec<u8>) -> Self {
        let server = Server::start().unwrap();
        server.route(
            CATALOG,
            Reply::Conditional {
                body,
                etag: ETAG.to_owned(),
                last_modified: LAST_MODIFIED.to_owned(),
            },
        );
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let mut config = SkillsConfig::new(workspace.path(), home.path());
        config.cache = false;
        config.network.allow_loopback_http = true;
        config.registry.catalog_url = Some(server.url(CATALOG));
        Self {
            server,
            home,
            _workspace: workspace,
            config,
        }
    }

    fn catalog_hits(&self) -> Vec<skills_tests::http::Hit> {
        self.server
            .hits()
            .into_iter()
            .filter(|hit| hit.target == CATALOG)
            .collect()
    }

    fn header_file(&self) -> PathBuf {
        self.home
            .path()
            .join(&self.config.app_dir)
            .join(CACHE_DIR)
            .join(CACHE_FILE)
    }

    fn header(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.header_file()).unwrap()).unwrap()
    }

    /// Moves the cache's fetch time two hours into the past.
    fn age_cache(&self) {
        let mut header = self.header();
        let fetched_at = header["fetched_at"].as_u64().unwrap();
        header["fetched_at"] = json!(fetched_at - 2 * 3600);
        std::fs::write(self.header_file(), header.to_string()).unwrap();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A tarball laid out as GitHub's API serves one: a `owner-repo-commit/` top folder.
fn tarball(top: &str, files: &[(String, &str)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, body) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(body.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(1_700_000_000);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("{top}/{path}"), body.as_bytes())
            .unwrap();
    }
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&builder.into_inner().unwrap()).unwrap();
    gzip.finish().unwrap()
}

/// The files of a skill named `name`, under `folder` of a repository.
fn skill_files(folder: &str, name: &str) -> Vec<(String, &'static str)> {
    let definition: &'static str = Box::leak(
        format!("---\nname: {name}\ndescription: The {name} skill.\n---\nRun scripts/run.sh.\n")
            .into_boxed_str(),
    );
    vec![
        (format!("{folder}/SKILL.md"), definition),
        (format!("{folder}/scripts/run.sh"), "#!/bin/sh\necho run\n"),
        (format!("{folder}/references/notes.md"), "# Notes\n"),
    ]
}

/// A GitHub API on `server` serving `owner/repo`'s tarball at `reference` (and the default
/// branch), holding `files` and one more skill beside them that must not be installed.
fn serve_repository(server: &Server, owner: &str, repo: &str, files: &[(String, &'static str)]) {
    let mut all = files.to_vec();
    all.extend(skill_files("elsewhere/other-skill", "other-skill"));
    let body = tarball(&format!("{owner}-{repo}-4f2a9c1"), &all);
    for api in [
        format!("/api/v3/repos/{owner}/{repo}/tarball/main"),
        format!("/api/v3/repos/{owner}/{repo}/tarball"),
    ] {
        server.route(&api, Reply::Ok(body.clone()));
    }
}

#[test]
fn a_real_size_catalog_is_streamed_cached_and_revalidated_with_one_304() {
    let github = Server::start().unwrap();
    let shape = Shape {
        malformed_every: Some(10_000),
        github: github.url(""),
        ..Shape::default()
    };
    let body = catalog::generate(&shape);
    assert!(body.len() >= 25_000_000, "{} bytes", body.len());
    assert!(shape.entries >= 50_000);
    let mut fixture = Fixture::new(body);
    fixture.config.github.url = Some(github.url(""));
    let runtime = runtime();
    let hooks = Hooks::default();

    // The first search downloads, streams and caches the catalog.
    let first = runtime
        .block_on(registry::search(
            &fixture.config,
            &hooks,
            &Query::new(NEEDLE_WORD),
        ))
        .unwrap();
    let names: Vec<&str> = first
        .entries
        .iter()
        .map(|entry| entry.name.as_str())
        .collect();
    assert_eq!(names, [NEEDLE]);
    let malformed = shape.entries / 10_000;
    assert_eq!(first.catalog.total, shape.entries - malformed);
    assert_eq!(
        first.catalog.skipped.len(),
        malformed,
        "{:?}",
        first.catalog.skipped
    );
    assert!(
        first.catalog.skipped[0].starts_with("entry 9999 is skipped: ")
            && first.catalog.skipped[0].contains("'tags' holds a number"),
        "{:?}",
        first.catalog.skipped
    );
    assert_eq!(fixture.catalog_hits().len(), 1);
    let header = fixture.header();
    assert_eq!(header["etag"], ETAG);
    assert_eq!(header["last_modified"], LAST_MODIFIED);

    // A second search answers from the cache: no request at all.
    let second = runtime
        .block_on(registry::search(
            &fixture.config,
            &hooks,
            &Query::new("kubernetes cluster"),
        ))
        .unwrap();
    assert!(!second.entries.is_empty());
    assert_eq!(fixture.server.hits().len(), 1, "the cache answered");
    // Display names are shown as they are and searchable.
    let display = runtime
        .block_on(registry::search(&fixture.config, &hooks, &Query::new("")))
        .unwrap();
    assert!(
        display
            .entries
            .iter()
            .any(|entry| entry.name.contains('.') && entry.name.chars().any(char::is_uppercase)),
        "display names are kept"
    );
    assert_eq!(fixture.server.hits().len(), 1);

    // A stale cache is revalidated with one conditional request, answered 304; the data file
    // is not rewritten.
    fixture.age_cache();
    let data = header["data"].clone();
    let revalidated = runtime
        .block_on(registry::search(
            &fixture.config,
            &hooks,
            &Query::new(NEEDLE_WORD),
        ))
        .unwrap();
    assert_eq!(revalidated.entries.len(), 1);
    assert!(!revalidated.catalog.stale);
    assert!(
        revalidated.catalog.warnings.is_empty(),
        "{:?}",
        revalidated.catalog.warnings
    );
    let hits = fixture.catalog_hits();
    assert_eq!(hits.len(), 2, "exactly one more request");
    assert_eq!(hits[1].header("if-none-match"), Some(ETAG));
    assert_eq!(hits[1].header("if-modified-since"), Some(LAST_MODIFIED));
    assert_eq!(
        fixture.header()["data"],
        data,
        "the entries were not rewritten"
    );

    // An explicit refresh asks again, conditionally, and a 304 keeps everything.
    let status = runtime
        .block_on(registry::refresh(&fixture.config, &hooks))
        .unwrap();
    assert_eq!(status.total, shape.entries - malformed);
    assert_eq!(fixture.catalog_hits().len(), 3);
    assert_eq!(
        fixture.catalog_hits()[2].header("if-none-match"),
        Some(ETAG)
    );

    // The needle's sourceUrl is a GitHub folder page: every file of the folder is installed,
    // nothing beside it, and the catalog is not asked again (its cache is fresh).
    serve_repository(
        &github,
        "acme-0",
        "skills",
        &skill_files("skills/quokka-ledger", NEEDLE),
    );
    let outcome = runtime
        .block_on(registry::install(
            &fixture.config,
            &hooks,
            &InstallRequest::new(NEEDLE),
        ))
        .unwrap();
    assert_eq!(outcome.slug, NEEDLE);
    for file in ["SKILL.md", "scripts/run.sh", "references/notes.md"] {
        assert!(outcome.path.join(file).is_file(), "{file}");
    }
    assert!(!outcome.path.parent().unwrap().join("other-skill").exists());
    assert_eq!(
        github.targets(),
        ["/api/v3/repos/acme-0/skills/tarball/main"]
    );
    assert_eq!(fixture.catalog_hits().len(), 3);
}

#[test]
fn install_identifiers_resolve_to_github_folders_and_the_official_base() {
    let github = Server::start().unwrap();
    let catalog = json!([
        {
            "name": "tap-skill", "description": "From a GitHub tap.", "category": "devops",
            "source": "GitHub", "tags": [], "platforms": [], "author": "", "version": "",
            "license": "", "docsPath": "", "installIdentifier": "acme/taps/skills/tap-skill",
            "identifier": "acme/taps/skills/tap-skill",
            "sourceUrl": "https://skills.sh/skills/acme/taps/tap-skill"
        },
        {
            "name": "1password", "description": "Official.", "category": "security",
            "source": "optional", "tags": ["secrets"], "platforms": ["linux"], "author": "Nous",
            "version": 1.0, "license": "MIT", "docsPath": "optional/security/security-1password",
            "installIdentifier": "official/security/1password"
        }
    ]);
    let mut fixture = Fixture::new(catalog.to_string().into_bytes());
    fixture.config.github.url = Some(github.url(""));
    // The official skills' base: the optional-skills folder of the Hermes repository.
    fixture.config.registry.download_base_url = Some(format!(
        "{}/NousResearch/hermes-agent/tree/main/optional-skills",
        github.url("")
    ));
    serve_repository(
        &github,
        "acme",
        "taps",
        &skill_files("skills/tap-skill", "tap-skill"),
    );
    serve_repository(
        &github,
        "NousResearch",
        "hermes-agent",
        &skill_files("optional-skills/security/1password", "1password"),
    );
    let runtime = runtime();
    for (name, tarball) in [
        ("tap-skill", "/api/v3/repos/acme/taps/tarball"),
        (
            "1password",
            "/api/v3/repos/NousResearch/hermes-agent/tarball/main",
        ),
    ] {
        let outcome = runtime
            .block_on(registry::install(
                &fixture.config,
                &Hooks::default(),
                &InstallRequest::new(name),
            ))
            .unwrap();
        assert_eq!(outcome.slug, name);
        for file in ["SKILL.md", "scripts/run.sh", "references/notes.md"] {
            assert!(outcome.path.join(file).is_file(), "{name}: {file}");
        }
        assert!(!outcome.path.parent().unwrap().join("other-skill").exists());
        assert_eq!(github.targets().last().map(String::as_str), Some(tarball));
        let record: Value = serde_json::from_slice(
            &std::fs::read(outcome.path.join(".skill-source.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(record["kind"], "registry", "{record}");
        assert_eq!(record["registry"]["id"], name);
    }
}

/// Issue 30 §6: an `official/<category>/<slug>` entry under a download base that is not
/// GitHub is that folder: its own index forms, then its own `SKILL.md`, never the origin
/// root's index, which here lists another skill.
#[test]
fn a_download_base_folder_resolves_to_its_own_skill_md_never_the_origin_root() {
    let catalog = json!([{
        "name": "1password", "description": "Official.", "category": "security",
        "source": "optional", "tags": [], "platforms": [], "author": "", "version": "",
        "license": "", "docsPath": "", "installIdentifier": "official/security/1password"
    }]);
    let mut fixture = Fixture::new(catalog.to_string().into_bytes());
    let files = Server::start().unwrap();
    fixture.config.registry.download_base_url = Some(files.url("/optional"));
    let own = "---\nname: 1password\ndescription: The 1password skill.\n---\nUse op.\n";
    files.text("/optional/security/1password/SKILL.md", own);
    // The origin root publishes something else entirely.
    let intruder = "---\nname: intruder\ndescription: Not this one.\n---\nNo.\n";
    files.text("/intruder/SKILL.md", intruder);
    let digest = format!(
        "sha256:{:x}",
        <sha2::Sha256 as sha2::Digest>::digest(intruder.as_bytes())
    );
    files.text(
        "/.well-known/agent-skills/index.json",
        &json!({"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
                "skills": [{"name": "intruder", "type": "skill-md", "description": "x",
                            "url": "/intruder/SKILL.md", "digest": digest}]})
        .to_string(),
    );
    let outcome = runtime()
        .block_on(registry::install(
            &fixture.config,
            &Hooks::default(),
            &InstallRequest::new("1password"),
        ))
        .unwrap();
    assert_eq!(outcome.slug, "1password");
    assert_eq!(
        std::fs::read_to_string(outcome.path.join("SKILL.md")).unwrap(),
        own
    );
    assert_eq!(
        files.targets(),
        [
            "/optional/security/1password/.well-known/agent-skills/index.json",
            "/optional/security/1password/.well-known/skills/index.json",
            "/optional/security/1password/index.json",
            "/optional/security/1password/SKILL.md",
        ],
        "the folder alone, never the origin's root"
    );
}

#[test]
fn catalogs_over_either_cap_are_refused_and_the_cached_copy_stays() {
    let small = catalog::generate(&Shape {
        entries: 2_000,
        ..Shape::default()
    });
    let fixture = Fixture::new(small.clone());
    let runtime = runtime();
    let hooks = Hooks::default();
    let cached = runtime
        .block_on(registry::browse(&fixture.config, &hooks, None))
        .unwrap();
    assert_eq!(cached.entries.len(), 2_000);
    let header_before = std::fs::read(fixture.header_file()).unwrap();

    // A new, larger catalog: over the byte cap.
    let larger = catalog::generate(&Shape {
        entries: 3_000,
        ..Shape::default()
    });
    fixture.server.route(CATALOG, Reply::Ok(larger));
    let mut config = fixture.config.clone();
    config.registry.max_catalog_bytes = Some(small.len() as u64 + 10);
    let error = runtime
        .block_on(registry::refresh(&config, &hooks))
        .unwrap_err();
    assert_eq!(error.kind(), "too_large", "{error}");
    assert!(error.to_string().contains("max_catalog_bytes"), "{error}");
    assert_eq!(std::fs::read(fixture.header_file()).unwrap(), header_before);

    // Over the entry cap.
    let mut config = fixture.config.clone();
    config.registry.max_catalog_entries = Some(2_500);
    let error = runtime
        .block_on(registry::refresh(&config, &hooks))
        .unwrap_err();
    assert_eq!(error.kind(), "invalid_catalog", "{error}");
    assert!(
        error.to_string().contains("more than 2500 entries")
            && error.to_string().contains("max_catalog_entries"),
        "{error}"
    );
    assert_eq!(std::fs::read(fixture.header_file()).unwrap(), header_before);

    // The cached copy still answers, and nothing of the refused downloads is left behind.
    let still = runtime
        .block_on(registry::browse(&fixture.config, &hooks, None))
        .unwrap();
    assert_eq!(still.entries.len(), 2_000);
    let dir = fixture.header_file().parent().unwrap().to_owned();
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".bin") && name != CACHE_FILE && name != ".refresh.lock")
        .collect();
    left.sort();
    assert!(left.is_empty(), "{left:?}");

    // With the caps raised the new catalog is taken.
    let mut config = fixture.config.clone();
    config.registry.max_catalog_entries = Some(3_000);
    let status = runtime
        .block_on(registry::refresh(&config, &hooks))
        .unwrap();
    assert_eq!(status.total, 3_000);
}

/// A catalog of one entry whose `sourceUrl` is a pack on `files` (any origin), and the pack.
fn pack_catalog(files: &Server) -> Vec<u8> {
    files.route(
        "/pack/index.json",
        Reply::Ok(
            json!({"skills": [{
                "name": "ledger-tools",
                "files": ["SKILL.md", "scripts/balance.sh", "references/accounts.md"]
            }]})
            .to_string()
            .into_bytes(),
        ),
    );
    files.text(
        "/pack/ledger-tools/SKILL.md",
        "---\nname: ledger-tools\ndescription: Balances ledgers.\n---\nRun scripts/balance.sh; see references/accounts.md.\n",
    );
    files.text(
        "/pack/ledger-tools/scripts/balance.sh",
        "#!/bin/sh\necho balanced\n",
    );
    files.text("/pack/ledger-tools/references/accounts.md", "# Accounts\n");
    json!([{
        "name": "Ledger.Tools",
        "description": "Balances ledgers.",
        "category": "productivity",
        "source": "GitHub",
        "tags": ["finance"],
        "platforms": [],
        "author": "",
        "version": "",
        "license": "",
        "docsPath": "",
        "installIdentifier": "acme/ledger/skills/ledger-tools",
        "sourceUrl": files.url("/pack/index.json")
    }])
    .to_string()
    .into_bytes()
}

#[test]
fn an_entry_installs_every_file_under_the_folder_its_display_name_maps_to() {
    let files = Server::start().unwrap();
    let fixture = Fixture::new(pack_catalog(&files));
    let runtime = runtime();
    let outcome = runtime
        .block_on(registry::install(
            &fixture.config,
            &Hooks::default(),
            &InstallRequest::new("Ledger.Tools"),
        ))
        .unwrap();
    assert_eq!(outcome.slug, "ledger-tools");
    for file in ["SKILL.md", "scripts/balance.sh", "references/accounts.md"] {
        assert!(outcome.path.join(file).is_file(), "{file} is installed");
    }
    assert_eq!(
        std::fs::read_to_string(outcome.path.join("scripts/balance.sh")).unwrap(),
        "#!/bin/sh\necho balanced\n"
    );
    // The slug the display name maps to finds it too.
    let again = runtime
        .block_on(registry::install(
            &fixture.config,
            &Hooks::default(),
            &InstallRequest::new("ledger-tools"),
        ))
        .unwrap();
    assert!(again.already_installed);
}

#[test]
fn the_token_reaches_the_registrys_own_origin_only() {
    let files = Server::start().unwrap();
    let mut fixture = Fixture::new(pack_catalog(&files));
    fixture.config.registry.token = Some(TOKEN.to_owned());
    let runtime = runtime();
    let hooks = Hooks::default();
    runtime
        .block_on(registry::install(
            &fixture.config,
            &hooks,
            &InstallRequest::new("ledger-tools"),
        ))
        .unwrap();
    let bearer = format!("Bearer {TOKEN}");
    let registry_hits = fixture.server.hits();
    assert!(!registry_hits.is_empty());
    for hit in &registry_hits {
        assert_eq!(
            hit.header("authorization"),
            Some(bearer.as_str()),
            "{}",
            hit.target
        );
    }
    let download_hits = files.hits();
    assert_eq!(download_hits.len(), 4, "the index and three files");
    for hit in &download_hits {
        assert_eq!(hit.header("authorization"), None, "{}", hit.target);
    }

    // A redirect from the registry to another origin does not carry it either, and no
    // message does.
    let moved = Server::start().unwrap();
    moved.route("/moved.json", Reply::Status(500));
    let mut config = fixture.config.clone();
    config.home = tempfile::tempdir().unwrap().keep();
    fixture.server.route(
        "/redirecting.json",
        Reply::Redirect(moved.url("/moved.json")),
    );
    config.registry.catalog_url = Some(fixture.server.url("/redirecting.json"));
    let error = runtime
        .block_on(registry::refresh(&config, &hooks))
        .unwrap_err();
    assert_eq!(error.kind(), "http_status", "{error}");
    assert!(!error.to_string().contains(TOKEN), "{error}");
    assert!(!format!("{error:?}").contains(TOKEN));
    assert!(!format!("{config:?}").contains(TOKEN));
    let redirected = moved.hits();
    assert_eq!(redirected.len(), 1);
    assert_eq!(redirected[0].header("authorization"), None);
    let asked = fixture
        .server
        .hits()
        .into_iter()
        .find(|hit| hit.target == "/redirecting.json")
        .unwrap();
    assert_eq!(asked.header("authorization"), Some(bearer.as_str()));
    std::fs::remove_dir_all(&config.home).unwrap();
}
