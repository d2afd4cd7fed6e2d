//! The synthetic 10,000-skill tree of the relevance rows (issue 16): the target skills of the
//! labelled set `examples/relevance/synthetic.toml`, written as they are, among distractors
//! generated from topics × actions × flavours, so that every target has hundreds of
//! neighbours that share its topic (`postgres-backup-daily`), its action
//! (`mysql-optimize-cli`) and their words.
//!
//! A distractor is never generated for a target's own (topic, action) pair: at 10,000 skills a
//! real catalog holds near-copies, but a query whose right answer has five equivalents has no
//! right answer to measure. Everything else comes from a seeded [`Rng`], so every run writes
//! the same tree byte for byte.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::super::tree::Rng;
use super::Labelled;

/// The labelled set, relative to the repository root.
pub(crate) const SET: &str = "examples/relevance/synthetic.toml";

/// The skills in the tree, the targets included.
pub(crate) const SKILLS: usize = 10_000;

/// The seed of the distractors. Changing it changes every report's input: do not.
const SEED: u64 = 0x5EED_0016_2E1E_5A4C;

/// A target skill of the labelled set.
#[derive(serde::Deserialize)]
pub(crate) struct Target {
    pub(crate) name: String,
    /// The topic and action it is about ([`TOPICS`], [`ACTIONS`]): no distractor has both.
    pub(crate) topic: String,
    pub(crate) action: String,
    pub(crate) description: String,
    pub(crate) when_to_use: Option<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) headings: Vec<String>,
}

/// The labelled set: the targets and the queries.
#[derive(serde::Deserialize)]
pub(crate) struct Set {
    #[serde(rename = "skill")]
    pub(crate) targets: Vec<Target>,
    #[serde(rename = "query")]
    pub(crate) queries: Vec<Labelled>,
}

/// What a distractor is about: a key for its name and tags, the phrase its description uses,
/// and words that come with it.
struct Topic {
    key: &'static str,
    phrase: &'static str,
    words: &'static [&'static str],
}

/// What a distractor does: a key for its name and tags, the verb its description opens with
/// and its plain form, and words that come with it.
struct Action {
    key: &'static str,
    verb: &'static str,
    plain: &'static str,
    words: &'static [&'static str],
}

const fn topic(key: &'static str, phrase: &'static str, words: &'static [&'static str]) -> Topic {
    Topic { key, phrase, words }
}

const fn action(
    key: &'static str,
    verb: &'static str,
    plain: &'static str,
    words: &'static [&'static str],
) -> Action {
    Action {
        key,
        verb,
        plain,
        words,
    }
}

