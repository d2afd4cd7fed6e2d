//! The watcher's rules (what matters, what is watched, when a folder's files moved) and one
//! live run over a temporary tree; the whole command is tested through the binary in
//! `tests/it/watch.rs`.

use std::sync::mpsc::{Receiver, Sender, channel};

use super::*;
use crate::testing::{Tree, skill};
use skills_types::Catalog;

#[test]
fn only_paths_discovery_would_read_are_visible() {
    let table = [
        ("pdf/SKILL.md", true),
        ("pdf/references/guide.md", true),
        ("pdf", true),
        ("", true),
        ("pdf/.SKILL.md.swp", false),
        ("pdf/.git/index", false),
        ("pdf/node_modules/x/index.js", false),
        ("pdf/target/debug/x", false),
        (".staging-1234/SKILL.md", false),
        ("pdf/4913", true),
    ];
    for (below, visible) in table {
        assert_eq!(is_visible(Path::new(below)), visible, "{below}");
    }
}

/// The targets of `config` as a watch plans them.
fn targets(config: &SkillsConfig) -> Targets {
    let extent = crate::discover::extent(config);
    Targets::plan(config, extent.roots.iter().map(|root| root.path.as_path()))
}

#[test]
fn a_missing_root_is_waited_for_from_the_nearest_folder_above() {
    let tree = Tree::new();
    let config = tree.config();
    let planned = targets(&config);
    let user_root = tree.home.join(".openhuman/skills");
    assert!(planned.trees.is_empty(), "{planned:?}");
    assert!(planned.folders.contains(&tree.home), "{planned:?}");
    assert!(planned.wanted.contains(&user_root), "{planned:?}");
    // A folder on the way to the root matters, its neighbour does not.
    assert!(planned.matters(&tree.home.join(".openhuman")));
    assert!(!planned.matters(&tree.home.join(".cache")));

    std::fs::create_dir_all(&user_root).unwrap();
    let planned = targets(&config);
    assert!(planned.trees.contains(&user_root), "{planned:?}");
    // The folder holding the trust record is watched for its own entries.
    assert!(
        planned.folders.contains(&tree.home.join(".openhuman")),
        "{planned:?}"
    );
    assert!(planned.matters(&user_root.join("pdf/SKILL.md")));
    assert!(!planned.matters(&user_root.join("pdf/.SKILL.md.swp")));
    assert!(planned.matters(&trust::record_path(&config)));
    assert!(!planned.matters(&tree.home.join(".openhuman/cache/catalog.bin")));
}

/// A listener that keeps nothing, for the states the tests drive by hand.
struct Deaf;

impl Listener for Deaf {
    fn changed(&mut self, _touched: &BTreeSet<PathBuf>) {}
    fn watching(&mut self, _path: &Path, _mode: WatchMode, _diagnostic: Diagnostic) {}
}

/// A state planned for `config` with no kernel watcher: every path it would watch is polled.
fn polled_state(config: &SkillsConfig, listener: Box<dyn Listener>) -> State {
    let refused = Err(notify::Error::generic("no kernel watcher in this test"));
    let mut state = State::new(config, &WatchOptions::default(), refused, listener);
    state.replan();
    state
}

#[test]
fn a_burst_names_what_matters_and_a_rescan_touches_every_root() {
    use notify::event::{CreateKind, Flag};

    let tree = Tree::new();
    let user_root = tree.home.join(".openhuman/skills");
    std::fs::create_dir_all(&user_root).unwrap();
    let mut state = polled_state(&tree.config(), Box::new(Deaf));
    let event =
        |kind: EventKind, path: &Path| notify::Event::new(kind).add_path(path.to_path_buf());
    let created = EventKind::Create(CreateKind::File);
    let skill_file = user_root.join("pdf/SKILL.md");

    let mut burst = Burst::default();
    for event in [
        event(created, &skill_file),
        event(created, &user_root.join("pdf/.SKILL.md.swp")),
        event(created, &tree.home.join(".cache/x")),
    ] {
        state.take_in(&event, &mut burst);
    }
    assert_eq!(burst.touched, BTreeSet::from([skill_file.clone()]));
    assert!(!burst.rescan);

    let mut burst = Burst::default();
    state.take_in(&event(created, &tree.home.join(".cache/x")), &mut burst);
    assert!(burst.touched.is_empty(), "{:?}", burst.touched);
    assert!(
        burst.due(Duration::ZERO, Duration::ZERO).is_none(),
        "nothing to report"
    );

    // The kernel's queue overflowed: whatever was lost, the burst is reported.
    let rescan = notify::Event::new(EventKind::Other).set_flag(Flag::Rescan);
    let mut burst = Burst::default();
    state.take_in(&rescan, &mut burst);
    assert!(burst.rescan);
    assert!(burst.due(Duration::ZERO, Duration::ZERO).is_some());
}

