//! The params and results of the RPC methods (04 §RPC) that are not already types of the
//! library. Params are strict: an unknown field is refused with `-32602`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::SkillScope;
use crate::catalog::SkillBody;
use crate::install::InstallOutcome;
use crate::manage::UpdateSkill;
use crate::run::{
    InlineLanguage, RunOutcome, RunRequest, RunStatus, RunSummary, RunTarget, RuntimeInfo,
    RuntimeKind, Stream,
};
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

/// `skills.search`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// The task, in the user's words; never parsed as query syntax.
    pub query: String,
    /// The most results, 1 to 50 (default 10).
    #[serde(default)]
    pub limit: Option<usize>,
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

/// `skill_runtime.resolve_runtimes`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveRuntimesParams {
    /// One interpreter only; every one when absent.
    #[serde(default)]
    pub runtime: Option<RuntimeKind>,
}

/// The result of `skill_runtime.resolve_runtimes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ResolveRuntimesResult {
    /// Each interpreter: where it was found, its version, whether runs may use it.
    pub runtimes: Vec<RuntimeInfo>,
}

/// Inline code for `skill_runtime.run`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InlineCode {
    /// Which interpreter runs it.
    pub language: InlineLanguage,
    /// The code, passed as one argument.
    pub code: String,
}

/// `skill_runtime.run` (and `skills.run`, `workflows.run`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    /// The skill's name or folder name.
    pub skill_id: String,
    /// A script bundled with the skill, relative to its folder. At most one of `script`
    /// and `inline`; with neither, the skill's `entry` runs.
    #[serde(default)]
    pub script: Option<String>,
    /// Inline code (only when the home configuration allows it).
    #[serde(default)]
    pub inline: Option<InlineCode>,
    /// npm in the skill folder instead (`["ci"]`, `["test"]`, `["run", "build"]`): `ci`,
    /// `install`, `run SCRIPT` or `test`, for a skill with a `package.json`. Not with
    /// `script` or `inline`.
    #[serde(default)]
    pub npm: Option<Vec<String>>,
    /// Arguments after the script, each one argv element.
    #[serde(default)]
    pub args: Vec<String>,
    /// Values of the skill's declared inputs.
    #[serde(default)]
    pub inputs: Map<String, Value>,
    /// A deadline in seconds (clamped to 1..=1800; `0` or absent means none).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// The user confirmed this run (needed for `ask` and project skills).
    #[serde(default)]
    pub confirmed: bool,
    /// Answer when the run ends, with its outcome, rather than at once with its id.
    #[serde(default)]
    pub wait: bool,
}

impl RunParams {
    /// The request these params describe; giving both `script` and `inline` is refused
    /// (the message names both).
    pub fn to_request(&self) -> Result<RunRequest, String> {
        let target = match (&self.script, &self.inline) {
            _ if self.npm.is_some() && (self.script.is_some() || self.inline.is_some()) => {
                return Err(
                    "give one of `script`, `inline` or `npm`, not several (none runs the \
                     skill's entry)"
                        .to_owned(),
                );
            }
            _ if self.npm.is_some() => RunTarget::Npm {
                args: self.npm.clone().unwrap_or_default(),
            },
            (Some(_), Some(_)) => {
                return Err(
                    "give either `script` or `inline`, not both (neither runs the skill's entry)"
                        .to_owned(),
                );
            }
            (Some(path), None) => RunTarget::Script { path: path.clone() },
            (None, Some(inline)) => RunTarget::Inline {
                language: inline.language,
                code: inline.code.clone(),
            },
            (None, None) => RunTarget::Entry,
        };
        Ok(RunRequest::new(self.skill_id.clone(), target)
            .with_args(self.args.iter().cloned())
            .with_inputs(self.inputs.clone())
            .with_timeout_secs(self.timeout_secs)
            .confirmed(self.confirmed))
    }
}

/// A run that was started and goes on: what `skill_runtime.run` answers without `wait`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunStarted {
    /// The run's id: `skill_runtime.output` and `skill_runtime.finished` notifications
    /// carry it, and `skill_runtime.cancel` takes it.
    pub run_id: String,
}

/// The result of `skill_runtime.run`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RunResult {
    /// With `wait: true`: how the run ended.
    Finished(Box<RunOutcome>),
    /// Without `wait`: the run's id, at once.
    Started(RunStarted),
}

/// `skill_runtime.cancel` (and `skills.cancel`, `workflows.cancel`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelParams {
    /// The run's id.
    pub run_id: String,
}

/// The result of `skill_runtime.cancel`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CancelResult {
    /// `true` when a running run was signalled; `false` when the id is unknown or the run
    /// had already ended.
    pub cancelled: bool,
}

/// `skill_runtime.recent_runs`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecentRunsParams {
    /// How many (clamped to 1..=100; 20 when absent).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// The result of `skill_runtime.recent_runs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecentRunsResult {
    /// The newest first, each with its status.
    pub runs: Vec<RunSummary>,
}

/// `skill_runtime.read_run_log`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadRunLogParams {
    /// The run's id.
    pub run_id: String,
    /// Where to start reading, in bytes (0 when absent).
    #[serde(default)]
    pub offset: Option<u64>,
    /// How much to read at most (clamped to 1..=256 KiB; the most when absent).
    #[serde(default)]
    pub max_bytes: Option<usize>,
}

/// `skill_runtime.render_task`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderTaskParams {
    /// The skill's name or folder name.
    pub skill_id: String,
    /// Values of the skill's declared inputs.
    #[serde(default)]
    pub inputs: Map<String, Value>,
}

/// The result of `skill_runtime.list_tools` (its params are `{}`; those of
/// `skill_runtime.execute_tool` are a [`crate::tool::ToolCall`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ListToolsResult {
    /// Every declared tool, sorted by name.
    pub tools: Vec<crate::tool::ToolInfo>,
}

/// The params of `skill_runtime.output`, a notification: output of a run as it was read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OutputNotification {
    /// The run.
    pub run_id: String,
    /// Which stream.
    pub stream: Stream,
    /// The text (lossy UTF-8, in chunks).
    pub text: String,
}

/// The params of `skill_runtime.finished`, a notification: a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FinishedNotification {
    /// The run.
    pub run_id: String,
    /// How it ended.
    pub status: RunStatus,
    /// Everything about it.
    pub outcome: Box<RunOutcome>,
}
