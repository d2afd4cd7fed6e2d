//! A watching handle through the facade: its search follows what the watch reports, and once
//! the last watch is dropped the handle no longer answers from a catalog nothing keeps
//! current. With the feature off there is no watch.

use std::time::Duration;

use skills::{Skills, SkillsConfig};

#[expect(
    clippy::unwrap_used,
    reason = "a test helper: a failure to write is the test's failure"
)]
fn write_skill(root: &std::path::Path, name: &str, description: &str) {
    let folder = root.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
    )
    .unwrap();
}

#[expect(
    clippy::unwrap_used,
    reason = "a test helper: a failed search is the test's failure"
)]
fn names(skills: &Skills, query: &str) -> Vec<String> {
    skills
        .search(query, 5)
        .unwrap()
        .into_iter()
        .map(|hit| hit.name)
        .collect()
}

#[test]
fn search_follows_the_watch_and_discovers_again_once_it_stops() {
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join(".openhuman/skills");
    write_skill(&root, "pdf-extract", "Pulls the tables out of PDF files.");
    let skills = Skills::new(SkillsConfig::new(workspace.path(), home.path()));
    let mut options = skills::watch::Options::default();
    options.debounce = Duration::from_millis(50);
    let watched = skills.watch(&options);
    if !skills::ENABLED {
        assert_eq!(watched.unwrap_err().kind(), "disabled");
        return;
    }
    let mut watch = watched.unwrap();
    assert!(matches!(
        watch.blocking_next(),
        Some(skills::watch::Event::Ready { skills: 1, .. })
    ));
    assert_eq!(names(&skills, "tables in a pdf"), ["pdf-extract"]);

    write_skill(&root, "weather", "Forecasts rain and wind for any city.");
    loop {
        match watch.blocking_next() {
            Some(skills::watch::Event::CatalogChanged { added, .. }) if added == ["weather"] => {
                break;
            }
            Some(_) => {}
            None => panic!("the watch stopped"),
        }
    }
    assert_eq!(names(&skills, "will it rain"), ["weather"]);

    drop(watch);
    // Nothing watches now: a skill written behind the handle's back is found at once, by a
    // search that discovers again.
    write_skill(
        &root,
        "invoice-reader",
        "Reads totals from scanned invoices.",
    );
    assert_eq!(names(&skills, "scanned invoices"), ["invoice-reader"]);
}
