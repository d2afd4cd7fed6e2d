//! The relevance rows (issue 16, docs/search.md): how often ranked search puts the skill a
//! task is about first (recall@1) and in its top five (recall@5), and how long a query takes.
//! Two labelled sets, measured three ways:
//!
//! - **The example skills** with `examples/relevance/queries.toml`, each query a whole process
//!   of the release binary (`skills search --json`), as a user runs it.
//! - **The example skills among the synthetic tree's distractors** with the same queries, in
//!   process: the same set in a catalog of 10,000 skills.
//! - **A synthetic 10,000-skill tree** ([`synthetic`]) with `examples/relevance/synthetic.toml`,
//!   queried in process by the `search` bench of skills-ops over an open index and an
//!   unchanged catalog, as a watching agent core calls it: the recall figures, and the
//!   latency of a query (median and p99), of the first search (which builds the index), of a
//!   re-check under a new generation, and of a one-off search (discovery included).
//!
//! Measured, not asserted: a miss is reported, and a target missed is printed as missed.

mod real;
mod synthetic;

pub(crate) use real::measure as measure_real;

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::Failure;
use crate::process;

/// The labelled set, relative to the repository root.
const QUERIES: &str = "examples/relevance/queries.toml";

/// Where the example skills are found, relative to the repository root.
const EXAMPLES: &str = "examples";

/// The targets of issue 16.
const RECALL_AT_1: f64 = 0.8;
const RECALL_AT_5: f64 = 0.95;
/// A query in process at 10,000 skills, in milliseconds (judged on the p99).
const QUERY_MS: f64 = 5.0;

/// Results asked of every query: recall@5 needs five.
const LIMIT: usize = 5;

/// One labelled query.
#[derive(serde::Deserialize)]
struct Labelled {
    text: String,
    expect: String,
}

#[derive(serde::Deserialize)]
struct Set {
    query: Vec<Labelled>,
}

/// How often the expected skill came first and in the top five.
#[derive(Default)]
struct Recall {
    queries: usize,
    first: usize,
    top_five: usize,
    misses: Vec<String>,
}

impl Recall {
    /// Counts one answer: `ranked` is the names, best first.
    fn count(&mut self, labelled: &Labelled, ranked: &[String]) {
        self.count_with(&labelled.text, &labelled.expect, ranked, |name| {
            name == labelled.expect
        });
    }

    /// Counts one answer to `text`, where a name is right when `accepted` says so (`expected`
    /// describes the right names for a miss's line).
    fn count_with(
        &mut self,
        text: &str,
        expected: &str,
        ranked: &[String],
        accepted: impl Fn(&str) -> bool,
    ) {
        self.queries += 1;
        if ranked.first().is_some_and(|name| accepted(name)) {
            self.first += 1;
        } else {
            self.misses.push(format!(
                "{text:?}: expected {expected}, got {}",
                ranked.join(", ")
            ));
        }
        if ranked.iter().take(LIMIT).any(|name| accepted(name)) {
            self.top_five += 1;
        }
    }

    fn at(&self, hits: usize) -> f64 {
        if self.queries == 0 {
            return 0.0;
        }
        hits as f64 / self.queries as f64
    }

    /// The two recall lines and the misses, indented for the table.
    fn lines(&self) -> String {
        self.lines_against((RECALL_AT_1, RECALL_AT_5))
    }

    /// The two recall figures and the misses, with no target to meet.
    fn lines_untargeted(&self) -> String {
        self.with_misses(format!(
            "  recall@1 {:.2} ({} of {})\n  recall@5 {:.2} ({} of {})",
            self.at(self.first),
            self.first,
            self.queries,
            self.at(self.top_five),
            self.top_five,
            self.queries,
        ))
    }

    /// `lines`, then a line per query whose first answer was wrong.
    fn with_misses(&self, mut lines: String) -> String {
        for miss in &self.misses {
            lines.push_str(&format!("\n  not first: {miss}"));
        }
        lines
    }

