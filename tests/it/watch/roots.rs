//! Roots that change under a watch: a root created after the watch started (and deleted, and
//! created again), a workspace whose trust is granted and then revoked while watching (its
//! project skills join and leave), `skills.toml` naming another root and disabling a skill,
//! and a user root that is a symlink to a folder elsewhere.

use super::{Change, Session, changed_ids, save_atomically, skill_text};
use crate::discovery::{Place, Tree};

#[test]
fn a_root_created_after_the_start_is_followed() {
    let tree = Tree::new();
    let root = tree.root(Place::UserOpenhuman);
    assert!(!tree.home.join(".openhuman").exists());
    let mut watch = Session::json(&tree, &[]);
    assert_eq!(watch.ready().skills, 0);

    // `mkdir -p` of the root and the skill in one go: the watch on the home sees the app
    // folder appear and must start watching the root below it.
    let folder = root.join("late");
    std::fs::create_dir_all(&folder).unwrap();
    save_atomically(
        &folder,
        &skill_text("late", "Arrived after the watch started."),
    );
    watch.until(Change::Added, "late");

    // The new root is watched for what happens inside it afterwards.
    let second = root.join("later");
    std::fs::create_dir(&second).unwrap();
    save_atomically(&second, &skill_text("later", "Arrived in the new root."));
    watch.until(Change::Added, "later");

    // Deleted whole, then created again.
    std::fs::remove_dir_all(&root).unwrap();
    let events = watch.events_until("removed [late, later]", |events| {
        let removed = changed_ids(events, Change::Removed);
        removed.contains("late") && removed.contains("later")
    });
    assert!(changed_ids(&events, Change::Added).is_empty(), "{events:?}");
    let again = root.join("again");
    std::fs::create_dir_all(&again).unwrap();
    save_atomically(&again, &skill_text("again", "The root came back."));
    watch.until(Change::Added, "again");
}

#[test]
fn project_skills_join_and_leave_as_trust_is_granted_and_revoked() {
    let tree = Tree::new();
    tree.skill(
        Place::ProjectOpenhuman,
        "proj-skill",
        "proj-skill",
        "Only for this project.",
    );
    let mut watch = Session::json(&tree, &[]);
    assert_eq!(
        watch.ready().skills,
        0,
        "an untrusted workspace's skills are not loaded"
    );

    let workspace = tree.workspace.display().to_string();
    tree.run(&["trust", &workspace]).ok();
    let events = watch.until(Change::Added, "proj-skill");
    assert!(
        changed_ids(&events, Change::Removed).is_empty(),
        "{events:?}"
    );

    tree.run(&["trust", "--revoke", &workspace]).ok();
    watch.until(Change::Removed, "proj-skill");

    // Granted again: the skill comes back; the whole record deleted: it leaves again.
    tree.run(&["trust", &workspace]).ok();
    watch.until(Change::Added, "proj-skill");
    std::fs::remove_file(tree.home.join(".openhuman/trusted-workspaces.json")).unwrap();
    watch.until(Change::Removed, "proj-skill");
}

