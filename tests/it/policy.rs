//! The home decides, a workspace can only tighten (issue 29 §2), through the built binary with
//! real `sh` and `python3` children: a trusted workspace's `"*" = "allow"` leaves the home's
//! `deny` and `ask` in force; the folders a workspace's `paths` names are project scope, listed
//! as `project`, and their runs need confirmation; and a home `skills.toml` that exists but
//! cannot be honoured (each broken form) refuses runs, self-tests and declared tools with
//! `config_invalid`, while `skills list` still works and says why. Nothing refused leaves a
//! marker file or a run log behind.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::discovery::{Place, Run, Tree, json_names};
use crate::runtime::{add_skill, error_kind, log_files};
use crate::serve::Connection;

/// Writes `ran-<skill>` in the workspace (the working directory) and says so.
const MARK_SH: &str = "echo ran > \"ran-$SKILL_NAME\"\necho ran\n";
const MARK_PY: &str =
    "import os\nopen('ran-' + os.environ['SKILL_NAME'] + '-py', 'w').write('x')\nprint('ran')\n";
/// A self-test and a declared tool running `scripts/mark.sh`.
const SIDECAR: &str = "[[tests]]\nname = \"marks\"\nscript = \"scripts/mark.sh\"\n\n[[tools]]\nname = \"mark\"\ndescription = \"Marks the workspace.\"\nscript = \"scripts/mark.sh\"\n";

/// A tree whose user root holds `blocked` (denied by the home), `asked` (`ask`) and `tools`
/// (allowed, with a self-test and a tool), each able to mark the workspace.
fn tree() -> (Tree, PathBuf) {
    let tree = Tree::new();
    let scripts = [("scripts/mark.sh", MARK_SH), ("scripts/mark.py", MARK_PY)];
    for name in ["blocked", "asked"] {
        add_skill(&tree, Place::UserOpenhuman, name, &scripts, None);
    }
    add_skill(
        &tree,
        Place::UserOpenhuman,
        "tools",
        &scripts,
        Some(SIDECAR),
    );
    let file = tree.home.join(".openhuman/skills.toml");
    tree.user_config("[permissions]\n\"blocked\" = \"deny\"\n\"asked\" = \"ask\"\n");
    (tree, file)
}

fn marked(tree: &Tree) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(&tree.workspace)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("ran-"))
        .collect();
    found.sort();
    found
}

fn workspace_config(tree: &Tree, text: &str) -> PathBuf {
    tree.write(&tree.workspace.join(".openhuman/skills.toml"), text)
}

/// The skill `name` of a `--json list`, if listed.
fn listed<'a>(listing: &'a Value, name: &str) -> Option<&'a Value> {
    listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|skill| skill["name"] == name)
}

/// Asserts `run` was refused with `kind` and nothing ran or was logged.
fn refused(tree: &Tree, run: &Run, kind: &str) {
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(error_kind(run), kind, "{run:?}");
    assert_eq!(marked(tree), Vec::<String>::new(), "{run:?}");
    assert!(log_files(tree).is_empty(), "{run:?}");
}

#[test]
fn a_workspace_allow_leaves_the_homes_deny_and_ask_in_force() {
    let (tree, _) = tree();
    workspace_config(
        &tree,
        "[permissions]\n\"*\" = \"allow\"\n\"blocked\" = \"allow\"\n\"tools\" = \"deny\"\n",
    );
    tree.run(&["trust", "-q"]).ok();

    let listing = tree.run(&["--json", "list"]).json();
    assert_eq!(json_names(&listing, "skills"), ["asked"], "{listing}");
    assert_eq!(listed(&listing, "asked").unwrap()["permission"], "ask");
    for args in [
        &["--json", "run", "blocked", "scripts/mark.sh", "--yes"][..],
        &["--json", "run", "blocked", "scripts/mark.py", "--yes"],
        &["--json", "show", "blocked"],
        &["--json", "read", "blocked"],
    ] {
        refused(&tree, &tree.run(args), "denied");
    }
    // `ask` still needs the user's yes; with it, the run goes ahead.
    refused(
        &tree,
        &tree.run(&["--json", "run", "asked", "scripts/mark.py"]),
        "needs_confirmation",
    );
    // A workspace may tighten: its `deny` of `tools` holds.
    refused(
        &tree,
        &tree.run(&["--json", "run", "tools", "scripts/mark.sh", "--yes"]),
        "denied",
    );
    assert_eq!(
        tree.run(&["run", "asked", "scripts/mark.py", "--yes"]).ok(),
        "ran\n"
    );
    assert_eq!(marked(&tree), ["ran-asked-py"]);
}