const TOPICS: [Topic; 50] = [
    topic(
        "postgres",
        "PostgreSQL databases",
        &["tables", "queries", "indexes", "SQL", "schemas", "rows"],
    ),
    topic(
        "mysql",
        "MySQL databases",
        &["tables", "queries", "replicas", "binlogs", "rows"],
    ),
    topic(
        "sqlite",
        "SQLite files",
        &["database files", "tables", "queries", "rows"],
    ),
    topic(
        "redis",
        "Redis instances",
        &["keys", "cache", "memory", "TTLs", "streams"],
    ),
    topic(
        "kafka",
        "Kafka topics",
        &["partitions", "consumers", "messages", "queue", "brokers"],
    ),
    topic(
        "csv",
        "CSV files",
        &["columns", "rows", "exports", "delimiters", "records"],
    ),
    topic(
        "excel",
        "Excel workbooks",
        &[
            "sheets",
            "cells",
            "formulas",
            "spreadsheets",
            "pivot tables",
        ],
    ),
    topic(
        "pdf",
        "PDF documents",
        &["pages", "scans", "forms", "reports", "attachments"],
    ),
    topic(
        "docx",
        "Word documents",
        &["paragraphs", "styles", "drafts", "comments", "templates"],
    ),
    topic(
        "markdown",
        "Markdown notes",
        &["headings", "docs", "links", "front matter", "READMEs"],
    ),
    topic(
        "json",
        "JSON payloads",
        &["fields", "API responses", "nested objects", "arrays"],
    ),
    topic(
        "yaml",
        "YAML configuration",
        &["config files", "keys", "settings", "anchors"],
    ),
    topic(
        "images",
        "images",
        &[
            "photos",
            "PNG files",
            "JPEG files",
            "pictures",
            "thumbnails",
        ],
    ),
    topic(
        "video",
        "video files",
        &["clips", "recordings", "frames", "MP4 files", "streams"],
    ),
    topic(
        "audio",
        "audio files",
        &["recordings", "podcasts", "voice notes", "speech", "music"],
    ),
    topic(
        "email",
        "email",
        &["inbox", "messages", "threads", "mail", "attachments"],
    ),
    topic(
        "slack",
        "Slack workspaces",
        &["channels", "messages", "threads", "chat", "mentions"],
    ),
    topic(
        "calendar",
        "calendars",
        &[
            "events",
            "meetings",
            "invites",
            "time zones",
            "availability",
        ],
    ),
    topic(
        "invoices",
        "invoices",
        &["billing", "payments", "customers", "amounts", "due dates"],
    ),
    topic(
        "expenses",
        "expense reports",
        &["receipts", "reimbursements", "travel costs", "cards"],
    ),
    topic(
        "contracts",
        "contracts",
        &[
            "clauses",
            "agreements",
            "legal terms",
            "signatures",
            "renewals",
        ],
    ),
    topic(
        "resumes",
        "resumes",
        &["candidates", "applications", "hiring", "job posts"],
    ),
    topic(
        "tickets",
        "support tickets",
        &["customers", "help desk", "replies", "queues", "complaints"],
    ),
    topic(
        "jira",
        "Jira projects",
        &["issues", "sprints", "backlog", "epics", "boards"],
    ),
    topic(
        "github",
        "GitHub repositories",
        &["pull requests", "reviews", "branches", "issues", "actions"],
    ),
    topic(
        "git",
        "git repositories",
        &["commits", "branches", "history", "merges", "tags"],
    ),
    topic(
        "docker",
        "Docker images",
        &["containers", "Dockerfiles", "layers", "registries"],
    ),
    topic(
        "kubernetes",
        "Kubernetes clusters",
        &["pods", "deployments", "manifests", "nodes", "services"],
    ),
    topic(
        "terraform",
        "Terraform projects",
        &["plans", "state", "modules", "infrastructure", "providers"],
    ),
    topic(
        "aws",
        "AWS accounts",
        &[
            "S3 buckets",
            "IAM roles",
            "EC2 instances",
            "Lambda functions",
        ],
    ),
    topic(
        "dns",
        "DNS zones",
        &["domains", "records", "resolvers", "nameservers"],
    ),
    topic(
        "tls",
        "TLS certificates",
        &["HTTPS", "keys", "domains", "certificate chains"],
    ),
    topic(
        "logs",
        "application logs",
        &["errors", "log lines", "exceptions", "traces", "warnings"],
    ),
    topic(
        "metrics",
        "service metrics",
        &["dashboards", "alerts", "graphs", "SLOs", "latency"],
    ),
    topic(
        "api",
        "REST APIs",
        &[
            "endpoints",
            "requests",
            "responses",
            "routes",
            "status codes",
        ],
    ),
    topic(
        "graphql",
        "GraphQL servers",
        &["schemas", "resolvers", "queries", "mutations"],
    ),
    topic(
        "react",
        "React apps",
        &["components", "hooks", "props", "state", "UI"],
    ),
    topic(
        "css",
        "stylesheets",
        &["CSS", "layouts", "colours", "themes", "fonts"],
    ),
    topic(
        "python",
        "Python projects",
        &["packages", "dependencies", "virtualenvs", "pip", "modules"],
    ),
    topic(
        "rust",
        "Rust crates",
        &["cargo", "builds", "dependencies", "features", "workspaces"],
    ),
    topic(
        "javascript",
        "JavaScript projects",
        &["npm packages", "bundles", "node modules", "scripts"],
    ),
    topic(
        "tests",
        "test suites",
        &["tests", "CI", "coverage", "test runs", "fixtures"],
    ),
    topic(
        "translations",
        "translation files",
        &["locales", "languages", "strings", "plurals"],
    ),
    topic(
        "seo",
        "websites",
        &[
            "web pages",
            "search engines",
            "keywords",
            "rankings",
            "sitemaps",
        ],
    ),
    topic(
        "social",
        "social media accounts",
        &["posts", "tweets", "followers", "hashtags", "LinkedIn"],
    ),
    topic(
        "newsletter",
        "newsletters",
        &["subscribers", "campaigns", "emails", "mailing lists"],
    ),
    topic(
        "survey",
        "surveys",
        &["responses", "questionnaires", "answers", "ratings"],
    ),
    topic(
        "budget",
        "budgets",
        &["spending", "costs", "forecasts", "departments", "quarters"],
    ),
    topic(
        "inventory",
        "inventory",
        &["stock", "products", "orders", "warehouses", "suppliers"],
    ),
    topic(
        "recipes",
        "recipes",
        &[
            "ingredients",
            "meals",
            "cooking",
            "shopping lists",
            "portions",
        ],
    ),
];

