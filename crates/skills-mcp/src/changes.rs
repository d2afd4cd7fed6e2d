//! What changed in the catalog, for the change notifications (08 §`skills mcp`).
//!
//! Until the watcher of step 6 exists, one [`Live`] per server re-lists the catalog every
//! [`POLL_INTERVAL`] (cheap with the catalog cache) and compares a fingerprint of each skill
//! with the last one: its listing record, its definition file's size and modification time,
//! and its folder's modification time (which moves when a file is added to or removed from
//! the folder itself). Any difference is one [`Change`], broadcast to every session, which
//! forwards it as list-changed and resource-updated notifications (`server.rs`). The same
//! pass keeps the server's instructions current for sessions that start later, and turns the
//! listing's diagnostics into log messages.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, Mutex, Once, PoisonError, RwLock, Weak};
use std::time::Duration;

use skills_types::Error;
use skills_types::catalog::{ListOptions, Listing};
use skills_types::diagnostic::Severity;
use skills_types::service::SkillsService;
use tokio::sync::broadcast;

use crate::server::{instructions, instructions_from, render_options};

/// How often the catalog is compared with the last look.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// Changes a slow session may fall behind by before it is told "everything changed".
const BACKLOG: usize = 64;

/// One line for the host's log: a diagnostic of the catalog, or a failure to read it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Log {
    /// How serious it is.
    pub(crate) severity: Severity,
    /// The sentence, naming the skill or file it is about.
    pub(crate) text: String,
}

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
}

/// A skill's fingerprint: its listing record, and its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fingerprint {
    listed: u64,
    files: u64,
}

/// One look at the catalog.
#[derive(Debug, Default)]
struct Snapshot {
    /// None until fingerprinted: that stats two paths per skill, so a server takes it off
    /// the path of its first answers, on the poller's first turn.
    skills: Option<BTreeMap<String, Fingerprint>>,
    logs: BTreeSet<Log>,
}

/// The catalog as the server last saw it, shared by every session.
pub(crate) struct Live {
    service: Arc<dyn SkillsService>,
    sender: broadcast::Sender<Change>,
    instructions: RwLock<Arc<str>>,
    /// The listing of the last look, which the lists page through (none: it failed).
    listing: RwLock<Option<Arc<Listing>>>,
    last: Mutex<Snapshot>,
    polling: Once,
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
        let options = render_options(service.as_ref());
        let (instructions, (last, listing)) =
            match service.overview(&ListOptions::default(), &options) {
                Ok((listing, rendered)) => {
                    let cheap = Snapshot {
                        skills: None,
                        logs: logs_of(&listing),
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
            polling: Once::new(),
        }
    }

    /// The listing of the last look (at most [`POLL_INTERVAL`] old, and current before any
    /// change is told), or a fresh one when that look failed.
    pub(crate) fn listing(&self) -> Result<Arc<Listing>, Error> {
        let last = self
            .listing
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match last {
            Some(listing) => Ok(listing),
            None => self.service.list(&ListOptions::default()).map(Arc::new),
        }
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
        let last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        last.logs.iter().cloned().collect()
    }

    /// The changes from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.sender.subscribe()
    }

    /// Fingerprints the skills of the last listing, if that is still to do. Blocks.
    fn fingerprint(&self) {
        let listing = self
            .listing
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.skills.is_none() {
            last.skills = Some(listing.as_deref().map(fingerprints).unwrap_or_default());
        }
    }

    /// Looks at the catalog again and broadcasts what changed, if anything. Blocks.
    pub(crate) fn poll(&self) {
        let (now, listing) = look(self.service.as_ref());
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let change = compare(&last, &now);
        *last = now;
        drop(last);
        *self.listing.write().unwrap_or_else(PoisonError::into_inner) = listing;
        if change.lists || !change.updated.is_empty() {
            let rendered = instructions(self.service.as_ref());
            *self
                .instructions
                .write()
                .unwrap_or_else(PoisonError::into_inner) = rendered.into();
        }
        if change.lists || !change.updated.is_empty() || !change.logs.is_empty() {
            // No receiver means no session is listening; nothing is lost.
            let _ = self.sender.send(change);
        }
    }