#[test]
fn workspace_paths_are_project_skills_that_need_confirmation() {
    let tree = Tree::new();
    let vendored = tree.workspace.join("vendor/skills");
    tree.write(
        &tree.home.join("team/own/SKILL.md"),
        "---\nname: own\ndescription: The user's own.\n---\nBody.\n",
    );
    tree.write(
        &vendored.join("vendored/SKILL.md"),
        "---\nname: vendored\ndescription: Ships with the repository.\n---\nBody.\n",
    );
    tree.write(&vendored.join("vendored/scripts/mark.sh"), MARK_SH);
    tree.write(&tree.home.join("team/own/scripts/mark.sh"), MARK_SH);
    tree.user_config("paths = [\"team\"]\n");
    workspace_config(&tree, "paths = [\"vendor/skills\"]\n");

    // Untrusted, the workspace's file is not read: its folder is not a root at all.
    let listing = tree.run(&["--json", "list"]).json();
    assert_eq!(json_names(&listing, "skills"), ["own"], "{listing}");
    refused(
        &tree,
        &tree.run(&["--json", "run", "vendored", "scripts/mark.sh", "--yes"]),
        "not_found",
    );

    tree.run(&["trust", "-q"]).ok();
    let listing = tree.run(&["--json", "list"]).json();
    assert_eq!(listed(&listing, "vendored").unwrap()["scope"], "project");
    assert_eq!(listed(&listing, "own").unwrap()["scope"], "user");
    let text = tree.run(&["list"]);
    let line = text
        .ok()
        .lines()
        .find(|line| line.starts_with("vendored"))
        .unwrap()
        .to_owned();
    assert!(line.contains("project"), "{line}");

    refused(
        &tree,
        &tree.run(&["--json", "run", "vendored", "scripts/mark.sh"]),
        "needs_confirmation",
    );
    assert_eq!(
        tree.run(&["run", "vendored", "scripts/mark.sh", "--yes"])
            .ok(),
        "ran\n"
    );
    // The home's `paths` stay the user's: no confirmation.
    assert_eq!(tree.run(&["run", "own", "scripts/mark.sh"]).ok(), "ran\n");
    assert_eq!(marked(&tree), ["ran-own", "ran-vendored"]);
}

