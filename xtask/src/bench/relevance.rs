//! The relevance rows (issue 16, docs/search.md): how often `skills search` ranks the skill a
//! task is about first (recall@1) and in its top five (recall@5), over the labelled query set
//! `examples/relevance/queries.toml` and the example skills, each query a whole process of the
//! release binary, as a user runs it. Measured, not asserted: a miss is reported.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::Failure;

/// The labelled set, relative to the repository root.
const QUERIES: &str = "examples/relevance/queries.toml";

/// Where the example skills are found, relative to the repository root.
const EXAMPLES: &str = "examples";

/// The targets of issue 16.
const RECALL_AT_1: f64 = 0.8;
const RECALL_AT_5: f64 = 0.95;

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

/// What was measured.
pub(crate) struct Measured {
    queries: usize,
    skills: usize,
    first: usize,
    top_five: usize,
    misses: Vec<String>,
    median: Duration,
}

/// Copies every example skill into a scratch home (one folder per name) and runs each query.
pub(crate) fn measure(root: &Path, scratch: &Path, skills: &Path) -> Result<Measured, Failure> {
    let text = fs::read_to_string(root.join(QUERIES)).map_err(|error| {
        Failure::new(format!("could not read {QUERIES}: {error}"), "restore it")
    })?;
    let set: Set = toml::from_str(&text)
        .map_err(|error| Failure::new(format!("{QUERIES} is not valid: {error}"), "fix it"))?;
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
        queries: set.query.len(),
        skills: count,
        first: 0,
        top_five: 0,
        misses: Vec::new(),
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
            .args(["search", "--json", "--limit", "5", &labelled.text])
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
        let names = ranked(&answer);
        if names.first() == Some(&labelled.expect) {
            measured.first += 1;
        } else {
            measured.misses.push(format!(
                "{:?}: expected {}, got {}",
                labelled.text,
                labelled.expect,
                names.join(", ")
            ));
        }
        if names.contains(&labelled.expect) {
            measured.top_five += 1;
        }
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
    fn recall(&self, hits: usize) -> f64 {
        if self.queries == 0 {
            return 0.0;
        }
        hits as f64 / self.queries as f64
    }

    pub(crate) fn table(&self) -> String {
        let verdict = |value: f64, target: f64| {
            if value >= target {
                format!("[met   ] {value:.2} (target ≥ {target})")
            } else {
                format!("[MISSED] {value:.2} (target ≥ {target})")
            }
        };
        let mut table = format!(
            "relevance, {} queries over {} example skills, whole process each (median {:.1} ms):\n  recall@1 {}\n  recall@5 {}",
            self.queries,
            self.skills,
            self.median.as_secs_f64() * 1000.0,
            verdict(self.recall(self.first), RECALL_AT_1),
            verdict(self.recall(self.top_five), RECALL_AT_5),
        );
        for miss in &self.misses {
            table.push_str(&format!("\n  not first: {miss}"));
        }
        table
    }

    pub(crate) fn json(&self) -> Value {
        json!({
            "queries": self.queries,
            "skills": self.skills,
            "recall_at_1": self.recall(self.first),
            "recall_at_5": self.recall(self.top_five),
            "median_process_ms": self.median.as_secs_f64() * 1000.0,
            "not_first": self.misses,
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
        let measured = Measured {
            queries: 4,
            skills: 2,
            first: 3,
            top_five: 4,
            misses: vec![],
            median: Duration::ZERO,
        };
        assert!((measured.recall(3) - 0.75).abs() < f64::EPSILON);
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
}
