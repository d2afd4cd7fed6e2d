//! The inotify limits (08 §The live catalog): when the kernel refuses a watch, the root is
//! polled instead, the watch says so (`watching`, mode `polling`, with a diagnostic), and
//! changes there are still reported; with no inotify instance at all, every path is polled.
//!
//! The limit is made real without touching the machine: since Linux 5.11 inotify watches are
//! counted per user namespace, so the binary runs in a user namespace of its own (util-linux
//! `unshare --user --map-root-user`) whose `/proc/sys/user/max_inotify_watches` (or
//! `max_inotify_instances`) is set low first. [`LIMIT`] leaves room for the few single-folder
//! watches (the home, its app folder, the workspace) and none for the user root, which holds
//! more folders than that. Where a user namespace cannot be made the test fails and says what
//! to run; it never passes without having run.

use std::process::Command;
use std::sync::OnceLock;

use super::{Change, Session, save_atomically, skill_text};
use crate::discovery::{Place, Tree};

/// The inotify watches allowed inside the namespace: the home, `~/.openhuman` and the
/// workspace take one each; the user root below needs one per folder, more than are left.
pub(super) const LIMIT: u32 = 5;

/// Skill folders in the user root at the start, each with a `references/` folder: with the
/// root itself, 2 × 5 + 1 = 11 folders to watch, well over [`LIMIT`].
const FOLDERS: usize = 5;

/// util-linux's `unshare`, looked up on `PATH`.
const UNSHARE: &str = "unshare";

/// Sets the namespace's limit (`SKILLS_TESTS_INOTIFY_LIMIT`, named by
/// `SKILLS_TESTS_INOTIFY_SETTING`), then becomes the command after it (`$0` and its arguments).
const LOWER_THE_LIMIT: &str = "echo \"$SKILLS_TESTS_INOTIFY_LIMIT\" > \"/proc/sys/user/$SKILLS_TESTS_INOTIFY_SETTING\" && exec \"$0\" \"$@\"";

/// The per-namespace limits of inotify.
const WATCHES: &str = "max_inotify_watches";
const INSTANCES: &str = "max_inotify_instances";

/// What a person can do when the namespace cannot be made.
const REMEDY: &str = "the polling fallback test lowers the inotify watch limit inside a user \
     namespace of its own: run it as root, or as a user allowed to create user namespaces, \
     with util-linux `unshare` on PATH (check with `unshare --user --map-root-user sh -c \
     'echo 5 > /proc/sys/user/max_inotify_watches'`; enable with `sysctl -w \
     kernel.unprivileged_userns_clone=1` on Debian kernels, `sysctl -w \
     kernel.apparmor_restrict_unprivileged_userns=0` on Ubuntu 23.10 and later, or a non-zero \
     `user.max_user_namespaces`), on Linux 5.11 or later";

/// Whether a user namespace with its own inotify limit can be made here; the error says why
/// not and what to do. Probed once per process.
fn namespaced_limit() -> Result<(), String> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            let shown = format!(
                "{UNSHARE} --user --map-root-user sh -c 'echo {LIMIT} > /proc/sys/user/max_inotify_watches'"
            );
            let mut command = Command::new(UNSHARE);
            command
                .args(["--user", "--map-root-user", "sh", "-c", LOWER_THE_LIMIT, "true"])
                .env("SKILLS_TESTS_INOTIFY_SETTING", WATCHES)
                .env("SKILLS_TESTS_INOTIFY_LIMIT", LIMIT.to_string());
            skills_tests::netns::probe(command, &shown, REMEDY)
        })
        .clone()
}

/// `skills_tests::skills()` (the binary and its clean environment) run through `unshare`
/// with the namespace's inotify watch limit set to `limit` first.
pub(super) fn skills_with_inotify_limit(limit: u32) -> Command {
    skills_with_namespace_limit(WATCHES, limit)
}

/// [`skills_with_inotify_limit`] for any of the namespace's inotify `setting`s.
fn skills_with_namespace_limit(setting: &str, limit: u32) -> Command {
    let skills = skills_tests::skills();
    let mut command = Command::new(UNSHARE);
    command
        .args(["--user", "--map-root-user", "sh", "-c", LOWER_THE_LIMIT])
        .arg(skills.get_program())
        .env("SKILLS_TESTS_INOTIFY_SETTING", setting)
        .env("SKILLS_TESTS_INOTIFY_LIMIT", limit.to_string());
    for (key, value) in skills.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command
}

