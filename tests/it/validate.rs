//! `skills validate` through the binary: exit codes, human and JSON output (snapshots), the
//! hints, colour, and the examples the README points at.

use std::path::Path;
use std::process::Output;

use skills_tests::skills;

fn write_skill(root: &Path, dir: &str, file: &str, text: &str) {
    let dir = root.join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), text).unwrap();
}

/// A folder with one valid skill, one with problems, and one with a warning.
fn mixed_tree() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    write_skill(
        root.path(),
        "good-skill",
        "SKILL.md",
        "---\nname: good-skill\ndescription: Does good things.\n---\nBody\n",
    );
    write_skill(
        root.path(),
        "Broken",
        "SKILL.md",
        "---\nname: Broken_Skill\ndescription: ''\nmodel: opus\ncolor: red\n---\n",
    );
    write_skill(
        root.path(),
        "lower",
        "skill.md",
        "---\nname: lower\ndescription: Lowercase file name.\n---\n",
    );
    root
}

fn run(root: &Path, args: &[&str]) -> Output {
    skills().current_dir(root).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn human_output_names_each_file_and_problem() {
    let root = mixed_tree();
    let output = run(root.path(), &["validate", "--recursive", "."]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(text(&output.stdout), @r"
    FAIL  ./Broken
          error[unexpected-field] SKILL.md:4: unexpected fields in frontmatter: color, model; the agentskills profile allows only allowed-tools, compatibility, description, license, metadata, name (model is Claude Code's; validate with --profile claude-code to check a skill written for Claude Code)
          error[name-not-lowercase] SKILL.md:2: the name 'Broken_Skill' must be lowercase
          error[name-invalid-characters] SKILL.md:2: the name 'Broken_Skill' contains '_'; only letters, digits and '-' are allowed
          error[name-directory-mismatch] SKILL.md:2: the name 'Broken_Skill' differs from its directory 'Broken'
          error[description-empty] SKILL.md:3: the field 'description' is empty
      ok  ./good-skill
      ok  ./lower/skill.md  (1 warning)
          warning[noncanonical-filename]: the file is named 'skill.md'; the canonical name is 'SKILL.md'

    3 skills checked: 2 valid, 1 invalid (profile agentskills)
    ");
    assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
}

#[test]
fn json_output_has_the_documented_shape() {
    let root = mixed_tree();
    let output = run(root.path(), &["validate", "--json", "--recursive", "."]);
    assert_eq!(output.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["valid"], false);
    assert_eq!(value["reports"].as_array().unwrap().len(), 3);
    // The raw text, so the snapshot also pins the field order a reader sees.
    insta::assert_snapshot!(text(&output.stdout));
    assert!(output.stderr.is_empty());
}

#[test]
fn strict_fails_on_warnings() {
    let root = mixed_tree();
    let relaxed = run(root.path(), &["validate", "lower"]);
    assert_eq!(relaxed.status.code(), Some(0));
    let strict = run(root.path(), &["validate", "--strict", "lower"]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(text(&strict.stdout).contains("error[noncanonical-filename]"));
}

#[test]
fn quiet_prints_only_failures() {
    let root = mixed_tree();
    let output = run(root.path(), &["validate", "-q", "-r", "."]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = text(&output.stdout);
    assert!(stdout.starts_with("FAIL  ./Broken\n"), "{stdout}");
    assert!(
        !stdout.lines().any(|line| line.starts_with("  ok")),
        "{stdout}"
    );
    assert!(!stdout.contains("skills checked"), "{stdout}");
}

#[test]
fn unusable_paths_exit_2_with_a_hint_and_the_rest_are_still_checked() {
    let root = mixed_tree();
    let output = run(root.path(), &["validate", "good-skill", "missing", "."]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stdout), "  ok  good-skill\n");
    insta::assert_snapshot!(text(&output.stderr), @r"
    error: missing does not exist
    error: . holds no SKILL.md
    hint: pass a directory that holds SKILL.md, or validate every skill below it with 'skills validate --recursive .'
    ");

    let json = run(root.path(), &["validate", "--json", "missing"]);
    assert_eq!(json.status.code(), Some(2));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["valid"], false);
    assert_eq!(value["errors"][0]["kind"], "not_found");
    assert_eq!(value["errors"][0]["path"], "missing");
}

#[test]
fn usage_errors_exit_2() {
    let output = skills()
        .args(["validate", "--profile", "nope"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("invalid value 'nope'"));
}

#[test]
fn a_definition_file_path_and_dot_resolve_to_the_directory_name() {
    let root = mixed_tree();
    let file = run(root.path(), &["validate", "good-skill/SKILL.md"]);
    assert_eq!(file.status.code(), Some(0), "{}", text(&file.stdout));
    let dot = skills()
        .current_dir(root.path().join("good-skill"))
        .args(["validate", "."])
        .output()
        .unwrap();
    assert_eq!(dot.status.code(), Some(0), "{}", text(&dot.stdout));
}

#[test]
fn skillhub_json_reports_the_compliance_digest() {
    let root = tempfile::tempdir().unwrap();
    write_skill(
        root.path(),
        "audited",
        "SKILL.md",
        "---\nname: audited\ndescription: d\nx-astron-compliance:\n  - {standard: SOC2, version: 2017, controlId: CC6.1}\n---\n",
    );
    let output = run(
        root.path(),
        &["validate", "--json", "--profile", "skillhub", "audited"],
    );
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let compliance = &value["reports"][0]["compliance"];
    assert_eq!(
        compliance["entries"],
        serde_json::json!([{"standard": "SOC2", "version": "2017", "controlId": "CC6.1"}])
    );
    let digest = compliance["digest"].as_str().unwrap();
    assert!(
        digest.starts_with("sha256:") && digest.len() == 71,
        "{digest}"
    );
}

#[test]
fn colour_follows_the_flag() {
    let root = mixed_tree();
    let always = run(root.path(), &["validate", "--color", "always", "Broken"]);
    assert!(text(&always.stdout).contains("\u{1b}["));
    let never = run(root.path(), &["validate", "--color", "never", "Broken"]);
    assert!(!text(&never.stdout).contains('\u{1b}'));
    let piped = run(root.path(), &["validate", "Broken"]);
    assert!(!text(&piped.stdout).contains('\u{1b}'));
}

#[test]
fn the_shipped_examples_are_valid() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/skills");
    for profile in ["agentskills", "skillhub"] {
        let output = skills()
            .args(["validate", "--recursive", "--profile", profile])
            .arg(&examples)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    }
}

/// `validate --recursive` passes over nothing in silence: a skill nested in another is
/// validated with a `nested-skill` warning, a symlinked skill folder is validated through the
/// link, and a folder whose name is not UTF-8 is an error line of its own (status 2).
#[cfg(unix)]
#[test]
fn recursive_validation_reports_nested_linked_and_odd_folders() {
    use std::os::unix::ffi::OsStrExt;
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("tree");
    let skill = |dir: &Path, name: &str| {
        write_skill(
            dir,
            "",
            "SKILL.md",
            &format!("---\nname: {name}\ndescription: The {name} skill.\n---\nBody\n"),
        );
    };
    skill(&root.join("outer"), "outer");
    skill(&root.join("outer/inner"), "inner");
    let checkout = base.path().join("elsewhere/linked");
    skill(&checkout, "linked");
    std::os::unix::fs::symlink(&checkout, root.join("linked")).unwrap();
    let plain = run(&root, &["validate", "-r", "."]);
    assert_eq!(plain.status.code(), Some(0), "{plain:?}");
    let stdout = text(&plain.stdout);
    assert!(stdout.starts_with("  ok  ./linked\n  ok  ./outer\n  ok  ./outer/inner  (1 warning)\n      warning[nested-skill]: this skill lies inside the skill folder ./outer;"), "{stdout}");
    assert!(
        stdout.ends_with("3 skills checked: 3 valid, 0 invalid (profile agentskills)\n"),
        "{stdout}"
    );

    let odd = root.join(std::ffi::OsStr::from_bytes(b"odd-\xff"));
    skill(&odd, "odd");
    let output = run(&root, &["validate", "-r", "."]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert_eq!(text(&output.stdout), stdout);
    assert_eq!(
        text(&output.stderr),
        "error: ./odd-\u{fffd} was not validated: its name is not valid UTF-8, and discovery skips such folders (rename it)\n"
    );
    let json = run(&root, &["validate", "-r", "--json", "."]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["valid"], false);
    assert_eq!(value["reports"].as_array().unwrap().len(), 3);
    assert_eq!(
        value["reports"][2]["diagnostics"][0]["code"],
        "nested-skill"
    );
    assert_eq!(value["errors"][0]["kind"], "not_validated");
    assert_eq!(value["errors"][0]["path"], "./odd-\u{fffd}");
}
