//! Declared tools through the built binary (07 §Tools, issue 14's "Tools" acceptance line):
//! `skills tools` lists a declared tool, a name no model API accepts is a validation
//! diagnostic and is not offered, `skill_runtime.execute_tool` over `skills serve` returns
//! the script's answer with its structured content and publishes the tool events with the
//! session id, and arguments that break the schema are refused before anything is spawned.
//!
//! The scripts only read stdin and their environment and print to stdout, so they run the
//! same under the default sandbox (`workspace-write`, `network = "deny"`) as without one.

use serde_json::{Value, json};

use super::{add_skill, log_files};
use crate::discovery::{Place, Tree};
use crate::serve::Connection;

/// A tool that answers with what it was given: the arguments from stdin and from
/// `SKILL_TOOL_ARGS`, and the tool's name.
const ECHO: &str = r#"import json, os, sys
given = json.load(sys.stdin)
from_env = json.loads(os.environ["SKILL_TOOL_ARGS"])
print(json.dumps({
    "greeting": "hello, " + given["who"],
    "same": given == from_env,
    "times": given.get("times", 1),
    "tool": os.environ["SKILL_TOOL_NAME"],
}))
"#;

/// Two tools: `echo` with a schema, and one whose offered name (`demo__bad name`) model
/// APIs refuse. The description carries an escape sequence a terminal would obey.
const SIDECAR: &str = r#"
[[tools]]
name = "echo"
description = "Greets who it is told to.\u001b[31m"
script = "scripts/echo.py"
category = "greetings"
parameters = { type = "object", properties = { who = { type = "string" }, times = { type = "integer", minimum = 1 } }, required = ["who"], additionalProperties = false }

[[tools]]
name = "bad name"
description = "Never offered."
script = "scripts/echo.py"
"#;

fn tree() -> Tree {
    let tree = Tree::new();
    add_skill(
        &tree,
        Place::UserOpenhuman,
        "demo",
        &[("scripts/echo.py", ECHO)],
        Some(SIDECAR),
    );
    tree
}

#[test]
fn skills_tools_lists_a_declared_tool_in_a_table_and_as_json() {
    let tree = tree();
    let table = tree.run(&["tools"]);
    let text = table.ok();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text:?}");
    let columns: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(&columns[..2], ["demo__echo", "allow"], "{text:?}");
    assert!(lines[0].contains("Greets who it is told to."), "{text:?}");
    assert!(
        !text.contains('\u{1b}'),
        "the description is sanitised: {text:?}"
    );

    let listed = tree.run(&["--json", "tools"]).json();
    let tools = listed.as_array().unwrap();
    assert_eq!(tools.len(), 1, "{listed}");
    let echo = &tools[0];
    assert_eq!(echo["name"], "demo__echo");
    assert_eq!(echo["skill"], "demo");
    assert_eq!(echo["tool"], "echo");
    assert_eq!(echo["category"], "greetings");
    assert_eq!(echo["permission_level"], "allow");
    assert_eq!(echo["scope"], "user");
    assert_eq!(echo["supports_markdown"], false);
    assert_eq!(echo["parameters"]["required"], json!(["who"]));
}

#[test]
fn an_invalid_tool_name_is_a_validation_diagnostic_and_is_not_offered() {
    let tree = tree();
    let dir = tree.root(Place::UserOpenhuman).join("demo");
    let report = tree
        .run(&["--json", "validate", &dir.display().to_string()])
        .json();
    let diagnostics = &report["reports"][0]["diagnostics"];
    let invalid: Vec<&Value> = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .filter(|diagnostic| diagnostic["code"] == "invalid-tool-name")
        .collect();
    assert_eq!(invalid.len(), 1, "{report}");
    assert!(
        invalid[0]["message"]
            .as_str()
            .unwrap()
            .contains("demo__bad name"),
        "{report}"
    );
    let listed = tree.run(&["--json", "tools"]).json();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["demo__echo"]);
}

/// One JSON-RPC conversation, keeping the notifications read while waiting for responses.
struct Session {
    connection: Connection,
    notifications: Vec<Value>,
    next_id: u64,
}

impl Session {
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.connection.send(&request.to_string());
        loop {
            let message = self.connection.next_message();
            if message.get("id").is_none() {
                self.notifications.push(message);
            } else {
                assert_eq!(message["id"], id, "{message}");
                return message;
            }
        }
    }

    /// The `skills.event` payloads of `slug` read so far, waiting for `count` of them.
    fn events(&mut self, slug: &str, count: usize) -> Vec<Value> {
        loop {
            let found: Vec<Value> = self
                .notifications
                .iter()
                .filter(|message| {
                    message["method"] == "skills.event" && message["params"]["slug"] == slug
                })
                .map(|message| message["params"]["payload"].clone())
                .collect();
            if found.len() >= count {
                return found;
            }
            let message = self.connection.next_message();
            assert!(message.get("id").is_none(), "{message}");
            self.notifications.push(message);
        }
    }
}

