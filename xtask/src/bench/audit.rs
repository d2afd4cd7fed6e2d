//! The audit rows of `cargo xtask bench` (issue 31, "Measured, not asserted"): how well
//! `skills audit` tells malicious skills from benign ones, how often it flags real public
//! skills, and how fast it is — side by side in the same run with Cisco's `skill-scanner` and
//! `skillfortify`, installed from PyPI into the bench's temporary folder and run offline
//! ([`scanners`]).
//!
//! Two data sets, each given by the person running the bench and never shipped with the
//! project: SkillFortifyBench (`--audit-set DIR`, [`labelled`]), 540 labelled specimens, for
//! precision, recall and F1 of "flagged at high or above" over all surfaces and per surface;
//! and a real corpus (`--audit-corpus DIR`, [`corpus`]), a folder of public skills, for the
//! share flagged at high or above (every one a false positive), with the security-research
//! subset on its own. A set that is not given, or absent, is said plainly to be not run.
//!
//! Timing, every scanner the same way: one whole process per skill, spawn to exit, output
//! read. This program and skillfortify (under a second a skill) are timed on every skill;
//! Cisco's scanner loads and checks its rule packs at every start (seconds here), so its
//! verdicts come from its batch command (`scan-all`, [`BATCH`] skills a process) and its
//! per-skill time from a sample spread over each set ([`SAMPLE_PER_SET`]), on which all three
//! are timed in rotating turns — the speed ratios are taken on that sample. Each tool's batch
//! mode is timed on the corpus too, and its `--version`, so its start-up shows beside its
//! per-skill figure.

mod corpus;
mod labelled;
mod metrics;
mod scanners;

use std::collections::HashMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::report;
use crate::Failure;
use metrics::{Confusion, Severity, figure, percent, share};
use scanners::{Outcome, Peer, Sandbox, Scanner};

/// Skills per batch process: a `skills audit` with this many folders, a `scan-all` of a folder
/// with this many links, a skillfortify root with this many skills.
const BATCH: usize = 100;
/// Skills of each set timed for every scanner, Cisco's included, spread evenly over the set.
const SAMPLE_PER_SET: usize = 12;
/// Runs of each scanner's `--version`; the median is reported.
const VERSION_RUNS: usize = 5;
/// The speed target: this program at least this many times faster per skill.
const SPEEDUP: f64 = 20.0;
/// The least corpus the issue asks for.
const CORPUS_LEAST: usize = 800;

/// What the person running the bench gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Options {
    /// A checkout of qualixar/skillfortify, or its `benchmarks` folder.
    pub(crate) set: Option<PathBuf>,
    /// A folder of public skills.
    pub(crate) corpus: Option<PathBuf>,
    /// Install and run the peers (off with `--no-peers`).
    pub(crate) peers: bool,
}

/// One skill or specimen to scan.
struct Item {
    /// Where this program and Cisco's scanner are pointed.
    target: PathBuf,
    /// Where skillfortify is pointed: a specimen's root, a corpus skill's staged root.
    fortify_root: PathBuf,
    /// The target's own folder name, which a staged link keeps (a scanner may compare it with
    /// the skill's name).
    name: String,
    /// From the corpus (else from the labelled set).
    corpus: bool,
}

/// One scanner's part of the run.
struct ScannerRun {
    scanner: Scanner,
    /// What ran (version, isolation), or why it did not.
    status: Result<String, String>,
    /// Per item, in the order of the items; `None` where it did not run.
    outcomes: Vec<Option<Outcome>>,
    /// Whole process per skill: (from the corpus, time).
    per_skill: Vec<(bool, Duration)>,
    /// Whole process per skill on the shared sample.
    sample: Vec<Duration>,
    /// Batch processes on the corpus: (skills, time).
    batches: Vec<(usize, Duration)>,
    version: Option<Duration>,
}

impl ScannerRun {
    fn new(scanner: Scanner, status: Result<String, String>, items: usize) -> Self {
        Self {
            scanner,
            status,
            outcomes: vec![None; items],
            per_skill: Vec::new(),
            sample: Vec::new(),
            batches: Vec::new(),
            version: None,
        }
    }

    fn ran(&self) -> bool {
        self.status.is_ok()
    }
}

/// Everything the audit rows measured.
pub(crate) struct Run {
    date: String,
    commit: Option<String>,
    load_before: Option<String>,
    load_after: Option<String>,
    set: Result<labelled::Set, String>,
    corpus: Result<(PathBuf, Vec<corpus::Skill>), String>,
    peers: String,
    scanners: Vec<ScannerRun>,
    sample: usize,
    warnings: Vec<String>,
    total: Duration,
}

/// Runs the audit rows with the release `skills` at `skills`, in `scratch`.
pub(crate) fn measure(
    root: &Path,
    scratch: &Path,
    skills: &Path,
    options: &Options,
) -> Result<Run, Failure> {
    let started = Instant::now();
    let load_before = report::load_average();
    println!("\n==> audit rows: SkillFortifyBench and a real corpus, beside the Python peers");
    let set = match &options.set {
        None => Err("not run: no `--audit-set DIR` was given (a checkout of github.com/qualixar/skillfortify, or its benchmarks folder; the project does not ship the set)".to_owned()),
        Some(dir) if !dir.exists() => Err(format!("not run: {} does not exist", dir.display())),
        Some(dir) => labelled::read(dir).map_err(|reason| format!("not run: {reason}")),
    };
    let corpus = match &options.corpus {
        None => Err("not run: no `--audit-corpus DIR` was given (a folder of public skills, e.g. checkouts of anthropics/skills, openai/skills, trailofbits/skills …; the project does not ship one)".to_owned()),
        Some(dir) if !dir.exists() => Err(format!("not run: {} does not exist", dir.display())),
        Some(dir) => read_corpus(dir),
    };
    let mut warnings = Vec::new();
    match &set {
        Ok(set) => {
            println!(
                "labelled set: {} specimens ({} malicious) in {}",
                set.specimens.len(),
                set.malicious(),
                set.dir.display()
            );
            if set
                .declared
                .is_some_and(|declared| declared != set.specimens.len())
            {
                warnings.push(format!(
                    "the manifest declares {:?} specimens; {} were read",
                    set.declared,
                    set.specimens.len()
                ));
            }
        }
        Err(reason) => println!("labelled set: {reason}"),
    }
    match &corpus {
        Ok((dir, skills)) => {
            println!("real corpus: {} skills in {}", skills.len(), dir.display());
            if skills.len() < CORPUS_LEAST {
                warnings.push(format!(
                    "the corpus holds {} skills; the issue asks for at least {CORPUS_LEAST}",
                    skills.len()
                ));
            }
        }
        Err(reason) => println!("real corpus: {reason}"),
    }
    let items = items(&set, &corpus);
    let mut run = Run {
        date: report::utc_now(),
        commit: report::git(root).0,
        load_before,
        load_after: None,
        set,
        corpus,
        peers: String::new(),
        scanners: Vec::new(),
        sample: 0,
        warnings,
        total: Duration::ZERO,
    };
    if items.is_empty() {
        run.peers = "not installed: there is nothing to scan".to_owned();
        run.scanners = Scanner::ALL
            .into_iter()
            .map(|scanner| ScannerRun::new(scanner, Err("nothing to scan".to_owned()), 0))
            .collect();
        run.total = started.elapsed();
        return Ok(run);
    }
    let ours = Ours::new(skills, scratch)?;
    let ours_status = ours.probe();
    match &ours_status {
        Ok(status) => println!("skills audit: {status}"),
        Err(reason) => println!("skills audit: not measured: {reason}"),
    }
    let (peers, peers_status) = install_peers(root, scratch, options.peers);
    println!("peers: {peers_status}");
    run.peers = peers_status;
    let mut scanners: Vec<ScannerRun> = vec![
        ScannerRun::new(Scanner::Ours, ours_status, items.len()),
        ScannerRun::new(
            Scanner::Cisco,
            peers
                .cisco
                .as_ref()
                .map(|peer| peer.version.clone())
                .map_err(Clone::clone),
            items.len(),
        ),
        ScannerRun::new(
            Scanner::Fortify,
            peers
                .fortify
                .as_ref()
                .map(|peer| peer.version.clone())
                .map_err(Clone::clone),
            items.len(),
        ),
    ];
    let mut context = Context {
        items: &items,
        ours: &ours,
        peers: &peers,
        scratch,
        warnings: &mut run.warnings,
    };
    context.stage_corpus_for_fortify()?;
    context.per_skill(&mut scanners)?;
    context.cisco_batches(&mut scanners[1])?;
    context.ours_batches(&mut scanners[0])?;
    context.fortify_batches(&mut scanners[2])?;
    run.sample = context.sample(&mut scanners)?;
    context.versions(&mut scanners)?;
    run.scanners = scanners;
    run.load_after = report::load_average();
    run.total = started.elapsed();
    Ok(run)
}

