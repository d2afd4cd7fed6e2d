//! A home and a workspace with skills in them, for the tests of the modules that discover.

use std::path::{Path, PathBuf};

use skills_types::SkillsConfig;

/// A bidirectional override: the one rule on every build (`HIDDEN_BIDI_CONTROL`, high).
pub(crate) const BIDI: char = '\u{202e}';

pub(crate) struct Tree {
    _dir: tempfile::TempDir,
    pub(crate) home: PathBuf,
    pub(crate) workspace: PathBuf,
}

impl Tree {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let home = base.join("home");
        let workspace = base.join("ws");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        Self {
            _dir: dir,
            home,
            workspace,
        }
    }

    pub(crate) fn config(&self) -> SkillsConfig {
        let mut config = SkillsConfig::new(&self.workspace, &self.home);
        config.cache = false;
        config
    }

    /// A user skill named `name` whose body is `body`; its folder.
    pub(crate) fn skill(&self, name: &str, body: &str) -> PathBuf {
        let dir = self.home.join(".openhuman/skills").join(name);
        write(
            &dir.join("SKILL.md"),
            &format!("---\nname: {name}\ndescription: Does {name} things.\n---\n{body}\n"),
        );
        dir
    }

    /// The home `skills.toml`.
    pub(crate) fn home_config(&self, text: &str) {
        write(&self.home.join(".openhuman/skills.toml"), text);
    }
}

pub(crate) fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
