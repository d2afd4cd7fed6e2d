//! The root's install record, `.skills-installed.json` (03 §Writing to disk): what was
//! installed into a skill root, from where, with which digests. Install writes entries;
//! uninstall removes them. The file is JSON so people and other tools can read it; it is
//! rewritten atomically.
//!
//! Its name was `skills-lock.json`, which the vercel tool uses for a different file (its
//! project lock). An old record under that name is read as the record and moved to the new
//! name by the next write; a `skills-lock.json` in the vercel tool's shape is never read as
//! ours and never touched. A project restore reads the vercel tool's lock at the workspace
//! root as what it is ([`read_vercel`]), and never writes it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use skills_types::Error;
use skills_types::files::{INSTALL_LOCK, LEGACY_LOCK_FILE, LOCK_FILE, VERCEL_LOCK_FILE};

use crate::state::{
    self, Folder, INSTALL_LOCK_FILE, INSTALL_RECORD, LEGACY_INSTALL_RECORD, VERCEL_LOCK,
};

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

/// Reads the record of `root`; a missing file is an empty record. Without one under the
/// current name, an old record of ours under [`LEGACY_LOCK_FILE`] is read instead.
///
/// The file is opened without following a symlink and without blocking on a FIFO, and must
/// be a regular file holding a valid record: installs and uninstalls read it before they
/// change anything, so a broken record stops them with nothing changed (a FIFO here once hung
/// them forever, after the skill was already on disk).
pub fn read(root: &Path) -> Result<LockFile, Error> {
    if let Some(lock) = read_named(root, LOCK_FILE)? {
        return Ok(lock);
    }
    Ok(legacy(root)?.unwrap_or_else(|| LockFile {
        version: LOCK_VERSION,
        skills: BTreeMap::new(),
    }))
}

/// The record under `name` in `root`, when there is a file.
fn read_named(root: &Path, name: &str) -> Result<Option<LockFile>, Error> {
    let Some(bytes) = read_bytes(root, name)? else {
        return Ok(None);
    };
    let lock: LockFile = serde_json::from_slice(&bytes).map_err(|error| {
        invalid(
            root,
            name,
            format!("it is not a valid install record ({error})"),
        )
    })?;
    if lock.version > LOCK_VERSION {
        return Err(invalid(
            root,
            name,
            format!(
                "it has version {}, and this build writes version {LOCK_VERSION}; rewriting it could lose what a newer version recorded",
                lock.version
            ),
        ));
    }
    Ok(Some(lock))
}

fn read_bytes(root: &Path, name: &str) -> Result<Option<Vec<u8>>, Error> {
    let kind = if name == LEGACY_LOCK_FILE {
        &LEGACY_INSTALL_RECORD
    } else {
        &INSTALL_RECORD
    };
    let folder =
        Folder::open(root, &[]).map_err(|refusal| invalid(root, name, refusal.to_string()))?;
    let Some(folder) = folder else {
        return Ok(None);
    };
    folder
        .read(kind, name)
        .map_err(|refusal| invalid(root, name, refusal.to_string()))
}

fn invalid(root: &Path, name: &str, reason: String) -> Error {
    Error::StateFileInvalid {
        path: root.join(name),
        reason: format!(
            "{reason}. It is the record of what was installed into {}: restore it as the JSON file it was, or remove it to start a new record (the skills themselves keep their own .skill-source.json)",
            root.display()
        ),
    }
}

/// An old record of ours under [`LEGACY_LOCK_FILE`]: `None` when there is no such file or it
/// is another tool's (the vercel tool's project lock has the same name). A file there that is
/// not JSON at all stops the caller, as a broken record does: it is most likely ours, and
/// going on would forget what it recorded.
fn legacy(root: &Path) -> Result<Option<LockFile>, Error> {
    let Some(bytes) = read_bytes(root, LEGACY_LOCK_FILE)? else {
        return Ok(None);
    };
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|error| {
        invalid(
            root,
            LEGACY_LOCK_FILE,
            format!("it is not valid JSON ({error})"),
        )
    })?;
    if !is_ours(&value) {
        return Ok(None);
    }
    read_named(root, LEGACY_LOCK_FILE)
}

/// Whether a `skills-lock.json` was written by this program: `{version, skills}` whose every
/// entry records our `source_url` and none of the vercel tool's `sourceType` or
/// `computedHash`. An empty one counts as ours: adopting it loses nothing either way.
pub fn is_ours(value: &serde_json::Value) -> bool {
    let Some(skills) = value.get("skills").and_then(serde_json::Value::as_object) else {
        return false;
    };
    value.get("version").is_some_and(serde_json::Value::is_u64)
        && skills.values().all(|entry| {
            entry.get("source_url").is_some()
                && entry.get("sourceType").is_none()
                && entry.get("computedHash").is_none()
        })
}

