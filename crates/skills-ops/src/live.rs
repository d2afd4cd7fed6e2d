//! The live catalog (08 §The live catalog): the one state machine behind a handle's
//! discoveries, events, searches and watches, as one type, [`Catalog`], that the facade's
//! handle holds and delegates to (the stub's twin does nothing).
//!
//! It keeps, shared by its clones: the publisher (which compares each observed discovery with
//! the last and tells the sinks what changed), the event-order lock, the last walk a watch's
//! next burst starts from, each skill folder's stamps, the numbered live catalog with its
//! open search index, and how many watches run. These were the facade's fields; kept here,
//! the facade holds no state machine and the stub copies no internal type (issue 32).
//!
//! The order rule: a mutation takes [`Catalog::begin`]'s lock, mutates, and hands the lock
//! to [`Catalog::changed`], which publishes the mutation's events and then the catalog's
//! difference; every other observed discovery takes the same lock, so no discovery on
//! another thread can report a mutation's change before the mutation's own event.

mod publisher;
mod stream;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use skills_types::audit::Mark;
use skills_types::event::{SharedSink, SkillsEvent};
use skills_types::search::SearchHit;
use skills_types::watch::{Watch, WatchEvent, WatchOptions};
use skills_types::{Error, SkillsConfig};

use crate::discover::Walked;
use crate::search::OpenIndex;
use crate::watch::FolderStamps;
use publisher::Publisher;

/// What a watch calls to audit again the skills a change added or touched: the verdicts that
/// changed, as `(name, before, after)` (the audit crate's `rescan`, which sits above this one).
pub type Rescan = fn(&SkillsConfig, &[String]) -> Result<Vec<(String, Option<Mark>, Mark)>, Error>;

/// The live catalog of one handle and its clones.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    publisher: Publisher,
    /// What each skill folder's files looked like, once a watch runs.
    stamps: FolderStamps,
    /// The last walk of an observed discovery, which a watch's next burst starts from.
    walked: Arc<Mutex<Walked>>,
    /// The catalog as the last observed discovery left it, numbered, once a watch runs: a
    /// search then asks the open index instead of discovering.
    live: Arc<Mutex<Option<Live>>>,
    /// The search index kept open for the live catalog.
    index: OpenIndex,
    /// How many watches run: the live catalog is kept only while one does, since nothing
    /// else tells it about files changed behind its back.
    watches: Arc<AtomicUsize>,
    /// Held across "mutate, publish the mutation's event, discover, observe", and around
    /// every other observed discovery.
    order: Arc<Mutex<()>>,
}

/// The live catalog of a watching handle, under its generation number.
type Live = (u64, Arc<skills_types::Catalog>);

/// Proof that the caller holds the event-order lock (empty when nothing listens). Not `Send`:
/// an `async` caller drops it before awaiting.
#[derive(Debug)]
pub struct Order<'a> {
    _guard: Option<MutexGuard<'a, ()>>,
}

impl Catalog {
    /// A live catalog publishing nowhere.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same live catalog publishing into `sink` (the handle's bus): the events of each
    /// mutation, then `catalog_changed` (and `load_error`) when a discovery differs from the
    /// last one this catalog saw. The comparison starts afresh.
    #[must_use]
    pub fn with_sink(mut self, sink: SharedSink) -> Self {
        self.publisher = Publisher::new(sink);
        self
    }

