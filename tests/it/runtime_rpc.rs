//! The runtime over `skills serve` (07 §Events, RPC, command line): a run started without
//! `wait` answers with its id at once, its output arrives as `skill_runtime.output`
//! notifications, a `cancel` sent on the same connection is answered while a run with
//! `wait: true` still holds its request, and the `finished` notifications carry the
//! cancelled status.
//!
//! The script sleeps far longer than the connection's patience, so a server that answered
//! runtime methods in order (the `cancel` queued behind the waiting `run`) fails here by
//! timing out instead of passing slowly.

use std::collections::VecDeque;

use serde_json::{Value, json};

use crate::discovery::{Place, Tree};
use crate::serve::Connection;

/// A script that says it started, then sleeps until it is stopped.
const SLOW: &str = "echo started\nsleep 60\necho 'not reached'\n";

/// A connection that keeps the notifications it reads while it waits for responses.
struct Session {
    connection: Connection,
    notifications: VecDeque<Value>,
    next_id: u64,
}

impl Session {
    fn open(tree: &Tree) -> Self {
        Self {
            connection: Connection::open(tree),
            notifications: VecDeque::new(),
            next_id: 100,
        }
    }

    /// Sends a request; returns its id.
    fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.connection.send(&request.to_string());
        id
    }

    /// The response to `id`; notifications read meanwhile are kept, and a response to
    /// another id is a failure (the test has only one request outstanding when it calls this,
    /// or says otherwise with [`Session::response_among`]).
    fn response(&mut self, id: u64) -> Value {
        let (response, others) = self.response_among(id, &[]);
        assert!(others.is_empty(), "{others:?}");
        response
    }

    /// The response to `id`, with the responses to any of `outstanding` that came first.
    fn response_among(&mut self, id: u64, outstanding: &[u64]) -> (Value, Vec<Value>) {
        let mut earlier = Vec::new();
        loop {
            let message = self.connection.next_message();
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            if message.get("id").is_none() {
                self.notifications.push_back(message);
            } else if message["id"] == id {
                return (message, earlier);
            } else if outstanding.iter().any(|other| message["id"] == *other) {
                earlier.push(message);
            } else {
                panic!("a response to an id not asked for: {message}");
            }
        }
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        let response = self.response(id);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// The next notification `method` about `run_id` that satisfies `wanted` (the ones
    /// before it stay queued for later calls).
    fn notification(&mut self, method: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            if let Some(position) = self
                .notifications
                .iter()
                .position(|message| message["method"] == method && wanted(&message["params"]))
            {
                let message = self.notifications.remove(position).unwrap();
                return message["params"].clone();
            }
            let message = self.connection.next_message();
            assert!(
                message.get("id").is_none(),
                "a response while waiting for {method}: {message}"
            );
            self.notifications.push_back(message);
        }
    }

    /// The run id of the first `started` output of a run not in `known`.
    fn started_run(&mut self, known: &[&str]) -> String {
        let params = self.notification("skill_runtime.output", |params| {
            params["stream"] == "stdout"
                && params["text"]
                    .as_str()
                    .is_some_and(|text| text.contains("started"))
                && params["run_id"]
                    .as_str()
                    .is_some_and(|id| !known.contains(&id))
        });
        params["run_id"].as_str().unwrap().to_owned()
    }

    fn finished(&mut self, run_id: &str) -> Value {
        self.notification("skill_runtime.finished", |params| {
            params["run_id"] == run_id
        })
    }
}

fn tree() -> Tree {
    let tree = Tree::new();
    tree.skill(Place::UserAgents, "slow", "slow", "Sleeps until stopped.");
    tree.write(
        &tree.root(Place::UserAgents).join("slow/scripts/slow.sh"),
        SLOW,
    );
    // The sandbox is not what this test is about; it must not depend on the kernel's.
    tree.user_config("[runtime]\nsandbox = \"off\"\n");
    tree
}

