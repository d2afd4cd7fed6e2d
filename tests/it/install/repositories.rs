//! Real repositories' layouts, installed the way people install them (issue 30 §1, §2, §5,
//! §11): every skill found from GitHub, archives and local folders, OpenAI's catalog under
//! hidden folders, Claude Code plugin marketplaces grouped and installed one plugin at a time,
//! no "not installed" warning from a source that brings whole skills, and a skill that cannot
//! be installed refused alone.
//!
//! The fixtures are small synthetic files written here in the layouts of openai/skills,
//! anthropics/skills, trailofbits/skills, obra/superpowers, anthropics/claude-code and
//! vercel-labs/agent-skills as `git ls-tree` shows them (folders, manifests, where skills and
//! their bundled files sit); nothing is copied from them. GitHub is the loopback fixture of
//! `published.rs`, shaped like the REST API (a tarball with GitHub's `owner-repo-sha/` top
//! folder, reached through the API's redirect), through the `[github] url` base.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Write as _};
use std::path::Path;

use serde_json::{Value, json};
use skills_tests::http::{Reply, Server};
use skills_types::files::{LOCK_FILE, PROVENANCE_FILE};

use super::published::{COMMIT, Tar, installed, refused, roots, tar_gz, zip_of};
use super::{ALLOW_LOCAL_HTTP, Files, definition, read_json, run};
use crate::discovery::{Place, Run, Tree};

/// A repository: its owner and name, and every file (path → bytes) of its default branch.
struct Repo {
    owner: &'static str,
    name: &'static str,
    files: BTreeMap<String, Vec<u8>>,
}

impl Repo {
    fn new(owner: &'static str, name: &'static str) -> Self {
        Self {
            owner,
            name,
            files: BTreeMap::new(),
        }
    }

    fn file(&mut self, path: &str, text: &str) -> &mut Self {
        self.files.insert(path.to_owned(), text.as_bytes().to_vec());
        self
    }

    fn json(&mut self, path: &str, value: &Value) -> &mut Self {
        let text = serde_json::to_string_pretty(value).unwrap();
        self.file(path, &text)
    }

    /// A skill in `folder` named like the folder's last component, with `body` and `extra`
    /// bundled files.
    fn skill(&mut self, folder: &str, body: &str, extra: &[&str]) -> &mut Self {
        let name = folder.rsplit('/').next().unwrap();
        let description = format!("Use when the task needs {name}.");
        self.files.insert(
            format!("{folder}/SKILL.md"),
            definition(name, &description, body),
        );
        for path in extra {
            self.file(&format!("{folder}/{path}"), &format!("{path} of {name}\n"));
        }
        self
    }

    /// The skill folders (and their files, hidden ones left out) a whole install brings.
    fn skills(&self) -> BTreeMap<String, Files> {
        let folders: BTreeSet<String> = self
            .files
            .keys()
            .filter_map(|path| path.strip_suffix("/SKILL.md"))
            .filter(|folder| !excluded(folder))
            .map(str::to_owned)
            .collect();
        folders
            .iter()
            .map(|folder| {
                let prefix = format!("{folder}/");
                let files: Files = self
                    .files
                    .iter()
                    .filter_map(|(path, bytes)| {
                        let relative = path.strip_prefix(&prefix)?;
                        let hidden = relative.split('/').any(|part| part.starts_with('.'));
                        (!hidden).then(|| (relative.to_owned(), bytes.clone()))
                    })
                    .collect();
                (folder.rsplit('/').next().unwrap().to_owned(), files)
            })
            .collect()
    }

    /// The tarball GitHub serves: a pax global header naming the commit, then everything
    /// under `owner-repo-sha/` (long names as the GNU extension writes them).
    fn tarball(&self) -> Vec<u8> {
        let top = format!("{}-{}-{COMMIT}/", self.owner, self.name);
        let head = tar_gz(&[Tar::GlobalHeader(COMMIT), Tar::Dir(&top)]);
        // The head's tar stream without its end-of-archive blocks, then the files.
        let mut tar = Vec::new();
        flate2::read::GzDecoder::new(head.as_slice())
            .read_to_end(&mut tar)
            .unwrap();
        let mut builder = tar::Builder::new(Vec::new());
        for (path, bytes) in &self.files {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_mtime(1_700_000_000);
            builder
                .append_data(&mut header, format!("{top}{path}"), bytes.as_slice())
                .unwrap();
        }
        let files = builder.into_inner().unwrap();
        let mut whole = tar[..1536].to_vec();
        whole.extend_from_slice(&files);
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(&whole).unwrap();
        gzip.finish().unwrap()
    }