/// A tree whose user root holds [`FOLDERS`] skills, each with a `references/` folder: more
/// folders than [`LIMIT`] lets the kernel watch.
pub(super) fn tree_over_the_limit() -> Tree {
    let tree = Tree::new();
    for n in 0..FOLDERS {
        let name = format!("present-{n}");
        tree.skill(Place::UserOpenhuman, &name, &name, "There from the start.");
        std::fs::create_dir(
            tree.root(Place::UserOpenhuman)
                .join(&name)
                .join("references"),
        )
        .unwrap();
    }
    tree
}

#[test]
fn a_root_the_kernel_will_not_watch_is_polled_and_still_reported() {
    if let Err(why) = namespaced_limit() {
        panic!("{why}");
    }
    let tree = tree_over_the_limit();
    let mut watch = Session::spawn(Session::command(
        &tree,
        skills_with_inotify_limit(LIMIT),
        true,
        &["--poll-ms", "200"],
    ));
    let ready = watch.ready();
    assert_eq!(ready.skills, FOLDERS as u64, "{}", watch.report());

    // The fallback is said while the watch starts, or soon after.
    let root = tree.root(Place::UserOpenhuman);
    let mut fallbacks = ready.before;
    if fallbacks.is_empty() {
        fallbacks.extend(watch.events_until("a watching event", |events| {
            events.iter().any(|event| event["kind"] == "watching")
        }));
    }
    let fallbacks: Vec<_> = fallbacks
        .into_iter()
        .filter(|event| event["kind"] == "watching")
        .collect();
    assert_eq!(
        fallbacks.len(),
        1,
        "only the user root is over the limit of {LIMIT}: {fallbacks:?}"
    );
    let fallback = &fallbacks[0];
    assert_eq!(fallback["path"], root.display().to_string(), "{fallback}");
    assert_eq!(fallback["mode"], "polling", "{fallback}");
    assert_eq!(
        fallback["diagnostic"]["code"], "watch-polling",
        "{fallback}"
    );
    assert_eq!(fallback["diagnostic"]["severity"], "warning", "{fallback}");
    let message = fallback["diagnostic"]["message"].as_str().unwrap();
    assert!(
        message.contains("inotify") && message.contains("200 ms"),
        "the diagnostic says why and how often: {message}"
    );

    // Polled, the root still reports an addition, a change and a removal.
    let folder = root.join("polled");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(&folder, &skill_text("polled", "Found by polling."));
    watch.until(Change::Added, "polled");
    // A new bundled file: a path the poller has not seen, so its scan cannot miss it. (An
    // edit of `SKILL.md` within the same second as the last one it saw it can: notify 8's
    // poller compares modification times to the second.)
    std::fs::create_dir(folder.join("references")).unwrap();
    std::fs::write(folder.join("references/notes.md"), "# Notes\n").unwrap();
    watch.until(Change::Changed, "polled");
    std::fs::remove_dir_all(root.join("present-0")).unwrap();
    watch.until(Change::Removed, "present-0");
}

#[test]
fn with_no_inotify_at_all_every_path_is_polled_and_changes_are_still_reported() {
    if let Err(why) = namespaced_limit() {
        panic!("{why}");
    }
    let tree = Tree::new();
    tree.skill(
        Place::UserOpenhuman,
        "present",
        "present",
        "There from the start.",
    );
    // Not one inotify instance may be made: the watcher has no kernel events at all.
    let mut watch = Session::spawn(Session::command(
        &tree,
        skills_with_namespace_limit(INSTANCES, 0),
        true,
        &["--poll-ms", "200"],
    ));
    let ready = watch.ready();
    assert_eq!(ready.skills, 1, "{}", watch.report());
    let polled: Vec<&serde_json::Value> = ready
        .before
        .iter()
        .filter(|event| event["kind"] == "watching" && event["mode"] == "polling")
        .collect();
    let root = tree.root(Place::UserOpenhuman);
    assert!(
        polled
            .iter()
            .any(|event| event["path"] == root.display().to_string()),
        "the user root is polled: {polled:?}"
    );
    for event in &polled {
        let message = event["diagnostic"]["message"].as_str().unwrap();
        assert!(
            message.contains("max_user_instances"),
            "the diagnostic names the limit: {message}"
        );
    }

    let folder = root.join("late");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(&folder, &skill_text("late", "Found by polling alone."));
    watch.until(Change::Added, "late");
    std::fs::remove_dir_all(root.join("present")).unwrap();
    watch.until(Change::Removed, "present");
}
