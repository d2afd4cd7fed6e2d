//! What the hosts document and do, end to end (issue 30, items 3, 4 and 11): `validate`'s
//! host profiles over skills written in the shapes real ones use (`tests/hosts/`); `lenient`
//! agreeing with `skills list`, skill by skill, over those and every reference-validator case;
//! a skill started by name only (Claude Code's `disable-model-invocation`, Codex's
//! `agents/openai.yaml` policy) and a skill whose frontmatter does not parse kept out of
//! everything offered to a model — `prompt`, the `AGENTS.md` block, search, an MCP server's
//! instructions and prompts — while the first is still read by name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rmcp::model::{CallToolRequestParams, JsonObject};
use serde_json::{Value, json};
use skills_tests::skills;

use crate::discovery::{Place, Tree, array};

/// `tests/<name>`.
fn fixtures(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// Per skill folder (relative to the path validated): whether it is valid, and its error codes.
type Verdicts = BTreeMap<String, (bool, Vec<String>)>;

/// `skills validate --recursive --json --profile PROFILE PATH`: the exit status and the
/// verdicts.
fn validate(profile: &str, path: &Path) -> (Option<i32>, Verdicts) {
    let output = skills()
        .args(["validate", "--recursive", "--json", "--profile", profile])
        .arg(path)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stdout)));
    let skills = array(&report, "reports")
        .iter()
        .map(|report| {
            let dir = Path::new(report["dir"].as_str().unwrap());
            let relative = dir.strip_prefix(path).unwrap_or(dir);
            let errors = array(report, "diagnostics")
                .iter()
                .filter(|diagnostic| diagnostic["severity"] == "error")
                .map(|diagnostic| diagnostic["code"].as_str().unwrap().to_owned())
                .collect();
            (
                relative.display().to_string(),
                (report["valid"].as_bool().unwrap(), errors),
            )
        })
        .collect();
    (output.status.code(), skills)
}

#[test]
fn each_host_profile_accepts_the_skills_written_for_its_host() {
    for (profile, folder, count) in [
        ("claude-code", "claude-code", 8),
        ("codex", "codex", 3),
        ("opencode", "opencode", 1),
        ("lenient", "claude-code", 8),
        ("lenient", "codex", 3),
    ] {
        let (code, reports) = validate(profile, &fixtures("hosts").join(folder));
        assert_eq!(reports.len(), count, "{profile} {folder}: {reports:#?}");
        let invalid: Vec<_> = reports.iter().filter(|(_, (valid, _))| !valid).collect();
        assert!(invalid.is_empty(), "{profile} {folder}: {invalid:#?}");
        assert_eq!(code, Some(0), "{profile} {folder}");
    }
    // The same skills are not all agentskills.io skills: Claude Code's fields are not the
    // specification's, and its `name` is optional.
    let (code, reports) = validate("agentskills", &fixtures("hosts/claude-code"));
    assert_eq!(code, Some(1));
    assert!(!reports["deploy"].0);
    assert!(reports["deploy"].1.contains(&"unexpected-field".to_owned()));
    assert!(reports["commit"].1.contains(&"name-missing".to_owned()));
    assert!(reports["frontend-design"].0, "{reports:#?}");
}

#[test]
fn host_profiles_refuse_what_their_hosts_do_not_document() {
    // A display name with spaces and capitals and a top-level `version`: Claude Code loads the
    // skill, but its documented name rule and fields do not allow either.
    let (code, reports) = validate("claude-code", &fixtures("hosts/claude-code-off"));
    assert_eq!(code, Some(1));
    assert_eq!(
        reports["writing-rules"],
        (
            false,
            vec![
                "unexpected-field".to_owned(),
                "name-not-lowercase".to_owned(),
                "name-invalid-characters".to_owned(),
            ]
        )
    );
    // Claude Code's fields are no Codex or OpenCode fields; OpenCode documents no
    // `allowed-tools`.
    for profile in ["codex", "opencode"] {
        let (code, reports) = validate(profile, &fixtures("hosts/claude-code"));
        assert_eq!(code, Some(1), "{profile}");
        assert!(
            reports["deploy"].1.contains(&"unexpected-field".to_owned()),
            "{profile}: {reports:#?}"
        );
    }
    let (_, reports) = validate("opencode", &fixtures("hosts/claude-code"));
    assert!(
        reports["deep-research"]
            .1
            .contains(&"unexpected-field".to_owned()),
        "{reports:#?}"
    );
}

