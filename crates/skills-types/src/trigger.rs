//! Trigger patterns (04 §Triggers): which events a skill wants to be activated by.
//!
//! A skill lists patterns in its frontmatter (`triggers: [channel/inbound_message, cron]`).
//! The grammar, after trimming:
//!
//! - `domain`: every event of that domain;
//! - `domain/slug`: that event only (the slug is everything after the first `/`);
//! - `domain/` and `domain/*`: the whole domain again.
//!
//! The domain must not be empty, and neither part may hold whitespace, control characters or
//! a `*` other than the lone wildcard slug. Matching ignores case on both parts.

use std::fmt;

use crate::event::DomainEvent;

/// A parsed trigger pattern.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TriggerPattern {
    /// The domain, lowercased.
    domain: String,
    /// The slug, lowercased; `None` for the whole domain.
    slug: Option<String>,
}

/// Why a text is not a trigger pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TriggerError {
    /// Nothing but whitespace.
    Empty,
    /// A `/` with nothing before it.
    EmptyDomain,
    /// A character that no domain or slug holds.
    InvalidCharacter(char),
}

impl fmt::Display for TriggerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("the pattern is empty"),
            Self::EmptyDomain => f.write_str("the pattern has no domain before '/'"),
            Self::InvalidCharacter(c) => write!(f, "the pattern holds {c:?}"),
        }
    }
}

impl std::error::Error for TriggerError {}

impl TriggerPattern {
    /// Parses one pattern.
    pub fn parse(text: &str) -> Result<Self, TriggerError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(TriggerError::Empty);
        }
        let (domain, slug) = match text.split_once('/') {
            None => (text, None),
            Some((domain, "" | "*")) => (domain, None),
            Some((domain, slug)) => (domain, Some(slug)),
        };
        if domain.is_empty() {
            return Err(TriggerError::EmptyDomain);
        }
        for part in std::iter::once(domain).chain(slug) {
            if let Some(bad) = part
                .chars()
                .find(|c| c.is_whitespace() || c.is_control() || *c == '*')
            {
                return Err(TriggerError::InvalidCharacter(bad));
            }
        }
        Ok(Self {
            domain: domain.to_lowercase(),
            slug: slug.map(str::to_lowercase),
        })
    }

    /// The domain, lowercased.
    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// The slug, lowercased; `None` when the pattern covers the whole domain.
    pub fn slug(&self) -> Option<&str> {
        self.slug.as_deref()
    }

    /// Whether an event of `domain` and `slug` matches, ignoring case.
    pub fn matches(&self, domain: &str, slug: &str) -> bool {
        same(&self.domain, domain) && self.slug.as_deref().is_none_or(|own| same(own, slug))
    }

    /// Whether `event` matches.
    pub fn matches_event(&self, event: &DomainEvent) -> bool {
        self.matches(&event.domain, &event.slug)
    }
}

impl fmt::Display for TriggerPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.slug {
            Some(slug) => write!(f, "{}/{slug}", self.domain),
            None => f.write_str(&self.domain),
        }
    }
}

impl std::str::FromStr for TriggerPattern {
    type Err = TriggerError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

/// `own` (already lowercase) equals `other` ignoring case; ASCII first, so the common case
/// allocates nothing.
fn same(own: &str, other: &str) -> bool {
    if other.is_ascii() {
        own.eq_ignore_ascii_case(other)
    } else {
        own == other.to_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (String, Option<String>) {
        let pattern = TriggerPattern::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"));
        (pattern.domain.clone(), pattern.slug.clone())
    }

    #[test]
    fn the_grammar() {
        let whole = |domain: &str| (domain.to_owned(), None);
        let one = |domain: &str, slug: &str| (domain.to_owned(), Some(slug.to_owned()));
        assert_eq!(parsed("composio"), whole("composio"));
        assert_eq!(
            parsed("composio/trigger_received"),
            one("composio", "trigger_received")
        );
        assert_eq!(parsed("cron/"), whole("cron"));
        assert_eq!(parsed("cron/*"), whole("cron"));
        assert_eq!(parsed("  Cron/Daily  "), one("cron", "daily"));
        assert_eq!(parsed("GitHub/Issue/Opened"), one("github", "issue/opened"));
        assert_eq!(parsed("CHANNEL"), whole("channel"));
    }

    #[test]
    fn invalid_patterns() {
        for (text, error) in [
            ("", TriggerError::Empty),
            ("   ", TriggerError::Empty),
            ("/x", TriggerError::EmptyDomain),
            ("/", TriggerError::EmptyDomain),
            ("cron job", TriggerError::InvalidCharacter(' ')),
            ("cron/every day", TriggerError::InvalidCharacter(' ')),
            ("*", TriggerError::InvalidCharacter('*')),
            ("*/x", TriggerError::InvalidCharacter('*')),
            ("cron/daily*", TriggerError::InvalidCharacter('*')),
            ("cron/**", TriggerError::InvalidCharacter('*')),
            ("a\u{7}b", TriggerError::InvalidCharacter('\u{7}')),
        ] {
            assert_eq!(TriggerPattern::parse(text), Err(error), "{text:?}");
        }
    }

    #[test]
    fn matching_ignores_case_on_domain_and_slug() {
        let exact =
            TriggerPattern::parse("composio/trigger_received").unwrap_or_else(|e| panic!("{e}"));
        assert!(exact.matches("composio", "trigger_received"));
        assert!(exact.matches("Composio", "TRIGGER_RECEIVED"));
        assert!(!exact.matches("composio", "trigger_sent"));
        assert!(!exact.matches("composio2", "trigger_received"));
        assert!(!exact.matches("composio", "trigger_received/x"));

        for text in ["cron", "cron/", "cron/*", "CRON/*"] {
            let whole = TriggerPattern::parse(text).unwrap_or_else(|e| panic!("{e}"));
            assert!(whole.matches("cron", "daily"), "{text}");
            assert!(whole.matches("CRON", "Hourly"), "{text}");
            assert!(!whole.matches("crony", "daily"), "{text}");
        }

        let unicode = TriggerPattern::parse("Ärger/Öffnen").unwrap_or_else(|e| panic!("{e}"));
        assert!(unicode.matches("ÄRGER", "öffnen"));
        assert!(!unicode.matches("arger", "offnen"));
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "composio",
            "composio/trigger_received",
            "github/issue/opened",
        ] {
            let pattern = TriggerPattern::parse(text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(pattern.to_string(), text);
            assert_eq!(TriggerPattern::parse(&pattern.to_string()), Ok(pattern));
        }
    }
}
