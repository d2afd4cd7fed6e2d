//! Triggers end to end (04 §Triggers): skills installed over the network at run time, through
//! the `Skills` handle an agent core holds, are activated by the events their `triggers`
//! name, and stop being activated once uninstalled.
//!
//! The subscriber is started before anything is installed, so every activation shown here
//! depends on the index being rebuilt on `catalog_changed`. No test sleeps: the subscriber
//! handles events in the order they were published, so "this event activated nothing" is
//! proven by publishing a later event some other skill matches and seeing that its activation
//! is the next one to arrive. Only the loopback fixture server is contacted.

use std::time::Duration;

use serde_json::json;
use skills::bus::{Activation, Activations, DomainEvent, EventBus};
use skills::{DiagnosticCode, Skills};
use skills_tests::http::Server;

use crate::discovery::Tree;

/// Long enough for a discovery on a loaded machine; a broken subscriber fails here instead of
/// hanging the suite.
const PATIENCE: Duration = Duration::from_secs(30);

/// A `SKILL.md` declaring `name` and `triggers` (YAML flow sequence, written verbatim).
fn skill_md(name: &str, triggers: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Answers when {name} is triggered.\ntriggers: {triggers}\n---\n# {name}\n\nReact to the event.\n"
    )
}

/// The next activation, or a failure naming what was awaited.
async fn next(activations: &mut Activations, awaited: &str) -> Activation {
    match tokio::time::timeout(PATIENCE, activations.recv()).await {
        Ok(Some(activation)) => activation,
        Ok(None) => panic!("the trigger subscriber stopped while awaiting {awaited}"),
        Err(_) => panic!("no activation within {PATIENCE:?} while awaiting {awaited}"),
    }
}

/// Asserts `activation` is `skill_id` woken by `domain/slug`.
fn assert_activation(activation: &Activation, skill_id: &str, domain: &str, slug: &str) {
    assert_eq!(
        (
            activation.skill_id.as_str(),
            activation.event.domain.as_str(),
            activation.event.slug.as_str()
        ),
        (skill_id, domain, slug),
        "{activation:?}"
    );
}

/// Installs the `SKILL.md` at `url`; returns the id (folder name) it was installed under.
async fn install(skills: &Skills, url: String) -> String {
    let outcomes = skills
        .install(&skills::install::Request::new(url.clone()))
        .await
        .unwrap_or_else(|error| panic!("installing {url}: {error}"));
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert!(!outcomes[0].already_installed, "{outcomes:?}");
    outcomes[0].slug.clone()
}

/// The acceptance test of triggers: install at run time, activate, ignore other events,
/// tolerate invalid patterns, uninstall and fall silent.
#[tokio::test]
async fn installed_skills_are_activated_by_their_triggers_until_uninstalled() {
    let server = Server::start().unwrap();
    server.text(
        "/inbox/SKILL.md",
        &skill_md("inbox-responder", "[channel/inbound_message]"),
    );
    server.text("/nightly/SKILL.md", &skill_md("nightly-report", "[cron]"));
    // Three patterns the grammar refuses around one it accepts.
    server.text(
        "/sloppy/SKILL.md",
        &skill_md(
            "sloppy-triggers",
            "[\"/inbound_message\", \"deploy/finished\", \"cron job\", \"channel/*bad\"]",
        ),
    );

    let tree = Tree::new();
    let mut config = tree.config();
    config.network.allow_loopback_http = true;
    let bus = EventBus::default();
    let skills = Skills::new(config).with_events(bus.clone());

    let (subscriber, mut activations) = skills.start_triggers().await.unwrap();
    assert!(
        subscriber.index().is_empty(),
        "nothing is installed yet: {:?}",
        subscriber.index()
    );

    let inbox = install(&skills, server.url("/inbox/SKILL.md")).await;
    let nightly = install(&skills, server.url("/nightly/SKILL.md")).await;
    let sloppy = install(&skills, server.url("/sloppy/SKILL.md")).await;
    assert_eq!(
        [inbox.as_str(), nightly.as_str(), sloppy.as_str()],
        ["inbox-responder", "nightly-report", "sloppy-triggers"]
    );
    let sloppy_codes: Vec<DiagnosticCode> = skills
        .get(&sloppy)
        .unwrap()
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.code)
        .collect();
    assert_eq!(
        sloppy_codes,
        [DiagnosticCode::TriggerInvalid; 3],
        "each invalid pattern is a diagnostic on its skill, not an error"
    );

    // Another slug of the same domain first: had it activated the inbox skill, that
    // activation would arrive before the inbound message's.
    bus.publish(DomainEvent::new(
        "channel",
        "outbound_message",
        json!({ "text": "sent" }),
    ));
    bus.publish(DomainEvent::new(
        "channel",
        "inbound_message",
        json!({ "text": "hello", "from": "ada" }),
    ));
    let activation = next(&mut activations, "the inbound message").await;
    assert_activation(&activation, &inbox, "channel", "inbound_message");
    assert_eq!(
        activation.event.payload,
        json!({ "text": "hello", "from": "ada" })
    );
    assert!(
        !activation.event.at.is_empty(),
        "the bus stamps the event's time"
    );

    // The skill with invalid patterns keeps its valid one, and breaks nobody else's.
    bus.publish(DomainEvent::new("cron", "tick", json!(null)));
    bus.publish(DomainEvent::new(
        "deploy",
        "finished",
        json!({ "ok": true }),
    ));
    assert_activation(
        &next(&mut activations, "the first tick").await,
        &nightly,
        "cron",
        "tick",
    );
    assert_activation(
        &next(&mut activations, "the deploy").await,
        &sloppy,
        "deploy",
        "finished",
    );

    let removed = skills.uninstall(&inbox, None).unwrap();
    assert_eq!(removed.name, inbox);
    assert!(!removed.path.exists(), "{}", removed.path.display());

    // The uninstall published `catalog_changed` before this event, so the index no longer
    // holds the inbox skill when the event is matched; the tick that follows is the proof.
    bus.publish(DomainEvent::new(
        "channel",
        "inbound_message",
        json!({ "text": "anyone there?" }),
    ));
    bus.publish(DomainEvent::new("cron", "tick", json!({ "second": true })));
    let activation = next(&mut activations, "the second tick").await;
    assert_activation(&activation, &nightly, "cron", "tick");
    assert_eq!(activation.event.payload, json!({ "second": true }));
    assert!(
        activations.try_recv().is_none(),
        "nothing else was activated"
    );
    assert_eq!(
        subscriber.index().len(),
        2,
        "the index holds the valid patterns of the two skills left"
    );
}

