//! The synthetic skill trees `cargo xtask bench` measures (06 §Performance): a home and a
//! trusted workspace whose skill roots hold realistic `SKILL.md` files, some shadowed names
//! and a few malformed files.
//!
//! Everything comes from a seeded [`Rng`], so every run, on every machine, builds the same
//! tree byte for byte: a difference between two reports is never a difference in the input.
//!
//! The skills are spread evenly over four roots, two per scope; a shadowed copy sits in the
//! other scope, so every collision is decided by precedence. Nothing here guards discovery's
//! limits (a root's folder budget, the depth): the bench checks instead that every contender
//! saw every skill, so a limit that cuts the listing short shows up as a warning rather than
//! as a flattering ratio.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The seed of every tree. Changing it changes every report's input: do not.
const SEED: u64 = 0x5EED_0006_BE4C_4000;

/// The skill roots, user scope first. A copy that shadows another sits [`OTHER_SCOPE`] roots
/// away, in the other scope.
const ROOTS: [(Base, &str); 4] = [
    (Base::Home, ".openhuman/skills"),
    (Base::Home, ".agents/skills"),
    (Base::Workspace, ".openhuman/skills"),
    (Base::Workspace, ".agents/skills"),
];

const OTHER_SCOPE: usize = 2;

/// The root that wins every collision (the first project root): the skill `skills read` is
/// asked for lives there.
const READ_ROOT: usize = 2;

/// Shares of the skills, in thousandths.
const SHADOWED_PER_MILLE: usize = 20;
const MALFORMED_PER_MILLE: usize = 5;
/// One skill in this many sits directly under its root instead of in a category folder.
const UNCATEGORISED_ONE_IN: u64 = 10;

/// Size of a definition file, in bytes (06: 2–6 KiB). The body generator overshoots its target
/// by at most one block (under 400 bytes), so the target stops short of 6 KiB.
const DEFINITION_BYTES: (u64, u64) = (2_048, 5_700);
/// Length of a description, in characters (06: 200–500). A description stops before the word
/// that would pass its target, so the target starts above 200.
const DESCRIPTION_CHARS: (u64, u64) = (220, 500);
/// Size of `references/notes.md`.
const NOTES_BYTES: usize = 1_024;

#[derive(Clone, Copy)]
enum Base {
    Home,
    Workspace,
}

const CATEGORIES: [&str; 20] = [
    "analytics",
    "automation",
    "cloud",
    "data",
    "databases",
    "design",
    "devops",
    "documents",
    "education",
    "finance",
    "frontend",
    "infrastructure",
    "legal",
    "marketing",
    "media",
    "productivity",
    "research",
    "security",
    "support",
    "testing",
];

const ADJECTIVES: [&str; 24] = [
    "agile", "brisk", "calm", "clever", "crisp", "deft", "eager", "exact", "fluent", "frank",
    "gentle", "handy", "keen", "lucid", "nimble", "plain", "quick", "quiet", "rapid", "ready",
    "sharp", "smart", "steady", "tidy",
];

const NOUNS: [&str; 24] = [
    "auditor",
    "builder",
    "charter",
    "checker",
    "compiler",
    "converter",
    "drafter",
    "editor",
    "explorer",
    "fixer",
    "formatter",
    "guide",
    "helper",
    "indexer",
    "linter",
    "mapper",
    "miner",
    "planner",
    "porter",
    "reader",
    "reviewer",
    "runner",
    "scanner",
    "writer",
];

const WORDS: [&str; 64] = [
    "analyse", "api", "archive", "branch", "bundle", "cache", "changes", "chart", "check",
    "client", "commit", "config", "convert", "csv", "data", "deploy", "diff", "document", "draft",
    "edit", "error", "export", "extract", "file", "format", "generate", "graph", "import", "index",
    "invoice", "json", "layout", "lint", "log", "merge", "metrics", "model", "notes", "outline",
    "page", "parse", "pdf", "plan", "query", "release", "render", "report", "request", "review",
    "schema", "script", "search", "server", "sheet", "slides", "summary", "table", "template",
    "test", "text", "track", "update", "upload", "workflow",
];

const LICENSES: [&str; 3] = [
    "MIT",
    "Apache-2.0",
    "Proprietary. LICENSE.txt has complete terms",
];

