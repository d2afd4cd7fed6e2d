//! A workspace skill that shadows a user skill of the same name is said so: on its `list` row,
//! on the user copy `list --scope user` still shows, and in one stderr line of `prompt`,
//! `sync` and `read` (the agent is about to see the tree's copy, not the user's own).

use super::{Place, Tree, array, text};

/// A trusted tree where the project's `shared` shadows the user's, beside unshadowed skills.
fn tree() -> Tree {
    let tree = Tree::new();
    tree.skill(Place::UserOpenhuman, "shared", "shared", "The user's own.");
    tree.skill(Place::UserOpenhuman, "mine", "mine", "Only the user's.");
    tree.skill(
        Place::ProjectOpenhuman,
        "shared",
        "shared",
        "The tree's copy.",
    );
    tree.skill(
        Place::ProjectOpenhuman,
        "theirs",
        "theirs",
        "Only the tree's.",
    );
    tree.trust();
    tree
}

const NOTE: &str = "workspace skills shadow your user skills of the same name: shared";

#[test]
fn list_marks_the_winner_and_scope_user_shows_the_shadowed_copy() {
    let tree = tree();
    let list = tree.run(&["list"]);
    let row = list
        .ok()
        .lines()
        .find(|line| line.starts_with("shared"))
        .unwrap_or_else(|| panic!("{list:?}"));
    assert!(
        row.contains("project") && row.ends_with("(shadows user)"),
        "{row}"
    );
    let mine = list.stdout.lines().find(|l| l.starts_with("mine")).unwrap();
    assert!(!mine.contains("shadow"), "{mine}");

    let user = tree.run(&["list", "--scope", "user"]);
    let rows: Vec<&str> = user.ok().lines().collect();
    assert_eq!(rows.len(), 2, "{user:?}");
    assert!(rows[0].starts_with("mine"), "{rows:?}");
    assert!(
        rows[1].starts_with("shared")
            && rows[1].contains("The user's own.")
            && rows[1].ends_with("(shadowed by project)"),
        "{rows:?}"
    );

    // JSON: the copy is in `shadowed`, with `shadowed_by`; the winners are untouched.
    let listing = tree.run(&["list", "--scope", "user", "--json"]).json();
    let names: Vec<&str> = array(&listing, "skills")
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mine"]);
    let shadowed = array(&listing, "shadowed");
    assert_eq!(shadowed.len(), 1, "{listing}");
    assert_eq!(shadowed[0]["name"], "shared");
    assert_eq!(shadowed[0]["scope"], "user");
    assert_eq!(shadowed[0]["shadowed_by"], "project");
    let full = tree.run(&["list", "--json"]).json();
    assert!(full.get("shadowed").is_none(), "{full}");
    let all = tree.run(&["list", "--all", "--json"]).json();
    assert_eq!(array(&all, "shadowed")[0]["shadowed_by"], "project");
    // The project scope's own listing has nothing shadowed to show.
    let project = tree.run(&["list", "--scope", "project", "--json"]).json();
    assert!(project.get("shadowed").is_none(), "{project}");
}

#[test]
fn prompt_sync_and_read_name_the_shadowed_skills_on_one_stderr_line() {
    let tree = tree();
    let runs = [
        tree.run(&["prompt"]),
        tree.run(&["sync"]),
        tree.run(&["read", "shared"]),
    ];
    for run in &runs {
        run.ok();
        let notes: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.contains("shadow"))
            .collect();
        assert_eq!(notes.len(), 1, "{run:?}");
        assert!(notes[0].contains(NOTE), "{run:?}");
    }
    // Reading a skill that shadows nothing says nothing; --quiet says nothing.
    assert_eq!(tree.run(&["read", "theirs"]).stderr, "");
    for args in [
        &["-q", "prompt"][..],
        &["-q", "sync"],
        &["-q", "read", "shared"],
    ] {
        let run = tree.run(args);
        assert!(!run.stderr.contains("shadow"), "{run:?}");
    }
    // Machine output carries the names in the documented field.
    let prompt = tree.run(&["prompt", "--json"]).json();
    assert_eq!(prompt["shadows_user"], serde_json::json!(["shared"]));
    let read = tree.run(&["read", "shared", "--json"]).json();
    assert_eq!(read[0]["shadows_user"], true);
    let sync = tree.run(&["sync", "--json"]).json();
    assert_eq!(sync["path"], text(&tree.workspace.join("AGENTS.md")));
    assert_eq!(sync["shadows_user"], serde_json::json!(["shared"]));
}
