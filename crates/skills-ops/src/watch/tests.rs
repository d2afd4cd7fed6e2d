//! The watcher's rules (what matters, what is watched, when a folder's files moved) and one
//! live run over a temporary tree; the whole command is tested through the binary in
//! `tests/it/watch.rs`.

use std::sync::mpsc::{Receiver, Sender, channel};

use super::*;
use crate::testing::{Tree, skill};

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

#[test]
fn a_missing_root_is_waited_for_from_the_nearest_folder_above() {
    let tree = Tree::new();
    let config = tree.config();
    let targets = Targets::plan(&config);
    let user_root = tree.home.join(".openhuman/skills");
    assert!(targets.trees.is_empty(), "{targets:?}");
    assert!(targets.folders.contains(&tree.home), "{targets:?}");
    assert!(targets.wanted.contains(&user_root), "{targets:?}");
    // A folder on the way to the root matters, its neighbour does not.
    assert!(targets.matters(&tree.home.join(".openhuman")));
    assert!(!targets.matters(&tree.home.join(".cache")));

    std::fs::create_dir_all(&user_root).unwrap();
    let targets = Targets::plan(&config);
    assert!(targets.trees.contains(&user_root), "{targets:?}");
    // The folder holding the trust record is watched for its own entries.
    assert!(
        targets.folders.contains(&tree.home.join(".openhuman")),
        "{targets:?}"
    );
    assert!(targets.matters(&user_root.join("pdf/SKILL.md")));
    assert!(!targets.matters(&user_root.join("pdf/.SKILL.md.swp")));
    assert!(targets.matters(&trust::record_path(&config)));
    assert!(!targets.matters(&tree.home.join(".openhuman/cache/catalog.bin")));
}

#[test]
fn a_burst_names_what_matters_and_a_rescan_touches_every_root() {
    use notify::event::{CreateKind, Flag};
    use notify_debouncer_full::DebouncedEvent;

    let tree = Tree::new();
    let user_root = tree.home.join(".openhuman/skills");
    std::fs::create_dir_all(&user_root).unwrap();
    let targets = Targets::plan(&tree.config());
    let event = |kind: EventKind, path: &Path| {
        DebouncedEvent::new(
            notify::Event::new(kind).add_path(path.to_path_buf()),
            Instant::now(),
        )
    };
    let created = EventKind::Create(CreateKind::File);
    let skill_file = user_root.join("pdf/SKILL.md");

    let mut touched = BTreeSet::new();
    let burst = [
        event(created, &skill_file),
        event(created, &user_root.join("pdf/.SKILL.md.swp")),
        event(
            EventKind::Access(notify::event::AccessKind::Any),
            &user_root.join("pdf/guide.md"),
        ),
    ];
    assert!(targets.take_in(&burst, &mut touched));
    assert_eq!(touched, BTreeSet::from([skill_file.clone()]));

    let mut touched = BTreeSet::new();
    let unrelated = [event(created, &tree.home.join(".cache/x"))];
    assert!(!targets.take_in(&unrelated, &mut touched));
    assert!(touched.is_empty(), "{touched:?}");

    // The kernel's queue overflowed: whatever was lost, every root is looked at again.
    let rescan = DebouncedEvent::new(
        notify::Event::new(EventKind::Other).set_flag(Flag::Rescan),
        Instant::now(),
    );
    let mut touched = BTreeSet::new();
    assert!(targets.take_in(&[rescan], &mut touched));
    assert_eq!(touched, BTreeSet::from([user_root]));
}

#[cfg(unix)]
#[test]
fn links_are_looked_for_where_discovery_meets_them() {
    use std::os::unix::fs::symlink;

    let tree = Tree::new();
    let root = tree.home.join("root");
    let elsewhere = tree.home.join("elsewhere");
    std::fs::create_dir_all(elsewhere.join("inner")).unwrap();
    write(&root.join("pdf/SKILL.md"), "---\nname: pdf\n---\n");
    write(&root.join("lower/skill.md"), "---\nname: lower\n---\n");
    std::fs::create_dir_all(root.join("group/deeper")).unwrap();
    std::fs::create_dir_all(root.join(".hidden")).unwrap();
    std::fs::create_dir_all(root.join("node_modules")).unwrap();
    let found_at = [
        root.join("linked"),
        root.join("group/linked"),
        root.join("group/deeper/linked"),
    ];
    for link in &found_at {
        symlink(&elsewhere, link).unwrap();
    }
    // Inside a skill's own folder, a hidden or excluded folder, or to a file: not looked at.
    for link in [
        root.join("pdf/linked"),
        root.join("lower/linked"),
        root.join(".hidden/linked"),
        root.join("node_modules/linked"),
    ] {
        symlink(&elsewhere, link).unwrap();
    }
    symlink(root.join("pdf/SKILL.md"), root.join("file-link")).unwrap();

    let mut found = links_below(&root, 8);
    found.sort();
    let mut expected = found_at.to_vec();
    expected.sort();
    assert_eq!(found, expected);
    // Not deeper than discovery goes.
    let mut shallow = links_below(&root, 1);
    shallow.sort();
    assert_eq!(shallow, [root.join("group/linked"), root.join("linked")]);
}

#[test]
fn an_untrusted_workspace_is_not_watched_until_trusted() {
    let tree = Tree::new();
    let project_root = tree.workspace.join(".openhuman/skills");
    std::fs::create_dir_all(&project_root).unwrap();
    let mut config = tree.config();
    assert!(!Targets::plan(&config).trees.contains(&project_root));
    config.trust = skills_types::config::TrustPolicy::Always;
    assert!(Targets::plan(&config).trees.contains(&project_root));
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
