//! The in-process half of `cargo xtask bench` (06 §Performance): times
//! `Skills::discover` called as an agent core calls it, in a long-lived process, on a tree
//! the xtask generated, and prints the per-call durations as one JSON line on stdout:
//!
//! ```text
//! {"skills":9800,"shadowed":200,"diagnostics":50,"runs_ns":[41234567,40987654,41555555]}
//! ```
//!
//! Arguments: `--workspace DIR --home DIR [--cache on|off] [--runs N]`. One untimed call comes
//! first, so the timings are the steady state (thread pool started, page cache and catalog
//! cache as the caller left them), not the process's first call. Each timing ends when
//! `discover` returns: dropping the catalog is the caller's business, not discovery's.
//!
//! Without `--workspace` and `--home` (a bare `cargo bench`) it prints how to run the real
//! benchmark and succeeds: the trees are built by the xtask, not here.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use skills::{Skills, SkillsConfig};

const USAGE: &str = "usage: discover --workspace DIR --home DIR [--cache on|off] [--runs N] \
                     (the benchmark is `cargo xtask bench`, which builds the trees)";

struct Args {
    workspace: PathBuf,
    home: PathBuf,
    cache: bool,
    runs: usize,
}

/// The arguments; `Ok(None)` when no tree was given.
fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Args>, String> {
    let mut workspace = None;
    let mut home = None;
    let mut cache = true;
    let mut runs = 5;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{arg}` needs a value"));
        match arg.as_str() {
            "--workspace" => workspace = Some(PathBuf::from(value()?)),
            "--home" => home = Some(PathBuf::from(value()?)),
            "--cache" => {
                cache = match value()?.as_str() {
                    "on" => true,
                    "off" => false,
                    other => return Err(format!("`--cache` is `on` or `off`, not `{other}`")),
                }
            }
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
    Ok(match (workspace, home) {
        (Some(workspace), Some(home)) => Some(Args {
            workspace,
            home,
            cache,
            runs,
        }),
        (None, None) => None,
        _ => return Err("give both `--workspace` and `--home`".to_owned()),
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
    let mut config = SkillsConfig::new(&args.workspace, &args.home);
    config.cache = args.cache;
    // The bench's workspace is trusted for the run (as `--trust-workspace` does for the
    // binary), so no record is written into the bench's home.
    config.trust = skills::catalog::TrustPolicy::Always;
    let skills = Skills::new(config);
    let catalog = match skills.discover() {
        Ok(catalog) => catalog,
        Err(error) => {
            eprintln!("error: discovery failed: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut runs_ns = Vec::with_capacity(args.runs);
    for _ in 0..args.runs {
        let started = Instant::now();
        let outcome = skills.discover();
        let elapsed = started.elapsed();
        if let Err(error) = std::hint::black_box(outcome) {
            eprintln!("error: discovery failed: {error}");
            return ExitCode::FAILURE;
        }
        runs_ns.push(elapsed.as_nanos().to_string());
    }
    println!(
        "{{\"skills\":{},\"shadowed\":{},\"diagnostics\":{},\"runs_ns\":[{}]}}",
        catalog.skills.len(),
        catalog.shadowed.len(),
        catalog.diagnostics.len(),
        runs_ns.join(",")
    );
    ExitCode::SUCCESS
}
