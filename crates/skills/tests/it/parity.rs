//! Stub parity (06 §Stub parity): every public function of the facade, pinned as a typed
//! function pointer. This file compiles only if the real crates and the stub agree on every
//! signature, and CI builds it in both feature directions, so a signature that drifts on one
//! side breaks the build instead of an agent core's.

use std::path::{Path, PathBuf};

use skills::validate::{Options, Profile, Report};
use skills::{Error, SkillDocument};

const _: fn(&Path) -> Result<PathBuf, Error> = skills::load::find_definition;
const _: fn(&Path) -> Result<SkillDocument, Error> = skills::load::load_document;
const _: fn(&Path, &[u8]) -> Result<SkillDocument, Error> = skills::load::parse_document;
const _: fn(&Path, &Options) -> Result<Report, Error> = skills::validate::validate_path;
const _: fn(&Path, &[u8], &Options) -> Result<Report, Error> = skills::validate::validate_bytes;
#[expect(
    clippy::type_complexity,
    reason = "each signature is spelled out in full, so a drift shows in the diff"
)]
const _: fn(&Path, &Options) -> Result<Vec<Result<Report, Error>>, Error> =
    skills::validate::validate_tree;

const fn assert_send_sync<T: Send + Sync>() {}
const _: () = {
    assert_send_sync::<Error>();
    assert_send_sync::<SkillDocument>();
    assert_send_sync::<Report>();
    assert_send_sync::<Options>();
    assert_send_sync::<skills::SkillsConfig>();
    assert_send_sync::<skills::ToolResult>();
};

/// CI runs each direction with `SKILLS_EXPECT_ENABLED` set, so a feature-unification accident
/// (some other crate turning the feature back on) cannot silently test the wrong side.
#[test]
fn enabled_matches_the_mode_ci_asked_for() {
    let expected = std::env::var("SKILLS_EXPECT_ENABLED").unwrap_or_else(|_| {
        // Run by hand: the best available truth is how this test crate was compiled.
        if cfg!(feature = "skills") { "1" } else { "0" }.to_owned()
    });
    assert_eq!(
        skills::ENABLED,
        expected == "1",
        "SKILLS_EXPECT_ENABLED={expected}"
    );
}

#[expect(
    clippy::unwrap_used,
    reason = "test setup: a fixture that cannot be written ends the test"
)]
fn write_skill(root: &Path) -> PathBuf {
    let dir = root.join("pdf-tools");
    std::fs::create_dir(&dir).unwrap();
    let file = dir.join("SKILL.md");
    std::fs::write(
        &file,
        "---\nname: pdf-tools\ndescription: Reads PDFs.\n---\nBody\n",
    )
    .unwrap();
    file
}

#[test]
fn each_side_behaves_as_documented() {
    let root = tempfile::tempdir().unwrap();
    let file = write_skill(root.path());
    let dir = file.parent().unwrap();
    let options = Options::new(Profile::Agentskills);
    if skills::ENABLED {
        assert_eq!(skills::load::find_definition(dir).unwrap(), file);
        assert_eq!(
            skills::load::load_document(&file).unwrap().frontmatter.name,
            "pdf-tools"
        );
        assert!(skills::load::parse_document(&file, b"---\nname: a\n---\n").is_ok());
        assert!(
            skills::validate::validate_path(dir, &options)
                .unwrap()
                .valid
        );
        let bytes = b"---\nname: Other\ndescription: d\n---\n";
        assert!(
            !skills::validate::validate_bytes(&file, bytes, &options)
                .unwrap()
                .valid
        );
        assert_eq!(
            skills::validate::validate_tree(root.path(), &options)
                .unwrap()
                .len(),
            1
        );
    } else {
        let disabled = |error: Error| assert_eq!(error.kind(), "disabled");
        disabled(skills::load::find_definition(dir).unwrap_err());
        disabled(skills::load::load_document(&file).unwrap_err());
        disabled(skills::load::parse_document(&file, b"").unwrap_err());
        disabled(skills::validate::validate_path(dir, &options).unwrap_err());
        disabled(skills::validate::validate_bytes(&file, b"", &options).unwrap_err());
        disabled(skills::validate::validate_tree(root.path(), &options).unwrap_err());
    }
}
