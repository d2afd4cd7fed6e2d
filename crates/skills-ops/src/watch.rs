//! The live catalog's watcher (08 §The live catalog): the kernel's file events (inotify,
//! FSEvents or ReadDirectoryChangesW, through `notify`) over every root a discovery of the
//! configuration scans, the trust record and the configuration files, debounced into bursts by
//! `notify-debouncer-full`.
//!
//! After each burst that touched any of them, the paths to watch are planned again (a root
//! created or deleted, trust granted or revoked, a configuration file naming another root),
//! then the [`Listener`] is told which paths the burst named; it re-discovers, and the catalog
//! cache re-reads only the definition files that changed. A root that does not exist yet is
//! waited for by watching the nearest folder above it that does.
//!
//! Symlinked folders below a root (one copy of a skill linked into each agent's root) are
//! tracked too (`State::relink`): a link made or pointed elsewhere while the watch runs gets
//! a watch of its own when no root reaches its folder, and every path a burst names is also
//! named in its other forms (`State::aliases`), since the kernel names a folder reached two
//! ways after only one of them.
//!
//! A path the kernel will not watch (the inotify watch limit, or another refusal, now or when
//! a folder appears later) is polled instead, and the listener is told why: the watcher never
//! stops silently. The watch runs on its own thread until the [`Watcher`] is dropped.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use skills_types::files::is_excluded_dir_name;
use skills_types::watch::{WatchMode, WatchOptions};
use skills_types::{Catalog, Diagnostic, DiagnosticCode, Error, Severity, SkillsConfig};

use crate::discover::{CONFIG_FILE, planned_roots};
use crate::trust;

/// The shortest quiet time and poll interval accepted: below them a watch would spin.
const MIN_DEBOUNCE: Duration = Duration::from_millis(10);
const MIN_POLL_INTERVAL: Duration = Duration::from_millis(100);

/// How often the debouncer looks for bursts that have gone quiet, at most: an event is
/// reported within the debounce time plus this.
const MAX_TICK: Duration = Duration::from_millis(20);

/// What a watch tells whoever started it, on the watch's own thread.
pub trait Listener: Send + 'static {
    /// A burst changed what the catalog is made of. `touched` are the paths its events named:
    /// files and folders below a root (hidden names and excluded folders left out), and the
    /// trust record or a configuration file when one of those changed.
    fn changed(&mut self, touched: &BTreeSet<PathBuf>);

    /// `path` is watched another way from now on; `diagnostic` says why.
    fn watching(&mut self, path: &Path, mode: WatchMode, diagnostic: Diagnostic);
}

/// A running watch; dropping it stops the watch (its thread ends at its next wake-up).
pub struct Watcher {
    stop: mpsc::Sender<Message>,
    watching: Vec<PathBuf>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Watcher")
            .field("watching", &self.watching)
            .finish_non_exhaustive()
    }
}

impl Watcher {
    /// The paths watched when the watch started: the roots that exist, the folders of the
    /// trust record and configuration files, and the nearest existing folder above a root
    /// that does not exist yet.
    pub fn watching(&self) -> &[PathBuf] {
        &self.watching
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // The thread may already have ended; then there is nothing to stop.
        let _ = self.stop.send(Message::Stop);
    }
}

/// Starts watching what a discovery of `config` depends on. Every watch is in place when this
/// returns, so a discovery made after it misses no change that the listener is not told of.
pub fn start(
    config: &SkillsConfig,
    options: &WatchOptions,
    listener: impl Listener,
) -> Result<Watcher, Error> {
    let debounce = options.debounce.max(MIN_DEBOUNCE);
    let (sender, receiver) = mpsc::channel();
    let events = sender.clone();
    let (kernel, kernel_refusal) = match new_debouncer(
        debounce,
        Some(tick(debounce)),
        move |result: DebounceEventResult| {
            let _ = events.send(Message::Events(result));
        },
    ) {
        Ok(debouncer) => (Some(debouncer), None),
        Err(error) => (None, Some(refusal_text(&error))),
    };
    let mut state = State {
        config: config.clone(),
        poll_interval: options.poll_interval.max(MIN_POLL_INTERVAL),
        kernel,
        kernel_refusal,
        current: BTreeMap::new(),
        links: BTreeMap::new(),
        polled: BTreeSet::new(),
        targets: Targets::default(),
        listener: Box::new(listener),
    };
    let fresh = state.replan();
    state.relink(&BTreeSet::new(), &fresh, &state.kernel_roots());
    let watching = state.current.keys().cloned().collect();
    std::thread::Builder::new()
        .name("skills-watch".to_owned())
        .spawn(move || run(state, &receiver))
        .map_err(|source| Error::io("start the watch thread", &config.home, source))?;
    Ok(Watcher {
        stop: sender,
        watching,
    })
}

