//! How skills' scripts may be run: the `[runtime]` table of `skills.toml`.
//!
//! The security keys (`pass_env`, `sandbox`, `network`, `allow_inline`, `confirm`, the
//! interpreter paths, `managed_node`, `allow_install_scripts`, `writable`, `setup_network`)
//! are the user's: only the home `skills.toml` sets them. A workspace's file may tighten them and is told, key by key, when
//! it tries to loosen one, because a cloned repository can ship that file. Each setting knows
//! which of two values is the stricter, so the layering rule is written once. The sandbox's
//! helper program (`sandbox_helper`) is one of them: it runs before any sandbox exists.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// What a sandboxed run may write.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Writes only under the workspace and the run's own temporary folder: the default.
    #[default]
    WorkspaceWrite,
    /// Writes only to the run's own temporary folder.
    ReadOnly,
    /// No sandbox: the script may do what the user may.
    Off,
}

/// Whether a run may open network connections.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum NetworkMode {
    /// No network: no TCP connect or bind, and no new socket of any kind: the default.
    #[default]
    Deny,
    /// Connections allowed (files stay confined by the sandbox).
    Allow,
}

/// When a run needs the user's confirmation.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ConfirmMode {
    /// For skills whose permission is `ask` and for project skills: the default.
    #[default]
    Ask,
    /// For every run.
    Always,
    /// Never for `ask` skills (project skills still need it).
    Never,
}

/// A setting with an order of strictness, so a workspace's value is taken only when it is at
/// least as strict as the one already in force.
pub trait Strictness: Copy + PartialEq {
    /// A number that grows with strictness.
    fn rank(self) -> u8;

    /// Whether `self` is at least as strict as `other`.
    fn tightens(self, other: Self) -> bool {
        self.rank() >= other.rank()
    }
}

impl Strictness for SandboxMode {
    fn rank(self) -> u8 {
        match self {
            Self::Off => 0,
            Self::WorkspaceWrite => 1,
            Self::ReadOnly => 2,
        }
    }
}

impl Strictness for NetworkMode {
    fn rank(self) -> u8 {
        match self {
            Self::Allow => 0,
            Self::Deny => 1,
        }
    }
}

impl Strictness for ConfirmMode {
    fn rank(self) -> u8 {
        match self {
            Self::Never => 0,
            Self::Ask => 1,
            Self::Always => 2,
        }
    }
}

/// Where managed Node comes from when [`RuntimeConfig::node_dist`] says nothing.
pub const DEFAULT_NODE_DIST: &str = "https://nodejs.org/dist";
/// Default of [`RuntimeConfig::max_concurrent_runs`].
pub const DEFAULT_MAX_CONCURRENT_RUNS: usize = 4;
/// Default of [`RuntimeConfig::max_runs_per_minute`].
pub const DEFAULT_MAX_RUNS_PER_MINUTE: usize = 60;

