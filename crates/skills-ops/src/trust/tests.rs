//! Trust on real temporary trees: the record lives in the home and names a folder by path and
//! identity (device, inode, birth time); a folder made again with its old inode, an old record
//! without birth times, a marker in the tree and a bad record trust nothing.

use std::os::unix::fs::MetadataExt as _;

use super::*;

/// A home and a parent folder holding workspaces.
struct Tree {
    home: tempfile::TempDir,
    parent: tempfile::TempDir,
}

impl Tree {
    fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            parent: tempfile::tempdir().unwrap(),
        }
    }

    /// A new workspace folder under the parent.
    fn workspace(&self, name: &str) -> PathBuf {
        let path = self.parent.path().join(name);
        std::fs::create_dir_all(&path).unwrap();
        path
    }

    fn config(&self, workspace: &Path) -> SkillsConfig {
        SkillsConfig::new(workspace, self.home.path())
    }

    fn record(&self) -> PathBuf {
        self.home.path().join(".openhuman").join(TRUST_FILE)
    }
}

fn codes(standing: &Standing) -> Vec<DiagnosticCode> {
    standing.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn trusting_records_in_the_home_and_never_writes_the_workspace() {
    let tree = Tree::new();
    let workspace = tree.workspace("ws");
    let config = tree.config(&workspace);
    assert!(!is_trusted(&config));
    let change = trust(&config, &workspace).unwrap();
    assert_eq!(change.workspace, std::fs::canonicalize(&workspace).unwrap());
    assert!(change.trusted && change.changed);
    assert!(is_trusted(&config));
    assert_eq!(std::fs::read_dir(&workspace).unwrap().count(), 0);
    let record: TrustFile = serde_json::from_slice(&std::fs::read(tree.record()).unwrap()).unwrap();
    assert_eq!(record.version, TRUST_FILE_VERSION);
    assert_eq!(record.workspaces.len(), 1);
    let metadata = std::fs::metadata(&workspace).unwrap();
    assert_eq!(record.workspaces[0].inode, metadata.ino());
    assert_eq!(record.workspaces[0].device, metadata.dev());
    // The birth time the standard library reads (`statx` on Linux), to the nanosecond.
    let created = metadata
        .created()
        .unwrap()
        .duration_since(UNIX_EPOCH)
        .unwrap();
    assert_eq!(
        record.workspaces[0].birth,
        Some(Birth {
            seconds: created.as_secs() as i64,
            nanoseconds: created.subsec_nanos(),
        })
    );
    // Trusting again changes nothing.
    assert!(!trust(&config, &workspace).unwrap().changed);
    assert_eq!(list(&config).unwrap().len(), 1);
    let revoked = revoke(&config, &workspace).unwrap();
    assert!(revoked.changed && !revoked.trusted);
    assert!(!is_trusted(&config));
    assert!(!revoke(&config, &workspace).unwrap().changed);
}

#[test]
fn a_marker_in_the_tree_never_trusts_and_is_reported_once() {
    let tree = Tree::new();
    for (name, plant) in [
        ("file", 0),
        ("dangling-link", 1),
        ("folder", 2),
        ("empty-file", 3),
    ] {
        let workspace = tree.workspace(name);
        let config = tree.config(&workspace);
        let marker = legacy_marker_path(&config);
        std::fs::create_dir_all(marker.parent().unwrap()).unwrap();
        match plant {
            0 => std::fs::write(&marker, "This workspace is trusted.\n").unwrap(),
            1 => std::os::unix::fs::symlink("/nonexistent/trust", &marker).unwrap(),
            2 => std::fs::create_dir(&marker).unwrap(),
            _ => std::fs::write(&marker, "").unwrap(),
        }
        let standing = standing(&config);
        assert!(!standing.trusted, "{name}");
        assert_eq!(
            codes(&standing),
            [DiagnosticCode::TrustMarkerIgnored],
            "{name}"
        );
        let message = &standing.diagnostics[0].message;
        assert!(
            message.contains("recorded per user")
                && message.contains(&format!("skills trust {}", workspace.display())),
            "{message}"
        );
        // Once trusted by the user, the marker is nobody's business.
        trust(&config, &workspace).unwrap();
        let standing = super::standing(&config);
        assert!(
            standing.trusted && standing.diagnostics.is_empty(),
            "{name}"
        );
    }
}

#[test]
fn a_renamed_or_copied_tree_is_not_trusted() {
    let tree = Tree::new();
    let workspace = tree.workspace("ws");
    trust(&tree.config(&workspace), &workspace).unwrap();

    // A copy at another path: same files, another folder.
    let copy = tree.workspace("copy");
    assert!(!is_trusted(&tree.config(&copy)));

    // A rename keeps the inode but not the path.
    let renamed = tree.parent.path().join("renamed");
    std::fs::rename(&workspace, &renamed).unwrap();
    assert!(!is_trusted(&tree.config(&renamed)));
    let listed = list(&tree.config(&renamed)).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].state, TrustState::Missing);

    // Moving the copy to the trusted path: the path matches, the folder does not.
    std::fs::rename(&copy, &workspace).unwrap();
    assert!(!is_trusted(&tree.config(&workspace)));
    assert_eq!(
        list(&tree.config(&workspace)).unwrap()[0].state,
        TrustState::Replaced
    );
    // Trusting it again records the folder there now, once.
    trust(&tree.config(&workspace), &workspace).unwrap();
    assert!(is_trusted(&tree.config(&workspace)));
    let listed = list(&tree.config(&workspace)).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].state, TrustState::Trusted);
}

