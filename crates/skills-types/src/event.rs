//! Events (04 §The bus): what the subsystem tells the rest of an agent core, and the sink it
//! tells it through.
//!
//! An event names its `domain` and, within it, its `slug` (the kind of event: `installed`,
//! `inbound_message`, `trigger_received`, ...). The skills subsystem publishes in the domain
//! [`SKILLS_DOMAIN`] with the slugs of [`SkillsEvent`]; other parts of a core publish in their
//! own domains, and skill triggers match on both.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The domain the skills subsystem publishes in.
pub const SKILLS_DOMAIN: &str = "skills";

/// One event on the bus.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DomainEvent {
    /// Who published it (`skills`, `channel`, `cron`, ...).
    pub domain: String,
    /// What happened, within the domain (`installed`, `inbound_message`, ...).
    pub slug: String,
    /// The details; their shape depends on domain and slug.
    #[serde(default)]
    pub payload: serde_json::Value,
    /// When it was published, RFC 3339 UTC (set by the bus when left empty).
    #[serde(default)]
    pub at: String,
}

impl DomainEvent {
    /// An event with no time yet; the bus stamps it when it is published.
    pub fn new(
        domain: impl Into<String>,
        slug: impl Into<String>,
        payload: serde_json::Value,
    ) -> Self {
        Self {
            domain: domain.into(),
            slug: slug.into(),
            payload,
            at: String::new(),
        }
    }

    /// An event of the skills subsystem.
    pub fn skills(kind: SkillsEvent, payload: serde_json::Value) -> Self {
        Self::new(SKILLS_DOMAIN, kind.as_str(), payload)
    }
}

/// The slugs the skills subsystem publishes (04 §The bus).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SkillsEvent {
    /// A skill was created: the `Written` result (`{name, scope, dir, location}`).
    Created,
    /// A skill was updated: the `Written` result.
    Updated,
    /// A skill was installed (or replaced): its `InstallOutcome`.
    Installed,
    /// A skill was removed: the `Uninstalled` result (`{name, scope, path, was_link}`).
    Uninstalled,
    /// The catalog differs from the one seen before: `{added, changed, removed}` ids.
    CatalogChanged,
    /// A skill could not be loaded: `{path, diagnostic}`.
    LoadError,
    /// A run was started: `{run_id, skill, target}`.
    RunStarted,
    /// A run ended: `{run_id, skill, status, exit_code, duration_ms}`.
    RunFinished,
    /// A declared tool was called: `{tool_name, skill, session_id}`.
    ToolStarted,
    /// A declared tool answered: `{tool_name, skill, session_id, run_id, elapsed_ms, is_error}`.
    ToolFinished,
}

impl SkillsEvent {
    /// The slug on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Updated => "updated",
            Self::Installed => "installed",
            Self::Uninstalled => "uninstalled",
            Self::CatalogChanged => "catalog_changed",
            Self::LoadError => "load_error",
            Self::RunStarted => "run_started",
            Self::RunFinished => "run_finished",
            Self::ToolStarted => "tool_started",
            Self::ToolFinished => "tool_finished",
        }
    }

    /// Whether `event` is this event of the skills domain.
    pub fn is(self, event: &DomainEvent) -> bool {
        event.domain.eq_ignore_ascii_case(SKILLS_DOMAIN)
            && event.slug.eq_ignore_ascii_case(self.as_str())
    }
}

/// Where the subsystem publishes events: an event bus, or anything else a core wires in.
/// Publishing never blocks and never fails; an event nobody listens to is dropped.
pub trait EventSink: Send + Sync {
    /// Publishes `event`.
    fn publish(&self, event: DomainEvent);
}

/// A shared [`EventSink`].
pub type SharedSink = Arc<dyn EventSink>;

/// What a subscription yields.
#[derive(Clone, Debug, PartialEq)]
pub enum Received {
    /// The next event.
    Event(DomainEvent),
    /// The subscriber fell behind and this many events were dropped for it; it goes on with
    /// the oldest event still kept.
    Lagged(u64),
}

/// A skill whose trigger matched an event: the core decides what to do with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Activation {
    /// The skill's id (its folder name).
    pub skill_id: String,
    /// The event that matched.
    pub event: DomainEvent,
}
