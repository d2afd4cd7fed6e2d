//! Tests of create, update and uninstall on temporary homes and workspaces: what lands on disk,
//! what discovery then sees, and that refusals change nothing.

use std::path::{Path, PathBuf};

use skills_types::config::TrustPolicy;
use skills_types::manage::{CreateSkill, UpdateSkill};
use skills_types::skill::SkillInput;
use skills_types::{SkillScope, SkillsConfig};

use super::*;
use crate::testing::Tree;

impl Tree {
    fn trusted(&self) -> SkillsConfig {
        let mut config = self.config();
        config.trust = TrustPolicy::Always;
        config
    }

    /// Where new skills of the user scope go by default: the shared `.agents/skills`.
    fn user_root(&self) -> PathBuf {
        self.home.join(".agents/skills")
    }

    fn project_root(&self) -> PathBuf {
        self.workspace.join(".agents/skills")
    }

    /// The application's own root of the user scope.
    fn user_app_root(&self) -> PathBuf {
        self.home.join(".openhuman/skills")
    }
}

fn names(config: &SkillsConfig) -> Vec<(String, SkillScope)> {
    discover(config)
        .unwrap()
        .skills
        .into_iter()
        .map(|skill| (skill.name, skill.scope))
        .collect()
}

/// The entries of `dir`; the root's install lock file is never among them afterwards.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn create_then_discovery_finds_it_with_its_sidecar() {
    let tree = Tree::new();
    let config = tree.config();
    let mut request = CreateSkill::new(
        "release-notes",
        "Writes release notes: from the changelog, \"quoted\", with a --- rule\n---\nand # signs.",
    );
    request.license = Some("MIT".into());
    request.author = Some("Ann".into());
    request.tags = vec!["docs".into(), "release".into()];
    request.allowed_tools = vec!["Read".into(), "Bash(git log:*)".into()];
    request.when_to_use = Some("When a release is cut.".into());
    request.inputs = vec![SkillInput {
        name: "version".into(),
        description: "The version being released".into(),
        required: true,
        kind: skills_types::run::InputType::String,
        default: None,
    }];
    let written = create(&config, &request).unwrap();
    assert_eq!(written.dir, tree.user_root().join("release-notes"));
    assert_eq!(listing(&tree.user_root()), ["release-notes"]);
    assert_eq!(listing(&written.dir), ["SKILL.md", "skill.toml"]);

    let catalog = discover(&config).unwrap();
    let skill = &catalog.skills[0];
    assert_eq!(skill.name, "release-notes");
    assert_eq!(skill.description, request.description.trim());
    assert_eq!(skill.frontmatter.license.as_deref(), Some("MIT"));
    assert_eq!(skill.frontmatter.author().as_deref(), Some("Ann"));
    assert_eq!(skill.frontmatter.tags(), ["docs", "release"]);
    assert_eq!(skill.frontmatter.allowed_tools, request.allowed_tools);
    assert_eq!(skill.when_to_use.as_deref(), Some("When a release is cut."));
    assert_eq!(skill.inputs, request.inputs);
    assert!(skill.diagnostics.is_empty(), "{:?}", skill.diagnostics);
    // The written file passes the strict validator too.
    let report = crate::validate::validate_path(&written.dir, &Default::default()).unwrap();
    assert!(report.valid, "{:#?}", report.diagnostics);
}

#[test]
fn create_refuses_an_existing_name_and_changes_nothing() {
    let tree = Tree::new();
    let config = tree.config();
    create(&config, &CreateSkill::new("pdf", "Reads PDFs.")).unwrap();
    let file = tree.user_root().join("pdf/SKILL.md");
    let before = std::fs::read(&file).unwrap();
    let error = create(&config, &CreateSkill::new("pdf", "Something else.")).unwrap_err();
    assert_eq!(error.kind(), "already_exists");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(
        listing(&tree.user_root()),
        ["pdf"],
        "no staging folder left behind"
    );
}

