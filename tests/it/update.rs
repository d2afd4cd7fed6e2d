//! `skills check` and `skills update` through the binary (09 §Updates): skills installed from
//! the loopback fixture server, whose replies are then changed (`Server::route` again), checked
//! and updated from the provenance each install recorded; local edits are protected.

use serde_json::Value;
use skills_tests::http::{Reply, Server};
use skills_types::files::PROVENANCE_FILE;

use super::install::{Skill, content, files_of, install_json, read_json, run, serve_pack, sha256};
use crate::discovery::Tree;

fn check(tree: &Tree, args: &[&str]) -> Vec<Value> {
    let mut full = vec!["--json", "check"];
    full.extend_from_slice(args);
    let document = run(tree, &full).json();
    document["skills"].as_array().unwrap().clone()
}

fn update(tree: &Tree, args: &[&str]) -> (Option<i32>, Vec<Value>) {
    let mut full = vec!["--json", "update"];
    full.extend_from_slice(args);
    let result = run(tree, &full);
    let document: Value =
        serde_json::from_str(&result.stdout).unwrap_or_else(|error| panic!("{error}: {result:?}"));
    (result.code, document["updated"].as_array().unwrap().clone())
}

fn by_slug<'a>(entries: &'a [Value], slug: &str) -> &'a Value {
    entries
        .iter()
        .find(|entry| entry["slug"] == slug || entry["check"]["slug"] == slug)
        .unwrap_or_else(|| panic!("no {slug} in {entries:?}"))
}

#[test]
fn a_changed_skill_md_is_seen_by_check_and_installed_by_update() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let first = Skill::new("notes", "Takes notes.", "Version one.", &[]);
    server.route("/notes/SKILL.md", Reply::Ok(first.definition().to_vec()));
    let url = server.url("/notes/SKILL.md");
    install_json(&tree, &[&url]);
    let dir = tree.home.join(".agents/skills/notes");

    let checks = check(&tree, &[]);
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert_eq!(checks[0]["update_available"], false);
    assert_eq!(checks[0]["locally_modified"], false);
    assert_eq!(checks[0]["source"], url);
    let (code, outcomes) = update(&tree, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(outcomes[0]["action"], "current");

    // The source changes: check says so, update installs it, and check is quiet again.
    let second = Skill::new("notes", "Takes notes.", "Version two.", &[]);
    server.route("/notes/SKILL.md", Reply::Ok(second.definition().to_vec()));
    let before = files_of(&dir);
    let checks = check(&tree, &["notes"]);
    assert_eq!(checks[0]["update_available"], true);
    assert_eq!(files_of(&dir), before, "check writes nothing");

    let (code, outcomes) = update(&tree, &[]);
    assert_eq!(code, Some(0), "{outcomes:?}");
    assert_eq!(outcomes[0]["action"], "updated");
    assert_eq!(outcomes[0]["installed"]["replaced"], true);
    assert_eq!(content(files_of(&dir)), second.files);
    let provenance = read_json(&dir.join(PROVENANCE_FILE));
    assert_eq!(provenance["source_url"], url);
    assert_eq!(provenance["kind"], "skill-md");
    assert_eq!(
        provenance["sha256"]["SKILL.md"],
        sha256(second.definition())
    );
    let checks = check(&tree, &[]);
    assert_eq!(checks[0]["update_available"], false);
}

#[test]
fn local_changes_are_kept_unless_forced_and_only_named_skills_move() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let old = [
        Skill::new(
            "csv-tools",
            "Cleans CSV.",
            "One.",
            &[("scripts/clean.py", "print(1)\n")],
        ),
        Skill::new("release-notes", "Writes release notes.", "One.", &[]),
    ];
    let url = serve_pack(&server, "/pack", &old, "1.0.0");
    install_json(&tree, &[&url]);
    let root = tree.home.join(".agents/skills");
    let edited = root.join("csv-tools/scripts/clean.py");
    std::fs::write(&edited, "print('mine')\n").unwrap();

    let new = [
        Skill::new(
            "csv-tools",
            "Cleans CSV.",
            "Two.",
            &[("scripts/clean.py", "print(2)\n")],
        ),
        Skill::new("release-notes", "Writes release notes.", "Two.", &[]),
    ];
    serve_pack(&server, "/pack", &new, "1.1.0");
    let checks = check(&tree, &[]);
    let csv = by_slug(&checks, "csv-tools");
    assert_eq!(csv["locally_modified"], true);
    assert_eq!(csv["update_available"], true);
    assert_eq!(csv["installed_version"], "1.0.0");
    assert_eq!(csv["available_version"], "1.1.0");
    assert_eq!(by_slug(&checks, "release-notes")["locally_modified"], false);

    // Only the named skill is considered.
    let (code, outcomes) = update(&tree, &["release-notes"]);
    assert_eq!(code, Some(0));
    assert_eq!(outcomes.len(), 1);
    assert_eq!(content(files_of(&root.join("release-notes"))), new[1].files);
    assert_eq!(
        std::fs::read_to_string(root.join("csv-tools/SKILL.md")).unwrap(),
        String::from_utf8(old[0].definition().to_vec()).unwrap()
    );

    // The edited one is kept, and the run says why.
    let before = files_of(&root.join("csv-tools"));
    let (code, outcomes) = update(&tree, &[]);
    assert_eq!(code, Some(1));
    let csv = by_slug(&outcomes, "csv-tools");
    assert_eq!(csv["action"], "kept_local_changes");
    assert!(
        csv["message"].as_str().unwrap().contains("--force"),
        "{csv}"
    );
    assert_eq!(by_slug(&outcomes, "release-notes")["action"], "current");
    assert_eq!(files_of(&root.join("csv-tools")), before, "nothing written");
    let human = run(&tree, &["update"]);
    assert_eq!(human.code, Some(1));
    assert!(human.stderr.contains("changed locally"), "{human:?}");

    let (code, outcomes) = update(&tree, &["csv-tools", "--force"]);
    assert_eq!(code, Some(0), "{outcomes:?}");
    assert_eq!(outcomes[0]["action"], "updated");
    assert_eq!(content(files_of(&root.join("csv-tools"))), new[0].files);
    let provenance = read_json(&root.join("csv-tools").join(PROVENANCE_FILE));
    assert_eq!(provenance["version"], "1.1.0");
    assert_eq!(provenance["kind"], "pack");
}

