//! `cargo xtask bench`: the benchmark of 06 §Performance and issue 11 §5. It builds the
//! `skills` binary, the in-process `discover` bench and xtask itself (for the floor) in
//! release mode, generates synthetic trees ([`tree`]) of 1,000 and 10,000 skills in both
//! shapes (realistic and classic) in a fresh temporary directory, installs the Node peers
//! ([`peers`]) for the realistic 1,000-skill tree, and times every contender on the same tree,
//! in the same page-cache state, against the floor ([`walk`]); then it prints the table and
//! writes `target/bench/report.json` ([`report`]).
//!
//! Machines here are shared and noisy, so every figure is the median of several runs, one
//! untimed warm-up pass comes first, the contenders take turns within each repetition (the
//! order rotates, so none always runs right after the same neighbour), and only ratios within
//! one run are reported as meaningful: nothing here compares a time with a constant.
//!
//! The audit rows ([`audit`]) come last: `skills audit` beside Cisco's `skill-scanner` and
//! `skillfortify` on SkillFortifyBench and a real corpus, both given by the person running the
//! bench (`--audit-set DIR`, `--audit-corpus DIR`), written to `target/bench/audit.json`.
//!
//! Peak memory is measured by re-running xtask as a tiny wrapper (`xtask __rss -- CMD...`,
//! [`rss`]) whose only child is the measured command, so `RUSAGE_CHILDREN` is that command's.

mod audit;
mod catalog;
mod live;
mod peers;
mod relevance;
mod report;
mod rss;
mod runtime;
mod size;
mod tree;
mod walk;

use std::fs;
use std::io::{self, BufRead as _, Read, Write as _};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::Failure;
use crate::process::{self, cargo};

pub(crate) use relevance::tree_main as relevance_tree_main;
pub(crate) use rss::main as rss_main;
pub(crate) use size::main as size_main;
pub(crate) use walk::main as walk_main;

/// `xtask __tree SHAPE SKILLS DIR`: writes one bench tree under `DIR` (which must not exist)
/// and keeps it, for timing two builds on the same tree by hand (`docs/benchmark.md`).
pub(crate) fn tree_main(args: &[String]) -> std::process::ExitCode {
    let usage = "usage: xtask __tree realistic|classic SKILLS DIR";
    let [shape, skills, dir] = args else {
        eprintln!("{usage}");
        return std::process::ExitCode::from(2);
    };
    let (Some(shape), Ok(skills)) = (tree::Shape::parse(shape), skills.parse::<usize>()) else {
        eprintln!("{usage}");
        return std::process::ExitCode::from(2);
    };
    if Path::new(dir).exists() {
        eprintln!("error: {dir} exists; give a new directory");
        return std::process::ExitCode::FAILURE;
    }
    match tree::generate(Path::new(dir), skills, shape) {
        Ok(tree) => {
            println!(
                "{} skills ({} shadowed, {} malformed), {} files; workspace {}, home {}",
                tree.skills,
                tree.shadowed,
                tree.malformed,
                tree.files,
                tree.workspace.display(),
                tree.home.display()
            );
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: could not write the tree under {dir}: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The tree sizes measured by default (06 §Performance).
const DEFAULT_SIZES: [usize; 2] = [1_000, 10_000];

/// The size of the realistic tree the peers list (issue 11 §5): they take about a second
/// per call at this size, which keeps the run within its budget.
pub(crate) const PEER_SIZE: usize = 1_000;

/// Repetitions of every contender by default; each adds one sample per process contender and
/// [`CALLS_PER_RUN`] per in-process one. Measuring both trees takes about a minute here, plus
/// the build: five minutes is the budget.
const DEFAULT_RUNS: usize = 15;

/// Timed calls per run of the in-process contenders (the walks and `discover`), after their
/// own untimed call.
const CALLS_PER_RUN: usize = 3;

/// Runs of the peak-memory wrapper per tree and cache state; the median is reported.
const RSS_RUNS: usize = 3;

/// Timed repetitions of the whole-tree audit ([`Contender::most_runs`]).
const AUDIT_RUNS: usize = 3;

/// Where the report goes, relative to the repository root.
const REPORT_PATH: &str = "target/bench/report.json";
/// Where the registry catalog rows go, relative to the repository root.
const CATALOG_REPORT_PATH: &str = "target/bench/catalog.json";
/// Where the runtime row goes, relative to the repository root.
const RUNTIME_REPORT_PATH: &str = "target/bench/runtime.json";

/// Where the live catalog's rows go, relative to the repository root.
const LIVE_REPORT_PATH: &str = "target/bench/live.json";

/// Where the relevance rows go, relative to the repository root.
const RELEVANCE_REPORT_PATH: &str = "target/bench/relevance.json";

/// Where the binary-size rows go, relative to the repository root.
const SIZE_REPORT_PATH: &str = "target/bench/size.json";

/// Where the audit rows go, relative to the repository root.
const AUDIT_REPORT_PATH: &str = "target/bench/audit.json";

/// The application directory the trees use, and the catalog cache below it in the home.
const CACHE_DIR: &str = ".openhuman/cache";

/// Where `skills audit` records its verdicts under the home (`skills_types::audit::VERDICTS_FILE`
/// in the home's state folder): removed after every audit run, so that the listings timed
/// after it read the same home as those before it (a listing marks the skills it finds there).
const VERDICTS_PATH: &str = ".openhuman/audit-verdicts.json";

/// The parsed command line of `cargo xtask bench`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Args {
    sizes: Vec<usize>,
    shapes: Vec<tree::Shape>,
    runs: usize,
    /// Install and time the Node peers (off with `--no-peers`).
    peers: bool,
    /// Which rows: the trees, the registry catalog, the runtime, or some of them
    /// (`--catalog-only`, `--no-catalog`, `--runtime-only`, `--no-runtime`).
    trees: bool,
    catalog: bool,
    runtime: bool,
    /// The relevance and live catalog rows (off with `--no-relevance` or `--audit-only`).
    relevance: bool,
    /// The binary-size rows, after the trees (off with `--no-size`).
    size: bool,
    /// The audit rows (`--no-audit`, `--audit-only`) and their data sets (`--audit-set DIR`,
    /// `--audit-corpus DIR`); the peers follow `--no-peers`.
    audit: bool,
    audit_set: Option<PathBuf>,
    audit_corpus: Option<PathBuf>,
    /// A folder of real public skills for the real relevance set (`--relevance-skills DIR`).
    relevance_skills: Option<PathBuf>,
}

impl Args {
    pub(crate) fn parse(args: &[String]) -> Result<Self, String> {
        let mut sizes = Vec::new();
        let mut shapes = Vec::new();
        let mut quick = false;
        let mut peers = true;
        let mut trees = true;
        let mut catalog = true;
        let mut runtime = true;
        let mut catalog_only = false;
        let mut runtime_only = false;
        let mut relevance_only = false;
        let mut relevance = true;
        let mut size = true;
        let mut size_only = false;
        let mut audit = true;
        let mut audit_only = false;
        let mut audit_set = None;
        let mut audit_corpus = None;
        let mut relevance_skills = None;
        let mut runs = DEFAULT_RUNS;
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut number = |name: &str, least: usize| {
                let text = args
                    .next()
                    .ok_or_else(|| format!("`{name}` needs a value"))?;
                text.replace(['_', ','], "")
                    .parse::<usize>()
                    .ok()
                    .filter(|value| *value >= least)
                    .ok_or_else(|| format!("`{name}` wants a whole number ≥ {least}, not `{text}`"))
            };
            match arg.as_str() {
                "--quick" => quick = true,
                "--no-peers" => peers = false,
                "--no-catalog" => catalog = false,
                "--catalog-only" => catalog_only = true,
                "--no-runtime" => runtime = false,
                "--runtime-only" => runtime_only = true,
                "--relevance-only" => relevance_only = true,
                "--no-relevance" => relevance = false,
                "--no-size" => size = false,
                "--size-only" => size_only = true,
                "--no-audit" => audit = false,
                "--audit-only" => audit_only = true,
                "--relevance-skills" => {
                    let dir = args
                        .next()
                        .filter(|dir| !dir.starts_with("--"))
                        .ok_or("`--relevance-skills` needs a folder")?;
                    if relevance_skills.replace(PathBuf::from(dir)).is_some() {
                        return Err("`--relevance-skills` is given once".to_owned());
                    }
                }
                "--audit-set" | "--audit-corpus" => {
                    let dir = args
                        .next()
                        .filter(|dir| !dir.starts_with("--"))
                        .ok_or_else(|| format!("`{arg}` needs a folder"))?;
                    let slot = if arg == "--audit-set" {
                        &mut audit_set
                    } else {
                        &mut audit_corpus
                    };
                    if slot.replace(PathBuf::from(dir)).is_some() {
                        return Err(format!("`{arg}` is given once"));
                    }
                }
                "--shape" => {
                    let text = args.next().ok_or("`--shape` needs a value")?;
                    shapes.push(tree::Shape::parse(text).ok_or_else(|| {
                        format!("`--shape` is `realistic` or `classic`, not `{text}`")
                    })?);
                }
                "--skills" => sizes.push(number("--skills", 10)?),
                "--runs" => runs = number("--runs", 3)?,
                other => return Err(format!("unknown argument `{other}` for `bench`")),
            }
        }
        if quick && !sizes.is_empty() {
            return Err("`--quick` and `--skills` cannot be combined".to_owned());
        }
        if quick {
            sizes.push(DEFAULT_SIZES[0]);
        }
        if sizes.is_empty() {
            sizes.extend(DEFAULT_SIZES);
        }
        sizes.sort_unstable();
        sizes.dedup();
        if shapes.is_empty() {
            shapes.extend(tree::Shape::ALL);
        }
        shapes.dedup();
        if catalog_only && runtime_only {
            return Err("`--catalog-only` and `--runtime-only` cannot be combined".to_owned());
        }
        if catalog_only {
            if !catalog {
                return Err("`--catalog-only` and `--no-catalog` cannot be combined".to_owned());
            }
            (trees, runtime) = (false, false);
        }
        if runtime_only {
            if !runtime {
                return Err("`--runtime-only` and `--no-runtime` cannot be combined".to_owned());
            }
            (trees, catalog) = (false, false);
        }
        if relevance_only {
            if !relevance {
                return Err("`--relevance-only` and `--no-relevance` cannot be combined".to_owned());
            }
            if catalog_only || runtime_only {
                return Err("`--relevance-only` takes no other `--...-only`".to_owned());
            }
            (trees, catalog, runtime) = (false, false, false);
        }
        if audit_only {
            if catalog_only || runtime_only || relevance_only {
                return Err("`--audit-only` takes no other `--...-only`".to_owned());
            }
            if !audit {
                return Err("`--audit-only` and `--no-audit` cannot be combined".to_owned());
            }
            (trees, catalog, runtime, relevance) = (false, false, false, false);
        }
        if size_only {
            if catalog_only || runtime_only || relevance_only || audit_only {
                return Err("`--size-only` takes no other `--...-only`".to_owned());
            }
            if !size {
                return Err("`--size-only` and `--no-size` cannot be combined".to_owned());
            }
            (trees, catalog, runtime, relevance, audit) = (false, false, false, false, false);
        }
        if !trees && !size_only {
            // The size rows follow the trees; the other `--...-only` runs leave them out.
            size = false;
        }
        if !audit && (audit_set.is_some() || audit_corpus.is_some()) {
            return Err(
                "`--no-audit` and `--audit-set`/`--audit-corpus` cannot be combined".to_owned(),
            );
        }
        Ok(Self {
            sizes,
            shapes,
            runs,
            peers,
            trees,
            catalog,
            runtime,
            relevance,
            size,
            audit,
            audit_set,
            audit_corpus,
            relevance_skills,
        })
    }
}

/// Everything measured, in the order of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Contender {
    Floor,
    FullRead,
    Startup,
    ListWarm,
    ListAudited,
    ListCold,
    Mcp,
    DiscoverWarm,
    DiscoverNoCache,
    Prompt,
    Validate,
    Read,
    Audit,
    PeerNodeStart,
    PeerOpenskills,
    PeerVercelSkills,
}