#[test]
fn concurrent_creates_of_one_name_publish_exactly_one() {
    let tree = Tree::new();
    let config = tree.config();
    let outcomes: Vec<Result<Written, Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|index| {
                let config = &config;
                scope.spawn(move || {
                    create(
                        config,
                        &CreateSkill::new("race", format!("Writer {index}.")),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect()
    });
    let won = outcomes.iter().filter(|outcome| outcome.is_ok()).count();
    assert_eq!(won, 1);
    for outcome in &outcomes {
        if let Err(error) = outcome {
            assert_eq!(error.kind(), "already_exists", "{error}");
        }
    }
    assert_eq!(listing(&tree.user_root()), ["race"]);
    assert_eq!(names(&config).len(), 1);
}

#[test]
fn create_checks_its_inputs() {
    let tree = Tree::new();
    let config = tree.config();
    let cases: Vec<CreateSkill> = vec![
        CreateSkill::new("Bad_Name", "d"),
        CreateSkill::new("../escape", "d"),
        CreateSkill::new("", "d"),
        CreateSkill::new("ok", "   "),
        CreateSkill::new("ok", "d".repeat(1025)),
        {
            let mut request = CreateSkill::new("ok", "d");
            request.inputs = vec![SkillInput::new("Path"), SkillInput::new("path")];
            request
        },
    ];
    for request in cases {
        let error = create(&config, &request).unwrap_err();
        assert_eq!(error.kind(), "invalid_input", "{request:?}: {error}");
    }
    assert!(!tree.user_root().exists() || listing(&tree.user_root()).is_empty());
}

#[test]
fn scopes_for_create() {
    let tree = Tree::new();
    let mut request = CreateSkill::new("team-skill", "For the team.");
    request.scope = SkillScope::Project;
    assert_eq!(
        create(&tree.config(), &request).unwrap_err().kind(),
        "untrusted_workspace"
    );
    let written = create(&tree.trusted(), &request).unwrap();
    assert_eq!(written.dir, tree.project_root().join("team-skill"));
    for scope in [SkillScope::Legacy, SkillScope::Profile] {
        request.scope = scope;
        request.name = "old".into();
        assert_eq!(
            create(&tree.trusted(), &request).unwrap_err().kind(),
            "invalid_input",
            "{scope}"
        );
    }
}

#[test]
fn update_keeps_the_body_and_changes_what_was_asked() {
    let tree = Tree::new();
    let config = tree.config();
    let mut request = CreateSkill::new("pdf", "Reads PDFs.");
    request.body = Some("# PDF\n\nKeep this body exactly.\n".into());
    create(&config, &request).unwrap();
    let mut changes = UpdateSkill::default();
    changes.description = Some("Reads and fills PDF forms.".into());
    changes.tags = Some(vec!["forms".into()]);
    update(&config, "pdf", &changes).unwrap();
    let document = load::load_document(&tree.user_root().join("pdf/SKILL.md")).unwrap();
    assert_eq!(
        document.frontmatter.description,
        "Reads and fills PDF forms."
    );
    assert_eq!(document.frontmatter.tags(), ["forms"]);
    assert_eq!(document.body, "\n# PDF\n\nKeep this body exactly.\n");

    let mut new_body = UpdateSkill::default();
    new_body.body = Some("Replaced.\n".into());
    update(&config, "pdf", &new_body).unwrap();
    let document = load::load_document(&tree.user_root().join("pdf/SKILL.md")).unwrap();
    assert_eq!(document.body, "\nReplaced.\n");
    assert_eq!(
        document.frontmatter.description,
        "Reads and fills PDF forms."
    );
}

#[test]
fn update_of_inputs_keeps_every_other_sidecar_key_and_comment() {
    let tree = Tree::new();
    let config = tree.config();
    let mut request = CreateSkill::new("greet", "Greets.");
    request.script = Some(skills_types::run::InlineLanguage::Python);
    create(&config, &request).unwrap();
    let path = tree.user_root().join("greet/skill.toml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.insert_str(0, "# the author's note\n");
    text.push_str("\n[[tools]]\nname = \"lint\"\nscript = \"scripts/lint.py\"\n");
    std::fs::write(&path, &text).unwrap();
    let mut changes = UpdateSkill::default();
    let mut input = SkillInput::new("who");
    input.required = true;
    changes.inputs = Some(vec![input]);
    changes.when_to_use = Some("When greeting.".into());
    update(&config, "greet", &changes).unwrap();
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with("# the author's note\n"), "{after}");
    let (manifest, diagnostics) =
        crate::discover::read_skill_manifest(&tree.user_root().join("greet"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(manifest.entry.as_deref(), Some("scripts/main.py"));
    assert_eq!(manifest.tools.len(), 1);
    assert_eq!(manifest.tests.len(), 1);
    assert_eq!(manifest.when_to_use.as_deref(), Some("When greeting."));
    assert_eq!(manifest.inputs.len(), 1);
    assert_eq!(manifest.inputs[0].name, "who");

    std::fs::write(&path, "entry = [unclosed\n").unwrap();
    let error = update(&config, "greet", &changes).unwrap_err();
    assert_eq!(error.kind(), "invalid_input", "{error}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "entry = [unclosed\n"
    );
}

#[test]
fn create_with_a_script_writes_an_entry_a_test_and_one_input() {
    let tree = Tree::new();
    let config = tree.config();
    for (name, language, file) in [
        (
            "py-skill",
            skills_types::run::InlineLanguage::Python,
            "scripts/main.py",
        ),
        (
            "node-skill",
            skills_types::run::InlineLanguage::Node,
            "scripts/main.mjs",
        ),
        (
            "sh-skill",
            skills_types::run::InlineLanguage::Sh,
            "scripts/main.sh",
        ),
    ] {
        let mut request = CreateSkill::new(name, "Scaffolded.");
        request.script = Some(language);
        let written = create(&config, &request).unwrap();
        assert!(written.dir.join(file).is_file(), "{name}");
        let (manifest, diagnostics) = crate::discover::read_skill_manifest(&written.dir);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(manifest.entry.as_deref(), Some(file));
        assert_eq!(manifest.inputs.len(), 1);
        assert_eq!(manifest.tests.len(), 1);
        let body = std::fs::read_to_string(written.dir.join("SKILL.md")).unwrap();
        assert!(
            body.contains(&format!("skills run {name} --input name=VALUE")),
            "{body}"
        );
    }
}

#[test]
fn update_refuses_a_file_that_does_not_parse() {
    let tree = Tree::new();
    let config = tree.config();
    let dir = tree.user_root().join("broken");
    std::fs::create_dir_all(&dir).unwrap();
    let text = "---\nname: broken\ndescription: [unclosed\n---\nBody\n";
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    let mut changes = UpdateSkill::default();
    changes.description = Some("Fixed?".into());
    let error = update(&config, "broken", &changes).unwrap_err();
    assert_eq!(error.kind(), "unloadable", "{error}");
    assert_eq!(std::fs::read_to_string(dir.join("SKILL.md")).unwrap(), text);
}

#[test]
fn uninstall_a_user_skill_and_its_lock_entry() {
    let tree = Tree::new();
    let config = tree.config();
    create(&config, &CreateSkill::new("pdf", "Reads PDFs.")).unwrap();
    let mut lock = lock::read(&tree.user_root()).unwrap();
    lock.skills
        .insert("pdf".into(), serde_json::json!({"source": "https://x"}));
    lock::write(&tree.user_root(), &lock).unwrap();
    let removed = uninstall(&config, "pdf", None).unwrap();
    assert_eq!(removed.path, tree.user_root().join("pdf"));
    assert_eq!(removed.scope, SkillScope::User);
    assert!(!removed.was_link);
    assert!(names(&config).is_empty());
    assert!(lock::read(&tree.user_root()).unwrap().skills.is_empty());
    assert_eq!(
        uninstall(&config, "pdf", None).unwrap_err().kind(),
        "not_found"
    );
}

#[test]
fn uninstall_refuses_untrusted_projects_and_odd_names() {
    let tree = Tree::new();
    create(&tree.trusted(), &{
        let mut request = CreateSkill::new("team", "Team skill.");
        request.scope = SkillScope::Project;
        request
    })
    .unwrap();
    let error = uninstall(&tree.config(), "team", Some(SkillScope::Project)).unwrap_err();
    assert_eq!(error.kind(), "untrusted_workspace");
    // Without a scope, an untrusted project copy is named as such, and left alone.
    assert_eq!(
        uninstall(&tree.config(), "team", None).unwrap_err().kind(),
        "untrusted_workspace"
    );
    assert!(tree.project_root().join("team/SKILL.md").exists());
    for name in [
        "../../etc",
        "..",
        "a/b",
        "a\\b",
        "",
        ".hidden",
        "x\0y",
        &"a".repeat(65),
    ] {
        let error = uninstall(&tree.trusted(), name, None).unwrap_err();
        assert_eq!(error.kind(), "invalid_input", "{name:?}");
    }
    assert_eq!(
        uninstall(&tree.trusted(), "team", Some(SkillScope::Legacy))
            .unwrap_err()
            .kind(),
        "invalid_input"
    );
}

#[test]
fn uninstall_refuses_a_folder_that_is_not_a_skill() {
    let tree = Tree::new();
    let folder = tree.user_root().join("notes");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("README.md"), "x").unwrap();
    assert_eq!(
        uninstall(&tree.config(), "notes", None).unwrap_err().kind(),
        "invalid_input"
    );
    assert!(folder.join("README.md").exists());
}

#[cfg(unix)]
#[test]
fn uninstall_removes_a_symlinked_skill_as_a_link_and_never_follows_links_inside() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    let config = tree.config();
    // A skill kept elsewhere and linked into the user root.
    let elsewhere = tree.home.parent().unwrap().join("elsewhere/linked");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(
        elsewhere.join("SKILL.md"),
        "---\nname: linked\ndescription: d\n---\n",
    )
    .unwrap();
    std::fs::create_dir_all(tree.user_root()).unwrap();
    symlink(&elsewhere, tree.user_root().join("linked")).unwrap();
    let removed = uninstall(&config, "linked", None).unwrap();
    assert!(removed.was_link);
    assert!(!tree.user_root().join("linked").exists());
    assert!(
        elsewhere.join("SKILL.md").exists(),
        "the link's target survives"
    );

    // A real skill holding a link to a folder outside: the outside files survive.
    let outside = tree.home.parent().unwrap().join("precious");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "keep").unwrap();
    create(&config, &CreateSkill::new("real", "Real.")).unwrap();
    symlink(&outside, tree.user_root().join("real/escape")).unwrap();
    symlink(
        outside.join("keep.txt"),
        tree.user_root().join("real/file-link"),
    )
    .unwrap();
    uninstall(&config, "real", None).unwrap();
    assert!(!tree.user_root().join("real").exists());
    assert_eq!(
        std::fs::read_to_string(outside.join("keep.txt")).unwrap(),
        "keep"
    );
}

#[test]
fn uninstall_refuses_a_name_in_two_places_and_explains_what_it_cannot_remove() {
    let tree = Tree::new();
    let config = tree.config();
    // Two copies in the user scope: removing the winner would expose the other, so neither
    // goes, and a scope cannot settle it.
    create(&config, &CreateSkill::new("twice", "Own root.")).unwrap();
    let other = tree.user_app_root().join("twice");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("SKILL.md"),
        "---\nname: twice\ndescription: Agents root.\n---\n",
    )
    .unwrap();
    for scope in [None, Some(SkillScope::User)] {
        let error = uninstall(&config, "twice", scope).unwrap_err();
        assert_eq!(error.kind(), "ambiguous", "{error}");
        let message = error.to_string();
        assert!(message.contains("nothing was removed"), "{message}");
        assert!(message.contains("by hand"), "{message}");
    }
    assert!(tree.user_root().join("twice/SKILL.md").exists());
    assert!(other.join("SKILL.md").exists());
    assert_eq!(listing(&tree.user_root()), ["twice"]);

    // A skill in a category folder is listed but not directly under a root.
    let nested = tree.user_root().join("category/nested");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(
        nested.join("SKILL.md"),
        "---\nname: nested\ndescription: d\n---\n",
    )
    .unwrap();
    let error = uninstall(&config, "nested", None).unwrap_err();
    assert_eq!(error.kind(), "invalid_input");
    assert!(error.to_string().contains("not directly under"), "{error}");
    assert!(nested.join("SKILL.md").exists());

    // An untrusted project copy is named as such rather than "not found".
    let project = tree.project_root().join("team");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("SKILL.md"),
        "---\nname: team\ndescription: d\n---\n",
    )
    .unwrap();
    assert_eq!(
        uninstall(&config, "team", None).unwrap_err().kind(),
        "untrusted_workspace"
    );
}

