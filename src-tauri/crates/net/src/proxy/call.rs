//! A call: the group of connections one tool call makes through the proxy. Its connections
//! end with it (bash's network must not outlive the command), it may carry a byte cap, and
//! a question about a host is asked once per call, not once per connection.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{OnceCell, OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::{CancellationToken, DropGuard, WaitForCancellationFuture};

use crate::host::Host;
use crate::proxy::event::AskAnswer;

/// Connections one call may have open at once.
pub const MAX_CALL_CONNECTIONS: usize = 64;

/// What a call may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// Bytes both ways over all the call's connections; `None`: no cap.
    pub byte_cap: Option<u64>,
    pub max_connections: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits {
            byte_cap: None,
            max_connections: MAX_CALL_CONNECTIONS,
        }
    }
}

type AskCell = Arc<OnceCell<AskAnswer>>;

/// A handle on one call's connections; clones share them. `close` (or cancelling the token
/// it was made from, or dropping a `drop_guard`) ends every open connection of the call and
/// refuses new ones.
#[derive(Debug, Clone)]
pub struct Call {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    id: String,
    cancel: CancellationToken,
    limits: CallLimits,
    used: AtomicU64,
    permits: Arc<Semaphore>,
    /// One answer per host and port for the call's life (`Allow once` holds for the call:
    /// `npm install` opens dozens of connections to one registry).
    asked: Mutex<HashMap<(Host, u16), AskCell>>,
}

impl Call {
    pub fn new(id: impl Into<String>, limits: CallLimits) -> Self {
        Self::with_token(id, CancellationToken::new(), limits)
    }

    /// A call that also ends when `parent` is cancelled (a tool call's own token).
    pub fn child_of(id: impl Into<String>, parent: &CancellationToken, limits: CallLimits) -> Self {
        Self::with_token(id, parent.child_token(), limits)
    }

    fn with_token(id: impl Into<String>, cancel: CancellationToken, limits: CallLimits) -> Self {
        Call {
            inner: Arc::new(Inner {
                id: id.into(),
                cancel,
                limits,
                used: AtomicU64::new(0),
                permits: Arc::new(Semaphore::new(limits.max_connections)),
                asked: Mutex::new(HashMap::new()),
            }),
        }
    }

    pub fn id(&self) -> &str {
        &self.inner.id
    }

    pub fn limits(&self) -> CallLimits {
        self.inner.limits
    }

    /// Ends every open connection of the call; new ones are refused.
    pub fn close(&self) {
        self.inner.cancel.cancel();
    }

    pub fn is_closed(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Resolves when the call is closed.
    pub fn closed(&self) -> WaitForCancellationFuture<'_> {
        self.inner.cancel.cancelled()
    }

    /// Closes the call when dropped: hold it for the length of the tool call, so an early
    /// return or a panic still ends the connections.
    pub fn drop_guard(&self) -> DropGuard {
        self.inner.cancel.clone().drop_guard()
    }

    /// Bytes carried so far, both ways, over all the call's connections.
    pub fn bytes_used(&self) -> u64 {
        self.inner.used.load(Ordering::Relaxed)
    }

    pub(crate) fn cap_reached(&self) -> bool {
        self.inner
            .limits
            .byte_cap
            .is_some_and(|cap| self.bytes_used() >= cap)
    }

    /// Bytes the call may still carry (`u64::MAX` without a cap).
    pub(crate) fn remaining(&self) -> u64 {
        match self.inner.limits.byte_cap {
            Some(cap) => cap.saturating_sub(self.bytes_used()),
            None => u64::MAX,
        }
    }

    /// Takes up to `n` bytes from the call's allowance; returns how many may be carried.
    pub(crate) fn spend(&self, n: u64) -> u64 {
        let Some(cap) = self.inner.limits.byte_cap else {
            self.inner.used.fetch_add(n, Ordering::Relaxed);
            return n;
        };
        let before = self
            .inner
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                Some(used.saturating_add(n).min(cap.max(used)))
            })
            .unwrap_or_else(|used| used);
        n.min(cap.saturating_sub(before))
    }

    pub(crate) fn try_permit(&self) -> Option<OwnedSemaphorePermit> {
        self.inner.permits.clone().try_acquire_owned().ok()
    }

    /// The shared answer cell for one host and port; the first connection to ask fills it,
    /// the others wait on it.
    pub(crate) fn ask_cell(&self, host: &Host, port: u16) -> AskCell {
        let mut asked = match self.inner.asked.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        asked.entry((host.clone(), port)).or_default().clone()
    }
}