impl Contender {
    /// This program's contenders and the floors, measured on every tree.
    pub(crate) const PRODUCT: [Self; 13] = [
        Self::Floor,
        Self::FullRead,
        Self::Startup,
        Self::ListWarm,
        Self::ListAudited,
        Self::ListCold,
        Self::Mcp,
        Self::DiscoverWarm,
        Self::DiscoverNoCache,
        Self::Prompt,
        Self::Validate,
        Self::Read,
        Self::Audit,
    ];

    /// The Node peers, measured on the realistic [`PEER_SIZE`]-skill tree.
    pub(crate) const PEERS: [Self; 3] = [
        Self::PeerNodeStart,
        Self::PeerOpenskills,
        Self::PeerVercelSkills,
    ];

    /// The most timed repetitions of this contender on a tree: a whole-tree audit takes
    /// seconds at 10,000 skills, so it is timed in the first few repetitions only.
    fn most_runs(self) -> usize {
        match self {
            Self::Audit => AUDIT_RUNS,
            _ => usize::MAX,
        }
    }

    fn peer(self) -> Option<peers::Peer> {
        match self {
            Self::PeerNodeStart => Some(peers::Peer::NodeStart),
            Self::PeerOpenskills => Some(peers::Peer::Openskills),
            Self::PeerVercelSkills => Some(peers::Peer::VercelSkills),
            _ => None,
        }
    }

    /// The stable name in the JSON report.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Self::Floor => "floor",
            Self::FullRead => "full_read",
            Self::Startup => "process_start",
            Self::ListWarm => "list_json_warm_cache",
            Self::ListAudited => "list_json_warm_cache_every_skill_audited",
            Self::ListCold => "list_json_cold_cache",
            Self::Mcp => "mcp_initialize_tools_first_resources_page_warm_cache",
            Self::DiscoverWarm => "discover_in_process_warm_cache",
            Self::DiscoverNoCache => "discover_in_process_no_cache",
            Self::Prompt => "prompt_xml",
            Self::Validate => "validate_recursive",
            Self::Read => "read_one",
            Self::Audit => "audit_json_every_skill",
            Self::PeerNodeStart => "peer_node_start",
            Self::PeerOpenskills => "peer_openskills_list",
            Self::PeerVercelSkills => "peer_vercel_skills_list",
        }
    }

    /// The row's label in the table.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Floor => "floor (walk + first 4 KiB)",
            Self::FullRead => "full read (walk + whole files)",
            Self::Startup => "skills --version (process start)",
            Self::ListWarm => "skills list --json (warm cache)",
            Self::ListAudited => "skills list --json (warm, all audited)",
            Self::ListCold => "skills list --json (cold cache)",
            Self::Mcp => "skills mcp: init, tools, resources p1",
            Self::DiscoverWarm => "discover in-process (warm cache)",
            Self::DiscoverNoCache => "discover in-process (no cache)",
            Self::Prompt => "skills prompt --format xml",
            Self::Validate => "skills validate --recursive",
            Self::Read => "skills read <one skill>",
            Self::Audit => "skills audit --json (every skill)",
            Self::PeerNodeStart => "peer: node 22 -e 0 (fixed cost)",
            Self::PeerOpenskills => "peer: openskills@1.5.0 list",
            Self::PeerVercelSkills => "peer: skills@1.7.4 list --json, -g",
        }
    }
}

/// The release executables the bench drives.
struct Tools {
    skills: PathBuf,
    discover: PathBuf,
    /// A release build of xtask itself, for `__walk`.
    walker: PathBuf,
}

/// One contender's samples on one tree.
#[derive(Clone, Debug)]
pub(crate) struct Measured {
    pub(crate) contender: Contender,
    pub(crate) samples: Vec<Duration>,
    /// How many skills it reported (the count check), when it reports any.
    pub(crate) found: Option<usize>,
    /// What it wrote to standard output, for a whole-process contender.
    pub(crate) stdout_bytes: Option<usize>,
}

/// Everything measured on one tree.
#[derive(Debug)]
pub(crate) struct TreeRun {
    pub(crate) shape: tree::Shape,
    pub(crate) skills: usize,
    pub(crate) names: usize,
    pub(crate) shadowed: usize,
    pub(crate) malformed: usize,
    pub(crate) roots: usize,
    pub(crate) definition_bytes: u64,
    pub(crate) files: usize,
    pub(crate) bytes: u64,
    pub(crate) definition_quantiles: tree::Quantiles,
    pub(crate) file_quantiles: tree::Quantiles,
    /// Skills bundling any script, Python, JavaScript, shell.
    pub(crate) scripts: [usize; 4],
    pub(crate) generate: Duration,
    pub(crate) measured: Vec<Measured>,
    /// Median peak RSS of `skills list --json`, in KiB, with a warm and a cold catalog cache.
    pub(crate) rss_warm_kib: Option<u64>,
    pub(crate) rss_cold_kib: Option<u64>,
    /// Median peak RSS of `skills audit --json` over every skill, in KiB (warm cache).
    pub(crate) rss_audit_kib: Option<u64>,
    /// Anything that makes this tree's figures doubtful (a count that does not add up).
    pub(crate) warnings: Vec<String>,
}

/// A fresh directory under the system's temporary directory, removed when dropped (also when
/// the bench fails half-way).
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> io::Result<Self> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.subsec_nanos());
        let path =
            std::env::temp_dir().join(format!("skills-bench-{}-{nanos:09}", std::process::id()));
        fs::create_dir(&path)?;
        Ok(Self(path))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(error) = fs::remove_dir_all(&self.0) {
            eprintln!("warning: could not remove {}: {error}", self.0.display());
        }
    }
}

pub(crate) fn run(root: &Path, args: &Args) -> Result<(), Failure> {
    if !args.trees {
        let skills = build_skills(root)?;
        if args.size {
            run_size(root, &skills)?;
        }
        if args.catalog {
            run_catalog(root, &skills)?;
        }
        if args.runtime {
            run_runtime(root, &skills)?;
        }
        if args.relevance {
            run_relevance(root, &skills, args.runs, args.relevance_skills.as_deref())?;
        }
        return run_audit(root, &skills, args);
    }
    let started = Instant::now();
    let load_before = report::load_average();
    let tools = build(root)?;
    let built = started.elapsed();
    let scratch = Scratch::new().map_err(|error| {
        Failure::new(
            format!(
                "could not create a directory under {}: {error}",
                std::env::temp_dir().display()
            ),
            "set TMPDIR to a writable directory with a few hundred MiB free",
        )
    })?;
    println!("trees under {}", scratch.0.display());
    let wants_peers =
        args.shapes.contains(&tree::Shape::Realistic) && args.sizes.contains(&PEER_SIZE);
    let (installed, peer_status) = if !args.peers {
        (None, "not measured: `--no-peers`".to_owned())
    } else if !wants_peers {
        (
            None,
            format!(
                "not measured: no realistic {}-skill tree in this run",
                report::thousands(PEER_SIZE)
            ),
        )
    } else {
        println!(
            "\n==> peers: installing {} and {} with Node 22 from the npm registry",
            peers::OPENSKILLS,
            peers::VERCEL_SKILLS
        );
        match peers::Peers::install(root, &scratch.0) {
            Ok(installed) => {
                let status = format!(
                    "{} and {} on Node {}, each run in a private network namespace ({}), HOME = the tree's home",
                    peers::OPENSKILLS,
                    peers::VERCEL_SKILLS,
                    installed.node_version,
                    installed.isolation()
                );
                println!("peers: {status}");
                (Some(installed), status)
            }
            Err(reason) => {
                let status = format!("not measured: {reason}");
                println!("peers: {status}; continuing without the peer rows");
                (None, status)
            }
        }
    };
    let mut trees = Vec::new();
    for &shape in &args.shapes {
        for &size in &args.sizes {
            let peers = installed
                .as_ref()
                .filter(|_| shape == tree::Shape::Realistic && size == PEER_SIZE);
            trees.push(measure_tree(
                &scratch.0, size, shape, &tools, args.runs, peers,
            )?);
        }
    }
    drop(scratch);
    let facts = report::Facts {
        root,
        peers: peer_status,
        runs: args.runs,
        calls_per_run: CALLS_PER_RUN,
        load_before,
        load_after: report::load_average(),
        build: built,
        total: started.elapsed(),
    };
    let report = report::Report::new(&facts, &trees);
    println!("\n{}", report.table());
    let path = root.join(REPORT_PATH);
    let written = path
        .parent()
        .map_or(Ok(()), fs::create_dir_all)
        .and_then(|()| fs::write(&path, report.json()));
    written.map_err(|error| {
        Failure::new(
            format!("could not write {}: {error}", path.display()),
            "check that target/ is writable",
        )
    })?;
    println!("report: {}", path.display());
    if args.size {
        run_size(root, &tools.skills)?;
    }
    if args.catalog {
        run_catalog(root, &tools.skills)?;
    }
    if args.runtime {
        run_runtime(root, &tools.skills)?;
    }
    if args.relevance {
        run_relevance(
            root,
            &tools.skills,
            args.runs,
            args.relevance_skills.as_deref(),
        )?;
    }
    run_audit(root, &tools.skills, args)
}

