//! Checking and updating installed skills from their provenance (09 §Updates): what the
//! caller asks for and what it gets back. These are the peers' `check` and `update`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::SkillScope;
use crate::install::InstallOutcome;

/// Which installed skills to check or update, and how.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Request {
    /// Folder names or skill names; empty means every installed skill.
    #[serde(default)]
    pub names: Vec<String>,
    /// Overwrite a skill changed locally since it was installed.
    #[serde(default)]
    pub force: bool,
    /// The deadline of each source's download, in seconds (1 to 600; default 60).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// What a person agreed to about the audit's findings in the new files, as an install's
    /// (`InstallRequest::audit`).
    #[serde(default)]
    pub audit: crate::audit::AuditConsent,
}

impl Request {
    /// Every installed skill, local changes protected, the default deadline.
    pub fn all() -> Self {
        Self::default()
    }

    /// Only these skills.
    pub fn named(names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            names: names.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }
}

/// One installed skill compared with its source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Check {
    /// The skill's folder name.
    pub slug: String,
    /// The skill's name, as listed.
    pub name: String,
    /// The skill's folder.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub path: PathBuf,
    /// Its scope.
    pub scope: SkillScope,
    /// The source recorded at install, redacted.
    pub source: String,
    /// The source's kind, as recorded.
    pub kind: String,
    /// The version recorded at install, if the source declared one.
    pub installed_version: Option<String>,
    /// The version the source offers now, if it declares one (unknown when `problem` is set).
    pub available_version: Option<String>,
    /// The source's files differ from those installed (a new version or a different digest).
    pub update_available: bool,
    /// The files on disk differ from those installed: edited, added or removed since.
    pub locally_modified: bool,
    /// Why the source could not be compared (a download failed, the skill is gone from it).
    pub problem: Option<String>,
}

/// What `update` did with one skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Re-installed from its source.
    Updated,
    /// Already what the source offers; nothing written.
    Current,
    /// Changed locally since install, so not overwritten (`force` overwrites it).
    KeptLocalChanges,
    /// The source could not be compared or the write failed; nothing written.
    Failed,
}

/// The outcome of `update` for one skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    /// The comparison made before acting.
    pub check: Check,
    /// What was done.
    pub action: Action,
    /// Why, in words, when not `updated` or `current`.
    pub message: Option<String>,
    /// The install, when one was made.
    pub installed: Option<InstallOutcome>,
}