/// The corpus's skills, or why the corpus is not run.
fn read_corpus(dir: &Path) -> Result<(PathBuf, Vec<corpus::Skill>), String> {
    let skills = corpus::walk(dir)
        .map_err(|error| format!("not run: could not walk {}: {error}", dir.display()))?;
    if skills.is_empty() {
        return Err(format!(
            "not run: no folder holding a SKILL.md below {}",
            dir.display()
        ));
    }
    Ok((dir.to_path_buf(), skills))
}

/// The labelled specimens, then the corpus's skills.
fn items(
    set: &Result<labelled::Set, String>,
    corpus: &Result<(PathBuf, Vec<corpus::Skill>), String>,
) -> Vec<Item> {
    let name = |path: &Path| {
        path.file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned())
    };
    let mut items = Vec::new();
    if let Ok(set) = set {
        items.extend(set.specimens.iter().map(|specimen| Item {
            target: specimen.target.clone(),
            fortify_root: specimen.root.clone(),
            name: name(&specimen.target),
            corpus: false,
        }));
    }
    if let Ok((_, skills)) = corpus {
        items.extend(skills.iter().map(|skill| Item {
            target: skill.dir.clone(),
            // Set when the corpus is staged for skillfortify.
            fortify_root: PathBuf::new(),
            name: name(&skill.dir),
            corpus: true,
        }));
    }
    items
}

/// This program, started the same way for every row.
struct Ours {
    skills: PathBuf,
    home: PathBuf,
    workspace: PathBuf,
}

impl Ours {
    fn new(skills: &Path, scratch: &Path) -> Result<Self, Failure> {
        let ours = Self {
            skills: skills.to_path_buf(),
            home: scratch.join("audit-home"),
            workspace: scratch.join("audit-workspace"),
        };
        for dir in [&ours.home, &ours.workspace] {
            fs::create_dir_all(dir).map_err(|error| io_failure(dir, &error))?;
        }
        Ok(ours)
    }

    /// `skills audit --json TARGET…` with a fresh home and workspace.
    fn command(&self, targets: &[&Path]) -> Command {
        let mut command = Command::new(&self.skills);
        command
            .arg("--home")
            .arg(&self.home)
            .arg("--workspace")
            .arg(&self.workspace)
            .args(["audit", "--json"])
            .args(targets)
            .current_dir(&self.workspace)
            .env_remove("SKILLS_HOME")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null());
        command
    }

    /// Whether this build has the `audit` command.
    fn probe(&self) -> Result<String, String> {
        let mut command = Command::new(&self.skills);
        command
            .args(["audit", "--help"])
            .env_remove("SKILLS_HOME")
            .stdin(Stdio::null());
        match command.output() {
            Ok(output) if output.status.success() => Ok(format!(
                "{} (release build), home and workspace fresh folders",
                self.skills.display()
            )),
            Ok(output) => Err(format!(
                "this build of `skills` has no `audit` command (`skills audit --help` exited {}: {})",
                output.status,
                String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .find(|line| !line.trim().is_empty())
                    .unwrap_or("")
                    .trim()
            )),
            Err(error) => Err(format!("`skills audit --help` did not start: {error}")),
        }
    }
}

/// The installed peers, each or why not.
struct Peers {
    sandbox: Option<Sandbox>,
    cisco: Result<Peer, String>,
    fortify: Result<Peer, String>,
}

/// Installs both peers (unless `wanted` is false); a line saying what ran and how.
fn install_peers(root: &Path, scratch: &Path, wanted: bool) -> (Peers, String) {
    let not = |reason: &str| Peers {
        sandbox: None,
        cisco: Err(reason.to_owned()),
        fortify: Err(reason.to_owned()),
    };
    if !wanted {
        return (not("`--no-peers`"), "not measured: `--no-peers`".to_owned());
    }
    let sandbox = match Sandbox::new(scratch.join("audit-peers/home")) {
        Ok(sandbox) => sandbox,
        Err(reason) => return (not(&reason), format!("not measured: {reason}")),
    };
    println!(
        "==> audit peers: installing {} and {} from PyPI",
        scanners::CISCO,
        scanners::SKILLFORTIFY
    );
    let cisco = sandbox.install(
        root,
        &scratch.join("audit-peers/cisco"),
        scanners::CISCO,
        "skill-scanner",
    );
    let fortify = sandbox.install(
        root,
        &scratch.join("audit-peers/skillfortify"),
        scanners::SKILLFORTIFY,
        "skillfortify",
    );
    let describe = |package: &str, peer: &Result<Peer, String>| match peer {
        Ok(peer) => format!("{package} ({})", peer.version),
        Err(reason) => format!("{package} not measured: {reason}"),
    };
    let status = format!(
        "{}; {}; each run in a private network namespace ({}), HOME a fresh folder, no model, no API key",
        describe(scanners::CISCO, &cisco),
        describe(scanners::SKILLFORTIFY, &fortify),
        sandbox.describe()
    );
    (
        Peers {
            sandbox: Some(sandbox),
            cisco,
            fortify,
        },
        status,
    )
}

/// What every pass needs.
struct Context<'a> {
    items: &'a [Item],
    ours: &'a Ours,
    peers: &'a Peers,
    scratch: &'a Path,
    warnings: &'a mut Vec<String>,
}

/// One finished process.
struct Timed {
    elapsed: Duration,
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn timed(command: &mut Command) -> Result<Timed, Failure> {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let output = command.output().map_err(|error| {
        Failure::new(
            format!(
                "could not start `{}`: {error}",
                crate::process::describe(command)
            ),
            "check that the build and the peers' install above produced it",
        )
    })?;
    Ok(Timed {
        elapsed: started.elapsed(),
        code: output.status.code(),
        stdout: output.stdout,
        stderr: output.stderr,
    })
}

impl<'a> Context<'a> {
    fn peer(&self, scanner: Scanner) -> Option<(&'a Sandbox, &'a Peer)> {
        let peers: &'a Peers = self.peers;
        let peer = match scanner {
            Scanner::Ours => return None,
            Scanner::Cisco => peers.cisco.as_ref().ok()?,
            Scanner::Fortify => peers.fortify.as_ref().ok()?,
        };
        Some((peers.sandbox.as_ref()?, peer))
    }

    /// skillfortify finds skills where an agent loads them, not in a bare skill folder: each
    /// corpus skill gets a root of its own holding `.claude/skills/<name>`, a link to it.
    fn stage_corpus_for_fortify(&mut self) -> Result<(), Failure> {
        if self.peer(Scanner::Fortify).is_none() {
            return Ok(());
        }
        let base = self.scratch.join("audit-stage/skillfortify");
        for (index, item) in self.items.iter().enumerate() {
            if item.corpus {
                let root = base.join(index.to_string());
                link(&item.target, &root.join(".claude/skills").join(&item.name))?;
            }
        }
        Ok(())
    }

