//! Stored sessions for the sidebar and the transcript view, read through the host's store.

use std::collections::HashSet;
use std::path::Path;

use paddock_host::RunService;
use paddock_host::session::{self, SessionStore};
use paddock_protocol::{
    AgentEvent, AppErrorCode, ContentBlock, ExportFormat, Message, SearchHit, SessionSummary,
    SessionTranscript,
};

use crate::error::{AppResult, ToAppError, app_error};

/// The project's sessions, newest first, their times in the local offset (see `local_time`).
pub fn list(store: &SessionStore, root: &Path) -> AppResult<Vec<SessionSummary>> {
    let mut sessions = store.list(root).map_err(ToAppError::app_error)?;
    for s in &mut sessions {
        s.created = crate::local_time::local(&s.created);
        s.updated = crate::local_time::local(&s.updated);
    }
    Ok(sessions)
}

/// One of a stored session's images as a `data:` URL for an `<img>` (only the session's own
/// images folder is read; a digest that names no file there reads nothing).
pub fn image(
    store: &SessionStore,
    root: &Path,
    id: &str,
    media_type: &str,
    sha256: &str,
) -> AppResult<String> {
    use base64::Engine;
    let bytes = store
        .image(root, id, media_type, sha256)
        .map_err(ToAppError::app_error)?;
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    Ok(format!("data:{media_type};base64,{data}"))
}

pub fn search(store: &SessionStore, root: &Path, query: &str) -> AppResult<Vec<SearchHit>> {
    store.search(root, query).map_err(ToAppError::app_error)
}

/// A stored session for the transcript view, whole.
pub fn load(store: &SessionStore, root: &Path, id: &str) -> AppResult<SessionTranscript> {
    load_tail(store, root, id, None)
}

/// A stored session for the transcript view: with `tail`, only its last turns (at least that
/// many; `omitted` says what was left out).
pub fn load_tail(
    store: &SessionStore,
    root: &Path,
    id: &str,
    tail: Option<u32>,
) -> AppResult<SessionTranscript> {
    let mut s = store.load(root, id).map_err(ToAppError::app_error)?;
    let omitted = tail.and_then(|n| crate::tail::keep_tail(&mut s.messages, &mut s.events, n));
    without_shown_results(&mut s.messages, &s.events);
    Ok(SessionTranscript {
        header: s.header,
        messages: s.messages,
        events: s.events,
        warnings: s.warnings,
        omitted,
    })
}

/// Empties the tool results the view shows from their `tool_call_finished` event: each output
/// then crosses to the page once, not twice (a 10,000-event session: 3.7 MB of JSON, about
/// half of it results). A result whose event was lost (Paddock stopped mid-call) keeps its
/// text: the view falls back to it.
fn without_shown_results(messages: &mut [Message], events: &[AgentEvent]) {
    let shown: HashSet<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallFinished { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    for block in messages.iter_mut().flat_map(|m| m.content.iter_mut()) {
        if let ContentBlock::ToolResult(result) = block
            && shown.contains(result.tool_call_id.as_str())
        {
            result.content = Default::default();
        }
    }
}

/// Deletes a session that is not running, and the checkpoints only it used.
pub fn delete(service: &RunService, root: &Path, id: &str) -> AppResult<()> {
    service
        .delete_session(root, id)
        .map_err(ToAppError::app_error)?;
    tracing::info!(session = id, "session deleted");
    Ok(())
}

/// The export's text and a file name to suggest in the save dialog.
pub fn export(
    store: &SessionStore,
    root: &Path,
    id: &str,
    format: ExportFormat,
) -> AppResult<(String, String)> {
    let s = store.load(root, id).map_err(ToAppError::app_error)?;
    let (text, ext) = match format {
        ExportFormat::Markdown => (session::to_markdown(&s), "md"),
        ExportFormat::Json => {
            let text = serde_json::to_string_pretty(&session::to_json(&s))
                .map_err(|e| app_error(AppErrorCode::Internal, e))?;
            (text, "json")
        }
    };
    Ok((text, format!("{}.{ext}", file_stem(&s.header.title, id))))
}

/// A file name from the session's title: letters, digits, '-' and '_', at most 60 characters.
fn file_stem(title: &str, id: &str) -> String {
    let mut stem = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() {
            stem.push(c);
        } else if !stem.ends_with('-') {
            stem.push('-');
        }
        if stem.chars().count() >= 60 {
            break;
        }
    }
    let stem = stem.trim_matches('-');
    if stem.is_empty() {
        format!("paddock-session-{id}")
    } else {
        format!("paddock-{stem}")
    }
}

/// The session as it reads after `change` (a rewind, a compaction undone or edited), which
/// runs off the async threads.
pub async fn after<T: Send + 'static>(
    desktop: &crate::state::Desktop,
    project: &str,
    session: String,
    change: impl FnOnce(&RunService, &Path) -> Result<T, paddock_host::HostError> + Send + 'static,
) -> AppResult<SessionTranscript> {
    let (root, service) = (
        crate::projects::canonical(project)?,
        desktop.service.clone(),
    );
    paddock_host::blocking(
        move || {
            change(&service, &root)?;
            load(service.store(), &root, &session)
        },
        crate::error::internal,
    )
    .await
}

