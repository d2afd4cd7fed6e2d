//! `SkillsConfig`: everything discovery needs, in one value (02 §Configuration).
//!
//! The library never reads environment variables: the command line (or the embedding core)
//! builds this value, so tests never race on the process environment.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::limits::{MAX_DIRS_PER_ROOT, MAX_DISCOVERY_DEPTH, MAX_SKILL_MD_BYTES};

/// The application directory used when an embedding core does not set its own.
pub const DEFAULT_APP_DIR: &str = ".openhuman";

/// The longest application directory name accepted, in bytes (a folder name on common file
/// systems).
pub const MAX_APP_DIR_BYTES: usize = 255;

/// Why an application directory name was refused (the message shows the name escaped, so a
/// control character is seen rather than obeyed): it must be one plain folder name, because
/// it is joined onto the home and the workspace, and `../x`, `/etc` or `a/b` would put the
/// trust record, `skills.toml`, the caches and new skills outside both.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the application directory \"{shown}\" is refused: {reason}; it must be one plain folder name, such as {DEFAULT_APP_DIR}",
    shown = crate::sanitize::line(&name.escape_debug().to_string())
)]
#[non_exhaustive]
pub struct AppDirError {
    /// The name as given.
    pub name: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Checks that `name` is one normal path component: not empty, not `.` or `..`, no `/` or
/// `\` (a separator on one system or another), no NUL or other control or format character,
/// not absolute, at most [`MAX_APP_DIR_BYTES`] bytes. Every door an application directory comes
/// in by (the command line, the facade) uses this one check.
pub fn check_app_dir(name: &str) -> Result<(), AppDirError> {
    let refuse = |reason| {
        Err(AppDirError {
            name: name.to_owned(),
            reason,
        })
    };
    if name.is_empty() {
        return refuse("it is empty");
    }
    if name == "." || name == ".." {
        return refuse("it names the folder itself or its parent");
    }
    if name.contains(['/', '\\']) {
        return refuse("it holds a path separator");
    }
    if name.contains('\0') {
        return refuse("it holds a NUL character");
    }
    if name.chars().any(crate::sanitize::is_removed) {
        return refuse("it holds a control or format character");
    }
    if name.len() > MAX_APP_DIR_BYTES {
        return refuse("it is too long for a folder name");
    }
    // Whatever the platform makes of the rest (a drive prefix, a root), it must come back as
    // exactly this one normal component.
    let mut components = std::path::Path::new(name).components();
    match (components.next(), components.next()) {
        (Some(std::path::Component::Normal(only)), None) if only == name => Ok(()),
        _ => refuse("it is not a single folder name"),
    }
}

/// Configuration of one skills subsystem instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct SkillsConfig {
    /// The project directory.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub workspace: PathBuf,
    /// The user's home directory.
    #[serde(with = "crate::path_text")]
    #[schemars(with = "String")]
    pub home: PathBuf,
    /// The application directory under home and workspace (default `.openhuman`): one plain
    /// folder name ([`check_app_dir`]); the facade refuses every call with another.
    pub app_dir: String,
    /// The active profile (personality) id, if any.
    pub profile: Option<String>,
    /// Also scan the shared roots of other agents: `.agents/skills`, `.agent/skills` and
    /// `.claude/skills`.
    pub interop: bool,
    /// Additional user-scope roots.
    pub extra_roots: Vec<PathBuf>,
    /// When the workspace's project and legacy roots may be loaded.
    pub trust: TrustPolicy,
    /// Which symlinked directories discovery follows.
    pub symlinks: SymlinkPolicy,
    /// Scan limits.
    pub limits: DiscoveryLimits,
    /// Permission rules; the last matching rule wins. They count with the home `skills.toml`'s:
    /// a trusted workspace's rules give a verdict of their own, and the stricter one applies.
    pub permissions: Vec<PermissionRule>,
    /// Names of skills that are turned off.
    pub disabled: Vec<String>,
    /// Character budget of the rendered catalog, if any.
    pub budget_chars: Option<usize>,
    /// Remote pack URLs to install from (03); kept for the install stage.
    pub urls: Vec<String>,
    /// Apply `~/<app_dir>/skills.toml` and, in a trusted workspace,
    /// `<workspace>/<app_dir>/skills.toml` to this configuration: the home decides, a
    /// workspace can only tighten, key by key as [`crate::settings::KEYS`] says.
    pub read_config_files: bool,
    /// Keep parsed frontmatters in `~/<app_dir>/cache/`, keyed by path, size and times, so a
    /// repeated listing reads no unchanged file.
    pub cache: bool,
    /// Network settings of installs.
    pub network: crate::install::NetworkConfig,
    /// The registry (`[registry]`, home only).
    pub registry: crate::install::RegistryConfig,
    /// Where GitHub lives (`[github]`, home only).
    #[serde(default)]
    pub github: crate::install::GithubConfig,
    /// How skills' scripts may be run (`[runtime]`: the home file sets it, a workspace's file
    /// may only tighten it).
    #[serde(default)]
    pub runtime: crate::runtime::RuntimeConfig,
    /// What `skills audit` and the install and run gates go by (`[audit]`: the home file sets
    /// it, a workspace's file may only lower a threshold or add rule folders).
    #[serde(default)]
    pub audit: crate::audit::AuditConfig,
    /// Refuse every write-class action: runs of code, and creating, changing, installing,
    /// updating, uninstalling or trusting skills (`skills --read-only`). Queries still work.
    #[serde(default)]
    pub read_only: bool,
    /// The command `AGENTS.md` tells the agent to run to load a skill (`<command> read
    /// NAME`); `None` is `skills`. Only the home `skills.toml` may set it (`[sync]
    /// read_command`): a workspace must not choose what an agent runs.
    #[serde(default)]
    pub read_command: Option<String>,
    /// The root `new` and `install` write to when no agent root is asked for; `None` is
    /// `.agents/skills` (or `<app_dir>/skills` when `interop` is off, since discovery would
    /// not read the shared root then). Only the home `skills.toml` may set it (`[install]
    /// root`): a workspace must not choose where the user's skills are written.
    #[serde(default)]
    pub install_root: Option<crate::install::AgentTarget>,
    /// The last valid version of each skill, kept while its file is broken once a watch has
    /// started ([`crate::watch::LastGood`]): process state shared by clones, not settings.
    #[serde(skip)]
    #[schemars(skip)]
    pub last_good: crate::watch::LastGood,
}