    fn fortify_root(&self, index: usize) -> PathBuf {
        match self.items.get(index) {
            Some(item) if item.corpus => self
                .scratch
                .join("audit-stage/skillfortify")
                .join(index.to_string()),
            Some(item) => item.fortify_root.clone(),
            None => PathBuf::new(),
        }
    }

    /// Runs `scanner` on item `index` as one whole process: its time and outcome, and
    /// whether its exit status agreed with its report (this program only).
    fn once(&self, scanner: Scanner, index: usize) -> Result<Option<(Timed, Outcome)>, Failure> {
        let Some(item) = self.items.get(index) else {
            return Ok(None);
        };
        Ok(Some(match scanner {
            Scanner::Ours => {
                let result = timed(&mut self.ours.command(&[&item.target]))?;
                let (outcome, agrees) =
                    scanners::read_ours(result.code, &result.stdout, &result.stderr);
                let outcome = match outcome {
                    Outcome::Scanned { .. } if !agrees => Outcome::NotScanned(format!(
                        "exit status {:?} disagrees with its report",
                        result.code
                    )),
                    outcome => outcome,
                };
                (result, outcome)
            }
            Scanner::Cisco => {
                let Some((sandbox, peer)) = self.peer(scanner) else {
                    return Ok(None);
                };
                let mut command = sandbox.command(
                    &peer.program,
                    std::iter::once("scan".as_ref())
                        .chain(std::iter::once(item.target.as_os_str()))
                        .chain(scanners::CISCO_FLAGS.iter().map(|flag| flag.as_ref())),
                );
                let result = timed(&mut command)?;
                let outcome = scanners::read_cisco(result.code, &result.stdout, &result.stderr);
                (result, outcome)
            }
            Scanner::Fortify => {
                let Some((sandbox, peer)) = self.peer(scanner) else {
                    return Ok(None);
                };
                let root = self.fortify_root(index);
                let mut command = sandbox.command(
                    &peer.program,
                    [
                        "scan".as_ref(),
                        root.as_os_str(),
                        "--format".as_ref(),
                        "json".as_ref(),
                    ],
                );
                let result = timed(&mut command)?;
                let outcome = scanners::read_fortify(result.code, &result.stdout, &result.stderr);
                (result, outcome)
            }
        }))
    }

    /// This program and skillfortify on every item, one process each, taking turns.
    fn per_skill(&mut self, scanners: &mut [ScannerRun]) -> Result<(), Failure> {
        let timed_here: Vec<Scanner> = [Scanner::Ours, Scanner::Fortify]
            .into_iter()
            .filter(|scanner| {
                scanners
                    .iter()
                    .any(|run| run.scanner == *scanner && run.ran())
            })
            .collect();
        if timed_here.is_empty() {
            return Ok(());
        }
        println!(
            "==> audit: {} one process per skill on {} skills, taking turns",
            timed_here
                .iter()
                .map(|scanner| scanner.label())
                .collect::<Vec<_>>()
                .join(" and "),
            self.items.len()
        );
        for index in 0..self.items.len() {
            let mut order = timed_here.clone();
            if index % 2 == 1 {
                order.reverse();
            }
            for scanner in order {
                let Some((result, outcome)) = self.once(scanner, index)? else {
                    continue;
                };
                if let Some(run) = scanners.iter_mut().find(|run| run.scanner == scanner) {
                    let corpus = self.items.get(index).is_some_and(|item| item.corpus);
                    run.per_skill.push((corpus, result.elapsed));
                    if let Some(slot) = run.outcomes.get_mut(index) {
                        *slot = Some(outcome);
                    }
                }
            }
            if index % 50 == 49 {
                print!(".");
                let _ = std::io::stdout().flush();
            }
        }
        println!();
        Ok(())
    }

    /// Cisco's verdicts, from `scan-all` over folders of links, [`BATCH`] a process.
    fn cisco_batches(&mut self, run: &mut ScannerRun) -> Result<(), Failure> {
        let Some((sandbox, peer)) = self.peer(Scanner::Cisco) else {
            return Ok(());
        };
        let base = self.scratch.join("audit-stage/cisco");
        let mut batch_number = 0;
        for corpus in [false, true] {
            let group: Vec<usize> = (0..self.items.len())
                .filter(|&index| {
                    self.items
                        .get(index)
                        .is_some_and(|item| item.corpus == corpus)
                })
                .collect();
            let batches = batches(self.items, &group);
            println!(
                "==> audit: {} `scan-all` over {} {} in {} processes",
                Scanner::Cisco.label(),
                group.len(),
                if corpus { "corpus skills" } else { "specimens" },
                batches.len()
            );
            for batch in batches {
                batch_number += 1;
                let dir = base.join(batch_number.to_string());
                let mut links = Vec::new();
                for &index in &batch {
                    if let Some(item) = self.items.get(index) {
                        let at = dir.join(&item.name);
                        link(&item.target, &at)?;
                        links.push((index, at));
                    }
                }
                let mut command = sandbox.command(
                    &peer.program,
                    std::iter::once("scan-all".as_ref())
                        .chain(std::iter::once(dir.as_os_str()))
                        .chain(scanners::CISCO_FLAGS.iter().map(|flag| flag.as_ref())),
                );
                let result = timed(&mut command)?;
                let read = if result.code == Some(0) {
                    scanners::read_batch(&result.stdout)
                } else {
                    Err(format!(
                        "exit status {:?}: {}",
                        result.code,
                        String::from_utf8_lossy(&result.stderr)
                            .lines()
                            .last()
                            .unwrap_or("")
                    ))
                };
                let mut found: HashMap<PathBuf, Outcome> = match read {
                    Ok(found) => found.into_iter().collect(),
                    Err(reason) => {
                        self.warnings.push(format!(
                            "{} `scan-all` of {} failed: {reason}",
                            Scanner::Cisco.label(),
                            dir.display()
                        ));
                        HashMap::new()
                    }
                };
                for (index, at) in links {
                    let outcome = found.remove(&at).unwrap_or_else(|| {
                        Outcome::NotScanned(
                            "not in `scan-all`'s results (it scans the folders below it that hold a SKILL.md)"
                                .to_owned(),
                        )
                    });
                    if let Some(slot) = run.outcomes.get_mut(index) {
                        *slot = Some(outcome);
                    }
                }
                if corpus {
                    run.batches.push((batch.len(), result.elapsed));
                }
                print!(".");
                let _ = std::io::stdout().flush();
            }
            println!();
        }
        Ok(())
    }

    /// This program's batch mode on the corpus: `skills audit --json DIR…`, [`BATCH`] folders a
    /// process; each verdict is checked against the one-process-per-skill verdict.
    fn ours_batches(&mut self, run: &mut ScannerRun) -> Result<(), Failure> {
        if !run.ran() {
            return Ok(());
        }
        let group: Vec<usize> = (0..self.items.len())
            .filter(|&index| self.items.get(index).is_some_and(|item| item.corpus))
            .collect();
        let mut disagreements = Vec::new();
        for batch in batches(self.items, &group) {
            let targets: Vec<&Path> = batch
                .iter()
                .filter_map(|&index| self.items.get(index).map(|item| item.target.as_path()))
                .collect();
            let result = timed(&mut self.ours.command(&targets))?;
            run.batches.push((batch.len(), result.elapsed));
            // 2 when a folder could not be scanned; the others are still reported.
            let read = match result.code {
                Some(0..=2) => scanners::read_batch(&result.stdout),
                other => Err(format!("exit status {other:?}")),
            };
            let reports = match read {
                Ok(reports) => reports,
                Err(reason) => {
                    self.warnings.push(format!(
                        "`skills audit --json` of {} folders: {reason}",
                        batch.len()
                    ));
                    continue;
                }
            };
            if reports.len() != batch.len() {
                self.warnings.push(format!(
                    "`skills audit --json` of {} folders gave {} reports",
                    batch.len(),
                    reports.len()
                ));
            }
            let by_path: HashMap<PathBuf, bool> = reports
                .into_iter()
                .map(|(path, outcome)| (canonical(&path), outcome.flagged()))
                .collect();
            for &index in &batch {
                let (Some(item), Some(Some(alone))) =
                    (self.items.get(index), run.outcomes.get(index))
                else {
                    continue;
                };
                if let Some(&flagged) = by_path.get(&canonical(&item.target))
                    && flagged != alone.flagged()
                {
                    disagreements.push(item.target.display().to_string());
                }
            }
        }
        if let Some(first) = disagreements.first() {
            self.warnings.push(format!(
                "`skills audit` gave {} skills another verdict in a batch than alone (the first: {first})",
                disagreements.len()
            ));
        }
        Ok(())
    }

