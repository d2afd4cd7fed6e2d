//! A sandbox refusal is named (issue 30 §11), through the built binary with real `python3`
//! and `sh` children: a write outside the folders a run may write and a connection under
//! `network = "deny"` fail as the kernel makes them fail, and the run's outcome says which
//! rule refused what and which home setting allows it. `[runtime] writable` in the home then
//! grants a folder (the write lands, a folder beside it stays refused, its metadata can be
//! changed), a workspace's list may only drop folders, and a failure the sandbox did not
//! cause gets no hint. Every command that uses `[runtime]` reports an invalid value as `list`
//! does.
//!
//! On a kernel without the Landlock ABI the defaults need, runs are refused
//! (`sandbox_unavailable`, `sandbox.rs` asserts that); these tests then assert the refusal.

use std::net::TcpListener;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::sandbox::kernel_abi;
use super::{SKILL, error_kind, lab};
use crate::discovery::{Run, Tree};

const NET_ABI: u8 = 4;

/// Writes `written` to the path in argv[1], letting the error end the script (as most
/// scripts do): Python prints the path the kernel refused.
const WRITE_PY: &str = "import sys\nwith open(sys.argv[1], 'w') as file:\n    file.write('written')\nprint('wrote', sys.argv[1])\n";
/// The same in `sh`, then `chmod` of the file it wrote.
const WRITE_SH: &str = "echo written > \"$1\" && chmod 600 \"$1\" && echo wrote \"$1\"\n";
/// Prints a permission error naming a path of the workspace, and fails: a failure that is
/// not the sandbox's.
const FAKE_PY: &str = "import os, sys\nprint(\"PermissionError: [Errno 13] Permission denied: '\" + os.path.join(os.getcwd(), 'locked.txt') + \"'\", file=sys.stderr)\nsys.exit(1)\n";
/// Connects to 127.0.0.1 at the port in argv[1].
const CONNECT_PY: &str = "import socket, sys\nsocket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)\nprint('connected')\n";

fn named_lab() -> Tree {
    let (tree, _) = lab(
        &[
            ("scripts/write.py", WRITE_PY),
            ("scripts/write.sh", WRITE_SH),
            ("scripts/fake.py", FAKE_PY),
            ("scripts/connect.py", CONNECT_PY),
        ],
        None,
    );
    for folder in ["out", "out2", "elsewhere"] {
        std::fs::create_dir_all(tree.base.join(folder)).unwrap();
    }
    tree
}

/// `--json run SKILL SCRIPT -- ARGS`.
fn run(tree: &Tree, script: &str, args: &[&str]) -> Run {
    let mut line = vec!["--json", "run", SKILL, script, "--"];
    line.extend(args);
    tree.run(&line)
}

/// The JSON document a command printed on stdout, whatever its status.
fn document(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|error| panic!("{error}: {run:?}"))
}

/// The hints of a run's JSON outcome.
fn hints(run: &Run) -> Vec<Value> {
    document(run)["hints"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The path as the sandbox's rules see it (the test's temporary folder may sit below a link).
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap()
}

/// On a kernel without what the defaults need, the run is refused before it starts.
fn refused_here(run: &Run) -> bool {
    if kernel_abi() >= NET_ABI {
        return false;
    }
    assert_eq!(error_kind(run), "sandbox_unavailable", "{run:?}");
    true
}