/// The debouncer's tick for a quiet time: often enough that the report comes soon after
/// the burst ends, rarely enough to cost nothing.
fn tick(debounce: Duration) -> Duration {
    (debounce / 6).clamp(Duration::from_millis(5), MAX_TICK)
}

enum Message {
    Events(DebounceEventResult),
    Stop,
}

/// What to watch for one configuration, planned from the files as they are now.
#[derive(Debug, Default, PartialEq)]
struct Targets {
    /// Roots that exist: watched with everything below them.
    trees: BTreeSet<PathBuf>,
    /// Folders watched for their own entries: those holding the roots, the trust record and
    /// the configuration files, and the nearest existing folder above anything missing.
    folders: BTreeSet<PathBuf>,
    /// Every root and file of interest, also those that do not exist: a change to one of
    /// them, or to a folder on the way to one, matters.
    wanted: Vec<PathBuf>,
}

impl Targets {
    fn plan(config: &SkillsConfig) -> Self {
        let roots = planned_roots(config);
        let files = [
            trust::record_path(config),
            config.home.join(&config.app_dir).join(CONFIG_FILE),
            config.workspace.join(&config.app_dir).join(CONFIG_FILE),
        ]
        .map(|file| std::path::absolute(&file).unwrap_or(file));
        let mut targets = Self::default();
        for root in &roots {
            if root.is_dir() {
                targets.trees.insert(root.clone());
                // The folder holding a root sees the root replaced or a link to it pointed
                // elsewhere, which the root's own watch (on the old folder) cannot.
                targets.folders.extend(root.parent().map(Path::to_path_buf));
            } else {
                targets.folders.insert(nearest_folder(root));
            }
        }
        for file in &files {
            let folder = file.parent().map(nearest_folder);
            targets.folders.extend(folder);
        }
        // A folder inside a watched tree is already watched by it.
        targets
            .folders
            .retain(|folder| !targets.trees.iter().any(|tree| folder.starts_with(tree)));
        targets.wanted = roots.into_iter().chain(files).collect();
        targets
    }

    /// Adds the paths of a burst's `events` that matter to `touched`; returns whether any
    /// did. A rescan (the kernel's queue overflowed, so events were lost) names no path worth
    /// trusting: every root counts as touched, so every skill's files are looked at again,
    /// bundled ones included.
    fn take_in(
        &self,
        events: &[notify_debouncer_full::DebouncedEvent],
        touched: &mut BTreeSet<PathBuf>,
    ) -> bool {
        let mut relevant = false;
        for event in events {
            if matches!(event.kind, EventKind::Access(_)) {
                continue;
            }
            if event.need_rescan() {
                relevant = true;
                touched.extend(self.trees.iter().cloned());
            }
            for path in &event.paths {
                if self.matters(path) {
                    relevant = true;
                    touched.insert(path.clone());
                }
            }
        }
        relevant
    }

    /// Whether an event at `path` can change the catalog: it lies below a root and is
    /// visible to discovery, or it is a root, the trust record, a configuration file, or a
    /// folder on the way to one.
    fn matters(&self, path: &Path) -> bool {
        match self
            .trees
            .iter()
            .find_map(|tree| path.strip_prefix(tree).ok())
        {
            Some(below) => is_visible(below),
            None => self.wanted.iter().any(|wanted| wanted.starts_with(path)),
        }
    }
}