    /// Polls every [`POLL_INTERVAL`] on the current async runtime from the first call on,
    /// until the last server holding this `Live` is gone.
    pub(crate) fn start_polling(live: &Arc<Self>) {
        live.polling
            .call_once(|| Self::spawn_poller(Arc::downgrade(live)));
    }

    fn spawn_poller(live: Weak<Self>) {
        tokio::spawn(async move {
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
        });
    }
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
                logs: BTreeSet::from([Log {
                    severity: Severity::Error,
                    text: format!("the skills catalog could not be read: {error}"),
                }]),
            };
            (failed, None)
        }
    }
}

fn from_listing(listing: &Listing) -> Snapshot {
    Snapshot {
        skills: Some(fingerprints(listing)),
        logs: logs_of(listing),
    }
}

/// The log lines a listing's diagnostics make.
fn logs_of(listing: &Listing) -> BTreeSet<Log> {
    let mut logs = BTreeSet::new();
    for diagnostic in &listing.diagnostics {
        let place = diagnostic
            .path
            .as_deref()
            .map(|path| format!("{}: ", path.display()))
            .unwrap_or_default();
        logs.insert(Log {
            severity: diagnostic.severity,
            text: format!("{place}{}", diagnostic.message),
        });
    }
    for skill in &listing.skills {
        for diagnostic in &skill.diagnostics {
            logs.insert(Log {
                severity: diagnostic.severity,
                text: format!("skill '{}': {}", skill.name, diagnostic.message),
            });
        }
    }
    logs
}

fn fingerprints(listing: &Listing) -> BTreeMap<String, Fingerprint> {
    let mut skills = BTreeMap::new();
    for skill in &listing.skills {
        let mut listed = DefaultHasher::new();
        serde_json::to_string(skill)
            .unwrap_or_default()
            .hash(&mut listed);
        let mut files = DefaultHasher::new();
        stamp(&skill.location, &mut files);
        if let Some(dir) = skill.location.parent() {
            stamp(dir, &mut files);
        }
        skills.insert(
            skill.name.clone(),
            Fingerprint {
                listed: listed.finish(),
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

fn compare(before: &Snapshot, after: &Snapshot) -> Change {
    let mut change = Change {
        logs: after.logs.difference(&before.logs).cloned().collect(),
        ..Change::default()
    };
    // Before the first fingerprints there is nothing to compare the skills with.
    let (Some(before_skills), Some(after_skills)) = (&before.skills, &after.skills) else {
        return change;
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
    change
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
            logs: logs
                .iter()
                .map(|text| Log {
                    severity: Severity::Warning,
                    text: (*text).to_owned(),
                })
                .collect(),
        }
    }

    #[test]
    fn additions_removals_and_edits_are_told_apart() {
        let before = snapshot(&[("a", 1, 1), ("b", 2, 2)], &["old"]);
        let same = compare(&before, &snapshot(&[("a", 1, 1), ("b", 2, 2)], &["old"]));
        assert!(!same.lists && same.updated.is_empty() && same.logs.is_empty());

        let body_edited = compare(&before, &snapshot(&[("a", 1, 9), ("b", 2, 2)], &["old"]));
        assert!(!body_edited.lists, "the lists did not change");
        assert_eq!(body_edited.updated, BTreeSet::from(["a".to_owned()]));

        let described = compare(&before, &snapshot(&[("a", 7, 1), ("b", 2, 2)], &["old"]));
        assert!(described.lists, "the listing record changed");
        assert_eq!(described.updated, BTreeSet::from(["a".to_owned()]));

        let added = compare(
            &before,
            &snapshot(&[("a", 1, 1), ("b", 2, 2), ("c", 3, 3)], &[]),
        );
        assert!(added.lists && added.updated.is_empty() && added.logs.is_empty());

        let removed = compare(&before, &snapshot(&[("a", 1, 1)], &["old", "new"]));
        assert!(removed.lists);
        assert_eq!(removed.logs.len(), 1, "only the new line is logged");
        assert_eq!(removed.logs[0].text, "new");

        let unfingerprinted = Snapshot {
            skills: None,
            logs: BTreeSet::new(),
        };
        let first = compare(&unfingerprinted, &before);
        assert!(
            !first.lists && first.updated.is_empty(),
            "nothing to compare with yet"
        );
        assert_eq!(first.logs.len(), 1);
    }
}
