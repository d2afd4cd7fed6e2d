//! The event bus and skill triggers (04-bus-rpc.md §The bus, §Triggers).
//!
//! - [`EventBus`]: one bounded broadcast channel, cloneable; every [`Subscription`] sees every
//!   event published after it subscribed, and one that falls behind is told how many events
//!   it missed ([`Received::Lagged`]) and keeps going.
//! - [`Publisher`]: what the rest of the subsystem publishes through: the events of a
//!   mutation, and `catalog_changed` / `load_error` when a discovery differs from the last.
//! - [`TriggeredSkillIndex`]: trigger patterns to skills, built from a catalog.
//! - [`TriggeredSkillSubscriber`]: a task that listens on the bus, rebuilds the index on every
//!   `catalog_changed`, and hands each matching event to the core as an [`Activation`].

mod bus;
mod index;
mod publisher;
mod subscriber;

pub use bus::{EventBus, Subscription};
pub use index::TriggeredSkillIndex;
pub use publisher::Publisher;
pub use skills_types::event::{Activation, DomainEvent, Received};
pub use subscriber::{Activations, CatalogSource, TriggeredSkillSubscriber};