#[test]
fn a_refused_write_names_the_rule_and_the_setting_that_allows_it() {
    let tree = named_lab();
    let out = real(&tree.base.join("out"));
    let target = out.join("report.txt");
    let home_file = tree.home.join(".openhuman/skills.toml");
    for script in ["scripts/write.py", "scripts/write.sh"] {
        let refused = run(&tree, script, &[&target.display().to_string()]);
        if refused_here(&refused) {
            return;
        }
        // Python exits 1, `sh` 2 for a redirection it could not make.
        assert!(matches!(refused.code, Some(1 | 2)), "{script}: {refused:?}");
        assert!(!target.exists(), "{script} wrote outside the workspace");
        let hints = hints(&refused);
        assert_eq!(hints.len(), 1, "{script}: {hints:?}");
        let hint = &hints[0];
        assert_eq!(hint["kind"], "sandbox_write", "{hint}");
        assert_eq!(hint["subject"], target.display().to_string(), "{hint}");
        assert_eq!(
            hint["remedy"],
            format!("[runtime] writable = [\"{}\"]", out.display()),
            "{hint}"
        );
        let message = hint["message"].as_str().unwrap();
        assert!(
            message.contains("sandbox = \"workspace-write\"")
                && message.contains("read-only")
                && message.contains(&home_file.display().to_string()),
            "{message}"
        );
    }
    // The human form says it under the script's own error.
    let shown = tree.run(&[
        "run",
        SKILL,
        "scripts/write.py",
        "--",
        &target.display().to_string(),
    ]);
    assert!(shown.stderr.contains("Read-only file system"), "{shown:?}");
    assert!(
        shown
            .stderr
            .contains("hint: the sandbox refused to let the script write"),
        "{shown:?}"
    );

    // The setting it names grants the folder, and nothing beside it.
    tree.user_config(&format!("[runtime]\nwritable = [\"{}\"]\n", out.display()));
    let wrote = run(&tree, "scripts/write.py", &[&target.display().to_string()]);
    assert_eq!(wrote.code, Some(0), "{wrote:?}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "written");
    let by_sh = out.join("by-sh.txt");
    let wrote = run(&tree, "scripts/write.sh", &[&by_sh.display().to_string()]);
    assert_eq!(wrote.code, Some(0), "{wrote:?}");
    // The metadata rule (the bind mount) grants the folder too: `chmod` worked.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&by_sh).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let beside = real(&tree.base.join("elsewhere")).join("x.txt");
    let still = run(&tree, "scripts/write.py", &[&beside.display().to_string()]);
    assert_eq!(still.code, Some(1), "{still:?}");
    assert!(!beside.exists());
    assert_eq!(hints(&still)[0]["subject"], beside.display().to_string());
    // `~` is the home.
    let in_home = tree.home.join("notes");
    std::fs::create_dir_all(&in_home).unwrap();
    tree.user_config("[runtime]\nwritable = [\"~/notes\"]\n");
    let note = real(&in_home).join("n.txt");
    let wrote = run(&tree, "scripts/write.py", &[&note.display().to_string()]);
    assert_eq!(wrote.code, Some(0), "{wrote:?}");
    // A folder that is not there refuses the run, naming the setting, rather than grant
    // nothing quietly.
    tree.user_config("[runtime]\nwritable = [\"~/missing\"]\n");
    let missing = run(&tree, "scripts/write.py", &[&note.display().to_string()]);
    assert_eq!(error_kind(&missing), "config_invalid", "{missing:?}");
    assert!(
        missing.stderr.contains("`[runtime] writable` names"),
        "{missing:?}"
    );
}

#[test]
fn a_workspace_may_drop_writable_folders_but_never_add_one() {
    let tree = named_lab();
    let [out, out2, elsewhere] =
        ["out", "out2", "elsewhere"].map(|folder| real(&tree.base.join(folder)));
    tree.user_config(&format!(
        "[runtime]\nwritable = [\"{}\", \"{}\"]\n",
        out.display(),
        out2.display()
    ));
    tree.write(
        &tree.workspace.join(".openhuman/skills.toml"),
        format!(
            "[runtime]\nwritable = [\"{}\", \"{}\"]\n",
            out.display(),
            elsewhere.display()
        ),
    );
    tree.trust();
    let first = run(
        &tree,
        "scripts/write.py",
        &[&out.join("a").display().to_string()],
    );
    if refused_here(&first) {
        return;
    }
    assert_eq!(first.code, Some(0), "{first:?}");
    // Dropped by the workspace, and never added by it.
    for folder in [&out2, &elsewhere] {
        let target = folder.join("a");
        let refused = run(&tree, "scripts/write.py", &[&target.display().to_string()]);
        assert_eq!(refused.code, Some(1), "{refused:?}");
        assert!(!target.exists());
        assert_eq!(hints(&refused)[0]["kind"], "sandbox_write");
    }
    // And the command says what it ignored, as `list` does.
    assert!(
        first
            .stderr
            .contains("[runtime] writable in the workspace's")
            && first.stderr.contains("is ignored"),
        "{first:?}"
    );
}

#[test]
fn a_refused_connection_names_the_network_rule() {
    let tree = named_lab();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let refused = run(&tree, "scripts/connect.py", &[&port]);
    if refused_here(&refused) {
        return;
    }
    assert_eq!(refused.code, Some(1), "{refused:?}");
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the listener saw a connection");
    let hints = hints(&refused);
    assert_eq!(hints.len(), 1, "{hints:?}");
    assert_eq!(hints[0]["kind"], "sandbox_network");
    assert_eq!(hints[0]["remedy"], "[runtime] network = \"allow\"");
    assert!(
        hints[0]["message"]
            .as_str()
            .unwrap()
            .contains("Permission denied"),
        "{hints:?}"
    );
    // Allowed, the same script connects and nothing is said.
    tree.user_config("[runtime]\nnetwork = \"allow\"\n");
    let allowed = run(&tree, "scripts/connect.py", &[&port]);
    assert_eq!(allowed.code, Some(0), "{allowed:?}");
    assert!(listener.accept().is_ok());
}

#[test]
fn read_only_names_the_sandbox_mode_and_a_failure_the_sandbox_did_not_cause_gets_no_hint() {
    let tree = named_lab();
    // The script's own permission error about a file of the workspace, which the run may
    // write: not the sandbox's doing.
    let own = run(&tree, "scripts/fake.py", &[]);
    if refused_here(&own) {
        return;
    }
    assert_eq!(own.code, Some(1), "{own:?}");
    assert!(hints(&own).is_empty(), "{own:?}");

    tree.user_config("[runtime]\nsandbox = \"read-only\"\n");
    let target = real(&tree.workspace).join("report.txt");
    let refused = run(&tree, "scripts/write.py", &[&target.display().to_string()]);
    assert_eq!(refused.code, Some(1), "{refused:?}");
    assert!(!target.exists());
    let hints = hints(&refused);
    let message = hints[0]["message"].as_str().unwrap();
    assert!(
        message.contains("sandbox = \"read-only\"")
            && message.contains("sandbox = \"workspace-write\""),
        "{message}"
    );
}

/// `[runtime] sandbox = "of"` (and another value that means nothing): `list` shows the
/// problem under its table; every command that uses `[runtime]` shows the same line.
#[test]
fn every_command_that_uses_the_runtime_settings_reports_an_invalid_value_as_list_does() {
    let tree = named_lab();
    tree.user_config("[runtime]\nsandbox = \"of\"\nsetup_network = \"sometimes\"\n");
    let list = tree.run(&["list"]);
    let said: Vec<&str> = list
        .stderr
        .lines()
        .filter(|line| line.starts_with("error[invalid-config]"))
        .collect();
    assert_eq!(said.len(), 2, "{list:?}");
    for args in [
        vec!["runtimes"],
        vec!["tools"],
        vec!["run", SKILL, "scripts/write.py", "--", "x"],
        vec!["test", "--all", "--yes"],
        vec!["setup", SKILL],
    ] {
        let run = tree.run(&args);
        for line in &said {
            assert!(run.stderr.contains(line), "{args:?}: {run:?}");
        }
    }
    // Runs stay refused while the file is wrong.
    let refused = run(&tree, "scripts/write.py", &["x"]);
    assert_eq!(error_kind(&refused), "config_invalid", "{refused:?}");
}