/// The version of the vercel tool's project lock this program reads.
pub const VERCEL_LOCK_VERSION: u64 = 1;

/// The vercel tool's project lock (`skills-lock.json` at a project's root, vercel-labs/skills
/// `src/local-lock.ts`): `{version: 1, skills: {<name>: {source, ref?, sourceType,
/// computedHash, skillPath?, sourceUrl?}}}`. Entries are kept as written: the fields vary with
/// the tool's version and the kind of source, and one entry this program cannot restore must
/// not keep the others from being restored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VercelLock {
    /// The file's `version`.
    pub version: u64,
    /// The skills by name, each entry as written.
    pub skills: BTreeMap<String, serde_json::Value>,
}

/// Reads the vercel tool's project lock in `workspace`; `None` when there is none, or when the
/// file there is an old record of ours under the same name (which is not a project lock).
/// Opened like every state file (no link followed, no FIFO waited on, bounded); a file that
/// is not a lock of a version this program reads stops the restore that asked for it, naming
/// the file.
pub fn read_vercel(workspace: &Path) -> Result<Option<VercelLock>, Error> {
    let refused = |reason: String| Error::StateFileInvalid {
        path: workspace.join(VERCEL_LOCK_FILE),
        reason: format!(
            "{reason}. It is the vercel tool's project lock, which a project restore reads (and never writes): fix it, or move it away to restore from this program's records alone"
        ),
    };
    let folder = Folder::open(workspace, &[]).map_err(|refusal| refused(refusal.to_string()))?;
    let Some(folder) = folder else {
        return Ok(None);
    };
    let Some(bytes) = folder
        .read(&VERCEL_LOCK, VERCEL_LOCK_FILE)
        .map_err(|refusal| refused(refusal.to_string()))?
    else {
        return Ok(None);
    };
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|error| refused(format!("it is not valid JSON ({error})")))?;
    // An empty lock counts as ours too; it lists nothing to restore either way.
    if is_ours(&value) {
        return Ok(None);
    }
    let version = value
        .get("version")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| refused("it has no numeric `version`".to_owned()))?;
    if version != VERCEL_LOCK_VERSION {
        return Err(refused(format!(
            "it has version {version}, and this program reads version {VERCEL_LOCK_VERSION}"
        )));
    }
    let skills = match value.get("skills") {
        Some(serde_json::Value::Object(skills)) => skills
            .iter()
            .map(|(name, entry)| (name.clone(), entry.clone()))
            .collect(),
        _ => return Err(refused("it has no `skills` object".to_owned())),
    };
    Ok(Some(VercelLock { version, skills }))
}

/// Takes the exclusive install lock of `root` (`.skills-install.lock`), waiting for another
/// writer to finish; the lock is released (and its file removed) when the guard is dropped,
/// or when the process dies, so a crash never leaves a root locked. A planted file under the
/// lock's name (a link, a FIFO) is reported as such, with what to remove.
pub fn hold(root: &Path) -> Result<state::Lock, Error> {
    let refused = |source: std::io::Error| {
        if source.kind() == std::io::ErrorKind::InvalidInput {
            Error::StateFileInvalid {
                path: root.join(INSTALL_LOCK),
                reason: source.to_string(),
            }
        } else {
            Error::io("lock", root, source)
        }
    };
    let folder = Folder::open(root, &[])
        .map_err(|refusal| refused(refusal.into()))?
        .ok_or_else(|| Error::io("lock", root, std::io::ErrorKind::NotFound.into()))?;
    folder
        .lock(&INSTALL_LOCK_FILE, INSTALL_LOCK, state::Wait::Forever)
        .map_err(refused)?
        .ok_or_else(|| Error::io("lock", root, std::io::ErrorKind::WouldBlock.into()))
}

