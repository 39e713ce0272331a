//! The end of a server's life, shared by its launcher and its status.

use std::sync::{Mutex, PoisonError};

use tokio_util::sync::CancellationToken;

/// Marks the end of a server's life, once, with the first reason given.
#[derive(Default)]
pub struct Lifeline {
    gone: CancellationToken,
    reason: Mutex<Option<String>>,
}

impl Lifeline {
    /// Records why the server is gone; later reasons are ignored.
    pub fn end(&self, reason: String) {
        let mut slot = self.reason.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(reason);
        }
        drop(slot);
        self.gone.cancel();
    }

    /// Why the server is gone, or `None` while it is alive.
    pub fn reason(&self) -> Option<String> {
        self.reason
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub async fn gone(&self) {
        self.gone.cancelled().await;
    }
}
