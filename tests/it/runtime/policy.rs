//! The process policy from inside real children (07 §The process policy): the environment is
//! rebuilt from the allowlist (a secret of the parent is absent unless the home configuration
//! passes it), every argument arrives as one literal argv element that no shell reads, the
//! working directory is the workspace, and the script's exit status is the command's.

use serde_json::Value;

use super::{SKILL, lab, listing};

/// Prints the environment, the working directory and the arguments as one JSON object.
const REPORT_PY: &str = "import json, os, sys\nprint(json.dumps({'env': dict(os.environ), 'cwd': os.getcwd(), 'args': sys.argv[1:]}))\n";
const REPORT_JS: &str = "console.log(JSON.stringify({env: process.env, cwd: process.cwd(), args: process.argv.slice(2)}));\n";
/// `sh` has no JSON: each argument, then the environment, NUL-separated.
const REPORT_SH: &str = "printf '%s\\0' \"$@\"\nprintf 'cwd=%s\\0' \"$PWD\"\nenv\n";

fn report(run: &crate::discovery::Run) -> Value {
    serde_json::from_str(run.ok().trim()).unwrap_or_else(|error| panic!("{error}: {run:?}"))
}

#[test]
fn a_secret_in_the_parent_environment_is_absent_in_the_child() {
    let (tree, dir) = lab(
        &[
            ("scripts/report.py", REPORT_PY),
            ("scripts/report.js", REPORT_JS),
        ],
        None,
    );
    let secrets = [
        ("MY_API_SECRET", "hunter2"),
        ("GITHUB_TOKEN", "ghp_secret"),
        ("AWS_SECRET_ACCESS_KEY", "aws-secret"),
        ("LD_PRELOAD", "/nonexistent/preload.so"),
    ];
    let run = tree.run_with(&["run", SKILL, "scripts/report.py"], &secrets);
    let seen = report(&run);
    let env = seen["env"].as_object().unwrap();
    for (name, value) in secrets {
        assert!(!env.contains_key(name), "{name} reached the child: {env:?}");
        assert!(
            !run.stdout.contains(value),
            "the value of {name} reached the child: {env:?}"
        );
    }
    // The allowlist and the run's own variables are there.
    assert!(env.contains_key("PATH"), "{env:?}");
    assert_eq!(env["SKILL_NAME"], SKILL);
    assert_eq!(env["SKILL_DIR"], dir.display().to_string());
    let run_id = env["SKILL_RUN_ID"].as_str().unwrap();
    assert_eq!(super::log_files(&tree).len(), 1);
    assert!(super::log_files(&tree)[0].ends_with(format!("{run_id}.jsonl")));
    assert_eq!(seen["cwd"], tree.workspace.display().to_string());
    // Exactly the allowlist and the run's variables, seen by node (a binary; `python3` here
    // may be a launcher script such as a pyenv shim, which sets variables of its own).
    let node = report(&tree.run_with(&["run", SKILL, "scripts/report.js"], &secrets));
    let outside_allowlist: Vec<&String> = node["env"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|name| {
            !name.starts_with("SKILL_")
                && ![
                    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL",
                    "LC_CTYPE", "TZ", "TMPDIR",
                ]
                .contains(&name.as_str())
        })
        .collect();
    assert!(
        outside_allowlist.is_empty(),
        "variables outside the allowlist: {outside_allowlist:?}"
    );

    // The one way in: the home configuration names the variable.
    tree.user_config("[runtime]\npass_env = [\"GITHUB_TOKEN\"]\n");
    let passed = report(&tree.run_with(&["run", SKILL, "scripts/report.py"], &secrets));
    assert_eq!(passed["env"]["GITHUB_TOKEN"], "ghp_secret");
    assert!(passed["env"].get("MY_API_SECRET").is_none());
}

/// Arguments a shell would act on, each of which would leave a file behind if one did.
const HOSTILE: [&str; 9] = [
    "; touch semicolon",
    "$(touch dollar)",
    "`touch backtick`",
    "&& touch and",
    "| touch pipe",
    "*",
    "?",
    "a b  c",
    "'\"\\\n",
];

