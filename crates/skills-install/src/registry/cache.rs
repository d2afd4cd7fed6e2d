//! The cached catalog (03 §Registry catalog, 09 §Registries): in
//! `<home>/<app_dir>/skill-registry/`, fresh for an hour, and refreshes that collapse into one
//! request.
//!
//! - **Two files.** `cache.json` is a small header (the catalog's key, fetch time, the
//!   server's `ETag` / `Last-Modified`, the skipped-entry warnings and the name of the data
//!   file); `catalog-<id>.bin` holds the compact entries in postcard, one record after
//!   another, written once per download while the catalog is parsed. A search streams the
//!   data file record by record and keeps only its matches, so neither a refresh nor a search
//!   ever holds the whole catalog in memory, and the catalog's JSON is never read again; a
//!   refresh of
//!   an unchanged catalog sends the validators, gets a `304` and rewrites only the header.
//!   The header names its data file and the data file repeats its id, so a header and a data
//!   file from different refreshes are a miss, never a mix.
//! - **Streamed.** The download goes to a temporary file in the same folder chunk by chunk
//!   (`Client::fetch_to_file`, every check of the guarded client kept) and is parsed from
//!   there one entry at a time (`registry/catalog.rs`): the 26 MB body is never in memory.
//!   A refused download (too large, too many entries, not an array) leaves the cached copy
//!   as it was.
//!
//! - **Keyed by the catalog.** The file records a digest of the catalog URL (not the URL: it
//!   may carry a token in its query), so a cache of another catalog is a miss.
//! - **Never trusted blindly.** Every file here goes through the one state reader and writer
//!   (`skills_ops::state`): a file that is missing, a link, a FIFO or device, too large, of
//!   another format, or whose entries no longer parse is a miss; the next refresh replaces it
//!   atomically. A corrupt cache never fails a call, and a link at the cache folder is never
//!   followed.
//! - **One request at a time.** Refreshes of one catalog in one process queue on a shared
//!   async mutex; a caller that waited while another finished takes that result (success or
//!   failure) instead of asking again, and a caller that finds the cache fresh once it holds
//!   the mutex asks nothing. Across processes the same is done with a file lock beside the
//!   cache (`.refresh.lock`), waited for at most the request's deadline, after which the
//!   cache is read again. Eight concurrent callers, in one process or in eight, make one
//!   request.
//! - **Stale answers.** `browse`, `categories` and `sources` answer from a stale cache at
//!   once and start one refresh on the caller's tokio runtime, if there is one; its failure
//!   is reported in the next answer's warnings. `search` and `install` refresh first and fall
//!   back to the stale copy, with a warning, when the refresh fails.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use skills_net::client::{Fetched, Validators};
use skills_net::policy;
use skills_ops::state::{
    self, Folder, REGISTRY_DATA, REGISTRY_DIR, REGISTRY_HEADER, REGISTRY_LOCK, Wait,
};
use skills_types::install::Hooks;
use skills_types::limits::{CATALOG_TTL_SECS, MAX_CATALOG_BYTES, MAX_CATALOG_ENTRIES};
use skills_types::registry::{CACHE_FILE, Entry, REFRESH_LOCK, Status};
use skills_types::{Error, SkillsConfig};
use url::Url;

use crate::install;

/// The format of the cache files; another number is a miss.
const FORMAT: u32 = 2;
/// The data file's name: `catalog-<id>.bin`.
const DATA_PREFIX: &str = "catalog-";
const DATA_SUFFIX: &str = ".bin";
/// A cache stamped this far in the future is still believed (clocks of machines sharing a
/// home differ a little); beyond it, it is stale.
const CLOCK_SKEW_SECS: u64 = 5 * 60;
/// How often a process waiting for another's refresh looks at the lock again.
const LOCK_POLL: Duration = Duration::from_millis(25);