/// The ways a home `skills.toml` can exist and not be honoured, each made from a readable
/// file at `file`; `None` when this process would read it anyway (mode 000 as root).
fn break_file(tree: &Tree, file: &Path, form: &str) -> Option<()> {
    match form {
        "mode 000" => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o000)).unwrap();
                if std::fs::read(file).is_ok() {
                    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600)).unwrap();
                    return None;
                }
            }
        }
        "FIFO" => {
            std::fs::remove_file(file).unwrap();
            let made = std::process::Command::new("mkfifo")
                .arg(file)
                .status()
                .unwrap();
            assert!(made.success());
        }
        "folder" => {
            std::fs::remove_file(file).unwrap();
            std::fs::create_dir(file).unwrap();
        }
        "link to nowhere" => {
            std::fs::remove_file(file).unwrap();
            #[cfg(unix)]
            std::os::unix::fs::symlink(tree.base.join("gone.toml"), file).unwrap();
        }
        "invalid TOML" => {
            std::fs::write(file, "[permissions]\n\"blocked\" = deny\n").unwrap();
        }
        "oversized" => {
            let mut text = b"[permissions]\n\"blocked\" = \"deny\"\n".to_vec();
            text.resize(2 * 1024 * 1024, b'\n');
            std::fs::write(file, text).unwrap();
        }
        "invalid UTF-8" => {
            std::fs::write(file, b"[permissions]\n\"blocked\" = \"deny\" # \xff\n").unwrap();
        }
        "invalid permission" => {
            std::fs::write(file, "[permissions]\n\"asked\" = \"dney\"\n").unwrap();
        }
        "invalid sandbox" => {
            std::fs::write(
                file,
                "[permissions]\n\"blocked\" = \"deny\"\n[runtime]\nsandbox = \"of\"\n",
            )
            .unwrap();
        }
        other => panic!("{other}"),
    }
    Some(())
}

/// Undoes [`break_file`]: the readable file with the `deny` and `ask` rules again.
fn mend_file(tree: &Tree, file: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if std::fs::symlink_metadata(file).is_ok_and(|metadata| !metadata.is_symlink()) {
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o700)).unwrap();
        }
    }
    if file.is_dir() {
        std::fs::remove_dir(file).unwrap();
    } else if std::fs::symlink_metadata(file).is_ok() {
        std::fs::remove_file(file).unwrap();
    }
    tree.user_config("[permissions]\n\"blocked\" = \"deny\"\n\"asked\" = \"ask\"\n");
}

