//! The project's workspace checkpoints: one store per project in Paddock's data folder (which
//! bash cannot see), and the recorder a run uses to record the workspace before turns that may
//! change it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use paddock_changes::{CheckpointStore, Snapshot};
use paddock_core::{RecordError, Recorded, WorkspaceRecorder};
use paddock_guard::PathGuard;
use paddock_protocol::ChangeSummary;

use crate::HostError;

/// A project's checkpoint store, and the notices already given (said once per process).
pub struct ProjectCheckpoints {
    store: CheckpointStore,
    told: Mutex<HashSet<String>>,
}

impl ProjectCheckpoints {
    pub(crate) fn open(dir: PathBuf) -> Result<Self, HostError> {
        Ok(Self {
            store: CheckpointStore::open(dir)?,
            told: Mutex::default(),
        })
    }

    pub fn store(&self) -> &CheckpointStore {
        &self.store
    }

    /// Records the workspace under `guard` now.
    pub(crate) fn snapshot(&self, guard: &PathGuard) -> Result<(Snapshot, Vec<String>), HostError> {
        let snapshot = self.store.snapshot(guard)?;
        let mut told = self.told.lock().unwrap_or_else(PoisonError::into_inner);
        let notices = snapshot
            .skipped
            .iter()
            .filter(|s| told.insert(s.path.clone()))
            .map(|s| format!("Checkpoints: {}", s.notice()))
            .collect();
        Ok((snapshot, notices))
    }
}

/// Records the workspace a run's tools work in.
pub(crate) struct Recorder {
    pub(crate) checkpoints: Arc<ProjectCheckpoints>,
    pub(crate) guard: PathGuard,
}

#[async_trait]
impl WorkspaceRecorder for Recorder {
    async fn record(&self) -> Result<Recorded, RecordError> {
        let (checkpoints, guard) = (self.checkpoints.clone(), self.guard.clone());
        let workspace = workspace_name(guard.root());
        blocking(move || {
            let (snapshot, notices) = checkpoints.snapshot(&guard)?;
            Ok(Recorded {
                id: snapshot.id,
                workspace,
                notices,
            })
        })
        .await
    }

    async fn changes(&self, from: &str, to: &str) -> Result<Vec<ChangeSummary>, RecordError> {
        let checkpoints = self.checkpoints.clone();
        let (from, to) = (from.to_owned(), to.to_owned());
        blocking(move || Ok(checkpoints.store.summary(&from, &to)?)).await
    }
}

/// How a workspace folder is named in checkpoints and rewinds (absolute, as configured).
pub(crate) fn workspace_name(root: &Path) -> String {
    root.display().to_string()
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, HostError> + Send + 'static,
) -> Result<T, RecordError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(RecordError(e.to_string())),
        Err(e) => Err(RecordError(format!(
            "the recording stopped unexpectedly: {e}"
        ))),
    }
}

impl crate::RunService {
    /// Deletes a session that is not running, then the checkpoints no other session of the
    /// project refers to.
    pub fn delete_session(&self, root: &Path, id: &str) -> Result<(), HostError> {
        if self.runs().is_running(root, id) {
            return Err(HostError::Busy(
                "this session is running; stop it before deleting it".into(),
            ));
        }
        self.store().delete(root, id)?;
        match self.prune_checkpoints(root) {
            Ok(freed) if freed > 0 => {
                tracing::info!(session = id, freed, "checkpoints pruned");
            }
            Ok(_) => {}
            // The session is gone either way; unused checkpoints only cost space.
            Err(e) => tracing::warn!("checkpoints not pruned: {e}"),
        }
        Ok(())
    }

    /// Removes checkpoint data no session of the project refers to; returns the bytes freed.
    pub fn prune_checkpoints(&self, root: &Path) -> Result<u64, HostError> {
        let mut keep = Vec::new();
        for summary in self.store().list(root)? {
            // An unreadable session keeps everything: never prune what it may use.
            let session = self.store().load(root, &summary.id)?;
            keep.extend(session.events.iter().flat_map(referenced));
        }
        let checkpoints = self.checkpoints(root)?;
        if checkpoints.store().pending()?.is_some() {
            return Ok(0);
        }
        Ok(checkpoints.store().prune(&keep)?)
    }
}

/// The checkpoint ids an event of a session refers to.
fn referenced(event: &paddock_protocol::AgentEvent) -> Vec<String> {
    use paddock_protocol::AgentEvent;
    match event {
        AgentEvent::CheckpointSaved(c) => vec![c.checkpoint.clone()],
        AgentEvent::RunChanges { from, to, .. } => vec![from.clone(), to.clone()],
        AgentEvent::Rewound(r) if !r.before.is_empty() => vec![r.before.clone()],
        _ => Vec::new(),
    }
}
