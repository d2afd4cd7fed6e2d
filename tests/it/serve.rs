//! `skills serve` end to end (04 §RPC): the built binary on a throwaway home and workspace,
//! driven the way an agent core drives it, one line written, one line read.
//!
//! One session walks the methods an agent uses (subscribe, create, list, describe, read a
//! bundled file, validate, render, read, an alias, uninstall) and checks the event
//! notifications the mutations cause; the other sends every kind of bad message and checks
//! each is answered with its JSON-RPC code while the server keeps answering. Both end by
//! closing stdin: the server exits 0 having written nothing but JSON-RPC lines to stdout.
//!
//! Every read waits at most [`PATIENCE`], so a server that hangs or dies fails the test with
//! its stderr instead of hanging the suite.

use std::collections::VecDeque;
use std::io::Write;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

use crate::discovery::{Tree, text};

/// How long one line may take to arrive.
const PATIENCE: Duration = Duration::from_secs(30);

/// A running `skills serve` and the lines it has written so far (also driven by the
/// runtime's RPC tests).
pub(crate) struct Connection {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Every stdout line read, in order, for the final check.
    transcript: Vec<String>,
    /// `skills.event` notifications read while waiting for a response.
    events: VecDeque<Value>,
    stderr: Arc<Mutex<String>>,
    next_id: u64,
}

impl Connection {
    /// `skills --home H --workspace W serve` on `tree`.
    pub(crate) fn open(tree: &Tree) -> Self {
        Self::open_with(tree, &[])
    }

    /// [`Connection::open`] with extra environment variables.
    pub(crate) fn open_with(tree: &Tree, env: &[(&str, &str)]) -> Self {
        let mut command = skills_tests::skills();
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command
            .current_dir(&tree.base)
            .arg("--home")
            .arg(&tree.home)
            .arg("--workspace")
            .arg(&tree.workspace)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let skills_tests::pipes::Pipes { lines, stderr } =
            skills_tests::pipes::Pipes::take(&mut child);
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            transcript: Vec::new(),
            events: VecDeque::new(),
            stderr,
            next_id: 0,
        }
    }

    pub(crate) fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Writes one line.
    pub(crate) fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next stdout line, whatever it is.
    fn next_line(&mut self) -> String {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => {
                self.transcript.push(line.clone());
                line
            }
            Err(RecvTimeoutError::Timeout) => {
                panic!("no line within {PATIENCE:?}; stderr:\n{}", self.stderr())
            }
            Err(RecvTimeoutError::Disconnected) => panic!(
                "the server closed stdout; status {:?}, stderr:\n{}",
                self.child.try_wait(),
                self.stderr()
            ),
        }
    }

    /// The next stdout line, parsed.
    pub(crate) fn next_message(&mut self) -> Value {
        let line = self.next_line();
        serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line}"))
    }

    /// The next message that is not a `skills.event` notification (those are kept for
    /// [`Connection::event`]): events are forwarded by another task than the one answering,
    /// so they may come before or after the response of the call that caused them.
    fn response(&mut self) -> Value {
        loop {
            let message = self.next_message();
            if message["method"] == "skills.event" {
                self.events.push_back(message);
            } else {
                return message;
            }
        }
    }

    /// The next `skills.event` notification.
    fn event(&mut self) -> Value {
        let message = match self.events.pop_front() {
            Some(message) => message,
            None => self.next_message(),
        };
        assert_eq!(message["method"], "skills.event", "{message}");
        assert!(message.get("id").is_none(), "a notification: {message}");
        message["params"].clone()
    }

    /// Events up to and including the next `catalog_changed`, as `(slug, payload)`.
    fn events_through_catalog_changed(&mut self) -> Vec<(String, Value)> {
        let mut events = Vec::new();
        loop {
            let event = self.event();
            assert_eq!(event["domain"], "skills", "{event}");
            assert!(event["at"].as_str().is_some_and(|at| !at.is_empty()));
            let slug = event["slug"].as_str().unwrap().to_owned();
            let done = slug == "catalog_changed";
            events.push((slug, event["payload"].clone()));
            if done {
                return events;
            }
        }
    }

    /// A request with a fresh id; returns the whole response after checking its id.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send(&request.to_string());
        let response = self.response();
        assert_eq!(response["jsonrpc"], "2.0", "{response}");
        assert_eq!(response["id"], id, "{method}: {response}");
        response
    }

    /// The result of a call that must succeed.
    fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.call(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// The error of a call that must fail with `code`.
    fn error(&mut self, method: &str, params: Value, code: i64) -> Value {
        let response = self.call(method, params);
        assert!(response.get("result").is_none(), "{method}: {response}");
        assert_eq!(response["error"]["code"], code, "{method}: {response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .is_some_and(|message| !message.is_empty()),
            "{response}"
        );
        response["error"].clone()
    }

    /// Proof the server still answers: a listing.
    fn assert_alive(&mut self) {
        let listing = self.result("skills.list", json!({}));
        assert!(listing["skills"].is_array(), "{listing}");
    }

    /// The last stdout line read.
    pub(crate) fn transcript_tail(&self) -> String {
        self.transcript.last().cloned().unwrap_or_default()
    }

    /// Closes stdin and waits for the exit; every stdout line must have been a JSON-RPC 2.0
    /// message. Returns the exit status.
    pub(crate) fn finish(&mut self) -> ExitStatus {
        drop(self.stdin.take());
        loop {
            match self.lines.recv_timeout(PATIENCE) {
                Ok(line) => self.transcript.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!(
                    "stdout still open {PATIENCE:?} after stdin closed; stderr:\n{}",
                    self.stderr()
                ),
            }
        }
        let status = self.child.wait().unwrap();
        assert!(!self.transcript.is_empty());
        for line in &self.transcript {
            let message: Value = serde_json::from_str(line).unwrap_or_else(|error| {
                panic!("stdout held a line that is not JSON ({error}): {line}")
            });
            let messages = match message {
                Value::Array(batch) => batch,
                one => vec![one],
            };
            for message in messages {
                assert_eq!(message["jsonrpc"], "2.0", "{line}");
            }
        }
        status
    }
}

