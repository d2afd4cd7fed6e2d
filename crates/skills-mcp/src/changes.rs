//! What changed in the catalog, for the change notifications (08 §`skills mcp`).
//!
//! One [`Live`] per server follows the catalog and broadcasts each [`Change`] to every session,
//! which forwards it as list-changed, resource-updated and log notifications (`server.rs`). It
//! also keeps the listing the lists page through and the instructions of sessions that start
//! later, and turns the listing's diagnostics into log lines, each told once.
//!
//! When the first session starts (or first asks for a list), [`Live::start`] starts the
//! service's watch (08 §The live catalog). After each burst of file events (quiet for 300 ms
//! by default) the watch reports the skills added, changed (their record, or any of their
//! files, bundled ones included) and removed; `Live` lists the catalog again, then tells the
//! sessions. While the watch runs, the service keeps a skill's last valid version when its
//! definition file stops loading, so a file mid-edit is a log line and its skill stays
//! listed; a root the kernel would not watch (and that the watch now polls) is a log line too.
//! The watch belongs to the task following it, which ends, dropping it, when the `Live` is
//! dropped.
//!
//! Only when the watch cannot start (a build without the subsystem, or an error, said once in
//! the log) does `Live` look again every [`POLL_INTERVAL`] instead, comparing a fingerprint of
//! each skill with the last one: its listing record, its definition file's size and
//! modification time, and its folder's modification time (which moves when a file is added to
//! or removed from the folder itself, but not when a file deeper down is edited).

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, Mutex, Once, PoisonError, RwLock, Weak};
use std::time::Duration;

use skills_types::catalog::{ListOptions, Listing};
use skills_types::service::SkillsService;
use skills_types::watch::{Watch, WatchEvent, WatchMode, WatchOptions};
use skills_types::{Diagnostic, Error, Severity, sanitize};
use tokio::sync::{broadcast, oneshot};

use crate::instructions::{instructions, instructions_from, render_options};

/// How often the catalog is compared with the last look when it cannot be watched.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// Changes a slow session may fall behind by before it is told "everything changed".
const BACKLOG: usize = 64;

/// One line for the host's log: a diagnostic of the catalog, a failure to read it, or how it
/// is followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Log {
    /// How serious it is.
    pub(crate) severity: Severity,
    /// The sentence, naming the skill or file it is about, sanitised.
    pub(crate) text: String,
}

impl Log {
    /// A line of `text`, which quotes names and paths from skill folders: through the one
    /// sanitiser, so a folder name cannot smuggle a terminal escape or a bidi override into
    /// the host's log.
    fn new(severity: Severity, text: &str) -> Self {
        Self {
            severity,
            text: sanitize::line(text).into_owned(),
        }
    }
}

/// The log lines that hold, by their text: one sentence is one line whatever its severity (a
/// load error is told as a warning when the watch reports it, and the listing's diagnostics
/// carry the same sentence as an error).
type Lines = BTreeMap<String, Severity>;

/// What changed between two looks at the catalog.
#[derive(Clone, Debug, Default)]
pub(crate) struct Change {
    /// A skill was added or removed, or what the listing says of one changed: the tools,
    /// resources and prompts lists are all stale.
    pub(crate) lists: bool,
    /// The names of the skills present both times whose files changed.
    pub(crate) updated: BTreeSet<String>,
    /// Log lines that were not there the last time.
    pub(crate) logs: Vec<Log>,
}

impl Change {
    /// What a session that fell behind is told: every list is stale.
    pub(crate) fn everything() -> Self {
        Self {
            lists: true,
            ..Self::default()
        }
    }

    fn is_empty(&self) -> bool {
        !self.lists && self.updated.is_empty() && self.logs.is_empty()
    }
}

/// A skill's fingerprint for the poller: its listing record, and its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fingerprint {
    listed: u64,
    files: u64,
}