/// What a caller needs from the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    /// Whatever is cached, however old; a stale copy starts a background refresh.
    Cached,
    /// A fresh copy: a stale one is refreshed first, and answers (with a warning) only when
    /// the refresh fails.
    Fresh,
    /// A copy fetched now, whatever the cache holds.
    Refetched,
}

/// A cached catalog: what its header says, and where its entries are.
#[derive(Debug)]
pub(crate) struct Catalog {
    /// How many entries the data file holds.
    pub(crate) total: usize,
    /// The app folder the cache is in.
    app: PathBuf,
    /// The data file's path, for messages.
    file: PathBuf,
    /// When it was fetched, in seconds since the epoch.
    pub(crate) fetched_at: u64,
    /// Entries skipped while reading it, and why.
    pub(crate) skipped: Vec<String>,
    /// A cache that could not be written.
    pub(crate) warnings: Vec<String>,
    /// Unique to one fetch: tells a cache another process wrote while this one waited from
    /// the one it saw before (fetch times have a resolution of a second).
    pub(crate) written: String,
    /// The id of the data file holding the entries.
    pub(crate) data: String,
    /// The server's validators for this copy.
    pub(crate) validators: Validators,
}

/// A catalog and how fresh it is.
pub(crate) struct Loaded {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) status: Status,
}

/// Where one catalog lives: its URL, its cache and its caps.
pub(crate) struct Place {
    url: Url,
    shown: String,
    /// Hex SHA-256 of the URL.
    key: String,
    /// The app folder (`<home>/<app_dir>`), the base of the cache folder.
    app: PathBuf,
    /// The cache folder, for messages.
    dir: PathBuf,
    max_bytes: u64,
    max_entries: usize,
}

impl Place {
    /// The configured catalog, its URL checked by the policy before anything else (a refused
    /// URL is refused even when a cache of it exists).
    pub(crate) fn of(config: &SkillsConfig) -> Result<Self, Error> {
        let text = config
            .registry
            .catalog_url
            .as_deref()
            .filter(|text| !text.trim().is_empty())
            .ok_or_else(|| Error::NotConfigured {
                what: "the registry catalog".to_owned(),
                how: "set SkillsConfig::registry.catalog_url ([registry] url in the home \
                          skills.toml)"
                    .to_owned(),
            })?;
        let policy = install::policy_of(config)?;
        let url = policy::parse(text, &policy).map_err(|refusal| {
            install::refused(install::shown(text), &refusal, refusal.is_local(), &policy)
        })?;
        Ok(Self {
            shown: policy::redact(&url),
            key: skills_net::digest::hex_digest(url.as_str().as_bytes()),
            url,
            app: state::app_dir(config),
            dir: state::app_dir(config).join(REGISTRY_DIR),
            max_bytes: config
                .registry
                .max_catalog_bytes
                .unwrap_or(MAX_CATALOG_BYTES),
            max_entries: config
                .registry
                .max_catalog_entries
                .unwrap_or(MAX_CATALOG_ENTRIES),
        })
    }

    fn data_file(&self, id: &str) -> PathBuf {
        self.dir.join(data_name(id))
    }

    pub(crate) fn file(&self) -> PathBuf {
        self.dir.join(CACHE_FILE)
    }

    /// The cache folder, when it is there and a folder of the program's (a link there is
    /// not followed: no cache, and a warning).
    fn folder(&self) -> Option<Folder> {
        match Folder::open(&self.app, &[REGISTRY_DIR]) {
            Ok(folder) => folder,
            Err(refusal) => {
                state::warn(&REGISTRY_HEADER, &self.dir, &refusal);
                None
            }
        }
    }

    /// The cache folder, made when missing.
    fn create_folder(&self) -> std::io::Result<Folder> {
        Ok(Folder::create(&self.app, &[REGISTRY_DIR])?)
    }
}

/// The data file's name: `catalog-<id>.bin`.
fn data_name(id: &str) -> String {
    format!("{DATA_PREFIX}{id}{DATA_SUFFIX}")
}

