//! What a watch watches of each root (08 §The live catalog): the folders discovery's own walk
//! lists and finds (`discover::extent`: the root, the folders that group skills, the skill
//! folders, through the links discovery follows and within its limits), and inside each skill
//! folder the folders holding its bundled files ([`walk_skill`], which the folder stamps walk
//! too).
//!
//! Every folder is one kernel watch: inotify watches a folder's own entries, not a tree. So a
//! root costs what its catalog is (a skill folder, and a watch per folder of bundled files),
//! not what the tree a link in it leads to is: discovery's limits bound the folders that group
//! skills, [`MAX_SKILL_FOLDER_ENTRIES`] and [`MAX_RELATIVE_PATH_COMPONENTS`] bound a skill's
//! own, and a folder that led to no skill where a limit cut the walk is followed alone.

use std::collections::BTreeMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

use skills_types::files::is_excluded_dir_name;
use skills_types::limits::{
    MAX_POLLED_PATHS_PER_ROOT, MAX_RELATIVE_PATH_COMPONENTS, MAX_SKILL_FOLDER_ENTRIES,
};
use skills_types::{Diagnostic, DiagnosticCode, Severity};

use crate::discover::{DirKey, RootExtent};

/// What identifies a folder however it is reached (device and inode on Unix), when known.
pub(super) type Identity = Option<DirKey>;

/// The identity of the folder at `path`, following links.
pub(super) fn identity(path: &Path) -> Identity {
    std::fs::metadata(path)
        .ok()
        .and_then(|metadata| identity_of(path, &metadata))
}

/// The identity of the entry `path` whose metadata (links followed or not) is `metadata`.
fn identity_of(path: &Path, metadata: &Metadata) -> Identity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        Some((metadata.dev(), metadata.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        std::fs::canonicalize(path).ok()
    }
}

/// What a watch follows of one root.
#[derive(Debug)]
pub(super) struct RootPlan {
    /// The root, as configured.
    pub(super) path: PathBuf,
    /// The root, the folders that group skills and the skill folders, in discovery's order.
    pub(super) structure: Vec<(PathBuf, Identity)>,
    /// The skill folders, by path.
    pub(super) skills: BTreeMap<PathBuf, SkillPlan>,
    /// What discovery found about the root's bounds, and which folders are followed for their
    /// own entries only: the listener is told.
    pub(super) notes: Vec<Diagnostic>,
}

/// A skill folder: its definition file and the folders inside it.
#[derive(Debug)]
pub(super) struct SkillPlan {
    pub(super) definition: PathBuf,
    pub(super) inside: Vec<(PathBuf, Identity)>,
}

impl RootPlan {
    /// The plan of a root from discovery's extent, every skill folder walked for its folders.
    pub(super) fn of(extent: RootExtent) -> Self {
        let mut structure = extent.folders;
        let mut skills = BTreeMap::new();
        for skill in extent.skills {
            structure.push((skill.dir.clone(), skill.key));
            let inside = skill_folders(&skill.dir);
            skills.insert(
                skill.dir,
                SkillPlan {
                    definition: skill.definition,
                    inside,
                },
            );
        }
        let mut notes = extent.notes;
        let root_said = notes.iter().any(|note| {
            note.code == DiagnosticCode::NoSkillWithinLimits
                && note.path.as_deref() == Some(extent.path.as_path())
        });
        if !root_said && let Some(first) = extent.pruned.first() {
            let more = match extent.pruned.len() - 1 {
                0 => String::new(),
                others => format!(" (and {others} other folders)"),
            };
            let message = format!(
                "{}{more} led to no skill before discovery's limits cut its walk short: a watch follows only its own entries, not the tree below it",
                first.display()
            );
            notes.push(
                Diagnostic::new(
                    DiagnosticCode::NoSkillWithinLimits,
                    Severity::Warning,
                    message,
                )
                .with_path(first),
            );
        }
        Self {
            path: extent.path,
            structure,
            skills,
            notes,
        }
    }

    /// How many folders it takes to watch this root: one kernel watch each.
    pub(super) fn folder_count(&self) -> usize {
        self.structure.len()
            + self
                .skills
                .values()
                .map(|skill| skill.inside.len())
                .sum::<usize>()
    }

    /// Every folder to watch: the structure first, then the folders inside skills.
    pub(super) fn folders(&self) -> impl Iterator<Item = &(PathBuf, Identity)> {
        self.structure
            .iter()
            .chain(self.skills.values().flat_map(|skill| skill.inside.iter()))
    }

