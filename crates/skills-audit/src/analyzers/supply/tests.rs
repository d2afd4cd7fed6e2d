//! The `supply` analyzer's cases: a positive and a negative skill per rule, and the slips a
//! name is read for.

use skills_types::audit::Finding;

use super::*;
use crate::files::ScannedFile;

fn skill(name: &str, files: &[(&str, &str)]) -> Skill {
    let frontmatter = files
        .iter()
        .find(|(path, _)| *path == "SKILL.md")
        .and_then(|(_, text)| {
            skills_ops::load::parse_document(std::path::Path::new("SKILL.md"), text.as_bytes()).ok()
        })
        .map(|document| document.frontmatter);
    Skill {
        name: name.into(),
        description: String::new(),
        frontmatter,
        files: files
            .iter()
            .map(|(path, text)| {
                ScannedFile::new(*path, text.as_bytes().to_vec(), text.len() as u64)
            })
            .collect(),
        neighbours: crate::files::Neighbours::default(),
    }
}

fn findings(name: &str, files: &[(&str, &str)]) -> Vec<Finding> {
    let mut out = Collector::default();
    analyze(&skill(name, files), &mut out);
    out.into_sorted()
}

fn severity_of(name: &str, files: &[(&str, &str)], id: &str) -> Option<Severity> {
    findings(name, files)
        .into_iter()
        .filter(|finding| finding.rule_id == id)
        .map(|finding| finding.severity)
        .max()
}

/// A rule's id, then a skill's name and files that give it, then a close skill that does not.
type Case = (
    &'static str,
    (&'static str, &'static [(&'static str, &'static str)]),
    (&'static str, &'static [(&'static str, &'static str)]),
);

const CASES: &[Case] = &[
    (
        "SUPPLY_TYPOSQUAT_NAME",
        (
            "yaml-convetrer",
            &[(
                "SKILL.md",
                "---\nname: yaml-convetrer\ndescription: d\n---\nConverts YAML.\n",
            )],
        ),
        (
            "yaml-converter",
            &[(
                "SKILL.md",
                "---\nname: yaml-converter\ndescription: d\n---\nConverts YAML.\n",
            )],
        ),
    ),
    (
        "SUPPLY_PRIVATE_PACKAGE",
        (
            "x",
            &[(
                "SKILL.md",
                "## Usage\n\n```bash\nnpx -y @acme-internal/build-tools check\n```\n",
            )],
        ),
        (
            "x",
            &[(
                "SKILL.md",
                "## Usage\n\n```bash\nnpx -y --registry https://npm.acme.test @acme-internal/build-tools check\n```\n",
            )],
        ),
    ),
    (
        "SUPPLY_UNNAMED_REGISTRY",
        (
            "x",
            &[(
                "SKILL.md",
                "Install the loader from the internal registry first.\n\n## Usage\n\n```bash\npip install report-loader\n```\n",
            )],
        ),
        (
            "x",
            &[(
                "SKILL.md",
                "Install the loader from the internal registry first.\n\n## Usage\n\n```bash\npip install --index-url https://pypi.acme.test/simple report-loader\n```\n",
            )],
        ),
    ),
    (
        "SUPPLY_UNVERIFIED_DOWNLOAD",
        ("x", &[("SKILL.md", OPENCLAW_UNVERIFIED)]),
        ("x", &[("SKILL.md", OPENCLAW_VERIFIED)]),
    ),
    (
        "SUPPLY_PLAIN_DOWNLOAD",
        ("x", &[("SKILL.md", OPENCLAW_PLAIN)]),
        ("x", &[("SKILL.md", OPENCLAW_VERIFIED)]),
    ),
];

const OPENCLAW_UNVERIFIED: &str = "---\nname: x\ndescription: d\nmetadata:\n  openclaw:\n    install:\n      - kind: download\n        url: https://dl.example.net/tool.tar.gz\n---\nBody.\n";
const OPENCLAW_VERIFIED: &str = "---\nname: x\ndescription: d\nmetadata:\n  openclaw:\n    install:\n      - kind: download\n        url: https://dl.example.net/tool.tar.gz\n        sha256: 0000000000000000000000000000000000000000000000000000000000000000\n      - kind: node\n        package: prettier\n---\nBody.\n";
const OPENCLAW_PLAIN: &str = "---\nname: x\ndescription: d\nmetadata:\n  openclaw:\n    install:\n      - kind: download\n        url: http://dl.example.net/tool.tar.gz\n---\nBody.\n";

