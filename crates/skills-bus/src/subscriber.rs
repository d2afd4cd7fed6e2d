//! [`TriggeredSkillSubscriber`]: a task turning bus events into [`Activation`]s.

use std::sync::{Arc, PoisonError, RwLock};

use skills_types::event::{Activation, Received, SkillsEvent};
use skills_types::{Catalog, Error};
use tokio::sync::mpsc;

use crate::bus::{EventBus, Subscription};
use crate::index::TriggeredSkillIndex;

/// Where the subscriber gets the catalog from (a discovery); called on a blocking thread.
pub type CatalogSource = Arc<dyn Fn() -> Result<Catalog, Error> + Send + Sync>;

/// The running subscriber. Dropping it stops the task.
#[derive(Debug)]
pub struct TriggeredSkillSubscriber {
    index: Arc<RwLock<TriggeredSkillIndex>>,
    task: tokio::task::JoinHandle<()>,
}

/// The activations a subscriber produces, in event order.
#[derive(Debug)]
pub struct Activations {
    receiver: mpsc::Receiver<Activation>,
}

impl Activations {
    /// The next activation; `None` once the subscriber has stopped.
    pub async fn recv(&mut self) -> Option<Activation> {
        self.receiver.recv().await
    }

    /// The next activation if one is waiting.
    pub fn try_recv(&mut self) -> Option<Activation> {
        self.receiver.try_recv().ok()
    }
}

impl TriggeredSkillSubscriber {
    /// Activations waiting for the core before the subscriber waits for it (and the bus,
    /// in turn, holds events for the subscriber).
    pub const CAPACITY: usize = 256;

