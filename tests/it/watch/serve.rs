//! `skills serve` follows the files too (08 §The live catalog): once subscribed, a skill
//! written on disk is announced by a `skills.event` notification (`catalog_changed`, the same
//! payload as `skills watch`), `skills.list` includes it without a restart, and a skill
//! broken mid-edit is announced by `load_error` while `skills.list` keeps its last valid
//! version.

use std::collections::VecDeque;

use serde_json::{Value, json};

use super::{save_atomically, skill_text};
use crate::discovery::{Place, Tree};
use crate::serve::Connection;

/// A `skills serve` session: requests answered in order, `skills.event` notifications kept
/// aside until asked for (they may come before or after any response).
struct Client {
    server: Connection,
    events: VecDeque<Value>,
    next_id: u64,
}

impl Client {
    fn open(tree: &Tree) -> Self {
        Self {
            server: Connection::open(tree),
            events: VecDeque::new(),
            next_id: 0,
        }
    }

    /// The result of a call that must succeed.
    fn result(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.server.send(&request.to_string());
        loop {
            let message = self.server.next_message();
            if message["method"] == "skills.event" {
                self.events.push_back(message["params"].clone());
                continue;
            }
            assert_eq!(message["id"], id, "{method}: {message}");
            assert!(message.get("error").is_none(), "{method}: {message}");
            return message["result"].clone();
        }
    }

    /// The next `skills.event` notification's params (`{domain, slug, payload, at}`).
    fn event(&mut self) -> Value {
        if let Some(event) = self.events.pop_front() {
            return event;
        }
        loop {
            let message = self.server.next_message();
            if message["method"] == "skills.event" {
                return message["params"].clone();
            }
            assert!(
                message["method"].is_string(),
                "a response nobody asked for: {message}"
            );
        }
    }

    /// Events up to the first whose slug is `slug` and whose payload satisfies `wanted`;
    /// returns them all. Each read waits at most the server fixture's patience.
    fn events_until(&mut self, slug: &str, wanted: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            let event = self.event();
            assert_eq!(event["domain"], "skills", "{event}");
            let done = event["slug"] == slug && wanted(&event["payload"]);
            events.push(event);
            if done {
                return events;
            }
        }
    }

    /// The listed skill `id`, if listed.
    fn listed(&mut self, id: &str) -> Option<Value> {
        let listing = self.result("skills.list", json!({}));
        listing["skills"]
            .as_array()
            .unwrap_or_else(|| panic!("{listing}"))
            .iter()
            .find(|skill| skill["id"] == id)
            .cloned()
    }
}

fn lists(payload: &Value, field: &str, id: &str) -> bool {
    payload[field]
        .as_array()
        .is_some_and(|ids| ids.iter().any(|each| each == id))
}

#[test]
fn serve_announces_file_changes_and_lists_the_last_valid_version() {
    let tree = Tree::new();
    let root = tree.root(Place::UserOpenhuman);
    std::fs::create_dir_all(&root).unwrap();
    let mut client = Client::open(&tree);
    assert_eq!(
        client.result("skills.subscribe", json!({})),
        json!({ "subscribed": true })
    );
    assert!(client.listed("weather").is_none());

    let folder = root.join("weather");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(&folder, &skill_text("weather", "Forecasts for any city."));
    let events = client.events_until("catalog_changed", |payload| {
        lists(payload, "added", "weather")
    });
    assert!(
        !events
            .iter()
            .any(|event| lists(&event["payload"], "removed", "weather")),
        "{events:?}"
    );
    let skill = client
        .listed("weather")
        .unwrap_or_else(|| panic!("skills.list follows the files without a restart"));
    assert_eq!(skill["description"], "Forecasts for any city.", "{skill}");

    save_atomically(
        &folder,
        "---\nname: weather\ndescription: [broken mid-edit\n---\n# Weather\n",
    );
    let events = client.events_until("load_error", |_| true);
    let error = &events.last().unwrap()["payload"];
    assert_eq!(error["kept"], "weather", "{error}");
    assert_eq!(
        error["path"],
        folder.join("SKILL.md").display().to_string(),
        "{error}"
    );
    let kept = client
        .listed("weather")
        .unwrap_or_else(|| panic!("the last valid version stays listed"));
    assert_eq!(
        kept["description"], "Forecasts for any city.",
        "the last valid version, not the broken file: {kept}"
    );

    save_atomically(&folder, &skill_text("weather", "Rain and wind, fixed."));
    client.events_until("catalog_changed", |payload| {
        lists(payload, "changed", "weather")
    });
    let fixed = client.listed("weather").unwrap();
    assert_eq!(fixed["description"], "Rain and wind, fixed.", "{fixed}");
    assert!(client.server.finish().success());
}

/// The rest of the acceptance list, through one running server: a root created after it
/// started, a change written in place, 300 skills at once, a removal, and a workspace trusted
/// while it runs. Each is announced and in the next `skills.list`, without a restart.
#[test]
fn serve_follows_roots_bursts_removals_and_trust_without_a_restart() {
    let tree = Tree::new();
    let project = tree.root(Place::ProjectOpenhuman);
    tree.write(
        &project.join("proj-skill/SKILL.md"),
        skill_text("proj-skill", "Only for this repository."),
    );
    // No user root yet: the server waits for it from the folder above.
    let root = tree.root(Place::UserOpenhuman);
    assert!(!root.exists());
    let mut client = Client::open(&tree);
    assert_eq!(
        client.result("skills.subscribe", json!({})),
        json!({ "subscribed": true })
    );
    assert!(
        client.listed("proj-skill").is_none(),
        "an untrusted workspace's skills are not loaded"
    );

    tree.write(
        &root.join("late/SKILL.md"),
        skill_text("late", "In a root made after the start."),
    );
    client.events_until("catalog_changed", |payload| lists(payload, "added", "late"));
    assert!(client.listed("late").is_some());

    // A plain write in place (no rename), as `echo >>` or a simple editor does.
    std::fs::write(
        root.join("late/SKILL.md"),
        skill_text("late", "Changed in place."),
    )
    .unwrap();
    client.events_until("catalog_changed", |payload| {
        lists(payload, "changed", "late")
    });
    assert_eq!(
        client.listed("late").unwrap()["description"],
        "Changed in place."
    );

    for n in 0..300 {
        let name = format!("bulk-{n:03}");
        tree.write(
            &root.join(&name).join("SKILL.md"),
            skill_text(&name, "One of three hundred."),
        );
    }
    let mut added = std::collections::BTreeSet::new();
    while added.len() < 300 {
        let events = client.events_until("catalog_changed", |_| true);
        let payload = &events.last().unwrap()["payload"];
        added.extend(
            payload["added"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|id| id.as_str().map(str::to_owned)),
        );
    }
    let listing = client.result("skills.list", json!({}));
    assert_eq!(
        listing["skills"].as_array().unwrap().len(),
        301,
        "{listing}"
    );

    std::fs::remove_dir_all(root.join("late")).unwrap();
    client.events_until("catalog_changed", |payload| {
        lists(payload, "removed", "late")
    });
    assert!(client.listed("late").is_none());

    let workspace = tree.workspace.display().to_string();
    tree.run(&["trust", &workspace]).ok();
    client.events_until("catalog_changed", |payload| {
        lists(payload, "added", "proj-skill")
    });
    assert!(
        client.listed("proj-skill").is_some(),
        "trusted while running: the project's skills are loaded"
    );
    assert!(client.server.finish().success());
}
