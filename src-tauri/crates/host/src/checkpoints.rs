//! The project's workspace checkpoints: one store per project in Paddock's data folder (which
//! bash cannot see), and the recorder a run uses to record the workspace before turns that may
//! change it.
//!
//! The first snapshot of a workspace in a process reads everything (and arms the store's
//! change journal); it is started in the background when a project is opened or a run
//! starts ([`ProjectCheckpoints::begin_base`]), so the first writing turn waits only for
//! what is not done yet, and says so. Shells show [`ProjectCheckpoints::status`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use paddock_changes::{CheckpointStore, Snapshot};
use paddock_core::{EventSink, RecordError, Recorded, WorkspaceRecorder};
use paddock_guard::PathGuard;
use paddock_protocol::{AgentEvent, ChangeSummary, CheckpointState, CheckpointStatus};

use crate::HostError;

/// A wait for the first snapshot shorter than this is not worth a word.
const SAY_WAIT_AFTER: Duration = Duration::from_millis(100);

/// A project's checkpoint store, the notices already given (said once per process), and
/// its first snapshot in this process.
pub struct ProjectCheckpoints {
    store: CheckpointStore,
    told: Mutex<HashSet<String>>,
    base: Mutex<Base>,
}

#[derive(Debug, Clone, Default)]
enum Base {
    #[default]
    NotStarted,
    Running,
    Ready {
        files: usize,
        took: Duration,
    },
    Failed(String),
}

impl ProjectCheckpoints {
    pub(crate) fn open(dir: PathBuf) -> Result<Self, HostError> {
        Ok(Self {
            store: CheckpointStore::open(dir)?,
            told: Mutex::default(),
            base: Mutex::default(),
        })
    }

    pub fn store(&self) -> &CheckpointStore {
        &self.store
    }

    fn base(&self) -> std::sync::MutexGuard<'_, Base> {
        self.base.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts the workspace's first snapshot in this process in the background, unless it
    /// was started already. Returns at once.
    pub fn begin_base(self: &Arc<Self>, guard: PathGuard) {
        {
            let mut base = self.base();
            if !matches!(*base, Base::NotStarted | Base::Failed(_)) {
                return;
            }
            *base = Base::Running;
        }
        let this = self.clone();
        let spawned = std::thread::Builder::new()
            .name("checkpoint-base".into())
            .spawn(move || {
                let started = Instant::now();
                // Its notices (files not kept) come with the first turn's snapshot.
                let done = match this.store.snapshot(&guard) {
                    Ok(snap) => Base::Ready {
                        files: snap.files,
                        took: started.elapsed(),
                    },
                    Err(e) => Base::Failed(e.to_string()),
                };
                tracing::info!(state = ?done, "first checkpoint of the workspace");
                *this.base() = done;
            });
        if let Err(e) = spawned {
            *self.base() = Base::Failed(format!("cannot start the first snapshot: {e}"));
        }
    }

    /// Where the checkpoints stand.
    pub fn status(&self) -> CheckpointStatus {
        let base = self.base().clone();
        let progress = self.store.progress();
        let off = self
            .store
            .journal_stats()
            .off
            .map(|why| format!("each turn walks the whole workspace ({why})"));
        let mut files = progress.files;
        let (state, took_ms, message) = match base {
            Base::NotStarted => (CheckpointState::Idle, None, off),
            Base::Running => (CheckpointState::Recording, None, None),
            Base::Ready { took, files: all } => {
                files = u64::try_from(all).unwrap_or(u64::MAX);
                (
                    CheckpointState::Ready,
                    Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX)),
                    off,
                )
            }
            Base::Failed(e) => (CheckpointState::Failed, None, Some(e)),
        };
        CheckpointStatus {
            state,
            files,
            bytes: progress.bytes,
            expected: progress.expected,
            took_ms,
            message,
        }
    }

    /// What the first writing turn says when it has to wait for the first snapshot, or
    /// `None` when that is done (or was never started).
    fn waiting_note(&self) -> Option<String> {
        if !matches!(*self.base(), Base::Running) {
            return None;
        }
        let p = self.store.progress();
        let of = if p.expected > 0 {
            format!(" of about {}", p.expected)
        } else {
            String::new()
        };
        Some(format!(
            "Checkpoints: this turn waits for the workspace's first snapshot to finish \
             ({} files{of} read so far)",
            p.files
        ))
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
    /// The run's events, to say before waiting for the first snapshot (set once the run's
    /// event fan-out exists).
    pub(crate) events: Arc<OnceLock<Arc<dyn EventSink>>>,
}

