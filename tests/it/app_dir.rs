//! `--app-dir` and `SkillsConfig::app_dir` (02 §Configuration): the name is joined onto the
//! home and the workspace, so anything but one plain folder name (`../x`, `/tmp/x`, `a/b`,
//! `.`, an empty name) would move the trust record, `skills.toml`, the caches and new skills
//! outside both. The binary refuses it as a usage error before doing anything, the library
//! refuses every call, and nothing is written anywhere.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use skills::manage::CreateSkill;
use skills::{Error, Skills};

use crate::discovery::Tree;

/// Names that are not one normal path component. `{base}` is replaced by the tree's base
/// folder, so the absolute case points into the test's own folder.
const REFUSED: [&str; 9] = [
    "../x",
    "..",
    ".",
    "",
    "a/b",
    "x/..",
    "..\\x",
    "{base}/outside",
    "x\u{1b}]0;title\u{7}",
];

/// Every path under `dir`, so a test can prove nothing was created anywhere.
fn everything_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.is_symlink() {
                pending.push(path.clone());
            }
            found.insert(path);
        }
    }
    found
}

#[test]
fn the_binary_refuses_an_app_dir_that_is_not_one_folder_name() {
    let tree = Tree::new();
    let before = everything_under(&tree.base);
    let commands: [&[&str]; 6] = [
        &["new", "escaper", "-d", "Writes outside."],
        &["trust"],
        &["list"],
        &["sync"],
        &["install", "https://example.com/SKILL.md"],
        &["registry", "browse"],
    ];
    for name in REFUSED {
        let name = name.replace("{base}", &tree.base.display().to_string());
        for command in commands {
            let mut args = vec!["--app-dir", name.as_str()];
            args.extend_from_slice(command);
            let run = tree.run(&args);
            assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
            assert!(run.stdout.is_empty(), "{args:?}: {run:?}");
            assert!(
                run.stderr.contains("--app-dir") && run.stderr.contains("one plain folder name"),
                "{args:?}: {run:?}"
            );
            assert!(
                !run.stderr.contains(['\u{1b}', '\u{7}']),
                "the name is shown sanitised: {run:?}"
            );
        }
    }
    assert_eq!(everything_under(&tree.base), before, "nothing was written");
}

#[test]
fn the_binary_still_takes_a_plain_app_dir() {
    let tree = Tree::new();
    tree.run(&[
        "--app-dir",
        ".mycore",
        "new",
        "kept",
        "-d",
        "Stays home.",
        "--agent",
        "app",
    ])
    .ok();
    assert!(tree.home.join(".mycore/skills/kept/SKILL.md").is_file());
}

#[test]
fn the_library_refuses_every_call_with_such_an_app_dir() {
    let tree = Tree::new();
    let before = everything_under(&tree.base);
    for name in REFUSED {
        let mut config = tree.config();
        config.app_dir = name.replace("{base}", &tree.base.display().to_string());
        let skills = Skills::new(config);
        let refused = |result: Result<(), Error>, what: &str| match result {
            Err(Error::InvalidInput(message)) => {
                assert!(
                    message.contains("one plain folder name"),
                    "{what}: {message}"
                );
            }
            other => panic!("{name:?} {what}: {other:?}"),
        };
        refused(
            skills
                .create(&CreateSkill::new("escaper", "Writes outside."))
                .map(drop),
            "create",
        );
        refused(skills.discover().map(drop), "discover");
        refused(skills.list(&Default::default()).map(drop), "list");
        refused(skills.trust(&tree.workspace).map(drop), "trust");
        refused(skills.trusted_workspaces().map(drop), "trusted_workspaces");
        assert!(!skills.is_trusted(), "{name:?}");
    }
    assert_eq!(everything_under(&tree.base), before, "nothing was written");
}
