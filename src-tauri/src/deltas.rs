//! A run's events on their way to the page: text and thinking deltas that come within one
//! frame are merged into one event, everything else passes at once and in order. A fast model
//! sends hundreds of deltas a second; one event per frame keeps the run's feed short, and the
//! page shows at most one frame of them anyway.

use std::time::Duration;

use paddock_protocol::AgentEvent;
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout_at};

use paddock_host::EventSink;

/// How long a delta may wait for the next one to join it.
pub const FRAME: Duration = Duration::from_millis(16);
/// A merged delta is sent once it holds this much, whatever the time.
const MAX_MERGED_BYTES: usize = 64 * 1024;

/// A sink that merges deltas and hands every event to `out` on a task of its own (spawned
/// here: call it inside the Tokio runtime). The task ends, after sending what it holds, when
/// the sink is dropped.
pub fn merging(out: impl Fn(AgentEvent) + Send + Sync + 'static) -> MergingSink {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(forward(rx, out));
    MergingSink(tx)
}

pub struct MergingSink(mpsc::UnboundedSender<AgentEvent>);

impl EventSink for MergingSink {
    fn emit(&self, event: AgentEvent) {
        // The task ends only after the sink is gone: a send cannot fail while it lives.
        let _ = self.0.send(event);
    }
}

async fn forward(mut rx: mpsc::UnboundedReceiver<AgentEvent>, out: impl Fn(AgentEvent)) {
    let send = |event: Option<AgentEvent>| {
        if let Some(event) = event {
            out(event);
        }
    };
    let mut held: Option<AgentEvent> = None;
    let mut deadline = Instant::now();
    loop {
        let next = if held.is_some() {
            match timeout_at(deadline, rx.recv()).await {
                Ok(next) => next,
                Err(_) => {
                    send(held.take());
                    continue;
                }
            }
        } else {
            rx.recv().await
        };
        let Some(event) = next else {
            send(held.take());
            return;
        };
        match (&mut held, event) {
            (Some(AgentEvent::TextDelta { text: kept }), AgentEvent::TextDelta { text })
            | (
                Some(AgentEvent::ThinkingDelta { text: kept }),
                AgentEvent::ThinkingDelta { text },
            ) if kept.len() < MAX_MERGED_BYTES => kept.push_str(&text),
            (_, delta @ (AgentEvent::TextDelta { .. } | AgentEvent::ThinkingDelta { .. })) => {
                send(held.replace(delta));
                deadline = Instant::now() + FRAME;
            }
            (_, other) => {
                send(held.take());
                send(Some(other));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    fn text(t: &str) -> AgentEvent {
        AgentEvent::TextDelta { text: t.into() }
    }
    fn thinking(t: &str) -> AgentEvent {
        AgentEvent::ThinkingDelta { text: t.into() }
    }

    fn collecting() -> (MergingSink, Arc<Mutex<Vec<AgentEvent>>>) {
        let got = Arc::new(Mutex::new(Vec::new()));
        let into = got.clone();
        (merging(move |e| into.lock().unwrap().push(e)), got)
    }

    #[tokio::test(start_paused = true)]
    async fn deltas_of_one_frame_are_merged_and_everything_keeps_its_order() {
        let (sink, got) = collecting();
        sink.emit(AgentEvent::TurnStarted { turn: 1 });
        for t in ["Hel", "lo", " world"] {
            sink.emit(text(t));
        }
        sink.emit(thinking("hm"));
        sink.emit(thinking("m"));
        sink.emit(text("!"));
        sink.emit(AgentEvent::TurnStarted { turn: 2 });
        tokio::time::sleep(FRAME / 2).await;
        assert_eq!(
            *got.lock().unwrap(),
            [
                AgentEvent::TurnStarted { turn: 1 },
                text("Hello world"),
                thinking("hmm"),
                text("!"),
                AgentEvent::TurnStarted { turn: 2 },
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_held_delta_goes_out_after_a_frame_and_when_the_sink_is_dropped() {
        let (sink, got) = collecting();
        sink.emit(text("a"));
        tokio::time::sleep(FRAME / 2).await;
        sink.emit(text("b"));
        assert!(got.lock().unwrap().is_empty(), "held within the frame");
        tokio::time::sleep(FRAME).await;
        assert_eq!(*got.lock().unwrap(), [text("ab")]);
        sink.emit(text("c"));
        drop(sink);
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(*got.lock().unwrap(), [text("ab"), text("c")]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_merged_delta_never_grows_past_its_limit() {
        let (sink, got) = collecting();
        let chunk = "x".repeat(MAX_MERGED_BYTES / 2);
        for _ in 0..5 {
            sink.emit(text(&chunk));
        }
        drop(sink);
        tokio::time::sleep(Duration::from_millis(1)).await;
        let sizes: Vec<usize> = got
            .lock()
            .unwrap()
            .iter()
            .map(|e| match e {
                AgentEvent::TextDelta { text } => text.len(),
                _ => 0,
            })
            .collect();
        assert_eq!(
            sizes,
            [MAX_MERGED_BYTES, MAX_MERGED_BYTES, MAX_MERGED_BYTES / 2]
        );
    }
}
