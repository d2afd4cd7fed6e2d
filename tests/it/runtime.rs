//! Running skills through the built binary (07, issue 13's acceptance list): real `python3`,
//! `node` and `sh` children, a temporary home and workspace, and the command line's exit
//! statuses, output and run logs checked from outside, as a person or a script sees them.
//!
//! Each submodule covers one part of the contract; this file holds the fixture: a user skill
//! whose scripts the tests write, and helpers to read the run logs and to start a run in the
//! background.

mod boundary;
mod confirm;
mod deadline;
mod inputs;
mod logs;
mod named;
pub(crate) mod npm;
mod output;
mod policy;
mod refusals;
mod sandbox;
mod selftest;
pub(crate) mod setup;
#[cfg(target_os = "linux")]
mod terminal;
mod tools;
mod versions;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::discovery::{Place, Run, Tree};

/// The skill most tests run.
pub(crate) const SKILL: &str = "tools";

/// A tree with the user skill [`SKILL`] holding `scripts` (path, text), and `skill_toml` as
/// its sidecar when given. Returns the tree and the skill's folder.
pub(crate) fn lab(scripts: &[(&str, &str)], skill_toml: Option<&str>) -> (Tree, PathBuf) {
    let tree = Tree::new();
    let dir = add_skill(&tree, Place::UserOpenhuman, SKILL, scripts, skill_toml);
    (tree, dir)
}

/// Writes a skill named `name` into `place` with its scripts and sidecar; returns its folder.
pub(crate) fn add_skill(
    tree: &Tree,
    place: Place,
    name: &str,
    scripts: &[(&str, &str)],
    skill_toml: Option<&str>,
) -> PathBuf {
    let file = tree.skill(place, name, name, "Runs the test's scripts.");
    let dir = file.parent().unwrap().to_path_buf();
    for (path, text) in scripts {
        tree.write(&dir.join(path), text);
    }
    if let Some(text) = skill_toml {
        tree.write(&dir.join("skill.toml"), text);
    }
    dir
}

/// Where the run logs of `tree`'s home live.
pub(crate) fn runs_dir(tree: &Tree) -> PathBuf {
    tree.home.join(".openhuman/runs")
}

/// Every run log file in the home, sorted.
pub(crate) fn log_files(tree: &Tree) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(runs_dir(tree)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.map(|entry| entry.unwrap().path()).collect();
    files.sort();
    files
}

/// Every file and folder under `dir`, relative to it, sorted.
pub(crate) fn listing(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            found.push(
                path.strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
            if path.is_dir() && !path.is_symlink() {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A log's records, each line parsed as JSON (a line that is not JSON fails the test).
pub(crate) fn records(log: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(log).unwrap();
    assert!(
        text.ends_with('\n'),
        "a log ends with a whole line: {text:?}"
    );
    text.lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("not a JSON line ({error}): {line:?}"))
        })
        .collect()
}

/// The `skills` command for `tree`, as [`Tree::run`] builds it, for a run that must go on
/// in the background.
pub(crate) fn command(tree: &Tree, args: &[&str]) -> Command {
    let mut command = skills_tests::skills();
    command
        .current_dir(&tree.base)
        .arg("--workspace")
        .arg(&tree.workspace)
        .arg("--home")
        .arg(&tree.home)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Starts `skills ARGS` in the background.
pub(crate) fn spawn(tree: &Tree, args: &[&str]) -> Child {
    command(tree, args).spawn().unwrap()
}

/// Waits for `child` to end within `limit`; kills it and fails the test otherwise.
pub(crate) fn wait_within(mut child: Child, limit: Duration) -> Run {
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            let output = child.wait_with_output().unwrap();
            return Run {
                code: output.status.code(),
                stdout: String::from_utf8(output.stdout).unwrap(),
                stderr: String::from_utf8(output.stderr).unwrap(),
            };
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}: stdout {:?}, stderr {:?}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The id of the one run `skills runs --json` lists as running, waiting up to 10 s for it
/// to appear (the run registers before it spawns, so it shows while the script goes on).
pub(crate) fn running_run(tree: &Tree) -> String {
    let started = Instant::now();
    loop {
        let runs = tree.run(&["--json", "runs"]).json();
        let running: Vec<&Value> = runs
            .as_array()
            .unwrap()
            .iter()
            .filter(|run| run["status"] == "running")
            .collect();
        if let [run] = running.as_slice() {
            return run["run_id"].as_str().unwrap().to_owned();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no running run appeared: {runs}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `skills --json runs` as (run id, status) pairs, newest first.
pub(crate) fn statuses(tree: &Tree) -> Vec<(String, String)> {
    tree.run(&["--json", "runs"])
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|run| {
            (
                run["run_id"].as_str().unwrap().to_owned(),
                run["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The error document `--json` prints for a refused command.
pub(crate) fn error_kind(run: &Run) -> String {
    let document: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|error| panic!("{error}: {run:?}"));
    document["error"]["kind"]
        .as_str()
        .unwrap_or_else(|| panic!("no error kind: {run:?}"))
        .to_owned()
}

/// The processes still running whose command line mentions `marker` (a test tree's own
/// folder), as `pid: command line`, once none is left or two seconds have passed. A script
/// runs in a PID namespace of its own, so the pid it prints is not one the host knows: the
/// host's processes of a run are found by what they run instead (the helper's stages carry
/// the workspace in their policy, a script its path, a grandchild the files it was given).
pub(crate) fn leftovers(marker: &Path) -> Vec<String> {
    let marker = marker.display().to_string();
    let started = Instant::now();
    loop {
        let left: Vec<String> = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| {
                let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
                let line = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
                let line = String::from_utf8_lossy(&line).replace('\0', " ");
                // A zombie's command line is empty: it runs nothing.
                (line.contains(&marker)).then(|| format!("{pid}: {line}"))
            })
            .collect();
        if left.is_empty() || started.elapsed() > Duration::from_secs(2) {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The binary of the machine's `python3` (what `sys.executable` names, links resolved): a
/// launcher script on `PATH` (a pyenv shim) is not it.
pub(crate) fn real_python() -> PathBuf {
    let output = Command::new("python3")
        .args([
            "-c",
            "import os, sys; print(os.path.realpath(sys.executable))",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}
