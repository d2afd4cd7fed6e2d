//! Where catalog entries resolve to: `sourceUrl` forms, `installIdentifier` forms, the
//! download base, and the refusals.

use super::*;

fn entry(name: &str, source_url: Option<&str>, identifier: Option<&str>) -> Entry {
    let mut entry = Entry::new(name);
    entry.category = "documents".to_owned();
    entry.source = "Acme".to_owned();
    entry.source_url = source_url.map(str::to_owned);
    entry.install_identifier = identifier.map(str::to_owned);
    entry
}

fn text(entry: &Entry, base: Option<&str>) -> Result<String, Error> {
    let coordinates = entry.coordinates().unwrap();
    let bases = Bases::new(None).unwrap();
    resolve(entry, &coordinates, base, &bases, &Policy::default()).map(|resolved| resolved.text())
}

#[test]
fn a_source_url_wins_when_it_is_installable() {
    let cases = [
        // A GitHub folder is every file of it, through the GitHub form.
        (
            "https://github.com/o/r/tree/main/skills/pdf",
            "o/r/skills/pdf@main",
        ),
        (
            "https://github.com/o/r/tree/v1/skills/pdf%20forms/",
            "o/r/skills/pdf forms@v1",
        ),
        ("https://github.com/o/r", "o/r"),
        // A file page is that file.
        (
            "https://github.com/o/r/blob/main/pdf/SKILL.md",
            "https://raw.githubusercontent.com/o/r/main/pdf/SKILL.md",
        ),
        (
            "https://raw.githubusercontent.com/o/r/main/pdf/SKILL.md",
            "https://raw.githubusercontent.com/o/r/main/pdf/SKILL.md",
        ),
        // A pack is every file the pack lists.
        (
            "https://skills.example.org/pack/index.json",
            "https://skills.example.org/pack/index.json",
        ),
    ];
    for (source_url, expected) in cases {
        let found = text(
            &entry("pdf", Some(source_url), Some("official/documents/pdf")),
            Some("https://cdn.example.org/"),
        );
        assert_eq!(found.unwrap(), expected, "{source_url}");
    }
}

#[test]
fn detail_pages_fall_through_to_the_install_identifier() {
    for page in [
        "https://skills.sh/skills/o/r/pdf",
        "https://clawhub.ai/someone/skills/pdf",
        "https://github.com/o/r/issues/1",
        "",
    ] {
        assert_eq!(
            text(
                &entry("pdf", Some(page), Some("anthropics/skills/skills/pdf")),
                None
            )
            .unwrap(),
            "anthropics/skills/skills/pdf",
            "{page}"
        );
    }
}

#[test]
fn official_identifiers_live_under_the_download_base() {
    let official = entry("1password", None, Some("official/security/1password"));
    // Hermes's own folder when nothing is configured.
    assert_eq!(
        text(&official, None).unwrap(),
        "NousResearch/hermes-agent/optional-skills/security/1password"
    );
    // A GitHub folder as the base keeps its ref after the whole path.
    assert_eq!(
        text(
            &official,
            Some("https://github.com/acme/mirror/tree/stable/optional")
        )
        .unwrap(),
        "acme/mirror/optional/security/1password@stable"
    );
    // Any other base is the skill's folder there, for the installer's index discovery.
    for base in [
        "https://cdn.example.org/skills",
        "https://cdn.example.org/skills/",
    ] {
        assert_eq!(
            text(&official, Some(base)).unwrap(),
            "https://cdn.example.org/skills/security/1password/"
        );
    }
    for bad in [
        "official/../x",
        "official/a/%2e%2e",
        "official/",
        "official/a//b",
    ] {
        let error = text(&entry("x", None, Some(bad)), None).unwrap_err();
        assert_eq!(error.kind(), "invalid_input", "{bad}");
    }
    let refused = text(&official, Some("http://cdn.example.org/"));
    assert_eq!(refused.unwrap_err().kind(), "refused_url");
}

#[test]
fn other_hubs_and_odd_identifiers_are_not_github() {
    for identifier in [
        "skills-sh/o/r/pdf",
        "clawhub/pdf",
        "lobehub/pdf",
        "browse-sh/example.com/task",
        "pdf",
        "o/../r",
        "https://example.org/x",
        "o/r@main",
    ] {
        let error = text(&entry("pdf", None, Some(identifier)), None).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("cannot be installed") && message.ends_with("Acme"),
            "{identifier}: {message}"
        );
    }
}

#[test]
fn without_urls_the_seed_layout_of_the_base_is_used() {
    assert_eq!(
        text(&entry("pdf", None, None), Some("https://cdn.example.org/s")).unwrap(),
        "https://cdn.example.org/s/documents/pdf/SKILL.md"
    );
    let mut namespaced = entry("@acme/pdf", None, None);
    namespaced.category = String::new();
    assert_eq!(
        text(&namespaced, Some("https://cdn.example.org/")).unwrap(),
        "https://cdn.example.org/acme--pdf/SKILL.md"
    );
    for category in ["..", ".", "a/b", "a\\b", "%2e%2e", "a\nb"] {
        let mut odd = entry("pdf", None, None);
        odd.category = category.to_owned();
        let error = text(&odd, Some("https://cdn.example.org/")).unwrap_err();
        assert_eq!(error.kind(), "invalid_input", "{category:?}");
    }
    let refused = text(
        &entry("pdf", Some("http://github.com/o/r/blob/m/a.md"), None),
        None,
    );
    assert_eq!(refused.unwrap_err().kind(), "refused_url");
    let error = text(&entry("pdf", None, None), None).unwrap_err();
    assert!(
        error.to_string().ends_with("see its source page: Acme"),
        "{error}"
    );
}
