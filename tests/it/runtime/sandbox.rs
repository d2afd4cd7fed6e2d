//! The sandbox from inside real children (07 §Sandbox, issue 14's acceptance): writes inside
//! the workspace succeed and outside fail under `workspace-write`, only the run's temporary
//! folder is writable under `read-only`, a loopback TCP connection and a UDP datagram are
//! refused under `network = "deny"` and arrive under `"allow"`, the temporary folder is gone
//! afterwards, and the outcome and the log say the sandbox applied.
//!
//! Every test first reads the kernel's Landlock ABI on its own (the `landlock` crate, not the
//! code under test) and asserts the enforcement where the ABI is enough and the refusal
//! (`sandbox_unavailable`, nothing spawned, no run logged) where it is not, so every kernel
//! runs a real assertion. `SKILLS_TEST_LANDLOCK_ABI` simulates an older kernel.

use std::io::Read as _;
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::discovery::{Run, Tree};

use super::{SKILL, error_kind, lab, listing, log_files, records};

/// The lowest ABI that confines files, and the one with network rules (the runtime's minimums).
const FS_ABI: u8 = 3;
const NET_ABI: u8 = 4;

/// Tries to write each argument (a path), then a file in `$TMPDIR`; prints one JSON object:
/// `{"results": {path: "ok" | error name}, "tmpdir": ...}`.
const WRITE_PY: &str = r#"import errno, json, os, sys
results = {}
for path in sys.argv[1:] + [os.path.join(os.environ["TMPDIR"], "scratch.txt")]:
    try:
        with open(path, "w") as file:
            file.write("written")
        results[path] = "ok"
    except OSError as error:
        results[path] = errno.errorcode.get(error.errno, str(error.errno))
print(json.dumps({"results": results, "tmpdir": os.environ["TMPDIR"]}))
"#;

/// Connects to the TCP port in argv[1] and sends a datagram to the UDP port in argv[2] on
/// 127.0.0.1; prints `{"tcp": "ok" | error, "udp": "ok" | error}`.
const NET_PY: &str = r#"import json, socket, sys
def attempt(kind, port):
    try:
        with socket.socket(socket.AF_INET, kind) as sock:
            sock.settimeout(5)
            if kind == socket.SOCK_STREAM:
                sock.connect(("127.0.0.1", port))
            else:
                sock.sendto(b"datagram", ("127.0.0.1", port))
        return "ok"
    except OSError as error:
        return type(error).__name__ + ": " + str(error)
print(json.dumps({"tcp": attempt(socket.SOCK_STREAM, int(sys.argv[1])), "udp": attempt(socket.SOCK_DGRAM, int(sys.argv[2]))}))
"#;

