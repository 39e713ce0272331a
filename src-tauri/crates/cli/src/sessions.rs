//! `paddock sessions`: the stored conversations of one project.

use std::path::Path;

use paddock_host::session::{SessionStore, to_json, to_markdown};

use crate::cli::{ExportFormat, SessionsAction};
use crate::exit::{CliError, Code};
use crate::files;
use crate::files::project_dir;
use crate::output;

pub fn run(project: Option<&Path>, action: &SessionsAction) -> Result<Code, CliError> {
    let dir = project_dir(project)?;
    // Sessions are filed under the project's resolved path, as `exec` records them.
    let root = std::fs::canonicalize(&dir).map_err(|e| {
        CliError::failure(format!("cannot open project folder {}: {e}", dir.display()))
    })?;
    let store = SessionStore::open_default()?;
    match action {
        SessionsAction::List { json } => list(&store, &root, *json),
        SessionsAction::Show { id, json } => {
            let session = store.load(&root, id)?;
            warn_all(id, &session.warnings);
            if *json {
                output::json_line(&to_json(&session));
            } else {
                output::out(&to_markdown(&session));
            }
            Ok(Code::Success)
        }
        SessionsAction::Search { query, json } => search(&store, &root, query, *json),
        SessionsAction::Export { id, format, output } => {
            let session = store.load(&root, id)?;
            warn_all(id, &session.warnings);
            let json = matches!(format, ExportFormat::Json);
            let mut text = match format {
                ExportFormat::Markdown => to_markdown(&session),
                ExportFormat::Json => serde_json::to_string_pretty(&to_json(&session))
                    .map_err(|e| CliError::failure(format!("cannot encode the session: {e}")))?,
            };
            if !text.ends_with('\n') {
                text.push('\n');
            }
            write_out(output.as_deref(), &text, json)
        }
        SessionsAction::Delete { id } => {
            // Through the run service: the checkpoints only this session used go too.
            let service = paddock_host::RunService::new(
                store.clone(),
                std::sync::Arc::new(crate::keys::CliKeys),
                paddock_host::trust::TrustStore::open_default()?,
            );
            service.delete_session(&root, id)?;
            output::err(&format!("paddock: deleted session {id}"));
            Ok(Code::Success)
        }
    }
}

fn list(store: &SessionStore, root: &Path, json: bool) -> Result<Code, CliError> {
    let sessions = store.list(root)?;
    if json {
        output::json_line(&serde_json::json!(sessions));
        return Ok(Code::Success);
    }
    if sessions.is_empty() {
        output::err(&format!("paddock: no sessions for {}", root.display()));
        return Ok(Code::Success);
    }
    let mut text = String::new();
    for s in &sessions {
        let cost = s.cost.map_or_else(|| "-".to_owned(), |c| c.describe());
        text.push_str(&format!(
            "{}  {}  {}  {}  {}\n",
            s.id, s.updated, s.model, cost, s.title
        ));
    }
    output::out(&text);
    Ok(Code::Success)
}

fn search(store: &SessionStore, root: &Path, query: &str, json: bool) -> Result<Code, CliError> {
    if query.trim().is_empty() {
        return Err(CliError::usage("the search text is empty"));
    }
    let hits = store.search(root, query)?;
    if json {
        output::json_line(&serde_json::json!(hits));
    } else {
        let mut text = String::new();
        for h in &hits {
            text.push_str(&format!(
                "{}  #{}  {}\n",
                h.session_id, h.message_index, h.snippet
            ));
        }
        output::out(&text);
        if hits.is_empty() {
            output::err(&format!("paddock: no session mentions {query:?}"));
        }
    }
    Ok(Code::Success)
}

/// The export on stdout (rendered for a terminal; JSON keeps its values) or in a file as is.
fn write_out(path: Option<&Path>, text: &str, json: bool) -> Result<Code, CliError> {
    match path {
        None if json => output::out_exact(&crate::terminal::json_text(text)),
        None => output::out(text),
        Some(p) => {
            // Never through a link at that name; a new file is the user's only, as the
            // session it came from.
            files::write_output(p, text, files::PRIVATE_MODE)?;
            output::err(&format!("paddock: wrote {}", p.display()));
        }
    }
    Ok(Code::Success)
}

fn warn_all(id: &str, warnings: &[String]) {
    for w in warnings {
        output::err(&format!("paddock: warning: session {id}: {w}"));
    }
}
