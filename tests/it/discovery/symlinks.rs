//! Symlinked directories (02 §Scanning a root): under the default `WithinRoots` policy a link
//! from one root into another loads its skill once, a link the user made in their own roots is
//! followed wherever it points, a workspace's link to a folder outside its roots is skipped
//! with `symlink-outside-roots`, and symlink loops end with every good skill listed.

#![cfg(unix)]

use std::os::unix::fs::symlink;

use skills::DiagnosticCode;
use skills::catalog::SymlinkPolicy;

use super::{Place, Tree, json_codes, json_names, text};

#[test]
fn a_claude_link_to_an_agents_skill_loads_once_without_shadowing() {
    let tree = Tree::new();
    tree.trust();
    let file = tree.skill(Place::ProjectAgents, "x", "x", "Shared between agents.");
    let link = tree.root(Place::ProjectClaude).join("x");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    symlink(tree.root(Place::ProjectAgents).join("x"), &link).unwrap();

    let catalog = tree.library(false).discover().unwrap();
    assert_eq!(catalog.skills.len(), 1, "{:?}", catalog.skills);
    let skill = &catalog.skills[0];
    assert_eq!(skill.name, "x");
    assert_eq!(skill.location, file);
    assert!(skill.shadowed.is_empty(), "{:?}", skill.shadowed);
    assert!(skill.diagnostics.is_empty(), "{:?}", skill.diagnostics);
    assert!(catalog.shadowed.is_empty());
    // The second path to the same folder is noted, not loaded.
    let duplicates: Vec<_> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::DuplicateDirectory)
        .collect();
    assert_eq!(duplicates.len(), 1, "{:?}", catalog.diagnostics);
    assert_eq!(duplicates[0].path.as_deref(), Some(link.as_path()));

    let listing = tree.run(&["list", "--all", "--json"]).json();
    assert_eq!(json_names(&listing, "skills"), ["x"]);
    assert_eq!(listing["skills"][0]["location"], text(&file));
    assert!(
        listing["skills"][0].get("shadowed").is_none(),
        "{listing:#}"
    );
    assert!(listing.get("shadowed").is_none(), "{listing:#}");
    let explanation = tree.run(&["explain", "x", "--json"]).json();
    assert_eq!(explanation["candidates"].as_array().unwrap().len(), 1);
    assert_eq!(explanation["candidates"][0]["standing"], "winner");
    assert_eq!(explanation["candidates"][0]["location"], text(&file));
    // `duplicate-directory` is information: the listing prints no warning for it.
    let human = tree.run(&["list"]);
    assert_eq!(human.ok(), "x  project  Shared between agents.\n");
    assert_eq!(human.stderr, "");
}

#[test]
fn a_workspace_link_to_a_folder_outside_every_root_is_skipped() {
    let tree = Tree::new();
    tree.trust();
    let outside = Tree::new();
    let elsewhere = outside.base.join("elsewhere/evil");
    outside.write(
        &elsewhere.join("SKILL.md"),
        "---\nname: evil\ndescription: Planted outside.\n---\nDo bad things.\n",
    );
    tree.skill(Place::UserOpenhuman, "good", "good", "Stays.");
    let link = tree.root(Place::ProjectOpenhuman).join("evil");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    symlink(&elsewhere, &link).unwrap();

    let catalog = tree.library(false).discover().unwrap();
    let names: Vec<_> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["good"]);
    let outside_links: Vec<_> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::SymlinkOutsideRoots)
        .collect();
    assert_eq!(outside_links.len(), 1, "{:?}", catalog.diagnostics);
    assert_eq!(outside_links[0].path.as_deref(), Some(link.as_path()));
    assert!(
        outside_links[0].message.contains(&text(&elsewhere)),
        "{}",
        outside_links[0].message
    );

    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(json_names(&listing, "skills"), ["good"]);
    assert_eq!(
        json_codes(&listing["diagnostics"]),
        ["symlink-outside-roots"]
    );
    assert_eq!(listing["diagnostics"][0]["path"], text(&link));
    let human = tree.run(&["list"]);
    assert_eq!(human.ok(), "good  user     Stays.\n");
    assert!(
        human.stderr.starts_with(&format!(
            "warning[symlink-outside-roots] {}: points to {}",
            text(&link),
            text(&elsewhere)
        )),
        "{}",
        human.stderr
    );
    let show = tree.run(&["show", "evil"]);
    assert_eq!(show.code, Some(1), "{show:?}");
    assert!(
        show.stderr.contains("no skill named 'evil'"),
        "{}",
        show.stderr
    );

    // The policy is what decides: `Always` follows the link, `Never` skips it quietly.
    let mut config = tree.config();
    config.symlinks = SymlinkPolicy::Always;
    let catalog = skills::Skills::new(config).discover().unwrap();
    let names: Vec<_> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["evil", "good"]);
    let mut config = tree.config();
    config.symlinks = SymlinkPolicy::Never;
    let catalog = skills::Skills::new(config).discover().unwrap();
    let codes: Vec<_> = catalog.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [DiagnosticCode::SymlinkSkipped]);
    assert_eq!(catalog.skills.len(), 1);
}

