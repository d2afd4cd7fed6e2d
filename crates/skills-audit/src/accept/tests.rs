//! Acceptances: bound to a folder and a digest, failing closed, written only when needed.

use skills_types::audit::{Request, Severity};

use super::*;
use crate::Options;
use crate::testing::{BIDI, Tree};

fn accepted_file(tree: &Tree) -> PathBuf {
    tree.home.join(".openhuman").join(ACCEPTED_FILE)
}

fn first(tree: &Tree) -> Report {
    crate::audit(&tree.config(), &Request::new())
        .unwrap()
        .results
        .remove(0)
}

#[test]
fn an_acceptance_stops_blocking_until_a_byte_changes() {
    let tree = Tree::new();
    let dir = tree.skill("hiding", &format!("Reads {BIDI}files."));
    assert!(!first(&tree).is_safe);
    let accepted = accept(&tree.config(), "hiding").unwrap();
    assert!(accepted.recorded);
    assert_eq!(accepted.rules, ["HIDDEN_BIDI_CONTROL"]);
    assert_eq!(accepted.findings.len(), 1);
    assert_eq!(accepted.skill_path, std::fs::canonicalize(&dir).unwrap());
    let report = first(&tree);
    assert!(report.is_safe, "{report:?}");
    assert_eq!(report.accepted, ["HIDDEN_BIDI_CONTROL"]);
    assert_eq!(report.digest, accepted.digest);
    // One byte more: another digest, which nothing accepts.
    tree.skill("hiding", &format!("Reads {BIDI}files!"));
    let report = first(&tree);
    assert!(!report.is_safe && report.accepted.is_empty(), "{report:?}");
}

#[test]
fn accepting_a_clean_skill_writes_nothing() {
    let tree = Tree::new();
    tree.skill("clean", "Reads files.");
    let accepted = accept(&tree.config(), "clean").unwrap();
    assert!(!accepted.recorded && accepted.rules.is_empty());
    assert!(!accepted_file(&tree).exists());
}

#[test]
fn an_acceptance_covers_the_lowest_threshold_in_force() {
    let tree = Tree::new();
    tree.skill("hiding", &format!("Reads {BIDI}files."));
    tree.home_config("[audit]\nfail_on = \"critical\"\nask_on = \"critical\"\n");
    // The bidi finding is high: below every threshold, nothing to accept.
    assert!(!accept(&tree.config(), "hiding").unwrap().recorded);
    tree.home_config("[audit]\nask_on = \"low\"\n");
    assert!(accept(&tree.config(), "hiding").unwrap().recorded);
}

#[test]
fn a_broken_file_accepts_nothing_and_is_not_written_over() {
    let tree = Tree::new();
    tree.skill("hiding", &format!("Reads {BIDI}files."));
    accept(&tree.config(), "hiding").unwrap();
    assert!(first(&tree).is_safe);
    let file = accepted_file(&tree);
    std::fs::write(&file, "{\"version\": 1, \"skills\": [").unwrap();
    assert!(!first(&tree).is_safe, "a broken file accepts nothing");
    let error = accept(&tree.config(), "hiding").unwrap_err();
    assert_eq!(error.kind(), "state_file_invalid", "{error}");
    assert!(error.to_string().contains(ACCEPTED_FILE), "{error}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\"version\": 1, \"skills\": ["
    );
    // Another version is as broken as bad JSON.
    std::fs::write(&file, "{\"version\": 9, \"skills\": []}").unwrap();
    assert!(accept(&tree.config(), "hiding").is_err());
}

#[test]
fn the_configuration_accepts_a_rule_for_every_skill() {
    let tree = Tree::new();
    tree.skill("hiding", &format!("Reads {BIDI}files."));
    tree.home_config("[audit]\naccepted = [\"HIDDEN_BIDI_CONTROL\"]\n");
    let report = first(&tree);
    assert!(report.is_safe);
    assert_eq!(report.accepted, ["HIDDEN_BIDI_CONTROL"]);
}

#[test]
fn an_acceptance_is_bound_to_its_folder() {
    let tree = Tree::new();
    let dir = tree.skill("hiding", &format!("Reads {BIDI}files."));
    accept(&tree.config(), "hiding").unwrap();
    let acceptances = Acceptances::read(&tree.config());
    let mut report = scan_dir(&dir, &Options::new()).unwrap();
    let settings = AuditConfig::default();
    acceptances.apply(&mut report, &key_of(&dir), &settings, Severity::High);
    assert!(report.is_safe);
    // The same files in another folder are not accepted there.
    let copy = tree.workspace.join("copy");
    crate::testing::write(
        &copy.join("SKILL.md"),
        &std::fs::read_to_string(dir.join("SKILL.md")).unwrap(),
    );
    let mut report = scan_dir(&copy, &Options::new()).unwrap();
    acceptances.apply(&mut report, &key_of(&copy), &settings, Severity::High);
    assert!(!report.is_safe);
}

#[test]
fn a_folder_not_yet_written_is_keyed_below_its_resolved_parent() {
    let tree = Tree::new();
    let link = tree.workspace.join("link");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&tree.home, &link).unwrap();
        assert_eq!(key_of(&link.join("new-skill")), tree.home.join("new-skill"));
    }
    assert_eq!(key_of(&tree.home), tree.home);
}