impl Place {}

/// `cache.json`: what is known about the cached copy, without its entries.
#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    /// The catalog's key (a digest of its URL).
    catalog: String,
    /// The catalog's URL, redacted, for a person reading the file.
    #[serde(default)]
    url: String,
    fetched_at: u64,
    /// Unique to one refresh (a `304` included).
    #[serde(default)]
    written: String,
    /// The id of the data file, unique to one download.
    data: String,
    /// How many records the data file holds.
    total: usize,
    #[serde(default)]
    etag: Option<String>,
    #[serde(default)]
    last_modified: Option<String>,
    #[serde(default)]
    skipped: Vec<String>,
}

/// The start of the data file; `total` [`Record`]s follow, each its own postcard message.
#[derive(Serialize, Deserialize)]
struct DataHead {
    format: u32,
    data: String,
}

/// One entry in the data file: every field, in a fixed order (postcard is not
/// self-describing, so nothing may be skipped).
#[derive(Deserialize)]
struct Record {
    name: String,
    description: String,
    source: String,
    category: String,
    author: String,
    version: String,
    license: String,
    tags: Vec<String>,
    platforms: Vec<String>,
    docs_path: Option<String>,
    source_url: Option<String>,
    install_identifier: Option<String>,
}

#[derive(Serialize)]
struct RecordRef<'a> {
    name: &'a str,
    description: &'a str,
    source: &'a str,
    category: &'a str,
    author: &'a str,
    version: &'a str,
    license: &'a str,
    tags: &'a [String],
    platforms: &'a [String],
    docs_path: &'a Option<String>,
    source_url: &'a Option<String>,
    install_identifier: &'a Option<String>,
}

impl<'a> RecordRef<'a> {
    fn of(entry: &'a Entry) -> Self {
        Self {
            name: &entry.name,
            description: &entry.description,
            source: &entry.source,
            category: &entry.category,
            author: &entry.author,
            version: &entry.version,
            license: &entry.license,
            tags: &entry.tags,
            platforms: &entry.platforms,
            docs_path: &entry.docs_path,
            source_url: &entry.source_url,
            install_identifier: &entry.install_identifier,
        }
    }
}

impl Record {
    fn into_entry(self) -> Entry {
        let mut entry = Entry::new(self.name);
        entry.description = self.description;
        entry.source = self.source;
        entry.category = self.category;
        entry.author = self.author;
        entry.version = self.version;
        entry.license = self.license;
        entry.tags = self.tags;
        entry.platforms = self.platforms;
        entry.docs_path = self.docs_path;
        entry.source_url = self.source_url;
        entry.install_identifier = self.install_identifier;
        entry
    }
}

/// The catalog for `want`, with the default deadline for a refresh.
pub(crate) async fn load(
    config: &SkillsConfig,
    hooks: &Hooks,
    want: Want,
) -> Result<Loaded, Error> {
    load_within(config, hooks, want, install::timeout(None)).await
}

/// The catalog for `want`; a refresh gives up after `total`.
pub(crate) async fn load_within(
    config: &SkillsConfig,
    hooks: &Hooks,
    want: Want,
    total: Duration,
) -> Result<Loaded, Error> {
    let place = Place::of(config)?;
    let now = now();
    let cached = match want {
        Want::Refetched => None,
        Want::Cached | Want::Fresh => read(&place),
    };
    let Some(cached) = cached else {
        let catalog = refresh(&place, config, hooks, want, total).await?;
        return Ok(loaded(&place, catalog, false));
    };
    if is_fresh(cached.fetched_at, now) {
        return Ok(loaded(&place, Arc::new(cached), false));
    }
    if want == Want::Cached {
        let failure = last_failure(&place);
        let refreshing = spawn_refresh(config, hooks, total);
        let mut answer = loaded(&place, Arc::new(cached), refreshing);
        if let Some(failure) = failure {
            answer
                .status
                .warnings
                .push(format!("the last refresh of the catalog failed: {failure}"));
        }
        return Ok(answer);
    }
    match refresh(&place, config, hooks, want, total).await {
        Ok(catalog) => Ok(loaded(&place, catalog, false)),
        Err(error) => {
            let mut answer = loaded(&place, Arc::new(cached), false);
            answer.status.warnings.push(format!(
                "the catalog could not be refreshed, so this answer comes from the cached copy: {error}"
            ));
            Ok(answer)
        }
    }
}

