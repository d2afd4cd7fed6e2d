//! Workspace trust (02 §Scopes and roots, **Trust**, as `docs/decisions.md` §Trust belongs to
//! the user changes it): an untrusted workspace's `project`, `legacy` and `profile` roots are
//! skipped and the listing says so, with the hint to run `skills trust`; `skills trust`
//! records the user's trust in the home (never in the tree) and `skills trust --revoke` undoes
//! it. A marker committed into the tree trusts nothing; a renamed, copied or replaced tree is
//! not the one trusted. The workspace's own `skills.toml` is read only once it is trusted.

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
    // The hint names the home the record goes to, and the workspace when it is not the
    // current directory.
    assert!(
        run.stderr.contains(&format!(
            "hint: run 'skills --home {} trust {}' to load them",
            text(&tree.home),
            text(&tree.workspace)
        )),
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
    assert!(
        !tree.workspace.join(".openhuman/trust").exists(),
        "nothing is written into the workspace"
    );
    assert!(
        tree.home
            .join(".openhuman/trusted-workspaces.json")
            .is_file()
    );
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
    let change = library.trust(&tree.workspace).unwrap();
    assert_eq!(change.workspace, tree.workspace);
    assert!(change.trusted && change.changed);
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
    assert!(library.revoke_trust(&tree.workspace).unwrap().changed);
    assert!(!library.revoke_trust(&tree.workspace).unwrap().changed);
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

/// Runs the binary with `workspace` in place of the tree's own (a renamed, copied or linked
/// tree), the tree's home kept.
fn run_at(tree: &Tree, workspace: &std::path::Path, args: &[&str]) -> super::Run {
    let output = skills_tests::skills()
        .current_dir(&tree.base)
        .arg("--workspace")
        .arg(workspace)
        .arg("--home")
        .arg(&tree.home)
        .args(args)
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    super::Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

fn diagnostic_codes(listing: &serde_json::Value) -> Vec<String> {
    super::json_codes(&listing["diagnostics"])
}

/// A cloned repository that committed the old marker, as a file or as a dangling symlink,
/// trusts nothing: no project skill in `list`, `prompt` or `read`, and one diagnostic saying
/// what the marker is and how to trust the workspace.
#[test]
fn a_clone_with_a_committed_marker_lists_no_project_skill() {
    for dangling in [false, true] {
        let tree = tree();
        let marker = tree.workspace.join(".openhuman/trust");
        if dangling {
            std::os::unix::fs::symlink("../../nowhere", &marker).unwrap();
        } else {
            tree.write(&marker, "This workspace is trusted.\n");
        }
        let listing = tree.run(&["list", "--json"]).json();
        assert_eq!(json_names(&listing, "skills"), ["user-skill"], "{dangling}");
        assert_eq!(listing["trusted"], false);
        let codes = diagnostic_codes(&listing);
        assert_eq!(
            codes
                .iter()
                .filter(|c| *c == "trust-marker-ignored")
                .count(),
            1,
            "{codes:?}"
        );
        let human = tree.run(&["list"]);
        assert_eq!(human.ok().lines().count(), 1, "{human:?}");
        let warnings: Vec<&str> = human
            .stderr
            .lines()
            .filter(|line| line.contains("trust-marker-ignored"))
            .collect();
        assert_eq!(warnings.len(), 1, "{human:?}");
        assert!(
            warnings[0].contains("trust is recorded per user")
                && warnings[0].contains(&format!("skills trust {}", text(&tree.workspace))),
            "{warnings:?}"
        );
        let prompt = tree.run(&["prompt", "--format", "markdown"]);
        assert!(!prompt.ok().contains("project-skill"), "{prompt:?}");
        assert_eq!(tree.run(&["read", "project-skill"]).code, Some(1));
        // The marker is left alone, and `skills trust` still does not write into the tree.
        tree.run(&["trust", "-q"]).ok();
        assert!(std::fs::symlink_metadata(&marker).is_ok());
        let listing = tree.run(&["list", "--json"]).json();
        assert_eq!(listing["trusted"], true);
        assert!(!diagnostic_codes(&listing).contains(&"trust-marker-ignored".to_owned()));
    }
}

/// Trust names one folder: after a rename, or for a copy, the tree is untrusted until trusted
/// again; a symlinked path to the trusted folder is the trusted folder.
#[test]
fn a_renamed_or_copied_tree_is_untrusted_and_a_linked_path_is_the_real_one() {
    let tree = tree();
    tree.run(&["trust", "-q"]).ok();
    let trusted_names = |workspace: &std::path::Path| {
        json_names(
            &run_at(&tree, workspace, &["list", "--json"]).json(),
            "skills",
        )
    };
    assert!(trusted_names(&tree.workspace).contains(&"project-skill".to_owned()));

    let link = tree.base.join("link");
    std::os::unix::fs::symlink(&tree.workspace, &link).unwrap();
    assert!(trusted_names(&link).contains(&"project-skill".to_owned()));

    let copy = tree.base.join("copy");
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(&tree.workspace)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(copied.success());
    assert_eq!(trusted_names(&copy), ["user-skill"]);

    let renamed = tree.base.join("renamed");
    std::fs::rename(&tree.workspace, &renamed).unwrap();
    assert_eq!(trusted_names(&renamed), ["user-skill"]);
    // The copy moved to the trusted path is still not the trusted folder.
    std::fs::rename(&copy, &tree.workspace).unwrap();
    assert_eq!(trusted_names(&tree.workspace), ["user-skill"]);
    let listed = tree.run(&["trust", "--list", "--json"]).json();
    assert_eq!(
        listed["workspaces"],
        json!([{
            "path": text(&tree.workspace),
            "trusted_at": listed["workspaces"][0]["trusted_at"],
            "state": "replaced",
        }])
    );
    // Trusting it again trusts the folder there now.
    run_at(&tree, &renamed, &["trust", "-q", &text(&tree.workspace)]).ok();
    assert!(trusted_names(&tree.workspace).contains(&"project-skill".to_owned()));
    assert_eq!(trusted_names(&renamed), ["user-skill"]);
}

/// `--list` shows every record and whether its folder still matches; `--revoke PATH` removes
/// any of them, a vanished folder's too.
#[test]
fn trust_lists_and_revokes_any_record_even_a_vanished_one() {
    let tree = tree();
    let none = tree.run(&["trust", "--list"]);
    assert_eq!(none.ok(), "");
    assert_eq!(none.stderr, "no workspace is trusted\n");
    let other = tree.base.join("other");
    std::fs::create_dir(&other).unwrap();
    tree.run(&["trust", "-q"]).ok();
    tree.run(&["trust", "-q", &text(&other)]).ok();
    let listed = tree.run(&["trust", "--list"]);
    assert_eq!(
        listed.ok(),
        format!(
            "{}  trusted\n{}  trusted\n",
            text(&tree.workspace),
            text(&other)
        )
    );
    std::fs::remove_dir(&other).unwrap();
    let listed = tree.run(&["trust", "--list"]);
    assert!(
        listed.ok().contains(&format!(
            "{}  not trusted: the folder is gone",
            text(&other)
        )),
        "{listed:?}"
    );
    let revoked = tree
        .run(&["trust", "--revoke", "--json", &text(&other)])
        .json();
    assert_eq!(
        revoked,
        json!({"workspace": text(&other), "trusted": false, "changed": true})
    );
    let listed = tree.run(&["trust", "--list", "--json"]).json();
    assert_eq!(listed["workspaces"].as_array().unwrap().len(), 1);
    assert_eq!(listed["workspaces"][0]["state"], "trusted");
    assert_eq!(
        tree.run(&["trust", "--list", "--revoke"]).code,
        Some(2),
        "--list takes no other action"
    );
}

/// A record that is not valid JSON (or not a file) trusts nothing, and says so in `list` and
/// as a failing `trust`, naming the file.
#[test]
fn a_corrupt_record_trusts_nothing_with_a_clear_message() {
    let tree = tree();
    tree.run(&["trust", "-q"]).ok();
    let record = tree.home.join(".openhuman/trusted-workspaces.json");
    let mut bytes = std::fs::read(&record).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&record, &bytes).unwrap();
    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(json_names(&listing, "skills"), ["user-skill"]);
    assert!(diagnostic_codes(&listing).contains(&"trust-record-invalid".to_owned()));
    let human = tree.run(&["list"]);
    assert!(
        human.stderr.contains(&format!(
            "the trust record {} cannot be used",
            text(&record)
        )) && human.stderr.contains("no workspace is trusted"),
        "{human:?}"
    );
    let trust = tree.run(&["trust"]);
    assert_eq!(trust.code, Some(1), "{trust:?}");
    assert!(
        trust.stderr.contains("trusted-workspaces.json"),
        "{trust:?}"
    );
    assert_eq!(
        std::fs::read(&record).unwrap(),
        bytes,
        "a bad record is not overwritten"
    );
}

/// `--trust-workspace` trusts for one command, typed by the user, and records nothing.
#[test]
fn the_trust_workspace_flag_trusts_one_command_and_records_nothing() {
    let tree = tree();
    let listing = tree.run(&["--trust-workspace", "list", "--json"]).json();
    assert!(json_names(&listing, "skills").contains(&"project-skill".to_owned()));
    assert!(
        !tree
            .home
            .join(".openhuman/trusted-workspaces.json")
            .exists()
    );
    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(json_names(&listing, "skills"), ["user-skill"]);
}

/// The demo ships no marker, and the README's main command (`--trust-workspace`, typed per
/// command) still lists its project skills; without the flag it is an untrusted clone.
#[test]
fn the_readme_main_command_lists_the_demo_project_without_a_marker() {
    let repository = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let readme = std::fs::read_to_string(repository.join("README.md")).unwrap();
    let command =
        "list --trust-workspace --workspace examples/demo/workspace --home examples/demo/home";
    assert!(readme.contains(&format!("cargo run -q -p skills-cli -- {command}")));
    let demo = repository.join("examples/demo");
    assert!(std::fs::symlink_metadata(demo.join("workspace/.openhuman/trust")).is_err());
    // A copy, so the run writes no cache into the repository.
    let copy = tempfile::tempdir().unwrap();
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(&demo)
        .arg(copy.path())
        .status()
        .unwrap();
    assert!(copied.success());
    let run = |args: &[&str]| {
        skills_tests::skills()
            .current_dir(copy.path())
            .args(args)
            .args(["--json"])
            .output()
            .unwrap()
    };
    let trusted = run(&command
        .replace("examples/", "")
        .split(' ')
        .collect::<Vec<_>>());
    let listing: serde_json::Value = serde_json::from_slice(&trusted.stdout).unwrap();
    let names = json_names(&listing, "skills");
    assert!(names.contains(&"release-checklist".to_owned()), "{names:?}");
    assert!(names.contains(&"onboarding-guide".to_owned()), "{names:?}");
    let untrusted = run(&[
        "list",
        "--workspace",
        "demo/workspace",
        "--home",
        "demo/home",
    ]);
    let listing: serde_json::Value = serde_json::from_slice(&untrusted.stdout).unwrap();
    assert_eq!(
        json_names(&listing, "skills"),
        [
            "code-review",
            "commit-message",
            "explain-error",
            "standup-summary"
        ]
    );
}
