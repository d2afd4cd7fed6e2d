//! Records the unit tests of several crates build alike: a skill with an id and triggers,
//! and nothing else that matters (the bus's index and subscriber, the live catalog's
//! publisher).

use std::path::PathBuf;

use skills_types::config::Permission;
use skills_types::{Frontmatter, Skill, SkillScope};

/// A user skill with this id (also its name) and these triggers, in a home `/home/u`.
pub fn skill(id: &str, triggers: &[&str]) -> Skill {
    let frontmatter = Frontmatter {
        name: id.to_owned(),
        description: format!("The {id} skill.").into(),
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