#[test]
fn uninstall_of_a_name_in_two_scopes_removes_nothing_unless_a_scope_picks() {
    let tree = Tree::new();
    let config = tree.trusted();
    create(&config, &CreateSkill::new("review", "User copy.")).unwrap();
    create(&config, &{
        let mut request = CreateSkill::new("review", "Project copy.");
        request.scope = SkillScope::Project;
        request
    })
    .unwrap();
    let error = uninstall(&config, "review", None).unwrap_err();
    assert_eq!(error.kind(), "ambiguous", "{error}");
    let message = error.to_string();
    for expected in [
        "project: ",
        "user: ",
        "nothing was removed",
        "--scope",
        &tree.user_root().join("review").display().to_string(),
        &tree.project_root().join("review").display().to_string(),
    ] {
        assert!(message.contains(expected), "{expected}: {message}");
    }
    assert!(tree.user_root().join("review/SKILL.md").exists());
    assert!(tree.project_root().join("review/SKILL.md").exists());

    let removed = uninstall(&config, "review", Some(SkillScope::Project)).unwrap();
    assert_eq!(removed.scope, SkillScope::Project);
    assert!(!tree.project_root().join("review").exists());
    assert!(tree.user_root().join("review/SKILL.md").exists());
    assert_eq!(names(&config), [("review".to_owned(), SkillScope::User)]);
}