/// The trigger index follows the files when the handle watches them (08 §The live catalog):
/// a skill written into a root by something else (an editor, `git pull`) is activated by its
/// trigger once the watch has reported it, and falls silent once its folder is removed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watching_handle_activates_skills_written_behind_its_back() {
    let tree = Tree::new();
    let bus = EventBus::default();
    let skills = Skills::new(tree.config()).with_events(bus.clone());
    let (_subscriber, mut activations) = skills.start_triggers().await.unwrap();
    let mut watch = skills.watch(&skills::watch::Options::default()).unwrap();
    assert!(matches!(
        watch.next().await,
        Some(skills::watch::Event::Ready { skills: 0, .. })
    ));

    let root = tree.home.join(".openhuman/skills");
    tree.write(
        &root.join("inbox-responder/SKILL.md"),
        skill_md("inbox-responder", "[channel/inbound_message]"),
    );
    tree.write(
        &root.join("nightly/SKILL.md"),
        skill_md("nightly", "[cron]"),
    );
    // Both are reported (perhaps in two bursts) before any event is published: the
    // subscriber rebuilds its index on that `catalog_changed`, in bus order.
    let mut added = Vec::new();
    while added.len() < 2 {
        match tokio::time::timeout(PATIENCE, watch.next()).await {
            Ok(Some(skills::watch::Event::CatalogChanged { added: more, .. })) => {
                added.extend(more);
            }
            Ok(Some(_)) => {}
            Ok(None) => panic!("the watch stopped"),
            Err(_) => panic!("no change within {PATIENCE:?}; added so far: {added:?}"),
        }
    }
    added.sort();
    assert_eq!(added, ["inbox-responder", "nightly"]);

    bus.publish(DomainEvent::new("channel", "inbound_message", json!({})));
    let activation = next(&mut activations, "the inbox skill").await;
    assert_activation(&activation, "inbox-responder", "channel", "inbound_message");

    std::fs::remove_dir_all(root.join("inbox-responder")).unwrap();
    loop {
        match tokio::time::timeout(PATIENCE, watch.next()).await {
            Ok(Some(skills::watch::Event::CatalogChanged { removed, .. }))
                if removed == ["inbox-responder"] =>
            {
                break;
            }
            Ok(Some(_)) => {}
            Ok(None) => panic!("the watch stopped"),
            Err(_) => panic!("the removal was not reported within {PATIENCE:?}"),
        }
    }
    // The removed skill is silent: the next activation is the nightly one's.
    bus.publish(DomainEvent::new("channel", "inbound_message", json!({})));
    bus.publish(DomainEvent::new("cron", "tick", json!({})));
    let activation = next(&mut activations, "the nightly skill").await;
    assert_activation(&activation, "nightly", "cron", "tick");
}
