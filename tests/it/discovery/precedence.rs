//! Name collisions (02 §Identity, collisions and order): every precedence case, table-driven.
//! Between scopes `legacy < user < project < profile`; inside a scope the earlier root; inside
//! a root the earlier path in sorted byte order. Each case checks the winner's `shadowed`
//! record and `shadowed` diagnostic through the library, the losers in
//! `skills list --all --json`, and every candidate and the rule in `skills explain --json`.

use serde_json::{Value, json};
use skills::DiagnosticCode;
use skills::catalog::Shadowed;

use super::{Place, Tree, array, text};

/// Which rule decides a case.
#[derive(Clone, Copy, Debug)]
enum Rule {
    Scope,
    Root,
    Path,
}

/// One collision: two copies of `dup`, where each is written (`relative` to its root).
struct Case {
    what: &'static str,
    winner: (Place, &'static str),
    loser: (Place, &'static str),
    rule: Rule,
}

const CASES: &[Case] = &[
    // Between scopes.
    Case {
        what: "user over legacy",
        winner: (Place::UserOpenhuman, "dup"),
        loser: (Place::Legacy, "dup"),
        rule: Rule::Scope,
    },
    Case {
        what: "project over user",
        winner: (Place::ProjectOpenhuman, "dup"),
        loser: (Place::UserOpenhuman, "dup"),
        rule: Rule::Scope,
    },
    Case {
        what: "project over legacy",
        winner: (Place::ProjectOpenhuman, "dup"),
        loser: (Place::Legacy, "dup"),
        rule: Rule::Scope,
    },
    Case {
        what: "profile over project",
        winner: (Place::Profile, "dup"),
        loser: (Place::ProjectOpenhuman, "dup"),
        rule: Rule::Scope,
    },
    Case {
        what: "profile over user",
        winner: (Place::Profile, "dup"),
        loser: (Place::UserOpenhuman, "dup"),
        rule: Rule::Scope,
    },
    Case {
        what: "profile over legacy",
        winner: (Place::Profile, "dup"),
        loser: (Place::Legacy, "dup"),
        rule: Rule::Scope,
    },
    Case {
        what: "the scope beats root order: the last project root over the first user root",
        winner: (Place::ProjectClaude, "dup"),
        loser: (Place::UserOpenhuman, "dup"),
        rule: Rule::Scope,
    },
    Case {
        what: "the scope beats path order: a later path in a higher scope",
        winner: (Place::UserClaude, "zz"),
        loser: (Place::Legacy, "aa"),
        rule: Rule::Scope,
    },
    // Inside the user scope, the earlier root.
    Case {
        what: "~/.openhuman/skills over ~/.agents/skills",
        winner: (Place::UserOpenhuman, "dup"),
        loser: (Place::UserAgents, "dup"),
        rule: Rule::Root,
    },
    Case {
        what: "~/.agents/skills over ~/.claude/skills",
        winner: (Place::UserAgents, "dup"),
        loser: (Place::UserClaude, "dup"),
        rule: Rule::Root,
    },
    Case {
        what: "~/.openhuman/skills over ~/.claude/skills",
        winner: (Place::UserOpenhuman, "dup"),
        loser: (Place::UserClaude, "dup"),
        rule: Rule::Root,
    },
    // Inside the project scope, the earlier root.
    Case {
        what: "<ws>/.openhuman/skills over <ws>/.agents/skills",
        winner: (Place::ProjectOpenhuman, "dup"),
        loser: (Place::ProjectAgents, "dup"),
        rule: Rule::Root,
    },
    Case {
        what: "<ws>/.agents/skills over <ws>/.claude/skills",
        winner: (Place::ProjectAgents, "dup"),
        loser: (Place::ProjectClaude, "dup"),
        rule: Rule::Root,
    },
    Case {
        what: "<ws>/.openhuman/skills over <ws>/.claude/skills",
        winner: (Place::ProjectOpenhuman, "dup"),
        loser: (Place::ProjectClaude, "dup"),
        rule: Rule::Root,
    },
    Case {
        what: "the root beats path order: a later path in an earlier root",
        winner: (Place::ProjectAgents, "zz"),
        loser: (Place::ProjectClaude, "aa"),
        rule: Rule::Root,
    },
    // Inside a root, the earlier path in byte order.
    Case {
        what: "a before b",
        winner: (Place::UserOpenhuman, "a-first"),
        loser: (Place::UserOpenhuman, "b-second"),
        rule: Rule::Path,
    },
    Case {
        what: "bytes, not letters: Zeta (0x5A) before alpha (0x61)",
        winner: (Place::ProjectAgents, "Zeta"),
        loser: (Place::ProjectAgents, "alpha"),
        rule: Rule::Path,
    },
    Case {
        what: "a skill in a category folder sorts by its path",
        winner: (Place::Legacy, "a-cat/z-skill"),
        loser: (Place::Legacy, "b-skill"),
        rule: Rule::Path,
    },
    Case {
        what: "depth does not matter, only the order of the path",
        winner: (Place::Profile, "m-skill"),
        loser: (Place::Profile, "n-cat/deeper/a-skill"),
        rule: Rule::Path,
    },
];

/// What the rule `skills explain` states must say, however it is worded.
const RULE_PHRASES: [&str; 3] = [
    "profile > project > user > legacy",
    "earlier root",
    "earlier path",
];

/// The facts a loser's `reason` must name for the rule that decided: both scopes, both roots,
/// or the root and both paths. The wording itself is the library's.
fn expected_facts(tree: &Tree, case: &Case) -> Vec<String> {
    let (winner, winner_dir) = case.winner;
    let (loser, loser_dir) = case.loser;
    match case.rule {
        Rule::Scope => vec![
            format!("{} scope", winner.scope()),
            format!("{} scope", loser.scope()),
        ],
        Rule::Root => vec![text(&tree.root(winner)), text(&tree.root(loser))],
        Rule::Path => vec![
            text(&tree.root(winner)),
            winner_dir.to_owned(),
            loser_dir.to_owned(),
        ],
    }
}

#[test]
fn every_precedence_case_through_the_library_and_the_binary() {
    for case in CASES {
        let what = case.what;
        let tree = Tree::new();
        tree.trust();
        // The loser is written first: creation order must not decide.
        let loser_file = tree.skill(case.loser.0, case.loser.1, "dup", "the losing copy");
        let winner_file = tree.skill(case.winner.0, case.winner.1, "dup", "the winning copy");
        let loser_root = tree.root(case.loser.0);
        let winner_root = tree.root(case.winner.0);

        // The library.
        let catalog = tree.library(true).discover().unwrap();
        let winners: Vec<_> = catalog.skills.iter().filter(|s| s.name == "dup").collect();
        assert_eq!(winners.len(), 1, "{what}: {:?}", catalog.skills);
        let winner = winners[0];
        assert_eq!(winner.scope, case.winner.0.scope(), "{what}");
        assert_eq!(winner.location, winner_file, "{what}");
        assert_eq!(winner.description, "the winning copy", "{what}");
        assert_eq!(winner.shadowed.len(), 1, "{what}: {:?}", winner.shadowed);
        let reason = winner.shadowed[0].reason.clone();
        assert_eq!(
            winner.shadowed,
            [Shadowed {
                scope: case.loser.0.scope(),
                root: loser_root.clone(),
                location: loser_file.clone(),
                reason: reason.clone(),
            }],
            "{what}"
        );
        for fact in expected_facts(&tree, case) {
            assert!(reason.contains(&fact), "{what}: '{reason}' lacks '{fact}'");
        }
        let shadowed: Vec<_> = winner
            .diagnostics
            .iter()
            .filter(|d| d.code == DiagnosticCode::Shadowed)
            .collect();
        assert_eq!(shadowed.len(), 1, "{what}: {:?}", winner.diagnostics);
        let message = &shadowed[0].message;
        let (at_winner, at_loser) = (
            message.find(&text(&winner_file)),
            message.find(&text(&loser_file)),
        );
        assert!(
            at_winner.is_some() && at_loser.is_some() && at_winner < at_loser,
            "{what}: the diagnostic must name the winner, then the loser: {message}"
        );
        let losers: Vec<_> = catalog.shadowed.iter().map(|s| &s.location).collect();
        assert_eq!(losers, [&loser_file], "{what}");
        assert_eq!(catalog.shadowed[0].scope, case.loser.0.scope(), "{what}");

        // `skills list --all --json`: the winner with its record, and the loser.
        let listing = tree
            .run(&["list", "--all", "--json", "--profile", super::PROFILE])
            .json();
        let listed: Vec<&Value> = array(&listing, "skills")
            .iter()
            .filter(|s| s["name"] == "dup")
            .collect();
        assert_eq!(listed.len(), 1, "{what}: {listing:#}");
        assert_eq!(listed[0]["scope"], case.winner.0.scope().as_str(), "{what}");
        assert_eq!(listed[0]["location"], text(&winner_file), "{what}");
        assert_eq!(
            listed[0]["shadowed"],
            json!([{
                "scope": case.loser.0.scope().as_str(),
                "root": text(&loser_root),
                "location": text(&loser_file),
                "reason": reason,
            }]),
            "{what}"
        );
        assert!(
            array(listed[0], "diagnostics")
                .iter()
                .any(|d| d["code"] == "shadowed"),
            "{what}: {listing:#}"
        );
        let lost = array(&listing, "shadowed");
        assert_eq!(lost.len(), 1, "{what}: {listing:#}");
        assert_eq!(lost[0]["name"], "dup", "{what}");
        assert_eq!(lost[0]["scope"], case.loser.0.scope().as_str(), "{what}");
        assert_eq!(lost[0]["location"], text(&loser_file), "{what}");
        assert_eq!(lost[0]["description"], "the losing copy", "{what}");

        // Without `--all` the loser is not listed.
        let plain = tree
            .run(&["list", "--json", "--profile", super::PROFILE])
            .json();
        assert!(plain.get("shadowed").is_none(), "{what}: {plain:#}");

        // `skills explain dup --json`: every candidate, then the rule.
        let explanation = tree
            .run(&["explain", "dup", "--json", "--profile", super::PROFILE])
            .json();
        assert_eq!(explanation["name"], "dup");
        let why_won = &explanation["candidates"][0]["reason"];
        assert!(
            why_won.as_str().is_some_and(|why| !why.is_empty()),
            "{what}: {explanation:#}"
        );
        assert_eq!(
            explanation["candidates"],
            json!([
                {
                    "standing": "winner",
                    "scope": case.winner.0.scope().as_str(),
                    "root": text(&winner_root),
                    "location": text(&winner_file),
                    "reason": why_won,
                },
                {
                    "standing": "shadowed",
                    "scope": case.loser.0.scope().as_str(),
                    "root": text(&loser_root),
                    "location": text(&loser_file),
                    "reason": reason,
                },
            ]),
            "{what}"
        );
        let rule = explanation["rule"].as_str().unwrap();
        for phrase in RULE_PHRASES {
            assert!(rule.contains(phrase), "{what}: {rule}");
        }
    }
}

/// One copy of `dup` in every root: the profile copy wins and records the other nine in
/// precedence order, and `explain` and `list --all` show them in that order.
#[test]
fn one_copy_in_every_root_lines_up_in_precedence_order() {
    let tree = Tree::new();
    tree.trust();
    // Written lowest precedence first, the reverse of the order expected.
    let files: Vec<(Place, std::path::PathBuf)> = Place::IN_PRECEDENCE_ORDER
        .iter()
        .rev()
        .map(|&place| {
            (
                place,
                tree.skill(place, "dup", "dup", &format!("{place:?}")),
            )
        })
        .rev()
        .collect();

    let catalog = tree.library(true).discover().unwrap();
    assert_eq!(catalog.skills.len(), 1);
    let winner = &catalog.skills[0];
    assert_eq!(winner.scope, skills::SkillScope::Profile);
    assert_eq!(winner.location, files[0].1);
    let recorded: Vec<_> = winner
        .shadowed
        .iter()
        .map(|copy| (copy.scope, copy.location.clone()))
        .collect();
    let expected: Vec<_> = files[1..]
        .iter()
        .map(|(place, file)| (place.scope(), file.clone()))
        .collect();
    assert_eq!(recorded, expected);
    let order: Vec<_> = catalog
        .shadowed
        .iter()
        .map(|s| s.location.clone())
        .collect();
    assert_eq!(
        order,
        expected.iter().map(|(_, f)| f.clone()).collect::<Vec<_>>()
    );
    assert_eq!(
        winner
            .diagnostics
            .iter()
            .filter(|d| d.code == DiagnosticCode::Shadowed)
            .count(),
        Place::IN_PRECEDENCE_ORDER.len() - 1
    );

    let explanation = tree
        .run(&["explain", "dup", "--json", "--profile", super::PROFILE])
        .json();
    let candidates: Vec<(String, String, String)> = array(&explanation, "candidates")
        .iter()
        .map(|c| {
            (
                c["standing"].as_str().unwrap().to_owned(),
                c["scope"].as_str().unwrap().to_owned(),
                c["location"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String, String)> = files
        .iter()
        .enumerate()
        .map(|(index, (place, file))| {
            let standing = if index == 0 { "winner" } else { "shadowed" };
            (standing.to_owned(), place.scope().to_string(), text(file))
        })
        .collect();
    assert_eq!(candidates, expected);

    // The human listing: the winner, then the nine losers marked, in the same order.
    let human = tree.run(&["list", "--all", "--profile", super::PROFILE]);
    let lines: Vec<&str> = human.ok().lines().collect();
    assert_eq!(lines.len(), Place::IN_PRECEDENCE_ORDER.len(), "{human:?}");
    assert!(lines[0].starts_with("dup  profile  Profile"), "{human:?}");
    for (line, (place, _)) in lines[1..].iter().zip(&files[1..]) {
        assert!(
            line.starts_with(&format!("dup  {:<7}  {place:?}", place.scope().as_str())),
            "{line}"
        );
        assert!(line.ends_with("(shadowed by profile)"), "{line}");
    }

    // Without the profile, the project copy in the first project root wins.
    let catalog = tree.library(false).discover().unwrap();
    assert_eq!(catalog.skills[0].location, files[1].1);
    assert_eq!(catalog.shadowed.len(), Place::IN_PRECEDENCE_ORDER.len() - 2);
}

/// `.agent/skills` (what `openskills --universal` writes) is an interop root of both scopes:
/// after `.agents/skills`, before `.claude/skills`; `SKILLS_DISABLE_EXTERNAL=1` skips it with
/// the other interop roots.
#[test]
fn openskills_universal_roots_are_read_in_both_scopes_unless_interop_is_off() {
    let tree = Tree::new();
    tree.trust();
    tree.skill(Place::UserAgent, "u", "from-user-agent", "User.");
    tree.skill(Place::ProjectAgent, "p", "from-project-agent", "Project.");
    tree.skill(Place::ProjectAgent, "dup", "dup", "Second.");
    tree.skill(Place::ProjectAgents, "dup", "dup", "First.");
    tree.skill(Place::ProjectClaude, "dup", "dup", "Third.");

    let listing = tree.run(&["list", "--all", "--json"]).json();
    let found: Vec<(String, String)> = array(&listing, "skills")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["scope"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("dup".to_owned(), "project".to_owned()),
            ("from-project-agent".to_owned(), "project".to_owned()),
            ("from-user-agent".to_owned(), "user".to_owned()),
        ]
    );
    let dup = &array(&listing, "skills")[0];
    assert_eq!(
        dup["location"],
        text(&tree.root(Place::ProjectAgents).join("dup/SKILL.md"))
    );
    let losers: Vec<&str> = array(&listing, "shadowed")
        .iter()
        .map(|s| s["location"].as_str().unwrap())
        .collect();
    assert_eq!(
        losers,
        [
            text(&tree.root(Place::ProjectAgent).join("dup/SKILL.md")),
            text(&tree.root(Place::ProjectClaude).join("dup/SKILL.md")),
        ]
    );

    let off = tree.run_with(&["list", "--json"], &[("SKILLS_DISABLE_EXTERNAL", "1")]);
    assert!(array(&off.json(), "skills").is_empty(), "{off:?}");
}