    /// [`Recall::lines`] against other targets (recall@1, recall@5).
    fn lines_against(&self, (at_1, at_5): (f64, f64)) -> String {
        self.with_misses(format!(
            "  recall@1 {} ({} of {})\n  recall@5 {} ({} of {})",
            verdict(self.at(self.first), at_1),
            self.first,
            self.queries,
            verdict(self.at(self.top_five), at_5),
            self.top_five,
            self.queries,
        ))
    }
}

fn verdict(value: f64, target: f64) -> String {
    if value >= target {
        format!("[met   ] {value:.2} (target ≥ {target})")
    } else {
        format!("[MISSED] {value:.2} (target ≥ {target})")
    }
}

/// What was measured over the example skills.
pub(crate) struct Measured {
    skills: usize,
    recall: Recall,
    median: Duration,
}

/// Copies every example skill into a scratch home (one folder per name) and runs each query.
pub(crate) fn measure(root: &Path, scratch: &Path, skills: &Path) -> Result<Measured, Failure> {
    let set: Set = read_set(root, QUERIES)?;
    let home = scratch.join("home");
    let workspace = scratch.join("ws");
    let installed = home.join(".openhuman/skills");
    fs::create_dir_all(&workspace)
        .and_then(|()| fs::create_dir_all(&installed))
        .map_err(|error| {
            Failure::new(
                format!("could not make the scratch tree: {error}"),
                "check TMPDIR",
            )
        })?;
    let mut count = 0;
    for folder in skill_folders(&root.join(EXAMPLES)) {
        let Some(name) = folder.file_name() else {
            continue;
        };
        let target = installed.join(name);
        if target.exists() {
            continue;
        }
        copy_tree(&folder, &target).map_err(|error| {
            Failure::new(
                format!("could not copy {}: {error}", folder.display()),
                "check TMPDIR",
            )
        })?;
        count += 1;
    }
    println!(
        "\n==> relevance: {} labelled queries over {count} example skills ({QUERIES})",
        set.query.len()
    );
    let mut measured = Measured {
        skills: count,
        recall: Recall::default(),
        median: Duration::ZERO,
    };
    let mut times = Vec::new();
    for labelled in &set.query {
        let started = Instant::now();
        let output = Command::new(skills)
            .arg("--workspace")
            .arg(&workspace)
            .arg("--home")
            .arg(&home)
            .args([
                "search",
                "--json",
                "--limit",
                &LIMIT.to_string(),
                &labelled.text,
            ])
            .env_remove("SKILLS_HOME")
            .output()
            .map_err(|error| {
                Failure::new(
                    format!("could not run skills search: {error}"),
                    "check the build",
                )
            })?;
        times.push(started.elapsed());
        let answer: Value = serde_json::from_slice(&output.stdout).map_err(|error| {
            Failure::new(
                format!(
                    "`skills search` answered no JSON ({error}): {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                ),
                "run it by hand on the scratch tree",
            )
        })?;
        measured.recall.count(labelled, &ranked(&answer));
    }
    times.sort();
    measured.median = times.get(times.len() / 2).copied().unwrap_or_default();
    Ok(measured)
}

/// The names of an answer's results, in order.
fn ranked(answer: &Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|hit| hit["name"].as_str().map(str::to_owned))
        .collect()
}

/// Every folder under `dir` that holds a `SKILL.md`, sorted.
fn skill_folders(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                if path.join("SKILL.md").is_file() {
                    found.push(path);
                } else {
                    pending.push(path);
                }
            }
        }
    }
    found.sort();
    found
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

impl Measured {
    fn table(&self) -> String {
        format!(
            "relevance, {} queries over {} example skills, whole process each (median {:.1} ms):\n{}",
            self.recall.queries,
            self.skills,
            milliseconds(self.median),
            self.recall.lines(),
        )
    }

