//! [`EventBus`]: a bounded tokio broadcast channel behind a small API.

use skills_types::event::{DomainEvent, EventSink, Received};
use tokio::sync::broadcast;

/// The event bus: cheap to clone, every clone publishes into the same channel.
#[derive(Clone, Debug)]
pub struct EventBus {
    sender: broadcast::Sender<DomainEvent>,
}

impl EventBus {
    /// How many events a subscriber may fall behind before it starts missing them.
    pub const DEFAULT_CAPACITY: usize = 1024;

    /// A bus keeping up to `capacity` events (at least 1) for each subscriber.
    pub fn new(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity.max(1));
        Self { sender }
    }

    /// Publishes `event`, stamping its time when it has none; returns how many subscribers
    /// it reached (none is fine: the event is dropped).
    pub fn publish(&self, mut event: DomainEvent) -> usize {
        if event.at.is_empty() {
            event.at = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
        }
        self.sender.send(event).unwrap_or(0)
    }

    /// A subscription to every event published from now on.
    pub fn subscribe(&self) -> Subscription {
        Subscription {
            receiver: self.sender.subscribe(),
        }
    }

    /// How many subscriptions are open.
    pub fn subscriber_count(&self) -> usize {
        self.sender.receiver_count()
    }
}

impl Default for EventBus {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAPACITY)
    }
}

impl EventSink for EventBus {
    fn publish(&self, event: DomainEvent) {
        EventBus::publish(self, event);
    }
}

/// One subscriber's view of the bus.
#[derive(Debug)]
pub struct Subscription {
    receiver: broadcast::Receiver<DomainEvent>,
}

impl Subscription {
    /// The next event, or how many were missed; `None` once every bus handle is gone.
    pub async fn recv(&mut self) -> Option<Received> {
        match self.receiver.recv().await {
            Ok(event) => Some(Received::Event(event)),
            Err(broadcast::error::RecvError::Lagged(missed)) => Some(Received::Lagged(missed)),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }

    /// The next event if one is waiting (or how many were missed); `None` when none is.
    pub fn try_recv(&mut self) -> Option<Received> {
        match self.receiver.try_recv() {
            Ok(event) => Some(Received::Event(event)),
            Err(broadcast::error::TryRecvError::Lagged(missed)) => Some(Received::Lagged(missed)),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(slug: &str) -> DomainEvent {
        DomainEvent::new("test", slug, serde_json::Value::Null)
    }

    fn expect_event(received: Option<Received>) -> DomainEvent {
        match received {
            Some(Received::Event(event)) => event,
            other => panic!("expected an event, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn every_subscriber_sees_every_later_event_stamped() {
        let bus = EventBus::new(8);
        assert_eq!(bus.publish(event("before")), 0, "nobody listens yet");
        let mut first = bus.subscribe();
        let mut second = bus.clone().subscribe();
        assert_eq!(bus.subscriber_count(), 2);
        assert_eq!(bus.publish(event("one")), 2);
        for subscription in [&mut first, &mut second] {
            let received = expect_event(subscription.recv().await);
            assert_eq!(received.slug, "one");
            assert!(received.at.ends_with('Z'), "{}", received.at);
        }
        assert!(first.try_recv().is_none());
    }

    #[tokio::test]
    async fn a_lagging_subscriber_is_told_what_it_missed_and_keeps_going() {
        let bus = EventBus::new(2);
        let mut slow = bus.subscribe();
        for index in 0..5 {
            bus.publish(event(&format!("e{index}")));
        }
        assert_eq!(slow.recv().await, Some(Received::Lagged(3)));
        assert_eq!(expect_event(slow.recv().await).slug, "e3");
        assert_eq!(expect_event(slow.recv().await).slug, "e4");
        bus.publish(event("e5"));
        assert_eq!(expect_event(slow.try_recv()).slug, "e5");
    }

    #[tokio::test]
    async fn a_subscription_ends_when_the_bus_is_gone() {
        let bus = EventBus::default();
        let mut subscription = bus.subscribe();
        drop(bus);
        assert_eq!(subscription.recv().await, None);
    }

    #[test]
    fn a_given_time_is_kept() {
        let bus = EventBus::new(1);
        let mut subscription = bus.subscribe();
        let mut stamped = event("x");
        stamped.at = "2026-01-01T00:00:00Z".to_owned();
        bus.publish(stamped.clone());
        assert_eq!(expect_event(subscription.try_recv()), stamped);
    }
}