/// Copies the folder `from` into `to`, files and subfolders.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `lenient` is what `skills list` loads: over every host fixture, every reference-validator
/// case and a few cases made here (a name no agent could be shown, a nested skill), a skill
/// the listing loads is valid under `lenient`, and one it does not load is not.
#[test]
fn lenient_fails_exactly_the_skills_list_does_not_load() {
    let tree = Tree::new();
    let root = tree.root(Place::UserOpenhuman);
    copy_tree(&fixtures("hosts"), &root.join("hosts"));
    copy_tree(&fixtures("reference/cases"), &root.join("reference"));
    let made = root.join("made");
    tree.write(
        &made.join("shown-by-folder/SKILL.md"),
        "---\nname: \"pdf\u{200b}tools\"\ndescription: d\n---\nBody\n",
    );
    tree.write(
        &made.join("zero\u{200b}width/SKILL.md"),
        "---\nname: \"a\u{200b}b\"\ndescription: d\n---\nBody\n",
    );
    tree.write(
        &made.join("outer/SKILL.md"),
        "---\nname: outer\ndescription: d\n---\nBody\n",
    );
    tree.write(
        &made.join("outer/inner/SKILL.md"),
        "---\nname: inner\ndescription: d\n---\nBody\n",
    );
    std::fs::remove_file(root.join("hosts/README.md")).unwrap();

    let listing = tree.run(&["list", "--all", "--json"]).json();
    let loaded: BTreeSet<String> = array(&listing, "skills")
        .iter()
        .chain(array(&listing, "shadowed"))
        .map(|skill| skill["location"].as_str().unwrap().to_owned())
        .collect();
    let output = skills()
        .args(["validate", "--recursive", "--json", "--profile", "lenient"])
        .arg(&root)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(array(&report, "errors").is_empty(), "{report:#}");
    let mut checked = 0;
    let mut disagree = Vec::new();
    for report in array(&report, "reports") {
        let file = report["file"].as_str().unwrap().to_owned();
        let valid = report["valid"].as_bool().unwrap();
        checked += 1;
        if valid != loaded.contains(&file) {
            disagree.push(format!(
                "{file}: lenient says {}, list {}: {:#}",
                if valid { "valid" } else { "invalid" },
                if loaded.contains(&file) {
                    "loads it"
                } else {
                    "does not"
                },
                report["diagnostics"]
            ));
        }
    }
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
    // Every skill was seen by both: the 22 fixtures, the 71 reference cases and the 4 made.
    assert_eq!(checked, 22 + 71 + 4);
    assert!(
        loaded.len() > 80 && loaded.len() < checked,
        "{}",
        loaded.len()
    );
    let refused: BTreeSet<&str> = array(&listing, "diagnostics")
        .iter()
        .filter(|diagnostic| diagnostic["severity"] == "error")
        .filter_map(|diagnostic| diagnostic["code"].as_str())
        .collect();
    assert!(
        refused.is_superset(&BTreeSet::from([
            "yaml-error",
            "yaml-too-complex",
            "unterminated-frontmatter",
            "not-utf8"
        ])),
        "{refused:?}"
    );
}

/// A home with an offered skill, two started by name only (one per host's spelling) and one
/// whose frontmatter does not parse.
fn invocation_tree() -> Tree {
    let tree = Tree::new();
    tree.skill(
        Place::UserOpenhuman,
        "pdf-tools",
        "pdf-tools",
        "Extracts text from invoice PDFs.",
    );
    let root = tree.root(Place::UserOpenhuman);
    tree.write(
        &root.join("deploy/SKILL.md"),
        "---\nname: deploy\ndescription: Deploys invoice PDFs to production.\ndisable-model-invocation: true\n---\nBody of deploy.\n",
    );
    tree.skill(
        Place::UserOpenhuman,
        "fix-ci",
        "fix-ci",
        "Fixes the invoice PDF pipeline's failing checks.",
    );
    tree.write(
        &root.join("fix-ci/agents/openai.yaml"),
        "interface:\n  display_name: \"Fix CI\"\npolicy:\n  allow_implicit_invocation: false\n",
    );
    tree.write(
        &root.join("bad-yaml/SKILL.md"),
        "---\nname: bad-yaml\ndescription: [never closed\n---\nInvoice PDFs, and a body that must not pass for a description.\n",
    );
    tree
}

/// The names an agent is never offered.
const HIDDEN: [&str; 3] = ["deploy", "fix-ci", "bad-yaml"];

fn assert_offers_only_pdf_tools(what: &str, text: &str) {
    assert!(text.contains("pdf-tools"), "{what}: {text}");
    for name in HIDDEN {
        assert!(!text.contains(name), "{what} offers {name}: {text}");
    }
    assert!(!text.contains("must not pass"), "{what}: {text}");
}

