//! Validation: profiles, options and the report of one skill directory (01 §The validator and
//! its profiles).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::limits::PackageLimits;
use crate::{Diagnostic, Severity};

/// A rule set the validator applies.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// The agentskills.io specification, as its reference validator applies it.
    #[default]
    Agentskills,
    /// What this subsystem's own loader (`skills list`) loads: only what keeps a skill out of
    /// the catalog is an error; every other finding is a warning.
    Lenient,
    /// `agentskills` plus `platforms`, `triggers`, legacy top-level fields (warned) and `x-*`.
    Openhuman,
    /// `agentskills` plus `x-astron-*` keys, the package rules and `x-astron-compliance`.
    Skillhub,
    /// The fields and name rules Claude Code documents for its skills.
    ClaudeCode,
    /// The fields and name rules Codex documents for its skills.
    Codex,
    /// The fields and name rules OpenCode documents for its skills.
    Opencode,
}

impl Profile {
    /// Every profile, the default first.
    pub const ALL: [Profile; 7] = [
        Self::Agentskills,
        Self::Lenient,
        Self::Openhuman,
        Self::Skillhub,
        Self::ClaudeCode,
        Self::Codex,
        Self::Opencode,
    ];

    /// The profiles that each stand for one host's documented rules.
    pub const HOSTS: [Profile; 3] = [Self::ClaudeCode, Self::Codex, Self::Opencode];

    /// The kebab-case name used on the wire and on the command line.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Agentskills => "agentskills",
            Self::Lenient => "lenient",
            Self::Openhuman => "openhuman",
            Self::Skillhub => "skillhub",
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Opencode => "opencode",
        }
    }

    /// The product a host profile stands for, as people write it.
    pub const fn host(self) -> Option<&'static str> {
        match self {
            Self::ClaudeCode => Some("Claude Code"),
            Self::Codex => Some("Codex"),
            Self::Opencode => Some("OpenCode"),
            Self::Agentskills | Self::Lenient | Self::Openhuman | Self::Skillhub => None,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a profile name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown profile '{0}': expected one of agentskills, lenient, openhuman, skillhub, claude-code, codex, opencode"
)]
pub struct UnknownProfile(pub String);

impl FromStr for Profile {
    type Err = UnknownProfile;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|profile| profile.as_str() == text)
            .ok_or_else(|| UnknownProfile(text.to_owned()))
    }
}

/// How to validate.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[non_exhaustive]
pub struct Options {
    /// The rule set.
    pub profile: Profile,
    /// Turn every warning into an error.
    pub strict: bool,
    /// Limits of the package rules (profile `skillhub`).
    pub package_limits: PackageLimits,
}

impl Options {
    /// Options for a profile, not strict, default package limits.
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            ..Self::default()
        }
    }

    /// The same options, strict or not.
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }
}

/// The verdict on one skill directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Report {
    /// The skill directory that was validated.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub dir: PathBuf,
    /// The definition file that was read.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub file: PathBuf,
    /// The name as written in the frontmatter, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The profile applied.
    pub profile: Profile,
    /// Whether warnings counted as errors.
    pub strict: bool,
    /// `true` when no diagnostic is an error.
    pub valid: bool,
    /// Every finding, errors and warnings, in the order the rules ran.
    pub diagnostics: Vec<Diagnostic>,
    /// The normalised `x-astron-compliance` snapshot, when present and valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliance: Option<ComplianceSnapshot>,
}

impl Report {
    /// A report over the given findings; `valid` is derived from them.
    pub fn new(
        dir: PathBuf,
        file: PathBuf,
        name: Option<String>,
        options: &Options,
        diagnostics: Vec<Diagnostic>,
        compliance: Option<ComplianceSnapshot>,
    ) -> Self {
        let valid = !diagnostics.iter().any(Diagnostic::is_error);
        Self {
            dir,
            file,
            name,
            profile: options.profile,
            strict: options.strict,
            valid,
            diagnostics,
            compliance,
        }
    }

    /// How many findings have the given severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.severity == severity)
            .count()
    }
}

/// The normalised `x-astron-compliance` list and its digest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ComplianceSnapshot {
    /// `sha256:<hex>` of [`ComplianceSnapshot::canonical_json`].
    pub digest: String,
    /// The entries, sorted by standard, version and control id.
    pub entries: Vec<ComplianceEntry>,
}

impl ComplianceSnapshot {
    /// The canonical JSON text the digest is computed over: the sorted entries, object keys in
    /// byte order, no insignificant whitespace.
    pub fn canonical_json(entries: &[ComplianceEntry]) -> String {
        // Converting through `Value` sorts object keys (serde_json's map is ordered by key), so
        // the text does not depend on struct field order.
        serde_json::to_value(entries)
            .map(|value| value.to_string())
            .unwrap_or_default()
    }
}

/// One control a skill claims to satisfy.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct ComplianceEntry {
    /// The standard, such as `ISO-27001`.
    pub standard: String,
    /// The standard's version.
    pub version: String,
    /// The control within the standard.
    #[serde(rename = "controlId")]
    pub control_id: String,
    /// A human title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What backs the claim, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

/// One item of evidence for a compliance entry.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Evidence {
    /// A file inside the package, by relative path.
    PackagedFile {
        /// The relative path.
        path: String,
    },
    /// A page on the web (https only).
    ExternalUrl {
        /// The URL.
        url: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_parse_and_print() {
        for profile in Profile::ALL {
            assert_eq!(profile.as_str().parse::<Profile>().unwrap(), profile);
            assert_eq!(
                serde_json::to_string(&profile).unwrap(),
                format!("\"{profile}\"")
            );
        }
        assert_eq!(Profile::default(), Profile::Agentskills);
        assert!("strict".parse::<Profile>().is_err());
        let listed = UnknownProfile("x".into()).to_string();
        for profile in Profile::ALL {
            assert!(listed.contains(profile.as_str()), "{listed}");
        }
        for profile in Profile::HOSTS {
            assert!(profile.host().is_some(), "{profile}");
        }
    }

    #[test]
    fn canonical_json_sorts_keys_and_has_no_whitespace() {
        let entries = vec![ComplianceEntry {
            standard: "ISO-27001".into(),
            version: "2022".into(),
            control_id: "A.5.1".into(),
            title: None,
            evidence: vec![Evidence::PackagedFile {
                path: "docs/policy.md".into(),
            }],
        }];
        assert_eq!(
            ComplianceSnapshot::canonical_json(&entries),
            r#"[{"controlId":"A.5.1","evidence":[{"path":"docs/policy.md","type":"packaged-file"}],"standard":"ISO-27001","version":"2022"}]"#
        );
    }
}
