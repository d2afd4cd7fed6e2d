//! The `supply` analyzer: supply-chain tricks played with names rather than with code.
//!
//! - **Typosquatting**: a skill named one slip away from a widely used public skill
//!   (`webap-testing`), or whose name misspells a common word the way a squatter does (two
//!   letters swapped, a letter doubled, a vowel dropped: `json-pasrer`). The list of
//!   public names and the vocabulary are this module's own data, written by hand: a few
//!   dozen names of the most installed public skills, and the words skills are named with.
//! - **Dependency confusion**: a package whose name says it is private (`@acme-internal/…`,
//!   `corp-auth`) installed or run at run time with no registry named, so the public
//!   registry answers — with whatever an attacker published under that name; and text that
//!   says a package comes from an "internal registry" without naming one while the skill
//!   installs or imports packages.
//! - **OpenClaw installers**: `metadata.openclaw.install` entries the host runs by itself —
//!   a private-looking package, a download without a checksum or without TLS.

use std::sync::LazyLock;

use regex::Regex;
use skills_types::audit::{Category, Severity};

use super::mcp;
use super::pattern;
use crate::files::{FileKind, Skill};
use crate::findings::{Collector, Rule};

const fn rule(
    id: &'static str,
    severity: Severity,
    category: Category,
    title: &'static str,
    remediation: &'static str,
) -> Rule {
    Rule {
        id,
        analyzer: "supply",
        severity,
        category,
        title,
        remediation,
    }
}

const TYPOSQUAT_NAME: Rule = rule(
    "SUPPLY_TYPOSQUAT_NAME",
    Severity::High,
    Category::SupplyChainAttack,
    "Named like a misspelling of a well-known skill or word",
    "Check the publisher: a name one slip away from a well-known one is how a squatter gets \
     installed by mistake. Install the original instead.",
);
const PRIVATE_PACKAGE: Rule = rule(
    "SUPPLY_PRIVATE_PACKAGE",
    Severity::High,
    Category::SupplyChainAttack,
    "Fetches a private-looking package from the public registry",
    "Name the private registry on the command (`--registry`, `--index-url`) or in the \
     project's configuration, or ship the dependency: unqualified, the public registry \
     answers with whatever was published under that name.",
);
const UNNAMED_REGISTRY: Rule = rule(
    "SUPPLY_UNNAMED_REGISTRY",
    Severity::High,
    Category::SupplyChainAttack,
    "Installs from an \"internal registry\" it never names",
    "Name the registry (its URL) where the package is installed, or ship the dependency: \
     the install as written asks the public registry.",
);
const UNVERIFIED_DOWNLOAD: Rule = rule(
    "SUPPLY_UNVERIFIED_DOWNLOAD",
    Severity::Medium,
    Category::SupplyChainAttack,
    "Has the host download and install an archive it does not verify",
    "Give the download its `sha256`, and an `https://` address of the tool's own releases.",
);
const PLAIN_DOWNLOAD: Rule = rule(
    "SUPPLY_PLAIN_DOWNLOAD",
    Severity::High,
    Category::SupplyChainAttack,
    "Has the host install a download fetched without TLS",
    "Use the tool's `https://` release address and its `sha256`.",
);

/// This analyzer's rules.
pub(crate) const RULES: &[Rule] = &[
    TYPOSQUAT_NAME,
    PRIVATE_PACKAGE,
    UNNAMED_REGISTRY,
    UNVERIFIED_DOWNLOAD,
    PLAIN_DOWNLOAD,
];

/// The `metadata` keys under which OpenClaw (and its earlier names) reads a skill's
/// requirements and installers.
const OPENCLAW_KEYS: &[&str] = &["openclaw", "clawdbot", "clawdis"];

/// Names of widely used public skills (Anthropic's, obra/superpowers', Vercel's), which a
/// squatter imitates. A name equal to one is the skill itself or a copy, not a squat.
const WELL_KNOWN_SKILLS: &[&str] = &[
    "webapp-testing",
    "mcp-builder",
    "skill-creator",
    "frontend-design",
    "canvas-design",
    "algorithmic-art",
    "brand-guidelines",
    "internal-comms",
    "slack-gif-creator",
    "theme-factory",
    "web-artifacts-builder",
    "doc-coauthoring",
    "brainstorming",
    "writing-plans",
    "executing-plans",
    "test-driven-development",
    "systematic-debugging",
    "verification-before-completion",
    "requesting-code-review",
    "receiving-code-review",
    "using-git-worktrees",
    "subagent-driven-development",
    "dispatching-parallel-agents",
    "finishing-a-development-branch",
    "writing-skills",
    "using-superpowers",
    "react-best-practices",
    "web-design-guidelines",
];

