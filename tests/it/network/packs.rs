//! Packs and well-known indexes through the `Skills` handle (03 §Sources, §Writing to disk):
//! the whole download is checked in memory, so a hostile entry refuses the install before
//! anything is written, and a pack cannot send the installer to another origin.

use serde_json::{Value, json};
use skills_tests::http::{Reply, Server};

use super::{Home, Net, client_connections, isolated, sha256, skill_md, targets};

const PACK: &str = "/pack/index.json";
const WELL_KNOWN: &str = "/.well-known/agent-skills/index.json";

/// A server holding a good two-file skill `alpha` under `/pack/`, and whatever index it is told.
fn pack_server(index: &Value) -> Server {
    let server = Server::start().unwrap();
    server.text(PACK, &index.to_string());
    server.text("/pack/alpha/SKILL.md", &skill_md("alpha"));
    server.text("/pack/alpha/notes.md", "Notes.\n");
    server
}

fn good_entry() -> Value {
    json!({
        "name": "alpha",
        "files": ["SKILL.md", "notes.md"],
        "version": "1.0.0",
        "sha256": { "SKILL.md": sha256(skill_md("alpha").as_bytes()) },
    })
}

/// The control: the same fixture with a good index installs, so every refusal below is the
/// refusal of its one defect.
#[test]
fn a_good_pack_installs() {
    isolated(|| async {
        let server = pack_server(&json!({ "skills": [good_entry()] }));
        let home = Home::new();
        let net = Net::new();
        let outcomes = home
            .skills(&net)
            .install(&skills::install::Request::new(server.url(PACK)))
            .await
            .unwrap();
        assert_eq!(outcomes.len(), 1);
        assert_eq!(outcomes[0].slug, "alpha");
        assert_eq!(outcomes[0].files, 2);
        assert_eq!(
            std::fs::read_to_string(home.root().join("alpha/notes.md")).unwrap(),
            "Notes.\n"
        );
        assert!(home.root().join(skills_types::files::LOCK_FILE).is_file());
        assert_eq!(
            targets(&server),
            [PACK, "/pack/alpha/SKILL.md", "/pack/alpha/notes.md"]
        );
    });
}

/// One defect per case: the index's entry with `change` applied, and words the refusal uses.
fn hostile_entries() -> Vec<(&'static str, Value, &'static str)> {
    let with = |key: &str, value: Value| {
        let mut entry = good_entry();
        entry[key] = value;
        entry
    };
    let files = |list: &[&str]| {
        let mut entry = with("files", json!(list));
        entry["sha256"] = json!({});
        entry
    };
    vec![
        ("parent traversal", files(&["SKILL.md", "../x"]), "'../x'"),
        ("absolute path", files(&["SKILL.md", "/etc/x"]), "'/etc/x'"),
        (
            "inner traversal",
            files(&["SKILL.md", "a/../../b"]),
            "'a/../../b'",
        ),
        (
            "backslash",
            files(&["SKILL.md", "a\\..\\..\\b"]),
            "a\\\\..\\\\..\\\\b",
        ),
        ("hidden file", files(&["SKILL.md", ".env"]), "'.env'"),
        (
            "duplicate",
            files(&["SKILL.md", "notes.md", "notes.md"]),
            "twice",
        ),
        (
            "case collision",
            files(&["SKILL.md", "A.md", "a.md"]),
            "twice",
        ),
        (
            "definition case collision",
            files(&["SKILL.md", "skill.md"]),
            "twice",
        ),
        ("missing SKILL.md", files(&["notes.md"]), "has no SKILL.md"),
        (
            "SKILL.md only below",
            files(&["docs/SKILL.md"]),
            "has no SKILL.md",
        ),
        ("no files", files(&[]), "has no SKILL.md"),
        (
            "name traversal",
            with("name", json!("../alpha")),
            "not a plain folder name",
        ),
        (
            "nested name",
            with("name", json!("a/b")),
            "not a plain folder name",
        ),
        (
            "dot name",
            with("name", json!(".")),
            "not a plain folder name",
        ),
        (
            "digest mismatch",
            with("sha256", json!({ "SKILL.md": "00".repeat(32) })),
            "the digest of 'alpha/SKILL.md' does not match the pack index",
        ),
        (
            "digest of an unlisted file",
            with("sha256", json!({ "other.md": "00".repeat(32) })),
            "gives a digest for 'other.md'",
        ),
        (
            "too many files",
            files(
                &std::iter::once("SKILL.md".to_owned())
                    .chain((0..100).map(|n| format!("f{n}.md")))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            ),
            "lists 101 files; at most 100",
        ),
    ]
}

