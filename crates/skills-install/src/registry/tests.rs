//! Tests of the registry: reading catalogs (strict per entry, tolerant of unknown fields),
//! search and counts, finding an entry by any coordinates, download URLs, the cache (time to
//! live, corrupt and foreign files), and, against a tiny loopback server started here, eight
//! concurrent callers making one request, stale answers and their refresh, the size cap, the
//! URL policy on the catalog URL, installs under the bare slug with their provenance, and
//! namespace conflicts reported before anything is downloaded or written.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};
use skills_types::files::PROVENANCE_FILE;
use skills_types::limits::{CATALOG_TTL_SECS, MAX_CATALOG_BYTES};
use skills_types::registry::{CACHE_DIR, CACHE_FILE};

use super::cache::{self, is_fresh};
use super::*;

// ---------------------------------------------------------------------------------------------
// A tiny loopback server: fixed routes, every request recorded.

/// Path → status and body.
type Routes = Mutex<HashMap<String, (u16, Vec<u8>)>>;

struct Server {
    address: SocketAddr,
    routes: Arc<Routes>,
    hits: Arc<Mutex<Vec<String>>>,
    stopping: Arc<AtomicBool>,
}

impl Server {
    fn start() -> Self {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let server = Self {
            address: listener.local_addr().unwrap(),
            routes: Arc::default(),
            hits: Arc::default(),
            stopping: Arc::default(),
        };
        let (routes, hits, stopping) = (
            server.routes.clone(),
            server.hits.clone(),
            server.stopping.clone(),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let (routes, hits) = (routes.clone(), hits.clone());
                std::thread::spawn(move || answer(stream, &routes, &hits));
            }
        });
        server
    }

    fn route(&self, path: &str, status: u16, body: impl Into<Vec<u8>>) {
        lock(&self.routes).insert(path.to_owned(), (status, body.into()));
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    fn hits(&self, path: &str) -> usize {
        lock(&self.hits).iter().filter(|hit| *hit == path).count()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        drop(TcpStream::connect(self.address));
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn answer(stream: TcpStream, routes: &Routes, hits: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    drop(reader.read_line(&mut request));
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line.trim().is_empty() => break,
            Ok(_) => {}
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
    lock(hits).push(path.clone());
    let (status, body) = lock(routes)
        .get(&path)
        .cloned()
        .unwrap_or((404, b"not found".to_vec()));
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 {status} Fixture\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    drop(
        stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.write_all(&body)),
    );
}

// ---------------------------------------------------------------------------------------------
// Fixtures.

fn catalog() -> Value {
    json!([
        {
            "name": "pdf-tools",
            "description": "Reads and fills PDF forms.",
            "source": "Anthropic",
            "category": "documents",
            "version": "1.2.0",
            "tags": ["pdf", "forms"],
            "stars": 41
        },
        {
            "name": "@acme/csv-profile",
            "description": "Profiles a CSV file before analysis.",
            "source": "community",
            "category": "data",
            "tags": ["csv", "Spreadsheet"]
        },
        {
            "name": "release-notes",
            "description": "Drafts release notes from merged pull requests, also as PDF.",
            "source": "community",
            "category": "Documents"
        }
    ])
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\n# {name}\n")
}

struct Setup {
    server: Server,
    home: tempfile::TempDir,
    workspace: tempfile::TempDir,
    config: SkillsConfig,
}

fn setup(catalog: &Value) -> Setup {
    let server = Server::start();
    server.route("/catalog.json", 200, catalog.to_string());
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let mut config = SkillsConfig::new(workspace.path(), home.path());
    config.cache = false;
    config.network.allow_loopback_http = true;
    config.registry.catalog_url = Some(server.url("/catalog.json"));
    Setup {
        server,
        home,
        workspace,
        config,
    }
}

impl Setup {
    fn cache_file(&self) -> PathBuf {
        self.home
            .path()
            .join(&self.config.app_dir)
            .join(CACHE_DIR)
            .join(CACHE_FILE)
    }

    /// Moves the cache's fetch time `seconds` into the past.
    fn age_cache(&self, seconds: u64) {
        let path = self.cache_file();
        let mut file: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let fetched_at = file["fetched_at"].as_u64().unwrap();
        file["fetched_at"] = json!(fetched_at - seconds);
        std::fs::write(&path, file.to_string()).unwrap();
    }

    /// Where a registry install lands by default: the home's shared `.agents/skills`.
    fn root(&self) -> PathBuf {
        self.home.path().join(".agents/skills")
    }
}

fn names(entries: &[Entry]) -> Vec<&str> {
    entries.iter().map(|entry| entry.name.as_str()).collect()
}

fn hooks() -> Hooks {
    Hooks::default()
}

// ---------------------------------------------------------------------------------------------
// Reading catalogs.

#[test]
fn catalogs_are_read_strictly_per_entry_and_tolerate_unknown_fields() {
    let text = json!([
        {"name": "zeta", "description": "Last.", "tags": null, "docsPath": "docs/zeta.md"},
        {"name": "alpha", "sourceUrl": "https://github.com/o/r/blob/main/alpha/SKILL.md", "x-new": {"a": 1}},
        {"description": "no name"},
        {"name": ""},
        {"name": 7},
        {"name": "../etc"},
        {"name": "Bad Name"},
        {"name": "a--b--c"},
        {"name": "pdf@1.0"},
        {"name": "typed", "version": 1.2},
        {"name": "listed", "tags": ["a", 3]},
        {"name": "alpha", "description": "a second alpha"},
        {"name": "@ns/dup"},
        {"name": "ns--dup"},
        "a string",
        [1, 2]
    ]);
    let (entries, warnings) = parse_catalog(text.to_string().as_bytes()).unwrap();
    // A display name (upper case, a space) is kept as it is and maps to a slug; a YAML
    // number as a version is its text.
    assert_eq!(
        names(&entries),
        ["@ns/dup", "Bad Name", "alpha", "typed", "zeta"]
    );
    assert_eq!(entries[1].coordinates().unwrap().slug, "bad-name");
    assert_eq!(entries[3].version, "1.2");
    assert_eq!(entries[4].docs_path.as_deref(), Some("docs/zeta.md"));
    assert!(entries[4].tags.is_empty());
    assert!(entries[2].source_url.is_some());
    let expected = [
        "entry 2 is skipped: it has no name",
        "entry 3 is skipped: it has no name",
        "entry 4 is skipped: its name is a number",
        "entry 5 is skipped: '../etc' is not a registry name",
        "entry 7 is skipped: 'a--b--c' is not a registry name: '--' is not allowed inside a slug",
        "entry 8 is skipped: 'pdf@1.0' is not a registry name: an entry's name holds no version",
        "entry 10 is skipped: 'listed': 'tags' holds a number, not only strings",
        "entry 11 ('alpha') is skipped: entry 1 has the same id",
        "entry 13 ('ns--dup') is skipped: entry 12 has the same id",
        "entry 14 is skipped: it is a JSON string, not an object",
        "entry 15 is skipped: it is a JSON array, not an object",
    ];
    assert_eq!(warnings.len(), expected.len(), "{warnings:#?}");
    for (warning, expected) in warnings.iter().zip(expected) {
        assert!(
            warning.starts_with(expected),
            "{warning}\nwanted {expected}"
        );
    }
}

#[test]
fn a_catalog_must_be_a_json_array() {
    for (text, message) in [
        (
            "{\"skills\": []}",
            "the catalog is a JSON object, not an array of entries",
        ),
        ("[", "the catalog is not valid JSON"),
        ("", "the catalog is not valid JSON"),
        ("\u{feff}[]", "the catalog is not valid JSON"),
    ] {
        let error = parse_catalog(text.as_bytes()).unwrap_err();
        assert!(error.starts_with(message), "{text:?}: {error}");
    }
    assert_eq!(parse_catalog(b"[]").unwrap(), (Vec::new(), Vec::new()));
    assert!(parse_catalog(b"[{\"name\": \"a\"}] ").is_ok());
    assert!(parse_catalog(&[0xff, 0xfe]).is_err());
}

#[test]
fn skipped_entries_are_summarised_after_twenty() {
    let text = format!("[{}]", vec!["{}"; 50].join(","));
    let (entries, warnings) = parse_catalog(text.as_bytes()).unwrap();
    assert!(entries.is_empty());
    assert_eq!(warnings.len(), catalog::MAX_WARNINGS + 1);
    assert_eq!(
        warnings[catalog::MAX_WARNINGS],
        "... 30 more entries were skipped"
    );
}

// ---------------------------------------------------------------------------------------------
// Search and counts.

fn sample() -> Vec<Entry> {
    parse_catalog(catalog().to_string().as_bytes()).unwrap().0
}

#[test]
fn search_is_case_insensitive_over_name_description_and_tags() {
    let entries = sample();
    let search = |text: &str| names(&search_entries(&entries, &Query::new(text))).join(" ");
    assert_eq!(search("PDF"), "pdf-tools release-notes");
    assert_eq!(search("spreadsheet"), "@acme/csv-profile");
    assert_eq!(search("csv-profile"), "@acme/csv-profile");
    assert_eq!(search("release pdf"), "release-notes");
    assert_eq!(search("pdf nothing"), "");
    assert_eq!(
        search("  "),
        "@acme/csv-profile pdf-tools release-notes",
        "an empty query keeps every entry, by name"
    );
    let mut query = Query::new("");
    query.category = Some("DOCUMENTS".into());
    assert_eq!(
        names(&search_entries(&entries, &query)),
        ["pdf-tools", "release-notes"]
    );
    query.source = Some("Community".into());
    assert_eq!(names(&search_entries(&entries, &query)), ["release-notes"]);
}

#[test]
fn counts_group_by_name_and_skip_empty_values() {
    let mut entries = sample();
    entries.push(Entry::new("loose"));
    let categories = tally(&entries, |entry| &entry.category);
    assert_eq!(
        categories,
        [
            Count::new("data", 1),
            Count::new("Documents", 1),
            Count::new("documents", 1)
        ]
    );
    let sources = tally(&entries, |entry| &entry.source);
    assert_eq!(
        sources,
        [Count::new("Anthropic", 1), Count::new("community", 2)]
    );
}

#[test]
fn entries_are_found_by_any_coordinates_and_versions_are_checked() {
    let entries = sample();
    let find = |text: &str| find(&entries, &Coordinates::parse(text).unwrap());
    for text in ["@acme/csv-profile", "acme/csv-profile", "acme--csv-profile"] {
        assert_eq!(find(text).unwrap().name, "@acme/csv-profile", "{text}");
    }
    assert_eq!(find("pdf-tools@1.2.0").unwrap().name, "pdf-tools");
    assert_eq!(find("pdf-tools@v1.2.0").unwrap().name, "pdf-tools");
    assert_eq!(find("pdf-tools@latest").unwrap().name, "pdf-tools");
    let not_found = |text: &str| match find(text).unwrap_err() {
        Error::SkillNotFound { name, suggestion } => (name, suggestion),
        other => panic!("{text}: {other}"),
    };
    assert_eq!(
        not_found("pdf-tools@2.0"),
        ("pdf-tools@2.0".into(), Some("pdf-tools@1.2.0".into()))
    );
    assert_eq!(
        not_found("pdf-tools@beta"),
        ("pdf-tools@beta".into(), Some("pdf-tools@1.2.0".into()))
    );
    assert_eq!(
        not_found("csv-profile"),
        ("csv-profile".into(), Some("@acme/csv-profile".into()))
    );
    assert_eq!(
        not_found("@other/pdf"),
        ("@other/pdf".into(), Some("pdf-tools".into()))
    );
    assert_eq!(not_found("zzz"), ("zzz".into(), None));
    let versionless = not_found("release-notes@1.0");
    assert_eq!(versionless.1, Some("release-notes".into()));
}

// ---------------------------------------------------------------------------------------------
// The cache.

#[test]
fn freshness_is_an_hour_and_never_far_in_the_future() {
    let now = 1_000_000;
    assert!(is_fresh(now, now));
    assert!(is_fresh(now - CATALOG_TTL_SECS + 1, now));
    assert!(!is_fresh(now - CATALOG_TTL_SECS, now));
    assert!(!is_fresh(0, now));
    assert!(is_fresh(now + 60, now), "a little clock skew is tolerated");
    assert!(!is_fresh(now + 24 * 3600, now));
    assert!(!is_fresh(u64::MAX, now));
}

#[tokio::test]
async fn corrupt_or_foreign_caches_are_ignored_and_replaced() {
    let setup = setup(&catalog());
    let place = cache::Place::of(&setup.config).unwrap();
    let file = setup.cache_file();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    for junk in [
        &b"{"[..],
        b"",
        b"\xff\xfe",
        b"[]",
        br#"{"format": 1, "catalog": "other", "fetched_at": 99999999999, "entries": []}"#,
        br#"{"format": 9, "catalog": "", "fetched_at": 1, "entries": []}"#,
    ] {
        std::fs::write(&file, junk).unwrap();
        assert!(cache::read(&place).is_none());
    }
    let listing = browse(&setup.config, &hooks(), None).await.unwrap();
    assert_eq!(listing.entries.len(), 3);
    assert!(cache::read(&place).is_some(), "the cache was replaced");

    // A header naming another data file, a data file that is not one, or a data id that is
    // a path, is not believed.
    let header: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let data = file
        .parent()
        .unwrap()
        .join(format!("catalog-{}.bin", header["data"].as_str().unwrap()));
    assert!(data.is_file(), "{}", data.display());
    let saved = std::fs::read(&data).unwrap();
    std::fs::write(&data, b"junk").unwrap();
    assert!(cache::read(&place).is_none());
    std::fs::write(&data, &saved).unwrap();
    assert!(cache::read(&place).is_some());
    for id in ["../../elsewhere", "other", ""] {
        let mut edited = header.clone();
        edited["data"] = json!(id);
        std::fs::write(&file, edited.to_string()).unwrap();
        assert!(cache::read(&place).is_none(), "{id}");
    }
    std::fs::write(&file, header.to_string()).unwrap();
    assert!(cache::read(&place).is_some());

    // Nor is a symlink.
    #[cfg(unix)]
    {
        let elsewhere = setup.home.path().join("elsewhere.json");
        std::fs::rename(&file, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
        assert!(cache::read(&place).is_none());
    }
}

#[tokio::test]
async fn a_cache_that_cannot_be_written_is_a_warning() {
    let setup = setup(&catalog());
    std::fs::create_dir_all(setup.cache_file()).unwrap();
    let listing = browse(&setup.config, &hooks(), None).await.unwrap();
    assert_eq!(listing.entries.len(), 3);
    assert_eq!(
        listing.catalog.warnings.len(),
        1,
        "{:?}",
        listing.catalog.warnings
    );
    assert!(listing.catalog.warnings[0].contains("could not be cached"));
}

// ---------------------------------------------------------------------------------------------
// Against the loopback server.

#[tokio::test]
async fn eight_concurrent_callers_make_one_request() {
    let setup = setup(&catalog());
    let config = Arc::new(setup.config.clone());
    let mut tasks = tokio::task::JoinSet::new();
    for caller in 0..8 {
        let config = config.clone();
        tasks.spawn(async move {
            if caller % 2 == 0 {
                search(&config, &hooks(), &Query::new("pdf"))
                    .await
                    .map(|listing| listing.catalog.total)
            } else {
                categories(&config, &hooks())
                    .await
                    .map(|counts| counts.catalog.total)
            }
        });
    }
    while let Some(answer) = tasks.join_next().await {
        assert_eq!(answer.unwrap().unwrap(), 3);
    }
    assert_eq!(setup.server.hits("/catalog.json"), 1);
}

#[tokio::test]
async fn a_fresh_cache_answers_without_a_request() {
    let setup = setup(&catalog());
    let first = browse(&setup.config, &hooks(), Some("documents"))
        .await
        .unwrap();
    assert_eq!(names(&first.entries), ["pdf-tools", "release-notes"]);
    assert!(!first.catalog.stale && !first.catalog.refreshing);
    assert_eq!(first.catalog.url, setup.server.url("/catalog.json"));
    assert!(first.catalog.age_secs <= 1);
    search(&setup.config, &hooks(), &Query::new("csv"))
        .await
        .unwrap();
    sources(&setup.config, &hooks()).await.unwrap();
    assert_eq!(setup.server.hits("/catalog.json"), 1);
}

#[tokio::test]
async fn a_stale_cache_is_served_and_refreshed_once() {
    let setup = setup(&catalog());
    browse(&setup.config, &hooks(), None).await.unwrap();
    setup.age_cache(2 * CATALOG_TTL_SECS);
    setup
        .server
        .route("/catalog.json", 200, json!([{"name": "newer"}]).to_string());

    let stale = browse(&setup.config, &hooks(), None).await.unwrap();
    assert_eq!(stale.entries.len(), 3, "the stale copy answers at once");
    assert!(stale.catalog.stale && stale.catalog.refreshing);
    assert!(stale.catalog.age_secs >= 2 * CATALOG_TTL_SECS);

    // The background refresh and this search share one request, whichever runs first.
    let fresh = search(&setup.config, &hooks(), &Query::new(""))
        .await
        .unwrap();
    assert_eq!(names(&fresh.entries), ["newer"]);
    assert!(!fresh.catalog.stale);
    let again = browse(&setup.config, &hooks(), None).await.unwrap();
    assert_eq!(names(&again.entries), ["newer"]);
    assert_eq!(setup.server.hits("/catalog.json"), 2);
}

#[tokio::test]
async fn a_failed_refresh_falls_back_to_the_stale_copy_with_a_warning() {
    let setup = setup(&catalog());
    browse(&setup.config, &hooks(), None).await.unwrap();
    setup.age_cache(2 * CATALOG_TTL_SECS);
    setup.server.route("/catalog.json", 503, "down");
    let answer = search(&setup.config, &hooks(), &Query::new("pdf"))
        .await
        .unwrap();
    assert_eq!(names(&answer.entries), ["pdf-tools", "release-notes"]);
    assert!(answer.catalog.stale);
    assert!(
        answer.catalog.warnings[0].contains("could not be refreshed")
            && answer.catalog.warnings[0].contains("HTTP 503"),
        "{:?}",
        answer.catalog.warnings
    );
    // Without any cache the failure is the answer.
    std::fs::remove_file(setup.cache_file()).unwrap();
    let error = search(&setup.config, &hooks(), &Query::new("pdf"))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), "http_status");
}

