//! Tests of the state module: every trap a state file or a folder on the way can be (a FIFO,
//! a link to `/dev/zero`, a link elsewhere, a socket, a folder, a hard link, an oversized
//! file, a linked folder) read, replaced, created and locked, each run on a thread with a
//! deadline so a read that blocks fails the test instead of hanging it; and the table's own
//! rules.

#![cfg(unix)]

use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _, symlink};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use super::*;

/// Longer than any correct operation on a small file takes; a blocked one fails here.
const DEADLINE: Duration = Duration::from_secs(10);

/// A small kind for the tests: 16 bytes at most.
const SMALL: Kind = Kind {
    id: "test",
    what: "a test file",
    base: Base::App,
    folders: &["state"],
    name: "file.json",
    form: Form::File,
    limit: 16,
    when_broken: WhenBroken::Rebuilt,
};

/// Runs `work` on a thread of its own and fails the test if it is not done by the deadline.
fn within<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || drop(sender.send(work())));
    receiver
        .recv_timeout(DEADLINE)
        .expect("the operation blocked: a trap hung it")
}

fn mkfifo(path: &Path) {
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        path,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
}

/// A temporary base with `state/` in it, and a file outside that no operation may touch.
struct Fixture {
    _temp: tempfile::TempDir,
    base: PathBuf,
    outside: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().join("app");
        std::fs::create_dir_all(base.join("state")).unwrap();
        let outside = temp.path().join("outside.txt");
        std::fs::write(&outside, "outside: never written\n").unwrap();
        Self {
            _temp: temp,
            base,
            outside,
        }
    }

    fn folder(&self) -> Folder {
        Folder::open(&self.base, &["state"]).unwrap().unwrap()
    }

    fn path(&self) -> PathBuf {
        self.base.join("state").join("file.json")
    }

    fn outside_intact(&self) {
        assert_eq!(
            std::fs::read_to_string(&self.outside).unwrap(),
            "outside: never written\n"
        );
    }
}

/// One trap at the file's name, and the word its refusal must use.
#[derive(Clone, Copy, Debug)]
enum Trap {
    Fifo,
    DevZero,
    Elsewhere,
    Dangling,
    Socket,
    Folder,
    HardLink,
    Oversized,
}

impl Trap {
    const ALL: [Self; 8] = [
        Self::Fifo,
        Self::DevZero,
        Self::Elsewhere,
        Self::Dangling,
        Self::Socket,
        Self::Folder,
        Self::HardLink,
        Self::Oversized,
    ];

    fn plant(self, fixture: &Fixture) -> Option<std::os::unix::net::UnixListener> {
        let path = fixture.path();
        match self {
            Self::Fifo => mkfifo(&path),
            Self::DevZero => symlink("/dev/zero", &path).unwrap(),
            Self::Elsewhere => symlink(&fixture.outside, &path).unwrap(),
            Self::Dangling => symlink(fixture.base.join("nowhere"), &path).unwrap(),
            Self::Socket => return Some(std::os::unix::net::UnixListener::bind(&path).unwrap()),
            Self::Folder => std::fs::create_dir(&path).unwrap(),
            Self::HardLink => std::fs::hard_link(&fixture.outside, &path).unwrap(),
            // Sparse: a gigabyte that takes no room, refused before a byte is read.
            Self::Oversized => std::fs::File::create(&path)
                .unwrap()
                .set_len(1 << 30)
                .unwrap(),
        }
        None
    }

    fn said(self) -> &'static str {
        match self {
            Self::Fifo => "FIFO",
            Self::DevZero | Self::Elsewhere | Self::Dangling => "symbolic link",
            Self::Socket => "socket",
            Self::Folder => "folder",
            Self::HardLink => "hard links",
            Self::Oversized => "more than the 16 allowed",
        }
    }
}

