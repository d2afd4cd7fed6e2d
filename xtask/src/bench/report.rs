//! The bench's results as a person reads them (a table per run, the targets of 06, 08 and
//! issue 11 met or missed with their numbers, for each tree shape) and as a later run compares them
//! (`target/bench/report.json`).
//!
//! Every figure is a median, and every verdict but one is a ratio between figures of the same
//! run: absolute times are printed for orientation, since they say more about the machine's
//! neighbours than about the code. The exception is issue 31's whole-tree audit, whose target
//! is stated in seconds on two cores ([`AUDIT_TREE_LIMIT_S`]): it prints the cores it ran on.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::tree::{Quantiles, Shape};
use super::{Contender, PEER_SIZE, TreeRun};

/// The tree size the targets are stated for.
const TARGET_SIZE: usize = 10_000;

/// Limits of issue 11 §5 (which tighten 06 §Performance), each a ratio to the floor of the
/// same tree, or a size; and one of 08.
const LIST_WARM_LIMIT: f64 = 1.2;
const LIST_COLD_LIMIT: f64 = 2.0;
const VALIDATE_LIMIT: f64 = 3.0;
const RSS_LIMIT_MIB: f64 = 32.0;
/// 06: in-process discovery with a warm cache.
const DISCOVER_LIMIT: f64 = 1.2;
/// 08 §`skills mcp`: a host's session up to the first `resources/list` page costs at most this
/// many warm `skills list --json` of the same tree.
const MCP_LIMIT: f64 = 3.0;
/// 06: `list` at least this many times faster than the Node tools' listings.
const PEER_SPEEDUP: f64 = 10.0;
/// 10× the skills may cost at most 11× the time: the time ratio over the size ratio.
const GROWTH_SLACK: f64 = 1.1;
/// Issue 31: `skills audit` over every skill of a 10,000-skill tree, on two cores, in seconds.
const AUDIT_TREE_LIMIT_S: f64 = 10.0;
/// Issue 31: the audit's memory is bounded by the largest file, not by the count of skills.
/// What it holds beyond the catalog (its peak less the cold listing's) may grow by at most
/// this share from the smallest tree of a shape to the largest.
const AUDIT_EXCESS_GROWTH: f64 = 1.25;

/// The run's circumstances, beside the measurements.
pub(crate) struct Facts<'a> {
    pub(crate) root: &'a Path,
    /// What was installed for the peers and how they ran, or why they were not measured.
    pub(crate) peers: String,
    pub(crate) runs: usize,
    pub(crate) calls_per_run: usize,
    pub(crate) load_before: Option<String>,
    pub(crate) load_after: Option<String>,
    /// Building the release executables, part of `total`.
    pub(crate) build: Duration,
    pub(crate) total: Duration,
}

/// One row of the table.
struct Row {
    contender: Contender,
    shape: Shape,
    skills: usize,
    median: u64,
    min: u64,
    max: u64,
    samples: usize,
    /// Median over the floor's median on the same tree.
    ratio: Option<f64>,
    found: Option<usize>,
    stdout_bytes: Option<usize>,
}

/// One 06 target, checked.
struct Verdict {
    measure: String,
    target: String,
    /// `None`: not measured in this run.
    met: Option<bool>,
    value: Option<f64>,
    limit: Option<f64>,
    detail: String,
}

/// Growth of one contender's median from the smallest tree to the largest.
struct Growth {
    contender: Contender,
    shape: Shape,
    from: usize,
    to: usize,
    ratio: f64,
}

pub(crate) struct Report {
    date: String,
    commit: Option<String>,
    dirty: Option<bool>,
    cores: usize,
    runs: usize,
    calls_per_run: usize,
    load_before: Option<String>,
    load_after: Option<String>,
    build: Duration,
    total: Duration,
    peers: String,
    trees: Vec<TreeSummary>,
    rows: Vec<Row>,
    growth: Vec<Growth>,
    verdicts: Vec<Verdict>,
    warnings: Vec<String>,
}

struct TreeSummary {
    shape: Shape,
    skills: usize,
    names: usize,
    shadowed: usize,
    malformed: usize,
    roots: usize,
    definition_bytes: u64,
    files: usize,
    bytes: u64,
    definition_quantiles: Quantiles,
    file_quantiles: Quantiles,
    scripts: [usize; 4],
    generate: Duration,
    rss_warm_kib: Option<u64>,
    rss_cold_kib: Option<u64>,
    rss_audit_kib: Option<u64>,
}

