//! `Skill`: one discovered skill as the catalog holds it (02 §The discovered record), and the
//! lean `SkillSummary` that goes over the wire.
//!
//! The body is never part of either: it is read on demand (progressive disclosure), so a
//! listing of ten thousand skills stays cheap.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Permission;
use crate::{Diagnostic, Frontmatter, SkillScope};

/// The type of a declared input: one of `string`, `number`, `boolean` and `json`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum InputType {
    /// Text: the default.
    #[default]
    String,
    /// A JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// Any JSON value.
    Json,
}

impl InputType {
    /// The name in `skill.toml`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Json => "json",
        }
    }

    /// The type `skill.toml` names (`"number"`), when it is one of the closed set.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::String, Self::Number, Self::Boolean, Self::Json]
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }

    /// Whether `value` is of this type: a JSON string, number or boolean, or for `json` any
    /// value at all. `null` is no type's value (a required input given `null` is missing).
    pub fn accepts(self, value: &Value) -> bool {
        match self {
            Self::String => value.is_string(),
            Self::Number => value.is_number(),
            Self::Boolean => value.is_boolean(),
            Self::Json => !value.is_null(),
        }
    }
}

/// One input a skill declares in its `skill.toml` sidecar (`[[inputs]]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkillInput {
    /// The input's name, unique within the skill (case-insensitively).
    pub name: String,
    /// What the input is for.
    #[serde(default)]
    pub description: String,
    /// Whether the skill needs it.
    #[serde(default)]
    pub required: bool,
    /// The type its value must have (`string` unless `skill.toml` says otherwise).
    #[serde(default, rename = "type")]
    pub kind: InputType,
    /// The value used when the input is not given; always of the input's type (discovery
    /// drops a default of another type with a diagnostic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

impl SkillInput {
    /// An optional `string` input with no description and no default.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: String::new(),
            required: false,
            kind: InputType::String,
            default: None,
        }
    }
}

/// What a bundled file is for, from the top-level folder it sits in.
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
pub enum ResourceKind {
    /// Under `scripts/`.
    Script,
    /// Under `references/`.
    Reference,
    /// Under `assets/`.
    Asset,
    /// Under `templates/`.
    Template,
    /// Under `examples/`.
    Example,
    /// Under `prompts/`.
    Prompt,
    /// Anywhere else.
    Other,
}

impl ResourceKind {
    /// The top-level folders that name a kind.
    pub const FOLDERS: [(&'static str, ResourceKind); 6] = [
        ("scripts", Self::Script),
        ("references", Self::Reference),
        ("assets", Self::Asset),
        ("templates", Self::Template),
        ("examples", Self::Example),
        ("prompts", Self::Prompt),
    ];

    /// The kind of a file at `relative_path` (`/`-separated) in a skill folder.
    pub fn of(relative_path: &str) -> Self {
        let top = relative_path.split('/').next().unwrap_or_default();
        let nested = relative_path.contains('/');
        Self::FOLDERS
            .iter()
            .find(|(folder, _)| nested && *folder == top)
            .map_or(Self::Other, |(_, kind)| *kind)
    }
}

/// One bundled file of a skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Resource {
    /// The path relative to the skill folder, `/`-separated.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// What it is for.
    pub kind: ResourceKind,
}

/// A bundled file's text, read through the safe reader.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ResourceContent {
    /// The skill's id.
    pub id: String,
    /// The path as checked, `/`-separated.
    pub relative_path: String,
    /// The text.
    pub content: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// A bundled file's bytes, read through the safe reader without the text check: what a
/// server needs to hand out an image or an archive a skill bundles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceBytes {
    /// The skill's id.
    pub id: String,
    /// The path as checked, `/`-separated.
    pub relative_path: String,
    /// The file's bytes.
    pub data: Vec<u8>,
}

/// A copy of a skill that lost a name collision to the skill recording it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shadowed {
    /// The loser's scope.
    pub scope: SkillScope,
    /// The root it was found under.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub root: PathBuf,
    /// Its definition file.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub location: PathBuf,
    /// Why the winner won, in words.
    pub reason: String,
}

/// Who may start a skill: the model on its own, or only someone who names it.
///
/// Hosts spell the second differently — Claude Code's `disable-model-invocation: true` in the
/// frontmatter, Codex's `policy.allow_implicit_invocation: false` in the skill's
/// `agents/openai.yaml` — and mean the same: the skill is kept out of everything offered to a
/// model (the rendered catalog, the `AGENTS.md` block, an MCP server's instructions and
/// prompts, ranked search results), while reading or running it by name still works.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Invocation {
    /// Offered to the model, which may start it when a task fits; a person may too.
    #[default]
    Model,
    /// Started by name only (a slash command, `skills read NAME`); never offered to a model.
    Manual,
}

impl Invocation {
    /// Whether a skill started this way is offered to a model: the one decision every exit
    /// that shows skills to a model (catalog, `AGENTS.md`, MCP, search) asks.
    pub const fn offered_to_model(self) -> bool {
        matches!(self, Self::Model)
    }

    /// Whether this is the default, which the wire form leaves out.
    pub fn is_model(&self) -> bool {
        *self == Self::Model
    }
}

