//! `skills audit --sarif FILE`: the findings as a SARIF 2.1.0 log (OASIS, the format GitHub
//! code scanning and other code-scanning pages read).
//!
//! Written with a few structs of our own rather than a SARIF crate (`docs/decisions.md`, "SARIF
//! written by hand"): a log needs a handful of the format's objects, and `serde-sarif` would
//! bring a schema-generating build script and seven new crates for them. The fields set are
//! the ones code-scanning pages use: each rule once in `tool.driver.rules` with its help text
//! and a `security-severity`, and one result per finding with its level, message, place and
//! snippet. An accepted finding is a result with an external suppression (`status`
//! `accepted`); a skill that could not be scanned is an error notification of the run's
//! invocation, which is then not successful.
//!
//! Every string comes from a report, whose skill texts are sanitised already; the whole log
//! goes through the one sanitiser once more as it is written (`output::json_document`), like
//! every `--json`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use skills::audit::{Finding, Report, Reports, Severity};

/// The version written, and the schema it names.
const VERSION: &str = "2.1.0";
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Where the tool is described.
const INFORMATION_URI: &str = "https://github.com/skills-rs/skills/blob/main/docs/audit.md";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    invocations: [Invocation; 1],
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<RuleDescriptor<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor<'a> {
    id: &'a str,
    name: &'a str,
    short_description: Text<'a>,
    help: Text<'a>,
    default_configuration: Configuration,
    properties: RuleProperties<'a>,
}

#[derive(Serialize)]
struct Text<'a> {
    text: &'a str,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties<'a> {
    /// GitHub code scanning's severity scale (0.0 to 10.0).
    #[serde(rename = "security-severity")]
    security_severity: &'static str,
    tags: [&'a str; 2],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: OwnedText,
}

#[derive(Serialize)]
struct OwnedText {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: Text<'a>,
    locations: [Location<'a>; 1],
    partial_fingerprints: Fingerprints,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<Suppression>,
    properties: ResultProperties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location<'a> {
    physical_location: PhysicalLocation<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation<'a> {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region<'a>>,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region<'a> {
    start_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    snippet: Option<Text<'a>>,
}

#[derive(Serialize)]
struct Fingerprints {
    /// The finding's identity (rule, file, line, column) in the skill, with the skill's name:
    /// the same finding keeps it from one scan to the next.
    #[serde(rename = "skillsFindingId/v1")]
    finding: String,
}

#[derive(Serialize)]
struct Suppression {
    kind: &'static str,
    status: &'static str,
    justification: &'static str,
}

#[derive(Serialize)]
struct ResultProperties<'a> {
    severity: Severity,
    category: &'static str,
    skill: &'a str,
}

/// The log of `reports`, as JSON text (sanitised).
pub(crate) fn log(reports: &Reports) -> String {
    let mut rules: Vec<RuleDescriptor<'_>> = Vec::new();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut results = Vec::new();
    for report in &reports.results {
        for finding in &report.findings {
            let rule_index = *index.entry(&finding.rule_id).or_insert_with(|| {
                rules.push(rule(finding));
                rules.len() - 1
            });
            results.push(result(report, finding, rule_index));
        }
    }
    let notifications: Vec<Notification> = reports
        .summary
        .skills_skipped
        .iter()
        .map(|skipped| Notification {
            level: "error",
            message: OwnedText {
                text: format!("{} could not be scanned: {}", skipped.file, skipped.reason),
            },
        })
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: VERSION,
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "skills",
                    version: env!("CARGO_PKG_VERSION"),
                    information_uri: INFORMATION_URI,
                    rules,
                },
            },
            invocations: [Invocation {
                execution_successful: notifications.is_empty(),
                tool_execution_notifications: notifications,
            }],
            results,
        }],
    };
    crate::output::json_document(&log)
}

/// Writes `log` to `file` whole or not at all: a temporary file beside it, renamed over it.
pub(crate) fn write(file: &Path, log: &str) -> std::io::Result<()> {
    let name = file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "audit.sarif".to_owned());
    let temporary = file.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&temporary, format!("{log}\n"))
        .and_then(|()| std::fs::rename(&temporary, file));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

fn rule(finding: &Finding) -> RuleDescriptor<'_> {
    RuleDescriptor {
        id: &finding.rule_id,
        name: &finding.rule_id,
        short_description: Text {
            text: &finding.title,
        },
        help: Text {
            text: &finding.remediation,
        },
        default_configuration: Configuration {
            level: level(finding.severity),
        },
        properties: RuleProperties {
            security_severity: security_severity(finding.severity),
            tags: ["security", finding.category.as_str()],
        },
    }
}

fn result<'a>(report: &'a Report, finding: &'a Finding, rule_index: usize) -> SarifResult<'a> {
    let location = &finding.location;
    let region = (location.line > 0).then(|| Region {
        start_line: location.line,
        start_column: (location.column > 0).then_some(location.column),
        snippet: (!finding.snippet.is_empty()).then_some(Text {
            text: &finding.snippet,
        }),
    });
    let accepted = report.accepted.contains(&finding.rule_id);
    SarifResult {
        rule_id: &finding.rule_id,
        rule_index,
        level: level(finding.severity),
        message: Text {
            text: &finding.message,
        },
        locations: [Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: uri(&report.skill_path.join(&location.file)),
                },
                region,
            },
        }],
        partial_fingerprints: Fingerprints {
            finding: format!("{}/{}", report.skill_name, finding.id()),
        },
        suppressions: if accepted {
            vec![Suppression {
                kind: "external",
                status: "accepted",
                justification: "accepted with `skills audit --accept` for the skill's files as scanned",
            }]
        } else {
            Vec::new()
        },
        properties: ResultProperties {
            severity: finding.severity,
            category: finding.category.as_str(),
            skill: &report.skill_name,
        },
    }
}

