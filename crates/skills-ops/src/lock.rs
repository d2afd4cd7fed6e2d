//! The root's `skills-lock.json` (03 §Writing to disk): a record of what was installed into a
//! skill root, from where, with which digests. Install writes entries; uninstall removes them.
//! The file is JSON so people and other tools can read it; it is rewritten atomically.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use skills_types::Error;
use skills_types::files::{INSTALL_LOCK, LOCK_FILE};
use skills_types::limits::MAX_LOCK_FILE_BYTES;

use crate::fs;

/// The format written now.
pub const LOCK_VERSION: u32 = 1;

/// The whole file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LockFile {
    pub version: u32,
    /// Installed skills by folder name; each entry is kept as written (fields vary by source).
    #[serde(default)]
    pub skills: BTreeMap<String, serde_json::Value>,
}

/// Reads the lock of `root`; a missing file is an empty lock.
///
/// The file is opened without following a symlink and without blocking on a FIFO, and must
/// be a regular file holding a valid lock: installs and uninstalls read it before they
/// change anything, so a broken lock stops them with nothing changed (a FIFO here once hung
/// them forever, after the skill was already on disk).
pub fn read(root: &Path) -> Result<LockFile, Error> {
    let path = root.join(LOCK_FILE);
    let invalid = |reason: String| Error::StateFileInvalid {
        path: path.clone(),
        reason: format!(
            "{reason}. It is the record of what was installed into {}: restore it as the JSON file it was, or remove it to start a new record (the skills themselves keep their own .skill-source.json)",
            root.display()
        ),
    };
    let Some(bytes) = fs::read_state_file(&path, MAX_LOCK_FILE_BYTES).map_err(invalid)? else {
        return Ok(LockFile {
            version: LOCK_VERSION,
            skills: BTreeMap::new(),
        });
    };
    let lock: LockFile = serde_json::from_slice(&bytes)
        .map_err(|error| invalid(format!("it is not a valid lock file ({error})")))?;
    if lock.version > LOCK_VERSION {
        return Err(invalid(format!(
            "it has version {}, and this build writes version {LOCK_VERSION}; rewriting it could lose what a newer version recorded",
            lock.version
        )));
    }
    Ok(lock)
}

/// Takes the install lock of `root` ([`fs::lock_root`]), held until the guard is dropped. A
/// planted file under the lock's name is reported as such, with what to remove.
pub fn hold(root: &Path) -> Result<fs::RootLock, Error> {
    fs::lock_root(root).map_err(|source| {
        if source.kind() == std::io::ErrorKind::InvalidInput {
            Error::StateFileInvalid {
                path: root.join(INSTALL_LOCK),
                reason: source.to_string(),
            }
        } else {
            Error::io("lock", root, source)
        }
    })
}

/// Writes the lock of `root` atomically.
pub fn write(root: &Path, lock: &LockFile) -> Result<(), Error> {
    let path = root.join(LOCK_FILE);
    let mut text = serde_json::to_string_pretty(lock)
        .map_err(|error| Error::InvalidInput(format!("the lock cannot be written: {error}")))?;
    text.push('\n');
    fs::write_atomic(&path, text.as_bytes()).map_err(|source| Error::io("write", &path, source))
}

impl LockFile {
    /// Records `entry` for `name`.
    pub fn record(&mut self, name: &str, entry: serde_json::Value) {
        self.version = LOCK_VERSION;
        self.skills.insert(name.to_owned(), entry);
    }

    /// Drops the entry of `name`; whether there was one.
    pub fn forget(&mut self, name: &str) -> bool {
        self.skills.remove(name).is_some()
    }
}

/// Records `entry` for `name` in the lock of `root`.
pub fn record(root: &Path, name: &str, entry: serde_json::Value) -> Result<(), Error> {
    let mut lock = read(root)?;
    lock.record(name, entry);
    write(root, &lock)
}

/// Removes `name` from the lock of `root`, when there is a lock and it has the entry.
pub fn forget(root: &Path, name: &str) -> Result<(), Error> {
    let mut lock = read(root)?;
    if lock.forget(name) {
        write(root, &lock)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forget_removes_only_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        forget(dir.path(), "x").unwrap();
        assert!(!dir.path().join(LOCK_FILE).exists());
        let mut lock = read(dir.path()).unwrap();
        lock.skills
            .insert("a".into(), serde_json::json!({"source": "https://a"}));
        lock.skills
            .insert("b".into(), serde_json::json!({"source": "https://b"}));
        write(dir.path(), &lock).unwrap();
        forget(dir.path(), "a").unwrap();
        let after = read(dir.path()).unwrap();
        assert_eq!(after.skills.keys().collect::<Vec<_>>(), ["b"]);
        std::fs::write(dir.path().join(LOCK_FILE), "{").unwrap();
        assert_eq!(
            forget(dir.path(), "b").unwrap_err().kind(),
            "state_file_invalid"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_that_is_not_a_regular_file_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &path,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let error = read(dir.path()).unwrap_err();
        assert_eq!(error.kind(), "state_file_invalid");
        let message = error.to_string();
        assert!(message.contains("FIFO"), "{message}");
        assert!(message.contains("remove it"), "{message}");
        std::fs::remove_file(&path).unwrap();

        std::fs::write(dir.path().join("elsewhere.json"), "{\"version\":1}").unwrap();
        std::os::unix::fs::symlink("elsewhere.json", &path).unwrap();
        let message = read(dir.path()).unwrap_err().to_string();
        assert!(message.contains("symbolic link"), "{message}");
    }

    #[test]
    fn a_lock_from_a_newer_version_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "{\"version\":99,\"skills\":{}}").unwrap();
        assert_eq!(read(dir.path()).unwrap_err().kind(), "state_file_invalid");
    }
}
