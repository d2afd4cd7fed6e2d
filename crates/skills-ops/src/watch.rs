//! The live catalog's watcher (08 §The live catalog): the kernel's file events (inotify,
//! FSEvents or ReadDirectoryChangesW, through `notify`) on the folders a discovery of the
//! configuration reads, the trust record and the configuration files, gathered into bursts
//! that end when they have been quiet for the debounce time.
//!
//! What is watched is planned from discovery's own walk (`plan`): every folder of a root that
//! can gain or lose a skill, each skill folder and the folders inside it, one kernel watch per
//! folder, through exactly the links discovery follows and within its limits. Nothing is
//! watched "recursively": a recursive inotify watch walks, and watches, every folder below,
//! through every link, so a root linking to `/usr` held fifteen thousand watches and an event
//! for every file any program opened there. A root that would need more than
//! [`MAX_WATCHES_PER_ROOT`] watches is polled instead, and the watch says so.
//!
//! After a burst that touched only the inside of known skill folders (a definition saved, a
//! bundled file added), the watches of those skills' folders are brought in line and nothing
//! else is walked; any other burst plans again from a fresh walk (a root created or deleted,
//! trust granted or revoked, a configuration file naming another root, a folder or link made
//! in a root). Then the [`Listener`] is told which paths the burst named; it re-discovers, and
//! the catalog cache re-reads only the definition files that changed. A root that does not
//! exist yet is waited for by watching the nearest folder above it that does.
//!
//! A path the kernel will not watch (the inotify watch limit, or another refusal) is polled
//! instead, a `stat` per folder it would have watched (`poll`), and the listener is told why:
//! the watcher never stops silently. The thread sleeps while nothing happens: no timer runs
//! unless a path is polled, and file reads (any program's, this one's included) never wake
//! it. The watch runs on its own thread until the [`Watcher`] is dropped.

mod plan;
mod poll;
mod stamps;

pub use stamps::FolderStamps;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::event::{ModifyKind, RenameMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};
use skills_types::files::{SKILL_MD, is_excluded_dir_name, match_definition};
use skills_types::limits::MAX_WATCHES_PER_ROOT;
use skills_types::watch::{WatchMode, WatchOptions};
use skills_types::{Diagnostic, DiagnosticCode, Error, Severity, SkillsConfig};

use crate::discover::CONFIG_FILE;
use crate::trust;
use plan::{Identity, RootPlan};
use poll::Snapshot;

/// The shortest quiet time and poll interval accepted: below them a watch would spin.
const MIN_DEBOUNCE: Duration = Duration::from_millis(10);
const MIN_POLL_INTERVAL: Duration = Duration::from_millis(100);

/// The longest a burst is held, in quiet times: a file written without pause inside a root (a
/// log) is still reported, one burst every this many quiet times, rather than never.
const MAX_BURST_IN_DEBOUNCES: u32 = 10;

/// What a watch tells whoever started it, on the watch's own thread.
pub trait Listener: Send + 'static {
    /// A burst changed what the catalog is made of. `touched` are the paths its events named:
    /// files and folders below a root (hidden names and excluded folders left out), and the
    /// trust record or a configuration file when one of those changed.
    fn changed(&mut self, touched: &BTreeSet<PathBuf>);

    /// `path` is watched another way from now on, or discovery found it bounded; `diagnostic`
    /// says why.
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
    let handler = move |result: notify::Result<notify::Event>| {
        // Reads are dropped where they cost least. With a watch on a folder, inotify reports
        // every open of every file in it by any program (this one's discovery included): they
        // never change the catalog, and must never wake the watch.
        if let Ok(event) = &result
            && matches!(event.kind, EventKind::Access(_))
        {
            return;
        }
        let _ = events.send(Message::Event(result));
    };
    let kernel = RecommendedWatcher::new(handler, notify::Config::default());
    let mut state = State::new(config, options, kernel, Box::new(listener));
    state.replan();
    let watching = state.targets.watching();
    std::thread::Builder::new()
        .name("skills-watch".to_owned())
        .spawn(move || run(state, &receiver, debounce))
        .map_err(|source| Error::io("start the watch thread", &config.home, source))?;
    Ok(Watcher {
        stop: sender,
        watching,
    })
}