    /// A release zip: everything under `repo-main/`.
    fn zip(&self) -> Vec<u8> {
        let paths: Vec<(String, &[u8])> = self
            .files
            .iter()
            .map(|(path, bytes)| (format!("{}-main/{path}", self.name), bytes.as_slice()))
            .collect();
        let borrowed: Vec<(&str, &[u8])> = paths.iter().map(|(p, b)| (p.as_str(), *b)).collect();
        zip_of(&borrowed, &[])
    }

    /// Serves the repository on `server` as GitHub does: the API's tarball endpoint (with and
    /// without a ref) redirects to the archive host; file pages are raw files. Its release
    /// archives are on `web` (another origin: every path of the GitHub base is a GitHub page).
    fn serve(&self, server: &Server, web: &Server) -> &Self {
        let tarball = self.tarball();
        let (owner, name) = (self.owner, self.name);
        for (api, archive) in [
            (
                format!("/api/v3/repos/{owner}/{name}/tarball/main"),
                format!("/_codeload/{owner}/{name}/legacy.tar.gz/main"),
            ),
            (
                format!("/api/v3/repos/{owner}/{name}/tarball"),
                format!("/_codeload/{owner}/{name}/legacy.tar.gz/HEAD"),
            ),
        ] {
            server.route(&api, Reply::Redirect(server.url(&archive)));
            server.route(&archive, Reply::Ok(tarball.clone()));
        }
        for (path, bytes) in &self.files {
            server.route(
                &format!("/{owner}/{name}/raw/main/{path}"),
                Reply::Ok(bytes.clone()),
            );
        }
        web.route(&format!("/dl/{owner}-{name}.tar.gz"), Reply::Ok(tarball));
        web.route(&format!("/dl/{owner}-{name}.zip"), Reply::Ok(self.zip()));
        self
    }

    /// The URL of a release archive on `web` (`tar.gz` or `zip`).
    fn release(&self, web: &Server, extension: &str) -> String {
        web.url(&format!("/dl/{}-{}.{extension}", self.owner, self.name))
    }

    /// Writes the repository as a checkout under `dir`.
    fn write(&self, dir: &Path) {
        for (path, bytes) in &self.files {
            let target = dir.join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, bytes).unwrap();
        }
    }
}

/// Whether a skill folder lies where no source is searched (`.git`, `.github`,
/// `node_modules`), `.github/skills` excepted (GitHub Copilot's place for a repository's
/// skills): the fixtures' own statement of the rule, kept apart from the code's.
fn excluded(folder: &str) -> bool {
    let parts: Vec<&str> = folder.split('/').collect();
    parts.iter().enumerate().any(|(index, part)| match *part {
        ".github" => parts.get(index + 1) != Some(&"skills"),
        ".git" | "node_modules" | "target" | ".venv" => true,
        _ => false,
    })
}

/// Prose with paths that are examples, not files of the skill (what the false warnings were
/// made of), and a bundled file that the skill does hold.
const EXAMPLES: &str = "Write the test in `path/to/test.test.ts`, then open \
     word/_rels/document.xml.rels and src/app/page.tsx to compare. Run ./build.sh first.";

/// openai/skills: the catalog under `skills/.curated`, `skills/.system` and
/// `skills/.experimental`, each skill with `agents/openai.yaml`.
fn openai() -> Repo {
    let mut repo = Repo::new("openai", "skills");
    repo.file("README.md", "# Skills\n")
        .file(".github/workflows/validate.yml", "on: push\n")
        .file("contributing.md", "# Contributing\n")
        .skill(
            "skills/.curated/gh-fix-ci",
            &format!("Run `scripts/inspect_pr_checks.py`. {EXAMPLES}"),
            &[
                "scripts/inspect_pr_checks.py",
                "agents/openai.yaml",
                "LICENSE.txt",
            ],
        )
        .skill(
            "skills/.curated/notion-knowledge-capture",
            "See references/database-schemas.md and references/missing-from-source.md.",
            &["references/database-schemas.md", "agents/openai.yaml"],
        )
        .skill(
            "skills/.system/skill-creator",
            "Run scripts/init_skill.py; read references/output-patterns.md.",
            &["scripts/init_skill.py", "references/output-patterns.md"],
        )
        .skill(
            "skills/.system/skill-installer",
            "Run scripts/list-curated-skills.py.",
            &["scripts/list-curated-skills.py"],
        )
        .skill("skills/.experimental/create-plan", "Plan first.", &[])
        .skill(
            "skills/.experimental/linear",
            "Use the Linear tools.",
            &["agents/openai.yaml"],
        )
        // Hidden files inside a skill are never part of it.
        .file("skills/.curated/gh-fix-ci/.DS_Store", "junk");
    repo
}

