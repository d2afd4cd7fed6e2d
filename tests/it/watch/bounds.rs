//! A watch costs what the catalog is, not what the tree a root leads to is: a workspace whose
//! project root links to `/usr` (and one to `/proc`), a user root holding a link to `/usr`, a
//! root of thousands of empty folders, a root of more folders than one root may watch, and a
//! root the user cannot read (polled, at a `stat` an interval, until it can be).
//! Each is read from the kernel's own state, never from the watch's counters: the inotify
//! watches the process holds (`/proc/<pid>/fdinfo/<inotify fd>`, one `inotify wd:` line per
//! watch) and the processor time it used (`/proc/<pid>/stat`).
//!
//! The processor time is read across a few seconds in which nothing changes: the window is a
//! measurement, not a wait for anything. Its bound asserts that the watch runs no loop while
//! nothing changes (a walk per poll interval, a rescan per event, a reaction to its own
//! reads), not a speed; see [`IDLE_TICKS`].

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use skills_types::limits::MAX_WATCHES_PER_ROOT;

use super::{Change, Session, save_atomically, skill_text};
use crate::discovery::{Place, Tree};

/// How long the watch is left alone while its processor time is read.
const IDLE_WINDOW: Duration = Duration::from_secs(3);

/// The most processor time (user and system, in clock ticks: 10 ms each at the usual 100 Hz)
/// an idle watch may use in [`IDLE_WINDOW`]. An idle watch sleeps in a blocking receive and
/// uses none; the margin absorbs a late event from the start and a busy machine. A loop is far
/// above it: the watch this replaced, on a root linking to `/usr`, used about 150 ticks in
/// 3 s (a rescan of `/usr` after every inotify queue overflow), and a walk of 2,000 folders
/// per poll interval alone takes several ticks each time.
const IDLE_TICKS: u64 = 10;

/// The most kernel watches the watches of these trees may need: one per folder holding a
/// root or a configuration file (a few), the user root, its skill folder, and one folder per
/// root that leads to no skill. Far below what a walk of `/usr` costs (thousands).
const FEW_WATCHES: usize = 32;

// Within the bound, a watch is within the cap on watches per root too.
const _: () = assert!(FEW_WATCHES <= MAX_WATCHES_PER_ROOT);

/// The number of inotify watches the process `pid` holds, from the kernel's own account.
fn inotify_watches(pid: u32) -> usize {
    let mut watches = 0;
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap() {
        let entry = entry.unwrap();
        let is_inotify = std::fs::read_link(entry.path())
            .is_ok_and(|target| target.as_os_str() == "anon_inode:inotify");
        if is_inotify {
            let info = format!("/proc/{pid}/fdinfo/{}", entry.file_name().to_string_lossy());
            let text = std::fs::read_to_string(info).unwrap();
            watches += text
                .lines()
                .filter(|line| line.starts_with("inotify wd:"))
                .count();
        }
    }
    watches
}

/// The processor time the process `pid` has used, user and system, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The command name may hold spaces and parentheses: the fields start after the last `)`,
    // with the state (field 3); utime and stime are fields 14 and 15.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Reads the watch's processor time across [`IDLE_WINDOW`] while nothing changes, and fails
/// past [`IDLE_TICKS`].
fn assert_idle(watch: &mut Session) {
    let pid = watch.pid();
    let before = cpu_ticks(pid);
    let start = Instant::now();
    std::thread::sleep(IDLE_WINDOW);
    let used = cpu_ticks(pid) - before;
    assert!(
        used < IDLE_TICKS,
        "the watch used {used} clock ticks in {:?} while nothing changed; {}",
        start.elapsed(),
        watch.report()
    );
}

/// The watch holds a few inotify watches ([`FEW_WATCHES`]), uses no processor time while
/// nothing changes, and still reports an edit of the user's skill `real`.
fn assert_cheap_and_live(watch: &mut Session, tree: &Tree) {
    let watches = inotify_watches(watch.pid());
    assert!(
        watches <= FEW_WATCHES,
        "the watch holds {watches} inotify watches"
    );
    assert_idle(watch);
    save_atomically(
        &tree.root(Place::UserOpenhuman).join("real"),
        &skill_text("real", "A real skill, edited."),
    );
    watch.until(Change::Changed, "real");
}

/// The `watching` events among `events` whose diagnostic has `code`, by path.
fn said<'e>(events: &'e [Value], code: &str) -> Vec<&'e str> {
    events
        .iter()
        .filter(|event| event["kind"] == "watching" && event["diagnostic"]["code"] == code)
        .filter_map(|event| event["path"].as_str())
        .collect()
}