/// Words skills are named with. A word of a name that is one of these misspelt (and not a
/// word of this list itself) is a squatter's spelling.
const VOCABULARY: &[&str] = &[
    "access",
    "account",
    "action",
    "adapter",
    "admin",
    "agent",
    "agents",
    "alert",
    "alerts",
    "analysis",
    "analyze",
    "analyzer",
    "annotate",
    "annotator",
    "archive",
    "article",
    "assistant",
    "audit",
    "author",
    "authentication",
    "automation",
    "backup",
    "batch",
    "benchmark",
    "branch",
    "bridge",
    "browser",
    "bucket",
    "budget",
    "build",
    "builder",
    "bundle",
    "cache",
    "calendar",
    "canvas",
    "capture",
    "chart",
    "charts",
    "checker",
    "cleaner",
    "cleanup",
    "client",
    "cloud",
    "cluster",
    "collector",
    "command",
    "commit",
    "compiler",
    "component",
    "components",
    "config",
    "configuration",
    "connector",
    "console",
    "container",
    "content",
    "context",
    "control",
    "converter",
    "counter",
    "coverage",
    "creator",
    "database",
    "debug",
    "debugger",
    "debugging",
    "deploy",
    "deployment",
    "design",
    "designer",
    "detector",
    "diagram",
    "diagnostics",
    "digest",
    "directory",
    "docker",
    "document",
    "documents",
    "download",
    "editor",
    "email",
    "engine",
    "environment",
    "error",
    "errors",
    "event",
    "events",
    "explorer",
    "export",
    "extractor",
    "feature",
    "fetch",
    "fetcher",
    "files",
    "filter",
    "finder",
    "fixer",
    "format",
    "formatter",
    "framework",
    "frontend",
    "function",
    "generator",
    "github",
    "gitlab",
    "graph",
    "handler",
    "health",
    "helper",
    "history",
    "hooks",
    "image",
    "images",
    "import",
    "importer",
    "index",
    "indexer",
    "inspector",
    "install",
    "installer",
    "integration",
    "inventory",
    "invoice",
    "issue",
    "issues",
    "javascript",
    "kernel",
    "keyword",
    "layout",
    "library",
    "linter",
    "loader",
    "logger",
    "logging",
    "manager",
    "markdown",
    "merger",
    "message",
    "messages",
    "metadata",
    "metrics",
    "migration",
    "model",
    "models",
    "monitor",
    "network",
    "notebook",
    "notes",
    "notifier",
    "optimizer",
    "output",
    "package",
    "packages",
    "parser",
    "partner",
    "patch",
    "payment",
    "performance",
    "pipeline",
    "planner",
    "platform",
    "plugin",
    "plugins",
    "policy",
    "preset",
    "preview",
    "printer",
    "process",
    "processor",
    "profile",
    "profiler",
    "project",
    "prompt",
    "provider",
    "publisher",
    "python",
    "query",
    "queue",
    "reader",
    "record",
    "recorder",
    "redis",
    "refactor",
    "refactoring",
    "registry",
    "release",
    "remote",
    "render",
    "renderer",
    "report",
    "reporter",
    "repository",
    "request",
    "requests",
    "research",
    "resolver",
    "resource",
    "review",
    "reviewer",
    "rotator",
    "router",
    "rules",
    "runner",
    "runtime",
    "sandbox",
    "scanner",
    "schedule",
    "scheduler",
    "schema",
    "script",
    "scripts",
    "search",
    "secret",
    "secrets",
    "security",
    "server",
    "service",
    "session",
    "settings",
    "setup",
    "skill",
    "skills",
    "snapshot",
    "source",
    "splitter",
    "sqlite",
    "stack",
    "standard",
    "starter",
    "status",
    "storage",
    "stream",
    "styles",
    "summarizer",
    "summary",
    "support",
    "table",
    "template",
    "templates",
    "terminal",
    "testing",
    "tester",
    "tests",
    "theme",
    "token",
    "tokens",
    "tracker",
    "tracking",
    "transform",
    "translator",
    "upload",
    "uploader",
    "utility",
    "utils",
    "validator",
    "validation",
    "version",
    "viewer",
    "watcher",
    "webapp",
    "webhook",
    "website",
    "widget",
    "worker",
    "workflow",
    "workspace",
    "writer",
    "writing",
];

