//! Walking the roots for skill directories (02 §Scanning a root).
//!
//! The walk reads directory entries (sorted by name bytes, so the result never depends on
//! `read_dir` order) and probes `<dir>/SKILL.md` with one `lstat` before it lists a
//! directory, so a skill directory costs two system calls here (its `SKILL.md` and the folder
//! itself). Definition files are read and parsed afterwards, in parallel.
//!
//! Everything that depends on order (which copy of a folder counts, the limits, the
//! diagnostics) is decided by one sequential pass; the system calls are not. A folder's
//! children are probed in parallel, and the category folders among them are listed and their
//! own children probed ahead, in parallel, before the sequential pass reaches them
//! ([`Prefetched`]): it then finds the answers waiting instead of asking one folder at a time.
//!
//! Every directory is tracked by its identity (device and inode on Unix, the canonical path
//! elsewhere): one reached twice (through a symlink or overlapping roots) is loaded once, and a
//! symlink loop ends at the first repeat.
//!
//! Which symlinked folders the default `WithinRoots` policy follows depends on whose the link
//! is ([`Walker::follow`]): a link the user made in their own roots (`ln -s ~/dev/my-skill
//! ~/.agents/skills/`) is followed wherever it points; a link in a workspace's roots only to a
//! folder inside the workspace's own roots, so a cloned repository can neither reach out of
//! itself nor pull the user's own skills into its project scope.
//!
//! The limits bound the walk however the folders are reached, through links included: the
//! depth counts levels as reached from the root, every folder listed counts against the
//! root's directory budget, and every entry read against [`MAX_ENTRIES_PER_ROOT`] (a folder
//! of millions of entries is never read whole). A kernel pseudo file system (`/proc`, `/sys`, ...) is never
//! listed: a root linking to `/` meets `/proc`, whose walk may never end and holds no skill.
//! What the walk listed and where a limit cut it short are kept ([`Scan::listed`],
//! [`Scan::cut`]): a watch follows exactly these folders (`discover::extent`), and a root that
//! led to no skill before a limit cut it short is said to be no folder of skills.

use std::collections::HashSet;
use std::sync::Arc;

use rayon::prelude::*;
use std::fs::{FileType, Metadata};
use std::path::{Path, PathBuf};

use skills_types::SkillScope;
use skills_types::catalog::Root;
use skills_types::config::{DiscoveryLimits, SymlinkPolicy};
use skills_types::files::{SKILL_MD, is_excluded_dir_name, pick_definition};
use skills_types::limits::MAX_ENTRIES_PER_ROOT;
use skills_types::{Diagnostic, DiagnosticCode, Severity};

use super::cache::Stamp;
use super::probe::{DirKey, Folder, Info, Kind};

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
/// Category folders listed ahead of the sequential pass at a time.
const PREFETCH_WINDOW: usize = 32;

/// A child on its way through the sequential pass: its name, path, the identity of a followed
/// symlink's target, its probe, and its listing when it was read ahead.
type Item = (String, PathBuf, Option<DirKey>, Probe, Option<Prefetched>);

/// What one parallel probe learns about a subfolder.
struct Probe {
    /// Its `SKILL.md`, not followed if it is a symlink.
    definition: std::io::Result<Info>,
    /// The folder itself.
    dir: Option<Info>,
    /// The handle on the folder holding it, kept when its `SKILL.md` is a file: the loader
    /// looks up the skill's files below it, with no handle of the skill folder's own to open
    /// and close.
    parent: Option<Arc<Folder>>,
}

impl Probe {
    fn of(folder: &Arc<Folder>, name: &str) -> Self {
        let definition = folder.lstat(&format!("{name}/{SKILL_MD}"));
        let parent =
            matches!(&definition, Ok(info) if info.kind == Kind::File).then(|| Arc::clone(folder));
        Self {
            definition,
            dir: folder.lstat(name).ok(),
            parent,
        }
    }

    /// A plain directory without a `SKILL.md`: most likely a category the walk will list.
    fn is_category(&self) -> bool {
        matches!(&self.definition, Err(error) if error.kind() == std::io::ErrorKind::NotFound)
            && self.dir.is_some_and(|dir| dir.kind == Kind::Other)
    }
}

/// A folder's entries sorted by name bytes, and the names that are not UTF-8 (reported, then
/// skipped).
struct Listing {
    entries: Vec<(String, FileType)>,
    not_utf8: Vec<PathBuf>,
    /// More entries than the listing could take were there: the rest were not read.
    cut: bool,
}