/// `export_session`: the session as `format`, written where the native save dialog says
/// (0600, never through a link); `None` when the dialog was cancelled.
pub async fn export_to<R: tauri::Runtime>(
    app: &tauri::AppHandle<R>,
    desktop: &crate::state::Desktop,
    root: &Path,
    id: String,
    format: ExportFormat,
) -> AppResult<Option<String>> {
    let (root, store) = (root.to_path_buf(), desktop.store().clone());
    let (text, name) = crate::error::blocking(move || export(&store, &root, &id, format)).await?;
    let Some(path) = crate::windows::pick_save_path(app, &name).await? else {
        return Ok(None);
    };
    paddock_host::session::write_export(&path, &text)
        .map_err(|e| crate::error::internal(format!("cannot write {}: {e}", path.display())))?;
    Ok(Some(path.to_string_lossy().into_owned()))
}

/// The session after the model summarized the start of the conversation.
pub async fn compact(
    state: &crate::state::Desktop,
    project: &str,
    session_id: String,
) -> AppResult<SessionTranscript> {
    let root = crate::projects::canonical(project)?;
    let live = state.project(&root);
    let options = paddock_host::RunOptions::default();
    state
        .service
        .compact(
            &live,
            &session_id,
            &options,
            paddock_host::trust::TrustPolicy::SafeDefaults,
        )
        .await?;
    let service = state.service.clone();
    crate::error::blocking(move || load(service.store(), &root, &session_id)).await
}

/// The session with the latest compaction's summary (`id`) replaced by `summary`.
pub async fn edit_compaction(
    state: &crate::state::Desktop,
    project: &str,
    session_id: String,
    id: String,
    summary: String,
) -> AppResult<SessionTranscript> {
    let sid = session_id.clone();
    let edit = move |s: &RunService, root: &Path| s.edit_compaction(root, &sid, &id, &summary);
    after(state, project, session_id, edit).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_shown_from_their_event_are_sent_once() {
        use paddock_protocol::{Role, ToolResult, ToolStatus};
        let result = |id: &str, text: &str| {
            ContentBlock::ToolResult(ToolResult {
                tool_call_id: id.into(),
                content: text.into(),
                is_error: false,
            })
        };
        let mut messages = vec![Message {
            role: Role::User,
            content: vec![result("shown", "big output"), result("lost", "kept output")],
        }];
        let finished = |id: &str, output: &str| AgentEvent::ToolCallFinished {
            id: id.into(),
            name: "file_read".into(),
            summary: String::new(),
            output: output.into(),
            is_error: false,
            status: ToolStatus::Ok,
            duration_ms: 1,
            why: String::new(),
            changes: Vec::new(),
        };
        // A teammate's call with the same id is not the main conversation's.
        let events = vec![
            finished("shown", "big output"),
            AgentEvent::Delegated {
                agent: "helper".into(),
                depth: 1,
                call_id: "c".into(),
                event: Box::new(finished("lost", "x")),
            },
        ];
        without_shown_results(&mut messages, &events);
        let texts: Vec<&str> = messages[0].tool_results().map(|r| &*r.content).collect();
        assert_eq!(texts, ["", "kept output"]);
        assert!(
            matches!(&events[0], AgentEvent::ToolCallFinished { output, .. } if output == "big output")
        );
    }

    #[test]
    fn export_names_are_safe() {
        assert_eq!(
            file_stem("Fix the ../../etc bug!", "x"),
            "paddock-Fix-the-etc-bug"
        );
        assert_eq!(file_stem("///", "abc"), "paddock-session-abc");
    }

    #[test]
    fn sessions_round_trip_and_a_running_one_is_not_deleted() {
        let data = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let store = SessionStore::new(data.path().join("sessions"));
        let (header, writer) = store
            .create(project.path(), Some("openai"), "m", "Say hello")
            .unwrap();
        drop(writer);
        let listed = list(&store, project.path()).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].title, "Say hello");
        let t = load(&store, project.path(), &header.id).unwrap();
        assert_eq!(t.header, header);
        let (md, name) =
            export(&store, project.path(), &header.id, ExportFormat::Markdown).unwrap();
        assert!(md.contains("Say hello"), "{md}");
        assert_eq!(name, "paddock-Say-hello.md");
        let (json, name) = export(&store, project.path(), &header.id, ExportFormat::Json).unwrap();
        assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
        assert!(name.ends_with(".json"));

        let service = RunService::new(
            store.clone(),
            std::sync::Arc::new(paddock_host::EnvKeys),
            paddock_host::trust::TrustStore::new(data.path().join("trust.json")),
        );
        delete(&service, project.path(), &header.id).unwrap();
        assert_eq!(
            load(&store, project.path(), &header.id).unwrap_err().code,
            AppErrorCode::NotFound
        );
        assert_eq!(
            load(&store, project.path(), "../../x").unwrap_err().code,
            AppErrorCode::Invalid
        );
    }
}