#[test]
fn runs_report_over_notifications_and_a_cancel_is_answered_mid_run() {
    let tree = tree();
    let mut session = Session::open(&tree);

    // Without `wait`: the id at once, while the script sleeps.
    let started = session.result(
        "skills.run",
        json!({ "skill_id": "slow", "script": "scripts/slow.sh", "confirmed": true }),
    );
    let first = started["run_id"].as_str().unwrap().to_owned();
    assert!(started.get("status").is_none(), "{started}");
    assert_eq!(session.started_run(&[]), first);

    // With `wait: true` the request stays open; the cancel for it, sent on the same
    // connection, is read and answered meanwhile (a server answering in order would leave
    // it queued behind the sleeping run). Which of the two answers is written first after
    // the signal is a race, so either order is accepted.
    let waiting = session.request(
        "skill_runtime.run",
        json!({ "skill_id": "slow", "script": "scripts/slow.sh", "confirmed": true, "wait": true }),
    );
    let second = session.started_run(&[&first]);
    let cancel = session.request("workflows.cancel", json!({ "run_id": second }));
    let (cancelled, mut earlier) = session.response_among(cancel, &[waiting]);
    assert_eq!(
        cancelled["result"],
        json!({ "cancelled": true }),
        "{cancelled}"
    );
    let outcome = earlier.pop().unwrap_or_else(|| session.response(waiting));
    assert_eq!(outcome["result"]["run_id"], second.as_str(), "{outcome}");
    assert_eq!(outcome["result"]["status"], "cancelled", "{outcome}");
    assert_eq!(outcome["result"]["cancelled"], true, "{outcome}");
    let finished = session.finished(&second);
    assert_eq!(finished["status"], "cancelled", "{finished}");

    // The first run is still going; it is cancelled by its canonical name, once.
    let result = session.result("skill_runtime.cancel", json!({ "run_id": first }));
    assert_eq!(result, json!({ "cancelled": true }));
    let finished = session.finished(&first);
    assert_eq!(finished["status"], "cancelled", "{finished}");
    assert_eq!(finished["outcome"]["run_id"], first.as_str(), "{finished}");
    assert!(
        !finished["outcome"]["stdout"]
            .as_str()
            .unwrap()
            .contains("not reached"),
        "{finished}"
    );
    let result = session.result("skills.cancel", json!({ "run_id": first }));
    assert_eq!(result, json!({ "cancelled": false }));

    // Both a script and inline code are invalid params, and nothing runs.
    let id = session.request(
        "skill_runtime.run",
        json!({ "skill_id": "slow", "script": "scripts/slow.sh", "inline": { "language": "sh", "code": "echo x" } }),
    );
    let refused = session.response(id);
    assert_eq!(refused["error"]["code"], -32_602, "{refused}");

    let runs = session.result("skill_runtime.recent_runs", json!({ "limit": 10 }));
    let statuses: Vec<&str> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["cancelled", "cancelled"], "{runs}");

    assert!(session.connection.finish().success());
    assert!(
        session
            .notifications
            .iter()
            .all(|message| message["method"] == "skill_runtime.output"),
        "{:?}",
        session.notifications
    );
}

/// A run the client leaves going when it closes stdin still ends before the server exits,
/// and its `finished` notification is the server's last word.
#[test]
fn the_end_of_stdin_waits_for_the_runs_it_started() {
    let tree = Tree::new();
    tree.skill(Place::UserAgents, "quick", "quick", "Sleeps briefly.");
    tree.write(
        &tree.root(Place::UserAgents).join("quick/scripts/quick.sh"),
        "sleep 1\necho done\n",
    );
    tree.user_config("[runtime]\nsandbox = \"off\"\n");
    let mut session = Session::open(&tree);
    let started = session.result(
        "skill_runtime.run",
        json!({ "skill_id": "quick", "script": "scripts/quick.sh", "confirmed": true }),
    );
    let run_id = started["run_id"].as_str().unwrap().to_owned();
    assert!(session.connection.finish().success());
    let last = session.connection.transcript_tail();
    let last: Value = serde_json::from_str(&last).unwrap();
    assert_eq!(last["method"], "skill_runtime.finished", "{last}");
    assert_eq!(last["params"]["run_id"], run_id.as_str(), "{last}");
    assert_eq!(last["params"]["status"], "succeeded", "{last}");
    assert!(
        last["params"]["outcome"]["stdout"]
            .as_str()
            .unwrap()
            .contains("done")
    );
}
