//! Self-tests and authoring (07 §Self-tests, §Authoring): a skill scaffolded with
//! `skills new NAME --script LANG` passes `skills test NAME` at once in a fresh home, in each
//! language; a failing test exits 1 and says why; `--all` runs every skill's tests; and a
//! project skill's tests need the same confirmation as its runs.

use serde_json::Value;

use crate::discovery::Place;

use super::{add_skill, error_kind, lab, log_files};

#[test]
fn a_scaffolded_script_skill_passes_its_test_at_once_in_every_language() {
    let (tree, _) = lab(&[], None);
    for language in ["python", "node", "sh"] {
        let name = format!("demo-{language}");
        let created = tree.run(&["new", &name, "--script", language]);
        assert_eq!(created.code, Some(0), "{created:?}");
        let tested = tree.run(&["test", &name]);
        assert_eq!(tested.code, Some(0), "{language}: {tested:?}");
        assert!(
            tested
                .stdout
                .contains(&format!("PASS {name}/prints-a-json-result")),
            "{tested:?}"
        );
        assert!(tested.stdout.contains("1 passed, 0 failed"), "{tested:?}");
        // The entry prints one JSON object an agent can read.
        let ran = tree.run(&["run", &name, "--input", "name=Ada"]);
        let printed: Value = serde_json::from_str(ran.ok().trim()).unwrap();
        assert_eq!(printed["ok"], true);
        assert_eq!(printed["greeting"], "Hello, Ada!");
    }
    let listed = tree.run(&["--json", "list"]);
    assert_eq!(listed.code, Some(0), "{listed:?}");
    // The scaffold validates cleanly: no sidecar or tool diagnostics.
    let skill_dir = tree.home.join(".agents/skills/demo-python");
    let validated = tree.run(&["validate", skill_dir.to_str().unwrap()]);
    assert_eq!(validated.code, Some(0), "{validated:?}");
}

const FAILING: &str = r#"
[[tests]]
name = "says-hello"
script = "scripts/hello.sh"
expect_stdout_contains = "hello"

[[tests]]
name = "expects-the-wrong-thing"
script = "scripts/hello.sh"
expect_stdout_contains = "goodbye"

[[tests]]
name = "expects-failure"
script = "scripts/fail.sh"
expect_exit = 3
"#;

#[test]
fn a_failing_test_exits_1_and_says_why() {
    let (tree, _) = lab(
        &[
            ("scripts/hello.sh", "echo hello\necho oops >&2\n"),
            ("scripts/fail.sh", "exit 3\n"),
        ],
        Some(FAILING),
    );
    let tested = tree.run(&["test", super::SKILL]);
    assert_eq!(tested.code, Some(1), "{tested:?}");
    assert!(
        tested.stdout.contains("PASS tools/says-hello"),
        "{tested:?}"
    );
    assert!(
        tested
            .stdout
            .contains("FAIL tools/expects-the-wrong-thing: stdout does not contain \"goodbye\""),
        "{tested:?}"
    );
    assert!(tested.stdout.contains("stderr: \"oops\\n\""), "{tested:?}");
    assert!(
        tested.stdout.contains("PASS tools/expects-failure"),
        "{tested:?}"
    );
    assert!(tested.stdout.contains("2 passed, 1 failed"), "{tested:?}");

    let json = tree.run(&["--json", "test", super::SKILL]);
    assert_eq!(json.code, Some(1), "{json:?}");
    let outcomes: Value = serde_json::from_str(&json.stdout).unwrap();
    let passed: Vec<bool> = outcomes
        .as_array()
        .unwrap()
        .iter()
        .map(|outcome| outcome["passed"].as_bool().unwrap())
        .collect();
    assert_eq!(passed, [true, false, true]);
    assert_eq!(outcomes[1]["status"], "succeeded");
    assert!(outcomes[1]["run_id"].is_string());

    // --all finds it too, beside a skill without tests (which is skipped, not failed).
    add_skill(&tree, Place::UserOpenhuman, "plain", &[], None);
    let all = tree.run(&["--json", "test", "--all"]);
    assert_eq!(all.code, Some(1), "{all:?}");
    let outcomes: Value = serde_json::from_str(&all.stdout).unwrap();
    assert_eq!(outcomes.as_array().unwrap().len(), 3);

    // A skill without tests, asked for by name, is told how to declare one.
    let none = tree.run(&["--json", "test", "plain"]);
    assert_eq!(none.code, Some(1), "{none:?}");
    assert_eq!(error_kind(&none), "invalid_input");
    assert!(none.stderr.contains("[[tests]]"), "{none:?}");
}

#[test]
fn a_project_skills_tests_need_yes_off_a_terminal() {
    let (tree, _) = lab(&[], None);
    add_skill(
        &tree,
        Place::ProjectOpenhuman,
        "local",
        &[("scripts/mark.sh", "echo ran > ran\necho ran\n")],
        Some(
            "[[tests]]\nname = \"marks\"\nscript = \"scripts/mark.sh\"\nexpect_stdout_contains = \"ran\"\n",
        ),
    );
    assert_eq!(tree.run(&["trust"]).code, Some(0));
    let unconfirmed = tree.run(&["--json", "test", "local"]);
    assert_eq!(unconfirmed.code, Some(1), "{unconfirmed:?}");
    assert_eq!(error_kind(&unconfirmed), "needs_confirmation");
    assert!(unconfirmed.stderr.contains("--yes"), "{unconfirmed:?}");
    assert!(!tree.workspace.join("ran").exists());
    assert!(log_files(&tree).is_empty(), "nothing ran");

    let confirmed = tree.run(&["test", "local", "--yes"]);
    assert_eq!(confirmed.code, Some(0), "{confirmed:?}");
    assert!(tree.workspace.join("ran").exists());
    assert_eq!(log_files(&tree).len(), 1);
}