impl Drop for Connection {
    /// A test that failed mid-session leaves no server behind.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            drop(self.child.kill());
            drop(self.child.wait());
        }
    }
}

/// Asserts a `-32000` error names `kind` in its data.
fn assert_kind(error: &Value, kind: &str) {
    assert_eq!(error["code"], -32_000, "{error}");
    assert_eq!(error["data"]["kind"], kind, "{error}");
}

fn ids(listing: &Value) -> Vec<&str> {
    listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["id"].as_str().unwrap())
        .collect()
}

const NAME: &str = "release-notes";
const DESCRIPTION: &str = "Drafts release notes from merged pull requests.";
const BODY: &str =
    "# Release notes\n\nGroup the merged pull requests by area, then read references/guide.md.\n";
const GUIDE: &str = "# Guide\n\nOne line per change, newest first.\n";

/// The methods an agent core uses, in one session, with the events the mutations publish.
#[test]
fn a_session_creates_reads_validates_and_uninstalls_a_skill_with_events() {
    let tree = Tree::new();
    let mut server = Connection::open(&tree);

    assert_eq!(
        server.result("skills.subscribe", json!({})),
        json!({ "subscribed": true })
    );
    assert!(ids(&server.result("skills.list", json!({}))).is_empty());

    let written = server.result(
        "skills.create",
        json!({ "name": NAME, "description": DESCRIPTION, "body": BODY, "tags": ["git", "docs"] }),
    );
    let dir = tree.home.join(".agents/skills").join(NAME);
    assert_eq!(written["name"], NAME, "{written}");
    assert_eq!(written["scope"], "user", "{written}");
    assert_eq!(written["dir"], text(&dir), "{written}");
    assert_eq!(
        written["location"],
        text(&dir.join("SKILL.md")),
        "{written}"
    );

    let events = server.events_through_catalog_changed();
    let slugs: Vec<&str> = events.iter().map(|(slug, _)| slug.as_str()).collect();
    assert_eq!(slugs, ["created", "catalog_changed"], "{events:?}");
    assert_eq!(events[0].1["name"], NAME, "{events:?}");
    assert_eq!(
        events[1].1,
        json!({ "added": [NAME], "changed": [], "removed": [] })
    );

    let listing = server.result("skills.list", json!({}));
    assert_eq!(ids(&listing), [NAME], "{listing}");
    assert_eq!(listing["skills"][0]["description"], DESCRIPTION);
    assert_eq!(listing["skills"][0]["scope"], "user");

    std::fs::create_dir_all(dir.join("references")).unwrap();
    std::fs::write(dir.join("references/guide.md"), GUIDE).unwrap();
    // The server watches the files: a bundled file written behind its back changes the
    // skill (its record is the same, its files are not), and nothing else is reported: the
    // create's own file events were no news.
    let events = server.events_through_catalog_changed();
    assert_eq!(
        events,
        [(
            "catalog_changed".to_owned(),
            json!({ "added": [], "changed": [NAME], "removed": [] })
        )],
        "{events:?}"
    );

    let skill = server.result("skills.describe", json!({ "id": NAME }));
    assert_eq!(skill["id"], NAME, "{skill}");
    assert_eq!(skill["frontmatter"]["name"], NAME, "{skill}");
    assert_eq!(skill["frontmatter"]["description"], DESCRIPTION, "{skill}");
    assert_eq!(skill["dir"], text(&dir), "{skill}");
    let resources = skill["resources"].as_array().unwrap();
    assert!(
        resources.contains(&json!({
            "path": "references/guide.md",
            "size": GUIDE.len(),
            "kind": "reference"
        })),
        "{skill}"
    );

    let resource = server.result(
        "skills.read_resource",
        json!({ "id": NAME, "relative_path": "references/guide.md" }),
    );
    assert_eq!(
        resource,
        json!({ "id": NAME, "relative_path": "references/guide.md", "content": GUIDE, "bytes": GUIDE.len() })
    );
    for escape in ["../x", "references/../../x", "/etc/passwd"] {
        let error = server.error(
            "skills.read_resource",
            json!({ "id": NAME, "relative_path": escape }),
            -32_000,
        );
        assert_kind(&error, "refused_path");
    }
    let error = server.error(
        "skills.read_resource",
        json!({ "id": "no-such-skill", "relative_path": "SKILL.md" }),
        -32_000,
    );
    assert_kind(&error, "not_found");

    // Absolute inside the home, and relative to the workspace.
    let report = server.result("skills.validate", json!({ "path": text(&dir) }));
    assert_eq!(report["valid"], true, "{report}");
    assert_eq!(report["name"], NAME, "{report}");
    assert_eq!(report["profile"], "agentskills", "{report}");
    let draft = tree.write(
        &tree.workspace.join("drafts/Bad_Name/SKILL.md"),
        "---\nname: Bad_Name\ndescription: A draft whose name breaks the naming rule.\n---\n# Draft\n",
    );
    let report = server.result(
        "skills.validate",
        json!({ "path": "drafts/Bad_Name", "strict": true }),
    );
    assert_eq!(report["valid"], false, "{report}");
    assert_eq!(report["strict"], true, "{report}");
    assert_eq!(report["file"], text(&draft), "{report}");
    assert!(!report["diagnostics"].as_array().unwrap().is_empty());
    for outside in ["/etc", "..", "../../.."] {
        let error = server.error("skills.validate", json!({ "path": outside }), -32_000);
        assert_kind(&error, "refused_path");
    }

    let rendered = server.result("skills.render_catalog", json!({ "format": "markdown" }));
    let markdown = rendered["text"].as_str().unwrap();
    assert!(markdown.starts_with("## Installed Skills\n"), "{markdown}");
    assert!(
        markdown.contains(&format!("- **{NAME}**: {DESCRIPTION}")),
        "{markdown}"
    );
    // A pin that names no skill is refused over RPC as on the command line.
    let error = server.error(
        "skills.render_catalog",
        json!({ "format": "markdown", "pinned": [NAME, "no-such-pin"] }),
        -32_602,
    );
    assert_eq!(error["data"]["kind"], "invalid_input", "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("'no-such-pin'"),
        "{error}"
    );

    let read = server.result("skills.read", json!({ "ids": [NAME] }));
    let bodies = read["skills"].as_array().unwrap();
    assert_eq!(bodies.len(), 1, "{read}");
    assert_eq!(bodies[0]["id"], NAME);
    assert_eq!(bodies[0]["dir"], text(&dir));
    // The body is the file's text after the frontmatter, verbatim: with the blank line
    // `create` puts between the two.
    assert_eq!(bodies[0]["body"], format!("\n{BODY}"), "{read}");

    // The alias answers what `skills.list` answers. The audit marks are left out of the
    // comparison: the server's watch audits a changed skill on a worker thread, so a verdict
    // may be recorded (a `stale` mark turning `current`) between the two calls.
    let unmarked = |mut listing: Value| {
        for skill in listing["skills"].as_array_mut().into_iter().flatten() {
            if let Some(fields) = skill.as_object_mut() {
                fields.remove("audit");
            }
        }
        listing
    };
    let alias = unmarked(server.result("skills.skills_list", json!({})));
    assert_eq!(alias["skills"][0]["id"], NAME, "{alias}");
    assert_eq!(alias, unmarked(server.result("skills.list", json!({}))));

    let removed = server.result("skills.uninstall", json!({ "name": NAME }));
    assert_eq!(
        removed,
        json!({ "name": NAME, "scope": "user", "path": text(&dir), "was_link": false, "links": [] })
    );
    assert!(!dir.exists());
    let events = server.events_through_catalog_changed();
    let slugs: Vec<&str> = events.iter().map(|(slug, _)| slug.as_str()).collect();
    assert_eq!(slugs, ["uninstalled", "catalog_changed"], "{events:?}");
    assert_eq!(
        events[1].1,
        json!({ "added": [], "changed": [], "removed": [NAME] })
    );
    assert!(ids(&server.result("skills.list", json!({}))).is_empty());
    let error = server.error("skills.describe", json!({ "id": NAME }), -32_000);
    assert_kind(&error, "not_found");

    let status = server.finish();
    assert_eq!(status.code(), Some(0), "stderr:\n{}", server.stderr());
    assert!(server.events.is_empty(), "{:?}", server.events);
}

