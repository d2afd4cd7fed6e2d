//! Discovery end to end (02 §Configuration through §Rendering the catalog, 05): temporary
//! homes and workspaces driven through both the library (`skills::Skills`) and the built
//! `skills` binary, so every acceptance rule is shown to hold for an agent core and for a
//! person at a terminal alike.
//!
//! Each submodule covers one rule set; this file holds the shared fixture, [`Tree`]: a
//! canonical temporary directory with `home/` and `ws/`, the named roots of 02 §Scopes and
//! roots, and helpers that run the library or the binary against it.

mod agreement;
mod determinism;
pub(crate) mod hostile;
mod malformed;
mod output;
mod outside_scope;
mod permissions;
mod precedence;
mod prompt;
mod recreated;
mod shadow_notes;
mod symlinks;
mod sync;
mod trust;

use std::path::{Path, PathBuf};

use serde_json::Value;
use skills::{SkillScope, Skills, SkillsConfig};

/// The profile id the tests use when a profile root is involved.
pub(crate) const PROFILE: &str = "dev";

/// One of the roots of 02 §Scopes and roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// `<ws>/skills`
    Legacy,
    /// `~/.openhuman/skills`
    UserOpenhuman,
    /// `~/.agents/skills`
    UserAgents,
    /// `~/.agent/skills` (where `openskills --universal` installs)
    UserAgent,
    /// `~/.claude/skills`
    UserClaude,
    /// `<ws>/.openhuman/skills`
    ProjectOpenhuman,
    /// `<ws>/.agents/skills`
    ProjectAgents,
    /// `<ws>/.agent/skills`
    ProjectAgent,
    /// `<ws>/.claude/skills`
    ProjectClaude,
    /// `<ws>/personalities/dev/skills`
    Profile,
}

impl Place {
    /// Every root, highest precedence first: the order discovery scans them in.
    pub(crate) const IN_PRECEDENCE_ORDER: [Place; 10] = [
        Place::Profile,
        Place::ProjectOpenhuman,
        Place::ProjectAgents,
        Place::ProjectAgent,
        Place::ProjectClaude,
        Place::UserOpenhuman,
        Place::UserAgents,
        Place::UserAgent,
        Place::UserClaude,
        Place::Legacy,
    ];

    pub(crate) fn scope(self) -> SkillScope {
        match self {
            Place::Legacy => SkillScope::Legacy,
            Place::UserOpenhuman | Place::UserAgents | Place::UserAgent | Place::UserClaude => {
                SkillScope::User
            }
            Place::ProjectOpenhuman
            | Place::ProjectAgents
            | Place::ProjectAgent
            | Place::ProjectClaude => SkillScope::Project,
            Place::Profile => SkillScope::Profile,
        }
    }
}

/// A temporary home and workspace, at a canonical path so the paths discovery reports are
/// the paths the test built.
pub(crate) struct Tree {
    _dir: tempfile::TempDir,
    pub(crate) base: PathBuf,
    pub(crate) home: PathBuf,
    pub(crate) workspace: PathBuf,
}

/// What one run of the binary produced.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// Asserts a zero exit status and returns stdout parsed as JSON.
    pub(crate) fn json(&self) -> Value {
        assert_eq!(self.code, Some(0), "{self:?}");
        serde_json::from_str(&self.stdout).unwrap_or_else(|error| panic!("{error}: {self:?}"))
    }

    /// Asserts a zero exit status and returns stdout.
    pub(crate) fn ok(&self) -> &str {
        assert_eq!(self.code, Some(0), "{self:?}");
        &self.stdout
    }
}

impl Tree {
    pub(crate) fn new() -> Self {
        Self::new_in(&std::env::temp_dir())
    }

    /// [`Tree::new`] in a temporary folder below `parent`, for a test that needs a given
    /// file system.
    pub(crate) fn new_in(parent: &Path) -> Self {
        let dir = tempfile::tempdir_in(parent).unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let home = base.join("home");
        let workspace = base.join("ws");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        Self {
            _dir: dir,
            base,
            home,
            workspace,
        }
    }