fn link(target: impl AsRef<Path>, link: &Path) {
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn a_workspace_whose_roots_link_to_usr_and_proc_costs_a_few_watches_and_no_processor_time() {
    let tree = Tree::new();
    let user_root = tree.root(Place::UserOpenhuman);
    tree.skill(Place::UserOpenhuman, "real", "real", "A real skill.");
    // A trusted repository whose project roots are links to `/usr` and `/proc`.
    let usr_root = tree.root(Place::ProjectAgents);
    link("/usr", &usr_root);
    let proc_root = tree.root(Place::ProjectClaude);
    link("/proc", &proc_root);
    tree.trust();

    let started = Instant::now();
    let mut watch = watch(&tree, &[]);
    let ready = watch.ready();
    assert!(
        started.elapsed() < super::PATIENCE,
        "ready in {:?}",
        started.elapsed()
    );
    assert_eq!(ready.skills, 1, "{}", watch.report());
    // Said before `ready`: the root that leads to `/usr` holds no skill within discovery's
    // limits (so only its own folder is followed), and the one that leads to `/proc` is a
    // pseudo file system (neither walked nor watched).
    assert_eq!(
        said(&ready.before, "no-skill-within-limits"),
        [usr_root.to_str().unwrap()],
        "{:?}",
        ready.before
    );
    assert_eq!(
        said(&ready.before, "pseudo-file-system"),
        [proc_root.to_str().unwrap()],
        "{:?}",
        ready.before
    );
    assert_cheap_and_live(&mut watch, &tree);
    // A file bundled with the real skill is followed too.
    std::fs::write(user_root.join("real/notes.md"), "A bundled file.").unwrap();
    watch.until(Change::Changed, "real");
}

#[test]
fn links_to_usr_and_proc_inside_roots_cost_a_few_watches_and_no_processor_time() {
    let tree = Tree::new();
    let user_root = tree.root(Place::UserOpenhuman);
    tree.skill(Place::UserOpenhuman, "real", "real", "A real skill.");
    // The user's own link to `/usr` in their root: discovery follows it, within its limits.
    link("/usr", &user_root.join("system"));
    // A trusted repository holding links to `/usr` and `/proc` in its project root: a
    // workspace's link out of its own roots is not followed, by discovery or the watch.
    let project = tree.root(Place::ProjectOpenhuman);
    link("/usr", &project.join("usr"));
    link("/proc", &project.join("proc"));
    tree.trust();

    let mut watch = watch(&tree, &[]);
    let ready = watch.ready();
    assert_eq!(ready.skills, 1, "{}", watch.report());
    assert_eq!(
        said(&ready.before, "no-skill-within-limits"),
        [user_root.join("system").to_str().unwrap()],
        "{:?}",
        ready.before
    );
    assert_cheap_and_live(&mut watch, &tree);
}

#[test]
fn a_root_of_thousands_of_empty_folders_costs_one_watch() {
    let tree = Tree::new();
    tree.skill(Place::UserOpenhuman, "real", "real", "A real skill.");
    // More folders than discovery lists in one root (2,000), none of them a skill: the class
    // of a root pointed at a home folder or a checkout of something else.
    let empty = tree.root(Place::UserAgents);
    for index in 0..2_500 {
        std::fs::create_dir_all(empty.join(format!("folder-{index:05}"))).unwrap();
    }
    let mut watch = watch(&tree, &[]);
    let ready = watch.ready();
    assert_eq!(ready.skills, 1, "{}", watch.report());
    assert!(
        said(&ready.before, "no-skill-within-limits").contains(&empty.to_str().unwrap()),
        "{:?}",
        ready.before
    );
    assert_cheap_and_live(&mut watch, &tree);

    // A skill made straight in that root is still seen: its own folder is watched. (Named
    // to come first: discovery lists no more than its limit of folders, in name order.)
    let folder = empty.join("a-late");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(&folder, &skill_text("a-late", "Made in the large root."));
    watch.until(Change::Added, "a-late");
}

#[test]
fn a_root_needing_more_watches_than_the_cap_is_polled_and_still_reported() {
    let tree = Tree::new();
    // Two skills whose bundled folders, with the root and the skills, need more watches than
    // one root may hold.
    let root = tree.root(Place::UserOpenhuman);
    tree.skill(Place::UserOpenhuman, "small", "small", "Bundles nothing.");
    let per_skill = MAX_WATCHES_PER_ROOT / 2 + 8;
    for name in ["vendored-a", "vendored-b"] {
        tree.skill(Place::UserOpenhuman, name, name, "Bundles a large tree.");
        for index in 0..per_skill {
            std::fs::create_dir_all(root.join(name).join(format!("d{index:05}"))).unwrap();
        }
    }
    let mut watch = watch(&tree, &["--poll-ms", "500"]);
    let ready = watch.ready();
    assert_eq!(ready.skills, 3, "{}", watch.report());
    let polled: Vec<&Value> = ready
        .before
        .iter()
        .filter(|event| event["kind"] == "watching" && event["mode"] == "polling")
        .collect();
    assert_eq!(polled.len(), 1, "{:?}", ready.before);
    assert_eq!(polled[0]["path"], root.to_str().unwrap());
    assert_eq!(polled[0]["diagnostic"]["code"], "watch-polling");
    let message = polled[0]["diagnostic"]["message"].as_str().unwrap();
    assert!(
        message.contains(&MAX_WATCHES_PER_ROOT.to_string()) && message.contains("500 ms"),
        "the diagnostic names the cap and how often the root is looked at: {message}"
    );
    let watches = inotify_watches(watch.pid());
    assert!(
        watches <= FEW_WATCHES,
        "the polled root holds no watch: {watches} in all"
    );

    // Changes in the polled root are still reported: a definition edited in place, a file
    // added in a bundled folder, a skill removed (a small one: deleting thousands of watched
    // folders at once is slow in `notify`, whatever watches them).
    std::fs::write(
        root.join("vendored-a/SKILL.md"),
        skill_text("vendored-a", "Edited in place, without a rename."),
    )
    .unwrap();
    watch.until(Change::Changed, "vendored-a");
    std::fs::write(root.join("vendored-b/d00007/notes.md"), "x").unwrap();
    watch.until(Change::Changed, "vendored-b");
    std::fs::remove_dir_all(root.join("small")).unwrap();
    watch.until(Change::Removed, "small");
}

/// `skills` run through util-linux `unshare --user` with no mapping: the process still owns
/// its files (so it may write the tree's home), but holds no capability over them, root
/// included, so a folder of mode 000 is unreadable to it as to any user. Fails with what to
/// do where a user namespace cannot be made.
/// `skills` in a user namespace of its own whose root is the user running the tests, with every
/// capability dropped before it starts (`setpriv`): even when the tests run as root, it cannot
/// read a folder of mode 000, and the process `/proc` entries of the non-dumpable `skills`
/// belong to the namespace's root, that is to the user running the tests, who can read them
/// (the kernel's own count of its inotify watches) as root or as a normal user alike.
fn skills_without_privilege() -> Command {
    let remedy = "the watch-bound tests run the binary in a user namespace of their own: run \
                  them where `unshare --user --map-root-user setpriv --bounding-set=-all true` \
                  succeeds (util-linux on PATH; unprivileged user namespaces allowed)";
    let mut probe = Command::new("unshare");
    probe.args(UNPRIVILEGED).arg("true");
    if let Err(why) = skills_tests::netns::probe(probe, "unshare --user setpriv true", remedy) {
        panic!("{why}");
    }
    let skills = skills_tests::skills();
    let mut command = Command::new("unshare");
    command.args(UNPRIVILEGED).arg(skills.get_program());
    for (key, value) in skills.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command
}

/// `unshare` and `setpriv` options: a user namespace whose root is the caller, then no
/// capability at all (none inherited, none in the bounding set, none regained by being root).
const UNPRIVILEGED: [&str; 7] = [
    "--user",
    "--map-root-user",
    "setpriv",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--securebits=+noroot,+noroot_locked",
    "--",
];

/// `skills watch --json ARGS` on `tree`, started through [`skills_without_privilege`].
fn watch(tree: &Tree, args: &[&str]) -> Session {
    Session::spawn(Session::command(
        tree,
        skills_without_privilege(),
        true,
        args,
    ))
}

#[test]
fn a_root_the_user_cannot_read_is_polled_until_it_can_be() {
    use std::os::unix::fs::PermissionsExt;

    let tree = Tree::new();
    tree.skill(Place::UserOpenhuman, "real", "real", "A real skill.");
    tree.skill(
        Place::UserAgents,
        "hidden",
        "hidden",
        "Behind a closed folder.",
    );
    let closed = tree.root(Place::UserAgents);
    let mode = |bits| std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(bits));
    mode(0o000).unwrap();
    let mut watch = Session::spawn(Session::command(
        &tree,
        skills_without_privilege(),
        true,
        &["--poll-ms", "200"],
    ));
    let ready = watch.ready();
    assert_eq!(ready.skills, 1, "{}", watch.report());
    let polled: Vec<&Value> = ready
        .before
        .iter()
        .filter(|event| event["mode"] == "polling")
        .collect();
    assert_eq!(polled.len(), 1, "{:?}", ready.before);
    assert_eq!(polled[0]["path"], closed.to_str().unwrap());
    assert_eq!(polled[0]["diagnostic"]["code"], "watch-polling");
    assert_cheap_and_live(&mut watch, &tree);

    // Opened: a poll sees its mode change, the kernel watches it again, its skill arrives.
    mode(0o755).unwrap();
    let events = watch.until(Change::Added, "hidden");
    assert!(
        events
            .iter()
            .any(|event| event["kind"] == "watching" && event["mode"] == "events"),
        "{events:?}"
    );
    let folder = closed.join("later");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(
        &folder,
        &skill_text("later", "Seen by the kernel's events."),
    );
    watch.until(Change::Added, "later");
}