const ACTIONS: [Action; 25] = [
    action(
        "summarize",
        "Summarises",
        "summarise",
        &["summaries", "key points", "highlights", "digests"],
    ),
    action(
        "convert",
        "Converts",
        "convert",
        &["formats", "exports", "conversions", "output files"],
    ),
    action(
        "validate",
        "Validates",
        "validate",
        &["errors", "schemas", "checks", "missing values"],
    ),
    action(
        "clean",
        "Cleans up",
        "clean up",
        &["duplicates", "whitespace", "typos", "noise"],
    ),
    action(
        "migrate",
        "Migrates",
        "migrate",
        &["upgrades", "versions", "breaking changes", "rollbacks"],
    ),
    action(
        "backup",
        "Backs up",
        "back up",
        &["snapshots", "restores", "copies", "retention"],
    ),
    action(
        "monitor",
        "Monitors",
        "monitor",
        &["alerts", "thresholds", "health", "status", "warnings"],
    ),
    action(
        "search",
        "Searches",
        "search",
        &["filters", "matches", "lookups", "queries"],
    ),
    action(
        "translate",
        "Translates",
        "translate",
        &["languages", "wording", "glossaries", "tone"],
    ),
    action(
        "compress",
        "Compresses",
        "compress",
        &["file size", "archives", "quality", "smaller files"],
    ),
    action(
        "encrypt",
        "Encrypts",
        "encrypt",
        &["keys", "secrets", "passwords", "access"],
    ),
    action(
        "audit",
        "Audits",
        "audit",
        &["findings", "compliance", "risks", "permissions"],
    ),
    action(
        "benchmark",
        "Benchmarks",
        "benchmark",
        &["timings", "throughput", "slow spots", "profiles"],
    ),
    action(
        "document",
        "Documents",
        "document",
        &["reference docs", "explanations", "examples", "specs"],
    ),
    action(
        "review",
        "Reviews",
        "review",
        &["comments", "suggestions", "changes", "feedback"],
    ),
    action(
        "generate",
        "Generates",
        "generate",
        &["templates", "drafts", "boilerplate", "new files"],
    ),
    action(
        "schedule",
        "Schedules",
        "schedule",
        &["reminders", "dates", "recurring jobs", "deadlines"],
    ),
    action(
        "merge",
        "Merges",
        "merge",
        &["conflicts", "combined copies", "sources"],
    ),
    action(
        "visualize",
        "Charts",
        "chart",
        &["graphs", "plots", "trends", "dashboards"],
    ),
    action(
        "classify",
        "Classifies",
        "classify",
        &["labels", "categories", "groups", "priorities"],
    ),
    action(
        "extract",
        "Extracts data from",
        "extract data from",
        &["fields", "text", "values", "tables"],
    ),
    action(
        "lint",
        "Lints",
        "lint",
        &["style", "warnings", "formatting", "conventions"],
    ),
    action(
        "deploy",
        "Deploys",
        "deploy",
        &["releases", "rollouts", "environments", "previews"],
    ),
    action(
        "debug",
        "Debugs",
        "debug",
        &["failures", "crashes", "stack traces", "root causes"],
    ),
    action(
        "optimize",
        "Optimises",
        "optimise",
        &["speed", "cost", "slow parts", "performance", "memory"],
    ),
];

