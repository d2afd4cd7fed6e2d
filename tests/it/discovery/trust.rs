//! Workspace trust (02 §Scopes and roots, **Trust**): an untrusted workspace's `project`,
//! `legacy` and `profile` roots are skipped and the listing says so, with the hint to run
//! `skills trust`; `skills trust` makes them load and `skills trust --revoke` undoes it. The
//! workspace's own `skills.toml` is read only once it is trusted.

use serde_json::json;
use skills::catalog::Root;
use skills::{DiagnosticCode, Severity, SkillScope};

use super::{PROFILE, Place, Tree, json_names, text};

/// A user skill, and one skill in every workspace root.
fn tree() -> Tree {
    let tree = Tree::new();
    tree.skill(Place::UserOpenhuman, "u", "user-skill", "From the home.");
    tree.skill(
        Place::ProjectOpenhuman,
        "p",
        "project-skill",
        "From the workspace.",
    );
    tree.skill(
        Place::ProjectClaude,
        "c",
        "claude-skill",
        "From the workspace too.",
    );
    tree.skill(Place::Legacy, "l", "legacy-skill", "From the old folder.");
    tree.skill(Place::Profile, "d", "profile-skill", "From a profile.");
    tree
}

fn scopes(listing: &serde_json::Value) -> Vec<(String, String)> {
    super::array(listing, "skills")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["scope"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn an_untrusted_workspace_skips_project_legacy_and_profile_until_trusted() {
    let tree = tree();
    let skipped = [
        Root {
            scope: SkillScope::Profile,
            path: tree.root(Place::Profile),
            interop: false,
        },
        Root {
            scope: SkillScope::Project,
            path: tree.root(Place::ProjectOpenhuman),
            interop: false,
        },
        Root {
            scope: SkillScope::Project,
            path: tree.root(Place::ProjectClaude),
            interop: true,
        },
        Root {
            scope: SkillScope::Legacy,
            path: tree.root(Place::Legacy),
            interop: false,
        },
    ];

    // The library.
    let library = tree.library(true);
    assert!(!library.is_trusted());
    let catalog = library.discover().unwrap();
    assert!(!catalog.trusted);
    let names: Vec<_> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["user-skill"]);
    // Only roots that exist are listed (`<ws>/.agents/skills` does not).
    assert_eq!(catalog.untrusted_roots, skipped);
    assert!(
        catalog
            .roots
            .iter()
            .all(|root| root.scope == SkillScope::User)
    );
    let untrusted: Vec<_> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::UntrustedWorkspace)
        .collect();
    assert_eq!(untrusted.len(), 1, "{:?}", catalog.diagnostics);
    assert_eq!(untrusted[0].severity, Severity::Info);
    assert_eq!(untrusted[0].path.as_deref(), Some(tree.workspace.as_path()));
    for root in &skipped {
        assert!(
            untrusted[0].message.contains(&text(&root.path)),
            "{}",
            untrusted[0].message
        );
    }
    assert!(untrusted[0].message.contains("skills trust"));
    let listing = library.list(&Default::default()).unwrap();
    assert!(!listing.trusted);
    assert_eq!(listing.untrusted_roots, skipped);

    // `skills list`: the user skill only, and a note with the hint on stderr.
    let run = tree.run(&["list", "--profile", PROFILE]);
    assert_eq!(run.ok(), "user-skill  user     From the home.\n");
    assert!(
        run.stderr
            .contains("note: this workspace is not trusted, so its project skills were skipped"),
        "{}",
        run.stderr
    );
    for root in &skipped {
        assert!(run.stderr.contains(&text(&root.path)), "{}", run.stderr);
    }
    assert!(
        run.stderr.contains("hint: run 'skills trust"),
        "{}",
        run.stderr
    );
    // `--quiet` drops the note; `--json` carries the same facts as data.
    let quiet = tree.run(&["list", "-q", "--profile", PROFILE]);
    assert_eq!(quiet.ok(), run.stdout);
    assert_eq!(quiet.stderr, "");
    let json = tree.run(&["list", "--json", "--profile", PROFILE]);
    let listing = json.json();
    assert_eq!(listing["trusted"], false);
    assert_eq!(
        listing["untrusted_roots"],
        json!([
            {"scope": "profile", "path": text(&skipped[0].path), "interop": false},
            {"scope": "project", "path": text(&skipped[1].path), "interop": false},
            {"scope": "project", "path": text(&skipped[2].path), "interop": true},
            {"scope": "legacy", "path": text(&skipped[3].path), "interop": false},
        ])
    );
    assert_eq!(
        super::json_codes(&listing["diagnostics"]),
        ["untrusted-workspace"]
    );
    assert_eq!(json.stderr, "");
    // A project skill asked for by name is not found, with the trust hint.
    let show = tree.run(&["show", "project-skill"]);
    assert_eq!(show.code, Some(1), "{show:?}");
    assert!(show.stderr.contains("skills trust"), "{}", show.stderr);

    // `skills trust` makes them load.
    let trust = tree.run(&["trust"]);
    assert!(
        trust
            .ok()
            .starts_with(&format!("{} is ", text(&tree.workspace)))
            && trust.stdout.contains("trusted")
            && !trust.stdout.contains("not trusted"),
        "{trust:?}"
    );
    assert!(tree.workspace.join(".openhuman/trust").is_file());
    assert!(library.is_trusted());
    let catalog = library.discover().unwrap();
    assert!(catalog.trusted);
    assert!(catalog.untrusted_roots.is_empty());
    assert!(
        catalog
            .diagnostics
            .iter()
            .all(|d| d.code != DiagnosticCode::UntrustedWorkspace)
    );
    let scopes_trusted = pairs(&[
        ("claude-skill", "project"),
        ("legacy-skill", "legacy"),
        ("profile-skill", "profile"),
        ("project-skill", "project"),
        ("user-skill", "user"),
    ]);
    let run = tree.run(&["list", "--json", "--profile", PROFILE]);
    let listing = run.json();
    assert_eq!(scopes(&listing), scopes_trusted);
    assert_eq!(listing["trusted"], true);
    assert!(listing.get("untrusted_roots").is_none());
    let run = tree.run(&["list", "--profile", PROFILE]);
    assert_eq!(run.ok().lines().count(), 5);
    assert_eq!(run.stderr, "", "a trusted workspace needs no note");
    // Trusting twice changes nothing.
    assert_eq!(tree.run(&["trust", "--json"]).json()["trusted"], true);

    // `skills trust --revoke` undoes it.
    let revoke = tree.run(&["trust", "--revoke"]);
    assert!(
        revoke
            .ok()
            .starts_with(&format!("{} is no longer trusted", text(&tree.workspace))),
        "{revoke:?}"
    );
    assert!(!tree.workspace.join(".openhuman/trust").exists());
    assert!(!library.is_trusted());
    let listing = tree.run(&["list", "--json", "--profile", PROFILE]).json();
    assert_eq!(json_names(&listing, "skills"), ["user-skill"]);
    assert_eq!(listing["trusted"], false);
    let again = tree.run(&["trust", "--revoke"]);
    assert_eq!(
        again.ok(),
        format!("{} was not trusted\n", text(&tree.workspace))
    );
    let again = tree.run(&["trust", "--revoke", "--json"]).json();
    assert_eq!(again["workspace"], text(&tree.workspace));
    assert_eq!(again["trusted"], false);
}

