//! The registry catalog rows of `cargo xtask bench` (issue 12 §Acceptance): the `catalog`
//! registry refreshing a generated Hermes `skills.json` of the real size (more than 25 MB,
//! 52,000 entries; `skills_tests::catalog`) from the loopback fixture server, through the
//! release `skills` binary.
//!
//! Three figures, each the median of a few runs: the first refresh (no cache: download,
//! streaming parse, cache write, then the search), a search answered from the fresh cache (no
//! request), and the revalidation of a stale cache (one conditional request answered `304`).
//! Peak RSS of the first refresh and of the cached search comes from the same `__rss` wrapper
//! as the tree rows (`getrusage(RUSAGE_CHILDREN)` of a process whose only child is the
//! command); the target for the refresh is 64 MiB.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use skills_tests::catalog::{self, NEEDLE_WORD, Shape};
use skills_tests::http::{Reply, Server};

use super::report;
use crate::Failure;

/// Runs of each figure; the median is reported.
const RUNS: usize = 5;
/// The application directory the bench home uses.
const APP_DIR: &str = ".openhuman";
/// The cache folder under it.
const CACHE: &str = "skill-registry";
/// What the refresh of the real-size catalog should stay under.
pub(crate) const RSS_TARGET_KIB: u64 = 64 * 1024;

/// What the catalog rows measured.
#[derive(Debug)]
pub(crate) struct CatalogRun {
    pub(crate) bytes: usize,
    pub(crate) entries: usize,
    pub(crate) first_refresh: Duration,
    pub(crate) cached_search: Duration,
    pub(crate) revalidation: Duration,
    pub(crate) rss_first_kib: Option<u64>,
    pub(crate) rss_cached_kib: Option<u64>,
    /// Catalog requests the server saw, and how many were answered `304`.
    pub(crate) requests: usize,
    pub(crate) not_modified: usize,
}

impl CatalogRun {
    /// The rows for the table.
    pub(crate) fn table(&self) -> String {
        let kib = |figure: Option<u64>| {
            figure.map_or("not measured".to_owned(), |kib| {
                format!("{:.1} MiB", kib as f64 / 1024.0)
            })
        };
        let within = match self.rss_first_kib {
            Some(kib) if kib <= RSS_TARGET_KIB => "within the 64 MiB target",
            Some(_) => "OVER the 64 MiB target",
            None => "",
        };
        format!(
            "registry catalog: {:.1} MB, {} entries, from a loopback server (median of {RUNS})\n\
             {:<44} {:>9.0} ms   peak RSS {} {within}\n\
             {:<44} {:>9.0} ms   peak RSS {}\n\
             {:<44} {:>9.0} ms\n\
             catalog requests: {} ({} answered 304)\n",
            self.bytes as f64 / 1e6,
            report::thousands(self.entries),
            "first refresh + search (no cache)",
            self.first_refresh.as_secs_f64() * 1e3,
            kib(self.rss_first_kib),
            "search from the cache (no request)",
            self.cached_search.as_secs_f64() * 1e3,
            kib(self.rss_cached_kib),
            "revalidation of a stale cache (304)",
            self.revalidation.as_secs_f64() * 1e3,
            self.requests,
            self.not_modified,
        )
    }

    /// The figures as a JSON object.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "catalog_bytes": self.bytes,
            "catalog_entries": self.entries,
            "first_refresh_ms": self.first_refresh.as_secs_f64() * 1e3,
            "cached_search_ms": self.cached_search.as_secs_f64() * 1e3,
            "revalidation_ms": self.revalidation.as_secs_f64() * 1e3,
            "peak_rss_first_refresh_kib": self.rss_first_kib,
            "peak_rss_cached_search_kib": self.rss_cached_kib,
            "rss_target_kib": RSS_TARGET_KIB,
            "catalog_requests": self.requests,
            "not_modified": self.not_modified,
        })
    }
}

