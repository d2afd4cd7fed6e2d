//! Permission rules and `disabled` (02 §Permissions and disabled skills), table-driven from one
//! `~/.openhuman/skills.toml`: `deny` hides a skill from `list` and from `prompt` in every
//! format, and `show` and `read` refuse it with exit 1 and a message naming the rule; `ask`
//! keeps it listed with permission `ask`; `disabled` hides it too, reported as disabled. The
//! last matching rule wins, and a hidden winner does not let a shadowed copy through.

use skills::catalog::{HiddenReason, Permission};
use skills::render::{Format, SyncOptions};
use skills::{Error, SkillScope};

use super::{Place, Tree, array};

const CONFIG: &str = "\
disabled = [\"off-skill\"]

[permissions]
\"*\" = \"allow\"
\"secret-*\" = \"deny\"
\"secret-but-ok\" = \"allow\"
\"ask?r\" = \"ask\"
";

/// What the configuration makes of a skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Allow,
    Ask,
    Denied(&'static str),
    Disabled,
}

impl Outcome {
    fn visible(self) -> bool {
        matches!(self, Outcome::Allow | Outcome::Ask)
    }
}

const TABLE: &[(&str, Outcome)] = &[
    ("asker", Outcome::Ask),
    ("off-skill", Outcome::Disabled),
    ("plain", Outcome::Allow),
    ("secret-but-ok", Outcome::Allow),
    ("secret-plans", Outcome::Denied("secret-*")),
];

/// A description no other text in the output holds, so its absence proves the skill is out.
fn marker(name: &str) -> String {
    format!("Marker for {name}.")
}

fn tree() -> Tree {
    let tree = Tree::new();
    tree.user_config(CONFIG);
    for (name, _) in TABLE {
        tree.skill(Place::UserOpenhuman, name, name, &marker(name));
    }
    // A lower copy of the denied skill must not step in when the winner is hidden.
    tree.skill(
        Place::UserClaude,
        "secret-plans",
        "secret-plans",
        "Shadowed secret copy.",
    );
    tree
}

#[test]
fn deny_ask_and_disabled_through_the_library() {
    let tree = tree();
    let library = tree.library(false);
    let catalog = library.discover().unwrap();
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
    let visible: Vec<(&str, Permission)> = catalog
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.permission))
        .collect();
    assert_eq!(
        visible,
        [
            ("asker", Permission::Ask),
            ("plain", Permission::Allow),
            ("secret-but-ok", Permission::Allow),
        ]
    );
    let hidden: Vec<(&str, SkillScope, &HiddenReason)> = catalog
        .hidden
        .iter()
        .map(|h| (h.name.as_str(), h.scope, &h.reason))
        .collect();
    assert_eq!(
        hidden,
        [
            ("off-skill", SkillScope::User, &HiddenReason::Disabled),
            (
                "secret-plans",
                SkillScope::User,
                &HiddenReason::Denied {
                    pattern: "secret-*".to_owned()
                }
            ),
        ]
    );

    for format in Format::ALL {
        let rendered = library
            .render_catalog(&skills::render::Options::new(format))
            .unwrap();
        for &(name, outcome) in TABLE {
            assert_eq!(
                rendered.text.contains(&marker(name)),
                outcome.visible(),
                "{format}: {name}\n{}",
                rendered.text
            );
        }
        assert!(!rendered.text.contains("secret-plans"), "{}", rendered.text);
        assert!(!rendered.text.contains("Shadowed secret copy"));
    }

    for &(name, outcome) in TABLE {
        let got = library.get(name);
        let read = library.read(&[name]);
        match outcome {
            Outcome::Allow | Outcome::Ask => {
                assert_eq!(got.unwrap().name, name);
                assert!(read.unwrap()[0].body.contains(&format!("Body of {name}.")));
            }
            Outcome::Denied(rule) => {
                for error in [got.unwrap_err(), read.unwrap_err()] {
                    assert!(
                        matches!(&error, Error::SkillDenied { name: n, pattern } if n == name && pattern == rule),
                        "{error:?}"
                    );
                    assert_eq!(error.kind(), "denied");
                }
            }
            Outcome::Disabled => {
                for error in [got.unwrap_err(), read.unwrap_err()] {
                    assert!(
                        matches!(&error, Error::SkillDisabled { name: n } if n == name),
                        "{error:?}"
                    );
                }
            }
        }
    }

    // AGENTS.md lists only what the catalog offers.
    library.sync_agents_md(&SyncOptions::default()).unwrap();
    let agents_md = std::fs::read_to_string(tree.workspace.join("AGENTS.md")).unwrap();
    for &(name, outcome) in TABLE {
        assert_eq!(
            agents_md.contains(&format!("<name>{name}</name>")),
            outcome.visible(),
            "{name}"
        );
    }
}

