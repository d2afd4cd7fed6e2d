//! The process boundary of a sandboxed run (issue 29), attacked from inside real `python3`
//! and `sh` children through the built binary: a script reads nothing of the process that
//! started it (its environment, command line, descriptors, memory map) — under `skills run`,
//! `skills serve` and `skills mcp --http` with its bearer token; reaches no descriptor it
//! inherited; leaves nothing running after its run (a `setsid` + `nohup` daemon and a double
//! fork, at the run's end, its deadline, a cancel and the death of `skills`); and changes no
//! mode, owner, time or extended attribute outside the folders it may write, while
//! `chmod +x` inside the workspace works.
//!
//! Each test first reads what the machine offers (the kernel's Landlock ABI, and whether a
//! user namespace with its own PID namespace and `/proc` can be made, tried with util-linux's
//! `unshare`), and asserts the enforcement where it is there and the refusal
//! (`sandbox_unavailable`) where it is not: every machine runs a real assertion.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::discovery::{Run, Tree};

use super::{SKILL, error_kind, lab, leftovers, log_files, running_run, spawn, wait_within};

/// Reads every `/proc/<pid>/{environ,cmdline,maps}` it can and reports where the canary
/// (argv[1] reversed, so that its own command line does not hold it) was found, every pid it can see with its command line, what reading its parent's
/// entries gave, its own descriptors, and what writing to descriptor 5 gave.
const PROBE_PY: &str = r#"import errno, json, os, sys
canary = sys.argv[1][::-1].encode()
found, seen = [], {}
for name in os.listdir("/proc"):
    if not name.isdigit():
        continue
    try:
        with open(f"/proc/{name}/cmdline", "rb") as file:
            seen[name] = file.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        seen[name] = None
    for entry in ("environ", "cmdline", "maps"):
        try:
            with open(f"/proc/{name}/{entry}", "rb") as file:
                if canary in file.read():
                    found.append(f"{name}/{entry}")
        except OSError:
            pass
def attempt(path):
    try:
        with open(path, "rb") as file:
            file.read()
        return "read"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
parent = os.getppid()
try:
    os.write(5, b"written by the script\n")
    fd5 = "written"
except OSError as error:
    fd5 = errno.errorcode.get(error.errno, str(error.errno))
print(json.dumps({
    "found": found,
    "seen": seen,
    "me": os.getpid(),
    "parent": {entry: attempt(f"/proc/{parent}/{entry}") for entry in ("environ", "maps", "mem")},
    "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")),
    "fd5": fd5,
}))
"#;

/// Starts a `setsid` + `nohup` daemon and a double-forked one, each appending to a file in
/// the workspace every 50 ms; says so; then sleeps unless argv[1] is `exit`.
const DAEMONS_SH: &str = r#"setsid nohup sh -c 'while :; do echo tick >> "$0"; sleep 0.05; done' "$PWD/setsid.log" > /dev/null 2>&1 &
python3 -c '
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            with open(sys.argv[1], "a") as log:
                log.write("tick\n")
            time.sleep(0.05)
    os._exit(0)
' "$PWD/double.log"
while [ ! -s "$PWD/setsid.log" ] || [ ! -s "$PWD/double.log" ]; do sleep 0.02; done
echo started
[ "$1" = exit ] && exit 0
sleep 1000
"#;

/// Tries `chmod`, `utime`, `chown` (to its own ids), `setxattr` and `removexattr` on each
/// path in argv[2:], and `chmod +x` on argv[1]; prints `{path: {operation: "ok" | errno}}`.
const METADATA_PY: &str = r#"import errno, json, os, sys
def attempt(action):
    try:
        action()
        return "ok"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
report = {}
for path in sys.argv[2:]:
    report[path] = {
        "chmod": attempt(lambda: os.chmod(path, 0)),
        "utime": attempt(lambda: os.utime(path, (0, 0))),
        "chown": attempt(lambda: os.chown(path, os.getuid(), os.getgid())),
        "setxattr": attempt(lambda: os.setxattr(path, "user.skills-test", b"set by the script")),
        "removexattr": attempt(lambda: os.removexattr(path, "user.skills-before")),
    }
inside = sys.argv[1]
report[inside] = {"chmod +x": attempt(lambda: os.chmod(inside, os.stat(inside).st_mode | 0o111))}
print(json.dumps(report))
"#;

