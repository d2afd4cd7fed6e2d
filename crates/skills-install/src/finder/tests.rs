//! The skill finder over trees the one extractor produced: archives built by the tests with the
//! `tar` writer, extracted by `skills_net::archive`, then searched for skills.

use skills_net::archive::{Format, Limits, extract, extract_tree};
use skills_tests::archives::{SKILL, assert_refused, file, link, paths, tar_gz, zip_of};

use super::*;

#[test]
fn a_link_outside_every_skill_is_left_out_one_inside_refuses_the_skill() {
    let bytes = tar_gz(&[
        file("repo-1/AGENTS.md", b"agents"),
        link("repo-1/CLAUDE.md", "AGENTS.md"),
        file("repo-1/skills/alpha/SKILL.md", SKILL),
        file("repo-1/skills/beta/SKILL.md", SKILL),
        link("repo-1/skills/beta/key", "/home/me/.ssh/id_rsa"),
    ]);
    // The strict form refuses the archive for any link.
    assert_refused(
        extract(&bytes, Format::TarGz, &Limits::default()),
        &["'repo-1/CLAUDE.md' is a symbolic link (to 'AGENTS.md')"],
    );
    let tree = extract_tree(&bytes, Format::TarGz, &Limits::default()).unwrap();
    assert_eq!(paths(&tree.files).len(), 3);
    let withheld: Vec<&str> = tree
        .withheld
        .iter()
        .map(|entry| entry.path.as_str())
        .collect();
    assert_eq!(withheld, ["repo-1/CLAUDE.md", "repo-1/skills/beta/key"]);
    let downloads = skills_in(tree.clone(), Some("skills/alpha"), &url()).unwrap();
    assert_eq!(names(&downloads), [Some("alpha")]);
    assert_refused(
        skills_in(tree.clone(), None, &url()),
        &[
            "'repo-1/skills/beta/key' is a symbolic link",
            "part of the skill 'beta'",
        ],
    );
    assert_refused(
        skills_in(tree, Some("skills/beta"), &url()),
        &["'repo-1/skills/beta/key'", "part of the skill 'beta'"],
    );
    // A link standing for the definition file makes its folder a skill, and is refused.
    let tree = extract_tree(
        &tar_gz(&[
            link("gamma/SKILL.md", "/etc/passwd"),
            file("gamma/x.md", b"x"),
        ]),
        Format::TarGz,
        &Limits::default(),
    )
    .unwrap();
    assert_refused(
        skills_in(tree, None, &url()),
        &["'gamma/SKILL.md' is a symbolic link"],
    );
}

fn url() -> Url {
    Url::parse("https://example.com/x.tar.gz").unwrap()
}

fn tree(files: &[(&str, &[u8])]) -> Vec<(String, Vec<u8>)> {
    files
        .iter()
        .map(|(path, bytes)| ((*path).to_owned(), bytes.to_vec()))
        .collect()
}

fn names(downloads: &[Download]) -> Vec<Option<&str>> {
    downloads
        .iter()
        .map(|download| download.name.as_deref())
        .collect()
}

fn files_of(download: &Download) -> Vec<&str> {
    download
        .files
        .iter()
        .map(|(path, _)| path.as_str())
        .collect()
}

#[test]
fn a_github_tarball_is_unwrapped_and_each_skill_found() {
    let bytes = tar_gz(&[
        file("owner-repo-0123abc/README.md", b"readme"),
        file("owner-repo-0123abc/.github/workflows/ci.yml", b"ci"),
        file("owner-repo-0123abc/skills/alpha/SKILL.md", SKILL),
        file("owner-repo-0123abc/skills/alpha/references/a.md", b"a"),
        file("owner-repo-0123abc/skills/beta/skill.md", SKILL),
        file("owner-repo-0123abc/skills/beta/scripts/run.sh", b"run"),
        // A SKILL.md inside a skill belongs to it, not a skill of its own.
        file(
            "owner-repo-0123abc/skills/beta/templates/SKILL.md",
            b"template",
        ),
        file("owner-repo-0123abc/node_modules/dep/SKILL.md", SKILL),
    ]);
    let files = extract(&bytes, Format::TarGz, &Limits::default()).unwrap();
    let downloads = skills(files.clone(), None, &url()).unwrap();
    assert_eq!(names(&downloads), [Some("alpha"), Some("beta")]);
    assert_eq!(files_of(&downloads[0]), ["SKILL.md", "references/a.md"]);
    assert_eq!(
        files_of(&downloads[1]),
        ["SKILL.md", "scripts/run.sh", "templates/SKILL.md"]
    );
    assert_eq!(downloads[1].files[0].1, SKILL);
    assert!(
        downloads
            .iter()
            .all(|download| download.url == url() && download.version.is_none())
    );

    let downloads = skills(files.clone(), Some("skills/beta"), &url()).unwrap();
    assert_eq!(names(&downloads), [Some("beta")]);
    assert_eq!(
        files_of(&downloads[0]),
        ["SKILL.md", "scripts/run.sh", "templates/SKILL.md"]
    );

    let downloads = skills(files.clone(), Some("./skills/"), &url()).unwrap();
    assert_eq!(names(&downloads), [Some("alpha"), Some("beta")]);
}