/// The binary-size rows ([`size`]): the release `skills` as shipped (symbols stripped), and
/// what each crate adds, read from a build of the same code that keeps its symbols.
fn run_size(root: &Path, skills: &Path) -> Result<(), Failure> {
    let shipped = size::file_size(skills).map_err(|error| {
        Failure::new(
            format!("could not read {}: {error}", skills.display()),
            "build the release binary first",
        )
    })?;
    println!(
        "\n==> binary size: building `skills` with the {} profile (symbols kept) for the breakdown by crate",
        size::SYMBOLS_PROFILE
    );
    let messages = process::output(cargo(root).args([
        "build",
        "--profile",
        size::SYMBOLS_PROFILE,
        "-p",
        "skills-cli",
        "--bin",
        "skills",
        "--message-format=json-render-diagnostics",
    ]))
    .map_err(|message| {
        Failure::new(
            message,
            "fix the build error above; `cargo build --profile release-symbols -p skills-cli` reproduces it",
        )
    })?;
    let unstripped = artifact(&messages, "bin", "skills").ok_or_else(|| {
        Failure::new(
            "cargo built no `skills` binary",
            "check the release-symbols profile in Cargo.toml",
        )
    })?;
    let breakdown = size::breakdown(&unstripped).map_err(|reason| {
        Failure::new(reason, "check the release-symbols profile in Cargo.toml")
    })?;
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let mut table = format!(
        "binary size: skills as shipped (release profile, symbols stripped) {:.1} MiB ({} bytes); by crate, from the unstripped build:\n",
        mib(shipped),
        report::thousands(usize::try_from(shipped).unwrap_or(usize::MAX))
    );
    for line in breakdown.lines() {
        table.push_str(&line);
        table.push('\n');
    }
    let json = json!({
        "shipped_bytes": shipped,
        "unstripped": breakdown.json(),
    });
    write_report(root, SIZE_REPORT_PATH, table.trim_end(), &json)
}

/// The audit rows ([`audit`]): measured, printed and written to [`AUDIT_REPORT_PATH`]; a data
/// set not given is reported as not run.
fn run_audit(root: &Path, skills: &Path, args: &Args) -> Result<(), Failure> {
    if !args.audit {
        return Ok(());
    }
    let options = audit::Options {
        set: args.audit_set.clone(),
        corpus: args.audit_corpus.clone(),
        peers: args.peers,
    };
    let scratch =
        scratch("set TMPDIR to a writable directory with 1.5 GiB free (the peers' environments)")?;
    let measured = audit::measure(root, &scratch.0, skills, &options)?;
    drop(scratch);
    write_report(root, AUDIT_REPORT_PATH, &measured.table(), &measured.json())
}

/// The relevance rows ([`relevance`]): the example skills through `skills` (the release
/// binary), the synthetic tree through the `search` bench of skills-ops (built here), each
/// query timed `runs` times; printed and written to [`RELEVANCE_REPORT_PATH`].
fn run_relevance(
    root: &Path,
    skills: &Path,
    runs: usize,
    real_skills: Option<&Path>,
) -> Result<(), Failure> {
    let bench = build_search_bench(root)?;
    let examples = {
        let scratch = scratch("set TMPDIR to a writable directory")?;
        relevance::measure(root, &scratch.0, skills)?
    };
    let among = {
        let scratch = scratch("set TMPDIR to a writable directory with 100 MiB free")?;
        relevance::measure_among(root, &scratch.0, &bench)?
    };
    let synthetic = {
        let scratch = scratch("set TMPDIR to a writable directory with 100 MiB free")?;
        relevance::measure_synthetic(root, &scratch.0, &bench, runs)?
    };
    let real = {
        let scratch = scratch("set TMPDIR to a writable directory with 200 MiB free")?;
        relevance::measure_real(root, &scratch.0, &bench, real_skills, runs)?
    };
    let report = relevance::Report {
        examples,
        among,
        synthetic,
        real,
    };
    write_report(root, RELEVANCE_REPORT_PATH, &report.table(), &report.json())?;
    run_live(root, runs)
}

/// The live catalog's rows ([`live`]): change → event and search on a watching handle.
fn run_live(root: &Path, runs: usize) -> Result<(), Failure> {
    let bench = build_bench(root, "skills", "live")?;
    let scratch = scratch("set TMPDIR to a writable directory with a few hundred MiB free")?;
    let measured = live::measure(&bench, &scratch.0, runs)?;
    drop(scratch);
    write_report(root, LIVE_REPORT_PATH, &measured.table(), &measured.json())
}

/// Builds the in-process search bench (`crates/skills-ops/benches/search.rs`) with cargo's
/// release settings; returns its path.
fn build_search_bench(root: &Path) -> Result<PathBuf, Failure> {
    build_bench(root, "skills-ops", "search")
}

/// Builds the in-process bench `name` of `package` with cargo's release settings.
fn build_bench(root: &Path, package: &str, name: &str) -> Result<PathBuf, Failure> {
    let messages = process::output(cargo(root).args([
        "bench",
        "-p",
        package,
        "--bench",
        name,
        "--no-run",
        "--message-format=json-render-diagnostics",
    ]))
    .map_err(|message| {
        Failure::new(
            message,
            format!(
                "fix the build error above; `cargo bench -p {package} --bench {name} --no-run` reproduces it"
            ),
        )
    })?;
    artifact(&messages, "bench", name).ok_or_else(|| {
        Failure::new(
            format!("cargo built no `{name}` bench"),
            format!("check the [[bench]] entries in the Cargo.toml of {package}"),
        )
    })
}

/// The runtime row ([`runtime`]): measured, printed and written to [`RUNTIME_REPORT_PATH`].
fn run_runtime(root: &Path, skills: &Path) -> Result<(), Failure> {
    let scratch = scratch("set TMPDIR to a writable directory")?;
    let measured = runtime::measure(&scratch.0, skills)?;
    drop(scratch);
    write_report(
        root,
        RUNTIME_REPORT_PATH,
        &measured.table(),
        &measured.json(),
    )
}

/// The registry catalog rows ([`catalog`]): measured, printed and written to
/// [`CATALOG_REPORT_PATH`].
fn run_catalog(root: &Path, skills: &Path) -> Result<(), Failure> {
    let scratch = scratch("set TMPDIR to a writable directory with a few hundred MiB free")?;
    let measured = catalog::measure(&scratch.0, skills)?;
    drop(scratch);
    write_report(
        root,
        CATALOG_REPORT_PATH,
        &measured.table(),
        &measured.json(),
    )
}

/// A scratch directory for one group of rows; `hint` says what to do when there is none.
fn scratch(hint: &'static str) -> Result<Scratch, Failure> {
    Scratch::new().map_err(|error| {
        Failure::new(
            format!(
                "could not create a directory under {}: {error}",
                std::env::temp_dir().display()
            ),
            hint,
        )
    })
}

/// Prints a group's table and writes its JSON report to `relative` under `root`.
fn write_report(root: &Path, relative: &str, table: &str, json: &Value) -> Result<(), Failure> {
    println!("\n{table}");
    let path = root.join(relative);
    let written = path
        .parent()
        .map_or(Ok(()), fs::create_dir_all)
        .and_then(|()| fs::write(&path, format!("{json:#}\n")));
    written.map_err(|error| {
        Failure::new(
            format!("could not write {}: {error}", path.display()),
            "check that target/ is writable",
        )
    })?;
    println!("report: {}", path.display());
    Ok(())
}

/// Runs `command` to completion; its wall time and standard output. `hint` says how to find
/// out why it failed.
fn timed(command: &mut Command, hint: &'static str) -> Result<(Duration, Vec<u8>), Failure> {
    let started = Instant::now();
    let output = command.output().map_err(|error| {
        Failure::new(
            format!("could not run {:?}: {error}", command.get_program()),
            "build the release binary first",
        )
    })?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        return Err(Failure::new(
            format!(
                "{:?} failed ({}): {}",
                command.get_program(),
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ),
            hint,
        ));
    }
    Ok((elapsed, output.stdout))
}