/// `ln -s ~/dev/my-skill ~/.agents/skills/`: the user made the link, so it is followed, into an
/// untrusted workspace too; the skill is listed, shown, read and its files served through the
/// link. The same link made by a workspace (to a folder of the home) is refused, and the
/// untrusted workspace's own skills stay out.
#[test]
fn a_user_link_to_a_skill_checked_out_elsewhere_is_followed() {
    let tree = Tree::new();
    let checkout = tree.home.join("dev/my-skill");
    tree.write(
        &checkout.join("SKILL.md"),
        "---\nname: my-skill\ndescription: Checked out elsewhere.\n---\nSee references/notes.md.\n",
    );
    tree.write(&checkout.join("references/notes.md"), "Notes.\n");
    let link = tree.root(Place::UserAgents).join("my-skill");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    symlink(&checkout, &link).unwrap();
    // A link of the user's into the (untrusted) workspace, beside the workspace's own skill.
    tree.skill(
        Place::ProjectAgents,
        "ws-skill",
        "ws-skill",
        "In the workspace.",
    );
    tree.skill(
        Place::ProjectAgents,
        "linked",
        "linked",
        "Linked by the user.",
    );
    symlink(
        tree.root(Place::ProjectAgents).join("linked"),
        tree.root(Place::UserAgents).join("linked"),
    )
    .unwrap();

    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(json_names(&listing, "skills"), ["linked", "my-skill"]);
    assert_eq!(listing["skills"][1]["scope"], "user");
    assert_eq!(
        listing["skills"][1]["location"],
        text(&link.join("SKILL.md"))
    );
    assert!(
        !json_codes(&listing["diagnostics"]).contains(&"symlink-outside-roots".to_owned()),
        "{listing:#}"
    );
    let read = tree.run(&["read", "my-skill"]);
    assert!(read.ok().contains("See references/notes.md."), "{read:?}");
    let resource = tree.run(&["resource", "my-skill", "references/notes.md"]);
    assert_eq!(resource.ok(), "Notes.\n");

    // Once trusted, the workspace's copy wins the folder and the user's link is a duplicate.
    tree.trust();
    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(
        json_names(&listing, "skills"),
        ["linked", "my-skill", "ws-skill"]
    );
    assert_eq!(listing["skills"][0]["scope"], "project");

    // The workspace making the same kind of link into the home is refused.
    let stolen = tree.root(Place::ProjectAgents).join("stolen");
    symlink(&checkout, &stolen).unwrap();
    let listing = tree.run(&["list", "--json"]).json();
    assert_eq!(
        json_names(&listing, "skills"),
        ["linked", "my-skill", "ws-skill"]
    );
    assert_eq!(
        listing["skills"][1]["location"],
        text(&link.join("SKILL.md"))
    );
    let refused: Vec<&serde_json::Value> = super::array(&listing, "diagnostics")
        .iter()
        .filter(|d| d["code"] == "symlink-outside-roots")
        .collect();
    assert_eq!(refused.len(), 1, "{listing:#}");
    assert_eq!(refused[0]["path"], text(&stolen));
}

/// Links to an ancestor, to the folder holding the link, to the root, and to themselves:
/// discovery ends (under every policy) and lists every good skill once.
#[test]
fn symlink_loops_terminate_with_the_good_skills_listed() {
    let tree = Tree::new();
    tree.trust();
    let root = tree.root(Place::ProjectOpenhuman);
    tree.skill(Place::ProjectOpenhuman, "cat/a-good", "a-good", "One.");
    tree.skill(Place::ProjectOpenhuman, "cat/sub/b-good", "b-good", "Two.");
    tree.skill(Place::ProjectOpenhuman, "c-good", "c-good", "Three.");
    // A link to an ancestor (the category folder, two levels up).
    symlink("../..", root.join("cat/sub/up")).unwrap();
    // A link to its own parent, relative and absolute.
    symlink("../sub", root.join("cat/sub/parent")).unwrap();
    symlink(root.join("cat"), root.join("cat/me")).unwrap();
    // A link to the root from inside it.
    symlink(&root, root.join("cat/sub/root")).unwrap();
    // A link to itself: it resolves to nothing.
    symlink("self", root.join("cat/self")).unwrap();
    // The same loops in another root, reached from the first.
    tree.skill(Place::ProjectAgents, "d-good", "d-good", "Four.");
    symlink(&root, tree.root(Place::ProjectAgents).join("back")).unwrap();

    let expected = ["a-good", "b-good", "c-good", "d-good"];
    for policy in [
        SymlinkPolicy::WithinRoots,
        SymlinkPolicy::Always,
        SymlinkPolicy::Never,
    ] {
        let mut config = tree.config();
        config.symlinks = policy;
        let catalog = skills::Skills::new(config).discover().unwrap();
        let names: Vec<_> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, expected, "{policy:?}");
        assert!(catalog.shadowed.is_empty(), "{policy:?}");
        for skill in &catalog.skills {
            assert!(skill.location.starts_with(&tree.workspace), "{policy:?}");
            assert!(
                !skill.location.to_string_lossy().contains("/up/")
                    && !skill.location.to_string_lossy().contains("/me/"),
                "{policy:?}: loaded through a loop: {}",
                skill.location.display()
            );
        }
        if policy != SymlinkPolicy::Never {
            let duplicates = catalog
                .diagnostics
                .iter()
                .filter(|d| d.code == DiagnosticCode::DuplicateDirectory)
                .count();
            assert!(duplicates >= 4, "{policy:?}: {:?}", catalog.diagnostics);
        }
        // The link to itself cannot be resolved and is reported, whatever the policy allows.
        let unresolved = catalog
            .diagnostics
            .iter()
            .filter(|d| d.path.as_deref() == Some(root.join("cat/self").as_path()))
            .count();
        assert_eq!(unresolved, 1, "{policy:?}: {:?}", catalog.diagnostics);
    }

    let listing = tree.run(&["list", "--all", "--json"]).json();
    assert_eq!(json_names(&listing, "skills"), expected);
    assert!(listing.get("shadowed").is_none());
    let codes = json_codes(&listing["diagnostics"]);
    assert!(
        codes.iter().filter(|c| *c == "duplicate-directory").count() >= 4,
        "{codes:?}"
    );
    let human = tree.run(&["list"]);
    assert_eq!(human.ok().lines().count(), 4, "{human:?}");
}
