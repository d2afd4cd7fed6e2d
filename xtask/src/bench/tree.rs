//! The synthetic skill trees `cargo xtask bench` measures (06 §Performance, issue 11 §5): a
//! home and a workspace (trusted per command, never by a marker in the tree) whose skill roots
//! hold `SKILL.md` files, some shadowed names and a few malformed files, in one of two
//! [`Shape`]s: **realistic** (sizes, file counts and scripts drawn from the measured
//! distribution of real public skills, [`realistic`]) and **classic** (the first wave's 2–6 KiB
//! definitions with one reference file, in category folders).
//!
//! Everything comes from a seeded [`Rng`], so every run, on every machine, builds the same
//! tree byte for byte: a difference between two reports is never a difference in the input.
//!
//! The skills are spread evenly over the shape's roots, half per scope; a shadowed copy sits
//! in the other scope, so every collision is decided by precedence. Nothing here guards discovery's
//! limits (a root's folder budget, the depth): the bench checks instead that every contender
//! saw every skill, so a limit that cuts the listing short shows up as a warning rather than
//! as a flattering ratio.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

mod realistic;

/// The seed of every tree. Changing it changes every report's input: do not.
const SEED: u64 = 0x5EED_0006_BE4C_4000;
/// Mixed into the seed of a realistic tree, so the two shapes of one size differ.
const REALISTIC_SALT: u64 = 0x0011_2EA1_1571_C000;

/// The skill roots of the classic shape, user scope first. A copy that shadows another sits
/// half the roots away, in the other scope.
const CLASSIC_ROOTS: [(Base, &str); 4] = [
    (Base::Home, ".openhuman/skills"),
    (Base::Home, ".agents/skills"),
    (Base::Workspace, ".openhuman/skills"),
    (Base::Workspace, ".agents/skills"),
];

/// The skill roots of the realistic shape: Claude Code's folder in each scope, flat
/// (`<root>/<skill>/SKILL.md`), which is where real installs put skills and the one root that
/// this program, openskills (`.claude/skills`, `.agent/skills`) and the vercel tool
/// (`.agents/skills` and each agent's folder) all read: the peers list the very same tree.
const REALISTIC_ROOTS: [(Base, &str); 2] = [
    (Base::Home, ".claude/skills"),
    (Base::Workspace, ".claude/skills"),
];

/// The shape of a bench tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Sizes, file counts and scripts of real public skills; flat roots the peers read too.
    Realistic,
    /// The first wave's tree: 2–6 KiB definitions, one reference each, category folders.
    Classic,
}

impl Shape {
    /// Both shapes, in the order the bench measures and reports them.
    pub(crate) const ALL: [Self; 2] = [Self::Realistic, Self::Classic];

    /// The name on the command line and in the report.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Self::Realistic => "realistic",
            Self::Classic => "classic",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|shape| shape.key() == text)
    }

    fn roots(self) -> &'static [(Base, &'static str)] {
        match self {
            Self::Realistic => &REALISTIC_ROOTS,
            Self::Classic => &CLASSIC_ROOTS,
        }
    }
}

/// Shares of the skills, in thousandths.
const SHADOWED_PER_MILLE: usize = 20;
const MALFORMED_PER_MILLE: usize = 5;
/// One skill in this many sits directly under its root instead of in a category folder.
const UNCATEGORISED_ONE_IN: u64 = 10;

/// Size of a classic definition file, in bytes (06: 2–6 KiB). The body generator overshoots its target
/// by at most one block (under 400 bytes), so the target stops short of 6 KiB.
const DEFINITION_BYTES: (u64, u64) = (2_048, 5_700);
/// Length of a description, in characters (06: 200–500). A description stops before the word
/// that would pass its target, so the target starts above 200.
const DESCRIPTION_CHARS: (u64, u64) = (220, 500);
/// Size of a classic skill's `references/notes.md`.
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
    /// Index into the shape's roots.
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
    /// The plan over `roots` roots (even: half per scope, user first), with category folders
    /// or flat.
    fn new(skills: usize, roots: usize, categorised: bool, rng: &mut Rng) -> Self {
        let other_scope = roots / 2;
        let read_root = roots / 2;
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
            let root = index % roots;
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
                category: if categorised { category(rng) } else { None },
                name: name.clone(),
                malformed,
            });
            if is_copied {
                entries.push(Entry {
                    root: (root + other_scope) % roots,
                    category: if categorised { category(rng) } else { None },
                    name,
                    malformed: None,
                });
            }
        }
        let read_name = entries
            .iter()
            .find(|entry| entry.root == read_root && entry.malformed.is_none())
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
    pub(crate) shape: Shape,
    /// `<t>/home`.
    pub(crate) home: PathBuf,
    /// `<t>/ws`, trusted per command (`--trust-workspace`).
    pub(crate) workspace: PathBuf,
    /// Every skill root, in the shape's order.
    pub(crate) roots: Vec<PathBuf>,
    /// Skill directories (definition files), copies included.
    pub(crate) skills: usize,
    /// Copies of a name that already exists in the other scope.
    pub(crate) shadowed: usize,
    /// Malformed definition files.
    pub(crate) malformed: usize,
    /// Bytes of all definition files.
    pub(crate) definition_bytes: u64,
    /// Every file, definitions included.
    pub(crate) files: usize,
    /// Bytes of every file.
    pub(crate) bytes: u64,
    /// Quantiles of the definition sizes and files per skill as generated.
    pub(crate) definition_quantiles: Quantiles,
    pub(crate) file_quantiles: Quantiles,
    /// Skills that bundle any script, Python, JavaScript, shell.
    pub(crate) scripts: [usize; 4],
    /// A well-formed skill that wins its name, for `skills read`.
    pub(crate) read_name: String,
}

