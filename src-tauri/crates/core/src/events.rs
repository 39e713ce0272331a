//! Where a run's [`AgentEvent`]s go. The kernel only emits; hosts decide what to do.

use std::sync::{Arc, Mutex, PoisonError};

use paddock_protocol::AgentEvent;

/// A consumer of agent events. `emit` must not block: hosts buffer or forward.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: AgentEvent);
}

/// Drops every event.
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _event: AgentEvent) {}
}

/// Keeps every event in memory (tests, `--json` buffering), and wakes whoever waits for one.
#[derive(Debug, Default)]
pub struct CollectSink {
    events: Mutex<Vec<AgentEvent>>,
    arrived: tokio::sync::Notify,
}

impl CollectSink {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn events(&self) -> Vec<AgentEvent> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until the events so far satisfy `done` (checked now and after each event).
    pub async fn wait_until(&self, done: impl Fn(&[AgentEvent]) -> bool) {
        loop {
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            // Registered before the check, so an event between the two is not missed.
            arrived.as_mut().enable();
            if done(&self.events.lock().unwrap_or_else(PoisonError::into_inner)) {
                return;
            }
            arrived.await;
        }
    }
}

impl EventSink for CollectSink {
    fn emit(&self, event: AgentEvent) {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
        self.arrived.notify_waiters();
    }
}

impl EventSink for tokio::sync::mpsc::UnboundedSender<AgentEvent> {
    fn emit(&self, event: AgentEvent) {
        // A closed receiver means nobody is watching any more; the run goes on.
        let _ = self.send(event);
    }
}

/// Calls a closure for each event.
pub struct FnSink<F>(pub F);

impl<F: Fn(AgentEvent) + Send + Sync> EventSink for FnSink<F> {
    fn emit(&self, event: AgentEvent) {
        (self.0)(event);
    }
}

/// Sends every event to several sinks, in order.
pub struct Fanout(pub Vec<Arc<dyn EventSink>>);

impl EventSink for Fanout {
    fn emit(&self, event: AgentEvent) {
        if let Some((last, rest)) = self.0.split_last() {
            for sink in rest {
                sink.emit(event.clone());
            }
            last.emit(event);
        }
    }
}

/// Wraps a teammate's events as [`AgentEvent::Delegated`] before passing them up.
pub struct NestedSink {
    pub parent: Arc<dyn EventSink>,
    pub agent: String,
    pub depth: u32,
    pub call_id: String,
}

impl EventSink for NestedSink {
    fn emit(&self, event: AgentEvent) {
        self.parent.emit(AgentEvent::Delegated {
            agent: self.agent.clone(),
            depth: self.depth,
            call_id: self.call_id.clone(),
            event: Box::new(event),
        });
    }
}