#[test]
fn a_home_file_that_cannot_be_honoured_refuses_runs_and_listing_says_why() {
    let (tree, file) = tree();
    let shown = file.display().to_string();
    for form in [
        "mode 000",
        "FIFO",
        "folder",
        "link to nowhere",
        "invalid TOML",
        "oversized",
        "invalid UTF-8",
        "invalid permission",
        "invalid sandbox",
    ] {
        if break_file(&tree, &file, form).is_none() {
            // Root reads a mode-000 file: the rules are read and honoured as usual.
            refused(
                &tree,
                &tree.run(&["--json", "run", "blocked", "scripts/mark.sh", "--yes"]),
                "denied",
            );
            mend_file(&tree, &file);
            continue;
        }
        for args in [
            &["--json", "run", "blocked", "scripts/mark.sh", "--yes"][..],
            &["--json", "run", "asked", "scripts/mark.py", "--yes"],
            &["--json", "run", "tools", "scripts/mark.sh", "--yes"],
            &["--json", "test", "tools", "--yes"],
            &["--json", "test", "--all", "--yes"],
        ] {
            let run = tree.run(args);
            refused(&tree, &run, "config_invalid");
            let message = serde_json::from_str::<Value>(&run.stdout).unwrap()["error"]["message"]
                .as_str()
                .unwrap()
                .to_owned();
            assert!(message.contains(&shown), "{form}: {message}");
            assert!(message.contains("fixed or removed"), "{form}: {message}");
            assert!(run.stderr.contains("hint"), "{form}: {run:?}");
        }
        // Listing goes on and says which file and why.
        let listing = tree.run(&["--json", "list"]).json();
        let said: Vec<&Value> = listing["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|diagnostic| diagnostic["severity"] == "error")
            .collect();
        assert_eq!(said.len(), 1, "{form}: {listing}");
        assert_eq!(said[0]["code"], "invalid-config", "{form}");
        assert_eq!(said[0]["path"], shown.as_str(), "{form}");
        assert!(
            said[0]["message"]
                .as_str()
                .unwrap()
                .contains("runs, tools and self-tests are refused"),
            "{form}: {listing}"
        );
        // Nothing is listed as plainly allowed while the rules are unknown.
        for skill in listing["skills"].as_array().unwrap() {
            assert_eq!(skill["permission"], "ask", "{form}: {skill}");
        }
        let text = tree.run(&["list"]);
        assert_eq!(text.code, Some(0), "{form}: {text:?}");
        assert!(text.stderr.contains(&shown), "{form}: {text:?}");
        mend_file(&tree, &file);
        refused(
            &tree,
            &tree.run(&["--json", "run", "blocked", "scripts/mark.sh", "--yes"]),
            "denied",
        );
    }
    // Mended, runs go ahead again.
    assert_eq!(tree.run(&["run", "tools", "scripts/mark.sh"]).ok(), "ran\n");
}

/// The attack itself: a skill's script takes the read permission away from the home file.
/// Whether or not the sandbox lets it, the `deny` stays in force: either the file is still
/// read, or the run is refused with `config_invalid`.
#[cfg(unix)]
#[test]
fn a_script_that_makes_the_home_file_unreadable_leaves_the_deny_in_force() {
    let (tree, file) = tree();
    add_skill(
        &tree,
        Place::UserOpenhuman,
        "breaker",
        &[("scripts/break.sh", "chmod 000 \"$1\" 2>/dev/null\nexit 0\n")],
        None,
    );
    let ran = tree.run(&[
        "run",
        "breaker",
        "scripts/break.sh",
        "--",
        &file.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let logs = log_files(&tree).len();
    let run = tree.run(&["--json", "run", "blocked", "scripts/mark.sh", "--yes"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let kind = error_kind(&run);
    if std::fs::read(&file).is_ok() {
        assert_eq!(kind, "denied", "{run:?}");
    } else {
        assert_eq!(kind, "config_invalid", "{run:?}");
    }
    assert_eq!(marked(&tree), Vec::<String>::new());
    assert_eq!(log_files(&tree).len(), logs);
}

/// A trusted workspace's file that cannot be read refuses runs in that workspace; an
/// untrusted workspace's is never read, so it refuses nothing.
#[test]
fn a_trusted_workspace_file_that_cannot_be_read_refuses_runs_there() {
    let (tree, _) = tree();
    let file = workspace_config(&tree, "[runtime]\nsandbox = \"read-only\"\nnetwork = \n");
    assert_eq!(tree.run(&["run", "tools", "scripts/mark.sh"]).ok(), "ran\n");
    std::fs::remove_file(tree.workspace.join("ran-tools")).unwrap();
    let logs = log_files(&tree).len();
    tree.run(&["trust", "-q"]).ok();
    let run = tree.run(&["--json", "run", "tools", "scripts/mark.sh", "--yes"]);
    assert_eq!(error_kind(&run), "config_invalid", "{run:?}");
    assert!(run.stdout.contains(&file.display().to_string()), "{run:?}");
    assert_eq!(marked(&tree), Vec::<String>::new());
    assert_eq!(log_files(&tree).len(), logs);
}

/// A declared tool called over `skills serve` is refused the same way.
#[test]
fn a_declared_tool_is_refused_while_the_home_file_cannot_be_honoured() {
    let (tree, file) = tree();
    std::fs::write(&file, "[permissions]\n\"blocked\" = \"dney\"\n").unwrap();
    let mut connection = Connection::open(&tree);
    let request = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "skill_runtime.execute_tool",
        "params": {"tool_name": "tools__mark", "args": {}},
    });
    connection.send(&request.to_string());
    // A run that started would stream its output as notifications first.
    let answer = loop {
        let message = connection.next_message();
        if message.get("id").is_some() {
            break message;
        }
        assert_ne!(message["method"], "skill_runtime.output", "{message}");
    };
    assert_eq!(
        answer["error"]["data"]["kind"], "config_invalid",
        "{answer}"
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&file.display().to_string()),
        "{answer}"
    );
    assert!(connection.finish().success());
    assert_eq!(marked(&tree), Vec::<String>::new());
    assert!(log_files(&tree).is_empty());
}
