//! What a discovery walks, for a watch (08 §The live catalog): the folders whose entries can
//! change the catalog, found by the very walk discovery makes (`scan`), so the watch follows
//! exactly the links discovery follows, within the same limits, and never a folder it would
//! not read.
//!
//! One thing the watch leaves out that discovery reads: a folder that led to no skill before a
//! limit cut the walk short below it (a link to `/usr`, a root that is a home folder) is
//! followed for its own entries only, not for its whole tree. Discovery still walks it, within
//! its limits, on every rediscovery; a watch of its every folder would cost thousands of
//! kernel watches and an event for every file any program opens there, for a catalog that has
//! nothing in it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use skills_types::catalog::Root;
use skills_types::{Diagnostic, DiagnosticCode, SkillsConfig};

use super::probe::DirKey;
use super::scan::{self, Scan};
use super::{roots, settings};
use crate::trust;

/// The folders a watch follows, root by root, in the order discovery scans the roots.
#[derive(Debug, Default)]
pub(crate) struct Extent {
    pub(crate) roots: Vec<RootExtent>,
}

/// What a watch follows of one root.
#[derive(Debug)]
pub(crate) struct RootExtent {
    /// The root, as configured.
    pub(crate) path: PathBuf,
    /// The folders whose entries matter (the root and the folders that group skills), as
    /// discovery reaches them, each with its identity; in walk order, the root first.
    pub(crate) folders: Vec<(PathBuf, Option<DirKey>)>,
    /// The skill folders found, each with its definition file and identity.
    pub(crate) skills: Vec<SkillFolder>,
    /// The folders followed for their own entries only ([`prune`]), top-most first.
    pub(crate) pruned: Vec<PathBuf>,
    /// What discovery said about the root's bounds: it leads to no skill within the limits,
    /// or lies (in part) on a pseudo file system.
    pub(crate) notes: Vec<Diagnostic>,
}

/// A skill folder as the walk found it.
#[derive(Clone, Debug)]
pub(crate) struct SkillFolder {
    pub(crate) dir: PathBuf,
    pub(crate) definition: PathBuf,
    pub(crate) key: Option<DirKey>,
}

/// What a discovery of `config` walks, as the trust record and the configuration files stand
/// now.
pub(crate) fn extent(config: &SkillsConfig) -> Extent {
    let trusted = trust::standing(config).trusted;
    let layered = settings::effective(config, trusted);
    let config = &layered.config;
    let plan = roots::plan(
        config,
        &layered.project,
        trusted,
        &super::user_places(config),
    );
    let scan = scan::scan(&plan.roots, config.symlinks, config.limits);
    of(&plan.roots, scan)
}

/// The extent of `roots` from their walk.
fn of(roots: &[Root], scan: Scan) -> Extent {
    let mut extent = Extent {
        roots: roots
            .iter()
            .map(|root| RootExtent {
                path: root.path.clone(),
                folders: Vec::new(),
                skills: Vec::new(),
                pruned: Vec::new(),
                notes: Vec::new(),
            })
            .collect(),
    };
    for (index, path, key) in scan.listed {
        if let Some(root) = extent.roots.get_mut(index) {
            root.folders.push((path, key));
        }
    }
    for found in scan.found {
        if let Some(root) = extent.roots.get_mut(found.root) {
            root.skills.push(SkillFolder {
                dir: found.dir,
                definition: found.definition,
                key: found.key,
            });
        }
    }
    for (index, path) in scan.cut {
        if let Some(root) = extent.roots.get_mut(index) {
            root.pruned.push(path);
        }
    }
    for root in &mut extent.roots {
        let cut = std::mem::take(&mut root.pruned);
        prune(root, &cut);
        root.notes = scan
            .diagnostics
            .iter()
            .filter(|diagnostic| {
                matches!(
                    diagnostic.code,
                    DiagnosticCode::NoSkillWithinLimits | DiagnosticCode::PseudoFileSystem
                ) && diagnostic
                    .path
                    .as_deref()
                    .is_some_and(|path| path.starts_with(&root.path))
            })
            .cloned()
            .collect();
    }
    extent
}