#[test]
fn a_folder_deleted_and_made_again_is_not_trusted() {
    let tree = Tree::new();
    let workspace = tree.workspace("ws");
    trust(&tree.config(&workspace), &workspace).unwrap();
    // Holding the old folder open keeps its inode from being handed to the new one.
    let old = std::fs::File::open(&workspace).unwrap();
    std::fs::remove_dir(&workspace).unwrap();
    std::fs::create_dir(&workspace).unwrap();
    assert!(!is_trusted(&tree.config(&workspace)));
    drop(old);
}

/// The `statfs` magic of ext2, ext3 and ext4.
const EXT4_MAGIC: u64 = 0xEF53;

/// A temporary folder on ext4, where a folder deleted and made again gets its inode back:
/// the system's temporary folder, or else this build's `target` folder.
fn ext4_folder() -> Option<tempfile::TempDir> {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
    [std::env::temp_dir(), target]
        .into_iter()
        .find_map(|candidate| {
            let kind = rustix::fs::statfs(&candidate).ok()?.f_type as u64;
            (kind == EXT4_MAGIC).then(|| tempfile::tempdir_in(&candidate).ok())?
        })
}

#[test]
fn a_folder_made_again_with_its_old_inode_is_not_trusted() {
    // The attack of issue 29: on ext4 `rm -rf ws && git clone other ws` gives the new folder
    // the old inode, which device-and-inode trust took for the trusted folder. Where no ext4
    // folder is at hand the loop still runs, on the temporary folder's file system, and
    // proves the folder untrusted; that the inode came back is asserted on ext4 only.
    let ext4 = ext4_folder();
    let parent = match &ext4 {
        Some(dir) => dir.path().to_path_buf(),
        None => std::env::temp_dir(),
    };
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir_in(&parent).unwrap();
    let workspace = workspace.path().join("ws");
    let config = SkillsConfig::new(&workspace, home.path());
    let mut reused = 0;
    for _ in 0..64 {
        std::fs::create_dir(&workspace).unwrap();
        let inode = std::fs::metadata(&workspace).unwrap().ino();
        trust(&config, &workspace).unwrap();
        assert!(is_trusted(&config));
        // Made again at once, as a script would: the same clock tick, when the clock allows.
        std::fs::remove_dir(&workspace).unwrap();
        std::fs::create_dir(&workspace).unwrap();
        let again = std::fs::metadata(&workspace).unwrap().ino();
        let standing = standing(&config);
        assert!(
            !standing.trusted,
            "a folder made again is not the trusted one"
        );
        assert_eq!(codes(&standing), [DiagnosticCode::TrustReplaced]);
        assert!(
            standing.diagnostics[0]
                .message
                .contains(&format!("run `skills trust {}`", workspace.display())),
            "{}",
            standing.diagnostics[0].message
        );
        assert_eq!(
            list(&config).unwrap()[0].state,
            TrustState::Replaced,
            "one record, of a replaced folder"
        );
        std::fs::remove_dir(&workspace).unwrap();
        if again == inode {
            reused += 1;
            if reused == 8 {
                break;
            }
        }
    }
    if ext4.is_some() {
        assert_eq!(reused, 8, "ext4 gave the inode back 8 times in 64 tries");
    }
}

#[test]
fn trust_is_recorded_only_once_the_clock_is_past_the_birth() {
    // What makes the birth time a name no later folder can take: every folder made after
    // `trust` returns is stamped at least this late.
    let tree = Tree::new();
    for round in 0..16 {
        let workspace = tree.workspace(&format!("fresh-{round}"));
        trust(&tree.config(&workspace), &workspace).unwrap();
        let now = stamping_clock();
        let birth = identity(&workspace).unwrap().birth.unwrap();
        assert!(
            now >= nanoseconds(birth) + SETTLE_MARGIN.as_nanos() as i128,
            "round {round}: the clock {now} is not past the birth {birth:?}"
        );
    }
}