/// Whether a path below a root is one discovery would look at: no hidden name (editors' swap
/// and temporary files, `.git`) and no excluded folder (`node_modules`, ...) on the way.
fn is_visible(below: &Path) -> bool {
    let names: Vec<&str> = below
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_str().unwrap_or(".")),
            _ => None,
        })
        .collect();
    match names.split_last() {
        None => true,
        Some((last, folders)) => {
            !last.starts_with('.') && !folders.iter().any(|name| is_excluded_dir_name(name))
        }
    }
}

/// `path` when it is a folder, else the nearest folder above it (the file system root at
/// worst).
fn nearest_folder(path: &Path) -> PathBuf {
    path.ancestors()
        .find(|ancestor| ancestor.is_dir())
        .unwrap_or(path)
        .to_path_buf()
}

/// How one path is watched now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Watched {
    recursive: bool,
    polled: bool,
    /// The folder the path named when its watch was added (device and inode, through a
    /// link): a kernel watch follows that folder, not the path, so a root replaced or a link
    /// pointed elsewhere must be watched again.
    identity: Option<(u64, u64)>,
}

impl Watched {
    /// Looked at every poll interval (the folder it names does not matter then).
    fn polled(recursive: bool) -> Self {
        Self {
            recursive,
            polled: true,
            identity: None,
        }
    }
}

/// A symlinked folder below a kernel-watched root.
#[derive(Debug)]
struct Link {
    /// The folder it names, links resolved.
    target: PathBuf,
    /// That folder's identity when the link was last looked at.
    identity: Option<(u64, u64)>,
    /// Whether it has a kernel watch of its own: its folder lies outside every watched root,
    /// and no other link watches it.
    watched: bool,
}

/// The links to folders below `root`, where discovery would meet them: in the root and in the
/// folders that group skills, `max_depth` deep at most. A skill's own folder is not entered
/// (discovery does not follow links out of a skill), nor a hidden or excluded one.
fn links_below(root: &Path, max_depth: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![(root.to_path_buf(), 0_usize)];
    while let Some((folder, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.starts_with('.') || is_excluded_dir_name(name) {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_symlink() {
                if path.is_dir() {
                    found.push(path);
                }
            } else if kind.is_dir() && depth < max_depth && !holds_definition(&path) {
                pending.push((path, depth + 1));
            }
        }
    }
    found
}

/// The folder the link `path` names, links resolved, when `path` is a link to a folder.
fn linked_folder(path: &Path) -> Option<PathBuf> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_symlink());
    if is_link && path.is_dir() {
        std::fs::canonicalize(path).ok()
    } else {
        None
    }
}

/// Whether `folder` is a skill's own folder (it holds a definition file).
fn holds_definition(folder: &Path) -> bool {
    // Nearly every skill folder holds `SKILL.md` itself: one `lstat` answers for it.
    if std::fs::symlink_metadata(folder.join(skills_types::files::SKILL_MD)).is_ok() {
        return true;
    }
    std::fs::read_dir(folder).is_ok_and(|entries| {
        let names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
            .collect();
        skills_types::files::pick_definition(names.iter().map(String::as_str)).is_some()
    })
}

