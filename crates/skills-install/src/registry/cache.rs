//! The cached catalog (03 §Registry catalog): `<home>/<app_dir>/skill-registry/cache.json`,
//! fresh for an hour, and refreshes that collapse into one request.
//!
//! - **Keyed by the catalog.** The file records a digest of the catalog URL (not the URL: it
//!   may carry a token in its query), so a cache of another catalog is a miss.
//! - **Never trusted blindly.** A file that is missing, unreadable, too large, of another
//!   format, or whose entries no longer parse is a miss; the next refresh replaces it
//!   atomically (`skills_ops::fs::write_atomic`). A corrupt cache never fails a call.
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
use std::fs::OpenOptions;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use skills_types::install::Hooks;
use skills_types::limits::{CATALOG_TTL_SECS, MAX_CATALOG_BYTES};
use skills_types::registry::{CACHE_DIR, CACHE_FILE, Entry, REFRESH_LOCK, Status};
use skills_types::{Error, SkillsConfig};
use url::Url;

use crate::install;
use crate::policy;

/// The format of the cache file; another number is a miss.
const FORMAT: u32 = 1;
/// Largest cache file read. Written entries spell out every field, so a cache may be larger
/// than the catalog it came from; the entry limit bounds it well below this.
const MAX_CACHE_BYTES: u64 = 4 * MAX_CATALOG_BYTES;
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

/// A catalog in memory.
#[derive(Debug)]
pub(crate) struct Catalog {
    /// The entries, sorted by name.
    pub(crate) entries: Vec<Entry>,
    /// When it was fetched, in seconds since the epoch.
    pub(crate) fetched_at: u64,
    /// Entries skipped while reading it, and why.
    pub(crate) skipped: Vec<String>,
    /// A cache that could not be written.
    pub(crate) warnings: Vec<String>,
    /// Unique to one fetch: tells a cache another process wrote while this one waited from
    /// the one it saw before (fetch times have a resolution of a second).
    pub(crate) written: String,
}

/// A catalog and how fresh it is.
pub(crate) struct Loaded {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) status: Status,
}

/// Where one catalog lives: its URL and its cache.
pub(crate) struct Place {
    url: Url,
    shown: String,
    /// Hex SHA-256 of the URL.
    key: String,
    dir: PathBuf,
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
            .ok_or_else(|| {
                Error::InvalidInput(
                    "no registry catalog is configured (SkillsConfig::registry.catalog_url)"
                        .to_owned(),
                )
            })?;
        let policy = install::policy_of(config)?;
        let url = policy::parse(text, &policy).map_err(|refusal| {
            install::refused(install::shown(text), &refusal, refusal.is_local(), &policy)
        })?;
        Ok(Self {
            shown: policy::redact(&url),
            key: crate::fetch::hex_digest(url.as_str().as_bytes()),
            url,
            dir: config.home.join(&config.app_dir).join(CACHE_DIR),
        })
    }

    pub(crate) fn file(&self) -> PathBuf {
        self.dir.join(CACHE_FILE)
    }
}

/// The cache file as written.
#[derive(Serialize)]
struct Written<'a> {
    format: u32,
    catalog: &'a str,
    url: &'a str,
    fetched_at: u64,
    written: &'a str,
    entries: &'a [Entry],
    skipped: &'a [String],
}

/// The cache file as read.
#[derive(Deserialize)]
struct Read {
    format: u32,
    catalog: String,
    fetched_at: u64,
    #[serde(default)]
    written: String,
    entries: Vec<Entry>,
    #[serde(default)]
    skipped: Vec<String>,
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
        total: catalog.entries.len(),
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

/// The cached catalog, or `None` for anything unusual.
pub(crate) fn read(place: &Place) -> Option<Catalog> {
    let path = place.file();
    // One open that refuses a symlink and never blocks on a FIFO planted under the name.
    let bytes = skills_ops::fs::read_state_file(&path, MAX_CACHE_BYTES).ok()??;
    let file: Read = serde_json::from_slice(&bytes).ok()?;
    let usable = file.format == FORMAT
        && file.catalog == place.key
        // A hand-edited cache must not smuggle in a name that is not coordinates.
        && file.entries.iter().all(|entry| entry.coordinates().is_ok());
    usable.then_some(Catalog {
        entries: file.entries,
        fetched_at: file.fetched_at,
        skipped: file.skipped,
        warnings: Vec::new(),
        written: file.written,
    })
}

/// Replaces the cache file atomically.
fn write(place: &Place, catalog: &Catalog) -> std::io::Result<()> {
    std::fs::create_dir_all(&place.dir)?;
    let bytes = serde_json::to_vec(&Written {
        format: FORMAT,
        catalog: &place.key,
        url: &place.shown,
        fetched_at: catalog.fetched_at,
        written: &catalog.written,
        entries: &catalog.entries,
        skipped: &catalog.skipped,
    })
    .map_err(std::io::Error::other)?;
    skills_ops::fs::write_atomic(&place.file(), &bytes)
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
    let seen_written = match read(place) {
        Some(catalog) if want != Want::Refetched && is_fresh(catalog.fetched_at, now()) => {
            return Ok(Arc::new(catalog));
        }
        Some(catalog) => Some(catalog.written),
        None => None,
    };
    let _lock = lock_across_processes(place, total).await;
    // Another process may have refreshed while this one waited for the lock: a fresh cache
    // will do, and for `Refetched` one written since this call looked.
    let outcome = match read(place).filter(|catalog| {
        is_fresh(catalog.fetched_at, now())
            && (want != Want::Refetched || seen_written.as_ref() != Some(&catalog.written))
    }) {
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
async fn lock_across_processes(place: &Place, total: Duration) -> Option<std::fs::File> {
    std::fs::create_dir_all(&place.dir).ok()?;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(place.dir.join(REFRESH_LOCK))
        .ok()?;
    // Polled rather than waited for on a blocking thread: a runtime shutting down would wait
    // for that thread, and so for another process, however long it held the lock.
    let deadline = tokio::time::Instant::now() + total;
    loop {
        match file.try_lock() {
            Ok(()) => return Some(file),
            Err(std::fs::TryLockError::WouldBlock) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(LOCK_POLL).await;
            }
            Err(_) => return None,
        }
    }
}

/// Fetches and reads the catalog.
async fn fetch(
    place: &Place,
    config: &SkillsConfig,
    hooks: &Hooks,
    total: Duration,
) -> Result<Catalog, Error> {
    let client = install::client(install::policy_of(config)?, hooks, total)?;
    let bytes = client
        .fetch(&place.url, MAX_CATALOG_BYTES)
        .await
        .map_err(|error| install::fetch_failure(&place.url, error, &client.settings().policy))?;
    let (entries, skipped) = super::parse_catalog(&bytes).map_err(|reason| Error::Download {
        url: place.shown.clone(),
        reason,
        kind: "invalid_catalog",
    })?;
    Ok(Catalog {
        entries,
        fetched_at: now(),
        skipped,
        warnings: Vec::new(),
        written: skills_ops::fs::unique_suffix(),
    })
}
