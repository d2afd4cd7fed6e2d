//! `skills registry` through the binary against ClawHub- and skillhub-shaped loopback servers
//! (09 §Registries), the kind chosen by the home `skills.toml`'s `[registry]`: browse with
//! cursor pages, search, install of a multi-file zip with every file present, a
//! malware-blocked skill refused even with `--force` and leaving the root as it was, a
//! skillhub install whose fingerprint is checked, and the token sent to the registry only.

use std::io::Write as _;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use skills_tests::http::{Reply, Server};

use crate::discovery::Tree;

const ALLOW_LOCAL_HTTP: &str = "SKILLS_INSTALL_ALLOW_LOCAL_HTTP";
const TOKEN_VAR: &str = "SKILLS_REGISTRY_TOKEN";
const TOKEN: &str = "clh_binary-token-77";

fn files() -> Vec<(&'static str, &'static [u8])> {
    vec![
        (
            "SKILL.md",
            b"---\nname: pdf-tools\ndescription: Fill and merge PDF forms.\n---\n# PDF tools\n",
        ),
        ("scripts/fill.sh", b"#!/bin/sh\necho filling\n"),
        ("reference/forms.md", b"# Forms\n"),
    ]
}

fn zip() -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files() {
        writer.start_file(name, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

fn json_reply(value: &Value) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
        body: value.to_string().into_bytes(),
    }
}

fn item(slug: &str) -> Value {
    json!({
        "slug": slug, "displayName": slug, "summary": format!("The {slug} skill."),
        "tags": {"latest": "1.0.0"}, "stats": {}, "createdAt": 0, "updatedAt": 0,
        "latestVersion": {"version": "1.0.0", "createdAt": 0, "changelog": ""},
        "metadata": null
    })
}

fn clawhub(server: &Server, moderation: &Value) {
    server.route(
        "/.well-known/clawhub.json",
        json_reply(&json!({"apiBase": server.url(""), "minCliVersion": "0.0.5"})),
    );
    server.route(
        "/api/v1/skills",
        Reply::Sequence(vec![
            json_reply(&json!({"items": [item("pdf-tools")], "nextCursor": "c2"})),
            json_reply(&json!({"items": [item("gifgrep")], "nextCursor": null})),
        ]),
    );
    server.route(
        "/api/v1/search",
        json_reply(
            &json!({"results": [{"score": 0.9, "slug": "pdf-tools", "displayName": "PDF",
            "summary": "Fill and merge PDF forms.", "version": "1.0.0", "updatedAt": 0}]}),
        ),
    );
    server.route(
        "/api/v1/skills/pdf-tools",
        json_reply(&json!({
            "skill": item("pdf-tools"),
            "latestVersion": {"version": "1.0.0", "createdAt": 0, "changelog": ""},
            "metadata": null,
            "owner": {"handle": "acme", "userId": "u1", "displayName": "Acme", "image": null},
            "moderation": moderation
        })),
    );
    server.route(
        "/api/v1/download",
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".to_owned(), "application/zip".to_owned())],
            body: zip(),
        },
    );
}

fn configured(kind: &str, server: &Server) -> Tree {
    let tree = Tree::new();
    tree.user_config(&format!(
        "[registry]\nkind = \"{kind}\"\nurl = \"{}\"\n",
        server.url("/")
    ));
    tree
}

fn env() -> Vec<(&'static str, &'static str)> {
    vec![(ALLOW_LOCAL_HTTP, "1"), (TOKEN_VAR, TOKEN)]
}

#[test]
fn clawhub_browse_search_and_install_through_the_binary() {
    let server = Server::start().unwrap();
    clawhub(&server, &Value::Null);
    let tree = configured("clawhub", &server);

    let browse = tree
        .run_with(&["--json", "registry", "browse"], &env())
        .json();
    let names: Vec<&str> = browse["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["gifgrep", "pdf-tools"]);

    let search = tree.run_with(&["registry", "search", "pdf"], &env());
    assert!(search.ok().contains("pdf-tools"), "{search:?}");

    let install = tree.run_with(&["registry", "install", "pdf-tools"], &env());
    install.ok();
    let root = tree.home.join(".agents/skills/pdf-tools");
    for (name, bytes) in files() {
        assert_eq!(std::fs::read(root.join(name)).unwrap(), bytes, "{name}");
    }
    // Every request went to the registry's own origin, with the token; none printed it.
    assert!(
        server
            .hits()
            .iter()
            .all(|hit| hit.header("authorization") == Some(format!("Bearer {TOKEN}").as_str()))
    );
    assert!(!install.stdout.contains(TOKEN) && !install.stderr.contains(TOKEN));
}

#[test]
fn clawhub_malware_is_refused_through_the_binary_even_with_force() {
    let server = Server::start().unwrap();
    clawhub(
        &server,
        &json!({"isSuspicious": false, "isMalwareBlocked": true, "verdict": "malicious",
                "reasonCodes": ["malware.known_bad"], "summary": null,
                "engineVersion": "v2.0.0", "updatedAt": 0}),
    );
    let tree = configured("clawhub", &server);
    let run = tree.run_with(&["registry", "install", "--force", "pdf-tools"], &env());
    assert_ne!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("malware.known_bad"), "{}", run.stderr);
    assert!(run.stderr.contains("never installed"), "{}", run.stderr);
    assert!(!tree.home.join(".agents/skills/pdf-tools").exists());
    assert!(
        !server
            .targets()
            .iter()
            .any(|target| target.starts_with("/api/v1/download"))
    );
}