impl SkillsConfig {
    /// A configuration with every default of 02 for the given workspace and home.
    pub fn new(workspace: impl Into<PathBuf>, home: impl Into<PathBuf>) -> Self {
        Self {
            workspace: workspace.into(),
            home: home.into(),
            app_dir: DEFAULT_APP_DIR.to_owned(),
            profile: None,
            interop: true,
            extra_roots: Vec::new(),
            trust: TrustPolicy::default(),
            symlinks: SymlinkPolicy::default(),
            limits: DiscoveryLimits::default(),
            permissions: Vec::new(),
            disabled: Vec::new(),
            budget_chars: None,
            urls: Vec::new(),
            read_config_files: true,
            cache: true,
            network: crate::install::NetworkConfig::default(),
            registry: crate::install::RegistryConfig::default(),
            github: crate::install::GithubConfig::default(),
            runtime: crate::runtime::RuntimeConfig::default(),
            audit: crate::audit::AuditConfig::default(),
            read_only: false,
            read_command: None,
            install_root: None,
            last_good: crate::watch::LastGood::default(),
        }
    }
}

/// When a workspace counts as trusted.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum TrustPolicy {
    /// Trusted when the user's record (`<home>/<app_dir>/trusted-workspaces.json`) holds the
    /// workspace's canonical path and folder identity. `marker`, the old name (when a file in
    /// the workspace decided), is read as this.
    #[default]
    #[serde(alias = "marker")]
    User,
    /// Always trusted (an embedding core that decided itself).
    Always,
    /// Never trusted.
    Never,
}

/// Which symlinked directories discovery follows.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SymlinkPolicy {
    /// Only those whose canonical target lies inside a configured root.
    #[default]
    WithinRoots,
    /// None.
    Never,
    /// All of them (loops are still detected).
    Always,
}

/// Limits of one discovery scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct DiscoveryLimits {
    /// Levels of category folders below a root.
    pub max_depth: usize,
    /// Folders listed per root (category folders, and skill folders whose definition file is
    /// not named exactly `SKILL.md`); a skill folder found by its `SKILL.md` does not count.
    pub max_dirs_per_root: usize,
    /// Largest definition file loaded.
    pub max_skill_md_bytes: u64,
}

impl Default for DiscoveryLimits {
    fn default() -> Self {
        Self {
            max_depth: MAX_DISCOVERY_DEPTH,
            max_dirs_per_root: MAX_DIRS_PER_ROOT,
            max_skill_md_bytes: MAX_SKILL_MD_BYTES,
        }
    }
}

/// What a permission rule grants.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Permission {
    /// Listed and usable.
    #[default]
    Allow,
    /// Listed, flagged so the core asks the user first.
    Ask,
    /// Hidden from the catalog; reads are refused.
    Deny,
}

/// One `pattern -> permission` rule; `*` and `?` are wildcards over skill names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PermissionRule {
    /// The name pattern.
    pub pattern: String,
    /// What matching skills get.
    pub permission: Permission,
}

/// A permission verdict: `deny` is stricter than `ask`, `ask` than `allow` (the home's and a
/// workspace's verdicts combine to the stricter).
impl crate::runtime::Strictness for Permission {
    fn rank(self) -> u8 {
        match self {
            Self::Allow => 0,
            Self::Ask => 1,
            Self::Deny => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_app_dir_is_one_plain_folder_name() {
        for good in [
            ".openhuman",
            ".mycore",
            "app",
            "a.b",
            "..x",
            "x..",
            "-",
            "名前",
        ] {
            assert_eq!(check_app_dir(good), Ok(()), "{good:?}");
        }
        let long = "a".repeat(MAX_APP_DIR_BYTES + 1);
        let refused = [
            ("", "empty"),
            (".", "itself or its parent"),
            ("..", "itself or its parent"),
            ("../x", "separator"),
            ("x/..", "separator"),
            ("a/b", "separator"),
            ("/etc", "separator"),
            ("/", "separator"),
            ("x/", "separator"),
            ("./x", "separator"),
            ("..\\x", "separator"),
            ("C:\\x", "separator"),
            ("x\0y", "NUL"),
            ("x\ny", "control"),
            ("x\u{1b}[31m", "control"),
            ("x\u{202e}y", "control or format"),
            ("x\u{200b}", "control or format"),
            (long.as_str(), "too long"),
        ];
        for (name, reason) in refused {
            let error = check_app_dir(name).expect_err(name);
            assert!(error.reason.contains(reason), "{name:?}: {}", error.reason);
            let message = error.to_string();
            assert!(message.contains("one plain folder name"), "{message}");
            assert!(
                !message.contains(['\0', '\n', '\u{1b}', '\u{202e}']),
                "{message:?}"
            );
        }
    }
}