const TOOLS: [&str; 4] = [
    "Read Grep Glob",
    "Bash(git:*) Read",
    "Read Write Edit",
    "WebFetch",
];

/// A small, fast, seeded generator (SplitMix64): good enough to vary sizes and words, and the
/// same everywhere, with no dependency.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound` > 0; the modulo bias is irrelevant here).
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }

    /// A number in `low..=high`.
    fn between(&mut self, (low, high): (u64, u64)) -> u64 {
        low + self.below(high - low + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        let index = usize::try_from(self.below(items.len() as u64)).unwrap_or(0);
        items.get(index).copied().unwrap_or_default()
    }
}

/// How a malformed definition file is broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Malformation {
    /// The closing `---` is missing.
    Unterminated,
    /// The frontmatter is not YAML (an unclosed flow mapping).
    InvalidYaml,
}

/// One skill directory of the plan.
struct Entry {
    /// Index into [`ROOTS`].
    root: usize,
    /// The category folder, or `None` directly under the root.
    category: Option<&'static str>,
    name: String,
    malformed: Option<Malformation>,
}

/// The tree, decided before anything is written.
struct Plan {
    entries: Vec<Entry>,
    shadowed: usize,
    malformed: usize,
    read_name: String,
}

impl Plan {
    fn new(skills: usize, rng: &mut Rng) -> Self {
        let shadowed = per_mille(skills, SHADOWED_PER_MILLE);
        let malformed = per_mille(skills, MALFORMED_PER_MILLE).max(1).min(skills);
        let originals = skills - shadowed;
        // Every `copy_every`-th original gets a copy in the other scope; a malformed file is
        // never copied, so every copy is a clean collision.
        let copy_every = originals.checked_div(shadowed).unwrap_or(usize::MAX).max(1);
        let malformed_every = originals
            .checked_div(malformed)
            .unwrap_or(usize::MAX)
            .max(1);
        let mut entries = Vec::with_capacity(skills);
        let mut broken = 0;
        // A malformed file falls due every `malformed_every` originals and goes to the next
        // original without a copy.
        let mut due = false;
        for index in 0..originals {
            let root = index % ROOTS.len();
            let name = format!("{}-{}-{index:05}", rng.pick(&ADJECTIVES), rng.pick(&NOUNS));
            let is_copied = index % copy_every == 0 && index / copy_every < shadowed;
            due |= broken < malformed && index % malformed_every == malformed_every / 2;
            let malformed = (due && !is_copied).then(|| {
                due = false;
                broken += 1;
                if broken % 2 == 0 {
                    Malformation::InvalidYaml
                } else {
                    Malformation::Unterminated
                }
            });
            entries.push(Entry {
                root,
                category: category(rng),
                name: name.clone(),
                malformed,
            });
            if is_copied {
                entries.push(Entry {
                    root: (root + OTHER_SCOPE) % ROOTS.len(),
                    category: category(rng),
                    name,
                    malformed: None,
                });
            }
        }
        let read_name = entries
            .iter()
            .find(|entry| entry.root == READ_ROOT && entry.malformed.is_none())
            .or_else(|| entries.first())
            .map(|entry| entry.name.clone())
            .unwrap_or_default();
        let shadowed = entries.len() - originals;
        Self {
            entries,
            shadowed,
            malformed: broken,
            read_name,
        }
    }
}

fn per_mille(count: usize, per_mille: usize) -> usize {
    (count * per_mille + 500) / 1000
}

fn category(rng: &mut Rng) -> Option<&'static str> {
    if rng.below(UNCATEGORISED_ONE_IN) == 0 {
        None
    } else {
        Some(rng.pick(&CATEGORIES))
    }
}

/// A generated tree.
#[derive(Debug)]
pub(crate) struct Tree {
    /// `<t>/home`.
    pub(crate) home: PathBuf,
    /// `<t>/ws`, trusted per command (`--trust-workspace`).
    pub(crate) workspace: PathBuf,
    /// Every skill root, in [`ROOTS`] order.
    pub(crate) roots: Vec<PathBuf>,
    /// Skill directories (definition files), copies included.
    pub(crate) skills: usize,
    /// Copies of a name that already exists in the other scope.
    pub(crate) shadowed: usize,
    /// Malformed definition files.
    pub(crate) malformed: usize,
    /// Bytes of all definition files.
    pub(crate) definition_bytes: u64,
    /// A well-formed skill that wins its name, for `skills read`.
    pub(crate) read_name: String,
}