/// Real words one slip away from a word of [`VOCABULARY`], which a name may hold honestly.
const NOT_MISSPELLINGS: &[&str] = &[
    "expert",
    "tracing",
    "modes",
    "modal",
    "parse",
    "parsed",
    "formats",
    "printers",
    "linker",
    "reviews",
    "streams",
    "events",
    "tokens",
    "viewers",
    "filers",
    "caches",
    "exporter",
    "porter",
    "poster",
    "proxy",
    "scheme",
    "schemas",
    "models",
    "bridges",
    "stats",
    "manger",
    "steam",
    "specs",
    "notebooks",
];

/// Words in a package's name or scope that say it is an organisation's own.
const PRIVATE_MARKERS: &[&str] = &[
    "internal",
    "private",
    "corp",
    "corporate",
    "mycorp",
    "mycompany",
    "company",
    "intranet",
    "inhouse",
    "proprietary",
    "confidential",
];

/// Adds this analyzer's findings about `skill` to `out`.
pub(crate) fn analyze(skill: &Skill, out: &mut Collector) {
    typosquat_name(skill, out);
    openclaw_installers(skill, out);
    let mut installs_any = false;
    let mut imports_private = false;
    for file in &skill.files {
        let Some(text) = file.text() else {
            continue;
        };
        if file.kind == FileKind::Binary {
            continue;
        }
        for install in installs(text) {
            installs_any = true;
            if let Some(marker) = private_marker(&install.package)
                && !install.registry_named
            {
                out.at(
                    &PRIVATE_PACKAGE,
                    file,
                    install.offset,
                    install.len,
                    format!(
                        "installs `{}` (\"{marker}\" in its name) with no registry named: the \
                         public registry answers",
                        install.package
                    ),
                );
            }
        }
        for server in mcp::servers(file) {
            for install in installs(&server.command_line()) {
                installs_any = true;
                if let Some(marker) = private_marker(&install.package)
                    && !install.registry_named
                {
                    out.at(
                        &PRIVATE_PACKAGE,
                        file,
                        server.offset,
                        server.name.len() + 2,
                        format!(
                            "the MCP server `{}` runs `{}` (\"{marker}\" in its name) from the \
                             public registry",
                            server.name, install.package
                        ),
                    );
                }
            }
        }
        if matches!(file.kind, FileKind::Script(_)) || is_markdown(&file.path) {
            imports_private |= has_import_line(text)
                && PRIVATE_IMPORT
                    .captures_iter(text)
                    .filter_map(|captures| captures.get(1))
                    .any(|module| private_marker(module.as_str()).is_some());
        }
    }
    if installs_any || imports_private {
        unnamed_registry(skill, out);
    }
}

/// OpenClaw's `metadata.openclaw.install` entries, which the host runs to install the skill's
/// tools (`brew`, `node`, `go`, `uv` packages, or a `download` of an archive): a private-
/// looking package is fetched from the public registry, and a download is unpacked as it is
/// unless it has a `sha256`.
fn openclaw_installers(skill: &Skill, out: &mut Collector) {
    let (Some(frontmatter), Some(definition)) = (&skill.frontmatter, skill.definition()) else {
        return;
    };
    let text = definition.text().unwrap_or_default();
    let at = text.find("install").unwrap_or(0);
    for key in OPENCLAW_KEYS {
        let Some(value) = frontmatter
            .metadata
            .get(*key)
            .and_then(|json| serde_json::from_str::<serde_json::Value>(json).ok())
        else {
            continue;
        };
        let Some(installers) = value.get("install").and_then(serde_json::Value::as_array) else {
            continue;
        };
        for installer in installers {
            let field = |name: &str| installer.get(name).and_then(serde_json::Value::as_str);
            let kind = field("kind").unwrap_or_default();
            if let Some(package) = field("package").or_else(|| field("module"))
                && let Some(marker) = private_marker(package)
            {
                out.at(
                    &PRIVATE_PACKAGE,
                    definition,
                    at,
                    7,
                    format!(
                        "its `{kind}` installer fetches `{package}` (\"{marker}\" in its name) \
                         from the public registry"
                    ),
                );
            }
            if kind == "download"
                && let Some(url) = field("url")
            {
                if url.starts_with("http://") {
                    out.at(
                        &PLAIN_DOWNLOAD,
                        definition,
                        at,
                        7,
                        format!("its installer downloads {url} without TLS"),
                    );
                } else if field("sha256").is_none_or(str::is_empty) {
                    out.at(
                        &UNVERIFIED_DOWNLOAD,
                        definition,
                        at,
                        7,
                        format!("its installer downloads and unpacks {url} with no sha256"),
                    );
                }
            }
        }
    }
}