#[test]
fn uninstall_accepts_the_listed_name_when_it_names_one_skill() {
    let tree = Tree::new();
    let config = tree.config();
    let write = |folder: &Path, name: &str| {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: d\n---\n"),
        )
        .unwrap();
    };
    write(&tree.user_root().join("pdf-v2"), "pdf");
    assert_eq!(names(&config), [("pdf".to_owned(), SkillScope::User)]);
    let removed = uninstall(&config, "pdf", None).unwrap();
    assert_eq!(removed.path, tree.user_root().join("pdf-v2"));
    assert_eq!(removed.name, "pdf-v2");
    assert!(!tree.user_root().join("pdf-v2").exists());

    // Two folders whose skills carry one name: the name does not say which.
    write(&tree.user_root().join("notes-a"), "notes");
    write(&tree.user_app_root().join("notes-b"), "notes");
    let error = uninstall(&config, "notes", None).unwrap_err();
    assert_eq!(error.kind(), "ambiguous", "{error}");
    assert!(error.to_string().contains("notes-a, notes-b"), "{error}");
    assert!(tree.user_root().join("notes-a/SKILL.md").exists());
    assert!(tree.user_app_root().join("notes-b/SKILL.md").exists());
}

#[cfg(unix)]
#[test]
fn uninstall_removes_the_agent_links_to_the_skill_and_nothing_else() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    let config = tree.config();
    let agents = tree.home.join(".agents/skills");
    let claude = tree.home.join(".claude/skills");
    for (folder, name) in [
        (agents.join("x"), "x"),
        (agents.join("y"), "y"),
        (claude.join("z"), "z"),
    ] {
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: d\n---\n"),
        )
        .unwrap();
    }
    // What the vercel tool makes, a second name for the same skill, a link into it, and
    // links that lead elsewhere.
    symlink("../../.agents/skills/x", claude.join("x")).unwrap();
    symlink(agents.join("x"), claude.join("x-alias")).unwrap();
    symlink("../../.agents/skills/x/SKILL.md", claude.join("x-file")).unwrap();
    symlink("../../.agents/skills/y", claude.join("y")).unwrap();
    std::fs::create_dir_all(tree.user_app_root()).unwrap();
    symlink("../../.agents/skills/x", tree.user_app_root().join("x")).unwrap();
    // A link in the project scope is not this scope's to clean.
    let project_claude = tree.workspace.join(".claude/skills");
    std::fs::create_dir_all(&project_claude).unwrap();
    symlink(agents.join("x"), project_claude.join("x")).unwrap();

    let removed = uninstall(&config, "x", None).unwrap();
    assert_eq!(removed.path, agents.join("x"));
    assert!(!removed.was_link);
    let mut expected = vec![
        claude.join("x"),
        claude.join("x-alias"),
        claude.join("x-file"),
        tree.user_app_root().join("x"),
    ];
    expected.sort();
    assert_eq!(removed.links, expected);
    for gone in &expected {
        assert!(
            std::fs::symlink_metadata(gone).is_err(),
            "{}",
            gone.display()
        );
    }
    assert!(
        std::fs::symlink_metadata(claude.join("y"))
            .unwrap()
            .is_symlink()
    );
    assert!(
        claude.join("z/SKILL.md").is_file(),
        "a real folder is never removed"
    );
    assert!(agents.join("y/SKILL.md").is_file());
    assert!(
        std::fs::symlink_metadata(project_claude.join("x"))
            .unwrap()
            .is_symlink()
    );
    let catalog = discover(&config).unwrap();
    assert!(
        catalog
            .diagnostics
            .iter()
            .all(|diagnostic| diagnostic.severity == skills_types::Severity::Info),
        "no warning (such as a dangling link) afterwards: {:?}",
        catalog.diagnostics
    );
    // The check above can fail: a link left dangling is warned about.
    symlink("../../.agents/skills/gone", claude.join("dangling")).unwrap();
    assert!(
        discover(&config)
            .unwrap()
            .diagnostics
            .iter()
            .any(|diagnostic| diagnostic.severity != skills_types::Severity::Info)
    );
}

