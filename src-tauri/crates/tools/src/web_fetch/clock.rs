//! web_fetch's time limit, which stops while the user is asked about a host: the limit is
//! for the network, and a person reading an approval card is not the network being slow.
//! The question itself is bounded by the proxy (`paddock_net::proxy::ASK_TIMEOUT`).

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use paddock_wall::network::Asker;

/// A time limit that pauses while any question asked through `pausing` waits.
pub(super) struct Clock {
    limit: Duration,
    state: Mutex<State>,
    changed: Notify,
}

struct State {
    started: Instant,
    /// Questions waiting for their answer now.
    asking: usize,
    /// Time spent on questions already answered.
    asked: Duration,
    /// When the first of the questions now waiting was asked.
    since: Option<Instant>,
}

impl Clock {
    pub(super) fn new(limit: Duration) -> Arc<Self> {
        Arc::new(Self {
            limit,
            state: Mutex::new(State {
                started: Instant::now(),
                asking: 0,
                asked: Duration::ZERO,
                since: None,
            }),
            changed: Notify::new(),
        })
    }

    /// `asker`, with the clock stopped while it waits for an answer.
    pub(super) fn pausing(self: &Arc<Self>, asker: Asker) -> Asker {
        let clock = self.clone();
        Arc::new(move |request| {
            let (clock, asker) = (clock.clone(), asker.clone());
            Box::pin(async move {
                let _paused = Paused::start(clock);
                asker(request).await
            })
        })
    }

    /// `work`'s output, or `None` when the time ran out first.
    pub(super) async fn run<F: Future>(&self, work: F) -> Option<F::Output> {
        tokio::select! {
            out = work => Some(out),
            () = self.expired() => None,
        }
    }

    /// Resolves once the limit has passed with no question waiting.
    async fn expired(&self) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let (asking, deadline) = {
                let s = lock(&self.state);
                (s.asking > 0, s.started + self.limit + s.asked)
            };
            if asking {
                changed.await;
                continue;
            }
            if Instant::now() >= deadline {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep_until(deadline) => {}
                () = changed => {}
            }
        }
    }
}

/// One question waiting; dropped (answered or abandoned), the clock goes on.
struct Paused(Arc<Clock>);

impl Paused {
    fn start(clock: Arc<Clock>) -> Self {
        {
            let mut s = lock(&clock.state);
            if s.asking == 0 {
                s.since = Some(Instant::now());
            }
            s.asking += 1;
        }
        clock.changed.notify_waiters();
        Self(clock)
    }
}

impl Drop for Paused {
    fn drop(&mut self) {
        {
            let mut s = lock(&self.0.state);
            s.asking = s.asking.saturating_sub(1);
            if s.asking == 0
                && let Some(since) = s.since.take()
            {
                s.asked += since.elapsed();
            }
        }
        self.0.changed.notify_waiters();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_net::AskRequest;

    fn request() -> AskRequest {
        serde_json::from_value(serde_json::json!({
            "call": "c", "method": "CONNECT", "host": "h", "port": 443,
            "decision": {"verdict": "ask", "rule": null, "why": "no rule"}
        }))
        .unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn the_limit_holds_and_stops_while_a_question_waits() {
        let clock = Clock::new(Duration::from_secs(10));
        assert!(
            clock
                .run(tokio::time::sleep(Duration::from_secs(11)))
                .await
                .is_none()
        );

        let clock = Clock::new(Duration::from_secs(10));
        let slow: Asker = Arc::new(|_| {
            Box::pin(async {
                tokio::time::sleep(Duration::from_secs(50)).await;
                true
            })
        });
        let asker = clock.pausing(slow);
        let work = async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            assert!(asker(request()).await);
            tokio::time::sleep(Duration::from_secs(4)).await;
        };
        assert!(clock.run(work).await.is_some(), "59 s, 50 of them asking");
        let work = tokio::time::sleep(Duration::from_secs(2));
        assert!(clock.run(work).await.is_none(), "the clock went on after");
    }
}