    fn json(&self) -> Value {
        json!({
            "queries": self.recall.queries,
            "skills": self.skills,
            "recall_at_1": self.recall.at(self.recall.first),
            "recall_at_5": self.recall.at(self.recall.top_five),
            "median_process_ms": milliseconds(self.median),
            "not_first": self.recall.misses,
        })
    }
}

/// What was measured over the synthetic tree.
pub(crate) struct Synthetic {
    skills: usize,
    targets: usize,
    recall: Recall,
    /// Every query, timed over the open index with an unchanged catalog.
    query_median: Duration,
    query_p99: Duration,
    query_samples: usize,
    /// The first search: the index built from nothing.
    first: Duration,
    /// A search under a new generation of the same catalog (median).
    recheck: Duration,
    /// `search::search`, discovery and the index check included (median).
    one_off: Duration,
    generate: Duration,
}

/// A labelled set in the repository (`path`, relative to `root`), parsed.
fn read_set<T: serde::de::DeserializeOwned>(root: &Path, path: &str) -> Result<T, Failure> {
    let text = fs::read_to_string(root.join(path))
        .map_err(|error| Failure::new(format!("could not read {path}: {error}"), "restore it"))?;
    toml::from_str(&text)
        .map_err(|error| Failure::new(format!("{path} is not valid: {error}"), "fix it"))
}

/// Writes the synthetic tree under `dir/tree`, with what is `planted` among the distractors.
fn write_tree(
    dir: &Path,
    set: &synthetic::Set,
    planted: &synthetic::Planted<'_>,
) -> Result<synthetic::Tree, Failure> {
    synthetic::generate(&dir.join("tree"), set, planted, synthetic::SKILLS).map_err(|error| {
        Failure::new(
            format!("could not write the synthetic tree: {error}"),
            "check TMPDIR",
        )
    })
}

/// Writes the queries of a labelled set (`source`, for errors) one per line to
/// `dir/queries.txt`, as the `search` bench reads them; returns the file's path.
fn write_queries(
    dir: &Path,
    queries: &[Labelled],
    source: &str,
) -> Result<std::path::PathBuf, Failure> {
    let path = dir.join("queries.txt");
    let lines: Vec<&str> = queries
        .iter()
        .map(|labelled| labelled.text.as_str())
        .collect();
    if let Some(bad) = lines
        .iter()
        .find(|line| line.contains('\n') || line.is_empty())
    {
        return Err(Failure::new(
            format!("{source}: the query {bad:?} is empty or spans lines"),
            "write each query on one line",
        ));
    }
    fs::write(&path, lines.join("\n")).map_err(|error| {
        Failure::new(
            format!("could not write {}: {error}", path.display()),
            "check TMPDIR",
        )
    })?;
    Ok(path)
}

/// The labelled set, the synthetic tree written under `dir/tree` with the set's targets
/// planted, its queries file, and how long the tree took to write.
fn prepare_synthetic(
    root: &Path,
    dir: &Path,
) -> Result<
    (
        synthetic::Set,
        synthetic::Tree,
        std::path::PathBuf,
        Duration,
    ),
    Failure,
> {
    let set: synthetic::Set = read_set(root, synthetic::SET)?;
    let started = Instant::now();
    let tree = write_tree(dir, &set, &synthetic::Planted::Targets)?;
    let generate = started.elapsed();
    let queries = write_queries(dir, &set.queries, synthetic::SET)?;
    Ok((set, tree, queries, generate))
}

