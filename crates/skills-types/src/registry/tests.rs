//! Coordinates: every accepted form, a table of refusals with their reasons, and properties
//! (every form of one skill parses to the same coordinates; whatever parses yields a slug that
//! is a safe folder name; nothing panics).

use proptest::prelude::*;

use super::*;

fn coordinates(namespace: Option<&str>, slug: &str, pin: Option<Pin>) -> Coordinates {
    Coordinates {
        namespace: namespace.map(str::to_owned),
        slug: slug.to_owned(),
        pin,
    }
}

#[test]
fn every_form_parses() {
    let version = |text: &str| Some(Pin::Version(text.to_owned()));
    let tag = |text: &str| Some(Pin::Tag(text.to_owned()));
    let cases = [
        (
            "@acme/pdf@1.2.0",
            coordinates(Some("acme"), "pdf", version("1.2.0")),
        ),
        (
            "@acme/pdf@latest",
            coordinates(Some("acme"), "pdf", tag("latest")),
        ),
        ("@acme/pdf", coordinates(Some("acme"), "pdf", None)),
        ("acme/pdf", coordinates(Some("acme"), "pdf", None)),
        (
            "acme/pdf@1.2.0",
            coordinates(Some("acme"), "pdf", version("1.2.0")),
        ),
        ("pdf", coordinates(None, "pdf", None)),
        ("pdf@1.2.0", coordinates(None, "pdf", version("1.2.0"))),
        ("pdf@v2", coordinates(None, "pdf", version("v2"))),
        ("pdf@vnext", coordinates(None, "pdf", tag("vnext"))),
        ("acme--pdf", coordinates(Some("acme"), "pdf", None)),
        (
            "acme--pdf-tools@2.0.0-rc.1+b7",
            coordinates(Some("acme"), "pdf-tools", version("2.0.0-rc.1+b7")),
        ),
        (
            "  data-2/csv-profile  ",
            coordinates(Some("data-2"), "csv-profile", None),
        ),
        ("数据/清洗", coordinates(Some("数据"), "清洗", None)),
    ];
    for (text, expected) in cases {
        assert_eq!(
            Coordinates::parse(text).unwrap_or_else(|error| panic!("{text}: {error}")),
            expected,
            "{text}"
        );
    }
}

#[test]
fn junk_is_refused_with_a_reason() {
    let cases: &[(&str, &str)] = &[
        ("", "it is empty"),
        ("   ", "it is empty"),
        ("@acme", "a name starting with '@' is scoped"),
        ("@acme@1.0", "a name starting with '@' is scoped"),
        ("@/pdf", "the namespace is empty"),
        ("/pdf", "the namespace is empty"),
        ("acme/", "the slug is empty"),
        ("--pdf", "the namespace is empty"),
        ("acme--", "the slug is empty"),
        ("acme--pdf--x", "'--' is not allowed inside a slug"),
        ("acme/pdf--x", "'--' is not allowed inside a slug"),
        ("a--b/pdf", "the namespace cannot hold '--'"),
        ("acme/pdf/x", "not '/'"),
        ("../pdf", "not '.'"),
        ("..", "not '.'"),
        ("pdf.md", "not '.'"),
        ("a\\b", "not '\\\\'"),
        ("pdf tools", "not ' '"),
        ("pdf\0", "not '\\0'"),
        ("PDF", "the slug must be lowercase ('pdf')"),
        ("Bad Name", "not ' '"),
        ("Acme/pdf", "the namespace must be lowercase ('acme')"),
        ("-pdf", "cannot start or end with '-'"),
        ("pdf-", "cannot start or end with '-'"),
        ("pdf@", "nothing follows '@'"),
        ("pdf@1.0@2", "not '@'"),
        ("pdf@.1", "starts with a letter or a digit"),
        ("pdf@1 0", "not ' '"),
        ("pdf@1.0/x", "not '/'"),
    ];
    for (text, reason) in cases {
        let error = Coordinates::parse(text).expect_err(text);
        assert!(
            error.reason.contains(reason),
            "{text:?}: {} (wanted {reason:?})",
            error.reason
        );
        assert!(
            error.to_string().contains("is not a registry name"),
            "{error}"
        );
    }
    let long = "a".repeat(MAX_NAME_CHARS + 1);
    assert!(
        Coordinates::parse(&long)
            .unwrap_err()
            .reason
            .contains("longer than")
    );
    let huge = "a".repeat(10_000);
    assert!(
        Coordinates::parse(&huge)
            .unwrap_err()
            .reason
            .contains("bytes")
    );
    let pin = format!("pdf@{}", "1".repeat(MAX_PIN_CHARS + 1));
    assert!(
        Coordinates::parse(&pin)
            .unwrap_err()
            .reason
            .contains("longer than")
    );
}