/// SARIF's levels: a finding that blocks by default is an error.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low | Severity::Info => "note",
    }
}

/// GitHub code scanning's scale: above 9.0 critical, 7.0 to 8.9 high, 4.0 to 6.9 medium,
/// 0.1 to 3.9 low.
fn security_severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.5",
        Severity::Low => "2.0",
        Severity::Info => "0.1",
    }
}

/// A path as a URI reference: a relative path stays relative (code-scanning pages resolve it
/// against the checkout), an absolute one is a `file://` URI; `/` separates, and every byte
/// but the unreserved ones and `/` is percent-encoded.
fn uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let text = text.strip_prefix("./").unwrap_or(&text);
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    if path.is_absolute() {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use skills::audit::{Category, Location, Skipped};

    use super::*;

    fn finding(rule: &str, severity: Severity, line: u32) -> Finding {
        Finding::new(
            rule,
            severity,
            Category::UnicodeSteganography,
            "Bidirectional control character",
            "1 bidirectional control character(s)",
            Location {
                file: "SKILL.md".into(),
                line,
                column: if line == 0 { 0 } else { 6 },
            },
            if line == 0 { "" } else { "Reads files." },
            "Remove them.",
            "hidden",
        )
    }

    fn reports() -> Reports {
        let mut flagged = Report::new(
            "pdf tools".into(),
            "skills/pdf tools".into(),
            vec![
                finding("HIDDEN_BIDI_CONTROL", Severity::High, 5),
                finding("HIDDEN_BIDI_CONTROL", Severity::High, 9),
                finding("MANIFEST_SECRET", Severity::Critical, 0),
            ],
            Severity::High,
            "1",
            "sha256:00".into(),
            Vec::new(),
        );
        flagged.set_accepted(["MANIFEST_SECRET"], Severity::High);
        Reports::new(
            vec![flagged],
            vec![Skipped {
                file: "missing".into(),
                reason: "it does not exist".into(),
            }],
        )
    }

    /// The fields SARIF 2.1.0 requires, and the types it gives them, checked by hand: the
    /// official schema is not fetched by a test (no network) nor copied in.
    #[test]
    fn the_log_has_every_field_sarif_requires() {
        let log: Value = serde_json::from_str(&log(&reports())).unwrap();
        assert_eq!(log["version"], "2.1.0");
        assert!(
            log["$schema"]
                .as_str()
                .unwrap()
                .ends_with("sarif-2.1.0.json")
        );
        let runs = log["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        let driver = &run["tool"]["driver"];
        assert_eq!(driver["name"], "skills");
        let rules = driver["rules"].as_array().unwrap();
        assert_eq!(rules.len(), 2, "each rule once");
        for rule in rules {
            assert!(rule["id"].is_string());
            assert!(rule["shortDescription"]["text"].is_string());
            assert!(
                ["error", "warning", "note", "none"]
                    .contains(&rule["defaultConfiguration"]["level"].as_str().unwrap())
            );
        }
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 3, "a result per finding");
        for result in results {
            // `message` is the one property a result requires; it needs `text` (or `id`).
            assert!(result["message"]["text"].is_string());
            let index = result["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], result["ruleId"]);
            let physical = &result["locations"][0]["physicalLocation"];
            assert_eq!(
                physical["artifactLocation"]["uri"],
                "skills/pdf%20tools/SKILL.md"
            );
            if let Some(region) = physical.get("region") {
                assert!(region["startLine"].as_u64().unwrap() >= 1);
                assert!(region["startColumn"].as_u64().unwrap() >= 1);
            }
            if let Some(suppressions) = result.get("suppressions") {
                for suppression in suppressions.as_array().unwrap() {
                    assert!(
                        ["inSource", "external"].contains(&suppression["kind"].as_str().unwrap())
                    );
                }
            }
        }
        // A finding about a whole file has no region (lines start at 1).
        let whole = results
            .iter()
            .find(|r| r["ruleId"] == "MANIFEST_SECRET")
            .unwrap();
        assert!(
            whole["locations"][0]["physicalLocation"]
                .get("region")
                .is_none()
        );
        assert_eq!(whole["suppressions"][0]["status"], "accepted");
        assert_eq!(whole["level"], "error");
        let invocation = &run["invocations"][0];
        assert_eq!(invocation["executionSuccessful"], false);
        assert_eq!(
            invocation["toolExecutionNotifications"][0]["level"],
            "error"
        );
    }

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri(Path::new("./a b/SKILL.md")), "a%20b/SKILL.md");
        assert_eq!(
            uri(Path::new("/home/me/x#1/SKILL.md")),
            "file:///home/me/x%231/SKILL.md"
        );
        assert_eq!(uri(Path::new("é")), "%C3%A9");
    }

    #[test]
    fn a_written_log_replaces_the_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("audit.sarif");
        std::fs::write(&file, "old").unwrap();
        write(&file, "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(write(&dir.path().join("missing/audit.sarif"), "{}").is_err());
    }
}