/// The third part of a distractor's name, and what its description says about it.
const FLAVOURS: [(&str, &str); 10] = [
    ("cli", "from the command line"),
    ("teams", "for teams"),
    ("lite", "with no dependencies"),
    ("pro", "with detailed reports"),
    ("cloud", "in the cloud"),
    ("local", "on your own machine"),
    ("batch", "in batches"),
    ("daily", "on a daily schedule"),
    ("quick", "in one step"),
    ("org", "across a whole organisation"),
];

/// Sentences any skill might carry.
const GENERIC: [&str; 10] = [
    "Asks before changing anything.",
    "Prints a short summary at the end.",
    "Runs offline.",
    "Keeps a log of every step.",
    "Explains each step in plain words.",
    "Safe to run again.",
    "Needs read access only.",
    "Good for large projects.",
    "Writes its results to a Markdown file.",
    "Supports dry runs.",
];

/// Headings any skill body might carry.
const SECTIONS: [&str; 6] = [
    "Steps",
    "Output",
    "Troubleshooting",
    "Examples",
    "Limits",
    "Setup",
];

/// A skill as written to the tree.
struct Written {
    name: String,
    description: String,
    when_to_use: Option<String>,
    tags: Vec<String>,
    headings: Vec<String>,
}

/// The tree written.
pub(crate) struct Tree {
    pub(crate) workspace: PathBuf,
    pub(crate) home: PathBuf,
    /// Skills in all.
    pub(crate) skills: usize,
    /// Of them, the ones planted.
    pub(crate) planted: usize,
}

/// What the distractors are written around.
pub(crate) enum Planted<'a> {
    /// The labelled set's own targets, written as they are.
    Targets,
    /// Skill folders copied whole (the example skills, for their own labelled set); a name
    /// already written keeps its first folder. The distractors still avoid the targets' pairs.
    Folders(&'a [PathBuf]),
}

/// Writes what is `planted` and distractors up to `skills` in all under `base`: one flat
/// root, `<base>/home/.openhuman/skills/<name>/SKILL.md` (with a `skill.toml` for a
/// `when_to_use`), and an empty workspace.
pub(crate) fn generate(
    base: &Path,
    set: &Set,
    planted: &Planted<'_>,
    skills: usize,
) -> io::Result<Tree> {
    let home = base.join("home");
    let workspace = base.join("ws");
    let root = home.join(".openhuman/skills");
    fs::create_dir_all(&root)?;
    fs::create_dir_all(&workspace)?;
    let mut written = 0;
    match planted {
        Planted::Targets => {
            for target in &set.targets {
                write(
                    &root,
                    &Written {
                        name: target.name.clone(),
                        description: target.description.clone(),
                        when_to_use: target.when_to_use.clone(),
                        tags: target.tags.clone(),
                        headings: target.headings.clone(),
                    },
                )?;
                written += 1;
            }
        }
        Planted::Folders(folders) => {
            for folder in *folders {
                let Some(name) = folder.file_name() else {
                    continue;
                };
                let to = root.join(name);
                if !to.exists() {
                    super::copy_tree(folder, &to)?;
                    written += 1;
                }
            }
        }
    }
    let planted = written;
    let mut rng = Rng::new(SEED);
    for (topic, action, flavour) in distractors(set, skills.saturating_sub(written), &mut rng) {
        write(&root, &distractor(&mut rng, topic, action, flavour))?;
        written += 1;
    }
    Ok(Tree {
        workspace,
        home,
        skills: written,
        planted,
    })
}

