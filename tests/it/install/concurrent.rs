//! Eight `skills install` processes racing for one slug (06 §Safety, Install/pack): the root's
//! install lock lets exactly one of them write; the other seven find the same content and say
//! so; the folder holds every file whole and no staging folder is left.
//!
//! The fixture holds back the last file of the skill until all eight processes have asked for
//! it, so all eight finish downloading at the same instant and reach the writing step together:
//! the race is forced, not hoped for.

use std::sync::{Arc, Barrier};

use serde_json::Value;
use skills_tests::http::{Reply, Server};
use skills_types::files::{LOCK_FILE, PROVENANCE_FILE};

use super::{
    Skill, command, content, files_of, keys, listed, pack_requests, read_json, serve_pack,
    staging_leftovers,
};
use crate::discovery::{Place, Tree};

/// How many processes race.
const RACERS: usize = 8;

#[test]
fn eight_concurrent_installs_of_one_slug_write_it_exactly_once() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let notes = "Step by step.\n".repeat(8 * 1024);
    let skill = Skill::new(
        "racer",
        "Wins races.",
        "Only one copy is ever written.",
        &[
            ("references/notes.md", notes.as_str()),
            ("scripts/run.py", "print('run')\n"),
        ],
    );
    let skills = [skill.clone()];
    let url = serve_pack(&server, "/race", &skills, "1.0.0");
    let last = pack_requests("/race", &skills).pop().unwrap();
    server.route(
        &last,
        Reply::Gated {
            body: skill.files["scripts/run.py"].clone(),
            gate: Arc::new(Barrier::new(RACERS)),
        },
    );

    // A generous deadline: should one racer never ask for the gated file, the others fail by
    // it instead of hanging the suite.
    let children: Vec<_> = (0..RACERS)
        .map(|_| {
            command(&tree, &["--json", "install", &url, "--timeout", "60"])
                .spawn()
                .unwrap()
        })
        .collect();
    let outcomes: Vec<Value> = children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            let stdout = String::from_utf8(output.stdout).unwrap();
            let stderr = String::from_utf8(output.stderr).unwrap();
            assert!(output.status.success(), "{stdout}\n{stderr}");
            let document: Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(document["installed"].as_array().unwrap().len(), 1);
            document["installed"][0].clone()
        })
        .collect();
    assert_eq!(
        server
            .targets()
            .iter()
            .filter(|target| **target == last)
            .count(),
        RACERS,
        "every racer downloaded the skill"
    );

    let writers = outcomes
        .iter()
        .filter(|outcome| outcome["already_installed"] == false)
        .count();
    assert_eq!(writers, 1, "exactly one install writes: {outcomes:#?}");
    for outcome in &outcomes {
        assert_eq!(outcome["replaced"], false, "{outcome}");
        assert_eq!(outcome["slug"], "racer");
        assert_eq!(outcome["sha256"], outcomes[0]["sha256"]);
        assert_eq!(outcome["path"], outcomes[0]["path"]);
    }

    let root = tree.root(Place::UserAgents);
    let dir = root.join("racer");
    assert_eq!(content(files_of(&dir)), skill.files, "a torn or mixed copy");
    assert_eq!(
        read_json(&dir.join(PROVENANCE_FILE))["sha256"],
        skill.digests()
    );
    let lock = read_json(&root.join(LOCK_FILE));
    assert_eq!(keys(&lock["skills"]), ["racer"]);
    assert_eq!(lock["skills"]["racer"]["sha256"], outcomes[0]["sha256"]);
    assert_eq!(staging_leftovers(&root), Vec::<String>::new());
    assert_eq!(listed(&tree).keys().collect::<Vec<_>>(), ["racer"]);
}
