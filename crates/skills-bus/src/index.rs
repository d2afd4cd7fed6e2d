//! [`TriggeredSkillIndex`]: which skills want which events.

use skills_types::{Catalog, DomainEvent, TriggerPattern};

/// Trigger patterns to skill ids, built from the skills an agent sees (collision winners
/// that are not hidden). Invalid patterns are left out; the loader already reported them on
/// their skill as `trigger-invalid`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TriggeredSkillIndex {
    /// `(pattern, skill id)`, in catalog order.
    entries: Vec<(TriggerPattern, String)>,
}

impl TriggeredSkillIndex {
    /// The index of `catalog`.
    pub fn build(catalog: &Catalog) -> Self {
        let entries = catalog
            .skills
            .iter()
            .flat_map(|skill| {
                skill
                    .frontmatter
                    .triggers
                    .iter()
                    .filter_map(|text| TriggerPattern::parse(text).ok())
                    .map(|pattern| (pattern, skill.id.clone()))
            })
            .collect();
        Self { entries }
    }

    /// The ids of the skills `event` activates, each once, in catalog order.
    pub fn matching(&self, event: &DomainEvent) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for (pattern, id) in &self.entries {
            if pattern.matches_event(event) && !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids
    }

    /// How many valid patterns the index holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no skill has a valid trigger.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use skills_types::catalog::Catalog;

    use super::*;
    use skills_tests::fixtures::skill;

    fn catalog(skills: &[(&str, &[&str])]) -> Catalog {
        Catalog {
            skills: skills
                .iter()
                .map(|(id, triggers)| skill(id, triggers))
                .collect(),
            ..Catalog::default()
        }
    }

    fn event(domain: &str, slug: &str) -> DomainEvent {
        DomainEvent::new(domain, slug, serde_json::Value::Null)
    }

    #[test]
    fn events_match_domains_and_slugs_ignoring_case() {
        let index = TriggeredSkillIndex::build(&catalog(&[
            ("inbox", &["channel/inbound_message"]),
            ("everything-cron", &["cron"]),
            ("daily", &["Cron/Daily", "cron/daily"]),
            ("broken", &["/x", "cron job"]),
            ("quiet", &[]),
        ]));
        assert_eq!(index.len(), 4, "the two invalid patterns are left out");
        assert_eq!(
            index.matching(&event("channel", "inbound_message")),
            ["inbox"]
        );
        assert_eq!(
            index.matching(&event("CHANNEL", "Inbound_Message")),
            ["inbox"]
        );
        assert!(
            index
                .matching(&event("channel", "outbound_message"))
                .is_empty()
        );
        assert_eq!(
            index.matching(&event("cron", "DAILY")),
            ["everything-cron", "daily"],
            "each skill once, in catalog order"
        );
        assert_eq!(
            index.matching(&event("cron", "hourly")),
            ["everything-cron"]
        );
        assert!(index.matching(&event("x", "")).is_empty());
    }

    #[test]
    fn an_empty_catalog_has_an_empty_index() {
        let index = TriggeredSkillIndex::build(&Catalog::default());
        assert!(index.is_empty());
        assert!(index.matching(&event("cron", "daily")).is_empty());
    }
}