/// The folder `path` names now (device and inode, following links), where that can be told.
fn identity(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path)
            .ok()
            .map(|metadata| (metadata.dev(), metadata.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

struct State {
    config: SkillsConfig,
    poll_interval: Duration,
    kernel: Option<Debouncer<RecommendedWatcher, RecommendedCache>>,
    /// Why there is no kernel watcher, when there is none.
    kernel_refusal: Option<String>,
    current: BTreeMap<PathBuf, Watched>,
    /// The symlinked folders below the kernel-watched roots, by their path through the root
    /// ([`State::relink`]).
    links: BTreeMap<PathBuf, Link>,
    /// Paths the kernel refused once: polled for as long as the watch runs.
    polled: BTreeSet<PathBuf>,
    targets: Targets,
    listener: Box<dyn Listener>,
}

fn run(mut state: State, receiver: &mpsc::Receiver<Message>) {
    let mut next_poll = Instant::now() + state.poll_interval;
    loop {
        // With a polled path, the wait ends at the next poll at the latest.
        let first = if state.polled.is_empty() {
            match receiver.recv() {
                Ok(message) => Some(message),
                Err(_) => return,
            }
        } else {
            match receiver.recv_timeout(next_poll.saturating_duration_since(Instant::now())) {
                Ok(message) => Some(message),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        };
        let mut touched = BTreeSet::new();
        let mut relevant = false;
        let mut refusals = Vec::new();
        // Everything already queued joins this burst: one rediscovery, one report.
        let mut next = first;
        while let Some(message) = next.take() {
            match message {
                Message::Stop => return,
                Message::Events(Ok(events)) => {
                    relevant |= state.targets.take_in(&events, &mut touched);
                }
                Message::Events(Err(errors)) => refusals.extend(errors),
            }
            next = receiver.try_recv().ok();
        }
        for refusal in refusals {
            relevant |= state.refused(&refusal);
        }
        if !state.polled.is_empty() && Instant::now() >= next_poll {
            // A poll: every polled path is looked at whole; the folder stamps and the
            // catalog cache tell what moved (to the nanosecond, unlike a poller's seconds).
            relevant = true;
            touched.extend(state.polled.iter().cloned());
            next_poll = Instant::now() + state.poll_interval;
        }
        if relevant {
            // A path named itself may have been replaced (deleted and made again, a link
            // pointed elsewhere): its watch is on the old folder, so it is watched afresh.
            state.renew(&touched);
            // A root watched from now on had no watch while it filled: all of it is news.
            let fresh = state.replan();
            // The roots resolved once per burst, for the links and the paths' other names.
            let roots = state.kernel_roots();
            state.relink(&touched, &fresh, &roots);
            touched.extend(fresh);
            let touched = state.aliases(touched, &roots);
            state.listener.changed(&touched);
        }
    }
}

impl State {
    /// Plans the targets from the files as they are now and brings the watches in line.
    /// Returns the roots watched from now on.
    fn replan(&mut self) -> Vec<PathBuf> {
        let targets = Targets::plan(&self.config);
        let mut wanted: BTreeMap<PathBuf, bool> = BTreeMap::new();
        for tree in &targets.trees {
            wanted.insert(tree.clone(), true);
        }
        for folder in &targets.folders {
            wanted.entry(folder.clone()).or_insert(false);
        }
        let stale: Vec<PathBuf> = self
            .current
            .iter()
            .filter(|(path, watched)| {
                wanted.get(*path) != Some(&watched.recursive)
                    || (!watched.polled && identity(path) != watched.identity)
            })
            .map(|(path, _)| path.clone())
            .collect();
        for path in stale {
            self.unwatch(&path);
        }
        self.targets = targets;
        let mut new_trees = Vec::new();
        for (path, recursive) in wanted {
            if !self.current.contains_key(&path) {
                self.watch(&path, recursive);
                if recursive {
                    new_trees.push(path);
                }
            }
        }
        new_trees
    }

    /// Drops the kernel watches of the watched paths that `touched` names themselves; the
    /// next [`State::replan`] adds them again on whatever folder is there now.
    fn renew(&mut self, touched: &BTreeSet<PathBuf>) {
        let named: Vec<PathBuf> = self
            .current
            .iter()
            .filter(|(path, watched)| !watched.polled && touched.contains(*path))
            .map(|(path, _)| path.clone())
            .collect();
        for path in &named {
            self.unwatch(path);
        }
    }

    /// Brings the links below the kernel-watched roots in line: those `touched` names (made,
    /// removed or pointed elsewhere by this burst), and every link in the roots watched from
    /// now on (`fresh`).
    ///
    /// A root's kernel watch follows the links in it when it is added, and adds a watch for
    /// each folder made in it later, but not for a link made later: the kernel reports the
    /// link, not a folder. So a link made or pointed elsewhere while the watch runs is watched
    /// here, under its own name, after its old watch is dropped (so the folder it left is no
    /// longer watched under its name). A link to a folder that a root, or another link,
    /// watches already is given no second watch: the kernel would give both names one watch
    /// and report its events under one of them, which [`State::aliases`] makes good.
    fn relink(
        &mut self,
        touched: &BTreeSet<PathBuf>,
        fresh: &[PathBuf],
        roots: &[(PathBuf, PathBuf)],
    ) {
        let (gone, kept): (BTreeMap<PathBuf, Link>, BTreeMap<PathBuf, Link>) =
            std::mem::take(&mut self.links)
                .into_iter()
                .partition(|(path, _)| !roots.iter().any(|(root, _)| path.starts_with(root)));
        self.links = kept;
        for (path, link) in gone {
            self.release(&path, &link, roots);
        }
        for (root, _) in roots.iter().filter(|(root, _)| fresh.contains(root)) {
            // The root's new watch followed these already.
            for path in links_below(root, self.config.limits.max_depth) {
                if let Some(target) = linked_folder(&path) {
                    let watched = !self.covered(&path, &target, roots);
                    let identity = identity(&path);
                    self.links.insert(
                        path,
                        Link {
                            target,
                            identity,
                            watched,
                        },
                    );
                }
            }
        }
        let named: Vec<&PathBuf> = touched
            .iter()
            .filter(|path| {
                roots.iter().any(|(root, _)| {
                    path.starts_with(root) && *path != root && !fresh.contains(root)
                })
            })
            .collect();
        let max_depth = self.config.limits.max_depth;
        for path in named {
            self.relink_one(path, roots);
            // A folder made whole (a copy, a checkout, a rename into the root) may hold links
            // already: the kernel reported the folder, not them.
            let is_folder = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir());
            if is_folder && !holds_definition(path) {
                for link in links_below(path, max_depth) {
                    self.relink_one(&link, roots);
                }
            }
        }
    }

    /// [`State::relink`] for one path below a kernel-watched root.
    fn relink_one(&mut self, path: &Path, roots: &[(PathBuf, PathBuf)]) {
        let Some((root, _)) = roots.iter().find(|(root, _)| path.starts_with(root)) else {
            return;
        };
        if self.current.get(root).is_none_or(|watched| watched.polled) {
            // Polled since (a link before this one hit the limit): the polls cover it.
            return;
        }
        let root = root.clone();
        let Some(target) = linked_folder(path) else {
            // No longer a link to a folder. Its own watch goes, unless a real folder took
            // its place (which the root's watch has watched under this name already).
            if let Some(link) = self.links.remove(path)
                && !path.exists()
            {
                self.release(path, &link, roots);
            }
            return;
        };
        let identity = identity(path);
        if let Some(link) = self.links.remove(path) {
            if link.identity == identity && link.target == target {
                self.links.insert(path.to_path_buf(), link);
                return;
            }
            self.release(path, &link, roots);
        }
        let mut link = Link {
            target,
            identity,
            watched: false,
        };
        if !self.covered(path, &link.target, roots)
            && let Some(kernel) = self.kernel.as_mut()
        {
            match kernel.watch(path, RecursiveMode::Recursive) {
                Ok(()) => link.watched = true,
                Err(error) if matches!(error.kind, notify::ErrorKind::MaxFilesWatch) => {
                    // The root holding the link is polled from now on, the link with it.
                    let _ = kernel.unwatch(path);
                    self.unwatch(&root);
                    self.poll(&root, true, &refusal_text(&error));
                    return;
                }
                Err(error) => {
                    tracing::warn!(path = %path.display(), "the linked folder is not watched: {error}");
                }
            }
        }
        self.links.insert(path.to_path_buf(), link);
    }

    /// Whether the folder `target` that the link `path` names is watched already: by a root,
    /// or by another link's own watch.
    fn covered(&self, path: &Path, target: &Path, roots: &[(PathBuf, PathBuf)]) -> bool {
        roots.iter().any(|(_, real)| target.starts_with(real))
            || self.links.iter().any(|(other, link)| {
                other != path && link.watched && target.starts_with(&link.target)
            })
    }

    /// Lets go of the link `path` (removed, or pointed elsewhere).
    ///
    /// Its own watch is dropped, unless another link shares it: the kernel gives one folder
    /// one watch, whatever the names, so dropping it under one name drops it under all. A
    /// link with no watch of its own shared the watch of the root (or link) that reaches its
    /// folder, and the kernel may have been naming that folder's events after the link: the
    /// folder is watched again under the name that stays, which names them after it again.
    fn release(&mut self, path: &Path, link: &Link, roots: &[(PathBuf, PathBuf)]) {
        if link.watched {
            let shared = self
                .links
                .iter()
                .any(|(other, kept)| other != path && kept.target.starts_with(&link.target));
            if !shared {
                self.forget(path);
            }
            return;
        }
        let staying = roots
            .iter()
            .find_map(|(root, real)| {
                link.target
                    .strip_prefix(real)
                    .ok()
                    .map(|rest| root.join(rest))
            })
            .or_else(|| {
                self.links.iter().find_map(|(other, kept)| {
                    (other != path && kept.watched)
                        .then(|| link.target.strip_prefix(&kept.target).ok())
                        .flatten()
                        .map(|rest| other.join(rest))
                })
            });
        if let (Some(staying), Some(kernel)) = (staying, self.kernel.as_mut()) {
            let _ = kernel.watch(&staying, RecursiveMode::Recursive);
        }
    }

    /// The roots the kernel watches, each with the folder it names (links resolved).
    fn kernel_roots(&self) -> Vec<(PathBuf, PathBuf)> {
        self.current
            .iter()
            .filter(|(_, watched)| watched.recursive && !watched.polled)
            .map(|(path, _)| {
                let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                (path.clone(), real)
            })
            .collect()
    }

    /// `touched` with each path also named as every way discovery may reach it: a change in a
    /// folder that links point to is named below each link as well (discovery may have loaded
    /// the skill through any of them), and a change seen through a link's own watch is named
    /// in the root that holds the folder, if one does.
    fn aliases(
        &self,
        touched: BTreeSet<PathBuf>,
        roots: &[(PathBuf, PathBuf)],
    ) -> BTreeSet<PathBuf> {
        if self.links.is_empty() {
            return touched;
        }
        let mut by_target: BTreeMap<&Path, Vec<&Path>> = BTreeMap::new();
        for (link, info) in &self.links {
            by_target
                .entry(info.target.as_path())
                .or_default()
                .push(link.as_path());
        }
        let mut all = touched.clone();
        for path in &touched {
            let real = self.real(path, roots);
            for target in real.ancestors() {
                let Some(links) = by_target.get(target) else {
                    continue;
                };
                let rest = real.strip_prefix(target).unwrap_or(Path::new(""));
                all.extend(links.iter().map(|link| link.join(rest)));
            }
            for (root, root_real) in roots {
                if let Ok(rest) = real.strip_prefix(root_real) {
                    all.insert(root.join(rest));
                }
            }
        }
        all
    }

    /// The real path of a path named by an event: through the nearest link it lies below
    /// (the kernel may name a folder's events after any of the links to it), or through the
    /// root holding it.
    fn real(&self, path: &Path, roots: &[(PathBuf, PathBuf)]) -> PathBuf {
        let through_link = path.ancestors().find_map(|link| {
            let info = self.links.get(link)?;
            let rest = path.strip_prefix(link).ok()?;
            Some(info.target.join(rest))
        });
        through_link
            .or_else(|| {
                roots.iter().find_map(|(root, real)| {
                    path.strip_prefix(root).ok().map(|rest| real.join(rest))
                })
            })
            .unwrap_or_else(|| path.to_path_buf())
    }

    /// Drops the kernel's watch of `path` and everything below it, when there is one.
    fn forget(&mut self, path: &Path) {
        if let Some(kernel) = self.kernel.as_mut() {
            let _ = kernel.unwatch(path);
        }
    }

    fn unwatch(&mut self, path: &Path) {
        if let Some(watched) = self.current.remove(path)
            && !watched.polled
            && let Some(kernel) = self.kernel.as_mut()
        {
            // A watch on a folder that was deleted is already gone; nothing to undo then.
            let _ = kernel.unwatch(path);
        }
    }

    fn watch(&mut self, path: &Path, recursive: bool) {
        let mode = if recursive {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        if self.polled.contains(path) {
            self.current
                .insert(path.to_path_buf(), Watched::polled(recursive));
            return;
        }
        let refusal = match self.kernel.as_mut() {
            Some(kernel) => {
                let before = identity(path);
                match kernel.watch(path, mode) {
                    Ok(()) => {
                        self.current.insert(
                            path.to_path_buf(),
                            Watched {
                                recursive,
                                polled: false,
                                identity: before,
                            },
                        );
                        return;
                    }
                    // Removed since it was planned: its removal is an event of the folder
                    // above, which brings the next plan.
                    Err(error) if matches!(error.kind, notify::ErrorKind::PathNotFound) => {
                        return;
                    }
                    Err(error) => {
                        // A recursive watch that hit the limit half-way keeps what it added.
                        let _ = kernel.unwatch(path);
                        refusal_text(&error)
                    }
                }
            }
            None => self.kernel_refusal.clone().unwrap_or_default(),
        };
        self.poll(path, recursive, &refusal);
    }

    /// Watches `path` by polling from now on, and says why once.
    fn poll(&mut self, path: &Path, recursive: bool, refusal: &str) {
        self.polled.insert(path.to_path_buf());
        self.current
            .insert(path.to_path_buf(), Watched::polled(recursive));
        let message = format!(
            "the kernel would not watch {} ({refusal}); it is looked at every {} ms instead",
            path.display(),
            self.poll_interval.as_millis()
        );
        tracing::warn!(path = %path.display(), "{message}");
        let diagnostic = Diagnostic::new(DiagnosticCode::WatchPolling, Severity::Warning, message)
            .with_path(path);
        self.listener.watching(path, WatchMode::Polling, diagnostic);
    }

    /// A refusal reported after the watch began (a folder created below a root that the
    /// kernel's limit would not let it watch): that root is polled from now on. Returns
    /// whether the catalog must be looked at again (the change may have been missed).
    fn refused(&mut self, error: &notify::Error) -> bool {
        if !matches!(error.kind, notify::ErrorKind::MaxFilesWatch) {
            tracing::warn!("the watch reported an error: {error}");
            return false;
        }
        let trees: Vec<PathBuf> = self
            .current
            .iter()
            .filter(|(path, watched)| {
                watched.recursive
                    && !watched.polled
                    && (error.paths.is_empty()
                        || error.paths.iter().any(|failed| failed.starts_with(path)))
            })
            .map(|(path, _)| path.clone())
            .collect();
        let refusal = refusal_text(error);
        for tree in &trees {
            self.unwatch(tree);
            self.poll(tree, true, &refusal);
        }
        !trees.is_empty()
    }
}

/// The most entries of one skill folder a stamp looks at: a folder larger than this (a
/// vendored dependency tree) is stamped by its first entries.
const MAX_STAMPED_ENTRIES: usize = 10_000;

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

/// A folder's stamp: a hash of the relative path, size and modification time of every entry
/// discovery and the inventory would look at (no hidden names, no excluded folders, links
/// not followed), in a fixed order.
fn stamp(dir: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    let mut pending = vec![dir.to_path_buf()];
    let mut seen = 0_usize;
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<std::fs::DirEntry> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            seen += 1;
            if seen > MAX_STAMPED_ENTRIES {
                return hasher.finish();
            }
            let name = entry.file_name();
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            if metadata.is_dir() {
                if !name.to_str().is_some_and(is_excluded_dir_name) {
                    pending.push(entry.path());
                }
                continue;
            }
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            entry.path().hash(&mut hasher);
            metadata.len().hash(&mut hasher);
            metadata.modified().ok().hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// The kernel's refusal in words, naming the limit to raise when it is one.
fn refusal_text(error: &notify::Error) -> String {
    match &error.kind {
        notify::ErrorKind::MaxFilesWatch => {
            "the inotify watch limit is reached: raise fs.inotify.max_user_watches".to_owned()
        }
        // `inotify_init` says "too many open files" both for the instance limit and for the
        // process's descriptors.
        notify::ErrorKind::Io(io)
            if io.raw_os_error() == Some(rustix::io::Errno::MFILE.raw_os_error()) =>
        {
            format!(
                "{io}: the inotify instance limit (fs.inotify.max_user_instances) or the open \
             file limit (ulimit -n) is reached"
            )
        }
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests;
