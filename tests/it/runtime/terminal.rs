//! On a terminal (a pseudo-terminal from util-linux `script`): a script's output is
//! sanitised — escape sequences and controls removed, text and line breaks kept — and a run
//! that needs confirmation asks, running only on `y`.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::discovery::{Place, Tree};

use super::{SKILL, add_skill, lab, log_files};

/// Runs `skills ARGS` on `tree` with stdin, stdout and stderr on a pseudo-terminal, typing
/// `typed` into it; returns the exit status and what the terminal showed.
fn on_a_terminal(tree: &Tree, args: &[&str], typed: &str) -> (Option<i32>, String) {
    let mut line = format!(
        "'{}' --home '{}' --workspace '{}'",
        skills_tests::skills_binary().display(),
        tree.home.display(),
        tree.workspace.display()
    );
    for arg in args {
        assert!(!arg.contains('\''), "quote {arg} differently");
        line.push_str(&format!(" '{arg}'"));
    }
    let mut child = Command::new("script")
        .args(["--quiet", "--return", "--command", &line, "/dev/null"])
        .env_remove("SKILLS_HOME")
        .env("CLICOLOR", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("util-linux `script` gives the pseudo-terminal: {error}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(typed.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn a_terminal_gets_the_output_without_escape_sequences() {
    let (tree, _) = lab(
        &[(
            "scripts/colour.py",
            "import sys\nsys.stdout.write('\\x1b[31mred\\x1b[0m \\x1b]0;pwned\\x07title\\x08\\n')\nsys.stderr.write('\\x1b[2Jwarn\\n')\n",
        )],
        None,
    );
    let (status, shown) = on_a_terminal(&tree, &["run", SKILL, "scripts/colour.py"], "");
    assert_eq!(status, Some(0), "{shown:?}");
    assert!(shown.contains("red title\r\n"), "{shown:?}");
    assert!(shown.contains("warn\r\n"), "{shown:?}");
    for control in ['\u{1b}', '\u{7}', '\u{8}'] {
        assert!(
            !shown.contains(control),
            "{control:?} reached the terminal: {shown:?}"
        );
    }
    // The log keeps what the script printed.
    let log = std::fs::read_to_string(&log_files(&tree)[0]).unwrap();
    assert!(log.contains("\\u001b[31mred"), "{log}");
}

#[test]
fn on_a_terminal_a_run_that_needs_confirmation_asks() {
    let (tree, _) = lab(&[], None);
    add_skill(
        &tree,
        Place::ProjectOpenhuman,
        "local",
        &[("scripts/mark.sh", "echo ran > ran\necho ran\n")],
        None,
    );
    let args = ["--trust-workspace", "run", "local", "scripts/mark.sh"];
    let (status, shown) = on_a_terminal(&tree, &args, "n\n");
    assert_eq!(status, Some(1), "{shown:?}");
    assert!(
        shown.contains("Run 'local'?") && shown.contains("[y/N]"),
        "{shown:?}"
    );
    assert!(shown.contains("not confirmed"), "{shown:?}");
    assert!(!tree.workspace.join("ran").exists());
    assert!(log_files(&tree).is_empty());

    let (status, shown) = on_a_terminal(&tree, &args, "y\n");
    assert_eq!(status, Some(0), "{shown:?}");
    assert!(
        shown.contains("[y/N]") && shown.ends_with("ran\r\n"),
        "{shown:?}"
    );
    assert!(tree.workspace.join("ran").exists());
    assert_eq!(log_files(&tree).len(), 1);
}
