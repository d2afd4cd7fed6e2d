//! The fixture switch is findable (issue 11 §4): every refusal of a URL aimed at this machine,
//! a private network, plain http or a port other than 443 names
//! `SKILLS_INSTALL_ALLOW_LOCAL_HTTP`, and so do `install --help` and the registry's help. A
//! refusal for another reason (a `file:` URL, user info) does not, and neither does any
//! refusal once the switch is on, since it cannot help then. Every URL here is refused by the
//! policy before any connection is attempted.

use super::ALLOW_LOCAL_HTTP;
use crate::discovery::Tree;

/// URLs a person testing a local server types, each refused with the switch off.
const LOCAL: [&str; 10] = [
    "http://127.0.0.1:8080/SKILL.md",
    "http://127.0.0.1/SKILL.md",
    "http://localhost:3000/SKILL.md",
    "https://localhost/SKILL.md",
    "https://[::1]/SKILL.md",
    "https://127.0.0.1/SKILL.md",
    "https://example.com:8443/SKILL.md",
    "http://example.com/SKILL.md",
    "https://10.0.0.1/SKILL.md",
    "https://fixtures/SKILL.md",
];

#[test]
fn refusals_of_local_urls_name_the_fixture_switch() {
    let tree = Tree::new();
    for url in LOCAL {
        for args in [
            vec!["install", url],
            vec!["install", "--scope", "project", url],
        ] {
            let run = tree.run_with(&args, &[(ALLOW_LOCAL_HTTP, "0")]);
            assert_eq!(run.code, Some(1), "{url}: {run:?}");
            assert!(
                run.stderr.starts_with("error: refused ")
                    && run.stderr.contains("SKILLS_INSTALL_ALLOW_LOCAL_HTTP=1")
                    && run.stderr.contains("127.0.0.1, [::1] and localhost"),
                "{url}: {run:?}"
            );
        }
    }
}

#[test]
fn other_refusals_do_not_mention_it() {
    let tree = Tree::new();
    for url in ["file:///etc/passwd", "https://user:pw@example.com/SKILL.md"] {
        let run = tree.run(&["install", url]);
        assert_eq!(run.code, Some(1), "{url}: {run:?}");
        assert!(run.stderr.starts_with("error: refused "), "{url}: {run:?}");
        assert!(!run.stderr.contains(ALLOW_LOCAL_HTTP), "{url}: {run:?}");
    }
    // With the switch on, a private address is still refused, and the switch is no advice.
    let run = tree.run_with(
        &["install", "https://10.0.0.1/SKILL.md"],
        &[(ALLOW_LOCAL_HTTP, "1")],
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains("10.0.0.0/8"), "{run:?}");
    assert!(!run.stderr.contains(ALLOW_LOCAL_HTTP), "{run:?}");
}

#[test]
fn install_and_registry_help_name_the_fixture_switch() {
    let tree = Tree::new();
    for args in [
        &["install", "--help"][..],
        &["install", "-h"],
        &["registry", "--help"],
        &["registry", "install", "--help"],
    ] {
        let help = tree.run(args);
        // Help is wrapped to the terminal's width: compare with whitespace folded.
        let text = help.ok().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            text.contains("SKILLS_INSTALL_ALLOW_LOCAL_HTTP=1")
                && text.contains("127.0.0.1, [::1]")
                && text.contains("port 443"),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn a_local_registry_catalog_url_names_the_fixture_switch() {
    let tree = Tree::new();
    let run = tree.run_with(
        &["registry", "browse"],
        &[
            (
                "SKILLS_REGISTRY_CATALOG_URL",
                "http://127.0.0.1:9/catalog.json",
            ),
            (ALLOW_LOCAL_HTTP, "0"),
        ],
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr
            .contains("refused http://127.0.0.1:9/catalog.json")
            && run.stderr.contains("SKILLS_INSTALL_ALLOW_LOCAL_HTTP=1"),
        "{run:?}"
    );
}
