//! The twin of `skills-bus`: a bus that accepts publications and subscriptions and never
//! delivers (04 §The bus), and triggers that are disabled.
//!
//! A subscription ends at once (`recv` gives `None`), so a core's receive loop finishes
//! instead of waiting forever on a task nothing will wake.

use std::sync::Arc;

use skills_types::event::{Activation, DomainEvent, EventSink, Received};
use skills_types::{Catalog, Error};

/// A bus that delivers nothing.
#[derive(Clone, Debug, Default)]
pub struct EventBus {
    _inert: (),
}

impl EventBus {
    /// Kept for signature parity with the real bus.
    pub const DEFAULT_CAPACITY: usize = 1024;

    /// A bus; the capacity is ignored.
    pub fn new(_capacity: usize) -> Self {
        Self::default()
    }

    /// Drops `event`; it reached no subscriber.
    pub fn publish(&self, _event: DomainEvent) -> usize {
        0
    }

    /// A subscription that never yields an event.
    pub fn subscribe(&self) -> Subscription {
        Subscription { _inert: () }
    }

    /// Always 0: subscriptions are not kept.
    pub fn subscriber_count(&self) -> usize {
        0
    }
}

impl EventSink for EventBus {
    fn publish(&self, _event: DomainEvent) {}
}

/// A subscription to the disabled bus: it has ended.
#[derive(Debug)]
pub struct Subscription {
    _inert: (),
}

impl Subscription {
    /// Always `None`: the subscription has ended.
    pub async fn recv(&mut self) -> Option<Received> {
        None
    }

    /// Always `None`.
    pub fn try_recv(&mut self) -> Option<Received> {
        None
    }
}

/// An index that matches nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TriggeredSkillIndex {
    _inert: (),
}

impl TriggeredSkillIndex {
    /// The empty index.
    pub fn build(_catalog: &Catalog) -> Self {
        Self::default()
    }

    /// Always empty.
    pub fn matching(&self, _event: &DomainEvent) -> Vec<String> {
        Vec::new()
    }

    /// Always 0.
    pub fn len(&self) -> usize {
        0
    }

    /// Always `true`.
    pub fn is_empty(&self) -> bool {
        true
    }
}

/// Where a subscriber would get the catalog from.
pub type CatalogSource = Arc<dyn Fn() -> Result<Catalog, Error> + Send + Sync>;

/// Never started: see [`TriggeredSkillSubscriber::start`].
#[derive(Debug)]
pub struct TriggeredSkillSubscriber {
    _inert: (),
}

/// Never produced.
#[derive(Debug)]
pub struct Activations {
    _inert: (),
}

impl Activations {
    /// Always `None`.
    pub async fn recv(&mut self) -> Option<Activation> {
        None
    }

    /// Always `None`.
    pub fn try_recv(&mut self) -> Option<Activation> {
        None
    }
}

impl TriggeredSkillSubscriber {
    /// Kept for signature parity with the real subscriber.
    pub const CAPACITY: usize = 256;

    /// Disabled: always `Err(Error::Disabled)`.
    pub async fn start(
        _bus: &EventBus,
        _source: CatalogSource,
    ) -> Result<(Self, Activations), Error> {
        Err(Error::Disabled)
    }

    /// The empty index.
    pub fn index(&self) -> TriggeredSkillIndex {
        TriggeredSkillIndex::default()
    }
}