    /// Subscribes to `bus`, builds the index from `source`, and starts the task on the
    /// current tokio runtime. Fails when the first catalog cannot be had, or when called
    /// outside a tokio runtime.
    pub async fn start(
        bus: &EventBus,
        source: CatalogSource,
    ) -> Result<(Self, Activations), Error> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| Error::NotConfigured {
            what: "the tokio runtime the trigger subscriber runs on".to_owned(),
            how: "start it from within a tokio runtime".to_owned(),
        })?;
        // Subscribe before reading the catalog, so nothing published meanwhile is missed.
        let subscription = bus.subscribe();
        let index = Arc::new(RwLock::new(build(&source).await?));
        let (sender, receiver) = mpsc::channel(Self::CAPACITY);
        let task = runtime.spawn(run(subscription, source, index.clone(), sender));
        Ok((Self { index, task }, Activations { receiver }))
    }

    /// The index as it stands.
    pub fn index(&self) -> TriggeredSkillIndex {
        self.index
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for TriggeredSkillSubscriber {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn build(source: &CatalogSource) -> Result<TriggeredSkillIndex, Error> {
    let source = source.clone();
    let catalog = tokio::task::spawn_blocking(move || source())
        .await
        .map_err(|error| Error::Interrupted {
            action: "discovery".to_owned(),
            reason: error.to_string(),
        })??;
    Ok(TriggeredSkillIndex::build(&catalog))
}

/// Rebuilds the index; a failed discovery keeps the last good index.
async fn rebuild(source: &CatalogSource, index: &RwLock<TriggeredSkillIndex>) {
    match build(source).await {
        Ok(fresh) => *index.write().unwrap_or_else(PoisonError::into_inner) = fresh,
        Err(error) => tracing::warn!("the trigger index keeps its last version: {error}"),
    }
}

async fn run(
    mut subscription: Subscription,
    source: CatalogSource,
    index: Arc<RwLock<TriggeredSkillIndex>>,
    sender: mpsc::Sender<Activation>,
) {
    while let Some(received) = subscription.recv().await {
        let event = match received {
            Received::Event(event) => event,
            Received::Lagged(missed) => {
                // A `catalog_changed` may be among the missed events.
                tracing::warn!("the trigger subscriber missed {missed} events");
                rebuild(&source, &index).await;
                continue;
            }
        };
        if SkillsEvent::CatalogChanged.is(&event) {
            rebuild(&source, &index).await;
        }
        let matching = index
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .matching(&event);
        for skill_id in matching {
            let activation = Activation {
                skill_id,
                event: event.clone(),
            };
            if sender.send(activation).await.is_err() {
                return; // Nobody consumes activations any more.
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::sync::Mutex;
    use std::time::Duration;

    use serde_json::json;
    use skills_types::DomainEvent;

    use super::*;
    use skills_tests::fixtures::skill;

    /// A catalog source the test changes at will.
    fn source(skills: &Arc<Mutex<Vec<skills_types::Skill>>>) -> CatalogSource {
        let skills = skills.clone();
        Arc::new(move || {
            Ok(Catalog {
                skills: skills
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone(),
                ..Catalog::default()
            })
        })
    }

    async fn next(activations: &mut Activations) -> Activation {
        tokio::time::timeout(Duration::from_secs(10), activations.recv())
            .await
            .unwrap_or_else(|_| panic!("no activation arrived"))
            .unwrap_or_else(|| panic!("the subscriber stopped"))
    }

    #[tokio::test]
    async fn a_skill_added_at_run_time_is_triggerable_after_catalog_changed() {
        let bus = EventBus::new(64);
        let skills = Arc::new(Mutex::new(vec![skill("cron-report", &["cron/daily"])]));
        let (subscriber, mut activations) = TriggeredSkillSubscriber::start(&bus, source(&skills))
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(subscriber.index().len(), 1);

        bus.publish(DomainEvent::new(
            "channel",
            "inbound_message",
            json!({"text": "hi"}),
        ));
        bus.publish(DomainEvent::new("Cron", "DAILY", json!(null)));
        let first = next(&mut activations).await;
        assert_eq!(
            first.skill_id, "cron-report",
            "the channel event matched nothing"
        );
        assert_eq!(first.event.slug, "DAILY");

        skills
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(skill("inbox", &["channel/inbound_message"]));
        bus.publish(DomainEvent::skills(
            SkillsEvent::CatalogChanged,
            json!({"added": ["inbox"], "changed": [], "removed": []}),
        ));
        bus.publish(DomainEvent::new(
            "channel",
            "inbound_message",
            json!({"text": "again"}),
        ));
        let second = next(&mut activations).await;
        assert_eq!(second.skill_id, "inbox");
        assert_eq!(second.event.payload["text"], "again");
        assert!(activations.try_recv().is_none());
    }

    #[tokio::test]
    async fn a_failed_rebuild_keeps_the_last_index() {
        let bus = EventBus::new(8);
        let calls = Arc::new(Mutex::new(0_u32));
        let counted = calls.clone();
        let source: CatalogSource = Arc::new(move || {
            let mut calls = counted.lock().unwrap_or_else(PoisonError::into_inner);
            *calls += 1;
            if *calls == 1 {
                Ok(Catalog {
                    skills: vec![skill("inbox", &["channel"])],
                    ..Catalog::default()
                })
            } else {
                Err(Error::InvalidInput("the disk went away".to_owned()))
            }
        });
        let (_subscriber, mut activations) = TriggeredSkillSubscriber::start(&bus, source)
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        bus.publish(DomainEvent::skills(SkillsEvent::CatalogChanged, json!({})));
        bus.publish(DomainEvent::new("channel", "x", json!(null)));
        assert_eq!(next(&mut activations).await.skill_id, "inbox");
        assert_eq!(*calls.lock().unwrap_or_else(PoisonError::into_inner), 2);
    }

    #[tokio::test]
    async fn dropping_the_subscriber_ends_the_activations() {
        let bus = EventBus::new(8);
        let skills = Arc::new(Mutex::new(vec![skill("inbox", &["channel"])]));
        let (subscriber, mut activations) = TriggeredSkillSubscriber::start(&bus, source(&skills))
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        drop(subscriber);
        let ended = tokio::time::timeout(Duration::from_secs(10), activations.recv()).await;
        assert_eq!(ended.ok(), Some(None));
    }

    #[test]
    fn starting_outside_a_runtime_is_an_error_not_a_panic() {
        let bus = EventBus::new(8);
        let skills = Arc::new(Mutex::new(Vec::new()));
        let started = poll_without_runtime(TriggeredSkillSubscriber::start(&bus, source(&skills)));
        assert!(matches!(started, Err(Error::NotConfigured { .. })));
    }

    /// Polls a future to completion without a runtime (the future under test must not need
    /// one to fail).
    fn poll_without_runtime<F: Future>(future: F) -> F::Output {
        let waker = std::task::Waker::noop();
        let mut context = std::task::Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut context) {
                return output;
            }
        }
    }
}