/// `count` distinct (topic, action, flavour) triples, none on a target's own pair, in a
/// seeded order.
fn distractors<'a>(
    set: &Set,
    count: usize,
    rng: &mut Rng,
) -> Vec<(&'a Topic, &'a Action, (&'a str, &'a str))> {
    let taken: BTreeSet<(&str, &str)> = set
        .targets
        .iter()
        .map(|target| (target.topic.as_str(), target.action.as_str()))
        .collect();
    let mut all = Vec::new();
    for topic in &TOPICS {
        for action in &ACTIONS {
            if taken.contains(&(topic.key, action.key)) {
                continue;
            }
            for flavour in FLAVOURS {
                all.push((topic, action, flavour));
            }
        }
    }
    shuffle(rng, &mut all);
    all.truncate(count);
    all
}

fn distractor(rng: &mut Rng, topic: &Topic, action: &Action, flavour: (&str, &str)) -> Written {
    let topic_words = some(rng, topic.words, 3);
    let action_words = some(rng, action.words, 3);
    let mut description = format!("{} {} {}. ", action.verb, topic.phrase, flavour.1);
    description.push_str(&match rng.below(4) {
        0 => format!("Reports {} and {}.", action_words[0], action_words[1]),
        1 => format!(
            "Covers {}, {} and {}.",
            action_words[0], action_words[1], action_words[2]
        ),
        2 => format!(
            "Handles {} and {} along the way.",
            action_words[0], action_words[1]
        ),
        _ => format!(
            "Writes out {} with notes on {}.",
            action_words[0], action_words[1]
        ),
    });
    description.push(' ');
    description.push_str(&match rng.below(3) {
        0 => format!("Works with {} and {}.", topic_words[0], topic_words[1]),
        1 => format!(
            "Understands {}, {} and {}.",
            topic_words[0], topic_words[1], topic_words[2]
        ),
        _ => format!("Reads {} directly.", topic_words[0]),
    });
    let generic = usize::try_from(rng.below(3)).unwrap_or(0);
    for sentence in some(rng, &GENERIC, generic) {
        description.push(' ');
        description.push_str(sentence);
    }
    match rng.below(3) {
        0 => description.push_str(&format!(
            " Use when someone asks to {} {}.",
            action.plain, topic.phrase
        )),
        1 => description.push_str(&format!(
            " Use when working with {} and {} matter.",
            topic_words[2], action_words[2]
        )),
        _ => {}
    }
    let when_to_use = (rng.below(10) < 3).then(|| {
        format!(
            "When the user mentions {} and {}.",
            topic_words[1], action_words[0]
        )
    });
    let name = format!("{}-{}-{}", topic.key, action.key, flavour.0);
    let mut headings = vec![capitalised(action_words[0]), capitalised(topic_words[0])];
    headings.extend(some(rng, &SECTIONS, 2).into_iter().map(str::to_owned));
    Written {
        description,
        when_to_use,
        tags: vec![
            topic.key.to_owned(),
            action.key.to_owned(),
            flavour.0.to_owned(),
        ],
        headings,
        name,
    }
}

/// `count` distinct items of `items` (all of them when there are fewer), in a seeded order.
fn some<'a>(rng: &mut Rng, items: &[&'a str], count: usize) -> Vec<&'a str> {
    let mut items = items.to_vec();
    shuffle(rng, &mut items);
    items.truncate(count);
    items
}

