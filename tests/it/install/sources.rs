//! The three URL forms of 03 §Sources end to end: a single `SKILL.md`, a pack `index.json` and
//! a site's well-known index, each installed by the binary from the loopback fixture and then
//! read back from disk, from `.skill-source.json`, from the install record and through
//! `skills list`.

use serde_json::{Value, json};
use skills_tests::http::{Reply, Server};
use skills_types::files::{LOCK_FILE, PROVENANCE_FILE};

use super::{
    Skill, content, files_of, install_json, is_rfc3339_utc, keys, listed, pack_requests, read_json,
    run, serve_pack, sha256,
};
use crate::discovery::{Place, Tree, text};

/// The fields of an install outcome (the RPC result type `InstallOutcome`).
const OUTCOME_FIELDS: [&str; 16] = [
    "already_installed",
    "audit",
    "bytes",
    "description",
    "files",
    "kind",
    "links",
    "new_skills",
    "path",
    "replaced",
    "scope",
    "sha256",
    "slug",
    "source",
    "version",
    "warnings",
];

/// A package digest as outcomes and the lock file spell it.
fn is_package_digest(value: &Value) -> bool {
    value.as_str().is_some_and(|text| {
        text.strip_prefix("sha256:")
            .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
    })
}

/// The two skills of the pack tests: one with bundled files, one in a sub-folder.
pub(crate) fn pack_skills() -> Vec<Skill> {
    vec![
        Skill::new(
            "csv-tools",
            "Cleans and reshapes CSV files.",
            "Use the bundled format notes.",
            &[
                ("references/format.md", "# Format\n\nComma separated.\n"),
                ("scripts/clean.py", "print('clean')\n"),
            ],
        ),
        Skill::new(
            "release-notes",
            "Writes release notes from a changelog.",
            "Group entries by kind.",
            &[],
        ),
    ]
}

#[test]
fn a_single_skill_md_url_installs_one_skill_with_its_provenance() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skill = Skill::new("pdf-tools", "Fills PDF forms.", "Open the form first.", &[]);
    server.route(
        "/skills/pdf-tools/SKILL.md",
        Reply::Ok(skill.definition().to_vec()),
    );
    // A query string may carry a secret: it is fetched with it, but recorded and shown without.
    let url = server.url("/skills/pdf-tools/SKILL.md?token=hunter2");
    let shown = format!("{}?…", server.url("/skills/pdf-tools/SKILL.md"));
    let document = run(&tree, &["--json", "install", &url]);
    let outcomes = document.json()["installed"].as_array().unwrap().clone();
    let dir = tree.root(Place::UserAgents).join("pdf-tools");

    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    let outcome = &outcomes[0];
    assert_eq!(keys(outcome), OUTCOME_FIELDS);
    assert!(is_package_digest(&outcome["sha256"]), "{outcome}");
    // The audit's verdict: nothing found, by this build's rules, over these files.
    let verdict = &outcome["audit"];
    assert_eq!(
        keys(verdict),
        [
            "decision",
            "digest",
            "findings_count",
            "max_severity",
            "rules_version"
        ]
    );
    assert_eq!(verdict["decision"], "pass");
    assert_eq!(verdict["max_severity"], "SAFE");
    assert_eq!(verdict["findings_count"], 0);
    assert_eq!(verdict["rules_version"], skills::audit::RULES_VERSION);
    assert_eq!(
        outcome,
        &json!({
            "audit": verdict,
            "slug": "pdf-tools",
            "path": text(&dir),
            "scope": "user",
            "files": 1,
            "bytes": skill.definition().len(),
            "sha256": outcome["sha256"],
            "new_skills": ["pdf-tools"],
            "already_installed": false,
            "replaced": false,
            "warnings": [],
            "source": shown,
            "kind": "skill-md",
            "description": "Fills PDF forms.",
            "version": null,
            "links": [],
        })
    );
    assert_eq!(
        server.targets(),
        ["/skills/pdf-tools/SKILL.md?token=hunter2"]
    );

    let on_disk = files_of(&dir);
    assert_eq!(content(on_disk.clone()), skill.files);
    let provenance = read_json(&dir.join(PROVENANCE_FILE));
    assert!(
        is_rfc3339_utc(provenance["installed_at"].as_str().unwrap()),
        "{provenance}"
    );
    assert_eq!(
        provenance,
        json!({
            "source_url": shown,
            "kind": "skill-md",
            "installed_at": provenance["installed_at"],
            "sha256": skill.digests(),
            "version": null,
            "resolved_url": shown,
            "digest": format!("sha256:{}", sha256(skill.definition())),
            "audit": verdict,
        })
    );
    assert_eq!(
        read_json(&tree.root(Place::UserAgents).join(LOCK_FILE)),
        json!({
            "version": 1,
            "skills": {
                "pdf-tools": {
                    "source_url": shown,
                    "kind": "skill-md",
                    "sha256": outcome["sha256"],
                    "version": null,
                    "resolved_url": shown,
                    "digest": format!("sha256:{}", sha256(skill.definition())),
                    "audit": verdict,
                }
            }
        })
    );
    for place in [&document.stdout, &document.stderr] {
        assert!(!place.contains("hunter2"), "{document:?}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for path in ["SKILL.md", PROVENANCE_FILE] {
            let mode = std::fs::metadata(dir.join(path))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o7777, 0o644, "{path}: {mode:o}");
        }
    }

    let listing = listed(&tree);
    assert_eq!(
        listing.into_iter().collect::<Vec<_>>(),
        [(
            "pdf-tools".to_owned(),
            ("user".to_owned(), text(&dir.join("SKILL.md")))
        )]
    );
}

