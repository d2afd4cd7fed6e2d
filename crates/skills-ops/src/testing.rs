//! Fixtures shared by the unit tests of several modules.

use std::path::PathBuf;

use skills_types::config::Permission;
use skills_types::{Frontmatter, Skill, SkillScope};

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
