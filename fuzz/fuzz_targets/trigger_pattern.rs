//! Fuzz target `trigger_pattern`: arbitrary text through the trigger grammar
//! (`skills_types::trigger::TriggerPattern`, 04 §Triggers) and its matching.
//!
//! Patterns come from frontmatter anyone can write, and events from any publisher. The target
//! asserts that parsing never panics; that an accepted pattern holds no whitespace, control
//! character or stray `*`, and reads back as itself from its own text (the catalog shows
//! patterns by that text); that it matches its own domain and slug, in ASCII upper case too;
//! that a whole-domain pattern matches every slug of its domain; and that matching an
//! arbitrary event never panics and never matches another domain.

#![no_main]

use libfuzzer_sys::fuzz_target;
use skills_types::trigger::TriggerPattern;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The pattern, then (after a NUL, when there is one) an event as `domain/slug`.
    let (pattern_text, event) = text.split_once('\0').unwrap_or((text, "x/y"));
    let Ok(pattern) = TriggerPattern::parse(pattern_text) else {
        return;
    };
    accepted(pattern_text, &pattern);

    let (domain, slug) = event.split_once('/').unwrap_or((event, ""));
    let matched = pattern.matches(domain, slug);
    if matched {
        assert_eq!(
            pattern.domain(),
            domain.to_lowercase(),
            "{pattern} matched the event {event:?} of another domain"
        );
    }
});

fn accepted(text: &str, pattern: &TriggerPattern) {
    let bad = |c: char| c.is_whitespace() || c.is_control() || c == '*';
    assert!(!pattern.domain().is_empty(), "{text:?}: an empty domain");
    assert!(
        !pattern.domain().chars().any(bad),
        "{text:?}: the domain {:?} holds a forbidden character",
        pattern.domain()
    );
    if let Some(slug) = pattern.slug() {
        assert!(!slug.is_empty(), "{text:?}: an empty slug");
        assert!(
            !slug.chars().any(bad),
            "{text:?}: the slug {slug:?} holds a forbidden character"
        );
    }

    let shown = pattern.to_string();
    let again = TriggerPattern::parse(&shown)
        .unwrap_or_else(|error| panic!("{text:?} shows as {shown:?}, which is refused: {error}"));
    assert_eq!(&again, pattern, "{text:?} shows as {shown:?}, which reads back differently");

    let slug = pattern.slug().unwrap_or("any-event");
    assert!(
        pattern.matches(pattern.domain(), slug),
        "{pattern} does not match its own domain and slug"
    );
    assert!(
        pattern.matches(
            &pattern.domain().to_ascii_uppercase(),
            &slug.to_ascii_uppercase()
        ),
        "{pattern} does not match its own domain and slug in upper case"
    );
    if pattern.slug().is_none() {
        assert!(
            pattern.matches(pattern.domain(), "") && pattern.matches(pattern.domain(), "a/b"),
            "the whole-domain pattern {pattern} misses a slug"
        );
    }
}