fn loaded(place: &Place, catalog: Arc<Catalog>, refreshing: bool) -> Loaded {
    let now = now();
    let status = Status {
        url: place.shown.clone(),
        total: catalog.total,
        fetched_at: catalog.fetched_at,
        age_secs: now.saturating_sub(catalog.fetched_at),
        stale: !is_fresh(catalog.fetched_at, now),
        refreshing,
        skipped: catalog.skipped.clone(),
        warnings: catalog.warnings.clone(),
    };
    Loaded { catalog, status }
}

/// Whether a catalog fetched at `fetched_at` is fresh at `now` (both in seconds since the
/// epoch): younger than the time to live, and not from the future beyond a little skew.
pub(crate) fn is_fresh(fetched_at: u64, now: u64) -> bool {
    fetched_at <= now.saturating_add(CLOCK_SKEW_SECS)
        && now.saturating_sub(fetched_at) < CATALOG_TTL_SECS
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// The cache's header, or `None` for anything unusual (missing, unreadable, too large,
/// another format or another catalog's).
fn read_header(place: &Place) -> Option<Header> {
    // One open that refuses a symlink and never blocks on a FIFO planted under the name.
    let bytes = place.folder()?.read_or_miss(&REGISTRY_HEADER, CACHE_FILE)?;
    let header: Header = serde_json::from_slice(&bytes).ok()?;
    (header.format == FORMAT && header.catalog == place.key && is_plain_id(&header.data))
        .then_some(header)
}

/// An id that is safe inside a file name.
fn is_plain_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// The cached catalog, or `None` for anything unusual (the header, or the start of the data
/// file it names).
pub(crate) fn read(place: &Place) -> Option<Catalog> {
    let header = read_header(place)?;
    if header.total > place.max_entries {
        return None;
    }
    let catalog = Catalog {
        total: header.total,
        app: place.app.clone(),
        file: place.data_file(&header.data),
        fetched_at: header.fetched_at,
        skipped: header.skipped,
        warnings: Vec::new(),
        written: header.written,
        data: header.data,
        validators: Validators {
            etag: header.etag,
            last_modified: header.last_modified,
        },
    };
    catalog.open().ok().map(|_| catalog)
}

/// A scratch buffer for one record: an entry's kept fields are at most
/// [`super::catalog::MAX_ENTRY_BYTES`], plus their length prefixes.
const RECORD_SCRATCH: usize = super::catalog::MAX_ENTRY_BYTES + 64 * 1024;

impl Catalog {
    /// The data file, opened and past its start (which must name this download).
    fn open(&self) -> Result<std::io::BufReader<std::fs::File>, String> {
        let folder = Folder::open(&self.app, &[REGISTRY_DIR])
            .map_err(|refusal| refusal.to_string())?
            .ok_or_else(|| "it is missing".to_owned())?;
        let (file, _) = folder
            .open_file(&REGISTRY_DATA, &data_name(&self.data))
            .map_err(|refusal| {
                state::warn(&REGISTRY_DATA, &self.file, &refusal);
                refusal.to_string()
            })?
            .ok_or_else(|| "it is missing".to_owned())?;
        let mut reader = std::io::BufReader::new(file);
        let mut scratch = vec![0u8; 1024];
        let (head, _): (DataHead, _) = postcard::from_io((&mut reader, &mut scratch[..]))
            .map_err(|error| format!("it does not start as a data file ({error})"))?;
        if head.format != FORMAT || head.data != self.data {
            return Err("it belongs to another download".to_owned());
        }
        Ok(reader)
    }

    /// Every entry, in catalog order, to `visit`, one record at a time. A damaged data file
    /// is an error (and its header is removed, so the next call fetches the catalog again).
    pub(crate) fn scan(&self, mut visit: impl FnMut(Entry)) -> Result<(), Error> {
        let damaged = |reason: String| {
            // The header goes, so the next reader misses and refetches; but only while it still
            // names this data file (a refresh in another process may have replaced both since
            // this copy was read, and its header is good).
            if let Ok(Some(folder)) = Folder::open(&self.app, &[REGISTRY_DIR]) {
                let names_this = folder
                    .read_or_miss(&REGISTRY_HEADER, CACHE_FILE)
                    .and_then(|bytes| serde_json::from_slice::<Header>(&bytes).ok())
                    .is_some_and(|current| current.data == self.data);
                if names_this {
                    drop(folder.remove(CACHE_FILE));
                }
            }
            Error::StateFileInvalid {
                path: self.file.clone(),
                reason: format!("it is damaged ({reason}); it is fetched again on the next call"),
            }
        };
        let mut reader = self.open().map_err(damaged)?;
        let mut scratch = vec![0u8; RECORD_SCRATCH];
        for index in 0..self.total {
            let (record, _): (Record, _) = postcard::from_io((&mut reader, &mut scratch[..]))
                .map_err(|error| damaged(format!("record {index}: {error}")))?;
            let entry = record.into_entry();
            // A hand-edited cache must not smuggle in a name that is not coordinates.
            if entry.coordinates().is_err() {
                return Err(damaged(format!("record {index} has no valid name")));
            }
            visit(entry);
        }
        Ok(())
    }
}

/// Replaces the header atomically (the data file is already in place), then removes the
/// data file the old header named.
fn write(place: &Place, catalog: &Catalog) -> std::io::Result<()> {
    let folder = place.create_folder()?;
    let previous = read_header(place).map(|header| header.data);
    let bytes = serde_json::to_vec(&Header {
        format: FORMAT,
        catalog: place.key.clone(),
        url: place.shown.clone(),
        fetched_at: catalog.fetched_at,
        written: catalog.written.clone(),
        data: catalog.data.clone(),
        total: catalog.total,
        etag: catalog.validators.etag.clone(),
        last_modified: catalog.validators.last_modified.clone(),
        skipped: catalog.skipped.clone(),
    })
    .map_err(std::io::Error::other)?;
    folder.replace(&REGISTRY_HEADER, CACHE_FILE, &bytes)?;
    if let Some(previous) = previous.filter(|previous| *previous != catalog.data) {
        // Another process may still be reading it; on Unix its open file stays readable.
        drop(folder.remove(&data_name(&previous)));
    }
    Ok(())
}

/// The refreshes of one catalog in this process.
#[derive(Default)]
struct Flight {
    /// Attempts finished so far.
    finished: AtomicU64,
    /// Held while refreshing; holds the last attempt's outcome.
    last: tokio::sync::Mutex<Option<Result<Arc<Catalog>, Error>>>,
}

fn flight(place: &Place) -> Arc<Flight> {
    type Flights = Mutex<HashMap<(PathBuf, String), Arc<Flight>>>;
    static FLIGHTS: OnceLock<Flights> = OnceLock::new();
    FLIGHTS
        .get_or_init(Flights::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry((place.dir.clone(), place.key.clone()))
        .or_default()
        .clone()
}

/// A fresh catalog (for `Fresh` and `Cached`, any fresh copy; for `Refetched`, one fetched
/// after the call began), making at most one request however many callers ask at once.
pub(crate) async fn refresh(
    place: &Place,
    config: &SkillsConfig,
    hooks: &Hooks,
    want: Want,
    total: Duration,
) -> Result<Arc<Catalog>, Error> {
    let flight = flight(place);
    let seen = flight.finished.load(Ordering::Acquire);
    let mut last = flight.last.lock().await;
    if flight.finished.load(Ordering::Acquire) != seen
        && let Some(outcome) = last.as_ref()
    {
        // Another caller finished an attempt while this one waited: its answer is ours.
        return replay(outcome);
    }
    let seen_written = match read_header(place) {
        Some(header) if want != Want::Refetched && is_fresh(header.fetched_at, now()) => {
            if let Some(catalog) = read(place) {
                return Ok(Arc::new(catalog));
            }
            None
        }
        Some(header) => Some(header.written),
        None => None,
    };
    let _lock = lock_across_processes(place, total).await;
    // Another process may have refreshed while this one waited for the lock: a fresh cache
    // will do, and for `Refetched` one written since this call looked.
    let changed = read_header(place).is_some_and(|header| {
        is_fresh(header.fetched_at, now())
            && (want != Want::Refetched || seen_written.as_ref() != Some(&header.written))
    });
    let outcome = match changed.then(|| read(place)).flatten() {
        Some(catalog) => Ok(Arc::new(catalog)),
        None => fetch(place, config, hooks, total).await.map(|mut catalog| {
            if let Err(error) = write(place, &catalog) {
                catalog.warnings.push(format!(
                    "the catalog could not be cached at {}: {error}",
                    place.file().display()
                ));
            }
            Arc::new(catalog)
        }),
    };
    let answer = replay(&outcome);
    *last = Some(outcome);
    flight.finished.fetch_add(1, Ordering::AcqRel);
    answer
}

/// An outcome again, for another caller (errors are not `Clone`; the variants a refresh
/// returns are rebuilt, anything else keeps its message).
fn replay(outcome: &Result<Arc<Catalog>, Error>) -> Result<Arc<Catalog>, Error> {
    match outcome {
        Ok(catalog) => Ok(catalog.clone()),
        Err(Error::UrlRefused { url, reason }) => Err(Error::UrlRefused {
            url: url.clone(),
            reason: reason.clone(),
        }),
        Err(Error::Download { url, reason, kind }) => Err(Error::Download {
            url: url.clone(),
            reason: reason.clone(),
            kind,
        }),
        Err(other) => Err(Error::InvalidInput(other.to_string())),
    }
}

/// The message of the last refresh in this process, when it failed.
fn last_failure(place: &Place) -> Option<String> {
    let flight = flight(place);
    let last = flight.last.try_lock().ok()?;
    match last.as_ref()? {
        Err(error) => Some(error.to_string()),
        Ok(_) => None,
    }
}

/// Starts a refresh on the caller's tokio runtime; `false` when there is none.
fn spawn_refresh(config: &SkillsConfig, hooks: &Hooks, total: Duration) -> bool {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return false;
    };
    let config = config.clone();
    let hooks = hooks.clone();
    drop(runtime.spawn(async move {
        if let Ok(place) = Place::of(&config) {
            // A failure stays in the flight; the next answer's warnings report it.
            drop(refresh(&place, &config, &hooks, Want::Fresh, total).await);
        }
    }));
    true
}

/// The lock refreshes of this cache take across processes, or `None` when it cannot be had
/// (an unwritable home, or a holder that outlived the deadline): the refresh then goes ahead
/// without it, which costs at most a second request.
async fn lock_across_processes(place: &Place, total: Duration) -> Option<state::Lock> {
    let folder = place.create_folder().ok()?;
    // Polled rather than waited for on a blocking thread: a runtime shutting down would wait
    // for that thread, and so for another process, however long it held the lock. A lock
    // file that is a link or a FIFO is no lock: the refresh goes ahead without it.
    let deadline = tokio::time::Instant::now() + total;
    loop {
        match folder.lock(&REGISTRY_LOCK, REFRESH_LOCK, Wait::No) {
            Ok(Some(lock)) => return Some(lock),
            Ok(None) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(LOCK_POLL).await;
            }
            Ok(None) => return None,
            Err(error) => {
                state::warn_unused(&REGISTRY_LOCK, &place.dir.join(REFRESH_LOCK), &error);
                return None;
            }
        }
    }
}