/// Builds only the release CLI (for `--catalog-only` and `--runtime-only`).
fn build_skills(root: &Path) -> Result<PathBuf, Failure> {
    let messages = process::output(cargo(root).args([
        "build",
        "--release",
        "-p",
        "skills-cli",
        // `skills` and `skills-sandbox`, the helper it starts in front of a sandboxed run.
        "--bins",
        "--message-format=json-render-diagnostics",
    ]))
    .map_err(|message| {
        Failure::new(
            message,
            "fix the build error above; `cargo build --release -p skills-cli` reproduces it",
        )
    })?;
    artifact(&messages, "bin", "skills").ok_or_else(|| {
        Failure::new(
            "cargo built no `skills` binary",
            "check crates/skills-cli/Cargo.toml",
        )
    })
}

/// Builds the CLI, the in-process bench and xtask (for `__walk`) with cargo's release
/// settings; returns their paths.
fn build(root: &Path) -> Result<Tools, Failure> {
    let hint = "fix the build error above; `cargo build --release -p skills-cli` reproduces it";
    let messages = process::output(cargo(root).args([
        "build",
        "--release",
        "-p",
        "skills-cli",
        // `skills` and `skills-sandbox`, the helper it starts in front of a sandboxed run.
        "--bins",
        "--message-format=json-render-diagnostics",
    ]))
    .map_err(|message| Failure::new(message, hint))?;
    let skills = artifact(&messages, "bin", "skills").ok_or_else(|| {
        Failure::new(
            "cargo built no `skills` binary",
            "check crates/skills-cli/Cargo.toml",
        )
    })?;
    let messages = process::output(cargo(root).args([
        "bench",
        "-p",
        "skills",
        "--bench",
        "discover",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ]))
    .map_err(|message| {
        Failure::new(
            message,
            "fix the build error above; `cargo bench -p skills --bench discover --no-run` reproduces it",
        )
    })?;
    let discover = artifact(&messages, "bench", "discover").ok_or_else(|| {
        Failure::new(
            "cargo built no `discover` bench",
            "check the [[bench]] entry in crates/skills/Cargo.toml",
        )
    })?;
    let messages = process::output(cargo(root).args([
        "build",
        "--release",
        "-p",
        "xtask",
        "--message-format=json-render-diagnostics",
    ]))
    .map_err(|message| Failure::new(message, "fix the build error above"))?;
    let walker = artifact(&messages, "bin", "xtask")
        .ok_or_else(|| Failure::new("cargo built no `xtask` binary", "check xtask/Cargo.toml"))?;
    Ok(Tools {
        skills,
        discover,
        walker,
    })
}

/// The executable of the `kind` target `name` in cargo's JSON messages.
fn artifact(messages: &str, kind: &str, name: &str) -> Option<PathBuf> {
    let target = format!("\"kind\":[\"{kind}\"]");
    let named = format!("\"name\":\"{name}\"");
    messages
        .lines()
        .filter(|line| line.contains("\"reason\":\"compiler-artifact\""))
        .filter(|line| line.contains(&target) && line.contains(&named))
        .find_map(|line| json_string_after(line, "\"executable\":\""))
        .map(PathBuf::from)
}

/// The JSON string that starts right after `key` (which ends with the opening quote).
fn json_string_after(text: &str, key: &str) -> Option<String> {
    let start = text.find(key)? + key.len();
    let mut value = String::new();
    let mut chars = text.get(start..)?.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => match chars.next()? {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                other => value.push(other),
            },
            c => value.push(c),
        }
    }
    None
}

fn measure_tree(
    scratch: &Path,
    size: usize,
    shape: tree::Shape,
    tools: &Tools,
    runs: usize,
    peers: Option<&peers::Peers>,
) -> Result<TreeRun, Failure> {
    let name = format!("{size} skills, {}", shape.key());
    println!("\n==> {name}: generating the tree");
    let generating = Instant::now();
    let base = scratch.join(format!("{}{size}", shape.key()));
    let tree = tree::generate(&base, size, shape).map_err(|error| {
        Failure::new(
            format!("could not write the {name} tree: {error}"),
            "free some space in the temporary directory (or set TMPDIR)",
        )
    })?;
    let generate = generating.elapsed();
    println!(
        "{} skill directories ({} shadowed copies, {} malformed) in {} roots, {} files, {:.1} MiB of SKILL.md ({:.1} MiB in all), written in {:.1}s",
        tree.skills,
        tree.shadowed,
        tree.malformed,
        tree.roots.len(),
        tree.files,
        tree.definition_bytes as f64 / (1024.0 * 1024.0),
        tree.bytes as f64 / (1024.0 * 1024.0),
        generate.as_secs_f64()
    );
    println!("==> {name}: warm-up pass (untimed; checks every contender)");
    let contenders = Contender::PRODUCT
        .iter()
        .chain(peers.map_or(&[][..], |_| &Contender::PEERS[..]));
    let mut measured: Vec<Measured> = contenders
        .map(|&contender| Measured {
            contender,
            samples: Vec::new(),
            found: None,
            stdout_bytes: None,
        })
        .collect();
    let mut warnings = Vec::new();
    let mut failed = Vec::new();
    for entry in &mut measured {
        match sample(entry.contender, &tree, tools, peers, true) {
            Ok(sample) => {
                entry.found = sample.found;
                entry.stdout_bytes = sample.stdout_bytes;
            }
            // A peer that fails is reported and left out; this program failing is the bench
            // failing.
            Err(failure) if entry.contender.peer().is_some() => {
                println!("  {} failed: {}", entry.contender.label(), failure.message);
                warnings.push(format!(
                    "{} did not list the tree and is left out: {}",
                    entry.contender.label(),
                    failure.message
                ));
                failed.push(entry.contender);
            }
            Err(failure) => return Err(failure),
        }
    }
    measured.retain(|entry| !failed.contains(&entry.contender));
    println!("==> {name}: {runs} timed repetitions, contenders rotating");
    for repetition in 0..runs {
        for offset in 0..measured.len() {
            let index = (repetition + offset) % measured.len();
            let Some(entry) = measured.get_mut(index) else {
                continue;
            };
            if repetition >= entry.contender.most_runs() {
                continue;
            }
            let sample = sample(entry.contender, &tree, tools, peers, false)?;
            entry.samples.extend(sample.times);
        }
        print!(".");
        let _ = io::Write::flush(&mut io::stdout());
    }
    println!();
    warnings.extend(count_warnings(&tree, &measured));
    println!(
        "==> {name}: peak RSS of `skills list --json` ({RSS_RUNS} runs per cache state) and of `skills audit --json`"
    );
    let rss_warm_kib = peak_rss(&tree, tools, Contender::ListWarm, false)?;
    let rss_cold_kib = peak_rss(&tree, tools, Contender::ListWarm, true)?;
    let rss_audit_kib = peak_rss(&tree, tools, Contender::Audit, false)?;
    // Only one tree is on disk at a time: a realistic 10,000-skill tree is a few hundred MiB.
    if let Err(error) = fs::remove_dir_all(&base) {
        eprintln!("warning: could not remove {}: {error}", base.display());
    }
    Ok(TreeRun {
        shape: tree.shape,
        skills: tree.skills,
        names: tree.names(),
        shadowed: tree.shadowed,
        malformed: tree.malformed,
        roots: tree.roots.len(),
        definition_bytes: tree.definition_bytes,
        files: tree.files,
        bytes: tree.bytes,
        definition_quantiles: tree.definition_quantiles,
        file_quantiles: tree.file_quantiles,
        scripts: tree.scripts,
        generate,
        measured,
        rss_warm_kib,
        rss_cold_kib,
        rss_audit_kib,
        warnings,
    })
}

/// Counts that do not add up: a contender that saw less than the tree holds was timed on
/// less work, and its ratio flatters it.
fn count_warnings(tree: &tree::Tree, measured: &[Measured]) -> Vec<String> {
    let mut warnings = Vec::new();
    for entry in measured {
        let Some(found) = entry.found else {
            continue;
        };
        // `(least, most)` a correct listing reports.
        let (least, most) = match entry.contender {
            Contender::Floor | Contender::FullRead => (tree.skills, tree.skills),
            // openskills reads no frontmatter (a line match for `description:`), so it names
            // every folder once, malformed ones included.
            Contender::PeerOpenskills => (tree.names(), tree.names()),
            // The vercel tool lists each scope on its own (a shadowed copy is listed in both)
            // and drops a file whose YAML does not parse.
            Contender::PeerVercelSkills => (tree.skills - tree.malformed, tree.skills),
            // Malformed files may be kept (leniently) or dropped: either is a correct listing.
            _ => (tree.names() - tree.malformed, tree.names()),
        };
        let enough = (least..=most).contains(&found);
        if !enough {
            warnings.push(format!(
                "{} reported {found} skills; the tree holds {} directories and {} names ({} malformed)",
                entry.contender.label(),
                tree.skills,
                tree.names(),
                tree.malformed
            ));
        }
    }
    warnings
}

/// What one run of a contender gave.
struct Sample {
    times: Vec<Duration>,
    found: Option<usize>,
    /// What a whole-process contender wrote to standard output.
    stdout_bytes: Option<usize>,
}