/// Measures the catalog rows with the release `skills` at `skills`, in `scratch`.
pub(crate) fn measure(scratch: &Path, skills: &Path) -> Result<CatalogRun, Failure> {
    let shape = Shape::default();
    let body = catalog::generate(&shape);
    let bytes = body.len();
    let server = Server::start().map_err(|error| {
        Failure::new(
            format!("could not start the loopback fixture server: {error}"),
            "check that 127.0.0.1 accepts connections",
        )
    })?;
    let path = "/api/skills.json";
    server.route(
        path,
        Reply::Conditional {
            body,
            etag: "\"bench-v1\"".to_owned(),
            last_modified: "Wed, 02 Dec 2026 10:00:00 GMT".to_owned(),
        },
    );
    let home = scratch.join("catalog-home");
    let workspace = scratch.join("catalog-workspace");
    for dir in [&home, &workspace] {
        fs::create_dir_all(dir).map_err(|error| io_failure(dir, &error))?;
    }
    let search = |skills: &Path| {
        let mut command = Command::new(skills);
        command
            .arg("--home")
            .arg(&home)
            .arg("--workspace")
            .arg(&workspace)
            .args(["--json", "registry", "search", NEEDLE_WORD])
            .env("SKILLS_REGISTRY_CATALOG_URL", server.url(path))
            .env("SKILLS_INSTALL_ALLOW_LOCAL_HTTP", "1")
            .env_remove("SKILLS_HOME")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    let cache = home.join(APP_DIR).join(CACHE);
    let clear = || match fs::remove_dir_all(&cache) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(io_failure(&cache, &error))
        }
        _ => Ok(()),
    };
    println!(
        "\n==> registry catalog: {bytes} bytes, {} entries",
        shape.entries
    );
    // Untimed check: the search finds the one entry that holds the word.
    clear()?;
    let (_, output) = run(&mut search(skills))?;
    if !String::from_utf8_lossy(&output).contains(catalog::NEEDLE) {
        return Err(Failure::new(
            "`skills registry search` did not find the needle entry in the generated catalog",
            "run the command by hand against the fixture to see why",
        ));
    }
    let mut first = Vec::new();
    let mut cached = Vec::new();
    let mut revalidated = Vec::new();
    for _ in 0..RUNS {
        clear()?;
        first.push(run(&mut search(skills))?.0);
        cached.push(run(&mut search(skills))?.0);
        age(&cache.join("cache.json"))?;
        revalidated.push(run(&mut search(skills))?.0);
        print!(".");
        let _ = std::io::Write::flush(&mut std::io::stdout());
    }
    println!();
    let rss = |cold: bool| -> Result<Option<u64>, Failure> {
        let Ok(xtask) = std::env::current_exe() else {
            return Ok(None);
        };
        let mut figures = Vec::new();
        for _ in 0..RUNS {
            if cold {
                clear()?;
            }
            let inner = search(skills);
            let mut command = Command::new(&xtask);
            command
                .args(["__rss", "--"])
                .arg(inner.get_program())
                .args(inner.get_args());
            for (key, value) in inner.get_envs() {
                match value {
                    Some(value) => command.env(key, value),
                    None => command.env_remove(key),
                };
            }
            command.stdout(Stdio::piped()).stderr(Stdio::piped());
            let (_, output) = run(&mut command)?;
            match String::from_utf8_lossy(&output).trim().parse::<u64>() {
                Ok(kib) => figures.push(kib),
                Err(_) => return Ok(None),
            }
        }
        Ok(report::median(&figures))
    };
    let rss_first_kib = rss(true)?;
    let rss_cached_kib = rss(false)?;
    let hits: Vec<_> = server
        .hits()
        .into_iter()
        .filter(|hit| hit.target == path)
        .collect();
    let not_modified = hits
        .iter()
        .filter(|hit| hit.header("if-none-match") == Some("\"bench-v1\""))
        .count();
    Ok(CatalogRun {
        bytes,
        entries: shape.entries,
        first_refresh: median(&first),
        cached_search: median(&cached),
        revalidation: median(&revalidated),
        rss_first_kib,
        rss_cached_kib,
        requests: hits.len(),
        not_modified,
    })
}

/// Runs `command` to completion; its wall time and standard output.
fn run(command: &mut Command) -> Result<(Duration, Vec<u8>), Failure> {
    super::timed(
        command,
        "run the command by hand against the fixture to see why",
    )
}

/// Moves the cache's fetch time two hours into the past, so the next search revalidates.
fn age(header: &PathBuf) -> Result<(), Failure> {
    let text = fs::read(header).map_err(|error| io_failure(header, &error))?;
    let mut value: serde_json::Value = serde_json::from_slice(&text).map_err(|error| {
        Failure::new(
            format!("{} is not JSON: {error}", header.display()),
            "the cache header format changed; update the bench",
        )
    })?;
    let fetched_at = value["fetched_at"].as_u64().unwrap_or(0);
    value["fetched_at"] = serde_json::json!(fetched_at.saturating_sub(2 * 3600));
    fs::write(header, value.to_string()).map_err(|error| io_failure(header, &error))
}

fn median(samples: &[Duration]) -> Duration {
    let nanos: Vec<u64> = samples
        .iter()
        .map(|sample| u64::try_from(sample.as_nanos()).unwrap_or(u64::MAX))
        .collect();
    Duration::from_nanos(report::median(&nanos).unwrap_or(0))
}

fn io_failure(path: &Path, error: &std::io::Error) -> Failure {
    Failure::new(
        format!("{}: {error}", path.display()),
        "check the temporary directory's permissions and free space",
    )
}