/// One look at the catalog.
#[derive(Debug, Default)]
struct Snapshot {
    /// The poller's fingerprints; none while watching, and until the poller's first turn
    /// (that stats two paths per skill, so a server takes it off the path of its first
    /// answers).
    skills: Option<BTreeMap<String, Fingerprint>>,
    lines: Lines,
}

/// The catalog as the server last saw it, shared by every session.
pub(crate) struct Live {
    service: Arc<dyn SkillsService>,
    sender: broadcast::Sender<Change>,
    instructions: RwLock<Arc<str>>,
    /// The listing of the last look, which the lists page through (none: it failed).
    listing: RwLock<Option<Arc<Listing>>>,
    last: Mutex<Snapshot>,
    /// Lines about how the catalog is followed (why it is polled, a root the watch polls),
    /// which hold as long as the server runs, by what they are about.
    notes: Mutex<BTreeMap<String, Log>>,
    started: Once,
    /// Dropped with the `Live`, which ends the task following the catalog and so the watch.
    _stop: oneshot::Sender<()>,
    /// The other end, for that task.
    stopped: Mutex<Option<oneshot::Receiver<()>>>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Live").finish_non_exhaustive()
    }
}

impl Live {
    /// The catalog as it is now, listed and rendered from one discovery. Blocks.
    pub(crate) fn new(service: Arc<dyn SkillsService>) -> Self {
        let (sender, _) = broadcast::channel(BACKLOG);
        let (stop, stopped) = oneshot::channel();
        let options = render_options(service.as_ref());
        let (instructions, (last, listing)) =
            match service.overview(&ListOptions::default(), &options) {
                Ok((listing, rendered)) => {
                    let cheap = Snapshot {
                        skills: None,
                        lines: lines_of(&listing),
                    };
                    (
                        instructions_from(Ok(rendered)),
                        (cheap, Some(Arc::new(listing))),
                    )
                }
                Err(error) => {
                    let instructions = instructions_from(Err(&error));
                    (instructions, from_result(Err(error)))
                }
            };
        Self {
            service,
            sender,
            instructions: RwLock::new(instructions.into()),
            listing: RwLock::new(listing),
            last: Mutex::new(last),
            notes: Mutex::default(),
            started: Once::new(),
            _stop: stop,
            stopped: Mutex::new(Some(stopped)),
        }
    }

    /// The listing of the last look (current before any change is told), or a fresh one when
    /// that look failed.
    pub(crate) fn listing(&self) -> Result<Arc<Listing>, Error> {
        match self.last_listing() {
            Some(listing) => Ok(listing),
            None => self.service.list(&ListOptions::default()).map(Arc::new),
        }
    }