fn sample(
    contender: Contender,
    tree: &tree::Tree,
    tools: &Tools,
    peers: Option<&peers::Peers>,
    check: bool,
) -> Result<Sample, Failure> {
    match contender {
        Contender::PeerNodeStart | Contender::PeerOpenskills | Contender::PeerVercelSkills => {
            match (contender.peer(), peers) {
                (Some(peer), Some(peers)) => sample_peer(peer, peers, tree, check),
                _ => Err(Failure::new(
                    "the peers are not installed",
                    "run without `--no-peers`",
                )),
            }
        }
        Contender::Mcp => sample_mcp(tools, tree, check),
        Contender::Floor | Contender::FullRead => {
            let portion = if contender == Contender::Floor {
                "head"
            } else {
                "whole"
            };
            let mut command = Command::new(&tools.walker);
            command.args(["__walk", "--portion", portion, "--runs"]);
            command
                .arg(CALLS_PER_RUN.to_string())
                .arg("--")
                .args(&tree.roots);
            quiet_environment(&mut command, &tree.workspace);
            timed_calls(&mut command, check)
        }
        Contender::DiscoverWarm | Contender::DiscoverNoCache => {
            let cache = if contender == Contender::DiscoverWarm {
                "on"
            } else {
                "off"
            };
            let mut command = Command::new(&tools.discover);
            command.arg("--workspace").arg(&tree.workspace);
            command.arg("--home").arg(&tree.home);
            command.args(["--cache", cache, "--runs"]);
            command.arg(CALLS_PER_RUN.to_string());
            quiet_environment(&mut command, &tree.workspace);
            timed_calls(&mut command, check)
        }
        Contender::Startup
        | Contender::ListWarm
        | Contender::ListAudited
        | Contender::ListCold
        | Contender::Prompt
        | Contender::Validate
        | Contender::Read
        | Contender::Audit => {
            let (mut command, ok) = invocation(contender, tools, tree);
            if contender == Contender::ListCold {
                if check {
                    println!("  (cold: <home>/{CACHE_DIR} is removed before every run)");
                }
                remove_cache(&tree.home)?;
            }
            if contender == Contender::ListAudited {
                if check {
                    println!(
                        "  (all audited: the verdicts of a whole-tree audit are put in the home before every run)"
                    );
                }
                place_verdicts(tree, tools)?;
            }
            let (elapsed, output) = spawn(&mut command, check, ok)?;
            if matches!(contender, Contender::Audit | Contender::ListAudited) {
                remove_verdicts(&tree.home)?;
            }
            let found = match contender {
                Contender::ListWarm | Contender::ListAudited | Contender::ListCold => {
                    count_listed(&output)
                }
                Contender::Prompt => {
                    Some(String::from_utf8_lossy(&output).matches("<skill>").count())
                }
                Contender::Audit => {
                    top_level_array(&output, b"results").and_then(|at| array_len(&output, at))
                }
                _ => None,
            };
            if contender == Contender::ListAudited && check {
                // The row measures marked listings only if the listing marks them: every skill
                // carries a current verdict.
                let marks = current_marks(&output);
                if found.is_none_or(|found| marks < found) {
                    return Err(Failure::new(
                        format!(
                            "the listing after a whole-tree audit marked {marks} skills current of {found:?} listed"
                        ),
                        "run `skills audit` and `skills list --json` on the tree by hand",
                    ));
                }
            }
            Ok(Sample {
                times: vec![elapsed],
                found: if check { found } else { None },
                stdout_bytes: Some(output.len()),
            })
        }
    }
}

/// The `skills` command line of a whole-process contender, and the exit codes it may end
/// with.
fn invocation(contender: Contender, tools: &Tools, tree: &tree::Tree) -> (Command, &'static [i32]) {
    let mut command = Command::new(&tools.skills);
    quiet_environment(&mut command, &tree.workspace);
    let discovers = match contender {
        Contender::ListWarm | Contender::ListAudited | Contender::ListCold => {
            command.args(["list", "--json"]);
            true
        }
        Contender::Prompt => {
            command.args(["prompt", "--format", "xml"]);
            true
        }
        Contender::Read => {
            command.arg("read").arg(&tree.read_name);
            true
        }
        Contender::Mcp => {
            command.args(["mcp", "--no-scripts"]);
            true
        }
        Contender::Validate => {
            command.args(["validate", "--recursive"]).args(&tree.roots);
            // Exit status 1 says some skill is invalid: the malformed files are.
            return (command, &[0, 1]);
        }
        Contender::Audit => {
            // No target: every skill of the catalog, every scope. Exit status 1 says a skill
            // has a finding at or above the threshold, which is a scan that worked.
            command.args(["audit", "--json"]);
            command.arg("--workspace").arg(&tree.workspace);
            command.arg("--home").arg(&tree.home);
            command.arg("--trust-workspace");
            return (command, &[0, 1]);
        }
        Contender::Startup
        | Contender::Floor
        | Contender::FullRead
        | Contender::DiscoverWarm
        | Contender::DiscoverNoCache
        | Contender::PeerNodeStart
        | Contender::PeerOpenskills
        | Contender::PeerVercelSkills => {
            command.arg("--version");
            false
        }
    };
    if discovers {
        command.arg("--workspace").arg(&tree.workspace);
        command.arg("--home").arg(&tree.home);
        // Trusted for this command only, as a person would type it: nothing is recorded.
        command.arg("--trust-workspace");
    }
    (command, &[0])
}

/// One listing by a peer: its commands in turn (the vercel tool needs one per scope), the
/// times summed, the skills counted from what it printed.
fn sample_peer(
    peer: peers::Peer,
    peers: &peers::Peers,
    tree: &tree::Tree,
    check: bool,
) -> Result<Sample, Failure> {
    let mut elapsed = Duration::ZERO;
    let mut found = Some(0);
    let mut stdout_bytes = 0;
    // Into a file, not a pipe: the vercel tool exits (`process.exit`) before Node has drained
    // a pipe, so a piped listing of a few hundred skills is cut at 64 KiB in about one run in
    // three; Node writes to a file synchronously, so the file holds all of it.
    let capture = tree.home.with_file_name("peer-stdout");
    for mut command in peers.commands(peer, &tree.home, &tree.workspace) {
        let (time, output) = spawn_into(&mut command, check, &capture)?;
        elapsed += time;
        stdout_bytes += output.len();
        let counted = match peer {
            peers::Peer::NodeStart => None,
            peers::Peer::Openskills => peers::count_openskills(&String::from_utf8_lossy(&output)),
            peers::Peer::VercelSkills => count_listed(&output),
        };
        found = found.zip(counted).map(|(sum, count)| sum + count);
    }
    if check && peer != peers::Peer::NodeStart && found.is_none_or(|found| found == 0) {
        return Err(Failure::new(
            "its output names no skill",
            "run the command above by hand: a tool that exits at once has not listed anything",
        ));
    }
    Ok(Sample {
        times: vec![elapsed],
        found: if check && peer != peers::Peer::NodeStart {
            found
        } else {
            None
        },
        stdout_bytes: Some(stdout_bytes),
    })
}

/// The protocol revision the bench's client asks for: the newest the pinned SDK speaks.
const MCP_PROTOCOL: &str = "2025-11-25";

/// How long one MCP session may take, spawn to exit, before its row fails: a server that hangs
/// must fail the bench, not hang it. A 10,000-skill session takes a fraction of a second here.
const MCP_TIMEOUT: Duration = Duration::from_secs(60);

/// One session of `skills mcp` as a host opens one (08 §`skills mcp`): `initialize`, its
/// answer, `notifications/initialized`, `tools/list` and the first `resources/list` page,
/// written as JSON Lines to its standard input, which is then closed.
///
/// Timed from spawn to exit, the server's shutdown at the end of its input included, because
/// the `list` row it is compared with is a whole process too; stopping the clock at the last
/// answer and killing the server would leave out a cost that `list` pays (tearing down).
fn sample_mcp(tools: &Tools, tree: &tree::Tree, check: bool) -> Result<Sample, Failure> {
    let (mut command, _) = invocation(Contender::Mcp, tools, tree);
    let described = process::describe(&command);
    if check {
        println!("$ {described}  (initialize, tools/list, resources/list on its standard input)");
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if check { Stdio::piped() } else { Stdio::null() });
    let started = Instant::now();
    let deadline = started + MCP_TIMEOUT;
    let (mut child, errors) = start_draining(&mut command)?;
    // The answers come through a channel, so that every wait for one has a deadline.
    let (sender, lines) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            for line in io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
    }
    let session = match child.stdin.take() {
        Some(stdin) => converse(stdin, &lines, deadline),
        None => Err("its standard input was not piped".to_owned()),
    };
    if session.is_err() {
        let _ = child.kill();
    }
    let status = child.wait();
    let elapsed = started.elapsed();
    let errors = errors
        .and_then(|reader| reader.join().ok())
        .unwrap_or_default();
    let errors = String::from_utf8_lossy(&errors);
    let failed = |message: String| {
        Failure::new(
            format!(
                "`{described}`: {message}; its standard error: {}",
                errors.trim()
            ),
            "run the command above by hand and type the requests into it (JSON Lines); the bench needs the MCP session to work on the tree",
        )
    };
    let session = session.map_err(failed)?;
    match status {
        Ok(status) if exited_with(status, &[0]) => {}
        Ok(status) => return Err(failed(format!("it exited with {status}"))),
        Err(error) => return Err(failed(format!("it vanished: {error}"))),
    }
    // Checked whole once the clock has stopped (see `answered_request`).
    let page = session
        .check(tree.names() - tree.malformed)
        .map_err(failed)?;
    if check {
        println!(
            "  first resources/list page: {} resources of {} skills, and a cursor to the next",
            page.resources, page.skills
        );
    }
    Ok(Sample {
        times: vec![elapsed],
        found: None,
        stdout_bytes: Some(session.bytes),
    })
}

/// What the server wrote in one session: its answers to `initialize`, `tools/list` and
/// `resources/list`, as lines, and every byte of its output.
struct McpSession {
    answers: [String; 3],
    bytes: usize,
}

impl McpSession {
    /// Checks every answer: each a result, the tools a list, the first resources page as
    /// [`first_resources_page`] wants it for a catalog of at least `least_skills` skills.
    fn check(&self, least_skills: usize) -> Result<ResourcesPage, String> {
        let mut results = Vec::new();
        for (id, line) in (1..).zip(&self.answers) {
            match mcp_answer(line)? {
                Some((answered, result)) if answered == id => results.push(result),
                _ => {
                    return Err(format!(
                        "its answer to request {id} is not one: {}",
                        quoted(line)
                    ));
                }
            }
        }
        let [initialize, tools, resources] = &results[..] else {
            return Err("it gave fewer answers than requests".to_owned());
        };
        if initialize
            .get("protocolVersion")
            .and_then(Value::as_str)
            .is_none()
        {
            return Err("its `initialize` answer names no protocol version".to_owned());
        }
        if !tools.get("tools").is_some_and(Value::is_array) {
            return Err("its `tools/list` answer holds no `tools` array".to_owned());
        }
        first_resources_page(resources, least_skills)
    }
}

