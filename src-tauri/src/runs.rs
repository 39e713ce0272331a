//! Running prompts: each session runs at most one prompt at a time, in the background,
//! persisting to its session file and streaming its events to the window that started it.
//! The run itself is the host's; this only adapts it to a window.

use std::path::Path;
use std::sync::Arc;

use paddock_host::trust::TrustPolicy;
use paddock_host::{Approver, EventSink, RunOptions, RunRequest, SessionTarget};

use crate::error::{AppResult, ToAppError};
use crate::state::Desktop;

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
    let request = RunRequest {
        target: session.map_or(SessionTarget::New, SessionTarget::Resume),
        prompt,
        options: RunOptions::default(),
        approver: Approver::Person,
        events,
        cancel: None,
        // The trust screen decides what applies; until then, Paddock's safe defaults.
        trust: TrustPolicy::SafeDefaults,
        output_schema: None,
        worktree: None,
    };
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