    /// skillfortify's batch mode on the corpus, for its time only (its results name skills,
    /// not paths): one root holding [`BATCH`] skills under `.claude/skills/`.
    fn fortify_batches(&mut self, run: &mut ScannerRun) -> Result<(), Failure> {
        let Some((sandbox, peer)) = self.peer(Scanner::Fortify) else {
            return Ok(());
        };
        let group: Vec<usize> = (0..self.items.len())
            .filter(|&index| self.items.get(index).is_some_and(|item| item.corpus))
            .collect();
        let base = self.scratch.join("audit-stage/skillfortify-batches");
        for (number, batch) in batches(self.items, &group).into_iter().enumerate() {
            let root = base.join(number.to_string());
            for &index in &batch {
                if let Some(item) = self.items.get(index) {
                    link(&item.target, &root.join(".claude/skills").join(&item.name))?;
                }
            }
            let mut command = sandbox.command(
                &peer.program,
                [
                    "scan".as_ref(),
                    root.as_os_str(),
                    "--format".as_ref(),
                    "json".as_ref(),
                ],
            );
            let result = timed(&mut command)?;
            run.batches.push((batch.len(), result.elapsed));
            let counted = scanners::fortify_count(&result.stdout);
            if counted != Some(batch.len()) {
                self.warnings.push(format!(
                    "skillfortify's batch of {} skills in {} reported {counted:?}",
                    batch.len(),
                    root.display()
                ));
            }
        }
        Ok(())
    }

    /// Every scanner, one process per skill, on [`SAMPLE_PER_SET`] skills of each set, in
    /// rotating turns; Cisco's verdict there is checked against its batch verdict. The number
    /// of skills in the sample.
    fn sample(&mut self, scanners: &mut [ScannerRun]) -> Result<usize, Failure> {
        let mut sample = Vec::new();
        for corpus in [false, true] {
            let group: Vec<usize> = (0..self.items.len())
                .filter(|&index| {
                    self.items
                        .get(index)
                        .is_some_and(|item| item.corpus == corpus)
                })
                .collect();
            sample.extend(
                spread(group.len(), SAMPLE_PER_SET)
                    .into_iter()
                    .filter_map(|at| group.get(at).copied()),
            );
        }
        let running: Vec<Scanner> = scanners
            .iter()
            .filter(|run| run.ran())
            .map(|run| run.scanner)
            .collect();
        println!(
            "==> audit: the speed sample, {} skills, each scanner one process per skill in rotating turns",
            sample.len()
        );
        for (position, &index) in sample.iter().enumerate() {
            for turn in 0..running.len() {
                let Some(&scanner) = running.get((position + turn) % running.len()) else {
                    continue;
                };
                let Some((result, outcome)) = self.once(scanner, index)? else {
                    continue;
                };
                let Some(run) = scanners.iter_mut().find(|run| run.scanner == scanner) else {
                    continue;
                };
                run.sample.push(result.elapsed);
                if scanner == Scanner::Cisco {
                    let batch = run.outcomes.get(index).cloned().flatten();
                    let target = self
                        .items
                        .get(index)
                        .map(|item| item.target.display().to_string())
                        .unwrap_or_default();
                    match (&batch, &outcome) {
                        (Some(batch), alone) if batch.flagged() != alone.flagged() => {
                            self.warnings.push(format!(
                                "{}: `scan` alone and `scan-all` disagree on {target}: {alone:?} against {batch:?}",
                                Scanner::Cisco.label()
                            ));
                        }
                        (Some(Outcome::NotScanned(_)), Outcome::NotScanned(reason)) => {
                            // Its own words for a folder `scan-all` skipped.
                            if let Some(slot) = run.outcomes.get_mut(index) {
                                *slot = Some(Outcome::NotScanned(reason.clone()));
                            }
                        }
                        _ => {}
                    }
                }
            }
            print!(".");
            let _ = std::io::stdout().flush();
        }
        println!();
        Ok(sample.len())
    }