#[test]
fn execute_tool_over_serve_answers_with_the_scripts_json_and_refuses_bad_arguments_unspawned() {
    let tree = tree();
    let mut session = Session {
        connection: Connection::open(&tree),
        notifications: Vec::new(),
        next_id: 0,
    };
    let subscribed = session.call("skills.subscribe", json!({}));
    assert_eq!(subscribed["result"]["subscribed"], true, "{subscribed}");

    let listed = session.call("skill_runtime.list_tools", json!({}));
    assert_eq!(
        listed["result"]["tools"][0]["name"], "demo__echo",
        "{listed}"
    );

    let answer = session.call(
        "skill_runtime.execute_tool",
        json!({
            "tool_name": "demo__echo",
            "args": {"who": "Ada \"Countess\" Lovelace", "times": 2},
            "session_id": "chat-42",
        }),
    );
    let execution = &answer["result"];
    assert_eq!(execution["tool_name"], "demo__echo", "{answer}");
    assert!(execution["elapsed_ms"].is_u64(), "{answer}");
    let run_id = execution["run_id"].as_str().unwrap().to_owned();
    let result = &execution["result"];
    assert_eq!(result["isError"], false, "{answer}");
    let expected = json!({
        "greeting": "hello, Ada \"Countess\" Lovelace",
        "same": true,
        "times": 2,
        "tool": "demo__echo",
    });
    let content = result["content"].as_array().unwrap();
    assert_eq!(content.len(), 2, "{answer}");
    assert_eq!(content[0]["type"], "text");
    let text: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, expected);
    assert_eq!(content[1], json!({"type": "json", "data": expected}));

    let started = session.events("tool_started", 1);
    let finished = session.events("tool_finished", 1);
    for payload in [&started[0], &finished[0]] {
        assert_eq!(payload["session_id"], "chat-42", "{payload}");
        assert_eq!(payload["tool_name"], "demo__echo", "{payload}");
        assert_eq!(payload["skill"], "demo", "{payload}");
        assert_eq!(payload["run_id"], run_id.as_str(), "{payload}");
    }
    assert_eq!(finished[0]["is_error"], false);
    assert_eq!(finished[0]["elapsed_ms"], execution["elapsed_ms"]);

    // Arguments that break the schema: refused with every problem, nothing spawned.
    let refused = session.call(
        "skill_runtime.execute_tool",
        json!({"tool_name": "demo__echo", "args": {"times": 0, "shout": true}}),
    );
    let error = &refused["error"];
    assert_eq!(error["data"]["kind"], "invalid_input", "{refused}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("3 problems"), "{message}");
    assert!(message.contains("\"who\""), "{message}");
    assert!(message.contains("/times"), "{message}");
    assert!(message.contains("shout"), "{message}");

    let unknown = session.call(
        "skill_runtime.execute_tool",
        json!({"tool_name": "demo__ehco", "args": {}}),
    );
    assert_eq!(unknown["error"]["data"]["kind"], "not_found", "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean 'demo__echo'"),
        "{unknown}"
    );
    assert!(session.connection.finish().success());

    // Only the good call ran: one log, one run in `skills runs`.
    assert_eq!(log_files(&tree).len(), 1, "{:?}", log_files(&tree));
    let runs = tree.run(&["--json", "runs"]).json();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["run_id"], run_id.as_str());
    assert_eq!(runs[0]["status"], "succeeded");
}

/// A tool call holds its request until its script ends, but not the connection: a listing
/// is answered meanwhile, and a `cancel` of the tool's run ends the call with an error
/// result. A server that answered in order would time out here instead.
#[test]
fn a_tool_call_does_not_hold_the_connection_and_its_run_can_be_cancelled() {
    let tree = Tree::new();
    add_skill(
        &tree,
        Place::UserOpenhuman,
        "slow",
        &[(
            "scripts/slow.sh",
            "echo started\nsleep 60\necho 'not reached'\n",
        )],
        Some("[[tools]]\nname = \"wait\"\nscript = \"scripts/slow.sh\"\n"),
    );
    let mut connection = Connection::open(&tree);
    connection.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "skill_runtime.execute_tool",
                "params": {"tool_name": "slow__wait", "timeout_secs": 120}})
        .to_string(),
    );
    // The run's first output names it.
    let run_id = loop {
        let message = connection.next_message();
        assert!(
            message.get("id").is_none(),
            "an answer before the script ran: {message}"
        );
        if message["method"] == "skill_runtime.output" {
            break message["params"]["run_id"].as_str().unwrap().to_owned();
        }
    };
    connection.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "skill_runtime.list_tools", "params": {}})
            .to_string(),
    );
    let listed = loop {
        let message = connection.next_message();
        if message.get("id").is_some() {
            break message;
        }
    };
    assert_eq!(listed["id"], 2, "the listing came first: {listed}");
    assert_eq!(listed["result"]["tools"][0]["name"], "slow__wait");
    connection.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "skill_runtime.cancel",
                "params": {"run_id": run_id}})
        .to_string(),
    );
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let message = connection.next_message();
        if message.get("id").is_some() {
            answers.push(message);
        }
    }
    answers.sort_by_key(|answer| answer["id"].as_u64());
    let (call, cancel) = (&answers[0], &answers[1]);
    assert_eq!(cancel["result"]["cancelled"], true, "{cancel}");
    let result = &call["result"]["result"];
    assert_eq!(result["isError"], true, "{call}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("started\n"), "{text}");
    assert!(text.ends_with("[the run was cancelled]"), "{text}");
    assert!(!text.contains("not reached"), "{text}");
    assert!(connection.finish().success());
}
