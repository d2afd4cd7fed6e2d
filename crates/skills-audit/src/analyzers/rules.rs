//! The `rules` analyzer: YARA rule files, matched against every file of a skill (text and
//! binary bytes alike, within the scan's caps).
//!
//! Two sets run: the rule files shipped with the project (`crates/skills-audit/rules/`,
//! compiled once per process), and the user's own folders (`Options::with_rule_dirs`,
//! compiled once per command). Both are standard YARA in the subset `yara.rs` describes,
//! so a security team runs the same files with `yara` or `yr`. A rule becomes findings
//! with the id `YARA_<rule name>`; its `meta:` gives the rest:
//!
//! - `severity`: critical, high, medium, low or info (any case); medium when absent;
//! - `category`: one of the report's categories in snake_case (`data_exfiltration`);
//!   malware when absent;
//! - `title` (else `description`, else the rule's name), `description` (the message),
//!   `remediation`;
//! - `documentation_severity`: the severity of a match in documentation (Markdown and
//!   plain text, [`DOCUMENTATION_EXTENSIONS`]), where a skill that describes an attack is
//!   not carrying it out: a security-research skill explaining reverse shells is not one.
//!   Absent, a match has the same severity in every file. YARA ignores meta keys it does
//!   not use, so the rule files stay standard.
//!
//! A value these keys cannot take is an error, not a default: a rule file the user wrote
//! that cannot be read as written fails the scan (fail closed), so a typo in `severity`
//! never turns a critical rule into a medium one.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, PoisonError};

use serde::Deserialize as _;
use serde::de::IntoDeserializer as _;
use sha2::{Digest as _, Sha256};
use skills_types::Error;
use skills_types::audit::{Category, Severity};

use super::yara::{self, MetaValue};
use crate::files::Skill;
use crate::findings::{Collector, Rule};

/// The rule files shipped with the project, by name.
pub(crate) const SHIPPED: [(&str, &str); 6] = [
    (
        "credentials.yar",
        include_str!("../../rules/credentials.yar"),
    ),
    ("droppers.yar", include_str!("../../rules/droppers.yar")),
    (
        "exfiltration.yar",
        include_str!("../../rules/exfiltration.yar"),
    ),
    ("miners.yar", include_str!("../../rules/miners.yar")),
    (
        "prompt_injection.yar",
        include_str!("../../rules/prompt_injection.yar"),
    ),
    (
        "reverse_shells.yar",
        include_str!("../../rules/reverse_shells.yar"),
    ),
];

/// What a YARA rule's id starts with.
pub(crate) const ID_PREFIX: &str = "YARA_";

/// The analyzer findings of YARA rules name.
const ANALYZER: &str = "rules";

/// The file name endings of rule files in a user's rule folder.
const RULE_EXTENSIONS: [&str; 2] = ["yar", "yara"];

/// The largest user rule file read; a larger one fails the scan.
const RULE_FILE_BYTES: u64 = 1024 * 1024;

/// The most rule files read from the user's folders together.
const RULE_FILES: usize = 1_000;

/// A rule's severity when its meta gives none.
const DEFAULT_SEVERITY: Severity = Severity::Medium;

/// A rule's category when its meta gives none: most YARA rules describe malware.
const DEFAULT_CATEGORY: Category = Category::Malware;

/// A rule's remediation when its meta gives none.
const DEFAULT_REMEDIATION: &str =
    "Read what the rule matched; remove it from the skill, or do not install the skill.";

/// The meta keys a rule's finding is made of.
const META_KEYS: [&str; 6] = [
    "severity",
    "category",
    "title",
    "description",
    "remediation",
    "documentation_severity",
];

/// The file name endings of documentation: text a reader (or the agent) reads about what to
/// do, as opposed to code that does it.
const DOCUMENTATION_EXTENSIONS: [&str; 6] = ["md", "markdown", "mdx", "txt", "rst", "adoc"];

/// Compiled rule files and the findings' rules, one per YARA rule.
pub(crate) struct RuleSet {
    compiled: yara::Compiled,
    /// `table[i]` is the finding rule of `compiled.rules[i]`.
    table: Vec<Rule>,
    /// The same rule with its `documentation_severity`, when it has one.
    in_documentation: Vec<Option<Rule>>,
    /// What the messages say of each rule: its description, else its title.
    descriptions: Vec<&'static str>,
    /// SHA-256 of the rule files' names and texts, in order, in hex.
    digest: String,
}

impl std::fmt::Debug for RuleSet {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("RuleSet")
            .field("rules", &self.table.len())
            .field("digest", &self.digest)
            .finish()
    }
}

/// Two sets are the same when they were compiled from the same files.
impl PartialEq for RuleSet {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest
    }
}

impl Eq for RuleSet {}

/// The shipped rules, compiled on first use.
pub(crate) fn shipped() -> &'static RuleSet {
    static SHIPPED_SET: LazyLock<RuleSet> = LazyLock::new(|| {
        #[expect(
            clippy::expect_used,
            reason = "the shipped rule files are constants; `shipped_rules_compile` holds that they compile, every expression built"
        )]
        RuleSet::compile_with(&SHIPPED, yara::Building::OnFirstUse)
            .expect("the shipped YARA rules compile")
    });
    &SHIPPED_SET
}

