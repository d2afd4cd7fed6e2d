//! Events through the facade (04 §The bus): each mutation publishes its own event and then
//! what it changed in the catalog; with the feature off the bus delivers nothing and triggers
//! are disabled.

use serde_json::json;
use skills::bus::{DomainEvent, EventBus, Received, SkillsEvent};
use skills::manage::{CreateSkill, UpdateSkill};
use skills::{Error, Skills, SkillsConfig};

#[expect(
    clippy::panic,
    reason = "a test helper: the panic message is the failure report"
)]
fn drain(subscription: &mut skills::bus::Subscription) -> Vec<DomainEvent> {
    let mut events = Vec::new();
    while let Some(received) = subscription.try_recv() {
        match received {
            Received::Event(event) => events.push(event),
            Received::Lagged(missed) => panic!("the test subscription lagged by {missed}"),
        }
    }
    events
}

fn kinds(events: &[DomainEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| format!("{}/{}", event.domain, event.slug))
        .collect()
}

#[test]
fn mutations_publish_their_event_then_the_catalog_change() {
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let bus = EventBus::new(64);
    let mut subscription = bus.subscribe();
    let skills =
        Skills::new(SkillsConfig::new(workspace.path(), home.path())).with_events(bus.clone());
    assert!(skills.events().is_some());

    let created = skills.create(&CreateSkill::new("pdf-tools", "Reads PDFs."));
    if !skills::ENABLED {
        assert!(matches!(created, Err(Error::Disabled)));
        assert!(
            drain(&mut subscription).is_empty(),
            "the stub bus never delivers"
        );
        return;
    }
    created.unwrap();
    let events = drain(&mut subscription);
    assert_eq!(kinds(&events), ["skills/created", "skills/catalog_changed"]);
    assert_eq!(events[0].payload["name"], "pdf-tools");
    assert_eq!(events[0].payload["scope"], "user");
    assert_eq!(
        events[1].payload,
        json!({ "added": ["pdf-tools"], "changed": [], "removed": [] })
    );
    assert!(events.iter().all(|event| event.at.ends_with('Z')));

    let mut changes = UpdateSkill::default();
    changes.description = Some("Reads and fills PDFs.".to_owned());
    skills.update("pdf-tools", &changes).unwrap();
    let events = drain(&mut subscription);
    assert_eq!(kinds(&events), ["skills/updated", "skills/catalog_changed"]);
    assert_eq!(
        events[1].payload,
        json!({ "added": [], "changed": ["pdf-tools"], "removed": [] })
    );

    // A discovery that finds nothing new publishes nothing.
    skills.discover().unwrap();
    assert!(drain(&mut subscription).is_empty());

    skills.uninstall("pdf-tools", None).unwrap();
    let events = drain(&mut subscription);
    assert_eq!(
        kinds(&events),
        ["skills/uninstalled", "skills/catalog_changed"]
    );
    assert_eq!(
        events[1].payload,
        json!({ "added": [], "changed": [], "removed": ["pdf-tools"] })
    );
    assert!(SkillsEvent::CatalogChanged.is(&events[1]));
}

#[test]
fn a_failed_mutation_publishes_nothing_and_a_handle_without_a_bus_publishes_nowhere() {
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let config = SkillsConfig::new(workspace.path(), home.path());
    let bus = EventBus::new(8);
    let mut subscription = bus.subscribe();
    let skills = Skills::new(config.clone()).with_events(bus);
    assert!(skills.uninstall("no-such-skill", None).is_err());
    assert!(drain(&mut subscription).is_empty());

    let quiet = Skills::new(config);
    assert!(quiet.events().is_none());
    if skills::ENABLED {
        quiet
            .create(&CreateSkill::new("a-skill", "Does a thing."))
            .unwrap();
        assert!(drain(&mut subscription).is_empty());
    }
}

#[test]
fn triggers_need_a_bus_and_are_disabled_in_the_stub() {
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let config = SkillsConfig::new(workspace.path(), home.path());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let without = Skills::new(config.clone()).start_triggers().await;
        assert!(matches!(without, Err(Error::NotConfigured { .. })));
        let with = Skills::new(config)
            .with_events(EventBus::default())
            .start_triggers()
            .await;
        if skills::ENABLED {
            let (subscriber, _activations) = with.unwrap();
            assert!(subscriber.index().is_empty());
        } else {
            assert!(matches!(with, Err(Error::Disabled)));
        }
    });
}

/// 04 §RPC: with the feature off the controller lists are empty, so a dispatcher over them
/// answers every method with -32601; with it on, every method of 04 is there.
#[test]
fn the_controller_lists_follow_the_feature() {
    use std::sync::Arc;

    use skills::rpc::{
        Dispatcher, all_skills_controller_schemas, all_skills_registered_controllers,
    };

    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let skills = Skills::new(SkillsConfig::new(workspace.path(), home.path()));
    let schemas = all_skills_controller_schemas();
    let controllers = all_skills_registered_controllers(Arc::new(skills));
    assert_eq!(schemas.len(), controllers.len());
    if skills::ENABLED {
        assert!(schemas.len() >= 18, "{} methods", schemas.len());
    } else {
        assert!(schemas.is_empty() && controllers.is_empty());
    }
    let dispatcher = Dispatcher::new(controllers);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let reply = runtime
        .block_on(dispatcher.handle_text(r#"{"jsonrpc":"2.0","id":1,"method":"skills.list"}"#))
        .reply
        .unwrap();
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    if skills::ENABLED {
        assert_eq!(reply["result"]["skills"], json!([]), "{reply}");
    } else {
        assert_eq!(reply["error"]["code"], -32_601, "{reply}");
    }
}
