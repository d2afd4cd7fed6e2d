//! Scopes that are where they say they are (issue 29 §4; `docs/decisions.md` §A workspace
//! root is never the user's own folder): a workspace whose `.agents`, `.claude` or skills
//! folder is a symlink into the home lists the user's skills once, as the user's, and says
//! which link it skipped; `uninstall --scope project`, `install --scope project` and
//! `new --scope project` refuse, naming the link, and change nothing in the user's root. A
//! workspace that is the home itself lists its skills once with no warning.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use super::{Place, Run, Tree, json_codes, text};
use crate::runtime::listing;

/// One way a workspace root can lead into the home.
struct Setup {
    name: &'static str,
    /// The user root holding the user's skill.
    user: Place,
    /// The link made in the workspace, relative to it, and its target relative to the home.
    link: &'static str,
    target: &'static str,
    /// The `--agent` that picks the project root behind the link for `new` and `install`.
    agent: &'static str,
    /// The link is made before its target exists (nothing of the user root is there yet).
    dangling: bool,
}

const SETUPS: [Setup; 5] = [
    Setup {
        name: ".agents linked to ~/.agents",
        user: Place::UserAgents,
        link: ".agents",
        target: ".agents",
        agent: "agents",
        dangling: false,
    },
    Setup {
        name: ".claude linked to ~/.claude",
        user: Place::UserClaude,
        link: ".claude",
        target: ".claude",
        agent: "claude",
        dangling: false,
    },
    Setup {
        name: "the skills folder linked to ~/.agents/skills",
        user: Place::UserAgents,
        link: ".agents/skills",
        target: ".agents/skills",
        agent: "agents",
        dangling: false,
    },
    Setup {
        name: "the app folder linked to ~/.openhuman",
        user: Place::UserOpenhuman,
        link: ".openhuman",
        target: ".openhuman",
        agent: "app",
        dangling: false,
    },
    Setup {
        name: ".agents linked to a ~/.agents not made yet",
        user: Place::UserAgents,
        link: ".agents",
        target: ".agents",
        agent: "agents",
        dangling: true,
    },
];

/// Whether each of the home's skill folders exists and everything in it, links not followed:
/// what must not change (the catalog cache beside them may).
fn user_roots(tree: &Tree) -> Vec<(bool, Vec<String>)> {
    [".agents", ".agent", ".claude", ".openhuman/skills"]
        .iter()
        .map(|folder| {
            let folder = tree.home.join(folder);
            (std::fs::symlink_metadata(&folder).is_ok(), listing(&folder))
        })
        .collect()
}

/// A local folder holding one skill, to install from.
fn source_folder(tree: &Tree) -> PathBuf {
    let source = tree.base.join("source/team-style");
    tree.write(
        &source.join("SKILL.md"),
        "---\nname: team-style\ndescription: The team's style.\n---\nTabs.\n",
    );
    source
}

fn assert_refused(run: &Run, link: &Path, what: &str) {
    assert_eq!(run.code, Some(1), "{what}: {run:?}");
    let error: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        error["error"]["kind"], "root_outside_scope",
        "{what}: {run:?}"
    );
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{} is a symbolic link to ", text(link)))
            && message.contains("nothing was changed"),
        "{what}: {message}"
    );
    assert!(run.stderr.contains(&text(link)), "{what}: {run:?}");
}

