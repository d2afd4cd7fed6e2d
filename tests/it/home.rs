//! A home the user names (`--home`, or `SKILLS_HOME`) must exist (issue 30): a mistyped one
//! used to list "no skills found" and exit 0, and would have had `install` build a new home
//! where nobody looks. Every command that reads a home refuses it as a usage error (status 2)
//! naming the path, before anything is read, fetched or written; the table below is checked
//! against the commands `skills --help` lists, so a new command cannot miss the check.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::discovery::{Run, Tree};

/// Every command that reads a home, with the arguments it needs to get past its own parser.
/// No argument leads off this machine: the one source is a loopback URL on the discard port.
const WITH_HOME: [(&str, &[&str]); 30] = [
    ("list", &[]),
    ("show", &["notes"]),
    ("read", &["notes"]),
    ("explain", &["notes"]),
    ("prompt", &[]),
    ("sync", &[]),
    ("trust", &[]),
    ("resource", &["notes", "SKILL.md"]),
    ("new", &["notes", "-d", "Takes notes."]),
    ("uninstall", &["notes"]),
    ("install", &["http://127.0.0.1:9/SKILL.md"]),
    ("check", &[]),
    ("update", &[]),
    ("registry", &["browse"]),
    ("run", &["notes"]),
    ("runs", &[]),
    ("logs", &["01a23e97-b02c-7239-94a4-c79b1637b5a4"]),
    ("cancel", &["01a23e97-b02c-7239-94a4-c79b1637b5a4"]),
    ("runtimes", &[]),
    ("task", &["notes"]),
    ("tools", &[]),
    ("search", &["meeting", "notes"]),
    ("watch", &[]),
    ("test", &["notes"]),
    ("setup", &["notes"]),
    ("audit", &[]),
    ("serve", &[]),
    ("mcp", &[]),
    // Listed twice on purpose: `--json` too must say it as a usage error.
    ("list", &["--json"]),
    ("registry", &["search", "notes"]),
];

/// The commands that read no home: `validate` and `publish` work on the paths they are given
/// (docs/cli.md: they ignore `--home`), `schemas` and `completions` print what is built in.
const WITHOUT_HOME: [&str; 5] = ["validate", "publish", "schemas", "completions", "help"];

/// `skills --home HOME ARGS` (or `SKILLS_HOME=HOME` when `from_env`), in the tree's workspace,
/// with nothing on stdin; killed and failed after 20 seconds (`watch`, `serve` and `mcp` would
/// otherwise wait for input or events).
fn run_in_home(tree: &Tree, home: &Path, args: &[&str], from_env: bool) -> Run {
    let mut command = skills_tests::skills();
    command
        .current_dir(&tree.base)
        .arg("--workspace")
        .arg(&tree.workspace);
    if from_env {
        command.env("SKILLS_HOME", home);
    } else {
        command.arg("--home").arg(home);
    }
    let child = command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    crate::runtime::wait_within(child, Duration::from_secs(20))
}

#[test]
fn the_table_names_every_command_the_binary_has() {
    let help = Tree::new().run(&["--help"]);
    assert_eq!(help.code, Some(0), "{help:?}");
    let listed: Vec<&str> = help
        .stdout
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(listed.contains(&"list"), "{help:?}");
    for command in listed {
        assert!(
            WITH_HOME.iter().any(|(name, _)| *name == command) || WITHOUT_HOME.contains(&command),
            "`{command}` is in neither table of tests/it/home.rs: add it to WITH_HOME (and make \
             sure it refuses a missing home) or, if it reads no home, to WITHOUT_HOME"
        );
    }
}

#[test]
fn every_command_that_reads_a_home_refuses_one_that_does_not_exist() {
    let tree = Tree::new();
    let missing = tree.base.join("no-such-home");
    for (command, rest) in WITH_HOME {
        let mut args = vec![command];
        args.extend_from_slice(rest);
        let run = run_in_home(&tree, &missing, &args, false);
        assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
        assert!(
            run.stderr.contains(&missing.display().to_string())
                && run.stderr.contains("does not exist"),
            "{args:?}: the message names the home: {run:?}"
        );
        if args.contains(&"--json") {
            let error: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
            assert_eq!(error["error"]["kind"], "usage", "{run:?}");
        } else {
            assert!(run.stdout.is_empty(), "{args:?}: {run:?}");
        }
        assert!(!missing.exists(), "{args:?}: nothing made the home");
    }
}

#[test]
fn a_home_from_skills_home_or_that_is_a_file_is_refused_too() {
    let tree = Tree::new();
    let missing = tree.base.join("typo-home");
    let run = run_in_home(&tree, &missing, &["list"], true);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains(&missing.display().to_string()) && run.stderr.contains("SKILLS_HOME"),
        "{run:?}"
    );
    assert!(!missing.exists());

    let file = tree.base.join("home-file");
    std::fs::write(&file, "not a folder\n").unwrap();
    let run = run_in_home(
        &tree,
        &file,
        &["install", "http://127.0.0.1:9/SKILL.md"],
        false,
    );
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains(&file.display().to_string()) && run.stderr.contains("not a directory"),
        "{run:?}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a folder\n");

    // The same commands in an existing home: the check refuses nothing else.
    let listed = run_in_home(&tree, &tree.home, &["list"], true);
    assert_eq!(listed.code, Some(0), "{listed:?}");
}

/// Commands that read no home still run with one that does not exist: `validate` works on
/// the paths it is given, as documented.
#[test]
fn validate_ignores_the_home() {
    let tree = Tree::new();
    let skill = tree.base.join("notes");
    tree.write(
        &skill.join("SKILL.md"),
        "---\nname: notes\ndescription: Takes meeting notes.\n---\n# Notes\n",
    );
    let run = run_in_home(
        &tree,
        &tree.base.join("no-such-home"),
        &["validate", skill.to_str().unwrap()],
        false,
    );
    assert_eq!(run.code, Some(0), "{run:?}");
}
