//! Inputs on the command line (07 §Inputs): `--input NAME=VALUE` read by the declared type,
//! every problem (missing, unknown, mistyped) listed in one refusal before anything runs, and
//! the values reaching the script as `SKILL_INPUT_<NAME>` and `SKILL_INPUTS`.

use serde_json::{Value, json};

use super::{SKILL, error_kind, lab, log_files};

const DECLARED: &str = r#"
[[inputs]]
name = "count"
description = "How many."
type = "number"
required = true

[[inputs]]
name = "title"
description = "What to call it."
required = true

[[inputs]]
name = "dry-run"
description = "Only say what would happen."
type = "boolean"

[[inputs]]
name = "options"
description = "More settings."
type = "json"
"#;

const SHOW_INPUTS: &str = "import json, os\nopen('ran', 'w').write('ran')\nprint(json.dumps({name: value for name, value in os.environ.items() if name.startswith('SKILL_INPUT')}))\n";

#[test]
fn missing_unknown_and_mistyped_inputs_are_refused_together() {
    let (tree, _) = lab(&[("scripts/show.py", SHOW_INPUTS)], Some(DECLARED));
    let refused = tree.run(&[
        "--json",
        "run",
        SKILL,
        "scripts/show.py",
        "--input",
        "count=four",
        "--input",
        "dry-run=maybe",
        "--input",
        "colour=blue",
    ]);
    assert_eq!(refused.code, Some(1), "{refused:?}");
    assert_eq!(error_kind(&refused), "invalid_input");
    let message = refused.stderr.lines().next().unwrap();
    for named in ["title", "colour", "count", "number", "dry-run", "boolean"] {
        assert!(message.contains(named), "{named} is not named: {message}");
    }
    assert!(!tree.workspace.join("ran").exists());
    assert!(log_files(&tree).is_empty());

    // JSON text that is not JSON is refused by the command line itself.
    let bad_json = tree.run(&[
        "run",
        SKILL,
        "scripts/show.py",
        "--input",
        "count=1",
        "--input",
        "title=t",
        "--input",
        "options={oops",
    ]);
    assert_eq!(bad_json.code, Some(1), "{bad_json:?}");
    assert!(bad_json.stderr.contains("options"), "{bad_json:?}");
    // So is text that is not NAME=VALUE.
    let no_value = tree.run(&["run", SKILL, "scripts/show.py", "--input", "count"]);
    assert_eq!(no_value.code, Some(1), "{no_value:?}");
    assert!(no_value.stderr.contains("NAME=VALUE"), "{no_value:?}");
    assert!(!tree.workspace.join("ran").exists());
    assert!(log_files(&tree).is_empty());
}

#[test]
fn typed_inputs_reach_the_script_as_environment_variables() {
    let (tree, _) = lab(&[("scripts/show.py", SHOW_INPUTS)], Some(DECLARED));
    let run = tree.run(&[
        "run",
        SKILL,
        "scripts/show.py",
        "--input",
        "count=4",
        "--input",
        "title=$(touch pwned) \"quoted\"",
        "--input",
        "dry-run=true",
        "--input",
        "options={\"depth\": [1, 2]}",
    ]);
    let env: Value = serde_json::from_str(run.ok().trim()).unwrap();
    assert_eq!(env["SKILL_INPUT_COUNT"], "4");
    assert_eq!(env["SKILL_INPUT_TITLE"], "$(touch pwned) \"quoted\"");
    assert_eq!(env["SKILL_INPUT_DRY_RUN"], "true");
    assert_eq!(env["SKILL_INPUT_OPTIONS"], "{\"depth\":[1,2]}");
    let all: Value = serde_json::from_str(env["SKILL_INPUTS"].as_str().unwrap()).unwrap();
    assert_eq!(all["count"], json!(4));
    assert_eq!(all["dry-run"], json!(true));
    assert_eq!(all["options"], json!({"depth": [1, 2]}));
    assert_eq!(all["title"], "$(touch pwned) \"quoted\"");
    assert!(!tree.workspace.join("pwned").exists());
    // The log names the inputs given, never their values (what the script printed is its
    // output, and is logged as such).
    let records = super::records(&log_files(&tree)[0]);
    let start = &records[0];
    assert_eq!(start["record"], "start");
    assert_eq!(
        start["input_names"],
        json!(["count", "title", "dry-run", "options"])
    );
    let logged: String = records
        .iter()
        .filter(|record| record["record"] != "output")
        .map(Value::to_string)
        .collect();
    assert!(
        !logged.contains("touch pwned") && !logged.contains("depth"),
        "an input value reached the log: {logged}"
    );
}

