//! `skills mcp` driven by a client we did not write: the official Python SDK's stdio client
//! (the `mcp` package on PyPI), installed into a throwaway virtual environment. The Rust
//! client in `mcp.rs` shares our SDK's reading of the protocol; this one does not, so it
//! catches the places where only rmcp would accept what we send. The conversation lives in
//! `mcp_python_client.py`, which asserts as it goes and prints its findings as one JSON
//! object, asserted again here so a failure reads the same from either side.
//!
//! POSIX only: the virtual environment's interpreter is `bin/python`, and the watchdog kills
//! the child's whole process group.
#![cfg(unix)]

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Value, json};

use crate::mcp::{LOGO, SPACED, SPACED_URI, tree};

/// The `mcp` release the test installs: pinned, so a new release cannot change the verdict
/// without a commit saying so.
const MCP_VERSION: &str = "2.3.0";

/// How long any one child (venv creation, pip, the client) may run before it is killed, so
/// a hung server or registry fails the test instead of stalling the suite.
pub(crate) const DEADLINE: Duration = Duration::from_secs(120);

#[test]
fn the_official_python_client_sees_the_catalog_tools_resources_and_prompts() {
    let tree = tree();
    let scratch = tempfile::tempdir().unwrap();
    let venv = scratch.path().join("venv");
    let created = output_within_deadline(
        Command::new("python3").arg("-m").arg("venv").arg(&venv),
        "`python3 -m venv`",
    );
    assert!(
        created.status.success(),
        "`python3 -m venv` failed ({}):\n{}",
        created.status,
        String::from_utf8_lossy(&created.stderr)
    );
    let python = venv.join("bin/python");
    let installed = output_within_deadline(
        Command::new(&python)
            .args(["-m", "pip", "install", "--disable-pip-version-check", "-q"])
            .args(["--timeout", "30"])
            .arg(format!("mcp=={MCP_VERSION}")),
        "`pip install mcp`",
    );
    assert!(
        installed.status.success(),
        "`pip install mcp=={MCP_VERSION}` failed ({}): the Python package registry (PyPI) \
         could not be reached or the install failed, so the official Python client could not \
         be tested. pip's stderr:\n{}",
        installed.status,
        String::from_utf8_lossy(&installed.stderr)
    );

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("it/mcp_python_client.py");
    let server_log = scratch.path().join("server.log");
    let mut client = Command::new(&python);
    client
        .arg(&script)
        .arg("--binary")
        .arg(skills_tests::skills_binary())
        .arg("--workspace")
        .arg(&tree.workspace)
        .arg("--home")
        .arg(&tree.home)
        .arg("--cwd")
        .arg(&tree.base)
        .arg("--logo-hex")
        .arg(hex(LOGO))
        .arg("--server-log")
        .arg(&server_log)
        .arg("--spaced-uri")
        .arg(SPACED_URI)
        .env_remove("COLUMNS");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("SKILLS_") {
            client.env_remove(key);
        }
    }
    let ran = output_within_deadline(&mut client, "the Python client");
    let stderr = String::from_utf8_lossy(&ran.stderr);
    let server_stderr = std::fs::read_to_string(&server_log).unwrap_or_default();
    assert!(
        ran.status.success(),
        "the Python client failed ({}); its stderr:\n{stderr}\nthe server's stderr:\n{server_stderr}",
        ran.status
    );
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let findings: Value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!("the client printed no JSON ({error}): {stdout}\nits stderr:\n{stderr}")
    });

    assert_eq!(
        findings["warnings"],
        json!([]),
        "the client found nothing to warn about"
    );
    assert_eq!(findings["server"]["name"], "skills", "{findings}");
    assert_eq!(
        findings["protocol_version"], "2025-11-25",
        "the newest revision both SDKs negotiate through `initialize`"
    );
    let instructions = findings["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("<available_skills>") && instructions.contains("demo"),
        "{instructions}"
    );
    assert_eq!(
        findings["tools"],
        json!([
            "load_skill",
            "read_skill_resource",
            "search_skills",
            "audit_skill",
            "run_skill_script",
            "demo__greet"
        ])
    );
    let loaded = findings["load_skill_text"].as_str().unwrap();
    assert!(loaded.contains("Body of demo."), "{loaded}");
    assert_eq!(
        findings["greet"],
        json!({ "is_error": false, "structured_content": { "greeting": "hello, python" } })
    );
    let unknown = &findings["unknown_skill"];
    assert_eq!(unknown["is_error"], true, "{unknown}");
    assert_eq!(unknown["kind"], "not_found", "{unknown}");
    assert_eq!(unknown["structured_content"], Value::Null, "{unknown}");
    assert!(
        unknown["text"]
            .as_str()
            .unwrap_or_default()
            .contains("no skill named 'no-such-skill'"),
        "{unknown}"
    );
    let resources = findings["resources"].as_array().unwrap();
    assert!(resources.contains(&json!(SPACED_URI)), "{resources:?}");
    assert_eq!(
        findings["uris_not_round_tripped"],
        json!([]),
        "every URI is one pydantic's AnyUrl takes and gives back as it was"
    );
    assert_eq!(findings["spaced"]["uri"], SPACED_URI);
    let spaced = findings["spaced"]["text"].as_str().unwrap_or_default();
    assert!(spaced.contains(&format!("Body of {SPACED}.")), "{spaced}");
    for uri in ["skill://demo/SKILL.md", "skill://demo/assets/logo.png"] {
        assert!(resources.contains(&json!(uri)), "{uri} in {resources:?}");
    }
    assert_eq!(
        findings["guide"],
        json!({ "mime_type": "text/markdown", "text": "# Guide\n\nStep one.\n" })
    );
    assert_eq!(
        findings["logo"],
        json!({ "mime_type": "image/png", "hex": hex(LOGO) })
    );
    assert_eq!(
        findings["traversal"]["data"]["kind"], "refused_path",
        "{}",
        findings["traversal"]
    );
    let prompts = findings["prompts"].as_array().unwrap();
    assert!(
        prompts.contains(&json!({
            "name": "demo",
            "arguments": [["count", true], ["title", false]]
        })),
        "{prompts:?}"
    );
    let prompt = findings["prompt_text"].as_str().unwrap();
    assert!(
        prompt.contains("Body of demo.") && prompt.contains("Report"),
        "{prompt}"
    );
}

/// Runs `command` to completion with its output captured, killing its process group if it
/// outlives [`DEADLINE`].
fn output_within_deadline(command: &mut Command, what: &str) -> Output {
    output_within(command, what, DEADLINE)
}

/// Runs `command` to completion with its output captured, killing its process group if it
/// outlives `deadline`.
pub(crate) fn output_within(command: &mut Command, what: &str, deadline: Duration) -> Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|error| panic!("{what} could not be started: {error}"));
    let group = Pid::from_raw(i32::try_from(child.id()).unwrap());
    let (finished, done) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let timed_out = done.recv_timeout(deadline) == Err(mpsc::RecvTimeoutError::Timeout);
        if timed_out {
            // Already gone is fine: the wait below then returns on its own.
            killpg(group, Signal::SIGKILL).ok();
        }
        timed_out
    });
    let output = child.wait_with_output().unwrap();
    drop(finished);
    let timed_out = watchdog.join().unwrap();
    assert!(
        !timed_out,
        "{what} did not finish within {deadline:?} and was killed; its stderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
