//! Tests of the safe reader (03 §Reading files safely; 06 §Safety and reliability,
//! Filesystem). A table of hostile paths and trees, each built in a fresh temporary skill folder
//! with an "outside" folder beside it, and each refused for its own stated reason; files and
//! folders swapped for symlinks between two reads and while reads are running; and a property
//! that whatever the reader accepts resolves inside the skill folder. Reads run on their own
//! thread with a deadline, so a reader that blocks (a FIFO opened without `O_NONBLOCK`) fails
//! the test instead of hanging it.

#![cfg(unix)]
#![cfg(unix)]

use std::fs::{self, OpenOptions};
use std::io::Read as _;
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, symlink};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rustix::fs::{FileType, Mode, OFlags};
use rustix::io::Errno;
use skills_types::limits::{
    MAX_RELATIVE_PATH_BYTES, MAX_RELATIVE_PATH_COMPONENTS, MAX_RESOURCE_BYTES,
};
use tempfile::TempDir;

use super::*;
use skills_types::path::{Refusal as Lexical, check_relative};

const CAP: u64 = MAX_RESOURCE_BYTES;
/// Longer than any correct read of a small file takes, short enough that a blocked read fails
/// the run quickly.
const DEADLINE: Duration = Duration::from_secs(5);

const SKILL_MD: &str = "---\nname: demo\ndescription: A demo skill.\n---\n# Demo\n";
const GUIDE: &str = "# Guide\n\nRead me.\n";
const DEEP: &str = "A file three folders down.\n";
/// What lies outside the skill; no accepted read may ever return it.
const SECRET: &str = "outside the skill: never to be read\n";

/// A fresh temporary folder holding `skill/` (a small real skill) and `outside/` beside it,
/// plus a file `x` in the folder holding both, which `skill/../x` would reach.
struct Tree {
    _temp: TempDir,
    root: PathBuf,
    skill: PathBuf,
    outside: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().to_path_buf();
        let skill = root.join("skill");
        let outside = root.join("outside");
        fs::create_dir_all(skill.join("references/deep")).unwrap();
        fs::create_dir(&outside).unwrap();
        fs::write(skill.join("SKILL.md"), SKILL_MD).unwrap();
        fs::write(skill.join("a.txt"), "a\n").unwrap();
        fs::write(skill.join("references/guide.md"), GUIDE).unwrap();
        fs::write(skill.join("references/deep/file.md"), DEEP).unwrap();
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        fs::write(outside.join("x"), SECRET).unwrap();
        fs::write(root.join("x"), SECRET).unwrap();
        Self {
            _temp: temp,
            root,
            skill,
            outside,
        }
    }

    /// Creates one hostile (or benign) thing beneath the skill folder. `Err` only when the
    /// platform does not let this process create it (a device node without `CAP_MKNOD`).
    fn plant(&self, plant: &Plant) -> Result<(), Unavailable> {
        let at = |relative: &str| {
            let path = self.skill.join(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            path
        };
        match plant {
            Plant::File(relative, bytes) => fs::write(at(relative), bytes).unwrap(),
            Plant::Folder(relative) => fs::create_dir_all(at(relative)).unwrap(),
            Plant::Symlink {
                at: relative,
                target,
            } => symlink(target, at(relative)).unwrap(),
            Plant::HardLink {
                at: relative,
                target,
            } => {
                fs::hard_link(self.root.join(target), at(relative)).unwrap();
            }
            Plant::Fifo(relative) => rustix::fs::mknodat(
                rustix::fs::CWD,
                at(relative),
                FileType::Fifo,
                Mode::from_raw_mode(0o600),
                0,
            )
            .unwrap(),
            Plant::CharacterDevice(relative) => {
                let path = at(relative);
                if let Err(errno) = rustix::fs::mknodat(
                    rustix::fs::CWD,
                    &path,
                    FileType::CharacterDevice,
                    Mode::from_raw_mode(0o600),
                    rustix::fs::makedev(1, 3),
                ) {
                    // Creating a device needs CAP_MKNOD in the initial user namespace: an
                    // ordinary user (and a user namespace) gets EPERM, and nothing else may
                    // make the case unplantable.
                    assert_eq!(
                        errno,
                        Errno::PERM,
                        "mknod failed for a reason other than EPERM"
                    );
                    return Err(Unavailable(format!(
                        "mknod of a character device failed ({errno}): this process lacks \
                         CAP_MKNOD"
                    )));
                }
            }
        }
        Ok(())
    }

    fn dir(&self, root: Root) -> PathBuf {
        match root {
            Root::Skill => self.skill.clone(),
            Root::SymlinkToSkill => {
                let link = self.root.join("skill-link");
                symlink("skill", &link).unwrap();
                link
            }
        }
    }
}