impl Tree {
    /// The number of names the catalog should hold: one per name, copies excluded.
    pub(crate) fn names(&self) -> usize {
        self.skills - self.shadowed
    }
}

/// The p25, p50, p75, p90, p99 and maximum of some per-skill figure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Quantiles {
    pub(crate) p25: u64,
    pub(crate) p50: u64,
    pub(crate) p75: u64,
    pub(crate) p90: u64,
    pub(crate) p99: u64,
    pub(crate) max: u64,
}

impl Quantiles {
    fn of(mut values: Vec<u64>) -> Self {
        values.sort_unstable();
        let at = |per_mille: usize| {
            let index = values.len().saturating_sub(1) * per_mille / 1_000;
            values.get(index).copied().unwrap_or(0)
        };
        Self {
            p25: at(250),
            p50: at(500),
            p75: at(750),
            p90: at(900),
            p99: at(990),
            max: at(1_000),
        }
    }
}

/// Writes a tree of `skills` skill directories of `shape` under `base` (which must not exist
/// yet).
pub(crate) fn generate(base: &Path, skills: usize, shape: Shape) -> io::Result<Tree> {
    let seed = match shape {
        Shape::Classic => SEED ^ skills as u64,
        Shape::Realistic => SEED ^ REALISTIC_SALT ^ skills as u64,
    };
    let mut rng = Rng::new(seed);
    let plan = Plan::new(
        skills,
        shape.roots().len(),
        shape == Shape::Classic,
        &mut rng,
    );
    let home = base.join("home");
    let workspace = base.join("ws");
    let roots: Vec<PathBuf> = shape
        .roots()
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
    let mut bytes = 0;
    let mut files = 0;
    let mut definition_sizes = Vec::with_capacity(plan.entries.len());
    let mut file_counts = Vec::with_capacity(plan.entries.len());
    let mut scripts = [0; 4];
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
        let written = match shape {
            Shape::Classic => classic(&mut rng, entry, &dir, &mut text)?,
            Shape::Realistic => {
                fs::create_dir_all(&dir)?;
                realistic::write(&mut rng, entry, &dir, &mut text)?
            }
        };
        definition_bytes += written.definition_bytes;
        bytes += written.bytes;
        files += written.files;
        definition_sizes.push(written.definition_bytes);
        file_counts.push(written.files as u64);
        if !written.scripts.is_empty() {
            scripts[0] += 1;
        }
        for (slot, script) in [
            realistic::Language::Python,
            realistic::Language::JavaScript,
            realistic::Language::Shell,
        ]
        .iter()
        .enumerate()
        {
            if written.scripts.contains(script)
                && let Some(count) = scripts.get_mut(slot + 1)
            {
                *count += 1;
            }
        }
    }
    Ok(Tree {
        shape,
        home,
        workspace,
        roots,
        skills: plan.entries.len(),
        shadowed: plan.shadowed,
        malformed: plan.malformed,
        definition_bytes,
        files,
        bytes,
        definition_quantiles: Quantiles::of(definition_sizes),
        file_quantiles: Quantiles::of(file_counts),
        scripts,
        read_name: plan.read_name,
    })
}

