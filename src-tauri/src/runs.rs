//! Running prompts: each session runs at most one prompt at a time, in the background,
//! persisting to its session file and streaming its events to the window that started it.
//! The run itself is the host's; this only adapts it to a window.

use std::path::Path;
use std::sync::Arc;

use paddock_host::trust::TrustPolicy;
use paddock_host::{Approver, EventSink, RunOptions, RunRequest, SessionTarget};
use paddock_protocol::{PromptInput, RunStarted};
use tauri::{Runtime, WebviewWindow};

use crate::error::{AppResult, ToAppError};
use crate::notify::Notifier;
use crate::state::Desktop;

/// `send_prompt`: the run's events go to a feed of `window` (text deltas merged per frame,
/// notifications raised while the window is not focused); the feed is closed again when
/// the run could not start.
pub async fn start<R: Runtime>(
    window: WebviewWindow<R>,
    desktop: &Desktop,
    notifier: Arc<Notifier>,
    root: &Path,
    session: Option<String>,
    prompt: PromptInput,
    worktree: Option<String>,
) -> AppResult<RunStarted> {
    let label = window.label().to_owned();
    let (feed, writer) = desktop.events.open(&label);
    // The feed closes when the run's last event is in (the sink, and so the writer, dropped).
    let sink = Arc::new(crate::deltas::merging(move |event| writer.push(event)));
    let name = notice_name(desktop, root, session.as_deref(), worktree.as_deref());
    let sink = crate::notify::sink(window, name, notifier, sink);
    match send_prompt(desktop, root, session, prompt, worktree, sink).await {
        Ok(session_id) => Ok(RunStarted { session_id, feed }),
        Err(e) => {
            desktop.events.close(&label, feed);
            Err(e)
        }
    }
}

/// What a notification calls the run: the project, and a worktree session's branch (so
/// the user knows which of several sessions finished or waits).
pub fn notice_name(
    desktop: &Desktop,
    root: &Path,
    session: Option<&str>,
    worktree: Option<&str>,
) -> String {
    let name = crate::projects::name_of(root);
    let branch = match (worktree, session) {
        (Some(w), _) => Some(format!("{}{w}", paddock_host::WORKTREE_BRANCH_PREFIX)),
        (None, Some(id)) => desktop
            .service
            .session_worktree(root, id)
            .ok()
            .flatten()
            .map(|w| w.branch().to_owned()),
        (None, None) => None,
    };
    match branch {
        Some(branch) => format!("{name} ({branch})"),
        None => name,
    }
}

/// Starts `prompt` in a new session (`session` = None; in the worktree `worktree` when
/// given) or continues a stored one; returns the session id at once while the run goes on. `events` gets every event, ending with
/// `run_finished`.
pub async fn send_prompt(
    desktop: &Desktop,
    root: &Path,
    session: Option<String>,
    prompt: impl Into<PromptInput>,
    worktree: Option<String>,
    events: Arc<dyn EventSink>,
) -> AppResult<String> {
    let prompt: PromptInput = prompt.into();
    let agent = external_agent(desktop, root, session.as_deref(), &prompt);
    let request = RunRequest {
        target: session.map_or(SessionTarget::New, SessionTarget::Resume),
        prompt: prompt.text,
        attachments: prompt.attachments,
        options: RunOptions::default(),
        approver: Approver::Person,
        events,
        // Stopped through the live runs (`LiveRuns::stop`).
        cancel: None,
        // The trust screen decides what applies; until then, Paddock's safe defaults.
        trust: TrustPolicy::SafeDefaults,
        output_schema: None,
        worktree,
    };
    if let Some(agent) = agent {
        return send_to_agent(desktop, root, &agent, request);
    }
    let project = desktop.project(root);
    let prepared = desktop
        .service
        .prepare(&project, request)
        .await
        .map_err(ToAppError::app_error)?;
    for warning in &prepared.warnings {
        tracing::warn!(session = %prepared.session_id, "{warning}");
    }
    let id = prepared.session_id.clone();
    tauri::async_runtime::spawn(prepared.run());
    Ok(id)
}

/// The external agent a prompt goes to: a stored session's own, or the one chosen for a new
/// session.
fn external_agent(
    desktop: &Desktop,
    root: &Path,
    session: Option<&str>,
    prompt: &PromptInput,
) -> Option<String> {
    match session {
        Some(id) => agent_of(desktop, root, id),
        None => prompt.agent.clone(),
    }
}

/// The external agent a stored session belongs to, if it is one's (from its header alone:
/// every prompt of the app passes here).
pub fn agent_of(desktop: &Desktop, root: &Path, session: &str) -> Option<String> {
    let header = desktop.service.store().header(root, session).ok()?;
    (header.provider.as_deref() == Some(paddock_host::external::EXTERNAL_PROVIDER))
        .then_some(header.model)
}

/// The prompt to an external agent behind the wall; its approvals are the window's cards.
fn send_to_agent(
    desktop: &Desktop,
    root: &Path,
    agent: &str,
    request: RunRequest,
) -> AppResult<String> {
    let project = desktop.project(root);
    let prepared = desktop
        .service
        .prepare_external(&project, agent, request)
        .map_err(ToAppError::app_error)?;
    let id = prepared.session_id.clone();
    tauri::async_runtime::spawn(prepared.run());
    Ok(id)
}