enum Message {
    Event(notify::Result<notify::Event>),
    Stop,
}

/// The paths events named since the last report, and when.
#[derive(Default)]
struct Burst {
    touched: BTreeSet<PathBuf>,
    /// The kernel's queue overflowed: events were lost.
    rescan: bool,
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Burst {
    fn note(&mut self) {
        let now = Instant::now();
        self.first.get_or_insert(now);
        self.last = Some(now);
    }

    /// When the burst is to be reported: once quiet for `debounce`, or once it has lasted
    /// `longest`, whichever comes first; `None` while it is empty.
    fn due(&self, debounce: Duration, longest: Duration) -> Option<Instant> {
        Some((self.last? + debounce).min(self.first? + longest))
    }
}

/// What to watch for one configuration besides the roots' folders, planned from the files as
/// they are now.
#[derive(Debug, Default, PartialEq)]
struct Targets {
    /// Roots that exist.
    trees: BTreeSet<PathBuf>,
    /// Folders watched for their own entries: those holding the roots, the trust record and
    /// the configuration files, and the nearest existing folder above anything missing.
    folders: BTreeSet<PathBuf>,
    /// Every root and file of interest, also those that do not exist: a change to one of
    /// them, or to a folder on the way to one, matters.
    wanted: Vec<PathBuf>,
}

impl Targets {
    fn plan<'a>(config: &SkillsConfig, roots: impl Iterator<Item = &'a Path>) -> Self {
        let roots: Vec<PathBuf> = roots.map(Path::to_path_buf).collect();
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
        targets.wanted = roots.into_iter().chain(files).collect();
        targets
    }

    /// What `Ready` names as watched: the roots that exist and the folders above.
    fn watching(&self) -> Vec<PathBuf> {
        self.trees.union(&self.folders).cloned().collect()
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

/// One root: its plan, and why it is polled when it is.
struct RootState {
    plan: RootPlan,
    polled: Option<Polled>,
}

/// A path looked at every poll interval instead of watched by the kernel.
struct Polled {
    /// Why, in words (the diagnostic's message).
    why: String,
    snapshot: Snapshot,
}

/// Whose a kernel watch is: a root's (one of its folders) or a holder folder's.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Owner {
    Holder(PathBuf),
    Root(PathBuf),
}

struct State {
    config: SkillsConfig,
    poll_interval: Duration,
    /// The most kernel watches one root may hold ([`MAX_WATCHES_PER_ROOT`]).
    cap: usize,
    kernel: Option<RecommendedWatcher>,
    /// Why there is no kernel watcher, when there is none.
    kernel_refusal: Option<String>,
    targets: Targets,
    /// Every planned root, by path.
    roots: BTreeMap<PathBuf, RootState>,
    /// The holder folders, each with why it is polled when the kernel refused it.
    holders: BTreeMap<PathBuf, Option<String>>,
    /// The polled holders and the wanted paths, looked at together.
    holder_poll: Option<Snapshot>,
    /// Every path the kernel watches, with the identity of the folder it was added on.
    watched: BTreeMap<PathBuf, Identity>,
    /// Other paths to a folder the kernel watches under one path (`watched`): its events are
    /// named after that path, and after these too.
    aliases: HashMap<PathBuf, Vec<PathBuf>>,
    /// Roots and holders the kernel's watch limit refused: polled for as long as the watch
    /// runs (asking again would fail again, and cost a watch per folder until it did).
    limited: BTreeMap<Owner, String>,
    /// What the listener was told, so each thing is said once: the path and the message.
    told: BTreeSet<(PathBuf, String)>,
    listener: Box<dyn Listener>,
}

fn run(mut state: State, receiver: &mpsc::Receiver<Message>, debounce: Duration) {
    let longest = debounce * MAX_BURST_IN_DEBOUNCES;
    let mut burst = Burst::default();
    let mut next_poll = state
        .is_polling()
        .then(|| Instant::now() + state.poll_interval);
    loop {
        // Asleep until an event, the end of the burst or the next poll: with nothing polled
        // and nothing happening, no timer runs.
        let deadline = [burst.due(debounce, longest), next_poll]
            .into_iter()
            .flatten()
            .min();
        let first = match deadline {
            None => match receiver.recv() {
                Ok(message) => Some(message),
                Err(_) => return,
            },
            Some(at) => match receiver.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(message) => Some(message),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            },
        };
        let mut next = first;
        while let Some(message) = next.take() {
            match message {
                Message::Stop => return,
                Message::Event(Ok(event)) => state.take_in(&event, &mut burst),
                Message::Event(Err(error)) => {
                    tracing::warn!("the watch reported an error: {error}");
                }
            }
            next = receiver.try_recv().ok();
        }
        let now = Instant::now();
        let mut touched = BTreeSet::new();
        let mut relevant = false;
        if burst.due(debounce, longest).is_some_and(|at| now >= at) {
            let done = std::mem::take(&mut burst);
            relevant = true;
            touched = done.touched;
            if done.rescan {
                // No path the burst named can be trusted: every root counts as touched, so
                // every skill's files are looked at again, bundled ones included.
                touched.extend(state.targets.trees.iter().cloned());
            }
        }
        if next_poll.is_some_and(|at| now >= at) {
            let moved = state.poll();
            relevant |= !moved.is_empty();
            touched.extend(moved);
            next_poll = None;
        }
        if relevant {
            state.after(touched);
        }
        if next_poll.is_none() && state.is_polling() {
            next_poll = Some(Instant::now() + state.poll_interval);
        }
    }
}