#[test]
fn deny_ask_and_disabled_through_the_binary() {
    let tree = tree();

    let listing = tree.run(&["list", "--json"]).json();
    let listed: Vec<(String, String)> = array(&listing, "skills")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["permission"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = TABLE
        .iter()
        .filter_map(|&(name, outcome)| match outcome {
            Outcome::Allow => Some((name.to_owned(), "allow".to_owned())),
            Outcome::Ask => Some((name.to_owned(), "ask".to_owned())),
            _ => None,
        })
        .collect();
    assert_eq!(listed, expected);
    let human = tree.run(&["list"]);
    for &(name, outcome) in TABLE {
        assert_eq!(
            human
                .ok()
                .lines()
                .any(|line| line.starts_with(&format!("{name} "))),
            outcome.visible(),
            "{name}: {}",
            human.stdout
        );
    }
    // `--all` names the hidden skills and why.
    let all = tree.run(&["list", "--all"]);
    let line = |name: &str| {
        all.stdout
            .lines()
            .find(|line| line.starts_with(&format!("{name} ")) && line.contains("hidden"))
            .unwrap_or_else(|| panic!("no hidden line for {name}: {}", all.stdout))
            .to_owned()
    };
    assert_eq!(all.code, Some(0));
    assert!(line("off-skill").contains("disabled"));
    assert!(line("secret-plans").contains("denied by 'secret-*'"));

    for format in ["xml", "markdown", "json"] {
        let prompt = tree.run(&["prompt", "--format", format]);
        for &(name, outcome) in TABLE {
            assert_eq!(
                prompt.ok().contains(&marker(name)),
                outcome.visible(),
                "{format}: {name}\n{}",
                prompt.stdout
            );
        }
        assert!(!prompt.stdout.contains("secret-plans"), "{}", prompt.stdout);
        assert!(!prompt.stdout.contains("Shadowed secret copy"));
    }

    for &(name, outcome) in TABLE {
        for command in ["show", "read"] {
            let run = tree.run(&[command, name]);
            match outcome {
                Outcome::Allow | Outcome::Ask => {
                    assert_eq!(run.code, Some(0), "{command} {name}: {run:?}");
                    assert!(run.stdout.contains(name));
                }
                Outcome::Denied(rule) => {
                    assert_eq!(run.code, Some(1), "{command} {name}: {run:?}");
                    assert_eq!(run.stdout, "", "{command} {name} leaked output");
                    let lines: Vec<&str> = run.stderr.lines().collect();
                    assert_eq!(
                        lines[0],
                        format!(
                            "error: the skill '{name}' is denied by the permission rule '{rule}'"
                        ),
                        "{command} {name}"
                    );
                    assert!(
                        lines[1].starts_with("hint: ") && lines[1].contains("[permissions]"),
                        "{command} {name}: {}",
                        run.stderr
                    );
                }
                Outcome::Disabled => {
                    assert_eq!(run.code, Some(1), "{command} {name}: {run:?}");
                    assert_eq!(run.stdout, "", "{command} {name} leaked output");
                    let lines: Vec<&str> = run.stderr.lines().collect();
                    assert_eq!(
                        lines[0],
                        format!("error: the skill '{name}' is disabled in the configuration"),
                        "{command} {name}"
                    );
                    assert!(
                        lines[1].starts_with("hint: ") && lines[1].contains("disabled"),
                        "{command} {name}: {}",
                        run.stderr
                    );
                }
            }
        }
    }

    // With `--json` the refusal is also a document on stdout.
    let refused = tree.run(&["show", "secret-plans", "--json"]);
    assert_eq!(refused.code, Some(1));
    let document: serde_json::Value = serde_json::from_str(&refused.stdout).unwrap();
    assert_eq!(document["error"]["kind"], "denied", "{document:#}");
    assert_eq!(
        document["error"]["message"],
        "the skill 'secret-plans' is denied by the permission rule 'secret-*'"
    );
    // Reading an allowed and a denied skill together prints neither.
    let mixed = tree.run(&["read", "plain,secret-plans"]);
    assert_eq!(mixed.code, Some(1));
    assert_eq!(mixed.stdout, "");
    // `explain` says the winner is hidden and by which rule.
    let explanation = tree.run(&["explain", "secret-plans", "--json"]).json();
    assert_eq!(explanation["candidates"][0]["standing"], "hidden");
    assert_eq!(explanation["candidates"][0]["scope"], "user");
    let reason = explanation["candidates"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("denied") && reason.contains("'secret-*'"),
        "{reason}"
    );
    assert_eq!(explanation["candidates"][1]["standing"], "shadowed");
    assert!(
        explanation["rule"].as_str().unwrap().contains("'secret-*'"),
        "{explanation:#}"
    );
}
