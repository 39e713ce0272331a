//! How a run records the workspace so it can be rewound: before the tools of a turn that may
//! change files, the workspace's state is recorded (the host keeps the records), and at the
//! end the run's changes are listed.

use async_trait::async_trait;
use paddock_protocol::ChangeSummary;

/// A recorded state of the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The state's id (the same for the same contents).
    pub id: String,
    /// The folder recorded (absolute).
    pub workspace: String,
    /// Things the user should know, said once (a file too large to keep).
    pub notices: Vec<String>,
}

/// Why the workspace could not be recorded; the run goes on, that turn cannot be rewound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RecordError(pub String);

/// Records the workspace an agent works in. The host implements it over its checkpoint
/// store; teammates have none (their caller's turn covers them).
#[async_trait]
pub trait WorkspaceRecorder: Send + Sync {
    /// Records the workspace as it is now.
    async fn record(&self) -> Result<Recorded, RecordError>;

    /// Every path that differs between two recorded states.
    async fn changes(&self, from: &str, to: &str) -> Result<Vec<ChangeSummary>, RecordError>;
}