#[tokio::test]
async fn an_oversized_catalog_is_refused() {
    let mut setup = setup(&catalog());
    setup.config.registry.max_catalog_bytes = Some(1000);
    setup.server.route("/catalog.json", 200, vec![b' '; 1001]);
    let error = browse(&setup.config, &hooks(), None).await.unwrap_err();
    assert_eq!(error.kind(), "too_large", "{error}");
    assert!(error.to_string().contains("max_catalog_bytes"), "{error}");
    assert!(!setup.cache_file().exists());
    // Nothing of the download is left behind.
    let dir = setup.cache_file().parent().unwrap().to_owned();
    let left: Vec<_> = std::fs::read_dir(&dir)
        .map(|entries| entries.flatten().map(|entry| entry.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter()
            .all(|name| name.to_string_lossy() == ".refresh.lock"),
        "{left:?}"
    );
    // The default cap is the real catalog's with room to spare.
    assert_eq!(MAX_CATALOG_BYTES, 64 * 1024 * 1024);
}

#[tokio::test]
async fn a_catalog_that_is_not_an_array_is_invalid() {
    let setup = setup(&json!({"skills": []}));
    let error = browse(&setup.config, &hooks(), None).await.unwrap_err();
    assert_eq!(error.kind(), "invalid_catalog", "{error}");
    assert!(error.to_string().contains("not an array"), "{error}");
}

#[tokio::test]
async fn the_catalog_url_obeys_the_url_policy() {
    let mut setup = setup(&catalog());
    setup.config.network.allow_loopback_http = false;
    let error = browse(&setup.config, &hooks(), None).await.unwrap_err();
    assert_eq!(error.kind(), "refused_url", "{error}");
    for url in [
        "https://169.254.169.254/latest/catalog.json",
        "https://localhost/catalog.json",
        "https://user:secret@registry.example.org/catalog.json",
        "file:///etc/passwd",
    ] {
        setup.config.registry.catalog_url = Some(url.to_owned());
        let error = search(&setup.config, &hooks(), &Query::new(""))
            .await
            .unwrap_err();
        assert_eq!(error.kind(), "refused_url", "{url}: {error}");
        assert!(!error.to_string().contains("secret"), "{error}");
    }
    setup.config.registry.catalog_url = None;
    let error = sources(&setup.config, &hooks()).await.unwrap_err();
    assert_eq!(error.kind(), "not_configured");
    assert!(
        error
            .to_string()
            .contains("the registry catalog is not configured")
    );
    assert!(lock(&setup.server.hits).is_empty());
}

#[tokio::test]
async fn install_writes_the_bare_slug_with_its_coordinates() {
    let mut setup = setup(&catalog());
    setup.config.registry.download_base_url = Some(setup.server.url("/skills"));
    setup.server.route(
        "/skills/data/acme--csv-profile/SKILL.md",
        200,
        skill_md("csv-profile"),
    );
    let outcome = install(
        &setup.config,
        &hooks(),
        &InstallRequest::new("acme--csv-profile@latest"),
    )
    .await
    .unwrap();
    assert_eq!(outcome.slug, "csv-profile");
    assert_eq!(outcome.path, setup.root().join("csv-profile"));
    assert!(!outcome.already_installed);
    let record: Value =
        serde_json::from_slice(&std::fs::read(outcome.path.join(PROVENANCE_FILE)).unwrap())
            .unwrap();
    assert_eq!(record["kind"], "registry");
    assert_eq!(record["registry"]["coordinates"], "@acme/csv-profile");
    assert_eq!(record["registry"]["namespace"], "acme");
    assert_eq!(record["registry"]["id"], "@acme/csv-profile");
    let lock = skills_ops::lock::read(&setup.root()).unwrap();
    assert_eq!(
        lock.skills["csv-profile"]["registry"]["slug"],
        "csv-profile"
    );
    assert_eq!(
        installed_from(&setup.root(), "csv-profile"),
        Some(Coordinates::parse("@acme/csv-profile").unwrap())
    );

    // Again: the same content is already installed.
    let again = install(
        &setup.config,
        &hooks(),
        &InstallRequest::new("@acme/csv-profile"),
    )
    .await
    .unwrap();
    assert!(again.already_installed);
}

#[tokio::test]
async fn another_namespace_under_the_same_slug_is_a_conflict_before_any_download() {
    let mut setup = setup(&json!([
        {"name": "@acme/pdf", "category": "docs"},
        {"name": "@globex/pdf", "category": "docs"},
        {"name": "pdf", "category": "docs"}
    ]));
    setup.config.registry.download_base_url = Some(setup.server.url("/s"));
    for (path, name) in [
        ("/s/docs/acme--pdf/SKILL.md", "pdf"),
        ("/s/docs/globex--pdf/SKILL.md", "pdf"),
        ("/s/docs/pdf/SKILL.md", "pdf"),
    ] {
        setup.server.route(path, 200, skill_md(name));
    }
    install(&setup.config, &hooks(), &InstallRequest::new("@acme/pdf"))
        .await
        .unwrap();
    let before = std::fs::read(setup.root().join("pdf/.skill-source.json")).unwrap();
    for other in ["@globex/pdf", "pdf"] {
        let error = install(&setup.config, &hooks(), &InstallRequest::new(other))
            .await
            .unwrap_err();
        assert_eq!(error.kind(), "conflict", "{other}: {error}");
        assert!(
            error
                .to_string()
                .contains("holds @acme/pdf from the registry"),
            "{error}"
        );
    }
    assert_eq!(setup.server.hits("/s/docs/globex--pdf/SKILL.md"), 0);
    assert_eq!(setup.server.hits("/s/docs/pdf/SKILL.md"), 0);
    assert_eq!(
        std::fs::read(setup.root().join("pdf/.skill-source.json")).unwrap(),
        before
    );

    // The writer checks again under the lock, whatever the caller checked.
    let target = write::Target {
        root: setup.root(),
        scope: SkillScope::User,
        agent_folders: Vec::new(),
    };
    let error =
        check_namespace(&target.root, &Coordinates::parse("@globex/pdf").unwrap()).unwrap_err();
    assert_eq!(error.kind(), "conflict");

    // --force replaces it, and the record follows.
    let mut forced = InstallRequest::new("@globex/pdf");
    forced.force = true;
    install(&setup.config, &hooks(), &forced).await.unwrap();
    assert_eq!(
        installed_from(&setup.root(), "pdf"),
        Some(Coordinates::parse("@globex/pdf").unwrap())
    );

    // Uninstall by another namespace leaves it; by its own, or the bare slug, removes it.
    let error = uninstall(&setup.config, "@acme/pdf", None).unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    assert!(setup.root().join("pdf").exists());
    let removed = uninstall(&setup.config, "globex--pdf@9", None).unwrap();
    assert_eq!(removed.name, "pdf");
    assert!(!setup.root().join("pdf").exists());
    assert!(
        !skills_ops::lock::read(&setup.root())
            .unwrap()
            .skills
            .contains_key("pdf")
    );
}

#[tokio::test]
async fn installing_needs_an_entry_and_a_download_url() {
    let setup = setup(&json!([
        {"name": "pdf", "source": "acme", "docsPath": "https://acme.example.org/pdf"}
    ]));
    let error = install(&setup.config, &hooks(), &InstallRequest::new("pfd"))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), "not_found");
    let error = install(&setup.config, &hooks(), &InstallRequest::new("../etc"))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    let error = install(&setup.config, &hooks(), &InstallRequest::new("pdf"))
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("see its source page: https://acme.example.org/pdf"),
        "{error}"
    );
    let mut project = InstallRequest::new("pdf");
    project.scope = SkillScope::Project;
    let error = install(&setup.config, &hooks(), &project)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), "untrusted_workspace");
    assert!(!setup.root().exists(), "nothing was written");
    assert!(!Path::new(&setup.workspace.path().join(".openhuman/skills")).exists());
}

