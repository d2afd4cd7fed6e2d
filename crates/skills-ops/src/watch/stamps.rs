//! The folder stamps of a watching handle (08 §The live catalog): what the files of each skill
//! folder looked like, so a burst that touched a skill's folder is a change of the skill only
//! when its files moved, and the handle's own writes are not reported twice.

use std::collections::{BTreeSet, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use skills_types::{Catalog, DiagnosticCode};

use super::plan::walk_skill;

/// What the files of each skill folder looked like (names, sizes, modification times), kept
/// by a watching handle and its clones: a burst that touched a skill's folder changed the skill
/// only when its stamp moved. So a bundled file edited is a change even though the skill's
/// record is the same, and the handle's own write (a `create`, already reported) is not
/// reported again when its file events arrive. Off until a watch turns it on.
#[derive(Clone, Default)]
pub struct FolderStamps {
    stamps: Arc<Mutex<Option<HashMap<PathBuf, u64>>>>,
}

impl std::fmt::Debug for FolderStamps {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("FolderStamps")
            .finish_non_exhaustive()
    }
}

impl FolderStamps {
    /// Starts keeping stamps (the folders are stamped at the next [`FolderStamps::follow`]).
    pub fn enable(&self) {
        self.lock().get_or_insert_with(HashMap::new);
    }

    /// Brings the stamps in line with `catalog`: a new skill is stamped, a skill gone is
    /// forgotten, and a skill whose folder holds a `touched` path, or lies below one, is
    /// stamped again. Returns
    /// the ids of the skills whose stamp moved. A skill kept at its last good version is
    /// left alone: its broken file is a `load_error`, not a change.
    pub fn follow(&self, catalog: &Catalog, touched: &BTreeSet<PathBuf>) -> BTreeSet<String> {
        use rayon::prelude::*;

        let mut guard = self.lock();
        let Some(stamps) = guard.as_mut() else {
            return BTreeSet::new();
        };
        let skills: Vec<&skills_types::Skill> = catalog
            .skills
            .iter()
            .filter(|skill| {
                !skill
                    .diagnostics
                    .iter()
                    .any(|diagnostic| diagnostic.code == DiagnosticCode::LastGoodKept)
            })
            .collect();
        let present: std::collections::HashSet<&Path> = catalog
            .skills
            .iter()
            .map(|skill| skill.dir.as_path())
            .collect();
        stamps.retain(|dir, _| present.contains(dir.as_path()));
        let due: Vec<&skills_types::Skill> = skills
            .into_iter()
            .filter(|skill| {
                // A path in the folder, or a folder above it (a root that was not watched
                // while it filled).
                !stamps.contains_key(&skill.dir)
                    || touched
                        .iter()
                        .any(|path| path.starts_with(&skill.dir) || skill.dir.starts_with(path))
            })
            .collect();
        let fresh: Vec<(&skills_types::Skill, u64)> = due
            .par_iter()
            .map(|skill| (*skill, stamp(&skill.dir)))
            .collect();
        let mut moved = BTreeSet::new();
        for (skill, stamp) in fresh {
            if let Some(before) = stamps.insert(skill.dir.clone(), stamp)
                && before != stamp
            {
                moved.insert(skill.id.clone());
            }
        }
        moved
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<HashMap<PathBuf, u64>>> {
        self.stamps.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A folder's stamp: a hash of the relative path, size and modification time of every file
/// discovery and the inventory would look at, in the order [`walk_skill`] meets them (so
/// within its bounds: a change deep in a vendored tree past them counts only if it also
/// changes the record).
fn stamp(dir: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    walk_skill(dir, |path, metadata| {
        if metadata.is_dir() {
            return;
        }
        path.hash(&mut hasher);
        metadata.len().hash(&mut hasher);
        metadata.modified().ok().hash(&mut hasher);
    });
    hasher.finish()
}
