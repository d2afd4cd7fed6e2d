//! Local folders read under the extraction rules: links never followed or copied, special
//! files refused, hidden and build folders skipped, the same limits.

use std::fs;
use std::path::Path;

use super::*;
use crate::finder;

const SKILL: &[u8] = b"---\nname: alpha\ndescription: A test skill.\n---\nBody.\n";

fn write(root: &Path, relative: &str, bytes: &[u8]) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn paths(files: &[(String, Vec<u8>)]) -> Vec<&str> {
    files.iter().map(|(path, _)| path.as_str()).collect()
}

#[track_caller]
fn assert_refused<T: std::fmt::Debug>(result: Result<T, String>, needles: &[&str]) {
    let error = result.expect_err("the read must be refused");
    for needle in needles {
        assert!(
            error.contains(needle),
            "the message {error:?} does not mention {needle:?}"
        );
    }
}

#[test]
fn a_folder_is_read_sorted_with_hidden_and_build_folders_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "skills/alpha/SKILL.md", SKILL);
    write(root, "skills/alpha/references/a.md", b"a");
    write(
        root,
        "skills/alpha/assets/logo.png",
        &[0x89, b'P', b'N', b'G', 0, 0xff],
    );
    write(root, ".git/config", b"[core]");
    write(root, "skills/alpha/.env", b"SECRET=1");
    write(root, "node_modules/dep/SKILL.md", SKILL);
    write(root, "README.md", b"readme");
    let files = read(root, &Limits::default()).unwrap();
    assert_eq!(
        paths(&files),
        [
            "README.md",
            "skills/alpha/SKILL.md",
            "skills/alpha/assets/logo.png",
            "skills/alpha/references/a.md",
        ]
    );
    assert_eq!(files[3].1, b"a");
    assert_eq!(files[2].1, [0x89, b'P', b'N', b'G', 0, 0xff]);

    let url = url::Url::parse("file:///local").unwrap();
    let downloads = finder::skills(files, None, &url).unwrap();
    assert_eq!(downloads.len(), 1);
    assert_eq!(downloads[0].name.as_deref(), Some("alpha"));
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_secret_is_refused_and_never_read() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("id_rsa");
    fs::write(&secret, b"PRIVATE KEY").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "alpha/SKILL.md", SKILL);
    std::os::unix::fs::symlink(&secret, root.join("alpha/key")).unwrap();
    let error = read(root, &Limits::default()).unwrap_err();
    assert!(error.contains("'alpha/key' is a symbolic link"), "{error}");
    assert!(error.contains(&secret.display().to_string()), "{error}");
    assert!(!error.contains("PRIVATE KEY"), "{error}");
}

#[cfg(unix)]
#[test]
fn links_that_stay_inside_and_linked_folders_are_refused_too() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "alpha/SKILL.md", SKILL);
    std::os::unix::fs::symlink("SKILL.md", root.join("alpha/copy.md")).unwrap();
    assert_refused(
        read(root, &Limits::default()),
        &["'alpha/copy.md' is a symbolic link (to 'SKILL.md')"],
    );

    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", b"secret");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "alpha/SKILL.md", SKILL);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("alpha/docs")).unwrap();
    assert_refused(
        read(dir.path(), &Limits::default()),
        &["'alpha/docs' is a symbolic link"],
    );
}

#[cfg(unix)]
#[test]
fn a_link_inside_a_hidden_folder_is_skipped_with_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "skills/alpha/SKILL.md", SKILL);
    fs::create_dir(root.join(".claude")).unwrap();
    std::os::unix::fs::symlink("../skills", root.join(".claude/skills")).unwrap();
    let files = read(root, &Limits::default()).unwrap();
    assert_eq!(paths(&files), ["skills/alpha/SKILL.md"]);
}

#[cfg(unix)]
#[test]
fn the_root_the_user_names_may_be_a_link() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "real/SKILL.md", SKILL);
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("named")).unwrap();
    let files = read(&dir.path().join("named"), &Limits::default()).unwrap();
    assert_eq!(paths(&files), ["SKILL.md"]);
}