#[test]
fn a_hostile_pack_entry_refuses_the_install_and_writes_nothing() {
    isolated(|| async {
        for (case, entry, words) in hostile_entries() {
            let server = pack_server(&json!({ "skills": [entry] }));
            let home = Home::new();
            let net = Net::new();
            let error = home
                .skills(&net)
                .install(&skills::install::Request::new(server.url(PACK)))
                .await
                .unwrap_err();
            assert_eq!(error.kind(), "invalid_package", "{case}: {error}");
            assert!(error.to_string().contains(words), "{case}: {error}");
            home.assert_untouched(case);
            // Lexical defects are found before any file is fetched; digests after the fetch,
            // and never past the file that failed.
            let fetched = targets(&server);
            assert_eq!(fetched.first().map(String::as_str), Some(PACK), "{case}");
            assert!(
                fetched
                    .iter()
                    .all(|target| target == PACK || target.starts_with("/pack/alpha/")),
                "{case}: {fetched:?}"
            );
            if !case.starts_with("digest") {
                assert_eq!(fetched, [PACK], "{case}");
            }
        }
    });
}

/// A pack whose second skill fails installs neither: the check is of the whole download.
#[test]
fn a_pack_is_all_or_nothing() {
    isolated(|| async {
        let beta = json!({ "name": "beta", "files": ["SKILL.md"] });
        let server = pack_server(&json!({ "skills": [good_entry(), beta] }));
        server.route("/pack/beta/SKILL.md", Reply::Status(404));
        let home = Home::new();
        let net = Net::new();
        let error = home
            .skills(&net)
            .install(&skills::install::Request::new(server.url(PACK)))
            .await
            .unwrap_err();
        assert_eq!(error.kind(), "http_status", "{error}");
        assert!(error.to_string().contains("/pack/beta/SKILL.md"), "{error}");
        home.assert_untouched("second skill missing");
    });
}

/// A pack's files come from beside its index, on its origin. Entries that would name another
/// origin (an absolute URL, a scheme-relative path) are refused, and the other origin, a
/// server on `[::1]` the fixture policy would otherwise admit, is never contacted.
#[test]
fn a_pack_cannot_send_the_installer_to_another_origin() {
    isolated(|| async {
        let other = Server::start_v6().unwrap();
        other.text("/steal/SKILL.md", &skill_md("alpha"));
        let elsewhere = other.url("/steal/SKILL.md");
        let scheme_relative = format!("//[::1]:{}/steal/SKILL.md", other.port());
        let cases = [
            json!({ "name": "alpha", "files": ["SKILL.md", elsewhere] }),
            json!({ "name": "alpha", "files": ["SKILL.md", scheme_relative] }),
            json!({ "name": elsewhere, "files": ["SKILL.md"] }),
            json!({ "name": "alpha", "files": [format!("..%2f..%2f{scheme_relative}")] }),
            json!({ "name": format!("[::1]:{}", other.port()), "files": ["SKILL.md"] }),
        ];
        for entry in cases {
            let server = pack_server(&json!({ "skills": [entry.clone()] }));
            let home = Home::new();
            let net = Net::new();
            let error = home
                .skills(&net)
                .install(&skills::install::Request::new(server.url(PACK)))
                .await
                .unwrap_err();
            assert_eq!(error.kind(), "invalid_package", "{entry}: {error}");
            home.assert_untouched(&entry.to_string());
            assert_eq!(targets(&server), [PACK], "{entry}");
        }
        assert_eq!(client_connections(&other), 0);
    });
}

/// A pack file that redirects to another origin is refused: the files of a pack come from the
/// pack's origin, redirects included (the hop itself passes the URL policy here, since the
/// fixture policy admits `[::1]`).
#[test]
fn a_pack_file_redirecting_to_another_origin_is_refused() {
    isolated(|| async {
        let other = Server::start_v6().unwrap();
        other.text("/alpha/SKILL.md", &skill_md("alpha"));
        let server =
            pack_server(&json!({ "skills": [{ "name": "alpha", "files": ["SKILL.md"] }] }));
        server.route(
            "/pack/alpha/SKILL.md",
            Reply::Redirect(other.url("/alpha/SKILL.md")),
        );
        let home = Home::new();
        let net = Net::new();
        let error = home
            .skills(&net)
            .install(&skills::install::Request::new(server.url(PACK)))
            .await
            .unwrap_err();
        assert_eq!(error.kind(), "refused_url", "{error}");
        assert!(error.to_string().contains("left the origin"), "{error}");
        home.assert_untouched("cross-origin redirect");
    });
}

