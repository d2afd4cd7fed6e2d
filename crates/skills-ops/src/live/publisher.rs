//! [`Publisher`]: how the live catalog tells the bus (and each watch) what happened. It moved
//! here from `skills-bus` with the rest of the live catalog (issue 32): it needs a catalog, not
//! a bus, and the facade no longer holds one.
//!
//! Mutations publish their own event (`created`, `updated`, `installed`, `uninstalled`).
//! Discovery publishes `catalog_changed` when the catalog an agent sees differs from the one
//! the publisher saw last (with the added, changed and removed ids), and `load_error` for each
//! file that fails to load and did not fail last time. The first catalog a publisher sees is
//! its baseline and publishes nothing: there is nothing to compare it with.
//!
//! A publisher may have several sinks (the handle's bus, and the stream of each running watch),
//! shared by its clones: each sees the same events, computed once.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::json;
use skills_types::event::{DomainEvent, SharedSink, SkillsEvent};
use skills_types::{Catalog, DiagnosticCode, Severity};

/// Publishes the events of the skills domain into its sinks; without a sink it does nothing.
#[derive(Clone, Default)]
pub(crate) struct Publisher {
    sinks: Arc<Mutex<Sinks>>,
    last: Arc<Mutex<Option<Snapshot>>>,
}

/// The sinks, each under the number [`Publisher::add_sink`] gave it.
#[derive(Default)]
struct Sinks {
    next: u64,
    list: Vec<(u64, SharedSink)>,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher")
            .field("sinks", &self.sinks().len())
            .finish_non_exhaustive()
    }
}

/// What a catalog looked like: a fingerprint per id, and the load errors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Snapshot {
    skills: BTreeMap<String, u64>,
    load_errors: BTreeSet<String>,
}

impl Snapshot {
    fn of(catalog: &Catalog) -> Self {
        let mut skills: BTreeMap<String, u64> = BTreeMap::new();
        for skill in &catalog.skills {
            // Everything an agent can see of the skill, except the file inventory (filled
            // only on demand) and a kept last good version's flag (reported as a
            // `load_error`, not as a change); serde_json gives a stable text, hashed as it is
            // written (a catalog of 10,000 is fingerprinted after every burst of a watch).
            let kept = |diagnostic: &skills_types::Diagnostic| {
                diagnostic.code == DiagnosticCode::LastGoodKept
            };
            let mut hasher = HashWriter(DefaultHasher::new());
            let written = if skill.resources.is_none() && !skill.diagnostics.iter().any(kept) {
                serde_json::to_writer(&mut hasher, skill)
            } else {
                let mut seen = skill.clone();
                seen.resources = None;
                seen.diagnostics.retain(|diagnostic| !kept(diagnostic));
                serde_json::to_writer(&mut hasher, &seen)
            };
            // A skill that cannot be written as JSON (it always can) counts as its id alone.
            drop(written);
            skills.insert(skill.id.clone(), hasher.0.finish());
        }
        Self {
            skills,
            load_errors: load_errors(catalog).map(|(key, _)| key).collect(),
        }
    }
}

/// Feeds what is written into a hasher.
struct HashWriter(DefaultHasher);

impl std::io::Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The catalog's error diagnostics, each with a key that identifies it across discoveries.
fn load_errors(catalog: &Catalog) -> impl Iterator<Item = (String, &skills_types::Diagnostic)> {
    catalog
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity == Severity::Error)
        .map(|diagnostic| {
            let path = diagnostic
                .path
                .as_ref()
                .map(|path| path.display().to_string())
                .unwrap_or_default();
            (
                format!("{path}\0{}\0{}", diagnostic.code, diagnostic.message),
                diagnostic,
            )
        })
}

impl Publisher {
    /// A publisher into `sink`.
    pub(crate) fn new(sink: SharedSink) -> Self {
        let publisher = Self::default();
        publisher.add_sink(sink);
        publisher
    }

    /// Also publishes into `sink` (for this publisher and its clones), until
    /// [`Publisher::remove_sink`] is called with the number returned.
    pub(crate) fn add_sink(&self, sink: SharedSink) -> u64 {
        let mut sinks = self.sinks.lock().unwrap_or_else(PoisonError::into_inner);
        let id = sinks.next;
        sinks.next += 1;
        sinks.list.push((id, sink));
        id
    }

    /// Stops publishing into the sink [`Publisher::add_sink`] numbered `id`.
    pub(crate) fn remove_sink(&self, id: u64) {
        self.sinks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .list
            .retain(|(each, _)| *each != id);
    }

    /// Whether events go anywhere.
    pub(crate) fn is_active(&self) -> bool {
        !self.sinks().is_empty()
    }

    /// Publishes one event of the skills domain.
    pub(crate) fn publish(&self, kind: SkillsEvent, payload: serde_json::Value) {
        send(&self.sinks(), &DomainEvent::skills(kind, payload));
    }

    /// Whether a baseline catalog has been seen.
    pub(crate) fn has_baseline(&self) -> bool {
        self.lock().is_some()
    }