/// anthropics/skills: one marketplace declaring three plugins on the repository's root, told
/// apart by their `skills` lists, and a template skill in none of them.
fn anthropic_skills() -> Repo {
    let mut repo = Repo::new("anthropics", "skills");
    repo.json(
        ".claude-plugin/marketplace.json",
        &json!({
            "name": "anthropic-agent-skills",
            "owner": {"name": "Example Owner"},
            "metadata": {"description": "Example skills", "version": "1.0.0"},
            "plugins": [
                {"name": "document-skills", "description": "Documents.", "source": "./",
                 "strict": false, "skills": ["./skills/xlsx", "./skills/docx", "./skills/pdf"]},
                {"name": "example-skills", "description": "Examples.", "source": "./",
                 "strict": false, "skills": ["./skills/algorithmic-art", "./skills/webapp-testing"]},
                {"name": "claude-api", "description": "The API.", "source": "./",
                 "strict": false, "skills": ["./skills/claude-api"]}
            ]
        }),
    )
    .file("README.md", "# Skills\n")
    .file("spec/agent-skills-spec.md", "# Spec\n")
    .skill(
        "skills/docx",
        &format!("Unpack, then edit word/document.xml. Use scripts/document.py. {EXAMPLES}"),
        &["scripts/document.py", "ooxml.md", "LICENSE.txt"],
    )
    .skill(
        "skills/pdf",
        "Read forms.md and reference.md; run scripts/check_fillable_fields.py.",
        &["forms.md", "reference.md", "scripts/check_fillable_fields.py"],
    )
    .skill("skills/xlsx", "Run recalc.py after every edit.", &["recalc.py"])
    .skill(
        "skills/algorithmic-art",
        "Start from templates/viewer.html.",
        &["templates/viewer.html"],
    )
    .skill(
        "skills/webapp-testing",
        &format!("See examples/console_logging.py and scripts/with_server.py. {EXAMPLES}"),
        &["examples/console_logging.py", "scripts/with_server.py"],
    )
    .skill(
        "skills/claude-api",
        "Read python/README.md.",
        &["python/README.md"],
    )
    .skill("template", "Replace this.", &[]);
    repo
}

/// trailofbits/skills: a marketplace of plugins in `plugins/<name>`, each with its own
/// `plugin.json` and its skills under `skills/`; one plugin has commands only.
fn trailofbits() -> Repo {
    let mut repo = Repo::new("trailofbits", "skills");
    let plugins = [
        (
            "building-secure-contracts",
            &["audit-prep-assistant", "token-integration-analyzer"][..],
        ),
        ("c-review", &["c-review"][..]),
        ("constant-time-analysis", &["constant-time-analysis"][..]),
        ("insecure-defaults", &[][..]),
    ];
    let entries: Vec<Value> = plugins
        .iter()
        .map(|(name, _)| {
            json!({"name": name, "version": "1.0.0", "description": format!("The {name} plugin."),
                   "author": {"name": "Example"}, "source": format!("./plugins/{name}")})
        })
        .collect();
    repo.json(
        ".claude-plugin/marketplace.json",
        &json!({"name": "trailofbits", "owner": {"name": "Example"},
                "metadata": {"version": "1.0.0"}, "plugins": entries}),
    )
    .file(".github/workflows/validate.yml", "on: push\n")
    .file("README.md", "# Plugins\n");
    for (name, skills) in plugins {
        repo.json(
            &format!("plugins/{name}/.claude-plugin/plugin.json"),
            &json!({"name": name, "version": "1.0.0", "description": "x"}),
        )
        .file(&format!("plugins/{name}/README.md"), "# Plugin\n");
        for skill in skills {
            repo.skill(
                &format!("plugins/{name}/skills/{skill}"),
                &format!("Read references/{skill}.md. {EXAMPLES}"),
                &[&format!("references/{skill}.md")],
            );
        }
    }
    repo.file("plugins/insecure-defaults/commands/audit.md", "# Audit\n")
        .file(
            "plugins/insecure-defaults/references/defaults.md",
            "# Defaults\n",
        );
    repo
}

