//! The live catalog's half of `cargo xtask bench` (08 §The live catalog): on a tree the xtask
//! generated, a watching handle (`Skills::watch`, as an agent core holds it) and, per run, one
//! definition file edited on disk; the time from the write to the `catalog_changed` naming
//! that skill is one sample. It also times `Skills::search` on that handle, the way a
//! long-lived core asks while it watches. Prints one JSON line on stdout:
//!
//! ```text
//! {"skills":9800,"debounce_ms":300,"change_ns":[...],"search_ns":[...]}
//! ```
//!
//! Arguments: `--workspace DIR --home DIR [--runs N] [--debounce-ms MS] [--query TEXT]...`.
//! Without `--workspace` and `--home` (a bare `cargo bench`) it prints how to run the real
//! benchmark and succeeds: the trees are built by the xtask, not here.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use skills::{Skills, SkillsConfig};

const USAGE: &str = "usage: live --workspace DIR --home DIR [--runs N] [--debounce-ms MS] \
                     [--query TEXT]... (the benchmark is `cargo xtask bench`, which builds the \
                     trees)";

/// How long one change may take to be reported before the bench gives up on it.
const PATIENCE: Duration = Duration::from_secs(30);

struct Args {
    workspace: PathBuf,
    home: PathBuf,
    runs: usize,
    debounce_ms: u64,
    queries: Vec<String>,
}

/// The arguments; `Ok(None)` when no tree was given.
fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Args>, String> {
    let mut workspace = None;
    let mut home = None;
    let mut runs = 5;
    let mut debounce_ms = 300;
    let mut queries = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{arg}` needs a value"));
        match arg.as_str() {
            "--workspace" => workspace = Some(PathBuf::from(value()?)),
            "--home" => home = Some(PathBuf::from(value()?)),
            "--runs" => runs = positive(&value()?, "--runs")?,
            "--debounce-ms" => debounce_ms = positive(&value()?, "--debounce-ms")?,
            "--query" => queries.push(value()?),
            // `cargo bench` passes `--bench` to every bench target.
            "--bench" => {}
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(match (workspace, home) {
        (Some(workspace), Some(home)) => Some(Args {
            workspace,
            home,
            runs,
            debounce_ms,
            queries,
        }),
        (None, None) => None,
        _ => return Err("give both `--workspace` and `--home`".to_owned()),
    })
}

fn positive<T: std::str::FromStr + PartialOrd + Default>(
    text: &str,
    flag: &str,
) -> Result<T, String> {
    text.parse()
        .ok()
        .filter(|number| *number > T::default())
        .ok_or_else(|| format!("`{flag}` wants a positive number, not `{text}`"))
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

fn measure(args: &Args) -> Result<String, String> {
    let mut config = SkillsConfig::new(&args.workspace, &args.home);
    // Trusted for the run, as `--trust-workspace` does for the binary: nothing is recorded.
    config.trust = skills::catalog::TrustPolicy::Always;
    let skills = Skills::new(config);
    let mut options = skills::watch::Options::default();
    options.debounce = Duration::from_millis(args.debounce_ms);
    let mut watch = skills.watch(&options).map_err(|error| error.to_string())?;
    let count = match watch.blocking_next() {
        Some(skills::watch::Event::Ready { skills, .. }) => skills,
        other => return Err(format!("the watch did not start: {other:?}")),
    };
    let catalog = skills.discover().map_err(|error| error.to_string())?;
    // The edited skills: spread over the catalog, each edited once, so no sample is helped
    // by the cache state a previous one left.
    let step = (catalog.skills.len() / args.runs.max(1)).max(1);
    let targets: Vec<&skills::Skill> = catalog.skills.iter().step_by(step).collect();
    let mut change_ns = Vec::new();
    for (run, skill) in targets.iter().cycle().take(args.runs).enumerate() {
        let text = std::fs::read_to_string(&skill.location)
            .map_err(|error| format!("{}: {error}", skill.location.display()))?;
        let edited = format!("{text}\n<!-- live bench edit {run} -->\n");
        let started = Instant::now();
        std::fs::write(&skill.location, edited)
            .map_err(|error| format!("{}: {error}", skill.location.display()))?;
        loop {
            let remaining = PATIENCE.saturating_sub(started.elapsed());
            if remaining.is_zero() {
                return Err(format!(
                    "no change reported for {} within {PATIENCE:?}",
                    skill.id
                ));
            }
            match next_within(&mut watch, remaining) {
                Some(skills::watch::Event::CatalogChanged { changed, .. })
                    if changed.contains(&skill.id) =>
                {
                    change_ns.push(started.elapsed().as_nanos());
                    break;
                }
                Some(_) => {}
                None => return Err("the watch stopped".to_owned()),
            }
        }
    }
    let mut search_ns = Vec::new();
    for query in &args.queries {
        // One untimed call brings the index up to date with the watched catalog.
        drop(skills.search(query, 5));
        for _ in 0..args.runs {
            let started = Instant::now();
            let hits = skills.search(query, 5);
            search_ns.push(started.elapsed().as_nanos());
            std::hint::black_box(hits).map_err(|error| error.to_string())?;
        }
    }
    let list = |values: &[u128]| {
        values
            .iter()
            .map(u128::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    Ok(format!(
        "{{\"skills\":{count},\"debounce_ms\":{},\"change_ns\":[{}],\"search_ns\":[{}]}}",
        args.debounce_ms,
        list(&change_ns),
        list(&search_ns)
    ))
}

/// The next event within `patience`, polled without an async runtime.
fn next_within(
    watch: &mut skills::watch::Watch,
    patience: Duration,
) -> Option<skills::watch::Event> {
    let started = Instant::now();
    loop {
        if let Some(event) = watch.try_next() {
            return Some(event);
        }
        if started.elapsed() >= patience {
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}
