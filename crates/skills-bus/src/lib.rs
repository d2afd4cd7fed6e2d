//! The event bus and skill triggers (04-bus-rpc.md §The bus, §Triggers).
//!
//! - [`EventBus`]: one bounded broadcast channel, cloneable; every [`Subscription`] sees every
//!   event published after it subscribed, and one that falls behind is told how many events
//!   it missed ([`Received::Lagged`]) and keeps going.
//! - [`TriggeredSkillIndex`]: trigger patterns to skills, built from a catalog.
//! - [`TriggeredSkillSubscriber`]: a task that listens on the bus, rebuilds the index on every
//!   `catalog_changed`, and hands each matching event to the core as an [`Activation`].
//!
//! What is published (a mutation's events, `catalog_changed` and `load_error` when a
//! discovery differs from the last) is decided by the live catalog in `skills-ops`, which
//! publishes into a bus as one of its sinks.

mod bus;
mod index;
mod subscriber;

pub use bus::{EventBus, Subscription};
pub use index::TriggeredSkillIndex;
pub use skills_types::event::{Activation, DomainEvent, Received};
pub use subscriber::{Activations, CatalogSource, TriggeredSkillSubscriber};
