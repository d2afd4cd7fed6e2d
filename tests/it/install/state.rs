//! The files an install keeps beside the skills (03 §Writing to disk): a root's
//! an install record that is a FIFO, a symlink or not valid JSON, and an install lock that is
//! not a regular file, stop `install` and `uninstall` before anything changes, promptly, with a
//! message saying what the file is and what to do; and `.skills-install.lock` never stays
//! behind, whether the command succeeded, failed or was refused.
//!
//! A FIFO once hung both commands forever after the change was already on disk, so every run
//! here goes through a watchdog that kills a child still running after a generous deadline and
//! fails the test: on the old code these tests fail instead of hanging the suite.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use skills_tests::http::Server;
use skills_types::files::{INSTALL_LOCK, LOCK_FILE};

use super::sources::pack_skills;
use super::{Skill, command, install_json, run, serve_pack};
use crate::discovery::{Place, Run, Tree};

/// Far longer than any of these commands takes on a loaded machine; reaching it means the
/// command hangs.
const WATCHDOG: Duration = Duration::from_secs(120);

/// Runs `command` to the end, or kills it at the watchdog's deadline and fails the test.
fn finish(mut command: Command) -> Run {
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the command still ran after {WATCHDOG:?}: it hangs on a state file");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Every path under `dir` with what it is: a file's bytes, a link's target, a folder, or
/// another kind of file (never opened, so a FIFO cannot hang the test).
fn tree_of(dir: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    walk(dir, "", &mut found);
    found
}

fn walk(dir: &Path, prefix: &str, found: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let relative = format!("{prefix}/{}", entry.file_name().to_string_lossy());
        let kind = entry.file_type().unwrap();
        let what = if kind.is_dir() {
            walk(&entry.path(), &relative, found);
            "folder".to_owned()
        } else if kind.is_symlink() {
            format!(
                "link to {}",
                std::fs::read_link(entry.path()).unwrap().display()
            )
        } else if kind.is_file() {
            format!("file {:?}", std::fs::read(entry.path()).unwrap())
        } else {
            "special".to_owned()
        };
        found.insert(relative, what);
    }
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// What can be wrong with a state file, and the word the message must use for it.
#[derive(Clone, Copy, Debug)]
enum Broken {
    Fifo,
    Corrupt,
    Symlink,
}

impl Broken {
    const ALL: [Self; 3] = [Self::Fifo, Self::Corrupt, Self::Symlink];

    fn plant(self, path: &Path) {
        let _ = std::fs::remove_file(path);
        match self {
            Self::Fifo => mkfifo(path),
            Self::Corrupt => std::fs::write(path, "{\"version\": 1, \"skills\": {").unwrap(),
            Self::Symlink => {
                let elsewhere = path.with_file_name("elsewhere.json");
                std::fs::write(&elsewhere, "{\"version\": 1, \"skills\": {}}").unwrap();
                std::os::unix::fs::symlink(&elsewhere, path).unwrap();
            }
        }
    }

    fn said(self) -> &'static str {
        match self {
            Self::Fifo => "FIFO",
            Self::Corrupt => "not a valid install record",
            Self::Symlink => "symbolic link",
        }
    }
}

/// A tree with the pack installed, and a second skill served for a later install.
fn installed() -> (Tree, Server, String, String) {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let pack = serve_pack(&server, "/pack", &pack_skills(), "1.0.0");
    let other = serve_pack(
        &server,
        "/other",
        &[Skill::new("style-guide", "House style.", "Be brief.", &[])],
        "1.0.0",
    );
    install_json(&tree, &[&pack]);
    (tree, server, pack, other)
}

/// Asserts a refusal that names the file, says what is wrong and what to do, and changed
/// nothing.
fn assert_refused(run: &Run, path: &Path, broken: Broken) {
    assert_eq!(run.code, Some(1), "{broken:?}: {run:?}");
    let error: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        error["error"]["kind"], "state_file_invalid",
        "{broken:?}: {run:?}"
    );
    let message = error["error"]["message"].as_str().unwrap();
    for expected in [
        &path.display().to_string(),
        broken.said(),
        "remove it",
        "nothing was changed",
    ] {
        assert!(
            message.contains(expected),
            "{broken:?}: {expected}: {message}"
        );
    }
}

#[test]
fn a_broken_lock_file_stops_install_with_nothing_changed() {
    for broken in Broken::ALL {
        let (tree, _server, pack, other) = installed();
        let root = tree.root(Place::UserAgents);
        let lock = root.join(LOCK_FILE);
        broken.plant(&lock);
        let before = tree_of(&tree.base);
        // A new skill, the same pack again, and a replacement: none may publish anything.
        for args in [
            vec!["--json", "install", other.as_str()],
            vec!["--json", "install", "--force", other.as_str()],
            vec!["--json", "install", pack.as_str()],
        ] {
            let run = finish(command(&tree, &args));
            assert_refused(&run, &lock, broken);
            assert_eq!(tree_of(&tree.base), before, "{broken:?} {args:?}");
        }
    }
}

