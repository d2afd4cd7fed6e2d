//! `cargo xtask`: the repository's own automation, written in Rust so that it runs wherever
//! cargo does (the `xtask` pattern; the alias lives in `.cargo/config.toml`).
//!
//! `ci` is the single command CI and `.ci/run` execute (06 §CI); `tidy` runs its in-process
//! convention checks alone; `fuzz` drives the cargo-fuzz targets (06 §Safety and reliability),
//! which are not part of CI; `codegen` writes `docs/rpc.md` from the RPC schemas; `bench` measures discovery against a floor on synthetic trees
//! (06 §Performance) and `skills audit` against its peers (issue 31). The crate uses `std` and, on Unix, `nix`'s safe `getrusage` for the
//! bench's peak-memory figure, so building it costs CI almost nothing.

mod bench;
mod ci;
mod codegen;
mod fuzz;
mod process;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
Usage: cargo xtask <command>

Commands:
  ci                                 run every check CI runs, in order, stopping at the first failure
  tidy                               run the in-process convention checks alone (step 2 of ci)
  codegen [--check]                  write docs/rpc.md from the RPC schemas (--check: only
                                     compare, fail when it is stale)
  fuzz --seconds N [--target NAME]   run each cargo-fuzz target (or NAME) for N seconds (nightly)
  bench [--quick] [--skills N]... [--shape S]... [--runs N] [--no-peers] [--no-catalog]
        [--catalog-only] [--no-runtime] [--runtime-only] [--relevance-only]
        [--relevance-skills DIR] [--no-audit] [--audit-only] [--audit-set DIR]
        [--audit-corpus DIR]
                                     time discovery against a floor on synthetic trees of 1,000
                                     and 10,000 skills, realistic and classic shapes, beside the
                                     Node peers (--quick: 1,000 only; --skills N: other sizes;
                                     --shape realistic|classic: one shape; --no-peers: skip the
                                     npm install); prints a table, writes target/bench/report.json;
                                     then the registry catalog rows (refresh of a 25+ MB catalog
                                     from loopback, cached search, 304 revalidation, peak RSS),
                                     written to target/bench/catalog.json (--no-catalog: skip
                                     them; --catalog-only: only them); then the runtime row
                                     (skills run of a trivial Python script beside python3
                                     running it, and the binary's start), written to
                                     target/bench/runtime.json (--no-runtime, --runtime-only);
                                     then the relevance rows (recall@1 and recall@5 of ranked
                                     search over the example skills and a synthetic 10,000-skill
                                     tree, and the query's latency in process; real public
                                     skills from --relevance-skills DIR, alone and among 10,000),
                                     written to target/bench/relevance.json (--relevance-only:
                                     only them);
                                     then the audit rows (skills audit beside Cisco's
                                     skill-scanner and skillfortify from PyPI, offline:
                                     precision/recall/F1 on SkillFortifyBench, --audit-set DIR;
                                     flags on a real corpus of public skills, --audit-corpus
                                     DIR; ms per skill), written to target/bench/audit.json
                                     (--no-audit, --audit-only; --no-peers: ours alone)
  help                               print this text
";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let command = args.next();
    let rest: Vec<String> = args.collect();
    let root = project_root();
    let outcome = match command.as_deref() {
        Some("ci") if rest.is_empty() => ci::run(&root),
        Some("tidy") if rest.is_empty() => tidy::run(&root),
        Some("codegen") if rest.is_empty() => codegen::run(&root, false),
        Some("codegen") if rest == ["--check"] => codegen::run(&root, true),
        Some("codegen") => return usage_error("`codegen` takes only `--check`"),
        Some("fuzz") => match fuzz::Args::parse(&rest) {
            Ok(args) => fuzz::run(&root, &args),
            Err(message) => return usage_error(&message),
        },
        Some("bench") => match bench::Args::parse(&rest) {
            Ok(args) => bench::run(&root, &args),
            Err(message) => return usage_error(&message),
        },
        // Internal: the bench's peak-memory wrapper (`xtask __rss -- CMD...`).
        Some("__rss") => return bench::rss_main(&rest),
        // Internal: the floor and full-read walks, run from a release build by the bench.
        Some("__walk") => return bench::walk_main(&rest),
        // Internal: writes one bench tree to keep (`xtask __tree SHAPE SKILLS DIR`), for
        // timing two builds on the same tree by hand.
        Some("__tree") => return bench::tree_main(&rest),
        // Internal: the size rows' breakdown by crate of one unstripped binary
        // (`xtask __size BINARY`), for a binary built by hand.
        Some("__size") => return bench::size_main(&rest),
        // Internal: writes the relevance rows' synthetic tree and queries to keep
        // (`xtask __relevance-tree DIR`), for running the `search` bench by hand.
        Some("__relevance-tree") => return bench::relevance_tree_main(&root, &rest),
        Some("help" | "--help" | "-h") => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(command @ ("ci" | "tidy")) => {
            return usage_error(&format!("`{command}` takes no arguments"));
        }
        Some(other) => return usage_error(&format!("unknown command `{other}`")),
        None => return usage_error("no command given"),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            eprintln!("hint: {}", failure.hint);
            ExitCode::FAILURE
        }
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

/// Why a command failed, and the one thing to do about it.
#[derive(Debug)]
pub(crate) struct Failure {
    /// What went wrong, one line.
    pub(crate) message: String,
    /// How to fix it, one line.
    pub(crate) hint: String,
}

impl Failure {
    pub(crate) fn new(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hint: hint.into(),
        }
    }
}

/// The repository root: the parent of this crate's directory, fixed at compile time so every
/// command works from any current directory.
pub(crate) fn project_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map_or_else(|| manifest_dir.to_path_buf(), Path::to_path_buf)
}