/// obra/superpowers: the repository is one plugin (a root `plugin.json`, and a marketplace
/// naming the root), with manifests for other hosts beside it.
fn superpowers() -> Repo {
    let mut repo = Repo::new("obra", "superpowers");
    repo.json(
        ".claude-plugin/marketplace.json",
        &json!({"name": "superpowers-dev", "owner": {"name": "Example"},
                "plugins": [{"name": "superpowers", "version": "6.2.0", "source": "./"}]}),
    )
    .json(
        ".claude-plugin/plugin.json",
        &json!({"name": "superpowers", "version": "6.2.0"}),
    )
    .json(".codex-plugin/plugin.json", &json!({"name": "superpowers"}))
    .json(
        ".cursor-plugin/plugin.json",
        &json!({"name": "superpowers"}),
    )
    .file("commands/brainstorm.md", "# Brainstorm\n")
    .file("agents/code-reviewer.md", "# Reviewer\n")
    .file("hooks/hooks.json", "{}\n")
    .skill("skills/brainstorming", "Ask one question at a time.", &[])
    .skill(
        "skills/systematic-debugging",
        &format!("Use root-cause-tracing.md and find-polluter.sh. {EXAMPLES}"),
        &["root-cause-tracing.md", "find-polluter.sh"],
    )
    .skill(
        "skills/writing-skills",
        "See examples/CLAUDE_MD_TESTING.md.",
        &["examples/CLAUDE_MD_TESTING.md"],
    );
    repo
}

/// anthropics/claude-code: a marketplace of plugins in `plugins/`, some without skills, one
/// without a `plugin.json`, and a file over the per-file limit outside every skill.
fn claude_code() -> Repo {
    let mut repo = Repo::new("anthropics", "claude-code");
    repo.json(
        ".claude-plugin/marketplace.json",
        &json!({
            "$schema": "https://json.schemastore.org/claude-code-marketplace.json",
            "name": "claude-code-plugins",
            "owner": {"name": "Example"},
            "plugins": [
                {"name": "agent-sdk-dev", "source": "./plugins/agent-sdk-dev", "category": "development"},
                {"name": "frontend-design", "source": "./plugins/frontend-design"},
                {"name": "hookify", "source": "./plugins/hookify"},
                {"name": "plugin-dev", "source": "./plugins/plugin-dev"}
            ]
        }),
    )
    .file("CHANGELOG.md", "# Changelog\n")
    .file(".github/workflows/ci.yml", "on: push\n")
    .json(
        "plugins/agent-sdk-dev/.claude-plugin/plugin.json",
        &json!({"name": "agent-sdk-dev"}),
    )
    .file("plugins/agent-sdk-dev/commands/new-sdk-app.md", "# New app\n")
    .json(
        "plugins/frontend-design/.claude-plugin/plugin.json",
        &json!({"name": "frontend-design"}),
    )
    .skill(
        "plugins/frontend-design/skills/frontend-design",
        "Avoid generic layouts.",
        &[],
    )
    .json(
        "plugins/hookify/.claude-plugin/plugin.json",
        &json!({"name": "hookify"}),
    )
    .skill(
        "plugins/hookify/skills/writing-rules",
        "Rules go in .claude/hookify.*.local.md.",
        &[],
    );
    for (skill, extra) in [
        (
            "hook-development",
            &[
                "references/patterns.md",
                "scripts/validate-hook-schema.sh",
                "examples/load-context.sh",
            ][..],
        ),
        (
            "mcp-integration",
            &["references/server-types.md", "examples/stdio-server.json"][..],
        ),
        (
            "skill-development",
            &["references/skill-creator-original.md"][..],
        ),
    ] {
        let mentions = extra.join(", ");
        repo.skill(
            &format!("plugins/plugin-dev/skills/{skill}"),
            &format!("See {mentions}. {EXAMPLES}"),
            extra,
        );
    }
    // 1.2 MB of bytes that do not compress, at the top: a demo, in no skill.
    let mut state = 0x2545_f491_u32;
    let noise: Vec<u8> = (0..1_200_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state.to_le_bytes()[0]
        })
        .collect();
    repo.files.insert("demo.gif".to_owned(), noise);
    repo
}

/// vercel-labs/agent-skills: skills in `skills/`, one with a `rules/` folder of many files,
/// and a build package beside them that holds no skill.
fn vercel_agent_skills() -> Repo {
    let mut repo = Repo::new("vercel-labs", "agent-skills");
    repo.file("AGENTS.md", "# Agents\n")
        .file("README.md", "# Agent skills\n")
        .file(
            "packages/react-best-practices-build/src/index.ts",
            "export {};\n",
        )
        .skill(
            "skills/react-best-practices",
            "Read rules/async-parallel.md and rules/bundle-barrel-imports.md; AGENTS.md has all.",
            &[
                "AGENTS.md",
                "metadata.json",
                "rules/async-parallel.md",
                "rules/bundle-barrel-imports.md",
            ],
        )
        .skill("skills/web-design-guidelines", "Fetch the guidelines.", &[])
        .skill(
            "skills/deploy-to-vercel",
            "Run resources/deploy.sh.",
            &["resources/deploy.sh"],
        );
    repo
}