    /// Each scanner's `--version`, [`VERSION_RUNS`] times: its start alone.
    fn versions(&mut self, scanners: &mut [ScannerRun]) -> Result<(), Failure> {
        for run in scanners.iter_mut().filter(|run| run.ran()) {
            let mut samples = Vec::new();
            for _ in 0..VERSION_RUNS {
                let mut command = match run.scanner {
                    Scanner::Ours => {
                        let mut command = Command::new(&self.ours.skills);
                        command.arg("--version").stdin(Stdio::null());
                        command
                    }
                    scanner => {
                        let Some((sandbox, peer)) = self.peer(scanner) else {
                            break;
                        };
                        sandbox.command(&peer.program, ["--version"])
                    }
                };
                samples.push(timed(&mut command)?.elapsed);
            }
            run.version = median(&samples);
        }
        Ok(())
    }
}

/// Groups `group` (indices into `items`) into batches of at most [`BATCH`], no two items of a
/// batch with the same folder name (a batch is a folder of links named after their targets).
fn batches(items: &[Item], group: &[usize]) -> Vec<Vec<usize>> {
    let mut batches: Vec<Vec<usize>> = Vec::new();
    for &index in group {
        let Some(item) = items.get(index) else {
            continue;
        };
        let free = batches.iter_mut().find(|batch| {
            batch.len() < BATCH
                && batch
                    .iter()
                    .all(|&other| items.get(other).is_none_or(|other| other.name != item.name))
        });
        match free {
            Some(batch) => batch.push(index),
            None => batches.push(vec![index]),
        }
    }
    batches
}

/// `count` positions spread evenly over `len` (all of them when `len <= count`).
fn spread(len: usize, count: usize) -> Vec<usize> {
    if len <= count {
        return (0..len).collect();
    }
    (0..count).map(|step| step * len / count).collect()
}

/// A symbolic link at `at` to `target`, its folders made first.
fn link(target: &Path, at: &Path) -> Result<(), Failure> {
    if let Some(parent) = at.parent() {
        fs::create_dir_all(parent).map_err(|error| io_failure(parent, &error))?;
    }
    #[cfg(unix)]
    let made = std::os::unix::fs::symlink(target, at);
    #[cfg(not(unix))]
    let made: std::io::Result<()> = Err(std::io::Error::other("symbolic links need Unix here"));
    made.map_err(|error| io_failure(at, &error))
}

fn canonical(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn median(samples: &[Duration]) -> Option<Duration> {
    let nanos: Vec<u64> = samples
        .iter()
        .map(|sample| u64::try_from(sample.as_nanos()).unwrap_or(u64::MAX))
        .collect();
    report::median(&nanos).map(Duration::from_nanos)
}

fn io_failure(path: &Path, error: &std::io::Error) -> Failure {
    Failure::new(
        format!("{}: {error}", path.display()),
        "check the temporary directory's permissions and free space",
    )
}

/// Milliseconds as the tables print them.
fn ms(duration: Option<Duration>) -> String {
    match duration {
        None => "n/a".to_owned(),
        Some(duration) => {
            let ms = duration.as_secs_f64() * 1e3;
            if ms < 10.0 {
                format!("{ms:.2} ms")
            } else if ms < 1000.0 {
                format!("{ms:.1} ms")
            } else {
                format!("{:.2} s", ms / 1e3)
            }
        }
    }
}

fn ms_value(duration: Option<Duration>) -> Value {
    duration.map_or(Value::Null, |duration| json!(duration.as_secs_f64() * 1e3))
}

/// One row of the labelled table.
struct SurfaceRow {
    name: String,
    confusion: Confusion,
    not_scanned: usize,
}

/// The labelled rows of one scanner: all surfaces, each surface, the two skill surfaces.
fn labelled_rows(set: &labelled::Set, outcomes: &[Option<Outcome>]) -> Vec<SurfaceRow> {
    let row = |name: String, keep: &dyn Fn(&labelled::Specimen) -> bool| {
        let mut confusion = Confusion::default();
        let mut not_scanned = 0;
        for (specimen, outcome) in set.specimens.iter().zip(outcomes) {
            if !keep(specimen) {
                continue;
            }
            let Some(outcome) = outcome else { continue };
            if matches!(outcome, Outcome::NotScanned(_)) {
                not_scanned += 1;
            }
            confusion.count(specimen.malicious, outcome.flagged());
        }
        SurfaceRow {
            name,
            confusion,
            not_scanned,
        }
    };
    let mut rows = vec![row("all".to_owned(), &|_| true)];
    for surface in set.surfaces() {
        rows.push(row(surface.clone(), &|specimen| {
            specimen.surface == surface
        }));
    }
    rows.push(row("skill folders".to_owned(), &|specimen| {
        specimen.skill_folder
    }));
    rows
}

/// Recall per attack type: (type, flagged, malicious).
fn attack_recall(set: &labelled::Set, outcomes: &[Option<Outcome>]) -> Vec<(String, usize, usize)> {
    // The manifest writes `benign` where a benign specimen's attack would be.
    let mut types: Vec<String> = set
        .specimens
        .iter()
        .filter(|specimen| specimen.malicious)
        .filter_map(|specimen| specimen.attack.clone())
        .collect();
    types.sort_by_key(|kind| {
        (
            kind.trim_start_matches('A')
                .parse::<u32>()
                .unwrap_or(u32::MAX),
            kind.clone(),
        )
    });
    types.dedup();
    types
        .into_iter()
        .map(|kind| {
            let (mut flagged, mut total) = (0, 0);
            for (specimen, outcome) in set.specimens.iter().zip(outcomes) {
                if specimen.malicious
                    && specimen.attack.as_deref() == Some(kind.as_str())
                    && let Some(outcome) = outcome
                {
                    total += 1;
                    flagged += usize::from(outcome.flagged());
                }
            }
            (kind, flagged, total)
        })
        .collect()
}

/// One subset of the corpus, for one scanner.
struct SubsetRow {
    name: &'static str,
    skills: usize,
    scanned: usize,
    flagged: usize,
    /// Skills by worst finding, in the order of [`Severity::ALL`].
    histogram: [usize; 6],
}

impl SubsetRow {
    fn rate(&self) -> Option<f64> {
        share(self.flagged, self.scanned)
    }
}

fn corpus_rows(skills: &[corpus::Skill], outcomes: &[Option<Outcome>]) -> Vec<SubsetRow> {
    let row = |name: &'static str, keep: &dyn Fn(&corpus::Skill) -> bool| {
        let mut subset = SubsetRow {
            name,
            skills: 0,
            scanned: 0,
            flagged: 0,
            histogram: [0; 6],
        };
        for (skill, outcome) in skills.iter().zip(outcomes) {
            let (true, Some(outcome)) = (keep(skill), outcome) else {
                continue;
            };
            subset.skills += 1;
            if let Some(worst) = outcome.worst() {
                subset.scanned += 1;
                subset.flagged += usize::from(worst.flagged());
                if let Some(slot) = Severity::ALL
                    .iter()
                    .position(|severity| *severity == worst)
                    .and_then(|at| subset.histogram.get_mut(at))
                {
                    *slot += 1;
                }
            }
        }
        subset
    };
    vec![
        row("all", &|_| true),
        row("security research", &|skill| skill.security_research),
        row("the rest", &|skill| !skill.security_research),
    ]
}

/// A target of the issue, checked.
struct Target {
    measure: String,
    target: String,
    /// `None`: not measured in this run.
    met: Option<bool>,
    detail: String,
}

impl Run {
    /// The outcomes of the labelled set and of the corpus for `run`.
    fn split<'a>(&self, run: &'a ScannerRun) -> (&'a [Option<Outcome>], &'a [Option<Outcome>]) {
        let specimens = self.set.as_ref().map_or(0, |set| set.specimens.len());
        let at = specimens.min(run.outcomes.len());
        run.outcomes.split_at(at)
    }

    fn scanner(&self, scanner: Scanner) -> Option<&ScannerRun> {
        self.scanners.iter().find(|run| run.scanner == scanner)
    }

    fn overall_f1(&self, run: &ScannerRun, row: &str) -> Option<f64> {
        let set = self.set.as_ref().ok()?;
        if !run.ran() {
            return None;
        }
        let (labelled, _) = self.split(run);
        labelled_rows(set, labelled)
            .into_iter()
            .find(|candidate| candidate.name == row)
            .and_then(|row| row.confusion.f1())
    }

    fn corpus_rate(&self, run: &ScannerRun) -> Option<f64> {
        let (_, skills) = self.corpus.as_ref().ok()?;
        if !run.ran() {
            return None;
        }
        let (_, outcomes) = self.split(run);
        corpus_rows(skills, outcomes)
            .first()
            .and_then(SubsetRow::rate)
    }

    fn sample_median(run: &ScannerRun) -> Option<Duration> {
        median(&run.sample)
    }