#[test]
fn the_library_trusts_and_revokes_like_the_binary() {
    let tree = tree();
    let library = tree.library(false);
    let marker = library.trust().unwrap();
    assert_eq!(marker, tree.workspace.join(".openhuman/trust"));
    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(
        json_names(&listing, "skills"),
        [
            "claude-skill",
            "legacy-skill",
            "project-skill",
            "user-skill"
        ]
    );
    assert!(library.revoke_trust().unwrap());
    assert!(!library.revoke_trust().unwrap());
    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(json_names(&listing, "skills"), ["user-skill"]);
}

/// A cloned repository could ship a `skills.toml` that allows or hides skills: it is read only
/// once the workspace is trusted.
#[test]
fn the_workspace_config_file_is_read_only_when_trusted() {
    let tree = tree();
    tree.write(
        &tree.workspace.join(".openhuman/skills.toml"),
        "disabled = [\"user-skill\"]\n",
    );
    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(json_names(&listing, "skills"), ["user-skill"]);
    let catalog = tree.library(false).discover().unwrap();
    assert!(catalog.hidden.is_empty());

    tree.run(&["trust", "-q"]).ok();
    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(
        json_names(&listing, "skills"),
        ["claude-skill", "legacy-skill", "project-skill"]
    );
    let catalog = tree.library(false).discover().unwrap();
    let hidden: Vec<_> = catalog.hidden.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(hidden, ["user-skill"]);
}