/// One discovered skill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Skill {
    /// The directory name.
    pub id: String,
    /// The frontmatter name (the id when there is none).
    pub name: String,
    /// What the skill does and when to use it.
    // The frontmatter's, shared: held once.
    pub description: crate::Text,
    /// The scope of the root it was found under.
    pub scope: SkillScope,
    /// The root it was found under.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub root: PathBuf,
    /// Absolute path of the definition file.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub location: PathBuf,
    /// Absolute path of the skill directory (the base for its relative references).
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub dir: PathBuf,
    /// The normalised frontmatter.
    pub frontmatter: Frontmatter,
    /// From the sidecar: when an agent should reach for the skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<String>,
    /// From the sidecar: the inputs the skill takes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<SkillInput>,
    /// The bundled files (everything in the skill folder besides `SKILL.md`): filled when one
    /// skill is asked for (`get`, `describe`), left out of listings so that a listing reads no
    /// skill folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<Resource>>,
    /// What the loader and discovery noticed about this skill.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    /// Copies of the same name this one won against.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadowed: Vec<Shadowed>,
    /// `allow`, or `ask` when the core should ask the user first.
    pub permission: Permission,
    /// Who may start it: `manual` when its frontmatter or `agents/openai.yaml` keeps it from
    /// the model (left out when `model`).
    #[serde(default, skip_serializing_if = "Invocation::is_model")]
    pub invocation: Invocation,
    /// The skill's last audit verdict (`<home>/<app_dir>/audit-verdicts.json`), filled by
    /// listings and `get`; none when it was never audited (which is not "clean").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<crate::audit::Mark>,
}

/// The wire form of a skill in a listing: no frontmatter, no body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkillSummary {
    /// The directory name.
    pub id: String,
    /// The skill's name.
    pub name: String,
    /// What the skill does and when to use it.
    pub description: crate::Text,
    /// Where it was found.
    pub scope: SkillScope,
    /// Absolute path of the definition file.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub location: PathBuf,
    /// `allow` or `ask`.
    pub permission: Permission,
    /// What the loader and discovery noticed about it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    /// Copies it won against.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadowed: Vec<Shadowed>,
    /// On a copy that lost a collision: the scope of the copy that won.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<SkillScope>,
    /// Who may start it: `manual` when it is never offered to a model (left out when `model`).
    #[serde(default, skip_serializing_if = "Invocation::is_model")]
    pub invocation: Invocation,
    /// The skill's last audit verdict (`<home>/<app_dir>/audit-verdicts.json`), filled by
    /// listings and `get`; none when it was never audited (which is not "clean").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<crate::audit::Mark>,
}

/// Whether a winner of `scope` that beat the copies `shadowed` is a workspace copy (project,
/// profile) that won over a user copy of the same name: the user's own skill is out of the
/// agent's sight because of a tree, which the user is told about.
fn shadows_user(scope: SkillScope, shadowed: &[Shadowed]) -> bool {
    scope > SkillScope::User
        && shadowed
            .iter()
            .any(|shadowed| shadowed.scope == SkillScope::User)
}

impl Skill {
    /// Whether this workspace copy won over a user copy of the same name.
    pub fn shadows_user(&self) -> bool {
        shadows_user(self.scope, &self.shadowed)
    }

    /// Whether the skill may be shown to a model ([`Invocation::offered_to_model`]).
    pub const fn offered_to_model(&self) -> bool {
        self.invocation.offered_to_model()
    }
}

impl SkillSummary {
    /// Whether this workspace copy won over a user copy of the same name.
    pub fn shadows_user(&self) -> bool {
        shadows_user(self.scope, &self.shadowed)
    }

    /// Whether the skill may be shown to a model ([`Invocation::offered_to_model`]).
    pub const fn offered_to_model(&self) -> bool {
        self.invocation.offered_to_model()
    }

    /// The summary of `skill`, its fields moved out: what is left of the record (frontmatter,
    /// paths, maps) is the caller's to free, when and where it likes.
    pub fn take_from(skill: &mut Skill) -> Self {
        Self {
            id: std::mem::take(&mut skill.id),
            name: std::mem::take(&mut skill.name),
            description: std::mem::take(&mut skill.description),
            scope: skill.scope,
            location: std::mem::take(&mut skill.location),
            permission: skill.permission,
            diagnostics: std::mem::take(&mut skill.diagnostics),
            shadowed: std::mem::take(&mut skill.shadowed),
            shadowed_by: None,
            invocation: skill.invocation,
            audit: skill.audit.take(),
        }
    }
}

impl From<Skill> for SkillSummary {
    fn from(mut skill: Skill) -> Self {
        Self::take_from(&mut skill)
    }
}

impl From<&Skill> for SkillSummary {
    fn from(skill: &Skill) -> Self {
        Self {
            id: skill.id.clone(),
            name: skill.name.clone(),
            description: skill.description.clone(),
            scope: skill.scope,
            location: skill.location.clone(),
            permission: skill.permission,
            diagnostics: skill.diagnostics.clone(),
            shadowed: skill.shadowed.clone(),
            shadowed_by: None,
            invocation: skill.invocation,
            audit: skill.audit.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_kinds_come_from_the_top_folder() {
        for (path, kind) in [
            ("scripts/run.sh", ResourceKind::Script),
            ("references/deep/api.md", ResourceKind::Reference),
            ("assets/logo.png", ResourceKind::Asset),
            ("templates/a.md", ResourceKind::Template),
            ("examples/x.py", ResourceKind::Example),
            ("prompts/p.txt", ResourceKind::Prompt),
            ("notes.md", ResourceKind::Other),
            ("scripts", ResourceKind::Other),
            ("lib/scripts/x", ResourceKind::Other),
        ] {
            assert_eq!(ResourceKind::of(path), kind, "{path}");
        }
    }
}
