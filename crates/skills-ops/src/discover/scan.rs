//! Walking the roots for skill directories (02 §Scanning a root).
//!
//! The walk is sequential and cheap: it reads directory entries (sorted by name bytes, so the
//! result never depends on `read_dir` order) and probes `<dir>/SKILL.md` with one `lstat`
//! before it lists a directory, so a skill directory costs one system call here. Definition
//! files are read and parsed afterwards, in parallel.
//!
//! Every directory is tracked by its identity (device and inode on Unix, the canonical path
//! elsewhere): one reached twice (through a symlink or overlapping roots) is loaded once, and a
//! symlink loop ends at the first repeat.

use std::collections::HashSet;

use rayon::prelude::*;
use std::fs::{FileType, Metadata};
use std::path::{Path, PathBuf};

use skills_types::catalog::Root;
use skills_types::config::{DiscoveryLimits, SymlinkPolicy};
use skills_types::files::{SKILL_MD, is_excluded_dir_name, pick_definition};
use skills_types::{Diagnostic, DiagnosticCode, Severity};

use super::cache::Stamp;
use super::probe::{Folder, Info, Kind};

/// What identifies a directory however it is reached: device and inode on Unix (no path to
/// build or hash), the canonical path elsewhere.
#[cfg(unix)]
pub(crate) type DirKey = (u64, u64);
#[cfg(not(unix))]
pub(crate) type DirKey = PathBuf;

/// The identity of the directory at `path`, following symlinks.
fn dir_key(path: &Path) -> Option<DirKey> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let metadata = std::fs::metadata(path).ok()?;
        Some((metadata.dev(), metadata.ino()))
    }
    #[cfg(not(unix))]
    {
        std::fs::canonicalize(path).ok()
    }
}

/// Folders with at least this many subfolders have them probed in parallel.
const PARALLEL_PROBES: usize = 64;

/// What one parallel probe learns about a subfolder.
struct Probe {
    /// Its `SKILL.md`, not followed if it is a symlink.
    definition: std::io::Result<Info>,
    /// The folder itself.
    dir: Option<Info>,
}

/// A skill directory the walk found.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    /// Index of its root in the plan.
    pub(crate) root: usize,
    /// The directory's name: the skill's id.
    pub(crate) id: String,
    /// The directory, as reached from its root.
    pub(crate) dir: PathBuf,
    /// The definition file.
    pub(crate) definition: PathBuf,
    /// The definition file's size, times and inode (they key the cache).
    pub(crate) stamp: Stamp,
    /// The directory's, when it could be read (it tells whether side files came or went).
    pub(crate) dir_stamp: Option<Stamp>,
}

/// What the walk produced.
pub(crate) struct Scan {
    pub(crate) found: Vec<Found>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// Walks every root in order.
pub(crate) fn scan(roots: &[Root], policy: SymlinkPolicy, limits: DiscoveryLimits) -> Scan {
    let canonical_roots = roots
        .iter()
        .filter_map(|root| std::fs::canonicalize(&root.path).ok())
        .collect();
    let mut walker = Walker {
        policy,
        limits,
        canonical_roots,
        visited: HashSet::new(),
        found: Vec::new(),
        diagnostics: Vec::new(),
        root: 0,
        budget: 0,
    };
    for (index, root) in roots.iter().enumerate() {
        walker.root = index;
        walker.budget = limits.max_dirs_per_root;
        walker.walk_root(&root.path);
    }
    Scan {
        found: walker.found,
        diagnostics: walker.diagnostics,
    }
}

struct Walker {
    policy: SymlinkPolicy,
    limits: DiscoveryLimits,
    canonical_roots: Vec<PathBuf>,
    visited: HashSet<DirKey>,
    found: Vec<Found>,
    diagnostics: Vec<Diagnostic>,
    /// The root being walked.
    root: usize,
    /// Directories this root may still visit.
    budget: usize,
}

/// The walk of one root stopped at the directory limit.
struct Stop;

impl Walker {
    fn note(&mut self, severity: Severity, code: DiagnosticCode, path: &Path, message: String) {
        self.diagnostics
            .push(Diagnostic::new(code, severity, message).with_path(path));
    }

