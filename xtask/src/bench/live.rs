//! The live catalog's rows (issue 16): on a realistic 10,000-skill tree, the in-process bench
//! `crates/skills/benches/live.rs` holds a watching handle, edits one definition file per
//! repetition and times the write → `catalog_changed` naming that skill, then times
//! `Skills::search` on that watching handle. The targets: a change is reported within the
//! debounce plus 200 ms, and a query takes under 5 ms.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use super::{report, tree};
use crate::Failure;

/// The tree the rows are measured on.
const SKILLS: usize = 10_000;

/// The debounce the bench watches with: the default of `skills watch` and the servers.
const DEBOUNCE_MS: u64 = 300;

/// How long after the debounce a change may take to be reported.
const CHANGE_MARGIN_MS: u64 = 200;

/// The longest an in-process query may take.
const QUERY_TARGET_MS: f64 = 5.0;

/// Task phrasings asked of the watching handle (their answers are not judged here: the
/// relevance rows do that).
const QUERIES: [&str; 3] = [
    "profile a csv file before analysing it",
    "my test passes locally but fails in ci",
    "write the release notes for this version",
];

/// What one run measured.
pub(crate) struct Measured {
    skills: u64,
    change: Vec<u64>,
    search: Vec<u64>,
}

/// Generates the tree under `scratch`, runs `bench` on it with `runs` repetitions.
pub(crate) fn measure(bench: &Path, scratch: &Path, runs: usize) -> Result<Measured, Failure> {
    let base = scratch.join("live");
    let tree = tree::generate(&base, SKILLS, tree::Shape::Realistic).map_err(|error| {
        Failure::new(
            format!("could not write the live bench's tree: {error}"),
            "set TMPDIR to a writable directory with a few hundred MiB free",
        )
    })?;
    let mut command = Command::new(bench);
    command
        .arg("--workspace")
        .arg(&tree.workspace)
        .arg("--home")
        .arg(&tree.home)
        .args(["--runs", &runs.to_string()])
        .args(["--debounce-ms", &DEBOUNCE_MS.to_string()]);
    for query in QUERIES {
        command.args(["--query", query]);
    }
    println!("\n==> live catalog: {command:?}");
    let output = command.output().map_err(|error| {
        Failure::new(
            format!("could not run {}: {error}", bench.display()),
            "`cargo bench -p skills --bench live --no-run` builds it",
        )
    })?;
    if !output.status.success() {
        return Err(Failure::new(
            format!(
                "the live bench failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ),
            "run the command above by hand to see why",
        ));
    }
    let line: Value = serde_json::from_slice(&output.stdout).map_err(|error| {
        Failure::new(
            format!("the live bench printed no JSON line: {error}"),
            "run the command above by hand to see what it printed",
        )
    })?;
    let numbers = |key: &str| -> Vec<u64> {
        line[key]
            .as_array()
            .map(|values| values.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default()
    };
    let measured = Measured {
        skills: line["skills"].as_u64().unwrap_or(0),
        change: numbers("change_ns"),
        search: numbers("search_ns"),
    };
    if measured.skills == 0 || measured.change.is_empty() || measured.search.is_empty() {
        return Err(Failure::new(
            format!("the live bench measured nothing: {line}"),
            "run the command above by hand to see why",
        ));
    }
    Ok(measured)
}

impl Measured {
    /// The printed rows, each against its target.
    pub(crate) fn table(&self) -> String {
        let change_target = DEBOUNCE_MS + CHANGE_MARGIN_MS;
        let change_median = milliseconds(report::median(&self.change).unwrap_or(0));
        let change_worst = milliseconds(self.change.iter().copied().max().unwrap_or(0));
        let search_median = milliseconds(report::median(&self.search).unwrap_or(0));
        let search_p99 = milliseconds(percentile(&self.search, 99));
        let verdict = |met: bool| if met { "met   " } else { "missed" };
        format!(
            "live catalog, realistic tree of {} skills ({} listed), watching with a {DEBOUNCE_MS} ms debounce:\n\
             | row | median | worst / p99 | target |\n\
             |---|--:|--:|---|\n\
             | change → catalog_changed ({} edits) | {change_median:.1} ms | {change_worst:.1} ms | ≤ {change_target} ms |\n\
             | search on a watching handle ({} queries) | {search_median:.3} ms | {search_p99:.3} ms | < {QUERY_TARGET_MS} ms |\n\
             [{}] change → event within the debounce + {CHANGE_MARGIN_MS} ms (worst {change_worst:.1} ms)\n\
             [{}] in-process query under {QUERY_TARGET_MS} ms (p99 {search_p99:.3} ms)",
            report::thousands(SKILLS),
            self.skills,
            self.change.len(),
            self.search.len(),
            verdict(change_worst <= change_target as f64),
            verdict(search_p99 < QUERY_TARGET_MS),
        )
    }

    /// The same as data, for `target/bench/live.json`.
    pub(crate) fn json(&self) -> Value {
        json!({
            "tree": { "shape": "realistic", "skills": SKILLS, "listed": self.skills },
            "debounce_ms": DEBOUNCE_MS,
            "change_ns": self.change,
            "change_target_ms": DEBOUNCE_MS + CHANGE_MARGIN_MS,
            "search_ns": self.search,
            "search_target_ms": QUERY_TARGET_MS,
        })
    }
}

/// The `rank`th percentile (nearest rank) of `values`.
fn percentile(values: &[u64], rank: usize) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let index = (sorted.len() * rank).div_ceil(100).saturating_sub(1);
    sorted.get(index).copied().unwrap_or(0)
}

fn milliseconds(nanoseconds: u64) -> f64 {
    Duration::from_nanos(nanoseconds).as_secs_f64() * 1_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_rows_against_their_targets() {
        let measured = Measured {
            skills: 9_750,
            change: vec![390_000_000, 410_000_000, 520_000_000],
            search: vec![150_000, 160_000, 6_000_000],
        };
        let table = measured.table();
        assert!(
            table.contains("| 410.0 ms | 520.0 ms | ≤ 500 ms |"),
            "{table}"
        );
        assert!(table.contains("[missed] change → event"), "{table}");
        assert!(table.contains("[missed] in-process query"), "{table}");
        assert_eq!(measured.json()["change_target_ms"], 500);
        assert_eq!(percentile(&[1, 2, 3, 4], 99), 4);
        assert_eq!(percentile(&[1, 2, 3, 4], 50), 2);
    }
}
