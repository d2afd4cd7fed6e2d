//! The relevance rows on real public skills (issue 32): the labelled set
//! `examples/relevance/real.toml` (queries written from the skills' folder names before any
//! description was read, each with every folder that answers it) over a folder of public
//! skill repositories given at run time (`--relevance-skills DIR`; the project ships none of
//! their text), measured twice in process through the `search` bench of skills-ops: the real
//! skills alone, and among the synthetic tree's distractors (10,000 skills in all).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{
    Recall, quantile, read_set, run_search_bench, skill_folders, synthetic, write_queries,
};
use crate::Failure;

/// The labelled set, relative to the repository root.
pub(crate) const SET: &str = "examples/relevance/real.toml";

/// The targets of issue 32: the real skills alone (about a thousand), and among 10,000.
const ALONE: (f64, f64) = (0.85, 0.97);
const AMONG: (f64, f64) = (0.75, 0.95);

/// One labelled query: the task, and the folders of the skills that answer it.
#[derive(serde::Deserialize)]
struct Query {
    text: String,
    expect: Vec<String>,
}

#[derive(serde::Deserialize)]
struct Set {
    query: Vec<Query>,
}

/// One measurement: a tree, and how the set fared in it.
pub(crate) struct Row {
    skills: usize,
    planted: usize,
    recall: Recall,
    targets: (f64, f64),
    query_p99_ms: f64,
}

/// What the real skills' rows measured, or why they were not run.
pub(crate) enum Real {
    NotRun(String),
    Measured {
        queries: usize,
        alone: Row,
        among: Row,
    },
}

/// Measures the set over the skills in `dir` (alone and among distractors) with the `search`
/// bench `bench`, each query `runs` times among the distractors.
pub(crate) fn measure(
    root: &Path,
    scratch: &Path,
    bench: &Path,
    dir: Option<&Path>,
    runs: usize,
) -> Result<Real, Failure> {
    let Some(dir) = dir else {
        return Ok(Real::NotRun(format!(
            "no --relevance-skills DIR was given (a folder of public skill repositories; {SET} names their folders)"
        )));
    };
    let folders = skill_folders(dir);
    if folders.is_empty() {
        return Ok(Real::NotRun(format!(
            "{} holds no folder with a SKILL.md",
            dir.display()
        )));
    }
    let set: Set = read_set(root, SET)?;
    let names = catalog_names(&folders);
    let distractors: synthetic::Set = read_set(root, synthetic::SET)?;
    println!(
        "\n==> relevance: {} labelled queries over {} real skills in {} ({SET}), in process",
        set.query.len(),
        folders.len(),
        dir.display()
    );
    let alone = row(&set, &names, scratch, "alone", bench, 1, ALONE, || {
        synthetic::generate(
            &scratch.join("alone"),
            &distractors,
            &synthetic::Planted::Folders(&folders),
            0,
        )
    })?;
    let among = row(&set, &names, scratch, "among", bench, runs, AMONG, || {
        synthetic::generate(
            &scratch.join("among"),
            &distractors,
            &synthetic::Planted::Folders(&folders),
            synthetic::SKILLS,
        )
    })?;
    Ok(Real::Measured {
        queries: set.query.len(),
        alone,
        among,
    })
}