#[test]
fn a_broken_lock_file_stops_uninstall_with_nothing_changed() {
    for broken in Broken::ALL {
        let (tree, _server, _pack, _other) = installed();
        let root = tree.root(Place::UserAgents);
        let lock = root.join(LOCK_FILE);
        broken.plant(&lock);
        let before = tree_of(&tree.base);
        let run = finish(command(&tree, &["--json", "uninstall", "csv-tools"]));
        assert_refused(&run, &lock, broken);
        assert_eq!(tree_of(&tree.base), before, "{broken:?}");
        assert!(root.join("csv-tools/SKILL.md").is_file());
    }
}

#[test]
fn an_install_lock_that_is_not_a_regular_file_stops_both_with_nothing_changed() {
    for planted in [Broken::Fifo, Broken::Symlink] {
        let (tree, _server, _pack, other) = installed();
        let root = tree.root(Place::UserAgents);
        let lock = root.join(INSTALL_LOCK);
        planted.plant(&lock);
        let before = tree_of(&tree.base);
        for args in [
            vec!["--json", "install", other.as_str()],
            vec!["--json", "uninstall", "csv-tools"],
        ] {
            let run = finish(command(&tree, &args));
            assert_eq!(run.code, Some(1), "{planted:?}: {run:?}");
            let error: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
            assert_eq!(error["error"]["kind"], "state_file_invalid", "{run:?}");
            let message = error["error"]["message"].as_str().unwrap();
            assert!(message.contains(INSTALL_LOCK), "{message}");
            assert!(message.contains("remove it"), "{message}");
            assert_eq!(tree_of(&tree.base), before, "{planted:?} {args:?}");
        }
    }
}

#[test]
fn no_install_lock_is_left_behind() {
    let (tree, server, pack, other) = installed();
    let root = tree.root(Place::UserAgents);
    let lock_left = || root.join(INSTALL_LOCK).exists();
    assert!(!lock_left(), "after an install");
    install_json(&tree, &[&pack]);
    assert!(
        !lock_left(),
        "after an install that found everything installed"
    );

    // A refusal: the same name with other content.
    let changed = serve_pack(
        &server,
        "/changed",
        &[Skill::new("csv-tools", "Changed.", "Other body.", &[])],
        "2.0.0",
    );
    let refused = run(&tree, &["install", &changed]);
    assert_eq!(refused.code, Some(1), "{refused:?}");
    assert!(!lock_left(), "after a refused install");

    // A failure: the root's record is corrupt.
    let record = std::fs::read(root.join(LOCK_FILE)).unwrap();
    std::fs::write(root.join(LOCK_FILE), "not json").unwrap();
    assert_eq!(run(&tree, &["install", &other]).code, Some(1));
    assert!(!lock_left(), "after a failed install");
    assert_eq!(run(&tree, &["uninstall", "csv-tools"]).code, Some(1));
    assert!(!lock_left(), "after a failed uninstall");
    std::fs::write(root.join(LOCK_FILE), record).unwrap();

    assert_eq!(run(&tree, &["uninstall", "csv-tools"]).code, Some(0));
    assert!(!lock_left(), "after an uninstall");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, [LOCK_FILE, "release-notes"]);
}

#[test]
fn fifos_among_the_other_files_an_install_reads_never_hang_it() {
    let (tree, _server, pack, other) = installed();
    let root = tree.root(Place::UserAgents);

    // A provenance record that is a FIFO: the folder no longer holds exactly the pack, so the
    // same pack is a conflict, said at once.
    let record = root
        .join("csv-tools")
        .join(skills_types::files::PROVENANCE_FILE);
    std::fs::remove_file(&record).unwrap();
    mkfifo(&record);
    let run = finish(command(&tree, &["--json", "install", pack.as_str()]));
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("\"conflict\""), "{run:?}");

    // The catalog cache, read by the listing after an install: a FIFO there is no cache.
    tree.run(&["list"]).ok();
    let cache = tree.home.join(".openhuman/cache");
    let mut planted = 0;
    for entry in std::fs::read_dir(&cache).unwrap() {
        let path = entry.unwrap().path();
        std::fs::remove_file(&path).unwrap();
        mkfifo(&path);
        planted += 1;
    }
    assert!(
        planted > 0,
        "the listing wrote a cache in {}",
        cache.display()
    );
    let run = finish(command(&tree, &["--json", "install", other.as_str()]));
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(root.join("style-guide/SKILL.md").is_file());
}

#[test]
fn a_broken_lock_file_is_reported_before_anything_is_downloaded() {
    let (tree, server, _pack, other) = installed();
    let lock = tree.root(Place::UserAgents).join(LOCK_FILE);
    std::fs::write(&lock, "{").unwrap();
    let fetched = server.targets().len();
    let run = finish(command(&tree, &["--json", "install", other.as_str()]));
    assert_refused(&run, &lock, Broken::Corrupt);
    assert_eq!(server.targets().len(), fetched, "nothing was fetched");
}