    fn walk_root(&mut self, path: &Path) {
        match std::fs::symlink_metadata(path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return,
            Err(error) => {
                let message = format!("the root cannot be read: {error}");
                return self.note(Severity::Warning, DiagnosticCode::Unreadable, path, message);
            }
            Ok(metadata) if metadata.is_symlink() => {
                if self.follow(path).is_none() {
                    return;
                }
            }
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => return,
        }
        let Some(key) = dir_key(path) else { return };
        if !self.visited.insert(key) {
            let message =
                "the root is a folder already scanned (through a symlink, or another root)"
                    .to_owned();
            return self.note(
                Severity::Info,
                DiagnosticCode::DuplicateDirectory,
                path,
                message,
            );
        }
        if let Some(entries) = self.read_sorted(path) {
            // The limit ends this root's walk; discovery goes on with the next root.
            let _ = self.walk(path, 0, entries);
        }
    }

    /// Visits the subdirectories of `dir` (whose entries are given).
    fn walk(
        &mut self,
        dir: &Path,
        depth: usize,
        entries: Vec<(String, FileType)>,
    ) -> Result<(), Stop> {
        let mut too_deep = false;
        // (name, path, the identity of a followed symlink's target)
        let mut children: Vec<(String, PathBuf, Option<DirKey>)> = Vec::new();
        for (name, kind) in entries {
            if is_excluded_dir_name(&name) {
                continue;
            }
            let child = dir.join(&name);
            let link = if kind.is_dir() {
                None
            } else if kind.is_symlink() {
                match self.follow(&child).and_then(|target| dir_key(&target)) {
                    Some(key) => Some(key),
                    None => continue,
                }
            } else {
                continue;
            };
            if depth + 1 > self.limits.max_depth {
                too_deep = true;
                continue;
            }
            children.push((name, child, link));
        }
        // Probing each child's `SKILL.md` is where a listing spends its system calls; the
        // probes are independent, so a large folder's run on every core. Everything that
        // depends on order (duplicates, limits, diagnostics) stays sequential below.
        let folder = Folder::open(dir);
        let probe = |(name, _, _): &(String, PathBuf, Option<DirKey>)| Probe {
            definition: folder.lstat(&format!("{name}/{SKILL_MD}")),
            dir: folder.lstat(name).ok(),
        };
        let probes: Vec<Probe> = if children.len() >= PARALLEL_PROBES {
            children.par_iter().map(probe).collect()
        } else {
            children.iter().map(probe).collect()
        };
        for ((name, child, link), probe) in children.into_iter().zip(probes) {
            let key = link
                .or_else(|| probe.dir.as_ref().and_then(Info::key))
                .or_else(|| dir_key(&child));
            let Some(key) = key else { continue };
            if self.visited.contains(&key) {
                let message =
                    "a folder already reached another way (through a symlink, or an overlapping root); it is loaded once"
                        .to_owned();
                self.note(
                    Severity::Info,
                    DiagnosticCode::DuplicateDirectory,
                    &child,
                    message,
                );
                continue;
            }
            self.visit(child, key, name, depth + 1, probe)?;
        }
        if too_deep {
            let message = format!(
                "folders below this one are more than {} levels under the root and were not scanned",
                self.limits.max_depth
            );
            self.note(Severity::Warning, DiagnosticCode::DepthLimit, dir, message);
        }
        Ok(())
    }

    /// A directory (`name` under its parent): a skill when it holds a definition file,
    /// otherwise a category to descend. Paths are taken by value: a skill directory's become
    /// its record's, with no copy.
    fn visit(
        &mut self,
        dir: PathBuf,
        key: DirKey,
        name: String,
        depth: usize,
        probe: Probe,
    ) -> Result<(), Stop> {
        let exact = dir.join(SKILL_MD);
        let dir_stamp = probe.dir.map(|info| info.stamp);
        match probe.definition {
            Ok(info) if info.kind == Kind::File => {
                self.visited.insert(key);
                self.found(dir, name, exact, info.stamp, dir_stamp);
                return Ok(());
            }
            Ok(info) if info.kind == Kind::Symlink => {
                if let Some(target) = self.followed_file(&exact) {
                    self.visited.insert(key);
                    self.found(dir, name, exact, target, dir_stamp);
                    return Ok(());
                }
            }
            Ok(_) => {
                // A directory, FIFO or device named `SKILL.md`: the folder claims to be a skill
                // but is not one, and is not a category either.
                let message =
                    "`SKILL.md` here is not a regular file (a directory, FIFO or device); the folder is skipped"
                        .to_owned();
                self.note(Severity::Error, DiagnosticCode::NotAFile, &exact, message);
                self.visited.insert(key);
                return Ok(());
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                let message = format!("cannot be inspected: {error}");
                self.note(
                    Severity::Warning,
                    DiagnosticCode::Unreadable,
                    &exact,
                    message,
                );
                return Ok(());
            }
        }
        // Marked before descending, so a link inside that leads back here ends the loop.
        self.visited.insert(key);
        // Only folders that must be listed count against the limit: a skill directory found by
        // its `SKILL.md` costs one probe, so a root of many skills is never cut short.
        if self.budget == 0 {
            let message = format!(
                "more than {} folders under this root had to be listed; the rest were not scanned",
                self.limits.max_dirs_per_root
            );
            self.note(
                Severity::Warning,
                DiagnosticCode::DirectoryLimit,
                &dir,
                message,
            );
            return Err(Stop);
        }
        self.budget -= 1;
        let Some(entries) = self.read_sorted(&dir) else {
            return Ok(());
        };
        let follows_files = self.policy == SymlinkPolicy::Always;
        let definitions = entries
            .iter()
            .filter(|(_, kind)| kind.is_file() || (follows_files && kind.is_symlink()))
            .map(|(name, _)| name.as_str());
        if let Some((file, _)) = pick_definition(definitions) {
            let path = dir.join(file);
            let stamp = match std::fs::symlink_metadata(&path) {
                Ok(metadata) if metadata.is_file() => Some(Stamp::of(&metadata)),
                Ok(metadata) if metadata.is_symlink() => self.followed_file(&path),
                _ => None,
            };
            if let Some(stamp) = stamp {
                self.found(dir, name, path, stamp, dir_stamp);
                return Ok(());
            }
        }
        self.walk(&dir, depth, entries)
    }

