//! A generated registry catalog shaped like the seed's real default, Hermes's `skills.json`
//! (`website/scripts/extract-skills.py` in NousResearch/hermes-agent): a minified top-level
//! array of about 26 MB for 50,000+ skills.
//!
//! The mix follows the generator: a few hundred local skills (`built-in` with an
//! `installIdentifier` of `NousResearch/hermes-agent/skills/<cat>/<slug>`, `optional` with
//! `official/<cat>/<slug>`) carrying an overview, version, license, env vars, commands and a
//! docs path, some with `image` and `featured`; then the unified index's entries (skills.sh,
//! ClawHub, LobeHub, GitHub taps) with descriptions cut at 280 characters, tags, a
//! `sourceUrl` (a GitHub folder page for the taps, a detail page for the hubs, or empty), an
//! `identifier` and an `installCmd`, and `fixedCategory`. Names are mostly slugs, some display
//! names with capitals and dots, as SKILL.md frontmatter gives them. Deterministic: the same
//! arguments give the same bytes.
//!
//! [`NEEDLE`] is one entry with a word found nowhere else, for a search that must find it.

/// The name of the one entry whose description holds [`NEEDLE_WORD`].
pub const NEEDLE: &str = "quokka-ledger";
/// A word only [`NEEDLE`]'s description holds.
pub const NEEDLE_WORD: &str = "quokkanomics";

/// What [`generate`] makes.
#[derive(Clone, Debug)]
pub struct Shape {
    /// How many entries.
    pub entries: usize,
    /// Every `n`th entry is malformed (its `tags` is a number), when set.
    pub malformed_every: Option<usize>,
    /// The GitHub web base the taps' `sourceUrl` pages use (`https://github.com`, or a
    /// loopback fixture's).
    pub github: String,
}

impl Default for Shape {
    fn default() -> Self {
        Self {
            entries: 52_000,
            malformed_every: None,
            github: "https://github.com".to_owned(),
        }
    }
}

const CATEGORIES: [(&str, &str); 12] = [
    ("software-development", "Software Dev"),
    ("autonomous-ai-agents", "AI Agents"),
    ("productivity", "Productivity"),
    ("data-science", "Data Science"),
    ("devops", "DevOps"),
    ("research", "Research"),
    ("creative", "Creative"),
    ("security", "Security"),
    ("media", "Media"),
    ("social-media", "Social Media"),
    ("blockchain", "Blockchain"),
    ("other", "Other"),
];

const WORDS: [&str; 48] = [
    "analyse",
    "repository",
    "pull",
    "request",
    "review",
    "changelog",
    "deploy",
    "kubernetes",
    "cluster",
    "invoice",
    "spreadsheet",
    "summarise",
    "meeting",
    "notes",
    "calendar",
    "draft",
    "email",
    "triage",
    "incident",
    "postmortem",
    "benchmark",
    "profile",
    "query",
    "database",
    "migration",
    "schema",
    "render",
    "diagram",
    "slides",
    "presentation",
    "translate",
    "document",
    "contract",
    "audit",
    "dependency",
    "vulnerability",
    "scan",
    "release",
    "tag",
    "publish",
    "package",
    "notebook",
    "dataset",
    "chart",
    "forecast",
    "budget",
    "portfolio",
    "agent",
];

const TAGS: [&str; 24] = [
    "python",
    "typescript",
    "rust",
    "cli",
    "automation",
    "testing",
    "api",
    "database",
    "docker",
    "kubernetes",
    "security",
    "writing",
    "design",
    "analytics",
    "finance",
    "email",
    "calendar",
    "github",
    "devops",
    "research",
    "llm",
    "agents",
    "productivity",
    "media",
];