/// Fetches and reads the catalog into a new data file; when the server answers `304` to the
/// cached copy's validators, the cached copy is returned with a new fetch time.
async fn fetch(
    place: &Place,
    config: &SkillsConfig,
    hooks: &Hooks,
    total: Duration,
) -> Result<Catalog, Error> {
    let client = install::registry_client(config, hooks, total)?;
    let cached = read(place);
    let validators = cached
        .as_ref()
        .map(|catalog| catalog.validators.clone())
        .unwrap_or_default();
    let cannot_cache = |error: std::io::Error| Error::Download {
        url: place.shown.clone(),
        reason: format!(
            "the catalog cannot be downloaded into {}: {error}",
            place.dir.display()
        ),
        kind: "cache_unwritable",
    };
    let folder = place.create_folder().map_err(cannot_cache)?;
    let mut download = folder.temporary("download").map_err(cannot_cache)?;
    let file = download.file().map_err(cannot_cache)?;
    let fetched = client
        .fetch_to_file(&place.url, place.max_bytes, &validators, file)
        .await
        .map_err(|error| {
            let mut error = install::fetch_failure(&place.url, error, &client.settings().policy);
            if let Error::Download { reason, kind, .. } = &mut error
                && *kind == "too_large"
            {
                reason.push_str(
                    " (raise [registry] max_catalog_bytes in the home skills.toml to accept it)",
                );
            }
            error
        })?;
    let validators = match fetched {
        Fetched::NotModified => {
            if let Some(mut catalog) = cached {
                catalog.fetched_at = now();
                catalog.written = skills_ops::fs::unique_suffix();
                return Ok(catalog);
            }
            // A 304 to a request that sent no validators is the server's mistake.
            return Err(Error::Download {
                url: place.shown.clone(),
                reason: "the server answered 304 Not Modified to a request for a copy".to_owned(),
                kind: "http_status",
            });
        }
        Fetched::Written { validators, .. } => validators,
    };
    drop(cached);
    use std::io::Seek as _;
    file.rewind().map_err(cannot_cache)?;
    // Each entry goes to the new data file as it is read.
    let id = skills_ops::fs::unique_suffix();
    let mut data = folder.temporary("data").map_err(cannot_cache)?;
    let mut writer = std::io::BufWriter::new(data.file().map_err(cannot_cache)?);
    postcard::to_io(
        &DataHead {
            format: FORMAT,
            data: id.clone(),
        },
        &mut writer,
    )
    .map_err(|error| cannot_cache(std::io::Error::other(error)))?;
    let summary = super::catalog::read(
        std::io::BufReader::new(file),
        place.max_entries,
        &mut |entry| {
            postcard::to_io(&RecordRef::of(&entry), &mut writer)
                .map(drop)
                .map_err(|error| format!("the cache cannot be written: {error}"))
        },
    )
    .map_err(|refusal| match refusal {
        super::catalog::Refusal::Sink(reason) => cannot_cache(std::io::Error::other(reason)),
        refusal => Error::Download {
            url: place.shown.clone(),
            reason: refusal.to_string(),
            kind: "invalid_catalog",
        },
    })?;
    drop(download);
    writer
        .into_inner()
        .map_err(|error| cannot_cache(error.into_error()))?;
    data.persist(&data_name(&id), false).map_err(cannot_cache)?;
    Ok(Catalog {
        total: summary.count,
        app: place.app.clone(),
        file: place.data_file(&id),
        fetched_at: now(),
        skipped: summary.skipped,
        warnings: Vec::new(),
        written: skills_ops::fs::unique_suffix(),
        data: id,
        validators,
    })
}