#[cfg(unix)]
#[test]
fn fifos_and_hard_links_are_refused_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "alpha/SKILL.md", SKILL);
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("alpha/pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert_refused(
        read(root, &Limits::default()),
        &["'alpha/pipe' is a FIFO (named pipe)"],
    );

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "alpha/SKILL.md", SKILL);
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret", b"secret");
    if fs::hard_link(outside.path().join("secret"), root.join("alpha/secret")).is_ok() {
        assert_refused(
            read(root, &Limits::default()),
            &["'alpha/secret' has 2 hard links"],
        );
    }
}

#[test]
fn names_the_path_check_refuses_are_refused() {
    for (name, why) in [
        ("alpha/a\\b.md", "'\\'"),
        ("alpha/nul.txt", "device"),
        ("alpha/x.", "ends with a dot"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "alpha/SKILL.md", SKILL);
        if fs::write(dir.path().join(name), b"x").is_err() {
            continue;
        }
        assert_refused(read(dir.path(), &Limits::default()), &[why]);
    }
}

#[test]
fn names_equal_by_case_collide() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "alpha/SKILL.md", SKILL);
    write(root, "alpha/Notes.md", b"1");
    // A case-insensitive filesystem has one file, which is fine.
    if fs::write(root.join("alpha/notes.md"), b"2").is_ok()
        && fs::read(root.join("alpha/Notes.md")).unwrap() == b"1"
    {
        assert_refused(
            read(root, &Limits::default()),
            &["'alpha/notes.md' and 'alpha/Notes.md' differ only by letter case"],
        );
    }
}

#[test]
fn the_limits_of_an_extraction_apply() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "alpha/SKILL.md", SKILL);
    write(root, "alpha/big.bin", &[0; 200]);
    write(root, "alpha/c.md", b"c");
    let limits = |entries, file, total| Limits {
        entries,
        file,
        total,
        ..Limits::default()
    };
    assert_refused(
        read(root, &limits(100, 100, 10_000)),
        &["'alpha/big.bin' is larger than 100 bytes"],
    );
    assert_refused(
        read(root, &limits(100, 1_000, 220)),
        &["exceed 220 bytes in total"],
    );
    assert_refused(
        read(root, &limits(3, 1_000, 10_000)),
        &["more than 3 files and folders"],
    );
    assert_eq!(read(root, &limits(4, 1_000, 10_000)).unwrap().len(), 3);
}

#[test]
fn an_archive_file_goes_through_the_extractor() {
    let dir = tempfile::tempdir().unwrap();
    let mut builder = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_path("alpha/SKILL.md").unwrap();
    header.set_size(SKILL.len() as u64);
    header.set_cksum();
    builder.append(&header, SKILL).unwrap();
    let tar = builder.into_inner().unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut encoder, &tar).unwrap();
    let bytes = encoder.finish().unwrap();
    fs::write(dir.path().join("skills.tgz"), &bytes).unwrap();
    // Recognised by its magic bytes when the name says nothing.
    fs::write(dir.path().join("download"), &bytes).unwrap();
    for name in ["skills.tgz", "download"] {
        let files = read(&dir.path().join(name), &Limits::default()).unwrap();
        assert_eq!(paths(&files), ["alpha/SKILL.md"]);
    }
    fs::write(dir.path().join("notes.txt"), b"hello").unwrap();
    assert_refused(
        read(&dir.path().join("notes.txt"), &Limits::default()),
        &["neither a folder nor a .zip or .tar.gz archive"],
    );
    fs::write(dir.path().join("cut.tgz"), &bytes[..bytes.len() / 2]).unwrap();
    assert_refused(
        read(&dir.path().join("cut.tgz"), &Limits::default()),
        &["cut.tgz", "tar.gz archive is refused"],
    );
    assert_refused(
        read(&dir.path().join("missing"), &Limits::default()),
        &["'", "missing", "cannot be read"],
    );
}