#[test]
fn a_record_decides_by_device_inode_and_birth() {
    let birth = Some(Birth {
        seconds: 1_700_000_000,
        nanoseconds: 5,
    });
    let later = Some(Birth {
        seconds: 1_700_000_000,
        nanoseconds: 6,
    });
    let folder = |device, inode, birth| Folder {
        path: PathBuf::from("/w"),
        device,
        inode,
        birth,
    };
    let record = |device, inode, birth| TrustRecord {
        path: PathBuf::from("/w"),
        device,
        inode,
        birth,
        trusted_at: 0,
    };
    let cases = [
        (
            "the trusted folder",
            folder(1, 2, birth),
            record(1, 2, birth),
            Verdict::Same,
        ),
        (
            "made again, same inode",
            folder(1, 2, later),
            record(1, 2, birth),
            Verdict::Replaced,
        ),
        (
            "another inode",
            folder(1, 3, birth),
            record(1, 2, birth),
            Verdict::Replaced,
        ),
        (
            "another device",
            folder(9, 2, birth),
            record(1, 2, birth),
            Verdict::Replaced,
        ),
        (
            "a version 1 record",
            folder(1, 2, birth),
            record(1, 2, None),
            Verdict::Outdated,
        ),
        (
            "no birth time now",
            folder(1, 2, None),
            record(1, 2, birth),
            Verdict::Unverifiable,
        ),
        (
            "neither has one",
            folder(1, 2, None),
            record(1, 2, None),
            Verdict::Outdated,
        ),
        (
            "version 1, replaced",
            folder(1, 3, None),
            record(1, 2, None),
            Verdict::Replaced,
        ),
    ];
    for (name, folder, record, verdict) in cases {
        assert_eq!(folder.verdict(&record), verdict, "{name}");
        let diagnostic = not_the_trusted_folder(verdict, &folder.path);
        assert_eq!(diagnostic.is_none(), verdict == Verdict::Same, "{name}");
        if let Some(diagnostic) = diagnostic {
            assert_eq!(diagnostic.severity, Severity::Warning, "{name}");
        }
    }
}

#[test]
fn an_old_record_trusts_nothing_until_trusted_again() {
    let tree = Tree::new();
    let workspace = tree.workspace("ws");
    let other = tree.workspace("other");
    let config = tree.config(&workspace);
    let metadata = std::fs::metadata(&workspace).unwrap();
    let canonical = std::fs::canonicalize(&workspace).unwrap();
    // A version 1 record of this very folder (path, device and inode all match).
    let old = serde_json::json!({
        "version": 1,
        "workspaces": [
            {"path": canonical, "device": metadata.dev(), "inode": metadata.ino(), "trusted_at": 7},
            {"path": std::fs::canonicalize(&other).unwrap(), "device": 0, "inode": 0, "trusted_at": 8},
        ],
    });
    std::fs::create_dir_all(tree.record().parent().unwrap()).unwrap();
    std::fs::write(tree.record(), old.to_string()).unwrap();
    let standing = standing(&config);
    assert!(!standing.trusted);
    assert_eq!(codes(&standing), [DiagnosticCode::TrustReplaced]);
    let message = &standing.diagnostics[0].message;
    assert!(
        message.contains("older version")
            && message.contains(&format!("skills trust {}", canonical.display())),
        "{message}"
    );
    assert_eq!(list(&config).unwrap()[0].state, TrustState::Outdated);
    // Trusting again records the folder with its birth, in a version 2 file; the other old
    // record is kept, and still trusts nothing.
    assert!(trust(&config, &workspace).unwrap().changed);
    assert!(is_trusted(&config));
    let record: TrustFile = serde_json::from_slice(&std::fs::read(tree.record()).unwrap()).unwrap();
    assert_eq!(record.version, TRUST_FILE_VERSION);
    assert_eq!(record.workspaces.len(), 2);
    assert!(
        record
            .workspaces
            .iter()
            .any(|r| r.path == canonical && r.birth.is_some())
    );
    assert!(!is_trusted(&tree.config(&other)));
}

#[test]
fn a_symlinked_workspace_path_is_the_real_folder() {
    let tree = Tree::new();
    let real = tree.workspace("real");
    let link = tree.parent.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let change = trust(&tree.config(&link), &link).unwrap();
    assert_eq!(change.workspace, std::fs::canonicalize(&real).unwrap());
    assert!(is_trusted(&tree.config(&real)));
    assert!(is_trusted(&tree.config(&link)));
    assert!(revoke(&tree.config(&real), &link).unwrap().changed);
    assert!(!is_trusted(&tree.config(&real)));
}