impl Tree {
    /// The number of names the catalog should hold: one per name, copies excluded.
    pub(crate) fn names(&self) -> usize {
        self.skills - self.shadowed
    }
}

/// Writes a tree of `skills` skill directories under `base` (which must not exist yet).
pub(crate) fn generate(base: &Path, skills: usize) -> io::Result<Tree> {
    let mut rng = Rng::new(SEED ^ skills as u64);
    let plan = Plan::new(skills, &mut rng);
    let home = base.join("home");
    let workspace = base.join("ws");
    let roots: Vec<PathBuf> = ROOTS
        .iter()
        .map(|(under, path)| match under {
            Base::Home => home.join(path),
            Base::Workspace => workspace.join(path),
        })
        .collect();
    for root in &roots {
        fs::create_dir_all(root)?;
    }
    let mut definition_bytes = 0;
    let mut text = String::new();
    for entry in &plan.entries {
        let mut dir = roots
            .get(entry.root)
            .cloned()
            .unwrap_or_else(|| base.to_path_buf());
        if let Some(category) = entry.category {
            dir.push(category);
        }
        dir.push(&entry.name);
        fs::create_dir_all(dir.join("references"))?;
        text.clear();
        definition(&mut rng, entry, &mut text);
        fs::write(dir.join("SKILL.md"), &text)?;
        definition_bytes += text.len() as u64;
        text.clear();
        notes(&mut rng, &entry.name, &mut text);
        fs::write(dir.join("references/notes.md"), &text)?;
    }
    Ok(Tree {
        home,
        workspace,
        roots,
        skills: plan.entries.len(),
        shadowed: plan.shadowed,
        malformed: plan.malformed,
        definition_bytes,
        read_name: plan.read_name,
    })
}

/// The definition file of `entry`: frontmatter, then a Markdown body filling the size.
fn definition(rng: &mut Rng, entry: &Entry, out: &mut String) {
    let target = usize::try_from(rng.between(DEFINITION_BYTES)).unwrap_or(4_096);
    out.push_str("---\n");
    out.push_str(&format!("name: {}\n", entry.name));
    out.push_str("description: ");
    description(rng, out);
    out.push('\n');
    if rng.chance(40) {
        out.push_str(&format!("license: {}\n", rng.pick(&LICENSES)));
    }
    if entry.malformed == Some(Malformation::InvalidYaml) {
        out.push_str("metadata: {version: 1.0, tags: [draft, wip\n");
    } else if rng.chance(50) {
        let (major, minor) = (rng.below(4), rng.below(20));
        out.push_str(&format!("metadata:\n  version: \"{major}.{minor}.0\"\n"));
    }
    if rng.chance(30) {
        out.push_str(&format!("allowed-tools: {}\n", rng.pick(&TOOLS)));
    }
    if entry.malformed != Some(Malformation::Unterminated) {
        out.push_str("---\n");
    }
    out.push_str(&format!("\n# {}\n", title(&entry.name)));
    let mut section = 0;
    while out.len() < target {
        section += 1;
        out.push_str(&format!("\n## Step {section}: {}\n\n", rng.pick(&WORDS)));
        match rng.below(3) {
            0 => {
                for _ in 0..3 + rng.below(3) {
                    out.push_str("- ");
                    sentence(rng, (6, 13), out);
                    out.push('\n');
                }
            }
            1 => {
                out.push_str("```bash\n");
                for _ in 0..2 + rng.below(3) {
                    out.push_str(&format!(
                        "python scripts/{}.py --{} {}.{}\n",
                        rng.pick(&WORDS),
                        rng.pick(&WORDS),
                        rng.pick(&WORDS),
                        rng.pick(&["json", "csv", "md", "pdf"])
                    ));
                }
                out.push_str("```\n");
            }
            _ => {
                for _ in 0..2 + rng.below(3) {
                    sentence(rng, (8, 19), out);
                    out.push(' ');
                }
                out.push_str("See [the notes](references/notes.md).\n");
            }
        }
    }
}