/// Fisher–Yates.
fn shuffle<T>(rng: &mut Rng, items: &mut [T]) {
    for last in (1..items.len()).rev() {
        let other = usize::try_from(rng.below(last as u64 + 1)).unwrap_or(0);
        items.swap(last, other);
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// Writes one skill folder: `SKILL.md` (its description and tags quoted as JSON strings,
/// which YAML reads as they are) and, when it has a `when_to_use`, `skill.toml`.
fn write(root: &Path, skill: &Written) -> io::Result<()> {
    let dir = root.join(&skill.name);
    fs::create_dir_all(&dir)?;
    let quoted = |text: &str| serde_json::Value::from(text).to_string();
    let mut text = format!(
        "---\nname: {}\ndescription: {}\nmetadata:\n  tags: {}\n---\n\n# {}\n\n{}\n",
        skill.name,
        quoted(&skill.description),
        quoted(&skill.tags.join(", ")),
        capitalised(&skill.name.replace('-', " ")),
        skill.description
    );
    for heading in &skill.headings {
        text.push_str(&format!("\n## {heading}\n\nSee the steps below.\n"));
    }
    fs::write(dir.join("SKILL.md"), text)?;
    if let Some(when_to_use) = &skill.when_to_use {
        fs::write(
            dir.join("skill.toml"),
            format!(
                "when_to_use = {}\n",
                toml::Value::from(when_to_use.as_str())
            ),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> Set {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        toml::from_str(&fs::read_to_string(root.join(SET)).unwrap()).unwrap()
    }

    /// The words of a text, lowercased, without the commonest English ones: a rough cut of
    /// what the index matches on (it also stems, which this does not).
    fn words(text: &str) -> BTreeSet<String> {
        const COMMON: &[&str] = &[
            "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into",
            "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then",
            "there", "these", "they", "this", "to", "was", "will", "with", "i", "my", "me", "we",
            "our", "us", "you", "your", "what", "which", "why", "how", "when", "where", "who",
            "do", "does", "did", "can", "should", "so", "up", "out",
        ];
        text.split(|c: char| !c.is_alphanumeric())
            .map(str::to_lowercase)
            .filter(|word| !word.is_empty() && !COMMON.contains(&word.as_str()))
            .collect()
    }

    #[test]
    fn the_set_names_known_topics_and_every_query_its_target() {
        let set = set();
        assert!(
            set.targets.len() >= 40 && set.queries.len() >= 80,
            "a set worth measuring"
        );
        let names: BTreeSet<&str> = set
            .targets
            .iter()
            .map(|target| target.name.as_str())
            .collect();
        assert_eq!(names.len(), set.targets.len(), "target names are unique");
        for target in &set.targets {
            assert!(
                TOPICS.iter().any(|topic| topic.key == target.topic),
                "{}: unknown topic {}",
                target.name,
                target.topic
            );
            assert!(
                ACTIONS.iter().any(|action| action.key == target.action),
                "{}: unknown action {}",
                target.name,
                target.action
            );
            // A target never looks like a distractor's name.
            assert!(
                !TOPICS.iter().any(|topic| target
                    .name
                    .starts_with(&format!("{}-{}-", topic.key, target.action))),
                "{}",
                target.name
            );
        }
        for query in &set.queries {
            assert!(names.contains(query.expect.as_str()), "{}", query.expect);
        }
    }

    #[test]
    fn queries_are_the_task_not_the_skills_words() {
        let set = set();
        let mut shared_total = 0;
        for query in &set.queries {
            let target = set
                .targets
                .iter()
                .find(|target| target.name == query.expect)
                .unwrap();
            let name = target.name.replace('-', " ");
            assert!(
                !query.text.to_lowercase().contains(&name),
                "{:?} repeats its skill's name",
                query.text
            );
            let text = format!(
                "{name} {} {} {} {}",
                target.description,
                target.when_to_use.as_deref().unwrap_or_default(),
                target.tags.join(" "),
                target.headings.join(" ")
            );
            let shared = words(&query.text).intersection(&words(&text)).count();
            assert!(
                shared <= 4,
                "{:?} shares {shared} words with its skill",
                query.text
            );
            shared_total += shared;
        }
        // On average a query shares about a word with the skill it should find.
        assert!(shared_total <= 2 * set.queries.len(), "{shared_total}");
    }

    #[test]
    fn the_tree_is_the_same_every_time_and_holds_every_target() {
        let set = set();
        let base = std::env::temp_dir().join(format!("xtask-synthetic-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        let first = generate(&base.join("a"), &set, &Planted::Targets, 400).unwrap();
        let second = generate(&base.join("b"), &set, &Planted::Targets, 400).unwrap();
        assert_eq!(first.skills, 400);
        let listing = |tree: &Tree| {
            let mut found: Vec<(String, String)> =
                fs::read_dir(tree.home.join(".openhuman/skills"))
                    .unwrap()
                    .map(|entry| {
                        let path = entry.unwrap().path();
                        (
                            path.file_name().unwrap().to_string_lossy().into_owned(),
                            fs::read_to_string(path.join("SKILL.md")).unwrap(),
                        )
                    })
                    .collect();
            found.sort();
            found
        };
        let skills = listing(&first);
        assert_eq!(skills, listing(&second));
        assert_eq!(skills.len(), 400);
        for target in &set.targets {
            assert!(
                skills.iter().any(|(name, _)| *name == target.name),
                "{}",
                target.name
            );
        }
        // No distractor on a target's own pair.
        for (name, _) in &skills {
            for target in &set.targets {
                assert!(
                    !name.starts_with(&format!("{}-{}-", target.topic, target.action)),
                    "{name}"
                );
            }
        }
        let text = &skills
            .iter()
            .find(|(name, _)| name == "pg-slow-query-doctor")
            .unwrap()
            .1;
        assert!(
            text.contains("tags: \"postgres, performance, sql\""),
            "{text}"
        );
        assert!(text.contains("\n## Reading the plan\n"), "{text}");
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn planted_folders_are_copied_whole_once_and_counted() {
        let set = set();
        let base = std::env::temp_dir().join(format!("xtask-planted-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        let source = base.join("source");
        for (folder, body) in [
            ("one/tidy", "first"),
            ("two/tidy", "second"),
            ("two/lint", "x"),
        ] {
            let dir = source.join(folder);
            fs::create_dir_all(dir.join("scripts")).unwrap();
            fs::write(dir.join("SKILL.md"), body).unwrap();
            fs::write(dir.join("scripts/run.sh"), body).unwrap();
        }
        let folders = [
            source.join("one/tidy"),
            source.join("two/tidy"),
            source.join("two/lint"),
        ];
        let tree = generate(&base.join("tree"), &set, &Planted::Folders(&folders), 50).unwrap();
        assert_eq!((tree.planted, tree.skills), (2, 50));
        let root = tree.home.join(".openhuman/skills");
        assert_eq!(fs::read_dir(&root).unwrap().count(), 50);
        assert_eq!(
            fs::read_to_string(root.join("tidy/SKILL.md")).unwrap(),
            "first"
        );
        assert_eq!(
            fs::read_to_string(root.join("tidy/scripts/run.sh")).unwrap(),
            "first"
        );
        assert!(
            set.targets
                .iter()
                .all(|target| !root.join(&target.name).exists()),
            "the targets are not planted"
        );
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn there_are_enough_distractors_for_ten_thousand_skills() {
        let set = set();
        let mut rng = Rng::new(SEED);
        let count = SKILLS - set.targets.len();
        assert_eq!(distractors(&set, count, &mut rng).len(), count);
    }
}