/// What this machine offers a sandboxed run: `None` when every layer is there, otherwise
/// what is missing (the runtime must then refuse).
fn missing_layer() -> Option<&'static str> {
    if super::sandbox::kernel_abi() < 4 {
        return Some("Landlock ABI 4");
    }
    // The same namespaces the helper makes, with a /proc of their own, tried by a program
    // that is not the code under test.
    let unshare = Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "--pid",
            "--fork",
            "--mount-proc",
            "true",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match unshare {
        Ok(status) if status.success() => None,
        Ok(_) => Some("user namespaces"),
        // No util-linux: what the kernel's settings say.
        Err(_) => std::fs::read_to_string("/proc/sys/user/max_user_namespaces")
            .ok()
            .filter(|value| value.trim() == "0")
            .map(|_| "user namespaces"),
    }
}

/// Asserts `run` was refused with `sandbox_unavailable` naming `missing`, nothing logged.
fn assert_refused(tree: &Tree, run: &Run, missing: &str) {
    assert_eq!(error_kind(run), "sandbox_unavailable", "{run:?}");
    let document: Value = serde_json::from_str(&run.stdout).unwrap();
    let message = document["error"]["message"].as_str().unwrap().to_owned();
    let named = match missing {
        "Landlock ABI 4" => "ABI",
        _ => "user namespaces",
    };
    assert!(message.contains(named), "{message}");
    assert!(log_files(tree).is_empty(), "a refused run was logged");
}

/// `text` backwards: what the probe is given to look for.
fn reversed(text: &str) -> String {
    text.chars().rev().collect()
}

/// The probe's report from a run's outcome.
fn probe_report(outcome: &Value) -> Value {
    let stdout = outcome["stdout"].as_str().unwrap_or_default().trim();
    serde_json::from_str(stdout).unwrap_or_else(|error| panic!("{error}: {outcome}"))
}

/// Asserts the probe saw nothing of the process that started the run: no canary anywhere,
/// no process but its own and the run's init stage, its parent's entries unreadable.
fn assert_sees_nothing_outside(report: &Value) {
    assert_eq!(report["found"], json!([]), "{report}");
    let me = report["me"].to_string();
    for (pid, line) in report["seen"].as_object().unwrap() {
        let line = line.as_str().unwrap_or_default();
        assert!(
            *pid == me || line.contains("__skills-sandbox-v2-init"),
            "the script sees process {pid} ({line}) outside its run: {report}"
        );
    }
    for (entry, result) in report["parent"].as_object().unwrap() {
        assert_ne!(
            result, "read",
            "the parent's {entry} was readable: {report}"
        );
    }
}

#[test]
fn a_script_reads_nothing_of_the_command_that_started_it() {
    let canary = "canary-a1b2c3d4-environ";
    let (tree, _) = lab(&[("scripts/probe.py", PROBE_PY)], None);
    let run = tree.run_with(
        &[
            "--json",
            "run",
            SKILL,
            "scripts/probe.py",
            "--",
            &reversed(canary),
        ],
        &[
            ("SKILLS_BOUNDARY_CANARY", canary),
            ("SKILLS_REGISTRY_TOKEN", canary),
        ],
    );
    if let Some(missing) = missing_layer() {
        return assert_refused(&tree, &run, missing);
    }
    let report = probe_report(&run.json());
    assert_sees_nothing_outside(&report);
}

#[test]
fn a_script_run_by_an_agent_core_reads_nothing_of_the_core() {
    let canary = "canary-0a9b8c7d-agent-core";
    let (tree, tmp) = super::sandbox::sandbox_lab();
    tree.write(
        &tree
            .home
            .join(".openhuman/skills")
            .join(SKILL)
            .join("scripts/probe.py"),
        PROBE_PY,
    );
    // The core's own environment holds the canary; it passes its scripts PATH, HOME and
    // TMPDIR only, and its process is the script's grandparent.
    let outcome = super::sandbox::agent_core(
        &tree,
        &tmp,
        true,
        "scripts/probe.py",
        &[&reversed(canary)],
        &[("AGENT_CORE_SECRET", canary)],
    );
    if let Some(missing) = missing_layer() {
        assert_eq!(
            outcome["error"]["kind"], "sandbox_unavailable",
            "{missing}: {outcome}"
        );
        return;
    }
    assert_sees_nothing_outside(&probe_report(&outcome));
}

#[test]
fn a_script_run_by_serve_reads_nothing_of_the_server() {
    let canary = "canary-e5f6a7b8-serve";
    let (tree, _) = lab(&[("scripts/probe.py", PROBE_PY)], None);
    let mut connection =
        crate::serve::Connection::open_with(&tree, &[("SKILLS_BOUNDARY_CANARY", canary)]);
    let request = json!({
        "jsonrpc": "2.0",
        "id": 7,
        "method": "skill_runtime.run",
        "params": {
            "skill_id": SKILL,
            "script": "scripts/probe.py",
            "args": [reversed(canary)],
            "wait": true,
        },
    });
    connection.send(&request.to_string());
    let response = loop {
        let message = connection.next_message();
        if message["id"] == 7 {
            break message;
        }
    };
    if let Some(missing) = missing_layer() {
        assert_eq!(
            response["error"]["data"]["kind"], "sandbox_unavailable",
            "{missing}: {response}"
        );
        return;
    }
    let report = probe_report(&response["result"]);
    assert_sees_nothing_outside(&report);
}