/// The platform refused to create a planted thing, and why, as it said.
struct Unavailable(String);

enum Plant {
    File(String, Vec<u8>),
    Folder(String),
    /// A symlink at a skill-relative path, with its target written as given.
    Symlink {
        at: String,
        target: String,
    },
    /// A hard link at a skill-relative path to a file named relative to the folder holding
    /// both `skill/` and `outside/`.
    HardLink {
        at: String,
        target: String,
    },
    Fifo(String),
    CharacterDevice(String),
}

fn file(at: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Plant {
    Plant::File(at.into(), bytes.into())
}

fn folder(at: &str) -> Plant {
    Plant::Folder(at.to_owned())
}

fn link(at: &str, target: &str) -> Plant {
    Plant::Symlink {
        at: at.to_owned(),
        target: target.to_owned(),
    }
}

fn hard_link(at: &str, target: &str) -> Plant {
    Plant::HardLink {
        at: at.to_owned(),
        target: target.to_owned(),
    }
}

/// The folder passed to `read_beneath` as the skill folder.
#[derive(Clone, Copy)]
enum Root {
    Skill,
    /// `skill-link`, a symlink beside the skill folder pointing at it.
    SymlinkToSkill,
}

/// One hostile case: a path, the tree it meets, and the refusal it must get.
struct Case {
    name: &'static str,
    path: String,
    plants: Vec<Plant>,
    root: Root,
    /// Whether a naive `fs::read(dir.join(path))` returns bytes in this tree, so the case is a
    /// real threat and not refused merely because nothing is there.
    exposed: bool,
    kind: &'static str,
    refusal: Refusal,
}

impl Case {
    fn new(
        name: &'static str,
        path: impl Into<String>,
        kind: &'static str,
        refusal: Refusal,
    ) -> Self {
        Self {
            name,
            path: path.into(),
            plants: Vec::new(),
            root: Root::Skill,
            exposed: false,
            kind,
            refusal,
        }
    }

    /// A path the lexical check refuses, with the exact reason.
    fn lexical(name: &'static str, path: impl Into<String>, refusal: Lexical) -> Self {
        Self::new(name, path, "invalid_path", Refusal::Path(refusal))
    }

    fn with(mut self, plant: Plant) -> Self {
        self.plants.push(plant);
        self
    }

    fn exposed(mut self) -> Self {
        self.exposed = true;
        self
    }

    fn beneath(mut self, root: Root) -> Self {
        self.root = root;
        self
    }
}

/// Reads `relative` beneath `dir` on another thread and fails the test if the read does not
/// return within [`DEADLINE`]: a reader that blocks (on a FIFO, a device) must not hang the run.
fn read(dir: &Path, relative: &str) -> Result<Read, Refusal> {
    let (sender, receiver) = mpsc::channel();
    let (thread_dir, thread_relative) = (dir.to_path_buf(), relative.to_owned());
    thread::spawn(move || {
        // The receiver is gone only if the deadline passed, which already failed the test.
        let _ = sender.send(read_beneath(&thread_dir, &thread_relative, CAP));
    });
    match receiver.recv_timeout(DEADLINE) {
        Ok(result) => result,
        Err(RecvTimeoutError::Timeout) => {
            panic!("read_beneath({dir:?}, {relative:?}) blocked for more than {DEADLINE:?}")
        }
        Err(RecvTimeoutError::Disconnected) => {
            panic!("read_beneath({dir:?}, {relative:?}) panicked")
        }
    }
}

/// What a path-based reader that trusts the lexical check alone would get: bytes or nothing.
/// Opened non-blocking so that probing a FIFO cannot hang either.
fn naive_read(path: &Path) -> bool {
    let nonblock = i32::try_from(OFlags::NONBLOCK.bits()).unwrap();
    OpenOptions::new()
        .read(true)
        .custom_flags(nonblock)
        .open(path)
        .and_then(|mut file| file.read_to_end(&mut Vec::new()))
        .is_ok()
}

/// A path of exactly `bytes` bytes in five components, each well under `NAME_MAX`.
fn path_of_length(bytes: usize) -> String {
    let head = vec!["l".repeat(200); 4].join("/");
    let tail = "t".repeat(bytes - head.len() - 1);
    format!("{head}/{tail}")
}

/// A path of exactly `components` components: folders `d`, then `f.md`.
fn path_of_depth(components: usize) -> String {
    let mut parts = vec!["d"; components - 1];
    parts.push("f.md");
    parts.join("/")
}

fn hostile_cases() -> Vec<Case> {
    let long = path_of_length(MAX_RELATIVE_PATH_BYTES + 1);
    let deep = path_of_depth(MAX_RELATIVE_PATH_COMPONENTS + 1);
    let over_cap = "a".repeat(usize::try_from(CAP).unwrap() + 1);
    vec![
        // The lexical check. Each path names something that really exists where a naive join
        // would look, so the refusal is the check's doing.
        Case::lexical("parent", "../x", Lexical::ParentDirectory).exposed(),
        Case::lexical(
            "parent_to_outside",
            "../outside/secret.txt",
            Lexical::ParentDirectory,
        )
        .exposed(),
        Case::lexical("parent_nested", "a/../../x", Lexical::ParentDirectory)
            .with(folder("a"))
            .exposed(),
        Case::lexical("absolute", "/etc/passwd", Lexical::Absolute).exposed(),
        Case::lexical("drive_backslash", "C:\\x", Lexical::Backslash)
            .with(file("C:\\x", SECRET))
            .exposed(),
        Case::lexical("drive_relative", "C:x", Lexical::Colon)
            .with(file("C:x", SECRET))
            .exposed(),
        Case::lexical("alternate_stream", "a.txt:hidden", Lexical::Colon)
            .with(file("a.txt:hidden", SECRET))
            .exposed(),
        Case::lexical("backslash", "a\\b", Lexical::Backslash)
            .with(file("a\\b", SECRET))
            .exposed(),
        Case::lexical("backslash_parent", "..\\x", Lexical::Backslash)
            .with(file("..\\x", SECRET))
            .exposed(),
        Case::lexical("dot_env", ".env", Lexical::Hidden(".env".into()))
            .with(file(".env", "TOKEN=hunter2\n"))
            .exposed(),
        Case::lexical("git_config", ".git/config", Lexical::Hidden(".git".into()))
            .with(file(".git/config", "[core]\n"))
            .exposed(),
        Case::lexical("current_in_middle", "a/./b", Lexical::CurrentDirectory)
            .with(file("a/b", SECRET))
            .exposed(),
        Case::lexical("current_leading_alone", "./", Lexical::CurrentDirectory),
        Case::lexical(
            "current_leading_then_parent",
            "./../x",
            Lexical::ParentDirectory,
        )
        .exposed(),
        Case::lexical(
            "current_leading_then_empty",
            ".//x",
            Lexical::CurrentDirectory,
        ),
        Case::lexical(
            "current_leading_then_middle",
            "./a/./b",
            Lexical::CurrentDirectory,
        )
        .with(file("a/b", SECRET))
        .exposed(),
        Case::lexical("empty", "", Lexical::Empty),
        Case::lexical("nul_byte", "SKILL.md\0.png", Lexical::Nul),
        Case::lexical("control_character", "a\nb", Lexical::ControlCharacter)
            .with(file("a\nb", SECRET))
            .exposed(),
        Case::lexical(
            "seventeen_components",
            deep.clone(),
            Lexical::TooManyComponents(MAX_RELATIVE_PATH_COMPONENTS + 1),
        )
        .with(file(deep, SECRET))
        .exposed(),
        Case::lexical(
            "over_long",
            long.clone(),
            Lexical::TooLong(MAX_RELATIVE_PATH_BYTES + 1),
        )
        .with(file(long, SECRET))
        .exposed(),
        Case::lexical(
            "empty_component",
            "references//guide.md",
            Lexical::EmptyComponent,
        )
        .exposed(),
        Case::lexical("trailing_slash", "references/", Lexical::EmptyComponent),
        Case::lexical("device_con", "CON", Lexical::DeviceName("CON".into()))
            .with(file("CON", SECRET))
            .exposed(),
        Case::lexical(
            "device_nul_txt",
            "nul.txt",
            Lexical::DeviceName("nul.txt".into()),
        )
        .with(file("nul.txt", SECRET))
        .exposed(),
        Case::lexical(
            "device_as_folder",
            "com1/x.md",
            Lexical::DeviceName("com1".into()),
        )
        .with(file("com1/x.md", SECRET))
        .exposed(),
        Case::lexical(
            "trailing_dot",
            "notes.",
            Lexical::TrailingDotOrSpace("notes.".into()),
        )
        .with(file("notes.", SECRET))
        .exposed(),
        Case::lexical(
            "trailing_space",
            "notes ",
            Lexical::TrailingDotOrSpace("notes ".into()),
        )
        .with(file("notes ", SECRET))
        .exposed(),
        Case::lexical(
            "trailing_dot_folder",
            "references./guide.md",
            Lexical::TrailingDotOrSpace("references.".into()),
        )
        .with(file("references./guide.md", SECRET))
        .exposed(),
        // Symlinks: none is followed, wherever it points.
        Case::new(
            "symlink_leaf_outside",
            "leak.md",
            "symlink",
            Refusal::Symlink,
        )
        .with(link("leak.md", "../outside/secret.txt"))
        .exposed(),
        Case::new(
            "symlink_leaf_inside",
            "alias.md",
            "symlink",
            Refusal::Symlink,
        )
        .with(link("alias.md", "SKILL.md"))
        .exposed(),
        Case::new(
            "symlink_leaf_absolute",
            "passwd.md",
            "symlink",
            Refusal::Symlink,
        )
        .with(link("passwd.md", "/etc/passwd"))
        .exposed(),
        Case::new(
            "symlink_leaf_dangling",
            "gone.md",
            "symlink",
            Refusal::Symlink,
        )
        .with(link("gone.md", "missing.md")),
        Case::new("symlink_loop", "loop.md", "symlink", Refusal::Symlink)
            .with(link("loop.md", "loop.md")),
        Case::new(
            "symlink_middle_inside",
            "docs/guide.md",
            "symlink",
            Refusal::Symlink,
        )
        .with(link("docs", "references"))
        .exposed(),
        Case::new(
            "symlink_middle_outside",
            "ext/secret.txt",
            "symlink",
            Refusal::Symlink,
        )
        .with(link("ext", "../outside"))
        .exposed(),
        Case::new(
            "symlink_middle_to_parent",
            "references/up/outside/secret.txt",
            "symlink",
            Refusal::Symlink,
        )
        .with(link("references/up", "../.."))
        .exposed(),
        Case::new(
            "symlink_to_proc_self",
            "proc/environ",
            "symlink",
            Refusal::Symlink,
        )
        .with(link("proc", "/proc/self"))
        .exposed(),
        Case::new(
            "symlinked_root",
            "SKILL.md",
            "symlinked_root",
            Refusal::SymlinkedRoot,
        )
        .beneath(Root::SymlinkToSkill)
        .exposed(),
        // Hard links: the link count of the opened file, wherever its other name lives.
        Case::new(
            "hard_link_outside",
            "hard.md",
            "hard_link",
            Refusal::HardLink(2),
        )
        .with(hard_link("hard.md", "outside/secret.txt"))
        .exposed(),
        Case::new(
            "hard_link_inside",
            "copy.md",
            "hard_link",
            Refusal::HardLink(2),
        )
        .with(hard_link("copy.md", "skill/SKILL.md"))
        .exposed(),
        // Things that are not regular files.
        Case::new("fifo", "pipe", "not_a_file", Refusal::NotAFile("FIFO"))
            .with(Plant::Fifo("pipe".into()))
            .exposed(),
        Case::new(
            "character_device",
            "null",
            "not_a_file",
            Refusal::NotAFile("character device"),
        )
        .with(Plant::CharacterDevice("null".into()))
        .exposed(),
        Case::new(
            "folder",
            "references",
            "not_a_file",
            Refusal::NotAFile("folder"),
        ),
        // Size and encoding.
        Case::new(
            "over_cap_by_one",
            "big.txt",
            "too_large",
            Refusal::TooLarge {
                size: CAP + 1,
                cap: CAP,
            },
        )
        .with(file("big.txt", over_cap))
        .exposed(),
        Case::new(
            "latin1",
            "latin1.txt",
            "not_utf8",
            Refusal::NotUtf8 { offset: 3 },
        )
        .with(file("latin1.txt", b"caf\xe9 au lait\n".as_slice()))
        .exposed(),
        Case::new(
            "overlong_slash",
            "overlong.txt",
            "not_utf8",
            Refusal::NotUtf8 { offset: 0 },
        )
        .with(file("overlong.txt", b"\xc0\xaf".as_slice()))
        .exposed(),
        Case::new(
            "truncated_at_end",
            "cut.txt",
            "not_utf8",
            Refusal::NotUtf8 { offset: 6 },
        )
        .with(file("cut.txt", b"ok \xe2\x9c\x93\xc3".as_slice()))
        .exposed(),
        Case::new(
            "utf16",
            "utf16.txt",
            "not_utf8",
            Refusal::NotUtf8 { offset: 0 },
        )
        .with(file("utf16.txt", b"\xff\xfeh\x00i\x00".as_slice()))
        .exposed(),
        // Nothing there.
        Case::new("missing_file", "missing.md", "not_found", Refusal::NotFound),
        Case::new(
            "missing_folder",
            "nowhere/file.md",
            "not_found",
            Refusal::NotFound,
        ),
        Case::new("through_a_file", "a.txt/b", "not_found", Refusal::NotFound),
        // Encodings of `..` are names, not traversal: nothing is decoded.
        Case::new(
            "percent_encoded_parent",
            "%2e%2e/x",
            "not_found",
            Refusal::NotFound,
        ),
        Case::new(
            "full_width_parent",
            "\u{ff0e}\u{ff0e}/x",
            "not_found",
            Refusal::NotFound,
        ),
    ]
}

#[test]
fn hostile_paths_and_trees_are_refused_with_their_reason() {
    let cases = hostile_cases();
    assert!(cases.len() >= 34, "06 asks for at least 30 hostile cases");
    let mut names: Vec<_> = cases.iter().map(|case| case.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names must be unique");

    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    for case in &cases {
        let tree = Tree::new();
        if let Some(Unavailable(why)) = case.plants.iter().find_map(|plant| tree.plant(plant).err())
        {
            skipped.push(format!("{} ({why})", case.name));
            continue;
        }
        let dir = tree.dir(case.root);
        if naive_read(&dir.join(&case.path)) != case.exposed {
            failures.push(format!(
                "{}: the fixture is wrong: a naive read {} bytes",
                case.name,
                if case.exposed {
                    "returns no"
                } else {
                    "returns"
                }
            ));
        }
        match read(&dir, &case.path) {
            Ok(read) => failures.push(format!(
                "{}: {:?} was read ({} bytes: {:?}), expected {:?}",
                case.name, case.path, read.bytes, read.content, case.refusal
            )),
            Err(refusal) => {
                if refusal.kind() != case.kind || refusal != case.refusal {
                    failures.push(format!(
                        "{}: {:?} was refused as {} ({refusal:?}: {refusal}), expected {} ({:?})",
                        case.name,
                        case.path,
                        refusal.kind(),
                        case.kind,
                        case.refusal
                    ));
                }
            }
        }
        // The bytes mode refuses everything the text mode does but text that is not UTF-8,
        // which it returns exactly as stored.
        let bytes = read_bytes_beneath(&dir, &case.path, CAP);
        match (&case.refusal, bytes) {
            (Refusal::NotUtf8 { .. }, Ok(read)) => {
                if fs::read(dir.join(&case.path)).ok() != Some(read.data) {
                    failures.push(format!("{}: the bytes mode changed the bytes", case.name));
                }
            }
            (Refusal::NotUtf8 { .. }, Err(refusal)) => failures.push(format!(
                "{}: the bytes mode refused bytes it should return ({refusal:?})",
                case.name
            )),
            (expected, Ok(read)) => failures.push(format!(
                "{}: the bytes mode read {} bytes, expected {expected:?}",
                case.name,
                read.data.len()
            )),
            (expected, Err(refusal)) if &refusal != expected => failures.push(format!(
                "{}: the bytes mode refused as {refusal:?}, expected {expected:?}",
                case.name
            )),
            (_, Err(_)) => {}
        }
    }
    // Counted, with the platform's reason: only the device case can be skipped, and only
    // where the kernel refuses to make a device (the suite as root runs every case).
    eprintln!(
        "hostile cases: {} of {} run; skipped: {skipped:?}",
        cases.len() - skipped.len(),
        cases.len()
    );
    assert!(
        skipped.len() <= 1,
        "more than the device case was skipped: {skipped:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_unusable_skill_folder_is_refused() {
    let tree = Tree::new();
    symlink("missing", tree.root.join("dangling")).unwrap();
    symlink("skill/SKILL.md", tree.root.join("to-a-file")).unwrap();
    let cases = [
        (tree.root.join("missing"), "root_unavailable"),
        (tree.skill.join("SKILL.md"), "root_unavailable"),
        (tree.root.join("dangling"), "symlinked_root"),
        (tree.root.join("to-a-file"), "symlinked_root"),
    ];
    for (dir, kind) in cases {
        let refusal = read(&dir, "SKILL.md").unwrap_err();
        assert_eq!(refusal.kind(), kind, "{dir:?}: {refusal}");
    }
}

/// Fails today (reader bug): a trailing `/` or `/.` on the skill folder's path makes the kernel
/// resolve the symlink it names before `O_NOFOLLOW` applies, so a symlinked skill folder is
/// read as if it were real. `dir.join("")` is enough to produce such a path.
#[test]
fn a_symlinked_root_is_refused_however_its_path_is_spelled() {
    let tree = Tree::new();
    let dir = tree.dir(Root::SymlinkToSkill);
    // `dir.join("")` is `skill-link/`.
    let spellings = [dir.clone(), dir.join(""), dir.join("."), dir.join("./.")];
    let mut read_anyway = Vec::new();
    for spelling in spellings {
        match read(&spelling, "SKILL.md") {
            Err(Refusal::SymlinkedRoot) => {}
            other => read_anyway.push(format!("{spelling:?}: {other:?}")),
        }
    }
    assert!(
        read_anyway.is_empty(),
        "a symlinked skill folder was not refused:\n{}",
        read_anyway.join("\n")
    );
}

/// Fails today (reader bug, diagnostics only): `open` of a socket answers `ENXIO` before
/// `fstat` can see it, so the refusal is `io` ("No such device or address") instead of the
/// `not_a_file` the reader's own `Socket` arm intends. It is still refused.
#[test]
fn a_socket_is_refused_as_not_a_file() {
    let tree = Tree::new();
    let _listener = std::os::unix::net::UnixListener::bind(tree.skill.join("socket")).unwrap();
    let refusal = read(&tree.skill, "socket").unwrap_err();
    assert_eq!(
        (refusal.kind(), &refusal),
        ("not_a_file", &Refusal::NotAFile("socket")),
        "{refusal}"
    );
}

/// One case the reader must accept, with what it must return.
struct Accepted {
    path: String,
    plants: Vec<Plant>,
    content: String,
}

fn accepted(path: impl Into<String>, content: impl Into<String>) -> Accepted {
    let (path, content) = (path.into(), content.into());
    Accepted {
        plants: vec![file(path.clone(), content.clone())],
        path,
        content,
    }
}

#[test]
fn plain_files_are_read_whole() {
    let exact = "\u{e9}".repeat(usize::try_from(CAP).unwrap() / 2);
    let cases = vec![
        Accepted {
            path: "SKILL.md".into(),
            plants: Vec::new(),
            content: SKILL_MD.into(),
        },
        Accepted {
            path: "references/deep/file.md".into(),
            plants: Vec::new(),
            content: DEEP.into(),
        },
        accepted(
            "r\u{e9}f\u{e9}rences/\u{65e5}\u{672c}\u{8a9e}-\u{30ce}\u{30fc}\u{30c8}.md",
            "unicode\n",
        ),
        accepted("with spaces/my notes.md", "spaces\n"),
        accepted("exact.txt", exact.clone()),
        accepted("empty.md", ""),
        accepted("console.md", "not a device\n"),
        accepted("com10", "not a device either\n"),
        accepted("a.b.c.md", "dots inside\n"),
        accepted(
            path_of_depth(MAX_RELATIVE_PATH_COMPONENTS),
            "sixteen deep\n",
        ),
        accepted(
            path_of_length(MAX_RELATIVE_PATH_BYTES),
            "1,024 bytes of path\n",
        ),
    ];
    for case in cases {
        let tree = Tree::new();
        for plant in &case.plants {
            assert!(tree.plant(plant).is_ok());
        }
        let read = read(&tree.skill, &case.path)
            .unwrap_or_else(|refusal| panic!("{:?} was refused: {refusal}", case.path));
        assert_eq!(read.relative_path, case.path);
        assert_eq!(read.content, case.content, "{:?}", case.path);
        assert_eq!(read.bytes, case.content.len() as u64, "{:?}", case.path);
    }
    // The cap is inclusive: a file of exactly the cap is read in full.
    assert_eq!(exact.len() as u64, CAP);
}

#[test]
fn a_fifo_does_not_block_the_reader() {
    let tree = Tree::new();
    assert!(tree.plant(&Plant::Fifo("pipe.md".into())).is_ok());
    // `read` fails the test through its channel deadline if the open blocks waiting for a
    // writer; no writer ever comes.
    assert_eq!(read(&tree.skill, "pipe.md"), Err(Refusal::NotAFile("FIFO")));
}

#[test]
fn a_file_swapped_for_a_symlink_between_reads_is_refused() {
    let tree = Tree::new();
    let same = "identical on both sides\n";
    fs::write(tree.skill.join("notes.md"), same).unwrap();
    fs::write(tree.outside.join("notes.md"), same).unwrap();
    let first = read(&tree.skill, "notes.md").unwrap();
    assert_eq!(first.content, same);

    fs::remove_file(tree.skill.join("notes.md")).unwrap();
    symlink("../outside/notes.md", tree.skill.join("notes.md")).unwrap();
    // Same bytes at the same path: only the symlink itself can make the reader refuse.
    assert_eq!(
        fs::read_to_string(tree.skill.join("notes.md")).unwrap(),
        same
    );
    let second = read(&tree.skill, "notes.md").unwrap_err();
    assert_eq!(second.kind(), "symlink");
    assert_eq!(second, Refusal::Symlink);
}

#[test]
fn a_folder_swapped_for_a_symlink_between_reads_is_refused() {
    let tree = Tree::new();
    let first = read(&tree.skill, "references/guide.md").unwrap();
    assert_eq!(first.content, GUIDE);

    // The real folder moves outside and a symlink to it takes its place.
    fs::rename(
        tree.skill.join("references"),
        tree.outside.join("references"),
    )
    .unwrap();
    symlink("../outside/references", tree.skill.join("references")).unwrap();
    assert_eq!(
        fs::read_to_string(tree.skill.join("references/guide.md")).unwrap(),
        GUIDE
    );
    let second = read(&tree.skill, "references/guide.md").unwrap_err();
    assert_eq!(second.kind(), "symlink");
    assert_eq!(second, Refusal::Symlink);
}

/// The check-then-open race: another thread keeps atomically exchanging a file and a folder
/// with symlinks to outside look-alikes holding different text. Every read that succeeds must
/// return the inside text; a reader that checked the path and then opened it again would
/// sooner or later return the outside text.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn racing_symlink_swaps_never_leak_outside_content() {
    use rustix::fs::{CWD, RenameFlags, renameat_with};

    let tree = Tree::new();
    let inside = "inside\n";
    fs::write(tree.skill.join("notes.md"), inside).unwrap();
    fs::write(tree.skill.join("references/guide.md"), inside).unwrap();
    fs::create_dir(tree.outside.join("references")).unwrap();
    fs::write(tree.outside.join("notes.md"), SECRET).unwrap();
    fs::write(tree.outside.join("references/guide.md"), SECRET).unwrap();
    symlink("../outside/notes.md", tree.skill.join("notes.swap")).unwrap();
    symlink("../outside/references", tree.skill.join("references.swap")).unwrap();

    let stop = AtomicBool::new(false);
    thread::scope(|scope| {
        let swapper = scope.spawn(|| {
            let pairs = [
                ("notes.md", "notes.swap"),
                ("references", "references.swap"),
            ];
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for (real, swap) in pairs {
                    renameat_with(
                        CWD,
                        tree.skill.join(real),
                        CWD,
                        tree.skill.join(swap),
                        RenameFlags::EXCHANGE,
                    )
                    .unwrap();
                }
                swaps += 1;
            }
            swaps
        });
        let mut outcomes = Vec::new();
        for _ in 0..2_000 {
            for path in ["notes.md", "references/guide.md"] {
                outcomes.push((path, read_beneath(&tree.skill, path, CAP)));
            }
        }
        stop.store(true, Ordering::Relaxed);
        let swaps = swapper.join().unwrap();
        for (path, outcome) in outcomes {
            match outcome {
                Ok(read) => assert_eq!(read.content, inside, "{path}: outside text leaked"),
                Err(refusal) => assert_eq!(refusal, Refusal::Symlink, "{path}"),
            }
        }
        assert!(swaps > 0, "the swapper never ran");
    });
}

/// Segments the property joins into paths: traversal, separators, Windows syntax, and the
/// names of real files, folders and symlinks in [`property_tree`].
const SEGMENTS: &[&str] = &[
    "a", "b", "..", ".", "", "link", "inner", "x.md", "CON", " ", "\\", ":", "/",
];

/// The names alone: paths made of them pass the lexical check, so they exercise the opener
/// (real files, folders, symlinks both ways, `..`-free but symlink-crossing walks).
const NAMES: &[&str] = &["a", "b", "link", "inner", "x.md"];

/// A fixed tree for the property: real files and folders, a symlinked folder pointing outside
/// (`link`) and one pointing inside (`inner`), leaf symlinks both ways (`a/link`, `a/inner`),
/// names the lexical check refuses (`CON`, ` `), and look-alikes outside and above the skill so
/// that an escape would find something to read.
fn property_tree() -> Tree {
    let tree = Tree::new();
    for (path, content) in [
        ("x.md", "skill x.md\n"),
        ("b", "skill b\n"),
        ("a/b", "skill a/b\n"),
        ("a/x.md", "skill a/x.md\n"),
        ("a/a/x.md", "skill a/a/x.md\n"),
        ("a/a/b", "skill a/a/b\n"),
        ("CON", "skill CON\n"),
        (" ", "skill space\n"),
    ] {
        assert!(tree.plant(&file(path, content)).is_ok());
    }
    for plant in [
        link("link", "../outside"),
        link("inner", "a"),
        link("a/link", "../../outside/x.md"),
        link("a/inner", "../x.md"),
    ] {
        assert!(tree.plant(&plant).is_ok());
    }
    for path in ["x.md", "b", "a/x.md", "a/b", "inner/x.md", "link/x.md"] {
        for base in [&tree.outside, &tree.root] {
            let target = base.join(path);
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::write(target, SECRET).unwrap();
        }
    }
    tree
}

/// What a reader following 03 must return, worked out the slow, obvious way: the text of a
/// plain, singly linked, small UTF-8 file reached through real folders only, or nothing.
fn model(dir: &Path, relative: &str) -> Option<String> {
    let components = check_relative(path::strip_current_dir_prefix(relative)).ok()?;
    let mut current = dir.to_path_buf();
    for (index, component) in components.iter().enumerate() {
        current.push(component);
        let metadata = fs::symlink_metadata(&current).ok()?;
        let last = index + 1 == components.len();
        let fits = if last {
            metadata.is_file() && metadata.nlink() == 1 && metadata.len() <= CAP
        } else {
            metadata.is_dir()
        };
        if !fits {
            return None;
        }
    }
    String::from_utf8(fs::read(&current).ok()?).ok()
}

/// The property for one path: an accepted read resolves inside the skill folder and returns
/// that file's text; and the reader accepts exactly what [`model`] accepts.
fn check_one(tree: &Tree, canonical_skill: &Path, relative: &str) -> Result<(), TestCaseError> {
    let fail = |error: std::io::Error| TestCaseError::fail(format!("{relative:?}: {error}"));
    let outcome = read_beneath(&tree.skill, relative, CAP);
    if let Ok(read) = &outcome {
        let resolved = fs::canonicalize(tree.skill.join(&read.relative_path)).map_err(fail)?;
        prop_assert!(
            resolved.starts_with(canonical_skill),
            "{relative:?} was read from {resolved:?}, outside {canonical_skill:?}"
        );
        prop_assert_eq!(&read.content, &fs::read_to_string(&resolved).map_err(fail)?);
        prop_assert_eq!(read.bytes, read.content.len() as u64);
        // The path as checked: the one asked for, without its leading `./` prefixes.
        prop_assert_eq!(
            &read.relative_path,
            path::strip_current_dir_prefix(relative)
        );
        prop_assert!(!read.relative_path.starts_with("./"));
    }
    let expected = model(&tree.skill, relative);
    prop_assert_eq!(
        outcome.as_ref().ok().map(|read| &read.content),
        expected.as_ref(),
        "{:?}: reader {:?}",
        relative,
        outcome
    );
    Ok(())
}

#[test]
fn whatever_is_read_lies_inside_the_skill_folder() {
    let tree = property_tree();
    let canonical_skill = fs::canonicalize(&tree.skill).unwrap();

    // The model and the reader agree on known answers, so the property is not vacuous.
    for path in [
        "x.md", "b", "a/b", "a/x.md", "a/a/x.md", "./a/b", "././x.md",
    ] {
        assert!(read_beneath(&tree.skill, path, CAP).is_ok(), "{path}");
        check_one(&tree, &canonical_skill, path).unwrap();
    }
    for path in ["link/x.md", "inner/x.md", "a/link", "a/inner"] {
        assert_eq!(
            read_beneath(&tree.skill, path, CAP),
            Err(Refusal::Symlink),
            "{path}"
        );
        check_one(&tree, &canonical_skill, path).unwrap();
    }

    let joined = prop::collection::vec(prop::sample::select(SEGMENTS), 1..8)
        .prop_map(|segments| segments.join("/"));
    let glued = prop::collection::vec(prop::sample::select(SEGMENTS), 1..8)
        .prop_map(|segments| segments.concat());
    let walks =
        prop::collection::vec(prop::sample::select(NAMES), 1..5).prop_map(|names| names.join("/"));
    // Real walks spelled with leading `./` prefixes, which the reader drops before the check.
    let dotted = (
        1usize..4,
        prop::collection::vec(prop::sample::select(NAMES), 1..5),
    )
        .prop_map(|(prefixes, names)| format!("{}{}", "./".repeat(prefixes), names.join("/")));
    let strategy = prop_oneof![
        4 => joined,
        4 => walks,
        2 => dotted,
        1 => glued,
        1 => "[abx./\\\\: \\x00\\n]{0,24}",
        2 => any::<String>(),
    ];
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    if let Err(error) = runner.run(&strategy, |relative| {
        check_one(&tree, &canonical_skill, &relative)
    }) {
        panic!("{error}");
    }
}

/// The component-by-component fallback (used where `openat2` is missing) on its own: it reads a
/// plain nested file and refuses a symlink in the middle and at the leaf.
#[test]
fn the_fallback_walk_follows_no_symlink() {
    let base = tempfile::tempdir().unwrap();
    let skill = base.path().join("skill");
    let outside = base.path().join("outside");
    fs::create_dir_all(skill.join("references")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(skill.join("references/a.md"), "inside").unwrap();
    fs::write(outside.join("a.md"), "outside").unwrap();
    symlink(&outside, skill.join("linked")).unwrap();
    symlink(outside.join("a.md"), skill.join("leaf.md")).unwrap();
    let root = rustix::fs::open(&skill, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
    let file = imp::walk(&root, &["references", "a.md"]).unwrap();
    let mut text = String::new();
    fs::File::from(file).read_to_string(&mut text).unwrap();
    assert_eq!(text, "inside");
    assert_eq!(
        imp::walk(&root, &["linked", "a.md"]).unwrap_err(),
        Refusal::Symlink
    );
    assert_eq!(
        imp::walk(&root, &["leaf.md"]).unwrap_err(),
        Refusal::Symlink
    );
    assert_eq!(
        imp::walk(&root, &["missing", "a.md"]).unwrap_err(),
        Refusal::NotFound
    );
}
