//! Items on their way to a page that asks for them: a run's events, a workspace's changes.
//!
//! The page asks (`next_run_events`, `next_workspace_changes`) and gets everything since it
//! last asked, waiting when there is nothing yet. A Tauri channel would instead have the app
//! process evaluate a script in the page per item: the first evaluation starts a JavaScript
//! engine in the app process that stays (+3.3 MB, measured with the desktop floor), and each
//! one is a script the page compiles. An answer to a command comes back as the body of the
//! page's own request, and a fast stream is batched by the asking.
//!
//! A feed belongs to the window that opened it (by label): another window asking for it gets
//! nothing, as if it did not exist.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use paddock_protocol::Batch;
use tokio::sync::Notify;

/// Every open feed, by window label and number.
pub struct Feeds<T> {
    next: AtomicU64,
    open: Mutex<HashMap<Key, Arc<Feed<T>>>>,
}

/// A window's label and a feed's number.
type Key = (String, u64);

struct Feed<T> {
    state: Mutex<State<T>>,
    ready: Notify,
}

struct State<T> {
    items: Vec<T>,
    /// The writer is gone: what is held is the last.
    closed: bool,
    /// Its window closed or reloaded: nobody will ask, so nothing is kept.
    dropped: bool,
}

/// Puts items into one feed; dropping it closes the feed.
pub struct FeedWriter<T> {
    feed: Arc<Feed<T>>,
}

impl<T> Default for Feeds<T> {
    fn default() -> Self {
        Self {
            next: AtomicU64::new(1),
            open: Mutex::default(),
        }
    }
}

impl<T> Feeds<T> {
    /// A new feed for window `label`: its number, for the page to ask with, and its writer.
    pub fn open(&self, label: &str) -> (u64, FeedWriter<T>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let feed = Arc::new(Feed {
            state: Mutex::new(State {
                items: Vec::new(),
                closed: false,
                dropped: false,
            }),
            ready: Notify::new(),
        });
        lock(&self.open).insert((label.to_owned(), id), feed.clone());
        (id, FeedWriter { feed })
    }

    /// Everything feed `id` of window `label` holds, once it holds something or is closed.
    /// A feed that is not this window's (or no longer open) answers done and empty.
    pub async fn next(&self, label: &str, id: u64) -> Batch<T> {
        let key = (label.to_owned(), id);
        let Some(feed) = lock(&self.open).get(&key).cloned() else {
            return done();
        };
        loop {
            let ready = feed.ready.notified();
            {
                let mut state = lock(&feed.state);
                if state.dropped {
                    return done();
                }
                if !state.items.is_empty() || state.closed {
                    let batch = Batch {
                        items: std::mem::take(&mut state.items),
                        done: state.closed,
                    };
                    if batch.done {
                        lock(&self.open).remove(&key);
                    }
                    return batch;
                }
            }
            ready.await;
        }
    }

    /// Feed `id` of window `label` will not be asked for (its command failed).
    pub fn close(&self, label: &str, id: u64) {
        if let Some(feed) = lock(&self.open).remove(&(label.to_owned(), id)) {
            feed.drop_all();
        }
    }

    /// Window `label` closed or loaded a new page: its feeds go, and a page still waiting on
    /// one gets done.
    pub fn forget(&self, label: &str) {
        let mut open = lock(&self.open);
        let gone: Vec<_> = open.keys().filter(|(l, _)| l == label).cloned().collect();
        for key in gone {
            if let Some(feed) = open.remove(&key) {
                feed.drop_all();
            }
        }
    }

    /// How many feeds are open (for tests: nothing is left behind).
    pub fn len(&self) -> usize {
        lock(&self.open).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Feed<T> {
    fn drop_all(&self) {
        {
            let mut state = lock(&self.state);
            state.dropped = true;
            state.items = Vec::new();
        }
        self.wake();
    }

    fn wake(&self) {
        // `next` takes its `notified()` before it looks, so a wake between looking and
        // waiting is not lost.
        self.ready.notify_waiters();
    }
}

impl<T> FeedWriter<T> {
    pub fn push(&self, item: T) {
        {
            let mut state = lock(&self.feed.state);
            if state.dropped {
                return;
            }
            state.items.push(item);
        }
        self.feed.wake();
    }
}

impl<T> Drop for FeedWriter<T> {
    fn drop(&mut self) {
        lock(&self.feed.state).closed = true;
        self.feed.wake();
    }
}

fn done<T>() -> Batch<T> {
    Batch {
        items: Vec::new(),
        done: true,
    }
}

fn lock<S>(m: &Mutex<S>) -> MutexGuard<'_, S> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    type Strings = Feeds<String>;

    fn s(v: &str) -> String {
        v.to_owned()
    }

    #[tokio::test]
    async fn items_come_in_order_batched_and_the_feed_ends_once_read_out() {
        let feeds = Strings::default();
        let (id, writer) = feeds.open("project-1");
        writer.push(s("a"));
        writer.push(s("b"));
        assert_eq!(feeds.next("project-1", id).await.items, ["a", "b"]);
        writer.push(s("c"));
        drop(writer);
        let last = feeds.next("project-1", id).await;
        assert_eq!((last.items, last.done), (vec![s("c")], true));
        assert!(feeds.is_empty(), "a feed read to its end is gone");
        assert!(feeds.next("project-1", id).await.done);
    }

    #[tokio::test]
    async fn an_empty_feed_waits_for_its_next_item() {
        let feeds = Arc::new(Strings::default());
        let (id, writer) = feeds.open("w");
        let asking = tokio::spawn({
            let feeds = feeds.clone();
            async move { feeds.next("w", id).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!asking.is_finished(), "answered with nothing to give");
        writer.push(s("x"));
        let batch = tokio::time::timeout(Duration::from_secs(5), asking)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((batch.items, batch.done), (vec![s("x")], false));
    }

    /// Hostile: one window's page must not read (or drain) another window's feed.
    #[tokio::test]
    async fn another_window_gets_nothing_from_a_feed() {
        let feeds = Strings::default();
        let (id, writer) = feeds.open("project-a");
        writer.push(s("secret"));
        let other = feeds.next("main", id).await;
        assert_eq!((other.items.len(), other.done), (0, true));
        assert_eq!(feeds.next("project-a", id).await.items, ["secret"]);
    }

    #[tokio::test]
    async fn a_closed_window_frees_its_feeds_and_wakes_its_waiting_page() {
        let feeds = Arc::new(Strings::default());
        let (id, writer) = feeds.open("w");
        let (other, _keep) = feeds.open("v");
        let asking = tokio::spawn({
            let feeds = feeds.clone();
            async move { feeds.next("w", id).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        feeds.forget("w");
        let batch = tokio::time::timeout(Duration::from_secs(5), asking)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((batch.items.len(), batch.done), (0, true));
        // The run goes on writing: nothing is kept for a page that will not ask.
        writer.push(s("after"));
        assert!(lock(&writer.feed.state).items.is_empty());
        assert_eq!(feeds.len(), 1, "the other window's feed stays");
        feeds.close("v", other);
        assert!(feeds.is_empty());
    }
}