    /// The targets: F1 at least the best anchor's, false positives at most the best
    /// anchor's, at least [`SPEEDUP`] × faster per skill than each.
    fn targets(&self) -> Vec<Target> {
        let mut targets = Vec::new();
        let Some(ours) = self.scanner(Scanner::Ours) else {
            return targets;
        };
        let anchors: Vec<&ScannerRun> = [Scanner::Cisco, Scanner::Fortify]
            .into_iter()
            .filter_map(|scanner| self.scanner(scanner))
            .filter(|run| run.ran())
            .collect();
        let not_measured = |what: &str| -> Option<String> {
            if let Err(reason) = &ours.status {
                return Some(format!("skills audit not measured: {reason}"));
            }
            if anchors.is_empty() {
                return Some(format!("no anchor measured ({})", self.peers));
            }
            match what {
                "set" => self.set.as_ref().err().cloned(),
                "corpus" => self.corpus.as_ref().err().cloned(),
                _ => None,
            }
        };
        for (row, label) in [
            ("all", "F1 on SkillFortifyBench, all surfaces"),
            (
                "skill folders",
                "F1 on SkillFortifyBench, skill folders (claude + openclaw)",
            ),
        ] {
            let best = anchors
                .iter()
                .filter_map(|run| Some((self.overall_f1(run, row)?, run.scanner.label())))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            targets.push(
                match (not_measured("set"), self.overall_f1(ours, row), best) {
                    (Some(reason), ..) => Target::not_measured(label, "≥ best anchor's", reason),
                    (None, Some(value), Some((best, anchor))) => Target {
                        measure: label.to_owned(),
                        target: "≥ best anchor's".to_owned(),
                        met: Some(value >= best),
                        detail: format!("{value:.3} against {anchor}'s {best:.3}"),
                    },
                    _ => Target::not_measured(label, "≥ best anchor's", "F1 undefined".to_owned()),
                },
            );
        }
        let label = "flagged at high or above on the real corpus (false positives)";
        let best = anchors
            .iter()
            .filter_map(|run| Some((self.corpus_rate(run)?, run.scanner.label())))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        targets.push(
            match (not_measured("corpus"), self.corpus_rate(ours), best) {
                (Some(reason), ..) => Target::not_measured(label, "≤ best anchor's", reason),
                (None, Some(value), Some((best, anchor))) => Target {
                    measure: label.to_owned(),
                    target: "≤ best anchor's".to_owned(),
                    met: Some(value <= best),
                    detail: format!(
                        "{} against {anchor}'s {}",
                        percent(Some(value)),
                        percent(Some(best))
                    ),
                },
                _ => Target::not_measured(label, "≤ best anchor's", "no skill scanned".to_owned()),
            },
        );
        for anchor in [Scanner::Cisco, Scanner::Fortify] {
            let label = format!("per skill, one process each, against {}", anchor.label());
            let target = format!("≥ {SPEEDUP}× faster");
            let peer = self.scanner(anchor);
            let reason = match (&ours.status, peer.map(|run| &run.status)) {
                (Err(reason), _) => Some(format!("skills audit not measured: {reason}")),
                (_, Some(Err(reason))) => {
                    Some(format!("{} not measured: {reason}", anchor.label()))
                }
                (_, None) => Some("not run".to_owned()),
                _ => None,
            };
            let ours_ms = Self::sample_median(ours);
            let peer_ms = peer.and_then(Self::sample_median);
            targets.push(match (reason, ours_ms, peer_ms) {
                (Some(reason), ..) => Target::not_measured(&label, &target, reason),
                (None, Some(ours_ms), Some(peer_ms)) => {
                    let ratio = peer_ms.as_secs_f64() / ours_ms.as_secs_f64().max(1e-9);
                    Target {
                        measure: label,
                        target,
                        met: Some(ratio >= SPEEDUP),
                        detail: format!(
                            "{ratio:.1}× faster ({} against {}, medians over the same {} skills)",
                            ms(Some(ours_ms)),
                            ms(Some(peer_ms)),
                            self.sample
                        ),
                    }
                }
                _ => Target::not_measured(&label, &target, "no sample timed".to_owned()),
            });
        }
        targets
    }