/// Writes the record of `root` atomically, then removes an old record of ours under
/// [`LEGACY_LOCK_FILE`] (whatever it held is in `lock`, which was read from it). Called
/// under the root's install lock.
pub fn write(root: &Path, lock: &LockFile) -> Result<(), Error> {
    let path = root.join(LOCK_FILE);
    let mut text = serde_json::to_string_pretty(lock).map_err(|error| Error::Internal {
        action: "encoding the install lock".to_owned(),
        reason: error.to_string(),
    })?;
    text.push('\n');
    let folder = Folder::open(root, &[])
        .map_err(|refusal| Error::io("write", &path, refusal.into()))?
        .ok_or_else(|| Error::io("write", &path, std::io::ErrorKind::NotFound.into()))?;
    folder
        .replace(&INSTALL_RECORD, LOCK_FILE, text.as_bytes())
        .map_err(|source| Error::io("write", &path, source))?;
    let old = root.join(LEGACY_LOCK_FILE);
    let ours = read_bytes(root, LEGACY_LOCK_FILE)
        .ok()
        .flatten()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|value| is_ours(&value));
    if ours {
        folder
            .remove(LEGACY_LOCK_FILE)
            .map_err(|source| Error::io("remove", &old, source))?;
        let _ = folder.sync();
    }
    Ok(())
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
    fn an_old_record_is_read_and_moved_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(LEGACY_LOCK_FILE);
        let text = r#"{"version":1,"skills":{"a":{"source_url":"https://a/SKILL.md","kind":"skill-md","sha256":"sha256:00"}}}"#;
        std::fs::write(&old, text).unwrap();
        let lock = read(dir.path()).unwrap();
        assert_eq!(lock.skills.keys().collect::<Vec<_>>(), ["a"]);
        assert!(old.is_file(), "reading changes nothing");
        forget(dir.path(), "b").unwrap();
        assert!(old.is_file(), "nothing to write, nothing moved");
        record(
            dir.path(),
            "b",
            serde_json::json!({"source_url": "https://b"}),
        )
        .unwrap();
        assert!(!old.exists(), "moved");
        let after = read(dir.path()).unwrap();
        assert_eq!(after.skills.keys().collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn the_vercel_tools_lock_under_the_old_name_is_never_ours() {
        let dir = tempfile::tempdir().unwrap();
        let theirs = dir.path().join(LEGACY_LOCK_FILE);
        let text = "{\n  \"version\": 1,\n  \"skills\": {\n    \"pdf\": {\n      \"source\": \"acme/skills\",\n      \"sourceType\": \"github\",\n      \"computedHash\": \"ab\"\n    }\n  }\n}\n";
        std::fs::write(&theirs, text).unwrap();
        assert!(read(dir.path()).unwrap().skills.is_empty());
        record(
            dir.path(),
            "x",
            serde_json::json!({"source_url": "https://x"}),
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(&theirs).unwrap(),
            text,
            "left byte for byte"
        );
        assert_eq!(
            read(dir.path()).unwrap().skills.keys().collect::<Vec<_>>(),
            ["x"]
        );
    }

    #[test]
    fn a_broken_old_record_stops_the_caller() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LEGACY_LOCK_FILE), "{").unwrap();
        let error = read(dir.path()).unwrap_err();
        assert_eq!(error.kind(), "state_file_invalid");
        assert!(error.to_string().contains(LEGACY_LOCK_FILE), "{error}");
    }

    #[test]
    fn the_vercel_tools_lock_is_read_as_written_and_ours_is_not_taken_for_it() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_vercel(dir.path()).unwrap(), None);
        let path = dir.path().join(VERCEL_LOCK_FILE);
        let text = "{\n  \"version\": 1,\n  \"skills\": {\n    \"pdf\": {\n      \"source\": \"acme/skills\",\n      \"ref\": \"v1\",\n      \"sourceType\": \"github\",\n      \"computedHash\": \"ab\"\n    }\n  }\n}\n";
        std::fs::write(&path, text).unwrap();
        let lock = read_vercel(dir.path()).unwrap().unwrap();
        assert_eq!(lock.version, 1);
        assert_eq!(lock.skills["pdf"]["sourceType"], "github");
        assert_eq!(lock.skills["pdf"]["ref"], "v1");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            text,
            "never written"
        );

        std::fs::write(
            &path,
            r#"{"version":1,"skills":{"a":{"source_url":"https://a/SKILL.md","sha256":"sha256:00"}}}"#,
        )
        .unwrap();
        assert_eq!(
            read_vercel(dir.path()).unwrap(),
            None,
            "an old record of ours"
        );

        for (broken, says) in [
            ("<<<<<<< HEAD\n{}", "not valid JSON"),
            (
                r#"{"version":2,"skills":{"pdf":{"source":"a/b","sourceType":"github"}}}"#,
                "version 2",
            ),
            (r#"{"version":1}"#, "no `skills`"),
        ] {
            std::fs::write(&path, broken).unwrap();
            let error = read_vercel(dir.path()).unwrap_err();
            assert_eq!(error.kind(), "state_file_invalid");
            let message = error.to_string();
            assert!(
                message.contains(says) && message.contains(VERCEL_LOCK_FILE),
                "{message}"
            );
        }
    }

    #[test]
    fn a_lock_from_a_newer_version_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "{\"version\":99,\"skills\":{}}").unwrap();
        assert_eq!(read(dir.path()).unwrap_err().kind(), "state_file_invalid");
    }
}