impl Report {
    pub(crate) fn new(facts: &Facts<'_>, trees: &[TreeRun]) -> Self {
        let mut rows = Vec::new();
        let mut warnings = Vec::new();
        for tree in trees {
            let floor = tree
                .measured
                .iter()
                .find(|entry| entry.contender == Contender::Floor)
                .and_then(|entry| median(&nanos(&entry.samples)));
            for entry in &tree.measured {
                let samples = nanos(&entry.samples);
                let Some(median) = median(&samples) else {
                    continue;
                };
                rows.push(Row {
                    contender: entry.contender,
                    shape: tree.shape,
                    skills: tree.skills,
                    median,
                    min: samples.iter().copied().min().unwrap_or(median),
                    max: samples.iter().copied().max().unwrap_or(median),
                    samples: samples.len(),
                    ratio: floor
                        .filter(|floor| *floor > 0)
                        .map(|floor| median as f64 / floor as f64),
                    found: entry.found,
                    stdout_bytes: entry.stdout_bytes,
                });
            }
            warnings.extend(tree.warnings.iter().map(|warning| {
                format!(
                    "{} skills, {}: {warning}",
                    thousands(tree.skills),
                    tree.shape.key()
                )
            }));
        }
        let summaries: Vec<TreeSummary> = trees
            .iter()
            .map(|tree| TreeSummary {
                shape: tree.shape,
                skills: tree.skills,
                names: tree.names,
                shadowed: tree.shadowed,
                malformed: tree.malformed,
                roots: tree.roots,
                definition_bytes: tree.definition_bytes,
                files: tree.files,
                bytes: tree.bytes,
                definition_quantiles: tree.definition_quantiles,
                file_quantiles: tree.file_quantiles,
                scripts: tree.scripts,
                generate: tree.generate,
                rss_warm_kib: tree.rss_warm_kib,
                rss_cold_kib: tree.rss_cold_kib,
                rss_audit_kib: tree.rss_audit_kib,
            })
            .collect();
        let growth = growth(&rows);
        let verdicts = verdicts(&rows, &summaries, &growth);
        let (commit, dirty) = git(facts.root);
        Self {
            date: utc_now(),
            commit,
            dirty,
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            runs: facts.runs,
            calls_per_run: facts.calls_per_run,
            load_before: facts.load_before.clone(),
            load_after: facts.load_after.clone(),
            build: facts.build,
            total: facts.total,
            peers: facts.peers.clone(),
            trees: summaries,
            rows,
            growth,
            verdicts,
            warnings,
        }
    }

