//! `skills search` through the built binary: a task phrasing finds the skill it describes
//! first, with its score and matched fields; the index kept in the cache folder follows an
//! edit and a removal; query syntax is plain text; a skill's hostile description reaches the
//! terminal sanitised.

use serde_json::Value;

use crate::discovery::{Place, Tree};

fn names(run: &crate::discovery::Run) -> Vec<String> {
    let value: Value = serde_json::from_str(&run.stdout).unwrap();
    value["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_task_finds_its_skill_and_the_index_follows_the_files() {
    let tree = Tree::new();
    tree.skill(
        Place::UserOpenhuman,
        "pdf-extract",
        "pdf-extract",
        "Pulls the text and tables out of PDF files, scanned pages included.",
    );
    tree.skill(
        Place::UserOpenhuman,
        "weather",
        "weather",
        "Forecasts for any city.",
    );
    let found = tree.run(&[
        "search", "--json", "get", "the", "tables", "from", "a", "scanned", "invoice",
    ]);
    assert_eq!(found.code, Some(0), "{}", found.stderr);
    assert_eq!(names(&found), ["pdf-extract"], "{}", found.stdout);
    let value: Value = serde_json::from_str(&found.stdout).unwrap();
    assert_eq!(value["query"], "get the tables from a scanned invoice");
    assert!(value["results"][0]["score"].as_f64().unwrap() > 0.0);
    assert_eq!(value["results"][0]["matched"][0], "description");
    let cache = tree.home.join(".openhuman/cache");
    assert!(
        std::fs::read_dir(&cache).unwrap().any(|entry| entry
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("search-")),
        "the index is kept beside the catalog cache"
    );

    tree.skill(
        Place::UserOpenhuman,
        "weather",
        "weather",
        "Tomorrow's rain and wind.",
    );
    assert_eq!(
        names(&tree.run(&["search", "--json", "will it rain tomorrow"])),
        ["weather"]
    );
    assert!(names(&tree.run(&["search", "--json", "forecasts city"])).is_empty());

    for syntax in ["+tables -pdf", "title:pdf AND tables", "\"scanned"] {
        let run = tree.run(&["search", "--json", syntax]);
        assert_eq!(run.code, Some(0), "{syntax}: {}", run.stderr);
        assert_eq!(names(&run), ["pdf-extract"], "{syntax} is plain words");
    }
    let nothing = tree.run(&["search", "the", "and", "of"]);
    assert_eq!(nothing.code, Some(0));
    assert!(nothing.stdout.is_empty() && nothing.stderr.contains("no skill matches"));
    let refused = tree.run(&["search", "--limit", "0", "pdf"]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
}

#[test]
fn a_hostile_description_is_shown_sanitised() {
    let tree = Tree::new();
    tree.skill(
        Place::UserOpenhuman,
        "evil",
        "evil",
        "Extracts tables \u{1b}]0;owned\u{7}\u{1b}[31m red \u{202e}reversed",
    );
    let run = tree.run(&["search", "extracts", "tables"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("evil"), "{}", run.stdout);
    assert!(
        !run.stdout.contains('\u{1b}')
            && !run.stdout.contains('\u{202e}')
            && !run.stdout.contains('\u{7}'),
        "{:?}",
        run.stdout
    );
}