    pub(crate) fn root(&self, place: Place) -> PathBuf {
        match place {
            Place::Legacy => self.workspace.join("skills"),
            Place::UserOpenhuman => self.home.join(".openhuman/skills"),
            Place::UserAgents => self.home.join(".agents/skills"),
            Place::UserAgent => self.home.join(".agent/skills"),
            Place::UserClaude => self.home.join(".claude/skills"),
            Place::ProjectOpenhuman => self.workspace.join(".openhuman/skills"),
            Place::ProjectAgents => self.workspace.join(".agents/skills"),
            Place::ProjectAgent => self.workspace.join(".agent/skills"),
            Place::ProjectClaude => self.workspace.join(".claude/skills"),
            Place::Profile => self
                .workspace
                .join("personalities")
                .join(PROFILE)
                .join("skills"),
        }
    }

    /// Writes `<root>/<relative>/SKILL.md` declaring `name` and `description`; returns the
    /// file's path.
    pub(crate) fn skill(
        &self,
        place: Place,
        relative: &str,
        name: &str,
        description: &str,
    ) -> PathBuf {
        let text = format!(
            "---\nname: {name}\ndescription: {}\n---\n# {name}\n\nBody of {name}.\n",
            serde_json::to_string(description).unwrap()
        );
        self.write(&self.root(place).join(relative).join("SKILL.md"), text)
    }

    /// Writes `text` to `path`, creating its folders; returns the path.
    pub(crate) fn write(&self, path: &Path, text: impl AsRef<[u8]>) -> PathBuf {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        path.to_path_buf()
    }

    /// Writes `~/.openhuman/skills.toml`.
    pub(crate) fn user_config(&self, text: &str) {
        self.write(&self.home.join(".openhuman/skills.toml"), text);
    }

    /// Trusts the workspace through the library.
    pub(crate) fn trust(&self) {
        Skills::new(self.config()).trust(&self.workspace).unwrap();
    }

    /// The library's configuration for this tree: every default, no cache.
    pub(crate) fn config(&self) -> SkillsConfig {
        let mut config = SkillsConfig::new(&self.workspace, &self.home);
        config.cache = false;
        config
    }

    /// The library's handle, optionally with the `dev` profile.
    pub(crate) fn library(&self, profile: bool) -> Skills {
        let mut config = self.config();
        if profile {
            config.profile = Some(PROFILE.to_owned());
        }
        Skills::new(config)
    }

    /// Runs the binary on this tree with `args` after the global `--workspace` and `--home`.
    pub(crate) fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[])
    }

    /// Like [`Tree::run`], with extra environment variables.
    pub(crate) fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = skills_tests::skills();
        command
            .current_dir(&self.base)
            .arg("--workspace")
            .arg(&self.workspace)
            .arg("--home")
            .arg(&self.home)
            .args(args)
            .env_remove("COLUMNS");
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().unwrap();
        Run {
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    /// `text` with this tree's base directory replaced by `[TMP]`.
    pub(crate) fn redact(&self, text: &str) -> String {
        text.replace(&self.base.display().to_string(), "[TMP]")
    }
}

/// The display form of a path, as the JSON output spells it.
pub(crate) fn text(path: &Path) -> String {
    path.display().to_string()
}

/// The entries of a JSON array field.
pub(crate) fn array<'v>(value: &'v Value, field: &str) -> &'v [Value] {
    value[field].as_array().map_or(&[], Vec::as_slice)
}

/// The `name` of every entry of a JSON array field.
pub(crate) fn json_names(value: &Value, field: &str) -> Vec<String> {
    array(value, field)
        .iter()
        .map(|entry| entry["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The `code` of every diagnostic in a JSON array.
pub(crate) fn json_codes(diagnostics: &Value) -> Vec<String> {
    diagnostics
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .map(|diagnostic| diagnostic["code"].as_str().unwrap().to_owned())
        .collect()
}