#[test]
fn forms_and_display() {
    let coordinates = Coordinates::parse("acme--pdf@1.0").unwrap();
    assert_eq!(coordinates.to_string(), "@acme/pdf@1.0");
    assert_eq!(coordinates.canonical(), "acme--pdf");
    assert_eq!(coordinates.unpinned().to_string(), "@acme/pdf");
    let global = Coordinates::parse("pdf").unwrap();
    assert_eq!(global, Coordinates::global("pdf"));
    assert_eq!(global.canonical(), "pdf");
    assert!(!global.same_skill(&coordinates));
    assert!(coordinates.same_skill(&"@acme/pdf@2".parse().unwrap()));
}

#[test]
fn entries_name_no_version_and_round_trip_camel_case() {
    assert!(Entry::new("@acme/pdf").coordinates().is_ok());
    let error = Entry::new("pdf@1.0").coordinates().unwrap_err();
    assert!(error.reason.contains("holds no version"), "{error}");
    let json = serde_json::json!({
        "name": "pdf",
        "description": "Reads PDFs.",
        "docsPath": "docs/pdf.md",
        "sourceUrl": "https://github.com/o/r/blob/main/pdf/SKILL.md",
        "stars": 12
    });
    let entry: Entry = serde_json::from_value(json).unwrap();
    assert_eq!(entry.id(), "pdf");
    assert_eq!(entry.docs_path.as_deref(), Some("docs/pdf.md"));
    let back = serde_json::to_value(&entry).unwrap();
    assert_eq!(
        back["sourceUrl"],
        "https://github.com/o/r/blob/main/pdf/SKILL.md"
    );
    assert_eq!(back["tags"], serde_json::json!([]));
    assert!(back.get("stars").is_none());
}

fn segment() -> impl Strategy<Value = String> {
    "[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}"
}

fn pin() -> impl Strategy<Value = Option<Pin>> {
    prop_oneof![
        Just(None),
        "[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}".prop_map(|v| Some(Pin::Version(v))),
        "[a-uw-z][a-z0-9]{0,8}".prop_map(|t| Some(Pin::Tag(t))),
    ]
}

proptest! {
    #[test]
    fn every_spelling_of_one_skill_parses_the_same(
        namespace in proptest::option::of(segment()),
        slug in segment(),
        pin in pin(),
    ) {
        let expected = Coordinates { namespace: namespace.clone(), slug: slug.clone(), pin: pin.clone() };
        let suffix = pin.as_ref().map(|pin| format!("@{}", pin.as_str())).unwrap_or_default();
        let mut spellings = vec![expected.to_string(), format!("{}{suffix}", expected.canonical())];
        if let Some(namespace) = &namespace {
            spellings.push(format!("{namespace}/{slug}{suffix}"));
            spellings.push(format!("@{namespace}/{slug}{suffix}"));
        }
        for spelling in spellings {
            prop_assert_eq!(Coordinates::parse(&spelling).unwrap(), expected.clone(), "{}", spelling);
        }
    }

    #[test]
    fn whatever_parses_is_a_safe_folder_name(text in "\\PC{0,40}|[-a-z0-9@/.]{0,24}") {
        if let Ok(coordinates) = Coordinates::parse(&text) {
            let slug = &coordinates.slug;
            prop_assert!(!slug.is_empty());
            prop_assert!(!slug.contains(['/', '\\', '.', '@', '\0']), "{}", slug);
            prop_assert!(!slug.contains("--"), "{}", slug);
            prop_assert!(!slug.starts_with('-') && !slug.chars().any(char::is_control), "{}", slug);
            prop_assert_eq!(Coordinates::parse(&coordinates.to_string()).unwrap(), coordinates.clone());
        }
    }
}

#[test]
fn requests_use_the_rpc_names_and_refuse_unknown_fields() {
    let query: Query =
        serde_json::from_value(serde_json::json!({"query": "pdf", "category": "docs"})).unwrap();
    assert_eq!(
        (query.text.as_str(), query.category.as_deref()),
        ("pdf", Some("docs"))
    );
    assert!(serde_json::from_value::<Query>(serde_json::json!({"text": "pdf"})).is_err());
    let request: InstallRequest =
        serde_json::from_value(serde_json::json!({"entry_id": "@acme/pdf"})).unwrap();
    assert_eq!(request, InstallRequest::new("@acme/pdf"));
    assert!(serde_json::from_value::<InstallRequest>(serde_json::json!({"id": "x"})).is_err());
}

#[test]
fn the_global_namespace_is_no_namespace() {
    for text in ["@global/pdf", "global/pdf", "global--pdf", "pdf"] {
        let coordinates = Coordinates::parse(text).unwrap();
        assert_eq!(coordinates, Coordinates::global("pdf"), "{text}");
        assert_eq!(coordinates.canonical(), "pdf", "{text}");
    }
    let pinned = Coordinates::parse("@global/pdf@1.2.0").unwrap();
    assert_eq!(pinned.to_string(), "pdf@1.2.0");
    assert!(pinned.same_skill(&Coordinates::global("pdf")));
    // Only the exact name: a namespace that merely starts with it is a namespace.
    assert_eq!(
        Coordinates::parse("@globalx/pdf")
            .unwrap()
            .namespace
            .as_deref(),
        Some("globalx")
    );
}