#[test]
fn a_skill_at_the_top_has_no_folder_name() {
    let downloads = skills(
        tree(&[("SKILL.md", SKILL), ("references/a.md", b"a")]),
        None,
        &url(),
    )
    .unwrap();
    assert_eq!(names(&downloads), [None]);
    assert_eq!(files_of(&downloads[0]), ["SKILL.md", "references/a.md"]);
    // One folder holding one skill: the folder is the single top folder, unwrapped.
    let downloads = skills(tree(&[("alpha/SKILL.md", SKILL)]), None, &url()).unwrap();
    assert_eq!(names(&downloads), [None]);
    assert_eq!(files_of(&downloads[0]), ["SKILL.md"]);
}

#[test]
fn a_file_named_like_a_skill_folder_is_not_part_of_it() {
    let downloads = skills(
        tree(&[
            ("top/a", b"file"),
            ("top/a/SKILL.md", SKILL),
            ("top/b", b"x"),
        ]),
        None,
        &url(),
    )
    .unwrap();
    assert_eq!(names(&downloads), [Some("a")]);
    assert_eq!(files_of(&downloads[0]), ["SKILL.md"]);
}

#[test]
fn finding_no_skill_or_a_bad_subpath_is_a_clear_error() {
    let files = tree(&[("r/a/README.md", b"x"), ("r/b/SKILL.md", SKILL)]);
    assert_refused(
        skills(files.clone(), Some("a"), &url()),
        &["no folder under 'a' holds a SKILL.md"],
    );
    assert_refused(
        skills(files.clone(), Some("c"), &url()),
        &["nothing under 'c'"],
    );
    assert_refused(
        skills(files.clone(), Some("../b"), &url()),
        &["'../b'", "'..'"],
    );
    assert_refused(
        skills(tree(&[("a/README.md", b"x"), ("b/x", b"y")]), None, &url()),
        &["no folder in the archive holds a SKILL.md"],
    );
}

#[test]
fn skills_below_hidden_folders_are_found_and_excluded_folders_skipped() {
    // OpenAI's catalog layout, with the folders no source is searched in beside it.
    let bytes = tar_gz(&[
        file("openai-skills-1a2b3c4/README.md", b"readme"),
        // Copilot's place for a repository's skills is searched; the rest of `.github` not.
        file("openai-skills-1a2b3c4/.github/skills/ci/SKILL.md", SKILL),
        file(
            "openai-skills-1a2b3c4/.github/workflows/lint/SKILL.md",
            SKILL,
        ),
        file("openai-skills-1a2b3c4/.git/config", b"[core]"),
        file(
            "openai-skills-1a2b3c4/skills/.curated/fix-ci/SKILL.md",
            SKILL,
        ),
        file(
            "openai-skills-1a2b3c4/skills/.curated/fix-ci/scripts/inspect.py",
            b"print()",
        ),
        file(
            "openai-skills-1a2b3c4/skills/.curated/fix-ci/agents/openai.yaml",
            b"interface: {}",
        ),
        // Hidden inside a skill: never part of it.
        file(
            "openai-skills-1a2b3c4/skills/.curated/fix-ci/.env",
            b"SECRET=1",
        ),
        file(
            "openai-skills-1a2b3c4/skills/.curated/fix-ci/.cache/x.json",
            b"{}",
        ),
        link(
            "openai-skills-1a2b3c4/skills/.curated/fix-ci/.venv-link",
            "/usr",
        ),
        file(
            "openai-skills-1a2b3c4/skills/.system/creator/SKILL.md",
            SKILL,
        ),
        file(
            "openai-skills-1a2b3c4/skills/.experimental/plan/SKILL.md",
            SKILL,
        ),
        file("openai-skills-1a2b3c4/node_modules/dep/SKILL.md", SKILL),
        file("openai-skills-1a2b3c4/x/.venv/lib/SKILL.md", SKILL),
    ]);
    // The strict form still has nothing hidden.
    let strict = extract(&bytes, Format::TarGz, &Limits::default()).unwrap();
    assert!(
        strict.iter().all(|(path, _)| !path.contains("/.")),
        "{strict:?}"
    );
    let tree = extract_tree(&bytes, Format::TarGz, &Limits::default()).unwrap();
    assert!(
        tree.files
            .iter()
            .all(|(path, _)| !path.contains(".git/") && !path.ends_with(".env")),
        "{:?}",
        paths(&tree.files)
    );
    let search = skills_found(tree.clone(), None, &url()).unwrap();
    let folders: Vec<&str> = search
        .found
        .iter()
        .map(|found| found.folder.as_str())
        .collect();
    assert_eq!(
        folders,
        [
            ".github/skills/ci",
            "skills/.curated/fix-ci",
            "skills/.experimental/plan",
            "skills/.system/creator"
        ]
    );
    let fix = &search.found[1];
    assert_eq!(fix.download.name.as_deref(), Some("fix-ci"));
    assert_eq!(
        fix.refusal, None,
        "a link hidden inside a skill is not part of it"
    );
    assert_eq!(
        files_of(&fix.download),
        ["SKILL.md", "agents/openai.yaml", "scripts/inspect.py"]
    );
    // A path the user names may pass through a hidden folder, and is still checked.
    let named = skills_in(tree.clone(), Some("skills/.curated/fix-ci"), &url()).unwrap();
    assert_eq!(names(&named), [Some("fix-ci")]);
    let curated = skills_in(tree.clone(), Some("skills/.curated"), &url()).unwrap();
    assert_eq!(names(&curated), [Some("fix-ci")]);
    for bad in [
        "skills/.curated/../..",
        "skills/.curated/a:b",
        "skills/.curated/a\\b",
    ] {
        assert_refused(skills_in(tree.clone(), Some(bad), &url()), &["is refused"]);
    }
}

