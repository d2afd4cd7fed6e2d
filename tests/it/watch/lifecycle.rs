//! One skill's life under a watch: added, its description changed, saved the way editors
//! save (a temporary file renamed over), renamed, broken mid-edit and fixed (its last valid version
//! kept meanwhile, never `removed`), removed; a skill that was never valid is reported and
//! never added; three hundred skills written at once are all reported and the watch goes on.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use super::{Change, Session, changed_ids, load_errors, save_atomically, since, skill_text};
use crate::discovery::{Place, Tree};

const ID: &str = "release-notes";

#[test]
fn a_skill_is_reported_added_changed_saved_atomically_renamed_and_removed() {
    let tree = Tree::new();
    std::fs::create_dir_all(tree.root(Place::UserOpenhuman)).unwrap();
    let mut watch = Session::json(&tree, &[]);
    let ready = watch.ready();
    assert_eq!(ready.skills, 0);
    let root = tree.root(Place::UserOpenhuman);
    assert!(
        ready.watching.iter().any(|path| Path::new(path) == root),
        "the user root is watched: {:?}",
        ready.watching
    );

    let folder = root.join(ID);
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        skill_text(ID, "Drafts release notes."),
    )
    .unwrap();
    let events = watch.until(Change::Added, ID);
    assert!(
        changed_ids(&events, Change::Removed).is_empty(),
        "{events:?}"
    );

    std::fs::write(
        folder.join("SKILL.md"),
        skill_text(ID, "Drafts release notes from merged pull requests."),
    )
    .unwrap();
    let events = watch.until(Change::Changed, ID);
    assert!(
        !changed_ids(&events, Change::Removed).contains(ID),
        "{events:?}"
    );

    save_atomically(
        &folder,
        &skill_text(ID, "Groups merged pull requests by area."),
    );
    let events = watch.until(Change::Changed, ID);
    assert!(
        load_errors(&events).is_empty(),
        "an atomic save never shows a half-written file: {events:?}"
    );
    assert!(
        !changed_ids(&events, Change::Removed).contains(ID),
        "{events:?}"
    );
    assert!(
        !changed_ids(&events, Change::Added)
            .iter()
            .any(|id| id.starts_with('.')),
        "the editor's temporary file is no skill: {events:?}"
    );

    // A folder renamed (`git mv`): the id is the folder's name, so one leaves, one comes.
    let renamed = root.join("notes");
    std::fs::rename(&folder, &renamed).unwrap();
    let events = watch.events_until("removed [release-notes] and added [notes]", |events| {
        changed_ids(events, Change::Removed).contains(ID)
            && changed_ids(events, Change::Added).contains("notes")
    });
    assert!(load_errors(&events).is_empty(), "{events:?}");

    std::fs::remove_dir_all(&renamed).unwrap();
    watch.until(Change::Removed, "notes");
}