/// One package install or run found in text.
struct Install {
    package: String,
    /// Whether the command names a registry or an index (`--registry`, `--index-url`, `-i`).
    registry_named: bool,
    offset: usize,
    len: usize,
}

/// `npx pkg`, `uvx pkg`, `pip install pkg`, `npm install pkg` …: the first package of each.
static INSTALL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?m)(?:\b(?:npx|bunx|pnpx|uvx)|\b(?:pnpm|yarn)[ \t]+dlx|\bpipx[ \t]+run|\b(?:pip3?|uv[ \t]+pip|npm|pnpm|yarn|bun)[ \t]+(?:install|add|i))\b((?:[ \t]+(?:--?(?:registry|index-url|extra-index-url|i|p|package)(?:[ \t]+|=)\S+|-{1,2}[A-Za-z][\w-]*(?:=\S+)?))*)[ \t]+'?(@?[A-Za-z0-9][\w.-]*(?:/[A-Za-z0-9][\w.-]*)?)",
    )
});

/// Whether a line starts (after spaces and tabs) with `from` or `import`, as every
/// [`PRIVATE_IMPORT`] match does: the expression is compiled and run only then.
fn has_import_line(text: &str) -> bool {
    text.split('\n').any(|line| {
        let line = line.trim_start_matches([' ', '\t']);
        line.starts_with("from") || line.starts_with("import")
    })
}

/// A Python import's top-level module.
static PRIVATE_IMPORT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?m)^[ \t]*(?:from|import)[ \t]+([A-Za-z_]\w*)"));

/// Text that says a package comes from an organisation's registry.
static INTERNAL_REGISTRY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:install\w*|fetch\w*|pull\w*|download\w*|available|published|hosted)\b[^.\n]{0,40}?\b(?:from|on|in|via|through)\s+(?:the\s+|our\s+|your\s+|an?\s+)?(?:internal|private|company|corporate|in-house|inhouse|organi[sz]ation(?:'s)?)\s+(?:package\s+|npm\s+|pypi\s+|python\s+)?(?:registry|index|feed|mirror|repository)\b",
    )
});

/// A registry named anywhere in the skill: a URL given to the package manager, or its
/// configuration shipped.
static REGISTRY_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)--registry\b|--(?:extra-)?index-url\b|\bindex-url\s*=|\bregistry\s*=\s*\S|\bPIP_INDEX_URL\b|\bUV_INDEX_URL\b|\bNPM_CONFIG_REGISTRY\b|publishConfig",
    )
});

/// A word every [`INSTALL`] match holds (the expression is matched with case): a text with none
/// of them is not searched, and a process auditing skills without one never compiles the
/// expression (a tenth of what it spent on a skill of one `SKILL.md`).
const INSTALL_WORDS: [&str; 7] = ["npx", "uvx", "dlx", "pip", "npm", "yarn", "bun"];

fn installs(text: &str) -> Vec<Install> {
    if !INSTALL_WORDS.iter().any(|word| text.contains(word)) {
        return Vec::new();
    }
    INSTALL
        .captures_iter(text)
        .filter_map(|captures| {
            let whole = captures.get(0)?;
            let flags = captures.get(1).map_or("", |flags| flags.as_str());
            let package = captures.get(2)?.as_str();
            let registry_named = flags.contains("registry")
                || flags.contains("index-url")
                || flags.split_whitespace().any(|flag| flag == "-i");
            Some(Install {
                package: package.to_owned(),
                registry_named,
                offset: whole.start(),
                len: whole.len(),
            })
        })
        .collect()
}

/// The word of a package or module name that says it is private.
fn private_marker(name: &str) -> Option<&'static str> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .find_map(|word| {
            let word = word.to_ascii_lowercase();
            PRIVATE_MARKERS
                .iter()
                .find(|marker| **marker == word)
                .copied()
        })
}

fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".mdx")
}

