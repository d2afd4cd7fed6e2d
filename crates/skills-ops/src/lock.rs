//! The root's `skills-lock.json` (03 §Writing to disk): a record of what was installed into a
//! skill root, from where, with which digests. Install writes entries; uninstall removes them.
//! The file is JSON so people and other tools can read it; it is rewritten atomically.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use skills_types::Error;
use skills_types::files::LOCK_FILE;

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
pub fn read(root: &Path) -> Result<LockFile, Error> {
    let path = root.join(LOCK_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(LockFile {
                version: LOCK_VERSION,
                skills: BTreeMap::new(),
            });
        }
        Err(source) => return Err(Error::io("read", &path, source)),
    };
    serde_json::from_str(&text).map_err(|error| {
        Error::InvalidInput(format!(
            "{} is not a valid lock file ({error}); fix or remove it",
            path.display()
        ))
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

/// Records `entry` for `name` in the lock of `root`.
pub fn record(root: &Path, name: &str, entry: serde_json::Value) -> Result<(), Error> {
    let mut lock = read(root)?;
    lock.version = LOCK_VERSION;
    lock.skills.insert(name.to_owned(), entry);
    write(root, &lock)
}

/// Removes `name` from the lock of `root`, when there is a lock and it has the entry.
pub fn forget(root: &Path, name: &str) -> Result<(), Error> {
    if !root.join(LOCK_FILE).exists() {
        return Ok(());
    }
    let mut lock = read(root)?;
    if lock.skills.remove(name).is_some() {
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
        assert_eq!(forget(dir.path(), "b").unwrap_err().kind(), "invalid_input");
    }
}