/// Every kind of bad message is answered with its code (or, for a notification, not at all)
/// and the server answers the next request.
#[test]
fn bad_messages_are_answered_and_the_server_keeps_answering() {
    let tree = Tree::new();
    let mut server = Connection::open(&tree);

    for malformed in [
        "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\"",
        "not json",
        "\u{7f}",
    ] {
        server.send(malformed);
        let response = server.next_message();
        assert_eq!(response["jsonrpc"], "2.0", "{response}");
        assert_eq!(response["id"], Value::Null, "{malformed}: {response}");
        assert_eq!(
            response["error"]["code"], -32_700,
            "{malformed}: {response}"
        );
        server.assert_alive();
    }

    server.send(r#"{"jsonrpc": "2.0", "id": "x", "method": 7}"#);
    let response = server.next_message();
    assert_eq!(response["id"], "x", "{response}");
    assert_eq!(response["error"]["code"], -32_600, "{response}");
    server.assert_alive();

    let error = server.error("skills.no_such_method", json!({}), -32_601);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("skills.no_such_method"),
        "{error}"
    );
    server.assert_alive();

    for (method, params) in [
        ("skills.list", json!({ "include_everything": true })),
        ("skills.describe", json!({ "id": "x", "verbose": true })),
        ("skills.describe", json!({})),
        ("skills.read", json!({ "ids": "not-a-list" })),
        ("skills.subscribe", json!({ "topics": ["skills"] })),
        ("skills.render_catalog", json!({ "format": "html" })),
    ] {
        server.error(method, params, -32_602);
        server.assert_alive();
    }

    // A batch of two requests and a notification: two responses, in request order.
    server.send(
        &json!([
            { "jsonrpc": "2.0", "id": "first", "method": "skills.list" },
            { "jsonrpc": "2.0", "method": "skills.list" },
            { "jsonrpc": "2.0", "id": "second", "method": "skills.no_such_method" },
        ])
        .to_string(),
    );
    let batch = server.next_message();
    let responses = batch.as_array().unwrap_or_else(|| panic!("{batch}"));
    assert_eq!(responses.len(), 2, "{batch}");
    assert_eq!(responses[0]["id"], "first", "{batch}");
    assert!(responses[0]["result"]["skills"].is_array(), "{batch}");
    assert_eq!(responses[1]["id"], "second", "{batch}");
    assert_eq!(responses[1]["error"]["code"], -32_601, "{batch}");
    server.assert_alive();

    // Notifications get no response, even when they fail: the line after each is the
    // response to the request that followed it (nobody subscribed, so no events interleave).
    for notification in [
        json!({ "jsonrpc": "2.0", "method": "skills.list" }),
        json!({ "jsonrpc": "2.0", "method": "skills.no_such_method" }),
        json!({ "jsonrpc": "2.0", "method": "skills.list", "params": { "bogus": 1 } }),
    ] {
        server.send(&notification.to_string());
        server.send(r#"{"jsonrpc": "2.0", "id": "after", "method": "skills.list"}"#);
        let next = server.next_message();
        assert_eq!(next["id"], "after", "{notification} was answered: {next}");
        assert!(next["result"]["skills"].is_array(), "{next}");
    }

    let status = server.finish();
    assert_eq!(status.code(), Some(0), "stderr:\n{}", server.stderr());
    assert!(server.events.is_empty(), "{:?}", server.events);
}

/// A long-running server refreshes a remote pack (`urls`) in the background, off every
/// request's path: the pack's index is held at the fixture until the test lets it go, the
/// server answers meanwhile, and the copy it fetched is listed after the `catalog_changed` the
/// refresh publishes.
#[test]
fn serve_refreshes_remote_packs_in_the_background() {
    use std::sync::Barrier;

    use skills_tests::http::{Reply, Server};

    let tree = Tree::new();
    let fixture = Server::start().unwrap();
    let gate = Arc::new(Barrier::new(2));
    let index = json!({"skills": [{"name": "team-style", "files": ["SKILL.md"]}]});
    fixture.route(
        "/pack/index.json",
        Reply::Gated {
            body: index.to_string().into_bytes(),
            gate: gate.clone(),
        },
    );
    fixture.text(
        "/pack/team-style/SKILL.md",
        "---\nname: team-style\ndescription: The team's style.\n---\nUse tabs.\n",
    );
    tree.write(
        &tree.home.join(".openhuman/skills.toml"),
        format!("urls = [\"{}\"]\n", fixture.url("/pack/index.json")),
    );
    let mut server = Connection::open_with(&tree, &[(super::install::ALLOW_LOCAL_HTTP, "1")]);
    assert_eq!(
        server.result("skills.subscribe", json!({})),
        json!({ "subscribed": true })
    );
    // The refresh is held at the fixture, and the server still answers.
    assert!(ids(&server.result("skills.list", json!({}))).is_empty());

    let (released, arrived) = mpsc::channel();
    thread::spawn(move || {
        gate.wait();
        released.send(()).ok();
    });
    arrived.recv_timeout(PATIENCE).unwrap_or_else(|_| {
        panic!(
            "the server never fetched the pack; stderr:\n{}",
            server.stderr()
        )
    });
    let events = server.events_through_catalog_changed();
    assert_eq!(events.last().unwrap().0, "catalog_changed", "{events:?}");
    let listed = server.result("skills.list", json!({}));
    assert_eq!(ids(&listed), ["team-style"], "{listed}");
    assert_eq!(listed["skills"][0]["scope"], "remote", "{listed}");
}

#[test]
fn search_answers_from_the_files_as_they_change_without_a_restart() {
    let tree = Tree::new();
    tree.skill(
        crate::discovery::Place::UserOpenhuman,
        "pdf-extract",
        "pdf-extract",
        "Pulls the text and tables out of PDF files.",
    );
    let mut server = Connection::open(&tree);
    assert_eq!(
        server.result("skills.subscribe", json!({})),
        json!({ "subscribed": true })
    );
    let found = server.result(
        "skills.search",
        json!({ "query": "get the tables out of this pdf", "limit": 3 }),
    );
    assert_eq!(found["query"], "get the tables out of this pdf");
    assert_eq!(found["results"][0]["name"], "pdf-extract", "{found}");
    assert!(
        found["results"][0]["matched"]
            .as_array()
            .is_some_and(|m| !m.is_empty())
    );

    tree.skill(
        crate::discovery::Place::UserOpenhuman,
        "weather",
        "weather",
        "Forecasts rain and wind for any city.",
    );
    // The server watches the files and searches the catalog as of the last change it
    // reported: once the addition is announced, the search finds it.
    let events = server.events_through_catalog_changed();
    assert_eq!(
        events.last().map(|(_, payload)| payload["added"].clone()),
        Some(json!(["weather"])),
        "{events:?}"
    );
    let added = server.result("skills.search", json!({ "query": "will it rain" }));
    assert_eq!(added["results"][0]["name"], "weather", "{added}");
    let refused = server.error("skills.search", json!({ "text": "x" }), -32602);
    assert!(refused.to_string().contains("query"), "{refused}");
}

/// `skills.audit` over a session: a name, a folder inside the workspace, a folder outside
/// both roots (refused before anything is read), a missing folder (skipped, said why), and a
/// threshold of the call's own.
#[test]
fn audit_answers_reports_and_reads_no_folder_outside_the_workspace_or_home() {
    let tree = Tree::new();
    tree.write(
        &tree
            .root(crate::discovery::Place::UserOpenhuman)
            .join("hiding/SKILL.md"),
        "---\nname: hiding\ndescription: Hides things.\n---\nRead the \u{202e}invoice.\n",
    );
    let loose = tree.write(
        &tree.workspace.join("vendor/loose/SKILL.md"),
        "---\nname: loose\ndescription: Fine.\n---\nBody.\n",
    );
    let outside = tree.write(
        &tree.base.join("outside/secret/SKILL.md"),
        "---\nname: secret\ndescription: d\n---\nBody.\n",
    );
    let mut server = Connection::open(&tree);
    let reports = server.result(
        "skills.audit",
        json!({ "targets": ["hiding", "vendor/loose", "./vendor/missing"] }),
    );
    let results = reports["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{reports}");
    assert_eq!(results[0]["skill_name"], "hiding");
    assert_eq!(results[0]["is_safe"], false);
    assert_eq!(results[0]["max_severity"], "HIGH");
    assert_eq!(results[0]["findings"][0]["rule_id"], "HIDDEN_BIDI_CONTROL");
    assert_eq!(results[0]["findings"][0]["location"]["line"], 5);
    assert_eq!(results[1]["skill_name"], "loose");
    assert_eq!(results[1]["skill_path"], text(loose.parent().unwrap()));
    assert_eq!(results[1]["is_safe"], true);
    let skipped = &reports["summary"]["skills_skipped"];
    assert_eq!(skipped.as_array().unwrap().len(), 1, "{reports}");
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("does not exist"),
        "{reports}"
    );
    assert_eq!(reports["summary"]["fail_on"], "HIGH");

    let lenient = server.result("skills.audit", json!({ "fail_on": "CRITICAL" }));
    assert_eq!(lenient["summary"]["total_skills_scanned"], 1, "{lenient}");
    assert_eq!(lenient["summary"]["safe_skills"], 1, "{lenient}");

    let refused = server.error(
        "skills.audit",
        json!({ "targets": [text(outside.parent().unwrap())] }),
        -32_000,
    );
    assert_kind(&refused, "refused_path");
    server.error("skills.audit", json!({ "target": "hiding" }), -32602);
    server.assert_alive();
    assert!(server.finish().success());
}