    /// The table, the peak memory, the growth and the targets, as printed.
    pub(crate) fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "skills bench, {} UTC, commit {}{}, {} cores, {} repetitions (floor, full read, discover: {} timed calls each), load {} -> {}",
            self.date.replace('T', " ").trim_end_matches('Z'),
            self.commit
                .as_deref()
                .map_or("unknown", |commit| commit.get(..12).unwrap_or(commit)),
            if self.dirty == Some(true) {
                " (dirty)"
            } else {
                ""
            },
            self.cores,
            self.runs,
            self.calls_per_run,
            self.load_before.as_deref().unwrap_or("?"),
            self.load_after.as_deref().unwrap_or("?"),
        );
        let _ = writeln!(
            out,
            "machine: {} cores; load average (1, 5, 15 min) {} before, {} after",
            self.cores,
            self.load_before.as_deref().unwrap_or("?"),
            self.load_after.as_deref().unwrap_or("?"),
        );
        let _ = writeln!(out, "peers: {}", self.peers);
        for tree in &self.trees {
            let _ = writeln!(out, "{}", tree.describe());
        }
        let _ = writeln!(out);
        let width = Contender::PRODUCT
            .iter()
            .chain(&Contender::PEERS)
            .map(|contender| contender.label().len())
            .max()
            .unwrap_or(0);
        let _ = writeln!(
            out,
            "| {:<9} | {:>6} | {:<width$} | {:>9} | {:>7} | {:>7} | {:>6} |",
            "shape", "skills", "contender", "median", "× floor", "samples", "seen"
        );
        let _ = writeln!(
            out,
            "|{:-<11}|{:->8}|{:-<w$}|{:->11}|{:->9}|{:->9}|{:->8}|",
            ":",
            ":",
            ":",
            ":",
            ":",
            ":",
            ":",
            w = width + 2
        );
        for row in &self.rows {
            let _ = writeln!(
                out,
                "| {:<9} | {:>6} | {:<width$} | {:>9} | {:>7} | {:>7} | {:>6} |",
                row.shape.key(),
                thousands(row.skills),
                row.contender.label(),
                duration(row.median),
                row.ratio
                    .map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}")),
                row.samples,
                row.found.map_or_else(|| "-".to_owned(), thousands),
            );
        }
        let _ = writeln!(out);
        for tree in &self.trees {
            let _ = writeln!(
                out,
                "peak RSS, skills list --json, {} skills, {}: {} with a warm catalog cache, {} cold",
                thousands(tree.skills),
                tree.shape.key(),
                mebibytes(tree.rss_warm_kib),
                mebibytes(tree.rss_cold_kib),
            );
            let _ = writeln!(
                out,
                "peak RSS, skills audit --json (every skill), {} skills, {}: {}",
                thousands(tree.skills),
                tree.shape.key(),
                mebibytes(tree.rss_audit_kib),
            );
        }
        for growth in &self.growth {
            let _ = writeln!(
                out,
                "growth, {}, {}: {:.2}× from {} to {} skills",
                growth.shape.key(),
                growth.contender.label(),
                growth.ratio,
                thousands(growth.from),
                thousands(growth.to)
            );
        }
        let _ = writeln!(
            out,
            "\ntargets (06, 08, issue 11 §5; ratios within this run):"
        );
        for verdict in &self.verdicts {
            let mark = match verdict.met {
                Some(true) => "met   ",
                Some(false) => "MISSED",
                None => "n/a   ",
            };
            let _ = writeln!(
                out,
                "  [{mark}] {}: {} — {}",
                verdict.measure, verdict.target, verdict.detail
            );
        }
        if !self.warnings.is_empty() {
            let _ = writeln!(out, "\nwarnings (these figures are doubtful):");
            for warning in &self.warnings {
                let _ = writeln!(out, "  - {warning}");
            }
        }
        let _ = write!(
            out,
            "\ntotal time {:.1}s, of which building {:.1}s",
            self.total.as_secs_f64(),
            self.build.as_secs_f64()
        );
        out
    }

    /// The report as JSON, for `target/bench/report.json`.
    pub(crate) fn json(&self) -> String {
        let text = |value: &str| Json::Text(value.to_owned());
        let optional_text = |value: &Option<String>| value.as_deref().map_or(Json::Null, text);
        let optional = |value: Option<u64>| value.map_or(Json::Null, Json::Integer);
        let float = |value: Option<f64>| value.map_or(Json::Null, Json::Float);
        let trees = self
            .trees
            .iter()
            .map(|tree| {
                let quantiles = |q: &Quantiles| {
                    Json::Object(vec![
                        ("p25", Json::Integer(q.p25)),
                        ("p50", Json::Integer(q.p50)),
                        ("p75", Json::Integer(q.p75)),
                        ("p90", Json::Integer(q.p90)),
                        ("p99", Json::Integer(q.p99)),
                        ("max", Json::Integer(q.max)),
                    ])
                };
                let [any, python, javascript, shell] = tree.scripts.map(|count| count as u64);
                Json::Object(vec![
                    ("shape", text(tree.shape.key())),
                    ("skills", Json::Integer(tree.skills as u64)),
                    ("names", Json::Integer(tree.names as u64)),
                    ("shadowed", Json::Integer(tree.shadowed as u64)),
                    ("malformed", Json::Integer(tree.malformed as u64)),
                    ("roots", Json::Integer(tree.roots as u64)),
                    ("definition_bytes", Json::Integer(tree.definition_bytes)),
                    ("files", Json::Integer(tree.files as u64)),
                    ("bytes", Json::Integer(tree.bytes)),
                    (
                        "definition_bytes_quantiles",
                        quantiles(&tree.definition_quantiles),
                    ),
                    ("files_per_skill_quantiles", quantiles(&tree.file_quantiles)),
                    (
                        "skills_with_scripts",
                        Json::Object(vec![
                            ("any", Json::Integer(any)),
                            ("python", Json::Integer(python)),
                            ("javascript", Json::Integer(javascript)),
                            ("shell", Json::Integer(shell)),
                        ]),
                    ),
                    ("generate_ms", Json::Integer(millis(tree.generate))),
                    (
                        "peak_rss_list_json_warm_cache_kib",
                        optional(tree.rss_warm_kib),
                    ),
                    (
                        "peak_rss_list_json_cold_cache_kib",
                        optional(tree.rss_cold_kib),
                    ),
                    (
                        "peak_rss_audit_json_every_skill_kib",
                        optional(tree.rss_audit_kib),
                    ),
                ])
            })
            .collect();
        let results = self
            .rows
            .iter()
            .map(|row| {
                Json::Object(vec![
                    ("contender", text(row.contender.key())),
                    ("label", text(row.contender.label())),
                    ("shape", text(row.shape.key())),
                    ("skills", Json::Integer(row.skills as u64)),
                    ("median_ns", Json::Integer(row.median)),
                    ("min_ns", Json::Integer(row.min)),
                    ("max_ns", Json::Integer(row.max)),
                    ("samples", Json::Integer(row.samples as u64)),
                    ("ratio_to_floor", float(row.ratio)),
                    ("skills_seen", optional(row.found.map(|found| found as u64))),
                    (
                        "stdout_bytes",
                        optional(row.stdout_bytes.map(|bytes| bytes as u64)),
                    ),
                ])
            })
            .collect();
        let growth = self
            .growth
            .iter()
            .map(|growth| {
                Json::Object(vec![
                    ("contender", text(growth.contender.key())),
                    ("shape", text(growth.shape.key())),
                    ("from_skills", Json::Integer(growth.from as u64)),
                    ("to_skills", Json::Integer(growth.to as u64)),
                    ("time_ratio", Json::Float(growth.ratio)),
                ])
            })
            .collect();
        let targets = self
            .verdicts
            .iter()
            .map(|verdict| {
                Json::Object(vec![
                    ("measure", text(&verdict.measure)),
                    ("target", text(&verdict.target)),
                    ("met", verdict.met.map_or(Json::Null, Json::Bool)),
                    ("value", float(verdict.value)),
                    ("limit", float(verdict.limit)),
                    ("detail", text(&verdict.detail)),
                ])
            })
            .collect();
        let report = Json::Object(vec![
            ("date", text(&self.date)),
            ("commit", optional_text(&self.commit)),
            ("dirty", self.dirty.map_or(Json::Null, Json::Bool)),
            ("cores", Json::Integer(self.cores as u64)),
            ("repetitions", Json::Integer(self.runs as u64)),
            (
                "in_process_calls_per_repetition",
                Json::Integer(self.calls_per_run as u64),
            ),
            ("load_average_before", optional_text(&self.load_before)),
            ("load_average_after", optional_text(&self.load_after)),
            ("peers", text(&self.peers)),
            ("build_seconds", Json::Float(self.build.as_secs_f64())),
            ("total_seconds", Json::Float(self.total.as_secs_f64())),
            ("trees", Json::Array(trees)),
            ("results", Json::Array(results)),
            ("growth", Json::Array(growth)),
            ("targets", Json::Array(targets)),
            (
                "warnings",
                Json::Array(self.warnings.iter().map(|warning| text(warning)).collect()),
            ),
        ]);
        let mut out = String::new();
        report.write(0, &mut out);
        out.push('\n');
        out
    }
}