#[async_trait]
impl WorkspaceRecorder for Recorder {
    async fn record(&self) -> Result<Recorded, RecordError> {
        let (checkpoints, guard) = (self.checkpoints.clone(), self.guard.clone());
        let workspace = workspace_name(guard.root());
        let waiting = checkpoints.waiting_note();
        let mut said = false;
        if let (Some(note), Some(events)) = (&waiting, self.events.get()) {
            events.emit(AgentEvent::warning(note.clone()));
            said = true;
        }
        let started = Instant::now();
        blocking(move || {
            let (snapshot, mut notices) = checkpoints.snapshot(&guard)?;
            let waited = started.elapsed();
            if waiting.is_some() && !said && waited >= SAY_WAIT_AFTER {
                notices.insert(
                    0,
                    format!(
                        "Checkpoints: this turn waited {:.1} s for the workspace's first \
                         snapshot ({} files)",
                        waited.as_secs_f64(),
                        snapshot.files
                    ),
                );
            }
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
    paddock_core::blocking(
        move || work().map_err(|e| RecordError(e.to_string())),
        |e| RecordError(format!("the recording stopped unexpectedly: {e}")),
    )
    .await
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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Events(Mutex<Vec<AgentEvent>>);

    impl EventSink for Events {
        fn emit(&self, event: AgentEvent) {
            self.0.lock().unwrap().push(event);
        }
    }

    fn workspace(files: usize) -> (tempfile::TempDir, PathGuard, Arc<ProjectCheckpoints>) {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        for i in 0..files {
            let dir = ws.join(format!("d{}", i / 100));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join(format!("f{i}.txt")),
                format!("file {i}\n").repeat(50),
            )
            .unwrap();
        }
        let guard = PathGuard::new(&ws);
        let checkpoints = Arc::new(ProjectCheckpoints::open(tmp.path().join("store")).unwrap());
        (tmp, guard, checkpoints)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_first_writing_turn_waits_only_for_what_is_left_and_says_so() {
        let (_tmp, guard, checkpoints) = workspace(20_000);
        assert_eq!(checkpoints.status().state, CheckpointState::Idle);
        checkpoints.begin_base(guard.clone());
        assert_eq!(checkpoints.status().state, CheckpointState::Recording);
        let events = Arc::new(Events::default());
        let sink: Arc<dyn EventSink> = events.clone();
        let recorder = Recorder {
            checkpoints: checkpoints.clone(),
            guard: guard.clone(),
            events: Arc::new(OnceLock::from(sink)),
        };
        let first = recorder.record().await.unwrap();
        let said: Vec<String> = events
            .0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Warning { message, .. } => Some(message.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(said.len(), 1, "{said:?} {:?}", checkpoints.status());
        assert!(
            said[0].contains("waits for the workspace's first snapshot"),
            "{said:?}"
        );
        // The base snapshot did the reading; the turn's own snapshot took the journal's.
        // (The base thread notes it is done just after its snapshot returns; up to a minute on a
        // loaded machine.)
        let mut status = checkpoints.status();
        for _ in 0..1_200 {
            if status.state != CheckpointState::Recording {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
            status = checkpoints.status();
        }
        assert_eq!(
            (status.state, status.files),
            (CheckpointState::Ready, 20_000)
        );
        assert!(status.took_ms.is_some());
        let stats = checkpoints.store().journal_stats();
        assert_eq!((stats.walks, stats.incremental), (1, 1), "{stats:?}");
        // Once done, a turn says nothing and records the same state.
        let again = recorder.record().await.unwrap();
        assert_eq!(again.id, first.id);
        assert!(again.notices.is_empty());
        assert_eq!(events.0.lock().unwrap().len(), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn without_a_sink_the_wait_is_told_afterwards() {
        let (_tmp, guard, checkpoints) = workspace(20_000);
        checkpoints.begin_base(guard.clone());
        let recorder = Recorder {
            checkpoints: checkpoints.clone(),
            guard,
            events: Arc::default(),
        };
        let recorded = recorder.record().await.unwrap();
        assert!(
            recorded.notices.iter().any(|n| n.contains("waited")),
            "{:?}",
            recorded.notices
        );
    }
}
