//! The status of every configured server, published on a watch channel the host (CLI, app)
//! subscribes to.

use std::collections::BTreeMap;
use std::sync::Arc;

use paddock_protocol::{McpServerState, McpServerStatus};
use tokio::sync::watch;

/// How much of a server's stderr a status carries (the whole log is on the handle).
pub const STATUS_STDERR_CHARS: usize = 2000;

/// Called with each status as it changes.
pub type Callback = Arc<dyn Fn(&McpServerStatus) + Send + Sync>;

/// Shared by the servers and the host; cheap to clone.
#[derive(Clone)]
pub struct StatusBoard {
    tx: Arc<watch::Sender<BTreeMap<String, McpServerStatus>>>,
    callback: Option<Callback>,
}

impl StatusBoard {
    pub fn new(callback: Option<Callback>) -> Self {
        Self {
            tx: Arc::new(watch::Sender::new(BTreeMap::new())),
            callback,
        }
    }

    pub fn subscribe(&self) -> watch::Receiver<BTreeMap<String, McpServerStatus>> {
        self.tx.subscribe()
    }

    /// Every server's status, by name.
    pub fn snapshot(&self) -> Vec<McpServerStatus> {
        self.tx.borrow().values().cloned().collect()
    }

    pub fn get(&self, name: &str) -> Option<McpServerStatus> {
        self.tx.borrow().get(name).cloned()
    }

    /// Sets a server's state; warnings are kept, the stderr tail is replaced.
    pub fn set(&self, name: &str, state: McpServerState, stderr_tail: Option<String>) {
        self.update(name, |s| {
            s.state = state;
            s.stderr_tail = stderr_tail;
        });
    }

    pub fn warn(&self, name: &str, warning: String) {
        tracing::warn!("MCP server '{name}': {warning}");
        self.update(name, |s| s.warnings.push(warning));
    }

    /// Takes a tool off a running server's list (it could not be registered).
    pub fn forget_tool(&self, name: &str, tool: &str) {
        self.update(name, |s| {
            if let McpServerState::Running { tools } = &mut s.state {
                tools.retain(|t| t != tool);
            }
        });
    }

    fn update(&self, name: &str, change: impl FnOnce(&mut McpServerStatus)) {
        let mut changed = None;
        self.tx.send_modify(|all| {
            let status = all
                .entry(name.to_owned())
                .or_insert_with(|| McpServerStatus {
                    name: name.to_owned(),
                    state: McpServerState::Starting,
                    warnings: Vec::new(),
                    stderr_tail: None,
                });
            change(status);
            changed = Some(status.clone());
        });
        if let (Some(callback), Some(status)) = (&self.callback, changed) {
            callback(&status);
        }
    }
}