    fn last_listing(&self) -> Option<Arc<Listing>> {
        self.listing
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The instructions a session starting now is given.
    pub(crate) fn instructions(&self) -> Arc<str> {
        Arc::clone(
            &self
                .instructions
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The log lines that hold now, for a session that just started.
    pub(crate) fn logs(&self) -> Vec<Log> {
        let notes = self.notes.lock().unwrap_or_else(PoisonError::into_inner);
        let last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        notes
            .values()
            .cloned()
            .chain(last.lines.iter().map(|(text, severity)| Log {
                severity: *severity,
                text: text.clone(),
            }))
            .collect()
    }

    /// The changes from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.sender.subscribe()
    }

    /// Follows the catalog on the current async runtime from the first call on, until the
    /// last server holding this `Live` is gone: through the service's watch, or by polling
    /// when the watch cannot start.
    pub(crate) fn start(live: &Arc<Self>) {
        live.started.call_once(|| {
            let stopped = live
                .stopped
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            let service = Arc::clone(&live.service);
            let live = Arc::downgrade(live);
            tokio::spawn(async move {
                let Some(stopped) = stopped else { return };
                // Starting a watch discovers the catalog and sets up the kernel's watches:
                // off the async workers, and off the path of the session's first answers.
                let started =
                    tokio::task::spawn_blocking(move || service.watch(&WatchOptions::default()))
                        .await;
                match started {
                    Ok(Ok(watch)) => follow(live, watch, stopped).await,
                    Ok(Err(error)) => {
                        if let Some(live) = live.upgrade() {
                            live.not_watched(&error);
                        }
                        poll(live).await;
                    }
                    // The runtime is shutting down.
                    Err(_) => {}
                }
            });
        });
    }

    /// Takes in one event of the watch. Blocks (a change lists the catalog again).
    fn take_in(&self, event: WatchEvent) {
        let change = match event {
            // The watch's own baseline comes after `new` listed the catalog: what changed in
            // between is found by comparing the listings.
            WatchEvent::Ready { .. } => self.refresh(&Reported::default()),
            WatchEvent::CatalogChanged {
                added,
                changed,
                removed,
            } => self.refresh(&Reported {
                added,
                changed,
                removed,
            }),
            WatchEvent::LoadError {
                path, diagnostic, ..
            } => self.load_error(path.as_deref(), &diagnostic),
            WatchEvent::Watching {
                path,
                mode,
                diagnostic,
            } => {
                let severity = match mode {
                    WatchMode::Events => Severity::Info,
                    WatchMode::Polling => Severity::Warning,
                };
                let log = Log::new(severity, &diagnostic_text(&diagnostic, Some(&path)));
                self.note(path.display().to_string(), log)
            }
            _ => Change::default(),
        };
        self.tell(change);
    }

    /// Lists and renders the catalog again after the watch `reported` a change (or started),
    /// and says what differs for the sessions. Blocks.
    fn refresh(&self, reported: &Reported) -> Change {
        let options = render_options(self.service.as_ref());
        let before = self.last_listing();
        let (rendered, listing, lines) =
            match self.service.overview(&ListOptions::default(), &options) {
                Ok((listing, rendered)) => {
                    let lines = lines_of(&listing);
                    (
                        instructions_from(Ok(rendered)),
                        Some(Arc::new(listing)),
                        lines,
                    )
                }
                Err(error) => {
                    let rendered = instructions_from(Err(&error));
                    (rendered, None, unreadable(&error))
                }
            };
        let (lists, updated) = differences(before.as_deref(), listing.as_deref(), reported);
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let (logs, held) = hold(&last.lines, lines);
        last.lines = held;
        // The lists show the change before anyone is told of it.
        *self.listing.write().unwrap_or_else(PoisonError::into_inner) = listing;
        *self
            .instructions
            .write()
            .unwrap_or_else(PoisonError::into_inner) = rendered.into();
        drop(last);
        Change {
            lists,
            updated,
            logs,
        }
    }

    /// A definition file that stopped loading: one warning, unless the same sentence holds
    /// already (the listing's diagnostics carry it too).
    fn load_error(&self, path: Option<&Path>, diagnostic: &Diagnostic) -> Change {
        let log = Log::new(Severity::Warning, &diagnostic_text(diagnostic, path));
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.lines.contains_key(&log.text) {
            return Change::default();
        }
        last.lines.insert(log.text.clone(), log.severity);
        Change {
            logs: vec![log],
            ..Change::default()
        }
    }

    /// A line about how the catalog is followed, which later sessions are told too.
    fn note(&self, about: String, log: Log) -> Change {
        let mut notes = self.notes.lock().unwrap_or_else(PoisonError::into_inner);
        if notes.get(&about) == Some(&log) {
            return Change::default();
        }
        notes.insert(about, log.clone());
        Change {
            logs: vec![log],
            ..Change::default()
        }
    }

    /// Says once why the catalog is polled rather than watched.
    fn not_watched(&self, error: &Error) {
        let text = format!(
            "the skills catalog is not watched, so it is looked at every {} seconds instead: \
             {error}",
            POLL_INTERVAL.as_secs()
        );
        let change = self.note("watch".to_owned(), Log::new(Severity::Warning, &text));
        self.tell(change);
    }

    /// Broadcasts `change` to every session, if there is anything to tell.
    fn tell(&self, change: Change) {
        if !change.is_empty() {
            // No receiver means no session is listening; nothing is lost.
            let _ = self.sender.send(change);
        }
    }

    /// Fingerprints the skills of the last listing, if that is still to do. Blocks.
    fn fingerprint(&self) {
        let listing = self.last_listing();
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.skills.is_none() {
            last.skills = Some(listing.as_deref().map(fingerprints).unwrap_or_default());
        }
    }

    /// Looks at the catalog again and broadcasts what changed, if anything. Blocks.
    fn poll(&self) {
        let (now, listing) = look(self.service.as_ref());
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let (change, held) = compare(&last, now);
        *last = held;
        drop(last);
        *self.listing.write().unwrap_or_else(PoisonError::into_inner) = listing;
        if change.lists || !change.updated.is_empty() {
            let rendered = instructions(self.service.as_ref());
            *self
                .instructions
                .write()
                .unwrap_or_else(PoisonError::into_inner) = rendered.into();
        }
        self.tell(change);
    }
}

/// Follows `watch` until it ends or `stopped` fires (the `Live` is gone); dropping the watch
/// on the way out stops it.
async fn follow(live: Weak<Live>, mut watch: Watch, mut stopped: oneshot::Receiver<()>) {
    loop {
        let event = tokio::select! {
            _ = &mut stopped => return,
            event = watch.next() => match event {
                Some(event) => event,
                None => return,
            },
        };
        let Some(live) = live.upgrade() else { return };
        if tokio::task::spawn_blocking(move || live.take_in(event))
            .await
            .is_err()
        {
            return;
        }
    }
}

/// Polls every [`POLL_INTERVAL`] until the `Live` is gone.
async fn poll(live: Weak<Live>) {
    let mut ticker = tokio::time::interval(POLL_INTERVAL);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is immediate: it fingerprints what `new` listed.
    ticker.tick().await;
    if let Some(first) = live.upgrade()
        && tokio::task::spawn_blocking(move || first.fingerprint())
            .await
            .is_err()
    {
        return;
    }
    loop {
        ticker.tick().await;
        let Some(live) = live.upgrade() else { return };
        if tokio::task::spawn_blocking(move || live.poll())
            .await
            .is_err()
        {
            return;
        }
    }
}

/// What the watch said changed: skill ids (folder names).
#[derive(Debug, Default)]
struct Reported {
    added: Vec<String>,
    changed: Vec<String>,
    removed: Vec<String>,
}

/// Whether the lists are stale, and the names of the skills whose files changed, from the
/// listings before and after and what the watch reported. Resources are keyed by name and the
/// watch reports ids, so the ids are looked up in both listings.
fn differences(
    before: Option<&Listing>,
    after: Option<&Listing>,
    reported: &Reported,
) -> (bool, BTreeSet<String>) {
    let records_before = before.map(records).unwrap_or_default();
    let records_after = after.map(records).unwrap_or_default();
    let mut lists =
        !(reported.added.is_empty() && reported.changed.is_empty() && reported.removed.is_empty());
    let mut updated = BTreeSet::new();
    for (name, now) in &records_after {
        match records_before.get(name) {
            None => lists = true,
            Some(then) if then != now => {
                lists = true;
                updated.insert(name.clone());
            }
            Some(_) => {}
        }
    }
    if records_before
        .keys()
        .any(|name| !records_after.contains_key(name))
    {
        lists = true;
    }
    for listing in [before, after].into_iter().flatten() {
        for skill in &listing.skills {
            if reported.changed.contains(&skill.id) && records_after.contains_key(&skill.name) {
                updated.insert(skill.name.clone());
            }
        }
    }
    (lists, updated)
}

/// The lines of `now` whose sentence is not held yet, and what is held from now on: `now`,
/// each sentence held before keeping the severity it was told with.
fn hold(held: &Lines, now: Lines) -> (Vec<Log>, Lines) {
    let mut told = Vec::new();
    let mut next = Lines::new();
    for (text, severity) in now {
        let severity = match held.get(&text) {
            Some(before) => *before,
            None => {
                told.push(Log {
                    severity,
                    text: text.clone(),
                });
                severity
            }
        };
        next.insert(text, severity);
    }
    (told, next)
}

/// Looks at the catalog once.
fn look(service: &dyn SkillsService) -> (Snapshot, Option<Arc<Listing>>) {
    from_result(service.list(&ListOptions::default()))
}

/// One look: a catalog that cannot be read is one error line, no skill and no listing.
fn from_result(listed: Result<Listing, Error>) -> (Snapshot, Option<Arc<Listing>>) {
    match listed {
        Ok(listing) => (from_listing(&listing), Some(Arc::new(listing))),
        Err(error) => {
            let failed = Snapshot {
                skills: Some(BTreeMap::new()),
                lines: unreadable(&error),
            };
            (failed, None)
        }
    }
}

/// The one line of a catalog that cannot be read.
fn unreadable(error: &Error) -> Lines {
    let log = Log::new(
        Severity::Error,
        &format!("the skills catalog could not be read: {error}"),
    );
    Lines::from([(log.text, log.severity)])
}

fn from_listing(listing: &Listing) -> Snapshot {
    Snapshot {
        skills: Some(fingerprints(listing)),
        lines: lines_of(listing),
    }
}

/// A diagnostic as one sentence, prefixed with the file it is about (`path` when it names
/// none).
fn diagnostic_text(diagnostic: &Diagnostic, path: Option<&Path>) -> String {
    diagnostic
        .path
        .as_deref()
        .or(path)
        .map(|path| format!("{}: {}", path.display(), diagnostic.message))
        .unwrap_or_else(|| diagnostic.message.clone())
}

/// The log lines a listing's diagnostics make.
fn lines_of(listing: &Listing) -> Lines {
    let mut lines = Lines::new();
    for diagnostic in &listing.diagnostics {
        let log = Log::new(diagnostic.severity, &diagnostic_text(diagnostic, None));
        lines.insert(log.text, log.severity);
    }
    for skill in &listing.skills {
        for diagnostic in &skill.diagnostics {
            let text = format!("skill '{}': {}", skill.name, diagnostic.message);
            let log = Log::new(diagnostic.severity, &text);
            lines.insert(log.text, log.severity);
        }
    }
    lines
}

/// A hash of each skill's listing record, by name.
fn records(listing: &Listing) -> BTreeMap<String, u64> {
    listing
        .skills
        .iter()
        .map(|skill| {
            let mut listed = DefaultHasher::new();
            serde_json::to_string(skill)
                .unwrap_or_default()
                .hash(&mut listed);
            (skill.name.clone(), listed.finish())
        })
        .collect()
}

fn fingerprints(listing: &Listing) -> BTreeMap<String, Fingerprint> {
    let listed = records(listing);
    let mut skills = BTreeMap::new();
    for skill in &listing.skills {
        let mut files = DefaultHasher::new();
        stamp(&skill.location, &mut files);
        if let Some(dir) = skill.location.parent() {
            stamp(dir, &mut files);
        }
        skills.insert(
            skill.name.clone(),
            Fingerprint {
                listed: listed.get(&skill.name).copied().unwrap_or_default(),
                files: files.finish(),
            },
        );
    }
    skills
}

/// Feeds what `path`'s metadata says of its content (size and modification time) to `hasher`;
/// a path that cannot be read feeds a marker, so that vanishing is a change too.
fn stamp(path: &Path, hasher: &mut DefaultHasher) {
    match std::fs::metadata(path) {
        Ok(metadata) => {
            metadata.len().hash(hasher);
            metadata.modified().ok().hash(hasher);
        }
        Err(_) => u64::MAX.hash(hasher),
    }
}

/// What changed from `before` to `after`, and the snapshot to hold from now on.
fn compare(before: &Snapshot, after: Snapshot) -> (Change, Snapshot) {
    let (logs, lines) = hold(&before.lines, after.lines);
    let mut change = Change {
        logs,
        ..Change::default()
    };
    let held = Snapshot {
        skills: after.skills,
        lines,
    };
    // Before the first fingerprints there is nothing to compare the skills with.
    let (Some(before_skills), Some(after_skills)) = (&before.skills, &held.skills) else {
        return (change, held);
    };
    for (name, now) in after_skills {
        match before_skills.get(name) {
            None => change.lists = true,
            Some(then) => {
                if then.listed != now.listed {
                    change.lists = true;
                }
                if then != now {
                    change.updated.insert(name.clone());
                }
            }
        }
    }
    if before_skills
        .keys()
        .any(|name| !after_skills.contains_key(name))
    {
        change.lists = true;
    }
    (change, held)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(skills: &[(&str, u64, u64)], logs: &[&str]) -> Snapshot {
        Snapshot {
            skills: Some(
                skills
                    .iter()
                    .map(|(name, listed, files)| {
                        (
                            (*name).to_owned(),
                            Fingerprint {
                                listed: *listed,
                                files: *files,
                            },
                        )
                    })
                    .collect(),
            ),
            lines: logs
                .iter()
                .map(|text| ((*text).to_owned(), Severity::Warning))
                .collect(),
        }
    }

    #[test]
    fn additions_removals_and_edits_are_told_apart() {
        let before = snapshot(&[("a", 1, 1), ("b", 2, 2)], &["old"]);
        let (same, _) = compare(&before, snapshot(&[("a", 1, 1), ("b", 2, 2)], &["old"]));
        assert!(same.is_empty());

        let (body_edited, _) = compare(&before, snapshot(&[("a", 1, 9), ("b", 2, 2)], &["old"]));
        assert!(!body_edited.lists, "the lists did not change");
        assert_eq!(body_edited.updated, BTreeSet::from(["a".to_owned()]));

        let (described, _) = compare(&before, snapshot(&[("a", 7, 1), ("b", 2, 2)], &["old"]));
        assert!(described.lists, "the listing record changed");
        assert_eq!(described.updated, BTreeSet::from(["a".to_owned()]));

        let (added, _) = compare(
            &before,
            snapshot(&[("a", 1, 1), ("b", 2, 2), ("c", 3, 3)], &[]),
        );
        assert!(added.lists && added.updated.is_empty() && added.logs.is_empty());

        let (removed, _) = compare(&before, snapshot(&[("a", 1, 1)], &["old", "new"]));
        assert!(removed.lists);
        assert_eq!(removed.logs.len(), 1, "only the new line is logged");
        assert_eq!(removed.logs[0].text, "new");

        let unfingerprinted = Snapshot {
            skills: None,
            lines: Lines::new(),
        };
        let (first, _) = compare(&unfingerprinted, before);
        assert!(
            !first.lists && first.updated.is_empty(),
            "nothing to compare with yet"
        );
        assert_eq!(first.logs.len(), 1);
    }

    #[test]
    fn a_sentence_is_told_once_whatever_its_severity() {
        let held = Lines::from([("x.md: bad".to_owned(), Severity::Warning)]);
        let now = Lines::from([
            ("x.md: bad".to_owned(), Severity::Error),
            ("y.md: worse".to_owned(), Severity::Error),
        ]);
        let (told, next) = hold(&held, now);
        assert_eq!(
            told,
            vec![Log {
                severity: Severity::Error,
                text: "y.md: worse".to_owned()
            }]
        );
        assert_eq!(next["x.md: bad"], Severity::Warning, "as it was told");
        let (again, _) = hold(&next, next.clone());
        assert!(again.is_empty());
    }

    #[test]
    fn log_lines_are_sanitised() {
        let log = Log::new(
            Severity::Warning,
            "/s/\u{1b}[31mevil\u{202e}/SKILL.md: bad\nline",
        );
        assert_eq!(log.text, "/s/evil/SKILL.md: bad line");
    }

    fn listing(skills: &[(&str, &str, &str)]) -> Listing {
        let skills = skills
            .iter()
            .map(|(id, name, description)| {
                serde_json::from_value(serde_json::json!({
                    "id": id,
                    "name": name,
                    "description": description,
                    "scope": "user",
                    "location": format!("/s/{id}/SKILL.md"),
                    "permission": "allow",
                }))
                .unwrap()
            })
            .collect();
        Listing {
            skills,
            ..Listing::default()
        }
    }

    #[test]
    fn the_watch_reports_ids_and_the_sessions_are_told_names() {
        let before = listing(&[
            ("pdf-tools", "pdf", "Reads PDFs."),
            ("w", "weather", "Rain."),
        ]);
        let edited_file = Reported {
            changed: vec!["pdf-tools".to_owned()],
            ..Reported::default()
        };
        let (lists, updated) = differences(Some(&before), Some(&before), &edited_file);
        assert!(lists, "every report makes the lists stale");
        assert_eq!(updated, BTreeSet::from(["pdf".to_owned()]));

        let described = listing(&[
            ("pdf-tools", "pdf", "Reads PDFs."),
            ("w", "weather", "Sun."),
        ]);
        let (lists, updated) = differences(Some(&before), Some(&described), &Reported::default());
        assert!(lists, "a record changed while the watch was starting");
        assert_eq!(updated, BTreeSet::from(["weather".to_owned()]));

        let (lists, updated) = differences(Some(&before), Some(&before), &Reported::default());
        assert!(!lists && updated.is_empty(), "nothing changed");

        let gone = Reported {
            removed: vec!["w".to_owned()],
            changed: vec!["w".to_owned()],
            ..Reported::default()
        };
        let fewer = listing(&[("pdf-tools", "pdf", "Reads PDFs.")]);
        let (lists, updated) = differences(Some(&before), Some(&fewer), &gone);
        assert!(lists);
        assert!(
            updated.is_empty(),
            "a skill that left is not updated: {updated:?}"
        );
    }

    /// A service whose catalog is what the test puts in it, and whose watch will not start
    /// (like a build without the subsystem): only what `Live` asks of it answers.
    struct Unwatchable {
        config: skills_types::SkillsConfig,
        listing: Mutex<Listing>,
    }

    fn disabled<'a, T: Send + 'a>() -> skills_types::service::BoxFuture<'a, Result<T, Error>> {
        Box::pin(async { Err(Error::Disabled) })
    }

    impl SkillsService for Unwatchable {
        fn config(&self) -> &skills_types::SkillsConfig {
            &self.config
        }
        fn list(&self, _options: &ListOptions) -> Result<Listing, Error> {
            Ok(self.listing.lock().unwrap().clone())
        }
        fn render_catalog(
            &self,
            _options: &skills_types::render::RenderOptions,
        ) -> Result<skills_types::render::Rendered, Error> {
            Ok(skills_types::render::Rendered::default())
        }
        fn get(&self, _id: &str) -> Result<skills_types::Skill, Error> {
            Err(Error::Disabled)
        }
        fn read(&self, _ids: &[&str]) -> Result<Vec<skills_types::catalog::SkillBody>, Error> {
            Err(Error::Disabled)
        }
        fn read_resource(
            &self,
            _id: &str,
            _path: &str,
        ) -> Result<skills_types::skill::ResourceContent, Error> {
            Err(Error::Disabled)
        }
        fn read_resource_bytes(
            &self,
            _id: &str,
            _path: &str,
        ) -> Result<skills_types::skill::ResourceBytes, Error> {
            Err(Error::Disabled)
        }
        fn inventories(&self, _folders: &[&Path]) -> Vec<Vec<skills_types::skill::Resource>> {
            Vec::new()
        }
        fn search(
            &self,
            _query: &str,
            _limit: usize,
        ) -> Result<Vec<skills_types::search::SearchHit>, Error> {
            Err(Error::Disabled)
        }
        fn explain(&self, _name: &str) -> Result<skills_types::catalog::Explanation, Error> {
            Err(Error::Disabled)
        }
        fn validate(
            &self,
            _path: &Path,
            _options: &skills_types::validate::Options,
        ) -> Result<skills_types::validate::Report, Error> {
            Err(Error::Disabled)
        }
        fn create(
            &self,
            _request: &skills_types::manage::CreateSkill,
        ) -> Result<skills_types::manage::Written, Error> {
            Err(Error::Disabled)
        }
        fn update(
            &self,
            _id: &str,
            _changes: &skills_types::manage::UpdateSkill,
        ) -> Result<skills_types::manage::Written, Error> {
            Err(Error::Disabled)
        }
        fn uninstall(
            &self,
            _name: &str,
            _scope: Option<skills_types::SkillScope>,
        ) -> Result<skills_types::manage::Uninstalled, Error> {
            Err(Error::Disabled)
        }
        fn install<'a>(
            &'a self,
            _request: &'a skills_types::install::InstallRequest,
        ) -> skills_types::service::BoxFuture<
            'a,
            Result<Vec<skills_types::install::InstallOutcome>, Error>,
        > {
            disabled()
        }
        fn registry_browse<'a>(
            &'a self,
            _category: Option<&'a str>,
            _force_refresh: bool,
        ) -> skills_types::service::BoxFuture<'a, Result<skills_types::registry::Listing, Error>>
        {
            disabled()
        }
        fn registry_search<'a>(
            &'a self,
            _query: &'a skills_types::registry::Query,
        ) -> skills_types::service::BoxFuture<'a, Result<skills_types::registry::Listing, Error>>
        {
            disabled()
        }
        fn registry_categories(
            &self,
        ) -> skills_types::service::BoxFuture<'_, Result<skills_types::registry::Counts, Error>>
        {
            disabled()
        }
        fn registry_sources(
            &self,
        ) -> skills_types::service::BoxFuture<'_, Result<skills_types::registry::Counts, Error>>
        {
            disabled()
        }
        fn registry_install<'a>(
            &'a self,
            _request: &'a skills_types::registry::InstallRequest,
        ) -> skills_types::service::BoxFuture<
            'a,
            Result<skills_types::install::InstallOutcome, Error>,
        > {
            disabled()
        }
        fn registry_uninstall(
            &self,
            _name: &str,
            _scope: Option<skills_types::SkillScope>,
        ) -> Result<skills_types::manage::Uninstalled, Error> {
            Err(Error::Disabled)
        }
    }

    #[test]
    fn a_catalog_that_cannot_be_watched_is_said_so_once_and_polled() {
        let service = Arc::new(Unwatchable {
            config: skills_types::SkillsConfig::new("/w", "/h"),
            listing: Mutex::new(listing(&[("w", "weather", "Rain.")])),
        });
        let live = Arc::new(Live::new(Arc::clone(&service) as Arc<dyn SkillsService>));
        let mut changes = live.subscribe();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let next = async |changes: &mut broadcast::Receiver<Change>| {
                tokio::time::timeout(Duration::from_secs(20), changes.recv())
                    .await
                    .expect("a change within 20 seconds")
                    .unwrap()
            };
            Live::start(&live);
            Live::start(&live);
            let why = next(&mut changes).await;
            assert_eq!(why.logs.len(), 1, "{why:?}");
            assert_eq!(why.logs[0].severity, Severity::Warning);
            assert!(
                why.logs[0].text.contains("not watched")
                    && why.logs[0].text.contains("disabled in this build"),
                "{why:?}"
            );
            assert_eq!(live.logs(), why.logs, "a later session is told too");

            *service.listing.lock().unwrap() =
                listing(&[("w", "weather", "Rain."), ("p", "pdf", "Reads PDFs.")]);
            let added = next(&mut changes).await;
            assert!(added.lists && added.logs.is_empty(), "{added:?}");
            let listed = live.listing().unwrap();
            assert_eq!(
                listed.skills.len(),
                2,
                "the lists show it before it is told"
            );
        });
    }
}