fn nanos(samples: &[Duration]) -> Vec<u64> {
    samples
        .iter()
        .map(|sample| u64::try_from(sample.as_nanos()).unwrap_or(u64::MAX))
        .collect()
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The median (the mean of the middle two for an even count).
pub(crate) fn median(values: &[u64]) -> Option<u64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let middle = sorted.len() / 2;
    match sorted.len() {
        0 => None,
        len if len % 2 == 1 => sorted.get(middle).copied(),
        _ => {
            let low = sorted.get(middle - 1)?;
            let high = sorted.get(middle)?;
            Some(low / 2 + high / 2 + (low % 2 + high % 2) / 2)
        }
    }
}

impl TreeSummary {
    /// One line on what the tree holds, with the drawn distribution beside the measured one.
    fn describe(&self) -> String {
        let definitions = &self.definition_quantiles;
        let files = &self.file_quantiles;
        let share = |count: usize| count as f64 * 100.0 / self.skills.max(1) as f64;
        format!(
            "tree {} {}: {} skill folders ({} names, {} shadowed, {} malformed) in {} roots, {} files, {:.1} MiB; SKILL.md p25 {:.1} / p50 {:.1} / p90 {:.1} / p99 {:.1} / max {:.1} KB; files per skill p50 {} / p75 {} / p90 {} / p99 {}; scripts in {:.1}% (Python {:.1}%, JavaScript {:.1}%, shell {:.1}%)",
            self.shape.key(),
            thousands(self.skills),
            thousands(self.skills),
            thousands(self.names),
            self.shadowed,
            self.malformed,
            self.roots,
            thousands(self.files),
            self.bytes as f64 / (1024.0 * 1024.0),
            definitions.p25 as f64 / 1e3,
            definitions.p50 as f64 / 1e3,
            definitions.p90 as f64 / 1e3,
            definitions.p99 as f64 / 1e3,
            definitions.max as f64 / 1e3,
            files.p50,
            files.p75,
            files.p90,
            files.p99,
            share(self.scripts[0]),
            share(self.scripts[1]),
            share(self.scripts[2]),
            share(self.scripts[3]),
        )
    }
}