#[test]
fn skillhub_install_checks_the_fingerprint_through_the_binary() {
    let server = Server::start().unwrap();
    let mut lines: Vec<String> = files()
        .iter()
        .map(|(path, bytes)| format!("{path}:{:x}\n", Sha256::digest(bytes)))
        .collect();
    lines.sort();
    let fingerprint = format!("sha256:{:x}", Sha256::digest(lines.concat().as_bytes()));
    let resolve = |fingerprint: &str| {
        json_reply(&json!({
            "code": 0, "msg": "Success", "timestamp": "2026-03-15T06:00:00Z", "requestId": "r1",
            "data": {"skillId": 1, "namespace": "team", "slug": "pdf-tools", "version": "1.2.0",
                     "versionId": 2, "fingerprint": fingerprint, "matched": null,
                     "downloadUrl": "/api/v1/skills/team/pdf-tools/versions/1.2.0/download"}
        }))
    };
    server.route(
        "/api/v1/skills/team/pdf-tools/versions/1.2.0/download",
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".to_owned(), "application/zip".to_owned())],
            body: zip(),
        },
    );
    let tree = configured("skillhub", &server);

    server.route(
        "/api/v1/skills/team/pdf-tools/resolve",
        resolve(&format!("sha256:{}", "0".repeat(64))),
    );
    let refused = tree.run_with(&["registry", "install", "@team/pdf-tools"], &env());
    assert_ne!(refused.code, Some(0), "{refused:?}");
    assert!(refused.stderr.contains("fingerprint"), "{}", refused.stderr);
    assert!(!tree.home.join(".agents/skills/pdf-tools").exists());

    server.route(
        "/api/v1/skills/team/pdf-tools/resolve",
        resolve(&fingerprint),
    );
    let installed = tree.run_with(
        &["--json", "registry", "install", "@team/pdf-tools"],
        &env(),
    );
    installed.json();
    let root = tree.home.join(".agents/skills/pdf-tools");
    for (name, bytes) in files() {
        assert_eq!(std::fs::read(root.join(name)).unwrap(), bytes, "{name}");
    }
}

#[test]
fn registry_show_prints_the_entry_and_clawhubs_moderation_through_the_binary() {
    let server = Server::start().unwrap();
    clawhub(
        &server,
        &json!({"isSuspicious": true, "isMalwareBlocked": false, "verdict": "suspicious",
                "reasonCodes": ["suspicious.dynamic_code_execution"], "summary": null,
                "engineVersion": "v2.0.0", "updatedAt": 0}),
    );
    let tree = configured("clawhub", &server);
    let run = tree.run_with(&["registry", "show", "pdf-tools"], &env());
    let stdout = run.ok();
    assert!(stdout.contains("name         pdf-tools\n"), "{stdout}");
    assert!(stdout.contains("version      1.0.0\n"), "{stdout}");
    assert!(stdout.contains("author       acme\n"), "{stdout}");
    assert!(
        stdout.contains(&format!("page         {}\n", server.url("/acme/pdf-tools"))),
        "{stdout}"
    );
    assert!(
        run.stderr
            .contains("warning: ClawHub flags 'pdf-tools' as suspicious"),
        "{}",
        run.stderr
    );
    let details = tree
        .run_with(&["--json", "registry", "show", "pdf-tools"], &env())
        .json();
    assert_eq!(details["entry"]["name"], "pdf-tools");
    assert_eq!(details["notes"].as_array().unwrap().len(), 1);
    assert!(
        !server
            .targets()
            .iter()
            .any(|target| target.starts_with("/api/v1/download"))
    );
}