#[test]
fn a_failing_source_or_an_unknown_name_changes_nothing() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skill = Skill::new("notes", "Takes notes.", "One.", &[]);
    server.route("/notes/SKILL.md", Reply::Ok(skill.definition().to_vec()));
    install_json(&tree, &[&server.url("/notes/SKILL.md")]);
    let dir = tree.home.join(".agents/skills/notes");
    let before = files_of(&dir);

    server.route("/notes/SKILL.md", Reply::Status(500));
    let result = run(&tree, &["--json", "check"]);
    assert_eq!(result.code, Some(1), "{result:?}");
    let document: Value = serde_json::from_str(&result.stdout).unwrap();
    assert!(
        document["skills"][0]["problem"]
            .as_str()
            .unwrap()
            .contains("500"),
        "{document}"
    );
    let (code, outcomes) = update(&tree, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(outcomes[0]["action"], "failed");
    assert_eq!(files_of(&dir), before);

    let result = run(&tree, &["update", "no-such-skill"]);
    assert_ne!(result.code, Some(0), "{result:?}");
    assert!(result.stderr.contains("no-such-skill"), "{result:?}");
    assert_eq!(files_of(&dir), before);
}

/// A skill installed from the registry updates from the download its provenance records and
/// stays a registry install: its `registry` record is written again unchanged.
#[test]
fn a_registry_install_updates_and_keeps_its_registry_record() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    server.text(
        "/catalog.json",
        &serde_json::json!([{
            "name": "@data/csv-profile",
            "description": "Profiles a CSV file.",
            "source": "community",
            "category": "data"
        }])
        .to_string(),
    );
    let path = "/skills/data/data--csv-profile/SKILL.md";
    let first = Skill::new("csv-profile", "Profiles a CSV file.", "One.", &[]);
    server.route(path, Reply::Ok(first.definition().to_vec()));
    let catalog = server.url("/catalog.json");
    let base = server.url("/skills");
    let env = [
        ("SKILLS_REGISTRY_CATALOG_URL", catalog.as_str()),
        ("SKILLS_REGISTRY_DOWNLOAD_BASE_URL", base.as_str()),
        (super::install::ALLOW_LOCAL_HTTP, "1"),
    ];
    tree.run_with(&["registry", "install", "data/csv-profile"], &env)
        .ok();
    let dir = tree.home.join(".agents/skills/csv-profile");
    let before = read_json(&dir.join(PROVENANCE_FILE));

    let second = Skill::new("csv-profile", "Profiles a CSV file.", "Two.", &[]);
    server.route(path, Reply::Ok(second.definition().to_vec()));
    let checks = tree.run_with(&["--json", "check"], &env).json();
    assert_eq!(checks["skills"][0]["update_available"], true, "{checks}");
    let updated = tree.run_with(&["--json", "update"], &env).json();
    assert_eq!(updated["updated"][0]["action"], "updated", "{updated}");
    assert_eq!(content(files_of(&dir)), second.files);
    let after = read_json(&dir.join(PROVENANCE_FILE));
    assert_eq!(after["kind"], "registry");
    assert_eq!(after["registry"], before["registry"]);
    assert_eq!(after["source_url"], before["source_url"]);
}

/// A skill its source still holds but can no longer give (a file over the per-file limit
/// arrived in it) is named as such, with why, never as gone; its neighbour from the same
/// source is still current, and nothing is written.
#[test]
fn a_skill_its_source_still_holds_but_cannot_give_is_not_called_gone() {
    let tree = Tree::new();
    let source = tree.base.join("source");
    for (name, body) in [("alpha", "First."), ("beta", "Second.")] {
        let dir = source.join("skills").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n"),
        )
        .unwrap();
    }
    install_json(&tree, &[source.to_str().unwrap()]);
    let installed = tree.home.join(".agents/skills/beta");
    let before = files_of(&installed);

    let oversized = vec![b'x'; 1024 * 1024 + 1];
    std::fs::write(source.join("skills/beta/data.bin"), oversized).unwrap();
    let result = run(&tree, &["--json", "check"]);
    assert_eq!(result.code, Some(1), "{result:?}");
    let document: Value = serde_json::from_str(&result.stdout).unwrap();
    let skills = document["skills"].as_array().unwrap();
    let beta = by_slug(skills, "beta")["problem"]
        .as_str()
        .unwrap_or_default();
    assert!(
        beta.contains("still offers 'beta'") && beta.contains("data.bin"),
        "{document}"
    );
    assert!(!beta.contains("no longer offers"), "{beta}");
    assert!(by_slug(skills, "alpha")["problem"].is_null(), "{document}");
    let (code, _) = update(&tree, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(files_of(&installed), before, "nothing is written");
}
