//! A call: the group of connections one tool call makes through the proxy. Its connections
//! end with it (bash's network must not outlive the command), it may carry a byte cap, and
//! a question about a host is asked once per call, not once per connection.

use std::collections::HashMap;
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
    /// Bytes sent out (client to server) over all the call's connections.
    pub upload_cap: Option<u64>,
    /// Bytes received (server to client) over all the call's connections.
    pub download_cap: Option<u64>,
    pub max_connections: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits {
            byte_cap: None,
            upload_cap: None,
            download_cap: None,
            max_connections: MAX_CALL_CONNECTIONS,
        }
    }
}

/// Which way bytes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the client to the server.
    Up,
    /// From the server to the client.
    Down,
}

/// Bytes carried so far.
#[derive(Debug, Default, Clone, Copy)]
struct Usage {
    up: u64,
    down: u64,
}

/// What `limits` still let through `way` after `used`.
fn room(limits: &CallLimits, used: Usage, way: Direction) -> u64 {
    let total = limits.byte_cap.map_or(u64::MAX, |cap| {
        cap.saturating_sub(used.up.saturating_add(used.down))
    });
    let own = match way {
        Direction::Up => limits.upload_cap.map(|cap| cap.saturating_sub(used.up)),
        Direction::Down => limits.download_cap.map(|cap| cap.saturating_sub(used.down)),
    };
    total.min(own.unwrap_or(u64::MAX))
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
    used: Mutex<Usage>,
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
                used: Mutex::new(Usage::default()),
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
        let used = self.usage();
        used.up.saturating_add(used.down)
    }

    fn usage(&self) -> Usage {
        match self.inner.used.lock() {
            Ok(guard) => *guard,
            Err(poisoned) => *poisoned.into_inner(),
        }
    }

    /// Bytes the call may still carry `way` (`u64::MAX` without a cap).
    pub(crate) fn remaining(&self, way: Direction) -> u64 {
        room(&self.inner.limits, self.usage(), way)
    }

    /// Takes up to `n` bytes `way` from the call's allowances; returns how many may be
    /// carried.
    pub(crate) fn spend(&self, way: Direction, n: u64) -> u64 {
        let mut used = match self.inner.used.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let allowed = n.min(room(&self.inner.limits, *used, way));
        match way {
            Direction::Up => used.up = used.up.saturating_add(allowed),
            Direction::Down => used.down = used.down.saturating_add(allowed),
        }
        allowed
    }

    /// Which cap stopped bytes going `way`, in words.
    pub(crate) fn cap_text(&self, way: Direction) -> String {
        let limits = self.inner.limits;
        let used = self.usage();
        let (name, cap) = match (way, limits.upload_cap, limits.download_cap) {
            (Direction::Up, Some(cap), _) if used.up >= cap => ("upload", cap),
            (Direction::Down, _, Some(cap)) if used.down >= cap => ("download", cap),
            _ => ("byte", limits.byte_cap.unwrap_or_default()),
        };
        format!("the call's {name} cap ({cap} bytes) was reached")
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