/// The kernel's Landlock ABI (up to 6, what the runtime uses): the highest ABI whose every
/// right and scope a ruleset can handle as a hard requirement. Creating a ruleset restricts
/// nothing.
pub(super) fn kernel_abi() -> u8 {
    #[cfg(target_os = "linux")]
    {
        use landlock::{
            ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, Scope,
        };
        (1..=6u8)
            .rev()
            .find(|&version| {
                let abi = ABI::from(i32::from(version));
                let mut ruleset = Ruleset::default()
                    .set_compatibility(CompatLevel::HardRequirement)
                    .handle_access(AccessFs::from_all(abi));
                if version >= NET_ABI {
                    ruleset =
                        ruleset.and_then(|ruleset| ruleset.handle_access(AccessNet::from_all(abi)));
                }
                // ABI 6 adds no file or network right, only the scopes.
                if version >= 6 {
                    ruleset = ruleset.and_then(|ruleset| ruleset.scope(Scope::from_all(abi)));
                }
                ruleset.and_then(Ruleset::create).is_ok()
            })
            .unwrap_or(0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// A tree with the write and network scripts, a `tmp` folder inside it to be the inherited
/// `TMPDIR`, and a folder outside the workspace.
pub(super) fn sandbox_lab() -> (Tree, PathBuf) {
    let (tree, _) = lab(
        &[("scripts/write.py", WRITE_PY), ("scripts/net.py", NET_PY)],
        None,
    );
    let tmp = tree.base.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(tree.base.join("outside")).unwrap();
    (tree, tmp)
}

/// `skills --json run SKILL SCRIPT -- ARGS` with `TMPDIR` set to `tmp` and `extra` variables.
fn run(tree: &Tree, tmp: &Path, script: &str, args: &[&str], extra: &[(&str, &str)]) -> Run {
    let mut line = vec!["--json", "run", SKILL, script, "--"];
    line.extend(args);
    let tmp = tmp.display().to_string();
    let mut env = vec![("TMPDIR", tmp.as_str())];
    env.extend(extra);
    tree.run_with(&line, &env)
}

/// The script's JSON report inside a successful run's outcome, and the outcome.
fn report(run: &Run) -> (Value, Value) {
    let outcome = run.json();
    let stdout = outcome["stdout"].as_str().unwrap().trim().to_owned();
    let report = serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{error}: {outcome}"));
    (report, outcome)
}

/// Asserts the run was refused with `sandbox_unavailable` before anything was spawned or
/// logged, and returns the message.
fn assert_refused(tree: &Tree, run: &Run) -> String {
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(error_kind(run), "sandbox_unavailable", "{run:?}");
    assert!(log_files(tree).is_empty(), "a refused run was logged");
    let document: Value = serde_json::from_str(&run.stdout).unwrap();
    document["error"]["message"].as_str().unwrap().to_owned()
}

/// The `start` record of the one run logged.
fn start_record(tree: &Tree) -> Value {
    let files = log_files(tree);
    assert_eq!(files.len(), 1, "{files:?}");
    records(&files[0]).remove(0)
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn workspace_write_confines_writes_to_the_workspace_and_the_temporary_folder() {
    let (tree, tmp) = sandbox_lab();
    let inside = tree.workspace.join("inside.txt");
    let in_home = tree.home.join("outside.txt");
    let elsewhere = tree.base.join("outside/elsewhere.txt");
    let run = run(
        &tree,
        &tmp,
        "scripts/write.py",
        &[
            &text(&inside),
            &text(&in_home),
            &text(&elsewhere),
            "/dev/null",
            "/dev/full",
        ],
        &[],
    );
    if kernel_abi() < NET_ABI {
        // The defaults (workspace-write, network deny) need ABI 4.
        let message = assert_refused(&tree, &run);
        assert!(
            message.contains("ABI") || !cfg!(target_os = "linux"),
            "{message}"
        );
        assert!(!inside.exists() && listing(&tmp).is_empty());
        return;
    }
    let (report, outcome) = report(&run);
    let results = &report["results"];
    assert_eq!(results[text(&inside)], "ok", "{report}");
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), "written");
    assert_eq!(results["/dev/null"], "ok", "{report}");
    // Two layers, each seen at work: files outside are on read-only mounts (the mount
    // layer answers first), and a device no mount flag guards is refused by Landlock
    // (unconfined, `/dev/full` answers ENOSPC).
    for outside in [&in_home, &elsewhere] {
        assert_eq!(results[text(outside)], "EROFS", "{report}");
        assert!(!outside.exists(), "{} was written", outside.display());
    }
    assert_eq!(results["/dev/full"], "EACCES", "{report}");
    // The run's own temporary folder: writable, inside the inherited TMPDIR, gone afterwards.
    let temp = PathBuf::from(report["tmpdir"].as_str().unwrap());
    assert_eq!(temp.parent(), Some(tmp.as_path()), "{report}");
    assert_eq!(results[text(&temp.join("scratch.txt"))], "ok", "{report}");
    assert!(!temp.exists(), "the temporary folder outlived the run");
    assert!(listing(&tmp).is_empty(), "{:?}", listing(&tmp));
    // What was applied, in the outcome and the log; a sandboxed run has a deadline.
    assert_eq!(outcome["sandbox"], "workspace-write");
    assert_eq!(outcome["network"], "deny");
    let start = start_record(&tree);
    assert_eq!(start["sandbox"], "workspace-write", "{start}");
    assert_eq!(start["network"], "deny", "{start}");
    assert_eq!(start["timeout_secs"], 24 * 60 * 60, "{start}");
}

#[test]
fn read_only_writes_only_the_temporary_folder() {
    let (tree, tmp) = sandbox_lab();
    tree.user_config("[runtime]\nsandbox = \"read-only\"\n");
    let inside = tree.workspace.join("inside.txt");
    let run = run(
        &tree,
        &tmp,
        "scripts/write.py",
        &[&text(&inside), "/dev/full"],
        &[],
    );
    if kernel_abi() < NET_ABI {
        assert_refused(&tree, &run);
        return;
    }
    let (report, outcome) = report(&run);
    assert_eq!(report["results"][text(&inside)], "EROFS", "{report}");
    assert_eq!(report["results"]["/dev/full"], "EACCES", "{report}");
    assert!(!inside.exists());
    let temp = PathBuf::from(report["tmpdir"].as_str().unwrap());
    assert_eq!(report["results"][text(&temp.join("scratch.txt"))], "ok");
    assert!(!temp.exists() && listing(&tmp).is_empty());
    assert_eq!(outcome["sandbox"], "read-only");
    assert_eq!(start_record(&tree)["sandbox"], "read-only");
}

/// Runs the network script against a loopback TCP listener and UDP socket this test opened;
/// returns the report and whether each one saw the child.
fn reach_loopback(tree: &Tree, tmp: &Path) -> (Run, bool, bool) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let datagrams = UdpSocket::bind("127.0.0.1:0").unwrap();
    let tcp = listener.local_addr().unwrap().port().to_string();
    let udp = datagrams.local_addr().unwrap().port().to_string();
    let run = run(tree, tmp, "scripts/net.py", &[&tcp, &udp], &[]);
    // The run is over: a connection or datagram it made is queued by now.
    listener.set_nonblocking(true).unwrap();
    datagrams.set_nonblocking(true).unwrap();
    let connected = listener.accept().is_ok();
    let mut buffer = [0u8; 64];
    let received = datagrams
        .recv(&mut buffer)
        .is_ok_and(|read| &buffer[..read] == b"datagram");
    (run, connected, received)
}

#[test]
fn network_deny_refuses_tcp_and_udp_to_a_loopback_listener_and_allow_reaches_it() {
    let (tree, tmp) = sandbox_lab();
    let (denied, connected, received) = reach_loopback(&tree, &tmp);
    if kernel_abi() < NET_ABI {
        let message = assert_refused(&tree, &denied);
        assert!(
            message.contains("ABI") || !cfg!(target_os = "linux"),
            "{message}"
        );
        assert!(!connected && !received);
    } else {
        let (report, outcome) = report(&denied);
        assert!(
            report["tcp"]
                .as_str()
                .unwrap()
                .starts_with("PermissionError"),
            "{report}"
        );
        assert!(
            report["udp"]
                .as_str()
                .unwrap()
                .starts_with("PermissionError"),
            "{report}"
        );
        assert!(!connected, "the listener saw a connection under deny");
        assert!(!received, "a datagram arrived under deny");
        assert_eq!(outcome["sandbox"], "workspace-write");
    }

    tree.user_config("[runtime]\nnetwork = \"allow\"\n");
    let (allowed, connected, received) = reach_loopback(&tree, &tmp);
    if kernel_abi() < FS_ABI {
        assert_refused(&tree, &allowed);
        return;
    }
    let (report, outcome) = report(&allowed);
    assert_eq!(report, serde_json::json!({"tcp": "ok", "udp": "ok"}));
    assert!(connected, "the listener saw no connection under allow");
    assert!(received, "no datagram arrived under allow");
    // Files stay confined with the network allowed.
    assert_eq!(outcome["sandbox"], "workspace-write");
    assert_eq!(outcome["network"], "allow");
}

// Linux only: elsewhere every sandbox is refused whatever the ABI (the tests above say so).
#[cfg(target_os = "linux")]
#[test]
fn a_simulated_older_kernel_is_refused_never_run_with_less() {
    let (tree, tmp) = sandbox_lab();
    let outside = tree.base.join("outside/mark.txt");
    let arguments = [text(&outside), "/dev/full".to_owned()];
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    let kernel = kernel_abi();

    // ABI 3 has no network rules: the default `network = "deny"` cannot be enforced.
    let run_at = |abi: &str| {
        run(
            &tree,
            &tmp,
            "scripts/write.py",
            &arguments,
            &[("SKILLS_TEST_LANDLOCK_ABI", abi)],
        )
    };
    let message = assert_refused(&tree, &run_at("3"));
    assert!(message.contains("ABI 4"), "{message}");
    assert!(message.contains("network = \"allow\""), "{message}");
    // ABI 0 (no Landlock) refuses every sandbox, whatever the network setting.
    let message = assert_refused(&tree, &run_at("0"));
    assert!(
        message.contains("ABI 3") && message.contains("sandbox = \"off\""),
        "{message}"
    );
    tree.user_config("[runtime]\nnetwork = \"allow\"\nsandbox = \"read-only\"\n");
    assert_refused(&tree, &run_at("0"));
    assert!(!outside.exists() && listing(&tmp).is_empty());

    // At ABI 3 with the network allowed, files are still confined (on a kernel that has it).
    tree.user_config("[runtime]\nnetwork = \"allow\"\n");
    if kernel >= FS_ABI {
        let (report, outcome) = report(&run_at("3"));
        assert_eq!(report["results"][text(&outside)], "EROFS", "{report}");
        assert_eq!(report["results"]["/dev/full"], "EACCES", "{report}");
        assert_eq!(outcome["sandbox"], "workspace-write");
        assert!(!outside.exists());
    } else {
        assert_refused(&tree, &run_at("3"));
    }
    for file in log_files(&tree) {
        std::fs::remove_file(file).unwrap();
    }

    // `off` is the one way to run without one, and the outcome and log say so.
    tree.user_config("[runtime]\nsandbox = \"off\"\n");
    let (report, outcome) = report(&run_at("0"));
    assert_eq!(report["results"][text(&outside)], "ok", "{report}");
    assert_eq!(report["results"]["/dev/full"], "ENOSPC", "{report}");
    assert_eq!(outcome["sandbox"], "off");
    assert_eq!(outcome["network"], "allow", "nothing restricts it when off");
    let start = start_record(&tree);
    assert_eq!(start["sandbox"], "off");
    assert_eq!(start["network"], "allow");
    assert_eq!(
        start["timeout_secs"],
        Value::Null,
        "no deadline unless asked, when off"
    );
    // The temporary folder is the run's whether sandboxed or not.
    let temp = PathBuf::from(report["tmpdir"].as_str().unwrap());
    assert_eq!(temp.parent(), Some(tmp.as_path()));
    assert!(!temp.exists());
}

#[test]
fn the_helper_refuses_a_policy_it_cannot_enforce_in_full() {
    let marker = tempfile::tempdir().unwrap();
    let mark = marker.path().join("ran");
    let script = format!("echo ran > '{}'", mark.display());
    let helper = |policy: &str| {
        let output = Command::new(skills_tests::skills_binary())
            .args([
                "__skills-sandbox-v2",
                policy,
                "--",
                "/bin/sh",
                "-c",
                &script,
            ])
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let dir = text(marker.path());
    // The helper refuses to start once the process that started it is gone; this test
    // process is that process.
    let me = std::process::id();
    // Below the minimum, or unreadable: refused with status 125 and a one-line reason, and
    // the command never ran.
    for policy in [
        format!(
            r#"{{"abi":2,"write_dirs":["{dir}"],"write_files":[],"network":"allow","supervisor":{me}}}"#
        ),
        format!(
            r#"{{"abi":3,"write_dirs":["{dir}"],"write_files":[],"network":"deny","supervisor":{me}}}"#
        ),
        // Started by another process than the one the policy names.
        format!(
            r#"{{"abi":3,"write_dirs":["{dir}"],"write_files":[],"network":"allow","supervisor":1}}"#
        ),
        // A restriction this helper does not know (a newer parent's) is never dropped.
        format!(
            r#"{{"abi":3,"write_dirs":["{dir}"],"write_files":[],"network":"allow","supervisor":{me},"forbid_more":true}}"#
        ),
        "not json".to_owned(),
    ] {
        let (code, stderr) = helper(&policy);
        assert_eq!(code, Some(125), "{policy}: {stderr}");
        assert!(stderr.starts_with("skills sandbox refused: "), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!mark.exists(), "{policy} ran the command");
    }
    // The marker of the protocol before the two-stage boundary is no helper line at all: the
    // program takes it for a command line it does not know, and nothing runs.
    let old = Command::new(skills_tests::skills_binary())
        .args([
            "__skills-sandbox",
            r#"{"abi":3,"write_dirs":[],"write_files":[],"network":"allow"}"#,
            "--",
            "/bin/sh",
            "-c",
            &script,
        ])
        .output()
        .unwrap();
    assert_eq!(old.status.code(), Some(2), "{old:?}");
    assert!(!mark.exists(), "the old protocol ran the command");
    // A policy the kernel can enforce runs the command; one it cannot is refused by the
    // helper itself, whatever the parent decided.
    let (code, stderr) = helper(&format!(
        r#"{{"abi":3,"write_dirs":["{dir}"],"write_files":[],"network":"allow","supervisor":{me}}}"#
    ));
    if kernel_abi() >= FS_ABI {
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(std::fs::read_to_string(&mark).unwrap(), "ran\n");
    } else {
        assert_eq!(code, Some(125), "{stderr}");
        assert!(!mark.exists());
    }
}

/// Runs the library user's binary (`tests/src/bin/agent-core.rs`) on `tree`.
pub(super) fn agent_core(
    tree: &Tree,
    tmp: &Path,
    dispatch: bool,
    script: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-core"));
    command.envs(env.iter().copied());
    if !dispatch {
        command.arg("--no-dispatch");
    }
    let mut child = command
        .arg(&tree.workspace)
        .arg(&tree.home)
        .arg(SKILL)
        .arg(script)
        .args(args)
        .env("TMPDIR", tmp)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child.wait().unwrap();
    serde_json::from_str(stdout.trim()).unwrap_or_else(|error| panic!("{error}: {stdout}"))
}

#[test]
fn a_library_users_binary_that_calls_sandbox_main_runs_sandboxed_like_the_cli() {
    let (tree, tmp) = sandbox_lab();
    let inside = tree.workspace.join("inside.txt");
    let outside = tree.base.join("outside/core.txt");
    let outcome = agent_core(
        &tree,
        &tmp,
        true,
        "scripts/write.py",
        &[&text(&inside), &text(&outside)],
        &[],
    );
    if kernel_abi() < NET_ABI {
        assert_eq!(outcome["error"]["kind"], "sandbox_unavailable", "{outcome}");
        assert!(!inside.exists() && log_files(&tree).is_empty());
    } else {
        assert_eq!(outcome["sandbox"], "workspace-write", "{outcome}");
        let report: Value =
            serde_json::from_str(outcome["stdout"].as_str().unwrap().trim()).unwrap();
        assert_eq!(report["results"][text(&inside)], "ok", "{report}");
        assert_eq!(report["results"][text(&outside)], "EROFS", "{report}");
        assert!(inside.exists() && !outside.exists());
        assert!(listing(&tmp).is_empty(), "{:?}", listing(&tmp));
    }

    // A host that never called `sandbox_main` (and set no helper) is refused, not run
    // unsandboxed.
    std::fs::remove_file(&inside).ok();
    let logged = log_files(&tree).len();
    let refused = agent_core(
        &tree,
        &tmp,
        false,
        "scripts/write.py",
        &[&text(&inside)],
        &[],
    );
    assert_eq!(refused["error"]["kind"], "sandbox_unavailable", "{refused}");
    if kernel_abi() >= NET_ABI {
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("sandbox_main()"), "{message}");
    }
    assert!(!inside.exists());
    assert_eq!(log_files(&tree).len(), logged, "a refused run was logged");
}

#[test]
fn from_abi_6_a_sandboxed_process_cannot_signal_one_outside_it() {
    // This test process is outside the sandbox: `kill -0` probes whether it may be signalled.
    let probe = format!(
        "kill -0 {} 2>/dev/null && echo signalled || echo refused",
        std::process::id()
    );
    let output = Command::new(skills_tests::skills_binary())
        .args([
            "__skills-sandbox-v2",
            &format!(
                r#"{{"abi":6,"write_dirs":[],"write_files":[],"network":"allow","supervisor":{}}}"#,
                std::process::id()
            ),
            "--",
            "/bin/sh",
            "-c",
            &probe,
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    if kernel_abi() >= 6 {
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        assert_eq!(stdout.trim(), "refused", "a signal left the sandbox");
    } else {
        // The helper refuses rather than run with the signal scope missing.
        assert_eq!(output.status.code(), Some(125), "{output:?}");
        assert!(stdout.is_empty());
    }
}