#[test]
fn a_file_over_the_limit_refuses_only_the_skill_that_holds_it() {
    let limits = Limits {
        file: 20,
        ..Limits::default()
    };
    let big = [b'x'; 21];
    for bytes in [
        tar_gz(&[
            file("r/skills/big/SKILL.md", b"---\nname: big\n---\n"),
            file("r/skills/big/assets/movie.bin", &big),
            file("r/skills/small/SKILL.md", b"---\n---\n"),
            file("r/demo.gif", &big),
        ]),
        zip_of(&[
            ("r/skills/big/SKILL.md", b"---\nname: big\n---\n"),
            ("r/skills/big/assets/movie.bin", &big),
            ("r/skills/small/SKILL.md", b"---\n---\n"),
            ("r/demo.gif", &big),
        ]),
    ] {
        let format = Format::sniff(&bytes).unwrap();
        // The strict form refuses the archive, as before.
        assert_refused(
            extract(&bytes, format, &limits),
            &["is larger than 20 bytes"],
        );
        let tree = extract_tree(&bytes, format, &limits).unwrap();
        assert!(tree.files.iter().all(|(_, bytes)| bytes.len() <= 20));
        let search = skills_found(tree.clone(), None, &url()).unwrap();
        let found: Vec<(&str, bool)> = search
            .found
            .iter()
            .map(|found| (found.folder.as_str(), found.refusal.is_some()))
            .collect();
        // The large file outside every skill refuses nothing.
        assert_eq!(found, [("skills/big", true), ("skills/small", false)]);
        let refusal = search.found[0].refusal.as_deref().unwrap();
        assert!(
            refusal.contains("'r/skills/big/assets/movie.bin' is larger than 20 bytes")
                && refusal.contains("part of the skill 'big'"),
            "{refusal}"
        );
        assert_eq!(
            names(&skills_in(tree, Some("skills/small"), &url()).unwrap()),
            [Some("small")]
        );
    }
}

#[test]
fn the_skills_of_a_marketplace_carry_their_plugins() {
    let marketplace = br#"{"name": "m", "plugins": [
        {"name": "contracts", "source": "./plugins/contracts"},
        {"name": "remote", "source": {"source": "github", "repo": "acme/remote"}}
    ]}"#;
    let files = tree(&[
        ("repo-9f/.claude-plugin/marketplace.json", marketplace),
        (
            "repo-9f/plugins/contracts/.claude-plugin/plugin.json",
            br#"{"name": "contracts"}"#,
        ),
        ("repo-9f/plugins/contracts/skills/scan/SKILL.md", SKILL),
        ("repo-9f/plugins/contracts/commands/audit.md", b"# audit"),
        ("repo-9f/skills/loose/SKILL.md", SKILL),
    ]);
    let search = skills_found(
        Tree {
            files: files.clone(),
            withheld: Vec::new(),
        },
        None,
        &url(),
    )
    .unwrap();
    let plugins: Vec<(&str, Vec<String>)> = search
        .found
        .iter()
        .map(|found| (found.folder.as_str(), found.plugins.clone()))
        .collect();
    assert_eq!(
        plugins,
        [
            (
                "plugins/contracts/skills/scan",
                vec!["contracts".to_owned()]
            ),
            ("skills/loose", Vec::new()),
        ]
    );
    assert_eq!(search.plugins, ["contracts"]);
    assert!(
        search
            .warnings
            .iter()
            .any(|warning| warning.contains("acme/remote")),
        "{:?}",
        search.warnings
    );
    // Below a named folder, the plugin is still known from the root's manifest.
    let search = skills_found(
        Tree {
            files,
            withheld: Vec::new(),
        },
        Some("plugins/contracts/skills/scan"),
        &url(),
    )
    .unwrap();
    assert_eq!(search.found[0].folder, "plugins/contracts/skills/scan");
    assert_eq!(search.found[0].plugins, ["contracts"]);
}