#[test]
fn a_workspace_root_linked_into_the_home_is_listed_once_and_refused_for_writes() {
    for setup in &SETUPS {
        let name = setup.name;
        let tree = Tree::new();
        let link = tree.workspace.join(setup.link);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        let user_root = tree.root(setup.user);
        if setup.dangling {
            symlink(tree.home.join(setup.target), &link).unwrap();
            assert!(!user_root.exists());
        } else {
            tree.skill(setup.user, "shared", "shared-skill", "The user's own.");
            symlink(tree.home.join(setup.target), &link).unwrap();
        }
        tree.run(&["trust", "-q"]).ok();
        let before = user_roots(&tree);

        // `list`: the user's skill once, as the user's, and one warning naming the link.
        let listing = tree.run(&["list", "--json", "--all"]).json();
        let skills: Vec<(String, String)> = listing["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_owned(),
                    s["scope"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let expected: Vec<(String, String)> = if setup.dangling {
            Vec::new()
        } else {
            vec![("shared-skill".to_owned(), "user".to_owned())]
        };
        assert_eq!(skills, expected, "{name}");
        assert_eq!(listing.get("shadowed"), None, "{name}: no second copy");
        let codes = json_codes(&listing["diagnostics"]);
        assert_eq!(
            codes
                .iter()
                .filter(|code| *code == "root-outside-scope")
                .count(),
            1,
            "{name}: {codes:?}"
        );
        let human = tree.run(&["list"]);
        assert!(
            human.stderr.contains("root-outside-scope")
                && human
                    .stderr
                    .contains(&format!("{} is a symbolic link to", text(&link))),
            "{name}: {human:?}"
        );

        // `uninstall --scope project` refuses and the user's skill stays.
        if !setup.dangling {
            let run = tree.run(&["--json", "uninstall", "shared", "--scope", "project"]);
            assert_refused(&run, &link, name);
            assert!(user_root.join("shared/SKILL.md").is_file(), "{name}");
        }

        // `install --scope project` and `new --scope project` refuse and write nothing.
        let source = text(&source_folder(&tree));
        let install = || {
            tree.run(&[
                "--json",
                "install",
                &source,
                "--scope",
                "project",
                "--agent",
                setup.agent,
            ])
        };
        assert_refused(&install(), &link, name);
        let run = tree.run(&[
            "--json",
            "new",
            "fresh",
            "-d",
            "A new skill.",
            "--scope",
            "project",
            "--agent",
            setup.agent,
        ]);
        assert_refused(&run, &link, name);
        assert_eq!(
            user_roots(&tree),
            before,
            "{name}: the user's roots are untouched"
        );
        if setup.dangling {
            assert!(
                !tree.home.join(setup.target).exists(),
                "{name}: nothing was made"
            );
        }

        // With the link gone, the workspace's own root takes the same writes.
        std::fs::remove_file(&link).unwrap();
        let run = install();
        assert_eq!(run.code, Some(0), "{name}: {run:?}");
        assert_eq!(user_roots(&tree), before, "{name}: still untouched");
        let listing = tree.run(&["list", "--json"]).json();
        let team = listing["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "team-style")
            .unwrap_or_else(|| panic!("{name}: {listing}"));
        assert_eq!(team["scope"], "project", "{name}");
    }
}

#[test]
fn uninstall_without_a_scope_removes_the_users_skill_as_the_users() {
    let tree = Tree::new();
    tree.skill(
        Place::UserAgents,
        "shared",
        "shared-skill",
        "The user's own.",
    );
    symlink(tree.home.join(".agents"), tree.workspace.join(".agents")).unwrap();
    tree.run(&["trust", "-q"]).ok();
    let run = tree.run(&["--json", "uninstall", "shared"]).json();
    assert_eq!(run["scope"], "user");
    assert!(!tree.root(Place::UserAgents).join("shared").exists());
}

#[test]
fn a_workspace_that_is_the_home_lists_its_skills_once_without_a_warning() {
    let tree = Tree::new();
    tree.skill(
        Place::UserAgents,
        "a",
        "agents-skill",
        "In ~/.agents/skills.",
    );
    tree.skill(
        Place::UserOpenhuman,
        "o",
        "app-skill",
        "In ~/.openhuman/skills.",
    );
    let in_home = |args: &[&str]| {
        let output = skills_tests::skills()
            .current_dir(&tree.home)
            .arg("--home")
            .arg(&tree.home)
            .args(args)
            .env_remove("COLUMNS")
            .output()
            .unwrap();
        Run {
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    };
    for trusted in [false, true] {
        if trusted {
            in_home(&["trust", "-q"]).ok();
        }
        let run = in_home(&["list"]);
        assert_eq!(
            run.ok(),
            "agents-skill  user     In ~/.agents/skills.\napp-skill     user     In ~/.openhuman/skills.\n",
            "trusted: {trusted}"
        );
        assert_eq!(run.stderr, "", "trusted: {trusted}: no false warning");
        let listing = in_home(&["list", "--json", "--all"]).json();
        assert_eq!(json_codes(&listing["diagnostics"]), Vec::<String>::new());
        assert_eq!(listing.get("shadowed"), None);
    }
    // A project-scope write in the home is refused with advice, and nothing is written.
    let before = user_roots(&tree);
    let run = in_home(&["new", "fresh", "-d", "A new skill.", "--scope", "project"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr.contains("the workspace is the home") && run.stderr.contains("--scope user"),
        "{run:?}"
    );
    assert_eq!(user_roots(&tree), before);
}
