//! Stored sessions for the sidebar and the transcript view, read through the host's store.

use std::path::Path;

use paddock_host::RunService;
use paddock_host::session::{self, SessionStore};
use paddock_protocol::{AppErrorCode, ExportFormat, SearchHit, SessionSummary, SessionTranscript};

use crate::error::{AppResult, ToAppError, app_error};

pub fn list(store: &SessionStore, root: &Path) -> AppResult<Vec<SessionSummary>> {
    store.list(root).map_err(ToAppError::app_error)
}

pub fn search(store: &SessionStore, root: &Path, query: &str) -> AppResult<Vec<SearchHit>> {
    store.search(root, query).map_err(ToAppError::app_error)
}

pub fn load(store: &SessionStore, root: &Path, id: &str) -> AppResult<SessionTranscript> {
    let s = store.load(root, id).map_err(ToAppError::app_error)?;
    Ok(SessionTranscript {
        header: s.header,
        messages: s.messages,
        events: s.events,
        warnings: s.warnings,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

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