fn find(rows: &[Row], contender: Contender, shape: Shape, skills: usize) -> Option<&Row> {
    rows.iter()
        .find(|row| row.contender == contender && row.shape == shape && row.skills == skills)
}

/// Growth from the smallest tree of a shape to its largest, for the contenders 06 sets a
/// target for and the floor (what the filesystem itself does).
fn growth(rows: &[Row]) -> Vec<Growth> {
    let mut out = Vec::new();
    for shape in Shape::ALL {
        let sizes = rows
            .iter()
            .filter(|row| row.shape == shape)
            .map(|row| row.skills);
        let (Some(from), Some(to)) = (sizes.clone().min(), sizes.max()) else {
            continue;
        };
        if from == to {
            continue;
        }
        out.extend(
            [
                Contender::Floor,
                Contender::ListWarm,
                Contender::DiscoverWarm,
            ]
            .into_iter()
            .filter_map(|contender| {
                let small = find(rows, contender, shape, from)?;
                let large = find(rows, contender, shape, to)?;
                (small.median > 0).then(|| Growth {
                    contender,
                    shape,
                    from,
                    to,
                    ratio: large.median as f64 / small.median as f64,
                })
            }),
        );
    }
    out
}

fn verdicts(rows: &[Row], trees: &[TreeSummary], growth: &[Growth]) -> Vec<Verdict> {
    let at = thousands(TARGET_SIZE);
    let mut verdicts = Vec::new();
    for shape in Shape::ALL {
        let name = shape.key();
        let missing = |measure: String, target: String| Verdict {
            measure,
            target,
            met: None,
            value: None,
            limit: None,
            detail: format!("not measured: no {name} {at}-skill tree in this run"),
        };
        // `base`: the row the ratio is over, and what the target calls it.
        let ratio_check =
            |contender: Contender, what: &str, limit: f64, base: (Contender, &str)| {
                let (base, base_name) = base;
                let measure = format!("{name}, {at} skills: {what}");
                let target = format!("≤ {limit} × {base_name}");
                let base_median = find(rows, base, shape, TARGET_SIZE).map(|row| row.median);
                match (find(rows, contender, shape, TARGET_SIZE), base_median) {
                    (Some(row), Some(base_median)) if base_median > 0 => {
                        let ratio = row.median as f64 / base_median as f64;
                        let met = ratio <= limit;
                        Verdict {
                            measure,
                            target,
                            met: Some(met),
                            value: Some(ratio),
                            limit: Some(limit),
                            detail: format!(
                                "{ratio:.2} × ({} vs {base_name} {}; {} by {:.0}%)",
                                duration(row.median),
                                duration(base_median),
                                if met { "met" } else { "missed" },
                                ((ratio - limit) / limit * 100.0).abs()
                            ),
                        }
                    }
                    _ => missing(measure, target),
                }
            };
        let floor = (Contender::Floor, "floor");
        verdicts.push(ratio_check(
            Contender::ListWarm,
            "skills list --json, warm catalog cache",
            LIST_WARM_LIMIT,
            floor,
        ));
        // The same target once every skill has a verdict on file, as after `skills audit`:
        // the listing then stamps the files of each skill it marks.
        verdicts.push(ratio_check(
            Contender::ListAudited,
            "skills list --json, warm catalog cache, every skill audited",
            LIST_WARM_LIMIT,
            floor,
        ));
        verdicts.push(ratio_check(
            Contender::ListCold,
            "skills list --json, no catalog cache",
            LIST_COLD_LIMIT,
            floor,
        ));
        verdicts.push(ratio_check(
            Contender::Mcp,
            "skills mcp, initialize → tools/list → first resources/list page, warm catalog cache",
            MCP_LIMIT,
            (Contender::ListWarm, "warm list"),
        ));
        verdicts.push(ratio_check(
            Contender::Validate,
            "skills validate --recursive",
            VALIDATE_LIMIT,
            floor,
        ));
        verdicts.push(ratio_check(
            Contender::DiscoverWarm,
            "in-process discover, warm catalog cache",
            DISCOVER_LIMIT,
            floor,
        ));
        verdicts.push(audit_time(rows, shape));
        verdicts.push(audit_memory(trees, shape));
        let tree = trees
            .iter()
            .find(|tree| tree.shape == shape && tree.skills == TARGET_SIZE);
        for (state, rss) in [
            ("warm", tree.and_then(|tree| tree.rss_warm_kib)),
            ("cold", tree.and_then(|tree| tree.rss_cold_kib)),
        ] {
            let measure = format!("{name}, {at} skills: peak RSS of skills list --json, {state}");
            let target = format!("≤ {RSS_LIMIT_MIB} MiB");
            verdicts.push(match rss {
                Some(kib) => {
                    let mib = kib as f64 / 1024.0;
                    let met = mib <= RSS_LIMIT_MIB;
                    Verdict {
                        measure,
                        target,
                        met: Some(met),
                        value: Some(mib),
                        limit: Some(RSS_LIMIT_MIB),
                        detail: format!(
                            "{mib:.1} MiB ({} by {:.1} MiB)",
                            if met { "met" } else { "missed" },
                            (mib - RSS_LIMIT_MIB).abs()
                        ),
                    }
                }
                None if tree.is_some() => Verdict {
                    measure,
                    target,
                    met: None,
                    value: None,
                    limit: None,
                    detail: "not measured: no getrusage on this platform".to_owned(),
                },
                None => missing(measure, target),
            });
        }
        let floor_growth = growth
            .iter()
            .find(|growth| growth.contender == Contender::Floor && growth.shape == shape)
            .map_or_else(String::new, |growth| {
                format!("; the floor itself grew {:.2}×", growth.ratio)
            });
        for contender in [Contender::ListWarm, Contender::DiscoverWarm] {
            let measure = format!("{name}: cost growth of {}", contender.label());
            let target = "10× skills → ≤ 11× time".to_owned();
            let found = growth
                .iter()
                .find(|growth| growth.contender == contender && growth.shape == shape);
            verdicts.push(match found {
                Some(growth) => {
                    let size_ratio = growth.to as f64 / growth.from as f64;
                    let limit = GROWTH_SLACK * size_ratio;
                    Verdict {
                        measure,
                        target,
                        met: Some(growth.ratio <= limit),
                        value: Some(growth.ratio),
                        limit: Some(limit),
                        detail: format!(
                            "{:.2}× time for {:.0}× skills ({} → {}; limit {limit:.1}×{floor_growth})",
                            growth.ratio,
                            size_ratio,
                            thousands(growth.from),
                            thousands(growth.to)
                        ),
                    }
                }
                None => Verdict {
                    measure,
                    target,
                    met: None,
                    value: None,
                    limit: None,
                    detail: format!("not measured: needs two {name} tree sizes"),
                },
            });
        }
    }
    let list = find(rows, Contender::ListWarm, Shape::Realistic, PEER_SIZE);
    for peer in [Contender::PeerOpenskills, Contender::PeerVercelSkills] {
        let measure = format!(
            "realistic, {} skills: skills list --json against {}",
            thousands(PEER_SIZE),
            peer.label().trim_start_matches("peer: ")
        );
        let target = format!("≥ {PEER_SPEEDUP}× faster");
        let found = find(rows, peer, Shape::Realistic, PEER_SIZE);
        verdicts.push(match (list, found) {
            (Some(list), Some(found)) if list.median > 0 => {
                let speedup = found.median as f64 / list.median as f64;
                Verdict {
                    measure,
                    target,
                    met: Some(speedup >= PEER_SPEEDUP),
                    value: Some(speedup),
                    limit: Some(PEER_SPEEDUP),
                    detail: format!(
                        "{speedup:.1}× faster ({} vs {}; the peer named {} skills)",
                        duration(list.median),
                        duration(found.median),
                        found.found.map_or_else(|| "?".to_owned(), thousands)
                    ),
                }
            }
            _ => Verdict {
                measure,
                target,
                met: None,
                value: None,
                limit: None,
                detail: "not measured in this run (see the peers line above)".to_owned(),
            },
        });
    }
    verdicts
}

