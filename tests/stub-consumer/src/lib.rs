//! A stand-in for an agent core built with the skills subsystem turned off: it depends on
//! `skills` with `default-features = false` from outside the workspace, so no other crate's
//! features can switch the subsystem back on (06 §CI step 5).
//!
//! The code below is what an agent core writes against the facade; it must compile unchanged
//! against the stub, and every call must answer `Error::Disabled` instead of touching the disk.

use std::path::Path;

use skills::validate::{Options, Profile, Report};
use skills::{Error, SkillDocument};

/// Loads the skill in `dir`, the way an agent core reads one before offering it to a model.
pub fn load_skill(dir: &Path) -> Result<SkillDocument, Error> {
    let file = skills::load::find_definition(dir)?;
    skills::load::load_document(&file)
}

/// Lints every skill below `root` against the agentskills.io rules; `true` when all pass.
pub fn all_valid(root: &Path) -> Result<bool, Error> {
    let options = Options::new(Profile::Agentskills);
    let reports = skills::validate::validate_tree(root, &options)?;
    Ok(reports
        .into_iter()
        .all(|report: Result<Report, Error>| report.is_ok_and(|report| report.valid)))
}

/// The catalog block an agent core puts in its system prompt: empty when skills are off.
pub fn system_prompt_block(workspace: &Path, home: &Path) -> Result<String, Error> {
    let skills = skills::Skills::new(skills::SkillsConfig::new(workspace, home));
    let options = skills::render::Options::new(skills::render::Format::Xml);
    Ok(skills.render_catalog(&options)?.text)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use skills::Error;
    use skills::validate::{Options, Profile};

    fn assert_disabled<T: std::fmt::Debug>(result: Result<T, Error>) {
        match result {
            Err(error) => assert_eq!(error.kind(), "disabled", "{error}"),
            Ok(value) => panic!("the stub answered Ok({value:?})"),
        }
    }

    #[test]
    fn the_stub_is_compiled() {
        assert!(!skills::ENABLED);
    }

    #[test]
    fn the_catalog_is_empty_and_mutations_are_disabled() {
        let workspace = Path::new("/nonexistent/workspace");
        let home = Path::new("/nonexistent/home");
        assert_eq!(super::system_prompt_block(workspace, home).unwrap(), "");
        let skills = skills::Skills::new(skills::SkillsConfig::new(workspace, home));
        assert!(skills.discover().unwrap().skills.is_empty());
        assert!(!skills.is_trusted());
        assert_disabled(skills.trust(workspace));
        assert_disabled(skills.revoke_trust(workspace));
        assert_disabled(skills.trusted_workspaces());
        assert_disabled(skills.get("pdf-tools"));
        assert_disabled(skills.sync_agents_md(&skills::render::SyncOptions::default()));
    }

    #[test]
    fn every_call_is_disabled() {
        // Paths that exist nowhere: the stub must not look at the filesystem to answer.
        let dir = Path::new("/nonexistent/skills/pdf-tools");
        let file = dir.join("SKILL.md");
        let options = Options::new(Profile::Agentskills);
        let bytes = b"---\nname: pdf-tools\ndescription: Reads PDFs.\n---\nBody\n";

        assert_disabled(skills::validate::validate_path(dir, &options));
        assert_disabled(skills::validate::validate_tree(dir, &options));
        assert_disabled(skills::validate::validate_bytes(&file, bytes, &options));
        assert_disabled(skills::load::load_document(&file));
        assert_disabled(skills::load::parse_document(&file, bytes));
        assert_disabled(skills::load::find_definition(dir));
    }

    #[test]
    fn agent_core_code_gets_disabled() {
        let dir = Path::new("/nonexistent/skills/pdf-tools");
        assert_disabled(super::load_skill(dir));
        assert_disabled(super::all_valid(dir));
    }
}