/// `xtask __relevance-tree DIR`: writes the synthetic tree and its queries under `DIR` (which
/// must not exist), and the example skills among the distractors with theirs under
/// `DIR/among`, and keeps them, for running the `search` bench by hand (`docs/benchmark.md`).
pub(crate) fn tree_main(root: &Path, args: &[String]) -> std::process::ExitCode {
    let [dir] = args else {
        eprintln!("usage: xtask __relevance-tree DIR");
        return std::process::ExitCode::from(2);
    };
    let dir = Path::new(dir);
    if dir.exists() {
        eprintln!("error: {} exists; give a new directory", dir.display());
        return std::process::ExitCode::FAILURE;
    }
    let both = prepare_synthetic(root, dir).and_then(|synthetic| {
        prepare_among(root, &dir.join("among")).map(|among| (synthetic, among))
    });
    match both {
        Ok(((set, tree, queries, _), (examples, among, among_queries))) => {
            println!(
                "{} skills ({} targets), {} queries in {}; workspace {}, home {}",
                tree.skills,
                set.targets.len(),
                set.queries.len(),
                queries.display(),
                tree.workspace.display(),
                tree.home.display()
            );
            println!(
                "{} skills ({} example skills), {} queries in {}; workspace {}, home {}",
                among.skills,
                among.planted,
                examples.query.len(),
                among_queries.display(),
                among.workspace.display(),
                among.home.display()
            );
            std::process::ExitCode::SUCCESS
        }
        Err(failure) => {
            eprintln!("error: {}\nhint: {}", failure.message, failure.hint);
            std::process::ExitCode::FAILURE
        }
    }
}

/// Writes the synthetic tree under `scratch` and runs the `search` bench (`bench`, built by
/// the caller) over it, each query `runs` times.
pub(crate) fn measure_synthetic(
    root: &Path,
    scratch: &Path,
    bench: &Path,
    runs: usize,
) -> Result<Synthetic, Failure> {
    let (set, tree, queries, generate) = prepare_synthetic(root, scratch)?;
    println!(
        "\n==> relevance: {} labelled queries over a synthetic tree of {} skills ({} targets, {}), in process",
        set.queries.len(),
        tree.skills,
        set.targets.len(),
        synthetic::SET
    );
    let (answer, ranked_lists) = run_search_bench(bench, &tree, &queries, runs, set.queries.len())?;
    let durations = |key: &str| -> Vec<Duration> {
        answer[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
            .map(Duration::from_nanos)
            .collect()
    };
    let mut recall = Recall::default();
    for (labelled, ranked) in set.queries.iter().zip(&ranked_lists) {
        recall.count(labelled, ranked);
    }
    let mut times = durations("query_ns");
    times.sort();
    Ok(Synthetic {
        skills: answer["skills"]
            .as_u64()
            .and_then(|count| usize::try_from(count).ok())
            .unwrap_or_default(),
        targets: set.targets.len(),
        recall,
        query_median: quantile(&times, 0.5),
        query_p99: quantile(&times, 0.99),
        query_samples: times.len(),
        first: Duration::from_nanos(answer["first_ns"].as_u64().unwrap_or_default()),
        recheck: median(durations("recheck_ns")),
        one_off: median(durations("one_off_ns")),
        generate,
    })
}

/// Runs the `search` bench over `tree` with the queries in `queries`, each `runs` times;
/// returns its answer and the names it ranked for each of the `expected` queries.
fn run_search_bench(
    bench: &Path,
    tree: &synthetic::Tree,
    queries: &Path,
    runs: usize,
    expected: usize,
) -> Result<(Value, Vec<Vec<String>>), Failure> {
    let output = process::output(
        Command::new(bench)
            .arg("--workspace")
            .arg(&tree.workspace)
            .arg("--home")
            .arg(&tree.home)
            .arg("--queries")
            .arg(queries)
            .args(["--runs", &runs.to_string()])
            .env_remove("SKILLS_HOME")
            .env_remove("RUST_LOG"),
    )
    .map_err(|message| Failure::new(message, "run the command above by hand"))?;
    let answer: Value = serde_json::from_str(&output).map_err(|error| {
        Failure::new(
            format!("the search bench printed no JSON ({error}): {output}"),
            "run the command above by hand",
        )
    })?;
    let ranked: Vec<Vec<String>> = answer["ranked"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|names| {
            names
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|name| name.as_str().map(str::to_owned))
                .collect()
        })
        .collect();
    if ranked.len() != expected {
        return Err(Failure::new(
            format!(
                "the search bench answered {} of {expected} queries",
                ranked.len()
            ),
            "run the command above by hand",
        ));
    }
    Ok((answer, ranked))
}

