//! The live catalog (08 §The live catalog): what a watch of the roots reports, and the stream
//! an agent core reads it from (`Skills::watch`, `skills watch`, `skills serve`, `skills mcp`).

use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::Diagnostic;

/// How long a burst of file events must be quiet before the catalog is looked at again.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(300);

/// How often a root that cannot be watched by the kernel is looked at instead.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(2);

/// How a watch behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WatchOptions {
    /// The quiet time that ends a burst ([`DEFAULT_DEBOUNCE`]).
    pub debounce: Duration,
    /// How often a polled root is scanned ([`DEFAULT_POLL_INTERVAL`]).
    pub poll_interval: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        Self {
            debounce: DEFAULT_DEBOUNCE,
            poll_interval: DEFAULT_POLL_INTERVAL,
        }
    }
}

/// How a path is being watched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WatchMode {
    /// The kernel reports its changes (inotify, FSEvents, ReadDirectoryChangesW).
    Events,
    /// It is looked at every poll interval: the kernel would not watch it.
    Polling,
}

/// One thing a watch reports, in the order it happened. On the wire (`skills watch --json`)
/// each is one JSON object whose `kind` names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum WatchEvent {
    /// The watch is running: the catalog it starts from.
    Ready {
        /// How many skills the catalog holds.
        skills: usize,
        /// The paths watched (the roots, the trust record and the configuration files, or the
        /// nearest folder above one that does not exist yet).
        watching: Vec<PathBuf>,
    },
    /// The catalog differs from the last one: the ids of the skills that appeared, whose
    /// record or files changed, and that left.
    CatalogChanged {
        /// Skills that appeared.
        added: Vec<String>,
        /// Skills present before and after whose record or any of whose files changed.
        changed: Vec<String>,
        /// Skills that left.
        removed: Vec<String>,
    },
    /// A definition file failed to load. When it held a valid skill before, that version is
    /// kept (`kept` names it) until the file is valid again or removed.
    LoadError {
        /// The file.
        path: Option<PathBuf>,
        /// The id of the skill whose last valid version stays in the catalog, if any.
        kept: Option<String>,
        /// What is wrong with it.
        diagnostic: Diagnostic,
    },
    /// A skill's files changed (or it appeared), it was scanned again, and its audit verdict
    /// differs from the one recorded before: the verdict `skills list`, `show` and the MCP
    /// catalog now mark it by.
    AuditChanged {
        /// The skill's name.
        skill: String,
        /// The verdict recorded before (stale: the files changed since), none when it had none.
        before: Option<crate::audit::Mark>,
        /// The verdict now.
        after: crate::audit::Mark,
    },
    /// A path is now watched another way (the kernel's watch limit was reached, so it is
    /// polled), said once when it happens.
    Watching {
        /// The path.
        path: PathBuf,
        /// How it is watched now.
        mode: WatchMode,
        /// Why (a `watch-polling` warning naming the path and the kernel's refusal).
        diagnostic: Diagnostic,
    },
}

/// What keeps a watch running; dropping it stops the watch.
pub trait WatchGuard: Send {}

impl<T: Send> WatchGuard for T {}

/// The sending half of a watch's stream: what the watch reports through, from any thread.
#[derive(Clone, Debug)]
pub struct WatchSender {
    events: tokio::sync::mpsc::UnboundedSender<WatchEvent>,
}

impl WatchSender {
    /// Sends `event`; `false` when the [`Watch`] is gone (nobody reads any more).
    pub fn send(&self, event: WatchEvent) -> bool {
        self.events.send(event).is_ok()
    }
}

/// The receiving half of a watch's stream, before it becomes a [`Watch`].
#[derive(Debug)]
pub struct WatchReceiver {
    events: tokio::sync::mpsc::UnboundedReceiver<WatchEvent>,
}

/// A new stream of watch events: unbounded, because the watch's thread must never wait for
/// its reader (events are few: one per burst).
pub fn channel() -> (WatchSender, WatchReceiver) {
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
    (
        WatchSender { events: sender },
        WatchReceiver { events: receiver },
    )
}

/// A running watch: a stream of [`WatchEvent`]s. Dropping it stops the watch.
pub struct Watch {
    events: tokio::sync::mpsc::UnboundedReceiver<WatchEvent>,
    _guard: Box<dyn WatchGuard>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Watch").finish_non_exhaustive()
    }
}

impl Watch {
    /// A watch reading `events`, running as long as `guard` lives.
    pub fn new(events: WatchReceiver, guard: impl WatchGuard + 'static) -> Self {
        Self {
            events: events.events,
            _guard: Box::new(guard),
        }
    }

    /// The next event; `None` once the watch has stopped.
    pub async fn next(&mut self) -> Option<WatchEvent> {
        self.events.recv().await
    }

    /// The next event, blocking the thread (not from inside an async runtime).
    pub fn blocking_next(&mut self) -> Option<WatchEvent> {
        self.events.blocking_recv()
    }

    /// The next event if one is waiting.
    pub fn try_next(&mut self) -> Option<WatchEvent> {
        self.events.try_recv().ok()
    }
}

impl futures_core::Stream for Watch {
    type Item = WatchEvent;

    fn poll_next(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<WatchEvent>> {
        self.events.poll_recv(context)
    }
}

/// The last valid version of each skill, by definition file, for a process that keeps them
/// (08 §The live catalog, **last good version**): off until a watch turns it on; then a
/// definition file that stops loading keeps its last valid record in every discovery of this
/// configuration (and of its clones) until it loads again or is removed. State of the running
/// process, never configuration: it is not serialised, and two configurations compare equal
/// whatever they remember.
#[derive(Clone, Default)]
pub struct LastGood {
    records: std::sync::Arc<std::sync::Mutex<Option<LastGoodRecords>>>,
}

/// The remembered records, by the path of their definition file.
pub type LastGoodRecords = std::collections::HashMap<PathBuf, crate::Skill>;

impl LastGood {
    /// Starts remembering (what was already remembered stays).
    pub fn enable(&self) {
        self.lock().get_or_insert_with(LastGoodRecords::new);
    }

    /// Whether records are remembered.
    pub fn is_enabled(&self) -> bool {
        self.lock().is_some()
    }

    /// Runs `work` on the records when remembering is on.
    pub fn with<T>(&self, work: impl FnOnce(&mut LastGoodRecords) -> T) -> Option<T> {
        self.lock().as_mut().map(work)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<LastGoodRecords>> {
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl std::fmt::Debug for LastGood {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("LastGood")
            .field("enabled", &self.is_enabled())
            .finish()
    }
}

impl PartialEq for LastGood {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Eq for LastGood {}
