//! Workspace roots held against the user's places on real temporary trees: links at every
//! level, relative, dangling, chained and looping; the workspace being the home; a user root
//! named in `paths`.

use std::os::unix::fs::symlink;

use super::*;
use crate::testing::Tree;

impl Tree {
    fn places(&self) -> UserPlaces {
        crate::discover::user_places(&self.config())
    }

    fn mkdir(&self, path: &Path) {
        std::fs::create_dir_all(path).unwrap();
    }
}

/// The overlap of the project root `<ws>/<relative>`.
fn project(tree: &Tree, relative: &str) -> Option<Overlap> {
    tree.places()
        .overlap(SkillScope::Project, &tree.workspace.join(relative))
}

#[test]
fn a_plain_workspace_has_no_overlap() {
    let tree = Tree::new();
    for relative in [
        ".openhuman/skills",
        ".agents/skills",
        ".claude/skills",
        "skills",
    ] {
        tree.mkdir(&tree.workspace.join(relative));
        assert_eq!(project(&tree, relative), None, "{relative}");
    }
    // Nothing exists yet either.
    assert_eq!(project(&tree, ".agent/skills"), None);
}

#[test]
fn a_link_at_any_level_into_a_user_root_is_found_and_named() {
    type Plant = fn(&Tree);
    let cases: [(&str, Plant, &str, &str, Relation); 7] = [
        (
            "the app folder of .agents, linked",
            |tree| {
                tree.mkdir(&tree.home.join(".agents/skills"));
                symlink(tree.home.join(".agents"), tree.workspace.join(".agents")).unwrap();
            },
            ".agents/skills",
            ".agents",
            Relation::Same,
        ),
        (
            "a dangling link: nothing made yet",
            |tree| symlink(tree.home.join(".agents"), tree.workspace.join(".agents")).unwrap(),
            ".agents/skills",
            ".agents",
            Relation::Same,
        ),
        (
            "the skills folder itself, linked",
            |tree| {
                tree.mkdir(&tree.home.join(".claude/skills"));
                tree.mkdir(&tree.workspace.join(".claude"));
                symlink(
                    tree.home.join(".claude/skills"),
                    tree.workspace.join(".claude/skills"),
                )
                .unwrap();
            },
            ".claude/skills",
            ".claude/skills",
            Relation::Same,
        ),
        (
            "a relative link",
            |tree| symlink("../home/.agents", tree.workspace.join(".agents")).unwrap(),
            ".agents/skills",
            ".agents",
            Relation::Same,
        ),
        (
            "a chain of links",
            |tree| {
                symlink(tree.base.join("middle"), tree.workspace.join(".agents")).unwrap();
                symlink(tree.home.join(".agents"), tree.base.join("middle")).unwrap();
            },
            ".agents/skills",
            ".agents",
            Relation::Same,
        ),
        (
            "a link through `..`",
            |tree| {
                tree.mkdir(&tree.home.join(".claude"));
                symlink(
                    tree.home.join(".claude/../.agents"),
                    tree.workspace.join(".agents"),
                )
                .unwrap();
            },
            ".agents/skills",
            ".agents",
            Relation::Same,
        ),
        (
            "the project root into one skill of the user's",
            |tree| {
                tree.mkdir(&tree.home.join(".agents/skills/pdf"));
                tree.mkdir(&tree.workspace.join(".agents"));
                symlink(
                    tree.home.join(".agents/skills/pdf"),
                    tree.workspace.join(".agents/skills"),
                )
                .unwrap();
            },
            ".agents/skills",
            ".agents/skills",
            Relation::Inside,
        ),
    ];
    for (name, plant, relative, link, relation) in cases {
        let tree = Tree::new();
        plant(&tree);
        let overlap = project(&tree, relative).unwrap_or_else(|| panic!("{name}: not found"));
        assert_eq!(overlap.kind, Kind::UserRoot, "{name}");
        assert_eq!(overlap.relation, relation, "{name}");
        assert_eq!(overlap.root, tree.workspace.join(relative), "{name}");
        let (found, _) = overlap.link.clone().unwrap();
        assert_eq!(found, tree.workspace.join(link), "{name}");
        let error = overlap.error();
        assert_eq!(error.kind(), "root_outside_scope", "{name}");
        let message = error.to_string();
        assert!(
            message.contains(&format!(
                "{} is a symbolic link to ",
                tree.workspace.join(link).display()
            )) && message.contains("nothing was changed"),
            "{name}: {message}"
        );
        let diagnostic = overlap.diagnostic().unwrap();
        assert_eq!(diagnostic.code, DiagnosticCode::RootOutsideScope, "{name}");
        assert_eq!(diagnostic.severity, Severity::Warning, "{name}");
    }
}

#[test]
fn the_home_and_its_app_folder_count_as_the_users_too() {
    let tree = Tree::new();
    tree.mkdir(&tree.home.join(".openhuman/cache"));
    symlink(&tree.home, tree.workspace.join("skills")).unwrap();
    let places = tree.places();
    let legacy = places
        .overlap(SkillScope::Legacy, &tree.workspace.join("skills"))
        .unwrap();
    assert_eq!((legacy.kind, legacy.relation), (Kind::Home, Relation::Same));
    assert!(legacy.error().to_string().contains("is not a legacy root"));

    std::fs::remove_file(tree.workspace.join("skills")).unwrap();
    symlink(
        tree.home.join(".openhuman/cache"),
        tree.workspace.join("skills"),
    )
    .unwrap();
    let inside = tree
        .places()
        .overlap(SkillScope::Legacy, &tree.workspace.join("skills"))
        .unwrap();
    assert_eq!(
        (inside.kind, inside.relation),
        (Kind::AppFolder, Relation::Inside)
    );

    std::fs::remove_file(tree.workspace.join("skills")).unwrap();
    symlink(&tree.base, tree.workspace.join("skills")).unwrap();
    let around = tree
        .places()
        .overlap(SkillScope::Legacy, &tree.workspace.join("skills"))
        .unwrap();
    assert_eq!(around.relation, Relation::Around);
    assert!(
        around.reason().contains("a folder that holds"),
        "{}",
        around.reason()
    );
}

