//! Where an install lands and how it leaves (03 §Sources install options; 02 §Scopes and
//! roots): `--scope project` needs a trusted workspace, an install lands in the scope's shared
//! `.agents/skills` unless `--agent` picks the app's own root or `.claude/skills`, `skills list` reports each skill with its scope, and
//! `skills uninstall` removes the folder and its lock entry.

use serde_json::json;
use skills_tests::http::{Reply, Server};
use skills_types::files::LOCK_FILE;

use super::sources::pack_skills;
use super::{Skill, content, files_of, install_json, keys, listed, read_json, run, serve_pack};
use crate::discovery::{Place, Tree, text};

/// Serves `skill`'s definition at `/<name>/SKILL.md`; returns the URL.
fn serve(server: &Server, skill: &Skill) -> String {
    let path = format!("/{}/SKILL.md", skill.name);
    server.route(&path, Reply::Ok(skill.definition().to_vec()));
    server.url(&path)
}

#[test]
fn project_and_agent_installs_land_in_their_roots_and_list_with_their_scope() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let team = Skill::new("team-style", "The team's style.", "Tabs.", &[]);
    let claude = Skill::new("claude-helper", "For Claude Code.", "Hello.", &[]);
    let shared = Skill::new("shared-helper", "For every agent.", "Hi.", &[]);
    let (team_url, claude_url, shared_url) = (
        serve(&server, &team),
        serve(&server, &claude),
        serve(&server, &shared),
    );

    let untrusted = run(&tree, &["install", &team_url, "--scope", "project"]);
    assert_eq!(untrusted.code, Some(1), "{untrusted:?}");
    assert!(
        untrusted
            .stderr
            .contains("hint: run 'skills trust' in the workspace if you trust its skills"),
        "{untrusted:?}"
    );
    for place in [Place::ProjectAgents, Place::ProjectOpenhuman] {
        assert!(
            !tree.root(place).exists(),
            "an untrusted workspace is not written to"
        );
    }
    assert_eq!(
        server.targets(),
        Vec::<String>::new(),
        "nothing was fetched"
    );

    tree.run(&["trust"]).ok();
    let placed = [
        (
            &team,
            &team_url,
            &["--scope", "project"][..],
            Place::ProjectAgents,
            "project",
        ),
        (
            &claude,
            &claude_url,
            &["--agent", "claude"][..],
            Place::UserClaude,
            "user",
        ),
        (
            &shared,
            &shared_url,
            &["--scope", "project", "--agent", "app"][..],
            Place::ProjectOpenhuman,
            "project",
        ),
    ];
    for (skill, url, options, place, scope) in placed {
        let mut args = vec![url.as_str()];
        args.extend_from_slice(options);
        let outcomes = install_json(&tree, &args);
        let dir = tree.root(place).join(&skill.name);
        assert_eq!(outcomes.len(), 1);
        assert_eq!(outcomes[0]["path"], text(&dir), "{options:?}");
        assert_eq!(outcomes[0]["scope"], scope, "{options:?}");
        assert_eq!(
            outcomes[0]["new_skills"],
            json!([skill.name]),
            "{options:?}"
        );
        assert_eq!(content(files_of(&dir)), skill.files);
        let lock = read_json(&tree.root(place).join(LOCK_FILE));
        assert_eq!(keys(&lock["skills"]), [skill.name.as_str()], "{options:?}");
    }
    assert_eq!(
        listed(&tree).into_iter().collect::<Vec<_>>(),
        [
            (
                "claude-helper".to_owned(),
                (
                    "user".to_owned(),
                    text(&tree.root(Place::UserClaude).join("claude-helper/SKILL.md"))
                )
            ),
            (
                "shared-helper".to_owned(),
                (
                    "project".to_owned(),
                    text(
                        &tree
                            .root(Place::ProjectOpenhuman)
                            .join("shared-helper/SKILL.md")
                    )
                )
            ),
            (
                "team-style".to_owned(),
                (
                    "project".to_owned(),
                    text(&tree.root(Place::ProjectAgents).join("team-style/SKILL.md"))
                )
            ),
        ]
    );
}

#[test]
fn uninstall_removes_the_skill_and_its_lock_entry() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skills = pack_skills();
    let url = serve_pack(&server, "/pack", &skills, "1.0.0");
    let root = tree.root(Place::UserAgents);
    install_json(&tree, &[&url]);

    let removed = run(&tree, &["--json", "uninstall", "csv-tools"]).json();
    assert_eq!(
        removed,
        json!({
            "name": "csv-tools",
            "scope": "user",
            "path": text(&root.join("csv-tools")),
            "was_link": false,
            "links": [],
        })
    );
    assert!(!root.join("csv-tools").exists());
    assert_eq!(
        keys(&read_json(&root.join(LOCK_FILE))["skills"]),
        ["release-notes"]
    );
    assert_eq!(listed(&tree).keys().collect::<Vec<_>>(), ["release-notes"]);

    // Installed again, it is new again.
    let outcomes = install_json(&tree, &[&url]);
    assert_eq!(outcomes[0]["already_installed"], false, "{outcomes:?}");
    assert_eq!(outcomes[0]["new_skills"], json!(["csv-tools"]));
    assert_eq!(outcomes[1]["already_installed"], true, "{outcomes:?}");

    // A project install is uninstalled from the project root and its lock.
    tree.run(&["trust"]).ok();
    let team = Skill::new("team-style", "The team's style.", "Tabs.", &[]);
    let team_url = serve(&server, &team);
    install_json(&tree, &[&team_url, "--scope", "project"]);
    let project = tree.root(Place::ProjectAgents);
    assert_eq!(
        keys(&read_json(&project.join(LOCK_FILE))["skills"]),
        ["team-style"]
    );
    let removed = run(&tree, &["uninstall", "team-style", "--scope", "project"]);
    assert_eq!(removed.code, Some(0), "{removed:?}");
    assert!(!project.join("team-style").exists());
    assert_eq!(
        read_json(&project.join(LOCK_FILE)),
        json!({ "version": 1, "skills": {} })
    );
    assert_eq!(
        keys(&read_json(&root.join(LOCK_FILE))["skills"]),
        ["csv-tools", "release-notes"],
        "the user root's lock is not touched"
    );
}