/// A small deterministic generator (xorshift), so the catalog is the same every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn words(&mut self, count: usize) -> String {
        (0..count)
            .map(|_| WORDS[self.below(WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The catalog's bytes.
pub fn generate(shape: &Shape) -> Vec<u8> {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::with_capacity(shape.entries * 560);
    out.push(b'[');
    for index in 0..shape.entries {
        if index > 0 {
            out.push(b',');
        }
        let malformed = shape
            .malformed_every
            .is_some_and(|every| every > 0 && index % every == every - 1);
        entry(&mut out, index, &mut random, malformed, &shape.github);
    }
    out.push(b']');
    out
}

fn entry(out: &mut Vec<u8>, index: usize, random: &mut Random, malformed: bool, github: &str) {
    let (category, label) = CATEGORIES[random.below(CATEGORIES.len())];
    let slug = if index == 0 {
        NEEDLE.to_owned()
    } else {
        format!(
            "{}-{}-{index}",
            WORDS[random.below(WORDS.len())],
            WORDS[random.below(WORDS.len())]
        )
    };
    // SKILL.md frontmatter names as people write them: some capitals and dots.
    let name = if index % 23 == 7 {
        format!("{}.{}", slug.to_uppercase(), index % 10)
    } else {
        slug.clone()
    };
    // Lengths vary as real descriptions do: most a line, some cut at 280 characters.
    let extra = if index.is_multiple_of(9) {
        24
    } else {
        random.below(3)
    };
    let (verbs, objects) = (1 + random.below(2), 1 + random.below(2));
    let mut description = format!(
        "Use when you need to {} the {}; it {}.",
        random.words(verbs),
        random.words(objects),
        random.words(2 + extra)
    );
    if index == 0 {
        description = format!("Keeps a {NEEDLE_WORD} ledger of every marsupial expense.");
    }
    let mut cut: String = description.chars().take(277).collect();
    if cut.len() < description.len() {
        cut.push('…');
    }
    let tag_count = 2 + random.below(6);
    let tags: Vec<&str> = (0..tag_count)
        .map(|_| TAGS[random.below(TAGS.len())])
        .collect();
    let local = index % 150 == 1;
    let mut fields: Vec<(&str, String)> = vec![("name", text(&name)), ("description", text(&cut))];
    if local {
        let official = index % 300 == 1;
        let (source, identifier) = if official {
            ("optional", format!("official/{category}/{slug}"))
        } else {
            (
                "built-in",
                format!("NousResearch/hermes-agent/skills/{category}/{slug}"),
            )
        };
        fields.extend([
            ("overview", text(&random.words(60))),
            ("category", text(category)),
            ("categoryLabel", text(label)),
            ("source", text(source)),
            ("tags", list(&tags)),
            ("platforms", list(&["linux", "macos"])),
            ("author", text("Nous Research")),
            ("version", text(&format!("1.{}.0", index % 7))),
            ("license", text("MIT")),
            ("envVars", list(&["API_TOKEN"])),
            ("commands", list(&["git"])),
            (
                "docsPath",
                text(&format!("optional/{category}/{category}-{slug}")),
            ),
        ]);
        if index % 900 == 1 {
            fields.push((
                "image",
                text(&format!(
                    "https://raw.githubusercontent.com/NousResearch/hermes-agent/main/website/static/img/catalog/{slug}.png"
                )),
            ));
            fields.push(("featured", (index / 900 + 1).to_string()));
        }
        fields.push(("installIdentifier", text(&identifier)));
        fields.push((
            "installCmd",
            text(&format!("hermes skills install {identifier}")),
        ));
    } else {
        let (source, identifier, source_url, install) = match index % 5 {
            0 => {
                let path = format!("acme-{}/skills/skills/{slug}", index % 97);
                let url = format!(
                    "{github}/acme-{}/skills/tree/main/skills/{slug}",
                    index % 97
                );
                ("GitHub", path.clone(), url, path)
            }
            1 => (
                "skills.sh",
                format!("skills-sh/owner-{}/repo/{slug}", index % 89),
                format!("https://skills.sh/skills/owner-{}/repo/{slug}", index % 89),
                format!("skills-sh/owner-{}/repo/{slug}", index % 89),
            ),
            2 => (
                "ClawHub",
                slug.clone(),
                format!("https://clawhub.ai/owner-{}/skills/{slug}", index % 71),
                format!("clawhub/{slug}"),
            ),
            3 => (
                "LobeHub",
                format!("lobehub/{slug}"),
                String::new(),
                format!("lobehub/{slug}"),
            ),
            _ => {
                let path = format!("anthropics/skills/skills/{slug}");
                let url = format!("{github}/anthropics/skills/tree/main/skills/{slug}");
                ("Anthropic", path.clone(), url, path)
            }
        };
        fields.extend([
            ("overview", text("")),
            ("category", text(category)),
            ("categoryLabel", text(label)),
            ("fixedCategory", "false".to_owned()),
            ("source", text(source)),
            ("tags", list(&tags)),
            ("platforms", "[]".to_owned()),
            ("author", text(if index % 5 == 1 { "owner" } else { "" })),
            ("version", text("")),
            ("license", text("")),
            ("envVars", "[]".to_owned()),
            ("commands", "[]".to_owned()),
            ("docsPath", text("")),
            ("identifier", text(&identifier)),
            (
                "installCmd",
                text(&format!("hermes skills install {install}")),
            ),
            ("installIdentifier", text(&install)),
            ("sourceUrl", text(&source_url)),
        ]);
    }
    if malformed && let Some(tags) = fields.iter_mut().find(|(key, _)| *key == "tags") {
        tags.1 = "7".to_owned();
    }
    out.push(b'{');
    for (position, (key, value)) in fields.iter().enumerate() {
        if position > 0 {
            out.push(b',');
        }
        out.extend_from_slice(text(key).as_bytes());
        out.push(b':');
        out.extend_from_slice(value.as_bytes());
    }
    out.push(b'}');
}

/// A JSON string.
fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn list(items: &[&str]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|item| text(item))
            .collect::<Vec<_>>()
            .join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_catalog_has_the_real_ones_size() {
        // The real one is about 26 MB; this one errs on the large side.
        let bytes = generate(&Shape::default());
        let per_entry = bytes.len() / Shape::default().entries;
        assert!(
            (25_000_000..36_000_000).contains(&bytes.len()),
            "{} bytes, {per_entry} per entry",
            bytes.len()
        );
        assert_eq!(bytes, generate(&Shape::default()), "deterministic");
    }
}