/// The client's side of one MCP session, until the server has closed its standard output.
fn converse(
    mut stdin: ChildStdin,
    lines: &mpsc::Receiver<String>,
    deadline: Instant,
) -> Result<McpSession, String> {
    let mut bytes = 0;
    let mut next_line = |waiting_for: &str| {
        let line = lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .map_err(|error| match error {
                mpsc::RecvTimeoutError::Timeout => {
                    format!("no {waiting_for} within {} s", MCP_TIMEOUT.as_secs())
                }
                mpsc::RecvTimeoutError::Disconnected => {
                    format!("it closed its standard output before {waiting_for}")
                }
            });
        if let Ok(line) = &line {
            bytes += line.len() + 1;
        }
        line
    };
    let mut answers: [Option<String>; 3] = Default::default();
    let initialize = json!({
        "protocolVersion": MCP_PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "xtask-bench", "version": env!("CARGO_PKG_VERSION")},
    });
    send(
        &mut stdin,
        &mcp_message(Some(1), "initialize", Some(initialize)),
    )?;
    while answers[0].is_none() {
        let line = next_line("answer to `initialize`")?;
        if answered_request(&line)? == Some(1) {
            answers[0] = Some(line);
        }
    }
    send(
        &mut stdin,
        &mcp_message(None, "notifications/initialized", None),
    )?;
    send(&mut stdin, &mcp_message(Some(2), "tools/list", None))?;
    send(&mut stdin, &mcp_message(Some(3), "resources/list", None))?;
    while answers[1].is_none() || answers[2].is_none() {
        let line = next_line("answer to `tools/list` and `resources/list`")?;
        let slot = match answered_request(&line)? {
            Some(2) => &mut answers[1],
            Some(3) => &mut answers[2],
            _ => continue,
        };
        *slot = Some(line);
    }
    // The end of its input ends the session: the server must exit, which closes its output.
    drop(stdin);
    loop {
        match next_line("exiting once its standard input closed") {
            Ok(_) => {}
            Err(message) if message.starts_with("it closed") => break,
            Err(message) => return Err(message),
        }
    }
    let [Some(initialize), Some(tools), Some(resources)] = answers else {
        return Err("it gave fewer answers than requests".to_owned());
    };
    Ok(McpSession {
        answers: [initialize, tools, resources],
        bytes,
    })
}

fn send(stdin: &mut ChildStdin, message: &str) -> Result<(), String> {
    writeln!(stdin, "{message}")
        .and_then(|()| stdin.flush())
        .map_err(|error| format!("could not write to its standard input: {error}"))
}

/// The request a line of the server's output answers, or `None` for a message of its own (a
/// notification, a log record). rmcp writes `{"jsonrpc":"2.0","id":N,...` and
/// `{"jsonrpc":"2.0","method":...`, told apart by their first bytes, so that a page of
/// thousands of resources is not parsed (by xtask's debug build of serde_json) while the clock
/// runs; any other line is parsed whole here, and answers are checked whole once the clock has
/// stopped ([`McpSession::check`]).
fn answered_request(line: &str) -> Result<Option<u64>, String> {
    const ANSWER: &str = r#"{"jsonrpc":"2.0","id":"#;
    const NOTIFICATION: &str = r#"{"jsonrpc":"2.0","method":"#;
    if let Some(rest) = line.strip_prefix(ANSWER) {
        let end = rest
            .bytes()
            .position(|byte| !byte.is_ascii_digit())
            .unwrap_or(rest.len());
        if let Some(id) = rest.get(..end).and_then(|digits| digits.parse().ok()) {
            return Ok(Some(id));
        }
    }
    if line.starts_with(NOTIFICATION) {
        return Ok(None);
    }
    mcp_answer(line).map(|answer| answer.map(|(id, _)| id))
}

/// The head of a line, for a message.
fn quoted(line: &str) -> String {
    line.chars().take(200).collect()
}

/// One JSON-RPC message on one line: a request with an `id`, a notification without.
fn mcp_message(id: Option<u64>, method: &str, params: Option<Value>) -> String {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if let Some(id) = id {
        message["id"] = json!(id);
    }
    if let Some(params) = params {
        message["params"] = params;
    }
    message.to_string()
}

/// What one line of the server's output says to a client waiting for answers: the request it
/// answers and its result, or `None` for a message of the server's own (a notification, a log
/// record). An error answer, and a line that is not JSON-RPC (the protocol owns standard
/// output from its first byte), are errors.
fn mcp_answer(line: &str) -> Result<Option<(u64, Value)>, String> {
    let mut message: Value = serde_json::from_str(line).map_err(|error| {
        format!(
            "it wrote a line that is not JSON ({error}): {}",
            quoted(line)
        )
    })?;
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(format!(
            "it wrote a line that is not JSON-RPC 2.0: {}",
            quoted(line)
        ));
    }
    if message.get("method").is_some() {
        return Ok(None);
    }
    let Some(id) = message.get("id").and_then(Value::as_u64) else {
        return Err(format!(
            "it answered no request the bench made: {}",
            quoted(line)
        ));
    };
    if let Some(error) = message.get("error") {
        return Err(format!("it answered request {id} with an error: {error}"));
    }
    match message.get_mut("result") {
        Some(result) => Ok(Some((id, result.take()))),
        None => Err(format!(
            "its answer to request {id} has neither `result` nor `error`: {}",
            quoted(line)
        )),
    }
}

/// The first `resources/list` page, as counted by [`first_resources_page`].
#[derive(Debug, PartialEq, Eq)]
struct ResourcesPage {
    resources: usize,
    /// Skills on the page: their `skill://NAME/SKILL.md` entries.
    skills: usize,
}

/// Checks the first `resources/list` page of a catalog of at least `least_skills` skills: it
/// lists something, and when it does not hold every skill it carries a `nextCursor` to the
/// rest (at 10,000 skills there are always several pages, so the row times one page of many).
fn first_resources_page(result: &Value, least_skills: usize) -> Result<ResourcesPage, String> {
    let Some(resources) = result.get("resources").and_then(Value::as_array) else {
        return Err("its `resources/list` answer holds no `resources` array".to_owned());
    };
    if resources.is_empty() {
        return Err(
            "its first `resources/list` page is empty: no skill of the tree is served".to_owned(),
        );
    }
    let skills = resources
        .iter()
        .filter_map(|resource| resource.get("uri").and_then(Value::as_str))
        .filter_map(|uri| uri.strip_prefix("skill://"))
        .filter(|rest| rest.split('/').count() == 2 && rest.ends_with("/SKILL.md"))
        .count();
    let cursor = result
        .get("nextCursor")
        .and_then(Value::as_str)
        .is_some_and(|cursor| !cursor.is_empty());
    if !cursor && skills < least_skills {
        return Err(format!(
            "its first `resources/list` page lists {skills} skills of at least {least_skills} and has no `nextCursor`, so the rest cannot be reached"
        ));
    }
    Ok(ResourcesPage {
        resources: resources.len(),
        skills,
    })
}

/// Runs a process that times its own calls (`xtask __walk`, the `discover` bench) and
/// prints `{"skills":S,...,"runs_ns":[...]}`.
fn timed_calls(command: &mut Command, check: bool) -> Result<Sample, Failure> {
    let (_, output) = spawn(command, check, &[0])?;
    let text = String::from_utf8_lossy(&output);
    let times: Vec<Duration> = json_numbers_after(&text, "\"runs_ns\":[")
        .into_iter()
        .map(Duration::from_nanos)
        .collect();
    if times.len() != CALLS_PER_RUN {
        return Err(Failure::new(
            format!(
                "`{}` printed no timings: {text}",
                process::describe(command)
            ),
            "run the command above by hand",
        ));
    }
    let found = json_numbers_after(&text, "\"skills\":")
        .first()
        .and_then(|count| usize::try_from(*count).ok());
    Ok(Sample {
        times,
        found,
        stdout_bytes: None,
    })
}

/// The same environment for every child: no inherited home override or logging, which would
/// change what is read or add output.
fn quiet_environment(command: &mut Command, workspace: &Path) {
    command
        .current_dir(workspace)
        .env_remove("SKILLS_HOME")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null());
}

fn remove_cache(home: &Path) -> Result<(), Failure> {
    remove_from_home(home, CACHE_DIR, "the catalog cache")
}

/// Puts the verdicts of a whole-tree audit in the tree's home, as a person who ran `skills
/// audit` has them: a listing then stamps every skill it marks. The first call runs the audit
/// (untimed) and keeps its verdicts beside the tree; later calls copy them back.
fn place_verdicts(tree: &tree::Tree, tools: &Tools) -> Result<(), Failure> {
    // Beside the home (`<t>/home`), removed with the tree.
    let kept = tree.home.with_file_name("audited-verdicts.json");
    let placed = tree.home.join(VERDICTS_PATH);
    let failed = |what: &str, error: io::Error| {
        Failure::new(
            format!(
                "could not {what} the audit verdicts under {}: {error}",
                tree.home.display()
            ),
            "check the temporary directory's permissions and free space",
        )
    };
    if !kept.exists() {
        let (mut command, ok) = invocation(Contender::Audit, tools, tree);
        spawn(&mut command, false, ok)?;
        fs::rename(&placed, &kept).map_err(|error| failed("keep", error))?;
    }
    fs::copy(&kept, &placed).map_err(|error| failed("place", error))?;
    Ok(())
}

/// Removes the verdicts a whole-tree audit recorded ([`VERDICTS_PATH`]).
fn remove_verdicts(home: &Path) -> Result<(), Failure> {
    remove_from_home(home, VERDICTS_PATH, "the audit verdicts")
}