/// The example skills' labelled set, the synthetic tree written under `dir/tree` with the
/// example skills planted instead of the targets, and its queries file.
fn prepare_among(
    root: &Path,
    dir: &Path,
) -> Result<(Set, synthetic::Tree, std::path::PathBuf), Failure> {
    let examples: Set = read_set(root, QUERIES)?;
    let set: synthetic::Set = read_set(root, synthetic::SET)?;
    let folders = skill_folders(&root.join(EXAMPLES));
    let tree = write_tree(dir, &set, &synthetic::Planted::Folders(&folders))?;
    let queries = write_queries(dir, &examples.query, QUERIES)?;
    Ok((examples, tree, queries))
}

/// What was measured with the example skills planted in the synthetic tree.
pub(crate) struct Among {
    skills: usize,
    planted: usize,
    recall: Recall,
}

/// The example skills' own labelled set, with those skills planted among the synthetic
/// tree's distractors (10,000 skills in all), queried in process.
pub(crate) fn measure_among(root: &Path, scratch: &Path, bench: &Path) -> Result<Among, Failure> {
    let (examples, tree, queries) = prepare_among(root, scratch)?;
    println!(
        "\n==> relevance: {} labelled queries over the {} example skills among the synthetic distractors ({} skills, {QUERIES}), in process",
        examples.query.len(),
        tree.planted,
        tree.skills,
    );
    let (_, ranked) = run_search_bench(bench, &tree, &queries, 1, examples.query.len())?;
    let mut recall = Recall::default();
    for (labelled, ranked) in examples.query.iter().zip(&ranked) {
        recall.count(labelled, ranked);
    }
    Ok(Among {
        skills: tree.skills,
        planted: tree.planted,
        recall,
    })
}

impl Among {
    fn table(&self) -> String {
        format!(
            "relevance, {} queries over the {} example skills among synthetic distractors ({} skills), in process:\n{}",
            self.recall.queries,
            self.planted,
            self.skills,
            self.recall.lines(),
        )
    }

    fn json(&self) -> Value {
        json!({
            "set": QUERIES,
            "skills": self.skills,
            "planted": self.planted,
            "queries": self.recall.queries,
            "recall_at_1": self.recall.at(self.recall.first),
            "recall_at_5": self.recall.at(self.recall.top_five),
            "not_first": self.recall.misses,
        })
    }
}

/// The value below which `share` of the sorted `times` lie (nearest rank).
fn quantile(times: &[Duration], share: f64) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    let rank = (share * times.len() as f64).ceil() as usize;
    times[rank.clamp(1, times.len()) - 1]
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    quantile(&times, 0.5)
}