    /// The tables, as printed.
    pub(crate) fn table(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "audit rows, {} UTC, commit {}, load {} -> {}; verdict: flagged at {} or above",
            self.date.replace('T', " ").trim_end_matches('Z'),
            self.commit
                .as_deref()
                .map_or("unknown", |commit| commit.get(..12).unwrap_or(commit)),
            self.load_before.as_deref().unwrap_or("?"),
            self.load_after.as_deref().unwrap_or("?"),
            metrics::FLAGGED_AT.key()
        );
        let _ = writeln!(out, "peers: {}", self.peers);
        for run in &self.scanners {
            match &run.status {
                Ok(status) => {
                    let _ = writeln!(out, "{}: {status}", run.scanner.label());
                }
                Err(reason) => {
                    let _ = writeln!(out, "{}: not measured: {reason}", run.scanner.label());
                }
            }
        }
        let measured: Vec<&ScannerRun> = self.scanners.iter().filter(|run| run.ran()).collect();
        let width = Scanner::ALL
            .iter()
            .map(|scanner| scanner.label().len())
            .max()
            .unwrap_or(0);
        let _ = writeln!(out);
        match &self.set {
            Err(reason) => {
                let _ = writeln!(out, "SkillFortifyBench: {reason}");
            }
            Ok(set) => {
                let _ = writeln!(
                    out,
                    "SkillFortifyBench: {} specimens ({} malicious, {} benign) in {}; an MCP specimen is a folder with one .mcp.json, scanned at its root; not scanned counts as not flagged",
                    set.specimens.len(),
                    set.malicious(),
                    set.specimens.len() - set.malicious(),
                    set.dir.display()
                );
                let _ = writeln!(
                    out,
                    "| {:<width$} | {:<13} | {:>9} | {:>6} | {:>5} | {:>4} | {:>4} | {:>4} | {:>4} | {:>11} |",
                    "scanner",
                    "surface",
                    "precision",
                    "recall",
                    "F1",
                    "TP",
                    "FP",
                    "TN",
                    "FN",
                    "not scanned"
                );
                let _ = writeln!(
                    out,
                    "|:{:-<w$}|:{:-<14}|{:->10}:|{:->7}:|{:->6}:|{:->5}:|{:->5}:|{:->5}:|{:->5}:|{:->12}:|",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    w = width + 1
                );
                for run in &measured {
                    let (labelled, _) = self.split(run);
                    for row in labelled_rows(set, labelled) {
                        let c = row.confusion;
                        let _ = writeln!(
                            out,
                            "| {:<width$} | {:<13} | {:>9} | {:>6} | {:>5} | {:>4} | {:>4} | {:>4} | {:>4} | {:>11} |",
                            run.scanner.label(),
                            row.name,
                            figure(c.precision()),
                            figure(c.recall()),
                            figure(c.f1()),
                            c.true_positives,
                            c.false_positives,
                            c.true_negatives,
                            c.false_negatives,
                            row.not_scanned
                        );
                    }
                }
                for run in &measured {
                    let (labelled, _) = self.split(run);
                    let line: Vec<String> = attack_recall(set, labelled)
                        .into_iter()
                        .map(|(kind, flagged, total)| format!("{kind} {flagged}/{total}"))
                        .collect();
                    let _ = writeln!(
                        out,
                        "recall by attack, {}: {}",
                        run.scanner.label(),
                        line.join(", ")
                    );
                }
            }
        }
        let _ = writeln!(out);
        match &self.corpus {
            Err(reason) => {
                let _ = writeln!(out, "real corpus: {reason}");
            }
            Ok((dir, skills)) => {
                let research = skills
                    .iter()
                    .filter(|skill| skill.security_research)
                    .count();
                let _ = writeln!(
                    out,
                    "real corpus: {} skills in {} ({research} security research: paths with {}); every flag is a false positive",
                    skills.len(),
                    dir.display(),
                    corpus::SECURITY_RESEARCH.join(", ")
                );
                let _ = writeln!(
                    out,
                    "| {:<width$} | {:<17} | {:>6} | {:>7} | {:>7} | {:>7} | {:<40} |",
                    "scanner",
                    "subset",
                    "skills",
                    "scanned",
                    "flagged",
                    "rate",
                    "worst: safe/info/low/medium/high/critical"
                );
                let _ = writeln!(
                    out,
                    "|:{:-<w$}|:{:-<18}|{:->7}:|{:->8}:|{:->8}:|{:->8}:|:{:-<41}|",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    w = width + 1
                );
                for run in &measured {
                    let (_, outcomes) = self.split(run);
                    for row in corpus_rows(skills, outcomes) {
                        let histogram: Vec<String> =
                            row.histogram.iter().map(ToString::to_string).collect();
                        let _ = writeln!(
                            out,
                            "| {:<width$} | {:<17} | {:>6} | {:>7} | {:>7} | {:>7} | {:<40} |",
                            run.scanner.label(),
                            row.name,
                            row.skills,
                            row.scanned,
                            row.flagged,
                            percent(row.rate()),
                            histogram.join(" / ")
                        );
                    }
                }
            }
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "speed: one whole process per skill (median), the sample of {} skills all scanners ran on, the batch mode on the corpus ({BATCH} skills a process) and --version",
            self.sample
        );
        let _ = writeln!(
            out,
            "| {:<width$} | {:>17} | {:>17} | {:>12} | {:>13} | {:>9} | {:>13} |",
            "scanner",
            "corpus (n)",
            "specimens (n)",
            "sample",
            "batch / skill",
            "--version",
            "sample / ours"
        );
        let _ = writeln!(
            out,
            "|:{:-<w$}|{:->18}:|{:->18}:|{:->13}:|{:->14}:|{:->10}:|{:->14}:|",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            w = width + 1
        );
        let ours_sample = self
            .scanner(Scanner::Ours)
            .filter(|run| run.ran())
            .and_then(Self::sample_median);
        for run in &measured {
            let (corpus_times, set_times): (Vec<_>, Vec<_>) =
                run.per_skill.iter().partition(|(corpus, _)| *corpus);
            let times = |pairs: &[&(bool, Duration)]| {
                let samples: Vec<Duration> = pairs.iter().map(|(_, time)| *time).collect();
                if samples.is_empty() {
                    "-".to_owned()
                } else {
                    format!("{} ({})", ms(median(&samples)), samples.len())
                }
            };
            let sample = Self::sample_median(run);
            let ratio = match (sample, ours_sample) {
                (Some(sample), Some(ours)) => format!(
                    "{:.1}×",
                    sample.as_secs_f64() / ours.as_secs_f64().max(1e-9)
                ),
                _ => "-".to_owned(),
            };
            let _ = writeln!(
                out,
                "| {:<width$} | {:>17} | {:>17} | {:>12} | {:>13} | {:>9} | {:>13} |",
                run.scanner.label(),
                times(&corpus_times),
                times(&set_times),
                ms(sample),
                ms(batch_per_skill(&run.batches)),
                ms(run.version),
                ratio
            );
        }
        let _ = writeln!(out, "\ntargets (issue 31, all within this run):");
        for target in self.targets() {
            let mark = match target.met {
                Some(true) => "met   ",
                Some(false) => "MISSED",
                None => "n/a   ",
            };
            let _ = writeln!(
                out,
                "  [{mark}] {}: {} — {}",
                target.measure, target.target, target.detail
            );
        }
        if let (Ok((_, skills)), Some(ours)) = (
            &self.corpus,
            self.scanner(Scanner::Ours).filter(|run| run.ran()),
        ) {
            let (_, outcomes) = self.split(ours);
            if let Some(research) = corpus_rows(skills, outcomes).get(1) {
                let _ = writeln!(
                    out,
                    "  [note  ] security research at medium or above (the issue: info/low unless the skill's own scripts do it): {} of {} — read each in audit.json",
                    research.histogram.iter().skip(3).sum::<usize>(),
                    research.scanned
                );
            }
        }
        if !self.warnings.is_empty() {
            let _ = writeln!(out, "\nwarnings:");
            for warning in &self.warnings {
                let _ = writeln!(out, "  {warning}");
            }
        }
        let _ = writeln!(out, "\naudit rows took {:.1}s", self.total.as_secs_f64());
        out
    }

    /// Everything, for a later run to compare with: `target/bench/audit.json`.
    pub(crate) fn json(&self) -> Value {
        let scanners: Vec<Value> = self
            .scanners
            .iter()
            .map(|run| self.scanner_json(run))
            .collect();
        json!({
            "date": self.date,
            "commit": self.commit,
            "load_average_before": self.load_before,
            "load_average_after": self.load_after,
            "verdict": format!("flagged at {} or above", metrics::FLAGGED_AT.key()),
            "peers": self.peers,
            "labelled_set": match &self.set {
                Ok(set) => json!({
                    "run": true,
                    "dir": set.dir.display().to_string(),
                    "specimens": set.specimens.len(),
                    "malicious": set.malicious(),
                    "declared": set.declared,
                }),
                Err(reason) => json!({"run": false, "reason": reason}),
            },
            "corpus": match &self.corpus {
                Ok((dir, skills)) => json!({
                    "run": true,
                    "dir": dir.display().to_string(),
                    "skills": skills.len(),
                    "security_research": skills.iter().filter(|skill| skill.security_research).count(),
                    "security_research_markers": corpus::SECURITY_RESEARCH,
                }),
                Err(reason) => json!({"run": false, "reason": reason}),
            },
            "batch": BATCH,
            "sample": self.sample,
            "scanners": scanners,
            "targets": self.targets().iter().map(|target| json!({
                "measure": target.measure,
                "target": target.target,
                "met": target.met,
                "detail": target.detail,
            })).collect::<Vec<_>>(),
            "warnings": self.warnings,
            "total_seconds": self.total.as_secs_f64(),
        })
    }

    fn scanner_json(&self, run: &ScannerRun) -> Value {
        let (labelled, corpus_outcomes) = self.split(run);
        let mut value = json!({
            "scanner": run.scanner.key(),
            "label": run.scanner.label(),
            "measured": run.ran(),
        });
        match &run.status {
            Ok(status) => value["status"] = json!(status),
            Err(reason) => value["reason"] = json!(reason),
        }
        if !run.ran() {
            return value;
        }
        if let Ok(set) = &self.set {
            let rows: Vec<Value> = labelled_rows(set, labelled)
                .iter()
                .map(|row| {
                    let c = row.confusion;
                    json!({
                        "surface": row.name,
                        "specimens": c.total(),
                        "precision": c.precision(),
                        "recall": c.recall(),
                        "f1": c.f1(),
                        "false_positive_rate": c.false_positive_rate(),
                        "tp": c.true_positives,
                        "fp": c.false_positives,
                        "tn": c.true_negatives,
                        "fn": c.false_negatives,
                        "not_scanned": row.not_scanned,
                    })
                })
                .collect();
            let pick = |wanted: bool| -> Vec<Value> {
                set.specimens
                    .iter()
                    .zip(labelled)
                    .filter_map(|(specimen, outcome)| {
                        let outcome = outcome.as_ref()?;
                        (specimen.malicious == wanted && outcome.flagged() != wanted)
                            .then(|| specimen_json(specimen, outcome))
                    })
                    .collect()
            };
            value["labelled"] = json!({
                "rows": rows,
                "recall_by_attack": attack_recall(set, labelled).into_iter().map(|(kind, flagged, total)| json!({
                    "attack": kind, "flagged": flagged, "malicious": total,
                    "recall": share(flagged, total),
                })).collect::<Vec<_>>(),
                "false_negatives": pick(true),
                "false_positives": pick(false),
                "not_scanned": set.specimens.iter().zip(labelled).filter_map(|(specimen, outcome)| match outcome {
                    Some(outcome @ Outcome::NotScanned(_)) => Some(specimen_json(specimen, outcome)),
                    _ => None,
                }).collect::<Vec<_>>(),
            });
        }
        if let Ok((_, skills)) = &self.corpus {
            let rows: Vec<Value> = corpus_rows(skills, corpus_outcomes)
                .iter()
                .map(|row| {
                    let histogram: serde_json::Map<String, Value> = Severity::ALL
                        .iter()
                        .zip(row.histogram)
                        .map(|(severity, count)| (severity.key().to_owned(), json!(count)))
                        .collect();
                    json!({
                        "subset": row.name,
                        "skills": row.skills,
                        "scanned": row.scanned,
                        "not_scanned": row.skills - row.scanned,
                        "flagged": row.flagged,
                        "flagged_rate": row.rate(),
                        "worst": histogram,
                    })
                })
                .collect();
            let listed = |keep: &dyn Fn(&Outcome) -> bool| -> Vec<Value> {
                skills
                    .iter()
                    .zip(corpus_outcomes)
                    .filter_map(|(skill, outcome)| {
                        let outcome = outcome.as_ref()?;
                        keep(outcome).then(|| {
                            let mut entry = json!({
                                "path": skill.relative,
                                "security_research": skill.security_research,
                            });
                            match outcome {
                                Outcome::Scanned { worst, flagged_by } => {
                                    entry["worst"] = json!(worst.key());
                                    entry["flagged_by"] = json!(flagged_by);
                                }
                                Outcome::NotScanned(reason) => entry["reason"] = json!(reason),
                            }
                            entry
                        })
                    })
                    .collect()
            };
            value["corpus"] = json!({
                "rows": rows,
                "flagged": listed(&Outcome::flagged),
                "not_scanned": listed(&|outcome| matches!(outcome, Outcome::NotScanned(_))),
            });
        }
        let (corpus_times, set_times): (Vec<_>, Vec<_>) =
            run.per_skill.iter().partition(|(corpus, _)| *corpus);
        let collect = |pairs: &[&(bool, Duration)]| -> Vec<Duration> {
            pairs.iter().map(|(_, time)| *time).collect()
        };
        value["speed"] = json!({
            "per_skill_corpus_median_ms": ms_value(median(&collect(&corpus_times))),
            "per_skill_corpus_runs": corpus_times.len(),
            "per_skill_specimens_median_ms": ms_value(median(&collect(&set_times))),
            "per_skill_specimens_runs": set_times.len(),
            "sample_median_ms": ms_value(Self::sample_median(run)),
            "sample_runs": run.sample.len(),
            "batch_per_skill_ms": ms_value(batch_per_skill(&run.batches)),
            "batches": run.batches.iter().map(|(skills, time)| json!({"skills": skills, "ms": time.as_secs_f64() * 1e3})).collect::<Vec<_>>(),
            "version_median_ms": ms_value(run.version),
        });
        value
    }
}