#[cfg(unix)]
#[test]
fn with_read_tree_a_link_beside_the_skills_is_left_out_and_one_inside_refused() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("id_rsa");
    fs::write(&secret, b"PRIVATE KEY").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "AGENTS.md", b"agents");
    std::os::unix::fs::symlink("AGENTS.md", root.join("CLAUDE.md")).unwrap();
    write(root, "skills/alpha/SKILL.md", SKILL);
    write(root, "skills/beta/SKILL.md", SKILL);
    std::os::unix::fs::symlink(&secret, root.join("skills/beta/key")).unwrap();
    let url = url::Url::parse("file:///local").unwrap();

    let tree = read_tree(root, &Limits::default()).unwrap();
    assert!(tree.files.iter().all(|(_, bytes)| bytes != b"PRIVATE KEY"));
    let downloads = finder::skills_in(tree.clone(), Some("skills/alpha"), &url).unwrap();
    assert_eq!(downloads.len(), 1);
    assert_eq!(downloads[0].files.len(), 1);
    let error = finder::skills_in(tree, None, &url).unwrap_err();
    assert!(
        error.contains("'skills/beta/key' is a symbolic link"),
        "{error}"
    );
    assert!(error.contains("part of the skill 'beta'"), "{error}");
    // The strict read refuses the folder for the first link.
    assert_refused(
        read(root, &Limits::default()),
        &["'CLAUDE.md' is a symbolic link (to 'AGENTS.md')"],
    );
}

#[test]
fn hidden_folders_are_read_hidden_files_and_excluded_folders_never() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "skills/.curated/fix-ci/SKILL.md", SKILL);
    write(root, "skills/.curated/fix-ci/scripts/a.py", b"print()");
    write(root, "skills/.curated/fix-ci/.env", b"SECRET=1");
    write(root, ".claude-plugin/plugin.json", b"{\"name\": \"p\"}");
    write(root, ".git/config", b"[core]");
    write(root, ".next/cache/x", b"x");
    write(root, "node_modules/dep/SKILL.md", SKILL);
    let tree = read_tree(root, &Limits::default()).unwrap();
    assert_eq!(
        paths(&tree.files),
        [
            ".claude-plugin/plugin.json",
            "skills/.curated/fix-ci/SKILL.md",
            "skills/.curated/fix-ci/scripts/a.py",
        ]
    );
    assert!(tree.files.iter().all(|(_, bytes)| bytes != b"SECRET=1"));
    let url = url::Url::parse("file:///local").unwrap();
    let search = finder::skills_found(tree, None, &url).unwrap();
    assert_eq!(search.found.len(), 1);
    assert_eq!(search.found[0].folder, "skills/.curated/fix-ci");
    assert_eq!(search.found[0].plugins, ["p"]);
    // The strict read keeps its old form: nothing below a hidden folder.
    assert!(read(root, &Limits::default()).unwrap().is_empty());
}

#[test]
fn a_file_over_the_limit_refuses_only_its_skill_and_is_not_read_past_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "big/SKILL.md", SKILL);
    write(root, "big/assets/movie.bin", &[7; 300]);
    write(root, "small/SKILL.md", SKILL);
    write(root, "demo.gif", &[7; 300]);
    let limits = Limits {
        file: 100,
        ..Limits::default()
    };
    let tree = read_tree(root, &limits).unwrap();
    assert!(tree.files.iter().all(|(_, bytes)| bytes.len() <= 100));
    let url = url::Url::parse("file:///local").unwrap();
    let search = finder::skills_found(tree, None, &url).unwrap();
    let found: Vec<(&str, bool)> = search
        .found
        .iter()
        .map(|found| (found.folder.as_str(), found.refusal.is_some()))
        .collect();
    assert_eq!(found, [("big", true), ("small", false)]);
    assert!(
        search.found[0]
            .refusal
            .as_deref()
            .unwrap()
            .contains("'big/assets/movie.bin' is larger than 100 bytes")
    );
}