fn milliseconds(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

impl Synthetic {
    fn table(&self) -> String {
        let p99 = milliseconds(self.query_p99);
        let latency = if p99 < QUERY_MS {
            format!("[met   ] p99 {p99:.2} ms (target < {QUERY_MS} ms)")
        } else {
            format!("[MISSED] p99 {p99:.2} ms (target < {QUERY_MS} ms)")
        };
        format!(
            "relevance, {} queries over a synthetic tree of {} skills ({} targets), in process (a paraphrase stress test: its recall has no target, issue 32):\n{}\n  query, open index, unchanged catalog: median {:.2} ms, {latency}, {} queries timed\n  first search (builds the index) {:.0} ms; new generation, nothing changed {:.1} ms; one-off search (discovery included) {:.1} ms; tree written in {:.1} s",
            self.recall.queries,
            self.skills,
            self.targets,
            self.recall.lines_untargeted(),
            milliseconds(self.query_median),
            self.query_samples,
            milliseconds(self.first),
            milliseconds(self.recheck),
            milliseconds(self.one_off),
            self.generate.as_secs_f64(),
        )
    }

    fn json(&self) -> Value {
        json!({
            "set": synthetic::SET,
            "skills": self.skills,
            "targets": self.targets,
            "queries": self.recall.queries,
            "recall_at_1": self.recall.at(self.recall.first),
            "recall_at_5": self.recall.at(self.recall.top_five),
            "not_first": self.recall.misses,
            "query_median_ms": milliseconds(self.query_median),
            "query_p99_ms": milliseconds(self.query_p99),
            "query_target_ms": QUERY_MS,
            "queries_timed": self.query_samples,
            "first_search_ms": milliseconds(self.first),
            "new_generation_unchanged_ms": milliseconds(self.recheck),
            "one_off_search_ms": milliseconds(self.one_off),
            "tree_written_s": self.generate.as_secs_f64(),
        })
    }
}

/// Both sets' figures, as printed and as written to `target/bench/relevance.json`.
pub(crate) struct Report {
    pub(crate) examples: Measured,
    pub(crate) among: Among,
    pub(crate) synthetic: Synthetic,
    pub(crate) real: real::Real,
}

impl Report {
    pub(crate) fn table(&self) -> String {
        format!(
            "{}\n\n{}\n\n{}\n\n{}",
            self.examples.table(),
            self.among.table(),
            self.synthetic.table(),
            self.real.table()
        )
    }

    pub(crate) fn json(&self) -> Value {
        json!({
            "targets": {
                "recall_at_1": RECALL_AT_1,
                "recall_at_5": RECALL_AT_5,
                "query_ms": QUERY_MS,
            },
            "examples": self.examples.json(),
            "examples_among_distractors": self.among.json(),
            "synthetic": self.synthetic.json(),
            "real": self.real.json(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_labelled_set_parses_and_names_example_skills() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let set: Set = toml::from_str(&fs::read_to_string(root.join(QUERIES)).unwrap()).unwrap();
        assert!(set.query.len() >= 20, "a set worth measuring");
        let names: Vec<String> = skill_folders(&root.join(EXAMPLES))
            .iter()
            .filter_map(|folder| {
                folder
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
            })
            .collect();
        for labelled in &set.query {
            assert!(
                names.contains(&labelled.expect),
                "{} names no example skill",
                labelled.expect
            );
        }
    }

    #[test]
    fn answers_rank_in_order_and_recall_counts() {
        let answer = json!({ "results": [{ "name": "a" }, { "name": "b" }] });
        assert_eq!(ranked(&answer), ["a", "b"]);
        assert!(ranked(&json!({})).is_empty());
        let mut recall = Recall::default();
        let labelled = |expect: &str| Labelled {
            text: "q".to_owned(),
            expect: expect.to_owned(),
        };
        let names = ["a".to_owned(), "b".to_owned()];
        for expect in ["a", "a", "a", "b"] {
            recall.count(&labelled(expect), &names);
        }
        assert_eq!((recall.first, recall.top_five), (3, 4));
        assert_eq!(recall.misses, [r#""q": expected b, got a, b"#]);
        let measured = Measured {
            skills: 2,
            recall,
            median: Duration::ZERO,
        };
        assert!((measured.recall.at(3) - 0.75).abs() < f64::EPSILON);
        assert!(
            measured.table().contains("[MISSED] 0.75"),
            "{}",
            measured.table()
        );
        assert!(
            measured.table().contains("[met   ] 1.00"),
            "{}",
            measured.table()
        );
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let times: Vec<Duration> = (1..=200).map(Duration::from_millis).collect();
        assert_eq!(quantile(&times, 0.5), Duration::from_millis(100));
        assert_eq!(quantile(&times, 0.99), Duration::from_millis(198));
        assert_eq!(quantile(&times[..1], 0.99), Duration::from_millis(1));
        assert_eq!(quantile(&[], 0.5), Duration::ZERO);
        assert_eq!(
            median(vec![
                Duration::from_millis(3),
                Duration::from_millis(1),
                Duration::from_millis(2)
            ]),
            Duration::from_millis(2)
        );
    }
}
