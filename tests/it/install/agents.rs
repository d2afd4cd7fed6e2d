//! `--agent NAME` and `--agent detected` through the binary (issue 12 §4): one copy in the
//! scope's root, a relative symlink in the folder of each named agent that does not read that
//! root, nothing in the folders of agents that do, taken places refused without `--force`, and
//! `uninstall` removing every link the install made.

use std::path::{Path, PathBuf};

use skills_tests::http::{Reply, Server};

use super::{Skill, content, files_of, install_json, listed, run};
use crate::discovery::{Place, Tree, text};

fn serve(server: &Server, skill: &Skill) -> String {
    let path = format!("/{}/SKILL.md", skill.name);
    server.route(&path, Reply::Ok(skill.definition().to_vec()));
    server.url(&path)
}

fn links_of(outcome: &serde_json::Value) -> Vec<String> {
    let mut links: Vec<String> = outcome["links"]
        .as_array()
        .unwrap_or_else(|| panic!("no links in {outcome}"))
        .iter()
        .map(|link| link.as_str().unwrap().to_owned())
        .collect();
    links.sort();
    links
}

/// The folders under `base` (recursively, not following links) that hold anything named
/// `name`: where an install put something.
fn places_named(base: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![base.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_name() == name {
                found.push(path.clone());
            }
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn cursor_and_codex_share_one_copy_in_the_shared_root() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skill = Skill::new("pdf-tools", "Works with PDFs.", "Read them.", &[]);
    let url = serve(&server, &skill);

    let outcomes = install_json(&tree, &[&url, "--agent", "cursor", "--agent", "codex"]);
    assert_eq!(outcomes.len(), 1);
    let copy = tree.root(Place::UserAgents).join("pdf-tools");
    assert_eq!(outcomes[0]["path"], text(&copy));
    // Both read ~/.agents/skills (their own documentation says so): no link, no second copy.
    assert_eq!(links_of(&outcomes[0]), Vec::<String>::new());
    assert_eq!(
        places_named(&tree.home, "pdf-tools"),
        std::slice::from_ref(&copy)
    );
    assert_eq!(content(files_of(&copy)), skill.files);
    assert!(!tree.home.join(".cursor").exists() && !tree.home.join(".codex").exists());

    // The same agents in the project scope, with Windsurf and Claude Code, which do not
    // read .agents/skills: a relative link each, to the one copy.
    tree.trust();
    let outcomes = install_json(
        &tree,
        &[
            &url,
            "--scope",
            "project",
            "--agent",
            "cursor",
            "--agent",
            "codex",
            "--agent",
            "windsurf",
            "--agent",
            "Claude-Code",
        ],
    );
    let copy = tree.root(Place::ProjectAgents).join("pdf-tools");
    let windsurf = tree.workspace.join(".windsurf/skills/pdf-tools");
    let claude = tree.root(Place::ProjectClaude).join("pdf-tools");
    assert_eq!(links_of(&outcomes[0]), [text(&claude), text(&windsurf)]);
    for link in [&windsurf, &claude] {
        assert_eq!(
            std::fs::read_link(link).unwrap(),
            Path::new("../../.agents/skills/pdf-tools"),
            "{}",
            link.display()
        );
        assert_eq!(content(files_of(link)), skill.files);
    }
    let listing = listed(&tree);
    assert_eq!(listing["pdf-tools"].0, "project", "{listing:?}");
    assert_eq!(listing["pdf-tools"].1, text(&copy.join("SKILL.md")));

    // Installing again changes nothing and is refused nowhere.
    let again = install_json(
        &tree,
        &[
            &url,
            "--scope",
            "project",
            "--agent",
            "windsurf",
            "--agent",
            "claude-code",
        ],
    );
    assert_eq!(again[0]["already_installed"], true);
    assert_eq!(links_of(&again[0]), [text(&claude), text(&windsurf)]);

    // Uninstall removes the copy and both links, and says so.
    let removed = tree
        .run(&["--json", "uninstall", "pdf-tools", "--scope", "project"])
        .json();
    let mut links: Vec<&str> = removed["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|link| link.as_str().unwrap())
        .collect();
    links.sort_unstable();
    assert_eq!(links, [text(&claude), text(&windsurf)], "{removed}");
    assert_eq!(
        places_named(&tree.workspace, "pdf-tools"),
        Vec::<PathBuf>::new()
    );
    // The user-scope copy is another install, left alone.
    assert!(
        tree.root(Place::UserAgents)
            .join("pdf-tools/SKILL.md")
            .is_file()
    );
}

#[test]
fn detected_reaches_the_agents_whose_config_folders_exist() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skill = Skill::new("release-notes", "Writes release notes.", "Summarise.", &[]);
    let url = serve(&server, &skill);

    // No config folder at all: refused before anything is fetched or written.
    let refused = run(&tree, &["install", &url, "--agent", "detected"]);
    assert_eq!(refused.code, Some(2), "{refused:?}");
    assert!(refused.stderr.contains("found no agent"), "{refused:?}");
    assert_eq!(
        server.targets(),
        Vec::<String>::new(),
        "nothing was fetched"
    );
    assert_eq!(
        places_named(&tree.home, "release-notes"),
        Vec::<PathBuf>::new()
    );

    // Two fake agents in the temporary home: Windsurf and Roo Code.
    std::fs::create_dir_all(tree.home.join(".codeium/windsurf")).unwrap();
    std::fs::create_dir_all(tree.home.join(".roo")).unwrap();
    let outcomes = install_json(&tree, &[&url, "--agent", "detected"]);
    let copy = tree.root(Place::UserAgents).join("release-notes");
    let windsurf = tree.home.join(".codeium/windsurf/skills/release-notes");
    let roo = tree.home.join(".roo/skills/release-notes");
    assert_eq!(links_of(&outcomes[0]), [text(&windsurf), text(&roo)]);
    assert_eq!(
        std::fs::read_link(&windsurf).unwrap(),
        Path::new("../../../.agents/skills/release-notes")
    );
    assert_eq!(
        std::fs::read_link(&roo).unwrap(),
        Path::new("../../.agents/skills/release-notes")
    );
    assert_eq!(
        places_named(&tree.home, "release-notes"),
        [copy.clone(), windsurf.clone(), roo.clone()]
    );

    let removed = tree.run(&["--json", "uninstall", "release-notes"]).json();
    assert_eq!(
        removed["links"].as_array().map(Vec::len),
        Some(2),
        "{removed}"
    );
    assert_eq!(
        places_named(&tree.home, "release-notes"),
        Vec::<PathBuf>::new()
    );
    // The agents' folders themselves stay: they are the agents'.
    assert!(tree.home.join(".roo/skills").is_dir());
}

#[test]
fn a_taken_agent_place_stops_the_install_unless_forced() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skill = Skill::new("lint-rules", "The lint rules.", "Lint.", &[]);
    let url = serve(&server, &skill);
    let mine = tree.home.join(".roo/skills/lint-rules");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(
        mine.join("SKILL.md"),
        "---\nname: lint-rules\ndescription: Mine.\n---\n",
    )
    .unwrap();

    let refused = run(&tree, &["install", &url, "--agent", "roo"]);
    assert_eq!(refused.code, Some(1), "{refused:?}");
    assert!(refused.stderr.contains(&text(&mine)), "{refused:?}");
    assert!(
        !tree.root(Place::UserAgents).join("lint-rules").exists(),
        "nothing was written"
    );
    assert!(mine.join("SKILL.md").is_file());

    let forced = install_json(&tree, &[&url, "--agent", "roo", "--force"]);
    assert_eq!(links_of(&forced[0]), [text(&mine)]);
    assert!(std::fs::symlink_metadata(&mine).unwrap().is_symlink());
}