/// Issue 31's time target: every skill of the 10,000-skill tree audited in under 10 s.
fn audit_time(rows: &[Row], shape: Shape) -> Verdict {
    let name = shape.key();
    let at = thousands(TARGET_SIZE);
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let measure =
        format!("{name}, {at} skills: skills audit --json over every skill ({cores} cores)");
    let target = format!("≤ {AUDIT_TREE_LIMIT_S} s");
    match find(rows, Contender::Audit, shape, TARGET_SIZE) {
        Some(row) => {
            let seconds = row.median as f64 / 1e9;
            let met = seconds <= AUDIT_TREE_LIMIT_S;
            let per_skill =
                row.found
                    .filter(|&found| found > 0)
                    .map_or_else(String::new, |found| {
                        format!(
                            "; {:.2} ms a skill over {} skills scanned",
                            row.median as f64 / 1e6 / found as f64,
                            thousands(found)
                        )
                    });
            Verdict {
                measure,
                target,
                met: Some(met),
                value: Some(seconds),
                limit: Some(AUDIT_TREE_LIMIT_S),
                detail: format!(
                    "{}{per_skill}; {} by {:.0}%",
                    duration(row.median),
                    if met { "met" } else { "missed" },
                    ((seconds - AUDIT_TREE_LIMIT_S) / AUDIT_TREE_LIMIT_S * 100.0).abs()
                ),
            }
        }
        None => Verdict {
            measure,
            target,
            met: None,
            value: None,
            limit: None,
            detail: format!("not measured: no {name} {at}-skill tree in this run"),
        },
    }
}

