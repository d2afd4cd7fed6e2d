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

use skills_types::catalog::{ListOptions, Listing};
use skills_types::diagnostic::Severity;
use skills_types::service::SkillsService;
use tokio::sync::broadcast;

use crate::server::instructions;

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
    skills: BTreeMap<String, Fingerprint>,
    logs: BTreeSet<Log>,
}

/// The catalog as the server last saw it, shared by every session.
pub(crate) struct Live {
    service: Arc<dyn SkillsService>,
    sender: broadcast::Sender<Change>,
    instructions: RwLock<Arc<str>>,
    last: Mutex<Snapshot>,
    polling: Once,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Live").finish_non_exhaustive()
    }
}

impl Live {
    /// The catalog as it is now. Lists and renders, so it blocks.
    pub(crate) fn new(service: Arc<dyn SkillsService>) -> Self {
        let (sender, _) = broadcast::channel(BACKLOG);
        let instructions = instructions(service.as_ref()).into();
        let last = snapshot(service.as_ref());
        Self {
            service,
            sender,
            instructions: RwLock::new(instructions),
            last: Mutex::new(last),
            polling: Once::new(),
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

    /// Looks at the catalog again and broadcasts what changed, if anything. Blocks.
    pub(crate) fn poll(&self) {
        let now = snapshot(self.service.as_ref());
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let change = compare(&last, &now);
        *last = now;
        drop(last);
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
            // The first tick is immediate, and `new` has just looked.
            ticker.tick().await;
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

/// Looks at the catalog once; a catalog that cannot be read is one error line and no skill.
fn snapshot(service: &dyn SkillsService) -> Snapshot {
    match service.list(&ListOptions::default()) {
        Ok(listing) => from_listing(&listing),
        Err(error) => Snapshot {
            skills: BTreeMap::new(),
            logs: BTreeSet::from([Log {
                severity: Severity::Error,
                text: format!("the skills catalog could not be read: {error}"),
            }]),
        },
    }
}

fn from_listing(listing: &Listing) -> Snapshot {
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
    let mut skills = BTreeMap::new();
    for skill in &listing.skills {
        for diagnostic in &skill.diagnostics {
            logs.insert(Log {
                severity: diagnostic.severity,
                text: format!("skill '{}': {}", skill.name, diagnostic.message),
            });
        }
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
    Snapshot { skills, logs }
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
    let mut change = Change::default();
    for (name, now) in &after.skills {
        match before.skills.get(name) {
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
    if before
        .skills
        .keys()
        .any(|name| !after.skills.contains_key(name))
    {
        change.lists = true;
    }
    change.logs = after.logs.difference(&before.logs).cloned().collect();
    change
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(skills: &[(&str, u64, u64)], logs: &[&str]) -> Snapshot {
        Snapshot {
            skills: skills
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
    }
}