/// Files a shell reading [`HOSTILE`] would create.
const WOULD_CREATE: [&str; 5] = ["semicolon", "dollar", "backtick", "and", "pipe"];

#[test]
fn hostile_arguments_arrive_literally_and_create_nothing() {
    let (tree, _) = lab(
        &[
            ("scripts/report.py", REPORT_PY),
            ("scripts/report.js", REPORT_JS),
            ("scripts/report.sh", REPORT_SH),
        ],
        None,
    );
    // Something for a glob to match, were one expanded.
    tree.write(&tree.workspace.join("existing.txt"), "x");
    // The home's caches and run logs are the runtime's own; a shell would write elsewhere.
    let ours = |path: &String| {
        !path.starts_with("home/.openhuman/runs") && !path.starts_with("home/.openhuman/cache")
    };
    let before: Vec<String> = listing(&tree.base).into_iter().filter(ours).collect();
    let mut args = vec!["run", SKILL, "", "--"];
    args.extend(HOSTILE);
    for script in ["scripts/report.py", "scripts/report.js"] {
        args[2] = script;
        let seen = report(&tree.run(&args));
        assert_eq!(seen["args"], serde_json::json!(HOSTILE), "{script}");
    }
    args[2] = "scripts/report.sh";
    let run = tree.run(&args);
    let fields: Vec<&str> = run.ok().split('\0').collect();
    assert_eq!(fields[..HOSTILE.len()], HOSTILE, "{run:?}");
    assert_eq!(
        fields[HOSTILE.len()],
        format!("cwd={}", tree.workspace.display())
    );
    let after: Vec<String> = listing(&tree.base).into_iter().filter(ours).collect();
    assert_eq!(after, before, "a run created files");
    for name in WOULD_CREATE {
        assert!(!tree.workspace.join(name).exists(), "{name}");
        assert!(!tree.base.join(name).exists(), "{name}");
    }
}

#[test]
fn the_exit_status_is_the_scripts_own() {
    let (tree, _) = lab(
        &[
            ("scripts/exit.py", "import sys\nprint('py')\nsys.exit(3)\n"),
            ("scripts/exit.js", "console.log('js');\nprocess.exit(42);\n"),
            ("scripts/exit.sh", "echo sh\nexit 7\n"),
            ("scripts/ok.sh", "echo fine\n"),
            ("scripts/arg.sh", "exit \"$1\"\n"),
        ],
        None,
    );
    for (script, status, printed) in [
        ("scripts/exit.py", 3, "py\n"),
        ("scripts/exit.js", 42, "js\n"),
        ("scripts/exit.sh", 7, "sh\n"),
        ("scripts/ok.sh", 0, "fine\n"),
    ] {
        let run = tree.run(&["run", SKILL, script]);
        assert_eq!(run.code, Some(status), "{script}: {run:?}");
        assert_eq!(
            run.stdout, printed,
            "{script}: the output is streamed as printed"
        );

        let json = tree.run(&["--json", "run", SKILL, script]);
        assert_eq!(json.code, Some(status), "{script}: {json:?}");
        let outcome: Value = serde_json::from_str(&json.stdout).unwrap();
        assert_eq!(outcome["exit_code"], status, "{script}");
        assert_eq!(outcome["stdout"], printed, "{script}");
        assert_eq!(
            outcome["status"],
            if status == 0 { "succeeded" } else { "failed" }
        );
    }
    for status in ["0", "1", "2", "125", "255"] {
        let run = tree.run(&["run", SKILL, "scripts/arg.sh", "--", status]);
        assert_eq!(run.code, Some(status.parse().unwrap()), "{run:?}");
    }
}

#[test]
fn the_entry_runs_when_no_script_is_named() {
    let (tree, _) = lab(
        &[(
            "scripts/main.py",
            "import sys\nprint('entry', sys.argv[1:])\n",
        )],
        Some("entry = \"scripts/main.py\"\n"),
    );
    let run = tree.run(&["run", SKILL, "--", "one"]);
    assert_eq!(run.ok(), "entry ['one']\n");
}