/// A repository keeping its skills where GitHub Copilot reads them, `.github/skills`, beside
/// the rest of `.github` (workflows, templates, a SKILL.md-looking file that is no skill).
fn copilot_layout() -> Repo {
    let mut repo = Repo::new("example", "copilot-skills");
    repo.file("README.md", "# Project\n")
        .file(".github/workflows/ci.yml", "on: push\n")
        .file(".github/CODEOWNERS", "* @example\n")
        .skill(
            ".github/workflows/not-a-skill",
            "A workflow folder is never searched.",
            &[],
        )
        .skill(
            ".github/skills/review-pr",
            "Run scripts/review.sh on the diff.",
            &["scripts/review.sh"],
        )
        .skill(
            ".github/skills/release-notes",
            "Summarise the changes.",
            &[],
        );
    repo
}

fn repositories() -> Vec<Repo> {
    vec![
        openai(),
        anthropic_skills(),
        trailofbits(),
        superpowers(),
        claude_code(),
        vercel_agent_skills(),
        copilot_layout(),
    ]
}

/// The binary on `tree` with loopback http allowed and GitHub at `server`.
fn on(tree: &Tree, server: &Server, args: &[&str]) -> Run {
    let base = server.url("");
    tree.run_with(
        args,
        &[
            (ALLOW_LOCAL_HTTP, "1"),
            ("SKILLS_GITHUB_URL", base.as_str()),
        ],
    )
}

/// `skills --json install ARGS`, which must succeed: the outcomes, and what they and stderr
/// say (with `--json` the warnings are in the outcomes).
fn install_on(tree: &Tree, server: &Server, args: &[&str]) -> (Vec<Value>, String) {
    let mut full = vec!["--json", "install"];
    full.extend_from_slice(args);
    let outcome = on(tree, server, &full);
    let document = outcome.json();
    let key = if args.contains(&"--list") {
        "offered"
    } else {
        "installed"
    };
    let outcomes = document[key].as_array().unwrap().clone();
    let said = format!("{}\n{}", warnings_of(&outcomes).join("\n"), outcome.stderr);
    (outcomes, said)
}

fn slugs(outcomes: &[Value]) -> BTreeSet<String> {
    outcomes
        .iter()
        .map(|outcome| outcome["slug"].as_str().unwrap().to_owned())
        .collect()
}