#[test]
fn a_burst_ends_when_quiet_or_when_it_has_lasted_too_long() {
    let mut burst = Burst::default();
    burst.note();
    let first = burst.first.unwrap();
    let debounce = Duration::from_millis(300);
    let longest = debounce * MAX_BURST_IN_DEBOUNCES;
    assert_eq!(burst.due(debounce, longest), Some(first + debounce));
    // Events that never pause: reported once the burst has lasted `longest`.
    burst.last = Some(first + longest);
    assert_eq!(burst.due(debounce, longest), Some(first + longest));
}

/// The folders a plan of `config` watches under the root `root`, relative to it.
fn planned_folders(config: &SkillsConfig, root: &Path) -> Vec<PathBuf> {
    let extent = crate::discover::extent(config);
    let plan = extent
        .roots
        .into_iter()
        .find(|extent| extent.path == root)
        .map(RootPlan::of)
        .unwrap();
    plan.folders()
        .map(|(path, _)| path.strip_prefix(root).unwrap().to_path_buf())
        .collect()
}

#[cfg(unix)]
#[test]
fn the_plan_is_the_folders_discovery_reads_through_the_links_it_follows() {
    use std::os::unix::fs::symlink;

    let tree = Tree::new();
    let root = tree.home.join(".openhuman/skills");
    let elsewhere = tree.home.join("elsewhere");
    write(
        &elsewhere.join("linked-skill/SKILL.md"),
        "---\nname: linked-skill\n---\n",
    );
    write(&root.join("pdf/SKILL.md"), "---\nname: pdf\n---\n");
    std::fs::create_dir_all(root.join("pdf/references/deep")).unwrap();
    std::fs::create_dir_all(root.join("group/inner")).unwrap();
    std::fs::create_dir_all(root.join(".hidden/inner")).unwrap();
    std::fs::create_dir_all(root.join("node_modules/inner")).unwrap();
    // The user's own link, followed wherever it points; a link inside a skill folder is not
    // (discovery never looks there), nor one to a file; a link back up is a loop.
    symlink(&elsewhere, root.join("group/linked")).unwrap();
    symlink(&elsewhere, root.join("pdf/linked")).unwrap();
    symlink(root.join("pdf/SKILL.md"), root.join("file-link")).unwrap();
    symlink(&root, root.join("group/loop")).unwrap();

    let mut folders = planned_folders(&tree.config(), &root);
    folders.sort();
    let expected: Vec<PathBuf> = [
        "",
        "group",
        "group/inner",
        "group/linked",
        "group/linked/linked-skill",
        "pdf",
        "pdf/references",
        "pdf/references/deep",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(folders, expected);

    // A workspace's link out of its own roots is not followed by discovery: not watched.
    let mut config = tree.config();
    config.trust = skills_types::config::TrustPolicy::Always;
    let project = tree.workspace.join(".agents/skills");
    std::fs::create_dir_all(&project).unwrap();
    symlink(&elsewhere, project.join("out")).unwrap();
    assert_eq!(planned_folders(&config, &project), [PathBuf::new()]);
}

#[cfg(unix)]
#[test]
fn a_link_to_a_large_tree_without_skills_is_followed_alone() {
    use std::os::unix::fs::symlink;

    let tree = Tree::new();
    // A large tree without a skill: more folders than the limits let discovery list.
    let large = tree.folders_without_skills("large", 40, "a/b");
    let mut config = tree.config();
    config.limits.max_dirs_per_root = 20;
    let root = tree.home.join(".openhuman/skills");
    write(&root.join("pdf/SKILL.md"), "---\nname: pdf\n---\n");
    symlink(&large, root.join("system")).unwrap();
    assert_eq!(
        planned_folders(&config, &root),
        [
            PathBuf::new(),
            PathBuf::from("system"),
            PathBuf::from("pdf")
        ],
        "the link's folder alone, for its own entries"
    );

    // A root that is such a tree: its own folder alone, and a note that says why. (The tree
    // is reached once: not also through the first root's link.)
    std::fs::remove_file(root.join("system")).unwrap();
    let agents = tree.home.join(".agents/skills");
    std::fs::create_dir_all(agents.parent().unwrap()).unwrap();
    symlink(&large, &agents).unwrap();
    assert_eq!(planned_folders(&config, &agents), [PathBuf::new()]);
    let extent = crate::discover::extent(&config);
    let agents_extent = extent
        .roots
        .iter()
        .find(|root| root.path == agents)
        .unwrap();
    let note = agents_extent
        .notes
        .iter()
        .find(|note| note.code == DiagnosticCode::NoSkillWithinLimits)
        .unwrap();
    assert!(
        note.message.contains(&large.display().to_string()),
        "{note:?}"
    );

    // The same tree within the limits (a small folder of empty categories): all of it, so a
    // skill made in any of its folders is seen.
    config.limits.max_dirs_per_root = 1_000;
    assert_eq!(planned_folders(&config, &agents).len(), 1 + 40 * 3);
}

#[cfg(target_os = "linux")]
#[test]
fn a_root_on_a_pseudo_file_system_is_neither_walked_nor_watched() {
    use std::os::unix::fs::symlink;

    let tree = Tree::new();
    let root = tree.home.join(".openhuman/skills");
    std::fs::create_dir_all(root.parent().unwrap()).unwrap();
    symlink("/proc", &root).unwrap();
    let agents = tree.home.join(".agents/skills");
    std::fs::create_dir_all(&agents).unwrap();
    symlink("/sys", agents.join("sys")).unwrap();
    write(&agents.join("pdf/SKILL.md"), "---\nname: pdf\n---\n");
    let config = tree.config();
    assert!(planned_folders(&config, &root).is_empty());
    assert_eq!(
        planned_folders(&config, &agents),
        [PathBuf::new(), PathBuf::from("pdf")]
    );
    let extent = crate::discover::extent(&config);
    let said: Vec<&Path> = extent
        .roots
        .iter()
        .flat_map(|root| &root.notes)
        .filter(|note| note.code == DiagnosticCode::PseudoFileSystem)
        .filter_map(|note| note.path.as_deref())
        .collect();
    assert_eq!(said, [root.as_path(), agents.join("sys").as_path()]);
}

#[test]
fn an_untrusted_workspace_is_not_watched_until_trusted() {
    let tree = Tree::new();
    let project_root = tree.workspace.join(".openhuman/skills");
    std::fs::create_dir_all(&project_root).unwrap();
    let mut config = tree.config();
    assert!(!targets(&config).trees.contains(&project_root));
    config.trust = skills_types::config::TrustPolicy::Always;
    assert!(targets(&config).trees.contains(&project_root));
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn stamps_move_when_a_bundled_file_changes_and_not_for_a_new_skill() {
    let tree = Tree::new();
    let dir = tree.home.join("pdf");
    write(
        &dir.join("SKILL.md"),
        "---\nname: pdf\ndescription: d\n---\n",
    );
    let mut record = skill("pdf", "d", skills_types::SkillScope::User);
    record.dir = dir.clone();
    let catalog = Catalog {
        skills: vec![record.clone()],
        ..Catalog::default()
    };
    let stamps = FolderStamps::default();
    let nothing = BTreeSet::new();
    assert!(stamps.follow(&catalog, &nothing).is_empty(), "off: nothing");
    stamps.enable();
    assert!(
        stamps.follow(&catalog, &nothing).is_empty(),
        "a new skill is stamped"
    );

    let guide = dir.join("references/guide.md");
    write(&guide, "one");
    let touched = BTreeSet::from([guide.clone()]);
    assert_eq!(
        stamps.follow(&catalog, &touched),
        BTreeSet::from(["pdf".to_owned()])
    );
    assert!(
        stamps.follow(&catalog, &touched).is_empty(),
        "touched again, nothing moved"
    );
    // A hidden file (an editor's swap file) is not part of the skill.
    write(&dir.join(".guide.md.swp"), "x");
    assert!(stamps.follow(&catalog, &touched).is_empty());
    // A root above the folder counts as touching it (it was not watched while it filled).
    write(&guide, "two, longer");
    let above = BTreeSet::from([tree.home.clone()]);
    assert_eq!(
        stamps.follow(&catalog, &above),
        BTreeSet::from(["pdf".to_owned()])
    );

    // A skill kept at its last good version is not a change.
    let mut kept = record;
    kept.diagnostics.push(Diagnostic::new(
        DiagnosticCode::LastGoodKept,
        Severity::Warning,
        "kept",
    ));
    let broken = Catalog {
        skills: vec![kept],
        ..Catalog::default()
    };
    write(&guide, "three, longer still");
    assert!(stamps.follow(&broken, &touched).is_empty());
}

/// A listener that hands every report to the test.
struct Reports(Sender<Report>);

#[derive(Debug)]
enum Report {
    Changed(BTreeSet<PathBuf>),
    Watching(PathBuf, WatchMode),
}

impl Listener for Reports {
    fn changed(&mut self, touched: &BTreeSet<PathBuf>) {
        let _ = self.0.send(Report::Changed(touched.clone()));
    }

    fn watching(&mut self, path: &Path, mode: WatchMode, _diagnostic: Diagnostic) {
        let _ = self.0.send(Report::Watching(path.to_path_buf(), mode));
    }
}

/// The touched paths of the reports until one lies in `folder` on the way to `wanted` (a
/// folder created and filled at once may be named for its files: the kernel watch of a new
/// folder comes after its first files); fails after 20 s.
fn until_touched(reports: &Receiver<Report>, folder: &Path, wanted: &Path) -> BTreeSet<PathBuf> {
    let mut seen = BTreeSet::new();
    loop {
        match reports.recv_timeout(Duration::from_secs(20)) {
            Ok(Report::Changed(touched)) => {
                seen.extend(touched);
                if seen
                    .iter()
                    .any(|path| path.starts_with(folder) && wanted.starts_with(path))
                {
                    return seen;
                }
            }
            Ok(Report::Watching(path, mode)) => panic!("{} is {mode:?}", path.display()),
            Err(error) => panic!(
                "no report naming {}: {error}; saw {seen:?}",
                wanted.display()
            ),
        }
    }
}

#[test]
fn a_live_watch_follows_a_root_created_after_it_started() {
    let tree = Tree::new();
    let (sender, reports) = channel();
    let mut options = WatchOptions::default();
    options.debounce = Duration::from_millis(50);
    let watcher = start(&tree.config(), &options, Reports(sender)).unwrap();
    assert!(watcher.watching().contains(&tree.home), "{watcher:?}");

    let skill_file = tree.home.join(".openhuman/skills/pdf/SKILL.md");
    write(&skill_file, "---\nname: pdf\ndescription: d\n---\n");
    until_touched(&reports, &tree.home.join(".openhuman"), &skill_file);
    // The root is watched now: a folder made in it, and the file written there, are named.
    let references = tree.home.join(".openhuman/skills/pdf/references");
    let guide = references.join("guide.md");
    write(&guide, "text");
    until_touched(&reports, &references, &guide);

    drop(watcher);
    // The thread ends and the listener with it: the channel closes.
    loop {
        match reports.recv_timeout(Duration::from_secs(20)) {
            Ok(_) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(error) => panic!("the watch did not stop: {error}"),
        }
    }
}