#[test]
fn every_trap_at_a_state_file_is_refused_promptly_and_replaced_without_writing_through() {
    for trap in Trap::ALL {
        let fixture = Fixture::new();
        let _socket = trap.plant(&fixture);
        let folder = fixture.folder();
        let refusal = within({
            let folder = folder.clone();
            move || folder.read(&SMALL, "file.json").unwrap_err()
        });
        assert!(refusal.is_trap(), "{trap:?}: {refusal}");
        assert!(
            refusal.to_string().contains(trap.said()),
            "{trap:?}: {refusal}"
        );
        assert_eq!(folder.read_or_miss(&SMALL, "file.json"), None, "{trap:?}");
        if matches!(trap, Trap::Folder) {
            // A folder at a file's name is not replaced by a rename.
            assert!(folder.replace(&SMALL, "file.json", b"{}").is_err());
            continue;
        }
        within({
            let folder = folder.clone();
            move || folder.replace(&SMALL, "file.json", b"{\"new\":1}").unwrap()
        });
        fixture.outside_intact();
        let metadata = std::fs::symlink_metadata(fixture.path()).unwrap();
        assert!(metadata.is_file(), "{trap:?}");
        assert_eq!(metadata.nlink(), 1, "{trap:?}");
        if !matches!(trap, Trap::Oversized) {
            // A new file is private (a regular file replaced keeps its own mode).
            assert_eq!(metadata.mode() & 0o777, 0o600, "{trap:?}");
        }
        assert_eq!(
            folder.read(&SMALL, "file.json").unwrap().unwrap(),
            b"{\"new\":1}",
            "{trap:?}"
        );
        let leftovers: Vec<_> = folder
            .entries()
            .unwrap()
            .into_iter()
            .filter(|entry| entry.name.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{trap:?}: {leftovers:?}");
    }
}

#[test]
fn a_regular_file_reads_whole_and_a_missing_one_is_none() {
    let fixture = Fixture::new();
    let folder = fixture.folder();
    assert_eq!(folder.read(&SMALL, "file.json").unwrap(), None);
    std::fs::write(fixture.path(), b"0123456789abcdef").unwrap();
    assert_eq!(
        folder.read(&SMALL, "file.json").unwrap().unwrap(),
        b"0123456789abcdef"
    );
    let error = folder.read(&SMALL, "../outside.txt").unwrap_err();
    assert_eq!(error.kind(), "invalid_name");
}

/// Every trap a folder of the program's can be, for reads and for writes.
#[test]
fn a_folder_of_the_programs_that_is_a_link_is_neither_followed_nor_removed() {
    let fixture = Fixture::new();
    let elsewhere = fixture.base.parent().unwrap().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("file.json"), b"{}").unwrap();
    std::fs::remove_dir(fixture.base.join("state")).unwrap();
    symlink(&elsewhere, fixture.base.join("state")).unwrap();

    let refusal = Folder::open(&fixture.base, &["state"]).unwrap_err();
    assert_eq!(refusal.kind(), "linked_folder", "{refusal}");
    assert!(refusal.to_string().contains("symbolic link"), "{refusal}");
    let refusal = Folder::create(&fixture.base, &["state", "deeper"]).unwrap_err();
    assert_eq!(refusal.kind(), "linked_folder", "{refusal}");
    assert!(
        std::fs::symlink_metadata(fixture.base.join("state"))
            .unwrap()
            .is_symlink()
    );
    let names: Vec<_> = std::fs::read_dir(&elsewhere).unwrap().collect();
    assert_eq!(names.len(), 1, "nothing was made through the link");

    // A file where a folder should be is refused too.
    std::fs::write(fixture.base.join("file-not-folder"), b"x").unwrap();
    let refusal = Folder::create(&fixture.base, &["file-not-folder"]).unwrap_err();
    assert!(refusal.to_string().contains("regular file"), "{refusal}");
    // And a missing one is simply missing, or made private.
    assert!(Folder::open(&fixture.base, &["missing"]).unwrap().is_none());
    let made = Folder::create(&fixture.base, &["made", "below"]).unwrap();
    for folder in [fixture.base.join("made"), made.path().to_path_buf()] {
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{}", folder.display());
    }
}

#[test]
fn a_folder_swapped_for_a_link_after_it_was_opened_is_not_written_through() {
    let fixture = Fixture::new();
    let folder = fixture.folder();
    let elsewhere = fixture.base.parent().unwrap().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::rename(fixture.base.join("state"), fixture.base.join("moved")).unwrap();
    symlink(&elsewhere, fixture.base.join("state")).unwrap();
    folder.replace(&SMALL, "file.json", b"{}").unwrap();
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(fixture.base.join("moved/file.json").is_file());
}

