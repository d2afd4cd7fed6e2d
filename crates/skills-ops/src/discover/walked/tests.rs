//! The kept walk: taken after a burst inside known skill folders, with the same catalog a
//! full discovery makes; any other burst walks every root again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::discover::{discover, rediscover};
use crate::testing::Tree;

use super::Walked;

/// Writes `<dir>/SKILL.md` the way editors save: a temporary file renamed over it.
fn save(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let temporary = dir.join(".SKILL.md.tmp");
    std::fs::write(
        &temporary,
        format!("---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"),
    )
    .unwrap();
    std::fs::rename(&temporary, dir.join("SKILL.md")).unwrap();
}

fn paths<const N: usize>(paths: [PathBuf; N]) -> BTreeSet<PathBuf> {
    paths.into_iter().collect()
}

fn description<'a>(catalog: &'a skills_types::Catalog, name: &str) -> &'a str {
    &catalog
        .skills
        .iter()
        .find(|skill| skill.name == name)
        .unwrap_or_else(|| panic!("no {name}: {catalog:?}"))
        .description
}

#[test]
fn a_burst_inside_known_skill_folders_takes_the_last_walk() {
    let tree = Tree::new();
    let config = tree.config();
    let root = tree.home.join(".openhuman/skills");
    save(&root.join("pdf"), "pdf", "One.");
    save(&root.join("group/csv"), "csv", "Two.");
    let mut walked = Walked::default();
    rediscover(&config, &mut walked, &paths([root.join("pdf/SKILL.md")])).unwrap();
    assert!(!walked.reused(), "nothing to take yet");

    // A definition saved again.
    save(&root.join("pdf"), "pdf", "One, edited.");
    let catalog = rediscover(&config, &mut walked, &paths([root.join("pdf/SKILL.md")])).unwrap();
    assert!(walked.reused());
    assert_eq!(description(&catalog, "pdf"), "One, edited.");
    assert_eq!(catalog, discover(&config).unwrap());

    // A bundled file added to a skill in a category folder.
    let references = root.join("group/csv/references");
    std::fs::create_dir(&references).unwrap();
    std::fs::write(references.join("guide.md"), "A guide.").unwrap();
    let touched = paths([references.clone(), references.join("guide.md")]);
    let catalog = rediscover(&config, &mut walked, &touched).unwrap();
    assert!(walked.reused());
    assert_eq!(catalog, discover(&config).unwrap());
}

#[cfg(unix)]
#[test]
fn any_other_burst_walks_every_root_again() {
    let tree = Tree::new();
    let config = tree.config();
    let root = tree.home.join(".openhuman/skills");
    save(&root.join("pdf"), "pdf", "One.");
    save(&root.join("csv"), "csv", "Two.");
    let mut walked = Walked::default();
    let start = |walked: &mut Walked| {
        rediscover(&config, walked, &paths([root.join("pdf/SKILL.md")])).unwrap();
    };
    start(&mut walked);

    // A new skill folder: named outside every known one.
    save(&root.join("new"), "new", "Three.");
    let touched = paths([root.join("new"), root.join("new/SKILL.md")]);
    let catalog = rediscover(&config, &mut walked, &touched).unwrap();
    assert!(!walked.reused());
    assert_eq!(description(&catalog, "new"), "Three.");

    // A definition file removed: the folder is no skill now.
    start(&mut walked);
    std::fs::remove_file(root.join("new/SKILL.md")).unwrap();
    let catalog = rediscover(&config, &mut walked, &paths([root.join("new/SKILL.md")])).unwrap();
    assert!(!walked.reused());
    assert!(catalog.skills.iter().all(|skill| skill.name != "new"));

    // The folder itself named (removed or renamed), and a burst that named nothing.
    start(&mut walked);
    rediscover(&config, &mut walked, &paths([root.join("csv")])).unwrap();
    assert!(!walked.reused());
    start(&mut walked);
    rediscover(&config, &mut walked, &BTreeSet::new()).unwrap();
    assert!(!walked.reused());

    // A definition replaced by a link: not the common case, walked again.
    start(&mut walked);
    let elsewhere = tree.home.join("elsewhere.md");
    std::fs::copy(root.join("csv/SKILL.md"), &elsewhere).unwrap();
    std::fs::remove_file(root.join("csv/SKILL.md")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("csv/SKILL.md")).unwrap();
    let catalog = rediscover(&config, &mut walked, &paths([root.join("csv/SKILL.md")])).unwrap();
    assert!(!walked.reused());
    assert_eq!(catalog, discover(&config).unwrap());

    // Another root appeared: the plan differs, whatever the burst named.
    start(&mut walked);
    save(&tree.home.join(".agents/skills/lint"), "lint", "Four.");
    let catalog = rediscover(&config, &mut walked, &paths([root.join("pdf/SKILL.md")])).unwrap();
    assert!(!walked.reused());
    assert_eq!(description(&catalog, "lint"), "Four.");
}