impl State {
    /// A watch of nothing yet, with `kernel` (or why there is none).
    fn new(
        config: &SkillsConfig,
        options: &WatchOptions,
        kernel: notify::Result<RecommendedWatcher>,
        listener: Box<dyn Listener>,
    ) -> Self {
        let (kernel, kernel_refusal) = match kernel {
            Ok(watcher) => (Some(watcher), None),
            Err(error) => (None, Some(refusal_text(&error))),
        };
        Self {
            config: config.clone(),
            poll_interval: options.poll_interval.max(MIN_POLL_INTERVAL),
            cap: MAX_WATCHES_PER_ROOT,
            kernel,
            kernel_refusal,
            targets: Targets::default(),
            roots: BTreeMap::new(),
            holders: BTreeMap::new(),
            holder_poll: None,
            watched: BTreeMap::new(),
            aliases: HashMap::new(),
            limited: BTreeMap::new(),
            told: BTreeSet::new(),
            listener,
        }
    }

    /// Adds what `event` names to `burst`, when it matters.
    fn take_in(&mut self, event: &notify::Event, burst: &mut Burst) {
        if event.need_rescan() {
            burst.rescan = true;
            burst.note();
        }
        // A folder removed or moved away loses its kernel watch, and `notify` drops the
        // watches of the paths below it with it: so does the record of what is watched, or
        // the folder, made again, would be taken for watched.
        let gone = matches!(
            event.kind,
            EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(RenameMode::From))
        );
        if gone
            && let Some(path) = event.paths.first()
            && self.watched.contains_key(path)
        {
            let below: Vec<PathBuf> = self
                .watched
                .range(path.clone()..)
                .take_while(|(watched, _)| watched.starts_with(path))
                .map(|(watched, _)| watched.clone())
                .collect();
            for watched in below {
                self.watched.remove(&watched);
            }
        }
        for path in &event.paths {
            for name in self.names(path) {
                if self.targets.matters(&name) {
                    burst.touched.insert(name);
                    burst.note();
                }
            }
        }
    }

    /// `path` and its other names: an event in a folder watched under one path is named after
    /// each path that reaches the folder.
    fn names(&self, path: &Path) -> Vec<PathBuf> {
        let mut names = vec![path.to_path_buf()];
        if self.aliases.is_empty() {
            return names;
        }
        if let Some(others) = self.aliases.get(path) {
            names.extend(others.iter().cloned());
        }
        if let (Some(folder), Some(name)) = (path.parent(), path.file_name())
            && let Some(others) = self.aliases.get(folder)
        {
            names.extend(others.iter().map(|other| other.join(name)));
        }
        names
    }

    fn is_polling(&self) -> bool {
        self.holder_poll.is_some() || self.roots.values().any(|root| root.polled.is_some())
    }

    /// One poll: the polled paths whose `stat` moved since the last poll.
    fn poll(&mut self) -> Vec<PathBuf> {
        let mut moved = Vec::new();
        for root in self.roots.values_mut() {
            if let Some(polled) = &mut root.polled {
                moved.extend(polled.snapshot.changed());
            }
        }
        if let Some(snapshot) = &mut self.holder_poll {
            moved.extend(snapshot.changed());
        }
        moved
    }

    /// After a burst (or a poll) that named `touched`: the watches brought in line, then the
    /// listener told.
    fn after(&mut self, mut touched: BTreeSet<PathBuf>) {
        let fresh = match self.inside_skills(&touched) {
            Some(skills) => {
                if self.update_skills(&skills) {
                    Vec::new()
                } else {
                    self.replan()
                }
            }
            None => self.replan(),
        };
        // A folder watched from now on had no watch while it filled: all of it is news.
        touched.extend(fresh);
        self.listener.changed(&touched);
    }

    /// The skill folders whose own folders may have changed, when every path of `touched`
    /// lies inside a skill folder of a root the kernel watches and leaves that folder a skill
    /// the same way (its definition file is its own `SKILL.md`, a regular file); `None` when
    /// the burst needs a plan from a fresh walk.
    fn inside_skills(&self, touched: &BTreeSet<PathBuf>) -> Option<BTreeSet<(PathBuf, PathBuf)>> {
        let mut due = BTreeSet::new();
        for path in touched {
            let (root, state) = self
                .roots
                .iter()
                .find(|(root, _)| path.starts_with(root) && path != *root)?;
            if state.polled.is_some() {
                return None;
            }
            let skill = state.plan.skill_holding(path)?;
            let plan = state.plan.skills.get(skill)?;
            let is_definition = path
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| match_definition(name).is_some());
            if is_definition {
                let plain = plan.definition == skill.join(SKILL_MD)
                    && std::fs::symlink_metadata(&plan.definition)
                        .is_ok_and(|metadata| metadata.is_file());
                if !plain {
                    return None;
                }
            }
            let folder_now =
                std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_dir());
            let folder_before = plan.inside.iter().any(|(inside, _)| inside == path);
            if folder_now || folder_before {
                due.insert((root.clone(), skill.to_path_buf()));
            }
        }
        Some(due)
    }

    /// Walks the skill folders `due` again for their folders and brings the watches in line.
    /// Returns `false` when a root would pass the cap on watches (a plan from a fresh walk
    /// decides how it is watched then).
    fn update_skills(&mut self, due: &BTreeSet<(PathBuf, PathBuf)>) -> bool {
        if due.is_empty() {
            return true;
        }
        for (root, skill) in due {
            let Some(state) = self.roots.get_mut(root) else {
                return false;
            };
            if let Some(plan) = state.plan.skills.get_mut(skill) {
                plan.inside = plan::skill_folders(skill);
            }
            if state.plan.folder_count() > self.cap {
                return false;
            }
        }
        self.apply(false);
        true
    }

    /// Plans every root from a fresh walk and brings the watches in line. Returns the paths
    /// that are news: the folders watched from now on that are not inside another one watched
    /// from now on, and what the polls saw move since their last look (taken again now).
    fn replan(&mut self) -> Vec<PathBuf> {
        let mut news = self.poll();
        let extent = crate::discover::extent(&self.config);
        self.targets = Targets::plan(
            &self.config,
            extent.roots.iter().map(|root| root.path.as_path()),
        );
        let mut roots = BTreeMap::new();
        for root in extent.roots {
            let plan = RootPlan::of(root);
            roots.insert(plan.path.clone(), RootState { plan, polled: None });
        }
        let before = std::mem::replace(&mut self.roots, roots);
        for (path, state) in &mut self.roots {
            // How it was watched, for `apply` to tell what changed.
            state.polled = before
                .get(path)
                .and_then(|old| old.polled.as_ref())
                .map(|polled| Polled {
                    why: polled.why.clone(),
                    snapshot: Snapshot::default(),
                });
        }
        let holders_before = std::mem::take(&mut self.holders);
        self.holders = self
            .targets
            .folders
            .iter()
            .map(|folder| {
                (
                    folder.clone(),
                    holders_before.get(folder).cloned().flatten(),
                )
            })
            .collect();
        news.extend(self.apply(true));
        news
    }

    /// Decides how each root and holder is watched, adds and removes kernel watches (one
    /// path per folder), and tells the listener what changed in how a path is watched.
    /// `fresh_walk` says the plans come from a new walk, so the polls take their first look
    /// again. Returns the folders of roots the kernel watches from now on that are not inside
    /// another one watched from now on.
    fn apply(&mut self, fresh_walk: bool) -> Vec<PathBuf> {
        let was_polled: BTreeMap<PathBuf, Option<String>> = self
            .roots
            .iter()
            .map(|(path, state)| {
                let why = state.polled.as_ref().map(|polled| polled.why.clone());
                (path.clone(), why)
            })
            .collect();
        let holders_before = self.holders.clone();
        // How each path is watched: the kernel's, unless there is no kernel watcher, its
        // limit refused the path before, or a root needs more watches than one may hold.
        for (path, why) in &mut self.holders {
            let refusal = self
                .kernel_refusal
                .as_ref()
                .or_else(|| self.limited.get(&Owner::Holder(path.clone())));
            *why = refusal.map(|refusal| polling_message(path, refusal, self.poll_interval));
        }
        for (path, state) in &mut self.roots {
            let refusal = self
                .kernel_refusal
                .as_ref()
                .or_else(|| self.limited.get(&Owner::Root(path.clone())));
            let why = match refusal {
                Some(refusal) => Some(polling_message(path, refusal, self.poll_interval)),
                None => {
                    let needed = state.plan.folder_count();
                    (needed > self.cap).then(|| {
                        format!(
                            "{} needs {needed} kernel watches (one per folder of its skills), more than the {} one root may hold, so that it cannot take the user's whole inotify allowance; it is looked at every {} ms instead, one `stat` per folder and definition file",
                            path.display(),
                            self.cap,
                            self.poll_interval.as_millis()
                        )
                    })
                }
            };
            state.polled = match (why, state.polled.take()) {
                (None, _) => None,
                (Some(why), Some(polled)) if !fresh_walk && polled.why == why => Some(polled),
                (Some(why), _) => Some(Polled {
                    why,
                    snapshot: Snapshot::take(state.plan.polled_paths()),
                }),
            };
        }
        let (added, refused) = self.reconcile();
        for (owner, why) in refused {
            match owner {
                Owner::Root(path) => {
                    if let Some(state) = self.roots.get_mut(&path) {
                        let snapshot = Snapshot::take(state.plan.polled_paths());
                        state.polled = Some(Polled { why, snapshot });
                    }
                }
                Owner::Holder(path) => {
                    self.holders.insert(path, Some(why));
                }
            }
        }
        if fresh_walk || self.holders != holders_before {
            let polled: Vec<PathBuf> = self
                .holders
                .iter()
                .filter(|(_, why)| why.is_some())
                .map(|(path, _)| path.clone())
                .collect();
            // A polled holder is looked at with what it holds: an edit of a configuration
            // file in place changes the file, not the folder.
            self.holder_poll = (!polled.is_empty()).then(|| {
                Snapshot::take(
                    polled
                        .into_iter()
                        .chain(self.targets.wanted.iter().cloned())
                        .collect(),
                )
            });
        }
        self.tell(&was_polled);
        let set: BTreeSet<&Path> = added.iter().map(PathBuf::as_path).collect();
        added
            .iter()
            .filter(|path| path.parent().is_none_or(|parent| !set.contains(parent)))
            .cloned()
            .collect()
    }

    /// Adds and removes kernel watches so that each folder of every path the kernel is to
    /// watch (the holders first, then the roots in precedence order) is watched under one
    /// path; the others that reach it become its aliases. Returns the folders of roots added,
    /// and the roots and holders the kernel refused, with why (their watches are taken back:
    /// they are polled instead).
    fn reconcile(&mut self) -> (Vec<PathBuf>, Vec<(Owner, String)>) {
        let mut wanted: Vec<(Owner, Vec<(PathBuf, Identity)>)> = Vec::new();
        for (holder, why) in &self.holders {
            if why.is_none() {
                let folder = vec![(holder.clone(), plan::identity(holder))];
                wanted.push((Owner::Holder(holder.clone()), folder));
            }
        }
        for (path, state) in &self.roots {
            if state.polled.is_none() {
                let folders = state.plan.folders().cloned().collect();
                wanted.push((Owner::Root(path.clone()), folders));
            }
        }
        let mut desired: BTreeMap<PathBuf, Identity> = BTreeMap::new();
        let mut first_path: HashMap<crate::discover::DirKey, PathBuf> = HashMap::new();
        let mut aliases: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
        let mut owners: Vec<(Owner, Vec<PathBuf>)> = Vec::new();
        for (owner, folders) in wanted {
            let mut own = Vec::new();
            for (path, identity) in folders {
                if desired.contains_key(&path) {
                    continue;
                }
                if let Some(key) = &identity {
                    // The kernel keeps one watch per folder whatever the path, and names its
                    // events after one path: the folder is watched once, and its other paths
                    // are named when it reports.
                    if let Some(first) = first_path.get(key) {
                        aliases.entry(first.clone()).or_default().push(path);
                        continue;
                    }
                    first_path.insert(key.to_owned(), path.clone());
                }
                desired.insert(path.clone(), identity);
                own.push(path);
            }
            owners.push((owner, own));
        }
        self.aliases = aliases;
        // A path no longer wanted, or now naming another folder than the one watched (a
        // folder replaced, a link pointed elsewhere: the kernel's watch follows the folder).
        let stale: Vec<PathBuf> = self
            .watched
            .iter()
            .filter(|(path, identity)| match desired.get(*path) {
                None => true,
                Some(wanted) => wanted.is_some() && wanted != *identity,
            })
            .map(|(path, _)| path.clone())
            .collect();
        let mut added = Vec::new();
        let mut refused = Vec::new();
        let Some(kernel) = self.kernel.as_mut() else {
            self.watched.clear();
            return (added, refused);
        };
        // One batch: where adding a watch costs a restart of the event stream (FSEvents), it
        // is paid once.
        let mut batch = kernel.paths_mut();
        for path in stale {
            self.watched.remove(&path);
            // A folder deleted has lost its watch already; nothing to undo then.
            let _ = batch.remove(&path);
        }
        for (owner, paths) in owners {
            let own_path = match &owner {
                Owner::Holder(path) | Owner::Root(path) => path.clone(),
            };
            let mut refusal = None;
            let mut new = Vec::new();
            for path in &paths {
                if self.watched.contains_key(path) {
                    continue;
                }
                match batch.add(path, RecursiveMode::NonRecursive) {
                    Ok(()) => {
                        self.watched
                            .insert(path.clone(), desired.get(path).cloned().flatten());
                        new.push(path.clone());
                    }
                    // Removed since the walk: the folder above reports it, which brings the
                    // next plan.
                    Err(error) if matches!(error.kind, notify::ErrorKind::PathNotFound) => {}
                    Err(error) if matches!(error.kind, notify::ErrorKind::MaxFilesWatch) => {
                        let text = refusal_text(&error);
                        self.limited.insert(owner.clone(), text.clone());
                        refusal = Some(text);
                        break;
                    }
                    // Another refusal (permission denied) of the root or holder itself: it is
                    // polled until a plan finds it watchable. A folder below it is left to the
                    // folder above, whose watch reports its mode changing.
                    Err(error) if *path == own_path => {
                        refusal = Some(refusal_text(&error));
                        break;
                    }
                    Err(error) => {
                        tracing::debug!(path = %path.display(), "not watched: {error}");
                    }
                }
            }
            match refusal {
                None => {
                    if matches!(owner, Owner::Root(_)) {
                        added.extend(new);
                    }
                }
                Some(text) => {
                    for path in &paths {
                        if self.watched.remove(path).is_some() {
                            let _ = batch.remove(path);
                        }
                    }
                    let why = polling_message(&own_path, &text, self.poll_interval);
                    tracing::warn!(path = %own_path.display(), "{why}");
                    refused.push((owner, why));
                }
            }
        }
        if let Err(error) = batch.commit() {
            tracing::warn!("the watches could not all be applied: {error}");
        }
        (added, refused)
    }

    /// Tells the listener how each root and holder is watched now, where that changed since
    /// `was_polled`, and what discovery found about a root's bounds; each thing once.
    fn tell(&mut self, was_polled: &BTreeMap<PathBuf, Option<String>>) {
        let mut sayings: Vec<(PathBuf, WatchMode, Diagnostic)> = Vec::new();
        let mut current = BTreeSet::new();
        for (path, state) in &self.roots {
            let before = was_polled.get(path).cloned().flatten();
            let mode = if state.polled.is_some() {
                WatchMode::Polling
            } else {
                WatchMode::Events
            };
            match (&state.polled, before) {
                (Some(polled), before) if before.as_deref() != Some(polled.why.as_str()) => {
                    let diagnostic = Diagnostic::new(
                        DiagnosticCode::WatchPolling,
                        Severity::Warning,
                        polled.why.clone(),
                    )
                    .with_path(path);
                    sayings.push((path.clone(), mode, diagnostic));
                }
                (None, Some(_)) => {
                    let message =
                        format!("{} is watched by the kernel's events again", path.display());
                    let diagnostic =
                        Diagnostic::new(DiagnosticCode::WatchPolling, Severity::Info, message)
                            .with_path(path);
                    sayings.push((path.clone(), mode, diagnostic));
                }
                _ => {}
            }
            for note in &state.plan.notes {
                let about = note.path.clone().unwrap_or_else(|| path.clone());
                let key = (about.clone(), note.message.clone());
                if !self.told.contains(&key) {
                    sayings.push((about, mode, note.clone()));
                }
                current.insert(key);
            }
        }
        for (holder, why) in &self.holders {
            if let Some(why) = why {
                let key = (holder.clone(), why.clone());
                if !self.told.contains(&key) {
                    let diagnostic =
                        Diagnostic::new(DiagnosticCode::WatchPolling, Severity::Warning, why)
                            .with_path(holder);
                    sayings.push((holder.clone(), WatchMode::Polling, diagnostic));
                }
                current.insert(key);
            }
        }
        // Forgotten once it no longer holds, so it is said again if it comes back.
        self.told = current;
        for (path, mode, diagnostic) in sayings {
            if diagnostic.severity == Severity::Warning {
                tracing::warn!(path = %path.display(), "{}", diagnostic.message);
            }
            self.listener.watching(&path, mode, diagnostic);
        }
    }
}

/// The diagnostic message of a path polled because the kernel refused it.
fn polling_message(path: &Path, refusal: &str, interval: Duration) -> String {
    format!(
        "the kernel would not watch {} ({refusal}); it is looked at every {} ms instead",
        path.display(),
        interval.as_millis()
    )
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