/// Every warning of every outcome.
fn warnings_of(outcomes: &[Value]) -> Vec<String> {
    outcomes
        .iter()
        .flat_map(|outcome| outcome["warnings"].as_array().unwrap().clone())
        .map(|warning| warning.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_skill_of_every_repository_installs_from_github_archives_and_folders() {
    let server = Server::start().unwrap();
    let web = Server::start().unwrap();
    for repo in repositories() {
        repo.serve(&server, &web);
        let expected = repo.skills();
        let names: BTreeSet<String> = expected.keys().cloned().collect();
        let tree = Tree::new();
        let checkout = tree.base.join(format!("checkout-{}", repo.name));
        repo.write(&checkout);
        let zip = tree.base.join(format!("{}.zip", repo.name));
        std::fs::write(&zip, repo.zip()).unwrap();
        let tarball = tree.base.join(format!("{}.tar.gz", repo.name));
        std::fs::write(&tarball, repo.tarball()).unwrap();
        let shorthand = format!("{}/{}", repo.owner, repo.name);
        let page = server.url(&format!("/{}/{}", repo.owner, repo.name));
        let sources = [
            shorthand.clone(),
            page,
            repo.release(&web, "tar.gz"),
            repo.release(&web, "zip"),
            checkout.display().to_string(),
            zip.display().to_string(),
            tarball.display().to_string(),
        ];
        for (index, source) in sources.iter().enumerate() {
            let (listed, _) = install_on(&tree, &server, &[source, "--list"]);
            assert_eq!(slugs(&listed), names, "{shorthand}: --list of {source}");
            let (outcomes, stderr) = install_on(&tree, &server, &[source]);
            assert_eq!(slugs(&outcomes), names, "{shorthand} from {source}");
            // A source that brings whole skills never says a mentioned file is missing.
            assert!(
                !stderr.contains("not installed"),
                "{shorthand} from {source}: {stderr}"
            );
            // The first install wrote; the others found the same bytes there.
            assert!(
                outcomes
                    .iter()
                    .all(|outcome| outcome["already_installed"] == (index > 0)),
                "{shorthand} from {source}: {outcomes:?}"
            );
        }
        for (slug, files) in &expected {
            assert_eq!(&installed(&tree, slug), files, "{shorthand}: {slug}");
        }
    }
}

#[test]
fn openai_s_catalog_is_found_under_its_hidden_folders_and_installs_by_its_path() {
    let server = Server::start().unwrap();
    let repo = openai();
    repo.serve(&server, &Server::start().unwrap());
    let tree = Tree::new();
    let (listed, _) = install_on(&tree, &server, &["openai/skills", "--list"]);
    assert_eq!(
        slugs(&listed),
        [
            "create-plan",
            "gh-fix-ci",
            "linear",
            "notion-knowledge-capture",
            "skill-creator",
            "skill-installer"
        ]
        .map(str::to_owned)
        .into(),
    );
    // The path from OpenAI's own instructions, in the shorthand and as a tree/ page.
    let (one, _) = install_on(&tree, &server, &["openai/skills/skills/.curated/gh-fix-ci"]);
    assert_eq!(slugs(&one), ["gh-fix-ci".to_owned()].into());
    assert_eq!(
        installed(&tree, "gh-fix-ci"),
        repo.skills()["gh-fix-ci"],
        "nothing hidden is installed"
    );
    assert!(
        !tree
            .root(Place::UserAgents)
            .join("gh-fix-ci/.DS_Store")
            .exists()
    );
    let record = read_json(
        &tree
            .root(Place::UserAgents)
            .join("gh-fix-ci")
            .join(PROVENANCE_FILE),
    );
    assert_eq!(
        record["source_url"],
        "openai/skills/skills/.curated/gh-fix-ci"
    );
    let system = server.url("/openai/skills/tree/main/skills/.system");
    let (two, _) = install_on(&tree, &server, &[&system]);
    assert_eq!(
        slugs(&two),
        ["skill-creator".to_owned(), "skill-installer".to_owned()].into()
    );
    // A file page below a hidden folder is that one file.
    let page = server.url("/openai/skills/blob/main/skills/.experimental/linear/SKILL.md");
    let (file, _) = install_on(&tree, &server, &[&page]);
    assert_eq!(file[0]["files"], 1);
    // Hidden segments pass; everything else the path check refuses still fails, before any
    // request.
    let before = server.targets().len();
    for bad in [
        "openai/skills/skills/.curated/../../x",
        "openai/skills/skills/.curated/a\\b",
        "openai/skills/.git/config",
    ] {
        let stderr = refused(&tree, &[bad], &[("SKILLS_GITHUB_URL", &server.url(""))]);
        assert!(stderr.contains("the path '"), "{bad}: {stderr}");
    }
    assert_eq!(server.targets().len(), before);
}

#[test]
fn a_marketplace_lists_its_skills_by_plugin_and_installs_one_plugin() {
    let server = Server::start().unwrap();
    let web = Server::start().unwrap();
    let repo = trailofbits();
    repo.serve(&server, &web);
    let tree = Tree::new();
    let listing = on(&tree, &server, &["install", "trailofbits/skills", "--list"]);
    let text = listing.ok();
    let headings: Vec<&str> = text.lines().filter(|line| !line.starts_with(' ')).collect();
    assert_eq!(
        headings,
        [
            "plugin building-secure-contracts (2 skills)",
            "plugin c-review (1 skill)",
            "plugin constant-time-analysis (1 skill)",
        ],
        "{text}"
    );
    assert!(
        text.contains("\n  audit-prep-assistant (github, 2 files)\n"),
        "{text}"
    );
    let (offered, _) = install_on(&tree, &server, &["trailofbits/skills", "--list"]);
    let plugins: BTreeMap<String, String> = offered
        .iter()
        .map(|outcome| {
            (
                outcome["slug"].as_str().unwrap().to_owned(),
                outcome["plugin"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        plugins["token-integration-analyzer"],
        "building-secure-contracts"
    );
    assert_eq!(plugins["c-review"], "c-review");

    let (outcomes, _) = install_on(
        &tree,
        &server,
        &[
            "trailofbits/skills",
            "--plugin",
            "building-secure-contracts",
        ],
    );
    assert_eq!(
        slugs(&outcomes),
        [
            "audit-prep-assistant".to_owned(),
            "token-integration-analyzer".to_owned()
        ]
        .into()
    );
    assert!(!tree.root(Place::UserAgents).join("c-review").exists());
    let record = read_json(
        &tree
            .root(Place::UserAgents)
            .join("audit-prep-assistant")
            .join(PROVENANCE_FILE),
    );
    assert_eq!(record["plugin"], "building-secure-contracts");
    let lock = read_json(&tree.root(Place::UserAgents).join(LOCK_FILE));
    assert_eq!(
        lock["skills"]["token-integration-analyzer"]["plugin"],
        "building-secure-contracts"
    );
    // --skill within a plugin, and a skill of another plugin is not offered there.
    let (one, _) = install_on(
        &tree,
        &server,
        &[
            "trailofbits/skills",
            "--plugin",
            "c-review",
            "--skill",
            "c-review",
        ],
    );
    assert_eq!(slugs(&one), ["c-review".to_owned()].into());
    let stderr = refused(
        &tree,
        &[
            "trailofbits/skills",
            "--plugin",
            "c-review",
            "--skill",
            "audit-prep-assistant",
        ],
        &[("SKILLS_GITHUB_URL", &server.url(""))],
    );
    assert!(
        stderr.contains("does not offer 'audit-prep-assistant'"),
        "{stderr}"
    );
    // Unknown plugins list the ones there are; a plugin of commands only installs nothing.
    let stderr = refused(
        &tree,
        &["trailofbits/skills", "--plugin", "nope"],
        &[("SKILLS_GITHUB_URL", &server.url(""))],
    );
    assert!(
        stderr.contains("has no plugin 'nope'")
            && stderr.contains(
                "building-secure-contracts, c-review, constant-time-analysis, insecure-defaults"
            ),
        "{stderr}"
    );
    let stderr = refused(
        &tree,
        &["trailofbits/skills", "--plugin", "insecure-defaults"],
        &[("SKILLS_GITHUB_URL", &server.url(""))],
    );
    assert!(stderr.contains("holds no skills"), "{stderr}");
    // A source without manifests has no plugins to choose from, and works as before.
    let plain = vercel_agent_skills();
    plain.serve(&server, &web);
    let stderr = refused(
        &tree,
        &["vercel-labs/agent-skills", "--plugin", "x"],
        &[("SKILLS_GITHUB_URL", &server.url(""))],
    );
    assert!(stderr.contains("declares no plugins"), "{stderr}");
    let listing = on(
        &tree,
        &server,
        &["install", "vercel-labs/agent-skills", "--list"],
    );
    assert!(!listing.ok().contains("plugin"), "{listing:?}");
}

#[test]
fn plugins_on_one_root_are_told_apart_and_a_local_checkout_groups_the_same() {
    let server = Server::start().unwrap();
    let repo = anthropic_skills();
    let tree = Tree::new();
    let checkout = tree.base.join("anthropic-skills");
    repo.write(&checkout);
    let source = checkout.display().to_string();
    let listing = on(&tree, &server, &["install", &source, "--list"]);
    let text = listing.ok();
    let headings: Vec<&str> = text.lines().filter(|line| !line.starts_with(' ')).collect();
    assert_eq!(
        headings,
        [
            "plugin document-skills (3 skills)",
            "plugin example-skills (2 skills)",
            "plugin claude-api (1 skill)",
            "in no plugin (1 skill)",
        ],
        "{text}"
    );
    let (outcomes, _) = install_on(&tree, &server, &[&source, "--plugin", "document-skills"]);
    assert_eq!(
        slugs(&outcomes),
        ["docx", "pdf", "xlsx"].map(str::to_owned).into()
    );
    // A marketplace whose plugin lives in another repository says where, and lists the rest.
    let mut remote = superpowers();
    remote.json(
        ".claude-plugin/marketplace.json",
        &json!({"name": "m", "plugins": [
            {"name": "superpowers", "source": "./"},
            {"name": "elsewhere", "source": {"source": "github", "repo": "acme/elsewhere"}}
        ]}),
    );
    let other = tree.base.join("superpowers");
    remote.write(&other);
    let listing = on(
        &tree,
        &server,
        &["install", &other.display().to_string(), "--list"],
    );
    assert!(
        listing.ok().starts_with("plugin superpowers (3 skills)\n"),
        "{listing:?}"
    );
    assert!(
        listing
            .stderr
            .contains("'elsewhere' is published in the GitHub repository acme/elsewhere"),
        "{listing:?}"
    );
}

/// A repository whose skill `big` holds a file over the per-file limit (1 MiB).
fn with_a_big_skill() -> Repo {
    let mut repo = Repo::new("acme", "big");
    repo.skill("skills/small", "Small.", &["references/a.md"])
        .skill("skills/other", "Other.", &[])
        .skill("skills/big", "Big.", &["references/b.md"]);
    let mut state = 0x9e37_79b9_u32;
    let noise: Vec<u8> = (0..1_100_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state.to_le_bytes()[1]
        })
        .collect();
    repo.files
        .insert("skills/big/assets/demo.mp4".to_owned(), noise);
    repo
}

#[test]
fn a_file_over_the_limit_refuses_only_the_skill_that_holds_it() {
    let server = Server::start().unwrap();
    let web = Server::start().unwrap();
    let repo = with_a_big_skill();
    repo.serve(&server, &web);
    let tree = Tree::new();
    let checkout = tree.base.join("big-checkout");
    repo.write(&checkout);
    let local = checkout.display().to_string();
    let zip = repo.release(&web, "zip");
    for source in ["acme/big", local.as_str(), zip.as_str()] {
        // --list lists the others and says why the big one is not there.
        let listing = on(&tree, &server, &["install", source, "--list"]);
        assert_eq!(listing.code, Some(0), "{source}: {listing:?}");
        assert!(listing.stdout.contains("small (") && listing.stdout.contains("other ("));
        assert!(!listing.stdout.contains("big ("), "{source}: {listing:?}");
        assert!(
            listing.stderr.contains("'skills/big': ")
                && listing
                    .stderr
                    .contains("skills/big/assets/demo.mp4' is larger than 1048576 bytes"),
            "{source}: {listing:?}"
        );
        // --skill of another one: installed, and the big one is not even mentioned.
        let tree = Tree::new();
        let (one, stderr) = install_on(&tree, &server, &[source, "--skill", "small"]);
        assert_eq!(slugs(&one), ["small".to_owned()].into(), "{source}");
        assert!(!stderr.contains("larger than"), "{source}: {stderr}");
        // The whole source: the others installed, the big one named with why.
        let (all, stderr) = install_on(&tree, &server, &[source]);
        assert_eq!(
            slugs(&all),
            ["other".to_owned(), "small".to_owned()].into(),
            "{source}"
        );
        assert!(
            stderr.contains("'skills/big': ") && stderr.contains("; it was not installed"),
            "{source}: {stderr}"
        );
        assert!(!tree.root(Place::UserAgents).join("big").exists());
        // Naming it is an error, and changes nothing.
        let stderr = refused(
            &tree,
            &[source, "--skill", "big"],
            &[("SKILLS_GITHUB_URL", &server.url(""))],
        );
        assert!(
            stderr.contains("larger than 1048576 bytes"),
            "{source}: {stderr}"
        );
    }
}

#[test]
fn a_broken_skill_is_named_by_its_folder_and_refuses_only_itself() {
    let server = Server::start().unwrap();
    let tree = Tree::new();
    let mut repo = Repo::new("acme", "broken");
    repo.skill("skills/good", "Fine.", &[])
        .file("skills/broken/SKILL.md", "no frontmatter here\n");
    let checkout = tree.base.join("broken-checkout");
    repo.write(&checkout);
    let source = checkout.display().to_string();
    let (outcomes, stderr) = install_on(&tree, &server, &[&source]);
    assert_eq!(slugs(&outcomes), ["good".to_owned()].into());
    assert!(
        stderr.contains("'skills/broken': SKILL.md has no valid YAML frontmatter"),
        "{stderr}"
    );
    // The same words on stderr without --json.
    let human = run(&tree, &["install", &source]);
    assert!(
        human
            .stderr
            .contains("warning: 'skills/broken': SKILL.md has no valid YAML frontmatter"),
        "{human:?}"
    );
    let stderr = refused(&tree, &[&source, "--skill", "broken"], &[]);
    assert!(
        stderr.contains("'skills/broken': SKILL.md has no valid YAML frontmatter"),
        "{stderr}"
    );
    // Nothing installable at all is the error, naming each folder.
    let only = tree.base.join("only-broken");
    std::fs::create_dir_all(only.join("a")).unwrap();
    std::fs::write(
        only.join("a/SKILL.md"),
        "---\nname: a\n---\nno description\n",
    )
    .unwrap();
    std::fs::create_dir_all(only.join("b")).unwrap();
    std::fs::write(only.join("b/SKILL.md"), "nothing\n").unwrap();
    let stderr = refused(&tree, &[&only.display().to_string()], &[]);
    assert!(
        stderr.contains("'a': SKILL.md's frontmatter has no description")
            && stderr.contains("'b': SKILL.md has no valid YAML frontmatter"),
        "{stderr}"
    );
}

#[test]
fn a_local_source_that_does_not_exist_says_so() {
    let tree = Tree::new();
    let missing = tree.base.join("does/not/exist");
    for source in [missing.display().to_string(), "./nope.tar.gz".to_owned()] {
        let before = roots(&tree);
        let outcome = run(&tree, &["install", &source]);
        assert_eq!(outcome.code, Some(2), "{outcome:?}");
        assert!(
            outcome.stderr.contains("no such file or folder") && outcome.stderr.contains(&source),
            "{outcome:?}"
        );
        assert!(!outcome.stderr.contains("not a valid skill"), "{outcome:?}");
        assert!(before == roots(&tree));
    }
}
