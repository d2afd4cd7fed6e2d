//! The params and results of the RPC methods (04 §RPC) that are not already types of the
//! library. Params are strict: an unknown field is refused with `-32602`.

use serde::{Deserialize, Serialize};

use crate::SkillScope;
use crate::catalog::SkillBody;
use crate::install::InstallOutcome;
use crate::manage::UpdateSkill;
use crate::validate::Profile;

/// `skills.describe`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DescribeParams {
    /// The skill's name or folder name.
    pub id: String,
}

/// `skills.read`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadParams {
    /// Names or folder names, in the order the bodies are wanted.
    pub ids: Vec<String>,
}

/// The result of `skills.read`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReadResult {
    /// One body per id, in the order asked.
    pub skills: Vec<SkillBody>,
}

/// `skills.read_resource`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadResourceParams {
    /// The skill's name or folder name.
    pub id: String,
    /// The file, relative to the skill folder (`references/guide.md`).
    pub relative_path: String,
}

/// `skills.explain`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainParams {
    /// The skill name.
    pub name: String,
}

/// `skills.validate`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidateParams {
    /// A skill folder or definition file, relative to the server's workspace; an absolute
    /// path must lie inside the workspace or the home.
    pub path: String,
    /// The rule set (default `agentskills`).
    #[serde(default)]
    pub profile: Option<Profile>,
    /// Turn warnings into errors.
    #[serde(default)]
    pub strict: bool,
}

/// `skills.update`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateParams {
    /// The skill's name or folder name.
    pub id: String,
    /// What to change.
    pub changes: UpdateSkill,
}

/// `skills.uninstall`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UninstallParams {
    /// The skill's folder name.
    pub name: String,
    /// Only look in this scope (`user` or `project`).
    #[serde(default)]
    pub scope: Option<SkillScope>,
}

/// The result of `skills.install_from_url`: one outcome per skill (a pack installs several).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InstallResult {
    /// What happened to each skill.
    pub installed: Vec<InstallOutcome>,
}

/// The params of a method that takes none: an empty object (or none at all).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// `skill_registry.browse`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowseParams {
    /// Fetch the catalog now rather than answering from a fresh (or stale) cache.
    #[serde(default)]
    pub force_refresh: bool,
    /// Only entries of this category.
    #[serde(default)]
    pub category: Option<String>,
}

/// The result of `skills.subscribe`; `skills.event` notifications follow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SubscribeResult {
    /// Always true: the connection now receives `skills.event` notifications.
    pub subscribed: bool,
}
