//! The library and the binary agree (05: "no behaviour lives [in the CLI] that an agent core
//! could not reach through the library"): on one mixed tree, `Skills::list` and
//! `skills list --json` give the same names, scopes and locations (and the same documents),
//! scope by scope, and so do `get`/`show`, `explain`, `read` and `render_catalog`/`prompt`.

use serde_json::Value;
use skills::SkillScope;
use skills::catalog::ListOptions;
use skills::render::Format;

use super::{PROFILE, Place, Tree, array};

/// Every root holds something; `shared` collides across all four scopes, `pair` inside a
/// root; one file is unloadable and one name is defaulted.
fn tree() -> Tree {
    let tree = Tree::new();
    tree.trust();
    for (index, place) in Place::IN_PRECEDENCE_ORDER.into_iter().enumerate() {
        let own = format!("{}-{index}", place.scope());
        tree.skill(place, &own, &own, &format!("Only in root {index}."));
        tree.skill(place, "shared", "shared", &format!("Copy in root {index}."));
    }
    tree.skill(Place::UserAgents, "cat/a", "pair", "First in the root.");
    tree.skill(Place::UserAgents, "cat/b", "pair", "Second in the root.");
    tree.write(
        &tree.root(Place::ProjectAgents).join("unnamed/SKILL.md"),
        "---\ndescription: Named by its folder.\n---\nBody.\n",
    );
    tree.write(
        &tree.root(Place::Legacy).join("broken/SKILL.md"),
        "---\nname: broken\n",
    );
    tree
}

/// `(name, scope, location)` of every entry of a JSON array field.
fn triples(listing: &Value, field: &str) -> Vec<(String, String, String)> {
    array(listing, field)
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["scope"].as_str().unwrap().to_owned(),
                s["location"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn list_agrees_scope_by_scope() {
    let tree = tree();
    let library = tree.library(true);

    let mut options = ListOptions::default();
    options.include_shadowed = true;
    let listing = library.list(&options).unwrap();
    let binary = tree
        .run(&["list", "--all", "--json", "--profile", PROFILE])
        .json();
    let ours: Vec<(String, String, String)> = listing
        .skills
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                s.scope.to_string(),
                super::text(&s.location),
            )
        })
        .collect();
    assert_eq!(triples(&binary, "skills"), ours);
    let ours_shadowed: Vec<(String, String, String)> = listing
        .shadowed
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                s.scope.to_string(),
                super::text(&s.location),
            )
        })
        .collect();
    assert_eq!(triples(&binary, "shadowed"), ours_shadowed);
    // The whole documents agree too: diagnostics, shadowed records, permissions.
    assert_eq!(serde_json::to_value(&listing).unwrap(), binary);
    // What the tree holds: 10 own skills, `shared`, `pair`, `unnamed`; 9 + 1 losers.
    let roots = Place::IN_PRECEDENCE_ORDER.len();
    assert_eq!(listing.skills.len(), roots + 3, "{:?}", listing.skills);
    assert_eq!(listing.shadowed.len(), roots);
    assert!(
        listing
            .diagnostics
            .iter()
            .any(|d| d.code == skills::DiagnosticCode::UnterminatedFrontmatter)
    );

    // The remote scope holds only what a fetch put in the cache: `remote.rs` lists it.
    for scope in SkillScope::ALL
        .into_iter()
        .filter(|scope| *scope != SkillScope::Remote)
    {
        let mut options = ListOptions::default();
        options.scope = Some(scope);
        options.include_shadowed = true;
        let listing = library.list(&options).unwrap();
        assert!(!listing.skills.is_empty(), "{scope}");
        assert!(listing.skills.iter().all(|s| s.scope == scope), "{scope}");
        let binary = tree
            .run(&[
                "list",
                "--all",
                "--json",
                "--scope",
                scope.as_str(),
                "--profile",
                PROFILE,
            ])
            .json();
        assert_eq!(serde_json::to_value(&listing).unwrap(), binary, "{scope}");
    }
}

#[test]
fn show_explain_read_and_prompt_agree() {
    let tree = tree();
    let library = tree.library(true);
    let catalog = library.discover().unwrap();
    let with_profile = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--profile", PROFILE]);
        tree.run(&all)
    };

    for skill in &catalog.skills {
        let name = skill.name.as_str();
        let shown = with_profile(&["show", name, "--json"]).json();
        assert_eq!(
            serde_json::to_value(library.get(name).unwrap()).unwrap(),
            shown,
            "{name}"
        );
        let explained = with_profile(&["explain", name, "--json"]).json();
        assert_eq!(
            serde_json::to_value(library.explain(name).unwrap()).unwrap(),
            explained,
            "{name}"
        );
    }
    // `shared` is explained the same way by both, winner first.
    let explained = with_profile(&["explain", "shared", "--json"]).json();
    assert_eq!(
        explained["candidates"].as_array().unwrap().len(),
        Place::IN_PRECEDENCE_ORDER.len()
    );
    assert_eq!(explained["candidates"][0]["scope"], "profile");

    let names = ["shared", "pair", "unnamed"];
    let read = with_profile(&["read", &names.join(","), "--json"]).json();
    assert_eq!(
        serde_json::to_value(library.read(&names).unwrap()).unwrap(),
        read
    );
    let text = with_profile(&["read", &names.join(",")]);
    assert_eq!(
        text.ok(),
        skills::render::read_text(&library.read(&names).unwrap())
    );

    for format in Format::ALL {
        let rendered = library
            .render_catalog(&skills::render::Options::new(format))
            .unwrap();
        let prompt = with_profile(&["prompt", "--format", format.as_str()]);
        assert_eq!(prompt.ok(), rendered.text, "{format}");
    }
}