/// Removes `relative` below `home`, a folder with what it holds or a file; one that is not
/// there is already removed.
fn remove_from_home(home: &Path, relative: &str, what: &str) -> Result<(), Failure> {
    let path = home.join(relative);
    let removed = if path.is_dir() {
        fs::remove_dir_all(&path)
    } else {
        fs::remove_file(&path)
    };
    match removed {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(Failure::new(
            format!("could not remove {what} under {}: {error}", home.display()),
            "check the temporary directory's permissions",
        )),
        _ => Ok(()),
    }
}

/// The thread reading a child's standard error to its end, when it was piped.
type Drain = Option<std::thread::JoinHandle<Vec<u8>>>;

/// Starts `command`; a piped standard error (piped only in the warm-up) drains on its own
/// thread, so a child that fills one pipe while we read the other cannot deadlock the bench.
fn start_draining(command: &mut Command) -> Result<(std::process::Child, Drain), Failure> {
    let mut child = command.spawn().map_err(|error| {
        Failure::new(
            format!("could not start `{}`: {error}", process::describe(command)),
            "check that the build above produced it",
        )
    })?;
    let errors = child.stderr.take().map(|mut stderr| {
        std::thread::spawn(move || {
            let mut errors = Vec::new();
            let _ = stderr.read_to_end(&mut errors);
            errors
        })
    });
    Ok((child, errors))
}

/// Runs `command` with its standard output drained from a pipe, as an agent core reading it
/// would; returns the wall time from spawn to exit and the output. With `check`, the command
/// is echoed and its standard error kept for the failure message; otherwise standard error is
/// discarded so that it costs the child nothing to write.
fn spawn(command: &mut Command, check: bool, ok: &[i32]) -> Result<(Duration, Vec<u8>), Failure> {
    if check {
        println!("$ {}", process::describe(command));
    }
    command
        .stdout(Stdio::piped())
        .stderr(if check { Stdio::piped() } else { Stdio::null() });
    let started = Instant::now();
    let (mut child, errors) = start_draining(command)?;
    let mut output = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_end(&mut output);
    }
    let status = child.wait();
    let elapsed = started.elapsed();
    let errors = errors
        .and_then(|reader| reader.join().ok())
        .unwrap_or_default();
    let status = status.map_err(|error| {
        Failure::new(
            format!("`{}` vanished: {error}", process::describe(command)),
            "run it again",
        )
    })?;
    if !exited_with(status, ok) {
        return Err(Failure::new(
            format!(
                "`{}` failed ({status}): {}",
                process::describe(command),
                String::from_utf8_lossy(&errors).trim()
            ),
            "run the command above by hand; the bench needs every contender to work on the tree",
        ));
    }
    Ok((elapsed, output))
}

/// [`spawn`] with standard output written to the file `capture` (created anew) and read back
/// after the exit; standard error as there.
fn spawn_into(
    command: &mut Command,
    check: bool,
    capture: &Path,
) -> Result<(Duration, Vec<u8>), Failure> {
    if check {
        println!("$ {} > {}", process::describe(command), capture.display());
    }
    let failed = |error: io::Error| {
        Failure::new(
            format!("could not use {}: {error}", capture.display()),
            "check the temporary directory's permissions",
        )
    };
    let file = fs::File::create(capture).map_err(failed)?;
    command
        .stdout(file)
        .stderr(if check { Stdio::piped() } else { Stdio::null() });
    let started = Instant::now();
    let output = command.output().map_err(|error| {
        Failure::new(
            format!("could not start `{}`: {error}", process::describe(command)),
            "check that the install above produced it",
        )
    })?;
    let elapsed = started.elapsed();
    if !exited_with(output.status, &[0]) {
        return Err(Failure::new(
            format!(
                "`{}` failed ({}): {}",
                process::describe(command),
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ),
            "run the command above by hand",
        ));
    }
    let written = fs::read(capture).map_err(failed)?;
    Ok((elapsed, written))
}

fn exited_with(status: ExitStatus, ok: &[i32]) -> bool {
    status.code().is_some_and(|code| ok.contains(&code))
}

/// Median peak RSS (KiB) of `skills list --json`, cold catalog cache or warm.
fn peak_rss(
    tree: &tree::Tree,
    tools: &Tools,
    contender: Contender,
    cold: bool,
) -> Result<Option<u64>, Failure> {
    let Ok(xtask) = std::env::current_exe() else {
        return Ok(None);
    };
    let mut figures = Vec::new();
    for _ in 0..RSS_RUNS {
        if cold {
            remove_cache(&tree.home)?;
        }
        let (measured, ok) = invocation(contender, tools, tree);
        let mut command = Command::new(&xtask);
        command.arg("__rss");
        for status in ok.iter().filter(|&&status| status != 0) {
            command.arg("--ok").arg(status.to_string());
        }
        command
            .arg("--")
            .arg(measured.get_program())
            .args(measured.get_args());
        quiet_environment(&mut command, &tree.workspace);
        let (_, output) = spawn(&mut command, false, &[0])?;
        if contender == Contender::Audit {
            remove_verdicts(&tree.home)?;
        }
        match String::from_utf8_lossy(&output).trim().parse::<u64>() {
            Ok(kib) => figures.push(kib),
            // The wrapper prints nothing where the platform has no `getrusage`.
            Err(_) => return Ok(None),
        }
    }
    Ok(report::median(&figures))
}

/// How many skills of a `skills list --json` output carry an audit mark whose state is
/// `current` (none when it is not such an output).
fn current_marks(json: &[u8]) -> usize {
    let Ok(listing) = serde_json::from_slice::<Value>(json) else {
        return 0;
    };
    let skills = listing.get("skills").unwrap_or(&listing);
    skills.as_array().map_or(0, |skills| {
        skills
            .iter()
            .filter(|skill| skill.pointer("/audit/state") == Some(&Value::from("current")))
            .count()
    })
}

/// Number of elements of the listing in `skills list --json` output: the top-level array, or
/// the array under the top-level key `skills`.
fn count_listed(json: &[u8]) -> Option<usize> {
    let first = json.iter().position(|byte| !byte.is_ascii_whitespace())?;
    let start = if json.get(first) == Some(&b'[') {
        first
    } else {
        top_level_array(json, b"skills")?
    };
    array_len(json, start)
}