/// Lists at most `most` entries of `dir`; no diagnostics here, so it can run ahead of the
/// sequential pass. A folder of millions of entries is never read whole into memory.
fn list(dir: &Path, most: usize) -> std::io::Result<Listing> {
    let mut listing = Listing {
        entries: Vec::new(),
        not_utf8: Vec::new(),
        cut: false,
    };
    for (read, entry) in std::fs::read_dir(dir)?.enumerate() {
        if read == most {
            listing.cut = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        match entry.file_name().into_string() {
            Ok(name) => listing.entries.push((name, kind)),
            Err(name) => listing.not_utf8.push(dir.join(name)),
        }
    }
    listing
        .entries
        .sort_unstable_by(|(a, _), (b, _)| a.as_bytes().cmp(b.as_bytes()));
    listing.not_utf8.sort_unstable();
    Ok(listing)
}

/// Whether the walk would look inside the entry `name` of kind `kind` at all.
fn is_candidate(name: &str, kind: FileType) -> bool {
    (kind.is_dir() || kind.is_symlink()) && !is_excluded_dir_name(name)
}

/// A category folder listed, and its subfolders probed, ahead of the sequential pass.
struct Prefetched {
    listing: std::io::Result<Listing>,
    /// A probe for every entry that [`is_candidate`], in listing order.
    probes: Vec<(String, Probe)>,
}

impl Prefetched {
    fn of(dir: &Path, most: usize) -> Self {
        let listing = list(dir, most);
        let probes = match &listing {
            Ok(listing) => {
                let folder = Arc::new(Folder::open(dir));
                let names: Vec<&str> = listing
                    .entries
                    .iter()
                    .filter(|(name, kind)| is_candidate(name, *kind))
                    .map(|(name, _)| name.as_str())
                    .collect();
                let probe = |name: &&str| ((*name).to_owned(), Probe::of(&folder, name));
                if names.len() >= PARALLEL_PROBES {
                    names.par_iter().map(probe).collect()
                } else {
                    names.iter().map(probe).collect()
                }
            }
            Err(_) => Vec::new(),
        };
        Self { listing, probes }
    }
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
    /// A handle on the folder holding `dir`, when the definition file is its `SKILL.md`: the
    /// skill's files are then looked up as `<id>/<file>` below it.
    pub(crate) parent: Option<Arc<Folder>>,
    /// The directory's identity (one watch per folder, however many paths reach it).
    pub(crate) key: Option<DirKey>,
}

/// What the walk produced.
#[derive(Clone)]
pub(crate) struct Scan {
    pub(crate) found: Vec<Found>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Every folder the walk listed (or tried to: an unreadable one too), with the index of
    /// its root and its identity, as reached from the root and in walk order, roots first.
    pub(crate) listed: Vec<(usize, PathBuf, Option<DirKey>)>,
    /// Where a limit cut the walk short, with the index of its root: a folder whose
    /// subfolders were too deep, or the folder the directory budget stopped at.
    pub(crate) cut: Vec<(usize, PathBuf)>,
}

/// Walks every root in order.
pub(crate) fn scan(roots: &[Root], policy: SymlinkPolicy, limits: DiscoveryLimits) -> Scan {
    scan_reading(roots, policy, limits, MAX_ENTRIES_PER_ROOT)
}

/// [`scan`], reading at most `entries` folder entries per root.
pub(super) fn scan_reading(
    roots: &[Root],
    policy: SymlinkPolicy,
    limits: DiscoveryLimits,
    entries: usize,
) -> Scan {
    let canonical_roots = roots
        .iter()
        .filter_map(|root| {
            let canonical = std::fs::canonicalize(&root.path).ok()?;
            Some((canonical, root.scope == SkillScope::User))
        })
        .collect();
    let mut walker = Walker {
        policy,
        limits,
        canonical_roots,
        user_root: roots
            .iter()
            .map(|root| root.scope == SkillScope::User)
            .collect(),
        visited: HashSet::new(),
        found: Vec::new(),
        diagnostics: Vec::new(),
        listed: Vec::new(),
        cut: Vec::new(),
        root: 0,
        budget: 0,
        entries: 0,
    };
    for (index, root) in roots.iter().enumerate() {
        walker.root = index;
        walker.budget = limits.max_dirs_per_root;
        walker.entries = entries;
        let found_before = walker.found.len();
        let cut_before = walker.cut.len();
        walker.walk_root(&root.path);
        if walker.found.len() == found_before && walker.cut.len() > cut_before {
            walker.no_skill_within_limits(&root.path);
        }
    }
    Scan {
        found: walker.found,
        diagnostics: walker.diagnostics,
        listed: walker.listed,
        cut: walker.cut,
    }
}

/// The kernel's pseudo file systems, by the magic number `statfs` reports: no skill lives on
/// them, and a walk of one may never end (`/proc` holds a folder per process, with links back
/// to `/`) or list the kernel's every object (`/sys`).
#[cfg(any(target_os = "linux", target_os = "android"))]
const PSEUDO_FILE_SYSTEMS: &[(u32, &str)] = &[
    (0x9fa0, "proc"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x7363_6673, "securityfs"),
    (0xcafe_4a11, "bpf"),
    (0x6165_676c, "pstore"),
    (0x6265_6570, "configfs"),
    (0x1cd1, "devpts"),
    (0x6573_5543, "fusectl"),
    (0x4249_4e4d, "binfmt_misc"),
    (0xf97c_ff8c, "selinuxfs"),
    (0x4345_5243, "efivarfs"),
];

/// The name of the pseudo file system `path` lies on, if it lies on one.
pub(crate) fn pseudo_file_system(path: &Path) -> Option<&'static str> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let stat = rustix::fs::statfs(path).ok()?;
        // Every magic number is 32 bits wide; `f_type` is wider and signed on some targets.
        let magic = stat.f_type as u32;
        PSEUDO_FILE_SYSTEMS
            .iter()
            .find(|(known, _)| *known == magic)
            .map(|(_, name)| *name)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = path;
        None
    }
}

