//! Creating, updating and uninstalling skills (02 §Create, update, uninstall): what the caller
//! asks for and what it gets back.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::SkillScope;
use crate::skill::SkillInput;

/// A new skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct CreateSkill {
    /// The name: it must pass the agentskills.io name rule, since it becomes the folder.
    pub name: String,
    /// What the skill does and when to use it (1 to 1,024 characters).
    pub description: String,
    /// The Markdown body; a short scaffold when `None`.
    #[serde(default)]
    pub body: Option<String>,
    /// `user` (default) or `project` (trusted workspaces only); `legacy` is refused.
    #[serde(default = "crate::scope::user_scope")]
    pub scope: SkillScope,
    /// The license.
    #[serde(default)]
    pub license: Option<String>,
    /// Written as `metadata.author`.
    #[serde(default)]
    pub author: Option<String>,
    /// Written as `metadata.tags`, comma-separated.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Written as `allowed-tools`.
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    /// Written to `skill.toml`.
    #[serde(default)]
    pub when_to_use: Option<String>,
    /// Written to `skill.toml`; names unique ignoring case.
    #[serde(default)]
    pub inputs: Vec<SkillInput>,
    /// The root of the scope to write to (`app`, `agents`, `claude`); without it, the home
    /// configuration's `[install] root`, else `agents` (`.agents/skills`).
    #[serde(default)]
    pub agent: Option<crate::install::AgentTarget>,
    /// Agents (names or aliases from the agent table, or `detected`) whose skill folders
    /// should see the skill too: each one not reading the root gets a relative symlink.
    #[serde(default)]
    pub agents: Vec<String>,
    /// Also scaffold an entry script in this language (`scripts/main.mjs`, `.py` or `.sh`)
    /// that prints a JSON result, with `entry`, one input (`name`, unless inputs are given)
    /// and a self-test in `skill.toml`, so the skill's test passes as soon as it is written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<crate::run::InlineLanguage>,
}

impl CreateSkill {
    /// A user-scope skill with a name and a description, everything else default.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            body: None,
            scope: SkillScope::User,
            license: None,
            author: None,
            tags: Vec::new(),
            allowed_tools: Vec::new(),
            when_to_use: None,
            inputs: Vec::new(),
            agent: None,
            agents: Vec::new(),
            script: None,
        }
    }
}

/// Changes to an existing skill; `None` keeps the current value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct UpdateSkill {
    /// A new description.
    #[serde(default)]
    pub description: Option<String>,
    /// A new body; the existing one is kept otherwise.
    #[serde(default)]
    pub body: Option<String>,
    /// A new license.
    #[serde(default)]
    pub license: Option<String>,
    /// A new `metadata.author`.
    #[serde(default)]
    pub author: Option<String>,
    /// New `metadata.tags`.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// New `allowed-tools`.
    #[serde(default)]
    pub allowed_tools: Option<Vec<String>>,
    /// A new `when_to_use` (in `skill.toml`).
    #[serde(default)]
    pub when_to_use: Option<String>,
    /// New inputs (in `skill.toml`).
    #[serde(default)]
    pub inputs: Option<Vec<SkillInput>>,
}

/// What `create` and `update` wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Written {
    /// The skill's name.
    pub name: String,
    /// Its scope.
    pub scope: SkillScope,
    /// Its folder.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub dir: PathBuf,
    /// Its definition file.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub location: PathBuf,
    /// The symlinks made in other agents' skill folders (`--agent NAME`), each leading to
    /// `dir`.
    #[serde(default, with = "crate::path_text::list")]
    #[schemars(with = "Vec<String>")]
    pub links: Vec<PathBuf>,
}

/// What `uninstall` removed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Uninstalled {
    /// The skill's name.
    pub name: String,
    /// The scope it was removed from.
    pub scope: SkillScope,
    /// The folder (or the symlink) removed.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub path: PathBuf,
    /// Whether it was a symlink (only the link was removed; its target is untouched).
    pub was_link: bool,
    /// The agent symlinks in the same scope that pointed at the removed folder (such as
    /// `.claude/skills/NAME -> ../../.agents/skills/NAME`), removed with it.
    #[serde(default, with = "crate::path_text::list")]
    #[schemars(with = "Vec<String>")]
    pub links: Vec<PathBuf>,
}