    /// Compares `catalog` with the last one seen, publishes what changed, and remembers it.
    #[cfg(test)]
    pub(crate) fn observe(&self, catalog: &Catalog) {
        self.observe_touched(catalog, &BTreeSet::new());
    }

    /// [`Publisher::observe`] after file events: the skills of `files_changed` (ids) present
    /// before and after also count as changed (a bundled file edited leaves the record alone).
    /// Returns whether any skill may differ from the last catalog seen (`true` when there was
    /// none to compare with): a caller keeping something built from the catalog (a search
    /// index) rebuilds it only then.
    pub(crate) fn observe_touched(
        &self,
        catalog: &Catalog,
        files_changed: &BTreeSet<String>,
    ) -> bool {
        let sinks = self.sinks();
        if sinks.is_empty() {
            return true;
        }
        let next = Snapshot::of(catalog);
        let previous = self.lock().replace(next.clone());
        let Some(previous) = previous else {
            return true;
        };
        for (key, diagnostic) in load_errors(catalog) {
            if !previous.load_errors.contains(&key) {
                let kept = catalog
                    .skills
                    .iter()
                    .chain(&catalog.shadowed)
                    .find(|skill| diagnostic.path.as_ref() == Some(&skill.location))
                    .map(|skill| skill.id.as_str());
                send(
                    &sinks,
                    &DomainEvent::skills(
                        SkillsEvent::LoadError,
                        json!({ "path": diagnostic.path, "kept": kept, "diagnostic": diagnostic }),
                    ),
                );
            }
        }
        let added: Vec<&String> = next
            .skills
            .keys()
            .filter(|id| !previous.skills.contains_key(*id))
            .collect();
        let removed: Vec<&String> = previous
            .skills
            .keys()
            .filter(|id| !next.skills.contains_key(*id))
            .collect();
        let changed: Vec<&String> = next
            .skills
            .iter()
            .filter(|(id, fingerprint)| {
                previous
                    .skills
                    .get(*id)
                    .is_some_and(|before| before != *fingerprint || files_changed.contains(*id))
            })
            .map(|(id, _)| id)
            .collect();
        let differs = !(added.is_empty() && removed.is_empty() && changed.is_empty());
        if differs {
            send(
                &sinks,
                &DomainEvent::skills(
                    SkillsEvent::CatalogChanged,
                    json!({ "added": added, "changed": changed, "removed": removed }),
                ),
            );
        }
        differs
    }

    fn sinks(&self) -> Vec<SharedSink> {
        self.sinks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .list
            .iter()
            .map(|(_, sink)| sink.clone())
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Snapshot>> {
        self.last.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn send(sinks: &[SharedSink], event: &DomainEvent) {
    for sink in sinks {
        sink.publish(event.clone());
    }
}

#[cfg(test)]
mod tests {
    use skills_types::{Diagnostic, DiagnosticCode};

    use skills_tests::fixtures::skill;
    use skills_types::event::EventSink;

    use super::*;

    /// A sink keeping what it is given, for the test to read.
    #[derive(Default)]
    struct Recorded(Mutex<Vec<DomainEvent>>);

    impl EventSink for Recorded {
        fn publish(&self, event: DomainEvent) {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(event);
        }
    }

    fn drain(recorded: &Recorded) -> Vec<DomainEvent> {
        std::mem::take(&mut *recorded.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    #[test]
    fn the_first_catalog_is_a_baseline_then_differences_are_published() {
        let recorded = Arc::new(Recorded::default());
        let publisher = Publisher::new(recorded.clone());
        let mut catalog = Catalog {
            skills: vec![skill("a", &[]), skill("b", &[])],
            ..Catalog::default()
        };
        assert!(!publisher.has_baseline());
        publisher.observe(&catalog);
        assert!(publisher.has_baseline());
        publisher.observe(&catalog);
        assert!(drain(&recorded).is_empty(), "nothing changed");

        catalog.skills[0].description = "Now different.".into();
        catalog.skills.remove(1);
        catalog.skills.push(skill("c", &["cron"]));
        catalog.diagnostics.push(
            Diagnostic::error(DiagnosticCode::UnterminatedFrontmatter, "no closing ---")
                .with_path("/home/u/.openhuman/skills/d/SKILL.md"),
        );
        publisher.observe(&catalog);
        let events = drain(&recorded);
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(SkillsEvent::LoadError.is(&events[0]));
        assert_eq!(
            events[0].payload["path"],
            "/home/u/.openhuman/skills/d/SKILL.md"
        );
        assert!(SkillsEvent::CatalogChanged.is(&events[1]));
        assert_eq!(
            events[1].payload,
            json!({ "added": ["c"], "changed": ["a"], "removed": ["b"] })
        );

        publisher.observe(&catalog);
        assert!(
            drain(&recorded).is_empty(),
            "a load error is published once, not on every discovery"
        );
    }

    #[test]
    fn without_a_sink_nothing_happens() {
        let publisher = Publisher::default();
        assert!(!publisher.is_active());
        publisher.observe(&Catalog::default());
        publisher.publish(SkillsEvent::Created, json!({}));
        assert!(!publisher.has_baseline());
    }
}
