//! Running prompts: each session runs at most one prompt at a time, in the background,
//! persisting to its session file and streaming its events to the window that started it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use paddock_kernel::approval::{Approvals, AskPolicy};
use paddock_kernel::events::{EventSink, Fanout};
use paddock_kernel::{AgentHandle, protocol::AgentEvent};
use paddock_protocol::{AppErrorCode, ApprovalDecision};

use crate::error::{AppResult, ToAppError, app_error, invalid};
use crate::projects::load_settings;
use crate::state::Desktop;

type Key = (PathBuf, String);

/// The sessions with a prompt running, and each session's approvals (a "for this session"
/// answer lasts as long as the app runs, across prompts).
#[derive(Default)]
pub struct Runs {
    /// Each run's number (so a finished run never unregisters its successor) and handle.
    running: Mutex<HashMap<Key, (u64, AgentHandle)>>,
    next_run: AtomicU64,
    approvals: Mutex<HashMap<Key, Arc<Approvals>>>,
}

impl Runs {
    fn key(root: &Path, session: &str) -> Key {
        (root.to_path_buf(), session.to_owned())
    }

    pub fn is_running(&self, root: &Path, session: &str) -> bool {
        lock(&self.running).contains_key(&Self::key(root, session))
    }

    fn approvals(&self, root: &Path, session: &str) -> Arc<Approvals> {
        lock(&self.approvals)
            .entry(Self::key(root, session))
            .or_insert_with(|| Arc::new(Approvals::new(AskPolicy::Interactive)))
            .clone()
    }

    fn start(&self, root: &Path, session: &str, handle: AgentHandle) -> u64 {
        let run = self.next_run.fetch_add(1, Ordering::Relaxed);
        lock(&self.running).insert(Self::key(root, session), (run, handle));
        run
    }

    fn finish(&self, root: &Path, session: &str, run: u64) {
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
    ) -> AppResult<()> {
        let running = lock(&self.running);
        let (_, handle) = running.get(&Self::key(root, session)).ok_or_else(|| {
            app_error(
                AppErrorCode::NotFound,
                "this session has no run waiting for an approval",
            )
        })?;
        handle
            .approve(request_id, decision)
            .map_err(ToAppError::app_error)
    }
}

/// Starts `prompt` in a new session (`session` = None) or continues a stored one; returns the
/// session id at once while the run goes on. `events` gets every event, ending with
/// `run_finished`.
pub async fn send_prompt(
    desktop: &Desktop,
    root: &Path,
    session: Option<String>,
    prompt: String,
    events: Arc<dyn EventSink>,
) -> AppResult<String> {
    if prompt.trim().is_empty() {
        return Err(invalid("the prompt is empty"));
    }
    let project = desktop.project(root);
    let _starting = project.start_lock.lock().await;
    if let Some(id) = &session {
        if desktop.runs.is_running(root, id) {
            return Err(app_error(
                AppErrorCode::Busy,
                "a prompt is already running in this session; stop it or wait for it to finish",
            ));
        }
    }
    let settings = load_settings(root)?;
    let runtime = project
        .runtime(settings, desktop.keys.clone(), desktop.keys_generation())
        .await?;
    let store = &desktop.store;
    let (id, writer, history) = match session {
        None => {
            let provider = runtime.provider().as_str();
            let (header, writer) = store
                .create(root, Some(provider), runtime.model_name(), &prompt)
                .map_err(ToAppError::app_error)?;
            (header.id, writer, Vec::new())
        }
        Some(id) => {
            let (loaded, writer) = store.resume(root, &id).map_err(ToAppError::app_error)?;
            for warning in &loaded.warnings {
                tracing::warn!(session = %id, "{warning}");
            }
            (id, writer, loaded.messages)
        }
    };
    let writer = Arc::new(writer);
    let mut agent = runtime
        .agent()
        .with_history(history)
        .with_checkpoint(writer.clone())
        .with_approvals(desktop.runs.approvals(root, &id));
    let run = desktop.runs.start(root, &id, agent.handle());
    let done = Arc::new(RunEnd {
        runs: desktop.runs.clone(),
        root: root.to_path_buf(),
        session: id.clone(),
        run,
        events,
    });
    agent = agent.with_events(Arc::new(Fanout(vec![writer.clone(), done.clone()])));
    tracing::info!(session = %id, model = runtime.model_name(), "run started");

    tauri::async_runtime::spawn(async move {
        // Marks the session idle even if the run panics.
        let _idle = Idle(done);
        let result = agent.run(&prompt).await;
        writer.flush();
        if let Some(e) = writer.error() {
            tracing::error!(session = writer.id(), "session file write failed: {e}");
        }
        let exit = result.exit.as_str();
        tracing::info!(
            session = writer.id(),
            exit,
            turns = result.turns,
            "run finished"
        );
    });
    Ok(id)
}

struct Idle(Arc<RunEnd>);

impl Drop for Idle {
    fn drop(&mut self) {
        self.0
            .runs
            .finish(&self.0.root, &self.0.session, self.0.run);
    }
}

/// Forwards events to the window and marks the session idle as `run_finished` goes by, so the
/// UI may send the next prompt as soon as it sees the event (the session file is flushed by
/// then: the writer comes first in the fan-out).
struct RunEnd {
    runs: Arc<Runs>,
    root: PathBuf,
    session: String,
    run: u64,
    events: Arc<dyn EventSink>,
}

impl EventSink for RunEnd {
    fn emit(&self, event: AgentEvent) {
        if matches!(event, AgentEvent::RunFinished { .. }) {
            self.runs.finish(&self.root, &self.session, self.run);
        }
        self.events.emit(event);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