#[test]
fn uninstall_leaves_no_install_lock_behind() {
    let tree = Tree::new();
    let config = tree.config();
    create(&config, &CreateSkill::new("one", "One.")).unwrap();
    assert_eq!(listing(&tree.user_root()), ["one"]);
    let _ = create(&config, &CreateSkill::new("one", "Again.")).unwrap_err();
    assert_eq!(listing(&tree.user_root()), ["one"], "after a refusal");
    uninstall(&config, "one", None).unwrap();
    assert!(listing(&tree.user_root()).is_empty());
}

#[test]
fn new_skills_go_to_the_shared_agents_root_unless_the_user_chooses() {
    let tree = Tree::new();
    let config = tree.trusted();
    let root = |scope, agent| write_root(&config, scope, agent).unwrap();
    assert_eq!(
        root(SkillScope::User, None),
        tree.home.join(".agents/skills")
    );
    assert_eq!(
        root(SkillScope::Project, None),
        tree.workspace.join(".agents/skills")
    );
    assert_eq!(
        root(SkillScope::User, Some(AgentTarget::App)),
        tree.user_app_root()
    );
    assert_eq!(
        root(SkillScope::Project, Some(AgentTarget::Claude)),
        tree.workspace.join(".claude/skills")
    );

    // A workspace's skills.toml may not move where skills are written; it is told so.
    let workspace_config = tree.workspace.join(".openhuman/skills.toml");
    std::fs::create_dir_all(workspace_config.parent().unwrap()).unwrap();
    std::fs::write(&workspace_config, "[install]\nroot = \"claude\"\n").unwrap();
    assert_eq!(
        root(SkillScope::User, None),
        tree.home.join(".agents/skills")
    );
    assert_eq!(
        root(SkillScope::Project, None),
        tree.workspace.join(".agents/skills")
    );
    let diagnostics = discover(&config).unwrap().diagnostics;
    assert!(
        diagnostics.iter().any(|diagnostic| diagnostic.code
            == skills_types::DiagnosticCode::InvalidConfig
            && diagnostic
                .message
                .starts_with("[install] root in the workspace's")
            && diagnostic.message.contains("read only from the home")),
        "{diagnostics:?}"
    );

    // The home's may, and `--agent` still wins over it.
    let home_config = tree.home.join(".openhuman/skills.toml");
    std::fs::create_dir_all(home_config.parent().unwrap()).unwrap();
    std::fs::write(&home_config, "[install]\nroot = \"app\"\n").unwrap();
    assert_eq!(root(SkillScope::User, None), tree.user_app_root());
    assert_eq!(
        root(SkillScope::Project, None),
        tree.workspace.join(".openhuman/skills")
    );
    assert_eq!(
        root(SkillScope::User, Some(AgentTarget::Agents)),
        tree.home.join(".agents/skills")
    );
    let written = create(&config, &CreateSkill::new("chosen", "Chosen root.")).unwrap();
    assert_eq!(written.dir, tree.user_app_root().join("chosen"));

    // A value it does not know is reported and the default kept.
    std::fs::write(&home_config, "[install]\nroot = \"elsewhere\"\n").unwrap();
    assert_eq!(
        root(SkillScope::User, None),
        tree.home.join(".agents/skills")
    );
    assert!(
        discover(&config)
            .unwrap()
            .diagnostics
            .iter()
            .any(|diagnostic| diagnostic.message.contains("'install.root' must be")),
    );

    // Without the shared roots, discovery would not see a skill written there.
    let mut solitary = config.clone();
    solitary.interop = false;
    std::fs::remove_file(&home_config).unwrap();
    assert_eq!(
        write_root(&solitary, SkillScope::User, None).unwrap(),
        tree.user_app_root()
    );
}