struct Walker {
    policy: SymlinkPolicy,
    limits: DiscoveryLimits,
    /// Every root's canonical path, and whether it is a user-scope root.
    canonical_roots: Vec<(PathBuf, bool)>,
    /// Whether the root of each index is a user-scope root.
    user_root: Vec<bool>,
    visited: HashSet<DirKey>,
    found: Vec<Found>,
    diagnostics: Vec<Diagnostic>,
    listed: Vec<(usize, PathBuf, Option<DirKey>)>,
    cut: Vec<(usize, PathBuf)>,
    /// The root being walked.
    root: usize,
    /// Directories this root may still visit.
    budget: usize,
    /// Folder entries this root may still read ([`MAX_ENTRIES_PER_ROOT`]).
    entries: usize,
}

/// The walk of one root stopped at the directory limit.
struct Stop;

impl Walker {
    fn note(&mut self, severity: Severity, code: DiagnosticCode, path: &Path, message: String) {
        self.diagnostics
            .push(Diagnostic::new(code, severity, message).with_path(path));
    }

    /// Says that the root at `path` led to no skill before a limit cut its walk short: it is
    /// not a folder of skills (a link to `/usr`), and a person should point it elsewhere.
    fn no_skill_within_limits(&mut self, path: &Path) {
        let leads = match std::fs::canonicalize(path) {
            Ok(real) if real != path => format!(" (it leads to {})", real.display()),
            _ => String::new(),
        };
        let message = format!(
            "no skill was found in the folders discovery may list here ({} levels deep, {} folders){leads}, and the limits cut the walk short: this is not a folder of skills, so the rest was not scanned and a watch follows only this folder itself; point the root at a folder whose subfolders hold a SKILL.md each",
            self.limits.max_depth, self.limits.max_dirs_per_root
        );
        self.note(
            Severity::Warning,
            DiagnosticCode::NoSkillWithinLimits,
            path,
            message,
        );
    }