/// The position of the `[` opening the value of `key` in the top-level object.
fn top_level_array(json: &[u8], key: &[u8]) -> Option<usize> {
    let mut depth = 0_usize;
    let mut index = 0;
    while let Some(&byte) = json.get(index) {
        match byte {
            b'"' => {
                let end = string_end(json, index)?;
                let is_key = depth == 1 && json.get(index + 1..end) == Some(key);
                index = end + 1;
                if is_key {
                    let rest = json.get(index..)?;
                    let colon = rest.iter().position(|byte| !byte.is_ascii_whitespace())?;
                    if rest.get(colon) == Some(&b':') {
                        let value = rest
                            .get(colon + 1..)?
                            .iter()
                            .position(|byte| !byte.is_ascii_whitespace())?;
                        let at = index + colon + 1 + value;
                        return (json.get(at) == Some(&b'[')).then_some(at);
                    }
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        index += 1;
    }
    None
}

/// The elements of the array opening at `start`.
fn array_len(json: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0_usize;
    let mut commas = 0;
    let mut empty = true;
    let mut index = start + 1;
    while let Some(&byte) = json.get(index) {
        match byte {
            b'"' => {
                empty = false;
                index = string_end(json, index)?;
            }
            b'{' | b'[' => {
                empty = false;
                depth += 1;
            }
            b']' | b'}' if depth == 0 => return Some(if empty { 0 } else { commas + 1 }),
            b']' | b'}' => depth -= 1,
            b',' if depth == 0 => commas += 1,
            byte if !byte.is_ascii_whitespace() => empty = false,
            _ => {}
        }
        index += 1;
    }
    None
}

/// The position of the quote closing the string that opens at `start`.
fn string_end(json: &[u8], start: usize) -> Option<usize> {
    let mut index = start + 1;
    loop {
        match json.get(index)? {
            b'\\' => index += 2,
            b'"' => return Some(index),
            _ => index += 1,
        }
    }
}

/// The whole numbers right after `key`: one, or a comma-separated list up to `]`.
fn json_numbers_after(text: &str, key: &str) -> Vec<u64> {
    let Some(start) = text.find(key) else {
        return Vec::new();
    };
    let rest = text.get(start + key.len()..).unwrap_or_default();
    let end = rest.find([']', '}']).unwrap_or(rest.len());
    rest.get(..end)
        .unwrap_or_default()
        .split(',')
        .map_while(|number| number.trim().parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn parses_arguments() {
        let parse = |args: &[&str]| Args::parse(&strings(args));
        assert_eq!(
            parse(&[]),
            Ok(Args {
                sizes: vec![1_000, 10_000],
                shapes: vec![tree::Shape::Realistic, tree::Shape::Classic],
                runs: DEFAULT_RUNS,
                peers: true,
                trees: true,
                catalog: true,
                runtime: true,
                relevance: true,
                size: true,
                audit: true,
                audit_set: None,
                audit_corpus: None,
                relevance_skills: None,
            })
        );
        assert_eq!(parse(&["--quick"]).map(|args| args.sizes), Ok(vec![1_000]));
        assert_eq!(
            parse(&["--skills", "20_000", "--skills", "500", "--runs", "5"]),
            Ok(Args {
                sizes: vec![500, 20_000],
                shapes: vec![tree::Shape::Realistic, tree::Shape::Classic],
                runs: 5,
                peers: true,
                trees: true,
                catalog: true,
                runtime: true,
                relevance: true,
                size: true,
                audit: true,
                audit_set: None,
                audit_corpus: None,
                relevance_skills: None,
            })
        );
        assert_eq!(
            parse(&["--shape", "classic", "--no-peers"]).map(|args| (args.shapes, args.peers)),
            Ok((vec![tree::Shape::Classic], false))
        );
        assert!(parse(&["--shape", "huge"]).is_err());
        assert!(parse(&["--shape"]).is_err());
        assert!(parse(&["--quick", "--skills", "5"]).is_err());
        assert!(parse(&["--runs", "1"]).is_err());
        assert!(parse(&["--skills"]).is_err());
        assert!(parse(&["--fast"]).is_err());
        let only = |flag: &str| parse(&[flag]).map(|args| (args.trees, args.catalog, args.runtime));
        assert_eq!(only("--runtime-only"), Ok((false, false, true)));
        assert_eq!(only("--catalog-only"), Ok((false, true, false)));
        assert_eq!(only("--relevance-only"), Ok((false, false, false)));
        assert!(parse(&["--relevance-only", "--runtime-only"]).is_err());
        assert!(parse(&["--relevance-only", "--no-relevance"]).is_err());
        assert_eq!(parse(&["--no-size"]).map(|args| args.size), Ok(false));
        assert_eq!(
            parse(&["--size-only"]).map(|args| (args.trees, args.relevance, args.audit, args.size)),
            Ok((false, false, false, true))
        );
        assert_eq!(parse(&["--runtime-only"]).map(|args| args.size), Ok(false));
        assert!(parse(&["--size-only", "--no-size"]).is_err());
        assert!(parse(&["--size-only", "--audit-only"]).is_err());
        assert_eq!(
            parse(&["--no-relevance"]).map(|args| (args.trees, args.relevance)),
            Ok((true, false))
        );
        assert_eq!(only("--no-runtime"), Ok((true, true, false)));
        assert!(parse(&["--runtime-only", "--catalog-only"]).is_err());
        assert!(parse(&["--runtime-only", "--no-runtime"]).is_err());
        assert!(parse(&["--catalog-only", "--no-catalog"]).is_err());
    }

    #[test]
    fn parses_the_audit_flags() {
        let parse = |args: &[&str]| Args::parse(&strings(args));
        let rows = |args: &[&str]| {
            parse(args).map(|args| {
                (
                    args.trees,
                    args.catalog,
                    args.runtime,
                    args.relevance,
                    args.audit,
                )
            })
        };
        assert_eq!(rows(&[]), Ok((true, true, true, true, true)));
        assert_eq!(
            rows(&["--audit-only"]),
            Ok((false, false, false, false, true))
        );
        assert_eq!(rows(&["--no-audit"]), Ok((true, true, true, true, false)));
        // The other `--...-only` flags keep the audit rows' place at the end.
        assert_eq!(
            rows(&["--runtime-only"]),
            Ok((false, false, true, true, true))
        );
        let given = parse(&[
            "--audit-only",
            "--audit-set",
            "/src/skillfortify",
            "--audit-corpus",
            "/tmp/corpus",
            "--no-peers",
        ])
        .unwrap();
        assert_eq!(given.audit_set, Some(PathBuf::from("/src/skillfortify")));
        assert_eq!(given.audit_corpus, Some(PathBuf::from("/tmp/corpus")));
        assert!(!given.peers);
        assert!(parse(&["--audit-set"]).is_err_and(|error| error.contains("needs a folder")));
        assert!(parse(&["--audit-corpus", "--no-peers"]).is_err());
        assert!(parse(&["--audit-set", "/a", "--audit-set", "/b"]).is_err());
        assert!(parse(&["--audit-only", "--no-audit"]).is_err());
        assert!(parse(&["--audit-only", "--runtime-only"]).is_err());
        assert!(parse(&["--no-audit", "--audit-set", "/a"]).is_err());
    }

    #[test]
    fn finds_artifacts_in_cargo_messages() {
        let messages = concat!(
            r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"skills"},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"kind":["bin"],"crate_types":["bin"],"name":"skills"},"executable":"/t/release/skills"}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"kind":["bench"],"name":"discover"},"executable":"/t/release/deps/discover-ab"}"#,
            "\n",
        );
        assert_eq!(
            artifact(messages, "bin", "skills"),
            Some(PathBuf::from("/t/release/skills"))
        );
        assert_eq!(
            artifact(messages, "bench", "discover"),
            Some(PathBuf::from("/t/release/deps/discover-ab"))
        );
        assert_eq!(artifact(messages, "bin", "discover"), None);
    }

    #[test]
    fn counts_listings() {
        assert_eq!(count_listed(br#"[{"name":"a"},{"name":"b,]"}]"#), Some(2));
        assert_eq!(count_listed(b" [ ] "), Some(0));
        let object = br#"{"diagnostics":[{"skills":[1,2,3]}],"skills":[{"name":"a","x":[1,2]},{"name":"\"skills\""},{"name":"c"}],"trusted":true}"#;
        assert_eq!(count_listed(object), Some(3));
        assert_eq!(count_listed(br#"{"skills":[]}"#), Some(0));
        assert_eq!(count_listed(br#"{"other":[]}"#), None);
        let marked = br#"{"skills": [{"audit": {"state": "current"}}, {"audit": {"state": "stale"}}, {"name": "x"},
            {"audit": {"state": "current"}}]}"#;
        assert_eq!(current_marks(marked), 2);
        assert_eq!(current_marks(br#"[{"audit": {"state": "current"}}]"#), 1);
        assert_eq!(current_marks(b"not json"), 0);
    }

    #[test]
    fn writes_mcp_messages() {
        let request = mcp_message(Some(3), "resources/list", None);
        let parsed: Value = serde_json::from_str(&request).unwrap();
        assert_eq!(
            parsed,
            json!({"jsonrpc": "2.0", "id": 3, "method": "resources/list"})
        );
        let notification = mcp_message(None, "notifications/initialized", None);
        assert!(!notification.contains("\"id\"") && !notification.contains('\n'));
        let with_params = mcp_message(Some(1), "initialize", Some(json!({"capabilities": {}})));
        assert!(with_params.contains(r#""params":{"capabilities":{}}"#));
    }

    #[test]
    fn tells_answers_from_notifications() {
        let answer = r#"{"jsonrpc":"2.0","id":3,"result":{"resources":[]}}"#;
        assert_eq!(answered_request(answer), Ok(Some(3)));
        let error = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}"#;
        assert_eq!(answered_request(error), Ok(Some(2)));
        let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"id":7}}"#;
        assert_eq!(answered_request(log), Ok(None));
        // Another writer's key order, or spaces, are parsed whole.
        let reordered = r#"{ "result": {}, "id": 12, "jsonrpc": "2.0" }"#;
        assert_eq!(answered_request(reordered), Ok(Some(12)));
        let failed = r#"{"error":{"code":-32602,"message":"bad cursor"},"id":3,"jsonrpc":"2.0"}"#;
        assert!(answered_request(failed).is_err_and(|message| message.contains("bad cursor")));
        assert!(answered_request("server starting...").is_err());
        assert!(answered_request(r#"{"id":1,"result":{}}"#).is_err());
    }

    #[test]
    fn reads_mcp_answers() {
        assert_eq!(
            mcp_answer(r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#),
            Ok(Some((2, json!({"tools": []}))))
        );
        assert_eq!(
            mcp_answer(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
            Ok(None)
        );
        assert!(mcp_answer(r#"{"jsonrpc":"2.0","id":2}"#).is_err());
        assert!(mcp_answer(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#).is_err());
        assert!(
            mcp_answer(r#"{"jsonrpc":"2.0","id":1,"error":{"message":"untrusted"}}"#).is_err_and(
                |message| message.contains("request 1") && message.contains("untrusted")
            )
        );
    }

    #[test]
    fn checks_the_first_resources_page() {
        let resources = json!([
            {"uri": "skill://a/SKILL.md", "name": "a"},
            {"uri": "skill://a/scripts/run.py", "name": "a/scripts/run.py"},
            {"uri": "skill://a/references/SKILL.md", "name": "a/references/SKILL.md"},
            {"uri": "skill://b/SKILL.md", "name": "b"},
        ]);
        let page = json!({"resources": resources, "nextCursor": "skills-2"});
        assert_eq!(
            first_resources_page(&page, 9_775),
            Ok(ResourcesPage {
                resources: 4,
                skills: 2
            })
        );
        let last = json!({"resources": resources});
        assert!(
            first_resources_page(&last, 9_775).is_err_and(|message| message.contains("nextCursor"))
        );
        assert!(
            first_resources_page(&json!({"resources": resources, "nextCursor": ""}), 3).is_err()
        );
        // A catalog that fits on one page needs no cursor.
        assert_eq!(
            first_resources_page(&last, 2).map(|page| page.skills),
            Ok(2)
        );
        assert!(
            first_resources_page(&json!({"resources": [], "nextCursor": "skills-0"}), 1)
                .is_err_and(|message| message.contains("empty"))
        );
        assert!(first_resources_page(&json!({"contents": []}), 1).is_err());
    }

    #[test]
    fn checks_a_whole_mcp_session() {
        let session = |answers: [&str; 3]| McpSession {
            answers: answers.map(str::to_owned),
            bytes: 0,
        };
        let initialize = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#;
        let tools = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"load_skill"}]}}"#;
        let resources = r#"{"jsonrpc":"2.0","id":3,"result":{"resources":[{"uri":"skill://a/SKILL.md"}],"nextCursor":"skills-1"}}"#;
        assert_eq!(
            session([initialize, tools, resources]).check(10),
            Ok(ResourcesPage {
                resources: 1,
                skills: 1
            })
        );
        assert!(session([initialize, resources, tools]).check(10).is_err());
        let no_tools = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
        assert!(
            session([initialize, no_tools, resources])
                .check(10)
                .is_err_and(|message| message.contains("tools"))
        );
    }

    #[test]
    fn reads_the_discover_bench_output() {
        let text = r#"{"skills":980,"shadowed":20,"diagnostics":5,"runs_ns":[10,20,30]}"#;
        assert_eq!(json_numbers_after(text, "\"runs_ns\":["), [10, 20, 30]);
        assert_eq!(json_numbers_after(text, "\"skills\":"), [980]);
        assert!(json_numbers_after(text, "\"missing\":").is_empty());
    }
}