    fn found(
        &mut self,
        dir: PathBuf,
        id: String,
        definition: PathBuf,
        stamp: Stamp,
        dir_stamp: Option<Stamp>,
    ) {
        self.found.push(Found {
            root: self.root,
            id,
            dir,
            definition,
            stamp,
            dir_stamp,
        });
    }

    /// The stamp of a symlinked definition file's target, when the policy follows it.
    fn followed_file(&mut self, path: &Path) -> Option<Stamp> {
        if self.policy != SymlinkPolicy::Always {
            let message =
                "the definition file is a symlink; it is read only with the `always` symlink policy"
                    .to_owned();
            self.note(
                Severity::Info,
                DiagnosticCode::SymlinkSkipped,
                path,
                message,
            );
            return None;
        }
        std::fs::metadata(path)
            .ok()
            .filter(Metadata::is_file)
            .map(|metadata| Stamp::of(&metadata))
    }

    /// The canonical target of a symlinked directory, when the policy lets the walk follow it.
    fn follow(&mut self, link: &Path) -> Option<PathBuf> {
        if self.policy == SymlinkPolicy::Never {
            let message = "a symlinked folder; the `never` symlink policy skips it".to_owned();
            self.note(
                Severity::Info,
                DiagnosticCode::SymlinkSkipped,
                link,
                message,
            );
            return None;
        }
        let target = match std::fs::canonicalize(link) {
            Ok(target) => target,
            Err(error) => {
                let message = format!("a symlink whose target cannot be reached: {error}");
                self.note(Severity::Warning, DiagnosticCode::Unreadable, link, message);
                return None;
            }
        };
        if !std::fs::metadata(&target).is_ok_and(|metadata| metadata.is_dir()) {
            return None;
        }
        let inside = self
            .canonical_roots
            .iter()
            .any(|root| target.starts_with(root));
        if self.policy == SymlinkPolicy::WithinRoots && !inside {
            let message = format!(
                "points to {}, outside every skill root; not followed",
                target.display()
            );
            self.note(
                Severity::Warning,
                DiagnosticCode::SymlinkOutsideRoots,
                link,
                message,
            );
            return None;
        }
        Some(target)
    }

    /// The entries of `dir` sorted by name bytes; names that are not UTF-8 are reported.
    fn read_sorted(&mut self, dir: &Path) -> Option<Vec<(String, FileType)>> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(error) => {
                let message = format!("the folder cannot be read: {error}");
                self.note(Severity::Warning, DiagnosticCode::Unreadable, dir, message);
                return None;
            }
        };
        let mut sorted = Vec::new();
        for entry in entries {
            let Ok(entry) = entry else { continue };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            match entry.file_name().into_string() {
                Ok(name) => sorted.push((name, kind)),
                Err(name) => {
                    let path = dir.join(&name);
                    let message = "the name is not valid UTF-8; it is skipped".to_owned();
                    self.note(
                        Severity::Warning,
                        DiagnosticCode::Unreadable,
                        &path,
                        message,
                    );
                }
            }
        }
        sorted.sort_unstable_by(|(a, _), (b, _)| a.as_bytes().cmp(b.as_bytes()));
        Some(sorted)
    }
}
