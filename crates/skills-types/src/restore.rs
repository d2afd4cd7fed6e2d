//! Restoring installed skills from the install record (`skills install` without a source): what
//! the caller asks for and what it gets back. This is `npm ci` for skills: every skill a
//! root's record (`.skills-installed.json`) lists, installed from its recorded source at its
//! recorded version, checked against its recorded digest; in a project, the vercel tool's
//! `skills-lock.json` too (read, never written).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::SkillScope;
use crate::install::{AgentTarget, InstallOutcome};

/// What to restore.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Request {
    /// `project` (the records committed in the workspace, which must be trusted) or `user`
    /// (the home's records).
    #[serde(default = "crate::scope::user_scope")]
    pub scope: SkillScope,
    /// Only the record of this root of the scope; every root's when `None`.
    #[serde(default)]
    pub agent: Option<AgentTarget>,
    /// Change nothing unless everything matches: every source is fetched and every skill
    /// compared first; any difference (a source that cannot be reached, a skill it no longer
    /// offers, a digest other than the recorded one, an installed copy changed since) is
    /// listed and nothing at all is written.
    #[serde(default)]
    pub frozen: bool,
    /// Replace an installed copy changed since it was installed with the recorded version
    /// (not with `frozen`).
    #[serde(default)]
    pub force: bool,
    /// The deadline of each source's download, in seconds (1 to 600; default 60).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
}

impl Request {
    /// A restore of `scope`'s records with the defaults.
    pub fn new(scope: SkillScope) -> Self {
        Self {
            scope,
            agent: None,
            frozen: false,
            force: false,
            timeout_secs: None,
        }
    }
}

/// Which file listed a skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RecordKind {
    /// This program's install record (`.skills-installed.json` in a skill root).
    Installed,
    /// The vercel tool's project lock (`skills-lock.json` at the workspace root).
    VercelLock,
}

/// What restoring did with one recorded skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Installed from its source, matching the record.
    Installed,
    /// Already installed and matching the record; nothing fetched or written for it.
    Current,
    /// Matches its record and its source, but nothing was written because another skill of
    /// a `frozen` restore differs.
    Held,
    /// Differs from its record (see [`Difference`]); nothing written for it.
    Differs,
}

/// How a recorded skill differs from its record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Difference {
    /// The recorded source could not be reached or read (a download failed, a refused URL,
    /// a local folder that is gone).
    SourceUnreachable,
    /// The source no longer offers the skill.
    Missing,
    /// The source serves other files than the record's digest says.
    DigestMismatch,
    /// The installed copy was changed since it was installed (`force` replaces it).
    LocallyModified,
    /// The record cannot be restored as written: no source, no digest, a kind of source this
    /// program cannot fetch.
    Unrestorable,
    /// The install itself failed after every check passed (a conflict, a full disk).
    WriteFailed,
}

/// One recorded skill and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    /// The folder name it is recorded (and installed) under.
    pub slug: String,
    /// Where it goes: `<root>/<slug>`.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub path: PathBuf,
    /// The scope of the root.
    pub scope: SkillScope,
    /// Which file listed it.
    pub record: RecordKind,
    /// The recorded source, as recorded (redacted).
    pub source: String,
    /// The recorded version, if any.
    pub version: Option<String>,
    /// The recorded digest (`sha256:<hex>` over the skill's files), when the record has one.
    pub sha256: Option<String>,
    /// What was done.
    pub action: Action,
    /// How it differs, when `action` is `differs`.
    pub difference: Option<Difference>,
    /// Why, in words, when it differs; what is worth knowing otherwise.
    pub message: Option<String>,
    /// The install, when one was made.
    pub installed: Option<InstallOutcome>,
}

/// What a restore did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    /// The records read, in the order they were read.
    #[serde(with = "crate::path_text::list")]
    #[schemars(with = "Vec<String>")]
    pub records: Vec<PathBuf>,
    /// Whether this was a `frozen` restore.
    pub frozen: bool,
    /// One outcome per recorded skill.
    pub skills: Vec<Outcome>,
}

impl Report {
    /// The skills that differ from their record.
    pub fn differences(&self) -> impl Iterator<Item = &Outcome> {
        self.skills
            .iter()
            .filter(|outcome| outcome.action == Action::Differs)
    }

    /// Whether every recorded skill is now installed as recorded.
    pub fn is_complete(&self) -> bool {
        self.skills
            .iter()
            .all(|outcome| matches!(outcome.action, Action::Installed | Action::Current))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_complete_only_when_nothing_differs_or_was_held() {
        let outcome = |action| Outcome {
            slug: "x".to_owned(),
            path: PathBuf::from("/r/x"),
            scope: SkillScope::Project,
            record: RecordKind::Installed,
            source: "acme/skills".to_owned(),
            version: None,
            sha256: None,
            action,
            difference: None,
            message: None,
            installed: None,
        };
        let mut report = Report {
            records: Vec::new(),
            frozen: true,
            skills: vec![outcome(Action::Installed), outcome(Action::Current)],
        };
        assert!(report.is_complete());
        assert_eq!(report.differences().count(), 0);
        report.skills.push(outcome(Action::Held));
        assert!(!report.is_complete());
        report.skills.push(outcome(Action::Differs));
        assert_eq!(report.differences().count(), 1);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["skills"][3]["action"], "differs");
        assert_eq!(json["skills"][0]["record"], "installed");
    }
}