#[test]
fn a_pack_installs_every_skill_with_its_bundled_files() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skills = pack_skills();
    let url = serve_pack(&server, "/packs/data", &skills, "2.1.0");
    let root = tree.root(Place::UserAgents);

    let installed = run(&tree, &["install", &url]);
    assert_eq!(
        installed.ok(),
        format!(
            "installed csv-tools (user scope, 3 files, {})\n\
             installed release-notes (user scope, 1 file, {})\n",
            root.join("csv-tools").display(),
            root.join("release-notes").display()
        )
    );
    assert_eq!(installed.stderr, "", "{installed:?}");
    // Every file came from beside the index, in the order the index lists them.
    assert_eq!(server.targets(), pack_requests("/packs/data", &skills));

    let lock = read_json(&root.join(LOCK_FILE));
    assert_eq!(keys(&lock["skills"]), ["csv-tools", "release-notes"]);
    for skill in &skills {
        let dir = root.join(&skill.name);
        assert_eq!(content(files_of(&dir)), skill.files, "{}", skill.name);
        let provenance = read_json(&dir.join(PROVENANCE_FILE));
        assert_eq!(provenance["kind"], "pack");
        assert_eq!(provenance["version"], "2.1.0");
        assert_eq!(provenance["source_url"], url.as_str());
        assert_eq!(provenance["sha256"], skill.digests(), "{}", skill.name);
        let entry = &lock["skills"][&skill.name];
        assert_eq!(
            keys(entry),
            [
                "audit",
                "kind",
                "resolved_url",
                "sha256",
                "source_url",
                "version"
            ]
        );
        assert_eq!(entry["kind"], "pack");
        assert_eq!(entry["version"], "2.1.0");
        assert_eq!(entry["source_url"], url.as_str());
        assert!(is_package_digest(&entry["sha256"]), "{entry}");
    }
    let listing = listed(&tree);
    assert_eq!(
        listing.keys().collect::<Vec<_>>(),
        ["csv-tools", "release-notes"]
    );
    assert!(listing.values().all(|(scope, _)| scope == "user"));
}

#[test]
fn a_well_known_index_installs_its_skill_md_entries_with_verified_digests() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skills = [
        Skill::new("code-review", "Reviews a diff.", "Read it twice.", &[]),
        Skill::new("commit-message", "Writes commit messages.", "Short.", &[]),
    ];
    let mut entries = Vec::new();
    for skill in &skills {
        let path = format!("/skills/{}/SKILL.md", skill.name);
        server.route(&path, Reply::Ok(skill.definition().to_vec()));
        entries.push(json!({
            "name": skill.name,
            "description": "From the site.",
            "type": "skill-md",
            "url": server.url(&path),
            "digest": format!("sha256:{}", sha256(skill.definition())),
        }));
    }
    entries.push(json!({
        "name": "bundle",
        "description": "An archive.",
        "type": "archive",
        "url": server.url("/skills/bundle.tar.gz"),
        "digest": "sha256:00",
    }));
    let index = "/.well-known/agent-skills/index.json";
    server.text(index, &json!({ "skills": entries }).to_string());
    let url = server.url(index);

    let outcomes = install_json(&tree, &[&url]);
    let root = tree.root(Place::UserAgents);
    assert_eq!(
        outcomes
            .iter()
            .map(|outcome| outcome["slug"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["code-review", "commit-message"]
    );
    assert_eq!(
        outcomes[0]["warnings"],
        json!([
            "skipped 'bundle': entries of type 'archive' are not installable from an index \
             without $schema"
        ])
    );
    assert_eq!(outcomes[1]["warnings"], json!([]));
    assert!(
        !server
            .targets()
            .iter()
            .any(|target| target.contains("bundle")),
        "an entry of another type is never fetched: {:?}",
        server.targets()
    );
    let lock = read_json(&root.join(LOCK_FILE));
    for (skill, outcome) in skills.iter().zip(&outcomes) {
        let dir = root.join(&skill.name);
        assert_eq!(outcome["path"], text(&dir));
        assert_eq!(outcome["new_skills"], json!([skill.name]));
        assert_eq!(content(files_of(&dir)), skill.files);
        let provenance = read_json(&dir.join(PROVENANCE_FILE));
        assert_eq!(provenance["kind"], "well-known");
        assert_eq!(provenance["source_url"], url.as_str());
        assert_eq!(provenance["sha256"], skill.digests());
        assert_eq!(lock["skills"][&skill.name]["kind"], "well-known");
        assert_eq!(lock["skills"][&skill.name]["sha256"], outcome["sha256"]);
    }

    // A digest that does not match refuses the whole index; nothing is written.
    let other = Server::start().unwrap();
    let tampered = Skill::new("tampered", "Not what was signed.", "Changed.", &[]);
    other.route(
        "/skills/tampered/SKILL.md",
        Reply::Ok(tampered.definition().to_vec()),
    );
    other.text(
        index,
        &json!([{
            "name": "tampered",
            "description": "x",
            "type": "skill-md",
            "url": other.url("/skills/tampered/SKILL.md"),
            "digest": format!("sha256:{}", sha256(b"the signed bytes")),
        }])
        .to_string(),
    );
    let before = super::snapshot(&root);
    let refused = run(&tree, &["--json", "install", &other.url(index)]);
    assert_eq!(refused.code, Some(1), "{refused:?}");
    let error = serde_json::from_str::<Value>(&refused.stdout).unwrap();
    assert_eq!(error["error"]["kind"], "invalid_package", "{error}");
    assert!(
        refused
            .stderr
            .contains("the digest of 'tampered' does not match the index"),
        "{refused:?}"
    );
    assert_eq!(super::snapshot(&root), before);
}