#[test]
fn a_new_file_refuses_a_planted_name_and_never_creates_through_a_link() {
    let fixture = Fixture::new();
    let folder = fixture.folder();
    let target = fixture.base.join("created-through-the-link");
    symlink(&target, fixture.path()).unwrap();
    let error = folder.create_new(&SMALL, "file.json").unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
    assert!(!target.exists());
    assert!(
        !folder.mark(&SMALL, "file.json").unwrap(),
        "something is there"
    );
    assert!(folder.has("file.json"));
    assert!(folder.mark(&SMALL, "marker").unwrap());
    assert!(folder.has("marker"));
}

#[test]
fn a_replaced_file_keeps_its_mode_and_a_roots_new_record_is_readable() {
    let fixture = Fixture::new();
    let folder = fixture.folder();
    std::fs::write(fixture.path(), b"old").unwrap();
    std::fs::set_permissions(fixture.path(), std::fs::Permissions::from_mode(0o640)).unwrap();
    folder.replace(&SMALL, "file.json", b"new").unwrap();
    let mode = std::fs::metadata(fixture.path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640);
    folder
        .replace(&INSTALL_RECORD, "record.json", b"{}")
        .unwrap();
    let mode = std::fs::metadata(folder.join("record.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o600, 0o600);
    assert_eq!(mode & 0o022, 0, "never writable by others");
}

#[test]
fn a_lock_excludes_and_leaves_no_file_behind() {
    let fixture = Fixture::new();
    let folder = fixture.folder();
    let inside = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (folder, inside) = (folder.clone(), Arc::clone(&inside));
            std::thread::spawn(move || {
                for _ in 0..50 {
                    let lock = folder
                        .lock(&INSTALL_LOCK_FILE, "the.lock", Wait::Forever)
                        .unwrap()
                        .unwrap();
                    // Removing the name on release must never let a second holder in.
                    assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                    assert!(folder.has("the.lock"));
                    for _ in 0..100 {
                        std::thread::yield_now();
                    }
                    inside.fetch_sub(1, Ordering::SeqCst);
                    drop(lock);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert!(!folder.has("the.lock"), "no lock file stays");
    let held = folder
        .lock(&INSTALL_LOCK_FILE, "the.lock", Wait::No)
        .unwrap();
    assert!(held.is_some());
    assert!(
        folder
            .lock(&INSTALL_LOCK_FILE, "the.lock", Wait::No)
            .unwrap()
            .is_none()
    );
    let waited = folder
        .lock(
            &INSTALL_LOCK_FILE,
            "the.lock",
            Wait::AtMost(Duration::from_millis(50)),
        )
        .unwrap();
    assert!(waited.is_none());
}

#[test]
fn a_lock_refuses_a_fifo_or_a_link_under_its_name() {
    let fixture = Fixture::new();
    let folder = fixture.folder();
    mkfifo(&fixture.path());
    let error = within({
        let folder = folder.clone();
        move || {
            folder
                .lock(&INSTALL_LOCK_FILE, "file.json", Wait::Forever)
                .unwrap_err()
        }
    });
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    let message = error.to_string();
    assert!(
        message.contains("FIFO") && message.contains("the install lock"),
        "{message}"
    );
    assert!(message.contains("remove it"), "{message}");
    std::fs::remove_file(fixture.path()).unwrap();
    let target = fixture.base.join("created-through-the-link");
    symlink(&target, fixture.path()).unwrap();
    let error = folder
        .lock(&INSTALL_LOCK_FILE, "file.json", Wait::Forever)
        .unwrap_err();
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert!(!target.exists(), "nothing is created through the link");
}

#[test]
fn removing_a_tree_removes_links_inside_it_without_following_them() {
    let fixture = Fixture::new();
    let folder = fixture.folder();
    let kept = fixture.base.parent().unwrap().join("kept");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join("precious"), b"keep").unwrap();
    let tree = fixture.base.join("state/tree");
    std::fs::create_dir_all(tree.join("a/b")).unwrap();
    std::fs::write(tree.join("a/b/file"), b"x").unwrap();
    symlink(&kept, tree.join("a/link")).unwrap();
    mkfifo(&tree.join("a/fifo"));
    within({
        let folder = folder.clone();
        move || folder.remove_tree("tree").unwrap()
    });
    assert!(!tree.exists());
    assert_eq!(std::fs::read(kept.join("precious")).unwrap(), b"keep");
    folder.remove_tree("tree").unwrap();
}

#[test]
fn a_temporary_file_is_removed_unless_it_is_kept() {
    let fixture = Fixture::new();
    let folder = fixture.folder();
    let mut temporary = folder.temporary("download").unwrap();
    std::io::Write::write_all(temporary.file().unwrap(), b"bytes").unwrap();
    drop(temporary);
    assert!(folder.entries().unwrap().is_empty());
    let mut temporary = folder.temporary("download").unwrap();
    std::io::Write::write_all(temporary.file().unwrap(), b"bytes").unwrap();
    temporary.persist("kept.bin", false).unwrap();
    assert_eq!(std::fs::read(folder.join("kept.bin")).unwrap(), b"bytes");
    let mut temporary = folder.temporary("download").unwrap();
    std::io::Write::write_all(temporary.file().unwrap(), b"other").unwrap();
    let error = temporary.persist("kept.bin", false).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(
        folder.entries().unwrap().len(),
        1,
        "the refused one is gone"
    );
}

#[test]
fn a_tree_is_written_below_without_following_anything() {
    let fixture = Fixture::new();
    let folder = fixture.folder();
    folder
        .write_new_below(&["a", "b", "file.txt"], b"text", 0o644)
        .unwrap();
    folder.symlink_below(&["a", "link"], "b/file.txt").unwrap();
    assert_eq!(
        std::fs::read(fixture.base.join("state/a/link")).unwrap(),
        b"text"
    );
    // A link in place of a folder of the tree stops the write instead of going through it.
    let elsewhere = fixture.base.parent().unwrap().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    symlink(&elsewhere, fixture.base.join("state/c")).unwrap();
    assert!(
        folder
            .write_new_below(&["c", "file.txt"], b"x", 0o644)
            .is_err()
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn the_table_names_each_kind_once_and_bounds_every_read() {
    let mut ids: Vec<&str> = KINDS.iter().map(|kind| kind.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), KINDS.len(), "ids are unique");
    for kind in KINDS {
        match kind.form {
            Form::File | Form::Log => assert!(kind.limit > 0, "{}", kind.id),
            Form::Lock | Form::Marker | Form::Tree => assert_eq!(kind.limit, 0, "{}", kind.id),
        }
        for folder in kind.folders {
            assert!(!folder.contains('/'), "{}: one folder per step", kind.id);
        }
        assert!(!kind.name.contains('/'), "{}", kind.id);
    }
}

#[test]
fn the_search_index_folder_refuses_a_fifo_in_the_index_without_hanging() {
    use tantivy::schema::{STORED, Schema, TEXT};
    use tantivy::{Index, IndexSettings, doc};
    let fixture = Fixture::new();
    let folder = fixture.folder();
    let mut schema = Schema::builder();
    let text = schema.add_text_field("text", TEXT | STORED);
    let schema = schema.build();
    let index = Index::create(
        IndexFolder::new(folder.clone()),
        schema.clone(),
        IndexSettings::default(),
    )
    .unwrap();
    let mut writer: tantivy::IndexWriter = index.writer(15_000_000).unwrap();
    writer.add_document(doc!(text => "hello state")).unwrap();
    writer.commit().unwrap();
    writer.wait_merging_threads().unwrap();
    let reader = index.reader().unwrap();
    assert_eq!(reader.searcher().num_docs(), 1);
    drop((reader, index));
    assert!(
        !folder
            .entries()
            .unwrap()
            .iter()
            .any(|entry| entry.name.ends_with(".lock")),
        "tantivy's locks are removed on release"
    );
    // Reopened as it is, then with each of its files made a trap.
    assert!(Index::open(IndexFolder::new(folder.clone())).is_ok());
    for entry in folder.entries().unwrap() {
        let path = folder.join(&entry.name);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        mkfifo(&path);
        let opened = within({
            let folder = folder.clone();
            move || {
                Index::open(IndexFolder::new(folder)).and_then(|index| {
                    let reader = index.reader()?;
                    Ok(reader.searcher().num_docs())
                })
            }
        });
        // `.managed.json` only lists files to clean up; any other file is needed.
        if entry.name != ".managed.json" {
            assert!(opened.is_err(), "{}: {opened:?}", entry.name);
        }
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, bytes).unwrap();
    }
}