#[test]
fn manual_and_broken_skills_are_offered_nowhere_and_manual_ones_read_by_name() {
    let tree = invocation_tree();

    // `list` marks the manual skills, and shows the broken one as an error, not a row.
    let human = tree.run(&["list"]);
    let rows: Vec<&str> = human.ok().lines().collect();
    assert_eq!(rows.len(), 3, "{}", human.stdout);
    for name in ["deploy", "fix-ci"] {
        let row = rows.iter().find(|row| row.starts_with(name)).unwrap();
        assert!(row.ends_with("(manual only)"), "{row}");
    }
    let pdf = rows
        .iter()
        .find(|row| row.starts_with("pdf-tools"))
        .unwrap();
    assert!(!pdf.contains("manual"), "{pdf}");
    assert!(!human.stdout.contains("bad-yaml"), "{}", human.stdout);
    let first = human.stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("error[yaml-error]") && first.contains("bad-yaml/SKILL.md"),
        "{}",
        human.stderr
    );
    assert!(!human.stderr.contains("warning"), "{}", human.stderr);
    let listing = tree.run(&["list", "--json"]).json();
    let invocation: BTreeMap<&str, &Value> = array(&listing, "skills")
        .iter()
        .map(|skill| (skill["name"].as_str().unwrap(), &skill["invocation"]))
        .collect();
    assert_eq!(invocation["deploy"], "manual");
    assert_eq!(invocation["fix-ci"], "manual");
    assert_eq!(invocation["pdf-tools"], &Value::Null);
    assert_eq!(invocation.len(), 3);

    // Nothing offered to a model holds them.
    for format in ["xml", "markdown", "json"] {
        let prompt = tree.run(&["prompt", "--format", format]);
        assert_offers_only_pdf_tools(&format!("prompt --format {format}"), prompt.ok());
    }
    let ranked = tree.run(&["prompt", "--query", "deploy invoice pdfs"]);
    assert_offers_only_pdf_tools("prompt --query", ranked.ok());
    let sync = tree.run(&["sync", "--json"]).json();
    assert_eq!(sync["skills"], 1, "{sync:#}");
    let agents_md = std::fs::read_to_string(tree.workspace.join("AGENTS.md")).unwrap();
    assert_offers_only_pdf_tools("AGENTS.md", &agents_md);
    let search = tree
        .run(&["--json", "search", "deploy", "invoice", "pdfs"])
        .json();
    let found: Vec<&str> = array(&search, "results")
        .iter()
        .map(|hit| hit["name"].as_str().unwrap())
        .collect();
    assert_eq!(found, ["pdf-tools"], "{search:#}");

    // By name, a manual skill is read (and shown) like any other; the broken one is not there.
    let read = tree.run(&["read", "deploy"]);
    assert!(read.ok().contains("Body of deploy."), "{read:?}");
    assert!(
        tree.run(&["read", "fix-ci"])
            .ok()
            .contains("Body of fix-ci.")
    );
    let show = tree.run(&["show", "deploy"]);
    assert!(show.ok().contains("manual only"), "{show:?}");
    assert_ne!(tree.run(&["read", "bad-yaml"]).code, Some(0));
}

#[test]
fn an_mcp_host_is_offered_neither_but_loads_a_manual_skill_by_name() {
    let tree = invocation_tree();
    crate::mcp::converse(&tree, &[], |client| async move {
        let instructions = client
            .peer_info()
            .unwrap()
            .instructions
            .clone()
            .unwrap_or_default();
        assert_offers_only_pdf_tools("the MCP instructions", &instructions);
        let prompts = client.list_prompts(None).await.unwrap().prompts;
        let names: Vec<&str> = prompts.iter().map(|prompt| prompt.name.as_str()).collect();
        assert_eq!(names, ["pdf-tools"]);
        let search = client
            .call_tool(
                CallToolRequestParams::new("search_skills")
                    .with_arguments(object(json!({ "query": "deploy invoice pdfs" }))),
            )
            .await
            .unwrap();
        let results = &search.structured_content.unwrap()["results"];
        let found: Vec<&str> = results
            .as_array()
            .unwrap()
            .iter()
            .map(|hit| hit["name"].as_str().unwrap())
            .collect();
        assert_eq!(found, ["pdf-tools"]);
        let loaded = client
            .call_tool(
                CallToolRequestParams::new("load_skill")
                    .with_arguments(object(json!({ "name": "deploy" }))),
            )
            .await
            .unwrap();
        assert_eq!(loaded.structured_content.unwrap()["name"], "deploy");
        client
    });
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments are an object, not {other}"),
    }
}