/// Issue 31's memory target: what the audit holds beyond the catalog does not grow with the
/// count of skills (its peak less the cold listing's, smallest tree to largest).
fn audit_memory(trees: &[TreeSummary], shape: Shape) -> Verdict {
    let name = shape.key();
    let measure = format!(
        "{name}: peak RSS of skills audit --json beyond the cold listing's, smallest tree to largest"
    );
    let target = format!("≤ {AUDIT_EXCESS_GROWTH} × (bounded, not growing with the skills)");
    let excess = |tree: &TreeSummary| {
        let audit = tree.rss_audit_kib? as f64 / 1024.0;
        let listing = tree.rss_cold_kib? as f64 / 1024.0;
        Some((tree.skills, audit, audit - listing))
    };
    let mut measured: Vec<_> = trees
        .iter()
        .filter(|tree| tree.shape == shape)
        .filter_map(excess)
        .collect();
    measured.sort_by_key(|&(skills, _, _)| skills);
    match (measured.first(), measured.last()) {
        (Some(&(small, small_peak, small_excess)), Some(&(large, large_peak, large_excess)))
            if small < large && small_excess > 0.0 =>
        {
            let ratio = large_excess / small_excess;
            let met = ratio <= AUDIT_EXCESS_GROWTH;
            Verdict {
                measure,
                target,
                met: Some(met),
                value: Some(ratio),
                limit: Some(AUDIT_EXCESS_GROWTH),
                detail: format!(
                    "{ratio:.2} × ({:.1} MiB beyond the listing at {} skills, peak {small_peak:.1} MiB; {:.1} MiB at {}, peak {large_peak:.1} MiB)",
                    small_excess,
                    thousands(small),
                    large_excess,
                    thousands(large)
                ),
            }
        }
        _ => Verdict {
            measure,
            target,
            met: None,
            value: None,
            limit: None,
            detail: format!("not measured: needs two {name} tree sizes with their peaks"),
        },
    }
}

/// The load average, when the platform tells it (`/proc/loadavg`): a busy neighbour shows.
pub(crate) fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(
        text.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The commit checked out, and whether tracked files differ from it.
pub(crate) fn git(root: &Path) -> (Option<String>, Option<bool>) {
    let run = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(args)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let commit = run(&["rev-parse", "HEAD"]);
    let dirty =
        run(&["status", "--porcelain", "--untracked-files=no"]).map(|status| !status.is_empty());
    (commit, dirty)
}

/// Now, as `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn utc_now() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    utc(seconds)
}

/// A Unix time as `YYYY-MM-DDTHH:MM:SSZ` (the civil-from-days algorithm, proleptic Gregorian).
fn utc(seconds: u64) -> String {
    let days = i64::try_from(seconds / 86_400).unwrap_or(0);
    let time = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        time / 3_600,
        time % 3_600 / 60,
        time % 60
    )
}

fn duration(nanos: u64) -> String {
    let ms = nanos as f64 / 1e6;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1_000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1_000.0)
    }
}

fn mebibytes(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "not measured".to_owned(),
        |kib| format!("{:.1} MiB", kib as f64 / 1024.0),
    )
}

/// `10000` as `10,000`.
pub(crate) fn thousands(value: usize) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Just enough JSON to write the report without a dependency.
enum Json {
    Null,
    Bool(bool),
    Integer(u64),
    Float(f64),
    Text(String),
    Array(Vec<Json>),
    Object(Vec<(&'static str, Json)>),
}

impl Json {
    fn write(&self, indent: usize, out: &mut String) {
        let pad = |out: &mut String, level: usize| {
            out.push('\n');
            out.push_str(&"  ".repeat(level));
        };
        match self {
            Self::Null => out.push_str("null"),
            Self::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Self::Integer(value) => out.push_str(&value.to_string()),
            Self::Float(value) if value.is_finite() => {
                let _ = write!(out, "{}", (value * 1e4).round() / 1e4);
            }
            Self::Float(_) => out.push_str("null"),
            Self::Text(value) => escape(value, out),
            Self::Array(items) if items.is_empty() => out.push_str("[]"),
            Self::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    pad(out, indent + 1);
                    item.write(indent + 1, out);
                }
                pad(out, indent);
                out.push(']');
            }
            Self::Object(fields) => {
                out.push('{');
                for (index, (key, value)) in fields.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    pad(out, indent + 1);
                    escape(key, out);
                    out.push_str(": ");
                    value.write(indent + 1, out);
                }
                pad(out, indent);
                out.push('}');
            }
        }
    }
}