#[test]
fn a_script_run_over_mcp_http_never_sees_the_bearer_token() {
    use rmcp::ServiceExt as _;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let token = "canary-token-c9d0e1f2-of-some-length";
    let (tree, _) = lab(&[("scripts/probe.py", PROBE_PY)], None);
    let mut command = super::command(&tree, &["mcp", "--http", "127.0.0.1:0"]);
    command.env("SKILLS_MCP_TOKEN", token).stdout(Stdio::null());
    let mut server = command.spawn().unwrap();
    let stderr = server.stderr.take().unwrap();
    let url = {
        use std::io::BufRead as _;
        let mut lines = std::io::BufReader::new(stderr).lines();
        let url = loop {
            let line = lines.next().unwrap().unwrap();
            if let Some(start) = line.find("http://") {
                break line[start..].split_whitespace().next().unwrap().to_owned();
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        url
    };
    // The token left the server's environment once read (it executed itself again).
    match std::fs::read(format!("/proc/{}/environ", server.id())) {
        Ok(environ) => assert!(
            !String::from_utf8_lossy(&environ).contains(token),
            "the token is still in the server's environment"
        ),
        // Not root: the server is not dumpable, so its environment is not this test's to read.
        Err(error) => assert_eq!(error.kind(), std::io::ErrorKind::PermissionDenied),
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let result = runtime.block_on(async {
        let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).auth_header(token);
        let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
        let arguments =
            json!({ "name": SKILL, "script": "scripts/probe.py", "args": [reversed(token)] });
        let result = client
            .call_tool(
                CallToolRequestParams::new("run_skill_script")
                    .with_arguments(arguments.as_object().cloned().unwrap()),
            )
            .await
            .unwrap();
        client.cancel().await.unwrap();
        result
    });
    server.kill().ok();
    server.wait().ok();
    let outcome = result.structured_content.unwrap_or_default();
    if let Some(missing) = missing_layer() {
        assert_eq!(result.is_error, Some(true), "{missing}: {outcome}");
        return;
    }
    let report = probe_report(&outcome);
    assert_sees_nothing_outside(&report);
}

#[test]
fn an_inherited_descriptor_does_not_reach_the_script() {
    let (tree, _) = lab(&[("scripts/probe.py", PROBE_PY)], None);
    // A file the user's shell holds open for writing, not close-on-exec, when it starts
    // `skills` (what `exec 5>>~/.bashrc` in a profile leaves behind).
    let target = tree.home.join(".bashrc");
    std::fs::write(&target, "# the user's\n").unwrap();
    let command = super::command(
        &tree,
        &["--json", "run", SKILL, "scripts/probe.py", "--", "canary"],
    );
    let skills = command.get_program().to_owned();
    let args: Vec<_> = command.get_args().map(ToOwned::to_owned).collect();
    let output = Command::new("/bin/sh")
        .arg("-c")
        .arg(r#"target=$1; shift; exec 5>>"$target"; exec "$@""#)
        .arg("sh")
        .arg(&target)
        .arg(skills)
        .args(args)
        .current_dir(&tree.base)
        .envs(
            command
                .get_envs()
                .filter_map(|(key, value)| Some((key.to_owned(), value?.to_owned()))),
        )
        .output()
        .unwrap();
    let run = Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    };
    if let Some(missing) = missing_layer() {
        return assert_refused(&tree, &run, missing);
    }
    let report = probe_report(&run.json());
    assert_eq!(report["fd5"], "EBADF", "{report}");
    // 0, 1, 2 and the descriptor of its own listing.
    assert_eq!(report["fds"], json!([0, 1, 2, 3]), "{report}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "# the user's\n");
}

/// The two daemons' logs, their sizes now and half a second later: equal once nothing
/// writes them.
fn logs_still(tree: &Tree) -> bool {
    let sizes = || {
        ["setsid.log", "double.log"].map(|name| {
            std::fs::metadata(tree.workspace.join(name)).map_or(0, |metadata| metadata.len())
        })
    };
    let before = sizes();
    std::thread::sleep(Duration::from_millis(500));
    before == sizes()
}

/// Waits until the daemons script said it started.
fn wait_started(tree: &Tree) {
    let waiting = Instant::now();
    while !(tree.workspace.join("setsid.log").exists()
        && tree.workspace.join("double.log").exists())
    {
        assert!(
            waiting.elapsed() < Duration::from_secs(20),
            "the daemons never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn daemons_a_run_started_end_with_it_however_it_ends() {
    let (tree, _) = lab(&[("scripts/daemons.sh", DAEMONS_SH)], None);
    if let Some(missing) = missing_layer() {
        let run = tree.run(&["--json", "run", SKILL, "scripts/daemons.sh", "--", "exit"]);
        return assert_refused(&tree, &run, missing);
    }
    let assert_ended = |when: &str| {
        let left = leftovers(&tree.base);
        assert!(left.is_empty(), "{when}: still running: {left:?}");
        assert!(logs_still(&tree), "{when}: a daemon still writes");
        for name in ["setsid.log", "double.log"] {
            std::fs::remove_file(tree.workspace.join(name)).unwrap();
        }
    };

    // The script ends at once, its daemons with it.
    let run = tree.run(&["run", SKILL, "scripts/daemons.sh", "--", "exit"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("started"), "{run:?}");
    assert_ended("at the run's end");

    // At the deadline.
    let run = tree.run(&[
        "run",
        SKILL,
        "scripts/daemons.sh",
        "--timeout",
        "2",
        "--",
        "sleep",
    ]);
    assert_eq!(run.code, Some(124), "{run:?}");
    assert_ended("at the deadline");

    // At a cancel from another process.
    let child = spawn(&tree, &["run", SKILL, "scripts/daemons.sh", "--", "sleep"]);
    let run_id = running_run(&tree);
    wait_started(&tree);
    let cancel = tree.run(&["cancel", &run_id]);
    assert_eq!(cancel.code, Some(0), "{cancel:?}");
    let run = wait_within(child, Duration::from_secs(15));
    assert_eq!(run.code, Some(130), "{run:?}");
    assert_ended("at a cancel");

    // When `skills` itself dies without a word (SIGKILL: no handler runs).
    let mut child = spawn(&tree, &["run", SKILL, "scripts/daemons.sh", "--", "sleep"]);
    wait_started(&tree);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_ended("when the supervisor died");
}

#[test]
fn metadata_outside_the_workspace_is_unchanged_and_chmod_x_inside_works() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};

    let (tree, _) = lab(&[("scripts/metadata.py", METADATA_PY)], None);
    super::add_skill(
        &tree,
        crate::discovery::Place::UserOpenhuman,
        "locked-skill",
        &[("scripts/x.sh", "echo ran\n")],
        None,
    );
    tree.user_config("[permissions]\n\"locked-*\" = \"deny\"\n");
    let config = tree.home.join(".openhuman/skills.toml");
    let bashrc = tree.write(&tree.home.join(".bashrc"), "# the user's\n");
    let key = tree.write(&tree.home.join(".ssh/id_rsa"), "not a real key\n");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let elsewhere = tree.write(&tree.base.join("outside/file.txt"), "outside\n");
    let inside = tree.write(&tree.workspace.join("tool.sh"), "echo hi\n");
    std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o644)).unwrap();
    let targets = [&config, &bashrc, &key, &elsewhere];
    // An attribute for the script to try to remove, where the file system has user
    // attributes (set by another program than the code under test).
    let xattrs = Command::new("python3")
        .arg("-c")
        .arg("import os, sys\nfor p in sys.argv[1:]: os.setxattr(p, 'user.skills-before', b'1')")
        .args(targets)
        .status()
        .unwrap()
        .success();
    let before: Vec<_> = targets
        .iter()
        .map(|path| std::fs::metadata(path).unwrap())
        .collect();
    let mut args = vec!["--json", "run", SKILL, "scripts/metadata.py", "--"];
    let names: Vec<String> = std::iter::once(&inside)
        .chain(targets)
        .map(|path| path.display().to_string())
        .collect();
    args.extend(names.iter().map(String::as_str));
    let run = tree.run(&args);
    if let Some(missing) = missing_layer() {
        return assert_refused(&tree, &run, missing);
    }
    let report = probe_report(&run.json());
    for (path, before) in targets.iter().zip(&before) {
        let tried = &report[path.display().to_string()];
        for operation in ["chmod", "utime", "chown", "setxattr", "removexattr"] {
            let result = tried[operation].as_str().unwrap();
            // Refused as a read-only file system; an attribute call where the file system
            // has none of them says so instead, and is no change either.
            let refused = result == "EROFS" || (!xattrs && operation.ends_with("xattr"));
            assert!(
                refused,
                "{operation} {}: {result}: {report}",
                path.display()
            );
        }
        let after = std::fs::metadata(path).unwrap();
        assert_eq!(after.mode(), before.mode(), "{}", path.display());
        assert_eq!(after.mtime(), before.mtime(), "{}", path.display());
        assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    }
    if xattrs {
        let check = Command::new("python3")
            .arg("-c")
            .arg(
                "import os, sys\nfor p in sys.argv[1:]:\n    assert os.listxattr(p) == \
                 ['user.skills-before'], (p, os.listxattr(p))",
            )
            .args(targets)
            .status()
            .unwrap();
        assert!(
            check.success(),
            "an attribute changed outside the workspace"
        );
    }
    let inside_result = &report[inside.display().to_string()]["chmod +x"];
    assert_eq!(inside_result, "ok", "{report}");
    let mode = std::fs::metadata(&inside).unwrap().permissions().mode();
    assert_eq!(mode & 0o111, 0o111, "{mode:o}");

    // The home configuration is still the user's: its deny rule still holds.
    let denied = tree.run(&["--json", "run", "locked-skill", "scripts/x.sh"]);
    assert_eq!(error_kind(&denied), "denied", "{denied:?}");
    assert_eq!(std::fs::read_to_string(&config).unwrap().lines().count(), 2);
}

/// A machine that forbids unprivileged user namespaces, made for real: a user namespace of
/// the test's own whose `user.max_user_namespaces` is 0 (the limit is per namespace, so this
/// changes nothing outside it). Returns `None` when even that cannot be made here.
fn without_user_namespaces(program: &Path, args: &[&str], dir: &Path) -> Option<Run> {
    let output = Command::new("unshare")
        .args(["--user", "--map-root-user", "/bin/sh", "-c"])
        .arg(r#"echo 0 > /proc/sys/user/max_user_namespaces || exit 99; exec "$@""#)
        .arg("sh")
        .arg(program)
        .args(args)
        .current_dir(dir)
        .env_remove("SKILLS_HOME")
        .output()
        .ok()?;
    (output.status.code() != Some(99)).then(|| Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

#[test]
fn without_user_namespaces_runs_are_refused_never_run_with_fewer_layers() {
    let (tree, _) = lab(&[("scripts/probe.py", PROBE_PY)], None);
    // Simulated: the plan refuses before anything is registered.
    let simulated = tree.run_with(
        &["--json", "run", SKILL, "scripts/probe.py", "--", "x"],
        &[("SKILLS_TEST_NO_USER_NAMESPACES", "1")],
    );
    if super::sandbox::kernel_abi() >= 4 {
        assert_refused(&tree, &simulated, "user namespaces");
    } else {
        assert_refused(&tree, &simulated, "Landlock ABI 4");
    }

    // For real, through the command line and through the helper on its own (a wrong
    // decision upstream ends in the helper's refusal, never in a run).
    let binary = skills_tests::skills_binary();
    let workspace = tree.workspace.display().to_string();
    let home = tree.home.display().to_string();
    let Some(run) = without_user_namespaces(
        binary,
        &[
            "--workspace",
            &workspace,
            "--home",
            &home,
            "--json",
            "run",
            SKILL,
            "scripts/probe.py",
            "--",
            "x",
        ],
        &tree.base,
    ) else {
        // No util-linux `unshare`, or no user namespace at all: the machine itself is the
        // case, and the first test of this file asserts the refusal there.
        assert!(missing_layer().is_some());
        return;
    };
    if super::sandbox::kernel_abi() >= 4 {
        assert_refused(&tree, &run, "user namespaces");
        assert!(run.stdout.contains("max_user_namespaces"), "{run:?}");
    }
    let mark = tree.base.join("ran");
    let policy = json!({
        "abi": 4,
        "write_dirs": [tree.base],
        "write_files": [],
        "network": "allow",
        // `unshare` and `sh` exec in place: the helper's parent is this test.
        "supervisor": std::process::id(),
    })
    .to_string();
    let script = format!("echo ran > '{}'", mark.display());
    let helper = without_user_namespaces(
        binary,
        &[
            "__skills-sandbox-v2",
            &policy,
            "--",
            "/bin/sh",
            "-c",
            &script,
        ],
        &tree.base,
    )
    .unwrap();
    assert_eq!(helper.code, Some(125), "{helper:?}");
    assert!(
        helper
            .stderr
            .starts_with("skills sandbox refused: unprivileged user namespaces"),
        "{helper:?}"
    );
    assert!(!mark.exists(), "the helper ran the command");
}
