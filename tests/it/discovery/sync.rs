//! `skills sync` (02 §Rendering the catalog, **`AGENTS.md` sync**): a second run leaves a
//! byte-identical file and says it is up to date (`changed: false`); hand-written text above
//! and below the block survives byte for byte, also when the block is rewritten;
//! `--project-only` lists only project skills; descriptions are escaped.

use std::collections::BTreeSet;

use skills::render::SyncOptions;

use super::{Place, Tree, text};

/// Hand-written text with bytes a careless rewrite would normalise: trailing spaces, a tab,
/// non-ASCII, an HTML comment, no newline at the very end.
const ABOVE: &str =
    "# My project  \n\nRules for agents:\t be careful — ünïcödé.\n<!-- keep me -->\n";
const BELOW: &str = "\n\n## Footer\n\nWritten by hand.   \nNo newline at the end";

fn tree() -> Tree {
    let tree = Tree::new();
    tree.trust();
    tree.skill(Place::ProjectOpenhuman, "pdf", "pdf-tools", "Reads PDFs.");
    tree.skill(
        Place::ProjectAgents,
        "zip",
        "zip-tools",
        "Packs <zip> & more.",
    );
    tree.skill(
        Place::UserOpenhuman,
        "csv",
        "csv-tools",
        "Cleans CSV files.",
    );
    tree.skill(Place::Legacy, "old", "old-tools", "From the legacy folder.");
    tree
}

/// The names in the block's `<available_skills>` list (the usage text above it mentions
/// `skills read <name>`, which is not an entry).
fn block_names(agents_md: &str) -> BTreeSet<String> {
    let list = agents_md.split("<available_skills>").nth(1).unwrap();
    let list = list.split("</available_skills>").next().unwrap();
    list.split("<name>")
        .skip(1)
        .map(|rest| rest.split("</name>").next().unwrap().to_owned())
        .collect()
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|name| (*name).to_owned()).collect()
}

#[test]
fn sync_twice_is_byte_identical_and_keeps_hand_written_text() {
    let tree = tree();
    let agents_md = tree.workspace.join("AGENTS.md");
    tree.write(&agents_md, ABOVE);

    let first = tree.run(&["sync"]);
    assert_eq!(
        first.ok(),
        format!("wrote {} (4 skills)\n", text(&agents_md))
    );
    let written = std::fs::read(&agents_md).unwrap();
    let content = String::from_utf8(written.clone()).unwrap();
    assert!(content.starts_with(ABOVE), "{content}");
    assert_eq!(
        block_names(&content),
        names(&["csv-tools", "old-tools", "pdf-tools", "zip-tools"])
    );
    for part in [
        "<skills_system priority=\"1\">",
        "## Available Skills",
        "<!-- SKILLS_TABLE_START -->",
        "skills read <name>",
        "<location>project</location>",
        "<location>global</location>",
        "<!-- SKILLS_TABLE_END -->",
    ] {
        assert!(content.contains(part), "{part}: {content}");
    }
    assert!(content.trim_end().ends_with("</skills_system>"));
    assert!(content.contains("Packs &lt;zip&gt; &amp; more."));

    // Unchanged input: the same bytes, reported as up to date.
    let second = tree.run(&["sync"]);
    assert_eq!(
        second.ok(),
        format!("up to date: {} (4 skills)\n", text(&agents_md))
    );
    assert_eq!(std::fs::read(&agents_md).unwrap(), written);
    let third = tree.run(&["sync", "--json"]).json();
    assert_eq!(
        third,
        serde_json::json!({"path": text(&agents_md), "changed": false, "skills": 4})
    );
    assert_eq!(std::fs::read(&agents_md).unwrap(), written);

    // Text added below the block by hand, then a new skill: the block is rewritten, and both
    // hand-written parts survive byte for byte.
    std::fs::write(&agents_md, [written.as_slice(), BELOW.as_bytes()].concat()).unwrap();
    tree.skill(Place::UserAgents, "new", "new-tools", "Added later.");
    let outcome = tree.run(&["sync", "--json"]).json();
    assert_eq!(outcome["changed"], true);
    assert_eq!(outcome["skills"], 5);
    let rewritten = std::fs::read_to_string(&agents_md).unwrap();
    assert!(rewritten.starts_with(ABOVE), "{rewritten}");
    assert!(rewritten.ends_with(BELOW), "{rewritten}");
    assert!(block_names(&rewritten).contains("new-tools"));
    assert_eq!(rewritten.matches("<skills_system").count(), 1);
    let again = std::fs::read(&agents_md).unwrap();
    let outcome = tree.run(&["sync", "--json"]).json();
    assert_eq!(outcome["changed"], false);
    assert_eq!(std::fs::read(&agents_md).unwrap(), again);

    // The library writes the same bytes and agrees that nothing changed.
    let outcome = tree
        .library(false)
        .sync_agents_md(&SyncOptions::default())
        .unwrap();
    assert!(!outcome.changed);
    assert_eq!(outcome.path, agents_md);
    assert_eq!(outcome.skills, 5);
    assert_eq!(std::fs::read(&agents_md).unwrap(), again);
}

#[test]
fn project_only_lists_only_project_skills() {
    let tree = tree();
    let agents_md = tree.workspace.join("AGENTS.md");

    let run = tree.run(&["sync", "--project-only"]);
    assert_eq!(run.ok(), format!("wrote {} (2 skills)\n", text(&agents_md)));
    let content = std::fs::read_to_string(&agents_md).unwrap();
    assert_eq!(block_names(&content), names(&["pdf-tools", "zip-tools"]));
    assert!(!content.contains("<location>global</location>"));
    assert_eq!(
        tree.run(&["sync", "--project-only", "--json"]).json()["changed"],
        false
    );

    // Dropping `--project-only` adds the user and legacy skills to the same block.
    let outcome = tree.run(&["sync", "--json"]).json();
    assert_eq!(outcome["changed"], true);
    assert_eq!(outcome["skills"], 4);
    let content = std::fs::read_to_string(&agents_md).unwrap();
    assert_eq!(
        block_names(&content),
        names(&["csv-tools", "old-tools", "pdf-tools", "zip-tools"])
    );

    // `--output` writes another file, relative to the workspace; the library agrees.
    let run = tree.run(&["sync", "--project-only", "--output", "docs/CLAUDE.md"]);
    let other = tree.workspace.join("docs/CLAUDE.md");
    assert_eq!(run.ok(), format!("wrote {} (2 skills)\n", text(&other)));
    let mut options = SyncOptions::default();
    options.project_only = true;
    options.output = Some("docs/CLAUDE.md".into());
    let outcome = tree.library(false).sync_agents_md(&options).unwrap();
    assert_eq!(outcome.path, other);
    assert!(!outcome.changed);
    assert_eq!(outcome.skills, 2);
}