#[test]
fn unknown_agents_and_two_roots_are_refused_and_the_old_roots_still_work() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let skill = Skill::new("notes", "Takes notes.", "Write.", &[]);
    let url = serve(&server, &skill);

    let unknown = run(&tree, &["install", &url, "--agent", "vim"]);
    assert_eq!(unknown.code, Some(2), "{unknown:?}");
    assert!(unknown.stderr.contains("windsurf"), "{unknown:?}");
    let two = run(
        &tree,
        &["install", &url, "--agent", "app", "--agent", "claude"],
    );
    assert_eq!(two.code, Some(2), "{two:?}");
    assert!(two.stderr.contains("two roots"), "{two:?}");
    assert_eq!(
        server.targets(),
        Vec::<String>::new(),
        "nothing was fetched"
    );

    // `claude` is still the root `.claude/skills` (and nothing is linked anywhere).
    let outcomes = install_json(&tree, &[&url, "--agent", "claude"]);
    assert_eq!(
        outcomes[0]["path"],
        text(&tree.root(Place::UserClaude).join("notes"))
    );
    assert_eq!(links_of(&outcomes[0]), Vec::<String>::new());

    // `new` takes the same values.
    let created = tree
        .run(&[
            "--json",
            "new",
            "drafts",
            "-d",
            "Drafts things.",
            "--agent",
            "windsurf",
        ])
        .json();
    let link = tree.home.join(".codeium/windsurf/skills/drafts");
    assert_eq!(
        created["links"],
        serde_json::json!([text(&link)]),
        "{created}"
    );
    assert!(link.join("SKILL.md").is_file());
}

#[test]
fn new_refuses_a_taken_agent_place_and_writes_nothing() {
    let tree = Tree::new();
    let mine = tree.home.join(".roo/skills/drafts");
    std::fs::create_dir_all(&mine).unwrap();
    let refused = tree.run(&["new", "drafts", "-d", "Drafts things.", "--agent", "roo"]);
    assert_eq!(refused.code, Some(1), "{refused:?}");
    assert!(refused.stderr.contains("already exists"), "{refused:?}");
    assert!(
        !refused.stderr.contains("--force"),
        "new has no --force: {refused:?}"
    );
    assert!(!tree.root(Place::UserAgents).join("drafts").exists());
    assert!(mine.is_dir());
}