#[test]
fn a_vanished_folder_can_be_revoked() {
    let tree = Tree::new();
    let workspace = tree.workspace("gone");
    let config = tree.config(&workspace);
    trust(&config, &workspace).unwrap();
    std::fs::remove_dir(&workspace).unwrap();
    assert_eq!(list(&config).unwrap()[0].state, TrustState::Missing);
    // Typed through `..` as a person might.
    let canonical_parent = std::fs::canonicalize(tree.parent.path()).unwrap();
    let change = revoke(&config, &canonical_parent.join("x/../gone")).unwrap();
    assert!(change.changed, "{change:?}");
    assert!(list(&config).unwrap().is_empty());
}

#[test]
fn the_record_is_replaced_atomically() {
    let tree = Tree::new();
    let first = tree.workspace("first");
    let second = tree.workspace("second");
    trust(&tree.config(&first), &first).unwrap();
    let before = std::fs::metadata(tree.record()).unwrap().ino();
    trust(&tree.config(&second), &second).unwrap();
    // A new file renamed over the old one, not the old one rewritten in place.
    assert_ne!(std::fs::metadata(tree.record()).unwrap().ino(), before);
    let names: Vec<String> = std::fs::read_dir(tree.record().parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [TRUST_FILE], "no temporary file is left behind");
    assert!(is_trusted(&tree.config(&first)) && is_trusted(&tree.config(&second)));
}

#[test]
fn a_bad_record_trusts_nothing_and_says_why() {
    let tree = Tree::new();
    let workspace = tree.workspace("ws");
    let config = tree.config(&workspace);
    trust(&config, &workspace).unwrap();
    let good = std::fs::read(tree.record()).unwrap();
    let elsewhere = tree.parent.path().join("elsewhere.json");
    std::fs::write(&elsewhere, &good).unwrap();
    let oversized = vec![b' '; skills_types::limits::MAX_TRUST_FILE_BYTES as usize + 1];
    type Plant<'a> = Box<dyn Fn(&Path) + 'a>;
    let cases: Vec<(&str, Plant<'_>, &str)> = vec![
        (
            "corrupt",
            Box::new(|p| std::fs::write(p, "{not json").unwrap()),
            "not a valid record",
        ),
        (
            "truncated",
            Box::new(|p| std::fs::write(p, &good[..good.len() / 2]).unwrap()),
            "not a valid record",
        ),
        (
            "newer",
            Box::new(|p| std::fs::write(p, r#"{"version":9,"workspaces":[]}"#).unwrap()),
            "version 9",
        ),
        (
            "too large",
            Box::new(|p| std::fs::write(p, &oversized).unwrap()),
            "more than the",
        ),
        (
            "folder",
            Box::new(|p| std::fs::create_dir(p).unwrap()),
            "not a regular file",
        ),
        (
            "fifo",
            Box::new(|p| {
                rustix::fs::mkfifoat(
                    rustix::fs::CWD,
                    p,
                    rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
                )
                .unwrap()
            }),
            "not a regular file",
        ),
        (
            "symlink to a good record",
            Box::new(|p| std::os::unix::fs::symlink(&elsewhere, p).unwrap()),
            "symbolic link",
        ),
    ];
    for (name, plant, reason) in cases {
        let record = tree.record();
        match std::fs::symlink_metadata(&record) {
            Ok(metadata) if metadata.is_dir() => std::fs::remove_dir(&record).unwrap(),
            Ok(_) => std::fs::remove_file(&record).unwrap(),
            Err(_) => {}
        }
        plant(&record);
        let standing = standing(&config);
        assert!(!standing.trusted, "{name}");
        assert_eq!(
            codes(&standing),
            [DiagnosticCode::TrustRecordInvalid],
            "{name}"
        );
        let message = &standing.diagnostics[0].message;
        assert!(
            message.contains(reason) && message.contains("no workspace is trusted"),
            "{name}: {message}"
        );
        let error = trust(&config, &workspace).unwrap_err();
        assert_eq!(error.kind(), "trust_record_invalid", "{name}");
        assert!(list(&config).is_err(), "{name}");
        assert!(revoke(&config, &workspace).is_err(), "{name}");
    }
}

#[test]
fn the_policy_decides_first_and_the_old_spelling_still_reads() {
    let tree = Tree::new();
    let workspace = tree.workspace("ws");
    let mut config = tree.config(&workspace);
    config.trust = TrustPolicy::Always;
    assert!(is_trusted(&config));
    trust(&config, &workspace).unwrap();
    config.trust = TrustPolicy::Never;
    assert!(!is_trusted(&config));
    let old: TrustPolicy = serde_json::from_str(r#""marker""#).unwrap();
    assert_eq!(old, TrustPolicy::User);
    assert_eq!(
        serde_json::to_string(&TrustPolicy::User).unwrap(),
        r#""user""#
    );
}