/// Percent-encoded dots are `..` to a URL parser: a file named `%2e%2e/...` must not make the
/// installer fetch from outside the skill's folder on the server.
#[test]
fn an_encoded_traversal_stays_inside_the_skill_folder() {
    isolated(|| async {
        let entry = json!({
            "name": "alpha",
            "files": ["SKILL.md", "%2e%2e/%2e%2e/private/notes.md"],
        });
        let server = pack_server(&json!({ "skills": [entry] }));
        server.text("/private/notes.md", "not part of the pack\n");
        let home = Home::new();
        let net = Net::new();
        let result = home
            .skills(&net)
            .install(&skills::install::Request::new(server.url(PACK)))
            .await;
        let fetched = targets(&server);
        assert_eq!(
            fetched,
            [
                PACK,
                "/pack/alpha/SKILL.md",
                "/pack/alpha/%252e%252e/%252e%252e/private/notes.md",
            ],
            "the installer fetched outside /pack/alpha/ ({result:?})"
        );
        // The server has no file of that name, so the pack is incomplete and nothing is written.
        assert_eq!(result.unwrap_err().kind(), "http_status");
        home.assert_untouched("encoded traversal");
    });
}

fn well_known_entry(name: &str, url: &str, digest: Option<String>) -> Value {
    let mut entry = json!({
        "name": name,
        "description": format!("The {name} skill."),
        "type": "skill-md",
        "url": url,
    });
    if let Some(digest) = digest {
        entry["digest"] = json!(digest);
    }
    entry
}

#[test]
fn a_well_known_index_is_checked_entry_by_entry() {
    isolated(|| async {
        let body = skill_md("gamma");
        let good = format!("sha256:{}", sha256(body.as_bytes()));
        let cases = [
            (
                "digest mismatch",
                well_known_entry(
                    "gamma",
                    "/skills/gamma/SKILL.md",
                    Some(format!("sha256:{}", "ab".repeat(32))),
                ),
                "invalid_package",
                "the digest of 'gamma' does not match the index",
                vec![WELL_KNOWN, "/skills/gamma/SKILL.md"],
            ),
            (
                "no digest",
                well_known_entry("gamma", "/skills/gamma/SKILL.md", None),
                "invalid_package",
                "'gamma' has no sha256 digest",
                vec![WELL_KNOWN],
            ),
            (
                "another algorithm",
                well_known_entry(
                    "gamma",
                    "/skills/gamma/SKILL.md",
                    Some(format!("md5:{}", "ab".repeat(16))),
                ),
                "invalid_package",
                "'gamma' has no sha256 digest",
                vec![WELL_KNOWN],
            ),
            (
                "metadata address",
                well_known_entry(
                    "gamma",
                    "https://169.254.169.254/latest/meta-data",
                    Some(good.clone()),
                ),
                "refused_url",
                "169.254.169.254 is link-local",
                vec![WELL_KNOWN],
            ),
            (
                "plain http elsewhere",
                well_known_entry(
                    "gamma",
                    "http://skills.example.com/SKILL.md",
                    Some(good.clone()),
                ),
                "refused_url",
                "only https URLs are fetched",
                vec![WELL_KNOWN],
            ),
            (
                "file URL",
                well_known_entry("gamma", "file:///etc/passwd", Some(good.clone())),
                "refused_url",
                "only https URLs are fetched, not file:",
                vec![WELL_KNOWN],
            ),
            (
                "only other types",
                json!({ "name": "gamma", "type": "archive", "url": "/gamma.zip" }),
                "invalid_package",
                "no installable (skill-md) entries",
                vec![WELL_KNOWN],
            ),
        ];
        for (case, entry, kind, words, fetched) in cases {
            let server = Server::start().unwrap();
            server.text(WELL_KNOWN, &json!({ "skills": [entry] }).to_string());
            server.text("/skills/gamma/SKILL.md", &body);
            let home = Home::new();
            let net = Net::new();
            let error = home
                .skills(&net)
                .install(&skills::install::Request::new(server.url(WELL_KNOWN)))
                .await
                .unwrap_err();
            assert_eq!(error.kind(), kind, "{case}: {error}");
            assert!(error.to_string().contains(words), "{case}: {error}");
            assert_eq!(targets(&server), fetched, "{case}");
            assert!(net.resolver.names().is_empty(), "{case}");
            home.assert_untouched(case);
        }

        // The control: the same index with the right digest installs.
        let server = Server::start().unwrap();
        let entry = well_known_entry("gamma", "/skills/gamma/SKILL.md", Some(good));
        server.text(WELL_KNOWN, &json!([entry]).to_string());
        server.text("/skills/gamma/SKILL.md", &body);
        let home = Home::new();
        let outcomes = home
            .skills(&Net::new())
            .install(&skills::install::Request::new(server.url(WELL_KNOWN)))
            .await
            .unwrap();
        assert_eq!(outcomes[0].slug, "gamma");
        assert!(home.root().join("gamma/SKILL.md").is_file());
    });
}
