//! `SkillScope`: where a skill was found, and which copy wins when two share a name.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The scope a skill root belongs to: the legacy folder, a remote pack, the user's home, the
/// workspace, or a profile.
///
/// The derived order is the precedence order: a skill in a later scope shadows a skill of the
/// same name in an earlier one (`Legacy < Remote < User < Project < Profile`).
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
#[serde(rename_all = "lowercase")]
pub enum SkillScope {
    /// `<workspace>/skills`, only in a trusted workspace.
    Legacy,
    /// The cached copy of a remote pack (`urls` in `skills.toml`), below the user's own skills
    /// so a pack never shadows what the user wrote.
    Remote,
    /// The user's own roots under the home directory.
    User,
    /// The workspace's roots, only in a trusted workspace.
    Project,
    /// `<workspace>/personalities/<profile>/skills`, only when a profile is set.
    Profile,
}

/// The scope a request means when it names none (a serde default of the request types).
pub(crate) fn user_scope() -> SkillScope {
    SkillScope::User
}

impl SkillScope {
    /// Every scope, lowest precedence first.
    pub const ALL: [SkillScope; 5] = [
        Self::Legacy,
        Self::Remote,
        Self::User,
        Self::Project,
        Self::Profile,
    ];

    /// The precedence number of 02: higher wins.
    pub const fn precedence(self) -> u8 {
        match self {
            Self::Legacy => 0,
            Self::Remote => 1,
            Self::User => 2,
            Self::Project => 3,
            Self::Profile => 4,
        }
    }

    /// The lowercase name used on the wire and on the command line.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Legacy => "legacy",
            Self::Remote => "remote",
            Self::User => "user",
            Self::Project => "project",
            Self::Profile => "profile",
        }
    }
}

impl fmt::Display for SkillScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a scope name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope '{0}': expected one of legacy, remote, user, project, profile")]
pub struct UnknownScope(pub String);

impl FromStr for SkillScope {
    type Err = UnknownScope;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|scope| scope.as_str() == text)
            .ok_or_else(|| UnknownScope(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_follows_precedence() {
        for pair in SkillScope::ALL.windows(2) {
            assert!(pair[0] < pair[1]);
            assert!(pair[0].precedence() < pair[1].precedence());
        }
    }

    #[test]
    fn serde_is_lowercase_and_round_trips() {
        for scope in SkillScope::ALL {
            let json = serde_json::to_string(&scope).unwrap();
            assert_eq!(json, format!("\"{}\"", scope.as_str()));
            assert_eq!(serde_json::from_str::<SkillScope>(&json).unwrap(), scope);
            assert_eq!(scope.as_str().parse::<SkillScope>().unwrap(), scope);
        }
        assert!(serde_json::from_str::<SkillScope>("\"User\"").is_err());
        assert_eq!(
            "global".parse::<SkillScope>().unwrap_err().to_string(),
            "unknown scope 'global': expected one of legacy, remote, user, project, profile"
        );
    }
}
