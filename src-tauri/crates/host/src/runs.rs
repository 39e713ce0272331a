//! The prompts running now, by session, with each session's approvals (a "for this session"
//! answer lasts as long as the process, across prompts).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use paddock_core::{AgentHandle, Approvals, AskPolicy};
use paddock_protocol::ApprovalDecision;

use crate::HostError;

type Key = (PathBuf, String);

#[derive(Default)]
pub struct LiveRuns {
    /// Each run's number (so a finished run never unregisters its successor) and handle.
    running: Mutex<HashMap<Key, (u64, AgentHandle)>>,
    next_run: AtomicU64,
    approvals: Mutex<HashMap<Key, Arc<Approvals>>>,
}

impl LiveRuns {
    fn key(root: &Path, session: &str) -> Key {
        (root.to_path_buf(), session.to_owned())
    }

    pub fn is_running(&self, root: &Path, session: &str) -> bool {
        lock(&self.running).contains_key(&Self::key(root, session))
    }

    /// Whether any session of the project is running a prompt.
    pub fn any_running(&self, root: &Path) -> bool {
        lock(&self.running).keys().any(|(r, _)| r == root)
    }

    /// Whether any prompt is running, in any project (an update waits for none).
    pub fn any(&self) -> bool {
        !lock(&self.running).is_empty()
    }

    /// The session's approvals, answered by a person (the app).
    pub(crate) fn approvals(&self, root: &Path, session: &str) -> Arc<Approvals> {
        lock(&self.approvals)
            .entry(Self::key(root, session))
            .or_insert_with(|| Arc::new(Approvals::new(AskPolicy::Interactive)))
            .clone()
    }

    pub(crate) fn start(&self, root: &Path, session: &str, handle: AgentHandle) -> u64 {
        let run = self.next_run.fetch_add(1, Ordering::Relaxed);
        lock(&self.running).insert(Self::key(root, session), (run, handle));
        run
    }

    pub(crate) fn finish(&self, root: &Path, session: &str, run: u64) {
        let mut running = lock(&self.running);
        let key = Self::key(root, session);
        if running.get(&key).is_some_and(|(r, _)| *r == run) {
            running.remove(&key);
        }
    }

    /// Cancels the session's run; nothing to do when none is running (it may just have ended).
    pub fn stop(&self, root: &Path, session: &str) {
        if let Some((_, handle)) = lock(&self.running).get(&Self::key(root, session)) {
            tracing::info!(session, "run stopped by the user");
            handle.cancel();
        }
    }

    /// Cancels every run of a project (its window closed).
    pub fn stop_project(&self, root: &Path) {
        for ((r, _), (_, handle)) in lock(&self.running).iter() {
            if r == root {
                handle.cancel();
            }
        }
    }

    pub fn approve(
        &self,
        root: &Path,
        session: &str,
        request_id: &str,
        decision: ApprovalDecision,
    ) -> Result<(), HostError> {
        let running = lock(&self.running);
        let (_, handle) = running.get(&Self::key(root, session)).ok_or_else(|| {
            HostError::NotFound("this session has no run waiting for an approval".to_owned())
        })?;
        handle
            .approve(request_id, decision)
            .map_err(|e| HostError::NotFound(e.to_string()))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