/// A plain-scalar description: words, commas and full stops only, so it needs no quoting.
fn description(rng: &mut Rng, out: &mut String) {
    let target = usize::try_from(rng.between(DESCRIPTION_CHARS)).unwrap_or(300);
    let start = out.len();
    out.push_str("Use when the task needs to");
    while out.len() - start < target {
        let word = rng.pick(&WORDS);
        let separator = if rng.chance(8) { ", " } else { " " };
        if out.len() - start + separator.len() + word.len() + 1 > target {
            break;
        }
        out.push_str(separator);
        out.push_str(word);
    }
    out.push('.');
}

/// A sentence of `low..=high` words.
fn sentence(rng: &mut Rng, words: (u64, u64), out: &mut String) {
    for index in 0..rng.between(words) {
        let word = rng.pick(&WORDS);
        if index == 0 {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
        } else {
            out.push(' ');
            out.push_str(word);
        }
    }
    out.push('.');
}

fn title(name: &str) -> String {
    name.split('-')
        .filter(|word| !word.starts_with(|c: char| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `references/notes.md`: about a kibibyte of prose.
fn notes(rng: &mut Rng, name: &str, out: &mut String) {
    out.push_str(&format!("# Notes for {name}\n\n"));
    while out.len() < NOTES_BYTES {
        sentence(rng, (10, 19), out);
        out.push_str(if rng.chance(30) { "\n\n" } else { " " });
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temporary(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("xtask-bench-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn plan_has_the_promised_shares() {
        let plan = Plan::new(10_000, &mut Rng::new(SEED));
        assert_eq!(plan.entries.len(), 10_000);
        assert_eq!(plan.shadowed, 200);
        assert_eq!(plan.malformed, 50);
        let mut names: Vec<&str> = plan
            .entries
            .iter()
            .map(|entry| entry.name.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 9_800);
        let small = Plan::new(1_000, &mut Rng::new(SEED));
        assert_eq!(
            (small.entries.len(), small.shadowed, small.malformed),
            (1_000, 20, 5)
        );
    }

    #[test]
    fn copies_sit_in_the_other_scope_and_are_well_formed() {
        let plan = Plan::new(1_000, &mut Rng::new(SEED));
        for pair in plan.entries.windows(2) {
            if let [first, second] = pair
                && first.name == second.name
            {
                assert_eq!(first.root < OTHER_SCOPE, second.root >= OTHER_SCOPE);
                assert!(first.malformed.is_none() && second.malformed.is_none());
            }
        }
    }

    #[test]
    fn files_are_realistic() {
        let mut rng = Rng::new(7);
        for index in 0..200 {
            let entry = Entry {
                root: 0,
                category: None,
                name: format!("quick-reader-{index:05}"),
                malformed: None,
            };
            let mut text = String::new();
            definition(&mut rng, &entry, &mut text);
            assert!((2_048..=6_144).contains(&text.len()), "{}", text.len());
            let description = text
                .lines()
                .find_map(|line| line.strip_prefix("description: "))
                .unwrap();
            assert!((200..=500).contains(&description.len()), "{description}");
            assert!(!description.contains(": ") && !description.contains('#'));
            assert!(text.starts_with("---\nname: quick-reader-"));
            assert_eq!(text.matches("\n---\n").count(), 1);
        }
    }

    #[test]
    fn the_same_size_gives_the_same_tree() {
        let first = temporary("first");
        let second = temporary("second");
        let a = generate(&first, 60).unwrap();
        let b = generate(&second, 60).unwrap();
        assert_eq!(a.definition_bytes, b.definition_bytes);
        assert_eq!(a.read_name, b.read_name);
        let file = |tree: &Tree| {
            fs::read_to_string(tree.roots[READ_ROOT].join(&tree.read_name).join("SKILL.md"))
                .or_else(|_| {
                    let dir = fs::read_dir(&tree.roots[READ_ROOT]).unwrap();
                    let found = dir
                        .flatten()
                        .map(|entry| entry.path().join(&tree.read_name).join("SKILL.md"))
                        .find(|path| path.is_file())
                        .unwrap();
                    fs::read_to_string(found)
                })
                .unwrap()
        };
        assert_eq!(file(&a), file(&b));
        assert!(!first.join("ws/.openhuman/trust").exists());
        fs::remove_dir_all(first).unwrap();
        fs::remove_dir_all(second).unwrap();
    }
}