/// The `[runtime]` settings in force.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
#[non_exhaustive]
pub struct RuntimeConfig {
    /// Variables outside the allowlist that reach a script (`pass_env = ["GITHUB_TOKEN"]`).
    pub pass_env: Vec<String>,
    /// What a run may write.
    pub sandbox: SandboxMode,
    /// Whether a run may open network connections.
    pub network: NetworkMode,
    /// Whether inline code (`node -e`, `python3 -c`, `sh -c`) may run.
    pub allow_inline: bool,
    /// When a run needs confirmation.
    pub confirm: ConfirmMode,
    /// Whether dependency installs may run packages' install scripts.
    pub allow_install_scripts: bool,
    /// The `node` to use instead of the one on `PATH`.
    #[schemars(with = "Option<String>")]
    pub node: Option<PathBuf>,
    /// The `npm` to use instead of the one on `PATH`.
    #[schemars(with = "Option<String>")]
    pub npm: Option<PathBuf>,
    /// The `python3` to use instead of the one on `PATH`.
    #[schemars(with = "Option<String>")]
    pub python: Option<PathBuf>,
    /// The `sh` to use instead of the one on `PATH`.
    #[schemars(with = "Option<String>")]
    pub sh: Option<PathBuf>,
    /// A Node major version to download when no compatible `node` is found (opt-in).
    pub managed_node: Option<String>,
    /// Where managed Node is downloaded from: the base holding `index.json`, `SHASUMS256.txt`
    /// and the tarballs of each release (`https://nodejs.org/dist`, the default, when `None`).
    pub node_dist: Option<String>,
    /// Most runs at once per handle.
    pub max_concurrent_runs: usize,
    /// Most runs started per minute per handle.
    pub max_runs_per_minute: usize,
    /// Folders a sandboxed run may write besides the workspace and its temporary folder
    /// (`writable = ["~/out"]`), granted under `workspace-write` by the same layers that
    /// confine every other write: a way to let a skill write its output somewhere without
    /// turning the sandbox off. Absolute (`~/` resolved against the home) when read from a
    /// file.
    #[schemars(with = "Vec<String>")]
    pub writable: Vec<PathBuf>,
    /// Whether the setup of a skill's dependencies (`skills setup NAME`: a Python
    /// environment, `pip install`, `npm install`) may reach the network. The user asked for
    /// the setup, and package managers fetch packages, so the default is `allow`; runs of the
    /// skill keep [`RuntimeConfig::network`].
    pub setup_network: NetworkMode,
    /// The program that applies the sandbox and then execs the interpreter: one whose `main`
    /// calls `skills::run::sandbox_main()` first (the `skills` binary does). Unset: this
    /// program itself, when it called `sandbox_main()`; otherwise sandboxed runs are refused.
    #[schemars(with = "Option<String>")]
    pub sandbox_helper: Option<PathBuf>,
    /// Tests only: the highest Landlock ABI the runtime may use, below what the kernel has,
    /// to prove an older kernel is refused rather than run with less. It can only make runs
    /// stricter (refused), never looser. The command line fills it from
    /// `SKILLS_TEST_LANDLOCK_ABI`; never read from a configuration file.
    #[doc(hidden)]
    #[serde(skip)]
    #[schemars(skip)]
    pub landlock_abi_ceiling: Option<u8>,
    /// Tests only: treat the machine as one that forbids unprivileged user namespaces, to
    /// prove such a machine refuses sandboxed runs rather than run them with fewer layers.
    /// Like the ceiling above it can only refuse more. The command line fills it from
    /// `SKILLS_TEST_NO_USER_NAMESPACES`; never read from a configuration file.
    #[doc(hidden)]
    #[serde(skip)]
    #[schemars(skip)]
    pub simulate_no_user_namespaces: bool,
    /// The environment a run's child environment is drawn from: the allowlist and
    /// `pass_env` take their values from here, and interpreters are looked up on its `PATH`.
    /// The library never reads the process environment itself; the command line fills this
    /// from its own, and an agent core passes what it wants its scripts to be able to see
    /// (an empty list gives a child no `PATH`, so only configured interpreter paths work).
    /// Never read from a configuration file.
    #[serde(skip)]
    #[schemars(skip)]
    pub inherited_env: Vec<(String, String)>,
}

impl RuntimeConfig {
    /// The value of `name` in [`RuntimeConfig::inherited_env`] (the last one when repeated).
    pub fn inherited(&self, name: &str) -> Option<&str> {
        self.inherited_env
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            pass_env: Vec::new(),
            sandbox: SandboxMode::default(),
            network: NetworkMode::default(),
            allow_inline: false,
            confirm: ConfirmMode::default(),
            allow_install_scripts: false,
            node: None,
            npm: None,
            python: None,
            sh: None,
            managed_node: None,
            node_dist: None,
            max_concurrent_runs: DEFAULT_MAX_CONCURRENT_RUNS,
            max_runs_per_minute: DEFAULT_MAX_RUNS_PER_MINUTE,
            writable: Vec::new(),
            setup_network: NetworkMode::Allow,
            sandbox_helper: None,
            landlock_abi_ceiling: None,
            simulate_no_user_namespaces: false,
            inherited_env: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strictness_orders_every_setting() {
        assert!(SandboxMode::ReadOnly.tightens(SandboxMode::WorkspaceWrite));
        assert!(SandboxMode::WorkspaceWrite.tightens(SandboxMode::Off));
        assert!(!SandboxMode::Off.tightens(SandboxMode::WorkspaceWrite));
        assert!(NetworkMode::Deny.tightens(NetworkMode::Allow));
        assert!(!NetworkMode::Allow.tightens(NetworkMode::Deny));
        assert!(ConfirmMode::Always.tightens(ConfirmMode::Ask));
        assert!(!ConfirmMode::Never.tightens(ConfirmMode::Ask));
        assert!(ConfirmMode::Ask.tightens(ConfirmMode::Ask));
    }

    #[test]
    fn the_defaults_are_the_strict_ones_of_the_spec() {
        let config = RuntimeConfig::default();
        assert_eq!(config.sandbox, SandboxMode::WorkspaceWrite);
        assert_eq!(config.network, NetworkMode::Deny);
        assert!(!config.allow_inline && !config.allow_install_scripts);
        assert!(config.pass_env.is_empty() && config.writable.is_empty());
        // The setup of dependencies is asked for by the user, and fetches packages.
        assert_eq!(config.setup_network, NetworkMode::Allow);
        assert_eq!(
            (config.max_concurrent_runs, config.max_runs_per_minute),
            (4, 60)
        );
    }
}