/// Writes a tree with `generate` and runs the set over it.
#[expect(
    clippy::too_many_arguments,
    reason = "one call per row, each argument named"
)]
fn row(
    set: &Set,
    names: &BTreeMap<String, String>,
    scratch: &Path,
    which: &str,
    bench: &Path,
    runs: usize,
    targets: (f64, f64),
    generate: impl FnOnce() -> std::io::Result<synthetic::Tree>,
) -> Result<Row, Failure> {
    let tree = generate().map_err(|error| {
        Failure::new(
            format!("could not write the real skills' tree ({which}): {error}"),
            "check TMPDIR",
        )
    })?;
    let labelled: Vec<super::Labelled> = set
        .query
        .iter()
        .map(|query| super::Labelled {
            text: query.text.clone(),
            expect: query.expect.join(" | "),
        })
        .collect();
    let queries_dir = scratch.join(format!("{which}-queries"));
    fs::create_dir_all(&queries_dir).map_err(|error| {
        Failure::new(
            format!("could not write the queries: {error}"),
            "check TMPDIR",
        )
    })?;
    let queries = write_queries(&queries_dir, &labelled, SET)?;
    let (answer, ranked) = run_search_bench(bench, &tree, &queries, runs, set.query.len())?;
    let mut recall = Recall::default();
    for (query, ranked) in set.query.iter().zip(&ranked) {
        let accepted = |name: &str| {
            query.expect.iter().any(|folder| {
                folder == name || names.get(folder).is_some_and(|named| named == name)
            })
        };
        recall.count_with(&query.text, &query.expect.join(" | "), ranked, accepted);
    }
    let mut times: Vec<std::time::Duration> = answer["query_ns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .map(std::time::Duration::from_nanos)
        .collect();
    times.sort();
    Ok(Row {
        skills: tree.skills,
        planted: tree.planted,
        recall,
        targets,
        query_p99_ms: quantile(&times, 0.99).as_secs_f64() * 1000.0,
    })
}

/// The `name` each folder's `SKILL.md` gives in its frontmatter, by folder name (the first
/// folder of a name, as the tree keeps it): a search answers with catalog names, and a
/// skill's name need not be its folder's.
fn catalog_names(folders: &[PathBuf]) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for folder in folders {
        let Some(key) = folder
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
        else {
            continue;
        };
        if names.contains_key(&key) {
            continue;
        }
        let text = fs::read_to_string(folder.join("SKILL.md")).unwrap_or_default();
        if let Some(name) = frontmatter_name(&text) {
            names.insert(key, name);
        }
    }
    names
}

/// The `name:` of a frontmatter, unquoted.
fn frontmatter_name(text: &str) -> Option<String> {
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    lines
        .take_while(|line| line.trim_end() != "---")
        .find_map(|line| line.strip_prefix("name:"))
        .map(|value| value.trim().trim_matches(['"', '\'']).to_owned())
        .filter(|name| !name.is_empty())
}

impl Row {
    fn table(&self, title: &str) -> String {
        format!(
            "{title} ({} skills, {} of them real), in process; query p99 {:.2} ms:\n{}",
            self.skills,
            self.planted,
            self.query_p99_ms,
            self.recall.lines_against(self.targets),
        )
    }

    fn json(&self) -> Value {
        json!({
            "skills": self.skills,
            "real": self.planted,
            "queries": self.recall.queries,
            "recall_at_1": self.recall.at(self.recall.first),
            "recall_at_5": self.recall.at(self.recall.top_five),
            "targets": { "recall_at_1": self.targets.0, "recall_at_5": self.targets.1 },
            "query_p99_ms": self.query_p99_ms,
            "not_first": self.recall.misses,
        })
    }
}

impl Real {
    pub(crate) fn table(&self) -> String {
        match self {
            Self::NotRun(why) => format!("relevance on real skills: not run: {why}"),
            Self::Measured {
                queries,
                alone,
                among,
            } => format!(
                "{}\n\n{}",
                alone.table(&format!("relevance, {queries} queries over real public skills alone")),
                among.table(&format!(
                    "relevance, {queries} queries over real public skills among synthetic distractors"
                )),
            ),
        }
    }

    pub(crate) fn json(&self) -> Value {
        match self {
            Self::NotRun(why) => json!({ "set": SET, "not_run": why }),
            Self::Measured {
                queries,
                alone,
                among,
            } => json!({
                "set": SET,
                "queries": queries,
                "alone": alone.json(),
                "among_distractors": among.json(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_real_set_parses_and_every_query_names_an_answer() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let set: Set = toml::from_str(&fs::read_to_string(root.join(SET)).unwrap()).unwrap();
        assert!(set.query.len() >= 60, "a set worth measuring");
        for query in &set.query {
            assert!(!query.expect.is_empty(), "{:?} names no answer", query.text);
            assert!(!query.text.contains('\n'), "{:?}", query.text);
        }
    }

    #[test]
    fn a_frontmatter_name_is_read_unquoted_and_only_from_the_frontmatter() {
        assert_eq!(
            frontmatter_name("---\ndescription: d\nname: \"vercel-x\"\n---\nname: no\n"),
            Some("vercel-x".to_owned())
        );
        assert_eq!(frontmatter_name("name: body\n"), None);
        assert_eq!(
            frontmatter_name("---\ndescription: d\n---\nname: late\n"),
            None
        );
    }
}
