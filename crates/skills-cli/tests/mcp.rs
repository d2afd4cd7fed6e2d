//! `skills mcp` in the direction this binary was built: with the `mcp` feature, stdout carries
//! protocol messages only (an `initialize` is answered by a server named `skills`); without
//! it the command says how to get the server and writes nothing to stdout. CI runs this file
//! both ways (`--no-default-features` turns `mcp` off).

#![expect(
    clippy::unwrap_used,
    reason = "test helpers fail loudly at the line that broke, like the tests themselves"
)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `skills mcp` on empty folders with `input` on stdin, to its end.
fn mcp(input: &str) -> Output {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("--home")
        .arg(home.path())
        .arg("--workspace")
        .arg(workspace.path())
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[cfg(feature = "mcp")]
#[test]
fn stdout_holds_only_protocol_messages() {
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "test", "version": "0" },
        },
    });
    let output = mcp(&format!("{initialize}\n"));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let messages: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line:?}")))
        .collect();
    let answer = messages
        .iter()
        .find(|message| message["id"] == 1)
        .unwrap_or_else(|| panic!("no answer to initialize: {stdout:?}"));
    assert_eq!(answer["result"]["serverInfo"]["name"], "skills", "{answer}");
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-06-18",
        "{answer}"
    );
}

#[cfg(not(feature = "mcp"))]
#[test]
fn without_the_feature_it_says_how_to_get_the_server() {
    let output = mcp("");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("--features mcp"), "{stderr}");
}
