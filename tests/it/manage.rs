//! Bundled resources, `new` and `uninstall` through the binary (02 §Resources, §Create,
//! update, uninstall; 05): what a person sees, exit statuses, and the files left behind.

use crate::discovery::{Place, Tree, array};

fn skill_with_files(tree: &Tree) -> std::path::PathBuf {
    let file = tree.skill(
        Place::UserOpenhuman,
        "csv-tools",
        "csv-tools",
        "Cleans CSV files.",
    );
    let dir = file.parent().unwrap().to_path_buf();
    tree.write(
        &dir.join("references/format.md"),
        "# Format\n\nComma separated.\n",
    );
    tree.write(&dir.join("scripts/clean.py"), "print('clean')\n");
    tree.write(&dir.join(".env"), "SECRET=1\n");
    dir
}

#[test]
fn resource_reads_a_bundled_file_and_refuses_escapes() {
    let tree = Tree::new();
    skill_with_files(&tree);
    let read = tree.run(&["resource", "csv-tools", "references/format.md"]);
    assert_eq!(read.ok(), "# Format\n\nComma separated.\n");

    let json = tree
        .run(&["--json", "resource", "csv-tools", "scripts/clean.py"])
        .json();
    assert_eq!(json["id"], "csv-tools");
    assert_eq!(json["relative_path"], "scripts/clean.py");
    assert_eq!(json["content"], "print('clean')\n");
    assert_eq!(json["bytes"], 15);

    for path in [
        "../csv-tools/SKILL.md",
        "/etc/passwd",
        ".env",
        "references/../../x",
    ] {
        let refused = tree.run(&["resource", "csv-tools", path]);
        assert_eq!(refused.code, Some(2), "{path}: {refused:?}");
        assert!(
            refused.stdout.is_empty(),
            "{path}: nothing is printed but the error"
        );
        assert!(
            refused
                .stderr
                .starts_with(&format!("error: refused '{path}'")),
            "{refused:?}"
        );
    }
    let missing = tree.run(&["resource", "csv-tools", "references/none.md"]);
    assert_eq!(missing.code, Some(2));
    assert!(
        missing.stderr.contains("no file exists at that path"),
        "{missing:?}"
    );
}

/// `./references/x.md` is how people and agents spell a path next to `SKILL.md`: leading `./`
/// prefixes are dropped before the lexical check; a `.` anywhere else is still refused.
#[test]
fn resource_accepts_leading_current_dir_prefixes_only() {
    let tree = Tree::new();
    skill_with_files(&tree);
    for path in ["./references/format.md", "././references/format.md"] {
        let read = tree.run(&["resource", "csv-tools", path]);
        assert_eq!(read.ok(), "# Format\n\nComma separated.\n", "{path}");
    }
    let json = tree
        .run(&["--json", "resource", "csv-tools", "./scripts/clean.py"])
        .json();
    assert_eq!(json["relative_path"], "scripts/clean.py");
    for path in [
        "references/./format.md",
        "./",
        "./../csv-tools/SKILL.md",
        ".//x",
    ] {
        let refused = tree.run(&["resource", "csv-tools", path]);
        assert_eq!(refused.code, Some(2), "{path}: {refused:?}");
        assert!(refused.stdout.is_empty(), "{path}: {refused:?}");
    }
}

#[cfg(unix)]
#[test]
fn resource_refuses_a_symlink_to_a_secret_outside() {
    let tree = Tree::new();
    let dir = skill_with_files(&tree);
    let secret = tree.write(&tree.base.join("secret.txt"), "TOP SECRET\n");
    std::os::unix::fs::symlink(&secret, dir.join("references/leak.md")).unwrap();
    let refused = tree.run(&["resource", "csv-tools", "references/leak.md"]);
    assert_eq!(refused.code, Some(2), "{refused:?}");
    assert!(!refused.stdout.contains("TOP SECRET"));
    assert!(refused.stderr.contains("symlink"), "{refused:?}");
}