/// Leaves out of `root.folders` everything below a folder that leads to no skill and where a
/// limit (`cut`) cut the walk short, and records those folders in `root.pruned`. The folder
/// itself stays: a skill made straight in it is still seen.
fn prune(root: &mut RootExtent, cut: &[PathBuf]) {
    if cut.is_empty() {
        return;
    }
    // Every folder on the way to a skill, and every folder on the way to a cut, as reached
    // from the root (the walk builds both paths the same way).
    let ancestors = |paths: &mut dyn Iterator<Item = &Path>| -> HashSet<PathBuf> {
        let mut all = HashSet::new();
        for path in paths {
            for ancestor in path.ancestors() {
                if !all.insert(ancestor.to_path_buf()) || !ancestor.starts_with(&root.path) {
                    break;
                }
            }
        }
        all
    };
    let to_skill = ancestors(&mut root.skills.iter().map(|skill| skill.dir.as_path()));
    let to_cut = ancestors(&mut cut.iter().map(PathBuf::as_path));
    let mut pruned: Vec<PathBuf> = Vec::new();
    let mut tops: HashSet<PathBuf> = HashSet::new();
    root.folders.retain(|(folder, _)| {
        // Inside a folder already pruned: left out.
        if folder
            .ancestors()
            .skip(1)
            .any(|ancestor| tops.contains(ancestor))
        {
            return false;
        }
        if to_cut.contains(folder) && !to_skill.contains(folder) {
            tops.insert(folder.clone());
            pruned.push(folder.clone());
        }
        true
    });
    root.pruned = pruned;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders(paths: &[&str]) -> Vec<(PathBuf, Option<DirKey>)> {
        paths
            .iter()
            .map(|path| (PathBuf::from(path), None))
            .collect()
    }

    fn skill(dir: &str) -> SkillFolder {
        SkillFolder {
            dir: PathBuf::from(dir),
            definition: Path::new(dir).join("SKILL.md"),
            key: None,
        }
    }

    fn root(listed: &[&str], skills: &[&str]) -> RootExtent {
        RootExtent {
            path: PathBuf::from("/r"),
            folders: folders(listed),
            skills: skills.iter().map(|dir| skill(dir)).collect(),
            pruned: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_folder_that_leads_to_no_skill_where_a_limit_cut_the_walk_is_followed_alone() {
        // `usr` is a link to a large tree: the budget ran out inside it; `team` holds a skill.
        let mut extent = root(
            &[
                "/r",
                "/r/team",
                "/r/usr",
                "/r/usr/lib",
                "/r/usr/lib/x",
                "/r/empty",
            ],
            &["/r/team/pdf", "/r/top"],
        );
        prune(&mut extent, &[PathBuf::from("/r/usr/lib/x/y")]);
        let kept: Vec<&Path> = extent
            .folders
            .iter()
            .map(|(path, _)| path.as_path())
            .collect();
        assert_eq!(
            kept,
            [
                Path::new("/r"),
                Path::new("/r/team"),
                Path::new("/r/usr"),
                Path::new("/r/empty")
            ]
        );
        assert_eq!(extent.pruned, [PathBuf::from("/r/usr")]);
    }

    #[test]
    fn a_root_with_no_skill_and_a_cut_is_followed_alone_and_one_without_a_cut_whole() {
        let mut extent = root(&["/r", "/r/a", "/r/a/b"], &[]);
        prune(&mut extent, &[PathBuf::from("/r/a/b")]);
        assert_eq!(extent.folders, folders(&["/r"]));
        assert_eq!(extent.pruned, [PathBuf::from("/r")]);

        // Small and empty: every folder is followed, so a skill made in any of them is seen.
        let mut extent = root(&["/r", "/r/a", "/r/a/b"], &[]);
        prune(&mut extent, &[]);
        assert_eq!(extent.folders, folders(&["/r", "/r/a", "/r/a/b"]));
        assert!(extent.pruned.is_empty());
    }
}