#[test]
fn a_workspace_that_is_the_home_overlaps_silently_and_refuses_writes() {
    let tree = Tree::new();
    let link = tree.base.join("link-to-home");
    symlink(&tree.home, &link).unwrap();
    for workspace in [tree.home.clone(), link] {
        let mut config = tree.config();
        config.workspace = workspace.clone();
        let places = crate::discover::user_places(&config);
        let overlap = places
            .overlap(SkillScope::Project, &workspace.join(".agents/skills"))
            .unwrap();
        assert_eq!(overlap.relation, Relation::Same);
        assert_eq!(overlap.diagnostic(), None, "no false warning in the home");
        let message = overlap.error().to_string();
        assert!(
            message.contains("the workspace is the home") && message.contains("--scope user"),
            "{message}"
        );
        // The legacy and profile roots of the home are no user place.
        assert!(
            places
                .overlap(SkillScope::Legacy, &workspace.join("skills"))
                .is_none()
        );
    }
}

#[test]
fn a_user_root_named_in_paths_is_the_users() {
    let tree = Tree::new();
    let team = tree.base.join("team-skills");
    tree.mkdir(&team);
    let mut config = tree.config();
    config.extra_roots.push(team.clone());
    let places = crate::discover::user_places(&config);
    // A workspace `paths` entry naming it, or a folder inside it.
    for root in [team.clone(), team.join("sub")] {
        let overlap = places.overlap(SkillScope::Project, &root).unwrap();
        assert_eq!(overlap.kind, Kind::UserRoot);
        assert_eq!(overlap.link, None);
        assert!(overlap.reason().contains(&team.display().to_string()));
    }
    symlink(&team, tree.workspace.join("skills")).unwrap();
    assert!(
        places
            .overlap(SkillScope::Legacy, &tree.workspace.join("skills"))
            .is_some()
    );
}

#[test]
fn a_link_loop_resolves_without_hanging_and_overlaps_nothing() {
    let tree = Tree::new();
    symlink(
        tree.workspace.join(".agents"),
        tree.workspace.join(".agents"),
    )
    .unwrap();
    assert_eq!(project(&tree, ".agents/skills"), None);
    symlink(tree.workspace.join("b"), tree.workspace.join("a")).unwrap();
    symlink(tree.workspace.join("a"), tree.workspace.join("b")).unwrap();
    assert_eq!(project(&tree, "a/skills"), None);
}

#[test]
fn resolving_follows_links_as_the_kernel_does_where_the_path_exists() {
    let tree = Tree::new();
    tree.mkdir(&tree.base.join("real/inner"));
    symlink(tree.base.join("real"), tree.base.join("link")).unwrap();
    // Where it exists, the same as `canonicalize`.
    let existing = tree.base.join("link/inner");
    assert_eq!(
        resolve(&existing),
        std::fs::canonicalize(&existing).unwrap()
    );
    // `..` after a link goes up from where the link leads.
    assert_eq!(
        resolve(&tree.base.join("link/inner/..")),
        tree.base.join("real")
    );
    // Past the first missing step, the rest as written.
    assert_eq!(
        resolve(&tree.base.join("link/missing/deeper")),
        tree.base.join("real/missing/deeper")
    );
}

/// Discovery takes the user's places from the caller's roots and the home's `skills.toml`,
/// never from a workspace's: a workspace `paths` entry names a workspace root, and must not
/// make the workspace's own roots "the user's".
#[test]
fn only_the_homes_paths_make_user_places() {
    let tree = Tree::new();
    let skill = |root: &Path| {
        tree.mkdir(&root.join("x"));
        std::fs::write(
            root.join("x/SKILL.md"),
            "---\nname: x\ndescription: d\n---\nBody.\n",
        )
        .unwrap();
    };
    let team = tree.base.join("team");
    skill(&team);
    skill(&tree.workspace.join(".agents/skills"));
    tree.mkdir(&tree.home.join(".openhuman"));
    std::fs::write(
        tree.home.join(".openhuman/skills.toml"),
        format!("paths = [{:?}]\n", team.display().to_string()),
    )
    .unwrap();
    tree.mkdir(&tree.workspace.join(".openhuman"));
    std::fs::write(
        tree.workspace.join(".openhuman/skills.toml"),
        "paths = [\".agents/skills\"]\n",
    )
    .unwrap();
    symlink(&team, tree.workspace.join("skills")).unwrap();
    let mut config = tree.config();
    config.trust = skills_types::config::TrustPolicy::Always;
    let catalog = crate::discover::discover(&config).unwrap();
    let outside: Vec<&Diagnostic> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::RootOutsideScope)
        .collect();
    assert_eq!(outside.len(), 1, "{:?}", catalog.diagnostics);
    assert_eq!(
        outside[0].path.as_deref(),
        Some(tree.workspace.join("skills").as_path()),
        "the legacy root linked to the home's `paths` root, and nothing else"
    );
    assert!(
        outside[0]
            .message
            .contains(&format!("the user root {}", team.display())),
        "{}",
        outside[0].message
    );
}