    /// The paths one poll of this root looks at, in order of importance and at most
    /// [`MAX_POLLED_PATHS_PER_ROOT`]: the folders that can gain or lose a skill, each
    /// definition file (edited in place, it changes no folder), then the folders inside skills.
    pub(super) fn polled_paths(&self) -> Vec<PathBuf> {
        self.structure
            .iter()
            .map(|(path, _)| path.clone())
            .chain(self.skills.values().map(|skill| skill.definition.clone()))
            .chain(
                self.skills
                    .values()
                    .flat_map(|skill| skill.inside.iter().map(|(path, _)| path.clone())),
            )
            .take(MAX_POLLED_PATHS_PER_ROOT)
            .collect()
    }

    /// The skill folder `path` lies strictly inside, if any.
    pub(super) fn skill_holding<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        path.ancestors()
            .skip(1)
            .take_while(|folder| folder.starts_with(&self.path))
            .find(|folder| self.skills.contains_key(*folder))
    }
}

/// The folders inside the skill folder `dir` (not `dir` itself), as [`walk_skill`] meets them.
pub(super) fn skill_folders(dir: &Path) -> Vec<(PathBuf, Identity)> {
    let mut folders = Vec::new();
    walk_skill(dir, |path, metadata| {
        if metadata.is_dir() {
            folders.push((path.to_path_buf(), identity_of(path, metadata)));
        }
    });
    folders
}

/// Walks the inside of the skill folder `dir` as discovery and the inventory read it: hidden
/// names and excluded folders (`.git`, `node_modules`, ...) left out, links neither entered nor
/// followed. `each` gets every entry (its path and `lstat`), by name within a folder, folders
/// depth first, so the order is the same from one walk to the next.
///
/// Bounded, so one skill folder holding a vendored tree or a link farm costs a fixed amount:
/// at most [`MAX_RELATIVE_PATH_COMPONENTS`] levels (no resource path is longer) and
/// [`MAX_SKILL_FOLDER_ENTRIES`] entries in all; a folder is read no further than that budget
/// either, so a folder of a million entries is never held in memory.
pub(crate) fn walk_skill(dir: &Path, mut each: impl FnMut(&Path, &Metadata)) {
    let mut pending = vec![(dir.to_path_buf(), 0_usize)];
    let mut seen = 0_usize;
    while let Some((folder, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<std::fs::DirEntry> = entries
            .filter_map(Result::ok)
            .take(MAX_SKILL_FOLDER_ENTRIES - seen)
            .collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            seen += 1;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.starts_with('.') {
                continue;
            }
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            if metadata.is_dir() && is_excluded_dir_name(name) {
                continue;
            }
            let path = entry.path();
            each(&path, &metadata);
            if metadata.is_dir() && depth + 1 < MAX_RELATIVE_PATH_COMPONENTS {
                pending.push((path, depth + 1));
            }
        }
        if seen >= MAX_SKILL_FOLDER_ENTRIES {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_folder_is_walked_within_its_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("pdf");
        for folder in [
            "references/deep",
            ".git/objects",
            "node_modules/x",
            "assets",
        ] {
            std::fs::create_dir_all(skill.join(folder)).unwrap();
        }
        std::fs::write(skill.join("SKILL.md"), "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/usr", skill.join("linked")).unwrap();
        let folders: Vec<PathBuf> = skill_folders(&skill)
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        assert_eq!(
            folders,
            [
                skill.join("assets"),
                skill.join("references"),
                skill.join("references/deep")
            ],
            "no hidden or excluded folder, no link followed"
        );

        // As deep as a resource path may be, and no deeper.
        let mut deep = skill.clone();
        for level in 0..MAX_RELATIVE_PATH_COMPONENTS + 4 {
            deep.push(format!("l{level}"));
        }
        std::fs::create_dir_all(&deep).unwrap();
        let deepest = skill_folders(&skill)
            .into_iter()
            .filter(|(path, _)| path.starts_with(skill.join("l0")))
            .count();
        assert_eq!(deepest, MAX_RELATIVE_PATH_COMPONENTS);
    }

    #[test]
    fn a_skill_folder_of_very_many_entries_is_walked_by_its_first() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("vendored");
        for index in 0..MAX_SKILL_FOLDER_ENTRIES + 50 {
            std::fs::create_dir_all(skill.join(format!("d{index:05}"))).unwrap();
        }
        let mut entries = 0;
        walk_skill(&skill, |_, _| entries += 1);
        assert_eq!(entries, MAX_SKILL_FOLDER_ENTRIES);
    }
}