#[test]
fn skills_toml_adds_a_root_and_disables_a_skill() {
    let tree = Tree::new();
    tree.skill(Place::UserOpenhuman, "own", "own", "In the user root.");
    let extra = tree.home.join("extra");
    tree.write(
        &extra.join("outside/SKILL.md"),
        skill_text("outside", "In an extra root."),
    );
    let mut watch = Session::json(&tree, &[]);
    assert_eq!(watch.ready().skills, 1);

    // `paths` names a root the watch did not know about when it started.
    tree.user_config("paths = [\"extra\"]\n");
    watch.until(Change::Added, "outside");
    let folder = extra.join("second");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(&folder, &skill_text("second", "Also in the extra root."));
    watch.until(Change::Added, "second");

    tree.user_config("paths = [\"extra\"]\ndisabled = [\"own\"]\n");
    watch.until(Change::Removed, "own");

    std::fs::remove_file(tree.home.join(".openhuman/skills.toml")).unwrap();
    let events = watch.events_until("own back, the extra root's skills gone", |events| {
        let removed = changed_ids(events, Change::Removed);
        changed_ids(events, Change::Added).contains("own")
            && removed.contains("outside")
            && removed.contains("second")
    });
    assert!(
        !changed_ids(&events, Change::Removed).contains("own"),
        "{events:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_user_root_is_followed() {
    let tree = Tree::new();
    let target = tree.base.join("elsewhere/skills");
    std::fs::create_dir_all(&target).unwrap();
    let root = tree.root(Place::UserOpenhuman);
    std::fs::create_dir_all(root.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &root).unwrap();
    let mut watch = Session::json(&tree, &[]);
    assert_eq!(watch.ready().skills, 0);

    // Written through the target's own path, not through the link.
    let folder = target.join("linked");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(
        &folder,
        &skill_text("linked", "Lives behind a symlinked root."),
    );
    watch.until(Change::Added, "linked");

    save_atomically(&folder, &skill_text("linked", "Changed behind the link."));
    watch.until(Change::Changed, "linked");
    std::fs::remove_dir_all(&folder).unwrap();
    watch.until(Change::Removed, "linked");
}

#[test]
fn a_symlinked_skill_folder_is_followed_when_linked_and_when_pointed_elsewhere() {
    // The layout link-installing tools make: the skill's files in a store outside the root,
    // and a symlink to them in the root, made while the watch runs.
    let tree = Tree::new();
    let root = tree.root(Place::UserOpenhuman);
    std::fs::create_dir_all(&root).unwrap();
    let store = tree.base.join("store");
    let first = store.join("pdf-1");
    let second = store.join("pdf-2");
    for (folder, description) in [(&first, "The first copy."), (&second, "The second copy.")] {
        std::fs::create_dir_all(folder).unwrap();
        save_atomically(folder, &skill_text("pdf", description));
    }
    let mut watch = Session::json(&tree, &[]);
    assert_eq!(watch.ready().skills, 0);

    let link = root.join("pdf");
    std::os::unix::fs::symlink(&first, &link).unwrap();
    watch.until(Change::Added, "pdf");

    // Edited where the files are, not through the link: the definition, then a bundled file.
    save_atomically(&first, &skill_text("pdf", "The first copy, edited."));
    watch.until(Change::Changed, "pdf");
    std::fs::create_dir(first.join("references")).unwrap();
    std::fs::write(first.join("references/guide.md"), "A guide.").unwrap();
    watch.until(Change::Changed, "pdf");

    // Pointed at the other copy the way `ln -sfn` does it: a new link renamed over the old.
    let staged = root.join(".pdf.link");
    std::os::unix::fs::symlink(&second, &staged).unwrap();
    std::fs::rename(&staged, &link).unwrap();
    watch.until(Change::Changed, "pdf");
    save_atomically(&second, &skill_text("pdf", "The second copy, edited."));
    watch.until(Change::Changed, "pdf");

    // The copy the link left is no longer the skill: editing it changes nothing.
    save_atomically(&first, &skill_text("pdf", "The first copy, edited again."));
    let events = watch.barrier(&tree, "after-the-old-copy");
    assert!(
        !changed_ids(&events, Change::Changed).contains("pdf"),
        "{events:?}"
    );
}

#[test]
fn a_skill_linked_from_a_second_root_is_followed_in_the_root_that_holds_it() {
    // The layout of installers that keep one copy and link it into each agent's root: the
    // files in `~/.agents/skills/pdf`, and `~/.claude/skills/pdf` a link to them.
    let tree = Tree::new();
    let agents = tree.root(Place::UserAgents);
    let claude = tree.root(Place::UserClaude);
    let folder = agents.join("pdf");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::create_dir_all(&claude).unwrap();
    save_atomically(&folder, &skill_text("pdf", "One copy, linked twice."));
    std::os::unix::fs::symlink(&folder, claude.join("pdf")).unwrap();
    let mut watch = Session::json(&tree, &[]);
    assert_eq!(watch.ready().skills, 1);

    // A bundled file (no record changes) edited in the copy.
    std::fs::create_dir(folder.join("references")).unwrap();
    std::fs::write(folder.join("references/guide.md"), "A guide.").unwrap();
    watch.until(Change::Changed, "pdf");
    std::fs::write(folder.join("references/guide.md"), "A longer guide.").unwrap();
    watch.until(Change::Changed, "pdf");

    // Linked into a third root while watching: the copy's files are still followed.
    let openhuman = tree.root(Place::UserOpenhuman);
    std::fs::create_dir_all(&openhuman).unwrap();
    std::os::unix::fs::symlink(&folder, openhuman.join("pdf")).unwrap();
    watch.barrier(&tree, "after-the-link");
    std::fs::write(folder.join("references/guide.md"), "The longest guide yet.").unwrap();
    watch.until(Change::Changed, "pdf");

    // Both links removed: the copy alone is the skill, and its edits are still its changes
    // (the kernel may have been naming them after a link that is gone).
    std::fs::remove_file(openhuman.join("pdf")).unwrap();
    std::fs::remove_file(claude.join("pdf")).unwrap();
    watch.barrier(&tree, "after-the-unlink");
    std::fs::write(folder.join("references/guide.md"), "Back to one path.").unwrap();
    watch.until(Change::Changed, "pdf");
}

#[test]
fn a_folder_of_links_copied_into_a_root_is_followed_through_its_links() {
    // A group folder made whole in a second root (a checkout, a copy), holding a link to a
    // skill the first root holds.
    let tree = Tree::new();
    let agents = tree.root(Place::UserAgents);
    let claude = tree.root(Place::UserClaude);
    let folder = agents.join("pdf");
    std::fs::create_dir_all(folder.join("references")).unwrap();
    std::fs::create_dir_all(&claude).unwrap();
    save_atomically(&folder, &skill_text("pdf", "One copy."));
    std::fs::write(folder.join("references/guide.md"), "A guide.").unwrap();
    let mut watch = Session::json(&tree, &[]);
    assert_eq!(watch.ready().skills, 1);

    let staged = tree.base.join("staged-group");
    std::fs::create_dir(&staged).unwrap();
    std::os::unix::fs::symlink(&folder, staged.join("pdf")).unwrap();
    std::fs::rename(&staged, claude.join("group")).unwrap();
    watch.barrier(&tree, "after-the-group");

    std::fs::write(folder.join("references/guide.md"), "A longer guide.").unwrap();
    watch.until(Change::Changed, "pdf");
}
