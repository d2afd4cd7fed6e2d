//! The glue of [`Skills::watch`](crate::Skills::watch): what the watch thread does with a
//! burst (a discovery the handle's publisher compares with the last one), and how the
//! publisher's `catalog_changed` and `load_error` become the stream's [`WatchEvent`]s. The
//! diff is computed once, by the publisher, for the handle's bus and every watch alike.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use skills_types::Diagnostic;
use skills_types::event::{DomainEvent, EventSink, SkillsEvent};
use skills_types::watch::{WatchEvent, WatchMode, WatchSender};

use crate::Skills;

/// The watch thread's listener: rediscovers through the handle after each burst.
pub(crate) struct Relay {
    pub(crate) handle: Skills,
    pub(crate) events: WatchSender,
}

impl crate::ops::watch::Listener for Relay {
    fn changed(&mut self, touched: &BTreeSet<PathBuf>) {
        self.handle.rediscover(touched);
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
pub(crate) struct StreamSink(pub(crate) WatchSender);

impl EventSink for StreamSink {
    fn publish(&self, event: DomainEvent) {
        if let Some(change) = watch_event(&event) {
            self.0.send(change);
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
pub(crate) struct Guard {
    pub(crate) _watcher: crate::ops::watch::Watcher,
    pub(crate) handle: Skills,
    pub(crate) sink: u64,
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.handle.publisher().remove_sink(self.sink);
        self.handle.watch_ended();
    }
}
