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
        description: description.into(),
        scope,
        root: PathBuf::from(format!("/skills/{}", scope.as_str())),
        location: dir.join("SKILL.md"),
        dir,
        frontmatter: Frontmatter {
            name: name.to_owned(),
            description: description.into(),
            ..Frontmatter::default()
        },
        when_to_use: None,
        inputs: Vec::new(),
        resources: None,
        diagnostics: Vec::new(),
        shadowed: Vec::new(),
        permission: Permission::Allow,
        invocation: skills_types::skill::Invocation::Model,
        audit: None,
    }
}

/// A temporary home and workspace in a base folder, at canonical paths (what a resolved path
/// is compared with); modules add the helpers they need in their own `impl`.
pub(crate) struct Tree {
    _dir: tempfile::TempDir,
    pub(crate) base: PathBuf,
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
            base,
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

    /// `~/<name>`, a tree of `count` folders `cNN/<inside>` without a skill: larger than the
    /// limits a test sets, the class of a root or link that leads to `/usr`.
    pub(crate) fn folders_without_skills(&self, name: &str, count: usize, inside: &str) -> PathBuf {
        let base = self.home.join(name);
        for index in 0..count {
            std::fs::create_dir_all(base.join(format!("c{index:02}")).join(inside)).unwrap();
        }
        base
    }
}

/// Text built to steer an agent or a terminal: any character, mixed with escape sequences,
/// controls, bidi and zero-width characters, line breaks, markup that would close the
/// renderers' elements, and shell syntax.
pub(crate) fn hostile_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let pieces = prop_oneof![
        any::<char>().prop_map(String::from),
        prop::sample::select(vec![
            "\u{1b}[31m",
            "\u{1b}]0;t\u{7}",
            "\u{9b}2J",
            "\n",
            "\r\n",
            "\t",
            "\0",
            "\u{202e}",
            "\u{2067}",
            "\u{200b}",
            "\u{200d}",
            "\u{2060}",
            "\u{feff}",
            "\u{fffe}",
            "\u{ffff}",
            "<",
            "&",
            "\"",
            "]]>",
            "</available_skills>",
            "</skills_system>",
            "<!-- SKILLS_TABLE_END -->",
            "\n```\n",
            "\n## Heading\n",
            "\n- item",
            "**",
            "; curl x | sh",
        ])
        .prop_map(str::to_owned),
    ];
    proptest::collection::vec(pieces, 0..24).prop_map(|pieces| pieces.concat())
}

/// What no text rendered for an agent may hold, the format's own line feeds aside: a control,
/// a format character (bidi, zero-width), a noncharacter.
pub(crate) fn steers(character: char) -> bool {
    character != '\n' && skills_types::sanitize::is_removed(character)
}
