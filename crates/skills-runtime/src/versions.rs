//! The interpreters' versions, remembered between commands (`<home>/<app_dir>/cache/
//! interpreters.json`, through the one state reader and writer).
//!
//! Every command that runs a script resolves its interpreter, and `python3 --version` is a
//! process start of its own (2–3 ms for CPython, tens for Node): about as much as the rest of
//! what `skills run` adds to the script. A version is remembered only for an executable
//! binary (ELF), under what any change to the file changes: the canonical path, the device
//! and inode, the size, and the modification and status-change times to the nanosecond. A
//! launcher script (a pyenv shim, a version manager's wrapper) is never remembered: its
//! version follows its configuration while the file stays the same, so it is asked every
//! time. A cache that is missing, broken or a trap is asked past and written again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skills_ops::state::{CACHE_DIR, Folder, INTERPRETER_VERSIONS, INTERPRETER_VERSIONS_FILE};

/// The most binaries remembered; the oldest answer goes first.
const MAX_REMEMBERED: usize = 32;

/// What a binary's version is remembered under (`runtimes::identity` takes it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Identity {
    pub(crate) path: PathBuf,
    pub(crate) device: u64,
    pub(crate) inode: u64,
    pub(crate) size: u64,
    pub(crate) modified_ns: i128,
    pub(crate) changed_ns: i128,
}

/// The file's content.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Remembered {
    /// Oldest first.
    versions: Vec<(Identity, String)>,
}

/// The version remembered for `identity` in the app folder `app`.
pub(crate) fn recall(app: &Path, identity: &Identity) -> Option<String> {
    read(app)
        .versions
        .into_iter()
        .find(|(known, _)| known == identity)
        .map(|(_, version)| version)
}

/// Remembers `version` for `identity`. A cache that cannot be written costs the next
/// command one `--version` more, nothing else.
pub(crate) fn remember(app: &Path, identity: Identity, version: &str) {
    let mut remembered = read(app);
    remembered
        .versions
        .retain(|(known, _)| known.path != identity.path);
    remembered.versions.push((identity, version.to_owned()));
    let excess = remembered.versions.len().saturating_sub(MAX_REMEMBERED);
    remembered.versions.drain(..excess);
    let written = serde_json::to_vec(&remembered)
        .map_err(std::io::Error::other)
        .and_then(|bytes| {
            Folder::create(app, &[CACHE_DIR])
                .map_err(|refusal| std::io::Error::other(refusal.to_string()))?
                .replace(&INTERPRETER_VERSIONS, INTERPRETER_VERSIONS_FILE, &bytes)
        });
    if let Err(error) = written {
        tracing::debug!(%error, "could not remember an interpreter's version");
    }
}

fn read(app: &Path) -> Remembered {
    let bytes = match Folder::open(app, &[CACHE_DIR]) {
        Ok(Some(folder)) => folder.read_or_miss(&INTERPRETER_VERSIONS, INTERPRETER_VERSIONS_FILE),
        Ok(None) => None,
        Err(refusal) => {
            skills_ops::state::warn(&INTERPRETER_VERSIONS, &app.join(CACHE_DIR), &refusal);
            None
        }
    };
    bytes
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_is_remembered_until_it_changes_and_a_script_never() {
        let home = tempfile::tempdir().unwrap();
        let app = home.path().join(".openhuman");
        // Any ELF file has an identity; `/proc/self/exe` is this test binary.
        let copy = home.path().join("interpreter");
        std::fs::copy("/proc/self/exe", &copy).unwrap();
        let identity = crate::runtimes::identity(&copy).unwrap();
        assert_eq!(recall(&app, &identity), None);
        remember(&app, identity.clone(), "3.12.1");
        assert_eq!(recall(&app, &identity).as_deref(), Some("3.12.1"));

        // Written again in place: another identity, nothing recalled for it.
        std::fs::write(&copy, std::fs::read("/proc/self/exe").unwrap()).unwrap();
        let changed = crate::runtimes::identity(&copy).unwrap();
        assert_ne!(changed, identity);
        assert_eq!(recall(&app, &changed), None);

        let script = home.path().join("shim");
        std::fs::write(&script, "#!/bin/sh\necho 3.0\n").unwrap();
        assert_eq!(crate::runtimes::identity(&script), None);
    }

    #[test]
    fn a_broken_cache_is_asked_past_and_the_newest_answers_are_kept() {
        let home = tempfile::tempdir().unwrap();
        let app = home.path().join(".openhuman");
        std::fs::create_dir_all(app.join(CACHE_DIR)).unwrap();
        std::fs::write(
            app.join(CACHE_DIR).join(INTERPRETER_VERSIONS_FILE),
            "{not json",
        )
        .unwrap();
        let copy = home.path().join("interpreter");
        std::fs::copy("/proc/self/exe", &copy).unwrap();
        let identity = crate::runtimes::identity(&copy).unwrap();
        assert_eq!(recall(&app, &identity), None);
        for index in 0..(MAX_REMEMBERED + 3) {
            let mut other = identity.clone();
            other.path = PathBuf::from(format!("/bin/python-{index}"));
            remember(&app, other, "1.0");
        }
        remember(&app, identity.clone(), "2.0");
        let kept = read(&app).versions;
        assert_eq!(kept.len(), MAX_REMEMBERED);
        assert_eq!(kept.last().unwrap().1, "2.0");
        assert_eq!(recall(&app, &identity).as_deref(), Some("2.0"));
    }
}
