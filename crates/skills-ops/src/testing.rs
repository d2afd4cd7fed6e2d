//! Fixtures shared by the unit tests of several modules.

use std::path::PathBuf;

use skills_types::config::Permission;
use skills_types::{Frontmatter, Skill, SkillScope, SkillsConfig};

/// A skill record at a fake absolute path `/skills/<scope>/<name>`, as discovery would build it.
pub(crate) fn skill(name: &str, description: &str, scope: SkillScope) -> Skill {
    let dir = PathBuf::from(format!("/skills/{}/{name}", scope.as_str()));
    Skill {
        id: name.to_owned(),
        name: name.to_owned(),
        description: description.to_owned(),
        scope,
        root: PathBuf::from(format!("/skills/{}", scope.as_str())),
        location: dir.join("SKILL.md"),
        dir,
        frontmatter: Frontmatter {
            name: name.to_owned(),
            description: description.to_owned(),
            ..Frontmatter::default()
        },
        when_to_use: None,
        inputs: Vec::new(),
        resources: None,
        diagnostics: Vec::new(),
        shadowed: Vec::new(),
        permission: Permission::Allow,
    }
}

/// A temporary home and workspace; modules add the helpers they need in their own `impl`.
pub(crate) struct Tree {
    _dir: tempfile::TempDir,
    pub(crate) home: PathBuf,
    pub(crate) workspace: PathBuf,
}

impl Tree {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        Self {
            _dir: dir,
            home,
            workspace,
        }
    }

    /// The defaults, without the catalog cache (each test sees the tree as it is now).
    pub(crate) fn config(&self) -> SkillsConfig {
        let mut config = SkillsConfig::new(&self.workspace, &self.home);
        config.cache = false;
        config
    }
}
