//! Our install record and the vercel tool's `skills-lock.json` (docs/decisions.md, "Our
//! install record and the vercel tool's lock"): ours is `.skills-installed.json` in each skill
//! root, theirs `skills-lock.json` at the project root. The test proves, with the vercel tool
//! itself, that neither breaks the other, and that an old record of ours under the shared name
//! (which the peer misreads as its own lock) is moved away by our next write.

use std::path::Path;

use serde_json::Value;
use skills_tests::http::{Reply, Server};
use skills_tests::peers::Peer;
use skills_types::files::{LEGACY_LOCK_FILE, LOCK_FILE};

use super::{peers_or_skip, shown};
use crate::discovery::{Place, Tree};
use crate::install::{Skill, install_json, read_json};

fn serve(server: &Server, skill: &Skill) -> String {
    let path = format!("/{}/SKILL.md", skill.name);
    server.route(&path, Reply::Ok(skill.definition().to_vec()));
    server.url(&path)
}

fn names(listing: &Value) -> Vec<String> {
    let mut names: Vec<String> = listing
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {listing}"))
        .iter()
        .map(|skill| skill["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

fn json_of(output: &std::process::Output) -> Value {
    assert!(output.status.success(), "{}", shown(output));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!("not JSON ({error}): {}", shown(output));
    })
}

fn write_skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"),
    )
    .unwrap();
}

#[test]
fn the_vercel_tool_and_our_install_record_leave_each_other_alone() {
    let Some(peers) =
        peers_or_skip("the_vercel_tool_and_our_install_record_leave_each_other_alone")
    else {
        return;
    };
    let tree = Tree::new();
    tree.trust();
    let server = Server::start().unwrap();
    let root = tree.root(Place::ProjectAgents);

    // A user upgrading from a version that wrote `skills-lock.json` into the root: its old
    // record, and the skill it records.
    write_skill(
        &root.join("old-notes"),
        "old-notes",
        "Installed by an older version.",
    );
    let old_record = r#"{"version":1,"skills":{"old-notes":{"source_url":"https://skills.example.com/old-notes/SKILL.md","kind":"skill-md","sha256":"sha256:0000000000000000000000000000000000000000000000000000000000000000","version":null}}}"#;
    std::fs::write(root.join(LEGACY_LOCK_FILE), old_record).unwrap();
    // Why the old name had to go: the vercel tool, run in that folder, takes our record for
    // its own lock and fails on it.
    let confused = peers.run(Peer::Vercel, &["experimental_install"], &tree.home, &root);
    let text = shown(&confused);
    assert!(
        text.contains("Cannot restore old-notes"),
        "the peer misreads an old record of ours: {text}"
    );

    // Our install: the record moves to its own name, with the old entry kept.
    let pdf = Skill::new("pdf-tools", "Works with PDFs.", "Read them.", &[]);
    let url = serve(&server, &pdf);
    install_json(&tree, &[&url, "--scope", "project"]);
    install_json(&tree, &[&url]);
    assert!(
        !root.join(LEGACY_LOCK_FILE).exists(),
        "the old record was moved"
    );
    let ours = read_json(&root.join(LOCK_FILE));
    assert_eq!(
        crate::install::keys(&ours["skills"]),
        ["old-notes", "pdf-tools"],
        "{ours}"
    );
    let quiet = peers.run(Peer::Vercel, &["experimental_install"], &tree.home, &root);
    assert!(
        !shown(&quiet).contains("Cannot restore"),
        "nothing of ours is taken for the peer's lock any more: {}",
        shown(&quiet)
    );
    let record_before = std::fs::read(root.join(LOCK_FILE)).unwrap();

    // The peer installs a skill of its own (a local folder: no network needed) into the same
    // project, writing its lock at the project root.
    write_skill(
        &tree.workspace.join("src/peer-skill"),
        "peer-skill",
        "Installed by the peer.",
    );
    let added = peers.run(
        Peer::Vercel,
        &["add", "./src/peer-skill", "--agent", "codex", "-y"],
        &tree.home,
        &tree.workspace,
    );
    assert!(added.status.success(), "{}", shown(&added));
    let theirs_path = tree.workspace.join(LEGACY_LOCK_FILE);
    let theirs = read_json(&theirs_path);
    assert_eq!(theirs["version"], 1, "{theirs}");
    assert_eq!(
        crate::install::keys(&theirs["skills"]),
        ["peer-skill"],
        "{theirs}"
    );
    assert_eq!(
        theirs["skills"]["peer-skill"]["sourceType"], "local",
        "{theirs}"
    );
    let hash = theirs["skills"]["peer-skill"]["computedHash"]
        .as_str()
        .unwrap();
    assert!(
        hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "{hash}"
    );
    assert!(root.join("peer-skill/SKILL.md").is_file());
    assert_eq!(
        std::fs::read(root.join(LOCK_FILE)).unwrap(),
        record_before,
        "the peer left our record alone"
    );
    assert!(
        !root.join(LEGACY_LOCK_FILE).exists(),
        "and wrote no lock into our root"
    );

    // The peer lists our skills beside its own, in both scopes, and restores its own from its
    // lock with our record in the same root.
    let project = json_of(&peers.run(
        Peer::Vercel,
        &["list", "--json"],
        &tree.home,
        &tree.workspace,
    ));
    assert_eq!(
        names(&project),
        ["old-notes", "pdf-tools", "peer-skill"],
        "{project}"
    );
    let global = json_of(&peers.run(
        Peer::Vercel,
        &["list", "-g", "--json"],
        &tree.home,
        &tree.workspace,
    ));
    assert!(names(&global).contains(&"pdf-tools".to_owned()), "{global}");
    std::fs::remove_dir_all(root.join("peer-skill")).unwrap();
    let restored = peers.run(
        Peer::Vercel,
        &["experimental_install"],
        &tree.home,
        &tree.workspace,
    );
    assert!(restored.status.success(), "{}", shown(&restored));
    assert!(
        root.join("peer-skill/SKILL.md").is_file(),
        "{}",
        shown(&restored)
    );

    // Ours, with the peer's lock beside it: every skill listed, an install works, and neither
    // file takes anything from the other.
    let theirs_before = std::fs::read(&theirs_path).unwrap();
    let listing = crate::install::listed(&tree);
    for name in ["old-notes", "pdf-tools", "peer-skill"] {
        assert!(listing.contains_key(name), "{name}: {listing:?}");
    }
    let csv = Skill::new("csv-tools", "Works with CSV.", "Parse it.", &[]);
    let csv_url = serve(&server, &csv);
    install_json(&tree, &[&csv_url, "--scope", "project"]);
    let ours = read_json(&root.join(LOCK_FILE));
    assert_eq!(
        crate::install::keys(&ours["skills"]),
        ["csv-tools", "old-notes", "pdf-tools"],
        "we never adopt the peer's entries: {ours}"
    );
    assert_eq!(
        std::fs::read(&theirs_path).unwrap(),
        theirs_before,
        "we never touch the peer's lock"
    );
    let after = json_of(&peers.run(
        Peer::Vercel,
        &["list", "--json"],
        &tree.home,
        &tree.workspace,
    ));
    assert_eq!(
        names(&after),
        ["csv-tools", "old-notes", "pdf-tools", "peer-skill"],
        "{after}"
    );
}
