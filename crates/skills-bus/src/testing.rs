//! What the unit tests of the index and the subscriber share: a skill record with an id and
//! triggers, and nothing else that matters.

use std::path::PathBuf;

use skills_types::config::Permission;
use skills_types::{Frontmatter, Skill, SkillScope};

/// A skill with this id (also its name) and these triggers.
pub(crate) fn skill(id: &str, triggers: &[&str]) -> Skill {
    let frontmatter = Frontmatter {
        name: id.to_owned(),
        description: format!("The {id} skill."),
        triggers: triggers.iter().map(|text| (*text).to_owned()).collect(),
        ..Frontmatter::default()
    };
    Skill {
        id: id.to_owned(),
        name: id.to_owned(),
        description: frontmatter.description.clone(),
        scope: SkillScope::User,
        root: PathBuf::from("/home/u/.openhuman/skills"),
        location: PathBuf::from(format!("/home/u/.openhuman/skills/{id}/SKILL.md")),
        dir: PathBuf::from(format!("/home/u/.openhuman/skills/{id}")),
        frontmatter,
        when_to_use: None,
        inputs: Vec::new(),
        resources: None,
        diagnostics: Vec::new(),
        shadowed: Vec::new(),
        permission: Permission::default(),
        invocation: skills_types::skill::Invocation::Model,
        audit: None,
    }
}
