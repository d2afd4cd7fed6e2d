//! Roots that change under a running watch without going away: a root replaced within one
//! burst (`rm -rf skills && tar x`, `mv skills skills.old && mkdir skills`), a symlinked
//! root pointed elsewhere (a new link renamed over the old one), and a polled root edited
//! twice within one wall-clock second. A kernel watch follows the folder it was added on, not
//! the path, and a poller comparing whole seconds misses the second edit: each of these once
//! went silent.
use super::{Change, Session, save_atomically, skill_text};
use crate::discovery::{Place, Tree};

#[test]
fn a_root_replaced_within_one_burst_is_watched_again() {
    let tree = Tree::new();
    let root = tree.root(Place::UserOpenhuman);
    tree.skill(Place::UserOpenhuman, "one", "one", "In the first root.");
    let mut watch = Session::json(&tree, &[]);
    watch.ready();
    // Deleted and made again before the burst goes quiet (`rm -rf skills && tar x`).
    std::fs::remove_dir_all(&root).unwrap();
    let folder = root.join("two");
    std::fs::create_dir_all(&folder).unwrap();
    save_atomically(&folder, &skill_text("two", "In the new root."));
    watch.until(Change::Added, "two");
    let folder = root.join("three");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(&folder, &skill_text("three", "Later, in the new root."));
    watch.until(Change::Added, "three");
}

#[test]
fn a_symlinked_root_pointed_elsewhere_is_watched_at_its_new_target() {
    let tree = Tree::new();
    let (first, second) = (tree.base.join("first"), tree.base.join("second"));
    tree.write(
        &first.join("one/SKILL.md"),
        skill_text("one", "Behind the first link."),
    );
    tree.write(
        &second.join("two/SKILL.md"),
        skill_text("two", "Behind the second link."),
    );
    let root = tree.root(Place::UserOpenhuman);
    std::fs::create_dir_all(root.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&first, &root).unwrap();
    let mut watch = Session::json(&tree, &[]);
    watch.ready();
    // Switched the way deploy tools switch: a new link renamed over the old one.
    let next = root.with_extension("next");
    std::os::unix::fs::symlink(&second, &next).unwrap();
    std::fs::rename(&next, &root).unwrap();
    watch.until(Change::Added, "two");
    let folder = second.join("three");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(
        &folder,
        &skill_text("three", "Later, behind the second link."),
    );
    watch.until(Change::Added, "three");
}

#[cfg(target_os = "linux")]
#[test]
fn a_polled_edit_within_the_same_second_is_reported() {
    use std::time::{Duration, SystemTime};
    // Two saves of SKILL.md within one wall-clock second, made deterministic with explicit
    // modification times: 12:00:00.1, then 12:00:00.6 of one fixed day.
    let second = SystemTime::UNIX_EPOCH + Duration::from_secs(1_704_110_400);
    let tree = super::polling::tree_over_the_limit();
    let file = tree.skill(Place::UserOpenhuman, "edited", "edited", "First save.");
    let set = |at: SystemTime| {
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(at)
            .unwrap();
    };
    set(second + Duration::from_millis(100));
    let mut watch = Session::spawn(Session::command(
        &tree,
        super::polling::skills_with_inotify_limit(super::polling::LIMIT),
        true,
        &["--poll-ms", "200"],
    ));
    let ready = watch.ready();
    assert!(!ready.before.is_empty(), "the root is polled");
    std::fs::write(
        &file,
        skill_text("edited", "Second save, longer than the first one."),
    )
    .unwrap();
    set(second + Duration::from_millis(600));
    watch.until(Change::Changed, "edited");
}