#[test]
fn a_broken_skill_keeps_its_last_valid_version_until_it_is_fixed() {
    let tree = Tree::new();
    let file = tree.skill(Place::UserOpenhuman, ID, ID, "Drafts release notes.");
    let folder = file.parent().unwrap().to_path_buf();
    let mut watch = Session::json(&tree, &[]);
    assert_eq!(watch.ready().skills, 1);

    // Invalid YAML, as an editor leaves it half-way through typing a list.
    save_atomically(
        &folder,
        "---\nname: release-notes\ndescription: [broken\n---\n# Release notes\n",
    );
    let mut events = watch.events_until("load_error", |events| !load_errors(events).is_empty());
    let error = load_errors(&events)[0].clone();
    assert_eq!(error["kept"], ID, "the last valid version is kept: {error}");
    assert_eq!(error["path"], file.display().to_string(), "{error}");
    assert!(
        error["diagnostic"]["message"]
            .as_str()
            .is_some_and(|message| !message.is_empty()),
        "{error}"
    );
    events.extend(watch.barrier(&tree, "barrier-broken"));
    for change in [Change::Removed, Change::Changed] {
        assert!(
            !changed_ids(&events, change).contains(ID),
            "a broken skill keeps its last valid version: neither removed nor changed: {events:?}"
        );
    }

    // An unterminated frontmatter: still broken, still kept.
    save_atomically(&folder, "---\nname: release-notes\ndescription: Half\n");
    let mut events = watch.events_until("load_error", |events| !load_errors(events).is_empty());
    assert_eq!(load_errors(&events)[0]["kept"], ID, "{events:?}");
    events.extend(watch.barrier(&tree, "barrier-unterminated"));
    for change in [Change::Removed, Change::Changed] {
        assert!(!changed_ids(&events, change).contains(ID), "{events:?}");
    }

    save_atomically(&folder, &skill_text(ID, "Drafts release notes, fixed."));
    let events = watch.barrier(&tree, "barrier-fixed");
    assert!(
        !changed_ids(&events, Change::Removed).contains(ID),
        "{events:?}"
    );
    assert!(
        !changed_ids(&events, Change::Added).contains(ID),
        "the skill never left, so it is not added again: {events:?}"
    );
    assert!(
        changed_ids(&events, Change::Changed).contains(ID),
        "the fixed description differs from the kept one: {events:?}"
    );
    assert!(
        load_errors(&events).is_empty(),
        "the fixed file loads: {events:?}"
    );

    // Fixed for good: a removal is reported as for any skill.
    std::fs::remove_dir_all(&folder).unwrap();
    watch.until(Change::Removed, ID);
}

#[test]
fn a_never_valid_skill_is_reported_and_never_added() {
    let tree = Tree::new();
    std::fs::create_dir_all(tree.root(Place::UserOpenhuman)).unwrap();
    let mut watch = Session::json(&tree, &[]);
    assert_eq!(watch.ready().skills, 0);

    let file = tree.write(
        &tree.root(Place::UserOpenhuman).join("broken/SKILL.md"),
        "---\nname: broken\ndescription: [never valid\n---\n# Broken\n",
    );
    let mut events = watch.events_until("load_error", |events| !load_errors(events).is_empty());
    let error = load_errors(&events)[0].clone();
    assert_eq!(error["path"], file.display().to_string(), "{error}");
    assert!(error["kept"].is_null(), "nothing valid to keep: {error}");
    assert_eq!(error["diagnostic"]["severity"], "error", "{error}");
    events.extend(watch.barrier(&tree, "barrier"));
    assert!(
        !changed_ids(&events, Change::Added).contains("broken"),
        "a skill that never loaded is absent: {events:?}"
    );
}

#[test]
fn three_hundred_skills_written_at_once_are_all_reported_and_the_watch_goes_on() {
    const COUNT: usize = 300;
    /// "Within seconds", with room for a busy machine.
    const DEADLINE: Duration = Duration::from_secs(30);
    let tree = Tree::new();
    let root = tree.root(Place::UserOpenhuman);
    std::fs::create_dir_all(&root).unwrap();
    let mut watch = Session::json(&tree, &[]);
    watch.ready();

    let ids: BTreeSet<String> = (0..COUNT).map(|n| format!("bulk-{n:03}")).collect();
    let start = Instant::now();
    // As a `git checkout` does: folders and files as fast as the file system takes them.
    for id in &ids {
        let folder = root.join(id);
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("SKILL.md"), skill_text(id, "One of many.")).unwrap();
    }
    let written = since(start);
    let events = watch.until_all(Change::Added, &ids);
    let elapsed = start.elapsed();
    assert!(
        elapsed < DEADLINE,
        "{COUNT} skills took {elapsed:?} to be reported (written in {written})"
    );
    assert!(
        changed_ids(&events, Change::Removed).is_empty(),
        "{events:?}"
    );
    assert_eq!(
        changed_ids(&events, Change::Added),
        ids,
        "only the skills written were added"
    );
    println!(
        "{COUNT} skills written in {written}, all reported added after {elapsed:?} in {} event(s)",
        events.len()
    );

    // The watcher is alive after the flood.
    std::fs::write(
        root.join("bulk-150/SKILL.md"),
        skill_text("bulk-150", "Changed after the flood."),
    )
    .unwrap();
    watch.until(Change::Changed, "bulk-150");
    watch.barrier(&tree, "after-the-flood");
}