/// This analyzer's built-in rules: one per shipped YARA rule.
pub(crate) fn table() -> &'static [Rule] {
    &shipped().table
}

/// Adds the shipped rules' findings about `skill` to `out`.
pub(crate) fn analyze(skill: &Skill, out: &mut Collector) {
    shipped().analyze(skill, out);
}

impl RuleSet {
    /// Compiles rule files, `(name, text)` each, every expression at once (so one that
    /// does not build is an error naming its rule).
    pub(crate) fn compile(sources: &[(&str, &str)]) -> Result<Self, yara::Error> {
        Self::compile_with(sources, yara::Building::AtOnce)
    }

    /// [`RuleSet::compile`], building the expressions as `building` says.
    fn compile_with(
        sources: &[(&str, &str)],
        building: yara::Building,
    ) -> Result<Self, yara::Error> {
        let compiled = yara::compile_with(sources, building)?;
        let mut table = Vec::with_capacity(compiled.rules.len());
        let mut descriptions = Vec::with_capacity(compiled.rules.len());
        let mut in_documentation = Vec::with_capacity(compiled.rules.len());
        for rule in &compiled.rules {
            let error = |line: usize, message: String| yara::Error {
                file: rule.file.clone(),
                line,
                message,
            };
            let mut texts = [None::<&str>; META_KEYS.len()];
            for meta in &rule.meta {
                let Some(slot) = META_KEYS.iter().position(|key| *key == meta.key) else {
                    continue;
                };
                let MetaValue::Text(text) = &meta.value else {
                    return Err(error(
                        meta.line,
                        format!(
                            "the meta `{}` of `{}` must be \"text\"",
                            meta.key, rule.name
                        ),
                    ));
                };
                if texts[slot].replace(text).is_some() {
                    return Err(error(
                        meta.line,
                        format!("the meta `{}` is given twice in `{}`", meta.key, rule.name),
                    ));
                }
            }
            let [
                severity,
                category,
                title,
                description,
                remediation,
                documentation_severity,
            ] = texts;
            let parse_severity = |text: &str| {
                text.parse::<Severity>()
                    .map_err(|why| error(rule.line, format!("the rule `{}`: {why}", rule.name)))
            };
            let severity = severity.map_or(Ok(DEFAULT_SEVERITY), parse_severity)?;
            let documentation_severity = documentation_severity.map(parse_severity).transpose()?;
            let category = match category {
                None => DEFAULT_CATEGORY,
                Some(text) => Category::deserialize(text.into_deserializer()).map_err(
                    |_: serde::de::value::Error| {
                        error(
                            rule.line,
                            format!(
                                "the rule `{}`: `{text}` is not a category (a snake_case name such as malware, data_exfiltration, credential_access, prompt_injection; docs/audit.md lists them)",
                                rule.name
                            ),
                        )
                    },
                )?,
            };
            let title = title
                .or(description)
                .map_or_else(|| format!("YARA rule {}", rule.name), str::to_owned);
            let title = intern(title);
            descriptions.push(description.map_or(title, |text| intern(text.to_owned())));
            let finding_rule = Rule {
                id: intern(format!("{ID_PREFIX}{}", rule.name)),
                analyzer: ANALYZER,
                severity,
                category,
                title,
                remediation: remediation
                    .map_or(DEFAULT_REMEDIATION, |text| intern(text.to_owned())),
            };
            in_documentation.push(documentation_severity.map(|severity| Rule {
                severity,
                ..finding_rule
            }));
            table.push(finding_rule);
        }
        let mut hasher = Sha256::new();
        for (name, text) in sources {
            hasher.update((name.len() as u64).to_le_bytes());
            hasher.update(name.as_bytes());
            hasher.update((text.len() as u64).to_le_bytes());
            hasher.update(text.as_bytes());
        }
        Ok(Self {
            compiled,
            table,
            in_documentation,
            descriptions,
            digest: format!("{:x}", hasher.finalize()),
        })
    }