/// Writes one classic skill: its definition and `references/notes.md`.
fn classic(
    rng: &mut Rng,
    entry: &Entry,
    dir: &Path,
    text: &mut String,
) -> io::Result<realistic::Written> {
    fs::create_dir_all(dir.join("references"))?;
    text.clear();
    definition(rng, entry, text);
    fs::write(dir.join("SKILL.md"), &*text)?;
    let definition_bytes = text.len() as u64;
    text.clear();
    notes(rng, &entry.name, text);
    fs::write(dir.join("references/notes.md"), &*text)?;
    Ok(realistic::Written {
        definition_bytes,
        files: 2,
        bytes: definition_bytes + text.len() as u64,
        scripts: &[],
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

    /// `definition_bytes` of the 1,000-skill classic tree, as the first wave generated it.
    const CLASSIC_1000_DEFINITION_BYTES: u64 = 4_011_485;

    fn temporary(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("xtask-bench-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn plan_has_the_promised_shares() {
        let plan = Plan::new(10_000, 4, true, &mut Rng::new(SEED));
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
        let small = Plan::new(1_000, 2, false, &mut Rng::new(SEED));
        assert_eq!(
            (small.entries.len(), small.shadowed, small.malformed),
            (1_000, 20, 5)
        );
    }

    #[test]
    fn copies_sit_in_the_other_scope_and_are_well_formed() {
        for roots in [2, 4] {
            let plan = Plan::new(1_000, roots, roots == 4, &mut Rng::new(SEED));
            for pair in plan.entries.windows(2) {
                if let [first, second] = pair
                    && first.name == second.name
                {
                    assert_eq!(first.root < roots / 2, second.root >= roots / 2);
                    assert!(first.malformed.is_none() && second.malformed.is_none());
                }
            }
            assert!(
                plan.entries
                    .iter()
                    .all(|entry| (roots == 4) || entry.category.is_none())
            );
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

    /// The one definition file of `name` under `root`, flat or in a category folder.
    fn definition_of(root: &Path, name: &str) -> String {
        let flat = root.join(name).join("SKILL.md");
        let path = if flat.is_file() {
            flat
        } else {
            fs::read_dir(root)
                .unwrap()
                .flatten()
                .map(|entry| entry.path().join(name).join("SKILL.md"))
                .find(|path| path.is_file())
                .unwrap()
        };
        fs::read_to_string(path).unwrap()
    }

    #[test]
    fn the_same_size_gives_the_same_tree() {
        for shape in Shape::ALL {
            let first = temporary(&format!("first-{}", shape.key()));
            let second = temporary(&format!("second-{}", shape.key()));
            let a = generate(&first, 60, shape).unwrap();
            let b = generate(&second, 60, shape).unwrap();
            assert_eq!(a.definition_bytes, b.definition_bytes);
            assert_eq!((a.files, a.bytes), (b.files, b.bytes));
            assert_eq!(a.read_name, b.read_name);
            let read_root = a.roots.len() / 2;
            assert_eq!(
                definition_of(&a.roots[read_root], &a.read_name),
                definition_of(&b.roots[read_root], &b.read_name)
            );
            // Trust comes from the command line, never from a marker inside the tree.
            for base in [&a.workspace, &a.home] {
                assert!(!base.join(".openhuman/trust").exists());
            }
            fs::remove_dir_all(first).unwrap();
            fs::remove_dir_all(second).unwrap();
        }
    }

    #[test]
    fn realistic_trees_are_flat_and_bundle_scripts() {
        let base = temporary("realistic");
        let tree = generate(&base, 400, Shape::Realistic).unwrap();
        assert_eq!(
            tree.roots,
            [
                base.join("home/.claude/skills"),
                base.join("ws/.claude/skills")
            ]
        );
        let mut skills = 0;
        let mut scripts = 0;
        for root in &tree.roots {
            for entry in fs::read_dir(root).unwrap().flatten() {
                // Every directory right under a root is a skill: the peers read one level.
                assert!(
                    entry.path().join("SKILL.md").is_file(),
                    "{:?}",
                    entry.path()
                );
                skills += 1;
                let folder = entry.path().join("scripts");
                if folder.is_dir() {
                    scripts += 1;
                    for script in fs::read_dir(folder).unwrap().flatten() {
                        let text = fs::read_to_string(script.path()).unwrap();
                        assert!(text.starts_with("#!/usr/bin/env "), "{text}");
                    }
                }
            }
        }
        assert_eq!(skills, tree.skills);
        assert_eq!(scripts, tree.scripts[0]);
        assert!((30..=100).contains(&scripts), "{scripts}");
        assert!(tree.files > tree.skills * 3, "{}", tree.files);
        assert_eq!(tree.file_quantiles.p50, 1);
        assert!((5_000..=10_000).contains(&tree.definition_quantiles.p50));
        assert_eq!((tree.shadowed, tree.malformed), (8, 2));
        fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn classic_trees_are_unchanged() {
        let base = temporary("classic");
        let tree = generate(&base, 1_000, Shape::Classic).unwrap();
        // The first wave's tree, byte for byte (its total size pins every draw).
        assert_eq!(tree.files, 2_000);
        assert_eq!(tree.definition_bytes, CLASSIC_1000_DEFINITION_BYTES);
        assert_eq!(tree.roots.len(), 4);
        fs::remove_dir_all(base).unwrap();
    }
}