fn escape(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audit_row(shape: Shape, skills: usize, median: u64, found: usize) -> Row {
        Row {
            contender: Contender::Audit,
            shape,
            skills,
            median,
            min: median,
            max: median,
            samples: 3,
            ratio: None,
            found: Some(found),
            stdout_bytes: None,
        }
    }

    fn tree(skills: usize, cold_kib: u64, audit_kib: u64) -> TreeSummary {
        TreeSummary {
            shape: Shape::Realistic,
            skills,
            names: skills,
            shadowed: 0,
            malformed: 0,
            roots: 1,
            definition_bytes: 0,
            files: skills,
            bytes: 0,
            definition_quantiles: Quantiles::default(),
            file_quantiles: Quantiles::default(),
            scripts: [0; 4],
            generate: Duration::ZERO,
            rss_warm_kib: None,
            rss_cold_kib: Some(cold_kib),
            rss_audit_kib: Some(audit_kib),
        }
    }

    #[test]
    fn the_whole_tree_audit_is_held_to_ten_seconds_at_ten_thousand() {
        let fast = [audit_row(
            Shape::Realistic,
            TARGET_SIZE,
            8_200_000_000,
            9_750,
        )];
        let verdict = audit_time(&fast, Shape::Realistic);
        assert_eq!(verdict.met, Some(true), "{}", verdict.detail);
        assert!(
            verdict.detail.contains("0.84 ms a skill"),
            "{}",
            verdict.detail
        );
        let slow = [audit_row(
            Shape::Realistic,
            TARGET_SIZE,
            12_000_000_000,
            9_750,
        )];
        assert_eq!(audit_time(&slow, Shape::Realistic).met, Some(false));
        // A smaller tree, or another shape, is not the target's.
        let small = [audit_row(Shape::Realistic, 1_000, 1_000_000, 975)];
        assert_eq!(audit_time(&small, Shape::Realistic).met, None);
        assert_eq!(audit_time(&fast, Shape::Classic).met, None);
    }

    #[test]
    fn the_audit_memory_beyond_the_listing_must_not_grow_with_the_skills() {
        // 20 MiB beyond the listing at both sizes: bounded.
        let bounded = [
            tree(1_000, 15 << 10, 35 << 10),
            tree(10_000, 40 << 10, 60 << 10),
        ];
        let verdict = audit_memory(&bounded, Shape::Realistic);
        assert_eq!(verdict.met, Some(true), "{}", verdict.detail);
        // 20 MiB, then 40 MiB: it grows with the count.
        let growing = [
            tree(10_000, 40 << 10, 80 << 10),
            tree(1_000, 15 << 10, 35 << 10),
        ];
        assert_eq!(audit_memory(&growing, Shape::Realistic).met, Some(false));
        // One size says nothing about growth.
        assert_eq!(audit_memory(&bounded[..1], Shape::Realistic).met, None);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[5, 1, 3]), Some(3));
        assert_eq!(median(&[4, 1, 3, 2]), Some(2));
        assert_eq!(median(&[u64::MAX, u64::MAX]), Some(u64::MAX));
    }

    #[test]
    fn dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_767_225_599), "2025-12-31T23:59:59Z");
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(10_000), "10,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(duration(5_210_000), "5.21 ms");
        assert_eq!(duration(52_100_000), "52.1 ms");
        assert_eq!(duration(1_520_000_000), "1.52 s");
    }

    #[test]
    fn writes_json() {
        let value = Json::Object(vec![
            ("a", Json::Text("q\"\\\n\u{1}".to_owned())),
            (
                "b",
                Json::Array(vec![Json::Integer(1), Json::Float(0.123_456), Json::Null]),
            ),
            ("c", Json::Array(Vec::new())),
            ("d", Json::Bool(true)),
        ]);
        let mut out = String::new();
        value.write(0, &mut out);
        assert_eq!(
            out,
            "{\n  \"a\": \"q\\\"\\\\\\n\\u0001\",\n  \"b\": [\n    1,\n    0.1235,\n    null\n  ],\n  \"c\": [],\n  \"d\": true\n}"
        );
    }
}