#[test]
fn every_rule_has_a_case_and_each_case_is_right() {
    let mut problems = Vec::new();
    for rule in RULES {
        if !CASES.iter().any(|(id, _, _)| *id == rule.id) {
            problems.push(format!("{} has no case", rule.id));
        }
    }
    for (id, (name, positive), (other, negative)) in CASES {
        let rule = RULES.iter().find(|rule| rule.id == *id);
        let found = severity_of(name, positive, id);
        if found.is_none() || found != rule.map(|rule| rule.severity) {
            problems.push(format!(
                "{id}: positive case gave {found:?}: {:?}",
                findings(name, positive)
            ));
        }
        if let Some(severity) = severity_of(other, negative, id) {
            problems.push(format!(
                "{id}: negative case gave {severity:?}: {:?}",
                findings(other, negative)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_squatter_slips_one_way_and_honest_names_do_not_match() {
    for (word, correct) in [
        ("formattre", "formatter"),
        ("loggger", "logger"),
        ("confg", "config"),
        ("validater", "validator"),
    ] {
        assert!(misspells(word, correct), "{word} against {correct}");
    }
    for (word, correct) in [
        ("linker", "linter"),
        ("tracing", "tracking"),
        ("expert", "export"),
        ("parse", "parser"),
        ("format", "formatter"),
    ] {
        assert!(!misspells(word, correct), "{word} against {correct}");
    }
    // Real words one slip from the vocabulary are names, not squats.
    assert!(squatted("github-repo-stats").is_none());
    assert!(squatted("frontend-desing").is_some());
    assert!(squatted("frontend-design").is_none());
    assert!(squatted("pdf-tools").is_none());
    assert!(squatted("systematic-debuging").is_some());
}

#[test]
fn a_private_looking_package_in_an_mcp_entry_is_found_and_a_public_one_is_not() {
    let private = r#"{"mcpServers": {"auth": {"command": "npx", "args": ["-y", "@corp-tools/auth-bridge"]}}}"#;
    assert_eq!(
        severity_of("x", &[(".mcp.json", private)], "SUPPLY_PRIVATE_PACKAGE"),
        Some(Severity::High)
    );
    let public = r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}}"#;
    assert!(findings("x", &[(".mcp.json", public)]).is_empty());
}

#[test]
fn an_internal_registry_named_in_prose_with_its_url_is_not_unnamed() {
    let text = "Install it from the internal registry at https://npm.acme.test.\n\n```bash\nnpx acme-lint\n```\n";
    assert!(severity_of("x", &[("SKILL.md", text)], "SUPPLY_UNNAMED_REGISTRY").is_none());
    // Said inside a code block, it is an example, not the skill's instruction.
    let example =
        "```text\nInstall from the internal registry\n```\n\n```bash\nnpx acme-lint\n```\n";
    assert!(severity_of("x", &[("SKILL.md", example)], "SUPPLY_UNNAMED_REGISTRY").is_none());
}

/// The words that let a text be searched for installs are in every install the expression
/// finds, and a line starting `from` or `import` is found wherever the import expression
/// would match: neither pre-check drops a match.
#[test]
fn the_pre_checks_hold_every_match() {
    for command in [
        "npx pkg",
        "bunx pkg",
        "pnpx pkg",
        "uvx pkg",
        "pnpm dlx pkg",
        "yarn\tdlx pkg",
        "pipx run pkg",
        "pip install pkg",
        "pip3 install --index-url=https://x pkg",
        "uv pip install pkg",
        "npm i pkg",
        "pnpm add pkg",
        "yarn add pkg",
        "bun add @scope/pkg",
    ] {
        let text = format!("Run:\n\n    {command}\n");
        let found = installs(&text);
        assert_eq!(found.len(), 1, "{command}");
        for whole in INSTALL.find_iter(&text) {
            assert!(
                INSTALL_WORDS
                    .iter()
                    .any(|word| whole.as_str().contains(word)),
                "{command}"
            );
        }
    }
    assert!(installs("Install it with the package manager you like.").is_empty());
    for text in [
        "from acme_internal import x",
        "  import acme_internal",
        "prose\n\timport os\n",
        "a\r\nfrom x import y",
    ] {
        assert!(has_import_line(text), "{text:?}");
        assert!(PRIVATE_IMPORT.is_match(text), "{text:?}");
    }
    for text in [
        "nothing imported here",
        "the data comes from disk",
        "# import",
    ] {
        assert!(!has_import_line(text), "{text:?}");
        assert!(!PRIVATE_IMPORT.is_match(text), "{text:?}");
    }
}