impl Target {
    fn not_measured(measure: &str, target: &str, reason: String) -> Self {
        Self {
            measure: measure.to_owned(),
            target: target.to_owned(),
            met: None,
            detail: reason,
        }
    }
}

fn specimen_json(specimen: &labelled::Specimen, outcome: &Outcome) -> Value {
    let mut entry = json!({
        "id": specimen.id,
        "surface": specimen.surface,
        "attack": specimen.attack,
    });
    match outcome {
        Outcome::Scanned { worst, flagged_by } => {
            entry["worst"] = json!(worst.key());
            entry["flagged_by"] = json!(flagged_by);
        }
        Outcome::NotScanned(reason) => entry["reason"] = json!(reason),
    }
    entry
}

/// The batches' time over their skills.
fn batch_per_skill(batches: &[(usize, Duration)]) -> Option<Duration> {
    let skills: usize = batches.iter().map(|(skills, _)| skills).sum();
    let time: Duration = batches.iter().map(|(_, time)| *time).sum();
    u32::try_from(skills)
        .ok()
        .filter(|skills| *skills > 0)
        .map(|skills| time / skills)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(name: &str) -> Item {
        Item {
            target: PathBuf::from("/c").join(name),
            fortify_root: PathBuf::new(),
            name: name.to_owned(),
            corpus: true,
        }
    }

    #[test]
    fn batches_hold_unique_names_and_at_most_the_batch_size() {
        let mut items: Vec<Item> = (0..BATCH + 5).map(|n| item(&format!("s{n}"))).collect();
        items.push(item("s0"));
        items.push(item("s0"));
        let group: Vec<usize> = (0..items.len()).collect();
        let batches = batches(&items, &group);
        let mut seen: Vec<usize> = batches.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, group, "every item in exactly one batch");
        for batch in &batches {
            assert!(batch.len() <= BATCH);
            let mut names: Vec<&str> = batch.iter().map(|&i| items[i].name.as_str()).collect();
            names.sort_unstable();
            let before = names.len();
            names.dedup();
            assert_eq!(names.len(), before, "a repeated name in {batch:?}");
        }
        assert_eq!(batches.len(), 3);
    }

    #[test]
    fn the_sample_spreads_over_the_set() {
        assert_eq!(spread(5, 12), [0, 1, 2, 3, 4]);
        assert_eq!(spread(540, 4), [0, 135, 270, 405]);
        assert_eq!(spread(0, 3), Vec::<usize>::new());
    }

    #[test]
    fn batch_time_is_per_skill() {
        let batches = [
            (100, Duration::from_millis(300)),
            (50, Duration::from_millis(150)),
        ];
        assert_eq!(batch_per_skill(&batches), Some(Duration::from_millis(3)));
        assert_eq!(batch_per_skill(&[]), None);
    }

    fn specimen(
        id: &str,
        surface: &str,
        malicious: bool,
        attack: Option<&str>,
    ) -> labelled::Specimen {
        labelled::Specimen {
            id: id.to_owned(),
            surface: surface.to_owned(),
            malicious,
            attack: attack.map(str::to_owned),
            root: PathBuf::from("/b").join(id),
            target: PathBuf::from("/b").join(id),
            skill_folder: surface != "mcp",
        }
    }

    fn scanned(worst: Severity) -> Option<Outcome> {
        Some(Outcome::Scanned {
            worst,
            flagged_by: Vec::new(),
        })
    }

    #[test]
    fn scores_each_surface_and_counts_what_was_not_scanned() {
        let set = labelled::Set {
            dir: PathBuf::from("/b"),
            specimens: vec![
                specimen("c1", "claude", true, Some("A1")),
                specimen("c2", "claude", false, Some("benign")),
                specimen("m1", "mcp", true, Some("A1")),
                specimen("m2", "mcp", false, None),
                specimen("o1", "openclaw", true, Some("A10")),
                specimen("o2", "openclaw", false, None),
            ],
            declared: Some(6),
        };
        let outcomes = vec![
            scanned(Severity::Critical),
            scanned(Severity::Medium),
            Some(Outcome::NotScanned("no SKILL.md".to_owned())),
            Some(Outcome::NotScanned("no SKILL.md".to_owned())),
            scanned(Severity::High),
            scanned(Severity::High),
        ];
        let rows = labelled_rows(&set, &outcomes);
        let names: Vec<&str> = rows.iter().map(|row| row.name.as_str()).collect();
        assert_eq!(names, ["all", "claude", "openclaw", "mcp", "skill folders"]);
        let all = &rows[0];
        // 2 of 3 malicious flagged (the MCP one was not scanned), 1 of 3 benign flagged.
        assert_eq!(
            all.confusion,
            Confusion {
                true_positives: 2,
                false_positives: 1,
                true_negatives: 2,
                false_negatives: 1,
            }
        );
        assert_eq!(all.not_scanned, 2);
        assert_eq!(rows[3].not_scanned, 2);
        assert_eq!(rows[3].confusion.recall(), Some(0.0));
        assert_eq!(rows[4].confusion.recall(), Some(1.0));
        assert_eq!(rows[4].not_scanned, 0);
        assert_eq!(
            attack_recall(&set, &outcomes),
            [("A1".to_owned(), 1, 2), ("A10".to_owned(), 1, 1)]
        );
    }

    #[test]
    fn corpus_rows_split_the_security_research_subset() {
        let skill = |relative: &str| corpus::Skill {
            dir: PathBuf::from("/c").join(relative),
            relative: relative.to_owned(),
            security_research: corpus::is_security_research(relative),
        };
        let skills = [
            skill("a/pdf"),
            skill("trailofbits+skills/x"),
            skill("a/pentest-kit"),
            skill("a/broken"),
        ];
        let outcomes = vec![
            scanned(Severity::Info),
            scanned(Severity::Critical),
            scanned(Severity::Low),
            Some(Outcome::NotScanned("bad YAML".to_owned())),
        ];
        let rows = corpus_rows(&skills, &outcomes);
        assert_eq!(
            rows.iter()
                .map(|row| (row.name, row.skills, row.scanned, row.flagged))
                .collect::<Vec<_>>(),
            [
                ("all", 4, 3, 1),
                ("security research", 2, 2, 1),
                ("the rest", 2, 1, 0)
            ]
        );
        assert_eq!(rows[0].histogram, [0, 1, 1, 0, 0, 1]);
        assert_eq!(rows[0].rate(), Some(1.0 / 3.0));
        assert_eq!(rows[2].rate(), Some(0.0));
    }
}