#[test]
fn show_lists_the_resources() {
    let tree = Tree::new();
    skill_with_files(&tree);
    let json = tree.run(&["--json", "show", "csv-tools"]).json();
    let resources: Vec<(String, String)> = array(&json, "resources")
        .iter()
        .map(|resource| {
            (
                resource["path"].as_str().unwrap().to_owned(),
                resource["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        resources,
        [
            ("references/format.md".to_owned(), "reference".to_owned()),
            ("scripts/clean.py".to_owned(), "script".to_owned()),
        ]
    );
    let human = tree.run(&["show", "csv-tools"]);
    assert!(human.ok().contains("references/format.md"), "{human:?}");
    // A listing does not walk skill folders.
    let listing = tree.run(&["--json", "list"]).json();
    assert!(listing["skills"][0].get("resources").is_none());
}

#[test]
fn new_creates_once_and_refuses_to_overwrite() {
    let tree = Tree::new();
    let created = tree.run(&[
        "new",
        "release-notes",
        "--description",
        "Writes release notes from the changelog.",
        "--input",
        "version:The version being released:required",
    ]);
    assert!(
        created
            .ok()
            .starts_with("created release-notes (user scope)"),
        "{created:?}"
    );
    // New skills land in the shared root other agents read too.
    let file = tree.root(Place::UserAgents).join("release-notes/SKILL.md");
    let before = std::fs::read(&file).unwrap();

    let json = tree.run(&["--json", "show", "release-notes"]).json();
    assert_eq!(
        json["description"],
        "Writes release notes from the changelog."
    );
    assert_eq!(json["inputs"][0]["name"], "version");
    assert_eq!(json["inputs"][0]["required"], true);

    let again = tree.run(&["new", "release-notes", "-d", "Something else."]);
    assert_eq!(again.code, Some(1), "{again:?}");
    assert!(again.stderr.contains("already exists"), "{again:?}");
    assert_eq!(std::fs::read(&file).unwrap(), before);

    let bad = tree.run(&["new", "Release_Notes", "-d", "x"]);
    assert_eq!(bad.code, Some(2), "{bad:?}");
    let untrusted = tree.run(&["new", "team", "-d", "x", "--scope", "project"]);
    assert_eq!(untrusted.code, Some(1), "{untrusted:?}");
    assert!(
        untrusted.stderr.contains("hint: run 'skills trust'"),
        "{untrusted:?}"
    );
    let validated = skills_tests::skills()
        .args(["validate"])
        .arg(file.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(
        validated.status.code(),
        Some(0),
        "a new skill passes the validator"
    );
}

#[test]
fn uninstall_removes_the_skill_and_refuses_odd_names() {
    let tree = Tree::new();
    skill_with_files(&tree);
    let removed = tree.run(&["--json", "uninstall", "csv-tools"]).json();
    assert_eq!(removed["scope"], "user");
    assert_eq!(removed["was_link"], false);
    assert!(!tree.root(Place::UserOpenhuman).join("csv-tools").exists());
    assert!(array(&tree.run(&["--json", "list"]).json(), "skills").is_empty());
    for name in ["../../etc", "a/b", ".."] {
        let refused = tree.run(&["uninstall", name]);
        assert_eq!(refused.code, Some(2), "{name}: {refused:?}");
    }
    let missing = tree.run(&["uninstall", "csv-tools"]);
    assert_eq!(missing.code, Some(1), "{missing:?}");
}

#[cfg(unix)]
#[test]
fn uninstall_of_a_symlinked_skill_removes_only_the_link() {
    let tree = Tree::new();
    let target = tree.base.join("shared/linked");
    tree.write(
        &target.join("SKILL.md"),
        "---\nname: linked\ndescription: Kept elsewhere.\n---\n",
    );
    std::fs::create_dir_all(tree.root(Place::UserAgents)).unwrap();
    let link = tree.root(Place::UserAgents).join("linked");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let removed = tree.run(&["--json", "uninstall", "linked"]).json();
    assert_eq!(removed["was_link"], true);
    assert!(std::fs::symlink_metadata(&link).is_err());
    assert!(target.join("SKILL.md").is_file(), "the target survives");
}

#[test]
fn new_writes_where_agent_or_the_home_config_says() {
    let tree = Tree::new();
    let description = ["-d", "Notes."];
    let mut args = vec!["new", "one"];
    args.extend(description);
    tree.run(&args).ok();
    assert!(tree.root(Place::UserAgents).join("one/SKILL.md").is_file());
    let mut args = vec!["new", "two", "--agent", "app"];
    args.extend(description);
    tree.run(&args).ok();
    assert!(
        tree.root(Place::UserOpenhuman)
            .join("two/SKILL.md")
            .is_file()
    );

    // A trusted workspace's skills.toml cannot move it; the home's can.
    tree.trust();
    tree.write(
        &tree.workspace.join(".openhuman/skills.toml"),
        "[install]\nroot = \"claude\"\n",
    );
    let mut args = vec!["new", "three", "--scope", "project"];
    args.extend(description);
    tree.run(&args).ok();
    assert!(
        tree.root(Place::ProjectAgents)
            .join("three/SKILL.md")
            .is_file()
    );
    tree.user_config("[install]\nroot = \"app\"\n");
    let mut args = vec!["new", "four"];
    args.extend(description);
    tree.run(&args).ok();
    assert!(
        tree.root(Place::UserOpenhuman)
            .join("four/SKILL.md")
            .is_file()
    );
}

#[test]
fn uninstall_of_a_name_in_two_scopes_removes_nothing_and_lists_both() {
    let tree = Tree::new();
    tree.trust();
    tree.skill(Place::UserAgents, "review", "review", "User copy.");
    tree.skill(Place::ProjectOpenhuman, "review", "review", "Project copy.");
    let refused = tree.run(&["uninstall", "review"]);
    assert_eq!(refused.code, Some(2), "{refused:?}");
    for place in [Place::UserAgents, Place::ProjectOpenhuman] {
        let dir = tree.root(place).join("review");
        assert!(
            refused.stderr.contains(&dir.display().to_string()),
            "{refused:?}"
        );
        assert!(dir.join("SKILL.md").is_file(), "nothing was removed");
    }
    let removed = tree
        .run(&["--json", "uninstall", "review", "--scope", "user"])
        .json();
    assert_eq!(removed["scope"], "user");
    assert!(!tree.root(Place::UserAgents).join("review").exists());
    assert!(
        tree.root(Place::ProjectOpenhuman)
            .join("review/SKILL.md")
            .is_file()
    );
}

#[test]
fn uninstall_takes_the_name_list_shows() {
    let tree = Tree::new();
    tree.skill(Place::UserAgents, "pdf-v2", "pdf", "Reads PDFs.");
    let listed = tree.run(&["--json", "list"]).json();
    assert_eq!(array(&listed, "skills")[0]["name"], "pdf");
    let removed = tree.run(&["--json", "uninstall", "pdf"]).json();
    assert_eq!(removed["name"], "pdf-v2");
    assert!(!tree.root(Place::UserAgents).join("pdf-v2").exists());
}

#[cfg(unix)]
#[test]
fn uninstall_removes_the_agent_links_another_installer_made() {
    let tree = Tree::new();
    // The vercel tool's layout: the folder in .agents/skills, a relative link in .claude/skills.
    tree.skill(Place::UserAgents, "x", "x", "Shared.");
    tree.skill(Place::UserAgents, "y", "y", "Another.");
    let claude = tree.root(Place::UserClaude);
    std::fs::create_dir_all(&claude).unwrap();
    std::os::unix::fs::symlink("../../.agents/skills/x", claude.join("x")).unwrap();
    std::os::unix::fs::symlink("../../.agents/skills/y", claude.join("y")).unwrap();
    let removed = tree.run(&["--json", "uninstall", "x"]).json();
    assert_eq!(removed["was_link"], false);
    assert_eq!(
        removed["links"],
        serde_json::json!([claude.join("x").display().to_string()])
    );
    assert!(std::fs::symlink_metadata(claude.join("x")).is_err());
    assert!(
        std::fs::symlink_metadata(claude.join("y"))
            .unwrap()
            .is_symlink()
    );
    let listed = tree.run(&["list"]);
    assert_eq!(listed.code, Some(0), "{listed:?}");
    assert!(!listed.stderr.contains("warning"), "{listed:?}");

    // The human form names the links too.
    std::os::unix::fs::symlink("../../.agents/skills/y", claude.join("y-alias")).unwrap();
    let human = tree.run(&["uninstall", "y"]);
    for link in ["y", "y-alias"] {
        assert!(
            human.ok().contains(&format!(
                "removed the link {}, which led to it",
                claude.join(link).display()
            )),
            "{human:?}"
        );
        assert!(std::fs::symlink_metadata(claude.join(link)).is_err());
    }
}