    /// The event-order lock, when anything listens to the events.
    pub fn order(&self) -> Order<'_> {
        Order {
            _guard: self
                .publisher
                .is_active()
                .then(|| self.order.lock().unwrap_or_else(PoisonError::into_inner)),
        }
    }

    /// Before a mutation: the event-order lock, and (with `config`, when the caller's
    /// configuration is usable) a catalog for the publisher to compare the next one with, so
    /// the mutation's `catalog_changed` names exactly what it changed.
    pub fn begin(&self, config: Option<&SkillsConfig>) -> Order<'_> {
        let order = self.order();
        if let Some(config) = config
            && self.publisher.is_active()
            && !self.publisher.has_baseline()
        {
            drop(self.observed(config, &order));
        }
        order
    }

    /// [`Catalog::begin`] for a mutation that cannot hold the lock (an `async` one, across its
    /// awaits): the baseline is taken under the lock, which is released at once.
    pub fn baseline(&self, config: Option<&SkillsConfig>) {
        drop(self.begin(config));
    }

    /// After a mutation under `order`: publishes `kind` once per result (none for
    /// `catalog_changed`), then the catalog's changes.
    pub fn changed<'a, T: serde::Serialize + 'a>(
        &self,
        config: &SkillsConfig,
        order: &Order<'_>,
        kind: SkillsEvent,
        results: impl IntoIterator<Item = &'a T>,
    ) {
        if !self.publisher.is_active() {
            return;
        }
        if kind != SkillsEvent::CatalogChanged {
            for result in results {
                self.publisher
                    .publish(kind, serde_json::to_value(result).unwrap_or_default());
            }
        }
        // A discovery that fails now fails again for the caller's next call; nothing to add.
        drop(self.observed(config, order));
    }

    /// Discovers every skill, as an observed discovery (compared with the last, under the
    /// event-order lock).
    pub fn discover(&self, config: &SkillsConfig) -> Result<skills_types::Catalog, Error> {
        self.observed(config, &self.order())
    }

    /// The skills that best match `query`: from the open index of the live catalog while a
    /// watch runs, else by [`crate::search::search`].
    pub fn search(
        &self,
        config: &SkillsConfig,
        query: &str,
        limit: usize,
    ) -> Result<Vec<SearchHit>, Error> {
        // Through the event-order lock: a change already announced (`catalog_changed` goes
        // out before the live catalog is replaced, under that lock) is in the answer.
        let order = self.order();
        let live = self
            .live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        drop(order);
        match live {
            Some((generation, catalog)) => self
                .index
                .search(config, &catalog, generation, query, limit),
            None => crate::search::search(config, query, limit),
        }
    }

    /// Watches what a discovery of `config` depends on until the returned stream is dropped
    /// (see the facade's `Skills::watch`). With `rescan`, the skills each change adds or
    /// touches are audited again on a worker thread of the watch's.
    pub fn watch(
        &self,
        config: &SkillsConfig,
        options: &WatchOptions,
        rescan: Option<Rescan>,
    ) -> Result<Watch, Error> {
        let (sender, receiver) = skills_types::watch::channel();
        config.last_good.enable();
        self.stamps.enable();
        let sink = self.publisher.add_sink(Arc::new(stream::StreamSink::new(
            sender.clone(),
            config.clone(),
            rescan,
        )));
        let relay = stream::Relay {
            catalog: self.clone(),
            config: config.clone(),
            events: sender.clone(),
        };
        let watcher = match crate::watch::start(config, options, relay) {
            Ok(watcher) => watcher,
            Err(error) => {
                self.publisher.remove_sink(sink);
                return Err(error);
            }
        };
        let watching = watcher.watching().to_vec();
        self.watches.fetch_add(1, Ordering::SeqCst);
        let guard = stream::Guard {
            _watcher: watcher,
            catalog: self.clone(),
            sink,
        };
        // The baseline comes after the watches are in place: a change made in between is
        // either in it or reported by the first burst.
        let order = self.order();
        let catalog = self.observed(config, &order)?;
        {
            // Under the order lock, so a burst's catalog cannot be overtaken by this one.
            let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
            let generation = live.as_ref().map_or(0, |(generation, _)| generation + 1);
            *live = Some((generation, Arc::new(catalog.clone())));
        }
        drop(order);
        sender.send(WatchEvent::Ready {
            skills: catalog.skills.len(),
            watching,
        });
        Ok(Watch::new(receiver, guard))
    }

    /// After a burst of file events naming `touched`: a discovery the publisher compares with
    /// the last one (a skill whose folder holds a touched path counts as changed).
    fn rediscover(&self, config: &SkillsConfig, touched: &BTreeSet<PathBuf>) {
        let _order = self.order();
        // A failure reaches the next caller of the handle; the watch goes on and the next
        // burst tries again.
        let discovered = {
            let mut walked = self.walked.lock().unwrap_or_else(PoisonError::into_inner);
            crate::discover::rediscover(config, &mut walked, touched)
        };
        if let Ok(catalog) = discovered {
            let files_changed = self.stamps.follow(&catalog, touched);
            if self.publisher.observe_touched(&catalog, &files_changed) {
                self.keep_live(catalog);
            }
        }
    }

    /// A watch stopped: when it was the last one, searches discover again (a live catalog
    /// nothing keeps current would answer from the past).
    fn watch_ended(&self) {
        let order = self.order();
        if self.watches.fetch_sub(1, Ordering::SeqCst) == 1 {
            *self.live.lock().unwrap_or_else(PoisonError::into_inner) = None;
            *self.walked.lock().unwrap_or_else(PoisonError::into_inner) = Walked::default();
        }
        drop(order);
    }

    /// Keeps `catalog` as the live one under a new number, when a watch runs.
    fn keep_live(&self, catalog: skills_types::Catalog) {
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((generation, _)) = live.as_ref() {
            *live = Some((generation + 1, Arc::new(catalog)));
        }
    }

    /// Whether a watch keeps the catalog live.
    fn is_live(&self) -> bool {
        self.live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// A discovery the publisher compares with the last one, under the event-order lock. It
    /// walks every root; while a watch runs, the walk is kept for its next burst to start from
    /// (a watch's baseline is one of these, so files changed while nothing watched are never
    /// taken from an old walk).
    fn observed(
        &self,
        config: &SkillsConfig,
        _order: &Order<'_>,
    ) -> Result<skills_types::Catalog, Error> {
        let catalog = {
            let mut walked = self.walked.lock().unwrap_or_else(PoisonError::into_inner);
            if self.watches.load(Ordering::SeqCst) > 0 {
                crate::discover::rediscover(config, &mut walked, &BTreeSet::new())?
            } else {
                *walked = Walked::default();
                crate::discover::discover(config)?
            }
        };
        // A skill this handle just wrote is stamped now, so its file events are no news.
        self.stamps.follow(&catalog, &BTreeSet::new());
        let differs = self.publisher.observe_touched(&catalog, &BTreeSet::new());
        if differs && self.is_live() {
            self.keep_live(catalog.clone());
        }
        Ok(catalog)
    }
}