#[test]
fn task_prints_the_prompt_with_the_inputs_block() {
    let (tree, _) = lab(
        &[],
        Some(&format!(
            "{DECLARED}\n[agent]\nsystem_prompt = \"Be brief.\"\nmax_iterations = 3\n"
        )),
    );
    let task = tree
        .run(&[
            "--json",
            "task",
            SKILL,
            "--input",
            "count=2",
            "--input",
            "title=Report",
        ])
        .json();
    assert_eq!(task["skill"], SKILL);
    let prompt = task["prompt"].as_str().unwrap();
    assert!(prompt.contains("Body of tools."), "{prompt}");
    assert!(
        prompt.contains("Report") && prompt.contains("How many."),
        "{prompt}"
    );
    assert_eq!(task["agent"]["system_prompt"], "Be brief.");
    let human = tree.run(&[
        "task",
        SKILL,
        "--input",
        "count=2",
        "--input",
        "title=Report",
    ]);
    let text = human.ok();
    assert!(text.starts_with(prompt), "{text}");
    assert!(
        text.contains("[agent]\n") && text.contains("system_prompt = \"Be brief.\""),
        "{text}"
    );
    let missing = tree.run(&["--json", "task", SKILL]);
    assert_ne!(missing.code, Some(0));
    assert_eq!(error_kind(&missing), "invalid_input");
    assert!(
        missing.stderr.contains("count") && missing.stderr.contains("title"),
        "{missing:?}"
    );
}

/// Inputs as large as the bounds allow still start the script: every value and the
/// `SKILL_INPUTS` object must each fit in one environment string (Linux refuses one over
/// 128 KiB with E2BIG), so the bound on the object is what is checked, escapes included.
#[test]
fn inputs_at_the_bounds_start_the_script_and_over_them_are_refused() {
    const WIDE: &str =
        "[[inputs]]\nname = \"a\"\n[[inputs]]\nname = \"b\"\n[[inputs]]\nname = \"c\"\n";
    const SIZES: &str =
        "import os\nprint(len(os.environ['SKILL_INPUT_A']), len(os.environ['SKILL_INPUTS']))\n";
    let (tree, _) = lab(&[("scripts/sizes.py", SIZES)], Some(WIDE));
    let a = format!("a={}", "x".repeat(60 * 1024));
    let b = format!("b={}", "y".repeat(58 * 1024));
    let c = format!("c={}", "z".repeat(4 * 1024));
    let run = |values: &[&String]| {
        let mut args = vec!["--json", "run", SKILL, "scripts/sizes.py"];
        for value in values {
            args.extend(["--input", value.as_str()]);
        }
        tree.run(&args)
    };
    let ran = run(&[&a, &b]);
    let outcome: Value = serde_json::from_str(&ran.stdout).unwrap();
    let printed = outcome["stdout"].as_str().unwrap();
    let mut sizes = printed.split_whitespace();
    assert_eq!(sizes.next(), Some("61440"), "{printed}");
    assert!(sizes.next().unwrap().parse::<usize>().unwrap() > 118 * 1024);

    let refused = run(&[&a, &b, &c]);
    assert_eq!(error_kind(&refused), "invalid_input", "{refused:?}");
    assert!(refused.stderr.contains("SKILL_INPUTS"), "{refused:?}");
    assert_eq!(log_files(&tree).len(), 1, "only the first run was logged");
}