/// Text outside code blocks saying a package comes from an internal registry, when no
/// registry is named anywhere in the skill.
fn unnamed_registry(skill: &Skill, out: &mut Collector) {
    let named = skill.files.iter().any(|file| {
        file.text()
            .is_some_and(|text| REGISTRY_NAMED.is_match(text))
            || file.path.ends_with(".npmrc")
            || file.path.ends_with("pip.conf")
            || file.path.ends_with("uv.toml")
    });
    if named {
        return;
    }
    for file in skill.files.iter().filter(|file| is_markdown(&file.path)) {
        let Some(text) = file.text() else {
            continue;
        };
        let blocks = fences(text);
        let found = INTERNAL_REGISTRY.find_iter(text).find(|found| {
            !blocks.iter().any(|range| range.contains(&found.start()))
                // A URL on the same line names the registry.
                && !line_of(text, found.start()).contains("://")
        });
        if let Some(found) = found {
            out.at(
                &UNNAMED_REGISTRY,
                file,
                found.start(),
                found.len(),
                "says a package comes from an internal registry, names none, and installs or \
                 imports packages: the public registry answers for that name",
            );
            return;
        }
    }
}

/// The byte ranges of every fenced block of Markdown `text`, whatever its language (a
/// `text` block of an example is not the skill's prose either).
fn fences(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut open: Option<(char, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        let Some(mark) = trimmed.chars().next().filter(|c| matches!(c, '`' | '~')) else {
            continue;
        };
        if !trimmed.starts_with(&mark.to_string().repeat(3)) {
            continue;
        }
        match open {
            None => open = Some((mark, start)),
            Some((opened, from)) if opened == mark => {
                ranges.push(from..offset);
                open = None;
            }
            Some(_) => {}
        }
    }
    if let Some((_, from)) = open {
        ranges.push(from..text.len());
    }
    ranges
}

fn line_of(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |index| index + 1);
    let end = text[at..].find('\n').map_or(text.len(), |index| at + index);
    &text[start..end]
}

/// The skill's name against the well-known names and the vocabulary.
fn typosquat_name(skill: &Skill, out: &mut Collector) {
    let Some(definition) = skill.definition() else {
        return;
    };
    let name = skill.name.to_ascii_lowercase();
    let Some(message) = squatted(&name) else {
        return;
    };
    let text = definition.text().unwrap_or_default();
    match text.find("name:") {
        Some(offset) => out.at(&TYPOSQUAT_NAME, definition, offset, 5, message),
        None => out.whole(&TYPOSQUAT_NAME, &definition.path, message),
    }
}

/// Why `name` reads as a squat, if it does.
fn squatted(name: &str) -> Option<String> {
    if WELL_KNOWN_SKILLS.contains(&name) {
        return None;
    }
    if let Some(known) = WELL_KNOWN_SKILLS.iter().find(|known| {
        let allowed = if known.len() >= 12 { 2 } else { 1 };
        distance(name, known) <= allowed
    }) {
        return Some(format!(
            "the name `{name}` is one slip away from the well-known skill `{known}`"
        ));
    }
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| word.len() >= 5)
        .filter(|word| !VOCABULARY.contains(word) && !NOT_MISSPELLINGS.contains(word))
        .find_map(|word| {
            VOCABULARY
                .iter()
                .find(|correct| misspells(word, correct))
                .map(|correct| format!("the name `{name}` misspells `{correct}` as `{word}`"))
        })
}

/// Whether `word` is `correct` with one of a squatter's slips: two neighbouring letters
/// swapped, a letter doubled, an inner vowel dropped, or a vowel of a long word's ending
/// changed (`-or`/`-er`). Other one-letter changes make real words too often (`linker`).
fn misspells(word: &str, correct: &str) -> bool {
    let (w, c) = (word.as_bytes(), correct.as_bytes());
    let vowel = |b: u8| b"aeiou".contains(&b);
    if correct.len() < 5 {
        return false;
    }
    if w.len() == c.len() {
        let differ: Vec<usize> = (0..w.len()).filter(|&i| w[i] != c[i]).collect();
        return match differ.as_slice() {
            [a, b] => *b == a + 1 && w[*a] == c[*b] && w[*b] == c[*a],
            [a] => c.len() >= 7 && *a + 3 >= c.len() && vowel(w[*a]) && vowel(c[*a]),
            _ => false,
        };
    }
    if w.len() + 1 == c.len() {
        // `correct` with one inner vowel dropped.
        return (1..c.len() - 1).any(|i| vowel(c[i]) && w[..i] == c[..i] && w[i..] == c[i + 1..]);
    }
    if w.len() == c.len() + 1 {
        // `correct` with one letter doubled.
        return (0..c.len())
            .any(|i| w[..=i] == c[..=i] && w[i + 1] == c[i] && w[i + 1..] == c[i..]);
    }
    false
}

/// Levenshtein distance with adjacent swaps counted once, over at most 64 characters.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().take(64).collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    rows[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut value = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                value = value.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = value;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests;
