//! Polling what the kernel will not watch (a root past the cap on watches, a refusal, no
//! inotify at all): every poll interval, one `stat` per path the plan names (its folders, and
//! the definition files, which an in-place edit changes without changing any folder), compared
//! with the last one. Only a path whose answer moved is reported, so a poll of an unchanged
//! root walks nothing and rediscovers nothing.
//!
//! What is compared is what a change changes: the device and inode (a folder replaced), the
//! size, the modification time and the status-change time to the nanosecond (an entry made,
//! removed or renamed in a folder; two saves within one second), and never the access time,
//! which reading a file (this process's own discovery included) moves.

use std::path::{Path, PathBuf};

/// What a `stat` of one path said, links followed; `None` when it failed (the path is gone).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Signature {
    identity: (u64, u64),
    size: u64,
    modified: Option<std::time::SystemTime>,
    changed: (i64, i64),
}

fn signature(path: &Path) -> Option<Signature> {
    let metadata = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let (identity, changed) = {
        use std::os::unix::fs::MetadataExt;
        (
            (metadata.dev(), metadata.ino()),
            (metadata.ctime(), metadata.ctime_nsec()),
        )
    };
    #[cfg(not(unix))]
    let (identity, changed) = ((0, 0), (0, 0));
    Some(Signature {
        identity,
        size: metadata.len(),
        modified: metadata.modified().ok(),
        changed,
    })
}

/// The last answer for every path one poll looks at.
#[derive(Debug, Default)]
pub(super) struct Snapshot {
    entries: Vec<(PathBuf, Option<Signature>)>,
}

impl Snapshot {
    /// Looks at `paths` as they are now.
    pub(super) fn take(paths: Vec<PathBuf>) -> Self {
        Self {
            entries: paths
                .into_iter()
                .map(|path| {
                    let now = signature(&path);
                    (path, now)
                })
                .collect(),
        }
    }

    /// Looks at every path again: the paths whose answer moved since the last look (kept as
    /// the new last answer).
    pub(super) fn changed(&mut self) -> Vec<PathBuf> {
        let mut moved = Vec::new();
        for (path, last) in &mut self.entries {
            let now = signature(path);
            if now != *last {
                *last = now;
                moved.push(path.clone());
            }
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poll_names_what_moved_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("skill");
        std::fs::create_dir(&folder).unwrap();
        let file = folder.join("SKILL.md");
        std::fs::write(&file, "one").unwrap();
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let mut snapshot = Snapshot::take(vec![folder.clone(), file.clone(), other.clone()]);
        assert!(snapshot.changed().is_empty(), "nothing moved");

        // Read: the access time is not looked at.
        std::fs::read(&file).unwrap();
        assert!(snapshot.changed().is_empty());

        // Edited in place, within the same second as before: the file, not its folder.
        let second = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000);
        let handle = std::fs::File::options().write(true).open(&file).unwrap();
        handle
            .set_modified(second + std::time::Duration::from_millis(100))
            .unwrap();
        snapshot.changed();
        handle
            .set_modified(second + std::time::Duration::from_millis(600))
            .unwrap();
        assert_eq!(snapshot.changed(), std::slice::from_ref(&file));

        // An entry made in a folder; a folder removed.
        std::fs::write(folder.join("notes.md"), "x").unwrap();
        std::fs::remove_dir(&other).unwrap();
        assert_eq!(snapshot.changed(), [folder, other]);
        assert!(snapshot.changed().is_empty());
    }
}
