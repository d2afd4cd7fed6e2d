//! `skills serve` in the direction this binary was built: with the `skills` feature it answers
//! the methods of 04; without it every method is unknown (`-32601`), `skills schemas` lists
//! none, and the server still survives every message. CI runs this file both ways.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers fail loudly at the line that broke, like the tests themselves"
)]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Sends `lines` to a fresh `skills serve` and returns its stdout, one JSON value per line.
fn serve(lines: &[Value]) -> Vec<Value> {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("--home")
        .arg(home.path())
        .arg("--workspace")
        .arg(workspace.path())
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn request(id: u64, method: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method })
}

#[test]
fn every_method_is_answered_as_the_build_direction_says() {
    let methods = [
        "skills.list",
        "skills.describe",
        "skills.subscribe",
        "skills.skills_list",
        "skill_registry.browse",
    ];
    let requests: Vec<Value> = methods
        .iter()
        .zip(1..)
        .map(|(method, id)| request(id, method))
        .collect();
    let replies = serve(&requests);
    assert_eq!(replies.len(), methods.len(), "{replies:?}");
    for (reply, (method, id)) in replies.iter().zip(methods.iter().zip(1..)) {
        assert_eq!(reply["id"], id, "{reply}");
        let code = reply["error"]["code"].as_i64();
        if cfg!(feature = "skills") {
            assert_ne!(code, Some(-32_601), "{method} must be known: {reply}");
        } else {
            assert_eq!(code, Some(-32_601), "{method} must be unknown: {reply}");
        }
    }
}

#[test]
fn the_server_survives_bad_messages_and_stays_quiet_for_notifications() {
    let replies = serve(&[
        json!("not an object"),
        json!([]),
        json!({ "jsonrpc": "2.0", "method": "skills.list" }),
        request(9, "skills.list"),
    ]);
    assert_eq!(
        replies.len(),
        3,
        "the notification gets no reply: {replies:?}"
    );
    assert_eq!(replies[0]["error"]["code"], -32_600);
    assert_eq!(replies[1]["error"]["code"], -32_600);
    assert_eq!(replies[2]["id"], 9);
}

#[test]
fn schemas_lists_the_methods_of_this_build() {
    let output = Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("schemas")
        .output()
        .unwrap();
    assert!(output.status.success());
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let methods = document["methods"].as_array().unwrap();
    if cfg!(feature = "skills") {
        assert!(
            methods
                .iter()
                .any(|method| method["method"] == "skills.install_from_url")
        );
        assert!(methods.iter().all(|method| method["params"].is_object()));
    } else {
        assert!(methods.is_empty());
    }
}