    /// The user's rule files: every `*.yar` and `*.yara` file directly in each folder (in
    /// name order), compiled together. `None` when the folders hold no rule file. A folder
    /// or file that is a link, a rule file that cannot be read or is larger than
    /// [`RULE_FILE_BYTES`], a rule that does not compile, or a rule named like a shipped
    /// one is an error naming the file (and line).
    pub(crate) fn from_dirs(dirs: &[&Path]) -> Result<Option<Self>, Error> {
        let mut sources: Vec<(String, String)> = Vec::new();
        for dir in dirs {
            let metadata =
                std::fs::symlink_metadata(dir).map_err(|error| Error::AuditRulesInvalid {
                    path: dir.to_path_buf(),
                    reason: format!("the folder cannot be read ({error})"),
                })?;
            if !metadata.is_dir() {
                return Err(Error::AuditRulesInvalid {
                    path: dir.to_path_buf(),
                    reason: format!(
                        "it is {}, not a folder",
                        skills_ops::fs::file_kind(&metadata)
                    ),
                });
            }
            let unlisted = |error: std::io::Error| Error::AuditRulesInvalid {
                path: dir.to_path_buf(),
                reason: format!("the folder cannot be listed ({error})"),
            };
            let mut paths: Vec<_> = std::fs::read_dir(dir)
                .map_err(unlisted)?
                .map(|entry| entry.map(|entry| entry.path()))
                .collect::<Result<_, _>>()
                .map_err(unlisted)?;
            paths.retain(|path| {
                path.extension()
                    .and_then(|extension| extension.to_str())
                    .is_some_and(|extension| RULE_EXTENSIONS.contains(&extension))
            });
            paths.sort();
            for path in paths {
                if sources.len() >= RULE_FILES {
                    return Err(Error::AuditRulesInvalid {
                        path: dir.to_path_buf(),
                        reason: format!("the rule folders hold more than {RULE_FILES} rule files"),
                    });
                }
                let unreadable = |why: String| Error::AuditRulesInvalid {
                    path: path.clone(),
                    reason: format!("the rule file cannot be read: {why}"),
                };
                let bytes = skills_ops::fs::read_no_follow(&path, RULE_FILE_BYTES)
                    .map_err(unreadable)?
                    .ok_or_else(|| unreadable("it is gone".to_owned()))?;
                let text = String::from_utf8(bytes)
                    .map_err(|_| unreadable("it is not UTF-8 text".to_owned()))?;
                sources.push((path.display().to_string(), text));
            }
        }
        if sources.is_empty() {
            return Ok(None);
        }
        let borrowed: Vec<(&str, &str)> = sources
            .iter()
            .map(|(name, text)| (name.as_str(), text.as_str()))
            .collect();
        let invalid = |error: yara::Error| Error::AuditRulesInvalid {
            path: PathBuf::from(&error.file),
            reason: if error.line == 0 {
                format!("{} (fix the rule or remove the file)", error.message)
            } else {
                format!(
                    "line {}: {} (fix the rule or remove the file)",
                    error.line, error.message
                )
            },
        };
        let set = Self::compile(&borrowed).map_err(invalid)?;
        let shipped_ids: BTreeSet<&str> = table().iter().map(|rule| rule.id).collect();
        for (rule, compiled) in set.table.iter().zip(&set.compiled.rules) {
            if shipped_ids.contains(rule.id) {
                return Err(invalid(yara::Error {
                    file: compiled.file.clone(),
                    line: compiled.line,
                    message: format!(
                        "the rule `{}` has the name of a shipped rule; rename it",
                        compiled.name
                    ),
                }));
            }
        }
        Ok(Some(set))
    }

    /// A short digest of the rule files, for the report's rules version.
    pub(crate) fn short_digest(&self) -> &str {
        &self.digest[..12]
    }

    /// The findings' rules, one per YARA rule.
    #[cfg(test)]
    pub(crate) fn rules(&self) -> &[Rule] {
        &self.table
    }

    /// Adds this set's findings about `skill` to `out`: each rule that matches a file is a
    /// finding at the first place one of its strings matched.
    pub(crate) fn analyze(&self, skill: &Skill, out: &mut Collector) {
        for file in &skill.files {
            let documentation = Path::new(&file.path)
                .extension()
                .and_then(|extension| extension.to_str())
                .is_some_and(|extension| {
                    DOCUMENTATION_EXTENSIONS
                        .iter()
                        .any(|known| known.eq_ignore_ascii_case(extension))
                });
            for hit in self.compiled.scan(&file.bytes, file.size) {
                let rule = match &self.in_documentation[hit.rule] {
                    Some(rule) if documentation => rule,
                    _ => &self.table[hit.rule],
                };
                let compiled = &self.compiled.rules[hit.rule];
                let (offset, length, what) = match hit.first {
                    Some(place) => (
                        place.offset,
                        place.length,
                        format!(
                            "${} at byte {}",
                            self.compiled.strings[place.string].name, place.offset
                        ),
                    ),
                    None => (0, 0, "its condition".to_owned()),
                };
                let tags = if compiled.tags.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", compiled.tags.join(" "))
                };
                out.at(
                    rule,
                    file,
                    offset,
                    length,
                    format!(
                        "{} (YARA rule {}{tags} of {}: {what})",
                        self.descriptions[hit.rule], compiled.name, compiled.file
                    ),
                );
            }
        }
    }
}

/// `text` as a `&'static str`, each distinct text allocated once for the process.
///
/// A finding's [`Rule`] holds `&'static str`s (the built-in tables are constants); a user
/// rule's id, title and remediation are read at run time. Interning keeps that bounded: a
/// long-lived process that compiles the same rule folder again (the MCP server, `watch`)
/// allocates nothing new, and memory grows only with rule texts never seen before.
fn intern(text: String) -> &'static str {
    static INTERNED: LazyLock<Mutex<BTreeSet<&'static str>>> =
        LazyLock::new(|| Mutex::new(BTreeSet::new()));
    let mut interned = INTERNED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(found) = interned.get(text.as_str()) {
        return found;
    }
    let leaked: &'static str = Box::leak(text.into_boxed_str());
    interned.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests;
