//! Fuzz target `frontmatter`: arbitrary bytes as a `SKILL.md`, through the lenient loader
//! (`parse_document`) and the strict validator (`validate_bytes`) in every profile that works
//! on the bytes alone (`skillhub` also reads the package directory from disk, so it is left
//! out: a fuzz target must not depend on the machine's files).
//!
//! Beyond "never panic, never hang", it asserts what 01 §Splitting and §The validator promise:
//! the loader fails only on non-UTF-8 or unterminated frontmatter; without an opening `---`
//! line the body is the whole file minus a BOM; a report is `valid` exactly when no finding
//! is an error; `--strict` only turns warnings into errors; `lenient` and `openhuman` only
//! relax `agentskills`.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use skills_ops::{load, validate};
use skills_types::validate::{Options, Profile, Report};
use skills_types::{DiagnosticCode, Severity};

/// A path that exists nowhere: nothing in these profiles may read it.
const FILE: &str = "/fuzz/skill-name/SKILL.md";

/// The profiles whose verdict is a function of the bytes; `agentskills` first, as the others
/// are compared with it.
const PROFILES: [Profile; 3] = [Profile::Agentskills, Profile::Lenient, Profile::Openhuman];

/// The host profiles: checked for a sound report, not compared (each host documents its own
/// rules, neither stricter nor looser than the specification's).
const HOSTS: [Profile; 3] = Profile::HOSTS;

fuzz_target!(|data: &[u8]| {
    let path = Path::new(FILE);
    let loaded = load::parse_document(path, data);
    match &loaded {
        Ok(document) => {
            let Ok(text) = std::str::from_utf8(data) else {
                panic!("the loader accepted bytes that are not UTF-8");
            };
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            let opens_frontmatter = text
                .split('\n')
                .next()
                .is_some_and(|line| line.trim_end_matches([' ', '\t', '\r']) == "---");
            if opens_frontmatter {
                assert!(
                    text.ends_with(document.body.as_str()) && document.body.len() < text.len(),
                    "the body must be the bytes after the closing fence, verbatim"
                );
            } else {
                assert_eq!(
                    document.body, text,
                    "without frontmatter the whole file is the body"
                );
                assert!(
                    document
                        .diagnostics
                        .iter()
                        .any(|d| d.code == DiagnosticCode::NoFrontmatter),
                    "a file without frontmatter must say so"
                );
            }
            let again = load::parse_document(path, data);
            assert!(
                again.as_ref().is_ok_and(|doc| doc == document),
                "parsing is deterministic"
            );
        }
        Err(error) => assert_eq!(error.kind(), "unloadable", "{error}"),
    }

    let mut reports = Vec::new();
    for profile in PROFILES {
        let report = validate_bytes(path, data, Options::new(profile));
        check_report(&report, profile, false);
        let strict = validate_bytes(path, data, Options::new(profile).strict(true));
        check_report(&strict, profile, true);
        check_strict_only_promotes_warnings(&report, &strict);
        if loaded.is_err() {
            assert!(
                !report.valid,
                "{profile}: a file the loader cannot load is valid"
            );
        }
        reports.push(report);
    }

    for profile in HOSTS {
        let report = validate_bytes(path, data, Options::new(profile));
        check_report(&report, profile, false);
        let strict = validate_bytes(path, data, Options::new(profile).strict(true));
        check_report(&strict, profile, true);
        check_strict_only_promotes_warnings(&report, &strict);
    }

    let [agentskills, lenient, openhuman] = &reports[..] else {
        unreachable!("one report per profile");
    };
    // `lenient` is what discovery loads: the document parses, and nothing in it is a finding
    // that keeps a skill out of the catalog (the folder's name here can always be shown).
    let listed = loaded.as_ref().is_ok_and(|document| {
        !document
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error && d.code.refuses_skill())
    });
    assert_eq!(
        lenient.valid, listed,
        "lenient must be valid exactly when discovery would list the skill"
    );
    if agentskills.valid {
        assert!(lenient.valid, "lenient must only relax agentskills");
        assert!(openhuman.valid, "openhuman must only relax agentskills");
    }
    for finding in lenient.diagnostics.iter().filter(|d| d.is_error()) {
        assert!(
            agentskills
                .diagnostics
                .iter()
                .any(|d| d.is_error() && d.code == finding.code),
            "lenient reports the error {} that agentskills does not",
            finding.code.as_str()
        );
    }
});

fn validate_bytes(path: &Path, data: &[u8], options: Options) -> Report {
    match validate::validate_bytes(path, data, &options) {
        Ok(report) => report,
        Err(error) => panic!("validate_bytes cannot fail, yet: {error}"),
    }
}

fn check_report(report: &Report, profile: Profile, strict: bool) {
    assert_eq!(report.profile, profile);
    assert_eq!(report.strict, strict);
    assert_eq!(report.file, Path::new(FILE));
    assert_eq!(
        report.dir,
        Path::new(FILE).parent().unwrap_or(Path::new("/"))
    );
    let has_error = report
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    assert_eq!(
        report.valid, !has_error,
        "{profile}: `valid` must mean no error-severity finding"
    );
    for diagnostic in &report.diagnostics {
        assert!(
            !diagnostic.message.is_empty(),
            "{}: empty message",
            diagnostic.code.as_str()
        );
        if strict {
            assert_ne!(
                diagnostic.severity,
                Severity::Warning,
                "--strict left a warning"
            );
        }
    }
    if report.name.is_some() {
        assert!(
            !report
                .diagnostics
                .iter()
                .any(|d| d.code == DiagnosticCode::NoFrontmatter),
            "a name was read from a file without frontmatter"
        );
    }
}

fn check_strict_only_promotes_warnings(relaxed: &Report, strict: &Report) {
    assert_eq!(
        relaxed.diagnostics.len(),
        strict.diagnostics.len(),
        "--strict changed the findings"
    );
    for (before, after) in relaxed.diagnostics.iter().zip(&strict.diagnostics) {
        assert_eq!(before.code, after.code, "--strict changed the findings");
        let expected = match before.severity {
            Severity::Warning => Severity::Error,
            other => other,
        };
        assert_eq!(
            after.severity, expected,
            "--strict must turn exactly the warnings into errors"
        );
    }
}
