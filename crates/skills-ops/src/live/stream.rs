//! The glue of [`Catalog::watch`](super::Catalog::watch): what the watch thread does with a
//! burst (a discovery the live catalog's publisher compares with the last one), and how the
//! publisher's `catalog_changed` and `load_error` become the stream's [`WatchEvent`]s. The
//! diff is computed once, by the publisher, for the handle's bus and every watch alike. The
//! skills a change added or touched are audited again on the way ([`WatchEvent::AuditChanged`]
//! when a verdict changed).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use skills_types::event::{DomainEvent, EventSink, SkillsEvent};
use skills_types::watch::{WatchEvent, WatchMode, WatchSender};
use skills_types::{Diagnostic, Error, SkillsConfig};

use super::{Catalog, Rescan};

/// The watch thread's listener: rediscovers through the live catalog after each burst.
pub(super) struct Relay {
    pub(super) catalog: Catalog,
    /// The configuration the watch started with (the handle's, checked).
    pub(super) config: SkillsConfig,
    pub(super) events: WatchSender,
}

impl crate::watch::Listener for Relay {
    fn changed(&mut self, touched: &BTreeSet<PathBuf>) {
        self.catalog.rediscover(&self.config, touched);
    }

    fn watching(&mut self, path: &Path, mode: WatchMode, diagnostic: Diagnostic) {
        self.events.send(WatchEvent::Watching {
            path: path.to_path_buf(),
            mode,
            diagnostic,
        });
    }
}

/// A sink of the handle's publisher feeding one watch's stream.
pub(super) struct StreamSink {
    events: WatchSender,
    /// The audit worker's queue: the ids each change added or touched.
    audits: Option<mpsc::Sender<Vec<String>>>,
}

impl StreamSink {
    /// A sink feeding `events`, with (given `rescan`) an audit worker scanning the skills
    /// each change adds or touches under `config`. The scans run on that worker, never on the
    /// watch's thread, so a flood of new skills is reported as fast as without them; the
    /// worker ends when the sink is dropped (the watch ended).
    pub(super) fn new(events: WatchSender, config: SkillsConfig, rescan: Option<Rescan>) -> Self {
        let audits = rescan.and_then(|rescan| {
            let (sender, receiver) = mpsc::channel::<Vec<String>>();
            let worker_events = events.clone();
            std::thread::Builder::new()
                .name("skills-watch-audit".to_owned())
                .spawn(move || audit_worker(rescan, &config, &receiver, &worker_events))
                .ok()
                .map(|_| sender)
        });
        Self { events, audits }
    }
}

impl EventSink for StreamSink {
    fn publish(&self, event: DomainEvent) {
        let Some(change) = watch_event(&event) else {
            return;
        };
        let touched: Vec<String> = match &change {
            WatchEvent::CatalogChanged { added, changed, .. } => {
                added.iter().chain(changed).cloned().collect()
            }
            _ => Vec::new(),
        };
        self.events.send(change);
        if let Some(audits) = self.audits.as_ref().filter(|_| !touched.is_empty()) {
            // The worker is gone only when the watch is.
            drop(audits.send(touched));
        }
    }
}

/// Scans again the skills the changes added or touched (those whose recorded verdict a
/// change outdated; the ids queued meanwhile together), records their verdicts, and reports
/// each verdict that changed. A scan that cannot run (a configuration that cannot be
/// honoured) is said in the trace: the watch goes on.
fn audit_worker(
    rescan: Rescan,
    config: &SkillsConfig,
    queue: &mpsc::Receiver<Vec<String>>,
    events: &WatchSender,
) {
    while let Ok(mut ids) = queue.recv() {
        while let Ok(more) = queue.try_recv() {
            ids.extend(more);
        }
        ids.sort_unstable();
        ids.dedup();
        match rescan(config, &ids) {
            Ok(changes) => {
                for (skill, before, after) in changes {
                    events.send(WatchEvent::AuditChanged {
                        skill,
                        before,
                        after,
                    });
                }
            }
            Err(Error::Disabled) => {}
            Err(error) => tracing::warn!("the changed skills were not audited again: {error}"),
        }
    }
}

/// The stream's reading of a published event; other events are not the stream's.
fn watch_event(event: &DomainEvent) -> Option<WatchEvent> {
    let payload = &event.payload;
    let ids = |key: &str| -> Vec<String> {
        payload[key]
            .as_array()
            .map(|ids| {
                ids.iter()
                    .filter_map(|id| id.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    if SkillsEvent::CatalogChanged.is(event) {
        return Some(WatchEvent::CatalogChanged {
            added: ids("added"),
            changed: ids("changed"),
            removed: ids("removed"),
        });
    }
    if SkillsEvent::LoadError.is(event) {
        return Some(WatchEvent::LoadError {
            path: payload["path"].as_str().map(PathBuf::from),
            kept: payload["kept"].as_str().map(str::to_owned),
            diagnostic: serde_json::from_value(payload["diagnostic"].clone()).ok()?,
        });
    }
    None
}

/// What keeps a watch running: the watcher, and the stream's place among the publisher's
/// sinks (given back when the watch is dropped).
pub(super) struct Guard {
    pub(super) _watcher: crate::watch::Watcher,
    pub(super) catalog: Catalog,
    pub(super) sink: u64,
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.catalog.publisher.remove_sink(self.sink);
        self.catalog.watch_ended();
    }
}
