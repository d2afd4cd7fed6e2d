//! The in-process half of the relevance rows of `cargo xtask bench` (issue 16): ranked search
//! the way a long-lived agent core calls it, over an [`OpenIndex`] and a catalog it holds, on
//! a tree the xtask generated. It prints one JSON line on stdout:
//!
//! ```text
//! {"skills":10000,"first_ns":1234567,"recheck_ns":[...],"one_off_ns":[...],
//!  "ranked":[["name","name",...],...],"query_ns":[...]}
//! ```
//!
//! - `first_ns`: the first search, which builds the index in the home's cache folder (the
//!   xtask hands a fresh home, so nothing is there yet).
//! - `recheck_ns`: a search under a new generation of the same catalog, as after a watch
//!   reported a change that touched no skill: every stamp is checked, nothing re-indexed.
//! - `one_off_ns`: `search::search`, which discovers and checks the index on every call (what
//!   a process that keeps nothing pays).
//! - `ranked`: the names each query (one per line of `--queries`, in order) ranked first to
//!   fifth, for the recall figures.
//! - `query_ns`: every query timed `--runs` times over the open index with an unchanged
//!   catalog: the path of a watching agent core between two changes.
//!
//! Arguments: `--workspace DIR --home DIR --queries FILE [--runs N]`. Without `--workspace`
//! and `--home` (a bare `cargo bench`) it prints how to run the real benchmark and succeeds:
//! the tree is built by the xtask, not here.
//!
//! It lives here rather than beside the facade's `discover` bench because the facade does not
//! offer the open index yet; it measures the same code the facade delegates to.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use skills_ops::discover::discover;
use skills_ops::search::{self, OpenIndex};
use skills_types::SkillsConfig;
use skills_types::config::TrustPolicy;

const USAGE: &str = "usage: search --workspace DIR --home DIR --queries FILE [--runs N] \
                     (the benchmark is `cargo xtask bench --relevance-only`, which builds the tree)";

/// Results asked of every query: recall@5 needs five.
const LIMIT: usize = 5;

/// Samples of the costly paths (a re-check and a one-off search take tens of milliseconds).
const SLOW_SAMPLES: usize = 5;

struct Args {
    workspace: PathBuf,
    home: PathBuf,
    queries: PathBuf,
    runs: usize,
}

/// The arguments; `Ok(None)` when no tree was given.
fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Args>, String> {
    let mut workspace = None;
    let mut home = None;
    let mut queries = None;
    let mut runs = 20;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{arg}` needs a value"));
        match arg.as_str() {
            "--workspace" => workspace = Some(PathBuf::from(value()?)),
            "--home" => home = Some(PathBuf::from(value()?)),
            "--queries" => queries = Some(PathBuf::from(value()?)),
            "--runs" => {
                let text = value()?;
                runs = text
                    .parse()
                    .ok()
                    .filter(|runs| *runs > 0)
                    .ok_or_else(|| format!("`--runs` wants a positive number, not `{text}`"))?;
            }
            // `cargo bench` passes `--bench` to every bench target.
            "--bench" => {}
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(match (workspace, home, queries) {
        (Some(workspace), Some(home), Some(queries)) => Some(Args {
            workspace,
            home,
            queries,
            runs,
        }),
        (None, None, None) => None,
        _ => return Err("give `--workspace`, `--home` and `--queries`".to_owned()),
    })
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            eprintln!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match measure(&args) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn measure(args: &Args) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(&args.queries)
        .map_err(|error| format!("could not read {}: {error}", args.queries.display()))?;
    let queries: Vec<&str> = text.lines().filter(|line| !line.is_empty()).collect();
    let Some(first_query) = queries.first() else {
        return Err(format!("{} holds no query", args.queries.display()));
    };
    let mut config = SkillsConfig::new(&args.workspace, &args.home);
    // Trusted for the run (as `--trust-workspace` does), so nothing is written to the home
    // but the caches.
    config.trust = TrustPolicy::Always;
    let catalog = discover(&config).map_err(|error| format!("discovery failed: {error}"))?;
    let open = OpenIndex::default();
    let failed = |error: skills_types::Error| format!("search failed: {error}");

    let started = Instant::now();
    open.search(&config, &catalog, 0, first_query, LIMIT)
        .map_err(failed)?;
    let first = started.elapsed();

    let mut recheck = Vec::new();
    for generation in 1..=SLOW_SAMPLES as u64 {
        let started = Instant::now();
        let hits = open
            .search(&config, &catalog, generation, first_query, LIMIT)
            .map_err(failed)?;
        recheck.push(started.elapsed());
        std::hint::black_box(hits);
    }
    let mut one_off = Vec::new();
    for _ in 0..SLOW_SAMPLES {
        let started = Instant::now();
        let hits = search::search(&config, first_query, LIMIT).map_err(failed)?;
        one_off.push(started.elapsed());
        std::hint::black_box(hits);
    }

    // One generation from here on: the catalog the agent core holds between two changes.
    let generation = SLOW_SAMPLES as u64;
    let mut ranked = Vec::new();
    for query in &queries {
        let hits = open
            .search(&config, &catalog, generation, query, LIMIT)
            .map_err(failed)?;
        ranked.push(hits.into_iter().map(|hit| hit.name).collect::<Vec<_>>());
    }
    let mut timed = Vec::with_capacity(queries.len() * args.runs);
    for _ in 0..args.runs {
        for query in &queries {
            let started = Instant::now();
            let hits = open
                .search(&config, &catalog, generation, query, LIMIT)
                .map_err(failed)?;
            timed.push(started.elapsed());
            std::hint::black_box(hits);
        }
    }
    Ok(serde_json::json!({
        "skills": catalog.skills.len(),
        "first_ns": nanos(first),
        "recheck_ns": recheck.into_iter().map(nanos).collect::<Vec<_>>(),
        "one_off_ns": one_off.into_iter().map(nanos).collect::<Vec<_>>(),
        "ranked": ranked,
        "query_ns": timed.into_iter().map(nanos).collect::<Vec<_>>(),
    }))
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}