    /// Whether `dir` may be listed: not on a pseudo file system (said when it is).
    fn listable(&mut self, dir: &Path) -> bool {
        let Some(name) = pseudo_file_system(dir) else {
            return true;
        };
        let message = format!(
            "lies on the kernel's `{name}` file system, where no skill can be; it is not scanned"
        );
        self.note(
            Severity::Warning,
            DiagnosticCode::PseudoFileSystem,
            dir,
            message,
        );
        false
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
        if !self.visited.insert(key.to_owned()) {
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
        if !self.listable(path) {
            return;
        }
        self.listed.push((self.root, path.to_path_buf(), Some(key)));
        if let Some(entries) = self.read_sorted(path) {
            // The limit ends this root's walk; discovery goes on with the next root.
            let _ = self.walk(path, 0, entries, Vec::new());
        }
    }

    /// Visits the subdirectories of `dir` (whose entries are given, and perhaps some of their
    /// probes, in order).
    fn walk(
        &mut self,
        dir: &Path,
        depth: usize,
        entries: Vec<(String, FileType)>,
        probed: Vec<(String, Probe)>,
    ) -> Result<(), Stop> {
        let mut too_deep = false;
        // (name, path, the identity of a followed symlink's target)
        let mut children: Vec<(String, PathBuf, Option<DirKey>)> = Vec::new();
        for (name, kind) in entries {
            if !is_candidate(&name, kind) {
                continue;
            }
            let child = dir.join(&name);
            let link = if kind.is_dir() {
                None
            } else {
                match self.follow(&child).and_then(|target| dir_key(&target)) {
                    Some(key) => Some(key),
                    None => continue,
                }
            };
            if depth + 1 > self.limits.max_depth {
                too_deep = true;
                continue;
            }
            children.push((name, child, link));
        }
        let probes = Self::probe_all(dir, &children, probed);
        let mut items: Vec<Option<Item>> = children
            .into_iter()
            .zip(probes)
            .map(|((name, child, link), probe)| Some((name, child, link, probe, None)))
            .collect();
        let mut prefetched_up_to = 0;
        for index in 0..items.len() {
            if index == prefetched_up_to {
                prefetched_up_to = index + self.prefetch(depth, &mut items[index..]);
            }
            let Some((name, child, link, probe, prefetched)) = items[index].take() else {
                continue;
            };
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
            self.visit(child, key, name, depth + 1, probe, prefetched)?;
        }
        if too_deep {
            self.cut.push((self.root, dir.to_path_buf()));
            let message = format!(
                "folders below this one are more than {} levels under the root and were not scanned",
                self.limits.max_depth
            );
            self.note(Severity::Warning, DiagnosticCode::DepthLimit, dir, message);
        }
        Ok(())
    }

    /// A probe for every child, in order: taken from `probed` where it holds one (it was
    /// prefetched, in the same order), made now otherwise. Probing is where a listing spends
    /// its system calls; the probes are independent, so a large folder's run on every core.
    fn probe_all(
        dir: &Path,
        children: &[(String, PathBuf, Option<DirKey>)],
        probed: Vec<(String, Probe)>,
    ) -> Vec<Probe> {
        let mut probed = probed.into_iter().peekable();
        let mut probes: Vec<Option<Probe>> = children
            .iter()
            .map(|(name, _, _)| {
                // Children are a subsequence of the probed names: skip the ones left out.
                while probed.next_if(|(probed, _)| probed < name).is_some() {}
                probed
                    .next_if(|(probed, _)| probed == name)
                    .map(|(_, probe)| probe)
            })
            .collect();
        let missing = probes.iter().filter(|probe| probe.is_none()).count();
        if missing > 0 {
            let folder = Arc::new(Folder::open(dir));
            let fill =
                |(slot, (name, _, _)): (&mut Option<Probe>, &(String, PathBuf, Option<DirKey>))| {
                    if slot.is_none() {
                        *slot = Some(Probe::of(&folder, name));
                    }
                };
            if missing >= PARALLEL_PROBES {
                probes.par_iter_mut().zip(children).for_each(fill);
            } else {
                probes.iter_mut().zip(children).for_each(fill);
            }
        }
        probes.into_iter().flatten().collect()
    }

    /// Lists, in parallel, the next children that look like categories the sequential pass
    /// will descend into (at most [`PREFETCH_WINDOW`] of them, and no more than this root may
    /// still list), and probes their subfolders; returns how many of `items` it looked at. The
    /// window bounds what is held in memory ahead of the pass; the directory limit bounds the
    /// work as before. A folder read ahead and then not needed (a duplicate, or past the limit)
    /// costs only time.
    fn prefetch(&self, depth: usize, items: &mut [Option<Item>]) -> usize {
        // Below the depth limit the grandchildren would not be visited.
        let mut allowance = if depth + 2 <= self.limits.max_depth {
            self.budget.min(PREFETCH_WINDOW)
        } else {
            0
        };
        let mut wanted = Vec::new();
        let mut looked = 0;
        for (index, item) in items.iter().enumerate() {
            if allowance == 0 {
                break;
            }
            looked = index + 1;
            if let Some((_, child, None, probe, _)) = item
                && probe.is_category()
            {
                wanted.push((index, child.clone()));
                allowance -= 1;
            }
        }
        if allowance > 0 {
            looked = items.len();
        }
        // With fewer than two there is nothing to overlap: the pass lists it as it goes.
        if wanted.len() >= 2 {
            let listed: Vec<(usize, Prefetched)> = wanted
                .into_par_iter()
                .map(|(index, child)| (index, Prefetched::of(&child, self.entries)))
                .collect();
            for (index, prefetched) in listed {
                if let Some(Some(item)) = items.get_mut(index) {
                    item.4 = Some(prefetched);
                }
            }
        }
        looked
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
        prefetched: Option<Prefetched>,
    ) -> Result<(), Stop> {
        let exact = dir.join(SKILL_MD);
        // The cache trusts a skill's side files while its folder's stamp holds; for a folder
        // reached through a symlink that must be the target's stamp (entries come and go
        // there), not the link's, which never changes.
        let dir_stamp = match probe.dir {
            Some(info) if info.kind == Kind::Symlink => std::fs::metadata(&dir)
                .ok()
                .map(|metadata| Stamp::of(&metadata)),
            other => other.map(|info| info.stamp),
        };
        match probe.definition {
            Ok(info) if info.kind == Kind::File => {
                self.visited.insert(key.to_owned());
                self.found(dir, name, exact, info.stamp, dir_stamp);
                if let Some(found) = self.found.last_mut() {
                    found.parent = probe.parent;
                    found.key = Some(key);
                }
                return Ok(());
            }
            Ok(info) if info.kind == Kind::Symlink => {
                if let Some(target) = self.followed_file(&exact) {
                    self.visited.insert(key.to_owned());
                    self.found(dir, name, exact, target, dir_stamp);
                    if let Some(found) = self.found.last_mut() {
                        found.key = Some(key);
                    }
                    return Ok(());
                }
            }
            Ok(_) => {
                // A directory, FIFO or device named `SKILL.md`: the folder claims to be a skill
                // but is not one, and is not a category either. Rare, so one more `lstat` to
                // say which it is.
                let kind = std::fs::symlink_metadata(&exact)
                    .map_or("special file", |metadata| crate::load::kind_name(&metadata));
                let message = format!(
                    "{}; the folder is skipped",
                    crate::load::not_a_file_message(&exact, kind)
                );
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
        self.visited.insert(key.to_owned());
        // Only folders that must be listed count against the limit: a skill directory found by
        // its `SKILL.md` costs one probe, so a root of many skills is never cut short.
        if self.budget == 0 || self.entries == 0 {
            self.cut.push((self.root, dir.clone()));
            let message = if self.budget == 0 {
                format!(
                    "more than {} folders under this root had to be listed; the rest were not scanned",
                    self.limits.max_dirs_per_root
                )
            } else {
                format!(
                    "more than {MAX_ENTRIES_PER_ROOT} entries of folders under this root had to be read; the rest were not scanned"
                )
            };
            self.note(
                Severity::Warning,
                DiagnosticCode::DirectoryLimit,
                &dir,
                message,
            );
            return Err(Stop);
        }
        self.budget -= 1;
        if !self.listable(&dir) {
            return Ok(());
        }
        self.listed
            .push((self.root, dir.clone(), Some(key.to_owned())));
        let (listing, probed) = match prefetched {
            Some(prefetched) => (prefetched.listing, prefetched.probes),
            None => (list(&dir, self.entries), Vec::new()),
        };
        let Some(entries) = self.take_listing(&dir, listing) else {
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
                // Listed, but a skill: its folder is the skill's, not a category's.
                self.listed.pop();
                self.found(dir, name, path, stamp, dir_stamp);
                if let Some(found) = self.found.last_mut() {
                    found.key = Some(key);
                }
                return Ok(());
            }
        }
        if self.misfit_definition(&dir, &entries) {
            return Ok(());
        }
        self.walk(&dir, depth, entries, probed)
    }

    /// Reports a definition file other than the exact `SKILL.md` (which the probe handles) that
    /// is not a regular file: a case variant such as `skill.md` that is a folder or a FIFO, or
    /// a symlink the policy does not follow. Without this the folder would pass for a category
    /// without a word. Returns whether the folder is to be skipped (it claims to be a skill but
    /// is none); a skipped symlink leaves it a category, as a symlinked `SKILL.md` does.
    fn misfit_definition(&mut self, dir: &Path, entries: &[(String, FileType)]) -> bool {
        let follows_files = self.policy == SymlinkPolicy::Always;
        let misfits = entries
            .iter()
            .filter(|(name, kind)| {
                name != SKILL_MD && !kind.is_file() && !(follows_files && kind.is_symlink())
            })
            .map(|(name, _)| name.as_str());
        let Some((file, _)) = pick_definition(misfits) else {
            return false;
        };
        let path = dir.join(file);
        let is_link = entries
            .iter()
            .any(|(name, kind)| name == file && kind.is_symlink());
        if is_link {
            let _ = self.followed_file(&path);
            return false;
        }
        let kind = std::fs::symlink_metadata(&path)
            .map_or("special file", |metadata| crate::load::kind_name(&metadata));
        let message = format!(
            "{}; the folder is skipped",
            crate::load::not_a_file_message(&path, kind)
        );
        self.note(Severity::Error, DiagnosticCode::NotAFile, &path, message);
        true
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
            parent: None,
            key: None,
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
    ///
    /// Under `WithinRoots` the answer depends on whose the link is. One that lies in a
    /// user-scope root's own folders (the folder holding it is, canonically, inside a user
    /// root) is the user's: they made it, so it is followed wherever it points, into an
    /// untrusted workspace too, since that is their choice and not the workspace's. Any other
    /// link in a user root (one met below a followed link, in a checkout the user linked) only
    /// into a configured root, as before. A link in a workspace-scope root (project, legacy,
    /// profile) only into one of those roots: a repository must not reach out of itself
    /// (`../../../etc`), nor pull the user's own skills (`~/.agents/skills/private`) into its
    /// project scope, where `sync --project-only` would write them into a committed file.
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
        if self.policy == SymlinkPolicy::WithinRoots && !self.may_follow(link, &target) {
            let message = if self.user_root.get(self.root).copied().unwrap_or(false) {
                format!(
                    "points to {}, outside every skill root, and is not a link of your own roots (it lies inside a folder reached through another link); not followed",
                    target.display()
                )
            } else {
                format!(
                    "points to {}, outside the workspace's skill roots; a workspace's links are followed only within its own roots",
                    target.display()
                )
            };
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

    /// Whether the `WithinRoots` policy follows `link` (found while walking the current root)
    /// to its canonical `target` (see [`Walker::follow`]).
    fn may_follow(&self, link: &Path, target: &Path) -> bool {
        let in_user_root = self.user_root.get(self.root).copied().unwrap_or(false);
        // Whether `path` lies inside a root whose scope (user or not) `wanted` accepts.
        let inside = |path: &Path, wanted: fn(bool) -> bool| {
            self.canonical_roots
                .iter()
                .any(|(root, user)| wanted(*user) && path.starts_with(root))
        };
        if !in_user_root {
            return inside(target, |user| !user);
        }
        if inside(target, |_| true) {
            return true;
        }
        // Canonicalising the holder costs a few system calls, paid only for links that point
        // out of every root.
        link.parent()
            .and_then(|holder| std::fs::canonicalize(holder).ok())
            .is_some_and(|holder| inside(&holder, |user| user))
    }

    /// The entries of `dir` sorted by name bytes; names that are not UTF-8 are reported.
    fn read_sorted(&mut self, dir: &Path) -> Option<Vec<(String, FileType)>> {
        self.take_listing(dir, list(dir, self.entries))
    }

    /// A listing's entries, its problems reported.
    fn take_listing(
        &mut self,
        dir: &Path,
        listing: std::io::Result<Listing>,
    ) -> Option<Vec<(String, FileType)>> {
        let listing = match listing {
            Ok(listing) => listing,
            Err(error) => {
                let message = format!("the folder cannot be read: {error}");
                self.note(Severity::Warning, DiagnosticCode::Unreadable, dir, message);
                return None;
            }
        };
        let read = listing.entries.len() + listing.not_utf8.len();
        let mut entries = listing.entries;
        if listing.cut || read > self.entries {
            // Past the root's allowance (a listing read ahead may have taken more than what
            // was left when the pass reaches it): what fits is kept, and the root's walk ends.
            entries.truncate(self.entries);
            self.entries = 0;
            self.cut.push((self.root, dir.to_path_buf()));
            let message = format!(
                "the folders under this root hold more than {MAX_ENTRIES_PER_ROOT} entries; the rest of this folder and of the root were not scanned"
            );
            self.note(
                Severity::Warning,
                DiagnosticCode::DirectoryLimit,
                dir,
                message,
            );
        } else {
            self.entries -= read;
        }
        for path in listing.not_utf8 {
            let message = "the name is not valid UTF-8; it is skipped".to_owned();
            self.note(
                Severity::Warning,
                DiagnosticCode::Unreadable,
                &path,
                message,
            );
        }
        Some(entries)
    }
}