#[tokio::test]
async fn a_damaged_data_file_is_an_error_once_then_fetched_again() {
    let setup = setup(&catalog());
    browse(&setup.config, &hooks(), None).await.unwrap();
    let header: Value =
        serde_json::from_slice(&std::fs::read(setup.cache_file()).unwrap()).unwrap();
    let data = setup
        .cache_file()
        .with_file_name(format!("catalog-{}.bin", header["data"].as_str().unwrap()));
    // Cut after the start, in the middle of the records.
    let bytes = std::fs::read(&data).unwrap();
    std::fs::write(&data, &bytes[..bytes.len() / 2]).unwrap();
    let error = browse(&setup.config, &hooks(), None).await.unwrap_err();
    assert!(error.to_string().contains("is damaged"), "{error}");
    assert!(!setup.cache_file().exists(), "the header is gone");
    let listing = browse(&setup.config, &hooks(), None).await.unwrap();
    assert_eq!(listing.entries.len(), 3);
    assert_eq!(setup.server.hits("/catalog.json"), 2);
}

#[tokio::test]
async fn a_reader_racing_a_refresh_leaves_the_newer_header_alone() {
    let setup = setup(&catalog());
    browse(&setup.config, &hooks(), None).await.unwrap();
    let place = cache::Place::of(&setup.config).unwrap();
    let seen = cache::read(&place).unwrap();
    // Another process refreshed meanwhile: a new header naming a new data file, and the old
    // data file removed.
    let mut header: Value =
        serde_json::from_slice(&std::fs::read(setup.cache_file()).unwrap()).unwrap();
    let old = setup
        .cache_file()
        .with_file_name(format!("catalog-{}.bin", header["data"].as_str().unwrap()));
    header["data"] = json!("newer-download");
    std::fs::write(setup.cache_file(), header.to_string()).unwrap();
    std::fs::remove_file(old).unwrap();
    let error = seen.scan(drop).unwrap_err();
    assert!(error.to_string().contains("is damaged"), "{error}");
    assert!(setup.cache_file().exists(), "the newer header stays");
}
